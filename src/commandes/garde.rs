//! La garde de format (`garde.rs`) câblée dans `vigie depot` (une nuit, une saison) et
//! `vigie retenter-echecs` : les fichiers qui restent à envoyer sont jugés après la lecture
//! des noms et avant tout envoi, toute création de participation et toute écriture dans la
//! base. Un fichier déjà déposé (même chemin dans son plan, même taille) ne se relit pas : la
//! reprise d'une saison déposée n'ouvre aucun fichier.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::OptionsGlobales;
use crate::inventaire::Enregistrement;
use crate::plan::Base;
use crate::sortie::NuitNommee;
use crate::suivi::calcul::ModeSortie;
use crate::suivi::garde::Jugee;

/// Une nuit à garder : ses fichiers (chemins relatifs à la racine donnée à
/// [`garder_les_nuits`]), le plan qui la tient déjà (son identifiant et son dossier), s'il
/// existe, et son nom pour l'erreur (sinon, celui que dit le nom de chaque fichier).
pub(super) struct NuitAGarder<'a> {
    pub(super) fichiers: Vec<&'a Enregistrement>,
    pub(super) plan: Option<(i64, &'a str)>,
    pub(super) nommee: Option<NuitNommee>,
}

/// Comment un chemin relatif à la racine commune devient un chemin du plan d'une nuit.
enum VersLePlan {
    /// La racine est dans le dossier du plan : ce préfixe (peut-être vide) devant.
    Prefixer(String),
    /// Le dossier du plan est sous la racine : ce préfixe (et son « / ») en moins.
    Retirer(String),
    /// Ni l'un ni l'autre : aucun fichier n'est dans le plan.
    Hors,
}

impl VersLePlan {
    fn entre(racine: &Path, dossier_du_plan: &Path) -> VersLePlan {
        let en_texte = |p: &Path| -> Option<String> {
            let parties: Option<Vec<&str>> =
                p.components().map(|c| c.as_os_str().to_str()).collect();
            Some(parties?.join("/"))
        };
        if let Some(prefixe) = racine.strip_prefix(dossier_du_plan).ok().and_then(en_texte) {
            return VersLePlan::Prefixer(prefixe);
        }
        match dossier_du_plan.strip_prefix(racine).ok().and_then(en_texte) {
            Some(sous) => VersLePlan::Retirer(format!("{sous}/")),
            None => VersLePlan::Hors,
        }
    }

    fn chemin<'a>(&self, chemin: &'a str) -> Option<Cow<'a, str>> {
        match self {
            VersLePlan::Prefixer(p) if p.is_empty() => Some(Cow::Borrowed(chemin)),
            VersLePlan::Prefixer(p) => Some(Cow::Owned(format!("{p}/{chemin}"))),
            VersLePlan::Retirer(p) => chemin.strip_prefix(p.as_str()).map(Cow::Borrowed),
            VersLePlan::Hors => None,
        }
    }
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
        let (deposees, vers) = match (n.plan, base) {
            (Some((id, dossier)), Some(base)) => (
                base.deposees(id)?,
                VersLePlan::entre(racine, Path::new(dossier)),
            ),
            _ => (HashMap::new(), VersLePlan::Hors),
        };
        for e in &n.fichiers {
            let deja = !deposees.is_empty()
                && vers
                    .chemin(&e.chemin)
                    .and_then(|c| deposees.get(c.as_ref()).copied())
                    .is_some_and(|taille| taille == e.taille);
            if !deja {
                a_juger.push(&e.chemin);
                nuit_de.push(k);
            }
        }
    }
    garder(g, racine, &a_juger, carte_de, |rang| {
        nuits[nuit_de[rang]].nommee.clone().or_else(|| {
            let nom = a_juger[rang].rsplit('/').next().unwrap_or(a_juger[rang]);
            crate::saison::nuits::cle_du_nom(nom).map(|c| crate::suivi::saison::nuit_nommee(&c))
        })
    })
}

/// Les canaux d'une nuit de routier ou de pédestre que `description` ne dit pas
/// (`canal_expansion_temps`, `canal_enregistrement_direct`) : ceux que disent ses séquences
/// (`chemins`, relatifs à `racine` ; `garde::canaux_de_la_nuit`), posés sur sa participation.
/// S'ils ne se déduisent pas, pourquoi est dit, avec les options à donner : jamais absents sans
/// le dire. Une nuit sans séquence de routier n'est pas lue.
pub(super) fn deduire_les_canaux<'a>(
    description: &mut crate::description::Description,
    racine: &Path,
    chemins: impl IntoIterator<Item = &'a str>,
) {
    if description.canal_expansion_temps.is_some()
        || description.canal_enregistrement_direct.is_some()
    {
        return;
    }
    match crate::garde::canaux_de_la_nuit(racine, chemins) {
        Some(Ok((expansion, direct))) => {
            tracing::info!(
                "canaux déduits des séquences : expansion de temps {expansion}, direct {direct}"
            );
            description.canal_expansion_temps = Some(expansion.to_owned());
            description.canal_enregistrement_direct = Some(direct.to_owned());
        }
        Some(Err(pourquoi)) => tracing::warn!(
            "les canaux de la nuit ne se déduisent pas de ses séquences ({pourquoi}) : donnez \
             --canal-expansion et --canal-direct (GAUCHE, DROITE ou ABSENT)"
        ),
        None => {}
    }
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
    crate::suivi::garde::dire(
        ModeSortie {
            json: g.json,
            silencieux: g.quiet,
        },
        &jugees,
        &commande,
        nuits,
    )
}
