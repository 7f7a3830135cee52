//! Après le dépôt, contre la plateforme locale : `vigie traitement` (un essai par état, texte
//! et code de sortie, `--attendre` face aux relevés manqués, Ctrl-C), `vigie resultats` (le CSV
//! identique octet pour octet, le CSV absent), `vigie traiter` (une nuit finie n'est pas
//! relancée sans `--relancer`, une nuit incomplète ou en cours de dépôt est refusée, « Already
//! … » ne s'affiche plus). Le calcul avance sur l'horloge du bac à sable, que les essais
//! avancent d'un coup ; seuls les relevés de `--attendre` attendent, réglés au plus court.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use vigie_bac_a_sable::{Operation, Panne, ReglagesCalcul, Regle, nom_csv, taxons};

use crate::commun::plateforme::*;
use crate::commun::*;

const MINUTE: Duration = Duration::from_secs(60);

impl Banc {
    /// `vigie ARGS --participation P --api …`, à l'heure de Paris.
    fn apres_depot(&self, args: &[&str]) -> Command {
        let mut c = self.vigie_plateforme();
        c.args(args)
            .args(["--participation", PARTICIPATION, "--api"])
            .arg(self.bac().api())
            .env("TZ", "Europe/Paris");
        c
    }

    /// Le calcul lancé comme le ferait le site web.
    fn lancer_le_calcul(&self) {
        let (s, v) = self.appel_api(
            reqwest::Method::POST,
            &format!("/participations/{PARTICIPATION}/compute"),
            Value::Null,
        );
        assert_eq!(s, 200, "{v}");
    }

    /// `n` séquences déjà déposées dans la participation d'essai.
    fn sequences_deposees(&self, n: usize) {
        for i in 0..n {
            self.deja_sur_la_plateforme(&nom(i), contenu(&nom(i), 1000));
        }
    }

    fn calcul(&self, attente: Duration, duree: Duration) {
        self.bac().regler_calcul(ReglagesCalcul {
            attente,
            duree,
            delai_csv: MINUTE,
            ..ReglagesCalcul::default()
        });
    }
}

/// Un texte à lire comme des phrases : espaces insécables et lignes repliées rendues en
/// espaces simples.
fn phrases(octets: &[u8]) -> String {
    String::from_utf8_lossy(octets)
        .replace('\u{a0}', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn sortie(out: &std::process::Output) -> String {
    phrases(&out.stdout)
}

fn erreur(out: &std::process::Output) -> String {
    phrases(&out.stderr)
}

// ------------------------------------------------------------------- vigie traitement

#[test]
fn un_essai_par_etat_son_texte_et_son_code() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(40);
    banc.calcul(10 * MINUTE, 20 * MINUTE);
    let traitement = || banc.apres_depot(&["traitement"]).sortie();

    // Aucun calcul : pas encore fini (1), et le geste.
    let out = traitement();
    assert_eq!(code(&out), 1, "{}", texte(&out));
    contient(
        &sortie(&out),
        &["aucun calcul lancé", "vigie traiter --participation"],
    );

    banc.lancer_le_calcul();
    let out = traitement();
    assert_eq!(code(&out), 1, "{}", texte(&out));
    contient(&sortie(&out), &["calcul planifié le ", "--attendre"]);

    banc.bac().avancer_horloge(10 * MINUTE + 12 * MINUTE);
    let out = traitement();
    assert_eq!(code(&out), 1, "{}", texte(&out));
    contient(
        &sortie(&out),
        &["calcul en cours depuis 12 min (commencé le "],
    );

    banc.bac().avancer_horloge(10 * MINUTE);
    let out = traitement();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let s = sortie(&out);
    assert!(s.contains("calcul fini le "), "{s}");
    // Le bilan : les chauves-souris d'abord, avec les noms de la liste des taxons.
    let chauves_souris = s.find("Chauves-souris :").expect("chauves-souris");
    assert!(
        s.find("Orthoptères :").is_none_or(|o| o > chauves_souris),
        "{s}"
    );
    let (_, court, long) = taxons().into_iter().find(|t| t.1 == "Pippip").unwrap();
    contient(&s, &[&format!("{long} ({court})"), "contacts"]);
    assert!(s.contains("vigie resultats"), "{s}");
    for ligne in stdout(&out).lines() {
        assert!(ligne.chars().count() <= 80, "plus de 80 colonnes : {ligne}");
    }
    // La liste des taxons est lue une fois, puis gardée.
    assert_eq!(banc.requetes(Operation::ApiTaxons), 1);
    let out = traitement();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::ApiTaxons), 1);
}

