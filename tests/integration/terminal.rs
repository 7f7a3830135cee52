//! Le naturaliste devant son terminal, et ce que le monde extérieur y envoie : ce que `vigie`
//! affiche (messages, aides, lignes à 80 colonnes) et ce qu'il refuse de laisser passer
//! (séquences d'échappement d'un serveur, liens symboliques glissés, bases étrangères).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::plateforme::*;
use crate::commun::*;

/// Aucun caractère qui commande le terminal : séquences d'échappement (ESC, CSI sur 8 bits),
/// retour chariot, marques de direction.
fn sans_caractere_dangereux(quoi: &str, texte: &str) {
    for c in ['\u{1b}', '\u{9b}', '\r', '\u{7}', '\u{202e}', '\u{2066}'] {
        assert!(
            !texte.contains(c),
            "{quoi} laisse passer {:?} : {texte:?}",
            c
        );
    }
}

/// Un `<Message>` S3 piégé (CSI sur 8 bits, CR/LF qui fabrique une fausse ligne « ✓ », marque
/// de direction) et un nom de fichier à marque de direction : rien n'atteint le terminal tel
/// quel, ni pendant le dépôt, ni dans `vigie etat` qui relit le message gardé en base. Le code
/// S3 est de ceux que `vigie` ne sait pas redire en français : le message du service est alors
/// montré (neutralisé) ; un code connu (`AccessDenied`) est dit en français, sans lui.
#[test]
fn le_texte_d_un_serveur_ou_d_un_nom_n_atteint_pas_le_terminal_tel_quel() {
    let banc = Banc::nouveau();
    let piege = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000\u{202e}vaw.wav";
    banc.fichier(piege, 1000);
    let message =
        "\u{9b}2J\u{9b}0m refus\u{e9}\r\n\u{2713} tout est d\u{e9}pos\u{e9} \u{202e}xe.nuit";
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "PUT" {
            r.statut = 403;
            r.entetes
                .retain(|(n, _)| !n.to_ascii_lowercase().starts_with("x-amz-checksum"));
            r.remplacer_entete("content-type", "application/xml");
            r.corps = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InvalidObjectState</Code>\
                 <Message>{message}</Message></Error>"
            )
            .into_bytes();
        }
    });
    let out = banc
        .depot_via(&m.endpoint())
        .mots("--progression jamais")
        .finir_en(3);
    let erreur = stderr(&out);
    sans_caractere_dangereux("le dépôt", &erreur);
    sans_caractere_dangereux("le bilan", &stdout(&out));
    assert!(
        erreur.contains(r"\u{9b}2J") && erreur.contains(r"\u{202e}vaw.wav"),
        "le texte neutralisé doit rester lisible : {erreur}"
    );
    assert!(
        !erreur.lines().any(|l| l.starts_with('\u{2713}')),
        "une fausse ligne « ✓ » : {erreur}"
    );
    let etat = banc.vigie().arg("etat").sortie();
    sans_caractere_dangereux("vigie etat", &stdout(&etat));
    assert!(stdout(&etat).contains(r"\u{d}\u{a}"), "{}", texte(&etat));
}

/// Cinquante fichiers en `.WAV` : une règle, cinq noms cités, un seul geste (`vigie renommer`),
/// et pas de second refus « hors protocole » ; un nom à espace ne reçoit que sa cause racine.
/// Puis `vigie renommer` sans `--appliquer` ne touche à rien, avec `--appliquer` renomme, et le
/// dépôt passe.
#[test]
fn noms_refuses_regroupes_par_regle_puis_renommes_d_une_commande() {
    let banc = Banc::nouveau();
    for i in 0..50 {
        banc.fichier(&format!("{}.WAV", nom(i).trim_end_matches(".wav")), 100);
    }
    banc.fichier(
        "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000 (2).wav",
        100,
    );
    let out = banc.depot_plateforme().finir_en(2);
    let erreur = stderr(&out);
    assert!(
        erreur.lines().count() <= 14,
        "la liste ne se résume pas : {erreur}"
    );
    contient(
        &erreur,
        &["  50 fichiers : extension « .WAV » en majuscules"],
    );
    assert!(erreur.contains("    … et 45 autres"), "{erreur}");
    let dossier = banc.nuit.display().to_string();
    contient(
        &erreur,
        &[&format!(
            "    → corrigez-les d'une commande : vigie renommer {dossier}"
        )],
    );
    assert!(
        !erreur.contains("protocole"),
        "une seule cause par fichier : {erreur}"
    );
    assert!(!erreur.contains("la date et l'heure manquent"), "{erreur}");
    contient(&erreur, &["espace", "51 fichiers à corriger"]);
    assert_eq!(banc.compteurs().requetes_total(), 0);

    let avant = lister(&banc.nuit);
    let vue = banc.vigie().arg("renommer").arg(&banc.nuit).sortie();
    assert_eq!(lister(&banc.nuit), avant, "sans --appliquer, rien ne bouge");
    let texte_vue = stdout(&vue);
    assert_eq!(texte_vue.matches(".WAV → ").count(), 50, "{texte_vue}");
    contient(
        &texte_vue,
        &[&format!(
            "50 fichiers à renommer ; rien n'a été renommé. Pour le faire : vigie renommer {dossier} --appliquer"
        )],
    );
    // Le nom à espace reste à corriger à la main : code 2.
    assert_eq!(code(&vue), 2, "{}", texte(&vue));
    contient(&texte_vue, &["Restent à corriger à la main"]);

    let faite = banc
        .vigie()
        .arg("renommer")
        .arg(&banc.nuit)
        .arg("--appliquer")
        .sortie();
    faite.stdout_contient(&["50 fichiers renommés."]);
    let apres = lister(&banc.nuit);
    assert_eq!(apres.iter().filter(|n| n.ends_with(".wav")).count(), 51);
    assert!(!apres.iter().any(|n| n.ends_with(".WAV")));
    std::fs::remove_file(
        banc.nuit
            .join("Car640139-2026-Pass1-A1-OB-1_20260621_221500_000 (2).wav"),
    )
    .unwrap();
    banc.depot_plateforme().finir_en(0);
}

