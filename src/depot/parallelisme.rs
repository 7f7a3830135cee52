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
//! - après une [`PERIODE_CALME`] sans incident, il **essaie** un transfert de plus : la hausse
//!   est gardée si le débit acquitté par le serveur (octets des requêtes réussies) croît assez
//!   ([`gain_requis`]) ; sinon le lien est le goulot, un transfert de plus ne ferait que
//!   risquer davantage à la prochaine coupure, et le parallélisme revient où il était. Une
//!   hausse qu'un incident interrompt avant d'avoir fait ses preuves est vaine elle aussi.
//!   Après chaque essai vain, la période calme qui précède le suivant double (jusqu'à 16 fois) ;
//!   un essai utile la ramène à [`PERIODE_CALME`].
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

/// Sans incident pendant ce temps, un transfert de plus est essayé (gardé s'il fait croître le
/// débit). Sans la mesure, c'était la seule défense : sur un lien qui coupe toutes les 15 s, le
/// parallélisme remontait à 2 avant chaque coupure, qui coupait donc deux transferts au lieu
/// d'un (`BENCHMARKS.md` § 5).
pub const PERIODE_CALME: Duration = Duration::from_secs(10);
/// Les incidents qui suivent une baisse de moins que ce délai sont du même épisode.
pub const FENETRE_EPISODE: Duration = Duration::from_secs(2);
/// Après une hausse, le temps laissé au transfert de plus pour prendre sa part du lien avant
/// que le débit ne se mesure.
pub const MISE_EN_ROUTE: Duration = Duration::from_secs(1);
/// Le débit acquitté se mesure sur cette durée : juste avant une hausse (la référence), puis
/// après sa mise en route. Une hausse est donc jugée [`MISE_EN_ROUTE`] + [`FENETRE_MESURE`]
/// après avoir été décidée.
pub const FENETRE_MESURE: Duration = Duration::from_secs(3);
/// Une hausse de n à n + 1 est gardée si le débit acquitté croît au moins de la moitié de ce
/// qu'un transfert de plus apporterait là où chacun est freiné par la latence (1/n) : 50 % de
/// 1 à 2, 25 % de 2 à 3, 12,5 % de 4 à 5 ; jamais moins de [`GAIN_PLANCHER`]. Sur un lien qui est
/// le goulot, deux mesures de 3 s diffèrent de quelques pour cent (les requêtes s'achèvent par
/// paquets d'une partie ou d'un fichier).
fn gain_requis(courant: usize) -> f64 {
    (0.5 / courant.max(1) as f64).max(GAIN_PLANCHER)
}
/// Le gain en deçà duquel une mesure ne se distingue pas du bruit.
pub const GAIN_PLANCHER: f64 = 0.05;
/// Au plus 2⁴ = 16 fois la période calme entre deux essais après des essais vains.
const ESSAIS_VAINS_MAX: u32 = 4;
/// Cadence de relève des compteurs du réseau.
const CADENCE: Duration = Duration::from_millis(100);

/// Ce qui fait changer le parallélisme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
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
    pub fn texte(self) -> &'static str {
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
pub struct Changement {
    pub avant: usize,
    pub apres: usize,
    pub plafond: usize,
    pub cause: Cause,
}

