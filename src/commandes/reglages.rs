//! Les réglages d'envoi d'une commande qui mène un plan (`vigie depot`, `vigie
//! retenter-echecs`) : ceux donnés sur la ligne de commande, et, pour les autres, ceux que le
//! plan retient (voir `plan/reglages.rs`).
//!
//! Règles :
//! - un réglage donné explicitement (sur la ligne de commande, ou par sa variable comme
//!   `VIGIE_DEBIT_MAX`) l'emporte, et devient celui que retient le plan ;
//! - un réglage non donné reprend celui que le plan retient, sinon son défaut ;
//! - ce qui est repris, et ce qui remplace une valeur retenue, est dit (au départ et au bilan).
//!
//! La taille de partie d'un envoi commencé reste celle de cet envoi quoi qu'on donne
//! (`depot/parties.rs` `Decoupage::pour`), et un fichier commencé en plusieurs parties le
//! reste même sous un seuil relevé : aucune partie acquittée n'est jetée pour un réglage.

use crate::cli::OptionsEnvoi;
use crate::depot::{ReglageAnnonce, ReglagesDuPassage};
use crate::duree::Secondes;
use crate::plan::ReglagesRetenus;
use crate::transport::debit::DebitMax;

/// Les réglages d'un passage : les options effectives, ce que le plan retiendra, et ce qu'il
/// faut en dire.
pub(super) struct ReglagesFusionnes {
    pub(crate) options: OptionsEnvoi,
    pub(crate) retenus: ReglagesRetenus,
    pub(crate) annonce: ReglagesDuPassage,
}

/// Une valeur lisible pour l'humain et les scripts.
trait Lisible {
    fn lisible(&self) -> String;
}

impl Lisible for u16 {
    fn lisible(&self) -> String {
        self.to_string()
    }
}

impl Lisible for u32 {
    fn lisible(&self) -> String {
        self.to_string()
    }
}

impl Lisible for u64 {
    fn lisible(&self) -> String {
        self.to_string()
    }
}

impl Lisible for f64 {
    fn lisible(&self) -> String {
        // 30 plutôt que 30.0 ; 0,5 à la française.
        let t = format!("{self}");
        t.replace('.', ",")
    }
}

impl Lisible for Secondes {
    fn lisible(&self) -> String {
        self.en_f64().lisible()
    }
}

impl Lisible for DebitMax {
    fn lisible(&self) -> String {
        self.to_string()
    }
}

