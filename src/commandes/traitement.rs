//! Après le dépôt : `vigie traiter` (lancer le calcul), `vigie traitement` (où en est-il, et
//! son bilan) et `vigie resultats` (télécharger le CSV des observations).
//!
//! Le câblage seulement : la lecture de l'état, la décision de lancer, la cadence des relevés,
//! le cache des taxons et les téléchargements sont dans `traitement/`, les mots dans
//! `suivi/traitement.rs`.
//!
//! La participation visée est donnée (`--participation`), ou celle du dernier plan ; les
//! commandes sont écrites pour plusieurs participations à la fois ([`Cible`]) : une saison en
//! compte une par nuit.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use super::vigiechiro::{client, mener_ponctuel, reconnaitre_plateforme_en};
use crate::cli::{ArgsResultats, ArgsTraitement, ArgsTraiter, OptionsGlobales};
use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::{CibleParticipation, Destination, IdObjet, valider_endpoint};
use crate::plan::{Base, DepotPlan, ErreurBase, VerrouPlan};
use crate::reessai::{AleaSysteme, Profil, RaisonArret, ReponseApi, TemporisateurTokio};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::format::{neutraliser, octets_lisibles, pluriel, replier};
use crate::suivi::traitement::{
    AnnoncesReleves, ModeReleves, lignes_bilan, phrase_etat, suggestion, traitement_json,
};
use crate::traitement::lancer::{AvantCalcul, avant_calcul};
use crate::traitement::resultats::{self, Echec, nom_du_csv, nom_sur};
use crate::traitement::taxons::CacheTaxons;
use crate::traitement::{
    Cadence, EtatCalcul, EtatParticipation, FinDuSuivi, JETON_REFUSE, Releve, code_de_l_etat,
    ecrire_une_fois, relever, suivre,
};
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{Calcul, ClientVigieChiro, Utilisateur};

/// Une participation visée, et d'où elle vient.
#[derive(Debug, Clone)]
struct Cible {
    participation: IdObjet,
    /// L'adresse de l'API (celle du plan, ou celle de la configuration).
    api: String,
    /// Le plan qui l'a fait choisir (sans `--participation`).
    plan: Option<i64>,
}

impl Cible {
    /// « participation X (plan N) » pour les messages.
    fn nom(&self) -> String {
        match self.plan {
            Some(p) => format!("participation {} (plan {p})", self.participation),
            None => format!("participation {}", self.participation),
        }
    }

    /// Les options qui désignent cette participation dans une commande à suggérer : rien si
    /// elle vient du dernier plan.
    fn options(&self) -> String {
        match self.plan {
            Some(_) => String::new(),
            None => format!(" --participation {}", self.participation),
        }
    }
}

/// Les participations visées : celle donnée (à l'adresse de `--api`, de `VIGIE_API` ou de la
/// configuration), ou celle du dernier plan (qui doit être un dépôt Vigie-Chiro dont la
/// participation est connue), à l'adresse de ce plan.
fn cibles(
    g: &OptionsGlobales,
    participation: Option<&str>,
    api: Option<&str>,
) -> Result<Vec<Cible>> {
    if let Some(p) = participation {
        let CibleParticipation::Existante(id) = CibleParticipation::existante(p)? else {
            unreachable!("CibleParticipation::existante rend une participation existante");
        };
        let adresse = crate::connexion::adresse_api(api)?;
        let api = valider_endpoint(&adresse.url, false)?;
        return Ok(vec![Cible {
            participation: id,
            api,
            plan: None,
        }]);
    }
    let base = super::ouvrir_base_existante(g)?;
    let plan = base.plan(None)?;
    let Ok(Destination::VigieChiro(dest)) = Destination::depuis_identite(&plan.destination) else {
        return Err(ErreurAvecCode::new(
            CodeSortie::Usage,
            format!(
                "le dernier plan ({}) n'est pas un dépôt vers la plateforme Vigie-Chiro : donnez \
                 la participation, --participation ID",
                plan.id
            ),
        )
        .into());
    };
    let Some(id) = plan.participation.as_deref().and_then(IdObjet::analyser) else {
        return Err(ErreurAvecCode::new(
            CodeSortie::Usage,
            format!(
                "la participation du dernier plan ({}) n'est pas encore connue, sa création n'a \
                 pas abouti : reprenez d'abord ce plan, vigie retenter-echecs {}",
                plan.id, plan.id
            ),
        )
        .into());
    };
    Ok(vec![Cible {
        participation: id,
        api: dest.api,
        plan: Some(plan.id),
    }])
}

