//! La matrice des pannes : pour chaque étape de chaque destination et chaque sorte
//! de panne, une nuit avec cette panne **une fois** sur cette étape finit en un seul passage,
//! code 0, sans doublon ni envoi multipart orphelin.
//!
//! Les cas sont engendrés par une boucle sur les deux listes ([`SORTES`] × les étapes) ; chaque
//! cas est nommé (`S3/CompleteMultipartUpload/500`), et un échec les cite tous. Une étape qu'un
//! passage ordinaire n'atteint pas est atteinte par le scénario de son cas (une reprise pour
//! `ListParts`, des envois orphelins pour `AbortMultipartUpload`, une coupure du réseau pour la
//! sonde `/moi`, une création de participation perdue pour la relecture des participations, un
//! enregistrement multipart laissé par un autre client pour sa suppression, une participation
//! qui a déjà plus d'une page de fichiers pour la seconde page de l'inventaire distant, un
//! fichier déjà finalisé par un autre client pour son URL de lecture et la lecture d'un octet) ;
//! et chaque cas vérifie que sa panne a bien été consommée et son étape atteinte : sinon il
//! n'affirme rien.
//!
//! Les lectures de la plateforme ont aussi leur matrice dans `vigie verifier` : l'inventaire,
//! l'URL de lecture et la lecture d'un octet de chaque fichier déposé.
//!
//! L'entrée est un paramètre de la matrice ([`Entree`]) : des WAV prêts, ou une carte brute
//! (`vigie depot CARTE_BRUTE`) préparée au fil de l'envoi, qui doit tenir la même matrice
//! (S3 du bac à sable et Vigie-Chiro) ; ce qui arrive est alors comparé, octet pour octet, à ce
//! que `vigie preparer` écrit de la même carte.
//!
//! La plateforme Vigie-Chiro est celle du bac à sable, qui imite le code du vrai serveur
//! (`Scille/vigiechiro-api`) : enregistrement rendu tel quel, `GET /moi` qui reconnaît
//! l'adresse, participation relue avant tout envoi.
//!
//! Les essais S3 tournent contre le bac à sable et contre moto (second avis, derrière un
//! mandataire qui injecte les mêmes pannes). Les cas partent en parallèle, chacun avec son
//! serveur, sa nuit (un petit fichier, un fichier de deux parties) et sa base.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use crate::commun::moto::{self, MandatairePannes};
use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Pannes, Regle, RetryAfter};

/// Le blocage d'un transfert est coupé après ce délai (`--delai-blocage`, secondes)…
const DELAI_BLOCAGE_S: &str = "0.5";
/// … et le serveur bloque plus longtemps.
const BLOCAGE: Duration = Duration::from_millis(1200);

/// Les sortes de pannes, chacune injectée une fois.
#[derive(Debug, Clone, Copy)]
enum Sorte {
    Erreur500,
    Indisponible503,
    TropDeRequetes429,
    CoupureCorps,
    ReponsePerdue,
    Blocage,
}

const SORTES: [Sorte; 6] = [
    Sorte::Erreur500,
    Sorte::Indisponible503,
    Sorte::TropDeRequetes429,
    Sorte::CoupureCorps,
    Sorte::ReponsePerdue,
    Sorte::Blocage,
];

impl Sorte {
    fn nom(self) -> &'static str {
        match self {
            Sorte::Erreur500 => "500",
            Sorte::Indisponible503 => "503+Retry-After",
            Sorte::TropDeRequetes429 => "429",
            Sorte::CoupureCorps => "coupure-corps",
            Sorte::ReponsePerdue => "reponse-perdue",
            Sorte::Blocage => "blocage",
        }
    }

    fn panne(self) -> Panne {
        match self {
            Sorte::Erreur500 => code_http(500),
            Sorte::Indisponible503 => code_http_apres(503, RetryAfter::Secondes(1)),
            Sorte::TropDeRequetes429 => code_http(429),
            Sorte::CoupureCorps => Panne::CouperCorpsApres(64 * 1024),
            Sorte::ReponsePerdue => Panne::PerdreReponse,
            Sorte::Blocage => Panne::Bloquer(BLOCAGE),
        }
    }
}

/// Les étapes d'un dépôt S3, et le scénario qui atteint chacune.
const ETAPES_S3: [Operation; 9] = [
    // La lecture de la destination, avant tout envoi (ce qu'elle tient, et si elle accepte ces
    // identifiants).
    Operation::ListObjects,
    Operation::PutObject,
    Operation::CreateMultipartUpload,
    Operation::UploadPart,
    Operation::ListParts,
    Operation::ListMultipartUploads,
    Operation::CompleteMultipartUpload,
    Operation::HeadObject,
    Operation::AbortMultipartUpload,
];

