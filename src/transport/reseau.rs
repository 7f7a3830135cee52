//! L'état du réseau d'un passage : ouvert, coupé (pause globale), ou abandonné.
//!
//! Sur un partage de connexion, une coupure dure parfois des minutes (tunnel, zone blanche).
//! Sans pause globale, chaque unité y épuiserait ses tentatives l'une après l'autre et toute la
//! nuit finirait « en échec » pour une seule panne. Ici, après `seuil` échecs réseau de suite
//! (sans aucune réponse du serveur entre eux), le réseau est déclaré coupé : plus aucune
//! émission ne part, aucune unité ne consomme de tentative, et le moteur envoie une sonde peu
//! coûteuse à intervalle croissant. Au premier signe du serveur, tout reprend où il en était.
//! Au-delà de l'attente maximale, le passage s'arrête proprement (échec transitoire, code 1).
//!
//! Le temps passé en pause est décompté de l'échéance des opérations
//! ([`TemporisateurHorsPause`]) : une coupure ne doit pas « consommer » le budget d'une
//! opération qui n'a rien pu tenter.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;
// L'horloge de tokio, qui est celle du système hors des essais : un essai à l'horloge en
// pause (`start_paused`) y fait passer une coupure de quinze minutes sans attendre.
use tokio::time::Instant;

use crate::reessai::{Annulation, Temporisateur};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Etat {
    Ouvert,
    Coupe,
    Abandonne,
}

#[derive(Debug)]
struct Compte {
    echecs_consecutifs: u32,
    /// Début de la série d'échecs en cours : une réponse à une requête partie avant ne dit
    /// rien du réseau d'aujourd'hui.
    serie_depuis: Option<Instant>,
    coupe_depuis: Option<Instant>,
    pause_cumulee: Duration,
    incidents: Incidents,
    /// Ce que le serveur a acquitté (le régulateur du parallélisme en tire le débit utile) :
    /// octets et requêtes lus ensemble, jamais l'un sans l'autre.
    acquittes: Acquittes,
    /// Le plus long silence de chacune des dernières tentatives qui ont eu une réponse : ce
    /// qui est normal sur ce lien (voir [`Reseau::silence_normal`]).
    silences: VecDeque<Duration>,
}

/// L'état du réseau, partagé par toutes les émissions d'un passage.
#[derive(Debug)]
pub(crate) struct Reseau {
    /// `None` : jamais de pause, chaque émission s'arrête sur sa politique.
    seuil: Option<u32>,
    etat: watch::Sender<Etat>,
    compte: Mutex<Compte>,
    annulation: Annulation,
}

/// Ce que le réseau a subi depuis le début du passage (le régulateur du parallélisme les
/// relève).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Incidents {
    /// Coupures déclarées (pauses globales).
    pub(crate) coupures: u64,
    /// Tentatives restées sans réponse du serveur.
    pub(crate) injoignables: u64,
}

/// Les silences retenus pour juger de ce qui est normal sur le lien.
const SILENCES_RETENUS: usize = 64;

/// Un corps d'au moins cette taille fait d'une requête acquittée une requête de données.
pub(crate) const REQUETE_DE_DONNEES: u64 = 64 * 1024;

/// Ce que le serveur a acquitté depuis le début du passage (réponses de succès des requêtes de
/// données : un fichier, une partie).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Acquittes {
    /// Octets des corps des requêtes acquittées.
    pub(crate) octets: u64,
    /// Requêtes acquittées.
    pub(crate) requetes: u64,
}

/// Le réseau est abandonné : le passage s'arrête.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReseauAbandonne;

impl Reseau {
    /// `seuil` échecs réseau de suite déclarent la coupure (`None` : jamais) ; `annulation` est
    /// déclenchée si le réseau est abandonné (les attentes en cours s'arrêtent aussitôt).
    pub(crate) fn nouveau(seuil: Option<u32>, annulation: Annulation) -> Self {
        Reseau {
            seuil: seuil.map(|s| s.max(1)),
            etat: watch::Sender::new(Etat::Ouvert),
            compte: Mutex::new(Compte {
                echecs_consecutifs: 0,
                serie_depuis: None,
                coupe_depuis: None,
                pause_cumulee: Duration::ZERO,
                incidents: Incidents::default(),
                acquittes: Acquittes::default(),
                silences: VecDeque::new(),
            }),
            annulation,
        }
    }