/// Reconnaît la plateforme (`GET /moi`) ; le refus dit que `rien_fait`.
async fn reconnaitre(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    api: &str,
    profil: Profil,
    rien_fait: &str,
) -> Result<Utilisateur> {
    reconnaitre_plateforme_en(client, emetteur, profil)
        .await
        .map_err(|r| {
            r.erreur(
                api,
                ErreurAvecCode::new(CodeSortie::RefusDefinitifs, JETON_REFUSE),
                rien_fait,
            )
        })
}

/// Les noms des taxons du bilan : relit la liste de la plateforme si le cache ne les a pas
/// tous (ou est trop vieux). Un échec n'est pas une erreur : les noms portés par le bilan
/// servent alors.
async fn completer_taxons(
    taxons: &mut CacheTaxons,
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    api: &str,
    e: &EtatParticipation,
) {
    let Some(b) = &e.bilan else {
        return;
    };
    let ids: Vec<&IdObjet> = b
        .chiropteres
        .iter()
        .chain(&b.orthopteres)
        .chain(&b.autre)
        .filter_map(|l| l.taxon.id.as_ref())
        .collect();
    let maintenant = crate::traitement::maintenant().secondes();
    if ids.is_empty() || !taxons.a_relire(api, ids, maintenant) {
        return;
    }
    let issue =
        crate::traitement::lire(emetteur, Profil::Bref, "/taxons/liste", || client.taxons()).await;
    match issue.reponse {
        ReponseApi::Succes(liste) => {
            taxons.remplacer(api, &liste, maintenant);
            if let Err(err) = taxons.enregistrer() {
                tracing::warn!(
                    "noms des taxons non gardés ({}) : {}",
                    taxons.chemin().display(),
                    crate::plateforme::erreur_systeme(&err)
                );
            }
        }
        autre => tracing::info!(
            "liste des taxons non lue ({}) : les noms du bilan servent",
            pas_de_reponse_utile(&autre)
        ),
    }
}

/// Écrit l'état d'une participation (et son bilan) sur la sortie standard.
fn afficher_etat(
    g: &OptionsGlobales,
    cible: &Cible,
    e: &EtatParticipation,
    taxons: &CacheTaxons,
) -> Result<()> {
    if g.json {
        super::ligne_json(traitement_json(
            cible.participation.as_str(),
            &cible.api,
            e,
            taxons,
        ))?;
        return Ok(());
    }
    let maintenant = crate::traitement::maintenant();
    let t = e.traitement.as_ref();
    let mut s = crate::sortie::standard();
    let etat = format!(
        "{} : {}.",
        majuscule(&cible.nom()),
        phrase_etat(t, maintenant)
    );
    ecrire(&mut s, &etat, None)?;
    if let (Some(b), Some(EtatCalcul::Fini)) = (&e.bilan, t.map(|t| &t.etat)) {
        for ligne in lignes_bilan(b, taxons, &cible.api) {
            writeln!(s, "{ligne}")?;
        }
    }
    if g.quiet {
        return Ok(());
    }
    let o = cible.options();
    let (intro, commande) = match t.map(|t| &t.etat) {
        None => ("Pour lancer le calcul :", format!("vigie traiter{o}")),
        Some(EtatCalcul::Fini) => ("Le CSV des observations :", format!("vigie resultats{o}")),
        Some(EtatCalcul::Erreur) => {
            ecrire(
                &mut s,
                "Si l'erreur revient après une relance, écrivez aux gestionnaires de la \
                 plateforme.",
                None,
            )?;
            ("Pour relancer le calcul :", format!("vigie traiter{o}"))
        }
        Some(_) => (
            "Pour attendre la fin du calcul :",
            format!("vigie traitement{o} --attendre"),
        ),
    };
    ecrire(&mut s, "", Some((intro, &commande)))?;
    Ok(())
}

