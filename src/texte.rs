//! Petites règles de la langue des messages, sans dépendance : le moteur (`depot`) comme
//! l'affichage (`suivi`) s'en servent.

/// `n` suivi du singulier ou du pluriel : « 1 unité », « 3 unités », « 0 unité ».
pub fn pluriel(n: u64, singulier: &str, pluriel: &str) -> String {
    if n <= 1 {
        format!("{n} {singulier}")
    } else {
        format!("{n} {pluriel}")
    }
}
