//! Définitions de la ligne de commande (clap), et rien d'autre.
//!
//! Les textes sont ceux que lit un participant sur le terrain : en français, courts, et chaque
//! option dit ce qu'elle change. La logique vit dans `commandes/` ; ce fichier sert aussi à
//! produire les complétions et la page de manuel (`vigie completions`, `vigie generer-docs`).
//!
//! Les `///` des commandes et des options sont les textes de `--help` et de la page de manuel,
//! écrits pour le terminal : `Car<site>-…` ou une adresse nue y sont voulus. rustdoc, qui les
//! lit comme du Markdown, n'a pas à les corriger.
#![allow(rustdoc::invalid_html_tags, rustdoc::bare_urls)]

use std::path::PathBuf;

pub(crate) mod cadences;
pub(crate) mod depot;
pub mod docs;
pub(crate) mod emission;
pub(crate) mod reglages;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::duree::Secondes;
use crate::plateforme::Systeme;
use crate::reessai::{ECHEANCE_DEPOT_PAR_DEFAUT, Reglages};
use crate::transport::{PauseReseau, ReglagesEmission};

/// Codes de sortie, repris dans la page de manuel.
pub(crate) const APRES_AIDE: &str = concat!(
    "\
Codes de sortie :
  0    tous les fichiers du plan sont déposés
  1    le passage est fini mais des fichiers restent en échec transitoire : vigie retenter-echecs
  2    usage ou configuration invalide : rien n'a été envoyé
  3    des fichiers sont refusés définitivement (4xx), ou, en saison, des fichiers ne se
       rattachent à aucun de vos sites, ou la participation d'une nuit n'a pu être créée
       (les autres nuits sont parties) : un geste humain est nécessaire
  4    le plan est déjà en cours de traitement par un autre vigie
  130  interrompu (Ctrl-C) : ",
    crate::sortie::sens_du_code_interrompu!()
);

/// Gabarit de l'aide, en français (celui de clap dit « Usage », « Commands »).
const GABARIT_AIDE: &str = "\
{before-help}{about-with-newline}
Utilisation : {usage}

{all-args}{after-help}";

/// La commande complète, aide en français jusque dans les sous-commandes : c'est elle qu'il
/// faut utiliser (analyse, complétions, page de manuel), pas `Cli::command()`. Sous Windows,
/// ses textes sont dits avec les mots de Windows ([`commande_pour`]).
pub fn commande() -> clap::Command {
    commande_pour(Systeme::ICI)
}

/// La commande, ses textes dits pour `systeme` : pour Windows, passés par
/// `plateforme::mots::pour_windows` (`%LOCALAPPDATA%` au lieu de XDG…) ; la page de manuel de
/// Windows se tire de celle-ci sur tout système.
pub(crate) fn commande_pour(systeme: Systeme) -> clap::Command {
    let c = franciser_commande(Cli::command());
    match systeme {
        Systeme::Unix => c,
        Systeme::Windows => aux_mots_de_windows(c),
    }
}

fn aux_mots_de_windows(mut c: clap::Command) -> clap::Command {
    use crate::plateforme::mots::pour_windows;
    let texte = |t: Option<&clap::builder::StyledStr>| t.map(|t| pour_windows(&t.to_string()));
    if let Some(t) = texte(c.get_about()) {
        c = c.about(t);
    }
    if let Some(t) = texte(c.get_long_about()) {
        c = c.long_about(t);
    }
    if let Some(t) = texte(c.get_after_help()) {
        c = c.after_help(t);
    }
    if let Some(t) = texte(c.get_after_long_help()) {
        c = c.after_long_help(t);
    }
    c.mut_args(|mut a| {
        if let Some(t) = texte(a.get_help()) {
            a = a.help(t);
        }
        if let Some(t) = texte(a.get_long_help()) {
            a = a.long_help(t);
        }
        a
    })
    .mut_subcommands(aux_mots_de_windows)
}

/// Ce qu'est une DURÉE, dit une fois au bout de l'aide longue de chaque commande qui en prend
/// une, et dans la page de manuel (`cli/docs.rs`). Les options en secondes
/// ([`Secondes`]) lisent aussi un nombre seul, comme avant qu'elles prennent une unité.
macro_rules! aide_durees {
    () => {
        "DURÉE : un nombre et son unité (500ms, 30s, 2min, 6h ; virgule décimale admise) ; \
         là où l'aide de l'option dit « secondes », un nombre seul compte en secondes."
    };
}
pub(crate) use aide_durees;

fn franciser_commande(c: clap::Command) -> clap::Command {
    c.help_template(GABARIT_AIDE)
        .mut_args(franciser_argument)
        .mut_subcommands(|sous| {
            let durees = sous.get_arguments().any(|a| {
                a.get_value_names()
                    .is_some_and(|v| v.iter().any(|n| n == "DURÉE"))
            });
            // L'aide courte (-h) dit où est le reste ; la longue (--help) est ce reste.
            franciser_commande(sous)
                .after_help("Toutes les options et le détail : --help (ou man vigie).")
                .after_long_help(if durees { aide_durees!() } else { "" })
        })
}

/// Les titres d'options que seule l'aide longue (`--help`, la page de manuel) montre : l'aide
/// courte (`-h`) s'en tient à ce qu'une bénévole tape un jour de dépôt.
const TITRES_DE_L_AIDE_LONGUE: [&str; 4] = [
    "Options avancées",
    "Options S3",
    "Options communes",
    TITRE_DESCRIPTION,
];

/// Le titre des options qui décrivent le matériel et la météo d'une nuit : nombreuses, elles
/// allongeraient l'aide courte de chaque commande qui dépose ; l'aide longue les montre.
const TITRE_DESCRIPTION: &str = "Matériel et météo (vers la plateforme)";

/// Les options de ces titres que l'aide courte montre quand même.
const TOUJOURS_DANS_L_AIDE_COURTE: [&str; 3] = ["quiet", "aide", "version"];

/// Une option d'expert (sous l'un des [`TITRES_DE_L_AIDE_LONGUE`]) n'est que dans l'aide
/// longue.
fn aide_courte_ou_longue(a: clap::Arg) -> clap::Arg {
    let experte = a
        .get_help_heading()
        .is_some_and(|t| TITRES_DE_L_AIDE_LONGUE.contains(&t))
        && !TOUJOURS_DANS_L_AIDE_COURTE.contains(&a.get_id().as_str());
    if experte { a.hide_short_help(true) } else { a }
}

/// clap écrit en anglais, dans l'aide comme dans la page de manuel, « [default: 4] »,
/// « [env: VIGIE_BASE=] » et « [possible values: …] » : on les cache, et on les redit en
/// français au bout de l'aide de l'option (« [défaut : 4] », « [variable : VIGIE_BASE] »,
/// « [valeurs : …] », ces dernières seulement si l'aide ne les cite pas déjà).
fn franciser_argument(a: clap::Arg) -> clap::Arg {
    let a = aide_courte_ou_longue(a);
    // Un drapeau (--json) n'a ni valeur ni défaut à dire.
    if !a.get_action().takes_values() {
        return a;
    }
    let mut ajouts = Vec::new();
    let aide = a.get_help().map(ToString::to_string).unwrap_or_default();
    let valeurs: Vec<String> = a
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_owned())
        .collect();
    if !valeurs.is_empty() && !valeurs.iter().all(|v| aide.contains(v.as_str())) {
        ajouts.push(format!("[valeurs : {}]", valeurs.join(", ")));
    }
    let defauts: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defauts.is_empty() && !a.is_hide_default_value_set() {
        ajouts.push(format!("[défaut : {}]", defauts.join(", ")));
    }
    if let Some(variable) = a.get_env().filter(|_| !a.is_hide_env_set()) {
        ajouts.push(format!("[variable : {}]", variable.to_string_lossy()));
    }
    if ajouts.is_empty() {
        // Les valeurs possibles, s'il y en a, sont toutes citées par l'aide.
        return a.hide_possible_values(true);
    }
    let suite = ajouts.join(" ");
    let a = a
        .hide_default_value(true)
        .hide_env(true)
        .hide_possible_values(true);
    // Une aide courte distincte de la longue reste courte : le détail va à la longue.
    match a.get_long_help().map(|l| format!("{l} {suite}")) {
        Some(l) => a.long_help(l),
        None => a.help(format!("{aide} {suite}")),
    }
}

impl Cli {
    /// Analyse la ligne de commande du processus (sort en 2 sur une erreur d'usage). `vigie`
    /// seul écrit le premier écran ([`premier_ecran`]) et sort en 0.
    pub fn analyser() -> Cli {
        Cli::analyser_depuis(std::env::args_os().collect())
    }

    /// Analyse `arguments` (le nom du programme d'abord) comme [`Cli::analyser`] : la commande
    /// qu'un geste de l'explorateur de Windows revient à taper.
    pub fn analyser_depuis(arguments: Vec<std::ffi::OsString>) -> Cli {
        let resultat = commande()
            .try_get_matches_from(&arguments)
            .and_then(|m| Cli::depuis_correspondances(&m));
        match resultat {
            Ok(cli) => cli,
            Err(_) if arguments.len() <= 1 => {
                use std::io::Write;
                let _ = write!(crate::sortie::standard(), "{}", premier_ecran());
                std::process::exit(0);
            }
            Err(e) if !e.use_stderr() => e.exit(),
            Err(e) => {
                // Une erreur d'usage : code 2, en français.
                eprint!("{}", erreur_d_usage(&e, &arguments));
                std::process::exit(2);
            }
        }
    }
}

