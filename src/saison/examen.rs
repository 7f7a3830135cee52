//! Ce qui empêche le dépôt d'un dossier, relevé avant tout envoi et toute création, tout à la
//! fois : fichiers illisibles, chemins que la destination refuse et, vers la plateforme, noms
//! qu'elle refusera et horodatages jugés (`horloge`), avec la nuit que dit leur nom. Des
//! valeurs : ce qu'on en dit est dans `suivi/depot.rs`. Seule brique de la saison qui lise le
//! disque (les journaux d'enregistreur) et l'horloge (la date du jour).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::horloge::{self, FauteHorodatage, Journal};
use super::nuits::{CleNuit, cle_du_nom};
use crate::depot::fabrique::Destination;
use crate::inventaire::{self, Inventaire};
use crate::noms::{self, Empechement};
use crate::plan::SequencePreparee;
use crate::plateforme::conseil::commande;

/// Les horodatages des noms, vers la plateforme : jugés (`saison/horloge.rs`), le cas
/// ordinaire ; ou acceptés tels quels, quand la participation donnée porte la date
/// (`--participation ID --forcer-participation` : créée à la main pour une nuit à l'horloge
/// mal réglée).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Horodatages {
    Juges,
    Acceptes,
}

/// Un dossier inventorié, et ce qui y empêche le dépôt (pas encore dit).
pub(crate) struct Examen {
    pub(crate) inventaire: Inventaire,
    /// Chemin canonique du dossier.
    pub(crate) dossier: String,
    /// Tous les empêchements, une cause par fichier (la racine).
    empechements: Vec<Empechement>,
    /// Les nuits des fichiers refusés pour leur horodatage.
    nuits: Vec<CleNuit>,
    /// Une carte brute préparée au fil de l'envoi : ce que lit chaque séquence de
    /// l'inventaire (par son chemin), l'original relatif au dossier.
    pub(crate) preparees: HashMap<String, SequencePreparee>,
    /// Le nombre d'originaux d'une carte brute (`None` : un dossier ordinaire).
    pub(crate) originaux_bruts: Option<usize>,
}

/// Un dossier tel que le dépôt le lit (`preparation::au_fil::lire_le_dossier`) : son
/// inventaire et, pour une carte brute reconnue, ce que lit chaque séquence.
pub(crate) struct DossierLu {
    pub(crate) inventaire: Inventaire,
    /// Ce que lit chaque séquence de l'inventaire (par son chemin) dans son original.
    pub(crate) preparees: HashMap<String, SequencePreparee>,
    /// Le nombre d'originaux d'une carte brute (`None` : un dossier ordinaire).
    pub(crate) originaux_bruts: Option<usize>,
}

/// Relève, sans rien dire encore, tout ce qui empêche le dépôt du dossier `lu` vers la
/// destination : fichiers illisibles, noms que la plateforme refusera, horodatages impossibles
/// ou d'une horloge mal réglée. Tous à la fois : l'utilisateur corrige une fois. Une carte
/// brute est examinée comme le dossier que `vigie preparer` en écrirait (ses séquences sont
/// l'inventaire) ; la saison comme le mode une nuit passent par ici.
pub(crate) fn examiner(
    dossier: &Path,
    lu: DossierLu,
    destination: &Destination,
    horodatages: Horodatages,
) -> Result<Examen> {
    let DossierLu {
        inventaire,
        preparees,
        originaux_bruts,
    } = lu;
    let dossier_canonique = crate::plateforme::chemins::canonique(dossier)
        .with_context(|| format!("chemin du dossier {}", dossier.display()))?;
    let Some(dossier_texte) = dossier_canonique.to_str() else {
        bail!(
            "le chemin du dossier {} n'est pas de l'UTF-8 : renommez-le (lettres sans accent, chiffres, _ -)",
            dossier_canonique.display()
        );
    };
    let (empechements, nuits) = empechements_de(dossier, &inventaire, destination, horodatages);
    Ok(Examen {
        inventaire,
        dossier: dossier_texte.to_owned(),
        empechements,
        nuits,
        preparees,
        originaux_bruts,
    })
}

impl Examen {
    /// Tous les empêchements de ces dossiers (chacun avec le préfixe de ses chemins, `""` pour
    /// un seul dossier), et les nuits des fichiers refusés pour leur horodatage, chacune une fois.
    pub(crate) fn ensemble(examens: &[(&str, &Examen)]) -> (Vec<Empechement>, Vec<CleNuit>) {
        let racines = examens
            .iter()
            .flat_map(|(prefixe, ex)| {
                ex.empechements.iter().map(move |e| Empechement {
                    chemin: if prefixe.is_empty() {
                        e.chemin.clone()
                    } else {
                        format!("{prefixe}/{}", e.chemin)
                    },
                    ..e.clone()
                })
            })
            .collect();
        let mut nuits: Vec<CleNuit> = Vec::new();
        for n in examens.iter().flat_map(|(_, ex)| &ex.nuits) {
            if !nuits.contains(n) {
                nuits.push(n.clone());
            }
        }
        (racines, nuits)
    }
}

