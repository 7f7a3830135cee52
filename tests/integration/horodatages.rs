//! Les horodatages des noms, jugés avant toute création : une
//! horloge d'enregistreur remise à 2000 ne fond plus dix nuits en une participation datée du
//! 31/12/1999 ; une date impossible, d'avant le programme, dans le futur, ou que contredit le
//! journal de l'enregistreur est refusée (code 2), la nuit et les fichiers nommés, avec quoi
//! faire ; et ces fautes sont dites dans le même premier message que les fautes de noms.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Output;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::Operation;

/// Ce qui a été créé ou déclaré à la plateforme, et envoyé à son S3.
fn ecrit(banc: &Banc) -> u64 {
    let c = banc.compteurs();
    c.requetes(Operation::ApiCreerParticipation)
        + c.requetes(Operation::ApiDeclarerFichier)
        + c.requetes(Operation::PutObject)
        + c.requetes(Operation::UploadPart)
}

/// Dix nuits, une par dossier, d'un enregistreur dont l'horloge repart chaque soir du
/// 1er janvier 2000 à minuit : des noms de 2026 horodatés `20000101_0000xx`.
fn carte_a_l_horloge_remise_a_2000(banc: &Banc) {
    for nuit in 0..10 {
        for s in 0..3 {
            let nom = format!(
                "Car640139-2026-Pass1-A1-PA1_20000101_00{:02}{:02}_000.wav",
                nuit, s
            );
            banc.fichier(&format!("nuit{nuit:02}/{nom}"), 3_000);
        }
    }
}

#[test]
fn horloge_remise_a_2000_dix_nuits_refusees_avant_toute_creation_code_2() {
    let banc = Banc::nouveau();
    carte_a_l_horloge_remise_a_2000(&banc);
    // En saison.
    let out = super::saison::depot_saison(&banc).sortie();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    assert_eq!(ecrit(&banc), 0, "{}", texte(&out));
    assert!(banc.bac().fichiers().is_empty());
    contient(
        &stderr(&out),
        &[
            "nuit00/Car640139-2026-Pass1-A1-PA1_20000101_000000_000.wav",
            "31/12/1999",
            "nom de 2026",
            "horloge de l'enregistreur",
            "--participation ID --forcer-participation",
            "30 fichiers",
            "rien n'a été envoyé ni créé",
        ],
    );
    // En JSON, l'erreur nomme la nuit fondue : ven. 31/12/1999, A1, Pass1.
    let out = super::saison::depot_saison(&banc).arg("--json").sortie();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let erreur = lignes.iter().find(|l| l["evenement"] == "erreur").unwrap();
    assert_eq!(erreur["nuits"][0]["soiree"], "1999-12-31", "{erreur}");
    assert_eq!(erreur["nuits"][0]["point"], "A1", "{erreur}");
    // En mode une nuit, vers une participation à créer : de même.
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(banc.nuit.join("nuit03"))
        .args(["--site", SITE, "--point", "A1"])
        .args(["--debut", DEBUT_NUIT, "--fin", FIN_NUIT, "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let out = c.sortie();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    contient(&stderr(&out), &["31/12/1999", "nom de 2026"]);
    assert_eq!(ecrit(&banc), 0, "{}", texte(&out));
    // La participation créée à la main (la bonne date), forcée : la nuit y part.
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(banc.nuit.join("nuit03"))
        .args([
            "--participation",
            PARTICIPATION,
            "--forcer-participation",
            "--api",
        ])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let out = c.sortie();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.bac().fichiers().len(), 3);
}

/// Dépose `banc.nuit` en saison : la sortie.
fn saison(banc: &Banc) -> Output {
    super::saison::depot_saison(banc).sortie()
}

#[test]
fn horodatages_impossibles_dits_avec_les_autres_fautes_de_noms_au_premier_message() {
    let banc = Banc::nouveau();
    let fautes = [
        "Car640139-2026-Pass0-A1-PA1_20260621_221500_000.wav",
        "car640139-2026-Pass1-A1-PA1_20260621_221501_000.wav",
        "Car640139-2026-Pass1-A1-PA1_20260621_221502_000.WAV",
        "Car640139-2026-Pass1-A1-PA1_20260231_221503_000.wav",
        "Car640139-2026-Pass1-A1-PA1_20260621_256099_000.wav",
        "Car640139-2099-Pass1-A1-PA1_20990621_221505_000.wav",
    ];
    banc.fichier("Car640139-2026-Pass1-A1-PA1_20260621_221459_000.wav", 3_000);
    for f in fautes {
        banc.fichier(f, 3_000);
    }
    for out in [saison(&banc), banc.depot_plateforme().sortie()] {
        assert_eq!(code(&out), 2, "{}", texte(&out));
        let e = stderr(&out);
        // Tous dans le même message, chacun avec sa cause.
        contient(
            &e,
            &[
                fautes[0],
                "Pass0",
                fautes[1],
                "aucun protocole",
                fautes[2],
                "majuscules",
                fautes[3],
                fautes[4],
                "horodatage impossible",
                fautes[5],
                "dans le futur",
                "6 fichiers à corriger",
            ],
        );
        assert_eq!(
            e.matches("empêchent le dépôt").count(),
            1,
            "un seul message : {e}"
        );
    }
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

#[test]
fn le_journal_de_l_enregistreur_fait_foi_pour_la_date() {
    let banc = Banc::nouveau();
    // Le journal du PR connaît les nuits du 20 au 22 juin 2026 ; l'horloge a été remise au
    // 1er janvier 2026 avant la dernière nuit (même année : seul le journal le voit).
    std::fs::create_dir_all(banc.nuit.join("carte")).unwrap();
    std::fs::write(
        banc.nuit.join("carte/LogPR1925492.txt"),
        "20/06/26 - 16:02:21 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz\n\
         20/06/26 - 20:25:00 PR1925492 Wakeup ALARM\n\
         21/06/26 - 20:25:00 PR1925492 Wakeup ALARM\n\
         22/06/26 - 20:25:00 PR1925492 Wakeup ALARM\n",
    )
    .unwrap();
    let juste = "Car640139-2026-Pass1-A1-PA1_20260621_221500_000.wav";
    let remise = "Car640139-2026-Pass1-A1-PA1_20260101_220010_000.wav";
    banc.fichier(&format!("carte/{juste}"), 3_000);
    banc.fichier(&format!("carte/{remise}"), 3_000);
    let out = saison(&banc);
    assert_eq!(code(&out), 2, "{}", texte(&out));
    contient(
        &stderr(&out),
        &[
            remise,
            "LogPR1925492.txt",
            "du 20/06/2026 au 22/06/2026",
            "01/01/2026",
        ],
    );
    assert!(
        !stderr(&out).contains(&format!("carte/{juste}")),
        "{}",
        texte(&out)
    );
    assert_eq!(ecrit(&banc), 0);
    // Sans le fichier de l'horloge remise, la nuit que le journal connaît part.
    std::fs::remove_file(banc.nuit.join("carte").join(remise)).unwrap();
    let out = saison(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(banc.bac().fichiers().iter().any(|f| f.titre == juste));
}
