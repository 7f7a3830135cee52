//! Chaque unité confrontée à ce que la plateforme a déjà, avant toute déclaration.
//!
//! Pourquoi : un plan neuf (autre portable, autre base, nuit commencée dans le navigateur)
//! redéclarait chaque fichier pour découvrir, par des `409`, ce que la plateforme avait — et
//! prenait ce `409` pour « déjà déposé », même quand le fichier de la plateforme n'était pas le
//! fichier local (un fichier modifié, `--redeposer-modifies` : « ✓ », « 0 o envoyé », l'ancien
//! contenu gardé). Or la plateforme **refuse de remplacer** un fichier finalisé
//! (`resources/fichiers.py` `_s3_create_singlepart` : `409 upload is already done` ;
//! `fichier_delete` : `422 cannot cancel file once upload is done`). Désormais :
//!
//! - l'inventaire distant ([`crate::depot::vigiechiro::inventaire_distant`]) est lu une fois
//!   par passage, par la première unité (les autres l'attendent), sous la politique de réessai et
//!   la pause réseau du moteur ; s'il ne peut pas être lu, le dépôt se fait sans lui ;
//! - un fichier **finalisé** n'est ni redéclaré ni renvoyé. Son contenu est comparé au fichier
//!   local (URL de lecture, taille et `ETag`) : identique, l'unité est « déjà sur la
//!   plateforme » ; différent, c'est un refus définitif qui le dit (cause
//!   `REMPLACEMENT_REFUSE`) ; impossible à comparer (pas de MD5 dans l'ETag), elle est déjà sur
//!   la plateforme, « contenu non comparé » ;
//! - un enregistrement **non finalisé** (envoi interrompu, par `vigie` ou par le site web) est
//!   repris : en un seul PUT s'il n'a pas d'envoi en plusieurs parties (la déclaration simple
//!   le rend tel quel, sans ouvrir d'envoi S3 qui resterait orphelin), partie par partie s'il
//!   en a un ; ou supprimé (`DELETE`) quand le fichier part en un PUT et qu'il tient un envoi
//!   en plusieurs parties, dont la finalisation exigerait des parties ;
//! - un `409` à la déclaration n'est jamais « déposé » : seul l'enregistrement que le plan
//!   tenait, relu finalisé, est le sien ; sinon, c'est le même refus définitif.

use super::{DepositaireVigieChiro, IssueUnite, Resultat, echec_local};
use crate::depot::ContexteUnite;
use crate::depot::relecture::empreinte::{Comparaison, comparer};
use crate::depot::vigiechiro::inventaire_distant::{self, EtatDistant, InventaireDistant};
use crate::depot::vigiechiro::relecture::{ObjetRelu, relever};
use crate::destination::IdObjet;
use crate::inventaire::verdict_plateforme;
use crate::plan::{CauseRefus, EtatUnite};
use crate::plateforme::conseil::commande;
use crate::reessai::ReponseApi;
use crate::transport::corps::{crc32c_base64, somme_crc32c};
use crate::transport::vigiechiro::PieceJointe;

/// Ce que la confrontation décide d'une unité.
pub(super) enum Confrontation {
    /// Réglée sans rien envoyer : déjà sur la plateforme, ou refusée.
    Reglee(IssueUnite),
    /// Un enregistrement non finalisé sans envoi en plusieurs parties attend le fichier : il
    /// part en un PUT (même s'il dépasse le seuil du multipart).
    EnUnPut,
    /// Un enregistrement non finalisé tient un envoi en plusieurs parties : les parties y
    /// partent (celles déjà acquittées pour lui ne repartent pas).
    EnParties(IdObjet),
    /// Rien sur la plateforme, ou rien de connu : la déclaration ordinaire.
    Declarer,
}

/// Le geste quand la plateforme garde un autre contenu que le fichier local. La commande à
/// lancer ensuite est dite une fois, à la fin du bilan (et de `vigie etat`).
const GESTE_AUTRE_CONTENU: &str = "gardez sa version, ou demandez à ses gestionnaires de la \
     supprimer";

/// Un refus définitif : la plateforme a déjà un fichier de ce nom, finalisé, et refuse de le
/// remplacer. Le constat, puis le geste.
fn remplacement_refuse(constat: &str, geste: &str) -> IssueUnite {
    IssueUnite::Echec {
        definitif: true,
        cause: CauseRefus::RemplacementRefuse,
        message: format!(
            "{constat} ; la plateforme ne permet pas de remplacer un fichier finalisé, rien \
             n'est parti : {geste}"
        ),
    }
}

