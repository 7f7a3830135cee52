//! Lire ce qu'une saison doit savoir de la plateforme : les sites de l'utilisateur, ses
//! participations, et les participations d'un site, **toutes les pages**, chacune vérifiée.
//!
//! Ce que rend le serveur (`Scille/vigiechiro-api`) :
//! - `GET /moi/sites` (`resources/sites.py` `list_user_sites`, `_sites_generic_list`) : les
//!   sites dont l'utilisateur est l'observateur, triés par titre, relations développées
//!   (`protocole` porte `type_site`, `grille_stoc` son `numero`) ;
//! - `GET /moi/participations` (`resources/participations.py` `list_user_participations`) :
//!   ses participations, sans tri, sans `observateur`, `site` développé (son `titre`) ;
//! - `GET /sites/{id}/participations` (`list_site_participations`) : celles du site, de tous
//!   les observateurs, sans tri, `observateur` développé, sans `site` ;
//! - une relation que le serveur n'a pas pu développer reste un identifiant : les deux formes
//!   sont lues ;
//! - la pagination (`xin/snippets.py` `Paginator`) : `max_results` au plus 100 (422 au-delà ;
//!   `0` voudrait dire « tout », une réponse sans borne, jamais demandée), `page` à partir de 1,
//!   `{"_items", "_meta": {"max_results", "total", "page"}}`, `total` compté sans limite. Sans
//!   tri, une insertion entre deux pages peut décaler la liste.
//!
//! Rien n'est cru sur parole : chaque page doit dire la page et la taille demandées, compter
//! au plus 100 éléments, chacun avec un `_id` ObjectId ; les doublons (liste décalée) sont
//! écartés ; si `total` change en cours de lecture, ou si la lecture finit avec moins
//! d'éléments distincts que `total`, la liste est relue entière (trois fois au plus), puis la
//! réponse est dite illisible (« la liste a changé pendant la lecture ») : la politique de
//! réessai la reprendra, sans la confondre avec une coupure du réseau. Quand s'arrêter (une
//! page courte, le `total` annoncé, une page identique à la précédente, [`PAGES_MAX`] pages)
//! est la règle de toute liste paginée (`pagination.rs`). Chaque corps reste sous
//! `CORPS_REPONSE_MAX`.

use std::collections::HashSet;
use std::future::Future;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{ClientVigieChiro, PAR_PAGE, Pagination, Suite, aucun_refus, json};
use crate::destination::IdObjet;
use crate::reessai::ReponseApi;
use crate::texte::{LIGNE_MAX, borner};

/// Pages lues au plus (10 000 éléments).
pub(crate) const PAGES_MAX: u64 = 100;
/// Lectures complètes d'une liste qui change, avant de la dire illisible.
const LECTURES_MAX: u32 = 3;

/// Un site de l'utilisateur (`/moi/sites`), ou celui d'une de ses participations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SiteLu {
    pub(crate) id: IdObjet,
    pub(crate) titre: String,
    /// `grille_stoc.numero`, si la relation est développée.
    pub(crate) numero_grille: Option<String>,
    /// `protocole.type_site` (`POINT_FIXE`, `ROUTIER`, `CARRE`), si la relation est
    /// développée.
    pub(crate) type_site: Option<String>,
}

/// Une participation telle que la listent `/moi/participations` et
/// `/sites/{id}/participations`. Les dates restent telles que rendues (`isoformat()` sans
/// fuseau) : le domaine les lit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParticipationLue {
    pub(crate) id: IdObjet,
    /// Le site, développé (`/moi/participations`) ; `None` s'il n'est que son identifiant, ou
    /// absent (`/sites/{id}/participations` le retire).
    pub(crate) site: Option<SiteLu>,
    /// L'identifiant du site, développé ou non.
    pub(crate) site_id: Option<IdObjet>,
    /// L'observateur (`/sites/{id}/participations`), développé ou non.
    pub(crate) observateur: Option<IdObjet>,
    /// Son pseudo, quand la relation est développée.
    pub(crate) pseudo: Option<String>,
    pub(crate) point: Option<String>,
    pub(crate) date_debut: Option<String>,
    pub(crate) date_fin: Option<String>,
    /// L'état du calcul (`traitement.etat`), s'il a été lancé.
    pub(crate) etat_calcul: Option<super::EtatCalcul>,
    /// Sa `configuration` (le matériel, clés du formulaire du site web), quand c'est un
    /// dictionnaire (`resources/participations.py` : `configuration` est un `dict` libre).
    pub(crate) configuration: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct Page {
    #[serde(rename = "_items")]
    items: Vec<Value>,
    #[serde(rename = "_meta")]
    meta: Meta,
}

