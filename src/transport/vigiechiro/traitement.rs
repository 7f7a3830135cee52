//! Après le dépôt : lire où en est le calcul d'une participation, son bilan, la liste des
//! taxons, demander le CSV des observations, et télécharger un fichier produit par le calcul.
//!
//! Ce que le serveur rend (`Scille/vigiechiro-api`) :
//! - `GET /participations/{id}` (`resources/participations.py` `display_participation`, sans
//!   contrôle d'accès) : `observateur` développé (`{_id, pseudo, …}`), `traitement` =
//!   `{etat, retry, date_planification, date_debut, date_fin, message}` (le champ entier est
//!   remplacé à chaque étape : `scripts/task_participation.py` `process_participation`),
//!   `bilan` = `{chiropteres, orthopteres, autre : [{taxon, nb_contact_min, nb_contact_max}],
//!   problemes}` (un ordre sans taxon n'a pas de clé ; `taxon` développé en document, ou
//!   laissé en identifiant quand le taxon ne se lit plus : `xin/schema.py`
//!   `_run_attribute_data_relation`), `logs` (le fichier du journal, développé de même). Les
//!   dates sont l'`isoformat()` d'une date sans fuseau, à la microseconde près quand elle en a
//!   (`2026-06-21T21:40:00.123000`) ;
//! - `GET /taxons/liste` (`resources/taxons.py` `get_resume_list`) : `{_items: [{_id,
//!   libelle_long, libelle_court}]}`, non paginé ;
//! - `POST /participations/{id}/csv` (`participation_generate_csv`) : met en file la
//!   production du CSV des observations et son envoi par courriel (`200 {}`) ;
//! - une URL signée de lecture (`GET /fichiers/{id}/acces`, dans `lecture.rs`) : le fichier
//!   lui-même, lu en flux vers le disque, taille vérifiée.
//!
//! Rien n'est cru sur parole : une participation rendue sous un autre identifiant, un nombre de
//! contacts négatif, un état ou une date illisible rendent la réponse illisible ; les textes
//! (message d'erreur, noms de taxons) sont gardés bornés.

use serde_json::Value;

use super::{ClientVigieChiro, ReponseSuivie, aucun_refus, classer_erreur, classer_reponse, json};
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::reessai::ReponseApi;
use crate::texte::{borner, borner_trace};

/// Longueur gardée d'un message d'erreur du calcul (une trace Python) : son début et sa fin,
/// la ligne de l'exception toujours (`texte::borner_trace`).
const MESSAGE_CALCUL_MAX: usize = 20_000;
/// Longueur gardée d'un nom (taxon, pseudo, état inconnu) : une ligne.
const NOM_MAX: usize = crate::texte::LIGNE_MAX;

/// L'état du calcul d'une participation (`traitement.etat`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EtatCalcul {
    Planifie,
    EnCours,
    Fini,
    Erreur,
    /// Un essai a échoué, la plateforme en refera un d'elle-même.
    Retry,
    /// Un état que `vigie` ne connaît pas (tel que rendu, borné).
    Autre(String),
}

impl EtatCalcul {
    pub(super) fn lire(texte: &str) -> EtatCalcul {
        match texte {
            "PLANIFIE" => EtatCalcul::Planifie,
            "EN_COURS" => EtatCalcul::EnCours,
            "FINI" => EtatCalcul::Fini,
            "ERREUR" => EtatCalcul::Erreur,
            "RETRY" => EtatCalcul::Retry,
            autre => EtatCalcul::Autre(borner(autre, NOM_MAX).into_owned()),
        }
    }

    /// Le nom de l'état tel que la plateforme l'écrit.
    pub(crate) fn nom(&self) -> &str {
        match self {
            EtatCalcul::Planifie => "PLANIFIE",
            EtatCalcul::EnCours => "EN_COURS",
            EtatCalcul::Fini => "FINI",
            EtatCalcul::Erreur => "ERREUR",
            EtatCalcul::Retry => "RETRY",
            EtatCalcul::Autre(e) => e,
        }
    }
}

