//! Désigner une nuit comme la bénévole la nomme : par sa date et son point (`21/06 A1`), au
//! besoin son passage, son site ou l'année (`2026-06-21 A1 Pass1`, `21/06 A1 640380`) ;
//! jamais par un numéro de plan ni un identifiant de 24 caractères.
//!
//! Pourquoi : après le dépôt, chaque commande (`traiter`, `traitement`, `resultats`,
//! `verifier`, `etat`, `retenter-echecs`) agit sur toute la saison, ou sur quelques nuits
//! qu'on lui nomme. Une bénévole qui devait recopier un identifiant par nuit a relancé le
//! calcul d'une nuit finie au lieu de celle en erreur. Une seule grammaire, ici, pour toutes
//! les commandes, et une seule façon d'écrire une nuit dans un conseil ([`designation_courte`]).
//!
//! La grammaire, des **mots** (des arguments `NUIT…` sans guillemets, dans n'importe quel
//! shell : `vigie traiter --relancer 21/06 A1 22/06 B2`) :
//! - une **date** ouvre une nouvelle désignation : la soirée de la nuit, `21/06`, `21/6`,
//!   `21/06/2026` ou `2026-06-21` ; sans année, celle de la saison visée (celle du dernier
//!   dépôt) ; avec une autre année, la saison de cette année (même plateforme) ;
//! - un **circuit** routier ou pédestre, `Cir270` (comme dans les noms), ouvre aussi une
//!   désignation : ces nuits n'ont ni soirée ni point ;
//! - les mots suivants la **précisent** : le point (`A1`, `Z12`), le passage (`Pass1`), le
//!   numéro de site (`640380` ou `Car640380`) ; en majuscules ou non ;
//! - un **numéro de plan** seul (`vigie etat 3`) reste accepté là où il l'était : les scripts
//!   écrits avant continuent de marcher ; aucun conseil ne le montre plus.
//!
//! Une désignation qui convient à plusieurs nuits est refusée (code 2) en les listant par leur
//! désignation complète ; une qui ne convient à aucune, en listant les nuits de la saison.
//!
//! Ce qu'un conseil écrit ([`designation_courte`]) : la date et le point (jamais moins, pour
//! qu'une nuit ajoutée plus tard au même soir ne rende pas ambigu un conseil déjà noté), puis,
//! s'il le faut, le passage, le site ; l'année seulement pour une nuit d'une autre saison que
//! celle visée par défaut. Relue par [`resoudre`], elle désigne exactement cette nuit.

use std::fmt;

use anyhow::Result;
use chrono::NaiveDate;

use crate::plan::{Base, DernierDepot, NuitPlanifiee};
use crate::plateforme::conseil::commande;
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// Combien de nuits un refus liste au plus (une saison assidue en compte 40 à 50).
const NUITS_LISTEES: usize = 60;

/// Ce par quoi commence une désignation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Debut {
    /// La soirée de la nuit (à l'heure de l'enregistreur) ; sans année, celle de la saison
    /// visée.
    Date {
        jour: u32,
        mois: u32,
        annee: Option<i32>,
    },
    /// Un circuit routier ou pédestre (son numéro, tel qu'écrit dans les noms après `Cir`).
    Circuit(String),
}

/// Une nuit désignée par des mots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Designation {
    debut: Debut,
    point: Option<String>,
    passage: Option<u8>,
    /// Le numéro de site (`640380`).
    site: Option<String>,
}

impl fmt::Display for Designation {
    /// Les mots à taper : `21/06 A1 Pass1 640380`, `21/06/2025 A1`, `Cir270 Pass2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.debut {
            Debut::Date {
                jour,
                mois,
                annee: None,
            } => write!(f, "{jour:02}/{mois:02}")?,
            Debut::Date {
                jour,
                mois,
                annee: Some(a),
            } => write!(f, "{jour:02}/{mois:02}/{a}")?,
            Debut::Circuit(c) => write!(f, "Cir{c}")?,
        }
        if let Some(p) = &self.point {
            write!(f, " {p}")?;
        }
        if let Some(p) = self.passage {
            write!(f, " Pass{p}")?;
        }
        if let Some(s) = &self.site {
            write!(f, " {s}")?;
        }
        Ok(())
    }
}

