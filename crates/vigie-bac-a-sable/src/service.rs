//! Couche de pannes placée devant le service S3 de s3s, et boucle d'acceptation HTTP/1.
//!
//! Pourquoi une couche HTTP et non une enveloppe du trait `S3` : les pannes qui comptent pour la
//! politique de réessai sont des pannes de **transport** (connexion coupée en plein corps,
//! réponse jamais reçue, serveur muet). Elles n'existent qu'au niveau de la connexion : ici, on
//! voit la requête avant s3s, on compte les octets de son corps au passage, et l'on peut
//! abandonner la connexion sans réponse (renvoyer `Err` à hyper le fait).
//!
//! La même couche sert l'API Vigie-Chiro locale (`/api/…`, voir `vigiechiro.rs`) : mêmes règles
//! de pannes, mêmes compteurs, sous des opérations `Api…`. Pour l'API, le corps JSON (petit,
//! borné à 1 Mio) est lu **avant** la décision de panne, parce que la clé visée par une règle
//! en dépend (`POST /fichiers` : la clé S3 du fichier déclaré). `coupure`, `bloquer` et
//! `coupure-corps` coupent donc après réception du corps, toujours avant tout traitement ;
//! `reponse-perdue` coupe après traitement (participation créée, fichier finalisé…).
//!
//! Ce que s3s n'a pas lu d'un corps qu'il refuse d'emblée (signature fausse, URL présignée
//! expirée, envoi multipart inconnu) est lu et jeté avant la réponse : le client, qui écrit
//! encore ses mégaoctets, reçoit le 403 ou le 404 au lieu d'une connexion brisée.
//!
//! L'arrêt ne doit jamais dépendre du bon vouloir d'un client : les attentes injectées
//! (lenteur, blocage) s'interrompent dès l'arrêt demandé, et les connexions encore ouvertes après
//! [`DELAI_GRACE`] sont abandonnées, avec les traitements d'API qui n'auraient pas fini.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use s3s::service::S3Service;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::operation::{Cible, analyser_requete};
use super::vigiechiro::{CORPS_API_MAX, ReponseApi, RequeteApi, Route, Vigiechiro};
use super::{Compteurs, Operation, Panne, Pannes, Relache};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Temps laissé aux connexions en cours pour finir après la demande d'arrêt ; au-delà, elles
/// sont abandonnées. Reste sous les 2 s promises par `BacASable::arreter`.
pub(crate) const DELAI_GRACE: Duration = Duration::from_millis(1500);

/// Erreur rendue à hyper pour qu'il abandonne la connexion sans répondre.
#[derive(Debug, thiserror::Error)]
#[error("panne injectée par le bac à sable : {0}")]
struct PanneInjectee(&'static str);

/// Le service hyper d'une connexion : pannes, compteurs, puis s3s ou l'API Vigie-Chiro.
#[derive(Clone)]
pub(crate) struct ServicePannes {
    pub s3: S3Service,
    pub api: Arc<Vigiechiro>,
    pub pannes: Arc<Pannes>,
    pub compteurs: Arc<Compteurs>,
    pub arret: watch::Receiver<bool>,
    /// Propre à chaque connexion : une panne de coupure demande une fermeture brutale (RST).
    pub fermeture_brutale: Arc<AtomicBool>,
    /// Propre à chaque connexion : la réponse part un octet à la fois, à cette cadence.
    pub compte_gouttes: CompteGouttes,
    /// Les traitements d'API en cours, menés au bout hors de leur connexion.
    pub traitements: Arc<Traitements>,
}

/// Les traitements d'API lancés hors de leur connexion (un client parti ne les interrompt
/// pas) : attendus à l'arrêt du bac à sable dans le même délai de grâce que les connexions,
/// puis abandonnés. Aucun n'écrit donc après le retour de l'arrêt.
#[derive(Default)]
pub(crate) struct Traitements {
    taches: Mutex<JoinSet<()>>,
    /// Une finalisation multipart à la fois **par clé d'objet**, menée jusqu'au bout de sa
    /// réponse (voir `ServicePannes::traiter`) ; une liste des parties ou un abandon de la même
    /// clé attend son tour, pour ne jamais voir un envoi à moitié assemblé. Par clé seulement :
    /// les finalisations de deux fichiers différents vont ensemble, comme chez S3 (un verrou
    /// unique mettait en file l'assemblage des gros fichiers d'une nuit, et tout client
    /// multipart le payait).
    finalisations: Mutex<HashMap<Arc<str>, Arc<tokio::sync::Mutex<()>>>>,
}

/// Le tour d'une finalisation ; rendu, il retire le verrou de sa clé si personne d'autre ne
/// l'attend (la table ne garde que les clés en cours de finalisation).
pub(crate) struct TourDeFinaliser<'a> {
    garde: Option<tokio::sync::OwnedMutexGuard<()>>,
    cle: Arc<str>,
    traitements: &'a Traitements,
}

impl Drop for TourDeFinaliser<'_> {
    fn drop(&mut self) {
        drop(self.garde.take());
        let mut f = self
            .traitements
            .finalisations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if f.get(&self.cle).is_some_and(|v| Arc::strong_count(v) == 1) {
            f.remove(&self.cle);
        }
    }
}

impl Traitements {
    fn lancer(&self, traitement: impl Future<Output = ()> + Send + 'static) {
        let mut taches = self.taches.lock().unwrap_or_else(PoisonError::into_inner);
        // Les traitements finis sont récoltés au passage : l'ensemble reste petit.
        while taches.try_join_next().is_some() {}
        taches.spawn(traitement);
    }

