//! Le point de passage unique de toutes les émissions réseau.
//!
//! Chaque appel vers la destination passe par [`emettre`], qui applique la
//! `PolitiqueReessai` avec le profil et la rejouabilité **déclarés à l'appel** (l'idempotence est
//! une décision d'appelant, `docs/politique-reessai.md`). Aucun appel ne le contourne : les
//! réessais internes du SDK AWS sont coupés (`s3.rs`), sinon ils s'ajouteraient aux nôtres hors de
//! tout budget.
//!
//! L'émetteur ajoute à la boucle de réessai ce qui touche au monde réel : le délai de chaque
//! tentative, la coupure d'un transfert qui n'avance plus, l'arrêt sur Ctrl-C, et la pause
//! globale quand le réseau tombe, avec la veille qui sonde son retour ([`veiller`],
//! [`sous_veille`]) : toute commande qui déclare une pause la mène sous cette veille,
//! sinon une émission attendrait pour toujours un réseau que personne ne sonde.

pub(crate) mod certificat;
pub(crate) mod connexions;
pub(crate) mod corps;
pub(crate) mod debit;
pub(crate) mod en_clair;
pub(crate) mod reseau;
pub(crate) mod s3;
pub(crate) mod vigiechiro;

use std::future::Future;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::reessai::{
    AleaSysteme, Annulation, Cadre, DecisionJournalisee, Etape, Issue, ObservateurMuet,
    ObservateurReessai, Operation, PolitiqueReessai, Profil, Reglages, Rejouabilite, Relecture,
    ReponseApi, SansBudget, SeauJetons, SourceAlea, TemporisateurTokio, executer,
};
use corps::Progression;
use reseau::{Reseau, TemporisateurHorsPause};

/// Le plafond de tout corps de réponse lu en mémoire (API et S3) : une réponse de la
/// plateforme ou du service tient en quelques centaines de Kio (une page de 100 participations,
/// 1 000 parties d'un envoi). Au-delà, c'est une erreur du serveur ou une réponse hostile :
/// « réponse trop grande », sans lire plus loin.
pub(crate) const CORPS_REPONSE_MAX: usize = 4 * 1024 * 1024;

/// Le détail d'une réponse dont le corps dépasse [`CORPS_REPONSE_MAX`].
pub(crate) fn detail_reponse_trop_grande(statut: u16) -> String {
    format!(
        "réponse trop grande (statut {statut}, plus de {} Mio) : lecture abandonnée",
        CORPS_REPONSE_MAX / (1024 * 1024)
    )
}

/// La pause globale quand le réseau tombe.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PauseReseau {
    /// Échecs réseau de suite (sans réponse du serveur) qui déclarent le réseau coupé.
    pub(crate) echecs: u32,
    /// Au-delà, la coupure arrête le passage ; `None` : aucune limite, la veille guette le
    /// retour du réseau aussi longtemps qu'il le faut (Ctrl-C, ou la fin de
    /// `--jusqu-au-bout=DURÉE`, l'arrêtent).
    pub(crate) attente_max: Option<Duration>,
}

impl PauseReseau {
    /// Échecs qui déclarent le réseau coupé, par défaut (`--echecs-reseau`).
    pub(crate) const ECHECS_PAR_DEFAUT: u32 = 2;
}

/// Réglages de l'émetteur.
#[derive(Debug, Clone)]
pub(crate) struct ReglagesEmission {
    pub(crate) insistant: PolitiqueReessai,
    pub(crate) bref: PolitiqueReessai,
    /// Délai maximal d'une tentative : la requête et l'attente de la réponse (pas la lecture
    /// de son corps, qu'aucun délai ne coupe tant qu'il progresse).
    pub(crate) delai_tentative: Duration,
    /// Un corps qui n'avance plus depuis ce délai est coupé (la tentative échoue, rejouable).
    pub(crate) delai_blocage: Duration,
    /// La pause réseau ; `None` : aucune, chaque émission s'arrête sur sa politique (commandes
    /// ponctuelles, où quelqu'un attend la réponse).
    pub(crate) pause: Option<PauseReseau>,
}

impl ReglagesEmission {
    /// Délai d'une tentative, par défaut (`--delai-tentative`).
    pub(crate) const DELAI_TENTATIVE_PAR_DEFAUT: Duration = Duration::from_secs(300);
    /// Délai de blocage d'un corps, par défaut (`--delai-blocage`).
    pub(crate) const DELAI_BLOCAGE_PAR_DEFAUT: Duration = Duration::from_secs(30);
}

/// Ce que la veille du réseau annonce (la barre de progression, les lignes d'événements).
pub(crate) trait AnnoncesReseau: Send + Sync {
    /// Le réseau semble coupé depuis `depuis` : la prochaine sonde part dans `attente`.
    fn reseau_indisponible(&self, depuis: Duration, attente: Duration);
    /// La sonde a abouti : les émissions reprennent.
    fn reseau_retabli(&self);
}

/// Attente entre deux sondes pendant une coupure, après les [`SONDES_RAPPROCHEES`] : le backoff
/// à gigue égale de la politique (voir [`PolitiqueReessai::attente_backoff`]), d'une enveloppe
/// de 0,25 s doublée jusqu'à 30 s. Vérifiée à la compilation.
const CADENCE_SONDES: PolitiqueReessai = match Reglages::bref()
    .avec_base(Duration::from_millis(250))
    .avec_plafond(Duration::from_secs(30))
    .valider()
{
    Ok(politique) => politique,
    Err(_) => panic!("cadence des sondes invalide"),
};
/// Les premières sondes d'une coupure partent chacune 0,05 à 0,1 s après l'échec de la
/// précédente : une coupure de partage de connexion dure souvent une seconde ou deux, et chaque
/// instant entre le retour du lien et la sonde qui le voit est perdu pour tous les transferts.
/// Partie d'1 s, la veille ratait souvent le retour du lien et attendait encore 1 à 2 s ;
/// doublée dès la deuxième sonde, 0,3 à 0,5 s (banc du lien qui coupe, `BENCHMARKS.md` § 5).
/// Une sonde refusée (connexion refusée ou coupée) n'atteint pas le serveur : la douzaine de
/// plus au début d'une coupure ne lui coûte rien. Sur un lien muet (paquets perdus, sans
/// refus), chaque sonde attend sa connexion, jusqu'à son délai : la cadence est alors celle
/// de ces attentes.
const SONDES_RAPPROCHEES: u32 = 12;
/// L'attente avant chacune des [`SONDES_RAPPROCHEES`] : enveloppe de 0,1 s, gigue égale.
const CADENCE_RAPPROCHEE: PolitiqueReessai = match Reglages::bref()
    .avec_base(Duration::from_millis(100))
    .valider()
{
    Ok(politique) => politique,
    Err(_) => panic!("cadence rapprochée des sondes invalide"),
};
/// Une sonde est une seule tentative : la cadence des sondes est celle de la veille
/// ([`attente_avant_sonde`]), pas celle d'un réessai BREF glissé entre deux sondes (qui
/// doublait l'écart entre deux essais du lien et retardait la reprise d'autant). Vérifiée à la
/// compilation.
const POLITIQUE_SONDE: PolitiqueReessai = match Reglages::bref().avec_tentatives_max(1).valider() {
    Ok(politique) => politique,
    Err(_) => panic!("politique de la sonde invalide"),
};

/// L'attente avant la `sonde`-ième sonde d'une coupure (à partir de 1), pour un tirage `alea`
/// dans [0, 1] : rapprochée d'abord, puis croissante.
fn attente_avant_sonde(sonde: u32, alea: f64) -> Duration {
    if sonde <= SONDES_RAPPROCHEES {
        CADENCE_RAPPROCHEE.attente_backoff(1, alea)
    } else {
        CADENCE_SONDES.attente_backoff(sonde - SONDES_RAPPROCHEES, alea)
    }
}
/// Délai d'une sonde, au plus.
const SONDE_DELAI: Duration = Duration::from_secs(10);
/// Délai d'une sonde, au moins : une connexion neuve (avec TLS, trois allers-retours) et une
/// petite requête, sur un lien lent.
const SONDE_DELAI_MIN: Duration = Duration::from_secs(3);

