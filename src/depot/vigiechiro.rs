//! Le dépôt d'une unité sur la plateforme Vigie-Chiro (`docs/plateforme-vigiechiro.md`).
//!
//! Par unité : déclarer le fichier (`POST /fichiers`), envoyer les octets vers l'URL signée
//! (PUT simple au `mime` rendu, ou une URL par partie sans Content-Type), finaliser
//! (`POST /fichiers/{id}`).
//!
//! **Un seul PUT par défaut.** Aucun client officiel n'envoie en plusieurs parties : le site
//! web envoie chaque fichier en un PUT, et le test du serveur est marqué
//! `xfail("multipart is no longer supported")` (`tests/test_fichiers.py`). Le multipart ne sert
//! qu'au-delà d'un seuil bien au-dessus des séquences ordinaires (`SEUIL_MULTIPART_MIO`),
//! pour reprendre un gros fichier à la partie près ; si la plateforme refuse ce chemin
//! (`500 S3 has rejected file creation request` à la déclaration, `422 not a multipart` à l'URL
//! d'une partie), le fichier part en un PUT, et le refus est retenu pour tout le plan.
//!
//! **L'enregistrement rendu fait foi.** La plateforme retrouve un fichier par sa clé et rend un
//! enregistrement non finalisé **tel quel**, quelle que soit la déclaration
//! (`resources/fichiers.py` `_s3_create_singlepart`, `_s3_create_multipart`) : on lit donc
//! `s3_upload_multipart_id` dans sa réponse. Rendu à une déclaration multipart sans envoi
//! multipart (un envoi du site web interrompu), il part en PUT simple ; rendu à une
//! déclaration simple avec un envoi multipart (sa finalisation exigerait des parties), il est
//! supprimé (`DELETE`, permis tant qu'il n'est pas finalisé) puis redéclaré. Aucune unité
//! n'échoue pour cela.
//!
//! Rejouabilité, décidée ici, appel par appel :
//! - les PUT vers S3 et les lectures (`GET /fichiers/{id}`, URL d'une partie) sont rejouables
//!   (INSISTANT), comme la suppression d'un enregistrement non finalisé ;
//! - la déclaration et la finalisation sont des POST émis **une fois**. Sans réponse, on
//!   réconcilie : une déclaration **simple** se redéclare (la plateforme rend l'enregistrement
//!   non finalisé de la même clé, ou 409 s'il est finalisé : elle ne crée pas de doublon) ; une
//!   déclaration **multipart** ne se redéclare jamais en multipart (chaque POST multipart ouvre
//!   un envoi S3, orphelin si l'enregistrement existait) : on sonde par une déclaration simple,
//!   qui rend l'enregistrement existant sans rien ouvrir ; une finalisation se vérifie par
//!   `GET /fichiers/{id}` (non disponible : elle repart), et rejouée elle rend 409 « upload is
//!   already done » : un succès. Relectures et réémissions puisent dans le budget de l'étape
//!   (`Emission::ecriture_relue`) : un accroc isolé n'arrête jamais l'unité.
//! - l'identifiant du fichier et les parties acquittées vivent dans le plan : une relance reprend
//!   à la partie près. La reprise, la boucle des parties, la finalisation et la règle
//!   d'abandon (le refus définitif du contenu seulement : un refus de droits garde
//!   l'enregistrement et ses parties) sont celles du pilote commun (`parties.rs`).
//!
//! Intégrité : derrière une URL signée v2, aucun en-tête de somme n'est signé ; on vérifie que
//! l'ETag rendu par S3 est le MD5 de ce qui est parti.
//!
//! **Ce que la plateforme a déjà** (`confrontation.rs`) : avant toute déclaration, chaque
//! unité est confrontée à l'inventaire distant, lu une fois par passage. Un fichier finalisé
//! n'est ni redéclaré ni renvoyé : comparé au fichier local, il est « déjà sur la plateforme »
//! ou refusé (elle ne permet pas de le remplacer). Un `409` à la déclaration n'est jamais pris
//! pour un dépôt : c'est le même refus, sauf s'il s'agit de l'enregistrement que le plan tenait
//! (finalisé par ce plan lors d'un passage interrompu avant d'être noté).

pub(crate) mod adresse;
pub(crate) mod avant_envoi;
mod confrontation;
pub(crate) mod fabrique;
pub(crate) mod inventaire_distant;
pub(crate) mod participation;
pub(crate) mod relecture;
pub(crate) mod verification;

pub(crate) use adresse::DestinationVigieChiro;

use futures_util::FutureExt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use confrontation::Confrontation;

