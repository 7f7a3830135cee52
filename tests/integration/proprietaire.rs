//! La participation d'un autre observateur : la plateforme accepte qu'on y déclare des fichiers
//! (`resources/fichiers.py` : `_validate_participation` n'est jamais appelé) et ne permet pas de
//! les en retirer. `vigie` la refuse avant toute déclaration (code 3), en disant à qui elle est ;
//! et `vigie verifier`, devant un refus définitif, ne dit pas « injoignable… plus tard ».

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{OBSERVATEUR_AUTRE, Operation, PARTICIPATION_AUTRE, PSEUDO_AUTRE};

fn depot_vers(banc: &Banc, participation: &str) -> std::process::Command {
    let mut c = banc.depot_dans(participation, &banc.bac().api());
    c.args(Banc::options_rapides());
    c
}

#[test]
fn participation_d_un_autre_observateur_refusee_avant_toute_declaration() {
    let banc = Banc::nouveau();
    for i in 0..3 {
        banc.fichier(&nom(i), 10_000 + i);
    }
    let out = depot_vers(&banc, PARTICIPATION_AUTRE).finir_en(3);
    let erreur = stderr(&out);
    // À qui elle est (son pseudo, lisible), et que ce n'est pas le compte du jeton.
    assert!(
        erreur.contains(PSEUDO_AUTRE) && erreur.contains(OBSERVATEUR_AUTRE),
        "{}",
        texte(&out)
    );
    assert!(
        erreur.contains("pas à vous") && erreur.contains("rien n'a été envoyé"),
        "{}",
        texte(&out)
    );
    // Rien de déclaré, rien d'envoyé, aucun plan laissé.
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 0);
    assert!(banc.bac().fichiers().is_empty());
    assert_eq!(banc.compteurs().octets_recus(), 0);
    let plans = banc.vigie().mots("plans --json").sortie();
    plans.stdout_sans(&[PARTICIPATION_AUTRE]);

    // En JSON : la même erreur, code 3, en dernière ligne.
    let out = depot_vers(&banc, PARTICIPATION_AUTRE)
        .arg("--json")
        .finir_en(3);
    let lignes = lignes_json(&out.stdout);
    let erreur = lignes.last().expect("une ligne d'erreur");
    assert_eq!(
        (&erreur["evenement"], &erreur["code"]),
        (&serde_json::json!("erreur"), &serde_json::json!(3)),
        "{erreur}"
    );
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 0);
}

/// Un plan laissé par une version antérieure vers la participation d'un autre : ni
/// `retenter-echecs` ni `verifier` ne s'y trompent (code 3, rien de déclaré).
#[test]
fn plan_ancien_vers_la_participation_d_un_autre_refuse_a_la_reprise() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    banc.fichier(&nom(2), 20_000);
    banc.depot_plateforme().finir_en(0);
    // Le plan vise désormais la participation d'un autre (ce qu'aurait laissé une version qui
    // ne vérifiait pas), un fichier restant à déposer.
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    c.execute_batch(&format!(
        "UPDATE depot_plan SET destination = replace(destination, '{PARTICIPATION}', \
         '{PARTICIPATION_AUTRE}'), participation = '{PARTICIPATION_AUTRE}'; \
         UPDATE depot_unite SET etat = 'a_deposer' WHERE chemin = '{}';",
        nom(2)
    ))
    .unwrap();
    drop(c);
    let declarations = banc.requetes(Operation::ApiDeclarerFichier);
    let out = banc.retenter_plateforme().finir_en(3);
    assert!(stderr(&out).contains(PSEUDO_AUTRE), "{}", texte(&out));
    let out = banc
        .vigie_plateforme()
        .arg("verifier")
        .args(Banc::reessais_rapides())
        .finir_en(3);
    let tout = texte(&out);
    contient(&tout, &[PSEUDO_AUTRE, "rien n'a été vérifié"]);
    assert_eq!(
        banc.requetes(Operation::ApiDeclarerFichier),
        declarations,
        "une déclaration est partie"
    );
}

/// La plateforme refuse de relire (403, comme `_check_read_access` pour la participation d'un
/// autre observateur) : un refus définitif, code 3, qui dit quoi vérifier ; jamais
/// « injoignable… plus tard » (code 1).
#[test]
fn verifier_devant_un_refus_definitif_ne_dit_pas_injoignable() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    banc.depot_plateforme().finir_en(0);
    banc.panne_toujours(Operation::ApiPiecesJointes, code_http(403));
    let verifier = |json: bool| {
        let mut c = banc.vigie_plateforme();
        c.arg("verifier").args(Banc::reessais_rapides());
        if json {
            c.arg("--json");
        }
        c.sortie()
    };
    let out = verifier(false);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let sortie = stdout(&out);
    assert!(
        !sortie.contains("injoignable") && !sortie.contains("plus tard"),
        "{}",
        texte(&out)
    );
    assert!(
        sortie.contains("refuse de le relire") && sortie.contains("403"),
        "{}",
        texte(&out)
    );
    assert!(
        sortie.contains("bien la vôtre") && sortie.contains("vigie verifier 1"),
        "{}",
        texte(&out)
    );
    // Le fichier n'est ni remis à déposer ni noté en échec : le plan ne ment pas.
    assert_eq!(banc.etat()["unites"]["deposee"], 1);
    let out = verifier(true);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    for l in &lignes {
        valider_ligne(l);
    }
    let bilan = evenements(&lignes, "bilan_verification");
    assert_eq!(bilan[0]["refusees"], 1, "{}", texte(&out));
    assert_eq!(evenements(&lignes, "verification")[0]["etat"], "refusee");
}
