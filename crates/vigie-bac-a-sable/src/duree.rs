//! Les durées des règles de pannes : `lenteur:500ms`, `bloquer:30s`, `retry-after=+2s`.
//!
//! La même grammaire que les durées de la ligne de commande de `vigie` (`--jusqu-au-bout=DURÉE`,
//! module `duree` de l'outil) : l'unité est obligatoire (« 5 » seul ne dit pas si ce sont des
//! secondes ou des minutes), la virgule décimale est admise, et au-delà d'un an c'est une faute
//! de frappe. Recopiée plutôt qu'empruntée : le bac à sable ne dépend pas du client qu'il met à
//! l'épreuve (il se construit et se teste sans lui, et `vigie` en dépend, pas l'inverse). Un test
//! de `vigie` (`duree::tests::meme_grammaire_que_les_pannes_du_bac_a_sable`) vérifie que les deux
//! lectures s'accordent, pour qu'une durée écrite dans `--pannes` se lise comme sur la ligne de
//! commande.

use std::time::Duration;

/// `500ms`, `3s`, `1.5s`, `2min`, `1h` (unité obligatoire).
pub(crate) fn analyser(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let fin = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(s.len());
    let (nombre, unite) = s.split_at(fin);
    let valeur = nombre
        .replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0);
    let Some(valeur) = valeur else {
        return Err(format!(
            "durée « {s} » invalide : nombre positif suivi d'une unité attendu (ex. « 500ms », « 1.5s »)"
        ));
    };
    let facteur_ms = match unite.trim().to_ascii_lowercase().as_str() {
        "ms" => 1.0,
        "s" => 1_000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        "" => {
            return Err(format!(
                "durée « {s} » sans unité : écrire par ex. « 500ms », « 3s », « 2min »"
            ));
        }
        u => {
            return Err(format!(
                "unité de durée « {u} » inconnue dans « {s} » : ms, s, min ou h"
            ));
        }
    };
    let ms = (valeur * facteur_ms).round();
    // Au-delà d'un an, ce n'est plus une panne mais une erreur de frappe.
    if ms > 365.0 * 24.0 * 3_600_000.0 {
        return Err(format!("durée « {s} » trop longue (un an au plus)"));
    }
    Ok(Duration::from_millis(ms as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durees_lues_et_refusees() {
        assert_eq!(analyser("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(analyser("1,5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(analyser("2min"), Ok(Duration::from_secs(120)));
        for mauvaise in ["5", "", "h", "-1s", "3 ans", "9000h"] {
            assert!(analyser(mauvaise).is_err(), "{mauvaise}");
        }
    }
}
