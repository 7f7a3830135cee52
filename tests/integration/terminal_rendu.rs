//! Le terminal est un bien emprunté : `vigie` le rend comme il l'a trouvé, quel que soit le
//! nombre de nuits et le chemin de sortie. Vu dans un vrai pseudo-terminal de 80 × 30
//! (`portable-pty`), le même pour toute la séance, comme celui d'une bénévole : un dépôt de trois
//! nuits avec barres, puis Ctrl-C tapé au clavier au milieu d'un autre et sa reprise de deux
//! nuits, puis SIGTERM, SIGHUP et une panique ; après chacun, l'écho du terminal est là (son `termios`, lu par l'essai), et
//! l'écran final (lu par un émulateur, `vt100`) ne garde aucune barre.
//!
//! L'incident : après un dépôt ou une reprise de deux ou quatre nuits avec barres, `stty` disait
//! `-echo`, et le shell n'affichait plus ce que l'on tapait (chaque nuit relevait le mode
//! « d'avant » alors que les barres de la précédente l'avaient déjà coupé : voir
//! `plateforme::echo`).

// Ces essais parlent au bac à sable et envoient des signaux Unix.
#![cfg(all(unix, feature = "bac-a-sable"))]

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtyPair, PtySize, native_pty_system};
use vigie_bac_a_sable::{Operation, Panne, Regle, Relache};

use crate::commun::plateforme::*;
use crate::commun::*;
use crate::saison::depot_saison;

const LIGNES: u16 = 30;
const COLONNES: u16 = 80;
const LIGNES_NZ: NonZeroU16 = NonZeroU16::new(LIGNES).unwrap();
const COLONNES_NZ: NonZeroU16 = NonZeroU16::new(COLONNES).unwrap();

/// Trois nuits d'un même point, deux fichiers chacune.
const NUITS: [[&str; 2]; 3] = [
    [
        "Car640139-2026-Pass1-A1-PA1_20260703_221000_000.wav",
        "Car640139-2026-Pass1-A1-PA1_20260704_013000_000.wav",
    ],
    [
        "Car640139-2026-Pass1-A1-PA1_20260704_214500_000.wav",
        "Car640139-2026-Pass1-A1-PA1_20260705_042000_000.wav",
    ],
    [
        "Car640139-2026-Pass1-A1-PA1_20260705_220000_000.wav",
        "Car640139-2026-Pass1-A1-PA1_20260706_020000_000.wav",
    ],
];

/// Un bac à sable neuf et la saison de trois nuits dans sa nuit d'essai.
fn saison() -> Banc {
    let banc = Banc::nouveau();
    for nuit in NUITS {
        for nom in nuit {
            banc.fichier(&format!("PA1/{nom}"), 40_000);
        }
    }
    banc
}

/// Le pseudo-terminal de la séance : ce que `vigie` y écrit est lu au fil de l'eau, et passé
/// à un émulateur d'écran.
struct Terminal {
    paire: PtyPair,
    clavier: Box<dyn Write + Send>,
    recu: Arc<Mutex<Vec<u8>>>,
    ecran: Arc<Mutex<vt100::Parser>>,
}

impl Terminal {
    fn ouvrir() -> Terminal {
        Terminal::ouvrir_de(LIGNES_NZ, COLONNES_NZ)
    }

