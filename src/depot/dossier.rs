//! La destination `dossier:CHEMIN` : un dossier local ou réseau (le disque externe ou le NAS
//! où l'on archive ses cartes avant de les effacer pour la nuit suivante), avec le même plan,
//! la même reprise et la même relecture que les autres destinations.
//!
//! Chaque fichier part sous son chemin relatif (la clé), écrit d'abord dans un provisoire
//! caché du même dossier (`.NOM.vigie-provisoire`, jamais une séquence ; caché sous Windows
//! aussi, `plateforme::provisoire`), mis sur le disque
//! (`sync`), puis renommé d'un coup à sa place : un arrêt brutal laisse au pis ce provisoire,
//! que la relance réécrit, jamais un fichier à moitié écrit sous son vrai nom. Le fichier
//! renommé est relu et sa somme CRC32C comparée à celle de ce qui est parti : l'unité n'est
//! `deposee` qu'une fois cette somme vérifiée ; `vigie verifier` la relit de même.
//!
//! Une erreur du dossier passe par la même politique de réessai qu'une émission réseau : un
//! partage momentanément absent (disque débranché, NAS injoignable) est passager, sondé
//! jusqu'à son retour comme un réseau coupé ; un disque plein ou un dossier en lecture seule
//! est un refus qui vaut pour tout le dossier : il arrête le passage (les fichiers suivants
//! n'écrivent rien), et dit quoi faire. Un fichier déjà à sa place, de même taille et de même
//! somme, ne repart pas.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::Result;
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, LocalBoxFuture};

use super::fabrique::{
    AvantLEnvoi, DepositaireDuPlan, Destination, Fabrique, Inscription, OptionsAdresse,
    ReglagesDestination,
};
use super::relecture::verification::{Constat, Constats, Relecture, constater_toutes};
use super::{
    ContexteUnite, Depositaire, IssueUnite, RefusLu, Resultat, echec_de, echec_local,
    echec_si_fichier_change,
};
use crate::destination::{ErreurDestination, PartieDuBilan, chemin_sur};
use crate::plan::{CauseRefus, DepotPlan, DepotUnite};
use crate::plateforme::chemins::local;
use crate::plateforme::disque::{en_lecture_seule, place_libre};
use crate::plateforme::{FichierAttendu, erreur_systeme};
use crate::reessai::{Profil, Rejouabilite, ReponseApi};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::texte::octets_lisibles;
use crate::transport::corps::{crc32c_base64, lire_tranche, somme_crc32c};
use crate::transport::{AnnoncesReseau, Emetteur, Emission, emettre};

/// Le préfixe de l'adresse.
const PREFIXE: &str = "dossier:";
/// Le suffixe du provisoire d'un fichier, écrit à côté de lui.
const PROVISOIRE: &str = ".vigie-provisoire";

pub(crate) const INSCRIPTION: Inscription = Inscription {
    sorte: "dossier",
    forme_vers: Some("dossier:CHEMIN"),
    analyser_vers,
    relire: |identite| DestinationDossier::relire(identite).map(Destination::from),
    conseil,
    geste_identifiants: || "vérifiez vos droits d'écriture sur le dossier".to_owned(),
    geste_relecture_refusee: || "vérifiez que vous avez le droit de lire le dossier".to_owned(),
};

fn conseil(cause: CauseRefus) -> Option<Cow<'static, str>> {
    Some(Cow::Borrowed(match cause {
        CauseRefus::Droits => {
            "le dossier est en lecture seule, ou vous n'avez pas le droit d'y écrire : \
             choisissez un autre dossier, ou corrigez ses droits (disque protégé en écriture ?)"
        }
        CauseRefus::Stockage => {
            "le disque du dossier est plein : libérez de la place, ou déposez sur un autre disque"
        }
        CauseRefus::Contenu => {
            "le fichier relu dans le dossier n'est pas celui qui est parti : vérifiez le disque"
        }
        _ => return None,
    }))
}

/// Un dossier de destination, par son chemin absolu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DestinationDossier {
    racine: PathBuf,
}

fn analyser_vers(adresse: &str, _: OptionsAdresse<'_>) -> Option<Result<Destination>> {
    let chemin = adresse.strip_prefix(PREFIXE)?;
    Some(DestinationDossier::analyser(adresse, chemin).map(Destination::from))
}

