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
