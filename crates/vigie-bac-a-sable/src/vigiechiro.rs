//! La plateforme Vigie-Chiro locale : l'API JSON (`/api/v1/…`) servie par le même serveur et
//! sur le même port que le S3 du bac à sable, qui la porte.
//!
//! Pourquoi : la vraie plateforme (`Scille/vigiechiro-api`, Python/Flask) n'est pas joignable
//! depuis nos machines, et ses pièges font l'essentiel de la difficulté du dépôt : dates en RFC
//! 1123 seulement, création de participation non idempotente, enregistrement non finalisé
//! rendu tel quel à toute redéclaration, envoi multipart S3 orphelin quand on redéclare un
//! fichier en multipart, `409 upload is already done` quand on rejoue une finalisation réussie,
//! `Content-Type` signé dans l'URL d'un PUT simple et interdit sur un PUT de partie. Les tests de
//! `vigie` doivent les rencontrer ici tels quels. **Le code du serveur fait foi** : chaque
//! comportement ci-dessous cite le fichier et la fonction qu'il imite (chemins relatifs au
//! paquet `vigiechiro/` du dépôt `Scille/vigiechiro-api`) ; en cas d'écart, c'est le bac à
//! sable qui a tort. Les rares écarts voulus sont dits comme tels. La couche de pannes et les
//! compteurs du bac à sable s'appliquent à l'API comme à S3 (voir `service.rs`).
//!
//! Les règles du serveur que `vigie` applique aussi de son côté (titres admis et leur type MIME
//! ci-dessous, sommes MD5 et CRC32C dans `plateforme.rs`) sont **recopiées ici du serveur**, pas
//! empruntées au client : ce crate ne dépend pas de `vigie`, et le bac à sable doit pouvoir le
//! contredire. Partagées, une erreur dans la règle du client passerait tous les tests sans bruit.
//!
//! Forme commune (`app.py` `make_json_error`) : toute erreur est du JSON
//! `{"_status": "<code> <raison>: <description>", "_errors": <description>}`, la description
//! étant un texte ou un objet `{champ: message}` (écrit à la Python dans `_status`) ; une
//! exception qui n'est pas une erreur HTTP (un refus de S3 après coup) donne 500
//! `{"_status": "<message>"}` sans `_errors`. Les dates sont lues en RFC 1123
//! (`settings.py` `DATE_FORMAT`, `xin/tools.py` `str_to_date`) et rendues par `isoformat()`
//! sans fuseau (`xin/tools.py` `MongoJsonEncoder`). Les documents portent `_id`, `_created`,
//! `_updated` et `_etag` (`xin/resource.py` `insert`). Toutes les routes exigent
//! `Authorization: Basic base64("<jeton>:")` (401 sinon, jeton expiré compris). Route par route
//! (base : `http://127.0.0.1:PORT/api/v1`) :
//! - `GET /moi` → l'utilisateur, courriel compris ;
//! - `POST /sites/{site}/participations` → 201 avec la participation. Chaque POST en crée
//!   une. 422 : champ inconnu, site inconnu, observateur non inscrit ou non validé, date absente
//!   ou pas en RFC 1123. **Ni le verrou du site, ni son propriétaire, ni le point** ne sont
//!   vérifiés : le validateur `_validate_site` n'est jamais appelé (`xin/schema.py`
//!   `_run_attribute_data_relation` remplace la relation par le document avant de chercher son
//!   validateur) ;
//! - `GET /sites/{site}/participations[?page=P&max_results=M]` → `{"_items", "_meta"}`, paginé
//!   comme l'original (20 par page par défaut, 100 au plus, `max_results=0` = tout) ;
//! - `GET /participations/{id}` → la participation (404 inconnue) ;
//! - `PATCH /participations/{id}` → la participation modifiée : `configuration` et `meteo`
//!   remplacées en entier, `If-Match` non lu (`edit_participation`) ;
//! - `POST /fichiers` → 201 avec l'enregistrement entier ; voir [`Vigiechiro`] ;
//! - `PUT /fichiers/{id}/multipart` `{part_number}` → 200 `{"s3_signed_url"}` ;
//! - `POST /fichiers/{id}` → 200 avec le fichier (`"disponible": true`) ; déjà finalisé → 409 ;
//! - `DELETE /fichiers/{id}` → 204 (l'envoi multipart S3 est abandonné) ; finalisé → 422 ;
//! - `POST /participations/{id}/compute` → 200 `{}` ; relancé dans les 24 h → 400
//!   `{"_errors": {"etat": "Already PLANIFIE"}}` ; le calcul lui-même est simulé comme le
//!   serveur le mène (`PLANIFIE` → `EN_COURS` → `FINI`, `RETRY` ou `ERREUR`, le bilan, le
//!   journal et le CSV des observations) : voir `traitement.rs`, qui sert aussi
//!   `POST /participations/{id}/csv` et `GET /taxons/liste` ;
//! - `GET /fichiers/{id}` → 200 avec le fichier ;
//! - `GET /participations/{id}/pieces_jointes` → la liste paginée des fichiers de la
//!   participation, filtrable par famille, et `GET /fichiers/{id}/acces` → l'URL de lecture
//!   d'un fichier finalisé (410 sinon) : voir `lecture.rs`.
//!
//! Les URL signées sont des URL S3 v2 en style chemin sur ce même serveur (voir
//! `signature.rs`), valables 10 h ; s3s les vérifie, et le PUT passe par la même couche de
//! pannes et les mêmes compteurs (`PutObject`, `UploadPart`) qu'une requête SigV4. La
//! signature v2 couvre `Content-Type`, `Content-MD5` et tout en-tête `x-amz-*` : le PUT simple
//! porte exactement le `mime` rendu, un PUT de partie aucun `Content-Type`, et ni l'un ni
//! l'autre de `Content-MD5` ou de `x-amz-checksum-*` (sinon 403 `SignatureDoesNotMatch`,
//! comme chez AWS) ; expirée : 403 `AccessDenied`.
//!
//! Les appels S3 que la plateforme fait elle-même (ouverture, finalisation, abandon d'un
//! envoi multipart) vont droit au stockage : ils ne passent ni par les pannes ni par les
//! compteurs, qui ne voient que le client (sous les opérations `Api…`). Le refus de S3
//! d'ouvrir un envoi multipart se simule par [`Vigiechiro::refuser_multipart`].
//!
//! L'état de l'API (jetons, participations, fichiers) vit en mémoire : un redémarrage du bac à
//! sable le perd, les objets S3 restent sur le disque.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Response, StatusCode};
use regex::Regex;
use s3s::S3;
use s3s::auth::Credentials;
use s3s::dto::{
    AbortMultipartUploadInput, CompleteMultipartUploadInput, CompletedMultipartUpload,
    CompletedPart, CreateMultipartUploadInput, ETag,
};
use s3s::{S3Error, S3Request};
use serde_json::{Map, Value, json};

use super::plateforme::Plateforme;
use super::signature::{self, Envoi};
use super::{CLE_ACCES, Operation, RetryAfter, SECRET};

mod fichiers;
mod lecture;
mod saison;
mod traitement;

use fichiers::Fichiers;

pub use saison::{NouveauSite, ParticipationPosee};
pub use traitement::{CalculPlateforme, ReglagesCalcul, nom_csv, taxons};

/// Jeton valide d'un observateur validé (32 caractères `[A-Z0-9]`, comme les vrais), valable
/// 14 jours à partir du démarrage.
pub const JETON: &str = "BACASABLEJETONVIGIE0123456789ABC";
/// Jeton valide d'un observateur **non validé** pour le protocole : il peut tout lire, mais la
/// création d'une participation lui est refusée (422).
pub const JETON_NON_VALIDE: &str = "BACASABLEJETONNONVALIDE012345678";
/// Identifiant de l'observateur validé (celui de [`JETON`]).
pub const OBSERVATEUR: &str = "64a1b2c3d4e5f60718293a01";
/// Le site de test, verrouillé, de l'observateur validé ; ses points sont [`POINTS_SITE`].
pub const SITE: &str = "64a1b2c3d4e5f60718293c01";
/// Points du [`SITE`].
pub const POINTS_SITE: [&str; 3] = ["A1", "B2", "Z3"];
/// Un site de l'observateur validé, **non verrouillé**. La vraie plateforme y accepte pourtant
/// une participation : le validateur qui exigerait le verrou n'est jamais appelé (voir l'en-tête).
pub(crate) const SITE_NON_VERROUILLE: &str = "64a1b2c3d4e5f60718293c02";
/// Participation d'essai préexistante sur [`SITE`] (point `A1`, nuit du 21 au 22 juin 2026 :
/// 20 h à 4 h UTC, soit la soirée du 21 juin à toute heure de France ou d'UTC), pour
/// `vigie depot --participation`. Les noms des essais (`Car640139-2026-Pass1-A1-…_20260621_22…`)
/// sont de cette nuit : `vigie` compare la soirée, le point et le numéro de site des noms à
/// ceux de la participation.
pub const PARTICIPATION: &str = "64a1b2c3d4e5f60718293d01";
/// Un site **routier** verrouillé de l'observateur validé (protocole de `type_site` `ROUTIER`,
/// `resources/protocoles.py`) : ni localité ni point, et la plateforme n'exige pas de point pour
/// y créer une participation (`resources/participations.py` `create_participation` : `point`
/// facultatif).
pub const SITE_ROUTIER: &str = "64a1b2c3d4e5f60718293c03";
/// Jeton d'un **autre** observateur (validé), propriétaire de `SITE_AUTRE` et de
/// [`PARTICIPATION_AUTRE`].
pub const JETON_AUTRE: &str = "BACASABLEJETONAUTREOBSERVATEUR01";
/// Identifiant de l'autre observateur (celui de [`JETON_AUTRE`]).
pub const OBSERVATEUR_AUTRE: &str = "64a1b2c3d4e5f60718293a03";
/// Son pseudo, tel que `GET /participations/{id}` le montre à tout observateur.
pub const PSEUDO_AUTRE: &str = "Noctule des Étangs";
/// Le site point fixe de l'autre observateur.
pub(crate) const SITE_AUTRE: &str = "64a1b2c3d4e5f60718293c04";
/// Une participation de l'autre observateur (point `B1`, même nuit que [`PARTICIPATION`]) :
/// la plateforme laisse pourtant quiconque y déclarer des fichiers (voir
/// `Vigiechiro::declarer_fichier`).
pub const PARTICIPATION_AUTRE: &str = "64a1b2c3d4e5f60718293d02";
/// Un site **pédestre** (`type_site` `CARRE`) de l'observateur validé, sur le même carré que
/// [`SITE`] (`Vigiechiro - Pédestre-640139` et `Vigiechiro - Point Fixe-640139`) : le numéro
/// ne suffit pas à choisir, la famille des noms (`Car…` ou `Cir…`) départage.
pub(crate) const SITE_PEDESTRE: &str = "64a1b2c3d4e5f60718293c05";
/// Un site **régional** de l'autre observateur (`Vigiechiro - Point Fixe-750101`), où
/// l'observateur validé a une participation (`PARTICIPATION_REGIONALE`) : il ne le voit pas
/// dans `GET /moi/sites`, mais dans `GET /moi/participations`.
pub const SITE_REGIONAL: &str = "64a1b2c3d4e5f60718293c06";
/// La participation de l'observateur validé sur [`SITE_REGIONAL`] (point `A1`).
pub(crate) const PARTICIPATION_REGIONALE: &str = "64a1b2c3d4e5f60718293d03";
/// Compartiment S3 de la plateforme, créé au démarrage.
pub const COMPARTIMENT_PLATEFORME: &str = "vigiechiro-donnees";

const OBSERVATEUR_NON_VALIDE: &str = "64a1b2c3d4e5f60718293a02";
/// Le protocole point fixe (`type_site` `POINT_FIXE`).
const PROTOCOLE: &str = "64a1b2c3d4e5f60718293b01";
/// Le protocole routier (`type_site` `ROUTIER`).
const PROTOCOLE_ROUTIER: &str = "64a1b2c3d4e5f60718293b02";
/// Le protocole pédestre (`type_site` `CARRE`).
const PROTOCOLE_PEDESTRE: &str = "64a1b2c3d4e5f60718293b03";
/// Durée de vie d'un jeton (la vraie plateforme : 14 jours).
const DUREE_JETON: Duration = Duration::from_secs(14 * 24 * 3600);
/// Durée de validité d'une URL signée (la vraie plateforme : 10 h).
pub(crate) const VALIDITE_URL: Duration = Duration::from_secs(10 * 3600);
/// Taille maximale du corps JSON d'une requête d'API.
pub(crate) const CORPS_API_MAX: usize = 1 << 20;

