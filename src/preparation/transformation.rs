//! La transformation de référence d'un enregistrement brut en séquences d'écoute : fréquence
//! réelle, tranches de 5 s réelles, en-tête à Fe/10, noms horodatés et leurs collisions.
//!
//! Imite, règle pour règle, le compagnon officiel de Vigie-Chiro
//! (`echonuit/vigiechiro-pr-companion`), validé sur de vraies nuits :
//! - `importation/model/FrequenceAcquisition.java` : la fréquence **réelle** Fe vient du
//!   journal de l'enregistreur s'il y en a un ; sinon de l'en-tête : 96 000 Hz ou plus, c'est
//!   une acquisition directe (Fe = en-tête) ; en dessous, l'en-tête est déjà expansé ×10
//!   (Fe = en-tête × 10). Le Passive Recorder écrit Fe/10 dans l'en-tête : s'y fier
//!   découperait des tranches dix fois trop courtes ;
//! - `importation/model/TransformationAudio.java` : des tranches de `5 × Fe` trames (la
//!   dernière plus courte), chacune écrite à **Fe/10 sans toucher un échantillon** ; une Fe
//!   qui n'est pas un multiple de 10 est refusée ; ⌈D/5⌉ tranches ;
//! - `commun/model/FichierWav.java` (`ecrire`) : un en-tête canonique de 44 octets
//!   (`RIFF`/`WAVE`/`fmt `/`data`), d'où « mêmes octets en entrée, mêmes octets en sortie » ;
//! - `commun/model/Prefixe.java` : le préfixe `Car<site>-<année>-Pass<n>-<point>-` devant le
//!   nom de l'enregistreur (un nom déjà préfixé le garde tel quel), et le nom de la tranche k :
//!   le **dernier** horodatage `_AAAAMMJJ_HHMMSS` du nom décalé de k × 5 s, suffixe `_000` ;
//!   sans horodatage, le suffixe est l'index (`_000`, `_001`…) ;
//! - `commun/model/NommageSequences.java` (`arbitrer`) : deux originaux qui se chevauchent
//!   veulent le même nom ; les originaux d'une nuit sont pris dans l'ordre de leur nom (donc
//!   chronologique), le plus ancien garde `_000`, l'autre passe à `_001`, `_002`… (la
//!   convention de Kaleidoscope, clé de jointure avec le CSV de Tadarida).
//!
//! Deux écarts, voulus et dits ici : l'horodatage se reconnaît aussi après un tiret
//! (`Car…-A1-20260621_223015.wav`, le nom d'un AudioMoth préfixé), où la référence retombait
//! sur l'index, qui donnait à toutes les tranches la même seconde ; et l'extension est écrite
//! en minuscules (`.WAV` → `.wav`), la seule que la plateforme accepte
//! (`resources/donnees.py`).
//!
//! Pur : aucune lecture ni écriture ; `preparation::ecriture` copie les octets que
//! [`Decoupage`] désigne.

use std::collections::HashSet;

use chrono::{NaiveDateTime, TimeDelta};

use super::entete::EnteteWav;

/// Durée d'une tranche, en secondes **réelles** (au rythme de l'acquisition).
pub(crate) const DUREE_TRANCHE_S: u32 = 5;
/// Le facteur d'expansion de temps du protocole : la plateforme lit les séquences à Fe/10
/// (`scripts/task_participation.py`, `tadaridaD -x 10`).
pub(crate) const FACTEUR_EXPANSION: u32 = 10;
/// Au-dessus, sans journal, un en-tête est une acquisition directe ; en dessous, il est déjà
/// expansé (`FrequenceAcquisition.SEUIL_ACQUISITION_HZ`).
pub(crate) const SEUIL_DIRECT_HZ: u32 = 96_000;
/// L'en-tête canonique d'une séquence.
pub(crate) const TAILLE_ENTETE_SEQUENCE: u64 = 44;

/// La fréquence réelle d'acquisition : celle du journal, sinon celle de l'en-tête selon le
/// seuil (`FrequenceAcquisition.reelle`).
pub(crate) fn frequence_reelle(entete_hz: u32, journal_hz: Option<u32>) -> u32 {
    match journal_hz {
        Some(fe) if fe > 0 => fe,
        _ if entete_hz >= SEUIL_DIRECT_HZ => entete_hz,
        _ => entete_hz.saturating_mul(FACTEUR_EXPANSION),
    }
}