/// Le texte d'une erreur d'usage, en français : celui de clap traduit, la ligne d'usage de la
/// sous-commande, et pour une option longue écrite avec un seul tiret (`-simulation`, que
/// clap lit comme `-s -i -m…` et à qui il conseillerait « écrivez '-- -s' »), la bonne
/// orthographe.
fn erreur_d_usage(e: &clap::Error, arguments: &[std::ffi::OsString]) -> String {
    if e.kind() == clap::error::ErrorKind::MissingSubcommand {
        return format!("erreur : il manque la commande.\n\n{}", premier_ecran());
    }
    let texte = franciser(&usage_sans_variables(&e.render().to_string(), commande()));
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return texte;
    }
    let Some((tape, voulu)) = option_a_un_tiret(arguments) else {
        return texte;
    };
    texte
        .lines()
        .map(|l| {
            if l.starts_with("erreur : argument inattendu") {
                format!("erreur : argument inattendu '{tape}'")
            } else if l.trim_start().starts_with("conseil :") {
                format!("  conseil : voulez-vous dire {voulu} ?")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Le premier argument écrit `-nom` (un seul tiret) alors que `--nom` est une option de la
/// commande tapée (ou commune) : ce qui a été tapé, et ce qui était voulu.
fn option_a_un_tiret(arguments: &[std::ffi::OsString]) -> Option<(String, String)> {
    let mut racine = commande();
    racine.build();
    let mots: Vec<&str> = arguments
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .collect();
    let sous = mots.iter().find_map(|m| racine.find_subcommand(m));
    let longues: Vec<&str> = racine
        .get_arguments()
        .chain(sous.into_iter().flat_map(|s| s.get_arguments()))
        .filter_map(clap::Arg::get_long)
        .collect();
    mots.iter().find_map(|m| {
        let nom = m.strip_prefix('-').filter(|n| !n.starts_with('-'))?;
        let (nom, valeur) = match nom.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (nom, None),
        };
        (nom.chars().count() > 1 && longues.contains(&nom)).then(|| {
            let voulu = match valeur {
                Some(v) => format!("--{nom}={v}"),
                None => format!("--{nom}"),
            };
            ((*m).to_owned(), voulu)
        })
    })
}

/// Ce que `vigie.exe` écrit, double-cliqué dans l'explorateur de Windows (sa console n'est qu'à
/// lui : `plateforme::explorateur`), au lieu du premier écran, qui apprend des commandes à taper
/// : le geste de la souris qui dépose, et où taper le reste. `main` attend ensuite Entrée.
pub fn guide_de_l_explorateur() -> String {
    let aide = crate::plateforme::conseil::commande("-h");
    format!(
        "vigie dépose vos nuits d'enregistrements Vigie-Chiro, même sur un réseau\n\
         qui coupe.\n\n\
         Pour déposer : fermez cette fenêtre, puis faites glisser le dossier de la\n\
         carte (ou d'une nuit) sur l'icône de vigie.exe. La première fois, vigie\n\
         demande votre jeton : la longue suite qui suit « ?token= » dans l'adresse\n\
         du site Vigie-Chiro, une fois connecté. Si le réseau coupe, refaites le\n\
         même geste : vigie reprend là où il en était.\n\n\
         Pour le reste (l'état d'un dépôt, le calcul, les résultats), ouvrez\n\
         PowerShell dans le dossier de vigie.exe (tapez powershell dans la barre\n\
         d'adresse de l'explorateur, puis Entrée), puis tapez :\n\
         \x20 {aide}\n\
         Le mode d'emploi : LISEZMOI.txt et MANUEL.txt, à côté de vigie.exe.\n"
    )
}

/// Ce que `vigie` seul écrit : les commandes de tous les jours, et comment avoir le reste. Un
/// écran (25 lignes au plus) : la liste complète est dans `vigie -h`.
pub(crate) fn premier_ecran() -> String {
    let mut commandes = vec![
        (
            "vigie connexion --jeton -",
            "enregistrer votre jeton (une fois)",
        ),
        ("vigie depot DOSSIER", "déposer une saison ou une nuit"),
        ("vigie etat", "où en est le dernier dépôt"),
        ("vigie retenter-echecs", "relancer les fichiers en échec"),
        ("vigie traiter", "lancer le calcul sur la plateforme"),
        ("vigie traitement", "où en est le calcul"),
        ("vigie resultats", "télécharger les résultats du calcul"),
    ];
    if cfg!(feature = "bac-a-sable") {
        commandes.push(("vigie demo", "voir vigie à l'œuvre, sans réseau"));
    }
    let reste = [
        ("vigie -h", "toutes les commandes"),
        ("vigie COMMANDE -h", "l'aide d'une commande"),
        ("vigie COMMANDE --help", "tout le détail (ou : man vigie)"),
    ];
    let largeur = commandes
        .iter()
        .chain(&reste)
        .map(|(c, _)| c.chars().count())
        .max()
        .unwrap_or(0);
    let lignes = |liste: &[(&str, &str)]| -> String {
        liste
            .iter()
            .map(|(c, d)| format!("  {c:<largeur$}  {d}\n"))
            .collect()
    };
    format!(
        "vigie dépose vos nuits d'enregistrements Vigie-Chiro, même sur un réseau\n\
         qui coupe : relancer la même commande reprend là où elle en était.\n\n\
         Les commandes de tous les jours :\n{}\nPour le reste :\n{}",
        lignes(&commandes),
        lignes(&reste)
    )
}

/// clap met dans la ligne d'usage d'une erreur les options « présentes », et compte pour
/// telles celles qu'une variable d'environnement donne (`VIGIE_API`, `AWS_ENDPOINT_URL`,
/// `AWS_REGION`, `VIGIE_BASE`) : « `Usage: vigie depot --api <URL> --endpoint-url <URL> …` »
/// les montre alors comme obligatoires. On remet la ligne d'usage de la sous-commande telle
/// que la donne `--help`, où seul ce qui est obligatoire figure.
fn usage_sans_variables(texte: &str, mut racine: clap::Command) -> String {
    let Some(ligne) = texte.lines().find(|l| l.starts_with("Usage: ")) else {
        return texte.to_owned();
    };
    racine.build();
    // « Usage: vigie depot … » : les mots qui suivent le nom du binaire et nomment des
    // sous-commandes désignent celle dont on veut l'usage.
    let mut courante = &mut racine;
    for mot in ligne.split_whitespace().skip(2) {
        if courante.find_subcommand(mot).is_none() {
            break;
        }
        courante = courante
            .find_subcommand_mut(mot)
            .expect("sous-commande trouvée juste avant");
    }
    let usage = courante.render_usage().to_string();
    match usage.lines().next() {
        Some(juste) => texte.replacen(ligne, juste, 1),
        None => texte.to_owned(),
    }
}

impl Cli {
    /// La ligne de commande analysée, avec, pour `depot` et `retenter-echecs`, les réglages
    /// d'envoi donnés explicitement (sur la ligne de commande ou par leur variable) : eux seuls
    /// l'emportent sur ceux que retient le plan.
    pub(crate) fn depuis_correspondances(m: &clap::ArgMatches) -> Result<Cli, clap::Error> {
        let mut cli = Cli::from_arg_matches(m)?;
        let envoi = match &mut cli.commande {
            Commande::Depot(a) => Some(&mut a.envoi),
            Commande::RetenterEchecs(a) => Some(&mut a.envoi),
            _ => None,
        };
        if let (Some(envoi), Some((_, sous))) = (envoi, m.subcommand()) {
            let explicites = reglages::noms(envoi)
                .into_iter()
                .filter(|nom| {
                    matches!(
                        sous.value_source(nom),
                        Some(clap::parser::ValueSource::CommandLine)
                            | Some(clap::parser::ValueSource::EnvVariable)
                    )
                })
                .map(str::to_owned)
                .collect();
            envoi.explicites = reglages::Explicites(explicites);
        }
        Ok(cli)
    }
}

/// Traduit les tournures des erreurs de clap (qui n'existent qu'en anglais) ; les noms
/// d'options, valeurs et suggestions restent tels quels. Les phrases entières passent avant
/// les mots qu'elles contiennent (« invalid digit found in string » avant « found »).
pub(crate) fn franciser(texte: &str) -> String {
    const TOURNURES: [(&str, &str); 30] = [
        ("error: ", "erreur : "),
        ("unrecognized subcommand", "sous-commande inconnue"),
        ("unexpected argument", "argument inattendu"),
        ("unexpected value", "valeur inattendue"),
        ("; no more were expected", " : cette option n'en prend pas"),
        (
            "the following required arguments were not provided:",
            "arguments obligatoires absents :",
        ),
        (
            "invalid digit found in string",
            "ce n'est pas un nombre entier",
        ),
        ("invalid float literal", "ce n'est pas un nombre (ex. 0.5)"),
        (
            "number too large to fit in target type",
            "nombre trop grand",
        ),
        (
            "number too small to fit in target type",
            "nombre trop petit",
        ),
        ("cannot parse integer from empty string", "valeur vide"),
        ("invalid value", "valeur invalide"),
        (" for '", " pour '"),
        ("': ", "' : "),
        ("possible values:", "valeurs possibles :"),
        (
            "cannot be used multiple times",
            "ne peut être donné qu'une fois",
        ),
        ("cannot be used with", "ne peut pas servir avec"),
        ("the argument", "l'argument"),
        ("a value is required", "une valeur est requise"),
        ("but none was supplied", "mais aucune n'est donnée"),
        (
            "equal sign is needed when assigning values to",
            "il faut un signe égal pour donner une valeur à",
        ),
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
        (
            "tip: some similar arguments exist:",
            "conseil : des arguments proches existent :",
        ),
        ("tip: to pass", "conseil : pour passer"),
        ("as a value, use", "comme valeur, écrivez"),
        ("tip: ", "conseil : "),
        ("Usage: ", "Utilisation : "),
        (
            "For more information, try '--help'.",
            "Pour en savoir plus : --help.",
        ),
    ];
    static HORS_INTERVALLE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(-?[0-9]+) is not in (-?[0-9]+)\.\.=(-?[0-9]+)").expect("motif valide")
    });
    let texte = TOURNURES
        .iter()
        .fold(texte.to_owned(), |t, (anglais, francais)| {
            t.replace(anglais, francais)
        })
        .replace("' found", "'");
    // « 'depot --simulation' exists » : une option de sous-commande donnée avant elle.
    static OPTION_D_UNE_COMMANDE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(r"'([a-z-]+) (--?[a-z-]+)' exists").expect("motif valide")
        });
    let texte =
        OPTION_D_UNE_COMMANDE.replace_all(&texte, "$2 s'écrit après sa commande : vigie $1 $2");
    HORS_INTERVALLE
        .replace_all(&texte, "$1 n'est pas entre $2 et $3")
        .into_owned()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Les mots anglais que clap écrit de lui-même.
    pub(crate) const ANGLAIS_DE_CLAP: [&str; 26] = [
        "exists",
        "subcommand",
        "error",
        "Usage",
        "tip:",
        "found",
        "invalid ",
        "is not in",
        "cannot",
        "expected",
        "required",
        "provided",
        "possible values",
        "Possible values",
        "[default:",
        "[env:",
        "digit",
        "literal",
        "similar",
        "supplied",
        "unexpected",
        "unrecognized",
        "Print help",
        "Print version",
        "[aliases:",
        "For more information",
    ];

    /// Les options qu'une variable d'environnement donne ne sont pas obligatoires : la ligne
    /// d'usage d'une erreur ne les montre pas comme telles.
    #[test]
    fn ligne_d_usage_sans_les_options_donnees_par_variable() {
        // Données sur la ligne, elles sont « présentes » pour clap comme si une variable les
        // donnait (l'essai d'intégration pose les variables elles-mêmes).
        let erreur = commande()
            .try_get_matches_from(["vigie", "depot", "--api", "http://127.0.0.1:1/api/v1"])
            .unwrap_err();
        let brut = erreur.render().to_string();
        assert!(brut.contains("Usage: vigie depot"), "{brut}");
        let texte = franciser(&usage_sans_variables(&brut, commande()));
        let usage = texte
            .lines()
            .find(|l| l.starts_with("Utilisation : "))
            .unwrap_or_default();
        assert!(usage.starts_with("Utilisation : vigie depot "), "{texte}");
        assert!(usage.contains("<DOSSIER>"), "{texte}");
        for option in ["--api", "--endpoint-url", "--region", "--base"] {
            assert!(!usage.contains(option), "{option} : {texte}");
        }
    }

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
            vec![
                "vigie",
                "depot",
                "x",
                "--paralleles",
                "abc",
                "--vers",
                "s3://a/b",
            ],
            vec![
                "vigie",
                "depot",
                "x",
                "--attente-base",
                "abc",
                "--vers",
                "s3://a/b",
            ],
            vec![
                "vigie", "depot", "x", "--vers", "s3://a/b", "--vers", "s3://c/d",
            ],
            vec![
                "vigie",
                "depot",
                "x",
                "--vers",
                "s3://a/b",
                "--participation",
                "1",
            ],
            vec!["vigie", "--progression", "rien", "plans"],
            vec!["vigie", "plans", "--json=oui"],
            vec!["vigie", "completions", "cmd"],
            vec!["vigie", "connexion", "--jeton"],
            vec!["vigie", "plans", "--", "-x"],
            vec!["vigie", "depot", "x", "--vers"],
            vec!["vigie", "plnas"],
            vec!["vigie", "retenter", "--y-compris"],
            vec!["vigie", "--simulation", "depot", "x"],
            vec!["vigie", "depot", "-simulation"],
        ] {
            let e = commande()
                .try_get_matches_from(&args)
                .expect_err("erreur d'usage attendue");
            let arguments: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
            let texte = erreur_d_usage(&e, &arguments);
            assert!(texte.starts_with("erreur : "), "{args:?} : {texte}");
            assert!(texte.contains("Pour en savoir plus"), "{args:?} : {texte}");
            for anglais in ANGLAIS_DE_CLAP {
                assert!(
                    !texte.contains(anglais),
                    "{args:?} : « {anglais} » dans {texte}"
                );
            }
        }
    }
}

