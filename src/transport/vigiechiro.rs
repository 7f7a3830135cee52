//! Le transport Vigie-Chiro : l'API de la plateforme et les PUT vers ses URL S3 signées
//! (reqwest), chaque réponse classée en [`ReponseApi`] à un seul endroit ([`classer_reponse`],
//! [`classer_erreur`]). Le protocole est décrit dans `docs/plateforme-vigiechiro.md` ; le code du
//! serveur (`Scille/vigiechiro-api`) fait foi.
//!
//! Pièges tenus ici :
//! - les erreurs se lisent dans `_errors` (texte ou `{champ: message}`), à défaut `_status`
//!   (`app.py` `make_json_error`) ; les dates partent en RFC 1123 ;
//! - tout identifiant rendu par la plateforme est lu comme un [`IdObjet`] (24 chiffres
//!   hexadécimaux) : une autre forme est une réponse illisible, et seul un `IdObjet` entre dans
//!   un chemin d'URL ;
//! - `GET /moi` reconnaît une adresse qui n'est pas l'API ([`ClientVigieChiro::moi`]) ;
//! - le jeton part en `Authorization: Basic base64("<jeton>:")`, en-tête marqué sensible ;
//!   jamais de jeton ni d'URL signée dans un message (les erreurs reqwest sont dépouillées de
//!   leur URL, le reste est expurgé) ;
//! - le PUT simple porte **exactement** le `mime` rendu par la plateforme (il est signé) ; un
//!   PUT de partie n'en porte **aucun** (ses URL n'en signent pas) ;
//! - l'ETag d'un PUT est gardé sans ses guillemets ;
//! - aucun corps de réponse n'est lu au-delà de [`CORPS_REPONSE_MAX`] (« réponse trop grande ») ;
//! - une redirection n'est suivie que sur le même hôte, sans passer en clair : un `307` ne
//!   renvoie jamais une requête (son corps, le jeton) vers un autre serveur ;
//! - une réponse 2xx illisible est une réponse du serveur ([`ReponseApi::Illisible`], avec la
//!   cause), pas une coupure du réseau.
//!
//! La relecture (liste des fichiers d'une participation, URL de lecture, taille et ETag d'un
//! objet) est dans `vigiechiro/lecture.rs`, sous les mêmes règles ; ce qui suit le dépôt (état
//! du calcul, bilan, taxons, téléchargement d'un résultat) dans `vigiechiro/traitement.rs`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION};
use serde::Deserialize;
use serde_json::{Value, json};

use super::connexions::Renouvelable;
use super::corps::{CorpsFichier, Progression};
use super::{CORPS_REPONSE_MAX, detail_reponse_trop_grande, expurger};
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::plateforme::FichierAttendu;
use crate::reessai::{ReponseApi, attente_demandee};
use crate::texte::{LIGNE_MAX, borner};

mod lecture;
pub(crate) use lecture::{AccesFichier, ObjetLu, PieceJointe};
mod pagination;
pub(crate) use pagination::{PAR_PAGE, Pagination, Suite};
mod saison;
pub(crate) use saison::{ParticipationLue, SiteLu};
mod traitement;
pub(crate) use traitement::{
    Bilan, EtatCalcul, EtatParticipation, LigneBilan, Observateur, TaxonDuBilan, TaxonLu,
    Traitement,
};

/// Un client de l'API Vigie-Chiro, authentifié par un jeton.
#[derive(Clone)]
pub(crate) struct ClientVigieChiro {
    /// Refait à neuf après une coupure du réseau (voir `transport::connexions`).
    http: Arc<Renouvelable<reqwest::Client>>,
    api: String,
    autorisation: HeaderValue,
}

impl std::fmt::Debug for ClientVigieChiro {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Jamais le jeton.
        f.debug_struct("ClientVigieChiro")
            .field("api", &self.api)
            .finish()
    }
}

/// Un texte court du serveur (pseudo, point, date), borné à une ligne
/// ([`crate::texte::borner`]) dès sa lecture : ce qui sera recopié à l'écran, en JSON ou dans
/// `connexion.json` tient sur une ligne, quoi que le serveur ait rendu.
fn ligne<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(|t| borner(&t, LIGNE_MAX).into_owned()))
}

/// L'utilisateur du jeton (`GET /moi`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Utilisateur {
    #[serde(rename = "_id")]
    pub(crate) id: IdObjet,
    #[serde(default, deserialize_with = "ligne")]
    pub(crate) pseudo: Option<String>,
    /// `Observateur`, `Validateur` ou `Administrateur` (`resources/utilisateurs.py`) : un
    /// administrateur peut lancer le calcul de la participation d'un autre.
    #[serde(default, deserialize_with = "ligne")]
    pub(crate) role: Option<String>,
}

/// Ce que rend `GET /moi` : l'utilisateur du jeton, ou la preuve que l'adresse n'est pas celle
/// de l'API (une page HTML du site, un 404 : voir [`ClientVigieChiro::moi`]).
#[derive(Debug, Clone)]
pub(crate) enum ReponseMoi {
    Utilisateur(Utilisateur),
    /// Ce qui a répondu à la place de l'API, décrit en quelques mots (statut, type de contenu).
    PasLApi(String),
}

/// Une participation telle que la plateforme la décrit. Ses dates sont rendues par
/// `isoformat()` sans fuseau (UTC implicite).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Participation {
    #[serde(rename = "_id")]
    pub(crate) id: IdObjet,
    #[serde(default, deserialize_with = "ligne")]
    pub(crate) point: Option<String>,
    #[serde(default, deserialize_with = "ligne")]
    pub(crate) date_debut: Option<String>,
    #[serde(default, deserialize_with = "ligne")]
    pub(crate) date_fin: Option<String>,
    /// L'observateur à qui elle est. La plateforme ne vérifie pas, à la déclaration d'un
    /// fichier, que la participation est à son déclarant (`resources/fichiers.py`
    /// `_validate_participation` n'est jamais appelé : `xin/schema.py` cherche `validator` dans
    /// le document lu) : `vigie` le vérifie lui-même avant tout envoi.
    #[serde(default, deserialize_with = "lire_observateur")]
    pub(crate) observateur: Option<Observateur>,
    /// `_created` (`isoformat()`, à la seconde) : entre deux participations identiques, la plus
    /// récente.
    #[serde(rename = "_created", default, deserialize_with = "ligne")]
    pub(crate) creee: Option<String>,
    /// Son site : développé par `display_participation` (`xin/schema.py`
    /// `Unserializer._run_attribute_data_relation` : titre, relations du site en
    /// identifiants), ou son seul identifiant (réponse d'une création). `--participation`
    /// compare le numéro de son titre à celui des noms.
    #[serde(default, deserialize_with = "lire_site")]
    pub(crate) site: Option<SiteDeParticipation>,
    /// `configuration` et `meteo`, dictionnaires libres que le site web remplit ; relus avant
    /// de les compléter (un `PATCH` les remplace en entier).
    #[serde(default)]
    pub(crate) configuration: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub(crate) meteo: Option<serde_json::Map<String, Value>>,
    /// `_etag` : envoyé en `If-Match` par convention d'Eve (le serveur ne le lit pas pour
    /// `PATCH /participations/{id}` : `edit_participation` appelle `update` sans `if_match`).
    #[serde(rename = "_etag", default)]
    pub(crate) etag: Option<String>,
}

