//! `vigie preparer` : des bruts des deux familles (Passive Recorder : en-tête à 38 400 Hz,
//! journal `LogPR` à Fe384kHz, fichiers de 12,3 s ; direct : en-tête à 384 000 Hz, 7 s), deux
//! originaux qui se chevauchent, et les séquences attendues de la référence
//! (`TransformationAudio.java` du compagnon officiel) : ⌈D/5⌉ tranches, noms décalés de 5 s en
//! `_000`/`_001`, en-tête à 38 400 Hz, PCM identique octet pour octet à la tranche de
//! l'original ; mêmes octets en entrée, mêmes octets en sortie (SHA-256) ; originaux inchangés,
//! carte en lecture seule ; kill -9 au milieu puis relance.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::commun::wav_brut as wav;
use crate::commun::{empreintes_sous, fichiers_sous};

const FE: usize = 384_000;
const JOURNAL: &str = "21/06/26 - 16:02:21 PR1925492 Démarrage, PR V1.3\n\
21/06/26 - 16:02:22 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz, Bd. Freq. 8-120kHz\n";
const NUIT: &str = "Car640380-2026-Pass1-A1-20260621";

fn vigie(dossier: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vigie"));
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dossier)
        .env("VIGIE_BASE", dossier.join("base.sqlite"))
        .stdin(Stdio::null());
    c
}

fn preparer(dossier: &Path, carte: &Path, vers: &Path) -> Command {
    let mut c = vigie(dossier);
    c.arg("preparer").arg(carte).arg("--vers").arg(vers).args([
        "--site",
        "640380",
        "--passage",
        "1",
        "--point",
        "A1",
    ]);
    c
}

fn texte(s: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&s.stdout),
        String::from_utf8_lossy(&s.stderr)
    )
}

