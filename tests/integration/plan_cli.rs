//! Le plan par la ligne de commande : simulation, `vigie plans`, `vigie etat`, verrou, noms,
//! entrées invalides. Aucun envoi réseau ici.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::commun::*;

fn simulation(banc: &Banc) -> Command {
    let mut c = banc.vigie();
    c.arg("depot")
        .arg(&banc.nuit)
        .mots("--vers s3://nuits/essai --simulation");
    c
}

/// La simulation montre ce qui partirait sans rien envoyer, et ne laisse pas derrière elle un
/// plan vide dans `vigie plans` ; le dépôt crée le plan, que `etat` et `plans` décrivent.
#[test]
fn simulation_ne_laisse_pas_de_plan_puis_etat_et_plans() {
    let banc = Banc::avec_fichier("a.wav", 100);
    banc.fichier("sous/b.ta", 50);
    banc.fichier("notes.txt", 10);
    let out = simulation(&banc).finir_en(0);
    assert!(!banc.base.exists(), "la simulation a créé la base");
    let stdout = String::from_utf8_lossy(&out.stdout);
    contient(&stdout, &["a.wav → essai/a.wav", "rien n'a été envoyé"]);
    assert_eq!(banc.compteurs().octets_recus(), 0);
    let out = banc.vigie().arg("plans").sortie();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("Aucun plan"),
        "la simulation a laissé un plan : {}",
        texte(&out)
    );

    banc.depot().finir_en(0);
    let etat = banc.etat();
    assert_eq!(etat["plan"], 1);
    assert_eq!(etat["destination"], banc.etat()["destination"]);
    assert_eq!(etat["unites"]["deposee"], 2);
    assert_eq!(etat["octets_total"], 150);
    assert_eq!(etat["octets_deposes"], 150);
    for cle in ["a_deposer", "en_cours", "deposee", "echec", "incertaine"] {
        assert!(etat["unites"].get(cle).is_some(), "{cle} absent de {etat}");
    }

    let out = banc.vigie().arg("plans").finir_en(0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2/2") && stdout.contains("s3://nuits/"),
        "{stdout}"
    );
    let out = banc.vigie().mots("plans --json").sortie();
    let ligne: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ligne["unites"], 2);

    // Une simulation sur un plan existant le reprend, et le garde tel quel : le fichier ajouté
    // depuis est dans ce qui partirait, pas dans le plan (avant, elle le planifiait).
    banc.fichier("c.wav", 70);
    let mut c = banc.depot();
    let out = c.arg("--simulation").finir_en(0);
    out.stderr_contient(&["Plan 1 repris"]);
    out.stdout_contient(&["c.wav (70 o)"]);
    let etat = banc.etat();
    assert_eq!(etat["plan"], 1);
    assert_eq!(
        etat["octets_total"], 150,
        "la simulation a écrit dans le plan : {etat}"
    );
    assert_eq!(etat["unites"]["a_deposer"], 0, "{etat}");
}

#[test]
fn etat_sans_plan_et_plan_inconnu_disent_quoi_faire() {
    let banc = Banc::nouveau();
    let out = banc.vigie().arg("etat").finir_en(2);
    out.stderr_contient(&["vigie depot"]);
    banc.fichier("a.wav", 1);
    banc.depot().sortie();
    let out = banc.vigie().mots("etat 42").finir_en(2);
    out.stderr_contient(&["vigie plans"]);
}

#[test]
fn dossier_vide_ou_introuvable_code_2() {
    let banc = Banc::avec_fichier("notes.txt", 10);
    let out = simulation(&banc).finir_en(2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("aucun enregistrement"));
    let out = banc
        .vigie()
        .mots("depot /nulle/part --vers s3://nuits/x --simulation")
        .finir_en(2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("introuvable"));
}

