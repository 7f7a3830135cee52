//! Sécurité : aucun secret (jeton, en-tête d'autorisation, signature d'URL, clé secrète AWS)
//! dans aucune sortie, journal, base ou message d'erreur, à tous les niveaux de verbosité ;
//! base, journal et jeton créés en 0600 (même sous `umask 000`) ; `http://` refusé hors de la
//! boucle locale sauf `--autoriser-http` ; une clé d'objet ne sort jamais du préfixe demandé.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};

use crate::commun::plateforme::*;
use crate::commun::*;
use base64::Engine;
use vigie_bac_a_sable::{Operation, Panne, RetryAfter};

/// Les niveaux de verbosité, du plus muet au plus bavard (bibliothèques comprises).
const NIVEAUX: [(&str, &[&str], Option<&str>); 6] = [
    ("-q", &["-q"], None),
    ("défaut", &[], None),
    ("-v", &["-v"], None),
    ("-vv", &["-vv"], None),
    ("-vvv", &["-vvv"], None),
    ("-vvv RUST_LOG=trace", &["-vvv"], Some("trace")),
];

fn avec_niveau(mut c: Command, niveau: &(&str, &[&str], Option<&str>)) -> Command {
    c.args(niveau.1);
    if let Some(filtre) = niveau.2 {
        c.env("RUST_LOG", filtre);
    }
    c
}

fn sorties(out: &Output) -> String {
    format!("{}\n{}", stdout(out), stderr(out))
}

/// Cherche un secret dans `texte` : valeurs connues, et toute signature ou identifiant d'URL
/// signée, ou tout en-tête d'autorisation, qui ne serait pas masqué (`***`).
fn chercher_secrets(ou: &str, texte: &str, connus: &[&str]) {
    for s in connus {
        assert!(!texte.contains(s), "secret « {s} » dans {ou}");
    }
    let motif = regex::Regex::new(
        r"(?i)(x-amz-signature=|x-amz-credential=|(?:^|[^-a-z])signature=|awsaccesskeyid=|token=)([^*&\s]{3,})",
    )
    .unwrap();
    if let Some(m) = motif.find(texte) {
        panic!("paramètre secret non masqué dans {ou} : {}", m.as_str());
    }
    let entete = regex::Regex::new(r"(?i)authorization:\s*(basic|aws4|bearer)\s*[a-z0-9]").unwrap();
    assert!(!entete.is_match(texte), "en-tête d'autorisation dans {ou}");
}

/// Cherche les secrets dans les sorties, dans le journal (qui doit contenir `trace` : il n'est
/// pas vide) et dans le dossier de la base, au niveau de verbosité `niveau`.
fn chercher_partout(
    banc: &Banc,
    niveau: &str,
    sorties: &str,
    (journal, trace): (&std::path::Path, &str),
    connus: &[&str],
) {
    chercher_secrets(&format!("les sorties ({niveau})"), sorties, connus);
    let j = std::fs::read_to_string(journal).unwrap_or_default();
    assert!(j.contains(trace), "journal vide ({niveau})");
    chercher_secrets(&format!("le journal ({niveau})"), &j, connus);
    let base = banc.contenu_du_dossier_de_la_base();
    chercher_secrets(&format!("la base ({niveau})"), &base, connus);
}

#[test]
fn aucun_secret_s3_a_aucun_niveau_de_verbosite_ni_dans_le_journal_ni_dans_la_base() {
    for niveau in &NIVEAUX {
        let banc = Banc::nouveau();
        let gros = nom(1);
        banc.fichier(&gros, 6 * MIO);
        for i in 2..5 {
            banc.fichier(&nom(i), 20_000);
        }
        banc.panne_prochaine(
            Operation::PutObject,
            code_http_apres(503, RetryAfter::Millisecondes(50)),
        );
        banc.panne_prochaine(Operation::UploadPart, Panne::CouperCorpsApres(100_000));
        // Un refus définitif, avec son message.
        banc.panne_nieme(Operation::PutObject, &nom(4), 1, code_http(403));
        let journal = banc.dossier.path().join("vigie.jsonl");
        let mut tout = String::new();
        let mut lancer = |c: Command| {
            let mut c = avec_niveau(c, niveau);
            c.arg("--journal").arg(&journal);
            let out = c.sortie();
            assert!(!sorties(&out).contains("panicked"), "{}", texte(&out));
            tout.push_str(&sorties(&out));
            out
        };
        let out = lancer(banc.depot());
        assert_eq!(code(&out), 3, "{} : {}", niveau.0, texte(&out));
        let mut etat = banc.vigie();
        etat.arg("etat");
        lancer(etat);
        let mut verifier = banc.vigie();
        verifier.arg("verifier");
        lancer(verifier);
        let mut retenter = banc.retenter();
        retenter.arg("--y-compris-definitifs");
        assert_eq!(code(&lancer(retenter)), 0, "{}", niveau.0);
        // Un mauvais secret : l'erreur ne doit pas le répéter.
        let mut faux = banc.depot();
        faux.env("AWS_SECRET_ACCESS_KEY", "FAUX-SECRET-AWS-0123456789abcdef");
        banc.fichier(&nom(9), 1000);
        let out = lancer(faux);
        assert_ne!(code(&out), 0, "{}", niveau.0);

        let connus = [
            vigie_bac_a_sable::SECRET,
            "FAUX-SECRET-AWS-0123456789abcdef",
        ];
        chercher_partout(&banc, niveau.0, &tout, (&journal, "PutObject"), &connus);
    }
}

