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

use super::depot::{
    Horodatages, RIEN_ENVOYE, examiner, fichier_planifie, planifier_en_relisant, preparer,
    refuser_les_empechements,
};
use super::envoi::Envoi;
use crate::cli::{
    ArgsDepot, ArgsRetenter, OptionsEnvoi, OptionsGlobales, OptionsPassages, OptionsS3,
};
use crate::destination::{CibleParticipation, Destination, DestinationVigieChiro, IdObjet};
use crate::horodatage::InstantUtc;
use crate::inventaire::{Enregistrement, NonEnvoyes};
use crate::plan::{
    Base, DepotPlan, FichierPlanifie, ReglagesRetenus, SequencePreparee, VerrouPlan,
};
use crate::reessai::ReponseApi;
use crate::saison::correspondance::{
    IssueNuit, NuitDatee, ParticipationVue, Verdict, attribuer, bornes_par_modification,
    date_plateforme, verdict,
};
use crate::saison::fuseau::Fuseau;
use crate::saison::nuits::{Nuit, Protocole, bornes_utc, regrouper};
use crate::saison::sites::{Rapprochement, SiteConnu, numero_proche, rapprocher};
use crate::saison::sort::{NuitDeSaison, Sort, meme_nuit, participation_du_plan};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::calcul::ModeSortie;
use crate::suivi::non_envoyes::Ou;
use crate::suivi::saison::{self as dire, Refus, libelle_court, libelle_liee};
use crate::transport::vigiechiro::{ClientVigieChiro, ParticipationLue};

/// Les dossiers de la commande, inventoriés, validés et réunis sous leur ancêtre commun.
/// Seuls les enregistrements y sont gardés (chemin, taille, date) : les fichiers
/// planifiables (clé, identité relevée) se fabriquent une nuit à la fois, au moment de la
/// planifier, pour que la mémoire ne croisse pas avec la saison entière.
struct Reunion {
    /// L'ancêtre commun (chemin canonique).
    racine: PathBuf,
    /// Les dossiers donnés, canoniques.
    dossiers: Vec<PathBuf>,
    /// Les enregistrements, chemins relatifs à `racine`.
    enregistrements: Vec<Enregistrement>,
    /// Ce qui ne part pas (vides, liens, autres fichiers), chemins relatifs à `racine` : dit
    /// au bilan, par la règle du mode une nuit.
    non_envoyes: NonEnvoyes,
    /// Les séquences des cartes brutes préparées au fil de l'envoi (`preparation::au_fil`,
    /// reconnues par [`examiner`] comme en mode une nuit), par leur chemin ; l'original de
    /// chacune, lui aussi relatif à `racine`.
    preparees: HashMap<String, SequencePreparee>,
    /// Le nombre d'originaux de ces cartes brutes.
    originaux_bruts: usize,
}

impl Reunion {
    /// Les chemins que la nuit lit (relatifs à `racine`) : ses fichiers, et l'original de
    /// chacune de ses séquences préparées au fil de l'envoi.
    fn chemins_lus<'r>(&'r self, nuit: &'r Nuit) -> impl Iterator<Item = &'r str> {
        nuit.fichiers.iter().flat_map(move |&i| {
            let chemin = self.enregistrements[i].chemin.as_str();
            let original = self.preparees.get(chemin).map(|p| p.source.as_str());
            std::iter::once(chemin).chain(original)
        })
    }
}

/// L'ancêtre commun de deux chemins absolus.
fn ancetre_commun(a: &Path, b: &Path) -> PathBuf {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// `chemin` relatif à `racine`, séparateur `/` (`""` : la racine elle-même).
fn relatif(chemin: &Path, racine: &Path) -> Option<String> {
    let reste = chemin.strip_prefix(racine).ok()?;
    let parties: Option<Vec<&str>> = reste.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parties?.join("/"))
}

fn reunir(dossiers: &[PathBuf], provisoire: &Destination) -> Result<Reunion> {
    // Tous les dossiers examinés, puis tout ce qui empêche le dépôt dit d'un coup.
    let mut examens = Vec::with_capacity(dossiers.len());
    for d in dossiers {
        examens.push(examiner(d, provisoire, Horodatages::Juges)?);
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
    let a_dire: Vec<(&str, &super::depot::Examen)> =
        prefixes.iter().map(String::as_str).zip(&examens).collect();
    refuser_les_empechements(&a_dire)?;
    let mut inventaires = Vec::with_capacity(dossiers.len());
    let mut canoniques = Vec::with_capacity(dossiers.len());
    let mut preparees_par_dossier = Vec::with_capacity(dossiers.len());
    let mut originaux_bruts = 0;
    for examen in examens {
        inventaires.push(examen.inventaire);
        canoniques.push(PathBuf::from(examen.dossier));
        preparees_par_dossier.push(examen.preparees);
        originaux_bruts += examen.originaux_bruts.unwrap_or(0);
    }
    let racine = canoniques
        .iter()
        .skip(1)
        .fold(canoniques[0].clone(), |a, b| ancetre_commun(&a, b));
    // Un dossier donné deux fois, ou l'un dans l'autre : chaque fichier une fois. Des dossiers
    // dont aucun ne contient l'autre n'ont pas un chemin en commun : rien à retenir alors.
    let chevauchent = canoniques.iter().enumerate().any(|(i, a)| {
        canoniques[i + 1..]
            .iter()
            .any(|b| a.starts_with(b) || b.starts_with(a))
    });
    let mut vus = HashSet::new();
    let mut enregistrements: Vec<Enregistrement> = Vec::new();
    let mut non_envoyes = NonEnvoyes::default();
    let mut preparees = HashMap::new();
    for ((inventaire, dossier), sequences) in inventaires
        .into_iter()
        .zip(&canoniques)
        .zip(preparees_par_dossier)
    {
        let prefixe = relatif(dossier, &racine).with_context(|| {
            format!("chemin du dossier {} (pas de l'UTF-8 ?)", dossier.display())
        })?;
        non_envoyes.ajouter(inventaire.non_envoyes(&prefixe));
        let sous = |chemin: String| {
            if prefixe.is_empty() {
                chemin
            } else {
                format!("{prefixe}/{chemin}")
            }
        };
        for (chemin, mut p) in sequences {
            p.source = sous(p.source);
            preparees.entry(sous(chemin)).or_insert(p);
        }
        if enregistrements.is_empty() && prefixe.is_empty() && !chevauchent {
            // Le cas d'un seul dossier : ses enregistrements tels quels, sans copie.
            enregistrements = inventaire.enregistrements;
            continue;
        }
        enregistrements.reserve(inventaire.enregistrements.len());
        for mut e in inventaire.enregistrements {
            e.chemin = sous(e.chemin);
            if chevauchent && !vus.insert(e.chemin.clone()) {
                continue;
            }
            enregistrements.push(e);
        }
    }
    Ok(Reunion {
        racine,
        dossiers: canoniques,
        enregistrements,
        non_envoyes,
        preparees,
        originaux_bruts,
    })
}

/// La racine d'une nuit : le dossier commun à tous les fichiers qu'elle lit (relatif à la
/// réunion) ; celle d'une carte brute, au-dessus de ses originaux comme des dossiers de nuit
/// de ses séquences.
fn racine_de_nuit(nuit: &Nuit, reunion: &Reunion) -> String {
    let mut commun: Option<&str> = None;
    for chemin in reunion.chemins_lus(nuit) {
        let dossier = chemin.rsplit_once('/').map_or("", |(d, _)| d);
        commun = Some(match commun {
            None => dossier,
            Some(c) => dossier_commun(c, dossier),
        });
    }
    commun.unwrap_or_default().to_owned()
}

/// Le plus long dossier commun à deux dossiers relatifs (séparateur `/`, `""` : la racine),
/// composant par composant : `a/b` et `a/bc` n'ont en commun que `a`.
fn dossier_commun<'a>(a: &'a str, b: &str) -> &'a str {
    // Le cas ordinaire, sans rien découper : `b` est `a` ou sous `a`.
    if b.strip_prefix(a)
        .is_some_and(|reste| reste.is_empty() || a.is_empty() || reste.starts_with('/'))
    {
        return a;
    }
    let mut fin = 0;
    for (x, y) in a.split('/').zip(b.split('/')) {
        if x != y {
            break;
        }
        fin += x.len() + 1;
    }
    &a[..fin.saturating_sub(1).min(a.len())]
}

