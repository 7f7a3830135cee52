//! Pannes programmables du bac à sable : quoi injecter, sur quelle requête, combien de fois.
//!
//! Pourquoi : la politique de réessai de `vigie` ne se juge que face aux accrocs qu'elle doit
//! absorber (coupure en plein corps, 503 avec `Retry-After`, réponse perdue après traitement,
//! serveur lent ou muet, réseau absent) et à ceux qu'elle ne doit **pas** rejouer (403). Ces
//! accrocs doivent être reproductibles : une règle vise une opération, éventuellement une clé,
//! la N-ième requête qui correspond ou une proportion tirée avec une graine fixée.
//!
//! Une règle se construit en Rust ([`Regle::prochaine`], [`Regle::nieme`],
//! [`Regle::proportion`]…) ou s'écrit en texte pour `vigie bac-a-sable --pannes` et
//! `vigie demo` ([`Pannes::analyser_spec`]) :
//!
//! ```text
//! OPÉRATION[@clé][#rang][%pourcentage]=PANNE[:argument][:option=valeur…]
//!
//! PutObject#3=503:retry-after=1          la 3e PutObject reçoit 503 + Retry-After: 1
//! UploadPart@nuit/a.wav#2=coupure-corps:1Mio   la 2e UploadPart de nuit/a.wav coupée après 1 Mio
//! *%10=503                               10 % de toutes les requêtes reçoivent 503
//! CompleteMultipartUpload#1=reponse-perdue      la finalisation est exécutée, la réponse perdue
//! HeadObject=lenteur:3s                  toutes les HeadObject attendent 3 s
//! GetObject=debit:300Kio                 toutes les GetObject répondent à 300 Kio/s
//! *=403                                  tout est refusé
//! PutObject=503:retry-after=+2s:fois=3   les 3 prochaines PutObject : 503 avec une date HTTP à +2 s
//! PutObject#5=trou-noir:20s              à la 5e PutObject, plus rien ne passe pendant 20 s ;
//!                                        ensuite, les connexions d'avant restent muettes
//! ApiFinaliser#1=reponse-perdue          plateforme Vigie-Chiro : fichier finalisé, réponse perdue
//! ApiDeclarerFichier@wav/pa-ID/T.wav=503:retry-after=2   déclaration de ce fichier : 503
//! ```
//!
//! Les opérations `Api…` visent l'API Vigie-Chiro locale ; leur clé est la clé S3 du fichier
//! visé, ou l'id du site (`ApiCreerParticipation`, `ApiListerParticipations`) ou de la
//! participation (`ApiCalcul`).
//!
//! Limites de la forme texte : la clé ne peut contenir ni `#`, ni `%`, ni `=` ; une valeur
//! brute de `retry-after` ne peut pas contenir `:` (une date absolue s'écrit `@SECONDES_UNIX`).
//! Pour ces cas, construire la [`Regle`] en Rust.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::Operation;
use crate::duree::analyser as analyser_duree;

/// Dernière seconde représentable en date HTTP (31 décembre 9999 23:59:59 UTC) ; `httpdate`
/// panique au-delà, et avant 1970.
const DERNIERE_SECONDE_HTTP: u64 = 253_402_300_799;

/// Valeur d'attente annoncée avec une panne de statut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryAfter {
    /// `Retry-After: N` (secondes).
    Secondes(u64),
    /// `Retry-After: <date HTTP>` à une date fixe.
    Date(SystemTime),
    /// `Retry-After: <date HTTP>` calculée **au moment de la réponse** : maintenant + durée,
    /// arrondie à la seconde supérieure (une date HTTP n'a pas de fraction de seconde).
    DateDans(Duration),
    /// `Retry-After-Ms: N` (extension courante, millisecondes) au lieu de `Retry-After`.
    Millisecondes(u64),
    /// Valeur malformée ou géante, envoyée telle quelle dans `Retry-After`.
    Brut(String),
}

impl RetryAfter {
    /// Nom et valeur de l'en-tête à envoyer, `maintenant` servant à [`RetryAfter::DateDans`].
    pub fn entete(&self, maintenant: SystemTime) -> (&'static str, String) {
        match self {
            RetryAfter::Secondes(s) => ("retry-after", s.to_string()),
            RetryAfter::Date(t) => ("retry-after", date_http(*t)),
            RetryAfter::DateDans(d) => {
                let cible = maintenant.checked_add(*d).unwrap_or(maintenant);
                // Arrondi au-dessus : la date annoncée n'est jamais plus proche que `d`.
                let depuis_1970 = cible.duration_since(UNIX_EPOCH).unwrap_or_default();
                let mut secondes = depuis_1970.as_secs();
                if depuis_1970.subsec_nanos() > 0 {
                    secondes += 1;
                }
                (
                    "retry-after",
                    date_http(UNIX_EPOCH + Duration::from_secs(secondes)),
                )
            }
            RetryAfter::Millisecondes(ms) => ("retry-after-ms", ms.to_string()),
            RetryAfter::Brut(s) => ("retry-after", s.clone()),
        }
    }

    /// Forme texte de la valeur, dans la syntaxe de [`Pannes::analyser_spec`].
    fn option_spec(&self) -> String {
        match self {
            RetryAfter::Secondes(s) => format!("retry-after={s}"),
            RetryAfter::Date(t) => format!(
                "retry-after=@{}",
                t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
            ),
            RetryAfter::DateDans(d) => format!("retry-after=+{}", DureeSpec(*d)),
            RetryAfter::Millisecondes(ms) => format!("retry-after-ms={ms}"),
            RetryAfter::Brut(s) => format!("retry-after={s}"),
        }
    }
}

/// Date HTTP (IMF-fixdate) sans risque de panique : ramenée dans 1970..=9999.
fn date_http(t: SystemTime) -> String {
    let s = t
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
        .min(DERNIERE_SECONDE_HTTP);
    httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(s))
}

