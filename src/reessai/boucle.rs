//! La boucle d'exécution : émettre, demander à la politique, annoncer, attendre, recommencer.
//!
//! Pourquoi une boucle à part : la politique ([`PolitiqueReessai::decider`]) est pure et ne dort
//! jamais ; il faut bien quelqu'un pour attendre, prévenir l'utilisateur (« nouvelle tentative
//! dans N s », règle 7 de `docs/politique-reessai.md`), journaliser chaque décision (règle 6) et
//! céder aussitôt à une interruption. C'est ici, une fois, plutôt que chez chaque appelant.
//!
//! Une écriture non rejouable dont l'issue est inconnue peut être **réconciliée** dans la même
//! boucle ([`Operation::relue_par`]) : l'appelant fournit une relecture de la destination ; si elle
//! prouve que l'écriture n'a pas eu lieu, la réémettre est sans risque, et la politique décide
//! quand, comme pour une opération rejouable. L'écriture, sa relecture et sa réémission forment
//! une [`Etape`] : elles partagent un seul budget (tentatives et échéance), si bien qu'un accroc
//! isolé n'arrête jamais l'étape, et qu'une panne durable l'arrête sur une raison de la politique.
//!
//! Ce que la boucle ne fait pas : interrompre une tentative en cours. Abandonner un envoi au
//! milieu rendrait son issue inconnue sans que l'appelant le sache ; c'est donc la tentative
//! elle-même (le transport) qui porte son délai et réagit à l'[`Annulation`]. Ce qu'elle rend après une annulation est gardé : un succès reste
//! un succès.

use std::future::Future;

use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::budget::BudgetReessai;
#[cfg(doc)]
use super::budget::SansBudget;
use super::politique::{Decision, PolitiqueReessai, RaisonArret, Rejouabilite};
use super::reponse::ReponseApi;
use super::temporisateur::{Annulation, SourceAlea, Temporisateur};

/// Ce qu'on émet : l'opération telle qu'elle apparaîtra dans le journal, sa rejouabilité, et,
/// pour une écriture non rejouable, l'étape dont elle partage le budget et la relecture qui lève
/// son issue inconnue (voir [`executer`]).
pub(crate) struct Operation<'a, T> {
    /// Méthode HTTP (`PUT`, `POST`…).
    pub(crate) methode: &'a str,
    /// La cible, **déjà expurgée** par l'appelant : ni jeton, ni signature d'URL, ni
    /// paramètre de requête secret.
    pub(crate) cible: &'a str,
    /// Sûreté au rejeu, décidée par l'appelant.
    pub(crate) rejouabilite: Rejouabilite,
    /// L'étape déjà entamée (par une écriture dont l'opération est la relecture) dont elle
    /// partage le budget ; `None` : une étape neuve, à elle seule.
    pub(crate) etape: Option<&'a Etape>,
    /// Sans réponse, une écriture non rejouable est relue par là ; `None` : sans relecture,
    /// l'issue inconnue est rendue à l'appelant.
    pub(crate) relecture: Option<Relecture<'a, T>>,
}

impl<'a, T> Operation<'a, T> {
    /// Une opération dans une étape neuve, sans relecture.
    pub(crate) fn nouveau(methode: &'a str, cible: &'a str, rejouabilite: Rejouabilite) -> Self {
        Operation {
            methode,
            cible,
            rejouabilite,
            etape: None,
            relecture: None,
        }
    }

    /// Dans le budget d'une étape déjà entamée.
    pub(crate) fn dans(self, etape: &'a Etape) -> Self {
        Operation {
            etape: Some(etape),
            ..self
        }
    }

    /// Relue par `relecture` si elle part sans réponse.
    pub(crate) fn relue_par(self, relecture: Relecture<'a, T>) -> Self {
        Operation {
            relecture: Some(relecture),
            ..self
        }
    }
}

/// Une décision de la boucle, telle qu'on la journalise : jamais de corps, d'en-tête ni de jeton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecisionJournalisee {
    /// Méthode HTTP.
    pub(crate) methode: String,
    /// Cible expurgée.
    pub(crate) cible: String,
    /// Numéro de la dernière tentative faite (0 si l'opération est annulée avant la première).
    pub(crate) tentative: u32,
    /// Ce qui restait avant l'échéance au moment de décider ; `None` sans échéance.
    pub(crate) budget_restant: Option<Duration>,
    /// Statut HTTP de la dernière réponse, s'il y en a un.
    pub(crate) statut: Option<u16>,
    /// Attente retenue avant la prochaine tentative (décision de rejouer).
    pub(crate) attente: Option<Duration>,
    /// Raison de l'arrêt (décision d'arrêter).
    pub(crate) raison: Option<RaisonArret>,
    /// Description de la dernière réponse (vide pour un succès), sans secret.
    pub(crate) detail: String,
}

/// Ce que la boucle annonce à l'extérieur (barre de progression, journal du plan).
pub(crate) trait ObservateurReessai: Send + Sync {
    /// Juste avant d'attendre : la tentative `tentative` partira dans `attente`.
    fn nouvelle_tentative(&self, _tentative: u32, _attente: Duration) {}

    /// Chaque décision, rejouer comme arrêter.
    fn decision(&self, _decision: &DecisionJournalisee) {}
}

/// Un observateur qui ne fait rien, pour les appelants sans affichage.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ObservateurMuet;

impl ObservateurReessai for ObservateurMuet {}

