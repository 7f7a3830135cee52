//! Ce que le réseau et les serveurs disent en anglais, et ce que le naturaliste en lit : un
//! essai par texte relevé devant un vrai terminal, qui montre qu'il n'apparaît plus (ni
//! pendant le dépôt, ni dans `vigie etat`), et que la cause reste dite, en français.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use serde_json::json;

use crate::commun::plateforme::*;
use crate::commun::*;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Un dépôt Vigie-Chiro derrière un mandataire qui remplace la réponse à `methode chemin`.
fn depot_avec_reponse(
    banc: &Banc,
    methode: &'static str,
    chemin: impl Fn(&str) -> bool + Send + Sync + 'static,
    statut: u16,
    type_contenu: &'static str,
    corps: String,
) -> (std::process::Output, String) {
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == methode && chemin(&q.chemin) {
            r.statut = statut;
            r.remplacer_entete("content-type", type_contenu);
            r.corps = corps.clone().into_bytes();
        }
    });
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .args(["--progression", "jamais"])
        .output()
        .unwrap();
    let etat = stdout(&banc.vigie().arg("etat").output().unwrap());
    (out, etat)
}

/// Un 403 nu (« Forbidden », comme le rend un relais devant la plateforme) : la cause est dite
/// en français, le mot anglais n'apparaît nulle part.
#[test]
fn un_refus_nu_ne_dit_pas_forbidden() {
    let banc = Banc::nouveau();
    banc.fichier(&nom(1), 1000);
    let (out, etat) = depot_avec_reponse(
        &banc,
        "POST",
        |c| c == "/api/v1/fichiers",
        403,
        "text/plain",
        "Forbidden".into(),
    );
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let tout = format!("{}{etat}", texte(&out));
    assert!(
        tout.contains("refusé (403) : accès refusé par le serveur"),
        "{tout}"
    );
    assert!(!tout.contains("Forbidden"), "{tout}");
}

/// Un enregistrement que la plateforme ne connaît plus au moment de le finaliser
/// (`xin/snippets.py` `get_resource` : 404 « `ID` is not a valid fichiers resource ») : dit
/// « fichier ID inconnu(e) de la plateforme ».
#[test]
fn un_fichier_inconnu_ne_dit_pas_is_not_a_valid_resource() {
    let banc = Banc::nouveau();
    banc.fichier(&nom(1), 1000);
    let (out, etat) = depot_avec_reponse(
        &banc,
        "POST",
        |c| c.starts_with("/api/v1/fichiers/"),
        404,
        "application/json",
        json!({
            "_status": "404 Not Found: `6b0ea1b2c3d4e5f607182930` is not a valid fichiers resource",
            "_errors": "`6b0ea1b2c3d4e5f607182930` is not a valid fichiers resource",
        })
        .to_string(),
    );
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let tout = format!("{}{etat}", texte(&out));
    assert!(
        tout.contains("fichier 6b0ea1b2c3d4e5f607182930 inconnu(e) de la plateforme"),
        "{tout}"
    );
    assert!(!tout.contains("is not a valid"), "{tout}");
    assert!(!tout.contains("resource"), "{tout}");
}
