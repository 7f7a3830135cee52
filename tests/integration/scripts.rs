//! Pour les scripts et le portable laissé seul : `--jusqu-au-bout`, `vigie etat --unites`,
//! l'adresse de l'API retenue par `vigie connexion --api`, et une sortie JSON qui suit son
//! schéma (`schemas/vigie.schema.json`). Chaque sortie `--json` de ces essais est validée
//! ligne à ligne contre le schéma (`commun::lignes_json`), pannes comprises.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use crate::commun::plateforme::{DEBUT_NUIT, FIN_NUIT, PARTICIPATION, nom};
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle};

/// Pauses courtes entre deux passages : les essais ne dorment pas.
const PAUSES_COURTES: [&str; 4] = ["--attente-passage", "0.02", "--attente-passage-max", "0.05"];

fn panne_503() -> Panne {
    code_http(503)
}

/// Deux fichiers, dont le premier ne passe jamais (503 à chaque envoi).
fn deux_fichiers_dont_un_en_panne_permanente() -> (Banc, [(String, usize); 2]) {
    let banc = Banc::nouveau();
    let fichiers = [(nom(1), 1500), (nom(2), 2500)];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), panne_503()).sur_cle(&banc.cle(&nom(1))),
    );
    (banc, fichiers)
}

/// Une panne qui dure plus qu'un passage (20 échecs de suite sur une clé, 3 tentatives par
/// passage) : `--jusqu-au-bout` repasse jusqu'à tout déposer, code 0, une ligne par passage et
/// le bilan en dernier.
#[test]
fn une_panne_plus_longue_qu_un_passage_finit_deposee_apres_plusieurs_passages() {
    let banc = Banc::nouveau();
    let tenace = nom(1);
    banc.fichier(&tenace, 2000);
    banc.fichier(&nom(2), 3000);
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), panne_503())
            .sur_cle(&banc.cle(&tenace))
            .fois(20),
    );
    let out = banc
        .depot()
        .mots("--tentatives 3 --jusqu-au-bout --json")
        .args(PAUSES_COURTES)
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let passages = evenements(&lignes, "passage");
    // 20 échecs, 3 tentatives par passage : le 7e passage dépose.
    assert_eq!(passages.len(), 7, "{}", stdout(&out));
    for (i, p) in passages.iter().enumerate() {
        assert_eq!(p["passage"], i + 1);
        assert_eq!(p["prochain_passage_s"].is_null(), i == 6, "{p}");
    }
    assert_eq!(passages[0]["echecs"], 1);
    assert_eq!(passages[6]["echecs"], 0);
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan");
    assert_eq!(bilan["passages"], 7);
    assert_eq!(bilan["arret"], "tout_depose");
    assert_eq!(bilan["deposees"], 2);
    assert_eq!(bilan["deposees_ce_passage"], 2, "tous passages confondus");
    assert_eq!(banc.requetes_sur(Operation::PutObject, &tenace), 21);
    banc.verifier_identiques(&[(tenace, 2000), (nom(2), 3000)]);
}

