//! Tests de la plateforme Vigie-Chiro locale, par HTTP (reqwest), comme le client `vigie`.
//!
//! Pourquoi par HTTP : ce que les tests de `vigie` affirmeront (« un PUT au mauvais
//! Content-Type est refusé », « la finalisation rejouée rend 409 », « la redéclaration
//! multipart laisse un envoi orphelin ») doit être vrai au niveau du protocole, URL signées
//! comprises, et la couche de pannes doit frapper l'API comme S3.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::tests::donnees;
use super::*;

const MIO: usize = 1 << 20;

pub(super) struct Banc {
    pub(super) bac: BacASable,
    pub(super) http: reqwest::Client,
    _dossier: tempfile::TempDir,
}

pub(super) async fn banc() -> Banc {
    let dossier = tempfile::tempdir().expect("dossier temporaire");
    let bac = BacASable::demarrer(&dossier.path().join("bac"), 0)
        .await
        .expect("démarrage du bac à sable");
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client HTTP");
    Banc {
        bac,
        http,
        _dossier: dossier,
    }
}

/// Un nom de séquence valide (protocole point fixe), distinct pour chaque `n`.
pub(super) fn titre(n: u32) -> String {
    format!("Car640123-2026-Pass1-A1-OB-1_20260620_2130{n:02}_123.wav")
}

pub(super) fn md5_hex(d: &[u8]) -> String {
    use s3s::crypto::{Checksum, Md5};
    let mut m = Md5::new();
    m.update(d);
    m.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn maintenant() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("horloge")
        .as_secs()
}

impl Banc {
    /// Appel d'API avec ce jeton (`None` : sans en-tête d'autorisation).
    pub(super) async fn appel_avec(
        &self,
        jeton: Option<&str>,
        methode: Method,
        chemin: &str,
        corps: Option<Value>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let mut r = self
            .http
            .request(methode, format!("{}{chemin}", self.bac.api()));
        if let Some(j) = jeton {
            r = r.basic_auth(j, Some(""));
        }
        if let Some(c) = corps {
            r = r.json(&c);
        }
        let rep = r.send().await?;
        let statut = rep.status();
        let texte = rep.text().await?;
        let corps = if texte.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&texte).unwrap_or(Value::String(texte))
        };
        Ok((statut, corps))
    }

    pub(super) async fn appel(
        &self,
        methode: Method,
        chemin: &str,
        corps: Option<Value>,
    ) -> (StatusCode, Value) {
        self.appel_avec(Some(JETON), methode, chemin, corps)
            .await
            .expect("réponse de l'API")
    }

    pub(super) async fn declarer(&self, titre: &str, multipart: bool) -> (StatusCode, Value) {
        self.appel(
            Method::POST,
            "/fichiers",
            Some(json!({ "titre": titre, "multipart": multipart, "lien_participation": PARTICIPATION })),
        )
        .await
    }

    /// PUT vers une URL signée ; rend le statut, l'ETag (guillemets compris) et le corps.
    pub(super) async fn put(
        &self,
        url: &str,
        content_type: Option<&str>,
        corps: Vec<u8>,
    ) -> (StatusCode, Option<String>, String) {
        let mut r = self.http.put(url).body(corps);
        if let Some(t) = content_type {
            r = r.header("content-type", t);
        }
        let rep = r.send().await.expect("réponse S3");
        let statut = rep.status();
        let etag = rep
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        (statut, etag, rep.text().await.unwrap_or_default())
    }

    async fn url_partie(&self, id: &str, n: u32) -> String {
        let (s, v) = self
            .appel(
                Method::PUT,
                &format!("/fichiers/{id}/multipart"),
                Some(json!({ "part_number": n })),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v["s3_signed_url"]
            .as_str()
            .expect("URL de partie")
            .to_owned()
    }
}

