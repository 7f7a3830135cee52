//! Le calcul d'une participation, simulé comme le serveur le mène, ses résultats (bilan,
//! journal, CSV des observations) et la liste des taxons.
//!
//! Pourquoi : après le dépôt, `vigie traitement`, `vigie resultats` et `vigie traiter` lisent
//! l'état du calcul, son bilan et ses fichiers. Ils doivent être éprouvés contre ce que le
//! serveur écrit vraiment, état par état, y compris dans ses fenêtres de temps (un calcul FINI
//! dont le CSV n'existe pas encore, un nouvel essai qui efface le `retry` du précédent). Ce que
//! chaque étape imite (chemins relatifs au paquet `vigiechiro/` de `Scille/vigiechiro-api`) :
//!
//! - `POST /participations/{id}/compute` (`resources/participations.py`
//!   `participation_trigger_compute`) : `_check_edit_access` (403 à un autre que
//!   l'observateur) ; si `traitement.etat` est `PLANIFIE` ou `EN_COURS` et que `date_debut`
//!   **ou** `date_planification` date de moins d'un jour (`(now - date).days < 1`, vrai aussi
//!   pour une date future), `400 {"etat": "Already <ÉTAT>"}` ; sinon la tâche est mise en file
//!   (`process_participation.delay`) et `traitement` est **remplacé** par
//!   `{etat: PLANIFIE, date_planification}` (`participations.update` fait un `$set` du champ
//!   entier). Sur une participation `FINI`, `ERREUR` ou `RETRY`, le calcul est donc accepté.
//! - La tâche (`scripts/task_participation.py` `process_participation`), prise par le
//!   travailleur après [`ReglagesCalcul::attente`] : `traitement` devient
//!   `{etat: EN_COURS, date_debut}` ; `reset_pjs_state` efface les fichiers
//!   `application/x-processing-extra` du calcul précédent (le CSV des observations compris) et
//!   ses données ; après [`ReglagesCalcul::duree`] :
//!   - succès : `participation.save()` écrit le journal (`participation-<id>-logs`,
//!     `text/plain`, clé `others/<uuid>-…`, contenu `str(logger.LOGS)`) et remplace l'ancien,
//!     puis `participation_generate_bilan` écrit `bilan` (par ordre : `chiropteres`,
//!     `orthopteres`, `autre`, chacun présent seulement s'il a un taxon, et `problemes`), enfin
//!     `traitement` = `{etat: FINI, date_debut, date_fin}` ;
//!   - échec, tant que `retry_count < TASK_PARTICIPATION_MAX_RETRY` (1 par défaut,
//!     `settings.py`) : la tâche est remise en file et `traitement` =
//!     `{etat: RETRY, retry: n, date_debut, date_fin, message: <trace Python>}` ; le nouvel
//!     essai, repris après [`ReglagesCalcul::attente`], repart de `{etat: EN_COURS,
//!     date_debut}` (le `retry` disparaît) ;
//!   - échec au-delà : `{etat: ERREUR, date_debut, date_fin, message}`.
//! - Le CSV des observations (`scripts/task_observations_csv.py`) : après `FINI`, si le
//!   déploiement l'active (`TASK_PARTICIPATION_GENERATE_OBSERVATION_CSV`, [`ReglagesCalcul::
//!   csv_automatique`]), ou à la demande (`POST /participations/{id}/csv`,
//!   `participation_generate_csv` : `_check_read_access`, puis `email_observations_csv`) :
//!   l'ancien est effacé, le nouveau, `participation-<id>-observations.csv`, est écrit sous
//!   `processing_extra/<uuid>-…` (`application/x-processing-extra`, disponible) ; une ligne par
//!   observation, données triées par titre, `;` pour séparateur, textes entre guillemets et
//!   nombres nus (`csv.QUOTE_NONNUMERIC`), fins de ligne `\r\n`, taxons par `libelle_court`.
//!   Le courriel lui-même n'est pas envoyé : il est compté ([`Vigiechiro::courriels_csv`]).
//! - `GET /taxons/liste` (`resources/taxons.py` `get_resume_list`) : `{_items: [{_id,
//!   libelle_long, libelle_court}]}`, non paginé ; `GET /participations/{id}` développe la
//!   relation `taxon` de chaque ligne du bilan en document entier, et `logs` en document de
//!   fichier (`xin/schema.py` `Unserializer._run_attribute_data_relation`).
//!
//! Les observations sont tirées de chaque séquence WAV finalisée de la participation, de façon
//! déterministe (d'après son titre) : le bilan et le CSV d'un même calcul disent la même nuit.
//!
//! Le calcul suit l'heure du système ; [`Vigiechiro::avancer_horloge`] fait passer d'un coup
//! une heure ou un jour pour lui (ce qu'il a noté recule d'autant) : un test n'attend pas.
//!
//! Écart voulu : relancé sur une participation en `RETRY`, le serveur accepte et mène deux
//! tâches à la fois ; le bac à sable remplace la tâche en cours par la nouvelle.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hyper::StatusCode;
use s3s::S3;
use s3s::dto::{DeleteObjectInput, PutObjectInput, StreamingBlob};
use serde_json::{Value, json};

use super::{
    COMPARTIMENT_PLATEFORME, DESCRIPTION_404, FichierPlateforme, Fichiers, Meta, ReponseApi,
    Utilisateur, Vigiechiro, requete_s3,
};

/// Un jour : un calcul planifié ou en cours depuis moins longtemps ne se relance pas.
const UN_JOUR: Duration = Duration::from_secs(24 * 3600);
/// `ALLOWED_MIMES_PROCESSING_EXTRA` (`resources/fichiers.py`).
pub(crate) const MIME_PROCESSING_EXTRA: &str = "application/x-processing-extra";

