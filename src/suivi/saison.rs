//! Ce que dit une saison, pour `vigie depot DOSSIER…`, `vigie etat`, `vigie plans` et
//! `vigie retenter-echecs` : les nuits en quelques mots (jour abrégé en français, heure de
//! l'enregistreur), leur sort, les refus d'avant toute écriture (tous dits d'un coup, code 2),
//! la simulation, le bilan et l'état de la saison, en 80 colonnes ou en lignes JSON.
//!
//! Les décisions sont dans `saison/` (le sort d'une nuit : `saison/sort.rs` ; les refus, en
//! valeurs : `saison/decision.rs`), le câblage dans `commandes/saison.rs`.

use std::collections::{BTreeSet, HashSet};
use std::io::{self, Write};

use anyhow::Result;
use chrono::{DateTime, NaiveDate};

use super::Evenement;
use super::calcul::ModeSortie;
use super::evenement::{Avertissement, PorteeSimulation};
use super::format::{neutraliser, octets_lisibles, pluriel, replier};
use super::reprise::{NuitDuConseil, conseil_de_reprise};
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::inventaire::Enregistrement;
use crate::plan::{CalculNote, DepotPlan, NuitLiee, NuitPlanifiee, ReglagesRetenus, ResumePlan};
use crate::plateforme::conseil::commande;
use crate::saison::correspondance::Preuve;
use crate::saison::course::Creation;
use crate::saison::decision::{self, Motif, NuitDuRefus, RefusDeNuit};
use crate::saison::designation::designation_courte;
use crate::saison::fuseau::Fuseau;
use crate::saison::nuits::{CleNuit, HorsNuit, Nuit, Protocole, RaisonHorsNuit};
use crate::saison::planification::NuitAEnvoyer;
use crate::saison::sites::SiteConnu;
use crate::saison::sort::{NuitDeSaison, Sort, participation_du_plan, protocole_texte};
use crate::sortie::{CodeSortie, ErreurAvecCode, NuitNommee};

pub(crate) use crate::depot::vigiechiro::adresse::adresse_participation;

/// Combien de fichiers un refus « hors nuit » cite.
const HORS_NUIT_CITES: usize = 10;
/// Combien de fichiers non rattachés sont cités, par numéro de site.
pub(crate) const NON_RATTACHES_CITES: usize = 3;

/// `--point` en saison.
pub(crate) const POINT_EN_SAISON: &str = "--point ne vaut qu'avec --site ID --debut D --fin F (une \
     seule participation à créer), ou pour une carte brute dont les noms ne le portent pas : en \
     saison, le point de chaque nuit est lu dans les noms ; rien n'a été envoyé";
/// Des dossiers sans un enregistrement.
pub(crate) const AUCUN_ENREGISTREMENT: &str =
    "aucun enregistrement à déposer dans ces dossiers ; rien n'a été envoyé";
/// L'en-tête des refus de site (ambigu).
pub(crate) const SITE_NON_TROUVE: &str =
    "Le site de ces nuits n'est pas trouvé ; rien n'a été envoyé :";
/// L'en-tête des refus d'un site écrit de deux façons.
pub(crate) const SITE_ECRIT_DEUX_FOIS: &str =
    "Le site de ces nuits est écrit de plusieurs façons ; rien n'a été envoyé :";
/// L'en-tête des refus de participation (ambiguë, sans point, partagée, à créer sans heure).
pub(crate) const PARTICIPATION_INCERTAINE: &str =
    "La participation de ces nuits est incertaine ; rien n'a été envoyé :";

/// L'en-tête des refus d'une nuit liée dont la participation a disparu ou n'est plus à
/// l'utilisateur.
pub(crate) const PARTICIPATION_LIEE_CHANGEE: &str =
    "La participation de ces nuits a changé sur la plateforme ; rien n'a été envoyé :";

pub(crate) use super::format::jour_court;

/// Une nuit de la base en quelques mots : `ven. 03/07 A1 Pass1`.
pub(crate) fn libelle_liee(n: &NuitLiee) -> String {
    match NaiveDate::parse_from_str(&n.soiree, "%Y-%m-%d") {
        Ok(s) => format!("{} {} Pass{}", jour_court(s), n.point, n.passage),
        Err(_) => format!("circuit {} Pass{}", n.numero_site, n.passage),
    }
}

/// Une nuit en une courte ligne : `sam. 20/06  A1  Pass1` (routier : `circuit 270  Pass1`).
pub(crate) fn libelle_cle(cle: &CleNuit) -> String {
    match (cle.soiree, cle.point.as_deref()) {
        (Some(s), Some(p)) => format!("{}  {:<4}  Pass{}", jour_court(s), p, cle.passage),
        _ => format!("circuit {}  Pass{}", cle.site, cle.passage),
    }
}

/// Une nuit en quelques mots, sans colonnes : `sam. 20/06 A1 Pass1`.
pub(crate) fn libelle_court(cle: &CleNuit) -> String {
    match (cle.soiree, cle.point.as_deref()) {
        (Some(s), Some(p)) => format!("{} {} Pass{}", jour_court(s), p, cle.passage),
        _ => format!("circuit {} Pass{}", cle.site, cle.passage),
    }
}

/// L'adresse de la participation, ou, pour une autre API, `participation ID`.
pub(crate) fn adresse_ou_identifiant(api: &str, id: &str) -> String {
    adresse_participation(api, id).unwrap_or_else(|| format!("participation {id}"))
}

// ------------------------------------------------------------------------------- les refus

/// Les refus d'avant toute écriture, dits tous d'un coup (code 2).
#[derive(Default)]
struct Refus {
    lignes: Vec<String>,
    /// Les nuits dont dépendent ces refus (`--json` : `nuits` de l'événement `erreur`).
    nuits: Vec<NuitNommee>,
}

/// Une nuit telle que la nomme une erreur (`--json`).
pub(crate) fn nuit_nommee(cle: &CleNuit) -> NuitNommee {
    NuitNommee {
        numero_site: cle.site.clone(),
        passage: cle.passage,
        point: cle.point.clone(),
        soiree: cle.soiree.map(|s| s.to_string()),
    }
}

impl Refus {
    fn ajouter(&mut self, texte: &str) {
        self.lignes.extend(replier(texte, 79));
    }

    /// Un refus qui dépend de cette nuit : elle sera nommée par l'erreur.
    fn nommer(&mut self, cle: &CleNuit) {
        self.nommer_une(nuit_nommee(cle));
    }

    /// Comme [`Refus::nommer`], pour une nuit lue dans la base.
    fn nommer_liee(&mut self, n: &NuitLiee) {
        let non_vide = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        self.nommer_une(NuitNommee {
            numero_site: n.numero_site.clone(),
            passage: n.passage,
            point: non_vide(&n.point),
            soiree: non_vide(&n.soiree),
        });
    }

