//! Les codes de sortie : un contrat pour les scripts, repris dans la page de manuel.

use std::io::{self, Write};
use std::process::ExitCode;

use crate::plan::ErreurBase;

/// Le code de sortie d'un passage (contrat dit par la page de manuel, `man/vigie.1`).
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

impl CodeSortie {
    /// Le plus grave de deux codes (pour plusieurs participations ou plusieurs nuits) :
    /// 0 < 1 < 2 < 3 < 4 < 130.
    pub(crate) fn max_par_gravite(self, autre: CodeSortie) -> CodeSortie {
        let rang = |c: CodeSortie| match c {
            CodeSortie::Succes => 0,
            CodeSortie::EchecsTransitoires => 1,
            CodeSortie::Usage => 2,
            CodeSortie::RefusDefinitifs => 3,
            CodeSortie::PlanOccupe => 4,
            CodeSortie::Interrompu => 5,
        };
        if rang(autre) > rang(self) {
            autre
        } else {
            self
        }
    }
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
    pub(crate) code: CodeSortie,
    pub(crate) message: String,
    /// Les nuits d'une saison dont dépend le refus (`--json` : `nuits` de l'événement
    /// `erreur`) ; vide sinon.
    pub nuits: Vec<NuitNommee>,
}

/// Une nuit nommée par une erreur : ce que ses noms disent d'elle.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct NuitNommee {
    /// Le numéro de site tel qu'écrit dans les noms (`640139` de `Car640139`).
    pub(crate) numero_site: String,
    pub(crate) passage: u8,
    /// Le point (`A1`) ; null en routier.
    pub(crate) point: Option<String>,
    /// La soirée (AAAA-MM-JJ, à l'heure de l'enregistreur) ; null en routier.
    pub(crate) soiree: Option<String>,
}

impl ErreurAvecCode {
    pub(crate) fn nouveau(code: CodeSortie, message: impl Into<String>) -> Self {
        ErreurAvecCode {
            code,
            message: message.into(),
            nuits: Vec::new(),
        }
    }

    /// La même erreur, qui nomme les nuits dont elle dépend.
    pub(crate) fn avec_nuits(mut self, nuits: Vec<NuitNommee>) -> Self {
        self.nuits = nuits;
        self
    }
}

/// L'erreur d'une commande arrêtée par Ctrl-C ou SIGTERM (code 130).
pub(crate) fn interrompu() -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::Interrompu,
        "interrompu : rien n'est perdu, relancer la même commande reprend",
    )
    .into()
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

/// Une sortie que plus personne ne lit : un tube fermé (`vigie plans | head`, `vigie depot …
/// 2>&1 | head -1`), ou le terminal fermé (SIGHUP : l'écriture rend EIO sous Unix).
pub(crate) fn sortie_perdue(e: &io::Error) -> bool {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::EIO) {
        return true;
    }
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Une sortie (standard ou d'erreur) dont la perte n'arrête pas la commande : ce qui n'est plus
/// lu est perdu, pas le résultat. Une commande va donc au bout de ce qu'elle fait (un dépôt,
/// une vérification qui remet des fichiers à déposer) et rend **son** code de sortie, pas un
/// succès de complaisance ni une erreur d'affichage. Toute autre erreur d'écriture (disque
/// plein sous une sortie redirigée vers un fichier) reste une erreur.
pub struct SansEchec<W: Write>(W);

impl<W: Write> Write for SansEchec<W> {
    fn write(&mut self, octets: &[u8]) -> io::Result<usize> {
        match self.0.write(octets) {
            Err(e) if sortie_perdue(&e) => Ok(octets.len()),
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0.flush() {
            Err(e) if sortie_perdue(&e) => Ok(()),
            r => r,
        }
    }
}

/// La sortie standard (résultats, bilan, JSON), sous [`SansEchec`].
pub(crate) fn standard() -> SansEchec<io::StdoutLock<'static>> {
    SansEchec(io::stdout().lock())
}

/// La sortie d'erreur (statut, avertissements, erreurs), sous [`SansEchec`].
pub fn erreur() -> SansEchec<io::StderrLock<'static>> {
    SansEchec(io::stderr().lock())
}

// Les messages d'erreur du système (propres à chaque système) vivent dans `plateforme`.
pub(crate) use crate::plateforme::erreur_systeme;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn le_plus_grave_des_codes() {
        assert_eq!(
            CodeSortie::Succes.max_par_gravite(CodeSortie::EchecsTransitoires),
            CodeSortie::EchecsTransitoires
        );
        assert_eq!(
            CodeSortie::RefusDefinitifs.max_par_gravite(CodeSortie::EchecsTransitoires),
            CodeSortie::RefusDefinitifs
        );
        // L'ordre entier, dans les deux sens : 0 < 1 < 2 < 3 < 4 < 130.
        let ordre = [
            CodeSortie::Succes,
            CodeSortie::EchecsTransitoires,
            CodeSortie::Usage,
            CodeSortie::RefusDefinitifs,
            CodeSortie::PlanOccupe,
            CodeSortie::Interrompu,
        ];
        for (i, &a) in ordre.iter().enumerate() {
            for &b in &ordre[i..] {
                assert_eq!(a.max_par_gravite(b), b, "{a:?} puis {b:?}");
                assert_eq!(b.max_par_gravite(a), b, "{b:?} puis {a:?}");
            }
        }
    }

    /// Une écriture vers un lecteur parti (ou un terminal fermé) est perdue sans erreur ; une
    /// autre erreur d'écriture reste une erreur.
    #[test]
    fn une_sortie_perdue_n_est_pas_une_erreur() {
        struct Casse(io::ErrorKind);
        impl Write for Casse {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(self.0))
            }
            fn flush(&mut self) -> io::Result<()> {
                Err(io::Error::from(self.0))
            }
        }
        let mut tube = SansEchec(Casse(io::ErrorKind::BrokenPipe));
        assert!(writeln!(tube, "perdu").is_ok());
        assert!(tube.flush().is_ok());
        let mut plein = SansEchec(Casse(io::ErrorKind::StorageFull));
        assert!(writeln!(plein, "pas perdu").is_err());
        #[cfg(unix)]
        assert!(sortie_perdue(&io::Error::from_raw_os_error(libc::EIO)));
    }

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
