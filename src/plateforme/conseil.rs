//! Les commandes que `vigie` conseille (« Ensuite : vigie traiter … », « lancez vigie connexion
//! --jeton - »), écrites telles que la bénévole peut les taper **là où elle est**.
//!
//! Pourquoi : sous Windows, la bénévole lance `.\vigie.exe` depuis le dossier où elle a
//! décompressé l'archive (c'est ce qu'apprend le LISEZMOI) ; un conseil « vigie traiter »,
//! recopié dans PowerShell, échoue tant que `vigie` n'est pas dans le `PATH`. Et un
//! chemin de carte avec des espaces (`C:\Users\…\Relevés Zoé\Carte SD 2026`) recopié sans
//! guillemets devient trois arguments.
//!
//! **Toute commande conseillée passe par [`commande`]** : le nom du programme, puis chaque mot,
//! entouré des guillemets qu'il faut pour le shell du système. Rien d'autre n'écrit « vigie … »
//! dans un conseil.
//!
//! Le nom du programme est celui par lequel `vigie` a été lancé, retenu au démarrage
//! ([`retenir_le_programme`], appelé par `main`) :
//! - un nom nu (`vigie`, `vigie.exe`, trouvé par le `PATH`) est rendu tel qu'il a été tapé ;
//! - un programme du dossier courant : `.\vigie.exe` sous Windows, `./vigie` ailleurs (le nom
//!   du fichier, tel que lancé) ; PowerShell donne au programme son chemin complet, cmd ce qui
//!   a été tapé : les deux se reconnaissent au dossier ;
//! - un programme d'un dossier du `PATH` : son nom nu (sans `.exe`) ;
//! - sinon, le chemin lancé, entre guillemets s'il le faut ; sous Windows, un programme entre
//!   guillemets se lance dans PowerShell par l'opérateur d'appel (`& "C:\…\vigie.exe"`), que
//!   PowerShell exige, et c'est le shell qu'apprend le LISEZMOI.
//!
//! Sans [`retenir_le_programme`] (la bibliothèque, les essais unitaires) : `vigie`.
//!
//! Les guillemets : sous Unix, ceux du shell POSIX (`'…'`, une apostrophe écrite `'\''`) ; sous
//! Windows, des guillemets doubles, que comprennent cmd et PowerShell, autour d'un mot qui
//! contient un espace ou un caractère que l'un des deux interprèterait (`,` fait un tableau
//! dans PowerShell, `&` enchaîne dans cmd…) ; les barres obliques inverses qui finissent un mot
//! entre guillemets sont doublées (sinon, selon la règle de découpage de Windows, `"E:\"` colle
//! le guillemet et la suite au chemin). Un mot qui contient `$` ou `` ` `` (que PowerShell
//! développerait entre guillemets doubles) est mis entre apostrophes, la forme littérale de
//! PowerShell.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::Systeme;

/// Le nom du programme dans les commandes conseillées, retenu une fois au démarrage.
static PROGRAMME: OnceLock<String> = OnceLock::new();

/// Le nom par défaut, quand le programme n'a pas été retenu.
const NOM_PAR_DEFAUT: &str = "vigie";

/// Retient le nom par lequel ce processus a été lancé (son `argv[0]`), pour les commandes
/// conseillées. Appelé une fois par `main`, avant toute commande.
pub fn retenir_le_programme() {
    let Some(lance) = std::env::args_os().next() else {
        return;
    };
    let courant = std::env::current_dir().ok();
    let chemins: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let nom = nom_du_programme(
        Path::new(&lance),
        courant.as_deref(),
        &chemins,
        Systeme::ICI,
    );
    let _ = PROGRAMME.set(nom);
}

/// Une commande conseillée : `vigie` (sous le nom tapé), la sous-commande, puis les mots
/// ajoutés par [`Commande::arg`], [`Commande::args`] et [`Commande::chemin`]. S'écrit par
/// `Display` (`format!("Ensuite : {}", commande("traiter").arg("--participation").arg(id))`).
pub(crate) fn commande(sous_commande: &str) -> Commande {
    Commande {
        programme: None,
        mots: vec![sous_commande.to_owned()],
    }
}

/// La commande qui efface un dossier et tout ce qu'il contient : `rm -r` sous Unix,
/// `Remove-Item -Recurse` (PowerShell) sous Windows. (Pour `vigie demo`, qui n'existe qu'avec
/// le bac à sable.)
#[cfg(any(feature = "bac-a-sable", test))]
pub(crate) fn effacer_le_dossier(dossier: &Path) -> Commande {
    let (programme, option) = match Systeme::ICI {
        Systeme::Unix => ("rm", "-r"),
        Systeme::Windows => ("Remove-Item", "-Recurse"),
    };
    Commande {
        programme: Some(programme),
        mots: vec![option.to_owned()],
    }
    .chemin(dossier)
}

