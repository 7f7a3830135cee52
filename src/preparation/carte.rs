//! Lire une carte (ou un dossier brut) **sans jamais y écrire** : ses WAV, leurs en-têtes, les
//! journaux `LogPR` ; reconnaître le matériel ; ranger les originaux en nuits ; nommer leurs
//! tranches.
//!
//! Imite l'inspection d'une carte du compagnon officiel (`echonuit/vigiechiro-pr-companion`,
//! `importation/model/InspecteurDossier.java` et `PartitionNuits.java`) : un journal `LogPR`
//! vaut pour les WAV de son dossier et de ses sous-dossiers ; une nuit est une soirée
//! (l'instant du nom moins douze heures, la règle du dépôt : [`crate::saison::nuits::soiree_de`]),
//! et le nommage de ses tranches est arbitré sur **tous** ses originaux à la fois.
//!
//! Rien n'est ouvert autrement qu'en lecture, et seuls les 64 premiers Kio de chaque WAV sont
//! lus ici : une carte de 40 Go s'inspecte en quelques secondes. Une carte en lecture seule
//! (le mode de fin de vie d'une carte SD) se prépare comme une autre ; la commande le dit.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{Datelike, NaiveDate, NaiveDateTime};

use super::entete::{FENETRE_ENTETE_OCTETS, lire_entete};
use super::materiel::{Enregistreur, JournalPr, lire_journal, reconnaitre};
use super::transformation::{
    Decoupage, Prefixe, TranchesAttendues, arbitrer, horodatage_du_nom, nom_r6,
};
use crate::inventaire::{self, ErreurInventaire};

/// Ce que la bénévole donne quand les noms ne le disent pas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Identite {
    /// Le numéro de site des noms (`640380`).
    pub(crate) site: Option<String>,
    pub(crate) passage: Option<u8>,
    pub(crate) point: Option<String>,
}

/// Un original de la carte, et ce qu'il deviendra.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Original {
    /// Chemin relatif à la carte, séparateur `/`.
    pub(crate) relatif: String,
    pub(crate) decoupage: Decoupage,
    pub(crate) enregistreur: Enregistreur,
    /// L'heure de l'enregistreur lue dans le nom.
    pub(crate) instant: NaiveDateTime,
    pub(crate) nom_r6: String,
    /// Les noms définitifs de ses séquences, dans l'ordre des tranches.
    pub(crate) sequences: Vec<String>,
}

/// Une nuit à préparer : une participation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NuitAPreparer {
    pub(crate) prefixe: Prefixe,
    pub(crate) soiree: NaiveDate,
    /// Dans l'ordre des noms.
    pub(crate) originaux: Vec<Original>,
}

impl NuitAPreparer {
    /// Le dossier de la nuit dans la sortie : `Car640380-2026-Pass1-A1-20260621`.
    pub(crate) fn dossier(&self) -> String {
        format!(
            "{}-{}",
            self.prefixe.session(),
            self.soiree.format("%Y%m%d")
        )
    }

    pub(crate) fn sequences(&self) -> usize {
        self.originaux.iter().map(|o| o.sequences.len()).sum()
    }

    /// Les enregistreurs distincts de la nuit.
    pub(crate) fn enregistreurs(&self) -> Vec<&Enregistreur> {
        let mut vus = BTreeSet::new();
        self.originaux
            .iter()
            .map(|o| &o.enregistreur)
            .filter(|e| vus.insert((e.type_enregistreur.clone(), e.numero_serie.clone())))
            .collect()
    }
}

/// Un fichier de la carte qui ne se prépare pas, et pourquoi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OriginalRefuse {
    pub(crate) relatif: String,
    pub(crate) raison: String,
}

