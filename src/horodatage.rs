//! Les instants d'une nuit : lus en ISO 8601 sur la ligne de commande, émis au format de la
//! plateforme Vigie-Chiro, relus dans ses réponses.
//!
//! Pourquoi un type à part : le serveur n'accepte en entrée **que** la RFC 1123
//! (`Sun, 21 Jun 2026 21:30:00 GMT` : `vigiechiro/settings.py` `DATE_FORMAT`, lu par
//! `xin/tools.py` `str_to_date`, appelé par `xin/schema.py` `_run_type_datetime`) ; une date ISO
//! 8601 y est refusée en 422 `must be of datetime type`. En sortie, il rend `isoformat()` d'une
//! date **sans fuseau** (`2026-06-21T21:30:00`, UTC implicite : `xin/tools.py`
//! `MongoJsonEncoder`). Et deux écritures d'un même instant (`21:00:00Z`, `23:00:00+02:00`)
//! doivent désigner la même nuit, donc le même plan et la même participation.
//!
//! La ligne de commande exige un fuseau (`Z` = UTC, ou un décalage `+02:00`) : `vigie` ne
//! devine pas l'heure locale de l'ordinateur (qui change deux fois l'an, et n'est pas forcément
//! celle du site d'écoute). Une heure sans fuseau est refusée avec les deux écritures qui
//! conviennent.

use std::fmt;
use std::sync::LazyLock;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, Utc};

/// Un instant, à la seconde, en secondes Unix (UTC), dans les bornes du calendrier de `chrono`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct InstantUtc(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ErreurInstant {
    #[error(
        "« {texte} » : heure sans fuseau ; vigie ne devine pas l'heure locale. Écrivez \
         {texte}Z si c'est l'heure UTC, ou {texte}+02:00 pour l'heure d'été de Paris \
         (+01:00 en hiver)"
    )]
    SansFuseau { texte: String },
    #[error(
        "« {0} » n'est pas un instant ISO 8601 : attendu AAAA-MM-JJTHH:MM[:SS] suivi du fuseau, \
         par exemple 2026-06-21T21:30:00Z (UTC) ou 2026-06-21T23:30:00+02:00"
    )]
    Illisible(String),
}

/// Ce qu'une lecture ISO a trouvé : l'instant si le fuseau est donné.
enum LectureIso {
    AvecFuseau(InstantUtc),
    SansFuseau(InstantUtc),
}

impl InstantUtc {
    /// Secondes Unix.
    pub(crate) fn secondes(self) -> i64 {
        self.0
    }

    /// Ramené dans les bornes du calendrier (±262 000 ans) : tout instant s'écrit.
    pub(crate) fn depuis_secondes(secondes: i64) -> Self {
        InstantUtc(secondes.clamp(
            DateTime::<Utc>::MIN_UTC.timestamp(),
            DateTime::<Utc>::MAX_UTC.timestamp(),
        ))
    }

    /// Lecture stricte, pour la ligne de commande : `AAAA-MM-JJTHH:MM[:SS]` (ou une espace au
    /// lieu du `T`) suivi de `Z` ou d'un décalage `±HH:MM`. À la seconde près : la plateforme
    /// ne garde pas de fraction.
    pub(crate) fn depuis_iso(texte: &str) -> Result<Self, ErreurInstant> {
        let t = texte.trim();
        match lire_iso(t).ok_or_else(|| ErreurInstant::Illisible(t.to_owned()))? {
            LectureIso::AvecFuseau(i) => Ok(i),
            LectureIso::SansFuseau(_) => Err(ErreurInstant::SansFuseau {
                texte: t.to_owned(),
            }),
        }
    }

    /// Lecture tolérante, pour ce que rend la plateforme et pour les plans écrits par une
    /// version antérieure : ISO 8601 avec fuseau, ISO **sans** fuseau (UTC, comme l'écrit
    /// `isoformat()` du serveur, avec ses microsecondes quand la date en a :
    /// `2026-06-21T21:40:00.123000`, tronquées à la seconde), ou RFC 1123.
    pub(crate) fn lire(texte: &str) -> Option<Self> {
        let t = sans_fraction(texte.trim());
        let t = t.as_ref();
        if let Ok(d) = httpdate::parse_http_date(t) {
            let s = d.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
            return i64::try_from(s).ok().map(InstantUtc);
        }
        match lire_iso(t)? {
            LectureIso::AvecFuseau(i) | LectureIso::SansFuseau(i) => Some(i),
        }
    }

    fn en_date(self) -> DateTime<Utc> {
        DateTime::from_timestamp(self.0, 0).expect("un InstantUtc est dans les bornes de chrono")
    }

    /// La forme canonique, ISO 8601 en UTC : `2026-06-21T21:30:00Z`.
    pub(crate) fn iso(self) -> String {
        self.en_date().format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }

