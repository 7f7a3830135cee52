//! `vigie verifier` vers la plateforme : on relit l'inventaire de la participation (la liste
//! de ses fichiers), puis, pour chaque fichier finalisé, son URL de lecture : la taille et
//! l'`ETag` de l'objet sont comparés à ce que le plan a noté au dépôt (le MD5 d'un PUT,
//! `md5-des-md5-N` d'un objet assemblé, calculé des parties, donc de la taille de partie du
//! plan) ou, pour une unité déposée sans cette empreinte (une version antérieure de `vigie`),
//! au fichier local s'il n'a pas changé depuis (sinon, ou sans ETag lisible, la taille seule
//! est vérifiée). Ce que la plateforme garde autrement, elle refuse de le remplacer (un
//! fichier finalisé ne se redéclare ni ne se supprime) : c'est un refus définitif.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use futures_util::future::BoxFuture;

use crate::depot::fichier_change;
use crate::depot::relecture::empreinte::{Comparaison, comparer};
use crate::depot::relecture::verification::{Constat, Constats, Relecture, constater_toutes};
use crate::depot::vigiechiro::inventaire_distant::{self, EtatDistant, InventaireDistant};
use crate::depot::vigiechiro::relecture::{ObjetRelu, relever};
use crate::destination::IdObjet;
use crate::inventaire::verdict_plateforme;
use crate::plan::DepotUnite;
use crate::plateforme::FichierAttendu;
use crate::transport::vigiechiro::{ClientVigieChiro, ObjetLu};
use crate::transport::{AnnoncesReseau, ContexteEmission, Emetteur, sous_veille};

/// Ce qui répond à un fichier que la plateforme garde autrement que le fichier local. La
/// commande à lancer ensuite n'est dite qu'une fois, à la fin de `vigie verifier` (et de
/// `vigie etat`).
pub(crate) const GESTE_IRREMPLACABLE: &str = "la plateforme ne permet pas de remplacer un fichier \
     finalisé : gardez sa version, ou demandez à ses gestionnaires de la supprimer";

fn irremplacable(constat: &str) -> Constat {
    Constat::Irremplacable(format!("{constat} ; {GESTE_IRREMPLACABLE}"))
}

/// L'objet relu, comparé à ce que le plan a noté au dépôt, ou au fichier local.
async fn comparer_objet(
    unite: &DepotUnite,
    fichier: FichierAttendu<'_>,
    objet: &ObjetLu,
) -> Constat {
    if objet.taille != unite.taille {
        return irremplacable(&format!(
            "{} octets sur la plateforme au lieu de {}",
            objet.taille, unite.taille
        ));
    }
    match (&unite.etag, &objet.etag) {
        (Some(note), Some(distant)) if note.eq_ignore_ascii_case(distant) => Constat::Intacte,
        (Some(note), Some(distant)) => irremplacable(&format!("ETag {distant} au lieu de {note}")),
        // Le stockage ne rend pas d'ETag : la taille seule est vérifiée, comme vers S3 sans
        // somme.
        (_, None) => Constat::Intacte,
        // Rien de noté au dépôt : le fichier local, s'il n'a pas changé depuis.
        (None, Some(_)) if fichier_change(fichier.chemin, unite).is_some() => Constat::Intacte,
        (None, Some(_)) => match comparer(fichier, unite.taille, objet).await {
            Ok(Comparaison::Differente(ecart)) => irremplacable(&ecart),
            Ok(Comparaison::Identique { .. } | Comparaison::NonComparee(_)) => Constat::Intacte,
            Err(e) => Constat::Injoignable(format!("fichier local illisible : {e}")),
        },
    }
}

