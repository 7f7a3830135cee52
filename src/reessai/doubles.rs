//! Les doubles de test de ce qui touche au monde : une horloge virtuelle, des tirages choisis.
//!
//! Compilés pour les seuls tests (`#[cfg(test)]` dans `reessai/mod.rs`) : ils ne sont pas livrés
//! dans le binaire. Aucun test d'intégration ni le bac à sable ne s'en sert ; s'il le fallait un
//! jour, une fonctionnalité `doubles-de-test` non par défaut les exposerait.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::temporisateur::{SourceAlea, Temporisateur};

/// Origine murale par défaut de [`HorlogeVirtuelle`], depuis l'époque Unix : dim. 21 juin 2026,
/// 22:00:00 UTC, une nuit d'enregistrement comme une autre. Fixe pour que les tests soient
/// reproductibles.
pub(crate) const ORIGINE_VIRTUELLE_DEPUIS_EPOQUE: Duration = Duration::from_secs(1_782_079_200);

/// Une horloge de test : le temps n'avance que par [`HorlogeVirtuelle::avancer`] (le travail
/// simulé d'une tentative) et par les attentes, qui sont instantanées et notées.
///
/// Les clones partagent la même horloge : on en garde un pour observer, on prête l'autre.
#[derive(Debug, Clone)]
pub(crate) struct HorlogeVirtuelle {
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
    pub(crate) fn nouveau() -> Self {
        HorlogeVirtuelle::depuis(
            UNIX_EPOCH
                .checked_add(ORIGINE_VIRTUELLE_DEPUIS_EPOQUE)
                .unwrap_or(UNIX_EPOCH),
        )
    }

    /// Une horloge à zéro, dont l'heure murale part de `origine_systeme`.
    pub(crate) fn depuis(origine_systeme: SystemTime) -> Self {
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
    pub(crate) fn avec_attentes_suspendues() -> Self {
        let horloge = HorlogeVirtuelle::nouveau();
        horloge.etat().attentes_suspendues = true;
        horloge
    }

    /// Fait passer `duree` (le travail d'une tentative, par exemple).
    pub(crate) fn avancer(&self, duree: Duration) {
        let mut etat = self.etat();
        etat.maintenant = etat.maintenant.saturating_add(duree);
    }

    /// L'heure murale de cette horloge : son origine, plus le temps passé (pour écrire un
    /// `Retry-After` en date HTTP).
    pub(crate) fn maintenant_systeme(&self) -> SystemTime {
        let etat = self.etat();
        etat.origine_systeme
            .checked_add(etat.maintenant)
            .unwrap_or(etat.origine_systeme)
    }

    /// Les attentes demandées jusqu'ici, dans l'ordre.
    pub(crate) fn attentes(&self) -> Vec<Duration> {
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
        HorlogeVirtuelle::nouveau()
    }
}

impl Temporisateur for HorlogeVirtuelle {
    fn maintenant(&self) -> Duration {
        self.etat().maintenant
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

/// Toujours le même tirage (la politique ramène dans `[0, 1]` une valeur qui en sortirait).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AleaFixe(pub(crate) f64);

impl SourceAlea for AleaFixe {
    fn tirer(&self) -> f64 {
        self.0
    }
}

/// Une suite fixée de tirages, rendus dans l'ordre puis recommencée ; 0 si elle est vide.
#[derive(Debug, Default)]
pub(crate) struct AleaSuite {
    valeurs: Vec<f64>,
    rang: AtomicUsize,
}

impl AleaSuite {
    /// La suite `valeurs`.
    pub(crate) fn nouveau(valeurs: impl Into<Vec<f64>>) -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reessai::temporisateur::Annulation;

    fn origine() -> SystemTime {
        UNIX_EPOCH + ORIGINE_VIRTUELLE_DEPUIS_EPOQUE
    }

    #[tokio::test]
    async fn horloge_virtuelle_instantanee_et_notee() {
        let horloge = HorlogeVirtuelle::nouveau();
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
            httpdate::fmt_http_date(HorlogeVirtuelle::nouveau().maintenant_systeme()),
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
        let annulation = Annulation::nouveau();
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

    #[test]
    fn aleas() {
        assert_eq!(AleaFixe(0.25).tirer(), 0.25);
        let suite = AleaSuite::nouveau([0.1, 0.9]);
        let tirages: Vec<f64> = (0..5).map(|_| suite.tirer()).collect();
        assert_eq!(tirages, [0.1, 0.9, 0.1, 0.9, 0.1]);
        assert_eq!(AleaSuite::default().tirer(), 0.0);
    }
}