/// Types MIME reconnus hors archives, dans l'ordre de l'original : le type retenu est le
/// premier dont le nom **finit par** l'extension (`.wav` → `audio/wav`, `.ta` →
/// `application/ta`, `.tac` → `application/tac`, `.tc` → `application/tc`, `.tcc` →
/// `application/tcc`, `.png` → `image/png`…). Une extension en majuscules ne finit aucun nom :
/// `.WAV` est refusé.
const MIMES: [&str; 10] = [
    "image/bmp",
    "image/png",
    "image/jpg",
    "image/jpeg",
    "application/ta",
    "application/tac",
    "application/tc",
    "application/tcc",
    "audio/wav",
    "audio/x-wav",
];

fn regex(motif: &str) -> Regex {
    // Motifs constants, vérifiés par les tests : une erreur serait un bogue du bac à sable.
    Regex::new(motif).expect("expression régulière du bac à sable invalide")
}

static RE_TITRE: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z0-9_.\-]+$"));
static RE_ZIP_DECOUPE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^[A-Za-z0-9_.\-]+\.zip\.[0-9]+$"));
static RE_Z_NN: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z0-9_.\-]+\.z[0-9]+$"));
/// `re.match` de Python n'ancre qu'au début : `a.zip` et `a.zipxyz` sont des archives.
static RE_ZIP: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z0-9_.\-]+\.zip"));
static RE_EXTENSION: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^[A-Za-z0-9_.\-]+\.([A-Za-z0-9]+)$"));
// `resources/donnees.py` `validate_donnee_name`, motifs recopiés tels quels.
static RE_POINT_FIXE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^Car.+-[0-9]{4}-Pass[0-9]{1,2}-(([A-H][12])|(Z[1-9][0-9]*))-.*[0-9]{8}_[0-9]{6}_[0-9]{3}$",
    )
});
static RE_ROUTIER: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"^Cir.+-[0-9]{4}-Pass[0-9]{1,2}-Tron[0-9]{1,2}-Chiro_([01]_)?[0-9]+_[0-9]{3}$")
});
static RE_PASSAGE: LazyLock<Regex> = LazyLock::new(|| regex(r"-Pass([0-9]{1,2})-"));
static RE_TRONCON: LazyLock<Regex> = LazyLock::new(|| regex(r"-Tron([0-9]{1,2})-"));
/// `DATE_FORMAT` (`%a, %d %b %Y %H:%M:%S GMT`) tel que `datetime.strptime` le lit : sans égard
/// à la casse, espaces en nombre quelconque là où le format en a une, jour et heures sur un
/// ou deux chiffres, jour de la semaine lu mais pas vérifié (`_strptime` de Python).
static RE_RFC1123: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(mon|tue|wed|thu|fri|sat|sun),\s+(3[01]|[12][0-9]|0[1-9]|[1-9]| [1-9])\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+([0-9]{4})\s+(2[0-3]|[01][0-9]|[0-9]):([0-5][0-9]|[0-9]):(6[01]|[0-5][0-9]|[0-9])\s+gmt$",
    )
});
static RE_OBJECT_ID: LazyLock<Regex> = LazyLock::new(|| regex(r"^[0-9a-fA-F]{24}$"));

/// Le chemin vise-t-il l'API (premier segment `api`) plutôt qu'un compartiment S3 ?
pub(crate) fn est_chemin_api(chemin: &str) -> bool {
    chemin == "/api" || chemin.starts_with("/api/")
}

/// Un ObjectId tel que l'accepte le routeur (`xin/tools.py` `ObjectIdConverter`, `parse_id`) :
/// 24 chiffres hexadécimaux, majuscules comprises, rendu en minuscules comme `str(ObjectId)`.
fn object_id(s: &str) -> Option<String> {
    RE_OBJECT_ID.is_match(s).then(|| s.to_ascii_lowercase())
}

/// Une route de l'API, reconnue sur la méthode et le chemin seuls (avant lecture du corps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Moi,
    CreerParticipation(String),
    ListerParticipations(String),
    LireParticipation(String),
    /// `PATCH /participations/{id}` (`edit_participation`).
    ModifierParticipation(String),
    /// `GET /sites/{id}`.
    LireSite(String),
    /// `GET /moi/sites` (voir `saison.rs`).
    MesSites,
    /// `GET /moi/participations` (voir `saison.rs`).
    MesParticipations,
    DeclarerFichier,
    UrlPartie(String),
    Finaliser(String),
    Abandonner(String),
    LireFichier(String),
    Calcul(String),
    /// `GET /participations/{id}/pieces_jointes` (voir `lecture.rs`).
    PiecesJointes(String),
    /// `GET /fichiers/{id}/acces` (voir `lecture.rs`).
    AccesFichier(String),
    /// `GET /taxons/liste` (voir `traitement.rs`).
    ListeTaxons,
    /// `POST /participations/{id}/csv` (voir `traitement.rs`).
    DemanderCsv(String),
    /// Aucune route à ce chemin (ou identifiant qui n'a pas l'allure d'un ObjectId) : 404.
    Introuvable,
    /// Le chemin existe, pas pour cette méthode : 405.
    MethodeInterdite,
}

/// Une route qui porte l'identifiant lu dans son chemin.
type RouteDe = fn(String) -> Route;

impl Route {
    /// Comme le routeur de Flask : les identifiants sont des ObjectId (24 hexadécimaux), une
    /// barre finale ne correspond à rien.
    pub(crate) fn analyser(methode: &Method, chemin: &str) -> Route {
        let Some(reste) = chemin.strip_prefix("/api/v1/") else {
            return Route::Introuvable;
        };
        let segments: Vec<&str> = reste.split('/').collect();
        let selon = |pour: &[(Method, RouteDe)], id: &str| {
            let Some(id) = object_id(id) else {
                return Route::Introuvable;
            };
            pour.iter()
                .find(|(m, _)| m == methode)
                .map_or(Route::MethodeInterdite, |(_, route)| route(id))
        };
        match segments.as_slice() {
            ["moi"] if *methode == Method::GET => Route::Moi,
            ["moi"] => Route::MethodeInterdite,
            ["taxons", "liste"] if *methode == Method::GET => Route::ListeTaxons,
            ["taxons", "liste"] => Route::MethodeInterdite,
            ["moi", "sites"] if *methode == Method::GET => Route::MesSites,
            ["moi", "participations"] if *methode == Method::GET => Route::MesParticipations,
            ["moi", "sites" | "participations"] => Route::MethodeInterdite,
            ["fichiers"] if *methode == Method::POST => Route::DeclarerFichier,
            ["fichiers"] => Route::MethodeInterdite,
            ["sites", site, "participations"] => selon(
                &[
                    (Method::GET, Route::ListerParticipations),
                    (Method::POST, Route::CreerParticipation),
                ],
                site,
            ),
            ["participations", id] => selon(
                &[
                    (Method::GET, Route::LireParticipation),
                    (Method::PATCH, Route::ModifierParticipation),
                ],
                id,
            ),
            ["sites", id] => selon(&[(Method::GET, Route::LireSite)], id),
            ["participations", id, "compute"] => selon(&[(Method::POST, Route::Calcul)], id),
            ["participations", id, "csv"] => selon(&[(Method::POST, Route::DemanderCsv)], id),
            ["participations", id, "pieces_jointes"] => {
                selon(&[(Method::GET, Route::PiecesJointes)], id)
            }
            ["fichiers", id] => selon(
                &[
                    (Method::GET, Route::LireFichier),
                    (Method::POST, Route::Finaliser),
                    (Method::DELETE, Route::Abandonner),
                ],
                id,
            ),
            ["fichiers", id, "multipart"] => selon(&[(Method::PUT, Route::UrlPartie)], id),
            ["fichiers", id, "acces"] => selon(&[(Method::GET, Route::AccesFichier)], id),
            _ => Route::Introuvable,
        }
    }

    pub(crate) fn operation(&self) -> Operation {
        match self {
            Route::Moi => Operation::ApiMoi,
            Route::CreerParticipation(_) => Operation::ApiCreerParticipation,
            Route::ListerParticipations(_) => Operation::ApiListerParticipations,
            Route::LireParticipation(_) => Operation::ApiLireParticipation,
            Route::ModifierParticipation(_) => Operation::ApiModifierParticipation,
            Route::LireSite(_) => Operation::ApiLireSite,
            Route::MesSites => Operation::ApiMesSites,
            Route::MesParticipations => Operation::ApiMesParticipations,
            Route::DeclarerFichier => Operation::ApiDeclarerFichier,
            Route::UrlPartie(_) => Operation::ApiUrlPartie,
            Route::Finaliser(_) => Operation::ApiFinaliser,
            Route::Abandonner(_) => Operation::ApiAbandonner,
            Route::LireFichier(_) => Operation::ApiLireFichier,
            Route::Calcul(_) => Operation::ApiCalcul,
            Route::PiecesJointes(_) => Operation::ApiPiecesJointes,
            Route::AccesFichier(_) => Operation::ApiAccesFichier,
            Route::ListeTaxons => Operation::ApiTaxons,
            Route::DemanderCsv(_) => Operation::ApiCsv,
            Route::Introuvable | Route::MethodeInterdite => Operation::ApiAutre,
        }
    }
}

/// `_created`, `_updated` (`isoformat()`) et `_etag` d'un document (`xin/resource.py`
/// `insert`, `_atomic_update`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    cree: String,
    maj: String,
    etag: String,
}

impl Meta {
    fn neuve() -> Meta {
        let maintenant = isoformat(maintenant_s());
        Meta {
            cree: maintenant.clone(),
            maj: maintenant,
            etag: format!("{:032x}", rand::random::<u128>()),
        }
    }

    /// Une mise à jour : `_updated` et `_etag` changent.
    pub(crate) fn toucher(&mut self) {
        self.maj = isoformat(maintenant_s());
        self.etag = format!("{:032x}", rand::random::<u128>());
    }

    fn ecrire(&self, o: &mut Value) {
        o["_created"] = json!(self.cree);
        o["_updated"] = json!(self.maj);
        o["_etag"] = json!(self.etag);
    }
}

/// Une participation telle que la plateforme locale la connaît.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipationPlateforme {
    pub id: String,
    pub site: String,
    pub observateur: String,
    pub point: Option<String>,
    /// Telle que la plateforme la rend : `isoformat()` sans fuseau, UTC implicite
    /// (`2026-06-21T21:30:00`).
    pub date_debut: String,
    pub date_fin: Option<String>,
    pub meteo: Option<Value>,
    pub configuration: Option<Value>,
    pub commentaire: Option<String>,
    /// Ce que le calcul a laissé : `traitement` (son état et ses dates), `bilan`, `logs`
    /// (voir `traitement.rs`) ; `None` tant qu'aucun calcul n'a été lancé.
    pub traitement: Option<CalculPlateforme>,
    /// Nombre de `POST /participations/{id}/compute` acceptés (200).
    pub calculs_lances: u32,
    /// Le protocole, celui du site à la création (`create_participation` :
    /// `payload['protocole'] = site_resource['protocole']`).
    pub(crate) protocole: &'static str,
    pub(crate) meta: Meta,
}

/// Un enregistrement de fichier de la plateforme locale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FichierPlateforme {
    pub id: String,
    pub titre: String,
    /// Clé S3 dans [`COMPARTIMENT_PLATEFORME`] (`wav/pa-<participation>/<titre>`…).
    pub cle: String,
    pub participation: Option<String>,
    pub proprietaire: String,
    /// Déclaré en multipart (un envoi S3 a été ouvert et son id stocké).
    pub multipart: bool,
    pub disponible: bool,
    pub mime: String,
    /// Id de l'envoi multipart S3 **stocké** (celui qui sert aux URL de parties et à la
    /// finalisation). Les envois ouverts par des déclarations rejouées n'y sont pas : ce sont
    /// les orphelins.
    pub id_envoi: Option<String>,
    pub(crate) meta: Meta,
}