/// Un paragraphe replié en 80 colonnes, puis, s'il y en a une, la commande à lancer ensuite
/// (jamais coupée).
fn ecrire(sortie: &mut dyn Write, prose: &str, suite: Option<(&str, &str)>) -> io::Result<()> {
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

fn majuscule(texte: &str) -> String {
    let mut c = texte.chars();
    match c.next() {
        Some(p) => p.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Des secondes de la ligne de commande, strictement positives, une semaine au plus.
fn secondes(nom: &str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero() && *d <= Duration::from_secs(7 * 86_400))
        .with_context(|| {
            format!("--{nom} {s} invalide : une durée en secondes, positive, d'une semaine au plus")
        })
        .map_err(|e| ErreurAvecCode::new(CodeSortie::Usage, format!("{e:#}")).into())
}

/// `vigie traitement` : l'état du calcul de chaque participation visée (et son bilan), ou,
/// avec `--attendre`, ses relevés jusqu'à la fin du calcul.
pub(super) fn traitement(g: &OptionsGlobales, args: ArgsTraitement) -> Result<CodeSortie> {
    let cadence = if args.attendre {
        Some(
            Cadence::nouvelle(
                secondes("attente-releve", args.attente_releve)?,
                secondes("attente-releve-max", args.attente_releve_max)?,
                args.echeance,
            )
            .map_err(|e| {
                ErreurAvecCode::new(CodeSortie::Usage, format!("--attente-releve : {e}"))
            })?,
        )
    } else {
        None
    };
    let cibles = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?;
    let mut taxons = CacheTaxons::de_la_base(&super::chemin_base(g)?);
    let mode = if g.json {
        ModeReleves::Json
    } else if g.quiet {
        ModeReleves::Muet
    } else if crate::suivi::decider(false, false, g.progression.into(), terminal())
        == (crate::suivi::Affichage::Barres { forcees: false })
    {
        ModeReleves::Indicateur
    } else {
        ModeReleves::Lignes
    };
    mener_ponctuel(async |emetteur| {
        let mut code = CodeSortie::Succes;
        for cible in &cibles {
            let client = client(&cible.api)?;
            let reconnue = reconnaitre(
                &client,
                emetteur,
                &cible.api,
                Profil::Bref,
                "l'état du calcul n'a pas été relevé",
            )
            .await;
            // Avec --attendre, une plateforme muette au premier appel n'arrête rien : les
            // relevés suivants repasseront.
            match reconnue {
                Ok(_) => {}
                Err(e)
                    if cadence.is_some()
                        && crate::sortie::code_pour_erreur(&e)
                            == CodeSortie::EchecsTransitoires => {}
                Err(e) => return Err(e),
            }
            let etat = match &cadence {
                None => match relever(&client, emetteur, &cible.participation).await? {
                    Releve::Lu(e) => *e,
                    Releve::Manque(pourquoi) => {
                        return Err(ErreurAvecCode::new(
                            CodeSortie::EchecsTransitoires,
                            format!(
                                "l'état du calcul de la {} n'a pas pu être relevé : {pourquoi}",
                                cible.nom()
                            ),
                        )
                        .into());
                    }
                },
                Some(cadence) => {
                    let annonces = AnnoncesReleves::nouvelles(mode, cible.participation.as_str());
                    if mode == ModeReleves::Lignes || mode == ModeReleves::Indicateur {
                        let _ = ecrire(
                            &mut crate::sortie::erreur(),
                            &format!(
                                "Suivi du calcul de la {} ; Ctrl-C pour arrêter.",
                                cible.nom()
                            ),
                            None,
                        );
                    }
                    let fin = suivre(
                        cadence,
                        &TemporisateurTokio::new(),
                        &AleaSysteme,
                        emetteur.annulation(),
                        || relever(&client, emetteur, &cible.participation),
                        &annonces,
                    )
                    .await;
                    annonces.terminer();
                    match fin? {
                        FinDuSuivi::Termine(e) => e,
                        FinDuSuivi::Interrompu(_) => return Err(super::interrompu()),
                        FinDuSuivi::Echeance(dernier) => {
                            if let Some(e) = &dernier {
                                completer_taxons(&mut taxons, &client, emetteur, &cible.api, e)
                                    .await;
                                afficher_etat(g, cible, e, &taxons)?;
                            }
                            let _ = ecrire(
                                &mut crate::sortie::erreur(),
                                &format!(
                                    "Échéance atteinte : le calcul de la {} n'est pas fini{}.",
                                    cible.nom(),
                                    if dernier.is_none() {
                                        " (aucun relevé n'a abouti)"
                                    } else {
                                        ""
                                    }
                                ),
                                None,
                            );
                            code = code.max_par_gravite(CodeSortie::EchecsTransitoires);
                            continue;
                        }
                    }
                }
            };
            completer_taxons(&mut taxons, &client, emetteur, &cible.api, &etat).await;
            afficher_etat(g, cible, &etat, &taxons)?;
            code = code.max_par_gravite(code_de_l_etat(Some(&etat)));
        }
        Ok(code)
    })
}

fn terminal() -> bool {
    use std::io::IsTerminal;
    io::stderr().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        && crate::plateforme::console_pilotable()
}

/// Le plus grave de deux codes (pour plusieurs participations : 3 l'emporte sur 1, 1 sur 0).
trait Gravite {
    fn max_par_gravite(self, autre: CodeSortie) -> CodeSortie;
}

impl Gravite for CodeSortie {
    fn max_par_gravite(self, autre: CodeSortie) -> CodeSortie {
        let rang = |c: CodeSortie| match c {
            CodeSortie::Succes => 0,
            CodeSortie::EchecsTransitoires => 1,
            _ => 2,
        };
        if rang(autre) > rang(self) {
            autre
        } else {
            self
        }
    }
}

// ------------------------------------------------------------------------- vigie traiter

/// Les plans de la base qui déposent vers cette participation (à cette adresse).
fn plans_de_la_cible(base: &Base, cible: &Cible) -> Result<Vec<DepotPlan>> {
    Ok(base
        .plans()?
        .into_iter()
        .filter(|p| {
            matches!(
                Destination::depuis_identite(&p.destination),
                Ok(Destination::VigieChiro(d)) if d.api == cible.api
            ) && p.participation.as_deref() == Some(cible.participation.as_str())
        })
        .collect())
}

/// Avant tout appel au réseau : la nuit est-elle entièrement déposée, et aucun dépôt ne
/// l'envoie-t-il en ce moment ? Sinon, refus (code 2), en disant combien de fichiers manquent,
/// sauf `--nuit-incomplete`. Rend les verrous des plans, tenus jusqu'au lancement : aucun dépôt
/// de cette nuit ne commence pendant ce temps.
fn verifier_nuit(g: &OptionsGlobales, cible: &Cible, malgre_tout: bool) -> Result<Vec<VerrouPlan>> {
    let chemin = super::chemin_base(g)?;
    let Some(base) = Base::ouvrir_existante(&chemin)? else {
        return Ok(Vec::new());
    };
    let mut verrous = Vec::new();
    let mut refus = Vec::new();
    for plan in plans_de_la_cible(&base, cible)? {
        let r = base.resume(plan.id)?;
        let manquent = r.total().saturating_sub(r.deposee);
        let fichiers = |n: u64| pluriel(n, "fichier", "fichiers");
        match VerrouPlan::prendre(
            &chemin,
            &plan.dossier,
            &plan.destination,
            &plan.id.to_string(),
        ) {
            Ok(v) => {
                if manquent > 0 {
                    refus.push(format!(
                        "la nuit du plan {} n'est pas entièrement déposée : {} sur {} \
                         {} pas sur la plateforme ({} déposé{}) ; reprenez d'abord le dépôt, \
                         vigie retenter-echecs {}",
                        plan.id,
                        manquent,
                        r.total(),
                        if manquent > 1 { "ne sont" } else { "n'est" },
                        r.deposee,
                        if r.deposee > 1 { "s" } else { "" },
                        plan.id
                    ));
                }
                verrous.push(v);
            }
            Err(ErreurBase::PlanOccupe { pid, .. }) => refus.push(format!(
                "un dépôt de cette nuit est en cours (plan {}{}) : {} sur {} ne sont pas encore \
                 déposés ; attendez qu'il finisse",
                plan.id,
                pid.map(|p| format!(", processus {p}")).unwrap_or_default(),
                fichiers(manquent),
                r.total()
            )),
            Err(e) => return Err(e.into()),
        }
    }
    if refus.is_empty() || malgre_tout {
        if !refus.is_empty() && !g.quiet {
            let _ = ecrire(
                &mut crate::sortie::erreur(),
                &format!(
                    "Attention : {} ; le calcul est lancé quand même (--nuit-incomplete).",
                    refus.join(" ; ")
                ),
                None,
            );
        }
        return Ok(verrous);
    }
    Err(ErreurAvecCode::new(
        CodeSortie::Usage,
        format!(
            "{} ; le calcul ne verrait que les fichiers déjà déposés, et tant qu'il serait \
             planifié ou en cours (un jour au plus) la plateforme refuserait d'en lancer un \
             autre. Rien n'a été lancé. Pour lancer quand même le calcul d'une nuit \
             incomplète : vigie traiter{} --nuit-incomplete",
            refus.join(" ; "),
            cible.options()
        ),
    )
    .into())
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
fn calcul_json(
    cible: &Cible,
    lance: bool,
    etat: Option<&str>,
    raison: Option<&str>,
) -> serde_json::Value {
    serde_json::json!({
        "evenement": "calcul",
        "participation": cible.participation.as_str(),
        "api": cible.api,
        "lance": lance,
        "etat_plateforme": etat,
        "raison": raison,
    })
}

/// `vigie traiter` : lit l'état du calcul, puis le lance (une seule émission, jamais rejouée :
/// un nouveau calcul efface les données déjà produites) seulement s'il doit l'être.
pub(super) fn traiter(g: &OptionsGlobales, args: ArgsTraiter) -> Result<CodeSortie> {
    let cible = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?
        .into_iter()
        .next()
        .context("aucune participation visée")?;
    let _verrous = verifier_nuit(g, &cible, args.nuit_incomplete)?;
    let client = client(&cible.api)?;
    mener_ponctuel(async |emetteur| {
        let moi = reconnaitre(
            &client,
            emetteur,
            &cible.api,
            Profil::Insistant,
            "le calcul n'a pas été lancé",
        )
        .await?;
        let avant = match relever(&client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => *e,
            Releve::Manque(pourquoi) => {
                if emetteur.annulation().est_annulee() {
                    return Err(super::interrompu());
                }
                return Err(ErreurAvecCode::new(
                    CodeSortie::EchecsTransitoires,
                    format!(
                        "la plateforme n'a pas dit où en est le calcul de la {} : rien n'a été \
                         lancé (un calcul lancé à l'aveugle pourrait effacer des résultats) ; \
                         {pourquoi}",
                        cible.nom()
                    ),
                )
                .into());
            }
        };
        let autre_observateur = avant.observateur.as_ref().is_some_and(|o| o.id != moi.id)
            && moi.role.as_deref() != Some("Administrateur");
        if autre_observateur {
            return Err(ErreurAvecCode::new(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la {} n'est pas la vôtre : c'est {} ; seul son observateur peut en lancer \
                     le calcul. Rien n'a été lancé : vérifiez l'identifiant de la participation",
                    cible.nom(),
                    a_qui(&avant)
                ),
            )
            .into());
        }
        let maintenant = crate::traitement::maintenant();
        let t = avant.traitement.as_ref();
        let etat = t.map(|t| t.etat.nom().to_owned());
        let phrase = phrase_etat(t, maintenant);
        let decision = avant_calcul(t, args.relancer, maintenant);
        let o = cible.options();
        let ne_rien_faire = |raison: &str,
                             texte: String,
                             suite: Option<(&str, String)>,
                             code: CodeSortie|
         -> Result<CodeSortie> {
            if g.json {
                super::ligne_json(calcul_json(&cible, false, etat.as_deref(), Some(raison)))?;
            } else {
                let suite = suite.as_ref().map(|(i, c)| (*i, c.as_str()));
                ecrire(&mut crate::sortie::standard(), &texte, suite)?;
            }
            Ok(code)
        };
        let nom = majuscule(&cible.nom());
        match decision {
            AvantCalcul::DejaEnCours => {
                return ne_rien_faire(
                    "deja_en_cours",
                    format!("{nom} : {phrase} ; rien n'a été relancé."),
                    Some((
                        "Pour le suivre :",
                        format!("vigie traitement{o} --attendre"),
                    )),
                    CodeSortie::Succes,
                );
            }
            AvantCalcul::Reessai => {
                return ne_rien_faire(
                    "reessai",
                    format!("{nom} : {phrase} ; rien n'a été relancé."),
                    Some((
                        "Pour le suivre :",
                        format!("vigie traitement{o} --attendre"),
                    )),
                    CodeSortie::Succes,
                );
            }
            AvantCalcul::DejaFini => {
                return ne_rien_faire(
                    "deja_fini",
                    format!(
                        "{nom} : {phrase} ; rien n'a été relancé. Ses résultats : vigie \
                         traitement et vigie resultats. Un nouveau calcul remplacerait ces \
                         résultats."
                    ),
                    Some((
                        "Pour recalculer quand même :",
                        format!("vigie traiter{o} --relancer"),
                    )),
                    CodeSortie::Succes,
                );
            }
            AvantCalcul::Arrete => {
                return ne_rien_faire(
                    "arrete",
                    format!(
                        "{nom} : {phrase}, il y a plus d'un jour : le calcul semble arrêté. Rien \
                         n'a été relancé."
                    ),
                    Some(("Pour le relancer :", format!("vigie traiter{o} --relancer"))),
                    CodeSortie::EchecsTransitoires,
                );
            }
            AvantCalcul::Inconnu => {
                return ne_rien_faire(
                    "etat_inconnu",
                    format!("{nom} : {phrase}. Rien n'a été lancé."),
                    Some((
                        "Pour lancer le calcul quand même :",
                        format!("vigie traiter{o} --relancer"),
                    )),
                    CodeSortie::EchecsTransitoires,
                );
            }
            AvantCalcul::Lancer | AvantCalcul::Relancer => {}
        }
        lancer(g, &cible, emetteur, &client, &moi, &avant, etat.as_deref()).await
    })
}

/// `POST …/compute`, une seule émission ; une issue inconnue se réconcilie en relisant l'état.
async fn lancer(
    g: &OptionsGlobales,
    cible: &Cible,
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    moi: &Utilisateur,
    avant: &EtatParticipation,
    etat_avant: Option<&str>,
) -> Result<CodeSortie> {
    let chemin = format!("/participations/{}/compute", cible.participation);
    let issue = ecrire_une_fois(emetteur, &chemin, || {
        client.lancer_calcul(&cible.participation)
    })
    .await;
    let nom = majuscule(&cible.nom());
    let lance = |confirme: &str| -> Result<CodeSortie> {
        if g.json {
            super::ligne_json(calcul_json(cible, true, etat_avant, None))?;
        } else if !g.quiet {
            ecrire(
                &mut crate::sortie::standard(),
                &format!("Calcul lancé pour la {}{confirme}.", cible.nom()),
                Some((
                    "Pour le suivre :",
                    &format!("vigie traitement{} --attendre", cible.options()),
                )),
            )?;
        }
        Ok(CodeSortie::Succes)
    };
    match (&issue.reponse, issue.raison) {
        (ReponseApi::Succes(Calcul::Lance), _) => lance(""),
        // L'état a changé entre la lecture et le lancement : la plateforme refuse, rien n'est
        // relancé. Sa réponse (« Already … ») n'est pas montrée telle quelle.
        (ReponseApi::Succes(Calcul::DejaEnCours(etat)), _) => {
            let etat = if etat.contains("EN_COURS") {
                "en cours"
            } else {
                "planifié"
            };
            if g.json {
                super::ligne_json(calcul_json(cible, false, etat_avant, Some("deja_en_cours")))?;
            } else {
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!(
                        "{nom} : la plateforme répond que son calcul est déjà {etat} ; rien n'a \
                         été relancé."
                    ),
                    Some((
                        "Pour le suivre :",
                        &format!("vigie traitement{} --attendre", cible.options()),
                    )),
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::new(CodeSortie::RefusDefinitifs, JETON_REFUSE).into())
        }
        // Ctrl-C avant que le lancement soit parti (pendant une attente) : rien n'est lancé.
        (_, RaisonArret::Annule) => Err(super::interrompu()),
        // `_check_edit_access` (`resources/participations.py`) : seul l'observateur (ou un
        // administrateur) lance le calcul.
        (ReponseApi::Refuse { statut: 403, .. }, RaisonArret::RefusDefinitif) => {
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
            Err(ErreurAvecCode::new(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de lancer le calcul de la {} (403) : {pourquoi} ; rien \
                     n'a été lancé",
                    cible.nom()
                ),
            )
            .into())
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => {
            Err(ErreurAvecCode::new(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de lancer le calcul de la {} ({statut} : {}) ; rien \
                     n'a été lancé",
                    cible.nom(),
                    neutraliser(detail)
                ),
            )
            .into())
        }
        (_, RaisonArret::IssueInconnue) => {
            // Le serveur note la planification avant de répondre : la relire dit si le
            // lancement a eu lieu.
            let apres = relever(client, emetteur, &cible.participation).await;
            let planifie_depuis = |e: &EtatParticipation| {
                e.traitement
                    .as_ref()
                    .filter(|t| t.etat == EtatCalcul::Planifie || t.etat == EtatCalcul::EnCours)
                    .map(|t| (t.date_planification, t.date_debut))
            };
            match apres {
                Ok(Releve::Lu(e))
                    if planifie_depuis(&e).is_some()
                        && planifie_depuis(&e) != planifie_depuis(avant) =>
                {
                    lance(" (réponse perdue, lancement confirmé en relisant la plateforme)")
                }
                Ok(Releve::Lu(e)) => Err(ErreurAvecCode::new(
                    CodeSortie::EchecsTransitoires,
                    format!(
                        "le lancement du calcul est resté sans réponse, et la plateforme ne \
                         montre pas de nouveau calcul ({}) : vérifiez dans quelques minutes, \
                         vigie traitement{}, avant de relancer",
                        phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()),
                        cible.options()
                    ),
                )
                .into()),
                _ => Err(ErreurAvecCode::new(
                    CodeSortie::EchecsTransitoires,
                    format!(
                        "le lancement du calcul est resté sans réponse, et la plateforme n'a pas \
                         pu être relue : vérifiez dans quelques minutes, vigie traitement{}, \
                         avant de relancer (un nouveau calcul efface les données déjà produites)",
                        cible.options()
                    ),
                )
                .into()),
            }
        }
        (autre, _) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!(
                "le calcul n'a pas été lancé : {}",
                pas_de_reponse_utile(autre)
            ),
        )
        .into()),
    }
}