fn lister(dossier: &std::path::Path) -> Vec<String> {
    let mut noms: Vec<String> = std::fs::read_dir(dossier)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    noms.sort();
    noms
}

/// Sans identifiants S3 : un message en français qui dit quoi faire, sans la phrase anglaise du
/// SDK ; avec un profil inconnu, le profil est nommé.
#[test]
fn identifiants_s3_absents_dits_en_francais() {
    let banc = Banc::avec_fichier(&nom(1), 100);
    for (profil, attendu) in [
        (
            None,
            "aucun identifiant S3 utilisable : définissez AWS_ACCESS_KEY_ID",
        ),
        (
            Some("terrain"),
            "aucun identifiant S3 utilisable (le profil « terrain » est introuvable ou incomplet) : définissez",
        ),
    ] {
        let mut c = banc.depot();
        c.env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY");
        if let Some(p) = profil {
            c.args(["--profil", p]);
        }
        let out = c.finir_en(2);
        let erreur = stderr(&out);
        assert!(erreur.contains(attendu), "{erreur}");
        absent(&erreur, &["an error occurred", "loading credentials"]);
    }
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

/// Une commande lancée dans un pseudo-terminal par `script` (util-linux), dont on lit l'écran
/// au fil de l'eau et à qui l'on tape au clavier.
#[cfg_attr(not(unix), allow(dead_code))]
struct PseudoTerminal {
    /// `script` : tué à l'abandon s'il vit encore ; la commande reçoit alors SIGHUP (son
    /// terminal se ferme) et s'arrête.
    enfant: Enfant,
    entree: Option<std::process::ChildStdin>,
    recu: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    lecteur: Option<std::thread::JoinHandle<()>>,
}

#[cfg_attr(not(unix), allow(dead_code))]
impl PseudoTerminal {
    /// Lance `commande` (une ligne de shell) sous `script`, avec `env` pour seules variables.
    fn lancer(commande: &str, env: &[(&str, &std::ffi::OsStr)]) -> PseudoTerminal {
        use std::io::Read;
        use std::process::Stdio;
        if std::process::Command::new("script")
            .arg("--version")
            .output()
            .is_err()
        {
            panic!("script (util-linux) est nécessaire à cet essai");
        }
        let mut c = std::process::Command::new("script");
        c.args(["-qec", commande, "/dev/null"])
            .env_clear()
            .env("PATH", crate::commun::path_avec_vigie())
            .env("TERM", "xterm");
        for (k, v) in env {
            c.env(k, v);
        }
        let mut enfant = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let recu = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lecteur = {
            let recu = std::sync::Arc::clone(&recu);
            let mut sortie = enfant.stdout.take().unwrap();
            std::thread::spawn(move || {
                let mut tampon = [0u8; 4096];
                while let Ok(n) = sortie.read(&mut tampon) {
                    if n == 0 {
                        break;
                    }
                    recu.lock().unwrap().extend_from_slice(&tampon[..n]);
                }
            })
        };
        let entree = enfant.stdin.take();
        PseudoTerminal {
            enfant: Enfant::from(enfant),
            entree,
            recu,
            lecteur: Some(lecteur),
        }
    }

    /// Tout ce que le terminal a reçu jusqu'ici.
    fn vu(&self) -> String {
        String::from_utf8_lossy(&self.recu.lock().unwrap()).into_owned()
    }

    /// Attend que `texte` s'affiche (un événement, avec une limite large).
    fn attendre(&self, texte: &str) {
        let debut = std::time::Instant::now();
        while !self.vu().contains(texte) {
            assert!(
                debut.elapsed() < std::time::Duration::from_secs(60),
                "« {texte} » ne s'affiche pas : {:?}",
                self.vu()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Attend que l'écho du terminal soit coupé (une saisie masquée commence) : l'état du
    /// pseudo-terminal, lu par `stty` sur le terminal de l'enfant de `script`.
    #[cfg(target_os = "linux")]
    fn attendre_echo_coupe(&self) {
        let script = self.enfant.id().to_string();
        let debut = std::time::Instant::now();
        loop {
            // Le terminal : l'entrée standard d'un enfant de `script`.
            let terminal = std::fs::read_dir("/proc")
                .unwrap()
                .flatten()
                .filter(|e| {
                    std::fs::read_to_string(e.path().join("stat")).is_ok_and(|stat| {
                        // « pid (nom) état ppid … » : le nom peut contenir des espaces.
                        stat.rsplit_once(')')
                            .and_then(|(_, reste)| reste.split_whitespace().nth(1))
                            == Some(script.as_str())
                    })
                })
                .find_map(|e| std::fs::read_link(e.path().join("fd/0")).ok())
                .filter(|t| t.starts_with("/dev/pts"));
            if let Some(t) = terminal {
                let etat = std::process::Command::new("stty")
                    .arg("-F")
                    .arg(&t)
                    .arg("-a")
                    .sortie();
                let etat = stdout(&etat);
                if etat.split_whitespace().any(|m| m == "-echo") {
                    return;
                }
            }
            assert!(
                debut.elapsed() < std::time::Duration::from_secs(60),
                "l'écho n'est jamais coupé : {:?}",
                self.vu()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Tape `octets` au clavier.
    fn taper(&mut self, octets: &[u8]) {
        use std::io::Write;
        let entree = self.entree.as_mut().expect("entrée ouverte");
        entree.write_all(octets).unwrap();
        entree.flush().unwrap();
    }

    /// Attend la fin de la commande : son statut, et tout ce qu'elle a affiché.
    fn finir(mut self) -> (std::process::ExitStatus, String) {
        let statut = self.enfant.wait().unwrap();
        drop(self.entree.take());
        if let Some(l) = self.lecteur.take() {
            l.join().unwrap();
        }
        (statut, self.vu())
    }
}

/// `vigie connexion --jeton -` dans un terminal (un pseudo-terminal ouvert par `script`) : une
/// invite, et le jeton collé ne s'affiche pas (le terminal ne l'écrit pas en écho).
#[cfg(target_os = "linux")]
#[test]
fn connexion_dans_un_terminal_invite_et_saisie_masquee() {
    let banc = Banc::nouveau();
    let commande = format!(
        "{} connexion --jeton - --api {}",
        env!("CARGO_BIN_EXE_vigie"),
        banc.bac().api()
    );
    let mut terminal =
        PseudoTerminal::lancer(&commande, &[("HOME", banc.dossier.path().as_os_str())]);
    terminal.attendre("Collez le jeton");
    // Un humain colle le jeton après avoir lu l'invite ; l'écho est coupé juste après qu'elle
    // s'est écrite (et ce qui serait arrivé avant serait jeté) : on attend qu'il le soit.
    terminal.attendre_echo_coupe();
    terminal.taper(format!("{JETON}\n").as_bytes());
    let (statut, ecran) = terminal.finir();
    assert!(statut.success(), "{ecran}");
    assert!(ecran.contains("Connecté en tant que"), "{ecran}");
    assert!(!ecran.contains(JETON), "le jeton s'affiche : {ecran}");
    let enregistre = banc.dossier.path().join(".config/vigie/jeton");
    assert_eq!(std::fs::read_to_string(enregistre).unwrap().trim(), JETON);
}

fn plans(banc: &Banc) -> String {
    stdout(&banc.vigie().arg("plans").sortie())
}

/// Un passage arrêté avant tout envoi ne laisse pas de plan vide dans `vigie plans` : jeton
/// absent, participation dont la création est refusée, identifiants S3 absents, simulation (vers
/// la plateforme, sans jeton ; vers S3).
#[test]
fn rien_d_envoye_aucun_plan_vide() {
    let banc = Banc::avec_fichier(&nom(1), 100);
    // Sans jeton.
    let mut c = banc.vigie();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(banc.bac().api());
    let out = c.finir_en(2);
    assert!(stderr(&out).contains("aucun jeton"), "{}", texte(&out));
    // Une simulation ne parle pas au réseau : elle se passe du jeton, et ne demande rien.
    let out = c.arg("--simulation").finir_en(0);
    out.stdout_contient(&["rien n'a été envoyé"]);
    assert_eq!(banc.compteurs().requetes_total(), 0);
    // Une participation à créer sur un site inconnu (le serveur ne vérifie ni le verrou ni le
    // point d'un site, seulement qu'il existe) : dit à la relecture du site, sans plan.
    let out = banc
        .depot_par_site_sans_reglages("64a1b2c3d4e5f60718293cff", "B2", DEBUT_NUIT, FIN_NUIT)
        .sortie();
    // Le site inconnu est dit à sa relecture, avant tout plan (code 2).
    assert_eq!(code(&out), 2, "{}", texte(&out));
    // Sans identifiants S3, puis en simulation.
    banc.depot()
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .finir_en(2);
    banc.depot().arg("--simulation").finir_en(0);
    assert!(
        plans(&banc).starts_with("Aucun plan"),
        "un plan vide est resté : {}",
        plans(&banc)
    );
    assert_eq!(banc.compteurs().octets_recus(), 0);
}

/// `vigie plans` donne la dernière activité à l'heure locale : `TZ` est respecté.
#[test]
fn plans_a_l_heure_locale() {
    let banc = Banc::avec_fichier(&nom(1), 100);
    banc.depot().finir_en(0);
    let heure = |tz: &str| -> i64 {
        let out = banc.vigie().arg("plans").env("TZ", tz).sortie();
        let texte = stdout(&out);
        let ligne = texte.lines().nth(1).unwrap_or_default().to_owned();
        assert!(!ligne.contains("UTC"), "{ligne}");
        // « 2026-11-30 17:13 » : l'heure est le champ qui suit la date.
        let hh = ligne
            .split_whitespace()
            .find(|m| m.len() == 5 && m.as_bytes()[2] == b':')
            .unwrap_or_else(|| panic!("pas d'heure dans {ligne:?}"));
        hh[..2].parse().unwrap()
    };
    let (utc, plus_3) = (heure("UTC0"), heure("XYZ-3"));
    assert_eq!(
        (plus_3 - utc).rem_euclid(24),
        3,
        "TZ ignoré : {utc} h et {plus_3} h"
    );
}

/// Pendant le dépôt, après la planification, un fichier de la nuit est remplacé (`mv -T`) par
/// un lien vers un fichier secret de même taille et même date, un autre par un autre fichier ordinaire de même taille
/// et même date : ni l'un ni l'autre n'est envoyé ni déclaré déposé.
#[cfg(unix)]
#[test]
fn un_fichier_remplace_pendant_l_envoi_n_est_jamais_envoye_a_sa_place() {
    let banc = Banc::nouveau();
    let (a, b, c) = (nom(1), nom(2), nom(3));
    banc.fichier(&a, 30_000);
    let chemin_b = banc.fichier(&b, 20_000);
    let chemin_c = banc.fichier(&c, 10_000);
    let secrets = banc.dossier.path().join("secrets");
    std::fs::create_dir_all(&secrets).unwrap();
    let drapeau = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let remplacer = {
        let drapeau = std::sync::Arc::clone(&drapeau);
        let secrets = secrets.clone();
        move || {
            if drapeau.swap(true, std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            for (cible, taille, lien) in [(&chemin_b, 20_000, true), (&chemin_c, 10_000, false)] {
                let date = std::fs::metadata(cible).unwrap().modified().unwrap();
                let secret = secrets.join(format!("secret-{taille}"));
                std::fs::write(&secret, vec![b'S'; taille]).unwrap();
                std::fs::File::options()
                    .write(true)
                    .open(&secret)
                    .unwrap()
                    .set_modified(date)
                    .unwrap();
                let provisoire = cible.with_extension("provisoire");
                if lien {
                    std::os::unix::fs::symlink(&secret, &provisoire).unwrap();
                } else {
                    std::fs::rename(&secret, &provisoire).unwrap();
                }
                std::fs::rename(&provisoire, cible).unwrap();
            }
        }
    };
    // Le remplacement a lieu pendant la lecture de la destination (`ListObjectsV2`), après la
    // planification et avant le premier envoi. Le déclencher sur le PUT de a laissait une
    // course : avec deux unités ouvertes par place, b pouvait partir avant a.
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, _| {
        if q.methode == "GET" && q.chemin.contains("list-type=2") {
            remplacer();
        }
    });
    let out = banc
        .depot_via(&m.endpoint())
        .mots("--paralleles 1 --progression jamais")
        .sortie();
    assert!(
        drapeau.load(std::sync::atomic::Ordering::SeqCst),
        "aucun remplacement"
    );
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let erreur = stderr(&out);
    contient(&erreur, &["lien symbolique", "remplacé par un autre"]);
    for n in [&b, &c] {
        let objet = banc.bac().chemin_objet(COMPARTIMENT, &banc.cle(n));
        let recu = std::fs::read(&objet).unwrap_or_default();
        assert!(
            !recu.contains(&b'S') || recu.is_empty(),
            "{n} : le secret est parti"
        );
        assert!(!objet.exists(), "{n} a été envoyé");
    }
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 1), ("echec", 2)]);
}

/// Un fichier remplacé par un autre fichier ordinaire (même taille, même date) juste après la
/// vérification qui précède l'envoi, puis remis en place avant la vérification qui précède la
/// finalisation : le chemin ne dit rien des deux côtés, seul le fichier **ouvert** le trahit.
/// Ici, le remplacement a lieu pendant l'ouverture de l'envoi multipart et la remise en place à
/// la réponse de la dernière partie ; comparer l'identité sur le chemin seulement laissait
/// finaliser un objet fait du secret, l'unité « déposée ».
#[cfg(unix)]
#[test]
fn un_fichier_remplace_puis_remis_en_place_pendant_l_envoi_n_est_pas_envoye() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const MIO: usize = 1024 * 1024;
    let banc = Banc::nouveau();
    let a = nom(1);
    let chemin = banc.fichier(&a, 6 * MIO);
    let cle = banc.cle(&a);
    let cote = banc.dossier.path().join("cote");
    std::fs::create_dir_all(&cote).unwrap();
    let secret = cote.join("secret");
    std::fs::write(&secret, vec![b'S'; 6 * MIO]).unwrap();
    let date = std::fs::metadata(&chemin).unwrap().modified().unwrap();
    std::fs::File::options()
        .write(true)
        .open(&secret)
        .unwrap()
        .set_modified(date)
        .unwrap();
    let mis_de_cote = cote.join("original");
    // Étape 0 : rien fait ; 1 : le secret à la place du fichier ; 2 : le fichier remis.
    let etapes = [
        (
            "POST",
            "uploads",
            [(&chemin, &mis_de_cote), (&secret, &chemin)],
        ),
        (
            "PUT",
            "partNumber=2",
            [(&chemin, &secret), (&mis_de_cote, &chemin)],
        ),
    ]
    .map(|(methode, marque, renommages)| {
        (
            methode,
            marque,
            renommages.map(|(de, vers)| (de.clone(), vers.clone())),
        )
    });
    let etape = std::sync::Arc::new(AtomicUsize::new(0));
    let m = {
        let etape = std::sync::Arc::clone(&etape);
        mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, _| {
            for (rang, (methode, marque, renommages)) in etapes.iter().enumerate() {
                if q.methode == *methode
                    && q.chemin.contains(&cle)
                    && q.chemin.contains(marque)
                    && etape
                        .compare_exchange(rang, rang + 1, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                {
                    for (de, vers) in renommages {
                        std::fs::rename(de, vers).unwrap();
                    }
                }
            }
        })
    };
    let out = banc
        .depot_via(&m.endpoint())
        // Le banc découpe au-delà de 5 Mio, en parties de 5 Mio : deux parties.
        .mots("--paralleles 1 --progression jamais")
        .sortie();
    assert!(
        etape.load(Ordering::SeqCst) >= 1,
        "aucun remplacement : {}",
        texte(&out)
    );
    let objet = banc.bac().chemin_objet(COMPARTIMENT, &banc.cle(&a));
    let recu = std::fs::read(&objet).unwrap_or_default();
    assert!(!recu.contains(&b'S'), "le secret est parti");
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let erreur = stderr(&out);
    assert!(erreur.contains("remplacé par un autre"), "{erreur}");
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 0), ("echec", 1)]);
}

