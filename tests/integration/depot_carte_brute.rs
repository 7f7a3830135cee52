//! `vigie depot CARTE` d'une carte brute : la préparation se fait au fil de
//! l'envoi, sans copie sur le disque de l'ordinateur, et ce qui est déposé est octet pour octet
//! ce que `vigie preparer` écrit (même nom, même contenu : SHA-256). La carte : deux Passive
//! Recorder de 12,3 s qui se chevauchent (en-tête à 38 400 Hz, journal `LogPR` à Fe384kHz) et
//! un enregistreur direct de 7 s (en-tête à 384 000 Hz), noms déjà préfixés
//! (`Car640139-2026-Pass1-A1-…`). Les originaux restent inchangés et rien n'est écrit sur la
//! carte ; kill -9 au milieu puis relance : rien ne manque, rien de doublé (compté côté
//! serveur) ; un original modifié entre la planification et l'envoi est dit comme un fichier
//! modifié. En saison (`vigie depot CARTE` sans destination), une carte brute de deux nuits :
//! chaque séquence, celle de `preparer`, dans la participation de sa nuit.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use vigie_bac_a_sable::{Operation, Regle, Relache};

use crate::commun::plateforme::*;
use crate::commun::*;

const FE: usize = 384_000;
const JOURNAL: &str = "21/06/26 - 16:02:21 PR1925492 Démarrage, PR V1.3\n\
21/06/26 - 16:02:22 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz, Bd. Freq. 8-120kHz\n";
const P: &str = "Car640139-2026-Pass1-A1-";
/// Le dossier de la nuit que `preparer` écrit (et le début de chaque clé S3).
const NUIT: &str = "Car640139-2026-Pass1-A1-20260621";
/// 3 + 3 tranches des Passive Recorder, 2 du direct.
const SEQUENCES: usize = 8;

/// Les originaux de la carte (chemin relatif), écrits dans `racine`.
fn carte(racine: &Path) -> Vec<String> {
    carte_nommee(racine, P)
}

/// Les originaux de la carte, leurs noms précédés de `P` (`""` : tels que les écrivent les
/// enregistreurs, sans le préfixe `Car<site>-<année>-Pass<n>-<point>-`).
fn carte_nommee(racine: &Path, prefixe: &str) -> Vec<String> {
    let bruts = [
        (
            format!("PR/Data/{prefixe}PaRecPR1925492_20260621_223000.wav"),
            38_400,
            123 * FE / 10,
        ),
        (
            format!("PR/Data/{prefixe}PaRecPR1925492_20260621_223010.wav"),
            38_400,
            123 * FE / 10,
        ),
        (
            format!("SM4/{prefixe}S4U12345_20260621_224000.wav"),
            384_000,
            7 * FE,
        ),
    ];
    std::fs::create_dir_all(racine.join("PR/Data")).unwrap();
    std::fs::create_dir_all(racine.join("SM4")).unwrap();
    std::fs::write(racine.join("PR/LogPR1925492.txt"), JOURNAL).unwrap();
    bruts
        .into_iter()
        .map(|(chemin, frequence, trames)| {
            std::fs::write(
                racine.join(&chemin),
                wav_brut(frequence, &contenu(&chemin, trames * 2)),
            )
            .unwrap();
            chemin
        })
        .collect()
}

/// Ce que `vigie preparer` écrit de la carte du banc : (chemin sous la sortie, SHA-256).
fn preparee(banc: &Banc) -> BTreeMap<String, String> {
    preparee_avec(banc, &[])
}

/// [`preparee`], avec ces options (`--site`, `--passage`, `--point`).
fn preparee_avec(banc: &Banc, options: &[&str]) -> BTreeMap<String, String> {
    let sortie = banc
        .dossier
        .path()
        .join(format!("prepare-{}", rand_suffixe()));
    banc.vigie()
        .arg("preparer")
        .arg(&banc.nuit)
        .arg("--vers")
        .arg(&sortie)
        .args(options)
        .finir_en(0);
    empreintes_sous(&sortie)
}

/// [`preparee`], la carte d'une nuit : ses [`SEQUENCES`] séquences dans le dossier [`NUIT`].
fn reference(banc: &Banc) -> BTreeMap<String, String> {
    let r = preparee(banc);
    assert_eq!(r.len(), SEQUENCES, "{r:#?}");
    assert!(
        r.keys().all(|k| k.starts_with(&format!("{NUIT}/"))),
        "{r:#?}"
    );
    r
}

