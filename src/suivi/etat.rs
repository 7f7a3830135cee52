//! Ce que disent `vigie etat` (un plan, ou une nuit de saison en détail ; ses fichiers avec
//! `--unites`) et `vigie plans`, en texte ou en lignes JSON ; la seule commande à conseiller
//! ensuite. La saison entière (`vigie etat` sans nuit) se dit dans `suivi/saison.rs`. Les
//! valeurs viennent de la base, lues par `commandes/etat.rs`.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use super::Evenement;
use super::evenement::UnitesParEtat;
use super::format::{dossier_court, neutraliser, octets_lisibles};
use super::saison::{adresse_participation, libelle_liee, phrase_calcul};
use crate::plan::{CalculNote, CauseRefus, DepotPlan, DepotUnite, EtatUnite, NuitPlanifiee};
use crate::plan::{ReglagesRetenus, ResumePlan};
use crate::plateforme::conseil::commande;

/// Combien d'unités en échec `vigie etat` nomme par cause, avant de résumer.
const ECHECS_NOMMES_PAR_CAUSE: usize = 10;

/// Une nuit de saison, pour l'état de son plan.
pub(crate) struct NuitDuPlan<'a> {
    /// Comme la bénévole la nomme (`21/06 A1`).
    pub(crate) designation: String,
    pub(crate) annee: u16,
    pub(crate) api: &'a str,
}

/// L'état d'un plan tel que la base le dit.
pub(crate) struct EtatDuPlan<'a> {
    pub(crate) plan: &'a DepotPlan,
    pub(crate) resume: &'a ResumePlan,
    /// Les réglages qu'il retient, lisibles (`--paralleles 2`).
    pub(crate) reglages: Vec<String>,
    /// Ses unités en échec et incertaines.
    pub(crate) en_echec: Vec<DepotUnite>,
    pub(crate) calcul: Option<CalculNote>,
    pub(crate) nuit: Option<&'a NuitDuPlan<'a>>,
}

/// `vigie etat` d'un plan, en texte, sur la sortie standard.
pub(crate) fn etat_du_plan(e: &EtatDuPlan<'_>) -> Result<()> {
    let mut s = crate::sortie::standard();
    entete_du_plan(&mut s, e.plan, e.nuit)?;
    comptes_du_plan(&mut s, e)?;
    if e.resume.echec + e.resume.incertaine > 0 {
        echecs_du_plan(&mut s, e.resume, &e.en_echec)?;
    }
    if let Some(suite) = prochaine_commande(e.plan.id, e.resume) {
        writeln!(s, "Ensuite : {suite}")?;
    }
    if let Some(c) = &e.calcul {
        writeln!(s, "  {}", phrase_calcul(c))?;
    }
    if let Some(n) = e.nuit {
        writeln!(
            s,
            "Nuit {} de la saison {} ; toute la saison : {}",
            n.designation,
            n.annee,
            commande("etat")
        )?;
    }
    Ok(())
}

fn entete_du_plan(
    s: &mut impl Write,
    plan: &DepotPlan,
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
                .and_then(|p| adresse_participation(n.api, &p))
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
    Ok(())
}