/// Le déroulement simulé des calculs à venir (réglé avant `POST …/compute` : chaque calcul
/// garde les réglages de son lancement).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReglagesCalcul {
    /// De `PLANIFIE` à `EN_COURS` : le temps que le travailleur prenne la tâche en file (et,
    /// après un échec, qu'il reprenne la tâche remise en file).
    pub attente: Duration,
    /// De `EN_COURS` à la fin de l'essai (`FINI`, `RETRY` ou `ERREUR`).
    pub duree: Duration,
    /// Nombre d'essais qui échouent avant qu'un essai réussisse.
    pub echecs: u32,
    /// `TASK_PARTICIPATION_MAX_RETRY` : essais supplémentaires après un échec (1 sur le
    /// serveur, par défaut).
    pub essais_max: u32,
    /// `TASK_PARTICIPATION_GENERATE_OBSERVATION_CSV` : le CSV des observations est produit
    /// après chaque calcul réussi. Faux par défaut sur le serveur (seul `POST …/csv` le
    /// produit alors) ; le réglage de la plateforme en service n'est pas connu.
    pub csv_automatique: bool,
    /// De `FINI` (ou d'une demande `POST …/csv`) au CSV disponible.
    pub delai_csv: Duration,
    /// La trace Python d'un essai qui échoue (`format_exc()`).
    pub message_erreur: String,
}

impl Default for ReglagesCalcul {
    fn default() -> Self {
        ReglagesCalcul {
            attente: Duration::from_secs(30),
            duree: Duration::from_secs(120),
            echecs: 0,
            essais_max: 1,
            csv_automatique: true,
            delai_csv: Duration::from_secs(10),
            message_erreur: TRACE_PAR_DEFAUT.to_owned(),
        }
    }
}

/// Une trace comme en laisse une tâche qui échoue (`process_participation`, `format_exc()`).
const TRACE_PAR_DEFAUT: &str = "Traceback (most recent call last):\n  File \
\"/app/vigiechiro/scripts/task_participation.py\", line 395, in process_participation\n    \
_process_participation(participation_id, extra_pjs_ids=extra_pjs_ids, publique=publique)\n  \
File \"/app/vigiechiro/scripts/task_participation.py\", line 450, in _process_participation\n    \
participation_generate_bilan(participation_id)\nRuntimeError: Cannot update bilan for \
participation, error 500 : Internal Server Error\n";

/// Ce que le calcul a laissé sur une participation : le champ `traitement`, et ce que les
/// calculs réussis ont produit (`bilan`, `logs`, les données qui nourrissent le CSV).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CalculPlateforme {
    /// `traitement.etat` : `PLANIFIE`, `EN_COURS`, `FINI`, `ERREUR` ou `RETRY`.
    pub etat: String,
    pub retry: Option<u32>,
    pub date_planification: Option<SystemTime>,
    pub date_debut: Option<SystemTime>,
    pub date_fin: Option<SystemTime>,
    pub message: Option<String>,
    /// `bilan`, relations `taxon` en identifiants (tel que stocké).
    pub bilan: Option<Value>,
    /// `logs` : l'identifiant du fichier du journal.
    pub logs: Option<String>,
    /// Les données du dernier calcul réussi (`donnees` du serveur).
    pub(crate) donnees: Vec<Donnee>,
    pub(crate) deroulement: Option<Deroulement>,
}

/// Une donnée (une séquence) et ses observations, telles que `task_participation.py` les
/// enregistre.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Donnee {
    /// Le titre du WAV sans son extension.
    titre: String,
    probleme: bool,
    observations: Vec<Observation>,
}

#[derive(Debug, Clone, PartialEq)]
struct Observation {
    temps_debut: f64,
    temps_fin: f64,
    frequence_mediane: f64,
    taxon: usize,
    probabilite: f64,
    autres: Vec<(usize, f64)>,
}

/// La tâche en cours, d'après l'horloge du bac à sable.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Deroulement {
    reglages: ReglagesCalcul,
    phase: Phase,
    /// `retry_count` de l'essai en cours.
    essai: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// En file (`PLANIFIE`, ou `RETRY` en attente d'être reprise) depuis cet instant.
    EnFile(SystemTime),
    EnCours(SystemTime),
    /// Calcul fini ; le CSV sera écrit à cet instant.
    CsvAttendu(SystemTime),
}

/// Ce qu'un pas du calcul demande au stockage, hors du verrou de l'état.
pub(crate) enum Effet {
    /// Effacer l'objet de cette clé (l'enregistrement est déjà retiré).
    Effacer(String),
    /// Écrire l'objet, puis enregistrer le fichier.
    Ecrire(Box<FichierPlateforme>, Vec<u8>),
}

// ---------------------------------------------------------------------------- taxons

/// Un taxon de la plateforme locale : identifiant, `libelle_court` (le code Tadarida),
/// `libelle_long` (le nom latin), et le rang de son parent dans [`TAXONS`] (l'ordre).
struct Taxon {
    id: &'static str,
    court: &'static str,
    long: &'static str,
    parent: Option<usize>,
}

const fn taxon(
    id: &'static str,
    court: &'static str,
    long: &'static str,
    parent: Option<usize>,
) -> Taxon {
    Taxon {
        id,
        court,
        long,
        parent,
    }
}