/// Combien de fois le silence normal du lien une tentative peut se taire avant d'être tenue
/// pour morte.
const FACTEUR_SILENCE: u32 = 4;
/// Le silence toléré, au moins (sauf si `--delai-blocage` ou `--delai-tentative` sont plus
/// courts) : une perte de paquet sur un lien mobile se rattrape en une ou deux secondes, un
/// changement de cellule en quelques-unes.
const SILENCE_MIN: Duration = Duration::from_secs(10);
/// Avant toute réponse (rien n'est encore mesuré), l'attente d'une réponse est bornée à ceci
/// (ou à `--delai-tentative` s'il est plus court).
const REPONSE_SANS_MESURE: Duration = Duration::from_secs(60);
/// Un corps de réponse qui, passé [`DUREE_REPONSE_LENTE`], arrive à moins de ce débit moyen
/// (en octets par seconde) ne finira pas : les réponses de l'API et de S3 tiennent en quelques
/// dizaines de Kio (une page de 100 fichiers de la plateforme), qu'un lien même très lent
/// (2G, quelques Ko/s) livre plus vite. Une réponse rapide mais démesurée bute, elle, sur
/// [`CORPS_REPONSE_MAX`].
const DEBIT_REPONSE_MIN: u64 = 1_000;
/// Le temps laissé au corps d'une réponse avant de juger son débit (ou le délai de réponse,
/// s'il est plus court).
const DUREE_REPONSE_LENTE: Duration = Duration::from_secs(10);
/// Une tentative d'avant une coupure n'est abandonnée au retour du réseau que si elle se tait
/// depuis au moins ceci : celle qui vient de finir d'envoyer son corps attend légitimement sa
/// réponse.
const SILENCE_ABANDON_MIN: Duration = Duration::from_secs(1);

/// Combien de temps une tentative peut se taire, à la mesure du lien.
///
/// Un téléphone qui perd le signal ne ferme pas les connexions : une requête dont le corps
/// est parti attendait sa réponse jusqu'à `--delai-tentative` (300 s), et chaque perte de
/// signal gelait le dépôt cinq minutes. Le silence toléré se mesure désormais sur ce que le
/// lien fait d'ordinaire : [`FACTEUR_SILENCE`] fois le plus long silence des dernières
/// tentatives qui ont eu leur réponse (voir `Reseau::silence_normal`), jamais moins de
/// [`SILENCE_MIN`], jamais plus que les délais donnés.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seuils {
    /// Pendant l'envoi du corps : au plus `--delai-blocage`.
    pub(crate) corps: Duration,
    /// Après l'envoi du corps, jusqu'à la réponse (en-têtes, puis corps de la réponse) : au
    /// plus `--delai-tentative`.
    pub(crate) reponse: Duration,
    /// Le délai d'une sonde du réseau.
    pub(crate) sonde: Duration,
}

impl Seuils {
    /// Les seuils pour un lien dont le silence normal est `normal` (`None` : rien de mesuré).
    pub(crate) fn mesures(
        normal: Option<Duration>,
        blocage: Duration,
        tentative: Duration,
    ) -> Seuils {
        let mesure = normal.map(|n| n.saturating_mul(FACTEUR_SILENCE));
        Seuils {
            corps: match mesure {
                Some(m) => m.max(SILENCE_MIN.min(blocage)).min(blocage),
                None => blocage,
            },
            reponse: match mesure {
                Some(m) => m.max(SILENCE_MIN.min(tentative)).min(tentative),
                None => REPONSE_SANS_MESURE.min(tentative),
            },
            sonde: mesure.map_or(SONDE_DELAI, |m| m.clamp(SONDE_DELAI_MIN, SONDE_DELAI)),
        }
    }
}

/// « 10 s », « 1,5 s ».
fn secondes(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s").replace('.', ",")
    }
}

/// Une tentative en vol, que la veille peut abandonner au retour du réseau.
#[derive(Debug)]
struct TentativeSuivie {
    progression: Arc<Progression>,
    abandon: tokio::sync::Notify,
}

/// Ce qu'a donné une tentative.
enum Tentee<T> {
    Reponse(ReponseApi<T>),
    /// Elle se taisait depuis avant la coupure : sa connexion est morte, la veille l'a
    /// abandonnée au retour du réseau.
    Abandonnee,
}

/// Le détail d'une tentative abandonnée au retour du réseau.
const DETAIL_ABANDON: &str =
    "connexion d'avant la coupure, muette : abandonnée au retour du réseau";

/// Une émission : la description complète de la requête, ce que l'appelant déclare — le
/// profil de réessai, et l'[`Operation`] : la méthode et la cible (pour le journal), la
/// rejouabilité, l'étape dont elle entame le budget, et la relecture d'une écriture non
/// rejouable. Qui l'observe (journal d'une unité, du plan, rien) est choisi par le
/// [`ContexteEmission`] qui l'émet.
pub(crate) struct Emission<'a, T> {
    pub(crate) profil: Profil,
    pub(crate) operation: Operation<'a, T>,
}

impl<'a, T> Emission<'a, T> {
    /// Une émission dans une étape neuve, sans relecture.
    pub(crate) fn nouveau(
        methode: &'a str,
        cible: &'a str,
        profil: Profil,
        rejouabilite: Rejouabilite,
    ) -> Self {
        Emission {
            profil,
            operation: Operation::nouveau(methode, cible, rejouabilite),
        }
    }

    /// Une lecture : rejouable, INSISTANT.
    pub(crate) fn lecture(methode: &'a str, cible: &'a str) -> Self {
        Self::nouveau(methode, cible, Profil::Insistant, Rejouabilite::Rejouable)
    }

    /// Une écriture non rejouable (INSISTANT), émise une fois et sans relecture : partie sans
    /// réponse, son issue est inconnue, et c'est à l'appelant de la réconcilier.
    pub(crate) fn ecriture_unique(methode: &'a str, cible: &'a str) -> Self {
        Self::nouveau(
            methode,
            cible,
            Profil::Insistant,
            Rejouabilite::NonRejouable,
        )
    }

    /// Une écriture non rejouable (INSISTANT), émise une fois ; partie sans réponse, elle est
    /// relue par `relecture` et réémise si la relecture prouve qu'elle n'a pas eu lieu, dans
    /// le budget d'une seule émission : un accroc isolé n'arrête jamais l'unité.
    pub(crate) fn ecriture_relue(
        methode: &'a str,
        cible: &'a str,
        relecture: Relecture<'a, T>,
    ) -> Self {
        let ecriture = Self::ecriture_unique(methode, cible);
        Emission {
            operation: ecriture.operation.relue_par(relecture),
            ..ecriture
        }
    }

    /// Dans le budget d'une étape déjà entamée (la relecture d'une écriture non rejouable).
    pub(crate) fn dans(self, etape: &'a Etape) -> Self {
        Emission {
            operation: self.operation.dans(etape),
            ..self
        }
    }
}

/// Ce dans quoi une émission part : l'émetteur du passage (politiques, budget global, pause
/// et veille du réseau, Ctrl-C), qui observe ses réessais (journal d'une unité, du plan, rien),
/// et où l'affichage lit la progression de ses tentatives. Le contexte choisit l'observateur,
/// l'[`Emission`] décrit la requête, [`emettre`] les réunit : c'est la seule façon d'émettre.
/// La veille du réseau ([`veiller`], [`sous_veille`]) se mène dans un contexte de même, ses
/// sondes observées par lui.
///
/// Les contextes : l'unité du moteur (`depot::ContexteUnite`) et le plan vu d'une unité
/// (`ContexteUnite::pour_le_plan`) ; une commande hors de tout plan, muette (l'[`Emetteur`]
/// lui-même) ; une commande qui garde ses décisions ([`Emetteur::observe_par`]).
pub(crate) trait ContexteEmission: Sync {
    /// L'émetteur du passage.
    fn emetteur(&self) -> &Emetteur;

    /// Qui reçoit les annonces (« nouvelle tentative dans N s ») et les décisions.
    fn observateur(&self) -> &dyn ObservateurReessai;

    /// Où compter la progression des tentatives, pour l'affichage ; `None` : nulle part.
    fn en_vol(&self) -> Option<&EnVol> {
        None
    }
}

/// Hors de tout plan (une commande ponctuelle : `vigie traitement`, `vigie resultats`, la
/// vérification d'un site) : rien n'est journalisé ; les réessais sont annoncés par
/// l'observateur donné à [`Emetteur::annonce_par`], s'il y en a un.
impl ContexteEmission for Emetteur {
    fn emetteur(&self) -> &Emetteur {
        self
    }

