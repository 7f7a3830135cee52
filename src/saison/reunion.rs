//! Les dossiers d'une saison réunis sous leur ancêtre commun (un dossier donné deux fois, ou
//! l'un dans l'autre : chaque fichier une fois), et ce que chaque nuit y lit : sa racine, ses
//! fichiers planifiables, les dossiers que sa replanification peut dire « disparus ».
//!
//! Sans réseau ni base : les examens des dossiers (inventaire, séquences d'une carte brute)
//! viennent de la commande, qui les a faits et a dit ce qui empêche le dépôt.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::depot::fabrique::Destination;
use crate::inventaire::{Enregistrement, Inventaire, NonEnvoyes};
use crate::plan::{FichierPlanifie, SequencePreparee};
use crate::saison::nuits::Nuit;

/// Un dossier examiné, à réunir : son inventaire, son chemin canonique, et, pour une carte
/// brute préparée au fil de l'envoi, ses séquences (par chemin) et le nombre de ses originaux.
pub(crate) struct DossierExamine {
    pub(crate) inventaire: Inventaire,
    pub(crate) dossier: PathBuf,
    pub(crate) preparees: HashMap<String, SequencePreparee>,
    pub(crate) originaux_bruts: usize,
}

/// Les dossiers de la commande, inventoriés, validés et réunis sous leur ancêtre commun.
/// Seuls les enregistrements y sont gardés (chemin, taille, date) : les fichiers
/// planifiables (clé, identité relevée) se fabriquent une nuit à la fois, au moment de la
/// planifier, pour que la mémoire ne croisse pas avec la saison entière.
pub(crate) struct Reunion {
    /// L'ancêtre commun (chemin canonique).
    pub(crate) racine: PathBuf,
    /// Les dossiers donnés, canoniques.
    pub(crate) dossiers: Vec<PathBuf>,
    /// Les enregistrements, chemins relatifs à `racine`.
    pub(crate) enregistrements: Vec<Enregistrement>,
    /// Ce qui ne part pas (vides, liens, autres fichiers), chemins relatifs à `racine` : dit
    /// au bilan, par la règle du mode une nuit.
    pub(crate) non_envoyes: NonEnvoyes,
    /// Les séquences des cartes brutes préparées au fil de l'envoi (`preparation::au_fil`,
    /// reconnues à l'examen comme en mode une nuit), par leur chemin ; l'original de
    /// chacune, lui aussi relatif à `racine`.
    pub(crate) preparees: HashMap<String, SequencePreparee>,
    /// Le nombre d'originaux de ces cartes brutes.
    pub(crate) originaux_bruts: usize,
}

impl Reunion {
    /// Les chemins que la nuit lit (relatifs à `racine`) : ses fichiers, et l'original de
    /// chacune de ses séquences préparées au fil de l'envoi.
    fn chemins_lus<'r>(&'r self, nuit: &'r Nuit) -> impl Iterator<Item = &'r str> {
        nuit.fichiers.iter().flat_map(move |&i| {
            let chemin = self.enregistrements[i].chemin.as_str();
            let original = self.preparees.get(chemin).map(|p| p.source.as_str());
            std::iter::once(chemin).chain(original)
        })
    }
}

/// L'ancêtre commun de deux chemins absolus.
pub(crate) fn ancetre_commun(a: &Path, b: &Path) -> PathBuf {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// `chemin` relatif à `racine`, séparateur `/` (`""` : la racine elle-même).
pub(crate) fn relatif(chemin: &Path, racine: &Path) -> Option<String> {
    let reste = chemin.strip_prefix(racine).ok()?;
    let parties: Option<Vec<&str>> = reste.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parties?.join("/"))
}

