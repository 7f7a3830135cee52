//! Ce qu'une participation dit du matériel et du temps qu'il faisait : `configuration` et
//! `meteo`, avec les noms de clés du formulaire du site web.
//!
//! Pourquoi : le calcul de la plateforme lit `configuration` (`scripts/task_participation.py` :
//! `canal_expansion_temps`, `canal_enregistrement_direct` pour traiter chaque canal d'un
//! routier avec le bon facteur), et le site web n'affiche que les clés qu'il lie
//! (`Scille/vigiechiro-front`, `makeConfiguration` : `detecteur_enregistreur_type`,
//! `detecteur_enregistreur_numero_serie`, en point fixe `micro0_*` et `micro1_*`, en routier
//! et pédestre `micro_type`, `micro_numero_serie` et les deux canaux). Une clé mal nommée
//! (`…_numserie`) est acceptée par le serveur et invisible sur la fiche : le compagnon officiel
//! (`echonuit/vigiechiro-pr-companion`, son ADR 0020 et #1844) l'a appris en réel.
//!
//! `configuration` est un dictionnaire libre que le `PATCH` **remplace en entier**
//! (`resources/participations.py` `edit_participation` : `participations.update(id,
//! payload)`, donc `$set` de la clé `configuration`, `xin/resource.py` `_atomic_update`) :
//! compléter une participation existante, c'est relire, ajouter ce qui manque sans rien
//! effacer ni remplacer ([`completer`]), puis écrire le tout. La météo de même.
//!
//! `meteo` (`resources/participations.py` `SCHEMA`) : `temperature_debut` et
//! `temperature_fin` entiers, `vent` parmi NUL/FAIBLE/MOYEN/FORT, `couverture` parmi
//! 0-25/25-50/50-75/75-100 : validés avant d'envoyer.
//!
//! Pur : ni réseau ni fichier.

use serde_json::{Map, Value};

/// Les vents admis par le serveur.
pub(crate) const VENTS: [&str; 4] = ["NUL", "FAIBLE", "MOYEN", "FORT"];
/// Les couvertures nuageuses admises par le serveur.
pub(crate) const COUVERTURES: [&str; 4] = ["0-25", "25-50", "50-75", "75-100"];
/// Les positions d'un micro de point fixe.
pub(crate) const POSITIONS: [&str; 2] = ["SOL", "CANOPEE"];
/// Les canaux d'un routier (`canal_expansion_temps`, `canal_enregistrement_direct`).
pub(crate) const CANAUX: [&str; 3] = ["GAUCHE", "DROITE", "ABSENT"];

/// La météo d'une nuit, telle que la bénévole la donne.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Meteo {
    pub(crate) temperature_debut: Option<i64>,
    pub(crate) temperature_fin: Option<i64>,
    pub(crate) vent: Option<String>,
    pub(crate) couverture: Option<String>,
}

/// Les options de `vigie depot` qui posent chaque valeur d'un micro (position, hauteur, type,
/// numéro de série), par rang : 0 pour le premier micro d'un point fixe (`micro0_*`) ou le micro
/// d'un routier (`micro_*`), 1 pour le second micro d'un point fixe (`micro1_*`, facultatif).
pub(crate) const OPTIONS_MICRO: [[&str; 4]; 2] = [
    [
        "--micro-position",
        "--micro-hauteur",
        "--micro-type",
        "--micro-numero-serie",
    ],
    [
        "--micro1-position",
        "--micro1-hauteur",
        "--micro1-type",
        "--micro1-numero-serie",
    ],
];

/// Un micro de point fixe (`micro0_*`, `micro1_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Micro {
    pub(crate) position: Option<String>,
    /// En mètres, entier (le formulaire : `micro0_hauteur`).
    pub(crate) hauteur: Option<u32>,
    pub(crate) type_micro: Option<String>,
    pub(crate) numero_serie: Option<String>,
}

impl Micro {
    pub(crate) fn est_vide(&self) -> bool {
        *self == Micro::default()
    }