#[test]
fn erreur_et_nouvel_essai_leur_texte_et_leur_code() {
    let banc = Banc::nouveau();
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        echecs: 1,
        essais_max: 1,
        message_erreur: "Traceback (most recent call last):\n  File \"x.py\"\nRuntimeError: \
                         disque plein\n"
            .into(),
        ..ReglagesCalcul::default()
    });
    banc.lancer_le_calcul();
    // Échoué à 2 min, repris à 3 min.
    banc.bac().avancer_horloge(150 * Duration::from_secs(1));
    let out = banc.apres_depot(&["traitement"]).finir_en(1);
    let s = sortie(&out);
    assert!(s.contains("un essai du calcul a échoué le "), "{s}");
    contient(&s, &["(RuntimeError: disque plein)", "nouvel essai n° 2"]);
    assert!(!s.contains("Traceback"), "la trace entière : {s}");

    // Sans essai supplémentaire : ERREUR, code 3.
    let banc = Banc::nouveau();
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        echecs: 1,
        essais_max: 0,
        message_erreur: "Traceback…\nValueError: fichier illisible\n".into(),
        ..ReglagesCalcul::default()
    });
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(3 * MINUTE);
    let out = banc.apres_depot(&["traitement"]).finir_en(3);
    let s = sortie(&out);
    contient(
        &s,
        &["calcul en erreur le ", " : ValueError: fichier illisible"],
    );
    // En JSON : la trace entière, et le schéma.
    let out = banc.apres_depot(&["traitement", "--json"]).finir_en(3);
    let lignes = lignes_json(&out.stdout);
    let t = evenements(&lignes, "traitement");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["etat"], "ERREUR");
    assert_eq!(
        t[0]["message"],
        "Traceback…\nValueError: fichier illisible\n"
    );
    assert_eq!(t[0]["bilan"], Value::Null);
}

/// Une trace d'erreur de plus de 20 000 caractères (une pile Python profonde) : la ligne de
/// l'exception, la dernière, est dite à l'écran et gardée en `--json`, avec le début de la
/// trace ; seul le milieu est coupé.
#[test]
fn une_trace_de_plus_de_20_000_caracteres_garde_son_exception() {
    let banc = Banc::nouveau();
    let pile = "  File \"/app/vigiechiro/scripts/task_participation.py\", line 395, in \
                process_participation\n"
        .repeat(400);
    let trace = format!(
        "Traceback (most recent call last):\n{pile}RuntimeError: Cannot update bilan for \
         participation\n"
    );
    assert!(trace.chars().count() > 20_000);
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        echecs: 1,
        essais_max: 0,
        message_erreur: trace,
        ..ReglagesCalcul::default()
    });
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(3 * MINUTE);
    let out = banc.apres_depot(&["traitement"]).finir_en(3);
    contient(
        &sortie(&out),
        &[" : RuntimeError: Cannot update bilan for participation"],
    );
    let out = banc.apres_depot(&["traitement", "--json"]).finir_en(3);
    let lignes = lignes_json(&out.stdout);
    let t = evenements(&lignes, "traitement");
    let message = t[0]["message"].as_str().unwrap();
    assert!(message.chars().count() <= 20_000, "{}", message.len());
    assert!(message.starts_with("Traceback (most recent call last):"));
    assert_eq!(
        message.lines().last(),
        Some("RuntimeError: Cannot update bilan for participation")
    );
}

