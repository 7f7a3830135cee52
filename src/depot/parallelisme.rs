//! Le parallélisme qui s'adapte : `--paralleles` est un plafond, le nombre de transferts en vol
//! se règle de lui-même, à la manière de TCP.
//!
//! Sur un partage de connexion qui coupe, chaque transfert en vol perd à la coupure ce qu'il
//! avait envoyé de sa partie : quatre transferts perdent quatre fois plus qu'un, sans remplir
//! mieux un lien qui est le goulot (mesuré, `BENCHMARKS.md`). D'où la règle :
//! - une coupure du réseau ou un incident de transport (requête sans réponse, transfert coupé)
//!   **divise par deux** le parallélisme, jamais sous 1 ; les incidents d'un même épisode (les
//!   quatre transferts coupés par la même panne) ne comptent qu'une fois : après une baisse, les
//!   incidents de la [`FENETRE_EPISODE`] qui suit n'en provoquent pas d'autre ;
//! - après une [`PERIODE_CALME`] sans incident, toutes les places occupées, il **essaie** un
//!   transfert de plus : la hausse est gardée si le débit acquitté par le serveur (octets des
//!   requêtes réussies, compté d'une requête acquittée à l'autre sur au moins
//!   [`REQUETES_MIN`]) croît assez ([`gain_requis`]) ; sinon le lien est le goulot, un
//!   transfert de plus ne ferait que risquer davantage à la prochaine coupure, et le
//!   parallélisme revient où il était. Une hausse qu'un incident interrompt avant d'avoir fait
//!   ses preuves est vaine elle aussi. Après chaque essai vain, l'essai suivant parti du même
//!   parallélisme ou d'au-dessus attend deux fois plus, compté depuis l'essai vain (jusqu'à
//!   16 fois la période calme) ; d'en dessous, rien n'a été montré : l'essai vient après une
//!   période calme ordinaire ;
//! - un parallélisme qu'un essai a montré utile devient le plancher des baisses pendant
//!   [`MEMOIRE_UTILE`] : là où la latence freine chaque transfert, une coupure ne fait pas
//!   reperdre ce que l'essai a gagné.
//!
//! Le [`Regulateur`] est pur (instants et octets acquittés passés en argument) : il se teste
//! sur une suite d'événements. [`PlacesAdaptatives`] l'applique au sémaphore de
//! l'ordonnanceur ; une baisse n'interrompt aucun transfert : les places en trop disparaissent
//! quand elles sont rendues. [`piloter`] relève les compteurs du réseau, nourrit le régulateur,
//! et annonce chaque changement (barre, `-v`, journal du plan).

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};

use super::{Depositaire, Moteur};
use crate::reessai::DecisionJournalisee;
use crate::transport::reseau::Acquittes;

/// Sans incident pendant ce temps, un transfert de plus est essayé (gardé s'il fait croître le
/// débit). Sans la mesure, c'était la seule défense : sur un lien qui coupe toutes les 15 s, le
/// parallélisme remontait à 2 avant chaque coupure, qui coupait donc deux transferts au lieu
/// d'un (`BENCHMARKS.md` § 5).
pub(crate) const PERIODE_CALME: Duration = Duration::from_secs(10);
/// Les incidents qui suivent une baisse de moins que ce délai sont du même épisode.
pub(crate) const FENETRE_EPISODE: Duration = Duration::from_secs(2);
/// Après une hausse, le temps laissé au transfert de plus pour prendre sa part du lien avant
/// que le débit ne se mesure.
pub(crate) const MISE_EN_ROUTE: Duration = Duration::from_secs(1);
/// Après sa mise en route, une hausse se mesure au moins ce temps, et sur au moins
/// [`REQUETES_MIN`] requêtes acquittées.
pub(crate) const FENETRE_MESURE: Duration = Duration::from_secs(3);
/// Un débit ne se juge que sur au moins autant de requêtes acquittées : le compteur avance
/// d'une requête entière à la fois (une partie, un fichier), et sur un lien lent, trois
/// secondes n'en voient qu'une ou deux. Le débit se compte d'une requête acquittée à la
/// dernière de la fenêtre (ni le début ni la fin de la fenêtre ne tombent au milieu d'une
/// requête).
pub(crate) const REQUETES_MIN: u64 = 4;
/// La référence, avant un essai, se mesure sur la période calme qui le précède, jusqu'à ce
/// temps en arrière.
const REFERENCE_MAX: Duration = Duration::from_secs(60);
/// Un essai qui n'a pas vu assez de requêtes acquittées en ce temps est jugé vain.
const ESSAI_MAX: Duration = Duration::from_secs(90);
/// Une hausse de n à n + 1 est gardée si le débit acquitté croît d'au moins 15 % (de 1 à 2, à
/// 3, à 4), puis de la moitié de ce qu'un transfert de plus apporterait là où chacun est freiné
/// par la latence (1/2n : 12,5 % de 4 à 5, 10 % de 5 à 6), jamais moins de [`GAIN_PLANCHER`].
/// Sur un lien qui est le goulot, deux mesures diffèrent de quelques pour cent. Le gain d'un
/// transfert de plus peut être modeste et valoir pourtant la peine : à 80 ms d'aller-retour,
/// un seul transfert de fichiers de 1 Mio tient 80 % d'un lien de 8 Mo/s (le seau du lien
/// rattrape une partie de chaque attente), deux le remplissent ; et ce qu'une coupure fait
/// perdre de plus à deux transferts (un demi-fichier) coûte bien moins que 20 % du débit.
fn gain_requis(courant: usize) -> f64 {
    (0.5 / courant.max(1) as f64).clamp(GAIN_PLANCHER, GAIN_PLAFOND)
}
/// Le gain en deçà duquel une mesure ne se distingue pas du bruit.
pub(crate) const GAIN_PLANCHER: f64 = 0.05;
/// Le gain demandé aux premiers essais.
pub(crate) const GAIN_PLAFOND: f64 = 0.15;
/// Au plus 2⁴ = 16 fois la période calme entre deux essais après des essais vains.
const ESSAIS_VAINS_MAX: u32 = 4;
/// Le parallélisme qu'un essai a montré utile sert de plancher aux baisses pendant ce temps.
pub(crate) const MEMOIRE_UTILE: Duration = Duration::from_secs(120);
/// Cadence de relève des compteurs du réseau.
const CADENCE: Duration = Duration::from_millis(100);