/// Ce que la lecture de la carte a trouvé.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Carte {
    pub(crate) lecture_seule: bool,
    pub(crate) nuits: Vec<NuitAPreparer>,
    pub(crate) refuses: Vec<OriginalRefuse>,
    /// Les journaux `LogPR` lus (chemins relatifs).
    pub(crate) journaux: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ErreurCarte {
    #[error(transparent)]
    Inventaire(#[from] ErreurInventaire),
    #[error("aucun WAV sur {0} : est-ce la bonne carte ?")]
    AucunWav(PathBuf),
    #[error(
        "les noms ne disent pas {manque} : ajoutez {options} (le numéro de site à six chiffres, \
         le numéro de passage, le point d'écoute, comme sur le site Vigie-Chiro)"
    )]
    IdentiteManquante { manque: String, options: String },
    #[error("{0}")]
    IdentiteInvalide(String),
}

/// Vérifie ce qui est donné : un site fait de chiffres, un passage de 1 à 99, un point
/// `A1`…`H2` ou `Z<n>` (les motifs du serveur, `resources/donnees.py`).
pub(crate) fn valider(identite: &Identite) -> Result<(), ErreurCarte> {
    if let Some(s) = &identite.site
        && (s.is_empty() || !s.bytes().all(|o| o.is_ascii_digit()))
    {
        return Err(ErreurCarte::IdentiteInvalide(format!(
            "--site {s} : le numéro de site s'écrit en chiffres (640380 pour Car640380)"
        )));
    }
    if let Some(p) = identite.passage
        && !(1..=99).contains(&p)
    {
        return Err(ErreurCarte::IdentiteInvalide(format!(
            "--passage {p} : un numéro de passage va de 1 à 99"
        )));
    }
    if let Some(p) = &identite.point {
        let o = p.as_bytes();
        let valide = match o {
            [b'A'..=b'H', b'1' | b'2'] => true,
            [b'Z', b'1'..=b'9', reste @ ..] => reste.iter().all(u8::is_ascii_digit),
            _ => false,
        };
        if !valide {
            return Err(ErreurCarte::IdentiteInvalide(format!(
                "--point {p} : un point d'écoute s'écrit A1 à H2, ou Z suivi de son numéro (Z1, Z12)"
            )));
        }
    }
    Ok(())
}

/// Le préfixe que porte déjà un nom (`Car640380-2026-Pass1-A1-…`).
fn prefixe_du_nom(nom: &str) -> Option<Prefixe> {
    let reste = nom.strip_prefix("Car")?;
    let mut m = reste.splitn(5, '-');
    let site = m.next()?;
    let annee = m.next()?.parse().ok()?;
    let passage = m.next()?.strip_prefix("Pass")?.parse().ok()?;
    let point = m.next()?;
    m.next()?;
    let identite = Identite {
        site: Some(site.to_owned()),
        passage: Some(passage),
        point: Some(point.to_owned()),
    };
    valider(&identite).ok()?;
    Some(Prefixe {
        site: site.to_owned(),
        annee,
        passage,
        point: point.to_owned(),
    })
}

/// L'identité qu'une carte brute a reçue à son dépôt, retrouvée dans les noms des séquences
/// planifiées de son plan (`unites` ; `Car640380-2026-Pass1-A1-…`) : la relance la prépare
/// comme le premier dépôt, sans qu'on la redonne. Aucune pour un dossier ordinaire.
pub(crate) fn identite_du_plan(unites: &[crate::plan::DepotUnite]) -> Identite {
    unites
        .iter()
        .filter(|u| u.preparee.is_some())
        .find_map(|u| identite_du_nom(u.chemin.rsplit('/').next().unwrap_or(&u.chemin)))
        .unwrap_or_default()
}

/// L'identité que dit le préfixe d'un nom de séquence préparée (`Car640380-2026-Pass1-A1-…`) :
/// celle qu'une carte brute a reçue à son dépôt, que sa relance retrouve dans son plan.
pub(crate) fn identite_du_nom(nom: &str) -> Option<Identite> {
    let p = prefixe_du_nom(nom)?;
    Some(Identite {
        site: Some(p.site),
        passage: Some(p.passage),
        point: Some(p.point),
    })
}