/// L'issue d'une opération : la dernière réponse reçue et pourquoi on s'est arrêté.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue<T> {
    /// La dernière réponse. Annulée avant toute émission : un `Injoignable` dont rien n'est
    /// parti (`a_pu_atteindre: false`).
    pub(crate) reponse: ReponseApi<T>,
    /// Pourquoi la boucle s'est arrêtée.
    pub(crate) raison: RaisonArret,
    /// Nombre de tentatives effectivement lancées.
    pub(crate) tentatives: u32,
}

/// Une étape : les émissions qui partagent un seul budget de la politique (tentatives comptées
/// ensemble, échéance depuis la première). Une écriture non rejouable, la relecture qui lève son
/// issue inconnue et sa réémission en sont une ; une émission ordinaire en est une à elle seule.
/// Se clone à bas coût : les clones désignent la même étape.
#[derive(Debug, Clone, Default)]
pub(crate) struct Etape(Arc<EtatEtape>);

#[derive(Debug, Default)]
struct EtatEtape {
    tentatives: AtomicU32,
    /// Instant (de l'horloge des opérations) de la première tentative.
    debut: OnceLock<Duration>,
}

impl Etape {
    /// Une étape neuve, sans tentative.
    pub(crate) fn nouveau() -> Self {
        Etape::default()
    }

    /// Tentatives lancées dans l'étape, toutes émissions confondues.
    pub(crate) fn tentatives(&self) -> u32 {
        self.0.tentatives.load(Ordering::Relaxed)
    }

    /// Le début de l'étape, fixé à `maintenant` par la première émission.
    fn debut(&self, maintenant: Duration) -> Duration {
        *self.0.debut.get_or_init(|| maintenant)
    }

    /// Réserve la tentative suivante de l'étape et rend son numéro.
    fn prochaine(&self) -> u32 {
        self.0
            .tentatives
            .fetch_add(1, Ordering::Relaxed)
            .saturating_add(1)
    }
}

/// Ce que la relecture de la destination dit d'une écriture partie sans réponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Releve<T> {
    /// L'écriture a eu lieu ; voici ce qu'elle aurait rendu.
    Faite(T),
    /// L'écriture n'a pas eu lieu : la réémettre est sans risque.
    Nulle,
    /// La relecture n'a pas pu trancher (destination injoignable, réponse ambiguë).
    Inconnue,
}

/// Ce dans quoi une opération s'exécute : la politique qui décide, et ce qui touche au monde
/// (horloge, aléa, annulation), l'observateur qui reçoit les annonces et les décisions, et le
/// budget global des réessais. Une structure plutôt que six arguments : l'appelant la construit
/// une fois et la prête à chaque émission.
pub(crate) struct Cadre<'a, H: Temporisateur, A: SourceAlea> {
    /// La politique qui décide de rejouer ou d'arrêter.
    pub(crate) politique: &'a PolitiqueReessai,
    /// L'horloge et l'attente.
    pub(crate) temporisateur: &'a H,
    /// Le tirage de la gigue.
    pub(crate) alea: &'a A,
    /// Prévenu avant chaque attente, et de chaque décision.
    pub(crate) observateur: &'a dyn ObservateurReessai,
    /// Ctrl-C, la durée écoulée, le réseau abandonné.
    pub(crate) annulation: &'a Annulation,
    /// Le budget global d'un passage : épuisé, l'opération s'arrête
    /// (`tentatives_epuisees`) au lieu de rejouer. [`SansBudget`] pour une opération isolée.
    pub(crate) budget: &'a dyn BudgetReessai,
}