#[test]
fn destination_invalide_ou_http_distant_refuses() {
    let banc = Banc::avec_fichier("a.wav", 1);
    for (vers, extra, attendu) in [
        ("nuits/x", None, "s3://"),
        ("s3://Nuits", None, "compartiment"),
        ("s3://nuits/../x", None, "préfixe"),
        ("s3://nuits/x", Some("http://s3.exemple.fr"), "https"),
    ] {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .args(["--vers", vers, "--simulation"]);
        if let Some(e) = extra {
            c.args(["--endpoint-url", e]);
        }
        let out = c.sortie();
        assert_eq!(code(&out), 2, "{vers} : {}", texte(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(attendu),
            "{vers} : {}",
            texte(&out)
        );
    }
}

#[test]
fn base_d_une_version_future_refusee_sans_modification() {
    let banc = Banc::nouveau();
    std::fs::create_dir_all(banc.base.parent().unwrap()).unwrap();
    {
        let c = rusqlite::Connection::open(&banc.base).unwrap();
        c.pragma_update(None, "user_version", 999).unwrap();
    }
    let avant = std::fs::read(&banc.base).unwrap();
    let out = banc.vigie().arg("plans").finir_en(2);
    out.stderr_contient(&["plus récente"]);
    assert_eq!(std::fs::read(&banc.base).unwrap(), avant);
}

#[test]
fn base_corrompue_refusee_sans_modification() {
    let banc = Banc::nouveau();
    std::fs::create_dir_all(banc.base.parent().unwrap()).unwrap();
    std::fs::write(&banc.base, vec![0x42u8; 8192]).unwrap();
    let out = banc.vigie().arg("plans").finir_en(2);
    out.stderr_contient(&["n'a pas été modifiée"]);
    assert_eq!(std::fs::read(&banc.base).unwrap(), vec![0x42u8; 8192]);
}

#[test]
fn deux_vigie_sur_le_meme_plan_le_second_sort_en_4_sur_deux_plans_les_deux_avancent() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 2 * MIO);
    // Les PUT du premier plan sont retenus : le premier `vigie` tient son plan tant que l'essai
    // n'a pas relâché ses requêtes (celles de l'autre plan, sous un autre préfixe, passent).
    let relache = vigie_bac_a_sable::Relache::nouvelle();
    banc.panne(retenir_a_partir_de(
        vigie_bac_a_sable::Operation::PutObject,
        &banc.cle(nom),
        1,
        &relache,
    ));
    let premier = banc.lancer(banc.depot());
    banc.attendre("le premier envoie", |b| {
        b.compteurs()
            .requetes(vigie_bac_a_sable::Operation::PutObject)
            >= 1
    });
    let out = banc.depot().finir_en(4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    contient(&stderr, &[&format!("processus {}", premier.id())]);

    // Un autre plan (autre destination) de la même base avance en même temps.
    let mut autre = banc.vigie();
    autre
        .arg("depot")
        .arg(&banc.nuit)
        .arg("--vers")
        .arg(format!("s3://{COMPARTIMENT}/autre"))
        .arg("--endpoint-url")
        .arg(banc.bac().endpoint())
        .args(Banc::options_rapides());
    autre.finir_en(0);
    relache.relacher();
    let out = attendre_fin(premier, Duration::from_secs(30));
    assert_eq!(code(&out), 0, "{}", texte(&out));
}

#[cfg(unix)]
#[test]
fn fichier_illisible_et_nom_non_utf8_listes_ensemble_rien_n_est_envoye() {
    use std::os::unix::ffi::OsStrExt;
    let banc = Banc::avec_fichier("a.wav", 10);
    std::fs::write(
        banc.nuit.join(std::ffi::OsStr::from_bytes(b"b\xe9.wav")),
        b"x",
    )
    .unwrap();
    std::fs::write(banc.nuit.join("c\u{1}.wav"), b"x").unwrap();
    let out = simulation(&banc).finir_en(2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    contient(&stderr, &["UTF-8", "contrôle", "2 fichiers à corriger"]);
    // Rien n'a été planifié.
    let out = banc.vigie().arg("plans").sortie();
    out.stdout_contient(&["Aucun plan"]);
}

#[test]
fn fichier_modifie_apres_depot_signale_et_non_renvoye_sans_option() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    let chemin = banc.fichier(nom, 1000);
    banc.depot().finir_en(0);
    std::fs::write(&chemin, vec![1u8; 1200]).unwrap();
    let recus = banc.compteurs().octets_recus();
    let out = banc.depot().finir_en(0);
    out.stderr_contient(&["--redeposer-modifies"]);
    assert_eq!(banc.compteurs().octets_recus(), recus);
    banc.depot().arg("--redeposer-modifies").finir_en(0);
    assert_eq!(banc.compteurs().octets_recus(), recus + 1200);
}

