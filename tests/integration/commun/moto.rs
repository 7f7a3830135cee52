//! Le second avis : moto, un serveur S3 indépendant du projet, et devant lui un mandataire qui
//! applique les pannes du bac à sable.
//!
//! moto tourne dans un environnement Python **propre au projet**, sous `target/` : la commande
//! de test de CONTRIBUTING.md (`cargo test --locked --workspace`) suffit, sur une machine neuve comme sur
//! une machine dont le Python a déjà un moto plus ancien (la 5.2.1 casse le multipart du SDK
//! Rust). Le premier essai qui en a besoin le crée (`python3 -m venv`) et y installe la version
//! voulue ([`EXIGENCE`], avec l'extra `s3crc32c` : sans lui, moto calcule un CRC32 là où on lui
//! demande un CRC32C) ; les suivants le reprennent tel quel. Un verrou de fichier le réserve
//! pendant sa préparation : deux binaires de test lancés ensemble (deux `cargo test`) ne le
//! remplissent pas à la fois, et aucun n'en lit un à moitié fait (il n'est tenu pour prêt
//! qu'une fois sa marque écrite, en dernier). Un seul serveur sert tout un binaire de test (un
//! compartiment par essai).
//!
//! Sans Python (`python3` absent du `PATH`), sans le module `venv`, ou sans accès aux paquets
//! Python, ces essais sont sautés en le disant, jamais en échec : personne n'a demandé cette
//! installation. `VIGIE_SANS_MOTO=1` les saute d'emblée ; `VIGIE_MOTO_EXIGE=1` (ce que fait
//! `.ci/run`) fait au contraire d'un saut un échec, pour que l'intégration continue ne perde
//! pas son second avis en silence.
//!
//! Ce que moto fait autrement que S3 est contourné ici, jamais dans `vigie` :
//! - moto 5.2.x nomme la racine de la réponse à `ListParts` `<ListPartsResponse>` au lieu de
//!   `<ListPartsResult>` ; le SDK Rust la refuse (réponse illisible). Le mandataire la renomme.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use vigie_bac_a_sable::{
    CompteGouttes, CorpsSansFin, FluxCoupable, Operation, Panne, Pannes, RetryAfter,
    operation_de_requete,
};

use super::mandataire::{CorpsPlein, lire_tout, transmettre};

/// La version de moto installée dans l'environnement du projet (la 5.2.1 casse le multipart du
/// SDK Rust ; la 5.2.5 est celle que décrivent les bancs).
const VERSION: &str = "5.2.5";
/// Ce que `pip` installe dans l'environnement du projet.
const EXIGENCE: &str = "moto[server,s3crc32c]==5.2.5";

/// Le serveur moto du binaire de test (démarré une fois, arrêté à la sortie du processus).
pub struct Moto {
    pub adresse: SocketAddr,
    _processus: Mutex<(Child, std::io::BufReader<std::process::ChildStdout>)>,
}

/// Le serveur moto partagé, ou `None` si ces essais sont sautés (l'essai le dit et ne vérifie
/// rien) : `VIGIE_SANS_MOTO`, ou un environnement Python impossible à préparer.
pub fn moto() -> Option<&'static Moto> {
    static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
    MOTO.get_or_init(|| {
        let raison = if std::env::var_os("VIGIE_SANS_MOTO").is_some_and(|v| !v.is_empty()) {
            "VIGIE_SANS_MOTO est défini".to_owned()
        } else {
            match preparer(&dossier_du_second_avis(), std::env::var_os("PATH")) {
                Ok(python) => return Some(demarrer(&python, "")),
                Err(raison) => raison,
            }
        };
        assert!(
            std::env::var_os("VIGIE_MOTO_EXIGE").is_none_or(|v| v.is_empty()),
            "VIGIE_MOTO_EXIGE : le second avis (moto) est exigé, mais {raison}"
        );
        // Écrit sur la vraie sortie d'erreur (pas par `eprintln!`, que l'outil de test
        // retient) : le saut se voit dans la sortie de `cargo test`.
        let _ = writeln!(
            std::io::stderr(),
            "second avis S3 : essais contre moto sautés ({raison})"
        );
        None
    })
    .as_ref()
}

