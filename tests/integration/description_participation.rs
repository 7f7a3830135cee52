//! La participation décrite : `configuration` (clés du formulaire du site web) et `meteo`
//! posées à la création par `vigie depot --site` ; une participation existante complétée sans
//! rien effacer ni remplacer de ce que le site web y a mis (relire, fusionner, écrire : le
//! `PATCH` remplace le dictionnaire entier, `resources/participations.py`
//! `edit_participation`, imité par le bac à sable) ; une valeur hors choix refusée avant tout
//! envoi. `vigie participations` dit, pour chaque participation, ce que sa configuration ne
//! dit pas encore et l'option qui le pose.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use serde_json::json;

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
