//! Ce que dit `vigie participations` : les participations de l'utilisateur sur la plateforme
//! (toutes, pas seulement celles que `vigie` a déposées), groupées par site puis par saison,
//! une ligne par nuit (date, point, passage, fichiers, état du calcul) et l'adresse de sa page,
//! puis ce que sa configuration ne dit pas encore du matériel, par les options de `vigie depot`
//! qui le posent ; en JSON, une ligne `participation` par participation.

use std::collections::BTreeMap;
use std::io::{self, Write};

use chrono::NaiveDate;

use super::Evenement;
use super::calcul::ModeSortie;
use super::format::replier;
use super::format::{neutraliser, pluriel};
use super::saison::{adresse_ou_identifiant, adresse_participation, jour_court};
use crate::description::{Attendue, est_un_canal};
use crate::saison::correspondance::date_plateforme;
use crate::saison::nuits::{cle_du_nom, soiree_de};
use crate::transport::vigiechiro::{EtatCalcul, ParticipationLue};

/// La largeur d'une ligne de la liste.
const LARGEUR: usize = 80;

/// Une participation de l'utilisateur, telle que la plateforme la décrit.
pub(crate) struct ParticipationDeLaPlateforme {
    pub(crate) id: String,
    /// Le titre de son site (`Vigiechiro - Point Fixe-640380`).
    pub(crate) site: String,
    /// La saison (l'année de sa nuit).
    pub(crate) annee: Option<i32>,
    /// La soirée de sa nuit (celle de ses fichiers, sinon de sa date de début).
    pub(crate) soiree: Option<NaiveDate>,
    pub(crate) point: Option<String>,
    /// Le passage lu dans le nom de ses fichiers.
    pub(crate) passage: Option<u8>,
    /// Ses fichiers (séquences `.wav`, `.ta`, `.tc`) ; `None` : pas relu.
    pub(crate) fichiers: Option<u64>,
    /// L'état du calcul, en quelques mots, et le mot du JSON.
    pub(crate) calcul: (&'static str, &'static str),
    /// Ce que sa `configuration` ne dit pas encore (`description::manquantes`).
    pub(crate) a_decrire: Vec<Attendue>,
}

impl ParticipationDeLaPlateforme {
    /// Une participation lue, et ce que dit la première page de ses fichiers.
    pub(crate) fn decrire(p: &ParticipationLue, fichiers: Option<(u64, Option<String>)>) -> Self {
        let (total, titre) = match fichiers {
            Some((t, titre)) => (Some(t), titre),
            None => (None, None),
        };
        let cle = titre.as_deref().and_then(cle_du_nom);
        // La soirée de ses fichiers ; sinon celle de sa date de début (à l'heure de la machine).
        let soiree = cle.as_ref().and_then(|c| c.soiree).or_else(|| {
            p.date_debut
                .as_deref()
                .and_then(date_plateforme)
                .map(|d| soiree_de(d.with_timezone(&chrono::Local).naive_local()))
        });
        ParticipationDeLaPlateforme {
            id: p.id.to_string(),
            site: p
                .site
                .as_ref()
                .map(|s| s.titre.clone())
                .unwrap_or_else(|| "site inconnu".to_owned()),
            annee: soiree.map(|s| chrono::Datelike::year(&s)),
            soiree,
            point: p.point.clone().filter(|p| !p.trim().is_empty()),
            passage: cle.map(|c| c.passage),
            fichiers: total,
            calcul: calcul(p.etat_calcul.as_ref()),
            // Point fixe : un point ; routier et pédestre, aucun (la règle de la création).
            a_decrire: crate::description::manquantes(
                &p.configuration.clone().unwrap_or_default(),
                p.point.as_deref().is_some_and(|p| !p.trim().is_empty()),
            ),
        }
    }
}

