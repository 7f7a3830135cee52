//! L'endurance : des nuits sous 15 % de pannes mêlées tirées à graine fixe sur toutes les
//! requêtes (coupure en plein corps, 500, 503 et 429 avec et sans Retry-After, réponse perdue
//! après traitement, blocage court), jamais deux fois de suite sur la même requête : la
//! tentative suivante d'une requête ratée passe (voir [`RELANCES_MAX`]).
//!
//! D'abord **sans arrêt**, un envoi à la fois (`--paralleles 1`, les tirages reproductibles à
//! ordre de requêtes égal) : tout finit déposé en un seul passage, sans doublon, et le journal
//! des décisions explique chaque réessai (une décision par tentative ratée, avec son statut ou
//! son détail, l'attente retenue, ou la raison de l'arrêt).
//!
//! Puis **avec trois `kill -9`** à des instants tirés, une nuit de plus de cent fichiers dont
//! des multipart : la relance suivante, sous les mêmes pannes, finit en code 0 en au plus
//! trois passages (un échec transitoire que les réessais n'ont pas rattrapé repart au passage
//! suivant, voir `RELANCES_MAX`) : chaque objet identique octet pour octet, aucun enregistrement en double, aucun envoi
//! multipart orphelin. Contre le bac à sable (S3, et la plateforme Vigie-Chiro qui imite le
//! vrai serveur : une participation créée par `vigie`, puis une participation existante dont
//! d'autres clients ont laissé des enregistrements), et contre moto (second avis, derrière le
//! mandataire qui injecte les pannes).
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

/// Les options des passages : les réglages du banc, aux délais larges (un assemblage
/// multipart lent sur une machine chargée n'est pas une panne injectée ; le blocage injecté,
/// lui, finit par une coupure du serveur). Les tentatives restent celles par défaut (sept par
/// étape) ; `VIGIE_ENDURANCE_TENTATIVES` les change pour un banc.
fn options() -> Vec<String> {
    let mut o = Banc::options_rapides();
    if let Ok(tentatives) = std::env::var("VIGIE_ENDURANCE_TENTATIVES") {
        o.extend(["--tentatives".to_owned(), tentatives]);
    }
    o
}

/// Les passages de la relance finale, au plus.
///
/// Sous 15 % de pannes sur **toutes** les requêtes, une étape (une écriture non rejouable et
/// les relectures qui lèvent son issue inconnue partagent un budget, voir `reessai::Etape`)
/// pouvait épuiser ses tentatives : vu avec sept tentatives, une finalisation
/// `POST /fichiers/{id}` partie trois fois, ses quatre relectures ayant pris le reste, une fois
/// sur quelques dizaines de relances. L'essai dépendait du tirage. Désormais le bac à sable ne
/// frappe jamais deux fois de suite la même requête (`Pannes::jamais_plus_de_suite(1)`) : une
/// étape dont chaque requête porte sa clé coûte alors au plus deux tentatives par requête
/// distincte (finalisation Vigie-Chiro : 4 ; `CompleteMultipartUpload`, relu par `HeadObject`
/// et `ListParts` : 6), sous les sept par défaut, quel que soit le tirage. Reste une requête
/// sans clé partagée par toutes les unités : `ListMultipartUploads`, la relecture d'une
/// ouverture S3 sans réponse, que d'autres unités peuvent intercaler entre deux pannes. D'où
/// la marge : ce que les réessais n'auraient pas rattrapé est un échec transitoire (code 1)
/// que le passage suivant reprend, comme toute relance, sans refus définitif.
const RELANCES_MAX: usize = 3;

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
    /// Les passages de la relance finale (au plus [`RELANCES_MAX`]).
    relances: usize,
    fichiers: Vec<(String, usize)>,
}