impl Reunion {
    /// Les dossiers examinés réunis sous leur ancêtre commun ; un dossier donné deux fois, ou
    /// l'un dans l'autre : chaque fichier une fois.
    pub(crate) fn rassembler(examens: Vec<DossierExamine>) -> Result<Reunion> {
        let mut inventaires = Vec::with_capacity(examens.len());
        let mut canoniques = Vec::with_capacity(examens.len());
        let mut preparees_par_dossier = Vec::with_capacity(examens.len());
        let mut originaux_bruts = 0;
        for examen in examens {
            inventaires.push(examen.inventaire);
            canoniques.push(examen.dossier);
            preparees_par_dossier.push(examen.preparees);
            originaux_bruts += examen.originaux_bruts;
        }
        let racine = canoniques
            .iter()
            .skip(1)
            .fold(canoniques[0].clone(), |a, b| ancetre_commun(&a, b));
        // Des dossiers dont aucun ne contient l'autre n'ont pas un chemin en commun : rien à
        // retenir alors.
        let chevauchent = canoniques.iter().enumerate().any(|(i, a)| {
            canoniques[i + 1..]
                .iter()
                .any(|b| a.starts_with(b) || b.starts_with(a))
        });
        let mut reunion = Reunion {
            racine,
            dossiers: Vec::new(),
            enregistrements: Vec::new(),
            non_envoyes: NonEnvoyes::default(),
            preparees: HashMap::new(),
            originaux_bruts,
        };
        let mut vus = HashSet::new();
        for ((inventaire, dossier), sequences) in inventaires
            .into_iter()
            .zip(&canoniques)
            .zip(preparees_par_dossier)
        {
            let vus = chevauchent.then_some(&mut vus);
            reunion.ajouter(inventaire, dossier, sequences, vus)?;
        }
        reunion.dossiers = canoniques;
        Ok(reunion)
    }

    /// L'inventaire d'un dossier (canonique) et ses séquences préparées, chemins mis sous la
    /// racine ; `vus` (des dossiers qui se chevauchent) : les chemins déjà retenus.
    fn ajouter(
        &mut self,
        inventaire: Inventaire,
        dossier: &Path,
        sequences: HashMap<String, SequencePreparee>,
        vus: Option<&mut HashSet<String>>,
    ) -> Result<()> {
        let prefixe = relatif(dossier, &self.racine).with_context(|| {
            format!("chemin du dossier {} (pas de l'UTF-8 ?)", dossier.display())
        })?;
        self.non_envoyes.ajouter(inventaire.non_envoyes(&prefixe));
        let sous = |chemin: String| {
            if prefixe.is_empty() {
                chemin
            } else {
                format!("{prefixe}/{chemin}")
            }
        };
        for (chemin, mut p) in sequences {
            p.source = sous(p.source);
            self.preparees.entry(sous(chemin)).or_insert(p);
        }
        if self.enregistrements.is_empty() && prefixe.is_empty() && vus.is_none() {
            // Le cas d'un seul dossier : ses enregistrements tels quels, sans copie.
            self.enregistrements = inventaire.enregistrements;
            return Ok(());
        }
        self.enregistrements
            .reserve(inventaire.enregistrements.len());
        let mut vus = vus;
        for mut e in inventaire.enregistrements {
            e.chemin = sous(e.chemin);
            if let Some(vus) = vus.as_deref_mut()
                && !vus.insert(e.chemin.clone())
            {
                continue;
            }
            self.enregistrements.push(e);
        }
        Ok(())
    }

    /// Les fichiers de la nuit que la garde de format juge : pas les séquences d'une carte
    /// brute, qui n'existent pas encore sur un disque, et dont l'en-tête est écrit à Fe/10 par
    /// la règle même de `vigie preparer`.
    pub(crate) fn a_garder(&self, nuit: &Nuit) -> Vec<&Enregistrement> {
        nuit.fichiers
            .iter()
            .map(|&i| &self.enregistrements[i])
            .filter(|e| !self.preparees.contains_key(&e.chemin))
            .collect()
    }

