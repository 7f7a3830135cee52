//! Ce que le moteur annonce, et ce que l'utilisateur en voit.
//!
//! Le moteur ne connaît que le trait [`Suivi`] : ni indicatif, ni clap, ni la sortie standard.
//! Pendant une attente de réessai, l'utilisateur voit « nouvelle tentative dans N s » (N arrondi
//! au-dessus) : ni silence trompeur, ni bandeau d'erreur pour un incident absorbé (`seeds/000`).

mod lignes;

use std::time::Duration;

use crate::plan::{CauseRefus, DepotUnite};

pub use lignes::{SuiviJson, SuiviLignes};

/// Les événements du moteur. Chaque méthode a un défaut vide : un affichage ne prend que ce
/// qui l'intéresse.
pub trait Suivi: Send + Sync {
    /// Le passage commence : tant d'unités, tant d'octets à envoyer.
    fn debut(&self, _unites: u64, _octets: u64) {}
    fn unite_commencee(&self, _unite: &DepotUnite) {}
    /// Octets de l'unité partis et confirmés, plus ceux de la tentative en cours.
    fn progression(&self, _unite: &DepotUnite, _octets: u64) {}
    /// Une tentative a échoué de façon rejouable : la suivante part dans `attente`.
    fn nouvelle_tentative(&self, _unite: &DepotUnite, _tentative: u32, _attente: Duration) {}
    fn unite_deposee(&self, _unite: &DepotUnite) {}
    fn unite_en_echec(
        &self,
        _unite: &DepotUnite,
        _cause: CauseRefus,
        _definitif: bool,
        _message: &str,
    ) {
    }
    fn unite_incertaine(&self, _unite: &DepotUnite, _message: &str) {}
    /// Le réseau semble coupé : le moteur est en pause globale, une sonde repart dans
    /// `attente` (aucune unité ne consomme de tentative pendant ce temps).
    fn reseau_indisponible(&self, _attente: Duration) {}
    /// La sonde a abouti : les envois reprennent.
    fn reseau_retabli(&self) {}
    /// Ctrl-C : plus rien ne démarre, ce qui est en vol s'arrête.
    fn interruption(&self) {}
}

/// Un suivi qui ne dit rien (tests, `-q` avec `--json` absent).
#[derive(Debug, Default)]
pub struct SuiviMuet;

impl Suivi for SuiviMuet {}

/// « nouvelle tentative dans N s », N arrondi au-dessus : jamais « 0 s » tant qu'on attend.
pub fn secondes_au_dessus(attente: Duration) -> u64 {
    let ms = attente.as_millis();
    (ms.div_ceil(1000)).max(u128::from(!attente.is_zero())) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrondi_au_dessus() {
        assert_eq!(secondes_au_dessus(Duration::ZERO), 0);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1)), 1);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1000)), 1);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1001)), 2);
        assert_eq!(secondes_au_dessus(Duration::from_secs(8)), 8);
    }
}