/// Le site d'une participation, tel que la plateforme l'a rendu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SiteDeParticipation {
    Developpe(SiteLu),
    Identifiant(IdObjet),
}

/// Le `site` d'une participation : développé ou identifiant ; une forme illisible ne se
/// devine pas (`None` : la comparaison du numéro de site relira le site, ou s'en passera).
fn lire_site<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<SiteDeParticipation>, D::Error> {
    Ok(match Option::<serde_json::Value>::deserialize(d)? {
        Some(v @ serde_json::Value::Object(_)) => {
            saison::site(&v).ok().map(SiteDeParticipation::Developpe)
        }
        Some(serde_json::Value::String(s)) => {
            IdObjet::analyser(&s).map(SiteDeParticipation::Identifiant)
        }
        _ => None,
    })
}

/// L'observateur d'une participation : développé (`{_id, pseudo, …}`, la relation telle que
/// la rendent `display_participation` et `list_site_participations`) ou son seul identifiant
/// (la réponse d'une création, document inséré non relu ; une relation introuvable). Un
/// pseudo vide n'est pas un pseudo.
fn lire_observateur<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Observateur>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Forme {
        Developpe {
            #[serde(rename = "_id")]
            id: IdObjet,
            #[serde(default)]
            pseudo: Option<String>,
        },
        Identifiant(IdObjet),
    }
    Ok(Option::<Forme>::deserialize(d)?.map(|forme| match forme {
        Forme::Developpe { id, pseudo } => Observateur {
            id,
            pseudo: pseudo
                .map(|p| borner(p.trim(), LIGNE_MAX).into_owned())
                .filter(|p| !p.is_empty()),
        },
        Forme::Identifiant(id) => Observateur { id, pseudo: None },
    }))
}

/// La réponse à la déclaration d'un fichier : l'enregistrement entier (`resources/fichiers.py`
/// `_s3_create_singlepart`, `_s3_create_multipart`), **neuf ou déjà là**. Un enregistrement non
/// finalisé de la même clé est rendu tel quel, quelle que soit la déclaration : il peut avoir
/// un envoi multipart (`s3_upload_multipart_id`) quand on l'a déclaré simple, ou n'en avoir
/// aucun quand on l'a déclaré multipart (envoi interrompu dans le navigateur).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Declaration {
    #[serde(rename = "_id")]
    pub(crate) id: IdObjet,
    /// Le type MIME déduit du titre, signé dans l'URL d'un PUT simple.
    #[serde(default)]
    pub(crate) mime: Option<String>,
    /// Déclaration non multipart seulement.
    #[serde(default)]
    pub(crate) s3_signed_url: Option<String>,
    /// L'envoi multipart S3 que tient l'enregistrement, s'il en tient un.
    #[serde(default)]
    pub(crate) s3_upload_multipart_id: Option<String>,
}

impl Declaration {
    /// L'enregistrement tient-il un envoi multipart ? Sa finalisation exige alors `parts`.
    pub(crate) fn est_multipart(&self) -> bool {
        self.s3_upload_multipart_id.is_some()
    }
}

/// Un fichier tel que la plateforme le décrit (`GET /fichiers/{id}`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FichierDistant {
    /// Exigé (une réponse sans identifiant n'est pas lue comme un fichier), jamais relu :
    /// c'est celui que l'on a demandé.
    #[serde(rename = "_id")]
    _id: IdObjet,
    #[serde(default)]
    pub(crate) disponible: bool,
    /// Présent quand la plateforme tient un envoi multipart S3 ouvert pour ce fichier.
    #[serde(default)]
    pub(crate) s3_upload_multipart_id: Option<String>,
}

impl FichierDistant {
    pub(crate) fn est_multipart(&self) -> bool {
        self.s3_upload_multipart_id.is_some()
    }
}

/// Ce que rend le lancement d'un calcul.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Calcul {
    Lance,
    /// Déjà planifié ou en cours depuis moins de 24 h : la plateforme le dit par
    /// `400 {"_errors": {"etat": "Already PLANIFIE"}}` (`resources/participations.py`
    /// `participation_trigger_compute`) et ne relance rien.
    DejaEnCours(String),
}

#[derive(Deserialize)]
struct UrlPartie {
    s3_signed_url: String,
}

/// Longueur maximale d'un message d'erreur de la plateforme repris dans un message de `vigie`.
const MESSAGE_MAX: usize = 300;

/// Le corps d'erreur de la plateforme, lu (`app.py` `make_json_error`) :
/// `{"_status": "422 Unprocessable Entity: …", "_errors": <description>}`, où la description
/// est un texte ou un objet `{champ: message}`. Une exception qui n'est pas une erreur HTTP
/// (un refus de S3 à la finalisation) n'a que `_status`.
#[derive(Debug, Clone, Default, Deserialize)]
struct CorpsErreur {
    #[serde(rename = "_status", default)]
    statut: Option<Value>,
    #[serde(rename = "_errors", default)]
    erreurs: Option<Value>,
}

impl CorpsErreur {
    fn lire(corps: &[u8]) -> Option<CorpsErreur> {
        let c: CorpsErreur = serde_json::from_slice(corps).ok()?;
        (c.statut.is_some() || c.erreurs.is_some()).then_some(c)
    }

