//! `vigie etat` et `vigie plans` : ce que dit la base, sans toucher au réseau.

use std::io::Write;

use super::{chemin_base, octets_lisibles};
use anyhow::{Context, Result};
use clap::ValueEnum;

use crate::cli::{ArgsEtat, FiltreUnites, OptionsGlobales};
use crate::plan::{Base, CauseRefus, DepotPlan, DepotUnite, EtatUnite, ResumePlan, Vers, est_tenu};
use crate::plateforme::conseil::commande;
use crate::saison::designation::{NuitsVisees, Visee, viser};
use crate::sortie::CodeSortie;
use crate::suivi::Evenement;
use crate::suivi::evenement::UnitesParEtat;
use crate::suivi::format::{dossier_court, neutraliser};
use crate::suivi::saison::{NuitVivante, phrase_calcul};

/// Combien d'unités en échec `vigie etat` nomme par cause, avant de résumer.
const ECHECS_NOMMES_PAR_CAUSE: usize = 10;

/// `vigie etat [NUIT…]` : sans nuit, la saison du dernier dépôt, nuit par nuit (ou le plan
/// hors saison du dernier dépôt) ; avec des nuits nommées (ou un numéro de plan), chacune en
/// détail ; `--unites`, leurs fichiers un par un.
pub(crate) fn etat(g: &OptionsGlobales, base: &Base, args: ArgsEtat) -> Result<CodeSortie> {
    match viser(base, &args.nuits.nuits, false)? {
        Visee::Plan(p) => etat_du_plan(g, base, p, args.unites, None),
        Visee::Nuits(v) if !v.designees && args.unites.is_none() => etat_saison(g, base, &v),
        Visee::Nuits(v) => {
            let mut code = CodeSortie::Succes;
            for n in &v.nuits {
                let nuit = NuitDuPlan {
                    designation: v.designation(n).to_string(),
                    annee: n.annee,
                    api: &n.api,
                };
                code = code.max_par_gravite(etat_du_plan(
                    g,
                    base,
                    n.plan_id,
                    args.unites,
                    Some(&nuit),
                )?);
            }
            Ok(code)
        }
    }
}