/// `--journal` vers un lien symbolique : refusé clairement (code 2), la cible n'est ni écrite ni
/// changée de droits.
#[cfg(unix)]
#[test]
fn le_journal_ne_suit_pas_les_liens() {
    use std::os::unix::fs::PermissionsExt;
    let banc = Banc::avec_fichier(&nom(1), 100);
    let cible = banc.dossier.path().join("fichier-d-autrui");
    std::fs::write(&cible, b"contenu").unwrap();
    std::fs::set_permissions(&cible, std::fs::Permissions::from_mode(0o644)).unwrap();
    let lien = banc.dossier.path().join("journal.jsonl");
    std::os::unix::fs::symlink(&cible, &lien).unwrap();
    let out = banc.depot().arg("--journal").arg(&lien).finir_en(2);
    let erreur = stderr(&out);
    contient(
        &erreur,
        &[
            "impossible d'ouvrir le journal",
            "c'est un lien symbolique, qui n'est pas suivi",
        ],
    );
    assert_eq!(std::fs::read(&cible).unwrap(), b"contenu");
    let mode = std::fs::metadata(&cible).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "les droits de la cible ont changé");
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

/// Le journal sur un disque plein (`/dev/full` : chaque écriture y rend ENOSPC) : dit une fois
/// sur la sortie d'erreur, et le dépôt va au bout.
#[test]
fn un_journal_sur_disque_plein_le_dit_une_fois() {
    let banc = Banc::nouveau();
    for i in 1..=3 {
        banc.fichier(&nom(i), 1000);
    }
    let out = banc
        .depot()
        .mots("--journal /dev/full --progression jamais")
        .finir_en(0);
    let erreur = stderr(&out);
    assert_eq!(
        erreur
            .matches("attention : le journal /dev/full ne peut plus être écrit (disque plein")
            .count(),
        1,
        "{erreur}"
    );
}

