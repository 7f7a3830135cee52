//! Le banc commun des tests d'intégration : un bac à sable S3 en processus (vrai protocole,
//! signature vérifiée, pannes injectées) et le binaire `vigie` lancé contre lui.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use vigie_bac_a_sable::BacASable;

mod aides;

/// Chaque fichier sous `dossier`, caché ou non : son chemin relatif (séparé par `/`), trié.
pub fn fichiers_sous(dossier: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let mut pile = vec![dossier.to_path_buf()];
    while let Some(d) = pile.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                pile.push(p);
            } else {
                let relatif = p.strip_prefix(dossier).unwrap().to_string_lossy();
                v.push(relatif.replace('\\', "/"));
            }
        }
    }
    v.sort();
    v
}

/// Le SHA-256 de `octets`, en hexadécimal.
pub fn sha256(octets: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(octets)
        .iter()
        .map(|o| format!("{o:02x}"))
        .collect()
}

/// Chaque fichier sous `dossier` ([`fichiers_sous`]) et le SHA-256 de son contenu.
pub fn empreintes_sous(dossier: &Path) -> std::collections::BTreeMap<String, String> {
    fichiers_sous(dossier)
        .into_iter()
        .map(|relatif| {
            let octets = std::fs::read(dossier.join(&relatif)).unwrap();
            (relatif, sha256(&octets))
        })
        .collect()
}

pub use aides::*;

/// Un port de 127.0.0.1 où rien n'écoute, réservé tant que la valeur vit : la socket est liée
/// sans `listen`, si bien qu'une connexion y est refusée tout de suite, et qu'aucun essai
/// voisin ne peut recevoir ce port pour son propre serveur. (Lier puis relâcher un port le
/// rendait au système : un autre essai en parallèle pouvait l'obtenir et répondre à la place
/// de « personne », d'où un échec intermittent.)
pub struct PortFerme {
    _reserve: tokio::net::TcpSocket,
    pub port: u16,
}

impl PortFerme {
    pub fn nouveau() -> PortFerme {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let port = socket.local_addr().unwrap().port();
        PortFerme {
            _reserve: socket,
            port,
        }
    }
}

pub const COMPARTIMENT: &str = "nuits";
pub const PREFIXE: &str = "site-640139/2026-06-21";
pub const MIO: usize = 1024 * 1024;

pub struct Banc {
    pub rt: tokio::runtime::Runtime,
    pub bac: Option<BacASable>,
    pub dossier: tempfile::TempDir,
    pub nuit: PathBuf,
    pub base: PathBuf,
}

impl Banc {
    pub fn nouveau() -> Banc {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dossier = tempfile::tempdir().unwrap();
        let bac = rt
            .block_on(BacASable::demarrer(&dossier.path().join("serveur"), 0))
            .unwrap();
        bac.creer_compartiment(COMPARTIMENT).unwrap();
        let nuit = dossier.path().join("nuit");
        std::fs::create_dir_all(&nuit).unwrap();
        let base = dossier.path().join("config/vigie.sqlite");
        Banc {
            rt,
            bac: Some(bac),
            dossier,
            nuit,
            base,
        }
    }

    pub fn bac(&self) -> &BacASable {
        self.bac.as_ref().unwrap()
    }

