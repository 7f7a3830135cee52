//! Ce qui est remis aux naturalistes, vérifié sans le fabriquer (la fabrication, ~5 min, et sa
//! vérification sous wine sont dans `scripts/paquets.sh` et `scripts/verifier-paquets.sh`) :
//! le README commence l'installation par Windows ; le LISEZMOI de l'archive Windows ne cite que
//! des commandes qui existent, et se lit dans 80 colonnes ; le flux de publication fabrique un
//! binaire pour chaque Mac que `scripts/paquets.sh` archive.

use std::path::Path;

fn lire(chemin: &str) -> String {
    let racine = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(racine.join(chemin)).unwrap_or_else(|e| panic!("{chemin} : {e}"))
}

/// Les titres `### ` de la section `## Installation` du README, dans l'ordre, et son texte.
fn installation() -> (Vec<String>, String) {
    let readme = lire("README.md");
    let section = readme
        .split_once("\n## Installation\n")
        .expect("le README n'a pas de section « Installation »")
        .1;
    let section = section.split("\n## ").next().unwrap_or(section).to_owned();
    let titres = section
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(str::to_owned)
        .collect();
    (titres, section)
}

/// Windows d'abord (l'archive, PowerShell, `.\vigie.exe demo`), puis Debian et Ubuntu, les
/// autres Linux, macOS ; `cargo install` en dernier, pour les développeurs.
#[test]
fn le_readme_commence_l_installation_par_windows() {
    let (titres, section) = installation();
    let rang = |mot: &str| {
        titres
            .iter()
            .position(|t| t.contains(mot))
            .unwrap_or_else(|| panic!("pas de sous-section « {mot} » : {titres:?}"))
    };
    assert_eq!(rang("Windows"), 0, "{titres:?}");
    assert!(rang("Windows") < rang("Debian"), "{titres:?}");
    assert!(rang("Debian") < rang("Autres Linux"), "{titres:?}");
    assert!(rang("Autres Linux") < rang("macOS"), "{titres:?}");
    assert_eq!(rang("Développeurs"), titres.len() - 1, "{titres:?}");
    let windows = section
        .split("\n### ")
        .nth(1)
        .expect("la sous-section Windows");
    for attendu in [
        "x86_64-pc-windows-gnu.zip",
        "Extraire tout",
        "powershell",
        ".\\vigie.exe demo",
    ] {
        assert!(windows.contains(attendu), "Windows : « {attendu} » manque");
    }
    let developpeurs = section.rsplit("\n### ").next().unwrap_or_default();
    let avant = &section[..section.len() - developpeurs.len()];
    assert!(
        !avant.contains("cargo install"),
        "cargo install n'est que pour les développeurs, en dernier"
    );
    assert!(!section.contains("publiés nulle part"));
}

/// Chaque `.\vigie.exe COMMANDE` du LISEZMOI de l'archive Windows est une commande de `vigie`
/// (un renommage de la ligne de commande ne le laisse pas mentir), et ses lignes tiennent dans
/// les 80 colonnes de la console et du Bloc-notes.
#[test]
fn le_lisezmoi_windows_ne_cite_que_des_commandes_qui_existent() {
    let lisezmoi = lire("scripts/LISEZMOI-windows.txt");
    let commande = vigie::cli::commande();
    let citees: Vec<&str> = lisezmoi
        .split(".\\vigie.exe ")
        .skip(1)
        .filter_map(|suite| suite.split_whitespace().next())
        .filter(|mot| !mot.starts_with('-'))
        .collect();
    for attendue in ["demo", "connexion", "depot", "etat", "plans", "traiter"] {
        assert!(citees.contains(&attendue), "{attendue} n'est pas cité");
    }
    for citee in citees {
        assert!(
            commande.find_subcommand(citee).is_some(),
            "LISEZMOI-windows.txt cite « .\\vigie.exe {citee} », qui n'est pas une commande"
        );
    }
    for (i, ligne) in lisezmoi.lines().enumerate() {
        assert!(
            ligne.chars().count() <= 80,
            "LISEZMOI-windows.txt, ligne {} : {} colonnes",
            i + 1,
            ligne.chars().count()
        );
    }
    for emplacement in ["%APPDATA%\\vigie", "%LOCALAPPDATA%\\vigie"] {
        assert!(lisezmoi.contains(emplacement), "{emplacement}");
    }
}

/// Les binaires macOS sont fabriqués par le flux de publication (`--binaire CIBLE`), un par
/// cible que `scripts/paquets.sh --macos` archive : une cible ajoutée d'un côté seulement ferait
/// échouer la publication, pas ce test-ci sans lui.
#[test]
fn le_flux_de_publication_fabrique_chaque_binaire_que_paquets_sh_archive() {
    let paquets = lire("scripts/paquets.sh");
    let cibles: Vec<&str> = paquets
        .split_once("readonly CIBLES_MACOS=(")
        .and_then(|(_, suite)| suite.split_once(')'))
        .expect("CIBLES_MACOS dans paquets.sh")
        .0
        .split_whitespace()
        .collect();
    assert_eq!(cibles, ["x86_64-apple-darwin", "aarch64-apple-darwin"]);
    let flux = lire(".github/workflows/release.yml");
    for cible in &cibles {
        assert!(
            flux.contains(&format!("cible: {cible}")),
            "release.yml ne fabrique pas {cible}"
        );
    }
    for attendu in [
        "scripts/paquets.sh --binaire",
        "scripts/paquets.sh --macos",
        "scripts/verifier-paquets.sh",
        "runs-on: windows-",
        "runner: macos-15-intel",
        "runner: macos-15\n",
        "tags: [\"v",
        "gh release create",
    ] {
        assert!(flux.contains(attendu), "release.yml : « {attendu} » manque");
    }
}
