//! Bac à sable : un vrai serveur S3 en processus, la plateforme Vigie-Chiro locale adossée à
//! lui, et des pannes programmables devant les deux.
//!
//! Pourquoi : la promesse de `vigie` (« aucun geste humain pour un accroc réseau ») ne se
//! vérifie pas contre un simulacre. Le bac à sable parle le vrai protocole S3 sur HTTP
//! (s3s + s3s-fs : signature SigV4 vérifiée, multipart, sommes de contrôle), sur `127.0.0.1`,
//! avec des données sur disque que le test peut relire. Devant lui, une couche de pannes
//! ([`Pannes`]) coupe, ralentit, refuse ou perd des réponses sur commande, et des compteurs
//! ([`Compteurs`]) disent ce que le serveur a **réellement reçu**. Il sert les tests
//! d'intégration (le test démarre le bac à sable dans son processus puis lance le binaire
//! `vigie` contre lui), `vigie demo` et `vigie bac-a-sable`.
//!
//! C'est un crate à part de l'espace de travail, dont `vigie` dépend (fonctionnalité
//! `bac-a-sable`, et toujours pour ses tests) et qui ne dépend pas de `vigie` : il se construit
//! et se teste seul (`cargo test -p vigie-bac-a-sable`), et ce qu'il sait du serveur (noms
//! admis, sommes, codes d'erreur), il le tient du code du serveur, pas du client qu'il met à
//! l'épreuve. Le seul bout recopié de l'outil est la lecture des durées (`duree.rs`), que
//! l'utilisateur écrit de la même façon dans les deux.
//!
//! ```no_run
//! # async fn exemple() -> anyhow::Result<()> {
//! use vigie_bac_a_sable::{BacASable, Operation, Panne, Regle};
//! let bac = BacASable::demarrer(std::path::Path::new("/tmp/bac"), 0).await?;
//! bac.creer_compartiment("nuits")?;
//! bac.pannes().programmer(Regle::nieme(Operation::PutObject, "nuit/a.wav", 2, Panne::CouperCorpsApres(1 << 20)));
//! // … lancer `vigie depot … --vers s3://nuits/ --endpoint-url {bac.endpoint()}` avec
//! // `bac.variables_env()` …
//! assert_eq!(bac.compteurs().pannes_injectees(), 1);
//! bac.arreter().await;
//! # Ok(()) }
//! ```
//!
//! Sur le même port, sous `/api/v1` ([`BacASable::api`]), la **plateforme Vigie-Chiro
//! locale** (voir `vigiechiro.rs` pour le comportement route par route) : jeton [`JETON`],
//! site verrouillé [`SITE`], participation d'essai [`PARTICIPATION`], données dans le
//! compartiment [`COMPARTIMENT_PLATEFORME`], URL signées S3 v2 vers ce même serveur. Les
//! pannes et les compteurs s'y appliquent sous les opérations `Api…` ([`Operation`]) :
//!
//! ```no_run
//! # async fn exemple() -> anyhow::Result<()> {
//! use vigie_bac_a_sable::{BacASable, Operation, Panne, Regle};
//! let bac = BacASable::demarrer(std::path::Path::new("/tmp/bac"), 0).await?;
//! bac.pannes().programmer(Regle::prochaine(Operation::ApiFinaliser, Panne::PerdreReponse));
//! // … lancer `vigie depot … --participation {PARTICIPATION}` avec
//! // `bac.variables_env_plateforme()` (VIGIE_API, VIGIE_JETON) …
//! assert!(bac.fichiers().iter().all(|f| f.disponible));
//! # Ok(()) }
//! ```
//!
//! Le client doit : viser [`BacASable::endpoint`] en **style chemin** (`force_path_style`),
//! signer avec [`CLE_ACCES`] / [`SECRET`] (n'importe quelle région est acceptée ; [`REGION`]
//! par convention).
//!
//! Pièges connus (voir aussi `plateforme.rs`) :
//! - **Longueur des clés** : s3s-fs encode compartiment et clé en base64url dans un seul nom de
//!   fichier de métadonnées (255 octets au plus). Avec `b64(n) = ⌈4n/3⌉`, un `PutObject` exige
//!   `b64(compartiment) + b64(clé) ≤ 225` et un multipart `≤ 181` ; au-delà : 500
//!   `InternalError` (avec le compartiment `nuits`, dès 164 octets de clé pour un PUT et 131
//!   pour un multipart). Les noms Vigie-Chiro (`Car170517-2014-Pass1-Tron1-Chiro_0_…_761.wav`,
//!   sous un préfixe de nuit) restent loin de cette limite. Une clé et son préfixe ne peuvent
//!   pas non plus coexister (`a` et `a/b`).
//! - **Runtime** : le serveur tourne sur le runtime tokio de l'appelant. Un test qui lance le
//!   binaire par un appel **bloquant** (`assert_cmd`, `std::process::Command::output`) doit
//!   utiliser `#[tokio::test(flavor = "multi_thread")]`, ou bien
//!   [`BacASable::demarrer_en_fond`], qui a son propre runtime.
//! - Les tirages de probabilité ne sont reproductibles que si les requêtes arrivent dans le
//!   même ordre (un seul envoi à la fois).

