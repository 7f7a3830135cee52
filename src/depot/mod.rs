//! Le moteur : parallélisme borné, états, reprise, réconciliation.
//!
//! Chaque unité part par le point de passage unique (`transport::emettre`, dans le contexte de
//! l'unité, [`ContexteUnite`]) ; chaque transition
//! d'état est écrite **avant** l'effet qu'elle annonce (`en_cours` avant le premier octet,
//! l'identifiant d'un envoi dès qu'il est connu, chaque partie dès que son ETag est rendu), et
//! une unité n'est `deposee` qu'une fois sa taille et sa somme vérifiées côté destination. Un
//! arrêt à n'importe quel instant (kill -9 compris) laisse donc un plan qui dit vrai, et la
//! relance ne renvoie que ce qui manque : au pis la partie qui était en vol.
//!
//! Le protocole propre à chaque destination vit dans un [`Depositaire`] (`s3.rs`,
//! `vigiechiro.rs`) : le moteur ne connaît que l'ordonnancement, les états et la base. Ce que
//! les deux partagent est écrit ici une fois : l'envoi en plusieurs parties entier (reprise,
//! boucle des parties, fichier changé, finalisation, envoi disparu, règle d'abandon :
//! `parties.rs`, dont chaque destination n'implémente que le port `EnvoiEnParties`), l'écriture émise une fois puis relue
//! ([`crate::transport::Emission::ecriture_relue`]),
//! le fichier qui a changé ([`echec_si_fichier_change`]), le classement d'un échec. Les
//! écritures non rejouables n'y sont émises qu'une fois ; sans réponse, on relit la destination
//! avant toute nouvelle émission. La même réconciliation ouvre chaque reprise : une unité
//! `incertaine` n'a pas de traitement à part. Ce que la plateforme Vigie-Chiro a déjà se relit
//! par [`relecture`], avant toute déclaration.
//!
//! Le moteur ne connaît que des issues génériques : une unité déposée, déjà présente à la
//! destination, en échec, incertaine ; un refus lu par son seul statut ([`RefusLu`]). Chaque
//! destination traduit ses propres réponses (les codes d'erreur S3 dans `s3.rs`, ce qui est
//! propre à la plateforme dans `vigiechiro/`) et fournit sa part du bilan
//! ([`PartieDuBilan`], que le moteur porte sans la lire).
//!
//! Le moteur ne connaît ni indicatif ni clap : il annonce ses événements par le trait `Suivi`.

pub(crate) mod dossier;
#[cfg(test)]
mod essais_reseau;
pub(crate) mod evenements;
pub(crate) mod fabrique;
pub(crate) mod inscription;
pub(crate) mod parallelisme;
mod parties;
pub(crate) mod passage;
pub(crate) mod passages;
pub(crate) mod planification;
mod reglages;
pub(crate) mod relecture;
pub(crate) mod s3;
pub(crate) mod vigiechiro;

pub(crate) use reglages::{ReglageAnnonce, ReglagesDuPassage};

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::destination::PartieDuBilan;
use crate::plan::{
    Base, CauseRefus, DepotPlan, DepotUnite, EntreeJournal, ErreurBase, EtatUnite, ResumePlan,
};
use crate::plateforme::FichierAttendu;
use crate::plateforme::conseil::commande;
use crate::reessai::{
    DecisionJournalisee, Issue, ObservateurReessai, RaisonArret, Releve, ReponseApi,
};
use crate::transport::en_clair::refus_serveur;
use crate::transport::{AnnoncesReseau, ContexteEmission, Emetteur, EnVol};
use evenements::Suivi;

/// Unités ouvertes à la fois, par place de transfert. Vers la plateforme Vigie-Chiro, chaque
/// fichier coûte une déclaration et une finalisation (deux appels d'API, 150 ms et plus de
/// traitement chacun) autour de son PUT : si l'unité tenait sa place du début à la fin, le
/// lien resterait vide pendant ces appels (mesuré : 80 % du lien à 8 Mo/s, `BENCHMARKS.md`).
/// Deux unités par place : pendant que l'une transfère, l'autre déclare ou finalise. Rien
/// n'est relâché de la règle « jamais rejoué à l'aveugle » : chaque unité suit le même
/// chemin qu'avant, seul le moment où elle prend sa place change.
pub(crate) const UNITES_PAR_PLACE: usize = 2;

/// Cadence des annonces de progression.
const CADENCE_PROGRESSION: Duration = Duration::from_millis(250);

/// Pendant que la nuit est illisible (carte retirée), on regarde si elle est revenue à cet
/// intervalle.
const SONDE_NUIT: Duration = Duration::from_secs(1);

/// Ce qu'une destination sait faire d'une unité : la déposer, reprise et réconciliation
/// comprises, en passant par le contexte pour toute émission et toute écriture du plan.
pub(crate) trait Depositaire: Send + Sync + 'static {
    /// Dépose l'unité du contexte, dont le fichier local est [`ContexteUnite::fichier`]
    /// (inchangé depuis la planification : le moteur l'a vérifié ; chaque lecture le vérifie de
    /// nouveau sur le fichier ouvert).
    fn deposer(&self, ctx: &ContexteUnite<'_>)
    -> impl Future<Output = Resultat<IssueUnite>> + Send;

    /// Une requête peu coûteuse pour savoir si la destination répond (réseau rétabli ?).
    /// Toute réponse du serveur, même un refus, dit que le réseau est là.
    fn sonder(&self) -> impl Future<Output = ReponseApi<()>> + Send;

    /// Ce qui est propre à cette destination dans le bilan et les annonces du passage.
    fn partie_du_bilan(&self) -> PartieDuBilan;
}

