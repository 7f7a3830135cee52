//! Point d'entrée : analyse de la ligne de commande, journalisation, exécution, code de sortie.

use std::process::ExitCode;

use vigie::cli::Cli;
use vigie::commandes;
use vigie::sortie::{CodeSortie, code_pour_erreur, est_tube_ferme};
use vigie::suivi;
use vigie::suivi::format::neutraliser;

fn main() -> ExitCode {
    let cli = Cli::analyser();
    if let Err(e) = commandes::initialiser_journal(&cli.globales) {
        eprintln!("erreur : {e:#}");
        return CodeSortie::Usage.into();
    }
    let json = cli.globales.json;
    match commandes::executer(cli) {
        Ok(code) => code.into(),
        Err(e) if est_tube_ferme(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Des barres encore à l'écran (passage arrêté net) recouvriraient le message.
            suivi::liberer_terminal();
            let message = format!("{e:#}");
            let code = code_pour_erreur(&e);
            // Une erreur peut citer le serveur ou un nom de fichier : rien n'en atteint le
            // terminal tel quel.
            eprintln!("erreur : {}", neutraliser(&message));
            // Un script qui lit la sortie JSON y trouve aussi l'erreur, en dernière ligne.
            if json {
                let _ = suivi::ecrire_ligne(serde_json::json!({
                    "evenement": "erreur",
                    "code": code as i32,
                    "message": message,
                }));
            }
            code.into()
        }
    }
}