/// Les lignes qui posent les variables d'environnement `variables` dans un autre terminal,
/// pour `systeme` : `export NOM='…'` (shell POSIX) ; sous Windows, celles de PowerShell
/// (`$env:NOM = "…"`) puis celles de cmd (`set NOM=…`, sans guillemets : cmd les garderait
/// dans la valeur), chaque groupe sous son titre. (Pour `vigie bac-a-sable`.)
#[cfg(any(feature = "bac-a-sable", test))]
pub(crate) fn variables_a_poser<K: AsRef<str>, V: AsRef<str>>(
    variables: &[(K, V)],
    systeme: Systeme,
) -> Vec<String> {
    let paires = variables.iter().map(|(k, v)| (k.as_ref(), v.as_ref()));
    match systeme {
        Systeme::Unix => paires
            .map(|(k, v)| format!("  export {k}={}", mot_pour(v, Systeme::Unix)))
            .collect(),
        Systeme::Windows => std::iter::once("  PowerShell :".to_owned())
            .chain(paires.clone().map(|(k, v)| {
                format!(
                    "    $env:{k} = \"{}\"",
                    v.replace('`', "``").replace('$', "`$")
                )
            }))
            .chain(std::iter::once("  cmd :".to_owned()))
            .chain(paires.map(|(k, v)| format!("    set {k}={v}")))
            .collect(),
    }
}

/// Une commande conseillée en construction (voir [`commande`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commande {
    /// Un autre programme que `vigie` (voir [`effacer_le_dossier`]).
    programme: Option<&'static str>,
    mots: Vec<String>,
}

impl Commande {
    /// Une commande de `vigie` donnée mot à mot (sans le nom du programme) : celle qu'on fait
    /// retaper, d'après la ligne reçue.
    pub(crate) fn des_mots(mots: impl IntoIterator<Item = String>) -> Commande {
        Commande {
            programme: None,
            mots: mots.into_iter().collect(),
        }
    }

    /// Un mot de plus (un numéro de plan, une option, un identifiant, `DOSSIER`…), entouré de
    /// guillemets s'il le faut.
    pub(crate) fn arg(mut self, mot: impl fmt::Display) -> Commande {
        self.mots.push(mot.to_string());
        self
    }

    /// Des mots de plus, chacun comme par [`Commande::arg`].
    pub(crate) fn args<I>(mut self, mots: I) -> Commande
    where
        I: IntoIterator,
        I::Item: fmt::Display,
    {
        self.mots.extend(mots.into_iter().map(|m| m.to_string()));
        self
    }

    /// Un chemin, tel que le système l'écrit, entouré de guillemets s'il le faut.
    pub(crate) fn chemin(self, chemin: &Path) -> Commande {
        self.arg(chemin.display())
    }

    /// La commande précédée de l'invite du shell, comme on la montre tapée : `$ vigie …`
    /// sous Unix, `PS> .\vigie.exe …` sous Windows (l'invite de PowerShell). (Pour `vigie demo`.)
    #[cfg(any(feature = "bac-a-sable", test))]
    pub(crate) fn tapee(&self) -> String {
        let invite = match Systeme::ICI {
            Systeme::Unix => "$",
            Systeme::Windows => "PS>",
        };
        format!("{invite} {self}")
    }

    /// La commande écrite pour `shell`, `vigie` nommé `programme`.
    pub(crate) fn ecrire_pour(&self, programme: &str, shell: Systeme) -> String {
        let mut texte = self.programme.unwrap_or(programme).to_owned();
        for mot in &self.mots {
            texte.push(' ');
            texte.push_str(&mot_pour(mot, shell));
        }
        texte
    }
}

impl fmt::Display for Commande {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let programme = PROGRAMME.get().map_or(NOM_PAR_DEFAUT, String::as_str);
        f.write_str(&self.ecrire_pour(programme, Systeme::ICI))
    }
}