    /// Ce micro (celui que disent les options) par-dessus `retenu` (celui que la base retient
    /// pour le point) : chaque valeur donnée remplace la retenue, les autres restent.
    pub(crate) fn par_dessus(&self, retenu: &Micro) -> Micro {
        Micro {
            position: self.position.clone().or_else(|| retenu.position.clone()),
            hauteur: self.hauteur.or(retenu.hauteur),
            type_micro: self
                .type_micro
                .clone()
                .or_else(|| retenu.type_micro.clone()),
            numero_serie: self
                .numero_serie
                .clone()
                .or_else(|| retenu.numero_serie.clone()),
        }
    }

    /// Ses valeurs, chacune avec l'option qui la pose pour le micro de ce rang
    /// (`--micro-hauteur 4`, `--micro1-hauteur 2` : [`OPTIONS_MICRO`]).
    fn valeurs(&self, rang: usize) -> [(&'static str, Option<String>); 4] {
        let [position, hauteur, type_micro, numero_serie] = OPTIONS_MICRO[rang];
        [
            (position, self.position.clone()),
            (hauteur, self.hauteur.map(|h| h.to_string())),
            (type_micro, self.type_micro.clone()),
            (numero_serie, self.numero_serie.clone()),
        ]
    }

    /// Ce qu'il dit, lisible, pour le micro de ce rang : `--micro-position CANOPEE
    /// --micro-hauteur 4`.
    pub(crate) fn dire(&self, rang: usize) -> String {
        let mots: Vec<String> = self
            .valeurs(rang)
            .into_iter()
            .filter_map(|(o, v)| v.map(|v| format!("{o} {v}")))
            .collect();
        mots.join(" ")
    }

    /// Ce qui change de `avant` à lui, pour le micro de ce rang : `--micro-hauteur 4 → 2`, une
    /// valeur retenue remplacée ; rien pour une valeur nouvelle.
    pub(crate) fn remplacements(&self, avant: &Micro, rang: usize) -> Vec<String> {
        self.valeurs(rang)
            .into_iter()
            .zip(avant.valeurs(rang))
            .filter_map(|((o, v), (_, a))| match (a, v) {
                (Some(a), Some(v)) if a != v => Some(format!("{o} {a} → {v}")),
                _ => None,
            })
            .collect()
    }
}

/// Ce que `vigie` sait d'une participation à décrire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Description {
    pub(crate) enregistreur_type: Option<String>,
    pub(crate) enregistreur_numero_serie: Option<String>,
    /// Point fixe : `micro0`, `micro1`.
    pub(crate) micros: [Micro; 2],
    /// Routier et pédestre : le micro (`micro_type`, `micro_numero_serie`).
    pub(crate) micro_routier: Micro,
    pub(crate) canal_expansion_temps: Option<String>,
    pub(crate) canal_enregistrement_direct: Option<String>,
    pub(crate) meteo: Meteo,
}

/// Une valeur refusée avant tout envoi : l'option, la valeur, ce qui est admis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option} {valeur} : {admis}")]
pub(crate) struct ValeurRefusee {
    pub(crate) option: &'static str,
    pub(crate) valeur: String,
    pub(crate) admis: String,
}

fn parmi(
    option: &'static str,
    valeur: &Option<String>,
    admis: &[&str],
) -> Result<(), ValeurRefusee> {
    match valeur {
        Some(v) if !admis.contains(&v.as_str()) => Err(ValeurRefusee {
            option,
            valeur: v.clone(),
            admis: format!("une de {}", admis.join(", ")),
        }),
        _ => Ok(()),
    }
}

impl Description {
    /// Les micros qui décrivent un site, par rang : point fixe, `micro0_*` et `micro1_*` ;
    /// routier et pédestre, le seul (`micro_*`).
    pub(crate) fn micros_du_site(&self, point_fixe: bool) -> &[Micro] {
        if point_fixe {
            &self.micros
        } else {
            std::slice::from_ref(&self.micro_routier)
        }
    }

