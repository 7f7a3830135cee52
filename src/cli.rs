//! Définitions de la ligne de commande (clap), et rien d'autre.
//!
//! Les textes sont ceux que lit un participant sur le terrain : en français, courts, et chaque
//! option dit ce qu'elle change. La logique vit dans `commandes/` ; ce fichier sert aussi à
//! produire les complétions et la page de manuel (`vigie completions`, `vigie generer-docs`).

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

/// Codes de sortie, repris dans la page de manuel.
pub const APRES_AIDE: &str = "\
Codes de sortie :
  0    toutes les unités du plan sont déposées
  1    le passage est fini mais des unités restent en échec transitoire : vigie retenter-echecs
  2    usage ou configuration invalide : rien n'a été envoyé
  3    des unités sont refusées définitivement (4xx) : un geste humain est nécessaire
  4    le plan est déjà en cours de traitement par un autre vigie
  130  interrompu (Ctrl-C) : le plan est à jour, relancer reprend";

/// Gabarit de l'aide, en français (celui de clap dit « Usage », « Commands »).
const GABARIT_AIDE: &str = "\
{before-help}{about-with-newline}
Utilisation : {usage}

{all-args}{after-help}";

/// La commande complète, aide en français jusque dans les sous-commandes : c'est elle qu'il
/// faut utiliser (analyse, complétions, page de manuel), pas `Cli::command()`.
pub fn commande() -> clap::Command {
    Cli::command()
        .help_template(GABARIT_AIDE)
        .mut_subcommands(|c| c.help_template(GABARIT_AIDE))
}

impl Cli {
    /// Analyse la ligne de commande du processus (sort en 2 sur une erreur d'usage).
    pub fn analyser() -> Cli {
        let resultat = commande()
            .try_get_matches()
            .and_then(|m| Cli::from_arg_matches(&m));
        match resultat {
            Ok(cli) => cli,
            Err(e) if !e.use_stderr() => e.exit(),
            Err(e) => {
                // Une erreur d'usage : code 2, en français.
                eprint!("{}", franciser(&e.render().to_string()));
                std::process::exit(2);
            }
        }
    }
}

/// Traduit les tournures des erreurs de clap (qui n'existent qu'en anglais) ; les noms
/// d'options, valeurs et suggestions restent tels quels.
pub fn franciser(texte: &str) -> String {
    const TOURNURES: [(&str, &str); 17] = [
        ("error: ", "erreur : "),
        ("unrecognized subcommand", "sous-commande inconnue"),
        ("unexpected argument", "argument inattendu"),
        ("found", "trouvé"),
        (
            "the following required arguments were not provided:",
            "arguments obligatoires absents :",
        ),
        ("invalid value", "valeur invalide"),
        (" for '", " pour '"),
        ("possible values:", "valeurs possibles :"),
        ("cannot be used with", "ne peut pas servir avec"),
        ("the argument", "l'argument"),
        ("a value is required", "une valeur est requise"),
        ("but none was supplied", "mais aucune n'est donnée"),
        (
            "tip: a similar subcommand exists:",
            "conseil : une sous-commande proche existe :",
        ),
        (
            "tip: a similar argument exists:",
            "conseil : un argument proche existe :",
        ),
        (
            "tip: some similar subcommands exist:",
            "conseil : des sous-commandes proches existent :",
        ),
        ("Usage: ", "Utilisation : "),
        (
            "For more information, try '--help'.",
            "Pour en savoir plus : --help.",
        ),
    ];
    TOURNURES
        .iter()
        .fold(texte.to_owned(), |t, (anglais, francais)| {
            t.replace(anglais, francais)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erreurs_d_usage_en_francais() {
        for args in [
            vec!["vigie", "deposer"],
            vec!["vigie", "depot"],
            vec![
                "vigie",
                "depot",
                "x",
                "--paralleles",
                "0",
                "--vers",
                "s3://a/b",
            ],
            vec!["vigie", "plans", "--inconnue"],
        ] {
            let e = commande()
                .try_get_matches_from(&args)
                .expect_err("erreur d'usage attendue");
            let texte = franciser(&e.render().to_string());
            assert!(texte.starts_with("erreur : "), "{args:?} : {texte}");
            assert!(texte.contains("Pour en savoir plus"), "{args:?} : {texte}");
            for anglais in ["error:", "Usage:", "tip:"] {
                assert!(!texte.contains(anglais), "{args:?} : {texte}");
            }
        }
    }
}

/// Dépose une nuit d'enregistrements Vigie-Chiro, et reprend là où l'on en était.
#[derive(Debug, Parser)]
#[command(name = "vigie", version, about, long_about = None, after_help = APRES_AIDE)]
#[command(propagate_version = true, disable_help_subcommand = true)]
#[command(disable_help_flag = true, disable_version_flag = true)]
#[command(
    subcommand_help_heading = "Commandes",
    subcommand_value_name = "COMMANDE"
)]
pub struct Cli {
    #[command(flatten)]
    pub globales: OptionsGlobales,