/// Une base SQLite qui n'est pas de vigie (ni vide) est refusée par chaque commande sans être
/// touchée ; et sans base, `plans` et `etat` ne créent rien.
#[cfg(unix)]
#[test]
fn base_etrangere_refusee_et_lecture_sans_base_ne_cree_rien() {
    use std::os::unix::fs::PermissionsExt;
    let banc = Banc::avec_fichier(&nom(1), 100);
    // Sans base : rien n'est créé.
    let out = banc.vigie().arg("plans").finir_en(0);
    assert!(stdout(&out).starts_with("Aucun plan"), "{}", texte(&out));
    // `etat`, et `traiter` qui cherche la participation du dernier plan.
    for commande in ["etat", "traiter", "traitement", "resultats"] {
        let out = banc.vigie_plateforme().arg(commande).sortie();
        assert_eq!(code(&out), 2, "{commande} : {}", texte(&out));
        assert!(
            stderr(&out).contains("lancez d'abord vigie depot"),
            "{commande} : {}",
            texte(&out)
        );
    }
    assert!(
        !banc.base.exists(),
        "une commande de lecture a créé la base"
    );
    assert!(!banc.base.parent().unwrap().exists());

    std::fs::create_dir_all(banc.base.parent().unwrap()).unwrap();
    {
        let c = rusqlite::Connection::open(&banc.base).unwrap();
        c.execute_batch(
            "CREATE TABLE especes (nom TEXT); INSERT INTO especes VALUES ('Pipistrelle');",
        )
        .unwrap();
    }
    std::fs::set_permissions(&banc.base, std::fs::Permissions::from_mode(0o644)).unwrap();
    let avant = std::fs::read(&banc.base).unwrap();
    for mut commande in [banc.vigie(), banc.vigie(), banc.depot(), banc.vigie()]
        .into_iter()
        .zip([vec!["plans"], vec!["etat"], vec![], vec!["retenter-echecs"]])
        .map(|(mut c, args)| {
            c.args(args);
            c
        })
    {
        let out = commande.finir_en(2);
        out.stderr_contient(&["n'est pas une base vigie", "--base"]);
    }
    assert_eq!(
        std::fs::read(&banc.base).unwrap(),
        avant,
        "la base a été modifiée"
    );
    let mode = std::fs::metadata(&banc.base).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    assert!(
        !banc.base.with_extension("sqlite-wal").exists(),
        "WAL activé"
    );
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

/// Un serveur qui répond 503 à tout : l'échec se dit en clair (« abandonné après 2
/// tentatives ») et pas sous son nom interne, le bilan ne prétend rien rattrapé, et ne conseille
/// qu'une commande, sans `--y-compris-definitifs`.
#[test]
fn un_echec_transitoire_se_dit_en_clair_avec_un_seul_geste() {
    use vigie_bac_a_sable::Operation;
    let banc = Banc::avec_fichier(&nom(1), 1000);
    banc.fichier(&nom(2), 2000);
    banc.panne_toujours(Operation::PutObject, code_http(503));
    let out = banc
        .depot()
        .mots("--tentatives 2 --progression jamais")
        .finir_en(1);
    let (sortie, erreur) = (stdout(&out), stderr(&out));
    contient(&erreur, &["abandonné après 2 tentatives (503)"]);
    for interne in [
        "tentatives_epuisees",
        "echeance_depassee",
        "refus_definitif",
    ] {
        assert!(
            !erreur.contains(interne) && !sortie.contains(interne),
            "{}",
            texte(&out)
        );
    }
    assert!(sortie.contains("Plan 1 : 0 / 2 fichier déposé"), "{sortie}");
    contient(&sortie, &["  Rien n'a été envoyé pendant ce passage."]);
    absent(&sortie, &["sans geste", "rattrap"]);
    assert!(
        sortie.ends_with("Ensuite : vigie retenter-echecs 1\n"),
        "{sortie}"
    );
    absent(&sortie, &["--y-compris-definitifs", "quand le réseau"]);
}

/// Une nuit entièrement déposée sur la plateforme : le bilan rappelle `vigie traiter`, que
/// `vigie` ne lance jamais de lui-même, avec l'adresse du dépôt (donnée par `--api`, elle
/// n'est pas celle que `vigie traiter` prendrait de lui-même).
#[test]
fn un_depot_vigiechiro_reussi_rappelle_vigie_traiter() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    let out = banc.depot_plateforme().finir_en(0);
    assert!(
        stdout(&out).ends_with(&format!(
            "Ensuite : vigie traiter --api {}\n",
            banc.bac().api()
        )),
        "{}",
        texte(&out)
    );
    // Le conseil, tapé tel quel, lance le calcul de cette nuit, sans identifiant à recopier.
    let out = banc
        .vigie_plateforme()
        .args(["traiter", "--api"])
        .arg(banc.bac().api())
        .finir_en(0);
    assert_eq!(
        banc.bac()
            .participation(PARTICIPATION)
            .unwrap()
            .calculs_lances,
        1,
        "{}",
        texte(&out)
    );
}

