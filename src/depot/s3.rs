//! Le dépôt d'une unité vers S3 : un `PutObject` pour un petit fichier, un envoi multipart
//! reprenable partie par partie pour un gros.
//!
//! - `PutObject` (rejouable, INSISTANT) porte la somme CRC32C, que le service vérifie et rend ;
//! - multipart : l'ouverture et la finalisation sont des écritures non rejouables ; sans
//!   réponse, on relit la destination (`ListMultipartUploads` ; `HeadObject` puis `ListParts`)
//!   avant toute nouvelle émission, et une écriture dont la relecture prouve qu'elle n'a pas eu
//!   lieu repart, dans le budget d'une seule émission (`Emission::ecriture_relue`). Chaque
//!   partie (rejouable) est persistée dès son ETag rendu : une relance ne renvoie que la partie
//!   qui était en vol. Seul un refus définitif du fichier lui-même abandonne l'envoi (pas
//!   d'orphelin) ; un incident transitoire ou un refus d'identifiants garde les parties. Tout
//!   cela est le pilote commun (`parties.rs`) : ce module n'en implémente que le protocole S3.
//!
//! Avant tout envoi, la destination a été lue (`destination.rs`) : un fichier qu'elle tient
//! déjà sous la même clé, de même taille et de même empreinte, ne repart pas. Un refus qui vaut
//! pour toute la destination (identifiants, horloge, compartiment, droits) arrête le passage :
//! les fichiers suivants échouent de même sans rien émettre.

pub(crate) mod adresse;
pub(crate) mod destination;
pub(crate) mod fabrique;
pub(crate) mod verification;

pub(crate) use adresse::DestinationS3;

use futures_util::FutureExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use destination::{InventaireS3, RefusDestination};

use super::parties::{
    self, Acquittement, Assemblage, EchecEnvoi, EnvoiEnParties, FinEnParties, Ouverture, Partie,
};
use super::{
    ContexteUnite, Depositaire, IssueUnite, RefusLu, Resultat, echec_de, echec_local,
    echec_si_fichier_change, releve_si_encore_la,
};
use crate::depot::relecture::empreinte::{Comparaison, comparer};
use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite, PartieEnvoi};
use crate::reessai::{Etape, Issue, Profil, RaisonArret, Rejouabilite, Releve, ReponseApi};
use crate::transport::corps::{SommeAssemblee, crc32c_base64, crc32c_depuis_base64, somme_crc32c};
use crate::transport::s3::{
    ClientS3, Ecrit, HORLOGE_REFUSEE, ObjetDistant, PartieAssemblee, PartieDistante,
};
use crate::transport::vigiechiro::ObjetLu;
use crate::transport::{Emission, emettre};

/// Les attentes avant chaque nouveau regard sur l'objet, quand une finalisation sans réponse a
/// fait disparaître l'envoi sans que l'objet soit encore là (assemblage en cours).
/// Seuil de l'envoi en parties par défaut (Mio).
pub(crate) const SEUIL_MULTIPART_MIO: u64 = 8;

const REGARDS_APRES_DISPARITION: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
];

/// Le dépôt vers un compartiment S3.
pub(crate) struct DepositaireS3 {
    client: ClientS3,
    /// Au-delà (strictement), un fichier part en multipart.
    seuil_multipart: u64,
    taille_partie: u64,
    /// Ce que la destination tenait au début du passage, si elle a pu être lue.
    inventaire: Option<Arc<InventaireS3>>,
    /// Un refus qui vaut pour toute la destination, reçu pendant le passage : les unités
    /// suivantes échouent de même sans rien émettre (chaque requête serait refusée).
    refus: OnceLock<RefusDestination>,
}

impl Depositaire for DepositaireS3 {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        if let Some(refus) = self.refus.get() {
            return Ok(self.echec_de_destination(refus));
        }
        let unite = ctx.unite;
        if unite.envoi_multipart.is_none()
            && let Some(issue) = self.deja_a_la_destination(ctx).await
        {
            return Ok(issue);
        }
        let issue = if unite.taille > self.seuil_multipart || unite.envoi_multipart.is_some() {
            match parties::deposer_en_parties(self, ctx).await? {
                FinEnParties::Issue(issue) => issue,
                // Un compartiment S3 ne refuse pas l'envoi en parties, et rien n'en ouvre
                // d'un seul tenant.
                FinEnParties::EnUnSeul(_) => self.deposer_d_un_bloc(ctx).await,
            }
        } else {
            self.deposer_d_un_bloc(ctx).await
        };
        Ok(self.arreter_si_refus_de_destination(issue))
    }

    async fn sonder(&self) -> ReponseApi<()> {
        self.client.sonder().await
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        PartieDuBilan::default()
    }
}

