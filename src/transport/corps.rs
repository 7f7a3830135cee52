//! Le corps d'un envoi : une tranche de fichier lue en flux.
//!
//! Pendant qu'il est lu, il calcule la somme CRC32C de ce qui part (jamais de relecture
//! préalable de 40 Go), compte les octets et date la dernière avancée (pour la barre de
//! progression et pour couper un transfert bloqué). La mémoire tenue est celle d'un tampon de
//! lecture, quelle que soit la taille du fichier. Un fichier qui raccourcit pendant la lecture
//! fait échouer le corps : on n'envoie jamais moins que la taille annoncée.

use crate::plateforme::FichierAttendu;
use std::future::Future;
use std::io::SeekFrom;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncSeekExt, ReadBuf};
// L'horloge de tokio, celle du système hors des essais à l'horloge en pause.
use tokio::time::Instant;

use super::debit::LimiteDebit;

/// Taille du tampon de lecture.
const TAMPON_OCTETS: usize = 256 * 1024;

/// Ce qu'une tentative a fait avancer : octets lus et envoyés, dernière avancée, et,
/// de la réponse, l'arrivée de ses en-têtes et de son corps.
///
/// Chaque signe de vie (un octet du corps parti, les en-têtes de la réponse, un morceau de son
/// corps) date la dernière avancée : c'est ce que surveille l'émetteur pour voir qu'une
/// connexion est morte (voir `transport::Emetteur`), et le plus long silence d'une tentative
/// réussie dit ce qui est normal sur ce lien.
#[derive(Debug)]
pub(crate) struct Progression {
    octets: AtomicU64,
    attendus: AtomicU64,
    /// La dernière avancée, et le plus long silence entre deux avancées jusqu'ici.
    avancees: Mutex<(Instant, Duration)>,
    /// L'arrivée des en-têtes de la réponse (instant, statut), et les octets lus de son corps.
    reponse: Mutex<Option<(Instant, u16)>>,
    octets_reponse: AtomicU64,
    /// La limite de débit (`--debit-max`) que le corps de cette tentative respecte.
    limite: Option<Arc<LimiteDebit>>,
    /// Le temps passé à attendre la limite de débit : les attentes finies, et le début de celle
    /// en cours (le corps attend : ce n'est pas un blocage). Il ne compte pas dans le délai
    /// d'une tentative.
    retenu: Mutex<(Duration, Option<Instant>)>,
}

tokio::task_local! {
    /// La progression de la tentative que mène la tâche courante : le transport y note
    /// l'arrivée de la réponse sans qu'on la lui passe (voir [`reponse_recue`]).
    static TENTATIVE: Arc<Progression>;
}

/// Mène `envoi` en y faisant de `progression` celle de la tentative courante.
pub(crate) async fn sous_progression<F: Future>(
    progression: Arc<Progression>,
    envoi: F,
) -> F::Output {
    TENTATIVE.scope(progression, envoi).await
}

/// Les en-têtes de la réponse de la tentative courante sont arrivés (statut `statut`). Sans
/// tentative courante (un appel hors de l'émetteur), rien.
pub(crate) fn reponse_recue(statut: u16) {
    let _ = TENTATIVE.try_with(|p| p.en_tetes(statut));
}

/// `octets` du corps de la réponse de la tentative courante sont arrivés.
pub(crate) fn reponse_lue(octets: usize) {
    let _ = TENTATIVE.try_with(|p| p.lu_de_la_reponse(octets as u64));
}

impl Progression {
    /// Une progression sans limite de débit (essais).
    #[cfg(test)]
    pub(crate) fn nouveau() -> Arc<Self> {
        Self::sous_limite(None)
    }

    /// Une progression dont le corps respecte `limite` (partagée par tous les transferts).
    pub(crate) fn sous_limite(limite: Option<Arc<LimiteDebit>>) -> Arc<Self> {
        Arc::new(Progression {
            octets: AtomicU64::new(0),
            attendus: AtomicU64::new(0),
            avancees: Mutex::new((Instant::now(), Duration::ZERO)),
            reponse: Mutex::new(None),
            octets_reponse: AtomicU64::new(0),
            limite,
            retenu: Mutex::new((Duration::ZERO, None)),
        })
    }

