//! Les cadences tirées des options, lues une fois et validées strictement (code 2 sinon) :
//! l'enchaînement des passages (`--jusqu-au-bout`, `--attente-passage…`) de `vigie depot` et
//! `vigie retenter-echecs`, et les relevés de `vigie traitement --attendre`
//! (`--attente-releve…`, `--echeance`, `--patience`). Chaque attente passe par
//! `duree::Secondes::attente` : positive, une semaine au plus.

use anyhow::Result;

use super::{ArgsTraitement, OptionsPassages};
use crate::depot::passages::ReglePassages;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::traitement::Cadence;

/// Une erreur d'usage (code 2).
fn usage(message: String) -> anyhow::Error {
    ErreurAvecCode::nouveau(CodeSortie::Usage, message).into()
}

// Le seul endroit du moteur des passages qui connaisse clap.
impl ReglePassages {
    /// La règle de l'enchaînement des passages tirée des options.
    pub(crate) fn depuis(o: &OptionsPassages) -> Result<ReglePassages> {
        ReglePassages::nouveau(
            o.jusqu_au_bout.is_some(),
            o.jusqu_au_bout.and_then(|j| j.limite),
            (o.attente_passage)
                .attente("attente-passage")
                .map_err(anyhow::Error::msg)?,
            (o.attente_passage_max)
                .attente("attente-passage-max")
                .map_err(anyhow::Error::msg)?,
        )
    }
}

impl ArgsTraitement {
    /// La cadence des relevés de `--attendre`, `None` sans lui.
    pub(crate) fn cadence(&self) -> Result<Option<Cadence>> {
        if !self.attendre {
            return Ok(None);
        }
        let premier = self
            .attente_releve
            .attente("attente-releve")
            .map_err(usage)?;
        let plafond = (self.attente_releve_max)
            .attente("attente-releve-max")
            .map_err(usage)?;
        Cadence::nouveau(premier, plafond, self.echeance, self.patience)
            .map(Some)
            .map_err(|e| usage(format!("--attente-releve : {e}")))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::cli::JusquAuBout;
    use crate::duree::Secondes;

    #[test]
    fn les_options_des_passages() {
        let options = |jusqu_au_bout, base: f64, max: f64| {
            ReglePassages::depuis(&OptionsPassages {
                jusqu_au_bout,
                attente_passage: Secondes(base),
                attente_passage_max: Secondes(max),
            })
        };
        for (base, max) in [(0.0, 10.0), (-1.0, 10.0), (f64::NAN, 10.0), (20.0, 10.0)] {
            assert!(options(None, base, max).is_err(), "{base} {max}");
        }
        assert!(options(None, 0.01, 0.02).is_ok());
        let limite = Some(JusquAuBout {
            limite: Some(Duration::from_secs(3600)),
        });
        assert!(options(limite, 30.0, 600.0).is_ok());
        let semaine_et_un_peu = options(None, 30.0, 7.0 * 86_400.0 + 1.0);
        assert!(semaine_et_un_peu.is_err());
    }

    /// La cadence de `vigie traitement MOTS…`, ou l'erreur et son code.
    fn cadence(mots: &str) -> Result<Option<Cadence>, (CodeSortie, String)> {
        let mots = std::iter::once("vigie traitement").chain(std::iter::once(mots));
        let mots: Vec<std::ffi::OsString> = mots
            .flat_map(str::split_whitespace)
            .map(Into::into)
            .collect();
        let crate::cli::Commande::Traitement(args) =
            crate::cli::Cli::analyser_depuis(mots).commande
        else {
            panic!("pas vigie traitement");
        };
        args.cadence()
            .map_err(|e| (crate::sortie::code_pour_erreur(&e), format!("{e:#}")))
    }

    #[test]
    fn la_cadence_des_releves() {
        assert!(cadence("").unwrap().is_none());
        let c = cadence("--attendre --patience 10min").unwrap().unwrap();
        assert_eq!(c.patience(), Duration::from_secs(600));
        // Un nombre seul compte en secondes, comme une durée avec son unité.
        assert!(cadence("--attendre --attente-releve 5 --attente-releve-max 1min").is_ok());
        for (mots, dit) in [
            ("--attente-releve 0", "--attente-releve 0 invalide"),
            (
                "--attente-releve-max 700000",
                "--attente-releve-max 700000 invalide",
            ),
            (
                "--attente-releve 60 --attente-releve-max 30",
                "--attente-releve : ",
            ),
        ] {
            let (code, message) = cadence(&format!("--attendre {mots}")).unwrap_err();
            assert_eq!(code, CodeSortie::Usage, "{mots}");
            assert!(message.contains(dit), "{mots} : {message}");
        }
    }
}