// ------------------------------------------------------------------------ vigie resultats

/// Ce qu'une erreur de téléchargement dit, en français.
fn erreur_resultat(quoi: &str, e: Echec) -> anyhow::Error {
    match e {
        Echec::Plateforme(ReponseApi::Refuse { statut: 401, .. }) => {
            ErreurAvecCode::new(CodeSortie::RefusDefinitifs, JETON_REFUSE).into()
        }
        Echec::Plateforme(r @ ReponseApi::Refuse { statut: 403, .. }) => ErreurAvecCode::new(
            CodeSortie::RefusDefinitifs,
            format!(
                "{quoi} : {} ; seul l'observateur de la participation peut lire ses résultats",
                pas_de_reponse_utile(&r)
            ),
        )
        .into(),
        Echec::Plateforme(r) => ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!("{quoi} : {}", pas_de_reponse_utile(&r)),
        )
        .into(),
        Echec::Stockage(r) => ErreurAvecCode::new(
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
            ErreurAvecCode::new(CodeSortie::Usage, format!("{quoi} : {}", neutraliser(&m))).into()
        }
    }
}

/// Un fichier écrit, dit à l'utilisateur.
fn annoncer_fichier(
    g: &OptionsGlobales,
    cible: &Cible,
    quoi: &str,
    t: &resultats::Telecharge,
) -> Result<()> {
    if g.json {
        super::ligne_json(serde_json::json!({
            "evenement": "resultat",
            "participation": cible.participation.as_str(),
            "fichier": quoi,
            "chemin": t.chemin.display().to_string(),
            "octets": t.octets,
        }))?;
        return Ok(());
    }
    let libelle = if quoi == "csv" {
        "CSV des observations"
    } else {
        "Journal du calcul"
    };
    ecrire(
        &mut crate::sortie::standard(),
        &format!(
            "{libelle} écrit : {} ({}).",
            neutraliser(&t.chemin.display().to_string()),
            octets_lisibles(t.octets)
        ),
        None,
    )?;
    Ok(())
}

