//! Ce que disent `vigie traiter`, `vigie traitement` et `vigie resultats` : l'état de chaque
//! nuit, ce qui a été lancé ou pourquoi rien ne l'a été, les fichiers écrits, et les erreurs
//! (avec leur code de sortie), en français dans 80 colonnes ou en lignes JSON.
//!
//! Une nuit de saison est nommée comme la bénévole la nomme (`21/06 A1`), jamais par un
//! identifiant. Les conseils ([`Conseils`]) se disent une fois, à la fin, pour toutes les nuits
//! visées : chacun, tapé tel quel, fait ce qu'il dit, et nomme la nuit quand une seule est en
//! cause.
//!
//! Les décisions et les émissions sont dans `traitement/` ; la phrase d'un état et le bilan
//! des espèces dans `suivi/traitement.rs`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use anyhow::Result;
use chrono::NaiveDate;

use super::Evenement;
use super::format::{neutraliser, octets_lisibles, pluriel, replier};
use super::traitement::{
    AnnoncesReleves, ModeReleves, lignes_bilan, phrase_etat, suggestion, traitement_json,
};
use crate::plateforme::conseil::{Commande, commande};
use crate::reessai::ReponseApi;
use crate::sortie::{CodeSortie, ErreurAvecCode, interrompu};
use crate::traitement::cible::{Cible, NuitPasPrete, Portee};
use crate::traitement::lancer::{AvantCalcul, AvantLancement, Decidee, Lancement, VueLancement};
use crate::traitement::resultats::{
    CalculLu, DemandeCsv, DemandeDuCsv, Echec, Journal, Telecharge, VueResultats,
};
use crate::traitement::taxons::CacheTaxons;
use crate::traitement::{
    AnnoncesReleve, EtatCalcul, EtatParticipation, FinDuSuivi, VueReleves, code_de_l_etat,
    jeton_refuse,
};
use crate::transport::vigiechiro::Utilisateur;

/// Comment parler : lignes JSON (`--json`), et en silence (`-q`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModeSortie {
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
}

/// Un paragraphe replié en 80 colonnes, puis, s'il y en a une, la commande à lancer ensuite
/// (jamais coupée).
pub(crate) fn ecrire(
    sortie: &mut dyn Write,
    prose: &str,
    suite: Option<(&str, &str)>,
) -> io::Result<()> {
    if !prose.is_empty() {
        for ligne in replier(prose, 80) {
            writeln!(sortie, "{ligne}")?;
        }
    }
    if let Some((intro, commande)) = suite {
        for ligne in suggestion(intro, commande) {
            writeln!(sortie, "{ligne}")?;
        }
    }
    Ok(())
}

/// Un paragraphe sur la sortie d'erreur ; perdu sans erreur si plus personne ne la lit.
fn avertir(prose: &str) {
    let _ = ecrire(&mut crate::sortie::erreur(), prose, None);
}

fn majuscule(texte: &str) -> String {
    let mut c = texte.chars();
    match c.next() {
        Some(p) => p.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// La nuit d'une cible telle que l'écrit le JSON (`21/06 A1`), si c'est une nuit de saison.
fn nuit_json(cible: &Cible) -> Option<&str> {
    cible.nuit.as_ref().map(|n| n.designation.as_str())
}

/// Le titre d'une nuit, pour son état et son bilan : « Nuit du dim. 21/06/2026, point A1,
/// Pass1, site 640380 » (routier : « Circuit 270, Pass1, saison 2026 ») ; hors saison,
/// « Participation X ».
pub(crate) fn titre(cible: &Cible) -> String {
    let Some(v) = &cible.nuit else {
        return majuscule(&cible.nom());
    };
    let n = &v.nuit.nuit;
    match NaiveDate::parse_from_str(&n.soiree, "%Y-%m-%d") {
        Ok(d) => format!(
            "Nuit du {}/{}, point {}, Pass{}, site {}",
            super::format::jour_court(d),
            d.format("%Y"),
            neutraliser(&n.point),
            n.passage,
            neutraliser(&n.numero_site)
        ),
        Err(_) => format!(
            "Circuit {}, Pass{}, saison {}",
            neutraliser(&n.numero_site),
            n.passage,
            v.nuit.annee
        ),
    }
}

// ----------------------------------------------------------------------------- les conseils

/// Ce qu'il reste à faire pour une nuit, à la fin d'une commande : un conseil, que les nuits
/// partagent (dans l'ordre où ils se disent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Suite {
    /// Des fichiers ne sont pas (encore) déposés.
    Reprendre,
    /// Aucun calcul lancé.
    Lancer,
    /// Le calcul est en erreur : le relancer (la nuit nommée).
    RelancerErreur,
    /// Le calcul semble arrêté : `--relancer` (la nuit nommée).
    RelancerArrete,
    /// Le calcul est fini, nuit nommée sans `--relancer` : recalculer si on le veut vraiment.
    Recalculer,
    /// Un lancement resté sans réponse : relire l'état avant de relancer.
    Verifier,
    /// Planifié ou en cours : le suivre.
    Suivre,
    /// Fini : télécharger ses résultats.
    Resultats,
    /// Fini, sans CSV sur la plateforme : le demander.
    DemanderCsv,
    /// Le CSV demandé : le télécharger dans quelques minutes.
    Telecharger,
}

impl Suite {
    /// Ce qui l'annonce, la sous-commande et ses options, et si cette commande, sans nuit,
    /// ferait pour toute la saison exactement ce qu'elle dit (sinon, elle nomme toujours ses
    /// nuits).
    fn texte(self) -> (&'static str, &'static str, &'static [&'static str], bool) {
        match self {
            Suite::Reprendre => ("Pour déposer ce qui manque :", "retenter-echecs", &[], true),
            Suite::Lancer => ("Pour lancer le calcul :", "traiter", &[], true),
            Suite::RelancerErreur => ("Pour relancer le calcul en erreur :", "traiter", &[], false),
            Suite::RelancerArrete => (
                "Pour relancer le calcul qui semble arrêté :",
                "traiter",
                &["--relancer"],
                false,
            ),
            Suite::Recalculer => (
                "Pour recalculer quand même (les résultats seront remplacés) :",
                "traiter",
                &["--relancer"],
                false,
            ),
            Suite::Verifier => (
                "Pour vérifier dans quelques minutes, avant de relancer :",
                "traitement",
                &[],
                true,
            ),
            Suite::Suivre => (
                "Pour suivre le calcul :",
                "traitement",
                &["--attendre"],
                true,
            ),
            Suite::Resultats => ("Pour télécharger les résultats :", "resultats", &[], true),
            Suite::DemanderCsv => (
                "Pour demander le CSV des observations (il vous sera aussi envoyé par \
                 courriel) :",
                "resultats",
                &["--demander-csv"],
                true,
            ),
            Suite::Telecharger => (
                "Pour le télécharger, dans quelques minutes :",
                "resultats",
                &[],
                true,
            ),
        }
    }
}

