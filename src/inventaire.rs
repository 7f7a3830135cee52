//! L'inventaire du dossier d'une nuit, et la validation des noms pour la plateforme Vigie-Chiro.
//!
//! Ce qui part est ce qu'un enregistreur produit : séquences `.wav`, sorties Tadarida (`.ta`,
//! `.tac`, `.tc`, `.tcc`) et archives (`.zip`, `.zip.001`, `.z01`). Le reste (fichiers cachés,
//! `.DS_Store`, `Thumbs.db`, notes, photos) est ignoré et compté, pour que l'utilisateur sache ce
//! qui ne part pas. Les liens symboliques ne sont pas suivis : un lien vers un autre dossier
//! déposerait une autre nuit, ou bouclerait.
//!
//! Les problèmes qui empêchent un fichier de partir (nom non UTF-8, caractère de contrôle,
//! fichier illisible) sont **tous** relevés d'un coup : l'utilisateur corrige une fois, pas un
//! fichier par relance. La somme de contrôle du contenu n'est pas calculée ici mais pendant
//! l'envoi, en flux : relire 40 Go pour planifier serait absurde sur un portable.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// Un enregistrement trouvé dans le dossier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enregistrement {
    /// Chemin relatif au dossier, séparateur « / ».
    pub chemin: String,
    pub taille: u64,
    /// Date de modification, nanosecondes Unix.
    pub modifie_ns: i64,
}

impl Enregistrement {
    /// Le nom du fichier (le « titre » pour la plateforme).
    pub fn nom(&self) -> &str {
        self.chemin.rsplit('/').next().unwrap_or(&self.chemin)
    }
}

/// Un fichier qui ne peut pas partir, et pourquoi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProblemeFichier {
    pub chemin: String,
    pub probleme: String,
}

/// Ce que le parcours du dossier a trouvé.
#[derive(Debug, Clone, Default)]
pub struct Inventaire {
    pub enregistrements: Vec<Enregistrement>,
    /// Fichiers et dossiers cachés ou système (`.DS_Store`, `Thumbs.db`…), ignorés.
    pub ignores_systeme: u64,
    /// Fichiers qui ne sont pas des enregistrements (notes, photos…), ignorés.
    pub non_reconnus: Vec<String>,
    /// Fichiers vides : un enregistrement raté, ignoré et signalé.
    pub vides: Vec<String>,
    /// Liens symboliques, non suivis.
    pub liens: Vec<String>,
    /// Fichiers qui empêchent le dépôt : tous listés, rien ne part tant qu'il y en a.
    pub problemes: Vec<ProblemeFichier>,
}

impl Inventaire {
    pub fn octets(&self) -> u64 {
        self.enregistrements.iter().map(|e| e.taille).sum()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ErreurInventaire {
    #[error("le dossier {0} est introuvable : vérifiez le chemin")]
    Introuvable(PathBuf),
    #[error("{0} n'est pas un dossier : donnez le dossier de la nuit")]
    PasUnDossier(PathBuf),
    #[error("le dossier {chemin} est illisible : {}", crate::sortie::erreur_systeme(.cause))]
    Illisible { chemin: PathBuf, cause: io::Error },
    #[error(
        "aucun enregistrement dans {dossier} (.wav, .ta, .tac, .tc, .tcc, .zip){} : est-ce le bon dossier ?",
        if *.ignores > 0 { format!(" ; {} autre(s) fichier(s) ignoré(s)", .ignores) } else { String::new() }
    )]
    Vide { dossier: PathBuf, ignores: u64 },
}

/// Noms de fichiers système, ignorés sans bruit (comparés sans casse).
const FICHIERS_SYSTEME: &[&str] = &["thumbs.db", "desktop.ini", "ehthumbs.db"];
/// Dossiers système des clés USB et cartes SD, ignorés sans bruit.
const DOSSIERS_SYSTEME: &[&str] = &["$recycle.bin", "system volume information", "lost+found"];