    /// Les options données qui ne disent rien pour ce site, comme sur le formulaire du site
    /// web (`makeConfiguration`) : en point fixe, les canaux (demandés en routier et pédestre
    /// seulement) ; en routier et pédestre, la position et la hauteur du micro, et tout le
    /// second micro (un seul micro, `micro_type` et `micro_numero_serie`).
    pub(crate) fn options_sans_effet(&self, point_fixe: bool) -> Vec<&'static str> {
        let mut options = Vec::new();
        if point_fixe {
            for (option, valeur) in [
                ("--canal-expansion", &self.canal_expansion_temps),
                ("--canal-direct", &self.canal_enregistrement_direct),
            ] {
                if valeur.is_some() {
                    options.push(option);
                }
            }
        } else {
            let [position, hauteur, ..] = self.micros[0].valeurs(0);
            let second = self.micros[1].valeurs(1);
            for (option, valeur) in [position, hauteur].into_iter().chain(second) {
                if valeur.is_some() {
                    options.push(option);
                }
            }
        }
        options
    }

    /// La même, avec ce micro au rang `rang` d'un site point fixe ou routier et pédestre
    /// (voir [`Description::micros_du_site`]).
    pub(crate) fn avec_micro(mut self, point_fixe: bool, rang: usize, micro: Micro) -> Description {
        if point_fixe {
            self.micros[rang] = micro;
        } else {
            self.micro_routier = micro;
        }
        self
    }

    /// Vérifie les valeurs à choix avant d'envoyer ; et, comme le formulaire, qu'un canal
    /// d'expansion ne va pas sans canal direct (ni l'inverse).
    pub(crate) fn valider(&self) -> Result<(), ValeurRefusee> {
        parmi("--vent", &self.meteo.vent, &VENTS)?;
        parmi("--couverture", &self.meteo.couverture, &COUVERTURES)?;
        for (micro, options) in self.micros.iter().zip(OPTIONS_MICRO) {
            parmi(options[0], &micro.position, &POSITIONS)?;
        }
        parmi("--canal-expansion", &self.canal_expansion_temps, &CANAUX)?;
        parmi("--canal-direct", &self.canal_enregistrement_direct, &CANAUX)?;
        match (
            &self.canal_expansion_temps,
            &self.canal_enregistrement_direct,
        ) {
            (Some(_), None) => Err(ValeurRefusee {
                option: "--canal-direct",
                valeur: "(absent)".into(),
                admis: "à donner avec --canal-expansion (ABSENT s'il n'y en a pas)".into(),
            }),
            (None, Some(_)) => Err(ValeurRefusee {
                option: "--canal-expansion",
                valeur: "(absent)".into(),
                admis: "à donner avec --canal-direct (ABSENT s'il n'y en a pas)".into(),
            }),
            _ => Ok(()),
        }
    }

    /// `configuration`, clés du formulaire du site web, pour un site point fixe ou non ; les
    /// valeurs sont des chaînes (le formulaire n'écrit que des chaînes).
    pub(crate) fn configuration(&self, point_fixe: bool) -> Map<String, Value> {
        let mut c = Map::new();
        let mut mettre = |cle: String, v: Option<String>| {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                c.insert(cle, Value::String(v));
            }
        };
        mettre(
            "detecteur_enregistreur_type".into(),
            self.enregistreur_type.clone(),
        );
        mettre(
            "detecteur_enregistreur_numero_serie".into(),
            self.enregistreur_numero_serie.clone(),
        );
        if point_fixe {
            for (i, m) in self.micros.iter().enumerate() {
                mettre(format!("micro{i}_position"), m.position.clone());
                mettre(
                    format!("micro{i}_hauteur"),
                    m.hauteur.map(|h| h.to_string()),
                );
                mettre(format!("micro{i}_type"), m.type_micro.clone());
                mettre(format!("micro{i}_numero_serie"), m.numero_serie.clone());
            }
        } else {
            mettre("micro_type".into(), self.micro_routier.type_micro.clone());
            mettre(
                "micro_numero_serie".into(),
                self.micro_routier.numero_serie.clone(),
            );
            mettre(
                "canal_expansion_temps".into(),
                self.canal_expansion_temps.clone(),
            );
            mettre(
                "canal_enregistrement_direct".into(),
                self.canal_enregistrement_direct.clone(),
            );
        }
        c
    }

    /// `meteo`, telle que le serveur la valide (températures entières).
    pub(crate) fn meteo(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let t = &self.meteo;
        for (cle, v) in [
            ("temperature_debut", t.temperature_debut.map(Value::from)),
            ("temperature_fin", t.temperature_fin.map(Value::from)),
            ("vent", t.vent.clone().map(Value::String)),
            ("couverture", t.couverture.clone().map(Value::String)),
        ] {
            if let Some(v) = v {
                m.insert(cle.into(), v);
            }
        }
        m
    }
}