/// Ce qui empêche le dépôt de l'inventaire d'un dossier, une cause par fichier (la racine) :
/// les fichiers illisibles, les chemins que la destination refuse, et, vers la plateforme, les
/// noms qu'elle refusera et les horodatages jugés (avec la nuit que dit leur nom).
fn empechements_de(
    dossier: &Path,
    inventaire: &Inventaire,
    destination: &Destination,
    horodatages: Horodatages,
) -> (Vec<Empechement>, Vec<CleNuit>) {
    let mut empechements: Vec<Empechement> = inventaire
        .problemes
        .iter()
        .map(|p| Empechement {
            chemin: p.chemin.clone(),
            regle: p.probleme.clone(),
            geste: String::new(),
        })
        .collect();
    for e in &inventaire.enregistrements {
        if let Err(err) = destination.cle(&e.chemin) {
            empechements.push(Empechement {
                chemin: e.chemin.clone(),
                regle: err.to_string(),
                geste: String::new(),
            });
        }
    }
    let mut nuits = Vec::new();
    // Vers la plateforme : un nom qu'elle refusera est dit avant tout envoi, tous d'un coup,
    // avec les horodatages qu'elle accepterait mais qui la tromperaient (après les noms : une
    // seule cause par fichier, la racine).
    if destination.juge_les_noms() {
        empechements.extend(refus_de_la_plateforme(dossier, inventaire));
        if horodatages == Horodatages::Juges {
            for (e, cle) in horodatages_refuses(dossier, inventaire) {
                if let Some(n) = cle
                    && !nuits.contains(&n)
                {
                    nuits.push(n);
                }
                empechements.push(e);
            }
        }
    }
    (noms::causes_racines(empechements), nuits)
}

/// Ce qu'on lit au plus d'un journal d'enregistreur : il tient des semaines de lignes en
/// quelques dizaines de Kio.
const JOURNAL_LU_MAX_OCTETS: u64 = 1024 * 1024;

/// Les fichiers du point fixe dont l'horodatage est refusé (`saison/horloge.rs`), avec la
/// nuit que dit leur nom quand elle se lit. Les journaux d'enregistreur de l'inventaire sont
/// lus (au plus [`JOURNAL_LU_MAX_OCTETS`] chacun) ; un journal illisible ne juge rien.
fn horodatages_refuses(dossier: &Path, inv: &Inventaire) -> Vec<(Empechement, Option<CleNuit>)> {
    let journaux: Vec<Journal> = inv
        .journaux
        .iter()
        .filter_map(|chemin| {
            let local = crate::plateforme::chemins::local(dossier, chemin);
            let mut octets = Vec::new();
            crate::plateforme::ouvrir_sans_suivre(&local)
                .and_then(|f| f.take(JOURNAL_LU_MAX_OCTETS).read_to_end(&mut octets))
                .ok()?;
            Some(Journal::lire(
                chemin.clone(),
                &String::from_utf8_lossy(&octets),
            ))
        })
        .collect();
    let aujourd_hui = chrono::Utc::now().date_naive();
    let a_la_main = format!(
        "créez la participation à la main sur le site web, à la bonne date, puis : {}",
        crate::plateforme::conseil::commande("depot")
            .chemin(dossier)
            .args(["--participation", "ID", "--forcer-participation"])
    );
    horloge::juger(&inv.enregistrements, &journaux, aujourd_hui)
        .into_iter()
        .map(|f| {
            let e = &inv.enregistrements[f.fichier];
            let geste = match f.faute {
                FauteHorodatage::Impossible => format!(
                    "renommez-les avec leur vrai horodatage, ou {a_la_main} ; et vérifiez \
                     l'horloge de l'enregistreur"
                ),
                _ => format!(
                    "réglez l'horloge de l'enregistreur avant la prochaine nuit ; pour \
                     celle-ci, {a_la_main}"
                ),
            };
            (
                Empechement {
                    chemin: e.chemin.clone(),
                    regle: f.faute.regle(),
                    geste,
                },
                cle_du_nom(e.nom()),
            )
        })
        .collect()
}

/// Les noms que la plateforme refusera, chacun par sa cause racine. Ce qui se corrige sans
/// ambiguïté (la casse d'une extension) a pour geste une seule commande, `vigie renommer`, qui
/// montre chaque renommage avant de le faire.
fn refus_de_la_plateforme(dossier: &Path, inv: &Inventaire) -> Vec<Empechement> {
    let renommages = noms::renommages_sans_ambiguite(dossier, &inv.enregistrements);
    let commande = format!(
        "corrigez-les d'une commande : {}",
        commande("renommer").chemin(dossier)
    );
    let refus = inventaire::valider_pour_vigiechiro(&inv.enregistrements)
        .into_iter()
        .map(Empechement::from);
    let mut racines = noms::causes_racines(refus);
    for e in &mut racines {
        if noms::corrige_par_renommage(e, &inv.enregistrements, &renommages) {
            e.geste = commande.clone();
        }
    }
    racines
}
