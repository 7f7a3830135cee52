//! Les réglages d'envoi décrits une fois, à la manière des `Flag` de ripgrep
//! (`crates/core/flags/defs.rs`) : chaque réglage est un champ de [`OptionsEnvoi`] ou
//! d'[`OptionsReessai`](super::OptionsReessai), et ce champ porte à lui seul l'option clap
//! (son nom, son aide, son défaut, sa lecture), la clé que retient le plan (le nom du champ,
//! dans le JSON de `depot_plan.reglages`) et sa part de la fusion (`commandes/reglages.rs`),
//! qui passe sur chaque réglage par [`Champ::visiter`].
//!
//! Ajouter un réglage : un champ dans l'une de ces structures (écrites par la macro
//! [`structure_de_reglages!`]), son aide, et, si son type est nouveau, sa [`Valeur`]. Rien d'autre ne le
//! nomme.
//!
//! [`OptionsEnvoi`]: super::OptionsEnvoi

use std::collections::BTreeSet;

use crate::duree::Secondes;
use crate::transport::debit::DebitMax;

/// La valeur d'un réglage : lisible pour l'humain et les scripts, et telle que le plan la
/// retient (le JSON de `depot_plan.reglages` : ce format ne change pas, une base existante se
/// relit).
pub(crate) trait Valeur: Clone {
    /// `6`, `2 Mo/s`, `0,5` (à la française).
    fn lisible(&self) -> String;
    /// La valeur retenue par le plan.
    fn vers_plan(&self) -> serde_json::Value;
    /// Relit une valeur retenue ; `None` si elle n'est pas (ou plus) admissible.
    fn du_plan(retenue: &serde_json::Value) -> Option<Self>;
}

/// Les entiers : tels quels.
macro_rules! valeur_entiere {
    ($($t:ty),*) => {$(
        impl Valeur for $t {
            fn lisible(&self) -> String {
                self.to_string()
            }
            fn vers_plan(&self) -> serde_json::Value {
                serde_json::Value::from(*self)
            }
            fn du_plan(retenue: &serde_json::Value) -> Option<Self> {
                retenue.as_u64().and_then(|n| <$t>::try_from(n).ok())
            }
        }
    )*};
}
valeur_entiere!(u16, u32, u64);

/// Des secondes, retenues en nombre (`120.0`).
impl Valeur for Secondes {
    fn lisible(&self) -> String {
        // 30 plutôt que 30.0 ; 0,5 à la française.
        self.en_f64().to_string().replace('.', ",")
    }
    fn vers_plan(&self) -> serde_json::Value {
        serde_json::Value::from(self.en_f64())
    }
    fn du_plan(retenue: &serde_json::Value) -> Option<Self> {
        retenue.as_f64().map(Secondes)
    }
}

/// Un débit, retenu en octets par seconde (0 : sans limite).
impl Valeur for DebitMax {
    fn lisible(&self) -> String {
        self.to_string()
    }
    fn vers_plan(&self) -> serde_json::Value {
        serde_json::Value::from(self.octets_par_seconde())
    }
    fn du_plan(retenue: &serde_json::Value) -> Option<Self> {
        retenue.as_u64().and_then(DebitMax::depuis_octets)
    }
}

/// Ce qu'on fait de chaque réglage (la fusion, la liste des noms…).
pub(crate) trait Visiteur {
    /// Un réglage : `nom` est celui du champ (l'identifiant clap, la clé retenue par le
    /// plan) ; `valeur` sa valeur, `None` s'il n'en a aucune (ni donnée ni défaut). Le
    /// visiteur peut la remplacer ; pour un réglage qui a un défaut, `None` ne l'efface pas.
    fn reglage<V: Valeur>(&mut self, nom: &'static str, valeur: &mut Option<V>);
}

/// Un champ d'une structure de réglages : un réglage, un groupe de réglages (aplati par
/// `#[command(flatten)]`), ou ce qui n'en est pas un ([`Explicites`]).
pub(crate) trait Champ {
    fn visiter(&mut self, nom: &'static str, visiteur: &mut impl Visiteur);
}

/// Un réglage qui a toujours une valeur (son défaut, à défaut d'une autre).
impl<V: Valeur> Champ for V {
    fn visiter(&mut self, nom: &'static str, visiteur: &mut impl Visiteur) {
        let mut valeur = Some(self.clone());
        visiteur.reglage(nom, &mut valeur);
        if let Some(v) = valeur {
            *self = v;
        }
    }
}

/// Un réglage sans défaut (`--debit-max`, `--attente-reseau`…).
impl<V: Valeur> Champ for Option<V> {
    fn visiter(&mut self, nom: &'static str, visiteur: &mut impl Visiteur) {
        visiteur.reglage(nom, self);
    }
}

/// Les réglages donnés explicitement (sur la ligne de commande, ou par leur variable comme
/// `VIGIE_DEBIT_MAX`), par leur nom (`paralleles`, `debit_max`…), relevés par
/// [`Cli::depuis_correspondances`](super::Cli::depuis_correspondances) : le plan retient
/// ceux-là, et les reprend aux relances où ils ne sont pas donnés. Ce n'est pas un réglage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Explicites(pub(crate) BTreeSet<String>);

impl std::ops::Deref for Explicites {
    type Target = BTreeSet<String>;
    fn deref(&self) -> &BTreeSet<String> {
        &self.0
    }
}

impl Champ for Explicites {
    fn visiter(&mut self, _: &'static str, _: &mut impl Visiteur) {}
}

/// Les noms des réglages d'une structure, dans leur ordre.
pub(crate) fn noms(structure: &mut impl Champ) -> Vec<&'static str> {
    struct Noms(Vec<&'static str>);
    impl Visiteur for Noms {
        fn reglage<V: Valeur>(&mut self, nom: &'static str, _: &mut Option<V>) {
            self.0.push(nom);
        }
    }
    let mut noms = Noms(Vec::new());
    structure.visiter("", &mut noms);
    noms.0
}

/// L'option d'un réglage, telle qu'on l'écrit : `debit_max` → `--debit-max` (clap la nomme
/// ainsi, `#[arg(long)]` ; un essai de `commandes/reglages.rs` le vérifie dans l'aide).
pub(crate) fn option(nom: &str) -> String {
    format!("--{}", nom.replace('_', "-"))
}

/// Écrit une structure de réglages telle quelle (attributs clap compris), et la fait
/// [`Champ`] : la visiter passe sur chacun de ses champs, dans l'ordre.
macro_rules! structure_de_reglages {
    (
        $(#[$attr:meta])*
        $vis:vis struct $nom:ident {
            $($(#[$attr_champ:meta])* $vis_champ:vis $champ:ident : $type:ty,)*
        }
    ) => {
        $(#[$attr])*
        $vis struct $nom {
            $($(#[$attr_champ])* $vis_champ $champ: $type,)*
        }

        impl $crate::cli::reglages::Champ for $nom {
            fn visiter(
                &mut self,
                _: &'static str,
                visiteur: &mut impl $crate::cli::reglages::Visiteur,
            ) {
                $($crate::cli::reglages::Champ::visiter(
                    &mut self.$champ,
                    stringify!($champ),
                    visiteur,
                );)*
            }
        }
    };
}
pub(crate) use structure_de_reglages;
