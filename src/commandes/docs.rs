//! Complétions et page de manuel, produites par le binaire lui-même à partir de `Cli::command()`.
//! `completions/` et `man/` ne s'éditent jamais à la main : `vigie generer-docs .` les régénère,
//! et un test échoue s'ils ne sont plus à jour.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use clap_complete::Shell;

use crate::cli;
use crate::sortie::CodeSortie;

/// Les shells dont on fournit les complétions, et le nom de leur fichier.
const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "vigie.bash"),
    (Shell::Zsh, "_vigie"),
    (Shell::Fish, "vigie.fish"),
    (Shell::Elvish, "vigie.elv"),
    (Shell::PowerShell, "_vigie.ps1"),
];

pub fn completions(shell: Shell) -> Result<CodeSortie> {
    let mut sortie = io::stdout().lock();
    clap_complete::generate(shell, &mut cli::commande(), "vigie", &mut sortie);
    sortie.flush()?;
    Ok(CodeSortie::Succes)
}

/// Le script de complétion d'un shell, en mémoire.
pub fn script_completion(shell: Shell) -> Vec<u8> {
    let mut tampon = Vec::new();
    clap_complete::generate(shell, &mut cli::commande(), "vigie", &mut tampon);
    tampon
}

/// La page de manuel `vigie(1)`, avec codes de sortie, environnement et fichiers.
pub fn page_de_manuel() -> Result<Vec<u8>> {
    let commande = cli::commande();
    let man = clap_mangen::Man::new(commande);
    let mut tampon = Vec::new();
    man.render_title(&mut tampon)?;
    man.render_name_section(&mut tampon)?;
    man.render_synopsis_section(&mut tampon)?;
    man.render_description_section(&mut tampon)?;
    man.render_options_section(&mut tampon)?;
    man.render_subcommands_section(&mut tampon)?;
    tampon.extend_from_slice(SECTIONS_SUPPLEMENTAIRES.as_bytes());
    man.render_version_section(&mut tampon)?;
    Ok(tampon)
}

const SECTIONS_SUPPLEMENTAIRES: &str = r#".SH "CODES DE SORTIE"
.TP
\fB0\fR
toutes les unités du plan sont déposées
.TP
\fB1\fR
le passage est fini mais des unités restent en échec transitoire : \fBvigie retenter\-echecs\fR
.TP
\fB2\fR
usage ou configuration invalide (arguments, dossier illisible, noms refusés, base illisible) : rien n'a été envoyé
.TP
\fB3\fR
des unités sont refusées définitivement (4xx : nom, droits, identifiants) : un geste humain est nécessaire
.TP
\fB4\fR
le plan est déjà en cours de traitement par un autre \fBvigie\fR
.TP
\fB130\fR
interrompu (SIGINT, SIGTERM) : le plan est à jour, relancer reprend
.SH ENVIRONNEMENT
.TP
\fBVIGIE_BASE\fR
la base des plans (comme \fB\-\-base\fR)
.TP
\fBAWS_ACCESS_KEY_ID\fR, \fBAWS_SECRET_ACCESS_KEY\fR, \fBAWS_SESSION_TOKEN\fR, \fBAWS_PROFILE\fR, \fBAWS_REGION\fR, \fBAWS_ENDPOINT_URL\fR
identifiants et réglages S3, selon la chaîne AWS standard
.TP
\fBRUST_LOG\fR
filtre du journal (l'emporte sur \fB\-v\fR et \fB\-q\fR)
.TP
\fBNO_COLOR\fR
désactive les couleurs
.SH FICHIERS
.TP
\fI$XDG_DATA_HOME/vigie/vigie.sqlite\fR (ou \fI~/.local/share/vigie/vigie.sqlite\fR)
la base des plans, créée en 0600 ; à côté, \fIvigie.sqlite.verrous/\fR tient les verrous des plans en cours
"#;

/// Écrit `completions/` et `man/` sous `racine`.
pub fn generer_docs(racine: &Path) -> Result<()> {
    let completions = racine.join("completions");
    let man = racine.join("man");
    fs::create_dir_all(&completions)
        .with_context(|| format!("création de {}", completions.display()))?;
    fs::create_dir_all(&man).with_context(|| format!("création de {}", man.display()))?;
    for (shell, nom) in SHELLS {
        let chemin = completions.join(nom);
        fs::write(&chemin, script_completion(shell))
            .with_context(|| format!("écriture de {}", chemin.display()))?;
    }
    let chemin = man.join("vigie.1");
    fs::write(&chemin, page_de_manuel()?)
        .with_context(|| format!("écriture de {}", chemin.display()))?;
    Ok(())
}

/// Les fichiers attendus sous la racine du dépôt et leur contenu, pour le test « à jour ».
pub fn fichiers_attendus() -> Result<Vec<(String, Vec<u8>)>> {
    let mut v: Vec<(String, Vec<u8>)> = SHELLS
        .iter()
        .map(|(shell, nom)| (format!("completions/{nom}"), script_completion(*shell)))
        .collect();
    v.push(("man/vigie.1".into(), page_de_manuel()?));
    Ok(v)
}
