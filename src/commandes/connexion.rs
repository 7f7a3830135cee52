//! `vigie connexion` et `vigie deconnexion` : le jeton, l'adresse de l'API et le compte que
//! `vigie` retient pour parler à la plateforme Vigie-Chiro.
//!
//! - `vigie connexion --jeton J [--api URL]` vérifie le jeton à l'adresse (`GET /moi`), puis
//!   enregistre le jeton, l'adresse si elle est donnée, et le compte reconnu ;
//! - `vigie connexion --api URL` vérifie le jeton déjà enregistré à cette adresse, puis la
//!   retient ;
//! - `vigie connexion` seul dit ce qui est enregistré (adresse, compte, jeton), et vérifie le
//!   jeton auprès de la plateforme sans rien écrire.

use anyhow::Result;

use super::vigiechiro::mener_ponctuel;
use crate::cli::{ArgsConnexion, OptionsGlobales};
use crate::connexion::{self, Compte, ConnexionRetenue, variable_definie};
use crate::depot::vigiechiro::avant_envoi::{RefusMoi, reconnaitre_plateforme};
use crate::destination::valider_endpoint;
use crate::jeton::{self, ErreurJeton};
use crate::sortie::CodeSortie;
use crate::suivi::connexion as dire;
use crate::transport::vigiechiro::{ClientVigieChiro, Utilisateur};

pub(super) fn connexion(g: &OptionsGlobales, args: ArgsConnexion) -> Result<CodeSortie> {
    let retenue = connexion::lire()?;
    if args.jeton.is_none() && args.api.is_none() {
        return montrer(g, &retenue);
    }
    enregistrer(g, &args, retenue)
}

/// Vérifie le jeton (donné, ou déjà enregistré) à l'adresse (donnée, ou celle des commandes),
/// puis enregistre le jeton donné, l'adresse donnée et le compte reconnu.
fn enregistrer(
    g: &OptionsGlobales,
    args: &ArgsConnexion,
    mut retenue: ConnexionRetenue,
) -> Result<CodeSortie> {
    let adresse = connexion::adresse_de_la_connexion(args.api.as_deref())?;
    let api = valider_endpoint(&adresse.url, false)?;
    let jeton_donne = jeton_donne(args)?;
    // L'adresse entière du site, collée par mégarde : le jeton en est extrait.
    let jeton = match &jeton_donne {
        Some(j) => jeton::depuis_saisie(j)?,
        None => jeton::lire()?,
    };
    let utilisateur =
        verifier(&api, &jeton)?.map_err(|r| dire::refuse_avant_d_enregistrer(r, &api))?;
    let chemin_jeton = match &jeton_donne {
        Some(_) => Some(jeton::ecrire(&jeton)?),
        None => None,
    };
    let api_retenue = args.api.is_some().then_some(api.as_str());
    retenue.retenir(api_retenue, compte(&utilisateur), jeton_donne.is_some());
    connexion::ecrire(&retenue)?;
    let variable_jeton = variable_definie("VIGIE_JETON");
    dire::enregistree(
        g.json,
        g.quiet,
        &dire::Enregistree {
            adresse: &adresse,
            api: &api,
            compte: &compte(&utilisateur),
            chemin_jeton: chemin_jeton.as_deref(),
            variable_jeton,
            api_retenue: args.api.is_some(),
        },
    )?;
    dire::avertir_variables(
        variable_jeton && jeton_donne.is_some(),
        args.api.is_some() && variable_definie("VIGIE_API"),
    )?;
    Ok(CodeSortie::Succes)
}

/// Le jeton donné : collé (`--jeton -`), ou en argument (dit : il se lit dans `ps`).
fn jeton_donne(args: &ArgsConnexion) -> Result<Option<String>> {
    Ok(match args.jeton.as_deref() {
        Some("-") => Some(jeton::lire_colle(dire::inviter_a_coller_le_jeton)?),
        Some(j) => {
            dire::avertir_jeton_en_argument()?;
            Some(j.to_owned())
        }
        None => None,
    })
}

/// `vigie connexion` seul : l'adresse des commandes et d'où elle vient, le compte (vérifié par
/// `GET /moi`, ou à défaut celui retenu à la connexion) et le jeton. Rien n'est écrit. Code 0
/// si le jeton est accepté ; sinon l'erreur dit pourquoi (sans jeton : 2 ; jeton refusé : 3 ;
/// plateforme injoignable : 1).
fn montrer(g: &OptionsGlobales, retenue: &ConnexionRetenue) -> Result<CodeSortie> {
    let adresse = connexion::adresse_api(None)?;
    let variable_jeton = variable_definie("VIGIE_JETON");
    let verification = match jeton::lire() {
        Ok(j) => {
            let api = valider_endpoint(&adresse.url, false)?;
            Some(verifier(&api, &j)?.map_err(|r| (r, api)))
        }
        Err(ErreurJeton::Absent) => None,
        Err(e) => return Err(e.into()),
    };
    let (compte_vu, verifie) = match &verification {
        Some(Ok(u)) => (Some(compte(u)), true),
        _ => (retenue.compte.clone(), false),
    };
    let jeton = (verification.is_some(), variable_jeton);
    dire::montree(g.json, &adresse, (compte_vu.as_ref(), verifie), jeton)?;
    match verification {
        None => Err(ErreurJeton::Absent.into()),
        Some(Ok(_)) => Ok(CodeSortie::Succes),
        Some(Err((refus, api))) => Err(dire::refuse_a_la_verification(refus, &api)),
    }
}

/// `GET /moi` avec ce jeton à cette adresse, sous Ctrl-C : une vérification interrompue est
/// l'erreur de l'interruption (code 130), pas un refus.
fn verifier(api: &str, jeton: &str) -> Result<Result<Utilisateur, RefusMoi>> {
    let client = ClientVigieChiro::nouveau(api, jeton).map_err(anyhow::Error::msg)?;
    mener_ponctuel(async |emetteur| {
        let reconnue = reconnaitre_plateforme(&client, emetteur).await;
        if reconnue.is_err() && emetteur.annulation().est_annulee() {
            anyhow::bail!("vérification du jeton interrompue");
        }
        Ok(reconnue)
    })
}

fn compte(u: &Utilisateur) -> Compte {
    Compte {
        id: u.id.to_string(),
        pseudo: u.pseudo.clone(),
    }
}

/// `vigie deconnexion` : efface le jeton, et ce que `vigie connexion` a retenu à côté de lui
/// (adresse de l'API, compte).
pub(super) fn deconnexion(g: &OptionsGlobales) -> Result<CodeSortie> {
    let jeton = jeton::effacer()?;
    let retenue = connexion::effacer()?;
    dire::deconnexion(g.json, g.quiet, jeton, retenue)?;
    Ok(CodeSortie::Succes)
}
