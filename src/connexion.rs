//! Ce que `vigie connexion` retient à côté du jeton : l'adresse de l'API, si elle a été donnée
//! par `--api`, et le compte que la plateforme a reconnu.
//!
//! Pourquoi : l'adresse de l'API n'est pas sûre (le serveur place ses routes sous un préfixe
//! choisi au déploiement, voir docs/guide.md). Celui qui l'a trouvée une fois ne doit pas la répéter
//! à chaque commande, ni voir `vigie traiter` viser une autre adresse que son dépôt. Elle vit
//! dans `connexion.json`, dans le même répertoire et avec les mêmes droits que le jeton (0600),
//! écrite de la même façon (à côté, puis renommée). `--api` et `VIGIE_API` l'emportent sur elle,
//! elle l'emporte sur l'adresse par défaut ; `vigie deconnexion` l'efface avec le jeton.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::destination::API_VIGIECHIRO;
use crate::jeton::{self, ErreurJeton};
use crate::plateforme::conseil::commande;

/// Le fichier, à côté du jeton.
const NOM_FICHIER: &str = "connexion.json";

/// Ce que `vigie connexion` a retenu.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConnexionRetenue {
    /// L'adresse de l'API donnée à `vigie connexion --api`, normalisée.
    #[serde(default)]
    pub(crate) api: Option<String>,
    /// Le compte reconnu par la plateforme (`GET /moi`) à la dernière connexion.
    #[serde(default)]
    pub(crate) compte: Option<Compte>,
}

impl ConnexionRetenue {
    /// Retient, une fois le jeton vérifié, l'adresse `api` donnée à `vigie connexion --api`
    /// et le `compte` reconnu : celui du jeton enregistré (un jeton vient d'être donné, ou
    /// `VIGIE_JETON` n'est pas définie), pas celui de `VIGIE_JETON`, qui ne l'est pas.
    pub(crate) fn retenir(&mut self, api: Option<&str>, compte: Compte, jeton_donne: bool) {
        if let Some(api) = api {
            self.api = Some(api.to_owned());
        }
        if jeton_donne || !variable_definie("VIGIE_JETON") {
            self.compte = Some(compte);
        }
    }
}

/// Une variable d'environnement définie et non vide.
pub(crate) fn variable_definie(nom: &str) -> bool {
    std::env::var_os(nom).is_some_and(|v| !v.is_empty())
}

/// Un compte de la plateforme, tel que `GET /moi` le décrit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Compte {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) pseudo: Option<String>,
}

impl Compte {
    /// Le pseudo, ou à défaut l'identifiant.
    pub(crate) fn nom(&self) -> &str {
        self.pseudo.as_deref().unwrap_or(&self.id)
    }
}

/// D'où vient l'adresse de l'API d'une commande.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrigineApi {
    /// `--api URL`.
    Option,
    /// La variable `VIGIE_API`.
    Variable,
    /// Retenue par `vigie connexion --api`.
    Retenue,
    /// L'adresse par défaut de `vigie`.
    ParDefaut,
}

impl OrigineApi {
    /// Nom stable (sortie JSON).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OrigineApi::Option => "option",
            OrigineApi::Variable => "variable",
            OrigineApi::Retenue => "retenue",
            OrigineApi::ParDefaut => "defaut",
        }
    }

    /// Dit à l'utilisateur d'où vient l'adresse.
    pub(crate) fn en_clair(self) -> String {
        match self {
            OrigineApi::Option => "donnée par --api".to_owned(),
            OrigineApi::Variable => "donnée par la variable VIGIE_API".to_owned(),
            OrigineApi::Retenue => format!("retenue par {}", commande("connexion").arg("--api")),
            OrigineApi::ParDefaut => "adresse par défaut".to_owned(),
        }
    }
}

/// L'adresse de l'API d'une commande, et d'où elle vient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AdresseApi {
    pub(crate) url: String,
    pub(crate) origine: OrigineApi,
}

/// `connexion.json`, à côté du jeton.
pub(crate) fn chemin() -> Result<PathBuf, ErreurJeton> {
    let jeton = jeton::chemin()?;
    Ok(jeton.with_file_name(NOM_FICHIER))
}

