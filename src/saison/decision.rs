//! Le sort de chaque nuit de `vigie depot DOSSIER…`, une fois la plateforme lue : son site,
//! sa participation (celle de son plan, une de son site, ou à créer), et ce qui laisserait un
//! doute, refusé avant toute écriture. Des valeurs, sans un mot : les phrases des refus et
//! des avertissements sont dans `suivi/saison.rs` ; les lectures (plateforme, base) et l'ordre
//! où les refus sont dits, dans `commandes/saison.rs`. Seules les nuits liées se lisent dans
//! la base ([`lier_depuis_la_base`]), comme la désignation (`designation.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::correspondance::{
    IssueNuit, NuitDatee, ParticipationVue, Verdict, attribuer, date_plateforme, verdict,
};
use super::fuseau::Fuseau;
use super::nuits::{CleNuit, Protocole};
use super::sites::{Rapprochement, SiteConnu, numero_proche, rapprocher};
use super::sort::{NuitDeSaison, Sort, participation_du_plan};
use crate::depot::fabrique::Destination;
use crate::destination::IdObjet;
use crate::plan::{Base, DepotPlan, NuitLiee, NuitPlanifiee};
use crate::transport::vigiechiro::ParticipationLue;

/// `--site` en saison : `ID` (préféré en cas d'ambiguïté) ou `NUMERO=ID` (imposé).
#[derive(Default)]
pub(crate) struct SitesDonnes {
    pub(crate) preferes: Vec<IdObjet>,
    pub(crate) imposes: HashMap<String, IdObjet>,
}

impl SitesDonnes {
    /// `--site` en saison : `ID` (préféré en cas d'ambiguïté) ou `NUMERO=ID` (imposé) ; ce que
    /// `carte_nommee` reconnaît (un numéro seul, qui nomme une carte brute) est laissé.
    /// `Err` : la première valeur qui n'est ni l'un ni l'autre.
    pub(crate) fn analyser(
        valeurs: &[String],
        carte_nommee: impl Fn(&str) -> bool,
    ) -> Result<SitesDonnes, String> {
        let mut s = SitesDonnes::default();
        for v in valeurs {
            let invalide = || v.clone();
            match v.split_once('=') {
                Some((numero, id)) => {
                    let id = IdObjet::analyser(id.trim()).ok_or_else(invalide)?;
                    let numero = numero.trim();
                    if numero.is_empty() || !numero.bytes().all(|o| o.is_ascii_digit()) {
                        return Err(invalide());
                    }
                    s.imposes.insert(numero.to_owned(), id);
                }
                None if carte_nommee(v) => {}
                None => s
                    .preferes
                    .push(IdObjet::analyser(v.trim()).ok_or_else(invalide)?),
            }
        }
        Ok(s)
    }
}

/// Pourquoi le numéro de site des noms ne donne pas un site.
#[derive(Clone)]
pub(crate) enum SiteNonTrouve {
    /// Plusieurs sites conviennent (`--site` choisit).
    Ambigu(Vec<SiteConnu>),
    /// Aucun de ses sites : ses fichiers ne partent pas, les autres nuits si ;
    /// `suggestion` : le numéro d'un de ses sites à une faute de frappe près.
    Absent { suggestion: Option<String> },
}

/// Le site de chaque (numéro, protocole) des noms, ou pourquoi il n'y en a pas.
pub(crate) type SitesDesNoms = BTreeMap<(String, Protocole), Result<IdObjet, SiteNonTrouve>>;

/// Les numéros de site des noms qu'aucun site de l'utilisateur ne porte, et pour chacun le
/// numéro d'un de ses sites à une faute de frappe près.
pub(crate) type Inconnus = BTreeMap<(String, Protocole), Option<String>>;