impl DestinationDossier {
    /// `dossier:CHEMIN` donné par l'utilisateur : un dossier qui existe (rien n'est créé à
    /// l'aveugle à la place d'un disque qui n'est pas branché), écrit en chemin absolu.
    fn analyser(adresse: &str, chemin: &str) -> Result<Self> {
        let refus = |raison: String| -> anyhow::Error {
            ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                format!("destination « {adresse} » : {raison} ; rien n'a été envoyé"),
            )
            .into()
        };
        if chemin.is_empty() {
            return Err(refus(
                "attendu dossier:CHEMIN, le dossier (disque externe, partage réseau) qui reçoit \
                 la nuit"
                    .into(),
            ));
        }
        let racine: PathBuf = std::path::absolute(chemin)
            .map_err(|e| refus(erreur_systeme(&e)))?
            .components()
            .collect();
        if racine.to_str().is_none() {
            return Err(refus(
                "chemin qui n'est pas de l'Unicode : renommez le dossier".into(),
            ));
        }
        match std::fs::metadata(&racine) {
            Ok(m) if m.is_dir() => Ok(DestinationDossier { racine }),
            Ok(_) => Err(refus(format!("{} n'est pas un dossier", racine.display()))),
            Err(e) => Err(refus(format!(
                "{} est introuvable ({}) : branchez le disque ou le partage, ou créez le \
                 dossier, puis relancez",
                racine.display(),
                erreur_systeme(&e)
            ))),
        }
    }

    /// Relit une identité écrite par [`Fabrique::identite`] (le dossier peut être absent :
    /// il est cherché au premier envoi).
    fn relire(identite: &str) -> Result<Self, ErreurDestination> {
        match identite.strip_prefix(PREFIXE) {
            Some(chemin) if !chemin.is_empty() => Ok(DestinationDossier {
                racine: PathBuf::from(chemin),
            }),
            _ => Err(ErreurDestination::Forme(identite.to_owned())),
        }
    }
}

impl Fabrique for DestinationDossier {
    fn inscription(&self) -> &'static Inscription {
        &INSCRIPTION
    }

    fn identite(&self) -> String {
        format!("{PREFIXE}{}", self.racine.display())
    }

    fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        if chemin_sur(chemin) {
            Ok(chemin.to_owned())
        } else {
            Err(ErreurDestination::Cle(chemin.to_owned()))
        }
    }

    /// Avant le premier envoi : le dossier est là, s'écrit, et son disque a la place de ce
    /// qui reste à déposer. Sinon rien ne part, et le message dit quoi faire.
    fn depositaire<'a>(
        &'a self,
        avant: AvantLEnvoi<'a>,
    ) -> LocalBoxFuture<'a, Result<DepositaireDuPlan>> {
        async move {
            let racine = &self.racine;
            let arret = |code, pourquoi: String| -> anyhow::Error {
                ErreurAvecCode::nouveau(code, format!("{pourquoi} ; rien n'a été envoyé")).into()
            };
            if let Err(e) = std::fs::metadata(racine) {
                return Err(arret(
                    CodeSortie::EchecsTransitoires,
                    format!(
                        "le dossier {} est introuvable ({}) : rebranchez le disque ou le partage \
                         réseau, puis relancez la même commande",
                        racine.display(),
                        erreur_systeme(&e)
                    ),
                ));
            }
            if en_lecture_seule(racine) {
                return Err(arret(
                    CodeSortie::RefusDefinitifs,
                    format!(
                        "le dossier {} est en lecture seule : choisissez un autre dossier, ou \
                         ôtez la protection en écriture du disque, puis relancez",
                        racine.display()
                    ),
                ));
            }
            let resume = avant.base.resume(avant.plan.id)?;
            let reste = resume.octets_total.saturating_sub(resume.octets_deposes);
            if let Ok(libre) = place_libre(racine)
                && libre < reste
            {
                return Err(arret(
                    CodeSortie::RefusDefinitifs,
                    format!(
                        "le disque du dossier {} n'a que {} de libre pour {} à déposer : \
                         libérez de la place, ou déposez sur un autre disque, puis relancez",
                        racine.display(),
                        octets_lisibles(libre),
                        octets_lisibles(reste)
                    ),
                ));
            }
            Ok(DepositaireDuPlan::nouveau(DepositaireDossier {
                racine: racine.clone(),
                refus: OnceLock::new(),
                disque: Arc::new(DisqueReel),
            }))
        }
        .boxed_local()
    }

    fn relecture<'a>(
        &'a self,
        _plan: &'a DepotPlan,
        _reglages: &'a ReglagesDestination,
    ) -> LocalBoxFuture<'a, Result<Box<dyn Relecture>>> {
        let relecture = RelectureDossier {
            racine: Arc::new(self.racine.clone()),
        };
        async move { Ok(Box::new(relecture) as Box<dyn Relecture>) }.boxed_local()
    }
}