/// Les conseils d'une commande sur plusieurs nuits, dits une fois à la fin.
pub(crate) struct Conseils {
    portee: Portee,
    /// Pour chaque conseil, les nuits en cause (leur désignation ; vide hors saison).
    groupes: BTreeMap<Suite, Vec<String>>,
}

impl Conseils {
    pub(crate) fn nouveaux(portee: &Portee) -> Conseils {
        Conseils {
            portee: portee.clone(),
            groupes: BTreeMap::new(),
        }
    }

    /// La nuit de `cible` appelle ce conseil.
    pub(crate) fn ajouter(&mut self, suite: Suite, cible: &Cible) {
        let nuits = self.groupes.entry(suite).or_default();
        if let Some(n) = &cible.nuit
            && !nuits.contains(&n.designation)
        {
            nuits.push(n.designation.clone());
        }
    }

    /// La commande d'un conseil, avec ce qu'elle vise : sans rien pour toute la saison (ou le
    /// dernier plan), les nuits nommées sinon, ou `--participation`.
    fn commande(&self, suite: Suite, nuits: &[String]) -> Commande {
        let (_, sous_commande, options, pour_toute_la_saison) = suite.texte();
        let c = commande(sous_commande).args(options.iter().copied());
        match &self.portee {
            Portee::DernierPlan => c,
            // La reprise, la même partout : elle reprend ce qui reste de la saison.
            _ if suite == Suite::Reprendre => c,
            Portee::Participation(id) => c.arg("--participation").arg(id),
            Portee::Saison if pour_toute_la_saison && nuits.len() > 1 => c,
            Portee::Saison | Portee::Nommees => c.args(nuits.iter().flat_map(|n| n.split(' '))),
        }
    }

    /// Les commandes conseillées, dans l'ordre (pour les essais et la prose).
    pub(crate) fn commandes(&self) -> Vec<(&'static str, String)> {
        self.groupes
            .iter()
            .map(|(suite, nuits)| (suite.texte().0, self.commande(*suite, nuits).to_string()))
            .collect()
    }

    /// Une nuit dont la participation reste à créer : le conseil de reprise.
    pub(crate) fn reprendre(&mut self) {
        self.groupes.entry(Suite::Reprendre).or_default();
    }

    /// Les écrit sur la sortie standard (rien en JSON ni sous `-q`).
    pub(crate) fn ecrire(&self, m: ModeSortie) -> io::Result<()> {
        if m.json || m.silencieux {
            return Ok(());
        }
        let mut s = crate::sortie::standard();
        if self.groupes.contains_key(&Suite::RelancerErreur) {
            ecrire(
                &mut s,
                "Si l'erreur revient après une relance, écrivez aux gestionnaires de la \
                 plateforme.",
                None,
            )?;
        }
        for (intro, commande) in self.commandes() {
            ecrire(&mut s, "", Some((intro, &commande)))?;
        }
        Ok(())
    }
}

/// Ce que disent `vigie traiter`, `vigie traitement` et `vigie resultats`, d'une nuit à
/// l'autre : comment parler, comment dire les relevés de `--attendre`, et les conseils, dits
/// une fois à la fin. Implémente les vues du moteur (`traitement/`) : [`VueReleves`],
/// [`VueLancement`], [`VueResultats`].
pub(crate) struct Vue {
    pub(crate) m: ModeSortie,
    releves: ModeReleves,
    conseils: Conseils,
}

impl Vue {
    /// Pour une commande en `m`, ses relevés en `releves`, sur les nuits de `portee`.
    pub(crate) fn nouvelle(m: ModeSortie, releves: ModeReleves, portee: &Portee) -> Vue {
        Vue {
            m,
            releves,
            conseils: Conseils::nouveaux(portee),
        }
    }

    /// Les nuits sans participation ([`sans_participation`]).
    pub(crate) fn sans_participation(&mut self, nuits: &[String]) -> io::Result<CodeSortie> {
        sans_participation(self.m, nuits, &mut self.conseils)
    }

    /// Les nuits pas prêtes de `vigie traiter` ([`pas_pretes`]).
    pub(crate) fn pas_pretes(
        &mut self,
        portee: &Portee,
        nuits: &[(&Cible, NuitPasPrete)],
        malgre_tout: bool,
    ) -> Result<CodeSortie> {
        pas_pretes(self.m, portee, nuits, malgre_tout, &mut self.conseils)
    }

    /// Les conseils, dits à la fin.
    pub(crate) fn conclure(&self) -> io::Result<()> {
        self.conseils.ecrire(self.m)
    }
}

impl VueReleves for Vue {
    fn releve_manque(&self, cible: &Cible, pourquoi: &str) -> anyhow::Error {
        releve_manque(cible, pourquoi)
    }

    fn annonces(&self, cible: &Cible) -> Box<dyn AnnoncesReleve> {
        Box::new(annonces_du_suivi(self.releves, cible))
    }

    fn fin_du_suivi(
        &self,
        cible: &Cible,
        fin: FinDuSuivi,
        patience: std::time::Duration,
    ) -> Result<(Option<EtatParticipation>, CodeSortie)> {
        fin_du_suivi(cible, fin, patience)
    }

    fn etat(&mut self, cible: &Cible, e: &EtatParticipation, taxons: &CacheTaxons) -> Result<()> {
        afficher_etat(self.m, cible, e, taxons, &mut self.conseils)
    }
}

impl VueLancement for Vue {
    fn decidee(&self, cible: &Cible, avant: AvantLancement) -> Result<Decidee> {
        decidee(cible, avant)
    }

    fn sans_lancer(&mut self, cible: &Cible, d: &Decidee) -> Result<Option<CodeSortie>> {
        sans_lancer(self.m, cible, d.decision, &d.avant, &mut self.conseils)
    }

    fn lancement(
        &mut self,
        (cible, moi): (&Cible, &Utilisateur),
        avant: &EtatParticipation,
        issue: Lancement,
    ) -> Result<CodeSortie> {
        lancement(self.m, cible, moi, avant, issue, &mut self.conseils)
    }
}

impl VueResultats for Vue {
    fn csv_manque(&self, cible: &Cible, manque: &str, e: Echec) -> anyhow::Error {
        erreur_du_csv(cible, manque, e)
    }

