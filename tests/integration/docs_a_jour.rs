//! `completions/`, `man/` et le schéma des lignes JSON sont produits par le binaire : ces tests
//! échouent s'ils ne sont plus à jour, et disent comment les régénérer. Le paquet Debian les
//! installe : un autre vérifie que `[package.metadata.deb]` désigne des fichiers qui existent,
//! aux emplacements Debian.

// Les fichiers livrés décrivent le binaire par défaut : sans le bac à sable, `demo` et
// `bac-a-sable` manquent à la ligne de commande, et l'écart est attendu.
#[cfg(feature = "bac-a-sable")]
#[test]
fn completions_et_manuel_a_jour() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut perimes = Vec::new();
    for (chemin, attendu) in vigie::commandes::fichiers_attendus().expect("génération") {
        let present = std::fs::read(racine.join(&chemin)).unwrap_or_default();
        if present != attendu {
            perimes.push(chemin);
        }
    }
    assert!(
        perimes.is_empty(),
        "fichiers générés périmés : {perimes:?}\nrégénérez-les avec : cargo run -- generer-docs ."
    );
}

/// Le schéma publié des lignes JSON est celui que le type des événements donne
/// (`src/suivi/evenement.rs`) : un champ ou un événement ajouté au type sans régénérer le
/// fichier fait échouer ce test.
#[test]
fn schema_json_a_jour() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let chemin = racine.join(vigie::commandes::SCHEMA_JSON);
    let present = std::fs::read_to_string(&chemin).expect("schéma publié lisible");
    let attendu = vigie::commandes::schema_json().expect("génération");
    assert!(
        present.as_bytes() == attendu.as_slice(),
        "{} périmé\nrégénérez-le avec : cargo run -- generer-docs .",
        chemin.display()
    );
}

#[test]
fn le_manuel_documente_les_codes_de_sortie_et_l_environnement() {
    let man = String::from_utf8(vigie::commandes::page_de_manuel().unwrap()).unwrap();
    for attendu in [
        "CODES DE SORTIE",
        "130",
        "VIGIE_BASE",
        "FICHIERS",
        "retenter",
    ] {
        assert!(
            man.contains(attendu),
            "la page de manuel ne dit rien de {attendu}"
        );
    }
}

/// `cargo deb` ne tourne pas en intégration continue (trop long) : ce test vérifie sans lui que
/// chaque fichier que `[package.metadata.deb]` met dans le paquet existe (le binaire excepté,
/// que la fabrication produit), et que le manuel et les complétions vont là où Debian les cherche.
#[test]
fn le_paquet_debian_installe_des_fichiers_qui_existent_aux_emplacements_debian() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifeste = std::fs::read_to_string(racine.join("Cargo.toml")).expect("Cargo.toml");
    let section = manifeste
        .split_once("\n[package.metadata.deb]\n")
        .expect("Cargo.toml n'a pas de section [package.metadata.deb]")
        .1;
    // La section s'arrête à la table suivante (les lignes de `assets` sont indentées).
    let section = section.split("\n[").next().unwrap_or(section);
    let ligne = regex::Regex::new(r#"\[\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*"[0-7]{3}"\s*\]"#)
        .expect("expression");
    let fichiers: Vec<(&str, &str)> = ligne
        .captures_iter(section)
        .map(|c| {
            let (_, [source, destination]) = c.extract();
            (source, destination)
        })
        .collect();

    let absents: Vec<&str> = fichiers
        .iter()
        .map(|(source, _)| *source)
        .filter(|source| !source.starts_with("target/release/") && !racine.join(source).is_file())
        .collect();
    assert!(
        absents.is_empty(),
        "fichiers du paquet Debian absents : {absents:?}"
    );

    for attendu in [
        ("target/release/vigie", "usr/bin/"),
        ("man/vigie.1", "usr/share/man/man1/vigie.1"),
        (
            "completions/vigie.bash",
            "usr/share/bash-completion/completions/vigie",
        ),
        (
            "completions/_vigie",
            "usr/share/zsh/vendor-completions/_vigie",
        ),
        (
            "completions/vigie.fish",
            "usr/share/fish/vendor_completions.d/vigie.fish",
        ),
    ] {
        assert!(
            fichiers.contains(&attendu),
            "[package.metadata.deb] n'installe pas {} en {} ; il installe : {fichiers:?}",
            attendu.0,
            attendu.1
        );
    }
}

