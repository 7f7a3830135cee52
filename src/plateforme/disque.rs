//! Ce que le système dit d'un disque : la place libre (pour ne pas commencer une nuit qui ne
//! tiendra pas) et la lecture seule (le mode de fin de vie d'une carte SD).
//!
//! Pourquoi ici : `statvfs` (Unix) et `GetDiskFreeSpaceExW` (Windows) ne sont pas dans std.
//! `vigie preparer` s'en sert avant d'écrire chaque nuit : une nuit coupée par un disque plein
//! laisse des séquences complètes (chacune est écrite à part puis renommée), mais une commande
//! qui sait d'avance qu'elle n'ira pas au bout le dit avant d'écrire le premier octet.
//! Et ce qu'on dit au système des octets d'une carte déjà lus (`posix_fadvise`, pas dans std
//! non plus).

use std::fs::File;
use std::io;
use std::path::Path;

/// La place disponible pour l'utilisateur (pas celle réservée à l'administrateur) sur le
/// système de fichiers qui tient `chemin`, en octets.
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : `statvfs` et `GetDiskFreeSpaceExW`,
// que std ne donne pas.
#[allow(unsafe_code)]
pub(crate) fn place_libre(chemin: &Path) -> io::Result<u64> {
    #[cfg(unix)]
    {
        let s = statvfs(chemin)?;
        // `u64` sous Linux, `u32` (`fsblkcnt_t`) sous macOS : la conversion sert ailleurs.
        #[allow(clippy::useless_conversion)]
        Ok(u64::from(s.f_bavail).saturating_mul(u64::from(s.f_frsize)))
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::Storage::FileSystem::GetDiskFreeSpaceExW;
        let large = super::chaine_large(chemin);
        let mut libre: u64 = 0;
        // SAFETY : `large` est une chaîne UTF-16 terminée par un zéro, vivante pendant
        // l'appel ; `libre` est un entier local ; les deux autres sorties sont facultatives.
        let r = unsafe {
            GetDiskFreeSpaceExW(
                large.as_ptr(),
                &mut libre,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if r == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(libre)
    }
}

/// Le dossier (ou le fichier) ne s'écrit pas : système de fichiers monté en lecture seule
/// (une carte SD qui se protège elle-même), ou aucun droit d'écriture sur lui. Une erreur de
/// lecture des attributs rend faux : on n'invente pas de lecture seule.
pub(crate) fn en_lecture_seule(chemin: &Path) -> bool {
    let droits = std::fs::metadata(chemin).is_ok_and(|m| m.permissions().readonly());
    #[cfg(unix)]
    {
        droits || statvfs(chemin).is_ok_and(|s| s.f_flag & libc::ST_RDONLY != 0)
    }
    #[cfg(windows)]
    {
        droits
    }
}

/// Dit au système que les `longueur` octets de `f` à partir de `debut`, déjà lus, ne le seront
/// plus (`posix_fadvise(POSIX_FADV_DONTNEED)`) : il peut rendre la mémoire qu'ils occupent
/// dans son cache. Une nuit de 10 à 40 Go préparée sans cela remplit le cache du portable de
/// la carte entière, chasse ce que les autres programmes y gardaient, et le système passe son
/// temps à libérer de la mémoire. Un conseil seulement : une erreur ne change rien à ce qui est
/// lu ou écrit, elle est ignorée. Ailleurs que sous Linux (macOS n'a pas `posix_fadvise`,
/// Windows rien d'équivalent sur un fichier ouvert) : rien.
#[allow(unsafe_code)]
pub(crate) fn oublier_lu(f: &File, debut: u64, longueur: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(debut), Ok(longueur)) = (
            libc::off_t::try_from(debut),
            libc::off_t::try_from(longueur),
        ) else {
            return;
        };
        // SAFETY : le descripteur est celui de `f`, ouvert pendant l'appel ; `posix_fadvise`
        // ne lit ni n'écrit aucune mémoire de l'appelant.
        let _ = unsafe {
            libc::posix_fadvise(f.as_raw_fd(), debut, longueur, libc::POSIX_FADV_DONTNEED)
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (f, debut, longueur);
}

#[cfg(unix)]
// `unsafe` permis ici seul : `statvfs`, que std ne donne pas.
#[allow(unsafe_code)]
fn statvfs(chemin: &Path) -> io::Result<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(chemin.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY : une structure `statvfs` remise à zéro est une valeur valide (entiers seuls).
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY : `c` est une chaîne C terminée par un zéro, vivante pendant l'appel ; `s`
        // est une structure locale que l'appel remplit.
        let r = unsafe { libc::statvfs(c.as_ptr(), &mut s) };
        if r == 0 {
            return Ok(s);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn la_place_libre_d_un_dossier_existant_se_lit() {
        let d = tempfile::tempdir().unwrap();
        assert!(place_libre(d.path()).unwrap() > 0);
        assert!(place_libre(&d.path().join("absent")).is_err());
    }

    #[test]
    fn un_dossier_ordinaire_n_est_pas_en_lecture_seule() {
        let d = tempfile::tempdir().unwrap();
        assert!(!en_lecture_seule(d.path()));
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let mut p = std::fs::metadata(&f).unwrap().permissions();
        p.set_readonly(true);
        std::fs::set_permissions(&f, p).unwrap();
        assert!(en_lecture_seule(&f));
    }
}