    fn demande(&mut self, cible: &Cible, d: DemandeDuCsv, lu: &CalculLu) -> Result<CodeSortie> {
        demande_du_csv(self.m, cible, d, lu, &mut self.conseils)
    }

    fn csv(
        &mut self,
        cible: &Cible,
        ecrit: Option<(Telecharge, bool)>,
        lu: &CalculLu,
    ) -> Result<CodeSortie> {
        csv(self.m, cible, ecrit, lu, &mut self.conseils)
    }

    fn journal(&mut self, cible: &Cible, j: Result<Journal, Echec>) -> Result<CodeSortie> {
        journal(self.m, cible, j)
    }
}

/// Une erreur qui ne vaut que pour une nuit, parmi plusieurs : dite (sur la sortie d'erreur,
/// et en JSON), son code rendu ; les autres nuits continuent. Ctrl-C et un jeton refusé valent
/// pour toutes : ils remontent.
pub(crate) fn erreur_de_nuit(m: ModeSortie, r: Result<CodeSortie>) -> Result<CodeSortie> {
    let e = match r {
        Ok(code) => return Ok(code),
        Err(e) => e,
    };
    let code = crate::sortie::code_pour_erreur(&e);
    let message = format!("{e:#}");
    if code == CodeSortie::Interrompu || message == jeton_refuse() {
        return Err(e);
    }
    let _ = writeln!(
        crate::sortie::erreur(),
        "erreur : {}",
        neutraliser(&message)
    );
    if m.json {
        Evenement::Erreur {
            code: code as i32,
            message: &message,
            nuits: &[],
        }
        .ecrire()?;
    }
    Ok(code)
}

/// Des nuits de la saison que la commande ne peut pas viser : leur participation n'est pas
/// encore créée (dit sur la sortie standard), et leur conseil (la reprise) ; code 1 s'il y en
/// a.
fn sans_participation(
    m: ModeSortie,
    nuits: &[String],
    conseils: &mut Conseils,
) -> io::Result<CodeSortie> {
    if nuits.is_empty() {
        return Ok(CodeSortie::Succes);
    }
    conseils.reprendre();
    if m.json || m.silencieux {
        return Ok(CodeSortie::EchecsTransitoires);
    }
    let prose = match nuits {
        [une] => {
            format!("Nuit {une} : pas encore sur la plateforme (sa participation reste à créer).")
        }
        plusieurs => format!(
            "Nuits {} : pas encore sur la plateforme (leur participation reste à créer).",
            plusieurs.join(", ")
        ),
    };
    ecrire(&mut crate::sortie::standard(), &prose, None)?;
    Ok(CodeSortie::EchecsTransitoires)
}

// ------------------------------------------------------------------------ vigie traitement

/// Écrit l'état d'une nuit (et son bilan) sur la sortie standard, et note son conseil.
fn afficher_etat(
    m: ModeSortie,
    cible: &Cible,
    e: &EtatParticipation,
    taxons: &CacheTaxons,
    conseils: &mut Conseils,
) -> Result<()> {
    let t = e.traitement.as_ref();
    conseils.ajouter(
        match t.map(|t| &t.etat) {
            None => Suite::Lancer,
            Some(EtatCalcul::Fini) => Suite::Resultats,
            Some(EtatCalcul::Erreur) => Suite::RelancerErreur,
            Some(_) => Suite::Suivre,
        },
        cible,
    );
    if m.json {
        traitement_json(
            cible.participation.as_str(),
            nuit_json(cible),
            &cible.api,
            e,
            taxons,
        )
        .ecrire()?;
        return Ok(());
    }
    let maintenant = crate::traitement::maintenant();
    let mut s = crate::sortie::standard();
    let etat = format!("{} : {}.", titre(cible), phrase_etat(t, maintenant));
    ecrire(&mut s, &etat, None)?;
    if let (Some(b), Some(EtatCalcul::Fini)) = (&e.bilan, t.map(|t| &t.etat)) {
        for ligne in lignes_bilan(b, taxons, &cible.api) {
            writeln!(s, "{ligne}")?;
        }
    }
    Ok(())
}

/// Les annonces des relevés de `--attendre` pour la nuit `cible`, dites d'abord (sur un
/// terminal ou en lignes) : « Suivi du calcul… ».
fn annonces_du_suivi(mode: ModeReleves, cible: &Cible) -> AnnoncesReleves {
    let annonces = AnnoncesReleves::nouvelles(
        mode,
        cible.participation.as_str(),
        cible.nuit.as_ref().map(|n| n.designation.as_str()),
    );
    if mode == ModeReleves::Lignes || mode == ModeReleves::Indicateur {
        avertir(&format!(
            "Suivi du calcul de la {} ; Ctrl-C pour arrêter.",
            cible.nom()
        ));
    }
    annonces
}

/// `--echeance` atteinte avant la fin du calcul ; `releve` : un relevé au moins a abouti.
pub(crate) fn echeance_atteinte(cible: &Cible, releve: bool) {
    avertir(&format!(
        "Échéance atteinte : le calcul de la {} n'est pas fini{}.",
        cible.nom(),
        if releve {
            ""
        } else {
            " (aucun relevé n'a abouti)"
        }
    ));
}

/// La fin d'un suivi (`--attendre`) dite, et ce qu'elle laisse : le dernier état relevé et le
/// code (celui de l'état d'un calcul terminé, 1 sinon) ; Ctrl-C : l'interruption (code 130).
fn fin_du_suivi(
    cible: &Cible,
    fin: FinDuSuivi,
    patience: std::time::Duration,
) -> Result<(Option<EtatParticipation>, CodeSortie)> {
    Ok(match fin {
        FinDuSuivi::Termine(e) => {
            let code = code_de_l_etat(Some(&e));
            (Some(e), code)
        }
        FinDuSuivi::SansCalcul(e) => {
            rien_a_attendre(cible);
            (Some(e), CodeSortie::EchecsTransitoires)
        }
        FinDuSuivi::Arrete(e) => {
            calcul_arrete(cible, patience);
            (Some(e), CodeSortie::EchecsTransitoires)
        }
        FinDuSuivi::Interrompu(_) => return Err(interrompu()),
        FinDuSuivi::Echeance(dernier) => {
            echeance_atteinte(cible, dernier.is_some());
            (dernier, CodeSortie::EchecsTransitoires)
        }
    })
}

/// `--attendre` rend la main : aucun calcul n'est lancé pour cette nuit (rien ne viendra sans
/// `vigie traiter`).
pub(crate) fn rien_a_attendre(cible: &Cible) {
    avertir(&format!(
        "Rien à attendre pour la {} : aucun calcul n'est lancé.",
        cible.nom()
    ));
}

