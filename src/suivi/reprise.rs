//! Le conseil de reprise d'une saison, écrit une fois pour toutes les commandes qui le donnent
//! (le bilan de `vigie depot` et de `vigie retenter-echecs`, le bilan après Ctrl-C, `vigie
//! etat`) : **une seule** commande, `vigie retenter-echecs` sans argument, qui reprend ce qui
//! reste de toute la saison (nuits entamées, en échec, pas commencées, participations encore à
//! créer). Quand une seule nuit est en cause, le conseil la nomme.
//!
//! Pourquoi : le bilan d'une nuit conseillait « vigie retenter-echecs 8 » (le plan de cette
//! nuit seule) ; l'exécuter tel quel laissait de côté les nuits pas commencées, sous un bilan
//! qui avait l'air complet. README, bilan et `vigie etat` donnaient trois commandes de reprise
//! différentes.

use crate::plan::{CauseRefus, ResumePlan};
use crate::plateforme::conseil::commande;

/// Une nuit de la saison, pour le conseil : comment la nommer, ce qui en reste.
pub(crate) struct NuitDuConseil<'a> {
    /// La nuit telle qu'on la nomme (`ven. 03/07 A1 Pass1`).
    pub(crate) nom: &'a str,
    pub(crate) resume: &'a ResumePlan,
    /// Sa participation reste à créer (création reportée ou refusée).
    pub(crate) a_creer: bool,
}

impl NuitDuConseil<'_> {
    fn reste(&self) -> bool {
        self.a_creer || self.resume.deposee < self.resume.total()
    }

    fn refus(&self, authentification: bool) -> bool {
        self.resume
            .echecs_par_cause
            .iter()
            .any(|(cause, definitif, n)| {
                *definitif
                    && *n > 0
                    && (*cause == Some(CauseRefus::Authentification)) == authentification
            })
    }
}

/// Ce qu'il reste à faire pour la saison : la commande de reprise (avec le geste qui la
/// précède s'il en faut un, et la nuit nommée si une seule reste), ou `None` si tout est
/// déposé.
pub(crate) fn conseil_de_reprise(nuits: &[NuitDuConseil<'_>]) -> Option<String> {
    let restantes: Vec<&NuitDuConseil<'_>> = nuits.iter().filter(|n| n.reste()).collect();
    // La commande qui reprend la saison (celle du dernier dépôt) : toujours la même.
    let reprendre = commande("retenter-echecs");
    let commande = if restantes.iter().any(|n| n.refus(false)) {
        format!(
            "corrigez la cause des refus définitifs ({}), puis {}",
            commande("etat"),
            reprendre.arg("--y-compris-definitifs")
        )
    } else if restantes.iter().any(|n| n.refus(true)) {
        format!(
            "reconnectez-vous ({}), puis {reprendre}",
            commande("connexion").args(["--jeton", "-"])
        )
    } else {
        reprendre.to_string()
    };
    match restantes.as_slice() {
        [] => None,
        [seule] => Some(format!("{commande} (reste la nuit {})", seule.nom)),
        _ => Some(commande),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume(
        deposee: u64,
        echec: u64,
        causes: Vec<(Option<CauseRefus>, bool, u64)>,
    ) -> ResumePlan {
        ResumePlan {
            a_deposer: 0,
            en_cours: 0,
            deposee,
            echec,
            incertaine: 0,
            definitifs: causes.iter().filter(|c| c.1).map(|c| c.2).sum(),
            modifiees: 0,
            octets_total: 0,
            octets_deposes: 0,
            echecs_par_cause: causes,
            sorte: crate::plan::Sorte::nouvelle("vigiechiro"),
        }
    }

    #[test]
    fn une_seule_commande_pour_toute_la_saison_la_nuit_nommee_si_elle_est_seule() {
        let finie = resume(4, 0, vec![]);
        let entamee = resume(2, 2, vec![(None, false, 2)]);
        let pas_commencee = ResumePlan {
            a_deposer: 3,
            ..resume(0, 0, vec![])
        };
        let n = |nom, resume, a_creer| NuitDuConseil {
            nom,
            resume,
            a_creer,
        };
        assert_eq!(conseil_de_reprise(&[n("A", &finie, false)]), None);
        assert_eq!(
            conseil_de_reprise(&[
                n("A", &finie, false),
                n("B", &entamee, false),
                n("C", &pas_commencee, false)
            ])
            .as_deref(),
            Some("vigie retenter-echecs")
        );
        assert_eq!(
            conseil_de_reprise(&[
                n("A", &finie, false),
                n("ven. 03/07 B2 Pass1", &pas_commencee, false)
            ])
            .as_deref(),
            Some("vigie retenter-echecs (reste la nuit ven. 03/07 B2 Pass1)")
        );
        // Une participation encore à créer : la nuit reste, même sans fichier en échec.
        assert_eq!(
            conseil_de_reprise(&[n("A", &finie, true)]).as_deref(),
            Some("vigie retenter-echecs (reste la nuit A)")
        );
        let refus = resume(1, 1, vec![(Some(CauseRefus::Contenu), true, 1)]);
        assert!(
            conseil_de_reprise(&[n("A", &refus, false), n("B", &entamee, false)])
                .is_some_and(|c| c.ends_with("vigie retenter-echecs --y-compris-definitifs"))
        );
        let jeton = resume(1, 1, vec![(Some(CauseRefus::Authentification), true, 1)]);
        assert_eq!(
            conseil_de_reprise(&[n("A", &jeton, false), n("B", &entamee, false)]).as_deref(),
            Some("reconnectez-vous (vigie connexion --jeton -), puis vigie retenter-echecs")
        );
    }
}
