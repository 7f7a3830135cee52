//! Planifier les nuits d'une saison, sans un mot : la destination de chaque nuit selon son
//! sort, sa racine (celle de son plan pour une nuit liée, montée s'il le faut), ses fichiers,
//! le verrou de son plan ; pour `vigie retenter-echecs`, les nuits reprises, les fichiers de
//! chacune, les nuits nouvelles ; les réglages que retient la saison ; les verrous des
//! saisons. La commande planifie (en relisant les fichiers au besoin) et dit.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::depot::fabrique::Destination;
use crate::depot::planification::planifier_en_relisant;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::destination::CibleParticipation;
use crate::horodatage::InstantUtc;
use crate::inventaire::Enregistrement;
use crate::plan::{
    Base, DepotPlan, FichierPlanifie, NuitPlanifiee, ReglagesRetenus, Sorte, VerrouPlan,
};
use crate::saison::fuseau::Fuseau;
use crate::saison::nuits::{CleNuit, Regroupement};
use crate::saison::reunion::{Reunion, montee};
use crate::saison::sort::{NuitDeSaison, Sort, meme_nuit, participation_du_plan};
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// Une nuit à envoyer : son plan, sa destination, le verrou tenu.
pub(crate) struct NuitAEnvoyer {
    pub(crate) plan: DepotPlan,
    pub(crate) destination: Destination,
    pub(crate) libelle: String,
    /// Le verrou du plan (aucun pour une simulation, qui n'écrit rien).
    _verrou: Option<VerrouPlan>,
    /// Le verrou du plan sur son dossier d'avant une montée de sa racine (sinon rien).
    _verrou_d_avant: Option<VerrouPlan>,
}

impl NuitAEnvoyer {
    /// Une nuit reprise (`retenter-echecs`) : son plan, verrouillé par `verrou`.
    pub(crate) fn reprise(
        plan: DepotPlan,
        destination: Destination,
        libelle: String,
        verrou: VerrouPlan,
    ) -> NuitAEnvoyer {
        NuitAEnvoyer {
            plan,
            destination,
            libelle,
            _verrou: Some(verrou),
            _verrou_d_avant: None,
        }
    }
}

/// Ce que la planification de chaque nuit de la saison partage.
pub(crate) struct Saison<'a> {
    pub(crate) api: &'a str,
    pub(crate) fuseau: &'a Fuseau,
    pub(crate) reunion: &'a Reunion,
    /// Une simulation : la planification se fait sur une copie en mémoire de la base, sans
    /// verrou, et la montée d'une racine n'est pas annoncée.
    pub(crate) a_blanc: bool,
    /// `--redeposer-modifies`.
    pub(crate) redeposer_modifies: bool,
}

/// Une nuit de la saison prête à planifier : son plan verrouillé, ce que la planification
/// reçoit, et la racine de son plan si elle vient de monter.
pub(crate) struct NuitPreparee {
    pub(crate) destination: Destination,
    /// La racine de la nuit (le dossier du plan).
    pub(crate) dossier: String,
    /// La sorte et l'identité de la destination, comme le plan les retient.
    pub(crate) sorte: Sorte,
    pub(crate) identite: String,
    pub(crate) fichiers: Vec<FichierPlanifie>,
    /// Les dossiers parcourus, relatifs à la racine : ce que la replanification peut dire
    /// « disparu ».
    pub(crate) perimetre: Vec<String>,
    /// La nouvelle racine du plan d'une nuit liée, quand elle vient de monter (à dire).
    pub(crate) montee: Option<String>,
    verrou: Option<VerrouPlan>,
    verrou_d_avant: Option<VerrouPlan>,
}

impl NuitPreparee {
    /// La nuit planifiée sous `plan`, ses verrous tenus jusqu'à la fin de la course.
    pub(crate) fn planifiee(self, plan: DepotPlan, libelle: String) -> NuitAEnvoyer {
        NuitAEnvoyer {
            plan,
            destination: self.destination,
            libelle,
            _verrou: self.verrou,
            _verrou_d_avant: self.verrou_d_avant,
        }
    }
}