/// Ce que subit une requête touchée par une règle.
///
/// Toute panne qui « coupe la connexion » la ferme par un RST (`SO_LINGER` à zéro) : le client
/// voit « connection reset by peer » (aws-sdk-s3 : `DispatchFailure` avec `is_io()`), comme
/// lors d'une vraie coupure réseau, et jamais une réponse HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Panne {
    /// Répond `code` sans traiter la requête (son corps est lu et jeté), avec un corps d'erreur
    /// XML S3 (`SlowDown` pour 503, `InternalError` pour 500, `TooManyRequests` pour 429,
    /// `AccessDenied` pour 403…) et l'attente annoncée. Un code hors de 400..=599 est remplacé
    /// par 500.
    Statut {
        code: u16,
        retry_after: Option<RetryAfter>,
    },
    /// Laisse passer N octets du corps vers le stockage puis coupe la connexion sans réponse.
    /// Rien n'est écrit. Si le corps fait N octets ou moins, il passe en entier et la connexion
    /// est coupée à sa fin, avant tout traitement : la requête n'aboutit jamais.
    CouperCorpsApres(u64),
    /// Traite entièrement la requête (objet écrit, envoi finalisé…) puis coupe la connexion
    /// sans répondre : l'issue est inconnue du client.
    PerdreReponse,
    /// Attend la durée, sans rien lire, puis traite normalement (pour dépasser le délai de
    /// tentative du client).
    Lenteur(Duration),
    /// Comme [`Panne::Lenteur`], mais sans durée : la requête ne lit ni n'envoie rien tant que
    /// l'essai n'a pas relâché la poignée ([`Relache::relacher`]), puis est traitée
    /// normalement. Un essai qui doit agir pendant qu'une requête est en vol (modifier le
    /// fichier, lancer un second processus) le fait ainsi sans course contre une horloge. Pas
    /// de forme texte analysable (`--panne`) : seul le processus qui tient la poignée peut
    /// relâcher. À l'arrêt du bac à sable, la connexion est coupée.
    Retenir(Relache),
    /// Ne lit ni n'envoie aucun octet pendant la durée, puis coupe la connexion.
    Bloquer(Duration),
    /// Ferme la connexion aussitôt, sans lire le corps ni répondre (réseau coupé). La requête
    /// est tout de même comptée : ses en-têtes ont été lus.
    Coupure,
    /// Le serveur a attendu le corps trop longtemps et renonce, sans rien traiter : S3 répond
    /// `400 RequestTimeout` (son corps cale ~20 s sur un lien mobile), l'API `408`. Le corps est
    /// lu et jeté avant la réponse, pour que le client la reçoive.
    CorpsTropLent,
    /// Un trou noir de la durée donnée, qui commence avec cette requête (voir
    /// [`Pannes::trou_noir`]) : le téléphone a perdu le signal sans fermer les connexions, et
    /// au retour (nouvelle adresse publique, correspondance NAT perdue) elles sont mortes. Les
    /// connexions ouvertes pendant ce temps, celle de cette requête comprise, ne lisent ni
    /// n'écrivent plus rien, et ne sont jamais fermées ; celles ouvertes après répondent.
    TrouNoir(Duration),
    /// Répond `200` sans traiter la requête (son corps est lu et jeté), puis un corps qui ne
    /// finit jamais : une espace par seconde.
    CorpsSansFin,
    /// Traite la requête, puis envoie la réponse (en-têtes compris) un octet toutes les
    /// `Duration` : un relais qui étouffe la connexion.
    EntetesLents(Duration),
    /// Devant l'API, une liste paginée rend toujours sa première page, quelle que soit la page
    /// demandée, sous le numéro demandé (`_meta.page`) : une pagination cassée, qui ne finit
    /// jamais. Sans effet sur une autre requête.
    PageFigee,
    /// Traite la requête, puis envoie la réponse (en-têtes compris) à tant d'octets par seconde,
    /// sans jamais se taire : un lien lent, mais vivant (un CSV de 4 Mo sur un partage de
    /// connexion à 300 Ko/s). Ce qui progresse ne doit jamais être pris pour un silence.
    Debit(u64),
    /// Répond `200 OK` sans rien traiter (le corps est lu et jeté : rien n'est écrit), **sans
    /// `ETag`**, avec un corps d'erreur S3 (`<Error>`) : un relais, ou un service dit
    /// compatible S3, qui fait passer une erreur pour un succès. Devant l'API Vigie-Chiro :
    /// `200` et un objet JSON vide, rien n'est traité. C'est ce qu'un client ne doit jamais
    /// prendre pour une preuve de dépôt.
    FauxSucces,
    /// Traite la requête (l'objet est écrit, intact) mais rend un autre `ETag` que le MD5 du
    /// contenu, de la même forme (32 chiffres hexadécimaux) : un relais qui réécrit l'en-tête,
    /// ou des octets altérés en route. Seul l'en-tête `ETag` d'une réponse qui en porte un
    /// change ; l'API n'en porte pas.
    EtagAltere,
    /// L'horloge du service avance de tant de secondes sur le vrai temps (retarde s'il est
    /// négatif). Une requête signée SigV4 (en-tête `X-Amz-Date`, ou paramètre d'une URL
    /// présignée) qui s'en écarte de plus de 15 minutes reçoit `403 RequestTimeTooSkewed`,
    /// comme chez S3 (avec `RequestTime`, `ServerTime` et l'en-tête `Date` de ce service) ; les
    /// autres requêtes passent. Décaler le service d'une heure, c'est retarder d'une heure
    /// l'horloge du client : c'est ainsi qu'un essai simule un portable à l'heure fausse.
    Horloge(i64),
}

impl fmt::Display for Panne {
    /// Forme texte, dans la syntaxe de [`Pannes::analyser_spec`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Panne::Statut { code, retry_after } => {
                write!(f, "{code}")?;
                if let Some(r) = retry_after {
                    write!(f, ":{}", r.option_spec())?;
                }
                Ok(())
            }
            Panne::CouperCorpsApres(n) => write!(f, "coupure-corps:{n}"),
            Panne::PerdreReponse => f.write_str("reponse-perdue"),
            Panne::Lenteur(d) => write!(f, "lenteur:{}", DureeSpec(*d)),
            // Affichée pour les journaux, mais refusée par `analyser_spec` : la poignée ne
            // s'écrit pas.
            Panne::Retenir(_) => f.write_str("retenir"),
            Panne::Bloquer(d) => write!(f, "bloquer:{}", DureeSpec(*d)),
            Panne::Coupure => f.write_str("coupure"),
            Panne::CorpsTropLent => f.write_str("corps-trop-lent"),
            Panne::TrouNoir(d) => write!(f, "trou-noir:{}", DureeSpec(*d)),
            Panne::CorpsSansFin => f.write_str("corps-sans-fin"),
            Panne::EntetesLents(d) => write!(f, "entetes-lents:{}", DureeSpec(*d)),
            Panne::Debit(n) => write!(f, "debit:{n}"),
            Panne::PageFigee => f.write_str("page-figee"),
            Panne::FauxSucces => f.write_str("faux-succes"),
            Panne::EtagAltere => f.write_str("etag-altere"),
            Panne::Horloge(s) if *s < 0 => write!(f, "horloge:-{}s", s.unsigned_abs()),
            Panne::Horloge(s) => write!(f, "horloge:+{s}s"),
        }
    }
}

/// La poignée de [`Panne::Retenir`] : partagée entre l'essai et les requêtes retenues.
/// Relâchée une fois, elle le reste (les requêtes retenues ensuite passent aussitôt). Deux
/// poignées sont égales si ce sont des copies de la même.
#[derive(Debug, Clone)]
pub struct Relache(Arc<tokio::sync::watch::Sender<bool>>);

impl Relache {
    /// Une poignée neuve, pas encore relâchée.
    pub fn nouvelle() -> Relache {
        Relache(Arc::new(tokio::sync::watch::Sender::new(false)))
    }

    /// Relâche les requêtes retenues par cette poignée, et celles qui le seront.
    pub fn relacher(&self) {
        self.0.send_replace(true);
    }

    /// Vrai une fois la poignée relâchée.
    pub fn est_relachee(&self) -> bool {
        *self.0.borrow()
    }

    /// Attend la relâche (rend aussitôt si c'est déjà fait).
    pub async fn attendre(&self) {
        let mut recepteur = self.0.subscribe();
        // L'émetteur vit aussi longtemps que `self` : l'attente ne peut pas échouer.
        let _ = recepteur.wait_for(|relachee| *relachee).await;
    }
}

impl Default for Relache {
    fn default() -> Relache {
        Relache::nouvelle()
    }
}

impl PartialEq for Relache {
    fn eq(&self, autre: &Relache) -> bool {
        Arc::ptr_eq(&self.0, &autre.0)
    }
}

impl Eq for Relache {}

/// Affiche une durée en `Nms` ou `Ns` (au millième près).
struct DureeSpec(Duration);

