//! `vigie depot` et `vigie retenter-echecs` : préparer le plan, puis l'envoyer en un ou
//! plusieurs passages (`passages`, qui mène chacun par `envoi`).

use std::path::Path;

use anyhow::{Context, Result};

use super::envoi::{Envoi, signaler_endpoint_ignore};
use super::reglages::ReglagesFusionnes;
use super::vigiechiro::AvantLeDepot;
use super::{ouvrir_base, ouvrir_base_existante};
use crate::cli::{ArgsDepot, ArgsRetenter, OptionsGlobales, OptionsPassages, OptionsS3};
use crate::depot::ReglagesDuPassage;
use crate::depot::fabrique::Destination;
use crate::depot::relecture::empreinte::memes_que_deposes;
use crate::destination::IdObjet;
use crate::inventaire::Inventaire;
use crate::plan::{
    Base, DepotPlan, FichierPlanifie, Planifiee, ReglagesRetenus, Replanification, Sorte,
    VerrouPlan,
};
use crate::preparation::carte::Identite;
pub(super) use crate::preparation::nuit::{Preparation, examiner};
use crate::saison::examen::Horodatages;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::depot as dire;

pub(super) use crate::suivi::depot::RIEN_ENVOYE;

/// Un plan prêt à partir : la base, le verrou tenu, le plan à jour.
pub(super) struct PlanPret {
    pub(crate) base: Base,
    /// Le verrou du plan (aucun pour une simulation, qui n'écrit rien).
    pub(crate) _verrou: Option<VerrouPlan>,
    pub(crate) plan: DepotPlan,
    pub(crate) destination: Destination,
    /// Le plan vient d'être créé par ce passage.
    pub(crate) cree: bool,
}

