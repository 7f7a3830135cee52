//! Relire la plateforme : la liste des fichiers d'une participation, l'URL de lecture d'un
//! fichier finalisé, et la taille et l'ETag de l'objet derrière cette URL.
//!
//! Ce que le serveur rend (`Scille/vigiechiro-api`) :
//! - `GET /participations/{id}/pieces_jointes` (`resources/participations.py`
//!   `get_pieces_jointes`) : `{"_items": [...], "_meta": {"max_results", "total", "page"}}`
//!   (`xin/snippets.py` `Paginator` : 100 au plus par page, 422 au-delà), chaque élément sans
//!   ses relations (`_id`, `titre`, `mime`, `s3_id`, `disponible`, et
//!   `s3_upload_multipart_id` pour un fichier déclaré en plusieurs parties, finalisé ou non) ;
//!   filtrable par famille (`?wav=true`, `ta`, `tc` : les familles demandées se réunissent) ;
//! - `GET /fichiers/{id}/acces` (`resources/fichiers.py` `s3_access_file`) :
//!   `{"s3_signed_url"}`, une URL S3 signée **en lecture** ; 410 tant que le fichier n'est pas
//!   finalisé, 404 s'il n'existe pas ;
//! - sur cette URL, `GET` avec `Range: bytes=0-0` : 206, `Content-Range: bytes 0-0/<taille>`
//!   et l'`ETag` (le MD5 d'un objet envoyé en un PUT, `md5(md5₁‖…‖md5ₙ)-n` pour un objet
//!   assemblé en n parties), sans télécharger l'objet. Un service qui ignore `Range` répond
//!   200 : on lit alors `Content-Length` et l'on coupe sans lire le corps.
//!
//! Comme pour les URL d'envoi, aucune autorisation ne part vers l'URL de lecture, qui est
//! vérifiée avant toute connexion ([`ClientVigieChiro::verifier_url_signee`]).

use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, ETAG, HeaderMap, RANGE};
use serde::Deserialize;

use super::{ClientVigieChiro, aucun_refus, classer_erreur, classer_reponse, json};
use crate::destination::IdObjet;
use crate::reessai::ReponseApi;

/// Un fichier d'une participation, tel que le liste la plateforme.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct PieceJointe {
    #[serde(rename = "_id")]
    pub(crate) id: IdObjet,
    pub(crate) titre: String,
    /// La clé S3 (`wav/pa-<participation>/<titre>`…).
    #[serde(default)]
    pub(crate) s3_id: Option<String>,
    /// Finalisé : la plateforme refuse de le redéclarer ou de le remplacer.
    #[serde(default)]
    pub(crate) disponible: bool,
    /// L'envoi en plusieurs parties que l'enregistrement tient (ou a tenu, s'il est finalisé).
    #[serde(default)]
    pub(crate) s3_upload_multipart_id: Option<String>,
}

impl PieceJointe {
    /// L'enregistrement tient-il un envoi en plusieurs parties ? Sa finalisation exige alors
    /// les parties.
    pub(crate) fn est_multipart(&self) -> bool {
        self.s3_upload_multipart_id.is_some()
    }
}

/// Une page de la liste.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PagePiecesJointes {
    #[serde(rename = "_items")]
    pub(crate) items: Vec<PieceJointe>,
    #[serde(rename = "_meta", default)]
    pub(crate) meta: Option<MetaPage>,
}

impl PagePiecesJointes {
    /// Le nombre de fichiers qu'annonce la page, toutes pages confondues.
    pub(crate) fn total(&self) -> Option<u64> {
        self.meta.and_then(|m| m.total)
    }
}

/// `_meta` d'une page (`Paginator.make_response`).
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct MetaPage {
    /// Le nombre de fichiers qui correspondent au filtre, toutes pages confondues.
    #[serde(default)]
    pub(crate) total: Option<u64>,
}

