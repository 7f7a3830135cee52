//! La garde de format (`garde.rs`) câblée dans `vigie depot` (une nuit, une saison) et
//! `vigie retenter-echecs` : les fichiers qui restent à envoyer sont jugés après la lecture
//! des noms et avant tout envoi, toute création de participation et toute écriture dans la
//! base. Un fichier déjà déposé (même chemin dans son plan, même taille) ne se relit pas : la
//! reprise d'une saison déposée n'ouvre aucun fichier.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::OptionsGlobales;
use crate::inventaire::Enregistrement;
use crate::plan::Base;
use crate::sortie::NuitNommee;
use crate::suivi::garde::Jugee;

/// Une nuit à garder : ses fichiers (chemins relatifs à la racine donnée à
/// [`garder_les_nuits`]), le plan qui la tient déjà (son identifiant et son dossier), s'il
/// existe, et son nom pour l'erreur (sinon, celui que dit le nom de chaque fichier).
pub(super) struct NuitAGarder<'a> {
    pub(super) fichiers: Vec<&'a Enregistrement>,
    pub(super) plan: Option<(i64, &'a str)>,
    pub(super) nommee: Option<NuitNommee>,
}

/// La garde de format de nuits (`garde.rs`), une seule règle pour une nuit et pour une
/// saison : les fichiers qui restent à envoyer de chacune (pas ceux que son plan a déjà
/// déposés, même chemin et même taille) sont jugés, tous d'un coup. `racine` : le dossier
/// auquel leurs chemins sont relatifs ; `carte_de` : le dossier à préparer (tel que
/// l'utilisateur l'a donné) pour un fichier. Lire la base ne crée rien (une simulation en lit
/// une copie).
pub(super) fn garder_les_nuits(
    g: &OptionsGlobales,
    racine: &Path,
    nuits: &[NuitAGarder<'_>],
    base: Option<&Base>,
    carte_de: impl Fn(&str) -> PathBuf,
) -> Result<()> {
    let mut a_juger: Vec<&str> = Vec::new();
    let mut nuit_de: Vec<usize> = Vec::new();
    for (k, n) in nuits.iter().enumerate() {
        for chemin in crate::garde::restent_a_juger(racine, &n.fichiers, n.plan, base)? {
            a_juger.push(chemin);
            nuit_de.push(k);
        }
    }
    garder(g, racine, &a_juger, carte_de, |rang| {
        nuits[nuit_de[rang]].nommee.clone().or_else(|| {
            let nom = a_juger[rang].rsplit('/').next().unwrap_or(a_juger[rang]);
            crate::saison::nuits::cle_du_nom(nom).map(|c| crate::suivi::saison::nuit_nommee(&c))
        })
    })
}

/// La commande qui prépare la carte `carte`, telle qu'on la tape (`plateforme::conseil`).
fn commande_preparer(carte: &Path) -> String {
    crate::plateforme::conseil::commande("preparer")
        .chemin(carte)
        .args(["--vers", "DOSSIER"])
        .to_string()
}

/// Juge `a_juger` (chemins relatifs à `racine`) : rien si tout se lit comme il faut ; sinon ce
/// qui part quand même est dit, et ce qui est refusé l'est tout d'un coup (code 2), avec la
/// commande qui prépare la carte du premier fichier refusé et les nuits que rend `nuit_de`
/// (par rang dans `a_juger`).
fn garder(
    g: &OptionsGlobales,
    racine: &Path,
    a_juger: &[&str],
    carte_de: impl Fn(&str) -> PathBuf,
    nuit_de: impl Fn(usize) -> Option<NuitNommee>,
) -> Result<()> {
    let fautives = crate::garde::juger(racine, a_juger.iter().copied());
    if fautives.is_empty() {
        return Ok(());
    }
    let mut nuits: Vec<NuitNommee> = Vec::new();
    for f in fautives.iter().filter(|f| f.refusee) {
        if let Some(n) = nuit_de(f.rang)
            && !nuits.contains(&n)
        {
            nuits.push(n);
        }
    }
    let premiere = fautives
        .iter()
        .find(|f| f.refusee)
        .map_or(a_juger[fautives[0].rang], |f| a_juger[f.rang]);
    let commande = commande_preparer(&carte_de(premiere));
    let jugees: Vec<Jugee<'_>> = fautives
        .iter()
        .map(|f| Jugee {
            chemin: a_juger[f.rang],
            faute: &f.faute,
            refusee: f.refusee,
        })
        .collect();
    crate::suivi::garde::dire(g.mode_sortie(), &jugees, &commande, nuits)
}