impl fmt::Display for DureeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms.is_multiple_of(1000) {
            write!(f, "{}s", ms / 1000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

/// Ce qui peut désigner la clé visée par [`Regle::nieme`] : une clé (`&str`, `&String`) ou
/// une option (`None` = toutes les clés). Pas d'implémentation pour `String` : l'appelant
/// garderait sinon un emprunt que clippy jugerait superflu.
pub trait CleVisee {
    fn en_cle(self) -> Option<String>;
}

impl CleVisee for &str {
    fn en_cle(self) -> Option<String> {
        Some(self.to_owned())
    }
}

impl CleVisee for &String {
    fn en_cle(self) -> Option<String> {
        Some(self.clone())
    }
}

impl CleVisee for Option<&str> {
    fn en_cle(self) -> Option<String> {
        self.map(str::to_owned)
    }
}

/// Une règle : quelles requêtes elle vise et quelle panne elle leur inflige.
///
/// - `operation` : `None` = toutes les opérations.
/// - `cle` : clé d'objet exacte (décodée), `None` = toutes.
/// - `rang` : la règle ne frappe qu'à partir de la N-ième requête qui correspond à
///   `operation` + `cle` (1 = la première), comptée depuis la programmation de la règle.
///   0 vaut 1.
/// - `probabilite` : chaque requête éligible est frappée avec cette probabilité (0 à 1), tirée
///   avec la graine de [`Pannes::graine`].
/// - `fois` : nombre maximal d'applications. Par défaut : illimité si `probabilite` est donnée,
///   1 si seul `rang` l'est, illimité sinon (règle permanente).
///
/// Les règles sont examinées dans l'ordre de programmation ; la première qui frappe l'emporte.
/// Une règle à rang que la requête a déjà dépassé mais qui n'a pas encore frappé (parce qu'une
/// règle antérieure a frappé cette requête-là) frappe la suivante.
#[derive(Debug, Clone, PartialEq)]
pub struct Regle {
    pub operation: Option<Operation>,
    pub cle: Option<String>,
    pub rang: Option<u64>,
    pub probabilite: Option<f64>,
    pub fois: Option<u64>,
    pub panne: Panne,
}

impl Regle {
    /// La prochaine requête de cette opération (une fois).
    pub fn prochaine(op: Operation, panne: Panne) -> Regle {
        Regle {
            operation: Some(op),
            cle: None,
            rang: Some(1),
            probabilite: None,
            fois: None,
            panne,
        }
    }

    /// La N-ième requête de cette opération sur cette clé, une fois. `cle` : `"a.wav"`,
    /// `&cle_string`, `Some("a.wav")` ou `None` (toutes les clés).
    pub fn nieme(op: Operation, cle: impl CleVisee, n: u64, panne: Panne) -> Regle {
        Regle {
            operation: Some(op),
            cle: cle.en_cle(),
            rang: Some(n),
            probabilite: None,
            fois: None,
            panne,
        }
    }

    /// Une proportion `p` (0 à 1) de toutes les requêtes, sans limite de nombre.
    pub fn proportion(p: f64, panne: Panne) -> Regle {
        Regle {
            operation: None,
            cle: None,
            rang: None,
            probabilite: Some(p),
            fois: None,
            panne,
        }
    }

    /// Toutes les requêtes de l'opération (`None` = toutes), jusqu'à nouvel ordre.
    pub fn toujours(op: Option<Operation>, panne: Panne) -> Regle {
        Regle {
            operation: op,
            cle: None,
            rang: None,
            probabilite: None,
            fois: None,
            panne,
        }
    }

    /// Restreint la règle à une opération.
    pub fn pour(mut self, op: Operation) -> Regle {
        self.operation = Some(op);
        self
    }

    /// Restreint la règle à une clé d'objet exacte.
    pub fn sur_cle(mut self, cle: &str) -> Regle {
        self.cle = Some(cle.to_owned());
        self
    }

    /// Limite le nombre d'applications.
    pub fn fois(mut self, n: u64) -> Regle {
        self.fois = Some(n);
        self
    }

    /// Nombre maximal d'applications (`None` = illimité).
    fn limite(&self) -> Option<u64> {
        match (self.fois, self.probabilite, self.rang) {
            (Some(n), _, _) => Some(n),
            (None, Some(_), _) => None,
            (None, None, Some(_)) => Some(1),
            (None, None, None) => None,
        }
    }

    fn correspond(&self, op: Operation, cle: Option<&str>) -> bool {
        self.operation.is_none_or(|o| o == op) && self.cle.as_deref().is_none_or(|c| Some(c) == cle)
    }
}

impl fmt::Display for Regle {
    /// Forme texte, relisible par [`Pannes::analyser_spec`] (sauf valeurs brutes avec `:`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operation {
            Some(op) => write!(f, "{op}")?,
            None => f.write_str("*")?,
        }
        if let Some(c) = &self.cle {
            write!(f, "@{c}")?;
        }
        if let Some(n) = self.rang {
            write!(f, "#{n}")?;
        }
        if let Some(p) = self.probabilite {
            write!(f, "%{}", p * 100.0)?;
        }
        write!(f, "={}", self.panne)?;
        if let Some(n) = self.fois {
            write!(f, ":fois={n}")?;
        }
        Ok(())
    }
}

impl FromStr for Regle {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Pannes::analyser_spec(s)
    }
}

/// L'ensemble des règles actives, partagé par toutes les connexions du bac à sable.
pub struct Pannes {
    etat: Mutex<Etat>,
    tout_coupe: AtomicBool,
    /// Les trous noirs, passés et en cours : (début, fin).
    trous_noirs: Mutex<Vec<(Instant, Instant)>>,
    /// Les connexions englouties qu'un serveur a lâchées : gardées ouvertes (jamais fermées,
    /// jamais lues) tant que vivent les pannes.
    englouties: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
}

struct Etat {
    regles: Vec<Active>,
    alea: Xoshiro256PlusPlus,
    graine: u64,
    /// Au plus tant de pannes tirées de suite sur une même requête (voir
    /// [`Pannes::jamais_plus_de_suite`]) ; `None` : sans limite.
    de_suite_max: Option<u32>,
    /// Les pannes tirées de suite, par requête (opération et clé), depuis sa dernière réponse
    /// sans panne tirée.
    de_suite: HashMap<(Operation, Option<String>), u32>,
}

struct Active {
    regle: Regle,
    /// Requêtes correspondantes vues depuis la programmation.
    vues: u64,
    appliquees: u64,
}

impl Active {
    fn epuisee(&self) -> bool {
        self.regle.limite().is_some_and(|n| self.appliquees >= n)
    }
}

impl Default for Pannes {
    fn default() -> Self {
        Pannes::nouveau()
    }
}

impl fmt::Debug for Pannes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pannes")
            .field("regles", &self.regles())
            .field("tout_coupe", &self.tout_coupe())
            .field("graine", &self.graine_courante())
            .finish()
    }
}

impl Pannes {
    /// Aucune règle ; graine tirée au hasard (appeler [`Pannes::graine`] pour reproduire).
    pub fn nouveau() -> Pannes {
        let graine: u64 = rand::random();
        Pannes {
            etat: Mutex::new(Etat {
                regles: Vec::new(),
                alea: Xoshiro256PlusPlus::seed_from_u64(graine),
                graine,
                de_suite_max: None,
                de_suite: HashMap::new(),
            }),
            tout_coupe: AtomicBool::new(false),
            trous_noirs: Mutex::new(Vec::new()),
            englouties: Mutex::new(Vec::new()),
        }
    }

