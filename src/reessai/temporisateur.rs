//! Ce qui touche au monde, injecté : l'horloge et l'attente, l'aléa, l'annulation.
//!
//! Pourquoi : une politique de réessai qui dort vraiment et tire un vrai hasard ne se teste qu'en
//! attendant, et de façon non reproductible. Injecter le temps et l'aléa (`seeds/000`,
//! « Conséquences ») rend les tests instantanés et déterministes : [`HorlogeVirtuelle`] avance
//! d'un coup et note chaque attente, [`AleaFixe`] et [`AleaSuite`] rendent des tirages choisis.
//! En production, [`TemporisateurTokio`] et [`AleaSysteme`].
//!
//! [`Annulation`] porte l'interruption (Ctrl-C, SIGTERM) jusqu'aux attentes : un utilisateur qui
//! interrompt ne doit pas patienter jusqu'à la fin d'un `Retry-After`. Une annulation
//! [`enfant`](Annulation::enfant) (un passage parmi d'autres) suit celle de la commande, mais la
//! sienne (le réseau abandonné pour ce passage) n'arrête pas la commande.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::Notify;

/// L'horloge et l'attente.
pub trait Temporisateur: Send + Sync {
    /// Temps monotone écoulé depuis une origine arbitraire : sert à mesurer, jamais à dater.
    fn maintenant(&self) -> Duration;

    /// L'heure murale, pour interpréter un `Retry-After` en date HTTP.
    fn maintenant_systeme(&self) -> SystemTime;

    /// Attend `duree`.
    fn attendre(&self, duree: Duration) -> impl Future<Output = ()> + Send;
}

/// Le vrai temps, par tokio (qui respecte `tokio::time::pause` dans les tests qui le veulent).
#[derive(Debug, Clone, Copy)]
pub struct TemporisateurTokio {
    origine: tokio::time::Instant,
}

impl TemporisateurTokio {
    /// Un temporisateur dont l'origine monotone est l'instant de sa création.
    pub fn new() -> Self {
        TemporisateurTokio {
            origine: tokio::time::Instant::now(),
        }
    }
}

impl Default for TemporisateurTokio {
    fn default() -> Self {
        TemporisateurTokio::new()
    }
}

impl Temporisateur for TemporisateurTokio {
    fn maintenant(&self) -> Duration {
        self.origine.elapsed()
    }

    fn maintenant_systeme(&self) -> SystemTime {
        SystemTime::now()
    }

    fn attendre(&self, duree: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duree)
    }
}

/// Origine murale par défaut de [`HorlogeVirtuelle`], depuis l'époque Unix : dim. 21 juin 2026,
/// 22:00:00 UTC, une nuit d'enregistrement comme une autre. Fixe pour que les tests soient
/// reproductibles.
pub const ORIGINE_VIRTUELLE_DEPUIS_EPOQUE: Duration = Duration::from_secs(1_782_079_200);

/// Une horloge de test : le temps n'avance que par [`HorlogeVirtuelle::avancer`] (le travail
/// simulé d'une tentative) et par les attentes, qui sont instantanées et notées.
///
/// Les clones partagent la même horloge : on en garde un pour observer, on prête l'autre.
#[derive(Debug, Clone)]
pub struct HorlogeVirtuelle {
    etat: Arc<Mutex<EtatHorloge>>,
}

#[derive(Debug)]
struct EtatHorloge {
    maintenant: Duration,
    origine_systeme: SystemTime,
    attentes: Vec<Duration>,
    attentes_suspendues: bool,
}

impl HorlogeVirtuelle {
    /// Une horloge à zéro, dont l'heure murale part de [`ORIGINE_VIRTUELLE_DEPUIS_EPOQUE`].
    pub fn new() -> Self {
        HorlogeVirtuelle::depuis(
            UNIX_EPOCH
                .checked_add(ORIGINE_VIRTUELLE_DEPUIS_EPOQUE)
                .unwrap_or(UNIX_EPOCH),
        )
    }

