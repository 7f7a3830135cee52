//! `--jusqu-au-bout[=DURÉE]` : le câblage de l'enchaînement des passages
//! (`depot::passages`, où en sont les règles) : les réglages de la ligne de commande, Ctrl-C,
//! le suivi de chaque passage, ses lignes et le bilan final, le code de sortie.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::ecouter_signaux;
use super::envoi::{Envoi, afficher_bilan, passage};
use super::etat::code_du_plan;
use crate::cli::{OptionsGlobales, OptionsPassages};
use crate::depot::Bilan;
use crate::depot::passages::{IssuePassage, Passages, enchainer as enchainer_passages};
use crate::plan::{Base, DepotPlan};
use crate::reessai::Annulation;
use crate::sortie::CodeSortie;
use crate::suivi::passages::{ligne_passage, passage_json};
use crate::suivi::{Suivi, SuiviRelais, liberer_terminal};

pub(super) use crate::depot::passages::ReglePassages;

// Les réglages tirés de la ligne de commande : le seul endroit du moteur des passages qui
// connaisse clap.
impl ReglePassages {
    /// Les réglages de la ligne de commande, validés strictement (code 2 sinon).
    pub(super) fn depuis(o: &OptionsPassages) -> Result<ReglePassages> {
        ReglePassages::nouvelle(
            o.jusqu_au_bout.is_some(),
            o.jusqu_au_bout.and_then(|j| j.limite),
            o.attente_passage,
            o.attente_passage_max,
        )
    }
}

/// Les passages d'une commande vus par `vigie` : l'envoi, un suivi neuf par passage (relayé
/// aux signaux), une ligne par passage.
struct PassagesDeLaCommande<'a, 'e> {
    g: &'a OptionsGlobales,
    envoi: &'a Envoi<'e>,
    relais: Arc<SuiviRelais>,
}

impl Passages for PassagesDeLaCommande<'_, '_> {
    fn attente_reseau(&self) -> Option<Duration> {
        self.envoi.attente_reseau()
    }

    fn suivi(&self) -> Arc<dyn Suivi> {
        let suivi = crate::suivi::choisir(self.g.json, self.g.quiet, self.g.progression.into());
        self.relais.remplacer(Arc::clone(&suivi));
        suivi
    }

    async fn passage(
        &self,
        base: Base,
        plan: DepotPlan,
        arret: Annulation,
        suivi: Arc<dyn Suivi>,
        attente_reseau: Option<Duration>,
    ) -> Result<Bilan> {
        // En boîte : l'avenir d'un passage est grand, celui de l'enchaînement le contient.
        Box::pin(passage(
            self.envoi,
            base,
            plan,
            arret,
            suivi,
            attente_reseau,
        ))
        .await
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
    let arret = Annulation::new();
    let relais = Arc::new(SuiviRelais::default());
    ecouter_signaux(arret.clone(), Some(relais.clone()));
    let passages = PassagesDeLaCommande { g, envoi, relais };
    let (bilan, fin) = enchainer_passages(regle, &passages, arret, base, plan).await?;
    garder_le_code(afficher_bilan(g, &bilan, envoi.destination, fin.as_ref()));
    Ok(if bilan.interrompu {
        CodeSortie::Interrompu
    } else {
        code_du_plan(&bilan.resume)
    })
}

/// Le bilan n'a pas pu être écrit (disque plein sous une sortie redirigée ; un lecteur parti
/// ne compte pas, voir `sortie::SansEchec`) : le dépôt, lui, a eu lieu, et son code de sortie
/// reste le sien. On le dit sur la sortie d'erreur, si elle l'accepte ; `vigie etat` redonne
/// l'état du plan.
fn garder_le_code(affichage: Result<()>) {
    if let Err(e) = affichage {
        use std::io::Write;
        let _ = writeln!(
            crate::sortie::erreur(),
            "attention : le bilan n'a pas pu être écrit ({e:#}) ; vigie etat redonne l'état du \
             plan"
        );
    }
}

/// La ligne de bilan d'un passage : sur la sortie standard, barres effacées, ou en JSON.
fn annoncer_passage(
    g: &OptionsGlobales,
    numero: u32,
    issue: &IssuePassage<'_>,
    prochain: Option<Duration>,
) -> Result<()> {
    liberer_terminal();
    if g.json {
        passage_json(numero, issue, prochain).ecrire()?;
    } else {
        use std::io::Write;
        let mut s = crate::sortie::standard();
        writeln!(s, "{}", ligne_passage(numero, issue, prochain))?;
        s.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::JusquAuBout;

    #[test]
    fn les_options_de_la_ligne_de_commande() {
        let options = |jusqu_au_bout, base: f64, max: f64| OptionsPassages {
            jusqu_au_bout,
            attente_passage: base,
            attente_passage_max: max,
        };
        assert!(ReglePassages::depuis(&options(None, 0.0, 10.0)).is_err());
        assert!(ReglePassages::depuis(&options(None, 20.0, 10.0)).is_err());
        assert!(ReglePassages::depuis(&options(None, 0.01, 0.02)).is_ok());
        let limite = Some(JusquAuBout {
            limite: Some(Duration::from_secs(3600)),
        });
        assert!(ReglePassages::depuis(&options(limite, 30.0, 600.0)).is_ok());
    }
}
