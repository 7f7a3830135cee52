//! `vigie depot` et `vigie retenter-echecs` : préparer le plan, puis l'envoyer en un ou
//! plusieurs passages (`passages`, qui mène chacun par `envoi`).

use std::path::Path;

use anyhow::Result;

use super::envoi::Envoi;
use super::reglages::ReglagesFusionnes;
use super::vigiechiro::AvantLeDepot;
use super::{ouvrir_base, ouvrir_base_existante};
use crate::cli::{ArgsDepot, ArgsRetenter, OptionsGlobales, OptionsPassages, OptionsS3};
use crate::depot::fabrique::Destination;
use crate::depot::planification::{
    PlanPret, PlanRelu, autres_plans, oublier_s_il_est_vide, reglages_retenus, verrouiller,
};
use crate::destination::IdObjet;
use crate::plan::{Base, ReglagesRetenus};
use crate::preparation::carte::Identite;
pub(super) use crate::preparation::nuit::{Preparation, examiner};
use crate::saison::examen::Horodatages;
use crate::sortie::CodeSortie;
use crate::suivi::depot as dire;

pub(super) use crate::suivi::depot::RIEN_ENVOYE;

pub(super) fn depot(g: &OptionsGlobales, args: ArgsDepot) -> Result<CodeSortie> {
    let dossier = args.un_seul_dossier()?;
    let destination = args.destination()?;
    // Sans jeton, rien ne peut partir : on le dit avant même d'inventorier. Une simulation,
    // elle, ne parle pas au réseau et n'en a pas besoin.
    if !args.simulation {
        destination.exiger_le_jeton()?;
    }
    let identite = args.identite_de_la_carte()?;
    let preparation = preparer(&dossier, &destination, args.horodatages(), &identite)?;
    args.refuser_l_identite_sans_carte(preparation.originaux_bruts.is_some())?;
    let chemins = preparation.inventaire.enregistrements.iter();
    let destination = destination.completee_par_la_nuit(
        Path::new(&preparation.dossier),
        chemins.map(|e| e.chemin.as_str()),
    );
    // Les réglages d'envoi : ceux donnés, et pour les autres ceux que retient le plan de ce
    // dossier vers cette destination, s'il existe déjà.
    let identite = destination.identite();
    if destination.lit_les_sequences() {
        garder_la_nuit(g, &preparation, &identite, &dossier, args.simulation)?;
    }
    // Lire ne crée rien ; une simulation lit une copie de la base.
    let retenus = match super::base_a_lire(g, args.simulation)? {
        Some(base) => reglages_retenus(&base, &preparation.dossier, &identite)?,
        None => ReglagesRetenus::default(),
    };
    let reglages = super::reglages::fusionner(&args.envoi, &retenus);
    // L'utilisateur du jeton, reconnu par les vérifications (vers la plateforme seulement).
    let ctx = AvantLeDepot {
        simulation: args.simulation,
        forcer: args.forcer_participation,
        fuseau: &args.fuseau,
        preparation: &preparation,
        identite: &identite,
        reglages: &reglages,
    };
    let moi = match super::vigiechiro::avant_le_depot(g, &destination, &ctx)? {
        Some(moi) => moi,
        // Une autre destination : les autres plans qui la visent déjà sont nommés.
        None => {
            if let Some(base) = super::base_a_lire(g, args.simulation)? {
                let autres = autres_plans(&base, &preparation.dossier, &identite)?;
                dire::autres_plans(g.json, &identite, &autres)?;
            }
            None
        }
    };
    deposer_la_nuit(
        g,
        &args,
        (preparation, destination, &identite),
        &reglages,
        moi,
    )
}

/// Le plan enregistré (ses réglages retenus), puis envoyé, ou simulé ; créé par ce passage et
/// arrêté avant tout envoi, il est oublié (`depot::planification`). (Une simulation n'a rien
/// écrit dans la base : elle a planifié sur une copie.)
fn deposer_la_nuit(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    (preparation, destination, identite): (Preparation, Destination, &str),
    reglages: &ReglagesFusionnes,
    moi: Option<IdObjet>,
) -> Result<CodeSortie> {
    let nuit = (preparation, destination, identite);
    let pret = enregistrer(g, nuit, reglages, args.redeposer_modifies, args.simulation)?;
    let (chemin_base, plan, cree) = (pret.base.chemin().to_owned(), pret.plan.id, pret.cree);
    let issue = if args.simulation {
        // Ce qui partirait, sans rien envoyer.
        let partiraient = pret.base.partiraient(pret.plan.id)?;
        dire::simulation(g.json, pret.plan.id, &partiraient, &pret.destination)?;
        Ok(CodeSortie::Succes)
    } else {
        envoyer(g, pret, reglages, moi, &args.passages, &args.s3)
    };
    if cree && !args.simulation {
        oublier_s_il_est_vide(&chemin_base, plan, &issue)?;
    }
    issue
}