/// Dépose une nuit d'enregistrements Vigie-Chiro, et reprend là où l'on en était.
#[derive(Debug, Parser)]
#[command(
    name = "vigie",
    version,
    about,
    long_about = None,
    after_help = "Aide d'une commande : vigie COMMANDE -h ; tout le détail : --help, man vigie.",
    after_long_help = APRES_AIDE
)]
#[command(propagate_version = true, disable_help_subcommand = true)]
#[command(disable_help_flag = true, disable_version_flag = true)]
#[command(
    subcommand_help_heading = "Commandes",
    subcommand_value_name = "COMMANDE"
)]
pub struct Cli {
    #[command(flatten)]
    pub globales: OptionsGlobales,

    /// Affiche l'aide (--help : le détail et toutes les options).
    #[arg(short = 'h', long = "help", action = clap::ArgAction::Help, global = true)]
    aide: Option<bool>,

    /// Affiche la version.
    #[arg(short = 'V', long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,

    #[command(subcommand)]
    pub(crate) commande: Commande,
}

/// Options communes à toutes les sous-commandes, déclarées une seule fois.
#[derive(Debug, Args)]
#[command(next_help_heading = "Options communes")]
pub struct OptionsGlobales {
    /// Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite).
    #[arg(long, global = true, env = "VIGIE_BASE", value_name = "FICHIER")]
    pub(crate) base: Option<PathBuf>,

    /// Événements et bilan en lignes JSON sur la sortie standard.
    #[arg(long, global = true)]
    pub json: bool,

    /// Barres de progression : auto (si la sortie d'erreur est un terminal, sinon une ligne par événement), toujours, jamais.
    #[arg(long, global = true, value_enum, default_value_t = ModeProgression::Auto)]
    pub(crate) progression: ModeProgression,

    /// Plus de détails sur la sortie d'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l'emporte.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub(crate) verbose: u8,

    /// Seulement le bilan et les erreurs.
    #[arg(short, long, global = true)]
    pub(crate) quiet: bool,

    /// Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600.
    #[arg(long, global = true, value_name = "FICHIER")]
    pub(crate) journal: Option<PathBuf>,
}

