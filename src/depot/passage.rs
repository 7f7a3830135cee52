//! Un passage d'envoi d'un plan (pour `vigie depot`, `vigie retenter-echecs` et chaque nuit
//! d'une saison) : l'émetteur sous les réglages de la commande et le seau de `--debit-max`, le
//! dépositaire demandé à la fabrique de la destination ([`super::fabrique`]), le moteur, et ce
//! qu'un certificat refusé en chemin veut dire. Les valeurs viennent de la ligne de commande
//! ([`ParametresEnvoi`], que `cli` tire de ses options), jamais les options elles-mêmes.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::fabrique::{AvantLEnvoi, DepositaireDuPlan, Destination, ReglagesDestination};
use super::{Bilan, Moteur, ReglagesDuPassage, Suivi};
use crate::destination::IdObjet;
use crate::plan::{Base, DepotPlan};
use crate::reessai::Annulation;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::debit::{DebitMax, LimiteDebit};
use crate::transport::{Emetteur, ReglagesEmission};

/// Une erreur de la base en plein passage (disque plein…) : des envois sont peut-être partis,
/// ce n'est donc pas le code 2 (« rien n'a été envoyé ») mais 1 : le plan est intact, il
/// suffit de corriger la cause (libérer de la place) puis de relancer.
fn erreur_en_passage(e: crate::plan::ErreurBase) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "{e} Relancez ensuite la même commande : elle reprendra où le passage s'est arrêté."
        ),
    )
    .into()
}

/// L'erreur d'une commande dont une émission a vu un certificat refusé (portail captif, proxy,
/// horloge fausse : voir `transport::certificat`) : code 2, le message dit le geste. Elle
/// l'emporte sur ce que la commande aurait dit de ses émissions arrêtées.
pub(crate) fn certificat_refuse(emetteur: &Emetteur) -> Option<anyhow::Error> {
    emetteur
        .certificat_refuse()
        .map(|m| ErreurAvecCode::nouveau(CodeSortie::Usage, m.to_owned()).into())
}

/// Ce que la ligne de commande règle pour les passages d'une commande, en valeurs.
pub(crate) struct ParametresEnvoi {
    pub(crate) emission: ReglagesEmission,
    /// `--paralleles`.
    pub(crate) paralleles: usize,
    /// `--debit-max` (`sans` : aucune limite).
    pub(crate) debit_max: Option<DebitMax>,
    /// Ce qu'elle règle pour toute destination.
    pub(crate) reglages: ReglagesDestination,
}

/// Ce que partagent les passages d'une commande.
pub(crate) struct Envoi<'a> {
    emission: ReglagesEmission,
    paralleles: usize,
    /// `--debit-max` : un seul seau pour tous les passages de la commande.
    debit: Option<Arc<LimiteDebit>>,
    reglages: ReglagesDestination,
    pub(crate) destination: &'a Destination,
    /// Les réglages repris du plan ou qui remplacent ceux qu'il retenait : le bilan les dit.
    pub(crate) annonce: ReglagesDuPassage,
    /// L'utilisateur du jeton, reconnu avant l'envoi (vers la plateforme).
    pub(crate) moi: Option<IdObjet>,
}

impl<'a> Envoi<'a> {
    /// Ce que partageront les passages d'une commande : réglages d'émission, parallélisme,
    /// limite de débit (un seul seau pour tous les passages).
    pub(crate) fn nouveau(parametres: ParametresEnvoi, destination: &'a Destination) -> Self {
        Envoi {
            emission: parametres.emission,
            paralleles: parametres.paralleles,
            // `--debit-max sans` (ou retenu tel) : aucune limite.
            debit: parametres
                .debit_max
                .filter(|d| !d.est_sans_limite())
                .map(|d| Arc::new(LimiteDebit::nouveau(d))),
            reglages: parametres.reglages,
            destination,
            annonce: ReglagesDuPassage::default(),
            moi: None,
        }
    }

    /// `--attente-reseau` : une coupure plus longue arrête le passage ; `None` : pas de
    /// limite, le passage attend le retour du réseau.
    pub(crate) fn attente_reseau(&self) -> Option<Duration> {
        self.emission.pause.and_then(|p| p.attente_max)
    }

    /// Le même envoi vers une autre destination : une nuit de la saison. Les réglages
    /// d'émission, le parallélisme et le seau de `--debit-max` sont partagés.
    pub(crate) fn vers<'b>(&'b self, destination: &'b Destination) -> Envoi<'b> {
        Envoi {
            emission: self.emission.clone(),
            paralleles: self.paralleles,
            debit: self.debit.clone(),
            reglages: self.reglages.clone(),
            destination,
            annonce: self.annonce.clone(),
            moi: self.moi.clone(),
        }
    }

