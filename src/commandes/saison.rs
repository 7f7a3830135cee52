//! `vigie depot DOSSIER…` sans destination : la saison. Chaque nuit (site, point, passage,
//! soirée, lus dans les noms) part dans sa participation : celle de la base (une relance),
//! celle de la plateforme qui est cette nuit (créée sur le site web), ou une créée pour elle.
//!
//! L'ordre des choses, pour que rien ne parte au mauvais endroit :
//! 1. inventaire et noms de tous les dossiers (une carte brute vue, comme en mode une nuit,
//!    comme les séquences qu'en écrirait `vigie preparer`), regroupement en nuits ; un fichier
//!    d'aucune nuit est un refus (code 2) ;
//! 2. lecture de la plateforme : l'utilisateur, ses sites (le numéro des noms rapproché d'un
//!    titre), les participations de chaque site ; un site absent ou ambigu, une participation
//!    ambiguë, sans point ou partagée entre deux nuits : refus (code 2), tous d'un coup, avant
//!    toute écriture ;
//! 3. un plan par nuit, lié à sa saison dans la base (`saison_nuit`) : une nuit liée garde son
//!    plan d'une relance à l'autre ;
//! 4. **toutes** les créations de participations, nuit après nuit (chacune notée dans son plan
//!    avant d'être émise, réconciliée par la relecture du site si la réponse se perd ou si
//!    `vigie` est tué) ;
//! 5. puis l'envoi, nuit après nuit, sous un seul jeu de réglages (`--paralleles`,
//!    `--debit-max` : un seul seau pour toute la saison).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::depot::{RIEN_ENVOYE, examiner, preparer};
use super::envoi::Envoi;
use crate::cli::{
    ArgsDepot, ArgsRetenter, OptionsEnvoi, OptionsGlobales, OptionsPassages, OptionsS3,
};
use crate::depot::fabrique::Destination;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::destination::{CibleParticipation, IdObjet};
use crate::inventaire::{Enregistrement, NonEnvoyes};
use crate::plan::{Base, DepotPlan};
use crate::preparation::carte::Identite;
use crate::reessai::ReponseApi;
use crate::saison::course::{self, Course, Creation};
use crate::saison::decision::{self, Inconnus, SitesDonnes};
use crate::saison::examen::{Examen, Horodatages};
use crate::saison::fuseau::Fuseau;
use crate::saison::lecture::{self, Plateforme};
use crate::saison::nuits::regrouper;
use crate::saison::planification::{
    NuitAEnvoyer, Saison, description_de_la_nuit, indices_de_la_liee,
    nuits_a_retenter as nuits_a_retenter_de, nuits_des_saisons, planifier_et_lier,
    preparer_la_nuit, reglages_de_la_saison, retenir_les_reglages, verrouiller_saisons,
};
use crate::saison::reprise::{Reinventoriee, Reprise, replanifier_les_liees};
use crate::saison::reunion::{DossierExamine, Reunion};
use crate::saison::sort::{NuitDeSaison, Sort, participation_du_plan};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::non_envoyes::Ou;
use crate::suivi::saison::{self as dire, libelle_court, libelle_liee};
use crate::transport::vigiechiro::ClientVigieChiro;

fn reunir(dossiers: &[PathBuf], provisoire: &Destination, carte: &Identite) -> Result<Reunion> {
    // Tous les dossiers examinés, puis tout ce qui empêche le dépôt dit d'un coup.
    let mut examens = Vec::with_capacity(dossiers.len());
    for d in dossiers {
        examens.push(examiner(d, provisoire, Horodatages::Juges, carte)?);
    }
    let plusieurs = examens.len() > 1;
    let prefixes: Vec<String> = dossiers
        .iter()
        .map(|d| {
            if plusieurs {
                d.display().to_string()
            } else {
                String::new()
            }
        })
        .collect();
    let a_dire: Vec<(&str, &Examen)> = prefixes.iter().map(String::as_str).zip(&examens).collect();
    crate::suivi::depot::refuser_les_empechements(&a_dire)?;
    let examines = examens.into_iter().map(|e| DossierExamine {
        inventaire: e.inventaire,
        dossier: PathBuf::from(e.dossier),
        preparees: e.preparees,
        originaux_bruts: e.originaux_bruts.unwrap_or(0),
    });
    Reunion::rassembler(examines.collect())
}

/// Une lecture de la plateforme, ou l'erreur (transitoire) qui dit pourquoi elle manque.
pub(super) async fn lire_ou_dire<T, Fut>(
    emetteur: &crate::transport::Emetteur,
    cible: &str,
    tentative: impl FnMut() -> Fut,
) -> Result<T>
where
    Fut: Future<Output = ReponseApi<T>>,
{
    lecture::lire(emetteur, cible, dire::lecture_impossible, tentative).await
}

