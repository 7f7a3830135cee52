//! Ce qui touche au monde, injecté : l'horloge et l'attente, l'aléa, l'annulation.
//!
//! Pourquoi : une politique de réessai qui dort vraiment et tire un vrai hasard ne se teste qu'en
//! attendant, et de façon non reproductible. Injecter le temps et l'aléa
//! (`docs/politique-reessai.md`, « Conséquences ») rend les tests instantanés et déterministes (les
//! doubles de test sont dans `doubles.rs`, compilés pour les seuls tests). En production,
//! [`TemporisateurTokio`] et [`AleaSysteme`].
//!
//! [`Annulation`] porte l'interruption (Ctrl-C, SIGTERM) jusqu'aux attentes : un utilisateur qui
//! interrompt ne doit pas patienter jusqu'à la fin d'un `Retry-After`. Une annulation
//! [`enfant`](Annulation::enfant) (un passage parmi d'autres) suit celle de la commande, mais la
//! sienne (le réseau abandonné pour ce passage) n'arrête pas la commande.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::Notify;

/// L'horloge et l'attente.
pub(crate) trait Temporisateur: Send + Sync {
    /// Temps monotone écoulé depuis une origine arbitraire : sert à mesurer, jamais à dater.
    fn maintenant(&self) -> Duration;

    /// Attend `duree`.
    fn attendre(&self, duree: Duration) -> impl Future<Output = ()> + Send;
}

/// Le vrai temps, par tokio (qui respecte `tokio::time::pause` dans les tests qui le veulent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TemporisateurTokio {
    origine: tokio::time::Instant,
}

impl TemporisateurTokio {
    /// Un temporisateur dont l'origine monotone est l'instant de sa création.
    pub(crate) fn nouveau() -> Self {
        TemporisateurTokio {
            origine: tokio::time::Instant::now(),
        }
    }
}

impl Default for TemporisateurTokio {
    fn default() -> Self {
        TemporisateurTokio::nouveau()
    }
}

impl Temporisateur for TemporisateurTokio {
    fn maintenant(&self) -> Duration {
        self.origine.elapsed()
    }

    fn attendre(&self, duree: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duree)
    }
}

/// Une source d'aléa pour la gigue.
pub(crate) trait SourceAlea: Send + Sync {
    /// Un tirage uniforme dans `[0, 1)`.
    fn tirer(&self) -> f64;
}

/// Le hasard du système, par le générateur local au fil d'exécution de `rand`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AleaSysteme;

impl SourceAlea for AleaSysteme {
    fn tirer(&self) -> f64 {
        // rand 0.10 : `StandardUniform` tire un `f64` dans [0, 1).
        rand::random::<f64>()
    }
}

/// Un signal d'annulation partagé : tous les clones voient la même annulation, définitive.
#[derive(Debug, Clone, Default)]
pub(crate) struct Annulation {
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
    pub(crate) fn nouveau() -> Self {
        Annulation::default()
    }

    /// Une annulation annulée avec celle-ci (aussitôt si celle-ci l'est déjà), et qui peut
    /// l'être seule sans l'annuler : un passage suit l'arrêt de la commande (Ctrl-C, la
    /// durée écoulée), mais le réseau abandonné pendant ce passage n'arrête que lui.
    pub(crate) fn enfant(&self) -> Annulation {
        let enfant = Annulation::nouveau();
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
    pub(crate) fn annuler(&self) {
        self.interieur.annuler();
    }

    /// Vrai une fois l'annulation déclenchée.
    pub(crate) fn est_annulee(&self) -> bool {
        self.interieur.annulee.load(Ordering::SeqCst)
    }

    /// Se termine quand l'annulation est déclenchée (aussitôt si elle l'est déjà).
    pub(crate) async fn annulee(&self) {
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

    #[tokio::test]
    async fn temporisateur_tokio_monotone_sans_attente_reelle() {
        let t = TemporisateurTokio::nouveau();
        let avant = t.maintenant();
        t.attendre(Duration::ZERO).await;
        assert!(t.maintenant() >= avant);
    }

    #[test]
    fn alea_systeme_dans_l_intervalle() {
        for _ in 0..1000 {
            let x = AleaSysteme.tirer();
            assert!((0.0..1.0).contains(&x), "{x}");
        }
    }

    #[tokio::test]
    async fn annulation_partagee_et_definitive() {
        let annulation = Annulation::nouveau();
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
        let commande = Annulation::nouveau();
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
