//! Le moteur : parallélisme borné, états, reprise, réconciliation.
//!
//! Chaque unité part par le point de passage unique (`transport::Emetteur`) ; chaque transition
//! d'état est écrite **avant** l'effet qu'elle annonce (`en_cours` avant le premier octet,
//! l'identifiant d'un envoi multipart dès qu'il est connu, chaque partie dès que son ETag est
//! rendu), et une unité n'est `deposee` qu'une fois sa taille et sa somme vérifiées côté
//! destination. Un arrêt à n'importe quel instant (kill -9 compris) laisse donc un plan qui dit
//! vrai, et la relance ne renvoie que ce qui manque : au pis la partie qui était en vol.
//!
//! Les écritures non rejouables (ouverture et finalisation d'un envoi multipart) ne sont émises
//! qu'une fois ; sans réponse, on relit la destination avant toute nouvelle émission. La même
//! réconciliation ouvre chaque reprise : une unité `incertaine` n'a pas de traitement à part.
//!
//! Le moteur ne connaît ni indicatif ni clap : il annonce ses événements par le trait `Suivi`.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::plan::{
    Base, CauseRefus, DepotPlan, DepotUnite, EntreeJournal, ErreurBase, EtatUnite, PartieEnvoi,
    ResumePlan,
};
use crate::reessai::{
    DecisionJournalisee, Issue, ObservateurReessai, Profil, RaisonArret, Rejouabilite, ReponseApi,
};
use crate::suivi::Suivi;
use crate::transport::corps::{crc32c_base64, crc32c_composite, somme_crc32c};
use crate::transport::s3::{ClientS3, ObjetDistant, PartieAssemblee, PartieDistante};
use crate::transport::{Emetteur, Emission, EnVol};

/// Nombre maximal de parties d'un envoi multipart (règle S3).
const PARTIES_MAX: u64 = 10_000;
/// Cadence des annonces de progression.
const CADENCE_PROGRESSION: Duration = Duration::from_millis(250);

/// Réglages du moteur.
#[derive(Debug, Clone)]
pub struct ReglagesMoteur {
    pub paralleles: usize,
    /// Au-delà (strictement), un fichier part en multipart.
    pub seuil_multipart: u64,
    pub taille_partie: u64,
}

/// Ce qu'un passage a fait.
#[derive(Debug, Clone)]
pub struct Bilan {
    pub plan: i64,
    pub resume: ResumePlan,
    pub deposees: u64,
    pub octets_envoyes: u64,
    pub incidents_absorbes: u64,
    pub duree: Duration,
    pub interrompu: bool,
}

/// L'issue d'une unité pour ce passage.
#[derive(Debug)]
enum IssueUnite {
    Deposee {
        crc32c: String,
        etag: Option<String>,
    },
    Echec {
        definitif: bool,
        cause: CauseRefus,
        message: String,
    },
    Incertaine {
        message: String,
    },
    /// Ctrl-C : l'unité redevient à déposer, ses parties envoyées conservées.
    Interrompue,
}

/// Une erreur de la base arrête le passage (disque plein, base illisible) : continuer
/// mentirait sur ce qui est déposé.
pub type Resultat<T> = Result<T, ErreurBase>;

/// Le moteur d'un passage sur un plan.
pub struct Moteur {
    base: Mutex<Base>,
    plan: DepotPlan,
    dossier: PathBuf,
    client: ClientS3,
    emetteur: Emetteur,
    suivi: Arc<dyn Suivi>,
    reglages: ReglagesMoteur,
    octets_envoyes: AtomicU64,
    incidents_absorbes: AtomicU64,
    en_vol: Mutex<HashMap<i64, Arc<UniteEnVol>>>,
}

/// Ce que l'affichage peut lire d'une unité en vol.
struct UniteEnVol {
    unite: DepotUnite,
    /// Octets confirmés (parties acquittées).
    confirmes: AtomicU64,
    tentative: EnVol,
}

