//! `vigie participations` : les participations de l'utilisateur sur la plateforme (toutes,
//! celles créées sur le site web comme celles de `vigie`), lues par `GET /moi/participations`
//! (`resources/participations.py` `list_user_participations` : les siennes, paginées, avec
//! leur site développé et leur `traitement`), puis, pour chacune, la première page de ses
//! fichiers (`GET /participations/{id}/pieces_jointes`, un élément : le total, et un nom
//! qui dit le passage et la soirée), et ce que sa `configuration` ne dit pas encore du
//! matériel (`description::manquantes`), avec l'option de `vigie depot` qui le pose. Rien
//! n'est écrit, ni sur la plateforme ni dans la base.
//!
//! Bornes : la liste est lue page par page par le client (`transport/vigiechiro/saison.rs`) ;
//! au-delà de [`FICHIERS_RELUS_MAX`] participations, les suivantes sont dites sans leur nombre
//! de fichiers (une requête de plus chacune).

use anyhow::Result;

use super::saison::{lire_moi, lire_ou_dire};
use super::vigiechiro::{client, mener_ponctuel};
use crate::cli::{ArgsParticipations, OptionsGlobales};
use crate::saison::correspondance::date_plateforme;
use crate::saison::nuits::{cle_du_nom, soiree_de};
use crate::sortie::CodeSortie;
use crate::suivi::calcul::ModeSortie;
use crate::suivi::participations::{self as dire, ParticipationDeLaPlateforme};
use crate::transport::vigiechiro::{EtatCalcul, ParticipationLue};

/// Combien de participations ont leurs fichiers relus (une requête chacune).
const FICHIERS_RELUS_MAX: usize = 500;

/// L'état du calcul en quelques mots, et le mot du JSON.
fn calcul(etat: Option<&EtatCalcul>) -> (&'static str, &'static str) {
    match etat {
        None => ("calcul pas lancé", "pas_lance"),
        Some(EtatCalcul::Planifie) => ("calcul planifié", "planifie"),
        Some(EtatCalcul::EnCours) => ("calcul en cours", "en_cours"),
        Some(EtatCalcul::Fini) => ("calcul fini", "fini"),
        Some(EtatCalcul::Erreur) => ("calcul en erreur", "erreur"),
        Some(EtatCalcul::Retry) => ("nouvel essai prévu", "retry"),
        Some(EtatCalcul::Autre(_)) => ("calcul : état inconnu", "autre"),
    }
}

/// Une participation lue, et ce que dit la première page de ses fichiers.
fn decrire(
    p: &ParticipationLue,
    fichiers: Option<(u64, Option<String>)>,
) -> ParticipationDeLaPlateforme {
    let (total, titre) = match fichiers {
        Some((t, titre)) => (Some(t), titre),
        None => (None, None),
    };
    let cle = titre.as_deref().and_then(cle_du_nom);
    // La soirée de ses fichiers ; sinon celle de sa date de début (à l'heure de la machine).
    let soiree = cle.as_ref().and_then(|c| c.soiree).or_else(|| {
        p.date_debut
            .as_deref()
            .and_then(date_plateforme)
            .map(|d| soiree_de(d.with_timezone(&chrono::Local).naive_local()))
    });
    ParticipationDeLaPlateforme {
        id: p.id.to_string(),
        site: p
            .site
            .as_ref()
            .map(|s| s.titre.clone())
            .unwrap_or_else(|| "site inconnu".to_owned()),
        annee: soiree.map(|s| chrono::Datelike::year(&s)),
        soiree,
        point: p.point.clone().filter(|p| !p.trim().is_empty()),
        passage: cle.map(|c| c.passage),
        fichiers: total,
        calcul: calcul(p.etat_calcul.as_ref()),
        // Point fixe : un point ; routier et pédestre, aucun (la règle de la création).
        a_decrire: crate::description::manquantes(
            &p.configuration.clone().unwrap_or_default(),
            p.point.as_deref().is_some_and(|p| !p.trim().is_empty()),
        ),
    }
}

/// `vigie participations` (voir l'en-tête du module).
pub(super) fn participations(g: &OptionsGlobales, args: ArgsParticipations) -> Result<CodeSortie> {
    crate::jeton::lire()?;
    let api = crate::connexion::adresse_api(args.api.url.as_deref())?.url;
    let client = client(&api)?;
    let decrites = mener_ponctuel(async |emetteur| {
        lire_moi(&client, emetteur, &api).await?;
        let liste = lire_ou_dire(emetteur, "/moi/participations", || {
            client.mes_participations()
        })
        .await?;
        let mut decrites = Vec::with_capacity(liste.len());
        for (i, p) in liste.iter().enumerate() {
            let fichiers = if i < FICHIERS_RELUS_MAX {
                let cible = format!("/participations/{}/pieces_jointes", p.id);
                let page = lire_ou_dire(emetteur, &cible, || {
                    client.pieces_jointes(&p.id, 1, 1, &["wav", "ta", "tc"])
                })
                .await?;
                let total = page
                    .meta
                    .and_then(|m| m.total)
                    .unwrap_or(page.items.len() as u64);
                Some((total, page.items.into_iter().next().map(|f| f.titre)))
            } else {
                None
            };
            decrites.push(decrire(p, fichiers));
        }
        Ok(decrites)
    })?;
    dire::participations(
        ModeSortie {
            json: g.json,
            silencieux: g.quiet,
        },
        &api,
        &decrites,
    )?;
    Ok(CodeSortie::Succes)
}
