//! Ce qu'un passage dit de ses réglages d'envoi : ceux qu'il a repris du plan, et ceux qui,
//! donnés pour ce passage, remplacent une valeur que le plan retenait (voir
//! `commandes/reglages.rs` pour la règle, `plan/reglages.rs` pour ce qui est retenu). Le bilan
//! les dit, pour qu'une relance ne change jamais de réglage en silence.

/// Un réglage dit au départ et au bilan : `--debit-max 2 Mo/s`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReglageAnnonce {
    /// L'option, telle qu'on l'écrit (`--debit-max`).
    pub(crate) option: String,
    /// La valeur qui vaut pour ce passage, lisible (`2 Mo/s`, `6`).
    pub(crate) valeur: String,
    /// Celle que le plan retenait, quand une valeur donnée la remplace.
    pub(crate) retenue: Option<String>,
}

/// Les réglages d'un passage qui ne sont pas ceux de la ligne de commande seule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ReglagesDuPassage {
    /// Repris du plan (non donnés pour ce passage).
    pub(crate) repris: Vec<ReglageAnnonce>,
    /// Donnés pour ce passage, à la place de la valeur que retenait le plan (désormais
    /// retenus à leur tour).
    pub(crate) remplaces: Vec<ReglageAnnonce>,
    /// Repris de la saison (les réglages donnés au dépôt de ses nuits), pas d'un plan seul.
    pub(crate) de_la_saison: bool,
}

impl ReglagesDuPassage {
    /// Ce qu'en dit le bilan, une ligne par sorte, chacune courte (« Réglages repris du plan :
    /// --seuil-multipart 6, --debit-max 2 Mo/s. »).
    pub(crate) fn lignes(&self) -> Vec<String> {
        let mut lignes = Vec::new();
        if !self.repris.is_empty() {
            let liste: Vec<String> = self
                .repris
                .iter()
                .map(|r| format!("{} {}", r.option, r.valeur))
                .collect();
            let origine = if self.de_la_saison {
                "de la saison (donnés à son dépôt)"
            } else {
                "du plan"
            };
            lignes.push(format!("Réglages repris {origine} : {}.", liste.join(", ")));
        }
        for r in &self.remplaces {
            lignes.push(format!(
                "{} {} donné remplace {} retenu par {} (désormais retenu).",
                r.option,
                r.valeur,
                r.retenue.as_deref().unwrap_or(""),
                if self.de_la_saison {
                    "la saison"
                } else {
                    "le plan"
                }
            ));
        }
        lignes
    }
}