impl DepositaireVigieChiro {
    /// L'inventaire distant du passage : lu par la première unité qui le demande, attendu par
    /// les autres, jamais relu. Seules les familles des unités à déposer sont demandées.
    async fn inventaire(&self, ctx: &ContexteUnite<'_>) -> Resultat<Option<&InventaireDistant>> {
        let lu = self
            .inventaire
            .get_or_try_init(|| async {
                let familles = {
                    let a_deposer = ctx.base().unites(
                        ctx.unite.plan_id,
                        &[
                            EtatUnite::ADeposer,
                            EtatUnite::EnCours,
                            EtatUnite::Echec,
                            EtatUnite::Incertaine,
                        ],
                    )?;
                    inventaire_distant::familles_a_lire(
                        a_deposer
                            .iter()
                            .map(|u| verdict_plateforme(&u.cle).unwrap_or("inconnu")),
                    )
                };
                let lecture = inventaire_distant::lire(
                    &ctx.pour_le_plan(),
                    &self.client,
                    &self.participation,
                    &familles,
                )
                .await;
                Ok(match lecture {
                    Ok(inv) => {
                        tracing::info!(
                            fichiers = inv.len(),
                            pages = inv.pages,
                            "inventaire distant de la participation lu"
                        );
                        Some(inv)
                    }
                    Err(raison) => {
                        tracing::warn!(
                            "ce que la plateforme a déjà n'a pas pu être lu ({raison}) : chaque \
                             fichier sera déclaré, et un fichier qu'elle a déjà sera refusé sans \
                             être comparé"
                        );
                        None
                    }
                })
            })
            .await?;
        Ok(lu.as_ref())
    }

    /// Confronte l'unité à l'inventaire distant (voir l'en-tête du module). `en_parties` : le
    /// fichier partirait en plusieurs parties.
    pub(super) async fn confronter(
        &self,
        ctx: &ContexteUnite<'_>,
        en_parties: bool,
    ) -> Resultat<Confrontation> {
        let Some(inventaire) = self.inventaire(ctx).await? else {
            return Ok(Confrontation::Declarer);
        };
        match inventaire.etat(&ctx.unite.cle) {
            EtatDistant::Absent => Ok(Confrontation::Declarer),
            EtatDistant::Finalise(piece) => self.deja_finalise(ctx, piece).await,
            EtatDistant::NonFinalise(piece) => self.reprendre(ctx, piece, en_parties).await,
        }
    }

    /// Un enregistrement non finalisé de ce titre attend : repris, ou supprimé s'il tient un
    /// envoi en plusieurs parties alors que le fichier part en un PUT.
    async fn reprendre(
        &self,
        ctx: &ContexteUnite<'_>,
        piece: &PieceJointe,
        en_parties: bool,
    ) -> Resultat<Confrontation> {
        let unite = ctx.unite;
        match (en_parties, piece.est_multipart()) {
            (true, true) => {
                let base = ctx.base();
                if unite.enregistrement.as_deref() != Some(piece.id.as_str()) {
                    // Les parties acquittées pour un autre envoi ne servent pas à celui-ci.
                    base.oublier_parties(unite.id)?;
                    base.noter_enregistrement(unite.id, Some(piece.id.as_str()))?;
                }
                Ok(Confrontation::EnParties(piece.id.clone()))
            }
            (true, false) => {
                tracing::info!(
                    unite = %unite.chemin,
                    "enregistrement non finalisé d'un envoi en un seul PUT (site web) : repris tel quel"
                );
                Ok(Confrontation::EnUnPut)
            }
            (false, true) => {
                tracing::info!(
                    unite = %unite.chemin,
                    "enregistrement non finalisé d'un envoi en plusieurs parties : supprimé avant \
                     un envoi en un PUT"
                );
                Ok(match self.supprimer(ctx, &piece.id).await? {
                    Ok(()) => Confrontation::Declarer,
                    Err(issue) => Confrontation::Reglee(issue),
                })
            }
            (false, false) => Ok(Confrontation::Declarer),
        }
    }

