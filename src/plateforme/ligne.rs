//! Les pièges de la ligne de commande, reconnus et dits avec la commande exacte à retaper.
//!
//! - **Le guillemet collé** (Windows) : selon la règle de découpage des programmes Windows
//!   (celle du C de Microsoft, que suit Rust), `\"` est un guillemet littéral. Un chemin entre
//!   guillemets qui finit par une barre oblique inverse, `"E:\"` ou `"C:\…\Carte SD 2026\"`,
//!   n'est donc pas refermé : la suite de la ligne (`--simulation`…) est collée au chemin, dans
//!   le même argument, et l'option n'est jamais lue. cmd et Windows PowerShell 5.1 transmettent
//!   la ligne telle quelle. Aucun nom de fichier Windows ne contient de guillemet : un argument
//!   qui en porte un est ce piège-là.
//! - **Les guillemets oubliés** (partout) : un chemin avec des espaces tapé sans guillemets
//!   arrive en plusieurs arguments ; le premier est introuvable. Si, recollé aux arguments qui
//!   le suivent, il forme un chemin qui existe, c'est ce qu'elle voulait dire.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Systeme;
use super::conseil::Commande;

/// Sous Windows, un argument de la ligne de commande de ce processus qui porte un guillemet
/// (voir l'en-tête du module) : le message qui dit quoi retaper. `None` ailleurs.
pub fn guillemet_colle() -> Option<String> {
    if Systeme::ICI != Systeme::Windows {
        return None;
    }
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    guillemet_colle_dans(&args).map(|(colle, retaper)| {
        format!(
            "l'argument « {colle} » contient un guillemet : sous Windows, une barre oblique \
             inverse juste avant le guillemet qui ferme un chemin (« \\\" ») le laisse ouvert, \
             et la suite de la ligne est collée au chemin (ses options ne sont pas lues). Rien \
             n'a été fait. Retapez, sans barre oblique finale dans les guillemets : {retaper}"
        )
    })
}

/// Le premier argument de `args` (sans le nom du programme) qui porte un guillemet, et la
/// commande à retaper : le chemin avant le guillemet (un lecteur seul, `E:`, redevient `E:\`),
/// puis les mots qui y étaient collés, puis les arguments suivants.
fn guillemet_colle_dans(args: &[String]) -> Option<(String, Commande)> {
    let i = args.iter().position(|a| a.contains('"'))?;
    let colle = &args[i];
    let (chemin, reste) = colle.split_once('"')?;
    let chemin = chemin.trim_end();
    let chemin = if chemin.len() == 2 && chemin.ends_with(':') {
        format!("{chemin}\\")
    } else {
        chemin.to_owned()
    };
    let mots = args[..i]
        .iter()
        .cloned()
        .chain((!chemin.is_empty()).then_some(chemin))
        .chain(
            reste
                .split_whitespace()
                .map(|m| m.trim_matches('"'))
                .filter(|m| !m.is_empty())
                .map(str::to_owned),
        )
        .chain(args[i + 1..].iter().cloned());
    Some((colle.clone(), Commande::des_mots(mots)))
}

/// `absent`, un chemin introuvable donné sur la ligne de commande de ce processus : si, recollé
/// aux arguments qui le suivent (séparés d'une espace), il forme un chemin qui existe, le
/// message qui dit de l'entourer de guillemets, et la commande exacte à retaper.
pub(crate) fn guillemets_oublies(absent: &Path) -> Option<String> {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let (recolle, retaper) = guillemets_oublies_dans(&args, absent, |p| p.exists())?;
    Some(format!(
        "le dossier {} est introuvable, mais {} existe : un chemin qui contient des espaces \
         s'écrit entre guillemets. Rien n'a été fait. Retapez : {retaper}",
        absent.display(),
        recolle.display()
    ))
}

