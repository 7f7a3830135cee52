//! Provisoire : l'envoi arrive avec le moteur.
use anyhow::{Result, bail};

use super::depot::PlanPret;
use crate::cli::{ArgsRetenter, ArgsVerifier, OptionsEnvoi, OptionsGlobales, OptionsS3};
use crate::sortie::CodeSortie;

pub(super) fn envoyer(
    _g: &OptionsGlobales,
    _p: PlanPret,
    _e: &OptionsEnvoi,
    _s: &OptionsS3,
    _r: bool,
) -> Result<CodeSortie> {
    bail!("l'envoi n'est pas encore disponible : utilisez --simulation")
}
pub(super) fn retenter(_g: &OptionsGlobales, _a: ArgsRetenter) -> Result<CodeSortie> {
    bail!("pas encore disponible")
}
pub(super) fn verifier(_g: &OptionsGlobales, _a: ArgsVerifier) -> Result<CodeSortie> {
    bail!("pas encore disponible")
}