#[test]
fn traitement_json_fini_avec_son_bilan_et_ses_noms() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(30);
    banc.calcul(MINUTE, MINUTE);
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(5 * MINUTE);
    let out = banc.apres_depot(&["traitement", "--json"]).finir_en(0);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(lignes.len(), 1, "{}", texte(&out));
    let t = &lignes[0];
    assert_eq!(t["etat"], "FINI");
    assert!(t["date_fin"].as_str().unwrap().ends_with('Z'));
    let bilan = &t["bilan"];
    let total: u64 = ["chiropteres", "orthopteres", "autre"]
        .iter()
        .flat_map(|o| bilan[o].as_array().unwrap())
        .map(|l| {
            assert!(
                l["libelle_long"].is_string() && l["libelle_court"].is_string(),
                "{l}"
            );
            l["contacts_max"].as_u64().unwrap()
        })
        .sum();
    assert!(total > 0, "{bilan}");
}

#[test]
fn attendre_jusqu_a_la_fin_du_calcul() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(10);
    banc.calcul(10 * MINUTE, 10 * MINUTE);
    banc.lancer_le_calcul();
    let enfant = banc.lancer({
        let mut c = banc.apres_depot(&[
            "traitement",
            "--attendre",
            "--attente-releve",
            "0.05",
            "--attente-releve-max",
            "0.1",
            "--json",
        ]);
        c.stdin(std::process::Stdio::null());
        c
    });
    // Deux relevés vus (planifié) ; puis le calcul passe en cours, puis finit.
    banc.attendre("deux relevés", |b| {
        b.compteurs().requetes(Operation::ApiLireParticipation) >= 2
    });
    banc.bac().avancer_horloge(11 * MINUTE);
    let vus = banc.requetes(Operation::ApiLireParticipation);
    banc.attendre("un relevé en cours", |b| {
        b.compteurs().requetes(Operation::ApiLireParticipation) >= vus + 2
    });
    banc.bac().avancer_horloge(10 * MINUTE);
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let releves = evenements(&lignes, "releve");
    let etats: Vec<&str> = releves.iter().filter_map(|r| r["etat"].as_str()).collect();
    assert_eq!(etats.first(), Some(&"PLANIFIE"), "{etats:?}");
    assert!(etats.contains(&"EN_COURS"), "{etats:?}");
    assert_eq!(etats.last(), Some(&"FINI"), "{etats:?}");
    assert_eq!(releves.last().unwrap()["prochain_releve_s"], Value::Null);
    assert!(releves[0]["prochain_releve_s"].as_f64().unwrap() <= 0.05);
    let fin = lignes.last().unwrap();
    assert_eq!(fin["evenement"], "traitement");
    assert_eq!(fin["etat"], "FINI");
}

#[test]
fn attendre_face_a_une_rafale_de_503_au_plus_une_tentative_de_plus_par_releve() {
    let banc = Banc::nouveau();
    banc.calcul(Duration::ZERO, Duration::ZERO);
    banc.lancer_le_calcul();
    banc.panne(Regle::toujours(Some(Operation::ApiLireParticipation), code_http(503)).fois(9));
    let out = banc
        .apres_depot(&[
            "traitement",
            "--attendre",
            "--attente-releve",
            "0.01",
            "--attente-releve-max",
            "0.02",
            "--json",
        ])
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let releves = evenements(&lignes, "releve");
    // Un relevé manqué n'est pas une erreur : 4 manqués (deux 503 chacun), puis un 503 et
    // l'état.
    let manques = releves.iter().filter(|r| r["manque"] == true).count();
    assert_eq!(manques, 4, "{lignes:?}");
    assert!(
        releves
            .iter()
            .all(|r| r["manque"] == false || r["detail"].is_string())
    );
    assert!(!releves.iter().any(|r| {
        r["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Service Unavailable"))
    }));
    let requetes = banc.requetes(Operation::ApiLireParticipation);
    assert_eq!(requetes, 10, "{lignes:?}");
    assert!(
        requetes <= 2 * releves.len() as u64,
        "{requetes} pour {}",
        releves.len()
    );
    assert_eq!(lignes.last().unwrap()["etat"], "FINI");
}

