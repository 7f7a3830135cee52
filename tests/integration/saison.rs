//! La saison : `vigie depot SAISON` sans aucun identifiant. Chaque nuit (site, point, passage,
//! soirée lus dans les noms) part dans sa participation, reprise si elle existe (créée sur le
//! site web, à moitié déposée), créée sinon ; relancer ne crée rien et n'envoie rien ; un
//! kill -9 pendant les créations n'en fait pas une de trop ; `--participation` avec un
//! dossier de plusieurs nuits est refusé avant tout envoi.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Duration;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{
    OBSERVATEUR, OBSERVATEUR_AUTRE, Operation, Panne, ParticipationPosee, Regle,
};

/// Les six nuits : (enregistreur, nom) ; deux enregistreurs (PA1, PA2), Pass1 et Pass2, trois
/// points (A1, B2, Z3), des nuits qui passent minuit. La nuit B2 du 3 juillet est celle
/// « créée sur le site web ».
const NUITS: [&[(&str, &str)]; 6] = [
    // ven. 03/07 A1 Pass1 : deux enregistreurs au même point, passe minuit.
    &[
        ("PA1", "Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav"),
        ("PA1", "Car640139-2026-Pass1-A1-PA1_20260703_235500_000.wav"),
        ("PA1", "Car640139-2026-Pass1-A1-PA1_20260704_013000_000.wav"),
        ("PA2", "Car640139-2026-Pass1-A1-PA2_20260703_222000_000.wav"),
    ],
    // sam. 04/07 A1 Pass1 : passe minuit.
    &[
        ("PA1", "Car640139-2026-Pass1-A1-PA1_20260704_214500_000.wav"),
        ("PA1", "Car640139-2026-Pass1-A1-PA1_20260705_042000_000.wav"),
    ],
    // ven. 03/07 B2 Pass1 : créée sur le site web, deux fichiers sur quatre déjà déposés.
    &[
        ("PA2", "Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav"),
        ("PA2", "Car640139-2026-Pass1-B2-PA2_20260703_230000_000.wav"),
        ("PA2", "Car640139-2026-Pass1-B2-PA2_20260703_233000_000.wav"),
        ("PA2", "Car640139-2026-Pass1-B2-PA2_20260704_001500_000.wav"),
    ],
    // 14/08 Z3 Pass2 : passe minuit.
    &[
        ("PA1", "Car640139-2026-Pass2-Z3-PA1_20260814_223000_000.wav"),
        ("PA1", "Car640139-2026-Pass2-Z3-PA1_20260815_031500_000.wav"),
    ],
    // 15/08 Z3 Pass2.
    &[("PA1", "Car640139-2026-Pass2-Z3-PA1_20260815_215000_000.wav")],
    // 14/08 B2 Pass2.
    &[("PA2", "Car640139-2026-Pass2-B2-PA2_20260814_224000_000.wav")],
];
const TAILLE: usize = 3_000;
/// Les fichiers de la nuit du site web déjà déposés.
const DEJA_DEPOSES: usize = 2;

/// Le dossier de saison (un sous-dossier par enregistreur), et la nuit B2 du 3 juillet posée
/// « sur le site web » (date à l'instant de la saisie, le lendemain matin), à moitié déposée.
/// Rend l'identifiant de la participation posée.
fn preparer(banc: &Banc) -> String {
    for nuit in NUITS {
        for (enregistreur, nom) in nuit {
            banc.fichier(&format!("{enregistreur}/{nom}"), TAILLE);
        }
    }
    let posee = banc
        .bac()
        .poser_participation(&ParticipationPosee {
            site: SITE,
            observateur: OBSERVATEUR,
            point: Some("B2"),
            date_debut: "2026-07-04T07:40:00",
            date_fin: None,
        })
        .unwrap();
    for (enregistreur, nom) in NUITS[2].iter().take(DEJA_DEPOSES) {
        // Le contenu que `Banc::fichier` a écrit (il dépend du chemin).
        let local = contenu(&format!("{enregistreur}/{nom}"), TAILLE);
        banc.rt
            .block_on(banc.bac().poser_fichier_finalise(&posee, nom, local))
            .unwrap();
    }
    posee
}

