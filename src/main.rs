//! Point d'entrée : analyse de la ligne de commande, journalisation, exécution, code de sortie.

use std::io::Write;
use std::process::ExitCode;

use vigie::cli::Cli;
use vigie::commandes;
use vigie::plateforme::explorateur::{self, GesteDeLExplorateur};
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
    match explorateur::geste_de_l_explorateur() {
        // Dans un terminal : la ligne de commande, comme toujours.
        None => executer(Cli::analyser()).into(),
        // Double-cliqué dans l'explorateur de Windows : un court guide, au lieu d'une aide
        // qui défilerait dans une fenêtre aussitôt fermée.
        Some(GesteDeLExplorateur::Guide) => {
            let _ = write!(
                sortie::standard(),
                "{}",
                vigie::cli::guide_de_l_explorateur()
            );
            attendre_entree();
            ExitCode::SUCCESS
        }
        // Un dossier déposé sur l'icône : la connexion s'il manque le jeton, puis son dépôt ;
        // la fenêtre reste ouverte sur le bilan.
        Some(GesteDeLExplorateur::Deposer(dossier)) => {
            let programme = std::env::args_os().next().unwrap_or_else(|| "vigie".into());
            let mut code = CodeSortie::Succes;
            for mots in commandes::depot_a_la_souris(&dossier) {
                let arguments = std::iter::once(programme.clone()).chain(mots).collect();
                code = executer(Cli::analyser_depuis(arguments));
                if code != CodeSortie::Succes {
                    break;
                }
            }
            attendre_entree();
            code.into()
        }
    }
}

/// Lancé depuis l'explorateur de Windows, la fenêtre se fermerait avec le programme : elle
/// attend Entrée (ou la fin de l'entrée standard).
fn attendre_entree() {
    let _ = write!(
        sortie::standard(),
        "\nAppuyez sur Entrée pour fermer cette fenêtre."
    );
    let _ = sortie::standard().flush();
    let _ = std::io::stdin().read_line(&mut String::new());
}

/// Exécute la commande analysée ; une erreur est écrite (et en JSON, si demandé).
fn executer(cli: Cli) -> CodeSortie {
    if let Err(e) = commandes::initialiser_journal(&cli.globales) {
        let _ = writeln!(sortie::erreur(), "erreur : {e:#}");
        return CodeSortie::Usage;
    }
    let json = cli.globales.json;
    // Une sortie que plus personne ne lit (tube fermé, terminal fermé) n'arrête aucune
    // commande (`sortie::SansEchec`) : le code est toujours celui de ce qu'elle a fait.
    match commandes::executer(cli) {
        Ok(code) => code,
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
            code
        }
    }
}