    /// Attend son tour pour finaliser un envoi vers `cle`, et le garde jusqu'à la fin.
    pub(crate) async fn tour_de_finaliser(&self, cle: Arc<str>) -> TourDeFinaliser<'_> {
        let verrou = {
            let mut f = self
                .finalisations
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::clone(f.entry(Arc::clone(&cle)).or_default())
        };
        TourDeFinaliser {
            garde: Some(verrou.lock_owned().await),
            cle,
            traitements: self,
        }
    }

    /// Combien de requêtes attendent le tour de `cle` (celui-ci pris) : dit à un essai, sans
    /// rien chronométrer, qu'une requête est arrivée jusqu'au verrou.
    #[cfg(test)]
    pub(crate) fn attendent_leur_tour(&self, cle: &str) -> usize {
        let f = self
            .finalisations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Le verrou est tenu par la table, par le tour pris, et par chaque requête en attente.
        f.get(cle)
            .map_or(0, |v| Arc::strong_count(v).saturating_sub(2))
    }

    async fn terminer(&self, echeance: tokio::time::Instant) {
        let mut taches =
            std::mem::take(&mut *self.taches.lock().unwrap_or_else(PoisonError::into_inner));
        let fin = tokio::time::timeout_at(echeance, async {
            while taches.join_next().await.is_some() {}
        })
        .await;
        if fin.is_err() {
            tracing::debug!(
                restants = taches.len(),
                "bac à sable : traitements d'API abandonnés à l'arrêt"
            );
        }
        taches.shutdown().await;
    }
}

impl hyper::service::Service<Request<Incoming>> for ServicePannes {
    type Response = Response<s3s::Body>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        Box::pin(self.clone().traiter(req))
    }
}

impl ServicePannes {
    async fn traiter(self, req: Request<Incoming>) -> Result<Response<s3s::Body>, BoxError> {
        let cible = analyser_requete(req.method(), req.uri(), req.headers());
        let op = cible.operation;
        let _tenue = self.compteurs.tenir(op);
        if op.est_api() {
            return self.traiter_api(req, op).await;
        }
        let cle: Option<Arc<str>> = cible.cle.as_deref().map(Arc::from);
        self.compteurs.noter_requete(op, cle.as_deref());

        let panne = self.decider_panne(op, cle.as_deref());

        match &panne {
            Some(Panne::Coupure) => return Err(self.couper("coupure")),
            Some(Panne::Bloquer(d)) => {
                self.attendre(*d).await;
                return Err(self.couper("blocage"));
            }
            Some(Panne::TrouNoir(_)) => return Err(self.engloutir().await),
            Some(Panne::CorpsSansFin) => {
                let corps = self.corps_compte(req.into_body(), op, cle.clone(), None);
                vider(corps).await?;
                return reponse_sans_fin("application/xml", self.arret.clone());
            }
            Some(lente @ (Panne::EntetesLents(_) | Panne::Debit(_))) => {
                self.compte_gouttes.regler_selon(lente);
            }
            Some(Panne::Lenteur(d)) => self.lenteur(*d).await?,
            Some(Panne::Retenir(relache)) => self.retenir(relache).await?,
            Some(Panne::Horloge(decalage)) => {
                let refus = super::horloge::refus_horloge(
                    *decalage,
                    req.headers(),
                    req.uri(),
                    SystemTime::now(),
                );
                if let Some(refus) = refus {
                    let methode = req.method().clone();
                    let corps = self.corps_compte(req.into_body(), op, cle.clone(), None);
                    vider(corps).await?;
                    return reponse_horloge(&methode, refus);
                }
            }
            // Rien n'est traité : le corps est lu et jeté, et la réponse dit « 200 » sans ETag,
            // avec un corps d'erreur.
            Some(Panne::FauxSucces) => {
                let methode = req.method().clone();
                let corps = self.corps_compte(req.into_body(), op, cle.clone(), None);
                vider(corps).await?;
                return reponse_faux_succes(&methode);
            }
            Some(Panne::Statut { code, retry_after }) => {
                let methode = req.method().clone();
                let corps = self.corps_compte(req.into_body(), op, cle.clone(), None);
                vider(corps).await?;
                return reponse_erreur(&cible, &methode, *code, retry_after.as_ref());
            }
            // S3 : `400 RequestTimeout`, le corps ayant calé (il est lu et jeté, rien n'est
            // écrit). `code_erreur_s3(408)` donne le code et le message de S3.
            Some(Panne::CorpsTropLent) => {
                let methode = req.method().clone();
                let corps = self.corps_compte(req.into_body(), op, cle.clone(), None);
                vider(corps).await?;
                let mut r = reponse_erreur(&cible, &methode, 408, None)?;
                *r.status_mut() = StatusCode::BAD_REQUEST;
                return Ok(r);
            }
            _ => {}
        }

        let limite = match &panne {
            Some(Panne::CouperCorpsApres(n)) => Some(*n),
            _ => None,
        };
        let reliquat = Reliquat::default();
        let req = req.map(|b| {
            s3s::Body::http_body_unsync(CorpsRepris {
                corps: Some(self.corps_compte(b, op, cle.clone(), limite)),
                fini: false,
                reliquat: Arc::clone(&reliquat),
            })
        });
        // Comme pour l'API : une requête S3 est menée à son terme hors de sa connexion. S3
        // (une finalisation acceptée va au bout de son assemblage) et moto (le traitement d'une
        // requête ne s'interrompt pas quand le client raccroche) font ainsi ; sinon un client
        // qui renonce en plein assemblage trouverait l'envoi supprimé par s3s-fs et l'objet
        // jamais écrit, ce qu'aucun vrai serveur ne fait.
        let service = self.clone();
        let cle_traitee = cle.clone();
        let (resultat, recu) = tokio::sync::oneshot::channel();
        self.traitements.lancer(async move {
            // Deux finalisations simultanées du même envoi (celle d'un client tué, que le
            // service mène au bout, et celle de sa relance) pouvaient toutes deux réussir dans
            // s3s-fs et assembler l'objet deux fois, ce que S3 ne fait pas. Elles passent ici
            // une à la fois par clé, jusqu'au bout de leur réponse (s3s peut aussi faire le travail
            // pendant qu'il l'écrit : `200` d'emblée, des espaces, puis le résultat ou une
            // erreur dans le corps) : la seconde trouve l'envoi fini (NoSuchUpload, comme chez
            // S3), et seule une finalisation qui a vraiment assemblé compte comme traitée.
            //
            // Une liste des parties et un abandon prennent aussi ce tour : s3s-fs retire l'envoi
            // puis consomme ses parties une à une (l'abandon retire les parties d'abord), et une
            // liste lue entre-temps rendait l'envoi vivant mais à moitié vidé (une partie sans
            // ETag, ou absente). Chez S3 et moto (`moto/s3/models.py`, `complete_multipart_upload`
            // lit les parties sans les retirer puis `del bucket.multiparts[id]` d'un coup, et
            // `list_parts` lève `NoSuchUpload` pour un envoi absent), une liste voit l'envoi
            // entier ou ne le voit plus. La relance d'un client tué pendant sa finalisation
            // croyait ses parties perdues, en renvoyait une (`NoSuchUpload` : l'envoi venait
            // d'être assemblé), repartait de zéro et assemblait l'objet une seconde fois.
            let finalisation = op == Operation::CompleteMultipartUpload;
            let _une_a_la_fois = if finalisation
                || op == Operation::ListParts
                || op == Operation::AbortMultipartUpload
            {
                let cle = cle_traitee.clone().unwrap_or_else(|| Arc::from(""));
                Some(service.traitements.tour_de_finaliser(cle).await)
            } else {
                None
            };
            let reponse = service.s3.call(req).await;
            let (reponse, reussie) = match reponse {
                Ok(r) if finalisation => {
                    let (tete, corps) = r.into_parts();
                    match lire_corps(corps, CORPS_API_MAX).await {
                        Ok(Some(octets)) => {
                            let erreur = octets.windows(7).any(|w| w == b"<Error>");
                            let reussie = tete.status.is_success() && !erreur;
                            (
                                Ok(Response::from_parts(tete, s3s::Body::from(octets))),
                                reussie,
                            )
                        }
                        Ok(None) => (
                            Err(s3s::HttpError::new(
                                "réponse de finalisation démesurée".into(),
                            )),
                            false,
                        ),
                        Err(e) => (Err(s3s::HttpError::new(e)), false),
                    }
                }
                Ok(r) => {
                    let reussie = r.status().is_success();
                    (Ok(r), reussie)
                }
                Err(e) => (Err(e), false),
            };
            if reussie {
                service.compteurs.noter_traitee(op, cle_traitee.as_deref());
            }
            // Le client a pu partir : personne n'attend plus la réponse, c'est permis.
            let _ = resultat.send(reponse);
        });
        let reponse = recu.await.map_err(|_| -> BoxError {
            "traitement d'une requête S3 abandonné à l'arrêt du bac à sable".into()
        })?;
        match panne {
            // Quoi qu'ait répondu s3s (il a vu un corps en erreur), le client n'a rien.
            Some(Panne::CouperCorpsApres(_)) => Err(self.couper("coupure en plein corps")),
            Some(Panne::PerdreReponse) => {
                // Vider la réponse laisse finir le traitement : la finalisation d'un multipart
                // porte son résultat dans le corps (« keep-alive » de s3s).
                if let Ok(r) = reponse {
                    let _ = vider(r.into_body()).await;
                }
                Err(self.couper("réponse perdue après traitement"))
            }
            Some(Panne::EtagAltere) => {
                self.vider_reliquat(&reliquat).await?;
                let mut r = reponse?;
                alterer_etag(&mut r);
                Ok(r)
            }
            _ => {
                self.vider_reliquat(&reliquat).await?;
                Ok(reponse?)
            }
        }
    }

