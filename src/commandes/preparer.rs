//! `vigie preparer CARTE --vers DOSSIER` : lire la carte, écrire les séquences de chaque nuit,
//! dire ce qui a été fait. Le câblage seul : la règle est dans `preparation/`, les mots dans
//! `suivi/preparation.rs`.

use std::path::Path;

use anyhow::Result;

use crate::cli::{ArgsPreparer, OptionsGlobales};
use crate::preparation::carte::{self, Identite};
use crate::preparation::ecriture::{self, ErreurEcriture};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::preparation::{AffichagePreparation, BilanPreparation};

pub(super) fn preparer(g: &OptionsGlobales, args: ArgsPreparer) -> Result<CodeSortie> {
    let identite = Identite {
        site: args.site,
        passage: args.passage,
        point: args.point,
    };
    refuser_sortie_sur_la_carte(&args.carte, &args.vers)?;
    let carte = carte::lire_carte(&args.carte, &identite)
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    let affichage = AffichagePreparation {
        json: g.json,
        silencieux: g.quiet,
    };
    affichage.carte(&args.carte, &carte)?;
    let mut bilan = BilanPreparation::default();
    for nuit in &carte.nuits {
        let b = ecriture::ecrire_nuit(&args.carte, nuit, &args.vers, &mut |_| {})
            .map_err(erreur_d_ecriture)?;
        affichage.nuit(nuit, &b)?;
        bilan.nuits += 1;
        bilan.sequences += nuit.sequences();
        bilan.ecrites += b.ecrites;
        bilan.deja_la += b.deja_la;
    }
    affichage.bilan(&carte, &bilan, &args.vers)?;
    Ok(if carte.refuses.is_empty() {
        CodeSortie::Succes
    } else {
        CodeSortie::RefusDefinitifs
    })
}

/// Un disque qui flanche se retente (code 1) ; le reste demande un geste (code 2).
fn erreur_d_ecriture(e: ErreurEcriture) -> anyhow::Error {
    let code = match e {
        ErreurEcriture::Systeme { .. } | ErreurEcriture::OriginalRaccourci(_) => {
            CodeSortie::EchecsTransitoires
        }
        ErreurEcriture::PlaceInsuffisante { .. } | ErreurEcriture::AutreFichier(_) => {
            CodeSortie::Usage
        }
    };
    ErreurAvecCode::nouveau(code, e.to_string()).into()
}

/// La sortie n'est jamais sur la carte : rien n'y est écrit, pas même un dossier.
fn refuser_sortie_sur_la_carte(carte: &Path, vers: &Path) -> Result<()> {
    let Ok(carte) = std::fs::canonicalize(carte) else {
        return Ok(());
    };
    // La sortie n'existe peut-être pas encore : son plus proche parent existant dit où elle sera.
    let mut existant = vers.to_path_buf();
    while !existant.exists() && existant.pop() {}
    let existant = if existant.as_os_str().is_empty() {
        std::env::current_dir()?
    } else {
        existant
    };
    if std::fs::canonicalize(existant).is_ok_and(|v| v.starts_with(&carte)) {
        return Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            format!(
                "--vers {} est sur la carte : rien n'est écrit sur la carte ; choisissez un \
                 dossier du disque de l'ordinateur",
                vers.display()
            ),
        )
        .into());
    }
    Ok(())
}
