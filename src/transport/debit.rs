//! La limite de débit (`--debit-max`) : un seau à jetons partagé par tous les transferts.
//!
//! Sur un partage de connexion, le téléphone sert aussi à autre chose (un appel, les messages
//! de l'équipe) : `vigie` ne doit pas saturer le forfait. Chaque corps envoyé (un fichier, une
//! partie) réserve dans un seul seau les octets qu'il s'apprête à lire, et attend s'il le faut
//! avant de les lire : le débit total reste sous la limite quel que soit le nombre de
//! transferts en vol. Le seau se remplit au rythme de la limite et tient au plus une tranche
//! d'avance ([`LimiteDebit::tranche`]) : une pause ne se rattrape pas par une rafale.
//!
//! Une réservation peut mettre le seau « en dette » : le transfert suivant attend que la dette
//! soit remboursée. L'ordre d'arrivée est ainsi respecté, sans file d'attente à tenir.
//!
//! L'horloge est injectée ([`HorlogeDebit`]) : les tests comptent les octets admis sur une
//! horloge simulée, sans chronométrer la machine. Les attentes du seau ne sont pas des
//! blocages : le corps les signale à sa [`Progression`](super::corps::Progression), que la
//! surveillance du blocage (`--delai-blocage`) ne compte pas comme immobile.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

/// Une tranche lue d'un coup sous la limite : un huitième de seconde de débit, entre 4 Kio et
/// le tampon de lecture (256 Kio). Assez petite pour que la limite soit lisse à l'échelle de
/// la seconde, assez grande pour ne pas multiplier les appels.
const TRANCHE_MIN: u64 = 4 * 1024;
const TRANCHE_MAX: u64 = 256 * 1024;

/// En dessous, une limite ne laisse plus passer un fichier de la nuit dans un délai de
/// tentative raisonnable : c'est sans doute une faute de frappe (« 2o/s » pour « 2Mo/s »).
const DEBIT_MIN: u64 = 1000;

/// Un débit maximal, en octets par seconde.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DebitMax {
    octets_par_seconde: u64,
}

impl DebitMax {
    /// Les octets par seconde ; 0 pour « sans limite ».
    pub(crate) fn octets_par_seconde(self) -> u64 {
        self.octets_par_seconde
    }

    /// `--debit-max sans` : aucune limite. Sert à lever une limite que le plan retient.
    pub(crate) fn sans_limite() -> Self {
        DebitMax {
            octets_par_seconde: 0,
        }
    }

    pub(crate) fn est_sans_limite(self) -> bool {
        self.octets_par_seconde == 0
    }

    /// Relit un débit retenu par un plan (0 : sans limite) ; `None` s'il n'est pas admissible.
    pub(crate) fn depuis_octets(octets_par_seconde: u64) -> Option<Self> {
        (octets_par_seconde == 0 || octets_par_seconde >= DEBIT_MIN)
            .then_some(DebitMax { octets_par_seconde })
    }

