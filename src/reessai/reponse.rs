//! L'issue d'une émission, et son classement : rejouable ou non.
//!
//! Pourquoi ce type : sur un partage de connexion mobile, une coupure d'une seconde est normale ;
//! la rejouer automatiquement évite un geste humain. Mais rejouer « tout ce qui échoue » rejouerait
//! un 4xx (URL signée expirée, jeton mort : jamais valide au second essai) et transformerait une
//! lenteur serveur en rafale. Le classement est donc porté par le type, **variante par variante**,
//! ici et nulle part ailleurs : un appelant ne refait pas son propre `match` sur les statuts, qui
//! oublierait un cas (règle 1 de `docs/politique-reessai.md`).
//!
//! Deux questions distinctes, deux méthodes :
//! - [`ReponseApi::est_reessayable`] : la réponse autorise-t-elle *techniquement* un nouvel essai ?
//! - [`ReponseApi::a_pu_etre_traitee`] : le serveur a-t-il pu appliquer la requête ? C'est ce qui
//!   décide, pour une opération non idempotente, entre « rejouable sans risque » et « issue
//!   inconnue, à réconcilier » (règle 5).
//!
//! Une troisième, [`ReponseApi::serveur_a_repondu`], sert la pause réseau : une réponse
//! illisible ou un délai d'attente du corps dépassé viennent du serveur, ils ne disent pas que
//! le réseau est coupé.

use std::time::Duration;

/// Premier statut HTTP d'erreur serveur (5xx).
const PREMIER_STATUT_SERVEUR: u16 = 500;
/// Dernier statut HTTP d'erreur serveur (5xx).
const DERNIER_STATUT_SERVEUR: u16 = 599;
/// « Too Many Requests » : le serveur demande de ralentir, sans avoir traité la requête.
const STATUT_TROP_DE_REQUETES: u16 = 429;
/// « Service Unavailable » : le serveur refuse la requête sans la traiter (S3 `SlowDown`,
/// service en maintenance). Seul 5xx qui dise « pas traité » : un 500 peut survenir après
/// l'écriture, un 502 ou un 504 vient d'un relais alors que l'amont a pu traiter.
const STATUT_INDISPONIBLE: u16 = 503;
/// « Request Timeout » : un mandataire ou le serveur a attendu le corps trop longtemps.
const STATUT_DELAI_REQUETE: u16 = 408;
/// Le code d'erreur S3 du corps qui a calé (rendu avec un statut 400, pas 408).
const CODE_S3_DELAI_REQUETE: &str = "RequestTimeout";

/// Issue d'une émission vers la plateforme ou le compartiment S3.
///
/// `detail` est une courte description lisible (« connexion refusée », « SlowDown »), destinée au
/// journal des décisions : l'émetteur n'y met **jamais** de corps, d'en-tête, de jeton ni d'URL
/// signée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReponseApi<T> {
    /// La requête a abouti ; porte la valeur utile.
    Succes(T),
    /// Aucune réponse exploitable : réseau coupé, DNS, délai dépassé, réponse illisible.
    Injoignable {
        /// La requête a-t-elle pu atteindre le serveur ? `false` quand rien n'est parti
        /// (connexion refusée, nom introuvable) : le serveur n'a rien pu appliquer. `true` dès
        /// que des octets ont pu partir (délai dépassé, coupure en plein corps, réponse perdue).
        a_pu_atteindre: bool,
        /// Description lisible, sans secret.
        detail: String,
    },
    /// Le serveur a répondu par un statut d'échec.
    Refuse {
        /// Statut HTTP reçu.
        statut: u16,
        /// Attente demandée par le serveur (`Retry-After`, `Retry-After-Ms`), déjà interprétée
        /// par [`attente_demandee`](super::attente_demandee) ; `None` si absente ou malformée.
        retry_after: Option<Duration>,
        /// Description lisible, sans secret.
        detail: String,
    },
    /// Le serveur a répondu, mais sa réponse est inexploitable : corps malformé, tronqué, trop
    /// grand, champ attendu absent. Le serveur a reçu la requête et a pu la traiter ; le réseau,
    /// lui, marche : ce n'est pas une coupure.
    Illisible {
        /// Statut HTTP de la réponse illisible (souvent un 2xx).
        statut: u16,
        /// La cause (message du décodeur, du SDK), sans secret.
        detail: String,
    },
    /// Le serveur a renoncé à attendre la requête avant de la traiter : `408 Request Timeout`
    /// (un mandataire, un équilibreur) ou le `400 RequestTimeout` de S3 (corps qui a calé une
    /// vingtaine de secondes). C'est un incident du lien, pas un refus : rien n'a été traité.
    Expire {
        /// Statut HTTP reçu (408, ou 400 pour S3).
        statut: u16,
        /// Description lisible, sans secret.
        detail: String,
    },
    /// Le certificat présenté à la poignée de main TLS a été refusé (portail captif, proxy qui
    /// intercepte HTTPS, horloge fausse) : ce n'est ni le serveur ni une coupure du réseau, et
    /// attendre n'y changera rien. Jamais rejoué ; rien n'est parti.
    CertificatRefuse {
        /// Ce qui se passe, et le geste, en français.
        detail: String,
    },
}

