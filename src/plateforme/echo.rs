//! L'écho du clavier coupé pendant que les barres sont à l'écran, et rendu tel qu'on l'a trouvé.
//!
//! Pourquoi couper : le terminal écrit lui-même ce que l'on tape (l'écho). Une touche Entrée
//! pendant l'envoi y fait descendre le curseur d'une ligne, à l'insu d'indicatif, qui remonte
//! ensuite d'autant de lignes qu'il en a dessiné et efface les mauvaises : une copie figée de la
//! barre reste à l'écran à chaque Entrée. Tant que des barres sont dessinées, l'écho est coupé ;
//! ce qui est tapé reste dans le tampon du terminal et revient au shell ensuite.
//!
//! Pourquoi un seul relevé pour tout le processus : chaque passage (chaque nuit d'une saison)
//! a ses barres, et les barres de la nuit suivante naissent avant que celles de la précédente
//! ne s'effacent. Quand chaque garde relevait le mode « d'avant » lui-même, le second relevait
//! un terminal déjà sans écho, et le rendait ainsi à la fin : après un dépôt de deux nuits ou
//! plus, le shell n'affichait plus ce que l'on tapait (`stty` : `-echo`). Le mode est donc
//! relevé une fois, à la première coupure, et rendu quand le dernier garde est abandonné, ou
//! d'urgence ([`rendre`]) par une panique ou un arrêt forcé.

use std::sync::{Mutex, MutexGuard, TryLockError};

/// Le mode d'un terminal, tel que le système le rend et le reprend.
#[cfg(unix)]
type Mode = libc::termios;
#[cfg(windows)]
type Mode = u32;
#[cfg(not(any(unix, windows)))]
type Mode = ();

/// Le terminal emprunté : son mode tel qu'on l'a trouvé (tant que l'écho est coupé), et le
/// nombre de gardes vivants.
struct Emprunt {
    trouve: Option<Mode>,
    gardes: usize,
}

static EMPRUNT: Mutex<Emprunt> = Mutex::new(Emprunt {
    trouve: None,
    gardes: 0,
});

fn emprunt() -> MutexGuard<'static, Emprunt> {
    // Un entier et un mode : rien d'incohérent à reprendre après une panique.
    EMPRUNT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Un garde de la coupure de l'écho : le dernier abandonné rend le mode trouvé.
pub(crate) struct EchoCoupe {
    _prive: (),
}

impl EchoCoupe {
    /// Coupe l'écho de l'entrée standard si c'est un terminal (sinon, rien à couper : `None`).
    /// Déjà coupé par un autre garde : le mode trouvé reste celui d'avant la première coupure.
    pub(crate) fn couper() -> Option<EchoCoupe> {
        let mut e = emprunt();
        if e.trouve.is_none() {
            e.trouve = Some(couper_l_echo()?);
        }
        e.gardes += 1;
        Some(EchoCoupe { _prive: () })
    }
}

impl Drop for EchoCoupe {
    fn drop(&mut self) {
        let mut e = emprunt();
        e.gardes = e.gardes.saturating_sub(1);
        if e.gardes == 0
            && let Some(mode) = e.trouve.take()
        {
            remettre(&mode);
        }
    }
}

/// Rend le terminal tel qu'on l'a trouvé, sans attendre les gardes : une panique, un arrêt
/// forcé. N'attend pas un verrou tenu (la panique a pu naître en le tenant) : rien n'est rendu
/// alors, plutôt que de bloquer la sortie.
pub(crate) fn rendre() {
    let mut e = match EMPRUNT.try_lock() {
        Ok(e) => e,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    if let Some(mode) = e.trouve.take() {
        remettre(&mode);
    }
}

/// Coupe l'écho et rend le mode d'avant ; `None` si l'entrée n'est pas un terminal.
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : termios et la console Windows, que std
// ne couvre pas.
#[allow(unsafe_code)]
fn couper_l_echo() -> Option<Mode> {
    #[cfg(unix)]
    {
        // SAFETY : `termios` est un agrégat d'entiers, valide à zéro ; tcgetattr le remplit et
        // tcsetattr le lit, sur le descripteur 0 que l'on ne ferme pas.
        unsafe {
            if libc::isatty(libc::STDIN_FILENO) != 1 {
                return None;
            }
            let mut avant: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut avant) != 0 {
                return None;
            }
            let mut sans_echo = avant;
            sans_echo.c_lflag &= !(libc::ECHO | libc::ECHONL);
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &sans_echo) != 0 {
                return None;
            }
            Some(avant)
        }
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Console::{
            ENABLE_ECHO_INPUT, GetConsoleMode, GetStdHandle, STD_INPUT_HANDLE, SetConsoleMode,
        };
        // SAFETY : appels sur la poignée de l'entrée standard du processus, que l'on ne ferme
        // pas ; `mode` est un entier local valide pendant l'appel.
        unsafe {
            let poignee = GetStdHandle(STD_INPUT_HANDLE);
            let mut avant = 0;
            if GetConsoleMode(poignee, &mut avant) == 0
                || SetConsoleMode(poignee, avant & !ENABLE_ECHO_INPUT) == 0
            {
                return None;
            }
            Some(avant)
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        None
    }
}

/// Remet le mode relevé par [`couper_l_echo`].
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : termios et la console Windows, que std
// ne couvre pas.
#[allow(unsafe_code)]
fn remettre(mode: &Mode) {
    #[cfg(unix)]
    // SAFETY : remet le mode relevé par `couper_l_echo`, sur le même descripteur.
    unsafe {
        libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, mode);
    }
    #[cfg(windows)]
    // SAFETY : remet le mode relevé par `couper_l_echo`, sur la même poignée.
    unsafe {
        use windows_sys::Win32::System::Console::{GetStdHandle, STD_INPUT_HANDLE, SetConsoleMode};
        SetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), *mode);
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = mode;
    }
}
