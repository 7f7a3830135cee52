//! Une nuit d'enregistrements synthétique : des séquences WAV valides, aux noms du protocole
//! point fixe, pour `vigie demo`, les essais à la main et les tests.
//!
//! Pourquoi : une démonstration qui dépose des octets au hasard nommés `.wav` ne montre rien de
//! vrai. Un participant qui ouvre une séquence de la démonstration dans Audacity ou Kaleidoscope
//! doit y trouver un enregistrement plausible : en-tête RIFF/WAVE complet (PCM, 16 bits, mono,
//! acquis à 384 kHz et écrit en expansion de temps ×10, en-tête à 38 400 Hz, comme le Passive
//! Recorder Vigie-Chiro : c'est ce que lit le calcul de la plateforme, `tadaridaD -x 10` dans
//! `vigiechiro/scripts/task_participation.py`), bruit de fond, et,
//! dans la plupart des séquences, le passage d'une chauve-souris : une suite de cris modulés en
//! fréquence, descendants de 80 à 30 kHz en quelques millisecondes, dont l'intensité monte puis
//! retombe. Les noms suivent le protocole point fixe (`Car<site>-<année>-Pass<n>-<point>-…_
//! AAAAMMJJ_HHMMSS_mmm.wav`), horodatés dans l'ordre de la nuit, pour que la plateforme et
//! `vigie` les acceptent comme ceux d'un vrai enregistreur.
//!
//! Tout est déterministe d'après la graine : même graine, mêmes noms, mêmes octets. Le
//! générateur (splitmix64) est écrit ici plutôt qu'emprunté, pour que sa suite ne dépende
//! d'aucune version de bibliothèque : `vigie demo --graine 7` rejoue la même nuit d'une version
//! à l'autre.

use std::f64::consts::PI;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;

/// Fréquence d'acquisition des séquences (Hz) : celle du protocole Vigie-Chiro.
pub(crate) const FREQUENCE_HZ: u32 = 384_000;
/// Fréquence que déclare l'en-tête (Hz) : l'acquisition en expansion de temps ×10.
pub(crate) const FREQUENCE_EN_TETE_HZ: u32 = FREQUENCE_HZ / 10;
/// Bits par échantillon (PCM signé, petit-boutiste).
pub(crate) const BITS_PAR_ECHANTILLON: u16 = 16;
/// Taille de l'en-tête RIFF/WAVE canonique (`RIFF`, `fmt `, `data`), en octets.
pub(crate) const TAILLE_EN_TETE_OCTETS: u64 = 44;
/// Nombre de séquences d'une nuit.
pub(crate) const SEQUENCES_PAR_NUIT: usize = 40;
/// Séquences assez grosses pour partir en plusieurs parties (au-delà de 5 Mio).
pub(crate) const GROSSES_SEQUENCES: usize = 2;
/// Préfixe des noms : site 640139, année 2026, passage 1, point A1.
pub(crate) const PREFIXE_NOMS: &str = "Car640139-2026-Pass1-A1-OB-1_";

const OCTETS_PAR_ECHANTILLON: u64 = BITS_PAR_ECHANTILLON as u64 / 8;
/// Bornes du nombre d'échantillons d'une séquence ordinaire : de 300 Kio à 2 Mio environ.
const ECHANTILLONS_MIN: u64 = 300 * 1024 / OCTETS_PAR_ECHANTILLON;
const ECHANTILLONS_MAX: u64 = 2 * 1024 * 1024 / OCTETS_PAR_ECHANTILLON;
/// Bornes d'une grosse séquence : de 5,5 à 6,5 Mio.
const ECHANTILLONS_GROS_MIN: u64 = 11 * 512 * 1024 / OCTETS_PAR_ECHANTILLON;
const ECHANTILLONS_GROS_MAX: u64 = 13 * 512 * 1024 / OCTETS_PAR_ECHANTILLON;
/// Première séquence entre 21:50 et 22:00 le 21 juin 2026 (secondes depuis minuit).
const DEBUT_NUIT_S: u64 = 21 * 3600 + 50 * 60;
/// Écart entre deux déclenchements : 20 s à 15 min.
const ECART_MIN_S: u64 = 20;
const ECART_MAX_S: u64 = 15 * 60;
/// Amplitude du bruit de fond et des cris (sur 32 767).
const AMPLITUDE_BRUIT: f64 = 350.0;
const AMPLITUDE_CRI_MAX: f64 = 12_000.0;

