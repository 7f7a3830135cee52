//! Le point de construction unique de chaque destination, à la manière des backends de rclone
//! (`fs.NewFs` : le nom d'un remote choisit son backend, qui construit tout le reste).
//!
//! La destination d'un plan choisit sa fabrique ([`Fabrique::de`], le seul endroit qui
//! distingue S3 de la plateforme), et la fabrique construit ce que les commandes utilisent :
//! le dépositaire d'un passage, avec ce qu'il faut savoir avant son premier envoi
//! ([`Fabrique::depositaire`]) et sa sonde du réseau ; la relecture de `vigie verifier`
//! ([`Fabrique::relecture`]) ; les libellés et les avertissements propres à la destination.
//! Ce qui n'existe que pour l'une se demande comme une fonctionnalité facultative (les
//! `Features` d'un backend rclone) : [`Fabrique::plateforme`] rend la plateforme Vigie-Chiro,
//! dont les vérifications d'avant l'envoi (jeton, participation, point) sont celles des
//! commandes. Les commandes câblent, sans savoir vers quoi elles envoient.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

use super::relecture::verification::Relecture;
use super::s3::DepositaireS3;
use super::s3::destination::{InventaireS3, LectureDestination, lire_destination};
use super::vigiechiro::DepositaireVigieChiro;
use super::{
    AnnoncesSuivi, ContexteUnite, DecisionsDuPlan, Depositaire, IssueUnite, Resultat, Suivi,
};
use crate::destination::{CibleParticipation, Destination, DestinationS3, DestinationVigieChiro};
use crate::destination::{IdObjet, PartieDuBilan, valider_endpoint};
use crate::plan::{Base, DepotPlan};
use crate::plateforme::conseil::commande;
use crate::reessai::ReponseApi;
use crate::sortie::{CodeSortie, ErreurAvecCode, interrompu};
use crate::transport::Emetteur;
use crate::transport::s3::{ClientS3, ConfigS3};

const MIO: u64 = 1024 * 1024;

/// Ce que la ligne de commande règle pour toute destination.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReglagesDestination {
    /// Comment joindre un compartiment S3 (région, profil).
    pub(crate) config_s3: ConfigS3,
    /// `--seuil-multipart` (Mio) ; `None` : celui de la destination.
    pub(crate) seuil_multipart_mio: Option<u64>,
    /// `--taille-partie` (Mio).
    pub(crate) taille_partie_mio: u64,
}

/// La fabrique d'une destination.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fabrique<'a> {
    S3(&'a DestinationS3),
    VigieChiro(&'a DestinationVigieChiro),
}

/// Le dépositaire d'un passage, quelle que soit sa destination.
pub(crate) enum DepositaireDuPlan {
    S3(DepositaireS3),
    VigieChiro(DepositaireVigieChiro),
}

impl Depositaire for DepositaireDuPlan {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        match self {
            DepositaireDuPlan::S3(d) => d.deposer(ctx).await,
            DepositaireDuPlan::VigieChiro(d) => d.deposer(ctx).await,
        }
    }

    async fn sonder(&self) -> ReponseApi<()> {
        match self {
            DepositaireDuPlan::S3(d) => d.sonder().await,
            DepositaireDuPlan::VigieChiro(d) => d.sonder().await,
        }
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        match self {
            DepositaireDuPlan::S3(d) => d.partie_du_bilan(),
            DepositaireDuPlan::VigieChiro(d) => d.partie_du_bilan(),
        }
    }
}

impl<'a> Fabrique<'a> {
    /// La fabrique de cette destination : le seul point de construction.
    pub(crate) fn de(destination: &'a Destination) -> Self {
        match destination {
            Destination::S3(d) => Fabrique::S3(d),
            Destination::VigieChiro(d) => Fabrique::VigieChiro(d),
        }
    }