use super::parties::{
    self, Acquittement, Assemblage, EchecEnvoi, EnvoiEnParties, FinEnParties, Ouverture, Partie,
};
use super::{
    ContexteUnite, Depositaire, IssueUnite, Resultat, echec_de, echec_local,
    echec_si_fichier_change, releve_si_encore_la,
};
use crate::depot::relecture::empreinte::{EtagS3, etag_assemble};
use crate::destination::{IdObjet, PartieDuBilan};
use crate::plan::{CauseRefus, PartieEnvoi};
use crate::plateforme::conseil::commande;
use crate::reessai::{Etape, Issue, Profil, RaisonArret, Rejouabilite, Releve, ReponseApi};
use crate::transport::corps::{
    crc32c_base64, crc32c_composite, crc32c_depuis_base64, sommes_crc32c_md5,
};
use crate::transport::vigiechiro::{ClientVigieChiro, Declaration, FichierDistant};
use crate::transport::{Emission, emettre};
use inventaire_distant::InventaireDistant;

/// Le refus de la plateforme à une déclaration multipart quand S3 refuse d'ouvrir l'envoi
/// (`resources/fichiers.py` `_s3_create_multipart`, `abort(500, …)`) : rien n'est enregistré.
const MULTIPART_REFUSE_PAR_S3: &str = "S3 has rejected file creation request";
/// Le refus de la plateforme à l'URL d'une partie d'un enregistrement sans envoi multipart
/// (`resources/fichiers.py` `fichier_multipart_continue`).
const PAS_UN_MULTIPART: &str = "not a multipart";

/// Le détail du refus de S3 d'ouvrir un envoi multipart, si c'est ce refus-là.
fn refus_multipart_par_s3<T>(reponse: &ReponseApi<T>) -> Option<&str> {
    match reponse {
        ReponseApi::Refuse {
            statut: 500,
            detail,
            ..
        } if detail.contains(MULTIPART_REFUSE_PAR_S3) => Some(detail),
        _ => None,
    }
}

/// La taille maximale d'un PUT simple vers S3 (5 Gio).
/// Seuil de l'envoi en parties par défaut (Mio) : bien au-dessus des séquences ordinaires
/// (quelques Mio), pour que presque tout parte en un seul PUT, le seul chemin qu'emprunte un
/// client officiel (le site web) ; seuls les gros fichiers (archives) gagnent à reprendre à la
/// partie près, et repassent en un PUT si la plateforme refuse le multipart.
pub(crate) const SEUIL_MULTIPART_MIO: u64 = 100;

const PUT_SIMPLE_MAX: u64 = 5 * 1024 * 1024 * 1024;

/// Ce que dit `vigie` quand la plateforme refuse le jeton.
pub(crate) fn message_jeton_refuse() -> String {
    format!(
        "jeton Vigie-Chiro refusé ou expiré (401) : reconnectez-vous sur le site, puis {}, et {}",
        commande("connexion").args(["--jeton", "-"]),
        commande("retenter-echecs")
    )
}

/// Le dépôt vers une participation Vigie-Chiro.
pub(crate) struct DepositaireVigieChiro {
    client: ClientVigieChiro,
    participation: IdObjet,
    seuil_multipart: u64,
    taille_partie: u64,
    /// Un 401 a été reçu : les unités suivantes échouent sans rien émettre (chaque requête
    /// échouerait de même).
    jeton_refuse: AtomicBool,
    /// La plateforme a refusé l'envoi en plusieurs parties (pendant ce passage, ou un
    /// précédent : c'est noté dans le plan) : tout part en un PUT.
    multipart_refuse: AtomicBool,
    /// L'inventaire distant du passage, lu par la première unité (les autres l'attendent) ;
    /// `None` s'il n'a pas pu être lu : chaque fichier est alors déclaré.
    inventaire: tokio::sync::OnceCell<Option<InventaireDistant>>,
}

/// L'issue d'une déclaration.
enum IssueDeclaration {
    /// L'enregistrement rendu (neuf, ou non finalisé et rendu tel quel).
    Enregistrement(Declaration),
    /// S3 a refusé d'ouvrir l'envoi multipart : rien n'est enregistré.
    MultipartRefuse(String),
    Fin(IssueUnite),
}

/// Un client authentifié par le jeton courant (`VIGIE_JETON` ou `vigie connexion`).
pub(crate) fn client_du_jeton(api: &str) -> anyhow::Result<ClientVigieChiro> {
    let jeton = crate::jeton::lire()?;
    ClientVigieChiro::nouveau(api, &jeton).map_err(anyhow::Error::msg)
}

impl DepositaireVigieChiro {
    pub(crate) fn nouveau(
        client: ClientVigieChiro,
        participation: IdObjet,
        seuil_multipart: u64,
        taille_partie: u64,
        multipart_refuse: bool,
    ) -> Self {
        DepositaireVigieChiro {
            client,
            participation,
            seuil_multipart,
            taille_partie,
            jeton_refuse: AtomicBool::new(false),
            multipart_refuse: AtomicBool::new(multipart_refuse),
            inventaire: tokio::sync::OnceCell::new(),
        }
    }

    fn refus_jeton(&self) -> IssueUnite {
        self.jeton_refuse.store(true, Ordering::Relaxed);
        IssueUnite::Echec {
            definitif: true,
            cause: CauseRefus::Authentification,
            message: message_jeton_refuse(),
        }
    }

