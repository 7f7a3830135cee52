//! Un petit programme d'essai pour Windows : lance un programme comme le fait l'explorateur de
//! fichiers (double clic, ou dossier déposé sur l'icône), c'est-à-dire dans une **console
//! neuve, à lui seul** (`CREATE_NEW_CONSOLE`) : `GetConsoleProcessList` y rend 1. Ses entrée et
//! sorties standard restent celles de ce programme, pour que `scripts/verifier-paquets.sh`
//! (qui le compile pour x86_64-pc-windows-gnu, rustc seul, et le lance sous wine) lui donne
//! Entrée par un tube et lise ce qu'il écrit.
//!
//! Usage : lancer-comme-l-explorateur.exe PROGRAMME [ARGUMENT…]
//! Sort avec le code du programme lancé ; 2 s'il ne se lance pas.

use std::os::windows::process::CommandExt;

/// `CREATE_NEW_CONSOLE` (winbase.h) : le processus a sa propre console, comme lancé par
/// l'explorateur, au lieu de partager celle de son parent.
const CREATE_NEW_CONSOLE: u32 = 0x0000_0010;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(programme) = args.next() else {
        eprintln!("usage : lancer-comme-l-explorateur.exe PROGRAMME [ARGUMENT…]");
        std::process::exit(2);
    };
    match std::process::Command::new(&programme)
        .args(args)
        .creation_flags(CREATE_NEW_CONSOLE)
        .status()
    {
        Ok(fin) => std::process::exit(fin.code().unwrap_or(1)),
        Err(e) => {
            eprintln!("{} : {e}", programme.to_string_lossy());
            std::process::exit(2);
        }
    }
}
