//! Les horodatages des noms, jugés avant toute création : une participation prend la date de
//! ses séquences, et un fichier accepté ne se retire pas de la plateforme.
//!
//! Pourquoi : une horloge d'enregistreur remise à zéro (pile changée, réglage perdu) écrit des
//! noms `Car640380-2026-…_20000101_000012_000.wav` : l'année du nom (donnée par l'outil de
//! préparation) dit 2026, l'horodatage 2000. Chaque soir l'horloge recommence au même instant,
//! et dix nuits se fondent en une seule, « ven. 31/12 » 1999, déposée dans une participation
//! datée du 31 décembre 1999, sans un mot. Le serveur accepte ces noms (il ne lit que des
//! chiffres : `resources/donnees.py` `validate_donnee_name`) ; c'est à `vigie` de les juger.
//!
//! Ce qui est refusé, fichier par fichier, de la cause la plus sûre à la moins sûre :
//! - une date ou une heure qui n'existe pas au calendrier (`20260231`, `256099`) ;
//! - une soirée d'une autre année que celle du nom (la soirée d'une séquence d'après minuit
//!   est la veille : la nuit du 31 décembre garde son année) ;
//! - une soirée d'avant le programme Vigie-Chiro ([`ANNEE_DU_PROGRAMME`]), nom compris ;
//! - une soirée dans le futur (plus d'un jour après aujourd'hui : l'horloge de l'enregistreur
//!   n'a pas de fuseau) ;
//! - une soirée que contredit le journal de l'enregistreur (`LogPR<n>.txt` du Passive
//!   Recorder), quand il est là : il fait foi pour la date. Le journal est circulaire (ses
//!   plus vieilles lignes peuvent manquer, `AnalyseurLogPR.java` du compagnon) : une soirée
//!   antérieure à sa première ligne de moins de [`JOURNAL_PERDU_JOURS`] jours n'est pas jugée ;
//!   une soirée après sa dernière ligne, ou dans sa période sans ligne ce soir-là ni le
//!   lendemain matin, ou bien avant sa première ligne, l'est.
//!
//! Les fonctions sont pures : le jour d'aujourd'hui et les journaux sont donnés.

use std::collections::BTreeSet;

use chrono::{Datelike, NaiveDate, TimeDelta};

use super::nuits::{horodatage_du_nom, soiree_de};
use crate::inventaire::{Enregistrement, NomDecompose, nom_decompose};

/// L'année où commence le programme Vigie-Chiro (protocole routier) : aucune séquence de la
/// plateforme n'est plus ancienne.
pub(crate) const ANNEE_DU_PROGRAMME: i32 = 2006;
/// Combien de jours avant sa première ligne un journal circulaire peut avoir perdu.
pub(crate) const JOURNAL_PERDU_JOURS: i64 = 30;

/// Le journal d'un enregistreur : son chemin (relatif, `/`) et les jours de ses lignes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Journal {
    pub(crate) chemin: String,
    pub(crate) jours: BTreeSet<NaiveDate>,
}

impl Journal {
    /// Lit le texte d'un journal `LogPR<n>.txt` : chaque ligne
    /// `JJ/MM/AA - HH:MM:SS PR<série> …` donne un jour (`AnalyseurLogPR.java` du compagnon) ;
    /// les autres sont passées.
    pub(crate) fn lire(chemin: String, texte: &str) -> Journal {
        let jours = texte.lines().filter_map(jour_d_une_ligne).collect();
        Journal { chemin, jours }
    }

    /// Le dossier qu'il couvre (relatif, `""` : la racine).
    fn dossier(&self) -> &str {
        self.chemin.rsplit_once('/').map_or("", |(d, _)| d)
    }

    /// Couvre-t-il ce fichier (dans son dossier ou en dessous) ?
    fn couvre(&self, chemin: &str) -> bool {
        let d = self.dossier();
        d.is_empty()
            || chemin
                .strip_prefix(d)
                .is_some_and(|reste| reste.starts_with('/'))
    }

    /// La soirée `s` le contredit-elle ? (Voir l'en-tête du module.)
    fn contredit(&self, s: NaiveDate) -> bool {
        let Some(&premier) = self.jours.first() else {
            return false;
        };
        let connue = self.jours.contains(&s) || self.jours.contains(&(s + TimeDelta::days(1)));
        if connue {
            return false;
        }
        // Après sa dernière ligne comme dans sa période : contredite.
        s >= premier || s < premier - TimeDelta::days(JOURNAL_PERDU_JOURS)
    }

