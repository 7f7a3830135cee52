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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use indicatif::ProgressBar;

use super::barres::SuiviBarres;

/// Les barres à l'écran, s'il y en a.
static BARRES: Mutex<Option<SuiviBarres>> = Mutex::new(None);

/// L'indicateur d'attente à l'écran (`vigie traitement --attendre`), s'il y en a un : ce qui
/// s'écrit par [`ecrire_erreur`] passe au-dessus de lui, comme au-dessus des barres.
static INDICATEUR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// `-q` : la sortie d'erreur ne porte que les erreurs (réglé avec le journal, au lancement).
static SILENCIEUX: AtomicBool = AtomicBool::new(false);

pub(super) fn regler_silence(silencieux: bool) {
    SILENCIEUX.store(silencieux, Ordering::Relaxed);
}

/// `-q` a-t-il été donné ? Les annonces de statut (les réessais d'une commande ponctuelle) se
/// taisent.
pub(super) fn silencieux() -> bool {
    SILENCIEUX.load(Ordering::Relaxed)
}

fn indicateur() -> MutexGuard<'static, Option<ProgressBar>> {
    INDICATEUR.lock().unwrap_or_else(|e| e.into_inner())
}

/// L'indicateur d'attente est à l'écran (jusqu'à [`lacher_indicateur`]).
pub(super) fn tenir_indicateur(pb: &ProgressBar) {
    *indicateur() = Some(pb.clone());
}

/// L'indicateur d'attente est effacé.
pub(super) fn lacher_indicateur() {
    indicateur().take();
}

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
    if let Some(b) = actives {
        return b.suspendre(ecrire);
    }
    let attente = indicateur().clone();
    match attente {
        Some(pb) => pb.suspend(ecrire),
        None => ecrire(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Un terminal qui note ce qu'on lui fait.
    #[derive(Debug, Clone, Default)]
    struct Terminal(Arc<Mutex<Vec<String>>>);

    impl Terminal {
        fn noter(&self, quoi: &str) -> io::Result<()> {
            self.0.lock().unwrap().push(quoi.to_owned());
            Ok(())
        }
        fn vu(&self) -> Vec<String> {
            self.0.lock().unwrap().clone()
        }
    }

    impl indicatif::TermLike for Terminal {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            self.noter("haut")
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            self.noter("bas")
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.noter(s)
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.noter(s)
        }
        fn clear_line(&self) -> io::Result<()> {
            self.noter("effacer")
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Une ligne écrite sur la sortie d'erreur pendant que l'indicateur d'attente tourne
    /// (une annonce de réessai pendant `vigie traitement --attendre`) : l'indicateur est
    /// effacé avant, puis redessiné, au lieu de se mêler à elle.
    #[test]
    fn une_ligne_passe_au_dessus_de_l_indicateur() {
        let terminal = Terminal::default();
        let pb = ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::term_like(Box::new(terminal.clone())),
        );
        pb.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg}").unwrap());
        pb.set_message("calcul en cours");
        pb.tick();
        tenir_indicateur(&pb);
        let avant = terminal.vu().len();
        ecrire_erreur(b"").unwrap();
        lacher_indicateur();
        let apres = terminal.vu()[avant..].to_vec();
        assert!(
            apres.iter().any(|l| l == "effacer"),
            "indicateur non effacé : {apres:?}"
        );
        assert!(
            apres.iter().any(|l| l.contains("calcul en cours")),
            "indicateur non redessiné : {apres:?}"
        );
    }
}
