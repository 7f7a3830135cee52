//! Ce qui revient à une nuit de la commande, une fois la plateforme et la base lues : garder
//! son plan (une relance), reprendre sa participation, ou la créer. Des valeurs, sans un mot :
//! les phrases sont dans `suivi/saison.rs`, le câblage dans `commandes/saison.rs`.

use chrono::{DateTime, Utc};

use super::correspondance::{Preuve, bornes_par_modification};
use super::fuseau::Fuseau;
use super::nuits::{CleNuit, Nuit, Protocole, bornes_utc};
use crate::depot::fabrique::Destination;
use crate::destination::IdObjet;
use crate::inventaire::Enregistrement;
use crate::plan::{DepotPlan, NuitLiee};

/// Ce qui revient à une nuit, une fois la plateforme et la base lues.
#[derive(Debug, Clone)]
pub(crate) enum Sort {
    /// Déjà liée à un plan de la base (une relance) : elle le garde.
    Liee { plan: DepotPlan },
    /// Sa participation existe sur la plateforme : reprise.
    Reprise {
        participation: IdObjet,
        preuve: Preuve,
    },
    /// À créer.
    ACreer,
    /// Non vérifiée (simulation hors ligne, sans jeton).
    NonVerifiee,
}

/// Une nuit de la commande, avec ce qu'il faut pour la planifier.
pub(crate) struct NuitDeSaison {
    pub(crate) nuit: Nuit,
    /// La première et la dernière séquence, en UTC (point fixe).
    pub(crate) bornes: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// Le site rapproché du numéro des noms.
    pub(crate) site: Option<IdObjet>,
    pub(crate) sort: Sort,
}

impl NuitDeSaison {
    /// Une nuit du regroupement, datée, pas encore vérifiée : point fixe, les instants de ses
    /// noms ; routier, les dates de ses fichiers (`enregistrements` : ceux qu'elle désigne).
    pub(crate) fn datee(
        nuit: Nuit,
        enregistrements: &[Enregistrement],
        fuseau: &Fuseau,
        maintenant: DateTime<Utc>,
    ) -> NuitDeSaison {
        NuitDeSaison {
            bornes: bornes_utc(&nuit, fuseau)
                .or_else(|| bornes_par_modification(&nuit, enregistrements, maintenant)),
            nuit,
            site: None,
            sort: Sort::NonVerifiee,
        }
    }

    /// La nuit telle que la base la garde (`saison_nuit`), sur le site `site`.
    pub(crate) fn liee(&self, site: &IdObjet, fuseau: &Fuseau) -> NuitLiee {
        let cle = &self.nuit.cle;
        NuitLiee {
            site: site.to_string(),
            numero_site: cle.site.clone(),
            protocole: protocole_texte(cle.protocole).to_owned(),
            passage: cle.passage,
            point: cle.point.clone().unwrap_or_default(),
            soiree: cle.soiree.map(|s| s.to_string()).unwrap_or_default(),
            fuseau: fuseau.to_string(),
            premiere_s: self.bornes.map(|(d, _)| d.timestamp()),
            derniere_s: self.bornes.map(|(_, f)| f.timestamp()),
            enregistreurs: self
                .nuit
                .enregistreurs
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// Les octets de ses fichiers (`enregistrements` : la liste donnée au regroupement).
    pub(crate) fn octets(&self, enregistrements: &[Enregistrement]) -> u64 {
        self.nuit
            .fichiers
            .iter()
            .map(|&i| enregistrements[i].taille)
            .sum()
    }
}

/// Le protocole tel que l'écrivent la base et le JSON.
pub(crate) fn protocole_texte(p: Protocole) -> &'static str {
    match p {
        Protocole::PointFixe => "point_fixe",
        Protocole::Routier => "routier",
    }
}

/// La clé d'une nuit de la base est-elle celle-ci ?
pub(crate) fn meme_nuit(n: &NuitLiee, cle: &CleNuit) -> bool {
    cle.site == n.numero_site
        && protocole_texte(cle.protocole) == n.protocole
        && cle.passage == n.passage
        && cle.point.as_deref().unwrap_or("") == n.point
        && cle.soiree.map(|s| s.to_string()).unwrap_or_default() == n.soiree
}

/// La participation d'un plan, si elle est connue (créée, ou donnée par son identité).
pub(crate) fn participation_du_plan(plan: &DepotPlan) -> Option<String> {
    plan.participation.clone().or_else(|| {
        Destination::du_plan(plan)
            .ok()?
            .participation_donnee()
            .map(IdObjet::to_string)
    })
}

/// Un autre plan du dossier `dossier` (parmi `plans`) vers la même participation que `dest`,
/// d'après ce que sait la base : le dépôt le reprendrait au lieu de déposer la nuit une seconde
/// fois. C'est le cas d'un plan créé par une version antérieure (instants écrits autrement), ou
/// d'une participation désignée une fois par son site (`--site`, qui l'a créée) et une fois par
/// son identifiant.
pub(crate) fn plan_vers_la_meme_participation(
    plans: Vec<DepotPlan>,
    dossier: &str,
    dest: &crate::depot::vigiechiro::DestinationVigieChiro,
    identite: &str,
) -> Option<DepotPlan> {
    plans.into_iter().find(|plan| {
        if plan.dossier != dossier || plan.destination == identite {
            return false;
        }
        let Ok(autre) = Destination::du_plan(plan) else {
            return false;
        };
        let participation = plan.participation.as_deref().and_then(IdObjet::analyser);
        crate::depot::vigiechiro::DestinationVigieChiro::de(&autre)
            .is_some_and(|autre| dest.meme_participation(autre, participation.as_ref()))
    })
}

/// Un fichier de protocole que `vigie` a déjà déposé dans la participation `id` (d'après la
/// base des plans), s'il y en a : son nom dit le passage et la soirée de la participation.
pub(crate) fn fichier_deja_depose(
    base: &crate::plan::Base,
    id: &IdObjet,
) -> Result<Option<String>, crate::plan::ErreurBase> {
    let id = id.to_string();
    for plan in base.plans()? {
        if participation_du_plan(&plan).as_deref() != Some(id.as_str()) {
            continue;
        }
        if let Some(u) = base
            .unites(plan.id, &[crate::plan::EtatUnite::Deposee])?
            .into_iter()
            .find(|u| super::nuits::cle_du_nom(&u.cle).is_some())
        {
            return Ok(Some(u.cle));
        }
    }
    Ok(None)
}