/// L'utilisateur du jeton (`GET /moi`), ou l'erreur qui dit pourquoi rien n'est parti.
pub(super) async fn lire_moi(
    client: &ClientVigieChiro,
    emetteur: &crate::transport::Emetteur,
    api: &str,
) -> Result<IdObjet> {
    Ok(
        crate::depot::vigiechiro::avant_envoi::reconnaitre_plateforme(client, emetteur)
            .await
            .map_err(|r| {
                r.erreur(
                    api,
                    ErreurAvecCode::nouveau(
                        CodeSortie::RefusDefinitifs,
                        crate::depot::vigiechiro::message_jeton_refuse(),
                    ),
                    RIEN_ENVOYE,
                )
            })?
            .id,
    )
}

/// `vigie depot DOSSIER…` en saison (voir l'en-tête du module).
pub(super) fn depot_saison(g: &OptionsGlobales, args: ArgsDepot) -> Result<CodeSortie> {
    // `--point`, `--passage`, `--site NUMERO` : en saison, ils ne nomment qu'une carte brute
    // (le point de chaque nuit est lu dans les noms).
    let carte = args.identite_de_la_carte()?;
    let fuseau = Fuseau::analyser(&args.fuseau)
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    // Un numéro seul nomme une carte brute (`depot::identite_de_la_carte`).
    let carte_nommee = |v: &str| crate::cli::depot::numero_de_site(v).is_some();
    let donnes = SitesDonnes::analyser(&args.site, carte_nommee)
        .map_err(|v| ErreurAvecCode::nouveau(CodeSortie::Usage, dire::site_donne_invalide(&v)))?;
    let api = crate::connexion::adresse_api(args.api.url.as_deref())?;
    let zero = IdObjet::nul();
    let provisoire = DestinationVigieChiro::nouveau(
        &api.url,
        CibleParticipation::Existante(zero),
        args.autoriser_http,
    )?;
    let api = provisoire.api.clone();
    // Sans jeton, rien ne peut partir : dit avant d'inventorier. Une simulation sans jeton
    // montre les nuits seules.
    let jeton = crate::jeton::lire();
    if !args.simulation {
        jeton.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let provisoire = Destination::from(provisoire);
    let mut reunion = reunir(&args.dossiers, &provisoire, &carte)?;
    refuser_une_carte_sans_carte(&args, &reunion)?;
    let mut nuits = nuits_de_la_saison(g, &reunion, &fuseau)?;
    let hors_ligne = args.simulation && jeton.is_err();
    let inconnus = if hors_ligne {
        BTreeMap::new()
    } else {
        decider(g, &api, &donnes, &fuseau, &mut nuits, args.simulation)?
    };
    // Les nuits d'un site qui n'est pas à l'utilisateur (les fichiers d'un ami mêlés à la
    // carte, une faute de frappe) ne partent pas ; les nuits justes, si.
    let (ecartees, nuits): (Vec<NuitDeSaison>, Vec<NuitDeSaison>) = nuits
        .into_iter()
        .partition(|n| inconnus.contains_key(&(n.nuit.cle.site.clone(), n.nuit.cle.protocole)));
    let non_rattaches =
        dire::NonRattaches::des_ecartees(&ecartees, &inconnus, &reunion.enregistrements);
    dire::non_rattaches(g.mode_sortie(), &non_rattaches, nuits.is_empty())?;
    garder_la_saison(g, &args, &reunion, &nuits)?;
    if reunion.originaux_bruts > 0 {
        crate::suivi::depot::carte_brute(
            g.mode_sortie(),
            reunion.originaux_bruts,
            reunion.preparees.len(),
        )?;
    }
    if args.simulation {
        simuler(g, &args, (&api, &fuseau), (&nuits, &reunion), hors_ligne)?;
        return Ok(CodeSortie::Succes);
    }
    // Ce qui ne part pas est dit après le bilan, comme en mode une nuit par la même règle :
    // c'est ce que la bénévole lit avant d'effacer sa carte.
    let non_envoyes = std::mem::take(&mut reunion.non_envoyes);
    let code = deposer(g, &args, &api, &fuseau, nuits, reunion)?;
    apres_le_bilan(g, code, &non_envoyes, &non_rattaches)
}

/// `--point`, ou une carte nommée (`--site NUMERO`, `--passage`), sans carte brute dans les
/// dossiers : refus (code 2), en saison le point de chaque nuit est lu dans les noms.
fn refuser_une_carte_sans_carte(args: &ArgsDepot, reunion: &Reunion) -> Result<()> {
    if reunion.originaux_bruts > 0 || !(args.point.is_some() || args.nomme_une_carte()) {
        return Ok(());
    }
    let message = if args.point.is_some() {
        dire::POINT_EN_SAISON
    } else {
        crate::cli::depot::IDENTITE_SANS_CARTE
    };
    Err(ErreurAvecCode::nouveau(CodeSortie::Usage, message).into())
}

/// Après le bilan de la saison (sauf Ctrl-C) : ce qui ne part pas, et le rappel des fichiers
/// non rattachés (code 3 au moins s'il y en a).
fn apres_le_bilan(
    g: &OptionsGlobales,
    code: CodeSortie,
    non_envoyes: &NonEnvoyes,
    non_rattaches: &[dire::NonRattaches],
) -> Result<CodeSortie> {
    if code == CodeSortie::Interrompu {
        return Ok(code);
    }
    crate::suivi::non_envoyes::dire(g.mode_sortie(), Ou::Bilan, non_envoyes)?;
    if non_rattaches.is_empty() {
        return Ok(code);
    }
    dire::rappel_non_rattaches(g.mode_sortie(), non_rattaches)?;
    Ok(code.max_par_gravite(CodeSortie::RefusDefinitifs))
}

/// Les nuits de la réunion, datées ; un fichier d'aucune nuit, ou aucune nuit : refus (code 2).
fn nuits_de_la_saison(
    g: &OptionsGlobales,
    reunion: &Reunion,
    fuseau: &Fuseau,
) -> Result<Vec<NuitDeSaison>> {
    let regroupement = regrouper(&reunion.enregistrements);
    dire::refuser_hors_nuit(
        g.json,
        &reunion.enregistrements,
        &regroupement.nuits,
        &regroupement.hors_nuit,
    )?;
    let enregistrements = &reunion.enregistrements;
    let nuits: Vec<NuitDeSaison> = regroupement
        .nuits
        .into_iter()
        .map(|nuit| NuitDeSaison::datee(nuit, enregistrements, fuseau, chrono::Utc::now()))
        .collect();
    if nuits.is_empty() {
        return Err(ErreurAvecCode::nouveau(CodeSortie::Usage, dire::AUCUN_ENREGISTREMENT).into());
    }
    Ok(nuits)
}

/// La garde de format de la saison (`garde.rs`), avant toute création : les fichiers qui
/// restent à envoyer de chaque nuit (pas ceux que le plan d'une nuit liée a déjà déposés),
/// tous d'un coup. La commande qui prépare une nuit nomme le dossier donné qui la contient.
fn garder_la_saison(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    reunion: &Reunion,
    nuits: &[NuitDeSaison],
) -> Result<()> {
    let liees = nuits.iter().any(|n| matches!(n.sort, Sort::Liee { .. }));
    let base = if liees {
        super::base_a_lire(g, args.simulation)?
    } else {
        None
    };
    let a_garder: Vec<super::garde::NuitAGarder<'_>> = nuits
        .iter()
        .map(|n| super::garde::NuitAGarder {
            fichiers: reunion.a_garder(&n.nuit),
            plan: match &n.sort {
                Sort::Liee { plan } => Some((plan.id, plan.dossier.as_str())),
                _ => None,
            },
            nommee: Some(dire::nuit_nommee(&n.nuit.cle)),
        })
        .collect();
    super::garde::garder_les_nuits(g, &reunion.racine, &a_garder, base.as_ref(), |chemin| {
        reunion.dossier_donne(chemin, &args.dossiers).to_path_buf()
    })
}

/// Lit la plateforme et la base, et fait décider le sort de chaque nuit
/// (`saison::decision`) ; refuse (code 2) ce qui laisserait un doute, étape par étape. Rend les
/// numéros de site des noms qu'aucun site de l'utilisateur ne porte : leurs nuits restent sans
/// site, et ne partent pas.
fn decider(
    g: &OptionsGlobales,
    api: &str,
    donnes: &SitesDonnes,
    fuseau: &Fuseau,
    nuits: &mut [NuitDeSaison],
    a_blanc: bool,
) -> Result<Inconnus> {
    let client = super::vigiechiro::client(api)?;
    let numeros = decision::numeros(nuits);
    let lecture = super::vigiechiro::mener_ponctuel(async |emetteur| {
        let moi = lire_moi(&client, emetteur, api).await?;
        let plateforme = plateforme(&client, emetteur);
        plateforme
            .lire_la_saison(moi, numeros.clone(), donnes)
            .await
    })?;
    let (inconnus, ambigus) = decision::rattacher_les_sites(nuits, &lecture.sites);
    dire::refuser(g.json, api, dire::SITE_NON_TROUVE, &ambigus)?;
    let deux_fois = decision::sites_ecrits_deux_fois(&lecture.sites);
    dire::refuser(g.json, api, dire::SITE_ECRIT_DEUX_FOIS, &deux_fois)?;
    let prises = match super::base_a_lire(g, a_blanc)? {
        Some(base) => decision::lier_depuis_la_base(&base, api, fuseau, nuits)?,
        None => HashSet::new(),
    };
    let changees = decision::liees_changees(nuits, &lecture);
    dire::refuser(g.json, api, dire::PARTICIPATION_LIEE_CHANGEE, &changees)?;
    let candidates = decision::candidates(nuits, &lecture, &prises, fuseau);
    let titres = if candidates.a_prouver.is_empty() {
        HashMap::new()
    } else {
        super::vigiechiro::mener_ponctuel(async |emetteur| {
            let plateforme = plateforme(&client, emetteur);
            plateforme.premiers_titres(&candidates.a_prouver).await
        })?
    };
    let a = decision::attribuer_les_nuits(nuits, candidates, &titres, &lecture.moi, fuseau);
    for avertissement in &a.avertissements {
        dire::avertir_attribution(g.mode_sortie(), api, avertissement)?;
    }
    dire::refuser(g.json, api, dire::PARTICIPATION_INCERTAINE, &a.refus)?;
    Ok(inconnus)
}

/// La plateforme lue par `client` et `emetteur`, ses lectures manquées dites par `suivi`.
fn plateforme<'a>(
    client: &'a ClientVigieChiro,
    emetteur: &'a crate::transport::Emetteur,
) -> Plateforme<'a> {
    Plateforme {
        client,
        emetteur,
        manquee: dire::lecture_impossible,
    }
}

