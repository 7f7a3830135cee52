//! L'envoi en plusieurs parties, écrit une fois pour les deux destinations, à la manière du
//! `ChunkWriter` de rclone (`fs/features.go`) : chaque destination n'implémente que son
//! protocole derrière le port [`EnvoiEnParties`] — ouvrir l'envoi (en réconciliant ce que le
//! plan et la destination en savent), envoyer **une** partie, finaliser (avec relecture),
//! abandonner, oublier un envoi disparu. Tout le reste est ici : la reprise des parties déjà
//! acquittées, le découpage (et sa limite de 10 000 parties), la boucle qui envoie les autres
//! et note chacune dans le plan dès son ETag rendu, le fichier qui a changé avant la
//! finalisation, l'envoi disparu qui fait repartir l'unité de zéro, et **la** règle d'abandon.
//!
//! La règle d'abandon : un envoi dont des parties sont acquittées n'est abandonné que sur un
//! refus définitif du contenu ([`refus_du_fichier`]). Jamais sur un incident transitoire (`400
//! RequestTimeout`, somme altérée en route), ni sur un refus d'identifiants ou de droits (une
//! URL signée refusée deux fois : l'heure de l'ordinateur, les droits sur la participation),
//! après la correction desquels la reprise garde les parties déjà parties ; ni sur un fichier
//! qui a changé avant sa finalisation : la relance le replanifie (ses parties sont oubliées)
//! et l'envoi gardé reçoit le nouveau contenu.
//!
//! Pourquoi ici, une fois : écrits deux fois (S3 et Vigie-Chiro), le découpage et la règle
//! d'abandon avaient divergé (la limite de 10 000 parties n'était respectée que vers S3 ;
//! Vigie-Chiro supprimait son enregistrement sur un refus de droits, S3 gardait ses parties).

use std::collections::HashMap;
use std::future::Future;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::{ContexteUnite, IssueUnite, Resultat, echec_si_fichier_change, partie_reutilisable};
use crate::plan::{CauseRefus, PartieEnvoi};

/// Combien de fois, dans un passage, une unité repart de zéro après la disparition de son
/// envoi : renvoyer le fichier entier est idempotent, et rien n'est rejoué à l'aveugle
/// (l'envoi a été relu absent). Une seconde disparition laisse un échec transitoire.
const REPRISES_DE_ZERO: u32 = 1;

/// Le protocole d'une destination pour un envoi en plusieurs parties (voir l'en-tête).
pub(crate) trait EnvoiEnParties: Sync {
    /// Ce qui désigne un envoi ouvert (l'UploadId S3, l'enregistrement Vigie-Chiro).
    type Envoi: Sync;

    /// La taille des parties d'un envoi neuf (les réglages).
    fn taille_partie(&self) -> u64;

    /// Ouvre l'envoi de l'unité : reprend celui que tient le plan (la destination le relit :
    /// existe-t-il encore, quelles parties a-t-il reçues, est-il déjà assemblé ?), retrouve
    /// celui qu'une écriture restée sans réponse a peut-être ouvert, ou en ouvre un neuf, noté
    /// dans le plan aussitôt. Lu dans le plan, pas dans l'unité du passage : après une
    /// disparition, l'envoi oublié ne revient pas.
    fn ouvrir(
        &self,
        ctx: &ContexteUnite<'_>,
    ) -> impl Future<Output = Resultat<Ouverture<Self::Envoi>>>;

    /// Envoie une partie et vérifie ce que la destination en dit (somme, ETag). Ne touche ni
    /// au plan ni à l'envoi : l'échec dit seulement ce qu'il est.
    fn envoyer_partie(
        &self,
        ctx: &ContexteUnite<'_>,
        partie: Partie<'_, Self::Envoi>,
    ) -> impl Future<Output = Result<Acquittement, EchecEnvoi>>;

    /// Finalise l'envoi (écriture non rejouable, relue sans réponse) et vérifie ce que la
    /// destination a assemblé ; rend l'issue de l'unité, ou l'échec qui décide du sort de
    /// l'envoi.
    fn finaliser(
        &self,
        ctx: &ContexteUnite<'_>,
        assemblage: Assemblage<'_, Self::Envoi>,
    ) -> impl Future<Output = Resultat<Result<IssueUnite, EchecEnvoi>>>;