    /// L'échec d'une émission, le 401 traité à part.
    fn echec<T>(&self, issue: &Issue<T>) -> IssueUnite {
        if issue.reponse.statut() == Some(401) {
            return self.refus_jeton();
        }
        // Les fichiers partent vers le stockage S3 de la plateforme (URL signées) : ses refus
        // se lisent comme ceux d'un compartiment.
        echec_de(issue, super::s3::lire_refus)
    }

    /// La plateforme refuse le multipart : retenu pour le plan (noté une fois), et dit.
    fn retenir_refus_multipart(&self, ctx: &ContexteUnite<'_>, raison: &str) -> Resultat<()> {
        ctx.base().noter_multipart_refuse(ctx.unite.plan_id)?;
        if !self.multipart_refuse.swap(true, Ordering::Relaxed) {
            tracing::info!(
                raison,
                "la plateforme refuse l'envoi en plusieurs parties : les fichiers de ce plan \
                 partent désormais en un seul PUT"
            );
        }
        Ok(())
    }

    /// Déclare le fichier (POST non rejouable). Sans réponse, la relecture est une déclaration
    /// simple : elle rend l'enregistrement existant sans ouvrir d'envoi S3 ni créer de doublon
    /// (en multipart, redéclarer ouvrirait un second envoi, orphelin à jamais), ou le crée s'il
    /// n'existait pas. Le tout dans le budget d'une seule émission. Le refus de S3 d'ouvrir un
    /// envoi multipart (`500 S3 has rejected file creation request`) est une issue connue :
    /// la plateforme s'arrête avant tout enregistrement, rien n'est relu.
    async fn declarer(
        &self,
        ctx: &ContexteUnite<'_>,
        multipart: bool,
    ) -> Resultat<IssueDeclaration> {
        let unite = ctx.unite;
        if multipart {
            // Noté avant d'émettre. Un arrêt brutal avant la réponse laisse peut-être un
            // enregistrement dont l'envoi S3 est ouvert : la relance le cherche par une
            // déclaration simple (qui n'ouvre rien) au lieu de redéclarer en multipart (qui
            // ouvrirait un second envoi, orphelin à jamais).
            ctx.base().noter_declaration_emise(unite.id)?;
        }
        let refus_de_s3 = AtomicBool::new(false);
        // Le `409` rendu à la relecture d'une déclaration restée sans réponse.
        let deja_finalise: Mutex<Option<String>> = Mutex::new(None);
        let relecture = |etape: Etape| {
            let (refus_de_s3, deja_finalise) = (&refus_de_s3, &deja_finalise);
            async move {
                if refus_de_s3.load(Ordering::Relaxed) {
                    // Issue connue : rien n'a été enregistré, rien à relire.
                    return Releve::Inconnue;
                }
                // Rejouable dans ce rôle : la plateforme rend l'enregistrement existant.
                let lu = emettre(
                    ctx,
                    Emission::lecture("POST", "/fichiers").dans(&etape),
                    |_| self.client.declarer(&unite.cle, false, &self.participation),
                )
                .await;
                match lu.reponse {
                    ReponseApi::Succes(d) => Releve::Faite(d),
                    ReponseApi::Refuse {
                        statut: 409,
                        detail,
                        ..
                    } => {
                        if let Ok(mut d) = deja_finalise.lock() {
                            *d = Some(detail);
                        }
                        Releve::Inconnue
                    }
                    _ => Releve::Inconnue,
                }
            }
        };
        let relecture = &mut |etape| relecture(etape).boxed();
        let issue = emettre(
            ctx,
            Emission::ecriture_relue("POST", "/fichiers", relecture),
            |_| {
                let refus_de_s3 = &refus_de_s3;
                async move {
                    let r = self
                        .client
                        .declarer(&unite.cle, multipart, &self.participation)
                        .await;
                    if multipart && refus_multipart_par_s3(&r).is_some() {
                        refus_de_s3.store(true, Ordering::Relaxed);
                    }
                    r
                }
            },
        )
        .await;
        if let ReponseApi::Succes(d) = issue.reponse {
            ctx.base()
                .noter_enregistrement(unite.id, Some(d.id.as_str()))?;
            return Ok(IssueDeclaration::Enregistrement(d));
        }
        // Un enregistrement finalisé existe pour cette clé : jamais « déposé » pour autant
        // (voir `finalise_a_la_declaration`).
        let finalise = match &issue.reponse {
            ReponseApi::Refuse {
                statut: 409,
                detail,
                ..
            } => Some(detail.clone()),
            _ => deja_finalise.lock().ok().and_then(|mut d| d.take()),
        };
        if let Some(detail) = finalise {
            if multipart {
                ctx.base().noter_enregistrement(unite.id, None)?;
            }
            let issue = self.finalise_a_la_declaration(ctx, &detail).await?;
            return Ok(IssueDeclaration::Fin(issue));
        }
        if multipart && let Some(raison) = refus_multipart_par_s3(&issue.reponse) {
            ctx.base().noter_enregistrement(unite.id, None)?;
            return Ok(IssueDeclaration::MultipartRefuse(raison.to_owned()));
        }
        if issue.raison == RaisonArret::IssueInconnue {
            return Ok(IssueDeclaration::Fin(IssueUnite::Incertaine {
                message: "déclaration du fichier restée sans réponse".into(),
            }));
        }
        // La plateforme a répondu (ou rien n'est parti) : rien n'a été créé.
        if multipart {
            ctx.base().noter_enregistrement(unite.id, None)?;
        }
        Ok(IssueDeclaration::Fin(self.echec(&issue)))
    }