/// Un refus définitif à côté d'une panne passagère : on repasse pour la panne, puis on s'arrête
/// en 3 dès qu'il ne reste que le refus ; le texte a une ligne par passage.
#[test]
fn il_ne_reste_qu_un_refus_definitif_code_3() {
    let banc = Banc::nouveau();
    let refuse = nom(1);
    let passager = nom(2);
    banc.fichier(&refuse, 1000);
    banc.fichier(&passager, 1000);
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), code_http(403)).sur_cle(&banc.cle(&refuse)),
    );
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), panne_503())
            .sur_cle(&banc.cle(&passager))
            .fois(4),
    );
    let out = banc
        .depot()
        .mots("--tentatives 2 --jusqu-au-bout")
        .args(PAUSES_COURTES)
        .finir_en(3);
    let sortie = stdout(&out);
    let lignes_passage: Vec<&str> = sortie
        .lines()
        .filter(|l| l.starts_with("Passage "))
        .collect();
    assert_eq!(lignes_passage.len(), 3, "{sortie}");
    assert!(
        lignes_passage[0]
            .contains("1 en échec transitoire, 1 refus définitif ; prochain passage dans"),
        "{sortie}"
    );
    assert!(
        lignes_passage[2].starts_with(
            "Passage 3 : 1 / 2 fichier déposé (1 pendant ce passage), 1 refus définitif."
        ),
        "{sortie}"
    );
    assert!(sortie.contains("(1 en 3 passages)"), "{sortie}");
    assert!(
        sortie.ends_with(
            "Ensuite : corrigez la cause des refus définitifs, puis vigie retenter-echecs 1 --y-compris-definitifs\n"
        ),
        "{sortie}"
    );
    // Le refus définitif n'est pas retenté d'un passage à l'autre : un seul PUT.
    assert_eq!(banc.requetes_sur(Operation::PutObject, &refuse), 1);

    // Ce qu'un script lit pour corriger : le refus, avec sa cause.
    let out = banc
        .vigie()
        .mots("etat --unites definitif --json")
        .finir_en(3);
    let unites = lignes_json(&out.stdout);
    assert_eq!(unites.len(), 1, "{}", stdout(&out));
    assert_eq!(unites[0]["chemin"], refuse.as_str());
    assert_eq!(unites[0]["cause"], "DROITS");
    assert_eq!(unites[0]["definitif"], true);
}

/// `--jusqu-au-bout=5s` contre une panne permanente : la durée arrête les passages, code 1,
/// plan cohérent (rien en cours), et la relance termine une fois la panne passée.
#[test]
fn une_duree_ecoulee_sur_une_panne_permanente_code_1() {
    let (banc, fichiers) = deux_fichiers_dont_un_en_panne_permanente();
    let out = banc
        .depot()
        .mots("--tentatives 2 --jusqu-au-bout=5s --json")
        .mots("--attente-passage 0.2 --attente-passage-max 0.5")
        .finir_en(1);
    let lignes = lignes_json(&out.stdout);
    assert!(
        evenements(&lignes, "passage").len() >= 2,
        "{}",
        stdout(&out)
    );
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["arret"], "duree_ecoulee");
    assert_eq!(bilan["deposees"], 1);
    let etat = banc.etat();
    assert_unites(&etat, &[("en_cours", 0), ("deposee", 1)]);

    banc.bac().pannes().effacer();
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
}

/// Ctrl-C pendant la pause entre deux passages : code 130 sans attendre la fin de la pause,
/// bilan « interrompu », plan cohérent ; `vigie retenter-echecs` termine ensuite.
#[test]
fn ctrl_c_pendant_la_pause_entre_deux_passages_code_130() {
    let (banc, fichiers) = deux_fichiers_dont_un_en_panne_permanente();
    let mut c = banc.depot();
    c.mots("--tentatives 2 --jusqu-au-bout --json")
        // Une pause d'une heure : seul Ctrl-C peut la finir dans le temps de l'essai.
        .mots("--attente-passage 3600 --attente-passage-max 3600")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut enfant = Enfant::from(c.spawn().unwrap());
    let mut lecteur = BufReader::new(enfant.stdout.take().unwrap());
    let mut lues = Vec::new();
    loop {
        let mut ligne = String::new();
        assert!(
            lecteur.read_line(&mut ligne).unwrap() > 0,
            "sortie close avant la fin du premier passage : {lues:?}"
        );
        let v: serde_json::Value = serde_json::from_str(&ligne).unwrap();
        valider_ligne(&v);
        let pause = v["evenement"] == "passage";
        lues.push(v);
        if pause {
            break;
        }
    }
    let passage = lues.last().unwrap();
    assert!(
        passage["prochain_passage_s"].as_f64().unwrap() >= 1800.0,
        "{passage}"
    );
    signal(&enfant, "INT");
    let mut reste = String::new();
    std::io::Read::read_to_string(&mut lecteur, &mut reste).unwrap();
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 130, "{}\n{reste}", texte(&out));
    let suite = lignes_json(reste.as_bytes());
    let bilan = suite.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan", "{reste}");
    assert_eq!(bilan["arret"], "interrompu");
    assert_eq!(bilan["interrompu"], true);
    assert_eq!(bilan["passages"], 1);
    let etat = banc.etat();
    assert_unites(&etat, &[("en_cours", 0), ("echec", 1), ("deposee", 1)]);

    banc.bac().pannes().effacer();
    banc.retenter().arg("--jusqu-au-bout").finir_en(0);
    banc.verifier_identiques(&fichiers);
}