/// Ce qui fait changer le parallélisme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Le réseau a été déclaré coupé (pause globale).
    CoupureReseau,
    /// Une tentative est restée sans réponse (connexion refusée, coupée, bloquée).
    IncidentTransport,
    /// Une période calme s'est écoulée : un transfert de plus est essayé.
    Calme,
    /// Le transfert essayé n'a pas fait croître le débit acquitté.
    EssaiVain,
}

impl Cause {
    pub(crate) fn texte(self) -> &'static str {
        match self {
            Cause::CoupureReseau => "coupure du réseau",
            Cause::IncidentTransport => "incident de transport",
            Cause::Calme => "période calme, essai d'un transfert de plus",
            Cause::EssaiVain => "essai sans gain de débit",
        }
    }
}

/// Un changement décidé par le régulateur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Changement {
    pub(crate) avant: usize,
    pub(crate) apres: usize,
    pub(crate) plafond: usize,
    pub(crate) cause: Cause,
}

impl Changement {
    /// « parallélisme 4 → 2 (plafond 4) : coupure du réseau »
    pub(crate) fn texte(&self) -> String {
        format!(
            "parallélisme {} → {} (plafond {}) : {}",
            self.avant,
            self.apres,
            self.plafond,
            self.cause.texte()
        )
    }
}

/// Le régulateur : pur, les instants (temps écoulé depuis une origine) et les octets acquittés
/// lui sont donnés.
#[derive(Debug, Clone)]
pub(crate) struct Regulateur {
    plafond: usize,
    courant: usize,
    /// Dernier incident, dernière hausse ou dernier jugement d'un essai : le calme se compte à
    /// partir de là.
    calme_depuis: Duration,
    derniere_baisse: Option<Duration>,
    /// Les relevés de ce que le serveur a acquitté (instant, cumuls), sur les deux dernières
    /// minutes.
    releves: VecDeque<(Duration, Acquittes)>,
    /// Le dernier essai jugé vain : l'essai suivant (du même parallélisme ou d'au-dessus) se
    /// compte à partir de là, pas du dernier incident (un lien qui a un incident toutes les
    /// deux minutes ne doit pas empêcher tout essai).
    dernier_vain: Duration,
    /// La hausse en cours d'essai.
    essai: Option<Essai>,
    /// Le dernier essai jugé : débits de référence et mesuré (octets par seconde), gain requis.
    dernier_jugement: Option<Jugement>,
    /// Le plus bas parallélisme d'où un essai a été vain (`usize::MAX` : aucun) : d'ici ou
    /// d'au-dessus, la période calme avant l'essai suivant est doublée par chaque essai vain
    /// (`essais_vains`) ; d'en dessous, rien n'a été montré, l'essai vient après
    /// une période calme ordinaire.
    niveau_vain: usize,
    /// Essais vains depuis le dernier essai utile parti de `niveau_vain` ou d'au-dessus.
    essais_vains: u32,
    /// Le parallélisme qu'un essai a montré utile (1 : rien de montré), et quand : une coupure
    /// ne le fait pas descendre plus bas. Là où la latence freine chaque transfert, diviser
    /// par deux à chaque coupure reperdrait ce que l'essai a gagné. Oublié après
    /// [`MEMOIRE_UTILE`] sans nouvel essai utile : le lien a pu changer.
    utile: (usize, Duration),
}

/// Ce qu'un essai a mesuré, pour le dire (`-v`, journal du plan).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Jugement {
    pub(crate) reference: f64,
    pub(crate) mesure: f64,
    pub(crate) requis: f64,
}