    /// Lit et jette (en le comptant) ce que s3s a laissé du corps avant de répondre — un refus
    /// de signature, d'expiration ou d'envoi inconnu arrive avant toute lecture. Sans cela, un
    /// client qui écrit encore ses 5 Mio verrait une connexion brisée au lieu du 403 ou du 404.
    async fn vider_reliquat(&self, reliquat: &Reliquat) -> Result<(), BoxError> {
        let reste = reliquat
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(reste) = reste else {
            return Ok(());
        };
        let mut arret = self.arret.clone();
        tokio::select! {
            // Une erreur de lecture (client parti) : la réponse ne partira pas, peu importe.
            _ = vider(reste) => Ok(()),
            _ = arret_demande(&mut arret) => Err(self.couper("arrêt pendant la lecture d'un corps refusé")),
        }
    }

    /// Une requête de l'API Vigie-Chiro : corps lu (et compté), clé visée, panne éventuelle,
    /// traitement par la plateforme locale.
    async fn traiter_api(
        self,
        req: Request<Incoming>,
        op: Operation,
    ) -> Result<Response<s3s::Body>, BoxError> {
        let route = Route::analyser(req.method(), req.uri().path());
        let (parties, corps) = req.into_parts();
        let corps = match lire_corps(self.corps_compte(corps, op, None, None), CORPS_API_MAX).await
        {
            Ok(c) => c,
            Err(e) => {
                // Corps interrompu : la requête est arrivée, mais pas entière.
                self.compteurs.noter_requete(op, None);
                return Err(e);
            }
        };
        let Some(corps) = corps else {
            self.compteurs.noter_requete(op, None);
            return Ok(ReponseApi::trop_gros().en_http()?);
        };
        let cle = self.api.cle_visee(&route, &corps);
        self.compteurs.noter_requete(op, cle.as_deref());

        let panne = self.decider_panne(op, cle.as_deref());
        match &panne {
            Some(Panne::Coupure) => return Err(self.couper("coupure")),
            Some(Panne::TrouNoir(_)) => return Err(self.engloutir().await),
            Some(Panne::CorpsSansFin) => {
                return reponse_sans_fin("application/json", self.arret.clone());
            }
            Some(lente @ (Panne::EntetesLents(_) | Panne::Debit(_))) => {
                self.compte_gouttes.regler_selon(lente);
            }
            Some(Panne::CouperCorpsApres(_)) => {
                return Err(self.couper("coupure en plein corps"));
            }
            Some(Panne::Bloquer(d)) => {
                self.attendre(*d).await;
                return Err(self.couper("blocage"));
            }
            Some(Panne::Statut { code, retry_after }) => {
                return Ok(
                    ReponseApi::panne(statut_de_panne(*code), retry_after.as_ref()).en_http()?,
                );
            }
            // Devant l'API (Flask derrière un mandataire), un corps qui cale donne un 408.
            Some(Panne::CorpsTropLent) => {
                return Ok(ReponseApi::panne(StatusCode::REQUEST_TIMEOUT, None).en_http()?);
            }
            // Un relais qui répond 200 sans avoir rien transmis : rien n'est traité.
            Some(Panne::FauxSucces) => {
                return Ok(Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "application/json")
                    .body(s3s::Body::from("{}".to_owned()))?);
            }
            // L'API ne rend ni ETag ni signature SigV4 : ces pannes ne la touchent pas.
            Some(
                Panne::Lenteur(_)
                | Panne::Retenir(_)
                | Panne::PerdreReponse
                | Panne::EtagAltere
                | Panne::Horloge(_)
                | Panne::PageFigee,
            )
            | None => {}
        }
        // Une pagination cassée : la première page est servie, sous le numéro demandé.
        let figee = panne == Some(Panne::PageFigee);
        let parametres = parties
            .uri
            .query()
            .map(|q| if figee { page_figee(q) } else { q.to_owned() });

