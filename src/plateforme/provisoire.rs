//! Un fichier provisoire que l'explorateur de fichiers ne montre pas.
//!
//! Pourquoi : `vigie` écrit chaque séquence (`vigie preparer`) et chaque fichier déposé dans un
//! dossier (la destination `dossier:`) d'abord dans un provisoire à côté, puis le renomme. Sous
//! Unix, le point en tête de son nom (`.vigie-sequence-…`, `.NOM.vigie-provisoire`) le cache ;
//! sous Windows, l'explorateur le montre, et un arrêt brutal le laisse à la vue de la bénévole,
//! au milieu de ses séquences, jusqu'à la reprise. On lui pose donc l'attribut « caché » à sa
//! création, et on l'ôte juste avant le renommage : le fichier renommé garde les attributs du
//! provisoire, et une séquence cachée serait perdue de vue. Un arrêt entre les deux laisse un
//! provisoire visible, que la reprise efface comme les autres.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Crée le provisoire `chemin`, ouvert en lecture et en écriture, caché sous Windows.
/// `exclusif` : échoue s'il existe déjà (`O_EXCL`, ce que demande `tempfile`) ; sinon, un
/// provisoire déjà là (celui qu'un arrêt a laissé) est vidé.
pub(crate) fn creer(chemin: &Path, exclusif: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    if exclusif {
        options.create_new(true);
    } else {
        options.create(true).truncate(true);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // Redemander l'attribut est aussi ce qui permet de recréer un provisoire caché déjà
        // là : sans lui, Windows refuse (`ERROR_ACCESS_DENIED`).
        options.attributes(windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_HIDDEN);
    }
    options.open(chemin)
}

/// Ôte l'attribut « caché » de `chemin`, juste avant son renommage (Windows) ; rien ailleurs.
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : `GetFileAttributesW` et
// `SetFileAttributesW`, que std ne donne pas.
#[allow(unsafe_code)]
pub(crate) fn montrer(chemin: &Path) -> io::Result<()> {
    #[cfg(windows)]
    {
        use windows_sys::Win32::Storage::FileSystem::{
            FILE_ATTRIBUTE_HIDDEN, FILE_ATTRIBUTE_NORMAL, GetFileAttributesW,
            INVALID_FILE_ATTRIBUTES, SetFileAttributesW,
        };
        let large = super::chaine_large(chemin);
        // SAFETY : `large` est une chaîne UTF-16 terminée par un zéro, vivante pendant l'appel.
        let attributs = unsafe { GetFileAttributesW(large.as_ptr()) };
        if attributs == INVALID_FILE_ATTRIBUTES {
            return Err(io::Error::last_os_error());
        }
        if attributs & FILE_ATTRIBUTE_HIDDEN == 0 {
            return Ok(());
        }
        // Les autres attributs restent (archive, lecture seule…) ; sans aucun, « normal ».
        let restants = match attributs & !FILE_ATTRIBUTE_HIDDEN {
            0 => FILE_ATTRIBUTE_NORMAL,
            a => a,
        };
        // SAFETY : la même chaîne, vivante pendant l'appel ; `restants` est un entier.
        if unsafe { SetFileAttributesW(large.as_ptr(), restants) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(windows))]
    {
        let _ = chemin;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Caché sous Windows ? (Toujours faux ailleurs : le nom seul y cache.)
    fn cache(chemin: &Path) -> bool {
        #[cfg(windows)]
        {
            use std::os::windows::fs::MetadataExt;
            let attributs = std::fs::metadata(chemin).unwrap().file_attributes();
            attributs & windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_HIDDEN != 0
        }
        #[cfg(not(windows))]
        {
            let _ = chemin;
            false
        }
    }

    #[test]
    fn le_provisoire_est_cache_jusqu_a_son_renommage() {
        let d = tempfile::tempdir().unwrap();
        // Sans point en tête : wine tient pour caché tout nom qui commence par un point, et
        // l'essai ne verrait plus que le nom.
        let provisoire = d.path().join("sequence.wav.vigie-provisoire");
        let mut f = creer(&provisoire, false).unwrap();
        f.write_all(b"RIFF").unwrap();
        drop(f);
        assert_eq!(cache(&provisoire), cfg!(windows));
        // Une relance après un arrêt brutal recrée le même provisoire, caché et vidé.
        drop(creer(&provisoire, false).unwrap());
        assert_eq!(std::fs::read(&provisoire).unwrap(), b"");
        assert_eq!(cache(&provisoire), cfg!(windows));
        // Exclusif : un provisoire déjà là fait échouer la création.
        let e = creer(&provisoire, true).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        // Montré, puis renommé : la séquence se voit.
        montrer(&provisoire).unwrap();
        assert!(!cache(&provisoire));
        let sequence = d.path().join("sequence.wav");
        std::fs::rename(&provisoire, &sequence).unwrap();
        assert!(!cache(&sequence));
        montrer(&sequence).unwrap();
        assert!(montrer(&d.path().join("absent")).is_err() || cfg!(not(windows)));
    }
}