#[derive(Deserialize)]
struct Meta {
    total: u64,
    page: u64,
    max_results: u64,
}

/// L'identifiant d'une relation : l'objet développé (`_id`) ou l'identifiant seul. Une autre
/// forme rend l'élément illisible.
fn relation(v: &Value) -> Result<Option<IdObjet>, String> {
    let texte = match v {
        Value::Null => return Ok(None),
        Value::String(s) => s.as_str(),
        Value::Object(o) => match o.get("_id") {
            Some(Value::String(s)) => s.as_str(),
            _ => return Err("relation développée sans _id".into()),
        },
        _ => return Err("relation qui n'est ni un identifiant ni un document".into()),
    };
    IdObjet::analyser(texte)
        .map(Some)
        .ok_or_else(|| "identifiant qui n'est pas un ObjectId".into())
}

/// Un champ texte facultatif, borné à une ligne (`texte::borner` : un titre de 3 Mio garde
/// son début et sa fin, où est son numéro) ; autre chose qu'un texte rend l'élément illisible.
fn texte(o: &Value, champ: &str) -> Result<Option<String>, String> {
    match o.get(champ) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(borner(s, LIGNE_MAX).into_owned())),
        Some(_) => Err(format!("{champ} n'est pas un texte")),
    }
}

fn id_de(o: &Value) -> Result<IdObjet, String> {
    relation(o.get("_id").unwrap_or(&Value::Null))?.ok_or_else(|| "élément sans _id".into())
}

/// Un site développé (`/moi/sites`, `GET /sites/{id}`, ou le `site` d'une participation).
pub(super) fn site(o: &Value) -> Result<SiteLu, String> {
    if !o.is_object() {
        return Err("site qui n'est pas un document".into());
    }
    let titre = texte(o, "titre")?.ok_or("site sans titre")?;
    // Développées, ces relations disent le numéro de la grille et le type du site ; sinon,
    // rien (l'identifiant seul ne les dit pas).
    let dans = |relation: &str, champ: &str| -> Result<Option<String>, String> {
        match o.get(relation) {
            Some(r @ Value::Object(_)) => texte(r, champ),
            _ => Ok(None),
        }
    };
    Ok(SiteLu {
        id: id_de(o)?,
        titre,
        numero_grille: dans("grille_stoc", "numero")?,
        type_site: dans("protocole", "type_site")?,
    })
}

fn participation(o: &Value) -> Result<ParticipationLue, String> {
    let site_brut = o.get("site").unwrap_or(&Value::Null);
    let observateur = o.get("observateur").unwrap_or(&Value::Null);
    Ok(ParticipationLue {
        id: id_de(o)?,
        site: match site_brut {
            Value::Object(_) => Some(site(site_brut)?),
            _ => None,
        },
        site_id: relation(site_brut)?,
        observateur: relation(observateur)?,
        pseudo: match observateur {
            Value::Object(_) => texte(observateur, "pseudo")?,
            _ => None,
        },
        point: texte(o, "point")?,
        date_debut: texte(o, "date_debut")?,
        date_fin: texte(o, "date_fin")?,
        etat_calcul: o
            .get("traitement")
            .and_then(|t| t.get("etat"))
            .and_then(Value::as_str)
            .map(super::EtatCalcul::lire),
        configuration: o.get("configuration").and_then(Value::as_object).cloned(),
    })
}

/// Une page lue et vérifiée : ses éléments, et le `total` annoncé.
fn lire_page<T>(
    corps: &[u8],
    page: u64,
    lire: &dyn Fn(&Value) -> Result<T, String>,
) -> Result<(Vec<(IdObjet, T)>, u64), String> {
    let p: Page = json(corps)?;
    if p.meta.page != page || p.meta.max_results != PAR_PAGE {
        return Err(format!(
            "pagination non respectée (page {} de {} éléments rendue pour la page {page} de {PAR_PAGE})",
            p.meta.page, p.meta.max_results
        ));
    }
    if p.items.len() as u64 > PAR_PAGE {
        return Err(format!(
            "{} éléments dans une page de {PAR_PAGE}",
            p.items.len()
        ));
    }
    let elements = p
        .items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let id = id_de(v).map_err(|e| format!("élément {} : {e}", i + 1))?;
            let valeur = lire(v).map_err(|e| format!("élément {id} : {e}"))?;
            Ok((id, valeur))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((elements, p.meta.total))
}

