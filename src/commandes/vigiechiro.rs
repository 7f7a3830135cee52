//! Parler à la plateforme depuis une commande : le client du jeton, les émissions d'une
//! commande ponctuelle sur leur runtime, et les vérifications d'avant tout envoi
//! (`depot/vigiechiro/avant_envoi.rs`) menées sous la veille du réseau et Ctrl-C.

use std::sync::Arc;

use anyhow::Result;

use crate::cli::OptionsGlobales;
use crate::depot::AnnoncesSuivi;
use crate::depot::passage::Envoi;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::depot::vigiechiro::avant_envoi::{self, PlateformeVerifiee};
use crate::destination::IdObjet;
use crate::plan::{Base, DepotPlan};
use crate::reessai::{Annulation, Profil, Reglages};
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
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    match resultat {
        // Le réseau abandonné annule aussi : c'est alors un échec, pas une interruption.
        Err(_) if annulation.est_annulee() && !emetteur.reseau().est_abandonne() => {
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
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    match issue {
        Err(_) if arret.est_annulee() && !emetteur.reseau().est_abandonne() => {
            Err(super::interrompu())
        }
        r => r,
    }
}
