//! `vigie bac-a-sable` : la plateforme locale (API Vigie-Chiro + S3) servie sur `127.0.0.1`
//! jusqu'à Ctrl-C, pour des essais à la main, une formation, ou pour y pointer rclone et
//! aws-cli .
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
//! `bac.rs`) : les traces internes du serveur S3 (s3s) ne se mêlent pas à celles de
//! `vigie`, et restent muettes tant qu'on ne les demande pas.
//!
//! Arrêt : Ctrl-C (ou SIGTERM) arrête proprement le serveur, efface le dossier temporaire, et
//! sort en **0** : c'est la fin normale d'un serveur, pas l'interruption d'un travail (le code
//! 130 du contrat dit « un plan interrompu, à reprendre », ce qui n'a pas de sens ici).

use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::bac::{DossierTemporaire, RuntimeDuBac, filtre_du_bac};
use crate::sortie::CodeSortie;
use vigie_bac_a_sable::{BacASable, ReglagesCalcul, Regle};

/// Ce que `vigie bac-a-sable` reçoit de sa ligne de commande.
pub(crate) struct DemandeBac {
    /// Les pannes programmées dès le démarrage (`--pannes`), déjà lues.
    pub(crate) regles: Vec<Regle>,
    /// `--dossier` : gardé ; sinon un dossier temporaire, effacé à l'arrêt.
    pub(crate) dossier: Option<PathBuf>,
    /// `--port` (0 : un port libre).
    pub(crate) port: u16,
    /// Le calcul simulé des participations (`--calcul-attente`, `--calcul-duree`,
    /// `--calcul-echecs`).
    pub(crate) calcul: ReglagesCalcul,
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
    pub(crate) verbosite: u8,
}

/// Le compartiment S3 créé pour les essais.
const COMPARTIMENT_ESSAIS: &str = "nuits";
/// Sous-dossier des données S3, dans le dossier du bac à sable.
const SOUS_DOSSIER_S3: &str = "s3";
/// Base d'essai, dans le dossier du bac à sable.
const BASE_ESSAIS: &str = "vigie.sqlite";

/// La plateforme locale servie jusqu'à Ctrl-C (ou SIGTERM) ; son arrêt est la fin normale : 0.
pub(crate) fn servir(d: DemandeBac) -> Result<CodeSortie> {
    let DemandeBac {
        regles,
        dossier,
        port,
        calcul,
        json,
        silencieux,
        verbosite,
    } = d;
    let runtime = RuntimeDuBac::nouveau(&filtre_du_bac(verbosite, silencieux))?;
    // Les signaux sont écoutés avant le démarrage : un Ctrl-C reçu juste après l'annonce
    // arrête proprement, il ne tue pas le processus en laissant le dossier temporaire.
    let mut signaux = runtime
        .bloquer(async { crate::plateforme::signaux::Signaux::ecouter(false) })
        .context("impossible d'écouter Ctrl-C")?;
    let (dossier, temporaire) = match &dossier {
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
        bac.regler_calcul(calcul);
        for r in &regles {
            bac.pannes().programmer(r.clone());
        }
        annoncer(json, &bac, &dossier, &regles, temporaire.is_none())?;
        signaux.recevoir().await;
        bac.arreter().await;
        anyhow::Ok(())
    })?;
    drop(runtime);
    if !json && !silencieux {
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
    json: bool,
    bac: &BacASable,
    dossier: &Path,
    regles: &[Regle],
    garde: bool,
) -> Result<()> {
    let base = dossier.join(BASE_ESSAIS);
    let variables = variables(bac, &base);
    let pannes: Vec<String> = regles.iter().map(ToString::to_string).collect();
    crate::suivi::demo::annoncer_bac(
        json,
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