/// `vigie resultats` : le CSV des observations (et, sur demande, le journal du calcul).
pub(super) fn resultats(g: &OptionsGlobales, args: ArgsResultats) -> Result<CodeSortie> {
    let cibles = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?;
    let sortie: PathBuf = args.sortie.clone();
    mener_ponctuel(async |emetteur| {
        let mut code = CodeSortie::Succes;
        for cible in &cibles {
            let client = client(&cible.api)?;
            reconnaitre(
                &client,
                emetteur,
                &cible.api,
                Profil::Insistant,
                "rien n'a été téléchargé",
            )
            .await?;
            if args.demander_csv {
                code = code.max_par_gravite(demander_csv(g, cible, emetteur, &client).await?);
                continue;
            }
            let etat = match relever(&client, emetteur, &cible.participation).await? {
                Releve::Lu(e) => Some(*e),
                Releve::Manque(pourquoi) => {
                    tracing::info!("état du calcul non relevé : {pourquoi}");
                    None
                }
            };
            let phrase = etat
                .as_ref()
                .map(|e| phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()));
            let csv = resultats::trouver_csv(&client, emetteur, &cible.participation)
                .await
                .map_err(|e| {
                    erreur_resultat("le CSV des observations n'a pas pu être cherché", e)
                })?;
            let ecrit = match csv {
                Some(f) => {
                    let nom = nom_sur(&f.titre).unwrap_or_else(|| nom_du_csv(&cible.participation));
                    resultats::telecharger(&client, emetteur, &f.id, &sortie, &nom)
                        .await
                        .map_err(|e| {
                            erreur_resultat("le CSV des observations n'a pas été téléchargé", e)
                        })?
                }
                None => None,
            };
            match ecrit {
                Some(t) => {
                    annoncer_fichier(g, cible, "csv", &t)?;
                    let pas_fini = etat
                        .as_ref()
                        .and_then(|e| e.traitement.as_ref())
                        .is_some_and(|t| t.etat != EtatCalcul::Fini);
                    if pas_fini && !g.json && !g.quiet {
                        let _ = ecrire(
                            &mut crate::sortie::erreur(),
                            &format!(
                                "Attention : ce CSV vient d'un calcul précédent ({}).",
                                phrase.as_deref().unwrap_or("")
                            ),
                            None,
                        );
                    }
                }
                None => {
                    code = code.max_par_gravite(csv_absent(
                        g,
                        cible,
                        etat.as_ref(),
                        phrase.as_deref(),
                    )?);
                }
            }
            if args.avec_journal {
                code = code.max_par_gravite(
                    journal(g, cible, emetteur, &client, etat.as_ref(), &sortie).await?,
                );
            }
        }
        Ok(code)
    })
}

