//! Une nuit prête à planifier pour `vigie depot` et `vigie retenter-echecs` : le dossier
//! inventorié (une carte brute reconnue vue comme le dossier que `vigie preparer` en écrirait,
//! [`super::au_fil`]), ce qui y empêche le dépôt relevé d'un coup (`saison::examen`), puis ses
//! fichiers avec la clé que leur donne la destination. Rien n'est écrit ni envoyé, rien n'est
//! dit : ce qui empêche le dépôt est dit par `suivi/depot.rs`.

use std::path::Path;

use anyhow::Result;

use crate::depot::fabrique::Destination;
use crate::inventaire::{self, Inventaire};
use crate::plan::FichierPlanifie;
use crate::preparation::carte::Identite;
use crate::saison::examen::{Examen, Horodatages};

/// Un dossier inventorié et validé pour sa destination : rien n'est encore écrit ni envoyé.
pub(crate) struct Preparation {
    pub(crate) inventaire: Inventaire,
    pub(crate) fichiers: Vec<FichierPlanifie>,
    /// Chemin canonique du dossier.
    pub(crate) dossier: String,
    /// Une carte brute préparée au fil de l'envoi : le nombre de ses originaux (ses
    /// séquences sont les fichiers de l'inventaire).
    pub(crate) originaux_bruts: Option<usize>,
}

impl Preparation {
    /// Les fichiers d'un dossier examiné sans empêchement, chacun avec sa clé (une séquence
    /// d'une carte brute avec sa préparation au fil de l'envoi).
    pub(crate) fn de_l_examen(examen: Examen, destination: &Destination) -> Result<Preparation> {
        let Examen {
            inventaire,
            dossier,
            mut preparees,
            originaux_bruts,
            ..
        } = examen;
        let mut fichiers = Vec::with_capacity(inventaire.enregistrements.len());
        for e in &inventaire.enregistrements {
            let mut f = e.planifiable(e.chemin.clone(), destination.cle(&e.chemin)?);
            f.preparee = preparees.remove(&e.chemin);
            fichiers.push(f);
        }
        Ok(Preparation {
            inventaire,
            fichiers,
            dossier,
            originaux_bruts,
        })
    }
}

/// Inventorie le dossier (une carte brute reconnue vue comme le dossier que `vigie preparer` en
/// écrirait) et relève tout ce qui y empêche le dépôt (`saison::examen`), sans rien dire encore.
pub(crate) fn examiner(
    dossier: &Path,
    destination: &Destination,
    horodatages: Horodatages,
    carte: &Identite,
) -> Result<Examen> {
    let inventaire = inventaire::inventorier(dossier)?;
    let lu = super::au_fil::lire_le_dossier(dossier, inventaire, carte);
    crate::saison::examen::examiner(dossier, lu, destination, horodatages)
}
