//! Le dépôt vers la plateforme Vigie-Chiro de bout en bout : le binaire contre la plateforme
//! locale du bac à sable (API + S3 par URL signées v2, Content-Type signé vérifié).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

#[cfg(unix)]
use std::time::Duration;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle};

#[test]
fn une_nuit_de_30_sequences_toutes_disponibles_et_identiques() {
    let banc = Banc::nouveau();
    let mut fichiers = Vec::new();
    for i in 0..30 {
        let taille = match i {
            7 => 6 * MIO,
            19 => 11 * MIO + 3,
            _ => 20_000 + i * 31_337,
        };
        banc.fichier(&nom(i), taille);
        fichiers.push((nom(i), taille));
    }
    let participations_avant = banc.bac().participations(SITE).len();
    banc.depot_plateforme().finir_en(0);
    assert_eq!(fichiers.len(), 30);
    banc.verifier_sur_la_plateforme(PARTICIPATION, &fichiers);
    for (titre, taille) in &fichiers {
        let f = banc.bac().fichier(PARTICIPATION, titre).unwrap();
        assert_eq!(f.multipart, *taille > 5 * MIO, "{titre}");
    }
    assert_eq!(banc.bac().participations(SITE).len(), participations_avant);
    // Relancer : rien ne repart.
    let recus = banc.compteurs().octets_recus();
    banc.depot_plateforme().finir_en(0);
    assert_eq!(banc.compteurs().octets_recus(), recus);
}

#[test]
fn reponse_perdue_sur_la_finalisation_unite_deposee_sans_renvoi() {
    let banc = Banc::avec_fichier(&nom(1), 100_000);
    banc.panne_prochaine(Operation::ApiFinaliser, Panne::PerdreReponse);
    banc.depot_plateforme().finir_en(0);
    assert!(banc.finalise(PARTICIPATION, &nom(1)));
    assert_eq!(
        banc.compteurs().octets_recus(),
        100_000,
        "des octets sont repartis"
    );
    assert_eq!(banc.etat()["unites"]["deposee"], 1);
}

/// Un refus définitif à la vérification de la participation (ici 403) : code 3, la cause et le
/// geste, rien n'est envoyé (ce n'est pas un échec passager).
#[test]
fn participation_refusee_a_la_verification_code_3() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    banc.panne_prochaine(Operation::ApiLireParticipation, code_http(403));
    let out = banc.depot_plateforme().finir_en(3);
    let erreur = stderr(&out);
    assert!(
        erreur.contains("403") && erreur.contains("vérifiez qu'elle est bien la vôtre"),
        "{}",
        texte(&out)
    );
    assert_eq!(banc.compteurs().octets_recus(), 0, "rien n'est parti");
}

#[test]
fn reponse_perdue_sur_la_creation_de_participation_une_seule_participation() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    banc.panne_prochaine(Operation::ApiCreerParticipation, Panne::PerdreReponse);
    let creer = |banc: &Banc| {
        let mut c = banc.depot_par_site(SITE, "B2", DEBUT_NUIT, FIN_NUIT);
        c.sortie()
    };
    let out = creer(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    // La création sans réponse et sa réconciliation vont au journal des décisions du plan,
    // comme toute émission (sans unité).
    let decisions = banc.decisions();
    assert!(
        decisions.iter().any(|d| d.unite.is_none()
            && d.methode == "POST"
            && d.cible.ends_with(&format!("/sites/{SITE}/participations"))),
        "création de participation absente du journal : {decisions:?}"
    );
    let creees = banc.participations_b2();
    assert_eq!(creees.len(), 1, "{creees:?}");
    assert!(banc.finalise(&creees[0].id, &nom(1)));
    // Relancer ne crée jamais une seconde participation.
    banc.fichier(&nom(2), 1000);
    let out = creer(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.participations_b2().len(), 1);
    assert_eq!(banc.requetes(Operation::ApiCreerParticipation), 1);
}