/// Le type et le numéro de série que dit un nom d'enregistreur (`preparation::materiel`) ;
/// `None` s'il ne dit pas de type.
fn enregistreur_du_nom(nom: &str) -> Option<(String, Option<String>)> {
    let e = crate::preparation::materiel::par_le_nom(nom);
    Some((e.type_enregistreur?, e.numero_serie))
}

fn deposer(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    api: &str,
    fuseau: &Fuseau,
    nuits: Vec<NuitDeSaison>,
    reunion: Reunion,
) -> Result<CodeSortie> {
    // Le verrou de chaque saison touchée, tenu jusqu'à la fin de la course : un second
    // `vigie` sur la même saison s'arrête ici (code 4), avant d'avoir rien écrit.
    let options = description_des_options(args)?;
    let annees: BTreeSet<u16> = nuits.iter().map(|n| n.nuit.cle.annee).collect();
    let _verrous =
        verrouiller_saisons(&super::chemin_base(g)?, api, &annees, dire::saison_occupee)?;
    dire::annoncer_nuits(g.mode_sortie(), api, &nuits, &reunion.enregistrements)?;
    let mut base = super::ouvrir_base(g)?;
    let saison = Saison {
        api,
        fuseau,
        reunion: &reunion,
        a_blanc: false,
        redeposer_modifies: args.redeposer_modifies,
    };
    let mut planifiees = Vec::with_capacity(nuits.len());
    for n in &nuits {
        let description = description_de_la_nuit(&options, n, &reunion, enregistreur_du_nom);
        planifiees.push(planifier_la_nuit(g, &saison, &mut base, n, description)?);
    }
    // L'inventaire de la saison n'a plus d'usage : la course lit chaque nuit dans la base.
    drop(nuits);
    drop(reunion);
    retenir_puis_envoyer(
        g,
        (&args.passages, &args.s3),
        api,
        planifiees,
        &args.envoi,
        base,
    )
}