/// Une séquence de la nuit : son nom et de quoi la fabriquer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    /// Nom du fichier, conforme au protocole point fixe.
    pub nom: String,
    /// Nombre d'échantillons (mono : un par instant).
    pub echantillons: u64,
    /// Cris de chauve-souris qu'elle contient (0 : un déclenchement sur du bruit).
    pub cris: u32,
    /// Graine du contenu de cette séquence.
    graine: u64,
}

impl Sequence {
    /// Taille du fichier WAV, en-tête compris (octets).
    pub fn taille_octets(&self) -> u64 {
        TAILLE_EN_TETE_OCTETS + self.echantillons * OCTETS_PAR_ECHANTILLON
    }

    /// Durée enregistrée.
    pub fn duree(&self) -> Duration {
        Duration::from_secs_f64(self.echantillons as f64 / f64::from(FREQUENCE_HZ))
    }

    /// Le fichier WAV complet, en mémoire.
    pub fn octets(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.taille_octets() as usize);
        v.extend_from_slice(&en_tete_wav(self.echantillons));
        for e in self.signal() {
            v.extend_from_slice(&e.to_le_bytes());
        }
        v
    }

    /// Écrit le fichier WAV.
    pub fn ecrire(&self, sortie: &mut impl Write) -> io::Result<()> {
        sortie.write_all(&self.octets())
    }

    /// Les échantillons : bruit de fond, et le passage d'une chauve-souris s'il y a des cris.
    fn signal(&self) -> Vec<i16> {
        let mut alea = Alea::nouveau(self.graine);
        let n = self.echantillons as usize;
        // Bruit à peu près gaussien (somme de trois tirages uniformes).
        let mut s: Vec<f64> = (0..n)
            .map(|_| (alea.unitaire() + alea.unitaire() + alea.unitaire() - 1.5) * AMPLITUDE_BRUIT)
            .collect();
        if self.cris > 0 {
            self.ajouter_passage(&mut s, &mut alea);
        }
        s.into_iter()
            .map(|x| x.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16)
            .collect()
    }

    /// Ajoute `cris` cris FM descendants, régulièrement espacés, centrés dans la séquence,
    /// d'intensité croissante puis décroissante (l'animal passe devant le micro).
    fn ajouter_passage(&self, s: &mut [f64], alea: &mut Alea) {
        let fe = f64::from(FREQUENCE_HZ);
        let f_debut = alea.entre_f(74_000.0, 80_000.0);
        let f_fin = alea.entre_f(30_000.0, 36_000.0);
        let duree_cri = alea.entre_f(0.003, 0.007);
        let ecart = alea.entre_f(0.07, 0.11);
        let longueur_cri = (duree_cri * fe) as usize;
        let pas = (ecart * fe) as usize;
        let etendue = pas * (self.cris as usize - 1) + longueur_cri;
        let depart = s.len().saturating_sub(etendue) / 2;
        let forme = cri(longueur_cri, f_debut, f_fin);
        for c in 0..self.cris as usize {
            // Enveloppe du passage : un arc de sinus sur l'ensemble des cris.
            let position = (c as f64 + 0.5) / f64::from(self.cris);
            let amplitude = AMPLITUDE_CRI_MAX * (0.15 + 0.85 * (PI * position).sin());
            let debut = depart + c * pas;
            for (x, y) in s.iter_mut().skip(debut).zip(&forme) {
                *x += amplitude * y;
            }
        }
    }
}

/// Un cri FM de `longueur` échantillons, de `f_debut` à `f_fin` (Hz), d'amplitude 1.
fn cri(longueur: usize, f_debut: f64, f_fin: f64) -> Vec<f64> {
    let fe = f64::from(FREQUENCE_HZ);
    let duree = longueur as f64 / fe;
    (0..longueur)
        .map(|i| {
            let t = i as f64 / fe;
            // Balayage linéaire : la phase est l'intégrale de la fréquence instantanée.
            let phase = 2.0 * PI * (f_debut * t + (f_fin - f_debut) * t * t / (2.0 * duree));
            // Fenêtre de Hann : ni clic au début ni à la fin du cri.
            let fenetre = 0.5 - 0.5 * (2.0 * PI * i as f64 / longueur as f64).cos();
            fenetre * phase.sin()
        })
        .collect()
}