    /// Affiche l'aide.
    #[arg(short = 'h', long = "help", action = clap::ArgAction::Help, global = true)]
    aide: Option<bool>,

    /// Affiche la version.
    #[arg(short = 'V', long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,

    #[command(subcommand)]
    pub commande: Commande,
}

/// Options communes à toutes les sous-commandes, déclarées une seule fois.
#[derive(Debug, Args)]
#[command(next_help_heading = "Options communes")]
pub struct OptionsGlobales {
    /// Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite).
    #[arg(long, global = true, env = "VIGIE_BASE", value_name = "FICHIER")]
    pub base: Option<PathBuf>,

    /// Événements et bilan en lignes JSON sur la sortie standard.
    #[arg(long, global = true)]
    pub json: bool,

    /// Barres de progression : auto (si la sortie d'erreur est un terminal, sinon une ligne par événement), toujours, jamais.
    #[arg(long, global = true, value_enum, default_value_t = ModeProgression::Auto)]
    pub progression: ModeProgression,

    /// Plus de détails sur la sortie d'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l'emporte.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,

    /// Seulement le bilan et les erreurs.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600.
    #[arg(long, global = true, value_name = "FICHIER")]
    pub journal: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeProgression {
    Auto,
    Toujours,
    Jamais,
}

#[derive(Debug, Subcommand)]
pub enum Commande {
    /// Dépose le dossier d'une nuit ; relancer la même commande reprend le même plan.
    Depot(ArgsDepot),
    /// Relance les unités en échec transitoire, interrompues ou incertaines d'un plan.
    #[command(name = "retenter-echecs", visible_alias = "retenter")]
    RetenterEchecs(ArgsRetenter),
    /// Montre l'état d'un plan (le dernier actif par défaut).
    Etat(ArgsPlan),
    /// Liste les plans de la base.
    Plans,
    /// Relit la destination : chaque unité déposée y est-elle, intacte ?
    Verifier(ArgsVerifier),
    /// Vérifie et enregistre le jeton de la plateforme Vigie-Chiro.
    Connexion(ArgsConnexion),
    /// Efface le jeton enregistré.
    Deconnexion,
    /// Lance le calcul d'une participation sur la plateforme (jamais automatique).
    Traiter(ArgsTraiter),
    /// Démonstration : une nuit générée, déposée sur le bac à sable malgré des pannes.
    ///
    /// Fabrique une quarantaine de séquences WAV (384 kHz, 16 bits, mono) aux noms du
    /// protocole point fixe, dont deux assez grosses pour partir en parties, démarre le bac à
    /// sable (plateforme Vigie-Chiro locale et S3) avec trois pannes (un 503 avec Retry-After,
    /// une coupure en plein envoi, une réponse perdue sur une finalisation), puis lance un vrai
    /// « vigie depot » dessus, et « vigie etat ». Le code de sortie est celui du dépôt. Tout
    /// se passe dans un dossier temporaire, effacé à la fin (même après Ctrl-C), avec une base à
    /// part : votre base et votre jeton ne sont jamais touchés.
    #[cfg(feature = "bac-a-sable")]
    Demo(ArgsDemo),
    /// Sert la plateforme locale (API Vigie-Chiro + S3) sur 127.0.0.1 jusqu'à Ctrl-C.
    ///
    /// Pour des essais à la main, une formation, ou pour y pointer rclone et aws-cli : affiche
    /// l'adresse de l'API, le point d'accès S3, le compartiment « nuits », les identifiants S3
    /// (de test, publics), le jeton et la participation d'essai, et les lignes « export » à
    /// coller dans un autre terminal. Ctrl-C l'arrête proprement (code 0).
    #[cfg(feature = "bac-a-sable")]
    #[command(name = "bac-a-sable")]
    BacASable(ArgsBacASable),
    /// Écrit le script de complétion pour un shell sur la sortie standard.
    Completions {
        /// Le shell visé.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Régénère completions/ et man/ (pour les mainteneurs).
    #[command(name = "generer-docs", hide = true)]
    GenererDocs {
        /// Racine du dépôt où écrire completions/ et man/.
        #[arg(default_value = ".")]
        racine: PathBuf,
    },
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("destination").required(true).args(["vers", "participation", "site"])))]
pub struct ArgsDepot {
    /// Le dossier de la nuit (parcouru récursivement).
    pub dossier: PathBuf,