impl Jugement {
    /// « 6,4 → 6,6 Mo/s, +3 % pour 15 % demandés »
    pub(crate) fn texte(&self) -> String {
        let gain = if self.reference > 0.0 {
            (self.mesure / self.reference - 1.0) * 100.0
        } else {
            0.0
        };
        format!(
            "{:.1} → {:.1} Mo/s, {gain:+.0} % pour {:.0} % demandés",
            self.reference / 1e6,
            self.mesure / 1e6,
            self.requis * 100.0
        )
        .replace('.', ",")
    }
}

/// Une hausse à l'essai : quand elle a été décidée, et le débit acquitté juste avant (octets
/// par seconde ; pas d'essai sans lui).
#[derive(Debug, Clone, Copy)]
struct Essai {
    debut: Duration,
    /// Le parallélisme d'où l'essai est parti.
    depuis: usize,
    reference: f64,
}

impl Regulateur {
    /// Commence au plafond : sur un bon lien, rien ne change.
    pub(crate) fn nouveau(plafond: usize, maintenant: Duration) -> Self {
        let plafond = plafond.max(1);
        Regulateur {
            plafond,
            courant: plafond,
            calme_depuis: maintenant,
            derniere_baisse: None,
            releves: VecDeque::new(),
            dernier_vain: maintenant,
            essai: None,
            dernier_jugement: None,
            niveau_vain: usize::MAX,
            essais_vains: 0,
            utile: (1, maintenant),
        }
    }

    pub(crate) fn courant(&self) -> usize {
        self.courant
    }

    /// Le dernier essai jugé, s'il a pu se mesurer.
    pub(crate) fn dernier_jugement(&self) -> Option<Jugement> {
        self.dernier_jugement
    }

    /// Un essai est en cours.
    pub(crate) fn essai_en_cours(&self) -> bool {
        self.essai.is_some()
    }

    /// Un incident (coupure ou incident de transport) : moitié, sauf s'il est du même épisode
    /// que la dernière baisse, et jamais sous le parallélisme qu'un essai a montré utile. Une
    /// hausse à l'essai est vaine.
    pub(crate) fn incident(&mut self, cause: Cause, maintenant: Duration) -> Option<Changement> {
        self.calme_depuis = maintenant;
        if let Some(essai) = self.essai.take() {
            self.essai_vain(essai.depuis, maintenant);
        }
        let meme_episode = self
            .derniere_baisse
            .is_some_and(|b| maintenant.saturating_sub(b) < FENETRE_EPISODE);
        let (utile, depuis) = self.utile;
        let plancher = if maintenant.saturating_sub(depuis) < MEMOIRE_UTILE {
            utile
        } else {
            1
        };
        let apres = (self.courant / 2).max(plancher);
        if meme_episode || apres >= self.courant {
            return None;
        }
        self.derniere_baisse = Some(maintenant);
        self.changer(apres, cause)
    }

    /// Le réseau est en pause : ce n'est pas du calme.
    pub(crate) fn agite(&mut self, maintenant: Duration) {
        self.calme_depuis = maintenant;
    }

    /// Le temps passe ; `acquittes` : ce que le serveur a acquitté depuis le début du passage ;
    /// `toutes_prises` : toutes les places sont occupées (un essai ne sert à rien si des places
    /// sont libres, ou si une baisse attend encore d'être rendue). Juge la hausse à l'essai
    /// quand sa mesure est faite ; sinon, après une période calme, essaie un transfert de plus.
    pub(crate) fn tic(
        &mut self,
        maintenant: Duration,
        acquittes: Acquittes,
        toutes_prises: bool,
    ) -> Option<Changement> {
        self.releves.push_back((maintenant, acquittes));
        while self
            .releves
            .front()
            .is_some_and(|(t, _)| maintenant.saturating_sub(*t) > ESSAI_MAX + REFERENCE_MAX)
        {
            self.releves.pop_front();
        }
        if let Some(essai) = self.essai {
            let mesure_depuis = essai.debut + MISE_EN_ROUTE;
            let mesure = self.debit_depuis(mesure_depuis);
            let trop_long = maintenant >= essai.debut + ESSAI_MAX;
            if (maintenant < mesure_depuis + FENETRE_MESURE || mesure.is_none()) && !trop_long {
                return None;
            }
            self.essai = None;
            self.calme_depuis = maintenant;
            let requis = gain_requis(essai.depuis);
            self.dernier_jugement = mesure.map(|mesure| Jugement {
                reference: essai.reference,
                mesure,
                requis,
            });
            // Un essai sans assez de requêtes acquittées en `ESSAI_MAX` n'a rien montré.
            let utile = mesure.is_some_and(|mesure| mesure >= essai.reference * (1.0 + requis));
            if utile {
                self.utile = (self.courant, maintenant);
                if essai.depuis >= self.niveau_vain {
                    // Le lien a changé : ce qui était vain d'ici ne l'est plus.
                    self.niveau_vain = usize::MAX;
                    self.essais_vains = 0;
                }
                return None;
            }
            self.essai_vain(essai.depuis, maintenant);
            return self.changer(essai.depuis, Cause::EssaiVain);
        }
        let recul_fini = self.courant < self.niveau_vain
            || maintenant.saturating_sub(self.dernier_vain)
                >= PERIODE_CALME * (1 << self.essais_vains);
        if self.courant >= self.plafond
            || !toutes_prises
            || !recul_fini
            || maintenant.saturating_sub(self.calme_depuis) < PERIODE_CALME
        {
            return None;
        }
        let depuis = self
            .calme_depuis
            .max(maintenant.saturating_sub(REFERENCE_MAX));
        // Pas d'essai sans référence : la période calme n'a pas encore vu assez de requêtes.
        let reference = self.debit_depuis(depuis)?;
        self.calme_depuis = maintenant;
        self.essai = Some(Essai {
            debut: maintenant,
            depuis: self.courant,
            reference,
        });
        self.changer(self.courant + 1, Cause::Calme)
    }

