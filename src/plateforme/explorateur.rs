//! Windows à la souris : `vigie.exe` lancé depuis l'explorateur de fichiers, par un double clic
//! ou en y déposant le dossier d'une carte.
//!
//! Pourquoi : sous Windows, la bénévole n'ouvre pas de terminal. Double-cliqué, un programme en
//! ligne de commande reçoit une console à lui seul, qui se ferme dès qu'il a fini : l'aide
//! défilait et disparaissait. Un dossier déposé sur l'icône arrive en seul argument (son chemin
//! complet) : `vigie.exe E:\2026-06-21` n'était qu'une erreur d'usage, aussitôt effacée.
//!
//! Comment le reconnaître : la console de ce processus n'a que lui (`GetConsoleProcessList`
//! rend 1). Lancé depuis cmd, PowerShell ou Windows Terminal, le shell partage la console (2
//! ou plus) ; sans console du tout (un service, une redirection sans console), 0. Hors de
//! Windows, jamais : rien ne change dans un terminal.
//!
//! La décision ([`decider`]) est pure : le nombre de processus de la console et les arguments
//! en entrée, l'appel au système ([`processus_de_la_console`]) à part.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Ce que veut la bénévole qui a lancé `vigie.exe` depuis l'explorateur.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GesteDeLExplorateur {
    /// Un double clic (aucun argument) : un court guide, puis attendre Entrée.
    Guide,
    /// Un dossier déposé sur l'icône : le déposer, puis attendre Entrée.
    Deposer(PathBuf),
}

/// Le geste de l'explorateur qui a lancé ce processus, d'après ses arguments ; `None` dans un
/// terminal (ou hors de Windows) : la ligne de commande est lue comme toujours.
pub fn geste_de_l_explorateur() -> Option<GesteDeLExplorateur> {
    let arguments: Vec<OsString> = std::env::args_os().skip(1).collect();
    decider(processus_de_la_console(), &arguments, Path::is_dir)
}

/// La décision : `processus`, le nombre de processus attachés à la console (1 : lancé depuis
/// l'explorateur) ; `arguments`, ceux de la ligne de commande sans le nom du programme ;
/// `est_un_dossier`, si un chemin est un dossier existant.
fn decider(
    processus: u32,
    arguments: &[OsString],
    est_un_dossier: impl Fn(&Path) -> bool,
) -> Option<GesteDeLExplorateur> {
    if processus != 1 {
        return None;
    }
    match arguments {
        [] => Some(GesteDeLExplorateur::Guide),
        [seul] if est_un_dossier(Path::new(seul)) => {
            Some(GesteDeLExplorateur::Deposer(PathBuf::from(seul)))
        }
        _ => None,
    }
}

/// Le nombre de processus attachés à la console de ce processus (lui compris) ; 0 sans console,
/// et toujours hors de Windows.
fn processus_de_la_console() -> u32 {
    #[cfg(windows)]
    {
        console_windows()
    }
    #[cfg(not(windows))]
    {
        0
    }
}

#[cfg(windows)]
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : `GetConsoleProcessList`, que std ne
// donne pas.
#[allow(unsafe_code)]
fn console_windows() -> u32 {
    use windows_sys::Win32::System::Console::GetConsoleProcessList;
    let mut liste = [0u32; 4];
    // SAFETY : `liste` est un tableau local de 4 entrées, dont la taille est passée ; l'appel
    // y écrit au plus autant d'identifiants, et rend le nombre total (0 en cas d'échec).
    unsafe { GetConsoleProcessList(liste.as_mut_ptr(), liste.len() as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(mots: &[&str]) -> Vec<OsString> {
        mots.iter().map(OsString::from).collect()
    }

    /// Double clic : la console n'a que vigie, aucun argument → le guide. Un dossier déposé :
    /// un seul argument, un dossier existant → le dépôt de ce dossier.
    #[test]
    fn lance_depuis_l_explorateur() {
        let dossiers = |p: &Path| p == Path::new(r"E:\Carte SD 2026");
        assert_eq!(
            decider(1, &args(&[]), dossiers),
            Some(GesteDeLExplorateur::Guide)
        );
        assert_eq!(
            decider(1, &args(&[r"E:\Carte SD 2026"]), dossiers),
            Some(GesteDeLExplorateur::Deposer(PathBuf::from(
                r"E:\Carte SD 2026"
            )))
        );
    }

    /// Dans un terminal (le shell partage la console : 2 ou plus), sans console (0), ou avec
    /// d'autres arguments qu'un dossier existant : la ligne de commande, comme toujours.
    #[test]
    fn dans_un_terminal_rien_ne_change() {
        let tout_est_dossier = |_: &Path| true;
        for processus in [0, 2, 3] {
            assert_eq!(decider(processus, &args(&[]), tout_est_dossier), None);
            assert_eq!(decider(processus, &args(&["E:\\"]), tout_est_dossier), None);
        }
        let aucun_dossier = |_: &Path| false;
        // Un fichier déposé, ou un dossier qui n'existe plus.
        assert_eq!(decider(1, &args(&[r"E:\a.wav"]), aucun_dossier), None);
        // Une vraie commande, même depuis une console à soi (un raccourci, un script).
        assert_eq!(decider(1, &args(&["etat"]), aucun_dossier), None);
        assert_eq!(
            decider(1, &args(&["depot", "E:\\"]), tout_est_dossier),
            None
        );
        assert_eq!(decider(1, &args(&["--version"]), aucun_dossier), None);
    }
}