/// Le corps d'erreur de la plateforme (`app.py` `make_json_error`) : `_status` écrit à la
/// Python, `_errors` la description.
pub(super) fn erreur(statut: &str, description: Value) -> Value {
    let texte = match &description {
        Value::String(s) => s.clone(),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("'{k}': '{}'", v.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        autre => autre.to_string(),
    };
    json!({ "_status": format!("{statut}: {texte}"), "_errors": description })
}

/// Les champs d'un document, hors `_created`, `_updated` et `_etag` (que tout document porte).
pub(super) fn cles_utiles(v: &Value) -> Vec<String> {
    for meta in ["_created", "_updated", "_etag"] {
        assert!(v[meta].is_string(), "{meta} absent : {v}");
    }
    cles(v)
        .into_iter()
        .filter(|k| !["_created", "_updated", "_etag"].contains(&k.as_str()))
        .collect()
}

pub(super) fn id_de(v: &Value) -> String {
    v["_id"].as_str().expect("_id").to_owned()
}

fn cles(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}

// ------------------------------------------------------------------ dépôt

#[tokio::test(flavor = "multi_thread")]
async fn parcours_complet_non_multipart() {
    let b = banc().await;
    assert!(b.bac.api().ends_with("/api/v1"));
    let t = titre(1);
    let cle = cle_fichier(PARTICIPATION, &t).expect("clé");
    assert_eq!(cle, format!("wav/pa-{PARTICIPATION}/{t}"));

    let (s, v) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    // Le document entier (`_s3_create_singlepart`), plus l'URL signée.
    assert_eq!(
        cles_utiles(&v),
        [
            "_id",
            "disponible",
            "lien_participation",
            "mime",
            "proprietaire",
            "s3_id",
            "s3_signed_url",
            "titre"
        ]
    );
    assert_eq!(v["mime"], "audio/wav");
    assert_eq!(v["lien_participation"], PARTICIPATION);
    assert_eq!(v["proprietaire"], OBSERVATEUR);
    let id = id_de(&v);
    let url = v["s3_signed_url"].as_str().expect("URL").to_owned();
    assert!(
        url.starts_with(&format!(
            "{}/{COMPARTIMENT_PLATEFORME}/{cle}?AWSAccessKeyId=",
            b.bac.endpoint()
        )),
        "{url}"
    );
    let expires: u64 = url
        .split("Expires=")
        .nth(1)
        .and_then(|r| r.split('&').next())
        .and_then(|e| e.parse().ok())
        .expect("Expires");
    let dans = expires.saturating_sub(maintenant());
    assert!((35_990..=36_000).contains(&dans), "{dans} s");

    let d = donnees(300_000, 1);
    let (s, etag, corps) = b.put(&url, Some("audio/wav"), d.clone()).await;
    assert_eq!(s, StatusCode::OK, "{corps}");
    assert_eq!(etag, Some(format!("\"{}\"", md5_hex(&d))));

    let (s, v) = b
        .appel(Method::POST, &format!("/fichiers/{id}"), Some(json!({})))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["disponible"], true);
    assert_eq!(v["_id"], id.as_str());
    assert_eq!(v["s3_id"], cle.as_str());
    // Relu par `update` : relations développées.
    assert_eq!(v["lien_participation"]["_id"], PARTICIPATION);
    assert_eq!(v["proprietaire"]["_id"], OBSERVATEUR);

    // l'objet est identique, relisible comme les autres
    assert_eq!(
        std::fs::read(b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &cle)).expect("objet"),
        d
    );
    let h = b
        .bac
        .client()
        .head_object()
        .bucket(COMPARTIMENT_PLATEFORME)
        .key(&cle)
        .send()
        .await
        .expect("HeadObject");
    assert_eq!(h.content_length(), Some(300_000));
    assert_eq!(h.content_type(), Some("audio/wav"));

    let f = b.bac.fichier(PARTICIPATION, &t).expect("enregistrement");
    assert_eq!(
        f,
        FichierPlateforme {
            id: id.clone(),
            titre: t.clone(),
            cle: cle.clone(),
            participation: Some(PARTICIPATION.to_owned()),
            proprietaire: OBSERVATEUR.to_owned(),
            multipart: false,
            disponible: true,
            mime: "audio/wav".to_owned(),
            id_envoi: None,
            meta: f.meta.clone(),
        }
    );
    assert!(b.bac.fichiers_disponibles_sans_objet().is_empty());
    let (s, v) = b.appel(Method::GET, &format!("/fichiers/{id}"), None).await;
    assert_eq!((s, &v["disponible"]), (StatusCode::OK, &json!(true)));
    // `get_resource` : le document brut, relations en identifiants.
    assert_eq!(v["lien_participation"], PARTICIPATION);

    // finalisation rejouée, redéclaration : 409
    let (s, v) = b
        .appel(Method::POST, &format!("/fichiers/{id}"), Some(json!({})))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(v, erreur("409 Conflict", json!("upload is already done")));
    let (s, v) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(v, erreur("409 Conflict", json!("upload is already done")));
    // abandonner un fichier finalisé : 422
    let (s, _) = b
        .appel(Method::DELETE, &format!("/fichiers/{id}"), None)
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);

    // compteurs : le PUT présigné compte comme un PutObject sur la clé
    let c = b.bac.compteurs();
    assert_eq!(c.requetes_cle(Operation::PutObject, &cle), 1);
    assert_eq!(c.traitees_cle(Operation::PutObject, &cle), 1);
    assert_eq!(c.octets_recus_cle(&cle), 300_000);
    assert_eq!(c.requetes(Operation::ApiDeclarerFichier), 2);
    assert_eq!(c.requetes_cle(Operation::ApiFinaliser, &cle), 2);
    assert_eq!(c.traitees(Operation::ApiFinaliser), 1);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn le_content_type_est_signe() {
    let b = banc().await;
    let t = titre(2);
    let (_, v) = b.declarer(&t, false).await;
    let url = v["s3_signed_url"].as_str().expect("URL").to_owned();
    let d = donnees(10_000, 2);
    for mauvais in [Some("audio/x-wav"), Some("application/octet-stream"), None] {
        let (s, _, corps) = b.put(&url, mauvais, d.clone()).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{mauvais:?}");
        assert!(corps.contains("SignatureDoesNotMatch"), "{corps}");
    }
    // la signature v2 couvre aussi Content-MD5 et les en-têtes x-amz-* : un client ne doit
    // en ajouter aucun
    for (nom, valeur) in [
        ("x-amz-checksum-crc32c", "AAAAAA=="),
        ("content-md5", "1B2M2Y8AsgTpgAmY7PhCfg=="),
    ] {
        let rep = b
            .http
            .put(&url)
            .header("content-type", "audio/wav")
            .header(nom, valeur)
            .body(d.clone())
            .send()
            .await
            .expect("réponse S3");
        assert_eq!(rep.status(), StatusCode::FORBIDDEN, "{nom}");
    }
    let cle = cle_fichier(PARTICIPATION, &t).expect("clé");
    assert!(!b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &cle).exists());
    let (s, _, _) = b.put(&url, Some("audio/wav"), d).await;
    assert_eq!(s, StatusCode::OK);
    // les refus ont été reçus et comptés comme des PutObject
    assert_eq!(
        b.bac.compteurs().requetes_cle(Operation::PutObject, &cle),
        6
    );
    assert_eq!(
        b.bac.compteurs().traitees_cle(Operation::PutObject, &cle),
        1
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn url_expiree_ou_forgee() {
    let b = banc().await;
    let t = titre(3);
    let (s, _) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED);
    let cle = cle_fichier(PARTICIPATION, &t).expect("clé");
    let d = donnees(1000, 3);

    let expiree = b.bac.url_signee(&cle, "audio/wav", maintenant() - 10);
    let (s, _, corps) = b.put(&expiree, Some("audio/wav"), d.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{corps}");
    assert!(corps.contains("AccessDenied"), "{corps}");

    // une signature altérée
    let valide = b.bac.url_signee(&cle, "audio/wav", maintenant() + 60);
    let alteree = valide.replace("Signature=", "Signature=A");
    let (s, _, corps) = b.put(&alteree, Some("audio/wav"), d.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{corps}");

    // la fonction de signature des tests fabrique des URL que s3s accepte
    let (s, _, corps) = b.put(&valide, Some("audio/wav"), d.clone()).await;
    assert_eq!(s, StatusCode::OK, "{corps}");
    assert_eq!(
        std::fs::read(b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &cle)).expect("objet"),
        d
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_complet_deux_parties_de_5_mio() {
    let b = banc().await;
    let t = titre(4);
    let cle = cle_fichier(PARTICIPATION, &t).expect("clé");
    let (s, v) = b.declarer(&t, true).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    // Le document entier (`_s3_create_multipart`), sans URL, avec l'envoi S3 ouvert.
    assert_eq!(
        cles_utiles(&v),
        [
            "_id",
            "disponible",
            "lien_participation",
            "mime",
            "proprietaire",
            "s3_id",
            "s3_upload_multipart_id",
            "titre"
        ]
    );
    let id = id_de(&v);
    let envois = b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME);
    assert_eq!(envois.len(), 1);
    assert_eq!(v["s3_upload_multipart_id"], envois[0].1.as_str());
    let f = b.bac.fichier(PARTICIPATION, &t).expect("enregistrement");
    assert!(f.multipart && !f.disponible);
    assert_eq!(f.id_envoi.as_deref(), Some(envois[0].1.as_str()));
    assert!(b.bac.envois_orphelins().is_empty());

    let p1 = donnees(5 * MIO, 10);
    let p2 = donnees(5 * MIO, 11);
    let url1 = b.url_partie(&id, 1).await;
    assert!(url1.contains("?partNumber=1&uploadId="), "{url1}");
    // une partie qui porte un Content-Type : 403
    let (s, _, corps) = b
        .put(&url1, Some("application/octet-stream"), p1.clone())
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert!(corps.contains("SignatureDoesNotMatch"), "{corps}");
    let (s, _, corps) = b.put(&url1, Some("audio/wav"), p1.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{corps}");
    // sans Content-Type : 200 et l'ETag
    let (s, e1, _) = b.put(&url1, None, p1.clone()).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(e1, Some(format!("\"{}\"", md5_hex(&p1))));
    let url2 = b.url_partie(&id, 2).await;
    let (s, e2, _) = b.put(&url2, None, p2.clone()).await;
    assert_eq!(s, StatusCode::OK);
    // l'URL d'une partie ne vaut que pour elle
    let (s, _, _) = b
        .put(
            &url2.replace("partNumber=2", "partNumber=3"),
            None,
            p2.clone(),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);

    let sans_guillemets = |e: Option<String>| e.unwrap_or_default().trim_matches('"').to_owned();
    let parts = json!({ "parts": [
        { "part_number": 1, "etag": sans_guillemets(e1) },
        { "part_number": 2, "etag": sans_guillemets(e2) },
    ]});
    // parties mal formées : refus sans toucher à l'envoi
    let (s, v) = b
        .appel(Method::POST, &format!("/fichiers/{id}"), Some(json!({})))
        .await;
    assert_eq!(
        (s, v),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            erreur("422 Unprocessable Entity", json!("missing field parts"))
        )
    );
    let (s, _) = b
        .appel(
            Method::POST,
            &format!("/fichiers/{id}"),
            Some(json!({ "parts": [{ "part_number": 1, "etag": "x", "taille": 3 }] })),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    let (s, v) = b
        .appel(
            Method::POST,
            &format!("/fichiers/{id}"),
            Some(json!({ "parts": [{ "part_number": 1, "etag": "0000" }] })),
        )
        .await;
    // Le refus de S3 remonte en exception : `_status` seul, qui cite l'URL signée.
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
    assert!(v.get("_errors").is_none(), "{v}");
    let statut = v["_status"].as_str().unwrap_or_default();
    assert!(
        statut.starts_with("Error with S3: on ") && statut.contains("Signature="),
        "{v}"
    );
    assert_eq!(b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME).len(), 1);

    let (s, v) = b
        .appel(
            Method::POST,
            &format!("/fichiers/{id}"),
            Some(parts.clone()),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["disponible"], true);
    let sur_disque =
        std::fs::read(b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &cle)).expect("objet");
    assert!(
        sur_disque.len() == 10 * MIO
            && sur_disque[..5 * MIO] == p1[..]
            && sur_disque[5 * MIO..] == p2[..]
    );
    assert!(b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME).is_empty());
    assert!(
        b.bac
            .fichier(PARTICIPATION, &t)
            .is_some_and(|f| f.disponible)
    );

    // rejouée : 409, la preuve que la première a abouti
    let (s, v) = b
        .appel(Method::POST, &format!("/fichiers/{id}"), Some(parts))
        .await;
    assert_eq!(
        (s, v),
        (
            StatusCode::CONFLICT,
            erreur("409 Conflict", json!("upload is already done"))
        )
    );

    let c = b.bac.compteurs();
    assert_eq!(
        c.octets_recus_cle(&cle),
        (5 + 5 + 5 + 5 + 5) as u64 * MIO as u64
    );
    assert_eq!(c.traitees_cle(Operation::UploadPart, &cle), 2);
    assert_eq!(c.traitees(Operation::ApiFinaliser), 1);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn redeclarations_et_envois_orphelins() {
    let b = banc().await;
    // multipart rejoué : même _id, un envoi S3 orphelin de plus, l'id stocké reste l'ancien
    let t = titre(5);
    let (_, v1) = b.declarer(&t, true).await;
    let stocke = b
        .bac
        .fichier(PARTICIPATION, &t)
        .and_then(|f| f.id_envoi)
        .expect("id d'envoi");
    let (s, v2) = b.declarer(&t, true).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(id_de(&v1), id_de(&v2));
    assert_eq!(b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME).len(), 2);
    let orphelins = b.bac.envois_orphelins();
    assert_eq!(orphelins.len(), 1);
    assert_ne!(orphelins[0].1, stocke);
    assert_eq!(
        b.bac.fichier(PARTICIPATION, &t).and_then(|f| f.id_envoi),
        Some(stocke)
    );
    assert_eq!(b.bac.fichiers().len(), 1);

    // l'abandon ferme l'envoi stocké et efface l'enregistrement ; l'orphelin reste
    let id = id_de(&v1);
    let (s, v) = b
        .appel(Method::DELETE, &format!("/fichiers/{id}"), None)
        .await;
    assert_eq!((s, v), (StatusCode::NO_CONTENT, Value::Null));
    assert!(b.bac.fichiers().is_empty());
    assert_eq!(b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME), orphelins);
    let (s, _) = b.appel(Method::GET, &format!("/fichiers/{id}"), None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // simple rejoué (non finalisé) : même _id, URL neuve
    let t = titre(6);
    let (_, v1) = b.declarer(&t, false).await;
    let (s, v2) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(id_de(&v1), id_de(&v2));
    assert!(v2["s3_signed_url"].is_string());

    // un fichier simple n'a pas d'URL de partie
    let (s, v) = b
        .appel(
            Method::PUT,
            &format!("/fichiers/{}/multipart", id_de(&v1)),
            Some(json!({ "part_number": 1 })),
        )
        .await;
    assert_eq!(
        (s, v),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            erreur("422 Unprocessable Entity", json!("not a multipart"))
        )
    );
    b.bac.arreter().await;
}