/// `--site` en saison : `ID` (préféré en cas d'ambiguïté) ou `NUMERO=ID` (imposé).
struct SitesDonnes {
    preferes: Vec<IdObjet>,
    imposes: HashMap<String, IdObjet>,
}

fn sites_donnes(valeurs: &[String]) -> Result<SitesDonnes> {
    let mut s = SitesDonnes {
        preferes: Vec::new(),
        imposes: HashMap::new(),
    };
    let invalide = |v: &str| -> anyhow::Error {
        ErreurAvecCode::nouveau(CodeSortie::Usage, dire::site_donne_invalide(v)).into()
    };
    for v in valeurs {
        match v.split_once('=') {
            Some((numero, id)) => {
                let id = IdObjet::analyser(id.trim()).ok_or_else(|| invalide(v))?;
                let numero = numero.trim();
                if numero.is_empty() || !numero.bytes().all(|o| o.is_ascii_digit()) {
                    return Err(invalide(v));
                }
                s.imposes.insert(numero.to_owned(), id);
            }
            None => s
                .preferes
                .push(IdObjet::analyser(v.trim()).ok_or_else(|| invalide(v))?),
        }
    }
    Ok(s)
}

/// Pourquoi le numéro de site des noms ne donne pas un site.
#[derive(Clone)]
enum SiteNonTrouve {
    /// Plusieurs sites conviennent : le refus à dire (`--site` choisit).
    Ambigu(String),
    /// Aucun de ses sites : ses fichiers ne partent pas, les autres nuits si ;
    /// `suggestion` : le numéro d'un de ses sites à une faute de frappe près.
    Absent { suggestion: Option<String> },
}

/// Ce que la plateforme a dit, avant toute écriture.
struct Lecture {
    moi: IdObjet,
    /// Le site de chaque (numéro, protocole), ou pourquoi il n'y en a pas.
    sites: BTreeMap<(String, Protocole), Result<IdObjet, SiteNonTrouve>>,
    /// Les participations de chaque site retenu.
    participations: HashMap<IdObjet, Vec<ParticipationLue>>,
}

/// Une lecture de la plateforme, ou l'erreur (transitoire) qui dit pourquoi elle manque.
pub(super) async fn lire_ou_dire<T, Fut>(
    emetteur: &crate::transport::Emetteur,
    cible: &str,
    mut tentative: impl FnMut() -> Fut,
) -> Result<T>
where
    Fut: Future<Output = ReponseApi<T>>,
{
    let lecture = crate::transport::Emission::lecture("GET", cible);
    let issue = crate::transport::emettre(emetteur, lecture, |_| tentative()).await;
    match issue.reponse {
        ReponseApi::Succes(v) => Ok(v),
        autre => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            dire::lecture_impossible(
                cible,
                &crate::depot::vigiechiro::participation::pas_de_reponse_utile(&autre),
            ),
        )
        .into()),
    }
}

/// L'utilisateur du jeton (`GET /moi`), ou l'erreur qui dit pourquoi rien n'est parti.
pub(super) async fn lire_moi(
    client: &ClientVigieChiro,
    emetteur: &crate::transport::Emetteur,
    api: &str,
) -> Result<IdObjet> {
    Ok(super::vigiechiro::reconnaitre_plateforme(client, emetteur)
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
        .id)
}

/// Les participations de chacun de ces sites (tous observateurs).
async fn participations_des_sites(
    client: &ClientVigieChiro,
    emetteur: &crate::transport::Emetteur,
    sites: BTreeSet<IdObjet>,
) -> Result<HashMap<IdObjet, Vec<ParticipationLue>>> {
    let mut participations = HashMap::new();
    for site in sites {
        let cible = format!("/sites/{site}/participations");
        let liste = lire_ou_dire(emetteur, &cible, || client.participations_du_site(&site)).await?;
        participations.insert(site, liste);
    }
    Ok(participations)
}

/// La participation `id` d'une nuit liée (`libelle`, plan `plan`), cherchée parmi celles de son
/// site : le refus à dire si elle n'y est plus (supprimée) ou n'est plus à `moi` (donnée à un
/// autre observateur sur le site web), rien sinon.
fn refus_de_liee(
    du_site: Option<&Vec<ParticipationLue>>,
    moi: &IdObjet,
    id: &str,
    libelle: &str,
    plan: i64,
) -> Option<String> {
    match du_site.and_then(|liste| liste.iter().find(|p| p.id.as_str() == id)) {
        None => Some(dire::participation_liee_disparue(libelle, id, plan)),
        Some(p) if p.observateur.as_ref() != Some(moi) => Some(dire::participation_liee_d_autrui(
            libelle,
            id,
            plan,
            p.pseudo.as_deref(),
        )),
        Some(_) => None,
    }
}

async fn lire_plateforme(
    client: &ClientVigieChiro,
    emetteur: &crate::transport::Emetteur,
    api: &str,
    numeros: BTreeSet<(String, Protocole)>,
    donnes: &SitesDonnes,
) -> Result<Lecture> {
    let moi = lire_moi(client, emetteur, api).await?;
    let propres: Vec<SiteConnu> =
        lire_ou_dire(emetteur, "/moi/sites", || client.mes_sites()).await?;
    let mut de_ses_participations: Option<Vec<SiteConnu>> = None;
    let mut sites = BTreeMap::new();
    for (numero, protocole) in numeros {
        if let Some(id) = donnes.imposes.get(&numero) {
            sites.insert((numero, protocole), Ok(id.clone()));
            continue;
        }
        let mut r = rapprocher(&numero, protocole, &propres, &[]);
        if r == Rapprochement::Absent {
            if de_ses_participations.is_none() {
                let liste = lire_ou_dire(emetteur, "/moi/participations", || {
                    client.mes_participations()
                })
                .await?;
                de_ses_participations = Some(liste.into_iter().filter_map(|p| p.site).collect());
            }
            r = rapprocher(
                &numero,
                protocole,
                &propres,
                de_ses_participations.as_deref().unwrap_or_default(),
            );
        }
        let issue = match r {
            Rapprochement::Trouve(s) => Ok(s.id.clone()),
            Rapprochement::Ambigu(liste) => {
                match liste.iter().find(|s| donnes.preferes.contains(&s.id)) {
                    Some(s) => Ok(s.id.clone()),
                    None => Err(SiteNonTrouve::Ambigu(dire::site_ambigu(&numero, &liste))),
                }
            }
            Rapprochement::Absent => {
                let tous: Vec<SiteConnu> = propres
                    .iter()
                    .chain(de_ses_participations.iter().flatten())
                    .cloned()
                    .collect();
                Err(SiteNonTrouve::Absent {
                    suggestion: numero_proche(&numero, protocole, &tous),
                })
            }
        };
        sites.insert((numero, protocole), issue);
    }
    let retenus: BTreeSet<IdObjet> = sites.values().filter_map(|r| r.clone().ok()).collect();
    let participations = participations_des_sites(client, emetteur, retenus).await?;
    Ok(Lecture {
        moi,
        sites,
        participations,
    })
}