/// `--attendre` rend la main : le calcul semble arrêté, et l'est resté `patience`.
pub(crate) fn calcul_arrete(cible: &Cible, patience: std::time::Duration) {
    avertir(&format!(
        "Le calcul de la {} semble arrêté (planifié ou en cours depuis plus d'un jour) et n'a \
         pas bougé en {} de suivi : vigie rend la main.",
        cible.nom(),
        super::traitement::duree_ecoulee(patience)
    ));
}

/// Le relevé de `vigie traitement` (sans `--attendre`) n'a pas abouti (code 1).
fn releve_manque(cible: &Cible, pourquoi: &str) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "l'état du calcul de la {} n'a pas pu être relevé : {pourquoi}",
            cible.nom()
        ),
    )
    .into()
}

// ------------------------------------------------------------------------- vigie traiter

/// Ce qu'on dit d'une nuit pas prête, et la commande qui la déposera.
fn pas_prete(n: &NuitPasPrete, nom: &str) -> String {
    let fichiers = |n: u64| pluriel(n, "fichier", "fichiers");
    match *n {
        NuitPasPrete::Incomplete {
            manquent,
            total,
            deposees,
            ..
        } => format!(
            "la {nom} n'est pas entièrement déposée : {} sur {} {} pas sur la plateforme \
             ({} déposé{})",
            manquent,
            total,
            if manquent > 1 { "ne sont" } else { "n'est" },
            deposees,
            if deposees > 1 { "s" } else { "" }
        ),
        NuitPasPrete::EnDepot {
            pid,
            manquent,
            total,
            ..
        } => format!(
            "un dépôt de la {nom} est en cours{} : {} sur {} ne sont pas encore déposés ; \
             attendez qu'il finisse",
            pid.map(|p| format!(" (processus {p})")).unwrap_or_default(),
            fichiers(manquent),
            total
        ),
    }
}

/// La commande de reprise d'une nuit pas prête : la reprise de la saison, ou, hors saison, du
/// plan (par son numéro : il n'a pas d'autre nom).
fn reprise(portee: &Portee, n: &NuitPasPrete, cible: &Cible) -> String {
    match (n, portee, &cible.nuit) {
        (NuitPasPrete::Incomplete { plan, .. }, Portee::Participation(_), None) => format!(
            " ; reprenez d'abord le dépôt, {}",
            commande("retenter-echecs").arg(plan)
        ),
        (NuitPasPrete::Incomplete { .. }, _, _) => format!(
            " ; reprenez d'abord le dépôt, {}",
            commande("retenter-echecs")
        ),
        (NuitPasPrete::EnDepot { .. }, _, _) => String::new(),
    }
}

/// Les nuits pas prêtes de `vigie traiter`, dites : passées, si la portée les passe (code 1
/// chacune, [`nuit_pas_prete_passee`]), sinon refusées ou signalées ([`nuits_pas_pretes`]).
fn pas_pretes(
    m: ModeSortie,
    portee: &Portee,
    pas_pretes: &[(&Cible, NuitPasPrete)],
    malgre_tout: bool,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    if !portee.passe_les_pas_pretes(malgre_tout) {
        nuits_pas_pretes(m, portee, pas_pretes, malgre_tout)?;
        return Ok(CodeSortie::Succes);
    }
    let mut code = CodeSortie::Succes;
    for (cible, n) in pas_pretes {
        code = code.max_par_gravite(nuit_pas_prete_passee(m, cible, n, conseils)?);
    }
    Ok(code)
}

/// Des nuits nommées (ou seules visées) pas prêtes pour le calcul : refus (code 2), en disant
/// combien de fichiers manquent, sauf `malgre_tout` (`--nuit-incomplete`) où elles sont
/// seulement signalées.
fn nuits_pas_pretes(
    m: ModeSortie,
    portee: &Portee,
    pas_pretes: &[(&Cible, NuitPasPrete)],
    malgre_tout: bool,
) -> Result<()> {
    let refus: Vec<String> = pas_pretes
        .iter()
        .map(|(cible, n)| {
            format!(
                "{}{}",
                pas_prete(n, &cible.nom()),
                reprise(portee, n, cible)
            )
        })
        .collect();
    if refus.is_empty() || malgre_tout {
        if !refus.is_empty() && !m.silencieux {
            avertir(&format!(
                "Attention : {} ; le calcul est lancé quand même (--nuit-incomplete).",
                refus.join(" ; ")
            ));
        }
        return Ok(());
    }
    let mut nommees = Conseils::nouveaux(portee);
    for (cible, _) in pas_pretes {
        nommees.ajouter(Suite::Lancer, cible);
    }
    let commande = nommees
        .commandes()
        .pop()
        .map_or_else(|| commande("traiter").to_string(), |(_, c)| c);
    Err(ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "{} ; le calcul ne verrait que les fichiers déjà déposés, et tant qu'il serait \
             planifié ou en cours (un jour au plus) la plateforme refuserait d'en lancer un \
             autre. Rien n'a été lancé. Pour lancer quand même le calcul d'une nuit \
             incomplète : {commande} --nuit-incomplete",
            refus.join(" ; "),
        ),
    )
    .into())
}

/// Une nuit de la saison pas prête : elle n'est pas lancée, les autres le sont (dit sur la
/// sortie standard ; son conseil : la reprise). Code 1.
fn nuit_pas_prete_passee(
    m: ModeSortie,
    cible: &Cible,
    n: &NuitPasPrete,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    if matches!(n, NuitPasPrete::Incomplete { .. }) {
        conseils.ajouter(Suite::Reprendre, cible);
    }
    if m.json {
        calcul_json(cible, false, None, Some("pas_deposee")).ecrire()?;
    } else {
        ecrire(
            &mut crate::sortie::standard(),
            &format!("{} : pas lancé.", majuscule(&pas_prete(n, &cible.nom()))),
            None,
        )?;
    }
    Ok(CodeSortie::EchecsTransitoires)
}

/// `--relancer` sur toute la saison : refusé, rien n'est lancé (code 2). Une nuit finie n'est
/// jamais recalculée sans qu'on la nomme.
pub(crate) fn relancer_sans_nuit(exemple: &str) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "--relancer remplace les résultats d'un calcul : il ne vise que les nuits nommées, \
             jamais toute la saison. Rien n'a été lancé. Nommez les nuits à relancer, par \
             exemple : {}",
            commande("traiter")
                .arg("--relancer")
                .args(exemple.split(' '))
        ),
    )
    .into()
}