    /// Un essai parti de `depuis` a été vain.
    fn essai_vain(&mut self, depuis: usize, maintenant: Duration) {
        if depuis < self.niveau_vain {
            // Premier essai vain de ce niveau : son recul commence à 20 s.
            self.essais_vains = 0;
        }
        self.niveau_vain = self.niveau_vain.min(depuis);
        self.essais_vains = (self.essais_vains + 1).min(ESSAIS_VAINS_MAX);
        self.dernier_vain = maintenant;
    }

    /// Le débit acquitté (octets par seconde) depuis `depuis` : de la première requête
    /// acquittée après `depuis` à la dernière, s'il y en a au moins [`REQUETES_MIN`] après la
    /// première, et trois par transfert en vol (plusieurs transferts partis ensemble finissent
    /// presque ensemble : qu'ils tombent dans un relevé ou dans deux changerait la mesure de
    /// moitié). Rien si aucun octet n'a été acquitté.
    fn debit_depuis(&self, depuis: Duration) -> Option<f64> {
        let mut fenetre = self.releves.iter().filter(|(t, _)| *t >= depuis);
        let (_, origine) = *fenetre.next()?;
        let mut premiere = None;
        let mut derniere = None;
        for &(t, a) in fenetre {
            if a.requetes > origine.requetes && premiere.is_none() {
                premiere = Some((t, a));
            }
            if derniere.is_none_or(|(_, d): (Duration, Acquittes)| a.requetes > d.requetes) {
                derniere = Some((t, a));
            }
        }
        let ((t0, a0), (t1, a1)) = (premiere?, derniere?);
        let requises = REQUETES_MIN.max(3 * self.courant as u64);
        let octets = a1.octets.saturating_sub(a0.octets);
        if a1.requetes.saturating_sub(a0.requetes) < requises || t1 <= t0 || octets == 0 {
            return None;
        }
        Some(octets as f64 / (t1 - t0).as_secs_f64())
    }

    fn changer(&mut self, apres: usize, cause: Cause) -> Option<Changement> {
        let avant = self.courant;
        self.courant = apres;
        (avant != apres).then_some(Changement {
            avant,
            apres,
            plafond: self.plafond,
            cause,
        })
    }
}

/// Les places de l'ordonnanceur : un sémaphore dont le nombre de permis suit le régulateur.
#[derive(Debug)]
pub(crate) struct PlacesAdaptatives {
    semaphore: Arc<Semaphore>,
    /// Permis à retirer dès qu'ils seront rendus (une baisse sous le nombre en vol).
    dette: Arc<AtomicUsize>,
    courant: AtomicUsize,
}

/// Une place prise ; rendue (ou retirée, si le parallélisme a baissé) à sa fin.
#[derive(Debug)]
pub(crate) struct Place {
    permis: Option<OwnedSemaphorePermit>,
    dette: Arc<AtomicUsize>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let Some(permis) = self.permis.take() else {
            return;
        };
        let retiree = self
            .dette
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| d.checked_sub(1))
            .is_ok();
        if retiree {
            permis.forget();
        }
    }
}

impl PlacesAdaptatives {
    pub(crate) fn nouvelles(plafond: usize) -> Arc<Self> {
        let plafond = plafond.max(1);
        Arc::new(PlacesAdaptatives {
            semaphore: Arc::new(Semaphore::new(plafond)),
            dette: Arc::new(AtomicUsize::new(0)),
            courant: AtomicUsize::new(plafond),
        })
    }

    /// Attend une place libre.
    pub(crate) async fn prendre(&self) -> Result<Place, AcquireError> {
        let permis = Arc::clone(&self.semaphore).acquire_owned().await?;
        Ok(Place {
            permis: Some(permis),
            dette: Arc::clone(&self.dette),
        })
    }

    /// Une place libre tout de suite, ou rien. Jamais une place qu'un fichier attend : le
    /// sémaphore donne d'abord chaque place rendue à qui l'attend ; il n'en reste de libres
    /// que lorsque tous les fichiers sont partis. C'est ce qui permet aux parties d'un gros
    /// fichier de partir ensemble quand il reste moins de fichiers que de places.
    pub(crate) fn essayer_prendre(&self) -> Option<Place> {
        let permis = Arc::clone(&self.semaphore).try_acquire_owned().ok()?;
        Some(Place {
            permis: Some(permis),
            dette: Arc::clone(&self.dette),
        })
    }