/// Le dépôt se suffit : aucun fichier ne renvoie à des documents qui n'y sont pas (le dossier
/// partagé de l'équipe, ses notes de conception et de plateforme, ses documents d'origine) ni
/// aux numéros d'un suivi de tickets que le dépôt n'a pas. Ce que le code cite est dans `docs/`
/// ou dans les en-têtes de module ; le serveur se cite par ses fichiers.
#[test]
fn le_depot_se_suffit() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // Les motifs sont assemblés ici pour que ce fichier ne se dénonce pas lui-même.
    let interdits = [
        format!("{}/{}", "..", "shared"),
        format!("{}{}", "CONCEPTION", ".md"),
        format!("{}-{}", "PLATEFORME", "VIGIECHIRO.md"),
        format!("{}{}", "SERVEUR-REEL", ".md"),
        format!("{}{}", "STYLE", ".md"),
        format!("{}{}", "seeds", "/"),
    ];
    let ticket = regex::Regex::new(&format!(r"(?i)\b{}s?\s*(n°\s*|#\s*)?[0-9]", "issue")).unwrap();
    let mut fautes = Vec::new();
    let mut a_voir = vec![racine.to_path_buf()];
    while let Some(dossier) = a_voir.pop() {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            let nom = entree.file_name();
            if chemin.is_dir() {
                // Ce que la fabrication et git produisent n'est pas le dépôt.
                if !matches!(nom.to_str(), Some("target" | ".git" | "__pycache__")) {
                    a_voir.push(chemin);
                }
                continue;
            }
            if nom == "Cargo.lock" {
                continue;
            }
            let Ok(texte) = std::fs::read_to_string(&chemin) else {
                continue; // binaire
            };
            let relatif = chemin.strip_prefix(racine).unwrap().display().to_string();
            for (n, ligne) in texte.lines().enumerate() {
                let motif = interdits
                    .iter()
                    .find(|m| ligne.contains(m.as_str()))
                    .map(String::as_str)
                    .or_else(|| ticket.find(ligne).map(|m| m.as_str()));
                if let Some(motif) = motif {
                    fautes.push(format!("{relatif}:{} : « {motif} »", n + 1));
                }
            }
        }
    }
    assert!(
        fautes.is_empty(),
        "renvois hors du dépôt (citez docs/, un en-tête de module ou le fichier du serveur) :\n{}",
        fautes.join("\n")
    );
}

/// La règle `ligne` (par exemple `unsafe_code = "deny"`) est dans `[workspace.lints.rust]` du
/// Cargo.toml de l'espace de travail.
fn regle_de_l_espace(ligne: &str) {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let espace = std::fs::read_to_string(racine.join("Cargo.toml")).unwrap();
    let regles = espace
        .split("[workspace.lints.rust]")
        .nth(1)
        .expect("[workspace.lints.rust] dans Cargo.toml");
    let regles = regles.split("\n[").next().unwrap();
    assert!(regles.lines().any(|l| l.trim() == ligne), "{regles}");
}

/// `unsafe` n'est permis que dans `src/plateforme/` : l'espace de travail le refuse
/// (`unsafe_code = "deny"` dans `[workspace.lints.rust]`, repris par chaque crate), et seul
/// `src/plateforme/` le lève, fonction par fonction, avec une justification juste au-dessus.
#[test]
fn unsafe_permis_seulement_dans_plateforme() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lire = |p: &str| std::fs::read_to_string(racine.join(p)).unwrap();
    regle_de_l_espace(r#"unsafe_code = "deny""#);
    for crate_ in ["Cargo.toml", "crates/vigie-bac-a-sable/Cargo.toml"] {
        assert!(
            lire(crate_).contains("[lints]\nworkspace = true\n"),
            "{crate_} ne reprend pas les règles de l'espace de travail"
        );
    }
    // Le motif est assemblé ici pour que ce fichier ne se dénonce pas lui-même.
    let leve = format!("allow({}_code)", "unsafe");
    let mut fautes = Vec::new();
    let mut a_voir = vec![
        racine.join("src"),
        racine.join("crates"),
        racine.join("tests"),
    ];
    while let Some(dossier) = a_voir.pop() {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            if chemin.is_dir() {
                if entree.file_name() != "target" {
                    a_voir.push(chemin);
                }
                continue;
            }
            if chemin.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let relatif = chemin.strip_prefix(racine).unwrap().display().to_string();
            let texte = std::fs::read_to_string(&chemin).unwrap();
            let lignes: Vec<&str> = texte.lines().collect();
            for (n, ligne) in lignes.iter().enumerate() {
                if !ligne.contains(&leve) {
                    continue;
                }
                let justifie = n > 0 && lignes[n - 1].trim_start().starts_with("//");
                if !relatif.starts_with("src/plateforme/") || ligne.contains("#![") || !justifie {
                    fautes.push(format!("{relatif}:{}", n + 1));
                }
            }
        }
    }
    assert!(
        fautes.is_empty(),
        "unsafe levé hors de src/plateforme/, pour tout un module, ou sans justification : {fautes:?}"
    );
}

