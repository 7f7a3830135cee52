//! Ce que la destination S3 dit d'elle-même avant qu'un octet parte : ce qu'elle tient déjà
//! sous le préfixe du plan, et si elle accepte seulement de parler à ces identifiants.
//!
//! Pourquoi : un refus qui vaut pour toute la destination (clé secrète mal recopiée,
//! compartiment mal écrit, horloge du portable fausse) frappe chaque fichier de la même façon.
//! Le découvrir fichier par fichier, c'est envoyer toute la nuit (10 à 40 Go sur un partage de
//! connexion) pour se la faire refuser. Une lecture de la liste des objets du préfixe
//! (`ListObjectsV2`, une requête sans corps) le dit d'abord : S3 vérifie la signature et
//! l'heure de la requête avant tout, puis l'existence du compartiment. La même lecture dit ce
//! que la destination a déjà (clé, taille, ETag) : un fichier qui y est déjà, identique, ne
//! repart pas (la même nuit depuis un autre chemin, une copie de la carte, un autre plan).
//!
//! Un refus de **lister** (`AccessDenied` : des identifiants qui n'ont que le droit d'écrire,
//! courant pour un dépôt) ne dit rien du droit d'écrire : le dépôt se fait sans inventaire.
//! `AccessDenied` n'est d'ailleurs jamais pris pour un refus de toute la destination : une
//! politique du compartiment peut refuser certaines clés et pas d'autres. En plein passage,
//! c'est le premier refus d'identifiants, d'horloge ou de compartiment qui arrête les unités
//! suivantes (voir `s3.rs`).

use std::collections::HashMap;

use crate::plan::CauseRefus;
use crate::reessai::{ObservateurReessai, Profil, RaisonArret, Rejouabilite, ReponseApi};
use crate::transport::s3::{ClientS3, HORLOGE_REFUSEE};
use crate::transport::{Emetteur, Emission, emettre};

/// Au-delà de tant de pages de 1 000 objets, la lecture s'arrête : le préfixe d'un plan n'en
/// tient pas tant (une nuit, c'est 4 000 fichiers), et un préfixe vide sur un compartiment
/// partagé ne doit pas coûter des heures. Ce qui n'a pas été lu repart, comme sans inventaire.
const PAGES_MAX: usize = 1000;

/// Un objet de la destination, tel que la liste le décrit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ObjetListe {
    pub(crate) taille: u64,
    /// Sans guillemets.
    pub(crate) etag: Option<String>,
}

/// Les objets que la destination tient sous le préfixe du plan, par clé.
#[derive(Debug, Default)]
pub(crate) struct InventaireS3 {
    objets: HashMap<String, ObjetListe>,
}

impl InventaireS3 {
    pub(crate) fn objet(&self, cle: &str) -> Option<&ObjetListe> {
        self.objets.get(cle)
    }

    pub(crate) fn nombre(&self) -> usize {
        self.objets.len()
    }
}

/// Un refus qui vaut pour toute la destination : chaque requête serait refusée de même.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefusDestination {
    /// La clé d'accès est inconnue, la clé secrète fausse, le jeton de session expiré.
    Identifiants { code: String },
    /// L'heure de l'ordinateur s'écarte de plus de 15 minutes de celle du service ; `ecart`
    /// dit de combien, en clair, quand le service l'a dit (son en-tête `Date`).
    Horloge { ecart: String },
    /// Le compartiment n'existe pas chez ce service, ou pas dans cette région.
    Compartiment { code: String },
}

/// Les codes d'erreur S3 d'un refus d'identifiants.
pub(super) const IDENTIFIANTS: [&str; 6] = [
    "SignatureDoesNotMatch",
    "InvalidAccessKeyId",
    "ExpiredToken",
    "InvalidToken",
    "TokenRefreshRequired",
    "NotSignedUp",
];
/// Les codes d'erreur S3 d'un compartiment introuvable (ou d'une autre région).
const COMPARTIMENT: [&str; 4] = [
    "NoSuchBucket",
    "PermanentRedirect",
    "AuthorizationHeaderMalformed",
    "InvalidBucketName",
];
/// Le début de l'écart d'horloge dit par le transport (`transport::s3::ecart_d_horloge`).
const ECART_D_HORLOGE: &str = "l'horloge de cet ordinateur ";

/// Le code d'erreur S3 d'un refus de droits (qui peut ne valoir que pour certaines clés).
const DROITS_REFUSES: &str = "AccessDenied";