    /// Le parallélisme voulu.
    pub(crate) fn courant(&self) -> usize {
        self.courant.load(Ordering::SeqCst)
    }

    /// Ajuste les permis à `nombre` : les permis libres en trop sont retirés tout de suite,
    /// les autres à leur retour ; une hausse annule d'abord une dette.
    pub(crate) fn ajuster(&self, nombre: usize) {
        let nombre = nombre.max(1);
        let avant = self.courant.swap(nombre, Ordering::SeqCst);
        if nombre < avant {
            let a_retirer = avant - nombre;
            let retires = self.semaphore.forget_permits(a_retirer);
            self.dette.fetch_add(a_retirer - retires, Ordering::SeqCst);
        } else {
            let mut a_ajouter = nombre - avant;
            while a_ajouter > 0
                && self
                    .dette
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| d.checked_sub(1))
                    .is_ok()
            {
                a_ajouter -= 1;
            }
            self.semaphore.add_permits(a_ajouter);
        }
    }

    /// Toutes les places sont occupées, et aucune baisse n'attend d'être rendue : un essai
    /// d'un transfert de plus ajouterait vraiment une place.
    pub(crate) fn toutes_prises(&self) -> bool {
        self.semaphore.available_permits() == 0 && self.dette.load(Ordering::SeqCst) == 0
    }

    /// Places libres en ce moment (tests).
    #[cfg(test)]
    fn libres(&self) -> usize {
        self.semaphore.available_permits()
    }
}

/// Mène le régulateur pendant tout le passage : relève les compteurs du réseau (coupures et
/// incidents), ajuste les places, annonce chaque changement. Ne rend jamais la main : la tâche
/// est arrêtée avec le passage.
pub(super) async fn piloter<D: Depositaire>(
    moteur: Arc<Moteur<D>>,
    places: Arc<PlacesAdaptatives>,
) {
    let c = &moteur.commun;
    let reseau = c.emetteur.reseau();
    let origine = tokio::time::Instant::now();
    let mut regulateur = Regulateur::nouveau(places.courant(), Duration::ZERO);
    let mut vus = reseau.incidents();
    loop {
        tokio::time::sleep(CADENCE).await;
        let maintenant = origine.elapsed();
        let releve = reseau.incidents();
        let mut changements = Vec::new();
        let essai_avant = regulateur.essai_en_cours();
        if releve.coupures > vus.coupures {
            changements.extend(regulateur.incident(Cause::CoupureReseau, maintenant));
        } else if releve.injoignables > vus.injoignables {
            changements.extend(regulateur.incident(Cause::IncidentTransport, maintenant));
        } else if reseau.est_coupe() {
            regulateur.agite(maintenant);
        } else {
            changements.extend(regulateur.tic(
                maintenant,
                reseau.acquittes(),
                places.toutes_prises(),
            ));
        }
        vus = releve;
        let jugement = (essai_avant && !regulateur.essai_en_cours())
            .then(|| regulateur.dernier_jugement())
            .flatten();
        if let Some(j) = jugement
            && changements.is_empty()
        {
            tracing::info!(
                "parallélisme {} gardé : essai utile ({})",
                regulateur.courant(),
                j.texte()
            );
        }
        for changement in changements {
            places.ajuster(changement.apres);
            let precision = jugement
                .filter(|_| changement.cause == Cause::EssaiVain)
                .map(|j| j.texte());
            annoncer(&moteur, &changement, precision);
        }
    }
}

/// Un changement : barre et lignes, `-v` (journal texte), journal des décisions du plan.
fn annoncer<D: Depositaire>(moteur: &Moteur<D>, changement: &Changement, mesure: Option<String>) {
    let c = &moteur.commun;
    let texte = match mesure {
        Some(m) => format!("{} ({m})", changement.texte()),
        None => changement.texte(),
    };
    tracing::info!(
        avant = changement.avant,
        apres = changement.apres,
        plafond = changement.plafond,
        cause = changement.cause.texte(),
        "{texte}"
    );
    c.suivi.parallelisme(changement.apres, changement.plafond);
    c.journaliser(
        None,
        &DecisionJournalisee {
            methode: METHODE_JOURNAL.into(),
            cible: "passage".into(),
            tentative: 0,
            budget_restant: None,
            statut: None,
            attente: None,
            raison: None,
            detail: texte,
        },
    );
}