/// Ce que `vigie traiter` sait d'une nuit avant de lancer : la décision, ou pourquoi rien
/// n'est lancé (l'erreur).
fn decidee(cible: &Cible, avant: AvantLancement) -> Result<Decidee> {
    match avant {
        AvantLancement::Decide(d) => Ok(d),
        AvantLancement::Inconnu(pourquoi) => Err(etat_inconnu_avant_lancement(cible, &pourquoi)),
        AvantLancement::PasLaVotre(e) => Err(pas_la_votre(cible, &e)),
    }
}

/// L'état n'a pas pu être lu avant de lancer : rien n'est lancé (code 1).
fn etat_inconnu_avant_lancement(cible: &Cible, pourquoi: &str) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "la plateforme n'a pas dit où en est le calcul de la {} : rien n'a été \
             lancé (un calcul lancé à l'aveugle pourrait effacer des résultats) ; \
             {pourquoi}",
            cible.nom()
        ),
    )
    .into()
}

/// La participation est celle d'un autre observateur : rien n'est lancé (code 3).
fn pas_la_votre(cible: &Cible, avant: &EtatParticipation) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::RefusDefinitifs,
        format!(
            "la {} n'est pas la vôtre : c'est {} ; seul son observateur peut en lancer \
             le calcul. Rien n'a été lancé : vérifiez l'identifiant de la participation",
            cible.nom(),
            a_qui(avant)
        ),
    )
    .into()
}

/// « celle de Noctule des Étangs » : à qui est la participation, si c'est lisible.
fn a_qui(e: &EtatParticipation) -> String {
    match e.observateur.as_ref() {
        Some(o) => match &o.pseudo {
            Some(p) => format!("celle de « {} » (observateur {})", neutraliser(p), o.id),
            None => format!("celle de l'observateur {}", o.id),
        },
        None => "celle d'un autre observateur".to_owned(),
    }
}

/// `vigie traiter --json` : le calcul lancé, ou pourquoi pas (`raison`), et l'état lu avant.
fn calcul_json<'a>(
    cible: &'a Cible,
    lance: bool,
    etat: Option<&'a str>,
    raison: Option<&'a str>,
) -> Evenement<'a> {
    Evenement::Calcul {
        participation: cible.participation.as_str(),
        nuit: nuit_json(cible),
        api: &cible.api,
        lance,
        etat_plateforme: etat,
        raison,
    }
}

/// Rien n'est lancé, d'après l'état lu `avant` : le dire, noter le conseil, et rendre le code.
/// `None` : la décision est de lancer.
fn sans_lancer(
    m: ModeSortie,
    cible: &Cible,
    decision: AvantCalcul,
    avant: &EtatParticipation,
    conseils: &mut Conseils,
) -> Result<Option<CodeSortie>> {
    let t = avant.traitement.as_ref();
    let etat = t.map(|t| t.etat.nom().to_owned());
    let phrase = phrase_etat(t, crate::traitement::maintenant());
    let nom = majuscule(&cible.nom());
    let (raison, texte, suite, code) = match decision {
        AvantCalcul::DejaEnCours | AvantCalcul::Reessai => (
            if decision == AvantCalcul::Reessai {
                "reessai"
            } else {
                "deja_en_cours"
            },
            format!("{nom} : {phrase} ; rien n'a été relancé."),
            Suite::Suivre,
            CodeSortie::Succes,
        ),
        AvantCalcul::DejaFini => (
            "deja_fini",
            format!(
                "{nom} : {phrase} ; rien n'a été relancé (un nouveau calcul remplacerait ses \
                 résultats)."
            ),
            Suite::Resultats,
            CodeSortie::Succes,
        ),
        AvantCalcul::EnErreur => (
            "en_erreur",
            format!("{nom} : {phrase} ; pas relancé sans être nommé."),
            Suite::RelancerErreur,
            CodeSortie::RefusDefinitifs,
        ),
        AvantCalcul::Arrete => (
            "arrete",
            format!(
                "{nom} : {phrase}, il y a plus d'un jour : le calcul semble arrêté. Rien \
                 n'a été relancé."
            ),
            Suite::RelancerArrete,
            CodeSortie::EchecsTransitoires,
        ),
        AvantCalcul::Inconnu => (
            "etat_inconnu",
            format!("{nom} : {phrase}. Rien n'a été lancé."),
            Suite::RelancerArrete,
            CodeSortie::EchecsTransitoires,
        ),
        AvantCalcul::Lancer | AvantCalcul::Relancer => return Ok(None),
    };
    conseils.ajouter(suite, cible);
    // Une nuit finie nommée : recalculer se demande, en le disant.
    if decision == AvantCalcul::DejaFini && conseils.portee != Portee::Saison {
        conseils.ajouter(Suite::Recalculer, cible);
    }
    if m.json {
        calcul_json(cible, false, etat.as_deref(), Some(raison)).ecrire()?;
    } else {
        ecrire(&mut crate::sortie::standard(), &texte, None)?;
    }
    Ok(Some(code))
}

/// Ce qu'a donné le lancement : le dire et noter le conseil (code 0), ou l'erreur.
fn lancement(
    m: ModeSortie,
    cible: &Cible,
    moi: &Utilisateur,
    avant: &EtatParticipation,
    issue: Lancement,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let etat_avant = avant.traitement.as_ref().map(|t| t.etat.nom().to_owned());
    let etat_avant = etat_avant.as_deref();
    let refus = |code, message: String| Err(ErreurAvecCode::nouveau(code, message).into());
    match issue {
        Lancement::Lance { relu } => {
            conseils.ajouter(Suite::Suivre, cible);
            lance(m, cible, etat_avant, relu)
        }
        Lancement::DejaEnCours { en_cours } => {
            conseils.ajouter(Suite::Suivre, cible);
            deja_en_cours(m, cible, etat_avant, en_cours)
        }
        Lancement::JetonRefuse => refus(CodeSortie::RefusDefinitifs, jeton_refuse()),
        Lancement::Interrompu => Err(interrompu()),
        Lancement::Interdit => refus(CodeSortie::RefusDefinitifs, interdit(cible, moi, avant)),
        Lancement::Refuse { statut, detail } => refus(
            CodeSortie::RefusDefinitifs,
            format!(
                "la plateforme refuse de lancer le calcul de la {} ({statut} : {}) ; rien \
                 n'a été lancé",
                cible.nom(),
                neutraliser(&detail)
            ),
        ),
        Lancement::Incertain(e) => {
            conseils.ajouter(Suite::Verifier, cible);
            refus(
                CodeSortie::EchecsTransitoires,
                incertain(cible, e.as_deref()),
            )
        }
        Lancement::Echoue(pourquoi) => refus(
            CodeSortie::EchecsTransitoires,
            format!(
                "le calcul de la {} n'a pas été lancé : {pourquoi}",
                cible.nom()
            ),
        ),
    }
}

