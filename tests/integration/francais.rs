//! Ce que le réseau et les serveurs disent en anglais, et ce que le naturaliste en lit : un
//! essai par texte relevé devant un vrai terminal, qui montre qu'il n'apparaît plus (ni
//! pendant le dépôt, ni dans `vigie etat`), et que la cause reste dite, en français.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use serde_json::json;

use crate::commun::plateforme::*;
use crate::commun::*;

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
        .mots("--progression jamais")
        .sortie();
    let etat = stdout(&banc.vigie().arg("etat").sortie());
    (out, etat)
}

/// Un 403 nu (« Forbidden », comme le rend un relais devant la plateforme) : la cause est dite
/// en français, le mot anglais n'apparaît nulle part.
#[test]
fn un_refus_nu_ne_dit_pas_forbidden() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
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
    contient(&tout, &["refusé (403) : accès refusé par le serveur"]);
    assert!(!tout.contains("Forbidden"), "{tout}");
}

/// Un enregistrement que la plateforme ne connaît plus au moment de le finaliser
/// (`xin/snippets.py` `get_resource` : 404 « `ID` is not a valid fichiers resource ») : dit
/// « fichier ID inconnu(e) de la plateforme ».
#[test]
fn un_fichier_inconnu_ne_dit_pas_is_not_a_valid_resource() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
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
    contient(
        &tout,
        &["fichier 6b0ea1b2c3d4e5f607182930 inconnu(e) de la plateforme"],
    );
    absent(&tout, &["is not a valid", "resource"]);
}

/// Les variables d'environnement posées (`VIGIE_API`, `AWS_ENDPOINT_URL`, `AWS_REGION`,
/// `VIGIE_BASE`) ne font pas de leurs options des arguments obligatoires dans la ligne
/// d'usage d'une erreur.
#[test]
fn la_ligne_d_usage_ne_montre_pas_les_variables_comme_obligatoires() {
    let banc = Banc::nouveau();
    let out = banc
        .vigie()
        .arg("depot")
        .env("VIGIE_API", banc.bac().api())
        .env("AWS_ENDPOINT_URL", banc.bac().endpoint())
        .env("AWS_REGION", "us-east-1")
        .finir_en(2);
    let erreur = stderr(&out);
    let usage = erreur
        .lines()
        .find(|l| l.starts_with("Utilisation : "))
        .unwrap_or_default();
    assert!(usage.starts_with("Utilisation : vigie depot "), "{erreur}");
    assert!(usage.contains("<DOSSIER>"), "{erreur}");
    for option in [
        "--api <URL>",
        "--endpoint-url",
        "--region",
        "--base <FICHIER>",
    ] {
        assert!(!usage.contains(option), "{option} : {erreur}");
    }
}

/// Un jeton refusé en cours de route : chaque fichier qui suit échoue avec le même message de
/// trois lignes. Il est dit une fois, puis compté, en lignes comme sous les barres ; le bilan
/// compte les fichiers.
#[test]
fn un_message_repete_par_fichier_est_dit_une_fois_avec_un_compte() {
    use vigie_bac_a_sable::Operation;
    for (progression, compte) in [
        ("jamais", "même message ; il ne sera plus répété"),
        (
            "toujours",
            "… même message pour 29 autres fichiers : refus définitif",
        ),
    ] {
        let banc = Banc::nouveau();
        for i in 0..30 {
            banc.fichier(&nom(i), 100);
        }
        banc.panne_toujours(Operation::ApiDeclarerFichier, code_http(401));
        let out = banc
            .depot_plateforme()
            .args(["--progression", progression])
            .finir_en(3);
        let erreur = stderr(&out);
        assert_eq!(
            erreur
                .matches("jeton Vigie-Chiro refusé ou expiré (401)")
                .count(),
            if progression == "jamais" { 1 } else { 2 },
            "{progression} : {erreur}"
        );
        assert!(erreur.contains(compte), "{progression} : {erreur}");
        out.stdout_contient(&["30 refus définitifs AUTHENTIFICATION"]);
        // `vigie etat` aussi : le message une fois, avec le compte et deux noms.
        let etat = stdout(&banc.vigie().arg("etat").sortie());
        assert_eq!(
            etat.matches("jeton Vigie-Chiro refusé ou expiré (401)")
                .count(),
            1,
            "{etat}"
        );
        contient(
            &etat,
            &["    30 fichiers : jeton Vigie-Chiro refusé ou expiré (401)"],
        );
        assert!(etat.contains("… et 28 autre(s)"), "{etat}");
    }
}
