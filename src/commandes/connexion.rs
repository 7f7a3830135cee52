//! `vigie connexion` et `vigie deconnexion` : le jeton, l'adresse de l'API et le compte que
//! `vigie` retient pour parler à la plateforme Vigie-Chiro.
//!
//! - `vigie connexion --jeton J [--api URL]` vérifie le jeton à l'adresse (`GET /moi`), puis
//!   enregistre le jeton, l'adresse si elle est donnée, et le compte reconnu ;
//! - `vigie connexion --api URL` vérifie le jeton déjà enregistré à cette adresse, puis la
//!   retient ;
//! - `vigie connexion` seul dit ce qui est enregistré (adresse, compte, jeton), et vérifie le
//!   jeton auprès de la plateforme sans rien écrire.

use std::path::Path;

use anyhow::Result;

use super::vigiechiro::mener_ponctuel;
use crate::cli::{ArgsConnexion, OptionsGlobales};
use crate::connexion::{self, AdresseApi, Compte, ConnexionRetenue, OrigineApi};
use crate::depot::vigiechiro::avant_envoi::{RefusMoi, reconnaitre_plateforme};
use crate::depot::vigiechiro::message_jeton_refuse;
use crate::destination::valider_endpoint;
use crate::jeton::{self, ErreurJeton};
use crate::sortie::{CodeSortie, ErreurAvecCode};
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
    let adresse = match &args.api {
        Some(url) => AdresseApi {
            url: url.clone(),
            origine: OrigineApi::Option,
        },
        None => connexion::adresse_api(None)?,
    };
    let api = valider_endpoint(&adresse.url, false)?;
    let jeton_donne = jeton_donne(args)?;
    // L'adresse entière du site, collée par mégarde : le jeton en est extrait.
    let jeton = match &jeton_donne {
        Some(j) => jeton::depuis_saisie(j)?,
        None => jeton::lire()?,
    };
    let utilisateur = verifier_avant_d_enregistrer(&api, &jeton)?;
    let chemin_jeton = match &jeton_donne {
        Some(_) => Some(jeton::ecrire(&jeton)?),
        None => None,
    };
    if args.api.is_some() {
        retenue.api = Some(api.clone());
    }
    // Le compte retenu est celui du jeton enregistré : pas celui de VIGIE_JETON, qui ne l'est
    // pas.
    let variable_jeton = variable_definie("VIGIE_JETON");
    if jeton_donne.is_some() || !variable_jeton {
        retenue.compte = Some(compte(&utilisateur));
    }
    connexion::ecrire(&retenue)?;
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

/// Le jeton vérifié à l'adresse avant tout enregistrement : refusé, rien n'est écrit (code 2).
fn verifier_avant_d_enregistrer(api: &str, jeton: &str) -> Result<Utilisateur> {
    verifier(api, jeton)?.map_err(|r| {
        r.erreur(
            api,
            ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                "jeton refusé par la plateforme (expiré ou mal copié) : reconnectez-vous sur \
                 le site et recopiez le jeton de l'adresse (?token=…)",
            ),
            "rien n'a été enregistré",
        )
    })
}

/// Une variable d'environnement définie et non vide.
fn variable_definie(nom: &str) -> bool {
    std::env::var_os(nom).is_some_and(|v| !v.is_empty())
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
        Ok(j) => match valider_endpoint(&adresse.url, false) {
            Ok(api) => Some(verifier(&api, &j)?.map_err(|r| (r, api))),
            Err(e) => return Err(e.into()),
        },
        Err(ErreurJeton::Absent) => None,
        Err(e) => return Err(e.into()),
    };
    let (compte_vu, verifie) = match &verification {
        Some(Ok(u)) => (Some(compte(u)), true),
        _ => (retenue.compte.clone(), false),
    };
    let chemin;
    let jeton_vu = match (&verification, variable_jeton) {
        (None, _) => dire::JetonVu::Aucun,
        (Some(_), true) => dire::JetonVu::Variable,
        // Le chemin du jeton n'est dit qu'en texte.
        (Some(_), false) if g.json => dire::JetonVu::Enregistre(Path::new("")),
        (Some(_), false) => {
            chemin = jeton::chemin()?;
            dire::JetonVu::Enregistre(&chemin)
        }
    };
    dire::montree(g.json, &adresse, compte_vu.as_ref(), verifie, &jeton_vu)?;
    match verification {
        None => Err(ErreurJeton::Absent.into()),
        Some(Ok(_)) => Ok(CodeSortie::Succes),
        Some(Err((refus, api))) => Err(refus.erreur(
            &api,
            ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()),
            "le compte n'a pas pu être vérifié",
        )),
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
