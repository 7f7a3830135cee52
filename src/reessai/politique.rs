//! La politique de réessai : après chaque réponse, rejouer (et quand) ou s'arrêter (et pourquoi).
//!
//! Pourquoi (`docs/politique-reessai.md`) : le dépôt d'une nuit se fait depuis le terrain, sur
//! un partage de connexion mobile ; une coupure d'une seconde y est normale et ne doit pas
//! coûter un geste humain. Mais un réessai mal borné fait pire que le mal : rafales
//! synchronisées qui empêchent le service de se rétablir, opération de dix secondes qui en dure
//! dix minutes, écriture non idempotente rejouée en doublon.
//!
//! Comme chez `cargo` (`src/util/network/retry.rs`), **décider et attendre sont séparés** :
//! [`PolitiqueReessai::decider`] est une fonction pure qui reçoit le temps écoulé et l'aléa en
//! arguments et rend une [`Decision`] ; c'est la boucle ([`executer`](super::executer)) qui attend.
//! La politique se teste donc sans horloge ni hasard.
//!
//! Règles appliquées, dans cet ordre (`docs/politique-reessai.md`, qui dit pourquoi) :
//! 1. succès → arrêt ; réponse non réessayable (4xx) → refus définitif ;
//! 2. opération non rejouable dont la requête a pu être traitée → issue inconnue, à réconcilier ;
//! 3. nombre de tentatives atteint → épuisé ;
//! 4. attente = `Retry-After` s'il y en a un (il fait autorité, n'est pas plafonné, mais ne
//!    descend pas sous le plancher : la première attente du backoff, pour qu'un `Retry-After: 0`
//!    ne fasse pas partir toutes les tentatives en rafale), sinon backoff exponentiel plafonné à
//!    gigue égale ;
//! 5. échéance : on n'attend que s'il restera ensuite le temps d'une tentative utile, et on ne
//!    raccourcit jamais un `Retry-After` pour le faire tenir.

use std::time::Duration;

use serde::{Serialize, Serializer};
use thiserror::Error;

use super::reponse::ReponseApi;

/// Au-delà, un nombre de tentatives n'est plus un réessai mais une rafale : refusé.
pub(crate) const TENTATIVES_MAX_ADMISES: u32 = 100;

/// Temps minimal qu'une tentative utile demande, par défaut : en deçà de ce qui reste avant
/// l'échéance, on ne lance pas une tentative vouée à être coupée.
pub(crate) const DUREE_MIN_TENTATIVE_PAR_DEFAUT: Duration = Duration::from_secs(1);

/// Échéance d'une émission de `vigie depot`, par défaut (`--echeance`) : INSISTANT n'en a
/// pas, les commandes ponctuelles s'arrêtent sur le nombre de tentatives.
pub(crate) const ECHEANCE_DEPOT_PAR_DEFAUT: Duration = Duration::from_secs(900);

/// Base du backoff des deux profils.
const BASE_PAR_DEFAUT: Duration = Duration::from_millis(500);
/// INSISTANT : quelqu'un attend, on insiste jusqu'à 7 tentatives, attentes plafonnées à 8 s.
const TENTATIVES_INSISTANT: u32 = 7;
const PLAFOND_INSISTANT: Duration = Duration::from_secs(8);
/// BREF : sondage qui repassera, une tentative supplémentaire au plus, attente plafonnée à 1 s.
const TENTATIVES_BREF: u32 = 2;
const PLAFOND_BREF: Duration = Duration::from_secs(1);

/// Profil de réessai, choisi par l'appelant selon ce qu'il fait (`docs/politique-reessai.md`, règle
/// 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Profil {
    /// Plusieurs tentatives, backoff exponentiel plafonné : à choisir quand quelqu'un attend.
    Insistant,
    /// Une tentative supplémentaire au plus : à choisir pour un sondage périodique, qui
    /// repassera. Insister y transformerait une lenteur serveur en rafale.
    Bref,
}

/// Réglages d'une politique, avant validation. Se construit depuis un [`Profil`], s'ajuste par
/// des setters chaînables, et devient une [`PolitiqueReessai`] par [`Reglages::valider`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reglages {
    tentatives_max: u32,
    base: Duration,
    plafond: Duration,
    echeance: Option<Duration>,
    duree_min_tentative: Duration,
}

/// Réglages bruts, en secondes décimales, tels qu'ils arrivent de la ligne de commande. Chaque
/// champ `None` garde la valeur du profil.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct ReglagesEnSecondes {
    /// Nombre total de tentatives, la première comprise.
    pub(crate) tentatives_max: Option<u32>,
    /// Base du backoff, en secondes.
    pub(crate) base_s: Option<f64>,
    /// Plafond du backoff, en secondes.
    pub(crate) plafond_s: Option<f64>,
    /// Échéance de l'opération entière, en secondes.
    pub(crate) echeance_s: Option<f64>,
    /// Temps minimal d'une tentative utile, en secondes.
    pub(crate) duree_min_tentative_s: Option<f64>,
}