    /// Le texte de `_errors` à plat (« champ : message ; … »), ou à défaut `_status`.
    fn texte(&self) -> String {
        match (&self.erreurs, &self.statut) {
            (Some(e), _) if !e.is_null() => texte_plat(e, ""),
            (_, Some(Value::String(s))) => s.clone(),
            _ => String::new(),
        }
    }
}

/// Une description d'erreur à plat, sans JSON brut : `{"titre": "unknown file type"}` donne
/// « titre : unknown file type », `{"meteo": {"vent": "…"}}` « meteo.vent : … ».
fn texte_plat(v: &Value, chemin: &str) -> String {
    let prefixe = |s: String| {
        if chemin.is_empty() {
            s
        } else {
            format!("{chemin} : {s}")
        }
    };
    match v {
        Value::String(s) => prefixe(s.clone()),
        Value::Array(a) => prefixe(
            a.iter()
                .map(|x| texte_plat(x, ""))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Value::Object(o) => o
            .iter()
            .map(|(k, x)| {
                let sous = if chemin.is_empty() {
                    k.clone()
                } else {
                    format!("{chemin}.{k}")
                };
                texte_plat(x, &sous)
            })
            .collect::<Vec<_>>()
            .join(" ; "),
        Value::Null => prefixe(String::new()),
        autre => prefixe(autre.to_string()),
    }
}

/// Le message d'une réponse d'erreur, court et expurgé : `_errors` de la plateforme, code et
/// message d'une erreur S3, ou la nature d'une réponse qui n'est ni l'un ni l'autre.
fn message_erreur(corps: &[u8]) -> String {
    let texte = match CorpsErreur::lire(corps) {
        Some(e) => e.texte(),
        None => {
            let brut = String::from_utf8_lossy(corps);
            match erreur_xml(&brut) {
                Some(e) => e,
                None if est_html(&brut) => "page HTML au lieu d'une réponse de l'API".to_owned(),
                None => brut.into_owned(),
            }
        }
    };
    // Expurgé d'abord, borné ensuite : une borne ne coupe jamais un secret en deux.
    borner(&expurger(texte.trim()), MESSAGE_MAX).into_owned()
}

fn est_html(texte: &str) -> bool {
    let debut = texte.trim_start().get(..15).unwrap_or(texte.trim_start());
    let debut = debut.to_ascii_lowercase();
    debut.starts_with("<!doctype html") || debut.starts_with("<html")
}

/// Un élément d'une erreur S3 en XML (`Code`, `Message`), borné à 200 caractères.
fn element_xml(texte: &str, nom: &str) -> Option<String> {
    if !texte.contains("<Error>") {
        return None;
    }
    let debut = texte.find(&format!("<{nom}>"))? + nom.len() + 2;
    let fin = texte[debut..].find(&format!("</{nom}>"))? + debut;
    Some(borner(texte[debut..fin].trim(), 200).into_owned())
}

/// Une erreur S3 en XML (derrière une URL signée) : seulement son code et son message. Les
/// autres éléments peuvent citer l'identifiant d'accès, la signature reçue ou la chaîne signée
/// (`AWSAccessKeyId`, `SignatureProvided`, `StringToSign`) : ils ne sortent jamais.
fn erreur_xml(texte: &str) -> Option<String> {
    if !texte.contains("<Error>") {
        return None;
    }
    let element = |nom: &str| element_xml(texte, nom);
    let code = element("Code").unwrap_or_else(|| "erreur S3".to_owned());
    Some(match element("Message") {
        Some(m) if !m.is_empty() => format!("{code} : {m}"),
        _ => code,
    })
}

/// Une réponse dont les en-têtes sont arrivés, dont le corps se lit morceau par morceau :
/// chaque signe de vie (les en-têtes, puis chaque morceau) est noté dans la progression de la
/// tentative, que guette l'émetteur (`transport::Emetteur`). Tout corps de réponse se lit par
/// elle : un corps lu à côté passerait pour un silence, et un long téléchargement qui
/// progresse serait coupé comme une réponse qui ne vient pas.
pub(super) struct ReponseSuivie(reqwest::Response);

impl ReponseSuivie {
    pub(super) fn nouveau(reponse: reqwest::Response) -> Self {
        super::corps::reponse_recue(reponse.status().as_u16());
        ReponseSuivie(reponse)
    }

    /// Le morceau suivant du corps ; `None` à sa fin.
    pub(super) async fn morceau(&mut self) -> reqwest::Result<Option<bytes::Bytes>> {
        let morceau = self.0.chunk().await?;
        if let Some(m) = &morceau {
            super::corps::reponse_lue(m.len());
        }
        Ok(morceau)
    }
}

/// Une réponse HTTP lue en entier (sous [`CORPS_REPONSE_MAX`]), classée. `lire` extrait la
/// valeur d'une réponse 2xx, ou dit pourquoi il ne le peut pas : une réponse 2xx illisible
/// vient du serveur, qui a pu traiter la requête ([`ReponseApi::Illisible`]). `refus_attendu`
/// reconnaît un refus qui est une réponse utile pour l'appelant (statut et corps) ; une
/// redirection non suivie n'en est jamais une.
async fn classer_reponse<T>(
    reponse: reqwest::Response,
    lire: impl FnOnce(&reqwest::header::HeaderMap, &[u8]) -> Result<T, String>,
    refus_attendu: impl FnOnce(u16, &reqwest::header::HeaderMap, &[u8]) -> Option<T>,
) -> ReponseApi<T> {
    let statut = reponse.status().as_u16();
    let entetes = reponse.headers().clone();
    let url = reponse.url().clone();
    let mut reponse = ReponseSuivie::nouveau(reponse);
    let mut corps = Vec::new();
    loop {
        match reponse.morceau().await {
            Ok(Some(morceau)) => {
                if corps.len() + morceau.len() > CORPS_REPONSE_MAX {
                    return ReponseApi::Illisible {
                        statut,
                        detail: detail_reponse_trop_grande(statut),
                    };
                }
                corps.extend_from_slice(&morceau);
            }
            Ok(None) => break,
            Err(e) => return classer_erreur(e),
        }
    }
    if (200..300).contains(&statut) {
        return match lire(&entetes, &corps) {
            Ok(v) => ReponseApi::Succes(v),
            Err(cause) => ReponseApi::Illisible {
                statut,
                detail: expurger(&format!("réponse illisible (statut {statut}) : {cause}")),
            },
        };
    }
    if (300..400).contains(&statut) {
        return ReponseApi::Refuse {
            statut,
            retry_after: None,
            detail: redirection_refusee(statut, &url, &entetes),
        };
    }
    if let Some(v) = refus_attendu(statut, &entetes, &corps) {
        return ReponseApi::Succes(v);
    }
    let entete = |nom: &str| entetes.get(nom).and_then(|v| v.to_str().ok());
    let texte = String::from_utf8_lossy(&corps);
    ReponseApi::refus(
        statut,
        element_xml(&texte, "Code").as_deref(),
        attente_demandee(
            entete("retry-after"),
            entete("retry-after-ms"),
            SystemTime::now(),
        ),
        message_erreur(&corps),
    )
}

/// L'ETag d'une réponse `2xx` à un PUT signé, sans ses guillemets ; ou pourquoi cette réponse
/// ne prouve pas que l'objet est écrit (corps d'erreur S3, pas d'ETag).
fn preuve_d_ecriture(entetes: &reqwest::header::HeaderMap, corps: &[u8]) -> Result<String, String> {
    let texte = String::from_utf8_lossy(corps);
    if let Some(erreur) = erreur_xml(&texte) {
        return Err(format!(
            "succès annoncé avec une erreur S3 dans le corps ({}) : rien ne prouve que le \
             fichier est écrit",
            expurger(&erreur)
        ));
    }
    entetes
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .map(|e| {
            e.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .to_owned()
        })
        .filter(|e| !e.is_empty())
        .ok_or_else(|| {
            "succès annoncé sans ETag : rien ne prouve que le fichier est écrit".to_owned()
        })
}

/// Schéma, hôte et port d'une URL : jamais son chemin ni sa requête, qui peuvent porter une
/// signature.
fn origine(u: &reqwest::Url) -> String {
    let hote = u.host_str().unwrap_or_default();
    match u.port() {
        Some(p) => format!("{}://{hote}:{p}", u.scheme()),
        None => format!("{}://{hote}", u.scheme()),
    }
}

/// Aucun refus n'est une réponse utile.
fn aucun_refus<T>(_: u16, _: &reqwest::header::HeaderMap, _: &[u8]) -> Option<T> {
    None
}

/// Une redirection est-elle permise ? Seulement sur le même hôte, et sans repasser en clair :
/// suivre un `307` vers un autre serveur lui enverrait le corps de la requête, et un passage à
/// `http://` ferait circuler le jeton sans chiffrement.
fn redirection_permise(depuis: &reqwest::Url, vers: &reqwest::Url) -> bool {
    let meme_hote = depuis.host_str() == vers.host_str();
    let meme_origine = meme_hote
        && depuis.scheme() == vers.scheme()
        && depuis.port_or_known_default() == vers.port_or_known_default();
    // Passer en HTTPS sur le même hôte (port par défaut) ne fait que chiffrer.
    let vers_https =
        meme_hote && depuis.scheme() == "http" && vers.scheme() == "https" && vers.port().is_none();
    meme_origine || vers_https
}

/// Le détail d'une redirection que `vigie` n'a pas suivie.
fn redirection_refusee(
    statut: u16,
    depuis: &reqwest::Url,
    entetes: &reqwest::header::HeaderMap,
) -> String {
    let vers = entetes
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|l| depuis.join(l).ok())
        .map_or_else(|| "une adresse illisible".to_owned(), |u| origine(&u));
    expurger(&format!(
        "redirection ({statut}) vers {vers} non suivie : vigie ne suit une redirection que sur le \
         même hôte, sans passer en clair ; vérifiez l'adresse de l'API (--api, VIGIE_API)"
    ))
}