/// Ce que la plateforme a dit, avant toute écriture.
pub(crate) struct Lecture {
    pub(crate) moi: IdObjet,
    pub(crate) sites: SitesDesNoms,
    /// Les participations de chaque site retenu.
    pub(crate) participations: HashMap<IdObjet, Vec<ParticipationLue>>,
}

/// La nuit que nomme un refus : une nuit de la commande, ou une nuit lue dans la base.
pub(crate) enum NuitDuRefus {
    Cle(CleNuit),
    Liee(NuitLiee),
}

/// Pourquoi une nuit (ou la saison) ne part pas.
pub(crate) enum Motif {
    /// Plusieurs sites de l'utilisateur portent le numéro des noms.
    SiteAmbigu {
        numero: String,
        sites: Vec<SiteConnu>,
    },
    /// Un même site écrit de deux façons (`Car640380`, `Car0640380`).
    SiteEcritDeuxFois {
        site: IdObjet,
        numeros: BTreeSet<String>,
    },
    /// La participation d'une nuit liée n'est plus sur la plateforme.
    LieeDisparue { id: String, plan: i64 },
    /// La participation d'une nuit liée est maintenant à un autre observateur.
    LieeDAutrui {
        id: String,
        plan: i64,
        pseudo: Option<String>,
    },
    /// Plusieurs participations sont cette nuit.
    Ambigue(Vec<IdObjet>),
    /// Seules des participations sans point tombent sur cette nuit.
    SansPoint(Vec<IdObjet>),
    /// Cette participation convient aussi à d'autres nuits.
    Partagee {
        participation: IdObjet,
        autres: Vec<CleNuit>,
    },
    /// Une nuit à créer sans instants (routier : les noms n'en portent pas).
    ACreerSansHeure,
}

/// Un refus d'avant toute écriture : la nuit qu'il nomme (s'il en nomme une), et pourquoi.
pub(crate) struct RefusDeNuit {
    pub(crate) nuit: Option<NuitDuRefus>,
    pub(crate) motif: Motif,
}

fn refus(cle: &CleNuit, motif: Motif) -> RefusDeNuit {
    RefusDeNuit {
        nuit: Some(NuitDuRefus::Cle(cle.clone())),
        motif,
    }
}

/// Une participation qui convenait, dite à l'utilisateur sans refus.
pub(crate) enum Avertissement {
    /// D'un autre observateur, au même point la même nuit : jamais reprise.
    DAutrui {
        nuit: CleNuit,
        participation: IdObjet,
    },
    /// De l'utilisateur, laissée pour une autre qui contient déjà les fichiers de la nuit.
    Ecartee {
        nuit: CleNuit,
        participation: IdObjet,
    },
}

/// Les numéros de site des noms (et leur famille), sans recopier les nuits.
pub(crate) fn numeros(nuits: &[NuitDeSaison]) -> BTreeSet<(String, Protocole)> {
    nuits
        .iter()
        .map(|n| (n.nuit.cle.site.clone(), n.nuit.cle.protocole))
        .collect()
}

/// Faut-il lire les sites des participations de l'utilisateur pour ce numéro (aucun de ses
/// sites ne le porte, et `--site` ne l'impose pas) ?
pub(crate) fn faut_il_les_sites_des_participations(
    numero: &str,
    protocole: Protocole,
    propres: &[SiteConnu],
    donnes: &SitesDonnes,
) -> bool {
    !donnes.imposes.contains_key(numero)
        && rapprocher(numero, protocole, propres, &[]) == Rapprochement::Absent
}

