//! `vigie connexion` et `vigie deconnexion` : le jeton, l'adresse de l'API et le compte que
//! `vigie` retient pour parler à la plateforme Vigie-Chiro.
//!
//! - `vigie connexion --jeton J [--api URL]` vérifie le jeton à l'adresse (`GET /moi`), puis
//!   enregistre le jeton, l'adresse si elle est donnée, et le compte reconnu ;
//! - `vigie connexion --api URL` vérifie le jeton déjà enregistré à cette adresse, puis la
//!   retient ;
//! - `vigie connexion` seul dit ce qui est enregistré (adresse, compte, jeton), et vérifie le
//!   jeton auprès de la plateforme sans rien écrire.

use std::io::{self, BufRead, Write};

use anyhow::{Context, Result};

use super::vigiechiro::{RefusMoi, mener_ponctuel, reconnaitre_plateforme};
use crate::cli::{ArgsConnexion, OptionsGlobales};
use crate::connexion::{self, AdresseApi, Compte, ConnexionRetenue, OrigineApi};
use crate::depot::vigiechiro::message_jeton_refuse;
use crate::destination::valider_endpoint;
use crate::jeton::{self, ErreurJeton};
use crate::plateforme::conseil::commande;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::Evenement;
use crate::suivi::evenement::CompteJson;
use crate::suivi::format::neutraliser;
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
    let jeton_donne = match args.jeton.as_deref() {
        Some("-") => Some(lire_jeton_colle()?),
        Some(j) => {
            avertir_jeton_en_argument()?;
            Some(j.to_owned())
        }
        None => None,
    };
    // L'adresse entière du site, collée par mégarde : le jeton en est extrait.
    let jeton = match &jeton_donne {
        Some(j) => jeton::depuis_saisie(j)?,
        None => jeton::lire()?,
    };
    let utilisateur = verifier(&api, &jeton)?.map_err(|r| {
        r.erreur(
            &api,
            ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                "jeton refusé par la plateforme (expiré ou mal copié) : reconnectez-vous sur \
                 le site et recopiez le jeton de l'adresse (?token=…)",
            ),
            "rien n'a été enregistré",
        )
    })?;
    let chemin_jeton = match &jeton_donne {
        Some(_) => Some(jeton::ecrire(&jeton)?),
        None => None,
    };
    if args.api.is_some() {
        retenue.api = Some(api.clone());
    }
    // Le compte retenu est celui du jeton enregistré : pas celui de VIGIE_JETON, qui ne l'est
    // pas.
    let variable_jeton = std::env::var_os("VIGIE_JETON").is_some_and(|v| !v.is_empty());
    if jeton_donne.is_some() || !variable_jeton {
        retenue.compte = Some(compte(&utilisateur));
    }
    connexion::ecrire(&retenue)?;
    if g.json {
        Evenement::Connexion {
            api: &api,
            origine_api: adresse.origine.as_str(),
            compte: compte_json(Some(&compte(&utilisateur))),
            compte_verifie: true,
            jeton: Some(if jeton_donne.is_some() {
                "enregistre"
            } else {
                origine_jeton(variable_jeton)
            }),
            enregistre: true,
        }
        .ecrire()?;
    } else if !g.quiet {
        let mut s = crate::sortie::standard();
        let nom = compte(&utilisateur);
        match chemin_jeton {
            Some(chemin) => writeln!(
                s,
                "Connecté en tant que {} sur {api} ; jeton enregistré dans {} (lisible par vous seul).",
                neutraliser(nom.nom()),
                chemin.display()
            )?,
            None => writeln!(
                s,
                "Jeton accepté par {api} (compte {}).",
                neutraliser(nom.nom())
            )?,
        }
        if args.api.is_some() {
            writeln!(
                s,
                "Adresse de l'API retenue : les commandes suivantes s'en servent sans --api."
            )?;
        }
    }
    let mut e = crate::sortie::erreur();
    if variable_jeton && jeton_donne.is_some() {
        writeln!(
            e,
            "attention : VIGIE_JETON est défini et l'emporte sur le jeton enregistré"
        )?;
    }
    if args.api.is_some() && std::env::var_os("VIGIE_API").is_some_and(|v| !v.is_empty()) {
        writeln!(
            e,
            "attention : VIGIE_API est défini et l'emporte sur l'adresse retenue"
        )?;
    }
    Ok(CodeSortie::Succes)
}

/// Un jeton donné en argument (`--jeton VALEUR`) se lit dans la liste des processus (`ps`),
/// par tout compte de la machine, tant que la commande tourne, et reste dans l'historique du
/// shell : on le dit, avec le geste qui l'évite (le jeton n'est jamais recopié).
fn avertir_jeton_en_argument() -> io::Result<()> {
    let tiret = commande("connexion").args(["--jeton", "-"]);
    writeln!(
        crate::sortie::erreur(),
        "attention : un jeton donné en argument se lit dans la liste des processus (ps) et \
         reste dans l'historique du shell ; préférez {tiret} (le jeton collé ne s'affiche pas, \
         ou lu d'un tube : echo \"$JETON\" | {tiret})"
    )
}