/// Les requêtes partent du client du moment : neuf après une coupure du réseau.
impl Renouvelable<reqwest::Client> {
    fn get(&self, url: impl reqwest::IntoUrl) -> reqwest::RequestBuilder {
        self.client().get(url)
    }

    fn post(&self, url: impl reqwest::IntoUrl) -> reqwest::RequestBuilder {
        self.client().post(url)
    }

    fn put(&self, url: impl reqwest::IntoUrl) -> reqwest::RequestBuilder {
        self.client().put(url)
    }

    fn delete(&self, url: impl reqwest::IntoUrl) -> reqwest::RequestBuilder {
        self.client().delete(url)
    }

    fn patch(&self, url: impl reqwest::IntoUrl) -> reqwest::RequestBuilder {
        self.client().patch(url)
    }
}

/// Le client HTTP de la plateforme et de ses URL signées, **un seul pour tout le processus**,
/// refait à neuf (réservoir vide) après chaque coupure déclarée comme tout [`Renouvelable`] :
/// le construire relit les certificats racine du système (quelques millisecondes chacun), et
/// une saison en demandait un par nuit.
fn client_http() -> Result<Arc<Renouvelable<reqwest::Client>>, reqwest::Error> {
    static PARTAGE: std::sync::Mutex<Option<Arc<Renouvelable<reqwest::Client>>>> =
        std::sync::Mutex::new(None);
    let mut partage = PARTAGE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(client) = partage.as_ref() {
        return Ok(Arc::clone(client));
    }
    let premier = construire_client_http()?;
    let client = Arc::new(Renouvelable::nouveau(premier, || {
        construire_client_http().ok()
    }));
    *partage = Some(Arc::clone(&client));
    Ok(client)
}