/// L'attente d'un fichier tenu par un autre programme (voir `Moteur::attendre_le_fichier`) :
/// depuis quand, et combien d'essais, sur toute la vie de l'unité dans le passage.
#[derive(Debug, Default)]
struct AttenteDuFichier {
    debut: Option<tokio::time::Instant>,
    tentatives: u32,
}

/// Ce qu'un passage a fait.
#[derive(Debug, Clone)]
pub(crate) struct Bilan {
    pub(crate) plan: i64,
    pub(crate) resume: ResumePlan,
    pub(crate) deposees: u64,
    pub(crate) octets_envoyes: u64,
    pub(crate) incidents_absorbes: u64,
    pub(crate) duree: Duration,
    pub(crate) interrompu: bool,
    /// Unités que la destination tenait déjà pendant ce passage (déposées par un autre
    /// client, un autre plan, depuis un autre chemin) : rien n'est reparti, elles sont
    /// déposées.
    pub(crate) deja_presentes: u64,
    /// Parmi elles, celles dont le contenu n'a pas pu être comparé au fichier local.
    pub(crate) deja_non_comparees: u64,
    /// Les réglages repris du plan, ou qui remplacent ceux qu'il retenait.
    pub(crate) reglages: ReglagesDuPassage,
    /// Ce qui est propre à la destination, qu'elle fournit (son dépositaire).
    pub(crate) destination: PartieDuBilan,
}

/// L'issue d'une unité pour ce passage.
#[derive(Debug)]
pub(crate) enum IssueUnite {
    Deposee {
        crc32c: String,
        etag: Option<String>,
    },
    Echec {
        definitif: bool,
        cause: CauseRefus,
        message: String,
    },
    Incertaine {
        message: String,
    },
    /// La destination tient déjà ce fichier (déposé par un autre client, un autre plan, une
    /// copie) : rien n'est envoyé, l'unité est déposée. `comparee` : son contenu a été
    /// comparé au fichier local (taille et empreinte identiques) ; sinon, seule sa présence
    /// est sûre.
    DejaPresente {
        crc32c: String,
        etag: Option<String>,
        comparee: bool,
    },
    /// Ctrl-C : l'unité redevient à déposer, ses parties envoyées conservées.
    Interrompue,
}

/// Une erreur de la base arrête le passage (disque plein, base illisible) : continuer
/// mentirait sur ce qui est déposé.
pub(crate) type Resultat<T> = Result<T, ErreurBase>;

/// Ce que le moteur partage entre les unités.
struct Commun {
    base: Mutex<Base>,
    plan: DepotPlan,
    dossier: PathBuf,
    emetteur: Emetteur,
    suivi: Arc<dyn Suivi>,
    /// Les places de transfert (`--paralleles`, ajustées par le régulateur) : une par corps de
    /// fichier ou de partie en route. Une unité ne la tient que le temps de son transfert.
    places: Arc<parallelisme::PlacesAdaptatives>,
    /// Les unités ouvertes à la fois ([`UNITES_PAR_PLACE`] par place) : pendant que certaines
    /// transfèrent, d'autres déclarent, finalisent ou relisent.
    admission: Arc<tokio::sync::Semaphore>,
    octets_envoyes: AtomicU64,
    incidents_absorbes: AtomicU64,
    deja_presentes: AtomicU64,
    deja_non_comparees: AtomicU64,
    /// Ce que la destination ajoute au bilan et aux annonces (voir [`PartieDuBilan`]).
    partie_du_bilan: PartieDuBilan,
    en_vol: Mutex<HashMap<i64, Arc<UniteEnVol>>>,
    /// Le dossier de la nuit est illisible (carte SD retirée, disque débranché) : annoncé une
    /// fois, jusqu'à son retour (voir [`Moteur::attendre_la_nuit`]).
    nuit_absente: AtomicBool,
    /// Le nombre d'absences de la nuit annoncées depuis le début du passage : une unité dont la
    /// lecture a échoué pendant qu'une autre voyait la nuit absente sait que le retrait, et non
    /// le fichier, en est la cause, même si la nuit est déjà revenue quand elle regarde.
    absences_de_la_nuit: AtomicU64,
}

impl Commun {
    fn base(&self) -> MutexGuard<'_, Base> {
        // Une panique en tenant la base ne laisse rien d'incohérent dans SQLite (transactions) :
        // on reprend la connexion telle quelle.
        self.base.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Écrit une décision de réessai dans le journal du plan (`unite` : `None` pour une sonde).
    /// Un échec d'écriture n'arrête pas l'envoi : il est seulement signalé.
    fn journaliser(&self, unite: Option<i64>, d: &DecisionJournalisee) {
        journaliser_decision(&self.base(), self.plan.id, unite, d);
    }
}

/// Écrit une décision de réessai au journal du plan (`unite` : `None` pour ce qui ne touche
/// aucune unité) ; une écriture ratée est dite, jamais fatale.
pub(crate) fn journaliser_decision(
    base: &Base,
    plan_id: i64,
    unite: Option<i64>,
    d: &DecisionJournalisee,
) {
    let entree = EntreeJournal {
        plan_id: Some(plan_id),
        unite_id: unite,
        methode: &d.methode,
        cible: &d.cible,
        tentative: d.tentative,
        statut: d.statut,
        attente_ms: d.attente.map(|a| a.as_millis() as u64),
        budget_restant_ms: d.budget_restant.map(|b| b.as_millis() as u64),
        raison: d.raison.map(|r| r.as_str()),
        detail: &d.detail,
    };
    if let Err(e) = base.journaliser(&entree) {
        tracing::warn!("journal des décisions : {e}");
    }
}

/// Les décisions de réessai d'émissions qui ne touchent aucune unité (la participation d'un
/// plan Vigie-Chiro, la lecture d'une destination S3 avant le passage), gardées le temps de
/// l'émission (la base ne traverse pas un `.await` d'une tâche à l'autre) puis écrites au
/// journal du plan.
#[derive(Default)]
pub(crate) struct DecisionsDuPlan(Mutex<Vec<DecisionJournalisee>>);