/// Un réglage refusé : le message dit lequel et pourquoi.
#[derive(Debug, Clone, PartialEq, Error)]
pub(crate) enum ErreurReglage {
    /// Aucune tentative : l'opération ne partirait même pas.
    #[error("tentatives_max : 0, il faut au moins une tentative (la première émission compte)")]
    AucuneTentative,
    /// Nombre de tentatives déraisonnable.
    #[error(
        "tentatives_max : {demande} est absurde, au plus {max} (au-delà, c'est une rafale, pas un réessai)"
    )]
    TropDeTentatives {
        /// Valeur demandée.
        demande: u32,
        /// Maximum admis.
        max: u32,
    },
    /// Valeur en secondes négative, NaN, infinie ou trop grande.
    #[error(
        "{reglage} : {} s n'est pas une durée valide (attendu : un nombre de secondes fini, positif ou nul)",
        nombre_fr(*.valeur)
    )]
    DureeInvalide {
        /// Nom du réglage.
        reglage: &'static str,
        /// Valeur reçue.
        valeur: f64,
    },
    /// Base nulle.
    #[error("base : nulle, le backoff ne croîtrait pas et les tentatives partiraient en rafale")]
    BaseNulle,
    /// Plafond inférieur à la base.
    #[error(
        "plafond ({}) inférieur à la base ({}) : le backoff ne pourrait pas croître",
        secondes_fr(*.plafond),
        secondes_fr(*.base)
    )]
    PlafondSousBase {
        /// Plafond demandé.
        plafond: Duration,
        /// Base demandée.
        base: Duration,
    },
    /// Échéance nulle.
    #[error("échéance : nulle, l'opération n'aurait le temps d'aucune tentative")]
    EcheanceNulle,
    /// Échéance plus courte qu'une tentative utile.
    #[error(
        "échéance ({}) inférieure à la durée minimale d'une tentative ({}) : aucun réessai ne tiendrait dans le budget",
        secondes_fr(*.echeance),
        secondes_fr(*.duree_min_tentative)
    )]
    EcheanceSousDureeMin {
        /// Échéance demandée.
        echeance: Duration,
        /// Durée minimale d'une tentative.
        duree_min_tentative: Duration,
    },
}

/// Écrit un nombre de secondes à la française : `0,5 s`.
fn secondes_fr(duree: Duration) -> String {
    format!("{} s", nombre_fr(duree.as_secs_f64()))
}

/// Écrit un nombre avec une virgule décimale : `0,5`, `-1`, `NaN`.
fn nombre_fr(valeur: f64) -> String {
    valeur.to_string().replace('.', ",")
}

/// Convertit des secondes décimales en durée, en nommant le réglage si c'est impossible.
fn duree_depuis_secondes(reglage: &'static str, valeur: f64) -> Result<Duration, ErreurReglage> {
    Duration::try_from_secs_f64(valeur)
        .map_err(|_| ErreurReglage::DureeInvalide { reglage, valeur })
}

impl Reglages {
    /// INSISTANT : 7 tentatives, base 0,5 s, plafond 8 s, sans échéance.
    pub(crate) const fn insistant() -> Self {
        Reglages {
            tentatives_max: TENTATIVES_INSISTANT,
            base: BASE_PAR_DEFAUT,
            plafond: PLAFOND_INSISTANT,
            echeance: None,
            duree_min_tentative: DUREE_MIN_TENTATIVE_PAR_DEFAUT,
        }
    }

    /// BREF : 2 tentatives, base 0,5 s, plafond 1 s, sans échéance.
    pub(crate) const fn bref() -> Self {
        Reglages {
            tentatives_max: TENTATIVES_BREF,
            base: BASE_PAR_DEFAUT,
            plafond: PLAFOND_BREF,
            echeance: None,
            duree_min_tentative: DUREE_MIN_TENTATIVE_PAR_DEFAUT,
        }
    }

    /// Les réglages de départ d'un profil.
    pub(crate) const fn du_profil(profil: Profil) -> Self {
        match profil {
            Profil::Insistant => Reglages::insistant(),
            Profil::Bref => Reglages::bref(),
        }
    }

    /// Part d'un profil et applique les valeurs brutes de la ligne de commande. Une durée
    /// négative, NaN, infinie ou hors de portée est refusée ici, en nommant le réglage ; le reste
    /// (zéro, cohérence base/plafond…) l'est par [`Reglages::valider`].
    pub(crate) fn depuis_secondes(
        profil: Profil,
        bruts: &ReglagesEnSecondes,
    ) -> Result<Self, ErreurReglage> {
        let mut reglages = Reglages::du_profil(profil);
        if let Some(n) = bruts.tentatives_max {
            reglages.tentatives_max = n;
        }
        if let Some(s) = bruts.base_s {
            reglages.base = duree_depuis_secondes("base", s)?;
        }
        if let Some(s) = bruts.plafond_s {
            reglages.plafond = duree_depuis_secondes("plafond", s)?;
        }
        if let Some(s) = bruts.echeance_s {
            reglages.echeance = Some(duree_depuis_secondes("échéance", s)?);
        }
        if let Some(s) = bruts.duree_min_tentative_s {
            reglages.duree_min_tentative =
                duree_depuis_secondes("durée minimale d'une tentative", s)?;
        }
        Ok(reglages)
    }

    /// Nombre total de tentatives, la première comprise.
    pub(crate) const fn avec_tentatives_max(mut self, tentatives_max: u32) -> Self {
        self.tentatives_max = tentatives_max;
        self
    }

    /// Base du backoff : l'enveloppe de la première attente.
    pub(crate) const fn avec_base(mut self, base: Duration) -> Self {
        self.base = base;
        self
    }