    /// Lit un débit écrit pour un humain : un nombre (virgule ou point décimal) suivi d'une
    /// unité, `/s` facultatif. Octets en multiples décimaux (`o`, `Ko`, `Mo`, `Go`, ou `B`,
    /// `kB`, `MB`, `GB`) ou binaires (`Kio`, `Mio`, `Gio`, `KiB`, `MiB`, `GiB`), ou bits
    /// (`bit`, `kbit`, `Mbit`, `Gbit`) comme les forfaits les comptent.
    pub(crate) fn analyser(texte: &str) -> Result<Self, String> {
        let exemples = "ex. 2Mo/s, 500Ko/s, 1.5Mio/s ou 16Mbit/s ; sans pour ne pas limiter";
        let brut = texte.trim();
        if ["sans", "aucune", "aucun", "illimite", "illimité"]
            .contains(&brut.to_lowercase().as_str())
        {
            return Ok(DebitMax::sans_limite());
        }
        let sans_par_seconde = brut.strip_suffix("/s").unwrap_or(brut).trim_end();
        let fin_nombre = sans_par_seconde
            .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
            .unwrap_or(sans_par_seconde.len());
        let (chiffres, unite) = sans_par_seconde.split_at(fin_nombre);
        let unite = unite.trim_start();
        let nombre: f64 = chiffres.replace(',', ".").parse().map_err(|_| {
            format!(
                "débit « {texte} » illisible : écrivez un nombre suivi d'une unité ({exemples})"
            )
        })?;
        if unite.is_empty() {
            return Err(format!(
                "débit « {texte} » sans unité : précisez-la ({exemples})"
            ));
        }
        let facteur = facteur_unite(unite).ok_or_else(|| {
            if unite.ends_with('b') && !unite.to_ascii_lowercase().ends_with("bit") {
                format!(
                    "unité « {unite} » ambiguë (bits ou octets ?) : écrivez {0}{1}o/s pour \
                     des octets ou {0}{1}bit/s pour des bits",
                    chiffres.replace(',', "."),
                    unite.trim_end_matches('b')
                )
            } else {
                format!("unité « {unite} » inconnue dans « {texte} » ({exemples})")
            }
        })?;
        let octets = nombre * facteur;
        if !octets.is_finite() || octets > u64::MAX as f64 / 2.0 {
            return Err(format!("débit « {texte} » démesuré ({exemples})"));
        }
        if octets == 0.0 {
            return Err(format!(
                "débit « {texte} » nul : pour ne pas limiter, écrivez --debit-max sans (ou \
                 omettez --debit-max et VIGIE_DEBIT_MAX, si le plan ne retient pas de limite)"
            ));
        }
        let octets = octets.round() as u64;
        if octets < DEBIT_MIN {
            return Err(format!(
                "débit « {texte} » trop faible : 1Ko/s au moins ({exemples})"
            ));
        }
        Ok(DebitMax {
            octets_par_seconde: octets,
        })
    }
}

/// Le facteur d'une unité (octets par unité), `None` si elle est inconnue ou ambiguë.
fn facteur_unite(unite: &str) -> Option<f64> {
    let minuscule = unite.to_lowercase();
    let prefixe = |p: &str| -> Option<f64> {
        match p {
            "" => Some(1.0),
            "k" => Some(1e3),
            "m" => Some(1e6),
            "g" => Some(1e9),
            _ => None,
        }
    };
    let binaire = |p: &str| -> Option<f64> {
        match p {
            "k" => Some(1024.0),
            "m" => Some(1024.0 * 1024.0),
            "g" => Some(1024.0 * 1024.0 * 1024.0),
            _ => None,
        }
    };
    if let Some(p) = minuscule
        .strip_suffix("bits")
        .or_else(|| minuscule.strip_suffix("bit"))
    {
        return prefixe(p).map(|f| f / 8.0);
    }
    if let Some(p) = minuscule.strip_suffix("io") {
        return binaire(p);
    }
    if let Some(p) = minuscule.strip_suffix('o') {
        return prefixe(p);
    }
    // « B » majuscule : des octets (kB, MB, KiB) ; « b » minuscule serait des bits pour les
    // uns, des octets pour les autres : refusé.
    let p = unite.strip_suffix('B')?.to_lowercase();
    match p.strip_suffix('i') {
        Some(p) => binaire(p),
        None => prefixe(&p),
    }
}

impl fmt::Display for DebitMax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.est_sans_limite() {
            return f.write_str("sans limite");
        }
        let o = self.octets_par_seconde as f64;
        let (valeur, unite) = if o >= 1e6 {
            (o / 1e6, "Mo/s")
        } else {
            (o / 1e3, "Ko/s")
        };
        let texte = format!("{valeur:.2}");
        let texte = texte.trim_end_matches('0').trim_end_matches('.');
        write!(f, "{} {unite}", texte.replace('.', ","))
    }
}

/// Le temps du seau : ce qu'il est, et comment l'attendre.
pub(crate) trait HorlogeDebit: Send + Sync + fmt::Debug {
    /// Temps écoulé depuis une origine fixe.
    fn maintenant(&self) -> Duration;
    /// Attend `duree`.
    fn dormir(&self, duree: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>>;
}

/// L'horloge de tokio (celle du programme).
#[derive(Debug)]
pub(crate) struct HorlogeTokio {
    origine: tokio::time::Instant,
}

impl Default for HorlogeTokio {
    fn default() -> Self {
        HorlogeTokio {
            origine: tokio::time::Instant::now(),
        }
    }
}

impl HorlogeDebit for HorlogeTokio {
    fn maintenant(&self) -> Duration {
        self.origine.elapsed()
    }

