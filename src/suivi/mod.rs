//! Ce que le moteur annonce, et ce que l'utilisateur en voit.
//!
//! Le moteur ne connaît que le trait `Suivi` : ni indicatif, ni clap, ni la sortie standard.
//! Pendant une attente de réessai, l'utilisateur voit « nouvelle tentative dans N s » (N arrondi
//! au-dessus) : ni silence trompeur, ni bandeau d'erreur pour un incident absorbé (règle 7 de
//! `docs/politique-reessai.md`).
//!
//! Trois affichages, choisis en un seul endroit (`choisir`) : des barres indicatif sur un
//! terminal (`SuiviBarres`, seule couche qui connaisse indicatif), une ligne simple par
//! événement utile ailleurs (`SuiviLignes` : un journal de cron ou de CI se lit ligne à ligne,
//! pas en séquences d'échappement), et des lignes JSON pour les scripts (`SuiviJson`). Le
//! journal `tracing` (`journal`) et le bilan de fin de passage (`bilan`) vivent ici aussi :
//! tout ce qui s'écrit pour l'utilisateur passe par ce module, un rendu par vue (`vigie etat` :
//! `etat`, et `saison` pour la saison entière ; `vigie depot` d'une nuit : `depot` ; `connexion`,
//! `renommer`, `demo`…). Les commandes (`commandes/`) décident et lui passent des valeurs ; seule
//! la page de manuel de `vigie generer-docs` s'écrit ailleurs (`cli/docs.rs`, dans un
//! fichier).

mod barres;
pub(crate) mod bilan;
pub(crate) mod calcul;
pub(crate) mod connexion;
#[cfg(feature = "bac-a-sable")]
pub(crate) mod demo;
pub(crate) mod depot;
mod ecran;
pub(crate) mod etat;
pub mod evenement;
pub mod format;
pub(crate) mod garde;
pub(crate) mod journal;
mod json;
mod lignes;
pub(crate) mod non_envoyes;
pub(crate) mod participations;
pub(crate) mod passages;
pub(crate) mod preparation;
pub(crate) mod renommer;
mod repetes;
pub(crate) mod reprise;
pub(crate) mod saison;
mod tableau;
pub(crate) mod traitement;
pub(crate) mod verification;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite};

pub(crate) use barres::SuiviBarres;
pub use ecran::liberer_terminal;
pub(crate) use ecran::rendre_le_terminal;
pub use evenement::Evenement;
pub(crate) use json::SuiviJson;
pub(crate) use lignes::SuiviLignes;

pub(crate) use crate::depot::evenements::Suivi;

/// Les réessais d'une commande ponctuelle (`vigie participations`, `traiter`, `connexion`…),
/// dits sur la sortie d'erreur : une plateforme injoignable ou indisponible ne laisse pas
/// l'écran muet jusqu'à l'erreur. Rien avec `-q` ; au-dessus de l'indicateur de `vigie
/// traitement --attendre` s'il tourne (voir `ecran.rs`).
pub(crate) struct AnnonceDesReessais;

impl crate::reessai::ObservateurReessai for AnnonceDesReessais {
    fn nouvelle_tentative(&self, tentative: u32, attente: Duration) {
        if ecran::silencieux() {
            return;
        }
        let dans = secondes_au_dessus(attente);
        let ligne = format!(
            "~ la plateforme n'a pas répondu : nouvelle tentative dans {dans} s (essai {tentative})\n"
        );
        let _ = ecran::ecrire_erreur(ligne.as_bytes());
    }
}

/// « nouvelle tentative dans N s », N arrondi au-dessus : jamais « 0 s » tant qu'on attend.
pub(crate) fn secondes_au_dessus(attente: Duration) -> u64 {
    let ms = attente.as_millis();
    (ms.div_ceil(1000)).max(u128::from(!attente.is_zero())) as u64
}