mod compteurs;
mod duree;
/// L'horloge d'un service S3 et le refus `RequestTimeTooSkewed` (panne `horloge`).
pub mod horloge;
/// Une nuit de séquences WAV synthétiques (pour `vigie demo`, les essais et les tests).
pub mod nuit;
mod operation;
mod pannes;
mod plateforme;
mod pourcent;
mod service;
mod signature;
mod vigiechiro;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_relecture;
#[cfg(test)]
mod tests_saison;
#[cfg(test)]
mod tests_traitement;
#[cfg(test)]
mod tests_vigiechiro;

use std::net::{Ipv4Addr, SocketAddr};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use compteurs::Compteurs;
pub use operation::{Operation, operation_de_requete};
pub use pannes::{CleVisee, Panne, Pannes, Regle, Relache, RetryAfter};
pub use service::{CompteGouttes, CorpsSansFin, FluxCoupable};
pub use vigiechiro::{
    COMPARTIMENT_PLATEFORME, CalculPlateforme, FichierPlateforme, JETON, JETON_AUTRE,
    JETON_NON_VALIDE, OBSERVATEUR, OBSERVATEUR_AUTRE, PARTICIPATION, PARTICIPATION_AUTRE,
    POINTS_SITE, PSEUDO_AUTRE, ParticipationPlateforme, ReglagesCalcul, SITE, SITE_ROUTIER,
    cle_fichier, nom_csv, taxons,
};
// Plusieurs sites, et des participations « créées sur le site web » (la saison).
pub use vigiechiro::{NouveauSite, ParticipationPosee, SITE_REGIONAL};
// Ce que seuls les essais du bac à sable nomment.
#[cfg(test)]
pub(crate) use vigiechiro::{
    PARTICIPATION_REGIONALE, SITE_AUTRE, SITE_NON_VERROUILLE, SITE_PEDESTRE,
};

/// Clé d'accès fixe du bac à sable.
pub const CLE_ACCES: &str = "VIGIEBACASABLE";
/// Secret fixe du bac à sable. Ce n'est pas un secret : le serveur n'écoute que sur
/// `127.0.0.1` et ne sert que des données de test.
pub const SECRET: &str = "bac-a-sable-vigie-pas-un-vrai-secret";
/// Région conventionnelle (s3s n'en impose aucune : la signature est vérifiée avec celle du
/// client).
pub const REGION: &str = "us-east-1";

/// Un serveur S3 en processus, ses pannes et ses compteurs.
///
/// L'arrêt se fait par [`BacASable::arreter`] ; abandonné sans cela, le serveur s'arrête de
/// lui-même (les connexions en cours ont alors jusqu'à 1,5 s pour finir).
pub struct BacASable {
    adresse: SocketAddr,
    racine: PathBuf,
    pannes: Arc<Pannes>,
    compteurs: Arc<Compteurs>,
    vigiechiro: Arc<vigiechiro::Vigiechiro>,
    arret: watch::Sender<bool>,
    tache: Option<JoinHandle<()>>,
    /// Les requêtes menées hors de leur connexion : un essai y prend le tour d'une clé pour
    /// jouer une finalisation en cours.
    #[cfg(test)]
    traitements: Arc<service::Traitements>,
}

