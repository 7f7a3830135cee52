//! La participation que `vigie depot --site` crée : sans point pour un site routier (le serveur
//! le tient pour facultatif), exigé pour un site point fixe ; un site inconnu dit avant tout
//! plan (code 2) ; et, après une réponse de création perdue, la participation retrouvée est
//! celle qui a été demandée, pas la dernière d'une liste que le serveur ne trie pas.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, SITE_ROUTIER};

const DEBUT: &str = "2026-06-21T21:30:00+02:00";
const FIN: &str = "2026-06-22T06:00:00+02:00";

/// `vigie depot NUIT --site SITE [--point P] --debut … --fin …`, réglages courts.
fn creer(banc: &Banc, site: &str, point: Option<&str>) -> Command {
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(["--site", site, "--debut", DEBUT, "--fin", FIN, "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    if let Some(p) = point {
        c.args(["--point", p]);
    }
    c
}

/// Un nom du protocole routier (`validate_donnee_name`, `resources/donnees.py`), du circuit
/// de `SITE_ROUTIER` (`Vigiechiro - Routier-12`) : un autre numéro serait un refus.
fn nom_routier(i: usize) -> String {
    format!("Cir12-2026-Pass1-Tron2-Chiro_1_{i:06}_000.wav")
}

#[test]
fn site_routier_sans_point_une_seule_participation() {
    let banc = Banc::nouveau();
    for i in 0..3 {
        banc.fichier(&nom_routier(i), 20_000 + i);
    }
    creer(&banc, SITE_ROUTIER, None).finir_en(0);
    let creees = banc.bac().participations(SITE_ROUTIER);
    assert_eq!(creees.len(), 1, "{creees:?}");
    assert_eq!(creees[0].point, None, "un point inventé : {creees:?}");
    for i in 0..3 {
        let f = banc.bac().fichier(&creees[0].id, &nom_routier(i)).unwrap();
        assert!(f.disponible);
    }
    // Relancer : le même plan, la même participation.
    creer(&banc, SITE_ROUTIER, None).finir_en(0);
    assert_eq!(banc.bac().participations(SITE_ROUTIER).len(), 1);
    assert_eq!(banc.requetes(Operation::ApiCreerParticipation), 1);
}

/// Sur un site point fixe, le point reste exigé (les noms le portent) : code 2, avant tout plan
/// et toute création.
#[test]
fn site_point_fixe_sans_point_refuse_avant_tout_plan() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let out = creer(&banc, SITE, None).finir_en(2);
    let erreur = stderr(&out);
    assert!(
        erreur.contains("point fixe") && erreur.contains("--point"),
        "{}",
        texte(&out)
    );
    rien_de_cree(&banc);
}

/// Ni participation créée, ni plan local laissé (`vigie plans --json` : une ligne par plan).
fn rien_de_cree(banc: &Banc) {
    assert_eq!(banc.requetes(Operation::ApiCreerParticipation), 0);
    let out = banc.vigie().mots("plans --json").sortie();
    assert!(
        evenements(&lignes_json(&out.stdout), "plans").is_empty(),
        "un plan local est resté : {}",
        texte(&out)
    );
}

/// Un site inconnu : code 2 (pas 3), sans plan local, sans tentative de création.
#[test]
fn site_inconnu_code_2_sans_plan_local() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let out = creer(&banc, "64a1b2c3d4e5f60718293cff", Some("A1")).finir_en(2);
    let erreur = stderr(&out);
    assert!(
        erreur.contains("64a1b2c3d4e5f60718293cff") && erreur.contains("n'existe pas"),
        "{}",
        texte(&out)
    );
    rien_de_cree(&banc);
}

/// La réponse de la création est perdue. Le site porte déjà, au même point et aux mêmes
/// instants, une participation d'un autre observateur (la liste d'un site est celle de tous)
/// et une de l'utilisateur, créée avant sur le site web ; la plateforme ne trie pas sa liste.
/// La participation retrouvée est celle que la création a faite.
#[test]
fn reponse_de_creation_perdue_la_participation_retrouvee_est_la_demandee() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let nuit = serde_json::json!({
        "date_debut": "Sun, 21 Jun 2026 19:30:00 GMT",
        "date_fin": "Mon, 22 Jun 2026 04:00:00 GMT",
        "point": "B2",
    });
    let chemin = format!("/sites/{SITE}/participations");
    let (statut, autre) = banc.appel_api_avec(
        vigie_bac_a_sable::JETON_AUTRE,
        reqwest::Method::POST,
        &chemin,
        nuit.clone(),
    );
    assert_eq!(statut, 201, "{autre}");
    let (statut, du_site_web) = banc.appel_api(reqwest::Method::POST, &chemin, nuit);
    assert_eq!(statut, 201, "{du_site_web}");
    banc.panne_prochaine(Operation::ApiCreerParticipation, Panne::PerdreReponse);
    creer(&banc, SITE, Some("B2")).finir_en(0);
    let creee: Vec<_> = banc
        .bac()
        .participations(SITE)
        .into_iter()
        .filter(|p| {
            p.point.as_deref() == Some("B2")
                && p.id != autre["_id"].as_str().unwrap()
                && p.id != du_site_web["_id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(creee.len(), 1, "une seule création : {creee:?}");
    assert!(
        banc.bac().fichier(&creee[0].id, &nom(1)).is_some(),
        "la nuit n'est pas dans la participation créée"
    );
    assert_eq!(banc.etat()["participation"], creee[0].id.as_str());
}