        // Une requête reçue en entier est menée à son terme dans sa propre tâche, même si le
        // client se déconnecte entre-temps (hyper abandonnerait sinon le traitement avec la
        // connexion) : c'est ce que fait la vraie plateforme, et ce qui rend un POST non
        // idempotent dangereux à rejouer.
        let lenteur = match &panne {
            Some(Panne::Lenteur(d)) => Some(Retard::Duree(*d)),
            Some(Panne::Retenir(relache)) => Some(Retard::Relache(relache.clone())),
            _ => None,
        };
        let service = self.clone();
        let cle_traitee = cle.clone();
        let (resultat, recu) = tokio::sync::oneshot::channel();
        let traitement = async move {
            match lenteur {
                Some(Retard::Duree(d)) => service.lenteur(d).await?,
                Some(Retard::Relache(relache)) => service.retenir(&relache).await?,
                None => {}
            }
            let mut reponse = service
                .api
                .traiter(RequeteApi {
                    route,
                    entetes: &parties.headers,
                    parametres: parametres.as_deref(),
                    corps: &corps,
                })
                .await;
            if figee && let Some(meta) = reponse.corps.as_mut().and_then(|c| c.get_mut("_meta")) {
                meta["page"] = serde_json::json!(page_demandee(parties.uri.query()));
            }
            if reponse.statut.is_success() {
                service.compteurs.noter_traitee(op, cle_traitee.as_deref());
            }
            Ok::<_, BoxError>(reponse)
        };
        self.traitements.lancer(async move {
            // Le client a pu partir : personne n'attend plus la réponse, c'est permis.
            let _ = resultat.send(traitement.await);
        });
        let reponse = recu.await.map_err(|_| -> BoxError {
            "traitement d'une requête d'API abandonné à l'arrêt du bac à sable".into()
        })??;
        if panne == Some(Panne::PerdreReponse) {
            return Err(self.couper("réponse perdue après traitement"));
        }
        Ok(reponse.en_http()?)
    }

    fn corps_compte(
        &self,
        inner: Incoming,
        op: Operation,
        cle: Option<Arc<str>>,
        limite: Option<u64>,
    ) -> CorpsCompte {
        CorpsCompte {
            inner,
            op,
            recu: 0,
            limite,
            cle,
            compteurs: Arc::clone(&self.compteurs),
            coupe: false,
        }
    }

    /// Erreur qui fait abandonner la connexion par hyper, fermée par un RST : le client voit
    /// « connection reset by peer », comme lors d'une vraie coupure réseau, et non une fin de
    /// flux ordinaire.
    /// La panne que la couche de pannes réserve à cette requête, comptée et tracée.
    fn decider_panne(&self, op: Operation, cle: Option<&str>) -> Option<Panne> {
        let panne = self.pannes.decider(op, cle);
        if let Some(p) = &panne {
            self.compteurs.noter_panne();
            tracing::info!(
                operation = %op,
                cle = cle.unwrap_or("-"),
                panne = %p,
                "bac à sable : panne injectée"
            );
        }
        panne
    }

    fn couper(&self, raison: &'static str) -> BoxError {
        self.fermeture_brutale.store(true, Ordering::SeqCst);
        PanneInjectee(raison).into()
    }

    /// La requête qui déclenche un trou noir n'aura jamais de réponse : elle attend l'arrêt du
    /// bac à sable (sa connexion, engloutie, ne lit ni n'écrit plus rien d'ici là).
    async fn engloutir(&self) -> BoxError {
        let mut arret = self.arret.clone();
        arret_demande(&mut arret).await;
        self.couper("arrêt pendant un trou noir")
    }

    /// Attend `d` avant de traiter ; la connexion est coupée si l'arrêt survient entre-temps.
    async fn lenteur(&self, d: Duration) -> Result<(), BoxError> {
        if self.attendre(d).await {
            Ok(())
        } else {
            Err(self.couper("arrêt pendant une lenteur"))
        }
    }

    /// Retient la requête jusqu'à la relâche (sans rien lire ni écrire) ; coupe la connexion
    /// si l'arrêt du bac à sable est demandé avant.
    async fn retenir(&self, relache: &Relache) -> Result<(), BoxError> {
        let mut arret = self.arret.clone();
        tokio::select! {
            () = relache.attendre() => Ok(()),
            _ = arret_demande(&mut arret) => Err(self.couper("arrêt pendant une retenue")),
        }
    }

    /// Attend `d` ; rend `false` si l'arrêt du bac à sable est demandé entre-temps.
    async fn attendre(&self, d: Duration) -> bool {
        let mut arret = self.arret.clone();
        tokio::select! {
            _ = tokio::time::sleep(d) => true,
            _ = arret_demande(&mut arret) => false,
        }
    }
}

