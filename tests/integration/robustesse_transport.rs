//! La robustesse du transport : ce que le serveur ou le réseau font de travers, et qui ne doit
//! ni coûter une unité, ni pendre, ni être cru.
//!
//! - `400 RequestTimeout` (S3 : un corps qui a calé) est un incident transitoire : rejoué, sans
//!   abandonner l'envoi multipart ni renvoyer les parties acquittées ;
//! - une réponse 2xx illisible vient du serveur : elle dit sa cause et ne déclare pas le réseau
//!   coupé ;
//! - aucun corps de réponse n'est lu au-delà du plafond : « réponse trop grande » (16.4) ;
//! - aucune redirection n'est suivie vers un autre hôte (16.7) ;
//! - Ctrl-C et SIGTERM arrêtent toute commande, pause réseau comprise, en 130 ; une commande qui
//!   déclare une pause réseau la sonde et la borne (16.1, 22.1).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Pannes, Regle};

/// Une nuit d'un petit fichier et d'un fichier de trois parties de 5 Mio.
fn petite_nuit(banc: &Banc) -> Vec<(String, usize)> {
    banc.fichiers(vec![(nom(1), 30_000), (nom(2), 10 * MIO + 777)])
}

// ------------------------------------------------------------- 400 RequestTimeout (14.6)

/// `400 RequestTimeout` sur la deuxième partie et sur le prochain PUT simple ; rend les pannes
/// du bac à sable, pour vérifier qu'elles ont frappé.
fn corps_trop_lent_sur_la_deuxieme_partie_et_le_put(banc: &Banc) -> &Pannes {
    banc.panne(Regle::nieme(
        Operation::UploadPart,
        None,
        2,
        Panne::CorpsTropLent,
    ));
    banc.panne_prochaine(Operation::PutObject, Panne::CorpsTropLent);
    banc.bac().pannes()
}

#[test]
fn request_timeout_s3_sur_une_partie_puis_un_put_simple_rejoues_sans_rien_abandonner() {
    let banc = Banc::nouveau();
    let fichiers = petite_nuit(&banc);
    let pannes = corps_trop_lent_sur_la_deuxieme_partie_et_le_put(&banc);
    // Une place : les parties partent une à une, la deuxième est celle qui cale.
    banc.depot().mots("--paralleles 1").finir_en(0);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    banc.verifier_identiques(&fichiers);
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::AbortMultipartUpload),
        0,
        "envoi abandonné"
    );
    assert_eq!(c.requetes(Operation::CreateMultipartUpload), 1);
    // Seule la partie qui a calé repart : la première, acquittée, ne repart pas.
    let grand = banc.cle(&fichiers[1].0);
    assert_eq!(
        c.octets_recus_cle(&grand),
        (fichiers[1].1 + 5 * MIO) as u64,
        "une partie acquittée est repartie"
    );
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
}

#[test]
fn request_timeout_sur_les_url_signees_vigiechiro_rejoue_sans_rien_abandonner() {
    let banc = Banc::nouveau();
    let fichiers = petite_nuit(&banc);
    let pannes = corps_trop_lent_sur_la_deuxieme_partie_et_le_put(&banc);
    // Une place : les parties partent une à une, la deuxième est celle qui cale.
    banc.depot_plateforme().mots("--paralleles 1").finir_en(0);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    for (n, t) in &fichiers {
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
    let c = banc.compteurs();
    assert_eq!(c.requetes(Operation::ApiAbandonner), 0, "envoi abandonné");
    let grand = banc.bac().fichier(PARTICIPATION, &fichiers[1].0).unwrap();
    assert_eq!(
        c.octets_recus_cle(&grand.cle),
        (fichiers[1].1 + 5 * MIO) as u64,
        "une partie acquittée est repartie"
    );
    assert!(banc.bac().envois_orphelins().is_empty());
}

// ------------------------------------------------------------ réponses illisibles (15, 16.9)

#[test]
fn une_declaration_illisible_dit_sa_cause_et_ne_coupe_pas_le_reseau() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let vues = std::sync::Arc::new(AtomicUsize::new(0));
    let v = std::sync::Arc::clone(&vues);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "POST"
            && q.chemin.ends_with("/fichiers")
            && v.fetch_add(1, Ordering::SeqCst) == 0
        {
            r.corps = b"<html>portail captif</html>".to_vec();
        }
    });
    let journal = banc.dossier.path().join("journal.jsonl");
    let mut depot = banc.vigie_plateforme();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(format!("{}/api/v1", m.endpoint()))
        .args(Banc::options_rapides())
        // Un seul échec réseau suffirait à déclarer le réseau coupé.
        .mots("--echecs-reseau 1 -v --journal")
        .arg(&journal);
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(60));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let stderr = stderr(&out);
    assert!(
        !stderr.contains("réseau indisponible"),
        "une réponse du serveur prise pour une coupure : {stderr}"
    );
    let cause = "réponse illisible (statut 201) : JSON inattendu";
    assert!(stderr.contains(cause), "cause absente de -v : {stderr}");
    assert!(
        banc.decisions().iter().any(|d| d.detail.contains(cause)),
        "cause absente du journal des décisions"
    );
    assert!(
        std::fs::read_to_string(&journal).unwrap().contains(cause),
        "cause absente de --journal"
    );
    assert_eq!(banc.bac().fichiers().len(), 1, "enregistrement en double");
}

