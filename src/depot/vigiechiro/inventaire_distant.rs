//! L'inventaire distant : ce que la plateforme a déjà d'une participation, lu au début de
//! chaque passage.
//!
//! Une lecture paginée de `GET /participations/{id}/pieces_jointes` (100 fichiers par page, le
//! plus que le serveur permet : `xin/snippets.py` `Paginator`), 40 requêtes pour une nuit de
//! 4 000 séquences. Quand la nuit ne contient que des familles que le serveur sait filtrer
//! (`wav`, `ta`, `tc` : `get_pieces_jointes`), on ne demande qu'elles : une participation déjà
//! traitée porte aussi les sorties du calcul, qui tripleraient la lecture. Une archive n'a pas
//! de famille : avec elle, on lit tout.
//!
//! Chaque fichier de la liste est rangé par son titre, la clé par laquelle la plateforme
//! retrouve un fichier dans une participation. Le serveur ne trie pas (ordre d'insertion
//! MongoDB) : un fichier déclaré pendant la lecture peut décaler les pages. Ce n'est pas grave,
//! l'inventaire n'est qu'un raccourci : un fichier qu'il aurait manqué est déclaré, et la
//! déclaration dit (par un `409`) ce qu'il n'a pas vu.

use std::collections::HashMap;

use crate::destination::IdObjet;
use crate::reessai::{RaisonArret, ReponseApi};
use crate::transport::en_clair::refus_serveur;
use crate::transport::vigiechiro::{ClientVigieChiro, PAR_PAGE, Pagination, PieceJointe, Suite};
use crate::transport::{ContexteEmission, Emission, emettre};

/// Au-delà de tant de pages, la liste est tenue pour sans fin (un serveur qui rendrait
/// toujours des pages pleines) : 100 000 fichiers, bien au-delà d'une participation (4 000
/// séquences, et autant de sorties Tadarida de chaque sorte après le calcul).
const PAGES_MAX: u64 = 1_000;

/// La liste des fichiers d'une participation n'a pas pu être lue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListeIllisible {
    pub(crate) detail: String,
    /// La plateforme refuse de la donner (4xx : `_check_read_access` de
    /// `resources/participations.py` rend 403 pour la participation d'un autre observateur) :
    /// la relire plus tard n'y changera rien.
    pub(crate) refus_definitif: bool,
}

impl std::fmt::Display for ListeIllisible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// Ce que la plateforme a déjà d'une participation, par titre.
#[derive(Debug, Clone, Default)]
pub(crate) struct InventaireDistant {
    par_titre: HashMap<String, PieceJointe>,
    /// Requêtes (pages) qu'a coûtées la lecture.
    pub(crate) pages: u32,
}

/// L'état d'un fichier sur la plateforme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EtatDistant<'a> {
    /// Finalisé (`disponible`) : la plateforme refuse de le redéclarer ou de le remplacer.
    Finalise(&'a PieceJointe),
    /// Déclaré, pas finalisé : un envoi interrompu, par `vigie` ou par le site web.
    NonFinalise(&'a PieceJointe),
    Absent,
}

impl InventaireDistant {
    /// Range les fichiers par titre. Deux fichiers de même titre (la clé S3 recopie
    /// l'identifiant de participation tel que l'a écrit le client qui l'a déclaré) : celui de
    /// la clé que `vigie` écrit l'emporte.
    pub(crate) fn depuis(participation: &IdObjet, pieces: Vec<PieceJointe>, pages: u32) -> Self {
        let mut par_titre: HashMap<String, PieceJointe> = HashMap::with_capacity(pieces.len());
        let sienne = |p: &PieceJointe| {
            p.s3_id
                .as_deref()
                .is_some_and(|k| k.ends_with(&format!("/pa-{participation}/{}", p.titre)))
        };
        for p in pieces {
            match par_titre.get(&p.titre) {
                Some(deja) if sienne(deja) || !sienne(&p) => {}
                _ => {
                    par_titre.insert(p.titre.clone(), p);
                }
            }
        }
        InventaireDistant { par_titre, pages }
    }

    /// L'état du fichier de ce titre.
    pub(crate) fn etat(&self, titre: &str) -> EtatDistant<'_> {
        match self.par_titre.get(titre) {
            Some(p) if p.disponible => EtatDistant::Finalise(p),
            Some(p) => EtatDistant::NonFinalise(p),
            None => EtatDistant::Absent,
        }
    }

    /// Le nombre de fichiers distincts que la plateforme a de la participation (dans les
    /// familles lues).
    pub(crate) fn len(&self) -> usize {
        self.par_titre.len()
    }
}

