//! Le fuseau de l'enregistreur (`--fuseau`) : l'heure des noms de séquences est celle de son
//! horloge, sans fuseau ; la plateforme attend des instants UTC.
//!
//! Valeurs admises : `local` (celui du portable, par défaut : `chrono::Local`, qui lit aussi le
//! fuseau de Windows), `UTC` (ou `Z`), un décalage fixe `+02:00`, `-0300`, `+01` (un
//! enregistreur réglé « à l'heure d'hiver » toute l'année, ou qui ignore l'heure d'été). Un nom
//! de fuseau (`Europe/Paris`) demanderait les tables des fuseaux ; il est refusé avec les
//! écritures qui conviennent.
//!
//! [`Fuseau`] est un `chrono::TimeZone` : il se passe tel quel à
//! [`nuits::bornes_utc`](super::nuits::bornes_utc) et à
//! [`correspondance::attribuer`](super::correspondance::attribuer).

use std::fmt;

use chrono::{FixedOffset, Local, MappedLocalTime, NaiveDate, NaiveDateTime, Offset, TimeZone};

/// Le fuseau de l'horloge d'un enregistreur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fuseau {
    /// Celui du portable, heure d'été comprise.
    Local,
    /// Un décalage fixe par rapport à UTC (UTC : zéro).
    Fixe(FixedOffset),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--fuseau « {0} » : attendu local (le fuseau de l'ordinateur), UTC, ou un décalage fixe \
     comme +01:00 (heure d'hiver de Paris) ou +02:00 (heure d'été). Réglez-le sur l'horloge \
     de l'enregistreur, pas sur le lieu d'écoute"
)]
pub(crate) struct FuseauInconnu(pub(crate) String);

impl Fuseau {
    /// `local`, `UTC`/`Z`, `±HH:MM`, `±HHMM` ou `±HH` (jusqu'à 14 h).
    pub(crate) fn analyser(texte: &str) -> Result<Fuseau, FuseauInconnu> {
        let t = texte.trim();
        let inconnu = || FuseauInconnu(t.chars().take(40).collect());
        if t.eq_ignore_ascii_case("local") {
            return Ok(Fuseau::Local);
        }
        if t.eq_ignore_ascii_case("utc") || t.eq_ignore_ascii_case("z") {
            return Ok(Fuseau::Fixe(FixedOffset::east_opt(0).ok_or_else(inconnu)?));
        }
        let signe = match t.as_bytes().first() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return Err(inconnu()),
        };
        let chiffres: String = t[1..].chars().filter(|c| *c != ':').collect();
        let deux_points = t[1..].matches(':').count();
        let valide = chiffres.bytes().all(|o| o.is_ascii_digit())
            && matches!((chiffres.len(), deux_points), (2, 0) | (4, 0) | (4, 1))
            && (deux_points == 0 || t[1..].find(':') == Some(2));
        if !valide {
            return Err(inconnu());
        }
        let heures: i32 = chiffres[..2].parse().map_err(|_| inconnu())?;
        let minutes: i32 = chiffres.get(2..).unwrap_or("0").parse().unwrap_or(0);
        if heures > 14 || minutes > 59 || (heures == 14 && minutes > 0) {
            return Err(inconnu());
        }
        FixedOffset::east_opt(signe * (heures * 3600 + minutes * 60))
            .map(Fuseau::Fixe)
            .ok_or_else(inconnu)
    }
}

impl fmt::Display for Fuseau {
    /// `local`, `UTC` ou `+02:00` : ce que `--fuseau` relit.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fuseau::Local => f.write_str("local"),
            Fuseau::Fixe(o) if o.local_minus_utc() == 0 => f.write_str("UTC"),
            Fuseau::Fixe(o) => write!(f, "{o}"),
        }
    }
}

impl TimeZone for Fuseau {
    type Offset = FixedOffset;

    fn from_offset(offset: &FixedOffset) -> Self {
        Fuseau::Fixe(*offset)
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
        match self {
            Fuseau::Local => Local.offset_from_local_date(local).map(|o| o.fix()),
            Fuseau::Fixe(o) => MappedLocalTime::Single(*o),
        }
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
        match self {
            Fuseau::Local => Local.offset_from_local_datetime(local).map(|o| o.fix()),
            Fuseau::Fixe(o) => MappedLocalTime::Single(*o),
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
        match self {
            Fuseau::Local => Local.offset_from_utc_date(utc).fix(),
            Fuseau::Fixe(o) => *o,
        }
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
        match self {
            Fuseau::Local => Local.offset_from_utc_datetime(utc).fix(),
            Fuseau::Fixe(o) => *o,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::saison::nuits::instant_utc;

    #[test]
    fn ecritures_admises_et_relues() {
        for (texte, attendu) in [
            ("local", "local"),
            (" Local ", "local"),
            ("UTC", "UTC"),
            ("z", "UTC"),
            ("+00:00", "UTC"),
            ("+02:00", "+02:00"),
            ("+0200", "+02:00"),
            ("+02", "+02:00"),
            ("-03:30", "-03:30"),
            ("+14:00", "+14:00"),
        ] {
            let f = Fuseau::analyser(texte).unwrap_or_else(|e| panic!("{texte} : {e}"));
            assert_eq!(f.to_string(), attendu, "{texte}");
            assert_eq!(Fuseau::analyser(&f.to_string()), Ok(f));
        }
        for refuse in [
            "",
            "Europe/Paris",
            "CEST",
            "+2",
            "+2:00",
            "02:00",
            "+02:60",
            "+15:00",
            "+14:30",
            "+02:00:00",
            "+0a:00",
            "+020",
        ] {
            let e = Fuseau::analyser(refuse).unwrap_err();
            assert!(e.to_string().contains("+02:00"), "{refuse} : {e}");
        }
    }

    #[test]
    fn un_fuseau_fixe_convertit_les_heures_des_noms() {
        let ete = Fuseau::analyser("+02:00").unwrap();
        let t = instant_utc("2026-06-21T21:30:00".parse().unwrap(), &ete).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-06-21T19:30:00+00:00");
        let utc = Fuseau::analyser("UTC").unwrap();
        let t = instant_utc("2026-06-21T21:30:00".parse().unwrap(), &utc).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-06-21T21:30:00+00:00");
        // `local` suit le fuseau de la machine : on vérifie seulement qu'il convertit, dans un
        // sens puis dans l'autre.
        let t = instant_utc("2026-06-21T21:30:00".parse().unwrap(), &Fuseau::Local).unwrap();
        assert_eq!(
            t.with_timezone(&Fuseau::Local).naive_local().to_string(),
            "2026-06-21 21:30:00"
        );
    }
}