/// Un PCM déterministe (graine = nom) de `octets` octets.
fn pcm(graine: &str, octets: usize) -> Vec<u8> {
    let mut x: u64 = graine.bytes().fold(0xcbf2_9ce4_8422_2325, |h, o| {
        (h ^ u64::from(o)).wrapping_mul(0x100_0000_01b3)
    });
    (0..octets)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Un original de la carte et son PCM.
struct Brut {
    pcm: Vec<u8>,
}

/// Une carte : deux Passive Recorder de 12,3 s qui se chevauchent (sous `PR/`, avec le
/// journal), un SM4BAT direct de 7 s (sous `SM4/`).
fn carte(racine: &Path) -> Vec<Brut> {
    let bruts = [
        (
            "PR/Data/PaRecPR1925492_20260621_223000.wav",
            38_400,
            123 * FE / 10,
        ),
        (
            "PR/Data/PaRecPR1925492_20260621_223010.wav",
            38_400,
            123 * FE / 10,
        ),
        ("SM4/S4U12345_20260621_224000.wav", 384_000, 7 * FE),
    ];
    std::fs::create_dir_all(racine.join("PR/Data")).unwrap();
    std::fs::create_dir_all(racine.join("SM4")).unwrap();
    std::fs::write(racine.join("PR/LogPR1925492.txt"), JOURNAL).unwrap();
    bruts
        .into_iter()
        .map(|(chemin, frequence, trames)| {
            let pcm = pcm(chemin, trames * 2);
            std::fs::write(racine.join(chemin), wav(frequence, &pcm)).unwrap();
            Brut { pcm }
        })
        .collect()
}

/// Les séquences attendues : (nom, original, indice de la tranche).
fn attendues() -> Vec<(String, usize, usize)> {
    let p = "Car640380-2026-Pass1-A1-PaRecPR1925492_20260621_";
    let s = "Car640380-2026-Pass1-A1-S4U12345_20260621_";
    vec![
        (format!("{p}223000_000.wav"), 0, 0),
        (format!("{p}223005_000.wav"), 0, 1),
        (format!("{p}223010_000.wav"), 0, 2),
        // Le second commence à 22:30:10 : sa première tranche perd la collision.
        (format!("{p}223010_001.wav"), 1, 0),
        (format!("{p}223015_000.wav"), 1, 1),
        (format!("{p}223020_000.wav"), 1, 2),
        (format!("{s}224000_000.wav"), 2, 0),
        (format!("{s}224005_000.wav"), 2, 1),
    ]
}

#[cfg(unix)]
fn lecture_seule(chemin: &Path, oui: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mut pile = vec![chemin.to_path_buf()];
    while let Some(p) = pile.pop() {
        if p.is_dir() {
            pile.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
        let mode = if p.is_dir() { 0o755 } else { 0o644 };
        let mode = if oui { mode & 0o555 } else { mode };
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

#[test]
fn preparer_rend_exactement_les_sequences_de_la_reference() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path().join("carte");
    let bruts = carte(&racine);
    let avant = empreintes_sous(&racine);
    #[cfg(unix)]
    lecture_seule(&racine, true);
    let vers = d.path().join("sortie");
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(0), "{}", texte(&s));
    #[cfg(unix)]
    assert!(
        texte(&s).contains("lecture seule") && texte(&s).contains("prochaine nuit"),
        "{}",
        texte(&s)
    );
    assert!(
        texte(&s).contains("PassiveRecorder n° 1925492 (journal LogPR)"),
        "{}",
        texte(&s)
    );
    assert!(
        texte(&s).contains("SM4BAT n° S4U12345 (nom des fichiers)"),
        "{}",
        texte(&s)
    );

    let nuit = vers.join(NUIT);
    let ecrites: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(&nuit)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    let attendues = attendues();
    let mut noms: Vec<&str> = attendues.iter().map(|(n, _, _)| n.as_str()).collect();
    noms.sort();
    assert_eq!(
        ecrites, noms,
        "⌈12,3/5⌉ = 3 et ⌈7/5⌉ = 2 séquences par original"
    );
    for (nom, o, k) in attendues {
        let seq = std::fs::read(nuit.join(&nom)).unwrap();
        let brut = &bruts[o].pcm;
        let tranche = 5 * FE * 2;
        let attendu = &brut[k * tranche..((k + 1) * tranche).min(brut.len())];
        assert_eq!(&seq[..4], b"RIFF");
        assert_eq!(
            u32::from_le_bytes(seq[24..28].try_into().unwrap()),
            38_400,
            "{nom}"
        );
        assert_eq!(
            u32::from_le_bytes(seq[40..44].try_into().unwrap()) as usize,
            attendu.len()
        );
        assert!(
            seq[44..] == *attendu,
            "{nom} : PCM différent de la tranche {k}"
        );
    }
    // La carte n'a pas bougé d'un octet.
    #[cfg(unix)]
    lecture_seule(&racine, false);
    assert_eq!(empreintes_sous(&racine), avant);

    // Mêmes octets en entrée, mêmes octets en sortie : une seconde préparation ailleurs.
    let ailleurs = d.path().join("ailleurs");
    let s2 = preparer(d.path(), &racine, &ailleurs).output().unwrap();
    assert_eq!(s2.status.code(), Some(0), "{}", texte(&s2));
    assert_eq!(empreintes_sous(&ailleurs), empreintes_sous(&vers));
    assert!(!empreintes_sous(&vers).is_empty());

    // Refaire : rien n'est réécrit, rien ne change.
    let premier = empreintes_sous(&vers);
    let s3 = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s3.status.code(), Some(0), "{}", texte(&s3));
    assert!(texte(&s3).contains("0 écrite, 8 déjà là"), "{}", texte(&s3));
    assert_eq!(empreintes_sous(&vers), premier);
}

#[test]
fn sans_site_passage_ni_point_rien_n_est_ecrit_et_la_commande_dit_quoi_ajouter() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path().join("carte");
    carte(&racine);
    let vers = d.path().join("sortie");
    let s = vigie(d.path())
        .arg("preparer")
        .arg(&racine)
        .arg("--vers")
        .arg(&vers)
        .output()
        .unwrap();
    assert_eq!(s.status.code(), Some(2), "{}", texte(&s));
    assert!(
        texte(&s).contains("--site --passage --point"),
        "{}",
        texte(&s)
    );
    assert!(!vers.exists());
    // Ni sur la carte elle-même.
    let s = preparer(d.path(), &racine, &racine.join("sortie"))
        .output()
        .unwrap();
    assert_eq!(s.status.code(), Some(2), "{}", texte(&s));
    assert!(texte(&s).contains("est sur la carte"), "{}", texte(&s));
    assert!(!racine.join("sortie").exists());
}