impl ObservateurReessai for DecisionsDuPlan {
    fn decision(&self, d: &DecisionJournalisee) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(d.clone());
    }
}

impl DecisionsDuPlan {
    /// Écrit au journal du plan (sans unité) les décisions notées jusqu'ici.
    pub(crate) fn ecrire(&self, base: &Base, plan_id: i64) {
        let decisions = std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for d in &decisions {
            journaliser_decision(base, plan_id, None, d);
        }
    }
}

/// Le moteur d'un passage sur un plan, pour une destination.
pub(crate) struct Moteur<D: Depositaire> {
    commun: Commun,
    depositaire: D,
}

/// Ce que l'affichage peut lire d'une unité en vol.
struct UniteEnVol {
    unite: DepotUnite,
    /// Octets confirmés (parties acquittées).
    confirmes: AtomicU64,
    tentative: EnVol,
}

/// Ce qu'un dépositaire reçoit pour une unité : émettre, écrire le plan, dire ce qui avance.
pub(crate) struct ContexteUnite<'a> {
    commun: &'a Commun,
    vol: &'a UniteEnVol,
    pub(crate) unite: &'a DepotUnite,
    chemin: &'a Path,
}

impl ContexteUnite<'_> {
    /// La base des plans (tenue brièvement : jamais à travers un `.await`).
    pub(crate) fn base(&self) -> MutexGuard<'_, Base> {
        self.commun.base()
    }

    /// Le fichier local de l'unité, tel que le plan l'attend (chemin et identité) : chaque
    /// lecture l'ouvre par là.
    pub(crate) fn fichier(&self) -> FichierAttendu<'_> {
        self.unite.attendu(self.chemin)
    }

    /// Une place de transfert, à tenir le temps d'envoyer un corps (un PUT, une partie) et à
    /// lâcher aussitôt : déclarations, finalisations et relectures n'en prennent pas, le lien
    /// sert pendant ce temps aux transferts des autres unités. Attend son tour (premier
    /// arrivé, premier servi) ; rien si le dépôt est interrompu pendant l'attente (l'émission
    /// qui suit le constate aussitôt).
    pub(crate) async fn place_de_transfert(&self) -> Option<parallelisme::Place> {
        let annulation = self.commun.emetteur.annulation();
        tokio::select! {
            p = self.commun.places.prendre() => p.ok(),
            () = annulation.annulee() => None,
        }
    }

    /// Une place de transfert de plus pour une autre partie de l'unité, s'il en reste une que
    /// nulle unité n'attend (voir `PlacesAdaptatives::essayer_prendre`) : rendue quand elle
    /// est lâchée.
    pub(crate) fn place_de_plus(&self) -> Option<parallelisme::Place> {
        self.commun.places.essayer_prendre()
    }

    /// Des octets de l'unité sont confirmés par la destination (pour la progression).
    pub(crate) fn confirmer(&self, octets: u64) {
        self.vol.confirmes.fetch_add(octets, Ordering::Relaxed);
    }

    /// L'unité repart de zéro dans ce passage (envoi multipart disparu) : ce qui était
    /// confirmé ne l'est plus.
    pub(crate) fn repartir_de_zero(&self) {
        self.vol.confirmes.store(0, Ordering::Relaxed);
    }

    /// Le dépôt est-il interrompu (Ctrl-C, DURÉE écoulée) ?
    pub(crate) fn interrompu(&self) -> bool {
        self.commun.emetteur.annulation().est_annulee()
    }

    /// Attend `duree`, ou moins si le dépôt est interrompu (Ctrl-C, DURÉE écoulée) : rend
    /// faux dans ce cas.
    pub(crate) async fn patienter(&self, duree: Duration) -> bool {
        let annulation = self.commun.emetteur.annulation();
        tokio::select! {
            () = tokio::time::sleep(duree) => !annulation.est_annulee(),
            () = annulation.annulee() => false,
        }
    }

    /// Des octets sont partis et ont été acquittés pendant ce passage (pour le bilan).
    pub(crate) fn octets_envoyes(&self, octets: u64) {
        self.commun
            .octets_envoyes
            .fetch_add(octets, Ordering::Relaxed);
    }

    /// Une partie est acquittée par la destination : notée aussitôt dans le plan (une relance
    /// ne la renverra pas), comptée dans la progression et dans le bilan.
    pub(crate) fn partie_acquittee(
        &self,
        numero: u32,
        debut: u64,
        taille: u64,
        etag: &str,
        crc32c: u32,
    ) -> Resultat<()> {
        self.base().enregistrer_partie(
            self.unite.id,
            &crate::plan::PartieEnvoi {
                numero,
                debut,
                taille,
                etag: Some(etag.to_owned()),
                somme_controle: Some(crate::transport::corps::crc32c_base64(crc32c)),
                envoyee: true,
            },
        )?;
        self.confirmer(taille);
        self.octets_envoyes(taille);
        Ok(())
    }

    /// Le plan vu de l'unité, pour émettre ce qui le concerne tout entier (l'inventaire
    /// distant, que lit la première unité et qu'attendent les autres) : les décisions sont
    /// journalisées pour le plan, et l'affichage de l'unité n'annonce pas ses réessais.
    pub(crate) fn pour_le_plan(&self) -> ContextePlan<'_> {
        ContextePlan {
            commun: self.commun,
        }
    }
}

