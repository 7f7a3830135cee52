//! Le point de passage unique de toutes les émissions réseau.
//!
//! Chaque appel vers la destination passe par [`Emetteur::emettre`], qui applique la
//! `PolitiqueReessai` avec le profil et la rejouabilité **déclarés à l'appel** (l'idempotence est
//! une décision d'appelant, `seeds/000`). Aucun appel ne le contourne : les réessais internes du
//! SDK AWS sont coupés (`s3.rs`), sinon ils s'ajouteraient aux nôtres hors de tout budget.
//!
//! L'émetteur ajoute à la boucle de réessai ce qui touche au monde réel : le délai de chaque
//! tentative, la coupure d'un transfert qui n'avance plus, l'arrêt sur Ctrl-C, et la pause
//! globale quand le réseau tombe, avec la veille qui sonde son retour ([`Emetteur::veiller`],
//! [`Emetteur::sous_veille`]) : toute commande qui déclare une pause la mène sous cette veille,
//! sinon une émission attendrait pour toujours un réseau que personne ne sonde.

pub mod corps;
pub mod debit;
pub mod en_clair;
pub mod reseau;
pub mod s3;
pub mod vigiechiro;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::reessai::{
    AleaSysteme, Annulation, Cadre, DecisionJournalisee, Etape, Issue, ObservateurReessai,
    Operation, PolitiqueReessai, Profil, Reglages, Rejouabilite, Releve, ReponseApi, SansBudget,
    SeauJetons, SourceAlea, TemporisateurTokio, executer, executer_reconcilie,
};
use corps::Progression;
use reseau::{Reseau, TemporisateurHorsPause};

/// Le plafond de tout corps de réponse lu en mémoire (API et S3) : une réponse de la
/// plateforme ou du service tient en quelques centaines de Kio (une page de 100 participations,
/// 1 000 parties d'un envoi). Au-delà, c'est une erreur du serveur ou une réponse hostile :
/// « réponse trop grande », sans lire plus loin.
pub const CORPS_REPONSE_MAX: usize = 4 * 1024 * 1024;

/// Le détail d'une réponse dont le corps dépasse [`CORPS_REPONSE_MAX`].
pub fn detail_reponse_trop_grande(statut: u16) -> String {
    format!(
        "réponse trop grande (statut {statut}, plus de {} Mio) : lecture abandonnée",
        CORPS_REPONSE_MAX / (1024 * 1024)
    )
}

/// La pause globale quand le réseau tombe.
#[derive(Debug, Clone, Copy)]
pub struct PauseReseau {
    /// Échecs réseau de suite (sans réponse du serveur) qui déclarent le réseau coupé.
    pub echecs: u32,
    /// Au-delà, la coupure arrête le passage ; `None` : aucune limite, la veille guette le
    /// retour du réseau aussi longtemps qu'il le faut (Ctrl-C, ou la fin de
    /// `--jusqu-au-bout=DURÉE`, l'arrêtent).
    pub attente_max: Option<Duration>,
}

/// Réglages de l'émetteur.
#[derive(Debug, Clone)]
pub struct ReglagesEmission {
    pub insistant: PolitiqueReessai,
    pub bref: PolitiqueReessai,
    /// Délai maximal d'une tentative (requête et réponse).
    pub delai_tentative: Duration,
    /// Un corps qui n'avance plus depuis ce délai est coupé (la tentative échoue, rejouable).
    pub delai_blocage: Duration,
    /// La pause réseau ; `None` : aucune, chaque émission s'arrête sur sa politique (commandes
    /// ponctuelles, où quelqu'un attend la réponse).
    pub pause: Option<PauseReseau>,
}