/// Le champ `traitement` d'une participation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Traitement {
    pub(crate) etat: EtatCalcul,
    /// Le numéro de l'essai suivant (`RETRY` seulement).
    pub(crate) retry: Option<u32>,
    pub(crate) date_planification: Option<InstantUtc>,
    pub(crate) date_debut: Option<InstantUtc>,
    pub(crate) date_fin: Option<InstantUtc>,
    /// La trace de l'échec (`ERREUR`, `RETRY`).
    pub(crate) message: Option<String>,
}

/// Un taxon tel que le bilan le désigne : son identifiant, et ses noms quand la relation est
/// développée.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaxonDuBilan {
    pub(crate) id: Option<IdObjet>,
    pub(crate) libelle_court: Option<String>,
    pub(crate) libelle_long: Option<String>,
}

/// Une ligne du bilan : un taxon et son nombre de contacts (au moins : probabilité > 0,98 ;
/// au plus : toutes les observations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LigneBilan {
    pub(crate) taxon: TaxonDuBilan,
    pub(crate) contacts_min: u64,
    pub(crate) contacts_max: u64,
}

/// Le bilan d'un calcul (`bilan`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bilan {
    pub(crate) chiropteres: Vec<LigneBilan>,
    pub(crate) orthopteres: Vec<LigneBilan>,
    pub(crate) autre: Vec<LigneBilan>,
    /// Séquences où le calcul signale un problème.
    pub(crate) problemes: u64,
}

/// L'observateur d'une participation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Observateur {
    pub(crate) id: IdObjet,
    pub(crate) pseudo: Option<String>,
}

/// Ce que `GET /participations/{id}` dit du calcul.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EtatParticipation {
    pub(crate) id: IdObjet,
    pub(crate) observateur: Option<Observateur>,
    /// `None` : aucun calcul n'a jamais été lancé.
    pub(crate) traitement: Option<Traitement>,
    pub(crate) bilan: Option<Bilan>,
    /// Le fichier du journal du dernier calcul réussi.
    pub(crate) logs: Option<IdObjet>,
}

/// Un taxon de `GET /taxons/liste`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaxonLu {
    pub(crate) id: IdObjet,
    pub(crate) libelle_court: String,
    pub(crate) libelle_long: String,
}

/// Un identifiant : le texte lui-même, ou le `_id` d'une relation développée.
fn identifiant(v: &Value) -> Option<IdObjet> {
    match v {
        Value::String(s) => IdObjet::analyser(s),
        Value::Object(o) => o
            .get("_id")
            .and_then(Value::as_str)
            .and_then(IdObjet::analyser),
        _ => None,
    }
}

fn texte(v: Option<&Value>, max: usize) -> Option<String> {
    v.and_then(Value::as_str)
        .map(|s| borner(s, max).into_owned())
}

fn date(o: &serde_json::Map<String, Value>, champ: &str) -> Result<Option<InstantUtc>, String> {
    match o.get(champ) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => InstantUtc::lire(s)
            .map(Some)
            .ok_or_else(|| format!("traitement.{champ} illisible")),
        Some(_) => Err(format!("traitement.{champ} n'est pas une date")),
    }
}

fn lire_traitement(v: &Value) -> Result<Traitement, String> {
    let o = v
        .as_object()
        .ok_or("traitement n'est pas un objet".to_owned())?;
    let etat = o
        .get("etat")
        .and_then(Value::as_str)
        .ok_or("traitement sans état".to_owned())?;
    let retry = match o.get("retry") {
        None | Some(Value::Null) => None,
        Some(r) => Some(
            r.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or("traitement.retry illisible".to_owned())?,
        ),
    };
    Ok(Traitement {
        etat: EtatCalcul::lire(etat),
        retry,
        date_planification: date(o, "date_planification")?,
        date_debut: date(o, "date_debut")?,
        date_fin: date(o, "date_fin")?,
        message: o
            .get("message")
            .and_then(Value::as_str)
            .map(|m| borner_trace(m, MESSAGE_CALCUL_MAX).into_owned()),
    })
}

