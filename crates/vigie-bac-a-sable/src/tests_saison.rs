//! Les routes que lit une saison (`GET /moi/sites`, `GET /moi/participations`), par HTTP,
//! avec plusieurs sites et plusieurs observateurs, comme le serveur
//! (`resources/sites.py` `_sites_generic_list`, `resources/participations.py`
//! `list_user_participations` : voir `vigiechiro/saison.rs`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::tests_vigiechiro::banc;
use super::*;

const PROTOCOLE_PEDESTRE: &str = "64a1b2c3d4e5f60718293b03";

fn titres(v: &Value) -> Vec<String> {
    v["_items"]
        .as_array()
        .expect("_items")
        .iter()
        .map(|s| s["titre"].as_str().unwrap_or("?").to_owned())
        .collect()
}

fn ids(v: &Value) -> Vec<String> {
    v["_items"]
        .as_array()
        .expect("_items")
        .iter()
        .map(|s| s["_id"].as_str().unwrap_or("?").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn mes_sites_tries_par_titre_developpes_et_a_chacun_les_siens() {
    let b = banc().await;
    let (s, v) = b.appel(Method::GET, "/moi/sites", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // Triés par titre, octet par octet (« Po » avant « Pé »), comme MongoDB sans collation.
    assert_eq!(
        titres(&v),
        [
            "Vigiechiro - Point Fixe-640139",
            "Vigiechiro - Point Fixe-640140",
            "Vigiechiro - Pédestre-640139",
            "Vigiechiro - Routier-12",
        ]
    );
    assert_eq!(
        v["_meta"],
        json!({ "max_results": 20, "total": 4, "page": 1 })
    );
    // Relations développées : le type du protocole, le numéro de la grille, l'observateur
    // sans son courriel.
    let premier = &v["_items"][0];
    assert_eq!(premier["_id"], SITE);
    assert_eq!(premier["protocole"]["type_site"], "POINT_FIXE");
    assert_eq!(premier["protocole"]["titre"], "Vigiechiro - Point Fixe");
    assert_eq!(premier["grille_stoc"]["numero"], "640139");
    assert_eq!(premier["observateur"]["_id"], OBSERVATEUR);
    assert!(premier["observateur"].get("email").is_none(), "{premier}");
    assert_eq!(v["_items"][2]["protocole"]["type_site"], "CARRE");
    assert_eq!(
        v["_items"][2]["grille_stoc"]["_id"], premier["grille_stoc"]["_id"],
        "le point fixe et le pédestre d'un même carré"
    );
    assert!(v["_items"][3].get("grille_stoc").is_none());

    // Un autre observateur : les siens seulement ; le paramètre `observateur` est écrasé.
    let (_, v) = b
        .appel_avec(Some(JETON_AUTRE), Method::GET, "/moi/sites", None)
        .await
        .expect("réponse");
    assert_eq!(ids(&v), [SITE_AUTRE, SITE_REGIONAL]);
    let (_, v) = b
        .appel(
            Method::GET,
            &format!("/moi/sites?observateur={OBSERVATEUR_AUTRE}"),
            None,
        )
        .await;
    assert_eq!(v["_meta"]["total"], 4);

    // Filtres : protocole, recherche dans les titres.
    let (_, v) = b
        .appel(
            Method::GET,
            &format!("/moi/sites?protocole={PROTOCOLE_PEDESTRE}"),
            None,
        )
        .await;
    assert_eq!(ids(&v), [SITE_PEDESTRE]);
    let (_, v) = b.appel(Method::GET, "/moi/sites?q=640139", None).await;
    assert_eq!(ids(&v), [SITE, SITE_PEDESTRE]);
    let (_, v) = b.appel(Method::GET, "/moi/sites?q=ROUTIER", None).await;
    assert_eq!(ids(&v), [SITE_ROUTIER]);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mes_sites_pagines_et_parametres_refuses() {
    let b = banc().await;
    for n in 0..150 {
        b.bac
            .ajouter_site(&NouveauSite {
                type_site: "POINT_FIXE",
                numero: &format!("{:06}", 700_000 + n),
                titre: None,
                observateur: OBSERVATEUR,
                points: &["A1"],
            })
            .expect("site");
    }
    let (s, v) = b
        .appel(Method::GET, "/moi/sites?max_results=100&page=2", None)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["_meta"],
        json!({ "max_results": 100, "total": 154, "page": 2 })
    );
    assert_eq!(titres(&v).len(), 54);
    // Page 1 puis page 2 : tous, sans doublon, dans l'ordre des titres.
    let (_, v1) = b
        .appel(Method::GET, "/moi/sites?max_results=100&page=1", None)
        .await;
    let tous: Vec<String> = titres(&v1).into_iter().chain(titres(&v)).collect();
    let mut tries = tous.clone();
    tries.sort();
    tries.dedup();
    assert_eq!(tous, tries);
    assert_eq!(tous[0], "Vigiechiro - Point Fixe-640139");
    assert_eq!(tous[2], "Vigiechiro - Point Fixe-700000");
    // Un titre libre (donné par un administrateur) reste tel quel.
    let id = b
        .bac
        .ajouter_site(&NouveauSite {
            type_site: "ROUTIER",
            numero: "13",
            titre: Some("Circuit des étangs"),
            observateur: OBSERVATEUR,
            points: &[],
        })
        .expect("site");
    let (_, v) = b.appel(Method::GET, &format!("/sites/{id}"), None).await;
    assert_eq!(v["titre"], "Circuit des étangs");
    assert_eq!(v["protocole"]["type_site"], "ROUTIER");

    for (requete, attendu) in [
        (
            "/moi/sites?max_results=101",
            json!("max_results params must be < 100"),
        ),
        ("/moi/sites?page=0", json!("page params must be > 0")),
        (
            "/moi/sites?max_results=dix&grille_stoc=x",
            json!({
                "max_results": "bad value, should be <class 'int'>",
                "grille_stoc": "bad value, should be <class 'bson.objectid.ObjectId'>",
            }),
        ),
    ] {
        let (s, v) = b.appel(Method::GET, requete, None).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{requete} {v}");
        assert_eq!(v["_errors"], attendu, "{requete}");
    }
    let (s, _) = b.appel(Method::POST, "/moi/sites", Some(json!({}))).await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    let (s, _) = b
        .appel_avec(None, Method::GET, "/moi/sites", None)
        .await
        .expect("réponse");
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // Les deux pages, les trois refus et la requête sans jeton ; le POST (405) n'est pas la
    // route.
    assert_eq!(b.bac.compteurs().requetes(Operation::ApiMesSites), 6);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mes_participations_avec_leur_site_et_sans_observateur() {
    let b = banc().await;
    let (s, v) = b.appel(Method::GET, "/moi/participations", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // Les siennes seulement, sur ses sites et sur le site régional d'un autre ; la plus
    // récente d'abord (aucun ordre n'est garanti).
    assert_eq!(ids(&v), [PARTICIPATION_REGIONALE, PARTICIPATION]);
    let regionale = &v["_items"][0];
    assert_eq!(regionale["site"]["_id"], SITE_REGIONAL);
    assert_eq!(regionale["site"]["titre"], "Vigiechiro - Point Fixe-750101");
    // Le site développé en document brut : ses propres relations restent des identifiants.
    assert!(regionale["site"]["protocole"].is_string(), "{regionale}");
    assert!(regionale["site"]["grille_stoc"].is_string(), "{regionale}");
    for champ in ["observateur", "protocole", "messages", "logs", "bilan"] {
        assert!(regionale.get(champ).is_none(), "{champ} : {regionale}");
    }
    assert_eq!(regionale["date_debut"], "2026-06-21T20:00:00");

    // Une participation créée ensuite vient en tête ; un autre observateur voit les siennes.
    let (s, cree) = b
        .appel(
            Method::POST,
            &format!("/sites/{SITE_ROUTIER}/participations"),
            Some(json!({ "date_debut": "Sun, 21 Jun 2026 20:00:00 GMT" })),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{cree}");
    let (_, v) = b.appel(Method::GET, "/moi/participations", None).await;
    assert_eq!(v["_meta"]["total"], 3);
    assert_eq!(v["_items"][0]["_id"], cree["_id"]);
    assert_eq!(v["_items"][0]["site"]["titre"], "Vigiechiro - Routier-12");
    let (_, v) = b
        .appel_avec(Some(JETON_AUTRE), Method::GET, "/moi/participations", None)
        .await
        .expect("réponse");
    assert_eq!(ids(&v), [PARTICIPATION_AUTRE]);

    // Pagination du serveur ; `q` sans index texte : 500.
    let (_, v) = b
        .appel(
            Method::GET,
            "/moi/participations?max_results=2&page=2",
            None,
        )
        .await;
    assert_eq!(ids(&v), [PARTICIPATION]);
    let (s, v) = b
        .appel(Method::GET, "/moi/participations?max_results=101", None)
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (s, v) = b
        .appel(Method::GET, "/moi/participations?q=nuit", None)
        .await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
    assert_eq!(v["_status"], "text index required for $text query");
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn participation_posee_comme_par_le_site_web() {
    let b = banc().await;
    let id = b
        .bac
        .poser_participation(&ParticipationPosee {
            site: SITE,
            observateur: OBSERVATEUR,
            point: None,
            date_debut: "2026-06-22T07:40:00",
            date_fin: None,
        })
        .expect("participation");
    let (_, v) = b
        .appel(Method::GET, &format!("/sites/{SITE}/participations"), None)
        .await;
    let posee = v["_items"]
        .as_array()
        .expect("_items")
        .iter()
        .find(|p| p["_id"] == id.as_str())
        .expect("posée")
        .clone();
    assert_eq!(posee["date_debut"], "2026-06-22T07:40:00");
    assert!(posee.get("point").is_none() && posee.get("date_fin").is_none());
    assert_eq!(posee["observateur"]["_id"], OBSERVATEUR);
    // Aucune requête d'API : la participation est posée, pas créée.
    assert_eq!(
        b.bac.compteurs().requetes(Operation::ApiCreerParticipation),
        0
    );
    assert!(
        b.bac
            .poser_participation(&ParticipationPosee {
                site: SITE,
                observateur: OBSERVATEUR,
                point: Some("A1"),
                date_debut: "Sun, 21 Jun 2026 20:00:00 GMT",
                date_fin: None,
            })
            .is_err()
    );
    b.bac.arreter().await;
}