/// Ce que disent les mots `NUIT…` d'une commande.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mots {
    /// Aucun mot : la saison visée par défaut.
    Aucun,
    /// Un numéro de plan seul (compatibilité des scripts).
    Plan(i64),
    /// Des nuits, dans l'ordre des mots.
    Nuits(Vec<Designation>),
}

/// Un mot reconnu.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mot {
    Debut(Debut),
    Point(String),
    Passage(u8),
    Site(String),
}

/// Un numéro : des chiffres ASCII seulement.
fn chiffres(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|o| o.is_ascii_digit())
}

/// `21/06`, `21/6`, `21/06/2026`, `2026-06-21`.
fn date(mot: &str) -> Option<Debut> {
    let (jour, mois, annee) = if let Some((a, reste)) = mot.split_once('-') {
        let (m, j) = reste.split_once('-')?;
        if a.len() != 4 || m.len() != 2 || j.len() != 2 {
            return None;
        }
        (j, m, Some(a))
    } else {
        let mut parties = mot.split('/');
        let (j, m) = (parties.next()?, parties.next()?);
        let a = parties.next();
        if parties.next().is_some() || a.is_some_and(|a| a.len() != 4) {
            return None;
        }
        if !(1..=2).contains(&j.len()) || !(1..=2).contains(&m.len()) {
            return None;
        }
        (j, m, a)
    };
    if !chiffres(jour) || !chiffres(mois) || annee.is_some_and(|a| !chiffres(a)) {
        return None;
    }
    Some(Debut::Date {
        jour: jour.parse().ok()?,
        mois: mois.parse().ok()?,
        annee: match annee {
            Some(a) => Some(a.parse().ok()?),
            None => None,
        },
    })
}

/// Le préfixe `prefixe` en tête de `mot`, quelle que soit la casse ; ce qui suit.
fn apres<'a>(mot: &'a str, prefixe: &str) -> Option<&'a str> {
    let tete = mot.get(..prefixe.len())?;
    tete.eq_ignore_ascii_case(prefixe)
        .then(|| &mot[prefixe.len()..])
}

fn lire_mot(mot: &str) -> Option<Mot> {
    if let Some(d) = date(mot) {
        return Some(Mot::Debut(d));
    }
    if let Some(c) = apres(mot, "Cir").filter(|c| chiffres(c)) {
        return Some(Mot::Debut(Debut::Circuit(c.to_owned())));
    }
    if let Some(p) = apres(mot, "Pass").filter(|p| chiffres(p) && p.len() <= 2) {
        return p.parse().ok().map(Mot::Passage);
    }
    if let Some(s) = apres(mot, "Car").filter(|s| chiffres(s)) {
        return Some(Mot::Site(s.to_owned()));
    }
    if chiffres(mot) {
        return Some(Mot::Site(mot.to_owned()));
    }
    let haut = mot.to_ascii_uppercase();
    let mut c = haut.chars();
    let point = match (c.next(), c.as_str()) {
        (Some('A'..='H'), "1" | "2") => true,
        (Some('Z'), n) => chiffres(n) && !n.starts_with('0'),
        _ => false,
    };
    point.then_some(Mot::Point(haut))
}

/// Ce que chaque refus rappelle : comment on nomme une nuit.
const GRAMMAIRE: &str = "une nuit se désigne par sa date (21/06, 21/06/2026 ou 2026-06-21), \
     puis au besoin son point (A1), son passage (Pass1), son site (640380) ; plusieurs nuits à \
     la suite : 21/06 A1 22/06 B2 ; un circuit routier : Cir270 Pass1";

fn refus(message: String) -> anyhow::Error {
    ErreurAvecCode::nouveau(CodeSortie::Usage, message).into()
}