impl std::fmt::Debug for BacASable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BacASable")
            .field("adresse", &self.adresse)
            .field("racine", &self.racine)
            .finish_non_exhaustive()
    }
}

impl BacASable {
    /// Démarre sur `127.0.0.1:port` (0 = port libre), données dans `dossier` (créé si absent).
    /// Les données d'un démarrage précédent dans le même dossier sont reprises.
    ///
    /// Doit être appelé dans un runtime tokio, qui portera le serveur.
    pub async fn demarrer(dossier: &Path, port: u16) -> anyhow::Result<BacASable> {
        std::fs::create_dir_all(dossier).with_context(|| {
            format!(
                "impossible de créer le dossier du bac à sable {}",
                dossier.display()
            )
        })?;
        let racine = dossier
            .canonicalize()
            .with_context(|| format!("dossier du bac à sable illisible : {}", dossier.display()))?;
        let plateforme = plateforme::Plateforme::nouveau(&racine)?;
        let stockage = plateforme.clone();
        let mut constructeur = S3ServiceBuilder::new(plateforme);
        constructeur.set_auth(SimpleAuth::from_single(CLE_ACCES, SECRET));
        // Pas de `set_host` : style chemin uniquement.
        let s3 = constructeur.build();

        let ecoute = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .with_context(|| format!("impossible d'écouter sur 127.0.0.1:{port}"))?;
        let adresse = ecoute.local_addr()?;
        let chemin_plateforme = racine.join(COMPARTIMENT_PLATEFORME);
        std::fs::create_dir_all(&chemin_plateforme).with_context(|| {
            format!(
                "impossible de créer le compartiment de la plateforme {}",
                chemin_plateforme.display()
            )
        })?;
        let vigiechiro = Arc::new(vigiechiro::Vigiechiro::nouveau(
            stockage,
            format!("http://{adresse}"),
        ));

        let pannes = Arc::new(Pannes::nouveau());
        let compteurs = Arc::new(Compteurs::default());
        let (arret, arret_rx) = watch::channel(false);
        let traitements = Arc::<service::Traitements>::default();
        let service = service::ServicePannes {
            s3,
            api: Arc::clone(&vigiechiro),
            pannes: Arc::clone(&pannes),
            compteurs: Arc::clone(&compteurs),
            arret: arret_rx.clone(),
            compte_gouttes: service::CompteGouttes::default(),
            fermeture_brutale: Arc::default(),
            traitements: Arc::clone(&traitements),
        };
        let tache = tokio::spawn(service::servir(ecoute, service, arret_rx));
        tracing::info!(%adresse, racine = %racine.display(), "bac à sable S3 et plateforme Vigie-Chiro démarrés");
        Ok(BacASable {
            adresse,
            racine,
            pannes,
            compteurs,
            vigiechiro,
            arret,
            tache: Some(tache),
            #[cfg(test)]
            traitements,
        })
    }

