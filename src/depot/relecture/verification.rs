//! `vigie verifier` : ce que la destination dit de chaque unité déposée.
//!
//! Vers S3, on relit l'objet (`HeadObject` : taille et somme). Vers la plateforme Vigie-Chiro,
//! on relit son inventaire (la liste des fichiers de la participation), puis, pour chaque
//! fichier finalisé, son URL de lecture : la taille et l'`ETag` de l'objet sont comparés à ce
//! que le plan a noté au dépôt (le MD5 d'un PUT, `md5-des-md5-N` d'un objet assemblé, calculé
//! des parties, donc de la taille de partie du plan) ou, pour une unité déposée sans cette
//! empreinte (une version antérieure de `vigie`), au fichier local s'il n'a pas changé depuis
//! (sinon, ou sans ETag lisible, la taille seule est vérifiée, comme vers S3 sans somme).
//!
//! Ce qui manque se redépose (l'unité est remise à déposer : `vigie retenter-echecs`). Ce que
//! la plateforme garde autrement, elle refuse de le remplacer (un fichier finalisé ne se
//! redéclare ni ne se supprime) : c'est un refus définitif, qui demande un geste humain.

use super::empreinte::{Comparaison, comparer};
use super::inventaire_distant::{EtatDistant, InventaireDistant};
use super::{Lecteur, ObjetRelu, relever};
use crate::depot::fichier_change;
use crate::plan::DepotUnite;
use crate::plateforme::FichierAttendu;
use crate::transport::vigiechiro::{ClientVigieChiro, ObjetLu};

/// Ce que la destination dit d'une unité déposée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constat {
    Intacte,
    /// Absente de la destination (ou pas finalisée sur la plateforme) : à redéposer.
    Manquante(String),
    /// Présente, mais différente, et remplaçable : à redéposer (S3).
    Differente(String),
    /// Différente ou absente, et la plateforme refuse de la remplacer : un geste humain.
    Irremplacable(String),
    /// La destination n'a pas pu répondre : à vérifier plus tard.
    Injoignable(String),
    /// La destination refuse de la relire (4xx : droits, jeton, participation d'un autre) :
    /// relancer plus tard n'y changera rien, un geste humain est nécessaire.
    Refusee(String),
    /// Ctrl-C (ou le réseau abandonné) avant que la destination ait répondu.
    Interrompue,
}

/// Ce qui répond à un fichier que la plateforme garde autrement que le fichier local. La
/// commande à lancer ensuite n'est dite qu'une fois, à la fin de `vigie verifier` (et de
/// `vigie etat`).
pub const GESTE_IRREMPLACABLE: &str = "la plateforme ne permet pas de remplacer un fichier \
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
pub async fn constater_vigiechiro(
    lecteur: Lecteur<'_, '_>,
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
