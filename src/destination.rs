//! Ce que partagent les destinations d'un dépôt et les couches basses : les identifiants de
//! la plateforme (`IdObjet`, la participation visée), qu'écrit aussi le transport ; la sûreté
//! d'un chemin et d'un point d'accès ; les erreurs d'une adresse ; la part du bilan propre à
//! une destination. L'adresse de chaque destination (son identité, qui nomme le plan, et ses
//! clés) vit dans son module, inscrit dans `depot/inscription.rs`.
//!
//! Une clé d'objet ne sort jamais du préfixe demandé : pas de segment `..`, pas de chemin
//! absolu, pas de caractère de contrôle. L'inventaire ne produit déjà que des chemins relatifs
//! sûrs ; chaque destination le revérifie ici ([`chemin_sur`]) quand elle fabrique une clé.

use std::fmt;

use crate::horodatage::{ErreurInstant, InstantUtc};

/// L'API de la plateforme Vigie-Chiro par défaut : celle du compagnon officiel de la
/// plateforme (`URL_DEFAUT` de `ClientVigieChiro`, dépôt public
/// `echonuit/vigiechiro-pr-companion`).
pub(crate) const API_VIGIECHIRO: &str = "https://vigiechiro.herokuapp.com/api/v1";

/// Un identifiant de la plateforme Vigie-Chiro (participation, site, fichier) : un ObjectId
/// MongoDB, 24 chiffres hexadécimaux. Le routeur du serveur n'accepte que cette forme
/// (`xin/tools.py` `ObjectIdConverter`, `parse_id`) ; c'est aussi la seule qui entre dans une
/// URL que `vigie` fabrique : un identifiant rendu par la plateforme sous une autre forme
/// (`../../moi?x=`) est une réponse illisible, jamais un bout de chemin.
///
/// Écrit en minuscules : le serveur accepte les majuscules, mais recopie l'identifiant reçu
/// tel quel dans la clé S3 d'un fichier (`resources/fichiers.py` `fichier_create`) ; deux
/// écritures donneraient deux clés pour la même participation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct IdObjet(String);