/// Les taxons du bac à sable : de vraies espèces de la nuit française, et leurs ordres
/// (`recursive_order_find` classe un taxon par le `libelle_long` de ses ancêtres :
/// `Chiroptera`, `Orthoptera`, sinon « autre »).
const TAXONS: [Taxon; 21] = [
    taxon("5b1e0a1c2d3e4f5061728301", "Chiro", "Chiroptera", None),
    taxon("5b1e0a1c2d3e4f5061728302", "Ortho", "Orthoptera", None),
    taxon("5b1e0a1c2d3e4f5061728303", "Aves", "Aves", None),
    taxon(
        "5b1e0a1c2d3e4f5061728310",
        "Pippip",
        "Pipistrellus pipistrellus",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728311",
        "Pipkuh",
        "Pipistrellus kuhlii",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728312",
        "Pipnat",
        "Pipistrellus nathusii",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728313",
        "Nyclei",
        "Nyctalus leisleri",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728314",
        "Nycnoc",
        "Nyctalus noctula",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728315",
        "Eptser",
        "Eptesicus serotinus",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728316",
        "Barbar",
        "Barbastella barbastellus",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728317",
        "Myodau",
        "Myotis daubentonii",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728318",
        "Pleaus",
        "Plecotus austriacus",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728319",
        "Rhihip",
        "Rhinolophus hipposideros",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f506172831a",
        "Hypsav",
        "Hypsugo savii",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f506172831b",
        "Tadten",
        "Tadarida teniotis",
        Some(0),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728320",
        "Tetvir",
        "Tettigonia viridissima",
        Some(1),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728321",
        "Phogri",
        "Pholidoptera griseoaptera",
        Some(1),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728322",
        "Rusnit",
        "Ruspolia nitidula",
        Some(1),
    ),
    taxon(
        "5b1e0a1c2d3e4f5061728323",
        "Leppun",
        "Leptophyes punctatissima",
        Some(1),
    ),
    taxon("5b1e0a1c2d3e4f5061728330", "Stralu", "Strix aluco", Some(2)),
    taxon(
        "5b1e0a1c2d3e4f5061728331",
        "Athnoc",
        "Athene noctua",
        Some(2),
    ),
];

/// Le document d'un taxon, tel qu'une relation le développe (`get_resource` : le document
/// brut, `parents` en identifiants).
fn taxon_json(i: usize) -> Value {
    let t = &TAXONS[i];
    let mut o = json!({
        "_id": t.id,
        "libelle_long": t.long,
        "libelle_court": t.court,
        "_created": "2016-03-01T00:00:00",
        "_updated": "2016-03-01T00:00:00",
        "_etag": format!("{:032x}", i + 1),
    });
    if let Some(p) = t.parent {
        o["parents"] = json!([TAXONS[p].id]);
    }
    o
}

/// L'ordre d'un taxon, comme `Bilan._define_taxon_order` le trouve.
fn ordre(mut i: usize) -> &'static str {
    loop {
        match TAXONS[i].long {
            "Chiroptera" => return "chiropteres",
            "Orthoptera" => return "orthopteres",
            _ => {}
        }
        match TAXONS[i].parent {
            Some(p) => i = p,
            None => return "autre",
        }
    }
}

/// `GET /taxons/liste` (`resources/taxons.py` `get_resume_list`).
pub(crate) fn liste_des_taxons() -> ReponseApi {
    let items: Vec<Value> = TAXONS
        .iter()
        .map(|t| json!({ "_id": t.id, "libelle_long": t.long, "libelle_court": t.court }))
        .collect();
    ReponseApi::ok(json!({ "_items": items }))
}

/// Les taxons (identifiant, `libelle_court`, `libelle_long`) que sert `GET /taxons/liste`.
pub fn taxons() -> Vec<(&'static str, &'static str, &'static str)> {
    TAXONS.iter().map(|t| (t.id, t.court, t.long)).collect()
}

// ---------------------------------------------------------------------------- dates

/// `isoformat()` d'une date relue de MongoDB (à la milliseconde) : les microsecondes ne sont
/// écrites que si elles ne sont pas nulles (`2026-06-21T21:40:00.123000`).
pub(crate) fn isoformat_precis(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let base = super::isoformat(d.as_secs() as i64);
    match d.subsec_millis() {
        0 => base,
        ms => format!("{base}.{:06}", ms * 1000),
    }
}

/// `(now - date).days < 1` de Python : moins d'un jour, ou une date à venir.
fn moins_d_un_jour(maintenant: SystemTime, date: SystemTime) -> bool {
    maintenant
        .duration_since(date)
        .map_or(true, |ecart| ecart < UN_JOUR)
}

// ---------------------------------------------------------------------------- tirages

/// Un tirage déterministe d'après un texte (FNV-1a puis xorshift).
struct Tirage(u64);