/// Le site du numéro des noms : imposé par `--site NUMERO=ID`, sinon rapproché de ses sites,
/// puis (aucun ne convenant) de ceux de ses participations (`autres`, lus alors).
pub(crate) fn site_des_noms(
    numero: &str,
    protocole: Protocole,
    donnes: &SitesDonnes,
    propres: &[SiteConnu],
    autres: Option<&[SiteConnu]>,
) -> Result<IdObjet, SiteNonTrouve> {
    if let Some(id) = donnes.imposes.get(numero) {
        return Ok(id.clone());
    }
    let mut r = rapprocher(numero, protocole, propres, &[]);
    if r == Rapprochement::Absent {
        r = rapprocher(numero, protocole, propres, autres.unwrap_or_default());
    }
    match r {
        Rapprochement::Trouve(s) => Ok(s.id.clone()),
        Rapprochement::Ambigu(liste) => liste
            .iter()
            .find(|s| donnes.preferes.contains(&s.id))
            .map(|s| s.id.clone())
            .ok_or_else(|| SiteNonTrouve::Ambigu(liste.into_iter().cloned().collect())),
        Rapprochement::Absent => {
            let tous: Vec<SiteConnu> = propres
                .iter()
                .chain(autres.unwrap_or_default())
                .cloned()
                .collect();
            Err(SiteNonTrouve::Absent {
                suggestion: numero_proche(numero, protocole, &tous),
            })
        }
    }
}

/// Le site de chaque nuit ; rend les numéros inconnus (leurs nuits restent sans site) et les
/// refus des sites ambigus.
pub(crate) fn rattacher_les_sites(
    nuits: &mut [NuitDeSaison],
    sites: &SitesDesNoms,
) -> (Inconnus, Vec<RefusDeNuit>) {
    let mut inconnus = BTreeMap::new();
    let mut refuses = Vec::new();
    for n in nuits.iter_mut() {
        let cle = (n.nuit.cle.site.clone(), n.nuit.cle.protocole);
        match &sites[&cle] {
            Ok(id) => n.site = Some(id.clone()),
            Err(SiteNonTrouve::Absent { suggestion }) => {
                inconnus.insert(cle, suggestion.clone());
            }
            Err(SiteNonTrouve::Ambigu(liste)) => {
                let motif = Motif::SiteAmbigu {
                    numero: cle.0,
                    sites: liste.clone(),
                };
                refuses.push(refus(&n.nuit.cle, motif));
            }
        }
    }
    (inconnus, refuses)
}

/// Un même site écrit de deux façons ferait deux participations du même point la même nuit.
pub(crate) fn sites_ecrits_deux_fois(sites: &SitesDesNoms) -> Vec<RefusDeNuit> {
    let mut ecritures: BTreeMap<(IdObjet, Protocole), BTreeSet<String>> = BTreeMap::new();
    for ((numero, protocole), site) in sites {
        if let Ok(id) = site {
            ecritures
                .entry((id.clone(), *protocole))
                .or_default()
                .insert(numero.clone());
        }
    }
    ecritures
        .into_iter()
        .filter(|(_, numeros)| numeros.len() > 1)
        .map(|((site, _), numeros)| RefusDeNuit {
            nuit: None,
            motif: Motif::SiteEcritDeuxFois { site, numeros },
        })
        .collect()
}

/// Les nuits déjà liées dans la base gardent leur plan. Rend les participations que tient
/// déjà un plan (aucune autre nuit ne les reprend).
pub(crate) fn lier_depuis_la_base(
    base: &Base,
    api: &str,
    fuseau: &Fuseau,
    nuits: &mut [NuitDeSaison],
) -> crate::plan::Resultat<HashSet<String>> {
    let mut prises: HashSet<String> = HashSet::new();
    for p in base.plans()? {
        if let Some(id) = p.participation.clone() {
            prises.insert(id);
        }
        if let Ok(d) = Destination::du_plan(&p)
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
            None => *saisons.entry(annee).or_insert(base.saison(api, annee)?),
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
    Ok(prises)
}

/// La participation `id` d'une nuit liée (plan `plan`), cherchée parmi celles de son site :
/// le motif du refus si elle n'y est plus (supprimée) ou n'est plus à `moi` (donnée à un autre
/// observateur sur le site web), rien sinon.
pub(crate) fn liee_changee(
    du_site: Option<&Vec<ParticipationLue>>,
    moi: &IdObjet,
    id: &str,
    plan: i64,
) -> Option<Motif> {
    match du_site.and_then(|liste| liste.iter().find(|p| p.id.as_str() == id)) {
        None => Some(Motif::LieeDisparue {
            id: id.to_owned(),
            plan,
        }),
        Some(p) if p.observateur.as_ref() != Some(moi) => Some(Motif::LieeDAutrui {
            id: id.to_owned(),
            plan,
            pseudo: p.pseudo.clone(),
        }),
        Some(_) => None,
    }
}

/// Une nuit liée d'une relance dont la participation est à vérifier : sa nuit, son plan, son
/// site, sa participation.
pub(crate) type LieeAVerifier<'n> = (&'n NuitPlanifiee, i64, IdObjet, String);