/// La famille de `get_pieces_jointes` (son paramètre de filtre) d'un type MIME, si le serveur
/// en a une (`resources/fichiers.py` `ALLOWED_MIMES_WAV`, `_TA`, `_TC`).
fn famille(mime: &str) -> Option<&'static str> {
    match mime {
        "audio/wav" | "audio/x-wav" => Some("wav"),
        "application/ta" | "application/tac" => Some("ta"),
        "application/tc" | "application/tcc" => Some("tc"),
        _ => None,
    }
}

/// Les familles à demander pour une nuit dont les fichiers ont ces types : celles qui y
/// figurent, ou aucune (tout lire) si l'un d'eux n'en a pas (une archive).
pub(crate) fn familles_a_lire<'a>(mimes: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let mut familles: Vec<&'static str> = Vec::new();
    for mime in mimes {
        match famille(mime) {
            None => return Vec::new(),
            Some(f) if !familles.contains(&f) => familles.push(f),
            Some(_) => {}
        }
    }
    familles.sort_unstable();
    familles
}

/// Lit la liste des fichiers de la participation, page après page, chaque page sous la
/// politique de réessai. Rend l'inventaire, ou pourquoi il n'a pas pu être lu (le dépôt se
/// passe alors de lui : chaque fichier est déclaré).
pub(crate) async fn lire(
    lecteur: &dyn ContexteEmission,
    client: &ClientVigieChiro,
    participation: &IdObjet,
    familles: &[&str],
) -> Result<InventaireDistant, ListeIllisible> {
    let chemin = format!("/participations/{participation}/pieces_jointes");
    let mut pieces = Vec::new();
    let mut pagination = Pagination::nouveau(PAR_PAGE, PAGES_MAX);
    let mut page = 1;
    loop {
        let issue = emettre(lecteur, Emission::lecture("GET", &chemin), |_| {
            client.pieces_jointes(participation, page, PAR_PAGE, familles)
        })
        .await;
        let lue = match issue.reponse {
            ReponseApi::Succes(p) => p,
            autre => {
                let statut = autre
                    .statut()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                let detail = autre.detail().unwrap_or_default();
                let detail = match autre.statut() {
                    Some(s) => refus_serveur(s, detail),
                    None => detail.into(),
                };
                return Err(ListeIllisible {
                    detail: format!(
                        "liste des fichiers de la participation illisible{statut} : {detail}"
                    ),
                    refus_definitif: issue.raison == RaisonArret::RefusDefinitif,
                });
            }
        };
        let suite = pagination.noter(lue.items.iter().map(|p| &p.id), lue.total());
        pieces.extend(lue.items);
        match suite {
            Ok(Suite::Page(suivante)) => page = suivante,
            Ok(Suite::Finie) => {
                let pages = u32::try_from(page).unwrap_or(u32::MAX);
                return Ok(InventaireDistant::depuis(participation, pieces, pages));
            }
            Err(detail) => {
                return Err(ListeIllisible {
                    detail: format!("liste des fichiers de la participation illisible : {detail}"),
                    refus_definitif: false,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// La liste des fichiers d'une participation qui rend toujours la même page (150 fichiers,
    /// `page-figee`), contre la plateforme locale : illisible à la deuxième page, qui répète
    /// la première, sans lire les 1 000 pages de la borne ; le dépôt se passe alors d'elle.
    #[tokio::test(flavor = "multi_thread")]
    async fn une_liste_qui_rend_toujours_la_meme_page_est_illisible_a_la_deuxieme() {
        use crate::reessai::{Annulation, Reglages};
        use crate::transport::{Emetteur, ReglagesEmission};
        use std::time::Duration;
        use vigie_bac_a_sable::{BacASable, JETON, Operation, PARTICIPATION, Panne, Regle};
        let dossier = tempfile::tempdir().unwrap();
        let bac = BacASable::demarrer(dossier.path(), 0).await.unwrap();
        for i in 0..150 {
            let titre = format!("Car640139-2026-Pass1-A1-PA1_20260621_22{i:04}_000.wav");
            bac.poser_fichier_finalise(PARTICIPATION, &titre, vec![1; 10])
                .await
                .unwrap();
        }
        bac.pannes().programmer(Regle::toujours(
            Some(Operation::ApiPiecesJointes),
            Panne::PageFigee,
        ));
        let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();
        let emetteur = Emetteur::nouveau(
            ReglagesEmission {
                insistant: Reglages::insistant().valider().unwrap(),
                bref: Reglages::bref().valider().unwrap(),
                delai_tentative: Duration::from_secs(30),
                delai_blocage: Duration::from_secs(30),
                pause: None,
            },
            Annulation::nouveau(),
        );
        let participation = IdObjet::analyser(PARTICIPATION).unwrap();
        let e = lire(&emetteur, &client, &participation, &["wav"])
            .await
            .unwrap_err();
        assert!(e.detail.contains("la page 2 répète la page 1"), "{e}");
        assert_eq!(bac.compteurs().requetes(Operation::ApiPiecesJointes), 2);
        bac.arreter().await;
    }

    fn id(n: u8) -> IdObjet {
        IdObjet::analyser(&format!("64a1b2c3d4e5f60718293e{n:02x}")).unwrap()
    }

    fn piece(n: u8, titre: &str, s3_id: &str, disponible: bool) -> PieceJointe {
        PieceJointe {
            id: id(n),
            titre: titre.to_owned(),
            s3_id: Some(s3_id.to_owned()),
            disponible,
            s3_upload_multipart_id: None,
        }
    }

    #[test]
    fn familles_de_la_nuit() {
        assert_eq!(familles_a_lire(["audio/wav", "audio/wav"]), ["wav"]);
        assert_eq!(
            familles_a_lire(["application/tc", "audio/wav", "application/tac"]),
            ["ta", "tc", "wav"]
        );
        // Une archive n'a pas de famille : tout lire.
        assert!(familles_a_lire(["audio/wav", "application/zip"]).is_empty());
        assert!(familles_a_lire([]).is_empty());
    }

    #[test]
    fn etat_de_chaque_fichier_par_son_titre() {
        let p = IdObjet::analyser("64a1b2c3d4e5f60718293d01").unwrap();
        let inv = InventaireDistant::depuis(
            &p,
            vec![
                piece(1, "a.wav", "wav/pa-64a1b2c3d4e5f60718293d01/a.wav", true),
                piece(2, "b.wav", "wav/pa-64a1b2c3d4e5f60718293d01/b.wav", false),
                // Même titre, clé écrite en majuscules par un autre client : la nôtre l'emporte,
                // qu'elle vienne avant ou après.
                piece(3, "b.wav", "wav/pa-64A1B2C3D4E5F60718293D01/b.wav", true),
                piece(4, "c.wav", "wav/pa-64A1B2C3D4E5F60718293D01/c.wav", true),
                piece(5, "c.wav", "wav/pa-64a1b2c3d4e5f60718293d01/c.wav", false),
            ],
            1,
        );
        assert!(matches!(inv.etat("a.wav"), EtatDistant::Finalise(x) if x.id == id(1)));
        assert!(matches!(inv.etat("b.wav"), EtatDistant::NonFinalise(x) if x.id == id(2)));
        assert!(matches!(inv.etat("c.wav"), EtatDistant::NonFinalise(x) if x.id == id(5)));
        assert_eq!(inv.etat("d.wav"), EtatDistant::Absent);
        assert_eq!(inv.len(), 3);
    }
}