impl OptionsGlobales {
    /// Comment parler : lignes JSON (`--json`), et en silence (`-q`).
    pub(crate) fn mode_sortie(&self) -> crate::suivi::calcul::ModeSortie {
        crate::suivi::calcul::ModeSortie {
            json: self.json,
            silencieux: self.quiet,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeProgression {
    Auto,
    Toujours,
    Jamais,
}

impl From<ModeProgression> for crate::suivi::Progression {
    fn from(m: ModeProgression) -> Self {
        match m {
            ModeProgression::Auto => Self::Auto,
            ModeProgression::Toujours => Self::Toujours,
            ModeProgression::Jamais => Self::Jamais,
        }
    }
}

// `ArgsDepot` est le plus gros (ses options de matériel et de météo comprises) : la ligne de
// commande n'est lue qu'une fois par processus, la place n'y compte pas.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub(crate) enum Commande {
    /// Dépose une saison ou une nuit ; relancer la même commande reprend.
    ///
    /// Une saison : chaque nuit dans sa participation. Relancer la même commande reprend les
    /// mêmes plans, et leurs réglages d'envoi (ceux donnés au dépôt sont retenus par le plan).
    Depot(ArgsDepot),
    /// Reprend ce qui reste de la saison : nuits entamées, en échec, pas commencées (alias :
    /// retenter).
    ///
    /// Sans argument, c'est la seule façon de reprendre une saison, quoi qui l'ait arrêtée
    /// (Ctrl-C, coupure, nuit en échec) : c'est la commande que le bilan conseille. Ses
    /// réglages d'envoi sont ceux donnés au dépôt de la saison. Avec PLAN, un plan seul.
    #[command(name = "retenter-echecs", alias = "retenter")]
    RetenterEchecs(ArgsRetenter),
    /// Montre l'état de la saison du dernier dépôt, nuit par nuit, ou des nuits nommées (ou
    /// d'un plan hors saison), ou leurs fichiers un par un.
    Etat(ArgsEtat),
    /// Liste les plans de la base.
    Plans,
    /// Relit la destination : chaque fichier déposé y est-il, intact ? (Toute la saison du
    /// dernier dépôt, ou les nuits nommées.)
    Verifier(ArgsVerifier),
    /// Vérifie et enregistre le jeton (et l'adresse de l'API) ; sans argument, dit ce qui est
    /// enregistré.
    ///
    /// Le jeton se trouve sur le site Vigie-Chiro : connectez-vous, puis copiez, dans la barre
    /// d'adresse du navigateur, ce qui suit « ?token= » (jusqu'au prochain « & » s'il y en a
    /// un). Lancez ensuite « vigie connexion --jeton - » et collez-le : il ne s'affiche pas et
    /// n'entre pas dans l'historique du shell. Il est vérifié auprès de la plateforme, puis
    /// enregistré dans ~/.config/vigie/jeton (lisible par vous seul). Avec --api URL,
    /// l'adresse de l'API est vérifiée et retenue à côté du jeton (connexion.json) : les
    /// commandes suivantes s'en servent sans --api. « vigie connexion » seul dit quelle adresse
    /// et quel compte sont enregistrés, et vérifie le jeton auprès de la plateforme.
    Connexion(ArgsConnexion),
    /// Efface le jeton enregistré.
    Deconnexion,
    /// Liste vos participations sur la plateforme, toutes (celles du site web comme celles de
    /// vigie), groupées par site et par saison.
    ///
    /// Pour chacune : la nuit (date, point, passage lu dans le nom de ses fichiers), le nombre
    /// de fichiers, l'état du calcul, l'adresse de sa page sur le site web, et ce que sa
    /// configuration ne dit pas encore du matériel (enregistreur, micro ; en routier et en
    /// pédestre, les canaux, sans lesquels le calcul lit tout comme expansé ×10), avec l'option
    /// de vigie depot qui le pose. Ne lit que la plateforme : rien n'est écrit, ni là ni dans
    /// la base des plans.
    Participations(ArgsParticipations),
    /// Lance le calcul des nuits sur la plateforme (jamais automatique).
    ///
    /// Sans nuit : chaque nuit de la saison du dernier dépôt, entièrement déposée et jamais
    /// calculée, une fois ; une nuit pas entièrement déposée est dite et passée (code 1). Avec
    /// des nuits nommées (21/06 A1) : celles-là, et une nuit en erreur de calcul est relancée.
    /// Lit d'abord où en est chaque calcul : planifié ou en cours, il le dit et ne relance
    /// rien ; déjà fini, il ne le relance qu'avec --relancer et la nuit nommée (un nouveau
    /// calcul remplace les résultats). Codes : 0 rien d'autre à faire que suivre ; 1 une nuit
    /// pas prête ou un calcul qui semble arrêté ; 2 une nuit nommée pas prête (rien n'est
    /// lancé), --relancer sans nuit ; 3 une nuit en erreur non nommée, ou un refus.
    Traiter(ArgsTraiter),
    /// Dit où en est le calcul de chaque nuit sur la plateforme, et son bilan une fois fini.
    ///
    /// Sans nuit : chaque nuit de la saison du dernier dépôt ; ou les nuits nommées (21/06
    /// A1). L'état en français (planifié, en cours depuis…, fini, en erreur, nouvel essai…),
    /// puis, une fois fini, les espèces trouvées (chauves-souris d'abord) et leur nombre de
    /// contacts, sous le titre de la nuit (date, point, passage, site). Code 0 : toutes
    /// finies ; 1 : une pas encore finie (ou jamais lancée, ou la plateforme n'a pas répondu) ;
    /// 3 : une en erreur. Avec --attendre, relève l'état de chaque nuit jusqu'à la fin de son
    /// calcul (un relevé toutes les 30 s au début, puis de plus en plus espacés, jusqu'à 5 min)
    /// ; rend la main (code 1) pour une nuit sans calcul lancé, ou un calcul qui semble arrêté
    /// après --patience, ou à --echeance ; Ctrl-C : 130.
    Traitement(ArgsTraitement),
    /// Télécharge les résultats du calcul de chaque nuit : le CSV des observations (et le
    /// journal du calcul).
    ///
    /// Sans nuit : chaque nuit de la saison du dernier dépôt ; ou les nuits nommées (21/06
    /// A1). Chaque CSV est nommé par sa nuit (2026-06-21_A1_Pass1_Car640380-observations.csv)
    /// et écrit dans --sortie (par défaut resultats-vigie-chiro-ANNÉE dans le dossier courant),
    /// en entier ou pas du tout, taille vérifiée ; un CSV déjà téléchargé et inchangé n'est pas
    /// retéléchargé. Une nuit pas encore calculée n'est pas une erreur. Codes : 0 tout ce qui
    /// est calculé est là ; 1 une nuit calculée dont la plateforme n'a pas (encore) le CSV
    /// (elle le produit après le calcul, ou sur demande : --demander-csv, qui l'envoie aussi
    /// par courriel), ou un téléchargement manqué ; 3 une nuit en erreur de calcul.
    Resultats(ArgsResultats),
    /// Corrige les noms refusés par la plateforme quand la correction est sans ambiguïté.
    ///
    /// Aujourd'hui, la casse de l'extension (« .WAV » → « .wav ») : sans --appliquer, montre
    /// chaque renommage et ce qui resterait à corriger à la main ; avec --appliquer, renomme.
    /// Un nom déjà pris n'est jamais écrasé.
    Renommer(ArgsRenommer),
    /// Prépare une carte brute en séquences de 5 s à l'expansion ×10, comme le compagnon officiel.
    ///
    /// Lit la carte (ou un dossier brut) sans jamais y écrire, reconnaît l'enregistreur (journal
    /// LogPR du Passive Recorder, métadonnées GUANO, commentaire d'AudioMoth, sinon le nom),
    /// range les originaux en nuits et écrit dans --vers un dossier par nuit
    /// (Car<site>-<année>-Pass<n>-<point>-AAAAMMJJ) : chaque original est découpé en tranches
    /// de 5 s réelles écrites à Fe/10 sans toucher un échantillon (la fréquence réelle Fe vient
    /// du journal, sinon de l'en-tête : 96 kHz ou plus, direct ; en dessous, déjà ×10), nommées
    /// par leur heure de début (suffixe _000 ; _001 pour l'original le plus récent quand deux se
    /// chevauchent). Relancer la même commande reprend sans doublon et ne change aucun octet
    /// déjà écrit. Code 0 : tout est préparé ; 2 : options ou sortie invalides, place
    /// insuffisante, ou un autre fichier sous le nom d'une séquence (rien n'est écrasé) ; 3 :
    /// des originaux ne se préparent pas (listés avec leur raison ; les autres sont préparés).
    Preparer(ArgsPreparer),
    /// Démonstration : une petite saison générée, déposée sur le bac à sable malgré des pannes.
    ///
    /// Fabrique une saison de trois nuits (deux enregistreurs, deux points, deux passages,
    /// des séquences WAV de quelques Kio aux noms du protocole point fixe), démarre le bac à
    /// sable (plateforme Vigie-Chiro locale et S3) où l'une des nuits a déjà été créée « sur le
    /// site web » et à moitié déposée, avec trois pannes (un 503 avec Retry-After, une coupure
    /// en plein envoi, une réponse perdue sur une finalisation), puis lance un vrai
    /// « vigie depot DOSSIER », sans identifiant, et « vigie etat ». Le code de sortie est
    /// celui du dépôt. Tout se passe dans un dossier temporaire, effacé à la fin (même après
    /// Ctrl-C), avec une base à part : votre base et votre jeton ne sont jamais touchés.
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
#[command(group(clap::ArgGroup::new("destination").args(["vers", "participation"])))]
pub(crate) struct ArgsDepot {
    /// La saison ou la nuit à déposer.
    ///
    /// Les dossiers à déposer (parcourus récursivement). Sans --vers ni --participation ni
    /// --debut/--fin : la saison, chaque nuit (site, point, passage, soirée lus dans les noms)
    /// dans sa participation, reprise si elle existe, créée sinon.
    #[arg(required = true, num_args = 1.., value_name = "DOSSIER")]
    pub(crate) dossiers: Vec<PathBuf>,

    /// Dépose dans un compartiment S3 ou un dossier plutôt que sur la plateforme.
    ///
    /// Destination S3 : s3://compartiment/prefixe (clé = préfixe + chemin relatif). Dossier
    /// local ou réseau (disque externe, NAS) : dossier:CHEMIN (chaque fichier sous son chemin
    /// relatif, écrit à part puis renommé, sa somme relue).
    #[arg(long, value_name = "ADRESSE")]
    pub(crate) vers: Option<String>,

    /// La participation (créée sur le site web) qui reçoit la nuit.
    ///
    /// Participation Vigie-Chiro (créée sur le site web) qui reçoit la nuit : 24 chiffres
    /// hexadécimaux, la fin de l'adresse de sa page.
    #[arg(long, value_name = "ID")]
    pub(crate) participation: Option<String>,

    /// Le site où créer la participation (avec --debut et --fin).
    ///
    /// Avec --debut et --fin : le site où créer la participation (et --point pour un site
    /// point fixe). En saison : le site à retenir quand deux de vos sites portent le numéro
    /// des noms (ID), ou le site d'un numéro que son titre ne porte pas (NUMERO=ID) ;
    /// répétable. Une carte brute dont les noms ne portent pas le préfixe reçoit le numéro à
    /// six chiffres des noms (640380 pour Car640380) de NUMERO ou NUMERO=ID, comme
    /// `vigie preparer --site`.
    #[arg(long, value_name = "ID|NUMERO=ID|NUMERO")]
    pub(crate) site: Vec<String>,

    /// Le point d'écoute de la participation à créer (ex. A1).
    ///
    /// Point d'écoute de la participation à créer (ex. A1) : exigé pour un site point fixe,
    /// facultatif pour un site routier ou pédestre, qui n'en a pas. Celui des noms d'une
    /// carte brute qui ne le portent pas.
    #[arg(long, requires = "site")]
    pub(crate) point: Option<String>,

    /// Carte brute : le numéro de passage, si les noms ne le portent pas.
    #[arg(long, value_name = "N")]
    pub(crate) passage: Option<u8>,

    /// Début de la nuit (ex. 2026-06-21T23:30:00+02:00).
    ///
    /// Début de la nuit, ISO 8601 avec son fuseau : Z pour UTC (2026-06-21T21:30:00Z), ou le
    /// décalage (2026-06-21T23:30:00+02:00). Une heure sans fuseau est refusée.
    #[arg(long, requires = "site")]
    pub(crate) debut: Option<String>,

    /// Fin de la nuit, ISO 8601 avec son fuseau (comme --debut).
    #[arg(long, requires = "site")]
    pub(crate) fin: Option<String>,

    /// Fuseau de l'horloge des enregistreurs (défaut : celui de cet ordinateur).
    ///
    /// Fuseau de l'horloge des enregistreurs, pour tirer des noms les dates des
    /// participations à créer : local (celui de cet ordinateur, par défaut), UTC, ou un
    /// décalage fixe (+01:00 pour un enregistreur resté à l'heure d'hiver).
    #[arg(long, value_name = "FUSEAU", default_value = "local")]
    pub(crate) fuseau: String,

    /// Dépose dans la participation donnée (ou à créer) même si les noms disent un autre
    /// site, point, passage ou soirée, ou plusieurs nuits (la plateforme ne permet pas de
    /// retirer un fichier accepté : à n'utiliser qu'en connaissance de cause).
    #[arg(long, hide_short_help = true)]
    pub(crate) forcer_participation: bool,

    #[command(flatten)]
    pub(crate) api: OptionsApi,

    /// Accepte un point d'accès ou une API en http:// hors de la boucle locale (tout y circule en clair).
    #[arg(long, hide_short_help = true)]
    pub(crate) autoriser_http: bool,

    /// Montre ce qui partirait, sans rien envoyer.
    ///
    /// Montre ce qui partirait, sans rien envoyer ni rien écrire dans la base (ni plan créé,
    /// ni plan existant mis à jour).
    #[arg(long)]
    pub(crate) simulation: bool,

    /// Renvoie les fichiers déjà déposés qui ont changé depuis (taille ou date).
    #[arg(long, hide_short_help = true)]
    pub(crate) redeposer_modifies: bool,

    #[command(flatten)]
    pub(crate) passages: OptionsPassages,

    #[command(flatten)]
    pub(crate) envoi: OptionsEnvoi,

    #[command(flatten)]
    pub(crate) s3: OptionsS3,

    #[command(flatten)]
    pub(crate) description: OptionsDescription,
}

/// Le matériel et la météo d'une nuit, posés sur sa participation (`configuration` et
/// `meteo`, clés du formulaire du site web) : à sa création, ou en complétant celle qui existe
/// sans rien effacer ni remplacer de ce que le site web y a mis.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = TITRE_DESCRIPTION)]
pub(crate) struct OptionsDescription {
    /// Le type de l'enregistreur (PassiveRecorder, SM4BAT…) ; lu dans les noms s'il s'y trouve.
    #[arg(long, value_name = "TYPE")]
    pub(crate) enregistreur_type: Option<String>,
    /// Son numéro de série ; lu dans les noms s'il s'y trouve.
    #[arg(long, value_name = "NUMERO")]
    pub(crate) enregistreur_numero_serie: Option<String>,
    /// Point fixe : la position du micro, SOL ou CANOPEE.
    ///
    /// Point fixe : la position du micro, SOL ou CANOPEE. Le micro d'un point (les options
    /// --micro-*) est retenu par la base et repris à chaque passage suivant du même point ;
    /// redonner une option la remplace.
    #[arg(long, value_name = "POSITION")]
    pub(crate) micro_position: Option<String>,
    /// Point fixe : la hauteur du micro, en mètres.
    #[arg(long, value_name = "METRES")]
    pub(crate) micro_hauteur: Option<u32>,
    /// Le type du micro.
    #[arg(long, value_name = "TYPE")]
    pub(crate) micro_type: Option<String>,
    /// Le numéro de série du micro.
    #[arg(long, value_name = "NUMERO")]
    pub(crate) micro_numero_serie: Option<String>,
    /// Point fixe : la position du second micro, SOL ou CANOPEE (facultatif).
    ///
    /// Point fixe : la position du second micro, SOL ou CANOPEE (clés micro1_* du formulaire
    /// du site web). Un second micro est facultatif : vigie participations ne le dit pas
    /// manquant. Retenu par point comme le premier (les options --micro1-*).
    #[arg(long, value_name = "POSITION", hide_short_help = true)]
    pub(crate) micro1_position: Option<String>,
    /// Point fixe : la hauteur du second micro, en mètres.
    #[arg(long, value_name = "METRES", hide_short_help = true)]
    pub(crate) micro1_hauteur: Option<u32>,
    /// Point fixe : le type du second micro.
    #[arg(long, value_name = "TYPE", hide_short_help = true)]
    pub(crate) micro1_type: Option<String>,
    /// Point fixe : le numéro de série du second micro.
    #[arg(long, value_name = "NUMERO", hide_short_help = true)]
    pub(crate) micro1_numero_serie: Option<String>,
    /// Routier et pédestre : le canal en expansion de temps, GAUCHE, DROITE ou ABSENT.
    ///
    /// Routier et pédestre : le canal en expansion de temps, GAUCHE, DROITE ou ABSENT. Sans
    /// --canal-expansion ni --canal-direct, les deux se déduisent des séquences (côté lu dans
    /// le nom, genre dans l'en-tête : mono) ; sinon le dépôt dit qu'il faut les donner.
    #[arg(long, value_name = "CANAL")]
    pub(crate) canal_expansion: Option<String>,
    /// Routier et pédestre : le canal en enregistrement direct, GAUCHE, DROITE ou ABSENT.
    #[arg(long, value_name = "CANAL")]
    pub(crate) canal_direct: Option<String>,
    /// La température au début de la nuit, en degrés entiers.
    #[arg(long, value_name = "DEGRES", allow_negative_numbers = true)]
    pub(crate) temperature_debut: Option<i64>,
    /// La température à la fin de la nuit, en degrés entiers.
    #[arg(long, value_name = "DEGRES", allow_negative_numbers = true)]
    pub(crate) temperature_fin: Option<i64>,
    /// Le vent : NUL, FAIBLE, MOYEN ou FORT.
    #[arg(long, value_name = "VENT")]
    pub(crate) vent: Option<String>,
    /// La couverture nuageuse, en % : 0-25, 25-50, 50-75 ou 75-100.
    #[arg(long, value_name = "POURCENTS")]
    pub(crate) couverture: Option<String>,
}

impl OptionsDescription {
    /// Ce que disent les options, vérifié (valeurs à choix, canaux par paire) avant tout envoi.
    pub(crate) fn description(
        &self,
    ) -> Result<crate::description::Description, crate::description::ValeurRefusee> {
        use crate::description::{Description, Meteo, Micro};
        let micro = Micro {
            position: self.micro_position.clone(),
            hauteur: self.micro_hauteur,
            type_micro: self.micro_type.clone(),
            numero_serie: self.micro_numero_serie.clone(),
        };
        let second = Micro {
            position: self.micro1_position.clone(),
            hauteur: self.micro1_hauteur,
            type_micro: self.micro1_type.clone(),
            numero_serie: self.micro1_numero_serie.clone(),
        };
        let d = Description {
            enregistreur_type: self.enregistreur_type.clone(),
            enregistreur_numero_serie: self.enregistreur_numero_serie.clone(),
            micro_routier: micro.clone(),
            micros: [micro, second],
            canal_expansion_temps: self.canal_expansion.clone(),
            canal_enregistrement_direct: self.canal_direct.clone(),
            meteo: Meteo {
                temperature_debut: self.temperature_debut,
                temperature_fin: self.temperature_fin,
                vent: self.vent.clone(),
                couverture: self.couverture.clone(),
            },
        };
        d.valider()?;
        Ok(d)
    }
}

#[derive(Debug, Args)]
pub(crate) struct ArgsRenommer {
    /// Le dossier de la nuit (parcouru récursivement).
    pub(crate) dossier: PathBuf,

    /// Renomme pour de bon (sans cette option, montre seulement ce qui serait renommé).
    #[arg(long)]
    pub(crate) appliquer: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsPreparer {
    /// La carte SD (ou le dossier brut) de l'enregistreur, parcourue récursivement ; rien n'y
    /// est écrit.
    pub(crate) carte: PathBuf,

    /// Le dossier où écrire les séquences, un sous-dossier par nuit (créé au besoin ; pas sur
    /// la carte).
    #[arg(long, value_name = "DOSSIER")]
    pub(crate) vers: PathBuf,

    /// Le numéro de site des noms (640380 pour Car640380), si les noms ne le portent pas.
    #[arg(long, value_name = "NUMERO")]
    pub(crate) site: Option<String>,

    /// Le numéro de passage, si les noms ne le portent pas.
    #[arg(long, value_name = "N")]
    pub(crate) passage: Option<u8>,

    /// Le point d'écoute (A1…H2, Z1…), si les noms ne le portent pas.
    #[arg(long, value_name = "P")]
    pub(crate) point: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsRetenter {
    /// Le plan (son numéro) ; par défaut la saison du dernier dépôt (ou le dernier plan actif
    /// s'il n'est pas d'une saison).
    pub(crate) plan: Option<i64>,

    /// Relance aussi les refus définitifs (après avoir corrigé leur cause).
    #[arg(long)]
    pub(crate) y_compris_definitifs: bool,

    #[command(flatten)]
    pub(crate) passages: OptionsPassages,

    #[command(flatten)]
    pub(crate) envoi: OptionsEnvoi,

    #[command(flatten)]
    pub(crate) s3: OptionsS3,
}

/// Les nuits visées par une commande d'après le dépôt, comme la bénévole les nomme
/// (`saison/designation.rs`).
#[derive(Debug, Clone, Args)]
pub(crate) struct ArgsNuits {
    /// Les nuits visées, comme vous les nommez : leur date (21/06, 21/06/2026 ou 2026-06-21),
    /// puis au besoin leur point (A1), leur passage (Pass1), leur site (640380) ; plusieurs à
    /// la suite (21/06 A1 22/06 B2) ; un circuit routier : Cir270 Pass1. Sans nuit : toute la
    /// saison du dernier dépôt. Un numéro de plan seul est encore accepté.
    #[arg(value_name = "NUIT")]
    pub(crate) nuits: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsEtat {
    #[command(flatten)]
    pub(crate) nuits: ArgsNuits,

    /// Liste les fichiers du plan dans cet état, un par ligne, triés par chemin (chemin, état,
    /// cause, dernier message, tentatives, octets) : a_deposer, en_cours, deposee, echec
    /// (transitoires et définitifs), incertaine, definitif (refus définitifs seulement), ou
    /// tout.
    #[arg(long, value_enum, value_name = "ETAT")]
    pub(crate) unites: Option<FiltreUnites>,
}

/// Les fichiers que liste `vigie etat --unites`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FiltreUnites {
    #[value(name = "a_deposer")]
    ADeposer,
    #[value(name = "en_cours")]
    EnCours,
    #[value(name = "deposee")]
    Deposee,
    #[value(name = "echec")]
    Echec,
    #[value(name = "incertaine")]
    Incertaine,
    #[value(name = "definitif")]
    Definitif,
    #[value(name = "tout")]
    Tout,
}

impl FiltreUnites {
    /// Le filtre garde-t-il cette unité ? `echec` : tous les échecs ; `definitif` : les refus
    /// définitifs seulement.
    pub(crate) fn retient(self, u: &crate::plan::DepotUnite) -> bool {
        use crate::plan::EtatUnite;
        match self {
            FiltreUnites::Tout => true,
            FiltreUnites::ADeposer => u.etat == EtatUnite::ADeposer,
            FiltreUnites::EnCours => u.etat == EtatUnite::EnCours,
            FiltreUnites::Deposee => u.etat == EtatUnite::Deposee,
            FiltreUnites::Echec => u.etat == EtatUnite::Echec,
            FiltreUnites::Incertaine => u.etat == EtatUnite::Incertaine,
            FiltreUnites::Definitif => u.etat == EtatUnite::Echec && u.echec_definitif,
        }
    }

    /// Son nom sur la ligne de commande (`a_deposer`, `definitif`…), que redit la liste.
    pub(crate) fn nom(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_owned())
    }
}

#[derive(Debug, Args)]
pub(crate) struct ArgsVerifier {
    #[command(flatten)]
    pub(crate) nuits: ArgsNuits,

    #[command(flatten)]
    pub(crate) reessai: OptionsReessai,

    #[command(flatten)]
    pub(crate) s3: OptionsS3,
}

/// Passer jusqu'au bout : enchaîner les passages sans geste humain (`--jusqu-au-bout`).
#[derive(Debug, Clone, Args)]
pub(crate) struct OptionsPassages {
    /// Recommence tant que des fichiers restent en échec (au plus DURÉE, ex. 6h).
    ///
    /// Enchaîne les passages tant que des fichiers restent en échec transitoire ou incertains,
    /// avec une pause croissante entre deux (« prochain passage dans N s »), jusqu'à ce que
    /// tout soit déposé (code 0), qu'il ne reste que des refus définitifs (3), que DURÉE soit
    /// écoulée (1 ; ex. --jusqu-au-bout=6h, 90min ; sans DURÉE, pas de limite) ou Ctrl-C (130).
    #[arg(
        long,
        value_name = "DURÉE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        value_parser = analyser_jusqu_au_bout
    )]
    pub(crate) jusqu_au_bout: Option<JusquAuBout>,

    /// Pause avant le deuxième passage (secondes), doublée à chaque passage suivant, un peu
    /// variée au hasard (pour que deux vigie ne reviennent pas ensemble).
    #[arg(
        long,
        value_name = "DURÉE",
        default_value_t = Secondes(30.0),
        help_heading = "Options avancées"
    )]
    pub(crate) attente_passage: Secondes,

