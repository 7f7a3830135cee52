//! L'affichage sans barre : une ligne simple par événement utile, sur la sortie d'erreur.
//!
//! Pourquoi : hors terminal (cron, CI, `2> journal.txt`), des barres redessinées deviennent des
//! kilo-octets de séquences d'échappement illisibles. Une ligne par événement *utile* (unité
//! commencée, déposée, en échec avec sa cause, réessai annoncé, réseau coupé) se lit et se
//! `grep`e ; la progression octet par octet n'en est pas un. `~` marque un incident absorbé,
//! pas une erreur ; `=` un fichier que la destination avait déjà.

use std::io::Write;
use std::time::Duration;

use super::format::neutraliser;
use super::repetes::{MessagesRepetes, Repetition};
use super::{Suivi, secondes_au_dessus};
use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite};
use crate::plateforme::Marques;

/// Une ligne par événement utile, sur la sortie d'erreur. `silencieux` (`-q`) ne garde que les
/// échecs.
#[derive(Debug)]
pub(crate) struct SuiviLignes {
    silencieux: bool,
    /// Les messages d'échec déjà dits : un même message n'est pas répété fichier par fichier.
    repetes: MessagesRepetes,
    /// ✓ et ✗, ou leur repli pour l'ancienne console de Windows.
    marques: Marques,
}

impl SuiviLignes {
    pub(crate) fn nouveau(silencieux: bool) -> Self {
        SuiviLignes {
            silencieux,
            repetes: MessagesRepetes::default(),
            marques: Marques::pour_la_sortie_d_erreur(),
        }
    }

    fn ligne(&self, texte: std::fmt::Arguments<'_>) {
        // Une sortie d'erreur fermée ne doit pas arrêter un dépôt.
        let _ = writeln!(crate::sortie::erreur(), "{texte}");
    }
}

impl Suivi for SuiviLignes {
    fn unite_commencee(&self, u: &DepotUnite) {
        if !self.silencieux {
            self.ligne(format_args!("→ {}", neutraliser(&u.chemin)));
        }
    }

    fn nouvelle_tentative(&self, u: &DepotUnite, _tentative: u32, attente: Duration) {
        if !self.silencieux {
            self.ligne(format_args!(
                "~ {} : nouvelle tentative dans {} s",
                neutraliser(&u.chemin),
                secondes_au_dessus(attente)
            ));
        }
    }

    fn unite_deposee(&self, u: &DepotUnite) {
        if !self.silencieux {
            self.ligne(format_args!(
                "{} {}",
                self.marques.deposee,
                neutraliser(&u.chemin)
            ));
        }
    }

    fn unite_deja_presente(&self, u: &DepotUnite, comparee: bool, destination: &PartieDuBilan) {
        if !self.silencieux {
            let contenu = if comparee {
                "identique au fichier local"
            } else {
                "contenu non comparé"
            };
            self.ligne(format_args!(
                "= {} : déjà {} ({contenu}), rien n'est reparti",
                neutraliser(&u.chemin),
                destination.lieu()
            ));
        }
    }

    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        let nature = if definitif {
            "refus définitif"
        } else {
            "échec"
        };
        let dit = format!("{nature} ({cause}) : {}", neutraliser(message));
        match self.repetes.noter(&dit) {
            Repetition::Premiere => {
                self.ligne(format_args!(
                    "{} {} : {dit}",
                    self.marques.echec,
                    neutraliser(&u.chemin)
                ));
            }
            Repetition::Deuxieme => self.ligne(format_args!(
                "{} {} : même message ; il ne sera plus répété pour les fichiers suivants (le \
                 bilan les compte)",
                self.marques.echec,
                neutraliser(&u.chemin)
            )),
            Repetition::Tue => {}
        }
    }

    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        self.ligne(format_args!(
            "? {} : issue inconnue, à réconcilier à la prochaine relance ({})",
            neutraliser(&u.chemin),
            neutraliser(message)
        ));
    }

    fn reseau_indisponible(&self, depuis: Duration, attente: Duration) {
        if self.silencieux {
            return;
        }
        if depuis >= Duration::from_secs(1) {
            self.ligne(format_args!(
                "~ réseau indisponible depuis {} : nouvelle tentative dans {} s",
                super::tableau::depuis_lisible(depuis),
                secondes_au_dessus(attente)
            ));
        } else {
            self.ligne(format_args!(
                "~ réseau indisponible : nouvelle tentative dans {} s",
                secondes_au_dessus(attente)
            ));
        }
    }

    fn reseau_retabli(&self) {
        if !self.silencieux {
            self.ligne(format_args!("~ réseau rétabli : les envois reprennent"));
        }
    }

    fn nuit_indisponible(&self, dossier: &std::path::Path) {
        self.ligne(format_args!("{}", super::texte_nuit_indisponible(dossier)));
    }

    fn nuit_retrouvee(&self, dossier: &std::path::Path) {
        self.ligne(format_args!("{}", super::texte_nuit_retrouvee(dossier)));
    }

    fn parallelisme(&self, courant: usize, plafond: usize) {
        if !self.silencieux {
            self.ligne(format_args!(
                "~ parallélisme : {courant} transfert(s) en vol au plus, sur {plafond}"
            ));
        }
    }

    fn interruption(&self) {
        self.ligne(format_args!(
            "Interruption : arrêt des envois en cours, le plan est tenu à jour (Ctrl-C encore pour couper aussitôt)."
        ));
    }
}