/// La « méthode » des lignes du journal du plan qui notent un changement de parallélisme.
pub(crate) const METHODE_JOURNAL: &str = "PARALLELISME";

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secondes: f64) -> Duration {
        Duration::from_secs_f64(secondes)
    }

    /// Un changement vu du test : (instant en dixièmes de seconde, parallélisme après, cause).
    type Vu = (u32, usize, Cause);

    /// Ce que le serveur acquitte, requête entière par requête entière (une partie, un
    /// fichier) : le compteur avance par paquets de `taille` octets, comme le vrai.
    struct Acquitte {
        taille: f64,
        en_cours: f64,
        cumul: Acquittes,
    }

    impl Acquitte {
        fn par_requetes_de(taille: f64) -> Self {
            Acquitte {
                taille,
                en_cours: 0.0,
                cumul: Acquittes::default(),
            }
        }

        fn avancer(&mut self, octets: f64) {
            self.en_cours += octets;
            while self.en_cours >= self.taille {
                self.en_cours -= self.taille;
                self.cumul.octets += self.taille as u64;
                self.cumul.requetes += 1;
            }
        }
    }

    /// Mène `r` au dixième de seconde, de `de` à `a` (dixièmes exclus), sur un lien dont le
    /// débit ne dépend que du parallélisme courant (`debit`, octets par seconde), acquitté par
    /// requêtes entières ; `coupure` dit quand tombe un incident. Rend les changements.
    fn simuler(
        r: &mut Regulateur,
        acquitte: &mut Acquitte,
        de: u32,
        a: u32,
        debit: impl Fn(usize) -> f64,
        coupure: impl Fn(u32) -> bool,
    ) -> Vec<Vu> {
        let mut vus = Vec::new();
        for dixiemes in de..a {
            let t = Duration::from_millis(u64::from(dixiemes) * 100);
            acquitte.avancer(debit(r.courant()) / 10.0);
            let c = if coupure(dixiemes) {
                r.incident(Cause::CoupureReseau, t)
            } else {
                r.tic(t, acquitte.cumul, true)
            };
            vus.extend(c.map(|c| (dixiemes, c.apres, c.cause)));
        }
        vus
    }

    /// Des fichiers de 2 Mio.
    fn fichiers() -> Acquitte {
        Acquitte::par_requetes_de(2.0 * 1024.0 * 1024.0)
    }

    /// Un lien qui est le goulot : 8 Mo/s quel que soit le nombre de transferts.
    fn goulot(_: usize) -> f64 {
        8e6
    }

    /// Un lien où chaque transfert est freiné par la latence : deux font deux fois mieux qu'un.
    fn latence(n: usize) -> f64 {
        n as f64 * 1e6
    }

    #[test]
    fn moitie_a_la_coupure_un_episode_compte_une_fois_jamais_sous_un() {
        let mut r = Regulateur::nouveau(8, s(0.0));
        // Lien calme au plafond : rien ne bouge.
        assert_eq!(r.tic(s(30.0), Acquittes::default(), true), None);
        let c = r.incident(Cause::CoupureReseau, s(31.0)).unwrap();
        assert_eq!((c.avant, c.apres, c.cause), (8, 4, Cause::CoupureReseau));
        // Les quatre transferts coupés par la même panne : une seule baisse.
        assert_eq!(r.incident(Cause::IncidentTransport, s(31.5)), None);
        assert_eq!(r.incident(Cause::IncidentTransport, s(32.9)), None);
        assert_eq!(r.courant(), 4);
        // Un nouvel épisode : moitié encore, puis encore, jamais sous 1.
        assert_eq!(
            r.incident(Cause::IncidentTransport, s(35.0)).unwrap().apres,
            2
        );
        assert_eq!(r.incident(Cause::CoupureReseau, s(38.0)).unwrap().apres, 1);
        assert_eq!(r.incident(Cause::CoupureReseau, s(41.0)), None);
        assert_eq!(r.courant(), 1);
    }

    #[test]
    fn la_ou_un_transfert_de_plus_sert_il_remonte_d_un_cran_par_periode_calme() {
        let mut r = Regulateur::nouveau(8, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        r.incident(Cause::CoupureReseau, s(3.0));
        r.incident(Cause::CoupureReseau, s(6.0));
        assert_eq!(r.courant(), 1);
        let mut acquitte = fichiers();
        let vus = simuler(&mut r, &mut acquitte, 60, 1400, latence, |_| false);
        // Le calme se compte depuis le dernier incident (6 s) ; chaque essai est jugé utile
        // quand assez de fichiers de 2 Mio ont été acquittés (quatre après le premier, trois
        // par transfert en vol : plus de 4 s à ces débits), et le suivant part une période
        // calme après ce jugement, sa référence mesurée.
        assert_eq!(
            vus,
            [164, 338, 518, 695, 871, 1045, 1221]
                .into_iter()
                .zip(2..=8)
                .map(|(t, n)| (t, n, Cause::Calme))
                .collect::<Vec<_>>()
        );
        assert_eq!(r.courant(), 8);
        assert_eq!(r.tic(s(200.0), acquitte.cumul, true), None, "au plafond");
    }

    #[test]
    fn lien_coupe_toutes_les_15_s() {
        // 1 s de coupure toutes les 15 s, plafond 4, le lien est le goulot : après la deuxième
        // coupure, un seul transfert en vol. Les essais d'un transfert de plus (de 2 à 3, puis
        // de 1 à 2) ne font pas croître le débit : chacun est défait avant la coupure
        // suivante, et ceux de 1 à 2 s'espacent de 20 s, 40 s, 80 s (comptées depuis
        // l'essai vain précédent, pas depuis la dernière coupure).
        let mut r = Regulateur::nouveau(4, s(0.0));
        let mut acquitte = fichiers();
        let vus = simuler(&mut r, &mut acquitte, 0, 3000, goulot, |d| d % 150 == 140);
        assert_eq!(
            vus,
            vec![
                (140, 2, Cause::CoupureReseau),
                (240, 3, Cause::Calme),
                (280, 2, Cause::EssaiVain),
                (290, 1, Cause::CoupureReseau),
                (390, 2, Cause::Calme),
                (430, 1, Cause::EssaiVain),
                (690, 2, Cause::Calme),
                (730, 1, Cause::EssaiVain),
                (1140, 2, Cause::Calme),
                (1180, 1, Cause::EssaiVain),
                (2040, 2, Cause::Calme),
                (2080, 1, Cause::EssaiVain),
            ]
        );
        assert_eq!(r.courant(), 1);
    }

    #[test]
    fn lien_lent_par_la_latence_qui_coupe_toutes_les_15_s() {
        // Le même lien qui coupe, où chaque transfert est freiné par la latence : deux le
        // remplissent, un seul n'en fait que la moitié. L'essai de 1 à 2 est utile, et les
        // coupures suivantes ne redescendent plus sous 2 ; les essais de 2 à 3, vains, sont
        // défaits avant la coupure suivante et s'espacent (20 s, 40 s, 80 s). Au bout de deux
        // minutes sans nouvel essai utile, ce plancher est oublié (le lien a pu changer) : une
        // coupure redescend à 1, et l'essai suivant remonte à 2.
        let deux_suffisent = |n: usize| n.min(2) as f64 * 4e6;
        let mut r = Regulateur::nouveau(4, s(0.0));
        let mut acquitte = fichiers();
        let vus = simuler(&mut r, &mut acquitte, 0, 1800, deux_suffisent, |d| {
            d % 150 == 140
        });
        assert_eq!(
            vus,
            vec![
                (140, 2, Cause::CoupureReseau),
                (240, 3, Cause::Calme),
                (280, 2, Cause::EssaiVain),
                (290, 1, Cause::CoupureReseau),
                (390, 2, Cause::Calme),
                // Jugé utile à 43 s ; plancher jusqu'à 163 s.
                (540, 3, Cause::Calme),
                (580, 2, Cause::EssaiVain),
                (990, 3, Cause::Calme),
                (1030, 2, Cause::EssaiVain),
                (1640, 1, Cause::CoupureReseau),
                (1740, 2, Cause::Calme),
            ]
        );
        assert_eq!(r.courant(), 2);
    }

    #[test]
    fn un_essai_vain_double_l_attente_du_suivant_un_essai_utile_la_ramene() {
        let mut r = Regulateur::nouveau(4, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        r.incident(Cause::CoupureReseau, s(3.0));
        assert_eq!(r.courant(), 1);
        let mut acquitte = fichiers();
        let vus = simuler(&mut r, &mut acquitte, 30, 4000, goulot, |_| false);
        // Essais à 13 s, puis 20, 40, 80, 160 s après le jugement de l'essai vain précédent,
        // et 160 s au plus ensuite ; chacun défait 4 s plus tard.
        let essais = [130, 370, 810, 1650, 3290];
        let attendu: Vec<Vu> = essais
            .iter()
            .flat_map(|&t| [(t, 2, Cause::Calme), (t + 40, 1, Cause::EssaiVain)])
            .collect();
        assert_eq!(vus, attendu);
        // Le lien change (un autre réseau, où la latence freine chaque transfert) : l'essai
        // suivant, 160 s après le dernier jugement (333 s), est utile ; le suivant ne tarde
        // plus qu'une période calme.
        let vus = simuler(&mut r, &mut acquitte, 4000, 5200, latence, |_| false);
        assert_eq!(vus, vec![(4930, 2, Cause::Calme), (5106, 3, Cause::Calme)]);
    }

    #[test]
    fn sur_un_lien_lent_acquitte_par_parties_de_5_mio_le_jugement_ne_tire_pas_au_sort() {
        // 1 Mo/s, une partie de 5 Mio acquittée toutes les 5 s environ : trois secondes n'en
        // voient aucune. Le jugement attend quatre parties acquittées.
        let parties = || Acquitte::par_requetes_de(5.0 * 1024.0 * 1024.0);
        // Le lien est le goulot : aucune hausse n'est gardée.
        let mut r = Regulateur::nouveau(4, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        r.incident(Cause::CoupureReseau, s(3.0));
        let vus = simuler(&mut r, &mut parties(), 30, 12_000, |_| 1e6, |_| false);
        assert!(!vus.is_empty());
        for paire in vus.chunks(2) {
            assert_eq!(
                paire.iter().map(|v| (v.1, v.2)).collect::<Vec<_>>(),
                [(2, Cause::Calme), (1, Cause::EssaiVain)],
                "{vus:?}"
            );
        }
        // Chaque transfert est freiné (0,5 Mo/s chacun) : chaque hausse est gardée.
        let mut r = Regulateur::nouveau(4, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        r.incident(Cause::CoupureReseau, s(3.0));
        let vus = simuler(
            &mut r,
            &mut parties(),
            30,
            3000,
            |n| n as f64 * 5e5,
            |_| false,
        );
        assert_eq!(
            vus.iter().map(|v| (v.1, v.2)).collect::<Vec<_>>(),
            [(2, Cause::Calme), (3, Cause::Calme), (4, Cause::Calme)],
            "{vus:?}"
        );
    }

    #[test]
    fn une_hausse_interrompue_par_un_incident_est_vaine() {
        let mut r = Regulateur::nouveau(2, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        let mut acquitte = fichiers();
        // Essai à 10,5 s (la référence attend ses quatre fichiers) ; une coupure à 12 s, avant
        // le jugement : moitié, et l'essai suivant attend 20 s (32 s), bien qu'un transfert de
        // plus serve sur ce lien.
        let vus = simuler(&mut r, &mut acquitte, 1, 400, latence, |d| d == 120);
        assert_eq!(
            vus,
            vec![
                (105, 2, Cause::Calme),
                (120, 1, Cause::CoupureReseau),
                (320, 2, Cause::Calme),
            ]
        );
        assert_eq!(r.courant(), 2, "gardé : jugé utile à 36 s");
    }

    #[test]
    fn changement_lisible() {
        let mut r = Regulateur::nouveau(4, s(0.0));
        let c = r.incident(Cause::CoupureReseau, s(1.0)).unwrap();
        assert_eq!(
            c.texte(),
            "parallélisme 4 → 2 (plafond 4) : coupure du réseau"
        );
        let mut acquitte = fichiers();
        let vus = simuler(&mut r, &mut acquitte, 10, 160, goulot, |_| false);
        assert_eq!(
            vus,
            vec![(110, 3, Cause::Calme), (150, 2, Cause::EssaiVain)]
        );
        let texte = |avant, apres, cause| {
            Changement {
                avant,
                apres,
                plafond: 4,
                cause,
            }
            .texte()
        };
        assert_eq!(
            texte(2, 3, Cause::Calme),
            "parallélisme 2 → 3 (plafond 4) : période calme, essai d'un transfert de plus"
        );
        assert_eq!(
            texte(3, 2, Cause::EssaiVain),
            "parallélisme 3 → 2 (plafond 4) : essai sans gain de débit"
        );
        let jugement = Jugement {
            reference: 6.4e6,
            mesure: 6.6e6,
            requis: 0.15,
        };
        assert_eq!(jugement.texte(), "6,4 → 6,6 Mo/s, +3 % pour 15 % demandés");
    }

    #[tokio::test]
    async fn une_place_de_plus_ne_passe_jamais_devant_un_fichier_qui_attend() {
        let places = Arc::new(PlacesAdaptatives::nouvelles(2));
        let a = places.prendre().await.unwrap();
        let b = places.essayer_prendre().expect("une place libre");
        assert!(places.essayer_prendre().is_none(), "plus aucune place");
        // Un fichier attend sa place (le test tourne sur un seul fil : céder la main laisse la
        // tâche se mettre en attente).
        let attente = tokio::spawn({
            let places = Arc::clone(&places);
            async move { places.prendre().await.unwrap() }
        });
        tokio::task::yield_now().await;
        drop(b);
        assert!(
            places.essayer_prendre().is_none(),
            "la place rendue va au fichier qui attend"
        );
        let c = attente.await.unwrap();
        drop((a, c));
        assert_eq!(places.libres(), 2);
    }

    #[tokio::test]
    async fn les_places_suivent_le_regulateur_sans_couper_les_transferts() {
        let places = PlacesAdaptatives::nouvelles(4);
        let a = places.prendre().await.unwrap();
        let b = places.prendre().await.unwrap();
        let c = places.prendre().await.unwrap();
        assert_eq!(places.libres(), 1);
        // Baisse à 1 : la place libre disparaît aussitôt, deux autres à leur retour.
        places.ajuster(1);
        assert_eq!(places.libres(), 0);
        drop(a);
        drop(b);
        assert_eq!(
            places.libres(),
            0,
            "les places rendues en trop sont retirées"
        );
        drop(c);
        assert_eq!(places.libres(), 1);
        // Hausse : les places reviennent.
        places.ajuster(3);
        assert_eq!(places.libres(), 3);
        // Une hausse pendant une dette l'annule d'abord.
        let x = places.prendre().await.unwrap();
        let y = places.prendre().await.unwrap();
        let z = places.prendre().await.unwrap();
        places.ajuster(1);
        places.ajuster(2);
        drop(x);
        drop(y);
        drop(z);
        assert_eq!(places.libres(), 2);
    }
}