/// La relecture d'une écriture non rejouable partie sans réponse : appelée avec l'étape (ses
/// propres émissions puisent dans son budget), elle dit si l'écriture a eu lieu. Une fermeture
/// qui rend un futur en boîte (`async { … }.boxed()`) : « sans relecture » s'écrit `None`.
pub(crate) type Relecture<'r, T> = &'r mut (dyn FnMut(Etape) -> BoxFuture<'r, Releve<T>> + Send);

/// Exécute `tentative(1)`, `tentative(2)`… sous la politique du `cadre`, jusqu'à un arrêt : la
/// seule entrée de la boucle de réessai.
///
/// Avant chaque attente, l'observateur est prévenu de la prochaine tentative et de l'attente.
/// Chaque décision est journalisée par `tracing` et transmise à l'observateur. Une annulation
/// constatée avant un appel ou pendant une attente arrête aussitôt, avec la dernière réponse et la
/// raison [`RaisonArret::Annule`]. Au réveil d'une attente, l'échéance est revérifiée. Chaque
/// réessai est soumis au budget du cadre. Les tentatives sont comptées dans l'[`Etape`] de
/// l'opération (déjà entamée peut-être par d'autres émissions), ou dans une étape neuve.
///
/// Quand la politique conclut à une issue inconnue et que l'opération a une relecture, elle est
/// appelée avec l'étape (ses propres émissions y puisent) :
/// - [`Releve::Faite`] : l'écriture a eu lieu, l'opération est un succès ;
/// - [`Releve::Nulle`] : rien n'a eu lieu ; la réponse est alors jugée comme celle d'une
///   opération rejouable (attente du backoff ou du `Retry-After`, tentatives et échéance de
///   l'étape), puis l'écriture repart ;
/// - [`Releve::Inconnue`] : arrêt sur l'issue inconnue.
///
/// Une seule décision est journalisée par tentative ratée (l'issue inconnue levée par une
/// relecture qui trouve l'écriture faite, le rejeu après une relecture qui la trouve nulle, ou
/// l'arrêt) ; la relecture a les siennes.
pub(crate) async fn executer<T, F, Fut>(
    cadre: &Cadre<'_, impl Temporisateur, impl SourceAlea>,
    op: Operation<'_, T>,
    mut tentative: F,
) -> Issue<T>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = ReponseApi<T>>,
{
    let Operation {
        methode,
        cible,
        rejouabilite,
        etape,
        mut relecture,
    } = op;
    let neuve = Etape::nouveau();
    let etape = etape.unwrap_or(&neuve);
    let Cadre {
        politique,
        temporisateur,
        alea,
        observateur,
        annulation,
        budget,
    } = *cadre;
    let debut = etape.debut(temporisateur.maintenant());
    let ecoule = || temporisateur.maintenant().saturating_sub(debut);
    let journal = Journal {
        politique,
        methode,
        cible,
        observateur,
    };

    if annulation.est_annulee() {
        let reponse = ReponseApi::Injoignable {
            a_pu_atteindre: false,
            detail: "annulé avant le premier envoi".to_owned(),
        };
        return journal.arreter(reponse, RaisonArret::Annule, etape.tentatives(), ecoule());
    }

    loop {
        let numero = etape.prochaine();
        let reponse = tentative(numero).await;
        if reponse.est_succes() {
            budget.noter_succes();
        } else if reponse.est_reessayable() {
            budget.noter_echec();
        }
        let mut ecoule_decision = ecoule();
        let mut decision = politique.decider(
            &reponse,
            rejouabilite,
            etape.tentatives(),
            ecoule_decision,
            alea.tirer(),
        );
        if decision
            == (Decision::Arreter {
                raison: RaisonArret::IssueInconnue,
            })
            && !annulation.est_annulee()
            && let Some(relire) = relecture.as_mut()
        {
            match relire(etape.clone()).await {
                // La tentative a bien fini sur une issue inconnue (c'est sa décision au
                // journal), que la relecture a levée : l'écriture est faite.
                Releve::Faite(valeur) => {
                    journal.noter(
                        &reponse,
                        numero,
                        ecoule_decision,
                        None,
                        Some(RaisonArret::IssueInconnue),
                    );
                    return Issue {
                        reponse: ReponseApi::Succes(valeur),
                        raison: RaisonArret::Succes,
                        tentatives: etape.tentatives(),
                    };
                }
                Releve::Nulle => {
                    tracing::info!(
                        methode,
                        cible,
                        "relecture : l'écriture n'a pas eu lieu, elle peut repartir"
                    );
                    ecoule_decision = ecoule();
                    decision = politique.decider(
                        &reponse,
                        Rejouabilite::Rejouable,
                        etape.tentatives(),
                        ecoule_decision,
                        alea.tirer(),
                    );
                }
                Releve::Inconnue => {}
            }
        }
        let (prochaine, attente) = match decision {
            Decision::Arreter { raison } => {
                return journal.arreter(reponse, raison, etape.tentatives(), ecoule_decision);
            }
            Decision::Rejouer { attente, .. } => (etape.tentatives().saturating_add(1), attente),
        };
        // Annulée pendant la tentative : sa réponse (réessayable) est gardée, on ne rejoue pas.
        if annulation.est_annulee() {
            return journal.arreter(reponse, RaisonArret::Annule, numero, ecoule_decision);
        }
        if !budget.reessai_permis() {
            tracing::info!(
                methode,
                cible,
                tentative = numero,
                "budget global de réessai épuisé : pas de nouvelle tentative"
            );
            return journal.arreter(
                reponse,
                RaisonArret::TentativesEpuisees,
                numero,
                ecoule_decision,
            );
        }

        journal.noter(&reponse, numero, ecoule_decision, Some(attente), None);
        observateur.nouvelle_tentative(prochaine, attente);
        let annulee_pendant_l_attente = tokio::select! {
            // `biased` : si l'annulation et la fin de l'attente sont prêtes ensemble,
            // l'annulation l'emporte.
            biased;
            () = annulation.annulee() => true,
            () = temporisateur.attendre(attente) => false,
        };
        if annulee_pendant_l_attente || annulation.est_annulee() {
            return journal.arreter(reponse, RaisonArret::Annule, numero, ecoule());
        }
        let ecoule_reveil = ecoule();
        if !politique.peut_lancer_tentative(ecoule_reveil) {
            return journal.arreter(
                reponse,
                RaisonArret::EcheanceDepassee,
                numero,
                ecoule_reveil,
            );
        }
    }
}

/// Tout ce qu'il faut pour journaliser une décision.
struct Journal<'o> {
    politique: &'o PolitiqueReessai,
    methode: &'o str,
    cible: &'o str,
    observateur: &'o dyn ObservateurReessai,
}

impl Journal<'_> {
    /// Journalise l'arrêt et rend l'issue.
    fn arreter<T>(
        &self,
        reponse: ReponseApi<T>,
        raison: RaisonArret,
        tentatives: u32,
        ecoule: Duration,
    ) -> Issue<T> {
        self.noter(&reponse, tentatives, ecoule, None, Some(raison));
        Issue {
            reponse,
            raison,
            tentatives,
        }
    }

    /// Journalise une décision par `tracing` et auprès de l'observateur.
    fn noter<T>(
        &self,
        reponse: &ReponseApi<T>,
        tentative: u32,
        ecoule: Duration,
        attente: Option<Duration>,
        raison: Option<RaisonArret>,
    ) {
        let decision = DecisionJournalisee {
            methode: self.methode.to_owned(),
            cible: self.cible.to_owned(),
            tentative,
            budget_restant: self.politique.budget_restant(ecoule),
            statut: reponse.statut(),
            attente,
            raison,
            detail: reponse.detail().unwrap_or_default().to_owned(),
        };
        tracer(&decision);
        self.observateur.decision(&decision);
    }
}