    fn observateur(&self) -> &dyn ObservateurReessai {
        match &self.annonce {
            Some(Annonce(o)) => o.as_ref(),
            None => &ObservateurMuet,
        }
    }
}

/// Un émetteur dont les décisions vont à un observateur choisi (voir
/// [`Emetteur::observe_par`]).
pub(crate) struct Observe<'a> {
    emetteur: &'a Emetteur,
    observateur: &'a dyn ObservateurReessai,
}

impl ContexteEmission for Observe<'_> {
    fn emetteur(&self) -> &Emetteur {
        self.emetteur
    }

    fn observateur(&self) -> &dyn ObservateurReessai {
        self.observateur
    }
}

/// Émet ce que décrit `emission` dans `contexte`, sous la politique du profil déclaré : le
/// seul point de passage de toute requête. `tentative` reçoit la progression de la tentative
/// (à passer au corps de la requête) et rend la réponse classée ; l'observateur du contexte
/// reçoit les annonces et les décisions.
///
/// Autour de chaque tentative : la retenue d'un `Retry-After` reçu ailleurs, la pause
/// globale si le réseau est coupé (la tentative attend la réouverture puis repart, sans être
/// comptée : une écriture non rejouable qui a pu partir n'est jamais réémise), le délai de
/// tentative, la coupure d'un corps bloqué, et Ctrl-C. Une écriture non rejouable partie
/// sans réponse est relue par la relecture de l'émission (voir [`Emission`]).
pub(crate) async fn emettre<T, F, Fut>(
    contexte: &(impl ContexteEmission + ?Sized),
    emission: Emission<'_, T>,
    tentative: F,
) -> Issue<T>
where
    F: FnMut(Arc<Progression>) -> Fut,
    Fut: Future<Output = ReponseApi<T>>,
{
    let aucun = EnVol::default();
    let en_vol = contexte.en_vol().unwrap_or(&aucun);
    contexte
        .emetteur()
        .emettre_sous(emission, contexte.observateur(), en_vol, tentative)
        .await
}

/// La veille du réseau, à mener pendant toute émission d'une commande qui a une pause
/// réseau : à chaque coupure déclarée, une sonde (`sonder`, une seule tentative) part à
/// intervalle jitteré, rapproché d'abord, puis croissant et plafonné (0,25 s à 30 s, voir
/// [`attente_avant_sonde`]) ; au premier signe du serveur, même un refus,
/// le réseau rouvre ; au-delà de l'attente maximale s'il y en a une (`--attente-reseau`),
/// il est abandonné (les émissions en attente s'arrêtent, et le passage avec elles) ;
/// sinon la veille sonde aussi longtemps qu'il le faut. Ne rend la main qu'à
/// l'annulation (Ctrl-C, fin de `--jusqu-au-bout=DURÉE`), à l'abandon, ou tout de suite
/// si l'émetteur n'a pas de pause. Les sondes sont observées par l'observateur du contexte.
pub(crate) async fn veiller<S, SFut>(
    contexte: &(impl ContexteEmission + ?Sized),
    sonder: S,
    annonces: &dyn AnnoncesReseau,
) where
    S: Fn() -> SFut,
    SFut: Future<Output = ReponseApi<()>>,
{
    contexte
        .emetteur()
        .mener_la_veille(sonder, annonces, contexte.observateur())
        .await;
}

/// Mène `travail` sous la veille du réseau ([`veiller`]) dans `contexte`, et rend son
/// résultat. Si la veille s'arrête avant (Ctrl-C, réseau abandonné), le travail est mené à son
/// terme : ses émissions voient l'annulation et s'arrêtent d'elles-mêmes, le plan tenu à jour.
pub(crate) async fn sous_veille<T, S, SFut>(
    contexte: &(impl ContexteEmission + ?Sized),
    travail: impl Future<Output = T>,
    sonder: S,
    annonces: &dyn AnnoncesReseau,
) -> T
where
    S: Fn() -> SFut,
    SFut: Future<Output = ReponseApi<()>>,
{
    let mut travail = std::pin::pin!(travail);
    tokio::select! {
        biased;
        r = &mut travail => r,
        () = veiller(contexte, sonder, annonces) => travail.await,
    }
}

/// Le client HTTP n'a pas pu être construit. La cause connue, sur une machine sans
/// certificats racine (conteneur minimal, système sans `ca-certificates`), est dite avec le
/// geste qui la répare ; toute autre l'est avec sa chaîne de causes (reqwest ne dit que
/// « builder error »).
pub(crate) fn client_http_impossible(e: &reqwest::Error) -> String {
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        causes.push(s.to_string());
        source = s.source();
    }
    let chaine = if causes.is_empty() {
        e.to_string()
    } else {
        causes.join(" : ")
    };
    let minuscule = chaine.to_lowercase();
    if minuscule.contains("certificat") || minuscule.contains("certificate") {
        format!(
            "impossible de préparer les connexions chiffrées (HTTPS) : aucun certificat racine \
             du système n'a pu être lu ({chaine}) ; installez les certificats racine (paquet \
             ca-certificates sous Debian ou Ubuntu), ou désignez un fichier de certificats avec \
             SSL_CERT_FILE"
        )
    } else {
        format!("impossible de préparer le client HTTP : {chaine}")
    }
}

/// Les certificats racine du système se lisent-ils ? Sans eux, aucune connexion HTTPS ne peut
/// aboutir : chaque requête échouerait comme une panne du réseau, et la nuit attendrait un
/// réseau qui est là. Vérifié avant tout envoi vers une adresse `https://` (S3 ; le client de
/// la plateforme le vérifie en se construisant), en construisant un client HTTP comme celui de
/// la plateforme, qui lit les mêmes certificats.
pub(crate) fn certificats_du_systeme() -> Result<(), String> {
    reqwest::Client::builder()
        .build()
        .map(drop)
        .map_err(|e| client_http_impossible(&e))
}

/// La progression des tentatives en cours d'une unité, que l'affichage peut lire : une
/// seule d'habitude, plusieurs quand les parties d'un même fichier partent ensemble.
#[derive(Debug, Default)]
pub(crate) struct EnVol {
    courantes: Mutex<Vec<Arc<Progression>>>,
}

impl EnVol {
    /// Octets passés au client HTTP par les tentatives en cours (0 entre deux tentatives).
    pub(crate) fn octets(&self) -> u64 {
        self.courantes
            .lock()
            .map(|c| c.iter().map(|p| p.octets()).sum())
            .unwrap_or(0)
    }

    /// Une tentative commence ; elle n'est plus comptée quand la garde rendue est lâchée (à sa
    /// fin, ou si elle est abandonnée en route).
    fn commencer(&self, p: Arc<Progression>) -> TentativeEnVol<'_> {
        if let Ok(mut c) = self.courantes.lock() {
            c.push(Arc::clone(&p));
        }
        TentativeEnVol {
            en_vol: self,
            progression: p,
        }
    }
}

/// Une tentative comptée dans un [`EnVol`], jusqu'à ce qu'elle soit lâchée.
struct TentativeEnVol<'a> {
    en_vol: &'a EnVol,
    progression: Arc<Progression>,
}

impl Drop for TentativeEnVol<'_> {
    fn drop(&mut self) {
        if let Ok(mut c) = self.en_vol.courantes.lock() {
            c.retain(|p| !Arc::ptr_eq(p, &self.progression));
        }
    }
}

/// Le point de passage unique.
#[derive(Debug, Clone)]
pub(crate) struct Emetteur {
    reglages: ReglagesEmission,
    temporisateur: TemporisateurHorsPause,
    alea: AleaSysteme,
    annulation: Annulation,
    reseau: Arc<Reseau>,
    budget: Arc<SeauJetons>,
    /// Jusqu'où un `Retry-After` reçu par une émission retient toutes les autres (même
    /// destination, donc même serveur).
    retenue: Arc<Mutex<Option<tokio::time::Instant>>>,
    /// La limite de débit (`--debit-max`), partagée par tous les corps envoyés.
    debit: Option<Arc<debit::LimiteDebit>>,
    /// Les tentatives en vol : au retour du réseau, celles d'avant la coupure qui se taisent
    /// encore sont abandonnées (voir [`veiller`]).
    en_vol: Arc<Mutex<Vec<Arc<TentativeSuivie>>>>,
    /// Le premier certificat refusé (voir `certificat.rs`) : tout s'arrête, la commande le dit.
    certificat: Arc<std::sync::OnceLock<String>>,
    /// Qui annonce les réessais d'une commande ponctuelle (voir [`Emetteur::annonce_par`]).
    annonce: Option<Annonce>,
}