/// L'extension d'enregistrement d'un nom, telle qu'écrite (casse comprise), s'il en a une.
pub fn extension_enregistrement(nom: &str) -> Option<&str> {
    static ARCHIVE_DECOUPEE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\.(zip\.[0-9]{3}|z[0-9]{2})$").expect("motif valide"));
    if let Some(m) = ARCHIVE_DECOUPEE.find(nom) {
        return Some(&nom[m.start() + 1..]);
    }
    let (souche, ext) = nom.rsplit_once('.')?;
    if souche.is_empty() {
        return None;
    }
    ["wav", "ta", "tac", "tc", "tcc", "zip"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
        .then_some(ext)
}

/// Parcourt le dossier de la nuit.
pub fn inventorier(dossier: &Path) -> Result<Inventaire, ErreurInventaire> {
    let meta = match fs::metadata(dossier) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ErreurInventaire::Introuvable(dossier.to_owned()));
        }
        Err(cause) => {
            return Err(ErreurInventaire::Illisible {
                chemin: dossier.to_owned(),
                cause,
            });
        }
    };
    if !meta.is_dir() {
        return Err(ErreurInventaire::PasUnDossier(dossier.to_owned()));
    }
    let mut inv = Inventaire::default();
    parcourir(dossier, "", &mut inv, true)?;
    inv.enregistrements.sort_by(|a, b| a.chemin.cmp(&b.chemin));
    inv.problemes.sort_by(|a, b| a.chemin.cmp(&b.chemin));
    if inv.enregistrements.is_empty() && inv.problemes.is_empty() {
        return Err(ErreurInventaire::Vide {
            dossier: dossier.to_owned(),
            ignores: inv.non_reconnus.len() as u64 + inv.ignores_systeme + inv.vides.len() as u64,
        });
    }
    Ok(inv)
}

fn parcourir(
    dossier: &Path,
    prefixe: &str,
    inv: &mut Inventaire,
    racine: bool,
) -> Result<(), ErreurInventaire> {
    let entrees = match fs::read_dir(dossier) {
        Ok(e) => e,
        // La racine illisible arrête tout ; un sous-dossier illisible est un problème parmi
        // d'autres, relevé avec eux.
        Err(cause) if racine => {
            return Err(ErreurInventaire::Illisible {
                chemin: dossier.to_owned(),
                cause,
            });
        }
        Err(e) => {
            inv.problemes.push(ProblemeFichier {
                chemin: prefixe.trim_end_matches('/').to_owned(),
                probleme: format!(
                    "dossier illisible ({}) : vérifiez ses droits",
                    crate::sortie::erreur_systeme(&e)
                ),
            });
            return Ok(());
        }
    };
    for entree in entrees {
        let entree = match entree {
            Ok(e) => e,
            Err(e) => {
                inv.problemes.push(ProblemeFichier {
                    chemin: prefixe.trim_end_matches('/').to_owned(),
                    probleme: format!(
                        "lecture du dossier interrompue ({})",
                        crate::sortie::erreur_systeme(&e)
                    ),
                });
                continue;
            }
        };
        let nom_os = entree.file_name();
        let Some(nom) = nom_os.to_str() else {
            inv.problemes.push(ProblemeFichier {
                chemin: format!("{prefixe}{}", nom_os.to_string_lossy()),
                probleme: "nom illisible (pas de l'UTF-8) : renommez-le avec des lettres non accentuées, chiffres, « _ », « - » ou « . »".into(),
            });
            continue;
        };
        let chemin = format!("{prefixe}{nom}");
        // Caché ou système : ignoré sans bruit, dossier compris.
        if nom.starts_with('.')
            || FICHIERS_SYSTEME.iter().any(|s| nom.eq_ignore_ascii_case(s))
            || DOSSIERS_SYSTEME.iter().any(|s| nom.eq_ignore_ascii_case(s))
        {
            inv.ignores_systeme += 1;
            continue;
        }
        if nom.chars().any(char::is_control) {
            inv.problemes.push(ProblemeFichier {
                chemin: chemin.escape_debug().to_string(),
                probleme: "le nom contient un caractère de contrôle : renommez-le".into(),
            });
            continue;
        }
        // symlink_metadata : on ne suit pas les liens.
        let meta = match entree.path().symlink_metadata() {
            Ok(m) => m,
            Err(e) => {
                inv.problemes.push(ProblemeFichier {
                    chemin,
                    probleme: format!("illisible ({})", crate::sortie::erreur_systeme(&e)),
                });
                continue;
            }
        };
        let type_fichier = meta.file_type();
        if type_fichier.is_symlink() {
            inv.liens.push(chemin);
        } else if type_fichier.is_dir() {
            parcourir(&entree.path(), &format!("{chemin}/"), inv, false)?;
        } else if !type_fichier.is_file() {
            // Tube, socket, périphérique : rien à déposer.
            inv.non_reconnus.push(chemin);
        } else if extension_enregistrement(nom).is_none() {
            inv.non_reconnus.push(chemin);
        } else if meta.len() == 0 {
            inv.vides.push(chemin);
        } else if let Err(e) = File::open(entree.path()) {
            inv.problemes.push(ProblemeFichier {
                chemin,
                probleme: format!(
                    "illisible ({}) : vérifiez ses droits (chmod u+r)",
                    crate::sortie::erreur_systeme(&e)
                ),
            });
        } else {
            inv.enregistrements.push(Enregistrement {
                chemin,
                taille: meta.len(),
                modifie_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            });
        }
    }
    Ok(())
}