    /// Destination S3 : s3://compartiment/prefixe (clé = préfixe + chemin relatif).
    #[arg(long, value_name = "s3://COMPARTIMENT/PREFIXE")]
    pub vers: Option<String>,

    /// Participation Vigie-Chiro (créée sur le site web) qui reçoit la nuit.
    #[arg(long, value_name = "ID")]
    pub participation: Option<String>,

    /// Site Vigie-Chiro où créer la participation (avec --point, --debut, --fin).
    #[arg(long, value_name = "ID", requires_all = ["point", "debut", "fin"])]
    pub site: Option<String>,

    /// Point d'écoute de la participation à créer (ex. A1).
    #[arg(long, requires = "site")]
    pub point: Option<String>,

    /// Début de la nuit, ISO 8601 (ex. 2026-06-21T21:30:00Z).
    #[arg(long, requires = "site")]
    pub debut: Option<String>,

    /// Fin de la nuit, ISO 8601.
    #[arg(long, requires = "site")]
    pub fin: Option<String>,

    #[command(flatten)]
    pub api: OptionsApi,

    /// Accepte un point d'accès ou une API en http:// hors de la boucle locale (tout y circule en clair).
    #[arg(long)]
    pub autoriser_http: bool,

    /// Crée ou met à jour le plan et montre ce qui partirait, sans rien envoyer.
    #[arg(long)]
    pub simulation: bool,

    /// Renvoie les fichiers déjà déposés qui ont changé depuis (taille ou date).
    #[arg(long)]
    pub redeposer_modifies: bool,

    #[command(flatten)]
    pub envoi: OptionsEnvoi,

    #[command(flatten)]
    pub s3: OptionsS3,
}

#[derive(Debug, Args)]
pub struct ArgsRetenter {
    /// Le plan (son numéro) ; le dernier actif par défaut.
    pub plan: Option<i64>,

    /// Relance aussi les refus définitifs (après avoir corrigé leur cause).
    #[arg(long)]
    pub y_compris_definitifs: bool,

    #[command(flatten)]
    pub envoi: OptionsEnvoi,

    #[command(flatten)]
    pub s3: OptionsS3,
}

#[derive(Debug, Args)]
pub struct ArgsPlan {
    /// Le plan (son numéro) ; le dernier actif par défaut.
    pub plan: Option<i64>,
}

#[derive(Debug, Args)]
pub struct ArgsVerifier {
    /// Le plan (son numéro) ; le dernier actif par défaut.
    pub plan: Option<i64>,

    #[command(flatten)]
    pub envoi: OptionsEnvoi,

    #[command(flatten)]
    pub s3: OptionsS3,
}

/// Réglages de l'envoi : parallélisme, tailles, délais, réessais.
#[derive(Debug, Clone, Args)]
pub struct OptionsEnvoi {
    /// Nombre d'unités envoyées en même temps.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub paralleles: u16,

    /// Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ;
    /// par défaut 8 vers S3, 5 vers Vigie-Chiro.
    #[arg(long, value_name = "MIO", value_parser = clap::value_parser!(u64).range(5..=5120))]
    pub seuil_multipart: Option<u64>,

    /// Taille d'une partie (Mio, 5 au moins).
    #[arg(long, value_name = "MIO", default_value_t = 8, value_parser = clap::value_parser!(u64).range(5..=5120))]
    pub taille_partie: u64,

    /// Délai maximal d'une tentative (secondes).
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    pub delai_tentative: f64,

    /// Un transfert qui n'avance plus depuis ce délai (secondes) est coupé et réessayé.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub delai_blocage: f64,

    /// Nombre de tentatives par émission (profil INSISTANT).
    #[arg(long, value_name = "N", default_value_t = 7)]
    pub tentatives: u32,

    /// Attente de base entre deux tentatives (secondes), doublée à chaque échec.
    #[arg(long, value_name = "S", default_value_t = 0.5)]
    pub attente_base: f64,

    /// Plafond de l'attente entre deux tentatives (secondes).
    #[arg(long, value_name = "S", default_value_t = 8.0)]
    pub attente_max: f64,

    /// Échéance d'une émission, tentatives et attentes comprises (secondes ; le temps passé en
    /// pause réseau n'y compte pas).
    #[arg(long, value_name = "S", default_value_t = 900.0)]
    pub echeance: f64,