/// Un journal par dossier : `LogPR<n>.txt` (casse indifférente) lu en entier (quelques Kio).
fn lire_journaux(
    racine: &Path,
    non_reconnus: &[String],
) -> (HashMap<String, JournalPr>, Vec<String>) {
    let mut par_dossier = HashMap::new();
    let mut lus = Vec::new();
    for relatif in non_reconnus {
        let nom = relatif
            .rsplit('/')
            .next()
            .unwrap_or(relatif)
            .to_ascii_lowercase();
        if !(nom.starts_with("logpr") && nom.ends_with(".txt")) {
            continue;
        }
        let Ok(octets) = std::fs::read(crate::plateforme::chemins::local(racine, relatif)) else {
            continue;
        };
        if let Some(j) = lire_journal(&String::from_utf8_lossy(&octets)) {
            let dossier = relatif.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
            par_dossier.entry(dossier).or_insert(j);
            lus.push(relatif.clone());
        }
    }
    (par_dossier, lus)
}

/// Le journal qui vaut pour `relatif` : celui de son dossier, sinon du plus proche au-dessus.
fn journal_de<'a>(
    journaux: &'a HashMap<String, JournalPr>,
    relatif: &str,
) -> Option<&'a JournalPr> {
    let mut dossier = relatif.rsplit_once('/').map_or("", |(d, _)| d);
    loop {
        if let Some(j) = journaux.get(dossier) {
            return Some(j);
        }
        if dossier.is_empty() {
            return None;
        }
        dossier = dossier.rsplit_once('/').map_or("", |(d, _)| d);
    }
}

/// L'en-tête d'un fichier, lu sur ses premiers Kio, ouvert en lecture seule.
fn lire_debut(chemin: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    let mut f = File::open(chemin)?;
    let taille = f.metadata()?.len();
    let mut debut = Vec::with_capacity(FENETRE_ENTETE_OCTETS);
    (&mut f)
        .take(FENETRE_ENTETE_OCTETS as u64)
        .read_to_end(&mut debut)?;
    Ok((debut, taille))
}

/// Un original reconnu, avant le nommage de ses tranches.
struct Lu {
    relatif: String,
    decoupage: Decoupage,
    enregistreur: Enregistreur,
    instant: NaiveDateTime,
    /// Le préfixe que porte déjà son nom.
    prefixe: Option<Prefixe>,
    nom: String,
}

fn lire_original(
    racine: &Path,
    relatif: &str,
    journaux: &HashMap<String, JournalPr>,
) -> Result<Lu, String> {
    let nom = relatif.rsplit('/').next().unwrap_or(relatif).to_owned();
    let (_, instant) = horodatage_du_nom(&nom).ok_or(
        "le nom ne porte pas d'horodatage AAAAMMJJ_HHMMSS : la nuit ne se déduit pas ; \
         renommez-le comme l'enregistreur (…_20260621_223015.wav)",
    )?;
    let (debut, taille) = lire_debut(&crate::plateforme::chemins::local(racine, relatif))
        .map_err(|e| format!("illisible ({})", crate::plateforme::erreur_systeme(&e)))?;
    let entete = lire_entete(&debut, taille).map_err(|e| e.to_string())?;
    let journal = journal_de(journaux, relatif);
    let decoupage = Decoupage::nouveau(&entete, journal.and_then(|j| j.frequence_hz))
        .map_err(|e| e.to_string())?;
    Ok(Lu {
        relatif: relatif.to_owned(),
        decoupage,
        enregistreur: reconnaitre(journal, &entete, &nom),
        instant,
        prefixe: prefixe_du_nom(&nom),
        nom,
    })
}