/// Le CSV n'est pas sur la plateforme : dire pourquoi, et quoi faire. Code 1 (3 si le calcul
/// est en erreur).
fn csv_absent(
    g: &OptionsGlobales,
    cible: &Cible,
    etat: Option<&EtatParticipation>,
    phrase: Option<&str>,
) -> Result<CodeSortie> {
    let t = etat.and_then(|e| e.traitement.as_ref());
    let (message, code) = match t.map(|t| &t.etat) {
        Some(EtatCalcul::Fini) => (
            format!(
                "{} : {}, mais la plateforme n'a pas (encore) le CSV des observations : elle le \
                 produit après le calcul si elle est réglée pour, sinon à la demande. \
                 Demandez-le (il vous sera aussi envoyé par courriel) : vigie resultats{} \
                 --demander-csv, puis relancez vigie resultats dans quelques minutes",
                cible.nom(),
                phrase.unwrap_or("calcul fini"),
                cible.options()
            ),
            CodeSortie::EchecsTransitoires,
        ),
        Some(EtatCalcul::Erreur) => (
            format!(
                "pas de résultats pour la {} : {} ; pour relancer le calcul : vigie traiter{}",
                cible.nom(),
                phrase.unwrap_or("calcul en erreur"),
                cible.options()
            ),
            CodeSortie::RefusDefinitifs,
        ),
        None if etat.is_some() => (
            format!(
                "pas encore de résultats pour la {} : aucun calcul n'a été lancé ; pour le \
                 lancer : vigie traiter{}",
                cible.nom(),
                cible.options()
            ),
            CodeSortie::EchecsTransitoires,
        ),
        _ => (
            format!(
                "pas encore de résultats pour la {} ({}) : pour attendre la fin du calcul, \
                 vigie traitement{} --attendre",
                cible.nom(),
                phrase.unwrap_or("état du calcul inconnu"),
                cible.options()
            ),
            CodeSortie::EchecsTransitoires,
        ),
    };
    if g.json {
        super::ligne_json(serde_json::json!({
            "evenement": "erreur",
            "code": code as i32,
            "message": message,
        }))?;
    }
    let _ = writeln!(
        crate::sortie::erreur(),
        "erreur : {}",
        neutraliser(&message)
    );
    Ok(code)
}