/// Le dossier de l'environnement du projet : sous `target/` (celui du binaire `vigie` que
/// lancent les essais), effacé par `cargo clean` comme le reste de ce qui se fabrique.
pub fn dossier_du_second_avis() -> PathBuf {
    let binaire = Path::new(env!("CARGO_BIN_EXE_vigie"));
    // target/<profil>/vigie : le dossier `target` (ou celui d'une cible) est deux crans plus haut.
    let cible = binaire
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| Path::new("target"));
    cible.join("second-avis-moto")
}

/// L'interpréteur Python d'un environnement virtuel.
fn python_de(env: &Path) -> PathBuf {
    if cfg!(windows) {
        env.join("Scripts").join("python.exe")
    } else {
        env.join("bin").join("python")
    }
}

/// Lance `commande` ; sa sortie d'erreur, en cas d'échec, dit pourquoi.
fn lancer(commande: &mut Command, path: &Option<OsString>) -> Result<String, String> {
    if let Some(p) = path {
        commande.env("PATH", p);
    }
    let out = commande
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{:?} ne se lance pas : {e}", commande.get_program()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        let erreur = String::from_utf8_lossy(&out.stderr);
        let fin: Vec<&str> = erreur.lines().rev().take(3).collect();
        Err(fin.into_iter().rev().collect::<Vec<_>>().join(" / "))
    }
}

/// Prépare (une fois) l'environnement Python du projet dans `dossier` et rend son interpréteur,
/// ou la raison de sauter les essais. Python est cherché dans `path` (le `PATH` du processus,
/// d'ordinaire). Tenu sous un verrou de fichier d'un bout à l'autre.
pub fn preparer(dossier: &Path, path: Option<OsString>) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dossier)
        .map_err(|e| format!("{} ne peut être créé : {e}", dossier.display()))?;
    let verrou = std::fs::File::create(dossier.join("verrou"))
        .map_err(|e| format!("verrou de {} : {e}", dossier.display()))?;
    verrou
        .lock()
        .map_err(|e| format!("verrou de {} : {e}", dossier.display()))?;
    let env = dossier.join(format!("moto-{VERSION}"));
    let marque = env.join("vigie-pret");
    let python = python_de(&env);
    if std::fs::read_to_string(&marque).is_ok_and(|m| m.trim() == EXIGENCE) {
        return Ok(python);
    }
    // Un environnement commencé et pas fini (essai tué, réseau coupé) : on le refait.
    if env.exists() {
        std::fs::remove_dir_all(&env)
            .map_err(|e| format!("{} ne peut être refait : {e}", env.display()))?;
    }
    let systeme = ["python3", "python"]
        .into_iter()
        .find(|p| lancer(Command::new(p).arg("--version"), &path).is_ok())
        .ok_or("python3 est introuvable dans le PATH")?;
    let _ = writeln!(
        std::io::stderr(),
        "second avis S3 : préparation de {EXIGENCE} dans {} (une fois)",
        env.display()
    );
    lancer(Command::new(systeme).arg("-m").arg("venv").arg(&env), &path).map_err(|e| {
        format!(
            "l'environnement Python n'a pas pu être créé ({systeme} -m venv : {e} ; sous \
             Debian, le paquet python3-venv)"
        )
    })?;
    lancer(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(EXIGENCE),
        &path,
    )
    .map_err(|e| format!("pip n'a pas pu installer {EXIGENCE} : {e}"))?;
    let version = version_de_moto(&python, &path)?;
    if version != VERSION {
        return Err(format!(
            "pip a installé moto {version} au lieu de {VERSION}"
        ));
    }
    // La marque en dernier : un environnement sans elle n'est jamais pris pour prêt.
    std::fs::write(&marque, EXIGENCE)
        .map_err(|e| format!("{} ne peut être écrit : {e}", marque.display()))?;
    Ok(python)
}

/// La version de moto que voit `python` (avec `crc32c`, sans quoi elle ne sert pas).
pub fn version_de_moto(python: &Path, path: &Option<OsString>) -> Result<String, String> {
    lancer(
        Command::new(python).args([
            "-c",
            "import moto, crc32c, sys; sys.stdout.write(moto.__version__)",
        ]),
        path,
    )
    .map_err(|e| format!("moto illisible : {e}"))
}

/// Un second serveur moto, en HTTPS avec le certificat qu'il fabrique lui-même (auto-signé :
/// `moto.server --ssl`), ou `None` si les essais contre moto sont sautés.
pub fn moto_https() -> Option<&'static Moto> {
    static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
    MOTO.get_or_init(|| {
        moto()?;
        let python = preparer(&dossier_du_second_avis(), std::env::var_os("PATH")).ok()?;
        Some(demarrer(&python, "--ssl"))
    })
    .as_ref()
}

