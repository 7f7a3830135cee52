//! L'écho du clavier coupé pendant que les barres sont à l'écran.
//!
//! Pourquoi : le terminal écrit lui-même ce que l'on tape (l'écho). Une touche Entrée pendant
//! l'envoi y fait descendre le curseur d'une ligne, à l'insu d'indicatif, qui remonte ensuite
//! d'autant de lignes qu'il en a dessiné et efface les mauvaises : une copie figée de la barre
//! reste à l'écran à chaque Entrée. Tant que les barres sont dessinées, l'écho est coupé ; ce
//! qui est tapé reste dans le tampon du terminal et revient au shell ensuite. Le mode d'avant
//! est remis à la fin de l'affichage (et à l'abandon de ce garde, donc aussi sur Ctrl-C, que
//! `vigie` traite en finissant proprement).

/// Le mode du terminal d'avant la coupure, remis à l'abandon.
pub(crate) struct EchoCoupe {
    #[cfg(unix)]
    avant: libc::termios,
    #[cfg(windows)]
    avant: u32,
}

impl EchoCoupe {
    /// Coupe l'écho de l'entrée standard si c'est un terminal (sinon, rien à couper : `None`).
    // `unsafe` permis ici seul (`[lints]` de Cargo.toml) : termios et la console Windows,
    // que std ne couvre pas.
    #[allow(unsafe_code)]
    pub(crate) fn couper() -> Option<EchoCoupe> {
        #[cfg(unix)]
        {
            // SAFETY : `termios` est un agrégat d'entiers, valide à zéro ; tcgetattr le remplit
            // et tcsetattr le lit, sur le descripteur 0 que l'on ne ferme pas.
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
                Some(EchoCoupe { avant })
            }
        }
        #[cfg(windows)]
        {
            use windows_sys::Win32::System::Console::{
                ENABLE_ECHO_INPUT, GetConsoleMode, GetStdHandle, STD_INPUT_HANDLE, SetConsoleMode,
            };
            // SAFETY : appels sur la poignée de l'entrée standard du processus, que l'on ne
            // ferme pas ; `mode` est un entier local valide pendant l'appel.
            unsafe {
                let poignee = GetStdHandle(STD_INPUT_HANDLE);
                let mut avant = 0;
                if GetConsoleMode(poignee, &mut avant) == 0
                    || SetConsoleMode(poignee, avant & !ENABLE_ECHO_INPUT) == 0
                {
                    return None;
                }
                Some(EchoCoupe { avant })
            }
        }
        #[cfg(not(any(unix, windows)))]
        {
            None
        }
    }
}

impl Drop for EchoCoupe {
    // `unsafe` permis ici seul (`[lints]` de Cargo.toml) : termios et la console Windows,
    // que std ne couvre pas.
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY : remet le mode relevé par `couper`, sur le même descripteur.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.avant);
        }
        #[cfg(windows)]
        // SAFETY : remet le mode relevé par `couper`, sur la même poignée.
        unsafe {
            use windows_sys::Win32::System::Console::{
                GetStdHandle, STD_INPUT_HANDLE, SetConsoleMode,
            };
            SetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), self.avant);
        }
    }
}