    /// Plafond de la pause entre deux passages (secondes).
    #[arg(
        long,
        value_name = "DURÉE",
        default_value_t = Secondes(600.0),
        help_heading = "Options avancées"
    )]
    pub(crate) attente_passage_max: Secondes,
}

/// `--jusqu-au-bout[=DURÉE]` : enchaîner les passages, au plus pendant DURÉE si elle est donnée.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JusquAuBout {
    pub(crate) limite: Option<std::time::Duration>,
}

/// La DURÉE de `--jusqu-au-bout=DURÉE` (vide : sans limite), une seconde au moins.
fn analyser_jusqu_au_bout(texte: &str) -> Result<JusquAuBout, String> {
    if texte.is_empty() {
        return Ok(JusquAuBout { limite: None });
    }
    let limite = crate::duree::analyser(texte)?;
    if limite < std::time::Duration::from_secs(1) {
        return Err(format!(
            "durée « {texte} » trop courte : une seconde au moins (ex. 30min, 6h)"
        ));
    }
    Ok(JusquAuBout {
        limite: Some(limite),
    })
}

reglages::structure_de_reglages! {
    /// Réglages de l'envoi : parallélisme, tailles, délais, réessais. Des options d'expert : les
    /// défauts conviennent à une nuit sur un partage de connexion. Chaque champ est un réglage
    /// (`cli/reglages.rs`) : le plan le retient sous son nom quand il est donné, et le reprend.
    #[derive(Debug, Clone, Args)]
    #[command(next_help_heading = "Options avancées")]
    pub(crate) struct OptionsEnvoi {
        /// Nombre de transferts en même temps, au plus (des fichiers, ou les parties d'un gros
        /// fichier quand il reste moins de fichiers que de places) : le parallélisme baisse de
        /// lui-même quand le réseau coupe, et remonte vers ce plafond quand un transfert de plus
        /// fait croître le débit.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
        pub(crate) paralleles: u16,

        /// Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ;
        /// par défaut 8 vers S3, 100 vers Vigie-Chiro (qui repasse en un seul envoi si la
        /// plateforme refuse les parties).
        #[arg(long, value_name = "MIO", value_parser = clap::value_parser!(u64).range(5..=5120))]
        pub(crate) seuil_multipart: Option<u64>,

        /// Taille d'une partie (Mio, 5 au moins).
        #[arg(long, value_name = "MIO", default_value_t = 5, value_parser = clap::value_parser!(u64).range(5..=5120))]
        pub(crate) taille_partie: u64,

        /// Débit maximal de tous les envois réunis (ex. 2Mo/s, 500Ko/s, 1.5Mio/s, 16Mbit/s), pour
        /// ne pas saturer un partage de connexion ; par défaut, aucune limite (« sans » lève une
        /// limite que le plan retient).
        #[arg(long, value_name = "DÉBIT", env = "VIGIE_DEBIT_MAX", value_parser = crate::transport::debit::DebitMax::analyser)]
        pub(crate) debit_max: Option<crate::transport::debit::DebitMax>,

        #[command(flatten)]
        pub(crate) reessai: OptionsReessai,

        /// Les réglages ci-dessus donnés explicitement.
        #[arg(skip)]
        pub(crate) explicites: reglages::Explicites,
    }
}

