//! La participation visée par `vigie traiter`, `vigie traitement` et `vigie resultats`, et ce
//! que la base des plans en dit avant de lancer un calcul.
//!
//! La participation est donnée (`--participation`), ou celle de chaque nuit visée (toute la
//! saison du dernier dépôt, ou des nuits nommées : `saison/designation.rs`), ou celle du plan
//! hors saison du dernier dépôt ; les commandes sont écrites pour plusieurs participations à la
//! fois ([`Cible`]), et leurs conseils redisent ce qu'elles visaient ([`Portee`]).

use std::path::Path;

use anyhow::Result;

use crate::depot::fabrique::Destination;
use crate::destination::{CibleParticipation, IdObjet, valider_endpoint};
use crate::plan::{Base, DepotPlan, ErreurBase, NuitPlanifiee, VerrouPlan};
use crate::plateforme::conseil::commande;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::traitement::{EtatCalcul, EtatParticipation};

/// Une nuit de saison visée, et comment la nommer.
#[derive(Debug, Clone)]
pub(crate) struct NuitVisee {
    pub(crate) nuit: NuitPlanifiee,
    /// Comme la bénévole la nomme, et comme les conseils l'écrivent (`21/06 A1`).
    pub(crate) designation: String,
}

/// Une participation visée, et d'où elle vient.
#[derive(Debug, Clone)]
pub(crate) struct Cible {
    pub(crate) participation: IdObjet,
    /// L'adresse de l'API (celle du plan, ou celle de la configuration).
    pub(crate) api: String,
    /// Le plan qui l'a fait choisir (sans `--participation`).
    pub(crate) plan: Option<i64>,
    /// La nuit de saison de ce plan, s'il en est une.
    pub(crate) nuit: Option<NuitVisee>,
}

/// D'où viennent les participations d'une commande : ce que ses conseils doivent redire pour
/// viser les mêmes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Portee {
    /// Toute la saison du dernier dépôt (aucune nuit nommée).
    Saison,
    /// Des nuits nommées.
    Nommees,
    /// Le plan hors saison du dernier dépôt.
    DernierPlan,
    /// Une participation donnée (`--participation ID`), ou un plan hors saison nommé par son
    /// numéro : les conseils la redonnent par `--participation`.
    Participation(IdObjet),
}

impl Portee {
    /// La nuit est-elle visée pour elle-même (nommée, ou seule visée), et non avec toute sa
    /// saison ? Un calcul en erreur ne se relance que pour une telle nuit.
    pub(crate) fn nommee(&self) -> bool {
        *self != Portee::Saison
    }

    /// Toute la saison, sans `--nuit-incomplete` (`malgre_tout`) : `vigie traiter` passe les
    /// nuits pas prêtes et lance les autres. Sinon une nuit pas prête est refusée, ou lancée
    /// malgré tout.
    pub(crate) fn passe_les_pas_pretes(&self, malgre_tout: bool) -> bool {
        *self == Portee::Saison && !malgre_tout
    }
}

impl Cible {
    /// La participation donnée, à l'adresse de `--api` (`api`), de `VIGIE_API` ou de la
    /// configuration.
    pub(crate) fn donnee(participation: &str, api: Option<&str>) -> Result<Cible> {
        let CibleParticipation::Existante(id) = CibleParticipation::existante(participation)?
        else {
            unreachable!("CibleParticipation::existante rend une participation existante");
        };
        let adresse = crate::connexion::adresse_api(api)?;
        Ok(Cible {
            participation: id,
            api: valider_endpoint(&adresse.url, false)?,
            plan: None,
            nuit: None,
        })
    }

    /// Celle d'un plan, qui doit être un dépôt Vigie-Chiro dont la participation est connue, à
    /// l'adresse de ce plan ; `nuit` : la nuit de saison de ce plan.
    pub(crate) fn du_plan(plan: &DepotPlan, nuit: Option<NuitVisee>) -> Result<Cible> {
        let destination = Destination::du_plan(plan).ok();
        let Some(dest) = destination
            .as_ref()
            .and_then(crate::depot::vigiechiro::DestinationVigieChiro::de)
        else {
            return Err(ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                format!(
                    "le plan {} n'est pas un dépôt vers la plateforme Vigie-Chiro : \
                     donnez la participation, --participation ID",
                    plan.id
                ),
            )
            .into());
        };
        let Some(id) = plan.participation.as_deref().and_then(IdObjet::analyser) else {
            let (quoi, reprise) = match &nuit {
                Some(n) => (
                    format!("de la nuit {}", n.designation),
                    commande("retenter-echecs"),
                ),
                None => (
                    format!("du plan {}", plan.id),
                    commande("retenter-echecs").arg(plan.id),
                ),
            };
            return Err(ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                format!(
                    "la participation {quoi} n'est pas encore connue, sa création n'a pas \
                     abouti : reprenez d'abord le dépôt, {reprise}"
                ),
            )
            .into());
        };
        Ok(Cible {
            participation: id,
            api: dest.api.clone(),
            plan: Some(plan.id),
            nuit,
        })
    }

    /// « nuit 21/06 A1 » (une nuit de saison), ou « participation X », pour les messages.
    pub(crate) fn nom(&self) -> String {
        match &self.nuit {
            Some(n) => format!("nuit {}", n.designation),
            None => format!("participation {}", self.participation),
        }
    }
}