impl Tirage {
    fn de(texte: &str) -> Tirage {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for o in texte.bytes() {
            h ^= u64::from(o);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Tirage(h | 1)
    }

    fn suivant(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn sous(&mut self, n: u64) -> u64 {
        self.suivant() % n
    }

    /// Un nombre à `decimales` décimales dans `[min, min + etendue)`.
    fn nombre(&mut self, min: f64, etendue: f64, decimales: i32) -> f64 {
        let pas = 10f64.powi(decimales);
        let n = self.sous((etendue * pas) as u64) as f64;
        ((min * pas).round() + n) / pas
    }
}

/// Les taxons qu'une observation peut désigner, pondérés : les pipistrelles d'abord, comme
/// dans une vraie nuit.
const TIRAGE_TAXONS: [(usize, u64); 18] = [
    (3, 40),
    (4, 18),
    (5, 4),
    (6, 6),
    (7, 3),
    (8, 5),
    (9, 2),
    (10, 3),
    (11, 1),
    (12, 1),
    (13, 2),
    (14, 1),
    (15, 5),
    (16, 4),
    (17, 2),
    (18, 1),
    (19, 1),
    (20, 1),
];

fn tirer_taxon(t: &mut Tirage) -> usize {
    let total: u64 = TIRAGE_TAXONS.iter().map(|(_, p)| p).sum();
    let mut x = t.sous(total);
    for (i, p) in TIRAGE_TAXONS {
        if x < p {
            return i;
        }
        x -= p;
    }
    TIRAGE_TAXONS[0].0
}

/// Les observations de la séquence `titre` (son nom de fichier) : 0 à 3, tirées d'après le
/// titre.
fn donnee_de(titre_wav: &str) -> Donnee {
    let titre = titre_wav
        .rsplit_once('.')
        .map_or(titre_wav, |(base, _)| base)
        .to_owned();
    let mut t = Tirage::de(&titre);
    let nombre = t.sous(4);
    let observations = (0..nombre)
        .map(|_| {
            let taxon = tirer_taxon(&mut t);
            // Une probabilité sur deux au-dessus de 0,98 : elle compte alors au minimum.
            let probabilite = if t.sous(2) == 0 {
                t.nombre(0.981, 0.019, 3)
            } else {
                t.nombre(0.3, 0.68, 2)
            };
            let temps_debut = t.nombre(0.01, 4.0, 3);
            let autres = (0..t.sous(3))
                .map(|_| (tirer_taxon(&mut t), t.nombre(0.05, probabilite * 0.9, 2)))
                .filter(|(a, _)| *a != taxon)
                .collect();
            Observation {
                temps_debut,
                temps_fin: temps_debut + t.nombre(0.05, 0.9, 3),
                frequence_mediane: t.nombre(18.0, 40.0, 2),
                taxon,
                probabilite,
                autres,
            }
        })
        .collect();
    Donnee {
        titre,
        probleme: t.sous(13) == 0,
        observations,
    }
}

/// `participation_generate_bilan` : par ordre, chaque taxon (dans l'ordre où il est vu) et
/// ses contacts (au plus : chaque observation ; au moins : celles de probabilité > 0,98) ; un
/// ordre sans taxon n'a pas de clé ; `problemes` compte les données qui en signalent un.
fn bilan_de(donnees: &[Donnee]) -> Value {
    /// Un taxon du bilan : son rang, ses contacts au moins, au plus.
    type Ligne = (usize, u64, u64);
    let mut ordres: Vec<(&str, Vec<Ligne>)> = Vec::new();
    let mut problemes = 0u64;
    for d in donnees {
        problemes += u64::from(d.probleme);
        for o in &d.observations {
            let nom = ordre(o.taxon);
            let i = match ordres.iter().position(|(n, _)| *n == nom) {
                Some(i) => i,
                None => {
                    ordres.push((nom, Vec::new()));
                    ordres.len() - 1
                }
            };
            let lignes = &mut ordres[i].1;
            let j = match lignes.iter().position(|(t, _, _)| *t == o.taxon) {
                Some(j) => j,
                None => {
                    lignes.push((o.taxon, 0, 0));
                    lignes.len() - 1
                }
            };
            lignes[j].2 += 1;
            if o.probabilite > 0.98 {
                lignes[j].1 += 1;
            }
        }
    }
    let mut bilan = json!({ "problemes": problemes });
    for (nom, lignes) in ordres {
        bilan[nom] = lignes
            .into_iter()
            .map(|(t, min, max)| {
                json!({ "taxon": TAXONS[t].id, "nb_contact_min": min, "nb_contact_max": max })
            })
            .collect();
    }
    bilan
}

/// Le bilan tel que le rend `GET /participations/{id}` : chaque `taxon` développé.
fn bilan_developpe(bilan: &Value) -> Value {
    let mut b = bilan.clone();
    for ordre in ["chiropteres", "orthopteres", "autre"] {
        let Some(lignes) = b.get_mut(ordre).and_then(Value::as_array_mut) else {
            continue;
        };
        for ligne in lignes {
            let id = ligne.get("taxon").and_then(Value::as_str).unwrap_or("");
            if let Some(i) = TAXONS.iter().position(|t| t.id == id) {
                ligne["taxon"] = taxon_json(i);
            }
        }
    }
    b
}

/// `repr()` d'un flottant Python : toujours un point (`1.0`, `0.25`).
fn repr_flottant(x: f64) -> String {
    let s = format!("{x}");
    if s.contains(['.', 'e', 'E']) || !x.is_finite() {
        s
    } else {
        format!("{s}.0")
    }
}

/// Une cellule de `csv.writer(quoting=QUOTE_NONNUMERIC)`.
enum Cellule {
    Texte(String),
    Nombre(f64),
}

fn ligne_csv(cellules: &[Cellule]) -> String {
    let mut ligne = cellules
        .iter()
        .map(|c| match c {
            Cellule::Texte(t) => format!("\"{}\"", t.replace('"', "\"\"")),
            Cellule::Nombre(x) => repr_flottant(*x),
        })
        .collect::<Vec<_>>()
        .join(";");
    ligne.push_str("\r\n");
    ligne
}

/// `generate_observations_csv` : l'en-tête, puis une ligne par observation, les données triées
/// par titre. Une valeur nulle (ou absente) s'écrit `""` ; `temps_debut` et `temps_fin` nuls
/// s'écrivent `"0.0"` (un texte) ; les autres taxons ne sont gardés qu'à la moitié au moins
/// de la probabilité du premier.
pub(crate) fn csv_des_observations(donnees: &[Donnee]) -> Vec<u8> {
    const ENTETES: [&str; 11] = [
        "nom du fichier",
        "temps_debut",
        "temps_fin",
        "frequence_mediane",
        "tadarida_taxon",
        "tadarida_probabilite",
        "tadarida_taxon_autre",
        "observateur_taxon",
        "observateur_probabilite",
        "validateur_taxon",
        "validateur_probabilite",
    ];
    let mut csv = ligne_csv(
        &ENTETES
            .iter()
            .map(|e| Cellule::Texte((*e).to_owned()))
            .collect::<Vec<_>>(),
    );
    let mut triees: Vec<&Donnee> = donnees.iter().collect();
    triees.sort_by(|a, b| a.titre.cmp(&b.titre));
    let nombre_ou_vide = |x: f64| {
        if x == 0.0 {
            Cellule::Texte(String::new())
        } else {
            Cellule::Nombre(x)
        }
    };
    let temps = |x: f64| {
        if x == 0.0 {
            Cellule::Texte("0.0".to_owned())
        } else {
            Cellule::Nombre(x)
        }
    };
    for d in triees {
        for o in &d.observations {
            let autres: Vec<&str> = o
                .autres
                .iter()
                .filter(|(_, p)| *p >= o.probabilite / 2.0)
                .map(|(t, _)| TAXONS[*t].court)
                .collect();
            csv.push_str(&ligne_csv(&[
                Cellule::Texte(d.titre.clone()),
                temps(o.temps_debut),
                temps(o.temps_fin),
                nombre_ou_vide(o.frequence_mediane),
                Cellule::Texte(TAXONS[o.taxon].court.to_owned()),
                nombre_ou_vide(o.probabilite),
                Cellule::Texte(autres.join(", ")),
                Cellule::Texte(String::new()),
                Cellule::Texte(String::new()),
                Cellule::Texte(String::new()),
                Cellule::Texte(String::new()),
            ]));
        }
    }
    csv.into_bytes()
}

/// Le nom du CSV des observations (`generate_csv_name`).
pub fn nom_csv(participation: &str) -> String {
    format!("participation-{participation}-observations.csv")
}

// ---------------------------------------------------------------------------- le calcul

impl CalculPlateforme {
    /// `participations.update(id, {'traitement': {...}})` : le champ entier est remplacé.
    fn remplacer(&mut self, etat: &str) {
        self.etat = etat.to_owned();
        self.retry = None;
        self.date_planification = None;
        self.date_debut = None;
        self.date_fin = None;
        self.message = None;
    }

    /// `traitement`, `bilan` et `logs` du document brut (relations en identifiants).
    pub(crate) fn ecrire_brut(&self, o: &mut Value) {
        if !self.etat.is_empty() {
            let mut t = json!({ "etat": self.etat });
            if let Some(r) = self.retry {
                t["retry"] = json!(r);
            }
            for (champ, date) in [
                ("date_planification", self.date_planification),
                ("date_debut", self.date_debut),
                ("date_fin", self.date_fin),
            ] {
                if let Some(d) = date {
                    t[champ] = json!(isoformat_precis(d));
                }
            }
            if let Some(m) = &self.message {
                t["message"] = json!(m);
            }
            o["traitement"] = t;
        }
        if let Some(b) = &self.bilan {
            o["bilan"] = b.clone();
        }
        if let Some(l) = &self.logs {
            o["logs"] = json!(l);
        }
    }
}

impl Vigiechiro {
    /// L'instant présent : l'heure du système, celle du client aussi.
    pub(crate) fn maintenant(&self) -> SystemTime {
        SystemTime::now()
    }

    /// Fait passer `duree` pour les calculs : tout ce qu'ils ont noté (dates, début de chaque
    /// étape, CSV demandés) recule d'autant, si bien qu'à la prochaine requête chacun en est
    /// où il serait `duree` plus tard, et que ses dates restent cohérentes avec l'heure du
    /// client (« en cours depuis 12 min »).
    pub(crate) fn avancer_horloge(&self, duree: Duration) {
        let recul = |t: &mut SystemTime| *t = t.checked_sub(duree).unwrap_or(UNIX_EPOCH);
        let mut etat = self.etat();
        for p in &mut etat.participations {
            let Some(c) = p.traitement.as_mut() else {
                continue;
            };
            for date in [
                &mut c.date_planification,
                &mut c.date_debut,
                &mut c.date_fin,
            ]
            .into_iter()
            .flatten()
            {
                recul(date);
            }
            if let Some(d) = c.deroulement.as_mut() {
                match &mut d.phase {
                    Phase::EnFile(t) | Phase::EnCours(t) | Phase::CsvAttendu(t) => recul(t),
                }
            }
        }
        for (_, quand) in &mut etat.csv_demandes {
            recul(quand);
        }
    }

    /// Les réglages des calculs lancés désormais.
    pub(crate) fn regler_calcul(&self, reglages: ReglagesCalcul) {
        self.etat().reglages_calcul = reglages;
    }

    /// Les réglages des calculs de la participation `id` lancés désormais (les autres gardent
    /// ceux de [`Vigiechiro::regler_calcul`]).
    pub(crate) fn regler_calcul_de(&self, id: &str, reglages: ReglagesCalcul) {
        self.etat()
            .reglages_calcul_de
            .insert(id.to_owned(), reglages);
    }

    /// Nombre de CSV demandés par courriel (`POST …/csv` acceptés) pour la participation.
    pub(crate) fn courriels_csv(&self, participation: &str) -> u32 {
        self.etat()
            .courriels_csv
            .iter()
            .filter(|p| *p == participation)
            .count() as u32
    }

    /// `resources/participations.py` `participation_trigger_compute` (voir l'en-tête du
    /// module).
    pub(super) fn lancer_calcul(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
    ) -> Result<ReponseApi, ReponseApi> {
        let maintenant = self.maintenant();
        let mut etat = self.etat();
        let reglages = etat
            .reglages_calcul_de
            .get(id)
            .unwrap_or(&etat.reglages_calcul)
            .clone();
        let Some(p) = etat.participations.iter_mut().find(|p| p.id == id) else {
            return Err(ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404));
        };
        if p.observateur != utilisateur.id {
            return Err(ReponseApi::interdit());
        }
        if let Some(c) = &p.traitement
            && matches!(c.etat.as_str(), "PLANIFIE" | "EN_COURS")
        {
            let recent = |d: Option<SystemTime>| d.is_some_and(|d| moins_d_un_jour(maintenant, d));
            if recent(c.date_debut) || recent(c.date_planification) {
                return Err(ReponseApi::erreur_champ(
                    StatusCode::BAD_REQUEST,
                    "etat",
                    format!("Already {}", c.etat),
                ));
            }
        }
        let c = p.traitement.get_or_insert_with(CalculPlateforme::default);
        c.remplacer("PLANIFIE");
        c.date_planification = Some(maintenant);
        c.deroulement = Some(Deroulement {
            reglages,
            phase: Phase::EnFile(maintenant),
            essai: 0,
        });
        p.calculs_lances += 1;
        p.meta.toucher();
        Ok(ReponseApi::ok(json!({})))
    }

    /// `resources/participations.py` `participation_generate_csv` : 404, `_check_read_access`,
    /// puis la tâche `email_observations_csv` (le CSV régénéré après
    /// [`ReglagesCalcul::delai_csv`], le courriel compté).
    pub(super) fn demander_csv(
        &self,
        utilisateur: &Utilisateur,
        id: &str,
    ) -> Result<ReponseApi, ReponseApi> {
        let maintenant = self.maintenant();
        let mut etat = self.etat();
        let delai = etat.reglages_calcul.delai_csv;
        let Some(p) = etat.participations.iter().find(|p| p.id == id) else {
            return Err(ReponseApi::erreur(StatusCode::NOT_FOUND, DESCRIPTION_404));
        };
        if !super::lecture::lecture_permise(utilisateur, &p.observateur) {
            return Err(ReponseApi::interdit());
        }
        etat.csv_demandes.push((id.to_owned(), maintenant + delai));
        etat.courriels_csv.push(id.to_owned());
        Ok(ReponseApi::ok(json!({})))
    }

    /// Fait avancer chaque calcul jusqu'à l'instant présent de l'horloge, et mène au stockage
    /// ce que chaque pas y écrit ou efface. Appelée avant toute requête d'API.
    pub(crate) async fn avancer_calculs(&self) {
        let maintenant = self.maintenant();
        let effets = self.pas_des_calculs(maintenant);
        self.mener(effets).await;
    }

    /// Pose `contenu` comme CSV des observations de la participation (l'ancien effacé), tel
    /// que l'écrirait un calcul fini : un CSV de la taille voulue sans déposer des milliers de
    /// séquences (le téléchargement d'un gros CSV sur un lien lent).
    pub(crate) async fn poser_csv(
        &self,
        participation: &str,
        contenu: Vec<u8>,
    ) -> anyhow::Result<()> {
        let effets = self.etat().ecrire_csv(participation, Some(contenu));
        anyhow::ensure!(
            !effets.is_empty(),
            "participation inconnue : {participation}"
        );
        self.mener(effets).await;
        Ok(())
    }

    /// Mène au stockage ce que les calculs y écrivent ou effacent.
    async fn mener(&self, effets: Vec<Effet>) {
        for effet in effets {
            match effet {
                Effet::Effacer(cle) => {
                    let entree = DeleteObjectInput::builder()
                        .bucket(COMPARTIMENT_PLATEFORME.to_owned())
                        .key(cle.clone())
                        .build();
                    if let Ok(entree) = entree
                        && let Err(e) = self.stockage.delete_object(requete_s3(entree)).await
                    {
                        tracing::warn!(%cle, "bac à sable : objet du calcul non effacé : {e}");
                    }
                }
                Effet::Ecrire(fichier, contenu) => {
                    let taille = contenu.len() as i64;
                    let entree = PutObjectInput::builder()
                        .bucket(COMPARTIMENT_PLATEFORME.to_owned())
                        .key(fichier.cle.clone())
                        .content_type(Some(fichier.mime.clone()))
                        .content_length(Some(taille))
                        .body(Some(StreamingBlob::from(s3s::Body::from(contenu))))
                        .build();
                    let ecrit = match entree {
                        Ok(entree) => self.stockage.put_object(requete_s3(entree)).await.is_ok(),
                        Err(_) => false,
                    };
                    // `_create_fichier` : l'enregistrement n'est inséré qu'après le PUT réussi.
                    if ecrit {
                        self.etat().fichiers.ajouter(*fichier);
                    } else {
                        tracing::warn!(cle = %fichier.cle, "bac à sable : fichier du calcul non écrit");
                    }
                }
            }
        }
    }

    /// Les pas de tous les calculs (et des CSV demandés) jusqu'à `maintenant`, sous le verrou
    /// de l'état ; rend ce qu'il faut mener au stockage.
    fn pas_des_calculs(&self, maintenant: SystemTime) -> Vec<Effet> {
        let mut etat = self.etat();
        let mut effets = Vec::new();
        let mut csv_a_ecrire: Vec<String> = Vec::new();
        for i in 0..etat.participations.len() {
            while let Some(d) = etat.participations[i]
                .traitement
                .as_ref()
                .and_then(|c| c.deroulement.clone())
            {
                let fin_de_phase = match d.phase {
                    Phase::EnFile(t) => t + d.reglages.attente,
                    Phase::EnCours(t) => t + d.reglages.duree,
                    Phase::CsvAttendu(t) => t,
                };
                if fin_de_phase > maintenant {
                    break;
                }
                let id = etat.participations[i].id.clone();
                match d.phase {
                    Phase::EnFile(_) => {
                        // `process_participation` puis `reset_pjs_state`.
                        effets.extend(etat.retirer_fichiers(|f| {
                            f.participation.as_deref() == Some(id.as_str())
                                && f.mime == MIME_PROCESSING_EXTRA
                        }));
                        let c = etat.calcul(i);
                        c.remplacer("EN_COURS");
                        c.date_debut = Some(fin_de_phase);
                        c.donnees.clear();
                        c.deroulement = Some(Deroulement {
                            phase: Phase::EnCours(fin_de_phase),
                            ..d
                        });
                    }
                    Phase::EnCours(debut) => {
                        let echoue = d.essai < d.reglages.echecs;
                        if echoue {
                            let c = etat.calcul(i);
                            let reessai = d.essai < d.reglages.essais_max;
                            c.remplacer(if reessai { "RETRY" } else { "ERREUR" });
                            c.date_debut = Some(debut);
                            c.date_fin = Some(fin_de_phase);
                            c.message = Some(d.reglages.message_erreur.clone());
                            c.deroulement = reessai.then(|| Deroulement {
                                phase: Phase::EnFile(fin_de_phase),
                                essai: d.essai + 1,
                                reglages: d.reglages.clone(),
                            });
                            if reessai {
                                c.retry = Some(d.essai + 1);
                            }
                        } else {
                            effets.extend(etat.finir_calcul(i, debut, fin_de_phase));
                            let c = etat.calcul(i);
                            c.deroulement = d.reglages.csv_automatique.then(|| Deroulement {
                                phase: Phase::CsvAttendu(fin_de_phase + d.reglages.delai_csv),
                                ..d
                            });
                        }
                    }
                    Phase::CsvAttendu(_) => {
                        csv_a_ecrire.push(id);
                        etat.calcul(i).deroulement = None;
                    }
                }
            }
        }
        let (prets, restants): (Vec<_>, Vec<_>) = std::mem::take(&mut etat.csv_demandes)
            .into_iter()
            .partition(|(_, quand)| *quand <= maintenant);
        etat.csv_demandes = restants;
        csv_a_ecrire.extend(prets.into_iter().map(|(p, _)| p));
        for participation in csv_a_ecrire {
            effets.extend(etat.ecrire_csv(&participation, None));
        }
        effets
    }
}

impl super::Etat {
    fn calcul(&mut self, i: usize) -> &mut CalculPlateforme {
        self.participations[i]
            .traitement
            .get_or_insert_with(CalculPlateforme::default)
    }

