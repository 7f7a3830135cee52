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
    /// Le code de sortie que mérite l'état d'un plan.
    pub(crate) fn du_plan(r: &crate::plan::ResumePlan) -> CodeSortie {
        if r.definitifs > 0 {
            CodeSortie::RefusDefinitifs
        } else if r.deposee == r.total() {
            CodeSortie::Succes
        } else {
            CodeSortie::EchecsTransitoires
        }
    }

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

/// Ce qu'est un plan arrêté avant la fin (Ctrl-C, SIGTERM, `--jusqu-au-bout` écoulé) :
/// interrompu, pas abandonné. Dit de même partout : l'erreur ci-dessous, l'aide
/// (`cli::APRES_AIDE`), la page de manuel (`cli/docs.rs`), le bilan (`suivi/bilan.rs`).
/// Des macros, pour entrer dans les `concat!` de ces textes constants.
macro_rules! plan_a_jour {
    () => {
        "le plan est à jour"
    };
}
pub(crate) use plan_a_jour;

/// Ce que veut dire le code 130 : [`plan_a_jour`], et le geste.
macro_rules! sens_du_code_interrompu {
    () => {
        concat!($crate::sortie::plan_a_jour!(), ", relancer reprend")
    };
}
pub(crate) use sens_du_code_interrompu;

/// L'erreur d'une commande arrêtée par Ctrl-C ou SIGTERM (code 130).
pub(crate) fn interrompu() -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::Interrompu,
        concat!("interrompu : ", sens_du_code_interrompu!()),
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
///
/// Sur un terminal, chaque ligne y est habillée à sa largeur ([`habiller`]) : c'est le seul
/// endroit où se replient les messages écrits pour l'utilisateur. Une sortie redirigée, le
/// JSON ([`standard_brute`]) passent tels quels.
pub struct SansEchec<W: Write> {
    sortie: W,
    /// La largeur où habiller les lignes (un terminal), ou rien (une sortie redirigée).
    largeur: Option<usize>,
    /// Le début d'une ligne pas encore finie.
    tampon: Vec<u8>,
}

impl<W: Write> SansEchec<W> {
    fn nouveau(sortie: W, largeur: Option<usize>) -> Self {
        SansEchec {
            sortie,
            largeur,
            tampon: Vec::new(),
        }
    }

    fn ecrire_tout(&mut self, octets: &[u8]) -> io::Result<()> {
        match self.sortie.write_all(octets) {
            Err(e) if sortie_perdue(&e) => Ok(()),
            r => r,
        }
    }

    /// Écrit les lignes finies du tampon, habillées ; `tout` : aussi la ligne commencée.
    fn vider(&mut self, tout: bool) -> io::Result<()> {
        let Some(largeur) = self.largeur else {
            return Ok(());
        };
        let fin = if tout {
            self.tampon.len()
        } else {
            match self.tampon.iter().rposition(|&o| o == b'\n') {
                Some(i) => i + 1,
                None => return Ok(()),
            }
        };
        let pret: Vec<u8> = self.tampon.drain(..fin).collect();
        let texte = String::from_utf8_lossy(&pret);
        let mut habille = String::with_capacity(texte.len());
        for (i, ligne) in texte.split('\n').enumerate() {
            if i > 0 {
                habille.push('\n');
            }
            habille.push_str(&habiller(ligne, largeur).join("\n"));
        }
        self.ecrire_tout(habille.as_bytes())
    }
}

impl<W: Write> Write for SansEchec<W> {
    fn write(&mut self, octets: &[u8]) -> io::Result<usize> {
        if self.largeur.is_none() {
            return match self.sortie.write(octets) {
                Err(e) if sortie_perdue(&e) => Ok(octets.len()),
                r => r,
            };
        }
        self.tampon.extend_from_slice(octets);
        self.vider(false)?;
        Ok(octets.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.vider(true)?;
        match self.sortie.flush() {
            Err(e) if sortie_perdue(&e) => Ok(()),
            r => r,
        }
    }
}

impl<W: Write> Drop for SansEchec<W> {
    fn drop(&mut self) {
        // Une ligne commencée sans fin (une invite) part telle quelle.
        let _ = self.flush();
    }
}

/// La largeur où habiller ce qui s'écrit sur `terminal`, si c'en est un : une colonne de
/// moins que lui (certains terminaux passent à la ligne en écrivant la dernière colonne).
fn largeur_d_habillage(terminal: &console::Term) -> Option<usize> {
    terminal
        .size_checked()
        .map(|(_, colonnes)| usize::from(colonnes).saturating_sub(1))
}

/// La sortie standard (résultats, bilan), sous [`SansEchec`], habillée sur un terminal.
pub fn standard() -> SansEchec<io::StdoutLock<'static>> {
    SansEchec::nouveau(
        io::stdout().lock(),
        largeur_d_habillage(&console::Term::stdout()),
    )
}