/// Ce qu'une lecture complète a donné.
enum Lecture<T> {
    Complete(Vec<T>),
    /// La liste a changé pendant la lecture : à relire.
    Changee(String),
}

impl ClientVigieChiro {
    /// `GET /moi/sites`, toutes les pages.
    pub(crate) async fn mes_sites(&self) -> ReponseApi<Vec<SiteLu>> {
        self.toutes_les_pages("/moi/sites", "sites", &site).await
    }

    /// `GET /moi/participations`, toutes les pages.
    pub(crate) async fn mes_participations(&self) -> ReponseApi<Vec<ParticipationLue>> {
        self.toutes_les_pages("/moi/participations", "participations", &participation)
            .await
    }

    /// `GET /sites/{site}/participations`, toutes les pages.
    pub(crate) async fn participations_du_site(
        &self,
        site: &IdObjet,
    ) -> ReponseApi<Vec<ParticipationLue>> {
        self.toutes_les_pages(
            &format!("/sites/{site}/participations"),
            "participations",
            &participation,
        )
        .await
    }

    /// Toutes les pages de `chemin`, relues entières si la liste change (voir l'en-tête).
    pub(super) async fn toutes_les_pages<T>(
        &self,
        chemin: &str,
        quoi: &str,
        lire: &(dyn Fn(&Value) -> Result<T, String> + Sync),
    ) -> ReponseApi<Vec<T>> {
        lire_toutes(quoi, |page| async move {
            let url = self.url(&format!("{chemin}?max_results={PAR_PAGE}&page={page}"));
            self.envoyer(
                self.http.get(url),
                |_, c| lire_page(c, page, lire),
                aucun_refus,
            )
            .await
        })
        .await
    }
}

/// Une page lue : ses éléments (identifiant, valeur) et le `total` qu'elle annonce.
type PageLue<T> = (Vec<(IdObjet, T)>, u64);

/// Lit toutes les pages que rend `page(n)` (n à partir de 1), relit tout si la liste change,
/// au plus [`LECTURES_MAX`] fois (voir l'en-tête du module).
async fn lire_toutes<T, F, R>(quoi: &str, mut page: F) -> ReponseApi<Vec<T>>
where
    F: FnMut(u64) -> R,
    R: Future<Output = ReponseApi<PageLue<T>>>,
{
    let mut derniere_cause = String::new();
    for _ in 0..LECTURES_MAX {
        match une_lecture(quoi, &mut page).await {
            ReponseApi::Succes(Lecture::Complete(v)) => return ReponseApi::Succes(v),
            ReponseApi::Succes(Lecture::Changee(cause)) => derniere_cause = cause,
            autre => return autre.map(|_| Vec::new()),
        }
    }
    ReponseApi::Illisible {
        statut: 200,
        detail: format!(
            "la liste des {quoi} a changé pendant la lecture, {LECTURES_MAX} fois de suite \
             ({derniere_cause})"
        ),
    }
}

