//! `--attendre` : relever l'état du calcul jusqu'à ce qu'il soit fini ou en erreur, Ctrl-C, ou
//! l'échéance.
//!
//! Pourquoi ainsi : un calcul dure de quelques minutes à plusieurs heures, et la plateforme le
//! fait pour toutes les nuits de tous les participants. Un relevé d'état qui insiste
//! transformerait une lenteur du serveur en rafale (`docs/politique-reessai.md`, profil BREF) ; des
//! relevés serrés aussi. D'où :
//! - chaque relevé est un sondage BREF ([`super::relever`]) ; un relevé manqué n'arrête rien ;
//! - entre deux relevés, le backoff de la politique de réessai ([`PolitiqueReessai`]) : une
//!   enveloppe de `premier` (30 s par défaut, [`Cadence::nouveau`]), doublée à chaque relevé
//!   jusqu'au `plafond` (5 min), l'attente tirée entre la moitié et le tout (gigue égale :
//!   des portables lancés ensemble ne relèvent pas ensemble) ;
//! - l'échéance (`--echeance`) : un relevé qui tomberait après elle n'est pas attendu, le
//!   suivi s'arrête sur le dernier état relevé ;
//! - Ctrl-C interrompt aussitôt, relevé en cours comme attente ;
//! - toute attente a une fin dite : une nuit sans calcul lancé arrête le suivi au premier
//!   relevé (rien ne viendra sans `vigie traiter`) ; un calcul qui **semble arrêté** (planifié,
//!   en cours ou en attente d'un nouvel essai depuis plus d'un jour, ce que `vigie traiter`
//!   appelle ainsi : [`super::lancer::avant_calcul`]) est encore suivi pendant
//!   [`Cadence::patience`] (`--patience`, 30 min par défaut), puis le suivi rend la main :
//!   jamais de relevé « aucun calcul lancé » sans fin, ni de calcul en cours depuis trois
//!   jours suivi indéfiniment.
//!
//! L'horloge et l'aléa sont injectés : les tests déroulent des heures de relevés sans attendre.
//! Dire qu'un calcul semble arrêté compare ses dates (celles de la plateforme) à l'instant du
//! début du suivi, avancé du temps de l'horloge injectée.

use std::future::Future;
use std::time::Duration;

use super::lancer::{AvantCalcul, avant_calcul};
use super::{EtatParticipation, Releve, est_termine};
use crate::horodatage::InstantUtc;
use crate::reessai::{
    Annulation, PolitiqueReessai, Reglages, SourceAlea, TENTATIVES_MAX_ADMISES, Temporisateur,
};

/// Combien de temps suivre encore un calcul qui semble arrêté, par défaut (`--patience`).
pub(crate) const PATIENCE_PAR_DEFAUT: &str = "30min";

/// La cadence des relevés.
#[derive(Debug, Clone)]
pub(crate) struct Cadence {
    politique: PolitiqueReessai,
    /// Combien de temps suivre encore un calcul qui semble arrêté avant de rendre la main.
    patience: Duration,
}

impl Cadence {
    /// Enveloppe de la première attente `premier`, plafond `plafond`, échéance éventuelle,
    /// `patience` face à un calcul qui semble arrêté.
    pub(crate) fn nouveau(
        premier: Duration,
        plafond: Duration,
        echeance: Option<Duration>,
        patience: Duration,
    ) -> Result<Cadence, crate::reessai::ErreurReglage> {
        let reglages = Reglages::insistant()
            .avec_tentatives_max(TENTATIVES_MAX_ADMISES)
            .avec_base(premier)
            .avec_plafond(plafond);
        let reglages = match echeance {
            Some(e) => reglages.avec_echeance(e),
            None => reglages.sans_echeance(),
        };
        Ok(Cadence {
            politique: reglages.valider()?,
            patience,
        })
    }

    /// Combien de temps suivre encore un calcul qui semble arrêté (`--patience`).
    pub(crate) fn patience(&self) -> Duration {
        self.patience
    }

    /// L'attente après le relevé `numero` (à partir de 1), pour un tirage `alea`.
    pub(crate) fn attente(&self, numero: u32, alea: f64) -> Duration {
        self.politique.attente_backoff(numero, alea)
    }
}

/// Ce que le suivi annonce (l'indicateur, les lignes, le JSON).
pub(crate) trait AnnoncesReleve: Send + Sync {
    /// Un relevé vient d'être fait (ou manqué) ; le suivant part dans `prochain` (`None` :
    /// c'est le dernier).
    fn releve(&self, releve: &Releve, prochain: Option<Duration>);