/// Fusionne les options données et les réglages retenus par le plan (voir l'en-tête).
pub(super) fn fusionner(donnees: &OptionsEnvoi, retenus: &ReglagesRetenus) -> ReglagesFusionnes {
    let mut options = donnees.clone();
    let mut nouveaux = retenus.clone();
    let mut annonce = ReglagesDuPassage::default();
    let explicite = |nom: &str| donnees.explicites.contains(nom);

    // Un réglage : (`--option`, son nom de champ, la valeur donnée (mutable, dans `options`),
    // la valeur retenue (mutable, dans `nouveaux`)). La macro écrit la même règle pour chacun.
    macro_rules! reglage {
        ($option:literal, $nom:literal, $donnee:expr, $retenue:expr) => {
            reglage!(@ $option, $nom, $donnee, $retenue, |v| v, |v| Some(v))
        };
        (@ $option:literal, $nom:literal, $donnee:expr, $retenue:expr, $vers_plan:expr, $du_plan:expr) => {{
            let retenue = $retenue.and_then($du_plan);
            if explicite($nom) {
                let donnee = $donnee.clone();
                if let (Some(r), Some(d)) = (&retenue, &donnee) {
                    if r.lisible() != d.lisible() {
                        annonce.remplaces.push(ReglageAnnonce {
                            option: $option,
                            valeur: d.lisible(),
                            retenue: Some(r.lisible()),
                        });
                    }
                }
                $retenue = donnee.map($vers_plan);
            } else if let Some(r) = retenue {
                annonce.repris.push(ReglageAnnonce {
                    option: $option,
                    valeur: r.lisible(),
                    retenue: None,
                });
                $donnee = Some(r).into();
            }
        }};
    }

    // Le plan retient les secondes en nombre (`plan/reglages.rs`).
    let en_secondes = |s: f64| Some(Secondes(s));
    // Les champs qui ne sont pas des `Option` passent par une `Option` le temps de la règle.
    let mut paralleles = Some(options.paralleles);
    reglage!(
        "--paralleles",
        "paralleles",
        paralleles,
        nouveaux.paralleles
    );
    let mut taille_partie = Some(options.taille_partie);
    reglage!(
        "--taille-partie",
        "taille_partie",
        taille_partie,
        nouveaux.taille_partie
    );
    reglage!(
        "--seuil-multipart",
        "seuil_multipart",
        options.seuil_multipart,
        nouveaux.seuil_multipart
    );
    reglage!(@ "--debit-max", "debit_max", options.debit_max, nouveaux.debit_max,
        DebitMax::octets_par_seconde, DebitMax::depuis_octets);
    let r = &mut options.reessai;
    let mut delai_tentative = Some(r.delai_tentative);
    reglage!(@ "--delai-tentative", "delai_tentative", delai_tentative, nouveaux.delai_tentative, Secondes::en_f64, en_secondes);
    let mut delai_blocage = Some(r.delai_blocage);
    reglage!(@ "--delai-blocage", "delai_blocage", delai_blocage, nouveaux.delai_blocage, Secondes::en_f64, en_secondes);
    let mut tentatives = Some(r.tentatives);
    reglage!(
        "--tentatives",
        "tentatives",
        tentatives,
        nouveaux.tentatives
    );
    let mut attente_base = Some(r.attente_base);
    reglage!(@ "--attente-base", "attente_base", attente_base, nouveaux.attente_base, Secondes::en_f64, en_secondes);
    let mut attente_max = Some(r.attente_max);
    reglage!(@ "--attente-max", "attente_max", attente_max, nouveaux.attente_max, Secondes::en_f64, en_secondes);
    let mut echeance = Some(r.echeance);
    reglage!(@ "--echeance", "echeance", echeance, nouveaux.echeance, Secondes::en_f64, en_secondes);
    let mut echecs_reseau = Some(r.echecs_reseau);
    reglage!(
        "--echecs-reseau",
        "echecs_reseau",
        echecs_reseau,
        nouveaux.echecs_reseau
    );
    // `None` : aucune limite (le défaut) ; une limite retenue se remplace par une autre.
    reglage!(@ "--attente-reseau", "attente_reseau", r.attente_reseau, nouveaux.attente_reseau,
        Secondes::en_f64, en_secondes);

    // Toujours `Some` : elles viennent d'une valeur, donnée ou retenue.
    r.delai_tentative = delai_tentative.unwrap_or(r.delai_tentative);
    r.delai_blocage = delai_blocage.unwrap_or(r.delai_blocage);
    r.tentatives = tentatives.unwrap_or(r.tentatives);
    r.attente_base = attente_base.unwrap_or(r.attente_base);
    r.attente_max = attente_max.unwrap_or(r.attente_max);
    r.echeance = echeance.unwrap_or(r.echeance);
    r.echecs_reseau = echecs_reseau.unwrap_or(r.echecs_reseau);
    options.paralleles = paralleles.unwrap_or(options.paralleles);
    options.taille_partie = taille_partie.unwrap_or(options.taille_partie);
    ReglagesFusionnes {
        options,
        retenus: nouveaux,
        annonce,
    }
}