/// Lit les mots `NUIT…` d'une commande. Un refus (code 2) dit le mot fautif et la grammaire.
pub(crate) fn analyser(mots: &[String]) -> Result<Mots> {
    match mots {
        [] => return Ok(Mots::Aucun),
        [seul] if chiffres(seul) => {
            return match seul.parse::<i64>() {
                Ok(n) if n > 0 => Ok(Mots::Plan(n)),
                _ => Err(refus(format!(
                    "« {seul} » : pas un numéro de plan ; {GRAMMAIRE}"
                ))),
            };
        }
        _ => {}
    }
    let mut nuits: Vec<Designation> = Vec::new();
    for mot in mots {
        let Some(lu) = lire_mot(mot) else {
            return Err(refus(format!("« {mot} » n'est pas compris : {GRAMMAIRE}")));
        };
        if let Mot::Debut(debut) = lu {
            if let Debut::Date { jour, mois, annee } = &debut {
                let possible = match annee {
                    Some(a) => NaiveDate::from_ymd_opt(*a, *mois, *jour).is_some(),
                    // 29/02 : selon l'année de la saison, vue à la résolution.
                    None => NaiveDate::from_ymd_opt(2024, *mois, *jour).is_some(),
                };
                if !possible {
                    return Err(refus(format!("« {mot} » : cette date n'existe pas")));
                }
            }
            nuits.push(Designation {
                debut,
                point: None,
                passage: None,
                site: None,
            });
            continue;
        }
        let Some(nuit) = nuits.last_mut() else {
            return Err(refus(format!(
                "« {mot} » précise une nuit : donnez d'abord sa date ({} par exemple) ; \
                 {GRAMMAIRE}",
                match &lu {
                    Mot::Point(p) => format!("21/06 {p}"),
                    Mot::Passage(p) => format!("21/06 A1 Pass{p}"),
                    _ => format!("21/06 A1 {mot}"),
                }
            )));
        };
        let deux_fois = |quoi: &str| {
            refus(format!(
                "« {nuit} {mot} » : deux {quoi} pour une même nuit ; pour plusieurs nuits, \
                 redonnez la date devant chacune (21/06 A1 21/06 B2)"
            ))
        };
        match lu {
            Mot::Point(p) if nuit.point.is_none() && matches!(nuit.debut, Debut::Date { .. }) => {
                nuit.point = Some(p);
            }
            Mot::Point(_) if nuit.point.is_some() => return Err(deux_fois("points")),
            Mot::Point(_) => {
                return Err(refus(format!(
                    "« {nuit} {mot} » : un circuit routier n'a pas de point"
                )));
            }
            Mot::Passage(p) if nuit.passage.is_none() => nuit.passage = Some(p),
            Mot::Passage(_) => return Err(deux_fois("passages")),
            Mot::Site(s) if nuit.site.is_none() => nuit.site = Some(s),
            Mot::Site(_) => return Err(deux_fois("sites")),
            Mot::Debut(_) => unreachable!("traité plus haut"),
        }
    }
    Ok(Mots::Nuits(nuits))
}

/// Deux numéros de site égaux, zéros de tête mis à part (`Car0640380` et `640380`).
fn meme_numero(a: &str, b: &str) -> bool {
    a.trim_start_matches('0') == b.trim_start_matches('0')
}

impl Designation {
    /// La nuit `n` est-elle désignée ? Sans année, la date est lue dans l'année `annee`.
    fn convient(&self, n: &NuitPlanifiee, annee: u16) -> bool {
        let nuit = &n.nuit;
        let debut = match &self.debut {
            Debut::Date {
                jour,
                mois,
                annee: a,
            } => {
                let a = a.unwrap_or(i32::from(annee));
                NaiveDate::from_ymd_opt(a, *mois, *jour)
                    .is_some_and(|d| d.format("%Y-%m-%d").to_string() == nuit.soiree)
            }
            Debut::Circuit(c) => {
                n.annee == annee && nuit.protocole == "routier" && meme_numero(c, &nuit.numero_site)
            }
        };
        debut
            && self
                .point
                .as_ref()
                .is_none_or(|p| p.eq_ignore_ascii_case(&nuit.point))
            && self.passage.is_none_or(|p| p == nuit.passage)
            && self
                .site
                .as_ref()
                .is_none_or(|s| meme_numero(s, &nuit.numero_site))
    }
}