/// Le type et le numéro de série que dit un nom d'enregistreur (`PaRecPR1925492`) ; `None`
/// s'il ne dit pas de type.
pub(crate) type EnregistreurDuNom = fn(&str) -> Option<(String, Option<String>)>;

/// La description d'une nuit : celle des options, l'enregistreur lu dans ses noms quand les
/// options ne le disent pas, qu'elle n'en a qu'un et que son nom se reconnaît
/// (`PaRecPR1925492`, `S4U12345` ; pas `OB-1`, qui ne dit ni type ni numéro) ; en routier et
/// pédestre, les canaux que disent ses séquences (`garde::deduire_les_canaux`), pour la
/// participation à créer ou à compléter. Une nuit liée a décrit la sienne à son premier
/// dépôt : ses séquences ne sont relues que si des options de description la font compléter
/// (ce que le site web y a mis l'emporte, `description::completer`).
pub(crate) fn description_de_la_nuit(
    options: &crate::description::Description,
    n: &NuitDeSaison,
    reunion: &Reunion,
    enregistreur: EnregistreurDuNom,
) -> crate::description::Description {
    let mut d = options.clone();
    if !matches!(n.sort, Sort::Liee { .. }) || *options != Default::default() {
        let chemins = n.nuit.fichiers.iter();
        crate::garde::deduire_les_canaux(
            &mut d,
            &reunion.racine,
            chemins.map(|&i| reunion.enregistrements[i].chemin.as_str()),
        );
    }
    if let [seul] = n.nuit.enregistreurs.iter().collect::<Vec<_>>().as_slice() {
        let Some((type_enregistreur, numero_serie)) = enregistreur(seul) else {
            return d;
        };
        d.enregistreur_type = d.enregistreur_type.or(Some(type_enregistreur));
        d.enregistreur_numero_serie = d.enregistreur_numero_serie.or(numero_serie);
    }
    d
}

/// Une nuit de la saison prête à planifier (voir [`NuitPreparee`]), son plan verrouillé
/// (`libelle` : son nom dans un refus de verrou) ; `planifiable` fait le fichier planifiable
/// d'un enregistrement.
pub(crate) fn preparer_la_nuit(
    s: &Saison<'_>,
    base: &mut Base,
    n: &NuitDeSaison,
    (libelle, description): (&str, crate::description::Description),
    planifiable: fn(&Enregistrement, String, String) -> FichierPlanifie,
) -> Result<NuitPreparee> {
    let (destination, racine, verrou_d_avant, montee) =
        destination_de_la_nuit(s, base, n, libelle, description)?;
    let Some(dossier) = racine.to_str().map(str::to_owned) else {
        anyhow::bail!("chemin de la nuit {} : pas de l'UTF-8", racine.display());
    };
    let fichiers = s
        .reunion
        .fichiers_de_la_nuit(&n.nuit, &racine, &destination, planifiable)?;
    let (sorte, identite) = match &n.sort {
        Sort::Liee { plan } => (plan.sorte.clone(), plan.destination.clone()),
        _ => (destination.sorte(), destination.identite()),
    };
    // Sans montée, le verrou d'avant est celui du plan (le reprendre échouerait : il est
    // déjà tenu) ; après une montée, les deux sont tenus jusqu'à la fin de la course.
    let (verrou, verrou_d_avant) = match (verrou_d_avant, &n.sort) {
        _ if s.a_blanc => (None, None),
        (Some(v), Sort::Liee { plan }) if plan.dossier == dossier => (Some(v), None),
        (avant, _) => (
            Some(VerrouPlan::prendre(
                base.chemin(),
                &dossier,
                &identite,
                libelle,
            )?),
            avant,
        ),
    };
    Ok(NuitPreparee {
        perimetre: s.reunion.perimetre(&racine),
        destination,
        dossier,
        sorte,
        identite,
        fichiers,
        montee,
        verrou,
        verrou_d_avant,
    })
}