    fn etat(&self) -> MutexGuard<'_, Etat> {
        // Les règles restent cohérentes même si un porteur du verrou a paniqué.
        self.etat.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ajoute une règle, examinée après celles déjà programmées. Les règles épuisées sont
    /// oubliées à cette occasion.
    pub fn programmer(&self, r: Regle) {
        let mut etat = self.etat();
        etat.regles.retain(|a| !a.epuisee());
        etat.regles.push(Active {
            regle: r,
            vues: 0,
            appliquees: 0,
        });
    }

    /// Analyse puis programme une règle écrite en texte.
    #[cfg(test)]
    pub(crate) fn programmer_spec(&self, spec: &str) -> Result<(), String> {
        self.programmer(Pannes::analyser_spec(spec)?);
        Ok(())
    }

    /// Fixe la graine des tirages de probabilité (reproductibles à requêtes égales, dans le même
    /// ordre : avec des envois parallèles, l'ordre d'arrivée varie et les tirages aussi).
    /// Générateur : Xoshiro256++, dont la suite est stable d'une version de `rand` à l'autre.
    pub fn graine(&self, g: u64) {
        let mut etat = self.etat();
        etat.alea = Xoshiro256PlusPlus::seed_from_u64(g);
        etat.graine = g;
    }

    /// Une même requête (même opération, même clé) ne reçoit jamais plus de `n` pannes tirées
    /// (règles à proportion) de suite : la suivante échappe au tirage. Les règles à rang ou
    /// permanentes n'en sont pas touchées.
    ///
    /// Pourquoi : sous une proportion de pannes, une étape de `vigie` (une écriture sans
    /// réponse et les relectures qui lèvent son issue, qui partagent ses tentatives) peut
    /// épuiser ses tentatives si le tirage frappe plusieurs fois de suite la même requête. Un
    /// essai qui exige la fin du dépôt dépendrait alors du tirage ; avec `n = 1`, chaque
    /// requête ratée passe à sa tentative suivante, et l'essai ne dépend plus que de ce que
    /// `vigie` fait de chaque panne.
    pub fn jamais_plus_de_suite(&self, n: u32) {
        let mut etat = self.etat();
        etat.de_suite_max = Some(n);
        etat.de_suite.clear();
    }

    /// Graine en cours (tirée au hasard au démarrage si [`Pannes::graine`] n'a pas été appelée).
    pub(crate) fn graine_courante(&self) -> u64 {
        self.etat().graine
    }

    /// Panne réseau totale : tant qu'elle est active, toute requête subit [`Panne::Coupure`],
    /// avant toute règle (les règles ne voient pas ces requêtes).
    pub fn couper_tout(&self, actif: bool) {
        self.tout_coupe.store(actif, Ordering::SeqCst);
    }

    /// Un trou noir, à partir de maintenant et pendant `duree` : ce que le téléphone envoie se
    /// perd, sans réponse ni refus ni fermeture. Les connexions ouvertes avant sa fin, qu'elles
    /// l'aient été avant lui ou pendant, ne lisent ni n'écrivent plus jamais rien (au retour du
    /// réseau, le téléphone a une autre adresse : elles sont mortes sans le savoir) et ne sont
    /// jamais fermées ; celles ouvertes après sa fin répondent normalement (voir
    /// [`Pannes::englouti`]).
    pub fn trou_noir(&self, duree: Duration) {
        let debut = Instant::now();
        self.trous_noirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((debut, debut + duree));
    }

    /// Une connexion ouverte à `ouverte` est-elle engloutie par un trou noir (commencé, et
    /// dont la fin est venue après son ouverture) ?
    pub fn englouti(&self, ouverte: Instant) -> bool {
        let maintenant = Instant::now();
        self.trous_noirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|(debut, fin)| *debut <= maintenant && ouverte < *fin)
    }

    /// Garde ouverte une connexion engloutie que son serveur lâche (voir
    /// [`Pannes::englouti`]) : elle ne sera fermée qu'avec les pannes.
    pub(crate) fn garder_ouverte(&self, connexion: Box<dyn std::any::Any + Send>) {
        self.englouties
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(connexion);
    }

    /// La fin du dernier trou noir commencé, s'il y en a un.
    pub fn fin_du_trou_noir(&self) -> Option<Instant> {
        let maintenant = Instant::now();
        self.trous_noirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(debut, _)| *debut <= maintenant)
            .map(|(_, fin)| *fin)
            .max()
    }

    /// Le réseau est-il coupé par [`Pannes::couper_tout`] ?
    pub(crate) fn tout_coupe(&self) -> bool {
        self.tout_coupe.load(Ordering::SeqCst)
    }

    /// Retire toutes les règles et rétablit le réseau (`couper_tout(false)`). La graine reste.
    pub fn effacer(&self) {
        self.etat().regles.clear();
        self.couper_tout(false);
    }

    /// Règles qui peuvent encore s'appliquer, dans l'ordre d'examen.
    pub fn regles(&self) -> Vec<Regle> {
        self.etat()
            .regles
            .iter()
            .filter(|a| !a.epuisee())
            .map(|a| a.regle.clone())
            .collect()
    }

    /// Nombre de règles qui peuvent encore s'appliquer (0 : toutes les pannes à nombre limité
    /// ont été consommées et il n'y a pas de règle permanente).
    pub fn en_attente(&self) -> usize {
        self.etat().regles.iter().filter(|a| !a.epuisee()).count()
    }

    /// Décide du sort d'une requête reçue : compte-la pour chaque règle qui lui correspond et
    /// rend la panne de la première qui frappe. Public pour qu'un mandataire de test applique
    /// les mêmes règles devant un autre serveur S3 (second avis).
    pub fn decider(&self, op: Operation, cle: Option<&str>) -> Option<Panne> {
        if self.tout_coupe() {
            return Some(Panne::Coupure);
        }
        let mut etat = self.etat();
        let Etat {
            regles,
            alea,
            de_suite_max,
            de_suite,
            ..
        } = &mut *etat;
        let identite = (op, cle.map(str::to_owned));
        let deja = de_suite_max.map(|_| de_suite.get(&identite).copied().unwrap_or(0));
        let tirage_permis = match (*de_suite_max, deja) {
            (Some(max), Some(n)) => n < max,
            _ => true,
        };
        let mut choisie = None;
        let mut tiree = false;
        for a in regles.iter_mut() {
            if !a.regle.correspond(op, cle) {
                continue;
            }
            a.vues += 1;
            if choisie.is_some() || a.epuisee() {
                continue;
            }
            if a.regle.rang.is_some_and(|n| a.vues < n.max(1)) {
                continue;
            }
            if let Some(p) = a.regle.probabilite {
                if !tirage_permis {
                    continue;
                }
                // NaN → 0 ; hors de [0, 1] → ramené (random_bool panique sinon).
                let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
                if !alea.random_bool(p) {
                    continue;
                }
                tiree = true;
            }
            a.appliquees += 1;
            choisie = Some(a.regle.panne.clone());
        }
        if let Some(n) = deja {
            if tiree {
                de_suite.insert(identite, n + 1);
            } else {
                de_suite.remove(&identite);
            }
        }
        drop(etat);
        // Un trou noir commence avec la requête qui le déclenche.
        if let Some(Panne::TrouNoir(d)) = &choisie {
            self.trou_noir(*d);
        }
        choisie
    }

    /// Analyse une règle écrite en texte (pour `vigie bac-a-sable --pannes` et `vigie demo`).
    ///
    /// ```text
    /// OPÉRATION[@clé][#rang][%pourcentage]=PANNE[:argument][:option=valeur…]
    /// ```
    /// - OPÉRATION : un nom S3 (`PutObject`, `UploadPart`, `CompleteMultipartUpload`…) ou
    ///   d'une route de l'API Vigie-Chiro (`ApiDeclarerFichier`, `ApiFinaliser`…), casse
    ///   indifférente, ou `*` pour toutes ;
    /// - `@clé` : clé d'objet exacte ; `#N` : à partir de la N-ième requête (une fois par
    ///   défaut) ; `%P` : proportion en pourcentage (0 à 100, décimales admises) ;
    /// - PANNE : `NNN` (statut 400 à 599 ; options `retry-after=SECONDES`, `retry-after=+DURÉE`
    ///   (date HTTP calculée à l'envoi), `retry-after=@SECONDES_UNIX` (date fixe),
    ///   `retry-after=TEXTE` (valeur brute, malformée exprès), `retry-after-ms=MS`),
    ///   `coupure-corps:TAILLE` (`1048576`, `64Kio`, `1Mio`), `reponse-perdue`,
    ///   `lenteur:DURÉE` (`500ms`, `3s`, `1.5s`, `2min`), `bloquer:DURÉE`, `coupure`,
    ///   `corps-trop-lent`, `trou-noir:DURÉE`, `corps-sans-fin`, `entetes-lents:DURÉE`,
    ///   `debit:TAILLE` (par seconde : `300Kio`, `300Kio/s`), `page-figee` ;
    /// - option commune `fois=N` : nombre maximal d'applications.
    pub fn analyser_spec(spec: &str) -> Result<Regle, String> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(format!("règle de panne vide ; {FORME}"));
        }
        let Some((selecteur, panne)) = spec.split_once('=') else {
            return Err(format!(
                "« {spec} » : il manque « =PANNE » après le sélecteur (par ex. « {spec}=503 ») ; {PANNES_ADMISES}"
            ));
        };
        let selection = analyser_selecteur(selecteur.trim())
            .map_err(|e| format!("règle « {spec} » : {e} ; {FORME}"))?;
        let (panne, fois) =
            analyser_panne(panne.trim()).map_err(|e| format!("règle « {spec} » : {e}"))?;
        Ok(Regle {
            operation: selection.operation,
            cle: selection.cle,
            rang: selection.rang,
            probabilite: selection.probabilite,
            fois,
            panne,
        })
    }
}