/// Le cœur de [`guillemets_oublies`], `existe` dit si un chemin existe : le chemin recollé le
/// plus long qui existe, et la commande à retaper.
fn guillemets_oublies_dans(
    args: &[OsString],
    absent: &Path,
    existe: impl Fn(&Path) -> bool,
) -> Option<(PathBuf, Commande)> {
    let i = args.iter().position(|a| Path::new(a) == absent)?;
    let mut recolle = args[i].clone();
    let mut trouve = None;
    for (j, suivant) in args.iter().enumerate().skip(i + 1) {
        if suivant.to_string_lossy().starts_with('-') {
            break;
        }
        recolle.push(" ");
        recolle.push(suivant);
        if existe(Path::new(&recolle)) {
            trouve = Some((j, PathBuf::from(&recolle)));
        }
    }
    let (j, chemin) = trouve?;
    let texte = |a: &OsString| a.to_string_lossy().into_owned();
    let mots = args[..i]
        .iter()
        .map(texte)
        .chain(std::iter::once(chemin.to_string_lossy().into_owned()))
        .chain(args[j + 1..].iter().map(texte));
    Some((chemin, Commande::des_mots(mots)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mots(ligne: &[&str]) -> Vec<String> {
        ligne.iter().map(|m| (*m).to_owned()).collect()
    }

    /// `vigie.exe depot "C:\…\Carte SD 2026\" --simulation` : Windows rend deux arguments,
    /// `depot` et `C:\…\Carte SD 2026" --simulation`.
    #[test]
    fn le_guillemet_colle_se_retape_sans_la_barre_finale() {
        let args = mots(&[
            "depot",
            r#"C:\Users\zoe\Relevés Zoé\Carte SD 2026" --simulation"#,
        ]);
        let (colle, retaper) = guillemet_colle_dans(&args).unwrap();
        assert_eq!(colle, args[1]);
        assert_eq!(
            retaper.ecrire_pour(r".\vigie.exe", Systeme::Windows),
            r#".\vigie.exe depot "C:\Users\zoe\Relevés Zoé\Carte SD 2026" --simulation"#
        );
        // `"E:\"` : le lecteur seul redevient `E:\` ; ce qui suit l'argument reste à sa place.
        let args = mots(&["-q", "depot", r#"E:" --participation 64a1"#, "--simulation"]);
        let (_, retaper) = guillemet_colle_dans(&args).unwrap();
        assert_eq!(
            retaper.ecrire_pour("vigie", Systeme::Windows),
            r"vigie -q depot E:\ --participation 64a1 --simulation"
        );
        assert!(guillemet_colle_dans(&mots(&["depot", r"E:\"])).is_none());
        if !cfg!(windows) {
            assert!(
                guillemet_colle().is_none(),
                "hors de Windows, un « \" » est permis"
            );
        }
    }

    /// `vigie depot C:\…\Relevés Zoé\Carte SD 2026 --simulation` : quatre arguments au lieu
    /// d'un ; le chemin recollé le plus long qui existe est celui qu'elle voulait.
    #[test]
    fn les_guillemets_oublies_se_retrouvent_en_recollant_les_arguments() {
        let existe = |p: &Path| {
            ["/n/Relevés Zoé", "/n/Relevés Zoé/Carte SD 2026"].contains(&p.to_str().unwrap())
        };
        let args: Vec<OsString> = [
            "depot",
            "/n/Relevés",
            "Zoé/Carte",
            "SD",
            "2026",
            "--simulation",
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        let (chemin, retaper) =
            guillemets_oublies_dans(&args, Path::new("/n/Relevés"), existe).unwrap();
        assert_eq!(chemin, Path::new("/n/Relevés Zoé/Carte SD 2026"));
        assert_eq!(
            retaper.ecrire_pour("vigie", Systeme::Unix),
            "vigie depot '/n/Relevés Zoé/Carte SD 2026' --simulation"
        );
        assert_eq!(
            retaper.ecrire_pour(r".\vigie.exe", Systeme::Windows),
            r#".\vigie.exe depot "/n/Relevés Zoé/Carte SD 2026" --simulation"#
        );
        // Rien qui existe en recollant : pas de conseil.
        assert!(guillemets_oublies_dans(&args, Path::new("/n/Relevés"), |_| false).is_none());
        assert!(guillemets_oublies_dans(&args, Path::new("/ailleurs"), existe).is_none());
    }
}