/// Le lanceur de moto : celui de `moto.server` (`main`), à ceci près que le port est choisi
/// par le système **au moment où moto se lie** (port 0) puis écrit sur la sortie standard.
/// Choisir un port libre dans l'essai, le relâcher, puis le donner à moto laisse un autre
/// essai, en parallèle, le prendre entre-temps : l'essai parlerait alors à ce voisin.
const LANCEUR: &str = r#"
import os, sys
from werkzeug.serving import make_server
from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
application = DomainDispatcherApplication(create_backend_app)
application.debug = True
serveur = make_server("127.0.0.1", 0, application, threaded=True,
                      request_handler=MotoRequestHandler,
                      ssl_context="adhoc" if "--ssl" in sys.argv[1:] else None)
os.environ["MOTO_PORT"] = str(serveur.server_port)
sys.stdout.write(f"{serveur.server_port}\n")
sys.stdout.flush()
serveur.serve_forever()
"#;

/// Démarre moto, avec `options` en plus (`--ssl`).
fn demarrer(python: &Path, options: &str) -> Moto {
    use std::io::BufRead;
    // moto s'arrête quand son entrée standard se ferme, c'est-à-dire quand le binaire de test
    // se termine, de quelque façon que ce soit : aucun serveur ne survit aux essais.
    let mut processus = Command::new("sh")
        .args([
            "-c",
            "\"$0\" -c \"$1\" $2 2>/dev/null & m=$!; read _; kill $m",
        ])
        .arg(python)
        .arg(LANCEUR)
        .arg(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("démarrage de moto");
    // Le port que moto a reçu du système, sur sa première ligne (la sortie reste ouverte, et
    // gardée, tant que moto vit).
    let mut sortie = std::io::BufReader::new(processus.stdout.take().expect("sortie de moto"));
    let mut ligne = String::new();
    sortie.read_line(&mut ligne).expect("sortie de moto");
    let port: u16 = ligne
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("moto n'a pas dit son port (« {} »)", ligne.trim()));
    let adresse: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    Moto {
        adresse,
        _processus: Mutex::new((processus, sortie)),
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

/// Un serveur moto qui vérifie la signature des requêtes (moto ne le fait pas d'ordinaire) :
/// un utilisateur IAM, sa clé et le droit de tout faire, puis l'authentification activée
/// (`/moto-api/reset-auth`). Le sien, à part du serveur partagé, que les autres essais
/// interrogent sans signature valable. moto ne vérifie pas l'heure des requêtes
/// (`RequestTimeTooSkewed`) : le mandataire de pannes le fait pour lui.
pub struct MotoAuthentifie {
    pub moto: Moto,
    pub cle: String,
    pub secret: String,
}

/// Le serveur moto authentifié du binaire de test, ou `None` sous `VIGIE_SANS_MOTO`.
pub fn moto_authentifie() -> Option<&'static MotoAuthentifie> {
    static MOTO: OnceLock<Option<MotoAuthentifie>> = OnceLock::new();
    MOTO.get_or_init(|| {
        // Prépare l'environnement du projet (ou dit pourquoi ces essais sont sautés), puis
        // reprend son interpréteur, prêt : boto3 y vient avec moto.
        moto()?;
        let python = preparer(&dossier_du_second_avis(), std::env::var_os("PATH")).ok()?;
        let serveur = demarrer(&python, "");
        // boto3 vient avec moto : il prépare l'utilisateur, sa clé et ses droits.
        let preparation = format!(
            r#"
import boto3, json, sys, urllib.request
e = "{}"
iam = boto3.client("iam", endpoint_url=e, region_name="us-east-1",
                   aws_access_key_id="essai", aws_secret_access_key="essai")
iam.create_user(UserName="vigie")
k = iam.create_access_key(UserName="vigie")["AccessKey"]
iam.put_user_policy(UserName="vigie", PolicyName="tout", PolicyDocument=json.dumps(
    {{"Version": "2012-10-17",
     "Statement": [{{"Effect": "Allow", "Action": "*", "Resource": "*"}}]}}))
urllib.request.urlopen(urllib.request.Request(e + "/moto-api/reset-auth", data=b"0",
                       headers={{"Content-Type": "text/plain"}}, method="POST")).read()
sys.stdout.write(k["AccessKeyId"] + " " + k["SecretAccessKey"])
"#,
            serveur.endpoint()
        );
        let out = Command::new(&python)
            .args(["-c", &preparation])
            .output()
            .expect("préparation de moto");
        assert!(
            out.status.success(),
            "préparation de moto authentifié : {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let sortie = String::from_utf8_lossy(&out.stdout).into_owned();
        let (cle, secret) = sortie.split_once(' ').expect("clé et secret");
        Some(MotoAuthentifie {
            moto: serveur,
            cle: cle.to_owned(),
            secret: secret.to_owned(),
        })
    })
    .as_ref()
}

impl MotoAuthentifie {
    /// Un client aws-sdk-s3 signé par la clé de l'utilisateur.
    pub fn client(&self) -> aws_sdk_s3::Client {
        use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
        let conf = aws_sdk_s3::config::Builder::new()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                &self.cle,
                &self.secret,
                None,
                None,
                "moto",
            ))
            .endpoint_url(self.moto.endpoint())
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
    donnees: Arc<AtomicU64>,
    par_operation: Arc<Mutex<HashMap<Operation, u64>>>,
}

impl MandatairePannes {
    pub fn demarrer(rt: &tokio::runtime::Runtime, cible: SocketAddr) -> MandatairePannes {
        let ecoute = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let adresse = ecoute.local_addr().unwrap();
        let pannes = Arc::new(Pannes::nouveau());
        let injectees = Arc::new(AtomicU64::new(0));
        let requetes = Arc::new(AtomicU64::new(0));
        let donnees = Arc::new(AtomicU64::new(0));
        let par_operation = Arc::new(Mutex::new(HashMap::new()));
        let client: Client<HttpConnector, CorpsPlein> =
            Client::builder(TokioExecutor::new()).build_http();
        let etat = Arc::new(Etat {
            cible,
            pannes: Arc::clone(&pannes),
            injectees: Arc::clone(&injectees),
            requetes: Arc::clone(&requetes),
            donnees: Arc::clone(&donnees),
            par_operation: Arc::clone(&par_operation),
            client,
        });
        rt.spawn(async move {
            loop {
                let Ok((flux, _)) = ecoute.accept().await else {
                    continue;
                };
                // Sous les trous noirs des pannes, comme les connexions du bac à sable.
                let flux = FluxCoupable::nouveau(flux, Arc::clone(&etat.pannes));
                let gouttes = flux.compte_gouttes();
                let etat = Arc::clone(&etat);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let (etat, gouttes) = (Arc::clone(&etat), gouttes.clone());
                        async move { etat.relayer(req, gouttes).await }
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
            donnees,
            par_operation,
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

    /// Les requêtes de données (`PutObject`, `UploadPart`) menées au bout chez moto.
    pub fn donnees_traitees(&self) -> u64 {
        self.donnees.load(Ordering::Relaxed)
    }

    /// Les requêtes reçues, par opération S3.
    pub fn requetes_par_operation(&self) -> HashMap<Operation, u64> {
        self.par_operation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

struct Etat {
    cible: SocketAddr,
    pannes: Arc<Pannes>,
    injectees: Arc<AtomicU64>,
    requetes: Arc<AtomicU64>,
    donnees: Arc<AtomicU64>,
    par_operation: Arc<Mutex<HashMap<Operation, u64>>>,
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
    r.body(CorpsPlein::nouveau(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code>\
         <Message>panne injectée par le mandataire</Message></Error>"
    )))
    .unwrap()
}

/// Le corps d'une réponse du mandataire : celle de moto, ou un corps sans fin.
enum CorpsRelaye {
    Plein(CorpsPlein),
    SansFin(CorpsSansFin),
}

impl http_body::Body for CorpsRelaye {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match self.get_mut() {
            CorpsRelaye::Plein(c) => std::pin::Pin::new(c).poll_frame(cx),
            CorpsRelaye::SansFin(c) => std::pin::Pin::new(c).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            CorpsRelaye::Plein(c) => c.is_end_stream(),
            CorpsRelaye::SansFin(c) => c.is_end_stream(),
        }
    }
}

impl Etat {
    /// Les pannes qui touchent la réponse elle-même (un corps sans fin, une réponse au
    /// compte-gouttes sur la connexion `gouttes`), puis le relais.
    async fn relayer(
        &self,
        req: hyper::Request<hyper::body::Incoming>,
        gouttes: CompteGouttes,
    ) -> Result<hyper::Response<CorpsRelaye>, std::io::Error> {
        self.requetes.fetch_add(1, Ordering::Relaxed);
        let (parties, corps) = req.into_parts();
        let (op, cle) = operation_de_requete(&parties.method, &parties.uri, &parties.headers);
        *self
            .par_operation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(op)
            .or_default() += 1;
        let panne = self.pannes.decider(op, cle.as_deref());
        if panne.is_some() {
            self.injectees.fetch_add(1, Ordering::Relaxed);
        }
        match panne {
            Some(Panne::CorpsSansFin) => {
                let _ = lire_tout(corps).await;
                Ok(hyper::Response::builder()
                    .status(200)
                    .header("content-type", "application/xml")
                    .body(CorpsRelaye::SansFin(CorpsSansFin::nouveau(None)))
                    .unwrap())
            }
            Some(lente @ (Panne::EntetesLents(_) | Panne::Debit(_))) => {
                gouttes.regler_selon(&lente);
                let r = self.relayer_apres(parties, corps, op, None).await?;
                Ok(r.map(CorpsRelaye::Plein))
            }
            panne => {
                let r = self.relayer_apres(parties, corps, op, panne).await?;
                Ok(r.map(CorpsRelaye::Plein))
            }
        }
    }

    /// Applique `panne` à la requête, ou la transmet à moto.
    async fn relayer_apres(
        &self,
        parties: hyper::http::request::Parts,
        corps: hyper::body::Incoming,
        op: Operation,
        panne: Option<Panne>,
    ) -> Result<hyper::Response<CorpsPlein>, std::io::Error> {
        match &panne {
            Some(Panne::Coupure) => return Err(coupure("coupure")),
            // Le trou noir commence avec cette requête, qui n'aura jamais de réponse : sa
            // connexion est engloutie.
            Some(Panne::TrouNoir(_)) => std::future::pending().await,
            Some(Panne::Bloquer(d)) => {
                tokio::time::sleep(*d).await;
                return Err(coupure("blocage"));
            }
            Some(Panne::Lenteur(d)) => tokio::time::sleep(*d).await,
            Some(Panne::Retenir(relache)) => relache.attendre().await,
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
            // moto ne vérifie pas l'heure des requêtes : le mandataire le fait pour lui, avec
            // le calcul du bac à sable (même forme de refus, `Date` du service décalé).
            Some(Panne::Horloge(decalage)) => {
                let refus = vigie_bac_a_sable::horloge::refus_horloge(
                    *decalage,
                    &parties.headers,
                    &parties.uri,
                    std::time::SystemTime::now(),
                );
                if let Some(refus) = refus {
                    let _ = lire_tout(corps).await;
                    return Ok(hyper::Response::builder()
                        .status(403)
                        .header("content-type", "application/xml")
                        .header("date", refus.date)
                        .body(CorpsPlein::nouveau(refus.corps))
                        .unwrap());
                }
            }
            // Rien n'est transmis à moto : « 200 » sans ETag, un corps d'erreur.
            Some(Panne::FauxSucces) => {
                let _ = lire_tout(corps).await;
                return Ok(hyper::Response::builder()
                    .status(200)
                    .header("content-type", "application/xml")
                    .body(CorpsPlein::nouveau(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError\
                         </Code><Message>panne injectée par le mandataire</Message></Error>",
                    ))
                    .unwrap());
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
        if matches!(op, Operation::PutObject | Operation::UploadPart) && rp.status.is_success() {
            self.donnees.fetch_add(1, Ordering::Relaxed);
        }
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
                // Un autre ETag de la même forme (panne `etag-altere`), l'objet écrit intact.
                if panne == Some(Panne::EtagAltere) && n.eq_ignore_ascii_case("etag") {
                    let nu = v.to_str().unwrap_or_default().trim_matches('"');
                    rep = rep.header(n, format!("\"{}\"", nu.chars().rev().collect::<String>()));
                    continue;
                }
                rep = rep.header(n, v);
            }
        }
        Ok(rep
            .body(CorpsPlein::nouveau(if tete { Vec::new() } else { rcorps }))
            .unwrap())
    }
}
