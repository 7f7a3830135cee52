//! Une base écrite par la version d'avant la séparation de `envoi_id` (schéma 5), avec un
//! envoi en plusieurs parties commencé dedans, reprise par cette version : la migration
//! répartit l'ancienne colonne (envoi multipart S3, enregistrement Vigie-Chiro) et la reprise
//! ne renvoie rien de ce qui était acquitté, ni ne redéclare ni ne rouvre l'envoi.

#![cfg(feature = "bac-a-sable")]

use std::path::Path;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Regle};

/// Le fichier : quatre parties de 5 Mio (la dernière de 2 Mio).
const TAILLE: usize = 17 * MIO;

/// Les migrations de la version d'avant (schéma 5), telles qu'elle les appliquait.
const SCHEMA_5: [&str; 5] = [
    include_str!("../../migrations/0001_creer_plan.sql"),
    include_str!("../../migrations/0002_ajouter_participation.sql"),
    include_str!("../../migrations/0003_noter_refus_multipart.sql"),
    include_str!("../../migrations/0004_noter_identite_fichier.sql"),
    include_str!("../../migrations/0005_retenir_reglages.sql"),
];

/// Ce que défait chaque migration récente, de la 10 à la dernière : ramener une base neuve
/// au schéma `version`, c'est défaire, de la plus récente à la plus ancienne, celles qui le
/// dépassent. Une migration nouvelle ajoute ici sa ligne, et les essais des schémas plus
/// anciens restent tels quels.
const DEFAIRE: [(i64, &str); 4] = [
    (
        10,
        "ALTER TABLE depot_unite DROP COLUMN source;
         ALTER TABLE depot_unite DROP COLUMN source_taille;
         ALTER TABLE depot_unite DROP COLUMN source_debut;
         ALTER TABLE depot_unite DROP COLUMN entete;",
    ),
    (11, "DROP TABLE micro_du_point;"),
    (12, "ALTER TABLE depot_plan DROP COLUMN sorte;"),
    (
        13,
        concat!(
            "ALTER TABLE micro_du_point RENAME TO micro_du_point_par_rang;",
            include_str!("../../migrations/0011_retenir_micro_du_point.sql"),
            "INSERT INTO micro_du_point SELECT api, site, point, position, hauteur, type_micro,
                 numero_serie, retenu_le FROM micro_du_point_par_rang WHERE rang = 0;
             DROP TABLE micro_du_point_par_rang;"
        ),
    ),
];

/// Le schéma de cette version : celui de la dernière migration.
const SCHEMA_ACTUEL: i64 = DEFAIRE[DEFAIRE.len() - 1].0;

/// Ramène la base `base`, écrite par cette version, au schéma `version` (au moins 9), telle
/// qu'une version d'alors l'aurait laissée.
fn ramener_au_schema(base: &Path, version: i64) {
    let c = rusqlite::Connection::open(base).unwrap();
    for (_, sql) in DEFAIRE.iter().rev().filter(|(m, _)| *m > version) {
        c.execute_batch(sql).unwrap();
    }
    c.pragma_update(None, "user_version", version).unwrap();
}

/// Remplace la base par une base au schéma 5, telle que l'écrivait la version d'avant, qui
/// tient le même plan : une seule colonne `envoi_id`, qui porte l'envoi S3, l'enregistrement
/// Vigie-Chiro ou le marqueur d'une déclaration multipart émise. Bâtie par les migrations
/// 0001 à 0005 elles-mêmes, puis remplie depuis la base du premier passage.
fn ramener_au_schema_5(base: &Path) {
    let ancienne = base.with_extension("schema5");
    let c = rusqlite::Connection::open(&ancienne).unwrap();
    for sql in SCHEMA_5 {
        c.execute_batch(sql).unwrap();
    }
    c.pragma_update(None, "user_version", 5).unwrap();
    c.execute("ATTACH DATABASE ?1 AS neuve", [base.to_str().unwrap()])
        .unwrap();
    c.execute_batch(
        "INSERT INTO depot_plan (id, dossier, destination, cree_le, actif_le, participation,
             participation_emise_le, multipart_refuse_le, reglages)
         SELECT id, dossier, destination, cree_le, actif_le, participation,
             participation_emise_le, multipart_refuse_le, reglages FROM neuve.depot_plan;
         INSERT INTO depot_unite (id, plan_id, chemin, cle, taille, modifie_ns, etat,
             echec_definitif, cause_refus, message, envoi_id, somme_controle, etag,
             modifie_depuis, depose_le, identite)
         SELECT id, plan_id, chemin, cle, taille, modifie_ns, etat, echec_definitif,
             cause_refus, message, COALESCE(envoi_multipart, enregistrement,
                 CASE WHEN declaration_emise_le IS NOT NULL
                      THEN 'declaration-multipart-emise' END),
             somme_controle, etag, modifie_depuis, depose_le, identite
           FROM neuve.depot_unite;
         INSERT INTO depot_partie SELECT * FROM neuve.depot_partie;
         DETACH DATABASE neuve;",
    )
    .unwrap();
    drop(c);
    for suffixe in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffixe}", base.display()));
    }
    std::fs::rename(&ancienne, base).unwrap();
}