/// `--simulation` : les nuits, ce que le dépôt enverrait ([`a_envoyer_a_blanc`] ; hors ligne,
/// les nuits ne sont pas rapprochées de leur plan : toutes partiraient), ce qui ne part pas.
fn simuler(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    (api, fuseau): (&str, &Fuseau),
    (nuits, reunion): (&[NuitDeSaison], &Reunion),
    hors_ligne: bool,
) -> Result<()> {
    let a_envoyer = if hors_ligne {
        let octets = nuits
            .iter()
            .map(|n| n.octets(&reunion.enregistrements))
            .sum();
        (reunion.enregistrements.len(), octets)
    } else {
        a_envoyer_a_blanc(g, args, (api, fuseau), nuits, reunion)?
    };
    let m = g.mode_sortie();
    dire::simulation(
        m,
        api,
        nuits,
        &reunion.enregistrements,
        a_envoyer,
        hors_ligne,
    )?;
    crate::suivi::non_envoyes::dire(m, Ou::Bilan, &reunion.non_envoyes)?;
    Ok(())
}

fn description_des_options(args: &ArgsDepot) -> Result<crate::description::Description> {
    Ok(args
        .description
        .description()
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?)
}

/// `--simulation` : ce que le dépôt enverrait. Les nuits sont planifiées comme il le ferait
/// ([`planifier_la_nuit`]), sur une copie en mémoire de la base (rien n'est écrit, aucun
/// verrou n'est pris) ; puis `Plateforme::a_envoyer` retire ce que la participation de
/// chaque nuit a déjà. Une carte déjà déposée, vue depuis un autre chemin (en `F:` au lieu de
/// `E:`, ou montée ailleurs), n'a donc rien à envoyer. Rend (fichiers, octets).
fn a_envoyer_a_blanc(
    g: &OptionsGlobales,
    args: &ArgsDepot,
    (api, fuseau): (&str, &Fuseau),
    nuits: &[NuitDeSaison],
    reunion: &Reunion,
) -> Result<(usize, u64)> {
    let options = description_des_options(args)?;
    let mut base = Base::ouvrir_a_blanc(&super::chemin_base(g)?)?;
    let saison = Saison {
        api,
        fuseau,
        reunion,
        a_blanc: true,
        redeposer_modifies: args.redeposer_modifies,
    };
    let mut par_participation = Vec::with_capacity(nuits.len());
    for n in nuits {
        let description = description_de_la_nuit(&options, n, reunion, enregistreur_du_nom);
        let p = planifier_la_nuit(g, &saison, &mut base, n, description)?;
        let participation = participation_du_plan(&p.plan).and_then(|id| IdObjet::analyser(&id));
        par_participation.push((participation, base.partiraient(p.plan.id)?));
    }
    let client = super::vigiechiro::client(api)?;
    super::vigiechiro::mener_ponctuel(async |emetteur| {
        Ok(plateforme(&client, emetteur)
            .a_envoyer(&par_participation)
            .await)
    })
}

