//! Ce que disent `vigie connexion` (ce qui est enregistré, vérifié auprès de la plateforme) et
//! `vigie deconnexion` (ce qui est effacé), en texte ou en une ligne JSON ; les avertissements
//! d'un jeton donné en argument, ou d'une variable d'environnement qui l'emporte. Les valeurs
//! viennent de `commandes/connexion.rs`.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;

use super::Evenement;
use super::evenement::CompteJson;
use super::format::neutraliser;
use crate::connexion::{AdresseApi, Compte};
use crate::depot::vigiechiro::avant_envoi::RefusMoi;
use crate::depot::vigiechiro::message_jeton_refuse;
use crate::jeton;
use crate::plateforme::conseil::commande;
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// Le jeton refusé à l'adresse `api` avant tout enregistrement : rien n'est écrit (code 2
/// pour un jeton refusé).
pub(crate) fn refuse_avant_d_enregistrer(refus: RefusMoi, api: &str) -> anyhow::Error {
    refus.erreur(
        api,
        ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            "jeton refusé par la plateforme (expiré ou mal copié) : reconnectez-vous sur \
             le site et recopiez le jeton de l'adresse (?token=…)",
        ),
        "rien n'a été enregistré",
    )
}

/// Le jeton enregistré refusé à l'adresse `api` par `vigie connexion` seul (code 3 pour un
/// jeton refusé).
pub(crate) fn refuse_a_la_verification(refus: RefusMoi, api: &str) -> anyhow::Error {
    refus.erreur(
        api,
        ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()),
        "le compte n'a pas pu être vérifié",
    )
}

fn compte_json(c: Option<&Compte>) -> Option<CompteJson<'_>> {
    c.map(|c| CompteJson {
        id: &c.id,
        pseudo: c.pseudo.as_deref(),
    })
}

/// D'où vient le jeton : `variable` (`VIGIE_JETON`) ou `enregistre`.
fn origine_jeton(variable: bool) -> &'static str {
    if variable { "variable" } else { "enregistre" }
}

/// Une connexion enregistrée, son jeton vérifié auprès de la plateforme.
pub(crate) struct Enregistree<'a> {
    pub(crate) adresse: &'a AdresseApi,
    /// L'adresse validée.
    pub(crate) api: &'a str,
    pub(crate) compte: &'a Compte,
    /// Le fichier du jeton, s'il vient d'être enregistré (sinon : le jeton déjà là).
    pub(crate) chemin_jeton: Option<&'a Path>,
    /// Le jeton vient de `VIGIE_JETON`.
    pub(crate) variable_jeton: bool,
    /// L'adresse de l'API est retenue (`--api`).
    pub(crate) api_retenue: bool,
}