reglages::structure_de_reglages! {
    /// Réglages des réessais de chaque émission (dépôt, relecture de `vigie verifier`). Leurs
    /// défauts sont ceux de la politique et de l'émetteur, que l'aide affiche : aucun nombre ici.
    #[derive(Debug, Clone, Args)]
    #[command(next_help_heading = "Options avancées")]
    pub(crate) struct OptionsReessai {
        /// Délai maximal d'une tentative (secondes).
        #[arg(long, value_name = "DURÉE", default_value_t = Secondes(ReglagesEmission::DELAI_TENTATIVE_PAR_DEFAUT.as_secs_f64()))]
        pub(crate) delai_tentative: Secondes,

        /// Un transfert qui n'avance plus depuis ce délai (secondes) est coupé et réessayé.
        #[arg(long, value_name = "DURÉE", default_value_t = Secondes(ReglagesEmission::DELAI_BLOCAGE_PAR_DEFAUT.as_secs_f64()))]
        pub(crate) delai_blocage: Secondes,

        /// Nombre de tentatives par requête (envois, déclarations, finalisations).
        #[arg(long, value_name = "N", default_value_t = Reglages::insistant().tentatives_max())]
        pub(crate) tentatives: u32,

        /// Attente de base entre deux tentatives (secondes), doublée à chaque échec.
        #[arg(long, value_name = "DURÉE", default_value_t = Secondes(Reglages::insistant().base().as_secs_f64()))]
        pub(crate) attente_base: Secondes,

        /// Plafond de l'attente entre deux tentatives (secondes).
        #[arg(long, value_name = "DURÉE", default_value_t = Secondes(Reglages::insistant().plafond().as_secs_f64()))]
        pub(crate) attente_max: Secondes,

        /// Échéance d'une émission, tentatives et attentes comprises (secondes ; le temps passé en
        /// pause réseau n'y compte pas).
        #[arg(long, value_name = "DURÉE", default_value_t = Secondes(ECHEANCE_DEPOT_PAR_DEFAUT.as_secs_f64()))]
        pub(crate) echeance: Secondes,

        /// Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé.
        #[arg(long, value_name = "N", default_value_t = PauseReseau::ECHECS_PAR_DEFAUT, value_parser = clap::value_parser!(u32).range(1..=1000))]
        pub(crate) echecs_reseau: u32,

        /// Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune
        /// limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l'arrêtent).
        /// Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour
        /// du réseau.
        #[arg(long, value_name = "DURÉE")]
        pub(crate) attente_reseau: Option<Secondes>,
    }
}