    /// Plafond du backoff (ne s'applique pas à un `Retry-After`, qui fait autorité).
    pub(crate) const fn avec_plafond(mut self, plafond: Duration) -> Self {
        self.plafond = plafond;
        self
    }

    /// Délai total de l'opération, tentatives et attentes comprises.
    pub(crate) const fn avec_echeance(mut self, echeance: Duration) -> Self {
        self.echeance = Some(echeance);
        self
    }

    /// Retire l'échéance : seul le nombre de tentatives borne l'opération.
    pub(crate) const fn sans_echeance(mut self) -> Self {
        self.echeance = None;
        self
    }

    /// Temps minimal qu'une tentative utile demande (règle d'échéance). Seuls les tests
    /// l'appellent : ailleurs, il vient du profil ou de [`Reglages::depuis_secondes`].
    #[cfg(test)]
    pub(crate) const fn avec_duree_min_tentative(mut self, duree: Duration) -> Self {
        self.duree_min_tentative = duree;
        self
    }

    /// Nombre total de tentatives, la première comprise.
    pub(crate) const fn tentatives_max(&self) -> u32 {
        self.tentatives_max
    }

    /// Base du backoff.
    pub(crate) const fn base(&self) -> Duration {
        self.base
    }

    /// Plafond du backoff.
    pub(crate) const fn plafond(&self) -> Duration {
        self.plafond
    }

    /// Échéance de l'opération, s'il y en a une.
    pub(crate) const fn echeance(&self) -> Option<Duration> {
        self.echeance
    }

    /// Temps minimal d'une tentative utile.
    pub(crate) const fn duree_min_tentative(&self) -> Duration {
        self.duree_min_tentative
    }

    /// Vérifie strictement les réglages et rend la politique. `const` : une politique fixée par
    /// le code (la cadence des sondes du réseau) est vérifiée à la compilation.
    pub(crate) const fn valider(self) -> Result<PolitiqueReessai, ErreurReglage> {
        if self.tentatives_max == 0 {
            return Err(ErreurReglage::AucuneTentative);
        }
        if self.tentatives_max > TENTATIVES_MAX_ADMISES {
            return Err(ErreurReglage::TropDeTentatives {
                demande: self.tentatives_max,
                max: TENTATIVES_MAX_ADMISES,
            });
        }
        if self.base.is_zero() {
            return Err(ErreurReglage::BaseNulle);
        }
        if self.plafond.as_nanos() < self.base.as_nanos() {
            return Err(ErreurReglage::PlafondSousBase {
                plafond: self.plafond,
                base: self.base,
            });
        }
        if let Some(echeance) = self.echeance {
            if echeance.is_zero() {
                return Err(ErreurReglage::EcheanceNulle);
            }
            if echeance.as_nanos() < self.duree_min_tentative.as_nanos() {
                return Err(ErreurReglage::EcheanceSousDureeMin {
                    echeance,
                    duree_min_tentative: self.duree_min_tentative,
                });
            }
        }
        Ok(PolitiqueReessai { reglages: self })
    }
}

/// Pourquoi la boucle de réessai s'est arrêtée. Les noms stables (`as_str`, `Display`, serde)
/// sont ceux du journal des décisions et de la sortie JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RaisonArret {
    /// La requête a abouti.
    Succes,
    /// Réponse non réessayable (4xx) : un geste humain est nécessaire.
    RefusDefinitif,
    /// Le nombre de tentatives est atteint.
    TentativesEpuisees,
    /// Il ne reste pas le temps d'une tentative utile avant l'échéance.
    EcheanceDepassee,
    /// Le serveur demande d'attendre plus longtemps qu'il ne reste avant l'échéance.
    RetryAfterDepasseEcheance,
    /// L'utilisateur a interrompu.
    Annule,
    /// Opération non rejouable partie sans réponse : à réconcilier avant toute nouvelle émission.
    IssueInconnue,
}

impl RaisonArret {
    /// Nom stable, en `snake_case`.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            RaisonArret::Succes => "succes",
            RaisonArret::RefusDefinitif => "refus_definitif",
            RaisonArret::TentativesEpuisees => "tentatives_epuisees",
            RaisonArret::EcheanceDepassee => "echeance_depassee",
            RaisonArret::RetryAfterDepasseEcheance => "retry_after_depasse_echeance",
            RaisonArret::Annule => "annule",
            RaisonArret::IssueInconnue => "issue_inconnue",
        }
    }
}

impl RaisonArret {
    /// La raison telle qu'on la dit à l'utilisateur ; [`RaisonArret::as_str`] reste le nom
    /// stable du journal et du JSON.
    pub(crate) const fn en_clair(self) -> &'static str {
        match self {
            RaisonArret::Succes => "réussi",
            RaisonArret::RefusDefinitif => "refusé",
            RaisonArret::TentativesEpuisees => "abandonné",
            RaisonArret::EcheanceDepassee => "abandonné, délai total dépassé,",
            RaisonArret::RetryAfterDepasseEcheance => {
                "abandonné, le serveur demandait d'attendre au-delà du délai total,"
            }
            RaisonArret::Annule => "interrompu",
            RaisonArret::IssueInconnue => "parti sans réponse",
        }
    }
}

/// Sérialisée par son nom stable : une seule source de vérité, [`RaisonArret::as_str`].
impl Serialize for RaisonArret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Ce que la politique décide après une réponse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Attendre `attente`, puis lancer la tentative numéro `tentative` (la prochaine).
    Rejouer {
        /// Numéro de la prochaine tentative (la première porte le numéro 1).
        tentative: u32,
        /// Attente avant de la lancer.
        attente: Duration,
    },
    /// Ne plus rien émettre.
    Arreter {
        /// Pourquoi.
        raison: RaisonArret,
    },
}

