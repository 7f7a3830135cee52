//! Ce que dit `vigie depot` d'une nuit avant l'envoi (sur la sortie d'erreur : c'est du
//! statut) : les fichiers qui empêchent le dépôt, les réglages repris, la carte brute, les
//! autres plans vers la même destination, plusieurs nuits vers une participation, la
//! participation non vérifiée d'une simulation, les écarts entre les noms et la
//! participation, un autre point, ce que la planification a trouvé ; puis ce que partirait une
//! simulation ; et le texte des refus (code 2) : un dossier déjà planifié, plusieurs nuits,
//! les écarts. Les valeurs et les décisions viennent de `depot/planification.rs`,
//! `preparation/nuit.rs` et `commandes/vigiechiro.rs` (les vérifications de la plateforme).

use std::io::{self, Write};

use anyhow::Result;

use super::Evenement;
use super::calcul::ModeSortie;
use super::evenement::{Avertissement, EcartNomme, PorteeSimulation};
use super::format::{neutraliser, octets_lisibles, pluriel, replier};
use crate::depot::ReglagesDuPassage;
use crate::depot::fabrique::Destination;
use crate::destination::IdObjet;
use crate::inventaire::Inventaire;
use crate::noms::{self, Empechement};
use crate::plan::{DepotPlan, DepotUnite, Replanification};
use crate::plateforme::conseil::commande;
use crate::saison::correspondance::Ecart;
use crate::saison::examen::Examen;
use crate::saison::nuits::Nuit;
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// Ce qui n'a pas eu lieu quand les vérifications d'avant l'envoi échouent.
pub(crate) const RIEN_ENVOYE: &str = "rien n'a été envoyé";

/// Combien de noms la liste des fichiers refusés cite par règle : `vigie renommer` les liste
/// tous.
const NOMS_CITES_PAR_REGLE: usize = 5;