#[cfg(unix)]
#[test]
fn jeton_expire_au_milieu_de_la_nuit_puis_connexion_et_retenter() {
    let banc = Banc::nouveau();
    let mut fichiers = Vec::new();
    for i in 0..10 {
        banc.fichier(&nom(i), 50_000);
        fichiers.push((nom(i), 50_000));
    }
    // Connexion par le fichier de jeton (pas de VIGIE_JETON ici).
    banc.vigie()
        .args(["connexion", "--jeton", JETON, "--api"])
        .arg(banc.bac().api())
        .finir_en(0);
    let fichier_jeton = banc.dossier.path().join(".config/vigie/jeton");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&fichier_jeton)
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );

    banc.panne(Regle::proportion(1.0, lenteur_ms(150)));
    let mut depot = banc.vigie();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args([
            "--participation",
            PARTICIPATION,
            "--paralleles",
            "1",
            "--api",
        ])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let enfant = banc.lancer(depot);
    banc.attendre("trois fichiers finalisés", |b| {
        b.fichiers().iter().filter(|f| f.disponible).count() >= 3
    });
    assert!(banc.bac().expirer_jeton(JETON));
    let out = attendre_fin(enfant, Duration::from_secs(60));
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let sortie = format!("{}{}", stdout(&out), stderr(&out));
    assert!(sortie.contains("vigie connexion"), "{sortie}");
    let deposes: Vec<String> = banc
        .bac()
        .fichiers()
        .into_iter()
        .filter(|f| f.disponible)
        .map(|f| f.titre)
        .collect();
    assert!(deposes.len() >= 3 && deposes.len() < 10);

    banc.bac().pannes().effacer();
    banc.bac()
        .ajouter_jeton("NOUVEAUJETONDUBACASABLE0123456789");
    banc.vigie()
        .mots("connexion --jeton NOUVEAUJETONDUBACASABLE0123456789 --api")
        .arg(banc.bac().api())
        .finir_en(0);
    banc.retenter().finir_en(0);
    for (titre, taille) in &fichiers {
        assert!(banc.objet_plateforme(PARTICIPATION, titre) == contenu(titre, *taille));
        assert!(banc.finalise(PARTICIPATION, titre));
    }
    // Ce qui était déposé avant l'expiration n'est pas reparti.
    for titre in deposes {
        let cle = banc.bac().fichier(PARTICIPATION, &titre).unwrap().cle;
        assert_eq!(
            banc.requetes_cle(Operation::PutObject, &cle),
            1,
            "{titre} renvoyé"
        );
    }
}

#[test]
fn kill_9_au_milieu_d_un_multipart_reprise_a_la_partie_sans_doublon_ni_orphelin() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    let taille = 40 * MIO;
    banc.fichier(&titre, taille);
    banc.panne(Regle::proportion(1.0, lenteur_ms(300)));
    // Aux délais larges du banc : avec un délai court, sous la charge, une partie retenue
    // 300 ms le dépassait, repartait, et ses octets renvoyés crevaient la borne ci-dessous sans
    // rapport avec le kill -9.
    let options = Banc::options_rapides();
    let mut enfant = banc.lancer(banc.depot_plateforme_avec(&options));
    banc.attendre("quatre parties reçues", |b| {
        b.compteurs().requetes(Operation::UploadPart) >= 4
    });
    enfant.kill().unwrap();
    let _ = enfant.wait();
    banc.bac().pannes().effacer();
    banc.depot_plateforme_avec(&options).finir_en(0);
    banc.verifier_sur_la_plateforme(PARTICIPATION, &[(titre, taille)]);
    // Au plus une partie perdue par transfert en vol au moment du kill -9 : les parties d'un
    // fichier seul partent ensemble, sur les quatre places par défaut.
    let recus = banc.compteurs().octets_recus();
    assert!(
        recus <= (taille + 4 * 5 * MIO) as u64,
        "reçu {recus} pour {taille}"
    );
}