    /// Pour un corps écrit sans client HTTP (une copie dans un dossier), depuis un fil
    /// bloquant : `octets` viennent de passer. S'ils dépassent la limite de débit
    /// (`--debit-max`), le fil attend leur tour, et cette attente est comptée comme celle d'un
    /// corps HTTP : hors du délai de la tentative, et pas un silence.
    pub(crate) fn avancer_sous_la_limite_bloquant(&self, octets: u64) {
        let attente = self
            .limite
            .as_ref()
            .map_or(Duration::ZERO, |l| l.reserver(octets));
        if !attente.is_zero() {
            self.retenir(true);
            std::thread::sleep(attente);
            self.retenir(false);
        }
        self.avancer();
    }

    /// Octets déjà passés au client HTTP pour cette tentative.
    pub(crate) fn octets(&self) -> u64 {
        self.octets.load(Ordering::Relaxed)
    }

    /// Annonce un corps de `octets` octets : la surveillance du blocage commence.
    pub(crate) fn attendre_corps(&self, octets: u64) {
        self.attendus.store(octets, Ordering::Relaxed);
        self.avancer();
    }

    /// Un corps est-il annoncé et pas encore entièrement parti ?
    pub(crate) fn corps_en_cours(&self) -> bool {
        let attendus = self.attendus.load(Ordering::Relaxed);
        attendus > 0 && self.octets() < attendus
    }

    /// Depuis quand rien n'a avancé. Une attente de la limite de débit n'est pas une
    /// immobilité : zéro pendant l'attente, et l'immobilité repart de sa fin.
    pub(crate) fn immobile_depuis(&self) -> Duration {
        if self.retenu.lock().is_ok_and(|r| r.1.is_some()) {
            return Duration::ZERO;
        }
        self.avancees
            .lock()
            .map(|a| a.0.elapsed())
            .unwrap_or_default()
    }

    /// L'instant de la dernière avancée.
    pub(crate) fn derniere_avancee(&self) -> Instant {
        self.avancees
            .lock()
            .map(|a| a.0)
            .unwrap_or_else(|_| Instant::now())
    }

    /// Le plus long silence de la tentative (entre deux avancées, et depuis la dernière),
    /// hors des attentes de la limite de débit.
    pub(crate) fn silence_max(&self) -> Duration {
        let immobile = self.immobile_depuis();
        self.avancees
            .lock()
            .map(|a| a.1.max(immobile))
            .unwrap_or(immobile)
    }

    /// Note une avancée qui ne vient pas du corps (réponse reçue, requête sans corps).
    pub(crate) fn avancer(&self) {
        let en_retenue = self.retenu.lock().is_ok_and(|r| r.1.is_some());
        if let Ok(mut a) = self.avancees.lock() {
            let maintenant = Instant::now();
            if !en_retenue {
                a.1 = a.1.max(maintenant.saturating_duration_since(a.0));
            }
            a.0 = maintenant;
        }
    }

    /// Les en-têtes de la réponse sont arrivés.
    pub(crate) fn en_tetes(&self, statut: u16) {
        self.avancer();
        if let Ok(mut r) = self.reponse.lock() {
            r.get_or_insert((Instant::now(), statut));
        }
    }

    pub(crate) fn lu_de_la_reponse(&self, octets: u64) {
        self.avancer();
        self.octets_reponse.fetch_add(octets, Ordering::Relaxed);
    }

    /// Les en-têtes de la réponse (leur arrivée, le statut), s'ils sont arrivés, et les
    /// octets lus de son corps depuis.
    pub(crate) fn reponse(&self) -> Option<(Instant, u16, u64)> {
        let r = self.reponse.lock().ok().and_then(|r| *r)?;
        Some((r.0, r.1, self.octets_reponse.load(Ordering::Relaxed)))
    }