/// Les étapes d'un dépôt Vigie-Chiro : l'API, et les PUT vers ses URL signées. Une étape est
/// l'opération que voit le bac à sable, et le rang de sa requête qui reçoit la panne (le
/// premier `GET /moi` vérifie l'adresse, les suivants sondent le réseau).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EtapeVigieChiro {
    /// `GET /moi`, le premier appel : le jeton, et que l'adresse est celle de l'API.
    VerificationAdresse,
    /// `GET /participations/{id}` : la participation donnée existe, avant tout envoi.
    LectureParticipation,
    /// `GET /moi` pendant une pause réseau.
    SondeReseau,
    /// `GET /sites/{site}/participations` : la relecture d'une création sans réponse.
    RelectureParticipations,
    /// `POST /sites/{site}/participations`.
    CreationParticipation,
    /// `POST /fichiers`.
    Declaration,
    /// `PUT /fichiers/{id}/multipart`.
    UrlPartie,
    /// PUT simple vers l'URL signée.
    PutSimple,
    /// PUT d'une partie vers son URL signée.
    PutPartie,
    /// `POST /fichiers/{id}`.
    Finalisation,
    /// `GET /fichiers/{id}` : la relecture d'une finalisation sans réponse.
    RelectureFichier,
    /// `DELETE /fichiers/{id}` : un enregistrement multipart laissé par un autre client, rendu
    /// à la déclaration simple d'un petit fichier, est supprimé puis redéclaré.
    SuppressionEnregistrement,
    /// `GET /participations/{id}/pieces_jointes`, sa deuxième page : l'inventaire distant d'une
    /// participation qui a déjà 150 autres fichiers, lu au début du passage.
    InventaireDistant,
    /// `GET /fichiers/{id}/acces` : l'URL de lecture d'un fichier déjà finalisé sur la
    /// plateforme, pour le comparer au fichier local.
    UrlLecture,
    /// `GET` avec `Range: bytes=0-0` sur l'URL de lecture : la taille et l'ETag de l'objet.
    LectureObjet,
}

const ETAPES_VIGIECHIRO: [EtapeVigieChiro; 15] = [
    EtapeVigieChiro::VerificationAdresse,
    EtapeVigieChiro::LectureParticipation,
    EtapeVigieChiro::SondeReseau,
    EtapeVigieChiro::RelectureParticipations,
    EtapeVigieChiro::CreationParticipation,
    EtapeVigieChiro::Declaration,
    EtapeVigieChiro::UrlPartie,
    EtapeVigieChiro::PutSimple,
    EtapeVigieChiro::PutPartie,
    EtapeVigieChiro::Finalisation,
    EtapeVigieChiro::RelectureFichier,
    EtapeVigieChiro::SuppressionEnregistrement,
    EtapeVigieChiro::InventaireDistant,
    EtapeVigieChiro::UrlLecture,
    EtapeVigieChiro::LectureObjet,
];

/// Les étapes de `vigie verifier` vers la plateforme : ses lectures.
const ETAPES_VERIFIER: [EtapeVigieChiro; 3] = [
    EtapeVigieChiro::InventaireDistant,
    EtapeVigieChiro::UrlLecture,
    EtapeVigieChiro::LectureObjet,
];

/// Les autres fichiers qu'a déjà la participation : son inventaire tient en deux pages (100
/// par page).
const AUTRES_FICHIERS: usize = 150;

impl EtapeVigieChiro {
    /// L'opération que le bac à sable voit à cette étape.
    fn operation(self) -> Operation {
        match self {
            EtapeVigieChiro::VerificationAdresse | EtapeVigieChiro::SondeReseau => {
                Operation::ApiMoi
            }
            EtapeVigieChiro::LectureParticipation => Operation::ApiLireParticipation,
            EtapeVigieChiro::RelectureParticipations => Operation::ApiListerParticipations,
            EtapeVigieChiro::CreationParticipation => Operation::ApiCreerParticipation,
            EtapeVigieChiro::Declaration => Operation::ApiDeclarerFichier,
            EtapeVigieChiro::UrlPartie => Operation::ApiUrlPartie,
            EtapeVigieChiro::PutSimple => Operation::PutObject,
            EtapeVigieChiro::PutPartie => Operation::UploadPart,
            EtapeVigieChiro::Finalisation => Operation::ApiFinaliser,
            EtapeVigieChiro::RelectureFichier => Operation::ApiLireFichier,
            EtapeVigieChiro::SuppressionEnregistrement => Operation::ApiAbandonner,
            EtapeVigieChiro::InventaireDistant => Operation::ApiPiecesJointes,
            EtapeVigieChiro::UrlLecture => Operation::ApiAccesFichier,
            EtapeVigieChiro::LectureObjet => Operation::GetObject,
        }
    }