/// Lance des passages et en tue `arrets` (SIGKILL) en pleine activité, à des instants tirés,
/// tant que les pannes injectées n'atteignent pas `pannes_min` ; puis la relance, sous les
/// mêmes pannes, doit finir en code 0 en au plus [`RELANCES_MAX`] passages. `avant_tournee` prépare la
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
    let mut relances = 0;
    let out = loop {
        let out = depot().sortie();
        relances += 1;
        if code(&out) != 1 || relances == RELANCES_MAX {
            break out;
        }
        // Un passage qui finit en 1 ne laisse que des échecs transitoires : aucun refus.
        let definitifs = banc.unites("definitif");
        assert!(
            definitifs.is_empty(),
            "refus définitifs après la relance {relances} : {definitifs:?}\n{}",
            texte(&out)
        );
    };
    assert_eq!(
        code(&out),
        0,
        "la relance après {tues} arrêts ne finit pas en {RELANCES_MAX} passages : {}\n\
         décisions des unités en échec :\n{}",
        texte(&out),
        decisions_des_echecs(banc)
    );
    Bilan {
        tues,
        passages,
        relances,
        fichiers,
    }
}

/// Le journal des décisions des unités en échec, pour dire quelle émission a usé les
/// tentatives d'une étape (une écriture sans réponse et ses relectures partagent le même
/// compte).
fn decisions_des_echecs(banc: &Banc) -> String {
    let base = rusqlite::Connection::open(&banc.base).unwrap();
    let mut requete = base
        .prepare("SELECT id FROM depot_unite WHERE etat = 'echec'")
        .unwrap();
    let echecs: Vec<i64> = requete
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|id| id.unwrap())
        .collect();
    banc.decisions()
        .iter()
        .filter(|d| d.unite.is_some_and(|u| echecs.contains(&u)))
        .map(|d| format!("{d:?}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// La ligne que recopie `benches/endurance.sh`.
fn annoncer(essai: &str, b: &Bilan, pannes: u64, requetes: u64, debut: Instant) {
    let multipart = b.fichiers.iter().filter(|(_, t)| *t > 5 * MIO).count();
    eprintln!(
        "ENDURANCE | {essai} | {} fichiers dont {multipart} multipart | {pannes} pannes sur {requetes} requêtes ({:.1} %) | {} kill -9 en {} passages | relance : code 0 en {} passage(s), tout identique, ni doublon ni orphelin | {:.0} s",
        b.fichiers.len(),
        pannes as f64 * 100.0 / requetes.max(1) as f64,
        b.tues,
        b.passages,
        b.relances,
        debut.elapsed().as_secs_f64()
    );
}

/// Les pannes mêlées, à graine fixe, jamais deux fois de suite sur la même requête (voir
/// [`RELANCES_MAX`]).
fn programmer(pannes: &Pannes, graine: u64) {
    pannes.graine(graine);
    pannes.jamais_plus_de_suite(1);
    for r in pannes_melees(0.15) {
        pannes.programmer(r);
    }
}

// ---------------------------------------------- sans arrêt : chaque réessai expliqué

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

/// Les options d'un passage sans arrêt : les réglages du banc, aux délais larges (sur une
/// machine lente, un envoi qui dépasserait un délai court serait une tentative ratée sans
/// panne injectée, et fausserait le compte « une décision par panne »), un envoi à la fois,
/// jamais de pause réseau, et le journal `--journal`.
fn options_sans_arret(journal: &std::path::Path) -> Vec<String> {
    let mut o = Banc::options_rapides();
    o.extend(["--paralleles", "1", "--echecs-reseau", "1000", "--journal"].map(String::from));
    o.push(journal.to_str().unwrap().to_owned());
    o
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

/// Un passage sous pannes mêlées : aucun accroc isolé ne lui coûte (code 0, sans
/// retenter-echecs), toutes les sortes de pannes sont tombées, sur 8 à 25 % des requêtes.
fn toutes_les_pannes_tombees(banc: &Banc, out: &std::process::Output, destination: &str) {
    assert_eq!(code(out), 0, "{}", texte(out));
    let c = banc.compteurs();
    eprintln!(
        "{destination} : un passage, {} pannes, {} requêtes ; {:?}",
        c.pannes_injectees(),
        c.requetes_total(),
        sortes(banc)
    );
    let tout: std::collections::BTreeSet<String> =
        TOUTES_LES_SORTES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        sortes(banc),
        tout,
        "toutes les sortes de pannes ne sont pas tombées"
    );
    let part = c.pannes_injectees() as f64 / c.requetes_total() as f64;
    assert!(
        (0.08..=0.25).contains(&part),
        "{:.1} % de pannes seulement",
        part * 100.0
    );
}

/// Une décision par tentative ratée : toutes les requêtes de vigie passent par la politique,
/// et chaque panne injectée a fait rater une tentative. Rend le nombre de rejeux.
fn chaque_panne_une_tentative_ratee(banc: &Banc) -> usize {
    let (ratees, rejeux) = chaque_reessai_explique(banc);
    assert_eq!(
        ratees as u64,
        banc.compteurs().pannes_injectees(),
        "tentatives ratées journalisées ≠ pannes injectées"
    );
    rejeux
}

#[test]
fn quinze_pour_cent_de_pannes_melees_nuit_s3_tout_depose_sans_doublon_et_explique() {
    let banc = Banc::nouveau();
    let fichiers = nuit(&banc, 90);
    // Graine choisie pour que toutes les sortes de pannes tombent.
    programmer(banc.bac().pannes(), 5);
    let journal = banc.dossier.path().join("vigie.jsonl");
    let out = banc.depot_avec(&options_sans_arret(&journal)).sortie();
    toutes_les_pannes_tombees(&banc, &out, "S3");
    // Tout est déposé, une fois.
    verifier_s3(&banc, &fichiers);
    let rejeux = chaque_panne_une_tentative_ratee(&banc);
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
    let out = banc.vigie().arg("verifier").finir_en(0);
    out.stdout_contient(&["102 fichiers intacts"]);
}

#[test]
fn quinze_pour_cent_de_pannes_melees_nuit_vigiechiro_tout_disponible_sans_doublon() {
    let banc = Banc::nouveau();
    let fichiers = nuit(&banc, 30);
    // Graine choisie pour que toutes les sortes de pannes tombent.
    programmer(banc.bac().pannes(), 7);
    let journal = banc.dossier.path().join("vigie.jsonl");
    let out = banc
        .depot_plateforme_avec(&options_sans_arret(&journal))
        .sortie();
    toutes_les_pannes_tombees(&banc, &out, "Vigie-Chiro");
    banc.verifier_sur_la_plateforme(PARTICIPATION, &fichiers);
    chaque_panne_une_tentative_ratee(&banc);
}

// --------------------------------------------------- trois kill -9, puis la relance

#[test]
fn endurance_s3_quinze_pour_cent_de_pannes_et_trois_kill_9() {
    let debut = Instant::now();
    let banc = Banc::nouveau();
    let reglages = Reglages::depuis_env(0xE5D0_0003);
    programmer(banc.bac().pannes(), reglages.graine);
    let depot = || banc.depot_avec(&options());
    let c = banc.compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), |_| {});
    verifier_s3(&banc, &b.fichiers);
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
                "--site", SITE, "--point", "B2", "--debut", DEBUT_NUIT, "--fin", FIN_NUIT,
            ],
        )
    };
    let c = banc.compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), |_| {});
    banc.verifier_sur_la_plateforme(&banc.participation_creee(), &b.fichiers);
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
    let c = banc.compteurs();
    let b = endurer(&banc, &reglages, depot, || c.pannes_injectees(), laisser);
    banc.verifier_sur_la_plateforme(PARTICIPATION, &b.fichiers);
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

/// Ce que le compartiment S3 du bac à sable doit tenir : chaque objet identique, aucun en
/// trop, aucun envoi multipart ouvert, chaque multipart assemblé une seule fois.
fn verifier_s3(banc: &Banc, fichiers: &[(String, usize)]) {
    let c = banc.compteurs();
    banc.verifier_identiques(fichiers);
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, PREFIXE).len(),
        fichiers.len(),
        "objet en trop"
    );
    assert_eq!(
        banc.bac().envois_en_cours(COMPARTIMENT),
        Vec::<(String, String)>::new(),
        "envoi multipart orphelin"
    );
    for (n, t) in fichiers {
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
        let mut c = banc.depot_s3_sans_reglages(&banc.nuit, compartiment, &mandataire.endpoint());
        c.args(options());
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