/// Accès à un compartiment S3 (AWS ou compatible : OVH, Scaleway, MinIO, Garage…).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Options S3")]
pub(crate) struct OptionsS3 {
    /// Point d'accès S3 (pour un service non AWS) ; active le style chemin.
    #[arg(long, env = "AWS_ENDPOINT_URL", value_name = "URL")]
    pub(crate) endpoint_url: Option<String>,

    /// Région S3.
    #[arg(long, env = "AWS_REGION", value_name = "REGION")]
    pub(crate) region: Option<String>,

    /// Profil d'identifiants AWS (~/.aws/credentials).
    #[arg(long, env = "AWS_PROFILE", value_name = "PROFIL")]
    pub(crate) profil: Option<String>,
}

/// Accès à l'API de la plateforme Vigie-Chiro.
#[derive(Debug, Clone, Args)]
pub(crate) struct OptionsApi {
    /// Base de l'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que
    /// « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1.
    #[arg(
        long = "api",
        env = "VIGIE_API",
        value_name = "URL",
        hide_short_help = true
    )]
    pub(crate) url: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsConnexion {
    /// Le jeton copié depuis l'adresse du site après « ?token= » ; « - » pour le coller à
    /// l'invite (masqué) ou le lire sur l'entrée standard, sans qu'il apparaisse dans
    /// l'historique ni dans la liste des processus. Sans --jeton ni --api : dit quelle adresse
    /// et quel compte sont enregistrés.
    #[arg(long, value_name = "JETON")]
    pub(crate) jeton: Option<String>,

    /// Base de l'API Vigie-Chiro, vérifiée puis retenue à côté du jeton : les commandes
    /// suivantes s'en servent sans --api (--api et VIGIE_API l'emportent sur elle). Sans
    /// --jeton, c'est le jeton déjà enregistré qui est vérifié à cette adresse.
    #[arg(long = "api", value_name = "URL")]
    pub(crate) api: Option<String>,
}

#[cfg(feature = "bac-a-sable")]
#[derive(Debug, Args)]
pub(crate) struct ArgsDemo {
    /// Garde la saison, les données du bac à sable et la base de la démonstration (le dossier
    /// est affiché).
    #[arg(long)]
    pub(crate) garder: bool,

    /// Sans pannes simulées : un dépôt sans accroc.
    #[arg(long)]
    pub(crate) sans_pannes: bool,

    /// Graine de la saison et des pannes : la même graine rejoue la même démonstration (tirée
    /// au hasard sinon, et affichée).
    #[arg(long, value_name = "N")]
    pub(crate) graine: Option<u64>,
}

#[cfg(feature = "bac-a-sable")]
#[derive(Debug, Args)]
pub(crate) struct ArgsBacASable {
    /// Port d'écoute sur 127.0.0.1 (0 : un port libre, choisi par le système).
    #[arg(long, default_value_t = 8210)]
    pub(crate) port: u16,

    /// Dossier du bac à sable (données S3, base d'essai), gardé d'un lancement à l'autre
    /// (sinon un dossier temporaire, effacé à l'arrêt). L'état de la plateforme (fichiers
    /// déclarés) repart à zéro.
    #[arg(long, value_name = "DOSSIER")]
    pub(crate) dossier: Option<PathBuf>,

    /// Une panne à simuler (répétable), ex. « PutObject#3=503:retry-after=2 ».
    ///
    /// Forme : OPÉRATION[@clé][#rang][%pourcentage]=PANNE[:option=valeur…]. OPÉRATION : une
    /// opération S3 (PutObject, UploadPart, CompleteMultipartUpload…) ou une route de l'API
    /// (ApiDeclarerFichier, ApiFinaliser…), ou * pour toutes ; #N : la N-ième requête (une
    /// fois) ; %P : une proportion des requêtes. PANNE : un statut (503, 429, 500, 403…, avec
    /// retry-after=SECONDES ou retry-after-ms=MS), coupure-corps:TAILLE (64Kio, 1Mio),
    /// reponse-perdue, lenteur:DURÉE (500ms, 3s), bloquer:DURÉE, coupure, corps-trop-lent (S3 :
    /// 400 RequestTimeout ; API : 408), trou-noir:DURÉE (plus rien ne passe ni ne se ferme ;
    /// ensuite, les connexions d'avant restent muettes), corps-sans-fin (200, puis une espace
    /// par seconde), entetes-lents:DURÉE (la réponse, un octet par DURÉE), debit:TAILLE (la
    /// réponse à TAILLE par seconde, ex. 300Kio), page-figee (une liste de l'API rend toujours
    /// sa première page), faux-succes (200 sans ETag, rien d'écrit), etag-altere (objet
    /// écrit, autre ETag rendu), horloge:±DURÉE (horloge du service décalée, ex. +2h : 403
    /// RequestTimeTooSkewed) ; option fois=N.
    /// Exemples : « ApiFinaliser=reponse-perdue », « UploadPart%20=coupure-corps:1Mio »,
    /// « *%5=500 ».
    #[arg(long = "pannes", value_name = "SPEC")]
    pub(crate) pannes: Vec<String>,

    /// Temps qu'un calcul lancé (vigie traiter) reste planifié avant de commencer.
    #[arg(long, value_name = "DURÉE", default_value = "30s", value_parser = crate::duree::analyser)]
    pub(crate) calcul_attente: std::time::Duration,

    /// Durée d'un calcul simulé, de son début à sa fin (le bilan, puis le CSV des
    /// observations, viennent ensuite).
    #[arg(long, value_name = "DURÉE", default_value = "2min", value_parser = crate::duree::analyser)]
    pub(crate) calcul_duree: std::time::Duration,

    /// Essais du calcul qui échouent avant qu'un réussisse : la plateforme refait un essai
    /// d'elle-même (RETRY), puis passe en erreur (ERREUR) au second échec.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) calcul_echecs: u32,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsTraiter {
    #[command(flatten)]
    pub(crate) nuits: ArgsNuits,

    /// Une participation hors de la base (l'identifiant de 24 caractères, fin de l'adresse de
    /// sa page), au lieu des nuits.
    #[arg(long, value_name = "ID", conflicts_with = "nuits")]
    pub(crate) participation: Option<String>,