/// Lit la carte `racine`, range ses originaux en nuits et nomme leurs séquences. Les options
/// manquantes ne sont une erreur que si un original en a besoin (son nom n'est pas préfixé).
pub(crate) fn lire_carte(racine: &Path, identite: &Identite) -> Result<Carte, ErreurCarte> {
    valider(identite)?;
    let inv = inventaire::inventorier(racine)?;
    let (journaux, journaux_lus) = lire_journaux(racine, &inv.non_reconnus);
    let mut refuses: Vec<OriginalRefuse> = inv
        .problemes
        .iter()
        .map(|p| OriginalRefuse {
            relatif: p.chemin.clone(),
            raison: p.probleme.clone(),
        })
        .collect();
    let mut lus = Vec::new();
    for e in &inv.enregistrements {
        if !e.nom().to_ascii_lowercase().ends_with(".wav") {
            continue;
        }
        match lire_original(racine, &e.chemin, &journaux) {
            Ok(lu) => lus.push(lu),
            Err(raison) => refuses.push(OriginalRefuse {
                relatif: e.chemin.clone(),
                raison,
            }),
        }
    }
    if lus.is_empty() && refuses.is_empty() {
        return Err(ErreurCarte::AucunWav(racine.to_owned()));
    }
    // Le préfixe de chaque original : celui de son nom, sinon celui des options.
    let manque: Vec<(&str, &str)> = [
        (identite.site.is_none(), ("le site", "--site")),
        (identite.passage.is_none(), ("le passage", "--passage")),
        (identite.point.is_none(), ("le point", "--point")),
    ]
    .into_iter()
    .filter_map(|(manque, quoi)| manque.then_some(quoi))
    .collect();
    if !manque.is_empty() && lus.iter().any(|l| l.prefixe.is_none()) {
        return Err(ErreurCarte::IdentiteManquante {
            manque: manque
                .iter()
                .map(|(q, _)| *q)
                .collect::<Vec<_>>()
                .join(", "),
            options: manque.iter().map(|(_, o)| *o).collect::<Vec<_>>().join(" "),
        });
    }
    let mut nuits: BTreeMap<(Prefixe, NaiveDate), Vec<Lu>> = BTreeMap::new();
    for lu in lus {
        let soiree = crate::saison::nuits::soiree_de(lu.instant);
        let prefixe = lu.prefixe.clone().unwrap_or_else(|| Prefixe {
            site: identite.site.clone().unwrap_or_default(),
            annee: soiree.year(),
            passage: identite.passage.unwrap_or_default(),
            point: identite.point.clone().unwrap_or_default(),
        });
        nuits.entry((prefixe, soiree)).or_default().push(lu);
    }
    let nuits = nuits
        .into_iter()
        .map(|((prefixe, soiree), lus)| nommer(prefixe, soiree, lus))
        .collect();
    refuses.sort_by(|a, b| a.relatif.cmp(&b.relatif));
    Ok(Carte {
        lecture_seule: crate::plateforme::disque::en_lecture_seule(racine),
        nuits,
        refuses,
        journaux: journaux_lus,
    })
}

/// Nomme les tranches de tous les originaux d'une nuit d'un coup (l'arbitrage des collisions
/// veut toute la nuit).
fn nommer(prefixe: Prefixe, soiree: NaiveDate, lus: Vec<Lu>) -> NuitAPreparer {
    let attendues: Vec<TranchesAttendues> = lus
        .iter()
        .map(|l| TranchesAttendues {
            nom_r6: nom_r6(&prefixe, &l.nom),
            nombre: l.decoupage.nombre(),
        })
        .collect();
    let noms = arbitrer(&attendues);
    let mut originaux: Vec<Original> = lus
        .into_iter()
        .zip(attendues)
        .zip(noms)
        .map(|((l, a), sequences)| Original {
            relatif: l.relatif,
            decoupage: l.decoupage,
            enregistreur: l.enregistreur,
            instant: l.instant,
            nom_r6: a.nom_r6,
            sequences,
        })
        .collect();
    originaux.sort_by(|a, b| a.nom_r6.cmp(&b.nom_r6));
    NuitAPreparer {
        prefixe,
        soiree,
        originaux,
    }
}