    /// Démarre sur un runtime tokio à lui, hors de celui de l'appelant : pour un test
    /// synchrone qui lance le binaire par un appel bloquant. S'arrête quand la poignée est
    /// abandonnée.
    pub fn demarrer_en_fond(dossier: &Path, port: u16) -> anyhow::Result<BacASableEnFond> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("bac-a-sable")
            .enable_all()
            .build()
            .context("impossible de créer le runtime du bac à sable")?;
        // `block_on` sur un fil à part : l'appel reste possible depuis un contexte async.
        let bac = std::thread::scope(|s| {
            s.spawn(|| runtime.block_on(BacASable::demarrer(dossier, port)))
                .join()
        })
        .map_err(|_| anyhow::anyhow!("le démarrage du bac à sable a paniqué"))??;
        Ok(BacASableEnFond {
            bac: Some(bac),
            runtime: Some(runtime),
        })
    }

    /// `http://127.0.0.1:PORT`
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.adresse)
    }

    pub fn adresse(&self) -> SocketAddr {
        self.adresse
    }

    /// Dossier des données (canonicalisé).
    pub fn racine(&self) -> &Path {
        &self.racine
    }

    pub fn pannes(&self) -> &Pannes {
        &self.pannes
    }

    pub fn compteurs(&self) -> &Compteurs {
        &self.compteurs
    }

    /// Les compteurs, à partager avec une autre tâche.
    pub fn compteurs_partages(&self) -> Arc<Compteurs> {
        Arc::clone(&self.compteurs)
    }

    /// Crée le compartiment (un dossier de la racine). Sans effet s'il existe. `api` est
    /// refusé : ce chemin est celui de la plateforme Vigie-Chiro locale.
    pub fn creer_compartiment(&self, nom: &str) -> anyhow::Result<()> {
        if !s3s::path::check_bucket_name(nom) {
            anyhow::bail!(
                "nom de compartiment invalide « {nom} » : 3 à 63 caractères, minuscules, chiffres, « - » et « . »"
            );
        }
        if nom == "api" {
            anyhow::bail!(
                "le compartiment « api » est impossible : /api est le chemin de la plateforme Vigie-Chiro locale"
            );
        }
        let chemin = self.racine.join(nom);
        std::fs::create_dir_all(&chemin)
            .with_context(|| format!("impossible de créer le compartiment {}", chemin.display()))
    }

    /// Chemin du fichier d'un objet déposé, pour le relire (les « / » de la clé sont des
    /// sous-dossiers). Ne dit pas si l'objet existe.
    pub fn chemin_objet(&self, compartiment: &str, cle: &str) -> PathBuf {
        self.racine
            .join(compartiment)
            .join(cle.trim_start_matches('/'))
    }

    /// Envois multipart encore ouverts (ni finalisés ni abandonnés) du compartiment :
    /// `(clé, id d'envoi)`, triés par clé puis date de début. Vide si le compartiment n'existe
    /// pas.
    pub fn envois_en_cours(&self, compartiment: &str) -> Vec<(String, String)> {
        match plateforme::envois_ouverts(&self.racine, compartiment) {
            Ok(envois) => envois.into_iter().map(|e| (e.cle, e.id)).collect(),
            Err(e) => {
                tracing::warn!(erreur = %e, "bac à sable : lecture des envois en cours impossible");
                Vec::new()
            }
        }
    }

    // ------------------------------------------------------------ plateforme Vigie-Chiro

    /// Base de l'API Vigie-Chiro locale : `http://127.0.0.1:PORT/api/v1`.
    pub fn api(&self) -> String {
        format!("http://{}/api/v1", self.adresse)
    }

    /// Variables d'environnement qui dirigent `vigie` vers la plateforme locale :
    /// `VIGIE_API` ([`BacASable::api`]) et `VIGIE_JETON` ([`JETON`]).
    pub fn variables_env_plateforme(&self) -> Vec<(&'static str, String)> {
        vec![("VIGIE_API", self.api()), ("VIGIE_JETON", JETON.to_owned())]
    }

    /// Participations du site, dans l'ordre de création ([`SITE`] contient d'emblée
    /// [`PARTICIPATION`]).
    pub fn participations(&self, site: &str) -> Vec<ParticipationPlateforme> {
        self.vigiechiro.participations(site)
    }

    /// Ajoute un site, comme la plateforme l'aurait créé (titre `« <protocole>-<numéro> »`),
    /// et rend son identifiant : pour éprouver le rapprochement des numéros de site et la
    /// pagination de `GET /moi/sites`.
    pub fn ajouter_site(&self, site: &NouveauSite<'_>) -> anyhow::Result<String> {
        self.vigiechiro.ajouter_site(site)
    }

    /// Supprime une participation comme un administrateur (`delete_participation`) : une
    /// nuit que `vigie` y avait liée la retrouve disparue. `false` si elle n'existait pas.
    pub fn supprimer_participation(&self, id: &str) -> bool {
        self.vigiechiro.supprimer_participation(id)
    }

    /// Donne une participation à un autre observateur (une modification faite dans la base
    /// par un administrateur) : elle n'est plus à l'utilisateur. `false` si elle n'existe pas.
    pub fn ceder_participation(&self, id: &str, observateur: &str) -> bool {
        self.vigiechiro.ceder_participation(id, observateur)
    }

    /// Pose `configuration` et `meteo` d'une participation comme le formulaire du site web
    /// (`participationResource.patch`), sans passer par l'API ni ses compteurs. `false` si
    /// elle n'existe pas.
    pub fn poser_description(
        &self,
        id: &str,
        configuration: serde_json::Value,
        meteo: serde_json::Value,
    ) -> bool {
        self.vigiechiro.poser_description(id, configuration, meteo)
    }

    /// Pose une participation telle que le site web l'aurait créée (dates `isoformat()` en
    /// UTC, point facultatif), sans passer par l'API ni ses compteurs, et rend son
    /// identifiant : la nuit « déjà créée sur le site web » d'une saison.
    pub fn poser_participation(&self, p: &ParticipationPosee<'_>) -> anyhow::Result<String> {
        self.vigiechiro.poser_participation(p)
    }

    /// Enregistrements de fichiers de la plateforme, dans l'ordre de déclaration (un fichier
    /// abandonné par `DELETE` n'y est plus).
    pub fn fichiers(&self) -> Vec<FichierPlateforme> {
        self.vigiechiro.fichiers()
    }

    /// Le fichier de ce titre dans cette participation, s'il est enregistré.
    pub fn fichier(&self, participation: &str, titre: &str) -> Option<FichierPlateforme> {
        let cle = cle_fichier(participation, titre)?;
        self.fichiers().into_iter().find(|f| f.cle == cle)
    }

    /// Envois multipart S3 ouverts dans [`COMPARTIMENT_PLATEFORME`] dont l'id n'est stocké
    /// par aucun enregistrement de fichier : `(clé, id d'envoi)`. Ce sont les envois perdus
    /// par des `POST /fichiers` multipart rejoués (ou refusés après l'ouverture de l'envoi).
    pub fn envois_orphelins(&self) -> Vec<(String, String)> {
        let stockes: Vec<String> = self
            .fichiers()
            .into_iter()
            .filter_map(|f| f.id_envoi)
            .collect();
        self.envois_en_cours(COMPARTIMENT_PLATEFORME)
            .into_iter()
            .filter(|(_, id)| !stockes.contains(id))
            .collect()
    }

    /// Enregistrements **finalisés** dont l'objet manque dans S3. La vraie plateforme ne
    /// vérifie pas, à la finalisation d'un fichier non multipart, que ses octets sont arrivés
    /// (`resources/fichiers.py` `fichier_upload_done`) ; c'est au client de s'en assurer, et
    /// aux tests de le constater ici : cette liste doit rester vide.
    pub fn fichiers_disponibles_sans_objet(&self) -> Vec<FichierPlateforme> {
        self.fichiers()
            .into_iter()
            .filter(|f| {
                f.disponible && !self.chemin_objet(COMPARTIMENT_PLATEFORME, &f.cle).is_file()
            })
            .collect()
    }

    /// Pose un fichier **finalisé** dans la participation, objet S3 compris (un seul PUT : ETag
    /// = MD5 du contenu), comme l'aurait laissé un dépôt complet par un autre client (le site
    /// web, un autre portable) ; rend son identifiant. Sert aux tests qui confrontent `vigie` à
    /// une participation déjà remplie, sans passer par des milliers de requêtes.
    pub async fn poser_fichier_finalise(
        &self,
        participation: &str,
        titre: &str,
        contenu: Vec<u8>,
    ) -> anyhow::Result<String> {
        self.vigiechiro
            .poser_fichier_finalise(participation, titre, contenu)
            .await
    }

    /// Supprime un fichier de la participation, enregistrement et objet S3, finalisé ou non,
    /// comme le ferait un gestionnaire de la plateforme (ses scripts d'administration : un
    /// observateur ne peut pas supprimer un fichier finalisé). `false` s'il n'existait pas.
    pub async fn supprimer_comme_un_gestionnaire(
        &self,
        participation: &str,
        titre: &str,
    ) -> anyhow::Result<bool> {
        self.vigiechiro
            .supprimer_comme_un_gestionnaire(participation, titre)
            .await
    }

    /// Règle le déroulement des calculs lancés désormais (`POST …/compute`) : attente en file,
    /// durée, essais qui échouent, CSV automatique (voir [`ReglagesCalcul`]).
    pub fn regler_calcul(&self, reglages: ReglagesCalcul) {
        self.vigiechiro.regler_calcul(reglages);
    }

    /// Règle le déroulement des calculs de la participation `id` lancés désormais, les autres
    /// gardant ceux de [`BacASable::regler_calcul`] : une nuit d'une saison dont le calcul
    /// échoue (`echecs`), comme chaque calcul du serveur mène sa propre tâche
    /// (`scripts/task_participation.py` `process_participation`).
    pub fn regler_calcul_de(&self, id: &str, reglages: ReglagesCalcul) {
        self.vigiechiro.regler_calcul_de(id, reglages);
    }

    /// Fait passer `duree` pour les calculs, sans attendre : à la requête suivante, chaque
    /// calcul en est où il serait `duree` plus tard, ses dates reculées d'autant (le refus
    /// « Already … » d'un calcul de moins d'un jour compte de même).
    pub fn avancer_horloge(&self, duree: Duration) {
        self.vigiechiro.avancer_horloge(duree);
    }

    /// La participation de cet identifiant, quel que soit son site.
    pub fn participation(&self, id: &str) -> Option<ParticipationPlateforme> {
        self.vigiechiro.participation(id)
    }

    /// Pose `contenu` comme CSV des observations de la participation, tel que l'écrirait un
    /// calcul fini (l'ancien effacé) : un CSV de la taille voulue, sans déposer des milliers
    /// de séquences.
    pub async fn poser_csv(&self, participation: &str, contenu: Vec<u8>) -> anyhow::Result<()> {
        self.vigiechiro.poser_csv(participation, contenu).await
    }

    /// Nombre de courriels du CSV des observations demandés (`POST …/csv`) pour la
    /// participation.
    pub fn courriels_csv(&self, participation: &str) -> u32 {
        self.vigiechiro.courriels_csv(participation)
    }

    /// Le contenu du fichier de ce titre dans la participation, tel que le stockage le garde
    /// (le CSV des observations, le journal du calcul…), s'il est enregistré et écrit.
    pub fn contenu_fichier(&self, participation: &str, titre: &str) -> Option<Vec<u8>> {
        let f = self
            .fichiers()
            .into_iter()
            .rev()
            .find(|f| f.participation.as_deref() == Some(participation) && f.titre == titre)?;
        std::fs::read(self.chemin_objet(COMPARTIMENT_PLATEFORME, &f.cle)).ok()
    }

    /// S3 refuse (`true`) ou accepte de nouveau (`false`) d'ouvrir un envoi multipart pour la
    /// plateforme : toute déclaration multipart rend alors 500 `S3 has rejected file creation
    /// request`, comme sur une plateforme où ce chemin, qu'aucun client officiel n'emprunte, ne
    /// marche plus.
    pub fn refuser_multipart(&self, refuser: bool) {
        self.vigiechiro.refuser_multipart(refuser);
    }

    /// Fait expirer ce jeton : la requête suivante qui le porte reçoit 401. `false` si le
    /// jeton est inconnu.
    pub fn expirer_jeton(&self, jeton: &str) -> bool {
        self.vigiechiro.expirer_jeton(jeton)
    }

    /// Ajoute (ou renouvelle pour 14 jours, s'il a expiré) un jeton de l'observateur validé,
    /// comme après une nouvelle connexion sur le site web.
    pub fn ajouter_jeton(&self, jeton: &str) {
        self.vigiechiro.ajouter_jeton(jeton);
    }

    /// URL présignée (v2) d'un PUT simple vers `cle` de [`COMPARTIMENT_PLATEFORME`], signant
    /// ce `Content-Type`, expirant à `expire_a` (secondes Unix). Sert aux tests (URL expirée,
    /// signature d'un autre type) ; la plateforme fabrique les siennes pour 10 h.
    #[cfg(test)]
    pub(crate) fn url_signee(&self, cle: &str, content_type: &str, expire_a: u64) -> String {
        self.vigiechiro
            .url_signee(cle, signature::Envoi::Simple { content_type }, expire_a)
    }

    /// Variables d'environnement qui dirigent un client AWS standard (dont le binaire `vigie`)
    /// vers ce bac à sable : identifiants, région, point d'accès.
    pub fn variables_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", CLE_ACCES.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.to_owned()),
            ("AWS_REGION", REGION.to_owned()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_EC2_METADATA_DISABLED", "true".to_owned()),
        ]
    }

    /// Configuration d'un client aws-sdk-s3 pour ce bac à sable : style chemin, identifiants
    /// fixes, **réessais du SDK coupés**, sommes calculées seulement si exigées. À compléter
    /// (délais…) puis `aws_sdk_s3::Client::from_conf(config.build())`.
    pub(crate) fn config_client(&self) -> aws_sdk_s3::config::Builder {
        use aws_sdk_s3::config::retry::RetryConfig;
        use aws_sdk_s3::config::{
            BehaviorVersion, Credentials, Region, RequestChecksumCalculation,
            ResponseChecksumValidation,
        };
        aws_sdk_s3::config::Builder::new()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(REGION))
            .credentials_provider(Credentials::new(
                CLE_ACCES,
                SECRET,
                None,
                None,
                "bac-a-sable",
            ))
            .endpoint_url(self.endpoint())
            .force_path_style(true)
            .retry_config(RetryConfig::disabled())
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
    }

    /// Un client aws-sdk-s3 prêt à l'emploi (voir `BacASable::config_client`), pour vérifier
    /// ce qui a été déposé.
    pub fn client(&self) -> aws_sdk_s3::Client {
        aws_sdk_s3::Client::from_conf(self.config_client().build())
    }

    /// Arrêt propre : plus d'acceptation, les connexions en cours ont 1,5 s pour finir (les
    /// lenteurs et blocages injectés s'interrompent aussitôt), puis sont abandonnées. Ne dure
    /// jamais plus de 2 s.
    pub async fn arreter(mut self) {
        self.arret.send_replace(true);
        if let Some(tache) = self.tache.take() {
            let abandon = tache.abort_handle();
            if tokio::time::timeout(Duration::from_secs(2), tache)
                .await
                .is_err()
            {
                abandon.abort();
            }
        }
        tracing::info!(adresse = %self.adresse, "bac à sable S3 arrêté");
    }
}