    /// Une déclaration simple dont l'enregistrement se finalise sans parties. Un
    /// enregistrement rendu avec un envoi multipart (laissé par un envoi en plusieurs parties
    /// abandonné) exigerait les parties : il est supprimé (`DELETE`, permis tant qu'il n'est
    /// pas finalisé ; la plateforme abandonne alors son envoi S3) puis redéclaré.
    async fn declarer_pour_un_put(
        &self,
        ctx: &ContexteUnite<'_>,
    ) -> Resultat<Result<Declaration, IssueUnite>> {
        for _ in 0..2 {
            let d = match self.declarer(ctx, false).await? {
                IssueDeclaration::Enregistrement(d) => d,
                IssueDeclaration::Fin(issue) => return Ok(Err(issue)),
                // Impossible : une déclaration simple n'ouvre aucun envoi.
                IssueDeclaration::MultipartRefuse(raison) => {
                    return Ok(Err(IssueUnite::Echec {
                        definitif: false,
                        cause: CauseRefus::Serveur,
                        message: raison,
                    }));
                }
            };
            if !d.est_multipart() {
                return Ok(Ok(d));
            }
            tracing::info!(
                unite = %ctx.unite.chemin,
                "la plateforme rend un enregistrement en plusieurs parties non finalisé : \
                 supprimé puis redéclaré pour un envoi en un PUT"
            );
            if let Err(issue) = self.supprimer(ctx, &d.id).await? {
                return Ok(Err(issue));
            }
        }
        Ok(Err(IssueUnite::Echec {
            definitif: false,
            cause: CauseRefus::Serveur,
            message: format!(
                "la plateforme rend encore un enregistrement en plusieurs parties après l'avoir \
                 supprimé ; {} un peu plus tard",
                commande("retenter-echecs")
            ),
        }))
    }

    /// `GET /fichiers/{id}` (lecture, rejouable) : ce que la plateforme sait de
    /// l'enregistrement, `None` s'il n'existe plus.
    async fn relire(&self, ctx: &ContexteUnite<'_>, id: &IdObjet) -> Issue<Option<FichierDistant>> {
        emettre(
            ctx,
            Emission::nouveau(
                "GET",
                &format!("/fichiers/{id}"),
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.fichier(id),
        )
        .await
    }

    /// `DELETE /fichiers/{id}` d'un enregistrement non finalisé, et l'oubli de ce que le plan
    /// en savait (identifiant, parties). Un 404 dit qu'il n'existe déjà plus : c'est fait.
    async fn supprimer(
        &self,
        ctx: &ContexteUnite<'_>,
        id: &IdObjet,
    ) -> Resultat<Result<(), IssueUnite>> {
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "DELETE",
                &format!("/fichiers/{id}"),
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.client.abandonner(id),
        )
        .await;
        match issue.reponse {
            ReponseApi::Succes(()) | ReponseApi::Refuse { statut: 404, .. } => {
                let base = ctx.base();
                base.noter_enregistrement(ctx.unite.id, None)?;
                base.oublier_parties(ctx.unite.id)?;
                Ok(Ok(()))
            }
            _ => Ok(Err(self.echec(&issue))),
        }
    }

    /// L'enregistrement que tenait le plan est finalisé : ce plan l'a déposé lors d'un passage
    /// arrêté avant de le noter. On le note déposé, avec les sommes des parties persistées
    /// (objet assemblé) ou celles du fichier local (un seul PUT, relu ici sans réseau).
    async fn deja_depose(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        let parties = ctx.base().parties(ctx.unite.id)?;
        if let Some(sommes) = sommes_persistees(&parties).filter(|s| !s.is_empty()) {
            return Ok(IssueUnite::Deposee {
                crc32c: crc32c_composite(&sommes),
                etag: etag_assemble(parties.iter().filter_map(|p| p.etag.as_deref())),
            });
        }
        Ok(
            match sommes_crc32c_md5(ctx.fichier(), 0, ctx.unite.taille).await {
                Ok((crc, md5)) => IssueUnite::Deposee {
                    crc32c: crc32c_base64(crc),
                    etag: Some(md5),
                },
                Err(e) => echec_local(&e),
            },
        )
    }