fn lire_lignes(v: Option<&Value>, ordre: &str) -> Result<Vec<LigneBilan>, String> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let lignes = v
        .as_array()
        .ok_or_else(|| format!("bilan.{ordre} n'est pas une liste"))?;
    lignes
        .iter()
        .map(|l| {
            let nombre = |champ: &str| {
                l.get(champ)
                    .and_then(Value::as_u64)
                    .ok_or_else(|| format!("bilan.{ordre}.{champ} illisible"))
            };
            let t = l.get("taxon").unwrap_or(&Value::Null);
            let (min, max) = (nombre("nb_contact_min")?, nombre("nb_contact_max")?);
            if min > max {
                return Err(format!(
                    "bilan.{ordre} : plus de contacts au moins qu'au plus"
                ));
            }
            Ok(LigneBilan {
                taxon: TaxonDuBilan {
                    id: identifiant(t),
                    libelle_court: texte(t.get("libelle_court"), NOM_MAX),
                    libelle_long: texte(t.get("libelle_long"), NOM_MAX),
                },
                contacts_min: min,
                contacts_max: max,
            })
        })
        .collect()
}

fn lire_bilan(v: &Value) -> Result<Bilan, String> {
    if !v.is_object() {
        return Err("bilan n'est pas un objet".to_owned());
    }
    Ok(Bilan {
        chiropteres: lire_lignes(v.get("chiropteres"), "chiropteres")?,
        orthopteres: lire_lignes(v.get("orthopteres"), "orthopteres")?,
        autre: lire_lignes(v.get("autre"), "autre")?,
        problemes: match v.get("problemes") {
            None | Some(Value::Null) => 0,
            Some(p) => p.as_u64().ok_or("bilan.problemes illisible")?,
        },
    })
}

/// Lit la participation rendue ; `attendue` : l'identifiant demandé (une autre est refusée).
fn lire_etat(corps: &[u8], attendue: &IdObjet) -> Result<EtatParticipation, String> {
    let v: Value = json(corps)?;
    let id = v
        .get("_id")
        .and_then(identifiant)
        .ok_or("participation sans identifiant".to_owned())?;
    if &id != attendue {
        return Err(format!(
            "la plateforme a rendu la participation {id} au lieu de {attendue}"
        ));
    }
    let observateur = v.get("observateur").and_then(|o| {
        Some(Observateur {
            id: identifiant(o)?,
            pseudo: texte(o.get("pseudo"), NOM_MAX),
        })
    });
    Ok(EtatParticipation {
        id,
        observateur,
        traitement: match v.get("traitement") {
            None | Some(Value::Null) => None,
            Some(t) => Some(lire_traitement(t)?),
        },
        bilan: match v.get("bilan") {
            None | Some(Value::Null) => None,
            Some(b) => Some(lire_bilan(b)?),
        },
        logs: v.get("logs").and_then(identifiant),
    })
}

/// `GET /taxons/liste` : les taxons lisibles (un élément sans identifiant ni noms est omis).
fn lire_taxons(corps: &[u8]) -> Result<Vec<TaxonLu>, String> {
    let v: Value = json(corps)?;
    let items = v
        .get("_items")
        .and_then(Value::as_array)
        .ok_or("liste des taxons sans _items".to_owned())?;
    Ok(items
        .iter()
        .filter_map(|t| {
            Some(TaxonLu {
                id: identifiant(t.get("_id")?)?,
                libelle_court: texte(t.get("libelle_court"), NOM_MAX)?,
                libelle_long: texte(t.get("libelle_long"), NOM_MAX)?,
            })
        })
        .collect())
}

impl ClientVigieChiro {
    /// `GET /participations/{id}` : où en est son calcul ; `None` si la plateforme ne la
    /// connaît pas (404).
    pub(crate) async fn etat_participation(
        &self,
        id: &IdObjet,
    ) -> ReponseApi<Option<EtatParticipation>> {
        self.envoyer(
            self.http.get(self.url(&format!("/participations/{id}"))),
            |_, c| lire_etat(c, id).map(Some),
            |statut, _, _| (statut == 404).then_some(None),
        )
        .await
    }

    /// `GET /taxons/liste`.
    pub(crate) async fn taxons(&self) -> ReponseApi<Vec<TaxonLu>> {
        self.envoyer(
            self.http.get(self.url("/taxons/liste")),
            |_, c| lire_taxons(c),
            aucun_refus,
        )
        .await
    }