/// Le dépôt dans un dossier.
struct DepositaireDossier {
    racine: PathBuf,
    /// Le premier refus qui vaut pour tout le dossier (disque plein, lecture seule, droits) :
    /// il arrête le passage, les fichiers suivants échouent de même sans rien écrire (chacun
    /// aurait rempli un provisoire jusqu'à la même erreur). `vigie retenter-echecs` les
    /// reprend une fois la place faite.
    refus: OnceLock<(CauseRefus, String)>,
    disque: Arc<dyn Disque>,
}

/// Les gestes d'une copie sur le disque du dossier, dans l'ordre : créer le provisoire, y
/// écrire chaque tranche, le mettre sur le disque, le renommer à sa place, relire le fichier
/// renommé. Le vrai disque est [`DisqueReel`] ; les essais glissent une panne à l'un de ces
/// gestes (la matrice de `tests`).
trait Disque: Send + Sync + 'static {
    fn creer(&self, provisoire: &Path) -> io::Result<std::fs::File> {
        if let Some(parent) = provisoire.parent() {
            std::fs::create_dir_all(parent)?;
        }
        crate::plateforme::provisoire::creer(provisoire, false)
    }

    fn ecrire(&self, fichier: &mut std::fs::File, tranche: &[u8]) -> io::Result<()> {
        fichier.write_all(tranche)
    }

    fn synchroniser(&self, fichier: &std::fs::File) -> io::Result<()> {
        fichier.sync_all()
    }

    fn renommer(&self, provisoire: &Path, cible: &Path) -> io::Result<()> {
        crate::plateforme::provisoire::montrer(provisoire)?;
        std::fs::rename(provisoire, cible)
    }

    /// La somme CRC32C des `taille` premiers octets du fichier renommé, relus sur le disque.
    fn relire<'a>(&'a self, cible: &'a Path, taille: u64) -> BoxFuture<'a, io::Result<u32>> {
        somme_crc32c(FichierAttendu::nouveau(cible, None), 0, taille).boxed()
    }
}

/// Le disque tel qu'il est.
struct DisqueReel;

impl Disque for DisqueReel {}

/// Ce qu'une copie a rencontré et que réessayer ne changerait pas.
enum CopieRefusee {
    /// Le fichier de la nuit ne se lit pas.
    Local(io::Error),
    /// Le dossier refuse l'écriture (disque plein, lecture seule, droits).
    Dossier { cause: CauseRefus, message: String },
}

impl Depositaire for DepositaireDossier {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        let unite = ctx.unite;
        let fichier = ctx.fichier();
        let cible = local(&self.racine, &unite.cle);
        if let Some(issue) = deja_la(&cible, fichier, unite.taille).await {
            // Le provisoire d'une copie arrêtée après son renommage n'existe plus ; celui d'une
            // copie faite à la main à côté, s'il y en a un, ne sert plus.
            let _ = tokio::fs::remove_file(provisoire_de(&cible)).await;
            return Ok(issue);
        }
        let Some(place) = ctx.place_de_transfert().await else {
            return Ok(IssueUnite::Interrompue);
        };
        if let Some((cause, message)) = self.refus.get() {
            return Ok(IssueUnite::Echec {
                definitif: true,
                cause: *cause,
                message: format!("{message} ; ce fichier n'est pas parti"),
            });
        }
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "Copie",
                &unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |progression| {
                let (racine, cible) = (&self.racine, &cible);
                async move {
                    // Chaque tranche écrite fait avancer la tentative ; `--debit-max` borne
                    // aussi l'écriture dans le dossier (un NAS partagé sur le même lien), et
                    // son attente ne compte pas dans le délai de la tentative.
                    let avancer = move |octets: usize| {
                        progression.avancer_sous_la_limite_bloquant(octets as u64);
                    };
                    let disque = Arc::clone(&self.disque);
                    match copier(disque, fichier, unite.taille, cible, avancer).await {
                        Ok(somme) => ReponseApi::Succes(Ok(somme)),
                        Err(Copie::Refusee(refus)) => ReponseApi::Succes(Err(refus)),
                        Err(Copie::Ecriture(e)) => passagere_ou_refus(racine, &e),
                    }
                }
            },
        )
        .await;
        // Retenu avant de rendre la place : l'unité qui la prend ensuite voit le refus et
        // n'écrit rien.
        if let ReponseApi::Succes(Err(CopieRefusee::Dossier { cause, message })) = &issue.reponse
            && matches!(cause, CauseRefus::Stockage | CauseRefus::Droits)
            && self.refus.set((*cause, message.clone())).is_ok()
        {
            tracing::warn!(
                "le dossier refuse ce dépôt ({message}) : les fichiers suivants ne partent pas"
            );
        }
        drop(place);
        if !matches!(issue.reponse, ReponseApi::Succes(Ok(_))) {
            // Un provisoire laissé par une copie qui n'a pas abouti ne sert plus : sur un
            // disque plein, c'est la place qu'il rend.
            let _ = tokio::fs::remove_file(provisoire_de(&cible)).await;
        }
        if let Some(echec) = echec_si_fichier_change(fichier.chemin, unite) {
            return Ok(echec);
        }
        Ok(match issue.reponse {
            ReponseApi::Succes(Ok(crc32c)) => {
                ctx.octets_envoyes(unite.taille);
                IssueUnite::Deposee { crc32c, etag: None }
            }
            ReponseApi::Succes(Err(CopieRefusee::Local(e))) => echec_local(&e),
            ReponseApi::Succes(Err(CopieRefusee::Dossier { cause, message })) => {
                IssueUnite::Echec {
                    definitif: true,
                    cause,
                    message,
                }
            }
            _ => echec_de(&issue, lire_refus),
        })
    }

    /// Le dossier est-il là ? (Un partage réseau revenu, un disque rebranché.)
    async fn sonder(&self) -> ReponseApi<()> {
        match tokio::fs::metadata(&self.racine).await {
            Ok(m) if m.is_dir() => ReponseApi::Succes(()),
            _ => introuvable(&self.racine),
        }
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        PartieDuBilan::default()
    }
}