/// Une nuit de la saison planifiée (`saison::planification`) et liée à sa saison dans la
/// base, son plan verrouillé ; la montée de sa racine et ses fichiers changés, dits.
fn planifier_la_nuit(
    g: &OptionsGlobales,
    s: &Saison<'_>,
    base: &mut Base,
    n: &NuitDeSaison,
    description: crate::description::Description,
) -> Result<NuitAEnvoyer> {
    let libelle = libelle_court(&n.nuit.cle);
    let p = preparer_la_nuit(
        s,
        base,
        n,
        (&libelle, description),
        Enregistrement::planifiable,
    )?;
    if let (Some(nouvelle), Sort::Liee { plan }) = (&p.montee, &n.sort)
        && !s.a_blanc
    {
        dire::racine_montee(g.mode_sortie(), &libelle, plan, nouvelle)?;
    }
    let (nuit, modifiees) = planifier_et_lier(s, base, n, p, libelle)?;
    if modifiees > 0 {
        dire::avertir_modifies(g.mode_sortie(), modifiees, &nuit.libelle)?;
    }
    Ok(nuit)
}

/// Les réglages donnés fusionnés avec ceux de la saison ([`reglages_de_la_saison`]), retenus
/// par chaque nuit (une relance les reprend), puis la course.
fn retenir_puis_envoyer(
    g: &OptionsGlobales,
    options: (&OptionsPassages, &OptionsS3),
    api: &str,
    planifiees: Vec<NuitAEnvoyer>,
    envoi: &OptionsEnvoi,
    base: Base,
) -> Result<CodeSortie> {
    let retenus = reglages_de_la_saison(&base, &planifiees)?;
    if retenus.len() > 1 && envoi.explicites.is_empty() {
        let message = dire::reglages_differents(&retenus, super::reglages::lisibles);
        return Err(ErreurAvecCode::nouveau(CodeSortie::Usage, message).into());
    }
    let retenus = retenus
        .into_iter()
        .next()
        .map(|(r, _)| r)
        .unwrap_or_default();
    let mut reglages = super::reglages::fusionner(envoi, &retenus);
    reglages.annonce.de_la_saison = true;
    let donnes = !envoi.explicites.is_empty();
    retenir_les_reglages(&base, &planifiees, &reglages.retenus, donnes)?;
    let chemin_base = base.chemin().to_owned();
    drop(base);
    envoyer_saison(g, options, api, planifiees, &reglages, &chemin_base)
}

/// La course d'une saison vue par `vigie` (`saison::course`) : les créations et l'envoi de
/// chaque nuit sous les mêmes réglages, ce qui s'en dit, le bilan.
struct CourseDeLaCommande<'a, 'e> {
    g: &'a OptionsGlobales,
    api: &'a str,
    regle: super::passages::ReglePassages,
    rt: tokio::runtime::Runtime,
    commune: Envoi<'e>,
    /// L'utilisateur, lu une fois : la réconciliation d'une création ne retient que les
    /// siennes.
    moi: Option<IdObjet>,
    chemin_base: &'a Path,
}

/// Les créations d'abord (toutes, avant le premier octet), puis l'envoi nuit après nuit
/// (`saison::course`).
fn envoyer_saison(
    g: &OptionsGlobales,
    options: (&OptionsPassages, &OptionsS3),
    api: &str,
    planifiees: Vec<NuitAEnvoyer>,
    reglages: &super::reglages::ReglagesFusionnes,
    chemin_base: &Path,
) -> Result<CodeSortie> {
    let (passages, s3) = options;
    let regle = super::passages::ReglePassages::depuis(passages)?;
    let client = super::vigiechiro::client(api)?;
    let premiere = planifiees
        .first()
        .map(|p| p.destination.clone())
        .context("aucune nuit")?;
    let mut commune = Envoi::nouveau(reglages.options.parametres(s3)?, &premiere);
    commune.annonce = reglages.annonce.clone();
    let rt = super::moteur(super::Fils::Plusieurs)?;
    let moi = rt.block_on(async {
        let emetteur = commune.emetteur_seul(crate::reessai::Annulation::nouveau());
        crate::depot::vigiechiro::avant_envoi::reconnaitre_plateforme(&client, &emetteur)
            .await
            .ok()
            .map(|u| u.id)
    });
    let c = CourseDeLaCommande {
        g,
        api,
        regle,
        rt,
        commune,
        moi,
        chemin_base,
    };
    course::mener(&c, planifiees)
}