const FORME: &str = "forme attendue : OPÉRATION[@clé][#rang][%pourcentage]=PANNE[:option=valeur], \
par ex. « PutObject#3=503:retry-after=1 », « UploadPart@nuit/a.wav#2=coupure-corps:1Mio », \
« *%10=503 », « HeadObject=lenteur:3s »";

const PANNES_ADMISES: &str = "pannes admises : un statut HTTP de 400 à 599 (ex. « 503 », \
options « retry-after=SECONDES|+DURÉE|@SECONDES_UNIX|TEXTE » ou « retry-after-ms=MS »), \
« coupure-corps:TAILLE » (ex. 1Mio), « reponse-perdue », « lenteur:DURÉE » (ex. 3s), \
« bloquer:DURÉE », « coupure », « corps-trop-lent » (S3 : 400 RequestTimeout ; API : 408), \
« trou-noir:DURÉE » (ex. 20s : plus rien ne passe, sans fermeture ; au retour, les connexions \
d'avant sont mortes), « corps-sans-fin » (200, puis une espace par seconde), \
« entetes-lents:DURÉE » (la réponse, en-têtes compris, un octet par DURÉE), \
« debit:TAILLE » (la réponse à TAILLE par seconde, ex. 300Kio), « page-figee » (une liste \
de l'API rend toujours sa première page), « faux-succes » \
(200 sans ETag ni écriture), « etag-altere » (objet écrit, autre ETag rendu), \
« horloge:±DURÉE » (horloge du service décalée, ex. +2h : 403 RequestTimeTooSkewed) ; \
option commune « fois=N »";

struct Selection {
    operation: Option<Operation>,
    cle: Option<String>,
    rang: Option<u64>,
    probabilite: Option<f64>,
}

fn analyser_selecteur(s: &str) -> Result<Selection, String> {
    let fin_nom = s.find(['@', '#', '%']).unwrap_or(s.len());
    let (nom, mut reste) = s.split_at(fin_nom);
    let nom = nom.trim();
    let operation = match nom {
        "" => {
            return Err("opération manquante avant « = » (« * » pour toutes)".to_owned());
        }
        "*" => None,
        _ => Some(nom.parse::<Operation>()?),
    };
    let mut selection = Selection {
        operation,
        cle: None,
        rang: None,
        probabilite: None,
    };
    while let Some(signe) = reste.chars().next() {
        let corps = &reste[signe.len_utf8()..];
        // La clé peut contenir « @ » ; seuls « # » et « % » la terminent.
        let fin = match signe {
            '@' => corps.find(['#', '%']),
            _ => corps.find(['@', '#', '%']),
        }
        .unwrap_or(corps.len());
        let (valeur, suite) = corps.split_at(fin);
        reste = suite;
        match signe {
            '@' => {
                if selection.cle.is_some() {
                    return Err("clé « @… » donnée deux fois".to_owned());
                }
                if valeur.is_empty() {
                    return Err("clé vide après « @ » (par ex. « @nuit/a.wav »)".to_owned());
                }
                selection.cle = Some(valeur.to_owned());
            }
            '#' => {
                if selection.rang.is_some() {
                    return Err("rang « #… » donné deux fois".to_owned());
                }
                let n = valeur.trim().parse::<u64>().ok().filter(|n| *n >= 1);
                let Some(n) = n else {
                    return Err(format!(
                        "rang « #{valeur} » invalide : entier ≥ 1 attendu (1 = la première requête)"
                    ));
                };
                selection.rang = Some(n);
            }
            '%' => {
                if selection.probabilite.is_some() {
                    return Err("pourcentage « %… » donné deux fois".to_owned());
                }
                let p = valeur
                    .trim()
                    .replace(',', ".")
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=100.0).contains(p));
                let Some(p) = p else {
                    return Err(format!(
                        "pourcentage « %{valeur} » invalide : nombre de 0 à 100 attendu (par ex. « %10 » ou « %2.5 »)"
                    ));
                };
                selection.probabilite = Some(p / 100.0);
            }
            _ => unreachable!("seuls @, # et % terminent un segment du sélecteur"),
        }
    }
    Ok(selection)
}

