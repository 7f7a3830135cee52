//! `vigie depot`, `vigie retenter-echecs`, `vigie verifier`.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::{ligne_json, octets_lisibles, ouvrir_base};
use crate::cli::{ArgsDepot, OptionsGlobales};
use crate::destination::{CibleParticipation, Destination, DestinationS3, DestinationVigieChiro};
use crate::inventaire::{self, Inventaire};
use crate::noms::{self, Empechement};
use crate::plan::{Base, DepotPlan, EtatUnite, FichierPlanifie, Replanification, VerrouPlan};
use crate::sortie::CodeSortie;
use crate::suivi::format::{neutraliser, pluriel};

/// Combien de noms un avertissement cite avant de résumer.
const NOMS_CITES: usize = 10;
/// Combien de noms la liste des fichiers refusés cite par règle : `vigie renommer` les liste
/// tous.
const NOMS_CITES_PAR_REGLE: usize = 5;

/// Un plan prêt à partir : la base, le verrou tenu, le plan à jour.
pub(super) struct PlanPret {
    pub base: Base,
    pub _verrou: VerrouPlan,
    pub plan: DepotPlan,
    pub destination: Destination,
    /// Le plan vient d'être créé par ce passage.
    pub cree: bool,
}

pub(super) fn depot(g: &OptionsGlobales, args: ArgsDepot) -> Result<CodeSortie> {
    let destination = destination_demandee(&args)?;
    // Sans jeton, rien ne peut partir vers la plateforme : on le dit avant de planifier.
    if matches!(destination, Destination::VigieChiro(_)) {
        crate::jeton::lire()?;
    }
    let pret = planifier(g, &args.dossier, destination, args.redeposer_modifies)?;
    let (chemin_base, plan, cree) = (pret.base.chemin().to_owned(), pret.plan.id, pret.cree);
    let issue = if args.simulation {
        simuler(g, &pret)
    } else {
        super::envoi::envoyer(g, pret, &args.envoi, &args.s3)
    };
    // Un plan créé par ce passage, qui s'est arrêté avant tout envoi (simulation, identifiants,
    // participation refusée), n'a rien à reprendre : il ne reste pas vide dans `vigie plans`.
    if cree && (args.simulation || issue.is_err()) {
        let creation_refusee = issue
            .as_ref()
            .err()
            .is_some_and(|e| crate::sortie::code_pour_erreur(e) == CodeSortie::RefusDefinitifs);
        Base::ouvrir(&chemin_base)?.oublier_plan_intact(plan, creation_refusee)?;
    }
    issue
}

/// La destination que disent les options (le groupe clap garantit qu'il y en a une).
fn destination_demandee(args: &ArgsDepot) -> Result<Destination> {
    if let Some(vers) = &args.vers {
        return Ok(Destination::S3(DestinationS3::analyser(
            vers,
            args.s3.endpoint_url.as_deref(),
            args.autoriser_http,
        )?));
    }
    let participation = match (
        &args.participation,
        &args.site,
        &args.point,
        &args.debut,
        &args.fin,
    ) {
        (Some(id), ..) => CibleParticipation::Existante(id.clone()),
        (None, Some(site), Some(point), Some(debut), Some(fin)) => CibleParticipation::ACreer {
            site: site.clone(),
            point: point.clone(),
            debut: debut.clone(),
            fin: fin.clone(),
        },
        _ => bail!(
            "destination incomplète : --vers s3://…, --participation ID, ou --site ID --point P --debut D --fin F"
        ),
    };
    Ok(Destination::VigieChiro(DestinationVigieChiro::nouvelle(
        &args.api.url,
        participation,
        args.autoriser_http,
    )?))
}

