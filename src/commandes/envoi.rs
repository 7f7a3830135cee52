//! `vigie verifier` câblé : la relecture demandée à la fabrique de la destination
//! (`depot::relecture::verifier`), le moteur, écouter Ctrl-C, dire chaque constat et le bilan.
//! L'envoi d'un plan (`Envoi`) est mené par `depot::passage` ; ce module le réexporte pour
//! `commandes/depot.rs` et `commandes/saison.rs`, qui le construisent.

use std::sync::Arc;

use anyhow::Result;

use super::{Fils, ecouter_signaux, interrompu, moteur, ouvrir_base_existante};
use crate::cli::{ArgsVerifier, OptionsGlobales};
use crate::depot::fabrique::Destination;
pub(super) use crate::depot::passage::Envoi;
use crate::depot::relecture::{verification, verifier};
use crate::plan::{EtatUnite, VerrouPlan};
use crate::reessai::Annulation;
use crate::sortie::CodeSortie;
use crate::suivi::Suivi;
use crate::transport::Emetteur;

/// `vigie verifier [NUIT…]` : chaque nuit de la saison du dernier dépôt (ou les nuits
/// nommées, ou le plan hors saison du dernier dépôt), l'une après l'autre ; le code est celui
/// de la plus mal lotie.
pub(super) fn verifier(g: &OptionsGlobales, args: ArgsVerifier) -> Result<CodeSortie> {
    let base = ouvrir_base_existante(g)?;
    let plans = crate::saison::designation::viser(&base, &args.nuits.nuits, false)?.plans();
    let mut code = CodeSortie::Succes;
    for (plan, nuit) in plans {
        code = code.max_par_gravite(verifier_un(g, &args, &base, plan, nuit.as_deref())?);
    }
    Ok(code)
}

/// `vigie verifier` d'un plan : ce que la destination dit de chaque unité déposée, noté dans
/// le plan ; `nuit` : sa désignation, pour une nuit de saison.
fn verifier_un(
    g: &OptionsGlobales,
    args: &ArgsVerifier,
    base: &crate::plan::Base,
    plan: i64,
    nuit: Option<&str>,
) -> Result<CodeSortie> {
    let plan = base.plan(Some(plan))?;
    let libelle = nuit.map_or_else(|| plan.id.to_string(), |n| format!("de la nuit {n}"));
    let _verrou = VerrouPlan::prendre(base.chemin(), &plan.dossier, &plan.destination, &libelle)?;
    let destination = Destination::du_plan(&plan)?;
    let endpoint = args.s3.endpoint_url.as_deref();
    crate::suivi::depot::endpoint_ignore(plan.id, &destination, endpoint);
    let deposees = base.unites(plan.id, &[EtatUnite::Deposee])?;
    let emission = args.reessai.reglages_emission()?;
    if !deposees.is_empty() {
        let (lectures, rien_fait) = (|| Ok(emission.clone()), "rien n'a été vérifié");
        super::vigiechiro::verifier_si_plateforme(g, &destination, lectures, rien_fait)?;
    }
    let rt = moteur(Fils::Plusieurs)?;
    let annulation = Annulation::nouveau();
    let emetteur = Arc::new(Emetteur::nouveau(emission, annulation.clone()));
    let constats = if deposees.is_empty() {
        Vec::new()
    } else {
        rt.block_on(async {
            let suivi: Arc<dyn Suivi> =
                crate::suivi::choisir(g.json, g.quiet, g.progression.into());
            ecouter_signaux(annulation.clone(), Some(Arc::clone(&suivi)));
            let acces = args.s3.acces();
            verifier::constater_le_plan(&destination, &plan, deposees, acces, &emetteur, &*suivi)
                .await
        })?
    };
    crate::suivi::liberer_terminal();
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    let bilan = verification::noter(base, &constats, |unite, constat| {
        Ok(crate::suivi::verification::constat(g.json, unite, constat)?)
    })?;
    let geste_refus = destination.geste_relecture_refusee();
    crate::suivi::verification::bilan(g.json, plan.id, nuit, &bilan, &geste_refus)?;
    if bilan.interrompue {
        return Err(interrompu());
    }
    Ok(bilan.code())
}
