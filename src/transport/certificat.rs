//! Un certificat refusé n'est pas une coupure du réseau.
//!
//! Derrière un portail captif (le Wi-Fi d'un hôtel, d'une gare, d'un camping, qui attend qu'on
//! accepte ses conditions dans un navigateur), un proxy ou un antivirus qui intercepte les
//! connexions chiffrées, ou avec une horloge fausse de plusieurs années, la poignée de main TLS
//! échoue : le certificat présenté n'est pas celui du serveur, ou pas valable à la date de
//! l'ordinateur. `vigie` prenait cela pour une panne du réseau : pause, sondes, dix minutes
//! d'attente, « réessayez quand le réseau sera revenu », et vingt lignes anglaises
//! (« ERROR failed to verify TLS certificate: invalid peer certificate… »). Rien de cela ne
//! s'arrangera en attendant : c'est un geste humain. L'erreur est reconnue ici à son type
//! (`rustls::Error::InvalidCertificate`, dans la chaîne des causes de l'erreur du client HTTP),
//! dite en français avec le geste, et ni rejouée ni comptée comme une coupure
//! ([`ReponseApi::CertificatRefuse`](crate::reessai::ReponseApi)) : l'émetteur arrête tout,
//! code 2, avant qu'un octet ne parte.

use std::error::Error;

use rustls::CertificateError;

/// Ce qui est reproché au certificat présenté.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reproche {
    /// Pas encore, ou plus, valable à la date de cet ordinateur : l'horloge est peut-être
    /// fausse.
    Date,
    /// Pas celui du serveur (émetteur inconnu, autre nom, signature fausse…).
    PasLeServeur,
}

/// Le certificat présenté a-t-il été refusé, et pourquoi ? Cherché dans toute la chaîne des
/// causes de `e` (reqwest, hyper, SDK AWS : l'erreur de rustls est au fond d'une erreur d'E/S).
pub(crate) fn reproche(e: &(dyn Error + 'static)) -> Option<Reproche> {
    let mut source: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(rustls::Error::InvalidCertificate(c)) = s.downcast_ref::<rustls::Error>() {
            return Some(match c {
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. } => Reproche::Date,
                _ => Reproche::PasLeServeur,
            });
        }
        // Une erreur d'E/S qui en porte une autre (hyper-rustls : une erreur d'E/S dans une
        // erreur d'E/S, rustls au fond) : sa `source()` saute l'erreur portée, on y descend.
        source = match s
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(portee) => Some(portee as &(dyn Error + 'static)),
            None => s.source(),
        };
    }
    None
}

/// Le message d'un certificat refusé, présenté par `hote` : ce qui se passe, et le geste.
pub(crate) fn message(hote: &str, reproche: Reproche) -> String {
    match reproche {
        Reproche::Date => format!(
            "le certificat présenté par {hote} n'est pas valable à la date de cet ordinateur : \
             vérifiez la date et l'heure du portable (elles sont peut-être fausses de plusieurs \
             années), puis relancez ; rien n'a été envoyé"
        ),
        Reproche::PasLeServeur => format!(
            "le certificat présenté par {hote} n'est pas celui du serveur : la connexion passe \
             sans doute par un portail captif (Wi-Fi d'hôtel, de gare, de camping : ouvrez une \
             page web dans le navigateur et acceptez ses conditions), ou par un proxy ou un \
             antivirus qui intercepte les connexions chiffrées ; vérifiez aussi la date et \
             l'heure du portable, puis relancez ; rien n'a été envoyé"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Comme reqwest et hyper l'enveloppent : une erreur d'E/S qui porte celle de rustls.
    #[derive(Debug)]
    struct Enveloppe(Box<dyn Error + Send + Sync + 'static>);

    impl std::fmt::Display for Enveloppe {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("client error (Connect)")
        }
    }

    impl Error for Enveloppe {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&*self.0)
        }
    }

    /// Comme hyper-rustls et reqwest l'enveloppent : une erreur d'E/S dans une erreur d'E/S,
    /// celle de rustls au fond.
    fn refus(c: CertificateError) -> Enveloppe {
        Enveloppe(Box::new(std::io::Error::other(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(c),
        ))))
    }

    #[test]
    fn chaque_refus_a_son_geste() {
        assert_eq!(
            reproche(&refus(CertificateError::UnknownIssuer)),
            Some(Reproche::PasLeServeur)
        );
        assert_eq!(
            reproche(&refus(CertificateError::NotValidForName)),
            Some(Reproche::PasLeServeur)
        );
        assert_eq!(
            reproche(&refus(CertificateError::Expired)),
            Some(Reproche::Date)
        );
        assert_eq!(
            reproche(&refus(CertificateError::NotValidYet)),
            Some(Reproche::Date)
        );
        // Une autre erreur de TLS, ou d'E/S : pas un certificat refusé.
        let autre = Enveloppe(Box::new(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::DecryptError,
        )));
        assert_eq!(reproche(&autre), None);
        assert_eq!(
            reproche(&std::io::Error::from(std::io::ErrorKind::ConnectionReset)),
            None
        );
        let m = message("127.0.0.1", Reproche::PasLeServeur);
        assert!(m.contains("portail captif") && m.contains("proxy"), "{m}");
        assert!(message("h", Reproche::Date).contains("date et l'heure"));
    }
}
