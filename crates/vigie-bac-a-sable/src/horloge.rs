//! L'horloge d'un service S3 et celle d'une requête signée : le refus
//! `403 RequestTimeTooSkewed` que rend S3 quand elles s'écartent de plus de 15 minutes.
//!
//! Pourquoi : la signature SigV4 porte l'instant de sa fabrication (`X-Amz-Date`), et S3 refuse
//! une requête datée à plus de 15 minutes de sa propre horloge, **avant** de regarder les
//! identifiants ou le compartiment. Un portable à l'heure fausse (pile de l'horloge vide,
//! fuseau mal réglé) voit donc chacune de ses requêtes refusée ainsi. S3 le dit dans le corps
//! (`RequestTime`, `ServerTime`, `MaxAllowedSkewMilliseconds`) et par l'en-tête `Date` de sa
//! réponse, qui permet au client de dire de combien son horloge est fausse.
//!
//! Le bac à sable simule un tel écart en décalant **sa** propre horloge ([`Panne::Horloge`]) :
//! s3s, lui, compare à la vraie heure ; la couche de pannes compare à l'heure décalée et répond
//! à sa place, avec la même forme de refus. Le même calcul sert le mandataire de test placé
//! devant moto (moto ne vérifie pas l'heure des requêtes).
//!
//! [`Panne::Horloge`]: crate::Panne::Horloge

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hyper::Uri;
use hyper::header::HeaderMap;

use crate::vigiechiro::{isoformat, jours_depuis_1970};

/// L'écart admis par S3 entre l'heure d'une requête signée et la sienne.
pub(crate) const ECART_ADMIS: Duration = Duration::from_secs(15 * 60);

/// Le refus d'une requête trop éloignée de l'horloge du service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusHorloge {
    /// La valeur de l'en-tête `Date` de la réponse : l'heure du service.
    pub date: String,
    /// Le corps XML de l'erreur, comme S3 l'écrit.
    pub corps: String,
}

/// L'instant SigV4 de la requête (`X-Amz-Date` en en-tête, ou en paramètre d'une URL
/// présignée), s'il y en a un et qu'il se lit.
fn instant_signe(entetes: &HeaderMap, uri: &Uri) -> Option<(String, SystemTime)> {
    let brut = entetes
        .get("x-amz-date")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| {
            uri.query()?.split('&').find_map(|p| {
                let (k, v) = p.split_once('=')?;
                k.eq_ignore_ascii_case("X-Amz-Date").then(|| v.to_owned())
            })
        })?;
    let instant = lire_amz_date(&brut)?;
    Some((brut, instant))
}

/// `20260621T213000Z` (forme de base de l'ISO 8601, en UTC).
fn lire_amz_date(s: &str) -> Option<SystemTime> {
    let o = s.as_bytes();
    if o.len() != 16 || o[8] != b'T' || o[15] != b'Z' {
        return None;
    }
    let n = |a: usize, b: usize| -> Option<i64> { s.get(a..b)?.parse().ok() };
    let (an, mois, jour) = (n(0, 4)?, n(4, 6)?, n(6, 8)?);
    let (h, min, sec) = (n(9, 11)?, n(11, 13)?, n(13, 15)?);
    if !(1..=12).contains(&mois) || !(1..=31).contains(&jour) || h > 23 || min > 59 || sec > 60 {
        return None;
    }
    let secondes = jours_depuis_1970(an, mois, jour) * 86_400 + h * 3600 + min * 60 + sec;
    u64::try_from(secondes)
        .ok()
        .map(|s| UNIX_EPOCH + Duration::from_secs(s))
}

/// `2026-06-21T23:30:00Z`, la forme de `ServerTime` chez S3.
fn iso8601(t: SystemTime) -> String {
    let s = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() as i64;
    format!("{}Z", isoformat(s))
}

