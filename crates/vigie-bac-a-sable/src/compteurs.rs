//! Compteurs de ce que le bac à sable a réellement reçu.
//!
//! Pourquoi : un test de réessai ne doit pas se contenter de ce que le client croit avoir fait ;
//! il affirme ce qui est **arrivé** côté serveur (« la partie 3 a été envoyée deux fois »,
//! « la coupure est tombée après exactement 1 Mio », « la finalisation n'a été exécutée qu'une
//! fois »). Tout est compté à l'entrée de la couche de pannes, avant toute décision : une requête
//! coupée par une panne compte donc comme reçue (ses en-têtes ont été lus).
//!
//! Les clés sont les clés d'objet décodées (voir [`super::Operation`]) ; le compartiment n'entre
//! pas dans le compte par clé.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::Operation;

/// Compteurs partagés par toutes les connexions du bac à sable (remis à zéro à la demande).
#[derive(Debug, Default)]
pub struct Compteurs {
    interne: Mutex<Comptes>,
    octets: AtomicU64,
    pannes: AtomicU64,
}

#[derive(Debug, Default)]
struct Comptes {
    requetes: HashMap<Operation, u64>,
    requetes_cle: HashMap<(Operation, String), u64>,
    traitees: HashMap<Operation, u64>,
    traitees_cle: HashMap<(Operation, String), u64>,
    octets_op: HashMap<Operation, u64>,
    octets_cle: HashMap<String, u64>,
    en_cours: HashMap<Operation, u64>,
    en_cours_max: HashMap<Operation, u64>,
    en_cours_total: u64,
    en_cours_total_max: u64,
}

impl Compteurs {
    fn comptes(&self) -> MutexGuard<'_, Comptes> {
        // Un compteur n'a pas d'invariant qu'une panique aurait pu rompre.
        self.interne.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Requêtes reçues pour cette opération (en-têtes lus), pannes comprises.
    pub fn requetes(&self, op: Operation) -> u64 {
        self.comptes().requetes.get(&op).copied().unwrap_or(0)
    }