/// Le calcul est lancé (`relu` : la réponse s'est perdue, la plateforme relue le confirme).
fn lance(m: ModeSortie, cible: &Cible, etat_avant: Option<&str>, relu: bool) -> Result<CodeSortie> {
    if m.json {
        calcul_json(cible, true, etat_avant, None).ecrire()?;
    } else if !m.silencieux {
        let confirme = if relu {
            " (réponse perdue, lancement confirmé en relisant la plateforme)"
        } else {
            ""
        };
        ecrire(
            &mut crate::sortie::standard(),
            &format!("Calcul lancé pour la {}{confirme}.", cible.nom()),
            None,
        )?;
    }
    Ok(CodeSortie::Succes)
}

/// La plateforme répond que le calcul est déjà planifié ou en cours ; sa réponse
/// (« Already … ») n'est pas montrée telle quelle.
fn deja_en_cours(
    m: ModeSortie,
    cible: &Cible,
    etat_avant: Option<&str>,
    en_cours: bool,
) -> Result<CodeSortie> {
    let etat = if en_cours { "en cours" } else { "planifié" };
    if m.json {
        calcul_json(cible, false, etat_avant, Some("deja_en_cours")).ecrire()?;
    } else {
        ecrire(
            &mut crate::sortie::standard(),
            &format!(
                "{} : la plateforme répond que son calcul est déjà {etat} ; rien n'a \
                 été relancé.",
                majuscule(&cible.nom())
            ),
            None,
        )?;
    }
    Ok(CodeSortie::Succes)
}

/// Un 403 au lancement : pourquoi, selon que la participation est la sienne ou non.
fn interdit(cible: &Cible, moi: &Utilisateur, avant: &EtatParticipation) -> String {
    let la_sienne = avant.observateur.as_ref().is_some_and(|o| o.id == moi.id);
    let pourquoi = if la_sienne {
        "elle est pourtant la vôtre : votre compte n'a peut-être pas (ou plus) les droits \
         d'observateur sur la plateforme ; écrivez à ses gestionnaires"
            .to_owned()
    } else {
        format!(
            "seul son observateur le peut, et cette participation est {}",
            a_qui(avant)
        )
    };
    format!(
        "la plateforme refuse de lancer le calcul de la {} (403) : {pourquoi} ; rien \
         n'a été lancé",
        cible.nom()
    )
}

/// Un lancement resté sans réponse, et ce que la plateforme relue en montre (`None` : elle
/// n'a pas pu être relue).
fn incertain(cible: &Cible, relue: Option<&EtatParticipation>) -> String {
    let releve = match relue {
        Some(e) => format!(
            "la plateforme ne montre pas de nouveau calcul ({})",
            phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant())
        ),
        None => "la plateforme n'a pas pu être relue".to_owned(),
    };
    format!(
        "le lancement du calcul de la {} est resté sans réponse, et {releve} : \
         vérifiez dans quelques minutes avant de relancer (un nouveau calcul \
         efface les données déjà produites)",
        cible.nom()
    )
}

// ------------------------------------------------------------------------ vigie resultats

/// Le CSV des observations de la nuit `cible` qui `manque` (« n'a pas pu être cherché »,
/// « n'a pas été téléchargé ») : l'erreur, par [`erreur_resultat`].
fn erreur_du_csv(cible: &Cible, manque: &str, e: Echec) -> anyhow::Error {
    erreur_resultat(
        &format!("le CSV des observations de la {} {manque}", cible.nom()),
        e,
    )
}

/// Ce qu'une erreur de téléchargement dit, en français.
pub(crate) fn erreur_resultat(quoi: &str, e: Echec) -> anyhow::Error {
    match e {
        Echec::Plateforme(ReponseApi::Refuse { statut: 401, .. }) => {
            ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into()
        }
        Echec::Plateforme(r @ ReponseApi::Refuse { statut: 403, .. }) => ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "{quoi} : {} ; seul l'observateur de la participation peut lire ses résultats",
                crate::depot::vigiechiro::participation::pas_de_reponse_utile(&r)
            ),
        )
        .into(),
        Echec::Plateforme(r) => ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "{quoi} : {}",
                crate::depot::vigiechiro::participation::pas_de_reponse_utile(&r)
            ),
        )
        .into(),
        Echec::Stockage(r) => ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "{quoi} : le stockage de la plateforme n'a pas rendu le fichier ({}) ; relancez \
                 la commande plus tard (une nouvelle adresse de lecture sera demandée), rien n'a \
                 été écrit",
                neutraliser(r.detail().unwrap_or("sans détail"))
            ),
        )
        .into(),
        Echec::Local(m) => {
            ErreurAvecCode::nouveau(CodeSortie::Usage, format!("{quoi} : {}", neutraliser(&m)))
                .into()
        }
    }
}

/// Où vont les résultats d'une saison (`annee`), dit une fois au début (sauf en JSON ou sous
/// `-q`) ; rien hors saison.
pub(crate) fn dossier_des_resultats(m: ModeSortie, dossier: &std::path::Path, annee: Option<u16>) {
    if let Some(annee) = annee
        && !m.json
        && !m.silencieux
    {
        let _ = ecrire(
            &mut crate::sortie::standard(),
            &format!(
                "Résultats de la saison {annee} dans {} (--sortie DOSSIER pour un autre).",
                neutraliser(&dossier.display().to_string())
            ),
            None,
        );
    }
}

/// L'état relevé `lu`, en une phrase.
fn phrase_du_releve(lu: &CalculLu) -> Option<String> {
    (lu.etat.as_ref()).map(|e| phrase_etat(e.traitement.as_ref(), lu.instant))
}

/// Le CSV des observations de la nuit `cible` : écrit (ou déjà là, inchangé : le booléen
/// faux), dit, et s'il vient d'un calcul précédent ; sinon pourquoi il n'y en a pas
/// ([`sans_resultats`]).
fn csv(
    m: ModeSortie,
    cible: &Cible,
    ecrit: Option<(Telecharge, bool)>,
    lu: &CalculLu,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let phrase = phrase_du_releve(lu);
    let Some((t, telecharge)) = ecrit else {
        return sans_resultats(m, cible, lu.etat.as_ref(), phrase.as_deref(), conseils);
    };
    annoncer_fichier(m, cible, "csv", &t, telecharge)?;
    if lu.pas_fini() {
        csv_d_un_calcul_precedent(m, phrase.as_deref());
    }
    Ok(CodeSortie::Succes)
}