/// Ce que rend `GET /fichiers/{id}/acces`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AccesFichier {
    /// L'URL signée de lecture (un secret : jamais dans un message ni dans la base).
    Url(String),
    /// 410 : le fichier n'est pas finalisé.
    NonDisponible,
    /// 404 : la plateforme ne connaît pas ce fichier.
    Inconnu,
}

/// La taille et l'ETag d'un objet, lus derrière une URL de lecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ObjetLu {
    pub(crate) taille: u64,
    /// Sans ses guillemets ; absent si le service n'en rend pas.
    pub(crate) etag: Option<String>,
}

#[derive(Deserialize)]
struct UrlLecture {
    s3_signed_url: String,
}

/// La taille totale d'un `Content-Range` : `bytes 0-0/300000` → 300000, `bytes */0` → 0.
fn taille_de_content_range(valeur: &str) -> Option<u64> {
    valeur
        .trim()
        .strip_prefix("bytes ")?
        .rsplit_once('/')?
        .1
        .trim()
        .parse()
        .ok()
}

fn entete(entetes: &HeaderMap, nom: reqwest::header::HeaderName) -> Option<&str> {
    entetes.get(nom).and_then(|v| v.to_str().ok())
}

/// La taille et l'ETag d'une réponse à `GET` + `Range: bytes=0-0` : 206 (`Content-Range`),
/// 200 d'un service qui ignore `Range` (`Content-Length`), 416 d'un objet vide (`bytes */0`).
fn objet_lu(statut: StatusCode, entetes: &HeaderMap) -> Option<ObjetLu> {
    let taille = match statut {
        StatusCode::PARTIAL_CONTENT | StatusCode::RANGE_NOT_SATISFIABLE => {
            taille_de_content_range(entete(entetes, CONTENT_RANGE)?)?
        }
        StatusCode::OK => entete(entetes, CONTENT_LENGTH)?.trim().parse().ok()?,
        _ => return None,
    };
    let etag = entete(entetes, ETAG)
        .map(|e| {
            e.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .to_owned()
        })
        .filter(|e| !e.is_empty());
    Some(ObjetLu { taille, etag })
}

impl ClientVigieChiro {
    /// `GET /participations/{id}/pieces_jointes?max_results=N&page=P[&famille=true…]` : une
    /// page de la liste des fichiers de la participation. `familles` : les noms de paramètre
    /// des familles à réunir (`wav`, `ta`, `tc`) ; vide, tous les fichiers.
    pub(crate) async fn pieces_jointes(
        &self,
        participation: &IdObjet,
        page: u64,
        par_page: u64,
        familles: &[&str],
    ) -> ReponseApi<PagePiecesJointes> {
        let mut url = self.url(&format!(
            "/participations/{participation}/pieces_jointes?max_results={par_page}&page={page}"
        ));
        for famille in familles {
            url.push_str(&format!("&{famille}=true"));
        }
        self.envoyer(self.http.get(url), |_, c| json(c), aucun_refus)
            .await
    }

    /// `GET /fichiers/{id}/acces` : l'URL signée de lecture d'un fichier finalisé.
    pub(crate) async fn url_de_lecture(&self, id: &IdObjet) -> ReponseApi<AccesFichier> {
        self.envoyer(
            self.http.get(self.url(&format!("/fichiers/{id}/acces"))),
            |_, c| json::<UrlLecture>(c).map(|u| AccesFichier::Url(u.s3_signed_url)),
            |statut, _, _| match statut {
                410 => Some(AccesFichier::NonDisponible),
                404 => Some(AccesFichier::Inconnu),
                _ => None,
            },
        )
        .await
    }