/// L'observateur qui annonce les réessais d'une commande ponctuelle.
#[derive(Clone)]
struct Annonce(Arc<dyn ObservateurReessai>);

impl std::fmt::Debug for Annonce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Annonce")
    }
}

impl Emetteur {
    pub(crate) fn nouveau(reglages: ReglagesEmission, annulation: Annulation) -> Self {
        let reseau = Arc::new(Reseau::nouveau(
            reglages.pause.map(|p| p.echecs),
            annulation.clone(),
        ));
        Emetteur {
            reglages,
            temporisateur: TemporisateurHorsPause::nouveau(Arc::clone(&reseau)),
            alea: AleaSysteme,
            annulation,
            reseau,
            budget: Arc::new(SeauJetons::default()),
            retenue: Arc::new(Mutex::new(None)),
            debit: None,
            en_vol: Arc::new(Mutex::new(Vec::new())),
            certificat: Arc::new(std::sync::OnceLock::new()),
            annonce: None,
        }
    }

    /// Les réessais d'une commande ponctuelle, hors de tout plan, annoncés à `observateur`
    /// (« nouvelle tentative dans N s ») : sans lui, une plateforme injoignable se tait
    /// jusqu'à l'erreur, une vingtaine de secondes plus tard.
    pub(crate) fn annonce_par(mut self, observateur: Arc<dyn ObservateurReessai>) -> Self {
        self.annonce = Some(Annonce(observateur));
        self
    }

    /// Un certificat a été refusé (portail captif, proxy, horloge fausse) : ce qu'il faut en
    /// dire. Les émissions de l'émetteur ont été arrêtées : la commande s'arrête en code 2.
    pub(crate) fn certificat_refuse(&self) -> Option<&str> {
        self.certificat.get().map(String::as_str)
    }

    /// Un certificat est refusé : rien ne passera tant qu'un humain n'aura pas agi (accepter
    /// le portail captif, régler l'horloge). Tout s'arrête aussitôt, sans pause ni sonde.
    fn refuser_certificat(&self, detail: &str) {
        if self.certificat.set(detail.to_owned()).is_ok() {
            tracing::info!("{detail}");
        }
        self.annulation.annuler();
    }

    /// Les délais de silence d'une tentative, à la mesure du lien (voir [`Seuils`]).
    pub(crate) fn seuils(&self) -> Seuils {
        Seuils::mesures(
            self.reseau.silence_normal(),
            self.reglages.delai_blocage,
            self.reglages.delai_tentative,
        )
    }

    /// Abandonne les tentatives en vol qui se taisent depuis avant `coupure` : leur connexion
    /// est morte. Rend leur nombre.
    fn abandonner_d_avant(&self, coupure: tokio::time::Instant) -> usize {
        let en_vol = self.en_vol.lock().unwrap_or_else(|e| e.into_inner());
        let mut abandonnees = 0;
        for t in en_vol.iter() {
            if t.progression.derniere_avancee() < coupure
                && t.progression.immobile_depuis() >= SILENCE_ABANDON_MIN
            {
                t.abandon.notify_one();
                abandonnees += 1;
            }
        }
        abandonnees
    }

    /// Soumet tous les corps envoyés à `limite` (`--debit-max`) ; `None` : pas de limite.
    pub(crate) fn sous_limite(mut self, limite: Option<Arc<debit::LimiteDebit>>) -> Self {
        if let Some(l) = &limite {
            tracing::info!(
                "débit limité à {} pour tous les envois (--debit-max)",
                l.debit()
            );
        }
        self.debit = limite;
        self
    }

    pub(crate) fn annulation(&self) -> &Annulation {
        &self.annulation
    }

    /// La politique des opérations qu'on attend (profil INSISTANT) : celle qu'un envoi suit
    /// aussi pour attendre un fichier qu'un autre programme tient.
    pub(crate) fn politique_insistante(&self) -> &PolitiqueReessai {
        &self.reglages.insistant
    }