/// Une émission de l'unité ([`crate::transport::emettre`]) : chaque décision est journalisée
/// pour l'unité, ses réessais annoncés par son affichage, ses tentatives comptées dans sa
/// progression.
impl ContexteEmission for ContexteUnite<'_> {
    fn emetteur(&self) -> &Emetteur {
        &self.commun.emetteur
    }

    fn observateur(&self) -> &dyn ObservateurReessai {
        self
    }

    fn en_vol(&self) -> Option<&EnVol> {
        Some(&self.vol.tentative)
    }
}

/// Journalise les décisions de réessai de l'unité dans la base et prévient le suivi.
impl ObservateurReessai for ContexteUnite<'_> {
    fn nouvelle_tentative(&self, tentative: u32, attente: Duration) {
        self.commun
            .suivi
            .nouvelle_tentative(self.unite, tentative, attente);
    }

    fn decision(&self, d: &DecisionJournalisee) {
        // Une nouvelle tentative, ou une écriture partie sans réponse (que la réconciliation
        // rattrape d'ordinaire) : un incident du passage. Le bilan ne le dit « rattrapé » que si
        // tout a fini déposé.
        if matches!(d.raison, None | Some(RaisonArret::IssueInconnue)) {
            self.commun
                .incidents_absorbes
                .fetch_add(1, Ordering::Relaxed);
        }
        self.commun.journaliser(Some(self.unite.id), d);
    }
}

impl<D: Depositaire> Moteur<D> {
    pub(crate) fn nouveau(
        base: Base,
        plan: DepotPlan,
        depositaire: D,
        emetteur: Emetteur,
        suivi: Arc<dyn Suivi>,
        paralleles: usize,
    ) -> Self {
        Moteur {
            commun: Commun {
                dossier: PathBuf::from(&plan.dossier),
                base: Mutex::new(base),
                plan,
                emetteur,
                suivi,
                // `--paralleles` est un plafond : le régulateur (`parallelisme.rs`) ajuste les
                // places.
                places: parallelisme::PlacesAdaptatives::nouvelles(paralleles),
                admission: Arc::new(tokio::sync::Semaphore::new(
                    paralleles.max(1) * UNITES_PAR_PLACE,
                )),
                octets_envoyes: AtomicU64::new(0),
                incidents_absorbes: AtomicU64::new(0),
                deja_presentes: AtomicU64::new(0),
                deja_non_comparees: AtomicU64::new(0),
                partie_du_bilan: depositaire.partie_du_bilan(),
                en_vol: Mutex::new(HashMap::new()),
                nuit_absente: AtomicBool::new(false),
                absences_de_la_nuit: AtomicU64::new(0),
            },
            depositaire,
        }
    }

    /// Dépose les unités à déposer, interrompues, incertaines et en échec transitoire.
    pub(crate) async fn executer(self: &Arc<Self>) -> Resultat<Bilan> {
        let c = &self.commun;
        let debut = Instant::now();
        let mut unites: Vec<DepotUnite> = c
            .base()
            .unites(
                c.plan.id,
                &[
                    EtatUnite::ADeposer,
                    EtatUnite::EnCours,
                    EtatUnite::Incertaine,
                    EtatUnite::Echec,
                ],
            )?
            .into_iter()
            .filter(|u| !u.echec_definitif)
            .collect();
        // Dans l'ordre des chemins, c'est-à-dire celui des enregistrements de la nuit (les noms
        // portent la date et l'heure). Un gros fichier parti en dernier ne finit pas seul : quand
        // il reste moins de fichiers que de places, ses parties partent ensemble
        // (`parties::envoyer_parties`). Envoyer les plus gros d'abord, comme avant, mettait les parties
        // de 5 Mio et plus en vol au moment où le régulateur du parallélisme ne connaît pas
        // encore le lien : sur un lien qui coupe, la première coupure perdait quatre parties
        // (24 Mio au banc du lien strict) au lieu de quatre petits fichiers.
        unites.sort_by(|a, b| a.chemin.cmp(&b.chemin));
        c.suivi
            .debut(unites.len() as u64, unites.iter().map(|u| u.taille).sum());
        c.base().toucher_plan(c.plan.id)?;

        let progression = tokio::spawn(Arc::clone(self).annoncer_progression());
        let veilleur = tokio::spawn(Arc::clone(self).veiller_reseau());
        let pilote = tokio::spawn(parallelisme::piloter(
            Arc::clone(self),
            Arc::clone(&c.places),
        ));
        let mut taches: JoinSet<Resultat<bool>> = JoinSet::new();
        let mut erreur = None;
        let mut deposees = 0;
        let annulation = c.emetteur.annulation().clone();
        for unite in unites {
            let place = tokio::select! {
                p = Arc::clone(&c.admission).acquire_owned() => p,
                () = annulation.annulee() => break,
            };
            let Ok(place) = place else { break };
            if annulation.est_annulee() {
                break;
            }
            // Récolte au fil de l'eau : une erreur de base arrête tout.
            while let Some(fini) = taches.try_join_next() {
                match fini {
                    Ok(Ok(d)) => deposees += u64::from(d),
                    Ok(Err(e)) => erreur = Some(e),
                    Err(e) => tracing::error!("tâche d'envoi interrompue : {e}"),
                }
            }
            if erreur.is_some() {
                break;
            }
            let moteur = Arc::clone(self);
            taches.spawn(async move {
                let r = moteur.traiter(unite).await;
                drop(place);
                r
            });
        }
        while let Some(fini) = taches.join_next().await {
            match fini {
                Ok(Ok(d)) => deposees += u64::from(d),
                Ok(Err(e)) => erreur = erreur.or(Some(e)),
                Err(e) => tracing::error!("tâche d'envoi interrompue : {e}"),
            }
        }
        progression.abort();
        veilleur.abort();
        pilote.abort();
        if let Some(e) = erreur {
            return Err(e);
        }
        let resume = c.base().resume(c.plan.id)?;
        Ok(Bilan {
            plan: c.plan.id,
            resume,
            deposees,
            octets_envoyes: c.octets_envoyes.load(Ordering::Relaxed),
            incidents_absorbes: c.incidents_absorbes.load(Ordering::Relaxed),
            duree: debut.elapsed(),
            interrompu: annulation.est_annulee()
                && !c.emetteur.reseau().est_abandonne()
                && c.emetteur.certificat_refuse().is_none(),
            deja_presentes: c.deja_presentes.load(Ordering::Relaxed),
            deja_non_comparees: c.deja_non_comparees.load(Ordering::Relaxed),
            reglages: ReglagesDuPassage::default(),
            destination: c.partie_du_bilan.clone(),
        })
    }

