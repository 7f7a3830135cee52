//! Le budget global de réessai : un seau à jetons partagé par toutes les émissions d'un
//! passage, à la manière de la limitation des réessais de gRPC (`retryThrottling`) et du quota
//! de réessai des SDK AWS.
//!
//! Pourquoi : quand le serveur répond 503 à tout, chaque unité épuiserait ses tentatives l'une
//! après l'autre et le client, à lui seul, ferait la rafale qui entretient la panne. Chaque
//! échec rejouable retire un jeton, chaque succès en rend une fraction ; un réessai n'est
//! permis que tant que le seau est au-dessus de la moitié. Les premières tentatives, elles,
//! partent toujours : seul le réessai est rationné.

use std::sync::Mutex;

/// Ce que la boucle de réessai consulte avant de rejouer.
pub(crate) trait BudgetReessai: Send + Sync {
    /// Un réessai peut-il partir ?
    fn reessai_permis(&self) -> bool;
    /// Une tentative a échoué de façon rejouable.
    fn noter_echec(&self);
    /// Une tentative a abouti.
    fn noter_succes(&self);
}

/// Aucun rationnement (tests de la politique seule, commandes ponctuelles).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SansBudget;

impl BudgetReessai for SansBudget {
    fn reessai_permis(&self) -> bool {
        true
    }
    fn noter_echec(&self) {}
    fn noter_succes(&self) {}
}

/// Le seau à jetons.
#[derive(Debug)]
pub(crate) struct SeauJetons {
    jetons: Mutex<f64>,
    capacite: f64,
    rendu_par_succes: f64,
}

impl SeauJetons {
    /// Un seau plein de `capacite` jetons ; chaque succès en rend `rendu_par_succes`.
    pub(crate) fn nouveau(capacite: f64, rendu_par_succes: f64) -> Self {
        let capacite = if capacite.is_finite() && capacite >= 2.0 {
            capacite
        } else {
            2.0
        };
        SeauJetons {
            jetons: Mutex::new(capacite),
            capacite,
            rendu_par_succes: rendu_par_succes.clamp(0.0, capacite),
        }
    }

    pub(crate) fn jetons(&self) -> f64 {
        self.jetons.lock().map(|j| *j).unwrap_or(0.0)
    }
}

impl Default for SeauJetons {
    /// 100 jetons, trois dixièmes rendus par succès : 50 échecs de suite suspendent les
    /// réessais. Le seau ne se vide que si plus d'une requête sur quatre échoue durablement
    /// (0,3 rendu par succès contre 1 retiré par échec : seuil à 0,3 / 1,3 ≈ 23 %) : un lien
    /// mobile qui perd 15 % des requêtes garde tous ses réessais, un service qui refuse tout
    /// n'est pas martelé. (gRPC rend un dixième, ce qui rationne dès 9 % d'échecs.)
    fn default() -> Self {
        SeauJetons::nouveau(100.0, 0.3)
    }
}

impl BudgetReessai for SeauJetons {
    fn reessai_permis(&self) -> bool {
        self.jetons() > self.capacite / 2.0
    }

    fn noter_echec(&self) {
        if let Ok(mut j) = self.jetons.lock() {
            *j = (*j - 1.0).max(0.0);
        }
    }

    fn noter_succes(&self) {
        if let Ok(mut j) = self.jetons.lock() {
            *j = (*j + self.rendu_par_succes).min(self.capacite);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn le_seau_se_vide_puis_se_reconstitue() {
        let s = SeauJetons::nouveau(10.0, 0.5);
        for _ in 0..4 {
            s.noter_echec();
        }
        assert!(s.reessai_permis(), "6 jetons > 5");
        s.noter_echec();
        assert!(!s.reessai_permis(), "5 jetons : plus de réessai");
        s.noter_succes();
        assert!(s.reessai_permis());
        for _ in 0..100 {
            s.noter_succes();
        }
        assert_eq!(s.jetons(), 10.0, "jamais au-dessus de la capacité");
        for _ in 0..100 {
            s.noter_echec();
        }
        assert_eq!(s.jetons(), 0.0, "jamais négatif");
    }

    #[test]
    fn quinze_pour_cent_d_echecs_ne_vident_pas_le_seau() {
        let s = SeauJetons::default();
        // 10 000 requêtes, une sur sept en échec (≈ 14 %), régulièrement réparties.
        for i in 0..10_000 {
            if i % 7 == 0 {
                s.noter_echec();
            } else {
                s.noter_succes();
            }
            assert!(s.reessai_permis(), "seau vidé à la requête {i}");
        }
        // Un service qui refuse tout : rationné après 50 échecs.
        for _ in 0..50 {
            s.noter_echec();
        }
        assert!(!s.reessai_permis());
    }

    #[test]
    fn reglages_absurdes_ramenes_a_un_seau_sur() {
        let s = SeauJetons::nouveau(f64::NAN, -1.0);
        assert!(s.reessai_permis());
        s.noter_succes();
        assert_eq!(s.jetons(), 2.0);
    }
}