    /// `POST /participations/{id}/csv` : la plateforme produit le CSV des observations et
    /// l'envoie par courriel (non rejouable : chaque émission est un courriel).
    pub(crate) async fn demander_csv(&self, participation: &IdObjet) -> ReponseApi<()> {
        self.envoyer(
            self.http
                .post(self.url(&format!("/participations/{participation}/csv"))),
            |_, _| Ok(()),
            aucun_refus,
        )
        .await
    }

    /// `GET <url>` d'une URL signée de lecture, le corps écrit dans `fichier` (vidé à chaque
    /// tentative). Rend la taille reçue, égale au `Content-Length` annoncé : sans
    /// taille annoncée, au-delà de `max` octets ou au-delà de la taille annoncée, la réponse
    /// est illisible ; un corps interrompu est un incident du lien, rejouable ; `None` : le
    /// stockage n'a pas l'objet (404). Ni jeton ni autorisation : l'URL porte sa signature.
    ///
    /// Chaque morceau reçu est un signe de vie pour le guet de l'émetteur ([`ReponseSuivie`]) :
    /// un téléchargement qui progresse n'est jamais coupé, si long soit-il ; seul un silence
    /// l'est, au silence toléré par le lien (`transport::Seuils`).
    pub(crate) async fn telecharger(
        &self,
        url: &str,
        fichier: &std::fs::File,
        max: u64,
    ) -> ReponseApi<Option<u64>> {
        let reponse = match self.http.get(url).send().await {
            Ok(r) => r,
            Err(e) => return classer_erreur(e),
        };
        let statut = reponse.status().as_u16();
        if !reponse.status().is_success() {
            return classer_reponse(
                reponse,
                |_, _| Err("réponse inattendue".to_owned()),
                |statut, _, _| (statut == 404).then_some(None),
            )
            .await;
        }
        let annoncee = reponse
            .headers()
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let Some(annoncee) = annoncee else {
            return ReponseApi::Illisible {
                statut,
                detail: "le stockage ne dit pas la taille du fichier (Content-Length)".into(),
            };
        };
        if annoncee > max {
            return ReponseApi::Illisible {
                statut,
                detail: format!("fichier annoncé trop grand ({annoncee} octets, {max} au plus)"),
            };
        }
        let local = |e: std::io::Error| ReponseApi::Refuse {
            statut: 0,
            retry_after: None,
            detail: crate::plateforme::erreur_systeme(&e),
        };
        let mut fichier = fichier;
        let vide = fichier
            .set_len(0)
            .and_then(|()| std::io::Seek::rewind(&mut fichier));
        if let Err(e) = vide {
            return local(e);
        }
        let mut reponse = ReponseSuivie::nouveau(reponse);
        let mut recus: u64 = 0;
        loop {
            let morceau = match reponse.morceau().await {
                Ok(Some(m)) => m,
                Ok(None) => break,
                Err(e) => return classer_erreur(e),
            };
            recus += morceau.len() as u64;
            if recus > annoncee {
                return ReponseApi::Illisible {
                    statut,
                    detail: format!(
                        "le stockage envoie plus que la taille annoncée ({annoncee} octets)"
                    ),
                };
            }
            if let Err(e) = std::io::Write::write_all(&mut fichier, &morceau) {
                return local(e);
            }
        }
        if recus != annoncee {
            return ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: format!("téléchargement interrompu ({recus} octets sur {annoncee})"),
            };
        }
        ReponseApi::Succes(Some(recus))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> IdObjet {
        IdObjet::analyser(s).unwrap()
    }

    const P: &str = "64a1b2c3d4e5f60718293d01";
    const T: &str = "5b1e0a1c2d3e4f5061728310";