    /// La veille du réseau du passage (voir [`crate::transport::veiller`]) : la sonde est celle du
    /// dépositaire, ses décisions vont au journal du plan.
    async fn veiller_reseau(self: Arc<Self>) {
        let c = &self.commun;
        crate::transport::veiller(
            &ContextePlan { commun: c },
            || self.depositaire.sonder(),
            &AnnoncesSuivi(c.suivi.as_ref()),
        )
        .await;
    }

    /// La nuit est devenue illisible pendant le dépôt (carte SD retirée, disque débranché) :
    /// l'annonce (une fois pour toutes les unités), puis attend qu'elle revienne, sans limite ;
    /// Ctrl-C ou la durée de `--jusqu-au-bout` arrêtent l'attente (rend faux). Aucune tentative
    /// n'est consommée pendant ce temps, et rien n'est marqué en échec.
    async fn attendre_la_nuit(&self) -> bool {
        let c = &self.commun;
        if !c.nuit_absente.swap(true, Ordering::SeqCst) {
            c.absences_de_la_nuit.fetch_add(1, Ordering::SeqCst);
            c.suivi.nuit_indisponible(&c.dossier);
        }
        let annulation = c.emetteur.annulation();
        loop {
            if nuit_lisible(&c.dossier) {
                if c.nuit_absente.swap(false, Ordering::SeqCst) {
                    c.suivi.nuit_retrouvee(&c.dossier);
                }
                return true;
            }
            tokio::select! {
                () = tokio::time::sleep(SONDE_NUIT) => {}
                () = annulation.annulee() => return false,
            }
        }
    }