impl Course for CourseDeLaCommande<'_, '_> {
    fn base(&self) -> Result<Base> {
        Ok(Base::ouvrir(self.chemin_base)?)
    }

    fn jusqu_au_bout(&self) -> bool {
        self.regle.jusqu_au_bout()
    }

    fn creer(
        &self,
        base: &Base,
        plan: &DepotPlan,
        dest: &DestinationVigieChiro,
    ) -> Result<IdObjet> {
        let creer = super::vigiechiro::resoudre_participation(
            &self.commune,
            (base, plan),
            dest,
            self.moi.as_ref(),
        );
        self.rt.block_on(creer)
    }

    fn dire(&self, nuit: &NuitAEnvoyer, creation: Creation<'_>) -> Result<()> {
        dire::creation(self.g.mode_sortie(), self.api, nuit, creation)
    }

    /// Une seule course pour toutes les nuits, sous les mêmes réglages, le même plafond de
    /// parallélisme et le même seau `--debit-max` ([`envois_des_nuits`]). Avec
    /// `--jusqu-au-bout`, un passage envoie toutes les nuits qui ont encore à tenter, et la
    /// pause vient entre deux passages de la saison.
    fn courir(&self, base: Base, course: &[(NuitAEnvoyer, bool)]) -> Result<CodeSortie> {
        let destinations = course.iter().map(|(p, _)| &p.destination);
        let envois = envois_des_nuits(&self.commune, destinations, self.moi.as_ref());
        let nuits: Vec<super::passages::NuitDeLaCourse<'_, '_>> = course
            .iter()
            .zip(&envois)
            .map(|((p, d), envoi)| super::passages::NuitDeLaCourse {
                plan: p.plan.clone(),
                envoi,
                des_le_premier_passage: *d,
            })
            .collect();
        let entete = |plan: &DepotPlan| {
            if let Some((p, _)) = course.iter().find(|(p, _)| p.plan.id == plan.id) {
                let _ = dire::entete_de_nuit(self.g.mode_sortie(), &p.libelle, plan.id);
            }
        };
        let enchainer =
            super::passages::enchainer_saison(self.g, &self.regle, &nuits, base, &entete);
        self.rt.block_on(enchainer)
    }

    /// Le bilan de la saison : **toutes** ses nuits (celles de la commande, `plans`, et les
    /// autres nuits de leurs saisons : déposées, entamées, pas commencées), une ligne chacune,
    /// puis la seule commande qui reprend ce qui reste (`suivi::reprise`), ou `vigie traiter`.
    fn bilan(&self, plans: &[i64]) -> Result<()> {
        if self.g.quiet && !self.g.json {
            return Ok(());
        }
        let nuits = nuits_des_saisons(&self.base()?, plans)?;
        dire::bilan_des_nuits(self.g.mode_sortie(), self.api, nuits)
    }
}

/// L'envoi de chaque nuit : `commune.vers(…)`, donc les mêmes réglages d'émission, la même
/// annonce, le même plafond `--paralleles` et **le même seau `--debit-max`** pour toutes les
/// nuits de la course (la limite vaut pour la saison, pas pour chaque nuit).
fn envois_des_nuits<'b>(
    commune: &'b Envoi<'_>,
    destinations: impl Iterator<Item = &'b Destination>,
    moi: Option<&IdObjet>,
) -> Vec<Envoi<'b>> {
    destinations
        .map(|d| {
            let mut envoi = commune.vers(d);
            envoi.moi = moi.cloned();
            envoi
        })
        .collect()
}

/// Les nuits de saison que `vigie retenter-echecs` reprend (`saison::planification`).
pub(super) fn nuits_a_retenter(
    g: &OptionsGlobales,
    args: &ArgsRetenter,
) -> Result<Option<Vec<crate::plan::NuitPlanifiee>>> {
    nuits_a_retenter_de(&super::ouvrir_base_existante(g)?, args.plan)
}

