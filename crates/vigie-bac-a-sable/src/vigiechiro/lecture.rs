//! Relire la plateforme locale : la liste des fichiers d'une participation et l'URL de lecture
//! d'un fichier, comme les sert le serveur, et de quoi poser dans un test des fichiers déjà
//! déposés par un autre client.
//!
//! Pourquoi : `vigie` confronte chaque fichier de la nuit à ce que la plateforme a déjà
//! (inventaire distant), puis compare un fichier finalisé au fichier local par son URL de
//! lecture (taille et ETag). Ces deux routes doivent répondre ici comme le vrai serveur, y
//! compris dans ses bizarreries, puisque c'est contre elles que le client est éprouvé :
//!
//! - `GET /participations/{id}/pieces_jointes` (`resources/participations.py`
//!   `get_pieces_jointes`) : `participations.find_one` (404 sans détail), `_check_read_access`
//!   (propriétaire, administrateur ou validateur ; un autre observateur seulement si le
//!   propriétaire publie ses données : 403 sinon), `Paginator` (`xin/snippets.py` : 20 par page,
//!   `max_results` au-delà de 100 → 422 `max_results params must be < 100`), `get_url_params`
//!   (`ta`, `tc`, `wav`, `photos`, `processing_extra`, booléens écrits `true`/`false` sans égard
//!   à la casse, 422 `bad value, should be <class 'bool'>` sinon), puis `fichiers.find` dans
//!   l'ordre d'insertion, **sans** `proprietaire`, `lien_participation`, `lien_donnee` ni
//!   `lien_protocole` ; `_meta.total` compte tout ce qui correspond au filtre ;
//! - le filtre par famille réunit les types des familles demandées à `true` (`$in`). Une
//!   famille demandée à `false` n'exclut rien : le code ajoute ses types au `$in` déjà ouvert
//!   par une famille précédente (dans l'ordre `ta`, `tc`, `wav`, `photos`, `processing_extra`),
//!   et lève `KeyError('$in')` (500) s'il n'y en a pas ;
//! - `q` (recherche plein texte, `get_lookup_from_q`) suppose un index texte que la collection
//!   `fichiers` n'a pas (`bin/init_db.py` `ensure_indexes`) : MongoDB refuse, 500 ;
//! - `GET /fichiers/{id}/acces` (`resources/fichiers.py` `s3_access_file`) : `get_resource`
//!   (404 `… is not a valid fichiers resource`), `_check_access_rights` (403 pour un autre
//!   observateur quand le propriétaire ne publie pas ses données, ce qui est le cas des
//!   observateurs du bac à sable), 410 `file is not available` tant que le fichier n'est pas
//!   finalisé, puis `{"s3_signed_url"}` : une URL S3 v2 **en lecture** (`GET`), valable 10 h,
//!   que le S3 du bac à sable vérifie. `?redirection=<non vide>` rend une redirection 302 vers
//!   elle (écart : sans le petit corps HTML de Flask).
//!
//! La route `PUT /participations/{id}/pieces_jointes` (dépréciée par le serveur lui-même) n'est
//! pas imitée : 405.

use hyper::StatusCode;
use hyper::header::LOCATION;
use s3s::S3;
use s3s::dto::{DeleteObjectInput, PutObjectInput, StreamingBlob};
use serde_json::{Map, Value, json};

use super::{
    COMPARTIMENT_PLATEFORME, DESCRIPTION_403, DESCRIPTION_404, FichierPlateforme, Meta,
    OBSERVATEUR, ReponseApi, RequeteApi, Utilisateur, Vigiechiro, cle_pour, deduire_mime,
    expiration_neuve, pagination, requete_s3, tranche,
};
use crate::pourcent::decoder_pourcent;
use crate::{CLE_ACCES, SECRET, signature};

/// Les familles de `get_pieces_jointes`, dans l'ordre où `get_url_params` les rend (celui de
/// sa spécification), avec leurs types (`resources/fichiers.py` `ALLOWED_MIMES_*`).
const FAMILLES: [(&str, &[&str]); 5] = [
    ("ta", &["application/ta", "application/tac"]),
    ("tc", &["application/tc", "application/tcc"]),
    ("wav", &["audio/wav", "audio/x-wav"]),
    (
        "photos",
        &["image/bmp", "image/png", "image/jpg", "image/jpeg"],
    ),
    ("processing_extra", &["application/x-processing-extra"]),
];

