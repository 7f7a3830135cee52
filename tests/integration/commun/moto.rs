//! Le second avis : moto, un serveur S3 indépendant du projet, et devant lui un mandataire qui
//! applique les pannes du bac à sable.
//!
//! moto (≥ 5.2.5, extra `s3crc32c` : sans lui, moto calcule un CRC32 là où on lui demande un
//! CRC32C) est installé par `.ci/run` s'il manque. Un seul serveur sert tout un binaire de test
//! (un compartiment par essai). `VIGIE_SANS_MOTO=1` saute ces essais, en le disant, sur une
//! machine sans Python.
//!
//! Ce que moto fait autrement que S3 est contourné ici, jamais dans `vigie` :
//! - moto 5.2.x nomme la racine de la réponse à `ListParts` `<ListPartsResponse>` au lieu de
//!   `<ListPartsResult>` ; le SDK Rust la refuse (réponse illisible). Le mandataire la renomme.

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use vigie_bac_a_sable::{Panne, Pannes, RetryAfter, operation_de_requete};

use super::mandataire::{CorpsPlein, lire_tout, transmettre};

/// La version de moto exigée (la 5.2.1 casse le multipart du SDK Rust).
const VERSION_MIN: (u32, u32, u32) = (5, 2, 5);

/// Le serveur moto du binaire de test (démarré une fois, arrêté à la sortie du processus).
pub struct Moto {
    pub adresse: SocketAddr,
    _processus: Mutex<Child>,
}

/// Le serveur moto partagé, ou `None` si `VIGIE_SANS_MOTO` est défini (l'essai le dit et ne
/// vérifie rien). Sans moto installé, l'essai échoue en disant comment l'installer.
pub fn moto() -> Option<&'static Moto> {
    static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
    MOTO.get_or_init(|| {
        if std::env::var_os("VIGIE_SANS_MOTO").is_some_and(|v| !v.is_empty()) {
            eprintln!("VIGIE_SANS_MOTO : les essais contre moto sont sautés");
            return None;
        }
        Some(demarrer())
    })
    .as_ref()
}

