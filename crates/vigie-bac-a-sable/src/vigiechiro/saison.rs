//! Ce qu'une saison lit de la plateforme locale : les sites de l'utilisateur et ses
//! participations, comme les sert le serveur, et de quoi poser dans un essai des sites et des
//! participations « créées sur le site web ».
//!
//! Pourquoi : `vigie` rapproche le numéro de site des noms (`Car640380`) du titre des sites de
//! l'utilisateur, et retrouve la participation existante de chaque nuit. Ces routes doivent
//! répondre ici comme le vrai serveur, avec plusieurs sites et plusieurs observateurs :
//!
//! - `GET /moi/sites` (`resources/sites.py` `list_user_sites` → `_sites_generic_list`) :
//!   `get_url_params` lit `q` (texte), `protocole`, `observateur`, `grille_stoc` (ObjectId),
//!   `max_results`, `page` (entiers) — une valeur mal écrite : `422 {param: "bad value, should
//!   be <class '…'>"}`, les autres paramètres sont ignorés ; `observateur` est **écrasé** par
//!   l'utilisateur de la requête (`params['observateur'] = g.request_user['_id']`) ; puis
//!   `Paginator(args=params)` (`xin/snippets.py` : 422 `page params must be > 0`, `max_results
//!   params must be < 100`) ; `sites.find(lookup, sort=[('titre', 1)])` : **trié par titre**
//!   (ordre des octets, comme MongoDB sans collation) ; chaque site **développé**
//!   (`xin/resource.py` `Resource.find` → `xin/schema.py` `Unserializer`) : `protocole` (avec
//!   son `type_site`), `observateur` (sans ses champs cachés), `grille_stoc` (`numero`,
//!   `centre`) ; `_meta.total` compte tout ce qui correspond ;
//! - `q` cherche dans les titres (`$text`, index texte sur `sites.titre` : `bin/init_db.py`
//!   `ensure_indexes`) : un site correspond si l'un des mots de son titre est l'un des mots
//!   demandés (sans égard à la casse). Écart voulu : ni racinisation, ni mots vides, ni
//!   accents confondus, ni négation (`-mot`), que MongoDB applique ;
//! - `GET /moi/participations` (`resources/participations.py` `list_user_participations`) :
//!   `Paginator()`, les participations de l'utilisateur **sans ordre garanti** (le bac à sable
//!   rend la plus récente d'abord, comme `list_site_participations`), projection **sans**
//!   `observateur`, `protocole`, `messages`, `logs`, `bilan`, et `site` **développé** en
//!   document brut (son titre ; ses propres relations en identifiants : une relation
//!   développée ne l'est pas à son tour) ; `q` fait un `$text` sur `participations`, qui n'a
//!   pas d'index texte : MongoDB refuse, 500.

use std::collections::HashSet;

use hyper::StatusCode;
use serde_json::{Map, Value, json};

use super::lecture::parametres;
use super::{
    Grille, Meta, ParticipationPlateforme, ReponseApi, RequeteApi, Site, Utilisateur, Vigiechiro,
    object_id, pagination, protocole, tranche,
};

/// La classe Python dont `get_url_params` cite le nom dans son refus.
const CLASSE_INT: &str = "<class 'int'>";
const CLASSE_OBJECT_ID: &str = "<class 'bson.objectid.ObjectId'>";