/// DURÉE écoulée pendant la création de la participation, avant tout envoi de fichier (la
/// plateforme répond 503, rejoué sous la politique) : les passages s'arrêtent sur DURÉE,
/// code 1 et bilan, pas 130 comme après Ctrl-C.
#[test]
fn une_duree_ecoulee_avant_tout_envoi_code_1() {
    let banc = Banc::avec_fichier(&nom(1), 2000);
    banc.panne_toujours(Operation::ApiCreerParticipation, panne_503());
    let mut depot = banc.depot_par_site(vigie_bac_a_sable::SITE, "B2", DEBUT_NUIT, FIN_NUIT);
    // Assez de tentatives pour que la création dure plus que DURÉE.
    depot
        .mots("--jusqu-au-bout=2s --tentatives 50 --json")
        .args(PAUSES_COURTES);
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(60));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan", "{}", stdout(&out));
    assert_eq!(bilan["arret"], "duree_ecoulee", "{bilan}");
    assert_eq!(bilan["interrompu"], false, "{bilan}");
}

/// Le réseau abandonné pendant un passage (coupure plus longue que `--attente-reseau`)
/// n'arrête que ce passage : le suivant part après la pause, et dépose tout (code 0). Il
/// n'est ni une interruption (130) ni la fin des passages.
#[test]
fn un_reseau_abandonne_n_arrete_que_son_passage() {
    let banc = Banc::avec_fichier(&nom(1), 2000);
    // Deux coupures déclarent le réseau coupé ; la sonde ne passe jamais.
    banc.panne(Regle::toujours(Some(Operation::PutObject), Panne::Coupure).fois(2));
    banc.panne_toujours(Operation::HeadBucket, Panne::Coupure);
    let out = banc
        .depot()
        .mots("--echecs-reseau 2 --attente-reseau 1 --jusqu-au-bout --json")
        .args(PAUSES_COURTES)
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let passages = evenements(&lignes, "passage");
    assert_eq!(passages.len(), 2, "{}", stdout(&out));
    assert_eq!(passages[0]["echecs"], 1, "{}", passages[0]);
    assert!(!evenements(&lignes, "reseau_indisponible").is_empty());
    // La coupure a divisé le parallélisme par deux (plafond 4) : les scripts le voient aussi.
    let parallelisme = evenements(&lignes, "parallelisme");
    assert!(
        parallelisme
            .iter()
            .any(|e| e["courant"] == 2 && e["plafond"] == 4),
        "{}",
        stdout(&out)
    );
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["arret"], "tout_depose", "{bilan}");
    assert_eq!(bilan["interrompu"], false, "{bilan}");
}