/// Des lignes repliées à 80 colonnes sur la sortie d'erreur, neutralisées.
fn replie(texte: &str) -> io::Result<()> {
    let mut e = crate::sortie::erreur();
    for l in replier(texte, 79) {
        writeln!(e, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// Ce qui empêche le dépôt, chaque fichier par sa cause racine, dit d'un coup.
pub(crate) fn empechements(racines: &[Empechement]) -> io::Result<()> {
    let mut s = crate::sortie::erreur();
    writeln!(
        s,
        "Ces fichiers empêchent le dépôt ; rien n'a été envoyé ni créé :"
    )?;
    for ligne in noms::lignes_des_groupes(
        &noms::regrouper(racines.iter().cloned()),
        NOMS_CITES_PAR_REGLE,
    ) {
        writeln!(s, "{}", neutraliser(&ligne))?;
    }
    Ok(())
}

/// Les réglages repris du plan et ceux qui remplacent une valeur retenue (le bilan les
/// redit).
pub(crate) fn reglages(m: ModeSortie, annonce: &ReglagesDuPassage) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    let mut s = crate::sortie::erreur();
    for ligne in annonce.lignes() {
        writeln!(s, "  {ligne}")?;
    }
    Ok(())
}

/// Une carte brute part préparée au fil de l'envoi : `originaux` originaux, `sequences`
/// séquences (en JSON ou en silence : rien).
pub(crate) fn carte_brute(m: ModeSortie, originaux: usize, sequences: usize) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    writeln!(
        crate::sortie::erreur(),
        "  carte brute : {} préparés au fil de l'envoi en {}, celles qu'écrirait {} ; rien \
         n'est écrit sur la carte ni copié sur ce disque",
        pluriel(originaux as u64, "original", "originaux"),
        pluriel(sequences as u64, "séquence", "séquences"),
        commande("preparer")
    )
}

/// D'autres plans (`autres`, d'autres dossiers : la carte montée ailleurs, une copie sur le
/// disque) visent déjà la destination `identite` : dits avant tout envoi, rien s'il n'y en a
/// pas. Le dépôt continue : ce que la destination tient déjà, identique, ne repartira pas
/// (elle est lue au début du passage) ; un fichier de même nom mais d'un autre contenu y
/// remplacera l'objet.
pub(crate) fn autres_plans(json: bool, identite: &str, autres: &[DepotPlan]) -> io::Result<()> {
    if autres.is_empty() {
        return Ok(());
    }
    if json {
        return Evenement::Avertissement {
            motif: Avertissement::AutrePlan {
                destination: identite,
                plans: autres.iter().map(|p| p.id).collect(),
                dossiers: autres.iter().map(|p| p.dossier.as_str()).collect(),
            },
        }
        .ecrire();
    }
    let nommes = autres
        .iter()
        .map(|p| format!("le plan {} (depuis {})", p.id, neutraliser(&p.dossier)))
        .collect::<Vec<_>>()
        .join(", ");
    let (vise, reprendre) = match autres {
        [seul] => ("vise", commande("retenter-echecs").arg(seul.id)),
        _ => ("visent", commande("retenter-echecs").arg("PLAN")),
    };
    let texte = format!(
        "attention : {nommes} {vise} déjà cette destination ({}) ; ce qu'elle tient déjà, \
         identique, ne repartira pas, et un fichier de même nom mais d'un autre contenu y \
         remplacera l'objet. Si c'est la même nuit, reprenez plutôt ce plan : {reprendre}",
        neutraliser(identite)
    );
    let mut e = crate::sortie::erreur();
    for ligne in replier(&texte, 79) {
        writeln!(e, "{ligne}")?;
    }
    Ok(())
}

/// Une nuit d'un dossier qui en contient plusieurs, en une ligne.
fn ligne_de_nuit(n: &Nuit) -> String {
    let cle = &n.cle;
    let quand = match (cle.soiree, n.premiere, n.derniere) {
        (Some(_), Some(p), Some(d)) => format!(
            "{} {}→{}",
            super::saison::jour_court(p.date()),
            p.format("%H:%M"),
            d.format("%H:%M")
        ),
        _ => format!("circuit {}", cle.site),
    };
    format!(
        "  {quand}  {:<4}  Pass{}  {}",
        cle.point.as_deref().unwrap_or("—"),
        cle.passage,
        pluriel(n.fichiers.len() as u64, "fichier", "fichiers")
    )
}

/// Plusieurs nuits vers une seule participation : forcées (`--forcer-participation`), un
/// avertissement ; sinon, le refus (sans JSON : l'erreur suit).
pub(crate) fn plusieurs_nuits(m: ModeSortie, nuits: &[Nuit], forcer: bool) -> io::Result<()> {
    if forcer {
        if m.json {
            return Evenement::Avertissement {
                motif: Avertissement::EcartParticipation {
                    nuits: Some(nuits.len()),
                    participation: None,
                    ecarts: Vec::new(),
                },
            }
            .ecrire();
        } else if !m.silencieux {
            writeln!(
                crate::sortie::erreur(),
                "attention : ce dossier contient {} nuits, déposées dans la même participation \
                 (--forcer-participation)",
                nuits.len()
            )?;
        }
        return Ok(());
    }
    if m.json {
        return Ok(());
    }
    let mut e = crate::sortie::erreur();
    writeln!(
        e,
        "Ce dossier contient {} nuits ; une participation n'en reçoit qu'une :",
        nuits.len()
    )?;
    for n in nuits {
        writeln!(e, "{}", neutraliser(&ligne_de_nuit(n)))?;
    }
    writeln!(
        e,
        "  → déposez la saison, chaque nuit dans sa participation : {}",
        commande("depot").arg("DOSSIER")
    )?;
    writeln!(
        e,
        "    (sans --participation ; si c'est voulu : --forcer-participation)"
    )
}

/// Le refus d'un dossier déjà dans `plan`, vers la même participation (code 2) : un second
/// plan déposerait la nuit une seconde fois ; la commande qui reprend ce plan.
pub(crate) fn deja_planifie(plan: &DepotPlan) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "ce dossier est déjà dans le plan {} vers la même participation ({}) : un \
             second plan déposerait la nuit une seconde fois ; {RIEN_ENVOYE}. \
             Reprenez ce plan : {}",
            plan.id,
            plan.destination,
            commande("retenter-echecs").arg(plan.id)
        ),
    )
    .into()
}