    /// Un fichier qu'un autre programme tient sans en partager l'accès (sous Windows, un
    /// lecteur audio, l'aperçu de l'explorateur, un antivirus qui l'examine : quelques
    /// secondes, d'ordinaire) est attendu sous la politique de réessai des opérations qu'on
    /// attend (INSISTANT, `--tentatives`, `--attente-base`…), pendant que le reste de la nuit
    /// part : seule cette unité attend. Chaque attente est annoncée et journalisée comme une
    /// nouvelle tentative (méthode `OUVRIR`). Rend `None` dès qu'il se lit ; l'échec
    /// transitoire qui le dit (en mots de Windows, « fermez-le ») si la politique s'arrête ;
    /// `Interrompue` sur Ctrl-C. Hors de Windows, aucun fichier n'est tenu ainsi : rend `None`
    /// sans rien ouvrir.
    async fn attendre_le_fichier(
        &self,
        ctx: &ContexteUnite<'_>,
        attente: &mut AttenteDuFichier,
    ) -> Option<IssueUnite> {
        use crate::reessai::{Decision, Rejouabilite, SourceAlea};
        let c = &self.commun;
        loop {
            let e = crate::plateforme::tenu_par_un_autre_programme(ctx.chemin)?;
            let debut = *attente.debut.get_or_insert_with(tokio::time::Instant::now);
            let detail = crate::sortie::erreur_systeme(&e);
            // Rien n'est parti : une réponse « injoignable » qui n'a atteint personne, que la
            // politique rejoue tant que son nombre de tentatives et son échéance le permettent.
            let reponse: ReponseApi<()> = ReponseApi::Injoignable {
                a_pu_atteindre: false,
                detail: detail.clone(),
            };
            attente.tentatives += 1;
            let politique = c.emetteur.politique_insistante();
            let ecoule = debut.elapsed();
            let decision = politique.decider(
                &reponse,
                Rejouabilite::Rejouable,
                attente.tentatives,
                ecoule,
                crate::reessai::AleaSysteme.tirer(),
            );
            let (pause, raison) = match decision {
                Decision::Rejouer { attente, .. } => (Some(attente), None),
                Decision::Arreter { raison } => (None, Some(raison)),
            };
            ctx.decision(&DecisionJournalisee {
                methode: "OUVRIR".to_owned(),
                cible: ctx.unite.chemin.clone(),
                tentative: attente.tentatives,
                budget_restant: politique.budget_restant(ecoule),
                statut: None,
                attente: pause,
                raison,
                detail: detail.clone(),
            });
            let Some(pause) = pause else {
                return Some(IssueUnite::Echec {
                    definitif: false,
                    cause: CauseRefus::Local,
                    message: format!(
                        "{detail}, puis {} (toujours ouvert après {} s d'attente)",
                        commande("retenter-echecs"),
                        ecoule.as_secs()
                    ),
                });
            };
            ctx.nouvelle_tentative(attente.tentatives + 1, pause);
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = c.emetteur.annulation().annulee() => return Some(IssueUnite::Interrompue),
            }
        }
    }

    async fn annoncer_progression(self: Arc<Self>) {
        let c = &self.commun;
        loop {
            tokio::time::sleep(CADENCE_PROGRESSION).await;
            let en_vol: Vec<Arc<UniteEnVol>> = match c.en_vol.lock() {
                Ok(m) => m.values().cloned().collect(),
                Err(_) => continue,
            };
            for u in en_vol {
                let octets = u.confirmes.load(Ordering::Relaxed) + u.tentative.octets();
                c.suivi.progression(&u.unite, octets.min(u.unite.taille));
            }
        }
    }

    /// Traite une unité de bout en bout et persiste son issue. Rend vrai si elle est déposée.
    async fn traiter(self: &Arc<Self>, unite: DepotUnite) -> Resultat<bool> {
        let c = &self.commun;
        c.base().marquer_en_cours(unite.id)?;
        c.suivi.unite_commencee(&unite);
        let vol = Arc::new(UniteEnVol {
            unite: unite.clone(),
            confirmes: AtomicU64::new(0),
            tentative: EnVol::default(),
        });
        if let Ok(mut m) = c.en_vol.lock() {
            m.insert(unite.id, Arc::clone(&vol));
        }
        let chemin = crate::plateforme::chemins::local(&c.dossier, unite.chemin_lu());
        let mut tenu = AttenteDuFichier::default();
        let issue = loop {
            let absences = c.absences_de_la_nuit.load(Ordering::SeqCst);
            let ctx = ContexteUnite {
                commun: c,
                vol: &vol,
                unite: &unite,
                chemin: &chemin,
            };
            if let Some(abandon) = self.attendre_le_fichier(&ctx, &mut tenu).await {
                break Ok(abandon);
            }
            let issue = match echec_si_fichier_change(&chemin, &unite) {
                Some(echec) => Ok(echec),
                None => self.depositaire.deposer(&ctx).await,
            };
            // Le fichier est illisible parce que la nuit entière l'est (carte retirée) : ce
            // n'est pas un échec du fichier. On attend la nuit, puis l'unité repart (ce que le
            // plan tient déjà, parties acquittées comprises, ne repart pas).
            let echec_local = matches!(
                issue,
                Ok(IssueUnite::Echec {
                    definitif: false,
                    cause: CauseRefus::Local,
                    ..
                })
            );
            if !echec_local {
                break issue;
            }
            // Un autre programme a pris le fichier pendant l'envoi : on l'attend (sous la même
            // politique, qui ne repart pas de zéro), puis l'unité repart.
            if crate::plateforme::tenu_par_un_autre_programme(&chemin).is_some() {
                vol.confirmes.store(0, Ordering::Relaxed);
                continue;
            }
            if nuit_lisible(&c.dossier) {
                // La nuit est là. Si elle a disparu pendant la tentative (une autre unité l'a vue
                // absente, puis elle est revenue avant que celle-ci regarde), l'échec de lecture
                // vient du retrait : l'unité repart. Sinon, c'est le fichier qui ne se lit pas.
                if c.absences_de_la_nuit.load(Ordering::SeqCst) == absences {
                    break issue;
                }
                vol.confirmes.store(0, Ordering::Relaxed);
                continue;
            }
            if !self.attendre_la_nuit().await {
                break Ok(IssueUnite::Interrompue);
            }
            vol.confirmes.store(0, Ordering::Relaxed);
        };
        if let Ok(mut m) = c.en_vol.lock() {
            m.remove(&unite.id);
        }
        let issue = match issue {
            Ok(i) => i,
            Err(e) => {
                // La base refuse d'écrire : on tente de laisser l'unité reprenable, et on arrête.
                let _ = c.base().remettre_a_deposer(unite.id);
                return Err(e);
            }
        };
        let base = c.base();
        match issue {
            IssueUnite::Deposee { crc32c, etag } => {
                base.marquer_deposee(unite.id, &crc32c, etag.as_deref())?;
                drop(base);
                c.suivi.unite_deposee(&unite);
                return Ok(true);
            }
            IssueUnite::DejaPresente {
                crc32c,
                etag,
                comparee,
            } => {
                base.marquer_deposee(unite.id, &crc32c, etag.as_deref())?;
                drop(base);
                c.deja_presentes.fetch_add(1, Ordering::Relaxed);
                if !comparee {
                    c.deja_non_comparees.fetch_add(1, Ordering::Relaxed);
                }
                c.suivi
                    .unite_deja_presente(&unite, comparee, &c.partie_du_bilan);
            }
            IssueUnite::Echec {
                definitif,
                cause,
                message,
            } => {
                base.marquer_echec(unite.id, definitif, cause, &message)?;
                drop(base);
                c.suivi.unite_en_echec(&unite, cause, definitif, &message);
            }
            IssueUnite::Incertaine { message } => {
                base.marquer_incertaine(unite.id, &message)?;
                drop(base);
                c.suivi.unite_incertaine(&unite, &message);
            }
            // Réseau abandonné (`--attente-reseau` dépassée) : l'unité n'a pas pu partir,
            // échec transitoire.
            IssueUnite::Interrompue if c.emetteur.reseau().est_abandonne() => {
                let message = format!(
                    "réseau indisponible depuis plus de {} s (--attente-reseau) : {} quand il \
                     reviendra",
                    c.emetteur.attente_reseau().unwrap_or_default().as_secs(),
                    commande("retenter-echecs")
                );
                base.marquer_echec(unite.id, false, CauseRefus::Reseau, &message)?;
                drop(base);
                c.suivi
                    .unite_en_echec(&unite, CauseRefus::Reseau, false, &message);
            }
            IssueUnite::Interrompue => base.remettre_a_deposer(unite.id)?,
        }
        Ok(false)
    }
}

/// Le dossier de la nuit se lit-il ? Non quand la carte SD ou le disque qui le porte a été
/// retiré (sous Windows, `E:\` n'existe plus ou « le périphérique n'est pas prêt » ; sous Linux
/// et macOS, le point de montage disparaît ou se vide de ce dossier).
fn nuit_lisible(dossier: &Path) -> bool {
    std::fs::read_dir(dossier).is_ok()
}

