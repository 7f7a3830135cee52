//! Ce que les deux destinations partagent d'un envoi en plusieurs parties : le découpage (et
//! sa limite de 10 000 parties), la reprise des parties déjà acquittées, la boucle qui envoie
//! les autres et note chacune dans le plan dès son ETag rendu.
//!
//! Pourquoi ici, une fois : écrite deux fois (S3 et Vigie-Chiro), la règle du découpage avait
//! déjà divergé : la limite de 10 000 parties n'était respectée que vers S3. Chaque
//! destination ne fournit plus que l'envoi d'**une** partie, son protocole.

use std::collections::HashMap;
use std::future::Future;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::{ContexteUnite, Resultat, partie_reutilisable};
use crate::plan::PartieEnvoi;

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
    pub numero: u32,
    pub taille: u64,
    pub etag: String,
    pub crc32c: u32,
}

/// Une partie que la destination vient d'acquitter : son ETag et la CRC32C de ce qui est parti.
pub(crate) struct Acquittement {
    pub etag: String,
    pub crc32c: u32,
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
pub(crate) async fn envoyer_parties<E, F, Fut>(
    ctx: &ContexteUnite<'_>,
    decoupage: Decoupage,
    persistees: &[PartieEnvoi],
    mut envoyer: F,
) -> Resultat<Result<Vec<PartieFaite>, E>>
where
    F: FnMut(u32, u64, u64) -> Fut,
    Fut: Future<Output = Resultat<Result<Acquittement, E>>>,
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
        match issue? {
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
