//! L'en-tête d'un fichier WAV, lu par ses premiers octets seulement : son format (PCM ou non),
//! ses canaux, sa fréquence d'échantillonnage et sa profondeur.
//!
//! Pourquoi : le calcul de la plateforme lit les séquences d'une participation de point fixe
//! en **expansion de temps ×10** (`vigiechiro/scripts/task_participation.py`, `_run_tadaridaD` :
//! `tadaridaD -x 10`). Un enregistrement « direct » (en-tête à 384 000 Hz) déposé tel quel est
//! lu dix fois trop haut, et les espèces rendues sont fausses sans aucune erreur. Un fichier
//! texte nommé `.wav` ou un en-tête tronqué n'est pas lu du tout. Avant tout envoi, on regarde
//! donc l'en-tête de chaque séquence qui part (la garde : `garde.rs`) ; la préparation des
//! séquences s'en sert aussi.
//!
//! La lecture suit celle du compagnon officiel de Vigie-Chiro
//! (`echonuit/vigiechiro-pr-companion`, `importation/model/FichierWav.java`, `lire`) : après
//! `RIFF`, la taille et `WAVE`, on parcourt les blocs (`identifiant`, taille sur 4 octets
//! petit-boutiste, corps, plus un octet de bourrage si la taille est impaire) jusqu'au bloc
//! `fmt `, en passant les blocs intercalés (`JUNK`, `bext`, `LIST`…). À la différence du
//! compagnon, qui lit tout le fichier, on ne lit que le début : une lecture de
//! [`PREMIERE_LECTURE_OCTETS`] couvre l'en-tête de tous les enregistreurs connus (le bloc
//! `fmt ` y est à l'octet 12) ; un bloc intercalé plus long est sauté par un déplacement, au
//! plus [`BLOCS_MAX`] fois. Une saison relit ainsi des milliers d'en-têtes pour le prix d'une
//! lecture chacun, quelle que soit la taille des fichiers.

use std::io::{self, Read, Seek, SeekFrom};

/// Ce que lit la première lecture : l'en-tête canonique (44 octets) et ce qu'un enregistreur
/// y intercale d'ordinaire, en un seul appel au système.
pub(crate) const PREMIERE_LECTURE_OCTETS: usize = 512;
/// Combien de blocs on parcourt au plus avant `fmt ` : au-delà, ce n'est pas un en-tête que
/// l'on sait lire (et la lecture reste bornée, quoi que dise le fichier).
pub(crate) const BLOCS_MAX: usize = 16;
/// `WAVE_FORMAT_PCM`.
const FORMAT_PCM: u16 = 1;
/// `WAVE_FORMAT_EXTENSIBLE` : le vrai format est au début du sous-format (GUID).
const FORMAT_EXTENSIBLE: u16 = 0xFFFE;
/// Le corps d'un bloc `fmt ` PCM : format, canaux, fréquence, débit, alignement, bits.
const CORPS_FMT_OCTETS: usize = 16;
/// Le corps d'un bloc `fmt ` extensible, jusqu'au début du sous-format compris.
const CORPS_FMT_EXTENSIBLE_OCTETS: usize = 26;

/// L'en-tête d'un WAV PCM lisible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EnTeteWav {
    pub(crate) canaux: u16,
    /// La fréquence d'échantillonnage **déclarée** (Hz) : celle que lira le calcul, pas
    /// forcément celle de l'acquisition (un Passive Recorder déclare Fe/10).
    pub(crate) frequence_hz: u32,
    pub(crate) bits_par_echantillon: u16,
}

/// Pourquoi un fichier n'est pas un WAV PCM lisible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefautWav {
    /// Ni `RIFF` ni `WAVE` en tête : un autre fichier nommé `.wav` (texte, image, archive).
    PasUnWav,
    /// Le fichier s'arrête avant la fin du bloc `fmt ` : `octets`, sa taille.
    Tronque { octets: u64 },
    /// Aucun bloc `fmt ` dans les [`BLOCS_MAX`] premiers.
    SansFormat,
    /// Un format autre que PCM (compressé, flottant…) : son code.
    PasPcm { format: u16 },
    /// Zéro canal, fréquence ou profondeur nulle : rien ne se lit.
    Incoherent,
}