    /// Le temps passé jusqu'ici à attendre la limite de débit (`--debit-max`), attente en
    /// cours comprise : une tentative ne le voit pas passer (voir `Emetteur`).
    pub(crate) fn temps_retenu(&self) -> Duration {
        self.retenu
            .lock()
            .map(|r| r.0 + r.1.map_or(Duration::ZERO, |d| d.elapsed()))
            .unwrap_or_default()
    }

    /// Le corps commence (`true`) ou finit d'attendre la limite de débit. L'attente n'est pas
    /// une silence : l'immobilité repart de sa fin.
    fn retenir(&self, retenue: bool) {
        if let Ok(mut r) = self.retenu.lock() {
            match (retenue, r.1) {
                (true, None) => r.1 = Some(Instant::now()),
                (false, Some(depuis)) => {
                    r.0 += depuis.elapsed();
                    r.1 = None;
                }
                _ => {}
            }
        }
        if !retenue && let Ok(mut a) = self.avancees.lock() {
            a.0 = Instant::now();
        }
    }

    fn lu(&self, donnees: &[u8]) {
        self.octets
            .fetch_add(donnees.len() as u64, Ordering::Relaxed);
        self.avancer();
    }
}

/// Une somme CRC32C telle que S3 l'écrit : 4 octets gros-boutistes en base64.
pub(crate) fn crc32c_base64(crc: u32) -> String {
    base64::engine::general_purpose::STANDARD.encode(crc.to_be_bytes())
}

/// Relit une somme CRC32C en base64.
pub(crate) fn crc32c_depuis_base64(texte: &str) -> Option<u32> {
    let octets = base64::engine::general_purpose::STANDARD
        .decode(texte)
        .ok()?;
    Some(u32::from_be_bytes(octets.try_into().ok()?))
}

/// La somme composite d'un envoi multipart, comme S3 la rend : CRC32C des sommes des parties
/// mises bout à bout, suivie de « -N ».
pub(crate) fn crc32c_composite(sommes_parties: &[u32]) -> String {
    let mut octets = Vec::with_capacity(sommes_parties.len() * 4);
    for s in sommes_parties {
        octets.extend_from_slice(&s.to_be_bytes());
    }
    format!(
        "{}-{}",
        crc32c_base64(crc32c::crc32c(&octets)),
        sommes_parties.len()
    )
}

/// La somme CRC32C d'une tranche de fichier, lue en flux juste avant son envoi (la somme part
/// dans l'en-tête `x-amz-checksum-crc32c`, que le serveur vérifie à réception). Le corps envoyé
/// recalcule la même somme au passage : un écart dit que le fichier a changé entre les deux
/// lectures. Les deux lectures d'une tranche (quelques Mio) se suivent : la seconde vient du
/// cache du système.
pub(crate) async fn somme_crc32c(
    fichier: FichierAttendu<'_>,
    debut: u64,
    longueur: u64,
) -> std::io::Result<u32> {
    lire_tranche(fichier, debut, longueur, 0u32, |crc, t| {
        *crc = crc32c::crc32c_append(*crc, t)
    })
    .await
}

/// CRC32C et MD5 d'une tranche, en une lecture. Le MD5 sert là où seul l'ETag d'un PUT peut
/// être vérifié (URL signées Vigie-Chiro : aucun en-tête de somme n'y est signé).
pub(crate) async fn sommes_crc32c_md5(
    fichier: FichierAttendu<'_>,
    debut: u64,
    longueur: u64,
) -> std::io::Result<(u32, String)> {
    use md5::Digest;
    let (crc, md5) = lire_tranche(
        fichier,
        debut,
        longueur,
        (0u32, md5::Md5::new()),
        |(crc, md5), t| {
            *crc = crc32c::crc32c_append(*crc, t);
            md5.update(t);
        },
    )
    .await?;
    let hex: String = md5.finalize().iter().map(|o| format!("{o:02x}")).collect();
    Ok((crc, hex))
}

