//! La plateforme Vigie-Chiro locale : l'API JSON (`/api/v1/…`) servie par le même serveur et
//! sur le même port que le S3 du bac à sable, qui la porte.
//!
//! Pourquoi : la vraie plateforme (`Scille/vigiechiro-api`, Python/Eve) n'est pas joignable
//! depuis nos machines, et ses pièges font l'essentiel de la difficulté du dépôt : création de
//! participation non idempotente, envoi multipart S3 orphelin quand on redéclare un fichier,
//! `409 upload is already done` quand on rejoue une finalisation réussie, `Content-Type` signé
//! dans l'URL d'un PUT simple et interdit sur un PUT de partie. Les tests de `vigie` doivent les
//! rencontrer ici tels quels (`../shared/PLATEFORME-VIGIECHIRO.md`, le contrat commun avec le
//! client). La couche de pannes et les compteurs du bac à sable s'appliquent à l'API comme à S3
//! (voir `service.rs`).
//!
//! Comportement, route par route (base : `http://127.0.0.1:PORT/api/v1`) ; toutes les routes
//! exigent `Authorization: Basic base64("<jeton>:")` (401 sinon, jeton expiré compris) ; les
//! erreurs sont du JSON `{"_error": …}`, une chaîne ou, pour une erreur de champ comme chez
//! Eve, un objet `{"champ": "message"}` :
//! - `GET /moi` → 200 `{"_id", "pseudo", "email", "role", "donnees_publiques"}` ;
//! - `POST /sites/{site}/participations` `{date_debut, date_fin?, point?, meteo?, configuration?,
//!   commentaire?}` → 201 avec la participation. Chaque POST en crée une. 422 : site inconnu,
//!   non verrouillé ou d'un autre observateur, observateur non validé, point inconnu du site,
//!   date absente ou mal formée, champ inconnu ;
//! - `GET /sites/{site}/participations[?page=P&max_results=M]` → `{"_items": […], "_meta":
//!   {"page", "max_results", "total"}}`, **paginé comme l'original** (20 par page par défaut,
//!   100 au plus, `max_results=0` = tout), dans l'ordre de création ;
//! - `POST /fichiers` `{titre, multipart?, lien_participation?}` → 201 `{"_id", "mime",
//!   "s3_signed_url"}` (simple) ou `{"_id"}` (multipart) ; voir [`Vigiechiro`] pour les pièges ;
//! - `PUT /fichiers/{id}/multipart` `{part_number}` → 200 `{"s3_signed_url"}` ;
//! - `POST /fichiers/{id}` `{}` ou `{"parts": [{"part_number", "etag"}…]}` → 200 avec le
//!   fichier (`"disponible": true`) ; déjà finalisé → 409 `{"_error": "upload is already done"}` ;
//! - `DELETE /fichiers/{id}` → 204 (l'envoi multipart S3 est abandonné) ; finalisé → 422 ;
//! - `POST /participations/{id}/compute` → 200 `{}` ; relancé dans les 24 h → 400
//!   `{"_error": "Already PLANIFIE"}` ;
//! - `GET /fichiers/{id}` → 200 avec le fichier.
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
//! envoi multipart, présence d'un objet) vont droit au stockage : ils ne passent ni par les
//! pannes ni par les compteurs, qui ne voient que le client (sous les opérations `Api…`).
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
    CompletedPart, CreateMultipartUploadInput, ETag, HeadObjectInput,
};
use s3s::{S3Error, S3Request};
use serde_json::{Map, Value, json};

use super::plateforme::Plateforme;
use super::signature::{self, Envoi};
use super::{CLE_ACCES, Operation, RetryAfter, SECRET};

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
/// Un site de l'observateur validé, **non verrouillé** : 422 à la création d'une participation.
pub const SITE_NON_VERROUILLE: &str = "64a1b2c3d4e5f60718293c02";
/// Participation d'essai préexistante sur [`SITE`] (point `A1`, nuit du 20 au 21 juin 2026),
/// pour `vigie depot --participation`.
pub const PARTICIPATION: &str = "64a1b2c3d4e5f60718293d01";
/// Compartiment S3 de la plateforme, créé au démarrage.
pub const COMPARTIMENT_PLATEFORME: &str = "vigiechiro-donnees";

