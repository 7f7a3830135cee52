//! Les durées écrites par l'utilisateur : `500ms`, `3s`, `1.5s`, `2min`, `6h`.
//!
//! Une seule grammaire pour toute la ligne de commande (`--jusqu-au-bout=DURÉE`) et les règles de
//! pannes du bac à sable (`lenteur:DURÉE`) : l'unité est obligatoire (« 5 » seul ne dit pas si
//! ce sont des secondes ou des minutes), la virgule décimale est admise, et au-delà d'un an
//! c'est une faute de frappe. Le bac à sable, crate à part qui ne dépend pas de l'outil, en
//! garde sa copie ; un test ci-dessous vérifie que les deux lectures s'accordent.

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
        assert_eq!(analyser("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(analyser("1,5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(analyser("90min"), Ok(Duration::from_secs(5400)));
        assert_eq!(analyser("6h"), Ok(Duration::from_secs(6 * 3600)));
        for mauvaise in ["5", "", "h", "-1s", "3 ans", "9000h"] {
            assert!(analyser(mauvaise).is_err(), "{mauvaise}");
        }
    }

    /// Une durée écrite dans `--pannes` (bac à sable) se lit comme sur la ligne de commande :
    /// même valeur, mêmes refus. Échouerait si l'une des deux copies changeait seule.
    #[test]
    fn meme_grammaire_que_les_pannes_du_bac_a_sable() {
        use vigie_bac_a_sable::{Panne, Regle};
        let durees = [
            "500ms", "3s", "1.5s", "1,5s", "0s", "2min", "2m", "6h", "8760h", "5MS", "5", "", "h",
            "-1s", "3 ans", "9000h", "8761h", "1.2.3s", "s", "NaNs", "infs", "1e3s",
        ];
        for texte in durees {
            let client = analyser(texte);
            let bac = format!("HeadObject=lenteur:{texte}")
                .parse::<Regle>()
                .map(|r| r.panne);
            match client {
                Ok(d) => assert_eq!(bac, Ok(Panne::Lenteur(d)), "« {texte} »"),
                Err(_) => assert!(
                    bac.is_err(),
                    "« {texte} » refusée par vigie, lue par le bac à sable : {bac:?}"
                ),
            }
        }
    }
}