impl std::fmt::Display for DefautWav {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DefautWav::PasUnWav => {
                f.write_str("ce n'est pas un WAV (ni « RIFF » ni « WAVE » en tête)")
            }
            DefautWav::Tronque { octets } => {
                write!(f, "en-tête WAV tronqué ({octets} octets)")
            }
            DefautWav::SansFormat => f.write_str("en-tête WAV sans bloc « fmt »"),
            DefautWav::PasPcm { format } => {
                write!(
                    f,
                    "WAV non PCM (format {format}) : compressé ou en virgule flottante"
                )
            }
            DefautWav::Incoherent => {
                f.write_str("en-tête WAV incohérent (canaux, fréquence ou profondeur nuls)")
            }
        }
    }
}

/// Ce que rend la lecture : l'en-tête, le défaut du fichier, ou l'erreur du système qui l'a
/// empêchée (un fichier illisible n'est pas un fichier mal formé).
pub(crate) type LectureWav = io::Result<Result<EnTeteWav, DefautWav>>;

/// Lit l'en-tête depuis le début de `lecteur` : une lecture de [`PREMIERE_LECTURE_OCTETS`],
/// puis, si un bloc intercalé la dépasse, un déplacement et une petite lecture par bloc, au
/// plus [`BLOCS_MAX`] blocs.
pub(crate) fn lire_en_tete(lecteur: &mut (impl Read + Seek)) -> LectureWav {
    let mut tampon = [0u8; PREMIERE_LECTURE_OCTETS];
    let lus = lire_au_plus(lecteur, &mut tampon)?;
    let debut = &tampon[..lus];
    if lus < 12 {
        // Trop court pour dire « RIFF…WAVE » : un fichier qui commence comme un WAV est
        // tronqué, un autre n'en est pas un.
        let prefixe_riff = b"RIFF".starts_with(&debut[..lus.min(4)]);
        return Ok(Err(if prefixe_riff && lus > 0 {
            DefautWav::Tronque { octets: lus as u64 }
        } else {
            DefautWav::PasUnWav
        }));
    }
    if &debut[0..4] != b"RIFF" || &debut[8..12] != b"WAVE" {
        return Ok(Err(DefautWav::PasUnWav));
    }
    // Le parcours des blocs : `position` est le début de l'en-tête du bloc courant, dans le
    // fichier ; tant qu'il est dans le tampon, on y lit, sinon on s'y déplace.
    let mut position: u64 = 12;
    for _ in 0..BLOCS_MAX {
        let mut bloc = [0u8; 8 + CORPS_FMT_EXTENSIBLE_OCTETS];
        let dispo = if (position as usize) < lus {
            let p = position as usize;
            let n = (lus - p).min(bloc.len());
            bloc[..n].copy_from_slice(&debut[p..p + n]);
            // Le tampon s'arrête avant la fin du fichier : ce qui manque se lit plus loin.
            if n < bloc.len() && lus == PREMIERE_LECTURE_OCTETS {
                lecteur.seek(SeekFrom::Start(position))?;
                lire_au_plus(lecteur, &mut bloc)?
            } else {
                n
            }
        } else {
            lecteur.seek(SeekFrom::Start(position))?;
            lire_au_plus(lecteur, &mut bloc)?
        };
        if dispo < 8 {
            return Ok(Err(DefautWav::Tronque {
                octets: position + dispo as u64,
            }));
        }
        let taille = u64::from(u32_le(&bloc, 4));
        if &bloc[0..4] == b"fmt " {
            let corps = &bloc[8..dispo];
            if corps.len() < CORPS_FMT_OCTETS || taille < CORPS_FMT_OCTETS as u64 {
                return Ok(Err(DefautWav::Tronque {
                    octets: position + dispo as u64,
                }));
            }
            return Ok(format_du_bloc(corps, taille, position + dispo as u64));
        }
        position += 8 + taille + (taille % 2);
    }
    Ok(Err(DefautWav::SansFormat))
}

/// Le corps d'un bloc `fmt ` (au moins 16 octets) : l'en-tête, ou pourquoi il ne se lit pas.
/// `fin_lue` : où s'arrête ce qu'on a lu, pour dire la taille d'un fichier tronqué.
fn format_du_bloc(corps: &[u8], taille: u64, fin_lue: u64) -> Result<EnTeteWav, DefautWav> {
    let mut format = u16_le(corps, 0);
    if format == FORMAT_EXTENSIBLE {
        // `cbSize`, bits valides, masque des canaux, puis le sous-format : ses deux premiers
        // octets sont le code du format (`KSDATAFORMAT_SUBTYPE_PCM` : 1).
        if corps.len() < CORPS_FMT_EXTENSIBLE_OCTETS || taille < CORPS_FMT_EXTENSIBLE_OCTETS as u64
        {
            return Err(DefautWav::Tronque { octets: fin_lue });
        }
        format = u16_le(corps, 24);
    }
    if format != FORMAT_PCM {
        return Err(DefautWav::PasPcm { format });
    }
    let en_tete = EnTeteWav {
        canaux: u16_le(corps, 2),
        frequence_hz: u32_le(corps, 4),
        bits_par_echantillon: u16_le(corps, 14),
    };
    if en_tete.canaux == 0 || en_tete.frequence_hz == 0 || en_tete.bits_par_echantillon == 0 {
        return Err(DefautWav::Incoherent);
    }
    Ok(en_tete)
}

