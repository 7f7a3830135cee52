//! `vigie renommer DOSSIER [--appliquer]` : corrige dans les noms d'une nuit ce qui se corrige
//! sans ambiguïté, et dit ce qui reste à corriger à la main. Sans `--appliquer`, rien ne bouge.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;

use crate::cli::{ArgsRenommer, OptionsGlobales};
use crate::inventaire::{self, Inventaire};
use crate::noms::{self, Empechement, Renommage};
use crate::plateforme::conseil::commande;
use crate::sortie::CodeSortie;
use crate::suivi::Evenement;
use crate::suivi::format::{neutraliser, pluriel};

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
    if g.json {
        for r in &prevus {
            Evenement::Renommage {
                de: &r.de,
                vers: &r.vers,
                fait: faits.contains(r),
            }
            .ecrire()?;
        }
        for e in &restants {
            Evenement::ACorriger {
                chemin: &e.chemin,
                regle: &e.regle,
                geste: &e.geste,
            }
            .ecrire()?;
        }
        Evenement::BilanRenommage {
            renommes: faits.len(),
            a_renommer: prevus.len() - faits.len(),
            a_corriger: restants.len(),
        }
        .ecrire()?;
    } else {
        ecrire(
            &mut crate::sortie::standard(),
            &args,
            &prevus,
            &faits,
            &restants,
        )?;
        let mut e = crate::sortie::erreur();
        for (r, cause) in &rates {
            writeln!(
                e,
                "erreur : {} n'a pas été renommé ({})",
                neutraliser(&r.de),
                neutraliser(cause)
            )?;
        }
    }
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

fn ecrire(
    s: &mut impl Write,
    args: &ArgsRenommer,
    prevus: &[Renommage],
    faits: &[Renommage],
    restants: &[Empechement],
) -> io::Result<()> {
    if prevus.is_empty() {
        writeln!(s, "Aucun nom à corriger sans ambiguïté.")?;
    } else {
        writeln!(
            s,
            "{} (casse de l'extension) :",
            if args.appliquer {
                "Renommages"
            } else {
                "Renommages proposés"
            }
        )?;
        for r in prevus {
            writeln!(
                s,
                "  {} → {}",
                neutraliser(&r.de),
                neutraliser(&nom(&r.vers))
            )?;
        }
        if args.appliquer {
            writeln!(
                s,
                "{}.",
                pluriel(faits.len() as u64, "fichier renommé", "fichiers renommés")
            )?;
        } else {
            writeln!(
                s,
                "{} ; rien n'a été renommé. Pour le faire : {}",
                pluriel(
                    prevus.len() as u64,
                    "fichier à renommer",
                    "fichiers à renommer"
                ),
                neutraliser(
                    &commande("renommer")
                        .chemin(&args.dossier)
                        .arg("--appliquer")
                        .to_string()
                )
            )?;
        }
    }
    if !restants.is_empty() {
        writeln!(
            s,
            "Restent à corriger à la main (vigie ne devine pas le bon nom) :"
        )?;
        for ligne in
            noms::lignes_des_groupes(&noms::regrouper(restants.iter().cloned()), usize::MAX)
        {
            writeln!(s, "{}", neutraliser(&ligne))?;
        }
    }
    Ok(())
}

/// Le nom seul d'un chemin relatif (la flèche garde le dossier à gauche).
fn nom(chemin: &str) -> String {
    Path::new(chemin)
        .file_name()
        .map_or_else(|| chemin.to_owned(), |n| n.to_string_lossy().into_owned())
}