    /// La plateforme Vigie-Chiro, si c'est elle (une fonctionnalité facultative : ses
    /// vérifications d'avant l'envoi, sa participation, ses noms de fichiers).
    pub(crate) fn plateforme(&self) -> Option<&'a DestinationVigieChiro> {
        match *self {
            Fabrique::S3(_) => None,
            Fabrique::VigieChiro(d) => Some(d),
        }
    }

    /// Rien ne part sans jeton (vers la plateforme) : à exiger avant même d'inventorier.
    pub(crate) fn exige_un_jeton(&self) -> bool {
        self.plateforme().is_some()
    }

    /// Les noms de fichiers sont jugés par la plateforme, qui en refuse (voir `noms`).
    pub(crate) fn juge_les_noms(&self) -> bool {
        self.plateforme().is_some()
    }

    /// Les séquences sont lues par le calcul de la plateforme (en ×10) : leur format est gardé
    /// avant tout envoi (`garde.rs`).
    pub(crate) fn lit_les_sequences(&self) -> bool {
        self.plateforme().is_some()
    }

    /// Le bilan de `vigie verifier` parle de la plateforme (sinon, de la destination).
    pub(crate) fn vers_la_plateforme(&self) -> bool {
        self.plateforme().is_some()
    }

    /// Le dépositaire d'un passage, et ce qu'il faut savoir avant son premier envoi, lu sous
    /// la veille du réseau du passage (`emetteur`) : vers S3, ce que le compartiment tient
    /// déjà et s'il refuse tout ; vers la plateforme, la participation, créée une seule fois
    /// au besoin. Une erreur : rien n'est parti. `moi` : l'utilisateur du jeton, reconnu avant
    /// l'envoi (vers la plateforme).
    pub(crate) async fn depositaire(
        &self,
        base: &Base,
        plan: &DepotPlan,
        emetteur: &Emetteur,
        suivi: &dyn Suivi,
        moi: Option<&IdObjet>,
        reglages: &ReglagesDestination,
    ) -> Result<DepositaireDuPlan> {
        let taille_partie = reglages.taille_partie_mio * MIO;
        match self {
            Fabrique::S3(dest) => {
                let client = ClientS3::connecter(dest, &reglages.config_s3).await?;
                let inventaire = ce_que_tient_le_compartiment(
                    &client,
                    emetteur,
                    &dest.prefixe,
                    suivi,
                    base,
                    plan,
                )
                .await?;
                Ok(DepositaireDuPlan::S3(DepositaireS3::nouveau(
                    client,
                    reglages
                        .seuil_multipart_mio
                        .unwrap_or(super::s3::SEUIL_MULTIPART_MIO)
                        * MIO,
                    taille_partie,
                    inventaire,
                )))
            }
            Fabrique::VigieChiro(dest) => {
                let client = super::vigiechiro::client_du_jeton(&dest.api)?;
                let participation = super::vigiechiro::participation::resoudre_participation(
                    base,
                    plan.id,
                    dest,
                    moi,
                    &client,
                    emetteur,
                    &AnnoncesSuivi(suivi),
                )
                .await;
                let participation = match participation {
                    Ok(p) => p,
                    // Le réseau abandonné annule aussi : c'est alors un échec, pas une
                    // interruption.
                    Err(_)
                        if emetteur.annulation().est_annulee()
                            && !emetteur.reseau().est_abandonne() =>
                    {
                        return Err(interrompu());
                    }
                    Err(e) => return Err(e),
                };
                Ok(DepositaireDuPlan::VigieChiro(
                    DepositaireVigieChiro::nouveau(
                        client,
                        participation,
                        reglages
                            .seuil_multipart_mio
                            .unwrap_or(super::vigiechiro::SEUIL_MULTIPART_MIO)
                            * MIO,
                        taille_partie,
                        plan.multipart_refuse,
                    ),
                ))
            }
        }
    }

    /// La relecture de `vigie verifier` : ce que la destination dit de chaque unité déposée
    /// du plan.
    pub(crate) async fn relecture(
        &self,
        plan: &DepotPlan,
        config_s3: &ConfigS3,
    ) -> Result<Relecture> {
        match self {
            Fabrique::S3(dest) => Ok(Relecture::S3(Arc::new(
                ClientS3::connecter(dest, config_s3).await?,
            ))),
            Fabrique::VigieChiro(dest) => {
                let participation = match (&plan.participation, &dest.participation) {
                    (Some(p), _) => IdObjet::analyser(p),
                    (None, CibleParticipation::Existante(id)) => Some(id.clone()),
                    (None, CibleParticipation::ACreer { .. }) => None,
                }
                .context("la participation du plan n'est pas connue")?;
                Ok(Relecture::VigieChiro {
                    client: Arc::new(super::vigiechiro::client_du_jeton(&dest.api)?),
                    participation,
                    dossier: PathBuf::from(&plan.dossier),
                })
            }
        }
    }

    /// Le point d'accès d'un plan S3 est fixé à sa création (il fait partie de son identité) :
    /// un `--endpoint-url` (ou `AWS_ENDPOINT_URL`) différent, `demande`, passé à une commande
    /// qui reprend le plan, n'est pas pris en compte. L'avertissement qui le dit, plutôt que
    /// de l'ignorer en silence.
    pub(crate) fn endpoint_ignore(&self, plan: i64, demande: Option<&str>) -> Option<String> {
        let Fabrique::S3(d) = self else {
            return None;
        };
        let demande = demande?;
        let normalise = valider_endpoint(demande, true).ok();
        if normalise.is_some() && normalise == d.endpoint {
            return None;
        }
        Some(format!(
            "attention : --endpoint-url (ou AWS_ENDPOINT_URL) {demande} n'est pas pris en compte : le plan {plan} \
             vise {}, fixé à sa création",
            d.endpoint
                .as_deref()
                .unwrap_or("AWS (point d'accès par défaut)")
        ))
    }

    /// La commande qui lance le calcul de la nuit qui vient d'être déposée : `vigie traiter`
    /// seul (il vise le dernier dépôt, celui-ci), jamais un identifiant à recopier ; avec
    /// `--api` si `vigie traiter` ne viserait pas de lui-même l'adresse de ce dépôt.
    pub(crate) fn rappel_traiter(&self) -> String {
        let mut rappel = commande("traiter");
        if let Some(d) = self.plateforme() {
            let par_defaut = crate::connexion::adresse_api(None)
                .ok()
                .and_then(|a| valider_endpoint(&a.url, true).ok());
            if par_defaut.as_deref() != Some(d.api.as_str()) {
                rappel = rappel.args(["--api", d.api.as_str()]);
            }
        }
        rappel.to_string()
    }
}