/// Un terminal de `colonnes` colonnes, juste assez fidèle pour ce que `vigie` lui écrit
/// (curseur, effacements, retour automatique à la ligne) : il relève chaque ligne qui aurait
/// débordé (le terminal l'aurait repliée) et rend l'écran final.
#[cfg(unix)]
struct TerminalVirtuel {
    colonnes: usize,
    lignes: Vec<Vec<char>>,
    ligne: usize,
    colonne: usize,
    debordements: Vec<String>,
    inconnues: Vec<String>,
}

#[cfg(unix)]
impl TerminalVirtuel {
    fn nouveau(colonnes: usize) -> Self {
        TerminalVirtuel {
            colonnes,
            lignes: vec![Vec::new()],
            ligne: 0,
            colonne: 0,
            debordements: Vec::new(),
            inconnues: Vec::new(),
        }
    }

    fn courante(&mut self) -> &mut Vec<char> {
        while self.lignes.len() <= self.ligne {
            self.lignes.push(Vec::new());
        }
        let l = self.ligne;
        &mut self.lignes[l]
    }

    fn ecrire(&mut self, texte: &str) {
        let mut car = texte.chars().peekable();
        while let Some(c) = car.next() {
            match c {
                '\r' => self.colonne = 0,
                // Le pseudo-terminal traduit « \n » en « \r\n » (ONLCR).
                '\n' => {
                    self.ligne += 1;
                    self.colonne = 0;
                }
                '\u{8}' => self.colonne = self.colonne.saturating_sub(1),
                '\u{7}' => {}
                '\u{1b}' => {
                    if car.peek() != Some(&'[') {
                        let suite = car.next().unwrap_or(' ');
                        self.inconnues.push(format!("ESC {suite}"));
                        continue;
                    }
                    car.next();
                    let mut parametres = String::new();
                    let mut fin = ' ';
                    for x in car.by_ref() {
                        if x.is_ascii_alphabetic() {
                            fin = x;
                            break;
                        }
                        parametres.push(x);
                    }
                    let n = parametres
                        .trim_start_matches('?')
                        .parse::<usize>()
                        .unwrap_or(0);
                    match fin {
                        'A' => self.ligne = self.ligne.saturating_sub(n.max(1)),
                        'B' => self.ligne += n.max(1),
                        'C' => self.colonne = (self.colonne + n.max(1)).min(self.colonnes - 1),
                        'D' => self.colonne = self.colonne.saturating_sub(n.max(1)),
                        'G' => self.colonne = n.max(1) - 1,
                        'K' => {
                            let col = self.colonne;
                            let l = self.courante();
                            match n {
                                0 => l.truncate(col),
                                _ => l.clear(),
                            }
                        }
                        'J' => {
                            let (ligne, col) = (self.ligne, self.colonne);
                            self.courante().truncate(col);
                            self.lignes.truncate(ligne + 1);
                        }
                        'm' | 'h' | 'l' => {}
                        autre => self.inconnues.push(format!("CSI {parametres}{autre}")),
                    }
                }
                c => {
                    if self.colonne >= self.colonnes {
                        // indicatif complète chaque ligne d'espaces jusqu'au bord et compte sur
                        // ce retour automatique pour passer à la suivante : un bord blanc est
                        // ce remplissage. Un caractère écrit au bord, suivi d'autres, est une
                        // ligne qui déborde.
                        let l: String = self.courante().iter().collect();
                        if l.chars().last().is_some_and(|c| c != ' ') {
                            self.debordements.push(l);
                        }
                        self.ligne += 1;
                        self.colonne = 0;
                    }
                    let col = self.colonne;
                    let l = self.courante();
                    while l.len() <= col {
                        l.push(' ');
                    }
                    l[col] = c;
                    self.colonne += 1;
                }
            }
        }
    }