/// La nuit préparée `p` planifiée (`Saison::planifier`) et liée à sa saison dans la base ;
/// rend la nuit à envoyer, et combien de ses fichiers déjà déposés ont changé depuis (à dire).
pub(crate) fn planifier_et_lier(
    s: &Saison<'_>,
    base: &mut Base,
    n: &NuitDeSaison,
    p: NuitPreparee,
    libelle: String,
) -> Result<(NuitAEnvoyer, usize)> {
    let site = n.site.clone().context("site d'une nuit non rapproché")?;
    let r = planifier_en_relisant(
        base,
        &p.dossier,
        (&p.sorte, &p.identite),
        &p.fichiers,
        s.redeposer_modifies,
        Some(&p.perimetre),
    )?;
    let plan = r.plan.clone().context("plan absent après planification")?;
    let saison = base.ouvrir_saison(s.api, n.nuit.cle.annee)?;
    base.lier_nuit(plan.id, saison, &n.liee(&site, s.fuseau))?;
    Ok((p.planifiee(plan, libelle), r.modifiees.len()))
}

/// La destination d'une nuit selon son sort, et sa racine (celle de son plan pour une nuit
/// liée, montée s'il le faut, et la nouvelle alors) ; pour une nuit liée, le verrou de son
/// plan pris sur son dossier d'avant toute montée : un `vigie verifier` ou un `vigie depot
/// --participation` qui tient ce plan ne voit pas ses chemins changer pendant qu'il envoie ;
/// la montée attend qu'il ait fini (code 4).
fn destination_de_la_nuit(
    s: &Saison<'_>,
    base: &mut Base,
    n: &NuitDeSaison,
    libelle: &str,
    description: crate::description::Description,
) -> Result<(Destination, PathBuf, Option<VerrouPlan>, Option<String>)> {
    let mut racine = s.reunion.racine.clone();
    let racine_relative = s.reunion.racine_de_nuit(&n.nuit);
    if !racine_relative.is_empty() {
        racine.push(&racine_relative);
    }
    let participation = match &n.sort {
        Sort::Liee { plan } => {
            let verrou = if s.a_blanc {
                None
            } else {
                Some(VerrouPlan::prendre(
                    base.chemin(),
                    &plan.dossier,
                    &plan.destination,
                    libelle,
                )?)
            };
            let (racine, montee) = monter_si_besoin(base, plan, racine)?;
            let destination = Destination::du_plan(plan)?.decrite(description);
            return Ok((destination, racine, verrou, montee));
        }
        Sort::Reprise { participation, .. } => CibleParticipation::Existante(participation.clone()),
        Sort::ACreer => {
            let (debut, fin) = n.bornes.context("bornes d'une nuit à créer")?;
            CibleParticipation::ACreer {
                site: n.site.clone().context("site d'une nuit non rapproché")?,
                point: n.nuit.cle.point.clone(),
                debut: InstantUtc::depuis_secondes(debut.timestamp()),
                fin: InstantUtc::depuis_secondes(fin.timestamp()),
            }
        }
        Sort::NonVerifiee => unreachable!("une nuit non vérifiée n'est pas déposée"),
    };
    let destination = DestinationVigieChiro {
        api: s.api.to_owned(),
        participation,
        description: Box::new(description),
    };
    Ok((destination.into(), racine, None, None))
}

/// Des fichiers de la nuit hors de la racine de son plan : la racine monte à l'ancêtre commun
/// ([`montee`]), dans la base ; la racine de la nuit, et la nouvelle si elle a monté.
fn monter_si_besoin(
    base: &mut Base,
    plan: &DepotPlan,
    racine: PathBuf,
) -> Result<(PathBuf, Option<String>)> {
    let racine_plan = PathBuf::from(&plan.dossier);
    let Some((nouvelle, prefixe)) = montee(&racine, &racine_plan)? else {
        return Ok((racine_plan, None));
    };
    let texte = nouvelle
        .to_str()
        .context("chemin d'une racine de nuit : pas de l'UTF-8")?;
    base.monter_racine(plan.id, texte, &prefixe)?;
    let texte = texte.to_owned();
    Ok((nouvelle, Some(texte)))
}