    fn nommer_une(&mut self, n: NuitNommee) {
        if !self.nuits.contains(&n) {
            self.nuits.push(n);
        }
    }

    /// Rien si aucun refus ; sinon l'en-tête et les refus sur la sortie d'erreur (pas en
    /// JSON), et l'erreur de code 2.
    fn rendre(self, json: bool, entete: &str) -> Result<()> {
        if self.lignes.is_empty() {
            return Ok(());
        }
        if !json {
            let mut e = crate::sortie::erreur();
            writeln!(e, "{entete}")?;
            for l in &self.lignes {
                writeln!(e, "{}", neutraliser(l))?;
            }
        }
        Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            format!(
                "{} (voir ci-dessus) ; corrigez, puis relancez la même commande",
                entete.trim_end_matches(" :")
            ),
        )
        .avec_nuits(self.nuits)
        .into())
    }
}

/// Les refus d'une étape (`saison/decision.rs`), dits tous d'un coup sous `entete` : chaque
/// nuit nommée, chaque phrase une fois ; l'erreur de code 2 s'il y en a.
pub(crate) fn refuser(json: bool, api: &str, entete: &str, refuses: &[RefusDeNuit]) -> Result<()> {
    let mut refus = Refus::default();
    let mut dits = HashSet::new();
    for r in refuses {
        match &r.nuit {
            Some(NuitDuRefus::Cle(cle)) => refus.nommer(cle),
            Some(NuitDuRefus::Liee(n)) => refus.nommer_liee(n),
            None => {}
        }
        let texte = texte_du_refus(api, r);
        if dits.insert(texte.clone()) {
            refus.ajouter(&texte);
        }
    }
    refus.rendre(json, entete)
}

/// La phrase d'un refus.
fn texte_du_refus(api: &str, r: &RefusDeNuit) -> String {
    let libelle = match &r.nuit {
        Some(NuitDuRefus::Cle(cle)) => libelle_court(cle),
        Some(NuitDuRefus::Liee(n)) => libelle_liee(n),
        None => String::new(),
    };
    match &r.motif {
        Motif::SiteAmbigu { numero, sites } => {
            site_ambigu(numero, &sites.iter().collect::<Vec<_>>())
        }
        Motif::SiteEcritDeuxFois { site, numeros } => site_ecrit_deux_fois(site, numeros),
        Motif::LieeDisparue { id, plan } => participation_liee_disparue(&libelle, id, *plan),
        Motif::LieeDAutrui { id, plan, pseudo } => {
            participation_liee_d_autrui(&libelle, id, *plan, pseudo.as_deref())
        }
        Motif::Ambigue(ids) => participation_ambigue(api, &libelle, ids),
        Motif::SansPoint(ids) => participation_sans_point(api, &libelle, ids),
        Motif::Partagee {
            participation,
            autres,
        } => {
            let autres: Vec<String> = autres.iter().map(libelle_court).collect();
            participation_partagee(api, participation, &libelle, &autres)
        }
        Motif::ACreerSansHeure => a_creer_sans_heure(&libelle),
    }
}

/// Les refus « hors nuit » : chaque fichier d'aucune nuit, et pourquoi (`enregistrements` :
/// la liste donnée au regroupement).
pub(crate) fn refuser_hors_nuit(
    json: bool,
    enregistrements: &[Enregistrement],
    nuits: &[Nuit],
    hors: &[HorsNuit],
) -> Result<()> {
    let mut refus = Refus::default();
    for h in hors.iter().take(HORS_NUIT_CITES) {
        let chemin = &enregistrements[h.fichier].chemin;
        let pourquoi = match &h.raison {
            RaisonHorsNuit::HorodatageImpossible => {
                "horodatage impossible → vérifiez l'horloge de l'enregistreur, puis renommez"
                    .to_owned()
            }
            RaisonHorsNuit::AucuneNuitAutour => {
                "aucune séquence dans son dossier → rangez-la dans le dossier de sa nuit".to_owned()
            }
            RaisonHorsNuit::PlusieursNuitsAutour(lesquelles) => format!(
                "son dossier contient {} nuits ({}) → rangez-la dans le dossier de sa nuit, ou \
                 déposez-la seule : {}",
                lesquelles.len(),
                lesquelles
                    .iter()
                    .map(|&n| libelle_court(&nuits[n].cle))
                    .collect::<Vec<_>>()
                    .join(", "),
                commande("depot").args(["DOSSIER", "--participation", "ID"])
            ),
        };
        refus.ajouter(&format!("  {chemin} : {pourquoi}"));
    }
    if hors.len() > HORS_NUIT_CITES {
        refus.ajouter(&format!("  … et {} autres", hors.len() - HORS_NUIT_CITES));
    }
    if json && !hors.is_empty() {
        Evenement::Avertissement {
            motif: Avertissement::HorsNuit {
                chemins: hors
                    .iter()
                    .map(|h| enregistrements[h.fichier].chemin.as_str())
                    .collect(),
            },
        }
        .ecrire()?;
    }
    refus.rendre(
        json,
        "Ces fichiers ne se rattachent à aucune nuit ; rien n'a été envoyé :",
    )
}

/// Une valeur de `--site` qui n'est ni `ID` ni `NUMERO=ID`.
pub(crate) fn site_donne_invalide(v: &str) -> String {
    format!(
        "--site « {} » : attendu l'identifiant du site (24 chiffres hexadécimaux, la fin de \
         l'adresse de sa page) ou NUMERO=ID (ex. 640380=64a1…)",
        v.chars().take(60).collect::<String>().escape_debug()
    )
}

/// Une lecture de la plateforme qui manque (`detail` : pourquoi).
pub(crate) fn lecture_impossible(cible: &str, detail: &str) -> String {
    format!("lecture de {cible} impossible, rien n'a été envoyé : {detail}")
}

/// Des sites nommés dans un message : au plus [`SITES_NOMMES`], puis combien d'autres. Chaque
/// titre tient déjà sur une ligne (borné à sa lecture) ; la liste, elle, tient en quelques
/// lignes, quel que soit le nombre de sites.
const SITES_NOMMES: usize = 10;

/// Plusieurs sites de l'utilisateur portent le numéro des noms.
fn site_ambigu(numero: &str, liste: &[&SiteConnu]) -> String {
    let mut sites = liste
        .iter()
        .take(SITES_NOMMES)
        .map(|s| format!("{} ({})", s.titre, s.id))
        .collect::<Vec<_>>()
        .join(", ");
    if liste.len() > SITES_NOMMES {
        sites.push_str(&format!(" et {} autres", liste.len() - SITES_NOMMES));
    }
    format!("Plusieurs de vos sites portent le numéro {numero} : {sites} → choisissez : --site ID")
}