/// Un plan hors saison (une nuit de saison passe par `saison::retenter_saison`).
pub(super) fn retenter(g: &OptionsGlobales, args: ArgsRetenter) -> Result<CodeSortie> {
    let plan = PlanRelu::lire(&ouvrir_base_existante(g)?, args.plan)?;
    let (dossier, destination, identite) = (plan.dossier, plan.destination, plan.identite);
    dire::endpoint_ignore(plan.id, &destination, args.s3.endpoint_url.as_deref());
    destination.exiger_le_jeton()?;
    let carte = crate::preparation::carte::identite_du_plan(&plan.unites);
    // Les réglages du dépôt que reprend ce plan, sauf ceux donnés pour cette relance.
    let reglages = super::reglages::fusionner(&args.envoi, &plan.retenus);
    // On replanifie d'après le dossier : un fichier changé depuis est vu, et un fichier
    // disparu ne part pas pour rien. Le plan se retrouve par son identité stockée (celle
    // d'une version antérieure peut s'écrire autrement aujourd'hui).
    let preparation = preparer(
        Path::new(&dossier),
        &destination,
        Horodatages::Juges,
        &carte,
    )?;
    if destination.lit_les_sequences() {
        garder_la_nuit(g, &preparation, &identite, Path::new(&dossier), false)?;
    }
    let emission = || reglages.options.reessai.reglages_emission();
    let moi = super::vigiechiro::verifier_si_plateforme(g, &destination, emission, RIEN_ENVOYE)?;
    let pret = enregistrer(
        g,
        (preparation, destination, &identite),
        &reglages,
        false,
        false,
    )?;
    let remises = pret
        .base
        .remettre_en_file(pret.plan.id, args.y_compris_definitifs)?;
    tracing::info!(plan = pret.plan.id, remises, "unités remises en file");
    envoyer(g, pret, &reglages, moi, &args.passages, &args.s3)
}
/// Envoie un plan prêt (verrou tenu, gardé jusqu'au dernier passage) et affiche le bilan :
/// un passage, ou, avec `--jusqu-au-bout`, autant qu'il en faut (voir `passages`).
pub(super) fn envoyer(
    g: &OptionsGlobales,
    pret: PlanPret,
    reglages: &ReglagesFusionnes,
    moi: Option<IdObjet>,
    passages: &OptionsPassages,
    s3: &OptionsS3,
) -> Result<CodeSortie> {
    let regle = super::passages::ReglePassages::depuis(passages)?;
    let mut envoi = Envoi::nouveau(reglages.options.parametres(s3)?, &pret.destination);
    envoi.annonce = reglages.annonce.clone();
    envoi.moi = moi;
    let rt = super::moteur(super::Fils::Plusieurs)?;
    let passages = super::passages::enchainer(g, &regle, &envoi, pret.base, pret.plan);
    let code = rt.block_on(passages);
    drop(pret._verrou);
    code
}

/// Inventorie et valide le dossier pour la destination, sans rien écrire ni envoyer : un nom
/// que la destination refusera est dit ici, tous d'un coup (`preparation::nuit`).
pub(super) fn preparer(
    dossier: &Path,
    destination: &Destination,
    horodatages: Horodatages,
    carte: &Identite,
) -> Result<Preparation> {
    let examen = examiner(dossier, destination, horodatages, carte)?;
    dire::refuser_les_empechements(&[("", &examen)])?;
    Preparation::de_l_examen(examen, destination)
}

/// La garde de format d'une nuit (`garde.rs`) : ses fichiers qui restent à envoyer (pas ceux
/// que son plan, s'il existe, a déjà déposés) sont jugés avant tout envoi et toute création.
/// `carte` : le dossier tel que l'utilisateur l'a donné, pour la commande qui le prépare.
fn garder_la_nuit(
    g: &OptionsGlobales,
    preparation: &Preparation,
    identite: &str,
    carte: &Path,
    a_blanc: bool,
) -> Result<()> {
    // Une carte brute préparée au fil de l'envoi : ses séquences n'existent pas encore sur un
    // disque, et leur en-tête est écrit à Fe/10 par la règle même de `vigie preparer`.
    if preparation.originaux_bruts.is_some() {
        return Ok(());
    }
    let base = super::base_a_lire(g, a_blanc)?;
    let plan = match &base {
        Some(base) => base.trouver_plan(&preparation.dossier, identite)?,
        None => None,
    };
    let nuit = super::garde::NuitAGarder {
        fichiers: preparation.inventaire.enregistrements.iter().collect(),
        plan: plan.as_ref().map(|p| (p.id, p.dossier.as_str())),
        nommee: None,
    };
    super::garde::garder_les_nuits(
        g,
        Path::new(&preparation.dossier),
        &[nuit],
        base.as_ref(),
        |_| carte.to_path_buf(),
    )
}

/// Verrouille et (re)planifie le plan nommé par `identite` (`depot::planification`), dit ce
/// que la planification a trouvé, puis retient ses réglages et les dit (sur la sortie
/// d'erreur : c'est du statut, le bilan les redit). Rien n'est envoyé. `a_blanc`
/// (`--simulation`) : sur une copie en mémoire de la base, qui n'est pas touchée, sans verrou.
fn enregistrer(
    g: &OptionsGlobales,
    (preparation, destination, identite): (Preparation, Destination, &str),
    reglages: &ReglagesFusionnes,
    redeposer_modifies: bool,
    a_blanc: bool,
) -> Result<PlanPret> {
    let dossier = &preparation.dossier;
    let ouverte = if a_blanc {
        (Base::ouvrir_a_blanc(&super::chemin_base(g)?)?, None)
    } else {
        let base = ouvrir_base(g)?;
        let verrou = verrouiller(&base, dossier, identite)?;
        (base, Some(verrou))
    };
    let nuit = (dossier.as_str(), preparation.fichiers.as_slice());
    let (pret, r) =
        PlanPret::planifier(ouverte, nuit, (destination, identite), redeposer_modifies)?;
    let inventaire = &preparation.inventaire;
    dire::planification(g.mode_sortie(), inventaire, &r, &pret.plan, a_blanc)?;
    if let Some(originaux) = preparation.originaux_bruts {
        let sequences = inventaire.enregistrements.len();
        dire::carte_brute(g.mode_sortie(), originaux, sequences)?;
    }
    if !a_blanc {
        pret.base
            .retenir_reglages(pret.plan.id, &reglages.retenus)?;
    }
    dire::reglages(g.mode_sortie(), &reglages.annonce)?;
    Ok(pret)
}
