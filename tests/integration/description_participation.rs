//! La participation décrite : `configuration` (clés du formulaire du site web) et `meteo`
//! posées à la création par `vigie depot --site` ; une participation existante complétée sans
//! rien effacer ni remplacer de ce que le site web y a mis (relire, fusionner, écrire : le
//! `PATCH` remplace le dictionnaire entier, `resources/participations.py`
//! `edit_participation`, imité par le bac à sable) ; une valeur hors choix refusée avant tout
//! envoi. `vigie participations` dit, pour chaque participation, ce que sa configuration ne
//! dit pas encore et l'option qui le pose.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Output;

use serde_json::{Value, json};

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{OBSERVATEUR, Operation, ParticipationPosee, SITE_ROUTIER};

const MATERIEL: [&str; 10] = [
    "--enregistreur-type",
    "PassiveRecorder",
    "--enregistreur-numero-serie",
    "1925492",
    "--micro-position",
    "CANOPEE",
    "--micro-hauteur",
    "4",
    "--micro-type",
    "ICS",
];
/// Le second micro d'un point fixe (`micro1_*`).
const SECOND_MICRO: [&str; 8] = [
    "--micro1-position",
    "SOL",
    "--micro1-hauteur",
    "1",
    "--micro1-type",
    "SMX-US",
    "--micro1-numero-serie",
    "M-78",
];
const METEO: [&str; 8] = [
    "--temperature-debut",
    "18",
    "--temperature-fin",
    "-2",
    "--vent",
    "FAIBLE",
    "--couverture",
    "0-25",
];

/// `vigie depot` de la nuit du banc, la participation du point A1 à créer, avec [`MATERIEL`].
fn creer_en_a1(banc: &Banc) -> std::process::Command {
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(["--site", SITE, "--point", "A1"])
        .args(["--debut", "2026-06-21T21:30:00+02:00"])
        .args(["--fin", "2026-06-22T06:00:00+02:00", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides())
        .args(MATERIEL);
    c
}

#[test]
fn la_participation_creee_porte_la_configuration_et_la_meteo_donnees() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let mut c = creer_en_a1(&banc);
    c.args(METEO);
    c.finir_en(0);
    let creees = banc.bac().participations(SITE);
    let p = creees
        .iter()
        .find(|p| p.id != PARTICIPATION && p.point.as_deref() == Some("A1"));
    let p = p.unwrap_or_else(|| panic!("{creees:?}"));
    assert_eq!(
        p.configuration,
        Some(json!({
            "detecteur_enregistreur_type": "PassiveRecorder",
            "detecteur_enregistreur_numero_serie": "1925492",
            "micro0_position": "CANOPEE",
            "micro0_hauteur": "4",
            "micro0_type": "ICS",
        }))
    );
    assert_eq!(
        p.meteo,
        Some(
            json!({"temperature_debut": 18, "temperature_fin": -2, "vent": "FAIBLE", "couverture": "0-25"})
        )
    );
    // Créée avec sa description : rien à compléter.
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 0);
}

#[test]
fn une_participation_du_site_web_garde_toutes_ses_cles_une_fois_completee() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let web = json!({
        "detecteur_enregistreur_type": "SM4BAT",
        "micro0_numero_serie": "M-77",
        "micro1_position": "SOL",
        "micro1_hauteur": "2",
        "micro0_type": "",
        "commentaire_libre": "posé par le site",
    });
    assert!(
        banc.bac()
            .poser_description(PARTICIPATION, web.clone(), json!({ "vent": "NUL" }))
    );
    banc.depot_plateforme_avec(
        &[
            MATERIEL.map(String::from).to_vec(),
            METEO.map(String::from).to_vec(),
        ]
        .concat(),
    )
    .finir_en(0);
    let p = banc.bac().participation(PARTICIPATION).unwrap();
    let c = p.configuration.unwrap();
    for (cle, v) in web.as_object().unwrap() {
        if cle != "micro0_type" {
            assert_eq!(&c[cle], v, "{cle} effacée ou remplacée : {c}");
        }
    }
    // Ce qui manquait (ou était vide) est complété ; ce que le site avait dit l'emporte.
    assert_eq!(c["detecteur_enregistreur_type"], "SM4BAT");
    assert_eq!(c["detecteur_enregistreur_numero_serie"], "1925492");
    assert_eq!(c["micro0_type"], "ICS");
    assert_eq!(c["micro0_position"], "CANOPEE");
    let m = p.meteo.unwrap();
    assert_eq!(m["vent"], "NUL");
    assert_eq!(m["temperature_debut"], 18);
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 1);
    // Relancer : rien ne manque plus, rien n'est réécrit.
    banc.depot_plateforme_avec(&MATERIEL.map(String::from))
        .finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 1);
}