impl RefusDestination {
    /// Le refus que dit ce texte (le détail d'une réponse de S3, « CODE message », ou le message
    /// d'un échec qui le cite), s'il vaut pour toute la destination.
    pub(crate) fn reconnaitre(texte: &str) -> Option<RefusDestination> {
        let trouve = |codes: &[&str]| {
            codes
                .iter()
                .find(|c| texte.contains(*c))
                .map(|c| (*c).to_owned())
        };
        if texte.contains(HORLOGE_REFUSEE) {
            // L'écart, tel que le transport l'a dit d'après l'en-tête `Date` du service :
            // « l'horloge de cet ordinateur retarde de … sur celle du service (Request…) ».
            let ecart = texte
                .find(ECART_D_HORLOGE)
                .map(|i| &texte[i..])
                .and_then(|e| e.split(" (").next())
                .filter(|e| e.contains(" de ") && e.ends_with("du service"));
            return Some(RefusDestination::Horloge {
                ecart: ecart.map_or_else(
                    || {
                        "l'horloge de cet ordinateur s'écarte de plus de 15 min de celle du \
                         service"
                            .to_owned()
                    },
                    str::to_owned,
                ),
            });
        }
        if let Some(code) = trouve(&IDENTIFIANTS) {
            return Some(RefusDestination::Identifiants { code });
        }
        trouve(&COMPARTIMENT).map(|code| RefusDestination::Compartiment { code })
    }

    /// La cause notée pour chaque fichier du passage qu'il arrête : le bilan et le conseil
    /// « Ensuite » la disent (l'horloge, pas les identifiants). Une horloge fausse, comme des
    /// identifiants, se corrige hors de `vigie`, et `vigie retenter-echecs` reprend ces
    /// fichiers sans autre option.
    pub(crate) fn cause(&self) -> CauseRefus {
        match self {
            RefusDestination::Identifiants { .. } => CauseRefus::Authentification,
            RefusDestination::Horloge { .. } => CauseRefus::Horloge,
            RefusDestination::Compartiment { .. } => CauseRefus::Stockage,
        }
    }

    /// Ce qui est refusé, et quoi corriger, en clair (sans le geste qui suit : relancer).
    pub(crate) fn message(&self, compartiment: &str) -> String {
        match self {
            RefusDestination::Identifiants { code } if code == "SignatureDoesNotMatch" => format!(
                "le service S3 refuse la signature des requêtes ({code}) : la clé secrète ne \
                 correspond pas à l'identifiant de clé. Corrigez AWS_SECRET_ACCESS_KEY (ou le \
                 profil de --profil, AWS_PROFILE)"
            ),
            RefusDestination::Identifiants { code } if code == "InvalidAccessKeyId" => format!(
                "le service S3 ne connaît pas cet identifiant de clé ({code}) : corrigez \
                 AWS_ACCESS_KEY_ID (ou le profil de --profil, AWS_PROFILE), et vérifiez que le \
                 point d'accès (--endpoint-url) est bien celui du service qui a délivré la clé"
            ),
            RefusDestination::Identifiants { code } => format!(
                "le service S3 refuse ces identifiants ({code}) : des identifiants temporaires \
                 ont expiré ; renouvelez-les (AWS_SESSION_TOKEN, aws sso login…)"
            ),
            RefusDestination::Horloge { ecart } => format!(
                "{ecart} ; S3 refuse toute requête dont l'heure s'écarte de plus de 15 min de la \
                 sienne ({HORLOGE_REFUSEE}). Mettez l'ordinateur à l'heure (réglage automatique \
                 de la date et de l'heure, bon fuseau horaire)"
            ),
            RefusDestination::Compartiment { code } if code == "NoSuchBucket" => format!(
                "le compartiment « {compartiment} » n'existe pas chez ce service ({code}) : \
                 vérifiez son nom (--vers s3://COMPARTIMENT/…) et le point d'accès \
                 (--endpoint-url)"
            ),
            RefusDestination::Compartiment { code } if code == "InvalidBucketName" => format!(
                "le service S3 refuse le nom de compartiment « {compartiment} » ({code}) : \
                 vérifiez-le (--vers s3://COMPARTIMENT/…)"
            ),
            RefusDestination::Compartiment { code } => format!(
                "le compartiment « {compartiment} » est dans une autre région que celle des \
                 requêtes ({code}) : donnez la sienne par --region (ou AWS_REGION)"
            ),
        }
    }
}

/// Ce qu'a donné la lecture de la destination.
#[derive(Debug)]
pub(crate) enum LectureDestination {
    /// Les objets du préfixe.
    Lue(InventaireS3),
    /// Pas d'inventaire (droit de lister refusé, service muet après les réessais) : pourquoi.
    NonLue(String),
    /// Ctrl-C, ou le réseau abandonné.
    Interrompue,
}

