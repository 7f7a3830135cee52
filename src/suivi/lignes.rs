//! Les affichages sans barre : une ligne simple par événement utile (sortie d'erreur), ou une
//! ligne JSON par événement (sortie standard, pour les scripts).

use std::io::{self, Write};
use std::time::Duration;

use serde_json::json;

use super::{Suivi, secondes_au_dessus};
use crate::plan::{CauseRefus, DepotUnite};

/// Une ligne par événement utile, sur la sortie d'erreur. `silencieux` (`-q`) ne garde que les
/// échecs.
#[derive(Debug, Default)]
pub struct SuiviLignes {
    pub silencieux: bool,
}

impl SuiviLignes {
    fn ligne(&self, texte: std::fmt::Arguments<'_>) {
        // Une sortie d'erreur fermée ne doit pas arrêter un dépôt.
        let _ = writeln!(io::stderr().lock(), "{texte}");
    }
}

impl Suivi for SuiviLignes {
    fn unite_commencee(&self, u: &DepotUnite) {
        if !self.silencieux {
            self.ligne(format_args!("→ {}", u.chemin));
        }
    }

    fn nouvelle_tentative(&self, u: &DepotUnite, _tentative: u32, attente: Duration) {
        if !self.silencieux {
            self.ligne(format_args!(
                "~ {} : nouvelle tentative dans {} s",
                u.chemin,
                secondes_au_dessus(attente)
            ));
        }
    }

    fn unite_deposee(&self, u: &DepotUnite) {
        if !self.silencieux {
            self.ligne(format_args!("✓ {}", u.chemin));
        }
    }

    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        let nature = if definitif {
            "refus définitif"
        } else {
            "échec"
        };
        self.ligne(format_args!(
            "✗ {} : {nature} ({cause}) : {message}",
            u.chemin
        ));
    }

    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        self.ligne(format_args!(
            "? {} : issue inconnue, à réconcilier à la prochaine relance ({message})",
            u.chemin
        ));
    }

    fn interruption(&self) {
        self.ligne(format_args!(
            "Interruption : arrêt des envois en cours, le plan est tenu à jour (Ctrl-C encore pour couper aussitôt)."
        ));
    }
}

/// Une ligne JSON par événement sur la sortie standard.
#[derive(Debug, Default)]
pub struct SuiviJson;

fn ecrire(valeur: serde_json::Value) {
    let mut sortie = io::stdout().lock();
    let _ = serde_json::to_writer(&mut sortie, &valeur);
    let _ = sortie.write_all(b"\n");
    let _ = sortie.flush();
}

impl Suivi for SuiviJson {
    fn debut(&self, unites: u64, octets: u64) {
        ecrire(json!({"evenement": "debut", "unites": unites, "octets": octets}));
    }

    fn unite_commencee(&self, u: &DepotUnite) {
        ecrire(
            json!({"evenement": "unite_commencee", "unite": u.chemin, "cle": u.cle, "taille": u.taille}),
        );
    }

    fn nouvelle_tentative(&self, u: &DepotUnite, tentative: u32, attente: Duration) {
        ecrire(json!({
            "evenement": "nouvelle_tentative",
            "unite": u.chemin,
            "tentative": tentative,
            "attente_s": attente.as_secs_f64(),
        }));
    }

    fn unite_deposee(&self, u: &DepotUnite) {
        ecrire(
            json!({"evenement": "unite_deposee", "unite": u.chemin, "cle": u.cle, "taille": u.taille}),
        );
    }

    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        ecrire(json!({
            "evenement": "unite_en_echec",
            "unite": u.chemin,
            "cause": cause.as_str(),
            "definitif": definitif,
            "message": message,
        }));
    }

    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        ecrire(json!({"evenement": "unite_incertaine", "unite": u.chemin, "message": message}));
    }

    fn interruption(&self) {
        ecrire(json!({"evenement": "interruption"}));
    }
}
