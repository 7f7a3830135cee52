//! Tests des routes de relecture de la plateforme locale, par HTTP comme le client `vigie` :
//! la liste des fichiers d'une participation (`get_pieces_jointes`) et l'URL de lecture d'un
//! fichier (`s3_access_file`), telles que le serveur les sert (`vigiechiro/lecture.rs`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::tests::donnees;
use super::tests_vigiechiro::{Banc, banc, cles_utiles, erreur, id_de, md5_hex, titre};
use super::*;

impl Banc {
    /// `GET /participations/{PARTICIPATION}/pieces_jointes?<requete>`.
    async fn pieces_jointes(&self, requete: &str) -> (StatusCode, Value) {
        self.appel(
            Method::GET,
            &format!("/participations/{PARTICIPATION}/pieces_jointes?{requete}"),
            None,
        )
        .await
    }

    /// Un fichier déclaré, envoyé et finalisé comme le fait le site web ; rend son `_id`.
    async fn deposer(&self, titre: &str, contenu: Vec<u8>) -> String {
        let (s, v) = self.declarer(titre, false).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let url = v["s3_signed_url"].as_str().expect("URL").to_owned();
        let mime = v["mime"].as_str().expect("mime").to_owned();
        let (s, _, corps) = self.put(&url, Some(&mime), contenu).await;
        assert_eq!(s, StatusCode::OK, "{corps}");
        let id = id_de(&v);
        let (s, v) = self
            .appel(Method::POST, &format!("/fichiers/{id}"), Some(json!({})))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        id
    }
}

