//! La destination S3 inscrite : un compartiment (AWS ou compatible), son adresse
//! `s3://COMPARTIMENT/PREFIXE`, son dépositaire, sa relecture et ses conseils.

use std::borrow::Cow;
use std::sync::Arc;

use anyhow::Result;
use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;

use super::DepositaireS3;
use super::destination::{InventaireS3, LectureDestination, lire_destination};
use super::verification::RelectureS3;
use crate::depot::fabrique::{
    Acces, AvantLEnvoi, DepositaireDuPlan, Destination, Fabrique, Inscription, MIO, OptionsAdresse,
    ReglagesDestination,
};
use crate::depot::relecture::verification::Relecture;
use crate::depot::s3::DestinationS3;
use crate::depot::{AnnoncesSuivi, DecisionsDuPlan, Suivi};
use crate::destination::{ErreurDestination, valider_endpoint};
use crate::plan::{Base, CauseRefus, DepotPlan};
use crate::sortie::{CodeSortie, ErreurAvecCode, interrompu};
use crate::transport::Emetteur;
use crate::transport::s3::{ClientS3, ConfigS3};

pub(crate) const INSCRIPTION: Inscription = Inscription {
    sorte: "s3",
    forme_vers: Some("s3://COMPARTIMENT/PREFIXE"),
    analyser_vers,
    relire: |identite| DestinationS3::relire(identite).map(Destination::from),
    conseil,
    geste_identifiants: || "corrigez les identifiants S3".to_owned(),
    geste_relecture_refusee: || {
        "vérifiez que les identifiants S3 ont le droit de lire le compartiment (s3:GetObject)"
            .to_owned()
    },
};

fn analyser_vers(adresse: &str, options: OptionsAdresse<'_>) -> Option<Result<Destination>> {
    adresse.starts_with("s3://").then(|| {
        Ok(DestinationS3::analyser(adresse, options.endpoint, options.autoriser_http)?.into())
    })
}

fn conseil(cause: CauseRefus) -> Option<Cow<'static, str>> {
    Some(Cow::Borrowed(match cause {
        CauseRefus::Authentification => {
            "identifiants S3 refusés : corrigez-les (AWS_ACCESS_KEY_ID, --profil)"
        }
        CauseRefus::Droits => "droits insuffisants sur le compartiment : faites-les corriger",
        CauseRefus::Stockage => {
            "destination introuvable : vérifiez le compartiment, la région ou le point d'accès"
        }
        _ => return None,
    }))
}

impl Fabrique for DestinationS3 {
    fn inscription(&self) -> &'static Inscription {
        &INSCRIPTION
    }

    fn identite(&self) -> String {
        DestinationS3::identite(self)
    }

    fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        DestinationS3::cle(self, chemin)
    }

    /// Vers S3, ce que le compartiment tient déjà et s'il refuse tout.
    fn depositaire<'a>(
        &'a self,
        avant: AvantLEnvoi<'a>,
    ) -> LocalBoxFuture<'a, Result<DepositaireDuPlan>> {
        async move {
            let reglages = avant.reglages;
            let client = client(self, &reglages.acces).await?;
            let inventaire = ce_que_tient_le_compartiment(
                &client,
                avant.emetteur,
                &self.prefixe,
                avant.suivi,
                avant.base,
                avant.plan,
            )
            .await?;
            Ok(DepositaireDuPlan::nouveau(DepositaireS3::nouveau(
                client,
                reglages
                    .seuil_multipart_mio
                    .unwrap_or(super::SEUIL_MULTIPART_MIO)
                    * MIO,
                reglages.taille_partie_mio * MIO,
                inventaire,
            )))
        }
        .boxed_local()
    }

    fn relecture<'a>(
        &'a self,
        _plan: &'a DepotPlan,
        reglages: &'a ReglagesDestination,
    ) -> LocalBoxFuture<'a, Result<Box<dyn Relecture>>> {
        async move {
            let client = client(self, &reglages.acces).await?;
            Ok(Box::new(RelectureS3(Arc::new(client))) as Box<dyn Relecture>)
        }
        .boxed_local()
    }

    /// Le point d'accès d'un plan S3 est fixé à sa création (il fait partie de son
    /// identité) : un `--endpoint-url` (ou `AWS_ENDPOINT_URL`) différent, `demande`, passé à
    /// une commande qui reprend le plan, n'est pas pris en compte.
    fn endpoint_ignore(&self, plan: i64, demande: Option<&str>) -> Option<String> {
        let demande = demande?;
        let normalise = valider_endpoint(demande, true).ok();
        if normalise.is_some() && normalise == self.endpoint {
            return None;
        }
        Some(format!(
            "attention : --endpoint-url (ou AWS_ENDPOINT_URL) {demande} n'est pas pris en compte : le plan {plan} \
             vise {}, fixé à sa création",
            self.endpoint
                .as_deref()
                .unwrap_or("AWS (point d'accès par défaut)")
        ))
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

/// Le client du compartiment, joint comme l'utilisateur l'a dit (`--region`, `--profil`).
async fn client(destination: &DestinationS3, acces: &Acces) -> Result<ClientS3> {
    let config = ConfigS3 {
        region: acces.region.clone(),
        profil: acces.profil.clone(),
        delai_connexion: None,
    };
    let endpoint = destination.endpoint.as_deref();
    Ok(ClientS3::connecter(&destination.compartiment, endpoint, &config).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Sorte;

    fn s3(identite: &str) -> Destination {
        crate::depot::inscription::relire(&Sorte::nouvelle("s3"), identite).unwrap()
    }

    #[test]
    fn un_endpoint_different_de_celui_du_plan_est_signale() {
        let plan = s3("s3://nuits/p?endpoint=http://127.0.0.1:9000");
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
        assert!(
            s3("s3://nuits/p")
                .endpoint_ignore(2, Some("http://127.0.0.1:9000"))
                .is_some_and(|a| a.contains("AWS (point d'accès par défaut)"))
        );
    }

    #[test]
    fn identite_relue_et_cles() {
        let d = s3("s3://nuits/2026?endpoint=http://127.0.0.1:9000");
        assert_eq!(d.sorte(), Sorte::nouvelle("s3"));
        assert_eq!(
            d.identite(),
            "s3://nuits/2026?endpoint=http://127.0.0.1:9000"
        );
        assert_eq!(d.cle("a/b.wav").unwrap(), "2026/a/b.wav");
        assert!(d.fabrique::<DestinationS3>().is_some());
        assert!(d.participation_donnee().is_none());
        assert!(!d.exige_un_jeton());
    }

    #[test]
    fn conseils_propres_a_s3() {
        let s3 = Sorte::nouvelle("s3");
        let c = crate::depot::inscription::conseil(&s3, CauseRefus::Authentification);
        assert!(c.contains("identifiants S3"), "{c}");
        assert!(!c.contains("jeton"), "{c}");
        let c = crate::depot::inscription::conseil(&s3, CauseRefus::Reseau);
        assert_eq!(c, CauseRefus::Reseau.conseil_general());
    }
}