/// Le titre du premier fichier de protocole de chaque participation demandée (preuve par les
/// fichiers).
async fn premiers_titres(
    client: &ClientVigieChiro,
    emetteur: &crate::transport::Emetteur,
    ids: &[IdObjet],
) -> Result<HashMap<IdObjet, String>> {
    let mut titres = HashMap::new();
    for id in ids {
        let cible = format!("/participations/{id}/pieces_jointes");
        let page = lire_ou_dire(emetteur, &cible, || {
            client.pieces_jointes(id, 1, 1, &["wav", "ta", "tc"])
        })
        .await?;
        if let Some(p) = page.items.into_iter().next() {
            titres.insert(id.clone(), p.titre);
        }
    }
    Ok(titres)
}

fn vue(p: &ParticipationLue) -> ParticipationVue {
    ParticipationVue {
        id: p.id.clone(),
        observateur: p.observateur.clone(),
        point: p.point.clone(),
        debut: p.date_debut.as_deref().and_then(date_plateforme),
        fin: p.date_fin.as_deref().and_then(date_plateforme),
        un_titre: None,
    }
}

/// `vigie depot DOSSIER…` en saison (voir l'en-tête du module).
pub(super) fn depot_saison(g: &OptionsGlobales, args: ArgsDepot) -> Result<CodeSortie> {
    if args.point.is_some() {
        return Err(ErreurAvecCode::nouveau(CodeSortie::Usage, dire::POINT_EN_SAISON).into());
    }
    let fuseau = Fuseau::analyser(&args.fuseau)
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    let donnes = sites_donnes(&args.site)?;
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
    let mut reunion = reunir(&args.dossiers, &provisoire)?;
    let regroupement = regrouper(&reunion.enregistrements);
    dire::refuser_hors_nuit(
        g.json,
        &reunion.enregistrements,
        &regroupement.nuits,
        &regroupement.hors_nuit,
    )?;
    let mut nuits: Vec<NuitDeSaison> = regroupement
        .nuits
        .into_iter()
        .map(|nuit| NuitDeSaison {
            // Point fixe : les instants des noms ; routier : les dates de ses fichiers.
            bornes: bornes_utc(&nuit, &fuseau).or_else(|| {
                bornes_par_modification(&nuit, &reunion.enregistrements, chrono::Utc::now())
            }),
            nuit,
            site: None,
            sort: Sort::NonVerifiee,
        })
        .collect();
    if nuits.is_empty() {
        return Err(ErreurAvecCode::nouveau(CodeSortie::Usage, dire::AUCUN_ENREGISTREMENT).into());
    }
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
    let non_rattaches = non_rattaches(&ecartees, &inconnus, &reunion.enregistrements);
    dire::non_rattaches(mode(g), &non_rattaches, nuits.is_empty())?;
    garder_la_saison(g, &args, &reunion, &nuits)?;
    if reunion.originaux_bruts > 0 {
        super::depot::annoncer_carte_brute(g, reunion.originaux_bruts, reunion.preparees.len())?;
    }
    if args.simulation {
        dire::simulation(mode(g), &api, &nuits, &reunion.enregistrements, hors_ligne)?;
        crate::suivi::non_envoyes::dire(mode(g), Ou::Bilan, &reunion.non_envoyes)?;
        return Ok(CodeSortie::Succes);
    }
    // Ce qui ne part pas est dit après le bilan, comme en mode une nuit par la même règle :
    // c'est ce que la bénévole lit avant d'effacer sa carte.
    let non_envoyes = std::mem::take(&mut reunion.non_envoyes);
    let code = deposer(g, &args, &api, &fuseau, nuits, reunion)?;
    if code == CodeSortie::Interrompu {
        return Ok(code);
    }
    crate::suivi::non_envoyes::dire(mode(g), Ou::Bilan, &non_envoyes)?;
    if non_rattaches.is_empty() {
        return Ok(code);
    }
    dire::rappel_non_rattaches(mode(g), &non_rattaches)?;
    Ok(code.max_par_gravite(CodeSortie::RefusDefinitifs))
}

/// Les fichiers des nuits écartées, groupés par numéro de site des noms (avec la faute de
/// frappe suggérée).
fn non_rattaches(
    ecartees: &[NuitDeSaison],
    inconnus: &BTreeMap<(String, Protocole), Option<String>>,
    enregistrements: &[Enregistrement],
) -> Vec<dire::NonRattaches> {
    let mut groupes = Vec::new();
    for ((numero, protocole), suggestion) in inconnus {
        let des_nuits: Vec<&NuitDeSaison> = ecartees
            .iter()
            .filter(|n| n.nuit.cle.site == *numero && n.nuit.cle.protocole == *protocole)
            .collect();
        let mut chemins: Vec<&str> = des_nuits
            .iter()
            .flat_map(|n| n.nuit.fichiers.iter())
            .map(|&i| enregistrements[i].chemin.as_str())
            .collect();
        chemins.sort_unstable();
        groupes.push(dire::NonRattaches {
            numero: numero.clone(),
            protocole: *protocole,
            nuits: des_nuits.len(),
            fichiers: chemins.len(),
            exemples: chemins
                .iter()
                .take(dire::NON_RATTACHES_CITES)
                .map(|c| (*c).to_owned())
                .collect(),
            suggestion: suggestion.clone(),
        });
    }
    groupes
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
        super::depot::base_a_lire(g, args.simulation)?
    } else {
        None
    };
    let a_garder: Vec<super::garde::NuitAGarder<'_>> = nuits
        .iter()
        .map(|n| super::garde::NuitAGarder {
            // Les séquences d'une carte brute n'existent pas encore sur un disque, et leur
            // en-tête est écrit à Fe/10 par la règle même de `vigie preparer`.
            fichiers: n
                .nuit
                .fichiers
                .iter()
                .map(|&i| &reunion.enregistrements[i])
                .filter(|e| !reunion.preparees.contains_key(&e.chemin))
                .collect(),
            plan: match &n.sort {
                Sort::Liee { plan } => Some((plan.id, plan.dossier.as_str())),
                _ => None,
            },
            nommee: Some(dire::nuit_nommee(&n.nuit.cle)),
        })
        .collect();
    super::garde::garder_les_nuits(g, &reunion.racine, &a_garder, base.as_ref(), |chemin| {
        let complet = reunion.racine.join(chemin);
        let donne = reunion
            .dossiers
            .iter()
            .position(|d| complet.starts_with(d))
            .and_then(|i| args.dossiers.get(i))
            .unwrap_or(&args.dossiers[0]);
        donne.clone()
    })
}