fn titres(v: &Value) -> Vec<String> {
    v["_items"]
        .as_array()
        .expect("_items")
        .iter()
        .map(|i| i["titre"].as_str().expect("titre").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn pieces_jointes_paginees_projetees_et_filtrees_comme_le_serveur() {
    let b = banc().await;
    // 25 séquences (dont la 7e laissée non finalisée), une sortie Tadarida et une archive.
    for n in 1..=25 {
        if n == 7 {
            let (s, v) = b.declarer(&titre(n), false).await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        } else {
            b.deposer(&titre(n), donnees(1_000 + n as usize, n.into()))
                .await;
        }
    }
    let ta = "Car640123-2026-Pass1-A1-OB-1_20260620_213099_123.ta";
    b.deposer(ta, donnees(500, 99)).await;
    b.deposer("nuit.zip.001", donnees(700, 98)).await;

    // Page par défaut : 20, dans l'ordre d'insertion, `_meta` complet.
    let (s, v) = b.pieces_jointes("").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["_meta"],
        json!({ "max_results": 20, "total": 27, "page": 1 })
    );
    let attendus: Vec<String> = (1..=20).map(titre).collect();
    assert_eq!(titres(&v), attendus);
    // La projection retire les relations ; un multipart garde `s3_upload_multipart_id`.
    let premier = &v["_items"][0];
    assert_eq!(
        cles_utiles(premier),
        ["_id", "disponible", "mime", "s3_id", "titre"]
    );
    assert_eq!(premier["disponible"], true);
    assert_eq!(v["_items"][6]["disponible"], false);
    assert_eq!(
        premier["s3_id"],
        format!("wav/pa-{PARTICIPATION}/{}", titre(1))
    );

    // Pages de 10 : la troisième a les 7 derniers.
    let (_, v) = b.pieces_jointes("max_results=10&page=3").await;
    assert_eq!(
        v["_meta"],
        json!({ "max_results": 10, "total": 27, "page": 3 })
    );
    assert_eq!(titres(&v).len(), 7);
    let (_, v) = b.pieces_jointes("max_results=100&page=2").await;
    assert_eq!(titres(&v), Vec::<String>::new());
    // `Paginator` : au-delà de 100, 422 ; `max_results=0`, tout (`limit(0)` de MongoDB).
    let (s, v) = b.pieces_jointes("max_results=101").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v,
        erreur(
            "422 Unprocessable Entity",
            json!("max_results params must be < 100")
        )
    );
    let (_, v) = b.pieces_jointes("max_results=0").await;
    assert_eq!(titres(&v).len(), 27);

    // Filtre par famille : `wav` (25), `ta` (1), leur réunion (26) ; l'archive n'a pas de
    // famille.
    let (_, v) = b.pieces_jointes("wav=true&max_results=100").await;
    assert_eq!(
        (v["_meta"]["total"].clone(), titres(&v).len()),
        (json!(25), 25)
    );
    let (_, v) = b.pieces_jointes("ta=TRUE").await;
    assert_eq!(titres(&v), [ta]);
    let (_, v) = b.pieces_jointes("wav=true&ta=true&max_results=100").await;
    assert_eq!(v["_meta"]["total"], 26);
    // `false` n'exclut rien : ajouté au `$in` ouvert par une famille précédente, KeyError
    // (500) sans elle.
    let (_, v) = b.pieces_jointes("ta=true&wav=false&max_results=100").await;
    assert_eq!(v["_meta"]["total"], 26);
    let (s, v) = b.pieces_jointes("wav=false").await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(v, json!({ "_status": "'$in'" }));
    let (s, v) = b.pieces_jointes("wav=oui").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["_errors"],
        json!({ "wav": "bad value, should be <class 'bool'>" })
    );
    let (s, _) = b.pieces_jointes("q=Car").await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);

    // Participation inconnue : 404 ; d'un autre observateur qui ne publie pas : 403 ; sans
    // jeton : 401.
    let (s, _) = b
        .appel(
            Method::GET,
            "/participations/64a1b2c3d4e5f60718293dff/pieces_jointes",
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = b
        .appel_avec(
            Some(JETON_NON_VALIDE),
            Method::GET,
            &format!("/participations/{PARTICIPATION}/pieces_jointes"),
            None,
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = b
        .appel_avec(
            None,
            Method::GET,
            &format!("/participations/{PARTICIPATION}/pieces_jointes"),
            None,
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // Compteurs : une requête par page, clé = la participation.
    let c = b.bac.compteurs();
    assert_eq!(
        c.requetes_cle(Operation::ApiPiecesJointes, PARTICIPATION),
        14
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn acces_en_lecture_par_une_url_signee_que_s3_verifie() {
    let b = banc().await;
    let d = donnees(300_000, 3);
    let id = b.deposer(&titre(1), d.clone()).await;

    let (s, v) = b
        .appel(Method::GET, &format!("/fichiers/{id}/acces"), None)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["s3_signed_url".to_owned()])
    );
    let url = v["s3_signed_url"].as_str().expect("URL").to_owned();
    let cle = cle_fichier(PARTICIPATION, &titre(1)).expect("clé");
    assert!(
        url.starts_with(&format!(
            "{}/{COMPARTIMENT_PLATEFORME}/{cle}?AWSAccessKeyId=",
            b.bac.endpoint()
        )),
        "{url}"
    );

    // Un octet suffit à lire la taille totale et l'ETag (le MD5 d'un PUT simple).
    let r = b
        .http
        .get(&url)
        .header("range", "bytes=0-0")
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        r.headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok()),
        Some("bytes 0-0/300000")
    );
    assert_eq!(
        r.headers().get("etag").and_then(|v| v.to_str().ok()),
        Some(format!("\"{}\"", md5_hex(&d)).as_str())
    );
    // L'URL entière rend l'objet.
    let r = b.http.get(&url).send().await.expect("GET");
    assert_eq!(r.bytes().await.expect("corps").as_ref(), d.as_slice());
    // La signature couvre le verbe et la clé : un PUT, ou une autre clé, est refusé.
    let r = b
        .http
        .put(&url)
        .body(vec![0u8; 3])
        .send()
        .await
        .expect("PUT");
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let autre = url.replace(&titre(1), &titre(2));
    let r = b.http.get(&autre).send().await.expect("GET");
    assert_eq!(r.status(), StatusCode::FORBIDDEN);

    // `?redirection=…` : 302 vers la même sorte d'URL.
    let sans_suivre = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let r = sans_suivre
        .get(format!(
            "{}/fichiers/{id}/acces?redirection=true",
            b.bac.api()
        ))
        .basic_auth(JETON, Some(""))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), StatusCode::FOUND);
    assert!(
        r.headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|l| l.contains(&cle) && l.contains("Signature=")),
    );

    // Non finalisé : 410 ; inconnu : 404 ; fichier d'un autre observateur : 403.
    let (s, v) = b.declarer(&titre(2), false).await;
    assert_eq!(s, StatusCode::CREATED);
    let en_cours = id_de(&v);
    let (s, v) = b
        .appel(Method::GET, &format!("/fichiers/{en_cours}/acces"), None)
        .await;
    assert_eq!(s, StatusCode::GONE);
    assert_eq!(v, erreur("410 Gone", json!("file is not available")));
    let inconnu = "64a1b2c3d4e5f60718293eff";
    let (s, v) = b
        .appel(Method::GET, &format!("/fichiers/{inconnu}/acces"), None)
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(
        v["_errors"],
        format!("`{inconnu}` is not a valid fichiers resource")
    );
    let (s, _) = b
        .appel_avec(
            Some(JETON_NON_VALIDE),
            Method::GET,
            &format!("/fichiers/{id}/acces"),
            None,
        )
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::FORBIDDEN);

    let c = b.bac.compteurs();
    assert_eq!(c.requetes_cle(Operation::ApiAccesFichier, &cle), 3);
    assert_eq!(c.requetes_cle(Operation::GetObject, &cle), 2);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn fichier_pose_comme_par_un_autre_client() {
    let b = banc().await;
    let d = donnees(4_000, 5);
    let id = b
        .bac
        .poser_fichier_finalise(PARTICIPATION, &titre(1), d.clone())
        .await
        .expect("fichier posé");
    let f = b.bac.fichier(PARTICIPATION, &titre(1)).expect("enregistré");
    assert!(f.disponible && f.id == id && f.mime == "audio/wav");
    assert_eq!(
        std::fs::read(b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &f.cle)).expect("objet"),
        d
    );
    // La plateforme le tient pour déposé : 409 à la redéclaration, lisible par son URL.
    let (s, _) = b.declarer(&titre(1), false).await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (s, v) = b
        .appel(Method::GET, &format!("/fichiers/{id}/acces"), None)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // Deux fois la même clé : refusé.
    assert!(
        b.bac
            .poser_fichier_finalise(PARTICIPATION, &titre(1), d)
            .await
            .is_err()
    );
    // Supprimé par un gestionnaire : ni enregistrement, ni objet, et la clé se redéclare.
    assert!(
        b.bac
            .supprimer_comme_un_gestionnaire(PARTICIPATION, &titre(1))
            .await
            .expect("suppression")
    );
    assert!(b.bac.fichier(PARTICIPATION, &titre(1)).is_none());
    assert!(!b.bac.chemin_objet(COMPARTIMENT_PLATEFORME, &f.cle).exists());
    let (s, _) = b
        .appel(Method::GET, &format!("/fichiers/{id}/acces"), None)
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = b.declarer(&titre(1), false).await;
    assert_eq!(s, StatusCode::CREATED);
    b.bac.arreter().await;
}
