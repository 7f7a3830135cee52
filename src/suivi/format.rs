//! Mises en forme partagées par les affichages : tailles, durées, débits, pluriels, noms.
//!
//! Pourquoi un module à part : la barre, les lignes simples et le bilan doivent dire la même
//! chose de la même façon (« 12,3 Mio », « 3 min 12 s »), en français, et ces fonctions pures se
//! testent sans terminal.

use std::time::Duration;

/// Un débit lisible : « 1,2 Mio/s » ; `None` si la durée est nulle (rien de mesurable).
pub(crate) fn debit_lisible(octets: u64, duree: Duration) -> Option<String> {
    let s = duree.as_secs_f64();
    (s > 0.0).then(|| format!("{}/s", octets_lisibles((octets as f64 / s) as u64)))
}

/// Un temps restant estimé, arrondi à la seconde supérieure : « 12 s », « 3 min 05 s ».
pub(crate) fn reste_lisible(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, sec) => format!("{sec} s"),
        (0, min, sec) => format!("{min} min {sec:02} s"),
        (h, min, _) => format!("{h} h {min:02} min"),
    }
}

pub use crate::texte::neutraliser;
pub(crate) use crate::texte::{duree_lisible, octets_lisibles, pluriel};

/// Un nom tenant en `largeur` caractères.
///
/// Un nom du protocole point fixe (`Car640380-2026-Pass1-A1-PA000123_20260621_221500_000.wav`)
/// garde ce qui le distingue : le passage et le point (`-Pass1-A1`), l'heure
/// (`_221500_000.wav`), puis le site ; ce qui cède d'abord, c'est le dossier, la partie libre
/// (`-PA000123`, le numéro de l'enregistreur), la date, l'année. Chaque morceau retiré laisse
/// « … » : `Car640380-2026-Pass1-A1…_221500_000.wav`. Un autre nom garde son début, jusqu'au
/// premier « - » s'il vient assez tôt, et sa fin ; on coupe le milieu.
pub(crate) fn nom_court(nom: &str, largeur: usize) -> String {
    let nom = neutraliser(nom);
    let n = nom.chars().count();
    if n <= largeur || largeur == 0 {
        return nom.into_owned();
    }
    if let Some(court) = point_fixe_court(&nom, largeur) {
        return court;
    }
    let tete_max = (largeur - 1) / 3;
    let tete = nom
        .chars()
        .position(|c| c == '-')
        .filter(|&p| p <= tete_max)
        .unwrap_or(tete_max);
    let queue = largeur - 1 - tete;
    let debut: String = nom.chars().take(tete).collect();
    let fin: String = nom.chars().skip(n - queue).collect();
    format!("{debut}…{fin}")
}

/// Un chemin de dossier raccourci pour tenir en `largeur` colonnes, coupé au milieu : il garde
/// son début (le lecteur ou la racine, jusqu'à un séparateur) et son dernier dossier entier
/// (celui de la nuit, qui la distingue) : `E:\Relevés Zoé\…\Nuit 2 - B2 (22 juin)`. Un dernier
/// dossier trop long pour cela est lui-même coupé au milieu. Couper par la gauche donnait
/// « …it 2 - B2 (22 juin) » : ni le disque ni le nom entier.
pub(crate) fn dossier_court(dossier: &str, largeur: usize) -> String {
    let n = dossier.chars().count();
    if n <= largeur || largeur < 3 {
        return dossier.to_owned();
    }
    let separateur = |c: char| c == '/' || c == '\\';
    // Le dernier dossier, avec le séparateur qui le précède (un séparateur final n'en fait
    // pas un dossier vide).
    let sans_fin = dossier.trim_end_matches(separateur);
    let dernier = sans_fin
        .rfind(separateur)
        .map_or("", |i| &dossier[i..])
        .chars()
        .count();
    let place = largeur - 1;
    if dernier > 0 && dernier < place {
        // Le début jusqu'au dernier séparateur qui tient, sinon ce qui tient.
        let tete_max = place - dernier;
        let tete: String = dossier.chars().take(tete_max).collect();
        let tete = match tete.rfind(separateur) {
            Some(i) if i > 0 => &tete[..=i],
            _ => tete.as_str(),
        };
        let fin: String = dossier.chars().skip(n - dernier).collect();
        return format!("{tete}…{fin}");
    }
    let tete = place / 2;
    let debut: String = dossier.chars().take(tete).collect();
    let fin: String = dossier.chars().skip(n - (place - tete)).collect();
    format!("{debut}…{fin}")
}