impl Moteur {
    pub fn nouveau(
        base: Base,
        plan: DepotPlan,
        client: ClientS3,
        emetteur: Emetteur,
        suivi: Arc<dyn Suivi>,
        reglages: ReglagesMoteur,
    ) -> Self {
        Moteur {
            dossier: PathBuf::from(&plan.dossier),
            base: Mutex::new(base),
            plan,
            client,
            emetteur,
            suivi,
            reglages,
            octets_envoyes: AtomicU64::new(0),
            incidents_absorbes: AtomicU64::new(0),
            en_vol: Mutex::new(HashMap::new()),
        }
    }

    fn base(&self) -> MutexGuard<'_, Base> {
        // Une panique en tenant la base ne laisse rien d'incohérent dans SQLite (transactions) :
        // on reprend la connexion telle quelle.
        self.base.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Rend la base (pour afficher l'état après le passage).
    pub fn rendre_base(self) -> Base {
        self.base.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Dépose les unités à déposer, interrompues, incertaines et en échec transitoire.
    pub async fn executer(self: &Arc<Self>) -> Resultat<Bilan> {
        let debut = Instant::now();
        let unites: Vec<DepotUnite> = self
            .base()
            .unites(
                self.plan.id,
                &[
                    EtatUnite::ADeposer,
                    EtatUnite::EnCours,
                    EtatUnite::Incertaine,
                    EtatUnite::Echec,
                ],
            )?
            .into_iter()
            .filter(|u| !u.echec_definitif)
            .collect();
        self.suivi
            .debut(unites.len() as u64, unites.iter().map(|u| u.taille).sum());
        self.base().toucher_plan(self.plan.id)?;

        let progression = tokio::spawn(Arc::clone(self).annoncer_progression());
        let places = Arc::new(Semaphore::new(self.reglages.paralleles.max(1)));
        let mut taches: JoinSet<Resultat<bool>> = JoinSet::new();
        let mut erreur = None;
        let mut deposees = 0;
        for unite in unites {
            let annulation = self.emetteur.annulation().clone();
            let place = tokio::select! {
                p = Arc::clone(&places).acquire_owned() => p,
                () = annulation.annulee() => break,
            };
            let Ok(place) = place else { break };
            if annulation.est_annulee() {
                break;
            }
            // Récolte au fil de l'eau : une erreur de base arrête tout.
            while let Some(fini) = taches.try_join_next() {
                match fini {
                    Ok(Ok(d)) => deposees += u64::from(d),
                    Ok(Err(e)) => erreur = Some(e),
                    Err(e) => tracing::error!("tâche d'envoi interrompue : {e}"),
                }
            }
            if erreur.is_some() {
                break;
            }
            let moteur = Arc::clone(self);
            taches.spawn(async move {
                let r = moteur.traiter(unite).await;
                drop(place);
                r
            });
        }
        while let Some(fini) = taches.join_next().await {
            match fini {
                Ok(Ok(d)) => deposees += u64::from(d),
                Ok(Err(e)) => erreur = erreur.or(Some(e)),
                Err(e) => tracing::error!("tâche d'envoi interrompue : {e}"),
            }
        }
        progression.abort();
        if let Some(e) = erreur {
            return Err(e);
        }
        let resume = self.base().resume(self.plan.id)?;
        Ok(Bilan {
            plan: self.plan.id,
            resume,
            deposees,
            octets_envoyes: self.octets_envoyes.load(Ordering::Relaxed),
            incidents_absorbes: self.incidents_absorbes.load(Ordering::Relaxed),
            duree: debut.elapsed(),
            interrompu: self.emetteur.annulation().est_annulee(),
        })
    }

    async fn annoncer_progression(self: Arc<Self>) {
        loop {
            tokio::time::sleep(CADENCE_PROGRESSION).await;
            let en_vol: Vec<Arc<UniteEnVol>> = match self.en_vol.lock() {
                Ok(m) => m.values().cloned().collect(),
                Err(_) => continue,
            };
            for u in en_vol {
                let octets = u.confirmes.load(Ordering::Relaxed) + u.tentative.octets();
                self.suivi.progression(&u.unite, octets.min(u.unite.taille));
            }
        }
    }

    /// Traite une unité de bout en bout et persiste son issue. Rend vrai si elle est déposée.
    async fn traiter(self: &Arc<Self>, unite: DepotUnite) -> Resultat<bool> {
        self.base().marquer_en_cours(unite.id)?;
        self.suivi.unite_commencee(&unite);
        let vol = Arc::new(UniteEnVol {
            unite: unite.clone(),
            confirmes: AtomicU64::new(0),
            tentative: EnVol::default(),
        });
        if let Ok(mut m) = self.en_vol.lock() {
            m.insert(unite.id, Arc::clone(&vol));
        }
        let issue = self.deposer(&unite, &vol).await;
        if let Ok(mut m) = self.en_vol.lock() {
            m.remove(&unite.id);
        }
        let issue = match issue {
            Ok(i) => i,
            Err(e) => {
                // La base refuse d'écrire : on tente de laisser l'unité reprenable, et on arrête.
                let _ = self.base().remettre_a_deposer(unite.id);
                return Err(e);
            }
        };
        let base = self.base();
        match issue {
            IssueUnite::Deposee { crc32c, etag } => {
                base.marquer_deposee(unite.id, &crc32c, etag.as_deref())?;
                drop(base);
                self.suivi.unite_deposee(&unite);
                return Ok(true);
            }
            IssueUnite::Echec {
                definitif,
                cause,
                message,
            } => {
                base.marquer_echec(unite.id, definitif, cause, &message)?;
                drop(base);
                self.suivi
                    .unite_en_echec(&unite, cause, definitif, &message);
            }
            IssueUnite::Incertaine { message } => {
                base.marquer_incertaine(unite.id, &message)?;
                drop(base);
                self.suivi.unite_incertaine(&unite, &message);
            }
            IssueUnite::Interrompue => base.remettre_a_deposer(unite.id)?,
        }
        Ok(false)
    }

    fn chemin_local(&self, unite: &DepotUnite) -> PathBuf {
        self.dossier.join(&unite.chemin)
    }

    async fn deposer(&self, unite: &DepotUnite, vol: &UniteEnVol) -> Resultat<IssueUnite> {
        let chemin = self.chemin_local(unite);
        if let Some(probleme) = fichier_change(&chemin, unite) {
            return Ok(IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Local,
                message: format!(
                    "{probleme} depuis la planification : relancez vigie depot pour le replanifier"
                ),
            });
        }
        if unite.taille > self.reglages.seuil_multipart || unite.envoi_id.is_some() {
            self.deposer_en_parties(unite, &chemin, vol).await
        } else {
            Ok(self.deposer_d_un_bloc(unite, &chemin, vol).await)
        }
    }

    /// Émet sous la politique, en journalisant chaque décision pour cette unité.
    async fn emettre<T, F, Fut>(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        methode: &str,
        profil: Profil,
        rejouabilite: Rejouabilite,
        tentative: F,
    ) -> Issue<T>
    where
        F: FnMut(Arc<crate::transport::corps::Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let observateur = ObservateurUnite {
            moteur: self,
            unite,
        };
        self.emetteur
            .emettre(
                Emission {
                    methode,
                    cible: &unite.cle,
                    profil,
                    rejouabilite,
                },
                &observateur,
                &vol.tentative,
                tentative,
            )
            .await
    }

    async fn deposer_d_un_bloc(
        &self,
        unite: &DepotUnite,
        chemin: &Path,
        vol: &UniteEnVol,
    ) -> IssueUnite {
        let crc = match somme_crc32c(chemin, 0, unite.taille).await {
            Ok(c) => c,
            Err(e) => return echec_local(&e),
        };
        let attendu = crc32c_base64(crc);
        let issue = self
            .emettre(
                unite,
                vol,
                "PutObject",
                Profil::Insistant,
                Rejouabilite::Rejouable,
                |p| {
                    self.client
                        .deposer_objet(&unite.cle, chemin, unite.taille, crc, p)
                },
            )
            .await;
        if let Some(probleme) = fichier_change(chemin, unite) {
            return IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Local,
                message: format!(
                    "{probleme} pendant l'envoi : relancez vigie depot pour le replanifier"
                ),
            };
        }
        let ecrit = match issue.reponse {
            ReponseApi::Succes(e) => e,
            _ => return echec_de(&issue),
        };
        self.octets_envoyes
            .fetch_add(unite.taille, Ordering::Relaxed);
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
            None => self.verifier_objet(unite, vol, &attendu, ecrit.etag).await,
        }
    }

    /// Relit un objet à la destination (lecture : rejouable, INSISTANT).
    async fn lire_objet(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
    ) -> Issue<Option<ObjetDistant>> {
        self.emettre(
            unite,
            vol,
            "HeadObject",
            Profil::Insistant,
            Rejouabilite::Rejouable,
            |_| self.client.decrire(&unite.cle),
        )
        .await
    }

    /// Relit les parties reçues d'un envoi (lecture : rejouable, INSISTANT).
    async fn lire_parties(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        envoi: &str,
    ) -> Issue<Option<Vec<PartieDistante>>> {
        self.emettre(
            unite,
            vol,
            "ListParts",
            Profil::Insistant,
            Rejouabilite::Rejouable,
            |_| self.client.lister_parties(&unite.cle, envoi),
        )
        .await
    }

    /// Relit l'objet déposé : taille, et somme si le service en garde une.
    async fn verifier_objet(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        attendu: &str,
        etag: Option<String>,
    ) -> IssueUnite {
        let issue = self.lire_objet(unite, vol).await;
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
            _ => echec_de(&issue),
        }
    }

    /// Le découpage en parties : celui des parties déjà persistées s'il y en a (les réglages
    /// ont pu changer entre deux passages), sinon celui des réglages.
    fn taille_partie(&self, unite: &DepotUnite, persistees: &[PartieEnvoi]) -> u64 {
        if let Some(p) = persistees.first() {
            if p.numero == 1 {
                return p.taille.max(1);
            }
            return (p.debut / u64::from(p.numero - 1)).max(1);
        }
        let minimum = unite.taille.div_ceil(PARTIES_MAX);
        self.reglages.taille_partie.max(minimum).max(1)
    }

    async fn deposer_en_parties(
        &self,
        unite: &DepotUnite,
        chemin: &Path,
        vol: &UniteEnVol,
    ) -> Resultat<IssueUnite> {
        let base_parties = self.base().parties(unite.id)?;
        let mut envoi = unite.envoi_id.clone();
        let mut persistees = base_parties;

        // 1. Reprise : l'envoi connu existe-t-il encore, et quelles parties a-t-il reçues ?
        if let Some(id) = envoi.clone() {
            let issue = self.lire_parties(unite, vol, &id).await;
            match issue.reponse {
                ReponseApi::Succes(Some(distantes)) => {
                    // On garde les parties persistées que le service confirme (même ETag).
                    let mut gardees = Vec::new();
                    for p in persistees {
                        let confirmee = distantes.iter().any(|d| {
                            d.numero == p.numero && d.taille == p.taille && d.etag == p.etag
                        });
                        if confirmee && p.envoyee {
                            gardees.push(p);
                        }
                    }
                    persistees = gardees;
                    self.base().oublier_parties(unite.id)?;
                    for p in &persistees {
                        self.base().enregistrer_partie(unite.id, p)?;
                    }
                }
                ReponseApi::Succes(None) => {
                    // L'envoi n'existe plus : finalisé (réponse perdue, arrêt juste après), ou
                    // abandonné. L'objet le dit.
                    if let Some(issue) = self.objet_deja_assemble(unite, vol, &persistees).await {
                        return Ok(issue);
                    }
                    self.base().enregistrer_envoi(unite.id, None)?;
                    envoi = None;
                    persistees = Vec::new();
                }
                _ => return Ok(echec_de(&issue)),
            }
        }

        // 2. Ouverture, après avoir cherché un envoi ouvert sans que nous ayons pu le noter
        //    (réponse perdue, arrêt entre l'ouverture et son écriture dans le plan).
        let envoi = match envoi {
            Some(id) => id,
            None => match self.ouvrir_envoi(unite, vol).await? {
                Ok(id) => id,
                Err(issue) => return Ok(issue),
            },
        };

        // 3. Les parties manquantes, une à une (rejouables).
        let taille_partie = self.taille_partie(unite, &persistees);
        let nombre = unite.taille.div_ceil(taille_partie).max(1);
        let mut sommes: Vec<u32> = Vec::with_capacity(nombre as usize);
        let mut assemblees = Vec::with_capacity(nombre as usize);
        let deja: HashMap<u32, PartieEnvoi> =
            persistees.into_iter().map(|p| (p.numero, p)).collect();
        for numero in 1..=nombre as u32 {
            let debut = u64::from(numero - 1) * taille_partie;
            let taille = taille_partie.min(unite.taille - debut);
            if let Some(p) = deja.get(&numero)
                && let (Some(etag), Some(crc)) = (
                    &p.etag,
                    p.somme_controle
                        .as_deref()
                        .and_then(crate::transport::corps::crc32c_depuis_base64),
                )
                && p.debut == debut
                && p.taille == taille
            {
                vol.confirmes.fetch_add(taille, Ordering::Relaxed);
                sommes.push(crc);
                assemblees.push(PartieAssemblee {
                    numero,
                    etag: etag.clone(),
                    crc32c: crc32c_base64(crc),
                });
                continue;
            }
            let crc = match somme_crc32c(chemin, debut, taille).await {
                Ok(c) => c,
                Err(e) => return self.abandonner(unite, vol, &envoi, echec_local(&e)).await,
            };
            let issue = self
                .emettre(
                    unite,
                    vol,
                    "UploadPart",
                    Profil::Insistant,
                    Rejouabilite::Rejouable,
                    |p| {
                        self.client.envoyer_partie(
                            &unite.cle, &envoi, numero, chemin, debut, taille, crc, p,
                        )
                    },
                )
                .await;
            let ecrit = match issue.reponse {
                ReponseApi::Succes(e) => e,
                ReponseApi::Refuse { statut: 404, .. } => {
                    // L'envoi a disparu (expiré, abandonné ailleurs) : tout est à refaire.
                    self.base().enregistrer_envoi(unite.id, None)?;
                    return Ok(IssueUnite::Echec {
                        definitif: false,
                        cause: CauseRefus::Serveur,
                        message:
                            "l'envoi multipart a disparu de la destination : il sera repris de zéro"
                                .into(),
                    });
                }
                _ if issue.raison == RaisonArret::RefusDefinitif => {
                    let echec = echec_de(&issue);
                    return self.abandonner(unite, vol, &envoi, echec).await;
                }
                _ => return Ok(echec_de(&issue)),
            };
            let attendu = crc32c_base64(crc);
            if ecrit.crc32c.as_deref().is_some_and(|c| c != attendu) {
                return Ok(IssueUnite::Echec {
                    definitif: false,
                    cause: CauseRefus::Contenu,
                    message: format!("somme de la partie {numero} différente à la destination"),
                });
            }
            let Some(etag) = ecrit.etag else {
                return Ok(IssueUnite::Echec {
                    definitif: false,
                    cause: CauseRefus::Serveur,
                    message: format!("la destination n'a pas rendu d'ETag pour la partie {numero}"),
                });
            };
            self.base().enregistrer_partie(
                unite.id,
                &PartieEnvoi {
                    numero,
                    debut,
                    taille,
                    etag: Some(etag.clone()),
                    somme_controle: Some(attendu.clone()),
                    envoyee: true,
                },
            )?;
            vol.confirmes.fetch_add(taille, Ordering::Relaxed);
            self.octets_envoyes.fetch_add(taille, Ordering::Relaxed);
            sommes.push(crc);
            assemblees.push(PartieAssemblee {
                numero,
                etag,
                crc32c: attendu,
            });
        }

        // 4. Le fichier n'a pas changé pendant l'envoi ?
        if let Some(probleme) = fichier_change(chemin, unite) {
            let echec = IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Local,
                message: format!(
                    "{probleme} pendant l'envoi : relancez vigie depot pour le replanifier"
                ),
            };
            return self.abandonner(unite, vol, &envoi, echec).await;
        }

        // 5. Finalisation : une seule émission ; sans réponse, on relit la destination.
        let composite = crc32c_composite(&sommes);
        for essai in 0..2 {
            let issue = self
                .emettre(
                    unite,
                    vol,
                    "CompleteMultipartUpload",
                    Profil::Insistant,
                    Rejouabilite::NonRejouable,
                    |_| self.client.finaliser_envoi(&unite.cle, &envoi, &assemblees),
                )
                .await;
            match issue.raison {
                RaisonArret::Succes => {
                    return Ok(self.verifier_assemblage(unite, vol, &composite).await);
                }
                RaisonArret::IssueInconnue => {
                    // Réconciliation : l'objet est-il assemblé ? Sinon l'envoi existe-t-il
                    // encore (alors la finalisation n'a pas eu lieu et peut être réémise) ?
                    if let Some(issue) = self
                        .objet_deja_assemble_composite(unite, vol, &composite)
                        .await
                    {
                        return Ok(issue);
                    }
                    let liste = self.lire_parties(unite, vol, &envoi).await;
                    match liste.reponse {
                        ReponseApi::Succes(Some(_)) if essai == 0 => continue,
                        ReponseApi::Succes(None) => {
                            self.base().enregistrer_envoi(unite.id, None)?;
                            return Ok(IssueUnite::Echec {
                                definitif: false,
                                cause: CauseRefus::Serveur,
                                message: "finalisation sans réponse et envoi disparu : l'unité sera reprise de zéro".into(),
                            });
                        }
                        _ => {
                            return Ok(IssueUnite::Incertaine {
                                message: "finalisation sans réponse, destination injoignable pour la vérifier".into(),
                            });
                        }
                    }
                }
                RaisonArret::RefusDefinitif => {
                    let echec = echec_de(&issue);
                    return self.abandonner(unite, vol, &envoi, echec).await;
                }
                _ => return Ok(echec_de(&issue)),
            }
        }
        Ok(IssueUnite::Incertaine {
            message: "finalisation restée sans issue après réconciliation".into(),
        })
    }

    /// Cherche un envoi déjà ouvert sur la clé (et l'adopte), sinon en ouvre un et le note
    /// aussitôt dans le plan. Les envois ouverts en trop (orphelins d'un arrêt) sont abandonnés.
    async fn ouvrir_envoi(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
    ) -> Resultat<Result<String, IssueUnite>> {
        for essai in 0..2 {
            let ouverts = self
                .emettre(
                    unite,
                    vol,
                    "ListMultipartUploads",
                    Profil::Insistant,
                    Rejouabilite::Rejouable,
                    |_| self.client.envois_ouverts(&unite.cle),
                )
                .await;
            match ouverts.reponse {
                ReponseApi::Succes(mut ids) => {
                    if let Some(adopte) = ids.pop() {
                        for orphelin in ids {
                            self.abandonner_sans_issue(unite, vol, &orphelin).await;
                        }
                        tracing::info!(cle = %unite.cle, "envoi multipart ouvert retrouvé à la destination : repris");
                        self.base().enregistrer_envoi(unite.id, Some(&adopte))?;
                        return Ok(Ok(adopte));
                    }
                }
                // Service sans ListMultipartUploads : on ne peut pas réconcilier, on ouvre.
                ReponseApi::Refuse { statut: 501, .. } => {}
                _ if essai == 0 => return Ok(Err(echec_de(&ouverts))),
                _ => {
                    return Ok(Err(IssueUnite::Incertaine {
                        message: "ouverture d'envoi sans réponse, destination injoignable pour la vérifier".into(),
                    }));
                }
            }
            if essai == 1 {
                break;
            }
            let issue = self
                .emettre(
                    unite,
                    vol,
                    "CreateMultipartUpload",
                    Profil::Insistant,
                    Rejouabilite::NonRejouable,
                    |_| self.client.ouvrir_envoi(&unite.cle),
                )
                .await;
            match issue.reponse {
                ReponseApi::Succes(id) => {
                    self.base().enregistrer_envoi(unite.id, Some(&id))?;
                    return Ok(Ok(id));
                }
                // Issue inconnue : on relit les envois ouverts (tour suivant) avant tout.
                _ if issue.raison == RaisonArret::IssueInconnue => continue,
                _ => return Ok(Err(echec_de(&issue))),
            }
        }
        Ok(Err(IssueUnite::Incertaine {
            message: "ouverture d'envoi sans réponse et introuvable à la destination".into(),
        }))
    }

    /// L'objet est-il déjà là, assemblé à partir de nos parties ? (reprise d'un envoi disparu)
    async fn objet_deja_assemble(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        persistees: &[PartieEnvoi],
    ) -> Option<IssueUnite> {
        let sommes: Option<Vec<u32>> = persistees
            .iter()
            .map(|p| {
                p.somme_controle
                    .as_deref()
                    .and_then(crate::transport::corps::crc32c_depuis_base64)
            })
            .collect();
        let sommes = sommes.filter(|s| !s.is_empty())?;
        let couvert: u64 = persistees.iter().map(|p| p.taille).sum();
        if couvert != unite.taille {
            return None;
        }
        self.objet_deja_assemble_composite(unite, vol, &crc32c_composite(&sommes))
            .await
    }

    async fn objet_deja_assemble_composite(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        composite: &str,
    ) -> Option<IssueUnite> {
        let issue = self.lire_objet(unite, vol).await;
        match issue.reponse {
            ReponseApi::Succes(Some(o))
                if o.taille == unite.taille && o.crc32c.as_deref() == Some(composite) =>
            {
                Some(IssueUnite::Deposee {
                    crc32c: composite.to_owned(),
                    etag: o.etag,
                })
            }
            _ => None,
        }
    }

    /// Après une finalisation acquittée : l'objet a-t-il la taille et la somme attendues ?
    async fn verifier_assemblage(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        composite: &str,
    ) -> IssueUnite {
        let issue = self.lire_objet(unite, vol).await;
        let nombre = composite.rsplit('-').next().unwrap_or("0");
        match issue.reponse {
            ReponseApi::Succes(Some(o))
                if o.taille == unite.taille
                    && match o.crc32c.as_deref() {
                        Some(c) => c == composite,
                        // Service sans somme composite : taille et nombre de parties de l'ETag.
                        None => o
                            .etag
                            .as_deref()
                            .is_some_and(|e| e.ends_with(&format!("-{nombre}"))),
                    } =>
            {
                IssueUnite::Deposee {
                    crc32c: composite.to_owned(),
                    etag: o.etag,
                }
            }
            ReponseApi::Succes(Some(o)) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Contenu,
                message: format!(
                    "l'objet assemblé ne correspond pas ({} octets, somme {:?}, attendu {composite}) : il sera renvoyé",
                    o.taille, o.crc32c
                ),
            },
            ReponseApi::Succes(None) => IssueUnite::Echec {
                definitif: false,
                cause: CauseRefus::Serveur,
                message: "l'objet finalisé est introuvable à la destination".into(),
            },
            _ => echec_de(&issue),
        }
    }

    /// Abandonne l'envoi multipart (pas d'orphelin après un refus définitif) et rend l'échec.
    async fn abandonner(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        envoi: &str,
        echec: IssueUnite,
    ) -> Resultat<IssueUnite> {
        if self.abandonner_sans_issue(unite, vol, envoi).await {
            self.base().enregistrer_envoi(unite.id, None)?;
        }
        Ok(echec)
    }

    async fn abandonner_sans_issue(
        &self,
        unite: &DepotUnite,
        vol: &UniteEnVol,
        envoi: &str,
    ) -> bool {
        let issue = self
            .emettre(
                unite,
                vol,
                "AbortMultipartUpload",
                Profil::Insistant,
                Rejouabilite::Rejouable,
                |_| self.client.abandonner_envoi(&unite.cle, envoi),
            )
            .await;
        issue.raison == RaisonArret::Succes
    }
}