#[cfg(test)]
mod tests {
    use super::super::entete::essais::wav;
    use super::*;

    fn identite() -> Identite {
        Identite {
            site: Some("640380".into()),
            passage: Some(2),
            point: Some("Z3".into()),
        }
    }

    #[test]
    fn une_carte_passive_recorder_se_range_en_nuits_sous_son_journal() {
        let d = tempfile::tempdir().unwrap();
        let carte = d.path();
        std::fs::create_dir(carte.join("Data")).unwrap();
        std::fs::write(
            carte.join("LogPR1925492.txt"),
            "21/06/26 - 16:02:22 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz\n",
        )
        .unwrap();
        // Deux soirées : le 21 au soir, et le 22 au petit matin (encore la soirée du 21),
        // puis le 22 au soir.
        for nom in [
            "PaRecPR1925492_20260621_223000.wav",
            "PaRecPR1925492_20260622_031500.wav",
            "PaRecPR1925492_20260622_221500.wav",
        ] {
            std::fs::write(
                carte.join("Data").join(nom),
                wav(38_400, &[], &[0; 7_680_002]),
            )
            .unwrap();
        }
        std::fs::write(carte.join("Data/notes.wav"), b"pas un wav").unwrap();
        let c = lire_carte(carte, &identite()).unwrap();
        assert_eq!(c.journaux, ["LogPR1925492.txt"]);
        assert_eq!(c.nuits.len(), 2);
        let n = &c.nuits[0];
        assert_eq!(n.dossier(), "Car640380-2026-Pass2-Z3-20260621");
        assert_eq!(n.originaux.len(), 2);
        // 7 680 002 octets à Fe = 384 kHz : 10 s et une trame, trois tranches.
        assert_eq!(n.sequences(), 6);
        assert_eq!(n.originaux[0].decoupage.fe_hz, 384_000);
        assert_eq!(
            n.originaux[0].sequences[2],
            "Car640380-2026-Pass2-Z3-PaRecPR1925492_20260621_223010_000.wav"
        );
        assert_eq!(n.enregistreurs().len(), 1);
        assert_eq!(
            n.enregistreurs()[0].numero_serie.as_deref(),
            Some("1925492")
        );
        assert_eq!(c.refuses.len(), 1);
        assert!(
            c.refuses[0].raison.contains("horodatage"),
            "{:?}",
            c.refuses
        );
    }

    #[test]
    fn sans_options_ni_prefixe_la_carte_dit_quoi_ajouter() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("S4U12345_20260621_223015.wav"),
            wav(384_000, &[], &[0; 4]),
        )
        .unwrap();
        let e = lire_carte(
            d.path(),
            &Identite {
                site: Some("640380".into()),
                ..Identite::default()
            },
        )
        .unwrap_err();
        let m = e.to_string();
        assert!(m.contains("--passage --point"), "{m}");
        // Déjà préfixé : rien à donner.
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path()
                .join("Car640380-2026-Pass1-A1-S4U12345_20260621_223015.wav"),
            wav(384_000, &[], &[0; 4]),
        )
        .unwrap();
        let c = lire_carte(d.path(), &Identite::default()).unwrap();
        assert_eq!(c.nuits[0].dossier(), "Car640380-2026-Pass1-A1-20260621");
    }

    #[test]
    fn les_options_invalides_sont_refusees() {
        for (site, passage, point) in [("64a", 1, "A1"), ("640380", 0, "A1"), ("640380", 1, "I1")] {
            let i = Identite {
                site: Some(site.into()),
                passage: Some(passage),
                point: Some(point.into()),
            };
            assert!(matches!(valider(&i), Err(ErreurCarte::IdentiteInvalide(_))));
        }
        assert!(valider(&identite()).is_ok());
    }
}