/// Un refus que la politique a arrêté : le dossier ne donne pas de statut, tout ce qui n'est
/// pas une copie refusée est passager.
fn lire_refus(_statut: u16, _detail: &str) -> RefusLu {
    RefusLu {
        cause: CauseRefus::Stockage,
        definitif: false,
    }
}

fn introuvable<T>(racine: &Path) -> ReponseApi<T> {
    ReponseApi::Injoignable {
        a_pu_atteindre: false,
        detail: format!(
            "dossier {} introuvable (disque débranché, partage réseau absent ?)",
            racine.display()
        ),
    }
}

/// Une erreur d'écriture dans le dossier : un refus (disque plein, lecture seule, droits), ou
/// un incident passager (le partage a disparu, le réseau du NAS a coupé), que la politique
/// rejoue comme une coupure.
fn passagere_ou_refus(racine: &Path, e: &io::Error) -> ReponseApi<Result<String, CopieRefusee>> {
    use io::ErrorKind as K;
    let refus = |cause, quoi: &str| {
        ReponseApi::Succes(Err(CopieRefusee::Dossier {
            cause,
            message: format!("{quoi} ({}) : {}", racine.display(), erreur_systeme(e)),
        }))
    };
    match e.kind() {
        K::StorageFull | K::QuotaExceeded | K::FileTooLarge => {
            refus(CauseRefus::Stockage, "disque du dossier plein")
        }
        K::ReadOnlyFilesystem | K::PermissionDenied => {
            refus(CauseRefus::Droits, "dossier en lecture seule")
        }
        _ if std::fs::metadata(racine).is_err() => introuvable(racine),
        _ => ReponseApi::Injoignable {
            a_pu_atteindre: true,
            detail: format!("écriture dans le dossier : {}", erreur_systeme(e)),
        },
    }
}

/// Pourquoi une copie n'a pas abouti.
enum Copie {
    Refusee(CopieRefusee),
    /// Une écriture du dossier a échoué : à classer ([`passagere_ou_refus`]).
    Ecriture(io::Error),
}

