//! Les adresses des destinations d'un dépôt (un compartiment S3, la plateforme Vigie-Chiro),
//! leur identité (qui nomme le plan) et leurs clés d'objet. Ce qu'une destination fait de son
//! adresse (déposer, relire, conseiller) vit dans son module, inscrit dans
//! `depot/inscription.rs` ; ce module n'en garde que ce qu'il faut aux couches basses (le
//! transport S3 lit son compartiment, la plateforme sa participation).
//!
//! Une clé d'objet ne sort jamais du préfixe demandé : pas de segment `..`, pas de chemin
//! absolu, pas de caractère de contrôle. L'inventaire ne produit déjà que des chemins relatifs
//! sûrs ; la vérification est refaite ici, au seul endroit où une clé se fabrique.

use std::fmt;

use crate::horodatage::{ErreurInstant, InstantUtc};

/// L'API de la plateforme Vigie-Chiro par défaut : celle du compagnon officiel de la
/// plateforme (`URL_DEFAUT` de `ClientVigieChiro`, dépôt public
/// `echonuit/vigiechiro-pr-companion`).
pub(crate) const API_VIGIECHIRO: &str = "https://vigiechiro.herokuapp.com/api/v1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DestinationVigieChiro {
    /// Base de l'API, sans « / » final.
    pub(crate) api: String,
    pub(crate) participation: CibleParticipation,
    /// Ce que `vigie` sait du matériel et de la météo, à poser sur la participation (à sa
    /// création, ou en complétant celle qui existe). Hors de l'identité : il ne nomme pas le
    /// plan, et un plan repris sans lui n'écrit rien de plus.
    pub(crate) description: Box<crate::description::Description>,
}

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
fn identifiant(quoi: &'static str, texte: &str) -> Result<IdObjet, ErreurDestination> {
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
fn point_valide(point: &str) -> Result<String, ErreurDestination> {
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

impl DestinationVigieChiro {
    pub(crate) fn nouveau(
        api: &str,
        participation: CibleParticipation,
        autoriser_http: bool,
    ) -> Result<Self, ErreurDestination> {
        let api = valider_endpoint(api, autoriser_http)?;
        Ok(DestinationVigieChiro {
            api,
            participation,
            description: Box::default(),
        })
    }

    /// Désigne-t-elle la même participation que `autre`, d'après ce que sait la base ?
    /// `participation_autre` : la participation connue du plan de `autre`.
    pub(crate) fn meme_participation(
        &self,
        autre: &DestinationVigieChiro,
        participation_autre: Option<&IdObjet>,
    ) -> bool {
        if self.api != autre.api {
            return false;
        }
        match &self.participation {
            CibleParticipation::Existante(id) => {
                participation_autre == Some(id)
                    || autre.participation == CibleParticipation::Existante(id.clone())
            }
            a_creer @ CibleParticipation::ACreer { .. } => *a_creer == autre.participation,
        }
    }

    /// La même, qui décrira sa participation.
    pub(crate) fn avec_description(self, description: crate::description::Description) -> Self {
        DestinationVigieChiro {
            description: Box::new(description),
            ..self
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DestinationS3 {
    pub(crate) compartiment: String,
    /// Préfixe des clés, sans « / » final (vide : à la racine du compartiment).
    pub(crate) prefixe: String,
    /// Point d'accès d'un service non AWS (style chemin), s'il y en a un.
    pub(crate) endpoint: Option<String>,
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

impl DestinationS3 {
    /// Analyse `s3://compartiment/prefixe`.
    pub(crate) fn analyser(
        texte: &str,
        endpoint: Option<&str>,
        autoriser_http: bool,
    ) -> Result<Self, ErreurDestination> {
        let reste = texte
            .strip_prefix("s3://")
            .ok_or_else(|| ErreurDestination::Forme(texte.to_owned()))?;
        let (compartiment, prefixe) = reste.split_once('/').unwrap_or((reste, ""));
        if !compartiment_valide(compartiment) {
            return Err(ErreurDestination::Compartiment(compartiment.to_owned()));
        }
        let prefixe = prefixe.trim_end_matches('/');
        if !prefixe.is_empty() && !chemin_sur(prefixe) {
            return Err(ErreurDestination::Prefixe(prefixe.to_owned()));
        }
        let endpoint = endpoint
            .map(|e| valider_endpoint(e, autoriser_http))
            .transpose()?;
        Ok(DestinationS3 {
            compartiment: compartiment.to_owned(),
            prefixe: prefixe.to_owned(),
            endpoint,
        })
    }

    /// La clé d'un chemin relatif : préfixe + « / » + chemin.
    pub(crate) fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        if !chemin_sur(chemin) {
            return Err(ErreurDestination::Cle(chemin.to_owned()));
        }
        Ok(if self.prefixe.is_empty() {
            chemin.to_owned()
        } else {
            format!("{}/{chemin}", self.prefixe)
        })
    }
}

impl DestinationS3 {
    /// L'identité canonique (`s3://compartiment/prefixe[?endpoint=…]`), qui nomme le plan
    /// avec le dossier. Elle ne contient jamais de secret.
    pub(crate) fn identite(&self) -> String {
        let mut identite = format!("s3://{}", self.compartiment);
        if !self.prefixe.is_empty() {
            identite.push('/');
            identite.push_str(&self.prefixe);
        }
        if let Some(e) = &self.endpoint {
            identite.push_str("?endpoint=");
            identite.push_str(e);
        }
        identite
    }

    /// Relit une identité écrite par [`DestinationS3::identite`].
    pub(crate) fn relire(identite: &str) -> Result<Self, ErreurDestination> {
        let (s3, endpoint) = match identite.split_once("?endpoint=") {
            Some((s3, e)) => (s3, Some(e)),
            None => (identite, None),
        };
        // L'identité a été validée à sa création, http:// local ou explicitement autorisé.
        DestinationS3::analyser(s3, endpoint, true)
    }
}

impl DestinationVigieChiro {
    /// L'identité canonique (`vigiechiro:participation/ID` ou `vigiechiro:site/…/debut/…/fin/…`,
    /// `?api=` hors de l'API par défaut), qui nomme le plan avec le dossier. Elle ne contient
    /// jamais de secret.
    pub(crate) fn identite(&self) -> String {
        let mut identite = match &self.participation {
            CibleParticipation::Existante(id) => format!("vigiechiro:participation/{id}"),
            CibleParticipation::ACreer {
                site,
                point,
                debut,
                fin,
            } => {
                let point = point
                    .as_ref()
                    .map_or_else(String::new, |p| format!("point/{p}/"));
                format!(
                    "vigiechiro:site/{site}/{point}debut/{}/fin/{}",
                    debut.iso(),
                    fin.iso()
                )
            }
        };
        if self.api != API_VIGIECHIRO {
            identite.push_str("?api=");
            identite.push_str(&self.api);
        }
        identite
    }

    /// Relit une identité écrite par [`DestinationVigieChiro::identite`], y compris par une
    /// version antérieure de `vigie` : un instant sans fuseau y est lu en UTC. L'identité ainsi
    /// relue peut s'écrire autrement (instants normalisés) : un plan se retrouve par
    /// l'identité stockée, jamais par celle-ci.
    pub(crate) fn relire(identite: &str) -> Result<Self, ErreurDestination> {
        let forme = || ErreurDestination::Forme(identite.to_owned());
        let reste = identite.strip_prefix("vigiechiro:").ok_or_else(forme)?;
        let (cible, api) = match reste.split_once("?api=") {
            Some((c, a)) => (c, a),
            None => (reste, API_VIGIECHIRO),
        };
        let instant = |t: &str| InstantUtc::lire(t).ok_or_else(forme);
        let morceaux: Vec<&str> = cible.split('/').collect();
        let participation = match morceaux.as_slice() {
            ["participation", id] => CibleParticipation::existante(id)?,
            ["site", site, "point", point, "debut", debut, "fin", fin] => {
                CibleParticipation::ACreer {
                    site: identifiant("site", site)?,
                    point: Some(point_valide(point)?),
                    debut: instant(debut)?,
                    fin: instant(fin)?,
                }
            }
            // Sans point (site routier ou pédestre).
            ["site", site, "debut", debut, "fin", fin] => CibleParticipation::ACreer {
                site: identifiant("site", site)?,
                point: None,
                debut: instant(debut)?,
                fin: instant(fin)?,
            },
            _ => return Err(forme()),
        };
        DestinationVigieChiro::nouveau(api, participation, true)
    }

    /// La participation existante qu'elle désigne, par son identifiant.
    pub(crate) fn participation_donnee(&self) -> Option<&IdObjet> {
        match &self.participation {
            CibleParticipation::Existante(id) => Some(id),
            CibleParticipation::ACreer { .. } => None,
        }
    }

    /// La clé d'une unité : le titre (nom du fichier), la plateforme fabriquant elle-même la
    /// clé S3 (`wav/pa-<participation>/<titre>`).
    pub(crate) fn cle(chemin: &str) -> Result<String, ErreurDestination> {
        if !chemin_sur(chemin) {
            return Err(ErreurDestination::Cle(chemin.to_owned()));
        }
        Ok(chemin.rsplit('/').next().unwrap_or(chemin).to_owned())
    }
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

fn compartiment_valide(nom: &str) -> bool {
    (3..=63).contains(&nom.len())
        && nom
            .bytes()
            .all(|o| o.is_ascii_lowercase() || o.is_ascii_digit() || o == b'.' || o == b'-')
        && nom.as_bytes()[0].is_ascii_alphanumeric()
        && nom.as_bytes()[nom.len() - 1].is_ascii_alphanumeric()
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

    #[test]
    fn analyse_et_identite() {
        let d = DestinationS3::analyser("s3://nuits/2026/site-12/", None, false).unwrap();
        assert_eq!(d.prefixe, "2026/site-12");
        assert_eq!(d.cle("a/b.wav").unwrap(), "2026/site-12/a/b.wav");
        let d =
            DestinationS3::analyser("s3://nuits", Some("http://127.0.0.1:9000/"), false).unwrap();
        assert_eq!(d.identite(), "s3://nuits?endpoint=http://127.0.0.1:9000");
        assert_eq!(DestinationS3::relire(&d.identite()).unwrap(), d);
        assert_eq!(d.cle("b.wav").unwrap(), "b.wav");
    }

    #[test]
    fn refus() {
        for t in [
            "nuits", "s3://", "s3://A", "s3://ab", "s3://-ab", "s3://a_b",
        ] {
            assert!(DestinationS3::analyser(t, None, false).is_err(), "{t}");
        }
        for t in [
            "s3://nuits/../x",
            "s3://nuits/a//b",
            "s3://nuits/./a",
            "s3://nuits/a\nb",
        ] {
            assert!(
                matches!(
                    DestinationS3::analyser(t, None, false),
                    Err(ErreurDestination::Prefixe(_))
                ),
                "{t}"
            );
        }
        let d = DestinationS3::analyser("s3://nuits/p", None, false).unwrap();
        for c in ["../x.wav", "/etc/passwd", "a/../../b", "a\u{7}.wav", ""] {
            assert!(d.cle(c).is_err(), "{c:?}");
        }
    }

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
    fn identites_vigiechiro() {
        for d in [
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::existante(P).unwrap(),
                false,
            )
            .unwrap(),
            DestinationVigieChiro::nouveau(
                "http://127.0.0.1:8080/api/v1",
                CibleParticipation::a_creer(
                    S,
                    Some("A1"),
                    "2026-06-21T21:30:00Z",
                    "2026-06-22T06:00:00Z",
                )
                .unwrap(),
                false,
            )
            .unwrap(),
            // Un site routier : sans point.
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::a_creer(
                    S,
                    None,
                    "2026-06-21T21:30:00Z",
                    "2026-06-22T06:00:00Z",
                )
                .unwrap(),
                false,
            )
            .unwrap(),
        ] {
            assert_eq!(
                DestinationVigieChiro::relire(&d.identite()).unwrap(),
                d,
                "{}",
                d.identite()
            );
        }
        assert!(
            DestinationVigieChiro::nouveau(
                "http://vigie.exemple.fr/api",
                CibleParticipation::existante(P).unwrap(),
                false
            )
            .is_err()
        );
        assert_eq!(DestinationVigieChiro::cle("sous/a.wav").unwrap(), "a.wav");
        assert!(DestinationVigieChiro::cle("../a.wav").is_err());
    }

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

    #[test]
    fn instants_normalises_dans_l_identite() {
        let d = |debut: &str, fin: &str| {
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::a_creer(S, Some("A1"), debut, fin).unwrap(),
                false,
            )
            .unwrap()
            .identite()
        };
        assert_eq!(
            d("2026-04-22T21:00:00Z", "2026-04-23T06:00:00Z"),
            d("2026-04-22T23:00:00+02:00", "2026-04-23T08:00+02:00")
        );
        let e = CibleParticipation::a_creer(
            S,
            Some("A1"),
            "2026-04-22T21:00:00",
            "2026-04-23T06:00:00Z",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("--debut "), "{e}");
        let e = CibleParticipation::a_creer(
            S,
            Some("A1"),
            "2026-04-23T06:00:00Z",
            "2026-04-22T21:00:00Z",
        )
        .unwrap_err();
        assert!(matches!(e, ErreurDestination::FinAvantDebut { .. }), "{e}");
        // Une identité écrite par une version antérieure (instant sans fuseau : UTC) se relit.
        let ancienne = format!(
            "vigiechiro:site/{S}/point/A1/debut/2026-04-22T21:00:00/fin/2026-04-23T06:00:00"
        );
        let relue = DestinationVigieChiro::relire(&ancienne).unwrap();
        assert_eq!(
            relue.identite(),
            d("2026-04-22T21:00:00Z", "2026-04-23T06:00:00Z")
        );
    }

    #[test]
    fn http_hors_boucle_locale() {
        assert!(matches!(
            DestinationS3::analyser("s3://nuits", Some("http://s3.exemple.fr"), false),
            Err(ErreurDestination::HttpNonLocal(_))
        ));
        assert!(DestinationS3::analyser("s3://nuits", Some("http://s3.exemple.fr"), true).is_ok());
        for local in [
            "http://localhost:9000",
            "http://127.0.0.1:1",
            "http://[::1]:80",
        ] {
            assert!(
                DestinationS3::analyser("s3://nuits", Some(local), false).is_ok(),
                "{local}"
            );
        }
        assert!(DestinationS3::analyser("s3://nuits", Some("ftp://x"), false).is_err());
    }
}
