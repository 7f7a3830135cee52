//! Regrouper les enregistrements d'une saison en nuits, d'après leur nom.
//!
//! Une **nuit** est ce que la plateforme appelle une participation : un site, un point, une
//! nuit (`resources/participations.py` : `site`, `point`, `date_debut`, `date_fin`). Le nom
//! d'une séquence du protocole point fixe dit tout ce qu'il faut
//! (`Car640380-2026-Pass1-Z1-PA000123_20260621_213000_000.wav`, lu par les motifs mêmes du
//! serveur : [`inventaire::nom_decompose`](crate::inventaire::nom_decompose)) :
//! - même **site** (`640380`, tel qu'écrit), même **année**, même **passage** (`Pass1` et
//!   `Pass01` sont le même : le serveur les lit en nombre), même **point**, même **soirée** ;
//! - la **soirée** est la date, à l'heure de l'enregistreur, de l'instant de la séquence
//!   moins douze heures : une séquence d'avant midi appartient à la soirée de la veille. Une
//!   nuit qui passe minuit reste une nuit, et midi, jamais enregistré par ces appareils (ils
//!   dorment le jour), sépare deux soirées sans ambiguïté ;
//! - l'**enregistreur** (ce qui sépare le point de l'horodatage) n'en fait pas partie : deux
//!   enregistreurs au même point la même nuit déposent dans la même participation ; il est
//!   gardé pour l'affichage ;
//! - l'heure des noms est celle de l'horloge de l'enregistreur, **sans fuseau** : la soirée
//!   se lit sur elle, sans fuseau ; le fuseau ne sert qu'à en tirer les instants UTC que la
//!   plateforme attend ([`instant_utc`]).
//!
//! En routier et pédestre (`Cir270-2015-Pass1-Tron1-Chiro_0_00023_000.wav`), les noms ne
//! portent pas d'instant : le protocole veut une participation par circuit et par passage, la
//! clé est (site, année, passage), sans point ni soirée ; tous les tronçons y vont.
//!
//! **Ce qui n'a pas de nom de protocole** (archives `.zip`, `.zip.001`, `.z01`, dont le nom est
//! libre ; les photos, elles, ne partent pas : l'inventaire les ignore) va à la nuit que
//! désigne son **dossier** : on remonte depuis le dossier du fichier jusqu'au premier dossier
//! qui contient (lui ou ses sous-dossiers) des séquences ; s'il n'y en a que d'une nuit,
//! l'archive va à cette nuit ; s'il y en a de plusieurs, ou aucune, elle n'est rattachée à
//! rien ([`RaisonHorsNuit`]) et la commande refusera avant tout envoi. Pourquoi si strict :
//! le serveur extrait les archives dans leur participation pour les traiter
//! (`scripts/task_participation.py` `extract_zipped_files_in_participation`) ; une archive
//! dans la mauvaise participation y verse une nuit entière, et rien ne se retire. Le nom d'une
//! archive n'est pas lu : il est libre, et une archive de carte entière porte souvent le nom
//! de sa première séquence alors qu'elle contient plusieurs nuits.
//!
//! Un horodatage qui n'existe pas (`20260631`, `246000`) : le serveur accepte le nom (il ne
//! lit que des chiffres), mais aucune soirée ne s'en déduit ; le fichier est hors nuit.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};

use crate::inventaire::{Enregistrement, NomDecompose, nom_decompose};

/// Les deux familles de noms, et de sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Protocole {
    /// `Car…` : protocole point fixe (sites `POINT_FIXE`).
    PointFixe,
    /// `Cir…` : protocoles routier et pédestre (sites `ROUTIER` et `CARRE`).
    Routier,
}

/// Ce qui fait une nuit, c'est-à-dire une participation. L'ordre est celui de la saison :
/// année, soirée, puis site, point, passage.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CleNuit {
    pub(crate) annee: u16,
    /// La soirée (date, à l'heure de l'enregistreur, où commence la nuit) ; `None` en routier.
    pub(crate) soiree: Option<NaiveDate>,
    pub(crate) protocole: Protocole,
    /// Le numéro de site tel que l'écrivent les noms (`640380` de `Car640380`).
    pub(crate) site: String,
    /// Le point d'écoute (`A1`, `Z12`) ; `None` en routier.
    pub(crate) point: Option<String>,
    /// Le numéro de passage (`Pass01` : 1).
    pub(crate) passage: u8,
}

