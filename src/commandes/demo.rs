//! `vigie demo` câblé : la graine, les options globales transmises au dépôt de
//! démonstration ; le scénario (la saison, les pannes, le dépôt puis l'état) est dans `demo/`.

use anyhow::Result;

use crate::cli::{ArgsDemo, ModeProgression, OptionsGlobales};
use crate::sortie::CodeSortie;

pub(super) fn demo(g: &OptionsGlobales, args: ArgsDemo) -> Result<CodeSortie> {
    crate::demo::demontrer(&crate::demo::Demande {
        graine: args.graine.unwrap_or_else(rand::random),
        sans_pannes: args.sans_pannes,
        garder: args.garder,
        json: g.json,
        silencieux: g.quiet,
        options: options_globales(g),
    })
}

/// Les options globales de la démonstration, transmises au dépôt.
fn options_globales(g: &OptionsGlobales) -> Vec<String> {
    let mut v = Vec::new();
    if g.json {
        v.push("--json".to_owned());
    }
    if g.quiet {
        v.push("--quiet".to_owned());
    }
    if g.verbose > 0 {
        v.push(format!("-{}", "v".repeat(usize::from(g.verbose))));
    }
    let progression = match g.progression {
        ModeProgression::Auto => "auto",
        ModeProgression::Toujours => "toujours",
        ModeProgression::Jamais => "jamais",
    };
    v.extend(["--progression".to_owned(), progression.to_owned()]);
    if let Some(j) = &g.journal {
        v.push("--journal".to_owned());
        v.push(j.display().to_string());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn les_options_globales_passent_au_depot() {
        use clap::FromArgMatches;
        let correspondances = crate::cli::commande()
            .try_get_matches_from([
                "vigie",
                "demo",
                "--json",
                "-vv",
                "--progression",
                "jamais",
                "--journal",
                "/tmp/j.jsonl",
            ])
            .unwrap();
        let cli = crate::cli::Cli::from_arg_matches(&correspondances).unwrap();
        assert_eq!(
            options_globales(&cli.globales),
            [
                "--json",
                "-vv",
                "--progression",
                "jamais",
                "--journal",
                "/tmp/j.jsonl"
            ]
        );
    }
}