    /// Le rang, parmi les requêtes de son opération, de celle qui reçoit la panne.
    fn rang(self) -> u64 {
        match self {
            // Le premier `GET /moi` est la vérification de l'adresse.
            EtapeVigieChiro::SondeReseau => 2,
            // La deuxième page de l'inventaire.
            EtapeVigieChiro::InventaireDistant => 2,
            _ => 1,
        }
    }

    /// La participation est-elle créée par `vigie` (`--site`) ?
    fn participation_a_creer(self) -> bool {
        matches!(
            self,
            EtapeVigieChiro::CreationParticipation | EtapeVigieChiro::RelectureParticipations
        )
    }
}

impl std::fmt::Display for EtapeVigieChiro {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let qualificatif = match self {
            EtapeVigieChiro::VerificationAdresse => " (vérification de l'adresse)",
            EtapeVigieChiro::SondeReseau => " (sonde du réseau)",
            EtapeVigieChiro::SuppressionEnregistrement => " (enregistrement multipart rendu)",
            EtapeVigieChiro::InventaireDistant => " (inventaire, page 2)",
            EtapeVigieChiro::LectureObjet => " (URL de lecture, Range)",
            _ => "",
        };
        write!(f, "{}{qualificatif}", self.operation())
    }
}

/// Les options de chaque passage : les réglages du banc, aux délais larges ; un délai de
/// blocage court pour la seule sorte dont c'est le sujet. Les cas partent en parallèle, chacun
/// avec son serveur : un délai court pour tous coupait, sous la charge, des transferts
/// simplement lents, et faisait d'un cas une autre histoire que la sienne.
fn options(sorte: Sorte) -> Vec<String> {
    match sorte {
        Sorte::Blocage => Banc::options_rapides_sauf("--delai-blocage", DELAI_BLOCAGE_S),
        _ => Banc::options_rapides(),
    }
}

/// Ce que `vigie depot` reçoit dans un cas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entree {
    /// Des séquences WAV prêtes, déposées telles quelles.
    Wav,
    /// Une carte brute : les originaux d'un enregistreur direct (en-tête à 384 kHz et plus,
    /// noms déjà préfixés `Car640139-2026-Pass1-A1-`), préparés au fil de l'envoi.
    CarteBrute,
}

impl Entree {
    /// Le nom de la matrice d'une destination pour cette entrée (`S3`, `S3 carte brute`).
    fn matrice(self, destination: &str) -> String {
        match self {
            Entree::Wav => destination.to_owned(),
            Entree::CarteBrute => format!("{destination} carte brute"),
        }
    }
}

/// La nuit d'un cas, telle qu'elle doit arriver : un petit fichier, et (`avec_le_grand`) un
/// fichier qui part en deux parties.
struct NuitDuCas {
    /// Chaque fichier à déposer (chemin sous la destination, octets), le petit d'abord.
    fichiers: Vec<(String, Vec<u8>)>,
    /// Le dossier qui les tient tels qu'ils doivent arriver : la nuit elle-même (WAV prêts),
    /// ou la sortie de `vigie preparer` (carte brute) ; comparé par [`empreintes_sous`].
    reference: PathBuf,
}

impl NuitDuCas {
    /// Le titre d'un fichier sur la plateforme : son nom, sans dossier.
    fn titre(chemin: &str) -> &str {
        chemin.rsplit('/').next().unwrap_or(chemin)
    }

    /// Le petit fichier : son titre et ses octets.
    fn petit(&self) -> (&str, &[u8]) {
        let (chemin, octets) = &self.fichiers[0];
        (Self::titre(chemin), octets)
    }
}

/// Écrit la nuit d'un cas dans la nuit du banc, pour cette entrée.
fn nuit(banc: &Banc, entree: Entree, avec_le_grand: bool) -> NuitDuCas {
    match entree {
        Entree::Wav => {
            let mut f = vec![(nom(1), 20_000)];
            if avec_le_grand {
                f.push((nom(2), 5 * MIO + 4_321));
            }
            let fichiers = banc
                .fichiers(f)
                .into_iter()
                .map(|(n, t)| {
                    let octets = contenu(&n, t);
                    (n, octets)
                })
                .collect();
            NuitDuCas {
                fichiers,
                reference: banc.nuit.clone(),
            }
        }
        Entree::CarteBrute => carte_brute(banc, avec_le_grand),
    }
}