/// Une nuit de la saison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nuit {
    pub(crate) cle: CleNuit,
    /// Ses fichiers : indices dans la liste donnée à [`regrouper`], dans l'ordre de la liste
    /// (archives rattachées comprises).
    pub(crate) fichiers: Vec<usize>,
    /// Les enregistreurs distincts, tels qu'écrits entre le point et l'horodatage (sans les
    /// `_` et `-` qui les bordent) ; vide en routier.
    pub(crate) enregistreurs: BTreeSet<String>,
    /// La première et la dernière séquence, à l'heure de l'enregistreur (point fixe).
    pub(crate) premiere: Option<NaiveDateTime>,
    pub(crate) derniere: Option<NaiveDateTime>,
    /// Combien de ses fichiers y sont venus par leur dossier (archives).
    pub(crate) rattaches: usize,
}

/// Pourquoi un fichier n'est d'aucune nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RaisonHorsNuit {
    /// L'horodatage du nom n'existe pas au calendrier (`20260631`, `246000`).
    HorodatageImpossible,
    /// Sans nom de protocole, et aucune séquence dans son dossier ni au-dessus.
    AucuneNuitAutour,
    /// Sans nom de protocole, et son dossier contient des séquences de plusieurs nuits :
    /// lesquelles (indices dans [`Regroupement::nuits`]).
    PlusieursNuitsAutour(Vec<usize>),
}

/// Un fichier d'aucune nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HorsNuit {
    /// Indice dans la liste donnée à [`regrouper`].
    pub(crate) fichier: usize,
    pub(crate) raison: RaisonHorsNuit,
}

/// Les nuits d'une saison, dans l'ordre de [`CleNuit`], et ce qui n'en est d'aucune.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Regroupement {
    pub(crate) nuits: Vec<Nuit>,
    pub(crate) hors_nuit: Vec<HorsNuit>,
}

/// La soirée d'un instant lu à l'horloge de l'enregistreur : sa date moins douze heures.
pub(crate) fn soiree_de(t: NaiveDateTime) -> NaiveDate {
    (t - TimeDelta::hours(12)).date()
}

/// L'instant d'un horodatage de nom (`20260621`, `213000`, `007`), s'il existe au
/// calendrier.
pub(crate) fn horodatage_du_nom(date: &str, heure: &str, ms: &str) -> Option<NaiveDateTime> {
    let n = |s: &str| s.parse::<u32>().ok();
    let jour = NaiveDate::from_ymd_opt(
        date.get(..4)?.parse().ok()?,
        n(date.get(4..6)?)?,
        n(date.get(6..8)?)?,
    )?;
    let h = NaiveTime::from_hms_milli_opt(
        n(heure.get(..2)?)?,
        n(heure.get(2..4)?)?,
        n(heure.get(4..6)?)?,
        n(ms)?,
    )?;
    Some(jour.and_time(h))
}

/// Ce qu'un nom dit de sa nuit : sa clé, son instant (point fixe) et son enregistreur ; `Err`
/// pour un horodatage impossible, `Ok(None)` pour un nom sans protocole.
type LectureNom = Result<Option<(CleNuit, Option<NaiveDateTime>, String)>, RaisonHorsNuit>;

