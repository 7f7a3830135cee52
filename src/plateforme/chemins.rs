//! Les chemins des fichiers de la nuit : relatifs au dossier, écrits avec « / » quel que soit
//! le séparateur du système, parce que c'est d'eux que dérivent la clé S3 (`prefixe/chemin`)
//! et le titre Vigie-Chiro (le dernier composant), et que le plan les garde.
//!
//! Sous Windows, un dossier canonique (`canonicalize`) est un chemin « verbatim » (`\\?\C:\…`),
//! où « / » n'est plus un séparateur et que l'utilisateur ne reconnaît pas : on le ramène à sa
//! forme ordinaire quand elle désigne le même dossier (`C:\…`, `\\serveur\partage\…`), et le
//! chemin local d'un fichier se forme composant par composant. Les chemins longs (plus de
//! 260 caractères) n'ont pas besoin du préfixe : la bibliothèque standard l'ajoute d'elle-même à
//! chaque appel au système qui en a besoin.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// Un nom qui n'est pas de l'UTF-8 : ni clé S3 ni titre ne peuvent le porter. Porte le chemin
/// relatif, caractères illisibles remplacés par « � », pour le montrer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("nom illisible (pas de l'UTF-8) : {0}")]
pub(crate) struct NomIllisible(pub(crate) String);

/// Le chemin relatif (séparateur « / ») de l'entrée `nom` (un composant, tel que le rend
/// `read_dir`) du sous-dossier de chemin relatif `parent` (vide : la racine), tel que le plan
/// le garde.
pub(crate) fn joindre(parent: &str, nom: &OsStr) -> Result<String, NomIllisible> {
    let avec = |nom: &str| {
        if parent.is_empty() {
            nom.to_owned()
        } else {
            format!("{parent}/{nom}")
        }
    };
    match nom.to_str() {
        Some(nom) => Ok(avec(nom)),
        None => Err(NomIllisible(avec(&nom.to_string_lossy()))),
    }
}

/// Le chemin local du fichier de chemin relatif `relatif` (séparateur « / ») sous `dossier`,
/// formé composant par composant (juste aussi sous un chemin verbatim de Windows).
pub(crate) fn local(dossier: &Path, relatif: &str) -> PathBuf {
    let mut chemin = dossier.to_path_buf();
    chemin.extend(relatif.split('/').filter(|c| !c.is_empty()).map(OsStr::new));
    chemin
}

/// Le chemin canonique d'un dossier (absolu, liens résolus), sous sa forme ordinaire.
pub fn canonique(dossier: &Path) -> io::Result<PathBuf> {
    Ok(sans_prefixe_verbatim(dossier.canonicalize()?))
}