    /// Abandonne l'envoi à la destination, et l'oublie du plan s'il l'est ; l'échec de
    /// l'abandon ne change rien à celui de l'unité.
    fn abandonner(
        &self,
        ctx: &ContexteUnite<'_>,
        envoi: &Self::Envoi,
    ) -> impl Future<Output = Resultat<()>>;

    /// Oublie du plan l'envoi disparu de la destination, et ses parties.
    fn oublier(&self, ctx: &ContexteUnite<'_>) -> Resultat<()>;
}

/// Ce qu'ouvrir un envoi a donné.
pub(crate) enum Ouverture<E> {
    /// L'envoi, repris ou neuf, et celles des parties persistées qu'il a bien reçues.
    Envoi { envoi: E, parties: Vec<PartieEnvoi> },
    /// Réglée sans rien envoyer : déjà assemblé, ou un échec.
    Reglee(IssueUnite),
    /// Le fichier part d'un seul envoi (voir [`FinEnParties::EnUnSeul`]).
    EnUnSeul(Option<String>),
}

/// Ce qu'est l'échec d'une partie ou de la finalisation, pour ce qu'il fait à l'envoi.
pub(crate) enum EchecEnvoi {
    /// L'envoi a disparu de la destination (expiré, abandonné ailleurs, assemblage
    /// interrompu) : oublié, l'unité repart de zéro. Le constat, pour le message.
    Disparu(&'static str),
    /// La destination refuse l'envoi en plusieurs parties : le fichier part d'un seul envoi.
    EnUnSeul(String),
    /// Tout autre échec : l'envoi n'est abandonné que sur un refus définitif du contenu.
    Echec(IssueUnite),
}

/// L'issue d'un envoi en plusieurs parties.
pub(crate) enum FinEnParties {
    Issue(IssueUnite),
    /// Le fichier part d'un seul envoi : la destination refuse l'envoi en plusieurs parties
    /// (la raison, à retenir ; ses parties sont à oublier), ou l'envoi trouvé à la
    /// destination est d'un seul tenant (`None`).
    EnUnSeul(Option<String>),
}

/// Un envoi dont des parties sont acquittées n'est abandonné que sur un refus définitif du
/// fichier lui-même, son contenu (voir l'en-tête du module).
pub(crate) fn refus_du_fichier(issue: &IssueUnite) -> bool {
    matches!(
        issue,
        IssueUnite::Echec {
            definitif: true,
            cause: CauseRefus::Contenu,
            ..
        }
    )
}

/// Dépose l'unité en plusieurs parties par le port `port` : ouvrir, envoyer les parties qui
/// manquent, vérifier que le fichier n'a pas changé, finaliser ; un envoi disparu fait
/// repartir l'unité de zéro ([`REPRISES_DE_ZERO`] fois), et l'envoi n'est abandonné que selon
/// [`refus_du_fichier`].
pub(crate) async fn deposer_en_parties<P: EnvoiEnParties>(
    port: &P,
    ctx: &ContexteUnite<'_>,
) -> Resultat<FinEnParties> {
    let mut reprises = 0;
    loop {
        let (envoi, persistees) = match port.ouvrir(ctx).await? {
            Ouverture::Envoi { envoi, parties } => (envoi, parties),
            Ouverture::Reglee(issue) => return Ok(FinEnParties::Issue(issue)),
            Ouverture::EnUnSeul(raison) => return Ok(FinEnParties::EnUnSeul(raison)),
        };
        let echec = match mener(port, ctx, &envoi, &persistees).await? {
            Ok(issue) => return Ok(FinEnParties::Issue(issue)),
            Err(echec) => echec,
        };
        match echec {
            EchecEnvoi::EnUnSeul(raison) => return Ok(FinEnParties::EnUnSeul(Some(raison))),
            EchecEnvoi::Echec(echec) => {
                if refus_du_fichier(&echec) {
                    port.abandonner(ctx, &envoi).await?;
                }
                return Ok(FinEnParties::Issue(echec));
            }
            EchecEnvoi::Disparu(constat) => {
                // Interrompue (Ctrl-C, DURÉE écoulée) : rien n'est oublié, la relance relira
                // l'envoi et l'objet (un assemblage a peut-être fini entre-temps).
                if ctx.interrompu() {
                    return Ok(FinEnParties::Issue(IssueUnite::Interrompue));
                }
                port.oublier(ctx)?;
                if reprises >= REPRISES_DE_ZERO {
                    return Ok(FinEnParties::Issue(IssueUnite::Echec {
                        definitif: false,
                        cause: CauseRefus::Serveur,
                        message: format!("{constat} : l'unité sera reprise de zéro"),
                    }));
                }
                reprises += 1;
                tracing::info!(cle = %ctx.unite.cle, "{constat} : l'unité repart de zéro");
                ctx.repartir_de_zero();
            }
        }
    }
}

/// Un parcours de l'envoi ouvert : les parties qui manquent, puis la finalisation, jamais pour
/// un fichier qui a changé (une finalisation est définitive : la tranche partie n'est plus le
/// fichier).
async fn mener<P: EnvoiEnParties>(
    port: &P,
    ctx: &ContexteUnite<'_>,
    envoi: &P::Envoi,
    persistees: &[PartieEnvoi],
) -> Resultat<Result<IssueUnite, EchecEnvoi>> {
    let decoupage = Decoupage::pour(ctx.unite.taille, port.taille_partie(), persistees);
    let faites = envoyer_parties(
        ctx,
        decoupage,
        persistees,
        |numero, debut, taille| async move {
            let partie = Partie {
                envoi,
                numero,
                debut,
                taille,
            };
            port.envoyer_partie(ctx, partie).await
        },
    )
    .await?;
    // Ce que l'échec d'une partie fait à l'envoi ne se fait qu'après, une fois toutes les
    // parties en vol revenues (celles qu'elles ont acquittées sont déjà notées) : oublier ou
    // abandonner l'envoi pendant que d'autres parties étaient en vol laissait celles-ci noter,
    // après coup, des parties d'un envoi oublié. Seul le premier échec compte.
    let faites = match faites {
        Ok(f) => f,
        Err(echec) => return Ok(Err(echec)),
    };
    if let Some(echec) = echec_si_fichier_change(ctx.fichier().chemin, ctx.unite) {
        return Ok(Err(EchecEnvoi::Echec(echec)));
    }
    let assemblage = Assemblage {
        envoi,
        parties: &faites,
    };
    port.finaliser(ctx, assemblage).await
}

/// Une partie à envoyer : son envoi, son numéro (à partir de 1), sa place dans le fichier.
pub(crate) struct Partie<'a, E> {
    pub(crate) envoi: &'a E,
    pub(crate) numero: u32,
    pub(crate) debut: u64,
    pub(crate) taille: u64,
}

/// Un envoi à finaliser, et ses parties acquittées, dans l'ordre.
pub(crate) struct Assemblage<'a, E> {
    pub(crate) envoi: &'a E,
    pub(crate) parties: &'a [PartieFaite],
}

