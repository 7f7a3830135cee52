//! Le calcul simulé d'une participation, par HTTP comme le client le lit : états, dates, refus
//! « Already … », bilan, journal, CSV des observations, taxons (voir
//! `vigiechiro/traitement.rs`).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::tests_vigiechiro::{Banc, banc, erreur, titre};
use super::*;

const MINUTE: Duration = Duration::from_secs(60);

impl Banc {
    async fn lancer(&self) -> (StatusCode, Value) {
        self.appel(
            Method::POST,
            &format!("/participations/{PARTICIPATION}/compute"),
            None,
        )
        .await
    }

    async fn lire(&self) -> Value {
        let (s, v) = self
            .appel(
                Method::GET,
                &format!("/participations/{PARTICIPATION}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v
    }

    /// Dépose `n` séquences finalisées dans la participation d'essai.
    async fn deposer_sequences(&self, n: u32) {
        for i in 0..n {
            self.bac
                .poser_fichier_finalise(PARTICIPATION, &titre(i), vec![i as u8; 100])
                .await
                .expect("fichier posé");
        }
    }

    async fn pieces_extra(&self) -> Vec<Value> {
        let (s, v) = self
            .appel(
                Method::GET,
                &format!("/participations/{PARTICIPATION}/pieces_jointes?processing_extra=true"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v["_items"].as_array().cloned().unwrap_or_default()
    }
}

fn reglages(attente_min: u32, duree_min: u32) -> ReglagesCalcul {
    ReglagesCalcul {
        attente: attente_min * MINUTE,
        duree: duree_min * MINUTE,
        delai_csv: MINUTE,
        ..ReglagesCalcul::default()
    }
}

/// Les clés du champ `traitement` rendu.
fn cles(v: &Value) -> Vec<String> {
    let mut c: Vec<String> = v["traitement"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    c.sort();
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn un_calcul_passe_par_chaque_etat_et_laisse_bilan_journal_et_csv() {
    let b = banc().await;
    b.deposer_sequences(30).await;
    b.bac.regler_calcul(reglages(5, 20));
    assert!(b.lire().await.get("traitement").is_none());
    assert_eq!(b.lancer().await, (StatusCode::OK, json!({})));

    // `participation_trigger_compute` : {etat: PLANIFIE, date_planification}.
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "PLANIFIE");
    assert_eq!(cles(&v), ["date_planification", "etat"]);
    let planifie = v["traitement"]["date_planification"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        planifie.starts_with("20") && !planifie.ends_with('Z'),
        "{planifie}"
    );

    // `process_participation` : le champ est remplacé, date_planification disparaît.
    b.bac.avancer_horloge(5 * MINUTE);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "EN_COURS");
    assert_eq!(cles(&v), ["date_debut", "etat"]);
    assert!(v.get("bilan").is_none() && v.get("logs").is_none(), "{v}");

    b.bac.avancer_horloge(20 * MINUTE);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "FINI");
    assert_eq!(cles(&v), ["date_debut", "date_fin", "etat"]);
    // Le bilan : des taxons développés, qui sont bien ceux de /taxons/liste.
    let (s, liste) = b.appel(Method::GET, "/taxons/liste", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(liste.get("_meta").is_none(), "non paginé : {liste}");
    let noms: Vec<(String, String, String)> = liste["_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(cles_objet(t), ["_id", "libelle_court", "libelle_long"]);
            (
                t["_id"].as_str().unwrap().to_owned(),
                t["libelle_court"].as_str().unwrap().to_owned(),
                t["libelle_long"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let bilan = &v["bilan"];
    assert!(bilan["problemes"].is_u64(), "{bilan}");
    let chiropteres = bilan["chiropteres"].as_array().expect("des chauves-souris");
    assert!(!chiropteres.is_empty());
    let mut contacts = 0;
    for ordre in ["chiropteres", "orthopteres", "autre"] {
        for ligne in bilan
            .get(ordre)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let t = &ligne["taxon"];
            let id = t["_id"].as_str().expect("taxon développé");
            assert!(
                noms.iter().any(|(i, c, l)| i == id
                    && t["libelle_court"] == c.as_str()
                    && t["libelle_long"] == l.as_str()),
                "{t}"
            );
            let (min, max) = (
                ligne["nb_contact_min"].as_u64().unwrap(),
                ligne["nb_contact_max"].as_u64().unwrap(),
            );
            assert!(min <= max && max > 0, "{ligne}");
            contacts += max;
        }
    }
    // Le journal, développé en document de fichier.
    assert_eq!(v["logs"]["mime"], "text/plain");
    let titre_logs = format!("participation-{PARTICIPATION}-logs");
    assert_eq!(v["logs"]["titre"], titre_logs.as_str());
    assert!(v["logs"]["s3_id"].as_str().unwrap().starts_with("others/"));

    // Le CSV vient après : FINI sans CSV, puis le CSV.
    assert!(b.pieces_extra().await.is_empty());
    b.bac.avancer_horloge(MINUTE);
    let extra = b.pieces_extra().await;
    assert_eq!(extra.len(), 1, "{extra:?}");
    assert_eq!(extra[0]["titre"], nom_csv(PARTICIPATION).as_str());
    assert_eq!(extra[0]["mime"], "application/x-processing-extra");
    assert_eq!(extra[0]["disponible"], true);
    let s3_id = extra[0]["s3_id"].as_str().unwrap();
    assert!(
        s3_id.starts_with("processing_extra/") && s3_id.ends_with(&nom_csv(PARTICIPATION)),
        "{s3_id}"
    );
    let (s, acces) = b
        .appel(
            Method::GET,
            &format!("/fichiers/{}/acces", extra[0]["_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{acces}");
    let csv = b
        .http
        .get(acces["s3_signed_url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(
        Some(csv.to_vec()),
        b.bac
            .contenu_fichier(PARTICIPATION, &nom_csv(PARTICIPATION))
    );
    let texte = String::from_utf8(csv.to_vec()).unwrap();
    assert!(
        texte.starts_with("\"nom du fichier\";\"temps_debut\";"),
        "{texte}"
    );
    // Une ligne par contact du bilan (chaque observation compte au plus).
    assert_eq!(
        texte.matches("\r\n").count() as u64,
        contacts + 1,
        "{texte}"
    );
    assert!(b.bac.contenu_fichier(PARTICIPATION, &titre_logs).is_some());

    // Une liste de participations n'a ni bilan ni journal (projection du serveur).
    let (_, l) = b
        .appel(Method::GET, &format!("/sites/{SITE}/participations"), None)
        .await;
    let p = &l["_items"][0];
    assert_eq!(p["traitement"]["etat"], "FINI");
    assert!(p.get("bilan").is_none() && p.get("logs").is_none(), "{p}");
    b.bac.arreter().await;
}

fn cles_objet(v: &Value) -> Vec<String> {
    let mut c: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    c.sort();
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn relance_refusee_moins_d_un_jour_apres_acceptee_ensuite() {
    let b = banc().await;
    // Un calcul qui ne démarre jamais (travailleur arrêté).
    b.bac.regler_calcul(reglages(3 * 24 * 60, 1));
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    let already = |etat: &str| {
        (
            StatusCode::BAD_REQUEST,
            erreur(
                "400 Bad Request",
                json!({ "etat": format!("Already {etat}") }),
            ),
        )
    };
    assert_eq!(b.lancer().await, already("PLANIFIE"));
    b.bac.avancer_horloge(23 * 60 * MINUTE);
    assert_eq!(b.lancer().await, already("PLANIFIE"));
    // Plus d'un jour après la planification : le serveur accepte de nouveau.
    b.bac.avancer_horloge(2 * 60 * MINUTE);
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    assert_eq!(
        b.bac.participation(PARTICIPATION).unwrap().calculs_lances,
        2
    );
    b.bac.arreter().await;

    // En cours depuis moins d'un jour : refusé ; fini : accepté, le bilan gardé jusqu'au
    // nouveau calcul, le CSV effacé quand il commence.
    let b = banc().await;
    b.deposer_sequences(5).await;
    b.bac.regler_calcul(reglages(1, 10));
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    b.bac.avancer_horloge(2 * MINUTE);
    assert_eq!(b.lancer().await, already("EN_COURS"));
    b.bac.avancer_horloge(20 * MINUTE);
    assert_eq!(b.lire().await["traitement"]["etat"], "FINI");
    assert_eq!(b.pieces_extra().await.len(), 1);
    let bilan = b.lire().await["bilan"].clone();
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "PLANIFIE");
    assert_eq!(v["bilan"], bilan);
    assert_eq!(
        b.pieces_extra().await.len(),
        1,
        "CSV gardé tant que PLANIFIE"
    );
    b.bac.avancer_horloge(2 * MINUTE);
    assert_eq!(b.lire().await["traitement"]["etat"], "EN_COURS");
    assert!(
        b.pieces_extra().await.is_empty(),
        "reset_pjs_state efface le CSV"
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn echecs_injectes_retry_puis_fini_ou_erreur() {
    let b = banc().await;
    b.deposer_sequences(3).await;
    b.bac.regler_calcul(ReglagesCalcul {
        echecs: 1,
        essais_max: 1,
        ..reglages(1, 10)
    });
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    b.bac.avancer_horloge(11 * MINUTE);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "RETRY");
    assert_eq!(v["traitement"]["retry"], 1);
    assert_eq!(
        cles(&v),
        ["date_debut", "date_fin", "etat", "message", "retry"]
    );
    assert!(
        v["traitement"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Traceback (most recent call last):")
    );
    // RETRY n'est ni PLANIFIE ni EN_COURS : le serveur accepterait un calcul.
    // Le nouvel essai repart d'un champ neuf (sans retry), puis finit.
    b.bac.avancer_horloge(2 * MINUTE);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "EN_COURS");
    assert_eq!(cles(&v), ["date_debut", "etat"]);
    b.bac.avancer_horloge(10 * MINUTE);
    assert_eq!(b.lire().await["traitement"]["etat"], "FINI");

    // Sans essai supplémentaire : ERREUR, avec la trace.
    let b = banc().await;
    b.bac.regler_calcul(ReglagesCalcul {
        echecs: 5,
        essais_max: 0,
        message_erreur: "Traceback…\nValueError: boum\n".into(),
        ..reglages(1, 10)
    });
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    b.bac.avancer_horloge(60 * MINUTE);
    let v = b.lire().await;
    assert_eq!(v["traitement"]["etat"], "ERREUR");
    assert_eq!(cles(&v), ["date_debut", "date_fin", "etat", "message"]);
    assert_eq!(v["traitement"]["message"], "Traceback…\nValueError: boum\n");
    assert!(v.get("bilan").is_none());
    // Rien ne bouge plus.
    b.bac.avancer_horloge(600 * MINUTE);
    assert_eq!(b.lire().await["traitement"]["etat"], "ERREUR");
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn csv_sur_demande_quand_le_deploiement_ne_le_produit_pas() {
    let b = banc().await;
    b.deposer_sequences(4).await;
    b.bac.regler_calcul(ReglagesCalcul {
        csv_automatique: false,
        ..reglages(1, 1)
    });
    assert_eq!(b.lancer().await.0, StatusCode::OK);
    b.bac.avancer_horloge(60 * MINUTE);
    assert_eq!(b.lire().await["traitement"]["etat"], "FINI");
    assert!(b.pieces_extra().await.is_empty());
    let chemin = format!("/participations/{PARTICIPATION}/csv");
    assert_eq!(
        b.appel(Method::POST, &chemin, None).await,
        (StatusCode::OK, json!({}))
    );
    assert_eq!(b.bac.courriels_csv(PARTICIPATION), 1);
    assert!(
        b.pieces_extra().await.is_empty(),
        "produit par une tâche, après"
    );
    b.bac.avancer_horloge(MINUTE);
    assert_eq!(b.pieces_extra().await.len(), 1);
    // Redemandé : l'ancien est remplacé, jamais deux.
    b.appel(Method::POST, &chemin, None).await;
    b.bac.avancer_horloge(MINUTE);
    assert_eq!(b.pieces_extra().await.len(), 1);
    assert_eq!(b.bac.courriels_csv(PARTICIPATION), 2);
    // Une participation inconnue : 404 ; la route ne prend que POST.
    let (s, _) = b
        .appel(
            Method::POST,
            "/participations/64a1b2c3d4e5f60718293dff/csv",
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = b.appel(Method::GET, &chemin, None).await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    let c = b.bac.compteurs();
    // (la méthode refusée n'est pas une route : `ApiAutre`)
    assert_eq!(c.requetes(Operation::ApiCsv), 3);
    b.bac.arreter().await;
}
