//! Les durées écrites par l'utilisateur : `500ms`, `3s`, `1.5s`, `2min`, `6h`.
//!
//! Une seule grammaire pour toute la ligne de commande (`--jusqu-au-bout=DURÉE`) et les règles de
//! pannes du bac à sable (`lenteur:DURÉE`) : l'unité est obligatoire (« 5 » seul ne dit pas si
//! ce sont des secondes ou des minutes), la virgule décimale est admise, et au-delà d'un an
//! c'est une faute de frappe. Le bac à sable, crate à part qui ne dépend pas de l'outil, en
//! garde sa copie ; un test ci-dessous vérifie que les deux lectures s'accordent.

use std::fmt;
use std::time::Duration;

/// Une durée en secondes, pour les options qui les ont toujours prises en nombre seul
/// (`--delai-tentative 30`, `--attente-passage 0,5`) : un nombre seul (des secondes, point ou
/// virgule décimale), ou une durée et son unité (`30s`, `2min`, `500ms`), lue par
/// [`analyser`]. Un nombre seul garde le sens qu'il a toujours eu ; sa validité (positive,
/// finie) est jugée par qui s'en sert (la politique de réessai, la cadence des passages).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) struct Secondes(pub(crate) f64);

impl Secondes {
    pub(crate) fn en_f64(self) -> f64 {
        self.0
    }

    /// L'attente que donne l'option `--nom` (entre deux passages, entre deux relevés) :
    /// strictement positive, d'une semaine au plus (au-delà, c'est une faute de frappe).
    pub(crate) fn attente(self, nom: &str) -> Result<Duration, String> {
        Duration::try_from_secs_f64(self.0)
            .ok()
            .filter(|d| !d.is_zero() && *d <= ATTENTE_MAX_ADMISE)
            .ok_or_else(|| {
                format!(
                    "--{nom} {self} invalide : une durée en secondes, positive, d'une semaine au plus"
                )
            })
    }
}

/// Au plus une semaine d'attente entre deux passages ou deux relevés.
const ATTENTE_MAX_ADMISE: Duration = Duration::from_secs(7 * 86_400);

impl std::str::FromStr for Secondes {
    type Err = String;

    fn from_str(texte: &str) -> Result<Self, String> {
        let t = texte.trim();
        if let Ok(v) = t.replace(',', ".").parse::<f64>() {
            return Ok(Secondes(v));
        }
        analyser(t).map(|d| Secondes(d.as_secs_f64()))
    }
}

/// Comme le nombre de secondes (`30`, `0.5`) : c'est ainsi que l'aide montre les défauts.
impl fmt::Display for Secondes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

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

    /// Un nombre seul reste des secondes, comme avant ; une durée avec son unité est lue par
    /// `analyser` (toutes les durées de la ligne de commande, une grammaire).
    #[test]
    fn secondes_en_nombre_seul_ou_avec_leur_unite() {
        let lire = |t: &str| t.parse::<Secondes>();
        assert_eq!(lire("30"), Ok(Secondes(30.0)));
        assert_eq!(lire("0.5"), Ok(Secondes(0.5)));
        assert_eq!(lire("0,5"), Ok(Secondes(0.5)));
        assert_eq!(lire("30s"), Ok(Secondes(30.0)));
        assert_eq!(lire("2min"), Ok(Secondes(120.0)));
        assert_eq!(lire("1h"), Ok(Secondes(3600.0)));
        assert_eq!(lire("500ms"), Ok(Secondes(0.5)));
        assert!(lire("2 lunes").unwrap_err().contains("unité de durée"));
        assert!(lire("vite").is_err());
        assert_eq!(Secondes(30.0).to_string(), "30");
        assert_eq!(Secondes(0.5).to_string(), "0.5");
    }

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
