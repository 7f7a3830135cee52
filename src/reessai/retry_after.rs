//! Interprétation des en-têtes `Retry-After` et `Retry-After-Ms`.
//!
//! Pourquoi : quand le serveur dit combien attendre, c'est lui qui fait autorité, pas notre
//! backoff (règle 3 de `docs/politique-reessai.md`). Mais un en-tête malformé ne doit permettre
//! **ni un rejeu immédiat ni une attente infinie** : toute valeur douteuse rend `None`, et
//! l'appelant retombe alors sur son backoff jitteré.
//!
//! Formes admises (RFC 9110 § 10.2.3) :
//! - `Retry-After-Ms` (extension courante : Azure, OpenAI…) : entier ≥ 0 de millisecondes,
//!   prioritaire s'il est valide car plus précis ;
//! - `Retry-After` en secondes : entier ≥ 0 ;
//! - `Retry-After` en date HTTP : IMF-fixdate, RFC 850 ou asctime (via `httpdate`), comparée à
//!   `maintenant`, reçu en argument pour que les tests fixent la date (comme `cargo`,
//!   `src/util/network/retry.rs`).
//!
//! Les espaces et tabulations autour de la valeur (l'« OWS » de HTTP) sont tolérés ; un signe,
//! une partie décimale, un suffixe, un caractère non ASCII ne le sont pas.

use std::time::{Duration, SystemTime};

/// Plus longue attente acceptée : une valeur gigantesque y est ramenée, sans débordement.
/// Un an suffit à faire échouer toute échéance réaliste, ce qui est le comportement voulu.
pub(crate) const ATTENTE_DEMANDEE_MAX: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// Attente demandée par le serveur, à partir des valeurs brutes des en-têtes.
///
/// `Retry-After-Ms` l'emporte s'il est valide ; sinon `Retry-After` (secondes ou date HTTP). Une
/// date passée vaut [`Duration::ZERO`]. Toute valeur négative, décimale, vide, non ASCII ou
/// malformée est ignorée. Le résultat est plafonné à [`ATTENTE_DEMANDEE_MAX`].
pub(crate) fn attente_demandee(
    retry_after: Option<&str>,
    retry_after_ms: Option<&str>,
    maintenant: SystemTime,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(entier_non_signe) {
        return Some(Duration::from_millis(ms).min(ATTENTE_DEMANDEE_MAX));
    }
    let valeur = retry_after.map(sans_espaces_autour)?;
    if let Some(secondes) = entier_non_signe(valeur) {
        return Some(Duration::from_secs(secondes).min(ATTENTE_DEMANDEE_MAX));
    }
    // `httpdate` refuse d'elle-même le non-ASCII, un jour de semaine incohérent et les années
    // hors de 1970..=9999 ; elle ne panique pas sur une entrée malformée.
    let date = httpdate::parse_http_date(valeur).ok()?;
    Some(match date.duration_since(maintenant) {
        Ok(reste) => reste.min(ATTENTE_DEMANDEE_MAX),
        // Date déjà passée (ou horloges décalées) : le serveur ne demande plus d'attendre.
        Err(_) => Duration::ZERO,
    })
}

/// Retire l'« OWS » HTTP (espaces et tabulations) autour de la valeur, et rien d'autre : les
/// espaces Unicode ne sont pas admis dans un en-tête.
fn sans_espaces_autour(valeur: &str) -> &str {
    valeur.trim_matches([' ', '\t'])
}