/// Nombre maximal de parties d'un envoi multipart (règle S3, que la plateforme Vigie-Chiro
/// subit aussi : ses envois en plusieurs parties sont des envois S3).
pub(crate) const PARTIES_MAX: u64 = 10_000;

/// Le découpage d'un fichier en parties consécutives de même taille (la dernière plus courte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decoupage {
    taille_fichier: u64,
    taille_partie: u64,
}

impl Decoupage {
    /// Celui des parties déjà acquittées s'il y en a (les réglages ont pu changer entre deux
    /// passages : les parties gardées doivent rester à leur place), sinon celui des réglages,
    /// agrandi s'il le faut pour tenir en [`PARTIES_MAX`] parties. `persistees` : les parties
    /// acquittées du plan, dans n'importe quel ordre.
    pub(crate) fn pour(taille_fichier: u64, reglage: u64, persistees: &[PartieEnvoi]) -> Self {
        let connue = persistees
            .iter()
            .filter(|p| p.envoyee)
            .min_by_key(|p| p.numero)
            .and_then(|p| match p.numero {
                0 => None,
                1 => Some(p.taille),
                n => Some(p.debut / u64::from(n - 1)),
            })
            .filter(|t| *t > 0);
        let taille_partie =
            connue.unwrap_or_else(|| reglage.max(taille_fichier.div_ceil(PARTIES_MAX)).max(1));
        Decoupage {
            taille_fichier,
            taille_partie,
        }
    }