/// Les fichiers d'un numéro de site qu'aucun site de l'utilisateur ne porte (les fichiers
/// d'un ami mêlés à la carte, une faute de frappe) : ils ne partent pas.
pub(crate) struct NonRattaches {
    /// Le numéro de site des noms (`640381` de `Car640381`).
    pub(crate) numero: String,
    pub(crate) protocole: Protocole,
    /// Combien de nuits ils font.
    pub(crate) nuits: usize,
    /// Combien de fichiers.
    pub(crate) fichiers: usize,
    /// Les premiers de leurs chemins (relatifs aux dossiers donnés), dans l'ordre.
    pub(crate) exemples: Vec<String>,
    /// Le numéro d'un de ses sites à une faute de frappe près.
    pub(crate) suggestion: Option<String>,
}

impl NonRattaches {
    /// Les fichiers des nuits écartées, groupés par numéro de site des noms inconnu (avec la
    /// faute de frappe suggérée) ; `enregistrements` : ceux que les nuits désignent.
    pub(crate) fn des_ecartees(
        ecartees: &[NuitDeSaison],
        inconnus: &decision::Inconnus,
        enregistrements: &[Enregistrement],
    ) -> Vec<NonRattaches> {
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
            groupes.push(NonRattaches {
                numero: numero.clone(),
                protocole: *protocole,
                nuits: des_nuits.len(),
                fichiers: chemins.len(),
                exemples: chemins
                    .iter()
                    .take(NON_RATTACHES_CITES)
                    .map(|c| (*c).to_owned())
                    .collect(),
                suggestion: suggestion.clone(),
            });
        }
        groupes
    }
}

fn prefixe_des_noms(p: Protocole) -> &'static str {
    match p {
        Protocole::PointFixe => "Car",
        Protocole::Routier => "Cir",
    }
}

/// Dit les fichiers non rattachés, avant tout envoi : le compte, quelques exemples, la raison
/// et quoi faire, par numéro de site (en JSON : un `avertissement` `non_rattaches` par
/// numéro). `aucune_nuit_juste` : rien d'autre ne part, c'est alors le refus (code 2).
pub(crate) fn non_rattaches(
    m: ModeSortie,
    groupes: &[NonRattaches],
    aucune_nuit_juste: bool,
) -> Result<()> {
    if groupes.is_empty() {
        return Ok(());
    }
    let fichiers: usize = groupes.iter().map(|g| g.fichiers).sum();
    let nuits: usize = groupes.iter().map(|g| g.nuits).sum();
    if m.json {
        for g in groupes {
            Evenement::Avertissement {
                motif: Avertissement::NonRattaches {
                    numero_site: &g.numero,
                    protocole: protocole_texte(g.protocole),
                    nuits: g.nuits,
                    fichiers: g.fichiers,
                    exemples: g.exemples.iter().map(String::as_str).collect(),
                    suggestion: g.suggestion.as_deref(),
                },
            }
            .ecrire()?;
        }
    } else if !m.silencieux || aucune_nuit_juste {
        let mut e = crate::sortie::erreur();
        let entete = format!(
            "attention : {} ({}) ne se rattachent à aucun de vos sites ; ils ne partent pas{} :",
            pluriel(fichiers as u64, "fichier", "fichiers"),
            pluriel(nuits as u64, "nuit", "nuits"),
            if aucune_nuit_juste {
                ""
            } else {
                ", les autres nuits si"
            }
        );
        for l in replier(&entete, 79) {
            writeln!(e, "{}", neutraliser(&l))?;
        }
        for g in groupes {
            groupe_non_rattache(&mut e, g)?;
        }
    }
    if aucune_nuit_juste {
        return Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            "aucune nuit ne se rattache à vos sites (voir ci-dessus) ; rien n'a été envoyé",
        )
        .into());
    }
    Ok(())
}