/// L'en-tête RIFF/WAVE canonique d'un PCM 16 bits mono de `echantillons` échantillons, en
/// expansion de temps ×10 (38 400 Hz déclarés pour 384 kHz acquis).
pub(crate) fn en_tete_wav(echantillons: u64) -> [u8; 44] {
    let donnees = (echantillons * OCTETS_PAR_ECHANTILLON) as u32;
    let octets_par_seconde = FREQUENCE_EN_TETE_HZ * u32::from(BITS_PAR_ECHANTILLON / 8);
    let mut e = [0u8; 44];
    e[0..4].copy_from_slice(b"RIFF");
    e[4..8].copy_from_slice(&(36 + donnees).to_le_bytes());
    e[8..12].copy_from_slice(b"WAVE");
    e[12..16].copy_from_slice(b"fmt ");
    e[16..20].copy_from_slice(&16u32.to_le_bytes());
    e[20..22].copy_from_slice(&1u16.to_le_bytes()); // PCM
    e[22..24].copy_from_slice(&1u16.to_le_bytes()); // mono
    e[24..28].copy_from_slice(&FREQUENCE_EN_TETE_HZ.to_le_bytes());
    e[28..32].copy_from_slice(&octets_par_seconde.to_le_bytes());
    e[32..34].copy_from_slice(&(BITS_PAR_ECHANTILLON / 8).to_le_bytes()); // alignement de bloc
    e[34..36].copy_from_slice(&BITS_PAR_ECHANTILLON.to_le_bytes());
    e[36..40].copy_from_slice(b"data");
    e[40..44].copy_from_slice(&donnees.to_le_bytes());
    e
}

/// Compose la nuit (noms, durées, cris) sans rien écrire.
pub fn composer(graine: u64) -> Vec<Sequence> {
    let mut alea = Alea::nouveau(graine);
    let mut grosses = Vec::with_capacity(GROSSES_SEQUENCES);
    while grosses.len() < GROSSES_SEQUENCES {
        let i = alea.entre(0, SEQUENCES_PAR_NUIT as u64 - 1) as usize;
        if !grosses.contains(&i) {
            grosses.push(i);
        }
    }
    let mut instant_s = DEBUT_NUIT_S + alea.entre(0, 599);
    let mut nuit = Vec::with_capacity(SEQUENCES_PAR_NUIT);
    for i in 0..SEQUENCES_PAR_NUIT {
        if i > 0 {
            instant_s += alea.entre(ECART_MIN_S, ECART_MAX_S);
        }
        let millisecondes = alea.entre(0, 999);
        let echantillons = if grosses.contains(&i) {
            alea.entre(ECHANTILLONS_GROS_MIN, ECHANTILLONS_GROS_MAX)
        } else {
            // Plutôt courtes : la plupart de quelques centaines de Kio.
            let u = alea.unitaire().powf(1.5);
            ECHANTILLONS_MIN + ((ECHANTILLONS_MAX - ECHANTILLONS_MIN) as f64 * u) as u64
        };
        // Trois déclenchements sur quatre environ sont des chauves-souris ; les grosses
        // séquences en sont toujours (un long passage en chasse).
        let duree_s = echantillons as f64 / f64::from(FREQUENCE_HZ);
        let cris = if grosses.contains(&i) || alea.unitaire() < 0.75 {
            let possibles = ((duree_s - 0.05) / 0.11).max(1.0) as u64;
            alea.entre(possibles.min(4), possibles) as u32
        } else {
            0
        };
        nuit.push(Sequence {
            nom: nom_sequence(instant_s, millisecondes),
            echantillons,
            cris,
            graine: alea.suivant(),
        });
    }
    nuit
}

/// Une soirée, à l'horloge de l'enregistreur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Soiree {
    pub annee: u32,
    pub mois: u32,
    pub jour: u32,
}