/// L'heure d'un service dont l'horloge avance de `decalage_s` secondes sur `maintenant`.
pub(crate) fn heure_du_service(decalage_s: i64, maintenant: SystemTime) -> SystemTime {
    let d = Duration::from_secs(decalage_s.unsigned_abs());
    if decalage_s >= 0 {
        maintenant.checked_add(d).unwrap_or(maintenant)
    } else {
        maintenant.checked_sub(d).unwrap_or(UNIX_EPOCH)
    }
}

/// Le refus qu'un service à l'horloge décalée de `decalage_s` secondes oppose à cette requête,
/// ou `None` si elle n'est pas signée SigV4 ou tombe dans l'écart admis.
pub fn refus_horloge(
    decalage_s: i64,
    entetes: &HeaderMap,
    uri: &Uri,
    maintenant: SystemTime,
) -> Option<RefusHorloge> {
    let (brut, instant) = instant_signe(entetes, uri)?;
    let service = heure_du_service(decalage_s, maintenant);
    let ecart = match service.duration_since(instant) {
        Ok(d) => d,
        Err(e) => e.duration(),
    };
    if ecart <= ECART_ADMIS {
        return None;
    }
    let corps = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>RequestTimeTooSkewed</Code>\
         <Message>The difference between the request time and the current time is too large.\
         </Message><RequestTime>{brut}</RequestTime><ServerTime>{}</ServerTime>\
         <MaxAllowedSkewMilliseconds>{}</MaxAllowedSkewMilliseconds>\
         <RequestId>bac-a-sable</RequestId></Error>",
        iso8601(service),
        ECART_ADMIS.as_millis()
    );
    Some(RefusHorloge {
        date: httpdate::fmt_http_date(service),
        corps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entetes(date: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-amz-date", date.parse().unwrap());
        h
    }

    #[test]
    fn dates_sigv4_lues_comme_s3() {
        let t = lire_amz_date("20151021T072800Z").unwrap();
        assert_eq!(httpdate::fmt_http_date(t), "Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(iso8601(t), "2015-10-21T07:28:00Z");
        assert_eq!(
            iso8601(lire_amz_date("20240229T235959Z").unwrap()),
            "2024-02-29T23:59:59Z"
        );
        for mauvaise in [
            "",
            "20151021T072800",
            "2015-10-21T07:28:00Z",
            "20151321T072800Z",
        ] {
            assert_eq!(lire_amz_date(mauvaise), None, "{mauvaise}");
        }
    }

    #[test]
    fn refus_au_dela_de_15_minutes_seulement() {
        let requete = lire_amz_date("20260621T213000Z").unwrap();
        let uri: Uri = "/nuits/a.wav".parse().unwrap();
        let h = entetes("20260621T213000Z");
        // Service à l'heure, ou décalé de 14 min : admis.
        assert_eq!(refus_horloge(0, &h, &uri, requete), None);
        assert_eq!(refus_horloge(14 * 60, &h, &uri, requete), None);
        // Deux heures d'avance : refus, avec l'heure du service.
        let r = refus_horloge(7200, &h, &uri, requete).unwrap();
        assert_eq!(r.date, "Sun, 21 Jun 2026 23:30:00 GMT");
        assert!(
            r.corps.contains("<Code>RequestTimeTooSkewed</Code>"),
            "{}",
            r.corps
        );
        assert!(
            r.corps
                .contains("<ServerTime>2026-06-21T23:30:00Z</ServerTime>")
        );
        assert!(
            r.corps
                .contains("<RequestTime>20260621T213000Z</RequestTime>")
        );
        // En retard aussi.
        assert!(refus_horloge(-3600, &h, &uri, requete).is_some());
        // Une URL présignée porte sa date en paramètre ; une requête non signée passe.
        let presignee: Uri = "/nuits/a.wav?X-Amz-Date=20260621T213000Z&X-Amz-Expires=60"
            .parse()
            .unwrap();
        assert!(refus_horloge(7200, &HeaderMap::new(), &presignee, requete).is_some());
        assert_eq!(refus_horloge(7200, &HeaderMap::new(), &uri, requete), None);
    }
}