    /// Son premier et son dernier jour.
    pub(crate) fn etendue(&self) -> Option<(NaiveDate, NaiveDate)> {
        Some((*self.jours.first()?, *self.jours.last()?))
    }
}

/// `JJ/MM/AA - HH:MM:SS PR<chiffres> …` : le jour (an 2000 et suivants).
fn jour_d_une_ligne(ligne: &str) -> Option<NaiveDate> {
    let l = ligne.trim_start().as_bytes();
    let chiffres = |r: std::ops::Range<usize>| -> Option<u32> {
        let t = l.get(r)?;
        t.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(t).ok()?.parse().ok())?
    };
    if l.get(2) != Some(&b'/') || l.get(5) != Some(&b'/') {
        return None;
    }
    let (j, m, a) = (chiffres(0..2)?, chiffres(3..5)?, chiffres(6..8)?);
    // Le reste : « - HH:MM:SS PR… », espaces tolérées autour du tiret.
    let reste = std::str::from_utf8(&l[8..]).ok()?.trim_start();
    let reste = reste.strip_prefix('-')?.trim_start();
    let (heure, apres) = reste.split_once(char::is_whitespace)?;
    let h = heure.as_bytes();
    let heure_ok = h.len() == 8
        && h[2] == b':'
        && h[5] == b':'
        && h.iter()
            .enumerate()
            .all(|(i, o)| i == 2 || i == 5 || o.is_ascii_digit());
    let pr = apres.trim_start().strip_prefix("PR")?;
    if !heure_ok || !pr.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    NaiveDate::from_ymd_opt(2000 + a as i32, m, j)
}

/// Ce qui cloche dans l'horodatage d'un nom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FauteHorodatage {
    /// La date ou l'heure n'existe pas au calendrier.
    Impossible,
    /// La soirée est d'une autre année que le nom (`soiree` : la date lue).
    AutreAnnee {
        annee_du_nom: u16,
        soiree: NaiveDate,
    },
    /// Avant le programme Vigie-Chiro, le nom aussi.
    AvantLeProgramme { soiree: NaiveDate },
    /// Dans le futur.
    Futur { soiree: NaiveDate },
    /// Le journal de l'enregistreur ne connaît pas cette soirée.
    JournalContredit {
        soiree: NaiveDate,
        journal: String,
        etendue: (NaiveDate, NaiveDate),
    },
}

/// `JJ/MM/AAAA`.
fn date(d: NaiveDate) -> String {
    d.format("%d/%m/%Y").to_string()
}

impl FauteHorodatage {
    /// La règle, en une phrase (la clé du regroupement).
    pub(crate) fn regle(&self) -> String {
        const HORLOGE: &str = "l'horloge de l'enregistreur était mal réglée (remise à zéro ?)";
        match self {
            FauteHorodatage::Impossible => {
                "horodatage impossible (cette date ou cette heure n'existe pas)".to_owned()
            }
            FauteHorodatage::AutreAnnee {
                annee_du_nom,
                soiree,
            } => format!(
                "horodatage de la nuit du {} pour un nom de {annee_du_nom} : {HORLOGE} ; \
                 déposées ainsi, les nuits se fondraient en une participation datée du {}",
                date(*soiree),
                date(*soiree)
            ),
            FauteHorodatage::AvantLeProgramme { soiree } => format!(
                "horodatage de la nuit du {}, avant le programme Vigie-Chiro ({ANNEE_DU_PROGRAMME}) : \
                 {HORLOGE}",
                date(*soiree)
            ),
            FauteHorodatage::Futur { soiree } => format!(
                "horodatage de la nuit du {}, dans le futur : {HORLOGE}",
                date(*soiree)
            ),
            FauteHorodatage::JournalContredit {
                soiree,
                journal,
                etendue: (premier, dernier),
            } => format!(
                "horodatage de la nuit du {}, que le journal de l'enregistreur ({journal}, du {} \
                 au {}) ne connaît pas : il fait foi, {HORLOGE}",
                date(*soiree),
                date(*premier),
                date(*dernier)
            ),
        }
    }
}