/// Le refus de plusieurs nuits vers une seule participation (code 2), les nuits nommées et
/// la commande de saison (le détail est dit par [`plusieurs_nuits`]).
pub(crate) fn plusieurs_nuits_refusees(nuits: &[Nuit]) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "{} nuits vers une seule participation ; {RIEN_ENVOYE}. Déposez la saison : {} \
             (sans --participation)",
            nuits.len(),
            commande("depot").arg("DOSSIER")
        ),
    )
    .avec_nuits(
        nuits
            .iter()
            .map(|n| super::saison::nuit_nommee(&n.cle))
            .collect(),
    )
    .into()
}

/// Le refus des écarts entre les noms et la participation, donnée (`participation_donnee`) ou
/// à créer (code 2) ; `rien_fait` : ce qui n'a pas eu lieu. Le détail est dit par
/// [`ecarts`] (en JSON, dans l'avertissement) : l'erreur tient en une ligne de 80 colonnes.
pub(crate) fn ecarts_refuses(participation_donnee: bool, rien_fait: &str) -> anyhow::Error {
    let erreur = if participation_donnee {
        format!("les noms ne sont pas ceux de la participation ; {RIEN_ENVOYE}")
    } else {
        format!("les noms contredisent --site ou --debut ; {rien_fait}")
    };
    ErreurAvecCode::nouveau(CodeSortie::Usage, erreur).into()
}

/// Une simulation qui n'a pas pu lire la plateforme le dit, et continue : elle n'envoie rien.
pub(crate) fn non_verifiee(m: ModeSortie, pourquoi: &str) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    replie(&format!(
        "Participation non vérifiée ({pourquoi}) : la simulation ne compare pas les noms à la \
         participation."
    ))
}

/// Un écart en une ligne (repliée ensuite à 80 colonnes), tirée de [`Ecart::champs`] : la
/// soirée en jour court, le passage par son nom `PassN`.
fn ligne_d_ecart(e: &Ecart) -> String {
    use super::saison::jour_court;
    let (champ, noms, participation) = e.champs();
    let jour = |s: String| chrono::NaiveDate::parse_from_str(&s, "%Y-%m-%d").map_or(s, jour_court);
    match champ {
        "site" => {
            format!("  site    : {noms} dans les noms, « {participation} » pour la participation")
        }
        "soiree" => format!(
            "  nuit    : {} dans les noms, {} pour la participation",
            jour(noms),
            jour(participation)
        ),
        "passage" => format!(
            "  passage : Pass{noms} dans les noms, Pass{participation} dans les fichiers déjà \
             déposés dans la participation"
        ),
        _ => format!("  {champ:<7} : {noms} dans les noms, {participation} pour la participation"),
    }
}

/// Un écart pour `--json` : `{champ, noms, participation}`, tiré de [`Ecart::champs`].
fn ecart_nomme(e: &Ecart) -> EcartNomme {
    let (champ, noms, participation) = e.champs();
    EcartNomme {
        champ,
        noms,
        participation,
    }
}