/// `vigie depot SAISON --fuseau +02:00`, sans identifiant, réglages courts.
pub(super) fn depot_saison(banc: &Banc) -> Command {
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(["--fuseau", "+02:00", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    c
}

/// Les déclarations de fichiers reçues par la plateforme.
fn declarations(banc: &Banc) -> u64 {
    banc.bac()
        .compteurs()
        .requetes(Operation::ApiDeclarerFichier)
}

fn creations(banc: &Banc) -> u64 {
    banc.bac()
        .compteurs()
        .requetes(Operation::ApiCreerParticipation)
}

/// Les titres finalisés de chaque participation.
fn titres_par_participation(banc: &Banc) -> BTreeMap<String, BTreeSet<String>> {
    let mut par = BTreeMap::<String, BTreeSet<String>>::new();
    for f in banc.bac().fichiers() {
        assert!(f.disponible, "fichier non finalisé : {f:?}");
        par.entry(f.participation.clone().expect("fichier sans participation"))
            .or_default()
            .insert(f.titre.clone());
    }
    par
}

/// Exactement six participations de la saison sur le site (la participation d'essai du bac à
/// sable, d'une autre nuit, en plus), chacune avec les seuls fichiers de sa nuit, la posée
/// reprise.
fn verifier_six_nuits(banc: &Banc, posee: &str) {
    let attendues: BTreeSet<BTreeSet<String>> = NUITS
        .iter()
        .map(|n| n.iter().map(|(_, nom)| (*nom).to_owned()).collect())
        .collect();
    let par = titres_par_participation(banc);
    let vues: BTreeSet<BTreeSet<String>> = par.values().cloned().collect();
    assert_eq!(vues, attendues, "fichiers mal répartis : {par:#?}");
    assert_eq!(par.len(), 6, "{par:#?}");
    assert_eq!(
        par[posee].len(),
        NUITS[2].len(),
        "la nuit du site web n'est pas reprise : {par:#?}"
    );
    let sur_le_site = banc.bac().participations(SITE);
    assert_eq!(
        sur_le_site.len(),
        7,
        "participations en trop ou manquantes : {sur_le_site:#?}"
    );
}

#[test]
fn une_saison_sans_identifiant_six_nuits_six_participations_puis_rien_a_refaire() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    verifier_six_nuits(&banc, &posee);
    // Les deux fichiers déjà sur la plateforme ne sont pas repartis.
    let declares = declarations(&banc);
    assert_eq!(declares, 14 - DEJA_DEPOSES as u64, "{}", texte(&out));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("6 nuits"), "{e}");
    assert!(e.contains("reprise (a déjà ses fichiers)"), "{e}");
    // Ce que dit la saison tient en 80 colonnes (les lignes de fichiers du suivi, « → »,
    // « ✓ », « = », portent le chemin entier).
    assert!(
        e.lines()
            .filter(|l| !l.starts_with(['→', '✓', '✗', '=']))
            .all(|l| l.chars().count() <= 80),
        "{e}"
    );

    // Relancé : aucune création, aucun octet.
    let avant = banc.bac().compteurs().requetes_total();
    let puts = banc.bac().compteurs().requetes(Operation::PutObject);
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    assert_eq!(declarations(&banc), declares);
    assert_eq!(banc.bac().compteurs().requetes(Operation::PutObject), puts);
    assert!(
        banc.bac().compteurs().requetes_total() > avant,
        "rien relu ?"
    );
    verifier_six_nuits(&banc, &posee);
    // `vigie etat` : la saison nuit par nuit, à 80 colonnes ; en JSON, etat_saison puis une
    // ligne etat_nuit par nuit, chacune avec sa participation.
    let out = banc.vigie().arg("etat").output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let etat = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(etat.contains("Saison 2026 : 6 nuits, 14 / 14"), "{etat}");
    assert!(etat.contains("ven. 03/07 22:05→00:15  B2"), "{etat}");
    assert_eq!(etat.matches("déposée").count(), 6, "{etat}");
    // Hors de l'API par défaut, pas d'adresse de page : jamais l'identifiant seul ; le calcul
    // de chaque nuit déposée, pas encore relevé.
    assert!(!etat.contains(posee.as_str()), "{etat}");
    assert_eq!(
        etat.matches("calcul : pas encore relevé").count(),
        6,
        "{etat}"
    );
    assert!(etat.lines().all(|l| l.chars().count() <= 80), "{etat}");
    let out = banc.vigie().args(["etat", "--json"]).output().unwrap();
    let lignes = lignes_json(&out.stdout);
    assert_eq!(
        evenements(&lignes, "etat_saison").len(),
        1,
        "{}",
        texte(&out)
    );
    let nuits = evenements(&lignes, "etat_nuit");
    assert_eq!(nuits.len(), 6, "{}", texte(&out));
    assert!(
        nuits
            .iter()
            .all(|n| n["etat"] == "deposee" && n["participation"].is_string())
    );
    // `vigie plans` : une ligne par nuit, à 80 colonnes.
    let out = banc.vigie().arg("plans").output().unwrap();
    let plans = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(plans.contains("sam. 15/08 Z3 Pass2"), "{plans}");
    assert!(plans.lines().all(|l| l.chars().count() <= 80), "{plans}");
    // Les dossiers donnés un par un : la même saison, rien de plus.
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(banc.nuit.join("PA1"))
        .arg(banc.nuit.join("PA2"))
        .args(["--fuseau", "+02:00", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let out = c.output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    verifier_six_nuits(&banc, &posee);
}

#[test]
fn kill_9_pendant_les_creations_puis_relance_toujours_six() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    banc.bac().pannes().programmer(Regle::nieme(
        Operation::ApiCreerParticipation,
        SITE,
        3,
        Panne::Bloquer(Duration::from_secs(120)),
    ));
    let mut enfant = banc.lancer(depot_saison(&banc));
    banc.attendre("la troisième création émise", |b| {
        b.compteurs().requetes(Operation::ApiCreerParticipation) >= 3
    });
    enfant.kill().unwrap(); // SIGKILL
    let _ = enfant.wait();
    banc.bac().pannes().effacer();
    // Rien n'est parti avant les créations.
    assert_eq!(declarations(&banc), 0);
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    verifier_six_nuits(&banc, &posee);
    // Une réponse perdue à la relance : retrouvée, pas recréée.
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    verifier_six_nuits(&banc, &posee);
}

#[test]
fn reponse_de_creation_perdue_en_saison_retrouvee_par_la_relecture() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    banc.bac().pannes().programmer(Regle::nieme(
        Operation::ApiCreerParticipation,
        SITE,
        2,
        Panne::PerdreReponse,
    ));
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    verifier_six_nuits(&banc, &posee);
}

#[test]
fn participation_avec_un_dossier_meme_code_2_rien_envoye_nuits_listees() {
    let banc = Banc::nouveau();
    preparer(&banc);
    let out = banc.depot_plateforme().output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("contient 6 nuits"), "{e}");
    for attendu in [
        "ven. 03/07 22:05→00:15",
        "B2",
        "Pass2",
        "vigie depot DOSSIER",
    ] {
        assert!(e.contains(attendu), "{attendu} : {e}");
    }
    assert_eq!(declarations(&banc), 0);
    assert_eq!(creations(&banc), 0);
}

#[test]
fn simulation_montre_les_nuits_reprises_et_a_creer_sans_rien_ecrire() {
    let banc = Banc::nouveau();
    preparer(&banc);
    let out = depot_saison(&banc).arg("--simulation").output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let t = texte(&out);
    assert!(t.contains("5 participation(s) à créer"), "{t}");
    assert!(t.contains("reprise (a déjà ses fichiers)"), "{t}");
    assert_eq!(creations(&banc), 0);
    assert!(!banc.base.exists(), "la simulation a écrit la base");
    // En JSON : une ligne `nuit` par nuit.
    let out = depot_saison(&banc)
        .args(["--simulation", "--json"])
        .output()
        .unwrap();
    let lignes = lignes_json(&out.stdout);
    let nuits = evenements(&lignes, "nuit");
    assert_eq!(nuits.len(), 6, "{}", texte(&out));
    assert_eq!(
        nuits.iter().filter(|n| n["issue"] == "a_creer").count(),
        5,
        "{}",
        texte(&out)
    );
}