/// `vigie retenter-echecs` sur des nuits de saison : la nuit N, ou, sans argument, toute la
/// saison du dernier plan. Chaque nuit est réinventoriée depuis sa racine, mais **seuls les
/// fichiers de cette nuit** (d'après leur nom, archives de son dossier comprises) y sont
/// replanifiés : la racine d'une nuit peut contenir d'autres nuits (deux enregistreurs dans
/// deux dossiers voisins), qui ne doivent pas partir dans sa participation.
pub(super) fn retenter_saison(
    g: &OptionsGlobales,
    args: &ArgsRetenter,
    nuits: Vec<crate::plan::NuitPlanifiee>,
) -> Result<CodeSortie> {
    crate::jeton::lire()?;
    let api = nuits
        .first()
        .map(|n| n.api.clone())
        .context("aucune nuit")?;
    // Le verrou de la saison, comme `vigie depot` : pas deux `vigie` sur la même saison.
    let annees: BTreeSet<u16> = nuits.iter().map(|n| n.annee).collect();
    let _verrous =
        verrouiller_saisons(&super::chemin_base(g)?, &api, &annees, dire::saison_occupee)?;
    let mut base = super::ouvrir_base(g)?;
    let plans = nuits
        .iter()
        .map(|n| base.plan(Some(n.plan_id)))
        .collect::<Result<Vec<DepotPlan>, _>>()?;
    verifier_liees(g, &api, &nuits, &plans)?;
    let liees = garder_les_liees(g, &base, &nuits, plans)?;
    let reprise = Reprise {
        y_compris_definitifs: args.y_compris_definitifs,
        libelle: libelle_liee,
    };
    let (planifiees, nouvelles) = replanifier_les_liees(&mut base, &nuits, liees, &reprise)?;
    // Une nuit nouvelle n'a pas de participation : ni déposée dans une autre, ni ignorée
    // sans un mot.
    if let Some((nouvelles, dossiers)) = nouvelles.comptes() {
        dire::nuits_nouvelles(g.mode_sortie(), &nouvelles, &dossiers)?;
    }
    retenir_puis_envoyer(
        g,
        (&args.passages, &args.s3),
        &api,
        planifiees,
        &args.envoi,
        base,
    )
}

/// Chaque nuit inventoriée et gardée (garde de format, `garde.rs`) avant toute écriture : un
/// fichier ajouté depuis à une nuit connue part avec elle, il est jugé comme au dépôt.
fn garder_les_liees<'n>(
    g: &OptionsGlobales,
    base: &Base,
    nuits: &'n [crate::plan::NuitPlanifiee],
    plans: Vec<DepotPlan>,
) -> Result<Vec<Reinventoriee<'n>>> {
    let mut preparees = Vec::with_capacity(nuits.len());
    for (n, plan) in nuits.iter().zip(plans) {
        let destination = Destination::du_plan(&plan)?;
        let carte = crate::preparation::carte::identite_du_plan(&base.unites(plan.id, &[])?);
        let preparation = preparer(
            Path::new(&plan.dossier),
            &destination,
            Horodatages::Juges,
            &carte,
        )?;
        let regroupement = regrouper(&preparation.inventaire.enregistrements);
        let a_garder = super::garde::NuitAGarder {
            fichiers: indices_de_la_liee(n, &regroupement)
                .map(|i| &preparation.inventaire.enregistrements[i])
                .collect(),
            plan: Some((plan.id, plan.dossier.as_str())),
            nommee: None,
        };
        super::garde::garder_les_nuits(
            g,
            Path::new(&plan.dossier),
            &[a_garder],
            Some(base),
            |_| PathBuf::from(&plan.dossier),
        )?;
        preparees.push(Reinventoriee {
            nuit: n,
            plan,
            destination,
            fichiers: preparation.fichiers,
            enregistrements: preparation.inventaire.enregistrements,
            regroupement,
        });
    }
    Ok(preparees)
}

/// Avant toute écriture d'une relance (`retenter-echecs`), comme `vigie depot` (voir
/// [`decider`]) : la participation de chaque nuit liée doit encore être sur la plateforme, et à
/// l'utilisateur. La plateforme accepterait qu'on dépose dans celle d'un autre observateur, et
/// ne permet pas d'en retirer un fichier : une participation supprimée ou donnée à un autre sur
/// le site web est un refus (code 2) qui nomme ses nuits, et rien ne part, ni là ni ailleurs.
/// Une nuit dont la participation reste à créer (création reportée) n'a rien à vérifier : sa
/// création se réconcilie par la relecture de son site.
fn verifier_liees(
    g: &OptionsGlobales,
    api: &str,
    nuits: &[crate::plan::NuitPlanifiee],
    plans: &[DepotPlan],
) -> Result<()> {
    let liees = decision::liees_a_verifier(nuits, plans)?;
    if liees.is_empty() {
        return Ok(());
    }
    let client = super::vigiechiro::client(api)?;
    let sites: BTreeSet<IdObjet> = liees.iter().map(|(_, _, site, _)| site.clone()).collect();
    let (moi, participations) = super::vigiechiro::mener_ponctuel(async |emetteur| {
        let moi = lire_moi(&client, emetteur, api).await?;
        let plateforme = plateforme(&client, emetteur);
        let participations = plateforme.participations_des_sites(sites.clone()).await?;
        Ok((moi, participations))
    })?;
    let refuses = decision::liees_changees_a_la_relance(&liees, &participations, &moi);
    dire::refuser(g.json, api, dire::PARTICIPATION_LIEE_CHANGEE, &refuses)
}

