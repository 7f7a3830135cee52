//! Pannes mêlées : une nuit sous 15 % de requêtes en panne de toutes sortes (coupure en plein
//! corps, 500, 503 et 429 avec et sans Retry-After, réponse perdue après traitement, blocage
//! court), tirées avec une graine fixe. Tout finit déposé en un seul passage, sans doublon, et le journal des
//! décisions explique chaque réessai : une décision par tentative ratée, avec son statut ou
//! son détail, l'attente retenue, ou la raison de l'arrêt.
//!
//! Les tirages sont reproductibles à ordre de requêtes égal : les envois partent un par un
//! (`--paralleles 1`).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::Operation;

/// La nuit d'une douzaine de fichiers (dont 2 en plusieurs parties), et `de_plus` petites
/// séquences pour que chaque sorte de panne ait sa chance.
fn nuit(banc: &Banc, de_plus: usize) -> Vec<(String, usize)> {
    let mut fichiers = banc.nuit_de_12();
    for i in 100..100 + de_plus {
        let (n, t) = (nom(i), 3_000 + i * 100);
        banc.fichier(&n, t);
        fichiers.push((n, t));
    }
    fichiers
}

/// Ce que le journal doit montrer : chaque statut, l'attente d'un Retry-After (secondes) et
/// d'un Retry-After-Ms, et des incidents réseau (coupure en plein corps, réponse perdue,
/// blocage : sans statut).
const TOUTES_LES_SORTES: [&str; 6] = [
    "429",
    "429+Retry-After-Ms",
    "500",
    "503",
    "503+Retry-After",
    "réseau",
];

/// Les sortes de pannes vues dans le journal : statuts, attente d'un Retry-After, incidents
/// réseau (coupure, réponse perdue, blocage).
fn sortes(banc: &Banc) -> std::collections::BTreeSet<String> {
    banc.decisions()
        .iter()
        .filter(|d| d.raison.as_deref() != Some("succes"))
        .map(|d| match (d.statut, d.attente_ms) {
            (Some(503), Some(1000)) => "503+Retry-After".to_owned(),
            (Some(429), Some(150)) => "429+Retry-After-Ms".to_owned(),
            (Some(s), _) => s.to_string(),
            (None, _) => "réseau".to_owned(),
        })
        .collect()
}

/// Les réglages courts du banc, avec un délai de tentative large : sur une machine lente, un
/// envoi qui dépasserait le délai serait une tentative ratée sans panne injectée, et fausserait
/// le compte « une décision par panne ».
fn options() -> Vec<String> {
    Banc::options_rapides_sauf("--delai-tentative", "20")
}

fn programmer(banc: &Banc, graine: u64) {
    let pannes = banc.bac().pannes();
    pannes.graine(graine);
    for r in pannes_melees(0.15) {
        pannes.programmer(r);
    }
}

/// Les décisions du fichier `--journal` (lignes JSON qui portent une méthode).
fn decisions_du_journal(chemin: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(chemin)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        // Une décision porte sa méthode et son détail ; d'autres lignes nomment une méthode
        // sans être une décision (« relecture : l'écriture n'a pas eu lieu… », « budget global
        // de réessai épuisé… ») et ne vont pas au journal de la base.
        .filter(|v| {
            let champs = v.get("fields").unwrap_or(v);
            champs.get("methode").is_some() && champs.get("detail").is_some()
        })
        .collect()
}

/// Vérifie que chaque décision d'échec dit pourquoi et ce qui suit.
fn chaque_reessai_explique(banc: &Banc) -> (usize, usize) {
    let decisions = banc.decisions();
    let ratees: Vec<_> = decisions
        .iter()
        .filter(|d| d.raison.as_deref() != Some("succes"))
        .collect();
    for d in &ratees {
        assert!(
            d.statut.is_some() || !d.detail.is_empty(),
            "décision sans statut ni détail : {d:?}"
        );
        // Un rejeu : avec son attente ; un arrêt : avec sa raison.
        if d.raison.is_none() {
            assert!(d.attente_ms.is_some(), "rejeu sans attente : {d:?}");
        }
        // Un Retry-After fait autorité.
        if d.raison.is_none() && d.statut == Some(429) && d.attente_ms != Some(150) {
            assert!(
                d.attente_ms.unwrap() <= 200,
                "429 sans Retry-After : attente hors du backoff ({d:?})"
            );
        }
    }
    let rejeux = ratees.iter().filter(|d| d.raison.is_none()).count();
    (ratees.len(), rejeux)
}