fn demarrer() -> Moto {
    let version = Command::new("python3")
        .args([
            "-c",
            "import moto, crc32c, sys; sys.stdout.write(moto.__version__)",
        ])
        .output();
    let version = match version {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => panic!(
            "moto introuvable : pip install 'moto[server,s3crc32c]>=5.2.5' (ce que fait .ci/run), \
             ou VIGIE_SANS_MOTO=1 pour sauter ces essais"
        ),
    };
    let n: Vec<u32> = version
        .split('.')
        .map(|p| {
            p.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let v = (
        n.first().copied().unwrap_or(0),
        n.get(1).copied().unwrap_or(0),
        n.get(2).copied().unwrap_or(0),
    );
    assert!(
        v >= VERSION_MIN,
        "moto {version} trop ancien : pip install 'moto[server,s3crc32c]>=5.2.5'"
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // moto s'arrête quand son entrée standard se ferme, c'est-à-dire quand le binaire de test
    // se termine, de quelque façon que ce soit : aucun serveur ne survit aux essais.
    let processus = Command::new("sh")
        .args([
            "-c",
            &format!(
                "python3 -m moto.server -H 127.0.0.1 -p {port} >/dev/null 2>&1 & m=$!; \
                 read _; kill $m"
            ),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("démarrage de moto");
    let adresse: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let debut = Instant::now();
    while std::net::TcpStream::connect(adresse).is_err() {
        assert!(
            debut.elapsed() < Duration::from_secs(30),
            "moto ne répond pas"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Moto {
        adresse,
        _processus: Mutex::new(processus),
    }
}

impl Moto {
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.adresse)
    }

    /// Un client aws-sdk-s3 vers moto (style chemin, identifiants de test).
    pub fn client(&self) -> aws_sdk_s3::Client {
        use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
        let conf = aws_sdk_s3::config::Builder::new()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("essai", "essai", None, None, "moto"))
            .endpoint_url(self.endpoint())
            .force_path_style(true)
            .build();
        aws_sdk_s3::Client::from_conf(conf)
    }
}

/// Ce que le test lit de moto : les objets d'un compartiment (toutes les pages), triés.
pub async fn objets(client: &aws_sdk_s3::Client, compartiment: &str) -> Vec<(String, Vec<u8>)> {
    let mut cles = Vec::new();
    let mut suite: Option<String> = None;
    loop {
        let page = client
            .list_objects_v2()
            .bucket(compartiment)
            .set_continuation_token(suite.take())
            .send()
            .await
            .unwrap();
        cles.extend(
            page.contents()
                .iter()
                .filter_map(|o| o.key().map(str::to_owned)),
        );
        match page.next_continuation_token() {
            Some(t) if page.is_truncated() == Some(true) => suite = Some(t.to_owned()),
            _ => break,
        }
    }
    let mut objets = Vec::new();
    for cle in cles {
        let corps = client
            .get_object()
            .bucket(compartiment)
            .key(&cle)
            .send()
            .await
            .unwrap()
            .body
            .collect()
            .await
            .unwrap()
            .into_bytes()
            .to_vec();
        objets.push((cle, corps));
    }
    objets.sort();
    objets
}

/// Les envois multipart encore ouverts du compartiment : (clé, nombre de parties).
pub async fn envois_ouverts(
    client: &aws_sdk_s3::Client,
    compartiment: &str,
) -> Vec<(String, usize)> {
    let liste = client
        .list_multipart_uploads()
        .bucket(compartiment)
        .send()
        .await
        .unwrap();
    let mut envois = Vec::new();
    for u in liste.uploads() {
        let cle = u.key().unwrap_or_default().to_owned();
        let parties = client
            .list_parts()
            .bucket(compartiment)
            .key(&cle)
            .upload_id(u.upload_id().unwrap_or_default())
            .send()
            .await
            .map(|p| p.parts().len())
            .unwrap_or(0);
        envois.push((cle, parties));
    }
    envois
}

/// Un mandataire entre `vigie` et moto : il applique les règles de [`Pannes`] (comme la couche
/// de pannes du bac à sable), compte les pannes injectées, et corrige la racine de `ListParts`.
pub struct MandatairePannes {
    adresse: SocketAddr,
    pub pannes: Arc<Pannes>,
    injectees: Arc<AtomicU64>,
    requetes: Arc<AtomicU64>,
}

impl MandatairePannes {
    pub fn demarrer(rt: &tokio::runtime::Runtime, cible: SocketAddr) -> MandatairePannes {
        let ecoute = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let adresse = ecoute.local_addr().unwrap();
        let pannes = Arc::new(Pannes::new());
        let injectees = Arc::new(AtomicU64::new(0));
        let requetes = Arc::new(AtomicU64::new(0));
        let client: Client<HttpConnector, CorpsPlein> =
            Client::builder(TokioExecutor::new()).build_http();
        let etat = Arc::new(Etat {
            cible,
            pannes: Arc::clone(&pannes),
            injectees: Arc::clone(&injectees),
            requetes: Arc::clone(&requetes),
            client,
        });
        rt.spawn(async move {
            loop {
                let Ok((flux, _)) = ecoute.accept().await else {
                    continue;
                };
                let etat = Arc::clone(&etat);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let etat = Arc::clone(&etat);
                        async move { etat.relayer(req).await }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(flux), service)
                        .await;
                });
            }
        });
        MandatairePannes {
            adresse,
            pannes,
            injectees,
            requetes,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.adresse)
    }

    pub fn pannes_injectees(&self) -> u64 {
        self.injectees.load(Ordering::Relaxed)
    }

    pub fn requetes(&self) -> u64 {
        self.requetes.load(Ordering::Relaxed)
    }
}

struct Etat {
    cible: SocketAddr,
    pannes: Arc<Pannes>,
    injectees: Arc<AtomicU64>,
    requetes: Arc<AtomicU64>,
    client: Client<HttpConnector, CorpsPlein>,
}

fn coupure(quoi: &str) -> std::io::Error {
    std::io::Error::other(format!("panne injectée par le mandataire : {quoi}"))
}

/// Une erreur S3 en XML, comme la rendrait le service.
fn erreur_s3(
    statut: u16,
    code: &str,
    retry_after: Option<&RetryAfter>,
) -> hyper::Response<CorpsPlein> {
    let mut r = hyper::Response::builder()
        .status(statut)
        .header("content-type", "application/xml");
    if let Some(ra) = retry_after {
        let (nom, valeur) = ra.entete(std::time::SystemTime::now());
        r = r.header(nom, valeur);
    }
    r.body(CorpsPlein::new(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code>\
         <Message>panne injectée par le mandataire</Message></Error>"
    )))
    .unwrap()
}