#[derive(Debug, Clone)]
struct Utilisateur {
    id: &'static str,
    pseudo: &'static str,
    email: &'static str,
    /// Protocoles rejoints, et si l'inscription y est validée (`resources/utilisateurs.py`
    /// `ensure_protocole_joined_and_validated`).
    protocoles: &'static [(&'static str, bool)],
}

const UTILISATEURS: [Utilisateur; 3] = [
    Utilisateur {
        id: OBSERVATEUR,
        pseudo: "Observatrice du bac à sable",
        email: "observatrice@bac-a-sable.invalid",
        protocoles: &[
            (PROTOCOLE, true),
            (PROTOCOLE_ROUTIER, true),
            (PROTOCOLE_PEDESTRE, true),
        ],
    },
    Utilisateur {
        id: OBSERVATEUR_NON_VALIDE,
        pseudo: "Observateur non validé",
        email: "non-valide@bac-a-sable.invalid",
        protocoles: &[(PROTOCOLE, false)],
    },
    Utilisateur {
        id: OBSERVATEUR_AUTRE,
        pseudo: PSEUDO_AUTRE,
        email: "autre@bac-a-sable.invalid",
        protocoles: &[(PROTOCOLE, true)],
    },
];

impl Utilisateur {
    /// Le document de l'utilisateur ; le courriel est un champ caché
    /// (`resources/utilisateurs.py`), montré seulement à l'intéressé (`GET /moi`).
    fn json(&self, avec_courriel: bool) -> Value {
        let protocoles: Vec<Value> = self
            .protocoles
            .iter()
            .filter_map(|(id, valide)| {
                let p = protocole(id)?;
                Some(json!({
                    "protocole": { "_id": p.id, "titre": p.titre },
                    "valide": valide,
                }))
            })
            .collect();
        let mut o = json!({
            "_id": self.id,
            "pseudo": self.pseudo,
            "role": "Observateur",
            "donnees_publiques": false,
            "protocoles": protocoles,
        });
        if avec_courriel {
            o["email"] = json!(self.email);
        }
        o
    }

    /// `resources/utilisateurs.py` `ensure_protocole_joined_and_validated` : le message
    /// d'erreur, ou `None` si l'utilisateur peut participer au protocole.
    fn inscription(&self, protocole: &str) -> Option<&'static str> {
        match self.protocoles.iter().find(|(p, _)| *p == protocole) {
            None => Some("not registered to protocole"),
            Some((_, false)) => Some("protocole registration not yet validated"),
            Some((_, true)) => None,
        }
    }
}

fn utilisateur(id: &str) -> Option<&'static Utilisateur> {
    UTILISATEURS.iter().find(|u| u.id == id)
}

/// Un protocole (`resources/protocoles.py`, `type_site` : `CARRE`, `ROUTIER` ou `POINT_FIXE`).
#[derive(Debug, Clone)]
struct Protocole {
    id: &'static str,
    titre: &'static str,
    type_site: &'static str,
}

/// Les titres suivent la forme que reprennent les titres de sites
/// (`Vigiechiro - Point Fixe-640380`).
const PROTOCOLES: [Protocole; 3] = [
    Protocole {
        id: PROTOCOLE,
        titre: "Vigiechiro - Point Fixe",
        type_site: "POINT_FIXE",
    },
    Protocole {
        id: PROTOCOLE_ROUTIER,
        titre: "Vigiechiro - Routier",
        type_site: "ROUTIER",
    },
    Protocole {
        id: PROTOCOLE_PEDESTRE,
        titre: "Vigiechiro - Pédestre",
        type_site: "CARRE",
    },
];

fn protocole(id: &str) -> Option<&'static Protocole> {
    PROTOCOLES.iter().find(|p| p.id == id)
}

impl Protocole {
    /// Le document d'un protocole, tel que le développe une relation (`strip_resource_fields`).
    fn json(&self) -> Value {
        json!({
            "_id": self.id,
            "titre": self.titre,
            "type_site": self.type_site,
            "macro_protocole": false,
        })
    }
}

/// Une maille de la grille STOC (`resources/grille_stoc.py` : `numero`, `centre`), telle que
/// la développe la relation `grille_stoc` d'un site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grille {
    pub id: String,
    pub numero: String,
}

/// Un site (`resources/sites.py` `SCHEMA`). Son titre est celui que `create_site` lui donne :
/// `« <titre du protocole>-<numéro de la grille> »` (point fixe, pédestre), `« <titre du
/// protocole>-<compteur> »` (routier).
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub id: String,
    pub titre: String,
    pub protocole: &'static str,
    pub observateur: String,
    pub verrouille: bool,
    /// Les points (`localites`) ; un site routier n'en a pas.
    pub points: Vec<String>,
    /// La maille de la grille (point fixe et pédestre).
    pub grille: Option<Grille>,
    pub(crate) meta: Meta,
}

/// Les sites présents au démarrage.
fn sites_initiaux() -> Vec<Site> {
    let grille = |id: &str, numero: &str| {
        Some(Grille {
            id: id.to_owned(),
            numero: numero.to_owned(),
        })
    };
    let site = |id: &str,
                titre: &str,
                protocole: &'static str,
                observateur: &str,
                verrouille: bool,
                points: &[&str],
                grille: Option<Grille>| Site {
        id: id.to_owned(),
        titre: titre.to_owned(),
        protocole,
        observateur: observateur.to_owned(),
        verrouille,
        points: points.iter().map(|p| (*p).to_owned()).collect(),
        grille,
        meta: Meta::neuve(),
    };
    // Le même carré pour le site point fixe et le site pédestre.
    let carre = || grille("64a1b2c3d4e5f60718293f01", "640139");
    vec![
        site(
            SITE,
            "Vigiechiro - Point Fixe-640139",
            PROTOCOLE,
            OBSERVATEUR,
            true,
            &POINTS_SITE,
            carre(),
        ),
        site(
            SITE_NON_VERROUILLE,
            "Vigiechiro - Point Fixe-640140",
            PROTOCOLE,
            OBSERVATEUR,
            false,
            &POINTS_SITE,
            grille("64a1b2c3d4e5f60718293f02", "640140"),
        ),
        site(
            SITE_ROUTIER,
            "Vigiechiro - Routier-12",
            PROTOCOLE_ROUTIER,
            OBSERVATEUR,
            true,
            &[],
            None,
        ),
        site(
            SITE_AUTRE,
            "Vigiechiro - Point Fixe-640380",
            PROTOCOLE,
            OBSERVATEUR_AUTRE,
            true,
            &["B1"],
            grille("64a1b2c3d4e5f60718293f03", "640380"),
        ),
        site(
            SITE_PEDESTRE,
            "Vigiechiro - Pédestre-640139",
            PROTOCOLE_PEDESTRE,
            OBSERVATEUR,
            true,
            &[],
            carre(),
        ),
        site(
            SITE_REGIONAL,
            "Vigiechiro - Point Fixe-750101",
            PROTOCOLE,
            OBSERVATEUR_AUTRE,
            true,
            &["A1", "A2"],
            grille("64a1b2c3d4e5f60718293f04", "750101"),
        ),
    ]
}

impl Site {
    /// Le document brut : relations en identifiants (ce que rend une relation développée,
    /// dont les relations ne le sont pas à leur tour).
    fn json(&self) -> Value {
        let mut o = json!({
            "_id": self.id,
            "titre": self.titre,
            "protocole": self.protocole,
            "observateur": self.observateur,
            "verrouille": self.verrouille,
            "localites": self.points.iter().map(|p| json!({ "nom": p })).collect::<Vec<_>>(),
        });
        if let Some(g) = &self.grille {
            o["grille_stoc"] = json!(g.id);
        }
        self.meta.ecrire(&mut o);
        o
    }

    /// Le document relu (`resources/sites.py` `display_site`, `find_one`) : protocole et
    /// observateur développés (`xin/schema.py` `_run_attribute_data_relation`).
    fn json_developpe(&self) -> Value {
        let mut o = self.json();
        if let Some(p) = protocole(self.protocole) {
            o["protocole"] = p.json();
        }
        if let Some(u) = utilisateur(&self.observateur) {
            o["observateur"] = u.json(false);
        }
        if let Some(g) = &self.grille {
            o["grille_stoc"] = json!({
                "_id": g.id,
                "numero": g.numero,
                "centre": { "type": "Point", "coordinates": [2.35, 48.85] },
            });
        }
        o
    }
}