const OBSERVATEUR_NON_VALIDE: &str = "64a1b2c3d4e5f60718293a02";
const PROTOCOLE: &str = "64a1b2c3d4e5f60718293b01";
/// Durée de vie d'un jeton (la vraie plateforme : 14 jours).
const DUREE_JETON: Duration = Duration::from_secs(14 * 24 * 3600);
/// Durée de validité d'une URL signée (la vraie plateforme : 10 h).
pub const VALIDITE_URL: Duration = Duration::from_secs(10 * 3600);
/// Un calcul planifié ou en cours depuis moins de 24 h ne se relance pas.
const DELAI_RELANCE_CALCUL: Duration = Duration::from_secs(24 * 3600);
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
static RE_POINT_FIXE: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"^Car.+-[0-9]{4}-Pass[1-9][0-9]?-([A-H][12]|Z[0-9]+)-.*[0-9]{8}_[0-9]{6}_[0-9]{3}$")
});
static RE_ROUTIER: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"^Cir.+-[0-9]{4}-Pass[0-9]+-Tron[0-9]+-Chiro_([01]_)?[0-9]+_[0-9]{3}$")
});
static RE_DATE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$",
    )
});
static RE_OBJECT_ID: LazyLock<Regex> = LazyLock::new(|| regex(r"^[0-9a-f]{24}$"));

/// Le chemin vise-t-il l'API (premier segment `api`) plutôt qu'un compartiment S3 ?
pub(crate) fn est_chemin_api(chemin: &str) -> bool {
    chemin == "/api" || chemin.starts_with("/api/")
}

fn est_object_id(s: &str) -> bool {
    RE_OBJECT_ID.is_match(s)
}

/// Une route de l'API, reconnue sur la méthode et le chemin seuls (avant lecture du corps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Moi,
    CreerParticipation(String),
    ListerParticipations(String),
    DeclarerFichier,
    UrlPartie(String),
    Finaliser(String),
    Abandonner(String),
    LireFichier(String),
    Calcul(String),
    /// Aucune route à ce chemin (ou identifiant qui n'a pas l'allure d'un ObjectId) : 404.
    Introuvable,
    /// Le chemin existe, pas pour cette méthode : 405.
    MethodeInterdite,
}

impl Route {
    /// Comme le routeur de Flask : les identifiants sont des ObjectId (24 hexadécimaux), une
    /// barre finale ne correspond à rien.
    pub(crate) fn analyser(methode: &Method, chemin: &str) -> Route {
        let Some(reste) = chemin.strip_prefix("/api/v1/") else {
            return Route::Introuvable;
        };
        let segments: Vec<&str> = reste.split('/').collect();
        let m = methode;
        match segments.as_slice() {
            ["moi"] => match *m {
                Method::GET => Route::Moi,
                _ => Route::MethodeInterdite,
            },
            ["sites", site, "participations"] if est_object_id(site) => match *m {
                Method::GET => Route::ListerParticipations((*site).to_owned()),
                Method::POST => Route::CreerParticipation((*site).to_owned()),
                _ => Route::MethodeInterdite,
            },
            ["fichiers"] => match *m {
                Method::POST => Route::DeclarerFichier,
                _ => Route::MethodeInterdite,
            },
            ["fichiers", id] if est_object_id(id) => match *m {
                Method::GET => Route::LireFichier((*id).to_owned()),
                Method::POST => Route::Finaliser((*id).to_owned()),
                Method::DELETE => Route::Abandonner((*id).to_owned()),
                _ => Route::MethodeInterdite,
            },
            ["fichiers", id, "multipart"] if est_object_id(id) => match *m {
                Method::PUT => Route::UrlPartie((*id).to_owned()),
                _ => Route::MethodeInterdite,
            },
            ["participations", id, "compute"] if est_object_id(id) => match *m {
                Method::POST => Route::Calcul((*id).to_owned()),
                _ => Route::MethodeInterdite,
            },
            _ => Route::Introuvable,
        }
    }

    pub(crate) fn operation(&self) -> Operation {
        match self {
            Route::Moi => Operation::ApiMoi,
            Route::CreerParticipation(_) => Operation::ApiCreerParticipation,
            Route::ListerParticipations(_) => Operation::ApiListerParticipations,
            Route::DeclarerFichier => Operation::ApiDeclarerFichier,
            Route::UrlPartie(_) => Operation::ApiUrlPartie,
            Route::Finaliser(_) => Operation::ApiFinaliser,
            Route::Abandonner(_) => Operation::ApiAbandonner,
            Route::LireFichier(_) => Operation::ApiLireFichier,
            Route::Calcul(_) => Operation::ApiCalcul,
            Route::Introuvable | Route::MethodeInterdite => Operation::ApiAutre,
        }
    }
}

/// Une participation telle que la plateforme locale la connaît.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipationPlateforme {
    pub id: String,
    pub site: String,
    pub observateur: String,
    pub point: Option<String>,
    /// Chaîne ISO 8601 reçue, rendue telle quelle.
    pub date_debut: String,
    pub date_fin: Option<String>,
    pub meteo: Option<Value>,
    pub configuration: Option<Value>,
    pub commentaire: Option<String>,
    /// État du traitement (`"PLANIFIE"` après un `compute` accepté), et sa date.
    pub traitement: Option<(String, SystemTime)>,
    /// Nombre de `POST /participations/{id}/compute` acceptés (200).
    pub calculs_lances: u32,
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
}

