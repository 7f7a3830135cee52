//! Les fichiers qui empêchent un dépôt, dits pour être corrigés d'un coup : une seule cause par
//! fichier (la racine), les fichiers regroupés par règle, et le renommage de ce qui se corrige
//! sans ambiguïté (`vigie renommer`).
//!
//! Pourquoi : une nuit sortie d'un enregistreur mal réglé donne cinquante fichiers en `.WAV` ;
//! cinquante lignes presque identiques noient la seule information utile (« 50 fichiers :
//! extension .WAV en majuscules »), et un second refus par fichier (« ne suit aucun protocole »,
//! conséquence du premier) fait croire à deux problèmes. Les règles elles-mêmes sont celles du
//! serveur et vivent dans [`inventaire`](crate::inventaire) ; ici, on choisit la cause racine, on
//! regroupe, et on dit le geste.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::Path;

use crate::inventaire::{
    Enregistrement, NomRefuse, extension_enregistrement, valider_pour_vigiechiro,
};

/// Un fichier qui empêche le dépôt, par sa cause racine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Empechement {
    pub(crate) chemin: String,
    /// La règle violée : la clé du regroupement.
    pub(crate) regle: String,
    /// Le geste qui corrige ce fichier-là (vide si la règle le dit déjà).
    pub(crate) geste: String,
}

impl From<NomRefuse> for Empechement {
    fn from(r: NomRefuse) -> Self {
        Empechement {
            chemin: r.chemin,
            regle: r.regle,
            geste: r.geste,
        }
    }
}

/// Les fichiers qui violent une même règle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Groupe {
    pub(crate) regle: String,
    /// Chaque fichier, et son geste.
    pub(crate) fichiers: Vec<(String, String)>,
}

/// Garde une seule cause par fichier, la racine : la première que rendent les règles, qui vont
/// de la cause à ses conséquences (voir `inventaire::valider_pour_vigiechiro`). Une extension en
/// majuscules n'est pas « hors protocole » en plus ; un espace n'est pas « date manquante » en
/// plus.
pub(crate) fn causes_racines(
    empechements: impl IntoIterator<Item = Empechement>,
) -> Vec<Empechement> {
    let mut vus = HashSet::new();
    empechements
        .into_iter()
        .filter(|e| vus.insert(e.chemin.clone()))
        .collect()
}

/// Regroupe par règle, les groupes les plus nombreux d'abord, les fichiers dans l'ordre des
/// chemins.
pub(crate) fn regrouper(empechements: impl IntoIterator<Item = Empechement>) -> Vec<Groupe> {
    let mut par_regle: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for e in empechements {
        par_regle
            .entry(e.regle)
            .or_default()
            .push((e.chemin, e.geste));
    }
    let mut groupes: Vec<Groupe> = par_regle
        .into_iter()
        .map(|(regle, mut fichiers)| {
            fichiers.sort();
            Groupe { regle, fichiers }
        })
        .collect();
    groupes.sort_by_key(|g| std::cmp::Reverse(g.fichiers.len()));
    groupes
}

/// Le texte des groupes, `noms_cites` fichiers au plus par groupe. Un geste commun à tout le
/// groupe est dit une fois, sous les noms ; sinon chaque fichier cité porte le sien.
pub(crate) fn lignes_des_groupes(groupes: &[Groupe], noms_cites: usize) -> Vec<String> {
    let mut lignes = Vec::new();
    for g in groupes {
        let n = g.fichiers.len();
        lignes.push(format!(
            "  {} : {}",
            crate::texte::pluriel(n as u64, "fichier", "fichiers"),
            g.regle
        ));
        let autres = n.saturating_sub(noms_cites);
        let et_autres = |l: &mut Vec<String>| {
            if autres > 0 {
                l.push(format!(
                    "    … et {}",
                    crate::texte::pluriel(autres as u64, "autre", "autres")
                ));
            }
        };
        let geste_commun = g.fichiers.first().map(|(_, geste)| geste.as_str());
        let commun = geste_commun.filter(|geste| g.fichiers.iter().all(|(_, x)| x == geste));
        match commun {
            Some(geste) => {
                for (chemin, _) in g.fichiers.iter().take(noms_cites) {
                    lignes.push(format!("    {chemin}"));
                }
                et_autres(&mut lignes);
                if !geste.is_empty() {
                    lignes.push(format!("    → {geste}"));
                }
            }
            None => {
                for (chemin, geste) in g.fichiers.iter().take(noms_cites) {
                    lignes.push(format!("    {chemin} → {geste}"));
                }
                et_autres(&mut lignes);
            }
        }
    }
    lignes
}