/// Lit la plateforme et la base, et décide du sort de chaque nuit ; refuse (code 2) ce qui
/// laisserait un doute. Rend les numéros de site des noms qu'aucun site de l'utilisateur ne
/// porte (et, pour chacun, le numéro d'un de ses sites à une faute de frappe près) : leurs
/// nuits restent sans site, et ne partent pas.
fn decider(
    g: &OptionsGlobales,
    api: &str,
    donnes: &SitesDonnes,
    fuseau: &Fuseau,
    nuits: &mut [NuitDeSaison],
    a_blanc: bool,
) -> Result<BTreeMap<(String, Protocole), Option<String>>> {
    let client = super::vigiechiro::client(api)?;
    // Les numéros de site des noms (et leur famille), sans recopier les nuits.
    let numeros: BTreeSet<(String, Protocole)> = nuits
        .iter()
        .map(|n| (n.nuit.cle.site.clone(), n.nuit.cle.protocole))
        .collect();
    let lecture = super::vigiechiro::mener_ponctuel(async |emetteur| {
        lire_plateforme(&client, emetteur, api, numeros.clone(), donnes).await
    })?;
    let mut refus = Refus::default();
    let mut dits = HashSet::new();
    let mut inconnus = BTreeMap::new();
    for n in nuits.iter_mut() {
        let cle = (n.nuit.cle.site.clone(), n.nuit.cle.protocole);
        match &lecture.sites[&cle] {
            Ok(id) => n.site = Some(id.clone()),
            Err(SiteNonTrouve::Absent { suggestion }) => {
                inconnus.insert(cle, suggestion.clone());
            }
            Err(SiteNonTrouve::Ambigu(texte)) => {
                refus.nommer(&n.nuit.cle);
                if dits.insert(texte.clone()) {
                    refus.ajouter(texte);
                }
            }
        }
    }
    refus.rendre(g.json, dire::SITE_NON_TROUVE)?;
    // Un même site écrit de deux façons (`Car640380`, `Car0640380`) ferait deux participations
    // du même point la même nuit : refus.
    let mut ecritures: BTreeMap<(IdObjet, Protocole), BTreeSet<String>> = BTreeMap::new();
    for ((numero, protocole), site) in &lecture.sites {
        if let Ok(id) = site {
            ecritures
                .entry((id.clone(), *protocole))
                .or_default()
                .insert(numero.clone());
        }
    }
    let mut refus = Refus::default();
    for ((id, _), numeros) in &ecritures {
        if numeros.len() > 1 {
            refus.ajouter(&dire::site_ecrit_deux_fois(id, numeros));
        }
    }
    refus.rendre(g.json, dire::SITE_ECRIT_DEUX_FOIS)?;
    // Les nuits déjà liées dans la base gardent leur plan.
    let base = super::depot::base_a_lire(g, a_blanc)?;
    let mut prises: HashSet<String> = HashSet::new();
    if let Some(base) = &base {
        for p in base.plans()? {
            if let Some(id) = p.participation {
                prises.insert(id);
            }
            if let Ok(d) = Destination::depuis_identite(&p.destination)
                && let Some(id) = d.participation_donnee()
            {
                prises.insert(id.to_string());
            }
        }
        let mut saisons = HashMap::new();
        for n in nuits.iter_mut() {
            let annee = n.nuit.cle.annee;
            let saison = match saisons.get(&annee) {
                Some(s) => *s,
                None => {
                    let s = base.saison(api, annee)?;
                    saisons.insert(annee, s);
                    s
                }
            };
            let (Some(saison), Some(site)) = (saison, n.site.as_ref()) else {
                continue;
            };
            if let Some(plan) = base.plan_de_nuit(saison, &n.liee(site, fuseau))? {
                n.sort = Sort::Liee {
                    plan: base.plan(Some(plan))?,
                };
            }
        }
    }
    // Une nuit liée garde sa participation : elle doit encore être sur la plateforme, et à
    // l'utilisateur (supprimée ou donnée à un autre sur le site web depuis la dernière fois :
    // rien n'y part, ni ailleurs sans lui).
    let mut refus = Refus::default();
    for n in nuits.iter() {
        let (Sort::Liee { plan }, Some(site)) = (&n.sort, n.site.as_ref()) else {
            continue;
        };
        let Some(id) = participation_du_plan(plan) else {
            continue;
        };
        let libelle = libelle_court(&n.nuit.cle);
        let du_site = lecture.participations.get(site);
        if let Some(texte) = refus_de_liee(du_site, &lecture.moi, &id, &libelle, plan.id) {
            refus.ajouter(&texte);
            refus.nommer(&n.nuit.cle);
        }
    }
    refus.rendre(g.json, dire::PARTICIPATION_LIEE_CHANGEE)?;
    // Les autres : attribuées parmi les participations de leur site que ne tient aucun plan.
    let mut par_site: BTreeMap<IdObjet, Vec<usize>> = BTreeMap::new();
    for (i, n) in nuits.iter().enumerate() {
        if matches!(n.sort, Sort::NonVerifiee)
            && let Some(site) = &n.site
        {
            par_site.entry(site.clone()).or_default().push(i);
        }
    }
    let mut candidates_par_site: HashMap<IdObjet, Vec<ParticipationVue>> = HashMap::new();
    let mut a_prouver = Vec::new();
    for (site, indices) in &par_site {
        let vues: Vec<ParticipationVue> = lecture.participations[site]
            .iter()
            .filter(|p| !prises.contains(p.id.as_str()))
            .map(vue)
            .collect();
        for p in &vues {
            let utile = indices.iter().any(|&i| {
                let datee = NuitDatee {
                    cle: &nuits[i].nuit.cle,
                    bornes: nuits[i].bornes,
                };
                matches!(
                    verdict(p, &datee, &lecture.moi, fuseau),
                    Verdict::Meme(_) | Verdict::SansPoint
                )
            });
            if utile {
                a_prouver.push(p.id.clone());
            }
        }
        candidates_par_site.insert(site.clone(), vues);
    }
    let titres = if a_prouver.is_empty() {
        HashMap::new()
    } else {
        super::vigiechiro::mener_ponctuel(async |emetteur| {
            premiers_titres(&client, emetteur, &a_prouver).await
        })?
    };
    let mut refus = Refus::default();
    for (site, indices) in &par_site {
        let mut vues = candidates_par_site.remove(site).unwrap_or_default();
        for p in &mut vues {
            p.un_titre = titres.get(&p.id).cloned();
        }
        let datees: Vec<NuitDatee<'_>> = indices
            .iter()
            .map(|&i| NuitDatee {
                cle: &nuits[i].nuit.cle,
                bornes: nuits[i].bornes,
            })
            .collect();
        let a = attribuer(&datees, &vues, &lecture.moi, fuseau);
        let mut sorts = Vec::new();
        for (k, issue) in a.issues.iter().enumerate() {
            let libelle = libelle_court(&nuits[indices[k]].nuit.cle);
            if !matches!(issue, IssueNuit::Reprise { .. } | IssueNuit::ACreer) {
                refus.nommer(&nuits[indices[k]].nuit.cle);
            }
            sorts.push(match issue {
                IssueNuit::Reprise {
                    participation,
                    preuve,
                } => Some(Sort::Reprise {
                    participation: participation.clone(),
                    preuve: *preuve,
                }),
                IssueNuit::ACreer => Some(Sort::ACreer),
                IssueNuit::Ambigue(ids) => {
                    refus.ajouter(&dire::participation_ambigue(api, &libelle, ids));
                    None
                }
                IssueNuit::SansPoint(ids) => {
                    refus.ajouter(&dire::participation_sans_point(api, &libelle, ids));
                    None
                }
                IssueNuit::Partagee {
                    participation,
                    nuits: autres,
                } => {
                    let autres: Vec<String> = autres
                        .iter()
                        .map(|&o| libelle_court(&nuits[indices[o]].nuit.cle))
                        .collect();
                    refus.ajouter(&dire::participation_partagee(
                        api,
                        participation,
                        &libelle,
                        &autres,
                    ));
                    None
                }
            });
        }
        for (k, sort) in sorts.into_iter().enumerate() {
            if let Some(s) = sort {
                nuits[indices[k]].sort = s;
            }
        }
        for (k, id) in &a.d_autrui {
            let libelle = libelle_court(&nuits[indices[*k]].nuit.cle);
            dire::avertir_d_autrui(mode(g), api, id, &libelle)?;
        }
        for (k, id) in &a.ecartees {
            let libelle = libelle_court(&nuits[indices[*k]].nuit.cle);
            dire::avertir_ecartee(mode(g), api, id, &libelle)?;
        }
    }
    // Une nuit à créer sans instants (routier : les noms n'en portent pas) ne peut pas l'être.
    for n in nuits.iter() {
        if matches!(n.sort, Sort::ACreer) && n.bornes.is_none() {
            refus.nommer(&n.nuit.cle);
            refus.ajouter(&dire::a_creer_sans_heure(&libelle_court(&n.nuit.cle)));
        }
    }
    refus.rendre(g.json, dire::PARTICIPATION_INCERTAINE)?;
    Ok(inconnus)
}