/// Les écarts entre les noms et la participation `id` (à créer : `None`, sur `api`) :
/// l'avertissement JSON, forcés ou non ; en texte, forcés, dits même sous `-q` (c'est le seul
/// signe d'un dépôt peut-être au mauvais endroit), sinon le refus et quoi faire (`rien_fait` :
/// ce qui n'a pas eu lieu).
pub(crate) fn ecarts(
    json: bool,
    (id, api): (Option<&IdObjet>, &str),
    ecarts: &[Ecart],
    forcer: bool,
    rien_fait: &str,
) -> io::Result<()> {
    if json {
        return Evenement::Avertissement {
            motif: Avertissement::EcartParticipation {
                nuits: None,
                participation: id.map(IdObjet::as_str),
                ecarts: ecarts.iter().map(ecart_nomme).collect(),
            },
        }
        .ecrire();
    }
    let laquelle = match id {
        Some(_) => "la participation",
        None => "la participation à créer",
    };
    let mut e = crate::sortie::erreur();
    if forcer {
        writeln!(
            e,
            "attention : ces fichiers ne sont pas ceux de {laquelle} ;"
        )?;
        writeln!(e, "déposés quand même (--forcer-participation) :")?;
    } else {
        let titre = format!("Ces fichiers ne sont pas ceux de {laquelle} ; {rien_fait} :");
        for l in replier(&titre, 79) {
            writeln!(e, "{l}")?;
        }
    }
    for l in ecarts.iter().map(ligne_d_ecart) {
        for morceau in replier(&l, 79) {
            writeln!(e, "{}", neutraliser(&morceau))?;
        }
    }
    if forcer {
        return Ok(());
    }
    match id {
        Some(id) => {
            let adresse = super::saison::adresse_participation(api, id.as_str())
                .unwrap_or_else(|| format!("participation {id}"));
            writeln!(e, "  → vérifiez la participation :")?;
            writeln!(e, "    {adresse}")?;
        }
        None => {
            writeln!(
                e,
                "  → vérifiez --site (le site des noms) et --debut, --fin (leur nuit)"
            )?;
        }
    }
    writeln!(
        e,
        "    ou déposez la saison, chaque nuit dans la sienne : {}",
        commande("depot").arg("DOSSIER")
    )?;
    writeln!(e, "    ou, si c'est voulu : --forcer-participation")
}

/// Des fichiers (`autres`, leurs chemins) dont le nom porte un autre point (`points`) que la
/// participation à créer (`point`) : dit, le dépôt continue.
pub(crate) fn points_differents(
    json: bool,
    point: &str,
    points: &str,
    autres: &[String],
) -> io::Result<()> {
    if json {
        return Evenement::Avertissement {
            motif: Avertissement::PointDifferent {
                point_participation: point,
                points_des_noms: points,
                fichiers: autres.len(),
            },
        }
        .ecrire();
    }
    let sujet = match autres.len() {
        1 => "1 fichier porte dans son nom".to_owned(),
        n => format!("{n} fichiers portent dans leur nom"),
    };
    // Compact : un seul nom en exemple, raccourci (il garde le passage et le point), et le
    // tout replié à 80 colonnes (dix noms entiers faisaient huit à onze lignes).
    let exemple = super::format::nom_court(autres[0].rsplit('/').next().unwrap_or(&autres[0]), 30);
    let et_autres = match autres.len() {
        1 => String::new(),
        n => format!(" et {}", pluriel((n - 1) as u64, "autre", "autres")),
    };
    // Le point de la participation vient de la plateforme : neutralisé.
    let texte = format!(
        "attention : {sujet} le point {points} ({exemple}{et_autres}), la participation \
         est au point {} : le dépôt continue, vérifiez que c'est la bonne",
        neutraliser(point),
    );
    let mut e = crate::sortie::erreur();
    for ligne in replier(&texte, 79) {
        writeln!(e, "{ligne}")?;
    }
    Ok(())
}

/// Ce que la planification a trouvé et changé (`a_blanc` : une simulation).
pub(crate) fn planification(
    m: ModeSortie,
    inv: &Inventaire,
    r: &Replanification,
    plan: &DepotPlan,
    a_blanc: bool,
) -> Result<()> {
    if m.json {
        Evenement::Plan {
            plan: plan.id,
            cree: r.cree,
            fichiers: inv.enregistrements.len(),
            octets: inv.octets(),
            ajoutees: r.ajoutees,
            retirees: r.retirees,
            reprises: r.reprises,
            modifiees: &r.modifiees,
            dates_seules: r.dates_seules,
            ignores: inv.ignores_systeme + inv.non_reconnus.len() as u64 + inv.vides.len() as u64,
            liens_non_suivis: &inv.liens,
            vides: &inv.vides,
        }
        .ecrire()?;
        return super::non_envoyes::dire(m, super::non_envoyes::Ou::Statut, &inv.non_envoyes(""));
    }
    if m.silencieux {
        return Ok(());
    }
    let mut s = crate::sortie::erreur();
    writeln!(
        s,
        "Plan {} {} : {}, {}.",
        plan.id,
        match (r.cree, a_blanc) {
            (true, false) => "créé",
            (true, true) => "à créer (simulation : rien n'est enregistré)",
            (false, _) => "repris",
        },
        pluriel(inv.enregistrements.len() as u64, "fichier", "fichiers"),
        octets_lisibles(inv.octets())
    )?;
    changements(&mut s, inv, r)
}