/// La carte déjà déposée, vue depuis un autre chemin (la même carte en `F:` au lieu de `E:`,
/// ou montée ailleurs) : la simulation dit ce que ferait le dépôt, rien à envoyer (chaque nuit
/// reconnue par son plan), au lieu de compter toute la carte ; le vrai dépôt, ensuite, n'envoie
/// en effet rien.
#[test]
fn simulation_d_une_carte_deja_deposee_vue_ailleurs_n_annonce_rien_a_envoyer() {
    let banc = Banc::nouveau();
    preparer(&banc);
    depot_saison(&banc).finir_en(0);
    let declares = declarations(&banc);
    let ailleurs = banc.dossier.path().join("F");
    copier_dossier(&banc.nuit, &ailleurs);
    let base_avant = std::fs::read(&banc.base).unwrap();
    let depot_d_ailleurs = || {
        let mut c = banc.vigie_plateforme();
        c.arg("depot")
            .arg(&ailleurs)
            .args(["--fuseau", "+02:00", "--api"])
            .arg(banc.bac().api())
            .args(Banc::options_rapides());
        c
    };
    let out = depot_d_ailleurs().arg("--simulation").finir_en(0);
    let t = texte(&out);
    assert!(
        t.contains("Simulation : 6 nuits, 0 participation(s) à créer, 0 fichier (0 o) à envoyer"),
        "{t}"
    );
    let out = depot_d_ailleurs()
        .args(["--simulation", "--json"])
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let simulation = evenements(&lignes, "simulation");
    assert_eq!(simulation.len(), 1, "{}", texte(&out));
    assert_eq!(simulation[0]["unites"], 0, "{}", texte(&out));
    assert_eq!(simulation[0]["octets"], 0, "{}", texte(&out));
    // Une nuit reconnue mais un fichier de plus sur la carte : lui seul partirait.
    let en_plus = "PA1/Car640139-2026-Pass2-Z3-PA1_20260815_235000_000.wav";
    std::fs::write(ailleurs.join(en_plus), contenu(en_plus, 1_234)).unwrap();
    let out = depot_d_ailleurs()
        .args(["--simulation", "--json"])
        .finir_en(0);
    let simulation = evenements(&lignes_json(&out.stdout), "simulation")[0].clone();
    assert_eq!(
        (&simulation["unites"], &simulation["octets"]),
        (&serde_json::json!(1), &serde_json::json!(1_234)),
        "{}",
        texte(&out)
    );
    assert!(
        std::fs::read(&banc.base).unwrap() == base_avant,
        "la simulation a écrit la base"
    );
    assert_eq!(declarations(&banc), declares, "la simulation a déclaré");
    assert_eq!(creations(&banc), 5, "la simulation a créé");
    // Le vrai dépôt ne renvoie que le fichier en plus.
    depot_d_ailleurs().finir_en(0);
    assert_eq!(declarations(&banc), declares + 1);
}

/// Copie un dossier et ce qu'il contient (la carte vue sous un autre chemin).
fn copier_dossier(de: &std::path::Path, vers: &std::path::Path) {
    std::fs::create_dir_all(vers).unwrap();
    for e in std::fs::read_dir(de).unwrap().flatten() {
        let cible = vers.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copier_dossier(&e.path(), &cible);
        } else {
            std::fs::copy(e.path(), cible).unwrap();
        }
    }
}

#[test]
fn numero_de_site_inconnu_refuse_avant_tout_envoi() {
    let banc = Banc::nouveau();
    banc.fichier(
        "Car999999-2026-Pass1-A1-PA1_20260703_221000_000.wav",
        TAILLE,
    );
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("999999") && e.contains("--site 999999=ID"),
        "{e}"
    );
    assert_eq!(creations(&banc), 0);
    // Désigné : --site NUMERO=ID.
    let out = depot_saison(&banc)
        .args(["--site", &format!("999999={SITE}")])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(creations(&banc), 1);
}

#[test]
fn horodatage_impossible_hors_nuit_refuse() {
    let banc = Banc::nouveau();
    banc.fichier(
        "Car640139-2026-Pass1-A1-PA1_20260631_221000_000.wav",
        TAILLE,
    );
    banc.fichier(NUITS[4][0].1, TAILLE);
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("horodatage impossible") && e.contains("20260631"),
        "{e}"
    );
    assert_eq!(banc.bac().compteurs().requetes_total(), 0, "{e}");
}

/// `vigie retenter-echecs` sans argument reprend toute la saison, chaque nuit avec ses seuls
/// fichiers : un fichier ajouté depuis à une nuit part dans sa participation, et aucun fichier
/// d'une nuit voisine (dans le même dossier) n'entre dans une autre.
#[test]
fn retenter_echecs_reprend_toute_la_saison_chaque_nuit_ses_fichiers() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let ajoute = "Car640139-2026-Pass1-A1-PA2_20260703_230000_000.wav";
    banc.fichier(&format!("PA2/{ajoute}"), TAILLE);
    let mut c = banc.vigie_plateforme();
    c.arg("retenter-echecs").args(Banc::options_rapides());
    let out = c.output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    let mut attendues: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for (i, n) in NUITS.iter().enumerate() {
        let mut noms: BTreeSet<String> = n.iter().map(|(_, nom)| (*nom).to_owned()).collect();
        if i == 0 {
            noms.insert(ajoute.to_owned());
        }
        attendues.insert(noms);
    }
    let par = titres_par_participation(&banc);
    let vues: BTreeSet<BTreeSet<String>> = par.values().cloned().collect();
    assert_eq!(vues, attendues, "fichiers mal répartis : {par:#?}");
    assert_eq!(par[&posee].len(), NUITS[2].len());
}

/// Un même site écrit de deux façons dans les noms (`Car640139`, `Car0640139`) : refus avant
/// tout envoi plutôt que deux participations du même point la même nuit.
#[test]
fn un_site_ecrit_de_deux_facons_refuse() {
    let banc = Banc::nouveau();
    banc.fichier(
        "Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
        TAILLE,
    );
    banc.fichier(
        "Car0640139-2026-Pass1-A1-PA1_20260703_231000_000.wav",
        TAILLE,
    );
    let out = depot_saison(&banc).output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("de 2 façons (0640139,") && e.contains("640139)"),
        "{e}"
    );
    assert_eq!(creations(&banc), 0);
}

