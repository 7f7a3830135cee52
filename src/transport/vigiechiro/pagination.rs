//! La règle de toute liste paginée de la plateforme, écrite une fois : quand lire la page
//! suivante, quand s'arrêter, quand la liste est illisible.
//!
//! Le serveur (`xin/snippets.py` `Paginator`) rend `{"_items", "_meta": {"max_results",
//! "total", "page"}}`, 100 éléments par page au plus, `total` compté sans limite. Un serveur
//! (ou un relais) dont la pagination est cassée peut rendre toujours la même page, ou des
//! pages sans fin : lues jusqu'à la borne de pages, puis relues à chaque réessai, c'étaient
//! 2 100 pages identiques (214 Mo) pour la liste des sites. D'où, pour les sites, les
//! participations, les pièces jointes :
//! - une page plus courte que demandé est la dernière ;
//! - le nombre de pages est borné par le `total` annoncé (⌈total / par page⌉, une au moins) ;
//!   un total au-delà de ce que `vigie` lit rend la liste illisible d'emblée ;
//! - une page identique à la précédente (mêmes identifiants, dans le même ordre) arrête la
//!   lecture : la liste est illisible, jamais relue page après page ;
//! - au-delà de la borne de pages de l'appelant, la liste est dite sans fin.

use std::hash::{Hash, Hasher};

use crate::destination::IdObjet;

/// Éléments demandés par page, pour toute liste : le plus que le serveur admette
/// (`xin/snippets.py`, `Paginator(max_results_limit=100)` ; au-delà, 422).
pub(crate) const PAR_PAGE: u64 = 100;

/// Où en est la lecture d'une liste paginée.
#[derive(Debug)]
pub(crate) struct Pagination {
    par_page: u64,
    pages_max: u64,
    /// Pages lues jusqu'ici.
    lues: u64,
    /// L'empreinte des identifiants de la dernière page lue (non vide).
    precedente: Option<u64>,
}

/// Ce qui vient après une page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Suite {
    /// Lire cette page (son numéro, à partir de 1).
    Page(u64),
    /// La liste est lue.
    Finie,
}

impl Pagination {
    /// Une lecture de pages de `par_page` éléments, `pages_max` pages au plus.
    pub(crate) fn nouveau(par_page: u64, pages_max: u64) -> Self {
        Pagination {
            par_page: par_page.max(1),
            pages_max: pages_max.max(1),
            lues: 0,
            precedente: None,
        }
    }

    /// Note la page qui vient d'être lue (la `n`-ième, `n` à partir de 1) : les identifiants
    /// de ses éléments, dans l'ordre, et le `total` qu'elle annonce. Rend la page à lire
    /// ensuite, ou pourquoi la liste est illisible (voir l'en-tête du module).
    pub(crate) fn noter<'a>(
        &mut self,
        ids: impl IntoIterator<Item = &'a IdObjet>,
        total: Option<u64>,
    ) -> Result<Suite, String> {
        self.lues += 1;
        let n = self.lues;
        let mut empreinte = std::collections::hash_map::DefaultHasher::new();
        let mut elements: u64 = 0;
        for id in ids {
            id.as_str().hash(&mut empreinte);
            elements += 1;
        }
        if let Some(total) = total
            && total > self.par_page.saturating_mul(self.pages_max)
        {
            return Err(format!(
                "{total} éléments annoncés : plus que les {} que vigie lit",
                self.par_page.saturating_mul(self.pages_max)
            ));
        }
        if elements > 0 {
            let empreinte = empreinte.finish();
            if self.precedente == Some(empreinte) {
                return Err(format!(
                    "la page {n} répète la page {} : pagination du serveur cassée, lecture \
                     arrêtée",
                    n - 1
                ));
            }
            self.precedente = Some(empreinte);
        }
        let annoncees = total.map(|t| t.div_ceil(self.par_page).max(1));
        if elements < self.par_page || annoncees.is_some_and(|a| n >= a) {
            return Ok(Suite::Finie);
        }
        if n >= self.pages_max {
            return Err(format!(
                "liste sans fin : plus de {} pages de {}",
                self.pages_max, self.par_page
            ));
        }
        Ok(Suite::Page(n + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(de: u32, a: u32) -> Vec<IdObjet> {
        (de..a)
            .map(|n| IdObjet::analyser(&format!("64a1b2c3d4e5f607{n:08x}")).unwrap())
            .collect()
    }

    /// Une page identique à la précédente arrête la lecture : la liste est illisible dès la
    /// deuxième page, jamais relue cent fois.
    #[test]
    fn une_page_identique_a_la_precedente_arrete_la_lecture() {
        let mut p = Pagination::nouveau(100, 100);
        assert_eq!(p.noter(&ids(0, 100), Some(5_000)), Ok(Suite::Page(2)));
        let e = p.noter(&ids(0, 100), Some(5_000)).unwrap_err();
        assert!(e.contains("la page 2 répète la page 1"), "{e}");
    }

    /// Le nombre de pages est borné par le total annoncé, même quand le serveur rend des
    /// pages pleines sans fin ; une page courte est la dernière ; un total démesuré est refusé.
    #[test]
    fn le_nombre_de_pages_est_borne_par_le_total_annonce() {
        let mut p = Pagination::nouveau(100, 100);
        assert_eq!(p.noter(&ids(0, 100), Some(150)), Ok(Suite::Page(2)));
        assert_eq!(p.noter(&ids(100, 200), Some(150)), Ok(Suite::Finie));
        let mut p = Pagination::nouveau(100, 100);
        assert_eq!(p.noter(&ids(0, 100), Some(100)), Ok(Suite::Finie));
        let mut p = Pagination::nouveau(100, 100);
        assert_eq!(p.noter(&ids(0, 40), Some(5_000)), Ok(Suite::Finie));
        assert_eq!(
            Pagination::nouveau(100, 100).noter(&[], Some(0)),
            Ok(Suite::Finie)
        );
        let e = Pagination::nouveau(100, 100)
            .noter(&ids(0, 100), Some(10_001))
            .unwrap_err();
        assert!(e.contains("10001 éléments annoncés"), "{e}");
        // Sans total : la borne de pages de l'appelant.
        let mut p = Pagination::nouveau(100, 3);
        assert_eq!(p.noter(&ids(0, 100), None), Ok(Suite::Page(2)));
        assert_eq!(p.noter(&ids(100, 200), None), Ok(Suite::Page(3)));
        let e = p.noter(&ids(200, 300), None).unwrap_err();
        assert!(e.contains("liste sans fin"), "{e}");
    }
}