/// L'identifiant que tient l'ancienne colonne, et le nombre de parties acquittées.
fn envoi_et_parties(base: &Path) -> (Option<String>, i64) {
    let c = rusqlite::Connection::open(base).unwrap();
    let envoi = c
        .query_row("SELECT envoi_id FROM depot_unite", [], |r| r.get(0))
        .unwrap();
    let parties = c
        .query_row(
            "SELECT COUNT(*) FROM depot_partie WHERE etat = 'envoyee'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (envoi, parties)
}

/// Les deux premières parties partent ; la troisième et les suivantes sont refusées (500)
/// jusqu'à épuisement des tentatives : un échec transitoire, l'envoi gardé. Une place : les
/// parties partent une à une, dans l'ordre.
fn deux_parties_puis_panne(banc: &Banc) {
    banc.panne(Regle::nieme(Operation::UploadPart, None, 3, code_http(500)).fois(u64::MAX));
}

#[test]
fn base_du_schema_5_reprise_s3_sans_rien_renvoyer_ni_rouvrir() {
    let banc = Banc::nouveau();
    let nom = nom(1);
    banc.fichier(&nom, TAILLE);
    deux_parties_puis_panne(&banc);
    banc.depot().mots("--paralleles 1").finir_en(1);
    banc.bac().pannes().effacer();
    ramener_au_schema_5(&banc.base);
    let (envoi, acquittees) = envoi_et_parties(&banc.base);
    assert!(envoi.is_some(), "aucun envoi dans la base d'avant");
    assert_eq!(acquittees, 2);

    let c = banc.compteurs();
    let (parties, octets) = (c.requetes(Operation::UploadPart), c.octets_recus());
    banc.depot().finir_en(0);
    banc.verifier_identiques(&[(nom.clone(), TAILLE)]);
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::CreateMultipartUpload),
        1,
        "envoi rouvert"
    );
    assert_eq!(
        c.requetes(Operation::UploadPart) - parties,
        2,
        "des parties acquittées sont reparties"
    );
    assert_eq!(c.octets_recus() - octets, (TAILLE - 10 * MIO) as u64);
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
}

#[test]
fn base_du_schema_5_reprise_vigiechiro_sans_rien_renvoyer_ni_redeclarer() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    banc.fichier(&titre, TAILLE);
    deux_parties_puis_panne(&banc);
    banc.depot_plateforme().mots("--paralleles 1").finir_en(1);
    banc.bac().pannes().effacer();
    ramener_au_schema_5(&banc.base);
    let (envoi, acquittees) = envoi_et_parties(&banc.base);
    let id = banc.bac().fichier(PARTICIPATION, &titre).unwrap().id;
    assert_eq!(envoi.as_deref(), Some(id.as_str()));
    assert_eq!(acquittees, 2);

    let c = banc.compteurs();
    let (parties, octets) = (c.requetes(Operation::UploadPart), c.octets_recus());
    let declarations = c.requetes(Operation::ApiDeclarerFichier);
    banc.depot_plateforme().finir_en(0);
    assert!(banc.objet_plateforme(PARTICIPATION, &titre) == contenu(&titre, TAILLE));
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::ApiDeclarerFichier),
        declarations,
        "fichier redéclaré"
    );
    assert_eq!(
        c.requetes(Operation::UploadPart) - parties,
        2,
        "des parties acquittées sont reparties"
    );
    assert_eq!(c.octets_recus() - octets, (TAILLE - 10 * MIO) as u64);
    assert_eq!(banc.bac().fichiers().len(), 1, "enregistrement en double");
    assert_eq!(banc.bac().fichier(PARTICIPATION, &titre).unwrap().id, id);
    assert!(banc.bac().envois_orphelins().is_empty());
}

/// Une base du schéma 9 (d'avant les séquences préparées au fil de l'envoi, migration 0010),
/// qui tient une nuit ordinaire déposée, reprise par cette version : la migration ajoute les
/// colonnes de la source d'une séquence, vides pour un fichier ordinaire, et rien ne repart.
#[test]
fn base_du_schema_9_reprise_sans_rien_renvoyer_et_colonnes_de_la_source_vides() {
    let banc = Banc::nouveau();
    let fichiers = [(nom(1), 20_000), (nom(2), 30_000)];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot().finir_en(0);
    ramener_au_schema(&banc.base, 9);
    let recus = banc.compteurs().octets_recus();
    banc.depot().finir_en(0);
    assert_eq!(
        banc.compteurs().octets_recus(),
        recus,
        "des octets sont repartis"
    );
    banc.verifier_identiques(&fichiers.map(|(n, t)| (n, t)));
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    let version: i64 = c
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_ACTUEL);
    let sources: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM depot_unite WHERE source IS NULL AND entete IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sources, 2);
}

