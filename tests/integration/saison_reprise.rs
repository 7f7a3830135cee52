//! La saison qui reprend comme l'écran le dit : une création refusée ne bloque que sa nuit,
//! une carte mêlée laisse partir les nuits justes, les réglages d'envoi appartiennent à la
//! saison, et le conseil affiché, lancé tel quel, finit toutes les nuits.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::*;
use crate::saison::depot_saison;
use vigie_bac_a_sable::{Operation, Regle};

const TAILLE: usize = 3_000;

/// Trois nuits d'un même site (A1, B2, Z3), deux fichiers chacune.
const TROIS_NUITS: [&str; 6] = [
    "PA1/Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
    "PA1/Car640139-2026-Pass1-A1-PA1_20260704_013000_000.wav",
    "PA2/Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav",
    "PA2/Car640139-2026-Pass1-B2-PA2_20260704_001500_000.wav",
    "PA3/Car640139-2026-Pass2-Z3-PA3_20260814_223000_000.wav",
    "PA3/Car640139-2026-Pass2-Z3-PA3_20260815_031500_000.wav",
];

fn trois_nuits(banc: &Banc) {
    for f in TROIS_NUITS {
        banc.fichier(f, TAILLE);
    }
}

/// Le texte sur une ligne, les blancs réduits à une espace (les phrases repliées à 80
/// colonnes se cherchent entières).
fn une_ligne(texte: &str) -> String {
    texte.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn creations(banc: &Banc) -> u64 {
    banc.bac()
        .compteurs()
        .requetes(Operation::ApiCreerParticipation)
}

/// Une création de participation refusée (422) pour une nuit bloquait
/// toute la saison (0 fichier envoyé, code 3), sans nommer la nuit, et la relance l'annonçait
/// « reprise (déjà dans la base) ». Elle ne bloque plus que sa nuit, qui est nommée ; les
/// autres partent ; la relance la dit « à créer » et la crée.
#[test]
fn creation_refusee_422_ne_bloque_que_sa_nuit_nommee() {
    let banc = Banc::nouveau();
    trois_nuits(&banc);
    // La première création (la nuit A1 du 03/07, première de la saison) : 422.
    banc.bac().pannes().programmer(
        Regle::toujours(Some(Operation::ApiCreerParticipation), code_http(422)).fois(1),
    );
    let out = depot_saison(&banc).finir_en(3);
    let e = stderr(&out);
    assert!(
        e.contains("03/07 A1"),
        "la nuit refusée n'est pas nommée : {e}"
    );
    assert!(e.contains("422"), "{e}");
    let fichiers = banc.bac().fichiers();
    assert_eq!(
        fichiers.len(),
        4,
        "les deux autres nuits partent : {fichiers:#?}"
    );
    assert!(
        fichiers.iter().all(|f| !f.titre.contains("-A1-")),
        "rien ne part pour la nuit refusée : {fichiers:#?}"
    );
    // La relance : la nuit refusée n'est pas « reprise », elle est créée, et part.
    let out = depot_saison(&banc).finir_en(0);
    let e = stderr(&out);
    let ligne_a1 = e
        .lines()
        .find(|l| l.contains("A1") && l.contains("fichiers"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        !ligne_a1.contains("reprise") && ligne_a1.contains("à créer"),
        "{e}"
    );
    assert_eq!(creations(&banc), 4, "{}", texte(&out));
    assert_eq!(banc.bac().fichiers().len(), 6);
}

/// `n` fichiers d'une nuit du site `numero` (`Car<numero>-…`, point A1, une séquence par
/// minute à partir de 22:00 le 03/07), sous `dossier/`.
fn nuit_du_site(banc: &Banc, dossier: &str, numero: &str, n: usize) {
    for i in 0..n {
        let (h, m) = (22 + i / 60, i % 60);
        banc.fichier(
            &format!("{dossier}/Car{numero}-2026-Pass1-A1-PA1_20260703_{h:02}{m:02}00_000.wav"),
            300,
        );
    }
}

/// 120 fichiers d'un site à vous et 40 d'un site inconnu (un ami,
/// `Car640381`). La nuit juste est déposée ; les 40 sont comptés, montrés (exemples, raison,
/// quoi faire), et rien ne part pour eux (compté côté serveur) ; code 3. Avant : refus de
/// toute la carte (code 2), sans compte ni exemple.
#[test]
fn carte_melee_la_nuit_juste_part_les_fichiers_d_un_autre_site_comptes_et_montres() {
    let banc = Banc::nouveau();
    nuit_du_site(&banc, "PA1", "640139", 120);
    nuit_du_site(&banc, "AMI", "640381", 40);
    let out = depot_saison(&banc).finir_en(3);
    let e = stderr(&out);
    assert!(e.lines().all(|l| l.chars().count() <= 80), "{e}");
    let e = une_ligne(&e);
    for motif in [
        "40 fichiers (1 nuit) ne se rattachent à aucun de vos sites",
        "Car640381-… : aucun de vos sites ne porte ce numéro (40 fichiers)",
        "AMI/Car640381-2026-Pass1-A1-PA1_20260703_220000_000.wav",
        "… et 37 autres",
        "retirez-les de la carte",
        "--site 640381=ID",
    ] {
        assert!(e.contains(motif), "« {motif} » manque : {e}");
    }
    assert!(
        stdout(&out).contains("Non rattachés : 40 fichiers"),
        "{}",
        texte(&out)
    );
    // Côté serveur : les 120 seuls, dans une seule participation.
    let fichiers = banc.bac().fichiers();
    assert_eq!(fichiers.len(), 120, "{}", texte(&out));
    assert!(fichiers.iter().all(|f| f.titre.starts_with("Car640139")));
    assert_eq!(
        banc.bac()
            .compteurs()
            .requetes(Operation::ApiDeclarerFichier),
        120
    );
    assert_eq!(creations(&banc), 1);
    // En JSON : un avertissement par numéro, avec le compte et les exemples.
    let out = depot_saison(&banc).arg("--json").finir_en(3);
    let lignes = lignes_json(&out.stdout);
    let avert: Vec<_> = evenements(&lignes, "avertissement")
        .into_iter()
        .filter(|a| a["motif"] == "non_rattaches")
        .collect();
    assert_eq!(avert.len(), 1, "{}", texte(&out));
    assert_eq!(avert[0]["fichiers"], 40);
    assert_eq!(avert[0]["numero_site"], "640381");
    assert_eq!(avert[0]["exemples"].as_array().map(Vec::len), Some(3));
    assert_eq!(banc.bac().fichiers().len(), 120);
}

/// Un numéro de site à une faute de frappe d'un des vôtres (`640193` pour `640139`) :
/// « vouliez-vous dire 640139 ? », et rien ne part pour lui.
#[test]
fn numero_de_site_a_une_faute_de_frappe_est_suggere() {
    let banc = Banc::nouveau();
    nuit_du_site(&banc, "PA1", "640139", 2);
    nuit_du_site(&banc, "PA2", "640193", 2);
    let out = depot_saison(&banc).finir_en(3);
    let e = une_ligne(&stderr(&out));
    assert!(e.contains("vouliez-vous dire 640139 ?"), "{e}");
    assert!(e.contains("renommez-les (Car640139-…)"), "{e}");
    assert_eq!(banc.bac().fichiers().len(), 2);
}

/// `vigie participations` : toutes les participations de l'utilisateur sur la plateforme,
/// celles de `vigie` comme celle du site web (la participation d'essai du bac à sable, sur son
/// site, et la régionale, sur le site d'un autre), groupées par site et par saison, avec leur
/// nuit, leurs fichiers, l'état du calcul ; en JSON, une ligne `participation` chacune.
#[test]
fn participations_de_la_plateforme_groupees_par_site_et_saison() {
    let banc = Banc::nouveau();
    trois_nuits(&banc);
    depot_saison(&banc).finir_en(0);
    let a1 = banc
        .bac()
        .participations(vigie_bac_a_sable::SITE)
        .into_iter()
        .find(|p| p.point.as_deref() == Some("A1") && p.date_debut.starts_with("2026-07-03"))
        .expect("la participation de la nuit A1");
    let mut traiter = banc.vigie_plateforme();
    traiter
        .args(["traiter", "--participation", &a1.id, "--api"])
        .arg(banc.bac().api());
    traiter.finir_en(0);
    let lire = || {
        let mut c = banc.vigie_plateforme();
        c.args(["participations", "--api"]).arg(banc.bac().api());
        c
    };
    let out = lire().finir_en(0);
    let s = stdout(&out);
    assert!(
        s.contains("Vigiechiro - Point Fixe-640139, saison 2026 :"),
        "{s}"
    );
    assert!(s.contains("Point Fixe-750101"), "la régionale manque : {s}");
    assert!(s.contains("ven. 03/07"), "{s}");
    assert!(s.contains("Pass2"), "{s}");
    assert!(s.contains("2 fichiers"), "{s}");
    assert!(s.contains("calcul planifié"), "{s}");
    assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");
    let out = lire().arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let ps = evenements(&lignes, "participation");
    // Les trois de la saison, l'essai du bac à sable et la régionale.
    assert_eq!(ps.len(), 5, "{}", texte(&out));
    let de_a1: Vec<_> = ps
        .iter()
        .filter(|p| p["participation"] == a1.id.as_str())
        .collect();
    assert_eq!(de_a1.len(), 1, "{ps:#?}");
    assert_eq!(de_a1[0]["fichiers"], 2, "{}", de_a1[0]);
    assert_eq!(de_a1[0]["passage"], 1, "{}", de_a1[0]);
    assert_eq!(de_a1[0]["soiree"], "2026-07-03", "{}", de_a1[0]);
    assert_eq!(de_a1[0]["calcul"], "planifie", "{}", de_a1[0]);
    assert_eq!(
        ps.iter().filter(|p| p["calcul"] == "pas_lance").count(),
        4,
        "{ps:#?}"
    );
}

/// Une saison de trois nuits interrompue (Ctrl-C) pendant sa première nuit : le bilan compte
/// toute la saison (les nuits pas commencées comprises, jamais un bilan qui a l'air complet)
/// et ne donne qu'une suite ; ce conseil, lu dans la sortie puis lancé tel quel, finit toutes
/// les nuits. Avant : « Ensuite : vigie retenter-echecs 1 », qui ne reprenait que la nuit
/// entamée, sous « Saison : 2 / 2 fichiers déposés en 1 nuit ».
#[test]
fn saison_interrompue_le_conseil_affiche_lance_tel_quel_finit_toutes_les_nuits() {
    let banc = Banc::nouveau();
    trois_nuits(&banc);
    banc.bac()
        .pannes()
        .programmer(Regle::proportion(1.0, lenteur_ms(300)).pour(Operation::ApiDeclarerFichier));
    let enfant = banc.lancer(depot_saison(&banc));
    banc.attendre("une déclaration de fichier", |b| {
        b.compteurs().requetes(Operation::ApiDeclarerFichier) >= 1
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, std::time::Duration::from_secs(20));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    banc.bac().pannes().effacer();
    let s = stdout(&out);
    // Toute la saison au bilan, pas seulement la nuit entamée.
    assert!(
        s.contains(" / 6 fichiers déposés, 0 nuit sur 3"),
        "{}",
        texte(&out)
    );
    // Une seule suite, pour toute la saison ; aucun numéro de plan à recopier.
    let tout = texte(&out);
    let suites: Vec<&str> = tout
        .lines()
        .filter_map(|l| l.strip_prefix("Ensuite : "))
        .collect();
    assert_eq!(suites.len(), 1, "{}", texte(&out));
    let mots: Vec<&str> = suites[0].split_whitespace().collect();
    assert!(mots[0].ends_with("vigie"), "{}", suites[0]);
    assert_eq!(mots[1..], ["retenter-echecs"], "{}", suites[0]);
    // Le conseil, tel quel (le programme est celui de l'essai).
    let mut c = banc.vigie_plateforme();
    c.args(&mots[1..]);
    let out = c.finir_en(0);
    let s = stdout(&out);
    assert!(
        s.contains("6 / 6 fichiers déposés, 3 nuits sur 3"),
        "{}",
        texte(&out)
    );
    let suite = s.lines().find_map(|l| l.strip_prefix("Ensuite : "));
    assert!(
        suite.is_some_and(|c| c.ends_with("vigie traiter")),
        "{}",
        texte(&out)
    );
    assert_eq!(banc.bac().fichiers().len(), 6);
    assert_eq!(creations(&banc), 3);
}

/// Les réglages d'envoi appartiennent à la saison : `--debit-max 1Mo/s` donné au dépôt vaut
/// pour sa reprise sans option, même quand la même saison (la même année) tient les nuits
/// d'une autre carte déposée avec `--debit-max sans`. Le débit est mesuré par les octets reçus
/// par le bac à sable et l'horloge : il ne dépasse pas la limite (plus la petite avance du
/// seau) ; une machine lente ne fait que l'abaisser. Avant : « Réglages repris du plan :
/// --debit-max sans limite », la reprise partait sans limite, et la limite était oubliée.
#[test]
fn debit_max_donne_au_depot_vaut_pour_la_reprise_de_la_saison() {
    let banc = Banc::nouveau();
    // Une autre carte, plus tôt dans la saison, déposée sans limite.
    banc.fichier(
        "Autre/Car640139-2026-Pass1-Z9-PA9_20260601_221000_000.wav",
        TAILLE,
    );
    let mut autre = banc.vigie_plateforme();
    autre
        .arg("depot")
        .arg(banc.nuit.join("Autre"))
        .args(["--fuseau", "+02:00", "--debit-max", "sans", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    autre.finir_en(0);
    // La carte : trois nuits, 2,4 Mo, déposée à 1 Mo/s, interrompue tôt.
    const GROS: usize = 400_000;
    for f in TROIS_NUITS {
        banc.fichier(&format!("Carte/{f}"), GROS);
    }
    banc.bac()
        .pannes()
        .programmer(Regle::proportion(1.0, lenteur_ms(300)).pour(Operation::ApiDeclarerFichier));
    let mut carte = banc.vigie_plateforme();
    carte
        .arg("depot")
        .arg(banc.nuit.join("Carte"))
        .args(["--fuseau", "+02:00", "--debit-max", "1Mo/s", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let enfant = banc.lancer(carte);
    banc.attendre("une déclaration de la carte", |b| {
        b.compteurs().requetes(Operation::ApiDeclarerFichier) >= 2
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, std::time::Duration::from_secs(20));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    banc.bac().pannes().effacer();
    // La reprise de la saison, sans option.
    let avant = banc.bac().compteurs().octets_recus();
    let debut = std::time::Instant::now();
    let out = banc.vigie_plateforme().arg("retenter-echecs").finir_en(0);
    let duree = debut.elapsed().as_secs_f64();
    let recus = banc.bac().compteurs().octets_recus() - avant;
    assert!(
        recus >= 4 * GROS as u64,
        "{recus} octets seulement : {}",
        texte(&out)
    );
    // 1 Mo/s, plus l'avance du seau (quelques Kio) et une marge pour les corps d'API.
    let permis = 1_000_000.0 * duree + 64.0 * 1024.0;
    assert!(
        (recus as f64) <= permis,
        "{recus} octets en {duree:.2} s : au-dessus de 1 Mo/s\n{}",
        texte(&out)
    );
    // Le bilan dit d'où vient la limite, et jamais « sans limite ».
    let t = une_ligne(&texte(&out));
    assert!(t.contains("repris de la saison"), "{t}");
    assert!(t.contains("--debit-max 1 Mo/s"), "{t}");
    assert!(!t.contains("sans limite"), "{t}");
    assert_eq!(banc.bac().fichiers().len(), 7);
}
