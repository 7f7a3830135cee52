//! La garde de format : une nuit de point fixe dont les séquences ne sont pas en expansion de
//! temps ×10 (un enregistreur direct, en-tête à 384 000 Hz), ou qui ne sont pas des WAV PCM
//! lisibles (un texte nommé `.wav`, un en-tête tronqué), est refusée avant tout envoi et toute
//! création : code 2, aucune requête d'écriture reçue par le bac à sable, le fichier et ce qui
//! cloche nommés, la commande qui prépare la nuit. Chaque cas en mode une nuit (participation à
//! créer : `--site --debut --fin`) et en saison ; une nuit juste passe.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Output;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::Operation;

/// Les requêtes qui écrivent, à la plateforme ou à son S3.
const ECRITURES: [Operation; 14] = [
    Operation::PutObject,
    Operation::UploadPart,
    Operation::CreateMultipartUpload,
    Operation::CompleteMultipartUpload,
    Operation::AbortMultipartUpload,
    Operation::DeleteObject,
    Operation::CreateBucket,
    Operation::ApiCreerParticipation,
    Operation::ApiDeclarerFichier,
    Operation::ApiUrlPartie,
    Operation::ApiFinaliser,
    Operation::ApiAbandonner,
    Operation::ApiCalcul,
    Operation::ApiCsv,
];

fn ecritures(banc: &Banc) -> u64 {
    let c = banc.compteurs();
    ECRITURES.iter().map(|&op| c.requetes(op)).sum()
}

/// Une nuit de trois séquences ×10 (en-tête à 38 400 Hz), et la fautive `nom` avec `octets`,
/// dans le sous-dossier `carte/`.
fn nuit_avec(banc: &Banc, fautive: Option<(&str, Vec<u8>)>) {
    for i in 1..=3 {
        banc.fichier(&format!("carte/{}", nom(i)), 20_000);
    }
    if let Some((chemin, octets)) = fautive {
        std::fs::write(banc.nuit.join("carte").join(chemin), octets).unwrap();
    }
}

/// Un dépôt de la nuit du banc : une nuit, ou la saison.
type Depot = fn(&Banc) -> Output;

