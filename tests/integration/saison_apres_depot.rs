//! Après le dépôt d'une saison, sans un identifiant : `vigie traiter` lance le calcul de chaque
//! nuit une fois (compté côté serveur), une nuit en erreur se relance par son nom, en
//! exécutant le conseil affiché tel quel, sans toucher aux autres ; `vigie resultats` écrit un
//! CSV par nuit, nommé par la nuit, et ne retélécharge rien au second appel ; aucune sortie
//! texte ne montre un identifiant de 24 caractères hors de l'adresse d'une page web.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crate::commun::*;
use vigie_bac_a_sable::{Operation, ReglagesCalcul, Regle};

const MINUTE: Duration = Duration::from_secs(60);

/// Trois nuits : deux points le même soir (ven. 03/07 A1 et B2), une nuit d'un autre passage
/// (ven. 14/08 Z3) ; des nuits qui passent minuit.
const NUITS: [(&str, &[&str]); 3] = [
    (
        "03/07 A1",
        &[
            "PA1/Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
            "PA1/Car640139-2026-Pass1-A1-PA1_20260704_013000_000.wav",
        ],
    ),
    (
        "03/07 B2",
        &[
            "PA2/Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav",
            "PA2/Car640139-2026-Pass1-B2-PA2_20260703_233000_000.wav",
        ],
    ),
    (
        "14/08 Z3",
        &["PA1/Car640139-2026-Pass2-Z3-PA1_20260814_223000_000.wav"],
    ),
];

/// Le nom du CSV de chaque nuit.
const CSV: [&str; 3] = [
    "2026-07-03_A1_Pass1_Car640139-observations.csv",
    "2026-07-03_B2_Pass1_Car640139-observations.csv",
    "2026-08-14_Z3_Pass2_Car640139-observations.csv",
];

/// Les commandes dont la sortie texte ordinaire ne montre jamais un identifiant (ajoutez-y
/// une commande, ses mots après `vigie`, et elle sera parcourue comme les autres).
const SANS_IDENTIFIANT: &[&[&str]] = &[
    &["etat"],
    &["etat", "03/07", "A1"],
    &["traitement"],
    &["traiter"],
    &["resultats"],
];

/// La saison déposée, chaque nuit dans sa participation ; rend la participation de chaque
/// nuit (par son nom).
fn saison_deposee(banc: &Banc) -> BTreeMap<&'static str, String> {
    for (_, fichiers) in NUITS {
        for f in fichiers {
            banc.fichier(f, 2_000);
        }
    }
    let out = crate::saison::depot_saison(banc).sortie();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let etat = banc.vigie_plateforme().mots("etat --json").finir_en(0);
    let mut participations = BTreeMap::new();
    for n in evenements(&lignes_json(&etat.stdout), "etat_nuit") {
        let soiree = n["soiree"].as_str().unwrap();
        let nom = match (soiree, n["point"].as_str().unwrap()) {
            ("2026-07-03", "A1") => NUITS[0].0,
            ("2026-07-03", "B2") => NUITS[1].0,
            ("2026-08-14", "Z3") => NUITS[2].0,
            autre => panic!("nuit inattendue : {autre:?}"),
        };
        participations.insert(nom, n["participation"].as_str().unwrap().to_owned());
    }
    assert_eq!(participations.len(), 3, "{participations:?}");
    participations
}

/// `vigie MOTS` contre la saison du bac à sable, à l'heure de Paris, sa sortie.
fn lancer(banc: &Banc, mots: &[&str]) -> Output {
    banc.vigie_plateforme()
        .args(mots)
        .env("TZ", "Europe/Paris")
        .current_dir(banc.dossier.path())
        .sortie()
}