/// Pourquoi un original ne se découpe pas.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ErreurDecoupage {
    #[error(
        "fréquence d'acquisition {0} Hz non divisible par {FACTEUR_EXPANSION} : l'expansion ×10 \
         ne tomberait pas juste"
    )]
    FrequenceNonDivisible(u32),
    #[error("tranche de 5 s trop grande pour un WAV ({0} octets)")]
    TrancheTropGrande(u64),
}

/// Une tranche : où sont ses octets PCM dans l'original.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tranche {
    /// Position absolue dans le fichier original.
    pub(crate) debut: u64,
    pub(crate) longueur: u64,
}

/// Le découpage d'un original en tranches de 5 s réelles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoupage {
    /// La fréquence réelle d'acquisition.
    pub(crate) fe_hz: u32,
    canaux: u16,
    bits: u16,
    debut_donnees: u64,
    octets_donnees: u64,
    octets_par_tranche: u64,
}

impl Decoupage {
    /// Le découpage d'un original dont l'en-tête est `entete`, le journal de l'enregistreur
    /// donnant (ou non) la fréquence réelle.
    pub(crate) fn nouveau(
        entete: &EnteteWav,
        journal_hz: Option<u32>,
    ) -> Result<Self, ErreurDecoupage> {
        let fe_hz = frequence_reelle(entete.frequence_hz, journal_hz);
        if !fe_hz.is_multiple_of(FACTEUR_EXPANSION) {
            return Err(ErreurDecoupage::FrequenceNonDivisible(fe_hz));
        }
        let octets_par_tranche =
            u64::from(DUREE_TRANCHE_S) * u64::from(fe_hz) * entete.octets_par_trame();
        // Le bloc `data` et le RIFF d'une séquence portent des tailles sur 32 bits.
        if octets_par_tranche + TAILLE_ENTETE_SEQUENCE > u64::from(u32::MAX) {
            return Err(ErreurDecoupage::TrancheTropGrande(octets_par_tranche));
        }
        Ok(Decoupage {
            fe_hz,
            canaux: entete.canaux,
            bits: entete.bits,
            debut_donnees: entete.debut_donnees,
            octets_donnees: entete.octets_donnees,
            octets_par_tranche,
        })
    }

    /// La fréquence écrite dans l'en-tête des séquences : Fe/10.
    pub(crate) fn frequence_sortie_hz(&self) -> u32 {
        self.fe_hz / FACTEUR_EXPANSION
    }

    /// Le nombre de tranches : ⌈D/5⌉ (D, la durée réelle).
    pub(crate) fn nombre(&self) -> usize {
        self.octets_donnees.div_ceil(self.octets_par_tranche) as usize
    }

    /// La tranche `k` (`k < nombre()`).
    pub(crate) fn tranche(&self, k: usize) -> Tranche {
        let decalage = k as u64 * self.octets_par_tranche;
        Tranche {
            debut: self.debut_donnees + decalage,
            longueur: self.octets_par_tranche.min(self.octets_donnees - decalage),
        }
    }

    /// La taille du fichier de la séquence `k`.
    pub(crate) fn taille_sequence(&self, k: usize) -> u64 {
        TAILLE_ENTETE_SEQUENCE + self.tranche(k).longueur
    }

    /// L'en-tête canonique d'une séquence de `longueur` octets PCM, à Fe/10
    /// (`FichierWav.ecrire`).
    pub(crate) fn entete_sequence(&self, longueur: u64) -> [u8; TAILLE_ENTETE_SEQUENCE as usize] {
        // `nouveau` a vérifié que 44 + une tranche tient sur 32 bits.
        let longueur = longueur as u32;
        let sortie = self.frequence_sortie_hz();
        let bloc = self.canaux * (self.bits / 8);
        let mut e = [0u8; TAILLE_ENTETE_SEQUENCE as usize];
        let mut i = 0;
        let mut mettre = |o: &[u8]| {
            e[i..i + o.len()].copy_from_slice(o);
            i += o.len();
        };
        mettre(b"RIFF");
        mettre(&(36 + longueur).to_le_bytes());
        mettre(b"WAVEfmt ");
        mettre(&16u32.to_le_bytes());
        mettre(&1u16.to_le_bytes());
        mettre(&self.canaux.to_le_bytes());
        mettre(&sortie.to_le_bytes());
        mettre(&(sortie * u32::from(bloc)).to_le_bytes());
        mettre(&bloc.to_le_bytes());
        mettre(&self.bits.to_le_bytes());
        mettre(b"data");
        mettre(&longueur.to_le_bytes());
        e
    }
}

/// Le préfixe des noms d'une participation de point fixe : `Car<site>-<année>-Pass<n>-<point>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Prefixe {
    /// Le numéro de site tel qu'écrit (`640380`).
    pub(crate) site: String,
    pub(crate) annee: i32,
    pub(crate) passage: u8,
    /// Le point d'écoute (`A1`, `Z12`).
    pub(crate) point: String,
}