    fn dormir(&self, duree: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
        Box::pin(tokio::time::sleep(duree))
    }
}

#[derive(Debug)]
struct Seau {
    /// Jetons (octets) disponibles ; négatif : la dette des réservations déjà faites.
    jetons: f64,
    /// Dernier remplissage.
    instant: Duration,
}

/// Le seau à jetons partagé par tous les transferts d'une commande.
#[derive(Debug)]
pub(crate) struct LimiteDebit {
    debit: DebitMax,
    capacite: f64,
    horloge: Box<dyn HorlogeDebit>,
    seau: Mutex<Seau>,
}

impl LimiteDebit {
    pub(crate) fn nouveau(debit: DebitMax) -> Self {
        Self::avec_horloge(debit, Box::new(HorlogeTokio::default()))
    }

    pub(crate) fn avec_horloge(debit: DebitMax, horloge: Box<dyn HorlogeDebit>) -> Self {
        let capacite = tranche_pour(debit) as f64;
        let instant = horloge.maintenant();
        LimiteDebit {
            debit,
            capacite,
            horloge,
            seau: Mutex::new(Seau {
                jetons: capacite,
                instant,
            }),
        }
    }

    pub(crate) fn debit(&self) -> DebitMax {
        self.debit
    }

    /// La taille d'une lecture sous cette limite.
    pub(crate) fn tranche(&self) -> usize {
        tranche_pour(self.debit) as usize
    }

    /// Réserve `octets` et rend l'attente à observer avant de les envoyer (zéro s'ils sont
    /// déjà couverts). La réservation est acquise : l'appelant qui l'abandonne laisse
    /// simplement passer un peu moins que la limite.
    pub(crate) fn reserver(&self, octets: u64) -> Duration {
        let maintenant = self.horloge.maintenant();
        let debit = self.debit.octets_par_seconde as f64;
        let mut s = self.seau.lock().unwrap_or_else(|e| e.into_inner());
        let ecoule = maintenant.saturating_sub(s.instant).as_secs_f64();
        s.instant = s.instant.max(maintenant);
        s.jetons = (s.jetons + ecoule * debit).min(self.capacite);
        s.jetons -= octets as f64;
        if s.jetons >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-s.jetons / debit)
        }
    }

    /// Attend `duree` sur l'horloge du seau.
    pub(crate) fn dormir(
        &self,
        duree: Duration,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
        self.horloge.dormir(duree)
    }
}