/// `--avec-journal` : le fichier du journal du dernier calcul réussi.
async fn journal(
    g: &OptionsGlobales,
    cible: &Cible,
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    etat: Option<&EtatParticipation>,
    sortie: &std::path::Path,
) -> Result<CodeSortie> {
    let Some(id) = etat.and_then(|e| e.logs.as_ref()) else {
        let _ = ecrire(
            &mut crate::sortie::erreur(),
            &format!(
                "Pas de journal du calcul pour la {} : il n'existe qu'après un calcul réussi.",
                cible.nom()
            ),
            None,
        );
        return Ok(CodeSortie::EchecsTransitoires);
    };
    let nom = format!("participation-{}-logs.txt", cible.participation);
    match resultats::telecharger(client, emetteur, id, sortie, &nom)
        .await
        .map_err(|e| erreur_resultat("le journal du calcul n'a pas été téléchargé", e))?
    {
        Some(t) => {
            annoncer_fichier(g, cible, "journal", &t)?;
            Ok(CodeSortie::Succes)
        }
        None => {
            let _ = ecrire(
                &mut crate::sortie::erreur(),
                &format!(
                    "Le journal du calcul de la {} n'est pas disponible sur la plateforme.",
                    cible.nom()
                ),
                None,
            );
            Ok(CodeSortie::EchecsTransitoires)
        }
    }
}