/// La carte brute d'un cas : un original direct de 0,05 s à 384 kHz (une petite séquence) et,
/// `avec_le_grand`, un de 5 s à 768 kHz, dont l'unique séquence (7,7 Mo à 76,8 kHz) part en
/// deux parties. Ce qui doit arriver est ce que `vigie preparer` en écrit.
fn carte_brute(banc: &Banc, avec_le_grand: bool) -> NuitDuCas {
    let mut originaux = vec![(
        "Car640139-2026-Pass1-A1-S4U12345_20260621_224000.wav",
        384_000,
        19_200,
    )];
    if avec_le_grand {
        originaux.push((
            "Car640139-2026-Pass1-A1-S4U12345_20260621_224100.wav",
            768_000,
            5 * 768_000,
        ));
    }
    for (nom, frequence, trames) in &originaux {
        std::fs::write(
            banc.nuit.join(nom),
            wav_brut(*frequence, &contenu(nom, trames * 2)),
        )
        .unwrap();
    }
    let reference = banc.dossier.path().join("preparee");
    banc.vigie()
        .arg("preparer")
        .arg(&banc.nuit)
        .arg("--vers")
        .arg(&reference)
        .finir_en(0);
    let mut fichiers: Vec<(String, Vec<u8>)> = fichiers_sous(&reference)
        .into_iter()
        .map(|c| {
            let octets = std::fs::read(reference.join(&c)).unwrap();
            (c, octets)
        })
        .collect();
    fichiers.sort_by_key(|(_, o)| o.len());
    assert_eq!(
        fichiers.len(),
        originaux.len(),
        "une séquence par original : {:?}",
        fichiers
            .iter()
            .map(|(c, o)| (c, o.len()))
            .collect::<Vec<_>>()
    );
    NuitDuCas {
        fichiers,
        reference,
    }
}

/// Un cas de la matrice : son nom, et l'essai.
type Cas = (String, Box<dyn FnOnce() -> Result<(), String> + Send>);

/// Les cas d'une destination : chaque étape × chaque sorte de panne, nommés
/// `DESTINATION/étape/panne`.
fn cas_de<E: std::fmt::Display + Copy + Send + 'static>(
    destination: &str,
    etapes: &[E],
    essai: impl Fn(E, Sorte) -> Result<(), String> + Send + Sync + Copy + 'static,
) -> Vec<Cas> {
    // `MATRICE=sonde cargo test …` : seulement les cas dont le nom contient ce texte.
    let filtre = std::env::var("MATRICE").unwrap_or_default().to_lowercase();
    let mut cas: Vec<Cas> = Vec::new();
    for &etape in etapes {
        for sorte in SORTES {
            let nom = format!("{destination}/{etape}/{}", sorte.nom());
            if !nom.to_lowercase().contains(&filtre) {
                continue;
            }
            cas.push((nom, Box::new(move || essai(etape, sorte))));
        }
    }
    cas
}

/// Mène tous les cas, quelques-uns à la fois, et échoue en les nommant tous.
fn mener(cas: Vec<Cas>) {
    let total = cas.len();
    let file = Mutex::new(cas);
    let echecs = Mutex::new(Vec::new());
    let paralleles = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    std::thread::scope(|s| {
        for _ in 0..paralleles {
            s.spawn(|| {
                loop {
                    let Some((nom, cas)) = file.lock().unwrap().pop() else {
                        return;
                    };
                    let issue = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cas))
                        .unwrap_or_else(|p| {
                            Err(p
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_else(|| "panique".into()))
                        });
                    if let Err(e) = issue {
                        echecs.lock().unwrap().push(format!("── {nom} ──\n{e}"));
                    }
                }
            });
        }
    });
    let echecs = echecs.into_inner().unwrap();
    let noms: Vec<&str> = echecs
        .iter()
        .map(|e| e.lines().next().unwrap_or_default())
        .collect();
    assert!(
        echecs.is_empty(),
        "{} cas sur {total} en échec : {noms:?}\n\n{}",
        echecs.len(),
        echecs.join("\n\n")
    );
}

/// Vérifie une condition d'un cas, en le disant.
macro_rules! verifier {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(format!($($arg)+));
        }
    };
}

/// Le passage d'un cas doit finir en `attendu`.
fn passage(mut depot: Command, attendu: i32) -> Result<(), String> {
    let out = depot.sortie();
    verifier!(
        code(&out) == attendu,
        "code {} au lieu de {attendu}\n{}",
        code(&out),
        texte(&out)
    );
    Ok(())
}

// ------------------------------------------------------------------------------------- S3

