//! Après le dépôt : le calcul de la nuit sur la plateforme, son état, son bilan, ses résultats.
//!
//! Déposer n'est que la moitié du chemin : le participant veut savoir si la plateforme a
//! traité sa nuit, et quelles espèces elle y a trouvées. Ce module porte ce que `vigie
//! traitement`, `vigie resultats` et `vigie traiter` savent faire, sans rien afficher
//! (`suivi/traitement.rs` met en mots) :
//! - [`relever`] lit l'état du calcul d'une participation : c'est un **sondage**, toujours en
//!   profil BREF (une tentative de plus au plus) ; un relevé qui n'aboutit pas est un relevé
//!   manqué ([`Releve::Manque`]), pas une erreur : le suivant repassera. Seuls les refus qui
//!   ne changeront pas d'eux-mêmes (jeton refusé, participation inconnue, adresse qui n'est
//!   pas l'API) arrêtent ;
//! - [`suivre`](mod@suivre) enchaîne les relevés jusqu'à la fin du calcul (`--attendre`) ;
//! - [`cible`] dit quelle participation est visée, et si ses nuits sont prêtes pour le calcul ;
//! - [`taxons`] garde les noms des taxons ; [`lancer`] décide si un calcul peut partir, et le
//!   lance ; [`resultats`] trouve et télécharge le CSV des observations et le journal du
//!   calcul, ou demande le CSV ;
//! - chaque nuit d'une commande est menée ici ([`relever_une`], [`lancer::traiter_une`],
//!   [`resultats::une_nuit`]), et dite à mesure par une vue ([`VueReleves`],
//!   [`lancer::VueLancement`], [`resultats::VueResultats`]) que l'affichage implémente.

pub(crate) mod cible;
pub(crate) mod clients;
pub(crate) mod lancer;
pub(crate) mod resultats;
pub(crate) mod suivre;
pub(crate) mod taxons;

use std::time::Duration;

use cible::Cible;
use taxons::CacheTaxons;

use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::plan::Base;
use crate::plateforme::conseil::commande;
use crate::reessai::{
    AleaSysteme, Profil, RaisonArret, Rejouabilite, ReponseApi, TemporisateurTokio,
};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::vigiechiro::ClientVigieChiro;
use crate::transport::{Emetteur, Emission, emettre};

pub(crate) use crate::transport::vigiechiro::{
    Bilan, EtatCalcul, EtatParticipation, LigneBilan, Traitement,
};
pub(crate) use suivre::{AnnoncesReleve, Cadence, FinDuSuivi, PATIENCE_PAR_DEFAUT, suivre};

/// Le jeton refusé, dit pour une commande qui ne dépose rien.
pub(crate) fn jeton_refuse() -> String {
    format!(
        "jeton Vigie-Chiro refusé ou expiré (401) : reconnectez-vous sur le site, puis {}, et \
         relancez la commande",
        commande("connexion").args(["--jeton", "-"])
    )
}

/// Ce qu'un relevé a donné.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Releve {
    /// L'état lu.
    Lu(Box<EtatParticipation>),
    /// Rien de lisible cette fois (plateforme indisponible, réseau coupé, réponse abîmée) : le
    /// relevé suivant repassera. Porte ce qui s'est passé, en français.
    Manque(String),
}

/// Le calcul est-il arrivé au bout (fini ou en erreur) ?
pub(crate) fn est_termine(e: &EtatParticipation) -> bool {
    matches!(
        e.traitement.as_ref().map(|t| &t.etat),
        Some(EtatCalcul::Fini | EtatCalcul::Erreur)
    )
}

/// Le code de sortie de `vigie traitement` : 0 fini, 3 en erreur, 1 pas (encore) fini.
pub(crate) fn code_de_l_etat(e: Option<&EtatParticipation>) -> CodeSortie {
    match e.and_then(|e| e.traitement.as_ref()).map(|t| &t.etat) {
        Some(EtatCalcul::Fini) => CodeSortie::Succes,
        Some(EtatCalcul::Erreur) => CodeSortie::RefusDefinitifs,
        _ => CodeSortie::EchecsTransitoires,
    }
}