/// Après un passage raté, `vigie etat --unites echec --json` : exactement les fichiers en
/// échec, avec leur cause, triés ; les autres filtres, et le texte neutralisé.
#[test]
fn etat_unites_echec_liste_exactement_les_fichiers_en_echec() {
    let banc = Banc::nouveau();
    let en_panne = [nom(3), nom(1)];
    for i in 1..=4 {
        banc.fichier(&nom(i), 1000 + i);
    }
    for n in &en_panne {
        banc.panne(Regle::toujours(Some(Operation::PutObject), panne_503()).sur_cle(&banc.cle(n)));
    }
    banc.depot().mots("--tentatives 2").finir_en(1);

    let out = banc.vigie().mots("etat --unites echec --json").finir_en(1);
    let unites = lignes_json(&out.stdout);
    let chemins: Vec<&str> = unites
        .iter()
        .map(|u| u["chemin"].as_str().unwrap())
        .collect();
    assert_eq!(chemins, [nom(1), nom(3)], "triés par chemin");
    for u in &unites {
        assert_eq!(u["evenement"], "unite");
        assert_eq!(u["etat"], "echec");
        assert_eq!(u["cause"], "SERVEUR");
        assert_eq!(u["definitif"], false);
        assert_eq!(u["tentatives"], 2, "{u}");
        assert!(u["message"].as_str().unwrap().contains("503"), "{u}");
    }
    assert_eq!(unites[0]["octets"], 1001);

    let compter = |filtre: &str| {
        let out = banc
            .vigie()
            .args(["etat", "--unites", filtre, "--json"])
            .sortie();
        lignes_json(&out.stdout).len()
    };
    assert_eq!(compter("deposee"), 2);
    assert_eq!(compter("tout"), 4);
    assert_eq!(compter("definitif"), 0);
    assert_eq!(compter("incertaine"), 0);

    let out = banc.vigie().mots("etat --unites echec").sortie();
    let texte_etat = stdout(&out);
    let lignes: Vec<&str> = texte_etat.lines().collect();
    assert_eq!(lignes.len(), 3, "{texte_etat}");
    assert!(lignes[1].starts_with("echec      SERVEUR"), "{texte_etat}");
    assert!(lignes[1].contains(&nom(1)), "{texte_etat}");
    let out = banc.vigie().mots("etat --unites incertaine").sortie();
    assert_eq!(
        stdout(&out),
        "Plan 1 : aucun fichier dans l'état incertaine.\n"
    );
}

/// Vers la plateforme : `--jusqu-au-bout` repasse après une panne de S3 et une réponse
/// perdue à la finalisation ; chaque ligne suit le schéma, le bilan nomme la participation.
#[test]
fn jusqu_au_bout_vers_la_plateforme() {
    let banc = Banc::nouveau();
    for i in 1..=3 {
        banc.fichier(&nom(i), 4000 + i);
    }
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), panne_503())
            .sur_cle(&vigie_bac_a_sable::cle_fichier(PARTICIPATION, &nom(2)).unwrap())
            .fois(3),
    );
    banc.panne(Regle::nieme(
        Operation::ApiFinaliser,
        vigie_bac_a_sable::cle_fichier(PARTICIPATION, &nom(3)).as_deref(),
        1,
        Panne::PerdreReponse,
    ));
    let out = banc
        .depot_plateforme()
        .mots("--tentatives 2 --jusqu-au-bout --json")
        .args(PAUSES_COURTES)
        .finir_en(0);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(evenements(&lignes, "passage").len(), 2, "{}", stdout(&out));
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["participation"], PARTICIPATION);
    assert_eq!(bilan["arret"], "tout_depose");
    assert_eq!(banc.bac().fichiers().len(), 3);
}