#[test]
fn une_meteo_hors_choix_est_refusee_avant_tout_envoi() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let out = banc
        .depot_plateforme_avec(&["--vent".into(), "TEMPETE".into()])
        .finir_en(2);
    assert!(stderr(&out).contains("--vent TEMPETE"), "{}", texte(&out));
    assert!(
        stderr(&out).contains("NUL, FAIBLE, MOYEN, FORT"),
        "{}",
        texte(&out)
    );
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 0);
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 0);
}

/// `vigie participations` : une participation de point fixe créée avec tout son matériel ne
/// montre rien à décrire ; celle du site web, sans configuration, montre chaque option qui
/// manque ; une routière à qui le site web n'a donné que le micro montre ses canaux (le calcul
/// lirait tout comme expansé ×10) et l'enregistreur. En JSON, les clés du formulaire.
#[test]
fn participations_montre_ce_qui_manque_a_chaque_configuration() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    creer_en_a1(&banc).finir_en(0);
    let creee = banc
        .bac()
        .participations(SITE)
        .into_iter()
        .find(|p| p.id != PARTICIPATION && p.point.as_deref() == Some("A1"))
        .expect("la participation créée");
    let routiere = banc
        .bac()
        .poser_participation(&ParticipationPosee {
            site: SITE_ROUTIER,
            observateur: OBSERVATEUR,
            point: None,
            date_debut: "2026-06-22T07:40:00",
            date_fin: None,
        })
        .unwrap();
    assert!(banc.bac().poser_description(
        &routiere,
        json!({ "micro_type": "SMX-U1", "canal_expansion_temps": "" }),
        json!({})
    ));
    let lire = || {
        let mut c = banc.vigie_plateforme();
        c.args(["participations", "--api"]).arg(banc.bac().api());
        c
    };
    let out = lire().finir_en(0);
    let s = stdout(&out);
    // Celle du site web et la régionale (sur le site d'un autre) : tout ; la créée : rien.
    let point_fixe =
        "    manque : --enregistreur-type --micro-position --micro-hauteur --micro-type\n";
    assert_eq!(s.matches(point_fixe).count(), 2, "{s}");
    assert!(
        s.contains(
            "    manque : --enregistreur-type --canal-expansion --canal-direct\n    \
             sans ses canaux, le calcul lira tout comme expansé ×10\n"
        ),
        "{s}"
    );
    assert_eq!(s.matches("manque :").count(), 3, "{s}");
    assert!(
        s.contains("Ce qui manque se pose par ces options de vigie depot"),
        "{s}"
    );
    assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");

    let out = lire().arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let ps = evenements(&lignes, "participation");
    let a_decrire = |id: &str| {
        let p = ps
            .iter()
            .find(|p| p["participation"] == id)
            .unwrap_or_else(|| panic!("{id} absente : {ps:#?}"));
        p["a_decrire"].clone()
    };
    assert_eq!(a_decrire(&creee.id), json!([]));
    assert_eq!(
        a_decrire(PARTICIPATION),
        json!([
            "detecteur_enregistreur_type",
            "micro0_position",
            "micro0_hauteur",
            "micro0_type"
        ])
    );
    assert_eq!(
        a_decrire(&routiere),
        json!([
            "detecteur_enregistreur_type",
            "canal_expansion_temps",
            "canal_enregistrement_direct"
        ])
    );
}