/// `--demander-csv` : `POST …/csv`, une seule émission (chaque émission est un courriel).
async fn demander_csv(
    g: &OptionsGlobales,
    cible: &Cible,
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
) -> Result<CodeSortie> {
    let chemin = format!("/participations/{}/csv", cible.participation);
    let issue = ecrire_une_fois(emetteur, &chemin, || {
        client.demander_csv(&cible.participation)
    })
    .await;
    match (&issue.reponse, issue.raison) {
        (ReponseApi::Succes(()), _) => {
            if g.json {
                super::ligne_json(serde_json::json!({
                    "evenement": "csv_demande",
                    "participation": cible.participation.as_str(),
                }))?;
            } else {
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!(
                        "CSV des observations demandé pour la {} : la plateforme le produit et \
                         vous l'envoie par courriel.",
                        cible.nom()
                    ),
                    Some((
                        "Pour le télécharger, dans quelques minutes :",
                        &format!("vigie resultats{}", cible.options()),
                    )),
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        (_, RaisonArret::Annule) => Err(super::interrompu()),
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::new(CodeSortie::RefusDefinitifs, JETON_REFUSE).into())
        }
        (_, RaisonArret::IssueInconnue) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            "la demande du CSV est restée sans réponse : elle a pu aboutir (vous recevriez \
             alors un courriel) ; vigie resultats dans quelques minutes dira si le CSV est là",
        )
        .into()),
        (r @ ReponseApi::Refuse { .. }, RaisonArret::RefusDefinitif) => Err(ErreurAvecCode::new(
            CodeSortie::RefusDefinitifs,
            format!("le CSV n'a pas été demandé : {}", pas_de_reponse_utile(r)),
        )
        .into()),
        (autre, _) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!(
                "le CSV n'a pas été demandé : {}",
                pas_de_reponse_utile(autre)
            ),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravite_et_majuscule() {
        assert_eq!(
            CodeSortie::Succes.max_par_gravite(CodeSortie::EchecsTransitoires),
            CodeSortie::EchecsTransitoires
        );
        assert_eq!(
            CodeSortie::RefusDefinitifs.max_par_gravite(CodeSortie::EchecsTransitoires),
            CodeSortie::RefusDefinitifs
        );
        assert_eq!(majuscule("participation x"), "Participation x");
    }
}