fn rand_suffixe() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Ce que tient la participation du bac à sable : (dossier de la nuit / titre, SHA-256), et le
/// nombre d'enregistrements (un doublon se verrait).
fn deposes_plateforme(banc: &Banc) -> (BTreeMap<String, String>, usize) {
    let enregistres = banc.bac().fichiers();
    let vus = enregistres
        .iter()
        .map(|f| {
            assert!(
                banc.finalise(PARTICIPATION, &f.titre),
                "{} non finalisé",
                f.titre
            );
            (
                format!("{NUIT}/{}", f.titre),
                sha256(&banc.objet_plateforme(PARTICIPATION, &f.titre)),
            )
        })
        .collect();
    (vus, enregistres.len())
}

#[test]
fn vers_s3_les_objets_sont_ceux_de_preparer_et_la_carte_reste_intacte() {
    let banc = Banc::nouveau();
    carte(&banc.nuit);
    let attendus = reference(&banc);
    let avant = empreintes_sous(&banc.nuit);
    let out = banc.depot().finir_en(0);
    out.stderr_contient(&["carte brute", "3 originaux", "8 séquences"]);
    assert_eq!(banc.empreintes_s3(), attendus);
    // Ni un original changé, ni un fichier ajouté sur la carte.
    assert_eq!(empreintes_sous(&banc.nuit), avant);
    assert_eq!(banc.etat()["unites"]["deposee"], SEQUENCES as u64);
    // La relance ne renvoie rien.
    let recus = banc.compteurs().octets_recus();
    banc.depot().finir_en(0);
    assert_eq!(banc.compteurs().octets_recus(), recus);
}

/// Vers un dossier (le disque externe où l'on archive la carte avant de l'effacer) : chaque
/// séquence y arrive sous le chemin et avec les octets que `vigie preparer` écrit, la carte
/// reste intacte, `vigie verifier` relit chaque séquence et la relance ne réécrit rien.
#[test]
fn vers_un_dossier_les_fichiers_sont_ceux_de_preparer_et_la_carte_reste_intacte() {
    let banc = Banc::nouveau();
    carte(&banc.nuit);
    let attendus = reference(&banc);
    let avant = empreintes_sous(&banc.nuit);
    let disque = banc.dossier.path().join("disque-externe");
    std::fs::create_dir_all(&disque).unwrap();
    let depot = || {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .arg("--vers")
            .arg(format!("dossier:{}", disque.display()))
            .args(Banc::reessais_rapides());
        c
    };
    let out = depot().finir_en(0);
    out.stderr_contient(&["carte brute", "3 originaux", "8 séquences"]);
    assert_eq!(empreintes_sous(&disque), attendus);
    assert_eq!(empreintes_sous(&banc.nuit), avant);
    let out = banc.vigie().arg("verifier").finir_en(0);
    assert!(
        stdout(&out).contains("8 fichiers intacts"),
        "{}",
        texte(&out)
    );
    // La relance ne réécrit rien : rien n'est déposé de nouveau.
    let out = depot().arg("--json").finir_en(0);
    assert!(evenements(&lignes_json(&out.stdout), "unite_deposee").is_empty());
    assert_eq!(empreintes_sous(&disque), attendus);
}

#[test]
fn simulation_dit_les_sequences_preparees_sans_rien_envoyer() {
    let banc = Banc::nouveau();
    carte(&banc.nuit);
    let mut c = banc.depot();
    c.arg("--simulation");
    let out = c.finir_en(0);
    out.stderr_contient(&["carte brute", "8 séquences"]);
    assert!(
        texte(&out).contains(&format!("{P}PaRecPR1925492_20260621_223010_001.wav")),
        "{}",
        texte(&out)
    );
    assert_eq!(banc.requetes(Operation::PutObject), 0);
}

#[test]
fn vers_la_plateforme_kill_9_au_milieu_puis_relance_rien_ne_manque_rien_de_double() {
    let banc = Banc::nouveau();
    carte(&banc.nuit);
    let attendus = reference(&banc);
    let avant = empreintes_sous(&banc.nuit);
    // Chaque requête traîne : le processus est tué au milieu de la nuit.
    banc.panne(Regle::proportion(1.0, lenteur_ms(300)));
    let mut enfant = banc.lancer(banc.depot_plateforme());
    banc.attendre("deux séquences finalisées", |b| {
        b.compteurs().requetes(Operation::ApiFinaliser) >= 2
    });
    enfant.kill().unwrap(); // SIGKILL
    let _ = enfant.wait();
    let finalisees = banc
        .bac()
        .fichiers()
        .iter()
        .filter(|f| f.disponible)
        .count();
    assert!(finalisees < SEQUENCES, "tout était parti avant le kill -9");
    banc.bac().pannes().effacer();

    banc.depot_plateforme().finir_en(0);
    let (deposes, enregistrements) = deposes_plateforme(&banc);
    assert_eq!(
        enregistrements, SEQUENCES,
        "enregistrement en double ou manquant"
    );
    assert_eq!(deposes, attendus);
    banc.aucun_envoi_ouvert();
    assert_eq!(empreintes_sous(&banc.nuit), avant);
}

