//! Ce qui dépend du système pour lire les fichiers d'une nuit : les ouvrir sans suivre un lien
//! symbolique, et reconnaître un fichier à son identité (périphérique et inode sous Unix).
//!
//! Pourquoi : entre la planification et l'envoi (des heures, parfois), un fichier de la nuit
//! peut être remplacé (`mv -T`) par un lien vers un fichier secret de même taille et de même
//! date, ou par un autre fichier. Suivre le lien enverrait le secret sous le nom de la séquence.
//! On ouvre donc sans suivre (`O_NOFOLLOW`), et le plan garde l'identité du fichier planifié
//! pour la comparer avant et après chaque envoi.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Ouvre un fichier en lecture sans suivre de lien symbolique (sous Unix, `O_NOFOLLOW` : un
/// lien fait échouer l'ouverture, ELOOP), et vérifie que c'est un fichier ordinaire.
pub fn ouvrir_sans_suivre(chemin: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_FLAG_OPEN_REPARSE_POINT : ouvre le lien lui-même, pas sa cible ; la vérification
        // ci-dessous le refuse alors (ce n'est pas un fichier ordinaire).
        options.custom_flags(0x0020_0000);
    }
    let fichier = options.open(chemin)?;
    if !fichier.metadata()?.file_type().is_file() {
        return Err(io::Error::other(
            "ce n'est pas un fichier ordinaire (lien ou fichier spécial), il n'est pas lu",
        ));
    }
    Ok(fichier)
}

/// L'identité d'un fichier, « périphérique:inode » ; `None` là où le système n'en donne pas
/// de stable (le plan se contente alors de la taille et de la date).
pub fn identite(meta: &Metadata) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!("{}:{}", meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn un_lien_n_est_pas_suivi() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, b"secret").unwrap();
        let lien = dir.path().join("a.wav");
        std::os::unix::fs::symlink(&secret, &lien).unwrap();
        let e = ouvrir_sans_suivre(&lien).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{e}");
        assert!(ouvrir_sans_suivre(&secret).is_ok());
        assert!(
            ouvrir_sans_suivre(dir.path()).is_err(),
            "un dossier n'est pas lu"
        );
        let a = identite(&std::fs::metadata(&secret).unwrap());
        let b = identite(&std::fs::symlink_metadata(&lien).unwrap());
        assert!(a.is_some() && a != b);
    }
}