impl<T> ReponseApi<T> {
    /// Le refus d'un serveur, classé d'après son statut et, pour S3, son code d'erreur : un
    /// délai d'attente du corps dépassé ([`ReponseApi::Expire`]) n'est pas un refus de la
    /// requête. Les transports construisent leurs refus ici, et nulle part ailleurs.
    pub(crate) fn refus(
        statut: u16,
        code: Option<&str>,
        retry_after: Option<Duration>,
        detail: String,
    ) -> Self {
        let expire = statut == STATUT_DELAI_REQUETE
            || (statut == 400 && code == Some(CODE_S3_DELAI_REQUETE));
        if expire {
            ReponseApi::Expire { statut, detail }
        } else {
            ReponseApi::Refuse {
                statut,
                retry_after,
                detail,
            }
        }
    }

    /// Vrai si la réponse autorise techniquement un nouvel essai.
    ///
    /// Cela ne dit pas que l'opération est sûre à rejouer : c'est une décision d'appelant
    /// (voir [`Rejouabilite`](super::Rejouabilite)).
    pub(crate) fn est_reessayable(&self) -> bool {
        match self {
            // Rien à rejouer : c'est fait.
            ReponseApi::Succes(_) => false,
            // Un accroc réseau est, par nature, transitoire sur le terrain.
            ReponseApi::Injoignable { .. } => true,
            // Un corps qui a calé sur un lien mobile passera au prochain essai.
            ReponseApi::Expire { .. } => true,
            // Une réponse tronquée ou abîmée par un relais peut arriver entière la fois
            // suivante ; une écriture non rejouable, elle, sera d'abord réconciliée.
            ReponseApi::Illisible { .. } => true,
            // 429 : le serveur demande de repasser plus tard. 5xx : indisponibilité du service,
            // qui peut se rétablir. Tout autre statut (4xx : nom, droits, jeton, URL expirée)
            // échouera de la même façon au second essai.
            ReponseApi::Refuse { statut, .. } => {
                *statut == STATUT_TROP_DE_REQUETES
                    || (PREMIER_STATUT_SERVEUR..=DERNIER_STATUT_SERVEUR).contains(statut)
            }
            // Un certificat refusé le sera encore : c'est un geste humain (uv, `retry.rs` :
            // les erreurs de certificat ne sont jamais rejouées).
            ReponseApi::CertificatRefuse { .. } => false,
        }
    }

    /// Vrai si le serveur a pu appliquer la requête : c'est ce qui rend l'issue d'une écriture non
    /// idempotente *inconnue* quand on n'a pas de succès confirmé.
    pub(crate) fn a_pu_etre_traitee(&self) -> bool {
        match self {
            ReponseApi::Succes(_) => true,
            // Rien n'est parti (connexion refusée, DNS) : le serveur n'a rien pu faire.
            ReponseApi::Injoignable { a_pu_atteindre, .. } => *a_pu_atteindre,
            // Le serveur a répondu quelque chose : il a pu agir avant de le dire mal.
            ReponseApi::Illisible { .. } => true,
            // Le serveur a renoncé avant d'avoir le corps entier.
            ReponseApi::Expire { .. } => false,
            // La poignée de main TLS a échoué : aucune requête n'est partie.
            ReponseApi::CertificatRefuse { .. } => false,
            ReponseApi::Refuse { statut, .. } => {
                // Un 5xx ne garantit pas que rien n'a été appliqué : un 500 peut survenir après
                // l'écriture, un 502/504 vient d'un relais alors que l'amont a pu traiter. Un
                // 503 dit « pas traité » (S3 `SlowDown`, maintenance), comme un 429 ou un autre
                // 4xx, refus explicites avant traitement.
                *statut != STATUT_INDISPONIBLE
                    && (PREMIER_STATUT_SERVEUR..=DERNIER_STATUT_SERVEUR).contains(statut)
            }
        }
    }