/// `vigie etat` d'une saison : une ligne par nuit (80 colonnes, heure de l'enregistreur), et
/// l'adresse de sa participation ; en JSON, `etat_saison` puis un `etat_nuit` par nuit. Le code
/// de sortie est le pire des nuits.
fn etat_saison(g: &OptionsGlobales, base: &Base, visees: &NuitsVisees) -> Result<CodeSortie> {
    let nuits = &visees.nuits;
    let saison = nuits
        .first()
        .map(|n| n.saison_id)
        .context("saison sans nuit")?;
    let mut lignes = Vec::with_capacity(nuits.len());
    for n in nuits {
        let plan = base.plan(Some(n.plan_id))?;
        let r = base.resume(n.plan_id)?;
        lignes.push((n, plan, r));
    }
    let chemin = base.chemin().to_path_buf();
    let vivantes = lignes
        .iter()
        .map(|(n, plan, _)| {
            Ok(NuitVivante {
                tenue: est_tenu(&chemin, &plan.dossier, &plan.destination),
                calcul: base.calcul_note(n.plan_id)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let code = lignes.iter().fold(CodeSortie::Succes, |c, (_, _, r)| {
        c.max_par_gravite(code_du_plan(r))
    });
    // Le détail d'une nuit s'obtient en la nommant : la première sert d'exemple.
    let exemple = nuits.first().map(|n| visees.designation(n).to_string());
    crate::suivi::saison::etat_saison(
        g.json,
        saison,
        &lignes,
        &vivantes,
        (code != CodeSortie::Succes).then_some(exemple.as_deref().unwrap_or("21/06 A1")),
    )?;
    Ok(code)
}

/// Une nuit de saison, pour l'état de son plan.
struct NuitDuPlan<'a> {
    /// Comme la bénévole la nomme (`21/06 A1`).
    designation: String,
    annee: u16,
    api: &'a str,
}

/// L'état d'un plan (le détail d'une nuit de saison, ou un plan hors saison), ou ses fichiers.
fn etat_du_plan(
    g: &OptionsGlobales,
    base: &Base,
    plan: i64,
    unites: Option<FiltreUnites>,
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<CodeSortie> {
    let plan = base.plan(Some(plan))?;
    let resume = base.resume(plan.id)?;
    if let Some(filtre) = unites {
        lister_unites(g, base, &plan, filtre, nuit)?;
    } else if g.json {
        let retenus = base.reglages(plan.id)?;
        let reglages = if retenus.est_vide() {
            None
        } else {
            Some(serde_json::to_value(&retenus)?)
        };
        etat_json(&plan, &resume, reglages).ecrire()?;
    } else {
        let mut s = crate::sortie::standard();
        afficher_etat(&mut s, base, &plan, &resume, nuit)?;
        if let Some(c) = base.calcul_note(plan.id)? {
            writeln!(s, "  {}", phrase_calcul(&c))?;
        }
        if let Some(n) = nuit {
            writeln!(
                s,
                "Nuit {} de la saison {} ; toute la saison : {}",
                n.designation,
                n.annee,
                commande("etat")
            )?;
        }
    }
    Ok(code_du_plan(&resume))
}

/// Une unité du plan telle que la liste `vigie etat --unites`.
struct LigneUnite {
    unite: DepotUnite,
    tentatives: u64,
}

impl LigneUnite {
    /// L'état tel que le filtre le nomme : un refus définitif est `definitif`, pas `echec`.
    fn etat(&self) -> &'static str {
        if self.unite.etat == EtatUnite::Echec && self.unite.echec_definitif {
            "definitif"
        } else {
            self.unite.etat.as_str()
        }
    }

    fn json(&self, plan: i64) -> Evenement<'_> {
        let u = &self.unite;
        Evenement::Unite {
            plan,
            chemin: &u.chemin,
            cle: &u.cle,
            etat: u.etat.as_str(),
            definitif: u.echec_definitif,
            cause: u.cause_refus.map(CauseRefus::as_str),
            message: u.message.as_deref(),
            tentatives: self.tentatives,
            octets: u.taille,
        }
    }

    /// `echec      SERVEUR               3    1,2 Mio  nuit/a.wav : abandonné après 3 tentatives…`
    fn texte(&self) -> String {
        let u = &self.unite;
        let mut ligne = format!(
            "{:<10} {:<16} {:>6} {:>10}  {}",
            self.etat(),
            u.cause_refus.map_or("-", CauseRefus::as_str),
            self.tentatives,
            octets_lisibles(u.taille),
            neutraliser(&u.chemin)
        );
        if let Some(m) = u.message.as_deref().filter(|m| !m.is_empty()) {
            ligne.push_str(" : ");
            ligne.push_str(&neutraliser(m));
        }
        ligne
    }
}

/// Le filtre garde-t-il cette unité ? `echec` : tous les échecs ; `definitif` : les refus
/// définitifs seulement.
fn retenue(filtre: FiltreUnites, u: &DepotUnite) -> bool {
    match filtre {
        FiltreUnites::Tout => true,
        FiltreUnites::ADeposer => u.etat == EtatUnite::ADeposer,
        FiltreUnites::EnCours => u.etat == EtatUnite::EnCours,
        FiltreUnites::Deposee => u.etat == EtatUnite::Deposee,
        FiltreUnites::Echec => u.etat == EtatUnite::Echec,
        FiltreUnites::Incertaine => u.etat == EtatUnite::Incertaine,
        FiltreUnites::Definitif => u.etat == EtatUnite::Echec && u.echec_definitif,
    }
}

/// `vigie etat --unites ETAT` : une ligne par unité retenue, triées par chemin ; en JSON, un
/// objet par ligne (et rien d'autre, même s'il n'y en a aucune).
fn lister_unites(
    g: &OptionsGlobales,
    base: &Base,
    plan: &DepotPlan,
    filtre: FiltreUnites,
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<()> {
    let tentatives = base.tentatives_par_unite(plan.id)?;
    let lignes: Vec<LigneUnite> = base
        .unites(plan.id, &[])?
        .into_iter()
        .filter(|u| retenue(filtre, u))
        .map(|unite| LigneUnite {
            tentatives: tentatives.get(&unite.id).copied().unwrap_or(0),
            unite,
        })
        .collect();
    if g.json {
        for l in &lignes {
            l.json(plan.id).ecrire()?;
        }
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    if lignes.is_empty() {
        let quoi = filtre
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_owned());
        match nuit {
            Some(n) => writeln!(
                s,
                "Nuit {} : aucun fichier dans l'état {quoi}.",
                n.designation
            )?,
            None => writeln!(s, "Plan {} : aucun fichier dans l'état {quoi}.", plan.id)?,
        }
        return Ok(());
    }
    if let Some(n) = nuit {
        writeln!(s, "Nuit {} :", n.designation)?;
    }
    writeln!(
        s,
        "{:<10} {:<16} {:>6} {:>10}  fichier : dernier message",
        "état", "cause", "essais", "taille"
    )?;
    for l in &lignes {
        writeln!(s, "{}", l.texte())?;
    }
    Ok(())
}

/// Le code de sortie que mérite l'état d'un plan.
pub(crate) fn code_du_plan(r: &ResumePlan) -> CodeSortie {
    if r.definitifs > 0 {
        CodeSortie::RefusDefinitifs
    } else if r.deposee == r.total() {
        CodeSortie::Succes
    } else {
        CodeSortie::EchecsTransitoires
    }
}

/// Le contrat JSON de `vigie etat --json` (`schemas/vigie.schema.json`). `reglages` : ceux
/// que retient le plan, s'il en retient.
pub(crate) fn etat_json<'a>(
    plan: &'a DepotPlan,
    r: &ResumePlan,
    reglages: Option<serde_json::Value>,
) -> Evenement<'a> {
    Evenement::Etat {
        plan: plan.id,
        destination: &plan.destination,
        dossier: &plan.dossier,
        unites: UnitesParEtat {
            a_deposer: r.a_deposer,
            en_cours: r.en_cours,
            deposee: r.deposee,
            echec: r.echec,
            incertaine: r.incertaine,
        },
        definitifs: r.definitifs,
        octets_total: r.octets_total,
        octets_deposes: r.octets_deposes,
        // Vers la plateforme Vigie-Chiro : la participation qui reçoit la nuit, dès qu'elle
        // est connue (celle que `vigie traiter` lance par défaut).
        participation: plan.participation.as_deref(),
        reglages,
    }
}

fn afficher_etat(
    s: &mut impl Write,
    base: &Base,
    plan: &DepotPlan,
    r: &ResumePlan,
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<()> {
    match nuit {
        // Une nuit de saison : nommée comme on la tape, sa participation par l'adresse de sa
        // page (pas d'identifiant : `--json` le donne).
        Some(n) => {
            writeln!(
                s,
                "Nuit {} : {} → la plateforme Vigie-Chiro",
                n.designation,
                neutraliser(&plan.dossier)
            )?;
            if let Some(adresse) = crate::saison::sort::participation_du_plan(plan)
                .and_then(|p| crate::suivi::saison::adresse_participation(n.api, &p))
            {
                writeln!(s, "  {adresse}")?;
            }
        }
        None => {
            writeln!(
                s,
                "Plan {} : {} → {}",
                plan.id,
                neutraliser(&plan.dossier),
                neutraliser(&plan.destination)
            )?;
            if let Some(p) = &plan.participation {
                writeln!(s, "  participation Vigie-Chiro : {}", neutraliser(p))?;
            }
        }
    }
    if plan.multipart_refuse {
        writeln!(
            s,
            "  la plateforme refuse l'envoi en plusieurs parties : les fichiers de ce plan partent en un seul PUT"
        )?;
    }
    let retenus = super::reglages::lisibles(&base.reglages(plan.id)?);
    if !retenus.is_empty() {
        writeln!(
            s,
            "  réglages retenus (repris à chaque relance) : {}",
            retenus.join(", ")
        )?;
    }
    writeln!(
        s,
        "  déposés      {:>6} / {}   ({} sur {})",
        r.deposee,
        r.total(),
        octets_lisibles(r.octets_deposes),
        octets_lisibles(r.octets_total)
    )?;
    for (etat, libelle) in [
        (EtatUnite::ADeposer, "à déposer   "),
        (EtatUnite::EnCours, "en cours    "),
        (EtatUnite::Echec, "en échec    "),
        (EtatUnite::Incertaine, "incertains  "),
    ] {
        let n = r.compte(etat);
        if n > 0 {
            write!(s, "  {libelle} {n:>6}")?;
            if etat == EtatUnite::Echec && r.definitifs > 0 {
                write!(s, "   (dont {} refus définitif(s))", r.definitifs)?;
            }
            writeln!(s)?;
        }
    }
    if r.modifiees > 0 {
        writeln!(
            s,
            "  {} fichier(s) déposé(s) ont changé depuis : {} pour les renvoyer",
            r.modifiees,
            commande("depot").args(["…", "--redeposer-modifies"])
        )?;
    }
    if r.echec + r.incertaine > 0 {
        let en_echec = base.unites(plan.id, &[EtatUnite::Echec, EtatUnite::Incertaine])?;
        writeln!(s, "Échecs :")?;
        for (cause, definitif, n) in &r.echecs_par_cause {
            let libelle = cause.map_or("INCONNUE", |c| c.as_str());
            let nature = if *definitif {
                "définitif"
            } else {
                "transitoire"
            };
            writeln!(s, "  {libelle} ({n}, {nature})")?;
            if let Some(c) = cause {
                writeln!(s, "    → {}", c.conseil(r.vers))?;
            }
            let concernees: Vec<_> = en_echec
                .iter()
                .filter(|u| {
                    u.etat == EtatUnite::Echec
                        && u.cause_refus == *cause
                        && u.echec_definitif == *definitif
                })
                .collect();
            // Un même message pour plusieurs fichiers (un jeton expiré en pleine nuit) est dit
            // une fois, avec le compte et deux noms.
            let mut par_message: Vec<(&str, Vec<&str>)> = Vec::new();
            for u in &concernees {
                let message = u.message.as_deref().unwrap_or("");
                match par_message.iter_mut().find(|(m, _)| *m == message) {
                    Some((_, chemins)) => chemins.push(&u.chemin),
                    None => par_message.push((message, vec![&u.chemin])),
                }
            }
            let mut nommes = 0;
            for (message, chemins) in &par_message {
                if nommes >= ECHECS_NOMMES_PAR_CAUSE {
                    break;
                }
                nommes += chemins.len();
                let message = neutraliser(message);
                match chemins.as_slice() {
                    [seul] => writeln!(s, "    {} : {message}", neutraliser(seul))?,
                    plusieurs => {
                        writeln!(s, "    {} fichiers : {message}", plusieurs.len())?;
                        let cites: Vec<String> = plusieurs
                            .iter()
                            .take(2)
                            .map(|c| neutraliser(c).into_owned())
                            .collect();
                        let reste = match plusieurs.len().saturating_sub(2) {
                            0 => String::new(),
                            n => format!(" … et {n} autre(s)"),
                        };
                        writeln!(s, "      {}{reste}", cites.join(", "))?;
                    }
                }
            }
            if nommes < concernees.len() {
                writeln!(s, "    … et {} autre(s)", concernees.len() - nommes)?;
            }
        }
        for u in en_echec.iter().filter(|u| u.etat == EtatUnite::Incertaine) {
            writeln!(
                s,
                "  incertain : {} : {}",
                neutraliser(&u.chemin),
                neutraliser(u.message.as_deref().unwrap_or(""))
            )?;
        }
    }
    if let Some(suite) = prochaine_commande(plan.id, r) {
        writeln!(s, "Ensuite : {suite}")?;
    }
    Ok(())
}

/// La seule commande à conseiller s'il reste quelque chose à faire : relancer le plan, et, si
/// des refus définitifs restent, les relancer aussi une fois leur cause corrigée. Les refus
/// d'authentification repartent sans `--y-compris-definitifs` (voir `remettre_en_file`) : après
/// un jeton expiré, il suffit de se reconnecter.
pub(crate) fn prochaine_commande(plan: i64, r: &ResumePlan) -> Option<String> {
    if r.deposee == r.total() {
        return None;
    }
    // Les refus qui se corrigent hors de `vigie` (se reconnecter, régler l'heure) repartent
    // sans --y-compris-definitifs (voir `remettre_en_file`).
    let definitifs: Vec<Option<CauseRefus>> = r
        .echecs_par_cause
        .iter()
        .filter(|(_, definitif, n)| *definitif && *n > 0)
        .map(|(cause, _, _)| *cause)
        .collect();
    let a_corriger = definitifs
        .iter()
        .any(|c| !matches!(c, Some(CauseRefus::Authentification | CauseRefus::Horloge)));
    let retenter = commande("retenter-echecs").arg(plan);
    Some(if a_corriger {
        format!(
            "corrigez la cause des refus définitifs, puis {}",
            retenter.arg("--y-compris-definitifs")
        )
    } else if definitifs.contains(&Some(CauseRefus::Horloge)) {
        format!("mettez l'ordinateur à l'heure, puis {retenter}")
    } else if definitifs.contains(&Some(CauseRefus::Authentification)) {
        match r.vers {
            Vers::VigieChiro => format!(
                "reconnectez-vous ({}), puis {retenter}",
                commande("connexion").args(["--jeton", "-"])
            ),
            Vers::S3 => format!("corrigez les identifiants S3, puis {retenter}"),
        }
    } else {
        retenter.to_string()
    })
}

pub(crate) fn plans(g: &OptionsGlobales) -> Result<CodeSortie> {
    let chemin = chemin_base(g)?;
    // Sans base, aucun plan : on le dit sans la créer.
    let Some(base) = super::ouvrir_base_pour_lire(&chemin)? else {
        if !g.json {
            writeln!(
                crate::sortie::standard(),
                "Aucun plan dans {} : {} en crée un.",
                chemin.display(),
                commande("depot")
            )?;
        }
        return Ok(CodeSortie::Succes);
    };
    let plans = base.plans()?;
    let mut s = crate::sortie::standard();
    if plans.is_empty() && !g.json {
        writeln!(
            s,
            "Aucun plan dans {} : {} en crée un.",
            base.chemin().display(),
            commande("depot")
        )?;
    } else if !g.json {
        writeln!(
            s,
            "plan  déposés       dernière activité     dossier → destination"
        )?;
    }
    for plan in &plans {
        let r = base.resume(plan.id)?;
        let nuit = base.nuit_du_plan(plan.id)?;
        if g.json {
            let liee = nuit.as_ref().map(|n| &n.nuit);
            let non_vide = |t: &str| !t.is_empty();
            Evenement::Plans {
                plan: plan.id,
                dossier: &plan.dossier,
                destination: &plan.destination,
                unites: r.total(),
                deposees: r.deposee,
                echecs: r.echec,
                definitifs: r.definitifs,
                incertaines: r.incertaine,
                actif_le: plan.actif_le,
                participation: plan.participation.as_deref(),
                saison: nuit.as_ref().map(|n| n.saison_id),
                soiree: liee.map(|n| n.soiree.as_str()).filter(|t| non_vide(t)),
                point: liee.map(|n| n.point.as_str()).filter(|t| non_vide(t)),
                passage: liee.map(|n| n.passage),
            }
            .ecrire()?;
        } else if let Some(n) = &nuit {
            // Une nuit de saison : la nuit plutôt que l'identité du plan (trois lignes à 80
            // colonnes), le dossier coupé au milieu (son début et le nom de la nuit restent).
            let debut = format!(
                "{:>4}  {:<12}  {:<16}  {}  ",
                plan.id,
                format!("{}/{}", r.deposee, r.total()),
                date_courte(plan.actif_le),
                crate::suivi::saison::libelle_liee(&n.nuit)
            );
            let place = 79usize.saturating_sub(debut.chars().count()).max(10);
            let dossier = dossier_court(&neutraliser(&plan.dossier), place);
            writeln!(s, "{debut}{dossier}")?;
        } else {
            // La participation créée par vigie n'est pas dans l'identité du plan : la dire.
            let participation = match &plan.participation {
                Some(p) if !plan.destination.contains(p.as_str()) => {
                    format!(" (participation {})", neutraliser(p))
                }
                _ => String::new(),
            };
            writeln!(
                s,
                "{:>4}  {:<12}  {:<20}  {} → {}{participation}",
                plan.id,
                format!("{}/{}", r.deposee, r.total()),
                date_locale(plan.actif_le),
                neutraliser(&plan.dossier),
                neutraliser(&plan.destination)
            )?;
        }
    }
    Ok(CodeSortie::Succes)
}

/// Une date Unix courte, à l'heure locale : « 29/11 18:30 ».
fn date_courte(secondes: i64) -> String {
    chrono::DateTime::from_timestamp(secondes, 0).map_or_else(
        || format!("{secondes} s"),
        |utc| {
            utc.with_timezone(&chrono::Local)
                .format("%d/%m %H:%M")
                .to_string()
        },
    )
}

/// Une date Unix lisible, à l'heure locale (`TZ` respecté) : « 2026-11-29 18:30 ».
fn date_locale(secondes: i64) -> String {
    date_dans(secondes, &chrono::Local)
}

fn date_dans<Z: chrono::TimeZone>(secondes: i64, fuseau: &Z) -> String
where
    Z::Offset: std::fmt::Display,
{
    chrono::DateTime::from_timestamp(secondes, 0).map_or_else(
        || format!("{secondes} s"),
        |utc| {
            utc.with_timezone(fuseau)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn un_seul_geste_et_le_bon() {
        let resume = |causes: Vec<(Option<CauseRefus>, bool, u64)>| ResumePlan {
            deposee: 1,
            echec: causes.iter().map(|c| c.2).sum(),
            definitifs: causes.iter().filter(|c| c.1).map(|c| c.2).sum(),
            echecs_par_cause: causes,
            ..Default::default()
        };
        assert_eq!(prochaine_commande(2, &resume(vec![])), None);
        // Un jeton expiré (401) : se reconnecter suffit, --y-compris-definitifs n'y est pour rien.
        // Vers la plateforme, rien des identifiants S3 ; vers S3, rien du jeton.
        let jeton = ResumePlan {
            vers: Vers::VigieChiro,
            ..resume(vec![(Some(CauseRefus::Authentification), true, 3)])
        };
        assert_eq!(
            prochaine_commande(2, &jeton).as_deref(),
            Some("reconnectez-vous (vigie connexion --jeton -), puis vigie retenter-echecs 2")
        );
        assert_eq!(
            prochaine_commande(
                2,
                &resume(vec![(Some(CauseRefus::Authentification), true, 3)])
            )
            .as_deref(),
            Some("corrigez les identifiants S3, puis vigie retenter-echecs 2")
        );
        // L'horloge refusée : la régler suffit, ni identifiants ni --y-compris-definitifs.
        assert_eq!(
            prochaine_commande(2, &resume(vec![(Some(CauseRefus::Horloge), true, 9)])).as_deref(),
            Some("mettez l'ordinateur à l'heure, puis vigie retenter-echecs 2")
        );
        // Des échecs transitoires : relancer, sans plus.
        assert_eq!(
            prochaine_commande(2, &resume(vec![(Some(CauseRefus::Serveur), false, 2)])).as_deref(),
            Some("vigie retenter-echecs 2")
        );
        assert_eq!(
            prochaine_commande(2, &resume(vec![(Some(CauseRefus::Contenu), false, 1)])).as_deref(),
            Some("vigie retenter-echecs 2")
        );
        // Un refus définitif à corriger, mêlé ou non à des transitoires.
        assert_eq!(
            prochaine_commande(
                2,
                &resume(vec![
                    (Some(CauseRefus::Droits), true, 1),
                    (Some(CauseRefus::Serveur), false, 2)
                ])
            )
            .as_deref(),
            Some(
                "corrigez la cause des refus définitifs, puis vigie retenter-echecs 2 --y-compris-definitifs"
            )
        );
        for cause in CauseRefus::TOUTES {
            for vers in [Vers::S3, Vers::VigieChiro] {
                assert!(!cause.conseil(vers).contains("vigie retenter"), "{cause}");
            }
            // Aucun conseil S3 (compartiment, région, identifiants S3) pour la plateforme,
            // aucun conseil de jeton ou de participation pour S3.
            let plateforme = cause.conseil(Vers::VigieChiro);
            for s3 in ["S3", "compartiment", "région", "point d'accès"] {
                assert!(!plateforme.contains(s3), "{cause} : {plateforme}");
            }
            // (Un remplacement refusé n'arrive que vers la plateforme.)
            let s3 = cause.conseil(Vers::S3);
            for vc in ["jeton", "participation", "plateforme"] {
                assert!(
                    cause == CauseRefus::RemplacementRefuse || !s3.contains(vc),
                    "{cause} : {s3}"
                );
            }
        }
    }

    #[test]
    fn dates() {
        let utc = chrono::Utc;
        assert_eq!(date_dans(0, &utc), "1970-01-01 00:00");
        assert_eq!(date_dans(1_795_973_400, &utc), "2026-11-29 17:30");
        assert_eq!(date_dans(951_782_400, &utc), "2000-02-29 00:00");
        let paris_en_hiver = chrono::FixedOffset::east_opt(3600).unwrap();
        assert_eq!(
            date_dans(1_795_973_400, &paris_en_hiver),
            "2026-11-29 18:30"
        );
    }
}
