//! Un même message d'échec, pour des centaines de fichiers, n'est dit qu'une fois.
//!
//! Pourquoi : un jeton qui expire en pleine nuit fait échouer chaque fichier qui suit avec le
//! même message de trois lignes ; deux cents copies noyaient le bilan et tout ce qui comptait.
//! Le premier fichier porte le message en entier ; les suivants, qui le répètent, ne
//! s'impriment plus : à la fin du passage (barres), ou dès la deuxième fois (lignes), une ligne
//! dit combien de fichiers le partagent. Le bilan, lui, compte les fichiers par cause.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::texte::pluriel;

/// Les messages d'échec déjà dits pendant un passage, et combien de fois ils sont revenus.
#[derive(Debug, Default)]
pub(crate) struct MessagesRepetes {
    dits: Mutex<Dits>,
}

/// Chaque message dit, dans l'ordre, avec le nombre de fichiers de plus qui l'ont porté depuis ;
/// et, par message, sa place dans cet ordre.
#[derive(Debug, Default)]
struct Dits {
    index: HashMap<String, usize>,
    ordre: Vec<(String, u64)>,
}

/// Ce qu'il faut faire d'un message d'échec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repetition {
    /// Première fois : le dire en entier.
    Premiere,
    /// Deuxième fois : le dire une dernière fois, en disant qu'il ne sera plus répété.
    Deuxieme,
    /// Au-delà : le taire (il est compté).
    Tue,
}

impl MessagesRepetes {
    /// Note un message (sa nature et sa cause comprises) et dit s'il est nouveau.
    pub(crate) fn noter(&self, message: &str) -> Repetition {
        let mut dits = self.dits.lock().unwrap_or_else(|e| e.into_inner());
        let Dits { index, ordre } = &mut *dits;
        match index.get(message) {
            None => {
                index.insert(message.to_owned(), ordre.len());
                ordre.push((message.to_owned(), 0));
                Repetition::Premiere
            }
            Some(&i) => {
                ordre[i].1 += 1;
                if ordre[i].1 == 1 {
                    Repetition::Deuxieme
                } else {
                    Repetition::Tue
                }
            }
        }
    }

    /// Les lignes de fin de passage : pour chaque message revenu, combien d'autres fichiers
    /// l'ont porté (« même message pour 199 autres fichiers : jeton … »).
    pub(crate) fn resume(&self) -> Vec<String> {
        let dits = self.dits.lock().unwrap_or_else(|e| e.into_inner());
        dits.ordre
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(message, n)| {
                format!(
                    "  … même message pour {} : {message}",
                    pluriel(*n, "autre fichier", "autres fichiers")
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn un_message_repete_est_dit_une_fois_puis_compte() {
        let r = MessagesRepetes::default();
        assert_eq!(r.noter("jeton refusé"), Repetition::Premiere);
        assert_eq!(r.noter("autre"), Repetition::Premiere);
        assert_eq!(r.noter("jeton refusé"), Repetition::Deuxieme);
        for _ in 0..198 {
            assert_eq!(r.noter("jeton refusé"), Repetition::Tue);
        }
        assert_eq!(
            r.resume(),
            ["  … même message pour 199 autres fichiers : jeton refusé"]
        );
    }
}
