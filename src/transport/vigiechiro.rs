//! Le transport Vigie-Chiro : l'API de la plateforme et les PUT vers ses URL S3 signées
//! (reqwest), chaque réponse classée en [`ReponseApi`] à un seul endroit ([`classer_reponse`],
//! [`classer_erreur`]). Le protocole est décrit dans `PLATEFORME-VIGIECHIRO.md`.
//!
//! Pièges tenus ici :
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

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION};
use serde::Deserialize;
use serde_json::{Value, json};

use super::corps::{CorpsFichier, Progression};
use super::{CORPS_REPONSE_MAX, detail_reponse_trop_grande, expurger};
use crate::reessai::{ReponseApi, attente_demandee};

/// Un client de l'API Vigie-Chiro, authentifié par un jeton.
#[derive(Clone)]
pub struct ClientVigieChiro {
    http: reqwest::Client,
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

/// L'utilisateur du jeton (`GET /moi`).
#[derive(Debug, Clone, Deserialize)]
pub struct Utilisateur {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default)]
    pub pseudo: Option<String>,
}

/// Une participation telle que la plateforme la décrit.
#[derive(Debug, Clone, Deserialize)]
pub struct Participation {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default)]
    pub point: Option<String>,
    #[serde(default)]
    pub date_debut: Option<String>,
    #[serde(default)]
    pub date_fin: Option<String>,
}

/// La réponse à la déclaration d'un fichier.
#[derive(Debug, Clone, Deserialize)]
pub struct Declaration {
    #[serde(rename = "_id")]
    pub id: String,
    /// Non multipart seulement : le type MIME signé dans l'URL.
    #[serde(default)]
    pub mime: Option<String>,
    /// Non multipart seulement.
    #[serde(default)]
    pub s3_signed_url: Option<String>,
}

/// Un fichier tel que la plateforme le décrit (`GET /fichiers/{id}`).
#[derive(Debug, Clone, Deserialize)]
pub struct FichierDistant {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default)]
    pub disponible: bool,
    /// Présent (ou `multipart: true`) quand la plateforme tient un envoi multipart S3 ouvert.
    #[serde(default)]
    pub s3_upload_multipart_id: Option<String>,
    #[serde(default)]
    pub multipart: Option<bool>,
}

impl FichierDistant {
    pub fn est_multipart(&self) -> bool {
        self.multipart.unwrap_or(false) || self.s3_upload_multipart_id.is_some()
    }
}

#[derive(Deserialize)]
struct Liste<T> {
    #[serde(rename = "_items", default = "Vec::new")]
    items: Vec<T>,
}

#[derive(Deserialize)]
struct UrlPartie {
    s3_signed_url: String,
}

/// Le message d'erreur d'une réponse Eve (`_error`, `_issues`), expurgé.
fn message_erreur(corps: &[u8]) -> String {
    let texte = match serde_json::from_slice::<Value>(corps) {
        Ok(v) => match (v.get("_error"), v.get("_issues")) {
            (Some(Value::String(e)), _) => e.clone(),
            (Some(Value::Object(o)), _) => o
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            (_, Some(i)) => i.to_string(),
            _ => v.to_string(),
        },
        Err(_) => {
            let brut = String::from_utf8_lossy(corps);
            match erreur_xml(&brut) {
                Some(e) => e,
                None => brut.chars().take(200).collect(),
            }
        }
    };
    expurger(texte.trim())
}