    fn compte(&self) -> std::sync::MutexGuard<'_, Compte> {
        self.compte.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Le serveur a répondu (succès ou refus) à une requête partie à `partie_a` : si elle est
    /// partie après le début de la série d'échecs, le réseau marche.
    pub(crate) fn noter_reponse(&self, partie_a: Instant) {
        let mut c = self.compte();
        if c.serie_depuis.is_none_or(|debut| partie_a >= debut) {
            c.echecs_consecutifs = 0;
            c.serie_depuis = None;
        }
    }

    /// Un échec réseau. Rend vrai si le réseau est (désormais) coupé.
    pub(crate) fn noter_injoignable(&self) -> bool {
        let mut c = self.compte();
        if c.echecs_consecutifs == 0 {
            c.serie_depuis = Some(Instant::now());
        }
        c.echecs_consecutifs = c.echecs_consecutifs.saturating_add(1);
        c.incidents.injoignables += 1;
        if self.seuil.is_some_and(|s| c.echecs_consecutifs >= s)
            && *self.etat.borrow() == Etat::Ouvert
        {
            c.coupe_depuis = Some(Instant::now());
            c.incidents.coupures += 1;
            // Les connexions ouvertes jusqu'ici sont peut-être mortes sans le savoir : les
            // sondes, puis les envois, partiront sur des connexions neuves.
            super::connexions::oublier();
            self.etat.send_replace(Etat::Coupe);
            tracing::info!(
                echecs = c.echecs_consecutifs,
                "réseau indisponible : pause globale des envois"
            );
        }
        *self.etat.borrow() == Etat::Coupe
    }

    /// Le serveur a acquitté une requête dont le corps faisait `octets`.
    pub(crate) fn noter_acquittes(&self, octets: u64) {
        // Seules les requêtes de données comptent : une déclaration, une finalisation, un
        // `HeadObject` ne disent rien du débit, et quatre d'entre elles feraient une mesure
        // sans un octet.
        if octets >= REQUETE_DE_DONNEES {
            let mut c = self.compte();
            c.acquittes.octets += octets;
            c.acquittes.requetes += 1;
        }
    }

    /// Une tentative a eu sa réponse ; `silence` : le plus long temps qu'elle a passé sans
    /// signe de vie (ni octet parti, ni octet reçu).
    pub(crate) fn noter_silence(&self, silence: Duration) {
        let mut c = self.compte();
        if c.silences.len() >= SILENCES_RETENUS {
            c.silences.pop_front();
        }
        c.silences.push_back(silence);
    }

    /// Le silence normal sur ce lien : le plus long silence des [`SILENCES_RETENUS`] dernières
    /// tentatives qui ont eu leur réponse (`None` avant la première). Le plus long plutôt
    /// qu'une moyenne : un délai tiré de lui ne coupe pas ce qui vient d'aboutir.
    pub(crate) fn silence_normal(&self) -> Option<Duration> {
        self.compte().silences.iter().max().copied()
    }

    /// Octets et requêtes acquittés depuis le début du passage.
    pub(crate) fn acquittes(&self) -> Acquittes {
        self.compte().acquittes
    }

    /// Coupures et incidents depuis le début du passage.
    pub(crate) fn incidents(&self) -> Incidents {
        self.compte().incidents
    }

    pub(crate) fn est_coupe(&self) -> bool {
        *self.etat.borrow() == Etat::Coupe
    }

    pub(crate) fn est_abandonne(&self) -> bool {
        *self.etat.borrow() == Etat::Abandonne
    }

    /// Attend que le réseau soit ouvert (tout de suite s'il l'est).
    pub(crate) async fn attendre_ouverture(&self) -> Result<(), ReseauAbandonne> {
        let mut rx = self.etat.subscribe();
        match rx.wait_for(|e| *e != Etat::Coupe).await {
            Ok(e) if *e == Etat::Abandonne => Err(ReseauAbandonne),
            Ok(_) => Ok(()),
            Err(_) => Err(ReseauAbandonne),
        }
    }

    /// Attend la prochaine coupure (pour la sonde). Rend faux si le réseau est abandonné.
    pub(crate) async fn attendre_coupure(&self) -> bool {
        let mut rx = self.etat.subscribe();
        match rx.wait_for(|e| *e != Etat::Ouvert).await {
            Ok(e) => *e == Etat::Coupe,
            Err(_) => false,
        }
    }

    /// La sonde a eu une réponse : tout reprend.
    pub(crate) fn rouvrir(&self) {
        let mut c = self.compte();
        if let Some(depuis) = c.coupe_depuis.take() {
            c.pause_cumulee += depuis.elapsed();
        }
        c.echecs_consecutifs = 0;
        c.serie_depuis = None;
        self.etat.send_replace(Etat::Ouvert);
        tracing::info!("réseau rétabli : les envois reprennent");
    }