/// Combien de clients HTTP [`construire_client_http`] a construits (pour les essais).
#[cfg(test)]
static CONSTRUITS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Un client HTTP neuf : connexion en 10 s au plus, aucune redirection suivie hors du même
/// hôte, ni vers le clair.
fn construire_client_http() -> Result<reqwest::Client, reqwest::Error> {
    #[cfg(test)]
    CONSTRUITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::custom(|tentative| {
            let permise = tentative.previous().len() < 5
                && tentative
                    .previous()
                    .first()
                    .is_some_and(|depuis| redirection_permise(depuis, tentative.url()));
            if permise {
                tentative.follow()
            } else {
                tentative.stop()
            }
        }))
        .user_agent(concat!("vigie/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Une erreur reqwest (pas de réponse) : la requête a-t-elle pu atteindre le serveur ?
fn classer_erreur<T>(e: reqwest::Error) -> ReponseApi<T> {
    if let Some(reproche) = super::certificat::reproche(&e) {
        let hote = e
            .url()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| "ce serveur".to_owned());
        tracing::info!(
            texte_d_origine = %expurger(&super::en_clair::chaine(&e.without_url())),
            "certificat refusé"
        );
        return ReponseApi::CertificatRefuse {
            detail: super::certificat::message(&hote, reproche),
        };
    }
    let a_pu_atteindre = !e.is_connect();
    let e = e.without_url();
    ReponseApi::Injoignable {
        a_pu_atteindre,
        detail: expurger(&super::en_clair::erreur_reseau(&e)),
    }
}

/// Le document JSON attendu, ou ce qui ne va pas (message du décodeur).
fn json<T: serde::de::DeserializeOwned>(corps: &[u8]) -> Result<T, String> {
    serde_json::from_slice(corps).map_err(|e| format!("JSON inattendu ({e})"))
}

/// Ce qui a répondu, en quelques mots : « une page HTML (statut 200) ».
fn nature_reponse(statut: u16, entetes: &reqwest::header::HeaderMap, corps: &[u8]) -> String {
    let type_contenu = entetes
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|t| t.split(';').next())
        .map(str::trim)
        .unwrap_or("");
    let nature = if est_html(&String::from_utf8_lossy(corps)) || type_contenu == "text/html" {
        "une page HTML".to_owned()
    } else if serde_json::from_slice::<Value>(corps).is_ok() {
        "du JSON qui n'est pas celui de l'API Vigie-Chiro".to_owned()
    } else if type_contenu.is_empty() {
        "une réponse sans type".to_owned()
    } else {
        format!(
            "une réponse de type {}",
            type_contenu
                .chars()
                .take(60)
                .collect::<String>()
                .escape_debug()
        )
    };
    format!("{nature} (statut {statut})")
}

impl ClientVigieChiro {
    pub(crate) fn nouveau(api: &str, jeton: &str) -> Result<Self, String> {
        let jeton = crate::jeton::valider(jeton).map_err(|e| e.to_string())?;
        let brut = base64::engine::general_purpose::STANDARD.encode(format!("{jeton}:"));
        let mut autorisation = HeaderValue::from_str(&format!("Basic {brut}"))
            .map_err(|_| "le jeton contient des caractères invalides".to_owned())?;
        autorisation.set_sensitive(true);
        let http = client_http().map_err(|e| super::client_http_impossible(&e))?;
        Ok(ClientVigieChiro {
            http,
            api: api.trim_end_matches('/').to_owned(),
            autorisation,
        })
    }

    fn url(&self, chemin: &str) -> String {
        format!("{}{chemin}", self.api)
    }

    async fn envoyer<T>(
        &self,
        requete: reqwest::RequestBuilder,
        lire: impl FnOnce(&reqwest::header::HeaderMap, &[u8]) -> Result<T, String>,
        refus_attendu: impl FnOnce(u16, &reqwest::header::HeaderMap, &[u8]) -> Option<T>,
    ) -> ReponseApi<T> {
        match requete
            .header(AUTHORIZATION, self.autorisation.clone())
            .send()
            .await
        {
            Ok(r) => classer_reponse(r, lire, refus_attendu).await,
            Err(e) => classer_erreur(e),
        }
    }

    /// `GET /moi` : vérifie le jeton, et que l'adresse est bien celle de l'API.
    ///
    /// La route existe sur toute plateforme Vigie-Chiro (`resources/utilisateurs.py`) et rend
    /// un objet JSON qui porte `_id`. Ce qui répond autrement n'est pas l'API : la page HTML du
    /// site (servie pour toute adresse), un 404 ou 405 (mauvais préfixe ; le serveur les rend
    /// pourtant en JSON), un 401 sans le corps d'erreur de la plateforme. C'est une réponse
    /// (`ReponseMoi::PasLApi`), pas une panne : elle n'est jamais rejouée.
    pub(crate) async fn moi(&self) -> ReponseApi<ReponseMoi> {
        self.envoyer(
            self.http.get(self.url("/moi")),
            |entetes, c| {
                Ok(match json::<Utilisateur>(c) {
                    Ok(u) => ReponseMoi::Utilisateur(u),
                    Err(_) => ReponseMoi::PasLApi(nature_reponse(200, entetes, c)),
                })
            },
            |statut, entetes, c| {
                let de_la_plateforme = CorpsErreur::lire(c).is_some();
                let pas_l_api = match statut {
                    // Le serveur répond, mais ne connaît pas la route : mauvais préfixe.
                    404 | 405 => true,
                    // Jeton refusé… si c'est bien la plateforme qui le dit.
                    401 | 403 => !de_la_plateforme,
                    // Panne passagère, d'un relais comme du serveur : à réessayer.
                    408 | 429 | 500..=599 => false,
                    _ => !de_la_plateforme,
                };
                pas_l_api.then(|| ReponseMoi::PasLApi(nature_reponse(statut, entetes, c)))
            },
        )
        .await
    }

    /// `GET /participations/{id}` ; `None` si la plateforme ne la connaît pas (404).
    pub(crate) async fn participation(&self, id: &IdObjet) -> ReponseApi<Option<Participation>> {
        self.envoyer(
            self.http.get(self.url(&format!("/participations/{id}"))),
            |_, c| json::<Participation>(c).map(Some),
            |statut, _, _| (statut == 404).then_some(None),
        )
        .await
    }

    /// `POST /sites/{site}/participations` : **non idempotent**. Les dates partent au seul
    /// format que le serveur accepte (RFC 1123, `vigiechiro/settings.py` `DATE_FORMAT`) ;
    /// `configuration` et `meteo` (clés du formulaire web, `description`) seulement si
    /// `vigie` en sait quelque chose.
    pub(crate) async fn creer_participation(
        &self,
        site: &IdObjet,
        point: Option<&str>,
        debut: InstantUtc,
        fin: InstantUtc,
        description: &crate::description::Description,
    ) -> ReponseApi<IdObjet> {
        let mut corps = json!({
            "date_debut": debut.rfc1123(),
            "date_fin": fin.rfc1123(),
        });
        // Sans point (site routier), le champ n'est pas envoyé : il est facultatif.
        if let Some(point) = point {
            corps["point"] = json!(point);
        }
        let configuration = description.configuration(point.is_some());
        if !configuration.is_empty() {
            corps["configuration"] = Value::Object(configuration);
        }
        let meteo = description.meteo();
        if !meteo.is_empty() {
            corps["meteo"] = Value::Object(meteo);
        }
        self.envoyer(
            self.http
                .post(self.url(&format!("/sites/{site}/participations")))
                .json(&corps),
            |_, c| json::<Participation>(c).map(|p| p.id),
            aucun_refus,
        )
        .await
    }

