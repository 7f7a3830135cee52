//! Le plan retient les réglages de son dépôt : une relance (`vigie depot`, `vigie
//! retenter-echecs`) les reprend, une valeur donnée l'emporte et le bilan le dit, et aucune
//! partie acquittée n'est jetée parce qu'un réglage a changé.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::time::{Duration, Instant};

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle, cle_fichier};

/// Les parties acquittées que le plan a notées.
fn parties_notees(banc: &Banc) -> i64 {
    let Ok(c) = rusqlite::Connection::open_with_flags(
        &banc.base,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return 0;
    };
    c.query_row(
        "SELECT count(*) FROM depot_partie WHERE etat = 'envoyee'",
        [],
        |l| l.get(0),
    )
    .unwrap_or(0)
}

/// Un fichier de 12 Mio parti en parties de 5 Mio (`--seuil-multipart 6`, une à la fois) :
/// deux parties acquittées et notées, la troisième retenue par le bac à sable, puis kill -9.
fn multipart_tue_apres_deux_parties(banc: &Banc) -> (String, usize) {
    let (titre, taille) = (nom(1), 12 * MIO);
    banc.fichier(&titre, taille);
    banc.panne(
        Regle::nieme(
            Operation::UploadPart,
            None,
            3,
            Panne::Bloquer(Duration::from_secs(120)),
        )
        .fois(1_000),
    );
    let mut enfant = banc.lancer(depot(
        banc,
        &["--seuil-multipart", "6", "--paralleles", "1"],
    ));
    let debut = Instant::now();
    while parties_notees(banc) < 2 || banc.requetes(Operation::UploadPart) < 3 {
        assert!(
            debut.elapsed() < Duration::from_secs(60),
            "deux parties jamais notées"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    enfant.kill().unwrap();
    let _ = enfant.wait();
    banc.bac().pannes().effacer();
    assert_eq!(parties_notees(banc), 2);
    (titre, taille)
}

/// `vigie depot NUIT --participation P` avec les réessais courts et ces réglages (rien
/// d'autre : les réglages que retient le plan ne sont pas redonnés).
fn depot(banc: &Banc, reglages: &[&str]) -> std::process::Command {
    let mut c = banc.depot_plateforme_avec(&[]);
    c.args(Banc::reessais_rapides()).args(reglages);
    c
}

/// `vigie retenter-echecs --json` avec les réessais courts et ces réglages, vers la plateforme
/// (`vigie` porte le jeton du bac à sable, inutile vers S3).
fn retenter(banc: &Banc, reglages: &[&str]) -> std::process::Output {
    banc.vigie_plateforme()
        .arg("retenter-echecs")
        .args(Banc::reessais_rapides())
        .args(reglages)
        .arg("--json")
        .sortie()
}

/// Le bilan JSON (dernière ligne) d'une sortie `--json`.
fn bilan(out: &std::process::Output) -> serde_json::Value {
    let lignes = lignes_json(&out.stdout);
    for l in &lignes {
        valider_ligne(l);
    }
    evenements(&lignes, "bilan")
        .last()
        .map(|b| (*b).clone())
        .unwrap_or_else(|| panic!("pas de bilan : {}", texte(out)))
}

/// Le scénario de la naturaliste : kill -9 en plein multipart lancé avec
/// `--seuil-multipart 6`, puis `vigie retenter-echecs` (la commande que propose `etat`), sans
/// rien redonner. Le seuil est repris : ni suppression de l'enregistrement ni redéclaration,
/// seule la partie manquante repart.
#[test]
fn kill_9_en_plein_multipart_puis_retenter_reprend_le_seuil_a_la_partie_pres() {
    let banc = Banc::nouveau();
    let (titre, taille) = multipart_tue_apres_deux_parties(&banc);
    let c = banc.compteurs();
    let (declarations, parties, recus) = (
        c.requetes(Operation::ApiDeclarerFichier),
        c.requetes(Operation::UploadPart),
        c.octets_recus(),
    );
    let out = retenter(&banc, &[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::ApiAbandonner),
        0,
        "enregistrement supprimé"
    );
    assert_eq!(
        c.requetes(Operation::ApiDeclarerFichier),
        declarations,
        "fichier redéclaré"
    );
    assert_eq!(
        c.requetes(Operation::UploadPart) - parties,
        1,
        "seule la troisième partie devait repartir"
    );
    assert_eq!(c.octets_recus() - recus, (taille - 10 * MIO) as u64);
    assert!(banc.objet_plateforme(PARTICIPATION, &titre) == contenu(&titre, taille));
    assert_eq!(banc.bac().fichiers().len(), 1);
    let b = bilan(&out);
    assert_eq!(b["reglages_repris"]["--seuil-multipart"], "6", "{b}");
    assert_eq!(b["reglages_repris"]["--paralleles"], "1", "{b}");
    // `vigie etat` dit ce que le plan retient.
    let etat = banc.vigie().arg("etat").sortie();
    etat.stdout_contient(&[
        "réglages retenus (repris à chaque relance) : --paralleles 1, --seuil-multipart 6",
    ]);
    let etat = banc.etat();
    assert_eq!(etat["reglages"]["seuil_multipart"], 6, "{etat}");
    valider_ligne(&etat);
}

/// Une valeur donnée à la relance l'emporte et le bilan le dit ; mais un fichier commencé en
/// parties le reste sous un seuil relevé, à sa taille de partie : aucune partie acquittée
/// n'est jetée parce qu'un réglage a changé.
#[test]
fn un_reglage_donne_l_emporte_sans_jeter_les_parties_acquittees() {
    let banc = Banc::nouveau();
    let (titre, taille) = multipart_tue_apres_deux_parties(&banc);
    let c = banc.compteurs();
    let (parties, recus) = (c.requetes(Operation::UploadPart), c.octets_recus());
    let out = depot(
        &banc,
        &["--seuil-multipart", "50", "--taille-partie", "8", "--json"],
    )
    .finir_en(0);
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::ApiAbandonner),
        0,
        "enregistrement supprimé"
    );
    assert_eq!(c.requetes(Operation::UploadPart) - parties, 1);
    // La partie 3 des parties de 5 Mio de l'envoi commencé, pas un nouveau découpage de 8 Mio.
    assert_eq!(c.octets_recus() - recus, (taille - 10 * MIO) as u64);
    assert!(banc.objet_plateforme(PARTICIPATION, &titre) == contenu(&titre, taille));
    let b = bilan(&out);
    assert_eq!(
        b["reglages_remplaces"]["--seuil-multipart"],
        serde_json::json!({"donne": "50", "retenu": "6"}),
        "{b}"
    );
    assert_eq!(b["reglages_repris"]["--paralleles"], "1", "{b}");
    // Et désormais retenu : la relance suivante reprend 50.
    let out = retenter(&banc, &[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let b = bilan(&out);
    assert_eq!(b["reglages_repris"]["--seuil-multipart"], "50", "{b}");
    assert_eq!(b["reglages_repris"]["--taille-partie"], "8", "{b}");
}

/// `--debit-max 2Mo/s`, un passage qui laisse un échec transitoire, puis `vigie
/// retenter-echecs` proposé par le bilan : la limite est reprise (le forfait du téléphone avec).
/// `--debit-max sans` la lève, et le plan retient qu'il n'y en a plus.
#[test]
fn debit_max_retenu_par_retenter_echecs() {
    let banc = Banc::nouveau();
    for i in 0..3 {
        banc.fichier(&nom(i), 50_000 + i);
    }
    let cle = cle_fichier(PARTICIPATION, &nom(2)).unwrap();
    banc.panne(Regle::toujours(Some(Operation::PutObject), code_http(503)).sur_cle(&cle));
    let out = depot(&banc, &["--debit-max", "2Mo/s", "--tentatives", "2"]).finir_en(1);
    let suite = stdout(&out);
    assert!(suite.contains("vigie retenter-echecs 1"), "{suite}");
    banc.bac().pannes().effacer();

    let out = retenter(&banc, &[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let b = bilan(&out);
    assert_eq!(b["reglages_repris"]["--debit-max"], "2 Mo/s", "{b}");
    assert_eq!(b["reglages_repris"]["--tentatives"], "2", "{b}");

    // Le même plan, relancé par `vigie depot` sans --debit-max : repris aussi ; en humain, le
    // départ et le bilan le disent.
    let out = banc.depot_plateforme().finir_en(0);
    assert!(
        stdout(&out).contains("--debit-max 2 Mo/s") && stderr(&out).contains("--debit-max 2 Mo/s"),
        "{}",
        texte(&out)
    );

    // La variable VIGIE_DEBIT_MAX est une valeur donnée : elle l'emporte, et se dit.
    let out = retenter(&banc, &[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let out = banc
        .vigie_plateforme()
        .env("VIGIE_DEBIT_MAX", "500Ko/s")
        .arg("retenter-echecs")
        .args(Banc::reessais_rapides())
        .arg("--json")
        .finir_en(0);
    assert_eq!(
        bilan(&out)["reglages_remplaces"]["--debit-max"],
        serde_json::json!({"donne": "500 Ko/s", "retenu": "2 Mo/s"})
    );
    // « sans » lève la limite retenue, et le plan le retient.
    let out = retenter(&banc, &["--debit-max", "sans"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(
        bilan(&out)["reglages_remplaces"]["--debit-max"]["donne"],
        "sans limite"
    );
    let out = retenter(&banc, &[]);
    assert_eq!(bilan(&out)["reglages_repris"]["--debit-max"], "sans limite");
}

/// Vers S3 aussi : les réglages d'un dépôt sont repris par `retenter-echecs`.
#[test]
fn vers_s3_les_reglages_sont_repris() {
    let banc = Banc::avec_fichier("a.wav", 10_000);
    banc.depot_avec(&[
        "--paralleles".to_owned(),
        "2".to_owned(),
        "--seuil-multipart".to_owned(),
        "9".to_owned(),
    ])
    .finir_en(0);
    let out = banc
        .vigie()
        .arg("retenter-echecs")
        .args(Banc::reessais_rapides())
        .arg("--json")
        .finir_en(0);
    let b = bilan(&out);
    assert_eq!(b["reglages_repris"]["--paralleles"], "2", "{b}");
    assert_eq!(b["reglages_repris"]["--seuil-multipart"], "9", "{b}");
}