    /// Finalise (POST non rejouable) ; 409 « upload is already done » vaut succès ; sans
    /// réponse, `GET /fichiers/{id}` dit si elle a eu lieu (disponible), sinon elle repart, dans
    /// le budget d'une seule émission.
    async fn finaliser(
        &self,
        ctx: &ContexteUnite<'_>,
        id: &IdObjet,
        parties: Option<&[(u32, String)]>,
    ) -> Result<(), EchecEnvoi> {
        let cible = format!("/fichiers/{id}");
        let disparu = AtomicBool::new(false);
        let relecture = |etape: Etape| {
            let (cible, disparu) = (&cible, &disparu);
            async move {
                let lu = emettre(ctx, Emission::lecture("GET", cible).dans(&etape), |_| {
                    self.client.fichier(id)
                })
                .await;
                match &lu.reponse {
                    ReponseApi::Succes(Some(f)) if f.disponible => Releve::Faite(()),
                    autre => releve_si_encore_la(autre, disparu),
                }
            }
        };
        let relecture = &mut |etape| relecture(etape).boxed();
        let issue = emettre(
            ctx,
            Emission::ecriture_relue("POST", &cible, relecture),
            |_| self.client.finaliser(id, parties),
        )
        .await;
        match issue.reponse {
            ReponseApi::Succes(()) | ReponseApi::Refuse { statut: 409, .. } => Ok(()),
            _ if disparu.load(Ordering::Relaxed) => {
                Err(EchecEnvoi::Disparu("le fichier a disparu de la plateforme"))
            }
            _ if issue.raison == RaisonArret::IssueInconnue => {
                Err(EchecEnvoi::Echec(IssueUnite::Incertaine {
                    message: "finalisation sans réponse, plateforme injoignable pour la vérifier"
                        .into(),
                }))
            }
            _ => Err(EchecEnvoi::Echec(self.echec(&issue))),
        }
    }

    async fn deposer_simple(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        let fichier = ctx.fichier();
        let unite = ctx.unite;
        if unite.taille > PUT_SIMPLE_MAX {
            return Ok(IssueUnite::Echec {
                definitif: true,
                cause: CauseRefus::Contenu,
                message: "fichier de plus de 5 Gio : trop gros pour un seul PUT, et la plateforme \
                          refuse l'envoi en plusieurs parties ; découpez l'archive (.zip.001, .zip.002…)"
                    .into(),
            });
        }
        let (crc, md5) = match sommes_crc32c_md5(fichier, 0, unite.taille).await {
            Ok(s) => s,
            Err(e) => return Ok(echec_local(&e)),
        };
        // Deux déclarations au plus : la seconde remplace une URL signée expirée (403).
        let mut url_redemandee = false;
        loop {
            let declaration = match self.declarer_pour_un_put(ctx).await? {
                Ok(d) => d,
                Err(issue) => return Ok(issue),
            };
            let (Some(url), Some(mime)) = (
                declaration.s3_signed_url.as_deref(),
                declaration.mime.as_deref(),
            ) else {
                return Ok(IssueUnite::Echec {
                    definitif: false,
                    cause: CauseRefus::Serveur,
                    message: "la plateforme n'a rendu ni URL signée ni type MIME".into(),
                });
            };
            if let Err(raison) = self.client.verifier_url_signee(url) {
                return Ok(url_refusee(&raison));
            }
            let cible = format!("PUT {}", unite.cle);
            // La place de transfert, le temps du PUT seulement : la déclaration et la
            // finalisation laissent le lien aux autres unités.
            let place = ctx.place_de_transfert().await;
            let issue = emettre(
                ctx,
                Emission::nouveau("PUT", &cible, Profil::Insistant, Rejouabilite::Rejouable),
                |p| {
                    let md5 = &md5;
                    async move {
                        let r = self
                            .client
                            .deposer_signe(url, fichier, 0, unite.taille, Some(mime), p)
                            .await;
                        etag_prouve(r, md5, "")
                    }
                },
            )
            .await;
            drop(place);
            match issue.reponse {
                ReponseApi::Succes(etag) => {
                    // Une finalisation est définitive : jamais pour un fichier qui a changé
                    // (ou disparu) pendant l'envoi, dont la tranche partie n'est plus le fichier.
                    if let Some(echec) = echec_si_fichier_change(fichier.chemin, unite) {
                        return Ok(echec);
                    }
                    ctx.octets_envoyes(unite.taille);
                    ctx.confirmer(unite.taille);
                    return Ok(match self.finaliser(ctx, &declaration.id, None).await {
                        Ok(()) => IssueUnite::Deposee {
                            crc32c: crc32c_base64(crc),
                            etag: Some(etag),
                        },
                        Err(EchecEnvoi::Disparu(constat)) => {
                            ctx.base().noter_enregistrement(unite.id, None)?;
                            IssueUnite::Echec {
                                definitif: false,
                                cause: CauseRefus::Serveur,
                                message: format!("{constat} : il sera redéclaré"),
                            }
                        }
                        Err(EchecEnvoi::Echec(issue)) => issue,
                        // Une finalisation sans parties ne dit jamais cela.
                        Err(EchecEnvoi::EnUnSeul(raison)) => IssueUnite::Echec {
                            definitif: false,
                            cause: CauseRefus::Serveur,
                            message: raison,
                        },
                    });
                }
                ReponseApi::Refuse { statut: 403, .. } if !url_redemandee => {
                    tracing::info!(unite = %unite.chemin, "URL signée refusée (expirée ?) : nouvelle déclaration pour une URL neuve");
                    url_redemandee = true;
                }
                ReponseApi::Refuse { statut: 403, .. } => {
                    return Ok(url_refusee_deux_fois("URL signée refusée deux fois (403)"));
                }
                _ => return Ok(self.echec(&issue)),
            }
        }
    }