    /// L'attente maximale est dépassée : le passage s'arrête.
    pub(crate) fn abandonner(&self) {
        let mut c = self.compte();
        if let Some(depuis) = c.coupe_depuis.take() {
            c.pause_cumulee += depuis.elapsed();
        }
        self.etat.send_replace(Etat::Abandonne);
        self.annulation.annuler();
        tracing::info!("réseau indisponible trop longtemps : le passage s'arrête");
    }

    /// Depuis quand le réseau est coupé (`None` s'il ne l'est pas).
    pub(crate) fn coupe_depuis(&self) -> Option<Instant> {
        self.compte().coupe_depuis
    }

    /// Temps total passé en pause, pause en cours comprise.
    pub(crate) fn pause_cumulee(&self) -> Duration {
        let c = self.compte();
        c.pause_cumulee + c.coupe_depuis.map(|d| d.elapsed()).unwrap_or_default()
    }
}

/// L'horloge des opérations, qui ne compte pas le temps passé en pause réseau.
#[derive(Debug, Clone)]
pub(crate) struct TemporisateurHorsPause {
    origine: Instant,
    reseau: std::sync::Arc<Reseau>,
}

impl TemporisateurHorsPause {
    pub(crate) fn nouveau(reseau: std::sync::Arc<Reseau>) -> Self {
        TemporisateurHorsPause {
            origine: Instant::now(),
            reseau,
        }
    }
}

impl Temporisateur for TemporisateurHorsPause {
    fn maintenant(&self) -> Duration {
        self.origine
            .elapsed()
            .saturating_sub(self.reseau.pause_cumulee())
    }

    fn attendre(&self, duree: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn coupure_apres_le_seuil_puis_reouverture() {
        let r = Reseau::nouveau(Some(3), Annulation::nouveau());
        // Une requête partie, puis (l'horloge en pause avance d'une milliseconde) le premier
        // échec de la série.
        let avant = Instant::now();
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(!r.noter_injoignable());
        // Une réponse à une requête partie avant l'échec ne remet pas le compte à zéro…
        r.noter_reponse(avant);
        assert!(!r.noter_injoignable());
        assert!(
            r.noter_injoignable(),
            "trois échecs de suite malgré une réponse ancienne : coupé"
        );
        r.rouvrir();
        assert!(!r.noter_injoignable());
        // … une réponse à une requête partie après, si.
        r.noter_reponse(Instant::now());
        assert!(!r.noter_injoignable());
        assert!(!r.noter_injoignable());
        assert!(r.noter_injoignable(), "trois échecs de suite : coupé");
        assert!(r.est_coupe());
        let attente = tokio::time::timeout(Duration::from_millis(50), r.attendre_ouverture()).await;
        assert!(attente.is_err(), "l'émission doit attendre la réouverture");
        r.rouvrir();
        assert!(r.attendre_ouverture().await.is_ok());
        assert!(!r.noter_injoignable(), "le compte repart de zéro");
    }

    #[test]
    fn sans_pause_jamais_coupe() {
        let r = Reseau::nouveau(None, Annulation::nouveau());
        for _ in 0..1000 {
            assert!(!r.noter_injoignable());
        }
        assert!(!r.est_coupe());
    }

    #[tokio::test]
    async fn abandon_libere_les_attentes_et_annule() {
        let annulation = Annulation::nouveau();
        let r = std::sync::Arc::new(Reseau::nouveau(Some(1), annulation.clone()));
        r.noter_injoignable();
        let r2 = std::sync::Arc::clone(&r);
        let attente = tokio::spawn(async move { r2.attendre_ouverture().await.is_err() });
        r.abandonner();
        assert!(attente.await.unwrap());
        assert!(annulation.est_annulee());
        assert!(r.est_abandonne());
        assert!(!r.attendre_coupure().await);
    }

    /// Sur l'horloge en pause : les 30 ms de coupure passent sans être attendues.
    #[tokio::test(start_paused = true)]
    async fn la_pause_ne_compte_pas_dans_l_horloge_des_operations() {
        let r = std::sync::Arc::new(Reseau::nouveau(Some(1), Annulation::nouveau()));
        let t = TemporisateurHorsPause::nouveau(std::sync::Arc::clone(&r));
        r.noter_injoignable();
        tokio::time::advance(Duration::from_millis(30)).await;
        assert!(t.maintenant() + Duration::from_millis(30) <= t.origine.elapsed());
        r.rouvrir();
        assert!(r.pause_cumulee() >= Duration::from_millis(30));
    }
}