    /// Le seau `--debit-max` de cet envoi (`None` : sans limite), pour les essais.
    #[cfg(test)]
    pub(crate) fn seau(&self) -> Option<&Arc<LimiteDebit>> {
        self.debit.as_ref()
    }

    /// Un émetteur aux réglages de cet envoi, hors de tout passage.
    pub(crate) fn emetteur_seul(&self, arret: Annulation) -> Emetteur {
        Emetteur::nouveau(self.emission.clone(), arret).sous_limite(self.debit.clone())
    }
}

/// Un passage sur le plan : ce qui reste à déposer part une fois, sous `arret` (Ctrl-C, la fin
/// de `--jusqu-au-bout=DURÉE`, ou le réseau abandonné) ; une coupure du réseau plus longue
/// que `attente_reseau` l'arrête (`None` : aucune limite, le passage attend le retour du
/// réseau). Ce que la destination doit savoir avant le premier envoi (sa participation, ce
/// qu'elle tient déjà) se lit sous la même veille du réseau que le dépôt : une coupure est
/// sondée et bornée de même.
pub(crate) async fn passage(
    e: &Envoi<'_>,
    base: Base,
    plan: DepotPlan,
    arret: Annulation,
    suivi: Arc<dyn Suivi>,
    attente_reseau: Option<Duration>,
) -> Result<Bilan> {
    let mut emission = e.emission.clone();
    if let Some(pause) = emission.pause.as_mut() {
        pause.attente_max = attente_reseau;
    }
    let emetteur = Emetteur::nouveau(emission, arret).sous_limite(e.debit.clone());
    let depositaire = e
        .destination
        .depositaire(AvantLEnvoi {
            base: &base,
            plan: &plan,
            emetteur: &emetteur,
            suivi: suivi.as_ref(),
            moi: e.moi.as_ref(),
            reglages: &e.reglages,
        })
        .await;
    // Un certificat refusé dès ces lectures (portail captif, proxy) : rien ne partira.
    if let Some(e) = certificat_refuse(&emetteur) {
        return Err(e);
    }
    let depositaire = depositaire?;
    let lancement = Lancement {
        base,
        plan,
        emetteur,
        suivi,
    };
    let mut bilan = lancement.executer(e, depositaire).await?;
    bilan.reglages = e.annonce.clone();
    Ok(bilan)
}

/// Ce qu'il faut au moteur d'un passage, hors du dépositaire propre à la destination.
struct Lancement {
    base: Base,
    plan: DepotPlan,
    emetteur: Emetteur,
    suivi: Arc<dyn Suivi>,
}

impl Lancement {
    /// Le passage du moteur ; un certificat refusé en chemin l'a arrêté : code 2, le
    /// message dit le geste (les fichiers sont restés à déposer). Cette erreur remonte telle
    /// quelle jusqu'à `main`, qui efface les barres avant de l'écrire.
    async fn executer(self, e: &Envoi<'_>, depositaire: DepositaireDuPlan) -> Result<Bilan> {
        let emetteur = self.emetteur.clone();
        let moteur = Moteur::nouveau(
            self.base,
            self.plan,
            depositaire,
            self.emetteur,
            self.suivi,
            e.paralleles,
        );
        let bilan = Arc::new(moteur)
            .executer()
            .await
            .map_err(erreur_en_passage)?;
        match certificat_refuse(&emetteur) {
            Some(e) => Err(e),
            None => Ok(bilan),
        }
    }
}

/// Combien de fils fait tourner le moteur asynchrone d'une commande.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fils {
    /// Un dépôt, une vérification : les envois et les relectures vont en parallèle.
    Plusieurs,
    /// Une commande ponctuelle (quelques requêtes l'une après l'autre) : un seul fil suffit.
    Un,
}

/// Le moteur asynchrone d'une commande (le seul endroit qui le construit ; les commandes le
/// reçoivent d'ici).
pub(crate) fn moteur(fils: Fils) -> Result<tokio::runtime::Runtime> {
    use anyhow::Context;
    let mut constructeur = match fils {
        Fils::Plusieurs => tokio::runtime::Builder::new_multi_thread(),
        Fils::Un => tokio::runtime::Builder::new_current_thread(),
    };
    constructeur
        .enable_all()
        .build()
        .context("démarrage du moteur asynchrone")
}