/// Ce que désigne une désignation parmi des nuits.
#[derive(Debug)]
pub(crate) enum Resolution<'a> {
    Une(&'a NuitPlanifiee),
    Aucune,
    Plusieurs(Vec<&'a NuitPlanifiee>),
}

/// Les nuits de `nuits` que `d` désigne, une date sans année lue dans l'année `annee`.
pub(crate) fn resoudre<'a>(
    d: &Designation,
    nuits: &'a [NuitPlanifiee],
    annee: u16,
) -> Resolution<'a> {
    let mut trouvees: Vec<&NuitPlanifiee> = nuits.iter().filter(|n| d.convient(n, annee)).collect();
    match trouvees.len() {
        0 => Resolution::Aucune,
        1 => Resolution::Une(trouvees.remove(0)),
        _ => Resolution::Plusieurs(trouvees),
    }
}

/// Le début d'une nuit : sa soirée (avec l'année si elle n'est pas `annee`), ou son circuit.
fn debut_de(n: &NuitPlanifiee, annee: u16) -> Debut {
    match NaiveDate::parse_from_str(&n.nuit.soiree, "%Y-%m-%d") {
        Ok(d) => {
            use chrono::Datelike;
            Debut::Date {
                jour: d.day(),
                mois: d.month(),
                annee: (n.annee != annee).then_some(d.year()),
            }
        }
        Err(_) => Debut::Circuit(n.nuit.numero_site.clone()),
    }
}

/// La désignation complète d'une nuit : date (ou circuit), point, passage, site.
pub(crate) fn designation_complete(n: &NuitPlanifiee, annee: u16) -> Designation {
    Designation {
        debut: debut_de(n, annee),
        point: Some(n.nuit.point.clone()).filter(|p| !p.is_empty()),
        passage: Some(n.nuit.passage),
        site: Some(n.nuit.numero_site.clone()),
    }
}

/// La désignation la plus courte de `n` qui ne désigne qu'elle parmi `nuits` (une date sans
/// année lue dans l'année `annee`) : la date et le point, puis le passage, le site, ou les
/// deux. C'est elle que montrent les conseils. Deux nuits que rien ne distingue (deux de vos
/// sites portant le même numéro) gardent la désignation complète, que la résolution dira
/// ambiguë.
pub(crate) fn designation_courte(
    n: &NuitPlanifiee,
    nuits: &[NuitPlanifiee],
    annee: u16,
) -> Designation {
    let complete = designation_complete(n, annee);
    let base = Designation {
        passage: None,
        site: None,
        ..complete.clone()
    };
    let formes = [
        base.clone(),
        Designation {
            passage: complete.passage,
            ..base.clone()
        },
        Designation {
            site: complete.site.clone(),
            ..base
        },
    ];
    formes
        .into_iter()
        .find(|d| matches!(resoudre(d, nuits, annee), Resolution::Une(t) if t.plan_id == n.plan_id))
        .unwrap_or(complete)
}

/// Des nuits listées par leur désignation, `NUITS_LISTEES` au plus.
fn lister(nuits: &[&NuitPlanifiee], forme: impl Fn(&NuitPlanifiee) -> Designation) -> String {
    let mut liste: Vec<String> = nuits
        .iter()
        .take(NUITS_LISTEES)
        .map(|n| forme(n).to_string())
        .collect();
    if nuits.len() > NUITS_LISTEES {
        liste.push(format!(
            "… et {} autres ({})",
            nuits.len() - NUITS_LISTEES,
            commande("etat")
        ));
    }
    liste.join(", ")
}

/// Ce que vise une commande d'après le dépôt.
#[derive(Debug)]
pub(crate) enum Visee {
    /// Un plan hors saison : le dernier dépôt, ou un numéro de plan donné.
    Plan(i64),
    /// Des nuits de saison : toute la saison du dernier dépôt, ou celles désignées.
    Nuits(NuitsVisees),
}

impl Visee {
    /// Les plans visés, l'un après l'autre : celui hors saison, ou chaque nuit avec sa
    /// désignation la plus courte.
    pub(crate) fn plans(&self) -> Vec<(i64, Option<String>)> {
        match self {
            Visee::Plan(p) => vec![(*p, None)],
            Visee::Nuits(v) => v
                .nuits
                .iter()
                .map(|n| (n.plan_id, Some(v.designation(n).to_string())))
                .collect(),
        }
    }
}