/// Les paramètres d'une chaîne de requête, décodés, dans l'ordre ; pour un nom répété, le
/// premier l'emporte (`MultiDict.__getitem__` de werkzeug).
pub(super) fn parametres(requete: &RequeteApi<'_>) -> Vec<(String, String)> {
    let mut vus: Vec<(String, String)> = Vec::new();
    for paire in requete
        .parametres
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = paire.split_once('=').unwrap_or((paire, ""));
        let (k, v) = (
            decoder_pourcent(&k.replace('+', " ")),
            decoder_pourcent(&v.replace('+', " ")),
        );
        if !vus.iter().any(|(n, _)| *n == k) {
            vus.push((k, v));
        }
    }
    vus
}

/// `_check_read_access` (participation) et `_check_access_rights` (fichier) : un
/// administrateur ou un validateur lit tout ; le propriétaire lit ce qui est à lui ; un autre
/// observateur seulement si le propriétaire publie ses données (`donnees_publiques`). Les
/// utilisateurs du bac à sable sont tous observateurs et aucun ne publie
/// (`"donnees_publiques": false`) : seul le propriétaire lit.
pub(super) fn lecture_permise(lecteur: &Utilisateur, proprietaire: &str) -> bool {
    lecteur.id == proprietaire
}

/// Le filtre par famille de `get_pieces_jointes`, tel que le code l'écrit : les types admis,
/// `None` sans filtre, ou la réponse d'erreur (422 d'un booléen mal écrit, 500 d'un `false`
/// sans `$in` ouvert avant lui).
fn filtre_par_famille(
    params: &[(String, String)],
) -> Result<Option<Vec<&'static str>>, ReponseApi> {
    let mut erreurs = Map::new();
    let mut valeurs = Vec::new();
    for (famille, types) in FAMILLES {
        let Some((_, v)) = params.iter().find(|(k, _)| k == famille) else {
            continue;
        };
        match v.to_ascii_lowercase().as_str() {
            "true" => valeurs.push((true, types)),
            "false" => valeurs.push((false, types)),
            _ => {
                erreurs.insert(
                    famille.to_owned(),
                    json!("bad value, should be <class 'bool'>"),
                );
            }
        }
    }
    if !erreurs.is_empty() {
        return Err(ReponseApi::erreur(
            StatusCode::UNPROCESSABLE_ENTITY,
            Value::Object(erreurs),
        ));
    }
    let mut admis: Option<Vec<&'static str>> = None;
    for (vrai, types) in valeurs {
        match (&mut admis, vrai) {
            (Some(liste), _) => liste.extend_from_slice(types),
            (None, true) => admis = Some(types.to_vec()),
            // `lookup['mime']['$in'] += mimes` sans `$in` : KeyError, mise en forme par
            // `make_json_error` (`str(KeyError('$in'))`).
            (None, false) => return Err(ReponseApi::exception("'$in'")),
        }
    }
    Ok(admis)
}

impl FichierPlateforme {
    /// Le document tel que le liste `get_pieces_jointes` : brut, sans les relations retirées
    /// par la projection.
    fn json_piece_jointe(&self) -> Value {
        let mut o = self.json_brut();
        if let Some(o) = o.as_object_mut() {
            for champ in [
                "proprietaire",
                "lien_participation",
                "lien_donnee",
                "lien_protocole",
            ] {
                o.remove(champ);
            }
        }
        o
    }
}