/// Après le dépôt d'une saison, `vigie traitement` sans argument dit l'état du calcul de
/// chaque nuit de la saison, pas seulement celui de la dernière.
#[test]
fn traitement_sans_argument_suit_chaque_nuit_de_la_saison() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    depot_saison(&banc).finir_en(0);
    // Aucun calcul lancé : « pas encore fini », code 1, une ligne par nuit.
    let mut c = banc.vigie_plateforme();
    c.args(["traitement", "--json"]);
    let out = c.finir_en(1);
    let lignes = lignes_json(&out.stdout);
    let participations: BTreeSet<String> = evenements(&lignes, "traitement")
        .iter()
        .map(|e| e["participation"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(participations.len(), 6, "{}", texte(&out));
    assert!(participations.contains(&posee), "{}", texte(&out));
    assert_eq!(
        participations,
        titres_par_participation(&banc).into_keys().collect(),
        "{}",
        texte(&out)
    );
}

/// `--participation ID` : la soirée, le numéro de site, le point et le passage des noms sont
/// comparés à ceux de la participation (ses dates dans le fuseau de l'enregistreur, son site
/// `« <protocole>-<numéro> »`, le fichier que `vigie` y a déjà déposé) ; chaque écart est un
/// refus avant tout envoi (code 2) qui le dit, montré aussi par `--simulation` sans rien
/// écrire ; `--forcer-participation` passe outre en le disant.
#[test]
fn participation_donnee_comparee_en_soiree_site_et_passage() {
    let banc = Banc::nouveau();
    let depot_de = |dossier: &str| {
        let mut c = banc.vigie_plateforme();
        c.arg("depot")
            .arg(banc.dossier.path().join(dossier))
            .args([
                "--participation",
                PARTICIPATION,
                "--fuseau",
                "+02:00",
                "--api",
            ])
            .arg(banc.bac().api())
            .args(Banc::options_rapides());
        c
    };
    let ecrire = |dossier: &str, nom: &str| {
        let d = banc.dossier.path().join(dossier);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(nom), contenu(nom, 100)).unwrap();
    };
    // La participation d'essai est la soirée du dim. 21/06 au point A1 du site 640139.
    ecrire(
        "jeudi",
        "Car640139-2026-Pass1-A1-OB-1_20260625_221500_000.wav",
    );
    ecrire(
        "autre-site",
        "Car640380-2026-Pass1-A1-OB-1_20260621_221500_000.wav",
    );
    ecrire("bonne", &nom(1));
    ecrire(
        "pass2",
        "Car640139-2026-Pass2-A1-OB-1_20260621_231500_000.wav",
    );

    // Une autre soirée : refus, avant tout envoi, qui dit les deux soirées ; la simulation le
    // montre aussi, sans écrire la base.
    for simulation in [true, false] {
        let mut c = depot_de("jeudi");
        if simulation {
            c.arg("--simulation");
        }
        let out = c.finir_en(2);
        let e = stderr(&out);
        assert!(
            e.contains("jeu. 25/06 dans les noms, dim. 21/06 pour la participation"),
            "{e}"
        );
        assert!(e.contains("--forcer-participation"), "{e}");
        assert!(e.lines().all(|l| l.chars().count() <= 80), "{e}");
        assert!(!banc.base.exists(), "rien ne devait être écrit");
    }
    // Un autre numéro de site : le titre du site de la participation est dit.
    let e = stderr(&depot_de("autre-site").finir_en(2));
    assert!(
        e.contains("640380 dans les noms, « Vigiechiro - Point Fixe-640139 »"),
        "{e}"
    );
    assert!(!e.contains("nuit    :"), "la soirée est la bonne : {e}");
    assert_eq!(declarations(&banc), 0);

    // La bonne nuit part sans un mot d'écart.
    let out = depot_de("bonne").finir_en(0);
    assert!(!stderr(&out).contains("attention"), "{}", texte(&out));
    // Le passage : la participation ne le dit pas, mais les fichiers que vigie y a déposés,
    // si. Un fichier de passage 2 de la même soirée est refusé.
    let e = stderr(&depot_de("pass2").finir_en(2));
    assert!(
        e.contains("Pass2 dans les noms, Pass1 dans les fichiers"),
        "{e}"
    );
    assert_eq!(declarations(&banc), 1);
    // En JSON : l'erreur, code 2, précédée de l'avertissement qui dit chaque écart ; forcé,
    // l'avertissement porte chaque écart.
    let out = depot_de("jeudi").arg("--json").output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    assert_eq!(
        evenements(&lignes, "erreur")[0]["code"],
        2,
        "{}",
        texte(&out)
    );
    let rang = |evenement: &str| {
        lignes
            .iter()
            .position(|l| l["evenement"] == evenement)
            .unwrap_or_else(|| panic!("{evenement} absent : {}", texte(&out)))
    };
    assert!(rang("avertissement") < rang("erreur"), "{}", texte(&out));
    let refus = evenements(&lignes, "avertissement")
        .into_iter()
        .find(|a| a["motif"] == "ecart_participation")
        .unwrap_or_else(|| panic!("{}", texte(&out)));
    assert_eq!(
        refus["ecarts"],
        serde_json::json!([{"champ": "soiree", "noms": "2026-06-25", "participation": "2026-06-21"}]),
        "{}",
        texte(&out)
    );
    let out = depot_de("jeudi")
        .args(["--forcer-participation", "--json"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let avertis = evenements(&lignes, "avertissement");
    let ecart = avertis
        .iter()
        .find(|a| a["motif"] == "ecart_participation")
        .unwrap_or_else(|| panic!("{}", texte(&out)));
    assert_eq!(
        ecart["ecarts"],
        serde_json::json!([{"champ": "soiree", "noms": "2026-06-25", "participation": "2026-06-21"}])
    );
    assert_eq!(declarations(&banc), 2);
}

/// La participation d'une nuit liée est revérifiée à chaque relance : supprimée sur la
/// plateforme, ou donnée à un autre observateur, c'est un refus (code 2) qui nomme chaque nuit,
/// avant tout envoi ; rien ne part dans une autre participation, aucune n'est créée.
#[test]
fn participation_liee_supprimee_ou_cedee_refusee_a_la_relance() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    depot_saison(&banc).finir_en(0);
    // La participation créée pour la nuit A1 du 3 juillet, supprimée par un administrateur ;
    // la nuit B2 posée « sur le site web », donnée à un autre observateur.
    let premier = NUITS[0][0].1;
    let supprimee = titres_par_participation(&banc)
        .into_iter()
        .find(|(_, titres)| titres.contains(premier))
        .map(|(id, _)| id)
        .unwrap();
    assert!(banc.bac().supprimer_participation(&supprimee));
    assert!(banc.bac().ceder_participation(&posee, OBSERVATEUR_AUTRE));
    // De quoi envoyer, si rien ne l'arrêtait : un fichier de plus dans chacune de ces nuits.
    banc.fichier(
        "PA1/Car640139-2026-Pass1-A1-PA1_20260703_231000_000.wav",
        TAILLE,
    );
    banc.fichier(
        "PA2/Car640139-2026-Pass1-B2-PA2_20260704_003000_000.wav",
        TAILLE,
    );
    let declares = declarations(&banc);
    let out = depot_saison(&banc).finir_en(2);
    let e = stderr(&out);
    assert!(e.contains("a changé sur la plateforme"), "{e}");
    assert!(e.contains(&supprimee) && e.contains("n'est plus"), "{e}");
    assert!(e.contains("sur la plateforme (supprimée ?)"), "{e}");
    assert!(e.contains("ven. 03/07 A1 Pass1"), "{e}");
    assert!(
        e.contains(&posee) && e.contains("Noctule des Étangs"),
        "{e}"
    );
    assert!(e.contains("ven. 03/07 B2 Pass1"), "{e}");
    // (La dernière ligne, « erreur : … », est celle de toute commande arrêtée.)
    assert!(
        e.lines()
            .filter(|l| !l.starts_with("erreur : "))
            .all(|l| l.chars().count() <= 80),
        "{e}"
    );
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    assert_eq!(declarations(&banc), declares);
}

/// `vigie retenter-echecs` revérifie aussi la participation de chaque nuit liée, avant toute
/// écriture : donnée à un autre observateur sur le site web (la plateforme accepterait qu'on y
/// dépose, et ne permet pas d'en retirer), ou supprimée, c'est un refus (code 2) qui nomme la
/// nuit ; rien ne part, pas même dans les autres nuits.
#[test]
fn retenter_echecs_refuse_une_participation_liee_cedee_ou_supprimee() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    depot_saison(&banc).finir_en(0);
    assert!(banc.bac().ceder_participation(&posee, OBSERVATEUR_AUTRE));
    // De quoi envoyer, si rien ne l'arrêtait : un fichier de plus dans la nuit cédée et dans
    // une autre.
    banc.fichier(
        "PA2/Car640139-2026-Pass1-B2-PA2_20260704_003000_000.wav",
        TAILLE,
    );
    banc.fichier(
        "PA1/Car640139-2026-Pass1-A1-PA1_20260703_231000_000.wav",
        TAILLE,
    );
    let declares = declarations(&banc);
    let retenter = || {
        let mut c = banc.vigie_plateforme();
        c.arg("retenter-echecs").args(Banc::options_rapides());
        c
    };
    let out = retenter().finir_en(2);
    let e = stderr(&out);
    assert!(e.contains("a changé sur la plateforme"), "{e}");
    assert!(
        e.contains(&posee) && e.contains("Noctule des Étangs"),
        "{e}"
    );
    assert!(e.contains("ven. 03/07 B2 Pass1"), "{e}");
    assert_eq!(declarations(&banc), declares, "{}", texte(&out));
    assert_eq!(creations(&banc), 5, "{}", texte(&out));

    // En JSON, l'erreur nomme la nuit.
    let out = retenter().arg("--json").output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let erreur = evenements(&lignes, "erreur")[0];
    assert_eq!(
        erreur["nuits"],
        serde_json::json!([{"numero_site": "640139", "passage": 1, "point": "B2", "soiree": "2026-07-03"}]),
        "{erreur}"
    );

    // Supprimée : même refus.
    assert!(banc.bac().ceder_participation(&posee, OBSERVATEUR));
    assert!(banc.bac().supprimer_participation(&posee));
    let out = retenter().finir_en(2);
    let e = stderr(&out);
    assert!(e.contains(&posee) && e.contains("n'est plus"), "{e}");
    assert_eq!(declarations(&banc), declares, "{}", texte(&out));
}