/// La nuit du passage `passage` au point A1 (une séquence, le `jour` de juin ou juillet),
/// déposée dans une participation à créer, avec ces options : la participation créée.
fn passage_en_a1(banc: &Banc, passage: u8, jour: &str, options: &[&str]) -> (Output, Value) {
    let nuit = banc.dossier.path().join(format!("pass{passage}"));
    let nom = format!("Car640139-2026-Pass{passage}-A1-OB-1_2026{jour}_220001_000.wav");
    std::fs::create_dir_all(&nuit).unwrap();
    std::fs::write(nuit.join(&nom), contenu(&nom, 1_000)).unwrap();
    let (m, j) = jour.split_at(2);
    let debut = format!("2026-{m}-{j}T20:30:00Z");
    let fin = format!("2026-{m}-{j}T23:59:00Z");
    creer_dans(
        banc,
        SITE,
        &nuit,
        &["--point", "A1", "--debut", &debut, "--fin", &fin],
        options,
    )
}

/// `vigie depot NUIT --site SITE CIBLE… --api …` avec ces options, qui crée une
/// participation : la sortie et la configuration de la participation créée.
fn creer_dans(
    banc: &Banc,
    site: &str,
    nuit: &std::path::Path,
    cible: &[&str],
    options: &[&str],
) -> (Output, Value) {
    let avant: Vec<String> = banc
        .bac()
        .participations(site)
        .into_iter()
        .map(|p| p.id)
        .collect();
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(nuit)
        .args(["--site", site])
        .args(cible)
        .arg("--api")
        .arg(banc.bac().api())
        .args(Banc::options_rapides())
        .args(options);
    let out = c.finir_en(0);
    let creee = banc
        .bac()
        .participations(site)
        .into_iter()
        .find(|p| !avant.contains(&p.id))
        .expect("une participation créée");
    (out, creee.configuration.unwrap_or(Value::Null))
}

