//! La saison en une seule course : les nuits partagent les réglages, le plafond
//! `--paralleles` et le seau `--debit-max`, et `--jusqu-au-bout` vaut pour toute la saison (un
//! passage envoie toutes les nuits qui ont encore à tenter ; la nuit en panne ne retient pas
//! les suivantes).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::*;
use crate::saison::depot_saison;
use vigie_bac_a_sable::{Operation, Panne, Regle};

/// Pauses courtes entre deux passages : les essais ne dorment pas.
const PAUSES_COURTES: [&str; 4] = ["--attente-passage", "0.02", "--attente-passage-max", "0.05"];

/// La nuit A1 (un seul fichier, la première de la saison) et la nuit B2 (deux fichiers), la
/// même soirée, sur deux cartes.
const NUIT_A1: &str = "PA1/Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav";
const NUIT_B2: [&str; 2] = [
    "PA2/Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav",
    "PA2/Car640139-2026-Pass1-B2-PA2_20260704_001500_000.wav",
];
const TAILLE: usize = 3_000;

/// Les (passage, plan) des lignes `passage`, dans l'ordre.
fn passages(lignes: &[serde_json::Value]) -> Vec<(u64, i64)> {
    evenements(lignes, "passage")
        .iter()
        .map(|p| (p["passage"].as_u64().unwrap(), p["plan"].as_i64().unwrap()))
        .collect()
}

/// La nuit A1 part la première et reste en échec transitoire (trois 503 de suite, trois
/// tentatives par passage) : la nuit B2 part quand même au premier passage, et A1 est reprise
/// au deuxième, après une seule pause, celle de la saison. Nuit après nuit, B2 aurait attendu
/// que A1 aille au bout.
#[test]
fn jusqu_au_bout_un_passage_envoie_chaque_nuit_avant_de_reprendre_celle_en_panne() {
    let banc = Banc::nouveau();
    banc.fichier(NUIT_A1, TAILLE);
    for n in NUIT_B2 {
        banc.fichier(n, TAILLE);
    }
    // Les quatre premiers PutObject : 503. Un seul à la fois (--paralleles 1), A1 d'abord :
    // ses trois tentatives du premier passage échouent, la quatrième panne tombe sur B2, qui
    // la rattrape.
    banc.bac().pannes().programmer(
        Regle::toujours(
            Some(Operation::PutObject),
            Panne::Statut {
                code: 503,
                retry_after: None,
            },
        )
        .fois(4),
    );
    let out = depot_saison(&banc)
        .args([
            "--tentatives",
            "3",
            "--paralleles",
            "1",
            "--jusqu-au-bout",
            "--json",
        ])
        .args(PAUSES_COURTES)
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let vus = passages(&lignes);
    assert_eq!(vus.len(), 3, "{}", stdout(&out));
    let (a1, b2) = (vus[0].1, vus[1].1);
    assert_ne!(a1, b2, "{vus:?}");
    assert_eq!(vus, [(1, a1), (1, b2), (2, a1)], "{}", stdout(&out));
    let lignes_passage = evenements(&lignes, "passage");
    assert_eq!(lignes_passage[0]["echecs"], 1, "{}", lignes_passage[0]);
    assert_eq!(lignes_passage[1]["deposees"], 2, "{}", lignes_passage[1]);
    // Une seule pause, annoncée à la fin du premier passage de la saison.
    let pauses: Vec<bool> = lignes_passage
        .iter()
        .map(|p| !p["prochain_passage_s"].is_null())
        .collect();
    assert_eq!(pauses, [false, true, false], "{}", stdout(&out));
    // Un bilan par nuit ; la fin des passages, une fois, avec le dernier.
    let bilans = evenements(&lignes, "bilan");
    assert_eq!(bilans.len(), 2, "{}", stdout(&out));
    assert_eq!(bilans[1]["passages"], 2, "{}", bilans[1]);
    assert_eq!(bilans[1]["arret"], "tout_depose", "{}", bilans[1]);
    for b in &bilans {
        assert_eq!(b["restantes"], 0, "{b}");
        assert_eq!(b["echecs"], 0, "{b}");
    }
    let fichiers = banc.bac().fichiers();
    assert_eq!(fichiers.len(), 3, "{fichiers:#?}");
    assert!(fichiers.iter().all(|f| f.disponible), "{fichiers:#?}");
}