/// Une partie refusée pour son contenu (400, refus définitif du fichier) : l'unité est refusée
/// (code 3), et son envoi multipart est abandonné (`DELETE /fichiers/{id}`), même si le
/// premier abandon tombe sur une panne : il est rejouable. Rien ne reste ouvert chez S3.
#[test]
fn partie_refusee_l_envoi_multipart_est_abandonne_malgre_une_panne() {
    let banc = Banc::nouveau();
    let (petit, gros) = ((nom(1), 20_000), (nom(2), 5 * MIO + 4_321));
    for (n, t) in [&petit, &gros] {
        banc.fichier(n, *t);
    }
    let pannes = banc.bac().pannes();
    banc.panne_prochaine(Operation::UploadPart, code_http(400));
    banc.panne_prochaine(Operation::ApiAbandonner, code_http(500));
    banc.depot_plateforme().finir_en(3);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::ApiAbandonner),
        2,
        "abandon non rejoué"
    );
    // Le gros fichier n'a plus d'enregistrement ; le petit est déposé.
    assert!(banc.bac().fichier(PARTICIPATION, &gros.0).is_none());
    assert!(banc.finalise(PARTICIPATION, &petit.0));
    banc.aucun_envoi_ouvert();
}

/// Une partie refusée deux fois (403 : l'URL redemandée est refusée aussi) : un refus de
/// droits (l'heure de l'ordinateur, les droits sur la participation), pas du fichier. Comme
/// vers S3, l'unité est refusée (code 3, cause DROITS) mais l'enregistrement et ses parties
/// acquittées sont gardés : une fois l'heure ou les droits corrigés, la reprise ne renvoie que
/// ce qui manque, dans le même enregistrement.
#[test]
fn partie_refusee_deux_fois_pour_les_droits_l_envoi_et_ses_parties_sont_gardes() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    let taille = 12 * MIO;
    banc.fichier(&titre, taille);
    let pannes = banc.bac().pannes();
    let refus = code_http(403);
    // La deuxième partie et l'envoi de son URL redemandée ; une place : la première partie est
    // acquittée avant.
    banc.panne(Regle::nieme(Operation::UploadPart, None, 2, refus).fois(2));
    let out = banc.depot_plateforme().mots("--paralleles 1").finir_en(3);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    let sortie = texte(&out);
    assert!(sortie.contains("refusée deux fois (403)"), "{sortie}");
    let c = banc.compteurs();
    assert_eq!(c.requetes(Operation::ApiAbandonner), 0, "envoi abandonné");
    let enregistrement = banc.bac().fichier(PARTICIPATION, &titre).unwrap();
    assert!(!enregistrement.disponible);
    let unites = banc.unites("definitif");
    assert_eq!(unites.len(), 1, "{unites:?}");
    assert_eq!(unites[0]["cause"], "DROITS", "{unites:?}");
    let acquittees: i64 = rusqlite::Connection::open(&banc.base)
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM depot_partie WHERE etat = 'envoyee'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(acquittees, 1, "les parties acquittées sont oubliées");

    // L'heure corrigée : la reprise des refus définitifs termine dans le même enregistrement,
    // sans renvoyer la première partie.
    let octets = c.octets_recus();
    let mut retenter = banc.vigie_plateforme();
    retenter
        .mots("retenter-echecs --y-compris-definitifs")
        .args(Banc::options_rapides());
    retenter.finir_en(0);
    assert!(banc.objet_plateforme(PARTICIPATION, &titre) == contenu(&titre, taille));
    let c = banc.compteurs();
    assert_eq!(c.octets_recus() - octets, (taille - 5 * MIO) as u64);
    assert_eq!(
        banc.bac().fichier(PARTICIPATION, &titre).unwrap().id,
        enregistrement.id
    );
    assert_eq!(banc.bac().fichiers().len(), 1);
    assert!(banc.bac().envois_orphelins().is_empty());
}