/// Un fichier dont l'horodatage est refusé.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HorodatageFautif {
    /// Son rang dans les enregistrements donnés.
    pub(crate) fichier: usize,
    pub(crate) faute: FauteHorodatage,
}

/// Juge l'horodatage de chaque séquence du point fixe (les noms routiers n'en ont pas ; un nom
/// hors protocole est jugé par ailleurs). `aujourd_hui` : la date du jour ; `journaux` : ceux
/// de l'inventaire, lus ; le plus proche du fichier fait foi.
pub(crate) fn juger(
    enregistrements: &[Enregistrement],
    journaux: &[Journal],
    aujourd_hui: NaiveDate,
) -> Vec<HorodatageFautif> {
    let mut fautifs = Vec::new();
    for (fichier, e) in enregistrements.iter().enumerate() {
        let Some(NomDecompose::PointFixe {
            annee,
            date,
            heure,
            millisecondes,
            ..
        }) = nom_decompose(e.nom())
        else {
            continue;
        };
        let faute = match horodatage_du_nom(date, heure, millisecondes) {
            None => Some(FauteHorodatage::Impossible),
            Some(t) => {
                let soiree = soiree_de(t);
                let annee_du_nom = annee.parse::<u16>().unwrap_or(0);
                juger_soiree(soiree, annee_du_nom, aujourd_hui, || {
                    journaux
                        .iter()
                        .filter(|j| j.couvre(&e.chemin))
                        .max_by_key(|j| j.dossier().len())
                })
            }
        };
        if let Some(faute) = faute {
            fautifs.push(HorodatageFautif { fichier, faute });
        }
    }
    fautifs
}

