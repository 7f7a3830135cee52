//! `vigie depot NUIT --vers dossier:CHEMIN` : la troisième destination, un dossier local ou
//! réseau (le disque externe, le NAS). La nuit y arrive octet pour octet sous ses chemins
//! relatifs ; kill -9 au milieu puis relance : rien ne manque, rien n'est écrit deux fois, et
//! aucun provisoire ne reste visible comme une séquence ; `vigie verifier` trouve un fichier
//! abîmé dans le dossier (code 1, le fichier nommé) et `vigie retenter-echecs` le redépose ;
//! un dossier en lecture seule est refusé avant le premier fichier, avec le geste ; un disque
//! qui se remplit en cours de route arrête le passage ; `--debit-max` borne la copie sans
//! compter dans le délai d'une tentative.

// Le banc (sa base, son dossier de nuit) démarre le bac à sable, qui ne sert pas ici.
#![cfg(feature = "bac-a-sable")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::commun::plateforme::nom;
use crate::commun::*;

/// Le dossier de destination du banc (le « disque externe »), créé vide.
fn disque(banc: &Banc) -> PathBuf {
    let d = banc.dossier.path().join("disque-externe");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `vigie depot NUIT --vers dossier:DISQUE` avec les réglages du banc.
fn depot_dossier(banc: &Banc, disque: &Path, options: &[&str]) -> Command {
    let mut c = banc.vigie();
    c.arg("depot")
        .arg(&banc.nuit)
        .arg("--vers")
        .arg(format!("dossier:{}", disque.display()))
        .args(Banc::reessais_rapides())
        .args(options);
    c
}

/// La nuit telle qu'elle doit arriver : chaque fichier, ses octets.
fn attendus(banc: &Banc) -> BTreeMap<String, String> {
    empreintes_sous(&banc.nuit)
}

#[test]
fn une_nuit_arrive_octet_pour_octet_et_verifier_la_trouve_intacte() {
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    banc.fichier(&nom(1), 20_000);
    banc.fichier(&format!("sous/{}", nom(2)), 3 * MIO + 17);
    banc.fichier(&nom(3), 1);
    let out = depot_dossier(&banc, &disque, &["--json"]).finir_en(0);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(evenements(&lignes, "unite_deposee").len(), 3);
    assert_eq!(
        empreintes_sous(&disque),
        attendus(&banc),
        "octets différents"
    );
    // Relancer ne réécrit rien : tout est déjà déposé.
    let avant = std::fs::metadata(disque.join(nom(1)))
        .unwrap()
        .modified()
        .unwrap();
    depot_dossier(&banc, &disque, &[]).finir_en(0);
    assert_eq!(
        std::fs::metadata(disque.join(nom(1)))
            .unwrap()
            .modified()
            .unwrap(),
        avant
    );
    let out = banc.vigie().arg("verifier").finir_en(0);
    contient(&stdout(&out), &["3 fichiers intacts"]);
    // Le plan retient la sorte de sa destination.
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    let sorte: String = c
        .query_row("SELECT sorte FROM depot_plan", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sorte, "dossier");
}

#[test]
fn kill_9_au_milieu_puis_relance_rien_ne_manque_rien_de_double_aucun_provisoire_visible() {
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    for i in 0..12 {
        banc.fichier(&nom(i), 300_000 + i);
    }
    // 1 Mo/s : chaque fichier prend un tiers de seconde, le processus est tué au milieu.
    let mut c = depot_dossier(
        &banc,
        &disque,
        &["--json", "--debit-max", "1Mo/s", "--paralleles", "1"],
    );
    let mut enfant = Enfant::from(
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let sortie = SortieSuivie::lire(enfant.stdout.take().unwrap());
    sortie.attendre("\"unite_deposee\"");
    enfant.kill().unwrap(); // SIGKILL
    let _ = enfant.wait();
    let deja: Vec<String> = empreintes_sous(&disque)
        .into_keys()
        .filter(|n| n.ends_with(".wav") && !n.starts_with('.'))
        .collect();
    assert!(deja.len() < 12, "tout était parti avant le kill -9");
    let deja = deja.len();
    // Un provisoire laissé par un arrêt en pleine écriture, celui d'un fichier qui n'est pas
    // encore arrivé : la relance le réécrit et le renomme.
    let manquant = (0..12).map(nom).find(|n| !disque.join(n).exists()).unwrap();
    let suivant = disque.join(format!(".{manquant}.vigie-provisoire"));
    std::fs::write(&suivant, b"moitie d'un fichier").unwrap();

    let out = depot_dossier(&banc, &disque, &["--json"]).finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let ecrits = evenements(&lignes, "unite_deposee").len();
    let deja_la = evenements(&lignes, "unite_deja_a_la_destination").len();
    assert!(
        ecrits + deja_la <= 12 && ecrits <= 12 - deja,
        "réécrit ce qui était déposé : {ecrits} écrits, {deja} déjà là"
    );
    assert_eq!(
        empreintes_sous(&disque),
        attendus(&banc),
        "manquant, doublé ou autre"
    );
    assert!(!suivant.exists());
}

#[test]
fn verifier_trouve_un_fichier_abime_et_retenter_echecs_le_redepose() {
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    banc.fichier(&nom(1), 40_000);
    banc.fichier(&nom(2), 50_000);
    depot_dossier(&banc, &disque, &[]).finir_en(0);
    // Le disque abîme un fichier (même taille, un octet changé), un autre disparaît.
    let abime = disque.join(nom(1));
    let mut octets = std::fs::read(&abime).unwrap();
    octets[1000] ^= 0xff;
    std::fs::write(&abime, &octets).unwrap();
    std::fs::remove_file(disque.join(nom(2))).unwrap();

    let out = banc.vigie().arg("verifier").finir_en(1);
    let texte = texte(&out);
    contient(&texte, &[&nom(1), "somme", &nom(2), "absent du dossier"]);

    banc.vigie()
        .arg("retenter-echecs")
        .args(Banc::reessais_rapides())
        .finir_en(0);
    assert_eq!(empreintes_sous(&disque), attendus(&banc));
    banc.vigie().arg("verifier").finir_en(0);
}

#[test]
fn un_dossier_absent_est_refuse_avec_le_geste_et_rien_n_est_cree() {
    let banc = Banc::nouveau();
    banc.fichier(&nom(1), 1_000);
    let absent = banc.dossier.path().join("NAS-non-monte");
    let out = depot_dossier(&banc, &absent, &[]).finir_en(2);
    contient(&stderr(&out), &["introuvable", "branchez"]);
    assert!(
        !absent.exists(),
        "un dossier a été créé à la place du disque"
    );
}

#[cfg(unix)]
#[test]
fn un_dossier_en_lecture_seule_est_refuse_avant_le_premier_fichier() {
    use std::os::unix::fs::PermissionsExt;
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    banc.fichier(&nom(1), 1_000);
    // Aucun droit d'écriture : vu par ses droits, même par root (qui, lui, écrirait).
    std::fs::set_permissions(&disque, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = depot_dossier(&banc, &disque, &[]).finir_en(3);
    contient(&stderr(&out), &["lecture seule", "rien n'a été envoyé"]);
    std::fs::set_permissions(&disque, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(empreintes_sous(&disque).is_empty());
}

/// `--debit-max` borne aussi l'écriture dans le dossier (un NAS sur le même lien que le
/// téléphone), et le temps passé à attendre la limite ne compte pas dans le délai d'une
/// tentative : un fichier de 3 Mio à 1 Mio/s demande ~3 s, plus que `--delai-tentative 1`,
/// sans que rien n'aille mal. Compté dans le délai, chaque tentative était coupée avant la fin
/// et le fichier finissait en échec après ses tentatives.
#[test]
fn la_limite_de_debit_ne_compte_pas_dans_le_delai_d_une_copie() {
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    banc.fichier(&nom(1), 3 * MIO);
    let out = banc
        .vigie()
        .arg("depot")
        .arg(&banc.nuit)
        .arg("--vers")
        .arg(format!("dossier:{}", disque.display()))
        .mots("--debit-max 1Mio/s --delai-tentative 1 --tentatives 2 --attente-base 0.05")
        .finir_en(0);
    assert!(!texte(&out).contains("délai"), "{}", texte(&out));
    assert_eq!(empreintes_sous(&disque), attendus(&banc));
}

/// Le disque du dossier se remplit pendant le passage (ici : le provisoire du premier fichier
/// est un lien vers `/dev/full`, qui répond « plus de place » à toute écriture) : le refus
/// vaut pour tout le dossier, il arrête le passage (code 3, aucun autre fichier écrit, le
/// bilan dit quoi faire), le provisoire est retiré (c'est de la place rendue) ; une fois la
/// place faite, le conseil du bilan (`vigie retenter-echecs 1 --y-compris-definitifs`) dépose
/// toute la nuit.
#[cfg(target_os = "linux")]
#[test]
fn un_disque_plein_arrete_le_passage_puis_retenter_echecs_depose_tout() {
    let banc = Banc::nouveau();
    let disque = disque(&banc);
    // Le provisoire de chaque fichier mène au disque plein : le premier copié (l'ordre des
    // copies n'est pas celui des noms) reçoit le refus.
    let provisoires: Vec<PathBuf> = (1..=4)
        .map(|i| {
            banc.fichier(&nom(i), 20_000);
            let p = disque.join(format!(".{}.vigie-provisoire", nom(i)));
            std::os::unix::fs::symlink("/dev/full", &p).unwrap();
            p
        })
        .collect();
    let restants = || -> Vec<&PathBuf> {
        provisoires
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect()
    };
    let out = depot_dossier(&banc, &disque, &["--paralleles", "1"]).finir_en(3);
    let t = texte(&out);
    contient(&t, &["disque du dossier plein", "libérez de la place"]);
    let ecrits: Vec<String> = fichiers_sous(&disque)
        .into_iter()
        .filter(|f| !f.rsplit('/').next().unwrap_or(f).starts_with('.'))
        .collect();
    assert!(
        ecrits.is_empty(),
        "rien ne devait être écrit : {ecrits:?}\n{t}"
    );
    // Un seul fichier a tenté sa copie, et son provisoire est retiré ; les autres n'ont rien
    // tenté.
    assert_eq!(restants().len(), 3, "{:?}\n{t}", restants());
    let etat = banc.etat();
    assert_unites(&etat, &[("echec", 4), ("deposee", 0)]);
    // La place faite, le conseil du bilan, exécuté tel quel.
    for p in restants() {
        std::fs::remove_file(p).unwrap();
    }
    let conseil = "vigie retenter-echecs 1 --y-compris-definitifs";
    contient(&stdout(&out), &[conseil]);
    banc.vigie()
        .mots(conseil.trim_start_matches("vigie "))
        .finir_en(0);
    assert_eq!(empreintes_sous(&disque), attendus(&banc));
}
