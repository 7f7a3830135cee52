//! `vigie etat` et `vigie plans` : ce que dit la base, sans toucher au réseau. Les rendus sont
//! dans `suivi/etat.rs` (un plan, ses fichiers, la liste des plans) et `suivi/saison.rs` (la
//! saison).

use super::chemin_base;
use anyhow::{Context, Result};

use crate::cli::{ArgsEtat, FiltreUnites, OptionsGlobales};
use crate::plan::{Base, DepotPlan, EtatUnite};
use crate::saison::designation::{NuitsVisees, Visee, viser};
use crate::sortie::CodeSortie;
use crate::suivi::etat::{self as dire, EtatDuPlan, LigneUnite, NuitDuPlan};

/// `vigie etat [NUIT…]` : sans nuit, la saison du dernier dépôt, nuit par nuit (ou le plan
/// hors saison du dernier dépôt) ; avec des nuits nommées (ou un numéro de plan), chacune en
/// détail ; `--unites`, leurs fichiers un par un.
pub(crate) fn etat(g: &OptionsGlobales, base: &Base, args: ArgsEtat) -> Result<CodeSortie> {
    match viser(base, &args.nuits.nuits, false)? {
        Visee::Plan(p) => etat_du_plan(g, base, p, args.unites, None),
        Visee::Nuits(v) if !v.designees && args.unites.is_none() => etat_saison(g, base, &v),
        Visee::Nuits(v) => {
            let mut code = CodeSortie::Succes;
            for n in &v.nuits {
                let nuit = NuitDuPlan {
                    designation: v.designation(n).to_string(),
                    annee: n.annee,
                    api: &n.api,
                };
                code = code.max_par_gravite(etat_du_plan(
                    g,
                    base,
                    n.plan_id,
                    args.unites,
                    Some(&nuit),
                )?);
            }
            Ok(code)
        }
    }
}

/// `vigie etat` d'une saison : une ligne par nuit (80 colonnes, heure de l'enregistreur), et
/// l'adresse de sa participation ; en JSON, `etat_saison` puis un `etat_nuit` par nuit. Le code
/// de sortie est le pire des nuits.
fn etat_saison(g: &OptionsGlobales, base: &Base, visees: &NuitsVisees) -> Result<CodeSortie> {
    let nuits = &visees.nuits;
    let saison = nuits
        .first()
        .map(|n| n.saison_id)
        .context("saison sans nuit")?;
    let mut lignes = Vec::with_capacity(nuits.len());
    for n in nuits {
        lignes.push((n, base.etat_de_nuit(n.plan_id)?));
    }
    let code = lignes.iter().fold(CodeSortie::Succes, |c, (_, e)| {
        c.max_par_gravite(CodeSortie::du_plan(&e.resume))
    });
    // Le détail d'une nuit s'obtient en la nommant : la première sert d'exemple.
    let exemple = nuits.first().map(|n| visees.designation(n).to_string());
    let en_defaut = exemple.as_deref().unwrap_or("21/06 A1");
    let en_defaut = (code != CodeSortie::Succes).then_some(en_defaut);
    crate::suivi::saison::etat_saison(g.json, saison, &lignes, en_defaut)?;
    Ok(code)
}

/// L'état d'un plan (le détail d'une nuit de saison, ou un plan hors saison), ou ses fichiers.
fn etat_du_plan(
    g: &OptionsGlobales,
    base: &Base,
    plan: i64,
    unites: Option<FiltreUnites>,
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<CodeSortie> {
    let plan = base.plan(Some(plan))?;
    let resume = base.resume(plan.id)?;
    if let Some(filtre) = unites {
        lister_unites(g, base, &plan, filtre, nuit)?;
    } else if g.json {
        dire::etat_json(&plan, &resume, &base.reglages(plan.id)?)?.ecrire()?;
    } else {
        let en_echec = if resume.echec + resume.incertaine > 0 {
            base.unites(plan.id, &[EtatUnite::Echec, EtatUnite::Incertaine])?
        } else {
            Vec::new()
        };
        dire::etat_du_plan(&EtatDuPlan {
            plan: &plan,
            resume: &resume,
            reglages: super::reglages::lisibles(&base.reglages(plan.id)?),
            en_echec,
            calcul: base.calcul_note(plan.id)?,
            nuit,
        })?;
    }
    Ok(CodeSortie::du_plan(&resume))
}

/// `vigie etat --unites ETAT` : les unités retenues, triées par chemin.
fn lister_unites(
    g: &OptionsGlobales,
    base: &Base,
    plan: &DepotPlan,
    filtre: FiltreUnites,
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<()> {
    let tentatives = base.tentatives_par_unite(plan.id)?;
    let lignes: Vec<LigneUnite> = base
        .unites(plan.id, &[])?
        .into_iter()
        .filter(|u| filtre.retient(u))
        .map(|unite| LigneUnite {
            tentatives: tentatives.get(&unite.id).copied().unwrap_or(0),
            unite,
        })
        .collect();
    dire::unites(g.json, plan.id, &filtre.nom(), &lignes, nuit)
}

pub(crate) fn plans(g: &OptionsGlobales) -> Result<CodeSortie> {
    let chemin = chemin_base(g)?;
    // Sans base, aucun plan : on le dit sans la créer.
    let Some(base) = super::ouvrir_base_pour_lire(&chemin)? else {
        if !g.json {
            dire::aucun_plan(&chemin)?;
        }
        return Ok(CodeSortie::Succes);
    };
    let mut liste = Vec::new();
    for plan in base.plans()? {
        let r = base.resume(plan.id)?;
        let nuit = base.nuit_du_plan(plan.id)?;
        liste.push((plan, r, nuit));
    }
    dire::plans(g.json, base.chemin(), &liste)?;
    Ok(CodeSortie::Succes)
}
