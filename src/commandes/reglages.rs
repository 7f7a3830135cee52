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
use crate::cli::reglages::{Champ, Explicites, Valeur, Visiteur, option};
use crate::depot::{ReglageAnnonce, ReglagesDuPassage};
use crate::plan::ReglagesRetenus;

/// Les réglages d'un passage : les options effectives, ce que le plan retiendra, et ce qu'il
/// faut en dire.
pub(super) struct ReglagesFusionnes {
    pub(crate) options: OptionsEnvoi,
    pub(crate) retenus: ReglagesRetenus,
    pub(crate) annonce: ReglagesDuPassage,
}

/// Fusionne les options données et les réglages retenus par le plan (voir l'en-tête) : la
/// même règle pour chaque réglage des options (`cli/reglages.rs`).
pub(super) fn fusionner(donnees: &OptionsEnvoi, retenus: &ReglagesRetenus) -> ReglagesFusionnes {
    let mut options = donnees.clone();
    let mut fusion = Fusion {
        explicites: &donnees.explicites,
        anciens: retenus,
        retenus: retenus.clone(),
        annonce: ReglagesDuPassage::default(),
    };
    options.visiter("", &mut fusion);
    ReglagesFusionnes {
        options,
        retenus: fusion.retenus,
        annonce: fusion.annonce,
    }
}

/// La fusion, réglage par réglage.
struct Fusion<'a> {
    explicites: &'a Explicites,
    anciens: &'a ReglagesRetenus,
    /// Ce que le plan retiendra : les anciens, et les réglages donnés à la place.
    retenus: ReglagesRetenus,
    annonce: ReglagesDuPassage,
}