/// Une erreur S3 derrière une URL signée, dans la forme où certains services la rendent :
/// le code, puis l'identifiant d'accès et la signature reçus, avant tout message.
const ERREUR_S3_BAVARDE: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\
<Code>SignatureDoesNotMatch</Code><AWSAccessKeyId>AKIAFUITEDECLE0000</AWSAccessKeyId>\
<SignatureProvided>SIGNATUREFUITE0123456789abcdef</SignatureProvided>\
<StringToSign>PUT\n\naudio/wav\n1782000000\n/vigiechiro-donnees/wav/x.wav</StringToSign>\
<Message>The request signature we calculated does not match the signature you provided.</Message>\
</Error>";

#[test]
fn aucun_secret_vigiechiro_a_aucun_niveau_de_verbosite_jeton_enregistre_par_connexion() {
    use std::sync::atomic::{AtomicBool, Ordering};
    for niveau in &NIVEAUX {
        let banc = Banc::avec_fichier(&nom(1), 6 * MIO);
        banc.fichier(&nom(2), 30_000);
        banc.fichier(&nom(3), 30_000);
        // Le jeton vient du fichier de `vigie connexion` (pas de VIGIE_JETON : le dernier
        // filet du journal, qui masque les valeurs des variables secrètes, ne joue pas).
        let mut connexion = banc.vigie();
        connexion
            .mots("connexion --jeton - --api")
            .arg(banc.bac().api())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut enfant = connexion.spawn().unwrap();
        {
            use std::io::Write;
            let mut entree = enfant.stdin.take().unwrap();
            writeln!(entree, "{JETON}").unwrap();
        }
        let out = enfant.wait_with_output().unwrap();
        assert_eq!(code(&out), 0, "{}", texte(&out));
        let mut tout = sorties(&out);

        // Les PUT signés passent par un hôte qui répond une fois par une erreur bavarde (elle
        // cite l'identifiant d'accès et la signature), puis relaie vers le S3 du bac.
        let bavarde = std::sync::Arc::new(AtomicBool::new(false));
        let b2 = std::sync::Arc::clone(&bavarde);
        let s3 = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
            if q.methode == "PUT" && !b2.swap(true, Ordering::SeqCst) {
                r.statut = 403;
                r.remplacer_entete("content-type", "application/xml");
                r.corps = ERREUR_S3_BAVARDE.as_bytes().to_vec();
            }
        });
        let origine = banc.bac().endpoint();
        let vers = s3.endpoint();
        let api = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |_, r| {
            let t = String::from_utf8_lossy(&r.corps).into_owned();
            if t.contains("s3_signed_url") {
                r.corps = t.replace(&origine, &vers).into_bytes();
            }
        });
        banc.panne_prochaine(
            Operation::ApiDeclarerFichier,
            code_http_apres(503, RetryAfter::Secondes(0)),
        );
        banc.panne_prochaine(Operation::ApiFinaliser, Panne::PerdreReponse);
        let journal = banc.dossier.path().join("vigie.jsonl");
        let mut depot = banc.vigie();
        depot
            .arg("depot")
            .arg(&banc.nuit)
            .args(["--participation", PARTICIPATION, "--api"])
            .arg(format!("{}/api/v1", api.endpoint()))
            .args(Banc::options_rapides())
            .arg("--journal")
            .arg(&journal);
        let out = avec_niveau(depot, niveau).sortie();
        assert_eq!(code(&out), 0, "{} : {}", niveau.0, texte(&out));
        assert!(bavarde.load(Ordering::SeqCst));
        tout.push_str(&sorties(&out));
        for args in [
            &["etat"][..],
            &["plans"],
            &["traiter", "--participation", PARTICIPATION],
        ] {
            let mut c = banc.vigie();
            c.args(args);
            if args[0] == "traiter" {
                c.arg("--api").arg(banc.bac().api());
            }
            tout.push_str(&sorties(&avec_niveau(c, niveau).sortie()));
        }
        // Jeton expiré : le message dit quoi faire, sans le jeton.
        banc.bac().expirer_jeton(JETON);
        banc.fichier(&nom(4), 1000);
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .args(["--participation", PARTICIPATION, "--api"])
            .arg(banc.bac().api())
            .args(Banc::options_rapides());
        let out = avec_niveau(c, niveau).sortie();
        assert_eq!(code(&out), 3, "{} : {}", niveau.0, texte(&out));
        tout.push_str(&sorties(&out));

        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{JETON}:"));
        let connus = [
            JETON,
            basic.as_str(),
            vigie_bac_a_sable::SECRET,
            "AKIAFUITEDECLE0000",
            "SIGNATUREFUITE0123456789abcdef",
        ];
        chercher_partout(&banc, niveau.0, &tout, (&journal, "/fichiers"), &connus);
    }
}

