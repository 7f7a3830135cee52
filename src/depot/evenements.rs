//! Le port par lequel le moteur annonce ce qui arrive : il le possède, l'affichage (`suivi`)
//! l'implémente. Le moteur ne connaît ainsi ni indicatif, ni clap, ni la sortie standard.

use std::path::Path;
use std::time::Duration;

use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite};

/// Les événements du moteur. Chaque méthode a un défaut vide : un affichage ne prend que ce
/// qui l'intéresse.
pub(crate) trait Suivi: Send + Sync {
    /// Le passage commence : tant d'unités, tant d'octets à envoyer.
    fn debut(&self, _unites: u64, _octets: u64) {}
    fn unite_commencee(&self, _unite: &DepotUnite) {}
    /// Octets de l'unité partis et confirmés, plus ceux de la tentative en cours.
    fn progression(&self, _unite: &DepotUnite, _octets: u64) {}
    /// Une tentative a échoué de façon rejouable : la suivante part dans `attente`.
    fn nouvelle_tentative(&self, _unite: &DepotUnite, _tentative: u32, _attente: Duration) {}
    fn unite_deposee(&self, _unite: &DepotUnite) {}
    /// La destination a déjà ce fichier : rien n'est parti, l'unité est déposée. `comparee` :
    /// son contenu est celui du fichier local (taille et empreinte) ; sinon, il n'a pas pu
    /// être comparé. `destination` : ce qu'elle ajoute aux annonces (où était le fichier).
    fn unite_deja_presente(
        &self,
        _unite: &DepotUnite,
        _comparee: bool,
        _destination: &PartieDuBilan,
    ) {
    }
    fn unite_en_echec(
        &self,
        _unite: &DepotUnite,
        _cause: CauseRefus,
        _definitif: bool,
        _message: &str,
    ) {
    }
    fn unite_incertaine(&self, _unite: &DepotUnite, _message: &str) {}
    /// Le réseau semble coupé depuis `depuis` : le moteur est en pause globale, une sonde
    /// repart dans `attente` (aucune unité ne consomme de tentative pendant ce temps).
    fn reseau_indisponible(&self, _depuis: Duration, _attente: Duration) {}
    /// La sonde a abouti : les envois reprennent.
    fn reseau_retabli(&self) {}
    /// Le dossier de la nuit est devenu illisible (carte SD retirée, disque débranché) : le
    /// dépôt attend qu'il revienne.
    fn nuit_indisponible(&self, _dossier: &Path) {}
    /// Le dossier de la nuit se lit de nouveau : les envois reprennent.
    fn nuit_retrouvee(&self, _dossier: &Path) {}
    /// Ctrl-C : plus rien ne démarre, ce qui est en vol s'arrête.
    fn interruption(&self) {}
    /// Le parallélisme a changé : `courant` transferts en vol au plus, sur `plafond`
    /// (`--paralleles`).
    fn parallelisme(&self, _courant: usize, _plafond: usize) {}
}

/// Un suivi qui ne dit rien (essais).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct SuiviMuet;

#[cfg(test)]
impl Suivi for SuiviMuet {}
