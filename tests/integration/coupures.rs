//! Coupures longues et pannes générales : pause globale sans brûler les unités, abandon au-delà
//! de `--attente-reseau`, budget global de réessai, retenue d'un Retry-After.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::time::Duration;

use crate::commun::*;
use vigie_bac_a_sable::{Operation, Regle, RetryAfter};

fn decisions(banc: &Banc, condition: &str) -> i64 {
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    c.query_row(
        &format!("SELECT count(*) FROM journal_decision WHERE {condition}"),
        [],
        |r| r.get(0),
    )
    .unwrap()
}

/// Le journal des décisions, lisible, pour les messages d'échec.
fn journal(banc: &Banc) -> String {
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    let mut st = c
        .prepare("SELECT instant_ms, unite_id, methode, tentative, statut, attente_ms, raison, detail FROM journal_decision ORDER BY id")
        .unwrap();
    st.query_map([], |r| {
        Ok(format!(
            "{} u={:?} {} t={} s={:?} a={:?} r={:?} {}",
            r.get::<_, i64>(0)?,
            r.get::<_, Option<i64>>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, Option<i64>>(4)?,
            r.get::<_, Option<i64>>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, Option<String>>(7)?.unwrap_or_default()
        ))
    })
    .unwrap()
    .map(|l| l.unwrap())
    .filter(|l| !l.contains("r=Some(\"succes\")"))
    .collect::<Vec<_>>()
    .join("\n")
}

#[test]
fn une_coupure_de_quelques_secondes_ne_consomme_aucune_tentative() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    // Chaque requête traîne un peu : la coupure tombe au milieu de la nuit.
    banc.panne(Regle::proportion(1.0, lenteur_ms(100)));
    // Aux délais larges du banc : l'essai compte les tentatives, et avec des délais courts, sur
    // une machine chargée, une partie ou une finalisation retenue plus de 2 s en coûtait une de
    // plus après la coupure, sans qu'aucune panne n'en soit la cause.
    let enfant = banc.lancer(banc.depot());
    banc.attendre("la moitié de la nuit", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 8
    });
    let sondes = banc.requetes(Operation::HeadBucket);
    banc.bac().pannes().couper_tout(true);
    // La coupure dure le temps de deux sondes (`HeadBucket`), pas une durée fixe.
    banc.attendre("deux sondes pendant la coupure", |b| {
        b.compteurs().requetes(Operation::HeadBucket) >= sondes + 2
    });
    banc.bac().pannes().couper_tout(false);
    let out = attendre_fin(enfant, Duration::from_secs(120));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    banc.verifier_identiques(&fichiers);
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 20), ("echec", 0)]);
    // Pendant la pause (de la première à la dernière sonde), aucune unité n'a consommé de
    // tentative : seule la sonde émet. Une requête partie avant la coupure peut y aboutir (un
    // assemblage multipart qui prend son temps) : son succès ne consomme rien. Avant la
    // détection (--echecs-reseau 2 par défaut), le premier échec de la série a pu être absorbé
    // comme un incident ordinaire (une décision de rejouer : attente_ms renseignée). La tentative qui déclare la coupure, et
    // celles que la coupure interrompt ensuite, sont journalisées sans attente ni raison : elles
    // ne sont pas comptées et repartent à la réouverture.
    assert!(
        decisions(&banc, "methode = 'SONDE'") >= 2,
        "aucune sonde journalisée"
    );
    let pendant = decisions(
        &banc,
        "unite_id IS NOT NULL AND (attente_ms IS NOT NULL OR raison IS NOT NULL) \
         AND coalesce(raison, '') != 'succes' \
         AND instant_ms > (SELECT min(instant_ms) FROM journal_decision WHERE methode = 'SONDE') \
         AND instant_ms < (SELECT max(instant_ms) FROM journal_decision WHERE methode = 'SONDE')",
    );
    assert_eq!(
        pendant,
        0,
        "{pendant} décisions d'unités pendant la pause réseau :\n{}",
        journal(&banc)
    );
    let avant = decisions(
        &banc,
        "unite_id IS NOT NULL AND raison IS NULL AND attente_ms IS NOT NULL",
    );
    assert!(
        avant <= 2,
        "{avant} tentatives consommées autour de la coupure :\n{}",
        journal(&banc)
    );
    let suspendues = decisions(
        &banc,
        "unite_id IS NOT NULL AND raison IS NULL AND attente_ms IS NULL \
         AND detail LIKE '%réseau coupé : tentative non comptée%'",
    );
    assert!(
        suspendues >= 1,
        "la tentative qui a déclaré la coupure n'est pas journalisée :\n{}",
        journal(&banc)
    );
    let stderr = stderr(&out);
    assert!(stderr.contains("réseau indisponible"), "{stderr}");
    // La coupure a divisé le parallélisme par deux (plafond 4, par défaut) : le journal du plan
    // note le changement et sa cause, les lignes d'événements le disent.
    let baisses = decisions(
        &banc,
        "methode = 'PARALLELISME' AND unite_id IS NULL AND (\
         detail = 'parallélisme 4 → 2 (plafond 4) : coupure du réseau' \
         OR detail = 'parallélisme 4 → 2 (plafond 4) : incident de transport')",
    );
    assert!(baisses >= 1, "{}", journal(&banc));
    contient(
        &stderr,
        &["~ parallélisme : 2 transfert(s) en vol au plus, sur 4"],
    );
}

