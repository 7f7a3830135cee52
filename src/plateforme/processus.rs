//! Le processus enfant de `vigie demo`, et la façon de lui faire suivre un Ctrl-C.
//!
//! Sous Unix, l'enfant est mis dans son propre groupe : un Ctrl-C du terminal n'atteint que le
//! parent, qui le transmet une fois par `kill` (deux Ctrl-C coupent net un dépôt, pas un seul).
//! Sous Windows, la console envoie Ctrl-C à tous les processus qui la partagent : l'enfant le
//! reçoit lui-même, en même temps que le parent, et il n'y a rien à transmettre (un Ctrl-C
//! arrivé juste avant le lancement de l'enfant ne lui parvient donc pas : le parent, lui, l'a
//! noté).

use std::process::Command;

use super::signaux::DemandeArret;

/// Prépare la commande d'un enfant dont le parent relaie les demandes d'arrêt.
pub(crate) fn relayer_les_arrets(commande: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        commande.process_group(0);
    }
    commande
}

/// Fait suivre une demande d'arrêt à l'enfant `pid` (0 : aucun) ; faux si c'était nécessaire
/// et que cela a échoué.
pub(crate) fn transmettre(pid: u32, demande: DemandeArret) -> bool {
    if pid == 0 {
        return true;
    }
    #[cfg(unix)]
    {
        use std::process::Stdio;
        let nom = match demande {
            DemandeArret::Interruption => "-INT",
            DemandeArret::Terminaison => "-TERM",
        };
        // Par la commande `kill` : la bibliothèque standard ne sait envoyer que SIGKILL.
        Command::new("kill")
            .arg(nom)
            .arg(pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
    #[cfg(not(unix))]
    {
        let _ = demande;
        true
    }
}