/// Copie ce qui part dans un provisoire caché à côté de `cible`, le met sur le disque, le
/// renomme à sa place, puis relit le fichier renommé : rend sa somme CRC32C (base64), celle
/// de ce qui est parti.
async fn copier(
    disque: Arc<dyn Disque>,
    fichier: FichierAttendu<'_>,
    taille: u64,
    cible: &Path,
    avancer: impl Fn(usize) + Send + 'static,
) -> Result<String, Copie> {
    let provisoire = provisoire_de(cible);
    let ecrit = {
        let (disque, provisoire) = (Arc::clone(&disque), provisoire.clone());
        tokio::task::spawn_blocking(move || disque.creer(&provisoire))
            .await
            .map_err(|e| Copie::Ecriture(io::Error::other(e)))?
            .map_err(Copie::Ecriture)?
    };
    // Chaque tranche lue est écrite aussitôt ; la première erreur d'écriture est gardée et
    // arrête d'écrire (la lecture, elle, va au bout).
    let ecrivain = Arc::clone(&disque);
    let (ecrit, crc, erreur) = lire_tranche(
        fichier,
        0,
        taille,
        (ecrit, 0u32, None::<io::Error>),
        move |(f, crc, erreur), tranche| {
            *crc = crc32c::crc32c_append(*crc, tranche);
            if erreur.is_none()
                && let Err(e) = ecrivain.ecrire(f, tranche)
            {
                *erreur = Some(e);
            }
            avancer(tranche.len());
        },
    )
    .await
    .map_err(|e| Copie::Refusee(CopieRefusee::Local(e)))?;
    if let Some(e) = erreur {
        return Err(Copie::Ecriture(e));
    }
    let (range, cible_possedee) = (Arc::clone(&disque), cible.to_path_buf());
    tokio::task::spawn_blocking(move || -> io::Result<()> {
        range.synchroniser(&ecrit)?;
        drop(ecrit);
        range.renommer(&provisoire, &cible_possedee)?;
        synchroniser_le_dossier(&cible_possedee);
        Ok(())
    })
    .await
    .map_err(|e| Copie::Ecriture(io::Error::other(e)))?
    .map_err(Copie::Ecriture)?;
    let echec = match disque.relire(cible, taille).await {
        Ok(relue) if relue == crc => return Ok(crc32c_base64(crc)),
        Ok(relue) => Copie::Refusee(CopieRefusee::Dossier {
            cause: CauseRefus::Contenu,
            message: format!(
                "somme différente relue dans le dossier ({} au lieu de {})",
                crc32c_base64(relue),
                crc32c_base64(crc)
            ),
        }),
        Err(e) => Copie::Ecriture(e),
    };
    // Un fichier dont la somme n'a pas été vérifiée ne reste pas sous son vrai nom : dans
    // l'archive, il passerait pour bon.
    let _ = tokio::fs::remove_file(cible).await;
    Err(echec)
}

/// Le renommage tient au dossier : il est mis sur le disque lui aussi (Unix). Un échec n'y
/// change rien de sûr : le fichier relu le dira.
fn synchroniser_le_dossier(cible: &Path) {
    #[cfg(unix)]
    if let Some(parent) = cible.parent()
        && let Ok(d) = std::fs::File::open(parent)
    {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = cible;
}

/// `.NOM.vigie-provisoire`, à côté de `cible` : caché, jamais pris pour une séquence, et le
/// même à chaque tentative (une relance réécrit celui qu'un arrêt brutal a laissé).
fn provisoire_de(cible: &Path) -> PathBuf {
    let nom = cible
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    cible.with_file_name(format!(".{nom}{PROVISOIRE}"))
}

/// Le fichier est-il déjà à sa place, de même taille et de même somme que ce qui part ?
/// (Déposé par un passage arrêté avant de l'avoir noté, ou copié à la main.)
async fn deja_la(cible: &Path, fichier: FichierAttendu<'_>, taille: u64) -> Option<IssueUnite> {
    let meta = tokio::fs::symlink_metadata(cible).await.ok()?;
    if !meta.is_file() || meta.len() != taille {
        return None;
    }
    let la = somme_crc32c(FichierAttendu::nouveau(cible, None), 0, taille)
        .await
        .ok()?;
    let ici = somme_crc32c(fichier, 0, taille).await.ok()?;
    (la == ici).then(|| IssueUnite::DejaPresente {
        crc32c: crc32c_base64(ici),
        etag: None,
        comparee: true,
    })
}

/// `vigie verifier` : chaque fichier relu dans le dossier, sa taille et sa somme comparées à
/// celles notées au dépôt.
struct RelectureDossier {
    racine: Arc<PathBuf>,
}

impl Relecture for RelectureDossier {
    fn relire<'a>(
        &'a self,
        deposees: Vec<DepotUnite>,
        _emetteur: &'a Arc<Emetteur>,
        _annonces: &'a dyn AnnoncesReseau,
    ) -> BoxFuture<'a, Result<Constats>> {
        let racine = Arc::clone(&self.racine);
        Box::pin(constater_toutes(deposees, move |unite| {
            let racine = Arc::clone(&racine);
            async move {
                let constat = constater(&racine, &unite).await;
                (unite, constat)
            }
        }))
    }
}

