//! Ce que voit l'utilisateur d'un passage, de bout en bout : le binaire contre le bac à sable,
//! un 503 `Retry-After: 1` injecté, et ce qui sort sur la sortie standard, la sortie d'erreur et
//! le fichier journal selon `--progression`, `--json`, `-q`, `-v` et `--journal`.
//!
//! Aucun test ne mesure le temps : l'attente de 1 s demandée par le serveur est la seule.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::*;
use vigie_bac_a_sable::{self, Operation, RetryAfter};

const NOM: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
const AUTRE: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav";

/// Le prochain PUT répond 503 avec `Retry-After: 1` : un incident que le réessai absorbe.
fn un_503_au_prochain_put(banc: &Banc) {
    banc.panne_prochaine(
        Operation::PutObject,
        code_http_apres(503, RetryAfter::Secondes(1)),
    );
}

fn sorties(out: &std::process::Output) -> (String, String) {
    (stdout(out), stderr(out))
}

/// Chaque ligne de la sortie standard, lue comme du JSON (le test échoue sinon).
fn lignes_json(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("ligne non JSON ({e}) : {l}")))
        .collect()
}

#[test]
fn sans_terminal_une_ligne_par_evenement_dont_la_nouvelle_tentative() {
    let banc = Banc::avec_fichier(NOM, 300_000);
    un_503_au_prochain_put(&banc);
    let out = banc.depot().mots("--progression jamais").finir_en(0);
    let (stdout, stderr) = sorties(&out);
    contient(
        &stderr,
        &[&format!("~ {NOM} : nouvelle tentative dans 1 s")],
    );
    contient(&stderr, &[&format!("→ {NOM}"), &format!("✓ {NOM}")]);
    assert!(
        !stderr.contains('\x1b'),
        "aucune séquence d'échappement : {stderr:?}"
    );
    // Le bilan, sur la sortie standard, compte l'incident absorbé et ne propose rien ensuite.
    assert!(stdout.starts_with("Plan "), "{stdout}");
    assert!(stdout.contains("1 / 1 fichier déposé"), "{stdout}");
    contient(&stdout, &["1 incident rattrapé automatiquement"]);
    assert!(!stdout.contains("Ensuite"), "{stdout}");
}

#[test]
fn en_json_la_sortie_standard_n_a_que_du_json_et_finit_par_le_bilan() {
    let banc = Banc::avec_fichier(NOM, 300_000);
    un_503_au_prochain_put(&banc);
    let out = banc.depot().arg("--json").finir_en(0);
    let (stdout, _) = sorties(&out);
    let lignes = lignes_json(&stdout);
    let tentative = lignes
        .iter()
        .find(|l| l["evenement"] == "nouvelle_tentative")
        .unwrap_or_else(|| panic!("pas de nouvelle_tentative : {stdout}"));
    assert_eq!(tentative["unite"], NOM, "{tentative}");
    assert_eq!(tentative["tentative"], 2, "{tentative}");
    assert_eq!(tentative["attente_s"].as_f64(), Some(1.0), "{tentative}");
    assert!(lignes.iter().any(|l| l["evenement"] == "unite_deposee"));

    let bilan = bilan_au_contrat(&lignes);
    assert_eq!(bilan["deposees"], 1);
    assert_eq!(bilan["restantes"], 0);
    assert_eq!(bilan["incidents_absorbes"], 1);
    assert_eq!(
        lignes.iter().filter(|l| l["evenement"] == "bilan").count(),
        1
    );
}