fn lire(nom: &str) -> LectureNom {
    let nombre = |s: &str| s.parse::<u16>().ok();
    match nom_decompose(nom) {
        None => Ok(None),
        Some(NomDecompose::PointFixe {
            site,
            annee,
            passage,
            point,
            enregistreur,
            date,
            heure,
            millisecondes,
        }) => {
            let t = horodatage_du_nom(date, heure, millisecondes)
                .ok_or(RaisonHorsNuit::HorodatageImpossible)?;
            // Les motifs du serveur garantissent quatre et deux chiffres au plus.
            let (Some(annee), Some(passage)) = (nombre(annee), nombre(passage)) else {
                return Ok(None);
            };
            Ok(Some((
                CleNuit {
                    annee,
                    soiree: Some(soiree_de(t)),
                    protocole: Protocole::PointFixe,
                    site: site.to_owned(),
                    point: Some(point.to_owned()),
                    passage: passage as u8,
                },
                Some(t),
                enregistreur.trim_matches(['_', '-']).to_owned(),
            )))
        }
        Some(NomDecompose::Routier {
            site,
            annee,
            passage,
            ..
        }) => {
            let (Some(annee), Some(passage)) = (nombre(annee), nombre(passage)) else {
                return Ok(None);
            };
            Ok(Some((
                CleNuit {
                    annee,
                    soiree: None,
                    protocole: Protocole::Routier,
                    site: site.to_owned(),
                    point: None,
                    passage: passage as u8,
                },
                None,
                String::new(),
            )))
        }
    }
}

/// La clé de la nuit d'un nom de séquence (ou de sortie Tadarida), s'il en suit un protocole
/// et que son horodatage existe.
pub(crate) fn cle_du_nom(nom: &str) -> Option<CleNuit> {
    lire(nom).ok().flatten().map(|(cle, _, _)| cle)
}

/// Les dossiers d'un chemin relatif, du plus proche au plus lointain (la racine : `""`).
fn dossiers(chemin: &str) -> impl Iterator<Item = &str> {
    let mut reste = Some(chemin);
    std::iter::from_fn(move || {
        let courant = reste?;
        match courant.rsplit_once('/') {
            Some((d, _)) => {
                reste = Some(d);
                Some(d)
            }
            None => {
                reste = None;
                Some("")
            }
        }
    })
}

/// Regroupe les enregistrements (chemins relatifs, séparateur `/`) en nuits. Les noms ont
/// déjà été validés pour la plateforme : un nom qui ne se décompose pas est une archive (ou un
/// nom que la validation a déjà refusé), rattaché par son dossier. Linéaire en nombre de
/// fichiers (fois la profondeur des dossiers) : les fichiers sont désignés par leur indice,
/// jamais recopiés.
pub(crate) fn regrouper(enregistrements: &[Enregistrement]) -> Regroupement {
    // Chaque fichier ne retient que le numéro de sa nuit (4 octets), jamais une copie de sa
    // clé : une saison de 100 000 fichiers n'a que quelques dizaines de clés.
    const SANS_NUIT: u32 = u32::MAX;
    let mut numero: HashMap<CleNuit, u32> = HashMap::new();
    let mut nuits: Vec<Nuit> = Vec::new();
    let mut nuit_de: Vec<u32> = vec![SANS_NUIT; enregistrements.len()];
    let mut a_rattacher = Vec::new();
    let mut hors_nuit = Vec::new();
    for (i, e) in enregistrements.iter().enumerate() {
        match lire(e.nom()) {
            Err(raison) => hors_nuit.push(HorsNuit { fichier: i, raison }),
            Ok(None) => a_rattacher.push(i),
            Ok(Some((cle, instant, enregistreur))) => {
                let k = match numero.get(&cle) {
                    Some(&k) => k,
                    None => {
                        let k = nuits.len() as u32;
                        numero.insert(cle.clone(), k);
                        nuits.push(Nuit {
                            cle,
                            fichiers: Vec::new(),
                            enregistreurs: BTreeSet::new(),
                            premiere: None,
                            derniere: None,
                            rattaches: 0,
                        });
                        k
                    }
                };
                let nuit = &mut nuits[k as usize];
                nuit.fichiers.push(i);
                if nuit.cle.protocole == Protocole::PointFixe {
                    nuit.enregistreurs.insert(enregistreur);
                }
                if let Some(t) = instant {
                    nuit.premiere = Some(nuit.premiere.map_or(t, |p| p.min(t)));
                    nuit.derniere = Some(nuit.derniere.map_or(t, |d| d.max(t)));
                }
                nuit_de[i] = k;
            }
        }
    }
    drop(numero);
    // L'ordre de la saison : celui des clés.
    let mut ordre: Vec<usize> = (0..nuits.len()).collect();
    ordre.sort_by(|&a, &b| nuits[a].cle.cmp(&nuits[b].cle));
    let mut rang = vec![0usize; nuits.len()];
    for (r, &k) in ordre.iter().enumerate() {
        rang[k] = r;
    }
    let mut places: Vec<Option<Nuit>> = nuits.into_iter().map(Some).collect();
    let mut nuits: Vec<Nuit> = ordre.iter().filter_map(|&k| places[k].take()).collect();
    // Pour chaque dossier, les nuits de ses séquences (sous-dossiers compris).
    let mut autour: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    if !a_rattacher.is_empty() {
        for (i, &k) in nuit_de.iter().enumerate() {
            if k == SANS_NUIT {
                continue;
            }
            let r = rang[k as usize];
            for d in dossiers(&enregistrements[i].chemin) {
                autour.entry(d).or_default().insert(r);
            }
        }
    }
    for i in a_rattacher {
        let nuits_autour = dossiers(&enregistrements[i].chemin).find_map(|d| autour.get(d));
        match nuits_autour {
            None => hors_nuit.push(HorsNuit {
                fichier: i,
                raison: RaisonHorsNuit::AucuneNuitAutour,
            }),
            Some(n) if n.len() == 1 => {
                let nuit = &mut nuits[*n.iter().next().unwrap_or(&0)];
                nuit.fichiers.push(i);
                nuit.rattaches += 1;
            }
            Some(n) => hors_nuit.push(HorsNuit {
                fichier: i,
                raison: RaisonHorsNuit::PlusieursNuitsAutour(n.iter().copied().collect()),
            }),
        }
    }
    for nuit in &mut nuits {
        nuit.fichiers.sort_unstable();
    }
    hors_nuit.sort_by_key(|h| h.fichier);
    Regroupement { nuits, hors_nuit }
}