/// Le nom du programme dans les conseils, lancé sous le chemin `lance` (`argv[0]`), depuis le
/// dossier `courant`, avec les dossiers `chemins` dans le `PATH` (voir l'en-tête du module).
fn nom_du_programme(
    lance: &Path,
    courant: Option<&Path>,
    chemins: &[PathBuf],
    shell: Systeme,
) -> String {
    let texte = lance.to_string_lossy();
    // Sous Windows, `argv[0]` sépare par « \ » quel que soit le shell dont on écrit la
    // commande ; ailleurs, « \ » est un caractère de nom.
    let separateur =
        |c: char| c == '/' || ((shell == Systeme::Windows || cfg!(windows)) && c == '\\');
    let Some(fin) = texte.rfind(separateur) else {
        // Un nom nu, trouvé par le PATH (ou, dans cmd, dans le dossier courant) : tel que tapé.
        return if texte.is_empty() {
            NOM_PAR_DEFAUT.to_owned()
        } else {
            texte.into_owned()
        };
    };
    let (dossier, fichier) = (&texte[..fin], &texte[fin + 1..]);
    if fichier.is_empty() {
        return NOM_PAR_DEFAUT.to_owned();
    }
    let dossier = if dossier.is_empty() { "/" } else { dossier };
    let dossier = match courant {
        Some(c) => c.join(dossier),
        None => PathBuf::from(dossier),
    };
    let meme = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let brut = if courant.is_some_and(|c| meme(&dossier, c)) {
        match shell {
            Systeme::Windows => format!(r".\{fichier}"),
            Systeme::Unix => format!("./{fichier}"),
        }
    } else if chemins.iter().any(|p| meme(&dossier, p)) {
        match shell {
            Systeme::Windows => fichier
                .len()
                .checked_sub(4)
                .filter(|&i| fichier.is_char_boundary(i))
                .filter(|&i| fichier[i..].eq_ignore_ascii_case(".exe"))
                .map_or(fichier, |i| &fichier[..i])
                .to_owned(),
            Systeme::Unix => fichier.to_owned(),
        }
    } else {
        texte.into_owned()
    };
    let mot = mot_pour(&brut, shell);
    if shell == Systeme::Windows && mot.starts_with(['"', '\'']) {
        format!("& {mot}")
    } else {
        mot
    }
}