impl IdObjet {
    /// 24 chiffres hexadécimaux (majuscules admises, rendues en minuscules), sinon `None`.
    pub(crate) fn analyser(texte: &str) -> Option<IdObjet> {
        (texte.len() == 24 && texte.bytes().all(|o| o.is_ascii_hexdigit()))
            .then(|| IdObjet(texte.to_ascii_lowercase()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// L'identifiant nul (24 zéros), qu'aucun objet de la plateforme ne porte : la place d'un
    /// identifiant qui n'existe pas encore (une participation à créer), jamais envoyé.
    pub(crate) fn nul() -> IdObjet {
        IdObjet("0".repeat(24))
    }
}

impl TryFrom<String> for IdObjet {
    type Error = String;

    fn try_from(texte: String) -> Result<Self, String> {
        IdObjet::analyser(&texte).ok_or_else(|| {
            "identifiant qui n'est pas un ObjectId (24 chiffres hexadécimaux)".to_owned()
        })
    }
}

impl fmt::Display for IdObjet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// La participation qui reçoit la nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CibleParticipation {
    /// Créée sur le site web ; l'utilisateur donne son identifiant.
    Existante(IdObjet),
    /// À créer (une seule fois, jamais rejouée à l'aveugle). Les instants sont normalisés :
    /// deux écritures du même instant désignent la même nuit, donc le même plan.
    ///
    /// Le point est facultatif, comme pour le serveur (`resources/participations.py`
    /// `create_participation`) : un site routier ou pédestre n'en a pas. Pour un site point
    /// fixe, `vigie` l'exige (voir `commandes/vigiechiro.rs`).
    ACreer {
        site: IdObjet,
        point: Option<String>,
        debut: InstantUtc,
        fin: InstantUtc,
    },
}

impl CibleParticipation {
    /// `--participation ID`, vérifié avant tout envoi.
    pub(crate) fn existante(id: &str) -> Result<Self, ErreurDestination> {
        identifiant("participation", id).map(CibleParticipation::Existante)
    }

    /// `--site ID [--point P] --debut D --fin F`, tels qu'écrits sur la ligne de commande : les
    /// instants exigent un fuseau, et la fin suit le début.
    pub(crate) fn a_creer(
        site: &str,
        point: Option<&str>,
        debut: &str,
        fin: &str,
    ) -> Result<Self, ErreurDestination> {
        let instant = |option: &'static str, texte: &str| {
            InstantUtc::depuis_iso(texte)
                .map_err(|erreur| ErreurDestination::Instant { option, erreur })
        };
        let (debut, fin) = (instant("--debut", debut)?, instant("--fin", fin)?);
        if fin <= debut {
            return Err(ErreurDestination::FinAvantDebut {
                debut: debut.iso(),
                fin: fin.iso(),
            });
        }
        Ok(CibleParticipation::ACreer {
            site: identifiant("site", site)?,
            point: point.map(point_valide).transpose()?,
            debut,
            fin,
        })
    }
}

/// Un identifiant donné par l'utilisateur, ou une erreur qui dit où le trouver.
pub(crate) fn identifiant(quoi: &'static str, texte: &str) -> Result<IdObjet, ErreurDestination> {
    IdObjet::analyser(texte.trim()).ok_or_else(|| ErreurDestination::Identifiant {
        quoi,
        valeur: texte
            .chars()
            .take(40)
            .collect::<String>()
            .escape_debug()
            .to_string(),
    })
}

/// Un point d'écoute (`A1`, `Z12`…) : il entre dans l'identité du plan, d'où des caractères
/// sûrs.
pub(crate) fn point_valide(point: &str) -> Result<String, ErreurDestination> {
    let ok = !point.is_empty()
        && point.len() <= 50
        && point
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        Ok(point.to_owned())
    } else {
        Err(ErreurDestination::Point(
            point
                .chars()
                .take(50)
                .collect::<String>()
                .escape_debug()
                .to_string(),
        ))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ErreurDestination {
    #[error("destination « {0} » : attendu s3://compartiment/prefixe")]
    Forme(String),
    /// Une adresse `--vers` qu'aucune destination inscrite ne lit ; `formes` : celles
    /// qu'elles lisent.
    #[error("destination « {adresse} » : attendu {formes}")]
    Adresse { adresse: String, formes: String },
    /// Une identité relue du plan qui n'a pas la forme de sa sorte, ou une sorte qu'aucune
    /// destination inscrite ne porte (une base écrite par une version plus récente).
    #[error(
        "le plan vise « {identite} » ({sorte}), que cette version de vigie ne sait pas relire : \
         mettez vigie à jour"
    )]
    Illisible { sorte: String, identite: String },
    #[error(
        "nom de compartiment « {0} » invalide : 3 à 63 caractères, minuscules, chiffres, « . » et « - »"
    )]
    Compartiment(String),
    #[error(
        "préfixe « {0} » invalide : ni segment « .. » ou « . », ni « // », ni caractère de contrôle"
    )]
    Prefixe(String),
    #[error("point d'accès « {0} » invalide : attendu http(s)://hôte[:port]")]
    Endpoint(String),
    #[error(
        "le point d'accès {0} est en http:// hors de la boucle locale : les données et les \
         signatures y circuleraient en clair. Utilisez https://, ou --autoriser-http si c'est voulu."
    )]
    HttpNonLocal(String),
    #[error("clé « {0} » refusée : elle sortirait du préfixe demandé")]
    Cle(String),
    #[error(
        "« {valeur} » n'est pas un identifiant de {quoi} Vigie-Chiro : 24 chiffres \
         hexadécimaux (0-9, a-f), comme 64a1b2c3d4e5f60718293d01. Il se lit à la fin de \
         l'adresse de la page de la {quoi} sur le site web (…/{quoi}s/<identifiant>)."
    )]
    Identifiant { quoi: &'static str, valeur: String },
    #[error(
        "point « {0} » invalide : lettres sans accent, chiffres, « - », « _ » ou « . » (ex. A1, Z12)"
    )]
    Point(String),
    /// L'erreur de l'instant est dite dans ce message, pas en cause : un champ `source` la
    /// ferait répéter par la chaîne des causes (« … fuseau… : … fuseau… »).
    #[error("{option} {erreur}")]
    Instant {
        option: &'static str,
        erreur: ErreurInstant,
    },
    #[error("--fin ({fin}) doit suivre --debut ({debut})")]
    FinAvantDebut { debut: String, fin: String },
}

/// Ce qui est propre à une destination dans le bilan d'un passage et dans ce qu'il annonce :
/// fourni par elle (son dépositaire), porté par le moteur générique sans qu'il le lise, lu par
/// l'affichage (`suivi`). Le moteur ne compte que des issues génériques (déposée, déjà
/// présente, en échec…) ; la destination dit où étaient les fichiers qu'elle tenait déjà, et,
/// si elle en a une, la participation qui a reçu la nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartieDuBilan {
    /// Où étaient les fichiers que la destination tenait déjà, pour l'utilisateur (« à la
    /// destination », « sur la plateforme »).
    pub(crate) lieu: &'static str,
    /// La participation qui a reçu la nuit (celle que `vigie traiter` lancera), pour une
    /// destination qui en a.
    pub(crate) participation: Option<IdObjet>,
}