    /// Écrit un fichier au contenu déterministe (pseudo-aléatoire, graine = nom).
    pub fn fichier(&self, chemin: &str, taille: usize) -> PathBuf {
        let p = self.nuit.join(chemin);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, contenu(chemin, taille)).unwrap();
        p
    }

    /// Une nuit de 20 fichiers de tailles mêlées, dont 3 de plus de 5 Mio (multipart).
    pub fn nuit_de_20(&self) -> Vec<(String, usize)> {
        let mut fichiers = Vec::new();
        for i in 0..17 {
            let nom = format!("Car640139-2026-Pass1-A1-OB-1_20260621_2215{i:02}_000.wav");
            let taille = 10_000 + i * 97_531;
            fichiers.push((nom, taille));
        }
        fichiers.push((
            "sous/Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav".into(),
            11 * MIO + 12_345,
        ));
        fichiers.push((
            "sous/Car640139-2026-Pass1-A1-OB-1_20260621_231501_000.wav".into(),
            6 * MIO,
        ));
        fichiers.push((
            "Car640139-2026-Pass1-A1-OB-1_20260621_231502_000.wav".into(),
            16 * MIO + 1,
        ));
        for (nom, taille) in &fichiers {
            self.fichier(nom, *taille);
        }
        fichiers
    }

    pub fn cle(&self, chemin: &str) -> String {
        format!("{PREFIXE}/{chemin}")
    }

    /// Le binaire `vigie`, avec la base du banc et les identifiants du bac à sable.
    pub fn vigie(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_vigie"));
        c.env_clear()
            .env("PATH", path_avec_vigie())
            .env("HOME", self.dossier.path())
            .env("VIGIE_BASE", &self.base)
            .env("AWS_ACCESS_KEY_ID", vigie_bac_a_sable::CLE_ACCES)
            .env("AWS_SECRET_ACCESS_KEY", vigie_bac_a_sable::SECRET)
            .env("AWS_REGION", vigie_bac_a_sable::REGION)
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env(
                "AWS_CONFIG_FILE",
                self.dossier.path().join("aws-config-absent"),
            )
            .env(
                "AWS_SHARED_CREDENTIALS_FILE",
                self.dossier.path().join("aws-credentials-absent"),
            )
            .stdin(Stdio::null());
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            // Sans SystemRoot, Winsock ne s'initialise pas (erreur 10106) : un environnement
            // vidé le garde. Et vigie dans son propre groupe de processus, pour que `signal`
            // lui envoie Ctrl-Break à lui seul (CREATE_NEW_PROCESS_GROUP).
            if let Some(racine) = std::env::var_os("SystemRoot") {
                c.env("SystemRoot", racine);
            }
            c.creation_flags(0x0000_0200);
        }
        c
    }

    /// Les réglages du banc : attentes courtes entre deux tentatives et petites parties, pour
    /// que les essais ne dorment pas plus que nécessaire ; mais des délais qui coupent une
    /// tentative larges (`--delai-tentative 120`, `--delai-blocage 60`). Ces délais courent sur
    /// l'horloge murale du binaire : sur 2 cœurs partagés, une partie de 5 Mio ou une
    /// finalisation retenue quelques secondes par la charge, sans qu'aucune panne n'en soit la
    /// cause, serait coupée et repartirait, et l'essai compterait une requête, une tentative
    /// ou des octets de plus. Seuls les essais dont le sujet est une connexion lente ou morte
    /// prennent des délais courts ([`Banc::options_delais_courts`]).
    pub fn options_rapides() -> Vec<String> {
        let mut options = Self::reessais_rapides();
        options.extend(
            "--seuil-multipart 5 --taille-partie 5"
                .split(' ')
                .map(String::from),
        );
        options
    }

    /// Les réglages du banc, une option changée : `options_rapides_sauf("--delai-tentative",
    /// "20")`.
    pub fn options_rapides_sauf(option: &str, valeur: &str) -> Vec<String> {
        let mut o = Self::options_rapides();
        let i = o
            .iter()
            .position(|a| a == option)
            .unwrap_or_else(|| panic!("{option} n'est pas un réglage du banc"));
        o[i + 1] = valeur.to_owned();
        o
    }

    /// Les réglages du banc avec des délais courts qui coupent une tentative
    /// (`--delai-tentative 2`, `--delai-blocage 1`), pour les seuls essais dont le sujet est
    /// une connexion lente ou morte : la tentative que la panne injectée retient doit être
    /// coupée par le délai, pas attendre la fin de la panne.
    pub fn options_delais_courts() -> Vec<String> {
        let mut o = Self::options_rapides_sauf("--delai-tentative", "2");
        let i = o.iter().position(|a| a == "--delai-blocage").unwrap();
        o[i + 1] = "1".to_owned();
        o
    }

    /// Les seuls réglages des réessais, ceux qu'accepte aussi `vigie verifier` : attentes
    /// courtes, délais larges (voir [`Banc::options_rapides`]).
    pub fn reessais_rapides() -> Vec<String> {
        "--attente-base 0.05 --attente-max 0.2 --delai-tentative 120 --delai-blocage 60"
            .split(' ')
            .map(String::from)
            .collect()
    }

    /// `vigie depot NUIT --vers s3://… --endpoint-url …` avec les réglages du banc.
    pub fn depot(&self) -> Command {
        self.depot_avec(&Self::options_rapides())
    }

    /// `vigie depot NUIT --vers s3://… --endpoint-url …` avec ces réglages.
    pub fn depot_avec(&self, options: &[String]) -> Command {
        let mut c = self.depot_s3_sans_reglages(&self.nuit, COMPARTIMENT, &self.bac().endpoint());
        c.args(options);
        c
    }

    pub fn retenter(&self) -> Command {
        let mut c = self.vigie();
        c.arg("retenter-echecs").args(Self::options_rapides());
        c
    }

    /// Vérifie que chaque fichier est à la destination, identique octet pour octet.
    pub fn verifier_identiques(&self, fichiers: &[(String, usize)]) {
        for (nom, taille) in fichiers {
            let objet = self.bac().chemin_objet(COMPARTIMENT, &self.cle(nom));
            let recu = std::fs::read(&objet).unwrap_or_else(|e| panic!("{nom} absent ({e})"));
            assert_eq!(recu.len(), *taille, "{nom} : taille");
            assert!(recu == contenu(nom, *taille), "{nom} : contenu différent");
        }
    }

    pub fn octets_nuit(fichiers: &[(String, usize)]) -> u64 {
        fichiers.iter().map(|(_, t)| *t as u64).sum()
    }

    /// `vigie etat --json` du dernier plan.
    pub fn etat(&self) -> serde_json::Value {
        let out = self.vigie().args(["etat", "--json"]).output().unwrap();
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("etat --json illisible ({e}) : {}", texte(&out)))
    }

    /// Attend qu'une condition sur le bac à sable soit vraie (au plus 30 s).
    pub fn attendre(&self, quoi: &str, condition: impl Fn(&BacASable) -> bool) {
        let debut = Instant::now();
        while !condition(self.bac()) {
            assert!(
                debut.elapsed() < Duration::from_secs(30),
                "attente trop longue : {quoi}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Lance `c`, sorties retenues : le garde tue le processus s'il vit encore à la fin de
    /// l'essai (voir [`Enfant`]).
    pub fn lancer(&self, mut c: Command) -> Enfant {
        Enfant::from(
            c.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        )
    }
}

impl Drop for Banc {
    fn drop(&mut self) {
        if let Some(bac) = self.bac.take() {
            self.rt.block_on(bac.arreter());
        }
    }
}

/// Le `PATH` des essais, le dossier du binaire `vigie` en tête : comme chez une bénévole qui
/// l'a installé, les commandes qu'il conseille commencent par `vigie` (et non par le chemin
/// complet du binaire des essais, hors du `PATH`).
pub fn path_avec_vigie() -> std::ffi::OsString {
    let dossier = Path::new(env!("CARGO_BIN_EXE_vigie"))
        .parent()
        .expect("le dossier du binaire")
        .to_path_buf();
    let reste = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dossier).chain(std::env::split_paths(&reste)))
        .expect("un PATH")
}