/// Une ligne repliée pour tenir en `largeur` colonnes, aux espaces : les lignes qui suivent
/// s'alignent quatre colonnes plus loin que le texte de la première. Un mot plus long que la
/// place (une adresse, un nom de fichier) reste entier, seul sur sa ligne.
pub(crate) fn replier(ligne: &str, largeur: usize) -> Vec<String> {
    crate::sortie::habiller(ligne, largeur)
}

/// Un nom du protocole point fixe raccourci morceau par morceau (voir [`nom_court`]), ou
/// `None` s'il n'en est pas un, ou si même réduit à son passage, son point et son heure il ne
/// tient pas.
fn point_fixe_court(nom: &str, largeur: usize) -> Option<String> {
    static POINT_FIXE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^(.*/)?(Car[^-/]+)(-[0-9]{4})(-Pass[0-9]{1,2}-(?:[A-H][12]|Z[1-9][0-9]*))(-[^/]*?)?(_[0-9]{8})(_[0-9]{6}_[0-9]{3}\.[a-z]+)$",
        )
        .expect("motif valide")
    });
    let c = POINT_FIXE.captures(nom)?;
    // Les morceaux dans l'ordre du nom ; le rang dit quand il cède (0 : jamais).
    let morceaux: Vec<(&str, u8)> = [(1, 1), (2, 5), (3, 4), (4, 0), (5, 2), (6, 3), (7, 0)]
        .into_iter()
        .map(|(i, rang)| (c.get(i).map_or("", |m| m.as_str()), rang))
        .collect();
    for cede in 1..=5u8 {
        let mut court = String::new();
        let mut retire = false;
        for (texte, rang) in &morceaux {
            if texte.is_empty() {
                continue;
            }
            if *rang != 0 && *rang <= cede {
                retire = true;
            } else {
                if retire {
                    court.push('…');
                    retire = false;
                }
                court.push_str(texte);
            }
        }
        if retire {
            court.push('…');
        }
        if court.chars().count() <= largeur {
            return Some(court);
        }
    }
    None
}