fn analyser_panne(s: &str) -> Result<(Panne, Option<u64>), String> {
    let mut morceaux = s.split(':');
    let nom = morceaux.next().unwrap_or("").trim();
    if nom.is_empty() {
        return Err(format!("panne manquante après « = » ; {PANNES_ADMISES}"));
    }
    let mut arguments: Vec<&str> = Vec::new();
    let mut options: Vec<(String, &str)> = Vec::new();
    for m in morceaux {
        match m.split_once('=') {
            Some((k, v)) => options.push((k.trim().to_ascii_lowercase(), v.trim())),
            None => arguments.push(m.trim()),
        }
    }

    // Option commune à toutes les pannes.
    let mut fois = None;
    let mut retry_after = None;
    for (k, v) in &options {
        match k.as_str() {
            "fois" => {
                if fois.is_some() {
                    return Err("option « fois » donnée deux fois".to_owned());
                }
                let n = v.parse::<u64>().ok().filter(|n| *n >= 1);
                let Some(n) = n else {
                    return Err(format!("« fois={v} » invalide : entier ≥ 1 attendu"));
                };
                fois = Some(n);
            }
            "retry-after" | "retry-after-ms" => {
                if retry_after.is_some() {
                    return Err(
                        "une seule option « retry-after » ou « retry-after-ms » par panne"
                            .to_owned(),
                    );
                }
                retry_after = Some(analyser_retry_after(k, v)?);
            }
            _ => {
                return Err(format!(
                    "option « {k} » inconnue : options admises « fois=N », et pour un statut « retry-after=… » ou « retry-after-ms=… »"
                ));
            }
        }
    }

    let nom_min = nom.to_lowercase();
    let attendre_arguments = |n: usize, forme: &str| -> Result<(), String> {
        if arguments.len() == n {
            Ok(())
        } else if arguments.len() < n {
            Err(format!("« {nom} » demande un argument : « {forme} »"))
        } else {
            Err(format!(
                "« {nom} » : argument en trop, forme attendue « {forme} »"
            ))
        }
    };
    let refuser_retry_after = |panne: &str| -> Result<(), String> {
        if retry_after.is_some() {
            Err(format!(
                "« retry-after » ne s'applique qu'à un statut (ex. « 503:retry-after=1 »), pas à « {panne} »"
            ))
        } else {
            Ok(())
        }
    };

    let panne = if nom.chars().all(|c| c.is_ascii_digit()) {
        let code = nom.parse::<u16>().ok().filter(|c| (400..=599).contains(c));
        let Some(code) = code else {
            return Err(format!(
                "statut « {nom} » invalide : de 400 à 599 attendu (ex. 503, 429, 500, 403)"
            ));
        };
        attendre_arguments(0, "503:retry-after=1")?;
        Panne::Statut { code, retry_after }
    } else {
        match nom_min.as_str() {
            "coupure-corps" | "couper-corps" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "coupure-corps:1Mio")?;
                Panne::CouperCorpsApres(analyser_taille(arguments[0])?)
            }
            "reponse-perdue" | "réponse-perdue" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "reponse-perdue")?;
                Panne::PerdreReponse
            }
            "lenteur" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "lenteur:3s")?;
                Panne::Lenteur(analyser_duree(arguments[0])?)
            }
            "bloquer" | "blocage" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "bloquer:30s")?;
                Panne::Bloquer(analyser_duree(arguments[0])?)
            }
            "coupure" | "reseau-coupe" | "réseau-coupé" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "coupure")?;
                Panne::Coupure
            }
            "corps-trop-lent" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "corps-trop-lent")?;
                Panne::CorpsTropLent
            }
            "trou-noir" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "trou-noir:20s")?;
                Panne::TrouNoir(analyser_duree(arguments[0])?)
            }
            "corps-sans-fin" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "corps-sans-fin")?;
                Panne::CorpsSansFin
            }
            "entetes-lents" | "en-tetes-lents" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "entetes-lents:5s")?;
                Panne::EntetesLents(analyser_duree(arguments[0])?)
            }
            "debit" | "débit" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "debit:300Kio")?;
                let par_seconde = arguments[0].trim();
                let par_seconde = par_seconde.strip_suffix("/s").unwrap_or(par_seconde);
                match analyser_taille(par_seconde)? {
                    0 => return Err("« debit:0 » : un débit d'au moins 1 octet par seconde".into()),
                    n => Panne::Debit(n),
                }
            }
            "page-figee" | "page-figée" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "page-figee")?;
                Panne::PageFigee
            }
            "faux-succes" | "faux-succès" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "faux-succes")?;
                Panne::FauxSucces
            }
            "etag-altere" | "etag-altéré" => {
                refuser_retry_after(nom)?;
                attendre_arguments(0, "etag-altere")?;
                Panne::EtagAltere
            }
            "horloge" => {
                refuser_retry_after(nom)?;
                attendre_arguments(1, "horloge:+2h")?;
                Panne::Horloge(analyser_decalage(arguments[0])?)
            }
            _ => return Err(format!("panne inconnue « {nom} » ; {PANNES_ADMISES}")),
        }
    };
    Ok((panne, fois))
}

fn analyser_retry_after(option: &str, v: &str) -> Result<RetryAfter, String> {
    if v.is_empty() {
        return Err(format!("« {option}= » sans valeur (ex. « {option}=2 »)"));
    }
    if option == "retry-after-ms" {
        return v
            .parse::<u64>()
            .map(RetryAfter::Millisecondes)
            .map_err(|_| {
                format!(
                    "« retry-after-ms={v} » invalide : entier de millisecondes attendu (ex. 1500)"
                )
            });
    }
    if v.bytes().all(|b| b.is_ascii_digit())
        && let Ok(s) = v.parse::<u64>()
    {
        return Ok(RetryAfter::Secondes(s));
    }
    if let Some(d) = v.strip_prefix('+')
        && let Ok(d) = analyser_duree(d)
    {
        return Ok(RetryAfter::DateDans(d));
    }
    if let Some(s) = v.strip_prefix('@')
        && !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit())
    {
        let s = s
            .parse::<u64>()
            .ok()
            .filter(|s| *s <= DERNIERE_SECONDE_HTTP)
            .ok_or_else(|| {
                format!(
                    "« retry-after={v} » : date Unix hors de portée (au plus {DERNIERE_SECONDE_HTTP}, fin de l'an 9999)"
                )
            })?;
        return Ok(RetryAfter::Date(UNIX_EPOCH + Duration::from_secs(s)));
    }
    if v.chars().any(char::is_control) {
        return Err(format!(
            "« retry-after » : caractère de contrôle interdit dans un en-tête HTTP ({v:?})"
        ));
    }
    // Tout le reste est envoyé tel quel : c'est le moyen de tester une valeur malformée
    // (« bientot », « -1 », « 1.5 », un entier géant…).
    Ok(RetryAfter::Brut(v.to_owned()))
}

/// `+2h`, `-30min`, `2h` (en avance par défaut) : un décalage d'horloge en secondes.
fn analyser_decalage(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (signe, duree) = match s.strip_prefix('-') {
        Some(reste) => (-1, reste),
        None => (1, s.strip_prefix('+').unwrap_or(s)),
    };
    let d = analyser_duree(duree)
        .map_err(|e| format!("décalage d'horloge « {s} » : {e} (ex. « +2h », « -30min »)"))?;
    Ok(signe * d.as_secs() as i64)
}