/// Un refus définitif lu d'après son code d'erreur S3 (le corps XML d'un refus) : des
/// identifiants refusés sont une authentification à refaire, pas des droits manquants ; une
/// somme refusée (`BadDigest`, `InvalidDigest`) dit une altération en route, pas un fichier
/// fautif : un échec transitoire. Le reste se lit par le statut, comme ailleurs.
pub(crate) fn lire_refus(statut: u16, detail: &str) -> RefusLu {
    let mut lu = RefusLu::du_statut(statut);
    if statut == 403 && destination::IDENTIFIANTS.iter().any(|c| detail.contains(c)) {
        lu.cause = CauseRefus::Authentification;
    }
    if statut == 403 && detail.contains(HORLOGE_REFUSEE) {
        lu.cause = CauseRefus::Horloge;
    }
    if detail.contains("BadDigest") || detail.contains("InvalidDigest") {
        lu.definitif = false;
    }
    lu
}

/// L'objet relu est-il celui que nos parties assemblent (taille, et somme sous l'une des formes
/// admises) ?
fn assemble(o: &ObjetDistant, unite: &DepotUnite, attendue: &SommeAssemblee) -> bool {
    o.taille == unite.taille && o.crc32c.as_deref().is_some_and(|c| attendue.reconnait(c))
}

impl DepositaireS3 {
    pub(crate) fn nouveau(
        client: ClientS3,
        seuil_multipart: u64,
        taille_partie: u64,
        inventaire: Option<Arc<InventaireS3>>,
    ) -> Self {
        DepositaireS3 {
            client,
            seuil_multipart,
            taille_partie,
            inventaire,
            refus: OnceLock::new(),
        }
    }

    /// L'échec d'une unité que la destination entière refuse.
    fn echec_de_destination(&self, refus: &RefusDestination) -> IssueUnite {
        IssueUnite::Echec {
            definitif: true,
            cause: refus.cause(),
            message: refus.message(self.client.compartiment()),
        }
    }

    /// Un refus définitif qui vaut pour toute la destination arrête le passage : il est retenu
    /// (le premier reçu), et l'unité échoue avec son message en clair.
    fn arreter_si_refus_de_destination(&self, issue: IssueUnite) -> IssueUnite {
        let IssueUnite::Echec {
            definitif: true,
            ref message,
            ..
        } = issue
        else {
            return issue;
        };
        // Un échec que ce refus a déjà dit (l'unité l'a trouvé retenu) reste tel quel.
        if let Some(retenu) = self.refus.get()
            && *message == retenu.message(self.client.compartiment())
        {
            return issue;
        }
        let Some(refus) = self.retenir_refus_de_destination(&issue) else {
            return issue;
        };
        // Le refus tel que le service l'a dit reste noté pour l'unité qui l'a reçu.
        IssueUnite::Echec {
            definitif: true,
            cause: refus.cause(),
            message: format!("{} ; {message}", refus.message(self.client.compartiment())),
        }
    }

    /// Retient (le premier reçu) un refus définitif qui vaut pour toute la destination, et le
    /// rend. Appelé avant de rendre la place de transfert : l'unité qui la prend ensuite voit
    /// le refus et n'émet rien. Retenu seulement à la fin de l'unité, il laissait partir le
    /// fichier suivant, qui prenait la place entre-temps (et que le SDK, qui corrige l'heure
    /// de ses signatures d'après la réponse refusée, faisait même accepter).
    fn retenir_refus_de_destination(&self, issue: &IssueUnite) -> Option<RefusDestination> {
        let IssueUnite::Echec {
            definitif: true,
            message,
            ..
        } = issue
        else {
            return None;
        };
        let refus = RefusDestination::reconnaitre(message)?;
        if self.refus.set(refus.clone()).is_ok() {
            tracing::warn!(
                "la destination refuse ce dépôt ({message}) : les fichiers suivants ne partent pas"
            );
        }
        Some(refus)
    }

