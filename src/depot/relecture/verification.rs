//! `vigie verifier` : ce que la destination dit de chaque unité déposée.
//!
//! Chaque destination relit à sa façon ([`Relecture`], que sa fabrique construit, dans son
//! module : `s3/verification.rs`, `vigiechiro/verification.rs`, `dossier.rs`) et rend un
//! [`Constat`] par unité ; ici, ce qui vaut pour toutes : relire quelques unités à la fois
//! ([`constater_toutes`]), ce qu'un réseau abandonné laisse ([`constater`]), et noter les
//! constats dans le plan ([`noter`]).
//!
//! Ce qui manque se redépose (l'unité est remise à déposer : `vigie retenter-echecs`). Ce
//! qu'une destination garde autrement et refuse de remplacer est un refus définitif, qui
//! demande un geste humain.

use std::sync::Arc;

use anyhow::{Context, Result};
use futures_util::future::BoxFuture;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::plan::{Base, CauseRefus, DepotUnite};
use crate::sortie::CodeSortie;
use crate::transport::{AnnoncesReseau, Emetteur};

/// Ce que la destination dit d'une unité déposée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Constat {
    Intacte,
    /// Absente de la destination (ou pas finalisée) : à redéposer.
    Manquante(String),
    /// Présente, mais différente, et remplaçable : à redéposer.
    Differente(String),
    /// Différente ou absente, et la destination refuse de la remplacer : un geste humain.
    Irremplacable(String),
    /// La destination n'a pas pu répondre : à vérifier plus tard.
    Injoignable(String),
    /// La destination refuse de la relire (4xx : droits, jeton, participation d'un autre) :
    /// relancer plus tard n'y changera rien, un geste humain est nécessaire.
    Refusee(String),
    /// Ctrl-C (ou le réseau abandonné) avant que la destination ait répondu.
    Interrompue,
}

/// Vérifications menées en même temps par `vigie verifier`.
const VERIFICATIONS_PARALLELES: usize = 8;

/// Les constats d'une relecture, dans l'ordre des chemins.
pub(crate) type Constats = Vec<(DepotUnite, Constat)>;

/// La destination relue, telle que sa fabrique la construit (`depot/fabrique.rs`).
pub(crate) trait Relecture: Send + Sync {
    /// Ce que la destination dit de chaque unité déposée, dans l'ordre des chemins, sous la
    /// même veille du réseau que le dépôt (une coupure est sondée, bornée par
    /// `--attente-reseau`, et Ctrl-C l'interrompt).
    fn relire<'a>(
        &'a self,
        deposees: Vec<DepotUnite>,
        emetteur: &'a Arc<Emetteur>,
        annonces: &'a dyn AnnoncesReseau,
    ) -> BoxFuture<'a, Result<Constats>>;
}

/// Ce que la destination dit de chaque unité déposée (voir [`Relecture::relire`]). Une unité
/// laissée sans réponse parce que le réseau a été abandonné est injoignable, pas
/// interrompue.
pub(crate) async fn constater(
    relecture: &dyn Relecture,
    deposees: Vec<DepotUnite>,
    emetteur: &Arc<Emetteur>,
    annonces: &dyn AnnoncesReseau,
) -> Result<Constats> {
    let constats = relecture.relire(deposees, emetteur, annonces).await?;
    let abandonne = emetteur.reseau().est_abandonne();
    Ok(constats
        .into_iter()
        .map(|(unite, constat)| match constat {
            Constat::Interrompue if abandonne => (
                unite,
                Constat::Injoignable("réseau indisponible trop longtemps".into()),
            ),
            c => (unite, c),
        })
        .collect())
}

/// Vérifie chaque unité, quelques-unes à la fois ; les constats rendus dans l'ordre des
/// chemins.
pub(crate) async fn constater_toutes<F, Fut>(
    deposees: Vec<DepotUnite>,
    constater: F,
) -> Result<Vec<(DepotUnite, Constat)>>
where
    F: Fn(DepotUnite) -> Fut,
    Fut: Future<Output = (DepotUnite, Constat)> + Send + 'static,
{
    let places = Arc::new(Semaphore::new(VERIFICATIONS_PARALLELES));
    let mut taches = JoinSet::new();
    for unite in deposees {
        let (places, constat) = (Arc::clone(&places), constater(unite));
        taches.spawn(async move {
            let _place = places.acquire_owned().await;
            constat.await
        });
    }
    let mut constats = Vec::new();
    while let Some(r) = taches.join_next().await {
        constats.push(r.context("vérification interrompue")?);
    }
    constats.sort_by(|a, b| a.0.chemin.cmp(&b.0.chemin));
    Ok(constats)
}

/// Le compte de `vigie verifier`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct BilanVerification {
    pub(crate) intactes: u64,
    /// Manquantes ou différentes (et remplaçables) : remises à déposer.
    pub(crate) a_renvoyer: u64,
    /// La destination n'a pas répondu.
    pub(crate) inconnues: u64,
    /// La plateforme garde un autre contenu et refuse de le remplacer.
    pub(crate) definitifs: u64,
    /// Les refus de relire (4xx) : ni un fichier manquant, ni une panne passagère.
    pub(crate) refusees: Vec<String>,
    /// Une unité au moins n'a pas été vérifiée, Ctrl-C.
    pub(crate) interrompue: bool,
}

impl BilanVerification {
    /// Le code de sortie : 3 s'il faut un geste, 0 si tout est intact, 1 sinon.
    pub(crate) fn code(&self) -> CodeSortie {
        if self.definitifs > 0 || !self.refusees.is_empty() {
            CodeSortie::RefusDefinitifs
        } else if self.a_renvoyer + self.inconnues == 0 {
            CodeSortie::Succes
        } else {
            CodeSortie::EchecsTransitoires
        }
    }
}

/// Note chaque constat dans le plan, qui ne doit pas mentir : un fichier manquant ou
/// différent est remis à déposer (il repart au prochain passage) ; un fichier que la
/// plateforme refuse de remplacer est un refus définitif (renvoyer n'y ferait rien, il attend
/// un geste). `annoncer` voit, dans l'ordre, chaque unité qui n'est ni intacte ni
/// interrompue, une fois notée.
pub(crate) fn noter(
    base: &Base,
    constats: &[(DepotUnite, Constat)],
    mut annoncer: impl FnMut(&DepotUnite, &Constat) -> Result<()>,
) -> Result<BilanVerification> {
    let mut bilan = BilanVerification::default();
    for (unite, constat) in constats {
        match constat {
            Constat::Intacte => {
                bilan.intactes += 1;
                continue;
            }
            Constat::Interrompue => {
                bilan.interrompue = true;
                continue;
            }
            Constat::Injoignable(_) => bilan.inconnues += 1,
            Constat::Refusee(d) => bilan.refusees.push(d.clone()),
            Constat::Irremplacable(d) => {
                bilan.definitifs += 1;
                base.marquer_echec(unite.id, true, CauseRefus::RemplacementRefuse, d)?;
            }
            Constat::Manquante(_) | Constat::Differente(_) => {
                bilan.a_renvoyer += 1;
                base.remettre_a_deposer(unite.id)?;
            }
        }
        annoncer(unite, constat)?;
    }
    Ok(bilan)
}