#[test]
fn une_reponse_s3_illisible_dit_la_cause_du_sdk() {
    let banc = Banc::avec_fichier(&nom(1), 6 * MIO);
    // Comme moto 5.2.x pour ListParts : une racine que le SDK ne connaît pas.
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "GET" && q.chemin.contains("uploads") {
            let texte = String::from_utf8_lossy(&r.corps)
                .replace("ListMultipartUploadsResult", "ListMultipartUploadsResponse");
            r.corps = texte.into_bytes();
        }
    });
    let mut depot = banc.depot_via(&m.endpoint());
    depot.mots("--echecs-reseau 1 --tentatives 2 -v");
    // Prise pour une coupure, la réponse illisible mettait le passage en pause sans fin.
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(60));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let stderr = stderr(&out);
    assert!(!stderr.contains("réseau indisponible"), "{stderr}");
    let detail = banc
        .decisions()
        .into_iter()
        .find(|d| d.detail.contains("réponse illisible (statut 200)"))
        .unwrap_or_else(|| panic!("aucune réponse illisible au journal : {}", texte(&out)))
        .detail;
    assert!(
        detail.contains("ListMultipartUploadsResponse")
            || detail.contains("ListMultipartUploadsResult"),
        "la cause du SDK n'est pas dite : {detail}"
    );
    assert!(stderr.contains(&detail), "cause absente de -v : {stderr}");
}

// -------------------------------------------------------------------- plafond des réponses

/// Un corps JSON valide, démesuré : accepté tel quel avant le plafond.
fn json_demesure(corps: &[u8]) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(corps).unwrap();
    v["bourrage"] = serde_json::Value::String("x".repeat(8 * MIO));
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn une_reponse_d_api_demesuree_est_trop_grande() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "POST" && q.chemin.ends_with("/fichiers") && r.statut < 300 {
            r.corps = json_demesure(&r.corps);
        }
    });
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .mots("--tentatives 2")
        .sortie();
    assert_ne!(code(&out), 0, "{}", texte(&out));
    assert!(
        banc.decisions()
            .iter()
            .any(|d| d.detail.contains("réponse trop grande")),
        "{}",
        texte(&out)
    );
}

#[test]
fn une_reponse_s3_demesuree_est_trop_grande() {
    let banc = Banc::avec_fichier(&nom(1), 6 * MIO);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "GET" && q.chemin.contains("uploads") {
            // Un XML valide, bourré d'espaces.
            let mut corps = r.corps.clone();
            let fin = corps.len() - 1;
            corps.splice(fin..fin, std::iter::repeat_n(b' ', 8 * MIO));
            r.corps = corps;
        }
    });
    let out = banc
        .depot_via(&m.endpoint())
        .mots("--tentatives 2")
        .finir_en(1);
    assert!(
        banc.decisions()
            .iter()
            .any(|d| d.detail.contains("réponse trop grande")),
        "{}",
        texte(&out)
    );
}

// ---------------------------------------------------------------------------- redirections

#[test]
fn une_redirection_vers_un_autre_hote_n_est_pas_suivie() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let ailleurs = format!("{}/api/v1/fichiers", banc.bac().endpoint());
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "POST" && q.chemin.ends_with("/fichiers") {
            r.statut = 307;
            r.remplacer_entete("location", &ailleurs);
            r.corps.clear();
        }
    });
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .finir_en(3);
    // Une seule déclaration, celle qui est passée par le mandataire : la redirection n'a pas
    // renvoyé le corps au bac à sable directement.
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 1);
    let tout = texte(&out);
    contient(&tout, &["redirection (307)", "non suivie"]);
}