/// Un cas S3 contre le bac à sable. Scénarios des étapes qu'un passage ordinaire n'atteint pas :
/// - `ListParts` : une reprise ([`preparer_reprise`]) ;
/// - `AbortMultipartUpload` : deux envois ouverts sur la clé par un client précédent ; le
///   passage adopte le plus récent et abandonne l'autre.
fn cas_s3_bac(entree: Entree, etape: Operation, sorte: Sorte) -> Result<(), String> {
    let banc = Banc::nouveau();
    let n = nuit(&banc, entree, true);
    let grand = banc.cle(&n.fichiers[1].0);
    let depot = || depot_s3(&banc, &banc.bac().endpoint(), COMPARTIMENT, sorte);
    match etape {
        Operation::ListParts => preparer_reprise(banc.bac().pannes(), depot())?,
        Operation::AbortMultipartUpload => {
            let client = banc.bac().client();
            for _ in 0..2 {
                banc.rt
                    .block_on(
                        client
                            .create_multipart_upload()
                            .bucket(COMPARTIMENT)
                            .key(&grand)
                            .send(),
                    )
                    .map_err(|e| format!("ouverture d'un orphelin : {e}"))?;
            }
        }
        _ => {}
    }
    banc.bac().pannes().effacer();
    banc.compteurs().remettre_a_zero();
    banc.panne(Regle::nieme(etape, None, 1, sorte.panne()));

    passage(mesure(depot(), etape), 0)?;
    let c = banc.compteurs();
    verifier!(
        banc.bac().pannes().en_attente() == 0 && c.pannes_injectees() == 1,
        "la panne n'a pas été consommée ({} injectée(s)) : le cas n'affirme rien",
        c.pannes_injectees()
    );
    // Chaque objet, octet pour octet ce qui devait arriver ; ni objet en trop, ni manquant.
    let deposes = banc.empreintes_s3();
    let attendus = empreintes_sous(&n.reference);
    verifier!(
        deposes == attendus,
        "objets différents, en trop ou manquants :\n déposés {deposes:#?}\n attendus {attendus:#?}"
    );
    let ouverts = banc.bac().envois_en_cours(COMPARTIMENT);
    verifier!(ouverts.is_empty(), "envoi multipart orphelin : {ouverts:?}");
    verifier!(
        c.traitees_cle(Operation::CompleteMultipartUpload, &grand) <= 1,
        "multipart assemblé plusieurs fois"
    );
    Ok(())
}

/// `vigie depot` de la nuit du banc vers ce compartiment, par ce point d'accès, aux options du
/// cas de cette sorte de panne.
fn depot_s3(banc: &Banc, endpoint: &str, compartiment: &str, sorte: Sorte) -> Command {
    let mut c = banc.depot_s3_sans_reglages(&banc.nuit, compartiment, endpoint);
    c.args(options(sorte));
    c
}

/// Prépare une reprise : un premier passage, une tentative par émission, bute sur la seconde
/// partie et laisse l'envoi ouvert avec sa première partie acquittée (code 1).
fn preparer_reprise(pannes: &Pannes, mut depot: Command) -> Result<(), String> {
    pannes.programmer(Regle::nieme(Operation::UploadPart, None, 2, code_http(503)).fois(100));
    depot.mots("--tentatives 1");
    passage(depot, 1).map_err(|e| format!("reprise mal préparée : {e}"))
}

/// Le passage mesuré, aux réglages de la matrice. La préparation d'une reprise a donné
/// `--tentatives 1`, que le plan retient et que reprendrait une relance sans option : le
/// passage mesuré redonne le défaut.
fn mesure(mut depot: Command, etape: Operation) -> Command {
    if etape == Operation::ListParts {
        depot.mots("--tentatives 7");
    }
    depot
}

/// La matrice S3 du bac à sable pour cette entrée.
fn matrice_s3(entree: Entree) {
    mener(cas_de(
        &entree.matrice("S3"),
        &ETAPES_S3,
        move |etape, sorte| cas_s3_bac(entree, etape, sorte),
    ));
}

#[test]
fn matrice_s3_chaque_panne_une_fois_sur_chaque_etape_un_seul_passage() {
    matrice_s3(Entree::Wav);
}

/// La même matrice S3, la nuit donnée en carte brute préparée au fil de l'envoi.
#[test]
fn matrice_s3_carte_brute_chaque_panne_une_fois_sur_chaque_etape_un_seul_passage() {
    matrice_s3(Entree::CarteBrute);
}

// ------------------------------------------------------------------- S3, second avis : moto

