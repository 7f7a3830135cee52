//! L'adresse d'une destination S3 (`s3://compartiment/prefixe`, et son point d'accès) : son
//! identité, qui nomme le plan, et ses clés d'objet, qui ne sortent jamais du préfixe.

use crate::destination::{ErreurDestination, chemin_sur, valider_endpoint};

/// Un compartiment S3 et le préfixe des clés.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DestinationS3 {
    pub(crate) compartiment: String,
    /// Préfixe des clés, sans « / » final (vide : à la racine du compartiment).
    pub(crate) prefixe: String,
    /// Point d'accès d'un service non AWS (style chemin), s'il y en a un.
    pub(crate) endpoint: Option<String>,
}

impl DestinationS3 {
    /// Analyse `s3://compartiment/prefixe`.
    pub(crate) fn analyser(
        texte: &str,
        endpoint: Option<&str>,
        autoriser_http: bool,
    ) -> Result<Self, ErreurDestination> {
        let reste = texte
            .strip_prefix("s3://")
            .ok_or_else(|| ErreurDestination::Forme(texte.to_owned()))?;
        let (compartiment, prefixe) = reste.split_once('/').unwrap_or((reste, ""));
        if !compartiment_valide(compartiment) {
            return Err(ErreurDestination::Compartiment(compartiment.to_owned()));
        }
        let prefixe = prefixe.trim_end_matches('/');
        if !prefixe.is_empty() && !chemin_sur(prefixe) {
            return Err(ErreurDestination::Prefixe(prefixe.to_owned()));
        }
        let endpoint = endpoint
            .map(|e| valider_endpoint(e, autoriser_http))
            .transpose()?;
        Ok(DestinationS3 {
            compartiment: compartiment.to_owned(),
            prefixe: prefixe.to_owned(),
            endpoint,
        })
    }

    /// La clé d'un chemin relatif : préfixe + « / » + chemin.
    pub(crate) fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        if !chemin_sur(chemin) {
            return Err(ErreurDestination::Cle(chemin.to_owned()));
        }
        Ok(if self.prefixe.is_empty() {
            chemin.to_owned()
        } else {
            format!("{}/{chemin}", self.prefixe)
        })
    }
}

impl DestinationS3 {
    /// L'identité canonique (`s3://compartiment/prefixe[?endpoint=…]`), qui nomme le plan
    /// avec le dossier. Elle ne contient jamais de secret.
    pub(crate) fn identite(&self) -> String {
        let mut identite = format!("s3://{}", self.compartiment);
        if !self.prefixe.is_empty() {
            identite.push('/');
            identite.push_str(&self.prefixe);
        }
        if let Some(e) = &self.endpoint {
            identite.push_str("?endpoint=");
            identite.push_str(e);
        }
        identite
    }

    /// Relit une identité écrite par [`DestinationS3::identite`].
    pub(crate) fn relire(identite: &str) -> Result<Self, ErreurDestination> {
        let (s3, endpoint) = match identite.split_once("?endpoint=") {
            Some((s3, e)) => (s3, Some(e)),
            None => (identite, None),
        };
        // L'identité a été validée à sa création, http:// local ou explicitement autorisé.
        DestinationS3::analyser(s3, endpoint, true)
    }
}

fn compartiment_valide(nom: &str) -> bool {
    (3..=63).contains(&nom.len())
        && nom
            .bytes()
            .all(|o| o.is_ascii_lowercase() || o.is_ascii_digit() || o == b'.' || o == b'-')
        && nom.as_bytes()[0].is_ascii_alphanumeric()
        && nom.as_bytes()[nom.len() - 1].is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyse_et_identite() {
        let d = DestinationS3::analyser("s3://nuits/2026/site-12/", None, false).unwrap();
        assert_eq!(d.prefixe, "2026/site-12");
        assert_eq!(d.cle("a/b.wav").unwrap(), "2026/site-12/a/b.wav");
        let d =
            DestinationS3::analyser("s3://nuits", Some("http://127.0.0.1:9000/"), false).unwrap();
        assert_eq!(d.identite(), "s3://nuits?endpoint=http://127.0.0.1:9000");
        assert_eq!(DestinationS3::relire(&d.identite()).unwrap(), d);
        assert_eq!(d.cle("b.wav").unwrap(), "b.wav");
    }

    #[test]
    fn refus() {
        for t in [
            "nuits", "s3://", "s3://A", "s3://ab", "s3://-ab", "s3://a_b",
        ] {
            assert!(DestinationS3::analyser(t, None, false).is_err(), "{t}");
        }
        for t in [
            "s3://nuits/../x",
            "s3://nuits/a//b",
            "s3://nuits/./a",
            "s3://nuits/a\nb",
        ] {
            assert!(
                matches!(
                    DestinationS3::analyser(t, None, false),
                    Err(ErreurDestination::Prefixe(_))
                ),
                "{t}"
            );
        }
        let d = DestinationS3::analyser("s3://nuits/p", None, false).unwrap();
        for c in ["../x.wav", "/etc/passwd", "a/../../b", "a\u{7}.wav", ""] {
            assert!(d.cle(c).is_err(), "{c:?}");
        }
    }

    #[test]
    fn http_hors_boucle_locale() {
        assert!(matches!(
            DestinationS3::analyser("s3://nuits", Some("http://s3.exemple.fr"), false),
            Err(ErreurDestination::HttpNonLocal(_))
        ));
        assert!(DestinationS3::analyser("s3://nuits", Some("http://s3.exemple.fr"), true).is_ok());
        for local in [
            "http://localhost:9000",
            "http://127.0.0.1:1",
            "http://[::1]:80",
        ] {
            assert!(
                DestinationS3::analyser("s3://nuits", Some(local), false).is_ok(),
                "{local}"
            );
        }
        assert!(DestinationS3::analyser("s3://nuits", Some("ftp://x"), false).is_err());
    }
}