    /// Cet émetteur, ses décisions de réessai reçues par `observateur` (le journal d'une
    /// commande, gardé puis écrit au plan) : un [`ContexteEmission`].
    pub(crate) fn observe_par<'a>(
        &'a self,
        observateur: &'a dyn ObservateurReessai,
    ) -> Observe<'a> {
        Observe {
            emetteur: self,
            observateur,
        }
    }

    /// L'état du réseau du passage.
    pub(crate) fn reseau(&self) -> &Arc<Reseau> {
        &self.reseau
    }

    /// Au-delà de cette coupure, le passage s'arrête ; `None` sans pause réseau, ou sans
    /// limite à la pause.
    pub(crate) fn attente_reseau(&self) -> Option<Duration> {
        self.reglages.pause.and_then(|p| p.attente_max)
    }

    fn retenir_jusqua(&self, attente: Duration) {
        let fin = tokio::time::Instant::now() + attente;
        if let Ok(mut r) = self.retenue.lock()
            && r.is_none_or(|actuelle| actuelle < fin)
        {
            *r = Some(fin);
        }
    }

    fn retenue(&self) -> Option<tokio::time::Instant> {
        self.retenue
            .lock()
            .ok()
            .and_then(|r| *r)
            .filter(|fin| *fin > tokio::time::Instant::now())
    }

    /// Le corps de [`emettre`], dans le contexte qu'elle a lu : `observateur` reçoit les
    /// annonces et les décisions, `en_vol` compte la progression des tentatives.
    async fn emettre_sous<T, F, Fut>(
        &self,
        emission: Emission<'_, T>,
        observateur: &dyn ObservateurReessai,
        en_vol: &EnVol,
        tentative: F,
    ) -> Issue<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let Emission { profil, operation } = emission;
        let (methode, cible, rejouabilite) =
            (operation.methode, operation.cible, operation.rejouabilite);
        let politique = match profil {
            Profil::Insistant => &self.reglages.insistant,
            Profil::Bref => &self.reglages.bref,
        };
        // Un Mutex et non un RefCell : le futur doit rester `Send` (tâches du moteur).
        let tentative = Mutex::new(tentative);
        let tentative = &tentative;
        executer(
            &Cadre {
                politique,
                temporisateur: &self.temporisateur,
                alea: &self.alea,
                observateur,
                annulation: &self.annulation,
                budget: self.budget.as_ref(),
            },
            operation,
            |numero| async move {
                // Une tentative qui n'est pas comptée (coupure, connexion morte) est tout de
                // même journalisée, sans attente ni raison : le journal dit aussi ce qu'une
                // coupure a interrompu.
                let non_comptee = |detail: String| {
                    observateur.decision(&DecisionJournalisee {
                        methode: methode.to_owned(),
                        cible: cible.to_owned(),
                        tentative: numero,
                        budget_restant: None,
                        statut: None,
                        attente: None,
                        raison: None,
                        detail,
                    });
                };
                loop {
                    if let Some(fin) = self.retenue() {
                        tokio::select! {
                            () = self.annulation.annulee() => {}
                            () = tokio::time::sleep_until(fin) => {}
                        }
                    }
                    // La pause cède à Ctrl-C : rien n'est parti, l'annulation arrêtera la
                    // boucle de réessai.
                    let ouvert = tokio::select! {
                        r = self.reseau.attendre_ouverture() => r.is_ok(),
                        () = self.annulation.annulee() => false,
                    };
                    if !ouvert {
                        let detail = if self.reseau.est_abandonne() {
                            "réseau indisponible trop longtemps : passage arrêté"
                        } else {
                            "interrompu pendant la pause réseau"
                        };
                        return ReponseApi::Injoignable {
                            a_pu_atteindre: false,
                            detail: detail.into(),
                        };
                    }
                    let partie_a = tokio::time::Instant::now();
                    let reponse = match self.tenter(tentative, en_vol).await {
                        Tentee::Reponse(r) => r,
                        // Ni un nouvel échec du réseau (il vient de revenir) ni une tentative
                        // comptée : rejouable, elle repart aussitôt sur une connexion neuve ;
                        // une écriture non rejouable, partie peut-être, passe par sa
                        // réconciliation (issue inconnue, relecture), jamais rejouée à
                        // l'aveugle.
                        Tentee::Abandonnee => {
                            if rejouabilite == Rejouabilite::Rejouable {
                                non_comptee(format!("{DETAIL_ABANDON} : tentative non comptée"));
                                continue;
                            }
                            return ReponseApi::Injoignable {
                                a_pu_atteindre: true,
                                detail: DETAIL_ABANDON.into(),
                            };
                        }
                    };
                    match &reponse {
                        // Ni le serveur ni une coupure : rien ne passera sans un geste humain.
                        ReponseApi::CertificatRefuse { detail } => self.refuser_certificat(detail),
                        // Une tentative coupée par Ctrl-C ne dit rien du réseau.
                        ReponseApi::Injoignable { .. } if self.annulation.est_annulee() => {}
                        ReponseApi::Injoignable {
                            a_pu_atteindre,
                            detail,
                        } => {
                            let coupe = self.reseau.noter_injoignable();
                            let sans_risque =
                                rejouabilite == Rejouabilite::Rejouable || !a_pu_atteindre;
                            if coupe && sans_risque {
                                // Ni rejeu compté ni arrêt : la tentative attend la réouverture.
                                non_comptee(format!(
                                    "{detail} ; réseau coupé : tentative non comptée, reprise \
                                     à sa réouverture"
                                ));
                                continue;
                            }
                        }
                        // Le serveur a répondu, même mal (réponse illisible, corps qui a calé) :
                        // le réseau marche.
                        autre => {
                            self.reseau.noter_reponse(partie_a);
                            // Une attente au-delà de l'échéance arrête cette émission
                            // (`retry_after_depasse_echeance`) ; elle ne retient pas les autres
                            // pour autant : un Retry-After géant bloquerait toute la nuit.
                            if let Some(a) = autre.retry_after()
                                && politique.reglages().echeance().is_none_or(|e| a <= e)
                            {
                                self.retenir_jusqua(a);
                            }
                        }
                    }
                    return reponse;
                }
            },
        )
        .await
    }

    /// Le corps de [`veiller`], ses sondes observées par `observateur`.
    async fn mener_la_veille<S, SFut>(
        &self,
        sonder: S,
        annonces: &dyn AnnoncesReseau,
        observateur: &dyn ObservateurReessai,
    ) where
        S: Fn() -> SFut,
        SFut: Future<Output = ReponseApi<()>>,
    {
        let Some(pause) = self.reglages.pause else {
            return;
        };
        loop {
            let coupe = tokio::select! {
                c = self.reseau.attendre_coupure() => c,
                () = self.annulation.annulee() => false,
            };
            if !coupe {
                return;
            }
            // L'horloge de tokio : un essai l'avance sans attendre (`start_paused`).
            let debut = tokio::time::Instant::now();
            let mut sonde: u32 = 1;
            loop {
                let attente = attente_avant_sonde(sonde, self.alea.tirer());
                if pause
                    .attente_max
                    .is_some_and(|max| debut.elapsed() + attente > max)
                {
                    self.reseau.abandonner();
                    return;
                }
                // Les sondes rapprochées ne s'annoncent qu'une fois : douze lignes « nouvelle
                // tentative » dans la première seconde d'une coupure ne diraient rien de plus.
                if sonde == 1 || sonde > SONDES_RAPPROCHEES {
                    annonces.reseau_indisponible(debut.elapsed(), attente);
                }
                tokio::select! {
                    () = self.annulation.annulee() => return,
                    () = tokio::time::sleep(attente) => {}
                }
                let delai_sonde = self.seuils().sonde;
                let issue = executer(
                    &Cadre {
                        politique: &POLITIQUE_SONDE,
                        temporisateur: &TemporisateurTokio::nouveau(),
                        alea: &AleaSysteme,
                        observateur,
                        annulation: &self.annulation,
                        budget: &SansBudget,
                    },
                    Operation::nouveau("SONDE", "destination", Rejouabilite::Rejouable),
                    |_| async {
                        tokio::time::timeout(delai_sonde, sonder())
                            .await
                            .unwrap_or_else(|_| ReponseApi::Injoignable {
                                a_pu_atteindre: true,
                                detail: format!("sonde sans réponse en {}", secondes(delai_sonde)),
                            })
                    },
                )
                .await;
                if let ReponseApi::CertificatRefuse { detail } = &issue.reponse {
                    self.refuser_certificat(detail);
                    return;
                }
                if issue.reponse.serveur_a_repondu() {
                    let coupure = self.reseau.coupe_depuis();
                    self.reseau.rouvrir();
                    // Le réseau est revenu, les connexions d'avant la coupure non : ce qui y
                    // attend encore une réponse repart (ou se réconcilie) aussitôt, au lieu
                    // d'attendre son délai.
                    if let Some(coupure) = coupure {
                        let abandonnees = self.abandonner_d_avant(coupure);
                        if abandonnees > 0 {
                            tracing::info!(
                                abandonnees,
                                "réseau rétabli : {abandonnees} requête(s) d'avant la coupure \
                                 abandonnée(s), sur des connexions mortes"
                            );
                        }
                    }
                    annonces.reseau_retabli();
                    break;
                }
                sonde = sonde.saturating_add(1);
            }
        }
    }

    /// Une tentative : délai, silence à la mesure du lien (corps bloqué, réponse qui ne vient
    /// pas, ou qui ne finit pas), Ctrl-C, et abandon par la veille au retour du réseau.
    async fn tenter<T, F, Fut>(&self, tentative: &Mutex<F>, en_vol: &EnVol) -> Tentee<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let delai = self.reglages.delai_tentative;
        let progression = Progression::sous_limite(self.debit.clone());
        let _en_vol = en_vol.commencer(progression.clone());
        let suivie = Arc::new(TentativeSuivie {
            progression: progression.clone(),
            abandon: tokio::sync::Notify::new(),
        });
        let _suivie = Suivie::inscrire(&self.en_vol, &suivie);
        let envoi = {
            let mut t = tentative.lock().unwrap_or_else(|e| e.into_inner());
            (t)(progression.clone())
        };
        let envoi = corps::sous_progression(progression.clone(), envoi);
        let reponse = tokio::select! {
            // Ctrl-C : la tentative est abandonnée ; pour une écriture non rejouable, son
            // issue devient inconnue et se réconciliera.
            () = self.annulation.annulee() => ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: "interrompu".into(),
            },
            r = envoi => r,
            () = delai_hors_retenue(&progression, delai) => ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: format!("délai de tentative dépassé ({})", secondes(delai)),
            },
            // Les seuils se relisent à chaque pas : les premières requêtes d'un passage partent
            // avant toute mesure du lien, et en profitent dès qu'elle arrive.
            silence = surveiller_silence(&progression, || self.seuils()) => silence.reponse(),
            () = suivie.abandon.notified() => return Tentee::Abandonnee,
        };
        if reponse.serveur_a_repondu() {
            self.reseau.noter_silence(progression.silence_max());
        }
        if matches!(reponse, ReponseApi::Succes(_)) {
            self.reseau.noter_acquittes(progression.octets());
        }
        Tentee::Reponse(reponse)
    }
}

/// Une tentative inscrite dans les tentatives en vol de l'émetteur, jusqu'à ce qu'elle soit
/// lâchée.
struct Suivie<'a> {
    en_vol: &'a Mutex<Vec<Arc<TentativeSuivie>>>,
    tentative: Arc<TentativeSuivie>,
}

impl<'a> Suivie<'a> {
    fn inscrire(en_vol: &'a Mutex<Vec<Arc<TentativeSuivie>>>, t: &Arc<TentativeSuivie>) -> Self {
        en_vol
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::clone(t));
        Suivie {
            en_vol,
            tentative: Arc::clone(t),
        }
    }
}

impl Drop for Suivie<'_> {
    fn drop(&mut self) {
        self.en_vol
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|t| !Arc::ptr_eq(t, &self.tentative));
    }
}

/// Ce qu'une tentative a laissé voir de trop long.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Silence {
    /// Le corps n'avance plus.
    Corps(Duration),
    /// Le corps est parti (ou il n'y en a pas), aucune réponse n'arrive.
    Reponse(Duration),
    /// La réponse a commencé d'arriver, puis plus rien.
    ReponseInterrompue(Duration),
    /// La réponse arrive, mais ne finit pas : trop lente pour être une réponse.
    ReponseSansFin {
        statut: u16,
        octets: u64,
        duree: Duration,
    },
}