/// Inventorie, valide, verrouille et (re)planifie. Rien n'est envoyé.
pub(super) fn planifier(
    g: &OptionsGlobales,
    dossier: &Path,
    destination: Destination,
    redeposer_modifies: bool,
) -> Result<PlanPret> {
    let inventaire = inventaire::inventorier(dossier)?;
    let dossier_canonique = dossier
        .canonicalize()
        .with_context(|| format!("chemin du dossier {}", dossier.display()))?;
    let Some(dossier_texte) = dossier_canonique.to_str() else {
        bail!(
            "le chemin du dossier {} n'est pas de l'UTF-8 : renommez-le (lettres sans accent, chiffres, _ -)",
            dossier_canonique.display()
        );
    };
    let mut empechements: Vec<Empechement> = inventaire
        .problemes
        .iter()
        .map(|p| Empechement {
            chemin: p.chemin.clone(),
            regle: p.probleme.clone(),
            geste: String::new(),
        })
        .collect();
    let mut fichiers = Vec::with_capacity(inventaire.enregistrements.len());
    for e in &inventaire.enregistrements {
        match destination.cle(&e.chemin) {
            Ok(cle) => fichiers.push(FichierPlanifie {
                chemin: e.chemin.clone(),
                cle,
                taille: e.taille,
                modifie_ns: e.modifie_ns,
                // Relue sans suivre de lien, comme l'inventaire : c'est ce fichier-là, et pas
                // un autre glissé à sa place, que l'envoi devra retrouver.
                identite: dossier
                    .join(&e.chemin)
                    .symlink_metadata()
                    .ok()
                    .as_ref()
                    .and_then(crate::plateforme::identite),
            }),
            Err(err) => empechements.push(Empechement {
                chemin: e.chemin.clone(),
                regle: err.to_string(),
                geste: String::new(),
            }),
        }
    }
    // Vers la plateforme : un nom qu'elle refusera est dit avant tout envoi, tous d'un coup.
    if matches!(destination, Destination::VigieChiro(_)) {
        empechements.extend(refus_de_la_plateforme(dossier, &inventaire));
    }
    if !empechements.is_empty() {
        let racines = noms::causes_racines(empechements);
        let mut s = io::stderr().lock();
        writeln!(s, "Ces fichiers empêchent le dépôt ; rien n'a été envoyé :")?;
        for ligne in noms::lignes_des_groupes(
            &noms::regrouper(racines.iter().cloned()),
            NOMS_CITES_PAR_REGLE,
        ) {
            writeln!(s, "{}", neutraliser(&ligne))?;
        }
        bail!(
            "{} à corriger avant de déposer (voir ci-dessus), puis relancez la même commande",
            pluriel(racines.len() as u64, "fichier", "fichiers")
        );
    }
    let base = ouvrir_base(g)?;
    let identite = destination.identite();
    let libelle = match base.trouver_plan(dossier_texte, &identite)? {
        Some(p) => p.id.to_string(),
        None => format!("de {dossier_texte} vers {identite}"),
    };
    let verrou = VerrouPlan::prendre(base.chemin(), dossier_texte, &identite, &libelle)?;
    let mut base = base;
    let r = base.planifier(dossier_texte, &identite, &fichiers, redeposer_modifies)?;
    let plan = r.plan.clone().context("plan absent après planification")?;
    annoncer_planification(g, &inventaire, &r, &plan)?;
    Ok(PlanPret {
        base,
        _verrou: verrou,
        plan,
        destination,
        cree: r.cree,
    })
}