/// Ce que le compartiment tient déjà, et s'il accepte seulement ces identifiants : lu avant
/// tout envoi, sous la veille du réseau (les décisions de réessai au journal du plan).
/// `None` : pas lu, les fichiers qu'il a déjà repartiront. Un refus de toute la destination
/// est une erreur (code 3) : chaque requête serait refusée de même, rien ne part.
async fn ce_que_tient_le_compartiment(
    client: &ClientS3,
    emetteur: &Emetteur,
    prefixe: &str,
    suivi: &dyn Suivi,
    base: &Base,
    plan: &DepotPlan,
) -> Result<Option<Arc<InventaireS3>>> {
    let journal = DecisionsDuPlan::default();
    let lecture = crate::transport::sous_veille(
        &emetteur.observe_par(&journal),
        lire_destination(client, emetteur, prefixe, &journal),
        || client.sonder(),
        &AnnoncesSuivi(suivi),
    )
    .await;
    journal.ecrire(base, plan.id);
    match lecture {
        Ok(LectureDestination::Lue(inventaire)) => Ok(Some(Arc::new(inventaire))),
        Ok(LectureDestination::NonLue(pourquoi)) => {
            tracing::warn!(
                "ce que la destination tient déjà n'a pas pu être lu ({pourquoi}) : les \
                 fichiers qu'elle a déjà repartiront"
            );
            Ok(None)
        }
        // Le réseau abandonné (au-delà de --attente-reseau) : le passage s'arrête comme il le
        // fait en plein envoi, le plan dit ce qui reste, le bilan le geste.
        Ok(LectureDestination::Interrompue) if emetteur.reseau().est_abandonne() => {
            tracing::warn!(
                "réseau indisponible depuis plus de {} s avant le premier envoi : rien \
                 n'est parti",
                emetteur.attente_reseau().unwrap_or_default().as_secs()
            );
            Ok(None)
        }
        Ok(LectureDestination::Interrompue) => Err(interrompu()),
        Err(refus) => Err(ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "{} ; rien n'a été envoyé. Puis relancez la même commande.",
                refus.message(client.compartiment())
            ),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn un_endpoint_different_de_celui_du_plan_est_signale() {
        let plan =
            Destination::depuis_identite("s3://nuits/p?endpoint=http://127.0.0.1:9000").unwrap();
        let plan = Fabrique::de(&plan);
        assert_eq!(plan.endpoint_ignore(1, None), None);
        assert_eq!(
            plan.endpoint_ignore(1, Some("http://127.0.0.1:9000/")),
            None
        );
        assert_eq!(
            plan.endpoint_ignore(7, Some("https://s3.gra.io.cloud.ovh.net"))
                .as_deref(),
            Some(
                "attention : --endpoint-url (ou AWS_ENDPOINT_URL) https://s3.gra.io.cloud.ovh.net n'est pas \
                 pris en compte : le plan 7 vise http://127.0.0.1:9000, fixé à sa création"
            )
        );
        let aws = Destination::depuis_identite("s3://nuits/p").unwrap();
        assert!(
            Fabrique::de(&aws)
                .endpoint_ignore(2, Some("http://127.0.0.1:9000"))
                .is_some_and(|a| a.contains("AWS (point d'accès par défaut)"))
        );
        let vc = Destination::depuis_identite("vigiechiro:participation/64a1b2c3d4e5f60718293d01")
            .unwrap();
        assert_eq!(
            Fabrique::de(&vc).endpoint_ignore(3, Some("http://127.0.0.1:9000")),
            None,
            "la plateforme n'a pas de point d'accès S3"
        );
    }
}