    fn ecran(&self) -> Vec<String> {
        self.lignes
            .iter()
            .map(|l| l.iter().collect::<String>().trim_end().to_owned())
            .collect()
    }
}

/// `vigie depot` dans un pseudo-terminal de 80 colonnes (`script`, `COLUMNS=80`), la nuit aux
/// noms longs, un fichier à la fois : huit fichiers refusés (« (8 en échec) »), un
/// `Retry-After`, et trois fois Entrée pendant l'envoi. Aucune ligne affichée ne dépasse 80 caractères (le terminal en
/// aurait replié une), la barre d'ensemble reste une barre, les noms raccourcis gardent le
/// passage et le point, et Entrée ne laisse aucune copie figée de la barre.
#[cfg(unix)]
#[test]
fn a_80_colonnes_dans_un_vrai_terminal_rien_ne_deborde() {
    use vigie_bac_a_sable::{Operation, Regle, RetryAfter};

    let banc = Banc::nouveau();
    let nom_long = |i: usize| format!("Car640380-2026-Pass1-A1-PA000123_20260621_22{i:04}_000.wav");
    for i in 0..14 {
        banc.fichier(&nom_long(i), 200_000);
    }
    for i in 0..8 {
        banc.panne(
            Regle::toujours(Some(Operation::PutObject), code_http(403))
                .sur_cle(&banc.cle(&nom_long(i))),
        );
    }
    banc.panne(
        Regle::toujours(
            Some(Operation::PutObject),
            code_http_apres(503, RetryAfter::Secondes(4)),
        )
        .sur_cle(&banc.cle(&nom_long(13)))
        .fois(1),
    );
    // La commande, ses variables et le réglage du terminal, dans un script que `script` lance.
    // Un seul envoi à la fois : pendant le `Retry-After` du dernier fichier, il est la seule
    // unité en vol, et la ligne d'ensemble décompte sa reprise à chaque rafraîchissement. À
    // deux, l'autre unité pouvait rester en vol pendant toute l'attente sur une machine
    // chargée, et la ligne d'ensemble ne disait jamais « reprise dans » (essai instable). La
    // largeur de la mention du parallélisme est vérifiée par le tableau
    // (`suivi::tableau`), sans terminal.
    let depot = banc.depot_avec(&["--paralleles".to_owned(), "1".to_owned()]);
    let guillemets =
        |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', r"'\''"));
    let mut lanceur = String::from("stty cols 80 rows 40\nexport COLUMNS=80 TERM=xterm\n");
    for (k, v) in depot.get_envs() {
        if let Some(v) = v {
            lanceur.push_str(&format!(
                "export {}={}\n",
                k.to_string_lossy(),
                guillemets(v)
            ));
        }
    }
    lanceur.push_str(&format!("exec {}", guillemets(depot.get_program())));
    for a in depot.get_args() {
        lanceur.push(' ');
        lanceur.push_str(&guillemets(a));
    }
    lanceur.push('\n');
    let fichier = banc.dossier.path().join("lanceur.sh");
    std::fs::write(&fichier, lanceur).unwrap();
    let mut terminal = PseudoTerminal::lancer(&format!("sh {}", fichier.display()), &[]);
    // Entrée, trois fois, pendant que la barre attend la fin du `Retry-After`.
    terminal.attendre("nouvelle tentative dans");
    for _ in 0..3 {
        terminal.taper(b"\r");
    }
    let (statut, brut) = terminal.finir();
    assert_eq!(statut.code(), Some(3), "{brut}");
    let mut terminal = TerminalVirtuel::nouveau(80);
    terminal.ecrire(&brut);
    assert!(
        terminal.inconnues.is_empty(),
        "séquences inconnues : {:?}",
        terminal.inconnues
    );
    assert!(
        terminal.debordements.is_empty(),
        "des lignes dépassent 80 colonnes :\n{}",
        terminal.debordements.join("\n")
    );
    // La barre était là, avec sa barre, jusqu'au bout de la ligne sans la dépasser.
    assert!(brut.contains("(8 en échec) ["), "{brut}");
    // Pendant le `Retry-After`, la ligne d'ensemble décompte la reprise.
    assert!(brut.contains("· reprise dans "), "{brut}");
    assert!(
        brut.contains("-Pass1-A1…"),
        "le passage et le point : {brut}"
    );
    assert!(!brut.contains("Car640380…1-PA000123"), "{brut}");
    // L'écran final : le bilan, et aucune copie figée de la barre.
    let ecran = terminal.ecran();
    let figees: Vec<&String> = ecran
        .iter()
        .filter(|l| l.contains("fichiers [") || l.contains(" %"))
        .collect();
    assert!(figees.is_empty(), "copies figées :\n{}", ecran.join("\n"));
    assert!(
        ecran
            .iter()
            .any(|l| l.starts_with("Plan 1 : 6 / 14 fichiers déposés")),
        "{}",
        ecran.join("\n")
    );
}

