//! Les codes de sortie : un contrat pour les scripts, repris dans la page de manuel.

use std::process::ExitCode;

use crate::plan::ErreurBase;

/// Le code de sortie d'un passage (voir `CONCEPTION.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CodeSortie {
    /// Toutes les unités du plan sont déposées.
    Succes = 0,
    /// Le passage est fini mais des unités restent en échec transitoire.
    EchecsTransitoires = 1,
    /// Usage ou configuration invalide : rien n'a été envoyé.
    Usage = 2,
    /// Des unités sont refusées définitivement : un geste humain est nécessaire.
    RefusDefinitifs = 3,
    /// Le plan est déjà en cours de traitement par un autre `vigie`.
    PlanOccupe = 4,
    /// Interrompu (SIGINT/SIGTERM) : le plan est à jour, relancer reprend.
    Interrompu = 130,
}

impl From<CodeSortie> for ExitCode {
    fn from(c: CodeSortie) -> ExitCode {
        ExitCode::from(c as u8)
    }
}

/// Une erreur qui porte son code de sortie (réseau indisponible avant tout envoi : 1 ; refus
/// définitif de la plateforme : 3).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ErreurAvecCode {
    pub code: CodeSortie,
    pub message: String,
}

impl ErreurAvecCode {
    pub fn new(code: CodeSortie, message: impl Into<String>) -> Self {
        ErreurAvecCode {
            code,
            message: message.into(),
        }
    }
}

/// Le code d'une erreur qui arrête la commande : celui qu'elle porte, 4 si un autre `vigie`
/// tient le plan, 2 sinon (tout ce qui arrête avant l'envoi est de l'usage ou de la
/// configuration).
pub fn code_pour_erreur(e: &anyhow::Error) -> CodeSortie {
    if let Some(c) = e.chain().find_map(|c| c.downcast_ref::<ErreurAvecCode>()) {
        return c.code;
    }
    let occupe = e.chain().any(|c| {
        matches!(
            c.downcast_ref::<ErreurBase>(),
            Some(ErreurBase::PlanOccupe { .. })
        )
    });
    if occupe {
        CodeSortie::PlanOccupe
    } else {
        CodeSortie::Usage
    }
}

/// Un tube fermé (`vigie plans | head`) n'est pas une erreur.
pub fn est_tube_ferme(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

// Les messages d'erreur du système (propres à chaque système) vivent dans `plateforme`.
pub use crate::plateforme::erreur_systeme;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erreurs_du_systeme_en_francais_sans_repetition() {
        let e = std::io::Error::from_raw_os_error(13);
        assert_eq!(
            erreur_systeme(&e),
            "permission refusée (vérifiez les droits) (code 13)"
        );
        assert_eq!(
            erreur_systeme(&std::io::Error::from_raw_os_error(28)),
            "disque plein (code 28)"
        );
        assert_eq!(
            erreur_systeme(&std::io::Error::from_raw_os_error(40)),
            "c'est un lien symbolique, qui n'est pas suivi : donnez le chemin du fichier lui-même (code 40)"
        );
        let propre = std::io::Error::other("le fichier a changé");
        assert_eq!(erreur_systeme(&propre), "le fichier a changé");
    }
}