/// Un nom que la plateforme Vigie-Chiro refusera, la règle violée et le geste à faire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NomRefuse {
    pub chemin: String,
    pub regle: String,
    pub geste: String,
}

static POINT_FIXE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Car.+-[0-9]{4}-Pass[1-9][0-9]?-([A-H][12]|Z[0-9]+)-.*[0-9]{8}_[0-9]{6}_[0-9]{3}$")
        .expect("motif valide")
});
static ROUTIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Cir.+-[0-9]{4}-Pass[0-9]+-Tron[0-9]+-Chiro_([01]_)?[0-9]+_[0-9]{3}$")
        .expect("motif valide")
});
static SUFFIXE_HORODATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[0-9]{8}_[0-9]{6}_[0-9]{3}$").expect("motif valide"));
static PASSAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"-Pass([0-9]+)-").expect("motif valide"));

/// Valide les noms pour la plateforme Vigie-Chiro (règles de son serveur) : extension en
/// minuscules, caractères permis, protocole point fixe (`Car…`) ou routier/pédestre (`Cir…`),
/// et pas deux fichiers de même nom (la clé distante ne garde que le nom). Rend **tous** les
/// refus, dans l'ordre des chemins ; ceux d'un même fichier vont de la cause à ses
/// conséquences : le premier est sa cause racine (`noms::causes_racines`).
pub fn valider_pour_vigiechiro(enregistrements: &[Enregistrement]) -> Vec<NomRefuse> {
    let mut refus = Vec::new();
    let mut vus: HashMap<&str, &str> = HashMap::new();
    for e in enregistrements {
        let nom = e.nom();
        let refuser = |regle: String, geste: String| NomRefuse {
            chemin: e.chemin.clone(),
            regle,
            geste,
        };
        if let Some(premier) = vus.insert(nom, &e.chemin) {
            refus.push(refuser(
                format!("même nom que {premier} : la plateforme ne garde que le nom, l'un écraserait l'autre"),
                "renommez l'un des deux, ou déposez ces sous-dossiers dans des participations distinctes".into(),
            ));
            vus.insert(nom, premier);
        }
        let Some(ext) = extension_enregistrement(nom) else {
            continue;
        };
        if ext != ext.to_ascii_lowercase() {
            let corrige = format!(
                "{}{}",
                &nom[..nom.len() - ext.len()],
                ext.to_ascii_lowercase()
            );
            refus.push(refuser(
                format!("extension « .{ext} » en majuscules : la plateforme la refuse"),
                format!("renommez {nom} en {corrige}"),
            ));
        }
        let mut interdits: Vec<char> = nom
            .chars()
            .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .collect();
        interdits.sort_unstable();
        interdits.dedup();
        if !interdits.is_empty() {
            let liste: Vec<String> = interdits
                .iter()
                .map(|c| {
                    if *c == ' ' {
                        "espace".to_owned()
                    } else {
                        format!("« {c} »")
                    }
                })
                .collect();
            refus.push(refuser(
                format!(
                    "caractère(s) interdit(s) : {} (permis : lettres sans accent, chiffres, _ . -)",
                    liste.join(", ")
                ),
                format!("renommez-le en {}", nom_permis(nom)),
            ));
        }
        // Les archives ont un nom libre ; les séquences et sorties Tadarida suivent le protocole.
        let ext_min = ext.to_ascii_lowercase();
        if !["wav", "ta", "tac", "tc", "tcc"].contains(&ext_min.as_str()) {
            continue;
        }
        let souche = &nom[..nom.len() - ext.len() - 1];
        if POINT_FIXE.is_match(souche) || ROUTIER.is_match(souche) {
            continue;
        }
        refus.push(diagnostic_protocole(souche, refuser));
    }
    refus
}