    /// Un fichier de ce titre est finalisé sur la plateforme : le nôtre (l'enregistrement que
    /// tenait le plan), ou celui d'un autre client, comparé au fichier local.
    async fn deja_finalise(
        &self,
        ctx: &ContexteUnite<'_>,
        piece: &PieceJointe,
    ) -> Resultat<Confrontation> {
        let fichier = ctx.fichier();
        let unite = ctx.unite;
        if unite.enregistrement.as_deref() == Some(piece.id.as_str()) {
            return Ok(Confrontation::Reglee(self.deja_depose(ctx).await?));
        }
        let objet = match relever(ctx, &self.client, &piece.id, &unite.cle).await {
            ObjetRelu::Objet(o) => o,
            // Changé depuis la lecture de l'inventaire : la déclaration dira ce qu'il en est.
            ObjetRelu::NonFinalise | ObjetRelu::Inconnu => return Ok(Confrontation::Declarer),
            ObjetRelu::AbsentDuStockage => {
                return Ok(Confrontation::Reglee(remplacement_refuse(
                    "la plateforme tient ce fichier pour déposé, mais son stockage ne l'a pas",
                    "signalez-le à ses gestionnaires",
                )));
            }
            ObjetRelu::Interrompu => return Ok(Confrontation::Reglee(IssueUnite::Interrompue)),
            ObjetRelu::Echec {
                statut: Some(401), ..
            } => return Ok(Confrontation::Reglee(self.refus_jeton())),
            ObjetRelu::Echec { statut, detail, .. } => {
                return Ok(Confrontation::Reglee(IssueUnite::Echec {
                    definitif: false,
                    cause: if statut.is_some() {
                        CauseRefus::Serveur
                    } else {
                        CauseRefus::Reseau
                    },
                    message: format!(
                        "déjà finalisé sur la plateforme, mais son contenu n'a pas pu être \
                         comparé au fichier local ({detail}) : {} refera la comparaison",
                        commande("retenter-echecs")
                    ),
                }));
            }
        };
        let issue = match comparer(fichier, unite.taille, &objet).await {
            Err(e) => echec_local(&e),
            Ok(Comparaison::Identique { etag, crc32c }) => IssueUnite::DejaPresente {
                crc32c: crc32c_base64(crc32c),
                etag: Some(etag),
                comparee: true,
            },
            Ok(Comparaison::Differente(ecart)) => remplacement_refuse(
                &format!(
                    "la plateforme a déjà ce fichier, finalisé, avec un autre contenu ({ecart})"
                ),
                GESTE_AUTRE_CONTENU,
            ),
            Ok(Comparaison::NonComparee(raison)) => {
                tracing::info!(
                    unite = %unite.chemin,
                    raison,
                    "déjà sur la plateforme, de même taille ; contenu non comparé"
                );
                match somme_crc32c(fichier, 0, unite.taille).await {
                    Ok(crc) => IssueUnite::DejaPresente {
                        crc32c: crc32c_base64(crc),
                        etag: None,
                        comparee: false,
                    },
                    Err(e) => echec_local(&e),
                }
            }
        };
        Ok(Confrontation::Reglee(issue))
    }

    /// Un `409` à la déclaration : un fichier de ce nom est finalisé sur la plateforme. C'est
    /// le dépôt de ce plan seulement si l'enregistrement que le plan tenait est relu finalisé
    /// (finalisé lors d'un passage arrêté avant de le noter) ; sinon la plateforme refuse de
    /// remplacer un fichier que `vigie` n'a pas pu comparer (l'inventaire n'a pas été lu, ou
    /// le fichier a été finalisé depuis).
    pub(super) async fn finalise_a_la_declaration(
        &self,
        ctx: &ContexteUnite<'_>,
        detail: &str,
    ) -> Resultat<IssueUnite> {
        if let Some(id) = ctx
            .unite
            .enregistrement
            .as_deref()
            .and_then(IdObjet::analyser)
        {
            let lu = self.relire(ctx, &id).await;
            match lu.reponse {
                ReponseApi::Succes(Some(f)) if f.disponible => return self.deja_depose(ctx).await,
                ReponseApi::Succes(_) => {}
                _ => return Ok(self.echec(&lu)),
            }
        }
        Ok(remplacement_refuse(
            &format!(
                "un fichier de ce nom est déjà finalisé sur la plateforme ({detail}), et son \
                 contenu n'a pas pu être comparé au fichier local"
            ),
            "une relance qui reprend les refus définitifs relira la plateforme et le comparera",
        ))
    }
}