/// Un enregistrement non finalisé est rendu **tel quel**, quelle que soit la déclaration :
/// multipart à une déclaration simple (avec URL, mais sa finalisation exige les parties), et
/// sans envoi multipart à une déclaration multipart (qui ouvre pourtant un envoi, orphelin).
#[tokio::test(flavor = "multi_thread")]
async fn enregistrement_rendu_tel_quel_quelle_que_soit_la_declaration() {
    let b = banc().await;
    // Laissé en multipart, redéclaré simple.
    let t = titre(13);
    let (_, v1) = b.declarer(&t, true).await;
    let (s, v2) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(id_de(&v1), id_de(&v2));
    assert_eq!(v2["s3_upload_multipart_id"], v1["s3_upload_multipart_id"]);
    assert!(v2["s3_signed_url"].is_string());
    // Relu par `find_one` : relations développées.
    assert_eq!(v2["lien_participation"]["_id"], PARTICIPATION);
    assert!(
        v2["proprietaire"]["email"].is_null(),
        "courriel caché : {v2}"
    );
    let (s, v) = b
        .appel(
            Method::POST,
            &format!("/fichiers/{}", id_de(&v1)),
            Some(json!({})),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["_errors"], "missing field parts");
    // Supprimé (permis tant qu'il n'est pas finalisé), puis redéclaré simple : neuf.
    let (s, _) = b
        .appel(Method::DELETE, &format!("/fichiers/{}", id_de(&v1)), None)
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (_, v3) = b.declarer(&t, false).await;
    assert_ne!(id_de(&v3), id_de(&v1));
    assert!(v3.get("s3_upload_multipart_id").is_none(), "{v3}");

    // Laissé simple (un envoi interrompu du site web), redéclaré multipart.
    let t = titre(14);
    let (_, v1) = b.declarer(&t, false).await;
    let avant = b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME).len();
    let (s, v2) = b.declarer(&t, true).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(id_de(&v1), id_de(&v2));
    assert!(v2.get("s3_upload_multipart_id").is_none(), "{v2}");
    assert!(v2.get("s3_signed_url").is_none(), "{v2}");
    assert_eq!(
        b.bac.envois_en_cours(COMPARTIMENT_PLATEFORME).len(),
        avant + 1,
        "l'envoi ouvert par la déclaration multipart reste, orphelin"
    );
    // Un enregistrement simple se supprime sans rien demander à S3.
    let (s, _) = b
        .appel(Method::DELETE, &format!("/fichiers/{}", id_de(&v1)), None)
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    b.bac.arreter().await;
}

