//! Les réglages d'envoi retenus par un plan : ceux que l'utilisateur a donnés explicitement
//! (`--seuil-multipart 6`, `--debit-max 2Mo/s`…), gardés dans `depot_plan.reglages` pour que
//! toute relance (`vigie depot`, `vigie retenter-echecs`) les reprenne.
//!
//! Pourquoi : une relance qui reprenait aux défauts oubliait la limite de débit (le forfait du
//! téléphone avec) et, sous le seuil du multipart par défaut, supprimait l'enregistrement d'un
//! fichier commencé en plusieurs parties pour le renvoyer en entier. Seules les valeurs données
//! sont retenues : un réglage laissé à son défaut suit celui de la version de `vigie` qui
//! reprend le plan. Ce module ne connaît que la forme persistée ; la fusion avec la ligne de
//! commande est dans `commandes/reglages.rs`.

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};

use super::{Base, Resultat};

/// Les réglages retenus par un plan (ceux qui ont été donnés explicitement), en JSON dans
/// `depot_plan.reglages` : un objet, une clé par réglage (le nom de son champ dans
/// `cli::OptionsEnvoi`, `paralleles`, `debit_max`…), sa valeur en nombre (Mio, octets par
/// seconde, secondes…). Ce module n'en connaît aucune : `cli/reglages.rs` dit comment chaque
/// réglage s'écrit et se relit. Une clé inconnue (écrite par une version plus récente) est
/// gardée telle quelle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct ReglagesRetenus(serde_json::Map<String, serde_json::Value>);

impl ReglagesRetenus {
    pub(crate) fn est_vide(&self) -> bool {
        self.0.is_empty()
    }

    /// La valeur retenue de ce réglage, s'il en a une.
    pub(crate) fn valeur(&self, nom: &str) -> Option<&serde_json::Value> {
        self.0.get(nom)
    }

    /// Retient cette valeur pour ce réglage (elle remplace la précédente).
    pub(crate) fn retenir(&mut self, nom: &str, valeur: serde_json::Value) {
        self.0.insert(nom.to_owned(), valeur);
    }
}

impl Base {
    /// Les réglages que retient le plan (aucun s'il n'en a pas). Une valeur illisible (écrite
    /// à la main, ou par une version qui l'écrirait autrement) est ignorée, en le disant au
    /// journal : le plan reprend alors aux défauts, comme avant qu'il retienne ses réglages.
    pub(crate) fn reglages(&self, plan_id: i64) -> Resultat<ReglagesRetenus> {
        let texte: Option<String> = self
            .conn
            .query_row(
                "SELECT reglages FROM depot_plan WHERE id = ?1",
                [plan_id],
                |l| l.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?
            .flatten();
        Ok(match texte {
            None => ReglagesRetenus::default(),
            Some(t) => serde_json::from_str(&t).unwrap_or_else(|e| {
                tracing::warn!(
                    plan = plan_id,
                    erreur = %e,
                    "réglages retenus par le plan illisibles : ignorés, le plan reprend aux défauts"
                );
                ReglagesRetenus::default()
            }),
        })
    }

    /// Retient ces réglages pour le plan (ils remplacent les précédents).
    pub(crate) fn retenir_reglages(
        &self,
        plan_id: i64,
        reglages: &ReglagesRetenus,
    ) -> Resultat<()> {
        let texte = (!reglages.est_vide())
            .then(|| serde_json::to_string(reglages))
            .transpose()
            .map_err(|e| crate::plan::ErreurBase::Illisible {
                chemin: self.chemin.clone(),
                detail: e.to_string(),
            })?;
        self.conn
            .execute(
                "UPDATE depot_plan SET reglages = ?2 WHERE id = ?1",
                rusqlite::params![plan_id, texte],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }
}