    /// Relance le calcul des nuits nommées déjà calculées (leurs résultats seront remplacés
    /// par ceux du nouveau calcul), ou d'un calcul qui semble arrêté depuis plus d'un jour ;
    /// jamais sur toute la saison : nommez les nuits.
    #[arg(long)]
    pub(crate) relancer: bool,

    /// Lance le calcul même si des fichiers de la nuit ne sont pas (encore) déposés, ou qu'un
    /// dépôt de cette nuit est en cours : la plateforme ne calculera que ce qu'elle a, et
    /// refusera un autre calcul tant que celui-ci sera planifié ou en cours (un jour au plus).
    #[arg(long)]
    pub(crate) nuit_incomplete: bool,

    #[command(flatten)]
    pub(crate) api: OptionsApi,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsParticipations {
    #[command(flatten)]
    pub(crate) api: OptionsApi,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsTraitement {
    #[command(flatten)]
    pub(crate) nuits: ArgsNuits,

    /// Une participation hors de la base (l'identifiant de 24 caractères, fin de l'adresse de
    /// sa page), au lieu des nuits.
    #[arg(long, value_name = "ID", conflicts_with = "nuits")]
    pub(crate) participation: Option<String>,

    /// Relève l'état, nuit après nuit, jusqu'à ce que le calcul soit fini ou en erreur ; rend
    /// la main plus tôt pour une nuit sans calcul lancé, un calcul qui semble arrêté
    /// (--patience), Ctrl-C ou --echeance. Un indicateur dit « prochain relevé dans N s ».
    #[arg(long)]
    pub(crate) attendre: bool,

    /// Avec --attendre : s'arrête au plus tard après DURÉE (ex. 2h, 30min), sur le dernier état
    /// relevé (code 1 s'il n'est pas fini).
    #[arg(long, value_name = "DURÉE", requires = "attendre", value_parser = crate::duree::analyser)]
    pub(crate) echeance: Option<std::time::Duration>,

    /// Avec --attendre : combien suivre encore un calcul qui semble arrêté (planifié ou en
    /// cours depuis plus d'un jour) avant de rendre la main (code 1), ex. 10min, 2h.
    #[arg(
        long,
        value_name = "DURÉE",
        default_value = crate::traitement::PATIENCE_PAR_DEFAUT,
        value_parser = crate::duree::analyser,
        help_heading = "Options avancées"
    )]
    pub(crate) patience: std::time::Duration,

    /// Attente avant le deuxième relevé (secondes), doublée à chaque relevé suivant, un peu
    /// variée au hasard.
    #[arg(
        long,
        value_name = "DURÉE",
        default_value_t = Secondes(30.0),
        help_heading = "Options avancées"
    )]
    pub(crate) attente_releve: Secondes,

    /// Plafond de l'attente entre deux relevés (secondes).
    #[arg(
        long,
        value_name = "DURÉE",
        default_value_t = Secondes(300.0),
        help_heading = "Options avancées"
    )]
    pub(crate) attente_releve_max: Secondes,

    #[command(flatten)]
    pub(crate) api: OptionsApi,
}

#[derive(Debug, Args)]
pub(crate) struct ArgsResultats {
    #[command(flatten)]
    pub(crate) nuits: ArgsNuits,

    /// Une participation hors de la base (l'identifiant de 24 caractères, fin de l'adresse de
    /// sa page), au lieu des nuits.
    #[arg(long, value_name = "ID", conflicts_with = "nuits")]
    pub(crate) participation: Option<String>,

    /// Dossier où écrire les fichiers (créé s'il n'existe pas). Par défaut, pour une saison :
    /// resultats-vigie-chiro-ANNÉE dans le dossier courant ; sinon le dossier courant.
    #[arg(long, value_name = "DOSSIER")]
    pub(crate) sortie: Option<PathBuf>,

    /// Télécharge aussi le journal du calcul (AAAA-MM-JJ_POINT_PassN_CarSITE-journal.txt).
    #[arg(long)]
    pub(crate) avec_journal: bool,

    /// Demande à la plateforme de produire le CSV des observations des nuits calculées qui ne
    /// l'ont pas (elle l'envoie aussi par courriel) ; relancez vigie resultats quelques
    /// minutes plus tard pour le télécharger.
    #[arg(long)]
    pub(crate) demander_csv: bool,

    #[command(flatten)]
    pub(crate) api: OptionsApi,
}

#[cfg(test)]
mod tests_aide {
    use super::tests::ANGLAIS_DE_CLAP;
    use super::*;

    /// L'aide de chaque commande, courte et longue, sans un mot d'anglais de clap.
    #[test]
    fn les_aides_sont_en_francais() {
        let mut racine = commande();
        racine.build();
        let mut aides = vec![
            racine.clone().render_help().to_string(),
            racine.clone().render_long_help().to_string(),
        ];
        for sous in racine.get_subcommands() {
            aides.push(sous.clone().render_help().to_string());
            aides.push(sous.clone().render_long_help().to_string());
        }
        for aide in &aides {
            for anglais in ANGLAIS_DE_CLAP {
                assert!(!aide.contains(anglais), "« {anglais} » dans :\n{aide}");
            }
        }
    }

    /// Le défaut qu'affiche l'aide pour `option` (« [défaut : 7] », coupé ou non par le retour
    /// à la ligne), s'il y en a un.
    fn defaut_affiche(aide: &str, option: &str) -> Option<String> {
        let bloc = aide
            .split("\n\n")
            .find(|b| b.trim_start().starts_with(&format!("{option} ")))?;
        let bloc = bloc.split_whitespace().collect::<Vec<_>>().join(" ");
        let debut = bloc.find("[défaut : ")? + "[défaut : ".len();
        let fin = debut + bloc[debut..].find(']')?;
        Some(bloc[debut..fin].to_owned())
    }

    /// Les défauts du réessai que `vigie depot --help` affiche sont ceux de la politique et de
    /// l'émetteur : les changer d'un côté seulement fait échouer cet essai.
    #[test]
    fn les_defauts_du_reessai_affiches_sont_ceux_de_la_politique() {
        use std::time::Duration;
        let mut racine = commande();
        racine.build();
        let aide = racine
            .find_subcommand("depot")
            .expect("depot existe")
            .clone()
            .render_long_help()
            .to_string();
        let defaut = |option: &str| {
            defaut_affiche(&aide, option)
                .unwrap_or_else(|| panic!("{option} sans défaut affiché :\n{aide}"))
        };
        let secondes = |option: &str| {
            let texte = defaut(option);
            let s: f64 = texte
                .parse()
                .unwrap_or_else(|_| panic!("{option} : « {texte} » n'est pas un nombre"));
            Duration::from_secs_f64(s)
        };
        let nombre = |option: &str| {
            let texte = defaut(option);
            texte
                .parse::<u32>()
                .unwrap_or_else(|_| panic!("{option} : « {texte} » n'est pas un entier"))
        };
        let insistant = Reglages::insistant();
        assert_eq!(nombre("--tentatives"), insistant.tentatives_max());
        assert_eq!(secondes("--attente-base"), insistant.base());
        assert_eq!(secondes("--attente-max"), insistant.plafond());
        assert_eq!(secondes("--echeance"), ECHEANCE_DEPOT_PAR_DEFAUT);
        assert_eq!(
            secondes("--delai-tentative"),
            ReglagesEmission::DELAI_TENTATIVE_PAR_DEFAUT
        );
        assert_eq!(
            secondes("--delai-blocage"),
            ReglagesEmission::DELAI_BLOCAGE_PAR_DEFAUT
        );
        assert_eq!(nombre("--echecs-reseau"), PauseReseau::ECHECS_PAR_DEFAUT);
        // Sans limite par défaut : l'aide ne dit aucun nombre.
        assert_eq!(defaut_affiche(&aide, "--attente-reseau"), None);
    }

    #[test]
    fn verifier_n_a_que_ses_options() {
        let mut racine = commande();
        racine.build();
        let verifier = racine
            .find_subcommand("verifier")
            .expect("verifier existe")
            .clone()
            .render_long_help()
            .to_string();
        // `--attente-reseau` en est : la relecture de `verifier` attend le réseau comme un dépôt.
        for envoi in ["--paralleles", "--seuil-multipart", "--taille-partie"] {
            assert!(!verifier.contains(envoi), "{envoi} dans verifier --help");
        }
        let depot = racine
            .find_subcommand("depot")
            .expect("depot existe")
            .clone()
            .render_long_help()
            .to_string();
        let avancees = depot
            .find("Options avancées")
            .expect("titre « Options avancées »");
        for expert in [
            "--seuil-multipart",
            "--echeance",
            "--echecs-reseau",
            "--delai-blocage",
            "--attente-base",
        ] {
            assert!(
                depot.find(expert).is_some_and(|i| i > avancees),
                "{expert} hors des options avancées"
            );
        }
        assert!(depot.find("--participation").is_some_and(|i| i < avancees));
        let connexion = racine
            .find_subcommand("connexion")
            .expect("connexion existe")
            .clone()
            .render_long_help()
            .to_string();
        assert!(connexion.contains("?token="), "{connexion}");
    }
}
