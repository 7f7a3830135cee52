//! Le premier contact : `vigie` seul tient dans un écran, l'aide courte d'une commande (`-h`)
//! s'en tient à ce qu'une bénévole tape un jour de dépôt, sans jargon de protocole, et une
//! option mal tapée reçoit sa bonne orthographe, en français. Le détail reste à `--help` et à
//! la page de manuel.

use crate::commun::*;

fn vigie(args: &[&str]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_vigie"));
    c.args(args).env("COLUMNS", "80").env_remove("VIGIE_API");
    c.output().unwrap()
}

/// Les mots d'un ingénieur que l'aide courte ne dit pas.
const JARGON: [&str; 6] = ["multipart", "jitter", "INSISTANT", "BREF", "ETag", "PUT"];

#[test]
fn vigie_seul_tient_dans_un_ecran() {
    let out = vigie(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let ecran = stdout(&out);
    assert!(
        ecran.lines().count() <= 25,
        "{} lignes :\n{ecran}",
        ecran.lines().count()
    );
    assert!(ecran.lines().all(|l| l.chars().count() <= 80), "{ecran}");
    contient(
        &ecran,
        &[
            "vigie depot DOSSIER",
            "vigie etat",
            "vigie COMMANDE -h",
            "--help",
        ],
    );
}

#[test]
fn l_aide_courte_de_depot_est_courte_et_sans_jargon() {
    let courte = stdout(&vigie(&["depot", "-h"]));
    assert!(
        courte.lines().count() < 40,
        "{} lignes :\n{courte}",
        courte.lines().count()
    );
    for mot in JARGON {
        assert!(
            !courte.contains(mot),
            "« {mot} » dans l'aide courte :\n{courte}"
        );
    }
    contient(&courte, &["--participation", "--simulation", "--help"]);
    // Le détail est dans l'aide longue.
    let longue = stdout(&vigie(&["depot", "--help"]));
    contient(
        &longue,
        &["--seuil-multipart", "--paralleles", "--endpoint-url"],
    );
    assert!(
        longue.lines().count() > courte.lines().count() * 2,
        "{longue}"
    );
    // Chaque commande a une aide courte sans jargon.
    for commande in [
        "retenter-echecs",
        "etat",
        "verifier",
        "traiter",
        "traitement",
    ] {
        let aide = stdout(&vigie(&[commande, "-h"]));
        for mot in JARGON {
            assert!(
                !aide.contains(mot),
                "« {mot} » dans {commande} -h :\n{aide}"
            );
        }
    }
}

#[test]
fn une_option_longue_ecrite_avec_un_tiret_recoit_sa_bonne_orthographe() {
    let out = vigie(&["depot", "-simulation"]);
    assert_eq!(code(&out), 2);
    let erreur = stderr(&out);
    contient(
        &erreur,
        &[
            "erreur : argument inattendu '-simulation'",
            "conseil : voulez-vous dire --simulation ?",
        ],
    );
    assert!(!erreur.contains("'-- -s'"), "{erreur}");
    // Une option de commande donnée avant la commande : en français aussi.
    let avant = stderr(&vigie(&["--simulation", "depot", "x"]));
    assert!(!avant.contains("exists"), "{avant}");
    contient(&avant, &["vigie depot --simulation"]);
}