#[test]
fn un_original_modifie_entre_planification_et_envoi_est_dit_modifie() {
    let banc = Banc::nouveau();
    let originaux = carte(&banc.nuit);
    let premiere = format!("{NUIT}/{P}PaRecPR1925492_20260621_223000_000.wav");
    let relache = Relache::nouvelle();
    banc.panne(retenir_a_partir_de(
        Operation::PutObject,
        &banc.cle(&premiere),
        1,
        &relache,
    ));
    let enfant = banc.lancer(banc.depot());
    banc.attendre("le PUT de la première séquence arrive", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 1
    });
    // Des octets PCM de la première tranche changent pendant que le serveur retient l'envoi.
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(banc.nuit.join(&originaux[0]))
            .unwrap();
        f.seek(SeekFrom::Start(1_000)).unwrap();
        f.write_all(&[0x5a; 4096]).unwrap();
    }
    relache.relacher();
    let out = attendre_fin(enfant, Duration::from_secs(60));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    assert!(texte(&out).contains("modifié"), "{}", texte(&out));
    let etat = banc.etat();
    assert!(etat["unites"]["echec"].as_u64().unwrap() >= 1, "{etat}");

    // La relance replanifie l'original : ce qui part est ce que `preparer` écrit maintenant.
    banc.bac().pannes().effacer();
    banc.depot().finir_en(0);
    assert_eq!(banc.empreintes_s3(), reference(&banc));
}

/// Une seconde nuit sur la carte : l'enregistreur direct, le lendemain soir (deux tranches).
const NUIT_2: &str = "Car640139-2026-Pass1-A1-20260622";

#[test]
fn en_saison_une_carte_brute_de_deux_nuits_chaque_sequence_dans_sa_participation() {
    let banc = Banc::nouveau();
    carte(&banc.nuit);
    let direct = format!("SM4/{P}S4U12345_20260622_221500.wav");
    std::fs::write(
        banc.nuit.join(&direct),
        wav_brut(384_000, &contenu(&direct, 7 * FE * 2)),
    )
    .unwrap();
    // Ce que `preparer` écrit, nuit par nuit : {titre : SHA-256}.
    let mut attendues: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (chemin, empreinte) in preparee(&banc) {
        let (nuit, titre) = chemin.split_once('/').unwrap();
        attendues
            .entry(nuit.to_owned())
            .or_default()
            .insert(titre.to_owned(), empreinte);
    }
    assert_eq!(
        attendues.keys().collect::<Vec<_>>(),
        [NUIT, NUIT_2],
        "{attendues:#?}"
    );
    assert_eq!(attendues[NUIT].len(), SEQUENCES);
    assert_eq!(attendues[NUIT_2].len(), 2);
    let avant = empreintes_sous(&banc.nuit);

    let out = crate::saison::depot_saison(&banc).finir_en(0);
    out.stderr_contient(&["carte brute", "4 originaux", "10 séquences", "2 nuits"]);
    // Chaque participation créée tient les séquences d'une nuit, octet pour octet.
    let mut par_participation: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for f in banc.bac().fichiers() {
        let participation = f.participation.clone().expect("fichier sans participation");
        assert!(f.disponible, "{} non finalisé", f.titre);
        let octets = banc.objet_plateforme(&participation, &f.titre);
        let doublon = par_participation
            .entry(participation)
            .or_default()
            .insert(f.titre.clone(), sha256(&octets));
        assert!(doublon.is_none(), "{} en double", f.titre);
    }
    let vues: Vec<&BTreeMap<String, String>> = par_participation.values().collect();
    assert_eq!(vues.len(), 2, "{par_participation:#?}");
    assert!(
        vues.contains(&&attendues[NUIT]) && vues.contains(&&attendues[NUIT_2]),
        "{par_participation:#?}"
    );
    // Rien écrit sur la carte ; la relance ne renvoie rien.
    assert_eq!(empreintes_sous(&banc.nuit), avant);
    let puts = banc.bac().compteurs().requetes(Operation::PutObject);
    crate::saison::depot_saison(&banc).finir_en(0);
    assert_eq!(banc.bac().compteurs().requetes(Operation::PutObject), puts);
}

/// Le préfixe d'une carte dont les noms ne le portent pas, donné au dépôt comme à `preparer`.
const IDENTITE: [&str; 6] = ["--site", "640139", "--passage", "1", "--point", "A1"];

