//! Le partage de la sortie d'erreur entre les barres et tout ce qui s'y écrit d'autre.
//!
//! Pourquoi : une ligne écrite sur la sortie d'erreur pendant que des barres y sont dessinées se
//! mêle à elles (les barres la recouvrent au prochain dessin, ou s'y dupliquent). Le journal
//! `tracing` (`-v`) s'installe avant que le passage ne commence et ne connaît pas les barres :
//! elles s'enregistrent donc ici, et le journal passe par [`ecrire_erreur`], qui efface les
//! barres, écrit, puis les redessine (`MultiProgress::suspend`). Le bilan, sur la sortie
//! standard, les efface d'abord pour de bon ([`liberer_terminal`]).

use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard};

use super::barres::SuiviBarres;

/// Les barres à l'écran, s'il y en a.
static BARRES: Mutex<Option<SuiviBarres>> = Mutex::new(None);

fn barres() -> MutexGuard<'static, Option<SuiviBarres>> {
    // Une panique en tenant ce verrou n'a rien laissé d'incohérent : une option, au plus.
    BARRES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Enregistre les barres d'un passage (remplace et efface les précédentes).
pub(super) fn enregistrer(b: SuiviBarres) {
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