    /// Pendant l'attente, à chaque seconde : le relevé suivant part dans `reste`.
    fn decompte(&self, _reste: Duration) {}

    /// Le suivi est fini : ce qui s'affichait s'efface (avant d'écrire le résultat).
    fn terminer(&self) {}
}

/// Comment le suivi s'est arrêté.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FinDuSuivi {
    /// Le calcul est fini ou en erreur.
    Termine(EtatParticipation),
    /// Aucun calcul n'est lancé : rien ne viendra sans `vigie traiter` (l'état relevé).
    SansCalcul(EtatParticipation),
    /// Le calcul semble arrêté, et l'est resté pendant la patience (le dernier état relevé).
    Arrete(EtatParticipation),
    /// L'échéance : le dernier état relevé, s'il y en a eu un.
    Echeance(Option<EtatParticipation>),
    /// Ctrl-C : le dernier état relevé, s'il y en a eu un.
    Interrompu(Option<EtatParticipation>),
}

/// Relève par `relever` jusqu'à la fin du calcul, l'échéance, `annulation`, une nuit sans
/// calcul ou un calcul arrêté (`depart` : l'instant du début du suivi, pour juger les dates de
/// la plateforme). Une erreur de `relever` (un refus qui ne changera pas de lui-même) arrête le
/// suivi et remonte.
pub(crate) async fn suivre<H, A, F, Fut>(
    cadence: &Cadence,
    depart: InstantUtc,
    horloge: &H,
    alea: &A,
    annulation: &Annulation,
    mut relever: F,
    annonces: &dyn AnnoncesReleve,
) -> anyhow::Result<FinDuSuivi>
where
    H: Temporisateur,
    A: SourceAlea,
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<Releve>>,
{
    let debut = horloge.maintenant();
    let mut dernier: Option<EtatParticipation> = None;
    let mut numero: u32 = 0;
    // Depuis quand (horloge du suivi) le calcul semble arrêté.
    let mut arret_vu: Option<Duration> = None;
    loop {
        if annulation.est_annulee() {
            return Ok(FinDuSuivi::Interrompu(dernier));
        }
        numero = numero.saturating_add(1);
        let releve = tokio::select! {
            r = relever() => r?,
            () = annulation.annulee() => return Ok(FinDuSuivi::Interrompu(dernier)),
        };
        if let Releve::Lu(e) = &releve {
            if est_termine(e) {
                annonces.releve(&releve, None);
                return Ok(FinDuSuivi::Termine((**e).clone()));
            }
            if e.traitement.is_none() {
                annonces.releve(&releve, None);
                return Ok(FinDuSuivi::SansCalcul((**e).clone()));
            }
            let ecoule = horloge.maintenant().saturating_sub(debut);
            let instant = InstantUtc::depuis_secondes(
                depart.secondes().saturating_add(ecoule.as_secs() as i64),
            );
            if avant_calcul(e.traitement.as_ref(), false, true, instant) == AvantCalcul::Arrete {
                let vu = *arret_vu.get_or_insert(ecoule);
                if ecoule.saturating_sub(vu) >= cadence.patience {
                    annonces.releve(&releve, None);
                    return Ok(FinDuSuivi::Arrete((**e).clone()));
                }
            } else {
                arret_vu = None;
            }
            dernier = Some((**e).clone());
        }
        let pause = cadence.attente(numero, alea.tirer());
        let ecoule = horloge.maintenant().saturating_sub(debut);
        if let Some(reste) = cadence.politique.budget_restant(ecoule)
            && pause >= reste
        {
            annonces.releve(&releve, None);
            return Ok(FinDuSuivi::Echeance(dernier));
        }
        annonces.releve(&releve, Some(pause));
        let fin = horloge.maintenant().saturating_add(pause);
        loop {
            let reste = fin.saturating_sub(horloge.maintenant());
            if reste.is_zero() {
                break;
            }
            annonces.decompte(reste);
            // Jusqu'à la seconde ronde suivante du décompte, puis seconde par seconde.
            let secondes = reste.as_millis().div_ceil(1000) as u64;
            let pas = reste.saturating_sub(Duration::from_secs(secondes.saturating_sub(1)));
            tokio::select! {
                () = horloge.attendre(pas) => {}
                () = annulation.annulee() => return Ok(FinDuSuivi::Interrompu(dernier)),
            }
        }
    }
}

#[cfg(test)]
mod tests;