struct Etat {
    /// jeton → (id d'utilisateur, fin de validité)
    jetons: HashMap<String, (&'static str, SystemTime)>,
    sites: Vec<Site>,
    participations: Vec<ParticipationPlateforme>,
    fichiers: Fichiers,
    /// S3 refuse d'ouvrir tout envoi multipart (voir [`Vigiechiro::refuser_multipart`]).
    multipart_refuse: bool,
    /// Octets « machine » d'un ObjectId (40 bits tirés au démarrage) et compteur.
    machine: u64,
    compteur: u32,
    /// Le déroulement des prochains calculs lancés.
    reglages_calcul: ReglagesCalcul,
    /// Celui des prochains calculs d'une participation, s'il diffère (une nuit d'une saison
    /// dont le calcul échoue, les autres réussissant).
    reglages_calcul_de: HashMap<String, ReglagesCalcul>,
    /// Les CSV demandés (`POST …/csv`) : participation, et l'instant où il sera écrit.
    csv_demandes: Vec<(String, SystemTime)>,
    /// Les courriels de CSV demandés, par participation.
    courriels_csv: Vec<String>,
}

impl Etat {
    /// Un identifiant d'allure ObjectId : secondes Unix, 5 octets tirés, compteur.
    fn nouvel_id(&mut self) -> String {
        let secondes = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
            & 0xFFFF_FFFF;
        self.compteur = self.compteur.wrapping_add(1) & 0xFF_FFFF;
        format!(
            "{secondes:08x}{:010x}{:06x}",
            self.machine & 0xFF_FFFF_FFFF,
            self.compteur
        )
    }
}

// ---------------------------------------------------------------------------- dates

fn maintenant_s() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `datetime.isoformat()` d'une date sans fuseau, à la seconde (`2026-06-21T21:30:00`).
pub(crate) fn isoformat(secondes: i64) -> String {
    // Date civile d'un nombre de jours depuis 1970 (H. Hinnant). Le bac à sable ne dépend pas
    // de `vigie`, qu'il doit pouvoir contredire : il a ses propres dates.
    let (jours, s) = (secondes.div_euclid(86_400), secondes.rem_euclid(86_400));
    let z = jours + 719_468;
    let (ere, jde) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let ade = (jde - jde / 1460 + jde / 36_524 - jde / 146_096) / 365;
    let jda = jde - (365 * ade + ade / 4 - ade / 100);
    let mp = (5 * jda + 2) / 153;
    let jour = jda - (153 * mp + 2) / 5 + 1;
    let mois = if mp < 10 { mp + 3 } else { mp - 9 };
    let annee = ade + ere * 400 + i64::from(mois <= 2);
    format!(
        "{annee:04}-{mois:02}-{jour:02}T{:02}:{:02}:{:02}",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

/// `str_to_date` (`xin/tools.py`) : `datetime.strptime(texte, DATE_FORMAT)`, en secondes
/// Unix ; `None` là où Python lève `ValueError` (motif, ou date qui n'existe pas).
fn strptime_rfc1123(texte: &str) -> Option<i64> {
    const MOIS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let c = RE_RFC1123.captures(texte)?;
    let nombre = |i: usize| c[i].trim().parse::<i64>().ok();
    let jour = nombre(2)?;
    let mois = MOIS
        .iter()
        .position(|m| c[3].eq_ignore_ascii_case(m))
        .map(|i| i as i64 + 1)?;
    let (annee, h, m, s) = (nombre(4)?, nombre(5)?, nombre(6)?, nombre(7)?);
    let bissextile = annee % 4 == 0 && (annee % 100 != 0 || annee % 400 == 0);
    let jours_du_mois = match mois {
        2 if bissextile => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    // `datetime(...)` refuse le jour 0, le 31 avril, l'année 0 et les secondes 60 et 61.
    if jour > jours_du_mois || annee == 0 || s > 59 {
        return None;
    }
    Some(jours_depuis_1970(annee, mois, jour) * 86_400 + h * 3600 + m * 60 + s)
}

/// Le nombre de jours du 1er janvier 1970 à une date civile (H. Hinnant).
pub(crate) fn jours_depuis_1970(annee: i64, mois: i64, jour: i64) -> i64 {
    let a = if mois <= 2 { annee - 1 } else { annee };
    let (ere, ade) = (a.div_euclid(400), a.rem_euclid(400));
    let jda = (153 * ((mois + 9) % 12) + 2) / 5 + jour - 1;
    ere * 146_097 + ade * 365 + ade / 4 - ade / 100 + jda - 719_468
}

/// L'expiration d'une URL signée maintenant (`int(time.time() + 3600 * 10)` de
/// `_sign_request`), en secondes Unix.
fn expiration_neuve() -> u64 {
    (SystemTime::now() + VALIDITE_URL)
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------- réponses

/// Le nom d'un statut tel que l'écrit werkzeug (`str()` d'une `HTTPException`).
fn raison(statut: StatusCode) -> &'static str {
    match statut.as_u16() {
        413 => "Request Entity Too Large",
        _ => statut.canonical_reason().unwrap_or("Unknown Error"),
    }
}

/// La description d'une erreur telle que Python l'écrit dans `_status` : un texte tel quel,
/// un objet à la manière de `repr()` (`{'titre': 'unknown file type'}`).
fn repr_python(v: &Value, dedans: bool) -> String {
    match v {
        Value::String(s) if !dedans => s.clone(),
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, x)| format!("'{k}': {}", repr_python(x, true)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(a) => format!(
            "[{}]",
            a.iter()
                .map(|x| repr_python(x, true))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Null => "None".to_owned(),
        Value::Number(n) => n.to_string(),
    }
}

/// Ce que `if valeur:` de Python tient pour vrai.
fn vrai_en_python(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `"%s" % valeur` de Python.
fn texte_python(v: &Value) -> String {
    repr_python(v, false)
}

/// `type(valeur).__name__` en Python, pour les messages de ses exceptions.
fn nom_de_type_python(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Description par défaut d'un 404 de werkzeug (route inconnue, `abort(404)`).
const DESCRIPTION_404: &str = "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.";
/// Description par défaut d'un 403 de werkzeug (`abort(403)`).
const DESCRIPTION_403: &str = "You don't have the permission to access the requested resource. It is either read-protected or not readable by the server.";
/// Description par défaut d'un 405 de werkzeug.
const DESCRIPTION_405: &str = "The method is not allowed for the requested URL.";

/// Réponse de l'API, avant sa mise en forme HTTP.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReponseApi {
    pub statut: StatusCode,
    /// `None` : pas de corps (204).
    pub corps: Option<Value>,
    pub entetes: Vec<(HeaderName, String)>,
}

impl ReponseApi {
    fn json(statut: StatusCode, corps: Value) -> ReponseApi {
        ReponseApi {
            statut,
            corps: Some(corps),
            entetes: Vec::new(),
        }
    }

    fn ok(corps: Value) -> ReponseApi {
        ReponseApi::json(StatusCode::OK, corps)
    }

    /// `abort(statut, description)` mis en forme par `app.py` `make_json_error`.
    fn erreur(statut: StatusCode, description: impl Into<Value>) -> ReponseApi {
        let description = description.into();
        ReponseApi::json(
            statut,
            json!({
                "_status": format!(
                    "{} {}: {}",
                    statut.as_u16(),
                    raison(statut),
                    repr_python(&description, false)
                ),
                "_errors": description,
            }),
        )
    }

    /// Une erreur de champ : `{"champ": "message"}`.
    fn erreur_champ(statut: StatusCode, champ: &str, message: impl Into<Value>) -> ReponseApi {
        let mut m = Map::new();
        m.insert(champ.to_owned(), message.into());
        ReponseApi::erreur(statut, Value::Object(m))
    }

    /// Une exception qui n'est pas une erreur HTTP (`RuntimeError`, `TypeError`…) : 500, et
    /// `make_json_error` n'a que son texte (`_status`), sans `_errors`.
    fn exception(message: impl Into<String>) -> ReponseApi {
        ReponseApi::json(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({ "_status": message.into() }),
        )
    }

    /// `xin/auth.py` `requires_auth` : `abort(401, …)` ; la réponse refaite par
    /// `make_json_error` perd l'en-tête `WWW-Authenticate` qu'avait préparé la route.
    fn non_authentifie() -> ReponseApi {
        ReponseApi::erreur(
            StatusCode::UNAUTHORIZED,
            "Please provide proper credentials",
        )
    }

    /// `xin/snippets.py` `get_resource` sur un document inconnu.
    fn introuvable(id: &str, ressource: &str) -> ReponseApi {
        ReponseApi::erreur(
            StatusCode::NOT_FOUND,
            format!("`{id}` is not a valid {ressource} resource"),
        )
    }

    fn interdit() -> ReponseApi {
        ReponseApi::erreur(StatusCode::FORBIDDEN, DESCRIPTION_403)
    }

    /// Corps de requête au-delà de [`CORPS_API_MAX`]. Écart voulu : la vraie plateforme n'a
    /// pas de limite (`MAX_CONTENT_LENGTH` non défini) ; le bac à sable se protège.
    pub(crate) fn trop_gros() -> ReponseApi {
        ReponseApi::erreur(
            StatusCode::PAYLOAD_TOO_LARGE,
            "corps de requête trop gros pour l'API (1 Mio au plus)",
        )
    }

    /// Réponse d'une panne de statut injectée devant l'API (le traitement n'a pas lieu).
    pub(crate) fn panne(statut: StatusCode, retry_after: Option<&RetryAfter>) -> ReponseApi {
        let mut r = ReponseApi::erreur(
            statut,
            format!(
                "{} (panne injectée par le bac à sable)",
                statut.canonical_reason().unwrap_or("Error")
            ),
        );
        if let Some(ra) = retry_after {
            let (nom, valeur) = ra.entete(SystemTime::now());
            r.entetes.push((HeaderName::from_static(nom), valeur));
        }
        r
    }

    /// Mise en forme HTTP : JSON (`application/json`) ou corps vide.
    pub(crate) fn en_http(self) -> Result<Response<s3s::Body>, hyper::http::Error> {
        let mut reponse = Response::builder().status(self.statut);
        for (nom, valeur) in self.entetes {
            match HeaderValue::from_str(&valeur) {
                Ok(v) => reponse = reponse.header(nom, v),
                Err(_) => tracing::warn!(
                    entete = %nom,
                    "bac à sable : valeur d'en-tête impossible à envoyer, omise"
                ),
            }
        }
        match self.corps {
            Some(corps) => reponse
                .header(hyper::header::CONTENT_TYPE, "application/json")
                .body(s3s::Body::from(corps.to_string())),
            None => reponse.body(s3s::Body::empty()),
        }
    }
}

/// Ce que le service HTTP transmet d'une requête d'API.
pub(crate) struct RequeteApi<'a> {
    pub route: Route,
    pub entetes: &'a HeaderMap,
    /// Chaîne de requête brute (`page=2&max_results=50`).
    pub parametres: Option<&'a str>,
    pub corps: &'a [u8],
}

/// La plateforme locale : son état, et un accès direct au stockage S3 du bac à sable.
///
/// Pièges reproduits de l'original (`resources/fichiers.py` `fichier_create`) dans
/// `POST /fichiers` :
/// - le fichier est retrouvé **par sa clé S3** : un enregistrement non finalisé existant est
///   rendu **tel quel** (même `_id`, 201, relations développées comme par `find_one`), avec une
///   URL neuve à une déclaration simple ; finalisé : 409 `upload is already done` ;
/// - en multipart, l'envoi S3 est ouvert **avant** cette recherche (`_s3_create_multipart`) :
///   si l'enregistrement existait ou si la participation est refusée ensuite (422), le nouvel
///   envoi reste orphelin et l'identifiant stocké reste l'ancien (ou aucun) ;
/// - l'enregistrement rendu garde sa nature : redéclarer en simple un fichier déclaré en
///   multipart rend une URL de PUT simple et `s3_upload_multipart_id`, et sa finalisation
///   exigera `parts` (422) ; l'inverse rend un enregistrement sans `s3_upload_multipart_id`, et
///   `PUT /fichiers/{id}/multipart` répond 422 `not a multipart`.
pub(crate) struct Vigiechiro {
    etat: Mutex<Etat>,
    /// Une requête d'API à la fois : le traitement peut attendre S3 sans relâcher la cohérence
    /// (l'original s'appuie sur MongoDB ; ici, la simplicité l'emporte sur le débit).
    tour: tokio::sync::Mutex<()>,
    stockage: Plateforme,
    /// `http://127.0.0.1:PORT`, base des URL signées.
    base: String,
}

/// Une requête S3 directe sur le stockage, au nom de la clé d'accès du bac à sable (s3s-fs lie
/// un envoi multipart à la clé qui l'a ouvert : les PUT de parties présignés doivent porter la
/// même).
fn requete_s3<T>(input: T) -> S3Request<T> {
    S3Request {
        input,
        method: Method::POST,
        uri: hyper::Uri::from_static("/"),
        headers: HeaderMap::new(),
        extensions: hyper::http::Extensions::new(),
        credentials: Some(Credentials {
            access_key: CLE_ACCES.to_owned(),
            secret_key: SECRET.into(),
        }),
        region: None,
        service: Some("s3".to_owned()),
        trailing_headers: None,
    }
}

/// Une erreur S3 comme le serveur la recopie de la réponse de S3 : statut et corps XML.
fn decrire_erreur_s3(e: &S3Error) -> String {
    format!(
        "error {} : <Error><Code>{}</Code><Message>{}</Message></Error>",
        e.status_code().map_or(500, |s| s.as_u16()),
        e.code().as_str(),
        e.message().unwrap_or_default()
    )
}

/// Type MIME déduit du titre, comme `detect_mime` de l'original ; `None` : type inconnu.
pub(crate) fn deduire_mime(titre: &str) -> Option<&'static str> {
    if RE_ZIP_DECOUPE.is_match(titre) || RE_Z_NN.is_match(titre) || RE_ZIP.is_match(titre) {
        return Some("application/zip");
    }
    let extension = RE_EXTENSION.captures(titre)?.get(1)?.as_str();
    MIMES.iter().copied().find(|m| m.ends_with(extension))
}

/// Préfixe de clé S3 selon le type MIME (`fichier_create`).
fn prefixe(mime: &str) -> &'static str {
    match mime {
        "application/ta" | "application/tac" => "ta/",
        "application/tc" | "application/tcc" => "tc/",
        "audio/wav" | "audio/x-wav" => "wav/",
        "application/zip" => "zip/",
        _ => "photos/",
    }
}

/// Les données (WAV, TA, TC) doivent suivre un protocole ; les photos et archives non.
fn nom_protocole_exige(mime: &str) -> bool {
    matches!(prefixe(mime), "ta/" | "tc/" | "wav/")
}

/// `validate_donnee_name` (`resources/donnees.py`) : extension permise, nom sans extension
/// conforme au protocole routier/pédestre ou point fixe, et le **premier** `-PassNN-` (et
/// `-TronNN-`) du nom non nul.
pub(crate) fn nom_donnee_valide(titre: &str) -> bool {
    let Some((base, extension)) = titre.rsplit_once('.') else {
        return false;
    };
    if !matches!(extension, "wav" | "ta" | "tc" | "tac" | "tcc") {
        return false;
    }
    let non_nul = |motif: &Regex| {
        motif
            .captures(base)
            .and_then(|c| c[1].parse::<u32>().ok())
            .is_some_and(|n| n != 0)
    };
    if RE_ROUTIER.is_match(base) {
        non_nul(&RE_PASSAGE) && non_nul(&RE_TRONCON)
    } else if RE_POINT_FIXE.is_match(base) {
        non_nul(&RE_PASSAGE)
    } else {
        false
    }
}

/// Clé S3 que la plateforme donne à ce titre dans cette participation (`wav/pa-<id>/<titre>`,
/// `ta/…`, `tc/…`, `zip/…`), ou `None` si le type du titre est inconnu.
pub fn cle_fichier(participation: &str, titre: &str) -> Option<String> {
    let mime = deduire_mime(titre)?;
    Some(format!("{}pa-{participation}/{titre}", prefixe(mime)))
}

fn cle_pour(mime: &str, titre: &str, participation: Option<&str>) -> String {
    match participation {
        Some(p) => format!("{}pa-{p}/{titre}", prefixe(mime)),
        None => format!("{}{titre}", prefixe(mime)),
    }
}

/// 404 ou 405 pour une requête qui ne correspond à aucune route : le routeur de Flask lève
/// l'erreur avant toute authentification, `make_json_error` la met en JSON.
fn refus_de_route(route: &Route) -> Option<ReponseApi> {
    match route {
        Route::Introuvable => Some(ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404)),
        Route::MethodeInterdite => Some(ReponseApi::erreur(
            StatusCode::METHOD_NOT_ALLOWED,
            DESCRIPTION_405,
        )),
        _ => None,
    }
}

/// `xin/snippets.py` `get_payload` : un objet JSON sous un type JSON (`request.get_json()` de
/// Flask 1.1 rend `None` sinon, d'où 412), 400 si le JSON est illisible ; `permis` : les seuls
/// champs admis (422 `invalid field` pour chacun des autres).
fn charge_utile(
    requete: &RequeteApi<'_>,
    permis: Option<&[&str]>,
) -> Result<Map<String, Value>, ReponseApi> {
    let type_json = requete
        .entetes
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .is_some_and(|t| {
            t == "application/json" || (t.starts_with("application/") && t.ends_with("+json"))
        });
    let refus_type = || {
        ReponseApi::erreur(
            StatusCode::PRECONDITION_FAILED,
            "Content-Type is not `application/json`",
        )
    };
    if !type_json {
        return Err(refus_type());
    }
    let charge = match serde_json::from_slice::<Value>(requete.corps) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(refus_type()),
        Err(e) => {
            return Err(ReponseApi::erreur(
                StatusCode::BAD_REQUEST,
                format!("Failed to decode JSON object: {e}"),
            ));
        }
    };
    if let Some(permis) = permis {
        let invalides: Map<String, Value> = charge
            .keys()
            .filter(|k| !permis.contains(&k.as_str()))
            .map(|k| (k.clone(), json!("invalid field")))
            .collect();
        if !invalides.is_empty() {
            return Err(ReponseApi::erreur(
                StatusCode::UNPROCESSABLE_ENTITY,
                Value::Object(invalides),
            ));
        }
    }
    Ok(charge)
}

/// Les champs restants d'une charge sont inattendus : 422 `unknown field` pour chacun
/// (`fichier_create`, `fichier_multipart_continue`).
fn refus_champs_inconnus(charge: &Map<String, Value>) -> Option<ReponseApi> {
    (!charge.is_empty()).then(|| {
        let inconnus: Map<String, Value> = charge
            .keys()
            .map(|k| (k.clone(), json!("unknown field")))
            .collect();
        ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(inconnus))
    })
}