/// Une partie déjà acquittée, réutilisable telle quelle à la reprise : à la même place, de la
/// même taille, avec son ETag et sa somme notés. Rend l'ETag et la CRC32C.
pub(crate) fn partie_reutilisable(
    p: Option<&crate::plan::PartieEnvoi>,
    debut: u64,
    taille: u64,
) -> Option<(&str, u32)> {
    let p = p.filter(|p| p.debut == debut && p.taille == taille)?;
    let crc = p
        .somme_controle
        .as_deref()
        .and_then(crate::transport::corps::crc32c_depuis_base64)?;
    Some((p.etag.as_deref()?, crc))
}

/// Le fichier a-t-il changé (taille, date, identité) depuis la planification ?
pub(crate) fn fichier_change(chemin: &Path, unite: &DepotUnite) -> Option<String> {
    // Sans suivre de lien : un lien glissé à la place du fichier est un changement, pas le
    // fichier (voir `plateforme`).
    match std::fs::symlink_metadata(chemin) {
        Ok(m) if m.file_type().is_symlink() => {
            Some("le fichier a été remplacé par un lien symbolique, qui n'est pas suivi".into())
        }
        Ok(m) if !m.file_type().is_file() => Some("ce n'est plus un fichier ordinaire".into()),
        // Une identité illisible (sous Windows, un fichier qu'un autre programme tient ouvert
        // sans partage) n'est pas un remplacement : seules deux identités qui diffèrent le sont.
        Ok(_)
            if unite.identite.as_deref().is_some_and(|attendue| {
                crate::plateforme::identite_du_chemin(chemin)
                    .is_some_and(|trouvee| trouvee != attendue)
            }) =>
        {
            Some("le fichier a été remplacé par un autre (même nom, autre fichier)".into())
        }
        Err(e) => Some(format!(
            "fichier illisible ou disparu ({})",
            crate::sortie::erreur_systeme(&e)
        )),
        Ok(m) if m.len() != unite.taille_lue() => Some(format!(
            "le fichier a changé de taille ({} → {} octets)",
            unite.taille_lue(),
            m.len()
        )),
        Ok(m) if crate::plateforme::modifie_ns(&m) != unite.modifie_ns => {
            Some("le fichier a été modifié".into())
        }
        Ok(_) => None,
    }
}

/// Le fichier a changé depuis sa planification (avant son envoi, ou pendant) : un échec
/// local, à replanifier. Vérifié avant le premier octet et avant toute finalisation (une
/// finalisation est définitive : jamais pour une tranche qui n'est plus le fichier), avec le
/// même message partout.
pub(crate) fn echec_si_fichier_change(chemin: &Path, unite: &DepotUnite) -> Option<IssueUnite> {
    fichier_change(chemin, unite).map(a_replanifier)
}

fn a_replanifier(probleme: String) -> IssueUnite {
    IssueUnite::Echec {
        definitif: false,
        cause: CauseRefus::Local,
        message: format!(
            "{probleme} depuis sa planification : non déposé ; relancez {} pour le \
             replanifier",
            commande("depot")
        ),
    }
}

/// La relecture d'une écriture qui porte sur une chose existante (l'envoi multipart qu'on
/// finalise, l'enregistrement qu'on finalise), une fois écarté le cas où l'écriture est faite :
/// la chose est encore là, l'écriture n'a pas eu lieu ; elle a disparu, l'issue reste inconnue
/// et `disparue` le note (l'unité reprendra de zéro) ; sans réponse, l'issue reste inconnue.
pub(crate) fn releve_si_encore_la<T, U>(
    lu: &ReponseApi<Option<U>>,
    disparue: &AtomicBool,
) -> Releve<T> {
    match lu {
        ReponseApi::Succes(Some(_)) => Releve::Nulle,
        ReponseApi::Succes(None) => {
            disparue.store(true, Ordering::Relaxed);
            Releve::Inconnue
        }
        _ => Releve::Inconnue,
    }
}

/// Une lecture du fichier impossible : un échec local, transitoire (le fichier peut redevenir
/// lisible). Un autre fichier trouvé à l'ouverture à la place du fichier planifié (voir
/// `FichierAttendu::ouvrir`) est dit comme tout fichier changé depuis sa planification.
pub(crate) fn echec_local(e: &std::io::Error) -> IssueUnite {
    if crate::plateforme::est_un_remplacement(e) {
        return a_replanifier(e.to_string());
    }
    IssueUnite::Echec {
        definitif: false,
        cause: CauseRefus::Local,
        message: format!(
            "lecture du fichier impossible : {}",
            crate::sortie::erreur_systeme(e)
        ),
    }
}

/// Un refus qui vient d'un relais entre l'ordinateur et le service (mandataire, antivirus,
/// pare-feu d'entreprise), pas du service : ce qu'il dit, et le geste. `417 Expectation
/// Failed` : le relais ne sait pas traiter la requête telle qu'elle est faite ; `407` : il
/// demande qu'on s'authentifie auprès de lui. Ni l'un ni l'autre ne dit rien du fichier.
fn refus_d_un_relais(statut: u16) -> Option<String> {
    match statut {
        407 => Some(
            "un mandataire (proxy) entre cet ordinateur et le service demande à s'authentifier ; \
             le fichier n'y est pour rien : réessayez depuis un autre réseau, ou réglez le \
             mandataire"
                .to_owned(),
        ),
        417 => Some(format!(
            "un relais entre cet ordinateur et le service (mandataire, antivirus, réseau \
             d'entreprise) a refusé la requête ; le fichier n'y est pour rien : réessayez plus \
             tard ({}), depuis un autre réseau si cela se répète",
            commande("retenter-echecs")
        )),
        _ => None,
    }
}