/// La vérification des participations liées de `vigie retenter-echecs` ne se passe pas de la
/// plateforme : si la liste des participations d'un site ne se lit pas, rien n'est écrit ni
/// envoyé (code 1, la lecture nommée), et une relance, la plateforme revenue, dépose.
#[test]
fn retenter_echecs_sans_lecture_des_participations_n_ecrit_rien() {
    let banc = Banc::nouveau();
    preparer(&banc);
    depot_saison(&banc).finir_en(0);
    banc.fichier(
        "PA2/Car640139-2026-Pass1-B2-PA2_20260704_003000_000.wav",
        TAILLE,
    );
    let declares = declarations(&banc);
    // L'état de la saison, nuit par nuit (unités comprises : un fichier planifié s'y verrait).
    let etat = || {
        banc.vigie()
            .args(["etat", "--json"])
            .output()
            .unwrap()
            .stdout
    };
    let avant = etat();
    banc.panne(Regle::toujours(
        Some(Operation::ApiListerParticipations),
        Panne::Statut {
            code: 503,
            retry_after: None,
        },
    ));
    let retenter = || {
        let mut c = banc.vigie_plateforme();
        c.arg("retenter-echecs").args(Banc::options_rapides());
        c
    };
    let out = retenter().finir_en(1);
    let e = stderr(&out);
    assert!(
        e.contains("participations") && e.contains("impossible"),
        "{e}"
    );
    assert_eq!(declarations(&banc), declares, "{}", texte(&out));
    assert_eq!(etat(), avant, "la saison a changé : {}", texte(&out));
    banc.bac().pannes().effacer();
    retenter().finir_en(0);
    assert_eq!(declarations(&banc), declares + 1);
}

/// Deux `vigie depot` sur la même saison : le second s'arrête au verrou de la saison (code 4),
/// dit quel processus la tient, et n'a rien écrit ni envoyé.
#[test]
fn deux_depots_de_la_meme_saison_le_second_sort_en_4() {
    let banc = Banc::nouveau();
    preparer(&banc);
    banc.bac().pannes().programmer(Regle::nieme(
        Operation::ApiCreerParticipation,
        SITE,
        1,
        Panne::Bloquer(Duration::from_secs(120)),
    ));
    let mut premier = banc.lancer(depot_saison(&banc));
    banc.attendre("la première création émise", |b| {
        b.compteurs().requetes(Operation::ApiCreerParticipation) >= 1
    });
    let out = depot_saison(&banc).finir_en(4);
    let e = stderr(&out);
    assert!(
        e.contains("la saison 2026 est déjà en cours de dépôt")
            && e.contains(&format!("processus {}", premier.id())),
        "{e}"
    );
    assert_eq!(creations(&banc), 1, "{}", texte(&out));
    // `retenter-echecs` aussi.
    let out = banc
        .vigie_plateforme()
        .arg("retenter-echecs")
        .args(Banc::options_rapides())
        .output()
        .unwrap();
    assert_eq!(code(&out), 4, "{}", texte(&out));
    premier.kill().unwrap();
    let _ = premier.wait();
    assert_eq!(declarations(&banc), 0);
}