    #[test]
    fn participation_finie_avec_son_bilan() {
        let corps = format!(
            r#"{{"_id": "{P}", "observateur": {{"_id": "64a1b2c3d4e5f60718293a01", "pseudo": "Ana"}},
               "traitement": {{"etat": "FINI", "date_debut": "2026-06-21T21:40:00.123000",
                              "date_fin": "2026-06-21T22:05:00"}},
               "bilan": {{"problemes": 2,
                          "chiropteres": [{{"taxon": {{"_id": "{T}", "libelle_court": "Pippip",
                                                      "libelle_long": "Pipistrellus pipistrellus",
                                                      "parents": ["x"]}},
                                           "nb_contact_min": 3, "nb_contact_max": 5}}],
                          "autre": [{{"taxon": "{T}", "nb_contact_min": 0, "nb_contact_max": 1}}]}},
               "logs": {{"_id": "64a1b2c3d4e5f60718293e01", "titre": "participation-x-logs"}}}}"#
        );
        let e = lire_etat(corps.as_bytes(), &id(P)).unwrap();
        let t = e.traitement.unwrap();
        assert_eq!(t.etat, EtatCalcul::Fini);
        // La microseconde de la plateforme ne gêne pas la lecture.
        assert_eq!(t.date_debut, InstantUtc::lire("2026-06-21T21:40:00Z"));
        assert_eq!(t.date_fin, InstantUtc::lire("2026-06-21T22:05:00Z"));
        let b = e.bilan.unwrap();
        assert_eq!(b.problemes, 2);
        assert_eq!(
            b.chiropteres[0].taxon.libelle_court.as_deref(),
            Some("Pippip")
        );
        assert_eq!(
            (b.chiropteres[0].contacts_min, b.chiropteres[0].contacts_max),
            (3, 5)
        );
        // Une relation non développée garde son identifiant, sans nom.
        assert_eq!(b.autre[0].taxon.id, Some(id(T)));
        assert_eq!(b.autre[0].taxon.libelle_long, None);
        assert!(b.orthopteres.is_empty());
        assert_eq!(e.observateur.unwrap().pseudo.as_deref(), Some("Ana"));
        assert_eq!(e.logs, Some(id("64a1b2c3d4e5f60718293e01")));
    }

    #[test]
    fn reponses_qui_ne_se_croient_pas() {
        let p = id(P);
        for (corps, attendu) in [
            (
                r#"{"_id": "64a1b2c3d4e5f60718293dff"}"#.to_owned(),
                "au lieu de",
            ),
            (
                format!(r#"{{"_id": "{P}", "traitement": {{}}}}"#),
                "sans état",
            ),
            (
                format!(
                    r#"{{"_id": "{P}", "traitement": {{"etat": "FINI", "date_fin": "hier"}}}}"#
                ),
                "date_fin illisible",
            ),
            (
                format!(
                    r#"{{"_id": "{P}", "bilan": {{"chiropteres": [{{"taxon": "{T}", "nb_contact_min": -1, "nb_contact_max": 2}}]}}}}"#
                ),
                "nb_contact_min illisible",
            ),
            (
                format!(
                    r#"{{"_id": "{P}", "bilan": {{"chiropteres": [{{"taxon": "{T}", "nb_contact_min": 5, "nb_contact_max": 2}}]}}}}"#
                ),
                "au moins qu'au plus",
            ),
        ] {
            let e = lire_etat(corps.as_bytes(), &p).unwrap_err();
            assert!(e.contains(attendu), "{corps} : {e}");
        }
        // Un état inconnu se garde, borné ; jamais de calcul : pas de traitement.
        let long = "X".repeat(1000);
        let e = lire_etat(
            format!(r#"{{"_id": "{P}", "traitement": {{"etat": "{long}"}}}}"#).as_bytes(),
            &p,
        )
        .unwrap();
        match e.traitement.unwrap().etat {
            EtatCalcul::Autre(x) => assert!(x.chars().count() <= NOM_MAX + 1),
            autre => panic!("{autre:?}"),
        }
        let e = lire_etat(format!(r#"{{"_id": "{P}"}}"#).as_bytes(), &p).unwrap();
        assert_eq!((e.traitement, e.bilan, e.logs), (None, None, None));
    }

    #[test]
    fn liste_des_taxons() {
        let t = lire_taxons(
            format!(
                r#"{{"_items": [{{"_id": "{T}", "libelle_court": "Pippip", "libelle_long": "Pipistrellus pipistrellus"}},
                             {{"_id": "../x", "libelle_court": "a", "libelle_long": "b"}},
                             {{"_id": "{T}"}}]}}"#
            )
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            t,
            vec![TaxonLu {
                id: id(T),
                libelle_court: "Pippip".into(),
                libelle_long: "Pipistrellus pipistrellus".into()
            }]
        );
        assert!(lire_taxons(b"{}").is_err());
    }
}