/// Un cas S3 contre moto, derrière le mandataire qui injecte la panne.
fn cas_s3_moto(etape: Operation, sorte: Sorte, serveur: &moto::Moto) -> Result<(), String> {
    let banc = Banc::nouveau();
    let n = nuit(&banc, Entree::Wav, true);
    let compartiment = format!(
        "m-{}-{}",
        etape.nom().to_lowercase(),
        sorte.nom().to_lowercase().replace('+', "-")
    );
    let client = serveur.client();
    banc.rt
        .block_on(client.create_bucket().bucket(&compartiment).send())
        .map_err(|e| format!("compartiment moto : {e}"))?;
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
    let grand = format!("{PREFIXE}/{}", n.fichiers[1].0);
    let depot = || depot_s3(&banc, &mandataire.endpoint(), &compartiment, sorte);
    let ouvrir = |cle: &str| {
        let _ = banc.rt.block_on(
            client
                .create_multipart_upload()
                .bucket(&compartiment)
                .key(cle)
                .send(),
        );
    };
    // Les scénarios de préparation passent par le mandataire.
    let pannes = &mandataire.pannes;
    if etape == Operation::ListParts {
        preparer_reprise(pannes, depot())?;
    }
    if etape == Operation::AbortMultipartUpload {
        // Deux envois ouverts sur la clé : le passage en adopte un et abandonne l'autre, et
        // c'est cet abandon qui reçoit la panne. moto (5.2.5) date chaque envoi de la même date
        // fixe (2010-11-10T20:48:33Z) dans ListMultipartUploads : attendre une seconde entre
        // les deux ouvertures ne les distinguait pas.
        ouvrir(&grand);
        ouvrir(&grand);
    }
    pannes.effacer();
    let avant = mandataire.pannes_injectees();
    pannes.programmer(Regle::nieme(etape, None, 1, sorte.panne()));
    passage(mesure(depot(), etape), 0)?;
    verifier!(
        pannes.en_attente() == 0 && mandataire.pannes_injectees() == avant + 1,
        "la panne n'a pas été consommée : le cas n'affirme rien"
    );
    let objets = banc.rt.block_on(moto::objets(&client, &compartiment));
    let attendus: Vec<(String, Vec<u8>)> = {
        let mut v: Vec<_> = n
            .fichiers
            .iter()
            .map(|(chemin, octets)| (format!("{PREFIXE}/{chemin}"), octets.clone()))
            .collect();
        v.sort();
        v
    };
    verifier!(
        objets == attendus,
        "objets différents, en trop ou manquants : {:?}",
        objets.iter().map(|(c, o)| (c, o.len())).collect::<Vec<_>>()
    );
    let ouverts = banc
        .rt
        .block_on(moto::envois_ouverts(&client, &compartiment));
    verifier!(ouverts.is_empty(), "envoi multipart orphelin : {ouverts:?}");
    Ok(())
}

#[test]
fn matrice_s3_contre_moto_second_avis() {
    let Some(serveur) = moto::moto() else {
        return;
    };
    mener(cas_de("moto", &ETAPES_S3, move |etape, sorte| {
        cas_s3_moto(etape, sorte, serveur)
    }));
}

// --------------------------------------------------------------------------- Vigie-Chiro

/// Ce qu'un autre client a déjà déposé sur la plateforme pour atteindre l'étape : 150 autres
/// fichiers (deux pages d'inventaire), ou le petit fichier de la nuit, à l'identique (son URL
/// de lecture, puis la lecture d'un octet). Rend le nombre d'autres fichiers, et l'`_id` du
/// petit fichier s'il est posé.
fn deja_deposes(banc: &Banc, etape: EtapeVigieChiro, n: &NuitDuCas) -> (usize, Option<String>) {
    match etape {
        EtapeVigieChiro::InventaireDistant => {
            for i in 0..AUTRES_FICHIERS {
                let n = nom(100 + i);
                banc.deja_sur_la_plateforme(&n, contenu(&n, 64));
            }
            (AUTRES_FICHIERS, None)
        }
        EtapeVigieChiro::UrlLecture | EtapeVigieChiro::LectureObjet => {
            let (titre, octets) = n.petit();
            (0, Some(banc.deja_sur_la_plateforme(titre, octets.to_vec())))
        }
        _ => (0, None),
    }
}