/// Les plans de la base qui déposent vers cette participation (à cette adresse).
fn plans_de_la_cible(base: &Base, cible: &Cible) -> Result<Vec<DepotPlan>> {
    Ok(base
        .plans()?
        .into_iter()
        .filter(|p| {
            Destination::du_plan(p).is_ok_and(|d| {
                crate::depot::vigiechiro::DestinationVigieChiro::de(&d)
                    .is_some_and(|d| d.api == cible.api)
            }) && p.participation.as_deref() == Some(cible.participation.as_str())
        })
        .collect())
}

/// Pourquoi la nuit d'un plan n'est pas prête pour le calcul.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NuitPasPrete {
    /// Des fichiers ne sont pas encore déposés.
    Incomplete {
        plan: i64,
        manquent: u64,
        total: u64,
        deposees: u64,
    },
    /// Un autre `vigie` dépose cette nuit en ce moment.
    EnDepot {
        plan: i64,
        pid: Option<u32>,
        manquent: u64,
        total: u64,
    },
}

/// Ce que la base dit des nuits de la participation, avant le calcul.
pub(crate) struct NuitsAvantCalcul {
    /// Les verrous des plans pris : aucun dépôt de ces nuits ne commence tant qu'ils sont
    /// tenus (jusqu'au lancement).
    pub(crate) verrous: Vec<VerrouPlan>,
    /// Les nuits qui ne sont pas prêtes (vide : toutes le sont).
    pub(crate) pas_pretes: Vec<NuitPasPrete>,
}

