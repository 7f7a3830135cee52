//! `vigie verifier` : ce que la destination dit de chaque unité déposée.
//!
//! Chaque destination relit à sa façon ([`Relecture`], que sa fabrique construit) ; ici, les
//! deux premières. Vers S3, on relit l'objet
//! (`HeadObject` : taille et somme). Vers la plateforme Vigie-Chiro,
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

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use futures_util::future::BoxFuture;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::empreinte::{Comparaison, comparer};
use super::inventaire_distant::{self, EtatDistant, InventaireDistant};
use super::{ObjetRelu, relever};
use crate::depot::fichier_change;
use crate::destination::IdObjet;
use crate::inventaire::verdict_plateforme;
use crate::plan::{Base, CauseRefus, DepotUnite};
use crate::plateforme::FichierAttendu;
use crate::reessai::{RaisonArret, ReponseApi};
use crate::sortie::CodeSortie;
use crate::transport::s3::ClientS3;
use crate::transport::vigiechiro::{ClientVigieChiro, ObjetLu};
use crate::transport::{
    AnnoncesReseau, ContexteEmission, Emetteur, Emission, emettre, sous_veille,
};

/// Ce que la destination dit d'une unité déposée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Constat {
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
