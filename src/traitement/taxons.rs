//! Les noms des taxons, tirés de `GET /taxons/liste` et gardés en cache.
//!
//! Pourquoi un cache : le bilan d'une nuit désigne chaque espèce par l'identifiant de son
//! taxon. La liste des taxons de la plateforme (quelques centaines, `resources/taxons.py`
//! `get_resume_list`) change rarement ; la relire à chaque relevé, pour chaque nuit d'une
//! saison, coûterait une requête de plus à chaque fois sur un partage de connexion. Elle est
//! donc gardée dans un fichier à côté de la base (`<base>.taxons.json`, créé en 0600), par
//! adresse d'API, et relue quand elle a plus de [`FRAICHEUR`] ou qu'un identifiant du bilan
//! n'y est pas.
//!
//! Le serveur développe la relation `taxon` du bilan (`xin/schema.py`
//! `_run_attribute_data_relation`), et la laisse en identifiant quand le taxon ne se lit plus :
//! les noms portés par le bilan servent quand la liste n'a pas le taxon (ou n'a pas pu être
//! lue). Un cache illisible ou absent n'est jamais une erreur : il est refait.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::IdObjet;
use crate::reessai::{Profil, Rejouabilite, ReponseApi};
use crate::transport::vigiechiro::{ClientVigieChiro, EtatParticipation, TaxonDuBilan, TaxonLu};
use crate::transport::{Emetteur, Emission, emettre};

/// Au-delà, la liste est relue.
pub(crate) const FRAICHEUR: Duration = Duration::from_secs(30 * 86_400);

/// Version du format du fichier ; un autre format est ignoré (et refait).
const VERSION: u32 = 1;

