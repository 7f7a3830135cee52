//! Le banc commun des tests d'intégration : un bac à sable S3 en processus (vrai protocole,
//! signature vérifiée, pannes injectées) et le binaire `vigie` lancé contre lui.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use vigie::bac_a_sable::{self, BacASable};

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
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dossier.path())
            .env("VIGIE_BASE", &self.base)
            .env("AWS_ACCESS_KEY_ID", bac_a_sable::CLE_ACCES)
            .env("AWS_SECRET_ACCESS_KEY", bac_a_sable::SECRET)
            .env("AWS_REGION", bac_a_sable::REGION)
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
        c
    }

    /// Réglages courts : les tests ne dorment pas plus que nécessaire.
    pub fn options_rapides() -> Vec<String> {
        [
            "--attente-base",
            "0.05",
            "--attente-max",
            "0.2",
            "--delai-tentative",
            "2",
            "--delai-blocage",
            "1",
            "--seuil-multipart",
            "5",
            "--taille-partie",
            "5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// `vigie depot NUIT --vers s3://… --endpoint-url …` avec les réglages courts.
    pub fn depot(&self) -> Command {
        let mut c = self.vigie();
        c.arg("depot")
            .arg(&self.nuit)
            .arg("--vers")
            .arg(format!("s3://{COMPARTIMENT}/{PREFIXE}"))
            .arg("--endpoint-url")
            .arg(self.bac().endpoint())
            .args(Self::options_rapides());
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

    pub fn lancer(&self, mut c: Command) -> Child {
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

impl Drop for Banc {
    fn drop(&mut self) {
        if let Some(bac) = self.bac.take() {
            self.rt.block_on(bac.arreter());
        }
    }
}

/// Contenu déterministe d'un fichier de test (xorshift, graine tirée du nom).
pub fn contenu(nom: &str, taille: usize) -> Vec<u8> {
    let mut x: u64 = nom.bytes().fold(0xcbf2_9ce4_8422_2325, |h, o| {
        (h ^ u64::from(o)).wrapping_mul(0x100_0000_01b3)
    }) | 1;
    let mut v = Vec::with_capacity(taille + 8);
    while v.len() < taille {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(taille);
    v
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

pub fn attendre_fin(enfant: Child, limite: Duration) -> Output {
    let debut = Instant::now();
    let mut enfant = enfant;
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
    pub use vigie::bac_a_sable::{COMPARTIMENT_PLATEFORME, JETON, PARTICIPATION, SITE};

    /// Un nom conforme au protocole point fixe, numéroté.
    pub fn nom(i: usize) -> String {
        format!("Car640139-2026-Pass1-A1-OB-1_20260621_22{:04}_000.wav", i)
    }

    impl Banc {
        /// `vigie` avec le jeton du bac à sable (`VIGIE_JETON`).
        pub fn vigie_plateforme(&self) -> Command {
            let mut c = self.vigie();
            c.env("VIGIE_JETON", JETON);
            c
        }

        /// `vigie depot NUIT --participation P --api …` avec les réglages courts.
        pub fn depot_plateforme(&self) -> Command {
            let mut c = self.vigie_plateforme();
            c.arg("depot")
                .arg(&self.nuit)
                .args(["--participation", PARTICIPATION, "--api"])
                .arg(self.bac().api())
                .args(Self::options_rapides());
            c
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
