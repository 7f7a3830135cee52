//! Reprendre les nuits d'une saison (`vigie retenter-echecs`), sans un mot : chaque nuit liée,
//! réinventoriée depuis sa racine, est replanifiée sur **ses** fichiers seuls (la racine d'une
//! nuit peut en contenir d'autres : deux enregistreurs dans deux dossiers voisins), son plan
//! verrouillé, ses échecs remis en file ; les nuits des racines que la base ne connaît pas
//! sont relevées (nouvelles : à dire, jamais déposées dans une autre). La commande
//! inventorie, garde, dit et envoie.

use std::collections::BTreeSet;

use anyhow::{Context, Result};

use crate::depot::fabrique::Destination;
use crate::depot::planification::planifier_en_relisant;
use crate::inventaire::Enregistrement;
use crate::plan::{Base, DepotPlan, FichierPlanifie, NuitLiee, NuitPlanifiee, VerrouPlan};
use crate::saison::nuits::Regroupement;
use crate::saison::planification::{NuitAEnvoyer, NuitsNouvelles, fichiers_de_la_liee};

/// Une nuit liée réinventoriée : sa nuit, son plan, sa destination, les fichiers et les
/// enregistrements de sa racine, regroupés en nuits.
pub(crate) struct Reinventoriee<'n> {
    pub(crate) nuit: &'n NuitPlanifiee,
    pub(crate) plan: DepotPlan,
    pub(crate) destination: Destination,
    pub(crate) fichiers: Vec<FichierPlanifie>,
    pub(crate) enregistrements: Vec<Enregistrement>,
    pub(crate) regroupement: Regroupement,
}

/// Comment reprendre : `--y-compris-definitifs`, le nom d'une nuit liée (celui de son
/// verrou).
pub(crate) struct Reprise {
    pub(crate) y_compris_definitifs: bool,
    pub(crate) libelle: fn(&NuitLiee) -> String,
}

/// Les nuits liées `liees` (des nuits `nuits`) replanifiées, chacune sur ses fichiers, et les
/// nuits nouvelles de leurs racines : toutes les nuits connues des saisons de `nuits` comptent
/// (`retenter-echecs N` n'en reprend qu'une).
pub(crate) fn replanifier_les_liees(
    base: &mut Base,
    nuits: &[NuitPlanifiee],
    liees: Vec<Reinventoriee<'_>>,
    r: &Reprise,
) -> Result<(Vec<NuitAEnvoyer>, NuitsNouvelles)> {
    let mut connues = Vec::new();
    for saison in nuits.iter().map(|n| n.saison_id).collect::<BTreeSet<i64>>() {
        connues.extend(base.nuits_de_saison(saison)?);
    }
    let mut nouvelles = NuitsNouvelles::default();
    let mut planifiees = Vec::with_capacity(liees.len());
    for l in liees {
        nouvelles.relever(&connues, &l.plan, &l.enregistrements, &l.regroupement);
        let fichiers = fichiers_de_la_liee(l.nuit, l.fichiers, &l.regroupement);
        planifiees.push(replanifier(
            base,
            l.nuit,
            l.plan,
            l.destination,
            &fichiers,
            r,
        )?);
    }
    Ok((planifiees, nouvelles))
}

/// Le plan d'une nuit liée, verrouillé, replanifié sur ses fichiers, ses échecs remis en file.
fn replanifier(
    base: &mut Base,
    n: &NuitPlanifiee,
    plan: DepotPlan,
    destination: Destination,
    fichiers: &[FichierPlanifie],
    reprise: &Reprise,
) -> Result<NuitAEnvoyer> {
    let libelle = (reprise.libelle)(&n.nuit);
    let verrou = VerrouPlan::prendre(base.chemin(), &plan.dossier, &plan.destination, &libelle)?;
    let r = planifier_en_relisant(
        base,
        &plan.dossier,
        (&plan.sorte, &plan.destination),
        fichiers,
        false,
        Some(&[String::new()]),
    )?;
    let plan = r.plan.context("plan absent après planification")?;
    let remises = base.remettre_en_file(plan.id, reprise.y_compris_definitifs)?;
    tracing::info!(plan = plan.id, remises, "unités remises en file");
    Ok(NuitAEnvoyer::reprise(plan, destination, libelle, verrou))
}