    /// Une horloge à zéro, dont l'heure murale part de `origine_systeme`.
    pub fn depuis(origine_systeme: SystemTime) -> Self {
        HorlogeVirtuelle {
            etat: Arc::new(Mutex::new(EtatHorloge {
                maintenant: Duration::ZERO,
                origine_systeme,
                attentes: Vec::new(),
                attentes_suspendues: false,
            })),
        }
    }

    /// Une horloge dont les attentes sont notées mais ne finissent jamais : pour vérifier qu'une
    /// annulation interrompt bien une attente en cours.
    pub fn avec_attentes_suspendues() -> Self {
        let horloge = HorlogeVirtuelle::new();
        horloge.etat().attentes_suspendues = true;
        horloge
    }

    /// Fait passer `duree` (le travail d'une tentative, par exemple).
    pub fn avancer(&self, duree: Duration) {
        let mut etat = self.etat();
        etat.maintenant = etat.maintenant.saturating_add(duree);
    }

    /// Les attentes demandées jusqu'ici, dans l'ordre.
    pub fn attentes(&self) -> Vec<Duration> {
        self.etat().attentes.clone()
    }

    /// Verrouille l'état. Un test qui panique en le tenant ne le laisse pas incohérent (chaque
    /// mise à jour est une seule affectation) : on passe outre l'empoisonnement.
    fn etat(&self) -> MutexGuard<'_, EtatHorloge> {
        self.etat.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for HorlogeVirtuelle {
    fn default() -> Self {
        HorlogeVirtuelle::new()
    }
}

impl Temporisateur for HorlogeVirtuelle {
    fn maintenant(&self) -> Duration {
        self.etat().maintenant
    }

    fn maintenant_systeme(&self) -> SystemTime {
        let etat = self.etat();
        etat.origine_systeme
            .checked_add(etat.maintenant)
            .unwrap_or(etat.origine_systeme)
    }

    // L'attente n'est notée que lorsqu'elle commence vraiment (premier `poll`), comme un vrai
    // sommeil : une attente abandonnée avant de démarrer n'apparaît pas.
    async fn attendre(&self, duree: Duration) {
        let suspendue = {
            let mut etat = self.etat();
            etat.attentes.push(duree);
            if !etat.attentes_suspendues {
                etat.maintenant = etat.maintenant.saturating_add(duree);
            }
            etat.attentes_suspendues
        };
        if suspendue {
            std::future::pending::<()>().await;
        }
    }
}

/// Une source d'aléa pour la gigue.
pub trait SourceAlea: Send + Sync {
    /// Un tirage uniforme dans `[0, 1)`.
    fn tirer(&self) -> f64;
}

/// Le hasard du système, par le générateur local au fil d'exécution de `rand`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AleaSysteme;

impl SourceAlea for AleaSysteme {
    fn tirer(&self) -> f64 {
        // rand 0.10 : `StandardUniform` tire un `f64` dans [0, 1).
        rand::random::<f64>()
    }
}

/// Toujours le même tirage (la politique ramène dans `[0, 1]` une valeur qui en sortirait).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AleaFixe(pub f64);

impl SourceAlea for AleaFixe {
    fn tirer(&self) -> f64 {
        self.0
    }
}

/// Une suite fixée de tirages, rendus dans l'ordre puis recommencée ; 0 si elle est vide.
#[derive(Debug, Default)]
pub struct AleaSuite {
    valeurs: Vec<f64>,
    rang: AtomicUsize,
}

impl AleaSuite {
    /// La suite `valeurs`.
    pub fn new(valeurs: impl Into<Vec<f64>>) -> Self {
        AleaSuite {
            valeurs: valeurs.into(),
            rang: AtomicUsize::new(0),
        }
    }
}

impl SourceAlea for AleaSuite {
    fn tirer(&self) -> f64 {
        if self.valeurs.is_empty() {
            return 0.0;
        }
        let rang = self.rang.fetch_add(1, Ordering::Relaxed) % self.valeurs.len();
        self.valeurs.get(rang).copied().unwrap_or(0.0)
    }
}

/// Un signal d'annulation partagé : tous les clones voient la même annulation, définitive.
#[derive(Debug, Clone, Default)]
pub struct Annulation {
    interieur: Arc<InterieurAnnulation>,
}

#[derive(Debug, Default)]
struct InterieurAnnulation {
    annulee: AtomicBool,
    reveil: Notify,
    /// Les annulations enfants, annulées avec celle-ci.
    enfants: Mutex<Vec<Weak<InterieurAnnulation>>>,
}

impl InterieurAnnulation {
    fn annuler(&self) {
        // Le drapeau d'abord : un enfant créé pendant l'annulation le verra (voir `enfant`).
        self.annulee.store(true, Ordering::SeqCst);
        self.reveil.notify_waiters();
        let enfants =
            std::mem::take(&mut *self.enfants.lock().unwrap_or_else(PoisonError::into_inner));
        for enfant in enfants.iter().filter_map(Weak::upgrade) {
            enfant.annuler();
        }
    }
}

impl Annulation {
    /// Un signal non encore déclenché.
    pub fn new() -> Self {
        Annulation::default()
    }