/// Les nuits liées d'une relance (`retenter-echecs`) dont la participation est connue (et
/// donc à vérifier) ; une nuit dont la participation reste à créer (création reportée) n'a
/// rien à vérifier : sa création se réconcilie par la relecture de son site.
pub(crate) fn liees_a_verifier<'n>(
    nuits: &'n [NuitPlanifiee],
    plans: &[DepotPlan],
) -> anyhow::Result<Vec<LieeAVerifier<'n>>> {
    let mut liees = Vec::new();
    for (n, plan) in nuits.iter().zip(plans) {
        if let Some(id) = participation_du_plan(plan) {
            let site = IdObjet::analyser(&n.nuit.site).ok_or_else(|| {
                anyhow::anyhow!("site de la nuit du plan {} illisible dans la base", plan.id)
            })?;
            liees.push((n, plan.id, site, id));
        }
    }
    Ok(liees)
}

/// Les refus d'une relance : chaque nuit liée dont la participation n'est plus sur son site,
/// ou plus à `moi` ([`liee_changee`]).
pub(crate) fn liees_changees_a_la_relance(
    liees: &[LieeAVerifier<'_>],
    participations: &HashMap<IdObjet, Vec<ParticipationLue>>,
    moi: &IdObjet,
) -> Vec<RefusDeNuit> {
    liees
        .iter()
        .filter_map(|(n, plan, site, id)| {
            let motif = liee_changee(participations.get(site), moi, id, *plan)?;
            Some(RefusDeNuit {
                nuit: Some(NuitDuRefus::Liee(n.nuit.clone())),
                motif,
            })
        })
        .collect()
}

/// Une nuit liée garde sa participation : elle doit encore être sur la plateforme, et à
/// l'utilisateur (supprimée ou donnée à un autre sur le site web depuis la dernière fois :
/// rien n'y part, ni ailleurs sans lui).
pub(crate) fn liees_changees(nuits: &[NuitDeSaison], lecture: &Lecture) -> Vec<RefusDeNuit> {
    let mut refuses = Vec::new();
    for n in nuits {
        let (Sort::Liee { plan }, Some(site)) = (&n.sort, n.site.as_ref()) else {
            continue;
        };
        let Some(id) = participation_du_plan(plan) else {
            continue;
        };
        let du_site = lecture.participations.get(site);
        if let Some(motif) = liee_changee(du_site, &lecture.moi, &id, plan.id) {
            refuses.push(refus(&n.nuit.cle, motif));
        }
    }
    refuses
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

fn datee(n: &NuitDeSaison) -> NuitDatee<'_> {
    NuitDatee {
        cle: &n.nuit.cle,
        bornes: n.bornes,
    }
}

/// Les participations candidates des nuits sans plan, site par site : celles de leur site
/// que ne tient aucun plan.
pub(crate) struct Candidates {
    /// Les nuits sans plan de chaque site (indices).
    par_site: BTreeMap<IdObjet, Vec<usize>>,
    vues: HashMap<IdObjet, Vec<ParticipationVue>>,
    /// Celles qui pourraient être une nuit : leur premier titre est à lire (preuve par les
    /// fichiers).
    pub(crate) a_prouver: Vec<IdObjet>,
}

/// Les candidates de chaque nuit sans plan (voir [`Candidates`]).
pub(crate) fn candidates(
    nuits: &[NuitDeSaison],
    lecture: &Lecture,
    prises: &HashSet<String>,
    fuseau: &Fuseau,
) -> Candidates {
    let mut par_site: BTreeMap<IdObjet, Vec<usize>> = BTreeMap::new();
    for (i, n) in nuits.iter().enumerate() {
        if matches!(n.sort, Sort::NonVerifiee)
            && let Some(site) = &n.site
        {
            par_site.entry(site.clone()).or_default().push(i);
        }
    }
    let mut vues_par_site = HashMap::new();
    let mut a_prouver = Vec::new();
    for (site, indices) in &par_site {
        let vues: Vec<ParticipationVue> = lecture.participations[site]
            .iter()
            .filter(|p| !prises.contains(p.id.as_str()))
            .map(vue)
            .collect();
        for p in &vues {
            let utile = indices.iter().any(|&i| {
                let v = verdict(p, &datee(&nuits[i]), &lecture.moi, fuseau);
                matches!(v, Verdict::Meme(_) | Verdict::SansPoint)
            });
            if utile {
                a_prouver.push(p.id.clone());
            }
        }
        vues_par_site.insert(site.clone(), vues);
    }
    Candidates {
        par_site,
        vues: vues_par_site,
        a_prouver,
    }
}

/// Ce que l'attribution dit : les refus, et les avertissements (dits avant les refus).
#[derive(Default)]
pub(crate) struct Attribuees {
    pub(crate) refus: Vec<RefusDeNuit>,
    pub(crate) avertissements: Vec<Avertissement>,
}

/// Attribue à chaque nuit sans plan sa participation parmi ses candidates (`titres` : le
/// premier titre de celles à prouver) ; une nuit à créer sans instants ne peut pas l'être.
pub(crate) fn attribuer_les_nuits(
    nuits: &mut [NuitDeSaison],
    mut candidates: Candidates,
    titres: &HashMap<IdObjet, String>,
    moi: &IdObjet,
    fuseau: &Fuseau,
) -> Attribuees {
    let mut a = Attribuees::default();
    for (site, indices) in &candidates.par_site {
        let mut vues = candidates.vues.remove(site).unwrap_or_default();
        for p in &mut vues {
            p.un_titre = titres.get(&p.id).cloned();
        }
        attribuer_un_site(nuits, indices, &vues, moi, fuseau, &mut a);
    }
    for n in nuits.iter() {
        if matches!(n.sort, Sort::ACreer) && n.bornes.is_none() {
            a.refus.push(refus(&n.nuit.cle, Motif::ACreerSansHeure));
        }
    }
    a
}

/// Les nuits `indices` d'un même site, parmi ses participations `vues`.
fn attribuer_un_site(
    nuits: &mut [NuitDeSaison],
    indices: &[usize],
    vues: &[ParticipationVue],
    moi: &IdObjet,
    fuseau: &Fuseau,
    a: &mut Attribuees,
) {
    let datees: Vec<NuitDatee<'_>> = indices.iter().map(|&i| datee(&nuits[i])).collect();
    let attribution = attribuer(&datees, vues, moi, fuseau);
    let cle = |k: usize| nuits[indices[k]].nuit.cle.clone();
    let mut sorts = Vec::with_capacity(indices.len());
    for (k, issue) in attribution.issues.into_iter().enumerate() {
        let motif = match issue {
            IssueNuit::Reprise {
                participation,
                preuve,
            } => {
                sorts.push(Some(Sort::Reprise {
                    participation,
                    preuve,
                }));
                continue;
            }
            IssueNuit::ACreer => {
                sorts.push(Some(Sort::ACreer));
                continue;
            }
            IssueNuit::Ambigue(ids) => Motif::Ambigue(ids),
            IssueNuit::SansPoint(ids) => Motif::SansPoint(ids),
            IssueNuit::Partagee {
                participation,
                nuits: autres,
            } => Motif::Partagee {
                participation,
                autres: autres.into_iter().map(cle).collect(),
            },
        };
        sorts.push(None);
        a.refus.push(refus(&cle(k), motif));
    }
    for (k, participation) in attribution.d_autrui {
        let nuit = cle(k);
        a.avertissements.push(Avertissement::DAutrui {
            nuit,
            participation,
        });
    }
    for (k, participation) in attribution.ecartees {
        let nuit = cle(k);
        a.avertissements.push(Avertissement::Ecartee {
            nuit,
            participation,
        });
    }
    for (k, sort) in sorts.into_iter().enumerate() {
        if let Some(s) = sort {
            nuits[indices[k]].sort = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> IdObjet {
        IdObjet::analyser(&format!("64a1b2c3d4e5f60718293c{n:02x}")).unwrap()
    }

    fn site(n: u8, numero: &str) -> SiteConnu {
        SiteConnu {
            id: id(n),
            titre: format!("Vigiechiro - Point Fixe-{numero}"),
            numero_grille: Some(numero.to_owned()),
            type_site: None,
        }
    }

    #[test]
    fn le_site_des_noms_impose_prefere_ambigu_ou_absent() {
        let propres = [site(1, "640380"), site(2, "640380"), site(3, "270")];
        let aucun = SitesDonnes::default();
        let pf = Protocole::PointFixe;
        assert!(matches!(
            site_des_noms("640380", pf, &aucun, &propres, None),
            Err(SiteNonTrouve::Ambigu(l)) if l.len() == 2
        ));
        let prefere = SitesDonnes {
            preferes: vec![id(2)],
            ..SitesDonnes::default()
        };
        assert_eq!(
            site_des_noms("640380", pf, &prefere, &propres, None).ok(),
            Some(id(2))
        );
        let impose = SitesDonnes {
            imposes: HashMap::from([("999999".to_owned(), id(9))]),
            ..SitesDonnes::default()
        };
        assert!(!faut_il_les_sites_des_participations(
            "999999", pf, &propres, &impose
        ));
        assert_eq!(
            site_des_noms("999999", pf, &impose, &propres, None).ok(),
            Some(id(9))
        );
        // Absent de ses sites : ceux de ses participations sont lus, puis cherchés.
        assert!(faut_il_les_sites_des_participations(
            "123456", pf, &propres, &aucun
        ));
        let autres = [site(4, "123456")];
        assert_eq!(
            site_des_noms("123456", pf, &aucun, &propres, Some(&autres)).ok(),
            Some(id(4))
        );
        assert!(matches!(
            site_des_noms("123457", pf, &aucun, &propres, Some(&autres)),
            Err(SiteNonTrouve::Absent { suggestion: Some(s) }) if s == "123456"
        ));
    }

    #[test]
    fn un_site_ecrit_de_deux_facons_est_refuse_une_fois() {
        let pf = Protocole::PointFixe;
        let sites: SitesDesNoms = BTreeMap::from([
            (("640380".to_owned(), pf), Ok(id(1))),
            (("0640380".to_owned(), pf), Ok(id(1))),
            (("270".to_owned(), pf), Ok(id(2))),
            (
                ("5".to_owned(), pf),
                Err(SiteNonTrouve::Absent { suggestion: None }),
            ),
        ]);
        let refus = sites_ecrits_deux_fois(&sites);
        assert_eq!(refus.len(), 1);
        assert!(refus[0].nuit.is_none());
        assert!(matches!(
            &refus[0].motif,
            Motif::SiteEcritDeuxFois { site, numeros } if *site == id(1) && numeros.len() == 2
        ));
    }
}
