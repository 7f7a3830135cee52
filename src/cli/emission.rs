//! Ce que les options d'envoi donnent aux couches d'en dessous, lu une fois : les réglages
//! d'émission (politiques de réessai, délais, pause réseau), validés strictement (code 2
//! sinon), et l'accès aux destinations (`--region`, `--profil`). Pour `vigie depot`,
//! `vigie retenter-echecs` et `vigie verifier`.

use std::time::Duration;

use anyhow::{Context, Result};

use super::{OptionsEnvoi, OptionsReessai, OptionsS3};
use crate::depot::fabrique::{Acces, ReglagesDestination};
use crate::depot::passage::ParametresEnvoi;
use crate::reessai::{Profil, Reglages, ReglagesEnSecondes};
use crate::transport::{PauseReseau, ReglagesEmission};

const UN_JOUR: Duration = Duration::from_secs(86_400);

/// Une durée d'option en secondes, positive et sous `max`, ou une erreur qui le dit (code 2).
fn duree(nom: &str, secondes: f64, max: Duration) -> Result<Duration> {
    if !(secondes.is_finite() && secondes > 0.0 && secondes < max.as_secs_f64()) {
        anyhow::bail!(
            "--{nom} {secondes} invalide : une durée en secondes, positive et inférieure à {} s",
            max.as_secs()
        );
    }
    Ok(Duration::from_secs_f64(secondes))
}

impl OptionsReessai {
    /// Les politiques et délais tirés des options, validés strictement (code 2 sinon).
    pub(crate) fn reglages_emission(&self) -> Result<ReglagesEmission> {
        let bruts = ReglagesEnSecondes {
            tentatives_max: Some(self.tentatives),
            base_s: Some(self.attente_base.en_f64()),
            plafond_s: Some(self.attente_max.en_f64()),
            echeance_s: Some(self.echeance.en_f64()),
            ..Default::default()
        };
        let insistant = Reglages::depuis_secondes(Profil::Insistant, &bruts)
            .and_then(Reglages::valider)
            .context("réglages de réessai invalides")?;
        let bref = Reglages::bref().valider().context("profil BREF")?;
        Ok(ReglagesEmission {
            insistant,
            bref,
            delai_tentative: duree("delai-tentative", self.delai_tentative.en_f64(), UN_JOUR)?,
            delai_blocage: duree("delai-blocage", self.delai_blocage.en_f64(), UN_JOUR)?,
            pause: Some(PauseReseau {
                echecs: self.echecs_reseau,
                attente_max: self
                    .attente_reseau
                    .map(|s| duree("attente-reseau", s.en_f64(), 7 * UN_JOUR))
                    .transpose()?,
            }),
        })
    }
}

impl OptionsEnvoi {
    /// Ce que ces options règlent pour les passages d'une commande (`s3` : l'accès aux
    /// destinations), validé (code 2 sinon).
    pub(crate) fn parametres(&self, s3: &OptionsS3) -> Result<ParametresEnvoi> {
        Ok(ParametresEnvoi {
            emission: self.reessai.reglages_emission()?,
            paralleles: usize::from(self.paralleles),
            debit_max: self.debit_max,
            reglages: ReglagesDestination {
                acces: s3.acces(),
                seuil_multipart_mio: self.seuil_multipart,
                taille_partie_mio: self.taille_partie,
            },
        })
    }
}

impl OptionsS3 {
    /// Comment joindre la destination : `--region`, `--profil`.
    pub(crate) fn acces(&self) -> Acces {
        Acces {
            region: self.region.clone(),
            profil: self.profil.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Par défaut, la pause réseau n'a pas de limite : un portable laissé seul sur un
    /// téléphone qui capte mal insiste toute la nuit ; `--attente-reseau` en pose une.
    #[test]
    fn par_defaut_la_pause_reseau_n_a_pas_de_limite() {
        use clap::Parser;
        let reglages = |args: &[&str]| {
            let cli = crate::cli::Cli::try_parse_from(
                ["vigie", "depot", "/nuit", "--vers", "s3://nuits/p"]
                    .iter()
                    .chain(args),
            )
            .expect("ligne de commande valide");
            let crate::cli::Commande::Depot(depot) = cli.commande else {
                panic!("vigie depot attendu");
            };
            depot
                .envoi
                .reessai
                .reglages_emission()
                .expect("réglages valides")
                .pause
                .expect("un dépôt a une pause réseau")
        };
        assert_eq!(reglages(&[]).attente_max, None);
        assert_eq!(reglages(&[]).echecs, 2);
        assert_eq!(
            reglages(&["--attente-reseau", "600"]).attente_max,
            Some(Duration::from_secs(600))
        );
        let cli = crate::cli::Cli::try_parse_from([
            "vigie",
            "depot",
            "/nuit",
            "--vers",
            "s3://nuits/p",
            "--attente-reseau",
            "0",
        ])
        .expect("analysée");
        let crate::cli::Commande::Depot(depot) = cli.commande else {
            panic!("vigie depot attendu");
        };
        assert!(depot.envoi.reessai.reglages_emission().is_err());
    }
}