/// Les noms que la plateforme refusera, chacun par sa cause racine. Ce qui se corrige sans
/// ambiguïté (la casse d'une extension) a pour geste une seule commande, `vigie renommer`, qui
/// montre chaque renommage avant de le faire.
fn refus_de_la_plateforme(dossier: &Path, inv: &Inventaire) -> Vec<Empechement> {
    let renommages = noms::renommages_sans_ambiguite(dossier, &inv.enregistrements);
    let commande = format!(
        "corrigez-les d'une commande : vigie renommer {}",
        noms::pour_le_shell(&dossier.display().to_string())
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

fn citer(liste: &[String]) -> String {
    let mut s = liste
        .iter()
        .take(NOMS_CITES)
        .map(|nom| neutraliser(nom).into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    if liste.len() > NOMS_CITES {
        s.push_str(&format!(" … (+{})", liste.len() - NOMS_CITES));
    }
    s
}

/// Dit ce que la planification a trouvé et changé (sur la sortie d'erreur : c'est du statut).
fn annoncer_planification(
    g: &OptionsGlobales,
    inv: &Inventaire,
    r: &Replanification,
    plan: &DepotPlan,
) -> Result<()> {
    if g.json {
        ligne_json(&json!({
            "evenement": "plan",
            "plan": plan.id,
            "cree": r.cree,
            "fichiers": inv.enregistrements.len(),
            "octets": inv.octets(),
            "ajoutees": r.ajoutees,
            "retirees": r.retirees,
            "reprises": r.reprises,
            "modifiees": r.modifiees,
            "ignores": inv.ignores_systeme + inv.non_reconnus.len() as u64 + inv.vides.len() as u64,
            "liens_non_suivis": inv.liens,
            "vides": inv.vides,
        }))?;
        return Ok(());
    }
    if g.quiet {
        return Ok(());
    }
    let mut s = io::stderr().lock();
    writeln!(
        s,
        "Plan {} {} : {}, {}.",
        plan.id,
        if r.cree { "créé" } else { "repris" },
        pluriel(inv.enregistrements.len() as u64, "fichier", "fichiers"),
        octets_lisibles(inv.octets())
    )?;
    if !r.cree && (r.ajoutees > 0 || r.retirees > 0 || r.reprises > 0) {
        writeln!(
            s,
            "  depuis le dernier passage : {} nouveau(x), {} disparu(s), {} interrompu(s) à reprendre",
            r.ajoutees, r.retirees, r.reprises
        )?;
    }
    let ignores = inv.ignores_systeme + inv.non_reconnus.len() as u64;
    if ignores > 0 {
        writeln!(
            s,
            "  ignorés : {} fichier(s) caché(s) ou système, {} autre(s) ({})",
            inv.ignores_systeme,
            inv.non_reconnus.len(),
            citer(&inv.non_reconnus)
        )?;
    }
    if !inv.vides.is_empty() {
        writeln!(
            s,
            "  attention : fichier(s) vide(s) ignoré(s) : {}",
            citer(&inv.vides)
        )?;
    }
    if !inv.liens.is_empty() {
        writeln!(s, "  liens symboliques non suivis : {}", citer(&inv.liens))?;
    }
    if !r.modifiees.is_empty() {
        writeln!(
            s,
            "  attention : {} fichier(s) déjà déposé(s) ont changé depuis et ne sont pas renvoyés ({}) ; \
             ajoutez --redeposer-modifies pour les renvoyer",
            r.modifiees.len(),
            citer(&r.modifiees)
        )?;
    }
    Ok(())
}

/// `--simulation` : ce qui partirait, sans rien envoyer.
fn simuler(g: &OptionsGlobales, pret: &PlanPret) -> Result<CodeSortie> {
    let partiraient: Vec<_> = pret
        .base
        .unites(
            pret.plan.id,
            &[
                EtatUnite::ADeposer,
                EtatUnite::EnCours,
                EtatUnite::Echec,
                EtatUnite::Incertaine,
            ],
        )?
        .into_iter()
        .filter(|u| !u.echec_definitif)
        .collect();
    let octets: u64 = partiraient.iter().map(|u| u.taille).sum();
    let mut s = io::stdout().lock();
    if g.json {
        for u in &partiraient {
            ligne_json(&json!({
                "evenement": "partirait",
                "chemin": u.chemin,
                "cle": u.cle,
                "taille": u.taille,
                "etat": u.etat,
            }))?;
        }
        ligne_json(&json!({
            "evenement": "simulation",
            "plan": pret.plan.id,
            "unites": partiraient.len(),
            "octets": octets,
        }))?;
    } else {
        for u in &partiraient {
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
            "Simulation : {}, {} partiraient vers {} ; rien n'a été envoyé.",
            pluriel(partiraient.len() as u64, "fichier", "fichiers"),
            octets_lisibles(octets),
            pret.destination
        )?;
    }
    Ok(CodeSortie::Succes)
}