/// Les réglages retenus, lisibles (`--seuil-multipart 6`, `--debit-max 2 Mo/s`), pour
/// `vigie etat` : ceux qu'une relance sans option reprendrait.
pub(super) fn lisibles(retenus: &ReglagesRetenus) -> Vec<String> {
    use clap::{Args, FromArgMatches};
    // Les défauts de la ligne de commande, sans rien de donné (ni variable).
    let commande =
        OptionsEnvoi::augment_args(clap::Command::new("vigie")).mut_args(|a| a.env(None::<&str>));
    let Ok(defauts) = commande
        .try_get_matches_from(["vigie"])
        .and_then(|m| OptionsEnvoi::from_arg_matches(&m))
    else {
        return Vec::new();
    };
    fusionner(&defauts, retenus)
        .annonce
        .repris
        .into_iter()
        .map(|r| format!("{} {}", r.option, r.valeur))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Commande};
    use clap::FromArgMatches;

    /// Les options d'envoi d'un `vigie depot` analysé comme par le binaire (explicites
    /// relevées).
    fn options(args: &[&str]) -> OptionsEnvoi {
        let mut ligne = vec!["vigie", "depot", "/nuit", "--vers", "s3://a/b"];
        ligne.extend_from_slice(args);
        let m = crate::cli::commande().try_get_matches_from(ligne).unwrap();
        let _ = Cli::from_arg_matches(&m).unwrap();
        match Cli::depuis_correspondances(&m).unwrap().commande {
            Commande::Depot(a) => a.envoi,
            _ => unreachable!("une commande depot"),
        }
    }

    /// Les options en secondes prennent un nombre seul, comme avant, ou une durée et son unité
    /// (`duree::analyser`) ; le plan retient des secondes.
    #[test]
    fn les_secondes_se_donnent_aussi_avec_leur_unite() {
        let o = options(&[
            "--delai-tentative",
            "2min",
            "--attente-reseau",
            "90",
            "--echeance",
            "1h",
        ]);
        assert_eq!(o.reessai.delai_tentative, Secondes(120.0));
        assert_eq!(o.reessai.attente_reseau, Some(Secondes(90.0)));
        assert_eq!(o.reessai.echeance, Secondes(3600.0));
        let f = fusionner(&o, &ReglagesRetenus::default());
        assert_eq!(f.retenus.delai_tentative, Some(120.0));
        assert_eq!(f.retenus.echeance, Some(3600.0));
    }

    #[test]
    fn seules_les_valeurs_donnees_sont_retenues_et_elles_l_emportent() {
        let o = options(&[
            "--seuil-multipart",
            "6",
            "--debit-max",
            "2Mo/s",
            "--attente-reseau",
            "90",
        ]);
        assert_eq!(
            o.explicites.iter().map(String::as_str).collect::<Vec<_>>(),
            ["attente_reseau", "debit_max", "seuil_multipart"]
        );
        let f = fusionner(&o, &ReglagesRetenus::default());
        assert_eq!(
            f.retenus,
            ReglagesRetenus {
                seuil_multipart: Some(6),
                debit_max: Some(2_000_000),
                attente_reseau: Some(90.0),
                ..Default::default()
            }
        );
        assert!(f.annonce.repris.is_empty() && f.annonce.remplaces.is_empty());

        // Une relance sans options : tout est repris du plan, rien d'autre n'est retenu.
        let relance = fusionner(&options(&[]), &f.retenus);
        assert_eq!(relance.options.seuil_multipart, Some(6));
        assert_eq!(
            relance.options.debit_max.map(DebitMax::octets_par_seconde),
            Some(2_000_000)
        );
        assert_eq!(relance.options.reessai.attente_reseau, Some(Secondes(90.0)));
        assert_eq!(relance.options.paralleles, 4, "défaut");
        assert_eq!(relance.retenus, f.retenus);
        let repris: Vec<_> = relance
            .annonce
            .repris
            .iter()
            .map(|a| format!("{} {}", a.option, a.valeur))
            .collect();
        assert_eq!(
            repris,
            [
                "--seuil-multipart 6",
                "--debit-max 2 Mo/s",
                "--attente-reseau 90"
            ]
        );

        // Une valeur donnée l'emporte, est dite, et devient la retenue ; les autres restent.
        let autre = fusionner(
            &options(&["--debit-max", "5Mo/s", "--paralleles", "2"]),
            &f.retenus,
        );
        assert_eq!(
            autre.options.debit_max.map(DebitMax::octets_par_seconde),
            Some(5_000_000)
        );
        assert_eq!(autre.options.seuil_multipart, Some(6));
        assert_eq!(autre.annonce.remplaces.len(), 1);
        let r = &autre.annonce.remplaces[0];
        assert_eq!(
            (r.option, r.valeur.as_str(), r.retenue.as_deref()),
            ("--debit-max", "5 Mo/s", Some("2 Mo/s"))
        );
        assert_eq!(autre.retenus.debit_max, Some(5_000_000));
        assert_eq!(autre.retenus.paralleles, Some(2));
        assert_eq!(autre.retenus.seuil_multipart, Some(6));

        // « sans » lève la limite retenue, et le plan retient qu'il n'y en a plus.
        let sans = fusionner(&options(&["--debit-max", "sans"]), &f.retenus);
        assert!(
            sans.options
                .debit_max
                .is_some_and(DebitMax::est_sans_limite)
        );
        assert_eq!(sans.retenus.debit_max, Some(0));
        let apres = fusionner(&options(&[]), &sans.retenus);
        assert!(
            apres
                .options
                .debit_max
                .is_some_and(DebitMax::est_sans_limite)
        );
    }

    /// Chaque réglage d'envoi de la ligne de commande est retenu quand il est donné, puis
    /// repris : aucun n'est oublié (un champ ajouté à `OptionsEnvoi` doit l'être ici aussi).
    #[test]
    fn chaque_reglage_d_envoi_est_retenu_puis_repris() {
        let donnes = [
            ("--paralleles", "3"),
            ("--seuil-multipart", "6"),
            ("--taille-partie", "7"),
            ("--debit-max", "2Mo/s"),
            ("--delai-tentative", "11"),
            ("--delai-blocage", "12"),
            ("--tentatives", "13"),
            ("--attente-base", "0.25"),
            ("--attente-max", "15"),
            ("--echeance", "16"),
            ("--echecs-reseau", "17"),
            ("--attente-reseau", "18"),
        ];
        assert_eq!(donnes.len(), crate::cli::REGLAGES_D_ENVOI.len());
        let args: Vec<&str> = donnes.iter().flat_map(|(o, v)| [*o, *v]).collect();
        let f = fusionner(&options(&args), &ReglagesRetenus::default());
        let json = serde_json::to_value(&f.retenus).unwrap();
        assert_eq!(
            json.as_object().map(serde_json::Map::len),
            Some(donnes.len()),
            "{json}"
        );
        let relance = fusionner(&options(&[]), &f.retenus);
        assert_eq!(relance.annonce.repris.len(), donnes.len());
        let o = &relance.options;
        assert_eq!(
            (o.paralleles, o.seuil_multipart, o.taille_partie),
            (3, Some(6), 7)
        );
        let r = &o.reessai;
        assert_eq!(
            (
                r.delai_tentative,
                r.delai_blocage,
                r.tentatives,
                r.attente_base
            ),
            (Secondes(11.0), Secondes(12.0), 13, Secondes(0.25))
        );
        assert_eq!(
            (r.attente_max, r.echeance, r.echecs_reseau, r.attente_reseau),
            (Secondes(15.0), Secondes(16.0), 17, Some(Secondes(18.0)))
        );
        assert!(
            relance
                .annonce
                .repris
                .iter()
                .any(|a| a.option == "--attente-base" && a.valeur == "0,25")
        );
    }

    #[test]
    fn reglages_retenus_lisibles_pour_vigie_etat() {
        let retenus = ReglagesRetenus {
            seuil_multipart: Some(6),
            debit_max: Some(2_000_000),
            ..Default::default()
        };
        assert_eq!(
            lisibles(&retenus),
            ["--seuil-multipart 6", "--debit-max 2 Mo/s"]
        );
        assert!(lisibles(&ReglagesRetenus::default()).is_empty());
    }

    /// Une valeur retenue qui n'est plus admissible (base écrite à la main) est ignorée.
    #[test]
    fn un_debit_retenu_inadmissible_est_ignore() {
        let retenus = ReglagesRetenus {
            debit_max: Some(3),
            ..Default::default()
        };
        let f = fusionner(&options(&[]), &retenus);
        assert!(f.options.debit_max.is_none());
        assert!(f.annonce.repris.is_empty());
    }
}
