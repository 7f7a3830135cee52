//! Relire la plateforme Vigie-Chiro : ce qu'elle a déjà d'une participation, et si ce qu'elle
//! garde est bien le fichier local (la comparaison elle-même, commune aux destinations, est
//! dans `depot/relecture/empreinte.rs`).
//!
//! Pourquoi : un plan neuf (autre portable, autre base, nuit commencée dans le navigateur)
//! ne sait rien de ce que la plateforme a reçu. Redéclarer chaque fichier pour l'apprendre
//! (un `409` par fichier finalisé) coûte une requête par fichier et ne dit rien du contenu :
//! un `409` dit seulement qu'un fichier **de ce nom** est finalisé, et la plateforme refuse de
//! le remplacer. La relecture répond mieux :
//! - [`super::inventaire_distant`] : la liste paginée des fichiers de la participation (quelques
//!   requêtes pour des milliers de fichiers), lue au début de chaque passage ;
//! - [`relever`] : l'URL de lecture d'un fichier finalisé, puis sa taille et son `ETag` par une
//!   lecture d'un octet ;
//! - [`crate::depot::relecture::empreinte`] : la comparaison de cette taille et de cet `ETag`
//!   au fichier local.
//!
//! Chaque requête passe par la politique de réessai comme toute émission
//! ([`crate::transport::emettre`]) : les lectures sont rejouables, et journalisées selon le
//! contexte d'émission qui les lit. Elle sert le dépôt vers la plateforme
//! (`vigiechiro/confrontation.rs`), dans le contexte d'une unité du moteur ou de son plan, et
//! `vigie verifier` (`depot/vigiechiro/verification.rs`), dans celui de la commande
//! (l'émetteur, muet).

use crate::destination::IdObjet;
use crate::reessai::{Issue, RaisonArret, ReponseApi};
use crate::transport::en_clair::refus_serveur;
use crate::transport::vigiechiro::{AccesFichier, ClientVigieChiro, ObjetLu};
use crate::transport::{ContexteEmission, Emission, emettre};

/// Ce que la plateforme montre d'un fichier par son URL de lecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ObjetRelu {
    /// La taille et l'`ETag` de l'objet.
    Objet(ObjetLu),
    /// La plateforme ne le dit pas finalisé (410).
    NonFinalise,
    /// La plateforme ne connaît pas ce fichier (404).
    Inconnu,
    /// La plateforme le dit finalisé, mais son stockage ne l'a pas (404 sur l'URL de lecture).
    AbsentDuStockage,
    /// Ctrl-C, ou le réseau abandonné : rien n'est conclu.
    Interrompu,
    /// Pas de réponse utile : la politique de réessai s'est arrêtée, ou la plateforme a
    /// refusé (le statut, s'il y en a un : 401 veut dire jeton refusé). `definitif` : un refus
    /// qu'aucune relance ne changera sans un geste (4xx : droits, jeton).
    Echec {
        statut: Option<u16>,
        detail: String,
        definitif: bool,
    },
}

impl ObjetRelu {
    fn echec<T>(issue: &Issue<T>) -> ObjetRelu {
        if issue.raison == RaisonArret::Annule {
            return ObjetRelu::Interrompu;
        }
        let detail = issue.reponse.detail().unwrap_or_default();
        let statut = issue.reponse.statut();
        ObjetRelu::Echec {
            statut,
            detail: match statut {
                Some(s) => refus_serveur(s, detail).into_owned(),
                None => detail.to_owned(),
            },
            definitif: issue.raison == RaisonArret::RefusDefinitif,
        }
    }
}

/// `GET /fichiers/{id}/acces`, puis `GET` d'un octet sur l'URL rendue : ce que la plateforme
/// garde du fichier `id`, sans le télécharger. L'URL est vérifiée avant toute connexion, et
/// n'apparaît dans aucun journal (la cible journalisée est le chemin d'API, puis la clé).
pub(crate) async fn relever(
    lecteur: &dyn ContexteEmission,
    client: &ClientVigieChiro,
    id: &IdObjet,
    cle: &str,
) -> ObjetRelu {
    let chemin = format!("/fichiers/{id}/acces");
    let acces = emettre(lecteur, Emission::lecture("GET", &chemin), |_| {
        client.url_de_lecture(id)
    })
    .await;
    let url = match acces.reponse {
        ReponseApi::Succes(AccesFichier::Url(url)) => url,
        ReponseApi::Succes(AccesFichier::NonDisponible) => return ObjetRelu::NonFinalise,
        ReponseApi::Succes(AccesFichier::Inconnu) => return ObjetRelu::Inconnu,
        _ => return ObjetRelu::echec(&acces),
    };
    if let Err(raison) = client.verifier_url_signee(&url) {
        return ObjetRelu::Echec {
            statut: None,
            detail: raison,
            definitif: true,
        };
    }
    let cible = format!("GET {cle}");
    let lu = emettre(lecteur, Emission::lecture("GET", &cible), |_| {
        client.lire_objet(&url)
    })
    .await;
    match lu.reponse {
        ReponseApi::Succes(Some(objet)) => ObjetRelu::Objet(objet),
        ReponseApi::Succes(None) => ObjetRelu::AbsentDuStockage,
        _ => ObjetRelu::echec(&lu),
    }
}
