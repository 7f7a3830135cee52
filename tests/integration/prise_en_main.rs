//! La prise en main d'un nouvel utilisateur : `vigie demo` et `vigie bac-a-sable` tiennent ce
//! que promettent le README et le guide, et la page de manuel documente chaque commande et chaque option.
//!
//! Pourquoi : sur une machine neuve, deux commandes doivent suffire (la démonstration, les
//! tests). Si la démonstration laissait des fichiers derrière elle, finissait sur un code non
//! nul, ou si le bac à sable refusait un dépôt fait à la main, c'est la première impression
//! qui serait fausse.

#![cfg(feature = "bac-a-sable")]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use crate::commun::FinirEn;
use crate::commun::{Enfant, code, evenements, signal, texte};
use vigie_bac_a_sable::{PARTICIPATION, nuit};

/// Le binaire, dans un environnement vide : ni la base ni le jeton de qui lance les tests, et
/// un `TMPDIR` propre au test pour vérifier que rien n'y reste.
fn vigie(racine: &Path) -> Command {
    let tmp = racine.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_vigie"));
    c.env_clear()
        .env("PATH", crate::commun::path_avec_vigie())
        .env("HOME", racine)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null());
    c
}

/// Ce qui reste dans le `TMPDIR` du test.
fn restes(racine: &Path) -> Vec<String> {
    std::fs::read_dir(racine.join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Lance, lit stdout et stderr au fil de l'eau (un tube plein bloquerait l'enfant), et tue
/// l'enfant s'il dépasse `limite`.
fn executer(mut c: Command, limite: Duration) -> Output {
    let mut enfant = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lire = |mut flux: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            flux.read_to_end(&mut v).unwrap();
            v
        })
    };
    let sortie = lire(Box::new(enfant.stdout.take().unwrap()));
    let erreur = lire(Box::new(enfant.stderr.take().unwrap()));
    let debut = Instant::now();
    let statut = loop {
        if let Some(s) = enfant.try_wait().unwrap() {
            break s;
        }
        if debut.elapsed() > limite {
            let _ = enfant.kill();
            break enfant.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = Output {
        status: statut,
        stdout: sortie.join().unwrap(),
        stderr: erreur.join().unwrap(),
    };
    assert!(
        debut.elapsed() <= limite,
        "pas fini en {limite:?} : {}",
        texte(&out)
    );
    out
}

/// La démonstration dépose sa petite saison sans identifiant : trois nuits, la nuit « créée
/// sur le site web » reprise (ses quatre séquences déjà là ne repartent pas) et les deux autres
/// créées, chacune déposée en entier malgré les trois pannes, et rien ne reste derrière.
#[test]
fn la_demo_depose_la_saison_malgre_les_pannes_et_ne_laisse_rien() {
    let d = tempfile::tempdir().unwrap();
    let mut c = vigie(d.path());
    // -vvv : même au plus bavard, le serveur de la démonstration reste muet.
    c.args([
        "demo",
        "--progression",
        "jamais",
        "--json",
        "--graine",
        "7",
        "-vvv",
    ]);
    let out = executer(c, Duration::from_secs(120));
    assert_eq!(code(&out), 0, "{}", texte(&out));

    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let lignes: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("ligne non JSON ({e}) : {l}")))
        .collect();
    let premiere = &lignes[0];
    assert_eq!(premiere["evenement"], "demo", "{premiere}");
    assert_eq!(premiere["graine"], 7);
    assert_eq!(premiere["nuits"], 3);
    assert_eq!(premiere["sequences"], 30);
    assert_eq!(premiere["deja_deposees"], 4);
    assert_eq!(premiere["pannes"].as_array().unwrap().len(), 3);
    let du_site_web = premiere["participation"].as_str().unwrap();

    // Les nuits lues dans les noms : une reprise (celle du site web), deux à créer.
    let nuits = evenements(&lignes, "nuit");
    assert_eq!(nuits.len(), 3, "{stdout}");
    // (`issue` : ce qui l'a fait reconnaître, ici ses fichiers déjà déposés ; ou `a_creer`.)
    let reprises: Vec<&&serde_json::Value> =
        nuits.iter().filter(|n| n["issue"] != "a_creer").collect();
    assert_eq!(reprises.len(), 1, "{nuits:#?}");
    assert_eq!(reprises[0]["participation"], du_site_web, "{nuits:#?}");

    // Un bilan par nuit : tout déposé, chaque nuit dans une participation à elle.
    let bilans = evenements(&lignes, "bilan");
    assert_eq!(bilans.len(), 3, "{stdout}");
    // Puis, à la fin de la course, le bilan de chaque nuit (`bilan_nuit`).
    assert_eq!(lignes.last().unwrap()["evenement"], "bilan_nuit");
    assert_eq!(evenements(&lignes, "bilan_nuit").len(), 3, "{stdout}");
    let mut participations = std::collections::BTreeSet::new();
    for bilan in &bilans {
        assert_eq!(bilan["deposees"], 10, "{bilan}");
        assert_eq!(bilan["echecs"], 0, "{bilan}");
        assert_eq!(bilan["definitifs"], 0, "{bilan}");
        assert_eq!(bilan["incertaines"], 0, "{bilan}");
        assert_eq!(bilan["restantes"], 0, "{bilan}");
        assert!(bilan["duree_s"].is_number());
        participations.insert(bilan["participation"].as_str().unwrap().to_owned());
        if bilan["participation"] == du_site_web {
            // Les quatre séquences déjà sur la plateforme ne repartent pas ; chaque panne
            // annoncée est comptée, la réponse perdue (réconciliée) comprise.
            assert_eq!(bilan["deja_sur_la_plateforme"], 4, "{bilan}");
            assert_eq!(bilan["deposees_ce_passage"], 6, "{bilan}");
            assert_eq!(bilan["incidents_absorbes"], 3, "{bilan}");
        } else {
            assert_eq!(bilan["deposees_ce_passage"], 10, "{bilan}");
        }
    }
    assert_eq!(participations.len(), 3, "{bilans:#?}");
    assert!(
        !evenements(&lignes, "nouvelle_tentative").is_empty(),
        "aucune nouvelle tentative : les pannes n'ont pas joué\n{stdout}"
    );

    let stderr = String::from_utf8_lossy(&out.stderr);
    for trace_du_serveur in [
        "plateforme Vigie-Chiro démarrés",
        "bac à sable S3 arrêté",
        "bac à sable : panne injectée",
        "resp=Response",
        "op returns error",
    ] {
        assert!(
            !stderr.contains(trace_du_serveur),
            "trace du bac à sable sur la sortie d'erreur : {trace_du_serveur}\n{stderr}"
        );
    }
    assert_eq!(
        restes(d.path()),
        Vec::<String>::new(),
        "dossier temporaire laissé"
    );
}