    /// Vrai si la réponse vient du serveur (succès, refus, réponse illisible, délai du corps
    /// dépassé) : le réseau marche, quoi qu'elle dise. Faux pour [`ReponseApi::Injoignable`],
    /// et pour [`ReponseApi::CertificatRefuse`] (ce qui a répondu n'est pas le serveur).
    pub(crate) fn serveur_a_repondu(&self) -> bool {
        !matches!(
            self,
            ReponseApi::Injoignable { .. } | ReponseApi::CertificatRefuse { .. }
        )
    }

    /// Vrai pour [`ReponseApi::Succes`].
    pub(crate) fn est_succes(&self) -> bool {
        matches!(self, ReponseApi::Succes(_))
    }

    /// Statut HTTP d'un échec venu du serveur (refus, réponse illisible, délai du corps
    /// dépassé) ; `None` pour un succès ou une réponse jamais reçue.
    pub(crate) fn statut(&self) -> Option<u16> {
        match self {
            ReponseApi::Refuse { statut, .. }
            | ReponseApi::Illisible { statut, .. }
            | ReponseApi::Expire { statut, .. } => Some(*statut),
            ReponseApi::Succes(_)
            | ReponseApi::Injoignable { .. }
            | ReponseApi::CertificatRefuse { .. } => None,
        }
    }

    /// Attente demandée par le serveur, s'il en a demandé une valide.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            ReponseApi::Refuse { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Description lisible de l'échec ; `None` pour un succès.
    pub(crate) fn detail(&self) -> Option<&str> {
        match self {
            ReponseApi::Succes(_) => None,
            ReponseApi::Injoignable { detail, .. }
            | ReponseApi::Refuse { detail, .. }
            | ReponseApi::Illisible { detail, .. }
            | ReponseApi::Expire { detail, .. }
            | ReponseApi::CertificatRefuse { detail } => Some(detail),
        }
    }

    /// La valeur utile d'un succès, sinon `None` (essais).
    #[cfg(test)]
    pub(crate) fn succes(self) -> Option<T> {
        match self {
            ReponseApi::Succes(valeur) => Some(valeur),
            _ => None,
        }
    }