    /// Requêtes reçues pour cette opération sur cette clé d'objet (décodée).
    pub fn requetes_cle(&self, op: Operation, cle: &str) -> u64 {
        self.comptes()
            .requetes_cle
            .get(&(op, cle.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// Toutes opérations confondues.
    pub fn requetes_total(&self) -> u64 {
        self.comptes().requetes.values().sum()
    }

    /// Requêtes que le stockage a **exécutées avec succès** (réponse 2xx de s3s), que la réponse
    /// soit parvenue au client ou non (`Panne::PerdreReponse`). Sert à affirmer qu'une
    /// finalisation n'a été exécutée qu'une fois.
    pub fn traitees(&self, op: Operation) -> u64 {
        self.comptes().traitees.get(&op).copied().unwrap_or(0)
    }

    /// Comme [`Compteurs::traitees`], pour une clé d'objet.
    pub fn traitees_cle(&self, op: Operation, cle: &str) -> u64 {
        self.comptes()
            .traitees_cle
            .get(&(op, cle.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// Octets de **données** reçus, toutes requêtes confondues : corps des PutObject et
    /// UploadPart (somme de [`Compteurs::octets_recus_cle`]). Le XML des autres requêtes
    /// (finalisation d'un multipart…) n'y entre pas, pour qu'un test puisse affirmer « aucun
    /// octet n'est reparti ». Pour une coupure en plein corps, ce sont les octets effectivement
    /// transmis au stockage avant la coupure.
    pub fn octets_recus(&self) -> u64 {
        self.octets.load(Ordering::Relaxed)
    }

    /// Octets de **données** reçus pour cette clé d'objet : corps des PutObject et UploadPart
    /// confondus (le XML d'un CompleteMultipartUpload n'y entre pas).
    pub fn octets_recus_cle(&self, cle: &str) -> u64 {
        self.comptes().octets_cle.get(cle).copied().unwrap_or(0)
    }

    /// Octets de corps reçus pour cette opération, quelle qu'elle soit (XML d'un
    /// CompleteMultipartUpload compris), toutes clés confondues.
    #[cfg(test)]
    pub(crate) fn octets_recus_op(&self, op: Operation) -> u64 {
        self.comptes().octets_op.get(&op).copied().unwrap_or(0)
    }

    /// Nombre de pannes injectées (toutes règles et `couper_tout` confondus).
    pub fn pannes_injectees(&self) -> u64 {
        self.pannes.load(Ordering::Relaxed)
    }

    /// Le plus grand nombre de requêtes de cette opération que le serveur a tenues en même
    /// temps (de la lecture de leurs en-têtes à leur réponse) : dit si un client envoie en
    /// parallèle, sans rien chronométrer.
    pub fn simultanees_max(&self, op: Operation) -> u64 {
        self.comptes().en_cours_max.get(&op).copied().unwrap_or(0)
    }

    /// Le plus grand nombre de requêtes, toutes opérations confondues (API de la plateforme
    /// comprise), que le serveur a tenues en même temps.
    pub fn simultanees_max_total(&self) -> u64 {
        self.comptes().en_cours_total_max
    }

    /// Une requête de `op` est tenue par le serveur jusqu'à ce que la garde soit lâchée.
    pub(crate) fn tenir(self: &Arc<Self>, op: Operation) -> RequeteTenue {
        let mut c = self.comptes();
        c.en_cours_total += 1;
        c.en_cours_total_max = c.en_cours_total_max.max(c.en_cours_total);
        let en_cours = c.en_cours.entry(op).or_default();
        *en_cours += 1;
        let en_cours = *en_cours;
        let max = c.en_cours_max.entry(op).or_default();
        *max = (*max).max(en_cours);
        RequeteTenue {
            compteurs: Arc::clone(self),
            op,
        }
    }

    /// Remet tous les compteurs à zéro.
    pub fn remettre_a_zero(&self) {
        *self.comptes() = Comptes::default();
        self.octets.store(0, Ordering::Relaxed);
        self.pannes.store(0, Ordering::Relaxed);
    }

    pub(crate) fn noter_requete(&self, op: Operation, cle: Option<&str>) {
        let mut c = self.comptes();
        *c.requetes.entry(op).or_default() += 1;
        if let Some(cle) = cle {
            *c.requetes_cle.entry((op, cle.to_owned())).or_default() += 1;
        }
    }

    pub(crate) fn noter_traitee(&self, op: Operation, cle: Option<&str>) {
        let mut c = self.comptes();
        *c.traitees.entry(op).or_default() += 1;
        if let Some(cle) = cle {
            *c.traitees_cle.entry((op, cle.to_owned())).or_default() += 1;
        }
    }

    pub(crate) fn noter_octets(&self, op: Operation, cle: Option<&str>, n: u64) {
        if n == 0 {
            return;
        }
        let mut c = self.comptes();
        *c.octets_op.entry(op).or_default() += n;
        if matches!(op, Operation::PutObject | Operation::UploadPart) {
            self.octets.fetch_add(n, Ordering::Relaxed);
            if let Some(cle) = cle {
                *c.octets_cle.entry(cle.to_owned()).or_default() += n;
            }
        }
    }

    pub(crate) fn noter_panne(&self) {
        self.pannes.fetch_add(1, Ordering::Relaxed);
    }
}

/// Une requête que le serveur tient (voir [`Compteurs::simultanees_max`]).
pub(crate) struct RequeteTenue {
    compteurs: Arc<Compteurs>,
    op: Operation,
}

impl Drop for RequeteTenue {
    fn drop(&mut self) {
        let mut c = self.compteurs.comptes();
        c.en_cours_total = c.en_cours_total.saturating_sub(1);
        if let Some(n) = c.en_cours.get_mut(&self.op) {
            *n = n.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compte_par_operation_et_par_cle() {
        let c = Compteurs::default();
        c.noter_requete(Operation::PutObject, Some("a/b.wav"));
        c.noter_requete(Operation::PutObject, Some("a/b.wav"));
        c.noter_requete(Operation::PutObject, Some("c.wav"));
        c.noter_requete(Operation::HeadBucket, None);
        c.noter_octets(Operation::PutObject, Some("a/b.wav"), 10);
        c.noter_octets(Operation::CompleteMultipartUpload, Some("a/b.wav"), 7);
        c.noter_octets(Operation::Autre, None, 5);
        c.noter_octets(Operation::UploadPart, None, 3);
        c.noter_traitee(Operation::PutObject, Some("c.wav"));
        c.noter_panne();
        assert_eq!(c.requetes(Operation::PutObject), 3);
        assert_eq!(c.requetes_cle(Operation::PutObject, "a/b.wav"), 2);
        assert_eq!(c.requetes_cle(Operation::UploadPart, "a/b.wav"), 0);
        assert_eq!(c.requetes_total(), 4);
        assert_eq!(c.octets_recus(), 13);
        assert_eq!(c.octets_recus_op(Operation::Autre), 5);
        assert_eq!(c.octets_recus_cle("a/b.wav"), 10);
        assert_eq!(c.octets_recus_op(Operation::CompleteMultipartUpload), 7);
        assert_eq!(c.traitees(Operation::PutObject), 1);
        assert_eq!(c.traitees_cle(Operation::PutObject, "c.wav"), 1);
        assert_eq!(c.pannes_injectees(), 1);
        c.remettre_a_zero();
        assert_eq!(c.requetes_total(), 0);
        assert_eq!(c.octets_recus(), 0);
        assert_eq!(c.pannes_injectees(), 0);
    }
}
