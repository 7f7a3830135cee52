//! `--jusqu-au-bout[=DURÉE]` : le câblage de l'enchaînement des passages
//! (`depot::passages`, où en sont les règles) : les réglages de la ligne de commande, Ctrl-C,
//! le suivi de chaque passage, ses lignes et le bilan final, le code de sortie.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::ecouter_signaux;
use super::envoi::{Envoi, afficher_bilan, passage};
use crate::cli::OptionsGlobales;
use crate::depot::Bilan;
use crate::depot::passages::{
    IssuePassage, Passages, PlanDeLaCourse, enchainer as enchainer_passages, enchainer_plans,
};
use crate::plan::{Base, DepotPlan};
use crate::reessai::Annulation;
use crate::sortie::CodeSortie;
use crate::suivi::{Suivi, SuiviRelais, liberer_terminal};

pub(super) use crate::depot::passages::ReglePassages;

/// Les passages d'une commande vus par `vigie` : l'envoi de chaque plan, un suivi neuf par
/// passage (relayé aux signaux), une ligne par passage.
struct PassagesDeLaCommande<'a, 'e> {
    g: &'a OptionsGlobales,
    /// L'envoi de chaque plan : un seul hors saison ; en saison, celui de chaque nuit (mêmes
    /// réglages, même seau `--debit-max`, participation propre).
    envois: Vec<(i64, &'a Envoi<'e>)>,
    /// L'en-tête dit avant le passage d'un plan (les nuits d'une saison).
    entete: Option<&'a dyn Fn(&DepotPlan)>,
    relais: Arc<SuiviRelais>,
}

impl<'a, 'e> PassagesDeLaCommande<'a, 'e> {
    fn envoi(&self, plan: i64) -> &'a Envoi<'e> {
        self.envois
            .iter()
            .find(|(id, _)| *id == plan)
            .or(self.envois.first())
            .map(|(_, e)| *e)
            .expect("au moins un envoi")
    }
}

impl Passages for PassagesDeLaCommande<'_, '_> {
    fn attente_reseau(&self) -> Option<Duration> {
        self.envois.first().and_then(|(_, e)| e.attente_reseau())
    }

    fn suivi(&self) -> Arc<dyn Suivi> {
        let suivi = crate::suivi::choisir(self.g.json, self.g.quiet, self.g.progression.into());
        self.relais.remplacer(Arc::clone(&suivi));
        suivi
    }

    fn commencer(&self, plan: &DepotPlan) {
        if let Some(entete) = self.entete {
            entete(plan);
        }
    }

    async fn passage(
        &self,
        base: Base,
        plan: DepotPlan,
        arret: Annulation,
        suivi: Arc<dyn Suivi>,
        attente_reseau: Option<Duration>,
    ) -> Result<Bilan> {
        let envoi = self.envoi(plan.id);
        // En boîte : l'avenir d'un passage est grand, celui de l'enchaînement le contient.
        Box::pin(passage(envoi, base, plan, arret, suivi, attente_reseau)).await
    }

    fn annoncer_passage(&self, numero: u32, issue: &IssuePassage<'_>, prochain: Option<Duration>) {
        garder_le_code(annoncer_passage(self.g, numero, issue, prochain));
    }

    fn liberer_terminal(&self) {
        liberer_terminal();
    }
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
    let arret = Annulation::nouveau();
    let relais = Arc::new(SuiviRelais::default());
    ecouter_signaux(arret.clone(), Some(relais.clone()));
    let passages = PassagesDeLaCommande {
        g,
        envois: vec![(plan.id, envoi)],
        entete: None,
        relais,
    };
    let (bilan, fin) = enchainer_passages(regle, &passages, arret, base, plan).await?;
    garder_le_code(afficher_bilan(
        g,
        &bilan,
        envoi.destination,
        fin.as_ref(),
        true,
    ));
    Ok(if bilan.interrompu {
        CodeSortie::Interrompu
    } else {
        CodeSortie::du_plan(&bilan.resume)
    })
}

/// Une nuit de la course d'une saison : son plan, son envoi, et si elle part dès le premier
/// passage (une nuit dont la participation n'a pas pu être créée attend le suivant).
pub(super) struct NuitDeLaCourse<'a, 'e> {
    pub(crate) plan: DepotPlan,
    pub(crate) envoi: &'a Envoi<'e>,
    pub(crate) des_le_premier_passage: bool,
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
    let arret = Annulation::nouveau();
    let relais = Arc::new(SuiviRelais::default());
    ecouter_signaux(arret.clone(), Some(relais.clone()));
    let passages = PassagesDeLaCommande {
        g,
        envois: nuits.iter().map(|n| (n.plan.id, n.envoi)).collect(),
        entete: Some(entete),
        relais,
    };
    let plans: Vec<PlanDeLaCourse> = nuits
        .iter()
        .map(|n| PlanDeLaCourse {
            plan: n.plan.clone(),
            des_le_premier_passage: n.des_le_premier_passage,
        })
        .collect();
    let (bilans, fin) = enchainer_plans(regle, &passages, arret, base, &plans).await?;
    // La fin des passages est dite une fois, avec le dernier bilan.
    let dernier = bilans.iter().rposition(Option::is_some);
    let mut code = CodeSortie::Succes;
    let mut interrompu = false;
    for (i, (nuit, bilan)) in nuits.iter().zip(&bilans).enumerate() {
        let Some(b) = bilan else { continue };
        let fin = fin.as_ref().filter(|_| Some(i) == dernier);
        // Sans « Ensuite » par nuit : la suite est dite une fois, pour toute la saison, par
        // le bilan de la saison (`suivi::reprise`).
        garder_le_code(afficher_bilan(g, b, nuit.envoi.destination, fin, false));
        interrompu |= b.interrompu;
        code = code.max_par_gravite(CodeSortie::du_plan(&b.resume));
    }
    Ok(if interrompu {
        CodeSortie::Interrompu
    } else {
        code
    })
}

/// Le bilan n'a pas pu être écrit (disque plein sous une sortie redirigée ; un lecteur parti
/// ne compte pas, voir `sortie::SansEchec`) : le dépôt, lui, a eu lieu, et son code de sortie
/// reste le sien. On le dit sur la sortie d'erreur, si elle l'accepte ; `vigie etat` redonne
/// l'état du plan.
fn garder_le_code(affichage: Result<()>) {
    if let Err(e) = affichage {
        crate::suivi::passages::bilan_non_ecrit(&e);
    }
}

/// La ligne de bilan d'un passage (`suivi/passages.rs`).
fn annoncer_passage(
    g: &OptionsGlobales,
    numero: u32,
    issue: &IssuePassage<'_>,
    prochain: Option<Duration>,
) -> Result<()> {
    crate::suivi::passages::annoncer_passage(g.json, numero, issue, prochain)?;
    Ok(())
}