    /// `PATCH /participations/{id}` (`resources/participations.py` `edit_participation`) :
    /// chaque clé de `corps` est **remplacée** en entier (`$set`) ; `If-Match` est envoyé par
    /// convention d'Eve, le serveur ne le lit pas.
    pub(crate) async fn modifier_participation(
        &self,
        id: &IdObjet,
        etag: Option<&str>,
        corps: &Value,
    ) -> ReponseApi<()> {
        let mut requete = self
            .http
            .patch(self.url(&format!("/participations/{id}")))
            .json(corps);
        if let Some(etag) = etag {
            requete = requete.header(reqwest::header::IF_MATCH, etag);
        }
        self.envoyer(requete, |_, _| Ok(()), aucun_refus).await
    }

    /// `GET /sites/{id}` (`resources/sites.py` `display_site`, protocole développé) ; `None`
    /// si la plateforme ne le connaît pas (404).
    pub(crate) async fn site(&self, id: &IdObjet) -> ReponseApi<Option<SiteLu>> {
        self.envoyer(
            self.http.get(self.url(&format!("/sites/{id}"))),
            |_, c| saison::site(&json::<Value>(c)?).map(Some),
            |statut, _, _| (statut == 404).then_some(None),
        )
        .await
    }

    /// `GET /sites/{site}/participations`, toutes les pages (vérifiées, et relues si la liste
    /// change : `saison.rs`) : pour réconcilier une création sans réponse.
    pub(crate) async fn participations(&self, site: &IdObjet) -> ReponseApi<Vec<Participation>> {
        self.toutes_les_pages(
            &format!("/sites/{site}/participations"),
            "participations",
            &|v| serde_json::from_value(v.clone()).map_err(|e| e.to_string()),
        )
        .await
    }

    /// `POST /fichiers` : déclare un fichier de la participation ; rend l'enregistrement.
    pub(crate) async fn declarer(
        &self,
        titre: &str,
        multipart: bool,
        participation: &IdObjet,
    ) -> ReponseApi<Declaration> {
        let corps = json!({
            "titre": titre,
            "multipart": multipart,
            "lien_participation": participation.as_str(),
        });
        self.envoyer(
            self.http.post(self.url("/fichiers")).json(&corps),
            |_, c| json(c),
            aucun_refus,
        )
        .await
    }

    /// `GET /fichiers/{id}` ; `None` si la plateforme ne le connaît pas.
    pub(crate) async fn fichier(&self, id: &IdObjet) -> ReponseApi<Option<FichierDistant>> {
        self.envoyer(
            self.http.get(self.url(&format!("/fichiers/{id}"))),
            |_, c| json::<FichierDistant>(c).map(Some),
            |statut, _, _| (statut == 404).then_some(None),
        )
        .await
    }

    /// `PUT /fichiers/{id}/multipart` : l'URL signée d'une partie.
    pub(crate) async fn url_partie(&self, id: &IdObjet, numero: u32) -> ReponseApi<String> {
        self.envoyer(
            self.http
                .put(self.url(&format!("/fichiers/{id}/multipart")))
                .json(&json!({"part_number": numero})),
            |_, c| json::<UrlPartie>(c).map(|u| u.s3_signed_url),
            aucun_refus,
        )
        .await
    }

    /// `POST /fichiers/{id}` : finalise (non rejouable ; rejouée après une réponse perdue, elle
    /// rend 409 « upload is already done », preuve que la première a abouti).
    pub(crate) async fn finaliser(
        &self,
        id: &IdObjet,
        parties: Option<&[(u32, String)]>,
    ) -> ReponseApi<()> {
        let corps = match parties {
            None => json!({}),
            Some(p) => {
                json!({"parts": p.iter().map(|(n, e)| json!({"part_number": n, "etag": e})).collect::<Vec<_>>()})
            }
        };
        self.envoyer(
            self.http
                .post(self.url(&format!("/fichiers/{id}")))
                .json(&corps),
            |_, _| Ok(()),
            aucun_refus,
        )
        .await
    }

    /// `DELETE /fichiers/{id}` : supprime un enregistrement non finalisé (et l'envoi multipart
    /// S3 qu'il tient, s'il en tient un).
    pub(crate) async fn abandonner(&self, id: &IdObjet) -> ReponseApi<()> {
        self.envoyer(
            self.http.delete(self.url(&format!("/fichiers/{id}"))),
            |_, _| Ok(()),
            aucun_refus,
        )
        .await
    }

    /// `POST /participations/{id}/compute` : lance le calcul (jamais rejoué). Un calcul déjà
    /// planifié ou en cours est reconnu au champ `etat` de l'erreur, pas à son texte.
    pub(crate) async fn lancer_calcul(&self, participation: &IdObjet) -> ReponseApi<Calcul> {
        self.envoyer(
            self.http
                .post(self.url(&format!("/participations/{participation}/compute"))),
            |_, _| Ok(Calcul::Lance),
            |statut, _, c| {
                let etat = CorpsErreur::lire(c)?
                    .erreurs?
                    .get("etat")?
                    .as_str()?
                    .to_owned();
                (statut == 400 && etat.starts_with("Already "))
                    .then(|| Calcul::DejaEnCours(expurger(&etat)))
            },
        )
        .await
    }