/// La surface publique de `vigie` est celle que `main.rs` et ces essais appellent : `pub(crate)`
/// par défaut, et `unreachable_pub` (`[workspace.lints.rust]`) refuse tout `pub` qu'aucun chemin
/// public n'atteint. Seuls les sept modules qui portent ces racines sont publics, et aucun
/// fichier de `src/` ni du bac à sable ne lève la règle (ARCHITECTURE.md, § conventions).
#[test]
fn surface_publique_restreinte() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lire = |p: &str| std::fs::read_to_string(racine.join(p)).unwrap();
    regle_de_l_espace(r#"unreachable_pub = "warn""#);
    let publics: Vec<String> = lire("src/lib.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_owned())
        .collect();
    assert_eq!(
        publics,
        [
            "cli",
            "commandes",
            "inventaire",
            "plan",
            "plateforme",
            "sortie",
            "suivi"
        ],
        "modules publics de src/lib.rs"
    );
    // Le motif est assemblé ici pour que ce fichier ne se dénonce pas lui-même.
    let leve = format!("allow(unreachable_{})", "pub");
    let mut fautes = Vec::new();
    let mut a_voir = vec![racine.join("src"), racine.join("crates")];
    while let Some(dossier) = a_voir.pop() {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            if chemin.is_dir() {
                a_voir.push(chemin);
            } else if std::fs::read_to_string(&chemin).is_ok_and(|t| t.contains(&leve)) {
                fautes.push(chemin.strip_prefix(racine).unwrap().display().to_string());
            }
        }
    }
    assert!(fautes.is_empty(), "unreachable_pub levé dans : {fautes:?}");
}

/// Le texte d'un fichier du dépôt.
fn lire_doc(chemin: &str) -> String {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(racine.join(chemin)).unwrap_or_else(|e| panic!("{chemin} : {e}"))
}

/// Les documents d'usage : le README (pour la bénévole) et le guide (toutes les règles).
const README: &str = "README.md";
const GUIDE: &str = "docs/guide.md";

/// Les lignes d'un document Markdown hors des blocs de code (```).
fn hors_code(texte: &str) -> Vec<&str> {
    let mut dans_code = false;
    texte
        .lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                dans_code = !dans_code;
                return false;
            }
            !dans_code
        })
        .collect()
}

/// Le README est celui d'une bénévole sur le terrain : il tient en moins de 400 lignes, et le
/// reste (chaque commande, chaque option, chaque cas particulier) est dans le guide.
#[test]
fn le_readme_tient_en_moins_de_400_lignes() {
    let lignes = lire_doc(README).lines().count();
    assert!(
        lignes < 400,
        "{README} fait {lignes} lignes : le détail va dans {GUIDE}, le développement dans \
         CONTRIBUTING.md"
    );
}

