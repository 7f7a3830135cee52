//! `vigie bac-a-sable` : la plateforme locale (API Vigie-Chiro + S3) servie sur `127.0.0.1`
//! jusqu'à Ctrl-C, pour des essais à la main, une formation, ou pour y pointer rclone et
//! aws-cli ; et ce que `vigie demo` partage avec elle (dossier temporaire, journal à part).
//!
//! Pourquoi : essayer `vigie` sans compte sur la plateforme ni compartiment S3 payant, et voir
//! ce qu'il fait d'une panne qu'on a choisie (`--pannes`), sans rien risquer. Tout ce qu'il
//! faut pour s'y brancher est affiché au démarrage, prêt à coller (`export …`), ou, avec
//! `--json`, en une seule ligne que lisent les scripts de test.
//!
//! Son dossier (temporaire, ou `--dossier D` pour le garder) contient les données S3 (`s3/`)
//! et une base d'essai (`vigie.sqlite`) que désigne le `VIGIE_BASE` annoncé : les plans des
//! essais ne se mêlent pas à ceux de la vraie base.
//!
//! Le bac à sable tourne sur un runtime à lui, dont les fils journalisent à part (voir
//! [`RuntimeDuBac`]) : les traces internes du serveur S3 (s3s) ne se mêlent pas à celles de
//! `vigie`, et restent muettes tant qu'on ne les demande pas.
//!
//! Arrêt : Ctrl-C (ou SIGTERM) arrête proprement le serveur, efface le dossier temporaire, et
//! sort en **0** : c'est la fin normale d'un serveur, pas l'interruption d'un travail (le code
//! 130 du contrat dit « un plan interrompu, à reprendre », ce qui n'a pas de sens ici).

use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing_subscriber::EnvFilter;

use crate::cli::{ArgsBacASable, OptionsGlobales};
use crate::sortie::CodeSortie;
use vigie_bac_a_sable::{BacASable, Pannes, Regle};

/// Le compartiment S3 créé pour les essais.
pub(crate) const COMPARTIMENT_ESSAIS: &str = "nuits";
/// Sous-dossier des données S3, dans le dossier du bac à sable.
const SOUS_DOSSIER_S3: &str = "s3";
/// Base d'essai, dans le dossier du bac à sable.
const BASE_ESSAIS: &str = "vigie.sqlite";

pub(super) fn bac_a_sable(g: &OptionsGlobales, args: ArgsBacASable) -> Result<CodeSortie> {
    // Une spécification de panne invalide arrête tout avant le démarrage (code 2).
    let regles = args
        .pannes
        .iter()
        .map(|spec| {
            Pannes::analyser_spec(spec).map_err(|e| anyhow!("--pannes « {spec} » invalide : {e}"))
        })
        .collect::<Result<Vec<Regle>>>()?;
    let runtime = RuntimeDuBac::nouveau(&filtre_du_bac(g.verbose, g.quiet))?;
    // Les signaux sont écoutés avant le démarrage : un Ctrl-C reçu juste après l'annonce
    // arrête proprement, il ne tue pas le processus en laissant le dossier temporaire.
    let mut signaux = runtime
        .bloquer(async { crate::plateforme::signaux::Signaux::ecouter(false) })
        .context("impossible d'écouter Ctrl-C")?;
    let (dossier, temporaire) = match &args.dossier {
        // Absolu : le VIGIE_BASE annoncé doit valoir depuis un autre terminal.
        Some(d) => std::fs::create_dir_all(d)
            .and_then(|()| d.canonicalize())
            .map(|d| (d, None))
            .with_context(|| format!("dossier du bac à sable {}", d.display()))?,
        None => {
            let t = DossierTemporaire::creer("bac-a-sable")?;
            (t.chemin().to_owned(), Some(t))
        }
    };
    let port = args.port;
    runtime.bloquer(async {
        let bac = match BacASable::demarrer(&dossier.join(SOUS_DOSSIER_S3), port).await {
            Ok(bac) => bac,
            Err(e) if port_occupe(&e) => {
                return Err(e.context(format!(
                    "le port {port} est déjà pris : choisissez-en un autre avec --port (0 : un port libre)"
                )));
            }
            Err(e) => return Err(e),
        };
        bac.creer_compartiment(COMPARTIMENT_ESSAIS)?;
        bac.regler_calcul(vigie_bac_a_sable::ReglagesCalcul {
            attente: args.calcul_attente,
            duree: args.calcul_duree,
            echecs: args.calcul_echecs,
            ..vigie_bac_a_sable::ReglagesCalcul::default()
        });
        for r in &regles {
            bac.pannes().programmer(r.clone());
        }
        annoncer(g, &bac, &dossier, &regles, temporaire.is_none())?;
        signaux.recevoir().await;
        bac.arreter().await;
        anyhow::Ok(())
    })?;
    drop(runtime);
    if !g.json && !g.quiet {
        crate::suivi::demo::bac_arrete(temporaire.is_none())?;
    }
    drop(temporaire);
    Ok(CodeSortie::Succes)
}