/// Un mot de la commande, entouré des guillemets qu'il faut pour `shell`.
fn mot_pour(mot: &str, shell: Systeme) -> String {
    match shell {
        Systeme::Unix => {
            let sur = |c: char| {
                c.is_alphanumeric()
                    || matches!(
                        c,
                        '_' | '-' | '.' | '/' | ':' | '@' | '%' | '+' | '=' | ',' | '…'
                    )
            };
            if !mot.is_empty() && mot.chars().all(sur) && !mot.starts_with('~') {
                mot.to_owned()
            } else {
                format!("'{}'", mot.replace('\'', r"'\''"))
            }
        }
        Systeme::Windows => {
            let sur = |c: char| {
                c.is_alphanumeric()
                    || matches!(c, '_' | '-' | '.' | '/' | '\\' | ':' | '+' | '=' | '…')
            };
            if !mot.is_empty() && mot.chars().all(sur) {
                mot.to_owned()
            } else if mot.contains(['$', '`']) {
                format!("'{}'", mot.replace('\'', "''"))
            } else {
                // Les barres obliques inverses qui précèdent le guillemet fermant sont doublées
                // (règle de découpage de Windows) ; un guillemet du mot (aucun nom de fichier
                // n'en porte) est écrit \".
                let interieur = mot.replace('"', r#"\""#);
                let finales = interieur.len() - interieur.trim_end_matches('\\').len();
                format!("\"{interieur}{}\"", "\\".repeat(finales))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sans_programme_retenu_la_commande_commence_par_vigie() {
        assert_eq!(
            commande("retenter-echecs").arg(3).to_string(),
            "vigie retenter-echecs 3"
        );
        assert_eq!(
            commande("connexion").args(["--jeton", "-"]).to_string(),
            "vigie connexion --jeton -"
        );
    }

    #[test]
    fn une_commande_tapee_porte_l_invite_du_systeme() {
        let tapee = commande("etat").tapee();
        if cfg!(windows) {
            assert_eq!(tapee, "PS> vigie etat");
        } else {
            assert_eq!(tapee, "$ vigie etat");
        }
        let effacer =
            effacer_le_dossier(Path::new("/tmp/démo 1")).ecrire_pour("vigie", Systeme::Unix);
        assert!(effacer.ends_with(" '/tmp/démo 1'"), "{effacer}");
    }

    /// `vigie bac-a-sable` : `export` pour le shell POSIX ; sous Windows, les lignes de
    /// PowerShell et de cmd, sans `export`.
    #[test]
    fn les_variables_se_posent_selon_le_shell() {
        let variables = [
            ("AWS_REGION", "us-east-1"),
            ("VIGIE_BASE", "C:\\a b\\v.sqlite"),
        ];
        let unix = variables_a_poser(&variables, Systeme::Unix);
        assert_eq!(unix[0], "  export AWS_REGION=us-east-1");
        assert_eq!(unix[1], "  export VIGIE_BASE='C:\\a b\\v.sqlite'");
        let windows = variables_a_poser(&variables, Systeme::Windows).join("\n");
        assert!(
            windows.contains("    $env:AWS_REGION = \"us-east-1\""),
            "{windows}"
        );
        assert!(
            windows.contains("    set VIGIE_BASE=C:\\a b\\v.sqlite"),
            "{windows}"
        );
        assert!(!windows.contains("export "), "{windows}");
    }

    #[test]
    fn un_chemin_avec_espaces_est_entre_guillemets_selon_le_shell() {
        let c = commande("depot").arg(r"C:\Users\zoe\Relevés Zoé\Carte SD 2026");
        assert_eq!(
            c.ecrire_pour(r".\vigie.exe", Systeme::Windows),
            r#".\vigie.exe depot "C:\Users\zoe\Relevés Zoé\Carte SD 2026""#
        );
        let c = commande("depot").arg("/home/zoé/Relevés Zoé/l'été");
        assert_eq!(
            c.ecrire_pour("vigie", Systeme::Unix),
            r"vigie depot '/home/zoé/Relevés Zoé/l'\''été'"
        );
        // Sans espace ni caractère spécial, rien n'est ajouté.
        let c = commande("depot")
            .arg(r"E:\")
            .arg("--participation")
            .arg("64a1");
        assert_eq!(
            c.ecrire_pour("vigie", Systeme::Windows),
            r"vigie depot E:\ --participation 64a1"
        );
        assert_eq!(
            commande("depot")
                .arg("~/Nuits")
                .ecrire_pour("vigie", Systeme::Unix),
            "vigie depot '~/Nuits'"
        );
    }

    /// `"E:\"` collerait la suite de la ligne au chemin : la barre finale est doublée.
    #[test]
    fn une_barre_finale_entre_guillemets_est_doublee_sous_windows() {
        assert_eq!(
            mot_pour(r"E:\Carte SD\", Systeme::Windows),
            r#""E:\Carte SD\\""#
        );
        assert_eq!(mot_pour("1,5Mio/s", Systeme::Windows), r#""1,5Mio/s""#);
        assert_eq!(mot_pour("a&b", Systeme::Windows), r#""a&b""#);
        assert_eq!(mot_pour("C:\\L'$été", Systeme::Windows), r"'C:\L''$été'");
        assert_eq!(mot_pour("", Systeme::Windows), r#""""#);
        assert_eq!(mot_pour("", Systeme::Unix), "''");
    }

    #[test]
    fn le_programme_est_nomme_comme_il_a_ete_lance() {
        let dir = tempfile::tempdir().unwrap();
        let ici = dir.path().join("ici");
        let outils = dir.path().join("outils");
        let ailleurs = dir.path().join("ailleurs avec espace");
        for d in [&ici, &outils, &ailleurs] {
            std::fs::create_dir(d).unwrap();
        }
        let path = [outils.clone()];
        let nom = |lance: &Path, shell| nom_du_programme(lance, Some(&ici), &path, shell);

        // Un nom nu : tel que tapé.
        assert_eq!(nom(Path::new("vigie"), Systeme::Unix), "vigie");
        assert_eq!(nom(Path::new("vigie.exe"), Systeme::Windows), "vigie.exe");
        // Le dossier courant, sous un chemin relatif ou complet (PowerShell).
        assert_eq!(nom(Path::new("./vigie"), Systeme::Unix), "./vigie");
        assert_eq!(nom(&ici.join("vigie"), Systeme::Unix), "./vigie");
        assert_eq!(
            nom(Path::new(r".\vigie.exe"), Systeme::Windows),
            r".\vigie.exe"
        );
        assert_eq!(
            nom(&ici.join("vigie.exe"), Systeme::Windows),
            r".\vigie.exe"
        );
        // Un dossier du PATH : le nom nu.
        assert_eq!(nom(&outils.join("vigie"), Systeme::Unix), "vigie");
        assert_eq!(nom(&outils.join("vigie.EXE"), Systeme::Windows), "vigie");
        // Ailleurs : le chemin, entre guillemets s'il le faut.
        let loin = ailleurs.join("vigie");
        assert_eq!(
            nom(&loin, Systeme::Unix),
            format!("'{}'", loin.display()),
            "hors du PATH et du dossier courant"
        );
        assert!(
            nom(&loin, Systeme::Windows).starts_with("& \""),
            "PowerShell"
        );
        assert_eq!(nom(Path::new(""), Systeme::Unix), "vigie");
        // Un second téléchargement, « vigie (1).exe », dans le dossier courant.
        assert_eq!(
            nom(&ici.join("vigie (1).exe"), Systeme::Windows),
            r#"& ".\vigie (1).exe""#
        );
    }
}