#[test]
fn ctrl_c_pendant_l_attente_rend_130_aussitot() {
    let banc = Banc::nouveau();
    banc.calcul(10 * 24 * 60 * MINUTE, MINUTE);
    banc.lancer_le_calcul();
    // Dix minutes au moins avant le relevé suivant : seul Ctrl-C peut arrêter vite.
    let enfant = banc.lancer(banc.apres_depot(&[
        "traitement",
        "--attendre",
        "--attente-releve",
        "1200",
        "--attente-releve-max",
        "1200",
        "--progression",
        "jamais",
    ]));
    banc.attendre("un relevé", |b| {
        b.compteurs().requetes(Operation::ApiLireParticipation) >= 1
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(20));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    assert!(erreur(&out).contains("interrompu"), "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::ApiLireParticipation), 1);
}

// -------------------------------------------------------------------- vigie resultats

#[test]
fn le_csv_telecharge_est_identique_octet_pour_octet() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(25);
    banc.calcul(MINUTE, MINUTE);
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(10 * MINUTE);
    let dossier = banc.dossier.path().join("résultats");
    let out = banc
        .apres_depot(&[
            "resultats",
            "--avec-journal",
            "--json",
            "--sortie",
            chemin_str(&dossier),
        ])
        .finir_en(0);
    let nom = nom_csv(PARTICIPATION);
    let attendu = banc.bac().contenu_fichier(PARTICIPATION, &nom).unwrap();
    let recu = std::fs::read(dossier.join(&nom)).unwrap();
    assert!(recu == attendu, "le CSV n'est pas celui de la plateforme");
    assert!(recu.starts_with(b"\"nom du fichier\";"));
    let journal = format!("participation-{PARTICIPATION}-logs");
    assert_eq!(
        std::fs::read(dossier.join(format!("{journal}.txt"))).unwrap(),
        banc.bac().contenu_fichier(PARTICIPATION, &journal).unwrap()
    );
    let lignes = lignes_json(&out.stdout);
    let res = evenements(&lignes, "resultat");
    assert_eq!(res.len(), 2);
    assert_eq!(res[0]["fichier"], "csv");
    assert_eq!(res[0]["octets"], attendu.len() as u64);
    // Rien de provisoire ne reste.
    let restes: Vec<_> = std::fs::read_dir(&dossier)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(restes.len(), 2, "{restes:?}");
    // Relancé, il remplace le fichier (même contenu) sans rien laisser d'autre.
    let out = banc
        .apres_depot(&["resultats", "--sortie", chemin_str(&dossier)])
        .finir_en(0);
    contient(&sortie(&out), &["CSV des observations écrit"]);
    assert_eq!(std::fs::read(dossier.join(&nom)).unwrap(), attendu);
}

#[test]
fn un_csv_absent_donne_un_message_et_le_code_1() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(5);
    banc.bac().regler_calcul(ReglagesCalcul {
        attente: MINUTE,
        duree: MINUTE,
        csv_automatique: false,
        delai_csv: MINUTE,
        ..ReglagesCalcul::default()
    });
    let dossier = banc.dossier.path().join("res");
    let resultats = |args: &[&str]| {
        banc.apres_depot(&[&["resultats", "--sortie", chemin_str(&dossier)], args].concat())
            .sortie()
    };
    // Pas encore de calcul : ce n'est pas une erreur (code 0), et le geste est dit.
    let out = resultats(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    contient(
        &sortie(&out),
        &[
            "pas encore calculée (aucun calcul lancé)",
            "Pour lancer le calcul : vigie traiter --participation",
        ],
    );
    assert!(erreur(&out).is_empty(), "{}", texte(&out));
    // --demander-csv ne demande rien pour une nuit pas encore calculée.
    let out = resultats(&["--demander-csv"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.bac().courriels_csv(PARTICIPATION), 0);
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(10 * MINUTE);
    // Fini, sans CSV : le dire, et comment le demander (code 1).
    let out = resultats(&[]);
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let e = sortie(&out);
    contient(&e, &["n'a pas (encore) le CSV des observations"]);
    assert!(
        e.contains("vigie resultats --demander-csv --participation"),
        "{e}"
    );
    assert!(!dossier.join(nom_csv(PARTICIPATION)).exists());
    // Demandé : un courriel, puis le CSV est là.
    let out = resultats(&["--demander-csv", "--json"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(lignes_json(&out.stdout)[0]["evenement"], "csv_demande");
    assert_eq!(banc.bac().courriels_csv(PARTICIPATION), 1);
    banc.bac().avancer_horloge(2 * MINUTE);
    let out = resultats(&[]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(dossier.join(nom_csv(PARTICIPATION)).exists());
}

// ----------------------------------------------------------------------- vigie traiter

#[test]
fn traiter_une_nuit_finie_sans_relancer_n_emet_rien_vers_compute() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(5);
    banc.calcul(MINUTE, MINUTE);
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(10 * MINUTE);
    let calculs = || banc.requetes(Operation::ApiCalcul);
    assert_eq!(calculs(), 1);
    let out = banc.apres_depot(&["traiter"]).finir_en(0);
    let s = sortie(&out);
    contient(
        &s,
        &["calcul fini le ", "rien n'a été relancé", "--relancer"],
    );
    assert_eq!(calculs(), 1, "compute émis sans --relancer");
    assert_eq!(
        banc.bac()
            .participation(PARTICIPATION)
            .unwrap()
            .calculs_lances,
        1
    );
    // --relancer : une émission, le calcul replanifié.
    let out = banc
        .apres_depot(&["traiter", "--relancer", "--json"])
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(lignes[0]["evenement"], "calcul");
    assert_eq!(lignes[0]["lance"], true);
    assert_eq!(lignes[0]["etat_plateforme"], "FINI");
    assert_eq!(calculs(), 2);
    let p = banc.bac().participation(PARTICIPATION).unwrap();
    assert_eq!(p.traitement.unwrap().etat, "PLANIFIE");
}

#[test]
fn traiter_un_calcul_planifie_ne_relance_rien_et_ne_dit_pas_already() {
    let banc = Banc::nouveau();
    banc.calcul(10 * MINUTE, MINUTE);
    let out = banc.apres_depot(&["traiter"]).finir_en(0);
    assert!(sortie(&out).contains("Calcul lancé"), "{}", texte(&out));
    for args in [vec!["traiter"], vec!["traiter", "--relancer"]] {
        let out = banc.apres_depot(&args).sortie();
        assert_eq!(code(&out), 0, "{args:?} {}", texte(&out));
        let tout = format!("{}{}", sortie(&out), erreur(&out));
        contient(&tout, &["calcul planifié le ", "rien n'a été relancé"]);
        assert!(!tout.contains("Already"), "{tout}");
    }
    assert_eq!(banc.requetes(Operation::ApiCalcul), 1);
}

/// La plateforme peut changer d'avis entre la lecture de l'état et le lancement (un autre
/// client vient de lancer le calcul) : son refus « Already PLANIFIE » est dit en français.
#[test]
fn le_refus_already_de_la_plateforme_est_dit_en_francais() {
    let banc = Banc::nouveau();
    banc.calcul(10 * MINUTE, MINUTE);
    banc.lancer_le_calcul();
    // Le mandataire cache l'état du calcul : vigie croit la nuit jamais calculée.
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |req, rep| {
        if req.methode == "GET"
            && req.chemin.ends_with(PARTICIPATION)
            && let Ok(mut v) = serde_json::from_slice::<Value>(&rep.corps)
        {
            if let Some(o) = v.as_object_mut() {
                o.remove("traitement");
            }
            rep.corps = v.to_string().into_bytes();
            rep.entetes
                .retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
        }
    });
    for json in [false, true] {
        let mut c = banc.vigie_plateforme();
        c.args(["traiter", "--participation", PARTICIPATION, "--api"])
            .arg(format!("{}/api/v1", m.endpoint()));
        if json {
            c.arg("--json");
        }
        let out = c.finir_en(0);
        let tout = format!("{}{}", sortie(&out), erreur(&out));
        assert!(!tout.contains("Already"), "{tout}");
        if json {
            let l = lignes_json(&out.stdout);
            assert_eq!(l[0]["lance"], false);
            assert_eq!(l[0]["raison"], "deja_en_cours");
        } else {
            contient(&tout, &["déjà planifié ; rien n'a été relancé"]);
        }
    }
    assert_eq!(
        banc.bac()
            .participation(PARTICIPATION)
            .unwrap()
            .calculs_lances,
        1
    );
}

#[test]
fn traiter_une_nuit_incomplete_code_2_et_rien_d_emis_vers_compute() {
    let banc = Banc::nouveau();
    for i in 0..4 {
        banc.fichier(&nom(i), 5_000);
    }
    // Un fichier refusé par la plateforme : le passage finit en refus définitif.
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), code_http(403))
            .sur_cle(&vigie_bac_a_sable::cle_fichier(PARTICIPATION, &nom(2)).unwrap()),
    );
    let out = banc.depot_plateforme().sortie();
    assert_ne!(code(&out), 0, "{}", texte(&out));
    let avant = banc.compteurs().requetes_total();
    // Sans --participation : celle du dernier plan.
    let out = banc.vigie_plateforme().arg("traiter").finir_en(2);
    let e = erreur(&out);
    contient(&e, &["1 sur 4 n'est pas sur la plateforme (3 déposés)"]);
    // La reprise, la même partout : sans numéro, elle reprend le dernier dépôt.
    contient(
        &e,
        &[
            "reprenez d'abord le dépôt, vigie retenter-echecs ;",
            "vigie traiter --nuit-incomplete",
        ],
    );
    assert_eq!(
        banc.compteurs().requetes_total(),
        avant,
        "une requête est partie"
    );
    // Pour qui le veut vraiment.
    let out = banc
        .vigie_plateforme()
        .mots("traiter --nuit-incomplete")
        .finir_en(0);
    assert!(erreur(&out).contains("lancé quand même"), "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::ApiCalcul), 1);
}

#[test]
fn traiter_pendant_que_le_depot_de_la_nuit_tourne_code_2() {
    let banc = Banc::nouveau();
    for i in 0..3 {
        banc.fichier(&nom(i), 5_000);
    }
    // Le dépôt reste bloqué sur son premier envoi.
    banc.panne_toujours(
        Operation::PutObject,
        Panne::Bloquer(Duration::from_secs(60)),
    );
    let depot = banc.lancer(banc.depot_plateforme());
    banc.attendre("le dépôt envoie", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 1
    });
    let out = banc
        .vigie_plateforme()
        .args(["traiter", "--participation", PARTICIPATION, "--api"])
        .arg(banc.bac().api())
        .sortie();
    signal(&depot, "KILL");
    let _ = attendre_fin(depot, Duration::from_secs(20));
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = erreur(&out);
    contient(
        &e,
        &[
            &format!("un dépôt de la participation {PARTICIPATION} est en cours (processus "),
            "3 fichiers sur 3 ne sont pas encore déposés",
        ],
    );
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0);
}

