//! `vigie verifier` vers un compartiment S3 : `HeadObject` sur chaque clé, la taille puis la
//! somme CRC32C (ou, sans somme, l'ETag noté au dépôt). Un objet différent se remplace : il
//! est remis à déposer.

use std::sync::Arc;

use anyhow::Result;
use futures_util::future::BoxFuture;

use crate::depot::relecture::verification::{Constat, Constats, Relecture, constater_toutes};
use crate::plan::DepotUnite;
use crate::reessai::{RaisonArret, ReponseApi};
use crate::transport::s3::ClientS3;
use crate::transport::{AnnoncesReseau, Emetteur, Emission, emettre, sous_veille};

/// Vers S3 : `HeadObject` sur chaque clé.
pub(crate) struct RelectureS3(pub(crate) Arc<ClientS3>);

impl Relecture for RelectureS3 {
    fn relire<'a>(
        &'a self,
        deposees: Vec<DepotUnite>,
        emetteur: &'a Arc<Emetteur>,
        annonces: &'a dyn AnnoncesReseau,
    ) -> BoxFuture<'a, Result<Constats>> {
        let client = &self.0;
        let constats = constater_toutes(deposees, {
            let (client, emetteur) = (Arc::clone(client), Arc::clone(emetteur));
            move |unite| {
                let (client, emetteur) = (Arc::clone(&client), Arc::clone(&emetteur));
                async move {
                    let constat = constater_s3(&client, &emetteur, &unite).await;
                    (unite, constat)
                }
            }
        });
        Box::pin(sous_veille(
            emetteur.as_ref(),
            constats,
            || client.sonder(),
            annonces,
        ))
    }
}

/// Ce que S3 dit d'une unité déposée : `HeadObject`, taille puis CRC32C (ou, sans somme,
/// l'ETag noté au dépôt).
async fn constater_s3(client: &ClientS3, emetteur: &Emetteur, unite: &DepotUnite) -> Constat {
    let issue = emettre(
        emetteur,
        Emission::lecture("HeadObject", &unite.cle),
        |_| client.decrire(&unite.cle),
    )
    .await;
    match issue.reponse {
        ReponseApi::Succes(None) => Constat::Manquante("absente de la destination".into()),
        ReponseApi::Succes(Some(o)) => {
            if o.taille != unite.taille {
                return Constat::Differente(format!(
                    "{} octets au lieu de {}",
                    o.taille, unite.taille
                ));
            }
            match (&o.crc32c, &unite.somme_controle, &o.etag, &unite.etag) {
                (Some(distante), Some(locale), _, _) if distante != locale => {
                    Constat::Differente(format!("somme {distante} au lieu de {locale}"))
                }
                (None, _, Some(distant), Some(local)) if distant != local => {
                    Constat::Differente(format!("ETag {distant} au lieu de {local}"))
                }
                _ => Constat::Intacte,
            }
        }
        _ if issue.raison == RaisonArret::Annule => Constat::Interrompue,
        ref autre if issue.raison == RaisonArret::RefusDefinitif => {
            let detail = autre.detail().unwrap_or("");
            Constat::Refusee(match autre.statut() {
                Some(statut) => format!("{statut} : {detail}"),
                None => detail.to_owned(),
            })
        }
        autre => Constat::Injoignable(autre.detail().unwrap_or("").to_owned()),
    }
}
