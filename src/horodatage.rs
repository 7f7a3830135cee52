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

/// Un instant, à la seconde, en secondes Unix (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstantUtc(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErreurInstant {
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
    pub fn secondes(self) -> i64 {
        self.0
    }

    pub fn depuis_secondes(secondes: i64) -> Self {
        InstantUtc(secondes)
    }

    /// Lecture stricte, pour la ligne de commande : `AAAA-MM-JJTHH:MM[:SS]` (ou une espace au
    /// lieu du `T`) suivi de `Z` ou d'un décalage `±HH:MM`. À la seconde près : la plateforme
    /// ne garde pas de fraction.
    pub fn depuis_iso(texte: &str) -> Result<Self, ErreurInstant> {
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
    pub fn lire(texte: &str) -> Option<Self> {
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

    /// La forme canonique, ISO 8601 en UTC : `2026-06-21T21:30:00Z`.
    pub fn iso(self) -> String {
        let (annee, mois, jour, h, m, s) = self.civil();
        format!("{annee:04}-{mois:02}-{jour:02}T{h:02}:{m:02}:{s:02}Z")
    }

    /// La forme qu'exige la plateforme en entrée (RFC 1123, `DATE_FORMAT` de
    /// `vigiechiro/settings.py`) : `Sun, 21 Jun 2026 21:30:00 GMT`.
    pub fn rfc1123(self) -> String {
        const JOURS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        const MOIS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let (annee, mois, jour, h, m, s) = self.civil();
        // Le 1er janvier 1970 était un jeudi.
        let jour_semaine = JOURS[self.0.div_euclid(86_400).rem_euclid(7) as usize];
        format!(
            "{jour_semaine}, {jour:02} {} {annee:04} {h:02}:{m:02}:{s:02} GMT",
            MOIS[(mois - 1) as usize]
        )
    }

    /// (année, mois, jour, heure, minute, seconde) en UTC.
    fn civil(self) -> (i64, i64, i64, i64, i64, i64) {
        let jours = self.0.div_euclid(86_400);
        let dans_jour = self.0.rem_euclid(86_400);
        let (annee, mois, jour) = date_civile(jours);
        (
            annee,
            mois,
            jour,
            dans_jour / 3600,
            dans_jour % 3600 / 60,
            dans_jour % 60,
        )
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

fn lire_iso(t: &str) -> Option<LectureIso> {
    let nombre = |s: &str, chiffres: usize| -> Option<i64> {
        (s.len() == chiffres && s.bytes().all(|o| o.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (date, reste) = t.split_once(['T', 't', ' '])?;
    let mut d = date.split('-');
    let (annee, mois, jour) = (
        nombre(d.next()?, 4)?,
        nombre(d.next()?, 2)?,
        nombre(d.next()?, 2)?,
    );
    if d.next().is_some() {
        return None;
    }
    let (heure, fuseau) = match reste.find(['Z', 'z', '+', '-']) {
        Some(i) => (&reste[..i], Some(&reste[i..])),
        None => (reste, None),
    };
    let mut h = heure.split(':');
    let heures = nombre(h.next()?, 2)?;
    let minutes = nombre(h.next()?, 2)?;
    let secondes = match h.next() {
        Some(s) => nombre(s, 2)?,
        None => 0,
    };
    if h.next().is_some()
        || !(1..=12).contains(&mois)
        || !(1..=jours_du_mois(annee, mois)).contains(&jour)
        || heures > 23
        || minutes > 59
        || secondes > 59
    {
        return None;
    }
    let locale =
        jours_depuis_epoque(annee, mois, jour) * 86_400 + heures * 3600 + minutes * 60 + secondes;
    let decalage = match fuseau {
        None => return Some(LectureIso::SansFuseau(InstantUtc(locale))),
        Some("Z" | "z") => 0,
        Some(z) => {
            let signe = if z.starts_with('-') { -1 } else { 1 };
            let z = &z[1..];
            let (zh, zm) = match z.split_once(':') {
                Some((h, m)) => (nombre(h, 2)?, nombre(m, 2)?),
                None if z.len() == 4 => (nombre(&z[..2], 2)?, nombre(&z[2..], 2)?),
                None => (nombre(z, 2)?, 0),
            };
            if zh > 18 || zm > 59 {
                return None;
            }
            signe * (zh * 3600 + zm * 60)
        }
    };
    Some(LectureIso::AvecFuseau(InstantUtc(locale - decalage)))
}

fn bissextile(annee: i64) -> bool {
    annee % 4 == 0 && (annee % 100 != 0 || annee % 400 == 0)
}

fn jours_du_mois(annee: i64, mois: i64) -> i64 {
    match mois {
        2 if bissextile(annee) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Jours depuis le 1er janvier 1970 (algorithme de H. Hinnant).
fn jours_depuis_epoque(annee: i64, mois: i64, jour: i64) -> i64 {
    let a = if mois <= 2 { annee - 1 } else { annee };
    let ere = a.div_euclid(400);
    let ade = a.rem_euclid(400);
    let mp = (mois + 9) % 12;
    let jda = (153 * mp + 2) / 5 + jour - 1;
    let jde = ade * 365 + ade / 4 - ade / 100 + jda;
    ere * 146_097 + jde - 719_468
}

/// (année, mois, jour) d'un nombre de jours depuis le 1er janvier 1970 (H. Hinnant).
pub(crate) fn date_civile(jours: i64) -> (i64, i64, i64) {
    let z = jours + 719_468;
    let ere = z.div_euclid(146_097);
    let jde = z.rem_euclid(146_097);
    let ade = (jde - jde / 1460 + jde / 36_524 - jde / 146_096) / 365;
    let jda = jde - (365 * ade + ade / 4 - ade / 100);
    let mp = (5 * jda + 2) / 153;
    let jour = jda - (153 * mp + 2) / 5 + 1;
    let mois = if mp < 10 { mp + 3 } else { mp - 9 };
    (ade + ere * 400 + i64::from(mois <= 2), mois, jour)
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
}
