//! Les résultats d'un calcul : le CSV des observations et le journal du calcul, trouvés sur la
//! plateforme, téléchargés et écrits sans jamais laisser un fichier à moitié écrit.
//!
//! Le chemin, tel que le serveur le sert :
//! - le CSV est un fichier de la participation, de type `application/x-processing-extra`,
//!   nommé `participation-<id>-observations.csv` (`scripts/task_observations_csv.py`
//!   `generate_csv_name`, `upload_observations_csv`) ; il est listé par
//!   `GET /participations/{id}/pieces_jointes?processing_extra=true` (paginé). Il n'existe
//!   qu'après un calcul fini, et seulement si la plateforme le produit d'elle-même
//!   (`TASK_PARTICIPATION_GENERATE_OBSERVATION_CSV`) ou qu'on le lui a demandé
//!   (`POST …/csv`) ; un nouveau calcul l'efface dès qu'il commence (`reset_pjs_state`) ;
//! - le journal est le fichier que désigne `logs` (`participation-<id>-logs`, du texte) ;
//! - `GET /fichiers/{id}/acces` rend une URL signée de lecture (410 tant qu'il n'est pas
//!   disponible), lue en flux vers un fichier provisoire du dossier de sortie (créé
//!   exclusivement, sous un nom imprévisible), taille vérifiée, puis renommé : le fichier final
//!   est entier, ou n'est pas, et aucun lien n'est jamais suivi.
//!
//! Un nom venu du serveur ne devient jamais un chemin tel quel ([`nom_sur`]).

use std::path::{Path, PathBuf};

use super::{EtatCalcul, EtatParticipation, Releve};
use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::plan::{Base, CsvNote, NuitPlanifiee};
use crate::plateforme::ecriture::{Droits, Provisoire};
use crate::reessai::{Issue, RaisonArret, ReponseApi};
use crate::sortie::CodeSortie;
use crate::traitement::cible::{Cible, noter};
use crate::transport::vigiechiro::{
    AccesFichier, ClientVigieChiro, PAR_PAGE, Pagination, PieceJointe, Suite,
};
use crate::transport::{Emetteur, Emission, emettre};

/// Au-delà, un résultat n'est pas téléchargé : le CSV d'une nuit de 4 000 séquences pèse
/// quelques Mio.
pub(crate) const TAILLE_MAX: u64 = 1 << 30;
/// Pages lues au plus (10 000 fichiers de calcul).
const PAGES_MAX: u64 = 100;

/// Le nom du CSV des observations de la participation (`generate_csv_name`).
pub(crate) fn nom_du_csv(participation: &IdObjet) -> String {
    format!("participation-{participation}-observations.csv")
}

/// Les noms des résultats d'une nuit de saison, son CSV des observations et le journal de son
/// calcul : `2026-06-21_A1_Pass1_Car640380-observations.csv`, `…-journal.txt` (routier :
/// `2026_Cir270_Pass1-…`). Triés par nom, ils se rangent par date ; on sait lequel est A1 ou
/// B2 sans ouvrir le fichier.
pub(crate) fn noms_de_nuit(n: &NuitPlanifiee) -> (String, String) {
    let l = &n.nuit;
    let prefixe = if l.soiree.is_empty() {
        format!("{}_Cir{}_Pass{}", n.annee, l.numero_site, l.passage)
    } else {
        format!(
            "{}_{}_Pass{}_Car{}",
            l.soiree, l.point, l.passage, l.numero_site
        )
    };
    // Ce que la base garde vient des noms déjà validés ; passé au même filtre qu'un nom venu du
    // serveur quand même.
    let sur = |suffixe: &str| {
        let nom = format!("{prefixe}-{suffixe}");
        nom_sur(&nom).unwrap_or(nom)
    };
    (sur("observations.csv"), sur("journal.txt"))
}