/// Ce que la plateforme dit d'une unité déposée, d'après son inventaire (lu une fois pour
/// toutes les unités) et l'URL de lecture du fichier.
pub(crate) async fn constater_vigiechiro(
    lecteur: &dyn ContexteEmission,
    client: &ClientVigieChiro,
    inventaire: &InventaireDistant,
    unite: &DepotUnite,
    fichier: FichierAttendu<'_>,
) -> Constat {
    let piece = match inventaire.etat(&unite.cle) {
        EtatDistant::Absent => {
            return Constat::Manquante("absent de la participation sur la plateforme".into());
        }
        EtatDistant::NonFinalise(_) => {
            return Constat::Manquante("déclaré sur la plateforme, mais pas finalisé".into());
        }
        EtatDistant::Finalise(p) => p,
    };
    match relever(lecteur, client, &piece.id, &unite.cle).await {
        ObjetRelu::Objet(o) => comparer_objet(unite, fichier, &o).await,
        ObjetRelu::NonFinalise => Constat::Manquante("pas finalisé sur la plateforme".into()),
        ObjetRelu::Inconnu => {
            Constat::Manquante("absent de la participation sur la plateforme".into())
        }
        ObjetRelu::AbsentDuStockage => Constat::Irremplacable(
            "la plateforme le tient pour déposé, mais son stockage ne l'a pas ; elle refuse de le \
             redéclarer : signalez-le à ses gestionnaires"
                .into(),
        ),
        ObjetRelu::Interrompu => Constat::Interrompue,
        ObjetRelu::Echec {
            statut,
            detail,
            definitif,
        } => {
            let detail = match statut {
                Some(s) => format!("{s} : {detail}"),
                None => detail,
            };
            if definitif {
                Constat::Refusee(detail)
            } else {
                Constat::Injoignable(detail)
            }
        }
    }
}

/// Vers la plateforme : l'inventaire de la participation, puis l'URL de lecture de chaque
/// fichier ; le dossier de la nuit sert à comparer au fichier local une unité déposée sans
/// empreinte notée.
pub(crate) struct RelectureVigieChiro {
    pub(crate) client: Arc<ClientVigieChiro>,
    pub(crate) participation: IdObjet,
    pub(crate) dossier: PathBuf,
}

impl Relecture for RelectureVigieChiro {
    fn relire<'a>(
        &'a self,
        deposees: Vec<DepotUnite>,
        emetteur: &'a Arc<Emetteur>,
        annonces: &'a dyn AnnoncesReseau,
    ) -> BoxFuture<'a, Result<Constats>> {
        let constats = constater_sur_la_plateforme(
            Arc::clone(&self.client),
            self.participation.clone(),
            deposees,
            Arc::clone(emetteur),
            self.dossier.clone(),
        );
        Box::pin(sous_veille(
            emetteur.as_ref(),
            constats,
            || async { self.client.moi().await.map(|_| ()) },
            annonces,
        ))
    }
}

/// Vers la plateforme : l'inventaire de la participation, lu une fois (sans lui, rien ne se
/// vérifie : chaque unité est « inconnue »), puis chaque fichier par son URL de lecture.
async fn constater_sur_la_plateforme(
    client: Arc<ClientVigieChiro>,
    participation: IdObjet,
    deposees: Vec<DepotUnite>,
    emetteur: Arc<Emetteur>,
    dossier: PathBuf,
) -> Result<Vec<(DepotUnite, Constat)>> {
    let familles = inventaire_distant::familles_a_lire(
        deposees
            .iter()
            .map(|u| verdict_plateforme(&u.cle).unwrap_or("inconnu")),
    );
    let lu = inventaire_distant::lire(emetteur.as_ref(), &client, &participation, &familles).await;
    let inventaire = match lu {
        Ok(i) => Arc::new(i),
        Err(_) if emetteur.annulation().est_annulee() => {
            return Ok(deposees
                .into_iter()
                .map(|u| (u, Constat::Interrompue))
                .collect());
        }
        Err(illisible) => {
            let constat = if illisible.refus_definitif {
                Constat::Refusee(illisible.detail)
            } else {
                Constat::Injoignable(illisible.detail)
            };
            return Ok(deposees.into_iter().map(|u| (u, constat.clone())).collect());
        }
    };
    constater_toutes(deposees, move |unite| {
        let (client, emetteur, inventaire) = (
            Arc::clone(&client),
            Arc::clone(&emetteur),
            Arc::clone(&inventaire),
        );
        let chemin = crate::plateforme::chemins::local(&dossier, unite.chemin_lu());
        async move {
            let constat = constater_vigiechiro(
                emetteur.as_ref(),
                &client,
                &inventaire,
                &unite,
                unite.attendu(&chemin),
            )
            .await;
            (unite, constat)
        }
    })
    .await
}