#[test]
fn quinze_pour_cent_de_pannes_melees_nuit_s3_tout_depose_sans_doublon_et_explique() {
    let banc = Banc::nouveau();
    let fichiers = nuit(&banc, 90);
    // Graine choisie pour que toutes les sortes de pannes tombent.
    programmer(&banc, 5);
    let journal = banc.dossier.path().join("vigie.jsonl");
    let depot = || {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .arg("--vers")
            .arg(format!("s3://{COMPARTIMENT}/{PREFIXE}"))
            .arg("--endpoint-url")
            .arg(banc.bac().endpoint())
            .args(options());
        c.args(["--paralleles", "1", "--echecs-reseau", "1000"])
            .arg("--journal")
            .arg(&journal);
        c
    };
    let out = depot().output().unwrap();
    // Aucun accroc isolé ne coûte le passage : il finit en code 0, sans retenter-echecs.
    assert_eq!(code(&out), 0, "{}", texte(&out));
    eprintln!(
        "S3 : un passage, {} pannes, {} requêtes ; {:?}",
        banc.bac().compteurs().pannes_injectees(),
        banc.bac().compteurs().requetes_total(),
        sortes(&banc)
    );
    let tout: std::collections::BTreeSet<String> =
        TOUTES_LES_SORTES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        sortes(&banc),
        tout,
        "toutes les sortes de pannes ne sont pas tombées"
    );
    let c = banc.bac().compteurs();
    let part = c.pannes_injectees() as f64 / c.requetes_total() as f64;
    assert!(
        (0.08..=0.25).contains(&part),
        "{:.1} % de pannes seulement",
        part * 100.0
    );

    // Tout est déposé, une fois.
    banc.verifier_identiques(&fichiers);
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, PREFIXE).len(),
        fichiers.len()
    );
    assert!(
        banc.bac().envois_en_cours(COMPARTIMENT).is_empty(),
        "envoi orphelin"
    );
    for (nom, taille) in &fichiers {
        if *taille > 5 * MIO {
            assert_eq!(
                c.traitees_cle(Operation::CompleteMultipartUpload, &banc.cle(nom)),
                1,
                "{nom} assemblé plusieurs fois"
            );
        }
    }
    // Une décision par tentative ratée : toutes les requêtes de vigie passent par la
    // politique, et chaque panne injectée a fait rater une tentative.
    let (ratees, rejeux) = chaque_reessai_explique(&banc);
    assert_eq!(
        ratees as u64,
        c.pannes_injectees(),
        "tentatives ratées journalisées ≠ pannes injectées"
    );
    assert!(rejeux > 0);
    // Le journal --journal garde les mêmes décisions (échecs et succès).
    let lignes = decisions_du_journal(&journal);
    assert_eq!(
        lignes.len(),
        banc.decisions().len(),
        "journal et base divergent"
    );

    // Le plan dit vrai, et la destination le confirme (sous les mêmes pannes : verifier
    // réessaie aussi).
    let etat = banc.etat();
    assert_eq!(etat["unites"]["deposee"], 102, "{etat}");
    let out = banc.vigie().arg("verifier").output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("102 fichiers intacts"),
        "{}",
        texte(&out)
    );
}

#[test]
fn quinze_pour_cent_de_pannes_melees_nuit_vigiechiro_tout_disponible_sans_doublon() {
    let banc = Banc::nouveau();
    let fichiers = nuit(&banc, 30);
    // Graine choisie pour que toutes les sortes de pannes tombent.
    programmer(&banc, 7);
    let journal = banc.dossier.path().join("vigie.jsonl");
    let depot = || {
        let mut c = banc.vigie_plateforme();
        c.arg("depot")
            .arg(&banc.nuit)
            .args(["--participation", PARTICIPATION, "--api"])
            .arg(banc.bac().api())
            .args(options());
        c.args(["--paralleles", "1", "--echecs-reseau", "1000"])
            .arg("--journal")
            .arg(&journal);
        c
    };
    let out = depot().output().unwrap();
    // Aucun accroc isolé ne coûte le passage : il finit en code 0, sans retenter-echecs.
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let c = banc.bac().compteurs();
    eprintln!(
        "Vigie-Chiro : un passage, {} pannes, {} requêtes ; {:?}",
        c.pannes_injectees(),
        c.requetes_total(),
        sortes(&banc)
    );
    let tout: std::collections::BTreeSet<String> =
        TOUTES_LES_SORTES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        sortes(&banc),
        tout,
        "toutes les sortes de pannes ne sont pas tombées"
    );
    let part = c.pannes_injectees() as f64 / c.requetes_total() as f64;
    assert!(
        (0.08..=0.25).contains(&part),
        "{:.1} % de pannes seulement",
        part * 100.0
    );
    let enregistres = banc.bac().fichiers();
    assert_eq!(enregistres.len(), 42, "{enregistres:#?}");
    for (nom, taille) in &fichiers {
        let f = banc.bac().fichier(PARTICIPATION, nom).unwrap();
        assert!(f.disponible, "{nom}");
        assert!(
            banc.objet_plateforme(PARTICIPATION, nom) == contenu(nom, *taille),
            "{nom}"
        );
    }
    assert!(banc.bac().envois_orphelins().is_empty(), "envoi orphelin");
    assert!(
        banc.bac()
            .envois_en_cours(COMPARTIMENT_PLATEFORME)
            .is_empty()
    );
    let (ratees, _) = chaque_reessai_explique(&banc);
    assert_eq!(
        ratees as u64,
        c.pannes_injectees(),
        "tentatives ratées journalisées ≠ pannes"
    );
}