/// Un élément d'une erreur S3 en XML (`Code`, `Message`), coupé à 200 caractères.
fn element_xml(texte: &str, nom: &str) -> Option<String> {
    if !texte.contains("<Error>") {
        return None;
    }
    let debut = texte.find(&format!("<{nom}>"))? + nom.len() + 2;
    let fin = texte[debut..].find(&format!("</{nom}>"))? + debut;
    Some(
        texte[debut..fin]
            .trim()
            .chars()
            .take(200)
            .collect::<String>(),
    )
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

/// Une réponse HTTP lue en entier (sous [`CORPS_REPONSE_MAX`]), classée. `lire` extrait la
/// valeur d'une réponse 2xx, ou dit pourquoi il ne le peut pas : une réponse 2xx illisible
/// vient du serveur, qui a pu traiter la requête ([`ReponseApi::Illisible`]).
async fn classer_reponse<T>(
    mut reponse: reqwest::Response,
    lire: impl FnOnce(&reqwest::header::HeaderMap, &[u8]) -> Result<T, String>,
) -> ReponseApi<T> {
    let statut = reponse.status().as_u16();
    let entetes = reponse.headers().clone();
    let url = reponse.url().clone();
    let mut corps = Vec::new();
    loop {
        match reponse.chunk().await {
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

/// Schéma, hôte et port d'une URL : jamais son chemin ni sa requête, qui peuvent porter une
/// signature.
fn origine(u: &reqwest::Url) -> String {
    let hote = u.host_str().unwrap_or_default();
    match u.port() {
        Some(p) => format!("{}://{hote}:{p}", u.scheme()),
        None => format!("{}://{hote}", u.scheme()),
    }
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

/// Une erreur reqwest (pas de réponse) : la requête a-t-elle pu atteindre le serveur ?
fn classer_erreur<T>(e: reqwest::Error) -> ReponseApi<T> {
    let a_pu_atteindre = !e.is_connect();
    let e = e.without_url();
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        detail.push_str(" : ");
        detail.push_str(&s.to_string());
        source = s.source();
    }
    ReponseApi::Injoignable {
        a_pu_atteindre,
        detail: expurger(&detail),
    }
}

/// Le document JSON attendu, ou ce qui ne va pas (message du décodeur).
fn json<T: serde::de::DeserializeOwned>(corps: &[u8]) -> Result<T, String> {
    serde_json::from_slice(corps).map_err(|e| format!("JSON inattendu ({e})"))
}

impl ClientVigieChiro {
    pub fn nouveau(api: &str, jeton: &str) -> Result<Self, String> {
        let jeton = crate::jeton::valider(jeton).map_err(|e| e.to_string())?;
        let brut = base64::engine::general_purpose::STANDARD.encode(format!("{jeton}:"));
        let mut autorisation = HeaderValue::from_str(&format!("Basic {brut}"))
            .map_err(|_| "le jeton contient des caractères invalides".to_owned())?;
        autorisation.set_sensitive(true);
        let http = reqwest::Client::builder()
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
            .map_err(|e| format!("client HTTP : {e}"))?;
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
    ) -> ReponseApi<T> {
        match requete
            .header(AUTHORIZATION, self.autorisation.clone())
            .send()
            .await
        {
            Ok(r) => classer_reponse(r, lire).await,
            Err(e) => classer_erreur(e),
        }
    }

    /// `GET /moi` : vérifie le jeton.
    pub async fn moi(&self) -> ReponseApi<Utilisateur> {
        self.envoyer(self.http.get(self.url("/moi")), |_, c| json(c))
            .await
    }

    /// `POST /sites/{site}/participations` : **non idempotent**.
    pub async fn creer_participation(
        &self,
        site: &str,
        point: &str,
        debut: &str,
        fin: &str,
    ) -> ReponseApi<String> {
        let corps = json!({"point": point, "date_debut": debut, "date_fin": fin});
        self.envoyer(
            self.http
                .post(self.url(&format!("/sites/{site}/participations")))
                .json(&corps),
            |_, c| json::<Participation>(c).map(|p| p.id),
        )
        .await
    }

    /// `GET /sites/{site}/participations`, toutes les pages : pour réconcilier une création
    /// sans réponse.
    pub async fn participations(&self, site: &str) -> ReponseApi<Vec<Participation>> {
        const PAR_PAGE: usize = 100;
        const PAGES_MAX: usize = 100;
        let mut toutes = Vec::new();
        for page in 1..=PAGES_MAX {
            let url = self.url(&format!(
                "/sites/{site}/participations?max_results={PAR_PAGE}&page={page}"
            ));
            match self
                .envoyer(self.http.get(url), |_, c| {
                    json::<Liste<Participation>>(c).map(|l| l.items)
                })
                .await
            {
                ReponseApi::Succes(items) => {
                    let derniere = items.len() < PAR_PAGE;
                    toutes.extend(items);
                    if derniere {
                        break;
                    }
                }
                autre => return autre,
            }
        }
        ReponseApi::Succes(toutes)
    }

    /// `POST /fichiers` : déclare un fichier de la participation.
    pub async fn declarer(
        &self,
        titre: &str,
        multipart: bool,
        participation: &str,
    ) -> ReponseApi<Declaration> {
        let corps =
            json!({"titre": titre, "multipart": multipart, "lien_participation": participation});
        self.envoyer(
            self.http.post(self.url("/fichiers")).json(&corps),
            |_, c| json(c),
        )
        .await
    }

    /// `GET /fichiers/{id}` ; `None` si la plateforme ne le connaît pas.
    pub async fn fichier(&self, id: &str) -> ReponseApi<Option<FichierDistant>> {
        match self
            .envoyer(
                self.http.get(self.url(&format!("/fichiers/{id}"))),
                |_, c| json(c),
            )
            .await
        {
            ReponseApi::Refuse { statut: 404, .. } => ReponseApi::Succes(None),
            r => r.map(Some),
        }
    }

    /// `PUT /fichiers/{id}/multipart` : l'URL signée d'une partie.
    pub async fn url_partie(&self, id: &str, numero: u32) -> ReponseApi<String> {
        self.envoyer(
            self.http
                .put(self.url(&format!("/fichiers/{id}/multipart")))
                .json(&json!({"part_number": numero})),
            |_, c| json::<UrlPartie>(c).map(|u| u.s3_signed_url),
        )
        .await
    }

    /// `POST /fichiers/{id}` : finalise (non rejouable ; rejouée après une réponse perdue, elle
    /// rend 409 « upload is already done », preuve que la première a abouti).
    pub async fn finaliser(&self, id: &str, parties: Option<&[(u32, String)]>) -> ReponseApi<()> {
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
        )
        .await
    }

    /// `DELETE /fichiers/{id}` : abandonne un envoi multipart raté.
    pub async fn abandonner(&self, id: &str) -> ReponseApi<()> {
        self.envoyer(
            self.http.delete(self.url(&format!("/fichiers/{id}"))),
            |_, _| Ok(()),
        )
        .await
    }

    /// `POST /participations/{id}/compute` : lance le calcul (jamais rejoué).
    pub async fn lancer_calcul(&self, participation: &str) -> ReponseApi<()> {
        self.envoyer(
            self.http
                .post(self.url(&format!("/participations/{participation}/compute"))),
            |_, _| Ok(()),
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
    pub fn verifier_url_signee(&self, url: &str) -> Result<(), String> {
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
                "URL signée en clair hors de la boucle locale ({origine}) : les données et la                  signature y circuleraient sans chiffrement ; rien n'est parti"
            )),
            _ => Err(format!(
                "URL signée qui n'est pas du HTTP ({origine}) : refusée"
            )),
        }
    }

    /// `PUT` d'une tranche de fichier vers une URL signée ; rend l'ETag, sans guillemets.
    /// `content_type` : le `mime` rendu par la plateforme pour un PUT simple, `None` pour une
    /// partie (aucun en-tête Content-Type n'est alors envoyé).
    pub async fn deposer_signe(
        &self,
        url: &str,
        chemin: &Path,
        debut: u64,
        taille: u64,
        content_type: Option<&str>,
        progression: Arc<Progression>,
    ) -> ReponseApi<Option<String>> {
        let corps = match CorpsFichier::ouvrir(chemin, debut, taille, progression.clone()).await {
            Ok(c) => c,
            Err(e) => {
                return ReponseApi::Refuse {
                    statut: 0,
                    retry_after: None,
                    detail: format!("fichier local illisible : {e}"),
                };
            }
        };
        // Pas d'en-tête d'autorisation ici : l'URL porte sa signature.
        let mut requete = self.http.put(url).body(reqwest::Body::wrap(corps));
        if let Some(ct) = content_type {
            requete = requete.header(CONTENT_TYPE, ct);
        }
        let r = match requete.send().await {
            Ok(r) => {
                classer_reponse(r, |entetes, _| {
                    Ok(entetes
                        .get("etag")
                        .and_then(|v| v.to_str().ok())
                        .map(|e| e.trim_matches('"').to_owned()))
                })
                .await
            }
            Err(e) => classer_erreur(e),
        };
        progression.avancer();
        r
    }
}

/// Deux dates désignent-elles le même instant ? La plateforme (Eve) rend ses dates au format
/// HTTP (« Sun, 21 Jun 2026 21:30:00 GMT ») quand on les lui a données en ISO 8601.
pub fn meme_instant(a: &str, b: &str) -> bool {
    match (instant(a), instant(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.trim() == b.trim(),
    }
}

/// Une date ISO 8601 (`2026-06-21T21:30:00Z`, fraction et décalage admis) ou HTTP, en secondes
/// Unix.
fn instant(texte: &str) -> Option<i64> {
    let t = texte.trim();
    if let Ok(d) = httpdate::parse_http_date(t) {
        return d
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs() as i64);
    }
    let nombre = |s: &str| -> Option<i64> { s.parse().ok() };
    let (date, reste) = t.split_once(['T', ' '])?;
    let mut d = date.splitn(3, '-');
    let (annee, mois, jour) = (nombre(d.next()?)?, nombre(d.next()?)?, nombre(d.next()?)?);
    let (heure_texte, decalage) = if let Some(h) = reste.strip_suffix('Z') {
        (h, 0)
    } else if let Some(i) = reste.rfind(['+', '-']) {
        let (h, z) = reste.split_at(i);
        let signe = if z.starts_with('-') { -1 } else { 1 };
        let (zh, zm) = z[1..].split_once(':').unwrap_or((&z[1..], "0"));
        (h, signe * (nombre(zh)? * 3600 + nombre(zm)? * 60))
    } else {
        (reste, 0)
    };
    let mut h = heure_texte.split(':');
    let heures = nombre(h.next()?)?;
    let minutes = nombre(h.next().unwrap_or("0"))?;
    let secondes = nombre(h.next().unwrap_or("0").split('.').next()?)?;
    if !(1..=12).contains(&mois)
        || !(1..=31).contains(&jour)
        || heures > 23
        || minutes > 59
        || secondes > 60
    {
        return None;
    }
    // Jours depuis l'époque (algorithme de H. Hinnant).
    let a = if mois <= 2 { annee - 1 } else { annee };
    let ere = a.div_euclid(400);
    let ade = a.rem_euclid(400);
    let mp = (mois + 9) % 12;
    let jda = (153 * mp + 2) / 5 + jour - 1;
    let jde = ade * 365 + ade / 4 - ade / 100 + jda;
    let jours = ere * 146_097 + jde - 719_468;
    Some(jours * 86_400 + heures * 3600 + minutes * 60 + secondes - decalage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_comparees_en_instants() {
        assert!(meme_instant(
            "2026-06-21T21:30:00Z",
            "Sun, 21 Jun 2026 21:30:00 GMT"
        ));
        assert!(meme_instant(
            "2026-06-21T23:30:00+02:00",
            "2026-06-21T21:30:00Z"
        ));
        assert!(meme_instant(
            "2026-06-21T21:30:00.000Z",
            "2026-06-21T21:30:00Z"
        ));
        assert!(!meme_instant(
            "2026-06-21T21:30:00Z",
            "2026-06-22T21:30:00Z"
        ));
        assert!(!meme_instant("n'importe quoi", "2026-06-21T21:30:00Z"));
        assert_eq!(instant("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(instant("2000-02-29T00:00:00Z"), Some(951_782_400));
    }

    #[test]
    fn messages_d_erreur_eve() {
        assert_eq!(
            message_erreur(br#"{"_error": "upload is already done"}"#),
            "upload is already done"
        );
        assert_eq!(
            message_erreur(
                br#"{"_status": "ERR", "_error": {"code": 422, "message": "titre invalide"}}"#
            ),
            "titre invalide"
        );
        assert!(message_erreur(b"<html>proxy</html>").contains("proxy"));
        let xml = b"<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code>\
            <AWSAccessKeyId>AKIAX</AWSAccessKeyId><SignatureProvided>sig</SignatureProvided>\
            <Message>mismatch</Message></Error>";
        assert_eq!(message_erreur(xml), "SignatureDoesNotMatch : mismatch");
        assert_eq!(
            message_erreur(b"<Error><Code>AccessDenied</Code></Error>"),
            "AccessDenied"
        );
        assert!(!message_erreur(br#"{"_error": "url ?Signature=abc&x=1"}"#).contains("abc"));
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
        }
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