/// Un renommage sans ambiguïté, en chemins relatifs au dossier de la nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Renommage {
    pub(crate) de: String,
    pub(crate) vers: String,
}

/// Ce qui se corrige sans ambiguïté : la casse d'une extension d'enregistrement (`.WAV` →
/// `.wav`, `.ZIP.001` → `.zip.001`). Un renommage n'est proposé que si le nouveau nom est libre :
/// ni un autre fichier du dossier, ni la cible d'un autre renommage (`a.WAV` et `a.Wav`).
pub(crate) fn renommages_sans_ambiguite(
    dossier: &Path,
    enregistrements: &[Enregistrement],
) -> Vec<Renommage> {
    let mut candidats: Vec<Renommage> = enregistrements
        .iter()
        .filter_map(|e| {
            let nom = e.nom();
            let ext = extension_enregistrement(nom)?;
            let minuscule = ext.to_ascii_lowercase();
            (ext != minuscule).then(|| Renommage {
                de: e.chemin.clone(),
                vers: format!("{}{minuscule}", &e.chemin[..e.chemin.len() - ext.len()]),
            })
        })
        .collect();
    let mut cibles: HashMap<String, usize> = HashMap::new();
    for r in &candidats {
        *cibles.entry(r.vers.clone()).or_default() += 1;
    }
    candidats.retain(|r| cibles[&r.vers] == 1 && cible_libre(dossier, r));
    candidats
}

/// Le nom visé est-il libre ? Sur un système de fichiers insensible à la casse, `a.wav` désigne
/// déjà `a.WAV` lui-même : ce n'est pas un autre fichier.
fn cible_libre(dossier: &Path, r: &Renommage) -> bool {
    match crate::plateforme::chemins::local(dossier, &r.vers).symlink_metadata() {
        Err(e) => e.kind() == io::ErrorKind::NotFound,
        Ok(_) => meme_fichier(
            &crate::plateforme::chemins::local(dossier, &r.de),
            &crate::plateforme::chemins::local(dossier, &r.vers),
        ),
    }
}

/// Sans identité de fichier (voir `plateforme::identite_du_chemin`), on ne prend pas le risque
/// d'écraser.
fn meme_fichier(a: &Path, b: &Path) -> bool {
    let a = crate::plateforme::identite_du_chemin(a);
    a.is_some() && a == crate::plateforme::identite_du_chemin(b)
}

/// Les enregistrements tels qu'ils seraient après les renommages.
pub(crate) fn apres_renommages(
    enregistrements: &[Enregistrement],
    renommages: &[Renommage],
) -> Vec<Enregistrement> {
    let vers: HashMap<&str, &str> = renommages
        .iter()
        .map(|r| (r.de.as_str(), r.vers.as_str()))
        .collect();
    enregistrements
        .iter()
        .map(|e| Enregistrement {
            chemin: vers
                .get(e.chemin.as_str())
                .map_or_else(|| e.chemin.clone(), |v| (*v).to_owned()),
            ..e.clone()
        })
        .collect()
}

/// Applique un renommage, sans jamais écraser un fichier : le nom visé est revérifié juste
/// avant.
pub(crate) fn renommer(dossier: &Path, r: &Renommage) -> io::Result<()> {
    if !cible_libre(dossier, r) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} existe déjà", r.vers),
        ));
    }
    std::fs::rename(
        crate::plateforme::chemins::local(dossier, &r.de),
        crate::plateforme::chemins::local(dossier, &r.vers),
    )
}