/// Une réponse `200` dont le corps ne finit jamais (voir [`CorpsSansFin`]).
fn reponse_sans_fin(
    type_contenu: &str,
    arret: watch::Receiver<bool>,
) -> Result<Response<s3s::Body>, BoxError> {
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header("content-type", type_contenu)
        .body(s3s::Body::http_body_unsync(CorpsSansFin::nouveau(Some(
            arret,
        ))))?)
}

/// Un corps de réponse qui ne finit jamais : une espace par seconde (jusqu'à l'arrêt du bac à
/// sable, s'il est donné). Public pour qu'un mandataire de test le serve devant un autre
/// serveur.
pub struct CorpsSansFin {
    attente: Pin<Box<tokio::time::Sleep>>,
    arret: Option<watch::Receiver<bool>>,
}

impl CorpsSansFin {
    pub fn nouveau(arret: Option<watch::Receiver<bool>>) -> Self {
        CorpsSansFin {
            attente: Box::pin(tokio::time::sleep(Duration::from_secs(1))),
            arret,
        }
    }
}

impl Body for CorpsSansFin {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.arret.as_ref().is_some_and(|a| *a.borrow()) {
            return Poll::Ready(None);
        }
        std::task::ready!(self.attente.as_mut().poll(cx));
        let prochaine = tokio::time::Instant::now() + Duration::from_secs(1);
        self.attente.as_mut().reset(prochaine);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b" ")))))
    }

    fn is_end_stream(&self) -> bool {
        false
    }
}

/// La cadence à laquelle une connexion envoie sa réponse (`None` : aucune retenue) : tant
/// d'octets à la fois, puis une attente. Réglée par les pannes `entetes-lents` (un octet, puis
/// la durée) et `debit` (un vingtième du débit toutes les 50 ms), lue par [`FluxCoupable`].
#[derive(Clone, Default)]
pub struct CompteGouttes(Arc<Mutex<Option<(usize, Duration)>>>);

/// Le pas d'un débit réglé : assez court pour que le débit soit régulier, assez long pour
/// que les écritures restent peu nombreuses.
const PAS_DU_DEBIT: Duration = Duration::from_millis(50);

