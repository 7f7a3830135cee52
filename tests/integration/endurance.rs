//! L'endurance : une nuit de plus de cent fichiers, dont des multipart, sous 15 % de
//! pannes tirées (graine fixe) sur toutes les requêtes, et trois `kill -9` à des instants tirés.
//! La relance suivante, sous les mêmes pannes, finit en un seul passage, code 0 : chaque objet
//! identique octet pour octet, aucun enregistrement en double, aucun envoi multipart orphelin.
//! Contre le bac à sable (S3, et la plateforme Vigie-Chiro qui imite le vrai serveur : une
//! participation créée par `vigie`, puis une participation existante dont d'autres clients ont
//! laissé des enregistrements), et contre moto (second avis, derrière le mandataire qui injecte
//! les pannes).
//!
//! Un arrêt ne compte que s'il tombe en pleine activité : un passage fini avant son instant est
//! suivi d'une nouvelle tournée de fichiers, jusqu'au nombre d'arrêts voulu. Le banc
//! `benches/endurance.sh` pousse le même essai à 1 000 pannes et 50 arrêts
//! (`VIGIE_ENDURANCE_PANNES`, `VIGIE_ENDURANCE_ARRETS`, `VIGIE_ENDURANCE_GRAINE`,
//! `VIGIE_ENDURANCE_TENTATIVES`) et recopie la
//! ligne `ENDURANCE …` de chaque essai dans `FIABILITE.md`.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::commun::moto::{self, MandatairePannes};
use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Pannes};

/// Fichiers d'une tournée : des petits, et quelques-uns de deux parties.
const PETITS: usize = 104;
const MULTIPART: usize = 3;

/// Les réglages de l'essai, à l'échelle de la CI ou du banc.
struct Reglages {
    arrets: usize,
    pannes_min: u64,
    graine: u64,
}

impl Reglages {
    fn depuis_env(graine: u64) -> Reglages {
        let nombre = |nom: &str, defaut: u64| {
            std::env::var(nom)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(defaut)
        };
        Reglages {
            arrets: nombre("VIGIE_ENDURANCE_ARRETS", 3) as usize,
            pannes_min: nombre("VIGIE_ENDURANCE_PANNES", 0),
            graine: nombre("VIGIE_ENDURANCE_GRAINE", graine),
        }
    }
}

/// Les options des passages : les réglages courts du banc, un délai de tentative large (un
/// assemblage multipart lent sur une machine chargée n'est pas une panne injectée), et dix
/// tentatives par étape au lieu de sept. Une étape partage son budget entre l'écriture et ses
/// relectures : sous 15 % de pannes tirées sur **toutes** les requêtes, sept tentatives laissent
/// à l'une des quelque 300 étapes d'une nuit Vigie-Chiro une chance sur quelques dizaines de
/// s'épuiser — ce n'est plus un accroc isolé mais une panne qui dure, le rôle de
/// retenter-echecs. Dix la rendent négligeable (de l'ordre de 1 sur 10 000 par nuit). Le banc
/// garde les sept par défaut (`VIGIE_ENDURANCE_TENTATIVES=7`).
fn options() -> Vec<String> {
    let mut o = Banc::options_rapides_sauf("--delai-tentative", "20");
    let tentatives =
        std::env::var("VIGIE_ENDURANCE_TENTATIVES").unwrap_or_else(|_| "10".to_owned());
    o.extend(["--tentatives".to_owned(), tentatives]);
    o
}

/// Ajoute la tournée `n` à la nuit : des noms uniques d'une tournée à l'autre (la plateforme
/// refuse deux fichiers de même nom), dans un sous-dossier par tournée.
fn tournee(banc: &Banc, n: usize, alea: &mut Alea) -> Vec<(String, usize)> {
    let mut fichiers = Vec::new();
    for k in 0..PETITS + MULTIPART {
        let i = 1 + n * (PETITS + MULTIPART) + k;
        assert!(i < 10_000, "trop de tournées pour les noms du protocole");
        let taille = if k < MULTIPART {
            5 * MIO + alea.entre(1, 400_000) as usize
        } else {
            alea.entre(2_000, 40_000) as usize
        };
        let chemin = format!("tournee-{n:02}/{}", nom(i));
        banc.fichier(&chemin, taille);
        fichiers.push((chemin, taille));
    }
    fichiers
}

