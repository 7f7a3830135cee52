//! Parler à la plateforme depuis une commande : le client du jeton, les émissions d'une
//! commande ponctuelle sur leur runtime, et les vérifications d'avant tout envoi
//! (`depot/vigiechiro/avant_envoi.rs`) menées sous la veille du réseau et Ctrl-C.

use std::sync::Arc;

use anyhow::Result;

use super::reglages::ReglagesFusionnes;
use crate::cli::OptionsGlobales;
use crate::depot::AnnoncesSuivi;
use crate::depot::fabrique::Destination;
use crate::depot::passage::Envoi;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::depot::vigiechiro::avant_envoi::{self, PlateformeVerifiee};
use crate::destination::{CibleParticipation, IdObjet};
use crate::plan::{Base, DepotPlan};
use crate::plateforme::conseil::commande;
use crate::preparation::nuit::Preparation;
use crate::reessai::{Annulation, Profil, Reglages};
use crate::saison::correspondance::{self, Ecart, ParticipationVue};
use crate::saison::fuseau::Fuseau;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::depot::{self as dire, RIEN_ENVOYE};
use crate::transport::vigiechiro::ClientVigieChiro;
use crate::transport::{Emetteur, ReglagesEmission};

/// Un client authentifié par le jeton courant (`VIGIE_JETON` ou `vigie connexion`).
pub(super) fn client(api: &str) -> Result<ClientVigieChiro> {
    crate::depot::vigiechiro::client_du_jeton(api)
}

/// Un émetteur aux réglages par défaut, pour une commande ponctuelle (connexion, traiter) :
/// quelqu'un attend la réponse, il n'y a donc pas de pause réseau (elle pourrait durer dix
/// minutes) ; l'émission s'arrête sur sa politique, 2 minutes au plus.
fn emetteur_ponctuel(annulation: Annulation) -> Result<Emetteur> {
    Ok(Emetteur::nouveau(
        ReglagesEmission {
            insistant: insistante_ponctuelle()?,
            bref: Reglages::bref().valider()?,
            delai_tentative: std::time::Duration::from_secs(90),
            delai_blocage: std::time::Duration::from_secs(30),
            pause: None,
        },
        annulation,
    ))
}

/// La politique INSISTANTE d'une commande ponctuelle : quelqu'un attend la réponse, deux
/// minutes au plus.
fn insistante_ponctuelle() -> Result<crate::reessai::PolitiqueReessai> {
    Ok(Reglages::insistant()
        .avec_echeance(std::time::Duration::from_secs(120))
        .valider()?)
}

/// Les réglages d'une simulation qui lit la plateforme (`vigie depot --participation ID
/// --simulation`) : ses lectures sont brèves (deux tentatives : [`verifier_plateforme`] sous
/// `Profil::Bref`), sans pause réseau ; injoignable, elle le dit et continue sans avoir vérifié
/// (elle n'envoie rien). Chaque politique à sa place : l'insistante est celle des commandes
/// ponctuelles, qu'aucune lecture d'une simulation ne suit.
pub(super) fn reglages_de_simulation() -> Result<ReglagesEmission> {
    Ok(ReglagesEmission {
        insistant: insistante_ponctuelle()?,
        bref: Reglages::bref().valider()?,
        delai_tentative: std::time::Duration::from_secs(30),
        delai_blocage: std::time::Duration::from_secs(15),
        pause: None,
    })
}

/// Mène les émissions d'une commande ponctuelle sur leur propre runtime, sous un
/// [`emetteur_ponctuel`] ; Ctrl-C et SIGTERM les arrêtent : une commande qui échoue après un
/// signal sort en 130.
pub(super) fn mener_ponctuel<T>(travail: impl AsyncFnOnce(&Emetteur) -> Result<T>) -> Result<T> {
    let annulation = Annulation::nouveau();
    let emetteur = emetteur_ponctuel(annulation.clone())?
        .annonce_par(std::sync::Arc::new(crate::suivi::AnnonceDesReessais));
    let resultat = super::moteur(super::Fils::Un)?.block_on(async {
        super::ecouter_signaux(annulation.clone(), None);
        travail(&emetteur).await
    });
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    match resultat {
        Err(_) if annulation.est_annulee() => Err(super::interrompu()),
        r => r,
    }
}