/// L'horloge des affichages (décomptes, cadence du JSON), injectée pour que les tests avancent
/// le temps d'un coup au lieu de dormir.
pub(crate) trait Horloge: Send + Sync {
    /// Temps monotone écoulé depuis une origine quelconque.
    fn maintenant(&self) -> Duration;
}

/// Le vrai temps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HorlogeSysteme {
    origine: Instant,
}

impl HorlogeSysteme {
    pub(crate) fn nouveau() -> Self {
        HorlogeSysteme {
            origine: Instant::now(),
        }
    }
}

impl Default for HorlogeSysteme {
    fn default() -> Self {
        HorlogeSysteme::nouveau()
    }
}

impl Horloge for HorlogeSysteme {
    fn maintenant(&self) -> Duration {
        self.origine.elapsed()
    }
}

/// Ce que disent les lignes et les barres quand la nuit devient illisible pendant le dépôt,
/// puis quand elle revient. Dit même avec `-q` : c'est à l'utilisateur d'agir.
fn texte_nuit_indisponible(dossier: &std::path::Path) -> String {
    format!(
        "~ nuit illisible : {} a disparu (carte ou disque retiré ?).\n  Remettez-le : le \
         dépôt reprendra de lui-même (Ctrl-C pour arrêter ; relancer reprendra).",
        format::neutraliser(&dossier.display().to_string())
    )
}

fn texte_nuit_retrouvee(dossier: &std::path::Path) -> String {
    format!(
        "~ nuit retrouvée ({}) : les envois reprennent.",
        format::neutraliser(&dossier.display().to_string())
    )
}

/// Les couleurs sont-elles permises ? Non si `NO_COLOR` est défini et non vide
/// (<https://no-color.org>).
pub(crate) fn couleurs_permises() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Le journal sur la sortie d'erreur peut-il être en couleurs ? Il faut un terminal, que les
/// couleurs soient permises, et une console qui interprète les séquences de couleur : une
/// console Windows qui ne sait pas le faire les afficherait telles quelles (`←[33m`).
pub(crate) fn couleurs_sur_la_sortie_d_erreur() -> bool {
    std::io::stderr().is_terminal() && couleurs_permises() && crate::plateforme::console_pilotable()
}

/// La sortie d'erreur est-elle un terminal capable de redessiner des barres ?
fn erreur_est_un_terminal() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        && crate::plateforme::console_pilotable()
}

/// Ce que l'utilisateur verra pendant un passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Affichage {
    /// Barres sur la sortie d'erreur ; `forcees` : dessinées même hors terminal
    /// (`--progression toujours`).
    Barres { forcees: bool },
    /// Une ligne par événement utile sur la sortie d'erreur ; `silencieux` (`-q`) : les erreurs
    /// seulement.
    Lignes { silencieux: bool },
    /// Lignes JSON sur la sortie standard (`silencieux` : les erreurs seulement), et des barres
    /// sur la sortie d'erreur si on les a demandées (`--progression toujours`).
    Json { silencieux: bool, barres: bool },
}

/// `--progression` : des barres sur un terminal (`Auto`), toujours, ou jamais. `cli` traduit son
/// option en cette valeur : l'affichage ne connaît pas la ligne de commande.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progression {
    Auto,
    Toujours,
    Jamais,
}

/// La règle du choix, sans rien toucher du monde : `terminal` dit si la sortie d'erreur en est
/// un.
///
/// `-q` l'emporte sur les barres (« seulement le bilan et les erreurs ») ; `--json` réserve la
/// sortie standard au JSON et ne montre de barres que sur demande explicite ; `auto` montre des
/// barres sur un terminal, des lignes ailleurs ; `toujours` et `jamais` forcent l'un ou l'autre.
pub(crate) fn decider(
    json: bool,
    silencieux: bool,
    mode: Progression,
    terminal: bool,
) -> Affichage {
    if json {
        return Affichage::Json {
            silencieux,
            barres: mode == Progression::Toujours && !silencieux,
        };
    }
    if silencieux {
        return Affichage::Lignes { silencieux: true };
    }
    match (mode, terminal) {
        (Progression::Toujours, t) => Affichage::Barres { forcees: !t },
        (Progression::Auto, true) => Affichage::Barres { forcees: false },
        (Progression::Auto, false) | (Progression::Jamais, _) => {
            Affichage::Lignes { silencieux: false }
        }
    }
}