/// Un relevé de l'état du calcul de `participation` (`GET /participations/{id}`), en profil
/// BREF. `Err` : un refus qui ne changera pas de lui-même (jeton, participation inconnue) ;
/// Ctrl-C pendant le relevé rend un relevé manqué, l'appelant voit l'annulation.
pub(crate) async fn relever(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    participation: &IdObjet,
) -> anyhow::Result<Releve> {
    let cible = format!("/participations/{participation}");
    let issue = emettre(
        emetteur,
        Emission::nouveau("GET", &cible, Profil::Bref, Rejouabilite::Rejouable),
        |_| client.etat_participation(participation),
    )
    .await;
    match (issue.reponse, issue.raison) {
        (ReponseApi::Succes(Some(e)), _) => Ok(Releve::Lu(Box::new(e))),
        (ReponseApi::Succes(None), _) => Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            format!(
                "la participation {participation} n'existe pas sur la plateforme : vérifiez \
                 l'identifiant (fin de l'adresse de la page de la participation sur le site)"
            ),
        )
        .into()),
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into())
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) if statut != 0 => {
            Err(ErreurAvecCode::nouveau(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de dire où en est le calcul de la participation \
                     {participation} ({statut} : {detail})"
                ),
            )
            .into())
        }
        (autre, _) => Ok(Releve::Manque(pas_de_reponse_utile(&autre))),
    }
}

/// Ce que `vigie traitement` dit d'une nuit, à mesure (`suivi/calcul.rs` l'implémente).
pub(crate) trait VueReleves {
    /// Le relevé a manqué : l'erreur de la nuit.
    fn releve_manque(&self, cible: &Cible, pourquoi: &str) -> anyhow::Error;
    /// Les annonces des relevés de `--attendre`, une fois dit que le suivi commence.
    fn annonces(&self, cible: &Cible) -> Box<dyn AnnoncesReleve>;
    /// La fin du suivi, dite : le dernier état relevé et le code ; Ctrl-C : l'interruption.
    fn fin_du_suivi(
        &self,
        cible: &Cible,
        fin: FinDuSuivi,
        patience: Duration,
    ) -> anyhow::Result<(Option<EtatParticipation>, CodeSortie)>;
    /// L'état relevé (et son bilan, ses taxons nommés par `taxons`).
    fn etat(
        &mut self,
        cible: &Cible,
        e: &EtatParticipation,
        taxons: &CacheTaxons,
    ) -> anyhow::Result<()>;
}

/// Une nuit de `vigie traitement` : son état relevé une fois, ou, avec `--attendre`
/// (`cadence`), jusqu'à la fin ([`suivre()`], sur l'horloge de tokio et le hasard du système) ;
/// noté dans la base ([`cible::noter`]), les taxons de son bilan nommés
/// ([`taxons::completer`]), dit par `vue`. Le code : celui de l'état ([`code_de_l_etat`]), ou
/// de la fin du suivi.
pub(crate) async fn relever_une(
    (client, emetteur): (&ClientVigieChiro, &Emetteur),
    cible: &Cible,
    cadence: Option<&Cadence>,
    (base, taxons): (Option<&Base>, &mut CacheTaxons),
    vue: &mut impl VueReleves,
) -> anyhow::Result<CodeSortie> {
    let (etat, code) = match cadence {
        None => match relever(client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => (Some(*e), None),
            Releve::Manque(pourquoi) => return Err(vue.releve_manque(cible, &pourquoi)),
        },
        Some(cadence) => {
            let annonces = vue.annonces(cible);
            let fin = suivre(
                cadence,
                maintenant(),
                &TemporisateurTokio::nouveau(),
                &AleaSysteme,
                emetteur.annulation(),
                || relever(client, emetteur, &cible.participation),
                annonces.as_ref(),
            )
            .await;
            annonces.terminer();
            let (etat, code) = vue.fin_du_suivi(cible, fin?, cadence.patience())?;
            (etat, Some(code))
        }
    };
    if let Some(e) = &etat {
        cible::noter(base, cible, e);
        taxons::completer(taxons, client, emetteur, &cible.api, e).await;
        vue.etat(cible, e, taxons)?;
    }
    Ok(code.unwrap_or_else(|| code_de_l_etat(etat.as_ref())))
}

/// La date d'aujourd'hui vue par la plateforme (secondes Unix, UTC).
pub(crate) fn maintenant() -> InstantUtc {
    InstantUtc::depuis_secondes(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    )
}