/// `sam. 20/06` : le jour abrégé en français et la date.
pub(crate) fn jour_court(d: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    const JOURS: [&str; 7] = ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."];
    format!(
        "{} {:02}/{:02}",
        JOURS[d.weekday().num_days_from_monday() as usize],
        d.day(),
        d.month()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `vigie plans` : un dossier trop long garde son lecteur et le nom entier de la nuit, coupé
    /// au milieu (et non plus « …it 2 - B2 (22 juin) », coupé par la gauche).
    #[test]
    fn un_dossier_long_se_coupe_au_milieu() {
        let windows = r"E:\Relevés Zoé\Saison 2026\Carte SD 2026\Nuit 2 - B2 (22 juin)";
        let court = dossier_court(windows, 36);
        assert_eq!(court, r"E:\…\Nuit 2 - B2 (22 juin)");
        assert!(court.chars().count() <= 36, "{court}");
        let unix = "/home/zoe/Terrain/Saison 2026/Nuit 2 - B2 (22 juin)";
        assert_eq!(dossier_court(unix, 30), "/home/…/Nuit 2 - B2 (22 juin)");
        assert_eq!(
            dossier_court(windows, 45),
            r"E:\Relevés Zoé\…\Nuit 2 - B2 (22 juin)"
        );
        // Rien à couper.
        assert_eq!(dossier_court(unix, 80), unix);
        // Un dernier dossier qui ne tient pas : coupé au milieu, début et fin lisibles.
        let long = "/n/Une nuit au nom vraiment beaucoup trop long pour la place";
        let c = dossier_court(long, 20);
        assert_eq!(c.chars().count(), 20, "{c}");
        assert!(
            c.starts_with("/n/Une ") && c.ends_with(" la place") && c.contains('…'),
            "{c}"
        );
    }

    #[test]
    fn lignes_repliees_aux_espaces() {
        let l = "  31 refus définitifs AUTHENTIFICATION : jeton ou identifiants refusés : renouvelez le jeton (vigie connexion)";
        let r = replier(l, 60);
        assert!(r.iter().all(|x| x.chars().count() <= 60), "{r:?}");
        assert_eq!(
            r.join(" ").split_whitespace().collect::<Vec<_>>(),
            l.split_whitespace().collect::<Vec<_>>()
        );
        assert!(
            r[1].starts_with("      ") && !r[1].starts_with("       "),
            "{r:?}"
        );
        assert_eq!(replier("court", 60), ["court"]);
    }

    #[test]
    fn tailles() {
        assert_eq!(octets_lisibles(0), "0 o");
        assert_eq!(octets_lisibles(1023), "1023 o");
        assert_eq!(octets_lisibles(1536), "1,5 Kio");
        assert_eq!(octets_lisibles(40 * 1024 * 1024 * 1024), "40,0 Gio");
    }

    #[test]
    fn debits() {
        assert_eq!(
            debit_lisible(3 * 1024 * 1024, Duration::from_secs(2)).as_deref(),
            Some("1,5 Mio/s")
        );
        assert_eq!(debit_lisible(10, Duration::ZERO), None);
    }

    #[test]
    fn durees() {
        assert_eq!(duree_lisible(Duration::from_millis(420)), "0,4 s");
        assert_eq!(duree_lisible(Duration::from_secs(45)), "45 s");
        assert_eq!(duree_lisible(Duration::from_secs(192)), "3 min 12 s");
        assert_eq!(
            duree_lisible(Duration::from_secs(2 * 3600 + 5 * 60 + 7)),
            "2 h 05 min"
        );
    }

    #[test]
    fn restes_arrondis_au_dessus() {
        assert_eq!(reste_lisible(Duration::from_millis(11_200)), "12 s");
        assert_eq!(reste_lisible(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(reste_lisible(Duration::ZERO), "0 s");
    }

    #[test]
    fn pluriels() {
        assert_eq!(pluriel(0, "unité", "unités"), "0 unité");
        assert_eq!(pluriel(1, "unité", "unités"), "1 unité");
        assert_eq!(pluriel(2, "unité", "unités"), "2 unités");
    }

    #[test]
    fn un_nom_venu_de_l_exterieur_est_neutralise() {
        assert_eq!(nom_court("x\u{1b}[2J.wav", 100), r"x\u{1b}[2J.wav");
    }

    /// Les noms raccourcis gardent le passage et le point, puis l'heure et le site : jamais
    /// « Car640380…1-PA000123_20260621_221500_000.wav », où ils ont disparu.
    #[test]
    fn noms_courts_gardent_le_passage_le_point_et_l_heure() {
        let nom = "Car640380-2026-Pass1-A1-PA000123_20260621_221500_000.wav";
        for (largeur, attendu) in [
            (56, nom),
            (55, "Car640380-2026-Pass1-A1…_20260621_221500_000.wav"),
            (44, "Car640380-2026-Pass1-A1…_221500_000.wav"),
            (38, "Car640380…-Pass1-A1…_221500_000.wav"),
            (30, "…-Pass1-A1…_221500_000.wav"),
        ] {
            assert_eq!(nom_court(nom, largeur), attendu, "{largeur}");
            assert!(attendu.chars().count() <= largeur);
        }
        // Le dossier cède en premier.
        assert_eq!(
            nom_court(&format!("carte/nuit-1/{nom}"), 56),
            "…Car640380-2026-Pass1-A1…_20260621_221500_000.wav"
        );
        // Trop étroit même pour le passage et l'heure : le début et la fin.
        assert_eq!(nom_court(nom, 20).chars().count(), 20);
    }

    #[test]
    fn noms_courts_gardent_le_site_et_l_heure() {
        let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
        assert_eq!(nom_court(nom, 100), nom);
        assert_eq!(
            nom_court(nom, 41),
            "Car640139-2026-Pass1-A1…_221500_000.wav"
        );
        let court = nom_court(nom, 20);
        assert_eq!(court.chars().count(), 20);
        assert_eq!(court, "Car640…21500_000.wav");
        assert_eq!(nom_court("été", 2), "…é");
    }
}