/// Construit le suivi d'un passage d'après `--json`, `-q` et `--progression`, et la
/// sortie d'erreur. Les barres créées ici sont enregistrées pour que le journal `tracing` passe
/// au-dessus d'elles et que le bilan les efface avant de s'écrire ([`liberer_terminal`]).
pub(crate) fn choisir(json: bool, silencieux: bool, progression: Progression) -> Arc<dyn Suivi> {
    let terminal = erreur_est_un_terminal();
    // Les barres du passage d'avant (la nuit d'avant d'une saison) s'effacent avant que
    // celles-ci ne naissent : jamais deux jeux de barres à la fois.
    liberer_terminal();
    let barres = |forcees: bool| {
        let b = SuiviBarres::sur_la_sortie_d_erreur(forcees, couleurs_permises());
        ecran::enregistrer(b.clone());
        #[cfg(debug_assertions)]
        panique_pour_essai();
        b
    };
    match decider(json, silencieux, progression, terminal) {
        Affichage::Barres { forcees } => Arc::new(barres(forcees)),
        Affichage::Lignes { silencieux } => Arc::new(SuiviLignes::nouveau(silencieux)),
        Affichage::Json {
            silencieux,
            barres: false,
        } => Arc::new(SuiviJson::nouveau(silencieux)),
        Affichage::Json {
            silencieux,
            barres: true,
        } => Arc::new(Plusieurs(vec![
            Arc::new(SuiviJson::nouveau(silencieux)),
            Arc::new(barres(!terminal)),
        ])),
    }
}

/// Une panique provoquée dès que des barres sont à l'écran, si `VIGIE_ESSAI_PANIQUE` est
/// définie : l'essai du terminal rendu après une panique
/// (`tests/integration/terminal_rendu.rs`) n'a pas d'autre moyen d'en faire naître une. Hors
/// des binaires de mise au point, rien.
#[cfg(debug_assertions)]
fn panique_pour_essai() {
    if std::env::var_os("VIGIE_ESSAI_PANIQUE").is_some() {
        panic!("panique provoquée pour l'essai (VIGIE_ESSAI_PANIQUE)");
    }
}

/// Le suivi du passage en cours, pour ce qui dure plus qu'un passage : l'écoute de Ctrl-C
/// d'une commande qui enchaîne les passages (`--jusqu-au-bout`), chacun avec ses barres. Seule
/// l'interruption lui est annoncée ; elle va au suivi du dernier passage commencé.
#[derive(Default)]
pub(crate) struct SuiviRelais {
    courant: std::sync::Mutex<Option<Arc<dyn Suivi>>>,
}

impl SuiviRelais {
    /// Le suivi du passage qui commence.
    pub(crate) fn remplacer(&self, suivi: Arc<dyn Suivi>) {
        *self.courant.lock().unwrap_or_else(|e| e.into_inner()) = Some(suivi);
    }
}

impl Suivi for SuiviRelais {
    fn interruption(&self) {
        let courant = self
            .courant
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(s) = courant {
            s.interruption();
        }
    }
}

/// Plusieurs affichages à la fois (JSON sur la sortie standard et barres sur la sortie
/// d'erreur).
struct Plusieurs(Vec<Arc<dyn Suivi>>);

