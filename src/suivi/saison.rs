//! Les mots d'une nuit de saison, pour `vigie depot`, `vigie etat` et `vigie plans` : le jour
//! abrégé en français et la nuit en quelques mots.

use chrono::{Datelike, NaiveDate};

use crate::plan::NuitLiee;

/// `sam. 20/06` : le jour abrégé en français et la date.
pub fn jour_court(d: NaiveDate) -> String {
    const JOURS: [&str; 7] = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."];
    format!(
        "{} {:02}/{:02}",
        JOURS[d.weekday().num_days_from_monday() as usize],
        d.day(),
        d.month()
    )
}

/// Une nuit de la base en quelques mots : `ven. 03/07 A1 Pass1`.
pub fn libelle_liee(n: &NuitLiee) -> String {
    match NaiveDate::parse_from_str(&n.soiree, "%Y-%m-%d") {
        Ok(s) => format!("{} {} Pass{}", jour_court(s), n.point, n.passage),
        Err(_) => format!("circuit {} Pass{}", n.numero_site, n.passage),
    }
}