#[test]
fn en_json_silencieux_seul_le_bilan_sort() {
    let banc = Banc::avec_fichier(NOM, 1000);
    let out = banc.depot().mots("--json -q").finir_en(0);
    let (stdout, stderr) = sorties(&out);
    let lignes = lignes_json(&stdout);
    // Aucun événement de passage (la planification, elle, dit encore son plan) ; le bilan
    // en dernier.
    for l in &lignes {
        let e = l["evenement"].as_str().unwrap_or_default();
        assert!(
            !["debut", "unite_commencee", "progression", "unite_deposee"].contains(&e),
            "{stdout}"
        );
    }
    assert_eq!(lignes.last().unwrap()["evenement"], "bilan", "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn silencieux_n_imprime_que_le_bilan_meme_apres_un_incident_absorbe() {
    let banc = Banc::avec_fichier(NOM, 300_000);
    banc.fichier(AUTRE, 2000);
    un_503_au_prochain_put(&banc);
    let out = banc.depot().arg("-q").finir_en(0);
    let (stdout, stderr) = sorties(&out);
    assert!(stderr.is_empty(), "sortie d'erreur non vide : {stderr}");
    assert!(stdout.starts_with("Plan "), "{stdout}");
    assert!(stdout.contains("2 / 2 fichiers déposés"), "{stdout}");
    for l in stdout.lines().skip(1) {
        assert!(l.starts_with("  "), "ligne hors bilan : {l}");
    }
}

#[test]
fn le_journal_garde_chaque_decision_en_0600_sans_aucun_secret() {
    let banc = Banc::avec_fichier(NOM, 300_000);
    un_503_au_prochain_put(&banc);
    let journal = banc.dossier.path().join("vigie.jsonl");
    let out = banc
        .depot()
        .arg("--journal")
        .arg(&journal)
        .arg("-vvv")
        .finir_en(0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&journal).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "droits du journal : {mode:o}");
    }

    let contenu = std::fs::read_to_string(&journal).unwrap();
    let lignes = lignes_json(&contenu);
    // Le 503 : une décision de rejouer, avec tout ce que la règle 6 demande.
    let rejeu = lignes
        .iter()
        .find(|l| l["statut"] == 503)
        .unwrap_or_else(|| panic!("pas de décision sur le 503 : {contenu}"));
    assert_eq!(rejeu["methode"], "PutObject", "{rejeu}");
    assert_eq!(rejeu["tentative"], 1, "{rejeu}");
    assert_eq!(rejeu["attente_ms"], 1000, "{rejeu}");
    assert!(rejeu.get("budget_restant_ms").is_some(), "{rejeu}");
    // L'arrêt : sa raison.
    assert!(
        lignes
            .iter()
            .any(|l| l["methode"] == "PutObject" && l["raison"] == "succes"),
        "pas de décision finale avec sa raison : {contenu}"
    );

    let (stdout, stderr) = sorties(&out);
    for (ou, texte) in [
        ("journal", contenu.as_str()),
        ("stdout", &stdout),
        ("stderr", &stderr),
    ] {
        assert!(
            !texte.contains(vigie_bac_a_sable::SECRET),
            "secret dans {ou}"
        );
        assert!(!texte.contains("Signature="), "signature dans {ou}");
        assert!(
            !texte.to_ascii_lowercase().contains("authorization"),
            "en-tête d'autorisation dans {ou}"
        );
    }
    // -vvv : les décisions de réessai sont aussi sur la sortie d'erreur.
    assert!(stderr.contains("réessai"), "{stderr}");
}

#[test]
fn un_journal_impossible_a_ouvrir_arrete_avant_tout_envoi() {
    let banc = Banc::avec_fichier(NOM, 1000);
    let out = banc
        .depot()
        .arg("--journal")
        .arg(banc.dossier.path().join("absent/vigie.jsonl"))
        .finir_en(2);
    assert!(stderr(&out).contains("journal"), "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::PutObject), 0);
}

#[test]
fn progression_toujours_sans_terminal_dessine_sans_planter_meme_avec_le_journal() {
    let banc = Banc::avec_fichier(NOM, 300_000);
    un_503_au_prochain_put(&banc);
    let out = banc.depot().mots("--progression toujours -vv").finir_en(0);
    let (stdout, stderr) = sorties(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("fichiers"),
        "barres forcées absentes : {stderr:?}"
    );
    // Le journal passe au-dessus des barres (elles sont effacées, puis redessinées).
    contient(&stderr, &["réessai : nouvelle tentative prévue"]);
    // Les barres restent sur la sortie d'erreur : la sortie standard n'a que le bilan.
    assert!(stdout.starts_with("Plan "), "{stdout}");
    assert!(!stdout.contains('\x1b'), "{stdout:?}");
}

#[test]
fn json_et_barres_forcees_se_partagent_les_deux_sorties() {
    let banc = Banc::avec_fichier(NOM, 1000);
    let out = banc
        .depot()
        .mots("--json --progression toujours")
        .finir_en(0);
    let (stdout, stderr) = sorties(&out);
    let lignes = lignes_json(&stdout);
    assert_eq!(lignes.last().unwrap()["evenement"], "bilan", "{stdout}");
    assert!(stderr.contains("fichiers"), "{stderr:?}");
}