    /// `GET <url>` avec `Range: bytes=0-0` : la taille et l'ETag de l'objet, sans le
    /// télécharger ; `None` si le stockage ne l'a pas (404). Ni jeton ni autorisation : l'URL
    /// porte sa signature.
    pub(crate) async fn lire_objet(&self, url: &str) -> ReponseApi<Option<ObjetLu>> {
        let reponse = match self.http.get(url).header(RANGE, "bytes=0-0").send().await {
            Ok(r) => r,
            Err(e) => return classer_erreur(e),
        };
        let statut = reponse.status();
        if let Some(objet) = objet_lu(statut, reponse.headers()) {
            // Le corps (un octet, ou l'objet entier d'un service qui ignore `Range`) n'est pas
            // lu : la connexion est abandonnée avec la réponse.
            return ReponseApi::Succes(Some(objet));
        }
        if statut.is_success() {
            // Le stockage a répondu, mal : ce n'est pas une coupure du réseau.
            return ReponseApi::Illisible {
                statut: statut.as_u16(),
                detail: format!(
                    "réponse illisible du stockage (statut {}, sans taille)",
                    statut.as_u16()
                ),
            };
        }
        // Un refus, ou une redirection (jamais suivie hors du même hôte) : son corps est lu
        // sous le plafond des réponses.
        classer_reponse(
            reponse,
            |_, _| Err("réponse sans taille".to_owned()),
            |statut, _, _| (statut == 404).then_some(None),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn entetes(paires: &[(reqwest::header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in paires {
            h.insert(n.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn taille_et_etag_d_une_lecture_d_un_octet() {
        let h = entetes(&[(CONTENT_RANGE, "bytes 0-0/300000"), (ETAG, "\"0123abcd\"")]);
        assert_eq!(
            objet_lu(StatusCode::PARTIAL_CONTENT, &h),
            Some(ObjetLu {
                taille: 300_000,
                etag: Some("0123abcd".into())
            })
        );
        // Un service qui ignore `Range` : la taille entière par Content-Length.
        let h = entetes(&[(CONTENT_LENGTH, "42"), (ETAG, "\"ab-3\"")]);
        assert_eq!(
            objet_lu(StatusCode::OK, &h),
            Some(ObjetLu {
                taille: 42,
                etag: Some("ab-3".into())
            })
        );
        // Un objet vide : 416 et `bytes */0`.
        let h = entetes(&[(CONTENT_RANGE, "bytes */0")]);
        assert_eq!(
            objet_lu(StatusCode::RANGE_NOT_SATISFIABLE, &h),
            Some(ObjetLu {
                taille: 0,
                etag: None
            })
        );
        // Sans taille lisible, ou un refus : rien.
        for (statut, h) in [
            (
                StatusCode::PARTIAL_CONTENT,
                entetes(&[(CONTENT_RANGE, "octets 0-0/1")]),
            ),
            (
                StatusCode::PARTIAL_CONTENT,
                entetes(&[(CONTENT_RANGE, "bytes 0-0/-1")]),
            ),
            (StatusCode::OK, entetes(&[])),
            (StatusCode::FORBIDDEN, entetes(&[(CONTENT_LENGTH, "3")])),
        ] {
            assert_eq!(objet_lu(statut, &h), None, "{statut} {h:?}");
        }
    }

    #[test]
    fn une_page_se_lit_sans_les_champs_inutiles() {
        let page: PagePiecesJointes = serde_json::from_str(
            r#"{"_items": [{"_id": "64a1b2c3d4e5f60718293e01", "titre": "a.wav", "mime": "audio/wav",
                "s3_id": "wav/pa-x/a.wav", "disponible": true, "_etag": "e", "_created": "2026-06-21T00:00:00"},
               {"_id": "64a1b2c3d4e5f60718293e02", "titre": "b.wav", "disponible": false,
                "s3_upload_multipart_id": "u"}],
               "_meta": {"max_results": 100, "total": 2, "page": 1}}"#,
        )
        .unwrap();
        assert_eq!(page.items.len(), 2);
        assert!(page.items[0].disponible && !page.items[0].est_multipart());
        assert!(!page.items[1].disponible && page.items[1].est_multipart());
        assert_eq!(page.meta.and_then(|m| m.total), Some(2));
        // Un identifiant qui n'est pas un ObjectId rend la page illisible.
        assert!(
            serde_json::from_str::<PagePiecesJointes>(
                r#"{"_items": [{"_id": "../moi", "titre": "a.wav"}]}"#
            )
            .is_err()
        );
    }
}