    /// Une annulation annulée avec celle-ci (aussitôt si celle-ci l'est déjà), et qui peut
    /// l'être seule sans l'annuler : un passage suit l'arrêt de la commande (Ctrl-C, la
    /// durée écoulée), mais le réseau abandonné pendant ce passage n'arrête que lui.
    pub fn enfant(&self) -> Annulation {
        let enfant = Annulation::new();
        {
            let mut enfants = self
                .interieur
                .enfants
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            enfants.retain(|e| e.strong_count() > 0);
            enfants.push(Arc::downgrade(&enfant.interieur));
        }
        if self.est_annulee() {
            enfant.annuler();
        }
        enfant
    }

    /// Déclenche l'annulation (et celle de ses enfants) et réveille ceux qui l'attendent.
    /// Idempotent.
    pub fn annuler(&self) {
        self.interieur.annuler();
    }

    /// Vrai une fois l'annulation déclenchée.
    pub fn est_annulee(&self) -> bool {
        self.interieur.annulee.load(Ordering::SeqCst)
    }

    /// Se termine quand l'annulation est déclenchée (aussitôt si elle l'est déjà).
    pub async fn annulee(&self) {
        let reveil = self.interieur.reveil.notified();
        let mut reveil = std::pin::pin!(reveil);
        // S'inscrire AVANT de lire le drapeau : une annulation qui tomberait entre la lecture et
        // l'attente réveillerait quand même ce futur (`notify_waiters` ne réveille que les
        // inscrits).
        reveil.as_mut().enable();
        if self.est_annulee() {
            return;
        }
        reveil.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origine() -> SystemTime {
        UNIX_EPOCH + ORIGINE_VIRTUELLE_DEPUIS_EPOQUE
    }

    #[tokio::test]
    async fn horloge_virtuelle_instantanee_et_notee() {
        let horloge = HorlogeVirtuelle::new();
        assert_eq!(horloge.maintenant(), Duration::ZERO);
        assert_eq!(horloge.maintenant_systeme(), origine());
        horloge.avancer(Duration::from_millis(300));
        horloge.attendre(Duration::from_secs(120)).await;
        let clone = horloge.clone();
        clone.attendre(Duration::from_secs(2)).await;
        assert_eq!(horloge.maintenant(), Duration::from_millis(122_300));
        assert_eq!(
            horloge.attentes(),
            vec![Duration::from_secs(120), Duration::from_secs(2)]
        );
        assert_eq!(
            horloge.maintenant_systeme(),
            origine() + Duration::from_millis(122_300)
        );
        // Une attente créée mais jamais commencée n'est pas notée.
        drop(horloge.attendre(Duration::from_secs(9)));
        assert_eq!(horloge.attentes().len(), 2);
    }

    #[test]
    fn origine_virtuelle() {
        assert_eq!(
            httpdate::fmt_http_date(HorlogeVirtuelle::new().maintenant_systeme()),
            "Sun, 21 Jun 2026 22:00:00 GMT"
        );
        let origine = UNIX_EPOCH + Duration::from_secs(1000);
        assert_eq!(
            HorlogeVirtuelle::depuis(origine).maintenant_systeme(),
            origine
        );
    }

    #[tokio::test]
    async fn attente_suspendue_jusqu_a_annulation() {
        let horloge = HorlogeVirtuelle::avec_attentes_suspendues();
        let annulation = Annulation::new();
        let issue = async {
            tokio::select! {
                () = horloge.attendre(Duration::from_secs(5)) => "attente finie",
                () = annulation.annulee() => "annulée",
            }
        };
        let annuleur = async {
            for _ in 0..100 {
                if !horloge.attentes().is_empty() {
                    break;
                }
                tokio::task::yield_now().await;
            }
            assert!(
                !horloge.attentes().is_empty(),
                "l'attente n'a jamais commencé"
            );
            annulation.annuler();
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
        };
        let issue = tokio::select! {
            issue = issue => issue,
            () = annuleur => "l'annulation n'a pas réveillé l'attente",
        };
        assert_eq!(issue, "annulée");
        assert_eq!(horloge.maintenant(), Duration::ZERO);
        assert_eq!(horloge.attentes(), vec![Duration::from_secs(5)]);
    }

    #[tokio::test]
    async fn temporisateur_tokio_monotone_sans_attente_reelle() {
        let t = TemporisateurTokio::new();
        let avant = t.maintenant();
        t.attendre(Duration::ZERO).await;
        assert!(t.maintenant() >= avant);
        let ecart = t
            .maintenant_systeme()
            .duration_since(UNIX_EPOCH)
            .expect("après 1970");
        assert!(ecart > ORIGINE_VIRTUELLE_DEPUIS_EPOQUE / 2);
    }

    #[test]
    fn aleas() {
        assert_eq!(AleaFixe(0.25).tirer(), 0.25);
        let suite = AleaSuite::new([0.1, 0.9]);
        let tirages: Vec<f64> = (0..5).map(|_| suite.tirer()).collect();
        assert_eq!(tirages, [0.1, 0.9, 0.1, 0.9, 0.1]);
        assert_eq!(AleaSuite::default().tirer(), 0.0);
        for _ in 0..1000 {
            let x = AleaSysteme.tirer();
            assert!((0.0..1.0).contains(&x), "{x}");
        }
    }

    #[tokio::test]
    async fn annulation_partagee_et_definitive() {
        let annulation = Annulation::new();
        let clone = annulation.clone();
        assert!(!clone.est_annulee());
        let reveillee = tokio::select! {
            () = clone.annulee() => true,
            () = async {
                tokio::task::yield_now().await;
                annulation.annuler();
                for _ in 0..100 {
                    tokio::task::yield_now().await;
                }
            } => false,
        };
        assert!(reveillee, "l'annulation n'a pas réveillé l'attente");
        assert!(annulation.est_annulee() && clone.est_annulee());
        // Déjà annulée : se termine aussitôt, autant de fois qu'on le demande.
        clone.annulee().await;
        annulation.annuler();
        annulation.annulee().await;
    }

    #[tokio::test]
    async fn une_annulation_enfant_suit_son_parent_sans_le_suivre() {
        let commande = Annulation::new();
        // Annulé seul, l'enfant n'annule pas la commande.
        let premier = commande.enfant();
        premier.annuler();
        assert!(premier.est_annulee() && !commande.est_annulee());
        // La commande annulée annule ses enfants, et réveille leurs attentes.
        let second = commande.enfant();
        let attente = second.clone();
        let reveille = tokio::select! {
            () = attente.annulee() => true,
            () = async {
                tokio::task::yield_now().await;
                commande.annuler();
                for _ in 0..100 {
                    tokio::task::yield_now().await;
                }
            } => false,
        };
        assert!(
            reveille,
            "l'annulation de la commande n'a pas réveillé le passage"
        );
        assert!(second.est_annulee());
        // Un enfant d'une commande déjà annulée l'est dès sa naissance.
        assert!(commande.enfant().est_annulee());
    }
}