impl Etat {
    async fn relayer(
        &self,
        req: hyper::Request<hyper::body::Incoming>,
    ) -> Result<hyper::Response<CorpsPlein>, std::io::Error> {
        self.requetes.fetch_add(1, Ordering::Relaxed);
        let (parties, corps) = req.into_parts();
        let (op, cle) = operation_de_requete(&parties.method, &parties.uri, &parties.headers);
        let panne = self.pannes.decider(op, cle.as_deref());
        if panne.is_some() {
            self.injectees.fetch_add(1, Ordering::Relaxed);
        }
        match &panne {
            Some(Panne::Coupure) => return Err(coupure("coupure")),
            Some(Panne::Bloquer(d)) => {
                tokio::time::sleep(*d).await;
                return Err(coupure("blocage"));
            }
            Some(Panne::Lenteur(d)) => tokio::time::sleep(*d).await,
            Some(Panne::CouperCorpsApres(n)) => {
                // Laisse passer au plus n octets, puis coupe : rien n'est transmis à moto.
                let mut corps = std::pin::pin!(corps);
                let mut lu = 0u64;
                while lu < *n {
                    match std::future::poll_fn(|cx| http_body::Body::poll_frame(corps.as_mut(), cx))
                        .await
                    {
                        Some(Ok(t)) => {
                            lu += t.data_ref().map_or(0, |d| d.len() as u64);
                        }
                        _ => break,
                    }
                }
                return Err(coupure("coupure en plein corps"));
            }
            Some(Panne::Statut { code, retry_after }) => {
                let _ = lire_tout(corps).await;
                let code_s3 = match code {
                    503 => "SlowDown",
                    429 => "TooManyRequests",
                    403 => "AccessDenied",
                    _ => "InternalError",
                };
                return Ok(erreur_s3(*code, code_s3, retry_after.as_ref()));
            }
            Some(Panne::CorpsTropLent) => {
                let _ = lire_tout(corps).await;
                return Ok(erreur_s3(400, "RequestTimeout", None));
            }
            _ => {}
        }
        let corps = lire_tout(corps).await.map_err(std::io::Error::other)?;
        let chemin = parties
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_else(|| "/".into());
        // Transmise au bout chez moto même si vigie disparaît.
        let (rp, mut rcorps) =
            transmettre(&self.client, self.cible, &parties, &chemin, corps).await?;
        if panne == Some(Panne::PerdreReponse) {
            return Err(coupure("réponse perdue après traitement"));
        }
        // moto 5.2.x : <ListPartsResponse> au lieu de <ListPartsResult> (voir l'en-tête).
        if parties.method == hyper::Method::GET && chemin.contains("uploadId=") {
            let texte =
                String::from_utf8_lossy(&rcorps).replace("ListPartsResponse", "ListPartsResult");
            rcorps = texte.into_bytes();
        }
        let tete = parties.method == hyper::Method::HEAD;
        let mut rep = hyper::Response::builder().status(rp.status);
        for (n, v) in &rp.headers {
            let n = n.as_str();
            if (tete || !n.eq_ignore_ascii_case("content-length"))
                && !n.eq_ignore_ascii_case("transfer-encoding")
                && !n.eq_ignore_ascii_case("connection")
            {
                rep = rep.header(n, v);
            }
        }
        Ok(rep
            .body(CorpsPlein::new(if tete { Vec::new() } else { rcorps }))
            .unwrap())
    }
}