    /// Le dépôt en plusieurs parties, par le pilote commun (`parties.rs`) ; `confronte` :
    /// l'enregistrement non finalisé que la confrontation a trouvé, à reprendre. La
    /// plateforme refuse-t-elle l'envoi en parties, ou l'enregistrement trouvé est-il d'un
    /// seul tenant, le fichier part en un PUT (et le refus vaut pour tout le plan).
    async fn deposer_en_parties(
        &self,
        ctx: &ContexteUnite<'_>,
        confronte: Option<IdObjet>,
    ) -> Resultat<IssueUnite> {
        let port = EnParties {
            vc: self,
            confronte: Mutex::new(confronte),
        };
        match parties::deposer_en_parties(&port, ctx).await? {
            FinEnParties::Issue(issue) => Ok(issue),
            FinEnParties::EnUnSeul(refus) => {
                if let Some(raison) = refus {
                    self.retenir_refus_multipart(ctx, &raison)?;
                    ctx.base().oublier_parties(ctx.unite.id)?;
                }
                self.deposer_simple(ctx).await
            }
        }
    }
}

/// L'ETag rendu par S3 à un PUT signé prouve-t-il que **ces** octets sont arrivés ? Derrière
/// une URL signée v2, aucun en-tête de somme n'est signé : l'ETag, MD5 de l'objet écrit, est
/// la seule preuve. Un MD5 différent de celui de ce qui est parti dit des octets altérés en
/// route (ou un relais qui réécrit l'en-tête) : la réponse ne prouve rien, elle est illisible,
/// et le PUT (idempotent) repart sous la politique de réessai, dans le passage ; la
/// finalisation n'a lieu qu'après un ETag juste. Un ETag qui n'a pas la forme d'un MD5 (objet
/// chiffré par KMS) ne se compare pas : l'objet est écrit, c'est tout ce qu'il dit.
fn etag_prouve(r: ReponseApi<String>, md5: &str, quoi: &str) -> ReponseApi<String> {
    match r {
        ReponseApi::Succes(etag) => match EtagS3::analyser(&etag) {
            Some(EtagS3::Md5(rendu)) if rendu != md5.to_ascii_lowercase() => {
                ReponseApi::Illisible {
                    statut: 200,
                    detail: format!(
                        "{quoi}ETag {rendu} différent du MD5 {md5} de ce qui est parti : \
                         octets altérés en route, le fichier repart"
                    ),
                }
            }
            Some(EtagS3::Md5(rendu)) => ReponseApi::Succes(rendu),
            _ => {
                tracing::info!(
                    etag = %etag,
                    "{quoi}ETag qui n'est pas un MD5 (objet chiffré ?) : écrit, contenu non comparé"
                );
                ReponseApi::Succes(etag)
            }
        },
        autre => autre,
    }
}

/// La plateforme a rendu une URL signée que `vigie` refuse de suivre : un geste humain est
/// nécessaire (la signaler aux gestionnaires de la plateforme).
fn url_refusee(raison: &str) -> IssueUnite {
    IssueUnite::Echec {
        definitif: true,
        cause: CauseRefus::Serveur,
        message: format!(
            "{raison} ; signalez-le aux gestionnaires de la plateforme, puis {}",
            commande("retenter-echecs").arg("--y-compris-definitifs")
        ),
    }
}

/// Une URL signée neuve refusée comme la première : ni l'expiration ni un accroc, mais
/// l'horloge de l'ordinateur (une signature datée hors de la fenêtre admise) ou les droits.
fn url_refusee_deux_fois(quoi: &str) -> IssueUnite {
    IssueUnite::Echec {
        definitif: true,
        cause: CauseRefus::Droits,
        message: format!(
            "{quoi} : vérifiez l'heure de l'ordinateur et vos droits sur la participation, \
             puis {}",
            commande("retenter-echecs").arg("--y-compris-definitifs")
        ),
    }
}

fn sommes_persistees(parties: &[PartieEnvoi]) -> Option<Vec<u32>> {
    parties
        .iter()
        .map(|p| p.somme_controle.as_deref().and_then(crc32c_depuis_base64))
        .collect()
}

