//! Le réessai réseau de `vigie` : gradué par profil, jamais aveugle, toujours jitteré, borné par
//! une échéance, et journalisé décision par décision.
//!
//! Pourquoi : sur un partage de connexion mobile, une coupure d'une seconde est normale ; elle ne
//! doit coûter ni une unité de dépôt ni un geste humain. Mais un réessai mal conçu rejoue un 4xx,
//! reforme la rafale qui a fait tomber le service, ou double une écriture non idempotente. Les
//! règles et leurs raisons sont dans `docs/politique-reessai.md`.
//!
//! Ce module ne dépend de rien d'autre du projet et ne touche le monde (horloge, hasard) que par
//! ce qu'on lui injecte :
//! - [`ReponseApi`] classe une issue (rejouable ou non), variante par variante ;
//! - [`attente_demandee`] interprète `Retry-After` / `Retry-After-Ms` ;
//! - [`PolitiqueReessai::decider`], pure, rend une `Decision` ;
//! - [`executer`], la seule entrée, émet, décide, annonce, attend et journalise, dans un
//!   [`Cadre`] qui injecte [`Temporisateur`], [`SourceAlea`], [`Annulation`] et le budget
//!   global d'un passage ([`SeauJetons`]) ; une [`Operation`] relue ([`Operation::relue_par`])
//!   y est réémise, écriture non rejouable, si sa relecture prouve qu'elle n'a pas eu lieu,
//!   dans le budget d'une seule [`Etape`].
//!
//! Un exemple d'emploi, compilé et exécuté : l'essai `reessai::tests::exemple_d_emploi`.

mod boucle;
mod budget;
#[cfg(test)]
pub(crate) mod doubles;
mod politique;
mod reponse;
mod retry_after;
mod temporisateur;

pub(crate) use boucle::{
    Cadre, DecisionJournalisee, Etape, Issue, ObservateurMuet, ObservateurReessai, Operation,
    Relecture, Releve, executer,
};
pub(crate) use budget::{SansBudget, SeauJetons};
pub(crate) use politique::{
    Decision, ECHEANCE_DEPOT_PAR_DEFAUT, ErreurReglage, PolitiqueReessai, Profil, RaisonArret,
    Reglages, ReglagesEnSecondes, Rejouabilite, TENTATIVES_MAX_ADMISES,
};
pub(crate) use reponse::ReponseApi;
pub(crate) use retry_after::attente_demandee;
pub(crate) use temporisateur::{
    AleaSysteme, Annulation, SourceAlea, Temporisateur, TemporisateurTokio,
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Comment on s'en sert : une politique, un cadre, une opération, réussie du premier
    /// coup.
    #[tokio::test]
    async fn exemple_d_emploi() -> Result<(), Box<dyn std::error::Error>> {
        let politique = Reglages::insistant()
            .avec_echeance(Duration::from_secs(120))
            .valider()?;
        let op = Operation::nouveau("PUT", "s3://nuit/fichier.wav", Rejouabilite::Rejouable);
        let cadre = Cadre {
            politique: &politique,
            temporisateur: &TemporisateurTokio::nouveau(),
            alea: &AleaSysteme,
            observateur: &ObservateurMuet,
            annulation: &Annulation::nouveau(),
            budget: &SansBudget,
        };
        let issue = executer(&cadre, op, |_tentative| async {
            ReponseApi::<()>::Succes(())
        })
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        Ok(())
    }
}
