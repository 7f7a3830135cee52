//! `vigie verifier` d'un plan, hors de la commande : la relecture demandée à la fabrique de
//! sa destination (`depot::fabrique`), puis ce qu'elle dit de chaque unité déposée
//! ([`verification::constater`]). À part de `verification.rs`, que la fabrique regarde (le
//! port `Relecture`) : ce fichier regarde les deux, sans cycle.

use std::sync::Arc;

use anyhow::Result;

use super::verification::{self, Constats};
use crate::depot::fabrique::{Acces, Destination, ReglagesDestination};
use crate::depot::{AnnoncesSuivi, Suivi};
use crate::plan::{DepotPlan, DepotUnite};
use crate::transport::Emetteur;

/// Ce que la destination du plan dit de chaque unité `deposees`, relue sous `emetteur` (sa
/// veille du réseau, son annulation).
pub(crate) async fn constater_le_plan(
    destination: &Destination,
    plan: &DepotPlan,
    deposees: Vec<DepotUnite>,
    acces: Acces,
    emetteur: &Arc<Emetteur>,
    suivi: &dyn Suivi,
) -> Result<Constats> {
    let reglages = ReglagesDestination {
        acces,
        ..ReglagesDestination::default()
    };
    let relecture = destination.relecture(plan, &reglages).await?;
    verification::constater(
        relecture.as_ref(),
        deposees,
        emetteur,
        &AnnoncesSuivi(suivi),
    )
    .await
}