impl Visiteur for Fusion<'_> {
    fn reglage<V: Valeur>(&mut self, nom: &'static str, valeur: &mut Option<V>) {
        let ancienne = self.anciens.valeur(nom);
        let retenue = ancienne.and_then(V::du_plan);
        if let (Some(illisible), None) = (ancienne, &retenue) {
            tracing::warn!(
                reglage = nom,
                valeur = %illisible,
                "réglage retenu par le plan inadmissible : ignoré"
            );
        }
        if self.explicites.contains(nom) {
            if let (Some(r), Some(d)) = (&retenue, &*valeur)
                && r.lisible() != d.lisible()
            {
                self.annonce.remplaces.push(ReglageAnnonce {
                    option: option(nom),
                    valeur: d.lisible(),
                    retenue: Some(r.lisible()),
                });
            }
            if let Some(d) = valeur {
                self.retenus.retenir(nom, d.vers_plan());
            }
        } else if let Some(r) = retenue {
            self.annonce.repris.push(ReglageAnnonce {
                option: option(nom),
                valeur: r.lisible(),
                retenue: None,
            });
            *valeur = Some(r);
        }
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
    use crate::cli::reglages::noms;
    use crate::cli::{Cli, Commande};
    use crate::duree::Secondes;
    use crate::transport::debit::DebitMax;
    use clap::FromArgMatches;
    use serde_json::json;
    use std::collections::BTreeSet;

    /// Des réglages retenus, tels que le plan les garde (`depot_plan.reglages`).
    fn retenus(json: serde_json::Value) -> ReglagesRetenus {
        serde_json::from_value(json).unwrap()
    }

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
        assert_eq!(
            f.retenus,
            retenus(json!({"delai_tentative": 120.0, "echeance": 3600.0, "attente_reseau": 90.0}))
        );
        assert_eq!(
            serde_json::to_string(&f.retenus).unwrap(),
            r#"{"attente_reseau":90.0,"delai_tentative":120.0,"echeance":3600.0}"#
        );
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
            retenus(json!({"seuil_multipart": 6, "debit_max": 2_000_000, "attente_reseau": 90.0}))
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
            (r.option.as_str(), r.valeur.as_str(), r.retenue.as_deref()),
            ("--debit-max", "5 Mo/s", Some("2 Mo/s"))
        );
        assert_eq!(
            autre.retenus,
            retenus(json!({
                "seuil_multipart": 6,
                "debit_max": 5_000_000,
                "attente_reseau": 90.0,
                "paralleles": 2
            }))
        );

        // « sans » lève la limite retenue, et le plan retient qu'il n'y en a plus.
        let sans = fusionner(&options(&["--debit-max", "sans"]), &f.retenus);
        assert!(
            sans.options
                .debit_max
                .is_some_and(DebitMax::est_sans_limite)
        );
        assert_eq!(sans.retenus.valeur("debit_max"), Some(&json!(0)));
        let apres = fusionner(&options(&[]), &sans.retenus);
        assert!(
            apres
                .options
                .debit_max
                .is_some_and(DebitMax::est_sans_limite)
        );
    }

    /// Chaque réglage d'envoi de la ligne de commande est retenu quand il est donné, sous la clé
    /// de son nom, puis repris : aucun n'est oublié (un réglage ajouté aux options demande
    /// ici une valeur d'essai ; l'essai le dit).
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
        let noms = noms(&mut options(&[]));
        assert_eq!(
            noms.iter().map(|n| option(n)).collect::<Vec<_>>(),
            donnes.map(|(o, _)| o),
            "une valeur d'essai par réglage des options, dans leur ordre"
        );
        let args: Vec<&str> = donnes.iter().flat_map(|(o, v)| [*o, *v]).collect();
        let f = fusionner(&options(&args), &ReglagesRetenus::default());
        let json = serde_json::to_value(&f.retenus).unwrap();
        let cles: BTreeSet<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(cles, noms.iter().copied().collect(), "{json}");
        let relance = fusionner(&options(&[]), &f.retenus);
        assert_eq!(relance.retenus, f.retenus);
        assert_eq!(
            relance
                .annonce
                .repris
                .iter()
                .map(|a| a.option.as_str())
                .collect::<Vec<_>>(),
            donnes.map(|(o, _)| o)
        );
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

    /// Les réglages que visite la structure (`cli/reglages.rs`) sont exactement les options de
    /// `OptionsEnvoi`, chacune sous l'identifiant clap de son nom (que relève
    /// `Cli::depuis_correspondances`), et l'aide de `vigie depot` et `vigie retenter-echecs`
    /// les montre toutes, avec leur aide.
    #[test]
    fn la_structure_des_reglages_fait_les_options_et_l_aide() {
        use clap::Args;
        let noms = noms(&mut options(&[]));
        let seules = OptionsEnvoi::augment_args(clap::Command::new("vigie"));
        let ids: Vec<&str> = seules
            .get_arguments()
            .map(|a| a.get_id().as_str())
            .collect();
        assert_eq!(ids, noms);
        let mut racine = crate::cli::commande();
        for sous in ["depot", "retenter-echecs"] {
            let commande = racine.find_subcommand_mut(sous).unwrap();
            let aide = commande.render_long_help().to_string();
            for nom in &noms {
                let arg = commande
                    .get_arguments()
                    .find(|a| a.get_id() == nom)
                    .unwrap_or_else(|| panic!("{sous} : pas d'option {nom}"));
                assert_eq!(arg.get_long().map(|l| format!("--{l}")), Some(option(nom)));
                assert!(aide.contains(&option(nom)), "{sous} --help : {nom}\n{aide}");
                let texte = arg.get_help().map(ToString::to_string).unwrap_or_default();
                assert!(!texte.is_empty(), "{sous} : {nom} sans aide");
            }
        }
    }

    #[test]
    fn reglages_retenus_lisibles_pour_vigie_etat() {
        let retenus = retenus(json!({"seuil_multipart": 6, "debit_max": 2_000_000}));
        assert_eq!(
            lisibles(&retenus),
            ["--seuil-multipart 6", "--debit-max 2 Mo/s"]
        );
        assert!(lisibles(&ReglagesRetenus::default()).is_empty());
    }

    /// Une valeur retenue qui n'est plus admissible (base écrite à la main) est ignorée.
    #[test]
    fn un_debit_retenu_inadmissible_est_ignore() {
        let f = fusionner(&options(&[]), &retenus(json!({"debit_max": 3})));
        assert!(f.options.debit_max.is_none());
        assert!(f.annonce.repris.is_empty());
    }
}