/// S3 refuse d'ouvrir l'envoi (`_s3_create_multipart`) : 500, rien n'est enregistré ; la
/// déclaration simple marche toujours.
#[tokio::test(flavor = "multi_thread")]
async fn multipart_refuse_par_s3() {
    let b = banc().await;
    b.bac.refuser_multipart(true);
    let t = titre(15);
    let (s, v) = b.declarer(&t, true).await;
    assert_eq!(
        (s, v),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            erreur(
                "500 Internal Server Error",
                json!("S3 has rejected file creation request")
            )
        )
    );
    assert!(b.bac.fichiers().is_empty());
    let (s, v) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    b.bac.refuser_multipart(false);
    let (s, v) = b.declarer(&titre(16), true).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn titres_refuses_en_422() {
    let b = banc().await;
    let t = titre(7);
    let cas = [
        (
            t.replace(".wav", ".WAV"),
            json!({ "titre": "unknown file type" }),
        ),
        (
            t.replace("OB-1", "OB 1"),
            json!({ "titre": "string contains forbidden characters" }),
        ),
        (
            t.replace("OB-1", "OB-é"),
            json!({ "titre": "string contains forbidden characters" }),
        ),
        (
            "nuit-du-20.wav".to_owned(),
            json!({ "titre": "invalid name nuit-du-20.wav" }),
        ),
        (
            t.replace(".wav", ".mp3"),
            json!({ "titre": "unknown file type" }),
        ),
    ];
    for (titre, attendu) in cas {
        let (s, v) = b.declarer(&titre, false).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{titre}");
        assert_eq!(v, erreur("422 Unprocessable Entity", attendu), "{titre}");
    }
    // participation inconnue
    let (s, v) = b
        .appel(
            Method::POST,
            "/fichiers",
            Some(json!({ "titre": t, "lien_participation": "64a1b2c3d4e5f60718293dff" })),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(
        v["_errors"]["lien_participation"],
        "value '64a1b2c3d4e5f60718293dff' must exist in resource 'participations', field '_id'."
    );
    // un titre qui n'est pas un texte : `TypeError` de Python, donc 500 sans `_errors`
    let (s, v) = b
        .appel(Method::POST, "/fichiers", Some(json!({ "titre": 12 })))
        .await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
    assert!(
        v.get("_errors").is_none() && v["_status"].is_string(),
        "{v}"
    );
    // le client n'envoie pas `mime` : champ inconnu
    let (s, v) = b
        .appel(
            Method::POST,
            "/fichiers",
            Some(json!({ "titre": t, "mime": "audio/wav" })),
        )
        .await;
    assert_eq!(
        (s, v),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            erreur(
                "422 Unprocessable Entity",
                json!({ "mime": "unknown field" })
            )
        )
    );
    // pas du JSON : 412
    let rep = b
        .http
        .post(format!("{}/fichiers", b.bac.api()))
        .basic_auth(JETON, Some(""))
        .body(json!({ "titre": t }).to_string())
        .send()
        .await
        .expect("réponse");
    assert_eq!(rep.status(), StatusCode::PRECONDITION_FAILED);
    assert!(b.bac.fichiers().is_empty());
    // une archive découpée n'a pas de règle de nom, quel que soit le nombre de chiffres
    let (s, v) = b.declarer("nuit.z123", false).await;
    assert_eq!(
        (s, &v["mime"]),
        (StatusCode::CREATED, &json!("application/zip"))
    );
    let (s, v) = b.declarer("nuit.zip.001", false).await;
    assert_eq!(
        (s, &v["mime"]),
        (StatusCode::CREATED, &json!("application/zip"))
    );
    assert_eq!(
        b.bac.fichiers()[1].cle,
        format!("zip/pa-{PARTICIPATION}/nuit.zip.001")
    );
    b.bac.arreter().await;
}