/// Le fichier a-t-il changé (taille ou date) depuis la planification ?
fn fichier_change(chemin: &Path, unite: &DepotUnite) -> Option<String> {
    match std::fs::metadata(chemin) {
        Err(e) => Some(format!("fichier illisible ou disparu ({e})")),
        Ok(m) if m.len() != unite.taille => Some(format!(
            "le fichier a changé de taille ({} → {} octets)",
            unite.taille,
            m.len()
        )),
        Ok(m) if m.mtime() * 1_000_000_000 + m.mtime_nsec() != unite.modifie_ns => {
            Some("le fichier a été modifié".into())
        }
        Ok(_) => None,
    }
}

fn echec_local(e: &std::io::Error) -> IssueUnite {
    IssueUnite::Echec {
        definitif: false,
        cause: CauseRefus::Local,
        message: format!("lecture du fichier impossible : {e}"),
    }
}

/// La cause d'un refus définitif, d'après son statut et son code S3.
pub fn cause_du_refus(statut: u16, detail: &str) -> CauseRefus {
    const IDENTIFIANTS: [&str; 6] = [
        "SignatureDoesNotMatch",
        "InvalidAccessKeyId",
        "ExpiredToken",
        "InvalidToken",
        "NotSignedUp",
        "TokenRefreshRequired",
    ];
    match statut {
        0 => CauseRefus::Local,
        401 => CauseRefus::Authentification,
        403 if IDENTIFIANTS.iter().any(|c| detail.contains(c)) => CauseRefus::Authentification,
        403 => CauseRefus::Droits,
        404 => CauseRefus::Stockage,
        _ => CauseRefus::Contenu,
    }
}