#[test]
fn une_coupure_plus_longue_que_l_attente_arrete_proprement_puis_retenter_termine() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    banc.bac().pannes().couper_tout(true);
    let out = banc.depot().mots("--attente-reseau 2").finir_en(1);
    let etat = banc.etat();
    assert_eq!(etat["unites"]["en_cours"], 0, "plan incohérent : {etat}");
    assert_eq!(etat["definitifs"], 0, "{etat}");
    assert_eq!(etat["unites"]["deposee"], 0, "{etat}");
    out.stdout_contient(&["vigie retenter-echecs"]);

    banc.bac().pannes().couper_tout(false);
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
}

#[test]
fn un_serveur_qui_repond_503_a_tout_n_est_pas_martele() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    let mut regle = Regle::proportion(1.0, code_http(503));
    regle.operation = Some(Operation::PutObject);
    banc.panne(regle);
    banc.depot().finir_en(1);
    // 17 petits fichiers : une première tentative chacun, puis les réessais que permet le budget
    // (50 échecs au plus avant de suspendre les réessais) ; sans budget : 17 × 7 = 119.
    let puts = banc.requetes(Operation::PutObject);
    assert!(
        puts <= 17 + 50 + 1,
        "{puts} PUT reçus : le serveur en panne a été martelé"
    );
    assert!(puts >= 17);

    banc.bac().pannes().effacer();
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
}

#[test]
fn un_retry_after_retient_les_autres_unites() {
    let banc = Banc::nouveau();
    let premier = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    let mut fichiers = vec![(premier.to_string(), 20_000)];
    banc.fichier(premier, 20_000);
    for i in 1..8 {
        let nom = format!("Car640139-2026-Pass1-A1-OB-1_20260621_2216{i:02}_000.wav");
        banc.fichier(&nom, 20_000);
        fichiers.push((nom, 20_000));
    }
    banc.panne_nieme(
        Operation::PutObject,
        premier,
        1,
        code_http_apres(503, RetryAfter::Secondes(2)),
    );
    // Le mandataire note chaque PUT (rang d'arrivée, fichier, statut) et l'instant où il en
    // rend la réponse. Une fois le 503 rendu, la réponse d'un autre fichier attend que `vigie`
    // l'ait lu (sa décision est au journal du plan, écrite après la retenue) : sinon, sous la
    // charge, l'unité en vol sur l'autre place pouvait finir, et la suivante partir, avant que
    // le 503 soit lu.
    let vus = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let rendu = std::sync::Arc::new(std::sync::Mutex::new(None));
    let m = {
        let (vus, rendu) = (std::sync::Arc::clone(&vus), std::sync::Arc::clone(&rendu));
        let cle = banc.cle(premier);
        let base = banc.base.clone();
        mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
            if q.methode != "PUT" {
                return;
            }
            let du_premier = q.chemin.contains(&cle);
            // Le 503 rendu et les réponses rendues avant lui sont notés sous le même verrou :
            // une réponse notée sans attendre l'a été avant le 503.
            let mut rendu = rendu.lock().unwrap();
            if du_premier && r.statut == 503 {
                *rendu = Some(std::time::Instant::now());
            } else if !du_premier && rendu.is_some() {
                drop(rendu);
                tokio::task::block_in_place(|| attendre_le_503_lu(&base));
            }
            let mut v = vus.lock().unwrap();
            v.push((q.rang, du_premier, r.statut, std::time::Instant::now()));
        })
    };
    banc.depot_via(&m.endpoint())
        .mots("--paralleles 2")
        .finir_en(0);
    banc.verifier_identiques(&fichiers);
    let mut vus = vus.lock().unwrap().clone();
    vus.sort_by_key(|v| v.0);
    let lisible: Vec<_> = vus.iter().map(|v| (v.0, v.1, v.2)).collect();
    let premiers: Vec<_> = vus.iter().filter(|v| v.1).collect();
    assert_eq!(premiers.len(), 2, "{lisible:?}");
    assert_eq!(premiers[0].2, 503, "{lisible:?}");
    // Le 503 est rendu à l'instant `rendu` ; `vigie` le lit ensuite, et retient dès lors tout
    // nouvel envoi jusqu'à 2 s après sa lecture. Un PUT d'un autre fichier dont la réponse
    // est rendue avant `rendu + 2 s` est donc parti avant la lecture du 503 : seule l'unité
    // qui était déjà en vol sur l'autre place le peut (la réponse de tout autre PUT attend
    // cette lecture). Sans retenue, les six autres partiraient pendant ces deux secondes.
    // Aucune durée n'est mesurée : l'ordre des causes suffit, quelle que soit la charge.
    let rendu = premiers[0].3;
    let pendant = vus
        .iter()
        .filter(|v| !v.1 && v.3 >= rendu && v.3 < rendu + Duration::from_secs(2))
        .count();
    assert!(
        pendant <= 1,
        "{pendant} unités ont émis pendant le Retry-After d'une autre : {lisible:?}"
    );
}

/// Attend que le journal du plan porte la décision prise sur un 503 : `vigie` l'écrit après
/// avoir lu la réponse et posé la retenue du `Retry-After`.
fn attendre_le_503_lu(base: &std::path::Path) {
    let debut = std::time::Instant::now();
    while debut.elapsed() < Duration::from_secs(30) {
        let lu = rusqlite::Connection::open(base)
            .and_then(|c| {
                c.query_row(
                    "SELECT count(*) FROM journal_decision WHERE statut = 503",
                    [],
                    |r| r.get::<_, i64>(0),
                )
            })
            .is_ok_and(|n| n > 0);
        if lu {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