/// L'opération est-elle sûre à rejouer ? Déclaré par l'appelant, à l'appel, jamais par défaut :
/// la politique fournit le mécanisme, le périmètre reste une décision d'appelant
/// (`docs/politique-reessai.md`, règle 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Rejouabilite {
    /// Idempotente : PUT S3 (même clé, même contenu), lectures.
    Rejouable,
    /// Une seule émission utile : POST de création, finalisation, lancement du calcul.
    NonRejouable,
}

/// Une politique aux réglages validés.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PolitiqueReessai {
    reglages: Reglages,
}

impl PolitiqueReessai {
    /// Les réglages validés.
    pub(crate) const fn reglages(&self) -> &Reglages {
        &self.reglages
    }

    /// Décide, après la tentative numéro `tentative_faite` (à partir de 1), de rejouer ou de
    /// s'arrêter. `ecoule` est le temps écoulé depuis le début de l'opération (tentatives et
    /// attentes comprises), `alea` un tirage dans `[0, 1)` pour la gigue (ramené dans `[0, 1]` s'il
    /// en sort, 0 s'il n'est pas fini).
    ///
    /// Opération [`Rejouabilite::NonRejouable`] : une réponse réessayable qui n'a pas pu être
    /// traitée par le serveur (rien n'est parti, ou 429) est rejouée sans risque de doublon ;
    /// si elle a pu l'être (requête partie sans réponse, 5xx), l'issue est inconnue et l'on
    /// s'arrête pour réconcilier.
    pub(crate) fn decider<T>(
        &self,
        reponse: &ReponseApi<T>,
        rejouabilite: Rejouabilite,
        tentative_faite: u32,
        ecoule: Duration,
        alea: f64,
    ) -> Decision {
        let arreter = |raison| Decision::Arreter { raison };
        if reponse.est_succes() {
            return arreter(RaisonArret::Succes);
        }
        if !reponse.est_reessayable() {
            return arreter(RaisonArret::RefusDefinitif);
        }
        if rejouabilite == Rejouabilite::NonRejouable && reponse.a_pu_etre_traitee() {
            return arreter(RaisonArret::IssueInconnue);
        }
        if tentative_faite >= self.reglages.tentatives_max {
            return arreter(RaisonArret::TentativesEpuisees);
        }
        let retry_after = reponse.retry_after();
        let attente = match retry_after {
            // Le serveur fait autorité au-dessus du plancher : `Retry-After: 0` répété ferait
            // sinon partir sept tentatives en un quart de seconde.
            Some(demandee) => demandee.max(self.attente_backoff(1, alea)),
            None => self.attente_backoff(tentative_faite, alea),
        };
        if let Some(reste) = self.budget_restant(ecoule) {
            if reste.is_zero() {
                return arreter(RaisonArret::EcheanceDepassee);
            }
            // Le serveur fait autorité : on ne raccourcit pas son attente pour la faire tenir.
            if retry_after.is_some() && attente > reste {
                return arreter(RaisonArret::RetryAfterDepasseEcheance);
            }
            if attente.saturating_add(self.reglages.duree_min_tentative) > reste {
                return arreter(RaisonArret::EcheanceDepassee);
            }
        }
        Decision::Rejouer {
            tentative: tentative_faite.saturating_add(1),
            attente,
        }
    }