/// Dit pourquoi une souche ne suit aucun protocole, le plus précisément possible.
fn diagnostic_protocole(souche: &str, refuser: impl Fn(String, String) -> NomRefuse) -> NomRefuse {
    const FORME_FIXE: &str = "Car<site>-<année>-Pass<n>-<point>-…_AAAAMMJJ_HHMMSS_mmm";
    if let Some(c) = PASSAGE.captures(souche)
        && c[1].starts_with('0')
    {
        return refuser(
            format!(
                "numéro de passage « Pass{} » invalide : il commence à 1",
                &c[1]
            ),
            "corrigez le numéro de passage dans le nom (Pass1, Pass2…)".into(),
        );
    }
    if souche.starts_with("Car") && !SUFFIXE_HORODATE.is_match(souche) {
        return refuser(
            "la date et l'heure manquent en fin de nom (_AAAAMMJJ_HHMMSS_mmm, millisecondes comprises)".into(),
            format!("gardez le nom produit par l'enregistreur, de la forme {FORME_FIXE}"),
        );
    }
    if souche.starts_with("Car") {
        return refuser(
            format!("ne suit pas le protocole point fixe ({FORME_FIXE})"),
            "vérifiez le site, l'année, le passage et le point (A1 à H2, ou Z<n>) dans le nom"
                .into(),
        );
    }
    if souche.starts_with("Cir") {
        return refuser(
            "ne suit pas le protocole routier/pédestre (Cir<circuit>-<année>-Pass<n>-Tron<n>-Chiro_…_NNN)".into(),
            "vérifiez le circuit, l'année, le passage et le tronçon dans le nom".into(),
        );
    }
    refuser(
        format!("ne suit aucun protocole Vigie-Chiro (point fixe : {FORME_FIXE} ; routier/pédestre : Cir…-Tron<n>-Chiro_…)"),
        "renommez les fichiers avec l'outil de préparation du protocole (Kaleidoscope, Tadarida) avant de déposer".into(),
    )
}