impl Silence {
    fn reponse<T>(self) -> ReponseApi<T> {
        let injoignable = |detail: String| ReponseApi::Injoignable {
            a_pu_atteindre: true,
            detail,
        };
        match self {
            Silence::Corps(d) => injoignable(format!(
                "transfert bloqué : aucun octet parti depuis {}",
                secondes(d)
            )),
            Silence::Reponse(d) => injoignable(format!(
                "aucune réponse du serveur {} après l'envoi",
                secondes(d)
            )),
            Silence::ReponseInterrompue(d) => injoignable(format!(
                "réponse interrompue : plus rien reçu depuis {}",
                secondes(d)
            )),
            // Le serveur a répondu : ce n'est pas le réseau qui manque.
            Silence::ReponseSansFin {
                statut,
                octets,
                duree,
            } => ReponseApi::Illisible {
                statut,
                detail: format!(
                    "réponse sans fin (statut {statut}) : {octets} octets en {}, moins de \
                     {} Ko/s ; lecture abandonnée",
                    secondes(duree),
                    DEBIT_REPONSE_MIN / 1000
                ),
            },
        }
    }
}

/// Ce qui est trop long pour une tentative, à l'instant : le corps immobile au-delà de
/// `seuils.corps`, la réponse qui ne vient pas, ou plus, au-delà de `seuils.reponse`, ou dont
/// le corps, passé [`DUREE_REPONSE_LENTE`], arrive à moins de [`DEBIT_REPONSE_MIN`]. Une
/// attente de la limite de débit n'est jamais un silence.
fn silence_excessif(p: &Progression, seuils: Seuils) -> Option<Silence> {
    let immobile = p.immobile_depuis();
    if p.corps_en_cours() {
        return (immobile >= seuils.corps).then_some(Silence::Corps(seuils.corps));
    }
    match p.reponse() {
        None => (immobile >= seuils.reponse).then_some(Silence::Reponse(seuils.reponse)),
        Some(_) if immobile >= seuils.reponse => Some(Silence::ReponseInterrompue(seuils.reponse)),
        Some((debut, statut, octets)) => {
            let duree = debut.elapsed();
            let lente = (octets as f64) < duree.as_secs_f64() * DEBIT_REPONSE_MIN as f64;
            let jugee = duree >= DUREE_REPONSE_LENTE.min(seuils.reponse);
            (jugee && lente).then_some(Silence::ReponseSansFin {
                statut,
                octets,
                duree,
            })
        }
    }
}

