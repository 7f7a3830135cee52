//! La saison qui reprend comme l'écran le dit : une création refusée ne bloque que sa nuit,
//! une carte mêlée laisse partir les nuits justes, les réglages d'envoi appartiennent à la
//! saison, et le conseil affiché, lancé tel quel, finit toutes les nuits.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::*;
use crate::saison::depot_saison;
use vigie_bac_a_sable::{Operation, Regle};

const TAILLE: usize = 3_000;

/// Trois nuits d'un même site (A1, B2, Z3), deux fichiers chacune.
const TROIS_NUITS: [&str; 6] = [
    "PA1/Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
    "PA1/Car640139-2026-Pass1-A1-PA1_20260704_013000_000.wav",
    "PA2/Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav",
    "PA2/Car640139-2026-Pass1-B2-PA2_20260704_001500_000.wav",
    "PA3/Car640139-2026-Pass2-Z3-PA3_20260814_223000_000.wav",
    "PA3/Car640139-2026-Pass2-Z3-PA3_20260815_031500_000.wav",
];

fn trois_nuits(banc: &Banc) {
    for f in TROIS_NUITS {
        banc.fichier(f, TAILLE);
    }
}

fn creations(banc: &Banc) -> u64 {
    banc.bac()
        .compteurs()
        .requetes(Operation::ApiCreerParticipation)
}

/// Issue 42, défaut 7 : une création de participation refusée (422) pour une nuit bloquait
/// toute la saison (0 fichier envoyé, code 3), sans nommer la nuit, et la relance l'annonçait
/// « reprise (déjà dans la base) ». Elle ne bloque plus que sa nuit, qui est nommée ; les
/// autres partent ; la relance la dit « à créer » et la crée.
#[test]
fn creation_refusee_422_ne_bloque_que_sa_nuit_nommee() {
    let banc = Banc::nouveau();
    trois_nuits(&banc);
    // La première création (la nuit A1 du 03/07, première de la saison) : 422.
    banc.bac().pannes().programmer(
        Regle::toujours(Some(Operation::ApiCreerParticipation), code_http(422)).fois(1),
    );
    let out = depot_saison(&banc).finir_en(3);
    let e = stderr(&out);
    assert!(
        e.contains("03/07 A1"),
        "la nuit refusée n'est pas nommée : {e}"
    );
    assert!(e.contains("422"), "{e}");
    let fichiers = banc.bac().fichiers();
    assert_eq!(
        fichiers.len(),
        4,
        "les deux autres nuits partent : {fichiers:#?}"
    );
    assert!(
        fichiers.iter().all(|f| !f.titre.contains("-A1-")),
        "rien ne part pour la nuit refusée : {fichiers:#?}"
    );
    // La relance : la nuit refusée n'est pas « reprise », elle est créée, et part.
    let out = depot_saison(&banc).finir_en(0);
    let e = stderr(&out);
    let ligne_a1 = e
        .lines()
        .find(|l| l.contains("A1") && l.contains("fichiers"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        !ligne_a1.contains("reprise") && ligne_a1.contains("à créer"),
        "{e}"
    );
    assert_eq!(creations(&banc), 4, "{}", texte(&out));
    assert_eq!(banc.bac().fichiers().len(), 6);
}