fn changements(s: &mut impl Write, inv: &Inventaire, r: &Replanification) -> Result<()> {
    if !r.cree && (r.ajoutees > 0 || r.retirees > 0 || r.reprises > 0) {
        writeln!(
            s,
            "  depuis le dernier passage : {} nouveau(x), {} disparu(s), {} interrompu(s) à reprendre",
            r.ajoutees, r.retirees, r.reprises
        )?;
    }
    // Ce qui ne part pas : la règle de la saison aussi (`suivi::non_envoyes`).
    for ligne in super::non_envoyes::lignes(&inv.non_envoyes("")) {
        writeln!(s, "{ligne}")?;
    }
    if r.dates_seules > 0 {
        writeln!(
            s,
            "  {} déjà déposé(s) : date changée, contenu identique (heure d'une carte FAT ?) ; \
             rien ne repart",
            pluriel(r.dates_seules, "fichier", "fichiers")
        )?;
    }
    if !r.modifiees.is_empty() {
        writeln!(
            s,
            "  attention : {} fichier(s) déjà déposé(s) ont changé depuis et ne sont pas renvoyés ({}) ; \
             ajoutez --redeposer-modifies pour les renvoyer",
            r.modifiees.len(),
            super::non_envoyes::citer(&r.modifiees)
        )?;
    }
    Ok(())
}

/// `--simulation` d'une nuit : ce qui partirait (plan `plan`, vers `destination`), sans rien
/// envoyer.
pub(crate) fn simulation(
    json: bool,
    plan: i64,
    partiraient: &[DepotUnite],
    destination: &dyn std::fmt::Display,
) -> io::Result<()> {
    let octets: u64 = partiraient.iter().map(|u| u.taille).sum();
    if json {
        for u in partiraient {
            Evenement::Partirait {
                chemin: &u.chemin,
                cle: &u.cle,
                taille: u.taille,
                etat: u.etat.as_str(),
            }
            .ecrire()?;
        }
        return Evenement::Simulation {
            portee: PorteeSimulation::Nuit { plan },
            unites: partiraient.len(),
            octets,
        }
        .ecrire();
    }
    let mut s = crate::sortie::standard();
    for u in partiraient {
        writeln!(
            s,
            "  {} → {} ({})",
            neutraliser(&u.chemin),
            neutraliser(&u.cle),
            octets_lisibles(u.taille)
        )?;
    }
    writeln!(
        s,
        "Simulation : {}, {} partiraient vers {destination} ; rien n'a été envoyé.",
        pluriel(partiraient.len() as u64, "fichier", "fichiers"),
        octets_lisibles(octets),
    )
}

/// Dit tout ce qui empêche le dépôt dans ces dossiers (chacun avec le préfixe de ses chemins,
/// `""` pour un seul dossier), d'un coup, et refuse (code 2) ; rien s'il n'y a rien.
pub(crate) fn refuser_les_empechements(examens: &[(&str, &Examen)]) -> Result<()> {
    let (racines, nuits) = Examen::ensemble(examens);
    if racines.is_empty() {
        return Ok(());
    }
    empechements(&racines)?;
    Err(ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "{} à corriger avant de déposer (voir ci-dessus), puis relancez la même commande",
            pluriel(racines.len() as u64, "fichier", "fichiers")
        ),
    )
    .avec_nuits(nuits.iter().map(super::saison::nuit_nommee).collect())
    .into())
}

/// Un `--endpoint-url` (`demande`) que le plan ne prendra pas en compte est dit (voir
/// `Fabrique::endpoint_ignore`), plutôt qu'ignoré en silence.
pub(crate) fn endpoint_ignore(plan: i64, destination: &Destination, demande: Option<&str>) {
    if let Some(alerte) = destination.endpoint_ignore(plan, demande) {
        let _ = super::avertir(&alerte);
    }
}