    /// Attente du backoff à gigue égale après la tentative `tentative_faite` : moitié fixe (pour
    /// que l'attente croisse), moitié aléatoire (pour désynchroniser les clients),
    /// `e/2 + alea·e/2` avec `e = min(plafond, base·2^(n−1))`. Sans débordement pour `n` grand.
    pub(crate) fn attente_backoff(&self, tentative_faite: u32, alea: f64) -> Duration {
        let enveloppe = self.enveloppe_backoff(tentative_faite);
        let alea = if alea.is_finite() {
            alea.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let moitie = enveloppe / 2;
        // `alea` est dans [0, 1] et `moitie` finie : le produit ne peut ni déborder ni être
        // négatif, `mul_f64` ne panique donc pas.
        moitie.saturating_add(moitie.mul_f64(alea))
    }

    /// `min(plafond, base·2^(n−1))`, calculé sans débordement.
    fn enveloppe_backoff(&self, tentative_faite: u32) -> Duration {
        let exposant = tentative_faite.saturating_sub(1);
        2u32.checked_pow(exposant)
            .and_then(|facteur| self.reglages.base.checked_mul(facteur))
            .map_or(self.reglages.plafond, |e| e.min(self.reglages.plafond))
    }

    /// Ce qui reste avant l'échéance (zéro si elle est passée) ; `None` sans échéance.
    pub(crate) fn budget_restant(&self, ecoule: Duration) -> Option<Duration> {
        self.reglages
            .echeance
            .map(|echeance| echeance.saturating_sub(ecoule))
    }

    /// Au réveil d'une attente, reste-t-il le temps d'une tentative utile ? L'attente a pu durer
    /// plus que prévu (portable mis en veille, machine chargée) : on revérifie l'échéance après
    /// la reprise (`docs/politique-reessai.md`, règle 4) au lieu de se fier à la vérification faite
    /// avant de dormir.
    pub(crate) fn peut_lancer_tentative(&self, ecoule: Duration) -> bool {
        self.budget_restant(ecoule)
            .is_none_or(|reste| reste >= self.reglages.duree_min_tentative && !reste.is_zero())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reessai::retry_after::attente_demandee;
    use std::time::{SystemTime, UNIX_EPOCH};

    const MS: fn(u64) -> Duration = Duration::from_millis;
    const S: fn(u64) -> Duration = Duration::from_secs;

    fn insistant() -> PolitiqueReessai {
        Reglages::insistant().valider().expect("réglages valides")
    }

    fn injoignable(a_pu_atteindre: bool) -> ReponseApi<()> {
        ReponseApi::Injoignable {
            a_pu_atteindre,
            detail: "coupure".into(),
        }
    }

    fn refuse(statut: u16, retry_after: Option<Duration>) -> ReponseApi<()> {
        ReponseApi::Refuse {
            statut,
            retry_after,
            detail: String::new(),
        }
    }

    fn rejouable(p: &PolitiqueReessai, r: &ReponseApi<()>, n: u32, ecoule: Duration) -> Decision {
        p.decider(r, Rejouabilite::Rejouable, n, ecoule, 0.5)
    }

    fn arret(raison: RaisonArret) -> Decision {
        Decision::Arreter { raison }
    }

    /// La décision pour **chaque** statut de 100 à 599 (modèle : uv, `base_client.rs`), figée
    /// dans `statuts_attendus.txt` : un changement de classement se voit d'un coup d'œil dans le
    /// diff. Par ligne : le statut, la variante où [`ReponseApi::refus`] le range, la décision
    /// après une première tentative d'une opération rejouable (`PUT`), puis d'une écriture non
    /// rejouable (`POST`). Les transports ne rendent un 1xx, 2xx ou 3xx qu'en succès ou en
    /// réponse illisible ; le classement d'un tel statut en refus est figé ici quand même.
    #[test]
    fn decision_pour_chaque_statut_de_100_a_599() {
        let politique = insistant();
        let nom = |d: Decision| match d {
            Decision::Rejouer { .. } => "rejouer".to_owned(),
            Decision::Arreter { raison } => raison.as_str().to_owned(),
        };
        let obtenue: String = (100..=599u16)
            .map(|statut| {
                let reponse = ReponseApi::<()>::refus(statut, None, None, String::new());
                let variante = match reponse {
                    ReponseApi::Refuse { .. } => "refuse",
                    ReponseApi::Expire { .. } => "expire",
                    _ => "autre",
                };
                let [put, post] = [Rejouabilite::Rejouable, Rejouabilite::NonRejouable]
                    .map(|r| nom(politique.decider(&reponse, r, 1, Duration::ZERO, 0.5)));
                format!("{statut} {variante} {put} {post}\n")
            })
            .collect();
        let attendue = include_str!("statuts_attendus.txt");
        let ecarts: Vec<String> = obtenue
            .lines()
            .zip(attendue.lines())
            .filter(|(o, a)| o != a)
            .map(|(o, a)| format!("attendu « {a} », obtenu « {o} »"))
            .collect();
        assert!(ecarts.is_empty(), "{}", ecarts.join("\n"));
        assert_eq!(obtenue.lines().count(), 500);
        assert_eq!(attendue.lines().count(), 500, "une ligne par statut");
    }

    #[test]
    fn profils_de_depart() {
        let i = Reglages::insistant();
        assert_eq!((i.tentatives_max, i.base, i.plafond), (7, MS(500), S(8)));
        let b = Reglages::bref();
        assert_eq!((b.tentatives_max, b.base, b.plafond), (2, MS(500), S(1)));
        for r in [i, b] {
            assert_eq!(r.duree_min_tentative(), S(1));
            assert_eq!(r.echeance(), None);
        }
        for profil in [Profil::Insistant, Profil::Bref] {
            // Les réglages de départ d'un profil sont valides par construction.
            assert!(Reglages::du_profil(profil).valider().is_ok(), "{profil:?}");
        }
    }

    #[test]
    fn succes_et_refus_definitif() {
        let p = insistant();
        assert_eq!(
            rejouable(&p, &ReponseApi::Succes(()), 1, S(0)),
            arret(RaisonArret::Succes)
        );
        for statut in [400, 401, 403, 404, 422] {
            assert_eq!(
                rejouable(&p, &refuse(statut, None), 1, S(0)),
                arret(RaisonArret::RefusDefinitif),
                "{statut}"
            );
            // Même un Retry-After ne rend pas un 4xx rejouable.
            assert_eq!(
                rejouable(&p, &refuse(statut, Some(S(1))), 1, S(0)),
                arret(RaisonArret::RefusDefinitif)
            );
        }
    }

    #[test]
    fn reessayables_rejoues_avec_le_numero_de_la_prochaine_tentative() {
        let p = insistant();
        for r in [injoignable(true), refuse(429, None), refuse(503, None)] {
            assert!(matches!(
                rejouable(&p, &r, 3, S(0)),
                Decision::Rejouer { tentative: 4, .. }
            ));
        }
    }

    #[test]
    fn retry_after_nul_garde_le_plancher_du_backoff() {
        let p = insistant();
        for tentative in 1..7 {
            let Decision::Rejouer { attente, .. } =
                rejouable(&p, &refuse(503, Some(S(0))), tentative, S(0))
            else {
                panic!("un 503 se rejoue");
            };
            // Plancher : la première attente du backoff (0,25 + 0,5 × 0,25 s), jamais zéro.
            assert_eq!(attente, MS(375), "tentative {tentative}");
        }
        // Au-dessus du plancher, le serveur fait autorité, même sous le backoff courant.
        assert!(matches!(
            rejouable(&p, &refuse(503, Some(S(1))), 6, S(0)),
            Decision::Rejouer { attente, .. } if attente == S(1)
        ));
    }

    #[test]
    fn tentatives_epuisees() {
        let p = insistant();
        assert!(matches!(
            rejouable(&p, &injoignable(true), 6, S(0)),
            Decision::Rejouer { tentative: 7, .. }
        ));
        assert_eq!(
            rejouable(&p, &injoignable(true), 7, S(0)),
            arret(RaisonArret::TentativesEpuisees)
        );
        assert_eq!(
            rejouable(&p, &injoignable(true), u32::MAX, S(0)),
            arret(RaisonArret::TentativesEpuisees)
        );
        let bref = Reglages::bref().valider().expect("valide");
        assert!(matches!(
            rejouable(&bref, &refuse(503, None), 1, S(0)),
            Decision::Rejouer { tentative: 2, .. }
        ));
        assert_eq!(
            rejouable(&bref, &refuse(503, None), 2, S(0)),
            arret(RaisonArret::TentativesEpuisees)
        );
    }

    #[test]
    fn non_rejouable() {
        let p = insistant();
        let decider = |r: &ReponseApi<()>| p.decider(r, Rejouabilite::NonRejouable, 1, S(0), 0.5);
        // Partie sans réponse, ou 5xx : le serveur a pu appliquer l'écriture.
        assert_eq!(
            decider(&injoignable(true)),
            arret(RaisonArret::IssueInconnue)
        );
        assert_eq!(
            decider(&refuse(500, None)),
            arret(RaisonArret::IssueInconnue)
        );
        assert_eq!(
            decider(&refuse(502, Some(S(1)))),
            arret(RaisonArret::IssueInconnue)
        );
        // Rien n'est parti, ou 429, ou 503 (« pas traité ») : aucun risque de doublon, on rejoue.
        assert_eq!(
            decider(&refuse(503, Some(S(1)))),
            Decision::Rejouer {
                tentative: 2,
                attente: S(1)
            }
        );
        assert!(matches!(
            decider(&injoignable(false)),
            Decision::Rejouer { tentative: 2, .. }
        ));
        assert_eq!(
            decider(&refuse(429, Some(S(2)))),
            Decision::Rejouer {
                tentative: 2,
                attente: S(2)
            }
        );
        // Les autres règles valent aussi.
        assert_eq!(
            decider(&refuse(403, None)),
            arret(RaisonArret::RefusDefinitif)
        );
        assert_eq!(decider(&ReponseApi::Succes(())), arret(RaisonArret::Succes));
        assert_eq!(
            p.decider(
                &injoignable(false),
                Rejouabilite::NonRejouable,
                7,
                S(0),
                0.5
            ),
            arret(RaisonArret::TentativesEpuisees)
        );
    }

    #[test]
    fn bornes_de_la_gigue_egale() {
        let p = insistant();
        let enveloppes = [MS(500), S(1), S(2), S(4), S(8), S(8), S(8)];
        for (i, e) in enveloppes.into_iter().enumerate() {
            let n = u32::try_from(i + 1).expect("petit");
            assert_eq!(p.attente_backoff(n, 0.0), e / 2, "n = {n}, aléa 0");
            let haut = p.attente_backoff(n, 0.999);
            assert!(
                haut < e && haut > e / 2,
                "n = {n} : {haut:?} pour e = {e:?}"
            );
            assert_eq!(p.attente_backoff(n, 0.5), e * 3 / 4, "n = {n}, aléa 0,5");
        }
        // Le plafond tient loin, sans débordement.
        for n in [20, 33, 64, 1000, u32::MAX] {
            assert_eq!(p.attente_backoff(n, 0.0), S(4), "n = {n}");
            let haut = p.attente_backoff(n, 0.999);
            assert!(haut < S(8) && haut > S(4), "n = {n} : {haut:?}");
        }
        // Une base énorme ne déborde pas non plus.
        let enorme = Reglages::insistant()
            .avec_base(Duration::MAX / 2)
            .avec_plafond(Duration::MAX)
            .valider()
            .expect("valide");
        assert_eq!(enorme.attente_backoff(3, 0.0), Duration::MAX / 2);
        // Un aléa hors contrat reste borné.
        assert_eq!(p.attente_backoff(1, f64::NAN), MS(250));
        assert_eq!(p.attente_backoff(1, -3.0), MS(250));
        assert_eq!(p.attente_backoff(1, 7.0), MS(500));
        assert_eq!(p.attente_backoff(1, f64::INFINITY), MS(250));
        // Tentative 0 (hors contrat) : traitée comme la première.
        assert_eq!(p.attente_backoff(0, 0.0), MS(250));
    }

    #[test]
    fn decider_applique_la_gigue() {
        let p = insistant();
        assert_eq!(
            p.decider(&injoignable(true), Rejouabilite::Rejouable, 3, S(0), 0.0),
            Decision::Rejouer {
                tentative: 4,
                attente: S(1)
            }
        );
        assert_eq!(
            p.decider(&injoignable(true), Rejouabilite::Rejouable, 3, S(0), 0.5),
            Decision::Rejouer {
                tentative: 4,
                attente: MS(1500)
            }
        );
    }

    /// Trente secondes avant la date d'exemple de la RFC 9110 (dim. 6 nov. 1994, 08:49:37).
    fn maintenant() -> SystemTime {
        UNIX_EPOCH + S(784_111_777 - 30)
    }

    #[test]
    fn retry_after_fait_autorite_au_dela_du_plafond() {
        let p = insistant();
        let m = maintenant();
        let cas = [
            (attente_demandee(Some("30"), None, m), S(30)),
            (
                attente_demandee(Some("Sun, 06 Nov 1994 08:49:37 GMT"), None, m),
                S(30),
            ),
            (
                attente_demandee(Some("Sunday, 06-Nov-94 08:49:37 GMT"), None, m),
                S(30),
            ),
            (
                attente_demandee(Some("Sun Nov  6 08:49:37 1994"), None, m),
                S(30),
            ),
            (attente_demandee(Some("1"), Some("12500"), m), MS(12_500)),
            // Plus court que le backoff : il le remplace aussi, mais pas sous le plancher (la
            // première attente du backoff).
            (attente_demandee(Some("0"), None, m), MS(375)),
        ];
        for (retry_after, attendu) in cas {
            for statut in [429, 503] {
                assert_eq!(
                    rejouable(&p, &refuse(statut, retry_after), 4, S(0)),
                    Decision::Rejouer {
                        tentative: 5,
                        attente: attendu
                    }
                );
            }
        }
    }

    #[test]
    fn retry_after_malforme_ou_negatif_retombe_sur_le_backoff() {
        let p = insistant();
        for valeur in ["-1", "abc", "1.5", ""] {
            let retry_after = attente_demandee(Some(valeur), None, maintenant());
            assert_eq!(retry_after, None, "{valeur:?}");
            // Ni rejeu immédiat ni attente infinie : exactement le backoff de la tentative 2.
            assert_eq!(
                p.decider(
                    &refuse(503, retry_after),
                    Rejouabilite::Rejouable,
                    2,
                    S(0),
                    0.0
                ),
                Decision::Rejouer {
                    tentative: 3,
                    attente: MS(500)
                },
                "{valeur:?}"
            );
        }
        // Date passée : le serveur ne demande plus d'attendre ; reste le plancher.
        let passee = attente_demandee(Some("Sat, 05 Nov 1994 08:49:37 GMT"), None, maintenant());
        assert_eq!(
            rejouable(&p, &refuse(503, passee), 2, S(0)),
            Decision::Rejouer {
                tentative: 3,
                attente: MS(375)
            }
        );
    }

    #[test]
    fn echeance_exemple_chiffre() {
        // L'exemple de `docs/politique-reessai.md` : échéance 10 s, la tentative 2 reçoit un 503 à
        // t = 3 s.
        let p = Reglages::insistant()
            .avec_echeance(S(10))
            .valider()
            .expect("valide");
        assert_eq!(p.budget_restant(S(3)), Some(S(7)));
        assert_eq!(
            rejouable(&p, &refuse(503, Some(S(120))), 2, S(3)),
            arret(RaisonArret::RetryAfterDepasseEcheance)
        );
        assert_eq!(
            rejouable(&p, &refuse(503, Some(S(3))), 2, S(3)),
            Decision::Rejouer {
                tentative: 3,
                attente: S(3)
            }
        );
        // Tient dans le reste, mais pas avec une tentative utile derrière.
        assert_eq!(
            rejouable(&p, &refuse(503, Some(MS(6500))), 2, S(3)),
            arret(RaisonArret::EcheanceDepassee)
        );
        // Exactement la place d'une tentative utile : on rejoue.
        assert_eq!(
            rejouable(&p, &refuse(503, Some(S(6))), 2, S(3)),
            Decision::Rejouer {
                tentative: 3,
                attente: S(6)
            }
        );
    }

    #[test]
    fn echeance_et_backoff() {
        let p = Reglages::insistant()
            .avec_echeance(S(10))
            .valider()
            .expect("valide");
        // Backoff de la tentative 5 : e = 8 s, attente 6 s (aléa 0,5) ; 3 + 6 + 1 = 10 : tient.
        assert_eq!(
            rejouable(&p, &injoignable(true), 5, S(3)),
            Decision::Rejouer {
                tentative: 6,
                attente: S(6)
            }
        );
        // Un pouillème de plus : ne tient plus.
        assert_eq!(
            rejouable(&p, &injoignable(true), 5, S(3) + Duration::from_nanos(1)),
            arret(RaisonArret::EcheanceDepassee)
        );
        // Échéance atteinte ou dépassée, même avec un Retry-After qui tiendrait.
        for ecoule in [S(10), S(11), Duration::MAX] {
            assert_eq!(p.budget_restant(ecoule), Some(S(0)));
            assert_eq!(
                rejouable(&p, &refuse(503, Some(S(0))), 2, ecoule),
                arret(RaisonArret::EcheanceDepassee)
            );
        }
        assert_eq!(insistant().budget_restant(S(1000)), None);
    }

    #[test]
    fn reverification_au_reveil() {
        let p = Reglages::insistant()
            .avec_echeance(S(10))
            .valider()
            .expect("valide");
        assert!(p.peut_lancer_tentative(S(9)));
        assert!(!p.peut_lancer_tentative(S(9) + MS(1)));
        assert!(!p.peut_lancer_tentative(S(30)));
        assert!(insistant().peut_lancer_tentative(S(100_000)));
        let sans_marge = Reglages::insistant()
            .avec_echeance(S(10))
            .avec_duree_min_tentative(S(0))
            .valider()
            .expect("valide");
        assert!(sans_marge.peut_lancer_tentative(S(9) + MS(999)));
        assert!(!sans_marge.peut_lancer_tentative(S(10)));
    }

    #[test]
    fn reglages_invalides_refuses_en_nommant_le_reglage() {
        let cas: [(Reglages, &str); 6] = [
            (
                Reglages::insistant().avec_tentatives_max(0),
                "tentatives_max",
            ),
            (
                Reglages::insistant().avec_tentatives_max(101),
                "tentatives_max",
            ),
            (Reglages::insistant().avec_base(S(0)), "base"),
            (
                Reglages::insistant().avec_plafond(MS(200)),
                "plafond (0,2 s) inférieur à la base (0,5 s)",
            ),
            (Reglages::insistant().avec_echeance(S(0)), "échéance"),
            (
                Reglages::insistant().avec_echeance(MS(500)),
                "échéance (0,5 s) inférieure à la durée minimale d'une tentative (1 s)",
            ),
        ];
        for (reglages, attendu) in cas {
            let erreur = reglages.valider().expect_err("doit être refusé");
            let message = erreur.to_string();
            assert!(
                message.contains(attendu),
                "« {message} » devrait citer « {attendu} »"
            );
        }
        // Limites admises.
        assert!(
            Reglages::insistant()
                .avec_tentatives_max(100)
                .valider()
                .is_ok()
        );
        assert!(
            Reglages::insistant()
                .avec_tentatives_max(1)
                .valider()
                .is_ok()
        );
        assert!(
            Reglages::insistant()
                .avec_plafond(MS(500))
                .valider()
                .is_ok()
        );
        assert!(Reglages::insistant().avec_echeance(S(1)).valider().is_ok());
    }

    #[test]
    fn reglages_depuis_des_secondes() {
        let bruts = ReglagesEnSecondes {
            tentatives_max: Some(4),
            base_s: Some(0.25),
            plafond_s: Some(2.0),
            echeance_s: Some(30.0),
            duree_min_tentative_s: Some(0.5),
        };
        let r = Reglages::depuis_secondes(Profil::Bref, &bruts).expect("lisibles");
        assert_eq!(
            r,
            Reglages::bref()
                .avec_tentatives_max(4)
                .avec_base(MS(250))
                .avec_plafond(S(2))
                .avec_echeance(S(30))
                .avec_duree_min_tentative(MS(500))
        );
        assert_eq!(
            Reglages::depuis_secondes(Profil::Insistant, &ReglagesEnSecondes::default()),
            Ok(Reglages::insistant())
        );

        for (base, affiche) in [
            (-1.0, "-1 s"),
            (-0.5, "-0,5 s"),
            (f64::NAN, "NaN s"),
            (f64::INFINITY, "inf s"),
            (1e300, "s"),
        ] {
            let bruts = ReglagesEnSecondes {
                base_s: Some(base),
                ..ReglagesEnSecondes::default()
            };
            let erreur =
                Reglages::depuis_secondes(Profil::Insistant, &bruts).expect_err("doit être refusé");
            let message = erreur.to_string();
            assert!(
                message.starts_with("base : ") && message.contains(affiche),
                "{message}"
            );
        }
        let nulle = ReglagesEnSecondes {
            base_s: Some(0.0),
            ..ReglagesEnSecondes::default()
        };
        let erreur = Reglages::depuis_secondes(Profil::Insistant, &nulle)
            .expect("convertible")
            .valider()
            .expect_err("base nulle");
        assert_eq!(erreur, ErreurReglage::BaseNulle);
        for (bruts, nom) in [
            (
                ReglagesEnSecondes {
                    plafond_s: Some(-2.0),
                    ..ReglagesEnSecondes::default()
                },
                "plafond : ",
            ),
            (
                ReglagesEnSecondes {
                    echeance_s: Some(f64::NEG_INFINITY),
                    ..ReglagesEnSecondes::default()
                },
                "échéance : ",
            ),
            (
                ReglagesEnSecondes {
                    duree_min_tentative_s: Some(f64::NAN),
                    ..ReglagesEnSecondes::default()
                },
                "durée minimale d'une tentative : ",
            ),
        ] {
            let message = Reglages::depuis_secondes(Profil::Bref, &bruts)
                .expect_err("doit être refusé")
                .to_string();
            assert!(message.starts_with(nom), "{message}");
        }
    }

    #[test]
    fn noms_stables_des_raisons() {
        let attendus = [
            (RaisonArret::Succes, "succes"),
            (RaisonArret::RefusDefinitif, "refus_definitif"),
            (RaisonArret::TentativesEpuisees, "tentatives_epuisees"),
            (RaisonArret::EcheanceDepassee, "echeance_depassee"),
            (
                RaisonArret::RetryAfterDepasseEcheance,
                "retry_after_depasse_echeance",
            ),
            (RaisonArret::Annule, "annule"),
            (RaisonArret::IssueInconnue, "issue_inconnue"),
        ];
        for (raison, nom) in attendus {
            assert_eq!(raison.as_str(), nom);
        }
    }
}