/// L'état du calcul en quelques mots, et le mot du JSON.
fn calcul(etat: Option<&EtatCalcul>) -> (&'static str, &'static str) {
    match etat {
        None => ("calcul pas lancé", "pas_lance"),
        Some(EtatCalcul::Planifie) => ("calcul planifié", "planifie"),
        Some(EtatCalcul::EnCours) => ("calcul en cours", "en_cours"),
        Some(EtatCalcul::Fini) => ("calcul fini", "fini"),
        Some(EtatCalcul::Erreur) => ("calcul en erreur", "erreur"),
        Some(EtatCalcul::Retry) => ("nouvel essai prévu", "retry"),
        Some(EtatCalcul::Autre(_)) => ("calcul : état inconnu", "autre"),
    }
}

/// Une ligne par participation, groupées par site puis par saison.
pub(crate) fn participations(
    m: ModeSortie,
    api: &str,
    liste: &[ParticipationDeLaPlateforme],
) -> io::Result<()> {
    let mut groupes: BTreeMap<(&str, Option<i32>), Vec<&ParticipationDeLaPlateforme>> =
        BTreeMap::new();
    for p in liste {
        groupes
            .entry((p.site.as_str(), p.annee))
            .or_default()
            .push(p);
    }
    if m.json {
        for p in groupes.values().flatten() {
            Evenement::Participation {
                site: &p.site,
                annee: p.annee,
                soiree: p.soiree.map(|s| s.to_string()),
                point: p.point.as_deref(),
                passage: p.passage,
                fichiers: p.fichiers,
                calcul: p.calcul.1,
                adresse: adresse_participation(api, &p.id),
                participation: &p.id,
                a_decrire: p.a_decrire.iter().map(|a| a.cle).collect(),
            }
            .ecrire()?;
        }
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    if liste.is_empty() {
        writeln!(s, "Aucune participation sur la plateforme.")?;
        return Ok(());
    }
    writeln!(
        s,
        "Vos participations sur la plateforme : {}.",
        pluriel(liste.len() as u64, "participation", "participations")
    )?;
    for ((site, annee), mut ps) in groupes {
        ps.sort_by(|a, b| (a.soiree, &a.point, a.passage).cmp(&(b.soiree, &b.point, b.passage)));
        let saison = annee.map_or_else(|| "saison inconnue".to_owned(), |a| format!("saison {a}"));
        writeln!(s, "{}", neutraliser(&format!("{site}, {saison} :")))?;
        for p in ps {
            let jour = p
                .soiree
                .map_or_else(|| "date inconnue".to_owned(), jour_court);
            let point: String = p.point.as_deref().unwrap_or("—").chars().take(5).collect();
            let passage = p
                .passage
                .map_or_else(|| "Pass?".to_owned(), |n| format!("Pass{n}"));
            let fichiers = p.fichiers.map_or_else(
                || "? fichiers".to_owned(),
                |n| pluriel(n, "fichier", "fichiers"),
            );
            let ligne = format!(
                "  {jour:<13} {point:<5} {passage:<6} {fichiers:>15}  {}",
                p.calcul.0
            );
            writeln!(s, "{}", neutraliser(&ligne))?;
            writeln!(
                s,
                "    {}",
                neutraliser(&adresse_ou_identifiant(api, &p.id))
            )?;
            for ligne in a_decrire(&p.a_decrire) {
                writeln!(s, "{ligne}")?;
            }
        }
    }
    if liste.iter().any(|p| !p.a_decrire.is_empty()) {
        for ligne in replier(
            "Ce qui manque se pose par ces options de vigie depot, qui complète la \
             participation sans rien effacer de ce que le site web y a mis ; ou sur le site web.",
            LARGEUR,
        ) {
            writeln!(s, "{ligne}")?;
        }
    }
    Ok(())
}

/// Les lignes qui disent ce qu'une participation ne dit pas encore : les options qui le posent
/// (toutes tiennent sur une ligne), puis, s'il manque un canal, ce qu'en fera le calcul ; rien
/// si rien ne manque.
fn a_decrire(manquantes: &[Attendue]) -> Vec<String> {
    if manquantes.is_empty() {
        return Vec::new();
    }
    let options: Vec<&str> = manquantes.iter().map(|a| a.option).collect();
    let mut lignes = replier(&format!("    manque : {}", options.join(" ")), LARGEUR);
    if manquantes.iter().any(est_un_canal) {
        lignes.push("    sans ses canaux, le calcul lira tout comme expansé ×10".to_owned());
    }
    lignes
}