/// Des nuits de saison visées, et de quoi écrire leur désignation la plus courte.
#[derive(Debug)]
pub(crate) struct NuitsVisees {
    /// Les nuits, dans l'ordre de la saison (sans mots) ou des mots.
    pub(crate) nuits: Vec<NuitPlanifiee>,
    /// Désignées par des mots (ou un numéro de plan) ; sinon, toute la saison par défaut.
    pub(crate) designees: bool,
    /// Les nuits de toutes les saisons de la même plateforme.
    connues: Vec<NuitPlanifiee>,
    /// L'année de la saison par défaut (celle du dernier dépôt).
    annee: u16,
}

impl NuitsVisees {
    /// La désignation la plus courte de `n`, telle qu'un conseil l'écrit.
    pub(crate) fn designation(&self, n: &NuitPlanifiee) -> Designation {
        designation_courte(n, &self.connues, self.annee)
    }
}

/// Les nuits de la saison de référence et de ses sœurs (même plateforme), et l'année de
/// référence.
fn connues(base: &Base, saison_id: i64) -> Result<(Vec<NuitPlanifiee>, u16)> {
    let de_la_saison = base.nuits_de_saison(saison_id)?;
    let Some(premiere) = de_la_saison.first() else {
        anyhow::bail!("saison sans nuit dans la base");
    };
    let annee = premiere.annee;
    Ok((base.nuits_de_l_api(&premiere.api)?, annee))
}