    /// Transforme la valeur d'un succès en gardant l'échec tel quel.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> ReponseApi<U> {
        match self {
            ReponseApi::Succes(valeur) => ReponseApi::Succes(f(valeur)),
            ReponseApi::Injoignable {
                a_pu_atteindre,
                detail,
            } => ReponseApi::Injoignable {
                a_pu_atteindre,
                detail,
            },
            ReponseApi::Refuse {
                statut,
                retry_after,
                detail,
            } => ReponseApi::Refuse {
                statut,
                retry_after,
                detail,
            },
            ReponseApi::Illisible { statut, detail } => ReponseApi::Illisible { statut, detail },
            ReponseApi::Expire { statut, detail } => ReponseApi::Expire { statut, detail },
            ReponseApi::CertificatRefuse { detail } => ReponseApi::CertificatRefuse { detail },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refuse(statut: u16) -> ReponseApi<()> {
        ReponseApi::Refuse {
            statut,
            retry_after: None,
            detail: format!("statut {statut}"),
        }
    }

    fn injoignable(a_pu_atteindre: bool) -> ReponseApi<()> {
        ReponseApi::Injoignable {
            a_pu_atteindre,
            detail: "coupure".into(),
        }
    }

    #[test]
    fn seuls_injoignable_429_et_5xx_sont_reessayables() {
        assert!(injoignable(true).est_reessayable());
        assert!(injoignable(false).est_reessayable());
        for statut in [429, 500, 502, 503, 504, 599] {
            assert!(refuse(statut).est_reessayable(), "{statut} devrait l'être");
        }
        for statut in [
            0, 200, 304, 400, 401, 403, 404, 409, 412, 422, 428, 430, 499, 600,
        ] {
            assert!(
                !refuse(statut).est_reessayable(),
                "{statut} ne devrait pas l'être"
            );
        }
        assert!(!ReponseApi::Succes(()).est_reessayable());
    }

    /// Le tableau de tous les statuts, de 100 à 599, construits comme le font les transports :
    /// un changement de classement se voit ici d'un coup d'œil.
    #[test]
    fn tableau_des_statuts() {
        let mut rejouables = Vec::new();
        let mut pas_traites = Vec::new();
        for statut in 100..600u16 {
            let r = ReponseApi::<()>::refus(statut, None, None, String::new());
            if r.est_reessayable() {
                rejouables.push(statut);
                if !r.a_pu_etre_traitee() {
                    pas_traites.push(statut);
                }
            }
        }
        let mut attendus = vec![408, 429];
        attendus.extend(500..600);
        assert_eq!(rejouables, attendus);
        assert_eq!(pas_traites, [408, 429, 503]);
    }

    #[test]
    fn delai_du_corps_depasse_rejouable_sans_risque() {
        // Le 400 RequestTimeout de S3 et le 408 d'un mandataire : rien n'a été traité.
        for r in [
            ReponseApi::<()>::refus(400, Some("RequestTimeout"), None, "cale".into()),
            ReponseApi::<()>::refus(408, None, None, "cale".into()),
        ] {
            assert!(matches!(r, ReponseApi::Expire { .. }), "{r:?}");
            assert!(r.est_reessayable() && !r.a_pu_etre_traitee());
            assert!(r.serveur_a_repondu());
        }
        // Un autre 400 reste un refus définitif.
        let r = ReponseApi::<()>::refus(400, Some("InvalidArgument"), None, String::new());
        assert!(matches!(r, ReponseApi::Refuse { statut: 400, .. }));
        assert!(!r.est_reessayable());
    }

    /// Un certificat refusé : ni rejoué, ni traité, ni une réponse du serveur (ce n'est pas
    /// lui qui a répondu), ni une coupure.
    #[test]
    fn un_certificat_refuse_n_est_ni_rejoue_ni_une_reponse() {
        let r = ReponseApi::<()>::CertificatRefuse {
            detail: "portail captif".into(),
        };
        assert!(!r.est_reessayable() && !r.a_pu_etre_traitee() && !r.serveur_a_repondu());
        assert_eq!((r.statut(), r.detail()), (None, Some("portail captif")));
    }

    #[test]
    fn une_reponse_illisible_vient_du_serveur() {
        let r = ReponseApi::<()>::Illisible {
            statut: 200,
            detail: "XML inattendu".into(),
        };
        assert!(r.est_reessayable() && r.a_pu_etre_traitee() && r.serveur_a_repondu());
        assert_eq!(r.statut(), Some(200));
        assert!(!injoignable(true).serveur_a_repondu());
    }

    #[test]
    fn traitement_possible_selon_la_variante() {
        assert!(injoignable(true).a_pu_etre_traitee());
        assert!(!injoignable(false).a_pu_etre_traitee());
        assert!(refuse(500).a_pu_etre_traitee());
        assert!(refuse(502).a_pu_etre_traitee());
        assert!(!refuse(503).a_pu_etre_traitee());
        assert!(!refuse(429).a_pu_etre_traitee());
        assert!(!refuse(403).a_pu_etre_traitee());
        assert!(ReponseApi::Succes(()).a_pu_etre_traitee());
    }

    #[test]
    fn accesseurs() {
        let r: ReponseApi<u8> = ReponseApi::Refuse {
            statut: 503,
            retry_after: Some(Duration::from_secs(3)),
            detail: "indisponible".into(),
        };
        assert_eq!(r.statut(), Some(503));
        assert_eq!(r.retry_after(), Some(Duration::from_secs(3)));
        assert_eq!(r.detail(), Some("indisponible"));
        assert!(!r.est_succes());
        assert_eq!(r.clone().succes(), None);
        assert_eq!(r.map(u16::from).statut(), Some(503));

        let s = ReponseApi::Succes(7u8);
        assert_eq!(s.statut(), None);
        assert_eq!(s.retry_after(), None);
        assert_eq!(s.detail(), None);
        assert!(s.est_succes());
        assert_eq!(s.map(|v| u16::from(v) * 2).succes(), Some(14));

        assert_eq!(injoignable(true).statut(), None);
        assert_eq!(injoignable(true).detail(), Some("coupure"));
    }
}