/// Le journal du calcul de `--avec-journal` : écrit et dit (code 0), absent (code 1), ou
/// l'erreur du téléchargement.
fn journal(m: ModeSortie, cible: &Cible, journal: Result<Journal, Echec>) -> Result<CodeSortie> {
    match journal.map_err(|e| erreur_resultat("le journal du calcul n'a pas été téléchargé", e))?
    {
        Journal::Ecrit(t) => {
            annoncer_fichier(m, cible, "journal", &t, true)?;
            Ok(CodeSortie::Succes)
        }
        Journal::Aucun => Ok(journal_absent(cible, false)),
        Journal::Indisponible => Ok(journal_absent(cible, true)),
    }
}

/// Un fichier écrit (`quoi` : `csv` ou `journal`), ou, `telecharge` faux, déjà là et
/// inchangé, dit à l'utilisateur.
fn annoncer_fichier(
    m: ModeSortie,
    cible: &Cible,
    quoi: &str,
    t: &Telecharge,
    telecharge: bool,
) -> Result<()> {
    if m.json {
        Evenement::Resultat {
            participation: cible.participation.as_str(),
            nuit: nuit_json(cible),
            fichier: quoi,
            chemin: &t.chemin.display().to_string(),
            octets: t.octets,
            telecharge,
        }
        .ecrire()?;
        return Ok(());
    }
    if m.silencieux {
        return Ok(());
    }
    let libelle = if quoi == "csv" {
        "CSV des observations"
    } else {
        "Journal du calcul"
    };
    let de = match &cible.nuit {
        Some(n) => format!(" de la nuit {}", n.designation),
        None => String::new(),
    };
    let chemin = neutraliser(&t.chemin.display().to_string()).into_owned();
    let texte = if telecharge {
        format!(
            "{libelle}{de} écrit : {chemin} ({}).",
            octets_lisibles(t.octets)
        )
    } else {
        format!("{libelle}{de} déjà téléchargé, inchangé : {chemin}.")
    };
    ecrire(&mut crate::sortie::standard(), &texte, None)?;
    Ok(())
}

/// Le CSV écrit vient d'un calcul précédent (celui en cours n'est pas fini : `phrase`).
fn csv_d_un_calcul_precedent(m: ModeSortie, phrase: Option<&str>) {
    if !m.json && !m.silencieux {
        avertir(&format!(
            "Attention : ce CSV vient d'un calcul précédent ({}).",
            phrase.unwrap_or("")
        ));
    }
}

/// Le CSV n'est pas sur la plateforme : dire pourquoi (sur la sortie standard : pas encore
/// calculée n'est pas une erreur), noter le conseil. Code 0 si le calcul n'est pas lancé, pas
/// fini ou son état inconnu ; 1 s'il est fini sans CSV ; 3 s'il est en erreur.
fn sans_resultats(
    m: ModeSortie,
    cible: &Cible,
    etat: Option<&EtatParticipation>,
    phrase: Option<&str>,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let t = etat.and_then(|e| e.traitement.as_ref());
    let nom = majuscule(&cible.nom());
    let (raison, texte, suite, code) = match t.map(|t| &t.etat) {
        Some(EtatCalcul::Fini) => (
            "csv_absent",
            format!(
                "{nom} : {}, mais la plateforme n'a pas (encore) le CSV des observations : elle \
                 le produit après le calcul si elle est réglée pour, sinon à la demande.",
                phrase.unwrap_or("calcul fini")
            ),
            Suite::DemanderCsv,
            CodeSortie::EchecsTransitoires,
        ),
        Some(EtatCalcul::Erreur) => (
            "calcul_en_erreur",
            format!(
                "{nom} : {} ; pas de résultats.",
                phrase.unwrap_or("calcul en erreur")
            ),
            Suite::RelancerErreur,
            CodeSortie::RefusDefinitifs,
        ),
        None if etat.is_some() => (
            "aucun_calcul",
            format!("{nom} : pas encore calculée (aucun calcul lancé)."),
            Suite::Lancer,
            CodeSortie::Succes,
        ),
        None => (
            "etat_inconnu",
            format!(
                "{nom} : pas de résultats sur la plateforme (l'état du calcul n'a pas pu être relevé)."
            ),
            Suite::Suivre,
            CodeSortie::Succes,
        ),
        Some(_) => (
            "calcul_en_cours",
            format!(
                "{nom} : pas encore calculée ({}).",
                phrase.unwrap_or("calcul en cours")
            ),
            Suite::Suivre,
            CodeSortie::Succes,
        ),
    };
    conseils.ajouter(suite, cible);
    if m.json {
        Evenement::SansResultat {
            participation: cible.participation.as_str(),
            nuit: nuit_json(cible),
            raison,
        }
        .ecrire()?;
    } else if !m.silencieux || code != CodeSortie::Succes {
        ecrire(&mut crate::sortie::standard(), &texte, None)?;
    }
    Ok(code)
}

/// Pas de journal du calcul à télécharger : `existe` dit s'il est désigné (mais pas
/// disponible) ou s'il n'existe pas encore. Code 1.
fn journal_absent(cible: &Cible, existe: bool) -> CodeSortie {
    if existe {
        avertir(&format!(
            "Le journal du calcul de la {} n'est pas disponible sur la plateforme.",
            cible.nom()
        ));
    } else {
        avertir(&format!(
            "Pas de journal du calcul pour la {} : il n'existe qu'après un calcul réussi.",
            cible.nom()
        ));
    }
    CodeSortie::EchecsTransitoires
}

/// Ce que `--demander-csv` a fait pour la nuit `cible` : rien (et pourquoi), ou la demande
/// ([`demande_csv`]).
fn demande_du_csv(
    m: ModeSortie,
    cible: &Cible,
    demande: DemandeDuCsv,
    lu: &CalculLu,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let phrase = phrase_du_releve(lu).unwrap_or_default();
    let pas_demande = match demande {
        DemandeDuCsv::Faite(issue) => return demande_csv(m, cible, issue, conseils),
        DemandeDuCsv::DejaTelecharge => PasDemande::DejaTelecharge,
        DemandeDuCsv::DejaLa => PasDemande::DejaLa,
        DemandeDuCsv::PasCalculee => PasDemande::PasCalculee(&phrase),
    };
    csv_pas_demande(m, cible, pas_demande, conseils)
}