/// `1048576`, `64Kio`, `1Mio`, `2G` (multiples binaires).
fn analyser_taille(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let fin = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (nombre, unite) = s.split_at(fin);
    let multiple: u64 = match unite.trim().to_ascii_lowercase().as_str() {
        "" | "o" | "b" => 1,
        "k" | "ki" | "kio" | "kib" => 1 << 10,
        "m" | "mi" | "mio" | "mib" => 1 << 20,
        "g" | "gi" | "gio" | "gib" => 1 << 30,
        u => {
            return Err(format!(
                "unité de taille « {u} » inconnue dans « {s} » : octets, Kio, Mio ou Gio"
            ));
        }
    };
    nombre
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiple))
        .ok_or_else(|| {
            format!("taille « {s} » invalide : nombre d'octets attendu (ex. 1048576, 64Kio, 1Mio)")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jamais_plus_d_une_panne_tiree_de_suite_sur_la_meme_requete() {
        let p = Pannes::nouveau();
        p.graine(7);
        p.programmer(Regle::proportion(1.0, Panne::Coupure));
        p.programmer(Regle::nieme(
            Operation::HeadObject,
            "c",
            2,
            Panne::PerdreReponse,
        ));
        p.jamais_plus_de_suite(1);
        let suite = |op, cle| {
            (0..4)
                .map(|_| p.decider(op, Some(cle)).is_some())
                .collect::<Vec<_>>()
        };
        // Toujours tirée, mais jamais deux fois de suite sur la même requête…
        assert_eq!(suite(Operation::PutObject, "a"), [true, false, true, false]);
        // … chaque requête comptée à part…
        assert_eq!(
            p.decider(Operation::PutObject, Some("b")),
            Some(Panne::Coupure)
        );
        assert_eq!(
            p.decider(Operation::PutObject, Some("a")),
            Some(Panne::Coupure)
        );
        // … et une règle à rang frappe quand même (la 2e HeadObject de « c »).
        assert_eq!(suite(Operation::HeadObject, "c"), [true, true, true, false]);
    }

    fn spec(s: &str) -> Regle {
        Pannes::analyser_spec(s).unwrap_or_else(|e| panic!("{s} : {e}"))
    }

    #[test]
    fn specs_valides() {
        let r = spec("PutObject#3=503:retry-after=1");
        assert_eq!(r.operation, Some(Operation::PutObject));
        assert_eq!(r.rang, Some(3));
        assert_eq!(
            r.panne,
            Panne::Statut {
                code: 503,
                retry_after: Some(RetryAfter::Secondes(1))
            }
        );
        assert_eq!(r.fois, None);

        let r = spec("UploadPart@cle/a.wav#2=coupure-corps:1048576");
        assert_eq!(r.operation, Some(Operation::UploadPart));
        assert_eq!(r.cle.as_deref(), Some("cle/a.wav"));
        assert_eq!(r.rang, Some(2));
        assert_eq!(r.panne, Panne::CouperCorpsApres(1_048_576));

        let r = spec("*%10=503");
        assert_eq!(r.operation, None);
        assert_eq!(r.probabilite, Some(0.1));

        let r = spec("CompleteMultipartUpload#1=reponse-perdue");
        assert_eq!(r.panne, Panne::PerdreReponse);

        let r = spec("HeadObject=lenteur:3s");
        assert_eq!(r.panne, Panne::Lenteur(Duration::from_secs(3)));
        assert_eq!((r.rang, r.probabilite, r.fois), (None, None, None));

        let r = spec("*=403");
        assert_eq!(
            r.panne,
            Panne::Statut {
                code: 403,
                retry_after: None
            }
        );

        let r = spec(" putobject = coupure : fois=2 ");
        assert_eq!(r.operation, Some(Operation::PutObject));
        assert_eq!((r.panne, r.fois), (Panne::Coupure, Some(2)));

        assert_eq!(
            spec("*=bloquer:1.5s").panne,
            Panne::Bloquer(Duration::from_millis(1500))
        );
        assert_eq!(
            spec("*=lenteur:250ms").panne,
            Panne::Lenteur(Duration::from_millis(250))
        );
        assert_eq!(
            spec("*=coupure-corps:64Kio").panne,
            Panne::CouperCorpsApres(65_536)
        );
        assert_eq!(spec("*%2,5=500").probabilite, Some(0.025));
        // la clé peut contenir « @ » et des espaces
        assert_eq!(
            spec("PutObject@a@b c.wav=500").cle.as_deref(),
            Some("a@b c.wav")
        );
    }

    #[test]
    fn faux_succes_etag_altere_et_horloge() {
        assert_eq!(spec("PutObject=faux-succes").panne, Panne::FauxSucces);
        assert_eq!(spec("PutObject=etag-altere").panne, Panne::EtagAltere);
        assert_eq!(spec("*=horloge:+2h").panne, Panne::Horloge(7200));
        assert_eq!(spec("*=horloge:2h").panne, Panne::Horloge(7200));
        assert_eq!(spec("*=horloge:-30min").panne, Panne::Horloge(-1800));
        for (s, attendu) in [
            ("*=horloge", "demande un argument"),
            ("*=horloge:deux", "décalage d'horloge"),
            ("*=faux-succes:1s", "argument en trop"),
            (
                "*=etag-altere:retry-after=1",
                "ne s'applique qu'à un statut",
            ),
        ] {
            let e = Pannes::analyser_spec(s).unwrap_err();
            assert!(e.contains(attendu), "« {s} » → « {e} »");
        }
    }

    #[test]
    fn retry_after_sous_toutes_ses_formes() {
        let ra = |s: &str| match spec(s).panne {
            Panne::Statut { retry_after, .. } => retry_after,
            p => panic!("{p:?}"),
        };
        assert_eq!(ra("*=503:retry-after=7"), Some(RetryAfter::Secondes(7)));
        assert_eq!(
            ra("*=503:retry-after=+2s"),
            Some(RetryAfter::DateDans(Duration::from_secs(2)))
        );
        assert_eq!(
            ra("*=503:retry-after=@1700000000"),
            Some(RetryAfter::Date(
                UNIX_EPOCH + Duration::from_secs(1_700_000_000)
            ))
        );
        assert_eq!(
            ra("*=429:retry-after-ms=1500"),
            Some(RetryAfter::Millisecondes(1500))
        );
        assert_eq!(
            ra("*=503:retry-after=bientot"),
            Some(RetryAfter::Brut("bientot".into()))
        );
        assert_eq!(
            ra("*=503:retry-after=99999999999999999999999"),
            Some(RetryAfter::Brut("99999999999999999999999".into()))
        );
        assert_eq!(
            ra("*=503:retry-after=-1"),
            Some(RetryAfter::Brut("-1".into()))
        );
        assert_eq!(
            ra("*=503:retry-after=+5"),
            Some(RetryAfter::Brut("+5".into()))
        );
    }

    #[test]
    fn specs_invalides_avec_un_message_utile() {
        let cas = [
            ("", "vide"),
            ("PutObject#3", "=PANNE"),
            ("PutObjet=503", "opération inconnue « PutObjet »"),
            ("=503", "opération manquante"),
            ("PutObject#0=503", "entier ≥ 1"),
            ("PutObject#deux=503", "rang « #deux »"),
            ("*%150=503", "de 0 à 100"),
            ("PutObject@=503", "clé vide"),
            ("PutObject#1#2=503", "deux fois"),
            ("*=5003", "statut « 5003 »"),
            ("*=200", "de 400 à 599"),
            ("*=", "panne manquante"),
            ("*=coupure-corps", "demande un argument"),
            ("*=coupure-corps:beaucoup", "taille « beaucoup »"),
            ("*=coupure-corps:1To", "unité de taille"),
            ("*=lenteur:3", "sans unité"),
            ("*=lenteur:3j", "unité de durée"),
            ("*=lenteur:-1s", "nombre positif"),
            ("*=coupure:3s", "argument en trop"),
            ("*=explosion", "panne inconnue « explosion »"),
            ("*=503:fois=0", "fois=0"),
            ("*=503:couleur=rouge", "option « couleur » inconnue"),
            ("*=lenteur:1s:retry-after=1", "ne s'applique qu'à un statut"),
            ("*=503:retry-after=1:retry-after-ms=5", "une seule option"),
            ("*=503:retry-after-ms=bientot", "retry-after-ms=bientot"),
            ("*=503:retry-after=", "sans valeur"),
            ("*=503:retry-after=@99999999999999", "hors de portée"),
        ];
        for (s, attendu) in cas {
            match Pannes::analyser_spec(s) {
                Ok(r) => panic!("« {s} » aurait dû être refusée, obtenu {r:?}"),
                Err(e) => assert!(
                    e.contains(attendu),
                    "« {s} » → « {e} » (attendu « {attendu} »)"
                ),
            }
        }
        // le message rappelle la forme attendue
        let e = Pannes::analyser_spec("PutObjet=503").unwrap_err();
        assert!(e.contains("PutObject#3=503"), "{e}");
    }

    /// Un trou noir engloutit les connexions ouvertes avant sa fin, dès son début et pour
    /// toujours ; celles ouvertes après répondent. Une règle le déclenche à sa requête.
    #[test]
    fn un_trou_noir_engloutit_les_connexions_d_avant_sa_fin() {
        let p = Pannes::nouveau();
        let avant = Instant::now();
        assert!(!p.englouti(avant));
        p.programmer(spec("PutObject#2=trou-noir:50ms"));
        assert_eq!(p.decider(Operation::PutObject, None), None);
        assert!(!p.englouti(avant), "pas de trou noir avant la 2e requête");
        assert_eq!(
            p.decider(Operation::PutObject, None),
            Some(Panne::TrouNoir(Duration::from_millis(50)))
        );
        assert!(p.englouti(avant));
        let pendant = Instant::now();
        assert!(p.englouti(pendant));
        std::thread::sleep(Duration::from_millis(60));
        assert!(p.englouti(avant) && p.englouti(pendant), "mortes à jamais");
        assert!(!p.englouti(Instant::now()), "une connexion neuve répond");
        assert!(p.fin_du_trou_noir().is_some_and(|f| f <= Instant::now()));
    }

    #[test]
    fn affichage_relisible() {
        for s in [
            "PutObject#3=503:retry-after=1",
            "UploadPart@nuit/a.wav#2=coupure-corps:1048576",
            "*%10=503",
            "CompleteMultipartUpload#1=reponse-perdue",
            "HeadObject=lenteur:3s",
            "*=bloquer:250ms",
            "*=403",
            "PutObject=503:retry-after=+2s:fois=3",
            "PutObject=503:retry-after=@1700000000",
            "*=429:retry-after-ms=1500",
            "*=coupure:fois=2",
            "PutObject#5=trou-noir:20s",
            "ApiMoi=corps-sans-fin",
            "PutObject#3=entetes-lents:5s",
            "GetObject=debit:307200",
            "ApiMesSites=page-figee",
            "PutObject#1=faux-succes",
            "PutObject=etag-altere:fois=2",
            "*=horloge:+7200s",
            "*=horloge:-1800s",
        ] {
            let r = spec(s);
            assert_eq!(r.to_string(), s);
            assert_eq!(spec(&r.to_string()), r);
        }
    }

    #[test]
    fn en_tetes_retry_after() {
        let t = UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(
            RetryAfter::Date(t).entete(t),
            ("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT".to_owned())
        );
        // +1,2 s depuis …:00.5 → …:01.7 → arrondi à …:02
        let maintenant = t + Duration::from_millis(500);
        assert_eq!(
            RetryAfter::DateDans(Duration::from_millis(1200))
                .entete(maintenant)
                .1,
            "Wed, 21 Oct 2015 07:28:02 GMT"
        );
        assert_eq!(
            RetryAfter::Millisecondes(1500).entete(t),
            ("retry-after-ms", "1500".to_owned())
        );
        // pas de panique hors de 1970..=9999
        let loin = UNIX_EPOCH + Duration::from_secs(DERNIERE_SECONDE_HTTP + 1000);
        assert_eq!(
            RetryAfter::Date(loin).entete(t).1,
            "Fri, 31 Dec 9999 23:59:59 GMT"
        );
    }

    #[test]
    fn rang_cle_et_fois() {
        let p = Pannes::nouveau();
        p.programmer(Regle::nieme(
            Operation::PutObject,
            "a.wav",
            3,
            Panne::Coupure,
        ));
        let mut vu = Vec::new();
        for cle in ["a.wav", "b.wav", "a.wav", "a.wav", "a.wav"] {
            vu.push(p.decider(Operation::PutObject, Some(cle)).is_some());
        }
        assert_eq!(vu, [false, false, false, true, false]);
        assert_eq!(p.en_attente(), 0);

        // à partir de la 2e, deux fois
        p.programmer(Regle::nieme(Operation::HeadObject, None, 2, Panne::Coupure).fois(2));
        let vu: Vec<bool> = (0..5)
            .map(|_| p.decider(Operation::HeadObject, Some("x")).is_some())
            .collect();
        assert_eq!(vu, [false, true, true, false, false]);
    }

    #[test]
    fn une_regle_a_rang_preemptee_frappe_la_suivante() {
        let p = Pannes::nouveau();
        p.programmer(Regle::prochaine(Operation::PutObject, Panne::Coupure));
        p.programmer(Regle::prochaine(Operation::PutObject, Panne::PerdreReponse));
        assert_eq!(p.decider(Operation::PutObject, None), Some(Panne::Coupure));
        assert_eq!(
            p.decider(Operation::PutObject, None),
            Some(Panne::PerdreReponse)
        );
        assert_eq!(p.decider(Operation::PutObject, None), None);
    }

    #[test]
    fn permanente_et_couper_tout() {
        let p = Pannes::nouveau();
        p.programmer_spec("HeadObject=lenteur:1s").expect("spec");
        for _ in 0..3 {
            assert!(p.decider(Operation::HeadObject, None).is_some());
        }
        assert_eq!(p.decider(Operation::PutObject, None), None);
        p.couper_tout(true);
        assert_eq!(p.decider(Operation::PutObject, None), Some(Panne::Coupure));
        p.effacer();
        assert!(!p.tout_coupe());
        assert_eq!(p.decider(Operation::HeadObject, None), None);
    }

    #[test]
    fn proportion_reproductible_avec_la_graine() {
        let tirer = |graine: u64| {
            let p = Pannes::nouveau();
            p.graine(graine);
            p.programmer(Regle::proportion(0.3, Panne::Coupure));
            (0..200)
                .map(|_| p.decider(Operation::PutObject, None).is_some())
                .collect::<Vec<_>>()
        };
        let a = tirer(42);
        assert_eq!(a, tirer(42));
        assert_ne!(a, tirer(43));
        let n = a.iter().filter(|x| **x).count();
        assert!((30..=90).contains(&n), "{n} pannes sur 200 à 30 %");
        // probabilités hors bornes : ramenées, pas de panique
        let p = Pannes::nouveau();
        p.programmer(Regle::proportion(f64::NAN, Panne::Coupure));
        p.programmer(Regle::proportion(7.0, Panne::PerdreReponse));
        assert_eq!(
            p.decider(Operation::PutObject, None),
            Some(Panne::PerdreReponse)
        );
    }
}