/// Le micro dit une fois pour un point (position, hauteur, type, numéro de série) est retenu
/// par la base et repris à chaque passage suivant du même point ; redonner une option la
/// remplace (et le dépôt le dit), le reste du micro retenu demeure ; un autre point n'en hérite
/// pas.
#[test]
fn le_micro_d_un_point_est_retenu_pour_ses_passages_suivants() {
    let banc = Banc::nouveau();
    // Le micro de MATERIEL, et son numéro de série.
    let options = [&MATERIEL[4..], &["--micro-numero-serie", "M-77"]].concat();
    let (_, c1) = passage_en_a1(&banc, 1, "0621", &options);
    let micro = json!({
        "micro0_position": "CANOPEE",
        "micro0_hauteur": "4",
        "micro0_type": "ICS",
        "micro0_numero_serie": "M-77",
    });
    assert_eq!(c1, micro);
    // Passage suivant, sans option : le micro retenu.
    let (_, c2) = passage_en_a1(&banc, 2, "0715", &[]);
    assert_eq!(c2, micro);
    // Une hauteur redonnée remplace la retenue, et le dépôt le dit.
    let (out, c3) = passage_en_a1(&banc, 3, "0812", &["--micro-hauteur", "2"]);
    let mut plus_bas = micro.clone();
    plus_bas["micro0_hauteur"] = json!("2");
    assert_eq!(c3, plus_bas);
    assert!(
        stderr(&out).contains("micro du point A1 remplacé (--micro-hauteur 4 → 2)"),
        "{}",
        texte(&out)
    );
    // Et c'est la nouvelle qui est retenue.
    let (out, c4) = passage_en_a1(&banc, 4, "0905", &[]);
    assert_eq!(c4, plus_bas);
    assert!(!stderr(&out).contains("remplacé"), "{}", texte(&out));
    // Une participation du site web à ce point, donnée par son identifiant : complétée du
    // micro retenu, sans rien remplacer de ce que le site web y a mis.
    let web = banc
        .bac()
        .poser_participation(&ParticipationPosee {
            site: SITE,
            observateur: OBSERVATEUR,
            point: Some("A1"),
            date_debut: "2026-09-20T20:30:00",
            date_fin: Some("2026-09-20T23:59:00"),
        })
        .unwrap();
    assert!(
        banc.bac()
            .poser_description(&web, json!({ "micro0_hauteur": "6" }), json!({}))
    );
    let nuit = banc.dossier.path().join("pass5");
    let nom = "Car640139-2026-Pass5-A1-OB-1_20260920_220001_000.wav";
    std::fs::create_dir_all(&nuit).unwrap();
    std::fs::write(nuit.join(nom), contenu(nom, 1_000)).unwrap();
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&nuit)
        .args(["--participation", &web, "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    c.finir_en(0);
    let mut complete = plus_bas.clone();
    complete["micro0_hauteur"] = json!("6");
    assert_eq!(
        banc.bac().participation(&web).unwrap().configuration,
        Some(complete)
    );
    // Un autre point n'hérite pas du micro de A1.
    banc.fichier(
        "Car640139-2026-Pass1-B2-OB-1_20260621_220001_000.wav",
        1_000,
    );
    banc.depot_par_site(SITE, "B2", DEBUT_NUIT, FIN_NUIT)
        .finir_en(0);
    let b2 = banc.participations_b2();
    assert_eq!(b2.len(), 1);
    assert!(
        b2[0]
            .configuration
            .as_ref()
            .is_none_or(|c| c.get("micro0_position").is_none()),
        "{b2:?}"
    );
}

/// Le second micro d'un point fixe (`--micro1-*`) : la participation créée porte les clés
/// `micro1_*` du formulaire du site web (`Scille/vigiechiro-front`, `participation_ctrl.coffee`),
/// exactement ; il est retenu par point comme le premier, et repris au passage suivant.
#[test]
fn le_second_micro_porte_les_cles_micro1_du_formulaire_et_se_retient() {
    let banc = Banc::nouveau();
    let options = [&MATERIEL[4..], &SECOND_MICRO[..]].concat();
    let (_, c1) = passage_en_a1(&banc, 1, "0621", &options);
    let deux_micros = json!({
        "micro0_position": "CANOPEE",
        "micro0_hauteur": "4",
        "micro0_type": "ICS",
        "micro1_position": "SOL",
        "micro1_hauteur": "1",
        "micro1_type": "SMX-US",
        "micro1_numero_serie": "M-78",
    });
    assert_eq!(c1, deux_micros);
    // Passage suivant, sans option : les deux micros retenus ; une hauteur redonnée au second
    // ne touche que lui.
    let (_, c2) = passage_en_a1(&banc, 2, "0715", &[]);
    assert_eq!(c2, deux_micros);
    let (out, c3) = passage_en_a1(&banc, 3, "0812", &["--micro1-hauteur", "3"]);
    let mut plus_haut = deux_micros.clone();
    plus_haut["micro1_hauteur"] = json!("3");
    assert_eq!(c3, plus_haut);
    assert!(
        stderr(&out).contains("second micro du point A1 remplacé (--micro1-hauteur 1 → 3)"),
        "{}",
        texte(&out)
    );
}

/// Une participation dont le site web a déjà dit le second micro le garde tel quel quand
/// `vigie` la complète avec d'autres valeurs ; seule une clé absente ou vide est complétée.
#[test]
fn une_participation_qui_dit_deja_son_second_micro_le_garde() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let web = json!({
        "micro1_position": "CANOPEE",
        "micro1_hauteur": "6",
        "micro1_type": "",
    });
    assert!(
        banc.bac()
            .poser_description(PARTICIPATION, web.clone(), json!({}))
    );
    banc.depot_plateforme_avec(&SECOND_MICRO.map(String::from))
        .finir_en(0);
    let c = banc
        .bac()
        .participation(PARTICIPATION)
        .unwrap()
        .configuration
        .unwrap();
    assert_eq!(
        c,
        json!({
            "micro1_position": "CANOPEE",
            "micro1_hauteur": "6",
            "micro1_type": "SMX-US",
            "micro1_numero_serie": "M-78",
        })
    );
}