/// Une clé de `configuration` attendue, et l'option de `vigie depot` qui la pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Attendue {
    pub(crate) cle: &'static str,
    pub(crate) option: &'static str,
}

const fn attendue(cle: &'static str, option: &'static str) -> Attendue {
    Attendue { cle, option }
}

/// Ce qu'une participation de point fixe doit dire : l'enregistreur, et le premier micro
/// (position, hauteur, type), que la fiche du site web montre.
const ATTENDUES_POINT_FIXE: [Attendue; 4] = [
    attendue("detecteur_enregistreur_type", "--enregistreur-type"),
    attendue("micro0_position", "--micro-position"),
    attendue("micro0_hauteur", "--micro-hauteur"),
    attendue("micro0_type", "--micro-type"),
];

/// Ce qu'une participation de routier ou de pédestre doit dire : l'enregistreur, le micro, et
/// les deux canaux, que le calcul lit (`scripts/task_participation.py` `run_tadaridaD` : chaque
/// canal traité avec son facteur ; sans eux, tout est traité comme expansé ×10).
const ATTENDUES_ROUTIER: [Attendue; 4] = [
    attendue("detecteur_enregistreur_type", "--enregistreur-type"),
    attendue("micro_type", "--micro-type"),
    attendue("canal_expansion_temps", "--canal-expansion"),
    attendue("canal_enregistrement_direct", "--canal-direct"),
];

/// Ce que `configuration` ne dit pas (clé absente ou vide) parmi ce qu'une participation de
/// point fixe, ou de routier et de pédestre, doit dire ; les numéros de série, facultatifs,
/// n'y sont pas.
pub(crate) fn manquantes(configuration: &Map<String, Value>, point_fixe: bool) -> Vec<Attendue> {
    let attendues = if point_fixe {
        &ATTENDUES_POINT_FIXE
    } else {
        &ATTENDUES_ROUTIER
    };
    attendues
        .iter()
        .filter(|a| configuration.get(a.cle).is_none_or(vide))
        .copied()
        .collect()
}

/// Une clé de canal (`canal_expansion_temps`, `canal_enregistrement_direct`).
pub(crate) fn est_un_canal(a: &Attendue) -> bool {
    a.cle.starts_with("canal_")
}

/// Les canaux qu'une configuration de routier ou de pédestre laisse vides (voir
/// [`manquantes`]) ; rien en point fixe.
pub(crate) fn canaux_manquants(
    configuration: &Map<String, Value>,
    point_fixe: bool,
) -> Vec<&'static str> {
    manquantes(configuration, point_fixe)
        .into_iter()
        .filter(est_un_canal)
        .map(|a| a.cle)
        .collect()
}

/// Une séquence de routier ou de pédestre, vue pour déduire les canaux de sa nuit : son côté
/// (lu dans son nom, comme le calcul le lit), le nombre de canaux de son en-tête, et si son
/// en-tête dit un enregistrement direct (fréquence au-dessus du seuil de la garde de format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SequenceDeCanal<'a> {
    pub(crate) nom: &'a str,
    pub(crate) droite: bool,
    pub(crate) canaux: u16,
    pub(crate) direct: bool,
}