/// La nuit d'un nom de séquence, par la règle du protocole : tout ce qui précède
/// l'enregistreur (site, année, passage, point) et la soirée (une séquence d'avant midi est
/// de la soirée de la veille).
fn nuit_du_nom(nom: &str) -> (String, chrono::NaiveDate) {
    let (debut, _) = nom.rsplit_once("-PA").expect("nom sans enregistreur");
    let instant = &nom[nom.len() - 23..nom.len() - 8];
    let instant = chrono::NaiveDateTime::parse_from_str(instant, "%Y%m%d_%H%M%S").unwrap();
    (
        debut.to_owned(),
        (instant - chrono::Duration::hours(12)).date(),
    )
}

/// Gardée, la démonstration laisse la saison, la base et ce que la plateforme a reçu : trois
/// participations, chacune avec exactement les séquences d'une nuit, octet pour octet.
#[test]
fn la_demo_gardee_chaque_nuit_dans_sa_participation() {
    use std::collections::{BTreeMap, BTreeSet};
    let d = tempfile::tempdir().unwrap();
    let mut c = vigie(d.path());
    c.args([
        "demo",
        "--progression",
        "jamais",
        "--sans-pannes",
        "--garder",
        "--graine",
        // La plus longue : une graine tirée au hasard a souvent vingt chiffres.
        "18446744073709551615",
    ]);
    let out = executer(c, Duration::from_secs(120));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let restes = restes(d.path());
    assert_eq!(restes.len(), 1, "{restes:?}");
    let dossier = d.path().join("tmp").join(&restes[0]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("Tout est resté dans {}", dossier.display())),
        "{stderr}"
    );
    assert!(dossier.join("vigie.sqlite").exists());
    // Ce que la démonstration présente, jusqu'à la commande qu'elle lance, tient dans 80
    // colonnes.
    let presentation: Vec<&str> = stderr
        .lines()
        .take_while(|l| !l.starts_with("$ vigie depot"))
        .collect();
    assert!(presentation.len() > 5, "{stderr}");
    for l in &presentation {
        assert!(l.chars().count() <= 80, "plus de 80 colonnes : {l}");
    }

    // La saison, telle que les cartes l'ont rapportée : nom → contenu, et nuits.
    let mut locaux = BTreeMap::new();
    for carte in ["PA1", "PA2"] {
        for f in std::fs::read_dir(dossier.join("saison-2026").join(carte)).unwrap() {
            let f = f.unwrap();
            let nom = f.file_name().to_string_lossy().into_owned();
            locaux.insert(nom, std::fs::read(f.path()).unwrap());
        }
    }
    assert_eq!(locaux.len(), 30);
    let nuits: BTreeSet<_> = locaux.keys().map(|n| nuit_du_nom(n)).collect();
    assert_eq!(nuits.len(), 3, "{nuits:#?}");
    assert!(
        locaux
            .keys()
            .any(|n| n.contains("_20260704_") && nuit_du_nom(n).1.to_string() == "2026-07-03"),
        "aucune nuit ne passe minuit"
    );

    // Ce que la plateforme a reçu : un dossier `pa-<participation>` par participation.
    let recus = dossier.join("bac-a-sable/vigiechiro-donnees/wav");
    let mut par_participation = BTreeMap::<String, BTreeSet<String>>::new();
    for p in std::fs::read_dir(&recus).unwrap() {
        let p = p.unwrap();
        for f in std::fs::read_dir(p.path()).unwrap() {
            let f = f.unwrap();
            let nom = f.file_name().to_string_lossy().into_owned();
            let attendu = locaux
                .get(&nom)
                .unwrap_or_else(|| panic!("{nom} reçu, mais pas dans la saison"));
            assert!(
                std::fs::read(f.path()).unwrap() == *attendu,
                "{nom} : contenu différent"
            );
            par_participation
                .entry(p.file_name().to_string_lossy().into_owned())
                .or_default()
                .insert(nom);
        }
    }
    assert_eq!(par_participation.len(), 3, "{par_participation:#?}");
    for (participation, noms) in &par_participation {
        let siennes: BTreeSet<_> = noms.iter().map(|n| nuit_du_nom(n)).collect();
        assert_eq!(
            siennes.len(),
            1,
            "{participation} mêle des nuits : {noms:#?}"
        );
        let nuit = siennes.into_iter().next().unwrap();
        let de_la_nuit: BTreeSet<String> = locaux
            .keys()
            .filter(|n| nuit_du_nom(n) == nuit)
            .cloned()
            .collect();
        assert_eq!(noms, &de_la_nuit, "{participation} : pas toute sa nuit");
    }
    // Le bilan de la saison sur la sortie standard, puis l'état.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Saison : 30 / 30 fichiers déposés, 3 nuits sur 3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Saison 2026 : 3 nuits, 30 / 30"),
        "{stdout}"
    );
}