/// L'instant UTC d'une heure lue à l'horloge de l'enregistreur, dans son fuseau. À l'heure
/// d'hiver, l'heure qui se répète (2 h 30 existe deux fois) est prise à sa première
/// occurrence ; à l'heure d'été, l'heure qui n'existe pas (2 h 30 le dernier dimanche de
/// mars) est lue une heure plus tard, comme l'horloge qui aurait dû sauter.
pub(crate) fn instant_utc<Z: TimeZone>(local: NaiveDateTime, fuseau: &Z) -> Option<DateTime<Utc>> {
    let lu = |t: NaiveDateTime| fuseau.from_local_datetime(&t).earliest();
    lu(local)
        .or_else(|| lu(local + TimeDelta::hours(1)))
        .map(|t| t.with_timezone(&Utc))
}

/// Les instants de début et de fin que la participation d'une nuit recevra, à la seconde
/// (la plateforme n'en garde pas de fraction) : la première séquence arrondie à la seconde
/// inférieure, la dernière à la seconde supérieure, et au moins une seconde entre les deux
/// (une nuit d'une seule séquence). `None` en routier (les noms n'ont pas d'instant).
pub(crate) fn bornes_utc<Z: TimeZone>(
    nuit: &Nuit,
    fuseau: &Z,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let debut = instant_utc(nuit.premiere?, fuseau)?;
    let fin = instant_utc(nuit.derniere?, fuseau)?;
    let a_la_seconde = |t: DateTime<Utc>| DateTime::from_timestamp(t.timestamp(), 0);
    let debut = a_la_seconde(debut)?;
    let fin = if fin.timestamp_subsec_millis() > 0 {
        DateTime::from_timestamp(fin.timestamp() + 1, 0)?
    } else {
        fin
    };
    Some((debut, fin.max(debut + TimeDelta::seconds(1))))
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

    /// `Car640380-2026-Pass<p>-<point>-<enr>_<date>_<heure>_000.wav`
    fn seq(
        dossier: &str,
        passage: &str,
        point: &str,
        enregistreur: &str,
        date: &str,
        heure: &str,
    ) -> Enregistrement {
        enr(&format!(
            "{dossier}Car640380-2026-Pass{passage}-{point}-{enregistreur}_{date}_{heure}_000.wav"
        ))
    }

    fn date(a: i32, m: u32, j: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(a, m, j).unwrap()
    }

    /// (soirée, point, passage, fichiers) de chaque nuit.
    type Resume = Vec<(Option<NaiveDate>, Option<String>, u8, Vec<usize>)>;

    fn resume(r: &Regroupement) -> Resume {
        r.nuits
            .iter()
            .map(|n| {
                (
                    n.cle.soiree,
                    n.cle.point.clone(),
                    n.cle.passage,
                    n.fichiers.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn une_nuit_qui_passe_minuit_reste_une_nuit() {
        let e = [
            seq("", "1", "A1", "PA1", "20260621", "213000"),
            seq("", "1", "A1", "PA1", "20260621", "235959"),
            seq("", "1", "A1", "PA1", "20260622", "000000"),
            seq("", "1", "A1", "PA1", "20260622", "055800"),
            // Midi sépare deux soirées : 11:59:59 est encore la nuit du 21, 12:00 celle du 22.
            seq("", "1", "A1", "PA1", "20260622", "115959"),
            seq("", "1", "A1", "PA1", "20260622", "120000"),
            seq("", "1", "A1", "PA1", "20260622", "213000"),
        ];
        let r = regrouper(&e);
        assert!(r.hors_nuit.is_empty(), "{r:?}");
        assert_eq!(
            resume(&r),
            [
                (
                    Some(date(2026, 6, 21)),
                    Some("A1".into()),
                    1,
                    vec![0, 1, 2, 3, 4]
                ),
                (Some(date(2026, 6, 22)), Some("A1".into()), 1, vec![5, 6]),
            ]
        );
        let n = &r.nuits[0];
        assert_eq!(n.premiere.unwrap().to_string(), "2026-06-21 21:30:00");
        assert_eq!(n.derniere.unwrap().to_string(), "2026-06-22 11:59:59");
        // Le 31 décembre passe à l'année suivante sans changer de nuit (l'année de la clé est
        // celle du nom).
        let r = regrouper(&[
            seq("", "1", "A1", "PA1", "20261231", "230000"),
            seq("", "1", "A1", "PA1", "20270101", "010000"),
        ]);
        assert_eq!(r.nuits.len(), 1);
        assert_eq!(r.nuits[0].cle.soiree, Some(date(2026, 12, 31)));
    }

    #[test]
    fn deux_enregistreurs_au_meme_point_une_seule_nuit() {
        let e = [
            seq("PA-A/", "1", "A1", "PA000123", "20260621", "213000"),
            seq("PA-B/", "1", "A1", "SM4-7", "20260621", "213500"),
            seq("PA-A/", "1", "A1", "PA000123", "20260622", "040000"),
            // Un troisième, la même nuit, à un autre point : une autre participation.
            seq("PA-C/", "1", "B2", "PA000999", "20260621", "220000"),
        ];
        let r = regrouper(&e);
        assert_eq!(r.nuits.len(), 2, "{r:?}");
        let a1 = &r.nuits[0];
        assert_eq!(a1.cle.point.as_deref(), Some("A1"));
        assert_eq!(a1.fichiers, [0, 1, 2]);
        assert_eq!(
            a1.enregistreurs
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["PA000123", "SM4-7"]
        );
        assert_eq!(r.nuits[1].cle.point.as_deref(), Some("B2"));
        assert_eq!(r.nuits[1].fichiers, [3]);
    }

    #[test]
    fn deux_passages_deux_nuits_meme_a_la_meme_date() {
        let e = [
            seq("", "1", "A1", "PA1", "20260621", "213000"),
            seq("", "2", "A1", "PA1", "20260804", "213000"),
            // Pass01 est le passage 1 (le serveur le lit en nombre).
            seq("", "01", "A1", "PA1", "20260621", "223000"),
            // Le passage fait partie de la clé : un nom mal tapé ne se fond pas dans l'autre
            // passage, même la même soirée.
            seq("", "2", "A1", "PA1", "20260621", "233000"),
        ];
        let r = regrouper(&e);
        assert_eq!(
            resume(&r),
            [
                (Some(date(2026, 6, 21)), Some("A1".into()), 1, vec![0, 2]),
                (Some(date(2026, 6, 21)), Some("A1".into()), 2, vec![3]),
                (Some(date(2026, 8, 4)), Some("A1".into()), 2, vec![1]),
            ]
        );
    }

    #[test]
    fn routier_une_participation_par_circuit_et_par_passage() {
        let e = [
            enr("Cir270-2026-Pass1-Tron1-Chiro_0_00023_000.wav"),
            enr("Cir270-2026-Pass1-Tron2-Chiro_1_00024_000.wav"),
            enr("Cir270-2026-Pass1-Tron10-Chiro_00025_000.ta"),
            enr("Cir270-2026-Pass2-Tron1-Chiro_0_00001_000.wav"),
            enr("Cir271-2026-Pass1-Tron1-Chiro_0_00001_000.wav"),
        ];
        let r = regrouper(&e);
        assert!(r.hors_nuit.is_empty());
        let cles: Vec<_> = r
            .nuits
            .iter()
            .map(|n| {
                (
                    n.cle.site.as_str(),
                    n.cle.passage,
                    n.cle.soiree,
                    n.cle.point.clone(),
                    n.fichiers.clone(),
                )
            })
            .collect();
        assert_eq!(
            cles,
            [
                ("270", 1, None, None, vec![0, 1, 2]),
                ("270", 2, None, None, vec![3]),
                ("271", 1, None, None, vec![4]),
            ]
        );
        assert!(
            r.nuits
                .iter()
                .all(|n| n.cle.protocole == Protocole::Routier)
        );
        assert!(r.nuits[0].premiere.is_none() && r.nuits[0].enregistreurs.is_empty());
        assert_eq!(bornes_utc(&r.nuits[0], &Utc), None);
    }

    #[test]
    fn archives_rattachees_par_leur_dossier_jamais_devinees() {
        let e = [
            // Nuit du 21 juin, seule dans son dossier : l'archive d'à côté, et celle d'un
            // sous-dossier sans séquence, vont avec elle.
            seq("2026-06-21/", "1", "A1", "PA1", "20260621", "213000"),
            enr("2026-06-21/nuit.zip"),
            enr("2026-06-21/archives/nuit.zip.001"),
            // Une carte de deux nuits, et son archive : laquelle ? Aucune.
            seq("carte/", "1", "B2", "PA2", "20260622", "213000"),
            seq("carte/", "1", "B2", "PA2", "20260623", "213000"),
            enr("carte/carte.z01"),
            // À la racine, au-dessus de tout : plusieurs nuits.
            enr("saison.zip"),
        ];
        let r = regrouper(&e);
        assert_eq!(r.nuits.len(), 3);
        assert_eq!(r.nuits[0].fichiers, [0, 1, 2]);
        assert_eq!(r.nuits[0].rattaches, 2);
        assert_eq!(r.nuits[1].fichiers, [3]);
        assert_eq!(r.nuits[2].fichiers, [4]);
        assert_eq!(
            r.hors_nuit,
            [
                HorsNuit {
                    fichier: 5,
                    raison: RaisonHorsNuit::PlusieursNuitsAutour(vec![1, 2]),
                },
                HorsNuit {
                    fichier: 6,
                    raison: RaisonHorsNuit::PlusieursNuitsAutour(vec![0, 1, 2]),
                },
            ]
        );
        // Un dossier d'archives seules : aucune nuit autour.
        let r = regrouper(&[enr("a/x.zip"), enr("b/y.zip")]);
        assert!(r.nuits.is_empty());
        assert!(
            r.hors_nuit
                .iter()
                .all(|h| h.raison == RaisonHorsNuit::AucuneNuitAutour)
        );
        // Une archive nommée comme une séquence n'est pas lue à son nom : son dossier (ici,
        // au-dessus, la racine, qui n'a qu'une nuit) décide.
        let r = regrouper(&[
            seq("x/", "1", "A1", "PA1", "20260621", "213000"),
            enr("y/Car640380-2026-Pass2-B1-PA1_20260804_213000_000.zip"),
        ]);
        assert_eq!(r.nuits.len(), 1);
        assert_eq!(r.nuits[0].fichiers, [0, 1]);
        assert!(r.hors_nuit.is_empty());
    }

    #[test]
    fn horodatage_impossible_hors_nuit() {
        let e = [
            seq("", "1", "A1", "PA1", "20260631", "213000"),
            seq("", "1", "A1", "PA1", "20260621", "246000"),
            seq("", "1", "A1", "PA1", "20260621", "215960"),
            seq("", "1", "A1", "PA1", "20260229", "213000"),
            seq("", "1", "A1", "PA1", "20240229", "213000"),
        ];
        let r = regrouper(&e);
        assert_eq!(r.nuits.len(), 1, "{r:?}");
        assert_eq!(r.nuits[0].fichiers, [4], "le 29 février 2024 existe");
        assert_eq!(
            r.hors_nuit.iter().map(|h| h.fichier).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert!(
            r.hors_nuit
                .iter()
                .all(|h| h.raison == RaisonHorsNuit::HorodatageImpossible)
        );
    }

    #[test]
    fn sites_et_annees_distincts_font_des_nuits_distinctes() {
        let e = [
            enr("Car640380-2026-Pass1-A1-PA1_20260621_213000_000.wav"),
            enr("Car640381-2026-Pass1-A1-PA1_20260621_213000_000.wav"),
            enr("Car640380-2025-Pass1-A1-PA1_20260621_220000_000.wav"),
        ];
        let r = regrouper(&e);
        assert_eq!(r.nuits.len(), 3);
        // L'ordre de la saison : année, soirée, site.
        assert_eq!(r.nuits[0].cle.annee, 2025);
        assert_eq!(r.nuits[1].cle.site, "640380");
        assert_eq!(r.nuits[2].cle.site, "640381");
    }

    #[test]
    fn instants_utc_dans_le_fuseau_de_l_enregistreur() {
        let n = |premiere: &str, derniere: &str| Nuit {
            cle: CleNuit {
                annee: 2026,
                soiree: None,
                protocole: Protocole::PointFixe,
                site: "1".into(),
                point: None,
                passage: 1,
            },
            fichiers: vec![],
            enregistreurs: BTreeSet::new(),
            premiere: Some(premiere.parse().unwrap()),
            derniere: Some(derniere.parse().unwrap()),
            rattaches: 0,
        };
        let paris_ete = chrono::FixedOffset::east_opt(2 * 3600).unwrap();
        let (d, f) = bornes_utc(
            &n("2026-06-21T21:30:00.250", "2026-06-22T05:58:01.001"),
            &paris_ete,
        )
        .unwrap();
        assert_eq!(d.to_rfc3339(), "2026-06-21T19:30:00+00:00");
        assert_eq!(f.to_rfc3339(), "2026-06-22T03:58:02+00:00");
        // À l'heure de Paris : hiver, été, l'heure qui se répète, l'heure qui n'existe pas.
        let paris = crate::saison::fuseau_essai::Paris2026;
        let utc = |t: &str| {
            instant_utc(t.parse().unwrap(), &paris)
                .unwrap()
                .to_rfc3339()
        };
        assert_eq!(utc("2026-01-10T21:30:00"), "2026-01-10T20:30:00+00:00");
        assert_eq!(utc("2026-06-21T21:30:00"), "2026-06-21T19:30:00+00:00");
        assert_eq!(utc("2026-10-25T02:30:00"), "2026-10-25T00:30:00+00:00");
        assert_eq!(utc("2026-03-29T02:30:00"), "2026-03-29T01:30:00+00:00");
        // Une seule séquence : au moins une seconde.
        let (d, f) = bornes_utc(&n("2026-06-21T21:30:00", "2026-06-21T21:30:00"), &Utc).unwrap();
        assert_eq!((f - d).num_seconds(), 1);
    }
}