/// `vigie connexion` seul : l'adresse des commandes et d'où elle vient, le compte (vérifié par
/// `GET /moi`, ou à défaut celui retenu à la connexion) et le jeton. Rien n'est écrit. Code 0
/// si le jeton est accepté ; sinon l'erreur dit pourquoi (sans jeton : 2 ; jeton refusé : 3 ;
/// plateforme injoignable : 1).
fn montrer(g: &OptionsGlobales, retenue: &ConnexionRetenue) -> Result<CodeSortie> {
    let adresse = connexion::adresse_api(None)?;
    let variable_jeton = std::env::var_os("VIGIE_JETON").is_some_and(|v| !v.is_empty());
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
    if g.json {
        Evenement::Connexion {
            api: &adresse.url,
            origine_api: adresse.origine.as_str(),
            compte: compte_json(compte_vu.as_ref()),
            compte_verifie: verifie,
            jeton: verification.as_ref().map(|_| origine_jeton(variable_jeton)),
            enregistre: false,
        }
        .ecrire()?;
    } else {
        let mut s = crate::sortie::standard();
        writeln!(
            s,
            "Adresse de l'API : {} ({})",
            neutraliser(&adresse.url),
            adresse.origine.en_clair()
        )?;
        match (&compte_vu, verifie) {
            (Some(c), true) => writeln!(
                s,
                "Compte : {} (identifiant {}), jeton accepté par la plateforme",
                neutraliser(c.nom()),
                neutraliser(&c.id)
            )?,
            (Some(c), false) => writeln!(
                s,
                "Compte : {} (identifiant {}), retenu à la connexion",
                neutraliser(c.nom()),
                neutraliser(&c.id)
            )?,
            (None, _) => writeln!(s, "Compte : aucun")?,
        }
        match (&verification, variable_jeton) {
            (None, _) => writeln!(s, "Jeton : aucun")?,
            (Some(_), true) => writeln!(s, "Jeton : donné par la variable VIGIE_JETON")?,
            (Some(_), false) => {
                writeln!(s, "Jeton : enregistré dans {}", jeton::chemin()?.display())?
            }
        }
    }
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

fn compte_json(c: Option<&Compte>) -> Option<CompteJson<'_>> {
    c.map(|c| CompteJson {
        id: &c.id,
        pseudo: c.pseudo.as_deref(),
    })
}

fn origine_jeton(variable: bool) -> &'static str {
    if variable { "variable" } else { "enregistre" }
}

/// Le jeton de `--jeton -` : dans un terminal, à une invite et sans écho (il ne reste ni à
/// l'écran ni dans le défilement) ; sinon lu tel quel sur l'entrée standard
/// (`echo "$JETON" | vigie connexion --jeton -`).
fn lire_jeton_colle() -> Result<String> {
    use std::io::IsTerminal;
    if io::stdin().is_terminal() {
        // L'invite va où l'utilisateur regarde : la sortie d'erreur, ou à défaut la sortie
        // standard, pourvu que ce soit un terminal.
        let terminal = [console::Term::stderr(), console::Term::stdout()]
            .into_iter()
            .find(console::Term::is_term);
        if let Some(t) = terminal {
            t.write_str("Collez le jeton copié sur le site (il ne s'affiche pas), puis Entrée : ")
                .context("invite du jeton")?;
            return t.read_secure_line().context("lecture du jeton");
        }
    }
    // Une ligne, bornée : un tube sans fin de ligne (`yes | …`) ne remplit pas la mémoire.
    let mut ligne = String::new();
    io::Read::take(io::stdin().lock(), SAISIE_DU_JETON_MAX)
        .read_line(&mut ligne)
        .context("lecture du jeton")?;
    Ok(ligne)
}

/// Ce qui est lu au plus d'un jeton donné par un tube : l'adresse entière du site, collée à sa
/// place, tient en quelques centaines d'octets.
const SAISIE_DU_JETON_MAX: u64 = 64 * 1024;

/// `vigie deconnexion` : efface le jeton, et ce que `vigie connexion` a retenu à côté de lui
/// (adresse de l'API, compte).
pub(super) fn deconnexion(g: &OptionsGlobales) -> Result<CodeSortie> {
    let jeton = jeton::effacer()?;
    let retenue = connexion::effacer()?;
    if g.json {
        Evenement::Deconnexion {
            jeton_efface: jeton,
            connexion_effacee: retenue,
        }
        .ecrire()?;
    } else if !g.quiet {
        let message = match (jeton, retenue) {
            (true, true) => "Jeton et adresse de l'API retenue effacés.",
            (true, false) => "Jeton effacé.",
            (false, true) => "Adresse de l'API retenue effacée (aucun jeton n'était enregistré).",
            (false, false) => "Aucun jeton enregistré.",
        };
        writeln!(crate::sortie::standard(), "{message}")?;
    }
    Ok(CodeSortie::Succes)
}
