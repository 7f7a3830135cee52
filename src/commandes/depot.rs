//! `vigie depot` et `vigie retenter-echecs` : préparer le plan, puis l'envoyer en un ou
//! plusieurs passages (`passages`, qui mène chacun par `envoi`).

use std::path::Path;

use anyhow::{Context, Result};

use super::envoi::{Envoi, signaler_endpoint_ignore};
use super::reglages::ReglagesFusionnes;
use super::{ouvrir_base, ouvrir_base_existante};
use crate::cli::{ArgsDepot, ArgsRetenter, OptionsGlobales, OptionsPassages, OptionsS3};
use crate::depot::ReglagesDuPassage;
use crate::depot::fabrique::Destination;
use crate::depot::relecture::empreinte::memes_que_deposes;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::depot::vigiechiro::avant_envoi::PlateformeVerifiee;
use crate::destination::{CibleParticipation, IdObjet};
use crate::inventaire::{self, Inventaire};
use crate::plan::{
    Base, DepotPlan, FichierPlanifie, Planifiee, ReglagesRetenus, Replanification, Sorte,
    VerrouPlan,
};
use crate::plateforme::conseil::commande;
use crate::preparation::carte::Identite;
use crate::reessai::Profil;
use crate::saison::correspondance::{self, Ecart, ParticipationVue};
use crate::saison::examen::{Examen, Horodatages};
use crate::saison::fuseau::Fuseau;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::depot as dire;
use crate::suivi::format::pluriel;

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
    let destination = avec_les_canaux(destination, &preparation);
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
            refuser_si_deja_planifie(g, &preparation.dossier, dest, &identite, args.simulation)?;
            verifier_avant_l_envoi(g, &args, dest, &preparation, &reglages)?
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

/// Vers la plateforme, avant tout envoi : la plateforme lue ([`lire_la_plateforme`]), puis
/// les noms comparés à la participation. Rend l'utilisateur du jeton, s'il a été reconnu pour
/// un envoi.
fn verifier_avant_l_envoi(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    dest: &DestinationVigieChiro,
    preparation: &Preparation,
    reglages: &ReglagesFusionnes,
) -> Result<Option<IdObjet>> {
    let fuseau = Fuseau::analyser(&args.fuseau)
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    let verifiee = lire_la_plateforme(g, args.simulation, dest, reglages)?;
    let moi = verifiee
        .as_ref()
        .filter(|_| !args.simulation)
        .map(|v| v.moi.clone());
    refuser_plusieurs_nuits(g, preparation, args.forcer_participation)?;
    comparer_a_la_cible(g, args, dest, preparation, &fuseau, verifiee)?;
    Ok(moi)
}

/// Avant un envoi vers la plateforme : ses vérifications, sous les réglages du dépôt.
fn verifier_pour_envoyer(
    g: &OptionsGlobales,
    dest: &DestinationVigieChiro,
    reglages: &ReglagesFusionnes,
) -> Result<PlateformeVerifiee> {
    let emission = reglages.options.reessai.reglages_emission()?;
    super::vigiechiro::verifier_plateforme(g, dest, (emission, Profil::Insistant), RIEN_ENVOYE)
}

