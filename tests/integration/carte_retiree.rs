//! Une nuit déposée depuis une carte SD (ou un disque USB) retirée pendant le dépôt, puis
//! remise : le dépôt attend la nuit au lieu de marquer ses fichiers en échec, le dit une fois
//! (`nuit_indisponible`), et reprend de lui-même quand elle revient (`nuit_retrouvee`). Le
//! retrait est imité par un renommage du dossier de la nuit, qui disparaît comme `E:\` quand on
//! retire la carte ; la remise, par le renommage inverse : la même nuit, les mêmes fichiers.
//! Le même retrait, sous wine et par le lecteur `E:` lui-même, est dans
//! `scripts/verifier-paquets.sh`.

#![cfg(feature = "bac-a-sable")]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{ChildStdout, Stdio};
use std::time::Duration;

use crate::commun::*;
use vigie_bac_a_sable::{Operation, Regle, RetryAfter};

/// Le premier envoi de `a.wav` est refusé en 503 avec `Retry-After: 3` : la carte est retirée
/// pendant cette attente, et l'envoi suivant trouve la nuit disparue.
fn nuit_dont_le_premier_envoi_attend(banc: &Banc) -> Vec<(String, usize)> {
    let fichiers = banc.fichiers(vec![
        ("a.wav".to_owned(), 2_000),
        ("sous-dossier/b.wav".to_owned(), 6 * MIO + 10),
        ("sous-dossier/c.wav".to_owned(), 3_000),
    ]);
    banc.panne(Regle::nieme(
        Operation::PutObject,
        Some(banc.cle("a.wav").as_str()),
        1,
        code_http_apres(503, RetryAfter::Secondes(3)),
    ));
    fichiers
}

/// Lit les lignes JSON jusqu'à l'événement `nom` (compris) ; les rend toutes.
fn jusqu_a(lecteur: &mut BufReader<ChildStdout>, nom: &str) -> Vec<serde_json::Value> {
    let mut lues = Vec::new();
    loop {
        let mut ligne = String::new();
        assert!(
            lecteur.read_line(&mut ligne).unwrap() > 0,
            "sortie close avant « {nom} » : {lues:?}"
        );
        let v: serde_json::Value = serde_json::from_str(&ligne).unwrap();
        valider_ligne(&v);
        let fin = v["evenement"] == nom;
        lues.push(v);
        if fin {
            return lues;
        }
    }
}

/// `vigie depot --json`, une unité en vol à la fois, et sa sortie standard à lire au fil de
/// l'eau. Aux délais larges du banc ([`Banc::options_rapides`]) : avec des délais courts, sous
/// charge, les parties de `b.wav` dépassaient 2 s, et l'unité finissait en échec « délai de
/// tentative dépassé » sans que la carte y soit pour rien.
fn lancer_le_depot(banc: &Banc) -> (Enfant, BufReader<ChildStdout>) {
    let mut depot = banc.depot();
    depot
        .mots("--json --paralleles 1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut enfant = Enfant::from(depot.spawn().unwrap());
    let lecteur = BufReader::new(enfant.stdout.take().unwrap());
    (enfant, lecteur)
}

fn retiree(banc: &Banc) -> PathBuf {
    banc.nuit.with_extension("retiree")
}

/// Retirée puis remise : pas un échec, pas une relance ; code 0, tout déposé à l'identique,
/// l'attente dite une fois avec le dossier de la nuit.
#[test]
fn une_carte_retiree_puis_remise_pendant_le_depot_finit_deposee() {
    let banc = Banc::nouveau();
    let fichiers = nuit_dont_le_premier_envoi_attend(&banc);
    let (enfant, mut lecteur) = lancer_le_depot(&banc);

    let avant = jusqu_a(&mut lecteur, "nouvelle_tentative");
    let dossier = vigie::plateforme::chemins::canonique(&banc.nuit).unwrap();
    std::fs::rename(&banc.nuit, retiree(&banc)).unwrap();
    let pendant = jusqu_a(&mut lecteur, "nuit_indisponible");
    let annonce = pendant.last().unwrap();
    assert_eq!(annonce["dossier"], chemin_str(&dossier), "{annonce}");
    std::fs::rename(retiree(&banc), &banc.nuit).unwrap();
    let retour = jusqu_a(&mut lecteur, "nuit_retrouvee");
    let mut reste = String::new();
    lecteur.read_to_string(&mut reste).unwrap();
    let out = attendre_fin(enfant, Duration::from_secs(60));
    let mut lignes = avant;
    lignes.extend(pendant);
    lignes.extend(retour);
    lignes.extend(lignes_json(reste.as_bytes()));
    assert_eq!(code(&out), 0, "{}\n{lignes:?}", texte(&out));

    assert!(
        evenements(&lignes, "unite_en_echec").is_empty(),
        "un fichier d'une carte retirée n'est pas un échec : {lignes:?}"
    );
    assert_eq!(evenements(&lignes, "nuit_indisponible").len(), 1);
    assert_eq!(evenements(&lignes, "nuit_retrouvee").len(), 1);
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan", "{bilan}");
    assert_eq!(bilan["deposees"], 3, "{bilan}");
    banc.verifier_identiques(&fichiers);
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 3), ("echec", 0)]);
}

/// Ctrl-C pendant que l'on attend la carte : code 130, rien en échec ni en cours ; la carte
/// remise, relancer le même dépôt finit le travail.
#[test]
fn ctrl_c_pendant_l_attente_de_la_carte_laisse_un_plan_a_reprendre() {
    let banc = Banc::nouveau();
    let fichiers = nuit_dont_le_premier_envoi_attend(&banc);
    let (enfant, mut lecteur) = lancer_le_depot(&banc);
    jusqu_a(&mut lecteur, "nouvelle_tentative");
    std::fs::rename(&banc.nuit, retiree(&banc)).unwrap();
    jusqu_a(&mut lecteur, "nuit_indisponible");
    signal(&enfant, "INT");
    let mut reste = String::new();
    lecteur.read_to_string(&mut reste).unwrap();
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 130, "{}\n{reste}", texte(&out));
    let etat = banc.etat();
    assert_unites(&etat, &[("en_cours", 0), ("echec", 0)]);

    std::fs::rename(retiree(&banc), &banc.nuit).unwrap();
    banc.depot().finir_en(0);
    banc.verifier_identiques(&fichiers);
}