/// Une nuit routière du circuit de `SITE_ROUTIER` (passage `passage`, le `jour` de juin),
/// faite de ces séquences (nom, octets), déposée dans une participation à créer avec ces
/// options : la sortie et la configuration de la participation créée.
fn routiere(
    banc: &Banc,
    passage: u8,
    jour: &str,
    sequences: &[(String, Vec<u8>)],
    options: &[&str],
) -> (Output, Value) {
    let nuit = banc.dossier.path().join(format!("routier{passage}"));
    std::fs::create_dir_all(&nuit).unwrap();
    for (nom, octets) in sequences {
        std::fs::write(nuit.join(nom), octets).unwrap();
    }
    let debut = format!("2026-06-{jour}T20:30:00Z");
    let fin = format!("2026-06-{jour}T23:59:00Z");
    creer_dans(
        banc,
        SITE_ROUTIER,
        &nuit,
        &["--debut", &debut, "--fin", &fin],
        options,
    )
}

/// `n` séquences du passage `passage`, côté `canal` (`0_` gauche, `1_` droite, comme
/// `task_participation.py` `cir_canal` les lit), en-tête à `frequence` Hz, `canaux` canaux.
fn sequences_routieres(
    passage: u8,
    canal: &str,
    frequence: u32,
    canaux: u8,
    n: usize,
) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let nom = format!("Cir12-2026-Pass{passage}-Tron2-Chiro_{canal}{i:05}_000.wav");
            let mut octets = wav_brut(frequence, &[7; 2_000]);
            // Le nombre de canaux du bloc `fmt ` (octet 22).
            octets[22] = canaux;
            (nom, octets)
        })
        .collect()
}

/// En routier et pédestre, `canal_expansion_temps` et `canal_enregistrement_direct` se déduisent
/// des séquences quand les options ne les disent pas : mono en expansion à gauche (GAUCHE,
/// ABSENT), mono en direct (ABSENT, GAUCHE), un côté de chaque genre (GAUCHE, DROITE). Des
/// séquences stéréo ne disent pas quel canal est lequel : rien n'est posé, et le dépôt le dit
/// avec les options à donner. Les options données l'emportent sur les fichiers.
#[test]
fn les_canaux_d_un_routier_se_deduisent_des_sequences_ou_se_demandent() {
    let banc = Banc::nouveau();
    let canaux = |c: &Value| {
        (
            c["canal_expansion_temps"].clone(),
            c["canal_enregistrement_direct"].clone(),
        )
    };
    let (_, c) = routiere(
        &banc,
        1,
        "01",
        &sequences_routieres(1, "0_", 38_400, 1, 3),
        &[],
    );
    assert_eq!(canaux(&c), (json!("GAUCHE"), json!("ABSENT")), "{c}");
    let (_, c) = routiere(
        &banc,
        2,
        "02",
        &sequences_routieres(2, "", 384_000, 1, 2),
        &[],
    );
    assert_eq!(canaux(&c), (json!("ABSENT"), json!("GAUCHE")), "{c}");
    let deux_cotes = [
        sequences_routieres(3, "0_", 38_400, 1, 2),
        sequences_routieres(3, "1_", 384_000, 1, 2),
    ]
    .concat();
    let (_, c) = routiere(&banc, 3, "03", &deux_cotes, &[]);
    assert_eq!(canaux(&c), (json!("GAUCHE"), json!("DROITE")), "{c}");
    // Stéréo : rien de posé, et c'est dit, avec les options.
    let (out, c) = routiere(
        &banc,
        4,
        "04",
        &sequences_routieres(4, "0_", 38_400, 2, 2),
        &[],
    );
    assert_eq!(canaux(&c), (Value::Null, Value::Null), "{c}");
    let e = stderr(&out);
    assert!(
        e.contains("ne se déduisent pas de ses séquences")
            && e.contains("a 2 canaux")
            && e.contains("--canal-expansion et --canal-direct"),
        "{}",
        texte(&out)
    );
    // Les options l'emportent.
    let (_, c) = routiere(
        &banc,
        5,
        "05",
        &sequences_routieres(5, "0_", 38_400, 1, 1),
        &["--canal-expansion", "DROITE", "--canal-direct", "ABSENT"],
    );
    assert_eq!(canaux(&c), (json!("DROITE"), json!("ABSENT")), "{c}");
    // Ce que le formulaire d'un routier ne demande pas (position, hauteur, second micro) est
    // dit ignoré, pas tu.
    let (out, c) = routiere(
        &banc,
        6,
        "06",
        &sequences_routieres(6, "0_", 38_400, 1, 1),
        &[
            "--micro-type",
            "SMX-U1",
            "--micro-hauteur",
            "3",
            "--micro1-type",
            "SMX-II",
        ],
    );
    assert_eq!(c["micro_type"], json!("SMX-U1"), "{c}");
    assert!(c.get("micro1_type").is_none(), "{c}");
    assert!(
        stderr(&out).contains("--micro-hauteur, --micro1-type sans effet pour un site routier"),
        "{}",
        texte(&out)
    );
}

