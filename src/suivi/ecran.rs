//! Le partage de la sortie d'erreur entre les barres et tout ce qui s'y écrit d'autre.
//!
//! Pourquoi : une ligne écrite sur la sortie d'erreur pendant que des barres y sont dessinées se
//! mêle à elles (les barres la recouvrent au prochain dessin, ou s'y dupliquent). Le journal
//! `tracing` (`-v`) s'installe avant que le passage ne commence et ne connaît pas les barres :
//! elles s'enregistrent donc ici, et le journal passe par [`ecrire_erreur`], qui efface les
//! barres, écrit, puis les redessine (`MultiProgress::suspend`). Le bilan, sur la sortie
//! standard, les efface d'abord pour de bon ([`liberer_terminal`]).
//!
//! Le terminal est un bien emprunté : ce que les barres y changent (l'écho du clavier, voir
//! `plateforme::echo`) est rendu sur chaque chemin de sortie. Fin normale, erreur, Ctrl-C,
//! SIGTERM, SIGHUP : les barres sont effacées ([`liberer_terminal`]) et leur garde rend l'écho ;
//! second Ctrl-C, qui sort aussitôt : [`rendre_le_terminal`] ; panique : le crochet posé avec
//! les premières barres fait de même avant le message de la panique.

use std::io::{self, IsTerminal, Write};
use std::sync::{Mutex, MutexGuard, Once};

use super::barres::SuiviBarres;

/// Les barres à l'écran, s'il y en a.
static BARRES: Mutex<Option<SuiviBarres>> = Mutex::new(None);

fn barres() -> MutexGuard<'static, Option<SuiviBarres>> {
    // Une panique en tenant ce verrou n'a rien laissé d'incohérent : une option, au plus.
    BARRES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Enregistre les barres d'un passage (remplace et efface les précédentes).
pub(super) fn enregistrer(b: SuiviBarres) {
    rendre_a_la_panique();
    let ancien = barres().replace(b);
    if let Some(ancien) = ancien {
        ancien.terminer();
    }
}

/// Efface les barres pour de bon : le passage est fini, le bilan ou une erreur va s'écrire.
/// Sans barres, ne fait rien.
pub fn liberer_terminal() {
    let actives = barres().take();
    if let Some(b) = actives {
        b.terminer();
    }
}

/// Rend le terminal tel qu'on l'a trouvé, avant une sortie sans retour (second Ctrl-C) :
/// barres effacées, écho rendu, couleurs et curseur remis.
pub(crate) fn rendre_le_terminal() {
    liberer_terminal();
    rendre_d_urgence();
}

/// L'écho rendu sans attendre de verrou, couleurs et curseur remis à leur état ordinaire : une
/// panique a pu interrompre une ligne en couleur.
fn rendre_d_urgence() {
    crate::plateforme::echo::rendre();
    if io::stderr().is_terminal() {
        let _ = io::stderr().write_all(b"\x1b[0m\x1b[?25h");
    }
}

/// Pose, une fois, le crochet de panique qui rend le terminal avant le message de la panique
/// (puis laisse parler le crochet d'avant). Sans lui, une panique barres à l'écran laissait
/// l'écho coupé : les barres vivent dans un `static`, que rien n'abandonne.
fn rendre_a_la_panique() {
    static POSE: Once = Once::new();
    POSE.call_once(|| {
        let precedent = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            rendre_d_urgence();
            precedent(info);
        }));
    });
}

/// Écrit sur la sortie d'erreur, au-dessus des barres s'il y en a.
pub(super) fn ecrire_erreur(octets: &[u8]) -> io::Result<()> {
    let actives = barres().clone();
    let ecrire = || {
        let mut e = io::stderr().lock();
        e.write_all(octets)?;
        e.flush()
    };
    match actives {
        Some(b) => b.suspendre(ecrire),
        None => ecrire(),
    }
}