    /// La taille d'une partie (la dernière peut être plus courte).
    #[cfg(test)]
    pub(crate) fn taille_partie(&self) -> u64 {
        self.taille_partie
    }

    /// Le nombre de parties (une au moins, même pour un fichier vide).
    pub(crate) fn nombre(&self) -> u32 {
        let nombre = self.taille_fichier.div_ceil(self.taille_partie).max(1);
        u32::try_from(nombre).unwrap_or(u32::MAX)
    }

    /// Chaque partie : son numéro (à partir de 1), son début et sa taille.
    pub(crate) fn parties(&self) -> impl Iterator<Item = (u32, u64, u64)> + use<> {
        let Decoupage {
            taille_fichier,
            taille_partie,
        } = *self;
        (1..=self.nombre()).map(move |numero| {
            let debut = u64::from(numero - 1) * taille_partie;
            (
                numero,
                debut,
                taille_partie.min(taille_fichier.saturating_sub(debut)),
            )
        })
    }
}

/// Une partie acquittée par la destination, reprise ou envoyée pendant ce passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartieFaite {
    pub(crate) numero: u32,
    pub(crate) taille: u64,
    pub(crate) etag: String,
    pub(crate) crc32c: u32,
}

/// Une partie que la destination vient d'acquitter : son ETag et la CRC32C de ce qui est parti.
pub(crate) struct Acquittement {
    pub(crate) etag: String,
    pub(crate) crc32c: u32,
}