impl Soiree {
    /// Le lendemain (fin de mois et d'année comprises).
    fn lendemain(self) -> Soiree {
        let a = self.annee;
        let bissextile = a.is_multiple_of(4) && (!a.is_multiple_of(100) || a.is_multiple_of(400));
        let jours = match self.mois {
            4 | 6 | 9 | 11 => 30,
            2 if bissextile => 29,
            2 => 28,
            _ => 31,
        };
        match (self.jour < jours, self.mois < 12) {
            (true, _) => Soiree {
                jour: self.jour + 1,
                ..self
            },
            (false, true) => Soiree {
                mois: self.mois + 1,
                jour: 1,
                ..self
            },
            (false, false) => Soiree {
                annee: self.annee + 1,
                mois: 1,
                jour: 1,
            },
        }
    }
}

/// Séquences d'une nuit courte : de 2 à 8 Kio (quelques millisecondes, un cri au plus).
const ECHANTILLONS_COURTS_MIN: u64 = 1_000;
const ECHANTILLONS_COURTS_MAX: u64 = 4_000;
/// Écart entre deux séquences d'une nuit courte : 15 à 30 min.
const ECART_COURT_MIN_S: u64 = 15 * 60;
const ECART_COURT_MAX_S: u64 = 30 * 60;

/// Une nuit courte, pour la petite saison de `vigie demo` : `sequences` séquences de 2 à
/// 8 Kio, nommées `<prefixe>AAAAMMJJ_HHMMSS_mmm.wav`, la première entre `debut_s` et
/// `debut_s` + 10 min (secondes depuis minuit, le soir de `soiree`), les suivantes 15 à
/// 30 min plus tard : dix séquences commencées après 21 h 50 passent minuit.
pub fn composer_courte(
    graine: u64,
    prefixe: &str,
    soiree: Soiree,
    debut_s: u64,
    sequences: usize,
) -> Vec<Sequence> {
    let mut alea = Alea::nouveau(graine);
    let mut instant_s = debut_s + alea.entre(0, 599);
    let mut nuit = Vec::with_capacity(sequences);
    for i in 0..sequences {
        if i > 0 {
            instant_s += alea.entre(ECART_COURT_MIN_S, ECART_COURT_MAX_S);
        }
        let echantillons = alea.entre(ECHANTILLONS_COURTS_MIN, ECHANTILLONS_COURTS_MAX);
        let cris = u32::from(alea.unitaire() < 0.75);
        let jour = (0..instant_s / 86_400).fold(soiree, |j, _| j.lendemain());
        let s = instant_s % 86_400;
        nuit.push(Sequence {
            nom: format!(
                "{prefixe}{:04}{:02}{:02}_{:02}{:02}{:02}_{:03}.wav",
                jour.annee,
                jour.mois,
                jour.jour,
                s / 3600,
                s / 60 % 60,
                s % 60,
                alea.entre(0, 999)
            ),
            echantillons,
            cris,
            graine: alea.suivant(),
        });
    }
    nuit
}

/// Compose la nuit et l'écrit dans `dossier` (créé au besoin). `continuer` est consulté avant
/// chaque séquence : `false` arrête la fabrication (Ctrl-C), avec une erreur `Interrupted`.
pub fn fabriquer(
    dossier: &Path,
    graine: u64,
    continuer: impl Fn() -> bool,
) -> io::Result<Vec<Sequence>> {
    fs::create_dir_all(dossier)?;
    let nuit = composer(graine);
    for s in &nuit {
        if !continuer() {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "fabrication de la nuit interrompue",
            ));
        }
        let mut f = BufWriter::new(fs::File::create(dossier.join(&s.nom))?);
        s.ecrire(&mut f)?;
        f.flush()?;
    }
    Ok(nuit)
}

