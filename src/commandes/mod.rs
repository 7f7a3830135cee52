//! Une fonction par sous-commande : elles orchestrent (ouvrir la base, inventorier, lancer le
//! moteur, afficher), sans logique métier.

mod connexion;
#[cfg(feature = "bac-a-sable")]
mod demo;
mod depot;
mod envoi;
mod etat;
mod garde;
mod participations;
mod passages;
mod preparer;
mod reglages;
mod renommer;
#[cfg(feature = "bac-a-sable")]
mod sable;
mod saison;
mod traitement;
mod vigiechiro;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;

use crate::cli::{Cli, Commande, OptionsGlobales};
use crate::depot::passage::{Fils, certificat_refuse, moteur};
use crate::plan::{self, Base};
use crate::reessai::Annulation;
use crate::sortie::{CodeSortie, ErreurAvecCode, interrompu};
use crate::suivi::Suivi;

pub use crate::cli::docs::{SCHEMA_JSON, fichiers_attendus, page_de_manuel, schema_json};

/// Un dossier déposé sur l'icône de `vigie.exe` (`plateforme::explorateur`) : les commandes
/// que ce geste revient à taper, dans l'ordre, sans le nom du programme. D'abord
/// `connexion --jeton -` si aucun jeton n'est là (son invite le demande, le vérifie et
/// l'enregistre), puis `depot DOSSIER` (une saison ou une nuit, vers la plateforme).
pub fn depot_a_la_souris(dossier: &std::path::Path) -> Vec<Vec<std::ffi::OsString>> {
    let mut commandes = Vec::new();
    if matches!(crate::jeton::lire(), Err(crate::jeton::ErreurJeton::Absent)) {
        commandes.push(["connexion", "--jeton", "-"].map(Into::into).to_vec());
    }
    commandes.push(vec!["depot".into(), dossier.into()]);
    commandes
}

/// Exécute la commande analysée.
pub fn executer(cli: Cli) -> Result<CodeSortie> {
    lancer(cli).map_err(avec_les_guillemets_oublies)
}

/// Un dossier introuvable qui, recollé aux arguments suivants, existe : un chemin avec des
/// espaces tapé sans guillemets. L'erreur le dit, avec la commande à retaper (même code).
fn avec_les_guillemets_oublies(e: anyhow::Error) -> anyhow::Error {
    let conseil = e.chain().find_map(|c| match c.downcast_ref() {
        Some(crate::inventaire::ErreurInventaire::Introuvable(absent)) => {
            crate::plateforme::ligne::guillemets_oublies(absent)
        }
        _ => None,
    });
    match conseil {
        Some(message) => {
            ErreurAvecCode::nouveau(crate::sortie::code_pour_erreur(&e), message).into()
        }
        None => e,
    }
}

fn lancer(cli: Cli) -> Result<CodeSortie> {
    let g = &cli.globales;
    match cli.commande {
        // Sans destination : la saison, chaque nuit dans sa participation.
        Commande::Depot(args) if args.vers_la_saison() => saison::depot_saison(g, args),
        Commande::Depot(args) => depot::depot(g, args),
        Commande::RetenterEchecs(args) => match saison::nuits_a_retenter(g, &args)? {
            Some(nuits) => saison::retenter_saison(g, &args, nuits),
            None => depot::retenter(g, args),
        },
        Commande::Verifier(args) => envoi::verifier(g, args),
        Commande::Etat(args) => {
            let chemin = chemin_base(g)?;
            let base = ouvrir_base_pour_lire(&chemin)?
                .ok_or_else(|| plan::ErreurBase::AucunPlan { chemin })?;
            etat::etat(g, &base, args)
        }
        Commande::Plans => etat::plans(g),
        Commande::Connexion(args) => connexion::connexion(g, args),
        Commande::Deconnexion => connexion::deconnexion(g),
        Commande::Participations(args) => participations::participations(g, args),
        Commande::Traiter(args) => traitement::traiter(g, args),
        Commande::Traitement(args) => traitement::traitement(g, args),
        Commande::Resultats(args) => traitement::resultats(g, args),
        Commande::Renommer(args) => renommer::renommer(g, args),
        Commande::Preparer(args) => preparer::preparer(g, args),
        #[cfg(feature = "bac-a-sable")]
        Commande::Demo(args) => demo::demo(g, args),
        #[cfg(feature = "bac-a-sable")]
        Commande::BacASable(args) => sable::bac_a_sable(g, args),
        Commande::Completions { shell } => crate::cli::docs::completions(shell),
        Commande::GenererDocs { racine } => {
            crate::cli::docs::generer_docs(&racine).map(|()| CodeSortie::Succes)
        }
    }
}