impl Vigiechiro {
    /// `resources/participations.py` `get_pieces_jointes` (voir l'en-tête du module).
    pub(super) fn lister_pieces_jointes(
        &self,
        lecteur: &Utilisateur,
        participation: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let etat = self.etat();
        let p = etat
            .participations
            .iter()
            .find(|p| p.id == participation)
            .ok_or_else(|| ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404))?;
        if !lecture_permise(lecteur, &p.observateur) {
            return Err(ReponseApi::erreur(StatusCode::FORBIDDEN, DESCRIPTION_403));
        }
        let (page, max) = pagination(requete.parametres)?;
        let params = parametres(requete);
        let admis = filtre_par_famille(&params)?;
        if params.iter().any(|(k, _)| k == "q") {
            return Err(ReponseApi::exception("text index required for $text query"));
        }
        let retenus: Vec<&FichierPlateforme> = etat
            .fichiers
            .iter()
            .filter(|f| f.participation.as_deref() == Some(participation))
            .filter(|f| admis.as_ref().is_none_or(|a| a.contains(&f.mime.as_str())))
            .collect();
        let total = retenus.len();
        let (debut, nombre) = tranche(page, max);
        let items: Vec<Value> = retenus
            .into_iter()
            .skip(debut)
            .take(nombre)
            .map(FichierPlateforme::json_piece_jointe)
            .collect();
        Ok(ReponseApi::ok(json!({
            "_items": items,
            "_meta": { "max_results": max, "total": total, "page": page },
        })))
    }

    /// `resources/fichiers.py` `s3_access_file` (voir l'en-tête du module).
    pub(super) fn acces_fichier(
        &self,
        lecteur: &Utilisateur,
        id: &str,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let f = self.fichier(id)?;
        if !lecture_permise(lecteur, &f.proprietaire) {
            return Err(ReponseApi::interdit());
        }
        if !f.disponible {
            return Err(ReponseApi::erreur(
                StatusCode::GONE,
                "file is not available",
            ));
        }
        let url = self.url_lecture(&f.cle);
        let redirection = parametres(requete)
            .into_iter()
            .any(|(k, v)| k == "redirection" && !v.is_empty());
        if redirection {
            return Ok(ReponseApi {
                statut: StatusCode::FOUND,
                corps: None,
                entetes: vec![(LOCATION, url)],
            });
        }
        Ok(ReponseApi::ok(json!({ "s3_signed_url": url })))
    }

    /// URL présignée v2 d'une lecture de `cle` dans le compartiment de la plateforme, valable
    /// 10 h (`_sign_request(verb='GET', …)`).
    pub(crate) fn url_lecture(&self, cle: &str) -> String {
        signature::url_get(
            &self.base,
            CLE_ACCES,
            SECRET,
            COMPARTIMENT_PLATEFORME,
            cle,
            expiration_neuve(),
        )
    }

    // ------------------------------------------------------------------ état posé par un test

    /// Pose un fichier **finalisé** de l'observateur validé dans la participation, objet S3
    /// compris, comme l'aurait laissé un dépôt complet par un autre client (le site web, un
    /// autre portable) : l'enregistrement tel que l'écrit `fichier_create` puis
    /// `fichier_upload_done`, l'objet écrit d'un seul PUT (ETag = MD5). Rend l'identifiant.
    pub(crate) async fn poser_fichier_finalise(
        &self,
        participation: &str,
        titre: &str,
        contenu: Vec<u8>,
    ) -> anyhow::Result<String> {
        let mime =
            deduire_mime(titre).ok_or_else(|| anyhow::anyhow!("type inconnu pour {titre}"))?;
        let cle = cle_pour(mime, titre, Some(participation));
        let taille = contenu.len() as i64;
        let input = PutObjectInput::builder()
            .bucket(COMPARTIMENT_PLATEFORME.to_owned())
            .key(cle.clone())
            .content_type(Some(mime.to_owned()))
            .content_length(Some(taille))
            .body(Some(StreamingBlob::from(s3s::Body::from(contenu))))
            .build()
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        self.stockage
            .put_object(requete_s3(input))
            .await
            .map_err(|e| anyhow::anyhow!("objet {cle} : {e}"))?;
        let mut etat = self.etat();
        anyhow::ensure!(
            etat.participations.iter().any(|p| p.id == participation),
            "participation inconnue : {participation}"
        );
        anyhow::ensure!(
            etat.fichiers.par_cle(&cle).is_none(),
            "{cle} est déjà enregistré"
        );
        let id = etat.nouvel_id();
        etat.fichiers.ajouter(FichierPlateforme {
            id: id.clone(),
            titre: titre.to_owned(),
            cle,
            participation: Some(participation.to_owned()),
            proprietaire: OBSERVATEUR.to_owned(),
            multipart: false,
            disponible: true,
            mime: mime.to_owned(),
            id_envoi: None,
            meta: Meta::neuve(),
        });
        Ok(id)
    }

    /// Supprime l'enregistrement d'un fichier et son objet S3, finalisé ou non, comme le fait
    /// un gestionnaire de la plateforme (`resources/fichiers.py` `delete_fichier_and_s3`, que
    /// seuls les scripts d'administration appellent). `false` s'il n'existait pas.
    pub(crate) async fn supprimer_comme_un_gestionnaire(
        &self,
        participation: &str,
        titre: &str,
    ) -> anyhow::Result<bool> {
        let Some(mime) = deduire_mime(titre) else {
            return Ok(false);
        };
        let cle = cle_pour(mime, titre, Some(participation));
        let supprime = {
            let mut etat = self.etat();
            etat.fichiers.retirer_cle(&cle).is_some()
        };
        if supprime {
            let input = DeleteObjectInput::builder()
                .bucket(COMPARTIMENT_PLATEFORME.to_owned())
                .key(cle.clone())
                .build()
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            self.stockage
                .delete_object(requete_s3(input))
                .await
                .map_err(|e| anyhow::anyhow!("objet {cle} : {e}"))?;
        }
        Ok(supprime)
    }
}