/// Un numéro de site non rattaché : la raison (et le site proche, s'il y en a un), quelques
/// fichiers, le geste.
fn groupe_non_rattache(e: &mut impl Write, g: &NonRattaches) -> io::Result<()> {
    let prefixe = prefixe_des_noms(g.protocole);
    let numero = &g.numero;
    let raison = match &g.suggestion {
        Some(proche) => format!(
            "  {prefixe}{numero}-… : aucun de vos sites ne porte ce numéro ; vouliez-vous \
             dire {proche} ? ({})",
            pluriel(g.fichiers as u64, "fichier", "fichiers")
        ),
        None => format!(
            "  {prefixe}{numero}-… : aucun de vos sites ne porte ce numéro ({})",
            pluriel(g.fichiers as u64, "fichier", "fichiers")
        ),
    };
    for l in replier(&raison, 79) {
        writeln!(e, "{}", neutraliser(&l))?;
    }
    for c in &g.exemples {
        writeln!(e, "    {}", neutraliser(c))?;
    }
    if g.fichiers > NON_RATTACHES_CITES {
        writeln!(e, "    … et {} autres", g.fichiers - NON_RATTACHES_CITES)?;
    }
    let geste = match &g.suggestion {
        Some(proche) => format!(
            "    → une faute de frappe : renommez-les ({prefixe}{proche}-…) ; si c'est \
             bien un de vos sites : --site {numero}=ID (ID : fin de l'adresse de la \
             page du site)"
        ),
        None => format!(
            "    → s'ils ne sont pas à vous, retirez-les de la carte ; si c'est un de vos \
             sites : --site {numero}=ID (ID : fin de l'adresse de la page du site)"
        ),
    };
    for l in replier(&geste, 79) {
        writeln!(e, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// Le rappel, après le bilan : des fichiers de la carte ne sont pas partis (code 3).
pub(crate) fn rappel_non_rattaches(m: ModeSortie, groupes: &[NonRattaches]) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    let fichiers: usize = groupes.iter().map(|g| g.fichiers).sum();
    let numeros: Vec<String> = groupes
        .iter()
        .map(|g| format!("{}{}", prefixe_des_noms(g.protocole), g.numero))
        .collect();
    let texte = format!(
        "Non rattachés : {} ({}) ne sont pas partis : voir plus haut.",
        pluriel(fichiers as u64, "fichier", "fichiers"),
        numeros.join(", ")
    );
    let mut s = crate::sortie::standard();
    for l in replier(&texte, 79) {
        writeln!(s, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// Un même site écrit de deux façons dans les noms (`Car640380`, `Car0640380`).
fn site_ecrit_deux_fois(id: &IdObjet, numeros: &BTreeSet<String>) -> String {
    format!(
        "Les noms écrivent le site {id} de {} façons ({}) : ses nuits feraient deux \
         participations → renommez les fichiers pour n'écrire le numéro que d'une façon, puis \
         relancez",
        numeros.len(),
        numeros.iter().cloned().collect::<Vec<_>>().join(", ")
    )
}

fn adresses(api: &str, ids: &[IdObjet]) -> String {
    ids.iter()
        .map(|id| adresse_ou_identifiant(api, id.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Plusieurs participations de la plateforme sont cette nuit.
fn participation_ambigue(api: &str, libelle: &str, ids: &[IdObjet]) -> String {
    format!(
        "La nuit {libelle} a plusieurs participations sur la plateforme : {} → vigie ne \
         choisit pas : corrigez la date ou le point de l'une sur le site web, puis relancez ; \
         ou déposez cette nuit seule : {}",
        adresses(api, ids),
        commande("depot").args(["DOSSIER-DE-LA-NUIT", "--participation", "ID"])
    )
}

/// Une participation sans point tombe sur la nuit.
fn participation_sans_point(api: &str, libelle: &str, ids: &[IdObjet]) -> String {
    format!(
        "La participation {} (sans point) tombe sur la nuit {libelle} → indiquez son point sur \
         le site web, puis relancez",
        adresses(api, ids)
    )
}

/// Une participation convient à plusieurs nuits (`autres` : les libellés des autres).
fn participation_partagee(
    api: &str,
    participation: &IdObjet,
    libelle: &str,
    autres: &[String],
) -> String {
    format!(
        "La participation {} convient à plusieurs nuits ({libelle}, {}) → corrigez ses dates \
         sur le site web, puis relancez",
        adresse_ou_identifiant(api, participation.as_str()),
        autres.join(", ")
    )
}

/// Une nuit à créer dont les noms ne disent pas l'heure (routier).
fn a_creer_sans_heure(libelle: &str) -> String {
    format!(
        "La nuit {libelle} n'a pas de participation, ses noms ne disent pas d'heure, et les \
         dates de ses fichiers non plus (plus de 24 h d'écart, ou dans le futur : copiés sans \
         leurs dates ?) → créez la participation sur le site web, puis relancez ; ou \
         déposez-la seule : {}",
        commande("depot").args(["DOSSIER", "--site", "ID", "--debut", "D", "--fin", "F"])
    )
}

/// Une nuit liée (plan `plan`) dont la participation `id` n'est plus sur la plateforme.
fn participation_liee_disparue(libelle: &str, id: &str, plan: i64) -> String {
    format!(
        "La participation {id} de la nuit {libelle} (plan {plan}) n'est plus sur la \
         plateforme (supprimée ?) → vigie ne dépose pas cette nuit ailleurs sans vous : \
         vérifiez sur le site web, puis retirez son dossier de la commande, ou déposez-la \
         seule dans une autre participation : {}",
        commande("depot").args(["DOSSIER", "--participation", "ID"])
    )
}

/// Une nuit liée (plan `plan`) dont la participation `id` est maintenant à un autre
/// observateur.
fn participation_liee_d_autrui(libelle: &str, id: &str, plan: i64, a_qui: Option<&str>) -> String {
    let a_qui = a_qui.map_or_else(
        || "un autre observateur".to_owned(),
        |p| format!("« {} »", neutraliser(p)),
    );
    format!(
        "La participation {id} de la nuit {libelle} (plan {plan}) est maintenant à {a_qui}, \
         pas à vous → vigie n'y dépose plus rien : vérifiez sur le site web (ou \
         connectez-vous avec le compte de cet observateur : {})",
        commande("connexion")
    )
}

/// La saison `annee` est déjà tenue par un autre `vigie` (le processus `pid`, s'il est connu).
pub(crate) fn saison_occupee(annee: u16, pid: Option<u32>) -> String {
    let qui = pid.map_or_else(
        || "un autre vigie".to_owned(),
        |p| format!("un autre vigie (processus {p})"),
    );
    format!(
        "la saison {annee} est déjà en cours de dépôt par {qui} ; rien n'a été envoyé : \
         attendez qu'il finisse, ou arrêtez-le, puis relancez"
    )
}

/// La racine d'une nuit liée est montée (des fichiers de la nuit hors de l'ancienne) : dit sur
/// la sortie d'erreur (statut), ou en JSON (`avertissement`, motif `racine_montee`).
pub(crate) fn racine_montee(
    m: ModeSortie,
    libelle: &str,
    plan: &DepotPlan,
    nouvelle: &str,
) -> Result<()> {
    if m.json {
        Evenement::Avertissement {
            motif: Avertissement::RacineMontee {
                plan: plan.id,
                ancien_dossier: &plan.dossier,
                dossier: nouvelle,
            },
        }
        .ecrire()?;
        return Ok(());
    }
    if m.silencieux {
        return Ok(());
    }
    let texte = format!(
        "La nuit {libelle} (plan {}) a des fichiers hors de {} : son plan part maintenant de {} \
         (rien de déjà déposé ne repart)",
        plan.id,
        neutraliser(&plan.dossier),
        neutraliser(nouvelle)
    );
    let mut e = crate::sortie::erreur();
    for l in replier(&texte, 79) {
        writeln!(e, "{l}")?;
    }
    Ok(())
}

// ------------------------------------------------------------------------ les avertissements

/// Un avertissement sur une participation : replié sur la sortie d'erreur, ou l'événement
/// `avertissement` (`motif`, `participation`).
fn avertir(m: ModeSortie, motif: Avertissement<'_>, texte: &str) -> Result<()> {
    if m.json {
        Evenement::Avertissement { motif }.ecrire()?;
    } else if !m.silencieux {
        let mut e = crate::sortie::erreur();
        for l in replier(texte, 79) {
            writeln!(e, "{}", neutraliser(&l))?;
        }
    }
    Ok(())
}

/// La participation d'un autre observateur tombe sur la nuit.
fn avertir_d_autrui(m: ModeSortie, api: &str, id: &IdObjet, libelle: &str) -> Result<()> {
    avertir(
        m,
        Avertissement::ParticipationDAutrui {
            participation: id.as_str(),
        },
        &format!(
            "attention : la participation {} d'un autre observateur tombe sur la nuit {libelle} \
             ; elle n'est pas reprise",
            adresse_ou_identifiant(api, id.as_str())
        ),
    )
}

/// Une participation qui convenait aussi à la nuit, écartée pour une autre.
fn avertir_ecartee(m: ModeSortie, api: &str, id: &IdObjet, libelle: &str) -> Result<()> {
    avertir(
        m,
        Avertissement::ParticipationEcartee {
            participation: id.as_str(),
        },
        &format!(
            "attention : la participation {} convenait aussi à la nuit {libelle} ; une autre, \
             qui contient déjà ses fichiers, est retenue",
            adresse_ou_identifiant(api, id.as_str())
        ),
    )
}

/// Une participation qui convenait, dite sans refus (`saison/decision.rs`).
pub(crate) fn avertir_attribution(
    m: ModeSortie,
    api: &str,
    a: &decision::Avertissement,
) -> Result<()> {
    match a {
        decision::Avertissement::DAutrui {
            nuit,
            participation,
        } => avertir_d_autrui(m, api, participation, &libelle_court(nuit)),
        decision::Avertissement::Ecartee {
            nuit,
            participation,
        } => avertir_ecartee(m, api, participation, &libelle_court(nuit)),
    }
}

/// Des fichiers déjà déposés de la nuit ont changé depuis : ils ne repartent pas.
pub(crate) fn avertir_modifies(m: ModeSortie, combien: usize, libelle: &str) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    writeln!(
        crate::sortie::erreur(),
        "  attention : {combien} fichier(s) déjà déposé(s) de la nuit {libelle} ont changé \
         depuis et ne sont pas renvoyés ; ajoutez --redeposer-modifies pour les renvoyer"
    )
}

// ------------------------------------------------------------------- les nuits, leur sort

/// Ce que dit une nuit de son sort, en quelques mots ; le mot du JSON (`issue`) ; sa
/// participation, si elle est connue.
pub(crate) fn sort_texte(s: &Sort) -> (String, &'static str, Option<String>) {
    match s {
        // Une nuit de la base dont la participation n'a pas pu être créée (refusée, ou
        // reportée) : elle est encore à créer, pas « reprise ».
        Sort::Liee { plan } => match participation_du_plan(plan) {
            Some(p) => ("reprise (déjà dans la base)".to_owned(), "base", Some(p)),
            None => ("à créer".to_owned(), "a_creer", None),
        },
        Sort::Reprise {
            participation,
            preuve,
        } => (
            match preuve {
                Preuve::Fichiers => "reprise (a déjà ses fichiers)".to_owned(),
                Preuve::Dates => "reprise (même point, même soir)".to_owned(),
            },
            match preuve {
                Preuve::Fichiers => "fichiers",
                Preuve::Dates => "dates",
            },
            Some(participation.to_string()),
        ),
        Sort::ACreer => ("à créer".to_owned(), "a_creer", None),
        Sort::NonVerifiee => ("non vérifiée (hors ligne)".to_owned(), "non_verifiee", None),
    }
}

/// Une ligne par nuit, sur la sortie d'erreur (statut) ou en JSON (`nuit`).
pub(crate) fn annoncer_nuits(
    m: ModeSortie,
    api: &str,
    nuits: &[NuitDeSaison],
    enregistrements: &[Enregistrement],
) -> Result<()> {
    if m.json {
        for n in nuits {
            let (_, issue, participation) = sort_texte(&n.sort);
            let cle = &n.nuit.cle;
            Evenement::Nuit {
                numero_site: &cle.site,
                site: n.site.as_ref().map(IdObjet::as_str),
                protocole: protocole_texte(cle.protocole),
                passage: cle.passage,
                point: cle.point.as_deref(),
                soiree: cle.soiree.map(|s| s.to_string()),
                debut: n.bornes.map(|(d, _)| d.to_rfc3339()),
                fin: n.bornes.map(|(_, f)| f.to_rfc3339()),
                enregistreurs: n.nuit.enregistreurs.iter().map(String::as_str).collect(),
                fichiers: n.nuit.fichiers.len(),
                octets: n.octets(enregistrements),
                issue,
                participation,
            }
            .ecrire()?;
        }
        return Ok(());
    }
    if m.silencieux {
        return Ok(());
    }
    let mut e = crate::sortie::erreur();
    writeln!(
        e,
        "Saison : {}, {}.",
        pluriel(nuits.len() as u64, "nuit", "nuits"),
        pluriel(enregistrements.len() as u64, "fichier", "fichiers")
    )?;
    for n in nuits {
        let (texte, _, participation) = sort_texte(&n.sort);
        writeln!(
            e,
            "  {}  {:>15}  {}",
            libelle_cle(&n.nuit.cle),
            pluriel(n.nuit.fichiers.len() as u64, "fichier", "fichiers"),
            texte
        )?;
        if let Some(id) = participation.and_then(|id| adresse_participation(api, &id)) {
            writeln!(e, "    {id}")?;
        }
    }
    Ok(())
}

/// La destination du plan est une participation à créer (vers la plateforme, par son site et
/// sa soirée).
fn participation_a_creer(plan: &DepotPlan) -> bool {
    crate::depot::fabrique::Destination::du_plan(plan).is_ok_and(|d| {
        crate::depot::vigiechiro::DestinationVigieChiro::de(&d).is_some()
            && d.participation_donnee().is_none()
    })
}

/// `--simulation` en saison : les nuits, puis ce qui serait fait (rien n'est écrit ni créé) :
/// `a_envoyer`, les fichiers et les octets que le dépôt enverrait (sans ce qui est déjà
/// déposé).
pub(crate) fn simulation(
    m: ModeSortie,
    api: &str,
    nuits: &[NuitDeSaison],
    enregistrements: &[Enregistrement],
    (unites, octets): (usize, u64),
    hors_ligne: bool,
) -> Result<()> {
    annoncer_nuits(m, api, nuits, enregistrements)?;
    let a_creer = nuits
        .iter()
        .filter(|n| matches!(n.sort, Sort::ACreer))
        .count();
    if m.json {
        Evenement::Simulation {
            portee: PorteeSimulation::Saison {
                nuits: nuits.len(),
                a_creer,
                hors_ligne,
            },
            unites,
            octets,
        }
        .ecrire()?;
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    if hors_ligne {
        writeln!(
            s,
            "Participations non vérifiées : pas de jeton ({}), la plateforme n'a pas été lue.",
            commande("connexion")
        )?;
    }
    writeln!(
        s,
        "Simulation : {}, {} participation(s) à créer, {} ({}) à envoyer ; rien n'a été envoyé \
         ni créé.",
        pluriel(nuits.len() as u64, "nuit", "nuits"),
        a_creer,
        pluriel(unites as u64, "fichier", "fichiers"),
        octets_lisibles(octets)
    )?;
    Ok(())
}

// ------------------------------------------------------------------------------- l'envoi

/// Ce qu'il advient de la création de la participation de `nuit` (`saison::course`).
pub(crate) fn creation(
    m: ModeSortie,
    api: &str,
    nuit: &NuitAEnvoyer,
    creation: Creation<'_>,
) -> Result<()> {
    let (plan, libelle) = (nuit.plan.id, nuit.libelle.as_str());
    match creation {
        Creation::Creee(id) => participation_creee(m, api, libelle, id)?,
        Creation::Reportee {
            erreur,
            jusqu_au_bout,
        } => creation_reportee(m, plan, libelle, erreur, jusqu_au_bout)?,
        Creation::Refusee(erreur) => creation_refusee(m, plan, libelle, erreur)?,
    }
    Ok(())
}

/// Une participation créée pour une nuit, et son adresse.
fn participation_creee(m: ModeSortie, api: &str, libelle: &str, id: &IdObjet) -> Result<()> {
    // Son adresse sur le site web ; sans site web connu (une autre API), pas d'identifiant à
    // l'écran : `--json` et `vigie participations` le donnent.
    if !m.json && !m.silencieux {
        let mut e = crate::sortie::erreur();
        match adresse_participation(api, id.as_str()) {
            Some(adresse) => writeln!(e, "Participation créée pour {libelle} :\n    {adresse}")?,
            None => writeln!(e, "Participation créée pour {libelle}.")?,
        }
    }
    Ok(())
}

/// Une création qui a échoué transitoirement : la nuit reste à créer, retentée au passage
/// suivant (`jusqu_au_bout`) ou à la prochaine relance. En JSON : `avertissement`, motif
/// `creation_reportee` ; en texte, sur la sortie d'erreur, dans 80 colonnes.
fn creation_reportee(
    m: ModeSortie,
    plan: i64,
    libelle: &str,
    e: &anyhow::Error,
    jusqu_au_bout: bool,
) -> io::Result<()> {
    let cause = format!("{e:#}");
    if m.json {
        return Evenement::Avertissement {
            motif: Avertissement::CreationReportee {
                plan,
                nuit: libelle,
                cause,
                reprise: if jusqu_au_bout {
                    "passage_suivant"
                } else {
                    "relance"
                },
            },
        }
        .ecrire();
    }
    let suite = if jusqu_au_bout {
        "nouvel essai au passage suivant"
    } else {
        "elle sera reprise à la prochaine relance (la même commande)"
    };
    let texte = format!("nuit {libelle} : participation pas encore créée ({cause}) ; {suite}");
    let mut err = crate::sortie::erreur();
    for l in replier(&texte, 79) {
        writeln!(err, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// Les nuits à reprendre retiennent des réglages différents (déposées par deux commandes) :
/// rien ne se mêle en silence, les réglages voulus se donnent.
pub(crate) fn reglages_differents(
    retenus: &[(ReglagesRetenus, Vec<&str>)],
    lisibles: fn(&ReglagesRetenus) -> Vec<String>,
) -> String {
    let liste: Vec<String> = retenus
        .iter()
        .map(|(r, nuits)| format!("{} ({})", lisibles(r).join(", "), nuits.join(", ")))
        .collect();
    format!(
        "les nuits à reprendre ont été déposées avec des réglages différents : {} ; rien n'a été \
         envoyé → donnez les réglages voulus (par exemple --debit-max 1Mo/s) : ils vaudront \
         pour toute la saison",
        liste.join(" ; ")
    )
}

/// Une création refusée (pas un jeton refusé : cela arrête tout) : la nuit est nommée, rien
/// ne part pour elle, les autres partent. En JSON : `avertissement`, motif `creation_refusee`.
fn creation_refusee(m: ModeSortie, plan: i64, libelle: &str, e: &anyhow::Error) -> io::Result<()> {
    let cause = format!("{e:#}");
    if m.json {
        return Evenement::Avertissement {
            motif: Avertissement::CreationRefusee {
                plan,
                nuit: libelle,
                cause,
            },
        }
        .ecrire();
    }
    let texte = format!(
        "nuit {libelle} : {cause} ; cette nuit seule attend, les autres partent → corrigez la \
         cause, puis reprenez la saison : {}",
        commande("retenter-echecs")
    );
    let mut err = crate::sortie::erreur();
    for l in replier(&texte, 79) {
        writeln!(err, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// L'en-tête d'une nuit, avant son envoi : les barres de la nuit d'avant effacées d'abord
/// (écrit sous elles, il se collait à leur dernière ligne, et leur effacement, qui remonte
/// d'autant de lignes qu'elles en tenaient, laissait à l'écran une barre figée).
pub(crate) fn entete_de_nuit(m: ModeSortie, libelle: &str, plan: i64) -> io::Result<()> {
    if m.json || m.silencieux {
        return Ok(());
    }
    super::liberer_terminal();
    writeln!(crate::sortie::erreur(), "— Nuit {libelle} (plan {plan}) —")
}

// ------------------------------------------------------------------ bilan et état de saison

/// L'état d'une nuit en un mot : `déposée`, `en cours` (un dépôt la tient : `tenue`),
/// `entamée` (à moitié déposée, et rien ne tourne), `à déposer`, `à créer`, `N en échec`,
/// `N refusés`, `N incertains` ; et le mot du JSON.
pub(crate) fn etat_de_nuit(
    plan: &DepotPlan,
    r: &ResumePlan,
    tenue: bool,
) -> (String, &'static str) {
    if r.definitifs > 0 {
        (pluriel(r.definitifs, "refusé", "refusés"), "refus")
    } else if r.echec > 0 {
        (format!("{} en échec", r.echec), "echecs")
    } else if r.incertaine > 0 {
        (pluriel(r.incertaine, "incertain", "incertains"), "echecs")
    } else if r.total() > 0 && r.deposee == r.total() {
        ("déposée".to_owned(), "deposee")
    } else if plan.participation.is_none() && participation_a_creer(plan) {
        ("à créer".to_owned(), "a_creer")
    } else if (r.deposee > 0 || r.en_cours > 0) && tenue {
        ("en cours".to_owned(), "en_cours")
    } else if r.deposee > 0 || r.en_cours > 0 {
        // Un fichier noté en cours sans processus vivant pour le tenir (terminal fermé,
        // kill -9) : rien ne tourne, la nuit est entamée.
        ("entamée".to_owned(), "entamee")
    } else {
        ("à déposer".to_owned(), "a_deposer")
    }
}

/// Une nuit de la base en une ligne de 80 colonnes au plus, à l'heure de l'enregistreur :
/// `sam. 20/06 21:31→05:58  A1    Pass1   1 612 / 1 612  déposée`.
pub(crate) fn ligne_de_nuit(n: &NuitLiee, plan: &DepotPlan, r: &ResumePlan, tenue: bool) -> String {
    let fuseau = Fuseau::analyser(&n.fuseau).unwrap_or(Fuseau::Local);
    let heure = |s: Option<i64>| {
        s.and_then(|s| DateTime::from_timestamp(s, 0))
            .map(|t| t.with_timezone(&fuseau).naive_local())
    };
    let quand = match (
        NaiveDate::parse_from_str(&n.soiree, "%Y-%m-%d").ok(),
        heure(n.premiere_s),
        heure(n.derniere_s),
    ) {
        (Some(s), Some(p), Some(d)) => format!(
            "{} {}→{}",
            jour_court(s),
            p.format("%H:%M"),
            d.format("%H:%M")
        ),
        (Some(s), _, _) => format!("{:<22}", jour_court(s)),
        _ => format!("{:<22}", format!("circuit {}", n.numero_site)),
    };
    let point: String = if n.point.is_empty() {
        "—".to_owned()
    } else if n.point.chars().count() > 4 {
        format!("{}…", n.point.chars().take(3).collect::<String>())
    } else {
        n.point.clone()
    };
    format!(
        "{quand}  {point:<4}  Pass{:<2}  {:>6} / {:<6}  {}",
        n.passage,
        r.deposee,
        r.total(),
        etat_de_nuit(plan, r, tenue).0
    )
}

/// Le bilan de la saison dit : en JSON, un `bilan_nuit` par nuit ([`bilans_de_nuits`]) ;
/// sinon une ligne par nuit ([`bilan_de_saison`]).
pub(crate) fn bilan_des_nuits(
    m: ModeSortie,
    api: &str,
    nuits: Vec<(NuitPlanifiee, DepotPlan, ResumePlan)>,
) -> Result<()> {
    if m.json {
        let nuits: Vec<_> = nuits.into_iter().map(|(n, p, r)| (n.nuit, p, r)).collect();
        return bilans_de_nuits(api, &nuits);
    }
    bilan_de_saison(api, &nuits)?;
    Ok(())
}

/// Le bilan de la saison : toutes ses nuits (déposées, entamées, pas commencées), une ligne
/// chacune (déposés / total, état) et l'adresse de sa participation sur le site web ; puis la
/// seule suite : la commande qui reprend ce qui reste ([`conseil_de_saison`]), ou, tout étant
/// déposé, `vigie traiter`.
pub(crate) fn bilan_de_saison(
    api: &str,
    nuits: &[(NuitPlanifiee, DepotPlan, ResumePlan)],
) -> io::Result<()> {
    let mut s = crate::sortie::standard();
    let (mut deposees, mut total, mut finies) = (0, 0, 0);
    let mut lignes = Vec::new();
    for (n, plan, r) in nuits {
        deposees += r.deposee;
        total += r.total();
        if etat_de_nuit(plan, r, false).1 == "deposee" {
            finies += 1;
        }
        // La course est finie : aucune de ses nuits n'est plus tenue.
        lignes.push(format!("  {}", ligne_de_nuit(&n.nuit, plan, r, false)));
        if let Some(adresse) =
            participation_du_plan(plan).and_then(|p| adresse_participation(api, &p))
        {
            lignes.push(format!("    {adresse}"));
        }
    }
    writeln!(
        s,
        "Saison : {deposees} / {total} fichiers déposés, {finies} {} sur {} :",
        if finies > 1 { "nuits" } else { "nuit" },
        nuits.len()
    )?;
    for l in lignes {
        writeln!(s, "{}", neutraliser(&l))?;
    }
    let suite = conseil_de_saison(nuits.iter().map(|(n, p, r)| (n, p, r)))
        .unwrap_or_else(|| commande("traiter").to_string());
    for l in replier(&format!("Ensuite : {suite}"), 79) {
        writeln!(s, "{}", neutraliser(&l))?;
    }
    Ok(())
}

/// La commande qui reprend ce qui reste de ces nuits (`suivi::reprise`), la nuit nommée si
/// elle est seule ; `None` si tout est déposé.
/// La nuit est nommée par sa désignation courte (`21/06 A1`, `saison/designation.rs`), celle
/// qui se tape.
pub(crate) fn conseil_de_saison<'a>(
    nuits: impl IntoIterator<Item = (&'a NuitPlanifiee, &'a DepotPlan, &'a ResumePlan)>,
) -> Option<String> {
    let nuits: Vec<_> = nuits.into_iter().collect();
    let toutes: Vec<NuitPlanifiee> = nuits.iter().map(|(n, _, _)| (*n).clone()).collect();
    let noms: Vec<String> = nuits
        .iter()
        .map(|(n, _, _)| designation_courte(n, &toutes, n.annee).to_string())
        .collect();
    let pour_le_conseil: Vec<NuitDuConseil<'_>> = nuits
        .iter()
        .zip(&noms)
        .map(|((_, plan, r), nom)| NuitDuConseil {
            nom,
            resume: r,
            a_creer: etat_de_nuit(plan, r, false).1 == "a_creer",
        })
        .collect();
    conseil_de_reprise(&pour_le_conseil)
}

/// `retenter-echecs` a trouvé, sous les racines de la saison, des nuits qu'elle ne connaît pas
/// (fichiers ajoutés depuis) : elles ne partent pas, et la commande qui les déposera est dite.
/// En JSON : `avertissement`, motif `nuit_nouvelle`, avec `nuits` et `commande`.
pub(crate) fn nuits_nouvelles(
    m: ModeSortie,
    nuits: &[(CleNuit, usize)],
    dossiers: &[String],
) -> Result<()> {
    let commande = commande("depot").args(dossiers).to_string();
    if m.json {
        Evenement::Avertissement {
            motif: Avertissement::NuitNouvelle {
                nuits: nuits.iter().map(|(cle, _)| nuit_nommee(cle)).collect(),
                commande,
            },
        }
        .ecrire()?;
        return Ok(());
    }
    let mut e = crate::sortie::erreur();
    let entete = format!(
        "attention : {}, sans participation : ses fichiers ne partent pas",
        pluriel(nuits.len() as u64, "nuit nouvelle", "nuits nouvelles"),
    );
    for l in replier(&entete, 79) {
        writeln!(e, "{l}")?;
    }
    for (cle, fichiers) in nuits {
        writeln!(
            e,
            "  {}  {}",
            libelle_cle(cle),
            pluriel(*fichiers as u64, "fichier", "fichiers")
        )?;
    }
    for ligne in replier(
        &format!(
            "  → déposez-la{} dans sa participation : {commande}",
            if nuits.len() > 1 { "s chacune" } else { "" }
        ),
        79,
    ) {
        writeln!(e, "{}", neutraliser(&ligne))?;
    }
    Ok(())
}

/// Le bilan de la saison en JSON : un `bilan_nuit` par nuit de la course.
pub(crate) fn bilans_de_nuits(
    api: &str,
    nuits: &[(NuitLiee, DepotPlan, ResumePlan)],
) -> Result<()> {
    for (n, plan, r) in nuits {
        let participation = participation_du_plan(plan);
        Evenement::BilanNuit {
            plan: plan.id,
            adresse: participation
                .as_deref()
                .and_then(|p| adresse_participation(api, p)),
            participation,
            numero_site: &n.numero_site,
            passage: n.passage,
            point: Some(n.point.as_str()).filter(|p| !p.is_empty()),
            soiree: Some(n.soiree.as_str()).filter(|s| !s.is_empty()),
            unites: r.total(),
            deposees: r.deposee,
            echecs: r.echec + r.incertaine,
            definitifs: r.definitifs,
            octets_total: r.octets_total,
            octets_deposes: r.octets_deposes,
            etat: etat_de_nuit(plan, r, false).1,
        }
        .ecrire()?;
    }
    Ok(())
}

/// `vigie etat` d'une saison : une ligne par nuit (80 colonnes, heure de l'enregistreur), et
/// l'adresse de sa participation ; en JSON, `etat_saison` puis un `etat_nuit` par nuit.
/// `en_defaut` : le code de la saison n'est pas un succès (les gestes sont alors dits).
/// Le calcul d'une nuit tel que relevé la dernière fois : « calcul fini le 22 juin à 0 h 05
/// (relevé le 22 juin à 9 h 12) ».
pub(crate) fn phrase_calcul(note: &CalculNote) -> String {
    let maintenant = crate::traitement::maintenant();
    let date = |s: Option<i64>| {
        s.map(|s| {
            format!(
                " {}",
                super::traitement::date_locale(InstantUtc::depuis_secondes(s), maintenant)
            )
        })
        .unwrap_or_default()
    };
    let etat = match note.etat.as_deref() {
        None => "aucun calcul lancé".to_owned(),
        Some("PLANIFIE") => format!("calcul planifié{}", date(note.date_s)),
        Some("EN_COURS") => format!("calcul en cours (commencé{})", date(note.date_s)),
        Some("FINI") => format!("calcul fini{}", date(note.date_s)),
        Some("ERREUR") => format!("calcul en erreur{}", date(note.date_s)),
        Some("RETRY") => "un essai du calcul a échoué, la plateforme en refait un".to_owned(),
        Some(autre) => format!("calcul « {} »", neutraliser(autre)),
    };
    format!("{etat} (relevé{})", date(Some(note.releve_le)))
}

/// Les nuits d'une saison, et de quoi les dire : `vigie etat SAISON`.
type LignesDeSaison<'a> = [(&'a NuitPlanifiee, crate::plan::EtatDeNuit)];

pub(crate) fn etat_saison(
    json: bool,
    saison: i64,
    lignes: &LignesDeSaison<'_>,
    en_defaut: Option<&str>,
) -> Result<()> {
    let Some((premiere, _)) = lignes.first() else {
        anyhow::bail!("saison sans nuit");
    };
    let (annee, api) = (premiere.annee, premiere.api.as_str());
    let somme =
        |f: &dyn Fn(&ResumePlan) -> u64| lignes.iter().map(|(_, e)| f(&e.resume)).sum::<u64>();
    let (unites, deposees) = (somme(&|r| r.total()), somme(&|r| r.deposee));
    let (octets_total, octets_deposes) = (somme(&|r| r.octets_total), somme(&|r| r.octets_deposes));
    if !json {
        let mut s = crate::sortie::standard();
        writeln!(
            s,
            "Saison {annee} : {}, {deposees} / {unites} fichiers déposés ({} sur {})",
            pluriel(lignes.len() as u64, "nuit", "nuits"),
            octets_lisibles(octets_deposes),
            octets_lisibles(octets_total)
        )?;
        return nuits_de_la_saison(&mut s, api, lignes, en_defaut);
    }
    Evenement::EtatSaison {
        saison,
        annee,
        api,
        nuits: lignes.len(),
        unites,
        deposees,
        definitifs: somme(&|r| r.definitifs),
        octets_total,
        octets_deposes,
    }
    .ecrire()?;
    for (n, v) in lignes {
        etat_nuit(saison, api, n, v).ecrire()?;
    }
    Ok(())
}

/// Une nuit de `vigie etat SAISON --json`.
fn etat_nuit<'a>(
    saison: i64,
    api: &str,
    n: &'a NuitPlanifiee,
    v: &'a crate::plan::EtatDeNuit,
) -> Evenement<'a> {
    let (plan, r, nuit) = (&v.plan, &v.resume, &n.nuit);
    let instant = |s: Option<i64>| {
        s.and_then(|s| DateTime::from_timestamp(s, 0))
            .map(|t| t.to_rfc3339())
    };
    let participation = participation_du_plan(plan);
    Evenement::EtatNuit {
        saison,
        plan: plan.id,
        site: &nuit.site,
        numero_site: &nuit.numero_site,
        protocole: &nuit.protocole,
        passage: nuit.passage,
        point: Some(nuit.point.as_str()).filter(|p| !p.is_empty()),
        soiree: Some(nuit.soiree.as_str()).filter(|s| !s.is_empty()),
        debut: instant(nuit.premiere_s),
        fin: instant(nuit.derniere_s),
        fuseau: &nuit.fuseau,
        enregistreurs: nuit
            .enregistreurs
            .split(',')
            .filter(|e| !e.is_empty())
            .collect(),
        adresse: participation
            .as_deref()
            .and_then(|p| adresse_participation(api, p)),
        participation,
        dossier: &plan.dossier,
        unites: r.total(),
        deposees: r.deposee,
        definitifs: r.definitifs,
        octets_total: r.octets_total,
        octets_deposes: r.octets_deposes,
        etat: etat_de_nuit(plan, r, v.tenue).1,
        calcul_etat: v.calcul.as_ref().and_then(|c| c.etat.clone()),
        calcul_releve_le: v.calcul.as_ref().map(|c| c.releve_le),
    }
}

/// Sous la ligne de la saison : chaque nuit (sa page, son calcul), puis les conseils.
fn nuits_de_la_saison(
    s: &mut impl Write,
    api: &str,
    lignes: &LignesDeSaison<'_>,
    en_defaut: Option<&str>,
) -> Result<()> {
    let mut a_relever = false;
    for (n, v) in lignes {
        let (plan, r) = (&v.plan, &v.resume);
        writeln!(
            s,
            "  {}",
            neutraliser(&ligne_de_nuit(&n.nuit, plan, r, v.tenue))
        )?;
        // La page de la participation (l'API par défaut) ; jamais son identifiant seul.
        if let Some(adresse) =
            participation_du_plan(plan).and_then(|p| adresse_participation(api, &p))
        {
            writeln!(s, "    {adresse}")?;
        }
        let deposee = r.total() > 0 && r.deposee == r.total();
        match &v.calcul {
            Some(c) => {
                a_relever |= c.etat.as_deref() != Some("FINI");
                writeln!(s, "    {}", phrase_calcul(c))?;
            }
            None if deposee => {
                a_relever = true;
                writeln!(s, "    calcul : pas encore relevé")?;
            }
            None => {}
        }
    }
    if a_relever {
        writeln!(s, "Où en est le calcul : {}", commande("traitement"))?;
    }
    let Some(exemple) = en_defaut else {
        return Ok(());
    };
    writeln!(
        s,
        "Le détail d'une nuit, nommée : {}",
        commande("etat").args(exemple.split(' '))
    )?;
    if let Some(conseil) = conseil_de_saison(lignes.iter().map(|(n, v)| (*n, &v.plan, &v.resume))) {
        for l in replier(&format!("Reprendre la saison : {conseil}"), 79) {
            writeln!(s, "{}", neutraliser(&l))?;
        }
    }
    Ok(())
}