/// Une adresse de l'API qui redirige vers un autre hôte (le site servi ailleurs, un ancien
/// nom) : ce n'est pas une panne, c'est une adresse à corriger. Code 2, dit au premier
/// `GET /moi`, jamais rejoué, rien n'est envoyé.
#[test]
fn une_api_qui_redirige_ailleurs_est_une_adresse_a_corriger() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |q, r| {
        if q.chemin.ends_with("/moi") {
            r.statut = 301;
            r.remplacer_entete("location", "https://vigiechiro.exemple.fr/api/v1/moi");
            r.corps.clear();
        }
    });
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .finir_en(2);
    let erreurs = stderr(&out);
    assert!(
        erreurs.contains("rien n'a été envoyé")
            && erreurs.contains("redirection (301) vers https://vigiechiro.exemple.fr non suivie")
            && erreurs.contains("--api"),
        "{erreurs}"
    );
    assert_eq!(m.requetes().len(), 1, "GET /moi rejoué");
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 0);
}

// --------------------------------------------------------- pause réseau, Ctrl-C et SIGTERM

/// Lance `commande`, attend que la pause réseau soit annoncée (« réseau indisponible » sur la
/// sortie d'erreur), envoie `signal`, et rend la sortie (au plus 10 s après le signal : une
/// borne large, pas une mesure).
fn interrompre_pendant_la_pause(
    banc: &Banc,
    commande: std::process::Command,
    nom: &str,
) -> std::process::Output {
    let mut enfant = banc.lancer(commande);
    let erreurs = SortieSuivie::lire(enfant.stderr.take().unwrap());
    erreurs.attendre("réseau indisponible");
    signal(&enfant, nom);
    let mut out = attendre_fin(enfant, Duration::from_secs(10));
    out.stderr = erreurs.fin();
    out
}

/// Le réseau tombe juste après la vérification de l'adresse (le premier `GET /moi`) : toute
/// requête de l'API et tout échange avec S3 restent sans réponse, chaque sonde aussi. La
/// participation donnée (`GET /participations/{id}`) se lit encore.
fn couper_apres_la_verification(banc: &Banc) {
    banc.panne(Regle::nieme(Operation::ApiMoi, None, 2, Panne::Coupure).fois(u64::MAX));
    for op in [
        Operation::ApiCreerParticipation,
        Operation::ApiListerParticipations,
        Operation::ApiPiecesJointes,
        Operation::ApiAccesFichier,
        Operation::ApiDeclarerFichier,
        Operation::ApiUrlPartie,
        Operation::ApiFinaliser,
        Operation::ApiLireFichier,
        Operation::PutObject,
        Operation::UploadPart,
        Operation::GetObject,
    ] {
        banc.panne(Regle::toujours(Some(op), Panne::Coupure));
    }
}

#[test]
fn ctrl_c_et_sigterm_pendant_la_pause_reseau_d_un_depot_sortent_en_130() {
    for nom in ["INT", "TERM"] {
        let banc = Banc::avec_fichier(&plateforme::nom(1), 20_000);
        couper_apres_la_verification(&banc);
        let out = interrompre_pendant_la_pause(&banc, banc.depot_plateforme(), nom);
        assert_eq!(code(&out), 130, "SIG{nom} : {}", texte(&out));
        assert!(
            stderr(&out).contains("réseau indisponible"),
            "SIG{nom} : la pause réseau n'a pas eu lieu : {}",
            texte(&out)
        );
        let etat = banc.etat();
        assert_unites(&etat, &[("en_cours", 0), ("deposee", 0)]);
    }
}

#[test]
fn ctrl_c_pendant_les_verifications_avant_un_depot_sort_en_130_sans_plan() {
    let banc = Banc::avec_fichier(&plateforme::nom(1), 20_000);
    let ferme = PortFerme::nouveau();
    let mut depot = banc.vigie_plateforme();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(format!("http://127.0.0.1:{}/api/v1", ferme.port))
        .args(Banc::options_rapides());
    let out = interrompre_pendant_la_pause(&banc, depot, "INT");
    assert_eq!(code(&out), 130, "{}", texte(&out));
    assert!(
        stderr(&out).contains("réseau indisponible"),
        "la pause réseau n'a pas eu lieu : {}",
        texte(&out)
    );
    // Interrompu avant de planifier : aucun plan n'est laissé.
    let plans = banc.vigie().mots("plans --json").sortie();
    assert!(stdout(&plans).trim().is_empty(), "{}", texte(&plans));
}