    /// La forme qu'exige la plateforme en entrée (RFC 1123, `DATE_FORMAT` de
    /// `vigiechiro/settings.py`) : `Sun, 21 Jun 2026 21:30:00 GMT`.
    pub(crate) fn rfc1123(self) -> String {
        self.en_date()
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string()
    }
}

impl fmt::Display for InstantUtc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.iso())
    }
}

/// Le texte sans la fraction de seconde d'une heure ISO (`21:40:00.123000` → `21:40:00`).
fn sans_fraction(t: &str) -> std::borrow::Cow<'_, str> {
    let Some(point) = t.find('.').filter(|&i| t[..i].contains(':')) else {
        return std::borrow::Cow::Borrowed(t);
    };
    let chiffres = t[point + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(t.len() - point - 1);
    if chiffres == 0 {
        return std::borrow::Cow::Borrowed(t);
    }
    std::borrow::Cow::Owned(format!("{}{}", &t[..point], &t[point + 1 + chiffres..]))
}

/// L'écriture ISO admise, chiffre pour chiffre : date, `T` (ou `t`, ou une espace), heure et
/// minute, secondes facultatives, puis rien, `Z`, ou un décalage `±HH`, `±HHMM`, `±HH:MM`. Le
/// calendrier (29 février, 31 avril, secondes intercalaires) est l'affaire de `chrono`.
static ISO: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?(?:([Zz])|([+-])([0-9]{2})(?::?([0-9]{2}))?)?$",
    )
    .expect("expression valide")
});