/// Lit une tranche d'un bout à l'autre dans une seule tâche bloquante. Une lecture asynchrone
/// de tokio change de fil à chaque tampon (32 allers-retours pour une partie de 8 Mio) : sur le
/// banc `debit.sh`, lire d'un bloc a ôté 44 % des changements de contexte et 17 % du temps CPU
/// de vigie (voir BENCHMARKS.md).
///
/// Si l'appelant abandonne (Ctrl-C, délai), la lecture s'arrête au tampon suivant : une tranche
/// peut faire des gigaoctets (`--seuil-multipart`), et l'arrêt du programme attend les tâches
/// bloquantes.
pub(crate) async fn lire_tranche<S: Send + 'static>(
    fichier: FichierAttendu<'_>,
    debut: u64,
    longueur: u64,
    etat: S,
    recevoir: impl FnMut(&mut S, &[u8]) + Send + 'static,
) -> std::io::Result<S> {
    /// Lève le drapeau d'abandon quand le futur est lâché avant la fin de la lecture.
    struct Abandon(Arc<AtomicBool>);
    impl Drop for Abandon {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let abandon = Abandon(Arc::new(AtomicBool::new(false)));
    let abandonnee = Arc::clone(&abandon.0);
    let chemin = fichier.chemin.to_path_buf();
    let identite = fichier.identite.map(str::to_owned);
    let entete = fichier.entete().map(|(e, d)| (e.to_vec(), d));
    tokio::task::spawn_blocking(move || {
        let mut fichier = FichierAttendu::nouveau(&chemin, identite.as_deref());
        if let Some((e, d)) = &entete {
            fichier = fichier.avec_entete(e, *d);
        }
        lire_tranche_bloquant(fichier, debut, longueur, etat, recevoir, &abandonnee)
    })
    .await
    .map_err(std::io::Error::other)?
}

fn lire_tranche_bloquant<S>(
    fichier: FichierAttendu<'_>,
    debut: u64,
    longueur: u64,
    mut etat: S,
    mut recevoir: impl FnMut(&mut S, &[u8]),
    abandonnee: &AtomicBool,
) -> std::io::Result<S> {
    use std::io::{Read, Seek};
    let plage = fichier.plage(debut, longueur);
    let mut fichier = fichier.ouvrir()?;
    if !plage.entete.is_empty() {
        recevoir(&mut etat, plage.entete);
    }
    if plage.debut > 0 {
        fichier.seek(SeekFrom::Start(plage.debut))?;
    }
    let mut tampon = vec![0u8; TAMPON_OCTETS.min(plage.longueur as usize).max(1)];
    let mut restant = plage.longueur;
    while restant > 0 {
        if abandonnee.load(Ordering::Relaxed) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "lecture abandonnée",
            ));
        }
        let a_lire = tampon.len().min(restant as usize);
        let lu = match fichier.read(&mut tampon[..a_lire]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if lu == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "le fichier est plus court que prévu : il a changé depuis la planification",
            ));
        }
        recevoir(&mut etat, &tampon[..lu]);
        restant -= lu as u64;
    }
    Ok(etat)
}

/// La somme d'un objet assemblé à partir de parties, sous les formes qu'un service S3 peut
/// rendre : composite (« …-N », celle d'AWS par défaut pour CRC32C), la même valeur composite
/// sans son suffixe « -N » (moto 5.2), ou celle de l'objet entier (un envoi ouvert en
/// `FULL_OBJECT`). Toutes se déduisent des sommes des parties, sans relire le fichier. La
/// valeur composite sans suffixe vérifie autant que l'autre : c'est la même somme des sommes
/// de toutes les parties, seul le nombre de parties n'est pas répété.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SommeAssemblee {
    pub(crate) composite: String,
    pub(crate) entiere: String,
    pub(crate) parties: usize,
}