/// Les vérifications qui précèdent un dépôt (`GET /moi`, puis la participation donnée) sont
/// déjà le dépôt : sans réseau, elles attendent sous la même pause, sondée et bornée par
/// `--attente-reseau`, puis le disent sans rien avoir envoyé.
#[test]
fn les_verifications_avant_un_depot_attendent_le_reseau_sous_une_pause_bornee() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let ferme = PortFerme::nouveau();
    let mut depot = banc.vigie_plateforme();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(format!("http://127.0.0.1:{}/api/v1", ferme.port))
        .args(Banc::options_rapides())
        .mots("--attente-reseau 2");
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let erreurs = stderr(&out);
    contient(&erreurs, &["réseau indisponible", "rien n'a été envoyé"]);
}

/// Une nuit vers une participation à créer par `--site`, dont le réseau tombe juste après la
/// vérification de l'adresse (le premier `GET /moi`) : la création de la participation, sa
/// relecture et chaque sonde suivante restent sans réponse.
fn depot_dont_le_reseau_tombe_avant_la_creation(banc: &Banc) -> std::process::Command {
    banc.fichier(&nom(1), 20_000);
    couper_apres_la_verification(banc);
    banc.depot_par_site(SITE, "B2", DEBUT_NUIT, FIN_NUIT)
}

#[test]
fn ctrl_c_pendant_la_creation_d_une_participation_sort_en_130() {
    let banc = Banc::nouveau();
    let depot = depot_dont_le_reseau_tombe_avant_la_creation(&banc);
    let out = interrompre_pendant_la_pause(&banc, depot, "INT");
    assert_eq!(code(&out), 130, "{}", texte(&out));
    let c = banc.compteurs();
    assert!(
        c.requetes(Operation::ApiCreerParticipation) >= 1,
        "la création n'est pas partie : la pause n'était pas la sienne"
    );
}

#[test]
fn la_pause_de_la_creation_d_une_participation_est_sondee_et_bornee() {
    let banc = Banc::nouveau();
    let mut depot = depot_dont_le_reseau_tombe_avant_la_creation(&banc);
    depot.mots("--attente-reseau 2");
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let c = banc.compteurs();
    assert!(
        c.requetes(Operation::ApiCreerParticipation) >= 1,
        "{}",
        texte(&out)
    );
    // La vérification de l'adresse, puis au moins deux sondes.
    assert!(
        c.requetes(Operation::ApiMoi) >= 3,
        "pause non sondée : {}",
        texte(&out)
    );
    out.stderr_contient(&["réseau indisponible"]);
    assert!(banc.participations_b2().is_empty());
}

#[test]
fn verifier_sans_reseau_s_arrete_sur_l_attente_reseau_et_cede_a_ctrl_c() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    banc.depot().finir_en(0);
    // La destination ne répond plus.
    banc.bac().pannes().couper_tout(true);
    let mut verifier = banc.vigie();
    verifier
        .arg("verifier")
        .args(Banc::reessais_rapides())
        .mots("--attente-reseau 2");
    let out = attendre_fin(banc.lancer(verifier), Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let mut verifier = banc.vigie();
    verifier.arg("verifier").args(Banc::reessais_rapides());
    let out = interrompre_pendant_la_pause(&banc, verifier, "INT");
    assert_eq!(code(&out), 130, "{}", texte(&out));
}

