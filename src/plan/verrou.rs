//! Un seul `vigie` par plan.
//!
//! Un verrou du système (`File::try_lock` : `flock` sous Unix, `LockFileEx` sous Windows) sur
//! un fichier propre au plan, à côté de la base. Le système le libère quand le processus meurt, kill -9 compris :
//! un verrou abandonné ne bloque donc jamais, et il n'y a pas de fichier orphelin à effacer à la
//! main (le fichier reste, vide de sens tant que personne ne le tient). Le verrou est pris
//! **avant** de toucher au plan, y compris avant sa création : il est nommé d'après l'identité
//! du plan (dossier, destination), pas d'après son numéro.
//!
//! Le numéro du processus qui tient le plan est écrit à côté (`.processus`), pas dans le
//! fichier verrouillé : sous Windows, le verrou interdit aux autres de lire ce qu'il couvre.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use super::{ErreurBase, Resultat};

/// Le verrou d'un plan, tenu tant que cette valeur vit.
#[derive(Debug)]
pub(crate) struct VerrouPlan {
    _fichier: File,
}

impl VerrouPlan {
    /// Prend le verrou du plan (dossier, destination) de la base `base`, sans attendre.
    /// `libelle` nomme le plan dans le message si un autre `vigie` le tient.
    pub(crate) fn prendre(
        base: &Path,
        dossier: &str,
        destination: &str,
        libelle: &str,
    ) -> Resultat<Self> {
        let dossier_verrous = dossier_des_verrous(base);
        let err = |cause| ErreurBase::Verrou {
            chemin: dossier_verrous.clone(),
            cause,
        };
        crate::plateforme::dossier_prive()
            .recursive(true)
            .create(&dossier_verrous)
            .map_err(err)?;
        let nom = format!("plan-{:016x}", empreinte(&[dossier, destination]));
        let chemin = dossier_verrous.join(format!("{nom}.verrou"));
        let chemin_processus = dossier_verrous.join(format!("{nom}.processus"));
        // Sans suivre de lien : le verrou se prendrait sur sa cible.
        let fichier = crate::plateforme::sans_suivre_les_liens(
            crate::plateforme::fichier_prive()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )
        .open(&chemin)
        .map_err(err)?;
        match fichier.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let pid = std::fs::read_to_string(&chemin_processus)
                    .ok()
                    .and_then(|contenu| contenu.trim().parse().ok());
                return Err(ErreurBase::PlanOccupe {
                    plan: libelle.to_owned(),
                    pid,
                });
            }
            Err(TryLockError::Error(e)) => return Err(err(e)),
        }
        // Le numéro du processus, pour que le suivant dise qui tient le plan.
        crate::plateforme::ecriture::ecrire_entier(
            &chemin_processus,
            crate::plateforme::ecriture::Droits::Prives,
            format!("{}\n", std::process::id()).as_bytes(),
        )
        .map_err(err)?;
        Ok(VerrouPlan { _fichier: fichier })
    }
}

/// Un processus vivant tient-il le plan (dossier, destination) de la base `base` en ce moment ?
/// C'est ce qui dit qu'une nuit est « en cours » : des fichiers notés en cours sans processus
/// pour les tenir (terminal fermé, kill -9) ne tournent plus. La sonde prend un verrou partagé
/// et le rend aussitôt (un dépôt qui démarrerait dans cet instant précis dirait le plan tenu) ;
/// sans fichier de verrou, personne n'a jamais tenu le plan.
pub(crate) fn est_tenu(base: &Path, dossier: &str, destination: &str) -> bool {
    let chemin = dossier_des_verrous(base).join(format!(
        "plan-{:016x}.verrou",
        empreinte(&[dossier, destination])
    ));
    let Ok(fichier) = File::open(&chemin) else {
        return false;
    };
    matches!(fichier.try_lock_shared(), Err(TryLockError::WouldBlock))
}

fn dossier_des_verrous(base: &Path) -> PathBuf {
    let mut nom = base.file_name().unwrap_or_default().to_os_string();
    nom.push(".verrous");
    base.with_file_name(nom)
}

/// FNV-1a 64 bits : stable d'une version de Rust à l'autre (contrairement à `DefaultHasher`),
/// ce qui compte puisque deux binaires différents doivent tomber sur le même fichier.
fn empreinte(parties: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for partie in parties {
        for &o in partie.as_bytes().iter().chain(std::iter::once(&0u8)) {
            h ^= u64::from(o);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_preneur_refuse_avec_le_pid_puis_libere() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("v.sqlite");
        let v = VerrouPlan::prendre(&base, "/n", "s3://c", "1").unwrap();
        let e = VerrouPlan::prendre(&base, "/n", "s3://c", "1").unwrap_err();
        match e {
            ErreurBase::PlanOccupe { pid, .. } => assert_eq!(pid, Some(std::process::id())),
            autre => panic!("attendu PlanOccupe, obtenu {autre}"),
        }
        // Un autre plan de la même base : libre.
        let _autre = VerrouPlan::prendre(&base, "/n", "s3://d", "2").unwrap();
        drop(v);
        VerrouPlan::prendre(&base, "/n", "s3://c", "1").unwrap();
    }

    /// Tenu tant qu'un verrou vit, libre ensuite, et libre sans fichier de verrou.
    #[test]
    fn un_plan_n_est_tenu_que_par_un_verrou_vivant() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("v.sqlite");
        assert!(!est_tenu(&base, "/n", "s3://c"));
        let v = VerrouPlan::prendre(&base, "/n", "s3://c", "1").unwrap();
        assert!(est_tenu(&base, "/n", "s3://c"));
        assert!(!est_tenu(&base, "/n", "s3://d"));
        drop(v);
        assert!(!est_tenu(&base, "/n", "s3://c"));
        // La sonde n'empêche pas de le prendre ensuite.
        VerrouPlan::prendre(&base, "/n", "s3://c", "1").unwrap();
    }

    #[test]
    fn empreinte_stable() {
        assert_eq!(empreinte(&["a", "b"]), empreinte(&["a", "b"]));
        assert_ne!(empreinte(&["ab", ""]), empreinte(&["a", "b"]));
    }
}
