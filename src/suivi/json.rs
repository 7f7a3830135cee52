//! Les événements en lignes JSON sur la sortie standard (`--json`), pour les scripts.
//!
//! Pourquoi ces règles : un script lit la sortie standard ligne à ligne avec un analyseur JSON ;
//! une seule ligne d'autre chose le casse, d'où « rien d'autre sur la sortie standard ». La
//! progression est limitée (au plus une ligne par unité et par seconde, plus celle des 100 %) :
//! le moteur l'annonce quatre fois par seconde et par unité, ce qui noierait les événements qui
//! comptent dans un journal de plusieurs heures.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::Duration;

use super::{Evenement, Horloge, HorlogeSysteme, Suivi};
use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite};

/// Au plus une ligne `progression` par unité et par intervalle.
pub(crate) const INTERVALLE_PROGRESSION: Duration = Duration::from_secs(1);

/// Une ligne JSON par événement sur la sortie standard. `silencieux` (`-q`) ne garde que les
/// erreurs (échecs, incertitudes, interruption) ; le bilan s'écrit à part.
pub(crate) struct SuiviJson {
    silencieux: bool,
    horloge: Box<dyn Horloge>,
    cadence: Mutex<Cadence>,
}

impl SuiviJson {
    pub(crate) fn nouveau(silencieux: bool) -> Self {
        SuiviJson {
            silencieux,
            horloge: Box::new(HorlogeSysteme::nouveau()),
            cadence: Mutex::new(Cadence::default()),
        }
    }

    fn cadence(&self) -> std::sync::MutexGuard<'_, Cadence> {
        self.cadence.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for SuiviJson {
    fn default() -> Self {
        SuiviJson::nouveau(false)
    }
}

/// La version du format des lignes JSON de `vigie`, portée par chacune (`"version": 1`).
/// Ajouter un champ ou un événement ne la change pas ; retirer un champ, ou en changer le sens
/// ou le type, la fait passer à la suivante. Le schéma de chaque événement est dans
/// `schemas/vigie.schema.json`.
pub(crate) const VERSION_JSON: u64 = 1;

/// Écrit un événement en une ligne JSON sur la sortie standard, d'un bloc (verrou tenu) pour
/// que deux unités ne mêlent pas leurs lignes, avec la version du format : c'est par ici que
/// passe chaque ligne JSON de `vigie`, et rien d'autre qu'un [`Evenement`] n'y passe.
pub(super) fn ecrire_ligne(evenement: &Evenement<'_>) -> io::Result<()> {
    let mut valeur = evenement.en_valeur();
    if let Some(objet) = valeur.as_object_mut() {
        objet.insert("version".into(), VERSION_JSON.into());
    }
    let mut sortie = crate::sortie::standard_brute();
    serde_json::to_writer(&mut sortie, &valeur)?;
    sortie.write_all(b"\n")?;
    sortie.flush()
}

/// Une ligne d'événement du moteur. Un tube fermé n'arrête pas le dépôt : la ligne est perdue,
/// pas la nuit.
fn ecrire(evenement: Evenement<'_>) {
    let _ = evenement.ecrire();
}

/// Quand une ligne `progression` mérite d'être écrite.
#[derive(Debug, Default)]
pub(crate) struct Cadence {
    /// Par unité : quand et à combien d'octets on a écrit la dernière.
    dernieres: HashMap<i64, (Duration, u64)>,
}

impl Cadence {
    /// Vrai s'il faut écrire : rien de neuf depuis la dernière ligne, non ; 100 % atteints,
    /// oui ; sinon, une seconde au moins depuis la dernière.
    pub(crate) fn admettre(&mut self, unite: i64, octets: u64, taille: u64, t: Duration) -> bool {
        if let Some(&(quand, vus)) = self.dernieres.get(&unite) {
            let complet = octets >= taille;
            if octets == vus || (!complet && t < quand + INTERVALLE_PROGRESSION) {
                return false;
            }
        }
        self.dernieres.insert(unite, (t, octets));
        true
    }

    /// L'unité a fini : on oublie sa cadence.
    pub(crate) fn oublier(&mut self, unite: i64) {
        self.dernieres.remove(&unite);
    }
}

impl Suivi for SuiviJson {
    fn debut(&self, unites: u64, octets: u64) {
        if !self.silencieux {
            ecrire(Evenement::Debut { unites, octets });
        }
    }

    fn unite_commencee(&self, u: &DepotUnite) {
        if !self.silencieux {
            ecrire(Evenement::UniteCommencee {
                unite: &u.chemin,
                cle: &u.cle,
                taille: u.taille,
            });
        }
    }