/// L'URL signée d'un PUT simple refusée (403), puis celle de la nouvelle déclaration aussi :
/// ni une expiration ni un accroc ; le message dit quoi vérifier (l'heure, les droits). Ce
/// message ne pouvait jamais sortir avant que la boucle des deux essais ne le rende.
#[test]
fn url_signee_refusee_deux_fois_dit_de_verifier_l_heure() {
    let banc = Banc::avec_fichier(&nom(1), 20_000);
    let pannes = banc.bac().pannes();
    let refus = code_http(403);
    banc.panne(Regle::toujours(Some(Operation::PutObject), refus).fois(2));
    let out = banc.depot_plateforme().finir_en(3);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    assert_eq!(banc.requetes(Operation::PutObject), 2);
    assert_eq!(
        banc.requetes(Operation::ApiDeclarerFichier),
        2,
        "une déclaration neuve pour une URL neuve"
    );
    let sortie = texte(&out);
    contient(
        &sortie,
        &[
            "URL signée refusée deux fois (403)",
            "vérifiez l'heure de l'ordinateur",
        ],
    );
}

#[test]
fn noms_invalides_code_2_liste_complete_zero_requete() {
    let banc = Banc::avec_fichier(&nom(1), 10);
    banc.fichier("Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.WAV", 10);
    banc.fichier("Car640139-2026-Pass0-A1-OB-1_20260621_221501_000.wav", 10);
    banc.fichier("enregistrement du soir.wav", 10);
    let out = banc.depot_plateforme().finir_en(2);
    let stderr = stderr(&out);
    for attendu in [".WAV", "Pass0", "espace", "3 fichiers à corriger"] {
        assert!(stderr.contains(attendu), "{attendu} absent : {stderr}");
    }
    assert_eq!(
        banc.compteurs().requetes_total(),
        0,
        "la plateforme a reçu des requêtes"
    );
}

#[test]
fn aucun_jeton_ni_signature_dans_les_sorties_meme_tres_bavardes() {
    let banc = Banc::avec_fichier(&nom(1), 30_000);
    banc.fichier(&nom(2), 6 * MIO);
    banc.panne_prochaine(Operation::PutObject, code_http(503));
    let journal = banc.dossier.path().join("journal.json");
    let out = banc
        .depot_plateforme()
        .arg("-vvv")
        .arg("--journal")
        .arg(&journal)
        .env("RUST_LOG", "trace")
        .finir_en(0);
    let journal = std::fs::read_to_string(&journal).unwrap();
    assert!(journal.contains("PUT"), "journal vide ?");
    let tout = format!("{}{}{journal}", stdout(&out), stderr(&out));
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{JETON}:"));
    for secret in [JETON, basic.as_str(), "Signature=", "AWSAccessKeyId="] {
        assert!(!tout.contains(secret), "secret « {secret} » dans la sortie");
    }
    // Ni dans la base.
    let base = std::fs::read(&banc.base).unwrap();
    let base = String::from_utf8_lossy(&base);
    assert!(!base.contains(JETON) && !base.contains("Signature="));
}

#[test]
fn traiter_lance_le_calcul_une_fois_et_dit_s_il_est_deja_planifie() {
    let banc = Banc::nouveau();
    let traiter = |banc: &Banc| {
        banc.vigie_plateforme()
            .args(["traiter", "--participation", PARTICIPATION, "--api"])
            .arg(banc.bac().api())
            .sortie()
    };
    let out = traiter(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(stdout(&out).contains("Calcul lancé"), "{}", texte(&out));
    // L'état est lu d'abord : planifié, rien n'est émis vers `compute`.
    let out = traiter(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    out.stdout_contient(&["rien n'a été relancé"]);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 1);
    let p = banc
        .bac()
        .participations(SITE)
        .into_iter()
        .find(|p| p.id == PARTICIPATION)
        .unwrap();
    assert_eq!(p.calculs_lances, 1);
    // vigie depot ne lance jamais le calcul.
    banc.fichier(&nom(1), 100);
    banc.depot_plateforme().finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 1);
}