/// Comment parler : lignes JSON (`--json`), et en silence (`-q`).
fn mode(g: &OptionsGlobales) -> ModeSortie {
    ModeSortie {
        json: g.json,
        silencieux: g.quiet,
    }
}

/// Une nuit planifiée : son plan, sa destination, le verrou tenu.
struct NuitPlanifiee {
    plan: DepotPlan,
    destination: Destination,
    libelle: String,
    _verrou: VerrouPlan,
    /// Le verrou du plan sur son dossier d'avant une montée de sa racine (sinon rien).
    _verrou_d_avant: Option<VerrouPlan>,
}

/// La description d'une nuit : celle des options, l'enregistreur lu dans ses noms quand les
/// options ne le disent pas, qu'elle n'en a qu'un et que son nom se reconnaît
/// (`PaRecPR1925492`, `S4U12345` ; pas `OB-1`, qui ne dit ni type ni numéro).
fn description_de_la_nuit(
    options: &crate::description::Description,
    enregistreurs: &BTreeSet<String>,
) -> crate::description::Description {
    let mut d = options.clone();
    if let [seul] = enregistreurs.iter().collect::<Vec<_>>().as_slice() {
        let e = crate::preparation::materiel::par_le_nom(seul);
        if e.type_enregistreur.is_none() {
            return d;
        }
        d.enregistreur_type = d.enregistreur_type.or(e.type_enregistreur);
        d.enregistreur_numero_serie = d.enregistreur_numero_serie.or(e.numero_serie);
    }
    d
}

