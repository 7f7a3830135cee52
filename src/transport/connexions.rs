//! Les connexions d'avant une coupure ne resservent pas.
//!
//! Un téléphone qui perd le signal ne ferme pas les connexions ouvertes : au retour du réseau
//! (nouvelle adresse publique, correspondance NAT perdue), elles sont mortes sans le savoir, et
//! ce qu'on y écrit part dans le vide. Les clients HTTP gardent pourtant leurs connexions
//! inoccupées pour les resservir : après une coupure, chaque requête qui en reprendrait une
//! attendrait une réponse qui ne viendra jamais. Quand le réseau est déclaré coupé
//! ([`oublier`], voir `reseau::Reseau`), chaque client ([`Renouvelable`]) est refait à neuf à sa
//! requête suivante, avec un réservoir de connexions vide : les sondes, puis les envois,
//! partent sur des connexions neuves. Les requêtes en vol gardent la leur (celles d'avant la
//! coupure qui restent muettes sont abandonnées au retour du réseau, voir `Emetteur`).
//!
//! L'époque est celle du processus : il n'y a qu'un réseau.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

static EPOQUE: AtomicU64 = AtomicU64::new(0);

/// Le réseau vient d'être déclaré coupé : les connexions ouvertes jusqu'ici ne resserviront
/// pas.
pub(crate) fn oublier() {
    EPOQUE.fetch_add(1, Ordering::SeqCst);
}

/// Le nombre de coupures déclarées depuis le début du processus.
pub(crate) fn epoque() -> u64 {
    EPOQUE.load(Ordering::SeqCst)
}

/// Un client HTTP (et son réservoir de connexions) refait à neuf après chaque coupure.
pub(crate) struct Renouvelable<C> {
    fabriquer: Box<dyn Fn() -> Option<C> + Send + Sync>,
    courant: Mutex<(u64, C)>,
}

impl<C: std::fmt::Debug> std::fmt::Debug for Renouvelable<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renouvelable").finish_non_exhaustive()
    }
}

impl<C: Clone> Renouvelable<C> {
    /// `premier` : le client de départ ; `fabriquer` en refait un, avec les mêmes réglages
    /// (`None` s'il n'y parvient pas : l'ancien reste en service).
    pub(crate) fn nouveau(
        premier: C,
        fabriquer: impl Fn() -> Option<C> + Send + Sync + 'static,
    ) -> Self {
        Renouvelable {
            fabriquer: Box::new(fabriquer),
            courant: Mutex::new((epoque(), premier)),
        }
    }

    /// Le client à employer : refait à neuf si une coupure a été déclarée depuis.
    pub(crate) fn client(&self) -> C {
        let mut courant = self.courant.lock().unwrap_or_else(|e| e.into_inner());
        let maintenant = epoque();
        if courant.0 != maintenant {
            if let Some(neuf) = (self.fabriquer)() {
                courant.1 = neuf;
            }
            courant.0 = maintenant;
        }
        courant.1.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn un_client_neuf_apres_chaque_coupure_et_pas_avant() {
        let fabriques = Arc::new(AtomicU64::new(0));
        let compteur = Arc::clone(&fabriques);
        let r = Renouvelable::nouveau(0u64, move || {
            Some(compteur.fetch_add(1, Ordering::SeqCst) + 1)
        });
        let premier = r.client();
        // D'autres essais du processus peuvent déclarer des coupures en même temps : seul
        // compte qu'une coupure donne un client neuf, et qu'un client neuf n'est fait qu'après
        // une coupure.
        oublier();
        let apres = r.client();
        assert_ne!(apres, premier, "pas de client neuf après une coupure");
        assert!(fabriques.load(Ordering::SeqCst) >= 1);
    }
}