fn port_occupe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::AddrInUse)
    })
}

/// Les variables d'environnement qui branchent un client sur ce bac à sable : S3 (chaîne AWS
/// standard, lue par `vigie`, aws-cli, rclone `env_auth`), plateforme et base d'essai (`vigie`).
fn variables(bac: &BacASable, base: &Path) -> Vec<(&'static str, String)> {
    let mut v = bac.variables_env();
    v.extend(bac.variables_env_plateforme());
    v.push(("VIGIE_BASE", base.display().to_string()));
    v
}

/// Dit où se brancher (`suivi/demo.rs`).
fn annoncer(
    g: &OptionsGlobales,
    bac: &BacASable,
    dossier: &Path,
    regles: &[Regle],
    garde: bool,
) -> Result<()> {
    let base = dossier.join(BASE_ESSAIS);
    let variables = variables(bac, &base);
    let pannes: Vec<String> = regles.iter().map(ToString::to_string).collect();
    crate::suivi::demo::annoncer_bac(
        g.json,
        &crate::suivi::demo::Branchement {
            api: &bac.api(),
            endpoint: &bac.endpoint(),
            compartiment: COMPARTIMENT_ESSAIS,
            dossier,
            garde,
            donnees_s3: bac.racine(),
            base: &base,
            pannes: &pannes,
            variables: &variables,
        },
    )
}

/// Le filtre du journal des fils du bac à sable : `RUST_LOG` s'il est défini (« sur
/// demande »), sinon les avertissements du bac à sable seul, plus de détail avec `-v`. s3s reste
/// muet jusqu'à `-vv` : il journalise en erreur toute réponse 5xx, dont celles des coupures
/// simulées, et chaque opération refusée ; à `warn`, une démonstration en serait parsemée.
pub(super) fn filtre_du_bac(verbosite: u8, silencieux: bool) -> String {
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
pub(super) struct RuntimeDuBac {
    runtime: tokio::runtime::Runtime,
    journal: Dispatch,
}

impl RuntimeDuBac {
    pub(super) fn nouveau(filtre: &str) -> Result<RuntimeDuBac> {
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
    pub(super) fn bloquer<F: std::future::Future>(&self, f: F) -> F::Output {
        dispatcher::with_default(&self.journal, || self.runtime.block_on(f))
    }

    /// Lance une tâche de fond sur ce runtime.
    pub(super) fn lancer<F>(&self, f: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.runtime.spawn(f);
    }
}

/// Un dossier `vigie-<quoi>-<hasard>` sous le répertoire temporaire (`TMPDIR`), lisible du
/// seul propriétaire, effacé à l'abandon sauf s'il est gardé.
#[derive(Debug)]
pub(super) struct DossierTemporaire {
    chemin: PathBuf,
    garde: bool,
}

impl DossierTemporaire {
    pub(super) fn creer(quoi: &str) -> Result<DossierTemporaire> {
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

    pub(super) fn chemin(&self) -> &Path {
        &self.chemin
    }

    /// Le dossier ne sera pas effacé.
    pub(super) fn garder(&mut self) {
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