#[cfg(test)]
mod tests_course {
    use super::*;
    use crate::cli::{Cli, Commande};
    use clap::FromArgMatches;
    use std::time::Duration;

    /// Deux nuits de la course réservent dans le seau `--debit-max` : ce que l'une prend, l'autre
    /// l'attend. Horloge de tokio en pause : le seau ne se remplit pas entre deux réservations,
    /// seuls les octets comptent.
    #[tokio::test(start_paused = true)]
    async fn le_seau_debit_max_est_celui_de_toutes_les_nuits() {
        let ligne = ["vigie", "depot", "/saison", "--debit-max", "8Ko/s"];
        let m = crate::cli::commande().try_get_matches_from(ligne).unwrap();
        let _ = Cli::from_arg_matches(&m).unwrap();
        let Commande::Depot(args) = Cli::depuis_correspondances(&m).unwrap().commande else {
            unreachable!("une commande depot")
        };
        let nuits = [
            "vigiechiro:participation/64a1b2c3d4e5f60718293d01",
            "vigiechiro:participation/64a1b2c3d4e5f60718293d02",
            "vigiechiro:participation/64a1b2c3d4e5f60718293d03",
        ]
        .map(|d| Destination::from(DestinationVigieChiro::relire(d).unwrap()));
        let commune = Envoi::nouveau(args.envoi.parametres(&args.s3).unwrap(), &nuits[0]);
        let envois = envois_des_nuits(&commune, nuits.iter(), None);
        let seau = |i: usize| envois[i].seau().expect("--debit-max donné");
        // 8 Ko/s : le seau tient une tranche d'avance, 4 Kio (4 096 octets).
        assert_eq!(seau(0).reserver(4096), Duration::ZERO, "le seau est plein");
        // La nuit suivante trouve le seau vide : 4 000 octets attendent 0,5 s à 8 000 o/s.
        // Un seau par nuit les aurait laissés partir aussitôt.
        assert_eq!(seau(1).reserver(4000), Duration::from_millis(500));
        // Et la troisième attend la dette des deux autres : 8 000 octets, 1 s.
        assert_eq!(seau(2).reserver(4000), Duration::from_secs(1));
    }
}

#[cfg(test)]
mod tests_reunion {
    use super::*;

    fn saison_de_deux_enregistreurs() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let racine = d.path().join("Saison2026");
        for (enregistreur, heure) in [("PA1", "213000"), ("PA1", "223000"), ("PA2", "213500")] {
            let dossier = racine.join(enregistreur);
            std::fs::create_dir_all(&dossier).unwrap();
            let nom = format!("Car640380-2026-Pass1-A1-{enregistreur}_20260621_{heure}_000.wav");
            std::fs::write(dossier.join(nom), b"RIFF").unwrap();
        }
        (d, racine)
    }

    fn provisoire() -> Destination {
        let zero = IdObjet::nul();
        Destination::from(
            DestinationVigieChiro::nouveau(
                crate::destination::API_VIGIECHIRO,
                CibleParticipation::Existante(zero),
                false,
            )
            .unwrap(),
        )
    }

    fn chemins(r: &Reunion) -> Vec<&str> {
        r.enregistrements
            .iter()
            .map(|e| e.chemin.as_str())
            .collect()
    }

    #[test]
    fn un_dossier_et_son_sous_dossier_chaque_fichier_une_fois() {
        let (_d, racine) = saison_de_deux_enregistreurs();
        let r = reunir(
            &[racine.clone(), racine.join("PA1"), racine.clone()],
            &provisoire(),
            &Identite::default(),
        )
        .unwrap();
        assert_eq!(
            r.racine,
            crate::plateforme::chemins::canonique(&racine).unwrap()
        );
        assert_eq!(
            chemins(&r),
            [
                "PA1/Car640380-2026-Pass1-A1-PA1_20260621_213000_000.wav",
                "PA1/Car640380-2026-Pass1-A1-PA1_20260621_223000_000.wav",
                "PA2/Car640380-2026-Pass1-A1-PA2_20260621_213500_000.wav",
            ]
        );
    }

    #[test]
    fn deux_dossiers_voisins_reunis_sous_leur_ancetre() {
        let (_d, racine) = saison_de_deux_enregistreurs();
        let r = reunir(
            &[racine.join("PA2"), racine.join("PA1")],
            &provisoire(),
            &Identite::default(),
        )
        .unwrap();
        assert_eq!(
            r.racine,
            crate::plateforme::chemins::canonique(&racine).unwrap()
        );
        assert_eq!(
            chemins(&r),
            [
                "PA2/Car640380-2026-Pass1-A1-PA2_20260621_213500_000.wav",
                "PA1/Car640380-2026-Pass1-A1-PA1_20260621_213000_000.wav",
                "PA1/Car640380-2026-Pass1-A1-PA1_20260621_223000_000.wav",
            ]
        );
    }
}