/// Avant tout envoi : l'adresse est celle de l'API, le jeton est accepté, et la participation
/// donnée existe (une participation mal écrite ou inconnue ferait échouer chaque fichier).
///
/// C'est déjà le dépôt qui parle au réseau : ces vérifications suivent ses réglages
/// (`reglages`, tirés de ses options) et sa veille du réseau. Une coupure les met en pause,
/// sondée et bornée par `--attente-reseau`, au lieu de faire échouer le dépôt au premier
/// tunnel ; Ctrl-C et SIGTERM les arrêtent (code 130).
/// `rien_fait` : ce qui n'a pas eu lieu si la vérification échoue (« rien n'a été envoyé ») ;
/// `profil` : celui de ses lectures (BREF pour une simulation, INSISTANT avant un envoi).
pub(super) fn verifier_plateforme(
    g: &OptionsGlobales,
    dest: &DestinationVigieChiro,
    (reglages, profil): (ReglagesEmission, Profil),
    rien_fait: &str,
) -> Result<PlateformeVerifiee> {
    let client = client(&dest.api)?;
    let annulation = Annulation::nouveau();
    let emetteur = Emetteur::nouveau(reglages, annulation.clone());
    let verifier = avant_envoi::verifier(&client, (&emetteur, profil), dest, rien_fait);
    let resultat = super::moteur(super::Fils::Un)?.block_on(async {
        let suivi = crate::suivi::choisir(g.json, g.quiet, g.progression.into());
        super::ecouter_signaux(annulation.clone(), Some(Arc::clone(&suivi)));
        crate::transport::sous_veille(
            &emetteur,
            verifier,
            || async { client.moi().await.map(|_| ()) },
            &AnnoncesSuivi(suivi.as_ref()),
        )
        .await
    });
    crate::suivi::liberer_terminal();
    issue_sous_veille(&emetteur, &annulation, resultat)
}

/// L'issue d'émissions menées sous la veille du réseau : un certificat refusé d'abord (code 2),
/// puis Ctrl-C (130). Le réseau abandonné annule aussi : c'est alors un échec, pas une
/// interruption.
fn issue_sous_veille<T>(emetteur: &Emetteur, arret: &Annulation, r: Result<T>) -> Result<T> {
    if let Some(e) = super::certificat_refuse(emetteur) {
        return Err(e);
    }
    match r {
        Err(_) if arret.est_annulee() && !emetteur.reseau().est_abandonne() => {
            Err(super::interrompu())
        }
        r => r,
    }
}

/// La participation d'un plan vers la plateforme, résolue (créée au besoin, une seule fois)
/// hors d'un passage, sous les réglages et la veille du réseau de l'envoi : les créations d'une
/// saison se font toutes avant le premier octet.
pub(super) async fn resoudre_participation(
    envoi: &Envoi<'_>,
    (base, plan): (&Base, &DepotPlan),
    dest: &DestinationVigieChiro,
    moi: Option<&IdObjet>,
) -> Result<IdObjet> {
    let arret = Annulation::nouveau();
    super::ecouter_signaux(arret.clone(), None);
    let emetteur = envoi.emetteur_seul(arret.clone());
    let client = client(&dest.api)?;
    let journal_suivi = crate::suivi::choisir(false, true, crate::suivi::Progression::Jamais);
    let issue = crate::depot::vigiechiro::participation::resoudre_participation(
        base,
        plan.id,
        dest,
        moi,
        &client,
        &emetteur,
        &AnnoncesSuivi(journal_suivi.as_ref()),
    )
    .await;
    issue_sous_veille(&emetteur, &arret, issue)
}