fn comptes_du_plan(s: &mut impl Write, e: &EtatDuPlan<'_>) -> Result<()> {
    let r = e.resume;
    if e.plan.multipart_refuse {
        writeln!(
            s,
            "  la plateforme refuse l'envoi en plusieurs parties : les fichiers de ce plan partent en un seul PUT"
        )?;
    }
    if !e.reglages.is_empty() {
        writeln!(
            s,
            "  réglages retenus (repris à chaque relance) : {}",
            e.reglages.join(", ")
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
    Ok(())
}

/// Les échecs par cause (la ligne du bilan, `bilan::cause_et_geste`), chacun avec ses
/// fichiers ; puis les incertains.
fn echecs_du_plan(s: &mut impl Write, r: &ResumePlan, en_echec: &[DepotUnite]) -> Result<()> {
    writeln!(s, "Échecs :")?;
    for (cause, definitif, n) in &r.echecs_par_cause {
        writeln!(
            s,
            "  {}",
            super::bilan::cause_et_geste(*cause, *definitif, *n, &r.sorte)
        )?;
        let concernees: Vec<&DepotUnite> = en_echec
            .iter()
            .filter(|u| {
                u.etat == EtatUnite::Echec
                    && u.cause_refus == *cause
                    && u.echec_definitif == *definitif
            })
            .collect();
        fichiers_d_une_cause(s, &concernees)?;
    }
    for u in en_echec.iter().filter(|u| u.etat == EtatUnite::Incertaine) {
        writeln!(
            s,
            "  incertain : {} : {}",
            neutraliser(&u.chemin),
            neutraliser(u.message.as_deref().unwrap_or(""))
        )?;
    }
    Ok(())
}

/// Les fichiers d'une cause : un même message pour plusieurs fichiers (un jeton expiré en
/// pleine nuit) est dit une fois, avec le compte et deux noms ; au plus
/// [`ECHECS_NOMMES_PAR_CAUSE`] fichiers nommés.
fn fichiers_d_une_cause(s: &mut impl Write, concernees: &[&DepotUnite]) -> Result<()> {
    let mut par_message: Vec<(&str, Vec<&str>)> = Vec::new();
    for u in concernees {
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
    Ok(())
}

/// Le contrat JSON de `vigie etat --json` (`schemas/vigie.schema.json`). `retenus` : les
/// réglages que retient le plan, dits s'il en retient.
pub(crate) fn etat_json<'a>(
    plan: &'a DepotPlan,
    r: &ResumePlan,
    retenus: &ReglagesRetenus,
) -> Result<Evenement<'a>> {
    let reglages = if retenus.est_vide() {
        None
    } else {
        Some(serde_json::to_value(retenus)?)
    };
    Ok(Evenement::Etat {
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
    })
}

/// Une unité du plan telle que la liste `vigie etat --unites`.
pub(crate) struct LigneUnite {
    pub(crate) unite: DepotUnite,
    pub(crate) tentatives: u64,
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

/// `vigie etat --unites ETAT` (`quoi` : le nom de l'état) : une ligne par unité retenue ; en
/// JSON, un objet par ligne (et rien d'autre, même s'il n'y en a aucune).
pub(crate) fn unites(
    json: bool,
    plan: i64,
    quoi: &str,
    lignes: &[LigneUnite],
    nuit: Option<&NuitDuPlan<'_>>,
) -> Result<()> {
    if json {
        for l in lignes {
            l.json(plan).ecrire()?;
        }
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    if lignes.is_empty() {
        match nuit {
            Some(n) => writeln!(
                s,
                "Nuit {} : aucun fichier dans l'état {quoi}.",
                n.designation
            )?,
            None => writeln!(s, "Plan {plan} : aucun fichier dans l'état {quoi}.")?,
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
    for l in lignes {
        writeln!(s, "{}", l.texte())?;
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
        format!(
            "{}, puis {retenter}",
            crate::depot::inscription::geste_identifiants(&r.sorte)
        )
    } else {
        retenter.to_string()
    })
}

/// `vigie plans` sans base, ou sans plan.
pub(crate) fn aucun_plan(chemin: &Path) -> Result<()> {
    writeln!(
        crate::sortie::standard(),
        "Aucun plan dans {} : {} en crée un.",
        chemin.display(),
        commande("depot")
    )?;
    Ok(())
}

/// Un plan de `vigie plans` : le plan, son résumé, sa nuit de saison s'il en est une.
pub(crate) type PlanListe = (DepotPlan, ResumePlan, Option<NuitPlanifiee>);

/// `vigie plans` : une ligne par plan (une nuit de saison nommée comme la bénévole la nomme),
/// ou un objet JSON par plan.
pub(crate) fn plans(json: bool, chemin: &Path, plans: &[PlanListe]) -> Result<()> {
    if json {
        for (plan, r, nuit) in plans {
            plan_json(plan, r, nuit.as_ref()).ecrire()?;
        }
        return Ok(());
    }
    if plans.is_empty() {
        return aucun_plan(chemin);
    }
    let mut s = crate::sortie::standard();
    writeln!(
        s,
        "plan  déposés       dernière activité     dossier → destination"
    )?;
    for (plan, r, nuit) in plans {
        writeln!(s, "{}", ligne_de_plan(plan, r, nuit.as_ref()))?;
    }
    Ok(())
}

fn plan_json<'a>(
    plan: &'a DepotPlan,
    r: &ResumePlan,
    nuit: Option<&'a NuitPlanifiee>,
) -> Evenement<'a> {
    let liee = nuit.map(|n| &n.nuit);
    let non_vide = |t: &&str| !t.is_empty();
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
        saison: nuit.map(|n| n.saison_id),
        soiree: liee.map(|n| n.soiree.as_str()).filter(non_vide),
        point: liee.map(|n| n.point.as_str()).filter(non_vide),
        passage: liee.map(|n| n.passage),
    }
}

fn ligne_de_plan(plan: &DepotPlan, r: &ResumePlan, nuit: Option<&NuitPlanifiee>) -> String {
    if let Some(n) = nuit {
        // Une nuit de saison : la nuit plutôt que l'identité du plan (trois lignes à 80
        // colonnes), le dossier coupé au milieu (son début et le nom de la nuit restent).
        let debut = format!(
            "{:>4}  {:<12}  {:<16}  {}  ",
            plan.id,
            format!("{}/{}", r.deposee, r.total()),
            date_courte(plan.actif_le),
            libelle_liee(&n.nuit)
        );
        let place = 79usize.saturating_sub(debut.chars().count()).max(10);
        let dossier = dossier_court(&neutraliser(&plan.dossier), place);
        return format!("{debut}{dossier}");
    }
    // La participation créée par vigie n'est pas dans l'identité du plan : la dire.
    let participation = match &plan.participation {
        Some(p) if !plan.destination.contains(p.as_str()) => {
            format!(" (participation {})", neutraliser(p))
        }
        _ => String::new(),
    };
    format!(
        "{:>4}  {:<12}  {:<20}  {} → {}{participation}",
        plan.id,
        format!("{}/{}", r.deposee, r.total()),
        date_locale(plan.actif_le),
        neutraliser(&plan.dossier),
        neutraliser(&plan.destination)
    )
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
            sorte: crate::plan::Sorte::nouvelle("vigiechiro"),
            ..resume(vec![(Some(CauseRefus::Authentification), true, 3)])
        };
        assert_eq!(
            prochaine_commande(2, &jeton).as_deref(),
            Some("reconnectez-vous (vigie connexion --jeton -), puis vigie retenter-echecs 2")
        );
        assert_eq!(
            prochaine_commande(
                2,
                &ResumePlan {
                    sorte: crate::plan::Sorte::nouvelle("s3"),
                    ..resume(vec![(Some(CauseRefus::Authentification), true, 3)])
                }
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
    }

    fn en_echec(chemin: &str, cause: CauseRefus, message: &str) -> DepotUnite {
        DepotUnite {
            chemin: chemin.to_owned(),
            etat: EtatUnite::Echec,
            cause_refus: Some(cause),
            message: Some(message.to_owned()),
            ..super::super::barres::tests::unite(1, chemin, 10)
        }
    }

    /// Les échecs par cause de `vigie etat` se disent par la ligne même du bilan, puis leurs
    /// fichiers (un même message dit une fois).
    #[test]
    fn les_echecs_par_cause_se_disent_comme_au_bilan() {
        let r = ResumePlan {
            echec: 2,
            echecs_par_cause: vec![(Some(CauseRefus::Serveur), false, 2)],
            ..Default::default()
        };
        let unites = [
            en_echec("nuit/a.wav", CauseRefus::Serveur, "503"),
            en_echec("nuit/b.wav", CauseRefus::Serveur, "503"),
        ];
        let mut s = Vec::new();
        echecs_du_plan(&mut s, &r, &unites).unwrap();
        let texte = String::from_utf8(s).unwrap();
        let ligne =
            super::super::bilan::cause_et_geste(Some(CauseRefus::Serveur), false, 2, &r.sorte);
        assert!(
            ligne.starts_with("2 échecs transitoires SERVEUR : "),
            "{ligne}"
        );
        assert_eq!(
            texte,
            format!("Échecs :\n  {ligne}\n    2 fichiers : 503\n      nuit/a.wav, nuit/b.wav\n")
        );
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