/// `retenter-echecs` sur une saison dont un dossier a reçu les fichiers d'une nuit nouvelle :
/// elle est dite, avec la commande qui la déposera ; rien n'en part (ni dans une autre
/// participation, ni dans une créée sans qu'on l'ait demandé).
#[test]
fn retenter_echecs_dit_une_nuit_nouvelle_sans_la_deposer() {
    let banc = Banc::nouveau();
    preparer(&banc);
    depot_saison(&banc).finir_en(0);
    let nouvelle = "PA1/Car640139-2026-Pass1-Z3-PA1_20260710_221000_000.wav";
    banc.fichier(nouvelle, TAILLE);
    let declares = declarations(&banc);
    let retenter = || {
        let mut c = banc.vigie_plateforme();
        c.arg("retenter-echecs").args(Banc::options_rapides());
        c
    };
    let out = retenter().finir_en(0);
    let e = stderr(&out);
    assert!(e.contains("1 nuit nouvelle, sans participation"), "{e}");
    assert!(e.contains("ven. 10/07  Z3    Pass1  1 fichier"), "{e}");
    assert!(
        e.contains("→ déposez-la dans sa participation : vigie depot"),
        "{e}"
    );
    assert!(e.lines().all(|l| l.chars().count() <= 80), "{e}");
    assert_eq!(creations(&banc), 5);
    assert_eq!(declarations(&banc), declares);
    // En JSON : un avertissement qui nomme la nuit et donne la commande.
    let out = retenter().arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let a = evenements(&lignes, "avertissement")
        .into_iter()
        .find(|a| a["motif"] == "nuit_nouvelle")
        .cloned()
        .unwrap_or_else(|| panic!("{}", texte(&out)));
    assert_eq!(a["nuits"][0]["soiree"], "2026-07-10", "{a}");
    assert_eq!(a["nuits"][0]["point"], "Z3", "{a}");
    assert!(
        a["commande"].as_str().unwrap().starts_with("vigie depot "),
        "{a}"
    );
    // La commande dite la dépose, dans une participation créée pour elle.
    depot_saison(&banc).finir_en(0);
    assert_eq!(creations(&banc), 6);
}

/// `--json` : le bilan de chaque nuit (`bilan_nuit`), et l'erreur d'un refus qui nomme ses
/// nuits.
#[test]
fn json_bilan_de_chaque_nuit_et_erreur_qui_nomme_ses_nuits() {
    let banc = Banc::nouveau();
    let posee = preparer(&banc);
    let out = depot_saison(&banc).arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let bilans = evenements(&lignes, "bilan_nuit");
    assert_eq!(bilans.len(), 6, "{}", texte(&out));
    assert!(
        bilans
            .iter()
            .all(|b| b["deposees"] == b["unites"] && b["etat"] == "deposee"),
        "{bilans:?}"
    );
    let b2 = bilans
        .iter()
        .find(|b| b["participation"] == posee.as_str())
        .unwrap_or_else(|| panic!("{bilans:?}"));
    assert_eq!(
        (&b2["point"], &b2["soiree"]),
        (&serde_json::json!("B2"), &serde_json::json!("2026-07-03"))
    );
    assert_eq!(b2["unites"], 4);
    // `--participation` avec le dossier de saison : l'erreur nomme les six nuits.
    let out = banc.depot_plateforme().arg("--json").output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let erreur = evenements(&lignes, "erreur")[0];
    assert_eq!(
        erreur["nuits"].as_array().map(Vec::len),
        Some(6),
        "{erreur}"
    );
    assert_eq!(erreur["nuits"][0]["numero_site"], "640139", "{erreur}");
    // Un site que l'on ne trouve pas : ses fichiers ne partent pas, les nuits justes si
    // (code 3), et l'avertissement nomme le numéro.
    banc.fichier(
        "PA3/Car999999-2026-Pass1-A1-PA3_20260703_221000_000.wav",
        TAILLE,
    );
    let out = depot_saison(&banc).arg("--json").output().unwrap();
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let non_rattaches: Vec<_> = evenements(&lignes, "avertissement")
        .into_iter()
        .filter(|a| a["motif"] == "non_rattaches")
        .collect();
    assert_eq!(non_rattaches.len(), 1, "{}", texte(&out));
    assert_eq!(
        (
            &non_rattaches[0]["numero_site"],
            &non_rattaches[0]["fichiers"]
        ),
        (&serde_json::json!("999999"), &serde_json::json!(1)),
        "{}",
        non_rattaches[0]
    );
}

/// La saison déposée, puis un troisième enregistreur rangé dans PA3 pour la nuit A1 du 4
/// juillet (qui n'avait que PA1) : les déclarations d'avant, et le nom du fichier voisin.
fn saison_deposee_puis_un_voisin(banc: &Banc) -> (u64, &'static str) {
    preparer(banc);
    depot_saison(banc).finir_en(0);
    let declares = declarations(banc);
    let voisin = "Car640139-2026-Pass1-A1-PA3_20260704_230000_000.wav";
    banc.fichier(&format!("PA3/{voisin}"), TAILLE);
    (declares, voisin)
}

/// Un fichier d'une nuit liée trouvé hors de la racine de son plan (un troisième
/// enregistreur rangé dans un dossier voisin) : la racine du plan monte à l'ancêtre commun au
/// lieu d'un refus ; le nouveau fichier part dans la participation de la nuit, rien de déjà
/// déposé ne repart, aucune participation n'est créée.
#[test]
fn un_fichier_hors_de_la_racine_d_une_nuit_liee_fait_monter_sa_racine() {
    let banc = Banc::nouveau();
    let (declares, voisin) = saison_deposee_puis_un_voisin(&banc);
    let out = depot_saison(&banc).finir_en(0);
    let e = stderr(&out);
    assert!(
        e.contains("sam. 04/07 A1 Pass1") && e.contains("part maintenant de"),
        "{e}"
    );
    assert_eq!(creations(&banc), 5, "{}", texte(&out));
    assert_eq!(declarations(&banc), declares + 1, "{}", texte(&out));
    // Le fichier est dans la participation de sa nuit, avec les deux autres.
    let par = titres_par_participation(&banc);
    let nuit = par
        .values()
        .find(|t| t.contains(voisin))
        .unwrap_or_else(|| panic!("{par:#?}"));
    assert_eq!(nuit.len(), NUITS[1].len() + 1, "{par:#?}");
    // Le plan de la nuit part maintenant du dossier de saison ; relancé, rien ne bouge.
    let out = banc.vigie().args(["plans", "--json"]).output().unwrap();
    let canonique = std::fs::canonicalize(&banc.nuit).unwrap();
    assert!(
        lignes_json(&out.stdout)
            .iter()
            .any(|p| p["dossier"] == canonique.to_str().unwrap() && p["soiree"] == "2026-07-04"),
        "{}",
        texte(&out)
    );
    let out = depot_saison(&banc).finir_en(0);
    assert!(
        !stderr(&out).contains("part maintenant de"),
        "{}",
        texte(&out)
    );
    assert_eq!(declarations(&banc), declares + 1);
}