/// Ce que `vigie depot` d'une nuit sait avant de parler à la plateforme, en valeurs.
pub(super) struct AvantLeDepot<'a> {
    /// `--simulation` : la plateforme n'est que lue, brièvement.
    pub(crate) simulation: bool,
    /// `--forcer-participation`.
    pub(crate) forcer: bool,
    /// `--fuseau`, tel que tapé.
    pub(crate) fuseau: &'a str,
    pub(crate) preparation: &'a Preparation,
    /// L'identité de la destination, qui nomme le plan.
    pub(crate) identite: &'a str,
    pub(crate) reglages: &'a ReglagesFusionnes,
}

/// Avant tout envoi d'une nuit vers la plateforme : un dossier déjà planifié vers la même
/// participation est refusé, puis la plateforme est lue et les noms comparés à la
/// participation ([`verifier_avant_l_envoi`]). Rend l'utilisateur du jeton, s'il a été
/// reconnu pour un envoi ; `None` : une autre destination, que rien de ceci ne concerne.
pub(super) fn avant_le_depot(
    g: &OptionsGlobales,
    destination: &Destination,
    ctx: &AvantLeDepot<'_>,
) -> Result<Option<Option<IdObjet>>> {
    let Some(dest) = DestinationVigieChiro::de(destination) else {
        return Ok(None);
    };
    let dossier = &ctx.preparation.dossier;
    refuser_si_deja_planifie(g, dossier, dest, ctx.identite, ctx.simulation)?;
    verifier_avant_l_envoi(g, dest, ctx).map(Some)
}

/// Avant d'envoyer ou de relire un plan vers la plateforme (et seulement elle) : l'adresse de
/// l'API, le jeton et la participation d'abord, comme toute commande qui lui parle
/// ([`verifier_plateforme`], sous `emission`). Rend l'utilisateur du jeton ; `None` : une
/// autre destination, qui n'a rien à vérifier ici.
pub(super) fn verifier_si_plateforme(
    g: &OptionsGlobales,
    destination: &Destination,
    emission: impl FnOnce() -> Result<ReglagesEmission>,
    rien_fait: &str,
) -> Result<Option<IdObjet>> {
    let Some(dest) = DestinationVigieChiro::de(destination) else {
        return Ok(None);
    };
    let lectures = (emission()?, Profil::Insistant);
    Ok(Some(verifier_plateforme(g, dest, lectures, rien_fait)?.moi))
}

/// Vers la plateforme, avant tout envoi : la plateforme lue ([`lire_la_plateforme`]), puis
/// les noms comparés à la participation. Rend l'utilisateur du jeton, s'il a été reconnu pour
/// un envoi.
fn verifier_avant_l_envoi(
    g: &OptionsGlobales,
    dest: &DestinationVigieChiro,
    ctx: &AvantLeDepot<'_>,
) -> Result<Option<IdObjet>> {
    let fuseau = Fuseau::analyser(ctx.fuseau)
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
    let verifiee = lire_la_plateforme(g, ctx.simulation, dest, ctx.reglages)?;
    let moi = verifiee
        .as_ref()
        .filter(|_| !ctx.simulation)
        .map(|v| v.moi.clone());
    refuser_plusieurs_nuits(g, ctx.preparation, ctx.forcer)?;
    comparer_a_la_cible(g, ctx, dest, &fuseau, verifiee)?;
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
    ctx: &AvantLeDepot<'_>,
    dest: &DestinationVigieChiro,
    fuseau: &Fuseau,
    verifiee: Option<PlateformeVerifiee>,
) -> Result<()> {
    let (forcer, preparation) = (ctx.forcer, ctx.preparation);
    let enregistrements = &preparation.inventaire.enregistrements;
    match (&dest.participation, verifiee) {
        (CibleParticipation::Existante(id), Some(v)) => {
            let Some((p, site)) = &v.participation else {
                return Ok(());
            };
            let un_titre = match super::base_a_lire(g, ctx.simulation)? {
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
    let Some(base) = super::base_a_lire(g, a_blanc)? else {
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