/// Une carte brute dont les noms ne portent pas le préfixe (`PaRecPR1925492_…`, `S4U12345_…`)
/// : sans `--site NUMERO --passage --point`, le dépôt la refuse avant tout envoi ; avec, ce qui
/// part vers la participation est octet pour octet ce que `preparer` écrit avec les mêmes
/// options ; `retenter-echecs` la reprend sans qu'on les redonne (retrouvées dans les noms des
/// séquences du plan). `--passage` sur un dossier qui n'est pas une carte brute : code 2.
#[test]
fn une_carte_sans_prefixe_deposee_avec_site_passage_point() {
    let banc = Banc::nouveau();
    carte_nommee(&banc.nuit, "");
    let attendus = preparee_avec(&banc, &IDENTITE);
    assert_eq!(attendus.len(), SEQUENCES, "{attendus:#?}");
    assert!(
        attendus
            .keys()
            .all(|k| k.starts_with(&format!("{NUIT}/{P}")))
    );
    let out = banc.depot_plateforme().finir_en(2);
    assert_eq!(
        banc.requetes(Operation::ApiDeclarerFichier),
        0,
        "{}",
        texte(&out)
    );

    let mut c = banc.depot_plateforme();
    c.args(IDENTITE);
    let out = c.finir_en(0);
    out.stderr_contient(&["carte brute", "8 séquences"]);
    let (deposes, enregistrements) = deposes_plateforme(&banc);
    assert_eq!(enregistrements, SEQUENCES);
    assert_eq!(deposes, attendus);
    // La relance par retenter-echecs retrouve le préfixe dans le plan : rien ne repart.
    let puts = banc.bac().compteurs().requetes(Operation::PutObject);
    banc.retenter_plateforme().finir_en(0);
    assert_eq!(banc.bac().compteurs().requetes(Operation::PutObject), puts);

    // Vers une participation à créer : `--site NUMERO=ID` dit le numéro des noms et le site.
    let autre = Banc::nouveau();
    carte_nommee(&autre.nuit, "");
    let mut c = autre.depot_par_site(&format!("640139={SITE}"), "A1", DEBUT_NUIT, FIN_NUIT);
    c.args(["--passage", "1"]);
    c.finir_en(0);
    let creee = autre.bac().participations(SITE);
    let creee = creee
        .iter()
        .find(|p| p.id != PARTICIPATION)
        .unwrap_or_else(|| panic!("{creee:?}"));
    assert_eq!(
        autre
            .bac()
            .fichiers()
            .iter()
            .filter(|f| f.participation.as_deref() == Some(creee.id.as_str()))
            .count(),
        SEQUENCES
    );

    // Un dossier ordinaire n'a pas de préfixe à recevoir.
    let ordinaire = Banc::avec_fichier(&nom(1), 1_000);
    let mut c = ordinaire.depot_plateforme();
    c.args(["--passage", "2"]);
    let out = c.finir_en(2);
    assert!(
        stderr(&out).contains("--passage et --site NUMERO ne nomment qu'une carte brute"),
        "{}",
        texte(&out)
    );
}

/// En saison (sans destination), la même carte sans préfixe avec `--site 640139 --passage 1
/// --point A1` : la nuit va dans une participation du site de ce numéro, chaque séquence celle
/// de `preparer` ; `--point` sans carte brute reste refusé en saison.
#[test]
fn en_saison_une_carte_sans_prefixe_nommee_par_les_options() {
    let banc = Banc::nouveau();
    carte_nommee(&banc.nuit, "");
    let attendus: BTreeMap<String, String> = preparee_avec(&banc, &IDENTITE)
        .into_iter()
        .map(|(chemin, e)| (chemin.split_once('/').unwrap().1.to_owned(), e))
        .collect();
    let mut c = crate::saison::depot_saison(&banc);
    c.args(IDENTITE);
    c.finir_en(0);
    let mut vus = BTreeMap::new();
    for f in banc.bac().fichiers() {
        let participation = f.participation.clone().expect("fichier sans participation");
        vus.insert(
            f.titre.clone(),
            sha256(&banc.objet_plateforme(&participation, &f.titre)),
        );
    }
    assert_eq!(vus, attendus);

    let ordinaire = Banc::avec_fichier(&nom(1), 1_000);
    let mut c = crate::saison::depot_saison(&ordinaire);
    c.args(IDENTITE);
    let out = c.finir_en(2);
    assert!(
        stderr(&out).contains("--point ne vaut qu'avec"),
        "{}",
        texte(&out)
    );
}