impl CompteGouttes {
    /// Règle la cadence que dit `panne` : `entetes-lents` (un octet, puis sa durée), `debit`
    /// (un vingtième du débit toutes les 50 ms) ; toute autre panne n'en dit aucune.
    pub fn regler_selon(&self, panne: &Panne) {
        let cadence = match *panne {
            Panne::EntetesLents(d) => (1, d),
            Panne::Debit(par_seconde) => {
                let par_pas = par_seconde.saturating_mul(PAS_DU_DEBIT.as_millis() as u64) / 1000;
                (usize::try_from(par_pas).unwrap_or(usize::MAX), PAS_DU_DEBIT)
            }
            _ => return,
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((cadence.0.max(1), cadence.1));
    }

    fn cadence(&self) -> Option<(usize, Duration)> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// La page demandée par une chaîne de requête (`page=3&max_results=100` : 3 ; 1 par défaut).
fn page_demandee(requete: Option<&str>) -> u64 {
    requete
        .unwrap_or("")
        .split('&')
        .find_map(|p| p.strip_prefix("page="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

/// La chaîne de requête qui demande la première page au lieu de celle demandée.
fn page_figee(requete: &str) -> String {
    requete
        .split('&')
        .map(|p| if p.starts_with("page=") { "page=1" } else { p })
        .collect::<Vec<_>>()
        .join("&")
}

/// Statut HTTP d'une panne ; hors de 400..=599, 500.
fn statut_de_panne(code: u16) -> StatusCode {
    StatusCode::from_u16(code)
        .ok()
        .filter(|s| s.is_client_error() || s.is_server_error())
        .unwrap_or_else(|| {
            tracing::warn!(
                code,
                "bac à sable : statut de panne hors de 400..=599, remplacé par 500"
            );
            StatusCode::INTERNAL_SERVER_ERROR
        })
}

/// Réponse d'erreur S3 (XML) pour une panne de statut, sans traiter la requête.
fn reponse_erreur(
    cible: &Cible,
    methode: &Method,
    code: u16,
    retry_after: Option<&super::RetryAfter>,
) -> Result<Response<s3s::Body>, BoxError> {
    let statut = statut_de_panne(code);
    let (code_s3, message) = code_erreur_s3(statut.as_u16());
    let ressource = match (&cible.compartiment, &cible.cle) {
        (Some(c), Some(k)) => format!("/{c}/{k}"),
        (Some(c), None) => format!("/{c}"),
        _ => "/".to_owned(),
    };
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code_s3}</Code>\
         <Message>{message} (panne injectée par le bac à sable)</Message>\
         <Resource>{}</Resource><RequestId>bac-a-sable</RequestId></Error>",
        echapper_xml(&ressource)
    );
    let mut reponse = Response::builder()
        .status(statut)
        .header("content-type", "application/xml")
        .header("x-amz-request-id", "bac-a-sable");
    if let Some(r) = retry_after {
        let (nom, valeur) = r.entete(SystemTime::now());
        match HeaderValue::from_bytes(valeur.as_bytes()) {
            Ok(v) => reponse = reponse.header(HeaderName::from_static(nom), v),
            Err(_) => tracing::warn!(
                valeur,
                "bac à sable : valeur Retry-After impossible à envoyer dans un en-tête, omise"
            ),
        }
    }
    // Une réponse à HEAD n'a pas de corps.
    let corps = if *methode == Method::HEAD {
        s3s::Body::empty()
    } else {
        s3s::Body::from(xml)
    };
    Ok(reponse.body(corps)?)
}

/// `403 RequestTimeTooSkewed`, avec l'heure du service en `Date` (voir `horloge.rs`).
fn reponse_horloge(
    methode: &Method,
    refus: super::horloge::RefusHorloge,
) -> Result<Response<s3s::Body>, BoxError> {
    let corps = if *methode == Method::HEAD {
        s3s::Body::empty()
    } else {
        s3s::Body::from(refus.corps)
    };
    Ok(Response::builder()
        .status(StatusCode::FORBIDDEN)
        .header("content-type", "application/xml")
        .header("date", refus.date)
        .header("x-amz-request-id", "bac-a-sable")
        .body(corps)?)
}

/// `200 OK` sans ETag, et un corps d'erreur S3 : ce que rend un relais qui ment (panne
/// `faux-succes`). Rien n'a été écrit.
fn reponse_faux_succes(methode: &Method) -> Result<Response<s3s::Body>, BoxError> {
    let corps = if *methode == Method::HEAD {
        s3s::Body::empty()
    } else {
        s3s::Body::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code>\
             <Message>We encountered an internal error. Please try again. (panne injectée par \
             le bac à sable : 200 sans ETag)</Message><RequestId>bac-a-sable</RequestId></Error>"
                .to_owned(),
        )
    };
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/xml")
        .header("x-amz-request-id", "bac-a-sable")
        .body(corps)?)
}

/// Remplace l'ETag d'une réponse par un autre de la même forme (panne `etag-altere`) : les
/// chiffres hexadécimaux retournés, `"0123…"` devenant `"…3210"` (un autre MD5 apparent).
fn alterer_etag(r: &mut Response<s3s::Body>) {
    let Some(etag) = r
        .headers()
        .get(hyper::header::ETAG)
        .and_then(|v| v.to_str().ok())
    else {
        return;
    };
    let nu = etag.trim_matches('"');
    let mut autre: String = nu.chars().rev().collect();
    if autre == nu {
        autre = "0".repeat(nu.len().max(32));
    }
    if let Ok(v) = HeaderValue::from_str(&format!("\"{autre}\"")) {
        r.headers_mut().insert(hyper::header::ETAG, v);
    }
}

/// Code d'erreur S3 et message usuels pour un statut HTTP.
fn code_erreur_s3(statut: u16) -> (&'static str, &'static str) {
    match statut {
        400 => ("InvalidRequest", "Invalid Request"),
        401 => ("Unauthorized", "Unauthorized"),
        403 => ("AccessDenied", "Access Denied"),
        404 => ("NoSuchKey", "The specified key does not exist."),
        408 => (
            "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period.",
        ),
        409 => (
            "OperationAborted",
            "A conflicting conditional operation is currently in progress against this resource.",
        ),
        429 => ("TooManyRequests", "Too Many Requests"),
        500 => (
            "InternalError",
            "We encountered an internal error. Please try again.",
        ),
        501 => (
            "NotImplemented",
            "A header you provided implies functionality that is not implemented.",
        ),
        502 => ("BadGateway", "Bad Gateway"),
        503 => ("SlowDown", "Please reduce your request rate."),
        504 => ("GatewayTimeout", "Gateway Timeout"),
        s if s >= 500 => (
            "InternalError",
            "We encountered an internal error. Please try again.",
        ),
        _ => ("InvalidRequest", "Invalid Request"),
    }
}

fn echapper_xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Ce qui fait attendre une requête d'API avant son traitement.
enum Retard {
    /// [`Panne::Lenteur`].
    Duree(Duration),
    /// [`Panne::Retenir`].
    Relache(Relache),
}

/// Se termine quand l'arrêt est demandé (ou que le bac à sable a disparu). Le `Ref` de
/// `wait_for` est relâché ici : il n'est pas `Send` et ne doit pas traverser un `.await`.
async fn arret_demande(arret: &mut watch::Receiver<bool>) {
    let _ = arret.wait_for(|a| *a).await;
}

/// Lit et jette un corps jusqu'au bout.
async fn vider<B>(corps: B) -> Result<(), B::Error>
where
    B: Body,
{
    let mut corps = std::pin::pin!(corps);
    while let Some(trame) = std::future::poll_fn(|cx| corps.as_mut().poll_frame(cx)).await {
        trame?;
    }
    Ok(())
}

/// Lit un corps entier en mémoire ; `Ok(None)` s'il dépasse `max` octets (le reste est lu et
/// jeté, pour que la connexion reste utilisable).
async fn lire_corps<B>(corps: B, max: usize) -> Result<Option<Bytes>, B::Error>
where
    B: Body<Data = Bytes>,
{
    let mut corps = std::pin::pin!(corps);
    let mut lu = Vec::new();
    let mut trop = false;
    while let Some(trame) = std::future::poll_fn(|cx| corps.as_mut().poll_frame(cx)).await {
        if let Ok(donnees) = trame?.into_data() {
            if lu.len() + donnees.len() > max {
                trop = true;
            } else if !trop {
                lu.extend_from_slice(&donnees);
            }
        }
    }
    Ok((!trop).then(|| Bytes::from(lu)))
}

/// Où un [`CorpsRepris`] abandonné en cours de lecture dépose le reste de son corps.
type Reliquat = Arc<Mutex<Option<CorpsCompte>>>;

/// Corps remis à s3s : s'il est abandonné avant sa fin (requête refusée avant lecture), le
/// reste est déposé dans le [`Reliquat`] pour que la couche de pannes le lise avant de répondre.
struct CorpsRepris {
    corps: Option<CorpsCompte>,
    /// Fin du corps ou erreur vues : rien à reprendre.
    fini: bool,
    reliquat: Reliquat,
}

impl Body for CorpsRepris {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let Some(corps) = self.corps.as_mut() else {
            return Poll::Ready(None);
        };
        let trame = std::task::ready!(Pin::new(corps).poll_frame(cx));
        if !matches!(trame, Some(Ok(_))) {
            self.fini = true;
        }
        Poll::Ready(trame)
    }