impl Drop for BacASable {
    fn drop(&mut self) {
        // La tâche de service voit le signal et s'arrête d'elle-même.
        self.arret.send_replace(true);
    }
}

/// Un bac à sable sur son propre runtime (voir [`BacASable::demarrer_en_fond`]) ; donne accès
/// à toutes les méthodes de [`BacASable`]. S'arrête à l'abandon.
pub struct BacASableEnFond {
    bac: Option<BacASable>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl BacASableEnFond {
    /// Arrêt propre (≤ 2 s), bloquant.
    pub fn arreter(mut self) {
        self.arreter_ici();
    }

    fn arreter_ici(&mut self) {
        let (Some(bac), Some(runtime)) = (self.bac.take(), self.runtime.take()) else {
            return;
        };
        // Sur un fil à part : ni `block_on` ni l'abandon d'un runtime ne sont permis depuis un
        // contexte async.
        let _ = std::thread::spawn(move || {
            runtime.block_on(bac.arreter());
            runtime.shutdown_timeout(Duration::from_millis(500));
        })
        .join();
    }
}

impl Deref for BacASableEnFond {
    type Target = BacASable;

    fn deref(&self) -> &BacASable {
        match &self.bac {
            Some(bac) => bac,
            // `bac` n'est retiré que par `arreter_ici`, qui consomme ou abandonne la poignée.
            None => unreachable!("bac à sable déjà arrêté"),
        }
    }
}

impl Drop for BacASableEnFond {
    fn drop(&mut self) {
        self.arreter_ici();
    }
}

impl std::fmt::Debug for BacASableEnFond {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BacASableEnFond").field(&self.bac).finish()
    }
}
