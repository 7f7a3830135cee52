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
use crate::sortie::CodeSortie;
use crate::suivi::participations::{self as dire, ParticipationDeLaPlateforme};

/// Combien de participations ont leurs fichiers relus (une requête chacune).
const FICHIERS_RELUS_MAX: usize = 500;

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
            decrites.push(ParticipationDeLaPlateforme::decrire(p, fichiers));
        }
        Ok(decrites)
    })?;
    dire::participations(g.mode_sortie(), &api, &decrites)?;
    Ok(CodeSortie::Succes)
}
