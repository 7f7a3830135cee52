//! Point d'entrée : analyse de la ligne de commande, journalisation, exécution, code de sortie.

use std::io::Write;
use std::process::ExitCode;

use vigie::cli::Cli;
use vigie::commandes;
use vigie::sortie::{self, CodeSortie, code_pour_erreur};
use vigie::suivi;
use vigie::suivi::format::neutraliser;

fn main() -> ExitCode {
    // Les commandes conseillées commencent par le nom sous lequel vigie a été lancé.
    vigie::plateforme::conseil::retenir_le_programme();
    // Sous Windows, `"E:\"` colle la suite de la ligne au chemin : dit avant toute analyse
    // (les options collées ne seraient pas lues).
    if let Some(message) = vigie::plateforme::ligne::guillemet_colle() {
        let _ = writeln!(sortie::erreur(), "erreur : {message}");
        return CodeSortie::Usage.into();
    }
    let cli = Cli::analyser();
    if let Err(e) = commandes::initialiser_journal(&cli.globales) {
        let _ = writeln!(sortie::erreur(), "erreur : {e:#}");
        return CodeSortie::Usage.into();
    }
    let json = cli.globales.json;
    // Une sortie que plus personne ne lit (tube fermé, terminal fermé) n'arrête aucune
    // commande (`sortie::SansEchec`) : le code est toujours celui de ce qu'elle a fait.
    match commandes::executer(cli) {
        Ok(code) => code.into(),
        Err(e) => {
            // Des barres encore à l'écran (passage arrêté net) recouvriraient le message.
            suivi::liberer_terminal();
            let message = format!("{e:#}");
            let code = code_pour_erreur(&e);
            // Une erreur peut citer le serveur ou un nom de fichier : rien n'en atteint le
            // terminal tel quel.
            let _ = writeln!(sortie::erreur(), "erreur : {}", neutraliser(&message));
            // Un script qui lit la sortie JSON y trouve aussi l'erreur, en dernière ligne.
            if json {
                // Un refus de saison nomme les nuits dont il dépend.
                let nuits = e
                    .chain()
                    .find_map(|c| c.downcast_ref::<sortie::ErreurAvecCode>())
                    .map(|x| x.nuits.as_slice())
                    .unwrap_or_default();
                let _ = suivi::Evenement::Erreur {
                    code: code as i32,
                    message: &message,
                    nuits,
                }
                .ecrire();
            }
            code.into()
        }
    }
}