fn tranche_pour(debit: DebitMax) -> u64 {
    (debit.octets_par_seconde / 8).clamp(TRANCHE_MIN, TRANCHE_MAX)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Une horloge simulée : `dormir` avance le temps d'autant et rend la main aussitôt.
    #[derive(Debug, Clone, Default)]
    pub(crate) struct HorlogeSimulee(pub(crate) Arc<AtomicU64>);

    impl HorlogeSimulee {
        pub(crate) fn micros(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
        fn avancer(&self, d: Duration) {
            self.0.fetch_add(d.as_micros() as u64, Ordering::SeqCst);
        }
    }

    impl HorlogeDebit for HorlogeSimulee {
        fn maintenant(&self) -> Duration {
            Duration::from_micros(self.micros())
        }
        fn dormir(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
            self.avancer(d);
            Box::pin(std::future::ready(()))
        }
    }

    fn debit(texte: &str) -> u64 {
        DebitMax::analyser(texte).unwrap().octets_par_seconde()
    }

    #[test]
    fn unites_lisibles() {
        assert_eq!(debit("2Mo/s"), 2_000_000);
        assert_eq!(debit("2 Mo/s"), 2_000_000);
        assert_eq!(debit("2MB/s"), 2_000_000);
        assert_eq!(debit("500Ko/s"), 500_000);
        assert_eq!(debit("500ko"), 500_000);
        assert_eq!(debit("500kB/s"), 500_000);
        assert_eq!(debit("1,5Mio/s"), 1_572_864);
        // Le point, que PowerShell ne coupe pas (« 1,5Mio/s » y est un tableau de deux mots).
        assert_eq!(debit("1.5Mio/s"), 1_572_864);
        assert_eq!(debit("1.5MiB/s"), 1_572_864);
        assert_eq!(debit("16Mbit/s"), 2_000_000);
        assert_eq!(debit("1Go/s"), 1_000_000_000);
        assert_eq!(debit("4000o/s"), 4000);
        assert_eq!(DebitMax::analyser("2Mo/s").unwrap().to_string(), "2 Mo/s");
        assert_eq!(
            DebitMax::analyser("1,5Mio/s").unwrap().to_string(),
            "1,57 Mo/s"
        );
        assert_eq!(
            DebitMax::analyser("500Ko/s").unwrap().to_string(),
            "500 Ko/s"
        );
    }

    #[test]
    fn erreurs_claires() {
        let e = DebitMax::analyser("2").unwrap_err();
        assert!(e.contains("sans unité") && e.contains("2Mo/s"), "{e}");
        let e = DebitMax::analyser("2Mb/s").unwrap_err();
        assert!(e.contains("ambiguë") && e.contains("2Mo/s"), "{e}");
        let e = DebitMax::analyser("deux Mo/s").unwrap_err();
        assert!(e.contains("illisible"), "{e}");
        let e = DebitMax::analyser("2 lieues/s").unwrap_err();
        assert!(e.contains("inconnue"), "{e}");
        let e = DebitMax::analyser("0Mo/s").unwrap_err();
        assert!(e.contains("omettez"), "{e}");
        let e = DebitMax::analyser("2o/s").unwrap_err();
        assert!(e.contains("trop faible"), "{e}");
        assert!(DebitMax::analyser("1,2,3Mo/s").is_err());
    }

    /// Quatre transferts se disputent le seau pendant 60 s simulées : les octets admis (ceux
    /// dont l'attente est finie) suivent la limite à une tranche près, quel que soit le nombre
    /// de transferts.
    #[test]
    fn octets_admis_sur_une_horloge_simulee() {
        let horloge = HorlogeSimulee::default();
        let limite = LimiteDebit::avec_horloge(
            DebitMax::analyser("2Mo/s").unwrap(),
            Box::new(horloge.clone()),
        );
        let tranche = limite.tranche() as u64;
        // Chaque transfert : l'instant (µs) où sa prochaine tranche sera admise.
        let mut prochains = [0u64; 4];
        let mut admis = 0u64;
        let fin = 60_000_000u64;
        loop {
            // Le transfert le plus en avance demande sa tranche suivante.
            let (i, &quand) = prochains
                .iter()
                .enumerate()
                .min_by_key(|(_, q)| **q)
                .expect("quatre transferts");
            horloge.0.store(quand, Ordering::SeqCst);
            let attente = limite.reserver(tranche);
            let admise_a = quand + attente.as_micros() as u64;
            if admise_a > fin {
                break;
            }
            admis += tranche;
            prochains[i] = admise_a;
        }
        let attendus = 2_000_000 * 60;
        assert!(
            admis <= attendus + 2 * tranche && admis + 2 * tranche >= attendus,
            "{admis} octets admis en 60 s pour {attendus} permis"
        );
    }

    /// Un seau resté au repos ne s'emplit pas au-delà d'une tranche : une pause ne se
    /// rattrape pas par une rafale.
    #[test]
    fn pas_de_rafale_apres_une_pause() {
        let horloge = HorlogeSimulee::default();
        let limite = LimiteDebit::avec_horloge(
            DebitMax::analyser("1Mo/s").unwrap(),
            Box::new(horloge.clone()),
        );
        let tranche = limite.tranche() as u64;
        horloge.avancer(Duration::from_secs(3600));
        assert_eq!(limite.reserver(tranche), Duration::ZERO);
        let attente = limite.reserver(tranche);
        assert_eq!(
            attente,
            Duration::from_micros(tranche * 1_000_000 / 1_000_000)
        );
    }
}