/// Rend la main quand la tentative se tait, ou traîne, trop longtemps (voir
/// [`silence_excessif`]) ; `seuils` est relu à chaque pas.
async fn surveiller_silence(progression: &Progression, seuils: impl Fn() -> Seuils) -> Silence {
    loop {
        let s = seuils();
        let plus_court = s.corps.min(s.reponse);
        let pas = (plus_court / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
        tokio::time::sleep(pas).await;
        if let Some(silence) = silence_excessif(progression, seuils()) {
            return silence;
        }
    }
}

/// Rend la main quand la tentative a duré `delai`, sans compter le temps que son corps a
/// passé à attendre la limite de débit (`--debit-max`) : sous une limite basse partagée par
/// plusieurs transferts, une partie peut attendre son tour bien plus longtemps que le délai
/// d'une tentative sans que rien n'aille mal.
///
/// Le délai borne la requête et l'attente de la réponse, pas la lecture de son corps : une
/// fois les en-têtes arrivés, il ne court plus. Un corps qui progresse n'est jamais coupé (un
/// CSV de résultats sur un lien lent met le temps qu'il faut) ; celui qui se tait, ou qui
/// coule trop lentement pour finir, l'est par le guet du silence ([`silence_excessif`]), et
/// sa taille est bornée par qui le lit.
async fn delai_hors_retenue(progression: &Progression, delai: Duration) {
    let debut = tokio::time::Instant::now();
    loop {
        if progression.reponse().is_some() {
            return std::future::pending().await;
        }
        let ecoule = debut.elapsed().saturating_sub(progression.temps_retenu());
        match delai.checked_sub(ecoule) {
            Some(reste) if !reste.is_zero() => tokio::time::sleep(reste).await,
            _ => return,
        }
    }
}

pub(crate) use crate::secrets::expurger;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reessai::{RaisonArret, Releve};
    use futures_util::FutureExt;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// La cadence des sondes : douze rapprochées (enveloppe de 0,1 s), puis une enveloppe de
    /// 0,25 s doublée jusqu'à 30 s ; moitié fixe, moitié tirée.
    #[test]
    fn cadence_des_sondes() {
        let ms = Duration::from_millis;
        let cas = [
            (1, 0.0, ms(50)),
            (1, 1.0, ms(100)),
            (12, 0.5, ms(75)),
            (13, 0.0, ms(125)),
            (13, 1.0, ms(250)),
            (14, 0.5, ms(375)),
            (17, 0.0, ms(2000)),
            (20, 1.0, ms(30_000)),
            (20, 0.0, ms(15_000)),
            (u32::MAX, 1.0, ms(30_000)),
        ];
        for (sonde, alea, attendue) in cas {
            assert_eq!(
                attente_avant_sonde(sonde, alea),
                attendue,
                "sonde {sonde}, tirage {alea}"
            );
        }
    }

    #[test]
    fn secrets_masques() {
        let url = "https://b.s3.amazonaws.com/wav/a.wav?AWSAccessKeyId=AKIAXX&Expires=1&Signature=abc%2Bdef";
        let e = expurger(url);
        assert!(!e.contains("AKIAXX") && !e.contains("abc%2Bdef"), "{e}");
        assert!(e.contains("Expires=1"));
        let v4 = "erreur pour http://h/k?X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=deadbeef end";
        let e = expurger(v4);
        assert!(!e.contains("deadbeef") && !e.contains("AKIA%2F"), "{e}");
        assert!(e.ends_with(" end"));
        let e = expurger("Authorization: Basic dG9rZW46\nsuite");
        assert!(!e.contains("dG9rZW46") && e.ends_with("suite"), "{e}");
        assert_eq!(expurger("rien à cacher"), "rien à cacher");
    }

    /// Un corps qui attend la limite de débit (ici, une attente qui ne finit pas) n'est pas
    /// « bloqué » : `--delai-blocage` ne coupe pas un transfert que la limite retient. Sur
    /// l'horloge en pause : les 300 ms passent sans être attendues.
    #[tokio::test(start_paused = true)]
    async fn attente_de_la_limite_n_est_pas_un_blocage() {
        use debit::{DebitMax, HorlogeDebit, LimiteDebit};
        use http_body::Body;

        #[derive(Debug)]
        struct AttenteSansFin;
        impl HorlogeDebit for AttenteSansFin {
            fn maintenant(&self) -> Duration {
                Duration::ZERO
            }
            fn dormir(
                &self,
                _: Duration,
            ) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
                Box::pin(std::future::pending())
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        std::fs::write(&chemin, vec![3u8; 100_000]).unwrap();
        let limite = Arc::new(LimiteDebit::avec_horloge(
            DebitMax::analyser("10Ko/s").unwrap(),
            Box::new(AttenteSansFin),
        ));
        let p = Progression::sous_limite(Some(limite));
        let mut corps = corps::CorpsFichier::ouvrir(
            crate::plateforme::FichierAttendu::nouveau(&chemin, None),
            0,
            100_000,
            p.clone(),
        )
        .await
        .unwrap();
        let mut corps = std::pin::Pin::new(&mut corps);
        // La première tranche est dans le seau ; la seconde attend.
        let premiere = std::future::poll_fn(|cx| corps.as_mut().poll_frame(cx)).await;
        assert!(matches!(premiere, Some(Ok(_))));
        let seconde = std::future::poll_fn(|cx| {
            std::task::Poll::Ready(corps.as_mut().poll_frame(cx).is_pending())
        })
        .await;
        assert!(seconde, "la seconde tranche devait attendre la limite");
        assert!(p.corps_en_cours());
        let seuils = Seuils {
            corps: Duration::from_millis(50),
            reponse: Duration::from_millis(50),
            sonde: Duration::from_millis(50),
        };
        let r = tokio::time::timeout(
            Duration::from_millis(300),
            surveiller_silence(&p, || seuils),
        )
        .await;
        assert!(
            r.is_err(),
            "l'attente de la limite a été prise pour un blocage"
        );
        // Ni pour le délai de la tentative (--delai-tentative), qui courait pendant l'attente.
        let r = tokio::time::timeout(
            Duration::from_millis(300),
            delai_hors_retenue(&p, Duration::from_millis(50)),
        )
        .await;
        assert!(
            r.is_err(),
            "l'attente de la limite a compté dans le délai de la tentative"
        );
        assert!(p.temps_retenu() >= Duration::from_millis(300));
    }

    /// Sur l'horloge en pause : le délai de 50 ms expire, la borne de 5 s n'est qu'un garde.
    #[tokio::test(start_paused = true)]
    async fn le_delai_d_une_tentative_sans_limite_court() {
        let r = tokio::time::timeout(
            Duration::from_secs(5),
            delai_hors_retenue(&Progression::nouveau(), Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_ok());
    }

    /// Le silence toléré à chaque phase d'une tentative, sur l'horloge en pause : le corps
    /// immobile, la réponse qui ne vient pas, qui s'interrompt, qui ne finit pas.
    #[tokio::test(start_paused = true)]
    async fn chaque_silence_a_son_seuil() {
        let s = |ms| Duration::from_millis(ms);
        let seuils = Seuils {
            corps: s(2_000),
            reponse: s(10_000),
            sonde: s(3_000),
        };
        let surveiller = |p: &Arc<Progression>| {
            let p = Arc::clone(p);
            async move {
                let debut = tokio::time::Instant::now();
                let silence = surveiller_silence(&p, || seuils).await;
                (silence, debut.elapsed())
            }
        };
        // Le corps n'avance plus : coupé au seuil du corps.
        let p = Progression::nouveau();
        p.attendre_corps(10);
        let (silence, apres) = surveiller(&p).await;
        assert_eq!(silence, Silence::Corps(s(2_000)));
        assert!(apres >= s(2_000) && apres < s(3_000), "{apres:?}");
        // Sans corps (ou le corps parti), la réponse a son propre seuil, plus long.
        let p = Progression::nouveau();
        let (silence, apres) = surveiller(&p).await;
        assert_eq!(silence, Silence::Reponse(s(10_000)));
        assert!(apres >= s(10_000) && apres < s(11_000), "{apres:?}");
        // Les en-têtes arrivent au compte-gouttes : tant qu'ils ne sont pas complets, c'est
        // une réponse qui ne vient pas.
        // La réponse commence, puis plus rien.
        let p = Progression::nouveau();
        let lecteur = {
            let p = Arc::clone(&p);
            tokio::spawn(async move {
                tokio::time::sleep(s(1_000)).await;
                p.en_tetes(200);
                p.lu_de_la_reponse(100);
            })
        };
        let (silence, apres) = surveiller(&p).await;
        lecteur.await.unwrap();
        assert_eq!(silence, Silence::ReponseInterrompue(s(10_000)));
        assert!(apres >= s(11_000) && apres < s(12_000), "{apres:?}");
        // Une réponse qui coule sans fin, un octet par seconde : abandonnée une fois le délai
        // de réponse passé, comme illisible (le serveur a répondu).
        let p = Progression::nouveau();
        p.en_tetes(200);
        let goutte = {
            let p = Arc::clone(&p);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(s(1_000)).await;
                    p.lu_de_la_reponse(1);
                }
            })
        };
        let (silence, apres) = surveiller(&p).await;
        goutte.abort();
        assert!(
            matches!(silence, Silence::ReponseSansFin { statut: 200, .. }),
            "{silence:?}"
        );
        assert!(apres >= s(10_000) && apres < s(11_000), "{apres:?}");
        assert!(matches!(
            silence.reponse::<()>(),
            ReponseApi::Illisible { statut: 200, .. }
        ));
        // Une réponse longue mais qui arrive à bon débit n'est pas « sans fin ».
        let p = Progression::nouveau();
        p.en_tetes(200);
        let flot = {
            let p = Arc::clone(&p);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(s(100)).await;
                    p.lu_de_la_reponse(50_000);
                }
            })
        };
        let r = tokio::time::timeout(s(60_000), surveiller(&p)).await;
        flot.abort();
        assert!(r.is_err(), "une réponse à 500 Ko/s coupée : {r:?}");
    }

    /// Le guet voit les octets qui arrivent : une réponse qui coule à 300 Ko/s pendant 400 s
    /// (plus que le délai de tentative de `vigie resultats`, 90 s, et que tout silence toléré)
    /// arrive entière, en une tentative ; la même, qui se tait en route, est coupée au silence
    /// toléré par le lien (10 s ici), pas avant, et pas comme une réponse qui ne vient pas.
    /// Sur l'horloge en pause : les 400 s ne s'attendent pas.
    #[tokio::test(start_paused = true)]
    async fn une_reponse_qui_progresse_n_est_jamais_coupee_seul_un_silence_l_est() {
        let s = Duration::from_secs;
        let emetteur = Emetteur::nouveau(
            ReglagesEmission {
                insistant: Reglages::insistant()
                    .avec_tentatives_max(1)
                    .valider()
                    .unwrap(),
                bref: Reglages::bref().valider().unwrap(),
                delai_tentative: s(90),
                delai_blocage: s(30),
                pause: None,
            },
            Annulation::nouveau(),
        );
        // Les en-têtes, puis 30 000 octets toutes les 100 ms ; silencieuse à partir de `tait`.
        let flot = |tait: Option<Duration>| async move {
            corps::reponse_recue(200);
            let debut = tokio::time::Instant::now();
            while debut.elapsed() < s(400) {
                if tait.is_some_and(|t| debut.elapsed() >= t) {
                    std::future::pending::<()>().await;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                corps::reponse_lue(30_000);
            }
            ReponseApi::Succes(())
        };
        let debut = tokio::time::Instant::now();
        let issue = emettre(&emetteur, Emission::lecture("GET", "csv"), |_| flot(None)).await;
        assert_eq!(issue.raison, RaisonArret::Succes, "{issue:?}");
        assert!(debut.elapsed() >= s(400), "{:?}", debut.elapsed());

        let debut = tokio::time::Instant::now();
        let issue = emettre(&emetteur, Emission::lecture("GET", "csv"), |_| {
            flot(Some(s(20)))
        })
        .await;
        let coupee = debut.elapsed();
        assert!(coupee >= s(30) && coupee < s(32), "coupée à {coupee:?}");
        match issue.reponse {
            ReponseApi::Injoignable { detail, .. } => assert!(
                detail.contains("réponse interrompue : plus rien reçu depuis 10 s"),
                "{detail}"
            ),
            autre => panic!("{autre:?}"),
        }
    }

    /// Ce que la veille et les émissions d'un essai ont journalisé.
    #[derive(Default)]
    struct Journal(Mutex<Vec<DecisionJournalisee>>);

    impl ObservateurReessai for Journal {
        fn decision(&self, d: &DecisionJournalisee) {
            self.0.lock().unwrap().push(d.clone());
        }
    }

    /// Retient l'instant où le réseau est annoncé rétabli.
    #[derive(Default)]
    struct Retour(Mutex<Option<tokio::time::Instant>>);

    impl AnnoncesReseau for Retour {
        fn reseau_indisponible(&self, _: Duration, _: Duration) {}
        fn reseau_retabli(&self) {
            self.0
                .lock()
                .unwrap()
                .get_or_insert(tokio::time::Instant::now());
        }
    }

    /// Un émetteur aux réglages par défaut de `vigie depot`, pause réseau sans limite.
    fn emetteur_par_defaut() -> Emetteur {
        Emetteur::nouveau(
            ReglagesEmission {
                insistant: Reglages::insistant()
                    .avec_echeance(crate::reessai::ECHEANCE_DEPOT_PAR_DEFAUT)
                    .valider()
                    .unwrap(),
                bref: Reglages::bref().valider().unwrap(),
                delai_tentative: ReglagesEmission::DELAI_TENTATIVE_PAR_DEFAUT,
                delai_blocage: ReglagesEmission::DELAI_BLOCAGE_PAR_DEFAUT,
                pause: Some(PauseReseau {
                    echecs: PauseReseau::ECHECS_PAR_DEFAUT,
                    attente_max: None,
                }),
            },
            Annulation::nouveau(),
        )
    }

    /// Une requête partie avant une coupure, dont la connexion meurt sans se fermer (le
    /// téléphone a perdu le signal) : pendant la coupure, d'autres émissions échouent
    /// franchement et le réseau est déclaré coupé ; au retour (la sonde répond), la veille
    /// abandonne la requête muette, qui repart aussitôt (rejouable, tentative non comptée) ou
    /// se réconcilie (écriture non rejouable : issue inconnue, relecture), au lieu d'attendre
    /// son délai. Le tout à l'horloge en pause : les instants sont exacts.
    #[tokio::test(start_paused = true)]
    async fn au_retour_du_reseau_les_requetes_d_avant_la_coupure_repartent() {
        for rejouabilite in [Rejouabilite::Rejouable, Rejouabilite::NonRejouable] {
            let emetteur = emetteur_par_defaut();
            let journal = Journal::default();
            let origine = tokio::time::Instant::now();
            let s = Duration::from_secs;
            // Le lien est coupé de 1 s à 6 s.
            let coupe = move || (s(1)..s(6)).contains(&origine.elapsed());
            let refus = || ReponseApi::<()>::Injoignable {
                a_pu_atteindre: false,
                detail: "connexion refusée".into(),
            };
            let muette = async {
                let essais = AtomicU32::new(0);
                let relecture = &mut |_| async { Releve::Faite(()) }.boxed();
                let emission = Emission {
                    profil: Profil::Insistant,
                    operation: Operation::nouveau("PUT", "muette", rejouabilite)
                        .relue_par(relecture),
                };
                let issue = emettre(&emetteur.observe_par(&journal), emission, |_| {
                    let premier = essais.fetch_add(1, Ordering::SeqCst) == 0;
                    async move {
                        if premier {
                            // Partie à 0 s, sur une connexion qui meurt à 1 s.
                            std::future::pending::<()>().await;
                        }
                        ReponseApi::Succes(())
                    }
                })
                .await;
                (issue, origine.elapsed())
            };
            let autres = async {
                tokio::time::sleep(s(2)).await;
                for _ in 0..2 {
                    emettre(
                        &emetteur.observe_par(&journal),
                        Emission::nouveau(
                            "PUT",
                            "autre",
                            Profil::Insistant,
                            Rejouabilite::Rejouable,
                        ),
                        |_| async move {
                            if coupe() {
                                refus()
                            } else {
                                ReponseApi::Succes(())
                            }
                        },
                    )
                    .await;
                }
            };
            let retour = Retour::default();
            let observe = emetteur.observe_par(&journal);
            let veille = veiller(
                &observe,
                || async move {
                    if coupe() {
                        refus()
                    } else {
                        ReponseApi::Succes(())
                    }
                },
                &retour,
            );
            let travail = async { tokio::join!(muette, autres).0 };
            let ((issue, fin), ()) = tokio::select! {
                r = travail => (r, ()),
                () = veille => panic!("la veille s'est arrêtée"),
            };
            assert_eq!(
                issue.raison,
                RaisonArret::Succes,
                "{rejouabilite:?} : {issue:?}"
            );
            // Dès que la veille voit le lien revenu (6 s, et la sonde suivante), pas au bout
            // du délai de blocage (30 s), de réponse (60 s sans mesure) ni de tentative (300 s).
            // La borne vaut pour tout tirage de la gigue : la coupure est déclarée au plus tôt
            // à 2 s ; après les douze sondes rapprochées (au moins 0,6 s), les cinq suivantes
            // attendent au moins 0,125 + 0,25 + 0,5 + 1 + 2 s, et passent donc 6 s : la sonde
            // qui voit le retour attend au plus l'enveloppe de la cinquième, 4 s.
            let retour = retour
                .0
                .lock()
                .unwrap()
                .expect("réseau rétabli")
                .duration_since(origine);
            assert!(retour >= s(6) && retour < s(10), "retour vu à {retour:?}");
            assert!(
                fin >= retour && fin < retour + Duration::from_millis(200),
                "{rejouabilite:?} : fini à {fin:?}, retour vu à {retour:?}"
            );
            let decisions = journal.0.lock().unwrap();
            let abandon = decisions
                .iter()
                .find(|d| d.cible == "muette" && d.detail.contains(DETAIL_ABANDON))
                .unwrap_or_else(|| panic!("abandon non journalisé : {decisions:?}"));
            match rejouabilite {
                Rejouabilite::Rejouable => {
                    assert!(abandon.detail.contains("non comptée"), "{abandon:?}");
                    assert_eq!(issue.tentatives, 1);
                }
                // Une écriture non rejouable n'est pas réémise à l'aveugle : son issue est
                // inconnue, la relecture la lève.
                Rejouabilite::NonRejouable => {
                    assert_eq!(abandon.raison, Some(RaisonArret::IssueInconnue));
                }
            }
        }
    }

    /// Les seuils suivent le lien : quatre fois son silence normal, dix secondes au moins,
    /// jamais plus que les délais donnés ; sans mesure, `--delai-blocage` pour le corps et une
    /// minute pour la réponse.
    #[test]
    fn les_seuils_a_la_mesure_du_lien() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let (blocage, tentative) = (s(30), s(300));
        assert_eq!(
            Seuils::mesures(None, blocage, tentative),
            Seuils {
                corps: s(30),
                reponse: s(60),
                sonde: s(10),
            }
        );
        // Un lien rapide : les planchers.
        assert_eq!(
            Seuils::mesures(Some(ms(40)), blocage, tentative),
            Seuils {
                corps: s(10),
                reponse: s(10),
                sonde: s(3),
            }
        );
        // Un lien lent, où une réponse met 6 s à venir d'ordinaire.
        assert_eq!(
            Seuils::mesures(Some(s(6)), blocage, tentative),
            Seuils {
                corps: s(24),
                reponse: s(24),
                sonde: s(10),
            }
        );
        // Jamais plus que les délais donnés, ni que leurs planchers quand ils sont courts
        // (les essais : --delai-blocage 1, --delai-tentative 2).
        assert_eq!(
            Seuils::mesures(Some(s(60)), blocage, tentative),
            Seuils {
                corps: s(30),
                reponse: s(240),
                sonde: s(10),
            }
        );
        assert_eq!(
            Seuils::mesures(Some(ms(10)), s(1), s(2)),
            Seuils {
                corps: s(1),
                reponse: s(2),
                sonde: s(3),
            }
        );
        assert_eq!(Seuils::mesures(None, s(1), s(2)).reponse, s(2));
    }

    /// Un contexte d'émission qui a son journal et sa progression.
    struct ContexteEssai {
        emetteur: Emetteur,
        journal: Journal,
        en_vol: EnVol,
    }

    impl ContexteEmission for ContexteEssai {
        fn emetteur(&self) -> &Emetteur {
            &self.emetteur
        }

        fn observateur(&self) -> &dyn ObservateurReessai {
            &self.journal
        }

        fn en_vol(&self) -> Option<&EnVol> {
            Some(&self.en_vol)
        }
    }

    /// Le contexte choisit qui observe et où la tentative est comptée : chaque décision va à
    /// son journal, chaque tentative en vol à sa progression, et rien ne reste compté après.
    /// L'émetteur seul (hors plan) émet la même requête sans rien observer.
    #[tokio::test(start_paused = true)]
    async fn le_contexte_choisit_l_observateur_et_la_progression() {
        let contexte = ContexteEssai {
            emetteur: emetteur_par_defaut(),
            journal: Journal::default(),
            en_vol: EnVol::default(),
        };
        let comptees = Mutex::new(Vec::new());
        let tentative = |_| {
            let comptee = contexte.en_vol.courantes.lock().unwrap().len();
            comptees.lock().unwrap().push(comptee);
            let premiere = comptees.lock().unwrap().len() == 1;
            async move {
                if premiere {
                    ReponseApi::Refuse {
                        statut: 503,
                        retry_after: None,
                        detail: "occupé".into(),
                    }
                } else {
                    ReponseApi::Succes(())
                }
            }
        };
        let emission = || Emission::lecture("GET", "/moi");
        let issue = emettre(&contexte, emission(), tentative).await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(*comptees.lock().unwrap(), [1, 1]);
        assert!(contexte.en_vol.courantes.lock().unwrap().is_empty());
        let decisions = contexte.journal.0.lock().unwrap().clone();
        assert_eq!(
            decisions
                .iter()
                .map(|d| (d.cible.as_str(), d.statut, d.raison))
                .collect::<Vec<_>>(),
            [
                ("/moi", Some(503), None),
                ("/moi", None, Some(RaisonArret::Succes))
            ]
        );

        comptees.lock().unwrap().clear();
        let issue = emettre(&contexte.emetteur, emission(), tentative).await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(*comptees.lock().unwrap(), [0, 0]);
        assert_eq!(contexte.journal.0.lock().unwrap().len(), 2);
    }
}