/// La sortie standard telle quelle, même sur un terminal : le JSON, les scripts de
/// complétion, ce qu'un programme relit.
pub(crate) fn standard_brute() -> SansEchec<io::StdoutLock<'static>> {
    SansEchec::nouveau(io::stdout().lock(), None)
}

/// La sortie d'erreur (statut, avertissements, erreurs), sous [`SansEchec`], habillée sur un
/// terminal.
pub fn erreur() -> SansEchec<io::StderrLock<'static>> {
    SansEchec::nouveau(
        io::stderr().lock(),
        largeur_d_habillage(&console::Term::stderr()),
    )
}

/// Une ligne habillée à `largeur` colonnes : repliée entre deux mots, jamais au milieu d'un
/// mot (une adresse, un chemin, un nom trop long dépasse plutôt que d'être coupé), les lignes
/// suivantes en retrait de la première et de quatre espaces. Sous 20 colonnes, rien n'est
/// replié. Le seul habillage de `vigie` : les barres (`suivi`) et les sorties ([`SansEchec`])
/// s'en servent.
pub(crate) fn habiller(ligne: &str, largeur: usize) -> Vec<String> {
    if largeur < 20 || textwrap::core::display_width(ligne) <= largeur {
        return vec![ligne.to_owned()];
    }
    let retrait: String = ligne.chars().take_while(|c| *c == ' ').collect();
    let suite = format!("{retrait}    ");
    let options = textwrap::Options::new(largeur)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit)
        .initial_indent(&retrait)
        .subsequent_indent(&suite);
    textwrap::wrap(ligne.trim_start_matches(' '), options)
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect()
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
        let mut tube = SansEchec::nouveau(Casse(io::ErrorKind::BrokenPipe), None);
        assert!(writeln!(tube, "perdu").is_ok());
        assert!(tube.flush().is_ok());
        let mut plein = SansEchec::nouveau(Casse(io::ErrorKind::StorageFull), None);
        assert!(writeln!(plein, "pas perdu").is_err());
        #[cfg(unix)]
        assert!(sortie_perdue(&io::Error::from_raw_os_error(libc::EIO)));
    }

    /// Des messages longs (ceux que l'on voyait coupés au milieu d'un mot, « copie/z »,
    /// « jeto/n », « déce/mbre ») habillés à 80 puis 60 colonnes : chaque ligne tient, aucun
    /// mot n'est coupé, aucun n'est perdu, le retrait est gardé.
    #[test]
    fn un_message_long_est_habille_sans_couper_un_mot() {
        let messages = [
            "erreur : le jeton enregistré est refusé par la plateforme (401) : reconnectez-vous \
             avec vigie connexion --jeton - et collez le jeton copié depuis le site Vigie-Chiro",
            "  → corrigez-les d'une commande : vigie renommer /media/carte/2026/Car640139 puis \
             relancez le dépôt ; rien n'a été envoyé et aucun plan n'a été créé ci-dessus",
            "Plan 3 : la participation de la nuit du 21 décembre sera créée au premier passage, \
             après le retour du réseau (nouvelle tentative dans 30 s)",
        ];
        for largeur in [79, 59] {
            for message in messages {
                let lignes = habiller(message, largeur);
                assert!(lignes.len() > 1, "{largeur} : {lignes:?}");
                for l in &lignes {
                    assert!(l.chars().count() <= largeur, "{largeur} : {l:?}");
                }
                let mots = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
                assert_eq!(mots(&lignes.join(" ")), mots(message), "{largeur}");
                let retrait = message.chars().take_while(|c| *c == ' ').count();
                assert!(
                    lignes[1..]
                        .iter()
                        .all(|l| l.starts_with(&" ".repeat(retrait + 4))),
                    "{lignes:?}"
                );
            }
        }
        // Un mot plus long que la place (une adresse) reste entier.
        let adresse = format!("voir https://{}/fin", "x".repeat(70));
        assert!(
            habiller(&adresse, 59)
                .iter()
                .any(|l| l.contains(&adresse[5..]))
        );
    }

    /// Sur un terminal, une ligne écrite en plusieurs fois est habillée une fois finie ; une
    /// sortie redirigée passe telle quelle.
    #[test]
    fn la_sortie_habille_les_lignes_finies() {
        let mut tampon = Vec::new();
        {
            let mut s = SansEchec::nouveau(&mut tampon, Some(30));
            write!(s, "un message assez long pour être ").unwrap();
            writeln!(s, "replié deux fois au moins, sans couper").unwrap();
            write!(s, "invite : ").unwrap();
        }
        let texte = String::from_utf8(tampon).unwrap();
        assert!(texte.lines().all(|l| l.chars().count() <= 30), "{texte}");
        assert!(texte.ends_with("\ninvite : "), "{texte:?}");
        let mut brut = Vec::new();
        writeln!(SansEchec::nouveau(&mut brut, None), "{}", "mot ".repeat(40)).unwrap();
        assert_eq!(brut.iter().filter(|&&o| o == b'\n').count(), 1);
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