impl Depositaire for DepositaireVigieChiro {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        if self.jeton_refuse.load(Ordering::Relaxed) {
            return Ok(self.refus_jeton());
        }
        // Un fichier commencé en plusieurs parties le reste, même sous un seuil relevé depuis
        // (un réglage qui change n'est pas une raison de jeter des parties acquittées) ; sa
        // taille de partie reste celle de l'envoi commencé (`Decoupage::pour`).
        let commence = ctx.unite.declaration_emise
            || ctx.base().parties(ctx.unite.id)?.iter().any(|p| p.envoyee);
        let en_parties = (ctx.unite.taille > self.seuil_multipart || commence)
            && !self.multipart_refuse.load(Ordering::Relaxed);
        match self.confronter(ctx, en_parties).await? {
            Confrontation::Reglee(issue) => Ok(issue),
            Confrontation::EnParties(id) => self.deposer_en_parties(ctx, Some(id)).await,
            Confrontation::EnUnPut => self.deposer_simple(ctx).await,
            Confrontation::Declarer if en_parties => self.deposer_en_parties(ctx, None).await,
            Confrontation::Declarer => self.deposer_simple(ctx).await,
        }
    }

    async fn sonder(&self) -> ReponseApi<()> {
        self.client.moi().await.map(|_| ())
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        PartieDuBilan {
            lieu: "sur la plateforme",
            participation: Some(self.participation.clone()),
        }
    }
}

/// L'envoi en plusieurs parties vers la plateforme derrière le port commun : l'enregistrement
/// (`POST /fichiers` multipart, ou celui que tient le plan, relu par `GET /fichiers/{id}`),
/// l'URL de chaque partie puis son PUT, la finalisation `POST /fichiers/{id}` relue, la
/// suppression `DELETE /fichiers/{id}` (la plateforme abandonne alors l'envoi S3).
struct EnParties<'a> {
    vc: &'a DepositaireVigieChiro,
    /// L'enregistrement que la confrontation a trouvé, repris à la première ouverture.
    confronte: Mutex<Option<IdObjet>>,
}

impl EnParties<'_> {
    /// Déclare en multipart. L'enregistrement rendu décide : avec un envoi multipart, les
    /// parties y partent ; sans (envoi simple interrompu, sur le site web ou ailleurs), le
    /// fichier part en un PUT ; si S3 refuse d'ouvrir l'envoi, aussi, et le refus vaut pour
    /// tout le plan. `deja_emise` : une déclaration multipart est partie lors d'un passage
    /// arrêté net ; on commence alors par la sonde simple.
    async fn declarer(
        &self,
        ctx: &ContexteUnite<'_>,
        deja_emise: bool,
    ) -> Resultat<Ouverture<IdObjet>> {
        Ok(match self.vc.declarer(ctx, !deja_emise).await? {
            IssueDeclaration::Enregistrement(d) if d.est_multipart() => Ouverture::Envoi {
                envoi: d.id,
                parties: ctx.base().parties(ctx.unite.id)?,
            },
            IssueDeclaration::Enregistrement(_) => Ouverture::EnUnSeul(None),
            IssueDeclaration::MultipartRefuse(raison) => Ouverture::EnUnSeul(Some(raison)),
            IssueDeclaration::Fin(issue) => Ouverture::Reglee(issue),
        })
    }
}