/// Millisecondes entières, saturées plutôt que tronquées au-delà de `u64`.
fn millisecondes(duree: Duration) -> u64 {
    u64::try_from(duree.as_millis()).unwrap_or(u64::MAX)
}

/// Émet la décision par `tracing`, avec les seuls champs admis au journal.
fn tracer(d: &DecisionJournalisee) {
    macro_rules! evenement {
        ($niveau:ident, $message:literal) => {
            tracing::$niveau!(
                methode = %d.methode,
                cible = %d.cible,
                tentative = d.tentative,
                budget_restant_ms = d.budget_restant.map(millisecondes),
                statut = d.statut,
                attente_ms = d.attente.map(millisecondes),
                raison = d.raison.map(RaisonArret::as_str),
                detail = %d.detail,
                $message
            )
        };
    }
    match d.raison {
        // Le cas courant : discret.
        Some(RaisonArret::Succes) => evenement!(debug, "réessai : succès"),
        // Un incident absorbé ou une interruption voulue : à savoir, pas à alarmer.
        None => evenement!(info, "réessai : nouvelle tentative prévue"),
        Some(RaisonArret::Annule) => evenement!(info, "réessai : annulé"),
        // Une écriture sans réponse : l'appelant va réconcilier, ce n'est pas encore un échec.
        Some(RaisonArret::IssueInconnue) => {
            evenement!(info, "réessai : issue inconnue, à réconcilier")
        }
        // Refus, épuisement, échéance : l'opération n'a pas abouti. `info` et non `warn` :
        // l'échec de l'unité est dit par l'affichage (suivi), avec sa cause et le geste à faire ;
        // le dire deux fois ferait un bandeau d'erreur (règle 7).
        Some(_) => evenement!(info, "réessai : arrêt sans succès"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reessai::budget::SansBudget;
    use crate::reessai::doubles::{AleaFixe, AleaSuite, HorlogeVirtuelle};
    use crate::reessai::politique::{Profil, Reglages};
    use crate::reessai::retry_after::attente_demandee;
    use crate::reessai::temporisateur::TemporisateurTokio;
    use futures_util::FutureExt;
    use std::collections::VecDeque;
    use std::future::{Ready, ready};
    use std::sync::Mutex;

    const MS: fn(u64) -> Duration = Duration::from_millis;
    const S: fn(u64) -> Duration = Duration::from_secs;

    fn put<'a, T>() -> Operation<'a, T> {
        Operation::nouveau(
            "PUT",
            "s3://nuit/Car850618-2026-Pass1-Z1-PaRecPA.wav",
            Rejouabilite::Rejouable,
        )
    }

    fn post<'a, T>() -> Operation<'a, T> {
        Operation::nouveau("POST", "/participations", Rejouabilite::NonRejouable)
    }

    fn injoignable(a_pu_atteindre: bool) -> ReponseApi<&'static str> {
        ReponseApi::Injoignable {
            a_pu_atteindre,
            detail: "connexion coupée".into(),
        }
    }

    fn refuse(statut: u16, retry_after: Option<Duration>) -> ReponseApi<&'static str> {
        ReponseApi::Refuse {
            statut,
            retry_after,
            detail: format!("statut {statut}"),
        }
    }

    /// Un serveur scripté : rend les réponses prévues, dans l'ordre, et note chaque appel (numéro,
    /// instant). Chaque appel peut « durer » (avance l'horloge virtuelle).
    struct Script {
        horloge: HorlogeVirtuelle,
        reponses: VecDeque<ReponseApi<&'static str>>,
        durees: VecDeque<Duration>,
        appels: Vec<(u32, Duration)>,
    }

    impl Script {
        fn nouveau(horloge: &HorlogeVirtuelle, reponses: Vec<ReponseApi<&'static str>>) -> Self {
            Script {
                horloge: horloge.clone(),
                reponses: reponses.into(),
                durees: VecDeque::new(),
                appels: Vec::new(),
            }
        }

        fn appeler(&mut self, numero: u32) -> Ready<ReponseApi<&'static str>> {
            self.appels.push((numero, self.horloge.maintenant()));
            self.horloge
                .avancer(self.durees.pop_front().unwrap_or_default());
            ready(
                self.reponses
                    .pop_front()
                    .expect("appel non prévu par le scénario"),
            )
        }

        fn numeros(&self) -> Vec<u32> {
            self.appels.iter().map(|(n, _)| *n).collect()
        }

        fn instants(&self) -> Vec<Duration> {
            self.appels.iter().map(|(_, t)| *t).collect()
        }
    }

    #[derive(Debug, Clone, PartialEq)]
    enum Evenement {
        /// Annonce d'une tentative, avec le nombre d'attentes déjà commencées à ce moment.
        Annonce {
            tentative: u32,
            attente: Duration,
            attentes_deja: usize,
        },
        Decision(DecisionJournalisee),
    }

    /// Un observateur qui note tout, et regarde l'horloge au moment des annonces.
    struct Temoin {
        horloge: HorlogeVirtuelle,
        evenements: Mutex<Vec<Evenement>>,
    }

    impl Temoin {
        fn nouveau(horloge: &HorlogeVirtuelle) -> Self {
            Temoin {
                horloge: horloge.clone(),
                evenements: Mutex::new(Vec::new()),
            }
        }

        fn evenements(&self) -> Vec<Evenement> {
            self.evenements.lock().expect("verrou").clone()
        }

        fn annonces(&self) -> Vec<(u32, Duration, usize)> {
            self.evenements()
                .into_iter()
                .filter_map(|e| match e {
                    Evenement::Annonce {
                        tentative,
                        attente,
                        attentes_deja,
                    } => Some((tentative, attente, attentes_deja)),
                    Evenement::Decision(_) => None,
                })
                .collect()
        }

        fn decisions(&self) -> Vec<DecisionJournalisee> {
            self.evenements()
                .into_iter()
                .filter_map(|e| match e {
                    Evenement::Decision(d) => Some(d),
                    Evenement::Annonce { .. } => None,
                })
                .collect()
        }
    }

    impl ObservateurReessai for Temoin {
        fn nouvelle_tentative(&self, tentative: u32, attente: Duration) {
            let attentes_deja = self.horloge.attentes().len();
            self.evenements
                .lock()
                .expect("verrou")
                .push(Evenement::Annonce {
                    tentative,
                    attente,
                    attentes_deja,
                });
        }

        fn decision(&self, decision: &DecisionJournalisee) {
            self.evenements
                .lock()
                .expect("verrou")
                .push(Evenement::Decision(decision.clone()));
        }
    }

    fn insistant() -> PolitiqueReessai {
        Reglages::du_profil(Profil::Insistant)
            .valider()
            .expect("valide")
    }

    #[tokio::test]
    async fn refus_definitif_un_seul_appel_sans_attente() {
        for statut in [422, 403] {
            let horloge = HorlogeVirtuelle::nouveau();
            let mut script = Script::nouveau(&horloge, vec![refuse(statut, Some(S(1)))]);
            let temoin = Temoin::nouveau(&horloge);
            let issue = executer(
                &Cadre {
                    politique: &insistant(),
                    temporisateur: &horloge,
                    alea: &AleaFixe(0.5),
                    observateur: &temoin,
                    annulation: &Annulation::nouveau(),
                    budget: &SansBudget,
                },
                put(),
                |n| script.appeler(n),
            )
            .await;
            assert_eq!(issue.raison, RaisonArret::RefusDefinitif, "{statut}");
            assert_eq!(issue.tentatives, 1);
            assert_eq!(issue.reponse.statut(), Some(statut));
            assert_eq!(script.numeros(), [1]);
            assert!(horloge.attentes().is_empty());
            assert!(temoin.annonces().is_empty());
            assert_eq!(temoin.decisions().len(), 1);
        }
    }

    #[tokio::test]
    async fn budget_epuise_plus_de_reessai() {
        use crate::reessai::SeauJetons;
        let horloge = HorlogeVirtuelle::nouveau();
        // Deux jetons : le premier échec en retire un, il n'en reste pas plus de la moitié.
        let seau = SeauJetons::nouveau(2.0, 0.1);
        let mut script =
            Script::nouveau(&horloge, vec![refuse(503, None), ReponseApi::Succes("ok")]);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.0),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &seau,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::TentativesEpuisees);
        assert_eq!(
            script.numeros(),
            [1],
            "un réessai est parti malgré le budget épuisé"
        );
        assert!(horloge.attentes().is_empty());
    }

    #[tokio::test]
    async fn injoignable_puis_succes() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script =
            Script::nouveau(&horloge, vec![injoignable(true), ReponseApi::Succes("ok")]);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.0),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(
            issue,
            Issue {
                reponse: ReponseApi::Succes("ok"),
                raison: RaisonArret::Succes,
                tentatives: 2
            }
        );
        assert_eq!(script.numeros(), [1, 2]);
        assert_eq!(horloge.attentes(), [MS(250)]);
    }

    #[tokio::test]
    async fn insistant_epuise_sept_appels_six_attentes_croissantes() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(&horloge, vec![refuse(503, None); 7]);
        let temoin = Temoin::nouveau(&horloge);
        let alea = AleaSuite::nouveau([0.0, 0.999, 0.5, 0.3, 0.0, 0.999, 0.7]);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &alea,
                observateur: &temoin,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::TentativesEpuisees);
        assert_eq!(issue.tentatives, 7);
        assert_eq!(script.numeros(), [1, 2, 3, 4, 5, 6, 7]);
        let attentes = horloge.attentes();
        let enveloppes = [MS(500), S(1), S(2), S(4), S(8), S(8)];
        assert_eq!(attentes.len(), enveloppes.len());
        for (attente, e) in attentes.iter().zip(enveloppes) {
            assert!(
                *attente >= e / 2 && *attente < e,
                "{attente:?} hors de [{:?}, {e:?})",
                e / 2
            );
        }
        assert!(
            attentes.windows(2).all(|w| w[0] <= w[1]),
            "{attentes:?} devrait croître"
        );
        let decisions = temoin.decisions();
        assert_eq!(decisions.len(), 7);
        assert!(decisions[..6].iter().all(|d| d.raison.is_none()));
        assert_eq!(decisions[6].raison, Some(RaisonArret::TentativesEpuisees));
    }

    #[tokio::test]
    async fn bref_deux_appels_au_plus() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(&horloge, vec![refuse(503, None), injoignable(true)]);
        let issue = executer(
            &Cadre {
                politique: &Reglages::bref().valider().expect("valide"),
                temporisateur: &horloge,
                alea: &AleaFixe(0.999),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::TentativesEpuisees);
        assert_eq!(issue.tentatives, 2);
        assert_eq!(script.numeros(), [1, 2]);
        assert_eq!(horloge.attentes().len(), 1);
        assert!(horloge.attentes()[0] < MS(500));
    }

    /// L'exemple de `docs/politique-reessai.md` : échéance 10 s ; la tentative 1 échoue à t ≈ 0
    /// (elle dure 0,5 s), le backoff (base 4 s, aléa 0,25 : 2 + 0,5 = 2,5 s) mène la tentative 2 à
    /// t = 3 s exactement, qui reçoit un 503 avec `Retry-After`.
    async fn chronologie_001(
        retry_after: &str,
        suite: Vec<ReponseApi<&'static str>>,
    ) -> (Issue<&'static str>, Script, HorlogeVirtuelle, Temoin) {
        let politique = Reglages::insistant()
            .avec_base(S(4))
            .avec_plafond(S(8))
            .avec_echeance(S(10))
            .valider()
            .expect("valide");
        let horloge = HorlogeVirtuelle::nouveau();
        // En secondes, la valeur ne dépend pas de l'heure de la réponse.
        let retry_after = attente_demandee(Some(retry_after), None, horloge.maintenant_systeme());
        let mut reponses = vec![injoignable(false), refuse(503, retry_after)];
        reponses.extend(suite);
        let mut script = Script::nouveau(&horloge, reponses);
        script.durees.push_back(MS(500));
        let temoin = Temoin::nouveau(&horloge);
        let issue = executer(
            &Cadre {
                politique: &politique,
                temporisateur: &horloge,
                alea: &AleaFixe(0.25),
                observateur: &temoin,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        (issue, script, horloge, temoin)
    }

    #[tokio::test]
    async fn exemple_001_retry_after_120_depasse_l_echeance() {
        let (issue, script, horloge, temoin) = chronologie_001("120", vec![]).await;
        assert_eq!(issue.raison, RaisonArret::RetryAfterDepasseEcheance);
        assert_eq!(issue.tentatives, 2);
        assert_eq!(issue.reponse.statut(), Some(503));
        assert_eq!(script.instants(), [S(0), S(3)]);
        assert_eq!(horloge.attentes(), [MS(2500)], "aucune attente de 120 s");
        assert_eq!(horloge.maintenant(), S(3), "arrêt à t = 3 s");
        let derniere = temoin.decisions().pop().expect("une décision");
        assert_eq!(
            derniere,
            DecisionJournalisee {
                methode: "PUT".into(),
                cible: put::<()>().cible.into(),
                tentative: 2,
                budget_restant: Some(S(7)),
                statut: Some(503),
                attente: None,
                raison: Some(RaisonArret::RetryAfterDepasseEcheance),
                detail: "statut 503".into(),
            }
        );
    }

    #[tokio::test]
    async fn exemple_001_retry_after_3_attend_jusqu_a_6_s() {
        let (issue, script, horloge, temoin) =
            chronologie_001("3", vec![ReponseApi::Succes("déposée")]).await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(issue.tentatives, 3);
        assert_eq!(script.instants(), [S(0), S(3), S(6)]);
        assert_eq!(horloge.attentes(), [MS(2500), S(3)]);
        assert_eq!(temoin.annonces(), [(2, MS(2500), 0), (3, S(3), 1)]);
        let decisions = temoin.decisions();
        assert_eq!(decisions[1].budget_restant, Some(S(7)));
        assert_eq!(decisions[1].attente, Some(S(3)));
        assert_eq!(decisions[2].budget_restant, Some(S(4)));
    }

    #[tokio::test]
    async fn observateur_prevenu_avant_chaque_attente() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(
            &horloge,
            vec![
                injoignable(true),
                refuse(429, Some(S(20))),
                refuse(502, None),
                ReponseApi::Succes("ok"),
            ],
        );
        let temoin = Temoin::nouveau(&horloge);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &temoin,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        // Tentative annoncée, attente annoncée = attente faite, et annonce AVANT l'attente
        // (aucune, une, puis deux attentes déjà commencées).
        assert_eq!(
            temoin.annonces(),
            [(2, MS(375), 0), (3, S(20), 1), (4, MS(1500), 2)]
        );
        assert_eq!(horloge.attentes(), [MS(375), S(20), MS(1500)]);
        // Chaque décision de rejouer précède son annonce.
        let evenements = temoin.evenements();
        for (i, e) in evenements.iter().enumerate() {
            if let Evenement::Annonce { attente, .. } = e {
                assert!(matches!(
                    &evenements[i - 1],
                    Evenement::Decision(d) if d.attente == Some(*attente)
                ));
            }
        }
        let statuts: Vec<_> = temoin.decisions().iter().map(|d| d.statut).collect();
        assert_eq!(statuts, [None, Some(429), Some(502), None]);
    }

    #[tokio::test]
    async fn retry_after_en_date_lu_a_l_heure_de_la_reponse() {
        let horloge = HorlogeVirtuelle::nouveau();
        let date = httpdate::fmt_http_date(horloge.maintenant_systeme() + S(20));
        let mut appels = 0;
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |_| {
                appels += 1;
                // La réponse arrive après 2 s de travail : il reste 18 s jusqu'à la date.
                horloge.avancer(S(2));
                let reponse = if appels == 1 {
                    refuse(
                        503,
                        attente_demandee(Some(&date), None, horloge.maintenant_systeme()),
                    )
                } else {
                    ReponseApi::Succes("ok")
                };
                ready(reponse)
            },
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(horloge.attentes(), [S(18)], "au-delà du plafond de 8 s");
    }

    #[tokio::test]
    async fn annulation_pendant_l_attente() {
        let horloge = HorlogeVirtuelle::avec_attentes_suspendues();
        let mut script = Script::nouveau(&horloge, vec![injoignable(true)]);
        let temoin = Temoin::nouveau(&horloge);
        let annulation = Annulation::nouveau();
        let politique = insistant();
        let cadre = Cadre {
            politique: &politique,
            temporisateur: &horloge,
            alea: &AleaFixe(0.5),
            observateur: &temoin,
            annulation: &annulation,
            budget: &SansBudget,
        };
        let execution = executer(&cadre, put(), |n| script.appeler(n));
        // Annule dès que l'attente a commencé, puis laisse à la boucle quelques tours pour
        // s'arrêter : sans `select!` sur l'annulation, l'attente suspendue ne finirait jamais et
        // le test échouerait au lieu de bloquer.
        let annuleur = async {
            for _ in 0..100 {
                if !horloge.attentes().is_empty() {
                    break;
                }
                tokio::task::yield_now().await;
            }
            assert!(
                !horloge.attentes().is_empty(),
                "l'attente n'a jamais commencé"
            );
            annulation.annuler();
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
        };
        let issue = tokio::select! {
            issue = execution => issue,
            () = annuleur => panic!("l'annulation n'a pas interrompu l'attente"),
        };
        assert_eq!(issue.raison, RaisonArret::Annule);
        assert_eq!(issue.tentatives, 1);
        assert_eq!(issue.reponse, injoignable(true));
        assert_eq!(script.numeros(), [1]);
        // Une seule annonce : celle de l'attente interrompue, aucune après l'annulation.
        assert_eq!(temoin.annonces(), [(2, MS(375), 0)]);
        let derniere = temoin.decisions().pop().expect("une décision");
        assert_eq!(derniere.raison, Some(RaisonArret::Annule));
        assert_eq!(derniere.tentative, 1);
    }

    #[tokio::test]
    async fn annulation_avant_le_premier_appel() {
        let horloge = HorlogeVirtuelle::nouveau();
        let annulation = Annulation::nouveau();
        annulation.annuler();
        let temoin = Temoin::nouveau(&horloge);
        let mut appels = 0;
        let issue: Issue<()> = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &temoin,
                annulation: &annulation,
                budget: &SansBudget,
            },
            put(),
            |_| {
                appels += 1;
                ready(ReponseApi::Succes(()))
            },
        )
        .await;
        assert_eq!(appels, 0);
        assert_eq!(issue.raison, RaisonArret::Annule);
        assert_eq!(issue.tentatives, 0);
        assert!(!issue.reponse.a_pu_etre_traitee());
        assert_eq!(temoin.decisions().len(), 1);
    }

    #[tokio::test]
    async fn annulation_pendant_une_tentative_garde_sa_reponse() {
        // Réponse réessayable : gardée, pas de nouvelle annonce ni d'attente.
        let horloge = HorlogeVirtuelle::nouveau();
        let annulation = Annulation::nouveau();
        let temoin = Temoin::nouveau(&horloge);
        let mut appels = 0;
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &temoin,
                annulation: &annulation,
                budget: &SansBudget,
            },
            put(),
            |_| {
                appels += 1;
                annulation.annuler();
                ready(refuse(503, None))
            },
        )
        .await;
        assert_eq!((appels, issue.tentatives), (1, 1));
        assert_eq!(issue.raison, RaisonArret::Annule);
        assert_eq!(issue.reponse.statut(), Some(503));
        assert!(temoin.annonces().is_empty());
        assert!(horloge.attentes().is_empty());

        // Succès rendu malgré l'annulation : c'est un succès.
        let annulation = Annulation::nouveau();
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &annulation,
                budget: &SansBudget,
            },
            put(),
            |_| {
                annulation.annuler();
                ready(ReponseApi::Succes("déposée"))
            },
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(issue.reponse, ReponseApi::Succes("déposée"));
    }

    #[tokio::test]
    async fn non_rejouable_sans_reponse_issue_inconnue() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(&horloge, vec![injoignable(true)]);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::IssueInconnue);
        assert_eq!(issue.tentatives, 1);
        assert_eq!(script.numeros(), [1], "un seul envoi");
        assert!(horloge.attentes().is_empty());

        // Un 5xx : le serveur a pu traiter, même issue.
        let mut script = Script::nouveau(&horloge, vec![refuse(500, None)]);
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::IssueInconnue);
        assert_eq!(script.numeros(), [1]);
    }

    #[tokio::test]
    async fn non_rejouable_rien_n_est_parti_ou_429_se_rejoue() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(
            &horloge,
            vec![
                injoignable(false),
                refuse(429, Some(S(2))),
                ReponseApi::Succes("créée"),
            ],
        );
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post(),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(script.numeros(), [1, 2, 3]);
        assert_eq!(horloge.attentes(), [MS(375), S(2)]);
    }

    /// L'écriture rate (500 : issue inconnue) ; la relecture, émise dans la même étape, prouve
    /// qu'elle n'a pas eu lieu ; l'écriture repart après l'attente du backoff et réussit.
    #[tokio::test]
    async fn ecriture_prouvee_nulle_reemise_dans_le_budget_de_l_etape() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut script = Script::nouveau(
            &horloge,
            vec![refuse(500, None), ReponseApi::Succes("créée")],
        );
        let temoin = Temoin::nouveau(&horloge);
        let relectures = Mutex::new(0);
        let politique = insistant();
        let etape = Etape::nouveau();
        let issue = executer(
            &Cadre {
                politique: &politique,
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &temoin,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post().dans(&etape).relue_par(&mut |etape: Etape| {
                *relectures.lock().expect("verrou") += 1;
                let politique = &politique;
                let horloge = &horloge;
                async move {
                    let lu = executer(
                        &Cadre {
                            politique,
                            temporisateur: horloge,
                            alea: &AleaFixe(0.5),
                            observateur: &ObservateurMuet,
                            annulation: &Annulation::nouveau(),
                            budget: &SansBudget,
                        },
                        put().dans(&etape),
                        |_| ready(ReponseApi::Succes(false)),
                    )
                    .await;
                    match lu.reponse {
                        ReponseApi::Succes(false) => Releve::Nulle,
                        _ => Releve::Inconnue,
                    }
                }
                .boxed()
            }),
            |n| script.appeler(n),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(issue.reponse, ReponseApi::Succes("créée"));
        assert_eq!(
            script.numeros(),
            [1, 3],
            "la relecture a pris la tentative 2"
        );
        assert_eq!(*relectures.lock().expect("verrou"), 1);
        assert_eq!(etape.tentatives(), 3);
        // Une attente de backoff avant la réémission, comme pour une opération rejouable après
        // deux tentatives (l'écriture et sa relecture).
        assert_eq!(horloge.attentes(), [MS(750)]);
        let ratees: Vec<_> = temoin
            .decisions()
            .into_iter()
            .filter(|d| d.raison != Some(RaisonArret::Succes))
            .collect();
        assert_eq!(
            ratees.len(),
            1,
            "une décision par tentative ratée : {ratees:?}"
        );
        assert_eq!(ratees[0].attente, Some(MS(750)));
    }

    #[tokio::test]
    async fn ecriture_toujours_nulle_s_arrete_sur_la_politique() {
        let horloge = HorlogeVirtuelle::nouveau();
        let mut ecritures = 0;
        let etape = Etape::nouveau();
        let issue: Issue<()> = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post()
                .dans(&etape)
                .relue_par(&mut |_| ready(Releve::Nulle).boxed()),
            |_| {
                ecritures += 1;
                ready(refuse(500, None).map(|_| ()))
            },
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::TentativesEpuisees);
        assert_eq!((ecritures, issue.tentatives), (7, 7));
    }

    #[tokio::test]
    async fn ecriture_faite_ou_inconnue_selon_la_relecture() {
        let horloge = HorlogeVirtuelle::nouveau();
        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post().relue_par(&mut |_| ready(Releve::Faite("retrouvée")).boxed()),
            |_| ready(injoignable(true)),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::Succes);
        assert_eq!(issue.reponse, ReponseApi::Succes("retrouvée"));
        assert!(horloge.attentes().is_empty());

        let issue = executer(
            &Cadre {
                politique: &insistant(),
                temporisateur: &horloge,
                alea: &AleaFixe(0.5),
                observateur: &ObservateurMuet,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            post().relue_par(&mut |_| ready(Releve::Inconnue).boxed()),
            |_| ready(injoignable(true)),
        )
        .await;
        assert_eq!(issue.raison, RaisonArret::IssueInconnue);
        assert_eq!(issue.tentatives, 1);
    }

    /// Une horloge dont les attentes durent plus que demandé (portable en veille).
    struct HorlogeQuiDerape {
        horloge: HorlogeVirtuelle,
        retard: Duration,
    }

    impl Temporisateur for HorlogeQuiDerape {
        fn maintenant(&self) -> Duration {
            self.horloge.maintenant()
        }

        async fn attendre(&self, duree: Duration) {
            self.horloge.attendre(duree).await;
            self.horloge.avancer(self.retard);
        }
    }

    #[tokio::test]
    async fn echeance_reverifiee_au_reveil() {
        let politique = Reglages::insistant()
            .avec_echeance(S(10))
            .valider()
            .expect("valide");
        let horloge = HorlogeVirtuelle::nouveau();
        let derapante = HorlogeQuiDerape {
            horloge: horloge.clone(),
            retard: S(5),
        };
        let mut script =
            Script::nouveau(&horloge, vec![refuse(503, Some(S(3))), refuse(503, None)]);
        script.durees.push_back(S(3));
        let temoin = Temoin::nouveau(&horloge);
        let issue = executer(
            &Cadre {
                politique: &politique,
                temporisateur: &derapante,
                alea: &AleaFixe(0.5),
                observateur: &temoin,
                annulation: &Annulation::nouveau(),
                budget: &SansBudget,
            },
            put(),
            |n| script.appeler(n),
        )
        .await;
        // Décidé à t = 3 s (3 + 3 + 1 ≤ 10), réveillé à t = 11 s : pas de tentative 2.
        assert_eq!(issue.raison, RaisonArret::EcheanceDepassee);
        assert_eq!(issue.tentatives, 1);
        assert_eq!(script.numeros(), [1]);
        assert_eq!(horloge.maintenant(), S(11));
        let derniere = temoin.decisions().pop().expect("une décision");
        assert_eq!(derniere.budget_restant, Some(S(0)));
    }

    #[test]
    fn le_futur_d_execution_est_send() {
        fn exige_send<T: Send>(_: &T) {}
        let politique = insistant();
        let temporisateur = TemporisateurTokio::nouveau();
        let annulation = Annulation::nouveau();
        let cadre = Cadre {
            politique: &politique,
            temporisateur: &temporisateur,
            alea: &AleaFixe(0.5),
            observateur: &ObservateurMuet,
            annulation: &annulation,
            budget: &SansBudget,
        };
        let futur = executer(&cadre, put(), |_| async { ReponseApi::Succes(()) });
        exige_send(&futur);
    }
}