/// Une proposition de nom permis : accents retirés, le reste remplacé par « _ ».
fn nom_permis(nom: &str) -> String {
    nom.chars()
        .map(|c| match c {
            'à' | 'â' | 'ä' | 'á' => 'a',
            'À' | 'Â' | 'Ä' | 'Á' => 'A',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'É' | 'È' | 'Ê' | 'Ë' => 'E',
            'î' | 'ï' | 'í' => 'i',
            'Î' | 'Ï' => 'I',
            'ô' | 'ö' | 'ó' => 'o',
            'Ô' | 'Ö' => 'O',
            'ù' | 'û' | 'ü' | 'ú' => 'u',
            'Ù' | 'Û' | 'Ü' => 'U',
            'ç' => 'c',
            'Ç' => 'C',
            c if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') => c,
            _ => '_',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn enr(chemin: &str) -> Enregistrement {
        Enregistrement {
            chemin: chemin.into(),
            taille: 1,
            modifie_ns: 0,
        }
    }

    const BON: &str = "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav";

    #[test]
    fn extensions_reconnues() {
        for nom in [
            "a.wav",
            "a.WAV",
            "a.ta",
            "a.tac",
            "a.tc",
            "a.tcc",
            "a.zip",
            "a.zip.001",
            "a.z01",
        ] {
            assert!(extension_enregistrement(nom).is_some(), "{nom}");
        }
        for nom in ["a.txt", "a.jpg", "wav", ".wav", "a.zip.1", "a.z1", "a.wavx"] {
            assert!(extension_enregistrement(nom).is_none(), "{nom}");
        }
        assert_eq!(extension_enregistrement("a.zip.002"), Some("zip.002"));
    }

    #[test]
    fn noms_reels_acceptes() {
        let ok = [
            BON,
            "Car170517-2014-Pass12-Z3-OB-1_20140702_224038_761.ta",
            "Car640139-2021-Pass2-H2-PA000123_20210611_213512_000.wav",
            "Cir270-2015-Pass1-Tron1-Chiro_0_00023_000.wav",
            "Cir270-2015-Pass1-Tron1-Chiro_123_000.tc",
            "Nuit du 3 juin.zip",
        ];
        let refus = valider_pour_vigiechiro(&ok.iter().map(|n| enr(n)).collect::<Vec<_>>());
        // L'archive a un nom libre, mais ses espaces restent interdits.
        assert_eq!(refus.len(), 1, "{refus:?}");
        assert_eq!(refus[0].chemin, "Nuit du 3 juin.zip");
        assert!(refus[0].regle.contains("espace"));
    }

    #[test]
    fn noms_refuses_avec_regle_et_geste() {
        let cas = [
            (
                "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.WAV",
                "majuscules",
                "renommez Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.WAV en Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav",
            ),
            (
                "Car170517-2014-Pass1-C1-OB 1_20140702_224038_761.wav",
                "espace",
                "OB_1",
            ),
            (
                "Car170517-2014-Pass1-C1-Étang_20140702_224038_761.wav",
                "« É »",
                "Etang",
            ),
            (
                "Car170517-2014-Pass0-C1-OB-1_20140702_224038_761.wav",
                "Pass0",
                "Pass1",
            ),
            (
                "Car170517-2014-Pass1-C1-OB-1_20140702_224038.wav",
                "millisecondes",
                "AAAAMMJJ",
            ),
            ("enregistrement.wav", "aucun protocole", "renommez"),
        ];
        for (nom, regle, geste) in cas {
            let refus = valider_pour_vigiechiro(&[enr(&format!("sous/{nom}"))]);
            assert!(!refus.is_empty(), "{nom} accepté");
            assert!(
                refus.iter().any(|r| r.regle.contains(regle)),
                "{nom} : {refus:?}"
            );
            assert!(
                refus.iter().any(|r| r.geste.contains(geste)),
                "{nom} : {refus:?}"
            );
            assert!(refus.iter().all(|r| r.chemin == format!("sous/{nom}")));
        }
    }

    #[test]
    fn meme_nom_dans_deux_sous_dossiers() {
        let refus = valider_pour_vigiechiro(&[enr(&format!("a/{BON}")), enr(&format!("b/{BON}"))]);
        assert_eq!(refus.len(), 1);
        assert_eq!(refus[0].chemin, format!("b/{BON}"));
        assert!(refus[0].regle.contains(&format!("a/{BON}")));
    }

    #[test]
    fn tous_les_fautifs_d_un_coup() {
        let noms: Vec<_> = (0..5).map(|i| enr(&format!("f{i}.WAV"))).collect();
        let refus = valider_pour_vigiechiro(&noms);
        let chemins: std::collections::HashSet<_> =
            refus.iter().map(|r| r.chemin.as_str()).collect();
        assert_eq!(chemins.len(), 5);
    }

    #[test]
    fn parcours_ignore_compte_et_signale() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("sous/plus")).unwrap();
        fs::create_dir_all(d.join(".cache")).unwrap();
        fs::write(d.join("a.wav"), b"RIFF").unwrap();
        fs::write(d.join("sous/plus/b.ta"), b"x").unwrap();
        fs::write(d.join(".DS_Store"), b"x").unwrap();
        fs::write(d.join("Thumbs.db"), b"x").unwrap();
        fs::write(d.join(".cache/c.wav"), b"x").unwrap();
        fs::write(d.join("notes.txt"), b"x").unwrap();
        fs::write(d.join("vide.wav"), b"").unwrap();
        symlink(d.join("sous"), d.join("lien")).unwrap();
        symlink(d, d.join("sous/boucle")).unwrap();
        let inv = inventorier(d).unwrap();
        let chemins: Vec<_> = inv
            .enregistrements
            .iter()
            .map(|e| e.chemin.as_str())
            .collect();
        assert_eq!(chemins, ["a.wav", "sous/plus/b.ta"]);
        assert_eq!(inv.ignores_systeme, 3);
        assert_eq!(inv.non_reconnus, ["notes.txt"]);
        assert_eq!(inv.vides, ["vide.wav"]);
        let mut liens = inv.liens.clone();
        liens.sort();
        assert_eq!(liens, ["lien", "sous/boucle"]);
        assert!(inv.problemes.is_empty());
        assert_eq!(inv.enregistrements[0].taille, 4);
        assert!(inv.enregistrements[0].modifie_ns > 0);
    }

    #[test]
    fn nom_non_utf8_est_un_probleme_du_fichier() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.wav"), b"x").unwrap();
        fs::write(dir.path().join(OsStr::from_bytes(b"b\xff.wav")), b"x").unwrap();
        let inv = inventorier(dir.path()).unwrap();
        assert_eq!(inv.enregistrements.len(), 1);
        assert_eq!(inv.problemes.len(), 1);
        assert!(inv.problemes[0].probleme.contains("UTF-8"));
    }

    #[test]
    fn dossier_sans_enregistrement() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        let e = inventorier(dir.path()).unwrap_err();
        assert!(
            matches!(e, ErreurInventaire::Vide { ignores: 1, .. }),
            "{e}"
        );
        assert!(matches!(
            inventorier(&dir.path().join("absent")),
            Err(ErreurInventaire::Introuvable(_))
        ));
        assert!(matches!(
            inventorier(&dir.path().join("notes.txt")),
            Err(ErreurInventaire::PasUnDossier(_))
        ));
    }
}