impl Changement {
    /// « parallélisme 4 → 2 (plafond 4) : coupure du réseau »
    pub fn texte(&self) -> String {
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
pub struct Regulateur {
    plafond: usize,
    courant: usize,
    /// Dernier incident, dernière hausse ou dernier jugement d'un essai : le calme se compte à
    /// partir de là.
    calme_depuis: Duration,
    derniere_baisse: Option<Duration>,
    /// Les relevés des octets acquittés (instant, cumul), sur les dernières secondes.
    releves: VecDeque<(Duration, u64)>,
    /// La hausse en cours d'essai.
    essai: Option<Essai>,
    /// Essais vains de suite : la période calme avant le suivant en est doublée d'autant.
    essais_vains: u32,
}

/// Une hausse à l'essai : quand elle a été décidée, et le débit acquitté juste avant (octets
/// par seconde ; `None` s'il n'a pas pu se mesurer).
#[derive(Debug, Clone, Copy)]
struct Essai {
    debut: Duration,
    reference: Option<f64>,
}

impl Regulateur {
    /// Commence au plafond : sur un bon lien, rien ne change.
    pub fn nouveau(plafond: usize, maintenant: Duration) -> Self {
        let plafond = plafond.max(1);
        Regulateur {
            plafond,
            courant: plafond,
            calme_depuis: maintenant,
            derniere_baisse: None,
            releves: VecDeque::new(),
            essai: None,
            essais_vains: 0,
        }
    }

    pub fn courant(&self) -> usize {
        self.courant
    }

    /// Un incident (coupure ou incident de transport) : moitié, sauf s'il est du même épisode
    /// que la dernière baisse. Une hausse à l'essai est vaine.
    pub fn incident(&mut self, cause: Cause, maintenant: Duration) -> Option<Changement> {
        self.calme_depuis = maintenant;
        if self.essai.take().is_some() {
            self.essai_vain();
        }
        let meme_episode = self
            .derniere_baisse
            .is_some_and(|b| maintenant.saturating_sub(b) < FENETRE_EPISODE);
        if meme_episode || self.courant == 1 {
            return None;
        }
        self.derniere_baisse = Some(maintenant);
        self.changer((self.courant / 2).max(1), cause)
    }

    /// Le réseau est en pause : ce n'est pas du calme.
    pub fn agite(&mut self, maintenant: Duration) {
        self.calme_depuis = maintenant;
    }

    /// Le temps passe ; `acquittes` : les octets acquittés par le serveur depuis le début du
    /// passage. Juge la hausse à l'essai quand sa mesure est faite ; sinon, après une période
    /// calme (doublée par chaque essai vain), essaie un transfert de plus.
    pub fn tic(&mut self, maintenant: Duration, acquittes: u64) -> Option<Changement> {
        self.releves.push_back((maintenant, acquittes));
        let garde = MISE_EN_ROUTE + FENETRE_MESURE + FENETRE_MESURE;
        while self
            .releves
            .front()
            .is_some_and(|(t, _)| maintenant.saturating_sub(*t) > garde)
        {
            self.releves.pop_front();
        }
        if let Some(essai) = self.essai {
            if maintenant < essai.debut + MISE_EN_ROUTE + FENETRE_MESURE {
                return None;
            }
            self.essai = None;
            self.calme_depuis = maintenant;
            let mesure = self.debit_depuis(essai.debut + MISE_EN_ROUTE);
            let utile = match (essai.reference, mesure) {
                (Some(reference), Some(mesure)) => {
                    let avant = self.courant.saturating_sub(1);
                    reference <= 0.0 || mesure >= reference * (1.0 + gain_requis(avant))
                }
                // Rien de mesurable (relevés trop rares) : la hausse est gardée, comme sans
                // mesure.
                _ => true,
            };
            if utile {
                self.essais_vains = 0;
                return None;
            }
            self.essai_vain();
            return self.changer(self.courant.saturating_sub(1).max(1), Cause::EssaiVain);
        }
        let attente = PERIODE_CALME * (1 << self.essais_vains);
        if self.courant >= self.plafond || maintenant.saturating_sub(self.calme_depuis) < attente {
            return None;
        }
        self.calme_depuis = maintenant;
        self.essai = Some(Essai {
            debut: maintenant,
            reference: self.debit_depuis(maintenant.saturating_sub(FENETRE_MESURE)),
        });
        self.changer(self.courant + 1, Cause::Calme)
    }

    fn essai_vain(&mut self) {
        self.essais_vains = (self.essais_vains + 1).min(ESSAIS_VAINS_MAX);
    }

    /// Le débit acquitté (octets par seconde) depuis `depuis` jusqu'au dernier relevé, s'il
    /// couvre au moins la moitié de [`FENETRE_MESURE`].
    fn debit_depuis(&self, depuis: Duration) -> Option<f64> {
        let (t0, o0) = *self.releves.iter().find(|(t, _)| *t >= depuis)?;
        let (t1, o1) = *self.releves.back()?;
        let duree = t1.checked_sub(t0)?;
        (duree >= FENETRE_MESURE / 2).then(|| o1.saturating_sub(o0) as f64 / duree.as_secs_f64())
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
pub struct PlacesAdaptatives {
    semaphore: Arc<Semaphore>,
    /// Permis à retirer dès qu'ils seront rendus (une baisse sous le nombre en vol).
    dette: Arc<AtomicUsize>,
    courant: AtomicUsize,
}

/// Une place prise ; rendue (ou retirée, si le parallélisme a baissé) à sa fin.
#[derive(Debug)]
pub struct Place {
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
    pub fn nouvelles(plafond: usize) -> Arc<Self> {
        let plafond = plafond.max(1);
        Arc::new(PlacesAdaptatives {
            semaphore: Arc::new(Semaphore::new(plafond)),
            dette: Arc::new(AtomicUsize::new(0)),
            courant: AtomicUsize::new(plafond),
        })
    }

    /// Attend une place libre.
    pub async fn prendre(&self) -> Result<Place, AcquireError> {
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
    pub fn essayer_prendre(&self) -> Option<Place> {
        let permis = Arc::clone(&self.semaphore).try_acquire_owned().ok()?;
        Some(Place {
            permis: Some(permis),
            dette: Arc::clone(&self.dette),
        })
    }

    /// Le parallélisme voulu.
    pub fn courant(&self) -> usize {
        self.courant.load(Ordering::SeqCst)
    }

    /// Ajuste les permis à `nombre` : les permis libres en trop sont retirés tout de suite,
    /// les autres à leur retour ; une hausse annule d'abord une dette.
    pub fn ajuster(&self, nombre: usize) {
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
        if releve.coupures > vus.coupures {
            changements.extend(regulateur.incident(Cause::CoupureReseau, maintenant));
        } else if releve.injoignables > vus.injoignables {
            changements.extend(regulateur.incident(Cause::IncidentTransport, maintenant));
        } else if reseau.est_coupe() {
            regulateur.agite(maintenant);
        } else {
            changements.extend(regulateur.tic(maintenant, reseau.acquittes()));
        }
        vus = releve;
        for changement in changements {
            places.ajuster(changement.apres);
            annoncer(&moteur, &changement);
        }
    }
}

/// Un changement : barre et lignes, `-v` (journal texte), journal des décisions du plan.
fn annoncer<D: Depositaire>(moteur: &Moteur<D>, changement: &Changement) {
    let c = &moteur.commun;
    let texte = changement.texte();
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
pub const METHODE_JOURNAL: &str = "PARALLELISME";

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secondes: f64) -> Duration {
        Duration::from_secs_f64(secondes)
    }

    /// Un changement vu du test : (instant en dixièmes de seconde, parallélisme après, cause).
    type Vu = (u32, usize, Cause);

    /// Mène `r` au dixième de seconde, de `de` à `a` (dixièmes exclus), sur un lien dont le
    /// débit acquitté ne dépend que du parallélisme courant (`debit`, octets par seconde) ;
    /// `coupure` dit quand tombe un incident. Rend les changements.
    fn simuler(
        r: &mut Regulateur,
        acquittes: &mut f64,
        de: u32,
        a: u32,
        debit: impl Fn(usize) -> f64,
        coupure: impl Fn(u32) -> bool,
    ) -> Vec<Vu> {
        let mut vus = Vec::new();
        for dixiemes in de..a {
            let t = Duration::from_millis(u64::from(dixiemes) * 100);
            *acquittes += debit(r.courant()) / 10.0;
            let c = if coupure(dixiemes) {
                r.incident(Cause::CoupureReseau, t)
            } else {
                r.tic(t, *acquittes as u64)
            };
            vus.extend(c.map(|c| (dixiemes, c.apres, c.cause)));
        }
        vus
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
        assert_eq!(r.tic(s(30.0), 0), None);
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
        let mut acquittes = 0.0;
        let vus = simuler(&mut r, &mut acquittes, 60, 1400, latence, |_| false);
        // Le calme se compte depuis le dernier incident (6 s) ; chaque essai est jugé 4 s plus
        // tard, utile, et le suivant part une période calme après ce jugement.
        assert_eq!(
            vus,
            [160, 300, 440, 580, 720, 860, 1000]
                .into_iter()
                .zip(2..=8)
                .map(|(t, n)| (t, n, Cause::Calme))
                .collect::<Vec<_>>()
        );
        assert_eq!(r.courant(), 8);
        assert_eq!(r.tic(s(200.0), acquittes as u64), None, "au plafond");
    }

    #[test]
    fn lien_coupe_toutes_les_15_s() {
        // 1 s de coupure toutes les 15 s, plafond 4, le lien est le goulot : après la deuxième
        // coupure, un seul transfert en vol. L'essai d'un deuxième ne fait pas croître le
        // débit : il est défait avant la coupure suivante, et le prochain attendrait 20 s de
        // calme, que ce lien n'offre jamais.
        let mut r = Regulateur::nouveau(4, s(0.0));
        let mut acquittes = 0.0;
        let vus = simuler(&mut r, &mut acquittes, 0, 1800, goulot, |d| d % 150 == 140);
        assert_eq!(
            vus,
            vec![
                (140, 2, Cause::CoupureReseau),
                (240, 3, Cause::Calme),
                (280, 2, Cause::EssaiVain),
                (290, 1, Cause::CoupureReseau),
            ]
        );
        assert_eq!(r.courant(), 1);
    }

    #[test]
    fn un_essai_vain_double_l_attente_du_suivant_un_essai_utile_la_ramene() {
        let mut r = Regulateur::nouveau(4, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        r.incident(Cause::CoupureReseau, s(3.0));
        assert_eq!(r.courant(), 1);
        let mut acquittes = 0.0;
        let vus = simuler(&mut r, &mut acquittes, 30, 4000, goulot, |_| false);
        // Essais à 13 s, puis après 20, 40, 80, 160 s de calme, et 160 s au plus ensuite ;
        // chacun défait 4 s plus tard.
        let essais = [130, 370, 810, 1650, 3290];
        let attendu: Vec<Vu> = essais
            .iter()
            .flat_map(|&t| [(t, 2, Cause::Calme), (t + 40, 1, Cause::EssaiVain)])
            .collect();
        assert_eq!(vus, attendu);
        // Le lien change (un autre réseau, où la latence freine chaque transfert) : l'essai
        // suivant, 160 s après le dernier jugement (333 s), est utile ; le suivant ne tarde
        // plus qu'une période calme.
        let vus = simuler(&mut r, &mut acquittes, 4000, 5200, latence, |_| false);
        assert_eq!(vus, vec![(4930, 2, Cause::Calme), (5070, 3, Cause::Calme)]);
    }

    #[test]
    fn une_hausse_interrompue_par_un_incident_est_vaine() {
        let mut r = Regulateur::nouveau(2, s(0.0));
        r.incident(Cause::CoupureReseau, s(0.0));
        let mut acquittes = 0.0;
        // Essai à 10 s ; une coupure à 12 s, avant le jugement : moitié, et l'essai suivant
        // attend 20 s de calme (32 s), bien qu'un transfert de plus serve sur ce lien.
        let vus = simuler(&mut r, &mut acquittes, 1, 400, latence, |d| d == 120);
        assert_eq!(
            vus,
            vec![
                (100, 2, Cause::Calme),
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
        let mut acquittes = 0.0;
        let vus = simuler(&mut r, &mut acquittes, 10, 160, goulot, |_| false);
        assert_eq!(vus.len(), 2);
        let mut r = Regulateur::nouveau(4, s(0.0));
        r.incident(Cause::CoupureReseau, s(1.0));
        let hausse = r.tic(s(11.0), 0).unwrap();
        assert_eq!(
            hausse.texte(),
            "parallélisme 2 → 3 (plafond 4) : période calme, essai d'un transfert de plus"
        );
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