    /// Retire les enregistrements qui satisfont `filtre` ; rend l'effacement de leurs objets
    /// (`delete_fichier_and_s3`).
    fn retirer_fichiers(&mut self, filtre: impl Fn(&FichierPlateforme) -> bool) -> Vec<Effet> {
        self.fichiers
            .retirer_si(filtre)
            .into_iter()
            .map(|f| Effet::Effacer(f.cle))
            .collect()
    }

    /// Un fichier produit par le calcul (`_create_fichier` avec `force_upload`) : clé
    /// `<dossier><uuid>-<titre>`, disponible.
    fn fichier_du_calcul(
        &mut self,
        participation: &str,
        proprietaire: &str,
        titre: &str,
        mime: &str,
        dossier: &str,
    ) -> FichierPlateforme {
        let id = self.nouvel_id();
        let uuid = format!(
            "{:016x}{:016x}",
            rand::random::<u64>(),
            rand::random::<u64>()
        );
        FichierPlateforme {
            id,
            titre: titre.to_owned(),
            cle: format!("{dossier}{uuid}-{titre}"),
            participation: Some(participation.to_owned()),
            proprietaire: proprietaire.to_owned(),
            multipart: false,
            disponible: true,
            mime: mime.to_owned(),
            id_envoi: None,
            meta: Meta::neuve(),
        }
    }