/// Les mots d'un texte pour la recherche `$text` (voir l'en-tête).
fn mots(texte: &str) -> HashSet<String> {
    texte
        .split(|c: char| !c.is_alphanumeric())
        .filter(|m| !m.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Ce que `_sites_generic_list` retient de la requête, une fois `get_url_params` passé.
#[derive(Debug, Default)]
struct FiltreSites {
    q: Option<String>,
    protocole: Option<String>,
    grille: Option<String>,
}

/// `get_url_params` sur la spécification de `_sites_generic_list` : toutes les erreurs d'un
/// coup, un message par paramètre.
fn filtre_sites(params: &[(String, String)]) -> Result<FiltreSites, ReponseApi> {
    let mut erreurs = Map::new();
    let mut filtre = FiltreSites::default();
    for (k, v) in params {
        let mauvais = |classe: &str| json!(format!("bad value, should be {classe}"));
        match k.as_str() {
            "q" => filtre.q = Some(v.clone()),
            "protocole" | "grille_stoc" => match object_id(v.trim()) {
                Some(id) if k == "protocole" => filtre.protocole = Some(id),
                Some(id) => filtre.grille = Some(id),
                None => {
                    erreurs.insert(k.clone(), mauvais(CLASSE_OBJECT_ID));
                }
            },
            // `int()` de Python tolère les espaces autour.
            "max_results" | "page" if v.trim().parse::<i64>().is_err() => {
                erreurs.insert(k.clone(), mauvais(CLASSE_INT));
            }
            // `observateur` est écrasé par la route ; le reste est ignoré.
            _ => {}
        }
    }
    if erreurs.is_empty() {
        Ok(filtre)
    } else {
        Err(ReponseApi::erreur(
            StatusCode::UNPROCESSABLE_ENTITY,
            Value::Object(erreurs),
        ))
    }
}

/// Les paramètres de pagination, réécrits pour [`pagination`] (`max_results` et `page`
/// seulement, valeurs sans espaces).
fn chaine_de_pagination(params: &[(String, String)]) -> String {
    params
        .iter()
        .filter(|(k, _)| k == "max_results" || k == "page")
        .map(|(k, v)| format!("{k}={}", v.trim()))
        .collect::<Vec<_>>()
        .join("&")
}

/// La page `page` de `max` éléments de `retenus` (`Paginator.make_response`,
/// `xin/snippets.py` : `_meta.total` compte tout, sans limite). Les autres listes du bac à sable
/// pourront s'y ranger.
fn reponse_paginee<T>(
    retenus: Vec<T>,
    (page, max): (i64, i64),
    document: impl Fn(T) -> Value,
) -> ReponseApi {
    let total = retenus.len();
    let (debut, nombre) = tranche(page, max);
    let items: Vec<Value> = retenus
        .into_iter()
        .skip(debut)
        .take(nombre)
        .map(document)
        .collect();
    ReponseApi::ok(json!({
        "_items": items,
        "_meta": { "max_results": max, "total": total, "page": page },
    }))
}

impl Vigiechiro {
    /// `resources/sites.py` `list_user_sites` (voir l'en-tête du module).
    pub(super) fn mes_sites(
        &self,
        utilisateur: &Utilisateur,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let params = parametres(requete);
        let filtre = filtre_sites(&params)?;
        let (page, max) = pagination(Some(&chaine_de_pagination(&params)))?;
        let demandes = filtre.q.as_deref().map(mots);
        let etat = self.etat();
        let mut retenus: Vec<&Site> = etat
            .sites
            .iter()
            .filter(|s| s.observateur == utilisateur.id)
            .filter(|s| filtre.protocole.as_deref().is_none_or(|p| s.protocole == p))
            .filter(|s| {
                filtre
                    .grille
                    .as_deref()
                    .is_none_or(|g| s.grille.as_ref().is_some_and(|x| x.id == g))
            })
            .filter(|s| {
                demandes
                    .as_ref()
                    .is_none_or(|d| !mots(&s.titre).is_disjoint(d))
            })
            .collect();
        retenus.sort_by(|a, b| a.titre.as_bytes().cmp(b.titre.as_bytes()));
        Ok(reponse_paginee(retenus, (page, max), Site::json_developpe))
    }

    /// `resources/participations.py` `list_user_participations` (voir l'en-tête du module).
    pub(super) fn mes_participations(
        &self,
        utilisateur: &Utilisateur,
        requete: &RequeteApi<'_>,
    ) -> Result<ReponseApi, ReponseApi> {
        let (page, max) = pagination(requete.parametres)?;
        if parametres(requete).iter().any(|(k, _)| k == "q") {
            return Err(ReponseApi::exception("text index required for $text query"));
        }
        let etat = self.etat();
        let retenues: Vec<&ParticipationPlateforme> = etat
            .participations
            .iter()
            .filter(|p| p.observateur == utilisateur.id)
            .rev()
            .collect();
        Ok(reponse_paginee(retenues, (page, max), |p| {
            let mut o = p.json_developpe(&etat.sites);
            if let Some(o) = o.as_object_mut() {
                for champ in ["observateur", "protocole", "messages", "logs", "bilan"] {
                    o.remove(champ);
                }
            }
            o
        }))
    }

    // ------------------------------------------------------------------ état posé par un test

    /// Ajoute un site, comme `create_site` l'aurait créé (`resources/sites.py`), et rend son
    /// identifiant. `type_site` : `POINT_FIXE`, `ROUTIER` ou `CARRE` ; `numero` : celui de la
    /// grille (point fixe, pédestre) ou le compteur (routier), qui finit le titre
    /// `« <titre du protocole>-<numéro> »` ; `titre` en donne un autre, comme le peut un
    /// administrateur.
    pub(crate) fn ajouter_site(&self, nouveau: &NouveauSite<'_>) -> anyhow::Result<String> {
        let proto = super::PROTOCOLES
            .iter()
            .find(|p| p.type_site == nouveau.type_site)
            .ok_or_else(|| anyhow::anyhow!("type de site inconnu : {}", nouveau.type_site))?;
        anyhow::ensure!(
            super::utilisateur(nouveau.observateur).is_some(),
            "observateur inconnu : {}",
            nouveau.observateur
        );
        let mut etat = self.etat();
        let id = etat.nouvel_id();
        let grille = (proto.type_site != "ROUTIER").then(|| Grille {
            id: etat.nouvel_id(),
            numero: nouveau.numero.to_owned(),
        });
        let titre = nouveau.titre.map_or_else(
            || format!("{}-{}", proto.titre, nouveau.numero),
            str::to_owned,
        );
        etat.sites.push(Site {
            id: id.clone(),
            titre,
            protocole: proto.id,
            observateur: nouveau.observateur.to_owned(),
            verrouille: true,
            points: nouveau.points.iter().map(|p| (*p).to_owned()).collect(),
            grille,
            meta: Meta::neuve(),
        });
        Ok(id)
    }

    /// Pose une participation telle que le site web l'aurait créée (`create_participation`,
    /// appelé par `vigiechiro-front` `participation_ctrl.coffee` `save`) : dates rendues par
    /// `isoformat()` (`2026-06-22T07:40:00`, UTC implicite), point facultatif. Rend son
    /// identifiant.
    /// Supprime une participation comme un administrateur (`resources/participations.py`
    /// `delete_participation` : `participations.remove`, puis la tâche
    /// `clean_deleted_participation` efface ses fichiers) : rend `false` si elle n'existait pas.
    pub(crate) fn supprimer_participation(&self, id: &str) -> bool {
        let mut etat = self.etat();
        let avant = etat.participations.len();
        etat.participations.retain(|p| p.id != id);
        etat.fichiers
            .retirer_si(|f| f.participation.as_deref() == Some(id));
        etat.participations.len() < avant
    }

    /// Donne une participation à un autre observateur, comme un administrateur le ferait dans
    /// la base (aucune route ne change `observateur` : `edit_participation` ne le permet pas) :
    /// rend `false` si elle n'existe pas ou si l'observateur est inconnu.
    pub(crate) fn poser_description(&self, id: &str, configuration: Value, meteo: Value) -> bool {
        let mut etat = self.etat();
        match etat.participations.iter_mut().find(|p| p.id == id) {
            Some(p) => {
                p.configuration = Some(configuration);
                p.meteo = Some(meteo);
                p.meta.toucher();
                true
            }
            None => false,
        }
    }

    pub(crate) fn ceder_participation(&self, id: &str, observateur: &str) -> bool {
        if super::utilisateur(observateur).is_none() {
            return false;
        }
        let mut etat = self.etat();
        match etat.participations.iter_mut().find(|p| p.id == id) {
            Some(p) => {
                p.observateur = observateur.to_owned();
                true
            }
            None => false,
        }
    }

    pub(crate) fn poser_participation(
        &self,
        posee: &ParticipationPosee<'_>,
    ) -> anyhow::Result<String> {
        let date = |d: &str| -> anyhow::Result<String> {
            anyhow::ensure!(
                d.len() == 19 && d.as_bytes().get(10) == Some(&b'T'),
                "date attendue comme isoformat() : AAAA-MM-JJTHH:MM:SS, pas {d}"
            );
            Ok(d.to_owned())
        };
        let mut etat = self.etat();
        let site = etat
            .sites
            .iter()
            .find(|s| s.id == posee.site)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("site inconnu : {}", posee.site))?;
        anyhow::ensure!(
            super::utilisateur(posee.observateur).is_some(),
            "observateur inconnu : {}",
            posee.observateur
        );
        let id = etat.nouvel_id();
        etat.participations.push(ParticipationPlateforme {
            id: id.clone(),
            site: site.id,
            observateur: posee.observateur.to_owned(),
            point: posee.point.map(str::to_owned),
            date_debut: date(posee.date_debut)?,
            date_fin: posee.date_fin.map(date).transpose()?,
            meteo: Some(json!({})),
            configuration: Some(json!({})),
            commentaire: None,
            traitement: None,
            calculs_lances: 0,
            protocole: protocole(site.protocole).map_or(super::PROTOCOLE, |p| p.id),
            meta: Meta::neuve(),
        });
        Ok(id)
    }
}

/// Un site à ajouter (voir [`crate::BacASable::ajouter_site`]).
#[derive(Debug, Clone, Copy)]
pub struct NouveauSite<'a> {
    /// `POINT_FIXE`, `ROUTIER` ou `CARRE`.
    pub type_site: &'a str,
    /// Le numéro de la grille (ou le compteur routier) qui finit le titre.
    pub numero: &'a str,
    /// Un titre libre au lieu de `« <protocole>-<numéro> »`.
    pub titre: Option<&'a str>,
    pub observateur: &'a str,
    pub points: &'a [&'a str],
}

