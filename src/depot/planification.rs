//! Le plan d'une nuit hors saison, prêt à partir : verrouillé (sauf à blanc), (re)planifié sur
//! ses fichiers en relisant ceux dont seule la date a changé. Rien n'est envoyé ni dit : ce que
//! la planification a trouvé est rendu ([`Replanification`]) et dit par `suivi/depot.rs`.

use std::path::Path;

use anyhow::{Context, Result};

use super::fabrique::Destination;
use super::relecture::empreinte::memes_que_deposes;
use crate::plan::{
    Base, DepotPlan, FichierPlanifie, Planifiee, ReglagesRetenus, Replanification, Sorte,
    VerrouPlan,
};
use crate::sortie::{CodeSortie, code_pour_erreur};

/// Un plan prêt à partir : la base, le verrou tenu, le plan à jour.
pub(crate) struct PlanPret {
    pub(crate) base: Base,
    /// Le verrou du plan (aucun pour une simulation, qui n'écrit rien).
    pub(crate) _verrou: Option<VerrouPlan>,
    pub(crate) plan: DepotPlan,
    pub(crate) destination: Destination,
    /// Le plan vient d'être créé par ce passage.
    pub(crate) cree: bool,
}

/// Un plan relu de la base pour être repris (`vigie retenter-echecs` hors saison).
pub(crate) struct PlanRelu {
    /// Son dossier, tel que le plan le retient.
    pub(crate) dossier: String,
    /// Sa destination, relue par l'inscription de sa sorte.
    pub(crate) destination: Destination,
    /// Son identité stockée (celle d'une version antérieure peut s'écrire autrement
    /// aujourd'hui) : elle retrouve le plan.
    pub(crate) identite: String,
    pub(crate) retenus: ReglagesRetenus,
    /// Ses unités : ce qu'elles disent d'une carte brute (son identité).
    pub(crate) unites: Vec<crate::plan::DepotUnite>,
    pub(crate) id: i64,
}

impl PlanRelu {
    /// Le plan `plan` (le dernier sans numéro), sa destination, ses réglages et ses unités.
    pub(crate) fn lire(base: &Base, plan: Option<i64>) -> Result<PlanRelu> {
        let plan = base.plan(plan)?;
        Ok(PlanRelu {
            destination: Destination::du_plan(&plan)?,
            retenus: base.reglages(plan.id)?,
            unites: base.unites(plan.id, &[])?,
            id: plan.id,
            dossier: plan.dossier,
            identite: plan.destination,
        })
    }
}

/// Le verrou du plan de ce dossier vers cette identité, nommé par son numéro s'il existe
/// déjà.
pub(crate) fn verrouiller(base: &Base, dossier: &str, identite: &str) -> Result<VerrouPlan> {
    let libelle = match base.trouver_plan(dossier, identite)? {
        Some(p) => p.id.to_string(),
        None => format!("de {dossier} vers {identite}"),
    };
    Ok(VerrouPlan::prendre(
        base.chemin(),
        dossier,
        identite,
        &libelle,
    )?)
}

impl PlanPret {
    /// (Re)planifie le plan nommé par `identite` (celle de la destination pour un dépôt, celle
    /// stockée dans la base pour une reprise) sur ces fichiers, le verrou tenu. Rien n'est
    /// envoyé.
    pub(crate) fn planifier(
        (mut base, verrou): (Base, Option<VerrouPlan>),
        (dossier, fichiers): (&str, &[FichierPlanifie]),
        (destination, identite): (Destination, &str),
        redeposer_modifies: bool,
    ) -> Result<(PlanPret, Replanification)> {
        let r = planifier_en_relisant(
            &mut base,
            dossier,
            (&destination.sorte(), identite),
            fichiers,
            redeposer_modifies,
            None,
        )?;
        let plan = r.plan.clone().context("plan absent après planification")?;
        let pret = PlanPret {
            base,
            _verrou: verrou,
            plan,
            destination,
            cree: r.cree,
        };
        Ok((pret, r))
    }
}

/// Planifie la nuit (voir [`Base::planifier_dans`]), en relisant au besoin les fichiers déjà
/// déposés dont seule la date a changé (même taille) : ceux dont le contenu, relu, est celui
/// du dépôt ne sont ni « changés » ni renvoyés. Une carte FAT garde l'heure locale, et le
/// passage à l'heure d'été (ou un autre système) décale d'une heure toutes ses dates sans
/// changer un octet. Un fichier illisible, ou sans empreinte comparable, reste dit changé.
/// Sans date changée (le cas d'une reprise), le plan n'est lu qu'une fois.
pub(crate) fn planifier_en_relisant(
    base: &mut Base,
    dossier: &str,
    destination: (&Sorte, &str),
    fichiers: &[FichierPlanifie],
    redeposer_modifies: bool,
    perimetre: Option<&[String]>,
) -> Result<Replanification> {
    let mut dates_seules = None;
    loop {
        let issue = base.planifier_dans(
            dossier,
            destination,
            fichiers,
            redeposer_modifies,
            dates_seules.as_ref(),
            perimetre,
        )?;
        match issue {
            Planifiee::Faite(r) => return Ok(r),
            // Rendu seulement sans dates relues : le second tour les donne.
            Planifiee::ARelire(a_relire) => {
                let relues = memes_que_deposes(dossier, fichiers, a_relire);
                dates_seules =
                    Some(super::passage::moteur(super::passage::Fils::Plusieurs)?.block_on(relues));
            }
        }
    }
}

/// Les plans d'autres dossiers (la carte montée ailleurs, une copie sur le disque) qui visent
/// déjà cette destination.
pub(crate) fn autres_plans(base: &Base, dossier: &str, identite: &str) -> Result<Vec<DepotPlan>> {
    Ok(base
        .plans()?
        .into_iter()
        .filter(|p| p.destination == identite && p.dossier != dossier)
        .collect())
}

/// Les réglages que retient le plan de ce dossier vers cette destination, s'il existe déjà
/// (aucun sinon).
pub(crate) fn reglages_retenus(
    base: &Base,
    dossier: &str,
    identite: &str,
) -> Result<ReglagesRetenus> {
    Ok(match base.trouver_plan(dossier, identite)? {
        Some(plan) => base.reglages(plan.id)?,
        None => ReglagesRetenus::default(),
    })
}

/// Un plan créé par ce passage, qui s'est arrêté avant tout envoi (identifiants,
/// participation refusée), n'a rien à reprendre : il ne reste pas vide dans `vigie plans`
/// (voir [`Base::oublier_plan_intact`]).
pub(crate) fn oublier_s_il_est_vide(
    chemin_base: &Path,
    plan: i64,
    issue: &Result<CodeSortie>,
) -> Result<()> {
    let Err(e) = issue else {
        return Ok(());
    };
    let creation_refusee = code_pour_erreur(e) == CodeSortie::RefusDefinitifs;
    Base::ouvrir(chemin_base)?.oublier_plan_intact(plan, creation_refusee)?;
    Ok(())
}
