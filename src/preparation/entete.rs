//! L'en-tête d'un WAV brut, lu sur ses premiers kilo-octets : format, fréquence, où sont les
//! données, et les métadonnées que certains enregistreurs y laissent (GUANO, commentaire
//! d'AudioMoth).
//!
//! Imite `commun/model/FichierWav.java` du compagnon officiel
//! (`echonuit/vigiechiro-pr-companion`) : balayage des blocs RIFF jusqu'à `fmt ` et `data`
//! (en tolérant `LIST`, `fact`, `guan`… intercalés et l'octet de bourrage d'un bloc impair),
//! taille de données `0xFFFFFFFF` lue « jusqu'à la fin du fichier » (enregistreur en flux), et
//! une taille annoncée plus grande que le fichier refusée comme troncature (#156 du
//! compagnon : la lire plus courte fausserait la nuit sans rien dire). Pur : des octets en
//! entrée, aucune lecture de fichier ici.

/// Le format « PCM non compressé » du bloc `fmt `.
const FORMAT_PCM: u16 = 1;

/// La taille de données « inconnue » des enregistreurs en flux : jusqu'à la fin du fichier.
const TAILLE_DONNEES_INCONNUE: u32 = 0xFFFF_FFFF;

/// Ce qu'il faut lire du début d'un fichier pour trouver `fmt ` et `data` : les blocs annexes
/// (`LIST`, `guan`, `wamd`, `bext`) tiennent largement dans 64 Kio.
pub(crate) const FENETRE_ENTETE_OCTETS: usize = 64 * 1024;

/// L'en-tête d'un WAV PCM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnteteWav {
    pub(crate) canaux: u16,
    /// La fréquence écrite dans l'en-tête (pas forcément celle de l'acquisition : un Passive
    /// Recorder écrit Fe/10).
    pub(crate) frequence_hz: u32,
    pub(crate) bits: u16,
    /// Position du premier octet PCM dans le fichier.
    pub(crate) debut_donnees: u64,
    /// Longueur des données PCM.
    pub(crate) octets_donnees: u64,
    /// Le texte du bloc `guan` (GUANO), s'il y en a un avant les données.
    pub(crate) guano: Option<String>,
    /// Le commentaire `ICMT` d'un bloc `LIST`/`INFO` (AudioMoth y écrit son numéro de série).
    pub(crate) commentaire: Option<String>,
}

impl EnteteWav {
    /// Octets par trame (un échantillon de chaque canal).
    pub(crate) fn octets_par_trame(&self) -> u64 {
        u64::from(self.canaux) * u64::from(self.bits / 8)
    }
}

/// Pourquoi un fichier ne se lit pas comme un WAV PCM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ErreurWav {
    #[error("ce n'est pas un fichier WAV (en-tête RIFF/WAVE absent)")]
    PasUnWav,
    #[error("WAV incomplet : bloc « fmt » ou « data » introuvable au début du fichier")]
    Incomplet,
    #[error("WAV compressé (format {0}) : seul le PCM non compressé se prépare")]
    PasPcm(u16),
    #[error("format impossible : {canaux} canal(aux) de {bits} bits")]
    FormatImpossible { canaux: u16, bits: u16 },
    #[error(
        "WAV tronqué : {annonces} octets de données annoncés, {presents} présents (copie interrompue ?)"
    )]
    Tronque { annonces: u64, presents: u64 },
}

fn u16_le(o: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes(o.get(i..i + 2)?.try_into().ok()?))
}

fn u32_le(o: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(o.get(i..i + 4)?.try_into().ok()?))
}

/// Un texte de métadonnée : jusqu'au premier zéro, en UTF-8 toléré, sans blancs autour.
fn texte(o: &[u8]) -> Option<String> {
    let fin = o.iter().position(|&c| c == 0).unwrap_or(o.len());
    let t = String::from_utf8_lossy(&o[..fin]).trim().to_owned();
    (!t.is_empty()).then_some(t)
}