/// Ce que visent les mots `NUIT…` d'une commande dans la base : sans mot, le dernier dépôt
/// (`vers_la_plateforme` : parmi les plans vers la plateforme seulement) ; un numéro de plan ;
/// ou les nuits désignées, résolues parmi les nuits de la saison du dernier dépôt (et des
/// autres années de la même plateforme, pour une date qui porte son année). Une désignation
/// ambiguë ou inconnue est refusée (code 2), en listant les nuits.
pub(crate) fn viser(base: &Base, mots: &[String], vers_la_plateforme: bool) -> Result<Visee> {
    match analyser(mots)? {
        Mots::Aucun => match base.dernier_depot(vers_la_plateforme)? {
            DernierDepot::Plan(p) => Ok(Visee::Plan(p)),
            DernierDepot::Saison(s) => {
                let (connues, annee) = connues(base, s)?;
                Ok(Visee::Nuits(NuitsVisees {
                    nuits: base.nuits_de_saison(s)?,
                    designees: false,
                    connues,
                    annee,
                }))
            }
        },
        Mots::Plan(p) => {
            let plan = base.plan(Some(p))?;
            let Some(n) = base.nuit_du_plan(plan.id)? else {
                return Ok(Visee::Plan(plan.id));
            };
            // L'année de référence reste celle du dernier dépôt : les conseils écrits
            // ensuite se relisent comme des mots tapés.
            let reference = base.saison_du_dernier_depot()?.unwrap_or(n.saison_id);
            let (connues, annee) = connues(base, reference)?;
            let connues = if connues.iter().any(|c| c.plan_id == n.plan_id) {
                connues
            } else {
                base.nuits_de_l_api(&n.api)?
            };
            Ok(Visee::Nuits(NuitsVisees {
                nuits: vec![n],
                designees: true,
                connues,
                annee,
            }))
        }
        Mots::Nuits(designations) => {
            let Some(reference) = base.saison_du_dernier_depot()? else {
                return Err(refus(format!(
                    "aucune saison dans la base : une nuit ne se désigne que parmi celles \
                     d'une saison déposée par {} (sans --participation)",
                    commande("depot").arg("DOSSIER")
                )));
            };
            let (connues, annee) = connues(base, reference)?;
            let mut nuits: Vec<NuitPlanifiee> = Vec::new();
            let mut refus_: Vec<String> = Vec::new();
            for d in &designations {
                match resoudre(d, &connues, annee) {
                    Resolution::Une(n) => {
                        if !nuits.iter().any(|v| v.plan_id == n.plan_id) {
                            nuits.push(n.clone());
                        }
                    }
                    Resolution::Plusieurs(candidates) => refus_.push(format!(
                        "« {d} » désigne {} nuits : {} ; précisez laquelle",
                        candidates.len(),
                        lister(&candidates, |n| designation_complete(n, annee))
                    )),
                    Resolution::Aucune => {
                        let de_l_annee: Vec<&NuitPlanifiee> = connues
                            .iter()
                            .filter(|n| match &d.debut {
                                Debut::Date { annee: Some(a), .. } => i32::from(n.annee) == *a,
                                _ => n.annee == annee,
                            })
                            .collect();
                        let saison = match &d.debut {
                            Debut::Date { annee: Some(a), .. } => *a,
                            _ => i32::from(annee),
                        };
                        refus_.push(if de_l_annee.is_empty() {
                            format!("« {d} » : aucune nuit de la saison {saison} dans la base")
                        } else {
                            format!(
                                "« {d} » ne désigne aucune nuit de la saison {saison} ; ses \
                                 nuits : {}",
                                lister(&de_l_annee, |n| designation_courte(n, &connues, annee))
                            )
                        });
                    }
                }
            }
            if !refus_.is_empty() {
                return Err(refus(format!("{} ; rien n'a été fait", refus_.join(" ; "))));
            }
            Ok(Visee::Nuits(NuitsVisees {
                nuits,
                designees: true,
                connues,
                annee,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::NuitLiee;

    fn mots(texte: &str) -> Vec<String> {
        texte.split_whitespace().map(str::to_owned).collect()
    }

    fn nuits_de(texte: &str) -> Vec<Designation> {
        match analyser(&mots(texte)).unwrap() {
            Mots::Nuits(n) => n,
            autre => panic!("{texte} : {autre:?}"),
        }
    }

    fn refus_de(texte: &str) -> String {
        let e = analyser(&mots(texte)).unwrap_err();
        assert_eq!(crate::sortie::code_pour_erreur(&e), CodeSortie::Usage);
        format!("{e:#}")
    }

    /// Une nuit de point fixe, `plan` : `soiree` au format des noms (AAAA-MM-JJ).
    fn fixe(plan: i64, soiree: &str, point: &str, passage: u8, site: &str) -> NuitPlanifiee {
        NuitPlanifiee {
            plan_id: plan,
            saison_id: 1,
            annee: soiree[..4].parse().unwrap(),
            api: "http://127.0.0.1:1/api/v1".into(),
            nuit: NuitLiee {
                site: format!("64a1b2c3d4e5f6071829{site:0>4}"),
                numero_site: site.into(),
                protocole: "point_fixe".into(),
                passage,
                point: point.into(),
                soiree: soiree.into(),
                fuseau: "local".into(),
                premiere_s: None,
                derniere_s: None,
                enregistreurs: String::new(),
            },
        }
    }

    fn circuit(plan: i64, annee: u16, numero: &str, passage: u8) -> NuitPlanifiee {
        let mut n = fixe(plan, &format!("{annee}-01-01"), "", passage, numero);
        n.nuit.protocole = "routier".into();
        n.nuit.soiree = String::new();
        n
    }

    #[test]
    fn les_mots_d_une_nuit() {
        assert_eq!(analyser(&[]).unwrap(), Mots::Aucun);
        assert_eq!(analyser(&mots("3")).unwrap(), Mots::Plan(3));
        for (texte, attendu) in [
            ("21/06", "21/06"),
            ("21/6 a1", "21/06 A1"),
            ("21/06/2026 Z12 pass2", "21/06/2026 Z12 Pass2"),
            ("2026-06-21 A1 Pass1 640380", "21/06/2026 A1 Pass1 640380"),
            ("21/06 Car0640380 B2", "21/06 B2 0640380"),
            ("cir270 PASS1", "Cir270 Pass1"),
        ] {
            let n = nuits_de(texte);
            assert_eq!(n.len(), 1, "{texte}");
            assert_eq!(n[0].to_string(), attendu, "{texte}");
        }
        // Une date ouvre une nouvelle désignation ; le reste précise la dernière ouverte.
        let plusieurs = nuits_de("21/06 A1 22/06 B2 Pass2 Cir270 23/06");
        let textes: Vec<String> = plusieurs.iter().map(ToString::to_string).collect();
        assert_eq!(textes, ["21/06 A1", "22/06 B2 Pass2", "Cir270", "23/06"]);
        // Un numéro seul est un plan ; derrière une date, un site.
        assert_eq!(nuits_de("21/06 3")[0].site.as_deref(), Some("3"));
    }

    #[test]
    fn les_mots_refuses_disent_pourquoi_et_la_grammaire() {
        for (texte, attendu) in [
            ("A1", "donnez d'abord sa date (21/06 A1"),
            ("A1 21/06", "donnez d'abord sa date"),
            ("21/06 A1 B2", "deux points pour une même nuit"),
            ("21/06 Pass1 Pass2", "deux passages"),
            ("21/06 640380 640381", "deux sites"),
            ("Cir270 A1", "un circuit routier n'a pas de point"),
            ("31/06", "cette date n'existe pas"),
            ("29/02/2026", "cette date n'existe pas"),
            ("21/13", "cette date n'existe pas"),
            ("21-06", "n'est pas compris"),
            ("21/06/26", "n'est pas compris"),
            ("I1", "n'est pas compris"),
            ("Z0", "n'est pas compris"),
            ("Pass", "n'est pas compris"),
            ("0", "pas un numéro de plan"),
            ("64a1b2c3d4e5f60718293d01", "n'est pas compris"),
        ] {
            let e = refus_de(texte);
            assert!(e.contains(attendu), "{texte} : {e}");
        }
        assert!(refus_de("x").contains("21/06 A1 22/06 B2"));
        // 29/02 sans année se juge avec l'année de la saison.
        nuits_de("29/02 A1");
    }

    /// Trois nuits d'une saison, et ce que chaque désignation en dit.
    #[test]
    fn resoudre_une_plusieurs_aucune() {
        let nuits = [
            fixe(1, "2026-06-21", "A1", 1, "640380"),
            fixe(2, "2026-06-21", "B2", 1, "640380"),
            fixe(3, "2026-06-22", "A1", 2, "640380"),
            fixe(4, "2025-06-21", "A1", 1, "640380"),
            circuit(5, 2026, "270", 1),
        ];
        let plan = |texte: &str| match resoudre(&nuits_de(texte)[0], &nuits, 2026) {
            Resolution::Une(n) => n.plan_id,
            autre => panic!("{texte} : {autre:?}"),
        };
        assert_eq!(plan("21/06 A1"), 1);
        assert_eq!(plan("21/06 b2"), 2);
        assert_eq!(plan("22/06"), 3);
        assert_eq!(plan("2026-06-22 A1 Pass2 Car640380"), 3);
        assert_eq!(plan("21/06/2025"), 4);
        assert_eq!(plan("Cir270"), 5);
        assert_eq!(plan("Cir0270 Pass1"), 5);
        assert!(matches!(
            resoudre(&nuits_de("21/06")[0], &nuits, 2026),
            Resolution::Plusieurs(v) if v.len() == 2
        ));
        for aucune in [
            "21/06 A1 Pass2",
            "23/06",
            "21/06 640381",
            "Cir271",
            "22/06/2025",
        ] {
            assert!(
                matches!(
                    resoudre(&nuits_de(aucune)[0], &nuits, 2026),
                    Resolution::Aucune
                ),
                "{aucune}"
            );
        }
    }

    /// La plus courte désignation sans ambiguïté, jamais sans son point, et relue elle désigne
    /// sa nuit.
    #[test]
    fn la_designation_la_plus_courte_se_relit_sur_sa_nuit() {
        let nuits = [
            fixe(1, "2026-06-21", "A1", 1, "640380"),
            fixe(2, "2026-06-21", "A1", 2, "640380"),
            fixe(3, "2026-06-21", "B2", 1, "640380"),
            fixe(4, "2026-06-21", "B2", 1, "640381"),
            fixe(5, "2026-06-22", "A1", 1, "640380"),
            fixe(6, "2025-06-21", "A1", 1, "640380"),
            circuit(7, 2026, "270", 1),
            circuit(8, 2026, "270", 2),
            circuit(9, 2026, "271", 1),
        ];
        let attendues = [
            "21/06 A1 Pass1",
            "21/06 A1 Pass2",
            "21/06 B2 640380",
            "21/06 B2 640381",
            "22/06 A1",
            "21/06/2025 A1",
            "Cir270 Pass1",
            "Cir270 Pass2",
            "Cir271",
        ];
        for (n, attendue) in nuits.iter().zip(attendues) {
            let d = designation_courte(n, &nuits, 2026);
            assert_eq!(d.to_string(), attendue);
            let relue = nuits_de(&d.to_string()).remove(0);
            assert!(
                matches!(resoudre(&relue, &nuits, 2026), Resolution::Une(t) if t.plan_id == n.plan_id),
                "{d}"
            );
        }
        // Deux nuits que rien ne distingue : la désignation complète, dite ambiguë.
        let jumelles = [
            fixe(1, "2026-06-21", "A1", 1, "640380"),
            fixe(2, "2026-06-21", "A1", 1, "640380"),
        ];
        let d = designation_courte(&jumelles[0], &jumelles, 2026);
        assert_eq!(d.to_string(), "21/06 A1 Pass1 640380");
        assert!(matches!(
            resoudre(&d, &jumelles, 2026),
            Resolution::Plusieurs(_)
        ));
    }

    /// Contre une base : sans mot, toute la saison du dernier dépôt ; un numéro de plan ; des
    /// nuits désignées ; les refus listent les nuits.
    #[test]
    fn viser_dans_la_base() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = Base::ouvrir(&dir.path().join("b.sqlite")).unwrap();
        let api = "http://127.0.0.1:1/api/v1";
        let s = base.ouvrir_saison(api, 2026).unwrap();
        let mut ids = Vec::new();
        for (i, (soiree, point)) in [
            ("2026-06-21", "A1"),
            ("2026-06-21", "B2"),
            ("2026-06-22", "A1"),
        ]
        .into_iter()
        .enumerate()
        {
            let f = crate::plan::FichierPlanifie::d_essai("a.wav");
            let plan = base
                .planifier(
                    &format!("/s/{i}"),
                    &format!("vigiechiro:participation/{i}"),
                    &[f],
                    false,
                )
                .unwrap()
                .plan
                .unwrap()
                .id;
            base.lier_nuit(plan, s, &fixe(plan, soiree, point, 1, "640380").nuit)
                .unwrap();
            ids.push(plan);
        }
        let Visee::Nuits(toutes) = viser(&base, &[], true).unwrap() else {
            panic!("la saison attendue");
        };
        assert!(!toutes.designees);
        assert_eq!(
            toutes.nuits.iter().map(|n| n.plan_id).collect::<Vec<_>>(),
            ids
        );
        let noms: Vec<String> = toutes
            .nuits
            .iter()
            .map(|n| toutes.designation(n).to_string())
            .collect();
        assert_eq!(noms, ["21/06 A1", "21/06 B2", "22/06 A1"]);
        let Visee::Nuits(deux) = viser(&base, &mots("22/06 21/06 b2 22/06 A1"), true).unwrap()
        else {
            panic!("des nuits attendues");
        };
        assert!(deux.designees);
        assert_eq!(
            deux.nuits.iter().map(|n| n.plan_id).collect::<Vec<_>>(),
            [ids[2], ids[1]],
            "dans l'ordre des mots, chacune une fois"
        );
        let Visee::Nuits(par_plan) = viser(&base, &mots(&ids[1].to_string()), true).unwrap() else {
            panic!("la nuit du plan attendue");
        };
        assert_eq!(par_plan.nuits[0].plan_id, ids[1]);
        let e = format!("{:#}", viser(&base, &mots("21/06"), true).unwrap_err());
        assert!(
            e.contains("« 21/06 » désigne 2 nuits : 21/06 A1 Pass1 640380, 21/06 B2 Pass1 640380"),
            "{e}"
        );
        let e = format!("{:#}", viser(&base, &mots("23/06 A1"), true).unwrap_err());
        assert!(
            e.contains("ne désigne aucune nuit de la saison 2026 ; ses nuits : 21/06 A1, 21/06 B2, 22/06 A1"),
            "{e}"
        );
        let e = format!(
            "{:#}",
            viser(&base, &mots("21/06/2024 A1"), true).unwrap_err()
        );
        assert!(e.contains("aucune nuit de la saison 2024"), "{e}");
    }
}