/// Une base du schéma 10 (d'avant le micro retenu par point, migration 0011), qui tient une
/// nuit déposée dans une participation du site web, reprise par cette version : la migration
/// ajoute la table, vide ; rien ne repart ; le micro donné à la reprise est retenu pour le
/// point de la participation.
#[test]
fn base_du_schema_10_reprise_sans_rien_renvoyer_puis_micro_retenu() {
    let banc = Banc::nouveau();
    banc.fichier(&nom(1), 20_000);
    banc.depot_plateforme().finir_en(0);
    let c = reprendre_au_schema(&banc, 10, &["--micro-position", "SOL"]);
    assert_eq!(
        micros_retenus(&c),
        [(SITE.into(), "A1".into(), 0, Some("SOL".into()))]
    );
}

/// Ramène la base du banc (qui tient sa nuit déposée dans la participation du site web) au
/// schéma `version`, puis la reprend par cette version avec ces options : rien ne repart, la
/// base monte au schéma actuel. Rend la base, ouverte.
fn reprendre_au_schema(banc: &Banc, version: i64, options: &[&str]) -> rusqlite::Connection {
    ramener_au_schema(&banc.base, version);
    let declares = banc.requetes(Operation::ApiDeclarerFichier);
    banc.depot_plateforme_avec(&options.iter().map(|o| o.to_string()).collect::<Vec<_>>())
        .finir_en(0);
    assert_eq!(
        banc.requetes(Operation::ApiDeclarerFichier),
        declares,
        "un fichier est reparti"
    );
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    let lue: i64 = c
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(lue, SCHEMA_ACTUEL);
    c
}

/// Les micros que retient la base : (site, point, rang, position), dans l'ordre.
fn micros_retenus(c: &rusqlite::Connection) -> Vec<(String, String, i64, Option<String>)> {
    c.prepare("SELECT site, point, rang, position FROM micro_du_point ORDER BY site, point, rang")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Une base du schéma 12 (d'avant le second micro, migration 0013), qui retient le micro du
/// point A1, reprise par cette version : la migration le garde comme premier micro (rang 0) ;
/// rien ne repart ; le second micro donné à la reprise est retenu à côté, et la participation
/// reçoit les deux (`micro0_position` du micro retenu, `micro1_position` de l'option).
#[test]
fn base_du_schema_12_le_micro_retenu_reste_le_premier_et_le_second_s_y_ajoute() {
    let banc = Banc::nouveau();
    banc.fichier(&nom(1), 20_000);
    banc.depot_plateforme_avec(&["--micro-position".into(), "SOL".into()])
        .finir_en(0);
    let c = reprendre_au_schema(&banc, 12, &["--micro1-position", "CANOPEE"]);
    assert_eq!(
        micros_retenus(&c),
        [
            (SITE.into(), "A1".into(), 0, Some("SOL".into())),
            (SITE.into(), "A1".into(), 1, Some("CANOPEE".into()))
        ]
    );
    let configuration = banc
        .bac()
        .participation(PARTICIPATION)
        .unwrap()
        .configuration;
    let configuration = configuration.unwrap_or_default();
    assert_eq!(configuration["micro0_position"], "SOL", "{configuration}");
    assert_eq!(
        configuration["micro1_position"], "CANOPEE",
        "{configuration}"
    );
}

/// Une base du schéma 11 (d'avant la sorte des plans, migration 0012), qui tient une nuit
/// déposée vers un compartiment S3, reprise par cette version : la migration donne à son plan
/// la sorte que disait son identité, la reprise ne renvoie rien, et `vigie verifier` relit le
/// compartiment (la destination relue par sa sorte).
#[test]
fn base_du_schema_11_chaque_plan_recoit_sa_sorte_et_se_reprend() {
    let banc = Banc::nouveau();
    let fichiers = [(nom(1), 20_000), (nom(2), 30_000)];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot().finir_en(0);
    ramener_au_schema(&banc.base, 11);
    let recus = banc.compteurs().octets_recus();
    banc.depot().finir_en(0);
    assert_eq!(
        banc.compteurs().octets_recus(),
        recus,
        "des octets sont repartis"
    );
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    let sorte: String = c
        .query_row("SELECT sorte FROM depot_plan", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sorte, "s3");
    banc.vigie()
        .arg("verifier")
        .args(Banc::reessais_rapides())
        .finir_en(0);
}
