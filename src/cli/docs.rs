//! Complétions et page de manuel, produites par le binaire lui-même à partir de `Cli::command()`.
//! `completions/` et `man/` ne s'éditent jamais à la main : `vigie generer-docs .` les régénère,
//! et un test échoue s'ils ne sont plus à jour.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap_complete::Shell;

use crate::cli;
use crate::plateforme::Systeme;
use crate::sortie::CodeSortie;

/// Les shells dont on fournit les complétions, et le nom de leur fichier.
const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "vigie.bash"),
    (Shell::Zsh, "_vigie"),
    (Shell::Fish, "vigie.fish"),
    (Shell::Elvish, "vigie.elv"),
    (Shell::PowerShell, "_vigie.ps1"),
];

pub(crate) fn completions(shell: Shell) -> Result<CodeSortie> {
    let mut sortie = crate::sortie::standard_brute();
    sortie.write_all(&script_completion(shell))?;
    sortie.flush()?;
    Ok(CodeSortie::Succes)
}

/// Le script de complétion d'un shell, en mémoire. Celui de PowerShell est ajusté
/// ([`pour_powershell`]).
pub(crate) fn script_completion(shell: Shell) -> Vec<u8> {
    let mut tampon = Vec::new();
    clap_complete::generate(shell, &mut cli::commande(), "vigie", &mut tampon);
    match shell {
        Shell::PowerShell => pour_powershell(&String::from_utf8_lossy(&tampon)).into_bytes(),
        _ => tampon,
    }
}

/// Les noms sous lesquels PowerShell voit vigie : `vigie` (dans le PATH), `vigie.exe`, et
/// `.\vigie.exe` (ou `./vigie.exe`), ce qu'apprend le LISEZMOI de Windows. PowerShell ne
/// complète une commande native que sous le nom exact qu'on a inscrit : inscrit pour `vigie`
/// seul, `.\vigie.exe de<Tab>` ne proposait rien.
const NOMS_POWERSHELL: &str = "'vigie', 'vigie.exe', '.\\vigie.exe', './vigie.exe'";

/// Le script de clap_complete pour PowerShell, inscrit sous chacun des [`NOMS_POWERSHELL`], et
/// sans les sous-commandes cachées (`generer-docs`, pour les mainteneurs), que clap_complete y
/// met quand même : sa ligne dans la liste des sous-commandes, et le bloc de ses options.
fn pour_powershell(script: &str) -> String {
    let cachees: Vec<String> = cli::commande()
        .get_subcommands()
        .filter(|c| c.is_hide_set())
        .map(|c| c.get_name().to_owned())
        .collect();
    let mut sortie = String::with_capacity(script.len());
    let mut dans_un_bloc_cache = false;
    for ligne in script.split_inclusive('\n') {
        let texte = ligne.trim();
        if dans_un_bloc_cache {
            dans_un_bloc_cache = texte != "}";
            continue;
        }
        if cachees.iter().any(|c| texte == format!("'vigie;{c}' {{")) {
            dans_un_bloc_cache = true;
            continue;
        }
        if cachees
            .iter()
            .any(|c| texte.starts_with(&format!("[CompletionResult]::new('{c}', ")))
        {
            continue;
        }
        sortie.push_str(&ligne.replace(
            "-CommandName 'vigie' ",
            &format!("-CommandName {NOMS_POWERSHELL} "),
        ));
    }
    sortie
}

/// La page de manuel `vigie(1)`, avec codes de sortie, environnement et fichiers.
pub fn page_de_manuel() -> Result<Vec<u8>> {
    page_de_manuel_pour(Systeme::Unix)
}