/// `Paginator` de l'original : `page` (défaut 1), `max_results` (défaut 20, au plus 100,
/// 0 = sans limite comme `limit(0)` de MongoDB).
fn pagination(parametres: Option<&str>) -> Result<(i64, i64), ReponseApi> {
    let (mut page, mut max) = (1i64, 20i64);
    let invalide = || {
        ReponseApi::erreur(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid max_results and/or page params",
        )
    };
    for paire in parametres
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = paire.split_once('=').unwrap_or((paire, ""));
        match k {
            "page" => page = v.parse().map_err(|_| invalide())?,
            "max_results" => max = v.parse().map_err(|_| invalide())?,
            _ => {}
        }
    }
    if max < 0 {
        return Err(invalide());
    }
    if page.saturating_sub(1).saturating_mul(max) < 0 {
        return Err(ReponseApi::erreur(
            StatusCode::UNPROCESSABLE_ENTITY,
            "page params must be > 0",
        ));
    }
    if max > 100 {
        return Err(ReponseApi::erreur(
            StatusCode::UNPROCESSABLE_ENTITY,
            "max_results params must be < 100",
        ));
    }
    Ok((page, max))
}

/// Le `skip` et le `limit` d'une page de `Paginator` (`limit(0)` : sans limite, comme
/// MongoDB), en nombres d'éléments.
fn tranche(page: i64, max: i64) -> (usize, usize) {
    let debut = page.saturating_sub(1).saturating_mul(max);
    match (usize::try_from(debut), usize::try_from(max)) {
        (Ok(d), Ok(0)) => (d, usize::MAX),
        (Ok(d), Ok(n)) => (d, n),
        _ => (0, usize::MAX),
    }
}

/// La validation d'un champ `datetime` (`xin/schema.py` `_run_type_datetime`) : un texte au
/// format RFC 1123, sinon `must be of datetime type` (null et texte vide compris).
fn valider_date(v: &Value) -> Result<i64, &'static str> {
    match v {
        Value::String(s) => strptime_rfc1123(s).ok_or("must be of datetime type"),
        _ => Err("must be of datetime type"),
    }
}

/// La validation du schéma d'une participation (`resources/participations.py` `SCHEMA`, par
/// `xin/resource.py` `insert`) : **toutes** les erreurs d'un coup, par chemin de champ.
/// Une mise à jour (`is_update=True`) ne demande pas les champs obligatoires.
fn valider_participation(
    charge: &Map<String, Value>,
    mise_a_jour: bool,
) -> Result<(), Map<String, Value>> {
    let mut erreurs = Map::new();
    let mut erreur = |chemin: String, message: &str| {
        erreurs.insert(chemin, json!(message));
    };
    match charge.get("date_debut") {
        None if mise_a_jour => {}
        None => erreur("date_debut".into(), "required field"),
        Some(v) => {
            if let Err(m) = valider_date(v) {
                erreur("date_debut".into(), m);
            }
        }
    }
    if let Some(v) = charge.get("date_fin")
        && let Err(m) = valider_date(v)
    {
        erreur("date_fin".into(), m);
    }
    for champ in ["point", "commentaire"] {
        if charge.get(champ).is_some_and(|v| !v.is_string()) {
            erreur(champ.into(), "must be of string type");
        }
    }
    match charge.get("meteo") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let chemin = format!("meteo.{k}");
                let choix: &[&str] = match k.as_str() {
                    "temperature_debut" | "temperature_fin" => {
                        // `isinstance(v, int)` : un booléen en est un pour Python.
                        if !(v.is_i64() || v.is_u64() || v.is_boolean()) {
                            erreur(chemin, "must be of integer type");
                        }
                        continue;
                    }
                    "vent" => &["NUL", "FAIBLE", "MOYEN", "FORT"],
                    "couverture" => &["0-25", "25-50", "50-75", "75-100"],
                    _ => {
                        erreur(chemin, "unknown field");
                        continue;
                    }
                };
                match v.as_str() {
                    Some(s) if choix.contains(&s) => {}
                    Some(_) => erreur(
                        chemin,
                        &format!("value does not match regex '^({})$'", choix.join("|")),
                    ),
                    None => erreur(chemin, "must be of string type"),
                }
            }
        }
        Some(_) => erreur("meteo".into(), "must be of dict type"),
    }
    match charge.get("configuration") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                if !v.is_string() {
                    erreur(format!("configuration.{k}"), "must be of string type");
                }
            }
        }
        Some(_) => erreur("configuration".into(), "must be of dict type"),
    }
    if erreurs.is_empty() {
        Ok(())
    } else {
        Err(erreurs)
    }
}

impl ParticipationPlateforme {
    /// Le document tel que l'insère la création (`participations.insert` : relations en
    /// identifiants).
    fn json_brut(&self) -> Value {
        let mut o = json!({
            "_id": self.id,
            "observateur": self.observateur,
            "site": self.site,
            "protocole": self.protocole,
            "date_debut": self.date_debut,
        });
        self.meta.ecrire(&mut o);
        for (champ, valeur) in [
            ("date_fin", self.date_fin.as_ref().map(|v| json!(v))),
            ("point", self.point.as_ref().map(|v| json!(v))),
            ("commentaire", self.commentaire.as_ref().map(|v| json!(v))),
            ("meteo", self.meteo.clone()),
            ("configuration", self.configuration.clone()),
        ] {
            if let Some(v) = valeur {
                o[champ] = v;
            }
        }
        if let Some(c) = &self.traitement {
            c.ecrire_brut(&mut o);
        }
        o
    }

    /// Le document relu (`find_one`, `find`) : relations développées (`xin/schema.py`
    /// `Unserializer._run_attribute_data_relation`), champs cachés retirés.
    fn json_developpe(&self, sites: &[Site]) -> Value {
        let mut o = self.json_brut();
        if let Some(u) = utilisateur(&self.observateur) {
            o["observateur"] = u.json(false);
        }
        if let Some(s) = sites.iter().find(|s| s.id == self.site) {
            o["site"] = s.json();
        }
        if let Some(p) = protocole(self.protocole) {
            o["protocole"] = p.json();
        }
        o
    }
}

impl FichierPlateforme {
    /// Le document brut (`insert`, `get_resource`) : relations en identifiants.
    fn json_brut(&self) -> Value {
        let mut o = json!({
            "_id": self.id,
            "titre": self.titre,
            "mime": self.mime,
            "proprietaire": self.proprietaire,
            "disponible": self.disponible,
            "s3_id": self.cle,
        });
        self.meta.ecrire(&mut o);
        if let Some(id) = &self.id_envoi {
            o["s3_upload_multipart_id"] = json!(id);
        }
        if let Some(p) = &self.participation {
            o["lien_participation"] = json!(p);
        }
        o
    }

    /// Le document relu (`find_one`, `update`) : propriétaire et participation développés.
    fn json_developpe(&self, participations: &[ParticipationPlateforme]) -> Value {
        let mut o = self.json_brut();
        if let Some(u) = utilisateur(&self.proprietaire) {
            o["proprietaire"] = u.json(false);
        }
        if let Some(p) = self
            .participation
            .as_ref()
            .and_then(|id| participations.iter().find(|p| &p.id == id))
        {
            o["lien_participation"] = p.json_brut();
        }
        o
    }
}

impl Vigiechiro {
    /// `stockage` : un clone de la plateforme S3 du bac à sable ; `base` : `http://127.0.0.1:PORT`.
    pub(crate) fn nouveau(stockage: Plateforme, base: String) -> Vigiechiro {
        let maintenant = SystemTime::now();
        let mut jetons = HashMap::new();
        jetons.insert(JETON.to_owned(), (OBSERVATEUR, maintenant + DUREE_JETON));
        jetons.insert(
            JETON_NON_VALIDE.to_owned(),
            (OBSERVATEUR_NON_VALIDE, maintenant + DUREE_JETON),
        );
        jetons.insert(
            JETON_AUTRE.to_owned(),
            (OBSERVATEUR_AUTRE, maintenant + DUREE_JETON),
        );
        let essai = ParticipationPlateforme {
            id: PARTICIPATION.to_owned(),
            site: SITE.to_owned(),
            observateur: OBSERVATEUR.to_owned(),
            point: Some("A1".to_owned()),
            date_debut: "2026-06-21T20:00:00".to_owned(),
            date_fin: Some("2026-06-22T04:00:00".to_owned()),
            meteo: None,
            configuration: None,
            commentaire: Some("participation d'essai du bac à sable".to_owned()),
            traitement: None,
            calculs_lances: 0,
            protocole: PROTOCOLE,
            meta: Meta::neuve(),
        };
        let autre = ParticipationPlateforme {
            id: PARTICIPATION_AUTRE.to_owned(),
            site: SITE_AUTRE.to_owned(),
            observateur: OBSERVATEUR_AUTRE.to_owned(),
            point: Some("B1".to_owned()),
            commentaire: Some("participation d'un autre observateur".to_owned()),
            meta: Meta::neuve(),
            ..essai.clone()
        };
        let regionale = ParticipationPlateforme {
            id: PARTICIPATION_REGIONALE.to_owned(),
            site: SITE_REGIONAL.to_owned(),
            observateur: OBSERVATEUR.to_owned(),
            commentaire: Some("participation sur le site régional d'un autre".to_owned()),
            meta: Meta::neuve(),
            ..essai.clone()
        };
        Vigiechiro {
            etat: Mutex::new(Etat {
                jetons,
                sites: sites_initiaux(),
                participations: vec![essai, autre, regionale],
                fichiers: Fichiers::default(),
                multipart_refuse: false,
                machine: rand::random::<u64>(),
                compteur: rand::random::<u32>(),
                reglages_calcul: ReglagesCalcul::default(),
                reglages_calcul_de: HashMap::new(),
                csv_demandes: Vec::new(),
                courriels_csv: Vec::new(),
            }),
            tour: tokio::sync::Mutex::new(()),
            stockage,
            base,
        }
    }