impl Prefixe {
    /// `Car640380-2026-Pass1-A1` (le nom du dossier de session du compagnon).
    pub(crate) fn session(&self) -> String {
        format!(
            "Car{}-{}-Pass{}-{}",
            self.site, self.annee, self.passage, self.point
        )
    }
}

/// Le nom « R6 » d'un original : le préfixe devant le nom de l'enregistreur, extension en
/// minuscules ; un nom déjà préfixé est gardé (jamais `Car…-Car…`).
pub(crate) fn nom_r6(prefixe: &Prefixe, nom_enregistreur: &str) -> String {
    let nom = minuscule_extension(nom_enregistreur);
    if deja_prefixe(&nom) {
        nom
    } else {
        format!("{}-{nom}", prefixe.session())
    }
}

/// `Car<chiffres>-<4 chiffres>-Pass<chiffres>-<point>-<reste>` (`Prefixe.MOTIF_PREFIXE_R6`).
fn deja_prefixe(nom: &str) -> bool {
    let Some(reste) = nom.strip_prefix("Car") else {
        return false;
    };
    let mut morceaux = reste.splitn(5, '-');
    let chiffres =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|o| o.is_ascii_digit()));
    chiffres(morceaux.next())
        && morceaux
            .next()
            .is_some_and(|a| a.len() == 4 && a.bytes().all(|o| o.is_ascii_digit()))
        && chiffres(morceaux.next().and_then(|p| p.strip_prefix("Pass")))
        && morceaux.next().is_some_and(|p| !p.is_empty())
        && morceaux.next().is_some_and(|r| !r.is_empty())
}

fn minuscule_extension(nom: &str) -> String {
    match nom.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => format!("{s}.{}", e.to_ascii_lowercase()),
        _ => nom.to_owned(),
    }
}

/// Le **dernier** horodatage `AAAAMMJJ_HHMMSS` d'un nom, précédé de `_` ou `-` (ou au début)
/// et suivi d'une fin de souche, d'un `_` ou d'un `.` : sa position et l'instant (heure de
/// l'enregistreur, sans fuseau).
pub(crate) fn horodatage_du_nom(nom: &str) -> Option<(usize, NaiveDateTime)> {
    let o = nom.as_bytes();
    let chiffres = |a: usize, b: usize| o[a..b].iter().all(u8::is_ascii_digit);
    (0..o.len().saturating_sub(14)).rev().find_map(|i| {
        let avant_ok = i == 0 || matches!(o[i - 1], b'_' | b'-');
        let apres_ok = o.get(i + 15).is_none_or(|c| matches!(c, b'_' | b'.'));
        if !(avant_ok
            && apres_ok
            && chiffres(i, i + 8)
            && o[i + 8] == b'_'
            && chiffres(i + 9, i + 15))
        {
            return None;
        }
        let t = NaiveDateTime::parse_from_str(&nom[i..i + 15], "%Y%m%d_%H%M%S").ok()?;
        Some((i, t))
    })
}

/// Le nom souhaité de la tranche `index` d'un original nommé `nom_r6` : son horodatage décalé
/// de `index × 5 s`, suffixe `_000` ; sans horodatage, le suffixe est l'index
/// (`Prefixe.nommerSequence`).
pub(crate) fn nom_souhaite(nom_r6: &str, index: usize) -> String {
    let (base, extension) = match nom_r6.rsplit_once('.') {
        Some((b, e)) => (b, format!(".{e}")),
        None => (nom_r6, String::new()),
    };
    match horodatage_du_nom(base) {
        Some((i, t)) => {
            let decale = t + TimeDelta::seconds(i64::from(DUREE_TRANCHE_S) * index as i64);
            format!(
                "{}{}{}_000{extension}",
                &base[..i],
                decale.format("%Y%m%d_%H%M%S"),
                &base[i + 15..]
            )
        }
        None => format!("{base}_{index:03}{extension}"),
    }
}

/// Remplace le suffixe `_NNN` final par `_index` (`NommageSequences.avecIndexSequence`).
fn avec_index(nom: &str, index: usize) -> String {
    let (base, extension) = match nom.rsplit_once('.') {
        Some((b, e)) => (b, format!(".{e}")),
        None => (nom, String::new()),
    };
    let sans = match base.rsplit_once('_') {
        Some((b, n)) if n.len() == 3 && n.bytes().all(|o| o.is_ascii_digit()) => b,
        _ => base,
    };
    format!("{sans}_{index:03}{extension}")
}