/// Les noms refusés, devant la plateforme du bac à sable (qui juge comme le serveur) : la
/// suggestion pour un nom à espace ou à accents macOS (NFD) est acceptée telle quelle une fois
/// appliquée, et une faute de frappe (`Pas1`) est montrée à son endroit, avec sa correction.
#[test]
fn les_suggestions_de_noms_sont_acceptees_et_une_faute_est_montree() {
    let banc = Banc::nouveau();
    let espace = "Car640139-2026-Pass 1-A1-OB-1_20260621_221500_000.wav";
    let nfd = "Car640139-2026-Pass1-A1-E\u{301}tang_20260621_221501_000.wav";
    let faute = "Car640139-2026-Pas1-A1-OB-1_20260621_221502_000.wav";
    for n in [espace, nfd, faute] {
        banc.fichier(n, 1000);
    }
    let out = banc.depot_plateforme().finir_en(2);
    let erreur = stderr(&out);
    contient(
        &erreur,
        &["corrigez [Pas1] en Pass1 : Car640139-2026-[Pas1]-…"],
    );
    absent(&erreur, &["ne suit pas le protocole", "E_tang", "Pass_1"]);
    // Chaque suggestion appliquée telle quelle, et la faute corrigée : la plateforme accepte.
    let mut suggestions: Vec<&str> = erreur
        .lines()
        .filter_map(|l| l.split("renommez-le en ").nth(1))
        .collect();
    suggestions.sort();
    assert_eq!(
        suggestions,
        [
            "Car640139-2026-Pass1-A1-Etang_20260621_221501_000.wav",
            "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav",
        ],
        "{erreur}"
    );
    for (de, vers) in [
        (nfd, suggestions[0]),
        (espace, suggestions[1]),
        (faute, &faute.replace("Pas1", "Pass1")[..]),
    ] {
        std::fs::rename(banc.nuit.join(de), banc.nuit.join(vers)).unwrap();
    }
    banc.depot_plateforme().finir_en(0);
    assert_eq!(banc.bac().fichiers().len(), 3);
}