/// Une première préparation complète, à laquelle comparer.
fn reference(dossier: &Path, racine: &Path) -> PathBuf {
    let reference = dossier.join("reference");
    let s = preparer(dossier, racine, &reference).output().unwrap();
    assert_eq!(s.status.code(), Some(0), "{}", texte(&s));
    reference
}

#[test]
fn ce_qu_un_arret_laisse_est_repris_sans_doublon_ni_sequence_a_moitie() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path().join("carte");
    carte(&racine);
    let reference = reference(d.path(), &racine);
    let attendu = empreintes_sous(&reference);
    // L'état d'un kill -9 : une séquence complète, un provisoire à moitié écrit, le reste absent.
    let vers = d.path().join("sortie");
    let nuit = vers.join(NUIT);
    std::fs::create_dir_all(&nuit).unwrap();
    let premiere = attendues()[0].0.clone();
    std::fs::copy(reference.join(NUIT).join(&premiere), nuit.join(&premiere)).unwrap();
    std::fs::write(nuit.join(".vigie-sequence-abc123.part"), b"RIFF a moitie").unwrap();
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(0), "{}", texte(&s));
    assert!(texte(&s).contains("7 écrites, 1 déjà là"), "{}", texte(&s));
    assert_eq!(
        empreintes_sous(&vers),
        attendu,
        "ni provisoire restant, ni doublon"
    );

    // Un autre fichier sous le nom d'une séquence n'est jamais écrasé.
    std::fs::write(nuit.join(&premiere), b"autre chose").unwrap();
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(2), "{}", texte(&s));
    assert!(texte(&s).contains("n'est pas écrasé"), "{}", texte(&s));
    assert_eq!(std::fs::read(nuit.join(&premiere)).unwrap(), b"autre chose");
}