impl EnvoiEnParties for EnParties<'_> {
    type Envoi = IdObjet;

    fn taille_partie(&self) -> u64 {
        self.vc.taille_partie
    }

    /// L'enregistrement : celui que la confrontation a trouvé, celui que tient le plan (relu :
    /// finalisé, c'est le dépôt de ce plan ; disparu, il est oublié), cherché si une
    /// déclaration est partie sans réponse lors d'un passage arrêté net, sinon déclaré.
    async fn ouvrir(&self, ctx: &ContexteUnite<'_>) -> Resultat<Ouverture<IdObjet>> {
        let unite = ctx.unite;
        let confronte = self.confronte.lock().ok().and_then(|mut c| c.take());
        if let Some(id) = confronte {
            return Ok(Ouverture::Envoi {
                envoi: id,
                parties: ctx.base().parties(unite.id)?,
            });
        }
        let plan = ctx.base().unite(unite.id)?;
        if plan.declaration_emise {
            return self.declarer(ctx, true).await;
        }
        if let Some(id) = plan.enregistrement.as_deref().and_then(IdObjet::analyser) {
            let lu = self.vc.relire(ctx, &id).await;
            match lu.reponse {
                ReponseApi::Succes(Some(f)) if f.disponible => {
                    return Ok(Ouverture::Reglee(self.vc.deja_depose(ctx).await?));
                }
                ReponseApi::Succes(Some(f)) if f.est_multipart() => {
                    return Ok(Ouverture::Envoi {
                        envoi: id,
                        parties: ctx.base().parties(unite.id)?,
                    });
                }
                // Un enregistrement simple (laissé par une réconciliation) : dépôt simple.
                ReponseApi::Succes(Some(_)) => return Ok(Ouverture::EnUnSeul(None)),
                ReponseApi::Succes(None) => ctx.base().noter_enregistrement(unite.id, None)?,
                _ => return Ok(Ouverture::Reglee(self.vc.echec(&lu))),
            }
        }
        self.declarer(ctx, false).await
    }

    /// Une partie : son URL (lecture, rejouable), puis le PUT sans Content-Type (rejouable).
    /// Une URL refusée (403, expirée) est redemandée une fois. L'ETag rendu est comparé au MD5
    /// de ce qui est parti (derrière une URL signée v2, aucun en-tête de somme n'est signé).
    async fn envoyer_partie(
        &self,
        ctx: &ContexteUnite<'_>,
        partie: Partie<'_, IdObjet>,
    ) -> Result<Acquittement, EchecEnvoi> {
        let (vc, fichier) = (self.vc, ctx.fichier());
        let (numero, debut, taille) = (partie.numero, partie.debut, partie.taille);
        let id = partie.envoi;
        let (crc, md5) = sommes_crc32c_md5(fichier, debut, taille)
            .await
            .map_err(|e| EchecEnvoi::Echec(echec_local(&e)))?;
        let cible_url = format!("/fichiers/{id}/multipart");
        let cible_put = format!("PUT {} partie {numero}", ctx.unite.cle);
        let mut url_redemandee = false;
        loop {
            let url = emettre(
                ctx,
                Emission::nouveau(
                    "PUT",
                    &cible_url,
                    Profil::Insistant,
                    Rejouabilite::Rejouable,
                ),
                |_| vc.client.url_partie(id, numero),
            )
            .await;
            let url = match url.reponse {
                ReponseApi::Succes(u) => u,
                ReponseApi::Refuse {
                    statut: 422,
                    ref detail,
                    ..
                } if detail.contains(PAS_UN_MULTIPART) => {
                    return Err(EchecEnvoi::EnUnSeul(detail.clone()));
                }
                _ => return Err(EchecEnvoi::Echec(vc.echec(&url))),
            };
            if let Err(raison) = vc.client.verifier_url_signee(&url) {
                return Err(EchecEnvoi::Echec(url_refusee(&raison)));
            }
            let issue = emettre(
                ctx,
                Emission::nouveau(
                    "PUT",
                    &cible_put,
                    Profil::Insistant,
                    Rejouabilite::Rejouable,
                ),
                |p| {
                    let (url, md5) = (&url, &md5);
                    async move {
                        let r = vc
                            .client
                            .deposer_signe(url, fichier, debut, taille, None, p)
                            .await;
                        etag_prouve(r, md5, &format!("partie {numero} : "))
                    }
                },
            )
            .await;
            match issue.reponse {
                ReponseApi::Succes(etag) => return Ok(Acquittement { etag, crc32c: crc }),
                ReponseApi::Refuse { statut: 403, .. } if !url_redemandee => url_redemandee = true,
                ReponseApi::Refuse { statut: 403, .. } => {
                    return Err(EchecEnvoi::Echec(url_refusee_deux_fois(&format!(
                        "URL signée de la partie {numero} refusée deux fois (403)"
                    ))));
                }
                _ => return Err(EchecEnvoi::Echec(vc.echec(&issue))),
            }
        }
    }

    /// La finalisation avec la liste des parties ; l'objet assemblé a pour somme la CRC32C
    /// composite des parties, et pour ETag celui qu'écrit S3 (que `vigie verifier` relira).
    async fn finaliser(
        &self,
        ctx: &ContexteUnite<'_>,
        assemblage: Assemblage<'_, IdObjet>,
    ) -> Resultat<Result<IssueUnite, EchecEnvoi>> {
        let (id, faites) = (assemblage.envoi, assemblage.parties);
        let sommes: Vec<u32> = faites.iter().map(|p| p.crc32c).collect();
        let assemblees: Vec<(u32, String)> =
            faites.iter().map(|p| (p.numero, p.etag.clone())).collect();
        Ok(self
            .vc
            .finaliser(ctx, id, Some(&assemblees))
            .await
            .map(|()| IssueUnite::Deposee {
                crc32c: crc32c_composite(&sommes),
                etag: etag_assemble(assemblees.iter().map(|(_, e)| e.as_str())),
            }))
    }

    async fn abandonner(&self, ctx: &ContexteUnite<'_>, id: &IdObjet) -> Resultat<()> {
        // L'échec de la suppression ne change rien à celui de l'unité, déjà définitif.
        let _ = self.vc.supprimer(ctx, id).await?;
        Ok(())
    }

    fn oublier(&self, ctx: &ContexteUnite<'_>) -> Resultat<()> {
        ctx.base().noter_enregistrement(ctx.unite.id, None)
    }
}