/// En saison, une nuit déjà liée à sa participation (la saison redonnée avec une option de
/// plus) : la participation de chaque nuit est complétée comme celle d'une nuit seule (relire,
/// fusionner, écrire), sans rien effacer ni remplacer de ce que le site web y a mis. Avant : la
/// destination d'une nuit liée était relue du plan sans sa description, `--meteo` et les
/// options du micro n'atteignaient pas sa participation.
#[test]
fn en_saison_une_nuit_deja_liee_recoit_les_options_de_description() {
    let banc = Banc::nouveau();
    for f in [
        "PA1/Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
        "PA2/Car640139-2026-Pass1-B2-PA2_20260703_220500_000.wav",
    ] {
        banc.fichier(f, 1_000);
    }
    crate::saison::depot_saison(&banc).finir_en(0);
    let ids: std::collections::BTreeSet<String> = banc
        .bac()
        .fichiers()
        .into_iter()
        .filter_map(|f| f.participation)
        .collect();
    assert_eq!(ids.len(), 2, "une participation par nuit : {ids:?}");
    let premiere = ids.first().unwrap();
    // Le site web a décrit la première, en partie.
    let web = json!({
        "micro0_numero_serie": "M-77",
        "micro0_type": "SMX-II",
        "commentaire_libre": "posé par le site",
    });
    assert!(
        banc.bac()
            .poser_description(premiere, web.clone(), json!({ "vent": "NUL" }))
    );
    // La saison redonnée, avec la météo et le micro : chaque nuit est déjà liée.
    crate::saison::depot_saison(&banc)
        .args(METEO)
        .args(["--micro-type", "ICS"])
        .finir_en(0);
    for id in &ids {
        let p = banc.bac().participation(id).unwrap();
        let (c, m) = (
            p.configuration.unwrap_or_default(),
            p.meteo.unwrap_or_default(),
        );
        assert_eq!(m["temperature_debut"], 18, "{id} : météo non posée : {m}");
        assert_eq!(m["couverture"], "0-25", "{id} : {m}");
        if id == premiere {
            for (cle, v) in web.as_object().unwrap() {
                assert_eq!(&c[cle], v, "{cle} effacée ou remplacée : {c}");
            }
            assert_eq!(m["vent"], "NUL", "le vent du site web remplacé : {m}");
        } else {
            assert_eq!(c["micro0_type"], "ICS", "{id} : micro non posé : {c}");
            assert_eq!(m["vent"], "FAIBLE", "{id} : {m}");
        }
    }
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 2);
    // Redonnée encore : rien ne manque plus, rien n'est réécrit.
    crate::saison::depot_saison(&banc)
        .args(METEO)
        .args(["--micro-type", "ICS"])
        .finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiModifierParticipation), 2);
}