/// `\\?\C:\a` → `C:\a`, `\\?\UNC\serveur\partage\a` → `\\serveur\partage\a` ; tout autre
/// chemin est rendu tel quel. Sans effet hors de Windows.
fn sans_prefixe_verbatim(chemin: PathBuf) -> PathBuf {
    #[cfg(windows)]
    {
        use std::path::Prefix;
        let Some(texte) = chemin.to_str() else {
            return chemin;
        };
        let ordinaire = match chemin.components().next() {
            Some(std::path::Component::Prefix(p)) => match p.kind() {
                Prefix::VerbatimDisk(_) => texte.strip_prefix(r"\\?\").map(str::to_owned),
                Prefix::VerbatimUNC(..) => {
                    texte.strip_prefix(r"\\?\UNC\").map(|r| format!(r"\\{r}"))
                }
                _ => None,
            },
            _ => None,
        };
        // Un nom que la forme ordinaire interprèterait autrement (« . », « .. », point ou
        // espace final, noms réservés…) garde le préfixe : on ne change pas de dossier.
        match ordinaire {
            Some(o) if Path::new(&o).canonicalize().ok().as_deref() == Some(chemin.as_path()) => {
                PathBuf::from(o)
            }
            _ => chemin,
        }
    }
    #[cfg(not(windows))]
    {
        chemin
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Component;

    /// Le chemin relatif formé, composant par composant, comme le fait l'inventaire.
    fn relatif(chemin: &Path) -> Result<String, NomIllisible> {
        chemin
            .components()
            .try_fold(String::new(), |parent, c| match c {
                Component::Normal(nom) => joindre(&parent, nom),
                autre => panic!("composant inattendu {autre:?}"),
            })
    }

    /// La clé se forme avec « / » à partir des composants du chemin, quel que soit le
    /// séparateur du système (`\` sous Windows) ; le chemin local s'en reforme à l'identique.
    #[test]
    fn le_chemin_relatif_s_ecrit_avec_des_barres_obliques() {
        let natif: PathBuf = ["2026-06-21", "Car170517", "a.wav"].iter().collect();
        let texte = relatif(&natif).unwrap();
        assert_eq!(texte, "2026-06-21/Car170517/a.wav");
        assert_eq!(relatif(Path::new("a.wav")).unwrap(), "a.wav");
        let racine = Path::new("nuit");
        assert_eq!(local(racine, &texte), racine.join(&natif));
        assert_eq!(
            local(racine, &texte).strip_prefix(racine).unwrap(),
            natif.as_path()
        );
        // La clé S3 et le titre en dérivent.
        use crate::depot::s3::DestinationS3;
        use crate::depot::vigiechiro::DestinationVigieChiro;
        let s3 = DestinationS3::relire("s3://nuits/pre").unwrap();
        assert_eq!(s3.cle(&texte).unwrap(), "pre/2026-06-21/Car170517/a.wav");
        assert_eq!(DestinationVigieChiro::cle(&texte).unwrap(), "a.wav");
    }

    /// Un fichier au bout d'un chemin de plus de 260 caractères (la limite historique de
    /// Windows) est inventorié, retrouvé par son chemin relatif et lu.
    #[test]
    fn un_chemin_long_ne_casse_pas_l_inventaire() {
        let dir = tempfile::tempdir().unwrap();
        let sous: Vec<String> = (0..6).map(|i| format!("{i}{}", "d".repeat(60))).collect();
        let profond = sous.iter().fold(dir.path().to_path_buf(), |p, s| p.join(s));
        std::fs::create_dir_all(&profond).unwrap();
        std::fs::write(profond.join("a.wav"), b"RIFF").unwrap();
        let dossier = canonique(dir.path()).unwrap();
        assert!(local(&dossier, "x").as_os_str().len() < 260);
        let inv = crate::inventaire::inventorier(&dossier).unwrap();
        assert!(inv.problemes.is_empty(), "{:?}", inv.problemes);
        let relatif = &inv.enregistrements[0].chemin;
        assert_eq!(*relatif, format!("{}/a.wav", sous.join("/")));
        let chemin = local(&dossier, relatif);
        assert!(chemin.as_os_str().len() > 300);
        let mut lu = Vec::new();
        std::io::Read::read_to_end(
            &mut super::super::ouvrir_sans_suivre(&chemin).unwrap(),
            &mut lu,
        )
        .unwrap();
        assert_eq!(lu, b"RIFF");
    }

    #[cfg(windows)]
    #[test]
    fn le_separateur_de_windows_devient_une_barre_oblique() {
        assert_eq!(
            relatif(Path::new(r"sous\dossier\a.wav")).unwrap(),
            "sous/dossier/a.wav"
        );
        assert_eq!(
            local(Path::new(r"\\?\C:\nuit"), "sous/a.wav"),
            PathBuf::from(r"\\?\C:\nuit\sous\a.wav")
        );
    }

    #[cfg(unix)]
    #[test]
    fn un_nom_non_utf8_est_refuse() {
        use std::os::unix::ffi::OsStrExt;
        let nom = Path::new("sous").join(OsStr::from_bytes(b"a\xff.wav"));
        assert_eq!(
            relatif(&nom).unwrap_err(),
            NomIllisible("sous/a\u{fffd}.wav".into())
        );
    }

    #[cfg(windows)]
    #[test]
    fn un_nom_non_utf8_est_refuse() {
        use std::os::windows::ffi::OsStringExt;
        // Une demi-paire de substitution seule : permise par NTFS, pas de l'UTF-8.
        let nom = std::ffi::OsString::from_wide(&[0x61, 0xD800, 0x2E, 0x77, 0x61, 0x76]);
        assert!(relatif(&Path::new("sous").join(nom)).is_err());
    }
}