/// Un cas Vigie-Chiro. Scénarios :
/// - la sonde du réseau : trois coupures de suite sur les PUT simples déclarent le réseau coupé
///   (`--echecs-reseau 3`, le petit fichier seul), la sonde `/moi` reçoit la panne ;
/// - la création de participation et sa relecture : la participation est créée par `vigie`
///   (`--site`) ; pour la relecture des participations, la réponse de la création est perdue ;
/// - la relecture d'un fichier : celle d'une finalisation dont la réponse est perdue ;
/// - la suppression d'un enregistrement : un autre client a laissé, pour le petit fichier, un
///   enregistrement multipart non finalisé ; la plateforme le rend à la déclaration simple de
///   `vigie`, qui le supprime (`DELETE`) puis redéclare. Un accroc sur ce chemin ne coûte pas
///   le passage : code 0, comme partout ;
/// - l'inventaire distant, l'URL de lecture et la lecture d'un octet : voir [`deja_deposes`] ;
///   le petit fichier, déjà finalisé à l'identique, n'est alors ni redéclaré ni renvoyé.
fn cas_vigiechiro(entree: Entree, etape: EtapeVigieChiro, sorte: Sorte) -> Result<(), String> {
    let banc = Banc::nouveau();
    // Pour la sonde, le petit fichier seul : pendant l'attente entre deux de ses tentatives, sa
    // place se libère et le grand partirait ; une réponse à l'une de ses requêtes, arrivée
    // entre deux coupures, rompt la série d'échecs, et la coupure n'est jamais déclarée (vu
    // sous charge, une fois sur quelques dizaines).
    let n = nuit(&banc, entree, etape != EtapeVigieChiro::SondeReseau);
    let pannes = banc.bac().pannes();
    let creer = etape.participation_a_creer();
    let mut depot = banc.vigie_plateforme();
    depot.arg("depot").arg(&banc.nuit);
    if creer {
        depot.args([
            "--site", SITE, "--point", "B2", "--debut", DEBUT_NUIT, "--fin", FIN_NUIT,
        ]);
    } else {
        depot.args(["--participation", PARTICIPATION]);
    }
    depot
        .arg("--api")
        .arg(banc.bac().api())
        .args(options(sorte));
    let mut scenario = 0;
    let mut laisse = None;
    match etape {
        EtapeVigieChiro::SondeReseau => {
            banc.panne(Regle::toujours(Some(Operation::PutObject), Panne::Coupure).fois(3));
            depot.mots("--paralleles 1 --echecs-reseau 3");
            scenario = 3;
        }
        EtapeVigieChiro::RelectureParticipations => {
            banc.panne_prochaine(Operation::ApiCreerParticipation, Panne::PerdreReponse);
            scenario = 1;
        }
        EtapeVigieChiro::RelectureFichier => {
            banc.panne_prochaine(Operation::ApiFinaliser, Panne::PerdreReponse);
            scenario = 1;
        }
        EtapeVigieChiro::SuppressionEnregistrement => {
            laisse = Some(banc.envoi_multipart_abandonne(PARTICIPATION, n.petit().0));
        }
        _ => {}
    }
    let (autres, deja) = deja_deposes(&banc, etape, &n);
    let operation = etape.operation();
    banc.panne(Regle::nieme(operation, None, etape.rang(), sorte.panne()));

    let out = depot.sortie();
    verifier!(code(&out) == 0, "code {}\n{}", code(&out), texte(&out));
    let c = banc.compteurs();
    verifier!(
        pannes.en_attente() == 0 && c.pannes_injectees() == scenario + 1,
        "la panne n'a pas été consommée ({} injectée(s) pour {scenario} de scénario) : le cas \
         n'affirme rien\n{}",
        c.pannes_injectees(),
        texte(&out)
    );
    verifier!(
        c.requetes(operation) >= etape.rang(),
        "{} requête(s) {operation} : l'étape n'a pas été atteinte",
        c.requetes(operation)
    );
    let participation = if creer {
        let creees: Vec<_> = banc
            .bac()
            .participations(SITE)
            .into_iter()
            .filter(|p| p.point.as_deref() == Some("B2"))
            .collect();
        verifier!(creees.len() == 1, "{} participations créées", creees.len());
        creees[0].id.clone()
    } else {
        PARTICIPATION.to_owned()
    };
    let enregistres = banc.bac().fichiers();
    verifier!(
        enregistres.len() == n.fichiers.len() + autres,
        "enregistrements en double ou manquants : {enregistres:?}"
    );
    // Chaque fichier, finalisé, octet pour octet ce qui devait arriver.
    for (chemin, empreinte) in empreintes_sous(&n.reference) {
        let titre = NuitDuCas::titre(&chemin);
        let f = banc
            .bac()
            .fichier(&participation, titre)
            .ok_or_else(|| format!("{titre} inconnu de la plateforme"))?;
        verifier!(f.disponible, "{titre} non finalisé");
        verifier!(
            sha256(&banc.objet_plateforme(&participation, titre)) == empreinte,
            "{titre} : contenu différent de {chemin}"
        );
    }
    if let Some(id) = deja {
        // Déjà sur la plateforme, identique : ni redéclaré ni renvoyé.
        let f = banc.bac().fichier(&participation, n.petit().0);
        verifier!(
            f.as_ref().is_some_and(|f| f.id == id),
            "fichier déjà déposé redéclaré : {f:?}"
        );
        verifier!(
            c.requetes(Operation::ApiDeclarerFichier) == 1,
            "{} déclarations : le fichier déjà déposé a été redéclaré",
            c.requetes(Operation::ApiDeclarerFichier)
        );
    }
    if let Some(ancien) = laisse {
        // L'enregistrement laissé a été supprimé (son envoi S3 abandonné), puis redéclaré.
        let f = banc.bac().fichier(&participation, n.petit().0);
        verifier!(
            f.as_ref().is_some_and(|f| f.id != ancien && !f.multipart),
            "enregistrement laissé non remplacé : {f:?}"
        );
    }
    let orphelins = banc.bac().envois_orphelins();
    verifier!(
        orphelins.is_empty(),
        "envoi multipart orphelin : {orphelins:?}"
    );
    let ouverts = banc.bac().envois_en_cours(COMPARTIMENT_PLATEFORME);
    verifier!(
        ouverts.is_empty(),
        "envoi multipart resté ouvert : {ouverts:?}"
    );
    Ok(())
}