    /// Un essai réussi : les données tirées des séquences finalisées, le journal (l'ancien
    /// effacé), le bilan, puis `FINI`.
    fn finir_calcul(&mut self, i: usize, debut: SystemTime, fin: SystemTime) -> Vec<Effet> {
        let id = self.participations[i].id.clone();
        let observateur = self.participations[i].observateur.clone();
        let donnees: Vec<Donnee> = self
            .fichiers
            .iter()
            .filter(|f| {
                f.participation.as_deref() == Some(id.as_str())
                    && f.disponible
                    && matches!(f.mime.as_str(), "audio/wav" | "audio/x-wav")
            })
            .map(|f| donnee_de(&f.titre))
            .collect();
        let mut effets = Vec::new();
        let titre_logs = format!("participation-{id}-logs");
        let journal =
            self.fichier_du_calcul(&id, &observateur, &titre_logs, "text/plain", "others/");
        let contenu = format!(
            "[{{'level': 'info', 'message': 'Starting building participation {id}', 'date': \
             datetime.datetime({})}}, {{'level': 'info', 'message': '{} donnees traitees', \
             'date': datetime.datetime({})}}]",
            date_python(debut),
            donnees.len(),
            date_python(fin)
        );
        let ancien = self.participations[i]
            .traitement
            .as_ref()
            .and_then(|c| c.logs.clone());
        if let Some(ancien) = ancien {
            effets.extend(self.retirer_fichiers(|f| f.id == ancien));
        }
        let id_journal = journal.id.clone();
        effets.push(Effet::Ecrire(Box::new(journal), contenu.into_bytes()));
        let c = self.calcul(i);
        c.bilan = Some(bilan_de(&donnees));
        c.logs = Some(id_journal);
        c.donnees = donnees;
        c.remplacer("FINI");
        c.date_debut = Some(debut);
        c.date_fin = Some(fin);
        effets
    }