/// Chaque commande visible de `vigie` a sa section dans le guide, et une seule : un titre qui
/// la nomme (`` ## `vigie depot` … ``). Ni le README ni un autre document d'usage ne lui en
/// donnent une seconde : ils renvoient au guide.
#[test]
fn chaque_commande_a_sa_section_dans_le_guide_et_une_seule() {
    let nommee = regex::Regex::new(r"`vigie ([a-z-]+)[^`]*`").unwrap();
    let commandes: Vec<String> = vigie::cli::commande()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_owned())
        .collect();
    assert!(commandes.len() > 10, "{commandes:?}");
    let mut sections: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for doc in [README, GUIDE, "CONTRIBUTING.md"] {
        let texte = lire_doc(doc);
        for titre in hors_code(&texte)
            .into_iter()
            .filter(|l| l.starts_with("##"))
        {
            for c in nommee.captures_iter(titre) {
                sections
                    .entry(c[1].to_owned())
                    .or_default()
                    .push(format!("{doc} : {titre}"));
            }
        }
    }
    let mut fautes = Vec::new();
    for commande in &commandes {
        match sections.get(commande).map(Vec::as_slice) {
            Some([seule]) if seule.starts_with(GUIDE) => {}
            autre => fautes.push(format!("vigie {commande} : {autre:?}")),
        }
    }
    assert!(
        fautes.is_empty(),
        "chaque commande a une section (un titre `vigie COMMANDE`) dans {GUIDE}, et une seule :\n{}",
        fautes.join("\n")
    );
}

/// Les codes de sortie sont dits dans une seule table (`| code | sens |`), dans le guide : une
/// ligne par code, ceux de l'aide (`vigie --help`, repris par la page de manuel), ni plus ni
/// moins. Le README et les autres documents y renvoient.
#[test]
fn les_codes_de_sortie_sont_dits_une_fois_dans_le_guide() {
    let aide = vigie::cli::commande()
        .get_after_long_help()
        .map(ToString::to_string)
        .expect("l'aide longue dit les codes de sortie");
    let code = regex::Regex::new(r"^  ([0-9]+) ").unwrap();
    let attendus: Vec<String> = aide
        .lines()
        .filter_map(|l| code.captures(l).map(|c| c[1].to_owned()))
        .collect();
    assert_eq!(attendus, ["0", "1", "2", "3", "4", "130"], "{aide}");

    let mut tables = Vec::new();
    let mut a_voir = vec![README.to_owned(), "CONTRIBUTING.md".to_owned()];
    for entree in std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs"))
        .unwrap()
        .flatten()
    {
        a_voir.push(format!("docs/{}", entree.file_name().to_string_lossy()));
    }
    for doc in &a_voir {
        let texte = lire_doc(doc);
        let lignes = hors_code(&texte);
        for (n, ligne) in lignes.iter().enumerate() {
            if ligne.replace(' ', "").starts_with("|code|sens|") {
                let codes: Vec<String> = lignes[n + 2..]
                    .iter()
                    .take_while(|l| l.starts_with('|'))
                    .filter_map(|l| l.split('|').nth(1).map(|c| c.trim().to_owned()))
                    .collect();
                tables.push((doc.clone(), codes));
            }
        }
    }
    assert_eq!(
        tables.len(),
        1,
        "une seule table des codes de sortie, dans {GUIDE} : {tables:?}"
    );
    let (doc, codes) = &tables[0];
    assert_eq!(doc, GUIDE, "la table des codes de sortie est dans le guide");
    assert_eq!(
        codes, &attendus,
        "la table du guide dit chaque code de l'aide, une fois"
    );
}

/// L'ancre que GitHub donne à un titre : en minuscules, sans ponctuation (lettres accentuées,
/// chiffres, `-` et `_` gardés), chaque espace en `-` ; un titre répété reçoit `-1`, `-2`…
fn ancres(texte: &str) -> std::collections::BTreeSet<String> {
    let mut vues: std::collections::BTreeMap<String, usize> = Default::default();
    let mut ancres = std::collections::BTreeSet::new();
    for ligne in hors_code(texte) {
        let Some(titre) = ligne.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !ligne.starts_with('#') {
            continue;
        }
        let base: String = titre
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = vues.entry(base.clone()).or_insert(0);
        ancres.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    ancres
}

/// Les renvois entre documents tiennent : chaque lien relatif d'un document Markdown du dépôt
/// (racine et `docs/`) mène à un fichier qui existe, et son ancre (`#…`) à un titre de ce
/// fichier. Un titre déplacé ou renommé sans corriger ses renvois fait échouer cet essai.
#[test]
fn les_liens_internes_des_documents_menent_quelque_part() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lien = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut docs = Vec::new();
    for dossier in [racine.to_path_buf(), racine.join("docs")] {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            if chemin.extension().is_some_and(|x| x == "md") {
                docs.push(chemin);
            }
        }
    }
    assert!(docs.len() >= 8, "{docs:?}");
    let mut fautes = Vec::new();
    for doc in &docs {
        let texte = std::fs::read_to_string(doc).unwrap();
        let nom = doc.strip_prefix(racine).unwrap().display().to_string();
        for ligne in hors_code(&texte) {
            for c in lien.captures_iter(ligne) {
                let cible = &c[1];
                if cible.contains("://") || cible.starts_with("mailto:") {
                    continue;
                }
                let (fichier, ancre) = cible.split_once('#').unwrap_or((cible, ""));
                let vise = if fichier.is_empty() {
                    doc.clone()
                } else {
                    doc.parent().unwrap().join(fichier)
                };
                if !vise.exists() {
                    fautes.push(format!("{nom} : {cible} (pas de fichier)"));
                } else if !ancre.is_empty() {
                    let texte_vise = std::fs::read_to_string(&vise).unwrap_or_default();
                    if !ancres(&texte_vise).contains(ancre) {
                        fautes.push(format!("{nom} : {cible} (pas de titre pour l'ancre)"));
                    }
                }
            }
        }
    }
    assert!(
        fautes.is_empty(),
        "renvois qui ne mènent nulle part :\n{}",
        fautes.join("\n")
    );
}