/// `vigie connexion --api` retient l'adresse à côté du jeton (mêmes droits) ; `vigie depot`
/// sans `--api` s'en sert, le rappel de `vigie traiter` n'a plus besoin de `--api`, et
/// `vigie connexion` seul dit l'adresse et le compte.
#[cfg(unix)]
#[test]
fn l_adresse_retenue_par_connexion_sert_aux_commandes_suivantes() {
    use crate::commun::plateforme::JETON;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let banc = Banc::avec_fichier(&nom(1), 1000);
    let api = banc.bac().api();

    let mut enfant = banc
        .vigie()
        .args(["connexion", "--jeton", "-", "--api", &api, "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(enfant.stdin.take().unwrap(), "{JETON}").unwrap();
    let out = enfant.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let connexion = &lignes_json(&out.stdout)[0];
    assert_eq!(connexion["api"], api.as_str());
    assert_eq!(connexion["origine_api"], "option");
    assert_eq!(connexion["enregistre"], true);
    let config = banc.dossier.path().join(".config/vigie");
    let retenue = std::fs::read_to_string(config.join("connexion.json")).unwrap();
    assert!(retenue.contains(&api), "{retenue}");
    assert!(
        !retenue.contains(JETON),
        "le jeton n'est pas dans connexion.json"
    );
    for f in ["jeton", "connexion.json"] {
        let mode = std::fs::metadata(config.join(f))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{f}");
    }

    // Sans --api ni VIGIE_API ni VIGIE_JETON : l'adresse et le jeton retenus.
    let out = banc
        .vigie()
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION])
        .args(Banc::options_rapides())
        .finir_en(0);
    assert_eq!(banc.bac().fichiers().len(), 1);
    assert!(
        stdout(&out).ends_with("Ensuite : vigie traiter\n"),
        "{}",
        texte(&out)
    );
    let etat = banc.etat();
    assert!(
        etat["destination"].as_str().unwrap().contains(&api),
        "{etat}"
    );

    let out = banc.vigie().arg("connexion").finir_en(0);
    let sortie = stdout(&out);
    assert!(
        sortie.starts_with(&format!(
            "Adresse de l'API : {api} (retenue par vigie connexion --api)\n"
        )),
        "{sortie}"
    );
    contient(&sortie, &["jeton accepté par la plateforme"]);

    // `vigie traiter` sans --api vise la même adresse.
    let out = banc
        .vigie()
        .args(["traiter", "--participation", PARTICIPATION, "--json"])
        .finir_en(0);
    let calcul = &lignes_json(&out.stdout)[0];
    assert_eq!(calcul["api"], api.as_str());
    assert_eq!(calcul["lance"], true);

    // --api l'emporte sur l'adresse retenue : une adresse qui n'est pas l'API est refusée.
    let out = banc
        .vigie()
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--json"])
        .args(["--api", &format!("{}/ailleurs", banc.bac().endpoint())])
        .finir_en(2);
    let erreur = lignes_json(&out.stdout);
    assert_eq!(erreur.last().unwrap()["evenement"], "erreur");
    assert_eq!(erreur.last().unwrap()["code"], 2);

    let out = banc.vigie().mots("deconnexion --json").finir_en(0);
    assert_eq!(lignes_json(&out.stdout)[0]["connexion_effacee"], true);
    assert!(!config.join("connexion.json").exists());
    let out = banc.vigie().mots("connexion --json").finir_en(2);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(lignes[0]["origine_api"], "defaut");
    assert_eq!(lignes[0]["jeton"], serde_json::Value::Null);
}