/// Les noms d'un taxon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NomsTaxon {
    /// Le code court (`Pippip`), celui des colonnes du CSV des observations.
    pub(crate) court: String,
    /// Le nom latin (`Pipistrellus pipistrellus`).
    pub(crate) long: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ListeGardee {
    /// Secondes Unix de la lecture.
    lu_le: i64,
    taxons: HashMap<String, NomsTaxon>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Fichier {
    version: u32,
    /// Par adresse d'API.
    plateformes: HashMap<String, ListeGardee>,
}

/// Le cache des noms de taxons d'une base.
#[derive(Debug)]
pub(crate) struct CacheTaxons {
    chemin: PathBuf,
    contenu: Fichier,
}

impl CacheTaxons {
    /// Le cache qui accompagne la base `base` ; vide s'il n'existe pas ou ne se lit pas.
    pub(crate) fn de_la_base(base: &Path) -> CacheTaxons {
        let mut nom = base.file_name().unwrap_or_default().to_os_string();
        nom.push(".taxons.json");
        CacheTaxons::ouvrir(base.with_file_name(nom))
    }

    /// Le cache de ce fichier ; vide s'il n'existe pas ou ne se lit pas.
    pub(crate) fn ouvrir(chemin: PathBuf) -> CacheTaxons {
        let contenu = std::fs::read(&chemin)
            .ok()
            .and_then(|o| serde_json::from_slice::<Fichier>(&o).ok())
            .filter(|f| f.version == VERSION)
            .unwrap_or_default();
        CacheTaxons { chemin, contenu }
    }

    pub(crate) fn chemin(&self) -> &Path {
        &self.chemin
    }

    /// Faut-il relire la liste de `api` pour nommer `ids`, à l'instant `maintenant`
    /// (secondes Unix) ? Oui si elle n'a jamais été lue, si elle a plus de [`FRAICHEUR`], ou
    /// s'il lui manque l'un de ces identifiants.
    pub(crate) fn a_relire<'a>(
        &self,
        api: &str,
        ids: impl IntoIterator<Item = &'a IdObjet>,
        maintenant: i64,
    ) -> bool {
        let Some(liste) = self.contenu.plateformes.get(api) else {
            return true;
        };
        let age = maintenant.saturating_sub(liste.lu_le);
        age < 0
            || age as u64 > FRAICHEUR.as_secs()
            || ids
                .into_iter()
                .any(|id| !liste.taxons.contains_key(id.as_str()))
    }

    /// Remplace la liste de `api`, lue à `maintenant`.
    pub(crate) fn remplacer(&mut self, api: &str, taxons: &[TaxonLu], maintenant: i64) {
        let liste = ListeGardee {
            lu_le: maintenant,
            taxons: taxons
                .iter()
                .map(|t| {
                    (
                        t.id.as_str().to_owned(),
                        NomsTaxon {
                            court: t.libelle_court.clone(),
                            long: t.libelle_long.clone(),
                        },
                    )
                })
                .collect(),
        };
        self.contenu.version = VERSION;
        self.contenu.plateformes.insert(api.to_owned(), liste);
    }

    /// Écrit le cache, entier ou pas du tout, sans suivre de lien (`plateforme::ecriture`).
    pub(crate) fn enregistrer(&self) -> std::io::Result<()> {
        let octets = serde_json::to_vec(&self.contenu).map_err(std::io::Error::other)?;
        if let Some(dossier) = self.chemin.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::plateforme::dossier_prive()
                .recursive(true)
                .create(dossier)?;
        }
        crate::plateforme::ecriture::ecrire_entier(
            &self.chemin,
            crate::plateforme::ecriture::Droits::Prives,
            &octets,
        )
    }

    /// Les noms d'un taxon du bilan : ceux de la liste de `api`, sinon ceux que porte le
    /// bilan (relation développée), sinon aucun.
    pub(crate) fn nommer(&self, api: &str, taxon: &TaxonDuBilan) -> Option<NomsTaxon> {
        let de_la_liste = taxon.id.as_ref().and_then(|id| {
            self.contenu
                .plateformes
                .get(api)?
                .taxons
                .get(id.as_str())
                .cloned()
        });
        de_la_liste.or_else(|| match (&taxon.libelle_court, &taxon.libelle_long) {
            (None, None) => None,
            (court, long) => Some(NomsTaxon {
                court: court.clone().unwrap_or_default(),
                long: long.clone().unwrap_or_default(),
            }),
        })
    }
}