/// Les réglages de la saison : ceux que retiennent ses nuits qui ont encore à partir (donnés
/// au dépôt de la saison, ou à une reprise). Les nuits finies n'y comptent pas : une nuit
/// d'une autre carte de la même année, déposée sous d'autres réglages, ne s'y mêle jamais.
/// Rend chaque jeu de réglages retenu, et les nuits qui le retiennent : plus d'un (deux
/// dépôts, deux réglages), la commande refuse, sauf réglages donnés, qui valent alors pour
/// toutes.
pub(crate) fn reglages_de_la_saison<'p>(
    base: &Base,
    planifiees: &'p [NuitAEnvoyer],
) -> Result<Vec<(ReglagesRetenus, Vec<&'p str>)>> {
    let mut vus: Vec<(ReglagesRetenus, Vec<&str>)> = Vec::new();
    for p in planifiees {
        let r = base.resume(p.plan.id)?;
        let a_creer = p.plan.participation.is_none() && participation_du_plan(&p.plan).is_none();
        if r.deposee == r.total() && !a_creer {
            continue;
        }
        let retenus = base.reglages(p.plan.id)?;
        if retenus.est_vide() {
            continue;
        }
        match vus.iter_mut().find(|(v, _)| *v == retenus) {
            Some((_, nuits)) => nuits.push(&p.libelle),
            None => vus.push((retenus, vec![&p.libelle])),
        }
    }
    Ok(vus)
}

/// Retient `retenus` pour chaque nuit de la saison (une relance les reprend) ; une nuit finie
/// garde les siens, sauf réglages `donnes` (ils valent alors pour la saison).
pub(crate) fn retenir_les_reglages(
    base: &Base,
    planifiees: &[NuitAEnvoyer],
    retenus: &ReglagesRetenus,
    donnes: bool,
) -> Result<()> {
    for p in planifiees {
        let r = base.resume(p.plan.id)?;
        if r.deposee < r.total() || p.plan.participation.is_none() || donnes {
            base.retenir_reglages(p.plan.id, retenus)?;
        }
    }
    Ok(())
}

