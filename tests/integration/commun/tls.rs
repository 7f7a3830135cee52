//! Un serveur HTTPS devant le bac à sable, au certificat choisi : celui d'une autorité que
//! `vigie` ne connaît pas (un portail captif, un proxy qui intercepte HTTPS), ou un certificat
//! périmé depuis 2001 (l'horloge du portable fausse de plusieurs années). Avec
//! `SSL_CERT_FILE` désignant l'autorité des essais ([`AUTORITE`]), le même serveur est accepté
//! et relaie vers le bac à sable : c'est bien le certificat, et lui seul, qui fait la
//! différence.
//!
//! Les certificats (`commun/tls/`) ont été fabriqués une fois par openssl : une autorité
//! (dont la clé n'a pas été gardée), et pour `127.0.0.1` un certificat valable jusqu'en 2126
//! et un autre périmé depuis 2001, de la même clé (`cle.pem`, une clé d'essai, pas un secret).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Le chemin de l'autorité des essais (pour `SSL_CERT_FILE`).
pub const AUTORITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/integration/commun/tls/ac.pem"
);

/// Le certificat que présente le serveur.
#[derive(Debug, Clone, Copy)]
pub enum Certificat {
    /// Valable jusqu'en 2126, signé par l'autorité des essais.
    Valable,
    /// Périmé depuis le 1er janvier 2001.
    Perime,
}

/// Un serveur HTTPS qui relaie vers `cible`.
pub struct FrontTls {
    adresse: SocketAddr,
    poignees: Arc<AtomicU64>,
    reussies: Arc<AtomicU64>,
}

impl FrontTls {
    pub fn demarrer(rt: &tokio::runtime::Runtime, cible: SocketAddr, c: Certificat) -> FrontTls {
        let pem: &[u8] = match c {
            Certificat::Valable => include_bytes!("tls/serveur.pem"),
            Certificat::Perime => include_bytes!("tls/perime.pem"),
        };
        let chaine: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<_, _>>()
            .expect("certificat des essais");
        let cle =
            PrivateKeyDer::from_pem_slice(include_bytes!("tls/cle.pem")).expect("clé des essais");
        let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
            tokio_rustls::rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions de TLS")
        .with_no_client_auth()
        .with_single_cert(chaine, cle)
        .expect("configuration TLS");
        let accepteur = TlsAcceptor::from(Arc::new(config));
        let ecoute = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let adresse = ecoute.local_addr().unwrap();
        let poignees = Arc::new(AtomicU64::new(0));
        let reussies = Arc::new(AtomicU64::new(0));
        let (p, r) = (Arc::clone(&poignees), Arc::clone(&reussies));
        rt.spawn(async move {
            loop {
                let Ok((flux, _)) = ecoute.accept().await else {
                    continue;
                };
                p.fetch_add(1, Ordering::SeqCst);
                let (accepteur, r) = (accepteur.clone(), Arc::clone(&r));
                tokio::spawn(async move {
                    let Ok(mut chiffre) = accepteur.accept(flux).await else {
                        return;
                    };
                    r.fetch_add(1, Ordering::SeqCst);
                    if let Ok(mut amont) = tokio::net::TcpStream::connect(cible).await {
                        let _ = tokio::io::copy_bidirectional(&mut chiffre, &mut amont).await;
                    }
                });
            }
        });
        FrontTls {
            adresse,
            poignees,
            reussies,
        }
    }

    /// `https://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("https://{}", self.adresse)
    }

    /// Les connexions reçues (une poignée de main commencée chacune).
    pub fn connexions(&self) -> u64 {
        self.poignees.load(Ordering::SeqCst)
    }

    /// Les poignées de main réussies (le client a accepté le certificat).
    pub fn acceptees(&self) -> u64 {
        self.reussies.load(Ordering::SeqCst)
    }
}