#[test]
fn sans_participation_le_dernier_plan_et_ses_gestes() {
    let banc = Banc::avec_fichier(&nom(1), 2_000);
    banc.depot_plateforme().finir_en(0);
    banc.calcul(MINUTE, MINUTE);
    let out = banc.vigie_plateforme().arg("traitement").finir_en(1);
    let s = sortie(&out);
    contient(
        &s,
        &[&format!(
            "Participation {PARTICIPATION} : aucun calcul lancé."
        )],
    );
    // Le geste proposé vise le même plan, sans --participation.
    assert!(s.ends_with("Pour lancer le calcul : vigie traiter"), "{s}");
    let out = banc.vigie_plateforme().arg("traiter").finir_en(0);
    contient(&sortie(&out), &["Calcul lancé pour la participation"]);
    banc.bac().avancer_horloge(10 * MINUTE);
    let out = banc
        .vigie_plateforme()
        .mots("traitement --json")
        .finir_en(0);
    assert_eq!(lignes_json(&out.stdout)[0]["etat"], "FINI");
}

#[test]
fn un_telechargement_qui_echoue_ne_laisse_aucun_fichier() {
    let banc = Banc::nouveau();
    banc.sequences_deposees(5);
    banc.calcul(MINUTE, MINUTE);
    banc.lancer_le_calcul();
    banc.bac().avancer_horloge(10 * MINUTE);
    // Le stockage refuse la lecture (une URL qu'il juge expirée) : pas de réessai.
    banc.panne_toujours(Operation::GetObject, code_http(403));
    let dossier = banc.dossier.path().join("res");
    let out = banc
        .apres_depot(&["resultats", "--json", "--sortie", chemin_str(&dossier)])
        .finir_en(1);
    let e = erreur(&out);
    contient(
        &e,
        &[&format!(
            "le CSV des observations de la participation {PARTICIPATION} n'a pas été téléchargé"
        )],
    );
    let lignes = lignes_json(&out.stdout);
    assert_eq!(lignes.last().unwrap()["evenement"], "erreur");
    // Rien d'écrit, pas même un fichier provisoire.
    assert_eq!(banc.requetes(Operation::GetObject), 1);
    let restes: Vec<_> = std::fs::read_dir(&dossier)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(restes.is_empty(), "{restes:?}");
    // Le stockage revenu, une réponse perdue en route : la lecture est rejouée, le CSV
    // arrive entier.
    banc.bac().pannes().effacer();
    banc.panne_prochaine(Operation::GetObject, Panne::PerdreReponse);
    banc.apres_depot(&["resultats", "--sortie", chemin_str(&dossier)])
        .finir_en(0);
    assert_eq!(banc.requetes(Operation::GetObject), 3);
    assert_eq!(
        std::fs::read(dossier.join(nom_csv(PARTICIPATION))).unwrap(),
        banc.bac()
            .contenu_fichier(PARTICIPATION, &nom_csv(PARTICIPATION))
            .unwrap()
    );
}