impl Default for PartieDuBilan {
    /// Rien de plus que le bilan générique (aussi le bilan d'une commande dont aucun passage
    /// n'a eu lieu).
    fn default() -> Self {
        PartieDuBilan {
            lieu: "à la destination",
            participation: None,
        }
    }
}

impl PartieDuBilan {
    /// Où étaient les fichiers que la destination tenait déjà, pour l'utilisateur.
    pub(crate) fn lieu(&self) -> &'static str {
        self.lieu
    }

    /// La participation qui a reçu la nuit (vers la plateforme).
    pub(crate) fn participation(&self) -> Option<&IdObjet> {
        self.participation.as_ref()
    }
}

/// Un chemin relatif qui ne peut pas sortir du préfixe.
pub(crate) fn chemin_sur(chemin: &str) -> bool {
    // Un chemin ASCII (le cas de tous les noms que la plateforme accepte) s'examine octet par
    // octet : chaque fichier d'une saison passe ici à chaque relance.
    let controle = if chemin.is_ascii() {
        chemin.bytes().any(|o| o.is_ascii_control())
    } else {
        chemin.chars().any(char::is_control)
    };
    !chemin.is_empty()
        && chemin.len() <= 1024
        && !chemin.starts_with('/')
        && !controle
        && chemin
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

pub(crate) fn valider_endpoint(e: &str, autoriser_http: bool) -> Result<String, ErreurDestination> {
    let e = e.trim_end_matches('/');
    let (schema, reste) = e
        .split_once("://")
        .ok_or_else(|| ErreurDestination::Endpoint(e.to_owned()))?;
    let hote_port = reste.split('/').next().unwrap_or_default();
    if hote_port.is_empty() || reste.contains(['?', '#', '@']) || e.chars().any(char::is_control) {
        return Err(ErreurDestination::Endpoint(e.to_owned()));
    }
    match schema {
        "https" => Ok(e.to_owned()),
        "http" if autoriser_http || est_boucle_locale(hote_port) => Ok(e.to_owned()),
        "http" => Err(ErreurDestination::HttpNonLocal(e.to_owned())),
        _ => Err(ErreurDestination::Endpoint(e.to_owned())),
    }
}

/// L'hôte (avec port éventuel) est-il sur la boucle locale ?
pub(crate) fn est_boucle_locale(hote_port: &str) -> bool {
    let hote = if let Some(v6) = hote_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        hote_port.rsplit_once(':').map_or(hote_port, |(h, _)| h)
    };
    hote == "localhost"
        || hote
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// L'examen octet par octet d'un chemin ASCII refuse les mêmes caractères de contrôle que
    /// `char::is_control` ; hors ASCII, les contrôles C1 (U+0080 à U+009F) restent refusés.
    #[test]
    fn caracteres_de_controle_refuses_comme_is_control() {
        for c in (0u8..=0x7f)
            .map(char::from)
            .chain(['\u{80}', '\u{85}', '\u{9f}', 'é', '\u{a0}'])
        {
            let chemin = format!("PA1/a{c}b.wav");
            assert_eq!(chemin_sur(&chemin), !c.is_control(), "{c:?}");
        }
    }

    const P: &str = "64a1b2c3d4e5f60718293d01";
    const S: &str = "64a1b2c3d4e5f60718293c01";

    #[test]
    fn identifiants_de_la_forme_d_un_object_id() {
        assert_eq!(
            CibleParticipation::existante(&P.to_ascii_uppercase()).unwrap(),
            CibleParticipation::existante(P).unwrap(),
            "majuscules rendues en minuscules"
        );
        for mauvais in [
            "junk",
            "a/b",
            "",
            "64a1b2c3d4e5f60718293d0",
            "64a1b2c3d4e5f60718293d0g",
        ] {
            let e = CibleParticipation::existante(mauvais).unwrap_err();
            assert!(e.to_string().contains("24 chiffres hexadécimaux"), "{e}");
        }
        assert!(IdObjet::analyser("../../moi?x=").is_none());
        assert!(serde_json::from_str::<IdObjet>("\"../../moi?x=\"").is_err());
        assert!(
            CibleParticipation::a_creer(
                "../sites",
                Some("A1"),
                "2026-06-21T21:30:00Z",
                "2026-06-22T06:00:00Z"
            )
            .is_err()
        );
        assert!(
            CibleParticipation::a_creer(
                S,
                Some("A1/../.."),
                "2026-06-21T21:30:00Z",
                "2026-06-22T06:00:00Z"
            )
            .is_err()
        );
    }
}