/// Ce que la veille du réseau annonce (la barre de progression, les lignes d'événements).
pub trait AnnoncesReseau: Send + Sync {
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
/// Délai d'une sonde.
const SONDE_DELAI: Duration = Duration::from_secs(10);

/// Une émission : ce que l'appelant déclare.
#[derive(Debug, Clone, Copy)]
pub struct Emission<'a> {
    /// Méthode ou opération (`PutObject`, `UploadPart`…), pour le journal.
    pub methode: &'a str,
    /// Cible sans secret (clé d'objet, chemin d'API), pour le journal.
    pub cible: &'a str,
    pub profil: Profil,
    pub rejouabilite: Rejouabilite,
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
pub struct EnVol {
    courantes: Mutex<Vec<Arc<Progression>>>,
}

impl EnVol {
    /// Octets passés au client HTTP par les tentatives en cours (0 entre deux tentatives).
    pub fn octets(&self) -> u64 {
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
pub struct Emetteur {
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
}

impl Emetteur {
    pub fn nouveau(reglages: ReglagesEmission, annulation: Annulation) -> Self {
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
        }
    }

    /// Soumet tous les corps envoyés à `limite` (`--debit-max`) ; `None` : pas de limite.
    pub fn sous_limite(mut self, limite: Option<Arc<debit::LimiteDebit>>) -> Self {
        if let Some(l) = &limite {
            tracing::info!(
                "débit limité à {} pour tous les envois (--debit-max)",
                l.debit()
            );
        }
        self.debit = limite;
        self
    }

    pub fn annulation(&self) -> &Annulation {
        &self.annulation
    }

    /// L'état du réseau du passage.
    pub fn reseau(&self) -> &Arc<Reseau> {
        &self.reseau
    }

    /// Au-delà de cette coupure, le passage s'arrête ; `None` sans pause réseau, ou sans
    /// limite à la pause.
    pub fn attente_reseau(&self) -> Option<Duration> {
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

    /// Émet sous la politique du profil déclaré. `tentative` reçoit la progression de la
    /// tentative (à passer au corps de la requête) et rend la réponse classée.
    ///
    /// Autour de chaque tentative : la retenue d'un `Retry-After` reçu ailleurs, la pause
    /// globale si le réseau est coupé (la tentative attend la réouverture puis repart, sans être
    /// comptée : une écriture non rejouable qui a pu partir n'est jamais réémise), le délai de
    /// tentative, la coupure d'un corps bloqué, et Ctrl-C.
    pub async fn emettre<T, F, Fut>(
        &self,
        emission: Emission<'_>,
        observateur: &dyn ObservateurReessai,
        en_vol: &EnVol,
        tentative: F,
    ) -> Issue<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        self.emettre_dans(
            &Etape::nouvelle(),
            emission,
            observateur,
            en_vol,
            tentative,
            None::<fn(Etape) -> std::future::Ready<Releve<T>>>,
        )
        .await
    }

    /// Comme [`Emetteur::emettre`], dans le budget d'une étape (voir
    /// [`executer_reconcilie`](crate::reessai::executer_reconcilie)) : une écriture non
    /// rejouable partie sans réponse est relue par `relecture` (dont les émissions puisent dans
    /// la même étape) et réémise si la relecture prouve qu'elle n'a pas eu lieu.
    pub async fn emettre_dans<T, F, Fut, R, RFut>(
        &self,
        etape: &Etape,
        emission: Emission<'_>,
        observateur: &dyn ObservateurReessai,
        en_vol: &EnVol,
        tentative: F,
        relecture: Option<R>,
    ) -> Issue<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
        R: FnMut(Etape) -> RFut,
        RFut: Future<Output = Releve<T>>,
    {
        let politique = match emission.profil {
            Profil::Insistant => &self.reglages.insistant,
            Profil::Bref => &self.reglages.bref,
        };
        let operation = Operation {
            methode: emission.methode,
            cible: emission.cible,
            rejouabilite: emission.rejouabilite,
        };
        // Un Mutex et non un RefCell : le futur doit rester `Send` (tâches du moteur).
        let tentative = Mutex::new(tentative);
        let tentative = &tentative;
        executer_reconcilie(
            &Cadre {
                politique,
                temporisateur: &self.temporisateur,
                alea: &self.alea,
                observateur,
                annulation: &self.annulation,
                budget: self.budget.as_ref(),
            },
            &operation,
            etape,
            |numero| async move {
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
                    let reponse = self.tenter(tentative, en_vol).await;
                    match &reponse {
                        // Une tentative coupée par Ctrl-C ne dit rien du réseau.
                        ReponseApi::Injoignable { .. } if self.annulation.est_annulee() => {}
                        ReponseApi::Injoignable {
                            a_pu_atteindre,
                            detail,
                        } => {
                            let coupe = self.reseau.noter_injoignable();
                            let sans_risque =
                                emission.rejouabilite == Rejouabilite::Rejouable || !a_pu_atteindre;
                            if coupe && sans_risque {
                                // Ni rejeu compté ni arrêt : la tentative attend la réouverture.
                                // Journalisée quand même (ni attente ni raison), pour que le
                                // journal dise aussi ce qu'une coupure a interrompu.
                                observateur.decision(&DecisionJournalisee {
                                    methode: emission.methode.to_owned(),
                                    cible: emission.cible.to_owned(),
                                    tentative: numero,
                                    budget_restant: None,
                                    statut: None,
                                    attente: None,
                                    raison: None,
                                    detail: format!(
                                        "{detail} ; réseau coupé : tentative non comptée, \
                                         reprise à sa réouverture"
                                    ),
                                });
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
            relecture,
        )
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
    /// si l'émetteur n'a pas de pause.
    pub async fn veiller<S, SFut>(
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
                let issue = executer(
                    &Cadre {
                        politique: &POLITIQUE_SONDE,
                        temporisateur: &TemporisateurTokio::new(),
                        alea: &AleaSysteme,
                        observateur,
                        annulation: &self.annulation,
                        budget: &SansBudget,
                    },
                    &Operation {
                        methode: "SONDE",
                        cible: "destination",
                        rejouabilite: Rejouabilite::Rejouable,
                    },
                    |_| async {
                        tokio::time::timeout(SONDE_DELAI, sonder())
                            .await
                            .unwrap_or_else(|_| ReponseApi::Injoignable {
                                a_pu_atteindre: true,
                                detail: "sonde sans réponse".into(),
                            })
                    },
                )
                .await;
                if issue.reponse.serveur_a_repondu() {
                    self.reseau.rouvrir();
                    annonces.reseau_retabli();
                    break;
                }
                sonde = sonde.saturating_add(1);
            }
        }
    }

    /// Mène `travail` sous la veille du réseau ([`Emetteur::veiller`]) et rend son résultat.
    /// Si la veille s'arrête avant (Ctrl-C, réseau abandonné), le travail est mené à son terme :
    /// ses émissions voient l'annulation et s'arrêtent d'elles-mêmes, le plan tenu à jour.
    pub async fn sous_veille<T, S, SFut>(
        &self,
        travail: impl Future<Output = T>,
        sonder: S,
        annonces: &dyn AnnoncesReseau,
        observateur: &dyn ObservateurReessai,
    ) -> T
    where
        S: Fn() -> SFut,
        SFut: Future<Output = ReponseApi<()>>,
    {
        let mut travail = std::pin::pin!(travail);
        tokio::select! {
            biased;
            r = &mut travail => r,
            () = self.veiller(sonder, annonces, observateur) => travail.await,
        }
    }

    /// Une tentative : délai, corps bloqué, Ctrl-C.
    async fn tenter<T, F, Fut>(&self, tentative: &Mutex<F>, en_vol: &EnVol) -> ReponseApi<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let delai = self.reglages.delai_tentative;
        let blocage = self.reglages.delai_blocage;
        let progression = Progression::sous_limite(self.debit.clone());
        let _en_vol = en_vol.commencer(progression.clone());
        let envoi = {
            let mut t = tentative.lock().unwrap_or_else(|e| e.into_inner());
            (t)(progression.clone())
        };
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
                detail: format!("délai de tentative dépassé ({} s)", delai.as_secs_f64()),
            },
            () = surveiller_blocage(&progression, blocage) => ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: format!(
                    "transfert bloqué : aucun octet parti depuis {} s",
                    blocage.as_secs_f64()
                ),
            },
        };
        if matches!(reponse, ReponseApi::Succes(_)) {
            self.reseau.noter_acquittes(progression.octets());
        }
        reponse
    }
}

/// Rend la main quand la tentative a duré `delai`, sans compter le temps que son corps a
/// passé à attendre la limite de débit (`--debit-max`) : sous une limite basse partagée par
/// plusieurs transferts, une partie peut attendre son tour bien plus longtemps que le délai
/// d'une tentative sans que rien n'aille mal.
async fn delai_hors_retenue(progression: &Progression, delai: Duration) {
    let debut = tokio::time::Instant::now();
    loop {
        let ecoule = debut.elapsed().saturating_sub(progression.temps_retenu());
        match delai.checked_sub(ecoule) {
            Some(reste) if !reste.is_zero() => tokio::time::sleep(reste).await,
            _ => return,
        }
    }
}

/// Rend la main quand le corps de la tentative n'avance plus depuis `delai` (jamais tant que
/// le corps n'a pas commencé ou est entièrement parti : l'attente de la réponse relève du délai
/// de tentative).
async fn surveiller_blocage(progression: &Progression, delai: Duration) {
    let pas = (delai / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    loop {
        tokio::time::sleep(pas).await;
        if progression.corps_en_cours() && progression.immobile_depuis() >= delai {
            return;
        }
    }
}

pub use crate::secrets::expurger;

#[cfg(test)]
mod tests {
    use super::*;

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
    /// « bloqué » : `--delai-blocage` ne coupe pas un transfert que la limite retient.
    #[tokio::test]
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
            crate::plateforme::FichierAttendu::new(&chemin, None),
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
        let r = tokio::time::timeout(
            Duration::from_millis(300),
            surveiller_blocage(&p, Duration::from_millis(50)),
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

    #[tokio::test]
    async fn le_delai_d_une_tentative_sans_limite_court() {
        let r = tokio::time::timeout(
            Duration::from_secs(5),
            delai_hors_retenue(&Progression::nouvelle(), Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_ok());
    }

    #[tokio::test]
    async fn blocage_detecte_seulement_pendant_le_corps() {
        let p = Progression::nouvelle();
        // Corps pas commencé : jamais « bloqué ».
        let r = tokio::time::timeout(
            Duration::from_millis(300),
            surveiller_blocage(&p, Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_err());
        p.attendre_corps(10);
        let r = tokio::time::timeout(
            Duration::from_millis(500),
            surveiller_blocage(&p, Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_ok());
    }
}
