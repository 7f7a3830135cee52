//! Les demandes d'arrêt venues du système : Ctrl-C partout ; SIGTERM (et, sur demande, SIGHUP)
//! en plus sous Unix ; Ctrl-Break (et, sur demande, la fermeture de la console) sous Windows.
//!
//! Ce sont les flux de `tokio::signal` (ceux sur lesquels `tokio::signal::ctrl_c` est bâti),
//! ouverts une fois et gardés : un second Ctrl-C arrivé pendant que l'on traite le premier
//! est reçu, alors qu'un `ctrl_c()` rappelé après coup l'aurait perdu (le gestionnaire restant
//! en place, le processus ne serait même plus tué). Sous Windows, la console envoie Ctrl-C à
//! tous les processus qui la partagent (voir `processus`).

use std::io;

/// Ce que l'on a reçu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DemandeArret {
    /// Ctrl-C (SIGINT sous Unix, Ctrl-C ou Ctrl-Break sous Windows).
    Interruption,
    /// L'arrêt demandé par le système ou un superviseur (SIGTERM, SIGHUP ; fermeture de la
    /// console sous Windows).
    Terminaison,
}

/// L'écoute des demandes d'arrêt, en place dès sa création.
#[derive(Debug)]
pub(crate) struct Signaux {
    #[cfg(unix)]
    interruption: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminaison: tokio::signal::unix::Signal,
    #[cfg(unix)]
    raccrochage: Option<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
    #[cfg(windows)]
    ctrl_break: tokio::signal::windows::CtrlBreak,
    #[cfg(windows)]
    fermeture: Option<tokio::signal::windows::CtrlClose>,
}

impl Signaux {
    /// Commence à écouter ; à appeler dans un runtime tokio. `raccrochage` : aussi la perte du
    /// terminal (SIGHUP ; la fermeture de la fenêtre de console sous Windows).
    pub(crate) fn ecouter(raccrochage: bool) -> io::Result<Signaux> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signaux {
                interruption: signal(SignalKind::interrupt())?,
                terminaison: signal(SignalKind::terminate())?,
                raccrochage: raccrochage
                    .then(|| signal(SignalKind::hangup()))
                    .transpose()?,
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows;
            Ok(Signaux {
                ctrl_c: windows::ctrl_c()?,
                ctrl_break: windows::ctrl_break()?,
                fermeture: raccrochage.then(windows::ctrl_close).transpose()?,
            })
        }
    }

    /// Attend la prochaine demande d'arrêt.
    pub(crate) async fn recevoir(&mut self) -> DemandeArret {
        #[cfg(unix)]
        {
            let raccrochage = async {
                match self.raccrochage.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(()) = self.interruption.recv() => DemandeArret::Interruption,
                Some(()) = self.terminaison.recv() => DemandeArret::Terminaison,
                Some(()) = raccrochage => DemandeArret::Terminaison,
                // Les flux ne se ferment qu'avec le runtime : plus rien ne viendra.
                else => std::future::pending().await,
            }
        }
        #[cfg(windows)]
        {
            let fermeture = async {
                match self.fermeture.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(()) = self.ctrl_c.recv() => DemandeArret::Interruption,
                Some(()) = self.ctrl_break.recv() => DemandeArret::Interruption,
                Some(()) = fermeture => DemandeArret::Terminaison,
                else => std::future::pending().await,
            }
        }
    }
}

/// Envoie Ctrl-Break au groupe de processus `groupe` (un enfant lancé dans son propre groupe,
/// `CREATE_NEW_PROCESS_GROUP`) : sous Windows, qui n'a pas de signaux, c'est ce qu'un essai
/// envoie à la place de SIGINT ou SIGTERM, et que vigie traite comme Ctrl-C. Ici plutôt que
/// dans les essais d'intégration : `unsafe` n'est permis que dans `plateforme/`.
#[cfg(windows)]
// `unsafe` permis ici seul : `GenerateConsoleCtrlEvent`, que std n'offre pas.
#[allow(unsafe_code)]
pub fn envoyer_ctrl_break(groupe: u32) -> std::io::Result<()> {
    use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
    // SAFETY : un appel sans pointeur ; `groupe` est l'identifiant d'un groupe de processus.
    if unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, groupe) } != 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Deux SIGTERM envoyés au processus lui-même sont reçus l'un après l'autre : le second
    /// n'est pas perdu pendant qu'on traite le premier.
    #[tokio::test]
    // `unsafe` permis ici seul : `kill` vers soi-même, que std n'offre pas.
    #[allow(unsafe_code)]
    async fn deux_arrets_successifs_sont_recus() {
        let mut s = Signaux::ecouter(false).unwrap();
        // SAFETY : `kill` vers soi-même, sur un signal dont le gestionnaire est en place.
        let envoyer = || assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGTERM) }, 0);
        envoyer();
        assert_eq!(s.recevoir().await, DemandeArret::Terminaison);
        envoyer();
        assert_eq!(s.recevoir().await, DemandeArret::Terminaison);
    }
}