/// Les noms des taxons du bilan de `e` : relit la liste de la plateforme si le cache ne les a
/// pas tous (ou est trop vieux), et la garde. Un échec n'est pas une erreur : les noms portés
/// par le bilan servent alors.
pub(crate) async fn completer(
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
    let maintenant = super::maintenant().secondes();
    if ids.is_empty() || !taxons.a_relire(api, ids, maintenant) {
        return;
    }
    let issue = emettre(
        emetteur,
        Emission::nouveau(
            "GET",
            "/taxons/liste",
            Profil::Bref,
            Rejouabilite::Rejouable,
        ),
        |_| client.taxons(),
    )
    .await;
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

#[cfg(test)]
mod tests {
    use super::*;

    const API: &str = "https://vigiechiro.exemple/api/v1";

    fn taxon(id: &str, court: &str, long: &str) -> TaxonLu {
        TaxonLu {
            id: IdObjet::analyser(id).unwrap(),
            libelle_court: court.into(),
            libelle_long: long.into(),
        }
    }

    #[test]
    fn garde_relit_et_nomme() {
        let dossier = tempfile::tempdir().unwrap();
        let base = dossier.path().join("sous").join("vigie.sqlite");
        let mut c = CacheTaxons::de_la_base(&base);
        assert_eq!(
            c.chemin(),
            dossier.path().join("sous").join("vigie.sqlite.taxons.json")
        );
        let pippip = IdObjet::analyser("5b1e0a1c2d3e4f5061728310").unwrap();
        let autre = IdObjet::analyser("5b1e0a1c2d3e4f5061728399").unwrap();
        assert!(c.a_relire(API, [&pippip], 1_000));
        c.remplacer(
            API,
            &[taxon(
                pippip.as_str(),
                "Pippip",
                "Pipistrellus pipistrellus",
            )],
            1_000,
        );
        c.enregistrer().unwrap();
        let c = CacheTaxons::de_la_base(&base);
        assert!(!c.a_relire(API, [&pippip], 1_000 + 86_400));
        // Un identifiant inconnu, une autre plateforme, une liste trop vieille : relire.
        assert!(c.a_relire(API, [&pippip, &autre], 1_000));
        assert!(c.a_relire("http://127.0.0.1:1/api/v1", [&pippip], 1_000));
        assert!(c.a_relire(API, [&pippip], 1_000 + FRAICHEUR.as_secs() as i64 + 1));
        // Les noms : la liste d'abord, puis ceux que porte le bilan.
        let du_bilan = |id: &IdObjet, court: Option<&str>| TaxonDuBilan {
            id: Some(id.clone()),
            libelle_court: court.map(str::to_owned),
            libelle_long: None,
        };
        assert_eq!(
            c.nommer(API, &du_bilan(&pippip, Some("ancien nom"))),
            Some(NomsTaxon {
                court: "Pippip".into(),
                long: "Pipistrellus pipistrellus".into()
            })
        );
        assert_eq!(
            c.nommer(API, &du_bilan(&autre, Some("Xx")))
                .map(|n| n.court),
            Some("Xx".into())
        );
        assert_eq!(c.nommer(API, &du_bilan(&autre, None)), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(c.chemin()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn un_cache_illisible_est_refait() {
        let dossier = tempfile::tempdir().unwrap();
        let chemin = dossier.path().join("c.json");
        std::fs::write(&chemin, b"{pas du json").unwrap();
        let mut c = CacheTaxons::ouvrir(chemin.clone());
        let id = IdObjet::analyser("5b1e0a1c2d3e4f5061728310").unwrap();
        assert!(c.a_relire(API, [&id], 0));
        c.remplacer(API, &[taxon(id.as_str(), "a", "b")], 0);
        c.enregistrer().unwrap();
        assert!(!CacheTaxons::ouvrir(chemin).a_relire(API, [&id], 0));
    }

    /// Écrire le cache ne suit jamais un lien : ni un lien posé au nom de son ancien fichier
    /// provisoire (`<cache>.<pid>.partiel`, prévisible, ouvert en création-troncature), ni un
    /// lien posé au nom du cache lui-même. Leurs cibles restent intactes, le cache est écrit.
    #[cfg(unix)]
    #[test]
    fn ecrire_le_cache_ne_suit_jamais_un_lien() {
        let dossier = tempfile::tempdir().unwrap();
        let these = dossier.path().join("these.txt");
        let notes = dossier.path().join("notes.txt");
        std::fs::write(&these, b"ma these").unwrap();
        std::fs::write(&notes, b"mes notes").unwrap();
        let chemin = dossier.path().join("c.json");
        let ancien_provisoire = dossier
            .path()
            .join(format!("c.json.{}.partiel", std::process::id()));
        std::os::unix::fs::symlink(&these, &ancien_provisoire).unwrap();
        std::os::unix::fs::symlink(&notes, &chemin).unwrap();
        let mut c = CacheTaxons::ouvrir(chemin.clone());
        let id = IdObjet::analyser("5b1e0a1c2d3e4f5061728310").unwrap();
        c.remplacer(API, &[taxon(id.as_str(), "a", "b")], 0);
        c.enregistrer().unwrap();
        assert_eq!(std::fs::read(&these).unwrap(), b"ma these");
        assert_eq!(std::fs::read(&notes).unwrap(), b"mes notes");
        assert!(std::fs::symlink_metadata(&chemin).unwrap().is_file());
        assert!(!CacheTaxons::ouvrir(chemin).a_relire(API, [&id], 0));
    }
}