/// La racine d'une nuit liée monte, mais un autre `vigie` (`verifier`, `depot --participation`)
/// tient le plan de la nuit : la montée attend (code 4, le message dit qui tient le plan), rien
/// n'est réécrit ; le plan libéré, la relance monte la racine.
#[test]
fn la_racine_d_une_nuit_liee_ne_monte_pas_sous_le_verrou_de_son_plan() {
    let banc = Banc::nouveau();
    let (declares, _) = saison_deposee_puis_un_voisin(&banc);
    let plans = || {
        let out = banc.vigie().args(["plans", "--json"]).output().unwrap();
        lignes_json(&out.stdout)
    };
    let avant = plans();
    let nuit = avant
        .iter()
        .find(|p| p["soiree"] == "2026-07-04")
        .unwrap_or_else(|| panic!("{avant:#?}"))
        .clone();
    // Le verrou du plan, tel que `vigie` le nomme (FNV-1a 64 bits du dossier et de la
    // destination, `src/plan/verrou.rs`), tenu ici comme le tiendrait un autre `vigie`.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for partie in [&nuit["dossier"], &nuit["destination"]] {
        for &o in partie
            .as_str()
            .unwrap()
            .as_bytes()
            .iter()
            .chain([0u8].iter())
        {
            h ^= u64::from(o);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    let chemin = banc
        .base
        .with_file_name("vigie.sqlite.verrous")
        .join(format!("plan-{h:016x}.verrou"));
    let verrou = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&chemin)
        .unwrap_or_else(|e| panic!("{} : {e}", chemin.display()));
    verrou.try_lock().unwrap();
    let out = depot_saison(&banc).finir_en(4);
    let e = stderr(&out);
    assert!(
        e.contains("déjà en cours de traitement par un autre vigie")
            && !e.contains("part maintenant de"),
        "{e}"
    );
    let dossiers = |ps: &[serde_json::Value]| -> BTreeSet<(i64, String)> {
        ps.iter()
            .map(|p| (p["plan"].as_i64().unwrap(), p["dossier"].to_string()))
            .collect()
    };
    assert_eq!(dossiers(&plans()), dossiers(&avant), "{}", texte(&out));
    assert_eq!(declarations(&banc), declares, "{}", texte(&out));
    drop(verrou);
    let out = depot_saison(&banc).finir_en(0);
    assert!(
        stderr(&out).contains("part maintenant de"),
        "{}",
        texte(&out)
    );
    assert_eq!(declarations(&banc), declares + 1, "{}", texte(&out));
}

/// La création de la participation d'une nuit échoue passagèrement (503), sans
/// `--jusqu-au-bout` : la nuit reste dans le bilan de saison, participation à créer ; en JSON
/// un `avertissement` `creation_reportee` et aucun texte ; en texte une ligne dans 80
/// colonnes qui dit « à la prochaine relance » ; code 1. La panne passée, la relance crée.
#[test]
fn creation_en_503_sans_jusqu_au_bout_la_nuit_reste_au_bilan_puis_la_relance_cree() {
    let banc = Banc::nouveau();
    preparer(&banc);
    let panne_503 = Panne::Statut {
        code: 503,
        retry_after: None,
    };
    banc.bac().pannes().programmer(
        Regle::toujours(Some(Operation::ApiCreerParticipation), panne_503).fois(10_000),
    );
    let out = depot_saison(&banc).arg("--json").finir_en(1);
    let lignes = lignes_json(&out.stdout);
    let bilans = evenements(&lignes, "bilan_nuit");
    assert_eq!(bilans.len(), NUITS.len(), "{}", texte(&out));
    let a_creer = bilans.iter().filter(|b| b["etat"] == "a_creer").count();
    assert_eq!(a_creer, NUITS.len() - 1, "{}", texte(&out));
    let reportees: Vec<_> = evenements(&lignes, "avertissement")
        .into_iter()
        .filter(|a| a["motif"] == "creation_reportee")
        .collect();
    assert_eq!(reportees.len(), NUITS.len() - 1, "{}", texte(&out));
    assert!(
        reportees
            .iter()
            .all(|a| a["reprise"] == "relance" && a["plan"].is_i64() && a["cause"].is_string()),
        "{reportees:#?}"
    );
    assert!(
        !stderr(&out).contains("prochaine relance"),
        "{}",
        texte(&out)
    );
    // En texte : la ligne, repliée à 80 colonnes, et les six nuits au bilan.
    let out = depot_saison(&banc).finir_en(1);
    let e = stderr(&out);
    assert!(e.contains("à la prochaine relance"), "{e}");
    assert!(e.lines().all(|l| l.chars().count() <= 80), "{e}");
    assert!(stdout(&out).contains("sur 6 :"), "{}", texte(&out));
    assert!(stdout(&out).contains("à créer"), "{}", texte(&out));
    // La panne passée, la relance crée les cinq participations.
    banc.bac().pannes().effacer();
    let out = depot_saison(&banc).arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let bilans = evenements(&lignes, "bilan_nuit");
    assert_eq!(bilans.len(), NUITS.len(), "{}", texte(&out));
    assert!(bilans.iter().all(|b| b["etat"] == "deposee"), "{bilans:#?}");
}

/// La même panne passagère avec `--jusqu-au-bout` : la nuit est retentée au passage suivant
/// (`avertissement` de reprise `passage_suivant`), la course finit tout, code 0.
#[test]
fn creation_en_503_avec_jusqu_au_bout_retentee_dans_la_course() {
    let banc = Banc::nouveau();
    preparer(&banc);
    let panne_503 = Panne::Statut {
        code: 503,
        retry_after: None,
    };
    banc.bac()
        .pannes()
        .programmer(Regle::toujours(Some(Operation::ApiCreerParticipation), panne_503).fois(4));
    let out = depot_saison(&banc)
        .args([
            "--tentatives",
            "2",
            "--jusqu-au-bout",
            "--json",
            "--attente-passage",
            "0.02",
            "--attente-passage-max",
            "0.05",
        ])
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let reportees: Vec<_> = evenements(&lignes, "avertissement")
        .into_iter()
        .filter(|a| a["motif"] == "creation_reportee")
        .collect();
    assert!(!reportees.is_empty(), "{}", texte(&out));
    assert!(
        reportees.iter().all(|a| a["reprise"] == "passage_suivant"),
        "{reportees:#?}"
    );
    let bilans = evenements(&lignes, "bilan_nuit");
    assert_eq!(bilans.len(), NUITS.len(), "{}", texte(&out));
    assert!(bilans.iter().all(|b| b["etat"] == "deposee"), "{bilans:#?}");
    assert!(!stderr(&out).contains("relance"), "{}", texte(&out));
}