/// Avant tout appel au réseau : chaque nuit de la base (`chemin`) déposée vers cette
/// participation l'est-elle entièrement, et aucun dépôt ne l'envoie-t-il en ce moment ? Prend
/// les verrous des plans libres. Sans base, rien à dire.
pub(crate) fn examiner_nuits(chemin: &Path, cible: &Cible) -> Result<NuitsAvantCalcul> {
    let mut nuits = NuitsAvantCalcul {
        verrous: Vec::new(),
        pas_pretes: Vec::new(),
    };
    let Some(base) = Base::ouvrir_existante(chemin)? else {
        return Ok(nuits);
    };
    for plan in plans_de_la_cible(&base, cible)? {
        let r = base.resume(plan.id)?;
        let manquent = r.total().saturating_sub(r.deposee);
        match VerrouPlan::prendre(
            chemin,
            &plan.dossier,
            &plan.destination,
            &plan.id.to_string(),
        ) {
            Ok(v) => {
                if manquent > 0 {
                    nuits.pas_pretes.push(NuitPasPrete::Incomplete {
                        plan: plan.id,
                        manquent,
                        total: r.total(),
                        deposees: r.deposee,
                    });
                }
                nuits.verrous.push(v);
            }
            Err(ErreurBase::PlanOccupe { pid, .. }) => {
                nuits.pas_pretes.push(NuitPasPrete::EnDepot {
                    plan: plan.id,
                    pid,
                    manquent,
                    total: r.total(),
                })
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(nuits)
}

/// Ce que vise une commande d'après le dépôt.
pub(crate) struct Visees {
    pub(crate) cibles: Vec<Cible>,
    pub(crate) portee: Portee,
    /// Les nuits de la saison dont la participation n'est pas encore créée (leur désignation).
    pub(crate) sans_participation: Vec<String>,
}

impl Visees {
    /// La participation donnée (voir [`Cible::donnee`]).
    pub(crate) fn donnee(participation: &str, api: Option<&str>) -> Result<Visees> {
        let cible = Cible::donnee(participation, api)?;
        Ok(Visees {
            portee: Portee::Participation(cible.participation.clone()),
            cibles: vec![cible],
            sans_participation: Vec::new(),
        })
    }

    /// Le plan hors saison `plan` : celui du dernier dépôt (`nomme` faux), ou nommé par son
    /// numéro.
    pub(crate) fn du_plan(base: &Base, plan: i64, nomme: bool) -> Result<Visees> {
        let cible = Cible::du_plan(&base.plan(Some(plan))?, None)?;
        let portee = if nomme {
            Portee::Participation(cible.participation.clone())
        } else {
            Portee::DernierPlan
        };
        Ok(Visees {
            cibles: vec![cible],
            portee,
            sans_participation: Vec::new(),
        })
    }

    /// Des nuits de saison et leur désignation : nommées (`designees`), ou toute la saison.
    /// Toute la saison : une nuit dont la participation reste à créer est mise à part, et les
    /// autres continuent ; nommée, elle est refusée.
    pub(crate) fn des_nuits(
        base: &Base,
        nuits: impl ExactSizeIterator<Item = NuitVisee>,
        designees: bool,
    ) -> Result<Visees> {
        let portee = if designees {
            Portee::Nommees
        } else {
            Portee::Saison
        };
        let mut visees = Visees {
            cibles: Vec::with_capacity(nuits.len()),
            portee,
            sans_participation: Vec::new(),
        };
        for nuit in nuits {
            let plan = base.plan(Some(nuit.nuit.plan_id))?;
            if visees.portee == Portee::Saison && plan.participation.is_none() {
                visees.sans_participation.push(nuit.designation);
                continue;
            }
            visees.cibles.push(Cible::du_plan(&plan, Some(nuit))?);
        }
        Ok(visees)
    }

    /// Une nuit à citer en exemple (la première visée).
    pub(crate) fn exemple(&self) -> String {
        self.cibles
            .iter()
            .find_map(|c| c.nuit.as_ref().map(|n| n.designation.clone()))
            .or_else(|| self.sans_participation.first().cloned())
            .unwrap_or_else(|| "21/06 A1".to_owned())
    }
}

/// Note l'état relevé de la nuit dans la base (ce que `vigie etat` montre). Une base qui
/// refuse l'écriture (lecture seule) n'arrête rien : le relevé a eu lieu.
pub(crate) fn noter(base: Option<&Base>, cible: &Cible, e: &EtatParticipation) {
    let (Some(base), Some(plan)) = (base, cible.plan) else {
        return;
    };
    let t = e.traitement.as_ref();
    let date = t.and_then(|t| match t.etat {
        EtatCalcul::Planifie => t.date_planification,
        EtatCalcul::EnCours => t.date_debut,
        _ => t.date_fin.or(t.date_debut),
    });
    if let Err(err) = base.noter_calcul(plan, t.map(|t| t.etat.nom()), date.map(|d| d.secondes())) {
        tracing::warn!("état du calcul non noté dans la base : {err}");
    }
}

/// Les nuits des cibles examinées dans la base, avant tout appel au réseau.
pub(crate) struct Examinees<'c> {
    /// Les verrous de leurs plans, tenus jusqu'au lancement.
    pub(crate) verrous: Vec<VerrouPlan>,
    /// Les nuits qui ne sont pas prêtes, et leur cible.
    pub(crate) pas_pretes: Vec<(&'c Cible, NuitPasPrete)>,
    /// Les cibles dont toutes les nuits sont prêtes.
    pub(crate) pretes: Vec<&'c Cible>,
}

impl<'c> Examinees<'c> {
    /// Les cibles que `vigie traiter` lance, parmi `toutes` : les prêtes si la portée passe
    /// les nuits pas prêtes ([`Portee::passe_les_pas_pretes`]), sinon toutes (les nuits pas
    /// prêtes ont alors été refusées avant, ou sont lancées malgré tout).
    pub(crate) fn a_lancer(
        &mut self,
        toutes: &'c [Cible],
        portee: &Portee,
        malgre_tout: bool,
    ) -> Vec<&'c Cible> {
        if portee.passe_les_pas_pretes(malgre_tout) {
            std::mem::take(&mut self.pretes)
        } else {
            toutes.iter().collect()
        }
    }
}

/// Les nuits de chaque cible examinées dans la base (voir [`examiner_nuits`]).
pub(crate) fn examiner_les_cibles<'c>(chemin: &Path, cibles: &'c [Cible]) -> Result<Examinees<'c>> {
    let mut e = Examinees {
        verrous: Vec::new(),
        pas_pretes: Vec::new(),
        pretes: Vec::new(),
    };
    for cible in cibles {
        let nuits = examiner_nuits(chemin, cible)?;
        e.verrous.extend(nuits.verrous);
        if nuits.pas_pretes.is_empty() {
            e.pretes.push(cible);
        }
        e.pas_pretes
            .extend(nuits.pas_pretes.into_iter().map(|n| (cible, n)));
    }
    Ok(e)
}