/// `vigie verifier` vers la plateforme : l'inventaire de la participation et les lectures de
/// chaque fichier sont sous la veille du réseau, comme un dépôt. Une coupure déclarée est
/// sondée (`GET /moi`) et ne consomme pas de tentative ; sans réseau, la vérification s'arrête
/// sur `--attente-reseau` (code 1) ; Ctrl-C l'arrête en 130, pause comprise.
#[test]
fn verifier_vigiechiro_sous_la_veille_du_reseau_et_ctrl_c() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    banc.depot_plateforme().finir_en(0);
    let verifier = || {
        let mut v = banc.vigie_plateforme();
        v.arg("verifier").args(Banc::reessais_rapides());
        v
    };
    let pannes = banc.bac().pannes();
    let c = banc.compteurs();

    // Trois coupures sur la liste des fichiers, trois tentatives : sans la pause (déclarée
    // après deux échecs), la liste serait illisible et le fichier « non vérifié ».
    banc.panne(Regle::toujours(Some(Operation::ApiPiecesJointes), Panne::Coupure).fois(3));
    c.remettre_a_zero();
    let mut v = verifier();
    v.mots("--tentatives 3 --echecs-reseau 2");
    let out = attendre_fin(banc.lancer(v), Duration::from_secs(30));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(
        stderr(&out).contains("réseau indisponible"),
        "pas de pause : {}",
        texte(&out)
    );
    // La vérification de l'adresse, puis au moins une sonde.
    assert!(c.requetes(Operation::ApiMoi) >= 2, "{}", texte(&out));
    assert_eq!(c.requetes(Operation::ApiPiecesJointes), 4);
    assert_eq!(c.requetes(Operation::ApiAccesFichier), 1);

    // Plus de réseau après la vérification de l'adresse : borné par --attente-reseau…
    pannes.effacer();
    couper_apres_la_verification(&banc);
    c.remettre_a_zero();
    let mut v = verifier();
    v.mots("--attente-reseau 2");
    let out = attendre_fin(banc.lancer(v), Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    out.stderr_contient(&["réseau indisponible"]);
    assert!(c.requetes(Operation::ApiPiecesJointes) >= 1);
    // … et Ctrl-C pendant la pause : 130, le plan intact.
    pannes.effacer();
    couper_apres_la_verification(&banc);
    let out = interrompre_pendant_la_pause(&banc, verifier(), "INT");
    assert_eq!(code(&out), 130, "{}", texte(&out));
    assert_eq!(banc.etat()["unites"]["deposee"], 1);
}

#[test]
fn connexion_sans_reseau_cede_a_ctrl_c() {
    let banc = Banc::nouveau();
    // Chaque requête coupée : la connexion réessaie, attend entre deux tentatives.
    banc.bac().pannes().couper_tout(true);
    let mut connexion = banc.vigie();
    connexion
        .args(["connexion", "--jeton", JETON, "--api"])
        .arg(banc.bac().api());
    let enfant = banc.lancer(connexion);
    banc.attendre("une première tentative coupée", |b| {
        b.compteurs().requetes(Operation::ApiMoi) >= 1
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(10));
    assert_eq!(code(&out), 130, "{}", texte(&out));
}

// ------------------------------------------------- sans certificats racine du système

/// Une machine sans certificats racine (conteneur minimal, système sans `ca-certificates`) :
/// aucune connexion HTTPS ne peut aboutir. `connexion` disait « client HTTP : builder error » ;
/// un dépôt vers une adresse S3 `https://` partait et chaque requête aurait échoué comme une
/// panne du réseau (et le binaire de mise au point paniquait dans le SDK). Désormais : code 2,
/// la cause et le geste, rien d'envoyé.
#[test]
fn sans_certificats_du_systeme_une_erreur_qui_dit_quoi_faire() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    let ferme = PortFerme::nouveau();
    let vide = banc.dossier.path().join("sans-certificats");
    std::fs::create_dir_all(&vide).unwrap();
    let sans_certificats = |c: &mut std::process::Command| {
        c.env("SSL_CERT_FILE", vide.join("aucun.pem"))
            .env("SSL_CERT_DIR", &vide);
    };
    let mut connexion = banc.vigie();
    connexion
        .args(["connexion", "--jeton", JETON, "--api"])
        .arg(format!("https://127.0.0.1:{}/api/v1", ferme.port));
    sans_certificats(&mut connexion);
    let mut depot = banc.vigie();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .mots("--vers s3://nuits/terrain --endpoint-url")
        .arg(format!("https://127.0.0.1:{}", ferme.port));
    sans_certificats(&mut depot);
    for mut commande in [connexion, depot] {
        let out = commande.finir_en(2);
        let erreur = stderr(&out);
        contient(
            &erreur,
            &[
                "aucun certificat racine du système",
                "ca-certificates",
                "SSL_CERT_FILE",
            ],
        );
        assert!(!erreur.contains("builder error"), "{erreur}");
    }
    assert_eq!(banc.compteurs().requetes_total(), 0);
}