// ------------------------------------------------------------------ jeton

#[tokio::test(flavor = "multi_thread")]
async fn jeton_absent_inconnu_ou_expire() {
    let b = banc().await;
    let (s, v) = b.appel(Method::GET, "/moi", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["_id"], OBSERVATEUR);
    assert!(v["pseudo"].is_string() && v["email"].is_string());

    let rep = b
        .http
        .get(format!("{}/moi", b.bac.api()))
        .send()
        .await
        .expect("réponse");
    assert_eq!(rep.status(), StatusCode::UNAUTHORIZED);
    let v: Value = rep.json().await.expect("JSON");
    assert_eq!(
        v,
        erreur(
            "401 Unauthorized",
            json!("Please provide proper credentials")
        )
    );
    for jeton in [None, Some("INCONNU"), Some("")] {
        let (s, _) = b
            .appel_avec(jeton, Method::GET, "/moi", None)
            .await
            .expect("réponse");
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{jeton:?}");
    }
    // même une requête valide par ailleurs est refusée sans jeton
    let (s, _) = b
        .appel_avec(
            None,
            Method::POST,
            "/fichiers",
            Some(json!({ "titre": titre(8) })),
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // expiré au milieu de la nuit, puis renouvelé
    assert!(b.bac.expirer_jeton(JETON));
    let (s, _) = b.appel(Method::GET, "/moi", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = b.declarer(&titre(8), false).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    b.bac.ajouter_jeton("NOUVEAUJETON0123456789ABCDEFGHIJ");
    let (s, _) = b
        .appel_avec(
            Some("NOUVEAUJETON0123456789ABCDEFGHIJ"),
            Method::GET,
            "/moi",
            None,
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::OK);
    b.bac.ajouter_jeton(JETON);
    let (s, _) = b.appel(Method::GET, "/moi", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(!b.bac.expirer_jeton("JAMAISVU"));
    assert_eq!(b.bac.compteurs().requetes(Operation::ApiMoi), 8);
    assert_eq!(b.bac.compteurs().traitees(Operation::ApiMoi), 3);
    b.bac.arreter().await;
}

// ------------------------------------------------------------------ participations et calcul

/// `resources/sites.py` `display_site` (protocole et son `type_site` développés),
/// `resources/participations.py` `display_participation` (aucun contrôle d'accès : l'observateur
/// d'une participation, `_id` et `pseudo`, se lit par tous) et `create_participation` (point
/// facultatif ; inscription au protocole **du site** exigée).
#[tokio::test(flavor = "multi_thread")]
async fn sites_routiers_et_participations_d_autres_observateurs() {
    let b = banc().await;
    let (s, routier) = b
        .appel(Method::GET, &format!("/sites/{SITE_ROUTIER}"), None)
        .await;
    assert_eq!(s, StatusCode::OK, "{routier}");
    assert_eq!(routier["protocole"]["type_site"], "ROUTIER");
    assert_eq!(routier["observateur"]["_id"], OBSERVATEUR);
    let (_, site) = b.appel(Method::GET, &format!("/sites/{SITE}"), None).await;
    assert_eq!(site["protocole"]["type_site"], "POINT_FIXE");
    let (s, _) = b
        .appel(Method::GET, "/sites/64a1b2c3d4e5f60718293cff", None)
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // La participation d'un autre observateur se lit, son pseudo compris.
    let (s, p) = b
        .appel(
            Method::GET,
            &format!("/participations/{PARTICIPATION_AUTRE}"),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["observateur"]["_id"], OBSERVATEUR_AUTRE);
    assert_eq!(p["observateur"]["pseudo"], PSEUDO_AUTRE);
    assert!(p["observateur"].get("email").is_none(), "{p}");
    let (_, moi) = b.appel(Method::GET, "/moi", None).await;
    assert_eq!(
        (&moi["_id"], moi["pseudo"].is_string()),
        (&json!(OBSERVATEUR), true)
    );

    // Un site routier : pas de point, 201.
    let nuit = json!({
        "date_debut": "Sun, 21 Jun 2026 20:00:00 GMT",
        "date_fin": "Mon, 22 Jun 2026 06:00:00 GMT",
    });
    let (s, v) = b
        .appel(
            Method::POST,
            &format!("/sites/{SITE_ROUTIER}/participations"),
            Some(nuit.clone()),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert!(v.get("point").is_none(), "{v}");
    assert_eq!(v["protocole"], routier["protocole"]["_id"]);
    // L'autre observateur n'est pas inscrit au protocole routier.
    let (s, v) = b
        .appel_avec(
            Some(JETON_AUTRE),
            Method::POST,
            &format!("/sites/{SITE_ROUTIER}/participations"),
            Some(nuit),
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["_errors"], "not registered to protocole");
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn participations_non_idempotentes_et_paginees() {
    let b = banc().await;
    let chemin = format!("/sites/{SITE}/participations");
    let nuit = json!({
        "date_debut": "Sun, 21 Jun 2026 20:00:00 GMT",
        "date_fin": "Mon, 22 Jun 2026 06:00:00 GMT",
        "point": "B2",
        "meteo": { "vent": "FAIBLE" },
        "configuration": { "detecteur": "SM4BAT" },
        "commentaire": "nuit calme",
    });
    let (s1, v1) = b.appel(Method::POST, &chemin, Some(nuit.clone())).await;
    let (s2, v2) = b.appel(Method::POST, &chemin, Some(nuit.clone())).await;
    assert_eq!(
        (s1, s2),
        (StatusCode::CREATED, StatusCode::CREATED),
        "{v1} {v2}"
    );
    assert_ne!(id_de(&v1), id_de(&v2));
    // Rendue par `isoformat()` sans fuseau (UTC implicite).
    assert_eq!(v1["date_debut"], "2026-06-21T20:00:00");
    assert_eq!(v1["point"], "B2");
    assert_eq!(v1["site"], SITE);
    assert_eq!(v1["observateur"], OBSERVATEUR);
    assert!(
        v1["_created"].is_string() && v1["_etag"].is_string(),
        "{v1}"
    );
    let ps = b.bac.participations(SITE);
    assert_eq!(ps.len(), 3);
    assert_eq!(ps[0].id, PARTICIPATION);
    assert_eq!(ps[2].id, id_de(&v2));
    assert_eq!(ps[1].meteo, Some(json!({ "vent": "FAIBLE" })));

    let (s, v) = b.appel(Method::GET, &chemin, None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        v["_meta"],
        json!({ "max_results": 20, "total": 3, "page": 1 })
    );
    let items = v["_items"].as_array().expect("_items");
    assert_eq!(items.len(), 3);
    assert_eq!(items[1]["_id"], v1["_id"]);
    assert_eq!(items[1]["date_fin"], "2026-06-22T06:00:00");
    assert_eq!(items[1]["point"], "B2");
    assert_eq!(items[1]["observateur"]["_id"], OBSERVATEUR);
    assert!(items[1].get("site").is_none() && items[1].get("protocole").is_none());
    // Relue seule : tout, relations développées.
    let (s, v) = b
        .appel(
            Method::GET,
            &format!("/participations/{}", id_de(&v1)),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["point"], &v["site"]["_id"]),
        (&json!("B2"), &json!(SITE))
    );
    let (s, v) = b
        .appel(
            Method::GET,
            "/participations/64a1b2c3d4e5f60718293dff",
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    let (_, v) = b
        .appel(Method::GET, &format!("{chemin}?page=2&max_results=2"), None)
        .await;
    // Sans ordre garanti : la plus récente d'abord, la plus ancienne en page 2.
    assert_eq!(v["_items"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["_items"][0]["_id"], PARTICIPATION);
    let (s, _) = b
        .appel(Method::GET, &format!("{chemin}?max_results=500"), None)
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);

    // Ni le point, ni le verrou du site ne sont vérifiés (le validateur du site n'est jamais
    // appelé) : 201.
    let mut autre_point = nuit.clone();
    autre_point["point"] = json!("Q9");
    let (s, v) = b.appel(Method::POST, &chemin, Some(autre_point)).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v) = b
        .appel(
            Method::POST,
            &format!("/sites/{SITE_NON_VERROUILLE}/participations"),
            Some(nuit.clone()),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");

    // refus en 422, avec la cause dans `_errors`
    let mut iso = nuit.clone();
    iso["date_debut"] = json!("2026-06-21T20:00:00Z");
    let mut sans_date = nuit.clone();
    sans_date.as_object_mut().map(|o| o.remove("date_debut"));
    let mut champ_inconnu = nuit.clone();
    champ_inconnu["site"] = json!(SITE);
    let mut meteo = nuit.clone();
    meteo["meteo"] = json!({ "vent": "TEMPETE" });
    let cas = [
        (
            JETON,
            chemin.clone(),
            iso,
            json!({ "date_debut": "must be of datetime type" }),
        ),
        (
            JETON,
            chemin.clone(),
            sans_date,
            json!({ "date_debut": "required field" }),
        ),
        (
            JETON,
            chemin.clone(),
            champ_inconnu,
            json!({ "site": "invalid field" }),
        ),
        (
            JETON,
            chemin.clone(),
            meteo,
            json!({ "meteo.vent": "value does not match regex '^(NUL|FAIBLE|MOYEN|FORT)$'" }),
        ),
        (
            JETON,
            "/sites/64a1b2c3d4e5f60718293cff/participations".to_owned(),
            nuit.clone(),
            json!({ "site": "no site with this id" }),
        ),
        (
            JETON_NON_VALIDE,
            chemin.clone(),
            nuit.clone(),
            json!("protocole registration not yet validated"),
        ),
    ];
    for (jeton, chemin, corps, attendu) in cas {
        let (s, v) = b
            .appel_avec(Some(jeton), Method::POST, &chemin, Some(corps))
            .await
            .expect("réponse");
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{chemin} {v}");
        assert_eq!(v["_errors"], attendu, "{v}");
        assert!(
            v["_status"]
                .as_str()
                .is_some_and(|t| t.starts_with("422 Unprocessable Entity: "))
        );
    }
    assert_eq!(b.bac.participations(SITE).len(), 4);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn calcul_relance_refuse_en_400() {
    let b = banc().await;
    let chemin = format!("/participations/{PARTICIPATION}/compute");
    let (s, v) = b.appel(Method::POST, &chemin, None).await;
    assert_eq!((s, v), (StatusCode::OK, json!({})));
    let (s, v) = b.appel(Method::POST, &chemin, None).await;
    assert_eq!(
        (s, v),
        (
            StatusCode::BAD_REQUEST,
            erreur("400 Bad Request", json!({ "etat": "Already PLANIFIE" }))
        )
    );
    let p = &b.bac.participations(SITE)[0];
    assert_eq!(p.calculs_lances, 1);
    assert_eq!(
        p.traitement.as_ref().map(|c| c.etat.as_str()),
        Some("PLANIFIE")
    );
    let (s, _) = b
        .appel(
            Method::POST,
            "/participations/64a1b2c3d4e5f60718293dff/compute",
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let c = b.bac.compteurs();
    assert_eq!(c.requetes_cle(Operation::ApiCalcul, PARTICIPATION), 2);
    assert_eq!(c.traitees(Operation::ApiCalcul), 1);
    b.bac.arreter().await;
}

// ------------------------------------------------------------------ pannes devant l'API

#[tokio::test(flavor = "multi_thread")]
async fn reponse_perdue_sur_la_finalisation() {
    let b = banc().await;
    let t = titre(9);
    let (_, v) = b.declarer(&t, false).await;
    let id = id_de(&v);
    let url = v["s3_signed_url"].as_str().expect("URL").to_owned();
    let (s, _, _) = b.put(&url, Some("audio/wav"), donnees(5000, 9)).await;
    assert_eq!(s, StatusCode::OK);

    b.bac
        .pannes()
        .programmer_spec("ApiFinaliser#1=reponse-perdue")
        .expect("spec");
    let e = b
        .appel_avec(
            Some(JETON),
            Method::POST,
            &format!("/fichiers/{id}"),
            Some(json!({})),
        )
        .await
        .expect_err("réponse perdue");
    assert!(e.status().is_none(), "{e:?}");
    // le fichier est pourtant finalisé ; le rejeu le prouve par 409
    assert!(
        b.bac
            .fichier(PARTICIPATION, &t)
            .is_some_and(|f| f.disponible)
    );
    let (s, _) = b
        .appel(Method::POST, &format!("/fichiers/{id}"), Some(json!({})))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let c = b.bac.compteurs();
    assert_eq!(c.requetes(Operation::ApiFinaliser), 2);
    assert_eq!(c.traitees(Operation::ApiFinaliser), 1);
    assert_eq!(c.pannes_injectees(), 1);
    b.bac.arreter().await;
}

/// Comme la vraie plateforme, le bac à sable mène au bout une requête reçue en entier, même si
/// le client raccroche avant la réponse : c'est ce qui rend dangereux le rejeu d'un POST.
#[tokio::test(flavor = "multi_thread")]
async fn requete_recue_menee_au_bout_malgre_le_depart_du_client() {
    let b = banc().await;
    let t = titre(12);
    b.bac
        .pannes()
        .programmer_spec("ApiDeclarerFichier#1=lenteur:1s")
        .expect("spec");
    let presse = reqwest::Client::builder()
        .no_proxy()
        .timeout(std::time::Duration::from_millis(100))
        .build()
        .expect("client HTTP");
    let e = presse
        .post(format!("{}/fichiers", b.bac.api()))
        .basic_auth(JETON, Some(""))
        .json(&json!({ "titre": t, "multipart": false, "lien_participation": PARTICIPATION }))
        .send()
        .await
        .expect_err("le client raccroche avant la réponse");
    assert!(e.is_timeout(), "{e:?}");
    // La déclaration se termine côté serveur après le départ du client.
    let c = b.bac.compteurs();
    for _ in 0..250 {
        if c.traitees(Operation::ApiDeclarerFichier) == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(c.traitees(Operation::ApiDeclarerFichier), 1);
    let declare = b.bac.fichier(PARTICIPATION, &t).expect("fichier déclaré");
    // Le rejeu retrouve le même enregistrement (même _id), il n'en crée pas un second.
    let (s, v) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(id_de(&v), declare.id);
    assert_eq!(b.bac.fichiers().len(), 1);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn pannes_de_l_api_visees_par_cle() {
    let b = banc().await;
    let t = titre(10);
    let cle = cle_fichier(PARTICIPATION, &t).expect("clé");
    let p = b.bac.pannes();
    // 503 + Retry-After sur la déclaration de ce fichier-là : rien n'est déclaré
    p.programmer_spec(&format!("ApiDeclarerFichier@{cle}#1=503:retry-after=2"))
        .expect("spec");
    let (s, v) = b.declarer(&titre(11), false).await;
    assert_eq!(s, StatusCode::CREATED, "autre clé : {v}");
    let rep = b
        .http
        .post(format!("{}/fichiers", b.bac.api()))
        .basic_auth(JETON, Some(""))
        .json(&json!({ "titre": t, "lien_participation": PARTICIPATION }))
        .send()
        .await
        .expect("réponse");
    assert_eq!(rep.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        rep.headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("2")
    );
    assert!(rep.json::<Value>().await.expect("JSON")["_errors"].is_string());
    assert!(b.bac.fichier(PARTICIPATION, &t).is_none());
    let (s, _) = b.declarer(&t, false).await;
    assert_eq!(s, StatusCode::CREATED);

    // réponse perdue sur la création de participation : elle existe pourtant
    p.programmer_spec(&format!("ApiCreerParticipation@{SITE}#1=reponse-perdue"))
        .expect("spec");
    let e = b
        .appel_avec(
            Some(JETON),
            Method::POST,
            &format!("/sites/{SITE}/participations"),
            Some(json!({ "date_debut": "Sun, 21 Jun 2026 20:00:00 GMT", "point": "Z3" })),
        )
        .await
        .expect_err("réponse perdue");
    assert!(e.status().is_none(), "{e:?}");
    assert_eq!(b.bac.participations(SITE).len(), 2);

    // coupure : rien n'est traité
    p.programmer(Regle::prochaine(Operation::ApiCalcul, Panne::Coupure));
    b.appel_avec(
        Some(JETON),
        Method::POST,
        &format!("/participations/{PARTICIPATION}/compute"),
        None,
    )
    .await
    .expect_err("coupure");
    assert_eq!(b.bac.participations(SITE)[0].calculs_lances, 0);

    // réseau coupé : l'API et S3 tombent ensemble
    p.couper_tout(true);
    assert!(
        b.appel_avec(Some(JETON), Method::GET, "/moi", None)
            .await
            .is_err()
    );
    assert!(
        b.bac
            .client()
            .head_bucket()
            .bucket(COMPARTIMENT_PLATEFORME)
            .send()
            .await
            .is_err()
    );
    p.couper_tout(false);
    let (s, _) = b.appel(Method::GET, "/moi", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b.bac.compteurs().pannes_injectees(), 5);
    b.bac.arreter().await;
}

#[test]
fn specs_des_operations_d_api() {
    let r = Pannes::analyser_spec("ApiFinaliser#1=reponse-perdue").expect("spec");
    assert_eq!(
        (r.operation, r.rang, r.panne),
        (Some(Operation::ApiFinaliser), Some(1), Panne::PerdreReponse)
    );
    let r = Pannes::analyser_spec("apicreerparticipation=503:retry-after=5").expect("spec");
    assert_eq!(r.operation, Some(Operation::ApiCreerParticipation));
    let cle = cle_fichier(PARTICIPATION, &titre(1)).expect("clé");
    let r = Pannes::analyser_spec(&format!("ApiDeclarerFichier@{cle}#2=coupure")).expect("spec");
    assert_eq!(r.cle.as_deref(), Some(cle.as_str()));
    for nom in [
        "ApiMoi",
        "ApiCreerParticipation",
        "ApiListerParticipations",
        "ApiDeclarerFichier",
        "ApiUrlPartie",
        "ApiFinaliser",
        "ApiAbandonner",
        "ApiCalcul",
        "ApiLireFichier",
        "ApiLireParticipation",
        "ApiModifierParticipation",
        "ApiLireSite",
        "ApiPiecesJointes",
        "ApiAccesFichier",
        "ApiAutre",
    ] {
        let op: Operation = nom.parse().expect(nom);
        assert!(op.est_api() && op.nom() == nom, "{nom}");
        let r = Pannes::analyser_spec(&format!("{nom}%50=500")).expect(nom);
        assert_eq!(r.to_string(), format!("{nom}%50=500"));
    }
    assert!(!Operation::PutObject.est_api());
    let e = Pannes::analyser_spec("ApiFinalise=503").expect_err("nom inconnu");
    assert!(e.contains("ApiFinaliser"), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn routes_inconnues_et_s3_sur_le_meme_port() {
    let b = banc().await;
    let (s, _) = b.appel(Method::GET, "/fichiers/pas-un-id", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = b.appel(Method::PATCH, "/moi", None).await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(b.bac.compteurs().requetes(Operation::ApiAutre), 2);
    // S3 répond toujours, et le compartiment « api » est impossible
    b.bac.creer_compartiment("nuits").expect("compartiment");
    b.bac
        .client()
        .put_object()
        .bucket("nuits")
        .key("a.wav")
        .body(aws_sdk_s3::primitives::ByteStream::from_static(b"abc"))
        .send()
        .await
        .expect("PutObject SigV4");
    assert!(b.bac.creer_compartiment("api").is_err());
    b.bac.arreter().await;
}

/// `edit_participation` : `$set` de chaque clé donnée, donc `configuration` remplacée en
/// entier ; `If-Match` non lu ; le propriétaire seul ; champs permis seulement.
#[tokio::test(flavor = "multi_thread")]
async fn un_patch_remplace_la_configuration_entiere_sans_lire_if_match() {
    let b = banc().await;
    let chemin = format!("/participations/{PARTICIPATION}");
    let (_, avant) = b.appel(Method::GET, &chemin, None).await;
    let corps = json!({ "configuration": { "micro0_type": "ICS" } });
    let (s, v) = b.appel(Method::PATCH, &chemin, Some(corps.clone())).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_ne!(v["_etag"], avant["_etag"]);
    let (s, _) = b
        .appel(
            Method::PATCH,
            &chemin,
            Some(json!({ "configuration": { "micro0_position": "SOL" } })),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    // La première clé a disparu : le dictionnaire est remplacé, pas complété.
    let p = b.bac.participation(PARTICIPATION).unwrap();
    assert_eq!(p.configuration, Some(json!({ "micro0_position": "SOL" })));
    // Le même PATCH avec un `If-Match` dépassé passe aussi (`update` sans `if_match`).
    let rep = b
        .http
        .request(Method::PATCH, format!("{}{chemin}", b.bac.api()))
        .basic_auth(JETON, Some(""))
        .header("If-Match", avant["_etag"].as_str().unwrap())
        .json(&json!({ "meteo": { "vent": "NUL" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(rep.status(), StatusCode::OK);
    assert_eq!(
        b.bac.participation(PARTICIPATION).unwrap().meteo,
        Some(json!({ "vent": "NUL" }))
    );
    let (s, v) = b
        .appel(
            Method::PATCH,
            &chemin,
            Some(json!({ "meteo": { "vent": "TEMPETE" } })),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (s, v) = b
        .appel(Method::PATCH, &chemin, Some(json!({ "observateur": "x" })))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (s, _) = b
        .appel_avec(Some(JETON_AUTRE), Method::PATCH, &chemin, Some(corps))
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::FORBIDDEN);
    b.bac.arreter().await;
}