/// Un jeton passé en argument (`--jeton VALEUR`) se lit dans `ps` : un avertissement le dit,
/// avec `--jeton -`, sans jamais recopier le jeton ; `--jeton -` n'en reçoit aucun.
#[test]
fn un_jeton_passe_en_argument_est_visible_dans_ps_un_avertissement_le_dit() {
    let banc = Banc::nouveau();
    let out = banc
        .vigie()
        .args(["connexion", "--jeton", JETON, "--api"])
        .arg(banc.bac().api())
        .finir_en(0);
    let e = stderr(&out);
    assert!(
        e.contains("attention : un jeton donné en argument se lit dans la liste des processus")
            && e.contains("vigie connexion --jeton -"),
        "{e}"
    );
    assert!(!texte(&out).contains(JETON), "{}", texte(&out));
    let mut enfant = banc
        .vigie()
        .args(["connexion", "--jeton", "-", "--api"])
        .arg(banc.bac().api())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut enfant.stdin.take().unwrap(), JETON.as_bytes()).unwrap();
    let out = enfant.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(!stderr(&out).contains("attention"), "{}", texte(&out));
}

#[test]
fn connexion_refuse_un_mauvais_jeton_et_deconnexion_l_efface() {
    let banc = Banc::nouveau();
    let out = banc
        .vigie()
        .mots("connexion --jeton MAUVAISJETON --api")
        .arg(banc.bac().api())
        .finir_en(2);
    assert!(stderr(&out).contains("jeton refusé"), "{}", texte(&out));
    assert!(!stderr(&out).contains("MAUVAISJETON"));
    banc.vigie().arg("deconnexion").finir_en(0);
    // Sans jeton : erreur claire, code 2, rien n'est envoyé.
    banc.fichier(&nom(1), 100);
    let mut depot = banc.vigie();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(banc.bac().api());
    let out = depot.finir_en(2);
    assert!(stderr(&out).contains("vigie connexion"), "{}", texte(&out));
    assert_eq!(
        banc.compteurs().requetes_total(),
        1,
        "seul GET /moi de la connexion refusée"
    );
}

/// Vers la plateforme, une déclaration ou une finalisation ne tient pas de
/// place de transfert. Avec une seule place (`--paralleles 1`), jamais deux PUT à la fois,
/// mais pendant qu'un PUT est tenu par le serveur, l'unité suivante déclare déjà (ou la
/// précédente finalise) : le lien ne reste pas vide pendant les appels d'API. Rien n'est
/// chronométré : le bac à sable compte ce qu'il tient en même temps. Avant, une unité tenait
/// sa place du début à la fin, et le serveur ne tenait jamais qu'une requête à la fois.
#[test]
fn les_appels_d_api_ne_laissent_pas_le_lien_vide() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=6).map(|i| (nom(i), 50_000 + i)).collect());
    banc.panne_toujours(Operation::PutObject, lenteur_ms(300));
    banc.depot_plateforme().mots("--paralleles 1").finir_en(0);
    for (titre, taille) in &fichiers {
        assert!(banc.objet_plateforme(PARTICIPATION, titre) == contenu(titre, *taille));
        assert!(banc.finalise(PARTICIPATION, titre));
    }
    let compteurs = banc.compteurs();
    assert_eq!(
        compteurs.simultanees_max(Operation::PutObject),
        1,
        "deux transferts à la fois sur une seule place"
    );
    assert!(
        compteurs.simultanees_max_total() >= 2,
        "aucun appel d'API pendant un transfert"
    );
}

/// Une simulation lit la plateforme brièvement (profil BREF, `reglages_de_simulation`) : une
/// participation illisible (503) est relue une fois, pas jusqu'à l'échéance d'une commande qui
/// envoie ; la simulation dit qu'elle ne l'a pas vérifiée et finit en 0, sans rien envoyer.
#[test]
fn simulation_ne_lit_la_participation_que_brievement() {
    let banc = Banc::avec_fichier(&nom(1), 1000);
    banc.bac().pannes().programmer(Regle::toujours(
        Some(Operation::ApiLireParticipation),
        Panne::Statut {
            code: 503,
            retry_after: None,
        },
    ));
    let out = banc.depot_plateforme().arg("--simulation").finir_en(0);
    assert!(
        stderr(&out).contains("Participation non vérifiée"),
        "{}",
        texte(&out)
    );
    assert_eq!(
        banc.compteurs().requetes(Operation::ApiLireParticipation),
        2,
        "{}",
        texte(&out)
    );
    assert_eq!(banc.compteurs().octets_recus(), 0);
}