    fn is_end_stream(&self) -> bool {
        self.fini || self.corps.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.corps
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), Body::size_hint)
    }
}

impl Drop for CorpsRepris {
    fn drop(&mut self) {
        if self.fini {
            return;
        }
        if let Some(corps) = self.corps.take()
            && !corps.is_end_stream()
        {
            *self.reliquat.lock().unwrap_or_else(PoisonError::into_inner) = Some(corps);
        }
    }
}

/// Corps de requête qui compte les octets reçus et, pour `Panne::CouperCorpsApres`, échoue
/// après `limite` octets (ou à la fin du corps s'il est plus court) : le stockage voit une
/// erreur de lecture et n'écrit rien.
struct CorpsCompte {
    inner: Incoming,
    recu: u64,
    limite: Option<u64>,
    op: Operation,
    cle: Option<Arc<str>>,
    compteurs: Arc<Compteurs>,
    coupe: bool,
}

impl CorpsCompte {
    fn couper(&mut self) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.coupe = true;
        Poll::Ready(Some(Err(PanneInjectee("coupure en plein corps").into())))
    }
}

impl Body for CorpsCompte {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if self.coupe {
            return Poll::Ready(None);
        }
        if let Some(l) = self.limite
            && self.recu >= l
        {
            return self.couper();
        }
        match std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
            Some(Ok(mut trame)) => {
                let (recu, limite) = (self.recu, self.limite);
                if let Some(donnees) = trame.data_mut() {
                    if let Some(l) = limite {
                        let reste = usize::try_from(l - recu).unwrap_or(usize::MAX);
                        if donnees.len() > reste {
                            donnees.truncate(reste);
                        }
                    }
                    let n = donnees.len() as u64;
                    self.recu += n;
                    self.compteurs.noter_octets(self.op, self.cle.as_deref(), n);
                }
                Poll::Ready(Some(Ok(trame)))
            }
            Some(Err(e)) => Poll::Ready(Some(Err(e.into()))),
            // Corps plus court que la limite : on coupe quand même, avant tout traitement.
            None if self.limite.is_some() => self.couper(),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        // En mode coupure, la fin n'est annoncée qu'après l'erreur : sinon s3s pourrait
        // s'arrêter de lire avant de la voir.
        self.coupe || (self.limite.is_none() && self.inner.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Accepte les connexions jusqu'à l'arrêt, puis laisse [`DELAI_GRACE`] aux connexions en cours
/// et abandonne les autres.
pub(crate) async fn servir(
    ecoute: TcpListener,
    service: ServicePannes,
    mut arret: watch::Receiver<bool>,
) {
    let traitements = Arc::clone(&service.traitements);
    let mut connexions = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            _ = arret_demande(&mut arret) => break,
            r = ecoute.accept() => match r {
                Ok((flux, pair)) => {
                    let _ = flux.set_nodelay(true);
                    let service = ServicePannes {
                        fermeture_brutale: Arc::new(AtomicBool::new(false)),
                        compte_gouttes: CompteGouttes::default(),
                        ..service.clone()
                    };
                    let arret = arret.clone();
                    connexions.spawn(servir_connexion(flux, service, arret, pair));
                }
                Err(e) => {
                    // Typiquement « trop de fichiers ouverts » : on souffle un peu.
                    tracing::warn!(erreur = %e, "bac à sable : échec d'acceptation");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            Some(_) = connexions.join_next(), if !connexions.is_empty() => {}
        }
    }
    drop(ecoute);
    let echeance = tokio::time::Instant::now() + DELAI_GRACE;
    let fin = tokio::time::timeout_at(echeance, async {
        while connexions.join_next().await.is_some() {}
    })
    .await;
    if fin.is_err() {
        tracing::debug!(
            restantes = connexions.len(),
            "bac à sable : connexions abandonnées à l'arrêt"
        );
    }
    connexions.shutdown().await;
    traitements.terminer(echeance).await;
}

async fn servir_connexion(
    flux: TcpStream,
    service: ServicePannes,
    mut arret: watch::Receiver<bool>,
    pair: std::net::SocketAddr,
) {
    let flux = FluxCoupable {
        flux: Some(flux),
        fermeture_brutale: Arc::clone(&service.fermeture_brutale),
        pannes: Arc::clone(&service.pannes),
        ouverte: std::time::Instant::now(),
        compte_gouttes: service.compte_gouttes.clone(),
        goutte: None,
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    // Sans minuterie, `header_read_timeout` (30 s par défaut) resterait sans effet.
    http.timer(TokioTimer::new());
    let connexion = http.serve_connection(TokioIo::new(flux), service);
    let mut connexion = std::pin::pin!(connexion);
    tokio::select! {
        r = connexion.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(%pair, erreur = %e, "bac à sable : connexion terminée sur erreur");
            }
        }
        _ = arret_demande(&mut arret) => {
            connexion.as_mut().graceful_shutdown();
            let _ = connexion.await;
        }
    }
}

/// Flux TCP qui, à sa fermeture, envoie un RST (`SO_LINGER` à zéro) si une panne l'a
/// demandé ; sinon une fermeture ordinaire. Englouti par un trou noir (voir
/// [`Pannes::trou_noir`]), il ne lit ni n'écrit plus rien, et n'est jamais fermé : hyper a beau
/// l'abandonner (délai de lecture des en-têtes), sa prise reste ouverte jusqu'à l'arrêt du bac
/// à sable, comme la connexion d'un téléphone qui a changé d'adresse. Public pour qu'un
/// mandataire de test applique les mêmes pannes devant un autre serveur (second avis).
pub struct FluxCoupable {
    flux: Option<TcpStream>,
    fermeture_brutale: Arc<AtomicBool>,
    pannes: Arc<Pannes>,
    ouverte: std::time::Instant,
    /// Les pannes `entetes-lents` et `debit` : quelques octets écrits à la fois, puis une attente.
    compte_gouttes: CompteGouttes,
    goutte: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl FluxCoupable {
    /// Une connexion acceptée à l'instant, sous les trous noirs de `pannes`.
    pub fn nouveau(flux: TcpStream, pannes: Arc<Pannes>) -> Self {
        FluxCoupable {
            flux: Some(flux),
            fermeture_brutale: Arc::new(AtomicBool::new(false)),
            pannes,
            ouverte: std::time::Instant::now(),
            compte_gouttes: CompteGouttes::default(),
            goutte: None,
        }
    }

    /// La cadence de la réponse de cette connexion, à régler quand une panne `entetes-lents`
    /// ou `debit` la frappe.
    pub fn compte_gouttes(&self) -> CompteGouttes {
        self.compte_gouttes.clone()
    }

    /// Le flux, s'il n'est pas englouti ; sinon rien ne passe, et rien ne réveille la tâche.
    fn ouvert(&mut self) -> Option<&mut TcpStream> {
        if self.pannes.englouti(self.ouverte) {
            return None;
        }
        self.flux.as_mut()
    }
}

impl Drop for FluxCoupable {
    fn drop(&mut self) {
        let Some(flux) = self.flux.take() else {
            return;
        };
        if self.pannes.englouti(self.ouverte) {
            self.pannes.garder_ouverte(Box::new(flux));
        } else if self.fermeture_brutale.load(Ordering::SeqCst) {
            let _ = flux.set_zero_linger();
        }
    }
}

impl AsyncRead for FluxCoupable {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.ouvert() {
            Some(f) => Pin::new(f).poll_read(cx, buf),
            None => Poll::Pending,
        }
    }
}

impl AsyncWrite for FluxCoupable {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if let Some((octets, cadence)) = this.compte_gouttes.cadence() {
            // Quelques octets, puis l'attente de la cadence avant les suivants.
            if let Some(goutte) = this.goutte.as_mut() {
                std::task::ready!(goutte.as_mut().poll(cx));
                this.goutte = None;
            }
            let Some(f) = this.ouvert() else {
                return Poll::Pending;
            };
            let ecrit =
                std::task::ready!(Pin::new(f).poll_write(cx, &buf[..buf.len().min(octets)]));
            this.goutte = Some(Box::pin(tokio::time::sleep(cadence)));
            return Poll::Ready(ecrit);
        }
        match this.ouvert() {
            Some(f) => Pin::new(f).poll_write(cx, buf),
            None => Poll::Pending,
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        if self.compte_gouttes.cadence().is_some() {
            let premier = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &b[..]);
            return self.poll_write(cx, premier);
        }
        match self.ouvert() {
            Some(f) => Pin::new(f).poll_write_vectored(cx, bufs),
            None => Poll::Pending,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.compte_gouttes.cadence().is_none()
            && self.flux.as_ref().is_some_and(TcpStream::is_write_vectored)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.ouvert() {
            Some(f) => Pin::new(f).poll_flush(cx),
            None => Poll::Pending,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.ouvert() {
            Some(f) => Pin::new(f).poll_shutdown(cx),
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_s3_usuels() {
        assert_eq!(code_erreur_s3(503).0, "SlowDown");
        assert_eq!(code_erreur_s3(500).0, "InternalError");
        assert_eq!(code_erreur_s3(429).0, "TooManyRequests");
        assert_eq!(code_erreur_s3(403).0, "AccessDenied");
        assert_eq!(code_erreur_s3(507).0, "InternalError");
        assert_eq!(code_erreur_s3(418).0, "InvalidRequest");
    }

    /// Deux finalisations vers la même clé passent l'une après l'autre ; vers deux clés
    /// différentes, ensemble (un verrou unique mettait en file l'assemblage de tous les gros
    /// fichiers d'une nuit). La table ne garde que les clés en cours.
    #[test]
    fn une_finalisation_a_la_fois_par_cle_et_seulement_par_cle() {
        use futures_util::FutureExt;
        let traitements = Traitements::default();
        let a = traitements
            .tour_de_finaliser(Arc::from("nuit/a.wav"))
            .now_or_never()
            .expect("personne avant");
        assert!(
            traitements
                .tour_de_finaliser(Arc::from("nuit/a.wav"))
                .now_or_never()
                .is_none(),
            "la même clé attend son tour"
        );
        let b = traitements
            .tour_de_finaliser(Arc::from("nuit/b.wav"))
            .now_or_never()
            .expect("une autre clé n'attend pas");
        drop(a);
        let a2 = traitements
            .tour_de_finaliser(Arc::from("nuit/a.wav"))
            .now_or_never()
            .expect("le tour rendu, la clé est libre");
        drop((a2, b));
        assert!(
            traitements.finalisations.lock().unwrap().is_empty(),
            "aucune clé gardée après les finalisations"
        );
    }

    #[test]
    fn ressource_echappee() {
        assert_eq!(echapper_xml("a&b<c>\""), "a&amp;b&lt;c&gt;&quot;");
    }

    #[test]
    fn operation_dans_la_reponse_d_erreur() {
        let cible = Cible {
            operation: Operation::PutObject,
            compartiment: Some("nuits".into()),
            cle: Some("a b.wav".into()),
        };
        let r = reponse_erreur(
            &cible,
            &Method::PUT,
            503,
            Some(&super::super::RetryAfter::Secondes(3)),
        )
        .expect("réponse");
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            r.headers().get("retry-after").and_then(|v| v.to_str().ok()),
            Some("3")
        );
        let r = reponse_erreur(&cible, &Method::HEAD, 200, None).expect("réponse");
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