/// Vérifier la plateforme, c'est parler au réseau. Une simulation ne fait que la lire,
/// brièvement, et seulement avec un jeton : sans lui, ou la plateforme injoignable, elle dit
/// que rien n'a été vérifié ; un refus (participation inconnue, d'autrui…) est dit.
fn lire_la_plateforme(
    g: &OptionsGlobales,
    simulation: bool,
    dest: &DestinationVigieChiro,
    reglages: &ReglagesFusionnes,
) -> Result<Option<PlateformeVerifiee>> {
    if !simulation {
        return verifier_pour_envoyer(g, dest, reglages).map(Some);
    }
    if crate::jeton::lire().is_err() {
        non_verifiee(g, &format!("pas de jeton ({})", commande("connexion")))?;
        return Ok(None);
    }
    let lectures = (super::vigiechiro::reglages_de_simulation()?, Profil::Bref);
    match super::vigiechiro::verifier_plateforme(g, dest, lectures, RIEN_ENVOYE) {
        Ok(v) => Ok(Some(v)),
        Err(e) if crate::sortie::code_pour_erreur(&e) == CodeSortie::EchecsTransitoires => {
            non_verifiee(g, &format!("{e:#}"))?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Les noms comparés à la participation, existante (la soirée, le point, le passage et le
/// numéro de site des noms comparés aux siens) ou à créer (le numéro de site des noms comparé
/// au site donné, s'il a pu être lu : une simulation sans jeton ne le lit pas ; leur soirée à
/// --debut et --fin), par la même règle : un écart est un refus, avant toute création, sauf
/// --forcer-participation. Le point d'une participation à créer, l'utilisateur vient de le
/// taper (`--point`) : un écart est dit, le dépôt continue.
fn comparer_a_la_cible(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    dest: &DestinationVigieChiro,
    preparation: &Preparation,
    fuseau: &Fuseau,
    verifiee: Option<PlateformeVerifiee>,
) -> Result<()> {
    let forcer = args.forcer_participation;
    let enregistrements = &preparation.inventaire.enregistrements;
    match (&dest.participation, verifiee) {
        (CibleParticipation::Existante(id), Some(v)) => {
            let Some((p, site)) = &v.participation else {
                return Ok(());
            };
            let un_titre = match base_a_lire(g, args.simulation)? {
                Some(base) => crate::saison::sort::fichier_deja_depose(&base, id)?,
                None => None,
            };
            let vue = ParticipationVue::de_la_plateforme(id.clone(), p, un_titre);
            let ecarts =
                correspondance::ecarts_des_nuits(enregistrements, &vue, site.as_ref(), fuseau);
            refuser_les_ecarts(g, (Some(id), &dest.api), &ecarts, forcer)
        }
        (CibleParticipation::Existante(_), None) => Ok(()),
        (
            CibleParticipation::ACreer {
                point, debut, fin, ..
            },
            v,
        ) => {
            let vue = ParticipationVue::a_creer(debut, fin);
            let site = v.as_ref().and_then(|v| v.site_a_creer.as_ref());
            let ecarts = correspondance::ecarts_des_nuits(enregistrements, &vue, site, fuseau);
            refuser_les_ecarts(g, (None, &dest.api), &ecarts, forcer)?;
            if let Some((autres, points)) = point
                .as_deref()
                .and_then(|p| preparation.inventaire.d_autres_points(p))
            {
                // Le point d'une participation à créer, l'utilisateur vient de le taper : dit,
                // le dépôt continue.
                dire::points_differents(g.json, point.as_deref().unwrap_or(""), &points, &autres)?;
            }
            Ok(())
        }
    }
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
        Some(dest) => Some(verifier_pour_envoyer(g, dest, &reglages)?.moi),
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
    let Some(base) = base_a_lire(g, a_blanc)? else {
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

/// Vers la plateforme, les canaux d'une nuit de routier ou de pédestre que les options ne
/// disent pas, déduits de ses séquences (`garde::deduire_les_canaux`).
fn avec_les_canaux(destination: Destination, preparation: &Preparation) -> Destination {
    let Some(mut dest) = destination.plateforme().cloned() else {
        return destination;
    };
    let chemins = preparation
        .inventaire
        .enregistrements
        .iter()
        .map(|e| e.chemin.as_str());
    crate::garde::deduire_les_canaux(
        &mut dest.description,
        Path::new(&preparation.dossier),
        chemins,
    );
    dest.into()
}

/// Un dossier inventorié et validé pour sa destination : rien n'est encore écrit ni envoyé.
pub(super) struct Preparation {
    pub(crate) inventaire: Inventaire,
    pub(crate) fichiers: Vec<FichierPlanifie>,
    /// Chemin canonique du dossier.
    pub(crate) dossier: String,
    /// Une carte brute préparée au fil de l'envoi : le nombre de ses originaux (ses
    /// séquences sont les fichiers de l'inventaire).
    pub(crate) originaux_bruts: Option<usize>,
}

/// Inventorie et valide le dossier pour la destination, sans rien écrire ni envoyer : un nom
/// que la destination refusera est dit ici, tous d'un coup. Une carte brute reconnue
/// (`preparation::au_fil`, voir [`examiner`]) est vue comme le dossier que `vigie preparer` en
/// écrirait : une unité par séquence, préparée au fil de l'envoi.
pub(super) fn preparer(
    dossier: &Path,
    destination: &Destination,
    horodatages: Horodatages,
    carte: &Identite,
) -> Result<Preparation> {
    let examen = examiner(dossier, destination, horodatages, carte)?;
    refuser_les_empechements(&[("", &examen)])?;
    let Examen {
        inventaire,
        dossier: dossier_texte,
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
        dossier: dossier_texte,
        originaux_bruts,
    })
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
    let base = base_a_lire(g, a_blanc)?;
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

/// Inventorie le dossier (une carte brute reconnue vue comme le dossier que `vigie preparer` en
/// écrirait) et relève tout ce qui y empêche le dépôt (`saison::examen`), sans rien dire encore.
pub(super) fn examiner(
    dossier: &Path,
    destination: &Destination,
    horodatages: Horodatages,
    carte: &Identite,
) -> Result<Examen> {
    let inventaire = inventaire::inventorier(dossier)?;
    let lu = crate::preparation::au_fil::lire_le_dossier(dossier, inventaire, carte);
    crate::saison::examen::examiner(dossier, lu, destination, horodatages)
}

/// Dit tout ce qui empêche le dépôt dans ces dossiers (chacun avec le préfixe de ses chemins,
/// `""` pour un seul dossier), d'un coup, et refuse (code 2) ; rien s'il n'y a rien.
pub(super) fn refuser_les_empechements(examens: &[(&str, &Examen)]) -> Result<()> {
    let (racines, nuits) = Examen::ensemble(examens);
    if racines.is_empty() {
        return Ok(());
    }
    dire::empechements(&racines)?;
    Err(ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "{} à corriger avant de déposer (voir ci-dessus), puis relancez la même commande",
            pluriel(racines.len() as u64, "fichier", "fichiers")
        ),
    )
    .avec_nuits(
        nuits
            .iter()
            .map(crate::suivi::saison::nuit_nommee)
            .collect(),
    )
    .into())
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

/// Un dossier déjà dans un autre plan vers la même participation
/// (`saison::sort::plan_vers_la_meme_participation`) serait déposé deux fois : refusé avant
/// tout envoi, avec le plan à reprendre.
fn refuser_si_deja_planifie(
    g: &OptionsGlobales,
    dossier: &str,
    dest: &DestinationVigieChiro,
    identite: &str,
    a_blanc: bool,
) -> Result<()> {
    let Some(base) = base_a_lire(g, a_blanc)? else {
        return Ok(());
    };
    let plans = base.plans()?;
    let Some(plan) =
        crate::saison::sort::plan_vers_la_meme_participation(plans, dossier, dest, identite)
    else {
        return Ok(());
    };
    Err(dire::deja_planifie(&plan))
}

/// La base des plans, pour la lire avant de planifier ; `None` s'il n'y en a pas encore. Lire ne
/// crée rien : sans base, aucun plan n'existe. Une simulation lit une copie, pour ne pas même
/// migrer la base.
pub(super) fn base_a_lire(g: &OptionsGlobales, a_blanc: bool) -> Result<Option<Base>> {
    let chemin = super::chemin_base(g)?;
    if !chemin.exists() {
        return Ok(None);
    }
    if a_blanc {
        return Ok(Some(Base::ouvrir_a_blanc(&chemin)?));
    }
    Ok(Base::ouvrir_existante(&chemin)?)
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
    let Some(base) = base_a_lire(g, a_blanc)? else {
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

/// Une participation, c'est un site, un point, une nuit : des fichiers de plusieurs nuits
/// (points, passages ou soirées) vers une seule participation y resteraient mêlés, et la
/// plateforme ne permet pas de retirer un fichier accepté. Refus avant tout envoi (code 2),
/// les nuits listées et la commande de saison ; `--forcer-participation` passe outre.
fn refuser_plusieurs_nuits(
    g: &OptionsGlobales,
    preparation: &Preparation,
    forcer: bool,
) -> Result<()> {
    let nuits = crate::saison::nuits::regrouper(&preparation.inventaire.enregistrements).nuits;
    if nuits.len() < 2 {
        return Ok(());
    }
    dire::plusieurs_nuits(g.mode_sortie(), &nuits, forcer)?;
    if forcer {
        return Ok(());
    }
    Err(dire::plusieurs_nuits_refusees(&nuits))
}

/// Une simulation qui n'a pas pu lire la plateforme le dit (sur la sortie d'erreur : c'est du
/// statut), et continue : elle n'envoie rien.
fn non_verifiee(g: &OptionsGlobales, pourquoi: &str) -> Result<()> {
    dire::non_verifiee(g.mode_sortie(), pourquoi)?;
    Ok(())
}

/// Les écarts des noms à la participation, donnée (`--participation`, `id`) ou à créer
/// (`--site … --debut … --fin …`, `id` absent), relevés par [`correspondance::ecarts_des_nuits`]
/// (le site, le point, la soirée, et le passage d'un fichier déjà déposé) : un écart est un refus
/// avant tout envoi et toute création (code 2), qui dit chaque écart et quoi faire : la
/// plateforme ne permet pas de retirer un fichier accepté. `--forcer-participation` passe
/// outre, en le disant.
fn refuser_les_ecarts(
    g: &OptionsGlobales,
    (id, api): (Option<&IdObjet>, &str),
    ecarts: &[Ecart],
    forcer: bool,
) -> Result<()> {
    if ecarts.is_empty() {
        return Ok(());
    }
    let rien_fait = match id {
        Some(_) => RIEN_ENVOYE,
        None => "rien n'a été créé ni envoyé",
    };
    dire::ecarts(g.json, (id, api), ecarts, forcer, rien_fait)?;
    if forcer {
        return Ok(());
    }
    Err(dire::ecarts_refuses(id.is_some(), rien_fait))
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