    /// Une URL signée rendue par la plateforme peut-elle recevoir les octets ?
    ///
    /// `vigie` ne peut pas savoir quel stockage la plateforme utilise (l'hôte des URL signées
    /// n'est pas celui de l'API) : il ne l'épingle pas, et n'y envoie jamais le jeton (aucun
    /// en-tête d'autorisation sur ces PUT). Mais il refuse, avant toute connexion, une URL qui
    /// n'est pas du HTTP, qui porte des identifiants (`user@`), ou qui ferait circuler les
    /// données et la signature en clair (`http://` hors de la boucle locale), sauf si
    /// l'utilisateur a accepté le clair pour cette plateforme (API en `http://` distante, ce qui
    /// exige `--autoriser-http`). Le message ne cite que le schéma et l'hôte, jamais la
    /// signature.
    pub(crate) fn verifier_url_signee(&self, url: &str) -> Result<(), String> {
        let u = reqwest::Url::parse(url)
            .map_err(|_| "URL signée illisible rendue par la plateforme".to_owned())?;
        let hote = u.host_str().unwrap_or_default();
        let origine = match u.port() {
            Some(p) => format!("{}://{hote}:{p}", u.scheme()),
            None => format!("{}://{hote}", u.scheme()),
        };
        // Une API en http:// hors de la boucle locale n'a pu être choisie qu'avec
        // --autoriser-http : l'utilisateur a accepté le clair pour cette plateforme.
        let clair_accepte = reqwest::Url::parse(&self.api).is_ok_and(|a| {
            a.scheme() == "http"
                && !crate::destination::est_boucle_locale(a.host_str().unwrap_or_default())
        });
        // `host_str` garde les crochets d'une adresse IPv6 (« [::1] »).
        let boucle = crate::destination::est_boucle_locale(hote);
        match u.scheme() {
            _ if hote.is_empty() => Err(format!("URL signée sans hôte ({})", u.scheme())),
            _ if !u.username().is_empty() || u.password().is_some() => Err(format!(
                "URL signée porteuse d'identifiants ({origine}) : refusée"
            )),
            "https" => Ok(()),
            "http" if boucle || clair_accepte => Ok(()),
            "http" => Err(format!(
                "URL signée en clair hors de la boucle locale ({origine}) : les données et la \
                 signature y circuleraient sans chiffrement ; rien n'est parti"
            )),
            _ => Err(format!(
                "URL signée qui n'est pas du HTTP ({origine}) : refusée"
            )),
        }
    }

    /// `PUT` d'une tranche de fichier vers une URL signée ; rend l'ETag, sans guillemets.
    /// `content_type` : le `mime` rendu par la plateforme pour un PUT simple, `None` pour une
    /// partie (aucun en-tête Content-Type n'est alors envoyé).
    ///
    /// Un `2xx` n'est une preuve d'écriture que s'il porte l'ETag de l'objet écrit : sans ETag,
    /// ou avec un corps d'erreur S3 (`<Error>`, ce que rendent certains relais et services dits
    /// compatibles), la réponse est illisible ([`ReponseApi::Illisible`], rejouée comme telle),
    /// jamais un dépôt : derrière une URL signée, la plateforme ne vérifie pas l'objet à la
    /// finalisation (`resources/fichiers.py` `fichier_upload_done`), et un fichier finalisé ne
    /// se redéclare plus.
    pub(crate) async fn deposer_signe(
        &self,
        url: &str,
        fichier: FichierAttendu<'_>,
        debut: u64,
        taille: u64,
        content_type: Option<&str>,
        progression: Arc<Progression>,
    ) -> ReponseApi<String> {
        let corps = match CorpsFichier::ouvrir(fichier, debut, taille, progression.clone()).await {
            Ok(c) => c,
            Err(e) => {
                return ReponseApi::Refuse {
                    statut: 0,
                    retry_after: None,
                    detail: crate::plateforme::lecture_impossible(&e),
                };
            }
        };
        // Pas d'en-tête d'autorisation ici : l'URL porte sa signature.
        let mut requete = self.http.put(url).body(reqwest::Body::wrap(corps));
        if let Some(ct) = content_type {
            requete = requete.header(CONTENT_TYPE, ct);
        }
        let r = match requete.send().await {
            Ok(r) => classer_reponse(r, preuve_d_ecriture, aucun_refus).await,
            Err(e) => classer_erreur(e),
        };
        progression.avancer();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Un `2xx` à un PUT signé ne prouve l'écriture que s'il porte un ETag et pas d'erreur S3.
    #[test]
    fn preuve_d_ecriture_d_un_put_signe() {
        let mut h = reqwest::header::HeaderMap::new();
        assert!(
            preuve_d_ecriture(&h, b"")
                .unwrap_err()
                .contains("sans ETag")
        );
        h.insert(
            "etag",
            HeaderValue::from_static("W/\"0123456789abcdef0123456789abcdef\""),
        );
        assert_eq!(
            preuve_d_ecriture(&h, b"").unwrap(),
            "0123456789abcdef0123456789abcdef"
        );
        let erreur = b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code>\
            <Message>boom</Message></Error>";
        let e = preuve_d_ecriture(&h, erreur).unwrap_err();
        assert!(e.contains("InternalError : boom"), "{e}");
        h.insert("etag", HeaderValue::from_static("\"\""));
        assert!(preuve_d_ecriture(&h, b"").is_err());
    }

    #[test]
    fn messages_d_erreur_de_la_plateforme() {
        // `app.py` `make_json_error` : `_errors` texte, objet de champs, ou seulement `_status`.
        assert_eq!(
            message_erreur(
                br#"{"_status": "409 Conflict: upload is already done", "_errors": "upload is already done"}"#
            ),
            "upload is already done"
        );
        assert_eq!(
            message_erreur(
                br#"{"_status": "422 Unprocessable Entity: {'date_debut': 'must be of datetime type'}", "_errors": {"date_debut": "must be of datetime type"}}"#
            ),
            "date_debut : must be of datetime type"
        );
        assert_eq!(
            message_erreur(
                br#"{"_errors": {"meteo": {"vent": "unallowed value X"}, "point": ["a", "b"]}}"#
            ),
            "meteo.vent : unallowed value X ; point : a, b"
        );
        let s3 = message_erreur(
            br#"{"_status": "Error with S3: on https://b.s3.amazonaws.com/k?uploadId=1&AWSAccessKeyId=AKIAX&Expires=1&Signature=abc error 400"}"#,
        );
        assert!(s3.starts_with("Error with S3"), "{s3}");
        assert!(!s3.contains("AKIAX") && !s3.contains("abc"), "{s3}");
        assert_eq!(
            message_erreur(b"<!DOCTYPE html><html><body>Vigie-Chiro</body></html>"),
            "page HTML au lieu d'une réponse de l'API"
        );
        let xml = b"<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code>\
            <AWSAccessKeyId>AKIAX</AWSAccessKeyId><SignatureProvided>sig</SignatureProvided>\
            <Message>mismatch</Message></Error>";
        assert_eq!(message_erreur(xml), "SignatureDoesNotMatch : mismatch");
        assert_eq!(
            message_erreur(b"<Error><Code>AccessDenied</Code></Error>"),
            "AccessDenied"
        );
        let long = format!(r#"{{"_errors": "{}"}}"#, "x".repeat(2000));
        assert!(message_erreur(long.as_bytes()).chars().count() <= MESSAGE_MAX + 1);
    }

    /// Un nom d'hôte introuvable : la chaîne anglaise de reqwest (« error resolving DNS …
    /// Name or service not known ») devient une cause en français. Le résolveur échoue ici
    /// comme celui du système, sans quitter la machine.
    #[tokio::test]
    async fn nom_introuvable_dit_en_francais() {
        struct Introuvable;
        impl reqwest::dns::Resolve for Introuvable {
            fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
                Box::pin(async {
                    Err(std::io::Error::other(
                        "failed to lookup address information: Name or service not known",
                    )
                    .into())
                })
            }
        }
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(Introuvable))
            .build()
            .unwrap();
        let e = client
            .get("http://plateforme.introuvable/api/v1/moi")
            .send()
            .await
            .unwrap_err();
        assert!(e.to_string().contains("error sending request"), "{e}");
        let ReponseApi::Injoignable {
            a_pu_atteindre,
            detail,
        } = classer_erreur::<()>(e)
        else {
            panic!("pas injoignable");
        };
        assert!(!a_pu_atteindre);
        assert!(
            detail.starts_with("adresse du serveur introuvable"),
            "{detail}"
        );
        for anglais in ["error", "DNS :", "Name or service", "lookup"] {
            assert!(!detail.contains(anglais), "{detail}");
        }
    }