/// Un nom de fichier venu du serveur, rendu sûr pour le disque : sans dossier (seul ce qui suit
/// le dernier `/` ou `\`), sans caractère de contrôle ni marque de direction, sans caractère
/// interdit sous Windows (`<>:"|?*`, remplacés par `_`), sans point ni espace au début ou à la
/// fin, ni nom réservé de Windows (`CON`, `NUL`, `COM1`…), 200 caractères au plus. `None` s'il
/// ne reste rien.
pub(crate) fn nom_sur(titre: &str) -> Option<String> {
    let dernier = titre.rsplit(['/', '\\']).next().unwrap_or("");
    let propre: String = dernier
        .chars()
        .filter(|c| {
            !c.is_control()
                && !matches!(
                    c,
                    '\u{200e}'
                        | '\u{200f}'
                        | '\u{061c}'
                        | '\u{202a}'..='\u{202e}'
                        | '\u{2066}'..='\u{2069}'
                )
        })
        .map(|c| {
            if matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .take(200)
        .collect();
    let propre = propre.trim_matches(|c: char| c == '.' || c.is_whitespace());
    if propre.is_empty() {
        return None;
    }
    let racine = propre
        .split('.')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_uppercase();
    let reserve = matches!(racine.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((racine.starts_with("COM") || racine.starts_with("LPT"))
            && racine.len() == 4
            && racine.as_bytes()[3].is_ascii_digit());
    Some(if reserve {
        format!("_{propre}")
    } else {
        propre.to_owned()
    })
}

/// Ce qu'une recherche ou un téléchargement n'a pas pu faire.
#[derive(Debug)]
pub(crate) enum Echec {
    /// La plateforme ou le réseau n'a pas répondu utilement (après les réessais).
    Plateforme(ReponseApi<()>),
    /// Le stockage, derrière l'URL signée de lecture, a refusé ou n'a pas répondu utilement :
    /// une nouvelle commande demandera une nouvelle URL.
    Stockage(ReponseApi<()>),
    /// Le disque : le dossier de sortie, l'écriture, le renommage.
    Local(String),
}

fn sans_valeur<T>(r: ReponseApi<T>) -> ReponseApi<()> {
    r.map(|_| ())
}

fn succes<T>(issue: Issue<T>) -> Result<T, Echec> {
    match issue.reponse {
        ReponseApi::Succes(v) => Ok(v),
        autre => Err(Echec::Plateforme(sans_valeur(autre))),
    }
}

/// Le CSV des observations de la participation, s'il est sur la plateforme et disponible (le
/// plus récent, s'il y en avait deux).
pub(crate) async fn trouver_csv(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    participation: &IdObjet,
) -> Result<Option<PieceJointe>, Echec> {
    let nom = nom_du_csv(participation);
    let cible = format!("/participations/{participation}/pieces_jointes");
    let mut trouve = None;
    let mut pagination = Pagination::nouveau(PAR_PAGE, PAGES_MAX);
    let mut page = 1;
    loop {
        let p = succes(
            emettre(emetteur, Emission::lecture("GET", &cible), |_| {
                client.pieces_jointes(participation, page, PAR_PAGE, &["processing_extra"])
            })
            .await,
        )?;
        let suite = pagination.noter(p.items.iter().map(|f| &f.id), p.total());
        if let Some(f) = p
            .items
            .into_iter()
            .rev()
            .find(|f| f.titre == nom && f.disponible)
        {
            trouve = Some(f);
        }
        match suite {
            Ok(Suite::Page(suivante)) => page = suivante,
            Ok(Suite::Finie) => return Ok(trouve),
            Err(detail) => {
                return Err(Echec::Plateforme(ReponseApi::Illisible {
                    statut: 200,
                    detail: format!("liste des fichiers de la participation : {detail}"),
                }));
            }
        }
    }
}

/// Un fichier téléchargé.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Telecharge {
    pub(crate) chemin: PathBuf,
    pub(crate) octets: u64,
}

/// Télécharge le fichier `id` de la plateforme dans `dossier` sous le nom `nom` (déjà sûr) :
/// URL de lecture, GET en flux vers un fichier provisoire du même dossier (créé exclusivement,
/// sous un nom imprévisible : `plateforme::ecriture`), taille vérifiée, puis renommage (un
/// fichier, ou un lien, de ce nom est remplacé ; un lien n'est jamais suivi). `Ok(None)` : la plateforme ne l'a pas
/// (ou plus) disponible.
pub(crate) async fn telecharger(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    id: &IdObjet,
    dossier: &Path,
    nom: &str,
) -> Result<Option<Telecharge>, Echec> {
    let acces = succes(
        emettre(
            emetteur,
            Emission::lecture("GET", &format!("/fichiers/{id}/acces")),
            |_| client.url_de_lecture(id),
        )
        .await,
    )?;
    let url = match acces {
        AccesFichier::Url(u) => u,
        AccesFichier::NonDisponible | AccesFichier::Inconnu => return Ok(None),
    };
    client.verifier_url_signee(&url).map_err(|e| {
        Echec::Plateforme(ReponseApi::Illisible {
            statut: 200,
            detail: e,
        })
    })?;
    // Des résultats à lire, à partager : les droits ordinaires (umask), pas ceux de la base.
    std::fs::create_dir_all(dossier).map_err(|e| {
        Echec::Local(format!(
            "dossier {} : {}",
            dossier.display(),
            crate::plateforme::erreur_systeme(&e)
        ))
    })?;
    let final_ = dossier.join(nom);
    let local = |e: std::io::Error| {
        Echec::Local(format!(
            "{} : {}",
            final_.display(),
            crate::plateforme::erreur_systeme(&e)
        ))
    };
    // Abandonné sur tout chemin d'erreur, le provisoire s'efface de lui-même.
    let provisoire = Provisoire::a_cote_de(&final_, Droits::Ordinaires).map_err(local)?;
    let issue = emettre(
        emetteur,
        Emission::lecture("GET", "GET (URL signée de lecture)"),
        |_| client.telecharger(&url, provisoire.fichier(), TAILLE_MAX),
    )
    .await;
    let octets = match issue.reponse {
        ReponseApi::Succes(Some(n)) => n,
        ReponseApi::Succes(None) => return Ok(None),
        ReponseApi::Refuse {
            statut: 0, detail, ..
        } => return Err(Echec::Local(format!("{} : {detail}", final_.display()))),
        autre => return Err(Echec::Stockage(sans_valeur(autre))),
    };
    provisoire.remplacer().map_err(local)?;
    Ok(Some(Telecharge {
        chemin: final_,
        octets,
    }))
}

/// Ce qu'a donné `POST …/csv`.
#[derive(Debug)]
pub(crate) enum DemandeCsv {
    /// La plateforme produit le CSV et l'envoie par courriel.
    Demandee,
    /// Ctrl-C avant que la demande parte.
    Interrompue,
    /// 401.
    JetonRefuse,
    /// Sans réponse : elle a pu aboutir.
    Incertaine,
    /// Refus définitif (ce que la plateforme a dit).
    Refusee(String),
    /// La plateforme ou le réseau n'a pas répondu utilement (ce qui s'est passé).
    Echouee(String),
}

/// `--demander-csv` : `POST …/csv`, une seule émission (chaque émission est un courriel).
pub(crate) async fn demander_csv(
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    participation: &IdObjet,
) -> DemandeCsv {
    let chemin = format!("/participations/{participation}/csv");
    let issue = emettre(emetteur, Emission::ecriture_unique("POST", &chemin), |_| {
        client.demander_csv(participation)
    })
    .await;
    match (&issue.reponse, issue.raison) {
        (ReponseApi::Succes(()), _) => DemandeCsv::Demandee,
        (_, RaisonArret::Annule) => DemandeCsv::Interrompue,
        (ReponseApi::Refuse { statut: 401, .. }, _) => DemandeCsv::JetonRefuse,
        (_, RaisonArret::IssueInconnue) => DemandeCsv::Incertaine,
        (r @ ReponseApi::Refuse { .. }, RaisonArret::RefusDefinitif) => {
            DemandeCsv::Refusee(pas_de_reponse_utile(r))
        }
        (autre, _) => DemandeCsv::Echouee(pas_de_reponse_utile(autre)),
    }
}

/// Le CSV `fichier` (son identifiant sur la plateforme) de la nuit, s'il a déjà été téléchargé
/// dans `dossier` et que le fichier écrit est encore là, de la même taille : rien à
/// retélécharger. Un nouveau calcul, ou une nouvelle demande, fait un autre fichier.
pub(crate) fn deja_telecharge(
    base: Option<&Base>,
    cible: &Cible,
    dossier: &Path,
    fichier: &str,
) -> Option<Telecharge> {
    let note = base?.csv_note(cible.plan?).ok()??;
    let n = cible.nuit.as_ref()?;
    let attendu = std::path::absolute(dossier.join(noms_de_nuit(&n.nuit).0)).ok()?;
    let ecrit = PathBuf::from(&note.chemin);
    let meme = note.fichier == fichier
        && ecrit == attendu
        && std::fs::metadata(&ecrit).is_ok_and(|m| m.is_file() && m.len() == note.octets);
    meme.then_some(Telecharge {
        chemin: ecrit,
        octets: note.octets,
    })
}

/// Note dans la base le CSV téléchargé de la nuit (pour ne pas le retélécharger).
fn noter_csv(base: Option<&Base>, cible: &Cible, fichier: &str, t: &Telecharge) {
    let (Some(base), Some(plan), Some(_)) = (base, cible.plan, &cible.nuit) else {
        return;
    };
    let chemin = std::path::absolute(&t.chemin).unwrap_or_else(|_| t.chemin.clone());
    let note = CsvNote {
        fichier: fichier.to_owned(),
        chemin: chemin.display().to_string(),
        octets: t.octets,
    };
    if let Err(e) = base.noter_csv(plan, &note) {
        tracing::warn!("CSV téléchargé non noté dans la base : {e}");
    }
}

/// Le CSV `f` de la nuit `cible` dans `dossier` : celui déjà téléchargé s'il n'a pas changé
/// ([`deja_telecharge`]), sinon téléchargé et noté dans la base ; `None` si la plateforme ne
/// l'a plus. Le booléen : téléchargé cette fois.
pub(crate) async fn telecharger_csv(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    base: Option<&Base>,
    cible: &Cible,
    f: &PieceJointe,
    dossier: &Path,
) -> Result<Option<(Telecharge, bool)>, Echec> {
    if let Some(t) = deja_telecharge(base, cible, dossier, &f.id.to_string()) {
        return Ok(Some((t, false)));
    }
    let nom = match &cible.nuit {
        Some(n) => noms_de_nuit(&n.nuit).0,
        None => nom_sur(&f.titre).unwrap_or_else(|| nom_du_csv(&cible.participation)),
    };
    let ecrit = telecharger(client, emetteur, &f.id, dossier, &nom).await?;
    Ok(ecrit.map(|t| {
        noter_csv(base, cible, &f.id.to_string(), &t);
        (t, true)
    }))
}

/// Le dossier des résultats : `sortie` (`--sortie`) ; sinon, pour des nuits de saison,
/// `resultats-vigie-chiro-ANNÉE` (absolu) dans le dossier courant, l'année de la première nuit
/// visée (rendue : elle se dit) ; sinon le dossier courant.
pub(crate) fn dossier_des_resultats(
    sortie: Option<&Path>,
    cibles: &[Cible],
) -> (PathBuf, Option<u16>) {
    if let Some(d) = sortie {
        return (d.to_path_buf(), None);
    }
    let Some(annee) = cibles
        .iter()
        .find_map(|c| c.nuit.as_ref().map(|n| n.nuit.annee))
    else {
        return (PathBuf::from("."), None);
    };
    let dossier = PathBuf::from(format!("resultats-vigie-chiro-{annee}"));
    let absolu = std::path::absolute(&dossier).unwrap_or(dossier);
    (absolu, Some(annee))
}

/// L'état du calcul d'une nuit, lu par `vigie resultats` : relevé (et noté dans la base), ou
/// `None` si le relevé a manqué, ce qui n'arrête rien ; et l'instant du relevé.
#[derive(Debug)]
pub(crate) struct CalculLu {
    pub(crate) etat: Option<EtatParticipation>,
    pub(crate) instant: InstantUtc,
}

impl CalculLu {
    /// L'état du calcul de la nuit `cible`, noté dans la base s'il est relevé.
    pub(crate) async fn relever(
        client: &ClientVigieChiro,
        emetteur: &Emetteur,
        base: Option<&Base>,
        cible: &Cible,
    ) -> anyhow::Result<CalculLu> {
        let etat = match super::relever(client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => {
                noter(base, cible, &e);
                Some(*e)
            }
            Releve::Manque(pourquoi) => {
                tracing::info!("état du calcul non relevé : {pourquoi}");
                None
            }
        };
        let instant = super::maintenant();
        Ok(CalculLu { etat, instant })
    }

    /// Le calcul relevé est-il fini ?
    pub(crate) fn fini(&self) -> bool {
        self.etat
            .as_ref()
            .and_then(|e| e.traitement.as_ref())
            .is_some_and(|t| t.etat == EtatCalcul::Fini)
    }

    /// Un calcul est là, pas (encore) fini : le CSV trouvé vient d'un calcul précédent.
    pub(crate) fn pas_fini(&self) -> bool {
        !self.fini() && self.etat.as_ref().is_some_and(|e| e.traitement.is_some())
    }
}

/// Ce que `--demander-csv` fait pour une nuit.
#[derive(Debug)]
pub(crate) enum DemandeDuCsv {
    /// Le CSV est sur la plateforme, déjà téléchargé, inchangé : rien n'est demandé.
    DejaTelecharge,
    /// Le CSV est sur la plateforme : rien n'est demandé.
    DejaLa,
    /// Le calcul relevé n'est pas fini : rien n'est demandé.
    PasCalculee,
    /// La demande, et ce qu'elle a donné.
    Faite(DemandeCsv),
}

/// `--demander-csv` pour la nuit `cible` : la demande ([`demander_csv`]) seulement si le CSV
/// `csv` manque à un calcul fini (ou dont l'état n'a pas été relevé).
async fn demander_s_il_manque(
    (emetteur, client): (&Emetteur, &ClientVigieChiro),
    (base, dossier): (Option<&Base>, &Path),
    cible: &Cible,
    csv: Option<&PieceJointe>,
    lu: &CalculLu,
) -> DemandeDuCsv {
    match (csv, &lu.etat) {
        (Some(f), _) if deja_telecharge(base, cible, dossier, &f.id.to_string()).is_some() => {
            DemandeDuCsv::DejaTelecharge
        }
        (Some(_), _) => DemandeDuCsv::DejaLa,
        (None, Some(_)) if !lu.fini() => DemandeDuCsv::PasCalculee,
        (None, _) => {
            DemandeDuCsv::Faite(demander_csv(emetteur, client, &cible.participation).await)
        }
    }
}

/// Ce que `--avec-journal` a trouvé.
#[derive(Debug)]
pub(crate) enum Journal {
    /// Aucun journal désigné : il n'existe qu'après un calcul réussi.
    Aucun,
    /// Désigné, mais pas disponible sur la plateforme.
    Indisponible,
    /// Écrit dans le dossier des résultats.
    Ecrit(Telecharge),
}

/// `--avec-journal` : le journal du dernier calcul réussi de la nuit `cible` (d'après son état
/// relevé `etat`), téléchargé dans `dossier`, nommé par la nuit.
async fn telecharger_journal(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    cible: &Cible,
    etat: Option<&EtatParticipation>,
    dossier: &Path,
) -> Result<Journal, Echec> {
    let Some(id) = etat.and_then(|e| e.logs.as_ref()) else {
        return Ok(Journal::Aucun);
    };
    let nom = match &cible.nuit {
        Some(n) => noms_de_nuit(&n.nuit).1,
        None => format!("participation-{}-logs.txt", cible.participation),
    };
    Ok(
        match telecharger(client, emetteur, id, dossier, &nom).await? {
            Some(t) => Journal::Ecrit(t),
            None => Journal::Indisponible,
        },
    )
}

/// Ce que `vigie resultats` dit d'une nuit, à mesure (`suivi/calcul.rs` l'implémente).
pub(crate) trait VueResultats {
    /// Le CSV n'a pas pu être cherché ou téléchargé (`manque`) : l'erreur de la nuit.
    fn csv_manque(&self, cible: &Cible, manque: &str, e: Echec) -> anyhow::Error;
    /// Ce que `--demander-csv` a fait.
    fn demande(
        &mut self,
        cible: &Cible,
        d: DemandeDuCsv,
        lu: &CalculLu,
    ) -> anyhow::Result<CodeSortie>;
    /// Le CSV écrit (ou déjà là : le booléen faux), ou pourquoi il n'y en a pas.
    fn csv(
        &mut self,
        cible: &Cible,
        ecrit: Option<(Telecharge, bool)>,
        lu: &CalculLu,
    ) -> anyhow::Result<CodeSortie>;
    /// Le journal du calcul de `--avec-journal`.
    fn journal(&mut self, cible: &Cible, j: Result<Journal, Echec>) -> anyhow::Result<CodeSortie>;
}

/// Ce que `vigie resultats` veut de chaque nuit, et où l'écrire.
pub(crate) struct Voulus<'a> {
    /// `--demander-csv` (et rien d'autre).
    pub(crate) demander_csv: bool,
    /// `--avec-journal`.
    pub(crate) avec_journal: bool,
    /// La base, pour y noter l'état relevé et le CSV téléchargé.
    pub(crate) base: Option<&'a Base>,
    /// Le dossier des résultats ([`dossier_des_resultats`]).
    pub(crate) dossier: &'a Path,
}

/// Une nuit de `vigie resultats` : son état relevé (noté), son CSV cherché, puis demandé
/// ([`demander_s_il_manque`]), ou téléchargé ([`telecharger_csv`]) ; son journal sur demande ;
/// dits par `vue`.
pub(crate) async fn une_nuit(
    (client, emetteur): (&ClientVigieChiro, &Emetteur),
    cible: &Cible,
    v: &Voulus<'_>,
    vue: &mut impl VueResultats,
) -> anyhow::Result<CodeSortie> {
    let lu = CalculLu::relever(client, emetteur, v.base, cible).await?;
    let csv = trouver_csv(client, emetteur, &cible.participation)
        .await
        .map_err(|e| vue.csv_manque(cible, "n'a pas pu être cherché", e))?;
    if v.demander_csv {
        let (quoi, ou) = ((emetteur, client), (v.base, v.dossier));
        let d = demander_s_il_manque(quoi, ou, cible, csv.as_ref(), &lu).await;
        return vue.demande(cible, d, &lu);
    }
    let ecrit = match csv {
        Some(f) => telecharger_csv(client, emetteur, v.base, cible, &f, v.dossier)
            .await
            .map_err(|e| vue.csv_manque(cible, "n'a pas été téléchargé", e))?,
        None => None,
    };
    let mut code = vue.csv(cible, ecrit, &lu)?;
    if v.avec_journal {
        let j = telecharger_journal(client, emetteur, cible, lu.etat.as_ref(), v.dossier).await;
        code = code.max_par_gravite(vue.journal(cible, j)?);
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Un émetteur aux réglages de `vigie resultats` (ceux des commandes ponctuelles).
    fn emetteur_de_resultats() -> Emetteur {
        use crate::reessai::{Annulation, Reglages};
        use crate::transport::ReglagesEmission;
        Emetteur::nouveau(
            ReglagesEmission {
                insistant: Reglages::insistant()
                    .avec_echeance(Duration::from_secs(120))
                    .valider()
                    .unwrap(),
                bref: Reglages::bref().valider().unwrap(),
                delai_tentative: Duration::from_secs(90),
                delai_blocage: Duration::from_secs(30),
                pause: None,
            },
            Annulation::nouveau(),
        )
    }

    /// Un CSV de 4 Mo que le stockage sert à 300 Kio/s (13 s) est téléchargé entier, en une
    /// seule lecture, aux réglages de `vigie resultats` (délai de tentative 90 s). Le guet du
    /// silence voit chaque morceau qui arrive : sans cela, la lecture était coupée dix
    /// secondes après ses en-têtes (« aucune réponse du serveur 10 s après l'envoi »), à
    /// chaque tentative, et le CSV n'arrivait jamais. Contre le bac à sable, sur l'horloge en
    /// pause : les 13 s ne s'attendent pas.
    #[tokio::test(start_paused = true)]
    async fn un_csv_de_4_mo_servi_a_300_kio_s_arrive_entier() {
        use vigie_bac_a_sable::{BacASable, JETON, Operation, PARTICIPATION, Panne, Regle};

        let dossier = tempfile::tempdir().unwrap();
        let bac = BacASable::demarrer(&dossier.path().join("bac"), 0)
            .await
            .unwrap();
        let csv: Vec<u8> = (0..4_000_000u32).map(|i| (i % 251) as u8).collect();
        bac.poser_csv(PARTICIPATION, csv.clone()).await.unwrap();
        bac.pannes().programmer(Regle::toujours(
            Some(Operation::GetObject),
            Panne::Debit(300 * 1024),
        ));
        let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();
        let emetteur = emetteur_de_resultats();
        let participation = IdObjet::analyser(PARTICIPATION).unwrap();
        let f = trouver_csv(&client, &emetteur, &participation)
            .await
            .unwrap()
            .expect("le CSV est sur la plateforme");
        let sortie = dossier.path().join("résultats");
        let debut = tokio::time::Instant::now();
        let t = telecharger(
            &client,
            &emetteur,
            &f.id,
            &sortie,
            &nom_du_csv(&participation),
        )
        .await
        .unwrap()
        .expect("le CSV est disponible");
        let duree = debut.elapsed();
        assert_eq!(t.octets, csv.len() as u64);
        assert!(std::fs::read(&t.chemin).unwrap() == csv, "CSV altéré");
        assert_eq!(bac.compteurs().requetes(Operation::GetObject), 1);
        // Le débit du stockage a bien été subi.
        assert!(duree >= Duration::from_secs(13), "{duree:?}");
        bac.arreter().await;
    }

    /// Écrire les résultats ne suit jamais un lien : ni un lien posé au nom de l'ancien
    /// fichier provisoire (`.<nom>.<pid>.partiel`, prévisible, ouvert en création-troncature :
    /// il faisait écraser `these.txt` par le CSV), ni un lien posé au nom du CSV lui-même.
    /// Leurs cibles restent intactes ; le CSV est écrit à sa place, et rien d'autre.
    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread")]
    async fn ecrire_les_resultats_ne_suit_jamais_un_lien() {
        use vigie_bac_a_sable::{BacASable, JETON, PARTICIPATION};

        let dossier = tempfile::tempdir().unwrap();
        let bac = BacASable::demarrer(&dossier.path().join("bac"), 0)
            .await
            .unwrap();
        bac.poser_csv(PARTICIPATION, b"\"nom du fichier\";\r\n".to_vec())
            .await
            .unwrap();
        let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();
        let emetteur = emetteur_de_resultats();
        let participation = IdObjet::analyser(PARTICIPATION).unwrap();
        let nom = nom_du_csv(&participation);
        // Un dossier de sortie partagé, où un autre compte a posé ses liens.
        let sortie = dossier.path().join("partage");
        std::fs::create_dir(&sortie).unwrap();
        let these = dossier.path().join("these.txt");
        let notes = dossier.path().join("notes.txt");
        std::fs::write(&these, b"ma these").unwrap();
        std::fs::write(&notes, b"mes notes").unwrap();
        let ancien_provisoire = sortie.join(format!(".{nom}.{}.partiel", std::process::id()));
        std::os::unix::fs::symlink(&these, &ancien_provisoire).unwrap();
        std::os::unix::fs::symlink(&notes, sortie.join(&nom)).unwrap();

        let f = trouver_csv(&client, &emetteur, &participation)
            .await
            .unwrap()
            .expect("le CSV est sur la plateforme");
        let t = telecharger(&client, &emetteur, &f.id, &sortie, &nom)
            .await
            .unwrap()
            .expect("le CSV est disponible");
        assert_eq!(std::fs::read(&these).unwrap(), b"ma these");
        assert_eq!(std::fs::read(&notes).unwrap(), b"mes notes");
        assert!(std::fs::symlink_metadata(&t.chemin).unwrap().is_file());
        assert_eq!(
            std::fs::read(&t.chemin).unwrap(),
            b"\"nom du fichier\";\r\n"
        );
        let mut restes: Vec<String> = std::fs::read_dir(&sortie)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        restes.sort();
        let lien = ancien_provisoire.file_name().unwrap().to_string_lossy();
        assert_eq!(restes, [lien.as_ref(), nom.as_str()]);
        bac.arreter().await;
    }

    #[test]
    fn noms_venus_du_serveur() {
        for (titre, attendu) in [
            (
                "participation-64a1b2c3d4e5f60718293d01-observations.csv",
                Some("participation-64a1b2c3d4e5f60718293d01-observations.csv"),
            ),
            ("../../.bashrc", Some("bashrc")),
            ("/etc/passwd", Some("passwd")),
            ("..\\..\\Windows\\system.ini", Some("system.ini")),
            ("a\u{1b}[2Jb\n.csv", Some("a[2Jb.csv")),
            ("vaw.\u{202e}exe.csv", Some("vaw.exe.csv")),
            ("CON", Some("_CON")),
            ("nul.txt", Some("_nul.txt")),
            ("com1.csv", Some("_com1.csv")),
            ("compte.csv", Some("compte.csv")),
            ("a<b>:c|d?e*\".csv", Some("a_b__c_d_e__.csv")),
            ("..", None),
            ("", None),
            ("dossier/", None),
            (" . ", None),
        ] {
            assert_eq!(nom_sur(titre).as_deref(), attendu, "{titre:?}");
        }
        assert_eq!(nom_sur(&"x".repeat(500)).unwrap().chars().count(), 200);
    }
}