pub(super) fn depot(g: &OptionsGlobales, args: ArgsDepot) -> Result<CodeSortie> {
    let dossier = args.un_seul_dossier()?;
    let destination = args.destination()?;
    // Sans jeton, rien ne peut partir vers la plateforme : on le dit avant même d'inventorier.
    // Une simulation, elle, ne parle pas au réseau et n'en a pas besoin.
    if destination.exige_un_jeton() && !args.simulation {
        crate::jeton::lire()?;
    }
    // Une participation donnée et forcée porte la date : les horodatages des noms n'y
    // comptent pas (la nuit d'une horloge mal réglée, déposée dans une participation créée à
    // la main).
    let horodatages = if args.forcer_participation && args.participation.is_some() {
        Horodatages::Acceptes
    } else {
        Horodatages::Juges
    };
    let identite = args.identite_de_la_carte()?;
    let preparation = preparer(&dossier, &destination, horodatages, &identite)?;
    if preparation.originaux_bruts.is_none() && args.nomme_une_carte() {
        return Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            crate::cli::depot::IDENTITE_SANS_CARTE,
        )
        .into());
    }
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
    let retenus = reglages_retenus(g, &preparation.dossier, &identite, args.simulation)?;
    let reglages = super::reglages::fusionner(&args.envoi, &retenus);
    // L'utilisateur du jeton, reconnu par les vérifications (vers la plateforme seulement).
    let moi = match destination.plateforme() {
        None => {
            avertir_autres_plans(g, &preparation.dossier, &identite, args.simulation)?;
            None
        }
        Some(dest) => {
            let ctx = AvantLeDepot {
                simulation: args.simulation,
                forcer: args.forcer_participation,
                fuseau: &args.fuseau,
                preparation: &preparation,
                identite: &identite,
                reglages: &reglages,
            };
            super::vigiechiro::avant_le_depot(g, dest, &ctx)?
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

/// Le plan enregistré (ses réglages retenus), puis envoyé, ou simulé. Un plan créé par ce
/// passage, qui s'est arrêté avant tout envoi (identifiants, participation refusée), n'a rien à
/// reprendre : il ne reste pas vide dans `vigie plans`. (Une simulation n'a rien écrit dans la
/// base : elle a planifié sur une copie.)
fn deposer_la_nuit(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    (preparation, destination, identite): (Preparation, Destination, &str),
    reglages: &ReglagesFusionnes,
    moi: Option<IdObjet>,
) -> Result<CodeSortie> {
    let pret = enregistrer(
        g,
        preparation,
        destination,
        identite,
        args.redeposer_modifies,
        args.simulation,
    )?;
    if !args.simulation {
        pret.base
            .retenir_reglages(pret.plan.id, &reglages.retenus)?;
    }
    annoncer_reglages(g, &reglages.annonce)?;
    let (chemin_base, plan, cree) = (pret.base.chemin().to_owned(), pret.plan.id, pret.cree);
    let issue = if args.simulation {
        simuler(g, &pret)
    } else {
        envoyer(g, pret, reglages, moi, &args.passages, &args.s3)
    };
    if cree && !args.simulation && issue.is_err() {
        let creation_refusee = issue
            .as_ref()
            .err()
            .is_some_and(|e| crate::sortie::code_pour_erreur(e) == CodeSortie::RefusDefinitifs);
        Base::ouvrir(&chemin_base)?.oublier_plan_intact(plan, creation_refusee)?;
    }
    issue
}

/// Un plan hors saison (une nuit de saison passe par `saison::retenter_saison`).
pub(super) fn retenter(g: &OptionsGlobales, args: ArgsRetenter) -> Result<CodeSortie> {
    let (dossier, destination, identite, retenus, carte) = {
        let base = ouvrir_base_existante(g)?;
        let plan = base.plan(args.plan)?;
        let destination = Destination::du_plan(&plan)?;
        signaler_endpoint_ignore(plan.id, &destination, &args.s3);
        if destination.exige_un_jeton() {
            crate::jeton::lire()?;
        }
        let retenus = base.reglages(plan.id)?;
        let carte = crate::preparation::carte::identite_du_plan(&base.unites(plan.id, &[])?);
        (
            plan.dossier.clone(),
            destination,
            plan.destination,
            retenus,
            carte,
        )
    };
    // Les réglages du dépôt que reprend ce plan, sauf ceux donnés pour cette relance.
    let reglages = super::reglages::fusionner(&args.envoi, &retenus);
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
    let moi = match destination.plateforme() {
        Some(dest) => Some(super::vigiechiro::verifier_pour_envoyer(g, dest, &reglages)?.moi),
        None => None,
    };
    let pret = enregistrer(g, preparation, destination, &identite, false, false)?;
    pret.base
        .retenir_reglages(pret.plan.id, &reglages.retenus)?;
    annoncer_reglages(g, &reglages.annonce)?;
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
    let PlanPret {
        base,
        _verrou: verrou,
        plan,
        destination,
        ..
    } = pret;
    let mut envoi = Envoi::nouveau(reglages.options.parametres(s3)?, &destination);
    envoi.annonce = reglages.annonce.clone();
    envoi.moi = moi;
    let rt = super::moteur(super::Fils::Plusieurs)?;
    let code = rt.block_on(super::passages::enchainer(g, &regle, &envoi, base, plan));
    drop(verrou);
    code
}

/// Les réglages que retient le plan de ce dossier vers cette destination, s'il existe déjà
/// (aucun sinon). Lire ne crée rien ; une simulation lit une copie de la base.
fn reglages_retenus(
    g: &OptionsGlobales,
    dossier: &str,
    identite: &str,
    a_blanc: bool,
) -> Result<ReglagesRetenus> {
    let Some(base) = super::base_a_lire(g, a_blanc)? else {
        return Ok(ReglagesRetenus::default());
    };
    Ok(match base.trouver_plan(dossier, identite)? {
        Some(plan) => base.reglages(plan.id)?,
        None => ReglagesRetenus::default(),
    })
}

/// Dit, avant l'envoi, les réglages repris du plan et ceux qui remplacent une valeur retenue
/// (le bilan les redit). Sur la sortie d'erreur : c'est du statut.
fn annoncer_reglages(g: &OptionsGlobales, annonce: &ReglagesDuPassage) -> Result<()> {
    dire::reglages(g.mode_sortie(), annonce)?;
    Ok(())
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

/// Verrouille et (re)planifie le plan nommé par `identite` (celle de la destination pour un
/// dépôt, celle stockée dans la base pour une reprise). Rien n'est envoyé. `a_blanc`
/// (`--simulation`) : sur une copie en mémoire de la base, qui n'est pas touchée.
pub(super) fn enregistrer(
    g: &OptionsGlobales,
    preparation: Preparation,
    destination: Destination,
    identite: &str,
    redeposer_modifies: bool,
    a_blanc: bool,
) -> Result<PlanPret> {
    let Preparation {
        inventaire,
        fichiers,
        dossier,
        originaux_bruts,
    } = preparation;
    // À blanc, sur une copie en mémoire : rien n'est écrit, il n'y a rien à verrouiller.
    let (mut base, verrou) = if a_blanc {
        (Base::ouvrir_a_blanc(&super::chemin_base(g)?)?, None)
    } else {
        let base = ouvrir_base(g)?;
        let libelle = match base.trouver_plan(&dossier, identite)? {
            Some(p) => p.id.to_string(),
            None => format!("de {dossier} vers {identite}"),
        };
        let verrou = VerrouPlan::prendre(base.chemin(), &dossier, identite, &libelle)?;
        (base, Some(verrou))
    };
    let r = planifier_en_relisant(
        &mut base,
        &dossier,
        (&destination.sorte(), identite),
        &fichiers,
        redeposer_modifies,
        None,
    )?;
    let plan = r.plan.clone().context("plan absent après planification")?;
    annoncer_planification(g, &inventaire, &r, &plan, a_blanc)?;
    if let Some(originaux) = originaux_bruts {
        annoncer_carte_brute(g, originaux, inventaire.enregistrements.len())?;
    }
    Ok(PlanPret {
        base,
        _verrou: verrou,
        plan,
        destination,
        cree: r.cree,
    })
}

/// Dit qu'une carte brute part préparée au fil de l'envoi : `originaux` originaux, `sequences`
/// séquences (en JSON ou en silence : rien).
pub(super) fn annoncer_carte_brute(
    g: &OptionsGlobales,
    originaux: usize,
    sequences: usize,
) -> Result<()> {
    dire::carte_brute(g.mode_sortie(), originaux, sequences)?;
    Ok(())
}

/// Planifie la nuit (voir [`Base::planifier_dans`]), en relisant au besoin les fichiers déjà
/// déposés dont seule la date a changé (même taille) : ceux dont le contenu, relu, est celui
/// du dépôt ne sont ni « changés » ni renvoyés. Une carte FAT garde l'heure locale, et le
/// passage à l'heure d'été (ou un autre système) décale d'une heure toutes ses dates sans
/// changer un octet. Un fichier illisible, ou sans empreinte comparable, reste dit changé.
/// Sans date changée (le cas d'une reprise), le plan n'est lu qu'une fois.
pub(super) fn planifier_en_relisant(
    base: &mut Base,
    dossier: &str,
    destination: (&Sorte, &str),
    fichiers: &[FichierPlanifie],
    redeposer_modifies: bool,
    perimetre: Option<&[String]>,
) -> Result<Replanification> {
    let mut dates_seules = None;
    loop {
        let issue = base.planifier_dans(
            dossier,
            destination,
            fichiers,
            redeposer_modifies,
            dates_seules.as_ref(),
            perimetre,
        )?;
        match issue {
            Planifiee::Faite(r) => return Ok(r),
            // Rendu seulement sans dates relues : le second tour les donne.
            Planifiee::ARelire(a_relire) => {
                let relues = memes_que_deposes(dossier, fichiers, a_relire);
                dates_seules = Some(super::moteur(super::Fils::Plusieurs)?.block_on(relues));
            }
        }
    }
}

/// D'autres plans (d'autres dossiers : la carte montée ailleurs, une copie sur le disque)
/// visent déjà ce compartiment et ce préfixe : on les nomme, avant tout envoi. Le dépôt
/// continue : ce que la destination tient déjà, identique, ne repartira pas (elle est lue au
/// début du passage) ; un fichier de même nom mais d'un autre contenu y remplacera l'objet.
fn avertir_autres_plans(
    g: &OptionsGlobales,
    dossier: &str,
    identite: &str,
    a_blanc: bool,
) -> Result<()> {
    let Some(base) = super::base_a_lire(g, a_blanc)? else {
        return Ok(());
    };
    let autres: Vec<DepotPlan> = base
        .plans()?
        .into_iter()
        .filter(|p| p.destination == identite && p.dossier != dossier)
        .collect();
    if autres.is_empty() {
        return Ok(());
    }
    dire::autres_plans(g.json, identite, &autres)?;
    Ok(())
}

/// Dit ce que la planification a trouvé et changé (sur la sortie d'erreur : c'est du statut).
fn annoncer_planification(
    g: &OptionsGlobales,
    inv: &Inventaire,
    r: &Replanification,
    plan: &DepotPlan,
    a_blanc: bool,
) -> Result<()> {
    dire::planification(g.mode_sortie(), inv, r, plan, a_blanc)
}

/// `--simulation` : ce qui partirait, sans rien envoyer.
fn simuler(g: &OptionsGlobales, pret: &PlanPret) -> Result<CodeSortie> {
    let partiraient = pret.base.partiraient(pret.plan.id)?;
    dire::simulation(g.json, pret.plan.id, &partiraient, &pret.destination)?;
    Ok(CodeSortie::Succes)
}