/// Le commentaire `ICMT` d'un bloc `LIST` de type `INFO`.
fn commentaire_info(corps: &[u8]) -> Option<String> {
    if corps.get(..4)? != b"INFO" {
        return None;
    }
    let mut pos = 4;
    while pos + 8 <= corps.len() {
        let taille = u32_le(corps, pos + 4)? as usize;
        let debut = pos + 8;
        let fin = debut.saturating_add(taille).min(corps.len());
        if &corps[pos..pos + 4] == b"ICMT" {
            return texte(&corps[debut..fin]);
        }
        pos = debut.saturating_add(taille).saturating_add(taille % 2);
    }
    None
}

/// Lit l'en-tête dans `debut` (le début du fichier, [`FENETRE_ENTETE_OCTETS`] au plus), le
/// fichier faisant `taille_fichier` octets.
pub(crate) fn lire_entete(debut: &[u8], taille_fichier: u64) -> Result<EnteteWav, ErreurWav> {
    if debut.len() < 12 || &debut[..4] != b"RIFF" || &debut[8..12] != b"WAVE" {
        return Err(ErreurWav::PasUnWav);
    }
    let mut fmt: Option<(u16, u16, u32, u16)> = None;
    let mut donnees: Option<(u64, u64)> = None;
    let (mut guano, mut commentaire) = (None, None);
    let mut pos = 12usize;
    while pos + 8 <= debut.len() {
        let id = &debut[pos..pos + 4];
        let taille = u32_le(debut, pos + 4).ok_or(ErreurWav::Incomplet)?;
        let corps = pos + 8;
        let dans_la_fenetre = &debut[corps..corps.saturating_add(taille as usize).min(debut.len())];
        match id {
            b"fmt " if corps + 16 <= debut.len() => {
                let lu = |i| u16_le(debut, corps + i).ok_or(ErreurWav::Incomplet);
                let frequence = u32_le(debut, corps + 4).ok_or(ErreurWav::Incomplet)?;
                fmt = Some((lu(0)?, lu(2)?, frequence, lu(14)?));
            }
            b"guan" => guano = texte(dans_la_fenetre),
            b"LIST" => commentaire = commentaire.or(commentaire_info(dans_la_fenetre)),
            b"data" => {
                let disponible = taille_fichier.saturating_sub(corps as u64);
                let octets = if taille == TAILLE_DONNEES_INCONNUE {
                    disponible
                } else if u64::from(taille) > disponible {
                    return Err(ErreurWav::Tronque {
                        annonces: u64::from(taille),
                        presents: disponible,
                    });
                } else {
                    u64::from(taille)
                };
                donnees = Some((corps as u64, octets));
                // Tout ce qui sert est avant les données ; au-delà, ce serait lire le signal
                // comme des blocs.
                break;
            }
            _ => {}
        }
        pos = corps
            .saturating_add(taille as usize)
            .saturating_add(taille as usize % 2);
    }
    let ((format, canaux, frequence_hz, bits), (debut_donnees, octets_donnees)) =
        fmt.zip(donnees).ok_or(ErreurWav::Incomplet)?;
    if format != FORMAT_PCM {
        return Err(ErreurWav::PasPcm(format));
    }
    if canaux == 0 || bits / 8 == 0 || frequence_hz == 0 {
        return Err(ErreurWav::FormatImpossible { canaux, bits });
    }
    Ok(EnteteWav {
        canaux,
        frequence_hz,
        bits,
        debut_donnees,
        octets_donnees,
        guano,
        commentaire,
    })
}

/// Des WAV fabriqués pour les essais (unitaires et d'intégration par `vigie`) : un en-tête
/// canonique, suivi ou non de blocs annexes.
#[cfg(test)]
pub(crate) mod essais {
    /// Un bloc RIFF (identifiant, corps, octet de bourrage si impair).
    pub(crate) fn bloc(id: &[u8; 4], corps: &[u8]) -> Vec<u8> {
        let mut b = id.to_vec();
        b.extend_from_slice(&(corps.len() as u32).to_le_bytes());
        b.extend_from_slice(corps);
        if corps.len() % 2 == 1 {
            b.push(0);
        }
        b
    }