    fn ouvrir_de(lignes: NonZeroU16, colonnes: NonZeroU16) -> Terminal {
        let paire = native_pty_system()
            .openpty(PtySize {
                rows: lignes.get(),
                cols: colonnes.get(),
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut lecteur = paire.master.try_clone_reader().unwrap();
        let clavier = paire.master.take_writer().unwrap();
        let recu = Arc::new(Mutex::new(Vec::new()));
        let ecran = Arc::new(Mutex::new(vt100::Parser::new(lignes, colonnes, 0)));
        {
            let (recu, ecran) = (Arc::clone(&recu), Arc::clone(&ecran));
            // Jusqu'à la fermeture du terminal, à la fin de l'essai.
            std::thread::spawn(move || {
                let mut tampon = [0u8; 4096];
                while let Ok(n) = lecteur.read(&mut tampon) {
                    if n == 0 {
                        break;
                    }
                    recu.lock().unwrap().extend_from_slice(&tampon[..n]);
                    ecran.lock().unwrap().process(&tampon[..n]);
                }
            });
        }
        Terminal {
            paire,
            clavier,
            recu,
            ecran,
        }
    }

    /// Lance `commande` (ses arguments et son environnement) dans le terminal, dont elle est
    /// le meneur de session : Ctrl-C tapé lui arrive par la discipline de ligne.
    fn lancer(&self, commande: &Command) -> Session {
        let mut c = CommandBuilder::new(commande.get_program());
        c.args(commande.get_args());
        c.env_clear();
        for (k, v) in commande.get_envs() {
            if let Some(v) = v {
                c.env(k, v);
            }
        }
        c.env("TERM", "xterm-256color");
        if let Some(dossier) = commande.get_current_dir() {
            c.cwd(dossier);
        }
        let debut = self.recu.lock().unwrap().len();
        let enfant = self.paire.slave.spawn_command(c).unwrap();
        Session { enfant, debut }
    }

    /// Ce que la session a écrit depuis son lancement.
    fn vu(&self, s: &Session) -> String {
        String::from_utf8_lossy(&self.recu.lock().unwrap()[s.debut..]).into_owned()
    }

    /// Attend que `texte` s'affiche (un événement, avec une limite large).
    fn attendre(&self, s: &Session, texte: &str) {
        let debut = Instant::now();
        while !self.vu(s).contains(texte) {
            assert!(
                debut.elapsed() < Duration::from_secs(60),
                "« {texte} » ne s'affiche pas : {}",
                self.vu(s)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// L'écho du terminal est-il là ? Son `termios`, lu sur le maître.
    fn echo(&self) -> bool {
        let modes = self
            .paire
            .master
            .get_termios()
            .expect("termios du terminal");
        modes.local_flags.bits() & libc::ECHO != 0
    }

    /// Attend que `vigie` coupe l'écho (ses barres sont à l'écran).
    fn attendre_echo_coupe(&self, s: &Session) {
        let debut = Instant::now();
        while self.echo() {
            assert!(
                debut.elapsed() < Duration::from_secs(60),
                "l'écho n'est jamais coupé : {}",
                self.vu(s)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Tape `octets` au clavier.
    fn taper(&mut self, octets: &[u8]) {
        self.clavier.write_all(octets).unwrap();
        self.clavier.flush().unwrap();
    }

    /// Attend la fin de la session (au plus 60 s), puis que tout ce qu'elle a écrit soit lu :
    /// son code de sortie.
    fn finir(&self, mut s: Session) -> u32 {
        let debut = Instant::now();
        let statut = loop {
            if let Some(statut) = s.enfant.try_wait().unwrap() {
                break statut;
            }
            if debut.elapsed() > Duration::from_secs(60) {
                let _ = s.enfant.kill();
                panic!("vigie ne s'est pas arrêté : {}", self.vu(&s));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.rattraper();
        statut.exit_code()
    }

    /// Attend que le lecteur ait lu tout ce qui est écrit dans le terminal jusqu'ici : une
    /// marque (un titre de fenêtre, que l'écran n'affiche pas) écrite après, par un autre
    /// programme, revient quand tout ce qui la précède est lu.
    fn rattraper(&self) {
        let marque = format!("vigie-essai-{}", self.recu.lock().unwrap().len());
        let mut c = CommandBuilder::new("printf");
        c.arg(format!("\x1b]0;{marque}\x07"));
        c.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        let mut printf = self.paire.slave.spawn_command(c).unwrap();
        printf.wait().unwrap();
        let debut = Instant::now();
        while !String::from_utf8_lossy(&self.recu.lock().unwrap()).contains(&marque) {
            assert!(
                debut.elapsed() < Duration::from_secs(60),
                "le terminal ne rend pas la marque {marque}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Efface l'écran de l'émulateur (pas celui de `vigie`) : ce qui suit s'y écrit en haut.
    fn effacer(&self) {
        self.ecran.lock().unwrap().process(b"\x1b[2J\x1b[H");
    }

    /// Les lignes de l'écran que le terminal a dû replier lui-même (une ligne écrite plus
    /// large que lui : un mot y est coupé en bout de ligne).
    fn lignes_repliees(&self) -> Vec<String> {
        let parseur = self.ecran.lock().unwrap();
        let ecran = parseur.screen();
        let (lignes, colonnes) = ecran.size();
        let (lignes, colonnes) = (lignes.get(), colonnes.get());
        let contenu: Vec<String> = ecran.rows(0, colonnes).collect();
        (0..lignes)
            .filter(|&l| ecran.row_wrapped(l))
            .map(|l| format!("{}⏎{}", contenu[l as usize], contenu[l as usize + 1]))
            .collect()
    }

    /// L'écran tel qu'on le voit, une ligne par ligne de terminal.
    fn ecran(&self) -> String {
        self.ecran.lock().unwrap().screen().contents()
    }

    /// Après une sortie : l'écho est là, et l'écran ne garde aucune barre.
    fn rendu(&self, quoi: &str) {
        let ecran = self.ecran();
        assert!(
            self.echo(),
            "{quoi} : l'écho du terminal n'est pas rendu (stty -echo)\n{ecran}"
        );
        assert!(
            !ecran.lines().any(|l| l.contains("fichiers [")),
            "{quoi} : une barre reste à l'écran :\n{ecran}"
        );
    }
}

/// Une commande lancée dans le terminal.
struct Session {
    enfant: Box<dyn portable_pty::Child + Send + Sync>,
    debut: usize,
}

impl Drop for Session {
    fn drop(&mut self) {
        if matches!(self.enfant.try_wait(), Ok(None)) {
            let _ = self.enfant.kill();
            let _ = self.enfant.wait();
        }
    }
}

/// Une saison dont la deuxième nuit est retenue : la troisième déclaration de fichier (la
/// première de la deuxième nuit) et les suivantes attendent que l'essai les relâche.
fn saison_retenue() -> (Banc, Relache) {
    let banc = saison();
    let relache = Relache::default();
    banc.panne(
        Regle::nieme(
            Operation::ApiDeclarerFichier,
            None,
            3,
            Panne::Retenir(relache.clone()),
        )
        .fois(u64::MAX),
    );
    (banc, relache)
}

/// Lance la saison retenue, attend qu'elle soit arrêtée au milieu de sa deuxième nuit, barres
/// à l'écran et écho coupé, puis `arreter` ; rend le code de sortie, et le banc (la reprise
/// enverra les deux nuits restantes).
fn arreter_au_milieu(
    terminal: &mut Terminal,
    arreter: impl FnOnce(&mut Terminal, u32),
) -> (u32, Banc) {
    let (banc, relache) = saison_retenue();
    let s = terminal.lancer(&avec_barres(depot_saison(&banc)));
    banc.attendre("la deuxième nuit commence", |bac| {
        bac.compteurs().requetes(Operation::ApiDeclarerFichier) >= 3
    });
    terminal.attendre_echo_coupe(&s);
    terminal.attendre(&s, "fichiers [");
    let pid = s.enfant.process_id().expect("pid de vigie");
    arreter(terminal, pid);
    let code = terminal.finir(s);
    relache.relacher();
    (code, banc)
}

/// Des barres, quoi qu'en dise la sortie d'erreur.
fn avec_barres(mut c: Command) -> Command {
    c.args(["--progression", "toujours"]);
    c
}

fn envoyer(pid: u32, nom: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{nom}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{nom} {pid}");
}

/// La séance entière dans un même terminal de 80 × 30 : après chaque sortie, l'écho est là et
/// aucune barre ne reste à l'écran.
#[test]
fn le_terminal_est_rendu_sur_chaque_chemin_de_sortie() {
    let mut terminal = Terminal::ouvrir();
    assert!(terminal.echo(), "le terminal de l'essai n'a pas d'écho");

    // Trois nuits avec barres, jusqu'au bout.
    let banc = saison();
    let s = terminal.lancer(&avec_barres(depot_saison(&banc)));
    let code = terminal.finir(s);
    assert_eq!(code, 0, "{}", terminal.ecran());
    terminal.rendu("un dépôt de trois nuits");
    drop(banc);

    // Ctrl-C tapé au clavier au milieu de la deuxième nuit, puis la reprise des deux nuits
    // restantes.
    let (code, banc) = arreter_au_milieu(&mut terminal, |t, _| t.taper(b"\x03"));
    assert_eq!(code, 130, "{}", terminal.ecran());
    terminal.rendu("Ctrl-C");
    let s = terminal.lancer(&avec_barres(depot_saison(&banc)));
    let code = terminal.finir(s);
    assert_eq!(code, 0, "{}", terminal.ecran());
    terminal.rendu("la reprise de deux nuits");
    drop(banc);

    // SIGTERM, puis SIGHUP.
    for signal in ["TERM", "HUP"] {
        let (code, _banc) = arreter_au_milieu(&mut terminal, |_, pid| envoyer(pid, signal));
        assert_eq!(code, 130, "SIG{signal} : {}", terminal.ecran());
        terminal.rendu(&format!("SIG{signal}"));
    }

    // Une panique, barres à l'écran (provoquée : voir `suivi::panique_pour_essai`).
    let banc = saison();
    let mut commande = avec_barres(depot_saison(&banc));
    commande.env("VIGIE_ESSAI_PANIQUE", "1");
    let s = terminal.lancer(&commande);
    let code = terminal.finir(s);
    assert_eq!(code, 101, "{}", terminal.ecran());
    assert!(
        terminal.ecran().contains("panique provoquée pour l'essai"),
        "{}",
        terminal.ecran()
    );
    assert!(
        terminal.echo(),
        "une panique : l'écho du terminal n'est pas rendu\n{}",
        terminal.ecran()
    );
}

/// Des messages longs d'erreur et de conseil, ceux des essais existants (identifiants S3
/// absents : `terminal.rs` ; noms refusés et `vigie renommer` : `terminal.rs` ; pas de plan :
/// `plan_cli.rs` ; jeton absent : `depot_vigiechiro.rs` ; argument mal écrit :
/// `premier_ecran.rs` ; dossier introuvable : `plan_cli.rs` ; horloge remise à 2000 :
/// `horodatages.rs` ; nuit directe non préparée : `format_sequences.rs`), dans un terminal de
/// 80 puis de 60 colonnes : le terminal n'a jamais à replier une ligne (il couperait un mot en
/// bout de ligne), et chaque message est là en entier.
#[test]
fn les_messages_tiennent_dans_la_largeur_du_terminal() {
    for colonnes in [80, 60] {
        let terminal = Terminal::ouvrir_de(
            NonZeroU16::new(50).unwrap(),
            NonZeroU16::new(colonnes).unwrap(),
        );
        let banc = Banc::nouveau();
        for i in 0..3 {
            banc.fichier(&format!("{}.WAV", nom(i).trim_end_matches(".wav")), 100);
        }
        let mut sans_identifiants = banc.depot();
        sans_identifiants
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .args(["--profil", "terrain"]);
        let mut sans_jeton = banc.vigie();
        sans_jeton
            .args(["depot", "--participation", PARTICIPATION, "--api"])
            .arg(banc.bac().api())
            .arg(&banc.nuit);
        let mut sans_plan = banc.vigie();
        sans_plan.arg("etat");
        let mut mal_ecrit = banc.vigie();
        mal_ecrit.args(["depot", "-simulation"]).arg(&banc.nuit);
        let mut introuvable = banc.vigie();
        introuvable
            .args(["depot", "--simulation"])
            .arg(banc.nuit.join("Relevés de Zoé").join("Carte SD 2026"));
        let horloge = Banc::nouveau();
        for s in 0..3 {
            horloge.fichier(
                &format!("nuit/Car640139-2026-Pass1-A1-PA1_20000101_0000{s:02}_000.wav"),
                3_000,
            );
        }
        let direct = Banc::nouveau();
        let mut octets = en_tete_wav(384_000, 1000);
        octets.extend_from_slice(&[0; 1000]);
        std::fs::write(direct.nuit.join(nom(4)), octets).unwrap();
        let commandes = [
            ("identifiants S3 absents", sans_identifiants, "définissez"),
            ("noms refusés", banc.depot_plateforme(), "vigie renommer"),
            ("jeton absent", sans_jeton, "vigie connexion"),
            ("pas de plan", sans_plan, "vigie depot"),
            ("argument mal écrit", mal_ecrit, "--simulation"),
            ("dossier introuvable", introuvable, "introuvable"),
            ("horloge remise à 2000", depot_saison(&horloge), "horloge"),
            ("nuit directe", direct.depot_plateforme(), "vigie preparer"),
        ];
        for (quoi, commande, attendu) in commandes {
            terminal.effacer();
            let s = terminal.lancer(&commande);
            let code = terminal.finir(s);
            let ecran = terminal.ecran();
            assert_ne!(code, 0, "{quoi} : {ecran}");
            assert!(
                ecran.contains(attendu),
                "{quoi} à {colonnes} colonnes : « {attendu} » manque :\n{ecran}"
            );
            let repliees = terminal.lignes_repliees();
            assert!(
                repliees.is_empty(),
                "{quoi} à {colonnes} colonnes : lignes repliées par le terminal :\n{}\n\n{ecran}",
                repliees.join("\n")
            );
        }
    }
}