/// L'échec d'une émission qui n'a pas abouti.
fn echec_de<T>(issue: &Issue<T>) -> IssueUnite {
    let detail = issue.reponse.detail().unwrap_or_default().to_owned();
    match (&issue.raison, &issue.reponse) {
        (RaisonArret::Annule, _) => IssueUnite::Interrompue,
        (RaisonArret::IssueInconnue, _) => IssueUnite::Incertaine {
            message: format!("écriture sans réponse : {detail}"),
        },
        (RaisonArret::RefusDefinitif, ReponseApi::Refuse { statut, .. }) => {
            let cause = cause_du_refus(*statut, &detail);
            // Une somme refusée dit une altération en route, pas un fichier fautif : pas de
            // rejeu automatique (règle des 4xx), mais retenter-echecs la relancera.
            let definitif =
                !(detail.contains("BadDigest") || detail.contains("InvalidDigest") || *statut == 0);
            let message = if *statut == 0 {
                detail
            } else {
                format!("refusé ({statut}) : {detail}")
            };
            IssueUnite::Echec {
                definitif,
                cause,
                message,
            }
        }
        (raison, reponse) => {
            let cause = match reponse {
                ReponseApi::Refuse { .. } => CauseRefus::Serveur,
                _ => CauseRefus::Reseau,
            };
            let statut = reponse
                .statut()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            IssueUnite::Echec {
                definitif: false,
                cause,
                message: format!(
                    "{raison} après {} tentative(s){statut} : {detail}",
                    issue.tentatives
                ),
            }
        }
    }
}