    /// Un WAV PCM mono 16 bits à `frequence` Hz, avec `annexes` avant les données.
    pub(crate) fn wav(frequence: u32, annexes: &[Vec<u8>], pcm: &[u8]) -> Vec<u8> {
        let mut fmt = Vec::new();
        fmt.extend_from_slice(&1u16.to_le_bytes());
        fmt.extend_from_slice(&1u16.to_le_bytes());
        fmt.extend_from_slice(&frequence.to_le_bytes());
        fmt.extend_from_slice(&(frequence * 2).to_le_bytes());
        fmt.extend_from_slice(&2u16.to_le_bytes());
        fmt.extend_from_slice(&16u16.to_le_bytes());
        let mut corps = b"WAVE".to_vec();
        corps.extend(bloc(b"fmt ", &fmt));
        for a in annexes {
            corps.extend_from_slice(a);
        }
        corps.extend(bloc(b"data", pcm));
        let mut w = b"RIFF".to_vec();
        w.extend_from_slice(&(corps.len() as u32).to_le_bytes());
        w.extend(corps);
        w
    }
}

#[cfg(test)]
mod tests {
    use super::essais::{bloc, wav};
    use super::*;

    #[test]
    fn un_wav_canonique_se_lit() {
        let w = wav(38_400, &[], &[1, 2, 3, 4]);
        let e = lire_entete(&w, w.len() as u64).unwrap();
        assert_eq!((e.canaux, e.frequence_hz, e.bits), (1, 38_400, 16));
        assert_eq!((e.debut_donnees, e.octets_donnees), (44, 4));
        assert_eq!(e.octets_par_trame(), 2);
    }

    #[test]
    fn les_blocs_annexes_sont_sautes_et_leurs_metadonnees_gardees() {
        let guano = bloc(
            b"guan",
            b"GUANO|Version:1.0\nMake:Wildlife Acoustics\nSerial:S4U1\n",
        );
        let mut info = b"INFO".to_vec();
        info.extend(bloc(
            b"ICMT",
            b"Recorded by AudioMoth 24F3190360FB8E1D at medium gain\0",
        ));
        let list = bloc(b"LIST", &info);
        // Un bloc impair : l'octet de bourrage doit être sauté.
        let impair = bloc(b"junk", &[7, 7, 7]);
        let w = wav(384_000, &[impair, guano, list], &[0; 6]);
        let e = lire_entete(&w, w.len() as u64).unwrap();
        assert_eq!(e.octets_donnees, 6);
        assert_eq!(e.debut_donnees as usize, w.len() - 6);
        assert!(e.guano.unwrap().contains("Serial:S4U1"));
        assert!(
            e.commentaire
                .unwrap()
                .contains("AudioMoth 24F3190360FB8E1D")
        );
    }

    #[test]
    fn taille_inconnue_jusqu_a_la_fin_et_troncature_refusee() {
        let mut w = wav(384_000, &[], &[0; 8]);
        w[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(lire_entete(&w, w.len() as u64).unwrap().octets_donnees, 8);
        let mut w = wav(384_000, &[], &[0; 8]);
        w[40..44].copy_from_slice(&100u32.to_le_bytes());
        assert_eq!(
            lire_entete(&w, w.len() as u64),
            Err(ErreurWav::Tronque {
                annonces: 100,
                presents: 8
            })
        );
    }

    #[test]
    fn ce_qui_n_est_pas_un_wav_pcm_est_refuse() {
        assert_eq!(lire_entete(b"ID3\x03", 4), Err(ErreurWav::PasUnWav));
        let mut w = wav(384_000, &[], &[0; 2]);
        w[20] = 3; // format 3 : flottant
        assert_eq!(lire_entete(&w, w.len() as u64), Err(ErreurWav::PasPcm(3)));
        let w = wav(384_000, &[], &[0; 2]);
        assert_eq!(lire_entete(&w[..30], 30), Err(ErreurWav::Incomplet));
    }
}