    /// Le dossier donné à la commande (`donnes`, dans l'ordre des dossiers de la réunion) qui
    /// contient `chemin` (relatif à la racine) ; le premier, à défaut.
    pub(crate) fn dossier_donne<'d>(&self, chemin: &str, donnes: &'d [PathBuf]) -> &'d Path {
        let complet = self.racine.join(chemin);
        self.dossiers
            .iter()
            .position(|d| complet.starts_with(d))
            .and_then(|i| donnes.get(i))
            .unwrap_or(&donnes[0])
    }

    /// La racine d'une nuit : le dossier commun à tous les fichiers qu'elle lit (relatif à la
    /// réunion) ; celle d'une carte brute, au-dessus de ses originaux comme des dossiers de nuit
    /// de ses séquences.
    pub(crate) fn racine_de_nuit(&self, nuit: &Nuit) -> String {
        let mut commun: Option<&str> = None;
        for chemin in self.chemins_lus(nuit) {
            let dossier = chemin.rsplit_once('/').map_or("", |(d, _)| d);
            commun = Some(match commun {
                None => dossier,
                Some(c) => dossier_commun(c, dossier),
            });
        }
        commun.unwrap_or_default().to_owned()
    }

    /// Les dossiers parcourus, relatifs à la racine de la nuit : ce que la replanification peut
    /// dire « disparu ».
    pub(crate) fn perimetre(&self, racine_nuit: &Path) -> Vec<String> {
        let mut p = Vec::new();
        for d in &self.dossiers {
            if racine_nuit.starts_with(d) {
                p.push(String::new());
            } else if let Some(r) = relatif(d, racine_nuit) {
                p.push(r);
            }
        }
        p
    }

    /// Les fichiers planifiables de cette nuit seule (identité relevée par l'inventaire). Leur
    /// chemin relatif à `racine` : quand elle est sous la racine de la réunion (le cas
    /// ordinaire), celui qu'ils y ont, moins le chemin qui y mène, sans refaire un chemin par
    /// fichier ; sinon (racine d'un plan au-dessus de la réunion), par leur chemin. L'original
    /// d'une séquence préparée au fil de l'envoi, de même. `planifiable` : le fichier planifiable
    /// d'un enregistrement, sous un chemin et une clé.
    pub(crate) fn fichiers_de_la_nuit(
        &self,
        nuit: &Nuit,
        racine: &Path,
        destination: &Destination,
        planifiable: fn(&Enregistrement, String, String) -> FichierPlanifie,
    ) -> Result<Vec<FichierPlanifie>> {
        let sous = relatif(racine, &self.racine);
        let vers_la_nuit = |chemin: &str| {
            match &sous {
                Some(s) if s.is_empty() => Some(chemin.to_owned()),
                Some(s) => chemin
                    .strip_prefix(s.as_str())
                    .and_then(|reste| reste.strip_prefix('/'))
                    .map(str::to_owned),
                None => relatif(&self.racine.join(chemin), racine),
            }
            .context("fichier hors de sa nuit")
        };
        let mut fichiers = Vec::with_capacity(nuit.fichiers.len());
        for &i in &nuit.fichiers {
            let e = &self.enregistrements[i];
            let chemin = vers_la_nuit(&e.chemin)?;
            let cle = destination.cle(&chemin)?;
            let mut f = planifiable(e, chemin, cle);
            if let Some(p) = self.preparees.get(&e.chemin) {
                f.preparee = Some(SequencePreparee {
                    source: vers_la_nuit(&p.source)?,
                    ..p.clone()
                });
            }
            fichiers.push(f);
        }
        Ok(fichiers)
    }
}

/// Le plus long dossier commun à deux dossiers relatifs (séparateur `/`, `""` : la racine),
/// composant par composant : `a/b` et `a/bc` n'ont en commun que `a`.
fn dossier_commun<'a>(a: &'a str, b: &str) -> &'a str {
    // Le cas ordinaire, sans rien découper : `b` est `a` ou sous `a`.
    if b.strip_prefix(a)
        .is_some_and(|reste| reste.is_empty() || a.is_empty() || reste.starts_with('/'))
    {
        return a;
    }
    let mut fin = 0;
    for (x, y) in a.split('/').zip(b.split('/')) {
        if x != y {
            break;
        }
        fin += x.len() + 1;
    }
    &a[..fin.saturating_sub(1).min(a.len())]
}

/// La racine d'un plan de nuit liée qui ne contient pas `racine` (des fichiers de la nuit
/// dans un dossier voisin, la carte copiée ailleurs) monte à leur ancêtre commun : la
/// nouvelle, et le préfixe que reçoit chaque chemin du plan (les titres ne changent pas, rien
/// ne repart). `None` : la racine du plan la contient déjà.
pub(crate) fn montee(racine: &Path, racine_plan: &Path) -> Result<Option<(PathBuf, String)>> {
    if racine.starts_with(racine_plan) {
        return Ok(None);
    }
    let nouvelle = ancetre_commun(racine, racine_plan);
    let prefixe =
        relatif(racine_plan, &nouvelle).context("racine d'une nuit hors de l'ancêtre commun")?;
    Ok(Some((nouvelle, prefixe)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dossier_commun_composant_par_composant() {
        for (a, b, commun) in [
            ("", "", ""),
            ("", "PA1", ""),
            ("PA1", "", ""),
            ("PA1", "PA1", "PA1"),
            ("PA1", "PA1/n1", "PA1"),
            ("PA1/n1", "PA1", "PA1"),
            ("PA1/n1", "PA1/n2", "PA1"),
            ("a/b", "a/bc", "a"),
            ("a/bc", "a/b", "a"),
            ("a/b/c", "a/b/c/d/e", "a/b/c"),
            ("x/b", "y/b", ""),
        ] {
            assert_eq!(dossier_commun(a, b), commun, "{a:?} {b:?}");
        }
    }
}