/// Journalise les décisions de réessai d'une unité dans la base et prévient le suivi.
struct ObservateurUnite<'a> {
    moteur: &'a Moteur,
    unite: &'a DepotUnite,
}

impl ObservateurReessai for ObservateurUnite<'_> {
    fn nouvelle_tentative(&self, tentative: u32, attente: Duration) {
        self.moteur
            .suivi
            .nouvelle_tentative(self.unite, tentative, attente);
    }

    fn decision(&self, d: &DecisionJournalisee) {
        if d.raison.is_none() {
            self.moteur
                .incidents_absorbes
                .fetch_add(1, Ordering::Relaxed);
        }
        let entree = EntreeJournal {
            plan_id: Some(self.moteur.plan.id),
            unite_id: Some(self.unite.id),
            methode: &d.methode,
            cible: &d.cible,
            tentative: d.tentative,
            statut: d.statut,
            attente_ms: d.attente.map(|a| a.as_millis() as u64),
            budget_restant_ms: d.budget_restant.map(|b| b.as_millis() as u64),
            raison: d.raison.map(|r| r.as_str()),
            detail: &d.detail,
        };
        if let Err(e) = self.moteur.base().journaliser(&entree) {
            tracing::warn!("journal des décisions : {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes() {
        assert_eq!(
            cause_du_refus(403, "AccessDenied Access Denied"),
            CauseRefus::Droits
        );
        assert_eq!(
            cause_du_refus(403, "SignatureDoesNotMatch x"),
            CauseRefus::Authentification
        );
        assert_eq!(cause_du_refus(401, ""), CauseRefus::Authentification);
        assert_eq!(cause_du_refus(404, "NoSuchBucket"), CauseRefus::Stockage);
        assert_eq!(cause_du_refus(422, ""), CauseRefus::Contenu);
        assert_eq!(cause_du_refus(0, "illisible"), CauseRefus::Local);
    }
}
