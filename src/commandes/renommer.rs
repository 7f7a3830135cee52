//! `vigie renommer DOSSIER [--appliquer]` : corrige dans les noms d'une nuit ce qui se corrige
//! sans ambiguïté, et dit ce qui reste à corriger à la main. Sans `--appliquer`, rien ne bouge.

use anyhow::Result;

use crate::cli::{ArgsRenommer, OptionsGlobales};
use crate::inventaire::{self, Inventaire};
use crate::noms::{self, Empechement, Renommage};
use crate::sortie::CodeSortie;

pub(super) fn renommer(g: &OptionsGlobales, args: ArgsRenommer) -> Result<CodeSortie> {
    let inv = inventaire::inventorier(&args.dossier)?;
    let prevus = noms::renommages_sans_ambiguite(&args.dossier, &inv.enregistrements);
    let mut faits = Vec::new();
    let mut rates = Vec::new();
    if args.appliquer {
        for r in &prevus {
            match noms::renommer(&args.dossier, r) {
                Ok(()) => faits.push(r.clone()),
                Err(e) => rates.push((r.clone(), e.to_string())),
            }
        }
    }
    // Ce qui resterait (ou reste) après les renommages : à corriger à la main.
    let retenus = if args.appliquer { &faits } else { &prevus };
    let restants = a_corriger_a_la_main(&inv, retenus);
    crate::suivi::renommer::dire(
        g.json,
        &crate::suivi::renommer::Renommages {
            dossier: &args.dossier,
            appliquer: args.appliquer,
            prevus: &prevus,
            faits: &faits,
            rates: &rates,
            restants: &restants,
        },
    )?;
    Ok(if restants.is_empty() && rates.is_empty() {
        CodeSortie::Succes
    } else {
        CodeSortie::Usage
    })
}

/// Les fichiers qui empêcheraient encore le dépôt une fois les renommages faits, par cause
/// racine.
fn a_corriger_a_la_main(inv: &Inventaire, renommages: &[Renommage]) -> Vec<Empechement> {
    let apres = noms::apres_renommages(&inv.enregistrements, renommages);
    let illisibles = inv.problemes.iter().map(|p| Empechement {
        chemin: p.chemin.clone(),
        regle: p.probleme.clone(),
        geste: String::new(),
    });
    let refus = inventaire::valider_pour_vigiechiro(&apres)
        .into_iter()
        .map(Empechement::from);
    noms::causes_racines(illisibles.chain(refus))
}