    fn etat(&self) -> MutexGuard<'_, Etat> {
        // L'état reste cohérent même si un porteur du verrou a paniqué (mutations atomiques).
        self.etat.lock().unwrap_or_else(PoisonError::into_inner)
    }

    // ------------------------------------------------------------------ inspection

    pub(crate) fn participations(&self, site: &str) -> Vec<ParticipationPlateforme> {
        self.etat()
            .participations
            .iter()
            .filter(|p| p.site == site)
            .cloned()
            .collect()
    }

    pub(crate) fn fichiers(&self) -> Vec<FichierPlateforme> {
        self.etat().fichiers.iter().cloned().collect()
    }

    pub(crate) fn participation(&self, id: &str) -> Option<ParticipationPlateforme> {
        self.etat()
            .participations
            .iter()
            .find(|p| p.id == id)
            .cloned()
    }

    /// Rend le jeton expiré (401 dès la requête suivante). `false` s'il est inconnu.
    pub(crate) fn expirer_jeton(&self, jeton: &str) -> bool {
        match self.etat().jetons.get_mut(jeton) {
            Some((_, fin)) => {
                *fin = UNIX_EPOCH;
                true
            }
            None => false,
        }
    }

    /// Ajoute (ou renouvelle pour 14 jours) un jeton de l'observateur validé.
    pub(crate) fn ajouter_jeton(&self, jeton: &str) {
        self.etat().jetons.insert(
            jeton.to_owned(),
            (OBSERVATEUR, SystemTime::now() + DUREE_JETON),
        );
    }

    /// S3 refuse (ou accepte de nouveau) d'ouvrir tout envoi multipart : la déclaration
    /// multipart rend alors 500 `S3 has rejected file creation request`
    /// (`_s3_create_multipart`), comme sur une plateforme dont le compartiment ne permet plus
    /// ce chemin, qu'aucun client officiel n'emprunte.
    pub(crate) fn refuser_multipart(&self, refuser: bool) {
        self.etat().multipart_refuse = refuser;
    }

    /// URL présignée d'un PUT vers `cle` du compartiment de la plateforme.
    pub(crate) fn url_signee(&self, cle: &str, envoi: Envoi<'_>, expires: u64) -> String {
        signature::url_put(
            &self.base,
            CLE_ACCES,
            SECRET,
            COMPARTIMENT_PLATEFORME,
            cle,
            envoi,
            expires,
        )
    }

    fn url_neuve(&self, cle: &str, envoi: Envoi<'_>) -> String {
        self.url_signee(cle, envoi, expiration_neuve())
    }

    // ------------------------------------------------------------------ requêtes

    /// La « clé » d'une requête d'API pour les règles de pannes et les compteurs : la clé S3
    /// du fichier visé (`POST /fichiers` : calculée depuis le corps ; routes d'un fichier :
    /// celle de l'enregistrement, ou l'id s'il est inconnu), l'id du site ou de la
    /// participation, rien pour `/moi`.
    pub(crate) fn cle_visee(&self, route: &Route, corps: &[u8]) -> Option<String> {
        match route {
            Route::DeclarerFichier => {
                let v: Value = serde_json::from_slice(corps).ok()?;
                let titre = v.get("titre")?.as_str()?;
                let mime = deduire_mime(titre)?;
                let participation = v.get("lien_participation").and_then(Value::as_str);
                Some(cle_pour(mime, titre, participation))
            }
            Route::UrlPartie(id)
            | Route::Finaliser(id)
            | Route::Abandonner(id)
            | Route::LireFichier(id)
            | Route::AccesFichier(id) => Some(
                self.etat()
                    .fichiers
                    .par_id(id)
                    .map_or_else(|| id.clone(), |f| f.cle.clone()),
            ),
            Route::CreerParticipation(s)
            | Route::ListerParticipations(s)
            | Route::LireParticipation(s)
            | Route::ModifierParticipation(s)
            | Route::LireSite(s)
            | Route::Calcul(s)
            | Route::DemanderCsv(s)
            | Route::PiecesJointes(s) => Some(s.clone()),
            Route::Moi
            | Route::MesSites
            | Route::MesParticipations
            | Route::ListeTaxons
            | Route::Introuvable
            | Route::MethodeInterdite => None,
        }
    }

    /// Traite une requête d'API (une à la fois).
    pub(crate) async fn traiter(&self, requete: RequeteApi<'_>) -> ReponseApi {
        let _tour = self.tour.lock().await;
        // Le routage précède l'authentification, comme chez Flask.
        if let Some(r) = refus_de_route(&requete.route) {
            return r;
        }
        let Some(utilisateur) = self.authentifier(requete.entetes) else {
            return ReponseApi::non_authentifie();
        };
        // Les calculs en cours avancent jusqu'à l'heure de la requête.
        self.avancer_calculs().await;
        let r = match &requete.route {
            // `resources/utilisateurs.py` `get_request_user_profile` : courriel montré.
            Route::Moi => Ok(ReponseApi::ok(utilisateur.json(true))),
            Route::CreerParticipation(site) => {
                self.creer_participation(utilisateur, site, &requete)
            }
            Route::ListerParticipations(site) => self.lister_participations(site, &requete),
            Route::LireParticipation(id) => self.lire_participation(id),
            Route::ModifierParticipation(id) => {
                self.modifier_participation(utilisateur, id, &requete)
            }
            Route::LireSite(id) => self.lire_site(id),
            Route::MesSites => self.mes_sites(utilisateur, &requete),
            Route::MesParticipations => self.mes_participations(utilisateur, &requete),
            Route::DeclarerFichier => self.declarer_fichier(utilisateur, &requete).await,
            Route::UrlPartie(id) => self.url_partie(utilisateur, id, &requete),
            Route::Finaliser(id) => self.finaliser(utilisateur, id, &requete).await,
            Route::Abandonner(id) => self.abandonner(utilisateur, id).await,
            Route::LireFichier(id) => self.lire_fichier(utilisateur, id),
            Route::Calcul(id) => self.lancer_calcul(utilisateur, id),
            Route::PiecesJointes(id) => self.lister_pieces_jointes(utilisateur, id, &requete),
            Route::AccesFichier(id) => self.acces_fichier(utilisateur, id, &requete),
            Route::ListeTaxons => Ok(traitement::liste_des_taxons()),
            Route::DemanderCsv(id) => self.demander_csv(utilisateur, id),
            Route::Introuvable | Route::MethodeInterdite => Ok(refus_de_route(&requete.route)
                .unwrap_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404))),
        };
        r.unwrap_or_else(|refus| refus)
    }

    /// `Authorization: Basic base64("<jeton>:")` ; le mot de passe est ignoré.
    fn authentifier(&self, entetes: &HeaderMap) -> Option<&'static Utilisateur> {
        let valeur = entetes
            .get(hyper::header::AUTHORIZATION)?
            .to_str()
            .ok()?
            .trim();
        let (schema, code) = valeur.split_once(' ')?;
        if !schema.eq_ignore_ascii_case("basic") {
            return None;
        }
        let decode = base64_simd::STANDARD.decode_to_vec(code.trim()).ok()?;
        let decode = String::from_utf8(decode).ok()?;
        let jeton = decode.split_once(':').map_or(decode.as_str(), |(j, _)| j);
        let etat = self.etat();
        let (id, fin) = etat.jetons.get(jeton)?;
        if *fin <= SystemTime::now() {
            return None;
        }
        utilisateur(id)
    }

    /// `resources/participations.py` `create_participation`.
    fn creer_participation(
        &self,
        utilisateur: &Utilisateur,
        site: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        const PERMIS: [&str; 6] = [
            "date_debut",
            "date_fin",
            "commentaire",
            "meteo",
            "configuration",
            "point",
        ];
        let charge = charge_utile(requete, Some(&PERMIS))?;
        let Some(site) = self.etat().sites.iter().find(|s| s.id == site).cloned() else {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "site",
                "no site with this id",
            ));
        };
        // `ensure_protocole_joined_and_validated`, sur le protocole du site.
        if let Some(refus) = utilisateur.inscription(site.protocole) {
            return Err(ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, refus));
        }
        valider_participation(&charge, false)
            .map_err(|e| ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(e)))?;
        let texte = |champ: &str| charge.get(champ).and_then(Value::as_str).map(str::to_owned);
        let date = |champ: &str| {
            charge
                .get(champ)
                .and_then(|v| valider_date(v).ok())
                .map(isoformat)
        };
        let mut etat = self.etat();
        let participation = ParticipationPlateforme {
            id: etat.nouvel_id(),
            site: site.id.to_owned(),
            observateur: utilisateur.id.to_owned(),
            point: texte("point"),
            date_debut: date("date_debut").unwrap_or_default(),
            date_fin: date("date_fin"),
            meteo: charge.get("meteo").cloned(),
            configuration: charge.get("configuration").cloned(),
            commentaire: texte("commentaire"),
            traitement: None,
            calculs_lances: 0,
            protocole: site.protocole,
            meta: Meta::neuve(),
        };
        let corps = participation.json_brut();
        etat.participations.push(participation);
        Ok(ReponseApi::json(StatusCode::CREATED, corps))
    }

    /// `resources/participations.py` `list_site_participations` : sans `protocole`, `site`,
    /// `messages`, `logs` ni `bilan`, l'observateur développé. Toutes les participations du
    /// site, de quelque observateur qu'elles soient (la route ne filtre pas sur l'utilisateur).
    /// Sans ordre garanti (`participations.find` sans `sort` : l'ordre naturel de MongoDB) :
    /// le bac à sable rend la plus récente d'abord, pour qu'un client qui se fierait à l'ordre
    /// d'insertion se trompe ici.
    fn lister_participations(
        &self,
        site: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let (page, max) = pagination(requete.parametres)?;
        let etat = self.etat();
        let toutes: Vec<&ParticipationPlateforme> = etat
            .participations
            .iter()
            .filter(|p| p.site == site)
            .rev()
            .collect();
        let total = toutes.len();
        let (debut, nombre) = tranche(page, max);
        let items: Vec<Value> = toutes
            .into_iter()
            .skip(debut)
            .take(nombre)
            .map(|p| {
                let mut o = p.json_developpe(&etat.sites);
                if let Some(o) = o.as_object_mut() {
                    for champ in ["site", "protocole", "messages", "logs", "bilan"] {
                        o.remove(champ);
                    }
                }
                o
            })
            .collect();
        Ok(ReponseApi::ok(json!({
            "_items": items,
            "_meta": { "max_results": max, "total": total, "page": page },
        })))
    }

    /// `resources/sites.py` `display_site` : `find_one`, 404 sans détail ; le protocole
    /// (avec son `type_site`) et l'observateur développés.
    fn lire_site(&self, id: &str) -> Result<ReponseApi, ReponseApi> {
        let etat = self.etat();
        let site = etat
            .sites
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404))?;
        Ok(ReponseApi::ok(site.json_developpe()))
    }

    /// `resources/participations.py` `display_participation` : `find_one`, 404 sans détail.
    /// Aucun contrôle d'accès : tout observateur lit toute participation, son observateur
    /// développé (`_id`, `pseudo`…).
    fn lire_participation(&self, id: &str) -> Result<ReponseApi, ReponseApi> {
        let etat = self.etat();
        let p = etat
            .participations
            .iter()
            .find(|p| p.id == id)
            .ok_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404))?;
        let mut o = p.json_developpe(&etat.sites);
        traitement::developper(&mut o, &etat.fichiers);
        Ok(ReponseApi::ok(o))
    }

    /// `resources/participations.py` `edit_participation` : le propriétaire (ou un
    /// administrateur, que le bac à sable n'a pas) seul (`_check_edit_access` : 403) ; les
    /// champs permis de `get_payload` (422 `invalid field` sinon) ; validés comme une mise à
    /// jour ; puis `participations.update(id, payload)`, c'est-à-dire `$set` de chaque clé
    /// donnée (`xin/resource.py` `_atomic_update`) : `configuration` et `meteo` sont
    /// **remplacées en entier**, et le document reçoit un nouvel `_etag`. `update` est appelé
    /// sans `if_match` : l'en-tête `If-Match` n'est pas lu, une écriture sur une version
    /// dépassée passe (le serveur rejoue lui-même sa mise à jour en cas de course).
    fn modifier_participation(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        const PERMIS: [&str; 7] = [
            "date_debut",
            "date_fin",
            "commentaire",
            "meteo",
            "configuration",
            "bilan",
            "point",
        ];
        let mut etat = self.etat();
        let sites = etat.sites.clone();
        let p = etat
            .participations
            .iter_mut()
            .find(|p| p.id == id)
            .ok_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404))?;
        if p.observateur != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        let charge = charge_utile(requete, Some(&PERMIS))?;
        valider_participation(&charge, true)
            .map_err(|e| ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(e)))?;
        for (cle, v) in charge {
            match cle.as_str() {
                "configuration" => p.configuration = Some(v),
                "meteo" => p.meteo = Some(v),
                "point" => p.point = v.as_str().map(str::to_owned),
                "commentaire" => p.commentaire = v.as_str().map(str::to_owned),
                "date_debut" => {
                    p.date_debut = valider_date(&v).map(isoformat).unwrap_or_default();
                }
                "date_fin" => p.date_fin = valider_date(&v).ok().map(isoformat),
                // `bilan` : écrit par le calcul ; le bac à sable ne le garde pas d'un PATCH.
                _ => {}
            }
        }
        p.meta.toucher();
        Ok(ReponseApi::ok(p.json_developpe(&sites)))
    }

    /// `resources/fichiers.py` `fichier_create`, `_s3_create_singlepart`,
    /// `_s3_create_multipart`.
    async fn declarer_fichier(
        &self,
        utilisateur: &Utilisateur,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let mut charge = charge_utile(requete, None)?;
        let Some(titre) = charge.remove("titre") else {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                "missing field",
            ));
        };
        // `re.match(…, titre)` sur autre chose qu'un texte : `TypeError`, donc 500.
        let Value::String(titre) = titre else {
            return Err(ReponseApi::exception(
                "expected string or bytes-like object",
            ));
        };
        if !RE_TITRE.is_match(&titre) {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                "string contains forbidden characters",
            ));
        }
        let Some(mime) = deduire_mime(&titre) else {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                "unknown file type",
            ));
        };
        let multipart = charge
            .remove("multipart")
            .is_some_and(|v| vrai_en_python(&v));
        let lien_donnee = charge.remove("lien_donnee");
        let lien_participation = charge.remove("lien_participation");
        let lien_protocole = charge.remove("lien_protocole");
        let async_process = charge.remove("_async_process");
        // Un observateur ne choisit pas le propriétaire : `proprietaire` reste, inattendu.
        if let Some(r) = refus_champs_inconnus(&charge) {
            return Err(r);
        }
        if nom_protocole_exige(mime) && !nom_donnee_valide(&titre) {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                format!("invalid name {titre}"),
            ));
        }
        let lien_participation = lien_participation.filter(vrai_en_python);
        // La clé recopie l'identifiant reçu tel quel (`"%s" % lien_participation`).
        let brut = lien_participation.as_ref().map(texte_python);
        let cle = cle_pour(mime, &titre, brut.as_deref());

        // En multipart, l'original ouvre l'envoi S3 avant toute autre vérification.
        let id_envoi = if multipart {
            match self.ouvrir_envoi(&cle, mime).await {
                Ok(id) => Some(id),
                Err(e) => {
                    tracing::warn!(%cle, erreur = %e, "plateforme locale : ouverture d'envoi refusée par S3");
                    return Err(ReponseApi::erreur(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "S3 has rejected file creation request",
                    ));
                }
            }
        } else {
            None
        };

        let mut etat = self.etat();
        let existant = etat.fichiers.par_cle(&cle).cloned();
        let (mut corps, fichier) = match existant {
            Some(f) if f.disponible => {
                return Err(ReponseApi::erreur(
                    StatusCode::CONFLICT,
                    "upload is already done",
                ));
            }
            // Rendu tel quel, relu par `find_one` : relations développées, nature inchangée.
            Some(f) => (f.json_developpe(&etat.participations), f),
            None => {
                // `fichiers.insert(payload)` : validation des relations.
                let mut erreurs = Map::new();
                let participation = match &lien_participation {
                    None => None,
                    Some(v) => match v.as_str().and_then(object_id) {
                        Some(p) if etat.participations.iter().any(|x| x.id == p) => Some(p),
                        Some(p) => {
                            erreurs.insert(
                                "lien_participation".into(),
                                json!(format!(
                                    "value '{p}' must exist in resource 'participations', field '_id'."
                                )),
                            );
                            None
                        }
                        None => {
                            let t = texte_python(v);
                            erreurs.insert(
                                "lien_participation".into(),
                                json!([
                                    "must be of ObjectId type",
                                    format!(
                                        "value '{t}' must exist in resource 'participations', field '_id'."
                                    )
                                ]),
                            );
                            None
                        }
                    },
                };
                if let Some(v) = lien_donnee.filter(vrai_en_python) {
                    // Le bac à sable n'a aucune donnée : toute relation est introuvable.
                    erreurs.insert(
                        "lien_donnee".into(),
                        json!(format!(
                            "value '{}' must exist in resource 'donnees', field '_id'.",
                            texte_python(&v)
                        )),
                    );
                }
                if let Some(v) = lien_protocole.filter(vrai_en_python)
                    && v.as_str()
                        .and_then(object_id)
                        .and_then(|id| protocole(&id))
                        .is_none()
                {
                    erreurs.insert(
                        "lien_protocole".into(),
                        json!(format!(
                            "value '{}' must exist in resource 'protocoles', field '_id'.",
                            texte_python(&v)
                        )),
                    );
                }
                if let Some(v) = async_process.filter(vrai_en_python)
                    && !v.is_string()
                {
                    erreurs.insert("_async_process".into(), json!("must be of string type"));
                }
                if !erreurs.is_empty() {
                    return Err(ReponseApi::erreur(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        Value::Object(erreurs),
                    ));
                }
                let f = FichierPlateforme {
                    id: etat.nouvel_id(),
                    titre: titre.clone(),
                    cle: cle.clone(),
                    participation,
                    proprietaire: utilisateur.id.to_owned(),
                    multipart,
                    disponible: false,
                    mime: mime.to_owned(),
                    id_envoi,
                    meta: Meta::neuve(),
                };
                etat.fichiers.ajouter(f.clone());
                (f.json_brut(), f)
            }
        };
        drop(etat);
        if !multipart {
            // `signed_request is not stored in the database but transfered once`.
            corps["s3_signed_url"] =
                json!(self.url_neuve(&fichier.cle, Envoi::Simple { content_type: mime }));
        }
        Ok(ReponseApi::json(StatusCode::CREATED, corps))
    }

    /// Le fichier `id` (`get_resource` : 404 `… is not a valid fichiers resource`).
    fn fichier(&self, id: &str) -> Result<FichierPlateforme, ReponseApi> {
        self.etat()
            .fichiers
            .par_id(id)
            .cloned()
            .ok_or_else(|| ReponseApi::introuvable(id, "fichiers"))
    }

    /// `resources/fichiers.py` `display_fichier` : le document brut, lisible par son
    /// propriétaire (les observateurs du bac à sable ne publient pas leurs données).
    fn lire_fichier(&self, utilisateur: &Utilisateur, id: &str) -> Result<ReponseApi, ReponseApi> {
        let f = self.fichier(id)?;
        if f.proprietaire != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        Ok(ReponseApi::ok(f.json_brut()))
    }

    /// `resources/fichiers.py` `fichier_multipart_continue`.
    fn url_partie(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let mut charge = charge_utile(requete, None)?;
        let numero = charge.remove("part_number");
        if let Some(r) = refus_champs_inconnus(&charge) {
            return Err(r);
        }
        let Some(numero) = numero.filter(vrai_en_python) else {
            return Err(ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "part_number",
                "missing field",
            ));
        };
        let f = self.fichier(id)?;
        if f.proprietaire != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        let Some(id_envoi) = f.id_envoi.as_deref() else {
            return Err(ReponseApi::erreur(
                StatusCode::UNPROCESSABLE_ENTITY,
                "not a multipart",
            ));
        };
        // L'original signe `partNumber=<str(part_number)>` sans le vérifier : S3 refusera au
        // PUT ce qui n'est pas un numéro de partie. Écart voulu : le bac à sable ne signe que
        // les numéros entiers (ou écrits en chiffres) et refuse les autres dès ici.
        let numero = numero
            .as_u64()
            .or_else(|| numero.as_str().and_then(|s| s.parse().ok()))
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "part_number",
                    "numéro de partie entier attendu (écart du bac à sable)",
                )
            })?;
        let url = self.url_neuve(&f.cle, Envoi::Partie { numero, id_envoi });
        Ok(ReponseApi::ok(json!({ "s3_signed_url": url })))
    }

    /// `resources/fichiers.py` `fichier_upload_done`. Pour un fichier non multipart, la
    /// plateforme **ne vérifie pas** que l'objet est dans S3 (voir
    /// `BacASable::fichiers_disponibles_sans_objet` pour le constater dans un test).
    async fn finaliser(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let f = self.fichier(id)?;
        if f.proprietaire != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        if f.disponible {
            return Err(ReponseApi::erreur(
                StatusCode::CONFLICT,
                "upload is already done",
            ));
        }
        if let Some(id_envoi) = f.id_envoi.as_deref() {
            let charge = charge_utile(requete, None)?;
            let Some(parties) = charge.get("parts") else {
                return Err(ReponseApi::erreur(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "missing field parts",
                ));
            };
            // Ce que Python lève en parcourant une liste qui n'en est pas une.
            let parties = match parties {
                Value::Array(a) => a,
                Value::Object(_) | Value::String(_) => {
                    return Err(ReponseApi::exception(
                        "'str' object has no attribute 'keys'",
                    ));
                }
                autre => {
                    return Err(ReponseApi::exception(format!(
                        "'{}' object is not iterable",
                        nom_de_type_python(autre)
                    )));
                }
            };
            let mut liste = Vec::with_capacity(parties.len());
            let mut malformee = false;
            for p in parties {
                let Some(p) = p.as_object() else {
                    return Err(ReponseApi::exception(format!(
                        "'{}' object has no attribute 'keys'",
                        nom_de_type_python(p)
                    )));
                };
                if p.len() != 2 || !p.contains_key("part_number") || !p.contains_key("etag") {
                    return Err(ReponseApi::erreur(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid parts list",
                    ));
                }
                let numero = p
                    .get("part_number")
                    .and_then(Value::as_i64)
                    .and_then(|n| i32::try_from(n).ok());
                let etag = p.get("etag").map(texte_python);
                match (numero, etag) {
                    (Some(n), Some(e)) => liste.push((n, e)),
                    // L'original transmet tel quel à S3, qui refuse le XML.
                    _ => malformee = true,
                }
            }
            let refus = if malformee {
                Err("error 400 : <Error><Code>MalformedXML</Code></Error>".to_owned())
            } else {
                self.finaliser_envoi(&f.cle, id_envoi, liste).await
            };
            if let Err(e) = refus {
                let url = self.url_neuve(
                    &f.cle,
                    Envoi::Simple {
                        content_type: "application/xml; charset=UTF-8",
                    },
                );
                return Err(ReponseApi::exception(format!(
                    "Error with S3: on {url} {e}"
                )));
            }
        }
        let mut etat = self.etat();
        let Some(enregistre) = etat.fichiers.par_id_mut(id) else {
            return Err(ReponseApi::introuvable(id, "fichiers"));
        };
        enregistre.disponible = true;
        enregistre.meta.toucher();
        let enregistre = enregistre.clone();
        Ok(ReponseApi::ok(
            enregistre.json_developpe(&etat.participations),
        ))
    }

    /// `resources/fichiers.py` `fichier_delete`.
    async fn abandonner(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
    ) -> Result<ReponseApi, ReponseApi> {
        let f = self.fichier(id)?;
        if f.proprietaire != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        if f.disponible {
            return Err(ReponseApi::erreur(
                StatusCode::UNPROCESSABLE_ENTITY,
                "cannot cancel file once upload is done",
            ));
        }
        if let Some(id_envoi) = f.id_envoi.as_deref()
            && let Err(e) = self.abandonner_envoi(&f.cle, id_envoi).await
        {
            let url = self.url_neuve(
                &f.cle,
                Envoi::Partie {
                    numero: 1,
                    id_envoi,
                },
            );
            return Err(ReponseApi::exception(format!(
                "S3 has rejected file creation request: on {url} {e}"
            )));
        }
        self.etat().fichiers.retirer_id(id);
        Ok(ReponseApi {
            statut: StatusCode::NO_CONTENT,
            corps: None,
            entetes: Vec::new(),
        })
    }

    // ------------------------------------------------------------------ S3 direct

    async fn ouvrir_envoi(&self, cle: &str, mime: &str) -> Result<String, String> {
        if self.etat().multipart_refuse {
            return Err("AccessDenied (refus simulé par le bac à sable)".to_owned());
        }
        let input = CreateMultipartUploadInput::builder()
            .bucket(COMPARTIMENT_PLATEFORME.to_owned())
            .key(cle.to_owned())
            .content_type(Some(mime.to_owned()))
            .build()
            .map_err(|e| format!("{e:?}"))?;
        let rep = self
            .stockage
            .create_multipart_upload(requete_s3(input))
            .await
            .map_err(|e| decrire_erreur_s3(&e))?;
        rep.output
            .upload_id
            .ok_or_else(|| "S3 n'a pas rendu d'identifiant d'envoi".to_owned())
    }

    async fn finaliser_envoi(
        &self,
        cle: &str,
        id_envoi: &str,
        parties: Vec<(i32, String)>,
    ) -> Result<(), String> {
        let parts = parties
            .into_iter()
            .map(|(n, etag)| CompletedPart {
                part_number: Some(n),
                e_tag: Some(ETag::Strong(etag.trim_matches('"').to_owned())),
                ..Default::default()
            })
            .collect();
        let input = CompleteMultipartUploadInput::builder()
            .bucket(COMPARTIMENT_PLATEFORME.to_owned())
            .key(cle.to_owned())
            .upload_id(id_envoi.to_owned())
            .multipart_upload(Some(CompletedMultipartUpload { parts: Some(parts) }))
            .build()
            .map_err(|e| format!("{e:?}"))?;
        let mut rep = self
            .stockage
            .complete_multipart_upload(requete_s3(input))
            .await
            .map_err(|e| decrire_erreur_s3(&e))?;
        // Le résultat peut passer par le futur « keep-alive » de s3s : l'attendre.
        if let Some(futur) = rep.output.future.take() {
            futur.await.map_err(|e| decrire_erreur_s3(&e))?;
        }
        Ok(())
    }

    async fn abandonner_envoi(&self, cle: &str, id_envoi: &str) -> Result<(), String> {
        let input = AbortMultipartUploadInput::builder()
            .bucket(COMPARTIMENT_PLATEFORME.to_owned())
            .key(cle.to_owned())
            .upload_id(id_envoi.to_owned())
            .build()
            .map_err(|e| format!("{e:?}"))?;
        self.stockage
            .abort_multipart_upload(requete_s3(input))
            .await
            .map(|_| ())
            .map_err(|e| decrire_erreur_s3(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_mime_de_l_original() {
        let cas = [
            ("a.wav", Some("audio/wav")),
            ("a.ta", Some("application/ta")),
            ("a.tac", Some("application/tac")),
            ("a.tc", Some("application/tc")),
            ("a.tcc", Some("application/tcc")),
            ("a.zip", Some("application/zip")),
            ("a.zip.001", Some("application/zip")),
            ("a.z01", Some("application/zip")),
            ("a.png", Some("image/png")),
            ("a.WAV", None),
            ("a.Wav", None),
            ("a.mp3", None),
            ("sans-extension", None),
        ];
        for (titre, attendu) in cas {
            assert_eq!(deduire_mime(titre), attendu, "{titre}");
        }
    }

    #[test]
    fn noms_des_protocoles() {
        // `validate_donnee_name` : chaque règle, le cas limite de chaque côté.
        for bon in [
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass01-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass12-Z3-x_20140702_224038_761.ta",
            "Car170517-2014-Pass1-Z10-x_20140702_224038_761.tac",
            "Cir270-2014-Pass1-Tron1-Chiro_0_00018_000.wav",
            "Cir270-2014-Pass2-Tron10-Chiro_18_000.tc",
            "Cir270-2014-Pass2-Tron01-Chiro_1_18_000.tcc",
        ] {
            assert!(nom_donnee_valide(bon), "{bon}");
        }
        for mauvais in [
            "Car170517-2014-Pass0-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass00-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass123-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-Z0-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-Z01-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-I1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.mp3",
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038.wav",
            "Car-Pass0-x-2014-Pass1-C1-OB_20140702_224038_761.wav",
            "Cir270-2014-Pass1-Tron0-Chiro_0_00018_000.wav",
            "Cir270-2014-Pass1-Tron123-Chiro_0_00018_000.wav",
            "Cir270-2014-Pass1-Tron1-Chiro_2_00018_000.wav",
            "nuit.wav",
        ] {
            assert!(!nom_donnee_valide(mauvais), "{mauvais}");
        }
    }

    #[test]
    fn dates_comme_strptime_et_isoformat() {
        let i = strptime_rfc1123("Sun, 21 Jun 2026 21:30:00 GMT").expect("date");
        assert_eq!(isoformat(i), "2026-06-21T21:30:00");
        // `strptime` : casse indifférente, espaces multiples, chiffres seuls, jour de la
        // semaine non vérifié.
        for meme in [
            "sun, 21 jun 2026 21:30:00 gmt",
            "Mon,  21 Jun 2026 21:30:00   GMT",
            "Sun, 21 Jun 2026 21:30:0 GMT",
        ] {
            assert_eq!(strptime_rfc1123(meme), Some(i), "{meme}");
        }
        assert_eq!(
            strptime_rfc1123("Sun, 1 Feb 2026 9:05:07 GMT").map(isoformat),
            Some("2026-02-01T09:05:07".into())
        );
        for refuse in [
            "2026-06-21T21:30:00Z",
            "2026-06-21T21:30:00",
            "Sun, 21 Jun 2026 21:30:00",
            "Sun, 21 Jun 2026 21:30:00 UTC",
            "Sun, 21 Jun 2026 21:30:00 +0000",
            "Sunday, 21 Jun 2026 21:30:00 GMT",
            "Sun, 31 Jun 2026 21:30:00 GMT",
            "Sun, 29 Feb 2026 21:30:00 GMT",
            "Sun, 21 Jun 2026 24:00:00 GMT",
            "Sun, 21 Jun 2026 21:30:60 GMT",
            "",
        ] {
            assert_eq!(strptime_rfc1123(refuse), None, "{refuse:?}");
        }
        assert_eq!(
            strptime_rfc1123("Tue, 29 Feb 2000 00:00:00 GMT").map(isoformat),
            Some("2000-02-29T00:00:00".into())
        );
        assert_eq!(isoformat(0), "1970-01-01T00:00:00");
    }

    #[test]
    fn erreurs_a_la_maniere_de_make_json_error() {
        let r = ReponseApi::erreur_champ(
            StatusCode::UNPROCESSABLE_ENTITY,
            "date_debut",
            "must be of datetime type",
        );
        assert_eq!(
            r.corps,
            Some(json!({
                "_status": "422 Unprocessable Entity: {'date_debut': 'must be of datetime type'}",
                "_errors": { "date_debut": "must be of datetime type" },
            }))
        );
        let r = ReponseApi::erreur(StatusCode::CONFLICT, "upload is already done");
        assert_eq!(
            r.corps
                .and_then(|c| c["_status"].as_str().map(str::to_owned)),
            Some("409 Conflict: upload is already done".into())
        );
        let r = ReponseApi::exception("Error with S3");
        assert_eq!(r.statut, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(r.corps, Some(json!({ "_status": "Error with S3" })));
        assert!(vrai_en_python(&json!("x")) && !vrai_en_python(&json!("")));
        assert!(!vrai_en_python(&json!(0)) && vrai_en_python(&json!([1])));
        assert_eq!(texte_python(&json!(12)), "12");
    }

    #[test]
    fn cles_selon_le_type() {
        assert_eq!(
            cle_fichier(PARTICIPATION, "a.zip.002").as_deref(),
            Some("zip/pa-64a1b2c3d4e5f60718293d01/a.zip.002")
        );
        assert_eq!(cle_fichier("p", "x.tac").as_deref(), Some("ta/pa-p/x.tac"));
        assert_eq!(cle_fichier("p", "x.tcc").as_deref(), Some("tc/pa-p/x.tcc"));
        assert_eq!(cle_fichier("p", "x.WAV"), None);
        assert_eq!(cle_pour("audio/wav", "x.wav", None), "wav/x.wav");
    }

    #[test]
    fn routes() {
        let id = "64a1b2c3d4e5f60718293e01";
        assert_eq!(Route::analyser(&Method::GET, "/api/v1/moi"), Route::Moi);
        assert_eq!(
            Route::analyser(&Method::GET, "/api/v1/moi/"),
            Route::Introuvable
        );
        assert_eq!(
            Route::analyser(&Method::POST, &format!("/api/v1/fichiers/{id}")),
            Route::Finaliser(id.to_owned())
        );
        assert_eq!(
            Route::analyser(&Method::PUT, &format!("/api/v1/fichiers/{id}")),
            Route::MethodeInterdite
        );
        assert_eq!(
            Route::analyser(&Method::GET, "/api/v1/fichiers/ABC"),
            Route::Introuvable
        );
        // Un ObjectId en majuscules est accepté, rendu en minuscules.
        assert_eq!(
            Route::analyser(
                &Method::GET,
                &format!("/api/v1/fichiers/{}", id.to_uppercase())
            ),
            Route::LireFichier(id.to_owned())
        );
        assert_eq!(
            Route::analyser(&Method::GET, &format!("/api/v1/participations/{id}")),
            Route::LireParticipation(id.to_owned())
        );
        assert_eq!(
            Route::analyser(&Method::PUT, &format!("/api/v1/participations/{id}")),
            Route::MethodeInterdite
        );
        assert_eq!(
            Route::analyser(&Method::GET, "/api/v2/moi"),
            Route::Introuvable
        );
        assert!(est_chemin_api("/api/v1/moi") && est_chemin_api("/api"));
        assert!(!est_chemin_api("/apis/x") && !est_chemin_api("/nuits/api"));
    }

    #[test]
    fn pagination_de_l_original() {
        assert_eq!(pagination(None).ok(), Some((1, 20)));
        assert_eq!(
            pagination(Some("page=3&max_results=50")).ok(),
            Some((3, 50))
        );
        assert_eq!(pagination(Some("max_results=0")).ok(), Some((1, 0)));
        assert_eq!(
            pagination(Some("page=9223372036854775807&max_results=100")).ok(),
            Some((i64::MAX, 100))
        );
        for mauvais in [
            "page=0",
            "page=-9223372036854775808",
            "max_results=101",
            "page=x",
            "max_results=-1",
        ] {
            let r = pagination(Some(mauvais)).expect_err(mauvais);
            assert_eq!(r.statut, StatusCode::UNPROCESSABLE_ENTITY, "{mauvais}");
        }
    }

    #[test]
    fn ids_d_allure_object_id() {
        let mut etat = Etat {
            jetons: HashMap::new(),
            sites: Vec::new(),
            participations: Vec::new(),
            fichiers: Fichiers::default(),
            multipart_refuse: false,
            machine: u64::MAX,
            compteur: 0xFF_FFFF,
            reglages_calcul: ReglagesCalcul::default(),
            reglages_calcul_de: HashMap::new(),
            csv_demandes: Vec::new(),
            courriels_csv: Vec::new(),
        };
        let a = etat.nouvel_id();
        let b = etat.nouvel_id();
        assert!(
            object_id(&a).is_some() && object_id(&b).is_some(),
            "{a} {b}"
        );
        assert_ne!(a, b);
        for c in [SITE, SITE_NON_VERROUILLE, PARTICIPATION, OBSERVATEUR] {
            assert_eq!(object_id(c).as_deref(), Some(c));
        }
    }
}