/// Ce que l'essai a vu.
struct Bilan {
    tues: usize,
    passages: usize,
    fichiers: Vec<(String, usize)>,
}

/// Lance des passages et en tue `arrets` (SIGKILL) en pleine activité, à des instants tirés,
/// tant que les pannes injectées n'atteignent pas `pannes_min` ; puis la relance, sous les
/// mêmes pannes, doit finir en un seul passage, code 0. `avant_tournee` prépare la
/// destination pour les fichiers d'une tournée, avant tout passage qui les voit.
fn endurer(
    banc: &Banc,
    reglages: &Reglages,
    depot: impl Fn() -> Command,
    pannes_injectees: impl Fn() -> u64,
    avant_tournee: impl Fn(&[(String, usize)]),
) -> Bilan {
    let mut alea = Alea::graine(reglages.graine);
    let mut fichiers = tournee(banc, 0, &mut alea);
    avant_tournee(&fichiers);
    let (mut tues, mut passages, mut tournees) = (0, 0, 1);
    while tues < reglages.arrets || pannes_injectees() < reglages.pannes_min {
        let instant = Duration::from_millis(alea.entre(200, 1500));
        let mut enfant = banc.lancer(depot());
        passages += 1;
        let debut = Instant::now();
        while debut.elapsed() < instant && enfant.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(10));
        }
        if enfant.try_wait().unwrap().is_none() {
            enfant.kill().unwrap(); // SIGKILL : ni Ctrl-C, ni nettoyage
            tues += 1;
            let _ = enfant.wait();
        } else {
            // Fini avant l'arrêt : une nouvelle tournée de fichiers pour le suivant.
            let out = enfant.wait_with_output().unwrap();
            assert!(matches!(code(&out), 0 | 1), "{}", texte(&out));
            let nouveaux = tournee(banc, tournees, &mut alea);
            avant_tournee(&nouveaux);
            fichiers.extend(nouveaux);
            tournees += 1;
        }
    }
    let out = depot().output().unwrap();
    assert_eq!(
        code(&out),
        0,
        "la relance après {tues} arrêts ne finit pas en un seul passage : {}",
        texte(&out)
    );
    Bilan {
        tues,
        passages,
        fichiers,
    }
}

/// La ligne que recopie `benches/endurance.sh`.
fn annoncer(essai: &str, b: &Bilan, pannes: u64, requetes: u64, debut: Instant) {
    let multipart = b.fichiers.iter().filter(|(_, t)| *t > 5 * MIO).count();
    eprintln!(
        "ENDURANCE | {essai} | {} fichiers dont {multipart} multipart | {pannes} pannes sur {requetes} requêtes ({:.1} %) | {} kill -9 en {} passages | relance : code 0, tout identique, ni doublon ni orphelin | {:.0} s",
        b.fichiers.len(),
        pannes as f64 * 100.0 / requetes.max(1) as f64,
        b.tues,
        b.passages,
        debut.elapsed().as_secs_f64()
    );
}

fn programmer(pannes: &Pannes, graine: u64) {
    pannes.graine(graine);
    for r in pannes_melees(0.15) {
        pannes.programmer(r);
    }
}