/// Un texte à lire comme des phrases : lignes repliées et espaces insécables rendus en
/// espaces simples.
fn phrases(texte: &str) -> String {
    texte
        .replace('\u{a0}', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Combien de calculs la plateforme a reçus pour chaque nuit.
fn calculs(banc: &Banc, p: &BTreeMap<&'static str, String>) -> Vec<u32> {
    NUITS
        .iter()
        .map(|(nom, _)| banc.bac().participation(&p[nom]).unwrap().calculs_lances)
        .collect()
}

/// La commande conseillée après `intro` (sur la même ligne, ou seule sur la suivante), ses
/// mots après `vigie`.
fn conseil(sortie: &str, intro: &str) -> Vec<String> {
    let debut = sortie
        .find(intro)
        .unwrap_or_else(|| panic!("« {intro} » absent de :\n{sortie}"));
    let reste = &sortie[debut + intro.len()..];
    let commande = reste
        .lines()
        .find_map(|l| l.find("vigie ").map(|i| l[i..].trim()))
        .unwrap_or_else(|| panic!("pas de commande après « {intro} » :\n{sortie}"));
    let mots: Vec<String> = commande.split_whitespace().map(str::to_owned).collect();
    assert_eq!(mots[0], "vigie", "{commande}");
    mots[1..].to_vec()
}

/// Un identifiant de 24 caractères hexadécimaux hors d'une adresse web.
fn identifiant_hors_adresse(texte: &str) -> Option<String> {
    let adresse = regex::Regex::new(r"https?://\S+").unwrap();
    let sans_adresses = adresse.replace_all(texte, "");
    regex::Regex::new(r"(?i)\b[0-9a-f]{24}\b")
        .unwrap()
        .find(&sans_adresses)
        .map(|m| m.as_str().to_owned())
}

/// Une bénévole trompée par des conseils qui visaient le plan 1 : une saison de trois nuits déposée ; `vigie traiter` sans argument demande le
/// calcul de chaque nuit une fois ; relancé, rien ; une nuit en erreur se relance en exécutant
/// le conseil affiché, sans toucher aux autres (compté côté serveur) ; `--relancer` sans nuit
/// ne relance rien ; `vigie resultats` écrit un CSV par nuit, nommé par la nuit, et un second
/// appel ne retélécharge rien.
#[test]
fn une_saison_traitee_suivie_et_telechargee_par_ses_nuits() {
    let banc = Banc::nouveau();
    let p = saison_deposee(&banc);
    let reussi = ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        delai_csv: MINUTE,
        csv_automatique: true,
        ..ReglagesCalcul::default()
    };
    banc.bac().regler_calcul(reussi.clone());
    // Le calcul de 03/07 B2 échoue deux fois : un nouvel essai, puis l'erreur.
    banc.bac().regler_calcul_de(
        &p["03/07 B2"],
        ReglagesCalcul {
            echecs: 2,
            ..reussi.clone()
        },
    );
    let dossier = banc.dossier.path().join("résultats");
    let resultats = |mots: &[&str]| {
        let mut tout = vec!["resultats", "--sortie", chemin_str(&dossier)];
        tout.extend_from_slice(mots);
        lancer(&banc, &tout)
    };

    // Avant tout calcul : « pas encore calculée » n'est pas une erreur.
    let out = resultats(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(!stderr(&out).contains("erreur"), "{}", texte(&out));
    contient(
        &phrases(&stdout(&out)),
        &["Nuit 03/07 A1 : pas encore calculée (aucun calcul lancé)."],
    );
    assert!(stdout(&out).contains("Pour lancer le calcul : vigie traiter\n"));
    // --attendre rend la main aussitôt : aucun calcul n'est lancé.
    let out = lancer(&banc, &["traitement", "--attendre"]);
    assert_eq!(code(&out), 1, "{}", texte(&out));
    contient(
        &phrases(&stderr(&out)),
        &["Rien à attendre pour la nuit 03/07 A1"],
    );

    // Toute la saison : chaque nuit, une fois.
    let out = lancer(&banc, &["traiter"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    for (nom, _) in NUITS {
        contient(
            &stdout(&out),
            &[&format!("Calcul lancé pour la nuit {nom}.")],
        );
    }
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);
    assert_eq!(
        conseil(&stdout(&out), "Pour suivre le calcul :"),
        ["traitement", "--attendre"]
    );
    // Relancé : rien de plus (planifié, rien n'est relancé).
    let out = lancer(&banc, &["traiter"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);

    // Deux nuits finies, une en erreur.
    banc.bac().avancer_horloge(10 * MINUTE);
    let out = lancer(&banc, &["traitement"]);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let s = stdout(&out);
    contient(
        &phrases(&s),
        &[
            "Nuit du ven. 03/07/2026, point A1, Pass1, site 640139 : calcul fini le ",
            "Nuit du ven. 03/07/2026, point B2, Pass1, site 640139 : calcul en erreur le ",
            "Chauves-souris :",
        ],
    );
    // Sans nuit nommée, ni la nuit en erreur ni les nuits finies ne repartent.
    let out = lancer(&banc, &["traiter"]);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    contient(
        &phrases(&stdout(&out)),
        &["Nuit 03/07 B2 : calcul en erreur"],
    );
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);
    let out = lancer(&banc, &["traiter", "--relancer"]);
    assert_eq!(code(&out), 2, "{}", texte(&out));
    contient(
        &phrases(&stderr(&out)),
        &["vigie traiter --relancer 03/07 A1"],
    );
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);
    // Le conseil de la nuit en erreur, exécuté tel quel : elle seule repart.
    let relancer = conseil(&s, "Pour relancer le calcul en erreur");
    assert_eq!(relancer, ["traiter", "03/07", "B2"]);
    banc.bac().regler_calcul_de(&p["03/07 B2"], reussi);
    let mots: Vec<&str> = relancer.iter().map(String::as_str).collect();
    let out = lancer(&banc, &mots);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    contient(&stdout(&out), &["Calcul lancé pour la nuit 03/07 B2."]);
    assert_eq!(calculs(&banc, &p), [1, 2, 1]);
    banc.bac().avancer_horloge(10 * MINUTE);

    // Un CSV par nuit, nommé par la nuit, identique à celui de la plateforme.
    let lectures = banc.requetes(Operation::GetObject);
    let out = resultats(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    for ((nom, _), csv) in NUITS.iter().zip(CSV) {
        let attendu = banc
            .bac()
            .contenu_fichier(&p[nom], &vigie_bac_a_sable::nom_csv(&p[nom]))
            .unwrap();
        assert!(
            std::fs::read(dossier.join(csv)).unwrap() == attendu,
            "{csv} n'est pas le CSV de la nuit {nom}"
        );
        contient(
            &phrases(&stdout(&out)),
            &[&format!("CSV des observations de la nuit {nom} écrit : ")],
        );
    }
    assert_eq!(banc.requetes(Operation::GetObject), lectures + 3);
    // Un second appel ne retélécharge rien, ni ne redemande rien.
    let acces = banc.requetes(Operation::ApiAccesFichier);
    let out = resultats(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    contient(
        &phrases(&stdout(&out)),
        &["CSV des observations de la nuit 14/08 Z3 déjà téléchargé"],
    );
    assert_eq!(banc.requetes(Operation::GetObject), lectures + 3);
    assert_eq!(banc.requetes(Operation::ApiAccesFichier), acces);
    let out = resultats(&["--demander-csv"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    for (nom, _) in NUITS {
        assert_eq!(banc.bac().courriels_csv(&p[nom]), 0);
    }
    // vigie etat montre le calcul de chaque nuit.
    let out = lancer(&banc, &["etat"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(
        phrases(&stdout(&out)).matches("calcul fini le ").count(),
        3,
        "{}",
        stdout(&out)
    );

    // Aucune sortie texte ne montre un identifiant de 24 caractères.
    for mots in SANS_IDENTIFIANT {
        let out = lancer(&banc, mots);
        for (flux, texte) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
            assert_eq!(
                identifiant_hors_adresse(&texte),
                None,
                "vigie {} ({flux}) :\n{texte}",
                mots.join(" ")
            );
        }
    }
}

/// Le dossier des résultats par défaut est celui de la saison, dans le dossier courant, et
/// il est dit.
#[test]
fn les_resultats_vont_par_defaut_dans_le_dossier_de_la_saison() {
    let banc = Banc::nouveau();
    let p = saison_deposee(&banc);
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        delai_csv: MINUTE,
        csv_automatique: true,
        ..ReglagesCalcul::default()
    });
    let out = lancer(&banc, &["traiter", "14/08", "Z3"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(calculs(&banc, &p), [0, 0, 1]);
    banc.bac().avancer_horloge(10 * MINUTE);
    let out = lancer(&banc, &["resultats", "14/08", "Z3"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let dossier: &Path = &banc.dossier.path().join("resultats-vigie-chiro-2026");
    contient(
        &phrases(&stdout(&out)),
        &[&format!(
            "Résultats de la saison 2026 dans {}",
            dossier.display()
        )],
    );
    assert!(dossier.join(CSV[2]).is_file());
    assert!(!dossier.join(CSV[0]).exists());
}

/// Une nuit n'est « en cours » que si un dépôt vivant la tient : pendant le dépôt, oui ; le
/// dépôt tué (terminal fermé, kill -9), ses fichiers notés en cours ne tournent plus : la nuit
/// est « entamée ».
#[test]
fn une_nuit_n_est_en_cours_que_si_un_depot_vivant_la_tient() {
    let banc = Banc::nouveau();
    for (_, fichiers) in NUITS {
        for f in fichiers {
            banc.fichier(f, 2_000);
        }
    }
    banc.panne_toujours(
        Operation::PutObject,
        vigie_bac_a_sable::Panne::Bloquer(Duration::from_secs(60)),
    );
    let depot = banc.lancer(crate::saison::depot_saison(&banc));
    banc.attendre("le dépôt envoie", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 1
    });
    let ligne_a1 = |out: &Output| {
        stdout(out)
            .lines()
            .find(|l| l.contains("03/07") && l.contains("A1"))
            .unwrap_or_else(|| panic!("pas de ligne 03/07 A1 :\n{}", texte(out)))
            .to_owned()
    };
    let pendant = lancer(&banc, &["etat"]);
    assert!(
        ligne_a1(&pendant).ends_with("en cours"),
        "{}",
        texte(&pendant)
    );
    signal(&depot, "KILL");
    let _ = attendre_fin(depot, Duration::from_secs(20));
    let apres = lancer(&banc, &["etat"]);
    assert!(ligne_a1(&apres).ends_with("entamée"), "{}", texte(&apres));
    let json = banc.vigie_plateforme().mots("etat --json").sortie();
    assert!(
        evenements(&lignes_json(&json.stdout), "etat_nuit")
            .iter()
            .all(|n| n["etat"] != "en_cours"),
        "{}",
        texte(&json)
    );
}

/// La démonstration de bout en bout, sans un identifiant ni un numéro de plan à recopier : une
/// saison de trois nuits interrompue (Ctrl-C) ; `vigie traiter` ne lance aucune nuit pas
/// entièrement déposée ; le conseil affiché, exécuté tel quel, finit toutes les nuits ; `vigie
/// traiter` sans argument demande le calcul de chaque nuit une fois (compté côté serveur), et
/// relancé, plus rien ; `vigie resultats` écrit un CSV par nuit, nommé par elle, dans le dossier
/// de la saison, et un second appel ne retélécharge rien. Chaque sortie texte de `depot`,
/// `retenter-echecs`, `traiter`, `traitement`, `resultats` et `etat` y est parcourue : aucun
/// identifiant de 24 caractères hors de l'adresse d'une page web.
#[test]
fn une_saison_interrompue_reprise_par_son_conseil_puis_traitee_et_telechargee() {
    let banc = Banc::nouveau();
    for (_, fichiers) in NUITS {
        for f in fichiers {
            banc.fichier(f, 2_000);
        }
    }
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        delai_csv: MINUTE,
        csv_automatique: true,
        ..ReglagesCalcul::default()
    });
    let mut sorties: Vec<(String, Output)> = Vec::new();
    let mut garder = |nom: &str, out: Output| {
        let t = texte(&out);
        sorties.push((nom.to_owned(), out));
        t
    };

    // Ctrl-C pendant la première nuit.
    banc.bac()
        .pannes()
        .programmer(Regle::proportion(1.0, lenteur_ms(300)).pour(Operation::ApiDeclarerFichier));
    let enfant = banc.lancer(crate::saison::depot_saison(&banc));
    banc.attendre("une déclaration de fichier", |b| {
        b.compteurs().requetes(Operation::ApiDeclarerFichier) >= 1
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(20));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    banc.bac().pannes().effacer();
    let interrompu = garder("depot (Ctrl-C)", out);
    let suites: Vec<&str> = interrompu
        .lines()
        .filter_map(|l| l.strip_prefix("Ensuite : "))
        .collect();
    assert_eq!(suites.len(), 1, "{interrompu}");
    let conseil_: Vec<String> = suites[0]
        .split_whitespace()
        .skip(1)
        .map(str::to_owned)
        .collect();

    // Aucune nuit n'est entièrement déposée : traiter n'en lance aucune.
    let out = lancer(&banc, &["traiter"]);
    assert_ne!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0, "{}", texte(&out));
    garder("traiter (saison entamée)", out);

    // Le conseil, tel quel : toutes les nuits finissent.
    let mots: Vec<&str> = conseil_.iter().map(String::as_str).collect();
    let out = lancer(&banc, &mots);
    assert_eq!(code(&out), 0, "vigie {} :\n{}", mots.join(" "), texte(&out));
    assert!(
        phrases(&stdout(&out)).contains("5 / 5 fichiers déposés, 3 nuits sur 3"),
        "{}",
        texte(&out)
    );
    garder(&mots.join(" "), out);
    let p = {
        let etat = banc.vigie_plateforme().mots("etat --json").finir_en(0);
        let mut p = BTreeMap::new();
        for n in evenements(&lignes_json(&etat.stdout), "etat_nuit") {
            // « 2026-07-03 » et « A1 » : la nuit « 03/07 A1 ».
            let soiree = n["soiree"].as_str().unwrap();
            let nom = format!(
                "{}/{} {}",
                &soiree[8..10],
                &soiree[5..7],
                n["point"].as_str().unwrap()
            );
            let nom = NUITS.iter().find(|(n, _)| *n == nom).unwrap().0;
            p.insert(nom, n["participation"].as_str().unwrap().to_owned());
        }
        p
    };
    assert_eq!(p.len(), 3, "{p:?}");

    // Toute la saison, une fois.
    let out = lancer(&banc, &["traiter"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);
    garder("traiter", out);
    let out = lancer(&banc, &["traiter"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(calculs(&banc, &p), [1, 1, 1]);
    garder("traiter (relancé)", out);
    garder("traitement (planifié)", lancer(&banc, &["traitement"]));
    banc.bac().avancer_horloge(10 * MINUTE);
    let out = lancer(&banc, &["traitement"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    garder("traitement (fini)", out);

    // Un CSV par nuit, nommé par elle, dans le dossier de la saison ; puis rien de plus.
    let out = lancer(&banc, &["resultats"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let dossier = banc.dossier.path().join("resultats-vigie-chiro-2026");
    for ((nom, _), csv) in NUITS.iter().zip(CSV) {
        let attendu = banc
            .bac()
            .contenu_fichier(&p[nom], &vigie_bac_a_sable::nom_csv(&p[nom]))
            .unwrap();
        assert!(
            std::fs::read(dossier.join(csv)).unwrap() == attendu,
            "{csv} n'est pas le CSV de la nuit {nom}"
        );
    }
    assert_eq!(std::fs::read_dir(&dossier).unwrap().count(), 3);
    garder("resultats", out);
    let lectures = banc.requetes(Operation::GetObject);
    let acces = banc.requetes(Operation::ApiAccesFichier);
    let out = lancer(&banc, &["resultats"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::GetObject), lectures);
    assert_eq!(banc.requetes(Operation::ApiAccesFichier), acces);
    garder("resultats (second appel)", out);

    // Les autres sorties ordinaires, sur la saison finie.
    garder("etat", lancer(&banc, &["etat"]));
    garder("retenter-echecs", lancer(&banc, &["retenter-echecs"]));
    let mut depot = crate::saison::depot_saison(&banc);
    garder("depot (rien à faire)", depot.sortie());
    for (nom, out) in &sorties {
        for (flux, texte) in [("stdout", stdout(out)), ("stderr", stderr(out))] {
            assert_eq!(
                identifiant_hors_adresse(&texte),
                None,
                "vigie {nom} ({flux}) :\n{texte}"
            );
        }
    }
}

#[test]
fn un_identifiant_se_voit_hors_d_une_adresse() {
    assert_eq!(
        identifiant_hors_adresse(
            "https://vigiechiro.herokuapp.com/#/participations/64a1b2c3d4e5f60718293d01"
        ),
        None
    );
    assert_eq!(
        identifiant_hors_adresse("participation 64a1b2c3d4e5f60718293d01 (plan 2)").as_deref(),
        Some("64a1b2c3d4e5f60718293d01")
    );
}