/// Les dossiers parcourus, relatifs à la racine de la nuit : ce que la replanification peut
/// dire « disparu ».
fn perimetre(racine_nuit: &Path, dossiers: &[PathBuf]) -> Vec<String> {
    let mut p = Vec::new();
    for d in dossiers {
        if racine_nuit.starts_with(d) {
            p.push(String::new());
        } else if let Some(r) = relatif(d, racine_nuit) {
            p.push(r);
        }
    }
    p
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
    let options = args
        .description
        .description()
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    let annees: BTreeSet<u16> = nuits.iter().map(|n| n.nuit.cle.annee).collect();
    let _verrous = verrouiller_saisons(&super::chemin_base(g)?, api, &annees)?;
    dire::annoncer_nuits(mode(g), api, &nuits, &reunion.enregistrements)?;
    let mut base = super::ouvrir_base(g)?;
    let mut planifiees = Vec::with_capacity(nuits.len());
    for n in &nuits {
        let site = n.site.clone().context("site d'une nuit non rapproché")?;
        let racine_relative = racine_de_nuit(&n.nuit, &reunion);
        let mut racine = reunion.racine.clone();
        if !racine_relative.is_empty() {
            racine.push(&racine_relative);
        }
        // Le verrou du plan d'une nuit liée, pris sur son dossier d'avant toute montée : un
        // `vigie verifier` ou un `vigie depot --participation` qui tient ce plan ne voit pas ses
        // chemins changer pendant qu'il envoie ; la montée attend qu'il ait fini (code 4).
        let mut verrou_d_avant = None;
        let description = description_de_la_nuit(&options, &n.nuit.enregistreurs);
        let (destination, racine) = match &n.sort {
            Sort::Liee { plan } => {
                verrou_d_avant = Some(VerrouPlan::prendre(
                    base.chemin(),
                    &plan.dossier,
                    &plan.destination,
                    &libelle_court(&n.nuit.cle),
                )?);
                let racine_plan = PathBuf::from(&plan.dossier);
                // Des fichiers de la nuit hors de la racine de son plan (un enregistreur dans
                // un dossier voisin, la carte copiée ailleurs) : la racine monte à l'ancêtre
                // commun, chaque chemin du plan en reçoit le préfixe ; les titres ne changent
                // pas, rien ne repart.
                let racine = if racine.starts_with(&racine_plan) {
                    racine_plan
                } else {
                    let nouvelle = ancetre_commun(&racine, &racine_plan);
                    let prefixe = relatif(&racine_plan, &nouvelle)
                        .context("racine d'une nuit hors de l'ancêtre commun")?;
                    let texte = nouvelle
                        .to_str()
                        .context("chemin d'une racine de nuit : pas de l'UTF-8")?;
                    base.monter_racine(plan.id, texte, &prefixe)?;
                    dire::racine_montee(mode(g), &libelle_court(&n.nuit.cle), plan, texte)?;
                    nouvelle
                };
                (Destination::depuis_identite(&plan.destination)?, racine)
            }
            Sort::Reprise { participation, .. } => (
                DestinationVigieChiro {
                    api: api.to_owned(),
                    participation: CibleParticipation::Existante(participation.clone()),
                    description: Box::new(description.clone()),
                }
                .into(),
                racine,
            ),
            Sort::ACreer => {
                let (debut, fin) = n.bornes.context("bornes d'une nuit à créer")?;
                let destination = DestinationVigieChiro {
                    api: api.to_owned(),
                    participation: CibleParticipation::ACreer {
                        site: site.clone(),
                        point: n.nuit.cle.point.clone(),
                        debut: InstantUtc::depuis_secondes(debut.timestamp()),
                        fin: InstantUtc::depuis_secondes(fin.timestamp()),
                    },
                    description: Box::new(description.clone()),
                };
                (destination.into(), racine)
            }
            Sort::NonVerifiee => unreachable!("une nuit non vérifiée n'est pas déposée"),
        };
        let Some(dossier) = racine.to_str().map(str::to_owned) else {
            anyhow::bail!("chemin de la nuit {} : pas de l'UTF-8", racine.display());
        };
        // Les fichiers planifiables de cette nuit seule (identité relevée par l'inventaire).
        // Leur chemin relatif à `racine` : quand elle est sous la racine de la réunion (le cas
        // ordinaire), celui qu'ils y ont, moins le chemin qui y mène, sans refaire un chemin
        // par fichier ; sinon (racine d'un plan au-dessus de la réunion), par leur chemin.
        // L'original d'une séquence préparée au fil de l'envoi, de même.
        let sous = relatif(&racine, &reunion.racine);
        let vers_la_nuit = |chemin: &str| {
            match &sous {
                Some(s) if s.is_empty() => Some(chemin.to_owned()),
                Some(s) => chemin
                    .strip_prefix(s.as_str())
                    .and_then(|reste| reste.strip_prefix('/'))
                    .map(str::to_owned),
                None => relatif(&reunion.racine.join(chemin), &racine),
            }
            .context("fichier hors de sa nuit")
        };
        let mut fichiers = Vec::with_capacity(n.nuit.fichiers.len());
        for &i in &n.nuit.fichiers {
            let e = &reunion.enregistrements[i];
            let chemin = vers_la_nuit(&e.chemin)?;
            let cle = destination.cle(&chemin)?;
            let mut f = fichier_planifie(e, chemin, cle);
            if let Some(p) = reunion.preparees.get(&e.chemin) {
                f.preparee = Some(SequencePreparee {
                    source: vers_la_nuit(&p.source)?,
                    ..p.clone()
                });
            }
            fichiers.push(f);
        }
        let identite = match &n.sort {
            Sort::Liee { plan } => plan.destination.clone(),
            _ => destination.identite(),
        };
        let libelle = libelle_court(&n.nuit.cle);
        // Sans montée, le verrou d'avant est celui du plan (le reprendre échouerait : il est
        // déjà tenu) ; après une montée, les deux sont tenus jusqu'à la fin de la course.
        let (verrou, verrou_d_avant) = match (verrou_d_avant, &n.sort) {
            (Some(v), Sort::Liee { plan }) if plan.dossier == dossier => (v, None),
            (avant, _) => (
                VerrouPlan::prendre(base.chemin(), &dossier, &identite, &libelle)?,
                avant,
            ),
        };
        let perimetre = perimetre(&racine, &reunion.dossiers);
        let r = planifier_en_relisant(
            &mut base,
            &dossier,
            &identite,
            &fichiers,
            args.redeposer_modifies,
            Some(&perimetre),
        )?;
        let plan = r.plan.clone().context("plan absent après planification")?;
        let saison = base.ouvrir_saison(api, n.nuit.cle.annee)?;
        base.lier_nuit(plan.id, saison, &n.liee(&site, fuseau))?;
        if !r.modifiees.is_empty() {
            dire::avertir_modifies(mode(g), r.modifiees.len(), &libelle)?;
        }
        planifiees.push(NuitPlanifiee {
            plan,
            destination,
            libelle,
            _verrou: verrou,
            _verrou_d_avant: verrou_d_avant,
        });
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

/// Les verrous des saisons `(api, année)` : le mécanisme du verrou d'un plan
/// (`plan/verrou.rs`), sous l'identité `saison:<api>#<année>`. Une saison déjà tenue par un
/// autre `vigie` : code 4, qui dit quel processus la tient.
pub(super) fn verrouiller_saisons(
    base: &Path,
    api: &str,
    annees: &BTreeSet<u16>,
) -> Result<Vec<VerrouPlan>> {
    let mut verrous = Vec::with_capacity(annees.len());
    for annee in annees {
        let identite = format!("saison:{api}#{annee}");
        match VerrouPlan::prendre(base, "", &identite, &format!("saison {annee}")) {
            Ok(v) => verrous.push(v),
            Err(crate::plan::ErreurBase::PlanOccupe { pid, .. }) => {
                return Err(ErreurAvecCode::nouveau(
                    CodeSortie::PlanOccupe,
                    dire::saison_occupee(*annee, pid),
                )
                .into());
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(verrous)
}

/// Les réglages de la saison : ceux que retiennent ses nuits qui ont encore à partir (donnés
/// au dépôt de la saison, ou à une reprise). Les nuits finies n'y comptent pas : une nuit
/// d'une autre carte de la même année, déposée sous d'autres réglages, ne s'y mêle jamais.
/// Des nuits à reprendre qui en retiennent de différents (deux dépôts, deux réglages) : refus
/// (code 2), sauf réglages donnés, qui valent alors pour toutes.
fn reglages_de_la_saison(
    base: &Base,
    planifiees: &[NuitPlanifiee],
    envoi: &OptionsEnvoi,
) -> Result<ReglagesRetenus> {
    let mut vus: Vec<(ReglagesRetenus, Vec<&str>)> = Vec::new();
    for p in planifiees {
        let r = base.resume(p.plan.id)?;
        let a_creer = p.plan.participation.is_none() && participation_du_plan(&p.plan).is_none();
        if r.deposee == r.total() && !a_creer {
            continue;
        }
        let retenus = base.reglages(p.plan.id)?;
        if retenus.est_vide() {
            continue;
        }
        match vus.iter_mut().find(|(v, _)| *v == retenus) {
            Some((_, nuits)) => nuits.push(&p.libelle),
            None => vus.push((retenus, vec![&p.libelle])),
        }
    }
    if vus.len() > 1 && envoi.explicites.is_empty() {
        let liste: Vec<String> = vus
            .iter()
            .map(|(r, nuits)| {
                let reglages = super::reglages::lisibles(r);
                format!("{} ({})", reglages.join(", "), nuits.join(", "))
            })
            .collect();
        return Err(
            ErreurAvecCode::nouveau(CodeSortie::Usage, dire::reglages_differents(&liste)).into(),
        );
    }
    Ok(vus.into_iter().next().map(|(r, _)| r).unwrap_or_default())
}

/// Les réglages donnés fusionnés avec ceux de la saison ([`reglages_de_la_saison`]), retenus
/// par chaque nuit (une relance les reprend), puis la course.
fn retenir_puis_envoyer(
    g: &OptionsGlobales,
    options: (&OptionsPassages, &OptionsS3),
    api: &str,
    planifiees: Vec<NuitPlanifiee>,
    envoi: &OptionsEnvoi,
    base: Base,
) -> Result<CodeSortie> {
    let retenus = reglages_de_la_saison(&base, &planifiees, envoi)?;
    let mut reglages = super::reglages::fusionner(envoi, &retenus);
    reglages.annonce.de_la_saison = true;
    for p in &planifiees {
        // Une nuit finie garde les siens, sauf réglages donnés (ils valent pour la saison).
        let r = base.resume(p.plan.id)?;
        if r.deposee < r.total() || p.plan.participation.is_none() || !envoi.explicites.is_empty() {
            base.retenir_reglages(p.plan.id, &reglages.retenus)?;
        }
    }
    let chemin_base = base.chemin().to_owned();
    drop(base);
    envoyer_saison(g, options, api, planifiees, &reglages, &chemin_base)
}

/// Les créations d'abord (toutes, avant le premier octet), puis l'envoi nuit après nuit.
fn envoyer_saison(
    g: &OptionsGlobales,
    options: (&OptionsPassages, &OptionsS3),
    api: &str,
    planifiees: Vec<NuitPlanifiee>,
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
    let commune = Envoi::nouveau(&reglages.options, s3, &premiere)?;
    let rt = super::moteur(super::Fils::Plusieurs)?;
    // L'utilisateur, une fois : la réconciliation d'une création ne retient que les siennes.
    let moi = rt.block_on(async {
        let emetteur = commune.emetteur_seul(crate::reessai::Annulation::nouveau());
        super::vigiechiro::reconnaitre_plateforme(&client, &emetteur)
            .await
            .ok()
            .map(|u| u.id)
    });
    // 1. Les créations, nuit après nuit, avant tout envoi. Une création qui échoue
    // passagèrement n'arrête pas les autres nuits : avec `--jusqu-au-bout`, sa nuit est
    // retentée au deuxième passage de la course (son passage crée la participation) ; sans,
    // elle attend la prochaine relance (code 1). Une création refusée (un 422) n'arrête que
    // sa nuit, nommée (code 3) ; seul un jeton refusé arrête tout.
    let mut code = CodeSortie::Succes;
    let mut course = Vec::with_capacity(planifiees.len());
    let ordre: Vec<i64> = planifiees.iter().map(|p| p.plan.id).collect();
    let mut reportees = Vec::new();
    for p in planifiees {
        let Some(dest) = p.destination.plateforme() else {
            continue;
        };
        if p.plan.participation.is_some()
            || matches!(dest.participation, CibleParticipation::Existante(_))
        {
            course.push((p, true));
            continue;
        }
        let base = Base::ouvrir(chemin_base)?;
        let issue = rt.block_on(commune.resoudre_participation(&base, &p.plan, dest, moi.as_ref()));
        match issue {
            Ok(id) => {
                dire::participation_creee(mode(g), api, &p.libelle, &id)?;
                course.push((p, true));
            }
            Err(e) => match crate::sortie::code_pour_erreur(&e) {
                CodeSortie::EchecsTransitoires => {
                    dire::creation_reportee(
                        mode(g),
                        p.plan.id,
                        &p.libelle,
                        &e,
                        regle.jusqu_au_bout(),
                    )?;
                    if regle.jusqu_au_bout() {
                        course.push((p, false));
                    } else {
                        // Hors de la course, mais dans le bilan : participation à créer.
                        reportees.push(p.plan.id);
                        code = code.max_par_gravite(CodeSortie::EchecsTransitoires);
                    }
                }
                // Un jeton refusé le serait pour toutes les nuits : tout s'arrête.
                CodeSortie::RefusDefinitifs if !jeton_refuse(&e) => {
                    dire::creation_refusee(mode(g), p.plan.id, &p.libelle, &e)?;
                    reportees.push(p.plan.id);
                    code = code.max_par_gravite(CodeSortie::RefusDefinitifs);
                }
                _ => return Err(e),
            },
        }
    }
    // 2. L'envoi : une seule course pour toutes les nuits, dans l'ordre de la saison, sous les
    // mêmes réglages, le même plafond de parallélisme et le même seau `--debit-max` (chaque
    // envoi de nuit est `commune.vers(…)`). Avec `--jusqu-au-bout`, un passage envoie toutes
    // les nuits qui ont encore à tenter, et la pause vient entre deux passages de la saison.
    // Le bilan : les nuits de la course et celles dont la création attend une relance, dans
    // l'ordre de la saison.
    let tous: Vec<i64> = ordre
        .into_iter()
        .filter(|id| reportees.contains(id) || course.iter().any(|(p, _)| p.plan.id == *id))
        .collect();
    let envois = envois_des_nuits(
        &commune,
        course.iter().map(|(p, _)| &p.destination),
        &reglages.annonce,
        moi.as_ref(),
    );
    let nuits: Vec<super::passages::NuitDeLaCourse<'_, '_>> = course
        .iter()
        .zip(&envois)
        .map(|((p, d), envoi)| super::passages::NuitDeLaCourse {
            plan: p.plan.clone(),
            envoi,
            des_le_premier_passage: *d,
        })
        .collect();
    let libelles: Vec<(i64, &str)> = course
        .iter()
        .map(|(p, _)| (p.plan.id, p.libelle.as_str()))
        .collect();
    let entete = |plan: &DepotPlan| {
        if let Some((_, libelle)) = libelles.iter().find(|(id, _)| *id == plan.id) {
            let _ = dire::entete_de_nuit(mode(g), libelle, plan.id);
        }
    };
    let base = Base::ouvrir(chemin_base)?;
    // Toutes les créations reportées (aucune nuit dans la course) : rien à envoyer.
    let c = if nuits.is_empty() {
        CodeSortie::Succes
    } else {
        rt.block_on(super::passages::enchainer_saison(
            g, &regle, &nuits, base, &entete,
        ))?
    };
    code = code.max_par_gravite(c);
    // Les verrous des nuits sont tenus jusqu'à la fin de la course.
    drop(course);
    // Après Ctrl-C aussi : le bilan de toute la saison, et la commande qui la reprend.
    bilan_de_saison(g, api, chemin_base, &tous)?;
    Ok(code)
}

/// L'erreur est-elle celle d'un jeton refusé (401) ?
fn jeton_refuse(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<ErreurAvecCode>())
        .any(|c| c.message == crate::depot::vigiechiro::message_jeton_refuse())
}

/// L'envoi de chaque nuit : `commune.vers(…)`, donc les mêmes réglages d'émission, le même
/// plafond `--paralleles` et **le même seau `--debit-max`** pour toutes les nuits de la
/// course (la limite vaut pour la saison, pas pour chaque nuit).
fn envois_des_nuits<'b>(
    commune: &'b Envoi<'_>,
    destinations: impl Iterator<Item = &'b Destination>,
    annonce: &crate::depot::ReglagesDuPassage,
    moi: Option<&IdObjet>,
) -> Vec<Envoi<'b>> {
    destinations
        .map(|d| {
            let mut envoi = commune.vers(d);
            envoi.annonce = annonce.clone();
            envoi.moi = moi.cloned();
            envoi
        })
        .collect()
}

/// Le bilan de la saison : **toutes** ses nuits (celles de la commande, `plans`, et les
/// autres nuits de leurs saisons : déposées, entamées, pas commencées), une ligne chacune, puis
/// la seule commande qui reprend ce qui reste (`suivi::reprise`), ou `vigie traiter`.
fn bilan_de_saison(
    g: &OptionsGlobales,
    api: &str,
    chemin_base: &Path,
    plans: &[i64],
) -> Result<()> {
    if g.quiet && !g.json {
        return Ok(());
    }
    let base = Base::ouvrir(chemin_base)?;
    let mut saisons = BTreeSet::new();
    for &id in plans {
        if let Some(n) = base.nuit_du_plan(id)? {
            saisons.insert(n.saison_id);
        }
    }
    let mut nuits = Vec::new();
    for saison in saisons {
        for n in base.nuits_de_saison(saison)? {
            let plan = base.plan(Some(n.plan_id))?;
            let r = base.resume(n.plan_id)?;
            nuits.push((n, plan, r));
        }
    }
    if g.json {
        let nuits: Vec<_> = nuits.into_iter().map(|(n, p, r)| (n.nuit, p, r)).collect();
        return dire::bilans_de_nuits(api, &nuits);
    }
    dire::bilan_de_saison(api, &nuits)?;
    Ok(())
}

/// Les nuits de saison que `vigie retenter-echecs` reprend : la nuit N, ou, sans argument,
/// toute la saison du dernier dépôt ; `None` si le dernier dépôt n'est pas d'une saison.
pub(super) fn nuits_a_retenter(
    g: &OptionsGlobales,
    args: &ArgsRetenter,
) -> Result<Option<Vec<crate::plan::NuitPlanifiee>>> {
    let base = super::ouvrir_base_existante(g)?;
    // Sans argument : la saison du dernier dépôt (toutes ses nuits), quelle que soit la nuit
    // touchée en dernier.
    if args.plan.is_none() {
        return Ok(match base.dernier_depot(false)? {
            crate::plan::DernierDepot::Saison(saison) => Some(base.nuits_de_saison(saison)?),
            crate::plan::DernierDepot::Plan(_) => None,
        });
    }
    let plan = base.plan(args.plan)?;
    Ok(base.nuit_du_plan(plan.id)?.map(|n| vec![n]))
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
    let _verrous = verrouiller_saisons(&super::chemin_base(g)?, &api, &annees)?;
    let mut base = super::ouvrir_base(g)?;
    let plans = nuits
        .iter()
        .map(|n| base.plan(Some(n.plan_id)))
        .collect::<Result<Vec<DepotPlan>, _>>()?;
    verifier_liees(g, &api, &nuits, &plans)?;
    let mut planifiees = Vec::with_capacity(nuits.len());
    // Toutes les nuits connues de ces saisons (`retenter-echecs N` n'en reprend qu'une) : une
    // nuit des racines qui n'en est pas est nouvelle, et dite.
    let mut connues = Vec::new();
    for saison in nuits.iter().map(|n| n.saison_id).collect::<BTreeSet<i64>>() {
        connues.extend(base.nuits_de_saison(saison)?);
    }
    let mut nouvelles: BTreeMap<crate::saison::nuits::CleNuit, BTreeSet<PathBuf>> = BTreeMap::new();
    let mut dossiers_nouvelles = BTreeSet::new();
    // Chaque nuit inventoriée et gardée (garde de format, `garde.rs`) avant toute écriture :
    // un fichier ajouté depuis à une nuit connue part avec elle, il est jugé comme au dépôt.
    let mut preparees = Vec::with_capacity(nuits.len());
    for (n, plan) in nuits.iter().zip(plans) {
        let destination = Destination::depuis_identite(&plan.destination)?;
        let preparation = preparer(Path::new(&plan.dossier), &destination, Horodatages::Juges)?;
        let regroupement = regrouper(&preparation.inventaire.enregistrements);
        let a_garder = super::garde::NuitAGarder {
            fichiers: regroupement
                .nuits
                .iter()
                .filter(|r| meme_nuit(&n.nuit, &r.cle))
                .flat_map(|r| &r.fichiers)
                .map(|&i| &preparation.inventaire.enregistrements[i])
                .collect(),
            plan: Some((plan.id, plan.dossier.as_str())),
            nommee: None,
        };
        super::garde::garder_les_nuits(
            g,
            Path::new(&plan.dossier),
            &[a_garder],
            Some(&base),
            |_| PathBuf::from(&plan.dossier),
        )?;
        preparees.push((n, plan, destination, preparation, regroupement));
    }
    for (n, plan, destination, preparation, regroupement) in preparees {
        for r in &regroupement.nuits {
            if connues.iter().any(|c| meme_nuit(&c.nuit, &r.cle)) {
                continue;
            }
            let fichiers = nouvelles.entry(r.cle.clone()).or_default();
            for &i in &r.fichiers {
                let chemin = &preparation.inventaire.enregistrements[i].chemin;
                fichiers.insert(Path::new(&plan.dossier).join(chemin));
            }
            dossiers_nouvelles.insert(plan.dossier.clone());
        }
        let indices: HashSet<usize> = regroupement
            .nuits
            .iter()
            .filter(|r| meme_nuit(&n.nuit, &r.cle))
            .flat_map(|r| r.fichiers.iter().copied())
            .collect();
        let fichiers: Vec<FichierPlanifie> = preparation
            .fichiers
            .into_iter()
            .enumerate()
            .filter(|(i, _)| indices.contains(i))
            .map(|(_, f)| f)
            .collect();
        let libelle = libelle_liee(&n.nuit);
        let verrou =
            VerrouPlan::prendre(base.chemin(), &plan.dossier, &plan.destination, &libelle)?;
        let r = planifier_en_relisant(
            &mut base,
            &plan.dossier,
            &plan.destination,
            &fichiers,
            false,
            Some(&[String::new()]),
        )?;
        let plan = r.plan.context("plan absent après planification")?;
        let remises = base.remettre_en_file(plan.id, args.y_compris_definitifs)?;
        tracing::info!(plan = plan.id, remises, "unités remises en file");
        planifiees.push(NuitPlanifiee {
            plan,
            destination,
            libelle,
            _verrou: verrou,
            _verrou_d_avant: None,
        });
    }
    // Une nuit nouvelle (des fichiers ajoutés depuis, d'une autre soirée, d'un autre point)
    // n'a pas de participation : ni déposée dans une autre, ni ignorée sans un mot.
    if !nouvelles.is_empty() {
        let nouvelles: Vec<(crate::saison::nuits::CleNuit, usize)> = nouvelles
            .into_iter()
            .map(|(cle, fichiers)| (cle, fichiers.len()))
            .collect();
        let dossiers: Vec<String> = dossiers_racines(&dossiers_nouvelles);
        dire::nuits_nouvelles(mode(g), &nouvelles, &dossiers)?;
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
    let mut liees = Vec::new();
    for (n, plan) in nuits.iter().zip(plans) {
        if let Some(id) = participation_du_plan(plan) {
            let site = IdObjet::analyser(&n.nuit.site).with_context(|| {
                format!("site de la nuit du plan {} illisible dans la base", plan.id)
            })?;
            liees.push((n, plan.id, site, id));
        }
    }
    if liees.is_empty() {
        return Ok(());
    }
    let client = super::vigiechiro::client(api)?;
    let sites: BTreeSet<IdObjet> = liees.iter().map(|(_, _, site, _)| site.clone()).collect();
    let (moi, participations) = super::vigiechiro::mener_ponctuel(async |emetteur| {
        let moi = lire_moi(&client, emetteur, api).await?;
        let participations = participations_des_sites(&client, emetteur, sites.clone()).await?;
        Ok((moi, participations))
    })?;
    let mut refus = Refus::default();
    for (n, plan, site, id) in &liees {
        let libelle = libelle_liee(&n.nuit);
        if let Some(texte) = refus_de_liee(participations.get(site), &moi, id, &libelle, *plan) {
            refus.ajouter(&texte);
            refus.nommer_liee(&n.nuit);
        }
    }
    refus.rendre(g.json, dire::PARTICIPATION_LIEE_CHANGEE)
}

/// Des dossiers, sans ceux qui sont dans un autre de la liste.
fn dossiers_racines(dossiers: &BTreeSet<String>) -> Vec<String> {
    dossiers
        .iter()
        .filter(|d| {
            !dossiers
                .iter()
                .any(|autre| autre != *d && Path::new(d).starts_with(autre))
        })
        .cloned()
        .collect()
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
        .map(|d| Destination::depuis_identite(d).unwrap());
        let commune = Envoi::nouveau(&args.envoi, &args.s3, &nuits[0]).unwrap();
        let envois = envois_des_nuits(
            &commune,
            nuits.iter(),
            &crate::depot::ReglagesDuPassage::default(),
            None,
        );
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
        Destination::VigieChiro(
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
    fn dossier_commun_composant_par_composant() {
        for (a, b, commun) in [
            ("", "", ""),
            ("", "PA1", ""),
            ("PA1", "", ""),
            ("PA1", "PA1", "PA1"),
            ("PA1", "PA1/n1", "PA1"),
            ("PA1/n1", "PA1", "PA1"),
            ("PA1/n1", "PA1/n2", "PA1"),
            ("a/b", "a/bc", "a"),
            ("a/bc", "a/b", "a"),
            ("a/b/c", "a/b/c/d/e", "a/b/c"),
            ("x/b", "y/b", ""),
        ] {
            assert_eq!(dossier_commun(a, b), commun, "{a:?} {b:?}");
        }
    }

    #[test]
    fn un_dossier_et_son_sous_dossier_chaque_fichier_une_fois() {
        let (_d, racine) = saison_de_deux_enregistreurs();
        let r = reunir(
            &[racine.clone(), racine.join("PA1"), racine.clone()],
            &provisoire(),
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
        let r = reunir(&[racine.join("PA2"), racine.join("PA1")], &provisoire()).unwrap();
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