    /// Une coupure réseau plus longue arrête le passage (secondes). Pendant la coupure, aucune
    /// unité ne consomme de tentative : une sonde vérifie le retour du réseau.
    #[arg(long, value_name = "S", default_value_t = 600.0)]
    pub attente_reseau: f64,

    /// Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub echecs_reseau: u32,
}

/// Accès à un compartiment S3 (AWS ou compatible : OVH, Scaleway, MinIO, Garage…).
#[derive(Debug, Clone, Args)]
pub struct OptionsS3 {
    /// Point d'accès S3 (pour un service non AWS) ; active le style chemin.
    #[arg(long, env = "AWS_ENDPOINT_URL", value_name = "URL")]
    pub endpoint_url: Option<String>,

    /// Région S3.
    #[arg(long, env = "AWS_REGION", value_name = "REGION")]
    pub region: Option<String>,

    /// Profil d'identifiants AWS (~/.aws/credentials).
    #[arg(long, env = "AWS_PROFILE", value_name = "PROFIL")]
    pub profil: Option<String>,
}

/// Accès à l'API de la plateforme Vigie-Chiro.
#[derive(Debug, Clone, Args)]
pub struct OptionsApi {
    /// Base de l'API Vigie-Chiro (HTTPS exigé hors de la boucle locale).
    #[arg(long = "api", env = "VIGIE_API", value_name = "URL", default_value = crate::destination::API_VIGIECHIRO)]
    pub url: String,
}

#[derive(Debug, Args)]
pub struct ArgsConnexion {
    /// Le jeton copié depuis le site (« - » pour le lire sur l'entrée standard, sans qu'il
    /// apparaisse dans l'historique ni dans la liste des processus).
    #[arg(long, value_name = "JETON")]
    pub jeton: String,

    #[command(flatten)]
    pub api: OptionsApi,
}

#[cfg(feature = "bac-a-sable")]
#[derive(Debug, Args)]
pub struct ArgsDemo {
    /// Garde la nuit, les données du bac à sable et la base de la démonstration (le dossier
    /// est affiché).
    #[arg(long)]
    pub garder: bool,

    /// Sans pannes simulées : un dépôt sans accroc.
    #[arg(long)]
    pub sans_pannes: bool,

    /// Graine de la nuit et des pannes : la même graine rejoue la même démonstration (tirée au
    /// hasard sinon, et affichée).
    #[arg(long, value_name = "N")]
    pub graine: Option<u64>,
}

#[cfg(feature = "bac-a-sable")]
#[derive(Debug, Args)]
pub struct ArgsBacASable {
    /// Port d'écoute sur 127.0.0.1 (0 : un port libre, choisi par le système).
    #[arg(long, default_value_t = 8210)]
    pub port: u16,

    /// Dossier du bac à sable (données S3, base d'essai), gardé d'un lancement à l'autre
    /// (sinon un dossier temporaire, effacé à l'arrêt). L'état de la plateforme (fichiers
    /// déclarés) repart à zéro.
    #[arg(long, value_name = "DOSSIER")]
    pub dossier: Option<PathBuf>,

    /// Une panne à simuler (répétable), ex. « PutObject#3=503:retry-after=2 ».
    ///
    /// Forme : OPÉRATION[@clé][#rang][%pourcentage]=PANNE[:option=valeur…]. OPÉRATION : une
    /// opération S3 (PutObject, UploadPart, CompleteMultipartUpload…) ou une route de l'API
    /// (ApiDeclarerFichier, ApiFinaliser…), ou * pour toutes ; #N : la N-ième requête (une
    /// fois) ; %P : une proportion des requêtes. PANNE : un statut (503, 429, 500, 403…, avec
    /// retry-after=SECONDES ou retry-after-ms=MS), coupure-corps:TAILLE (64Kio, 1Mio),
    /// reponse-perdue, lenteur:DURÉE (500ms, 3s), bloquer:DURÉE, coupure, corps-trop-lent (S3 :
    /// 400 RequestTimeout ; API : 408) ; option fois=N.
    /// Exemples : « ApiFinaliser=reponse-perdue », « UploadPart%20=coupure-corps:1Mio »,
    /// « *%5=500 ».
    #[arg(long = "pannes", value_name = "SPEC")]
    pub pannes: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ArgsTraiter {
    /// La participation dont lancer le calcul.
    #[arg(long, value_name = "ID")]
    pub participation: String,

    #[command(flatten)]
    pub api: OptionsApi,
}