#[cfg(unix)]
fn mode(chemin: &std::path::Path) -> u32 {
    std::fs::metadata(chemin)
        .unwrap_or_else(|e| panic!("{} : {e}", chemin.display()))
        .permissions()
        .mode()
        & 0o777
}

/// `sh -c 'umask 000; exec vigie …'` : sans les droits posés explicitement, tout serait créé
/// en 0666 ou 0777.
#[cfg(unix)]
fn sous_umask_000(banc: &Banc, args: &[&str]) -> Command {
    let modele = banc.vigie();
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_vigie"))
        .args(args)
        .env_clear()
        .env("VIGIE_JETON", JETON)
        .stdin(std::process::Stdio::null());
    for (k, v) in modele.get_envs() {
        if let Some(v) = v {
            sh.env(k, v);
        }
    }
    sh
}

#[cfg(unix)]
#[test]
fn base_journal_jeton_et_verrous_crees_prives_meme_sous_umask_000() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    let journal = banc.dossier.path().join("journaux/vigie.jsonl");
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    let api = banc.bac().api();
    let nuit = banc.nuit.to_str().unwrap().to_owned();
    let j = journal.to_str().unwrap().to_owned();
    sous_umask_000(
        &banc,
        &[
            "depot",
            &nuit,
            "--participation",
            PARTICIPATION,
            "--api",
            &api,
            "--journal",
            &j,
        ],
    )
    .finir_en(0);
    assert_eq!(mode(&banc.base), 0o600, "base");
    assert_eq!(
        mode(banc.base.parent().unwrap()),
        0o700,
        "dossier de la base"
    );
    assert_eq!(mode(&journal), 0o600, "journal");
    let verrous = banc.base.with_file_name("vigie.sqlite.verrous");
    assert_eq!(mode(&verrous), 0o700, "dossier des verrous");
    for v in std::fs::read_dir(&verrous).unwrap().flatten() {
        assert_eq!(mode(&v.path()), 0o600, "{}", v.path().display());
    }
    // Le WAL et sa mémoire partagée, pendant qu'une connexion les tient ouverts.
    let c = rusqlite::Connection::open(&banc.base).unwrap();
    c.query_row("SELECT count(*) FROM depot_unite", [], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap();
    for ext in ["sqlite-wal", "sqlite-shm"] {
        let f = banc.base.with_extension(ext);
        if f.exists() {
            assert_eq!(mode(&f), 0o600, "{ext}");
        }
    }
    drop(c);

    // Le jeton : fichier 0600, dossier 0700, même s'il existait déjà en 0644.
    let dossier_jeton = banc.dossier.path().join(".config/vigie");
    std::fs::create_dir_all(&dossier_jeton).unwrap();
    std::fs::write(dossier_jeton.join("jeton"), "ANCIEN").unwrap();
    std::fs::set_permissions(
        dossier_jeton.join("jeton"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::remove_dir_all(&dossier_jeton).unwrap();
    sous_umask_000(&banc, &["connexion", "--jeton", JETON, "--api", &api]).finir_en(0);
    assert_eq!(mode(&dossier_jeton.join("jeton")), 0o600, "jeton");
    assert_eq!(mode(&dossier_jeton), 0o700, "dossier du jeton");
    std::fs::set_permissions(
        dossier_jeton.join("jeton"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let out = sous_umask_000(&banc, &["connexion", "--jeton", JETON, "--api", &api]).finir_en(0);
    assert_eq!(mode(&dossier_jeton.join("jeton")), 0o600, "jeton réécrit");
    assert!(!stdout(&out).contains(JETON));
}

#[test]
fn http_refuse_hors_de_la_boucle_locale_sauf_autoriser_http() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    let s3 = |endpoint: &str, extra: &[&str]| {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .args([
                "--vers",
                "s3://nuits/p",
                "--simulation",
                "--endpoint-url",
                endpoint,
            ])
            .args(extra);
        c.sortie()
    };
    let vc = |api: &str, extra: &[&str]| {
        let mut c = banc.vigie_plateforme();
        c.arg("depot")
            .arg(&banc.nuit)
            .args([
                "--participation",
                PARTICIPATION,
                "--simulation",
                "--api",
                api,
            ])
            .args(extra);
        c.sortie()
    };
    // Des hôtes qui ressemblent à la boucle locale sans l'être, ou qui cachent un autre hôte.
    for hote in [
        "http://s3.exemple.fr",
        "http://127.0.0.1.exemple.fr:9000",
        "http://localhost.exemple.fr",
        "http://[::ffff:7f00:1]:9000",
        "http://0x7f.0.0.1",
        "http://user@127.0.0.1:9000",
        "http://127.0.0.1:80@exemple.fr",
    ] {
        let out = s3(hote, &[]);
        assert_eq!(code(&out), 2, "{hote} : {}", texte(&out));
        let out = vc(&format!("{hote}/api/v1"), &[]);
        assert_eq!(code(&out), 2, "{hote} : {}", texte(&out));
    }
    let out = s3("http://s3.exemple.fr", &[]);
    assert!(stderr(&out).contains("--autoriser-http"), "{}", texte(&out));
    // Les commandes ponctuelles aussi.
    for args in [
        vec![
            "connexion",
            "--jeton",
            JETON,
            "--api",
            "http://vigie.exemple.fr/api/v1",
        ],
        vec![
            "traiter",
            "--participation",
            PARTICIPATION,
            "--api",
            "http://vigie.exemple.fr/api/v1",
        ],
    ] {
        let out = banc.vigie_plateforme().args(&args).sortie();
        assert_eq!(code(&out), 2, "{args:?} : {}", texte(&out));
    }
    // Boucle locale, ou choix explicite : accepté.
    for (hote, extra) in [
        ("http://127.0.0.1:9", &[][..]),
        ("http://localhost:9", &[]),
        ("http://[::1]:9", &[]),
        ("http://s3.exemple.fr", &["--autoriser-http"]),
    ] {
        let out = s3(hote, extra);
        assert_eq!(code(&out), 0, "{hote} : {}", texte(&out));
        let out = vc(&format!("{hote}/api/v1"), extra);
        assert_eq!(code(&out), 0, "{hote} : {}", texte(&out));
    }
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

#[test]
fn une_cle_ne_sort_jamais_du_prefixe_demande() {
    let banc = Banc::nouveau();
    // Des noms de fichiers légaux mais piégeux : ils partent, sous le préfixe.
    let pieges = [
        "x..wav",
        "-tiret.wav",
        "a\\..\\b.wav",
        "%2e%2e%2fsortie.wav",
        " espace.wav",
        "sous/a..b.wav",
    ];
    for n in pieges {
        banc.fichier(n, 100);
    }
    for prefixe in [
        "s3://nuits/../x",
        "s3://nuits/a/../../x",
        "s3://nuits/./x",
        "s3://nuits//x",
        "s3://nuits/a\tb",
        "s3://nuits/a\u{7f}b",
        "s3://nuits/a\nb",
    ] {
        let mut c = banc.vigie();
        c.arg("depot")
            .arg(&banc.nuit)
            .args(["--vers", prefixe, "--simulation"]);
        let out = c.sortie();
        assert_eq!(code(&out), 2, "{prefixe:?} : {}", texte(&out));
    }
    for (option, valeur) in [
        ("--participation", "../../fichiers"),
        ("--participation", "a/b"),
        ("--participation", "/absolu"),
    ] {
        let mut c = banc.vigie_plateforme();
        c.arg("depot")
            .arg(&banc.nuit)
            .args([option, valeur, "--simulation", "--api"])
            .arg(banc.bac().api());
        let out = c.sortie();
        assert_eq!(code(&out), 2, "{option} {valeur} : {}", texte(&out));
    }
    let mut site = banc.vigie_plateforme();
    site.arg("depot").arg(&banc.nuit).args([
        "--site",
        "../sites",
        "--point",
        "A1/../..",
        "--debut",
        DEBUT_NUIT,
        "--fin",
        FIN_NUIT,
        "--simulation",
    ]);
    assert_eq!(code(&site.sortie()), 2);
    assert_eq!(banc.compteurs().requetes_total(), 0);

    // Le dépôt réel : tout arrive sous le préfixe, rien ailleurs dans le stockage.
    banc.depot().finir_en(0);
    let sous_prefixe = banc.objets_sous(COMPARTIMENT, PREFIXE);
    assert_eq!(sous_prefixe.len(), pieges.len(), "{sous_prefixe:?}");
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, ""),
        sous_prefixe,
        "un objet est sorti du préfixe"
    );
    for n in pieges {
        assert!(
            sous_prefixe.contains(&banc.cle(n)),
            "{n} n'est pas à sa clé : {sous_prefixe:?}"
        );
    }
}