#[test]
fn endurance_s3_quinze_pour_cent_de_pannes_et_trois_kill_9() {
    let debut = Instant::now();
    let banc = Banc::nouveau();
    let reglages = Reglages::depuis_env(0xE5D0_0003);
    programmer(banc.bac().pannes(), reglages.graine);
    let depot = || {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .arg("--vers")
            .arg(format!("s3://{COMPARTIMENT}/{PREFIXE}"))
            .arg("--endpoint-url")
            .arg(banc.bac().endpoint())
            .args(options());
        c
    };
    let c = banc.bac().compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), |_| {});
    banc.verifier_identiques(&b.fichiers);
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, PREFIXE).len(),
        b.fichiers.len(),
        "objet en trop"
    );
    assert_eq!(
        banc.bac().envois_en_cours(COMPARTIMENT),
        Vec::<(String, String)>::new(),
        "envoi multipart orphelin"
    );
    for (n, t) in &b.fichiers {
        if *t > 5 * MIO {
            let assemblages = c.traitees_cle(Operation::CompleteMultipartUpload, &banc.cle(n));
            let cle = banc.cle(n);
            assert_eq!(
                assemblages,
                1,
                "{n} assemblé {assemblages} fois ; décisions :\n{}",
                banc.decisions()
                    .iter()
                    .filter(|d| d.cible.contains(&cle))
                    .map(|d| format!("{d:?}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    let etat = banc.etat();
    assert_eq!(etat["unites"]["deposee"], b.fichiers.len(), "{etat}");
    annoncer(
        "S3, bac à sable",
        &b,
        c.pannes_injectees(),
        c.requetes_total(),
        debut,
    );
}

#[test]
fn endurance_vigiechiro_quinze_pour_cent_de_pannes_et_trois_kill_9() {
    let debut = Instant::now();
    let banc = Banc::nouveau();
    let reglages = Reglages::depuis_env(0xE5D0_0007);
    programmer(banc.bac().pannes(), reglages.graine);
    // La participation est créée par vigie (POST non idempotent) : ni les pannes ni les
    // arrêts ne doivent en laisser deux.
    let depot = || {
        depot_vigiechiro(
            &banc,
            &[
                "--site",
                SITE,
                "--point",
                "B2",
                "--debut",
                "2026-06-21T21:30:00Z",
                "--fin",
                "2026-06-22T06:00:00Z",
            ],
        )
    };
    let c = banc.bac().compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), |_| {});
    let creees: Vec<_> = banc
        .bac()
        .participations(SITE)
        .into_iter()
        .filter(|p| p.point.as_deref() == Some("B2"))
        .collect();
    assert_eq!(creees.len(), 1, "participations en double : {creees:?}");
    verifier_plateforme(&banc, &creees[0].id, &b.fichiers);
    annoncer(
        "Vigie-Chiro, bac à sable",
        &b,
        c.pannes_injectees(),
        c.requetes_total(),
        debut,
    );
}

/// Une participation existante (relue avant chaque passage), dont d'autres clients ont laissé
/// des enregistrements non finalisés : un envoi du site web interrompu (repris tel quel), et
/// un envoi en plusieurs parties abandonné pour un fichier qui part en un PUT (supprimé puis
/// redéclaré). Sous les mêmes pannes et les mêmes arrêts.
#[test]
fn endurance_vigiechiro_enregistrements_laisses_par_d_autres_clients() {
    let debut = Instant::now();
    let banc = Banc::nouveau();
    let reglages = Reglages::depuis_env(0xE5D0_000D);
    let depot = || depot_vigiechiro(&banc, &["--participation", PARTICIPATION]);
    // Un petit fichier sur dix a un enregistrement laissé, d'une sorte puis de l'autre. Les
    // pannes ne frappent que vigie : elles sont levées le temps que les autres clients
    // déclarent, puis reprennent (d'une graine à l'autre, tournée après tournée).
    let laisses = std::sync::Mutex::new(Vec::new());
    let tournees = std::sync::atomic::AtomicU64::new(0);
    let pannes = banc.bac().pannes();
    let laisser = |fichiers: &[(String, usize)]| {
        pannes.effacer();
        let petits = fichiers.iter().filter(|(_, t)| *t <= 5 * MIO);
        for (k, (chemin, _)) in petits.step_by(10).enumerate() {
            let titre = chemin.rsplit('/').next().unwrap();
            let multipart = k % 2 == 1;
            let id = if multipart {
                banc.envoi_multipart_abandonne(PARTICIPATION, titre)
            } else {
                banc.envoi_du_site_web_interrompu(PARTICIPATION, titre)
            };
            laisses
                .lock()
                .unwrap()
                .push((titre.to_owned(), id, multipart));
        }
        let n = tournees.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        programmer(pannes, reglages.graine.wrapping_add(n));
    };
    let c = banc.bac().compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), laisser);
    verifier_plateforme(&banc, PARTICIPATION, &b.fichiers);
    let laisses = laisses.into_inner().unwrap();
    let multipart = laisses.iter().filter(|(_, _, m)| *m).count() as u64;
    assert!(multipart > 0);
    // Chaque passage a relu la participation avant d'envoyer ; chaque enregistrement multipart
    // laissé a été supprimé au moins une fois.
    assert!(c.requetes(Operation::ApiLireParticipation) >= 1);
    assert!(c.requetes(Operation::ApiAbandonner) >= multipart);
    for (titre, id, multipart) in &laisses {
        let f = banc.bac().fichier(PARTICIPATION, titre).unwrap();
        if *multipart {
            assert_ne!(
                &f.id, id,
                "{titre} : l'enregistrement multipart laissé est resté"
            );
        } else {
            assert_eq!(
                &f.id, id,
                "{titre} : l'envoi du site web n'a pas été repris"
            );
        }
        assert!(!f.multipart, "{titre}");
    }
    annoncer(
        "Vigie-Chiro, bac à sable, enregistrements laissés",
        &b,
        c.pannes_injectees(),
        c.requetes_total(),
        debut,
    );
}