async fn une_lecture<T, F, R>(quoi: &str, page: &mut F) -> ReponseApi<Lecture<T>>
where
    F: FnMut(u64) -> R,
    R: Future<Output = ReponseApi<PageLue<T>>>,
{
    let mut vus = HashSet::new();
    let mut elements = Vec::new();
    let mut total_annonce: Option<u64> = None;
    let mut pagination = Pagination::nouveau(PAR_PAGE, PAGES_MAX);
    let mut n = 1;
    loop {
        let (lus, total) = match page(n).await {
            ReponseApi::Succes(p) => p,
            autre => return autre.map(|_| Lecture::Complete(Vec::new())),
        };
        match total_annonce {
            Some(t) if t != total => {
                return ReponseApi::Succes(Lecture::Changee(format!("{t} puis {total} annoncées")));
            }
            _ => total_annonce = Some(total),
        }
        let suite = pagination.noter(lus.iter().map(|(id, _)| id), Some(total));
        for (id, valeur) in lus {
            if vus.insert(id) {
                elements.push(valeur);
            }
        }
        match suite {
            Ok(Suite::Page(suivante)) => n = suivante,
            Ok(Suite::Finie) => break,
            Err(detail) => {
                return ReponseApi::Illisible {
                    statut: 200,
                    detail: format!("liste des {quoi} : {detail}"),
                };
            }
        }
    }
    let total = total_annonce.unwrap_or(0);
    if elements.len() as u64 != total {
        return ReponseApi::Succes(Lecture::Changee(format!(
            "{} lues pour {total} annoncées",
            elements.len()
        )));
    }
    ReponseApi::Succes(Lecture::Complete(elements))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "64a1b2c3d4e5f60718293c01";

    #[test]
    fn sites_developpes_ou_non() {
        let s = site(&json!({
            "_id": ID, "titre": "Vigiechiro - Point Fixe-640380",
            "protocole": {"_id": "64a1b2c3d4e5f60718293b01", "titre": "Vigiechiro - Point Fixe", "type_site": "POINT_FIXE"},
            "grille_stoc": {"_id": "64a1b2c3d4e5f60718293f01", "numero": "640380"},
            "observateur": {"_id": "64a1b2c3d4e5f60718293a01", "pseudo": "x"},
        }))
        .unwrap();
        assert_eq!(s.titre, "Vigiechiro - Point Fixe-640380");
        assert_eq!(s.numero_grille.as_deref(), Some("640380"));
        assert_eq!(s.type_site.as_deref(), Some("POINT_FIXE"));
        // Relations non développées : ni grille ni type.
        let s = site(
            &json!({"_id": ID, "titre": "T-1", "protocole": "64a1b2c3d4e5f60718293b01",
                             "grille_stoc": "64a1b2c3d4e5f60718293f01"}),
        )
        .unwrap();
        assert_eq!((s.numero_grille, s.type_site), (None, None));
        for mauvais in [
            json!({"_id": ID}),
            json!({"_id": "../moi", "titre": "T"}),
            json!({"_id": ID, "titre": 3}),
            json!({"_id": ID, "titre": "T", "grille_stoc": {"numero": 640380}}),
            json!("64a1b2c3d4e5f60718293c01"),
        ] {
            assert!(site(&mauvais).is_err(), "{mauvais}");
        }
    }

    #[test]
    fn participations_de_l_une_ou_l_autre_liste() {
        // `/sites/{id}/participations` : observateur développé, pas de site.
        let p = participation(&json!({
            "_id": "64a1b2c3d4e5f60718293d01",
            "observateur": {"_id": "64a1b2c3d4e5f60718293a01", "pseudo": "Noctule"},
            "point": "A1", "date_debut": "2026-06-21T19:30:00", "date_fin": "2026-06-22T03:58:00",
            "_etag": "e", "traitement": {"etat": "FINI"},
        }))
        .unwrap();
        assert_eq!(
            p.observateur.as_ref().map(IdObjet::as_str),
            Some("64a1b2c3d4e5f60718293a01")
        );
        assert_eq!(p.pseudo.as_deref(), Some("Noctule"));
        assert_eq!((p.site, p.site_id), (None, None));
        assert_eq!(p.date_debut.as_deref(), Some("2026-06-21T19:30:00"));
        // `/moi/participations` : site développé, sans observateur ni point.
        let p = participation(&json!({
            "_id": "64a1b2c3d4e5f60718293d02",
            "site": {"_id": ID, "titre": "Vigiechiro - Point Fixe-750101", "protocole": "64a1b2c3d4e5f60718293b01"},
            "date_debut": "2026-06-21T19:30:00",
        }))
        .unwrap();
        assert_eq!(
            p.site.as_ref().map(|s| s.titre.as_str()),
            Some("Vigiechiro - Point Fixe-750101")
        );
        assert_eq!(p.site_id.as_ref().map(IdObjet::as_str), Some(ID));
        assert_eq!((p.observateur, p.point), (None, None));
        // Un observateur d'une autre forme, un point qui n'est pas un texte : illisible.
        for mauvais in [
            json!({"_id": "64a1b2c3d4e5f60718293d02", "observateur": 12}),
            json!({"_id": "64a1b2c3d4e5f60718293d02", "observateur": {"pseudo": "x"}}),
            json!({"_id": "64a1b2c3d4e5f60718293d02", "point": ["A1"]}),
            json!({"point": "A1"}),
        ] {
            assert!(participation(&mauvais).is_err(), "{mauvais}");
        }
    }

    #[test]
    fn pages_verifiees() {
        let lire = |v: &Value| -> Result<String, String> { Ok(v["titre"].to_string()) };
        let page = |n: u64, max: u64, items: Vec<Value>, total: u64| {
            serde_json::to_vec(
                &json!({"_items": items, "_meta": {"max_results": max, "total": total, "page": n}}),
            )
            .unwrap()
        };
        let un = json!({"_id": ID, "titre": "a"});
        let (e, total) = lire_page(&page(2, 100, vec![un.clone()], 101), 2, &lire).unwrap();
        assert_eq!((e.len(), total), (1, 101));
        // La page ou la taille rendues ne sont pas celles demandées.
        assert!(lire_page(&page(1, 100, vec![], 0), 2, &lire).is_err());
        assert!(lire_page(&page(1, 20, vec![], 0), 1, &lire).is_err());
        // Plus d'éléments qu'une page n'en peut tenir.
        assert!(lire_page(&page(1, 100, vec![un.clone(); 101], 101), 1, &lire).is_err());
        // Sans _meta, ou un élément sans _id.
        assert!(lire_page(br#"{"_items": []}"#, 1, &lire).is_err());
        assert!(lire_page(&page(1, 100, vec![json!({"titre": "a"})], 1), 1, &lire).is_err());
    }

    /// Un identifiant distinct pour chaque `n`.
    fn id(n: u32) -> IdObjet {
        IdObjet::analyser(&format!("64a1b2c3d4e5f6071829{n:04x}")).unwrap()
    }

    /// Une page de ces éléments (de `de` à `a` exclu), annonçant `total`.
    fn page(de: u32, a: u32, total: u64) -> ReponseApi<PageLue<u32>> {
        ReponseApi::Succes(((de..a).map(|n| (id(n), n)).collect(), total))
    }

    /// Lit toutes les pages d'une suite de réponses préparée ; rend le résultat et les pages
    /// demandées, dans l'ordre.
    fn lire_script(script: Vec<ReponseApi<PageLue<u32>>>) -> (ReponseApi<Vec<u32>>, Vec<u64>) {
        let script = std::cell::RefCell::new(std::collections::VecDeque::from(script));
        let demandees = std::cell::RefCell::new(Vec::new());
        let r = futures_util::FutureExt::now_or_never(lire_toutes("participations", |n| {
            demandees.borrow_mut().push(n);
            let reponse = script.borrow_mut().pop_front().expect("page non prévue");
            async move { reponse }
        }))
        .expect("aucune attente");
        (r, demandees.into_inner())
    }

    #[test]
    fn toutes_les_pages_et_pas_une_de_plus() {
        let (r, pages) = lire_script(vec![
            page(0, 100, 250),
            page(100, 200, 250),
            page(200, 250, 250),
        ]);
        assert_eq!(r.succes().map(|v| v.len()), Some(250));
        assert_eq!(pages, [1, 2, 3]);
        // Un total multiple de 100 : la page suivante, vide, n'est pas demandée.
        let (r, pages) = lire_script(vec![page(0, 100, 200), page(100, 200, 200)]);
        assert_eq!(r.succes().map(|v| v.len()), Some(200));
        assert_eq!(pages, [1, 2]);
        let (r, pages) = lire_script(vec![page(0, 0, 0)]);
        assert_eq!(r.succes(), Some(vec![]));
        assert_eq!(pages, [1]);
    }

    #[test]
    fn une_liste_decalee_ou_qui_change_est_relue() {
        // Décalée entre deux pages (sans tri, une insertion) : un doublon, un élément manqué ;
        // relue, elle est entière et sans doublon.
        let (r, pages) = lire_script(vec![
            page(0, 100, 150),
            page(99, 149, 150),
            page(0, 100, 150),
            page(100, 150, 150),
        ]);
        let v = r.succes().expect("relue");
        assert_eq!(v, (0..150).collect::<Vec<_>>());
        assert_eq!(pages, [1, 2, 1, 2]);
        // Le total change d'une page à l'autre : relue aussitôt.
        let (r, pages) = lire_script(vec![
            page(0, 100, 150),
            page(100, 151, 151),
            page(0, 100, 151),
            page(100, 151, 151),
        ]);
        assert_eq!(r.succes().map(|v| v.len()), Some(151));
        assert_eq!(pages, [1, 2, 1, 2]);
        // Toujours changeante : illisible après trois lectures, avec la cause.
        let (r, pages) = lire_script(vec![
            page(0, 100, 150),
            page(100, 151, 151),
            page(0, 100, 152),
            page(100, 153, 153),
            page(0, 100, 154),
            page(100, 155, 155),
        ]);
        match r {
            ReponseApi::Illisible { detail, .. } => {
                assert!(detail.contains("a changé pendant la lecture"), "{detail}");
                assert!(detail.contains("154 puis 155"), "{detail}");
            }
            autre => panic!("{autre:?}"),
        }
        assert_eq!(pages.len(), 6);
    }

    #[test]
    fn un_echec_de_page_ou_un_total_demesure_est_rendu_tel_quel() {
        let refus = ReponseApi::Refuse {
            statut: 503,
            retry_after: None,
            detail: "indisponible".into(),
        };
        let (r, pages) = lire_script(vec![page(0, 100, 150), refus.clone()]);
        assert_eq!(r, refus.map(|_| Vec::new()));
        assert_eq!(pages, [1, 2]);
        let (r, _) = lire_script(vec![page(0, 100, 10_001)]);
        assert!(
            matches!(&r, ReponseApi::Illisible { detail, .. }
                if detail.contains("liste des participations : 10001 éléments annoncés")),
            "{r:?}"
        );
    }

    /// Une liste qui rend toujours la même page (`/moi/sites` à la pagination cassée) :
    /// illisible dès la deuxième page, qui répète la première ; ni relue trois fois, ni lue
    /// jusqu'à la borne de cent pages (2 100 pages avec les réessais).
    #[test]
    fn une_pagination_qui_ne_finit_pas_s_arrete_a_la_page_repetee() {
        let (r, pages) = lire_script(vec![page(0, 100, 5_000), page(0, 100, 5_000)]);
        match r {
            ReponseApi::Illisible { detail, .. } => {
                assert!(detail.contains("la page 2 répète la page 1"), "{detail}")
            }
            autre => panic!("{autre:?}"),
        }
        assert_eq!(pages, [1, 2]);
        // Des pages pleines sans fin, toujours neuves : chaque lecture bornée par le total
        // annoncé (deux pages pour 150), puis relue, trois fois au plus.
        let (r, pages) = lire_script(
            (0..3)
                .flat_map(|_| [page(0, 100, 150), page(100, 200, 150)])
                .collect(),
        );
        assert_eq!(pages, [1, 2, 1, 2, 1, 2]);
        assert!(
            matches!(&r, ReponseApi::Illisible { detail, .. } if detail.contains("200 lues pour 150")),
            "{r:?}"
        );
    }

    /// Contre la plateforme locale, qui imite le serveur route par route : plusieurs sites,
    /// plusieurs observateurs, 252 participations sur un site (trois pages).
    #[tokio::test(flavor = "multi_thread")]
    async fn contre_le_bac_a_sable() {
        use vigie_bac_a_sable::{
            BacASable, JETON, OBSERVATEUR, OBSERVATEUR_AUTRE, Operation, PARTICIPATION,
            PSEUDO_AUTRE, Panne, ParticipationPosee, Regle, SITE, SITE_REGIONAL,
        };
        let dossier = tempfile::tempdir().unwrap();
        let bac = BacASable::demarrer(dossier.path(), 0).await.unwrap();
        let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();

        let sites = client.mes_sites().await.succes().expect("sites");
        let lus: Vec<(&str, Option<&str>, Option<&str>)> = sites
            .iter()
            .map(|s| {
                (
                    s.titre.as_str(),
                    s.numero_grille.as_deref(),
                    s.type_site.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            lus,
            [
                (
                    "Vigiechiro - Point Fixe-640139",
                    Some("640139"),
                    Some("POINT_FIXE")
                ),
                (
                    "Vigiechiro - Point Fixe-640140",
                    Some("640140"),
                    Some("POINT_FIXE")
                ),
                (
                    "Vigiechiro - Pédestre-640139",
                    Some("640139"),
                    Some("CARRE")
                ),
                ("Vigiechiro - Routier-12", None, Some("ROUTIER")),
            ]
        );
        assert_eq!(sites[0].id.as_str(), SITE);

        let miennes = client
            .mes_participations()
            .await
            .succes()
            .expect("participations");
        let regionale = miennes
            .iter()
            .find(|p| p.site_id.as_ref().map(IdObjet::as_str) == Some(SITE_REGIONAL))
            .expect("participation sur le site régional");
        let site = regionale.site.as_ref().expect("site développé");
        assert_eq!(site.titre, "Vigiechiro - Point Fixe-750101");
        // Relations du site non développées dans cette liste : ni grille ni type.
        assert_eq!(
            (site.numero_grille.as_deref(), site.type_site.as_deref()),
            (None, None)
        );
        assert!(miennes.iter().all(|p| p.observateur.is_none()));

        for n in 0..250 {
            let observateur = if n == 7 {
                OBSERVATEUR_AUTRE
            } else {
                OBSERVATEUR
            };
            bac.poser_participation(&ParticipationPosee {
                site: SITE,
                observateur,
                point: Some("B2"),
                date_debut: &format!("2026-07-{:02}T19:30:00", 1 + n % 28),
                date_fin: None,
            })
            .unwrap();
        }
        let avant = bac.compteurs().requetes(Operation::ApiListerParticipations);
        let du_site = client
            .participations_du_site(&IdObjet::analyser(SITE).unwrap())
            .await
            .succes()
            .expect("participations du site");
        assert_eq!(du_site.len(), 251);
        assert_eq!(
            bac.compteurs().requetes(Operation::ApiListerParticipations) - avant,
            3,
            "trois pages de 100, pas une de plus"
        );
        assert!(du_site.iter().any(|p| p.id.as_str() == PARTICIPATION));
        let d_autrui: Vec<_> = du_site
            .iter()
            .filter(|p| p.observateur.as_ref().map(IdObjet::as_str) == Some(OBSERVATEUR_AUTRE))
            .collect();
        assert_eq!(d_autrui.len(), 1);
        assert_eq!(d_autrui[0].pseudo.as_deref(), Some(PSEUDO_AUTRE));
        assert_eq!(d_autrui[0].point.as_deref(), Some("B2"));

        // Une page refusée : le refus est rendu tel quel, à la politique de réessai de décider.
        bac.pannes().programmer(Regle::nieme(
            Operation::ApiListerParticipations,
            SITE,
            2,
            Panne::Statut {
                code: 503,
                retry_after: None,
            },
        ));
        let r = client
            .participations_du_site(&IdObjet::analyser(SITE).unwrap())
            .await;
        assert!(matches!(r, ReponseApi::Refuse { statut: 503, .. }), "{r:?}");
        bac.arreter().await;
    }

    /// `/moi/sites` qui rend toujours la même page (pagination cassée, `page-figee`), contre
    /// la plateforme locale, 150 sites : la lecture s'arrête à la deuxième page, qui répète la
    /// première. Deux requêtes, au lieu de trois lectures de cent pages.
    #[tokio::test(flavor = "multi_thread")]
    async fn moi_sites_qui_rend_toujours_la_meme_page_deux_requetes() {
        use vigie_bac_a_sable::{
            BacASable, JETON, NouveauSite, OBSERVATEUR, Operation, Panne, Regle,
        };
        let dossier = tempfile::tempdir().unwrap();
        let bac = BacASable::demarrer(dossier.path(), 0).await.unwrap();
        for i in 0..150 {
            bac.ajouter_site(&NouveauSite {
                type_site: "POINT_FIXE",
                numero: &format!("65{i:04}"),
                titre: None,
                observateur: OBSERVATEUR,
                points: &["A1"],
            })
            .unwrap();
        }
        bac.pannes().programmer(Regle::toujours(
            Some(Operation::ApiMesSites),
            Panne::PageFigee,
        ));
        let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();
        match client.mes_sites().await {
            ReponseApi::Illisible { detail, .. } => assert!(
                detail.contains("liste des sites : la page 2 répète la page 1"),
                "{detail}"
            ),
            autre => panic!("{autre:?}"),
        }
        assert_eq!(bac.compteurs().requetes(Operation::ApiMesSites), 2);
        bac.arreter().await;
    }
}