/// `vigie connexion --jeton …` ou `--api …` : ce qui est enregistré.
pub(crate) fn enregistree(json: bool, silencieux: bool, e: &Enregistree<'_>) -> Result<()> {
    if json {
        Evenement::Connexion {
            api: e.api,
            origine_api: e.adresse.origine.as_str(),
            compte: compte_json(Some(e.compte)),
            compte_verifie: true,
            jeton: Some(if e.chemin_jeton.is_some() {
                "enregistre"
            } else {
                origine_jeton(e.variable_jeton)
            }),
            enregistre: true,
        }
        .ecrire()?;
        return Ok(());
    }
    if silencieux {
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    let nom = neutraliser(e.compte.nom());
    match e.chemin_jeton {
        Some(chemin) => writeln!(
            s,
            "Connecté en tant que {nom} sur {} ; jeton enregistré dans {} (lisible par vous seul).",
            e.api,
            chemin.display()
        )?,
        None => writeln!(s, "Jeton accepté par {} (compte {nom}).", e.api)?,
    }
    if e.api_retenue {
        writeln!(
            s,
            "Adresse de l'API retenue : les commandes suivantes s'en servent sans --api."
        )?;
    }
    Ok(())
}

/// Une variable d'environnement qui l'emporte sur ce qui vient d'être enregistré : le jeton
/// (`VIGIE_JETON`), l'adresse (`VIGIE_API`).
pub(crate) fn avertir_variables(jeton: bool, api: bool) -> io::Result<()> {
    let mut e = crate::sortie::erreur();
    if jeton {
        writeln!(
            e,
            "attention : VIGIE_JETON est défini et l'emporte sur le jeton enregistré"
        )?;
    }
    if api {
        writeln!(
            e,
            "attention : VIGIE_API est défini et l'emporte sur l'adresse retenue"
        )?;
    }
    Ok(())
}

/// Un jeton donné en argument (`--jeton VALEUR`) se lit dans la liste des processus (`ps`),
/// par tout compte de la machine, tant que la commande tourne, et reste dans l'historique du
/// shell : on le dit, avec le geste qui l'évite (le jeton n'est jamais recopié).
pub(crate) fn avertir_jeton_en_argument() -> io::Result<()> {
    let tiret = commande("connexion").args(["--jeton", "-"]);
    writeln!(
        crate::sortie::erreur(),
        "attention : un jeton donné en argument se lit dans la liste des processus (ps) et \
         reste dans l'historique du shell ; préférez {tiret} (le jeton collé ne s'affiche pas, \
         ou lu d'un tube : echo \"$JETON\" | {tiret})"
    )
}

/// L'invite de `vigie connexion --jeton -` dans un terminal (le jeton collé ne s'affiche pas).
pub(crate) fn inviter_a_coller_le_jeton(terminal: &console::Term) -> io::Result<()> {
    terminal.write_str("Collez le jeton copié sur le site (il ne s'affiche pas), puis Entrée : ")
}

/// D'où vient le jeton que `vigie connexion` seul a trouvé.
enum JetonVu<'a> {
    Aucun,
    Variable,
    Enregistre(&'a Path),
}

/// `vigie connexion` seul : l'adresse et d'où elle vient, le compte (vérifié, ou retenu à la
/// connexion), le jeton (`jeton_lu` : il y en a un ; donné par `VIGIE_JETON` si
/// `variable_jeton`, sinon enregistré, son chemin dit en texte seulement).
pub(crate) fn montree(
    json: bool,
    adresse: &AdresseApi,
    (compte, verifie): (Option<&Compte>, bool),
    (jeton_lu, variable_jeton): (bool, bool),
) -> Result<()> {
    let chemin;
    let jeton = match (jeton_lu, variable_jeton) {
        (false, _) => JetonVu::Aucun,
        (true, true) => JetonVu::Variable,
        (true, false) if json => JetonVu::Enregistre(Path::new("")),
        (true, false) => {
            chemin = jeton::chemin()?;
            JetonVu::Enregistre(&chemin)
        }
    };
    if json {
        Evenement::Connexion {
            api: &adresse.url,
            origine_api: adresse.origine.as_str(),
            compte: compte_json(compte),
            compte_verifie: verifie,
            jeton: match jeton {
                JetonVu::Aucun => None,
                JetonVu::Variable => Some(origine_jeton(true)),
                JetonVu::Enregistre(_) => Some(origine_jeton(false)),
            },
            enregistre: false,
        }
        .ecrire()?;
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    writeln!(
        s,
        "Adresse de l'API : {} ({})",
        neutraliser(&adresse.url),
        adresse.origine.en_clair()
    )?;
    match (compte, verifie) {
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
    match jeton {
        JetonVu::Aucun => writeln!(s, "Jeton : aucun")?,
        JetonVu::Variable => writeln!(s, "Jeton : donné par la variable VIGIE_JETON")?,
        JetonVu::Enregistre(chemin) => writeln!(s, "Jeton : enregistré dans {}", chemin.display())?,
    }
    Ok(())
}

/// `vigie deconnexion` : ce qui a été effacé (le jeton, la connexion retenue).
pub(crate) fn deconnexion(json: bool, silencieux: bool, jeton: bool, retenue: bool) -> Result<()> {
    if json {
        Evenement::Deconnexion {
            jeton_efface: jeton,
            connexion_effacee: retenue,
        }
        .ecrire()?;
    } else if !silencieux {
        let message = match (jeton, retenue) {
            (true, true) => "Jeton et adresse de l'API retenue effacés.",
            (true, false) => "Jeton effacé.",
            (false, true) => "Adresse de l'API retenue effacée (aucun jeton n'était enregistré).",
            (false, false) => "Aucun jeton enregistré.",
        };
        writeln!(crate::sortie::standard(), "{message}")?;
    }
    Ok(())
}
