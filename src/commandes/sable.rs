//! `vigie bac-a-sable` câblé : les pannes de `--pannes` lues (une spécification invalide
//! arrête tout avant le démarrage, code 2) ; la plateforme locale est servie par
//! `demo/serveur.rs`.

use anyhow::{Result, anyhow};

use crate::cli::{ArgsBacASable, OptionsGlobales};
use crate::demo::serveur::{DemandeBac, servir};
use crate::sortie::CodeSortie;
use vigie_bac_a_sable::{Pannes, Regle};

pub(super) fn bac_a_sable(g: &OptionsGlobales, args: ArgsBacASable) -> Result<CodeSortie> {
    // Une spécification de panne invalide arrête tout avant le démarrage (code 2).
    let regles = args
        .pannes
        .iter()
        .map(|spec| {
            Pannes::analyser_spec(spec).map_err(|e| anyhow!("--pannes « {spec} » invalide : {e}"))
        })
        .collect::<Result<Vec<Regle>>>()?;
    servir(DemandeBac {
        regles,
        dossier: args.dossier,
        port: args.port,
        calcul: vigie_bac_a_sable::ReglagesCalcul {
            attente: args.calcul_attente,
            duree: args.calcul_duree,
            echecs: args.calcul_echecs,
            ..vigie_bac_a_sable::ReglagesCalcul::default()
        },
        json: g.json,
        silencieux: g.quiet,
        verbosite: g.verbose,
    })
}