/// La participation d'un autre observateur : `vigie traiter` le voit à la lecture de l'état et
/// ne lance rien, en disant à qui elle est ; si la plateforme refuse malgré tout (403 nu), il
/// le dit en français, sans un mot de l'anglais du serveur.
#[test]
fn traiter_la_participation_d_un_autre_dit_a_qui_elle_est() {
    let banc = Banc::nouveau();
    let autre = |req: &mandataire::Requete, rep: &mut mandataire::Reponse| {
        if req.methode == "GET"
            && req.chemin.ends_with(PARTICIPATION)
            && let Ok(mut v) = serde_json::from_slice::<Value>(&rep.corps)
        {
            v["observateur"] = serde_json::json!({
                "_id": "64a1b2c3d4e5f60718293a99",
                "pseudo": "Noctule des Étangs",
                "role": "Observateur",
            });
            rep.corps = v.to_string().into_bytes();
            rep.entetes
                .retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
        }
    };
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), autre);
    let traiter = |api: String| {
        banc.vigie_plateforme()
            .args(["traiter", "--participation", PARTICIPATION, "--api", &api])
            .sortie()
    };
    let out = traiter(format!("{}/api/v1", m.endpoint()));
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let e = erreur(&out);
    contient(&e, &["n'est pas la vôtre", "« Noctule des Étangs »"]);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0);

    // Le 403 du serveur (`_check_edit_access` : `abort(403)`, la description de werkzeug),
    // quand la lecture n'a pas dit à qui est la participation.
    let refus = |req: &mandataire::Requete, rep: &mut mandataire::Reponse| {
        if req.methode == "GET"
            && req.chemin.ends_with(PARTICIPATION)
            && let Ok(mut v) = serde_json::from_slice::<Value>(&rep.corps)
        {
            if let Some(o) = v.as_object_mut() {
                o.remove("observateur");
            }
            rep.corps = v.to_string().into_bytes();
            rep.entetes
                .retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
        }
        if req.methode == "POST" && req.chemin.ends_with("/compute") {
            rep.statut = 403;
            let description = "You don't have the permission to access the requested \
                               resource. It is either read-protected or not readable by the \
                               server.";
            rep.corps = serde_json::json!({
                "_status": format!("403 Forbidden: {description}"),
                "_errors": description,
            })
            .to_string()
            .into_bytes();
            rep.entetes
                .retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
        }
    };
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), refus);
    let out = traiter(format!("{}/api/v1", m.endpoint()));
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let e = erreur(&out);
    contient(
        &e,
        &[
            "la plateforme refuse de lancer le calcul",
            "seul son observateur le peut, et cette participation est celle d'un autre",
        ],
    );
    for anglais in ["Forbidden", "permission", "403 :"] {
        assert!(!e.contains(anglais), "« {anglais} » : {e}");
    }
    // Le même refus sur sa propre participation (jamais calculée) : ce sont les droits du
    // compte.
    let banc = Banc::nouveau();
    let seulement_compute = move |req: &mandataire::Requete, rep: &mut mandataire::Reponse| {
        if req.methode == "POST" {
            refus(req, rep);
        }
    };
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), seulement_compute);
    let out = banc
        .vigie_plateforme()
        .args(["traiter", "--participation", PARTICIPATION, "--api"])
        .arg(format!("{}/api/v1", m.endpoint()))
        .finir_en(3);
    let e = erreur(&out);
    assert!(e.contains("elle est pourtant la vôtre"), "{e}");
    assert!(!e.contains("Forbidden"), "{e}");
}

/// Contre la participation d'un autre observateur du bac à sable (`PARTICIPATION_AUTRE`) :
/// elle se lit (`display_participation` n'a pas de contrôle d'accès), mais son calcul n'est
/// pas lancé, et le message nomme son observateur.
#[test]
fn la_participation_d_un_autre_se_lit_mais_ne_se_lance_pas() {
    use vigie_bac_a_sable::{PARTICIPATION_AUTRE, PSEUDO_AUTRE};
    let banc = Banc::nouveau();
    let commande = |args: &[&str]| {
        banc.vigie_plateforme()
            .args(args)
            .args(["--participation", PARTICIPATION_AUTRE, "--api"])
            .arg(banc.bac().api())
            .sortie()
    };
    let out = commande(&["traiter"]);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let e = erreur(&out);
    contient(&e, &["n'est pas la vôtre", &format!("« {PSEUDO_AUTRE} »")]);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0);
    let out = commande(&["traitement"]);
    assert_eq!(code(&out), 1, "{}", texte(&out));
    contient(&sortie(&out), &["aucun calcul lancé"]);
}