/// `--demander-csv` pour une nuit qui n'a pas à le demander : son CSV est déjà sur la
/// plateforme (`deja` : et déjà téléchargé, inchangé), ou elle n'est pas encore calculée
/// (`phrase`). Rien n'est demandé (aucun courriel) ; code 0.
fn csv_pas_demande(
    m: ModeSortie,
    cible: &Cible,
    pourquoi: PasDemande<'_>,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let nom = majuscule(&cible.nom());
    let texte = match pourquoi {
        PasDemande::DejaTelecharge => {
            format!("{nom} : CSV déjà téléchargé, inchangé ; rien n'a été demandé.")
        }
        PasDemande::DejaLa => {
            conseils.ajouter(Suite::Resultats, cible);
            format!("{nom} : la plateforme a déjà le CSV ; rien n'a été demandé.")
        }
        PasDemande::PasCalculee(phrase) => {
            conseils.ajouter(Suite::Suivre, cible);
            format!("{nom} : pas encore calculée ({phrase}) ; rien n'a été demandé.")
        }
    };
    if !m.json && !m.silencieux {
        ecrire(&mut crate::sortie::standard(), &texte, None)?;
    }
    Ok(CodeSortie::Succes)
}

/// Pourquoi `--demander-csv` ne demande rien pour une nuit.
enum PasDemande<'a> {
    DejaTelecharge,
    DejaLa,
    /// L'état du calcul, en une phrase.
    PasCalculee(&'a str),
}

/// Ce qu'a donné `--demander-csv` : le dire (code 0), ou l'erreur.
fn demande_csv(
    m: ModeSortie,
    cible: &Cible,
    issue: DemandeCsv,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    match issue {
        DemandeCsv::Demandee => {
            conseils.ajouter(Suite::Telecharger, cible);
            if m.json {
                Evenement::CsvDemande {
                    participation: cible.participation.as_str(),
                    nuit: nuit_json(cible),
                }
                .ecrire()?;
            } else {
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!(
                        "CSV des observations demandé pour la {} : la plateforme le produit et \
                         vous l'envoie par courriel.",
                        cible.nom()
                    ),
                    None,
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        DemandeCsv::Interrompue => Err(interrompu()),
        DemandeCsv::JetonRefuse => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into())
        }
        DemandeCsv::Incertaine => {
            conseils.ajouter(Suite::Telecharger, cible);
            Err(ErreurAvecCode::nouveau(
                CodeSortie::EchecsTransitoires,
                format!(
                    "la demande du CSV de la {} est restée sans réponse : elle a pu aboutir \
                     (vous recevriez alors un courriel) ; {} dans quelques minutes dira si \
                     le CSV est là",
                    cible.nom(),
                    commande("resultats")
                ),
            )
            .into())
        }
        DemandeCsv::Refusee(pourquoi) => Err(ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "le CSV de la {} n'a pas été demandé : {pourquoi}",
                cible.nom()
            ),
        )
        .into()),
        DemandeCsv::Echouee(pourquoi) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "le CSV de la {} n'a pas été demandé : {pourquoi}",
                cible.nom()
            ),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majuscule_initiale() {
        assert_eq!(majuscule("participation x"), "Participation x");
        assert_eq!(majuscule(""), "");
    }

    /// Une nuit de saison visée, nommée `designation`.
    fn nuit(plan: i64, designation: &str) -> Cible {
        use crate::plan::{NuitLiee, NuitPlanifiee};
        use crate::traitement::cible::NuitVisee;
        Cible {
            participation: crate::destination::IdObjet::analyser(&format!("{plan:024x}")).unwrap(),
            api: "http://127.0.0.1:1/api/v1".into(),
            plan: Some(plan),
            nuit: Some(NuitVisee {
                nuit: NuitPlanifiee {
                    plan_id: plan,
                    saison_id: 1,
                    annee: 2026,
                    api: "http://127.0.0.1:1/api/v1".into(),
                    nuit: NuitLiee {
                        site: "s".into(),
                        numero_site: "640380".into(),
                        protocole: "point_fixe".into(),
                        passage: 1,
                        point: "A1".into(),
                        soiree: "2026-06-21".into(),
                        fuseau: "local".into(),
                        premiere_s: None,
                        derniere_s: None,
                        enregistreurs: String::new(),
                    },
                },
                designation: designation.into(),
            }),
        }
    }

    /// Chaque conseil, tapé tel quel, fait ce qu'il dit : sur toute la saison, la commande nue
    /// quand elle le fait pour toutes les nuits en cause, la nuit nommée quand une seule l'est,
    /// et toujours nommées pour relancer (la commande nue ne relance jamais) ; des nuits
    /// nommées sont redites ; `--participation` redonne la participation ; la reprise est
    /// toujours la même.
    #[test]
    fn un_conseil_nomme_la_nuit_quand_une_seule_est_en_cause() {
        let (a, b, c) = (
            nuit(1, "21/06 A1"),
            nuit(2, "21/06 B2"),
            nuit(3, "22/06 A1"),
        );
        let mut saison = Conseils::nouveaux(&Portee::Saison);
        saison.ajouter(Suite::Suivre, &a);
        saison.ajouter(Suite::Suivre, &b);
        saison.ajouter(Suite::Lancer, &c);
        saison.ajouter(Suite::RelancerErreur, &a);
        saison.ajouter(Suite::RelancerErreur, &c);
        saison.ajouter(Suite::Reprendre, &b);
        let commandes: Vec<String> = saison.commandes().into_iter().map(|(_, c)| c).collect();
        assert_eq!(
            commandes,
            [
                "vigie retenter-echecs",
                "vigie traiter 22/06 A1",
                "vigie traiter 21/06 A1 22/06 A1",
                "vigie traitement --attendre",
            ]
        );
        let mut nommees = Conseils::nouveaux(&Portee::Nommees);
        nommees.ajouter(Suite::Resultats, &a);
        nommees.ajouter(Suite::Resultats, &b);
        nommees.ajouter(Suite::Recalculer, &a);
        let commandes: Vec<String> = nommees.commandes().into_iter().map(|(_, c)| c).collect();
        assert_eq!(
            commandes,
            [
                "vigie traiter --relancer 21/06 A1",
                "vigie resultats 21/06 A1 21/06 B2"
            ]
        );
        let id = crate::destination::IdObjet::analyser("64a1b2c3d4e5f60718293d01").unwrap();
        let mut donnee = Conseils::nouveaux(&Portee::Participation(id));
        let seule = Cible {
            nuit: None,
            ..a.clone()
        };
        donnee.ajouter(Suite::Suivre, &seule);
        donnee.ajouter(Suite::Reprendre, &seule);
        let commandes: Vec<String> = donnee.commandes().into_iter().map(|(_, c)| c).collect();
        assert_eq!(
            commandes,
            [
                "vigie retenter-echecs",
                "vigie traitement --attendre --participation 64a1b2c3d4e5f60718293d01"
            ]
        );
        let mut dernier = Conseils::nouveaux(&Portee::DernierPlan);
        dernier.ajouter(Suite::RelancerErreur, &seule);
        assert_eq!(dernier.commandes()[0].1, "vigie traiter");
    }
}