/// La page de manuel dite pour `systeme` : celle de Windows (`man/vigie-windows.1`, d'où
/// `scripts/paquets.sh` tire le `MANUEL.txt` de l'archive Windows) a ses textes dans les mots
/// de Windows, ses exemples dans PowerShell (`.\vigie.exe`, `E:\…`).
pub(crate) fn page_de_manuel_pour(systeme: Systeme) -> Result<Vec<u8>> {
    let commande = cli::commande_pour(systeme).mut_args(aide_entiere_dans_la_page);
    let man = clap_mangen::Man::new(commande);
    let mut tampon = Vec::new();
    // L'en-tête est écrit ici : sans titre de manuel, man écrit « General Commands Manual » en
    // tête de page, et clap_mangen décale les champs de `.TH` quand la date est vide.
    writeln!(
        tampon,
        ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.TH vigie 1 \"\" \"vigie {}\" \"Manuel de vigie\"",
        env!("CARGO_PKG_VERSION")
    )?;
    man.render_name_section(&mut tampon)?;
    man.render_synopsis_section(&mut tampon)?;
    man.render_description_section(&mut tampon)?;
    man.render_options_section(&mut tampon)?;
    rendre_commandes(&mut tampon, systeme)?;
    let (exemples, sections) = match systeme {
        Systeme::Unix => (EXEMPLES, SECTIONS_SUPPLEMENTAIRES),
        Systeme::Windows => (EXEMPLES_WINDOWS, SECTIONS_WINDOWS),
    };
    tampon.extend_from_slice(exemples.as_bytes());
    tampon.extend_from_slice(sections.as_bytes());
    man.render_version_section(&mut tampon)?;
    Ok(titres_en_francais(&tampon))
}

/// clap_mangen titre ses sections en anglais : NAME et SYNOPSIS deviennent NOM et UTILISATION
/// (DESCRIPTION, OPTIONS et VERSION se disent de même en français).
fn titres_en_francais(roff: &[u8]) -> Vec<u8> {
    let mut sortie = Vec::with_capacity(roff.len());
    for ligne in String::from_utf8_lossy(roff).split_inclusive('\n') {
        let ligne = match ligne.trim_end() {
            ".SH NAME" => ".SH NOM\n",
            ".SH SYNOPSIS" => ".SH UTILISATION\n",
            _ => ligne,
        };
        sortie.extend_from_slice(ligne.as_bytes());
    }
    sortie
}

/// Les codes de sortie 2 à 4, dits de même pour tous les systèmes.
macro_rules! codes_communs {
    () => {
        r#".TP
\fB2\fR
usage ou configuration invalide (arguments, dossier illisible, noms ou horodatages refusés, séquences qui ne sont pas au format que lit la plateforme, base illisible) : rien n'a été envoyé ni créé
.TP
\fB3\fR
des fichiers sont refusés définitivement (4xx : nom, droits, identifiants), ou, en saison, des fichiers ne se rattachent à aucun de vos sites ou la participation d'une nuit n'a pu être créée (les autres nuits sont parties) : un geste humain est nécessaire
.TP
\fB4\fR
le plan est déjà en cours de traitement par un autre \fBvigie\fR
"#
    };
}