    fn progression(&self, u: &DepotUnite, octets: u64) {
        if self.silencieux {
            return;
        }
        let t = self.horloge.maintenant();
        if self.cadence().admettre(u.id, octets, u.taille, t) {
            ecrire(Evenement::Progression {
                unite: &u.chemin,
                octets,
                taille: u.taille,
            });
        }
    }

    fn nouvelle_tentative(&self, u: &DepotUnite, tentative: u32, attente: Duration) {
        if !self.silencieux {
            ecrire(Evenement::NouvelleTentative {
                unite: &u.chemin,
                tentative,
                attente_s: attente.as_secs_f64(),
            });
        }
    }

    fn unite_deposee(&self, u: &DepotUnite) {
        self.cadence().oublier(u.id);
        if !self.silencieux {
            ecrire(Evenement::UniteDeposee {
                unite: &u.chemin,
                cle: &u.cle,
                taille: u.taille,
            });
        }
    }

    fn unite_deja_presente(&self, u: &DepotUnite, comparee: bool, destination: &PartieDuBilan) {
        self.cadence().oublier(u.id);
        if self.silencieux {
            return;
        }
        // Chaque destination a son événement (le contrat JSON les distingue).
        ecrire(match destination.participation() {
            Some(_) => Evenement::UniteDejaSurLaPlateforme {
                unite: &u.chemin,
                cle: &u.cle,
                taille: u.taille,
                contenu_compare: comparee,
            },
            None => Evenement::UniteDejaALaDestination {
                unite: &u.chemin,
                cle: &u.cle,
                taille: u.taille,
            },
        });
    }

    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        self.cadence().oublier(u.id);
        ecrire(Evenement::UniteEnEchec {
            unite: &u.chemin,
            cause: cause.as_str(),
            definitif,
            message,
        });
    }

    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        self.cadence().oublier(u.id);
        ecrire(Evenement::UniteIncertaine {
            unite: &u.chemin,
            message,
        });
    }

    fn reseau_indisponible(&self, depuis: Duration, attente: Duration) {
        if !self.silencieux {
            ecrire(Evenement::ReseauIndisponible {
                attente_s: attente.as_secs_f64(),
                depuis_s: depuis.as_secs_f64(),
            });
        }
    }

    fn reseau_retabli(&self) {
        if !self.silencieux {
            ecrire(Evenement::ReseauRetabli);
        }
    }

    fn nuit_indisponible(&self, dossier: &std::path::Path) {
        ecrire(Evenement::NuitIndisponible { dossier });
    }

    fn nuit_retrouvee(&self, dossier: &std::path::Path) {
        ecrire(Evenement::NuitRetrouvee { dossier });
    }

    fn parallelisme(&self, courant: usize, plafond: usize) {
        if !self.silencieux {
            ecrire(Evenement::Parallelisme { courant, plafond });
        }
    }

    fn interruption(&self) {
        ecrire(Evenement::Interruption);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn au_plus_une_progression_par_seconde_et_par_unite() {
        let mut c = Cadence::default();
        assert!(c.admettre(1, 100, 1000, ms(0)));
        assert!(!c.admettre(1, 200, 1000, ms(250)));
        assert!(!c.admettre(1, 300, 1000, ms(999)));
        // Une autre unité a sa propre cadence.
        assert!(c.admettre(2, 10, 1000, ms(500)));
        assert!(c.admettre(1, 400, 1000, ms(1000)));
        assert!(!c.admettre(1, 500, 1000, ms(1250)));
    }

    #[test]
    fn les_100_pour_cent_passent_toujours_mais_une_seule_fois() {
        let mut c = Cadence::default();
        assert!(c.admettre(1, 100, 1000, ms(0)));
        assert!(c.admettre(1, 1000, 1000, ms(100)));
        assert!(!c.admettre(1, 1000, 1000, ms(200)));
        assert!(!c.admettre(1, 1000, 1000, ms(5000)));
    }

    #[test]
    fn rien_de_neuf_rien_d_ecrit_et_une_tentative_ratee_se_voit() {
        let mut c = Cadence::default();
        assert!(c.admettre(1, 100, 1000, ms(0)));
        assert!(!c.admettre(1, 100, 1000, ms(3000)), "unité immobile");
        // Le courant redescend (tentative ratée) : c'est une nouvelle, à la cadence habituelle.
        assert!(c.admettre(1, 0, 1000, ms(3001)));
        c.oublier(1);
        assert!(
            c.admettre(1, 0, 1000, ms(3002)),
            "oubliée, l'unité repart de zéro"
        );
    }
}