/// Lit les objets du préfixe du plan (`ListObjectsV2`, page par page, chaque page une lecture
/// sous la politique de réessai) : ce que la destination tient déjà. Un refus qui vaut pour
/// toute la destination est rendu en erreur : rien ne doit partir.
pub(crate) async fn lire_destination(
    client: &ClientS3,
    emetteur: &Emetteur,
    prefixe_du_plan: &str,
    observateur: &dyn ObservateurReessai,
) -> Result<LectureDestination, RefusDestination> {
    // « prefixe/ » : pas les objets d'un préfixe voisin (« nuit-2 » pour « nuit »).
    let prefixe = if prefixe_du_plan.is_empty() {
        String::new()
    } else {
        format!("{prefixe_du_plan}/")
    };
    let cible = format!("s3://{}/{prefixe}", client.compartiment());
    let mut inventaire = InventaireS3::default();
    let mut suite: Option<String> = None;
    for _ in 0..PAGES_MAX {
        let issue = emettre(
            &emetteur.observe_par(observateur),
            Emission::nouveau(
                "ListObjectsV2",
                &cible,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| client.lister(&prefixe, suite.clone()),
        )
        .await;
        match issue.reponse {
            ReponseApi::Succes(page) => {
                for (cle, taille, etag) in page.objets {
                    inventaire.objets.insert(cle, ObjetListe { taille, etag });
                }
                match page.suite {
                    // La même suite que la page d'avant : le service rendrait la même page
                    // sans fin. La lecture s'arrête là ; ce qui n'a pas été lu repartira.
                    Some(s) if Some(&s) == suite.as_ref() => {
                        tracing::info!(
                            objets = inventaire.nombre(),
                            "destination lue en partie seulement (le service rend deux fois la \
                             même page) : le reste repartira"
                        );
                        return Ok(LectureDestination::Lue(inventaire));
                    }
                    Some(s) => suite = Some(s),
                    None => return Ok(LectureDestination::Lue(inventaire)),
                }
            }
            _ if issue.raison == RaisonArret::Annule => return Ok(LectureDestination::Interrompue),
            ReponseApi::Refuse { ref detail, .. }
                if issue.raison == RaisonArret::RefusDefinitif =>
            {
                return match RefusDestination::reconnaitre(detail) {
                    Some(refus) => Err(refus),
                    None if detail.contains(DROITS_REFUSES) => {
                        Ok(LectureDestination::NonLue(format!(
                            "ces identifiants n'ont pas le droit de lister le compartiment \
                             ({DROITS_REFUSES})"
                        )))
                    }
                    None => Ok(LectureDestination::NonLue(detail.clone())),
                };
            }
            autre => {
                return Ok(LectureDestination::NonLue(
                    autre.detail().unwrap_or("pas de réponse").to_owned(),
                ));
            }
        }
    }
    tracing::info!(
        objets = inventaire.nombre(),
        "destination lue en partie seulement ({PAGES_MAX} pages) : le reste repartira"
    );
    Ok(LectureDestination::Lue(inventaire))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refus_qui_valent_pour_toute_la_destination() {
        let r = |t: &str| RefusDestination::reconnaitre(t);
        assert_eq!(
            r("SignatureDoesNotMatch The request signature we calculated does not match"),
            Some(RefusDestination::Identifiants {
                code: "SignatureDoesNotMatch".into()
            })
        );
        assert_eq!(
            r("refusé (404) : NoSuchBucket The specified bucket does not exist"),
            Some(RefusDestination::Compartiment {
                code: "NoSuchBucket".into()
            })
        );
        assert_eq!(
            r(
                "l'horloge de cet ordinateur retarde de 2 h 00 min sur celle du service \
               (RequestTimeTooSkewed)"
            ),
            Some(RefusDestination::Horloge {
                ecart: "l'horloge de cet ordinateur retarde de 2 h 00 min sur celle du service"
                    .into()
            })
        );
        assert!(matches!(
            r("RequestTimeTooSkewed The difference…"),
            Some(RefusDestination::Horloge { ecart }) if ecart.contains("plus de 15 min")
        ));
        // Ce qui peut ne valoir que pour un fichier (une politique qui refuse certaines clés).
        for t in [
            "AccessDenied Access Denied",
            "InvalidArgument",
            "BadDigest",
            "EntityTooLarge",
            "NoSuchUpload",
            "",
        ] {
            assert_eq!(r(t), None, "{t}");
        }
        // Chaque message dit quoi corriger, en clair.
        let m = r("refusé (403) : l'horloge de cet ordinateur retarde de 2 h 00 min sur celle du service (RequestTimeTooSkewed)")
            .unwrap()
            .message("nuits");
        assert!(
            m.contains("retarde de 2 h 00 min") && m.contains("à l'heure"),
            "{m}"
        );
        let m = r("NoSuchBucket").unwrap().message("nuitz");
        assert!(m.contains("« nuitz » n'existe pas"), "{m}");
        let m = r("SignatureDoesNotMatch").unwrap().message("nuits");
        assert!(m.contains("AWS_SECRET_ACCESS_KEY"), "{m}");
    }
}