impl SommeAssemblee {
    /// `parties` : (CRC32C, taille) de chaque partie, dans l'ordre.
    pub(crate) fn depuis_parties(parties: &[(u32, u64)]) -> Self {
        let sommes: Vec<u32> = parties.iter().map(|(c, _)| *c).collect();
        let entiere = parties.iter().fold(0u32, |crc, (c, taille)| {
            crc32c::crc32c_combine(crc, *c, *taille as usize)
        });
        SommeAssemblee {
            composite: crc32c_composite(&sommes),
            entiere: crc32c_base64(entiere),
            parties: parties.len(),
        }
    }

    /// La somme rendue par le service est-elle l'une des formes attendues ?
    pub(crate) fn reconnait(&self, distante: &str) -> bool {
        let sans_suffixe = self.composite.rsplit_once('-').map(|(valeur, _)| valeur);
        distante == self.composite || distante == self.entiere || Some(distante) == sans_suffixe
    }
}

/// Une tranche `[debut, debut + longueur)` de ce qui part, lue en flux : d'un fichier, ou d'une
/// séquence préparée au fil de l'envoi (son en-tête en mémoire, puis une plage de l'original :
/// voir `FichierAttendu::plage`).
pub(crate) struct CorpsFichier {
    /// Les octets de l'en-tête qui partent avant ceux du fichier (souvent aucun).
    entete: Bytes,
    fichier: tokio::fs::File,
    restant: u64,
    longueur: u64,
    tampon: Vec<u8>,
    progression: Arc<Progression>,
    /// Sous une limite de débit : octets déjà réservés dans le seau et pas encore lus.
    admis: u64,
    /// L'attente en cours de la limite de débit.
    attente: Option<Pin<Box<dyn Future<Output = ()> + Send + Sync>>>,
}

impl CorpsFichier {
    pub(crate) async fn ouvrir(
        fichier: FichierAttendu<'_>,
        debut: u64,
        longueur: u64,
        progression: Arc<Progression>,
    ) -> std::io::Result<Self> {
        let plage = fichier.plage(debut, longueur);
        let mut fichier = tokio::fs::File::from_std(fichier.ouvrir()?);
        if plage.debut > 0 {
            fichier.seek(SeekFrom::Start(plage.debut)).await?;
        }
        progression.attendre_corps(longueur);
        Ok(CorpsFichier {
            entete: Bytes::copy_from_slice(plage.entete),
            fichier,
            restant: longueur,
            longueur,
            tampon: vec![0; TAMPON_OCTETS.min(longueur as usize).max(1)],
            progression,
            admis: 0,
            attente: None,
        })
    }
}

impl Drop for CorpsFichier {
    /// Un corps lâché pendant qu'il attend la limite de débit n'attend plus : sans cela, le
    /// temps retenu de sa tentative grandirait sans fin, et ni le délai de la tentative ni la
    /// surveillance du blocage ne partiraient plus.
    fn drop(&mut self) {
        if self.attente.take().is_some() {
            self.progression.retenir(false);
        }
    }
}