    /// La destination tient-elle déjà ce fichier, sous la même clé, de même taille et de même
    /// empreinte ? Alors rien ne repart : l'unité est déposée. L'objet est relu (`HeadObject` :
    /// son ETag et sa somme, que `vigie verifier` comparera), puis confronté au fichier local
    /// (une lecture) : l'ETag d'abord (MD5, ou objet assemblé en parties d'un nombre entier de
    /// Mio), à défaut la CRC32C de l'objet entier. Un autre contenu, ou qui ne se compare pas :
    /// le fichier part, et remplace l'objet (S3 le permet, comme le ferait rclone).
    async fn deja_a_la_destination(&self, ctx: &ContexteUnite<'_>) -> Option<IssueUnite> {
        let fichier = ctx.fichier();
        let unite = ctx.unite;
        let liste = self.inventaire.as_deref()?.objet(&unite.cle)?;
        if liste.taille != unite.taille {
            return None;
        }
        let lu = self.lire_objet(ctx).await;
        let ReponseApi::Succes(Some(objet)) = lu.reponse else {
            return None;
        };
        if objet.taille != unite.taille {
            return None;
        }
        let par_l_etag = comparer(
            fichier,
            unite.taille,
            &ObjetLu {
                taille: objet.taille,
                etag: objet.etag.clone(),
            },
        )
        .await;
        let crc_local = match par_l_etag {
            Ok(Comparaison::Identique { crc32c, .. }) => crc32c_base64(crc32c),
            Ok(Comparaison::NonComparee(_)) => {
                let somme = objet.crc32c.as_deref().filter(|c| !c.contains('-'))?;
                let crc = crc32c_base64(somme_crc32c(fichier, 0, unite.taille).await.ok()?);
                if crc != somme {
                    return None;
                }
                crc
            }
            Ok(Comparaison::Differente(ecart)) => {
                tracing::info!(cle = %unite.cle, "objet de même clé, autre contenu ({ecart}) : il sera remplacé");
                return None;
            }
            Err(_) => return None,
        };
        Some(IssueUnite::DejaPresente {
            // La somme que rend la destination, que `vigie verifier` relira ; à défaut, celle
            // du fichier.
            crc32c: objet.crc32c.unwrap_or(crc_local),
            etag: objet.etag,
            comparee: true,
        })
    }

    async fn deposer_d_un_bloc(&self, ctx: &ContexteUnite<'_>) -> IssueUnite {
        let fichier = ctx.fichier();
        let unite = ctx.unite;
        // La place d'abord, dans l'ordre où les unités ont été ouvertes (les plus grosses
        // d'abord) ; la somme se lit ensuite, juste avant l'envoi.
        let place = ctx.place_de_transfert().await;
        // La destination a tout refusé pendant que l'unité attendait sa place : rien ne part.
        if let Some(refus) = self.refus.get() {
            return self.echec_de_destination(refus);
        }
        let crc = match somme_crc32c(fichier, 0, unite.taille).await {
            Ok(c) => c,
            Err(e) => return echec_local(&e),
        };
        let attendu = crc32c_base64(crc);
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "PutObject",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |p| {
                self.client
                    .deposer_objet(&unite.cle, fichier, unite.taille, crc, p)
            },
        )
        .await;
        let ecrit = match issue.reponse {
            ReponseApi::Succes(e) => Ok(e),
            _ => {
                let echec = echec_de(&issue, lire_refus);
                self.retenir_refus_de_destination(&echec);
                Err(echec)
            }
        };
        drop(place);
        if let Some(echec) = echec_si_fichier_change(fichier.chemin, unite) {
            return echec;
        }
        let ecrit = match ecrit {
            Ok(e) => e,
            Err(echec) => return echec,
        };
        ctx.octets_envoyes(unite.taille);

