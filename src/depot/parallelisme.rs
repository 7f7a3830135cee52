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
//! - après une [`PERIODE_CALME`] sans incident, il remonte de **un**, jusqu'au plafond.
//!
//! Le [`Regulateur`] est pur (instants passés en argument) : il se teste sur une suite
//! d'événements. [`PlacesAdaptatives`] l'applique au sémaphore de l'ordonnanceur ; une baisse
//! n'interrompt aucun transfert : les places en trop disparaissent quand elles sont rendues.
//! [`piloter`] relève les compteurs du réseau, nourrit le régulateur, et annonce chaque
//! changement (barre, `-v`, journal du plan).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};

use super::{Depositaire, Moteur};
use crate::reessai::DecisionJournalisee;

/// Sans incident pendant ce temps, le parallélisme remonte d'un cran. Plus long que l'écart
/// entre deux coupures d'un lien qui coupe souvent (15 s au banc) : sinon le parallélisme
/// serait revenu au plafond à chaque coupure, et la baisse n'aurait rien épargné.
pub const PERIODE_CALME: Duration = Duration::from_secs(10);
/// Les incidents qui suivent une baisse de moins que ce délai sont du même épisode.
pub const FENETRE_EPISODE: Duration = Duration::from_secs(2);
/// Cadence de relève des compteurs du réseau.
const CADENCE: Duration = Duration::from_millis(100);

/// Ce qui fait changer le parallélisme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Le réseau a été déclaré coupé (pause globale).
    CoupureReseau,
    /// Une tentative est restée sans réponse (connexion refusée, coupée, bloquée).
    IncidentTransport,
    /// Une période calme s'est écoulée.
    Calme,
}

impl Cause {
    pub fn texte(self) -> &'static str {
        match self {
            Cause::CoupureReseau => "coupure du réseau",
            Cause::IncidentTransport => "incident de transport",
            Cause::Calme => "période calme",
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

/// Le régulateur : pur, les instants (temps écoulé depuis une origine) lui sont donnés.
#[derive(Debug, Clone)]
pub struct Regulateur {
    plafond: usize,
    courant: usize,
    /// Dernier incident ou dernière hausse : le calme se compte à partir de là.
    calme_depuis: Duration,
    derniere_baisse: Option<Duration>,
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
        }
    }

    pub fn courant(&self) -> usize {
        self.courant
    }

    /// Un incident (coupure ou incident de transport) : moitié, sauf s'il est du même épisode
    /// que la dernière baisse.
    pub fn incident(&mut self, cause: Cause, maintenant: Duration) -> Option<Changement> {
        self.calme_depuis = maintenant;
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

    /// Le temps passe : +1 après une période calme.
    pub fn tic(&mut self, maintenant: Duration) -> Option<Changement> {
        if self.courant >= self.plafond
            || maintenant.saturating_sub(self.calme_depuis) < PERIODE_CALME
        {
            return None;
        }
        self.calme_depuis = maintenant;
        self.changer(self.courant + 1, Cause::Calme)
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
            changements.extend(regulateur.tic(maintenant));
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

    #[test]
    fn moitie_a_la_coupure_plus_un_apres_le_calme_jamais_sous_un() {
        let mut r = Regulateur::nouveau(8, s(0.0));
        // Lien calme au plafond : rien ne bouge.
        assert_eq!(r.tic(s(30.0)), None);
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
        // Le calme se compte depuis le dernier incident (41 s).
        assert_eq!(r.tic(s(50.9)), None);
        let c = r.tic(s(51.0)).unwrap();
        assert_eq!((c.avant, c.apres, c.cause), (1, 2, Cause::Calme));
        // Puis un cran par période calme, jusqu'au plafond.
        assert_eq!(r.tic(s(60.0)), None);
        assert_eq!(r.tic(s(61.0)).unwrap().apres, 3);
        let mut t = 61.0;
        while r.courant() < 8 {
            t += 10.0;
            r.tic(s(t));
        }
        assert_eq!(t, 111.0);
        assert_eq!(r.tic(s(200.0)), None);
        assert_eq!(r.courant(), 8);
    }

    #[test]
    fn lien_coupe_toutes_les_15_s() {
        // 1 s de coupure toutes les 15 s, plafond 4 : après la première coupure, le régulateur
        // oscille entre 1 et 2 ; chaque coupure trouve au plus deux transferts en vol.
        let mut r = Regulateur::nouveau(4, s(0.0));
        let mut historique = Vec::new();
        for dixiemes in 0..600 {
            let t = f64::from(dixiemes) / 10.0;
            let coupure = dixiemes % 150 == 140;
            let c = if coupure {
                r.incident(Cause::CoupureReseau, s(t))
            } else {
                r.tic(s(t))
            };
            historique.extend(c.map(|c| (t, c.apres)));
        }
        assert_eq!(
            historique,
            vec![
                (14.0, 2),
                (24.0, 3),
                (29.0, 1),
                (39.0, 2),
                (44.0, 1),
                (54.0, 2),
                (59.0, 1)
            ]
        );
    }

    #[test]
    fn changement_lisible() {
        let mut r = Regulateur::nouveau(4, s(0.0));
        let c = r.incident(Cause::CoupureReseau, s(1.0)).unwrap();
        assert_eq!(
            c.texte(),
            "parallélisme 4 → 2 (plafond 4) : coupure du réseau"
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