/// Un `kill -9` à n'importe quel moment de la planification laisse la base sans plan ou avec le
/// plan complet, jamais à moitié.
///
/// Sans délai fixe : chaque essai attend que le processus ait créé sa base (une machine chargée
/// peut mettre des centaines de millisecondes à le lancer), puis le tue après un écart qui double
/// d'un essai à l'autre (0, 1, 2, 4… 512 ms). Une base tuée avant ses migrations n'a pas encore
/// ses tables : rien à vérifier. Le test continue jusqu'à avoir vérifié `VERIFICATIONS_MIN` bases
/// dont les tables existaient ; les écarts croissants garantissent qu'il y arrive (au pire le
/// processus a fini sa planification avant d'être tué), au lieu de passer sans rien affirmer.
#[test]
fn kill_9_pendant_la_planification_laisse_aucun_plan_ou_un_plan_complet() {
    let banc = Banc::nouveau();
    const N: usize = 4000;
    const VERIFICATIONS_MIN: usize = 6;
    const ESSAIS_MAX: usize = 40;
    const ECART_MAX: Duration = Duration::from_millis(512);
    for d in 0..10 {
        std::fs::create_dir_all(banc.nuit.join(format!("d{d}"))).unwrap();
    }
    for i in 0..N {
        let p = banc.nuit.join(format!(
            "d{}/Car640139-2026-Pass1-A1-OB-1_20260621_22{:04}_000.wav",
            i % 10,
            i
        ));
        std::fs::write(p, b"RIFF").unwrap();
    }
    let mut ecart = Duration::ZERO;
    let (mut essais, mut verifiees, mut tues_en_route) = (0, 0, 0);
    while verifiees < VERIFICATIONS_MIN {
        essais += 1;
        assert!(
            essais <= ESSAIS_MAX,
            "{verifiees} base(s) vérifiée(s) seulement en {ESSAIS_MAX} essais"
        );
        let _ = std::fs::remove_file(&banc.base);
        let _ = std::fs::remove_file(banc.base.with_extension("sqlite-wal"));
        let _ = std::fs::remove_file(banc.base.with_extension("sqlite-shm"));
        // Un vrai dépôt : une simulation n'écrit plus rien dans la base.
        let mut enfant = banc.lancer(banc.depot());
        // Le garde-fou de 60 s ne mesure rien : il borne seulement un essai qui pendrait.
        let limite = Instant::now() + Duration::from_secs(60);
        while !banc.base.exists() {
            let fini = enfant.try_wait().unwrap();
            assert!(
                fini.is_none(),
                "vigie a fini ({fini:?}) sans créer sa base {}",
                banc.base.display()
            );
            assert!(Instant::now() < limite, "pas de base après 60 s");
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(ecart);
        if enfant.try_wait().unwrap().is_none() {
            tues_en_route += 1;
        }
        let _ = enfant.kill();
        let _ = enfant.wait();
        let c = rusqlite::Connection::open(&banc.base).unwrap();
        let compter = |table: &str| {
            c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
                r.get::<_, i64>(0)
            })
        };
        if let (Ok(plans), Ok(unites)) = (compter("depot_plan"), compter("depot_unite")) {
            assert!(
                (plans == 0 && unites == 0) || (plans == 1 && unites == N as i64),
                "après kill -9 à {ecart:?} de la création de la base : {plans} plan(s), {unites} unité(s)"
            );
            verifiees += 1;
        }
        ecart = (ecart * 2).max(Duration::from_millis(1)).min(ECART_MAX);
    }
    eprintln!(
        "{essais} kill -9, dont {tues_en_route} en pleine course ; {verifiees} bases vérifiées"
    );
}

#[test]
fn un_tube_ferme_n_est_pas_une_erreur() {
    let banc = Banc::avec_fichier("a.wav", 100);
    banc.depot().sortie();
    for commande in [vec!["etat"], vec!["plans"], vec!["etat", "--json"]] {
        // La lecture du tube est fermée avant que vigie n'écrive : toute écriture échoue (EPIPE).
        let (lecteur, ecrivain) = std::io::pipe().unwrap();
        drop(lecteur);
        let out = banc
            .vigie()
            .args(&commande)
            .stdout(ecrivain)
            .stderr(std::process::Stdio::piped())
            .sortie();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(&out), 0, "{commande:?} : {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("erreur"),
            "{commande:?} : {stderr}"
        );
    }
}