        // La somme renvoyée est celle que le service a calculée sur ce qu'il a reçu.
        match &ecrit.crc32c {
            Some(c) if *c == attendu => IssueUnite::Deposee {
                crc32c: attendu,
                etag: ecrit.etag,
            },
            Some(c) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Contenu,
                message: format!(
                    "somme de contrôle différente à la destination ({c} au lieu de {attendu})"
                ),
            },
            // Le service n'a pas renvoyé de somme : on relit l'objet.
            None => self.verifier_objet(ctx, &attendu, ecrit.etag).await,
        }
    }

    /// Relit un objet à la destination (lecture : rejouable, INSISTANT).
    async fn lire_objet(&self, ctx: &ContexteUnite<'_>) -> Issue<Option<ObjetDistant>> {
        let unite = ctx.unite;
        emettre(
            ctx,
            Emission::nouveau(
                "HeadObject",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.decrire(&unite.cle),
        )
        .await
    }

    /// Relit les parties reçues d'un envoi (lecture : rejouable, INSISTANT).
    async fn lire_parties(
        &self,
        ctx: &ContexteUnite<'_>,
        envoi: &str,
    ) -> Issue<Option<Vec<PartieDistante>>> {
        let unite = ctx.unite;
        emettre(
            ctx,
            Emission::nouveau(
                "ListParts",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.lister_parties(&unite.cle, envoi),
        )
        .await
    }

    /// Relit l'objet déposé : taille, et somme si le service en garde une.
    async fn verifier_objet(
        &self,
        ctx: &ContexteUnite<'_>,
        attendu: &str,
        etag: Option<String>,
    ) -> IssueUnite {
        let unite = ctx.unite;
        let issue = self.lire_objet(ctx).await;
        match issue.reponse {
            ReponseApi::Succes(Some(o))
                if o.taille == unite.taille && o.crc32c.as_deref().is_none_or(|c| c == attendu) =>
            {
                IssueUnite::Deposee {
                    crc32c: attendu.to_owned(),
                    etag: o.etag.or(etag),
                }
            }
            ReponseApi::Succes(Some(o)) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Contenu,
                message: format!(
                    "l'objet déposé ne correspond pas ({} octets, somme {:?}) : il sera renvoyé",
                    o.taille, o.crc32c
                ),
            },
            ReponseApi::Succes(None) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Serveur,
                message: "l'objet annoncé déposé est introuvable à la destination".into(),
            },
            _ => echec_de(&issue, lire_refus),
        }
    }

    /// Cherche un envoi déjà ouvert sur la clé (et l'adopte), sinon en ouvre un et le note
    /// aussitôt dans le plan. L'ouverture est une écriture non rejouable (chaque appel ouvre un
    /// envoi) : sans réponse, la relecture des envois ouverts dit si elle a eu lieu (l'envoi est
    /// adopté) ou non (elle repart, dans le même budget).
    async fn ouvrir_envoi(&self, ctx: &ContexteUnite<'_>) -> Resultat<Result<String, IssueUnite>> {
        let unite = ctx.unite;
        // Un envoi ouvert sans que nous ayons pu le noter (arrêt entre l'ouverture et son
        // écriture dans le plan) est repris.
        let ouverts = emettre(
            ctx,
            Emission::nouveau(
                "ListMultipartUploads",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.envois_ouverts(&unite.cle),
        )
        .await;
        match ouverts.reponse {
            ReponseApi::Succes(ids) => {
                if let Some(id) = self.adopter(ctx, ids).await {
                    ctx.base().noter_envoi_multipart(unite.id, Some(&id))?;
                    return Ok(Ok(id));
                }
            }
            // Service sans ListMultipartUploads : rien à reprendre, on ouvre (une ouverture sans
            // réponse restera alors incertaine).
            ReponseApi::Refuse { statut: 501, .. } => {}
            _ => return Ok(Err(echec_de(&ouverts, lire_refus))),
        }
        let relecture = |etape: Etape| async move {
            let lu = emettre(
                ctx,
                Emission::lecture("ListMultipartUploads", &unite.cle).dans(&etape),
                |_| self.client.envois_ouverts(&unite.cle),
            )
            .await;
            match lu.reponse {
                ReponseApi::Succes(ids) => match self.adopter(ctx, ids).await {
                    Some(id) => Releve::Faite(id),
                    None => Releve::Nulle,
                },
                _ => Releve::Inconnue,
            }
        };
        let relecture = &mut |etape| relecture(etape).boxed();
        let issue = emettre(
            ctx,
            Emission::ecriture_relue("CreateMultipartUpload", &unite.cle, relecture),
            |_| self.client.ouvrir_envoi(&unite.cle),
        )
        .await;
        match issue.reponse {
            ReponseApi::Succes(id) => {
                ctx.base().noter_envoi_multipart(unite.id, Some(&id))?;
                Ok(Ok(id))
            }
            _ if issue.raison == RaisonArret::IssueInconnue => Ok(Err(IssueUnite::Incertaine {
                message: "ouverture d'envoi sans réponse, destination injoignable pour la vérifier"
                    .into(),
            })),
            _ => Ok(Err(echec_de(&issue, lire_refus))),
        }
    }

    /// Adopte le plus récent des envois ouverts sur la clé ; les autres, orphelins d'un arrêt,
    /// sont abandonnés.
    async fn adopter(&self, ctx: &ContexteUnite<'_>, mut ids: Vec<String>) -> Option<String> {
        let adopte = ids.pop()?;
        for orphelin in ids {
            self.abandonner_sans_issue(ctx, &orphelin).await;
        }
        tracing::info!(cle = %ctx.unite.cle, "envoi multipart ouvert retrouvé à la destination : repris");
        Some(adopte)
    }

    /// L'objet est-il déjà là, assemblé à partir de nos parties ? (reprise d'un envoi disparu)
    async fn objet_deja_assemble(
        &self,
        ctx: &ContexteUnite<'_>,
        persistees: &[PartieEnvoi],
    ) -> Option<IssueUnite> {
        let unite = ctx.unite;
        let sommes: Option<Vec<(u32, u64)>> = persistees
            .iter()
            .map(|p| {
                p.somme_controle
                    .as_deref()
                    .and_then(crc32c_depuis_base64)
                    .map(|c| (c, p.taille))
            })
            .collect();
        let sommes = sommes.filter(|s| !s.is_empty())?;
        let couvert: u64 = persistees.iter().map(|p| p.taille).sum();
        if couvert != unite.taille {
            return None;
        }
        self.objet_assemble_en_regardant(ctx, &SommeAssemblee::depuis_parties(&sommes))
            .await
    }

    /// L'envoi a disparu : l'objet est-il assemblé à partir de nos parties ? Absent, il est
    /// regardé de nouveau après 1, 2 puis 4 s : une finalisation partie sans réponse (ou
    /// juste avant un arrêt) peut être encore en train d'assembler, et repartir de zéro
    /// l'assemblerait une seconde fois.
    async fn objet_assemble_en_regardant(
        &self,
        ctx: &ContexteUnite<'_>,
        attendue: &SommeAssemblee,
    ) -> Option<IssueUnite> {
        if let Some(issue) = self.objet_deja_assemble_somme(ctx, attendue).await {
            return Some(issue);
        }
        self.regarder_encore(ctx, attendue).await
    }

    /// Les regards suivants seulement (1, 2 puis 4 s), quand l'objet vient d'être lu absent.
    async fn regarder_encore(
        &self,
        ctx: &ContexteUnite<'_>,
        attendue: &SommeAssemblee,
    ) -> Option<IssueUnite> {
        for attente in REGARDS_APRES_DISPARITION {
            if !ctx.patienter(attente).await {
                return None;
            }
            if let Some(issue) = self.objet_deja_assemble_somme(ctx, attendue).await {
                return Some(issue);
            }
        }
        None
    }

    async fn objet_deja_assemble_somme(
        &self,
        ctx: &ContexteUnite<'_>,
        attendue: &SommeAssemblee,
    ) -> Option<IssueUnite> {
        let unite = ctx.unite;
        let issue = self.lire_objet(ctx).await;
        match issue.reponse {
            ReponseApi::Succes(Some(o)) if assemble(&o, unite, attendue) => {
                Some(IssueUnite::Deposee {
                    crc32c: o.crc32c.unwrap_or_default(),
                    etag: o.etag,
                })
            }
            _ => None,
        }
    }

    /// Après une finalisation acquittée : l'objet a-t-il la taille et la somme attendues ?
    async fn verifier_assemblage(
        &self,
        ctx: &ContexteUnite<'_>,
        attendue: &SommeAssemblee,
    ) -> IssueUnite {
        let unite = ctx.unite;
        let issue = self.lire_objet(ctx).await;
        let nombre = attendue.parties;
        match issue.reponse {
            ReponseApi::Succes(Some(o))
                if o.taille == unite.taille
                    && match o.crc32c.as_deref() {
                        Some(c) => attendue.reconnait(c),
                        // Service sans somme composite : taille et nombre de parties de l'ETag.
                        None => o
                            .etag
                            .as_deref()
                            .is_some_and(|e| e.ends_with(&format!("-{nombre}"))),
                    } =>
            {
                // La somme gardée est celle que rend le service : `vigie verifier` la comparera.
                IssueUnite::Deposee {
                    crc32c: o.crc32c.unwrap_or_else(|| attendue.composite.clone()),
                    etag: o.etag,
                }
            }
            ReponseApi::Succes(Some(o)) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Contenu,
                message: format!(
                    "l'objet assemblé ne correspond pas ({} octets, somme {:?}, attendu {} ou {}) : il sera renvoyé",
                    o.taille, o.crc32c, attendue.composite, attendue.entiere
                ),
            },
            ReponseApi::Succes(None) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Serveur,
                message: "l'objet finalisé est introuvable à la destination".into(),
            },
            _ => echec_de(&issue, lire_refus),
        }
    }

    async fn abandonner_sans_issue(&self, ctx: &ContexteUnite<'_>, envoi: &str) -> bool {
        let unite = ctx.unite;
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "AbortMultipartUpload",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.abandonner_envoi(&unite.cle, envoi),
        )
        .await;
        issue.raison == RaisonArret::Succes
    }
}