/// Ce qu'une destination lit dans un refus définitif : sa cause, et s'il vaut pour le fichier
/// (`definitif`) ou seulement pour cet envoi (une somme refusée dit une altération en route,
/// pas un fichier fautif : pas de rejeu automatique, règle des 4xx, mais `retenter-echecs` le
/// relancera). Le moteur n'en connaît que la lecture générique, par le statut
/// ([`RefusLu::du_statut`]) ; chaque destination traduit ses propres réponses (les codes
/// d'erreur S3 : `s3::lire_refus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RefusLu {
    pub(crate) cause: CauseRefus,
    pub(crate) definitif: bool,
}

impl RefusLu {
    /// La lecture générique d'un refus, par son seul statut (0 : refusé avant d'être émis).
    pub(crate) fn du_statut(statut: u16) -> RefusLu {
        let cause = match statut {
            0 => CauseRefus::Local,
            401 => CauseRefus::Authentification,
            403 => CauseRefus::Droits,
            404 => CauseRefus::Stockage,
            // Une redirection non suivie : c'est l'adresse ou le serveur qui est en cause ; un
            // relais qui refuse (407, 417), ce n'est pas le fichier.
            300..=399 | 407 | 417 => CauseRefus::Serveur,
            _ => CauseRefus::Contenu,
        };
        RefusLu {
            cause,
            definitif: statut != 0,
        }
    }
}

/// Comment une destination lit un refus définitif (statut, détail du corps).
pub(crate) type LireRefus = fn(u16, &str) -> RefusLu;

/// L'échec d'une émission qui n'a pas abouti ; un refus définitif lu par `lire_refus`, celle
/// de la destination.
pub(crate) fn echec_de<T>(issue: &Issue<T>, lire_refus: LireRefus) -> IssueUnite {
    let detail = issue.reponse.detail().unwrap_or_default().to_owned();
    match (&issue.raison, &issue.reponse) {
        (RaisonArret::Annule, _) => IssueUnite::Interrompue,
        // Un certificat refusé n'est pas la faute du fichier : rien n'est parti, le passage
        // s'arrête (voir `Emetteur::certificat_refuse`), l'unité redevient à déposer.
        (_, ReponseApi::CertificatRefuse { .. }) => IssueUnite::Interrompue,
        (RaisonArret::IssueInconnue, _) => IssueUnite::Incertaine {
            message: format!("écriture sans réponse : {detail}"),
        },
        // Un relais refuse la requête, pas le service : le fichier n'y est pour rien. Pas de
        // rejeu dans le passage (règle des 4xx), mais un échec transitoire, que
        // `retenter-echecs` reprend.
        (RaisonArret::RefusDefinitif, ReponseApi::Refuse { statut, .. })
            if let Some(relais) = refus_d_un_relais(*statut) =>
        {
            IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Serveur,
                message: format!("{relais} ({statut}) : {detail}"),
            }
        }
        (RaisonArret::RefusDefinitif, ReponseApi::Refuse { statut, .. }) => {
            let RefusLu { cause, definitif } = lire_refus(*statut, &detail);
            let message = if *statut == 0 {
                detail
            } else {
                format!("refusé ({statut}) : {}", refus_serveur(*statut, &detail))
            };
            IssueUnite::Echec {
                definitif,
                cause,
                message,
            }
        }
        (raison, reponse) => {
            let cause = match reponse {
                ReponseApi::Refuse { .. } | ReponseApi::Illisible { .. } => CauseRefus::Serveur,
                _ => CauseRefus::Reseau,
            };
            let detail = match reponse.statut() {
                Some(s) => refus_serveur(s, &detail).into_owned(),
                None => detail,
            };
            let statut = reponse
                .statut()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            IssueUnite::Echec {
                definitif: false,
                cause,
                message: format!(
                    "{} après {}{statut} : {detail}",
                    raison.en_clair(),
                    crate::texte::pluriel(u64::from(issue.tentatives), "tentative", "tentatives")
                ),
            }
        }
    }
}

/// Les annonces de la veille du réseau, faites par le suivi du passage.
pub(crate) struct AnnoncesSuivi<'a>(pub(crate) &'a dyn Suivi);

impl AnnoncesReseau for AnnoncesSuivi<'_> {
    fn reseau_indisponible(&self, depuis: Duration, attente: Duration) {
        self.0.reseau_indisponible(depuis, attente);
    }

    fn reseau_retabli(&self) {
        self.0.reseau_retabli();
    }
}

/// Le plan d'un passage, comme contexte d'émission : les décisions, qui ne touchent aucune
/// unité (sondes du réseau, inventaire distant), sont journalisées dans la base pour le plan.
pub(crate) struct ContextePlan<'a> {
    commun: &'a Commun,
}

impl ContexteEmission for ContextePlan<'_> {
    fn emetteur(&self) -> &Emetteur {
        &self.commun.emetteur
    }

    fn observateur(&self) -> &dyn ObservateurReessai {
        self
    }
}

impl ObservateurReessai for ContextePlan<'_> {
    fn decision(&self, d: &DecisionJournalisee) {
        self.commun.journaliser(None, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Le moteur ne lit un refus que par son statut : les codes d'erreur S3 sont lus par
    /// la destination (`s3::lire_refus`).
    #[test]
    fn causes_par_le_seul_statut() {
        let cause = |statut| RefusLu::du_statut(statut).cause;
        assert_eq!(cause(403), CauseRefus::Droits);
        assert_eq!(cause(401), CauseRefus::Authentification);
        assert_eq!(cause(404), CauseRefus::Stockage);
        assert_eq!(cause(301), CauseRefus::Serveur);
        assert_eq!(cause(417), CauseRefus::Serveur);
        assert_eq!(cause(422), CauseRefus::Contenu);
        assert_eq!(cause(0), CauseRefus::Local);
        assert!(RefusLu::du_statut(400).definitif);
        assert!(!RefusLu::du_statut(0).definitif, "refusé avant d'être émis");
    }
}