/// `.ci/run` lance la commande de test que le README donne (section « La commande de test »,
/// la seule où elle est écrite) : celle qu'un contributeur lance chez lui est celle de
/// l'intégration continue.
#[test]
fn la_commande_de_test_du_readme_est_celle_de_ci_run() {
    let readme = lire_doc("README.md");
    let section = readme
        .split_once("\n## La commande de test\n")
        .expect("README.md n'a pas de section « La commande de test »")
        .1;
    let commande = section
        .split_once("```sh\n")
        .and_then(|(_, bloc)| bloc.lines().next())
        .expect("la section donne la commande dans un bloc sh")
        .trim();
    assert!(commande.starts_with("cargo test"), "{commande}");
    let ci = lire_doc(".ci/run");
    assert!(
        ci.lines()
            .any(|l| !l.trim_start().starts_with('#') && l.trim_end().ends_with(commande)),
        ".ci/run ne lance pas « {commande} »"
    );
}

/// FIABILITE.md et BENCHMARKS.md disent ce qui est éprouvé, et par quoi : chaque essai qu'ils
/// nomment (un nom entre accents graves d'au moins cinq mots, `*` pour « n'importe quelle
/// suite ») est une fonction du dépôt, et chaque fichier qu'ils citent (`….rs`, `….sh`,
/// `….py`) existe, depuis la racine du dépôt ou depuis `src/`. Un essai renommé ou retiré
/// sans corriger le document fait échouer cet essai. Les fichiers du serveur Vigie-Chiro
/// (`resources/…`, `xin/…`, `scripts/task_…`) ne sont pas du dépôt.
#[test]
fn les_essais_et_les_fichiers_que_fiabilite_et_benchmarks_nomment_existent() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut fonctions = std::collections::BTreeSet::new();
    let declaration = regex::Regex::new(r"\bfn (\w+)").unwrap();
    let mut a_voir = vec![
        racine.join("src"),
        racine.join("tests"),
        racine.join("crates"),
    ];
    while let Some(dossier) = a_voir.pop() {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            if chemin.is_dir() {
                if entree.file_name() != "target" {
                    a_voir.push(chemin);
                }
            } else if chemin.extension().is_some_and(|x| x == "rs") {
                let texte = std::fs::read_to_string(&chemin).unwrap();
                for c in declaration.captures_iter(&texte) {
                    fonctions.insert(c[1].to_string());
                }
            }
        }
    }
    let nom_d_essai = regex::Regex::new(r"`(?:[a-z0-9_]+::)*([a-z0-9_*]+)`").unwrap();
    let fichier = regex::Regex::new(r"`([A-Za-z0-9_./-]+\.(?:rs|sh|py))`").unwrap();
    let mut fautes = Vec::new();
    for doc in ["FIABILITE.md", "BENCHMARKS.md"] {
        let texte = lire_doc(doc);
        for c in nom_d_essai.captures_iter(&texte) {
            let nom = &c[1];
            if nom.matches('_').count() < 4 && !nom.contains('*') {
                continue;
            }
            let motif = format!("^{}$", regex::escape(nom).replace(r"\*", r"\w*"));
            let motif = regex::Regex::new(&motif).unwrap();
            if !fonctions.iter().any(|f| motif.is_match(f)) {
                fautes.push(format!("{doc} : l'essai {nom} n'existe pas"));
            }
        }
        for c in fichier.captures_iter(&texte) {
            let chemin = &c[1];
            let du_serveur = ["resources/", "xin/", "scripts/task_"]
                .iter()
                .any(|p| chemin.starts_with(p));
            if !du_serveur
                && !racine.join(chemin).exists()
                && !racine.join("src").join(chemin).exists()
            {
                fautes.push(format!("{doc} : le fichier {chemin} n'existe pas"));
            }
        }
    }
    assert!(fautes.is_empty(), "{}", fautes.join("\n"));
}