/// L'envoi multipart S3 derrière le port commun : ouverture (`ListParts` d'un envoi repris,
/// `ListMultipartUploads` puis `CreateMultipartUpload`), `UploadPart`,
/// `CompleteMultipartUpload` relu, `AbortMultipartUpload`.
impl EnvoiEnParties for DepositaireS3 {
    type Envoi = String;

    fn taille_partie(&self) -> u64 {
        self.taille_partie
    }

    /// Reprise : l'envoi du plan existe-t-il encore, et quelles parties a-t-il reçues ?
    /// Disparu, l'objet dit s'il a été assemblé (finalisation à la réponse perdue) ; sinon
    /// l'envoi est oublié. Puis l'ouverture, après avoir cherché un envoi ouvert sans que nous
    /// ayons pu le noter (réponse perdue, arrêt entre l'ouverture et son écriture au plan).
    async fn ouvrir(&self, ctx: &ContexteUnite<'_>) -> Resultat<Ouverture<String>> {
        let unite = ctx.unite;
        let persistees = ctx.base().parties(unite.id)?;
        let connu = ctx.base().unite(unite.id)?.envoi_multipart;
        if let Some(id) = connu {
            let issue = self.lire_parties(ctx, &id).await;
            match issue.reponse {
                ReponseApi::Succes(Some(distantes)) => {
                    // On garde les parties persistées que le service confirme (même ETag).
                    let gardees: Vec<PartieEnvoi> = persistees
                        .into_iter()
                        .filter(|p| {
                            p.envoyee
                                && distantes.iter().any(|d| {
                                    d.numero == p.numero && d.taille == p.taille && d.etag == p.etag
                                })
                        })
                        .collect();
                    let base = ctx.base();
                    base.oublier_parties(unite.id)?;
                    for p in &gardees {
                        base.enregistrer_partie(unite.id, p)?;
                    }
                    return Ok(Ouverture::Envoi {
                        envoi: id,
                        parties: gardees,
                    });
                }
                ReponseApi::Succes(None) => {
                    // L'envoi n'existe plus : finalisé (réponse perdue, arrêt juste après), ou
                    // abandonné. L'objet le dit.
                    if let Some(issue) = self.objet_deja_assemble(ctx, &persistees).await {
                        return Ok(Ouverture::Reglee(issue));
                    }
                    ctx.base().noter_envoi_multipart(unite.id, None)?;
                }
                _ => return Ok(Ouverture::Reglee(echec_de(&issue, lire_refus))),
            }
        }
        if let Some(refus) = self.refus.get() {
            return Ok(Ouverture::Reglee(self.echec_de_destination(refus)));
        }
        // Des parties notées sans envoi connu ne sont celles d'aucun envoi : un envoi neuf les
        // reçoit toutes.
        Ok(match self.ouvrir_envoi(ctx).await? {
            Ok(envoi) => Ouverture::Envoi {
                envoi,
                parties: Vec::new(),
            },
            Err(issue) => Ouverture::Reglee(issue),
        })
    }