/// Une nuit routière (`Cir…-PassN-TronN-…`, noms sans instant) sans participation : créée sur
/// son site (`Vigiechiro - Routier-12`), sans point, avec pour dates la première et la dernière
/// date de modification de ses fichiers. Des fichiers dont les dates s'étalent sur plus d'une
/// sortie (copiés sans leurs dates) : refus avant tout envoi, qui dit pourquoi et quoi faire.
#[test]
fn nuit_routiere_creee_par_les_dates_de_ses_fichiers() {
    let banc = Banc::nouveau();
    let le_10_juin = |h: u64, m: u64| {
        std::time::UNIX_EPOCH + Duration::from_secs(1_781_049_600 + h * 3600 + m * 60)
    };
    let poser = |nom: &str, quand: std::time::SystemTime| {
        banc.fichier(nom, TAILLE);
        std::fs::File::options()
            .write(true)
            .open(banc.nuit.join(nom))
            .unwrap()
            .set_modified(quand)
            .unwrap();
    };
    poser(
        "circuit/Cir12-2026-Pass1-Tron1-Chiro_0_00001_000.wav",
        le_10_juin(20, 30),
    );
    poser(
        "circuit/Cir12-2026-Pass1-Tron2-Chiro_1_00002_000.wav",
        le_10_juin(22, 10),
    );
    let out = depot_saison(&banc).finir_en(0);
    let creees = banc.bac().participations(vigie_bac_a_sable::SITE_ROUTIER);
    assert_eq!(creees.len(), 1, "{}", texte(&out));
    assert_eq!(creees[0].date_debut, "2026-06-10T20:30:00");
    assert_eq!(creees[0].date_fin.as_deref(), Some("2026-06-10T22:10:00"));
    assert_eq!(creees[0].point, None);
    assert_eq!(titres_par_participation(&banc)[&creees[0].id].len(), 2);
    // Le passage 2, copié sans ses dates : sur trois jours.
    poser(
        "circuit2/Cir12-2026-Pass2-Tron1-Chiro_0_00001_000.wav",
        le_10_juin(20, 0),
    );
    poser(
        "circuit2/Cir12-2026-Pass2-Tron2-Chiro_0_00002_000.wav",
        le_10_juin(72, 0),
    );
    let out = depot_saison(&banc).finir_en(2);
    let e = stderr(&out);
    assert!(
        e.contains("circuit 12 Pass2") && e.contains("plus de 24 h d'écart"),
        "{e}"
    );
    assert_eq!(creations(&banc), 1);
}

/// Une nuit routière de la saison, sans participation : celle créée porte les canaux que
/// disent ses séquences (mono, en expansion de temps, côté gauche : GAUCHE et ABSENT), que
/// les options ne donnaient pas.
#[test]
fn nuit_routiere_creee_avec_les_canaux_de_ses_sequences() {
    let banc = Banc::nouveau();
    circuit_mono_a_gauche(&banc);
    let out = depot_saison(&banc).finir_en(0);
    let creees = banc.bac().participations(vigie_bac_a_sable::SITE_ROUTIER);
    assert_eq!(creees.len(), 1, "{}", texte(&out));
    let c = creees[0].configuration.clone().unwrap_or_default();
    assert_eq!(c["canal_expansion_temps"], "GAUCHE", "{c}");
    assert_eq!(c["canal_enregistrement_direct"], "ABSENT", "{c}");
    assert!(
        !stderr(&out).contains("ne dit pas ses canaux"),
        "{}",
        texte(&out)
    );
}

/// La nuit routière du passage 1 du circuit 12, le 10 juin : deux séquences mono, en expansion
/// de temps, côté gauche (les canaux qui s'en déduisent : GAUCHE et ABSENT).
fn circuit_mono_a_gauche(banc: &Banc) {
    for (i, minutes) in [(1, 30), (2, 50)] {
        let nom = format!("circuit/Cir12-2026-Pass1-Tron{i}-Chiro_0_0000{i}_000.wav");
        banc.fichier(&nom, TAILLE);
        std::fs::File::options()
            .write(true)
            .open(banc.nuit.join(&nom))
            .unwrap()
            .set_modified(
                std::time::UNIX_EPOCH
                    + Duration::from_secs(1_781_049_600 + 20 * 3600 + minutes * 60),
            )
            .unwrap();
    }
}

/// Une nuit routière déjà liée à sa participation, dont la configuration ne dit plus ses
/// canaux (le site web l'a réécrite avec le seul micro), la saison redonnée avec une option de
/// description : ses canaux se déduisent de ses séquences comme à la création et complètent la
/// configuration, sans rien effacer de ce que le site web y a mis. Avant : une nuit liée ne
/// refaisait pas la déduction, et sa participation restait sans canaux (tout lu comme ×10).
#[test]
fn nuit_routiere_deja_liee_completee_des_canaux_de_ses_sequences() {
    let banc = Banc::nouveau();
    circuit_mono_a_gauche(&banc);
    depot_saison(&banc).finir_en(0);
    let creees = banc.bac().participations(vigie_bac_a_sable::SITE_ROUTIER);
    assert_eq!(creees.len(), 1);
    let id = &creees[0].id;
    assert!(banc.bac().poser_description(
        id,
        serde_json::json!({ "micro_type": "SMX-U1" }),
        serde_json::json!({})
    ));
    let out = depot_saison(&banc).args(["--vent", "FAIBLE"]).finir_en(0);
    assert_eq!(creations(&banc), 1, "{}", texte(&out));
    let c = banc.bac().participation(id).unwrap().configuration;
    assert_eq!(
        c,
        Some(serde_json::json!({
            "micro_type": "SMX-U1",
            "canal_expansion_temps": "GAUCHE",
            "canal_enregistrement_direct": "ABSENT",
        })),
        "{}",
        texte(&out)
    );
}