impl Body for CorpsFichier {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.restant == 0 {
            return Poll::Ready(None);
        }
        let mut a_lire = this.tampon.len().min(this.restant as usize);
        if let Some(limite) = this.progression.limite.clone() {
            if this.admis == 0 && this.attente.is_none() {
                this.admis = (limite.tranche() as u64).min(this.restant);
                let attente = limite.reserver(this.admis);
                if !attente.is_zero() {
                    this.progression.retenir(true);
                    this.attente = Some(limite.dormir(attente));
                }
            }
            if let Some(attente) = this.attente.as_mut() {
                if attente.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.attente = None;
                this.progression.retenir(false);
            }
            a_lire = a_lire.min(this.admis as usize);
        }
        if !this.entete.is_empty() {
            let morceau = this.entete.split_to(a_lire.min(this.entete.len()));
            this.progression.lu(&morceau);
            this.restant -= morceau.len() as u64;
            this.admis = this.admis.saturating_sub(morceau.len() as u64);
            return Poll::Ready(Some(Ok(Frame::data(morceau))));
        }
        let mut tampon = ReadBuf::new(&mut this.tampon[..a_lire]);
        match Pin::new(&mut this.fichier).poll_read(cx, &mut tampon) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Ready(Ok(())) => {
                let lu = tampon.filled();
                if lu.is_empty() {
                    return Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!(
                            "le fichier a raccourci pendant l'envoi ({} octets manquent)",
                            this.restant
                        ),
                    ))));
                }
                this.progression.lu(lu);
                this.restant -= lu.len() as u64;
                this.admis = this.admis.saturating_sub(lu.len() as u64);
                Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(lu)))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.restant == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(if self.longueur == 0 { 0 } else { self.restant })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lire_tout(mut corps: CorpsFichier) -> std::io::Result<Vec<u8>> {
        let mut tout = Vec::new();
        while let Some(trame) = std::future::poll_fn(|cx| Pin::new(&mut corps).poll_frame(cx)).await
        {
            if let Ok(donnees) = trame?.into_data() {
                tout.extend_from_slice(&donnees);
            }
        }
        Ok(tout)
    }

    #[tokio::test]
    async fn la_tranche_demandee_est_lue() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        let contenu: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&chemin, &contenu).unwrap();
        let p = Progression::nouveau();
        let corps = CorpsFichier::ouvrir(
            FichierAttendu::nouveau(&chemin, None),
            1000,
            600_000,
            p.clone(),
        )
        .await
        .unwrap();
        assert_eq!(corps.size_hint().exact(), Some(600_000));
        let lu = lire_tout(corps).await.unwrap();
        assert_eq!(lu, &contenu[1000..601_000]);
        assert_eq!(p.octets(), 600_000);
    }

    /// Deux corps partagent une limite de 2 Mo/s sur une horloge simulée : le temps simulé
    /// qu'il leur faut est celui de la limite pour leurs octets réunis (à une tranche près,
    /// celle que le seau tient d'avance), et chaque octet arrive intact.
    #[tokio::test]
    async fn deux_corps_sous_une_limite_partagee() {
        use super::super::debit::{DebitMax, LimiteDebit, tests::HorlogeSimulee};
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        let contenu: Vec<u8> = (0..1_500_000u32).map(|i| (i % 241) as u8).collect();
        std::fs::write(&chemin, &contenu).unwrap();
        let horloge = HorlogeSimulee::default();
        let limite = Arc::new(LimiteDebit::avec_horloge(
            DebitMax::analyser("2Mo/s").unwrap(),
            Box::new(horloge.clone()),
        ));
        let tranche = limite.tranche() as u64;
        let (pa, pb) = (
            Progression::sous_limite(Some(Arc::clone(&limite))),
            Progression::sous_limite(Some(Arc::clone(&limite))),
        );
        let a = CorpsFichier::ouvrir(
            FichierAttendu::nouveau(&chemin, None),
            0,
            1_500_000,
            pa.clone(),
        );
        let b = CorpsFichier::ouvrir(
            FichierAttendu::nouveau(&chemin, None),
            0,
            1_500_000,
            pb.clone(),
        );
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        let (la, lb) = tokio::join!(lire_tout(a), lire_tout(b));
        assert_eq!(la.unwrap(), contenu);
        assert_eq!(lb.unwrap(), contenu);
        let total = pa.octets() + pb.octets();
        assert_eq!(total, 3_000_000);
        // Le seau tient une tranche d'avance ; la dernière réservation ne se lit qu'à la fin
        // de son attente, que l'horloge simulée a comptée.
        let attendu_us = (total - tranche) * 1_000_000 / 2_000_000;
        let ecoule_us = horloge.micros();
        assert!(
            ecoule_us >= attendu_us && ecoule_us <= attendu_us + tranche / 2,
            "{ecoule_us} µs simulées pour {total} octets à 2 Mo/s (attendu ≈ {attendu_us})"
        );
    }

    #[tokio::test]
    async fn somme_d_une_tranche_et_fichier_trop_court() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        let contenu: Vec<u8> = (0..700_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(&chemin, &contenu).unwrap();
        // Une tranche qui traverse plusieurs tampons de lecture.
        assert_eq!(
            somme_crc32c(FichierAttendu::nouveau(&chemin, None), 12_345, 600_000)
                .await
                .unwrap(),
            crc32c::crc32c(&contenu[12_345..612_345])
        );
        let (crc, md5) = sommes_crc32c_md5(FichierAttendu::nouveau(&chemin, None), 0, 700_000)
            .await
            .unwrap();
        assert_eq!(crc, crc32c::crc32c(&contenu));
        assert_eq!(md5.len(), 32);
        // Le fichier a raccourci depuis la planification : erreur, pas une somme fausse.
        let e = somme_crc32c(FichierAttendu::nouveau(&chemin, None), 600_000, 200_000)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("plus court"));
        assert!(
            somme_crc32c(
                FichierAttendu::nouveau(&dir.path().join("absent.wav"), None),
                0,
                1
            )
            .await
            .is_err()
        );
    }

    #[test]
    fn lecture_abandonnee_s_arrete_au_tampon_suivant() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        std::fs::write(&chemin, vec![7u8; 3 * TAMPON_OCTETS]).unwrap();
        let abandonnee = AtomicBool::new(false);
        let mut tampons = 0;
        let e = lire_tranche_bloquant(
            FichierAttendu::nouveau(&chemin, None),
            0,
            3 * TAMPON_OCTETS as u64,
            (),
            |_, _| {
                tampons += 1;
                abandonnee.store(true, Ordering::Relaxed);
            },
            &abandonnee,
        )
        .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
        assert_eq!(tampons, 1, "la lecture a continué après l'abandon");
    }

    /// Une séquence préparée au fil de l'envoi : son en-tête en mémoire, puis une plage de
    /// l'original ; le corps, la somme et toute tranche qui chevauche l'en-tête rendent les
    /// octets de la séquence telle qu'écrite sur un disque.
    #[tokio::test]
    async fn une_sequence_preparee_se_lit_comme_le_fichier_qu_elle_serait() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("original.wav");
        let original: Vec<u8> = (0..900_000u32).map(|i| (i % 239) as u8).collect();
        std::fs::write(&chemin, &original).unwrap();
        let entete: Vec<u8> = (0..44u8).map(|i| 200 - i).collect();
        let (debut_source, pcm) = (100_000u64, 600_000u64);
        let mut sequence = entete.clone();
        sequence.extend_from_slice(&original[100_000..700_000]);
        let f = FichierAttendu::nouveau(&chemin, None).avec_entete(&entete, debut_source);
        let taille = sequence.len() as u64;
        let p = Progression::nouveau();
        let corps = CorpsFichier::ouvrir(f, 0, taille, p.clone()).await.unwrap();
        assert_eq!(corps.size_hint().exact(), Some(taille));
        assert_eq!(lire_tout(corps).await.unwrap(), sequence);
        assert_eq!(p.octets(), taille);
        assert_eq!(pcm + 44, taille);
        for (debut, longueur) in [(0u64, 10u64), (30, 300_000), (44, 1000), (500_000, 100_044)] {
            let corps = CorpsFichier::ouvrir(f, debut, longueur, Progression::nouveau())
                .await
                .unwrap();
            let (d, l) = (debut as usize, longueur as usize);
            assert_eq!(lire_tout(corps).await.unwrap(), &sequence[d..d + l]);
            assert_eq!(
                somme_crc32c(f, debut, longueur).await.unwrap(),
                crc32c::crc32c(&sequence[d..d + l])
            );
        }
        let (_, md5) = sommes_crc32c_md5(f, 0, taille).await.unwrap();
        let (_, md5_ecrite) = {
            let ecrite = dir.path().join("sequence.wav");
            std::fs::write(&ecrite, &sequence).unwrap();
            sommes_crc32c_md5(FichierAttendu::nouveau(&ecrite, None), 0, taille)
                .await
                .unwrap()
        };
        assert_eq!(md5, md5_ecrite);
    }

    #[tokio::test]
    async fn fichier_raccourci_echoue() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f.wav");
        std::fs::write(&chemin, [1u8; 100]).unwrap();
        let corps = CorpsFichier::ouvrir(
            FichierAttendu::nouveau(&chemin, None),
            0,
            200,
            Progression::nouveau(),
        )
        .await
        .unwrap();
        let e = lire_tout(corps).await.unwrap_err();
        assert!(e.to_string().contains("raccourci"));
    }

    #[tokio::test]
    async fn md5_de_reference() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("f");
        std::fs::write(&chemin, b"xx123456789").unwrap();
        let (crc, md5) = sommes_crc32c_md5(FichierAttendu::nouveau(&chemin, None), 2, 9)
            .await
            .unwrap();
        assert_eq!(crc, 0xE306_9283);
        assert_eq!(md5, "25f9e794323b453885f5181f1b624d0b");
    }

    #[test]
    fn somme_assemblee_sous_ses_trois_formes() {
        let contenu: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let (a, b) = contenu.split_at(200_000);
        let s = SommeAssemblee::depuis_parties(&[
            (crc32c::crc32c(a), a.len() as u64),
            (crc32c::crc32c(b), b.len() as u64),
        ]);
        assert_eq!(s.entiere, crc32c_base64(crc32c::crc32c(&contenu)));
        assert!(s.composite.ends_with("-2"));
        assert!(s.reconnait(&s.entiere) && s.reconnait(&s.composite));
        // La forme de moto : la valeur composite sans « -2 ».
        let (valeur, _) = s.composite.rsplit_once('-').unwrap();
        assert!(s.reconnait(valeur));
        assert!(!s.reconnait("AAAAAA==") && !s.reconnait("") && !s.reconnait("-2"));
        assert!(!s.reconnait(&format!("{valeur}-3")));
    }

    #[test]
    fn sommes() {
        // Valeur de référence : CRC32C("123456789") = 0xE3069283.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c_base64(0xE306_9283), "4waSgw==");
        assert_eq!(crc32c_depuis_base64("4waSgw=="), Some(0xE306_9283));
        assert_eq!(crc32c_depuis_base64("pas du base64"), None);
        assert!(crc32c_composite(&[1, 2]).ends_with("-2"));
    }
}

