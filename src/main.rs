//! Point d'entrée : analyse de la ligne de commande, journalisation, exécution, code de sortie.

use std::process::ExitCode;

use vigie::cli::Cli;
use vigie::commandes;
use vigie::sortie::{code_pour_erreur, est_tube_ferme};

fn main() -> ExitCode {
    let cli = Cli::analyser();
    commandes::initialiser_journal(&cli.globales);
    match commandes::executer(cli) {
        Ok(code) => code.into(),
        Err(e) if est_tube_ferme(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("erreur : {e:#}");
            code_pour_erreur(&e).into()
        }
    }
}