/// Lit la première ligne de la sortie du bac à sable (en 30 s au plus), et continue de lire
/// le reste, rendu à la fin par la poignée.
fn ligne_d_annonce(bac: &mut Child) -> (serde_json::Value, JoinHandle<String>) {
    let sortie = bac.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reste = std::thread::spawn(move || {
        let mut lecteur = BufReader::new(sortie);
        let mut ligne = String::new();
        let _ = lecteur.read_line(&mut ligne);
        let _ = tx.send(ligne);
        let mut reste = String::new();
        let _ = lecteur.read_to_string(&mut reste);
        reste
    });
    let ligne = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("le bac à sable n'a rien annoncé en 30 s");
    let annonce =
        serde_json::from_str(&ligne).unwrap_or_else(|e| panic!("annonce non JSON ({e}) : {ligne}"));
    (annonce, reste)
}

#[test]
fn un_depot_s3_et_un_depot_plateforme_faits_a_la_main_contre_vigie_bac_a_sable() {
    let d = tempfile::tempdir().unwrap();
    let mut lancement = vigie(d.path());
    lancement
        .args(["bac-a-sable", "--port", "0", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut bac = Enfant::from(lancement.spawn().unwrap());
    let (annonce, reste) = ligne_d_annonce(&mut bac);
    assert_eq!(annonce["evenement"], "pret", "{annonce}");
    assert_eq!(annonce["compartiment"], "nuits");
    assert_eq!(annonce["participation"], PARTICIPATION);
    let endpoint = annonce["endpoint"].as_str().unwrap().to_owned();
    let api = annonce["api"].as_str().unwrap().to_owned();
    assert!(endpoint.starts_with("http://127.0.0.1:"), "{annonce}");
    assert_eq!(api, format!("{endpoint}/api/v1"));
    let donnees = Path::new(annonce["donnees_s3"].as_str().unwrap()).to_owned();
    assert!(donnees.starts_with(d.path().join("tmp")), "{annonce}");
    let env: Vec<(String, String)> = annonce["env"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    for attendue in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_REGION",
        "AWS_ENDPOINT_URL",
        "VIGIE_API",
        "VIGIE_JETON",
        "VIGIE_BASE",
    ] {
        assert!(
            env.iter().any(|(k, _)| k == attendue),
            "{attendue} non annoncée"
        );
    }

    // Une petite nuit de cinq séquences, dont une grosse (multipart).
    let chemin_nuit = d.path().join("nuit");
    std::fs::create_dir_all(&chemin_nuit).unwrap();
    let mut sequences: Vec<_> = nuit::composer(11)
        .into_iter()
        .filter(|s| s.taille_octets() < 700 * 1024)
        .take(4)
        .collect();
    sequences.extend(
        nuit::composer(11)
            .into_iter()
            .filter(|s| s.taille_octets() > 5 * 1024 * 1024)
            .take(1),
    );
    for s in &sequences {
        std::fs::write(chemin_nuit.join(&s.nom), s.octets()).unwrap();
    }

    // Vers S3, avec les variables annoncées (AWS_*, VIGIE_BASE) et --endpoint-url.
    let mut s3 = vigie(d.path());
    s3.envs(
        env.iter()
            .filter(|(k, _)| k.starts_with("AWS_") || k == "VIGIE_BASE")
            .cloned(),
    )
    .env("AWS_CONFIG_FILE", d.path().join("aws-config-absent"))
    .env(
        "AWS_SHARED_CREDENTIALS_FILE",
        d.path().join("aws-credentials-absent"),
    )
    .arg("depot")
    .arg(&chemin_nuit)
    .args(["--vers", "s3://nuits/essai", "--endpoint-url", &endpoint])
    .args(["--progression", "jamais"]);
    let out = executer(s3, Duration::from_secs(120));
    assert_eq!(code(&out), 0, "dépôt S3 : {}", texte(&out));
    for s in &sequences {
        let objet = donnees.join("nuits/essai").join(&s.nom);
        let recu = std::fs::read(&objet).unwrap_or_else(|e| panic!("{} absent ({e})", s.nom));
        assert!(recu == s.octets(), "{} différent", s.nom);
    }

    // Vers la plateforme, avec le jeton d'essai (VIGIE_JETON) et --api.
    let mut plateforme = vigie(d.path());
    plateforme
        .envs(
            env.iter()
                .filter(|(k, _)| k == "VIGIE_BASE" || k == "VIGIE_JETON")
                .cloned(),
        )
        .arg("depot")
        .arg(&chemin_nuit)
        .args(["--participation", PARTICIPATION, "--api", &api])
        .args(["--progression", "jamais"]);
    let out = executer(plateforme, Duration::from_secs(120));
    assert_eq!(code(&out), 0, "dépôt plateforme : {}", texte(&out));
    for s in &sequences {
        let objet = donnees
            .join("vigiechiro-donnees/wav")
            .join(format!("pa-{PARTICIPATION}"))
            .join(&s.nom);
        assert!(objet.exists(), "{} absent de la plateforme", s.nom);
    }

    // Les deux plans sont dans la base d'essai annoncée, pas dans la base par défaut.
    assert!(
        Path::new(annonce["base"].as_str().unwrap()).exists(),
        "{annonce}"
    );
    assert!(!d.path().join(".local/share/vigie").exists());

    // Ctrl-C : arrêt propre, code 0 (la fin normale d'un serveur), données effacées.
    signal(&bac, "INT");
    let debut = Instant::now();
    while bac.try_wait().unwrap().is_none() {
        assert!(
            debut.elapsed() < Duration::from_secs(10),
            "le bac à sable ne s'arrête pas sur Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = bac.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let reste = reste.join().unwrap();
    assert!(
        reste.is_empty(),
        "rien d'autre que l'annonce sur la sortie standard : {reste}"
    );
    assert_eq!(restes(d.path()), Vec::<String>::new(), "données laissées");
}

#[test]
fn une_panne_mal_ecrite_est_refusee_avant_tout_demarrage() {
    let d = tempfile::tempdir().unwrap();
    let mut c = vigie(d.path());
    c.args([
        "bac-a-sable",
        "--port",
        "0",
        "--pannes",
        "ApiFinaliser=reponse-perdue",
        "--pannes",
        "PutObjet#2=503",
    ]);
    let out = executer(c, Duration::from_secs(30));
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--pannes « PutObjet#2=503 » invalide") && stderr.contains("PutObject"),
        "le message doit citer la règle fautive et les opérations admises : {stderr}"
    );
    assert!(out.stdout.is_empty(), "{}", texte(&out));
    assert_eq!(restes(d.path()), Vec::<String>::new());
}

#[test]
fn chaque_commande_et_chaque_option_est_dans_le_manuel() {
    let man = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/vigie.1"))
        .expect("man/vigie.1 (cargo run -- generer-docs .)");
    let man = man.replace("\\-", "-");
    let mut racine = vigie::cli::commande();
    racine.build();
    let longues = |c: &clap::Command, globales: bool| -> Vec<String> {
        c.get_arguments()
            .filter(|a| !a.is_hide_set() && a.is_global_set() == globales)
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect()
    };
    for option in longues(&racine, true)
        .into_iter()
        .chain(longues(&racine, false))
    {
        assert!(man.contains(&option), "{option} absente du manuel");
    }
    for sous in racine.get_subcommands().filter(|c| !c.is_hide_set()) {
        let titre = format!(".SS \"vigie {}\"", sous.get_name());
        let debut = man
            .find(&titre)
            .unwrap_or_else(|| panic!("pas de section {titre} dans le manuel"));
        let section = &man[debut..];
        let fin = section[titre.len()..]
            .find(".SS ")
            .or_else(|| section[titre.len()..].find(".SH "))
            .map_or(section.len(), |i| i + titre.len());
        let section = &section[..fin];
        for option in longues(sous, false) {
            assert!(
                section.contains(&option),
                "{option} de vigie {} absente de sa section du manuel",
                sous.get_name()
            );
        }
        for alias in sous.get_visible_aliases() {
            assert!(section.contains(alias), "alias {alias} absent du manuel");
        }
    }
}

/// Ce qu'envoient rclone et aws-cli et que s3s-fs servait mal : un `HEAD` sur un « dossier »
/// (rclone sonde ainsi sa destination, et rejouait le 500 pendant une minute et demie) et un
/// listage avec `delimiter=` vide (`rclone ls` ne voyait rien).
#[test]
fn rclone_et_aws_cli_peuvent_sonder_un_dossier_et_tout_lister() {
    use aws_sdk_s3::primitives::ByteStream;
    let d = tempfile::tempdir().unwrap();
    let bac = vigie_bac_a_sable::BacASable::demarrer_en_fond(&d.path().join("bac"), 0).unwrap();
    bac.creer_compartiment("nuits").unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = bac.client();
        for cle in ["essai/a.wav", "essai/sous/b.wav"] {
            c.put_object()
                .bucket("nuits")
                .key(cle)
                .body(ByteStream::from_static(b"RIFF"))
                .send()
                .await
                .unwrap();
        }
        let e = c
            .head_object()
            .bucket("nuits")
            .key("essai")
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            e.raw_response().map(|r| r.status().as_u16()),
            Some(404),
            "HEAD sur un dossier : {e:?}"
        );
        let e = c
            .get_object()
            .bucket("nuits")
            .key("essai/sous")
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            e.raw_response().map(|r| r.status().as_u16()),
            Some(404),
            "GET sur un dossier : {e:?}"
        );
        let attendues = vec!["essai/a.wav".to_owned(), "essai/sous/b.wav".to_owned()];
        let v2 = c
            .list_objects_v2()
            .bucket("nuits")
            .delimiter("")
            .send()
            .await
            .unwrap();
        let cles: Vec<String> = v2
            .contents()
            .iter()
            .filter_map(|o| o.key().map(str::to_owned))
            .collect();
        assert_eq!(cles, attendues, "ListObjectsV2 delimiter= vide");
        assert!(v2.common_prefixes().is_empty());
        let v1 = c
            .list_objects()
            .bucket("nuits")
            .delimiter("")
            .send()
            .await
            .unwrap();
        let cles: Vec<String> = v1
            .contents()
            .iter()
            .filter_map(|o| o.key().map(str::to_owned))
            .collect();
        assert_eq!(cles, attendues, "ListObjects delimiter= vide");
    });
}