    /// Une saison demande un client de la plateforme par nuit : un seul client HTTP est
    /// construit (certificats racine relus) tant qu'aucune coupure n'est déclarée.
    #[test]
    fn un_seul_client_http_construit_par_epoque_du_reseau() {
        use std::sync::atomic::Ordering;
        // D'autres essais du processus déclarent des coupures : seule compte une fenêtre où
        // l'époque n'a pas changé (la première, presque toujours).
        for _ in 0..100 {
            let epoque = super::super::connexions::epoque();
            let avant = CONSTRUITS.load(Ordering::SeqCst);
            let a = ClientVigieChiro::nouveau("http://127.0.0.1:1/api/v1", "j").unwrap();
            let b = ClientVigieChiro::nouveau("http://127.0.0.1:2/api/v1", "j").unwrap();
            let _ = (a.http.client(), b.http.client());
            let construits = CONSTRUITS.load(Ordering::SeqCst) - avant;
            if super::super::connexions::epoque() == epoque {
                assert!(
                    construits <= 1,
                    "{construits} clients HTTP pour une seule époque"
                );
                return;
            }
        }
        panic!("l'époque du réseau a changé à chaque essai");
    }

    #[test]
    fn urls_signees_acceptees_ou_refusees() {
        let c = ClientVigieChiro::nouveau("https://vigiechiro.herokuapp.com/api/v1", "j").unwrap();
        for ok in [
            "https://b.s3.amazonaws.com/wav/a.wav?Signature=x",
            "https://s3.gra.io.cloud.ovh.net/b/a.wav",
            "http://127.0.0.1:9000/b/a.wav",
            "http://[::1]:9000/b/a.wav",
            "http://localhost/b/a.wav",
        ] {
            assert!(c.verifier_url_signee(ok).is_ok(), "{ok}");
        }
        for refusee in [
            "http://b.s3.amazonaws.com/wav/a.wav?Signature=secret",
            "http://127.0.0.1.exemple.fr/a.wav",
            "file:///etc/passwd",
            "ftp://b.exemple.fr/a.wav",
            "https://moi:motdepasse@b.exemple.fr/a.wav",
            "pas une url",
        ] {
            let e = c.verifier_url_signee(refusee).unwrap_err();
            assert!(!e.contains("secret") && !e.contains("motdepasse"), "{e}");
            assert!(!e.contains("  "), "espaces en trop : {e}");
        }
        assert_eq!(
            c.verifier_url_signee("http://b.s3.amazonaws.com/a.wav")
                .unwrap_err(),
            "URL signée en clair hors de la boucle locale (http://b.s3.amazonaws.com) : les \
             données et la signature y circuleraient sans chiffrement ; rien n'est parti"
        );
        // Une API en clair hors de la boucle locale (--autoriser-http) : le clair est accepté.
        let c = ClientVigieChiro::nouveau("http://vigie.lan/api/v1", "j").unwrap();
        assert!(c.verifier_url_signee("http://stockage.lan/b/a.wav").is_ok());
    }

    #[test]
    fn redirections_permises_seulement_sur_le_meme_hote_sans_clair() {
        let u = |s: &str| reqwest::Url::parse(s).unwrap();
        let api = u("https://vigiechiro.herokuapp.com/api/v1/fichiers");
        assert!(redirection_permise(
            &api,
            &u("https://vigiechiro.herokuapp.com/api/v2/fichiers")
        ));
        for refusee in [
            "https://ailleurs.exemple.fr/api/v1/fichiers",
            "http://vigiechiro.herokuapp.com/api/v1/fichiers",
            "https://vigiechiro.herokuapp.com:8443/api/v1/fichiers",
        ] {
            assert!(!redirection_permise(&api, &u(refusee)), "{refusee}");
        }
        let local = u("http://127.0.0.1:8210/api/v1/moi");
        assert!(redirection_permise(
            &local,
            &u("http://127.0.0.1:8210/api/moi")
        ));
        assert!(!redirection_permise(
            &local,
            &u("http://127.0.0.1:9000/api/moi")
        ));
        assert!(redirection_permise(&local, &u("https://127.0.0.1/api/moi")));
    }

    #[test]
    fn le_jeton_ne_sort_pas_par_debug() {
        let c = ClientVigieChiro::nouveau("http://127.0.0.1:1/api/v1", "jeton-secret").unwrap();
        assert!(!format!("{c:?}").contains("jeton-secret"));
        assert!(c.autorisation.is_sensitive());
        assert!(ClientVigieChiro::nouveau("http://127.0.0.1:1", "a\nb").is_err());
    }
}
