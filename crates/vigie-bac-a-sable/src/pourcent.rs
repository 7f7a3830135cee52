//! Le pourcent-décodage des chemins et des paramètres reçus (`%20` → espace), que lisent
//! l'aiguillage S3 (`operation.rs`, la clé d'objet visée) et l'API Vigie-Chiro
//! (`vigiechiro/lecture.rs`, les paramètres de requête). L'encodage, lui, est dans
//! `signature.rs`, avec les URL qu'il sert à fabriquer.
//!
//! Pourquoi un module à part : au fond du crate, il ne regarde personne ; rangé dans
//! `operation.rs`, il faisait regarder `operation` par l'API Vigie-Chiro, que regarde
//! `operation` (un cycle entre modules).

/// Pourcent-décodage d'un segment de chemin (`%20` → espace, `%C3%A9` → « é »).
///
/// Un `%` qui n'est pas suivi de deux chiffres hexadécimaux est gardé tel quel ; `+` reste un
/// `+` (dans un chemin, ce n'est pas une espace). Des octets décodés qui ne forment pas de
/// l'UTF-8 valide sont remplacés par U+FFFD.
pub(crate) fn decoder_pourcent(s: &str) -> String {
    fn hex(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let octets = s.as_bytes();
    let mut sortie = Vec::with_capacity(octets.len());
    let mut i = 0;
    while i < octets.len() {
        if octets[i] == b'%'
            && let (Some(h), Some(l)) = (
                octets.get(i + 1).copied().and_then(hex),
                octets.get(i + 2).copied().and_then(hex),
            )
        {
            sortie.push(h << 4 | l);
            i += 3;
        } else {
            sortie.push(octets[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&sortie).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodage_tolerant() {
        assert_eq!(decoder_pourcent("a%2Fb"), "a/b");
        assert_eq!(decoder_pourcent("100%"), "100%");
        assert_eq!(decoder_pourcent("%zz%4"), "%zz%4");
        assert_eq!(decoder_pourcent("a+b"), "a+b");
        assert_eq!(decoder_pourcent("%FF"), "\u{FFFD}");
    }
}