/// Ce qu'un original attend de l'arbitrage : son nom R6 et son nombre de tranches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TranchesAttendues {
    pub(crate) nom_r6: String,
    pub(crate) nombre: usize,
}

/// Les noms définitifs des tranches de **tous** les originaux d'une nuit, dans l'ordre donné,
/// chacun dans l'ordre de ses tranches (`NommageSequences.arbitrer`) : les originaux sont
/// servis dans l'ordre de leur nom, le plus ancien garde `_000`, le suivant prend le premier
/// suffixe libre. Une nuit incomplète rendrait d'autres noms : on donne toute la nuit.
pub(crate) fn arbitrer(originaux: &[TranchesAttendues]) -> Vec<Vec<String>> {
    let mut ordre: Vec<usize> = (0..originaux.len()).collect();
    ordre.sort_by(|&a, &b| originaux[a].nom_r6.cmp(&originaux[b].nom_r6));
    let mut pris: HashSet<String> = HashSet::new();
    let mut noms = vec![Vec::new(); originaux.len()];
    for i in ordre {
        let o = &originaux[i];
        noms[i] = (0..o.nombre)
            .map(|k| {
                let souhaite = nom_souhaite(&o.nom_r6, k);
                let mut candidat = souhaite.clone();
                let mut n = 0;
                while !pris.insert(candidat.clone()) {
                    n += 1;
                    candidat = avec_index(&souhaite, n);
                }
                candidat
            })
            .collect();
    }
    noms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entete(frequence_hz: u32, octets_donnees: u64) -> EnteteWav {
        EnteteWav {
            canaux: 1,
            frequence_hz,
            bits: 16,
            debut_donnees: 44,
            octets_donnees,
            guano: None,
            commentaire: None,
        }
    }

    fn prefixe() -> Prefixe {
        Prefixe {
            site: "640380".into(),
            annee: 2026,
            passage: 1,
            point: "A1".into(),
        }
    }

    #[test]
    fn la_frequence_reelle_suit_le_journal_puis_le_seuil() {
        assert_eq!(frequence_reelle(38_400, Some(384_000)), 384_000);
        assert_eq!(frequence_reelle(384_000, None), 384_000);
        assert_eq!(frequence_reelle(96_000, None), 96_000);
        assert_eq!(frequence_reelle(38_400, None), 384_000);
        assert_eq!(frequence_reelle(38_400, Some(0)), 384_000);
    }

    #[test]
    fn un_passive_recorder_de_12_3_s_donne_trois_tranches_a_38400() {
        // 12,3 s à Fe = 384 kHz, mono 16 bits ; l'en-tête dit 38 400 (déjà ×10).
        let octets = 4_723_200 * 2;
        let d = Decoupage::nouveau(&entete(38_400, octets), Some(384_000)).unwrap();
        assert_eq!(d.nombre(), 3);
        assert_eq!(d.frequence_sortie_hz(), 38_400);
        assert_eq!(
            d.tranche(0),
            Tranche {
                debut: 44,
                longueur: 3_840_000
            }
        );
        assert_eq!(d.tranche(1).debut, 44 + 3_840_000);
        assert_eq!(d.tranche(2).longueur, octets - 2 * 3_840_000);
        // Sans journal, l'en-tête à 38 400 est lu comme déjà expansé : même découpage.
        assert_eq!(
            Decoupage::nouveau(&entete(38_400, octets), None).unwrap(),
            d
        );
    }

    #[test]
    fn un_direct_de_7_s_donne_deux_tranches_et_la_limite_exacte_une_seule() {
        let d = Decoupage::nouveau(&entete(384_000, 2_688_000 * 2), None).unwrap();
        assert_eq!(d.nombre(), 2);
        assert_eq!(d.frequence_sortie_hz(), 38_400);
        let pile = Decoupage::nouveau(&entete(384_000, 3_840_000), None).unwrap();
        assert_eq!(pile.nombre(), 1);
        assert_eq!(
            Decoupage::nouveau(&entete(384_000, 0), None)
                .unwrap()
                .nombre(),
            0
        );
    }

    #[test]
    fn une_frequence_non_divisible_par_dix_est_refusee() {
        assert_eq!(
            Decoupage::nouveau(&entete(250_001, 10), None),
            Err(ErreurDecoupage::FrequenceNonDivisible(250_001))
        );
    }

    #[test]
    fn l_entete_d_une_sequence_est_canonique_a_fe_sur_dix() {
        let d = Decoupage::nouveau(&entete(384_000, 100), None).unwrap();
        let e = d.entete_sequence(100);
        let mut attendu = b"RIFF".to_vec();
        attendu.extend(136u32.to_le_bytes());
        attendu.extend(b"WAVEfmt ");
        attendu.extend(16u32.to_le_bytes());
        attendu.extend(1u16.to_le_bytes());
        attendu.extend(1u16.to_le_bytes());
        attendu.extend(38_400u32.to_le_bytes());
        attendu.extend(76_800u32.to_le_bytes());
        attendu.extend(2u16.to_le_bytes());
        attendu.extend(16u16.to_le_bytes());
        attendu.extend(b"data");
        attendu.extend(100u32.to_le_bytes());
        assert_eq!(e.as_slice(), attendu.as_slice());
    }

    #[test]
    fn le_prefixe_se_pose_une_fois() {
        let p = prefixe();
        assert_eq!(
            nom_r6(&p, "S4U12345_20260621_223015.WAV"),
            "Car640380-2026-Pass1-A1-S4U12345_20260621_223015.wav"
        );
        let deja = "Car640380-2026-Pass1-A1-S4U12345_20260621_223015.wav";
        assert_eq!(nom_r6(&p, deja), deja);
        // `Carto_…` n'est pas un préfixe.
        assert_eq!(
            nom_r6(&p, "Carto_20260621_223015.wav"),
            "Car640380-2026-Pass1-A1-Carto_20260621_223015.wav"
        );
    }

    #[test]
    fn la_tranche_k_porte_l_horodatage_decale_de_k_fois_5_s() {
        let n = "Car640380-2026-Pass1-A1-PaRecPR1925492_20260621_235955.wav";
        assert_eq!(
            nom_souhaite(n, 0),
            "Car640380-2026-Pass1-A1-PaRecPR1925492_20260621_235955_000.wav"
        );
        // Le décalage passe minuit.
        assert_eq!(
            nom_souhaite(n, 2),
            "Car640380-2026-Pass1-A1-PaRecPR1925492_20260622_000005_000.wav"
        );
        // Le dernier horodatage compte.
        assert_eq!(
            nom_souhaite("X_20260101_000000_20260621_220000.wav", 1),
            "X_20260101_000000_20260621_220005_000.wav"
        );
        // Après un tiret (AudioMoth préfixé).
        assert_eq!(
            nom_souhaite("Car640380-2026-Pass1-A1-20260621_223015.wav", 1),
            "Car640380-2026-Pass1-A1-20260621_223020_000.wav"
        );
        // Sans horodatage : l'index.
        assert_eq!(
            nom_souhaite("Car1-2026-Pass1-A1-essai.wav", 2),
            "Car1-2026-Pass1-A1-essai_002.wav"
        );
    }

    #[test]
    fn deux_originaux_qui_se_chevauchent_le_plus_ancien_garde_000() {
        let a = "Car1-2026-Pass1-A1-PR1_20260621_223000.wav";
        let b = "Car1-2026-Pass1-A1-PR1_20260621_223010.wav";
        // Donnés dans le désordre : l'arbitrage suit l'ordre des noms.
        let noms = arbitrer(&[
            TranchesAttendues {
                nom_r6: b.into(),
                nombre: 2,
            },
            TranchesAttendues {
                nom_r6: a.into(),
                nombre: 3,
            },
        ]);
        assert_eq!(
            noms[1],
            [
                "Car1-2026-Pass1-A1-PR1_20260621_223000_000.wav",
                "Car1-2026-Pass1-A1-PR1_20260621_223005_000.wav",
                "Car1-2026-Pass1-A1-PR1_20260621_223010_000.wav",
            ]
        );
        assert_eq!(
            noms[0],
            [
                "Car1-2026-Pass1-A1-PR1_20260621_223010_001.wav",
                "Car1-2026-Pass1-A1-PR1_20260621_223015_000.wav",
            ]
        );
        // Un troisième au même instant : `_002`.
        let c = "Car1-2026-Pass1-A1-PR1_20260621_223010.wav";
        let noms = arbitrer(&[
            TranchesAttendues {
                nom_r6: a.into(),
                nombre: 3,
            },
            TranchesAttendues {
                nom_r6: b.into(),
                nombre: 1,
            },
            TranchesAttendues {
                nom_r6: c.into(),
                nombre: 1,
            },
        ]);
        assert_eq!(noms[1], ["Car1-2026-Pass1-A1-PR1_20260621_223010_001.wav"]);
        assert_eq!(noms[2], ["Car1-2026-Pass1-A1-PR1_20260621_223010_002.wav"]);
    }
}