/// Chaque ligne JSON est un événement typé (`vigie::suivi::Evenement`), dont le schéma est
/// tiré : nulle part ailleurs dans `src/` un champ `"evenement"` n'est écrit à la main (par
/// `json!` ou autrement), et le schéma décrit exactement les événements du type.
#[test]
fn chaque_evenement_emis_a_son_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/vigie.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut decrits: Vec<String> = schema["properties"]["evenement"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    decrits.sort();
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let le_type = racine.join("src/suivi/evenement.rs");
    let mut a_la_main = Vec::new();
    let mut a_voir = vec![racine.join("src")];
    while let Some(d) = a_voir.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                a_voir.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && p != le_type {
                let texte = std::fs::read_to_string(&p).unwrap();
                // Les tests unitaires lisent des événements, ils n'en émettent pas.
                let code = texte.split("#[cfg(test)]").next().unwrap_or("");
                for (n, ligne) in code.lines().enumerate() {
                    if ligne.contains("\"evenement\"") {
                        a_la_main.push(format!("{}:{}", p.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        a_la_main.is_empty(),
        "événement écrit à la main, hors de suivi/evenement.rs : {a_la_main:?}"
    );
    let types: Vec<String> = vigie::suivi::evenement::schemas_types()
        .into_iter()
        .map(|(nom, _)| nom)
        .collect();
    // Les événements du moteur, des commandes et du bac à sable, au moins.
    for attendu in [
        "bilan",
        "passage",
        "unite_en_echec",
        "pret",
        "erreur",
        "connexion",
        "plan",
        "simulation",
    ] {
        assert!(types.iter().any(|t| t == attendu), "{attendu} : {types:?}");
    }
    let mut types = types;
    types.sort();
    assert_eq!(types, decrits);
    for nom in &decrits {
        assert!(
            schema["$defs"][nom]["description"].is_string(),
            "{nom} sans description"
        );
    }
    // Chaque cause de refus que le plan connaît est une cause du schéma, partout où il en cite.
    for (evenement, causes) in [
        (
            "unite_en_echec",
            &schema["$defs"]["unite_en_echec"]["properties"]["cause"]["enum"],
        ),
        (
            "unite",
            &schema["$defs"]["unite"]["properties"]["cause"]["anyOf"][0]["enum"],
        ),
    ] {
        let causes: Vec<&str> = causes
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let connues: Vec<&str> = vigie::plan::CauseRefus::TOUTES
            .iter()
            .map(|c| c.as_str())
            .collect();
        assert_eq!(causes, connues, "causes de {evenement}");
    }
}

/// Ce que la relecture de la plateforme (et la veille du réseau) ajoutent à la sortie JSON la
/// suit aussi : un dépôt vers une participation qui a déjà des fichiers (l'un identique, « déjà
/// sur la plateforme » ; l'autre différent, refusé `REMPLACEMENT_REFUSE`), `vigie etat
/// --unites`, puis `vigie verifier` vers la plateforme, sous une coupure du réseau sondée
/// (`reseau_indisponible`, `reseau_retabli`), qui trouve un objet altéré (code 3).
#[test]
fn la_relecture_de_la_plateforme_suit_le_schema() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=4).map(|i| (nom(i), 3_000 + i)).collect());
    banc.deja_sur_la_plateforme(&fichiers[0].0, contenu(&fichiers[0].0, fichiers[0].1));
    banc.deja_sur_la_plateforme(&fichiers[1].0, b"une autre version".to_vec());
    let out = banc.depot_plateforme().arg("--json").finir_en(3);
    let lignes = lignes_json(&out.stdout);
    let deja = evenements(&lignes, "unite_deja_sur_la_plateforme");
    assert_eq!(deja.len(), 1, "{}", stdout(&out));
    assert_eq!(deja[0]["contenu_compare"], true);
    let refus = evenements(&lignes, "unite_en_echec");
    assert_eq!(refus.len(), 1, "{}", stdout(&out));
    assert_eq!(refus[0]["cause"], "REMPLACEMENT_REFUSE");
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan");
    assert_eq!(bilan["deja_sur_la_plateforme"], 1, "{bilan}");
    assert_eq!(bilan["deja_sur_la_plateforme_non_comparees"], 0, "{bilan}");
    let out = banc.vigie().mots("etat --unites echec --json").sortie();
    let unites = lignes_json(&out.stdout);
    assert_eq!(unites.len(), 1, "{}", texte(&out));
    assert_eq!(unites[0]["cause"], "REMPLACEMENT_REFUSE");

    // Un objet déposé altéré dans le S3 de la plateforme ; trois coupures sur la liste des
    // fichiers mettent le réseau en pause, la sonde le rouvre.
    let mut altere = contenu(&fichiers[2].0, fichiers[2].1);
    altere[0] ^= 1;
    banc.alterer_objet(&fichiers[2].0, altere);
    banc.panne(Regle::toujours(Some(Operation::ApiPiecesJointes), Panne::Coupure).fois(3));
    let out = banc
        .vigie_plateforme()
        .mots("verifier --json --echecs-reseau 2")
        .args(Banc::reessais_rapides())
        .finir_en(3);
    let lignes = lignes_json(&out.stdout);
    assert!(
        !evenements(&lignes, "reseau_indisponible").is_empty(),
        "{}",
        stdout(&out)
    );
    assert!(
        !evenements(&lignes, "reseau_retabli").is_empty(),
        "{}",
        stdout(&out)
    );
    let verifications = evenements(&lignes, "verification");
    assert_eq!(verifications.len(), 1, "{}", stdout(&out));
    assert_eq!(verifications[0]["etat"], "differente");
    let bilan = lignes.last().unwrap();
    assert_eq!(bilan["evenement"], "bilan_verification");
    assert_eq!(
        (&bilan["intactes"], &bilan["definitifs"]),
        (&serde_json::json!(2), &serde_json::json!(1)),
        "{bilan}"
    );
}

/// La sortie `--json` réelle de chaque commande suit le schéma : dépôt S3 avec pannes,
/// simulation, vérification, état, plans, renommage, dépôt vers la plateforme avec
/// avertissement, démonstration, bac à sable, erreur.
#[test]
fn chaque_commande_suit_le_schema() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    banc.fichier(&nom(2), 6 * MIO + 10);
    banc.panne(Regle::nieme(
        Operation::PutObject,
        Some(banc.cle(&nom(1)).as_str()),
        1,
        code_http_apres(503, vigie_bac_a_sable::RetryAfter::Secondes(1)),
    ));
    banc.panne(Regle::nieme(
        Operation::UploadPart,
        Some(banc.cle(&nom(2)).as_str()),
        1,
        Panne::CouperCorpsApres(100_000),
    ));
    let json = |c: &mut std::process::Command| {
        let out = c.arg("--json").sortie();
        (code(&out), lignes_json(&out.stdout), texte(&out))
    };
    let (c, lignes, t) = json(banc.depot().arg("--simulation"));
    assert_eq!(c, 0, "{t}");
    assert_eq!(evenements(&lignes, "partirait").len(), 2, "{t}");
    let (c, lignes, t) = json(&mut banc.depot());
    assert_eq!(c, 0, "{t}");
    for attendu in [
        "plan",
        "debut",
        "unite_commencee",
        "nouvelle_tentative",
        "unite_deposee",
        "bilan",
    ] {
        assert!(!evenements(&lignes, attendu).is_empty(), "{attendu} : {t}");
    }
    for commande in [
        vec!["etat"],
        vec!["etat", "--unites", "tout"],
        vec!["plans"],
        vec!["verifier", "--endpoint-url", &banc.bac().endpoint()],
    ] {
        let (c, lignes, t) = json(banc.vigie().args(&commande));
        assert_eq!(c, 0, "{commande:?} : {t}");
        assert!(!lignes.is_empty(), "{commande:?} : {t}");
    }

    // Renommer, et un dépôt vers la plateforme dont un nom porte un autre point.
    let autre = tempfile::tempdir().unwrap();
    std::fs::write(
        autre
            .path()
            .join("Car640139-2026-Pass1-Z9-OB-1_20260621_220001_000.WAV"),
        contenu("Car640139-2026-Pass1-Z9-OB-1_20260621_220001_000.wav", 100),
    )
    .unwrap();
    let (c, lignes, t) = json(
        banc.vigie()
            .arg("renommer")
            .arg(autre.path())
            .arg("--appliquer"),
    );
    assert_eq!(c, 0, "{t}");
    assert_eq!(evenements(&lignes, "renommage").len(), 1, "{t}");
    let mut depot = banc.vigie_plateforme();
    depot.arg("depot").arg(autre.path()).args([
        "--participation",
        PARTICIPATION,
        "--forcer-participation",
        "--api",
        &banc.bac().api(),
    ]);
    let (c, lignes, t) = json(&mut depot);
    assert_eq!(c, 0, "{t}");
    assert_eq!(evenements(&lignes, "avertissement").len(), 1, "{t}");

    // Une erreur avant tout envoi : dite aussi en JSON, en dernière ligne.
    let (c, lignes, t) = json(
        banc.vigie_plateforme()
            .arg("depot")
            .arg(autre.path())
            .mots("--participation pas-un-identifiant"),
    );
    assert_eq!(c, 2, "{t}");
    assert_eq!(lignes.len(), 1, "{t}");
    assert_eq!(lignes[0]["evenement"], "erreur");

    // La démonstration, sans pannes.
    let (c, lignes, t) = json(
        banc.vigie()
            .mots("demo --sans-pannes --graine 3 --progression jamais"),
    );
    assert_eq!(c, 0, "{t}");
    assert_eq!(lignes[0]["evenement"], "demo");
    assert!(!evenements(&lignes, "bilan").is_empty(), "{t}");

    // Le bac à sable : sa seule ligne, puis Ctrl-C.
    let mut enfant = Enfant::from(
        banc.vigie()
            .mots("bac-a-sable --port 0 --json")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut ligne = String::new();
    BufReader::new(enfant.stdout.take().unwrap())
        .read_line(&mut ligne)
        .unwrap();
    let pret: serde_json::Value = serde_json::from_str(&ligne).unwrap();
    valider_ligne(&pret);
    assert_eq!(pret["evenement"], "pret");
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 0, "{}", texte(&out));
}