/// Une destination vit dans son module et sa ligne d'inscription. Hors d'eux, le
/// code de production ne nomme aucune destination concrète, ne devine aucune sorte d'après la
/// forme d'une adresse (`starts_with("s3://")`) et n'écrit aucune sorte en dur ; seules les
/// commandes qui n'existent que pour la plateforme (la saison, le calcul, ses vérifications
/// d'avant l'envoi) nomment la destination Vigie-Chiro, qu'elles demandent à son module
/// (`DestinationVigieChiro::de`). Ajouter une destination ne touche donc qu'un module et une
/// ligne ; un nom qui s'échappe ailleurs fait échouer cet essai.
#[test]
fn chaque_destination_n_est_nommee_que_chez_elle() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // (motif, où il est permis), les chemins relatifs à la racine du dépôt.
    let inscription = "src/depot/inscription.rs";
    let plateforme_seule = [
        "src/saison/",
        "src/traitement/",
        "src/commandes/saison.rs",
        "src/commandes/vigiechiro.rs",
        "src/suivi/saison.rs",
    ];
    let regles: Vec<(&str, Vec<&str>)> = vec![
        (
            "DestinationS3",
            vec!["src/depot/s3.rs", "src/depot/s3/", inscription],
        ),
        (
            "DestinationDossier",
            vec!["src/depot/dossier.rs", "src/depot/dossier/", inscription],
        ),
        (
            "DestinationVigieChiro",
            [
                &[
                    "src/depot/vigiechiro.rs",
                    "src/depot/vigiechiro/",
                    inscription,
                ][..],
                &plateforme_seule[..],
            ]
            .concat(),
        ),
        ("depuis_identite", vec![]),
        ("starts_with(\"s3://\")", vec!["src/depot/s3/"]),
        ("strip_prefix(\"s3://\")", vec!["src/depot/s3/"]),
        ("starts_with(\"dossier:\")", vec!["src/depot/dossier.rs"]),
        ("strip_prefix(\"dossier:\")", vec!["src/depot/dossier.rs"]),
    ];
    let mut fautes = Vec::new();
    let mut a_voir = vec![racine.join("src")];
    while let Some(dossier) = a_voir.pop() {
        for entree in std::fs::read_dir(&dossier).unwrap().flatten() {
            let chemin = entree.path();
            if chemin.is_dir() {
                a_voir.push(chemin);
                continue;
            }
            if chemin.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let relatif = chemin
                .strip_prefix(racine)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let texte = std::fs::read_to_string(&chemin).unwrap();
            // Le code de production : jusqu'au premier module d'essais, sans les commentaires.
            for (n, ligne) in texte
                .lines()
                .take_while(|l| !l.starts_with("#[cfg(test)]"))
                .enumerate()
                .filter(|(_, l)| !l.trim_start().starts_with("//"))
            {
                for (motif, permis) in &regles {
                    if ligne.contains(motif) && !permis.iter().any(|p| relatif.starts_with(p)) {
                        fautes.push(format!("{relatif}:{} : {motif}", n + 1));
                    }
                }
                // Une sorte écrite en dur (hors de la sorte des essais).
                if ligne.contains("Sorte::nouvelle(\"")
                    && !ligne.contains("Sorte::nouvelle(\"essai\")")
                {
                    fautes.push(format!("{relatif}:{} : une sorte écrite en dur", n + 1));
                }
            }
        }
    }
    assert!(
        fautes.is_empty(),
        "une destination nommée hors de son module (ou une sorte devinée) :\n{}",
        fautes.join("\n")
    );
}