/// `vigie depot NUIT/carte --site SITE --point A1 --debut D --fin F` : une participation à
/// créer.
fn depot_une_nuit(banc: &Banc) -> Output {
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(banc.nuit.join("carte"))
        .args(["--site", SITE, "--point", "A1"])
        .args(["--debut", DEBUT_NUIT, "--fin", FIN_NUIT, "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    c.sortie()
}

/// La saison : `vigie depot NUIT --fuseau +02:00`, sans identifiant.
fn depot_saison(banc: &Banc) -> Output {
    super::saison::depot_saison(banc).sortie()
}

/// Un refus de format : code 2, rien écrit à la plateforme ni à son S3, et ce que dit le
/// message.
fn refuse(banc: &Banc, out: &Output, attendus: &[&str]) {
    assert_eq!(code(out), 2, "{}", texte(out));
    assert_eq!(
        ecritures(banc),
        0,
        "une écriture est partie : {}",
        texte(out)
    );
    assert!(banc.bac().fichiers().is_empty());
    contient(&stderr(out), attendus);
    contient(&stderr(out), &["rien n'a été envoyé ni créé"]);
}

#[test]
fn nuit_directe_384_khz_refusee_code_2_sans_ecriture_avec_la_commande_qui_la_prepare() {
    let direct = nom(4);
    let modes: [(Depot, bool); 2] = [(depot_une_nuit, true), (depot_saison, false)];
    for (depot, une_nuit) in modes {
        let banc = Banc::nouveau();
        let mut octets = en_tete_wav(384_000, 1000);
        octets.extend_from_slice(&[0; 1000]);
        nuit_avec(&banc, Some((&direct, octets)));
        let out = depot(&banc);
        refuse(
            &banc,
            &out,
            &[
                &direct,
                "en direct",
                "384 000 Hz",
                "×10",
                "vigie preparer",
                "--vers DOSSIER",
            ],
        );
        // Les séquences justes ne sont pas citées : seule la fautive l'est.
        assert!(!stderr(&out).contains(&nom(1)), "{}", texte(&out));
        // La commande nomme la carte à préparer : le dossier donné.
        let carte = if une_nuit {
            banc.nuit.join("carte")
        } else {
            banc.nuit.clone()
        };
        contient(
            &stderr(&out),
            &[&format!(
                "vigie preparer {} --vers DOSSIER",
                carte.display()
            )],
        );
        // En JSON : l'avertissement nomme la séquence et sa fréquence, l'erreur la nuit.
        let out = super::saison::depot_saison(&banc).arg("--json").sortie();
        assert_eq!(code(&out), 2, "{}", texte(&out));
        let lignes = lignes_json(&out.stdout);
        let format = lignes
            .iter()
            .find(|l| l["motif"] == "format_sequences")
            .unwrap_or_else(|| panic!("pas d'avertissement de format : {}", texte(&out)));
        assert_eq!(format["refus"], true);
        assert_eq!(format["sequences"][0]["frequence_hz"], 384_000);
        assert_eq!(format["sequences"][0]["chemin"], format!("carte/{direct}"));
        assert!(
            format["commande"]
                .as_str()
                .is_some_and(|c| c.starts_with("vigie preparer ")),
            "{format}"
        );
        let erreur = lignes.iter().find(|l| l["evenement"] == "erreur").unwrap();
        assert_eq!(erreur["code"], 2);
        assert_eq!(erreur["nuits"][0]["soiree"], "2026-06-21");
        assert_eq!(ecritures(&banc), 0);
    }
}

#[test]
fn texte_nomme_wav_refuse_code_2_sans_ecriture() {
    let texte_wav = nom(4);
    for depot in [depot_une_nuit, depot_saison] {
        let banc = Banc::nouveau();
        nuit_avec(
            &banc,
            Some((&texte_wav, b"Nuit du 21 juin : rien a signaler.\n".to_vec())),
        );
        let out = depot(&banc);
        refuse(&banc, &out, &[&texte_wav, "pas un WAV", "ne le lirait pas"]);
    }
}

#[test]
fn en_tete_tronque_refuse_code_2_sans_ecriture() {
    let tronque = nom(4);
    for depot in [depot_une_nuit, depot_saison] {
        let banc = Banc::nouveau();
        nuit_avec(
            &banc,
            Some((&tronque, en_tete_wav(38_400, 0)[..30].to_vec())),
        );
        let out = depot(&banc);
        refuse(&banc, &out, &[&tronque, "tronqué", "30 octets"]);
    }
}

#[test]
fn nuit_juste_en_x10_passe_et_sa_reprise_ne_relit_aucun_fichier() {
    for depot in [depot_une_nuit, depot_saison] {
        let banc = Banc::nouveau();
        nuit_avec(&banc, None);
        let out = depot(&banc);
        assert_eq!(code(&out), 0, "{}", texte(&out));
        for i in 1..=3 {
            assert!(
                banc.bac().fichiers().iter().any(|f| f.titre == nom(i)),
                "{} non déposée",
                nom(i)
            );
        }
        // Déposée, une séquence ne se relit pas : devenue illisible depuis (en-tête effacé,
        // même taille), elle ne bloque pas la reprise.
        let premiere = banc.nuit.join("carte").join(nom(1));
        let mut octets = std::fs::read(&premiere).unwrap();
        octets[..4].copy_from_slice(b"XXXX");
        std::fs::write(&premiere, octets).unwrap();
        let avant = ecritures(&banc);
        let out = depot(&banc);
        assert_eq!(code(&out), 0, "{}", texte(&out));
        assert_eq!(ecritures(&banc), avant, "{}", texte(&out));
    }
}

#[test]
fn sequence_directe_ajoutee_a_une_nuit_deposee_refusee_a_la_relance() {
    let banc = Banc::nouveau();
    nuit_avec(&banc, None);
    assert_eq!(code(&depot_saison(&banc)), 0);
    // Une séquence directe ajoutée depuis à la même nuit : `retenter-echecs` la déposerait
    // avec elle ; elle est jugée comme au dépôt.
    let mut octets = en_tete_wav(384_000, 1000);
    octets.extend_from_slice(&[0; 1000]);
    std::fs::write(banc.nuit.join("carte").join(nom(4)), octets).unwrap();
    let avant = ecritures(&banc);
    let out = banc.retenter_plateforme().sortie();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    assert_eq!(ecritures(&banc), avant, "{}", texte(&out));
    contient(&stderr(&out), &[&nom(4), "384 000 Hz", "vigie preparer"]);
}