    /// `ensure_observations_csv_is_available` : l'ancien CSV effacé, le nouveau écrit.
    fn ecrire_csv(&mut self, participation: &str, contenu: Option<Vec<u8>>) -> Vec<Effet> {
        let Some(i) = self
            .participations
            .iter()
            .position(|p| p.id == participation)
        else {
            return Vec::new();
        };
        let titre = nom_csv(participation);
        let mut effets = self.retirer_fichiers(|f| {
            f.participation.as_deref() == Some(participation) && f.titre == titre
        });
        let contenu = contenu.unwrap_or_else(|| {
            let donnees = self.participations[i]
                .traitement
                .as_ref()
                .map(|c| c.donnees.clone())
                .unwrap_or_default();
            csv_des_observations(&donnees)
        });
        let observateur = self.participations[i].observateur.clone();
        let fichier = self.fichier_du_calcul(
            participation,
            &observateur,
            &titre,
            MIME_PROCESSING_EXTRA,
            "processing_extra/",
        );
        effets.push(Effet::Ecrire(Box::new(fichier), contenu));
        effets
    }
}

/// `repr()` d'un `datetime` (`2026, 6, 21, 21, 40, 0, 123000`).
fn date_python(t: SystemTime) -> String {
    let iso = isoformat_precis(t);
    let chiffres: Vec<String> = iso
        .split(['-', 'T', ':', '.'])
        .map(|n| n.trim_start_matches('0'))
        .map(|n| if n.is_empty() { "0" } else { n }.to_owned())
        .collect();
    chiffres.join(", ")
}

/// Le document de la participation relue (`display_participation`) : `bilan` aux taxons
/// développés, `logs` développé en document de fichier.
pub(crate) fn developper(o: &mut Value, fichiers: &Fichiers) {
    if let Some(b) = o.get("bilan") {
        o["bilan"] = bilan_developpe(b);
    }
    if let Some(id) = o.get("logs").and_then(Value::as_str)
        && let Some(f) = fichiers.par_id(id)
    {
        o["logs"] = f.json_brut();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordres_des_taxons() {
        assert_eq!(ordre(3), "chiropteres");
        assert_eq!(ordre(15), "orthopteres");
        assert_eq!(ordre(19), "autre");
        for (i, _) in TIRAGE_TAXONS {
            assert!(TAXONS[i].parent.is_some(), "{}", TAXONS[i].court);
        }
        // Des identifiants d'allure ObjectId, distincts.
        let mut ids: Vec<&str> = TAXONS.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TAXONS.len());
        assert!(ids.iter().all(|i| super::super::object_id(i).is_some()));
    }

    #[test]
    fn csv_a_la_maniere_de_python() {
        assert_eq!(repr_flottant(1.0), "1.0");
        assert_eq!(repr_flottant(0.25), "0.25");
        let donnees = vec![
            Donnee {
                titre: "b".into(),
                probleme: false,
                observations: vec![Observation {
                    temps_debut: 0.0,
                    temps_fin: 1.5,
                    frequence_mediane: 42.5,
                    taxon: 3,
                    probabilite: 0.99,
                    autres: vec![(4, 0.6), (5, 0.1)],
                }],
            },
            Donnee {
                titre: "a \"x\"".into(),
                probleme: true,
                observations: vec![Observation {
                    temps_debut: 0.5,
                    temps_fin: 1.0,
                    frequence_mediane: 20.0,
                    taxon: 15,
                    probabilite: 0.5,
                    autres: vec![],
                }],
            },
        ];
        let csv = String::from_utf8(csv_des_observations(&donnees)).unwrap();
        let lignes: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lignes[0],
            "\"nom du fichier\";\"temps_debut\";\"temps_fin\";\"frequence_mediane\";\
             \"tadarida_taxon\";\"tadarida_probabilite\";\"tadarida_taxon_autre\";\
             \"observateur_taxon\";\"observateur_probabilite\";\"validateur_taxon\";\
             \"validateur_probabilite\""
        );
        // Triées par titre ; guillemets doublés ; nombres nus.
        assert_eq!(
            lignes[1],
            "\"a \"\"x\"\"\";0.5;1.0;20.0;\"Tetvir\";0.5;\"\";\"\";\"\";\"\";\"\""
        );
        assert_eq!(
            lignes[2],
            "\"b\";\"0.0\";1.5;42.5;\"Pippip\";0.99;\"Pipkuh\";\"\";\"\";\"\";\"\""
        );
        assert_eq!(lignes[3], "");
        let bilan = bilan_de(&donnees);
        assert_eq!(
            bilan,
            json!({
                "problemes": 1,
                "chiropteres": [{"taxon": TAXONS[3].id, "nb_contact_min": 1, "nb_contact_max": 1}],
                "orthopteres": [{"taxon": TAXONS[15].id, "nb_contact_min": 0, "nb_contact_max": 1}],
            })
        );
    }