/// Un entier décimal non signé, chiffres ASCII seulement, saturé à `u64::MAX` au lieu de
/// déborder. `None` pour une chaîne vide, signée, décimale ou contenant autre chose.
fn entier_non_signe(valeur: &str) -> Option<u64> {
    let valeur = sans_espaces_autour(valeur);
    if valeur.is_empty() || !valeur.bytes().all(|o| o.is_ascii_digit()) {
        return None;
    }
    Some(valeur.bytes().fold(0u64, |acc, chiffre| {
        acc.saturating_mul(10)
            .saturating_add(u64::from(chiffre - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// Dim. 6 novembre 1994, 08:49:37 UTC : la date des exemples de la RFC 9110.
    const DATE_EXEMPLE_S: u64 = 784_111_777;

    fn maintenant() -> SystemTime {
        // Trente secondes avant la date d'exemple.
        UNIX_EPOCH + Duration::from_secs(DATE_EXEMPLE_S - 30)
    }

    fn ra(valeur: &str) -> Option<Duration> {
        attente_demandee(Some(valeur), None, maintenant())
    }

    #[test]
    fn secondes() {
        assert_eq!(ra("120"), Some(Duration::from_secs(120)));
        assert_eq!(ra("0"), Some(Duration::ZERO));
        assert_eq!(ra("007"), Some(Duration::from_secs(7)));
        assert_eq!(ra("  5\t"), Some(Duration::from_secs(5)));
    }

    #[test]
    fn date_http_dans_les_trois_formats() {
        let attendu = Some(Duration::from_secs(30));
        assert_eq!(ra("Sun, 06 Nov 1994 08:49:37 GMT"), attendu, "IMF-fixdate");
        assert_eq!(ra("Sunday, 06-Nov-94 08:49:37 GMT"), attendu, "RFC 850");
        assert_eq!(ra("Sun Nov  6 08:49:37 1994"), attendu, "asctime");
        assert_eq!(
            ra(" Sun, 06 Nov 1994 08:49:37 GMT "),
            attendu,
            "espaces autour"
        );
    }

    #[test]
    fn date_passee_vaut_zero() {
        assert_eq!(ra("Sat, 05 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(ra("Thu, 01 Jan 1970 00:00:00 GMT"), Some(Duration::ZERO));
    }

    #[test]
    fn retry_after_ms_prioritaire_s_il_est_valide() {
        let m = maintenant();
        assert_eq!(
            attente_demandee(Some("120"), Some("1500"), m),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            attente_demandee(None, Some(" 250 "), m),
            Some(Duration::from_millis(250))
        );
        assert_eq!(attente_demandee(None, Some("0"), m), Some(Duration::ZERO));
        // Invalide : on retombe sur Retry-After.
        for ms in ["-5", "1.5", "", "abc", "٣", "\u{a0}5"] {
            assert_eq!(
                attente_demandee(Some("2"), Some(ms), m),
                Some(Duration::from_secs(2)),
                "Retry-After-Ms {ms:?}"
            );
            assert_eq!(attente_demandee(None, Some(ms), m), None, "seul {ms:?}");
        }
    }

    #[test]
    fn valeurs_refusees() {
        for valeur in [
            "-1",
            "-0",
            "+5",
            "1.5",
            "1,5",
            "1e3",
            "",
            "   ",
            "12s",
            "12 34",
            "\u{a0}5\u{a0}", // espace insécable : pas un espace HTTP
            "\u{2003}5",
            "١٢",                            // chiffres arabes-indiens
            "１２",                          // chiffres pleine chasse
            "Mon, 06 Nov 1994 08:49:37 GMT", // jour de semaine faux
            "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "demain",
            "Dim, 06 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(ra(valeur), None, "{valeur:?}");
        }
        assert_eq!(attente_demandee(None, None, maintenant()), None);
    }

    #[test]
    fn valeurs_gigantesques_saturees_sans_panique() {
        assert_eq!(
            ra("99999999999999999999999999999"),
            Some(ATTENTE_DEMANDEE_MAX)
        );
        assert_eq!(ra("18446744073709551615"), Some(ATTENTE_DEMANDEE_MAX));
        assert_eq!(
            attente_demandee(None, Some("99999999999999999999999999999"), maintenant()),
            Some(ATTENTE_DEMANDEE_MAX)
        );
        assert_eq!(
            ra("Fri, 31 Dec 9999 23:59:59 GMT"),
            Some(ATTENTE_DEMANDEE_MAX)
        );
        // Juste sous le plafond : rendu tel quel.
        assert_eq!(ra("31535999"), Some(Duration::from_secs(31_535_999)));
    }
}