/// Les verrous des saisons `(api, année)` : le mécanisme du verrou d'un plan
/// (`plan/verrou.rs`), sous l'identité `saison:<api>#<année>`. Une saison déjà tenue par un
/// autre `vigie` : code 4, que dit `occupee` (l'année, le processus qui la tient).
pub(crate) fn verrouiller_saisons(
    base: &Path,
    api: &str,
    annees: &BTreeSet<u16>,
    occupee: fn(u16, Option<u32>) -> String,
) -> Result<Vec<VerrouPlan>> {
    let mut verrous = Vec::with_capacity(annees.len());
    for annee in annees {
        let identite = format!("saison:{api}#{annee}");
        match VerrouPlan::prendre(base, "", &identite, &format!("saison {annee}")) {
            Ok(v) => verrous.push(v),
            Err(crate::plan::ErreurBase::PlanOccupe { pid, .. }) => {
                let message = occupee(*annee, pid);
                return Err(ErreurAvecCode::nouveau(CodeSortie::PlanOccupe, message).into());
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(verrous)
}

/// Les nuits de saison que `vigie retenter-echecs` reprend : la nuit N, ou, sans argument,
/// toute la saison du dernier dépôt ; `None` si le dernier dépôt n'est pas d'une saison.
pub(crate) fn nuits_a_retenter(
    base: &Base,
    plan: Option<i64>,
) -> Result<Option<Vec<NuitPlanifiee>>> {
    // Sans argument : la saison du dernier dépôt (toutes ses nuits), quelle que soit la nuit
    // touchée en dernier.
    if plan.is_none() {
        return Ok(match base.dernier_depot(false)? {
            crate::plan::DernierDepot::Saison(saison) => Some(base.nuits_de_saison(saison)?),
            crate::plan::DernierDepot::Plan(_) => None,
        });
    }
    let plan = base.plan(plan)?;
    Ok(base.nuit_du_plan(plan.id)?.map(|n| vec![n]))
}

/// Chaque nuit nouvelle et son nombre de fichiers ; les dossiers où elles sont.
pub(crate) type NuitsComptees = (Vec<(CleNuit, usize)>, Vec<String>);

/// Les nuits des racines qu'aucune nuit connue de la saison n'est (des fichiers ajoutés
/// depuis, d'une autre soirée, d'un autre point) : leurs fichiers, et leurs dossiers.
#[derive(Default)]
pub(crate) struct NuitsNouvelles {
    fichiers: BTreeMap<CleNuit, BTreeSet<PathBuf>>,
    dossiers: BTreeSet<String>,
}

impl NuitsNouvelles {
    /// Les nuits de `regroupement` (les enregistrements du dossier du plan) qu'aucune nuit
    /// connue n'est.
    pub(crate) fn relever(
        &mut self,
        connues: &[NuitPlanifiee],
        plan: &DepotPlan,
        enregistrements: &[Enregistrement],
        regroupement: &Regroupement,
    ) {
        for r in &regroupement.nuits {
            if connues.iter().any(|c| meme_nuit(&c.nuit, &r.cle)) {
                continue;
            }
            let fichiers = self.fichiers.entry(r.cle.clone()).or_default();
            for &i in &r.fichiers {
                let chemin = &enregistrements[i].chemin;
                fichiers.insert(Path::new(&plan.dossier).join(chemin));
            }
            self.dossiers.insert(plan.dossier.clone());
        }
    }

    /// Chaque nuit nouvelle et son nombre de fichiers, et les dossiers où elles sont (sans
    /// ceux qui sont dans un autre) : rien si aucune.
    pub(crate) fn comptes(self) -> Option<NuitsComptees> {
        if self.fichiers.is_empty() {
            return None;
        }
        let nouvelles = self
            .fichiers
            .into_iter()
            .map(|(cle, fichiers)| (cle, fichiers.len()))
            .collect();
        Some((nouvelles, dossiers_racines(&self.dossiers)))
    }
}

/// Les fichiers d'un dossier (leurs indices dans l'ordre de ses enregistrements,
/// `regroupement`) qui sont de la nuit `n` : seuls ceux-là sont gardés et replanifiés, le
/// dossier peut contenir d'autres nuits.
pub(crate) fn indices_de_la_liee<'r>(
    n: &'r NuitPlanifiee,
    regroupement: &'r Regroupement,
) -> impl Iterator<Item = usize> + 'r {
    regroupement
        .nuits
        .iter()
        .filter(|r| meme_nuit(&n.nuit, &r.cle))
        .flat_map(|r| r.fichiers.iter().copied())
}

/// Ceux des fichiers planifiables du dossier (dans l'ordre de ses enregistrements,
/// `regroupement`) qui sont de la nuit `n`.
pub(crate) fn fichiers_de_la_liee(
    n: &NuitPlanifiee,
    fichiers: Vec<FichierPlanifie>,
    regroupement: &Regroupement,
) -> Vec<FichierPlanifie> {
    let indices: HashSet<usize> = indices_de_la_liee(n, regroupement).collect();
    fichiers
        .into_iter()
        .enumerate()
        .filter(|(i, _)| indices.contains(i))
        .map(|(_, f)| f)
        .collect()
}

/// Des dossiers, sans ceux qui sont dans un autre de la liste.
fn dossiers_racines(dossiers: &BTreeSet<String>) -> Vec<String> {
    dossiers
        .iter()
        .filter(|d| {
            !dossiers
                .iter()
                .any(|autre| autre != *d && Path::new(d).starts_with(autre))
        })
        .cloned()
        .collect()
}

/// Toutes les nuits des saisons de ces plans (celles de la commande, et les autres nuits de
/// leurs saisons : déposées, entamées, pas commencées), avec leur plan et son résumé : le
/// bilan de la saison.
pub(crate) fn nuits_des_saisons(
    base: &Base,
    plans: &[i64],
) -> Result<Vec<(NuitPlanifiee, DepotPlan, crate::plan::ResumePlan)>> {
    let mut saisons = BTreeSet::new();
    for &id in plans {
        if let Some(n) = base.nuit_du_plan(id)? {
            saisons.insert(n.saison_id);
        }
    }
    let mut nuits = Vec::new();
    for saison in saisons {
        for n in base.nuits_de_saison(saison)? {
            let plan = base.plan(Some(n.plan_id))?;
            let r = base.resume(n.plan_id)?;
            nuits.push((n, plan, r));
        }
    }
    Ok(nuits)
}