/// Une participation à poser (voir [`crate::BacASable::poser_participation`]).
#[derive(Debug, Clone, Copy)]
pub struct ParticipationPosee<'a> {
    pub site: &'a str,
    pub observateur: &'a str,
    pub point: Option<&'a str>,
    /// `isoformat()` sans fuseau (UTC implicite) : `2026-06-22T07:40:00`.
    pub date_debut: &'a str,
    pub date_fin: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mots_des_titres() {
        let m = mots("Vigiechiro - Point Fixe-640380");
        for mot in ["vigiechiro", "point", "fixe", "640380"] {
            assert!(m.contains(mot), "{mot} : {m:?}");
        }
        assert_eq!(m.len(), 4);
        assert!(mots("Pédestre").contains("pédestre"));
    }

    #[test]
    fn parametres_des_sites_comme_get_url_params() {
        let p = |paires: &[(&str, &str)]| -> Vec<(String, String)> {
            paires
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let f = filtre_sites(&p(&[
            ("q", "640380"),
            ("protocole", "64A1B2C3D4E5F60718293B01"),
            ("observateur", "n'importe quoi"),
            ("inconnu", "x"),
            ("page", " 2 "),
        ]))
        .unwrap();
        assert_eq!(f.q.as_deref(), Some("640380"));
        assert_eq!(f.protocole.as_deref(), Some("64a1b2c3d4e5f60718293b01"));
        let r = filtre_sites(&p(&[
            ("protocole", "x"),
            ("grille_stoc", "y"),
            ("max_results", "dix"),
        ]))
        .unwrap_err();
        assert_eq!(r.statut, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            r.corps.map(|c| c["_errors"].clone()),
            Some(json!({
                "protocole": "bad value, should be <class 'bson.objectid.ObjectId'>",
                "grille_stoc": "bad value, should be <class 'bson.objectid.ObjectId'>",
                "max_results": "bad value, should be <class 'int'>",
            }))
        );
        assert_eq!(
            chaine_de_pagination(&p(&[("page", " 2 "), ("q", "x"), ("max_results", "5")])),
            "page=2&max_results=5"
        );
    }
}