fn lire_iso(t: &str) -> Option<LectureIso> {
    let c = ISO.captures(t)?;
    let nombre = |i: usize| c.get(i).map_or(Some(0), |m| m.as_str().parse::<u32>().ok());
    let date = NaiveDate::from_ymd_opt(i32::try_from(nombre(1)?).ok()?, nombre(2)?, nombre(3)?)?;
    // `from_hms_opt` refuse la seconde 60 : une seconde intercalaire n'est pas un instant
    // que la plateforme sache écrire.
    let heure = NaiveTime::from_hms_opt(nombre(4)?, nombre(5)?, nombre(6)?)?;
    let locale = date.and_time(heure);
    if c.get(7).is_none() && c.get(8).is_none() {
        return Some(LectureIso::SansFuseau(InstantUtc(
            locale.and_utc().timestamp(),
        )));
    }
    let (zh, zm) = (nombre(9)?, nombre(10)?);
    if zh > 18 || zm > 59 {
        return None;
    }
    let decalage = i32::try_from(zh * 3600 + zm * 60).ok()?;
    let signe = if c.get(8).is_some_and(|s| s.as_str() == "-") {
        -1
    } else {
        1
    };
    let fuseau = FixedOffset::east_opt(signe * decalage)?;
    let instant = locale.and_local_timezone(fuseau).single()?;
    Some(LectureIso::AvecFuseau(InstantUtc(instant.timestamp())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(t: &str) -> InstantUtc {
        InstantUtc::depuis_iso(t).unwrap_or_else(|e| panic!("{t} : {e}"))
    }

    #[test]
    fn deux_ecritures_d_un_meme_instant_sont_egales() {
        assert_eq!(
            iso("2026-06-21T21:30:00Z"),
            iso("2026-06-21T23:30:00+02:00")
        );
        assert_eq!(iso("2026-06-21T21:30Z"), iso("2026-06-21 21:30:00z"));
        assert_eq!(iso("2026-06-21T21:30:00Z"), iso("2026-06-21T19:30:00-0200"));
        assert_eq!(iso("2026-06-21T21:30:00Z"), iso("2026-06-21T23:30:00+02"));
        assert_eq!(iso("1970-01-01T00:00:00Z").secondes(), 0);
        assert_eq!(iso("2000-02-29T00:00:00Z").secondes(), 951_782_400);
    }

    #[test]
    fn forme_canonique_et_rfc_1123_de_la_plateforme() {
        let i = iso("2026-06-21T23:30:00+02:00");
        assert_eq!(i.iso(), "2026-06-21T21:30:00Z");
        assert_eq!(i.rfc1123(), "Sun, 21 Jun 2026 21:30:00 GMT");
        assert_eq!(
            iso("2000-02-29T00:00:00Z").rfc1123(),
            "Tue, 29 Feb 2000 00:00:00 GMT"
        );
        assert_eq!(
            iso("1970-01-01T00:00:00Z").rfc1123(),
            "Thu, 01 Jan 1970 00:00:00 GMT"
        );
        // httpdate, indépendant, écrit la même chose.
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(i.secondes() as u64);
        assert_eq!(httpdate::fmt_http_date(t), i.rfc1123());
    }

    #[test]
    fn heure_sans_fuseau_refusee_avec_les_deux_ecritures_qui_conviennent() {
        let e = InstantUtc::depuis_iso("2026-04-22T21:00:00").unwrap_err();
        assert!(matches!(e, ErreurInstant::SansFuseau { .. }), "{e}");
        let m = e.to_string();
        assert!(
            m.contains("2026-04-22T21:00:00Z") && m.contains("+02:00"),
            "{m}"
        );
    }

    #[test]
    fn ecritures_invalides_refusees() {
        for t in [
            "",
            "2026-06-21",
            "21/06/2026 21:30Z",
            "2026-6-21T21:30:00Z",
            "2026-06-31T21:30:00Z",
            "2026-02-29T21:30:00Z",
            "2026-06-21T24:00:00Z",
            "2026-06-21T21:60:00Z",
            "2026-06-21T21:30:60Z",
            "2026-06-21T21:30:00.5Z",
            "2026-06-21T21:30:00+19:00",
            "2026-06-21T21:30:00Zz",
            "2026-06-21T21:30:00:00Z",
            "Sun, 21 Jun 2026 21:30:00 GMT",
        ] {
            assert!(
                matches!(InstantUtc::depuis_iso(t), Err(ErreurInstant::Illisible(_))),
                "{t:?}"
            );
        }
    }

    #[test]
    fn lecture_tolerante_des_reponses_de_la_plateforme() {
        let i = iso("2026-06-21T21:30:00Z");
        // isoformat() d'une date sans fuseau : UTC implicite.
        assert_eq!(InstantUtc::lire("2026-06-21T21:30:00"), Some(i));
        assert_eq!(InstantUtc::lire("Sun, 21 Jun 2026 21:30:00 GMT"), Some(i));
        assert_eq!(InstantUtc::lire("2026-06-21T23:30:00+02:00"), Some(i));
        assert_eq!(InstantUtc::lire("2026-06-21T21:30:00.123000"), Some(i));
        assert_eq!(InstantUtc::lire("2026-06-21T23:30:00.5+02:00"), Some(i));
        assert_eq!(InstantUtc::lire("2026-06-21T21:30:00."), None);
        assert_eq!(InstantUtc::lire("n'importe quoi"), None);
        assert_ne!(InstantUtc::lire("2026-06-22T21:30:00"), Some(i));
    }

    /// Les cas limites du calendrier : le 29 février des années bissextiles seulement (2000
    /// oui, 2100 non), le passage d'une année à l'autre (un décalage qui change l'année, la
    /// dernière seconde), la seconde intercalaire refusée, et des instants hors de 1970-9999
    /// qui s'écrivent encore.
    #[test]
    fn cas_limites_du_calendrier() {
        assert_eq!(iso("2024-02-29T12:00:00Z").iso(), "2024-02-29T12:00:00Z");
        assert_eq!(iso("2000-02-29T00:00:00Z").iso(), "2000-02-29T00:00:00Z");
        for refuse in [
            "2100-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z",
            "2026-06-00T00:00:00Z",
            "2016-12-31T23:59:60Z",
        ] {
            assert!(InstantUtc::depuis_iso(refuse).is_err(), "{refuse}");
            assert_eq!(InstantUtc::lire(refuse), None, "{refuse}");
        }
        // Une seconde intercalaire dans la forme de la plateforme n'est pas lue non plus.
        assert_eq!(InstantUtc::lire("Sat, 31 Dec 2016 23:59:60 GMT"), None);
        let fin = iso("2026-12-31T23:59:59Z");
        assert_eq!(
            InstantUtc::depuis_secondes(fin.secondes() + 1).iso(),
            "2027-01-01T00:00:00Z"
        );
        assert_eq!(
            iso("2027-01-01T00:30:00+01:00"),
            iso("2026-12-31T23:30:00Z")
        );
        assert_eq!(
            iso("2026-12-31T23:30:00-01:00").iso(),
            "2027-01-01T00:30:00Z"
        );
        assert_eq!(
            iso("2026-06-21T21:30:00+18:00").iso(),
            "2026-06-21T03:30:00Z"
        );
        assert_eq!(
            iso("2026-12-31T23:30:00-01:00").rfc1123(),
            "Fri, 01 Jan 2027 00:30:00 GMT"
        );
        assert_eq!(
            InstantUtc::depuis_secondes(-1).rfc1123(),
            "Wed, 31 Dec 1969 23:59:59 GMT"
        );
        assert_eq!(
            InstantUtc::depuis_secondes(-1).iso(),
            "1969-12-31T23:59:59Z"
        );
        // Hors du calendrier : ramené à sa borne, il s'écrit quand même.
        for extreme in [i64::MIN, i64::MAX] {
            let i = InstantUtc::depuis_secondes(extreme);
            assert!(!i.iso().is_empty() && !i.rfc1123().is_empty());
        }
    }
}