    #[test]
    fn observations_deterministes_et_plausibles() {
        let titre = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
        assert_eq!(donnee_de(titre), donnee_de(titre));
        let mut vues = 0;
        for n in 0..200 {
            let d = donnee_de(&format!(
                "Car640139-2026-Pass1-A1-OB-1_20260621_22{n:04}_000.wav"
            ));
            assert!(!d.titre.ends_with(".wav"));
            for o in &d.observations {
                vues += 1;
                assert!((0.0..1.0).contains(&o.probabilite), "{o:?}");
                assert!(o.temps_fin > o.temps_debut, "{o:?}");
            }
        }
        assert!(vues > 100, "{vues}");
    }

    #[test]
    fn dates_a_la_milliseconde_comme_isoformat() {
        let t = UNIX_EPOCH + Duration::from_millis(1_782_077_400_123);
        assert_eq!(isoformat_precis(t), "2026-06-21T21:30:00.123000");
        let t = UNIX_EPOCH + Duration::from_secs(1_782_077_400);
        assert_eq!(isoformat_precis(t), "2026-06-21T21:30:00");
        assert_eq!(date_python(t), "2026, 6, 21, 21, 30, 0");
        let maintenant = UNIX_EPOCH + Duration::from_secs(10 * 86_400);
        assert!(moins_d_un_jour(
            maintenant,
            maintenant - Duration::from_secs(86_399)
        ));
        assert!(!moins_d_un_jour(maintenant, maintenant - UN_JOUR));
        assert!(moins_d_un_jour(maintenant, maintenant + UN_JOUR));
    }
}
