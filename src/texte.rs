//! Petites règles de la langue des messages, sans dépendance : le moteur (`depot`) comme
//! l'affichage (`suivi`) s'en servent.

use std::time::Duration;

/// `n` suivi du singulier ou du pluriel : « 1 unité », « 3 unités », « 0 unité ».
pub(crate) fn pluriel(n: u64, singulier: &str, pluriel: &str) -> String {
    if n <= 1 {
        format!("{n} {singulier}")
    } else {
        format!("{n} {pluriel}")
    }
}

/// Un entier, les milliers séparés par une espace, à la française : « 384 000 », « 96 000 ».
pub(crate) fn milliers(n: u64) -> String {
    let chiffres = n.to_string();
    let mut s = String::with_capacity(chiffres.len() + chiffres.len() / 3);
    for (i, c) in chiffres.chars().enumerate() {
        if i > 0 && (chiffres.len() - i).is_multiple_of(3) {
            s.push(' ');
        }
        s.push(c);
    }
    s
}

/// Une durée lisible : « 0,4 s », « 45 s », « 3 min 12 s », « 2 h 05 min ».
pub(crate) fn duree_lisible(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        return format!("{s:.1} s").replace('.', ",");
    }
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, sec) => format!("{sec} s"),
        (0, min, sec) => format!("{min} min {sec:02} s"),
        (h, min, _) => format!("{h} h {min:02} min"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn milliers_a_la_francaise() {
        assert_eq!(super::milliers(0), "0");
        assert_eq!(super::milliers(999), "999");
        assert_eq!(super::milliers(38_400), "38 400");
        assert_eq!(super::milliers(384_000), "384 000");
        assert_eq!(super::milliers(1_234_567), "1 234 567");
    }
}