/// Envoie les parties du `decoupage` qui manquent par `envoyer(numero, debut, taille)` (le
/// protocole de la destination) ; celles que `persistees` tient déjà (même place, même taille,
/// ETag et somme notés) sont reprises sans rien émettre. Chaque partie acquittée est notée
/// dans le plan aussitôt : une relance ne renverra que celles qui étaient en vol.
///
/// Chaque partie part sur une place de transfert, lâchée à sa fin. La première attend son
/// tour ([`ContexteUnite::place_de_transfert`]) ; les suivantes partent avec elle, chacune sur
/// une place de plus, tant qu'il en reste que nulle unité n'attend
/// ([`ContexteUnite::place_de_plus`]) : un gros fichier seul, ou la fin d'une nuit, remplit le
/// lien sans dépasser `--paralleles` ni la mémoire d'autant de fichiers en vol. Sans place de
/// plus, les parties partent une à une, dans l'ordre.
///
/// À la première partie que `envoyer` ne rend pas acquittée, plus aucune ne part ; celles qui
/// sont en vol vont au bout (et sont notées si elles sont acquittées), puis la raison de
/// l'échec (`E`, propre à la destination) est rendue. Sinon rend toutes les parties, dans
/// l'ordre.
async fn envoyer_parties<E, F, Fut>(
    ctx: &ContexteUnite<'_>,
    decoupage: Decoupage,
    persistees: &[PartieEnvoi],
    mut envoyer: F,
) -> Resultat<Result<Vec<PartieFaite>, E>>
where
    F: FnMut(u32, u64, u64) -> Fut,
    Fut: Future<Output = Result<Acquittement, E>>,
{
    let deja: HashMap<u32, &PartieEnvoi> = persistees
        .iter()
        .filter(|p| p.envoyee)
        .map(|p| (p.numero, p))
        .collect();
    let mut faites = Vec::with_capacity(decoupage.nombre() as usize);
    let mut manquantes = Vec::new();
    for (numero, debut, taille) in decoupage.parties() {
        match partie_reutilisable(deja.get(&numero).copied(), debut, taille) {
            Some((etag, crc32c)) => {
                ctx.confirmer(taille);
                faites.push(PartieFaite {
                    numero,
                    taille,
                    etag: etag.to_owned(),
                    crc32c,
                });
            }
            None => manquantes.push((numero, debut, taille)),
        }
    }

    let mut manquantes = manquantes.into_iter().peekable();
    let mut en_vol = FuturesUnordered::new();
    let mut echec = None;
    loop {
        while echec.is_none()
            && let Some(&(numero, debut, taille)) = manquantes.peek()
        {
            // Sans partie en vol, on attend son tour ; sinon, une place libre ou rien.
            let place = if en_vol.is_empty() {
                ctx.place_de_transfert().await
            } else {
                match ctx.place_de_plus() {
                    Some(p) => Some(p),
                    None => break,
                }
            };
            manquantes.next();
            let envoi = envoyer(numero, debut, taille);
            en_vol.push(async move {
                let issue = envoi.await;
                drop(place);
                ((numero, debut, taille), issue)
            });
        }
        let Some(((numero, debut, taille), issue)) = en_vol.next().await else {
            break;
        };
        match issue {
            Ok(Acquittement { etag, crc32c }) => {
                ctx.partie_acquittee(numero, debut, taille, &etag, crc32c)?;
                faites.push(PartieFaite {
                    numero,
                    taille,
                    etag,
                    crc32c,
                });
            }
            Err(raison) => echec = echec.or(Some(raison)),
        }
    }
    if let Some(raison) = echec {
        return Ok(Err(raison));
    }
    faites.sort_by_key(|p| p.numero);
    Ok(Ok(faites))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIO: u64 = 1024 * 1024;

    fn acquittee(numero: u32, debut: u64, taille: u64) -> PartieEnvoi {
        PartieEnvoi {
            numero,
            debut,
            taille,
            etag: Some(format!("etag-{numero}")),
            somme_controle: Some("AAAAAA==".into()),
            envoyee: true,
        }
    }

    #[test]
    fn decoupage_des_reglages() {
        let d = Decoupage::pour(20 * MIO + 1, 8 * MIO, &[]);
        assert_eq!(d.taille_partie(), 8 * MIO);
        assert_eq!(d.nombre(), 3);
        assert_eq!(
            d.parties().collect::<Vec<_>>(),
            [
                (1, 0, 8 * MIO),
                (2, 8 * MIO, 8 * MIO),
                (3, 16 * MIO, 4 * MIO + 1)
            ]
        );
        // Un fichier vide : une partie vide.
        assert_eq!(Decoupage::pour(0, 8 * MIO, &[]).parties().count(), 1);
    }

    #[test]
    fn jamais_plus_de_10_000_parties() {
        let taille = 100 * 1024 * MIO;
        let d = Decoupage::pour(taille, 5 * MIO, &[]);
        assert!(u64::from(d.nombre()) <= PARTIES_MAX, "{}", d.nombre());
        assert_eq!(d.taille_partie(), taille.div_ceil(PARTIES_MAX));
    }

    #[test]
    fn la_reprise_garde_le_decoupage_des_parties_acquittees() {
        // Les réglages ont changé (8 Mio → 16 Mio) : la partie 1 gardée fixe la taille.
        let d = Decoupage::pour(40 * MIO, 16 * MIO, &[acquittee(1, 0, 8 * MIO)]);
        assert_eq!(d.taille_partie(), 8 * MIO);
        // Seule la partie 3 est gardée : sa place dit la taille.
        let d = Decoupage::pour(40 * MIO, 16 * MIO, &[acquittee(3, 16 * MIO, 8 * MIO)]);
        assert_eq!(d.taille_partie(), 8 * MIO);
        // Une partie non acquittée ne dit rien.
        let mut en_vol = acquittee(1, 0, 8 * MIO);
        en_vol.envoyee = false;
        let d = Decoupage::pour(40 * MIO, 16 * MIO, &[en_vol]);
        assert_eq!(d.taille_partie(), 16 * MIO);
    }
}