/// `Car640139-2026-Pass1-A1-OB-1_20260621_221503_123.wav` pour 22:15:03,123 le 21 juin ; après
/// minuit, le 22.
fn nom_sequence(secondes_depuis_le_21: u64, millisecondes: u64) -> String {
    let jour = 21 + secondes_depuis_le_21 / 86_400;
    let s = secondes_depuis_le_21 % 86_400;
    format!(
        "{PREFIXE_NOMS}202606{jour:02}_{:02}{:02}{:02}_{millisecondes:03}.wav",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// splitmix64 : petit, rapide, et de suite stable (voir l'en-tête du module).
struct Alea(u64);

impl Alea {
    fn nouveau(graine: u64) -> Alea {
        Alea(graine)
    }

    fn suivant(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Dans [0, 1).
    fn unitaire(&mut self) -> f64 {
        (self.suivant() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Entier dans [min, max].
    fn entre(&mut self, min: u64, max: u64) -> u64 {
        min + self.suivant() % (max - min + 1)
    }

    fn entre_f(&mut self, min: f64, max: f64) -> f64 {
        min + (max - min) * self.unitaire()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ce qu'un lecteur de WAV lit dans l'en-tête.
    #[derive(Debug)]
    struct EnTete {
        format: u16,
        canaux: u16,
        frequence: u32,
        octets_par_seconde: u32,
        alignement: u16,
        bits: u16,
        taille_donnees: u32,
    }

    fn u16_le(o: &[u8], i: usize) -> u16 {
        u16::from_le_bytes([o[i], o[i + 1]])
    }

    fn u32_le(o: &[u8], i: usize) -> u32 {
        u32::from_le_bytes([o[i], o[i + 1], o[i + 2], o[i + 3]])
    }

    /// Lit un WAV en suivant ses blocs, comme un lecteur le ferait, et vérifie les tailles.
    fn lire(o: &[u8]) -> EnTete {
        assert_eq!(&o[0..4], b"RIFF");
        assert_eq!(u32_le(o, 4) as usize, o.len() - 8, "taille RIFF");
        assert_eq!(&o[8..12], b"WAVE");
        let mut i = 12;
        let mut fmt = None;
        while i + 8 <= o.len() {
            let id = &o[i..i + 4];
            let taille = u32_le(o, i + 4) as usize;
            let corps = i + 8;
            if id == b"fmt " {
                assert_eq!(taille, 16);
                fmt = Some(corps);
            } else if id == b"data" {
                assert_eq!(corps + taille, o.len(), "taille du bloc data");
                let f = fmt.expect("bloc fmt avant data");
                return EnTete {
                    format: u16_le(o, f),
                    canaux: u16_le(o, f + 2),
                    frequence: u32_le(o, f + 4),
                    octets_par_seconde: u32_le(o, f + 8),
                    alignement: u16_le(o, f + 12),
                    bits: u16_le(o, f + 14),
                    taille_donnees: taille as u32,
                };
            }
            i = corps + taille + taille % 2;
        }
        panic!("pas de bloc data");
    }

    #[test]
    fn les_sequences_sont_des_wav_valides() {
        let nuit = composer(7);
        for s in nuit
            .iter()
            .filter(|s| s.echantillons < ECHANTILLONS_GROS_MIN)
            .take(3)
        {
            let o = s.octets();
            assert_eq!(o.len() as u64, s.taille_octets());
            let e = lire(&o);
            assert_eq!(e.format, 1, "PCM");
            assert_eq!(e.canaux, 1);
            // Acquise à 384 kHz, déclarée en ×10 : ce que lit le calcul de la plateforme.
            assert_eq!(e.frequence, 38_400);
            assert_eq!(e.bits, 16);
            assert_eq!(e.alignement, 2);
            assert_eq!(e.octets_par_seconde, 76_800);
            assert_eq!(u64::from(e.taille_donnees), s.echantillons * 2);
        }
    }

    #[test]
    fn une_nuit_realiste() {
        let nuit = composer(7);
        assert_eq!(nuit.len(), SEQUENCES_PAR_NUIT);
        let mio = 1024 * 1024;
        let grosses = nuit.iter().filter(|s| s.taille_octets() > 5 * mio).count();
        assert_eq!(grosses, 2, "deux séquences partent en multipart");
        for s in &nuit {
            assert!(s.taille_octets() >= 300 * 1024, "{}", s.nom);
            assert!(s.taille_octets() <= 7 * mio, "{}", s.nom);
            assert!(s.nom.starts_with(PREFIXE_NOMS) && s.nom.ends_with(".wav"));
        }
        // Horodatages strictement croissants : l'ordre des noms est celui de la nuit.
        assert!(nuit.windows(2).all(|p| p[0].nom < p[1].nom), "{nuit:#?}");
        let avec_cris = nuit.iter().filter(|s| s.cris > 0).count();
        assert!(avec_cris >= 20 && avec_cris < nuit.len(), "{avec_cris}");
    }

    #[test]
    fn les_noms_suivent_le_protocole_point_fixe() {
        let motif = regex::Regex::new(
            r"^Car.+-[0-9]{4}-Pass[1-9][0-9]?-([A-H][12]|Z[0-9]+)-.*[0-9]{8}_[0-9]{6}_[0-9]{3}\.wav$",
        )
        .unwrap();
        for s in composer(123) {
            assert!(motif.is_match(&s.nom), "{}", s.nom);
        }
        assert_eq!(
            nom_sequence(22 * 3600 + 15 * 60 + 3, 123),
            "Car640139-2026-Pass1-A1-OB-1_20260621_221503_123.wav"
        );
        assert_eq!(
            nom_sequence(24 * 3600 + 62, 7),
            "Car640139-2026-Pass1-A1-OB-1_20260622_000102_007.wav"
        );
    }

    #[test]
    fn meme_graine_memes_octets_autre_graine_autre_nuit() {
        let a = composer(7);
        let b = composer(7);
        assert_eq!(a, b);
        assert!(a[0].octets() == b[0].octets());
        let c = composer(8);
        assert_ne!(a[0].nom, c[0].nom);
        assert!(a[0].octets() != c[0].octets());
    }

    #[test]
    fn les_cris_descendent_de_80_a_30_khz() {
        // Fréquence moyenne d'un tiers du cri, d'après ses passages par zéro.
        let c = cri(1920, 80_000.0, 30_000.0);
        let frequence = |morceau: &[f64]| {
            let passages = morceau
                .windows(2)
                .filter(|p| (p[0] < 0.0) != (p[1] < 0.0))
                .count();
            passages as f64 / 2.0 / (morceau.len() as f64 / 384_000.0)
        };
        let (debut, fin) = (frequence(&c[..640]), frequence(&c[1280..]));
        assert!(debut > 65_000.0 && debut < 80_000.0, "{debut}");
        assert!(fin > 30_000.0 && fin < 45_000.0, "{fin}");
    }

    #[test]
    fn un_passage_s_entend_au_dessus_du_bruit() {
        let s = composer(7).into_iter().find(|s| s.cris > 0).unwrap();
        let signal = s.signal();
        let crete = signal.iter().map(|e| e.unsigned_abs()).max().unwrap();
        assert!(crete > 3000, "crête {crete}");
        let muette = Sequence { cris: 0, ..s };
        let crete_bruit = muette
            .signal()
            .iter()
            .map(|e| e.unsigned_abs())
            .max()
            .unwrap();
        assert!(crete_bruit < 1000, "bruit {crete_bruit}");
    }

    #[test]
    fn une_nuit_courte_de_quelques_kio_qui_passe_minuit() {
        let soiree = Soiree {
            annee: 2026,
            mois: 7,
            jour: 31,
        };
        let prefixe = "Car640139-2026-Pass1-A1-PA1_";
        let nuit = composer_courte(5, prefixe, soiree, 21 * 3600 + 50 * 60, 10);
        assert_eq!(
            nuit,
            composer_courte(5, prefixe, soiree, 21 * 3600 + 50 * 60, 10)
        );
        assert_eq!(nuit.len(), 10);
        assert!(
            nuit[0]
                .nom
                .starts_with("Car640139-2026-Pass1-A1-PA1_20260731_2")
        );
        // Le lendemain du 31 juillet est le 1er août.
        assert!(nuit[9].nom.contains("_20260801_"), "{}", nuit[9].nom);
        assert!(nuit.windows(2).all(|p| p[0].nom < p[1].nom), "{nuit:#?}");
        for s in &nuit {
            assert!((2_000..=8_100).contains(&s.taille_octets()), "{s:?}");
            assert_eq!(s.octets().len() as u64, s.taille_octets());
        }
        let fin_d_annee = Soiree {
            annee: 2026,
            mois: 12,
            jour: 31,
        };
        assert_eq!(
            fin_d_annee.lendemain(),
            Soiree {
                annee: 2027,
                mois: 1,
                jour: 1
            }
        );
    }

    #[test]
    fn fabriquer_ecrit_les_fichiers_et_s_arrete_sur_demande() {
        let d = tempfile::tempdir().unwrap();
        let faits = std::cell::Cell::new(0);
        let r = fabriquer(d.path(), 7, || {
            faits.set(faits.get() + 1);
            faits.get() <= 2
        });
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::Interrupted);
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 2);
    }
}