/// `vigie depot` de la nuit vers la plateforme du bac à sable, la participation désignée par
/// `participation` (`--participation ID`, ou `--site … --fin …`).
fn depot_vigiechiro(banc: &Banc, participation: &[&str]) -> Command {
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(participation)
        .arg("--api")
        .arg(banc.bac().api())
        .args(options());
    c
}

/// Ce que la plateforme doit tenir après l'endurance : un enregistrement par fichier, chacun
/// finalisé et identique, aucun envoi multipart orphelin ni resté ouvert.
fn verifier_plateforme(banc: &Banc, participation: &str, fichiers: &[(String, usize)]) {
    let enregistres = banc.bac().fichiers();
    assert_eq!(
        enregistres.len(),
        fichiers.len(),
        "enregistrement en double"
    );
    for (chemin, taille) in fichiers {
        let titre = chemin.rsplit('/').next().unwrap();
        let f = banc.bac().fichier(participation, titre).unwrap();
        assert!(f.disponible, "{titre} non finalisé");
        assert!(
            banc.objet_plateforme(participation, titre) == contenu(chemin, *taille),
            "{titre} : contenu différent"
        );
    }
    assert!(banc.bac().envois_orphelins().is_empty(), "envoi orphelin");
    assert!(
        banc.bac()
            .envois_en_cours(COMPARTIMENT_PLATEFORME)
            .is_empty(),
        "envoi multipart resté ouvert"
    );
}

#[test]
fn endurance_s3_contre_moto_second_avis() {
    let Some(serveur) = moto::moto() else {
        return;
    };
    let debut = Instant::now();
    let banc = Banc::nouveau();
    let reglages = Reglages::depuis_env(0xE5D0_000B);
    let compartiment = "endurance";
    let client = serveur.client();
    banc.rt
        .block_on(client.create_bucket().bucket(compartiment).send())
        .unwrap();
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
    programmer(&mandataire.pannes, reglages.graine);
    let depot = || {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .arg("--vers")
            .arg(format!("s3://{compartiment}/{PREFIXE}"))
            .arg("--endpoint-url")
            .arg(mandataire.endpoint())
            .args(options());
        c
    };
    let b = endurer(
        &banc,
        &reglages,
        depot,
        || mandataire.pannes_injectees(),
        |_| {},
    );
    let objets = banc.rt.block_on(moto::objets(&client, compartiment));
    assert_eq!(objets.len(), b.fichiers.len(), "objet en trop ou manquant");
    for (chemin, taille) in &b.fichiers {
        let cle = format!("{PREFIXE}/{chemin}");
        let objet = objets.iter().find(|(c, _)| *c == cle);
        assert!(
            objet.is_some_and(|(_, o)| *o == contenu(chemin, *taille)),
            "{cle} absent ou différent"
        );
    }
    let ouverts = banc
        .rt
        .block_on(moto::envois_ouverts(&client, compartiment));
    assert!(
        ouverts.iter().all(|(_, parties)| *parties == 0),
        "envoi multipart orphelin qui garde des parties : {ouverts:?}"
    );
    annoncer(
        "S3, moto",
        &b,
        mandataire.pannes_injectees(),
        mandataire.requetes(),
        debut,
    );
}
