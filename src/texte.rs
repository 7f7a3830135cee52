//! Petites règles de la langue des messages, sans dépendance : le moteur (`depot`) comme
//! l'affichage (`suivi`) s'en servent ; et la borne de tout texte venu d'un serveur
//! ([`borner`]), que le transport applique à sa lecture.

use std::borrow::Cow;
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

/// Une taille lisible : « 12,3 Mio ».
pub(crate) fn octets_lisibles(n: u64) -> String {
    const UNITES: [&str; 5] = ["o", "Kio", "Mio", "Gio", "Tio"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITES.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} o")
    } else {
        format!("{v:.1} {}", UNITES[u]).replace('.', ",")
    }
}

/// La longueur d'une ligne de texte venue d'un serveur : un titre de site, un nom, un pseudo,
/// un état. Au-delà, elle est bornée ([`borner`]) : un titre tient sur une ligne.
pub(crate) const LIGNE_MAX: usize = 80;

/// Un texte venu d'ailleurs (un serveur, un relais), borné à `max` caractères : s'il est plus
/// long, son début et sa fin, séparés par « … » (ce qui manque est au milieu : le début dit de
/// quoi il s'agit, la fin porte souvent l'essentiel, un numéro de site, une exception). Tout
/// texte du serveur que `vigie` garde pour le recopier (écran, JSON, base) passe par là, une
/// fois, à sa lecture.
pub(crate) fn borner(texte: &str, max: usize) -> Cow<'_, str> {
    let n = texte.chars().count();
    if n <= max {
        return Cow::Borrowed(texte);
    }
    let garde = max.saturating_sub(1);
    let debut = garde.div_ceil(2);
    let fin = garde - debut;
    let mut borne: String = texte.chars().take(debut).collect();
    borne.push('…');
    borne.extend(texte.chars().skip(n - fin));
    Cow::Owned(borne)
}

/// Une trace d'erreur (Python : sa dernière ligne dit l'exception) bornée à `max` caractères :
/// la dernière ligne toujours (bornée elle-même à la moitié de `max`), et, de ce qui la
/// précède, le début et la fin ([`borner`]).
pub(crate) fn borner_trace(texte: &str, max: usize) -> Cow<'_, str> {
    if texte.chars().count() <= max {
        return Cow::Borrowed(texte);
    }
    let sans_fin = texte.trim_end();
    let Some((avant, derniere)) = sans_fin.rsplit_once('\n') else {
        return borner(sans_fin, max);
    };
    let derniere = borner(derniere, max / 2);
    let place = max.saturating_sub(derniere.chars().count() + 1);
    Cow::Owned(format!("{}\n{derniere}", borner(avant, place)))
}

/// Un caractère qui ne doit pas atteindre un terminal tel quel : un caractère de contrôle (C0,
/// DEL, C1 : séquences d'échappement qui changent le titre de la fenêtre ou effacent l'écran,
/// CR et LF qui fabriquent de fausses lignes) ou une marque de direction (U+202E retourne
/// l'affichage de ce qui la suit, et fait lire « vaw.exe » pour « exe.wav »).
fn est_dangereux(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Un texte venu de l'extérieur (réponse d'un serveur, `<Message>` S3, nom de fichier, message
/// gardé en base) rendu inoffensif pour le terminal : chaque caractère dangereux devient sa
/// forme visible `\u{1b}`. Le reste est laissé tel quel, accents compris.
pub fn neutraliser(texte: &str) -> Cow<'_, str> {
    if !texte.chars().any(est_dangereux) {
        return Cow::Borrowed(texte);
    }
    let mut propre = String::with_capacity(texte.len() + 16);
    for c in texte.chars() {
        if est_dangereux(c) {
            propre.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            propre.push(c);
        }
    }
    Cow::Owned(propre)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliers_a_la_francaise() {
        assert_eq!(super::milliers(0), "0");
        assert_eq!(super::milliers(999), "999");
        assert_eq!(super::milliers(38_400), "38 400");
        assert_eq!(super::milliers(384_000), "384 000");
        assert_eq!(super::milliers(1_234_567), "1 234 567");
    }

    /// Un texte trop long garde son début et sa fin, jamais plus de `max` caractères.
    #[test]
    fn un_texte_borne_garde_son_debut_et_sa_fin() {
        assert_eq!(borner("court", 80), "court");
        let titre = format!("Vigiechiro - Point Fixe{}-640380", "x".repeat(3 << 20));
        let borne = borner(&titre, LIGNE_MAX);
        assert_eq!(borne.chars().count(), LIGNE_MAX);
        assert!(borne.starts_with("Vigiechiro - Point Fixe"), "{borne}");
        assert!(
            borne.ends_with("x-640380") && borne.contains('…'),
            "{borne}"
        );
    }

    /// Une trace Python de plus de 20 000 caractères garde son début, sa fin, et toujours la
    /// ligne de l'exception (la dernière), même démesurée.
    #[test]
    fn une_trace_bornee_garde_toujours_l_exception() {
        let pile =
            "  File \"/app/vigiechiro/scripts/task_participation.py\", line 395\n".repeat(500);
        let trace = format!(
            "Traceback (most recent call last):\n{pile}RuntimeError: Cannot update bilan\n"
        );
        assert!(trace.chars().count() > 20_000);
        let borne = borner_trace(&trace, 20_000);
        assert!(borne.chars().count() <= 20_000);
        assert!(
            borne.starts_with("Traceback (most recent call last):"),
            "{borne}"
        );
        assert_eq!(
            borne.lines().last(),
            Some("RuntimeError: Cannot update bilan")
        );
        let enorme = format!("Traceback\n{pile}ValueError: {}", "y".repeat(50_000));
        let borne = borner_trace(&enorme, 20_000);
        assert!(borne.chars().count() <= 20_000);
        assert!(borne.lines().last().unwrap().starts_with("ValueError: yyy"));
        assert_eq!(borner_trace("RuntimeError: x", 20_000), "RuntimeError: x");
    }

    #[test]
    fn le_texte_venu_de_l_exterieur_est_neutralise() {
        assert!(matches!(neutraliser("Café 503 Service"), Cow::Borrowed(_)));
        // Titre de fenêtre, effacement d'écran, fausse ligne, retournement de l'affichage.
        assert_eq!(
            neutraliser("\u{1b}]0;pirate\u{7}\u{1b}[2J"),
            r"\u{1b}]0;pirate\u{7}\u{1b}[2J"
        );
        assert_eq!(
            neutraliser("refusé\r\n✓ tout est déposé"),
            r"refusé\u{d}\u{a}✓ tout est déposé"
        );
        assert_eq!(neutraliser("a\u{202e}vaw.exe"), r"a\u{202e}vaw.exe");
        assert_eq!(neutraliser("\u{9b}31m"), r"\u{9b}31m");
    }
}
