//! Ce que partagent `vigie demo` et `vigie bac-a-sable` : le runtime du bac à sable, dont les
//! fils journalisent à part (les traces internes du serveur S3, s3s, ne se mêlent pas à celles
//! de `vigie` et restent muettes tant qu'on ne les demande pas), et un dossier temporaire privé,
//! effacé à la fin sauf s'il faut le garder.

use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing_subscriber::EnvFilter;

/// Le filtre du journal des fils du bac à sable : `RUST_LOG` s'il est défini (« sur
/// demande »), sinon les avertissements du bac à sable seul, plus de détail avec `-v`. s3s reste
/// muet jusqu'à `-vv` : il journalise en erreur toute réponse 5xx, dont celles des coupures
/// simulées, et chaque opération refusée ; à `warn`, une démonstration en serait parsemée.
pub(crate) fn filtre_du_bac(verbosite: u8, silencieux: bool) -> String {
    if let Ok(f) = std::env::var("RUST_LOG")
        && !f.trim().is_empty()
    {
        return f;
    }
    match (silencieux, verbosite) {
        (true, _) => "error,s3s=off",
        (false, 0) => "warn,s3s=off",
        (false, 1) => "warn,s3s=off,vigie=info",
        (false, 2) => "info,s3s=warn,vigie=debug",
        (false, _) => "info,vigie=trace",
    }
    .to_owned()
}

thread_local! {
    /// Le journal propre aux fils du bac à sable, tenu tant que le fil vit.
    static JOURNAL_DU_FIL: RefCell<Option<DefaultGuard>> = const { RefCell::new(None) };
}

/// Un runtime multi-fils pour le bac à sable, dont chaque fil journalise sur la sortie d'erreur
/// selon son propre filtre, et non selon le journal global de `vigie` (installé par `main`
/// d'après `-v`). Sans cela, `vigie demo -vvv` noierait le dépôt sous les traces du serveur.
pub(crate) struct RuntimeDuBac {
    runtime: tokio::runtime::Runtime,
    journal: Dispatch,
}

impl RuntimeDuBac {
    pub(crate) fn nouveau(filtre: &str) -> Result<RuntimeDuBac> {
        let journal = Dispatch::new(
            tracing_subscriber::fmt()
                .with_writer(io::stderr)
                .with_ansi(crate::suivi::couleurs_sur_la_sortie_d_erreur())
                .with_target(false)
                .with_env_filter(EnvFilter::new(filtre))
                .finish(),
        );
        let pour_les_fils = journal.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("bac-a-sable")
            .enable_all()
            .on_thread_start(move || {
                let garde = dispatcher::set_default(&pour_les_fils);
                JOURNAL_DU_FIL.with(|j| *j.borrow_mut() = Some(garde));
            })
            .on_thread_stop(|| {
                JOURNAL_DU_FIL.with(|j| j.borrow_mut().take());
            })
            .build()
            .context("impossible de créer le runtime du bac à sable")?;
        Ok(RuntimeDuBac { runtime, journal })
    }

    /// Exécute `f` jusqu'au bout sur ce runtime, depuis le fil appelant, qui journalise alors
    /// lui aussi selon le filtre du bac à sable (démarrage, arrêt).
    pub(crate) fn bloquer<F: std::future::Future>(&self, f: F) -> F::Output {
        dispatcher::with_default(&self.journal, || self.runtime.block_on(f))
    }

    /// Lance une tâche de fond sur ce runtime.
    pub(crate) fn lancer<F>(&self, f: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.runtime.spawn(f);
    }
}

/// Un dossier `vigie-<quoi>-<hasard>` sous le répertoire temporaire (`TMPDIR`), lisible du
/// seul propriétaire, effacé à l'abandon sauf s'il est gardé.
#[derive(Debug)]
pub(crate) struct DossierTemporaire {
    chemin: PathBuf,
    garde: bool,
}

impl DossierTemporaire {
    pub(crate) fn creer(quoi: &str) -> Result<DossierTemporaire> {
        let racine = std::env::temp_dir();
        let mut derniere = None;
        for _ in 0..8 {
            let chemin = racine.join(format!("vigie-{quoi}-{:08x}", rand::random::<u32>()));
            match crate::plateforme::dossier_prive().create(&chemin) {
                Ok(()) => {
                    return Ok(DossierTemporaire {
                        chemin,
                        garde: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => derniere = Some(e),
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!(
                            "impossible de créer un dossier temporaire dans {} (TMPDIR)",
                            racine.display()
                        )
                    });
                }
            }
        }
        Err(anyhow!(
            "impossible de créer un dossier temporaire dans {} : {derniere:?}",
            racine.display()
        ))
    }

    pub(crate) fn chemin(&self) -> &Path {
        &self.chemin
    }

    /// Le dossier ne sera pas effacé.
    pub(crate) fn garder(&mut self) {
        self.garde = true;
    }
}

impl Drop for DossierTemporaire {
    fn drop(&mut self) {
        if self.garde {
            return;
        }
        if let Err(e) = std::fs::remove_dir_all(&self.chemin)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(dossier = %self.chemin.display(), erreur = %e, "dossier temporaire impossible à effacer");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn le_dossier_temporaire_est_prive_et_efface() {
        let d = DossierTemporaire::creer("essai").unwrap();
        let chemin = d.chemin().to_owned();
        std::fs::write(chemin.join("f"), b"x").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&chemin).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        drop(d);
        assert!(!chemin.exists());

        let mut d = DossierTemporaire::creer("essai").unwrap();
        d.garder();
        let chemin = d.chemin().to_owned();
        drop(d);
        assert!(chemin.exists());
        std::fs::remove_dir_all(chemin).unwrap();
    }

    #[test]
    fn s3s_reste_muet_sans_demande() {
        // RUST_LOG peut être défini par qui lance les tests : on ne vérifie que la table.
        if std::env::var_os("RUST_LOG").is_some() {
            return;
        }
        assert_eq!(filtre_du_bac(0, false), "warn,s3s=off");
        assert_eq!(filtre_du_bac(5, true), "error,s3s=off");
        assert!(filtre_du_bac(1, false).contains("s3s=off"));
    }
}