    /// `UploadPart` (rejouable), sa somme CRC32C vérifiée par le service et relue dans sa
    /// réponse ; un 404 dit l'envoi disparu.
    async fn envoyer_partie(
        &self,
        ctx: &ContexteUnite<'_>,
        partie: Partie<'_, String>,
    ) -> Result<Acquittement, EchecEnvoi> {
        // La destination a tout refusé pendant que la partie attendait sa place : rien ne part.
        if let Some(refus) = self.refus.get() {
            return Err(EchecEnvoi::Echec(self.echec_de_destination(refus)));
        }
        // Un fichier devenu illisible garde ses parties : il peut le redevenir.
        let crc = somme_crc32c(ctx.fichier(), partie.debut, partie.taille)
            .await
            .map_err(|e| EchecEnvoi::Echec(echec_local(&e)))?;
        let Partie {
            envoi,
            numero,
            debut,
            taille,
        } = partie;
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "UploadPart",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |p| {
                let (cle, fichier) = (&ctx.unite.cle, ctx.fichier());
                self.client
                    .envoyer_partie(cle, envoi, numero, fichier, debut, taille, crc, p)
            },
        )
        .await;
        let ecrit = match issue.reponse {
            ReponseApi::Succes(e) => e,
            ReponseApi::Refuse { statut: 404, .. } => {
                return Err(EchecEnvoi::Disparu(
                    "l'envoi multipart a disparu de la destination",
                ));
            }
            _ => {
                // Retenu avant que la place de la partie soit rendue (voir
                // `retenir_refus_de_destination`).
                let echec = echec_de(&issue, lire_refus);
                self.retenir_refus_de_destination(&echec);
                return Err(EchecEnvoi::Echec(echec));
            }
        };
        let attendu = crc32c_base64(crc);
        if ecrit.crc32c.as_deref().is_some_and(|c| c != attendu) {
            return Err(EchecEnvoi::Echec(IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Contenu,
                message: format!("somme de la partie {numero} différente à la destination"),
            }));
        }
        let Some(etag) = ecrit.etag else {
            return Err(EchecEnvoi::Echec(IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Serveur,
                message: format!("la destination n'a pas rendu d'ETag pour la partie {numero}"),
            }));
        };
        Ok(Acquittement { etag, crc32c: crc })
    }

    /// `CompleteMultipartUpload`, non rejouable ; sans réponse, la relecture dit si l'objet est
    /// assemblé (elle a eu lieu) ou si l'envoi est encore ouvert (rien n'a eu lieu : elle
    /// repart, dans le même budget). Acquittée, l'objet assemblé est relu (taille, somme).
    async fn finaliser(
        &self,
        ctx: &ContexteUnite<'_>,
        assemblage: Assemblage<'_, String>,
    ) -> Resultat<Result<IssueUnite, EchecEnvoi>> {
        let unite = ctx.unite;
        let (envoi, faites) = (assemblage.envoi, assemblage.parties);
        let sommes: Vec<(u32, u64)> = faites.iter().map(|p| (p.crc32c, p.taille)).collect();
        let assemblees: Vec<PartieAssemblee> = faites
            .iter()
            .map(|p| PartieAssemblee {
                numero: p.numero,
                etag: p.etag.clone(),
                crc32c: crc32c_base64(p.crc32c),
            })
            .collect();
        let attendue = SommeAssemblee::depuis_parties(&sommes);
        let disparu = AtomicBool::new(false);
        let relecture = |etape: Etape| {
            let (attendue, disparu) = (&attendue, &disparu);
            async move {
                let objet = emettre(
                    ctx,
                    Emission::lecture("HeadObject", &unite.cle).dans(&etape),
                    |_| self.client.decrire(&unite.cle),
                )
                .await;
                match objet.reponse {
                    ReponseApi::Succes(Some(o)) if assemble(&o, unite, attendue) => {
                        return Releve::Faite(Ecrit {
                            etag: o.etag,
                            crc32c: o.crc32c,
                        });
                    }
                    ReponseApi::Succes(_) => {}
                    _ => return Releve::Inconnue,
                }
                let parties = emettre(
                    ctx,
                    Emission::lecture("ListParts", &unite.cle).dans(&etape),
                    |_| self.client.lister_parties(&unite.cle, envoi),
                )
                .await;
                releve_si_encore_la(&parties.reponse, disparu)
            }
        };
        let relecture = &mut |etape| relecture(etape).boxed();
        let issue = emettre(
            ctx,
            Emission::ecriture_relue("CompleteMultipartUpload", &unite.cle, relecture),
            |_| self.client.finaliser_envoi(&unite.cle, envoi, &assemblees),
        )
        .await;
        Ok(match issue.raison {
            RaisonArret::Succes => Ok(self.verifier_assemblage(ctx, &attendue).await),
            RaisonArret::IssueInconnue if disparu.load(Ordering::Relaxed) => {
                // L'envoi n'est plus là et l'objet pas encore : l'assemblage est peut-être
                // en cours (S3 peut y mettre plusieurs minutes). D'autres regards (la
                // relecture vient de lire l'objet absent : seuls les suivants), puis l'unité
                // repart de zéro.
                match self.regarder_encore(ctx, &attendue).await {
                    Some(issue) => Ok(issue),
                    None => Err(EchecEnvoi::Disparu(
                        "finalisation sans réponse et envoi disparu",
                    )),
                }
            }
            RaisonArret::IssueInconnue => Ok(IssueUnite::Incertaine {
                message: "finalisation sans réponse, destination injoignable pour la vérifier"
                    .into(),
            }),
            // NoSuchUpload : l'envoi n'est plus là. Une finalisation précédente l'a peut-être
            // assemblé : celle d'un processus arrêté brutalement, que le service a menée au
            // bout après l'arrêt, pendant que la relance relisait les parties. L'objet le dit ;
            // absent (regardé encore après 1, 2 puis 4 s), l'envoi a disparu et l'unité repart
            // de zéro. Jamais un refus définitif : le fichier n'y est pour rien.
            _ if matches!(issue.reponse, ReponseApi::Refuse { statut: 404, .. }) => {
                match self.objet_assemble_en_regardant(ctx, &attendue).await {
                    Some(issue) => Ok(issue),
                    None => Err(EchecEnvoi::Disparu(
                        "envoi multipart disparu à sa finalisation",
                    )),
                }
            }
            _ => Err(EchecEnvoi::Echec(echec_de(&issue, lire_refus))),
        })
    }

    /// `AbortMultipartUpload` (rejouable) : pas d'orphelin après un refus définitif.
    async fn abandonner(&self, ctx: &ContexteUnite<'_>, envoi: &String) -> Resultat<()> {
        if self.abandonner_sans_issue(ctx, envoi).await {
            ctx.base().noter_envoi_multipart(ctx.unite.id, None)?;
        }
        Ok(())
    }

    fn oublier(&self, ctx: &ContexteUnite<'_>) -> Resultat<()> {
        ctx.base().noter_envoi_multipart(ctx.unite.id, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Les codes d'erreur S3 se lisent ici, pas dans le moteur : des identifiants refusés
    /// (403) sont une authentification à refaire, une somme refusée un échec transitoire.
    #[test]
    fn les_codes_s3_d_un_refus() {
        let lu = |statut, detail| lire_refus(statut, detail);
        assert_eq!(
            lu(403, "AccessDenied Access Denied"),
            RefusLu {
                cause: CauseRefus::Droits,
                definitif: true
            }
        );
        assert_eq!(
            lu(403, "SignatureDoesNotMatch x").cause,
            CauseRefus::Authentification
        );
        assert_eq!(lu(403, "ExpiredToken").cause, CauseRefus::Authentification);
        assert_eq!(
            lu(403, "RequestTimeTooSkewed The difference is too large").cause,
            CauseRefus::Horloge
        );
        assert_eq!(lu(404, "NoSuchBucket").cause, CauseRefus::Stockage);
        assert_eq!(
            lu(400, "BadDigest The Content-MD5 you specified did not match"),
            RefusLu {
                cause: CauseRefus::Contenu,
                definitif: false
            }
        );
        assert!(!lu(400, "InvalidDigest").definitif);
        assert!(lu(400, "InvalidArgument").definitif);
        // Le moteur, lui, ne connaît pas ces codes.
        assert_eq!(
            RefusLu::du_statut(403).cause,
            CauseRefus::Droits,
            "SignatureDoesNotMatch n'est lu que par la destination"
        );
    }
}