async fn constater(racine: &Path, unite: &DepotUnite) -> Constat {
    if tokio::fs::metadata(racine).await.is_err() {
        return Constat::Injoignable(format!(
            "dossier {} introuvable (disque débranché, partage réseau absent ?)",
            racine.display()
        ));
    }
    let cible = local(racine, &unite.cle);
    let meta = match tokio::fs::symlink_metadata(&cible).await {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Constat::Manquante("absent du dossier".into());
        }
        Err(e) => return Constat::Injoignable(erreur_systeme(&e)),
    };
    if !meta.is_file() {
        return Constat::Differente("ce n'est plus un fichier".into());
    }
    if meta.len() != unite.taille {
        return Constat::Differente(format!("{} octets au lieu de {}", meta.len(), unite.taille));
    }
    match somme_crc32c(FichierAttendu::nouveau(&cible, None), 0, unite.taille).await {
        Ok(relue) => {
            let relue = crc32c_base64(relue);
            match &unite.somme_controle {
                Some(notee) if *notee != relue => {
                    Constat::Differente(format!("somme {relue} au lieu de {notee}"))
                }
                _ => Constat::Intacte,
            }
        }
        Err(e) => Constat::Injoignable(format!("illisible : {}", erreur_systeme(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depot::essais_reseau::nuit;
    use crate::depot::evenements::SuiviMuet;
    use crate::depot::{Bilan, Moteur};
    use crate::plan::Base;
    use crate::reessai::{Annulation, Reglages};
    use crate::transport::{PauseReseau, ReglagesEmission};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// Le geste d'une copie où la panne tombe.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Geste {
        Creer,
        Ecrire,
        Synchroniser,
        Renommer,
        Relire,
    }

    /// La panne, une seule fois, au premier passage par ce geste.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Panne {
        /// Une erreur d'entrée-sortie passagère (EIO : le NAS a hoqueté).
        Passagere,
        /// Plus de place sur le disque.
        Pleine,
        /// Le disque passe en lecture seule (une carte ou une clé protégée, un partage
        /// remonté en lecture seule).
        LectureSeule,
        /// Le disque rend d'autres octets que ceux écrits (relecture seulement).
        Alteree,
    }

    impl Panne {
        fn erreur(self) -> io::Error {
            match self {
                Panne::Passagere => io::Error::from_raw_os_error(5),
                Panne::Pleine => io::Error::from(io::ErrorKind::StorageFull),
                Panne::LectureSeule => io::Error::from(io::ErrorKind::ReadOnlyFilesystem),
                Panne::Alteree => unreachable!("une altération n'est pas une erreur"),
            }
        }
    }

    /// Le vrai disque, avec une panne au premier passage par un geste.
    struct DisqueEnPanne {
        geste: Geste,
        panne: Panne,
        tombee: AtomicBool,
    }

    impl DisqueEnPanne {
        /// La panne tombe-t-elle sur ce geste (une seule fois) ?
        fn tombe(&self, geste: Geste) -> bool {
            geste == self.geste && !self.tombee.swap(true, Ordering::SeqCst)
        }

        fn ou(&self, geste: Geste) -> io::Result<()> {
            if self.tombe(geste) {
                Err(self.panne.erreur())
            } else {
                Ok(())
            }
        }
    }

    impl Disque for DisqueEnPanne {
        fn creer(&self, provisoire: &Path) -> io::Result<std::fs::File> {
            self.ou(Geste::Creer)?;
            DisqueReel.creer(provisoire)
        }

        fn ecrire(&self, fichier: &mut std::fs::File, tranche: &[u8]) -> io::Result<()> {
            self.ou(Geste::Ecrire)?;
            DisqueReel.ecrire(fichier, tranche)
        }

        fn synchroniser(&self, fichier: &std::fs::File) -> io::Result<()> {
            self.ou(Geste::Synchroniser)?;
            DisqueReel.synchroniser(fichier)
        }

        fn renommer(&self, provisoire: &Path, cible: &Path) -> io::Result<()> {
            self.ou(Geste::Renommer)?;
            DisqueReel.renommer(provisoire, cible)
        }

        fn relire<'a>(&'a self, cible: &'a Path, taille: u64) -> BoxFuture<'a, io::Result<u32>> {
            async move {
                let somme = DisqueReel.relire(cible, taille).await?;
                if self.panne == Panne::Alteree {
                    return Ok(if self.tombe(Geste::Relire) {
                        !somme
                    } else {
                        somme
                    });
                }
                self.ou(Geste::Relire)?;
                Ok(somme)
            }
            .boxed()
        }
    }

    /// Des réessais rapides (quelques millisecondes), pas de pause réseau.
    fn reglages_rapides() -> ReglagesEmission {
        let rapide = |r: Reglages| {
            r.avec_base(Duration::from_millis(2))
                .avec_plafond(Duration::from_millis(10))
                .avec_duree_min_tentative(Duration::ZERO)
                .valider()
                .expect("réglages")
        };
        ReglagesEmission {
            insistant: rapide(Reglages::insistant()),
            bref: rapide(Reglages::bref()),
            delai_tentative: ReglagesEmission::DELAI_TENTATIVE_PAR_DEFAUT,
            delai_blocage: ReglagesEmission::DELAI_BLOCAGE_PAR_DEFAUT,
            pause: Some(PauseReseau {
                echecs: PauseReseau::ECHECS_PAR_DEFAUT,
                attente_max: Some(Duration::from_secs(5)),
            }),
        }
    }

    /// Un passage de la nuit du plan vers `racine`, un fichier à la fois, sur ce disque.
    async fn passage(base: Base, plan: DepotPlan, racine: &Path, disque: Arc<dyn Disque>) -> Bilan {
        let depositaire = DepositaireDossier {
            racine: racine.to_path_buf(),
            refus: OnceLock::new(),
            disque,
        };
        let emetteur =
            crate::transport::Emetteur::nouveau(reglages_rapides(), Annulation::nouveau());
        let moteur = Arc::new(Moteur::nouveau(
            base,
            plan,
            depositaire,
            emetteur,
            Arc::new(SuiviMuet),
            1,
        ));
        moteur.executer().await.expect("passage")
    }

    /// Chaque fichier sous `racine`, provisoires compris, et ses octets.
    fn contenu(racine: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        let mut vus = std::collections::BTreeMap::new();
        let mut pile = vec![racine.to_path_buf()];
        while let Some(d) = pile.pop() {
            for e in std::fs::read_dir(&d).expect("dossier") {
                let chemin = e.expect("entrée").path();
                if chemin.is_dir() {
                    pile.push(chemin);
                } else {
                    let relatif = chemin.strip_prefix(racine).expect("sous la racine");
                    vus.insert(relatif.to_owned(), std::fs::read(&chemin).expect("octets"));
                }
            }
        }
        vus
    }

    /// La matrice : chaque panne, une fois, à chaque geste d'une copie, sur une nuit de trois
    /// fichiers. Ce que chaque case doit donner :
    /// - une panne passagère est rattrapée dans le passage (les trois fichiers déposés) ;
    /// - un disque plein ou en lecture seule arrête le passage : aucun fichier écrit après
    ///   lui, aucun provisoire laissé, les trois en échec définitif de la bonne cause ;
    /// - une relecture altérée refuse ce fichier (CONTENU) et le retire, les autres partent ;
    ///
    /// puis, la panne passée, un second passage (`retenter-echecs --y-compris-definitifs`)
    /// dépose tout, et le dossier contient exactement la nuit, octet pour octet, sans rien
    /// d'autre.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn matrice_chaque_panne_une_fois_a_chaque_geste_d_une_copie() {
        use Geste::*;
        use Panne::*;
        let mut cases = Vec::new();
        for geste in [Creer, Ecrire, Synchroniser, Renommer, Relire] {
            for panne in [Passagere, Pleine, LectureSeule] {
                cases.push((geste, panne));
            }
        }
        cases.push((Relire, Alteree));
        let mut ecarts = Vec::new();
        for (geste, panne) in cases {
            let (dir, base, plan) = nuit(3);
            let chemin_base = base.chemin().to_owned();
            let racine = dir.path().join("disque-externe");
            std::fs::create_dir_all(&racine).expect("disque");
            let disque = Arc::new(DisqueEnPanne {
                geste,
                panne,
                tombee: AtomicBool::new(false),
            });
            let bilan = passage(base, plan.clone(), &racine, disque.clone()).await;
            let case = format!("{geste:?} × {panne:?}");
            if !disque.tombee.load(Ordering::SeqCst) {
                ecarts.push(format!("{case} : la panne n'est jamais tombée"));
                continue;
            }
            let ecrits = contenu(&racine);
            let (deposees, echecs, cause_attendue) = match panne {
                Passagere => (3, 0, None),
                Pleine => (0, 3, Some("STOCKAGE")),
                LectureSeule => (0, 3, Some("DROITS")),
                Alteree => (2, 1, Some("CONTENU")),
            };
            if bilan.deposees != deposees || bilan.resume.echec != echecs {
                ecarts.push(format!(
                    "{case} : {} déposés, {} en échec (attendu {deposees} et {echecs})",
                    bilan.deposees, bilan.resume.echec
                ));
            }
            if ecrits.len() as u64 != deposees
                || ecrits
                    .keys()
                    .any(|c| c.to_string_lossy().contains(PROVISOIRE))
            {
                ecarts.push(format!(
                    "{case} : dans le dossier après la panne : {:?}",
                    ecrits.keys()
                ));
            }
            let base = Base::ouvrir(&chemin_base).expect("base");
            if let Some(cause) = cause_attendue {
                let causes: Vec<String> = rusqlite::Connection::open(&chemin_base)
                    .expect("base")
                    .prepare("SELECT DISTINCT cause_refus FROM depot_unite WHERE etat = 'echec'")
                    .expect("requête")
                    .query_map([], |l| l.get(0))
                    .expect("causes")
                    .map(|c| c.expect("cause"))
                    .collect();
                if causes != [cause] {
                    ecarts.push(format!("{case} : causes {causes:?}, attendu {cause}"));
                }
            }
            // La panne passée, le filet.
            base.remettre_en_file(plan.id, true)
                .expect("remise en file");
            let bilan = passage(base, plan.clone(), &racine, Arc::new(DisqueReel)).await;
            let nuit = contenu(Path::new(&plan.dossier));
            let attendu: std::collections::BTreeMap<PathBuf, Vec<u8>> = nuit
                .into_iter()
                .map(|(nom, octets)| (Path::new("nuit").join(nom), octets))
                .collect();
            if contenu(&racine) != attendu || bilan.resume.echec != 0 {
                ecarts.push(format!(
                    "{case} : après le second passage, {} en échec, dossier {:?}",
                    bilan.resume.echec,
                    contenu(&racine).keys()
                ));
            }
        }
        assert!(ecarts.is_empty(), "{}", ecarts.join("\n"));
    }

    #[test]
    fn adresse_identite_et_cles() {
        let dir = tempfile::tempdir().unwrap();
        let adresse = format!("dossier:{}/", dir.path().display());
        let d = analyser_vers(&adresse, OptionsAdresse::default())
            .expect("une adresse dossier:")
            .unwrap();
        let identite = d.identite();
        assert!(identite.starts_with("dossier:/"), "{identite}");
        assert!(!identite.ends_with('/'), "{identite}");
        assert_eq!(d.sorte().as_str(), "dossier");
        let relue = (INSCRIPTION.relire)(&identite).unwrap();
        assert_eq!(relue, d);
        assert_eq!(d.cle("sous/a.wav").unwrap(), "sous/a.wav");
        assert!(d.cle("../a.wav").is_err());
        assert!(d.fabrique::<DestinationDossier>().is_some() && !d.exige_un_jeton());
        assert!(analyser_vers("s3://nuits", OptionsAdresse::default()).is_none());
    }

    #[test]
    fn un_dossier_absent_ou_vide_est_refuse_avec_le_geste() {
        let dir = tempfile::tempdir().unwrap();
        let absent = format!("dossier:{}", dir.path().join("NAS").display());
        let e = analyser_vers(&absent, OptionsAdresse::default())
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.contains("introuvable") && e.contains("branchez"), "{e}");
        let e = analyser_vers("dossier:", OptionsAdresse::default())
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.contains("dossier:CHEMIN"), "{e}");
    }

    #[test]
    fn le_provisoire_est_cache_et_n_est_pas_une_sequence() {
        let p = provisoire_de(Path::new("/nas/nuit/Car1_20260621_221500.wav"));
        assert_eq!(
            p,
            Path::new("/nas/nuit/.Car1_20260621_221500.wav.vigie-provisoire")
        );
    }

    #[test]
    fn disque_plein_et_lecture_seule_sont_des_refus_qui_disent_quoi_faire() {
        let dir = tempfile::tempdir().unwrap();
        for (kind, cause) in [
            (io::ErrorKind::StorageFull, CauseRefus::Stockage),
            (io::ErrorKind::ReadOnlyFilesystem, CauseRefus::Droits),
        ] {
            let r = passagere_ou_refus(dir.path(), &io::Error::from(kind));
            let ReponseApi::Succes(Err(CopieRefusee::Dossier { cause: c, .. })) = r else {
                panic!("{kind:?} : un refus attendu");
            };
            assert_eq!(c, cause);
            assert!(conseil(cause).is_some());
        }
        // Le partage a disparu : passager, sondé comme une coupure.
        let r = passagere_ou_refus(&dir.path().join("absent"), &io::Error::other("EIO"));
        assert!(matches!(
            r,
            ReponseApi::Injoignable {
                a_pu_atteindre: false,
                ..
            }
        ));
    }
}