/// Le corps d'une réponse dépasse le plafond de lecture.
#[derive(Debug, thiserror::Error)]
#[error("réponse trop grande : plus de {0} octets")]
pub(crate) struct CorpsTropGrand(pub(crate) usize);

/// Un corps de réponse lu sous un plafond : au-delà de `max` octets, la lecture échoue
/// ([`CorpsTropGrand`]) au lieu de tout charger en mémoire.
pub(crate) struct CorpsPlafonne<B> {
    inner: B,
    lu: usize,
    max: usize,
}

impl<B> CorpsPlafonne<B> {
    pub(crate) fn nouveau(inner: B, max: usize) -> Self {
        CorpsPlafonne { inner, lu: 0, max }
    }
}

impl<B> Body for CorpsPlafonne<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.lu > self.max {
            return Poll::Ready(None);
        }
        match std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
            Some(Ok(trame)) => {
                if let Some(d) = trame.data_ref() {
                    reponse_lue(d.len());
                    self.lu = self.lu.saturating_add(d.len());
                    if self.lu > self.max {
                        return Poll::Ready(Some(Err(Box::new(CorpsTropGrand(self.max)))));
                    }
                }
                Poll::Ready(Some(Ok(trame)))
            }
            Some(Err(e)) => Poll::Ready(Some(Err(e.into()))),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.lu > self.max || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        // Pas de longueur annoncée au-delà du plafond : elle ne sera pas lue.
        let mut h = SizeHint::new();
        if let Some(n) = self.inner.size_hint().exact()
            && n <= self.max as u64
        {
            h.set_exact(n);
        }
        h
    }
}