/// Les variables d'environnement que tous les systèmes lisent de même.
macro_rules! environnement_commun {
    () => {
        r#".TP
\fBVIGIE_BASE\fR
la base des plans (comme \fB\-\-base\fR)
.TP
\fBVIGIE_API\fR
la base de l'API Vigie\-Chiro (comme \fB\-\-api\fR)
.TP
\fBVIGIE_JETON\fR
le jeton de la plateforme ; l'emporte sur celui qu'enregistre \fBvigie connexion\fR
.TP
\fBAWS_ACCESS_KEY_ID\fR, \fBAWS_SECRET_ACCESS_KEY\fR, \fBAWS_SESSION_TOKEN\fR, \fBAWS_PROFILE\fR, \fBAWS_REGION\fR, \fBAWS_ENDPOINT_URL\fR
identifiants et réglages S3, selon la chaîne AWS standard
.TP
\fBRUST_LOG\fR
filtre du journal (l'emporte sur \fB\-v\fR et \fB\-q\fR)
.TP
\fBNO_COLOR\fR
désactive les couleurs
"#
    };
}

/// Les exemples : les gestes d'une nuit, dans l'ordre où on les fait.
const EXEMPLES: &str = r#".SH EXEMPLES
Se connecter une fois (le jeton se copie dans l'adresse du site, après \fB?token=\fR ; il est collé à l'invite, sans s'afficher) :
.PP
.RS
.nf
vigie connexion \-\-jeton \-
.fi
.RE
.PP
Déposer la nuit dans une participation créée sur le site, voir où l'on en est, puis lancer le calcul :
.PP
.RS
.nf
vigie depot ~/Nuits/2026\-06\-21 \-\-participation 64a1b2c3d4e5f60718293d01
vigie etat
vigie traiter \-\-participation 64a1b2c3d4e5f60718293d01
.fi
.RE
.PP
Après une coupure, un Ctrl\-C ou un portable refermé : relancer la même commande, ou
.PP
.RS
.nf
vigie retenter\-echecs
.fi
.RE
.PP
Le portable laissé seul la nuit : repasser tant qu'il reste des échecs passagers, six heures au plus, puis lister ce qui reste en échec (une ligne JSON par fichier) :
.PP
.RS
.nf
vigie depot ~/Nuits/2026\-06\-21 \-\-participation 64a1b2c3d4e5f60718293d01 \-\-jusqu\-au\-bout=6h
vigie etat \-\-unites echec \-\-json
.fi
.RE
.PP
Des fichiers en .WAV refusés : voir les renommages, puis les faire :
.PP
.RS
.nf
vigie renommer ~/Nuits/2026\-06\-21
vigie renommer ~/Nuits/2026\-06\-21 \-\-appliquer
.fi
.RE
.PP
Déposer vers un compartiment S3 (ici OVH), puis relire ce qui y est :
.PP
.RS
.nf
vigie depot ~/Nuits/2026\-06\-21 \-\-vers s3://mes\-nuits/2026\-06\-21 \e
    \-\-endpoint\-url https://s3.gra.io.cloud.ovh.net \-\-region gra
vigie verifier
.fi
.RE
.PP
Voir une nuit déposée malgré des pannes simulées, sans rien toucher de vos plans :
.PP
.RS
.nf
vigie demo
.fi
.RE
"#;

/// Les exemples de la version Windows (`man/vigie-windows.1`, `MANUEL.txt`) : dans PowerShell,
/// depuis le dossier de vigie.exe (`.\vigie.exe`), une nuit sur une carte en `E:`, chaque
/// commande sur une ligne (pas de suite de ligne à la manière de bash).
const EXEMPLES_WINDOWS: &str = r#".SH EXEMPLES
Dans PowerShell, ouvert dans le dossier de vigie.exe. Se connecter une fois (le jeton se copie dans l'adresse du site, après \fB?token=\fR ; il est collé à l'invite, sans s'afficher) :
.PP
.RS
.nf
\&.\e\&vigie.exe connexion \-\-jeton \-
.fi
.RE
.PP
Déposer la nuit de la carte E: dans une participation créée sur le site, voir où l'on en est, puis lancer le calcul (un chemin qui contient des espaces s'écrit entre guillemets, sans barre oblique inverse finale : "D:\eMes nuits\e2026\-06\-21") :
.PP
.RS
.nf
\&.\e\&vigie.exe depot E:\e2026\-06\-21 \-\-participation 64a1b2c3d4e5f60718293d01
\&.\e\&vigie.exe etat
\&.\e\&vigie.exe traiter \-\-participation 64a1b2c3d4e5f60718293d01
.fi
.RE
.PP
Après une coupure, un Ctrl\-C ou un portable refermé : relancer la même commande, ou
.PP
.RS
.nf
\&.\e\&vigie.exe retenter\-echecs
.fi
.RE
.PP
Le portable laissé seul la nuit : repasser tant qu'il reste des échecs passagers, six heures au plus, puis lister ce qui reste en échec (une ligne JSON par fichier) :
.PP
.RS
.nf
\&.\e\&vigie.exe depot E:\e2026\-06\-21 \-\-participation 64a1b2c3d4e5f60718293d01 \-\-jusqu\-au\-bout=6h
\&.\e\&vigie.exe etat \-\-unites echec \-\-json
.fi
.RE
.PP
Des fichiers en .WAV refusés : voir les renommages, puis les faire :
.PP
.RS
.nf
\&.\e\&vigie.exe renommer E:\e2026\-06\-21
\&.\e\&vigie.exe renommer E:\e2026\-06\-21 \-\-appliquer
.fi
.RE
.PP
Voir une nuit déposée malgré des pannes simulées, sans rien toucher de vos plans :
.PP
.RS
.nf
\&.\e\&vigie.exe demo
.fi
.RE
"#;

/// Les codes de sortie, l'environnement et les fichiers, dits pour Windows.
const SECTIONS_WINDOWS: &str = concat!(
    r#".SH "CODES DE SORTIE"
.TP
\fB0\fR
tous les fichiers du plan sont déposés
.TP
\fB1\fR
le passage est fini mais des fichiers restent en échec transitoire (réseau, fichier ouvert par un autre programme…) : \fB.\e\&vigie.exe retenter\-echecs\fR
"#,
    codes_communs!(),
    r#".TP
\fB130\fR
interrompu (Ctrl\-C, fenêtre fermée) : "#,
    crate::sortie::sens_du_code_interrompu!(),
    r#"
.SH DURÉES
"#,
    crate::cli::aide_durees!(),
    r#"
.SH ENVIRONNEMENT
Dans PowerShell, une variable se pose pour la fenêtre par \fB$env:VIGIE_BASE = "D:\evigie.sqlite"\fR ; dans cmd, par \fBset VIGIE_BASE=D:\evigie.sqlite\fR.
"#,
    environnement_commun!(),
    r#".TP
\fBTEMP\fR
où \fBvigie demo\fR et \fBvigie bac\-a\-sable\fR créent leur dossier temporaire, effacé à la fin
.SH FICHIERS
.TP
\fI%LOCALAPPDATA%\e\&vigie\e\&vigie.sqlite\fR
la base des plans, réservée à votre compte (votre profil) ; à côté, \fIvigie.sqlite.verrous\fR tient les verrous des plans en cours.
.TP
\fI%APPDATA%\e\&vigie\e\&jeton\fR
le jeton enregistré par \fBvigie connexion\fR, réservé à votre compte ; \fBvigie deconnexion\fR l'efface.
"#
);

/// Une option réservée à l'aide longue (`hide_short_help`, les réglages avancés) garde son
/// texte dans la page : clap_mangen n'écrit, pour elle, que l'aide longue, et laisse l'option
/// sans un mot quand elle n'a que l'aide courte.
fn aide_entiere_dans_la_page(a: clap::Arg) -> clap::Arg {
    a.hide_short_help(false)
}

/// Une section par sous-commande visible : ce qu'elle fait, son synopsis, ses options propres
/// (les options communes sont dans la section qui leur est consacrée). clap_mangen ne rend,
/// pour les sous-commandes, que des renvois vers des pages `vigie-COMMANDE(1)` : une seule
/// page, complète, se lit mieux (`man ./man/vigie.1`) et s'installe d'un seul fichier.
fn rendre_commandes(tampon: &mut Vec<u8>, systeme: Systeme) -> Result<()> {
    // Construite, la commande a propagé les options communes à chaque sous-commande : on les
    // y cache pour ne pas les répéter.
    let mut racine = cli::commande_pour(systeme);
    racine.build();
    tampon.extend_from_slice(b".SH COMMANDES\n");
    for sous in racine.get_subcommands().filter(|c| !c.is_hide_set()) {
        let nom = format!("vigie {}", sous.get_name());
        let sous = sous.clone().bin_name(&nom).mut_args(|a| {
            if a.is_global_set() {
                a.hide(true)
            } else {
                aide_entiere_dans_la_page(a)
            }
        });
        writeln!(tampon, ".SS \"{nom}\"")?;
        let man = clap_mangen::Man::new(sous);
        let mut morceau = Vec::new();
        man.render_description_section(&mut morceau)?;
        man.render_synopsis_section(&mut morceau)?;
        man.render_options_section(&mut morceau)?;
        // Les titres de section de clap_mangen deviennent des paragraphes de la sous-section ;
        // la définition de l'apostrophe (`Aq`), qu'il répète à chaque rendu, est déjà en tête.
        for ligne in String::from_utf8_lossy(&morceau).lines() {
            match ligne {
                ".SH DESCRIPTION" => {}
                l if l.starts_with(".ie \\n(.g .ds Aq") || l.starts_with(".el .ds Aq") => {}
                l if l.starts_with(".SH ") => tampon.extend_from_slice(b".PP\n"),
                l => writeln!(tampon, "{l}")?,
            }
        }
    }
    Ok(())
}

const SECTIONS_SUPPLEMENTAIRES: &str = concat!(
    r#".SH "CODES DE SORTIE"
.TP
\fB0\fR
tous les fichiers du plan sont déposés
.TP
\fB1\fR
le passage est fini mais des fichiers restent en échec transitoire : \fBvigie retenter\-echecs\fR
"#,
    codes_communs!(),
    r#".TP
\fB130\fR
interrompu (SIGINT, SIGTERM) : "#,
    crate::sortie::sens_du_code_interrompu!(),
    r#"
.SH DURÉES
"#,
    crate::cli::aide_durees!(),
    r#"
.SH ENVIRONNEMENT
"#,
    environnement_commun!(),
    r#".TP
\fBTMPDIR\fR
où \fBvigie demo\fR et \fBvigie bac\-a\-sable\fR créent leur dossier temporaire, effacé à la fin
.SH FICHIERS
.TP
\fI$XDG_DATA_HOME/vigie/vigie.sqlite\fR (ou \fI~/.local/share/vigie/vigie.sqlite\fR)
la base des plans, créée en 0600 ; à côté, \fIvigie.sqlite.verrous/\fR tient les verrous des plans en cours.
Sous Windows : \fI%LOCALAPPDATA%\\vigie\\vigie.sqlite\fR ; sous macOS : \fI~/Library/Application Support/vigie/vigie.sqlite\fR
.TP
\fI$XDG_CONFIG_HOME/vigie/jeton\fR (ou \fI~/.config/vigie/jeton\fR)
le jeton enregistré par \fBvigie connexion\fR, en 0600 ; \fBvigie deconnexion\fR l'efface.
Sous Windows : \fI%APPDATA%\\vigie\\jeton\fR ; sous macOS : \fI~/Library/Application Support/vigie/jeton\fR
"#
);

/// Écrit `completions/`, `man/` et le schéma des lignes JSON sous `racine`.
pub(crate) fn generer_docs(racine: &Path) -> Result<()> {
    let completions = racine.join("completions");
    let man = racine.join("man");
    fs::create_dir_all(&completions)
        .with_context(|| format!("création de {}", completions.display()))?;
    fs::create_dir_all(&man).with_context(|| format!("création de {}", man.display()))?;
    // Entiers ou pas du tout, sans suivre de lien (`plateforme::ecriture`).
    let ecrire = |chemin: PathBuf, contenu: &[u8]| {
        crate::plateforme::ecriture::ecrire_entier(
            &chemin,
            crate::plateforme::ecriture::Droits::Ordinaires,
            contenu,
        )
        .with_context(|| format!("écriture de {}", chemin.display()))
    };
    for (shell, nom) in SHELLS {
        ecrire(completions.join(nom), &script_completion(shell))?;
    }
    for (nom, systeme) in PAGES_DE_MANUEL {
        ecrire(man.join(nom), &page_de_manuel_pour(systeme)?)?;
    }
    ecrire(racine.join(SCHEMA_JSON), &schema_json()?)
}

/// Les pages de manuel sous `man/` : celle d'Unix (installée par le paquet Debian, les
/// archives Linux et macOS), celle de Windows (le `MANUEL.txt` de l'archive Windows).
const PAGES_DE_MANUEL: [(&str, Systeme); 2] = [
    ("vigie.1", Systeme::Unix),
    ("vigie-windows.1", Systeme::Windows),
];

/// Le schéma des lignes JSON, sous la racine du dépôt.
pub const SCHEMA_JSON: &str = "schemas/vigie.schema.json";

/// Le schéma des lignes JSON, tiré du type des événements (`suivi/evenement.rs`).
pub fn schema_json() -> Result<Vec<u8>> {
    let texte = crate::suivi::evenement::schema_publie()
        .context("le schéma des événements ne s'écrit pas en JSON")?;
    Ok(texte.into_bytes())
}

/// Les fichiers attendus sous la racine du dépôt et leur contenu, pour le test « à jour ».
pub fn fichiers_attendus() -> Result<Vec<(String, Vec<u8>)>> {
    let mut v: Vec<(String, Vec<u8>)> = SHELLS
        .iter()
        .map(|(shell, nom)| (format!("completions/{nom}"), script_completion(*shell)))
        .collect();
    for (nom, systeme) in PAGES_DE_MANUEL {
        v.push((format!("man/{nom}"), page_de_manuel_pour(systeme)?));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tests::ANGLAIS_DE_CLAP;

    /// Chaque option de la page de manuel a son texte, les réglages avancés compris (cachés de
    /// l'aide courte, clap_mangen les laissait sans un mot).
    #[test]
    fn chaque_option_de_la_page_a_son_texte() {
        for systeme in [Systeme::Unix, Systeme::Windows] {
            let page = String::from_utf8(page_de_manuel_pour(systeme).unwrap()).unwrap();
            let lignes: Vec<&str> = page.lines().collect();
            let muettes: Vec<&str> = lignes
                .windows(3)
                .filter(|l| l[0] == ".TP" && l[1].starts_with("\\fB\\-") && l[2].trim().is_empty())
                .map(|l| l[1])
                .collect();
            assert!(
                muettes.is_empty(),
                "options sans texte ({systeme:?}) : {muettes:#?}"
            );
            assert!(page.contains("\\fB\\-\\-paralleles\\fR"), "{systeme:?}");
        }
    }

    /// La version Windows ne dit aucun mot d'Unix : ni l'aide longue de la commande et de
    /// chaque sous-commande, ni sa page de manuel (le MANUEL.txt de l'archive), qui a ses
    /// exemples dans PowerShell. La page d'Unix, elle, garde les siens.
    #[test]
    fn la_version_windows_parle_avec_les_mots_de_windows() {
        use crate::plateforme::mots::mots_d_unix;
        let mut racine = cli::commande_pour(Systeme::Windows);
        racine.build();
        let mut aides = vec![racine.render_long_help().to_string()];
        for sous in racine.get_subcommands_mut() {
            aides.push(sous.render_long_help().to_string());
        }
        for aide in &aides {
            assert!(
                mots_d_unix(aide).is_empty(),
                "{:?} dans :\n{aide}",
                mots_d_unix(aide)
            );
        }
        let page = String::from_utf8(page_de_manuel_pour(Systeme::Windows).unwrap()).unwrap();
        assert!(mots_d_unix(&page).is_empty(), "{:?}", mots_d_unix(&page));
        assert!(page.contains("%LOCALAPPDATA%"), "{page}");
        assert!(page.contains("vigie.exe depot E:"), "{page}");
        let unix = String::from_utf8(page_de_manuel().unwrap()).unwrap();
        assert!(!mots_d_unix(&unix).is_empty());
    }

    /// La complétion PowerShell s'inscrit pour `vigie`, `vigie.exe` et `.\vigie.exe`, et ne
    /// propose pas les commandes cachées ; les autres sous-commandes y restent, options
    /// comprises.
    #[test]
    fn la_completion_powershell_sert_vigie_exe_sans_les_commandes_cachees() {
        let script = String::from_utf8(script_completion(Shell::PowerShell)).unwrap();
        assert!(
            script.contains(
                "Register-ArgumentCompleter -Native -CommandName 'vigie', 'vigie.exe', \
                 '.\\vigie.exe', './vigie.exe' -ScriptBlock {"
            ),
            "{script}"
        );
        assert!(!script.contains("generer-docs"), "{script}");
        assert!(script.contains("[CompletionResult]::new('demo', 'demo'"));
        assert!(script.contains("'vigie;depot' {"));
        assert!(script.contains("'vigie;completions' {"));
        // Les blocs restent équilibrés : autant d'accolades ouvertes que fermées.
        assert_eq!(script.matches('{').count(), script.matches('}').count());
    }

    #[test]
    fn la_page_de_manuel_est_en_francais_et_a_ses_exemples() {
        let page = String::from_utf8(page_de_manuel().unwrap()).unwrap();
        for anglais in ANGLAIS_DE_CLAP.iter().chain(&[
            ".SH NAME",
            ".SH SYNOPSIS",
            "General Commands Manual",
            "SUBCOMMANDS",
        ]) {
            assert!(
                !page.contains(anglais),
                "« {anglais} » dans la page de manuel"
            );
        }
        assert!(page.contains(".TH vigie 1 \"\" \"vigie "), "{page}");
        assert!(page.contains("\"Manuel de vigie\""));
        for section in [
            ".SH NOM",
            ".SH UTILISATION",
            ".SH EXEMPLES",
            ".SH \"CODES DE SORTIE\"",
        ] {
            assert!(page.contains(section), "{section} manque");
        }
        assert!(page.contains("vigie renommer"));
    }
}