/// Des fichiers au point Z1 déposés dans une participation au point A1 (--forcer-participation,
/// même sous -q) : l'avertissement tient en trois lignes de 80 colonnes au plus (il en faisait
/// huit à onze, dix noms entiers) ; à la création (`--site --point A1`), de même.
#[test]
fn l_avertissement_de_point_est_compact() {
    let banc = Banc::nouveau();
    for i in 0..12 {
        banc.fichier(
            &format!("Car640139-2026-Pass1-Z1-PA000123_20260621_22{i:04}_000.wav"),
            100,
        );
    }
    let out = banc
        .depot_plateforme()
        .mots("--progression jamais -q --forcer-participation")
        .finir_en(0);
    let erreur = stderr(&out);
    let debut = erreur
        .find("attention : ces fichiers ne sont pas ceux de la participation")
        .unwrap_or_else(|| panic!("pas d'avertissement : {erreur}"));
    let avertissement: Vec<&str> = erreur[debut..].lines().take(3).collect();
    assert!(
        avertissement.iter().all(|l| l.chars().count() <= 80),
        "{erreur}"
    );
    assert_eq!(
        avertissement[2], "  point   : Z1 dans les noms, A1 pour la participation",
        "{erreur}"
    );
    let out = banc
        .depot_par_site(SITE, "A1", "2026-06-21T20:00:00Z", "2026-06-22T04:00:00Z")
        .args(["--progression", "jamais", "-q"])
        .finir_en(0);
    let erreur = stderr(&out);
    let debut = erreur
        .find("attention : 12 fichiers portent dans leur nom le point Z1")
        .unwrap_or_else(|| panic!("pas d'avertissement : {erreur}"));
    let avertissement: Vec<&str> = erreur[debut..]
        .lines()
        .take_while(|l| l.starts_with("attention") || l.starts_with("    "))
        .collect();
    assert!(avertissement.len() <= 3, "{erreur}");
    assert!(
        avertissement.iter().all(|l| l.chars().count() <= 80),
        "{erreur}"
    );
    assert!(avertissement.join(" ").contains("au point A1"), "{erreur}");
    assert!(
        avertissement
            .join(" ")
            .contains("(…-Pass1-Z1…_220000_000.wav et 11 autres)"),
        "{erreur}"
    );
}