fn juger_soiree<'a>(
    soiree: NaiveDate,
    annee_du_nom: u16,
    aujourd_hui: NaiveDate,
    journal: impl FnOnce() -> Option<&'a Journal>,
) -> Option<FauteHorodatage> {
    if soiree.year() != i32::from(annee_du_nom) {
        return Some(FauteHorodatage::AutreAnnee {
            annee_du_nom,
            soiree,
        });
    }
    if soiree.year() < ANNEE_DU_PROGRAMME {
        return Some(FauteHorodatage::AvantLeProgramme { soiree });
    }
    if soiree > aujourd_hui + TimeDelta::days(1) {
        return Some(FauteHorodatage::Futur { soiree });
    }
    let j = journal()?;
    let etendue = j.etendue()?;
    j.contredit(soiree)
        .then(|| FauteHorodatage::JournalContredit {
            soiree,
            journal: j.chemin.clone(),
            etendue,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enr(chemin: &str) -> Enregistrement {
        Enregistrement {
            chemin: chemin.into(),
            taille: 1,
            modifie_ns: 0,
            identite: None,
        }
    }

    fn jour(a: i32, m: u32, j: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(a, m, j).unwrap()
    }

    const AUJOURD_HUI: (i32, u32, u32) = (2026, 12, 6);

    fn juger_noms(noms: &[&str], journaux: &[Journal]) -> Vec<(usize, FauteHorodatage)> {
        let e: Vec<_> = noms.iter().map(|n| enr(n)).collect();
        let (a, m, j) = AUJOURD_HUI;
        juger(&e, journaux, jour(a, m, j))
            .into_iter()
            .map(|f| (f.fichier, f.faute))
            .collect()
    }

    #[test]
    fn horloge_remise_a_2000_refusee_par_l_annee_du_nom() {
        let noms: Vec<String> = (0..10)
            .map(|n| format!("nuit{n}/Car640380-2026-Pass1-A1-PA1_20000101_0000{n:02}_000.wav"))
            .collect();
        let noms: Vec<&str> = noms.iter().map(String::as_str).collect();
        let fautes = juger_noms(&noms, &[]);
        assert_eq!(fautes.len(), 10);
        // 00:00:0n : la soirée est la veille, ven. 31/12/1999.
        assert!(fautes.iter().all(|(_, f)| *f
            == FauteHorodatage::AutreAnnee {
                annee_du_nom: 2026,
                soiree: jour(1999, 12, 31)
            }));
        let regle = fautes[0].1.regle();
        assert!(
            regle.contains("31/12/1999") && regle.contains("2026"),
            "{regle}"
        );
    }

    #[test]
    fn impossible_avant_le_programme_futur_et_nuits_justes() {
        let fautes = juger_noms(
            &[
                "Car640380-2026-Pass1-A1-PA1_20260231_220000_000.wav",
                "Car640380-2026-Pass1-A1-PA1_20260621_256099_000.wav",
                "Car640380-2000-Pass1-A1-PA1_20000601_220000_000.wav",
                "Car640380-2027-Pass1-A1-PA1_20270601_220000_000.wav",
                // Justes : une nuit ordinaire, celle du réveillon (soirée 2026), hier soir,
                // et une sortie Tadarida ; le routier n'a pas d'horodatage.
                "Car640380-2026-Pass1-A1-PA1_20260621_220000_000.wav",
                "Car640380-2025-Pass1-A1-PA1_20260101_013000_000.ta",
                "Car640380-2026-Pass1-A1-PA1_20261206_220000_000.wav",
                "Cir270-2026-Pass1-Tron1-Chiro_0_00023_000.wav",
            ],
            &[],
        );
        assert_eq!(
            fautes,
            [
                (0, FauteHorodatage::Impossible),
                (1, FauteHorodatage::Impossible),
                (
                    2,
                    FauteHorodatage::AvantLeProgramme {
                        soiree: jour(2000, 6, 1)
                    }
                ),
                (
                    3,
                    FauteHorodatage::Futur {
                        soiree: jour(2027, 6, 1)
                    }
                ),
            ]
        );
    }

    #[test]
    fn le_journal_fait_foi_pour_la_date() {
        let journal = Journal::lire(
            "carte/LogPR1925492.txt".into(),
            "Journal du PR1925492\n\
             18/06/26 - 16:02:21 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz\n\
             18/06/26 - 20:25:00 PR1925492 Wakeup ALARM\n\
             19/06/26 - 07:47:00 PR1925492 Mise en veille\n\
             22/06/26 - 20:25:00 PR1925492 Wakeup ALARM\n\
             ligne abîmée 32/13/26 - xx\n",
        );
        assert_eq!(
            journal.etendue(),
            Some((jour(2026, 6, 18), jour(2026, 6, 22)))
        );
        let nom = |d: &str| format!("carte/Car640380-2026-Pass1-A1-PA1_{d}_220000_000.wav");
        let noms = [
            nom("20260618"),
            nom("20260622"),
            // Hors du journal : après sa dernière ligne, dans sa période sans ligne, bien
            // avant sa première (horloge remise au 1er janvier de l'année).
            nom("20260625"),
            nom("20260620"),
            nom("20260101"),
            // Peu avant sa première ligne : perdu d'un journal circulaire, pas jugé.
            nom("20260610"),
        ];
        let mut noms: Vec<&str> = noms.iter().map(String::as_str).collect();
        // Hors de son dossier : pas couvert.
        noms.push("autre/Car640380-2026-Pass1-A1-PA1_20260101_220000_000.wav");
        let fautes = juger_noms(&noms, std::slice::from_ref(&journal));
        let rangs: Vec<usize> = fautes.iter().map(|(r, _)| *r).collect();
        assert_eq!(rangs, [2, 3, 4]);
        let regle = fautes[0].1.regle();
        assert!(
            regle.contains("LogPR1925492.txt") && regle.contains("18/06/2026"),
            "{regle}"
        );
    }

    #[test]
    fn noms_de_journaux() {
        use crate::inventaire::est_un_journal;
        assert!(est_un_journal("LogPR1925492.txt"));
        assert!(est_un_journal("LogPR1.txt"));
        assert!(!est_un_journal("LogPR.txt"));
        assert!(!est_un_journal("logpr12.txt"));
        assert!(!est_un_journal("LogPR12.txt.bak"));
        assert_eq!(
            jour_d_une_ligne("01/01/00 - 00:00:00 PR1 x"),
            Some(jour(2000, 1, 1))
        );
        assert_eq!(jour_d_une_ligne("31/02/26 - 00:00:00 PR1 x"), None);
        assert_eq!(jour_d_une_ligne("18/06/26 16:02:21 PR1 x"), None);
        assert_eq!(jour_d_une_ligne("18/06/26 - 16:02:21 XX1 x"), None);
    }
}
