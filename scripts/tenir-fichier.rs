//! Un petit programme d'essai pour Windows : tient un fichier ouvert **sans partage** (comme un
//! lecteur audio, l'aperçu de l'explorateur ou un antivirus qui l'examine) pendant un nombre
//! de secondes donné, puis le rend. `scripts/verifier-paquets.sh` le compile pour
//! x86_64-pc-windows-gnu (rustc seul, sans dépendance) et le lance sous wine à côté de
//! `vigie.exe`, pour voir ce que vigie fait d'un fichier tenu.
//!
//! Usage : tenir-fichier.exe FICHIER SECONDES
//! Écrit « tenu » sur la sortie standard une fois le fichier ouvert, « rendu » quand il le
//! lâche ; code 2 si le fichier ne s'ouvre pas.

use std::io::Write;
use std::os::windows::fs::OpenOptionsExt;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(fichier), Some(secondes)) = (args.get(1), args.get(2)) else {
        eprintln!("usage : tenir-fichier.exe FICHIER SECONDES");
        std::process::exit(2);
    };
    let Ok(secondes) = secondes.parse::<u64>() else {
        eprintln!("SECONDES : un nombre entier, pas « {secondes} »");
        std::process::exit(2);
    };
    // share_mode(0) : ni lecture, ni écriture, ni suppression partagées ; tout autre
    // programme qui l'ouvre reçoit ERROR_SHARING_VIOLATION (32).
    let tenu = match std::fs::OpenOptions::new()
        .read(true)
        .share_mode(0)
        .open(fichier)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{fichier} : {e}");
            std::process::exit(2);
        }
    };
    println!("tenu");
    let _ = std::io::stdout().flush();
    std::thread::sleep(Duration::from_secs(secondes));
    drop(tenu);
    println!("rendu");
}
