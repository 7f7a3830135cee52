//! `--jusqu-au-bout[=DURÉE]` : le câblage de l'enchaînement des passages (`depot::passages`,
//! où en sont les règles, le bilan de chaque plan et le code) : Ctrl-C relayé au suivi du
//! passage en cours, ce qui se dit (`suivi::passages`), le code de sortie.

use std::sync::Arc;

use anyhow::Result;

use super::ecouter_signaux;
use crate::cli::OptionsGlobales;
use crate::depot::passage::Envoi;
use crate::depot::passages::{code_de_la_course, enchainer as enchainer_passages, enchainer_plans};
use crate::plan::{Base, DepotPlan};
use crate::reessai::Annulation;
use crate::sortie::CodeSortie;
use crate::suivi::SuiviRelais;
use crate::suivi::passages::{VueDesPassages, dire_les_bilans};

pub(super) use crate::depot::passages::{PlanDeLaCourse as NuitDeLaCourse, ReglePassages};

/// Ctrl-C écouté (relayé au suivi du passage en cours), et ce que diront les passages
/// (`entete` : dit avant le passage de chaque plan d'une course).
fn ecouter<'a>(
    g: &OptionsGlobales,
    entete: Option<&'a dyn Fn(&DepotPlan)>,
) -> (Annulation, VueDesPassages<'a>) {
    let arret = Annulation::nouveau();
    let relais = Arc::new(SuiviRelais::default());
    ecouter_signaux(arret.clone(), Some(relais.clone()));
    let vue = VueDesPassages {
        json: g.json,
        silencieux: g.quiet,
        progression: g.progression.into(),
        relais,
        entete,
    };
    (arret, vue)
}

/// Les passages d'une commande (un seul sans `--jusqu-au-bout`), puis le bilan et le code de
/// sortie.
pub(super) async fn enchainer(
    g: &OptionsGlobales,
    regle: &ReglePassages,
    envoi: &Envoi<'_>,
    base: Base,
    plan: DepotPlan,
) -> Result<CodeSortie> {
    let (arret, vue) = ecouter(g, None);
    let (bilan, fin) = enchainer_passages(regle, (envoi, &vue), arret, base, plan).await?;
    dire_les_bilans(
        g.json,
        &[(Some(&bilan), envoi.destination)],
        fin.as_ref(),
        true,
    );
    Ok(code_de_la_course(&[Some(bilan)]))
}

/// Les nuits d'une saison en **une seule course** (voir `depot::passages::enchainer_plans`) :
/// chaque passage envoie toutes les nuits qui ont encore à tenter, dans l'ordre, `entete` dit
/// avant chacune ; puis le bilan de chaque nuit. Le code : le pire des nuits (130 sur Ctrl-C).
pub(super) async fn enchainer_saison(
    g: &OptionsGlobales,
    regle: &ReglePassages,
    nuits: &[NuitDeLaCourse<'_, '_>],
    base: Base,
    entete: &dyn Fn(&DepotPlan),
) -> Result<CodeSortie> {
    let (arret, vue) = ecouter(g, Some(entete));
    let (bilans, fin) = enchainer_plans(regle, &vue, arret, base, nuits).await?;
    let dits: Vec<_> = (nuits.iter().zip(&bilans))
        .map(|(n, b)| (b.as_ref(), n.envoi.destination))
        .collect();
    dire_les_bilans(g.json, &dits, fin.as_ref(), false);
    Ok(code_de_la_course(&bilans))
}
