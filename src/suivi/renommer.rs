//! Ce que dit `vigie renommer` : les renommages proposés ou faits, ceux qui ont échoué, et ce
//! qui reste à corriger à la main, en texte ou en lignes JSON. Les valeurs viennent de
//! `commandes/renommer.rs`.

use std::io::{self, Write};
use std::path::Path;

use super::Evenement;
use super::format::{neutraliser, pluriel};
use crate::noms::{self, Empechement, Renommage};
use crate::plateforme::conseil::commande;

/// Ce que `vigie renommer` a trouvé, et fait.
pub(crate) struct Renommages<'a> {
    /// Le dossier, et `--appliquer`.
    pub(crate) dossier: &'a Path,
    pub(crate) appliquer: bool,
    pub(crate) prevus: &'a [Renommage],
    pub(crate) faits: &'a [Renommage],
    /// Les renommages qui ont échoué, et pourquoi.
    pub(crate) rates: &'a [(Renommage, String)],
    /// Ce qui reste à corriger à la main.
    pub(crate) restants: &'a [Empechement],
}

/// `vigie renommer` : une ligne JSON par renommage et par fichier à corriger, puis le bilan ;
/// ou le texte (les renommages ratés sur la sortie d'erreur).
pub(crate) fn dire(json: bool, r: &Renommages<'_>) -> io::Result<()> {
    if json {
        return dire_json(r);
    }
    ecrire(&mut crate::sortie::standard(), r)?;
    let mut e = crate::sortie::erreur();
    for (renommage, cause) in r.rates {
        writeln!(
            e,
            "erreur : {} n'a pas été renommé ({})",
            neutraliser(&renommage.de),
            neutraliser(cause)
        )?;
    }
    Ok(())
}

fn dire_json(r: &Renommages<'_>) -> io::Result<()> {
    for p in r.prevus {
        Evenement::Renommage {
            de: &p.de,
            vers: &p.vers,
            fait: r.faits.contains(p),
        }
        .ecrire()?;
    }
    for e in r.restants {
        Evenement::ACorriger {
            chemin: &e.chemin,
            regle: &e.regle,
            geste: &e.geste,
        }
        .ecrire()?;
    }
    Evenement::BilanRenommage {
        renommes: r.faits.len(),
        a_renommer: r.prevus.len() - r.faits.len(),
        a_corriger: r.restants.len(),
    }
    .ecrire()
}

fn ecrire(s: &mut impl Write, r: &Renommages<'_>) -> io::Result<()> {
    if r.prevus.is_empty() {
        writeln!(s, "Aucun nom à corriger sans ambiguïté.")?;
    } else {
        proposes_ou_faits(s, r)?;
    }
    if !r.restants.is_empty() {
        writeln!(
            s,
            "Restent à corriger à la main (vigie ne devine pas le bon nom) :"
        )?;
        for ligne in
            noms::lignes_des_groupes(&noms::regrouper(r.restants.iter().cloned()), usize::MAX)
        {
            writeln!(s, "{}", neutraliser(&ligne))?;
        }
    }
    Ok(())
}

fn proposes_ou_faits(s: &mut impl Write, r: &Renommages<'_>) -> io::Result<()> {
    writeln!(
        s,
        "{} (casse de l'extension) :",
        if r.appliquer {
            "Renommages"
        } else {
            "Renommages proposés"
        }
    )?;
    for p in r.prevus {
        writeln!(
            s,
            "  {} → {}",
            neutraliser(&p.de),
            neutraliser(&nom(&p.vers))
        )?;
    }
    if r.appliquer {
        writeln!(
            s,
            "{}.",
            pluriel(r.faits.len() as u64, "fichier renommé", "fichiers renommés")
        )
    } else {
        writeln!(
            s,
            "{} ; rien n'a été renommé. Pour le faire : {}",
            pluriel(
                r.prevus.len() as u64,
                "fichier à renommer",
                "fichiers à renommer"
            ),
            neutraliser(
                &commande("renommer")
                    .chemin(r.dossier)
                    .arg("--appliquer")
                    .to_string()
            )
        )
    }
}

/// Le nom seul d'un chemin relatif (la flèche garde le dossier à gauche).
fn nom(chemin: &str) -> String {
    Path::new(chemin)
        .file_name()
        .map_or_else(|| chemin.to_owned(), |n| n.to_string_lossy().into_owned())
}