/// Contenu déterministe d'un fichier de test (xorshift, graine tirée du nom). Une séquence
/// `.wav` (ou `.WAV`) d'au moins 44 octets commence par un en-tête WAV PCM en expansion de
/// temps ×10 ([`en_tete_wav`] à 38 400 Hz) : c'est ce que la garde de format laisse partir vers
/// la plateforme ; le reste est du bruit.
pub fn contenu(nom: &str, taille: usize) -> Vec<u8> {
    let mut x: u64 = nom.bytes().fold(0xcbf2_9ce4_8422_2325, |h, o| {
        (h ^ u64::from(o)).wrapping_mul(0x100_0000_01b3)
    }) | 1;
    let mut v = Vec::with_capacity(taille + 8);
    if nom.to_ascii_lowercase().ends_with(".wav") && taille >= 44 {
        v.extend_from_slice(&en_tete_wav(38_400, taille - 44));
    }
    while v.len() < taille {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(taille);
    v
}

/// Un WAV brut mono 16 bits à `frequence` Hz (en-tête canonique, précédé d'un bloc `LIST`
/// pour que les données ne commencent pas à 44 : l'en-tête d'une séquence préparée est bien
/// réécrit), celui des cartes de `preparer` et `depot_carte_brute`.
pub fn wav_brut(frequence: u32, donnees: &[u8]) -> Vec<u8> {
    let list: &[u8] = b"LIST\x0c\x00\x00\x00INFOISFT\x00\x00\x00\x00";
    let mut w = b"RIFF".to_vec();
    w.extend(((4 + 24 + list.len() + 8 + donnees.len()) as u32).to_le_bytes());
    w.extend(b"WAVEfmt ");
    w.extend(16u32.to_le_bytes());
    w.extend(1u16.to_le_bytes());
    w.extend(1u16.to_le_bytes());
    w.extend(frequence.to_le_bytes());
    w.extend((frequence * 2).to_le_bytes());
    w.extend(2u16.to_le_bytes());
    w.extend(16u16.to_le_bytes());
    w.extend(list);
    w.extend(b"data");
    w.extend((donnees.len() as u32).to_le_bytes());
    w.extend(donnees);
    w
}

/// L'en-tête canonique (44 octets) d'un WAV PCM 16 bits mono à `frequence` Hz, suivi de
/// `donnees` octets d'échantillons.
pub fn en_tete_wav(frequence: u32, donnees: usize) -> Vec<u8> {
    let mut e = b"RIFF".to_vec();
    e.extend_from_slice(&(36 + donnees as u32).to_le_bytes());
    e.extend_from_slice(b"WAVEfmt ");
    e.extend_from_slice(&16u32.to_le_bytes());
    e.extend_from_slice(&1u16.to_le_bytes());
    e.extend_from_slice(&1u16.to_le_bytes());
    e.extend_from_slice(&frequence.to_le_bytes());
    e.extend_from_slice(&(frequence * 2).to_le_bytes());
    e.extend_from_slice(&2u16.to_le_bytes());
    e.extend_from_slice(&16u16.to_le_bytes());
    e.extend_from_slice(b"data");
    e.extend_from_slice(&(donnees as u32).to_le_bytes());
    e
}

/// Lancer une commande jusqu'au bout et exiger son code de sortie : sinon l'essai échoue en
/// montrant le code et les deux sorties. `banc.depot().finir_en(0)`.
pub trait FinirEn {
    fn finir_en(&mut self, attendu: i32) -> Output;
}

impl FinirEn for Command {
    #[track_caller]
    fn finir_en(&mut self, attendu: i32) -> Output {
        let out = self.output().unwrap();
        assert_eq!(code(&out), attendu, "{}", texte(&out));
        out
    }
}

/// La sortie standard d'une commande finie, en texte.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// La sortie d'erreur d'une commande finie, en texte.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn texte(out: &Output) -> String {
    format!(
        "code {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// Un processus lancé par un essai, tué (SIGKILL) à l'abandon du garde s'il vit encore : quand
/// l'essai panique avant de l'attendre, ou l'oublie. Sans lui, un `vigie` qui attend le retour
/// du réseau (sans limite par défaut) survivait à l'essai et au binaire de test. Il se
/// manipule comme le [`Child`] qu'il garde.
pub struct Enfant(Option<Child>);

impl From<Child> for Enfant {
    fn from(enfant: Child) -> Self {
        Enfant(Some(enfant))
    }
}

impl Enfant {
    /// Attend la fin du processus et rend ses sorties (voir [`Child::wait_with_output`]).
    pub fn wait_with_output(mut self) -> std::io::Result<Output> {
        self.0.take().expect("processus présent").wait_with_output()
    }
}

impl std::ops::Deref for Enfant {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0.as_ref().expect("processus présent")
    }
}

impl std::ops::DerefMut for Enfant {
    fn deref_mut(&mut self) -> &mut Child {
        self.0.as_mut().expect("processus présent")
    }
}

impl Drop for Enfant {
    fn drop(&mut self) {
        if let Some(enfant) = self.0.as_mut()
            && matches!(enfant.try_wait(), Ok(None))
        {
            let _ = enfant.kill();
            let _ = enfant.wait();
        }
    }
}

/// Une sortie d'un processus (`stdout`, `stderr`) lue au fil de l'eau par un fil à part, pour
/// attendre qu'un texte s'y montre : un événement, au lieu d'une attente fixe.
pub struct SortieSuivie {
    recu: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    lecteur: Option<std::thread::JoinHandle<()>>,
}

impl SortieSuivie {
    pub fn lire(mut flux: impl std::io::Read + Send + 'static) -> SortieSuivie {
        let recu = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lecteur = {
            let recu = std::sync::Arc::clone(&recu);
            std::thread::spawn(move || {
                let mut tampon = [0u8; 4096];
                while let Ok(n) = flux.read(&mut tampon) {
                    if n == 0 {
                        break;
                    }
                    recu.lock().unwrap().extend_from_slice(&tampon[..n]);
                }
            })
        };
        SortieSuivie {
            recu,
            lecteur: Some(lecteur),
        }
    }

    /// Ce qui a été lu jusqu'ici.
    pub fn vu(&self) -> String {
        String::from_utf8_lossy(&self.recu.lock().unwrap()).into_owned()
    }

    /// Attend que `texte` se montre (au plus 60 s : une limite large, pas une mesure).
    pub fn attendre(&self, texte: &str) {
        let debut = Instant::now();
        while !self.vu().contains(texte) {
            assert!(
                debut.elapsed() < Duration::from_secs(60),
                "« {texte} » ne se montre pas : {}",
                self.vu()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Tout ce qui a été lu, une fois le flux fermé (le processus fini).
    pub fn fin(mut self) -> Vec<u8> {
        if let Some(l) = self.lecteur.take() {
            l.join().unwrap();
        }
        std::mem::take(&mut *self.recu.lock().unwrap())
    }
}

/// Attend la fin de `enfant`, au plus `limite` : au-delà, il est tué et l'essai échoue.
pub fn attendre_fin(enfant: impl Into<Enfant>, limite: Duration) -> Output {
    let debut = Instant::now();
    let mut enfant = enfant.into();
    loop {
        if enfant.try_wait().unwrap().is_some() {
            return enfant.wait_with_output().unwrap();
        }
        if debut.elapsed() > limite {
            let _ = enfant.kill();
            let out = enfant.wait_with_output().unwrap();
            panic!("vigie ne s'est pas arrêté à temps : {}", texte(&out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Envoie le signal `nom` (INT, TERM, KILL…) à l'enfant. Sous Windows, qui n'a pas de signaux :
/// Ctrl-Break pour INT et TERM (que vigie traite comme Ctrl-C), à l'enfant seul (lancé dans son
/// propre groupe par [`Banc::vigie`]) ; KILL : `taskkill /F`.
#[cfg(windows)]
pub fn signal(enfant: &Child, nom: &str) {
    if nom == "KILL" || nom == "9" {
        let ok = Command::new("taskkill")
            .args(["/F", "/PID", &enfant.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "taskkill /F /PID {}", enfant.id());
        return;
    }
    // L'identifiant du groupe est celui de l'enfant.
    if let Err(e) = vigie::plateforme::signaux::envoyer_ctrl_break(enfant.id()) {
        panic!("Ctrl-Break vers {} : {e}", enfant.id());
    }
}

#[cfg(not(windows))]
pub fn signal(enfant: &Child, nom: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{nom}"))
        .arg(enfant.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{nom}");
}

pub fn chemin_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// La plateforme Vigie-Chiro du bac à sable.
pub mod plateforme {
    use super::*;
    #[allow(unused_imports)]
    pub use vigie_bac_a_sable::{COMPARTIMENT_PLATEFORME, JETON, PARTICIPATION, SITE};

    /// Le début et la fin de la nuit d'essai, pour une participation créée par `vigie`.
    pub const DEBUT_NUIT: &str = "2026-06-21T21:30:00Z";
    pub const FIN_NUIT: &str = "2026-06-22T06:00:00Z";

    /// Un nom conforme au protocole point fixe, numéroté : la séquence `i` commence `i`
    /// secondes après 22 h 00 (un horodatage toujours possible : `vigie` refuse 22:00:60).
    pub fn nom(i: usize) -> String {
        assert!(i < 3600, "{i} : au-delà de 22 h 59 min 59 s");
        format!(
            "Car640139-2026-Pass1-A1-OB-1_20260621_22{:02}{:02}_000.wav",
            i / 60,
            i % 60
        )
    }

    impl Banc {
        /// `vigie` avec le jeton du bac à sable (`VIGIE_JETON`).
        pub fn vigie_plateforme(&self) -> Command {
            let mut c = self.vigie();
            c.env("VIGIE_JETON", JETON);
            c
        }

        /// Le fichier `titre` est enregistré dans `participation` et finalisé (disponible).
        pub fn finalise(&self, participation: &str, titre: &str) -> bool {
            self.bac()
                .fichier(participation, titre)
                .unwrap_or_else(|| panic!("{titre} non enregistré"))
                .disponible
        }

        /// Les participations du point B2 du site d'essai (celles que `vigie` crée).
        pub fn participations_b2(&self) -> Vec<vigie_bac_a_sable::ParticipationPlateforme> {
            self.bac()
                .participations(SITE)
                .into_iter()
                .filter(|p| p.point.as_deref() == Some("B2"))
                .collect()
        }

        /// L'identifiant de la participation créée par `vigie` au point B2 : une seule, jamais
        /// deux.
        pub fn participation_creee(&self) -> String {
            let creees = self.participations_b2();
            assert_eq!(creees.len(), 1, "participations en double : {creees:?}");
            creees[0].id.clone()
        }

        /// Chaque fichier de la nuit est enregistré une fois dans `participation`, finalisé,
        /// identique octet pour octet ; aucun envoi multipart n'est resté ouvert ni orphelin.
        pub fn verifier_sur_la_plateforme(
            &self,
            participation: &str,
            fichiers: &[(String, usize)],
        ) {
            let enregistres = self.bac().fichiers();
            assert_eq!(
                enregistres.len(),
                fichiers.len(),
                "enregistrement en double ou manquant : {enregistres:#?}"
            );
            for (chemin, taille) in fichiers {
                let titre = chemin.rsplit('/').next().unwrap();
                let f = self
                    .bac()
                    .fichier(participation, titre)
                    .unwrap_or_else(|| panic!("{titre} non enregistré"));
                assert!(f.disponible, "{titre} non finalisé");
                assert!(
                    self.objet_plateforme(participation, titre) == contenu(chemin, *taille),
                    "{titre} : contenu différent"
                );
            }
            self.aucun_envoi_ouvert();
        }

        /// Ni envoi multipart orphelin (sans enregistrement) ni envoi resté ouvert sur le S3 de
        /// la plateforme.
        pub fn aucun_envoi_ouvert(&self) {
            let aucun: Vec<(String, String)> = Vec::new();
            assert_eq!(self.bac().envois_orphelins(), aucun, "envoi orphelin");
            assert_eq!(
                self.bac().envois_en_cours(COMPARTIMENT_PLATEFORME),
                aucun,
                "envoi multipart resté ouvert"
            );
        }

        /// `vigie retenter-echecs` avec le jeton et les réglages du banc.
        pub fn retenter_plateforme(&self) -> Command {
            let mut c = self.vigie_plateforme();
            c.arg("retenter-echecs").args(Self::options_rapides());
            c
        }

        /// `vigie depot NUIT --participation P --api …` avec les réglages du banc.
        pub fn depot_plateforme(&self) -> Command {
            self.depot_plateforme_via(&self.bac().api())
        }

        /// `vigie depot NUIT --participation P --api …` avec ces réglages.
        pub fn depot_plateforme_avec(&self, options: &[String]) -> Command {
            let mut c = self.depot_dans(PARTICIPATION, &self.bac().api());
            c.args(options);
            c
        }

        /// `vigie depot NUIT --participation P --api API`, avec le jeton, sans réglage.
        pub fn depot_dans(&self, participation: &str, api: &str) -> Command {
            let mut c = self.vigie_plateforme();
            c.arg("depot")
                .arg(&self.nuit)
                .args(["--participation", participation, "--api", api]);
            c
        }

        /// `vigie depot NUIT --participation P --api API` avec les réglages du banc (un
        /// mandataire devant la plateforme, par exemple).
        pub fn depot_plateforme_via(&self, api: &str) -> Command {
            let mut c = self.depot_dans(PARTICIPATION, api);
            c.args(Self::options_rapides());
            c
        }

        /// `vigie depot NUIT --site S --point P --debut D --fin F --api …` (la participation
        /// créée par `vigie`), avec les réglages du banc.
        pub fn depot_par_site(&self, site: &str, point: &str, debut: &str, fin: &str) -> Command {
            let mut c = self.depot_par_site_sans_reglages(site, point, debut, fin);
            c.args(Self::options_rapides());
            c
        }

        /// Le même dépôt, sans réglage.
        pub fn depot_par_site_sans_reglages(
            &self,
            site: &str,
            point: &str,
            debut: &str,
            fin: &str,
        ) -> Command {
            let mut c = self.vigie_plateforme();
            c.arg("depot")
                .arg(&self.nuit)
                .args([
                    "--site", site, "--point", point, "--debut", debut, "--fin", fin,
                ])
                .arg("--api")
                .arg(self.bac().api());
            c
        }

        /// Un appel à l'API de la plateforme, comme le ferait un autre client (le site web),
        /// authentifié par le jeton du bac à sable : le statut et le JSON rendu (`Null` s'il
        /// n'en est pas).
        pub fn appel_api(
            &self,
            methode: reqwest::Method,
            chemin: &str,
            corps: serde_json::Value,
        ) -> (u16, serde_json::Value) {
            self.appel_api_avec(JETON, methode, chemin, corps)
        }

        /// Le même appel, par le compte d'un autre jeton (un autre observateur).
        pub fn appel_api_avec(
            &self,
            jeton: &str,
            methode: reqwest::Method,
            chemin: &str,
            corps: serde_json::Value,
        ) -> (u16, serde_json::Value) {
            // Un client par fil de test : ses connexions vivent sur le runtime du banc de ce
            // test.
            thread_local! {
                static CLIENT: reqwest::Client = reqwest::Client::new();
            }
            let url = format!("{}{chemin}", self.bac().api());
            let requete = CLIENT.with(|c| c.request(methode, url));
            self.rt.block_on(async {
                let rep = requete
                    .basic_auth(jeton, Some(""))
                    .json(&corps)
                    .send()
                    .await
                    .unwrap();
                let statut = rep.status().as_u16();
                let texte = rep.text().await.unwrap();
                (
                    statut,
                    serde_json::from_str(&texte).unwrap_or(serde_json::Value::Null),
                )
            })
        }

        /// Le site web déclare le fichier (toujours en un seul envoi), puis l'envoi
        /// s'interrompt : il reste un enregistrement non finalisé, sans envoi multipart. Rend
        /// son `_id`.
        pub fn envoi_du_site_web_interrompu(&self, participation: &str, titre: &str) -> String {
            let v = self.declarer_comme_un_autre_client(participation, titre, false);
            assert!(v.get("s3_upload_multipart_id").is_none(), "{v}");
            v["_id"].as_str().unwrap().to_owned()
        }

        /// Pose sur la plateforme, finalisé, ce qu'un autre client aurait déposé pour ce titre
        /// dans la participation de test. Rend son `_id`.
        pub fn deja_sur_la_plateforme(&self, titre: &str, octets: Vec<u8>) -> String {
            self.rt
                .block_on(
                    self.bac()
                        .poser_fichier_finalise(PARTICIPATION, titre, octets),
                )
                .unwrap()
        }

        /// Remplace l'objet d'un fichier dans le S3 de la plateforme, par-dessus elle (un
        /// stockage altéré).
        pub fn alterer_objet(&self, titre: &str, octets: Vec<u8>) {
            let cle = self.bac().fichier(PARTICIPATION, titre).unwrap().cle;
            self.rt
                .block_on(
                    self.bac()
                        .client()
                        .put_object()
                        .bucket(COMPARTIMENT_PLATEFORME)
                        .key(cle)
                        .body(octets.into())
                        .send(),
                )
                .unwrap();
        }

        /// Un envoi en plusieurs parties abandonné (par un autre client, ou une version
        /// antérieure) : il reste un enregistrement non finalisé qui tient un envoi multipart
        /// S3 ouvert. Rend son `_id`.
        pub fn envoi_multipart_abandonne(&self, participation: &str, titre: &str) -> String {
            let v = self.declarer_comme_un_autre_client(participation, titre, true);
            assert!(v.get("s3_upload_multipart_id").is_some(), "{v}");
            v["_id"].as_str().unwrap().to_owned()
        }

        fn declarer_comme_un_autre_client(
            &self,
            participation: &str,
            titre: &str,
            multipart: bool,
        ) -> serde_json::Value {
            let (statut, v) = self.appel_api(
                reqwest::Method::POST,
                "/fichiers",
                serde_json::json!({
                    "titre": titre,
                    "multipart": multipart,
                    "lien_participation": participation,
                }),
            );
            assert_eq!(statut, 201, "{titre} : {v}");
            v
        }

        /// L'objet déposé par la plateforme pour un titre.
        pub fn objet_plateforme(&self, participation: &str, titre: &str) -> Vec<u8> {
            let f = self
                .bac()
                .fichier(participation, titre)
                .unwrap_or_else(|| panic!("{titre} inconnu de la plateforme"));
            std::fs::read(self.bac().chemin_objet(COMPARTIMENT_PLATEFORME, &f.cle))
                .unwrap_or_else(|e| panic!("{titre} absent de S3 ({e})"))
        }
    }
}

// ------------------------------------------------------------------------------------------
// Campagne de fiabilité et de sécurité : outils partagés.

/// Un tirage pseudo-aléatoire à graine fixe (xorshift64*) : les instants d'arrêt, les tailles.
pub struct Alea(u64);

impl Alea {
    pub fn graine(g: u64) -> Alea {
        Alea(g.max(1))
    }

    pub fn suivant(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Un entier dans `[a, b]`.
    pub fn entre(&mut self, a: u64, b: u64) -> u64 {
        a + self.suivant() % (b - a + 1)
    }
}

/// Des pannes mêlées sur toutes les requêtes, dans l'ordre d'examen (la première qui frappe
/// l'emporte) : coupure en plein corps, 500, 503 avec et sans Retry-After, 429 avec et sans
/// `Retry-After-Ms`, réponse perdue après traitement, blocage de 1,5 s. Sept règles frappent
/// chacune avec la probabilité `p`, celle du blocage avec `p / 2`, et `p` est tiré de
/// 1 − (1 − p)^7,5 = `part` : ensemble, elles frappent `part` des requêtes.
pub fn pannes_melees(part: f64) -> Vec<vigie_bac_a_sable::Regle> {
    use vigie_bac_a_sable::{Panne, Regle, RetryAfter};
    let p = 1.0 - (1.0 - part).powf(1.0 / 7.5);
    let statut = |code, retry_after| Panne::Statut { code, retry_after };
    vec![
        Regle::proportion(p, Panne::CouperCorpsApres(64 * 1024)),
        Regle::proportion(p, statut(500, None)),
        Regle::proportion(p, statut(503, Some(RetryAfter::Secondes(1)))),
        Regle::proportion(p, statut(503, None)),
        Regle::proportion(p, statut(429, Some(RetryAfter::Millisecondes(150)))),
        Regle::proportion(p, statut(429, None)),
        Regle::proportion(p, Panne::PerdreReponse),
        Regle::proportion(p / 2.0, Panne::Bloquer(Duration::from_millis(1500))),
    ]
}

/// Une décision de réessai telle que la base la garde (`journal_decision`).
#[derive(Debug, Clone)]
pub struct DecisionBase {
    pub unite: Option<i64>,
    pub methode: String,
    pub cible: String,
    pub tentative: i64,
    pub statut: Option<i64>,
    pub attente_ms: Option<i64>,
    pub raison: Option<String>,
    pub detail: String,
}

impl Banc {
    /// `vigie depot NUIT --vers s3://… --endpoint-url ENDPOINT` (un mandataire, par exemple),
    /// avec les réglages du banc.
    pub fn depot_via(&self, endpoint: &str) -> Command {
        self.depot_vers(&self.nuit, COMPARTIMENT, endpoint)
    }

    /// `vigie depot DOSSIER --vers s3://COMPARTIMENT/PREFIXE --endpoint-url ENDPOINT` (moto
    /// derrière un mandataire, un autre compartiment, la nuit copiée ailleurs), avec les
    /// réglages du banc.
    pub fn depot_vers(&self, dossier: &Path, compartiment: &str, endpoint: &str) -> Command {
        let mut c = self.depot_s3_sans_reglages(dossier, compartiment, endpoint);
        c.args(Self::options_rapides());
        c
    }

    /// Le même dépôt, sans réglage.
    pub fn depot_s3_sans_reglages(
        &self,
        dossier: &Path,
        compartiment: &str,
        endpoint: &str,
    ) -> Command {
        let mut c = self.vigie();
        c.arg("depot")
            .arg(dossier)
            .arg("--vers")
            .arg(format!("s3://{compartiment}/{PREFIXE}"))
            .arg("--endpoint-url")
            .arg(endpoint);
        c
    }

    /// Les fichiers du dernier plan dans cet état (`vigie etat --unites FILTRE --json`).
    pub fn unites(&self, filtre: &str) -> Vec<serde_json::Value> {
        let out = self
            .vigie()
            .args(["etat", "--unites", filtre, "--json"])
            .output()
            .unwrap();
        lignes_json(&out.stdout)
    }

    /// Une nuit d'une douzaine de fichiers au nom du protocole, tous à la racine : 10 petits
    /// (20 Kio à 600 Kio) et 2 qui partent en plusieurs parties de 5 Mio (7 Mio et 11 Mio).
    pub fn nuit_de_12(&self) -> Vec<(String, usize)> {
        let mut fichiers: Vec<(String, usize)> = (1..=10)
            .map(|i| (plateforme::nom(i), 20_000 + i * 58_000))
            .collect();
        fichiers.push((plateforme::nom(11), 7 * MIO + 333));
        fichiers.push((plateforme::nom(12), 11 * MIO + 4_321));
        for (nom, taille) in &fichiers {
            self.fichier(nom, *taille);
        }
        fichiers
    }

    /// Les objets (fichiers ordinaires) stockés sous `compartiment/prefixe` côté serveur,
    /// chemins relatifs au compartiment, triés.
    pub fn objets_sous(&self, compartiment: &str, prefixe: &str) -> Vec<String> {
        let racine = self.bac().racine().join(compartiment);
        let mut trouves = Vec::new();
        let mut a_voir = vec![racine.join(prefixe)];
        while let Some(d) = a_voir.pop() {
            let Ok(entrees) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entrees.flatten() {
                let t = e.file_type().unwrap();
                if t.is_dir() {
                    a_voir.push(e.path());
                } else {
                    let rel = e.path().strip_prefix(&racine).unwrap().to_owned();
                    trouves.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        trouves.sort();
        trouves
    }

    /// Ce que tient le compartiment S3 du bac à sable sous le préfixe du banc : chaque objet
    /// (chemin sous le préfixe) et le SHA-256 de son contenu, à comparer à [`empreintes_sous`]
    /// du dossier qui tient ce qui devait arriver.
    pub fn empreintes_s3(&self) -> std::collections::BTreeMap<String, String> {
        let racine = self.bac().racine().join(COMPARTIMENT);
        self.objets_sous(COMPARTIMENT, PREFIXE)
            .into_iter()
            .map(|o| {
                let octets = std::fs::read(racine.join(&o)).unwrap();
                let sous = o
                    .replace('\\', "/")
                    .strip_prefix(&format!("{PREFIXE}/"))
                    .unwrap()
                    .to_owned();
                (sous, sha256(&octets))
            })
            .collect()
    }

    /// Le journal des décisions de la base, dans l'ordre.
    pub fn decisions(&self) -> Vec<DecisionBase> {
        let c = rusqlite::Connection::open(&self.base).unwrap();
        let mut st = c
            .prepare(
                "SELECT unite_id, methode, coalesce(cible, ''), tentative, statut, attente_ms, \
                 raison, coalesce(detail, '') FROM journal_decision ORDER BY id",
            )
            .unwrap();
        st.query_map([], |r| {
            Ok(DecisionBase {
                unite: r.get(0)?,
                methode: r.get(1)?,
                cible: r.get(2)?,
                tentative: r.get(3)?,
                statut: r.get(4)?,
                attente_ms: r.get(5)?,
                raison: r.get(6)?,
                detail: r.get(7)?,
            })
        })
        .unwrap()
        .map(|d| d.unwrap())
        .collect()
    }

    /// Tout ce que contient le dossier de la base (base, WAL, mémoire partagée, verrous), en
    /// texte approché, pour y chercher un secret.
    pub fn contenu_du_dossier_de_la_base(&self) -> String {
        let mut tout = String::new();
        let mut a_voir = vec![self.base.parent().unwrap().to_owned()];
        while let Some(d) = a_voir.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    a_voir.push(e.path());
                } else if let Ok(octets) = std::fs::read(e.path()) {
                    tout.push_str(&String::from_utf8_lossy(&octets));
                }
            }
        }
        tout
    }
}

pub mod moto;

/// Un mandataire HTTP entre `vigie` et le bac à sable : il transmet chaque requête telle
/// quelle (en-tête `Host` compris : la signature SigV4 reste valable), garde la trace de ce
/// qu'il a vu et laisse le test altérer la réponse (corps tronqué, en-têtes absurdes, URL
/// signée réécrite…) ou la perdre après traitement.
pub mod mandataire {
    use std::convert::Infallible;
    use std::net::SocketAddr;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use http_body::{Body, Frame, SizeHint};
    use hyper_util::client::legacy::Client;
    use hyper_util::client::legacy::connect::HttpConnector;
    use hyper_util::rt::{TokioExecutor, TokioIo};

    /// Un corps déjà lu en entier.
    pub struct CorpsPlein(Option<Bytes>);

    impl CorpsPlein {
        pub fn nouveau(octets: impl Into<Bytes>) -> Self {
            let b: Bytes = octets.into();
            CorpsPlein(if b.is_empty() { None } else { Some(b) })
        }
    }

    impl Body for CorpsPlein {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.get_mut().0.take().map(|b| Ok(Frame::data(b))))
        }
        fn is_end_stream(&self) -> bool {
            self.0.is_none()
        }
        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
        }
    }

    pub async fn lire_tout<B>(corps: B) -> Result<Vec<u8>, B::Error>
    where
        B: Body + Unpin,
    {
        let mut corps = corps;
        let mut tout = Vec::new();
        while let Some(trame) = std::future::poll_fn(|cx| Pin::new(&mut corps).poll_frame(cx)).await
        {
            if let Ok(d) = trame?.into_data() {
                use bytes::Buf;
                tout.extend_from_slice(d.chunk());
            }
        }
        Ok(tout)
    }

    /// Une requête vue par le mandataire.
    #[derive(Debug, Clone)]
    pub struct Requete {
        pub rang: usize,
        pub methode: String,
        /// Chemin et requête (`/api/v1/fichiers`, `/nuits/a.wav?uploadId=…`).
        pub chemin: String,
        pub entetes: Vec<(String, String)>,
        pub corps: Vec<u8>,
    }

    /// La réponse du serveur, que le test peut altérer.
    #[derive(Debug, Clone)]
    pub struct Reponse {
        pub statut: u16,
        pub entetes: Vec<(String, String)>,
        pub corps: Vec<u8>,
        /// Couper la connexion au lieu de répondre (la requête a été traitée).
        pub perdre: bool,
    }

    impl Reponse {
        pub fn entete(&self, nom: &str) -> Option<&str> {
            self.entetes
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(nom))
                .map(|(_, v)| v.as_str())
        }

        pub fn remplacer_entete(&mut self, nom: &str, valeur: &str) {
            self.entetes.retain(|(n, _)| !n.eq_ignore_ascii_case(nom));
            self.entetes.push((nom.to_owned(), valeur.to_owned()));
        }
    }

    type Alteration = dyn Fn(&Requete, &mut Reponse) + Send + Sync;

    pub struct Mandataire {
        adresse: SocketAddr,
        vues: Arc<Mutex<Vec<Requete>>>,
    }

    impl Mandataire {
        /// Démarre sur le runtime `rt`, vers `cible` (le bac à sable), et applique `alterer` à
        /// chaque réponse.
        pub fn demarrer(
            rt: &tokio::runtime::Runtime,
            cible: SocketAddr,
            alterer: impl Fn(&Requete, &mut Reponse) + Send + Sync + 'static,
        ) -> Mandataire {
            let ecoute = rt
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .unwrap();
            let adresse = ecoute.local_addr().unwrap();
            let vues: Arc<Mutex<Vec<Requete>>> = Arc::default();
            let alterer: Arc<Alteration> = Arc::new(alterer);
            let client: Client<HttpConnector, CorpsPlein> =
                Client::builder(TokioExecutor::new()).build_http();
            let vues2 = Arc::clone(&vues);
            rt.spawn(async move {
                loop {
                    let Ok((flux, _)) = ecoute.accept().await else {
                        continue;
                    };
                    let (vues, alterer, client) =
                        (Arc::clone(&vues2), Arc::clone(&alterer), client.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let (vues, alterer, client) =
                                (Arc::clone(&vues), Arc::clone(&alterer), client.clone());
                            async move { relayer(req, cible, &vues, &*alterer, &client).await }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(flux), service)
                            .await;
                    });
                }
            });
            Mandataire { adresse, vues }
        }

        pub fn endpoint(&self) -> String {
            format!("http://{}", self.adresse)
        }

        pub fn adresse(&self) -> SocketAddr {
            self.adresse
        }

        /// Les requêtes vues, dans l'ordre d'arrivée.
        pub fn requetes(&self) -> Vec<Requete> {
            self.vues.lock().unwrap().clone()
        }
    }

    /// Transmet la requête au serveur `cible` et lit sa réponse entière. Détachée : si `vigie`
    /// disparaît (kill -9), la requête déjà reçue va tout de même au bout côté serveur, comme
    /// sur la vraie plateforme (workers WSGI synchrones), au lieu d'être abandonnée au milieu
    /// de son traitement.
    pub async fn transmettre(
        client: &Client<HttpConnector, CorpsPlein>,
        cible: SocketAddr,
        parties: &hyper::http::request::Parts,
        chemin: &str,
        corps: Vec<u8>,
    ) -> Result<(hyper::http::response::Parts, Vec<u8>), std::io::Error> {
        let mut amont = hyper::Request::builder()
            .method(parties.method.clone())
            .uri(format!("http://{cible}{chemin}"));
        for (n, v) in &parties.headers {
            amont = amont.header(n, v);
        }
        let amont = amont.body(CorpsPlein::nouveau(corps)).unwrap();
        let client = client.clone();
        tokio::spawn(async move {
            let reponse = client.request(amont).await.map_err(std::io::Error::other)?;
            let (rp, rcorps) = reponse.into_parts();
            let rcorps = lire_tout(rcorps).await.map_err(std::io::Error::other)?;
            Ok::<_, std::io::Error>((rp, rcorps))
        })
        .await
        .map_err(std::io::Error::other)?
    }

    async fn relayer(
        req: hyper::Request<hyper::body::Incoming>,
        cible: SocketAddr,
        vues: &Mutex<Vec<Requete>>,
        alterer: &Alteration,
        client: &Client<HttpConnector, CorpsPlein>,
    ) -> Result<hyper::Response<CorpsPlein>, std::io::Error> {
        let (parties, corps) = req.into_parts();
        let corps = lire_tout(corps).await.map_err(std::io::Error::other)?;
        let chemin = parties
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_else(|| "/".into());
        let vue = {
            let mut v = vues.lock().unwrap();
            let r = Requete {
                rang: v.len() + 1,
                methode: parties.method.to_string(),
                chemin: chemin.clone(),
                entetes: parties
                    .headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
                    .collect(),
                corps: corps.clone(),
            };
            v.push(r.clone());
            r
        };
        let (rp, rcorps) = transmettre(client, cible, &parties, &chemin, corps).await?;
        // Une réponse à HEAD n'a pas de corps : sa longueur annoncée est celle de l'objet.
        let tete = parties.method == hyper::Method::HEAD;
        let mut r = Reponse {
            statut: rp.status.as_u16(),
            entetes: rp
                .headers
                .iter()
                .filter(|(n, _)| {
                    (tete || !n.as_str().eq_ignore_ascii_case("content-length"))
                        && !n.as_str().eq_ignore_ascii_case("transfer-encoding")
                        && !n.as_str().eq_ignore_ascii_case("connection")
                })
                .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
                .collect(),
            corps: rcorps,
            perdre: false,
        };
        alterer(&vue, &mut r);
        if r.perdre {
            return Err(std::io::Error::other("réponse perdue exprès"));
        }
        let mut rep = hyper::Response::builder().status(r.statut);
        for (n, v) in &r.entetes {
            rep = rep.header(n.as_str(), v.as_str());
        }
        Ok(rep
            .body(CorpsPlein::nouveau(if tete { Vec::new() } else { r.corps }))
            .unwrap())
    }
}

/// Les lignes JSON d'une sortie standard (`--json`), chacune validée contre le schéma du dépôt
/// (`schemas/vigie.schema.json`) : version 1, un événement connu, ses champs et leurs types.
/// Une ligne qui n'est pas du JSON, ou qui ne suit pas le schéma, fait échouer le test.
pub fn lignes_json(sortie: &[u8]) -> Vec<serde_json::Value> {
    let texte = std::str::from_utf8(sortie).expect("sortie standard en UTF-8");
    texte
        .lines()
        .map(|ligne| {
            let v: serde_json::Value = serde_json::from_str(ligne)
                .unwrap_or_else(|e| panic!("ligne qui n'est pas du JSON ({e}) : {ligne}"));
            valider_ligne(&v);
            v
        })
        .collect()
}

/// Valide une ligne JSON contre le schéma du dépôt.
pub fn valider_ligne(v: &serde_json::Value) {
    static SCHEMA: std::sync::LazyLock<jsonschema::Validator> = std::sync::LazyLock::new(|| {
        let texte = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/vigie.schema.json"
        ))
        .expect("schemas/vigie.schema.json lisible");
        let schema: serde_json::Value = serde_json::from_str(&texte).expect("schéma en JSON");
        jsonschema::validator_for(&schema).expect("schéma valide")
    });
    let erreurs: Vec<String> = SCHEMA
        .iter_errors(v)
        .map(|e| format!("{} (à {})", e, e.instance_path()))
        .collect();
    assert!(
        erreurs.is_empty(),
        "ligne hors du schéma : {v}\n{}",
        erreurs.join("\n")
    );
}

/// Les événements d'un type, dans l'ordre.
pub fn evenements<'a>(lignes: &'a [serde_json::Value], nom: &str) -> Vec<&'a serde_json::Value> {
    lignes.iter().filter(|l| l["evenement"] == nom).collect()
}

pub mod tls;
