//! Le second avis S3 (moto) se prépare de lui-même : la commande de test (CONTRIBUTING.md) suffit, sur
//! une machine dont le Python a un moto trop ancien comme sur une machine sans Python.

#[cfg(unix)]
use std::ffi::OsString;
#[cfg(unix)]
use std::path::Path;

use crate::commun::moto::preparer;
#[cfg(unix)]
use crate::commun::moto::{dossier_du_second_avis, version_de_moto};

/// Le `PATH` du processus, précédé de `dossier`.
#[cfg(unix)]
fn path_avec_en_tete(dossier: &Path) -> OsString {
    let mut chemins = vec![dossier.to_path_buf()];
    chemins.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(chemins).unwrap()
}

/// Sans `python3` dans le `PATH`, les essais contre moto sont sautés, et la raison est dite :
/// jamais un échec pour une installation que personne n'a demandée.
#[test]
fn sans_python_les_essais_moto_sont_sautes_en_le_disant() {
    let vide = tempfile::tempdir().unwrap();
    let dossier = tempfile::tempdir().unwrap();
    let raison = preparer(dossier.path(), Some(vide.path().as_os_str().to_owned())).unwrap_err();
    assert_eq!(raison, "python3 est introuvable dans le PATH");
}

/// Un Python du système dont le moto est trop ancien (5.2.1, qui casse le multipart du SDK
/// Rust) en tête du `PATH` : les essais n'en font rien, ils tournent contre le moto de
/// l'environnement du projet, à la version voulue (créé ici s'il ne l'était pas encore).
#[cfg(unix)]
#[test]
fn un_vieux_moto_du_systeme_n_est_pas_celui_des_essais() {
    use std::os::unix::fs::PermissionsExt;
    // Sans Python du tout, il n'y a rien à vérifier ici (l'essai précédent dit ce qui se passe).
    let Some(vrai) = ["python3", "python"].into_iter().find_map(|p| {
        std::process::Command::new(p)
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    }) else {
        return;
    };
    let systeme = tempfile::tempdir().unwrap();
    let paquets = systeme.path().join("site-packages");
    std::fs::create_dir_all(paquets.join("moto")).unwrap();
    std::fs::write(paquets.join("moto/__init__.py"), "__version__ = '5.2.1'\n").unwrap();
    std::fs::write(paquets.join("crc32c.py"), "").unwrap();
    let bin = systeme.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let python3 = bin.join("python3");
    std::fs::write(
        &python3,
        format!(
            "#!/bin/sh\nPYTHONPATH='{}' exec '{vrai}' \"$@\"\n",
            paquets.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&python3, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = Some(path_avec_en_tete(&bin));
    assert_eq!(
        version_de_moto(Path::new("python3"), &path).as_deref(),
        Ok("5.2.1"),
        "le Python du système devrait voir le vieux moto"
    );
    let python = match preparer(&dossier_du_second_avis(), path.clone()) {
        Ok(p) => p,
        // Sans accès aux paquets Python, l'essai est sauté comme les autres, en le disant.
        Err(raison) if std::env::var_os("VIGIE_MOTO_EXIGE").is_none() => {
            eprintln!("sauté : {raison}");
            return;
        }
        Err(raison) => panic!("{raison}"),
    };
    assert!(
        python.starts_with(dossier_du_second_avis()),
        "{}",
        python.display()
    );
    assert_eq!(version_de_moto(&python, &path).as_deref(), Ok("5.2.5"));
}