#[derive(Debug, Clone)]
struct Utilisateur {
    id: &'static str,
    pseudo: &'static str,
    email: &'static str,
    valide: bool,
}

const UTILISATEURS: [Utilisateur; 2] = [
    Utilisateur {
        id: OBSERVATEUR,
        pseudo: "Observatrice du bac à sable",
        email: "observatrice@bac-a-sable.invalid",
        valide: true,
    },
    Utilisateur {
        id: OBSERVATEUR_NON_VALIDE,
        pseudo: "Observateur non validé",
        email: "non-valide@bac-a-sable.invalid",
        valide: false,
    },
];

#[derive(Debug, Clone)]
struct Site {
    id: &'static str,
    observateur: &'static str,
    verrouille: bool,
    points: &'static [&'static str],
}

const SITES: [Site; 2] = [
    Site {
        id: SITE,
        observateur: OBSERVATEUR,
        verrouille: true,
        points: &POINTS_SITE,
    },
    Site {
        id: SITE_NON_VERROUILLE,
        observateur: OBSERVATEUR,
        verrouille: false,
        points: &POINTS_SITE,
    },
];

struct Etat {
    /// jeton → (id d'utilisateur, fin de validité)
    jetons: HashMap<String, (&'static str, SystemTime)>,
    participations: Vec<ParticipationPlateforme>,
    fichiers: Vec<FichierPlateforme>,
    /// Octets « machine » d'un ObjectId (40 bits tirés au démarrage) et compteur.
    machine: u64,
    compteur: u32,
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

    fn erreur(statut: StatusCode, message: impl Into<Value>) -> ReponseApi {
        ReponseApi::json(statut, json!({ "_error": message.into() }))
    }

    /// Erreur de champ, à la manière d'Eve : `{"_error": {"champ": "message"}}`.
    fn erreur_champ(statut: StatusCode, champ: &str, message: impl Into<String>) -> ReponseApi {
        let mut m = Map::new();
        m.insert(champ.to_owned(), Value::String(message.into()));
        ReponseApi::erreur(statut, Value::Object(m))
    }

    fn non_authentifie() -> ReponseApi {
        let mut r = ReponseApi::erreur(
            StatusCode::UNAUTHORIZED,
            "Please provide proper credentials",
        );
        r.entetes.push((
            hyper::header::WWW_AUTHENTICATE,
            "Basic realm:\"vigiechiro.xin\"".to_owned(),
        ));
        r
    }

    fn introuvable(id: &str, ressource: &str) -> ReponseApi {
        ReponseApi::erreur(
            StatusCode::NOT_FOUND,
            format!("`{id}` is not a valid {ressource} resource"),
        )
    }

    /// Corps de requête au-delà de [`CORPS_API_MAX`].
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
/// Pièges reproduits de l'original (`resources/fichiers.py`) dans `POST /fichiers` :
/// - le fichier est retrouvé **par sa clé S3** : un enregistrement non finalisé existant est
///   rendu (même `_id`, 201) avec une URL neuve ; finalisé : 409 `upload is already done` ;
/// - en multipart, l'envoi S3 est ouvert **avant** cette recherche : si l'enregistrement
///   existait (finalisé ou non) ou si la participation est refusée ensuite (422), le nouvel
///   envoi reste orphelin et l'identifiant stocké reste l'ancien ;
/// - l'enregistrement rendu garde sa nature : redéclarer en simple un fichier déclaré en
///   multipart rend une URL de PUT simple, mais sa finalisation exigera `parts` (422) ;
///   l'inverse donne 422 `not a multipart` sur `PUT /fichiers/{id}/multipart`.
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

fn decrire_erreur_s3(e: &S3Error) -> String {
    match e.message() {
        Some(m) => format!("{} : {m}", e.code().as_str()),
        None => e.code().as_str().to_owned(),
    }
}

/// Type MIME déduit du titre, comme `detect_mime` de l'original ; `None` : type inconnu.
pub(crate) fn deduire_mime(titre: &str) -> Option<&'static str> {
    if RE_ZIP_DECOUPE.is_match(titre) || RE_Z_NN.is_match(titre) || RE_ZIP.is_match(titre) {
        return Some("application/zip");
    }
    let extension = RE_EXTENSION.captures(titre)?.get(1)?.as_str();
    MIMES.iter().copied().find(|m| m.ends_with(extension))
}

/// Préfixe de clé S3 selon le type MIME.
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

/// Règle de nommage des données (`validate_donnee_name`) : extension permise et nom sans
/// extension conforme au protocole point fixe ou routier/pédestre.
pub(crate) fn nom_donnee_valide(titre: &str) -> bool {
    let Some((base, extension)) = titre.rsplit_once('.') else {
        return false;
    };
    matches!(extension, "wav" | "ta" | "tc" | "tac" | "tcc")
        && (RE_POINT_FIXE.is_match(base) || RE_ROUTIER.is_match(base))
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

fn json_fichier(f: &FichierPlateforme) -> Value {
    let mut o = json!({
        "_id": f.id,
        "titre": f.titre,
        "mime": f.mime,
        "proprietaire": f.proprietaire,
        "disponible": f.disponible,
        "s3_id": f.cle,
    });
    if let Some(id) = &f.id_envoi {
        o["s3_upload_multipart_id"] = json!(id);
    }
    if let Some(p) = &f.participation {
        o["lien_participation"] = json!(p);
    }
    o
}

/// Représentation JSON d'une participation ; `complete` : avec `site` et `protocole` (le
/// listage d'un site les omet, comme l'original).
fn json_participation(p: &ParticipationPlateforme, complete: bool) -> Value {
    let mut o = json!({
        "_id": p.id,
        "observateur": p.observateur,
        "date_debut": p.date_debut,
    });
    if complete {
        o["site"] = json!(p.site);
        o["protocole"] = json!(PROTOCOLE);
    }
    if let Some(v) = &p.date_fin {
        o["date_fin"] = json!(v);
    }
    if let Some(v) = &p.point {
        o["point"] = json!(v);
    }
    if let Some(v) = &p.meteo {
        o["meteo"] = v.clone();
    }
    if let Some(v) = &p.configuration {
        o["configuration"] = v.clone();
    }
    if let Some(v) = &p.commentaire {
        o["commentaire"] = json!(v);
    }
    if let Some((etat, _)) = &p.traitement {
        o["traitement"] = json!({ "etat": etat });
    }
    o
}

/// 404 ou 405 pour une requête qui ne correspond à aucune route.
fn refus_de_route(route: &Route) -> Option<ReponseApi> {
    match route {
        Route::Introuvable => Some(ReponseApi::erreur(
            StatusCode::NOT_FOUND,
            "The requested URL was not found on the server.",
        )),
        Route::MethodeInterdite => Some(ReponseApi::erreur(
            StatusCode::METHOD_NOT_ALLOWED,
            "The method is not allowed for the requested URL.",
        )),
        _ => None,
    }
}

/// `get_payload` de l'original : un objet JSON sous `Content-Type: application/json`, sinon
/// 412 (type) ou 400 (JSON illisible).
fn charge_utile(requete: &RequeteApi<'_>) -> Result<Map<String, Value>, ReponseApi> {
    let json = requete
        .entetes
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    let refus_type = || {
        ReponseApi::erreur(
            StatusCode::PRECONDITION_FAILED,
            "Content-Type is not `application/json`",
        )
    };
    if !json {
        return Err(refus_type());
    }
    match serde_json::from_slice::<Value>(requete.corps) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(refus_type()),
        Err(_) => Err(ReponseApi::erreur(
            StatusCode::BAD_REQUEST,
            "Failed to decode JSON object",
        )),
    }
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

impl Vigiechiro {
    /// `stockage` : un clone de la plateforme S3 du bac à sable ; `base` : `http://127.0.0.1:PORT`.
    pub(crate) fn nouvelle(stockage: Plateforme, base: String) -> Vigiechiro {
        let maintenant = SystemTime::now();
        let mut jetons = HashMap::new();
        jetons.insert(JETON.to_owned(), (OBSERVATEUR, maintenant + DUREE_JETON));
        jetons.insert(
            JETON_NON_VALIDE.to_owned(),
            (OBSERVATEUR_NON_VALIDE, maintenant + DUREE_JETON),
        );
        let essai = ParticipationPlateforme {
            id: PARTICIPATION.to_owned(),
            site: SITE.to_owned(),
            observateur: OBSERVATEUR.to_owned(),
            point: Some("A1".to_owned()),
            date_debut: "2026-06-20T21:00:00Z".to_owned(),
            date_fin: Some("2026-06-21T06:00:00Z".to_owned()),
            meteo: None,
            configuration: None,
            commentaire: Some("participation d'essai du bac à sable".to_owned()),
            traitement: None,
            calculs_lances: 0,
        };
        Vigiechiro {
            etat: Mutex::new(Etat {
                jetons,
                participations: vec![essai],
                fichiers: Vec::new(),
                machine: rand::random::<u64>(),
                compteur: rand::random::<u32>(),
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
        self.etat().fichiers.clone()
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
        let expires = (SystemTime::now() + VALIDITE_URL)
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        self.url_signee(cle, envoi, expires)
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
            | Route::LireFichier(id) => Some(
                self.etat()
                    .fichiers
                    .iter()
                    .find(|f| &f.id == id)
                    .map_or_else(|| id.clone(), |f| f.cle.clone()),
            ),
            Route::CreerParticipation(s) | Route::ListerParticipations(s) | Route::Calcul(s) => {
                Some(s.clone())
            }
            Route::Moi | Route::Introuvable | Route::MethodeInterdite => None,
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
        match &requete.route {
            Route::Moi => ReponseApi::ok(json!({
                "_id": utilisateur.id,
                "pseudo": utilisateur.pseudo,
                "email": utilisateur.email,
                "role": "Observateur",
                "donnees_publiques": false,
            })),
            Route::CreerParticipation(site) => {
                self.creer_participation(&utilisateur, site, &requete)
            }
            Route::ListerParticipations(site) => self.lister_participations(site, &requete),
            Route::DeclarerFichier => self.declarer_fichier(&utilisateur, &requete).await,
            Route::UrlPartie(id) => self.url_partie(&utilisateur, id, &requete),
            Route::Finaliser(id) => self.finaliser(&utilisateur, id, &requete).await,
            Route::Abandonner(id) => self.abandonner(&utilisateur, id).await,
            Route::LireFichier(id) => match self.etat().fichiers.iter().find(|f| &f.id == id) {
                Some(f) => ReponseApi::ok(json_fichier(f)),
                None => ReponseApi::introuvable(id, "fichiers"),
            },
            Route::Calcul(id) => self.lancer_calcul(&utilisateur, id),
            Route::Introuvable | Route::MethodeInterdite => refus_de_route(&requete.route)
                .unwrap_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, "not found")),
        }
    }

    /// `Authorization: Basic base64("<jeton>:")` ; le mot de passe est ignoré.
    fn authentifier(&self, entetes: &HeaderMap) -> Option<Utilisateur> {
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
        UTILISATEURS.iter().find(|u| u.id == *id).cloned()
    }

    fn creer_participation(
        &self,
        utilisateur: &Utilisateur,
        site: &str,
        requete: &RequeteApi<'_>,
    ) -> ReponseApi {
        let charge = match charge_utile(requete) {
            Ok(c) => c,
            Err(r) => return r,
        };
        const PERMIS: [&str; 6] = [
            "date_debut",
            "date_fin",
            "commentaire",
            "meteo",
            "configuration",
            "point",
        ];
        if let Some(k) = charge.keys().find(|k| !PERMIS.contains(&k.as_str())) {
            return ReponseApi::erreur_champ(StatusCode::UNPROCESSABLE_ENTITY, k, "invalid field");
        }
        let Some(site) = SITES.iter().find(|s| s.id == site) else {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "site",
                "no site with this id",
            );
        };
        if !utilisateur.valide {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "protocole",
                "observateur non validé pour le protocole de ce site",
            );
        }
        if site.observateur != utilisateur.id {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "site",
                "observateur doesn't own this site",
            );
        }
        if !site.verrouille {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "site",
                "cannot create protocole on an unlocked site",
            );
        }
        let date = |champ: &str| -> Result<Option<String>, ReponseApi> {
            match charge.get(champ) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if RE_DATE.is_match(s) => Ok(Some(s.clone())),
                Some(_) => Err(ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    champ,
                    "must be of datetime type (ISO 8601)",
                )),
            }
        };
        let date_debut = match date("date_debut") {
            Ok(Some(d)) => d,
            Ok(None) => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "date_debut",
                    "required field",
                );
            }
            Err(r) => return r,
        };
        let date_fin = match date("date_fin") {
            Ok(d) => d,
            Err(r) => return r,
        };
        let texte = |champ: &str| -> Result<Option<String>, ReponseApi> {
            match charge.get(champ) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    champ,
                    "must be of string type",
                )),
            }
        };
        let objet = |champ: &str| -> Result<Option<Value>, ReponseApi> {
            match charge.get(champ) {
                None | Some(Value::Null) => Ok(None),
                Some(v @ Value::Object(_)) => Ok(Some(v.clone())),
                Some(_) => Err(ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    champ,
                    "must be of dict type",
                )),
            }
        };
        let (point, commentaire, meteo, configuration) = match (
            texte("point"),
            texte("commentaire"),
            objet("meteo"),
            objet("configuration"),
        ) {
            (Ok(p), Ok(c), Ok(m), Ok(k)) => (p, c, m, k),
            (Err(r), ..) | (_, Err(r), ..) | (_, _, Err(r), _) | (.., Err(r)) => return r,
        };
        if let Some(p) = &point
            && !site.points.contains(&p.as_str())
        {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "point",
                format!(
                    "point « {p} » inconnu sur ce site (points : {})",
                    site.points.join(", ")
                ),
            );
        }
        let mut etat = self.etat();
        let participation = ParticipationPlateforme {
            id: etat.nouvel_id(),
            site: site.id.to_owned(),
            observateur: utilisateur.id.to_owned(),
            point,
            date_debut,
            date_fin,
            meteo,
            configuration,
            commentaire,
            traitement: None,
            calculs_lances: 0,
        };
        let corps = json_participation(&participation, true);
        etat.participations.push(participation);
        ReponseApi::json(StatusCode::CREATED, corps)
    }

    fn lister_participations(&self, site: &str, requete: &RequeteApi<'_>) -> ReponseApi {
        let (page, max) = match pagination(requete.parametres) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let etat = self.etat();
        let toutes: Vec<&ParticipationPlateforme> = etat
            .participations
            .iter()
            .filter(|p| p.site == site)
            .collect();
        let total = toutes.len();
        let debut = page.saturating_sub(1).saturating_mul(max);
        let (debut, nombre) = match (usize::try_from(debut), usize::try_from(max)) {
            (Ok(d), Ok(0)) => (d, usize::MAX),
            (Ok(d), Ok(n)) => (d, n),
            _ => (0, usize::MAX),
        };
        let items: Vec<Value> = toutes
            .into_iter()
            .skip(debut)
            .take(nombre)
            .map(|p| json_participation(p, false))
            .collect();
        ReponseApi::ok(json!({
            "_items": items,
            "_meta": { "max_results": max, "total": total, "page": page },
        }))
    }

    async fn declarer_fichier(
        &self,
        utilisateur: &Utilisateur,
        requete: &RequeteApi<'_>,
    ) -> ReponseApi {
        let mut charge = match charge_utile(requete) {
            Ok(c) => c,
            Err(r) => return r,
        };
        let titre = match charge.remove("titre") {
            Some(Value::String(t)) => t,
            Some(_) => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "titre",
                    "must be of string type",
                );
            }
            None => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "titre",
                    "missing field",
                );
            }
        };
        if !RE_TITRE.is_match(&titre) {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                "string contains forbidden characters",
            );
        }
        let Some(mime) = deduire_mime(&titre) else {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                "unknown file type",
            );
        };
        let multipart = match charge.remove("multipart") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(_) => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "multipart",
                    "must be of boolean type",
                );
            }
        };
        let participation = match charge.remove("lien_participation") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) if est_object_id(&p) => Some(p),
            Some(_) => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "lien_participation",
                    "must be of objectid type",
                );
            }
        };
        for ignore in ["lien_donnee", "lien_protocole", "_async_process"] {
            charge.remove(ignore);
        }
        if !charge.is_empty() {
            let inconnus: Map<String, Value> = charge
                .keys()
                .map(|k| (k.clone(), Value::String("unknown field".to_owned())))
                .collect();
            return ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(inconnus));
        }
        if nom_protocole_exige(mime) && !nom_donnee_valide(&titre) {
            return ReponseApi::erreur_champ(
                StatusCode::UNPROCESSABLE_ENTITY,
                "titre",
                format!("invalid name {titre}"),
            );
        }
        let cle = cle_pour(mime, &titre, participation.as_deref());

        // En multipart, l'original ouvre l'envoi S3 avant toute autre vérification.
        let id_envoi = if multipart {
            match self.ouvrir_envoi(&cle, mime).await {
                Ok(id) => Some(id),
                Err(e) => {
                    tracing::warn!(%cle, erreur = %e, "plateforme locale : ouverture d'envoi refusée par S3");
                    return ReponseApi::erreur(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "S3 has rejected file creation request",
                    );
                }
            }
        } else {
            None
        };

        let mut etat = self.etat();
        let existant = etat.fichiers.iter().find(|f| f.cle == cle).cloned();
        let fichier = match existant {
            Some(f) if f.disponible => {
                return ReponseApi::erreur(StatusCode::CONFLICT, "upload is already done");
            }
            Some(f) => f,
            None => {
                if let Some(p) = &participation {
                    match etat.participations.iter().find(|x| &x.id == p) {
                        None => {
                            return ReponseApi::erreur_champ(
                                StatusCode::UNPROCESSABLE_ENTITY,
                                "lien_participation",
                                format!(
                                    "value '{p}' must exist in resource 'participations', field '_id'."
                                ),
                            );
                        }
                        Some(x) if x.observateur != utilisateur.id => {
                            return ReponseApi::erreur_champ(
                                StatusCode::UNPROCESSABLE_ENTITY,
                                "lien_participation",
                                "fichier and participation must have the same owner",
                            );
                        }
                        Some(_) => {}
                    }
                }
                let f = FichierPlateforme {
                    id: etat.nouvel_id(),
                    titre: titre.clone(),
                    cle: cle.clone(),
                    participation: participation.clone(),
                    proprietaire: utilisateur.id.to_owned(),
                    multipart,
                    disponible: false,
                    mime: mime.to_owned(),
                    id_envoi,
                };
                etat.fichiers.push(f.clone());
                f
            }
        };
        drop(etat);
        if multipart {
            ReponseApi::json(StatusCode::CREATED, json!({ "_id": fichier.id }))
        } else {
            let url = self.url_neuve(&fichier.cle, Envoi::Simple { content_type: mime });
            ReponseApi::json(
                StatusCode::CREATED,
                json!({ "_id": fichier.id, "mime": mime, "s3_signed_url": url }),
            )
        }
    }

    /// Le fichier `id`, s'il existe et appartient à l'utilisateur (404, 403 sinon).
    fn fichier_de(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
    ) -> Result<FichierPlateforme, ReponseApi> {
        let f = self
            .etat()
            .fichiers
            .iter()
            .find(|f| f.id == id)
            .cloned()
            .ok_or_else(|| ReponseApi::introuvable(id, "fichiers"))?;
        if f.proprietaire != utilisateur.id {
            return Err(ReponseApi::erreur(StatusCode::FORBIDDEN, "Forbidden"));
        }
        Ok(f)
    }

    fn url_partie(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> ReponseApi {
        let mut charge = match charge_utile(requete) {
            Ok(c) => c,
            Err(r) => return r,
        };
        let numero = charge.remove("part_number");
        if !charge.is_empty() {
            let inconnus: Map<String, Value> = charge
                .keys()
                .map(|k| (k.clone(), Value::String("unknown field".to_owned())))
                .collect();
            return ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(inconnus));
        }
        let numero = match numero {
            None | Some(Value::Null) => {
                return ReponseApi::erreur_champ(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "part_number",
                    "missing field",
                );
            }
            Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
                Some(n) if (1..=10_000).contains(&n) => n,
                _ => {
                    return ReponseApi::erreur_champ(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "part_number",
                        "entier de 1 à 10000 attendu",
                    );
                }
            },
        };
        let f = match self.fichier_de(utilisateur, id) {
            Ok(f) => f,
            Err(r) => return r,
        };
        let Some(id_envoi) = f.id_envoi.as_deref() else {
            return ReponseApi::erreur(StatusCode::UNPROCESSABLE_ENTITY, "not a multipart");
        };
        let url = self.url_neuve(&f.cle, Envoi::Partie { numero, id_envoi });
        ReponseApi::ok(json!({ "s3_signed_url": url }))
    }

    async fn finaliser(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> ReponseApi {
        let f = match self.fichier_de(utilisateur, id) {
            Ok(f) => f,
            Err(r) => return r,
        };
        if f.disponible {
            return ReponseApi::erreur(StatusCode::CONFLICT, "upload is already done");
        }
        match f.id_envoi.as_deref() {
            Some(id_envoi) => {
                let charge = match charge_utile(requete) {
                    Ok(c) => c,
                    Err(r) => return r,
                };
                let Some(parties) = charge.get("parts") else {
                    return ReponseApi::erreur(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "missing field parts",
                    );
                };
                let Some(parties) = parties.as_array() else {
                    return ReponseApi::erreur(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid parts list",
                    );
                };
                let mut liste = Vec::with_capacity(parties.len());
                for p in parties {
                    let Some(p) = p.as_object() else {
                        return ReponseApi::erreur(
                            StatusCode::UNPROCESSABLE_ENTITY,
                            "invalid parts list",
                        );
                    };
                    if p.len() != 2 || !p.contains_key("part_number") || !p.contains_key("etag") {
                        return ReponseApi::erreur(
                            StatusCode::UNPROCESSABLE_ENTITY,
                            "invalid parts list",
                        );
                    }
                    let numero = p
                        .get("part_number")
                        .and_then(Value::as_i64)
                        .and_then(|n| i32::try_from(n).ok());
                    let etag = match p.get("etag") {
                        Some(Value::String(s)) => Some(s.clone()),
                        Some(Value::Number(n)) => Some(n.to_string()),
                        _ => None,
                    };
                    let (Some(numero), Some(etag)) = (numero, etag) else {
                        // L'original transmet tel quel à S3, qui refuse : 500.
                        return ReponseApi::erreur(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "Error with S3: MalformedXML",
                        );
                    };
                    liste.push((numero, etag));
                }
                if let Err(e) = self.finaliser_envoi(&f.cle, id_envoi, liste).await {
                    return ReponseApi::erreur(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("Error with S3: {e}"),
                    );
                }
            }
            None => {
                // Vérification propre au bac à sable (l'original ne la fait pas) : finaliser
                // sans avoir déposé les octets est un bogue du client, qu'on veut voir.
                if !self.objet_existe(&f.cle).await {
                    return ReponseApi::erreur(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        format!(
                            "aucun objet S3 à la clé « {} » : faire le PUT sur l'URL signée avant de finaliser (vérification du bac à sable)",
                            f.cle
                        ),
                    );
                }
            }
        }
        let mut etat = self.etat();
        let Some(enregistre) = etat.fichiers.iter_mut().find(|x| x.id == id) else {
            return ReponseApi::introuvable(id, "fichiers");
        };
        enregistre.disponible = true;
        ReponseApi::ok(json_fichier(enregistre))
    }

    async fn abandonner(&self, utilisateur: &Utilisateur, id: &str) -> ReponseApi {
        let f = match self.fichier_de(utilisateur, id) {
            Ok(f) => f,
            Err(r) => return r,
        };
        if f.disponible {
            return ReponseApi::erreur(
                StatusCode::UNPROCESSABLE_ENTITY,
                "cannot cancel file once upload is done",
            );
        }
        if let Some(id_envoi) = f.id_envoi.as_deref()
            && let Err(e) = self.abandonner_envoi(&f.cle, id_envoi).await
        {
            return ReponseApi::erreur(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("S3 has rejected file creation request: {e}"),
            );
        }
        self.etat().fichiers.retain(|x| x.id != id);
        ReponseApi {
            statut: StatusCode::NO_CONTENT,
            corps: None,
            entetes: Vec::new(),
        }
    }

    fn lancer_calcul(&self, utilisateur: &Utilisateur, id: &str) -> ReponseApi {
        let mut etat = self.etat();
        let Some(p) = etat.participations.iter_mut().find(|p| p.id == id) else {
            return ReponseApi::introuvable(id, "participations");
        };
        if p.observateur != utilisateur.id {
            return ReponseApi::erreur(StatusCode::FORBIDDEN, "Forbidden");
        }
        let maintenant = SystemTime::now();
        if let Some((etat_calcul, depuis)) = &p.traitement
            && matches!(etat_calcul.as_str(), "PLANIFIE" | "EN_COURS")
            && maintenant
                .duration_since(*depuis)
                .is_ok_and(|d| d < DELAI_RELANCE_CALCUL)
        {
            return ReponseApi::erreur(StatusCode::BAD_REQUEST, format!("Already {etat_calcul}"));
        }
        p.traitement = Some(("PLANIFIE".to_owned(), maintenant));
        p.calculs_lances += 1;
        ReponseApi::ok(json!({}))
    }

    // ------------------------------------------------------------------ S3 direct

    async fn ouvrir_envoi(&self, cle: &str, mime: &str) -> Result<String, String> {
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

    async fn objet_existe(&self, cle: &str) -> bool {
        let Ok(input) = HeadObjectInput::builder()
            .bucket(COMPARTIMENT_PLATEFORME.to_owned())
            .key(cle.to_owned())
            .build()
        else {
            return false;
        };
        self.stockage.head_object(requete_s3(input)).await.is_ok()
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
        for bon in [
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass12-Z3-x_20140702_224038_761.ta",
            "Cir270-2014-Pass1-Tron1-Chiro_0_00018_000.wav",
            "Cir270-2014-Pass2-Tron10-Chiro_18_000.tc",
        ] {
            assert!(nom_donnee_valide(bon), "{bon}");
        }
        for mauvais in [
            "Car170517-2014-Pass0-C1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-I1-OB-1_20140702_224038_761.wav",
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.mp3",
            "Car170517-2014-Pass1-C1-OB-1_20140702_224038.wav",
            "Cir270-2014-Pass1-Tron1-Chiro_2_00018_000.wav",
            "nuit.wav",
        ] {
            assert!(!nom_donnee_valide(mauvais), "{mauvais}");
        }
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
            participations: Vec::new(),
            fichiers: Vec::new(),
            machine: u64::MAX,
            compteur: 0xFF_FFFF,
        };
        let a = etat.nouvel_id();
        let b = etat.nouvel_id();
        assert!(est_object_id(&a) && est_object_id(&b), "{a} {b}");
        assert_ne!(a, b);
        for c in [SITE, SITE_NON_VERROUILLE, PARTICIPATION, OBSERVATEUR] {
            assert!(est_object_id(c), "{c}");
        }
    }
}
