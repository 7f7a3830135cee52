//! L'issue d'une émission, et son classement : rejouable ou non.
//!
//! Pourquoi ce type : sur un partage de connexion mobile, une coupure d'une seconde est normale ;
//! la rejouer automatiquement évite un geste humain. Mais rejouer « tout ce qui échoue » rejouerait
//! un 4xx (URL signée expirée, jeton mort : jamais valide au second essai) et transformerait une
//! lenteur serveur en rafale. Le classement est donc porté par le type, **variante par variante**,
//! ici et nulle part ailleurs : un appelant ne refait pas son propre `match` sur les statuts, qui
//! oublierait un cas (règle 1 de `CONCEPTION.md`, décision `seeds/000`).
//!
//! Deux questions distinctes, deux méthodes :
//! - [`ReponseApi::est_reessayable`] : la réponse autorise-t-elle *techniquement* un nouvel essai ?
//! - [`ReponseApi::a_pu_etre_traitee`] : le serveur a-t-il pu appliquer la requête ? C'est ce qui
//!   décide, pour une opération non idempotente, entre « rejouable sans risque » et « issue
//!   inconnue, à réconcilier » (règle 5, `seeds/001`).

use std::time::Duration;

/// Premier statut HTTP d'erreur serveur (5xx).
const PREMIER_STATUT_SERVEUR: u16 = 500;
/// Dernier statut HTTP d'erreur serveur (5xx).
const DERNIER_STATUT_SERVEUR: u16 = 599;
/// « Too Many Requests » : le serveur demande de ralentir, sans avoir traité la requête.
const STATUT_TROP_DE_REQUETES: u16 = 429;

/// Issue d'une émission vers la plateforme ou le compartiment S3.
///
/// `detail` est une courte description lisible (« connexion refusée », « SlowDown »), destinée au
/// journal des décisions : l'émetteur n'y met **jamais** de corps, d'en-tête, de jeton ni d'URL
/// signée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReponseApi<T> {
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
}

impl<T> ReponseApi<T> {
    /// Vrai si la réponse autorise techniquement un nouvel essai.
    ///
    /// Cela ne dit pas que l'opération est sûre à rejouer : c'est une décision d'appelant
    /// (voir [`Rejouabilite`](super::Rejouabilite)).
    pub fn est_reessayable(&self) -> bool {
        match self {
            // Rien à rejouer : c'est fait.
            ReponseApi::Succes(_) => false,
            // Un accroc réseau est, par nature, transitoire sur le terrain.
            ReponseApi::Injoignable { .. } => true,
            // 429 : le serveur demande de repasser plus tard. 5xx : indisponibilité du service,
            // qui peut se rétablir. Tout autre statut (4xx : nom, droits, jeton, URL expirée)
            // échouera de la même façon au second essai.
            ReponseApi::Refuse { statut, .. } => {
                *statut == STATUT_TROP_DE_REQUETES
                    || (PREMIER_STATUT_SERVEUR..=DERNIER_STATUT_SERVEUR).contains(statut)
            }
        }
    }

    /// Vrai si le serveur a pu appliquer la requête : c'est ce qui rend l'issue d'une écriture non
    /// idempotente *inconnue* quand on n'a pas de succès confirmé.
    pub fn a_pu_etre_traitee(&self) -> bool {
        match self {
            ReponseApi::Succes(_) => true,
            // Rien n'est parti (connexion refusée, DNS) : le serveur n'a rien pu faire.
            ReponseApi::Injoignable { a_pu_atteindre, .. } => *a_pu_atteindre,
            ReponseApi::Refuse { statut, .. } => {
                // Un 5xx ne garantit pas que rien n'a été appliqué : un 500 peut survenir après
                // l'écriture, un 502/504 vient d'un relais alors que l'amont a pu traiter.
                // Un 429 ou un autre 4xx est un refus explicite, avant traitement.
                (PREMIER_STATUT_SERVEUR..=DERNIER_STATUT_SERVEUR).contains(statut)
            }
        }
    }

    /// Vrai pour [`ReponseApi::Succes`].
    pub fn est_succes(&self) -> bool {
        matches!(self, ReponseApi::Succes(_))
    }

    /// Statut HTTP reçu, s'il y en a un (seulement pour [`ReponseApi::Refuse`]).
    pub fn statut(&self) -> Option<u16> {
        match self {
            ReponseApi::Refuse { statut, .. } => Some(*statut),
            ReponseApi::Succes(_) | ReponseApi::Injoignable { .. } => None,
        }
    }

    /// Attente demandée par le serveur, s'il en a demandé une valide.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ReponseApi::Refuse { retry_after, .. } => *retry_after,
            ReponseApi::Succes(_) | ReponseApi::Injoignable { .. } => None,
        }
    }

    /// Description lisible de l'échec ; `None` pour un succès.
    pub fn detail(&self) -> Option<&str> {
        match self {
            ReponseApi::Succes(_) => None,
            ReponseApi::Injoignable { detail, .. } | ReponseApi::Refuse { detail, .. } => {
                Some(detail)
            }
        }
    }

    /// La valeur utile d'un succès, sinon `None`.
    pub fn succes(self) -> Option<T> {
        match self {
            ReponseApi::Succes(valeur) => Some(valeur),
            ReponseApi::Injoignable { .. } | ReponseApi::Refuse { .. } => None,
        }
    }

    /// Transforme la valeur d'un succès en gardant l'échec tel quel.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> ReponseApi<U> {
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
            0, 200, 304, 400, 401, 403, 404, 408, 409, 412, 422, 428, 430, 499, 600,
        ] {
            assert!(
                !refuse(statut).est_reessayable(),
                "{statut} ne devrait pas l'être"
            );
        }
        assert!(!ReponseApi::Succes(()).est_reessayable());
    }

    #[test]
    fn traitement_possible_selon_la_variante() {
        assert!(injoignable(true).a_pu_etre_traitee());
        assert!(!injoignable(false).a_pu_etre_traitee());
        assert!(refuse(500).a_pu_etre_traitee());
        assert!(refuse(503).a_pu_etre_traitee());
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