/// Ctrl-C pendant le dépôt de démonstration : transmis au dépôt, qui s'arrête proprement
/// (130) ; la démonstration sort avec ce code et n'a rien laissé derrière elle.
#[test]
fn ctrl_c_pendant_la_demo_sort_en_130_sans_rien_laisser() {
    let d = tempfile::tempdir().unwrap();
    let mut c = vigie(d.path());
    c.args(["demo", "--progression", "jamais", "--json", "--graine", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut demo = Enfant::from(c.spawn().unwrap());
    let sortie = demo.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let lecteur = std::thread::spawn(move || {
        let mut lignes = Vec::new();
        for ligne in BufReader::new(sortie).lines() {
            let ligne = ligne.unwrap();
            let _ = tx.send(ligne.clone());
            lignes.push(ligne);
        }
        lignes
    });
    // Dès la première séquence déposée, Ctrl-C.
    let debut = Instant::now();
    loop {
        let ligne = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("la démonstration n'a rien déposé en 60 s");
        if ligne.contains("\"unite_deposee\"") {
            break;
        }
    }
    signal(&demo, "INT");
    while demo.try_wait().unwrap().is_none() {
        assert!(
            debut.elapsed() < Duration::from_secs(60),
            "la démonstration ne s'arrête pas sur Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = demo.wait_with_output().unwrap();
    let lignes = lecteur.join().unwrap();
    assert_eq!(code(&out), 130, "{}\n{lignes:#?}", texte(&out));
    // Le dernier bilan de passage dit l'interruption ; le bilan de la saison (une ligne
    // `bilan_nuit` par nuit) le suit.
    let evenements: Vec<serde_json::Value> = lignes
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let bilan = evenements
        .iter()
        .rev()
        .find(|e| e["evenement"] == "bilan")
        .unwrap_or_else(|| panic!("aucun bilan : {lignes:#?}"));
    assert_eq!(bilan["interrompu"], true, "{bilan}");
    assert_eq!(
        evenements.last().map(|e| e["evenement"].clone()),
        Some(serde_json::json!("bilan_nuit")),
        "{lignes:#?}"
    );
    assert_eq!(
        restes(d.path()),
        Vec::<String>::new(),
        "dossier temporaire laissé"
    );
}

/// Sans `--base` ni `VIGIE_BASE`, la base est dans `$XDG_DATA_HOME/vigie/` ; une valeur
/// relative, que la spécification XDG dit d'ignorer, laisse place à `~/.local/share/vigie/` ;
/// `VIGIE_BASE` l'emporte. Le jeton est dans `$XDG_CONFIG_HOME/vigie/` (`vigie deconnexion`
/// l'y efface). Sous Linux seulement : macOS et Windows ont leurs emplacements
/// (docs/guide.md, « Où vont vos fichiers »).
#[cfg(target_os = "linux")]
#[test]
fn les_emplacements_par_defaut_suivent_xdg_sous_linux() {
    let d = tempfile::tempdir().unwrap();
    let racine = d.path();
    let donnees = racine.join("xdg-donnees");
    let base_annoncee = |c: &mut Command| {
        let out = c.arg("plans").finir_en(0);
        String::from_utf8(out.stdout).unwrap()
    };
    let dit = |sortie: String, chemin: &Path| {
        let attendu = format!("Aucun plan dans {} :", chemin.display());
        assert!(
            sortie.contains(&attendu),
            "attendu « {attendu} » : {sortie}"
        );
    };
    dit(
        base_annoncee(vigie(racine).env("XDG_DATA_HOME", &donnees)),
        &donnees.join("vigie/vigie.sqlite"),
    );
    dit(
        base_annoncee(vigie(racine).env("XDG_DATA_HOME", "relatif")),
        &racine.join(".local/share/vigie/vigie.sqlite"),
    );
    let choisie = racine.join("choisie.sqlite");
    dit(
        base_annoncee(
            vigie(racine)
                .env("XDG_DATA_HOME", &donnees)
                .env("VIGIE_BASE", &choisie),
        ),
        &choisie,
    );

    let config = racine.join("xdg-config");
    std::fs::create_dir_all(config.join("vigie")).unwrap();
    std::fs::write(config.join("vigie/jeton"), "abc").unwrap();
    let out = vigie(racine)
        .env("XDG_CONFIG_HOME", &config)
        .arg("deconnexion")
        .finir_en(0);
    assert!(texte(&out).contains("Jeton effacé"), "{}", texte(&out));
    assert!(!config.join("vigie/jeton").exists());
}