/// Ce qu'une batterie vide laisse sur ext4 (renommage au journal, octets pas encore sur le
/// disque) : des séquences sous leur nom, mais plus courtes, vides le plus souvent. La reprise
/// les réécrit ; un fichier plus court qui n'est pas le début de la séquence reste intouché.
#[test]
fn une_coupure_de_courant_laisse_des_sequences_courtes_que_la_reprise_reecrit() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path().join("carte");
    carte(&racine);
    let reference = reference(d.path(), &racine);
    let attendu = empreintes_sous(&reference);
    let noms: Vec<String> = attendues().into_iter().map(|(n, _, _)| n).collect();
    let vers = d.path().join("sortie");
    let nuit = vers.join(NUIT);
    std::fs::create_dir_all(&nuit).unwrap();
    let complete = |i: usize| std::fs::read(reference.join(NUIT).join(&noms[i])).unwrap();
    // Vide ; coupée dans l'en-tête ; coupée dans les échantillons ; complète.
    std::fs::write(nuit.join(&noms[0]), b"").unwrap();
    std::fs::write(nuit.join(&noms[1]), &complete(1)[..20]).unwrap();
    let longueur = complete(3).len() / 2;
    std::fs::write(nuit.join(&noms[3]), &complete(3)[..longueur]).unwrap();
    std::fs::write(nuit.join(&noms[6]), complete(6)).unwrap();
    // Un début qui diffère d'un octet de la séquence : un autre fichier, rien n'est écrit.
    let mut autre = complete(4)[..1000].to_vec();
    autre[500] ^= 0xff;
    std::fs::write(nuit.join(&noms[4]), &autre).unwrap();
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(2), "{}", texte(&s));
    assert!(texte(&s).contains(&noms[4]), "{}", texte(&s));
    assert!(texte(&s).contains("n'est pas écrasé"), "{}", texte(&s));
    assert_eq!(std::fs::read(nuit.join(&noms[4])).unwrap(), autre);
    assert!(std::fs::read(nuit.join(&noms[0])).unwrap().is_empty());
    assert!(!nuit.join(&noms[2]).exists(), "rien d'écrit avant le refus");

    // Un dossier sous le nom d'une séquence : un autre fichier aussi.
    std::fs::remove_file(nuit.join(&noms[4])).unwrap();
    std::fs::create_dir(nuit.join(&noms[4])).unwrap();
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(2), "{}", texte(&s));
    assert!(texte(&s).contains("n'est pas écrasé"), "{}", texte(&s));

    // Le fichier étranger ôté, la reprise rend la nuit entière, octet pour octet.
    std::fs::remove_dir(nuit.join(&noms[4])).unwrap();
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(0), "{}", texte(&s));
    assert!(texte(&s).contains("7 écrites, 1 déjà là"), "{}", texte(&s));
    assert_eq!(empreintes_sous(&vers), attendu);
}

#[test]
fn kill_9_au_milieu_puis_relance_rend_la_nuit_entiere() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path().join("carte");
    carte(&racine);
    // Assez d'originaux pour que la préparation dure bien plus que l'attente de la première
    // séquence : 16 Passive Recorder de plus (≈ 150 Mo à écrire).
    let brut = wav(38_400, &pcm("long", 123 * FE / 10 * 2));
    for i in 0..16 {
        let chemin = format!("PR/Data/PaRecPR1925492_20260622_01{i:02}00.wav");
        std::fs::write(racine.join(&chemin), &brut).unwrap();
    }
    let reference = reference(d.path(), &racine);
    let attendus = fichiers_sous(&reference);
    let vers = d.path().join("sortie");
    let mut enfant = preparer(d.path(), &racine, &vers)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Attendre une séquence écrite (un événement, pas une durée), puis tuer sans préavis.
    let nuit: PathBuf = vers.join(NUIT);
    let en_vol = loop {
        let une = std::fs::read_dir(&nuit).is_ok_and(|mut l| {
            l.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("Car")))
        });
        if let Some(fin) = enfant.try_wait().unwrap() {
            break fin.code().is_none();
        }
        if une {
            break true;
        }
    };
    enfant.kill().unwrap();
    enfant.wait().unwrap();
    assert!(
        en_vol,
        "la préparation a fini avant d'être tuée : rien d'éprouvé"
    );
    let partiels = fichiers_sous(&vers);
    let sequences: Vec<&String> = partiels
        .iter()
        .filter(|n| !n.contains("/.vigie-sequence-"))
        .collect();
    assert!(
        sequences.len() < attendus.len(),
        "tuée au milieu : {} séquences",
        sequences.len()
    );
    // Tout ce qui porte un nom de séquence est complet et juste.
    for nom in sequences {
        assert!(
            std::fs::read(vers.join(nom)).unwrap() == std::fs::read(reference.join(nom)).unwrap(),
            "{nom} à moitié écrit"
        );
    }
    let s = preparer(d.path(), &racine, &vers).output().unwrap();
    assert_eq!(s.status.code(), Some(0), "{}", texte(&s));
    assert_eq!(
        fichiers_sous(&vers),
        attendus,
        "ni provisoire restant, ni doublon"
    );
    for nom in &attendus {
        assert!(
            std::fs::read(vers.join(nom)).unwrap() == std::fs::read(reference.join(nom)).unwrap(),
            "{nom}"
        );
    }
}