/// `canal_expansion_temps` et `canal_enregistrement_direct` d'une nuit de routier ou de
/// pédestre, déduits de ses séquences, ou pourquoi ils ne se déduisent pas (la bénévole les
/// donne alors par `--canal-expansion` et `--canal-direct`).
///
/// Le calcul (`scripts/task_participation.py`, `run_tadaridaD`) traite, quand les deux sont
/// dits, les séquences du canal d'expansion à ×10 et celles du canal direct à ×1, le canal
/// d'une séquence étant lu dans son nom (`FichierWav.cir_canal` : `…-Chiro_1_…` à droite,
/// sinon à gauche). D'où la règle : chaque séquence est mono (un fichier stéréo mêle deux
/// canaux que le nom ne sépare pas) ; chaque côté présent est tout en expansion ou tout en
/// direct ; les deux côtés ne sont pas du même genre (le calcul n'a qu'un canal par facteur) ;
/// un côté absent est `ABSENT`.
pub(crate) fn canaux_deduits(
    sequences: &[SequenceDeCanal<'_>],
) -> Result<(&'static str, &'static str), String> {
    if let Some(s) = sequences.iter().find(|s| s.canaux != 1) {
        return Err(format!(
            "{} a {} canaux : vigie ne sait pas lequel est en expansion de temps",
            s.nom, s.canaux
        ));
    }
    // Par côté : le genre de ses séquences (direct ou non), s'il en a.
    let mut genre: [Option<bool>; 2] = [None, None];
    for s in sequences {
        let cote = usize::from(s.droite);
        match genre[cote] {
            Some(g) if g != s.direct => {
                return Err(format!(
                    "le canal {} mêle des séquences en expansion de temps et en direct",
                    CANAUX[cote]
                ));
            }
            _ => genre[cote] = Some(s.direct),
        }
    }
    let cote_de = |direct: bool| {
        let cotes: Vec<usize> = (0..2).filter(|&c| genre[c] == Some(direct)).collect();
        match cotes.as_slice() {
            [] => Ok("ABSENT"),
            [c] => Ok(CANAUX[*c]),
            _ => Err(format!(
                "les deux canaux sont {}",
                if direct {
                    "en direct"
                } else {
                    "en expansion de temps"
                }
            )),
        }
    };
    match (cote_de(false)?, cote_de(true)?) {
        ("ABSENT", "ABSENT") => Err("aucune séquence WAV lisible".into()),
        canaux => Ok(canaux),
    }
}

fn vide(v: &Value) -> bool {
    v.is_null() || v.as_str().is_some_and(str::is_empty)
}

/// `distante` complétée par `notre` : chaque clé que la plateforme a déjà (non vide) est
/// gardée telle quelle, même si `vigie` dirait autre chose ; une clé qu'elle n'a pas (ou vide)
/// reçoit la nôtre. `None` si rien ne manque : rien à écrire.
pub(crate) fn completer(
    distante: &Map<String, Value>,
    notre: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let mut fusion = distante.clone();
    let mut ajoute = false;
    for (cle, v) in notre {
        if fusion.get(cle).is_none_or(vide) {
            fusion.insert(cle.clone(), v.clone());
            ajoute = true;
        }
    }
    ajoute.then_some(fusion)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn description() -> Description {
        Description {
            enregistreur_type: Some("PassiveRecorder".into()),
            enregistreur_numero_serie: Some("1925492".into()),
            micros: [
                Micro {
                    position: Some("CANOPEE".into()),
                    hauteur: Some(4),
                    type_micro: Some("ICS".into()),
                    numero_serie: None,
                },
                Micro::default(),
            ],
            meteo: Meteo {
                temperature_debut: Some(18),
                temperature_fin: Some(11),
                vent: Some("FAIBLE".into()),
                couverture: Some("0-25".into()),
            },
            ..Description::default()
        }
    }

    #[test]
    fn les_cles_sont_celles_du_formulaire_web() {
        let mut d = description();
        assert_eq!(
            Value::Object(d.configuration(true)),
            json!({
                "detecteur_enregistreur_type": "PassiveRecorder",
                "detecteur_enregistreur_numero_serie": "1925492",
                "micro0_position": "CANOPEE",
                "micro0_hauteur": "4",
                "micro0_type": "ICS",
            })
        );
        // Le second micro d'un point fixe : `micro1_*`, comme le formulaire
        // (`Scille/vigiechiro-front`, `participation_ctrl.coffee`) ; rien en routier.
        d.micros[1] = Micro {
            position: Some("SOL".into()),
            hauteur: Some(1),
            type_micro: Some("SMX-US".into()),
            numero_serie: Some("M-78".into()),
        };
        let c = d.configuration(true);
        for (cle, v) in [
            ("micro1_position", "SOL"),
            ("micro1_hauteur", "1"),
            ("micro1_type", "SMX-US"),
            ("micro1_numero_serie", "M-78"),
        ] {
            assert_eq!(c[cle], v, "{cle}");
        }
        assert!(
            !d.configuration(false)
                .keys()
                .any(|k| k.starts_with("micro1")),
        );
        assert_eq!(
            Value::Object(d.meteo()),
            json!({"temperature_debut": 18, "temperature_fin": 11, "vent": "FAIBLE", "couverture": "0-25"})
        );
        let routier = Description {
            canal_expansion_temps: Some("GAUCHE".into()),
            canal_enregistrement_direct: Some("ABSENT".into()),
            micro_routier: Micro {
                type_micro: Some("SMX-U1".into()),
                ..Micro::default()
            },
            ..Description::default()
        };
        assert_eq!(
            Value::Object(routier.configuration(false)),
            json!({"micro_type": "SMX-U1", "canal_expansion_temps": "GAUCHE", "canal_enregistrement_direct": "ABSENT"})
        );
        assert!(canaux_manquants(&routier.configuration(false), false).is_empty());
        assert_eq!(
            canaux_manquants(&Map::new(), false),
            ["canal_expansion_temps", "canal_enregistrement_direct"]
        );
        assert!(canaux_manquants(&Map::new(), true).is_empty());
    }

    #[test]
    fn ce_qui_manque_est_dit_avec_l_option_qui_le_pose() {
        let options = |c: &Value, point_fixe| -> Vec<&str> {
            manquantes(c.as_object().unwrap(), point_fixe)
                .iter()
                .map(|a| a.option)
                .collect()
        };
        assert_eq!(
            options(&json!({}), true),
            [
                "--enregistreur-type",
                "--micro-position",
                "--micro-hauteur",
                "--micro-type"
            ]
        );
        // Une valeur vide ne dit rien ; les numéros de série ne sont pas attendus, ni le second
        // micro (facultatif : un seul micro est l'usage) ; vide, il ne manque pas.
        let c = Value::Object(description().configuration(true));
        assert!(!c.to_string().contains("micro1"), "{c}");
        assert!(options(&c, true).is_empty(), "{c}");
        let mut vide = c.clone();
        vide["micro1_type"] = json!("");
        assert!(options(&vide, true).is_empty(), "{vide}");
        assert_eq!(
            options(
                &json!({"micro_type": "SMX-U1", "canal_expansion_temps": ""}),
                false
            ),
            ["--enregistreur-type", "--canal-expansion", "--canal-direct"]
        );
    }

    #[test]
    fn les_valeurs_a_choix_sont_verifiees_avant_d_envoyer() {
        assert!(description().valider().is_ok());
        let mut d = description();
        d.meteo.vent = Some("TEMPETE".into());
        let e = d.valider().unwrap_err();
        assert_eq!(e.option, "--vent");
        assert!(e.to_string().contains("NUL, FAIBLE, MOYEN, FORT"), "{e}");
        let mut d = description();
        d.canal_expansion_temps = Some("GAUCHE".into());
        assert_eq!(d.valider().unwrap_err().option, "--canal-direct");
        let mut d = description();
        d.micros[1].position = Some("TRONC".into());
        assert_eq!(d.valider().unwrap_err().option, "--micro1-position");
    }

    #[test]
    fn un_micro_donne_remplace_le_retenu_valeur_par_valeur() {
        let retenu = description().micros[0].clone();
        let donne = Micro {
            hauteur: Some(2),
            numero_serie: Some("M-9".into()),
            ..Micro::default()
        };
        let micro = donne.par_dessus(&retenu);
        assert_eq!(micro.position.as_deref(), Some("CANOPEE"));
        assert_eq!(micro.hauteur, Some(2));
        assert_eq!(micro.type_micro.as_deref(), Some("ICS"));
        assert_eq!(micro.numero_serie.as_deref(), Some("M-9"));
        assert_eq!(micro.remplacements(&retenu, 0), ["--micro-hauteur 4 → 2"]);
        assert_eq!(
            retenu.dire(0),
            "--micro-position CANOPEE --micro-hauteur 4 --micro-type ICS"
        );
        // Le second micro d'un point fixe se dit par ses options à lui.
        assert_eq!(micro.remplacements(&retenu, 1), ["--micro1-hauteur 4 → 2"]);
        assert_eq!(
            retenu.dire(1),
            "--micro1-position CANOPEE --micro1-hauteur 4 --micro1-type ICS"
        );
        assert!(Micro::default().est_vide() && !donne.est_vide());
    }

    #[test]
    fn les_canaux_se_deduisent_des_sequences_mono_ou_se_demandent() {
        let s = |nom, droite, canaux, direct| SequenceDeCanal {
            nom,
            droite,
            canaux,
            direct,
        };
        // Mono, à gauche, en expansion : le cas du Passive Recorder en routier.
        assert_eq!(
            canaux_deduits(&[s("a", false, 1, false), s("b", false, 1, false)]),
            Ok(("GAUCHE", "ABSENT"))
        );
        // Mono, enregistrement direct (384 kHz) : le calcul doit le lire à ×1.
        assert_eq!(
            canaux_deduits(&[s("a", false, 1, true)]),
            Ok(("ABSENT", "GAUCHE"))
        );
        // Un côté de chaque genre.
        assert_eq!(
            canaux_deduits(&[s("a", false, 1, false), s("b", true, 1, true)]),
            Ok(("GAUCHE", "DROITE"))
        );
        let e = canaux_deduits(&[s("st.wav", false, 2, false)]).unwrap_err();
        assert!(e.contains("st.wav a 2 canaux"), "{e}");
        assert!(
            canaux_deduits(&[s("a", false, 1, false), s("b", false, 1, true)])
                .unwrap_err()
                .contains("GAUCHE mêle")
        );
        assert!(
            canaux_deduits(&[s("a", false, 1, false), s("b", true, 1, false)])
                .unwrap_err()
                .contains("deux canaux sont en expansion")
        );
        assert!(canaux_deduits(&[]).is_err());
    }

    #[test]
    fn completer_garde_tout_ce_que_le_site_web_a_mis() {
        let distante = json!({
            "micro0_numero_serie": "M-77",
            "micro1_position": "SOL",
            "micro0_type": "SMX-II",
            "detecteur_enregistreur_type": "",
        });
        let notre = description().configuration(true);
        let fusion = completer(distante.as_object().unwrap(), &notre).unwrap();
        assert_eq!(fusion["micro0_numero_serie"], "M-77");
        assert_eq!(fusion["micro1_position"], "SOL");
        // Une valeur posée sur le site web l'emporte sur la nôtre ; une vide est complétée.
        assert_eq!(fusion["micro0_type"], "SMX-II");
        assert_eq!(fusion["detecteur_enregistreur_type"], "PassiveRecorder");
        assert_eq!(fusion["micro0_hauteur"], "4");
        // Rien ne manque : rien à écrire.
        assert_eq!(completer(&fusion, &notre), None);
    }
}