/// La matrice Vigie-Chiro pour cette entrée.
fn matrice_vigiechiro(entree: Entree) {
    mener(cas_de(
        &entree.matrice("Vigie-Chiro"),
        &ETAPES_VIGIECHIRO,
        move |etape, sorte| cas_vigiechiro(entree, etape, sorte),
    ));
}

#[test]
fn matrice_vigiechiro_chaque_panne_une_fois_sur_chaque_etape_un_seul_passage() {
    matrice_vigiechiro(Entree::Wav);
}

/// La même matrice Vigie-Chiro, la nuit donnée en carte brute préparée au fil de l'envoi.
#[test]
fn matrice_vigiechiro_carte_brute_chaque_panne_une_fois_sur_chaque_etape_un_seul_passage() {
    matrice_vigiechiro(Entree::CarteBrute);
}

/// Un cas de `vigie verifier` vers la plateforme : une nuit déposée sans panne (et, selon
/// l'étape, ce qu'un autre client avait déjà déposé), puis la panne une fois sur une lecture de
/// la vérification. Elle finit en un seul passage, code 0, chaque fichier intact, le plan
/// inchangé.
fn cas_verifier(etape: EtapeVigieChiro, sorte: Sorte) -> Result<(), String> {
    let banc = Banc::nouveau();
    let n = nuit(&banc, Entree::Wav, true);
    let (_, deja) = deja_deposes(&banc, etape, &n);
    passage(banc.depot_plateforme(), 0)
        .map_err(|e| format!("dépôt avant la vérification : {e}"))?;

    let pannes = banc.bac().pannes();
    let c = banc.compteurs();
    c.remettre_a_zero();
    let operation = etape.operation();
    banc.panne(Regle::nieme(operation, None, etape.rang(), sorte.panne()));
    let out = banc
        .vigie_plateforme()
        .mots("verifier --json")
        .args(Banc::reessais_rapides())
        .sortie();
    verifier!(
        code(&out) == 0,
        "code {} au lieu de 0\n{}",
        code(&out),
        texte(&out)
    );
    verifier!(
        pannes.en_attente() == 0 && c.pannes_injectees() == 1,
        "la panne n'a pas été consommée ({} injectée(s)) : le cas n'affirme rien",
        c.pannes_injectees()
    );
    verifier!(
        c.requetes(operation) >= etape.rang(),
        "{} requête(s) {operation} : l'étape n'a pas été atteinte",
        c.requetes(operation)
    );
    let bilan = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["evenement"] == "bilan_verification")
        .ok_or_else(|| format!("pas de bilan_verification\n{}", texte(&out)))?;
    verifier!(
        bilan["intactes"] == n.fichiers.len() && bilan["a_renvoyer"] == 0,
        "bilan : {bilan}"
    );
    let etat = banc.etat();
    verifier!(
        etat["unites"]["deposee"] == n.fichiers.len() && etat["definitifs"] == 0,
        "plan changé par la vérification : {etat}"
    );
    if let Some(id) = deja {
        let f = banc.bac().fichier(PARTICIPATION, n.petit().0);
        verifier!(
            f.is_some_and(|f| f.id == id),
            "fichier déjà déposé remplacé"
        );
    }
    Ok(())
}

#[test]
fn matrice_vigiechiro_verifier_chaque_panne_une_fois_sur_chaque_lecture() {
    mener(cas_de(
        "Vigie-Chiro verifier",
        &ETAPES_VERIFIER,
        cas_verifier,
    ));
}