impl Suivi for Plusieurs {
    fn debut(&self, unites: u64, octets: u64) {
        self.0.iter().for_each(|s| s.debut(unites, octets));
    }
    fn unite_commencee(&self, u: &DepotUnite) {
        self.0.iter().for_each(|s| s.unite_commencee(u));
    }
    fn progression(&self, u: &DepotUnite, octets: u64) {
        self.0.iter().for_each(|s| s.progression(u, octets));
    }
    fn nouvelle_tentative(&self, u: &DepotUnite, tentative: u32, attente: Duration) {
        self.0
            .iter()
            .for_each(|s| s.nouvelle_tentative(u, tentative, attente));
    }
    fn unite_deposee(&self, u: &DepotUnite) {
        self.0.iter().for_each(|s| s.unite_deposee(u));
    }
    fn unite_deja_presente(&self, u: &DepotUnite, comparee: bool, destination: &PartieDuBilan) {
        self.0
            .iter()
            .for_each(|s| s.unite_deja_presente(u, comparee, destination));
    }
    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        self.0
            .iter()
            .for_each(|s| s.unite_en_echec(u, cause, definitif, message));
    }
    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        self.0.iter().for_each(|s| s.unite_incertaine(u, message));
    }
    fn reseau_indisponible(&self, depuis: Duration, attente: Duration) {
        self.0
            .iter()
            .for_each(|s| s.reseau_indisponible(depuis, attente));
    }
    fn reseau_retabli(&self) {
        self.0.iter().for_each(|s| s.reseau_retabli());
    }
    fn nuit_indisponible(&self, dossier: &std::path::Path) {
        self.0.iter().for_each(|s| s.nuit_indisponible(dossier));
    }
    fn nuit_retrouvee(&self, dossier: &std::path::Path) {
        self.0.iter().for_each(|s| s.nuit_retrouvee(dossier));
    }
    fn interruption(&self) {
        self.0.iter().for_each(|s| s.interruption());
    }
    fn parallelisme(&self, courant: usize, plafond: usize) {
        self.0.iter().for_each(|s| s.parallelisme(courant, plafond));
    }
}

/// Un avertissement, tel quel, sur la sortie d'erreur.
pub(crate) fn avertir(texte: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(crate::sortie::erreur(), "{texte}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrondi_au_dessus() {
        assert_eq!(secondes_au_dessus(Duration::ZERO), 0);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1)), 1);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1000)), 1);
        assert_eq!(secondes_au_dessus(Duration::from_millis(1001)), 2);
        assert_eq!(secondes_au_dessus(Duration::from_secs(8)), 8);
    }

    #[test]
    fn choix_de_l_affichage() {
        use Affichage::*;
        use Progression::*;
        // auto : barres sur un terminal, lignes ailleurs.
        assert_eq!(decider(false, false, Auto, true), Barres { forcees: false });
        assert_eq!(
            decider(false, false, Auto, false),
            Lignes { silencieux: false }
        );
        // Un réglage explicite force l'un ou l'autre.
        assert_eq!(
            decider(false, false, Toujours, false),
            Barres { forcees: true }
        );
        assert_eq!(
            decider(false, false, Toujours, true),
            Barres { forcees: false }
        );
        assert_eq!(
            decider(false, false, Jamais, true),
            Lignes { silencieux: false }
        );
        // -q : le bilan et les erreurs, jamais de barres.
        assert_eq!(
            decider(false, true, Toujours, true),
            Lignes { silencieux: true }
        );
        assert_eq!(
            decider(false, true, Auto, true),
            Lignes { silencieux: true }
        );
        // --json : le JSON, et des barres seulement sur demande.
        assert_eq!(
            decider(true, false, Auto, true),
            Json {
                silencieux: false,
                barres: false
            }
        );
        assert_eq!(
            decider(true, false, Toujours, false),
            Json {
                silencieux: false,
                barres: true
            }
        );
        assert_eq!(
            decider(true, true, Toujours, true),
            Json {
                silencieux: true,
                barres: false
            }
        );
    }
}