/// Remplit `tampon` autant que le fichier le permet : le nombre d'octets lus (moins que la
/// longueur du tampon : la fin du fichier).
fn lire_au_plus(lecteur: &mut impl Read, tampon: &mut [u8]) -> io::Result<usize> {
    let mut lus = 0;
    while lus < tampon.len() {
        match lecteur.read(&mut tampon[lus..]) {
            Ok(0) => break,
            Ok(n) => lus += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(lus)
}

fn u16_le(o: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([o[i], o[i + 1]])
}

fn u32_le(o: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([o[i], o[i + 1], o[i + 2], o[i + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// Un bloc RIFF : identifiant, taille, corps, octet de bourrage si la taille est impaire.
    fn bloc(id: &[u8; 4], corps: &[u8]) -> Vec<u8> {
        let mut v = id.to_vec();
        v.extend_from_slice(&(corps.len() as u32).to_le_bytes());
        v.extend_from_slice(corps);
        if corps.len() % 2 == 1 {
            v.push(0);
        }
        v
    }

    fn fmt_pcm(canaux: u16, frequence: u32, bits: u16) -> Vec<u8> {
        let alignement = canaux * bits / 8;
        let mut c = Vec::new();
        c.extend_from_slice(&FORMAT_PCM.to_le_bytes());
        c.extend_from_slice(&canaux.to_le_bytes());
        c.extend_from_slice(&frequence.to_le_bytes());
        c.extend_from_slice(&(frequence * u32::from(alignement)).to_le_bytes());
        c.extend_from_slice(&alignement.to_le_bytes());
        c.extend_from_slice(&bits.to_le_bytes());
        bloc(b"fmt ", &c)
    }

    fn riff(blocs: &[Vec<u8>]) -> Vec<u8> {
        let corps: Vec<u8> = blocs.concat();
        let mut v = b"RIFF".to_vec();
        v.extend_from_slice(&(4 + corps.len() as u32).to_le_bytes());
        v.extend_from_slice(b"WAVE");
        v.extend_from_slice(&corps);
        v
    }

    fn lire(octets: &[u8]) -> Result<EnTeteWav, DefautWav> {
        lire_en_tete(&mut Cursor::new(octets)).unwrap()
    }

    /// Un lecteur qui compte les octets lus : la lecture reste bornée, quelle que soit la taille
    /// du fichier.
    struct Compte<'a> {
        interieur: Cursor<&'a [u8]>,
        lus: usize,
    }

    impl Read for Compte<'_> {
        fn read(&mut self, tampon: &mut [u8]) -> io::Result<usize> {
            let n = self.interieur.read(tampon)?;
            self.lus += n;
            Ok(n)
        }
    }

    impl Seek for Compte<'_> {
        fn seek(&mut self, p: SeekFrom) -> io::Result<u64> {
            self.interieur.seek(p)
        }
    }

    #[test]
    fn en_tete_canonique_d_un_passive_recorder_et_d_un_direct() {
        let pr = riff(&[fmt_pcm(1, 38_400, 16), bloc(b"data", &[0; 1000])]);
        assert_eq!(
            lire(&pr),
            Ok(EnTeteWav {
                canaux: 1,
                frequence_hz: 38_400,
                bits_par_echantillon: 16
            })
        );
        let direct = riff(&[fmt_pcm(2, 384_000, 16), bloc(b"data", &[])]);
        assert_eq!(
            lire(&direct).map(|e| (e.canaux, e.frequence_hz)),
            Ok((2, 384_000))
        );
    }

    /// Des blocs avant `fmt ` (un `JUNK` qui dépasse la première lecture, un `bext` de taille
    /// impaire et son octet de bourrage) : parcourus, et la lecture reste bornée.
    #[test]
    fn blocs_intercales_parcourus_et_lecture_bornee() {
        let gros = riff(&[
            bloc(b"JUNK", &[7; 5000]),
            bloc(b"bext", &[1; 33]),
            fmt_pcm(1, 50_000, 16),
            bloc(b"data", &[0; 200_000]),
        ]);
        let mut c = Compte {
            interieur: Cursor::new(&gros),
            lus: 0,
        };
        let e = lire_en_tete(&mut c).unwrap().unwrap();
        assert_eq!(e.frequence_hz, 50_000);
        assert!(c.lus < 1024, "{} octets lus", c.lus);
        // `data` avant `fmt ` (ordre toléré, comme le compagnon) : passé sans être lu.
        let data_dabord = riff(&[bloc(b"data", &[0; 100_000]), fmt_pcm(1, 38_400, 16)]);
        let mut c = Compte {
            interieur: Cursor::new(&data_dabord),
            lus: 0,
        };
        assert_eq!(lire_en_tete(&mut c).unwrap().unwrap().frequence_hz, 38_400);
        assert!(c.lus < 1024, "{} octets lus", c.lus);
    }

    #[test]
    fn pas_un_wav_tronque_ou_sans_format() {
        assert_eq!(
            lire(b"Bonjour, ceci est une note.\n"),
            Err(DefautWav::PasUnWav)
        );
        assert_eq!(lire(b""), Err(DefautWav::PasUnWav));
        assert_eq!(lire(b"RIF"), Err(DefautWav::Tronque { octets: 3 }));
        assert_eq!(lire(b"RIFF\x10\0\0\0AVI LIST"), Err(DefautWav::PasUnWav));
        let complet = riff(&[fmt_pcm(1, 38_400, 16), bloc(b"data", &[0; 10])]);
        // Coupé dans `RIFF…WAVE`, dans l'en-tête du bloc, dans son corps.
        for coupe in [8, 12, 16, 20, 35] {
            assert!(
                matches!(lire(&complet[..coupe]), Err(DefautWav::Tronque { .. })),
                "{coupe} : {:?}",
                lire(&complet[..coupe])
            );
        }
        assert_eq!(lire(&complet[..30]), Err(DefautWav::Tronque { octets: 30 }));
        assert!(lire(&complet[..36]).is_ok());
        // Un bloc annoncé plus long que le fichier.
        let faux = riff(&[bloc(b"LIST", &[0; 4])]);
        let mut faux = faux.clone();
        faux[16..20].copy_from_slice(&1_000_000u32.to_le_bytes());
        assert!(matches!(lire(&faux), Err(DefautWav::Tronque { .. })));
        // Plus de blocs que la borne, sans `fmt `.
        let blocs: Vec<Vec<u8>> = (0..BLOCS_MAX + 1).map(|_| bloc(b"JUNK", &[0; 2])).collect();
        let mut sans = riff(&blocs);
        sans.extend_from_slice(&fmt_pcm(1, 38_400, 16));
        assert_eq!(lire(&sans), Err(DefautWav::SansFormat));
    }

    #[test]
    fn formats_autres_que_pcm_et_extensible() {
        let mut flottant = fmt_pcm(1, 38_400, 32);
        flottant[8..10].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(
            lire(&riff(&[flottant, bloc(b"data", &[])])),
            Err(DefautWav::PasPcm { format: 3 })
        );
        // Extensible, sous-format PCM : lisible ; sous-format flottant : non.
        let extensible = |sous_format: u16| {
            let mut c = Vec::new();
            c.extend_from_slice(&FORMAT_EXTENSIBLE.to_le_bytes());
            c.extend_from_slice(&1u16.to_le_bytes());
            c.extend_from_slice(&384_000u32.to_le_bytes());
            c.extend_from_slice(&768_000u32.to_le_bytes());
            c.extend_from_slice(&2u16.to_le_bytes());
            c.extend_from_slice(&16u16.to_le_bytes());
            c.extend_from_slice(&22u16.to_le_bytes());
            c.extend_from_slice(&16u16.to_le_bytes());
            c.extend_from_slice(&4u32.to_le_bytes());
            c.extend_from_slice(&sous_format.to_le_bytes());
            c.extend_from_slice(&[0; 14]);
            riff(&[bloc(b"fmt ", &c), bloc(b"data", &[])])
        };
        assert_eq!(lire(&extensible(1)).map(|e| e.frequence_hz), Ok(384_000));
        assert_eq!(lire(&extensible(3)), Err(DefautWav::PasPcm { format: 3 }));
        assert_eq!(
            lire(&riff(&[fmt_pcm(0, 38_400, 16)])),
            Err(DefautWav::Incoherent)
        );
    }

    #[test]
    fn les_defauts_se_disent_en_francais() {
        assert!(DefautWav::PasUnWav.to_string().contains("pas un WAV"));
        assert_eq!(
            DefautWav::Tronque { octets: 30 }.to_string(),
            "en-tête WAV tronqué (30 octets)"
        );
    }
}