/// Ce qui est retenu ; rien (et pas d'erreur) si `vigie connexion` n'a rien retenu.
pub(crate) fn lire() -> Result<ConnexionRetenue, ErreurJeton> {
    let chemin = chemin()?;
    match std::fs::read(&chemin) {
        Ok(octets) => {
            serde_json::from_slice(&octets).map_err(|_| ErreurJeton::ConnexionIllisible { chemin })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConnexionRetenue::default()),
        Err(cause) => Err(ErreurJeton::Fichier { chemin, cause }),
    }
}

/// Retient `connexion` (fichier 0600, à côté du jeton), en remplaçant ce qui l'était.
pub(crate) fn ecrire(connexion: &ConnexionRetenue) -> Result<PathBuf, ErreurJeton> {
    let chemin = chemin()?;
    let texte = serde_json::to_vec_pretty(connexion).unwrap_or_default();
    jeton::ecrire_prive(&chemin, &texte)?;
    Ok(chemin)
}

/// Oublie ce qui est retenu ; rend vrai s'il y avait quelque chose.
pub(crate) fn effacer() -> Result<bool, ErreurJeton> {
    jeton::effacer_fichier(chemin()?)
}

/// L'adresse que `vigie connexion` vérifie : celle donnée à `--api` (l'option, jamais
/// `VIGIE_API`), sinon celle des commandes ([`adresse_api`]).
pub(crate) fn adresse_de_la_connexion(api: Option<&str>) -> Result<AdresseApi, ErreurJeton> {
    match api {
        Some(url) => Ok(AdresseApi {
            url: url.to_owned(),
            origine: OrigineApi::Option,
        }),
        None => adresse_api(None),
    }
}

/// L'adresse de l'API d'une commande : `demandee` (`--api`, ou `VIGIE_API` que clap y a déjà
/// mise), sinon celle que `vigie connexion --api` a retenue, sinon l'adresse par défaut.
pub(crate) fn adresse_api(demandee: Option<&str>) -> Result<AdresseApi, ErreurJeton> {
    let variable = std::env::var("VIGIE_API").ok().filter(|v| !v.is_empty());
    if let Some(url) = demandee {
        // clap met `VIGIE_API` dans l'option quand elle n'est pas donnée : on le dit tel quel.
        let origine = if variable.as_deref() == Some(url) {
            OrigineApi::Variable
        } else {
            OrigineApi::Option
        };
        return Ok(AdresseApi {
            url: url.to_owned(),
            origine,
        });
    }
    if let Some(url) = variable {
        return Ok(AdresseApi {
            url,
            origine: OrigineApi::Variable,
        });
    }
    Ok(match lire()?.api {
        Some(url) => AdresseApi {
            url,
            origine: OrigineApi::Retenue,
        },
        None => AdresseApi {
            url: API_VIGIECHIRO.to_owned(),
            origine: OrigineApi::ParDefaut,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l_ancien_fichier_et_les_champs_ajoutes_se_relisent() {
        let vide: ConnexionRetenue = serde_json::from_str("{}").unwrap();
        assert_eq!(vide, ConnexionRetenue::default());
        let plus: ConnexionRetenue = serde_json::from_str(
            r#"{"api":"https://a/api","compte":{"id":"x","pseudo":null},"autre":1}"#,
        )
        .unwrap();
        assert_eq!(plus.api.as_deref(), Some("https://a/api"));
        assert_eq!(plus.compte.as_ref().map(Compte::nom), Some("x"));
    }

    /// Un jeton qui vient d'être donné est enregistré : son compte est retenu, quelle que
    /// soit `VIGIE_JETON` ; l'adresse ne change que donnée.
    #[test]
    fn retenir_apres_verification() {
        let compte = |id: &str| Compte {
            id: id.to_owned(),
            pseudo: None,
        };
        let mut r = ConnexionRetenue::default();
        r.retenir(Some("https://api.exemple"), compte("a"), true);
        assert_eq!(r.api.as_deref(), Some("https://api.exemple"));
        assert_eq!(r.compte, Some(compte("a")));
        r.retenir(None, compte("b"), true);
        assert_eq!(r.api.as_deref(), Some("https://api.exemple"));
        assert_eq!(r.compte, Some(compte("b")));
    }
}