/// Installe le journal `tracing` : sur la sortie d'erreur (avertissements par défaut, décisions
/// de réessai avec `-v`, détail avec `-vv` ; `RUST_LOG` l'emporte), et complet en JSON dans le
/// fichier de `--journal`.
pub fn initialiser_journal(g: &OptionsGlobales) -> Result<()> {
    crate::suivi::journal::initialiser(crate::suivi::journal::ReglagesJournal {
        verbosite: g.verbose,
        silencieux: g.quiet,
        fichier: g.journal.as_deref(),
    })?;
    Ok(())
}

/// Premier Ctrl-C (ou SIGTERM, ou SIGHUP : le terminal fermé ; sous Windows, la console
/// fermée) : plus rien ne démarre, ce qui est en vol s'arrête (pause réseau comprise), le plan
/// est tenu à jour, le bilan est écrit (perdu sans erreur si plus personne ne le lit) et la
/// commande sort en 130. Second : sortie immédiate en 130, barres effacées (le plan reste
/// cohérent : chaque écriture est une transaction, et une unité laissée `en_cours` sera
/// reprise). Pour toute commande qui émet ; à appeler dans son runtime.
fn ecouter_signaux(annulation: Annulation, suivi: Option<Arc<dyn Suivi>>) {
    let Ok(mut signaux) = crate::plateforme::signaux::Signaux::ecouter(true) else {
        tracing::warn!(
            "impossible d'écouter Ctrl-C : un arrêt coupera net (le plan restera cohérent)"
        );
        return;
    };
    tokio::spawn(async move {
        signaux.recevoir().await;
        if let Some(s) = &suivi {
            s.interruption();
        }
        annulation.annuler();
        signaux.recevoir().await;
        crate::suivi::rendre_le_terminal();
        std::process::exit(CodeSortie::Interrompu as i32);
    });
}

/// Ouvre la base désignée par `--base` / `VIGIE_BASE`, ou celle par défaut.
fn ouvrir_base(g: &OptionsGlobales) -> Result<Base> {
    let chemin = chemin_base(g)?;
    Ok(Base::ouvrir(&chemin)?)
}

/// La base des plans si elle existe, sans la créer : une commande qui lit ou reprend un plan
/// n'a rien à créer (sans base, il n'y a pas de plan).
fn ouvrir_base_existante(g: &OptionsGlobales) -> Result<Base> {
    let chemin = chemin_base(g)?;
    Base::ouvrir_existante(&chemin)?.ok_or_else(|| plan::ErreurBase::AucunPlan { chemin }.into())
}

/// La base des plans si elle existe, pour une commande qui ne fait que lire (`etat`,
/// `plans`) : lue telle quelle si elle ne peut pas être écrite (système de fichiers en lecture
/// seule), ce que dit une ligne sur la sortie d'erreur.
fn ouvrir_base_pour_lire(chemin: &std::path::Path) -> Result<Option<Base>> {
    let base = Base::ouvrir_pour_lire(chemin)?;
    if base.as_ref().is_some_and(Base::en_memoire) {
        crate::suivi::avertir(&format!(
            "attention : la base {} ne peut pas être écrite (système de fichiers en lecture \
             seule, ou droits) : lue telle quelle, rien n'y est écrit",
            chemin.display()
        ))?;
    }
    Ok(base)
}

/// La base des plans, pour la lire avant de planifier ; `None` s'il n'y en a pas encore. Lire ne
/// crée rien : sans base, aucun plan n'existe. Une simulation lit une copie, pour ne pas même
/// migrer la base.
fn base_a_lire(g: &OptionsGlobales, a_blanc: bool) -> Result<Option<Base>> {
    let chemin = chemin_base(g)?;
    if !chemin.exists() {
        return Ok(None);
    }
    if a_blanc {
        return Ok(Some(Base::ouvrir_a_blanc(&chemin)?));
    }
    Ok(Base::ouvrir_existante(&chemin)?)
}

fn chemin_base(g: &OptionsGlobales) -> Result<PathBuf> {
    Ok(match &g.base {
        Some(b) => b.clone(),
        None => plan::chemin_par_defaut()?,
    })
}