/// La cause racine de ce fichier disparaît-elle avec son renommage sans ambiguïté ? On le
/// demande aux règles elles-mêmes, sur le nom corrigé : rien ici ne dépend de leur texte.
pub(crate) fn corrige_par_renommage(
    e: &Empechement,
    enregistrements: &[Enregistrement],
    renommages: &[Renommage],
) -> bool {
    let Some(r) = renommages.iter().find(|r| r.de == e.chemin) else {
        return false;
    };
    let Some(original) = enregistrements.iter().find(|x| x.chemin == e.chemin) else {
        return false;
    };
    let corrige = Enregistrement {
        chemin: r.vers.clone(),
        ..original.clone()
    };
    !valider_pour_vigiechiro(&[corrige])
        .iter()
        .any(|refus| refus.regle == e.regle)
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

    const BON: &str = "Car170517-2014-Pass1-C1-OB-1_20140702_2240";

    #[test]
    fn une_cause_par_fichier_la_racine() {
        let noms = [
            // Hors protocole et en majuscules : la casse d'abord, c'est elle qui se corrige.
            "nuit_001.WAV".to_owned(),
            // Un espace casse aussi le suffixe horodaté : seul l'espace est dit.
            format!("{BON}38_761 (2).wav"),
        ];
        let refus = valider_pour_vigiechiro(&noms.iter().map(|n| enr(n)).collect::<Vec<_>>());
        let racines = causes_racines(refus.into_iter().map(Empechement::from));
        assert_eq!(racines.len(), 2, "{racines:?}");
        assert!(racines[0].regle.contains("majuscules"), "{racines:?}");
        assert!(racines[1].regle.contains("espace"), "{racines:?}");
    }

    #[test]
    fn cinquante_wav_en_une_ligne_de_regle() {
        let noms: Vec<Enregistrement> = (0..50)
            .map(|i| enr(&format!("{BON}{i:02}_000.WAV")))
            .chain([
                enr("Car170517-2014-Pass1-C1-O B_20140702_224038_761.wav"),
                enr("Car170517-2014-Pass1-C1-C D_20140702_224038_761.wav"),
            ])
            .collect();
        let refus = valider_pour_vigiechiro(&noms);
        let racines = causes_racines(refus.into_iter().map(Empechement::from))
            .into_iter()
            .map(|mut e| {
                if e.regle.contains("majuscules") {
                    e.geste = "vigie renommer /nuit".into();
                }
                e
            });
        let lignes = lignes_des_groupes(&regrouper(racines), 3);
        let texte = lignes.join("\n");
        assert_eq!(
            lignes[0],
            "  50 fichiers : extension « .WAV » en majuscules : la plateforme ne reconnaît que les minuscules"
        );
        assert_eq!(lignes[4], "    … et 47 autres");
        assert_eq!(lignes[5], "    → vigie renommer /nuit");
        // Deux gestes différents : chacun sur sa ligne.
        assert!(
            texte.contains(
                "    Car170517-2014-Pass1-C1-O B_20140702_224038_761.wav → renommez-le en \
                 Car170517-2014-Pass1-C1-O_B_20140702_224038_761.wav"
            ),
            "{texte}"
        );
        assert!(lignes.len() <= 12, "{texte}");
    }

    #[test]
    fn renommages_seulement_sans_ambiguite() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let noms = [
            "a.WAV",
            "b.WAV",
            "b.wav",
            "c.WAV",
            "c.Wav",
            "d.ZIP.001",
            "e.wav",
        ];
        for nom in noms {
            std::fs::write(d.join(nom), b"x").unwrap();
        }
        let inv: Vec<_> = noms.iter().map(|n| enr(n)).collect();
        let r = renommages_sans_ambiguite(d, &inv);
        assert_eq!(
            r,
            [
                Renommage {
                    de: "a.WAV".into(),
                    vers: "a.wav".into()
                },
                Renommage {
                    de: "d.ZIP.001".into(),
                    vers: "d.zip.001".into()
                },
            ]
        );
        renommer(d, &r[0]).unwrap();
        assert!(d.join("a.wav").exists() && !d.join("a.WAV").exists());
        // Le nom visé pris entre-temps : on n'écrase pas.
        let pris = Renommage {
            de: "b.WAV".into(),
            vers: "b.wav".into(),
        };
        assert!(renommer(d, &pris).is_err());
        assert_eq!(std::fs::read(d.join("b.wav")).unwrap(), b"x");
        assert!(d.join("b.WAV").exists());
    }
}
