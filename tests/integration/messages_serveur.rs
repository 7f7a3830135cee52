//! Ce que `vigie` dit quand la plateforme Vigie-Chiro refuse, ou qu'on lui donne mal une
//! entrée : une fois, dans les mots de la plateforme (pas ceux de S3), avec un geste qui peut
//! marcher ; et le jeton retrouvé dans l'adresse entière du site, collée à sa place.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::io::Write;
use std::process::Stdio;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Regle};

/// Un titre de site de 3 Mio, parmi quinze sites qui portent le même numéro que les noms :
/// la liste de l'ambiguïté garde de chaque titre son début et sa fin, sur une ligne, et de la
/// liste ses dix premiers sites et le compte des autres ; le message tient en quelques lignes.
#[test]
fn un_titre_de_site_de_3_mio_tient_sur_une_ligne() {
    let banc = Banc::nouveau();
    // « Carré » : rangé avant les « Point Fixe » (la plateforme trie par titre).
    let titre = format!("Vigiechiro - Carré {}-640999", "x".repeat(3 << 20));
    for i in 0..15 {
        banc.bac()
            .ajouter_site(&vigie_bac_a_sable::NouveauSite {
                type_site: "POINT_FIXE",
                numero: "640999",
                titre: (i == 0).then_some(titre.as_str()),
                observateur: vigie_bac_a_sable::OBSERVATEUR,
                points: &["A1"],
            })
            .unwrap();
    }
    banc.fichier("Car640999-2026-Pass1-A1-PA1_20260703_221000_000.wav", 1_000);
    let out = banc
        .vigie_plateforme()
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--fuseau", "+02:00", "--api"])
        .arg(banc.bac().api())
        .finir_en(2);
    let e = stderr(&out);
    assert!(e.len() < 4_000, "{} octets d'erreur", e.len());
    // Les lignes repliées à la largeur de l'écran, remises bout à bout.
    let e = e.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        e.contains("Plusieurs de vos sites portent le numéro 640999"),
        "{e}"
    );
    assert!(
        e.contains("Vigiechiro - Carré xxx") && e.contains("xxx-640999"),
        "{e}"
    );
    assert!(e.contains("et 5 autres"), "{e}");
    assert_eq!(
        banc.compteurs().requetes(Operation::ApiCreerParticipation),
        0
    );
}

/// Une heure sans fuseau : le message, une seule fois (la cause n'est pas répétée par la chaîne
/// des erreurs).
#[test]
fn heure_sans_fuseau_dite_une_seule_fois() {
    let banc = Banc::avec_fichier(&nom(1), 1_000);
    let out = banc
        .depot_par_site(SITE, "B2", "2026-06-21T21:30:00", FIN_NUIT)
        .finir_en(2);
    let erreur = stderr(&out);
    assert_eq!(
        erreur.matches("heure sans fuseau").count(),
        1,
        "{}",
        texte(&out)
    );
    assert!(erreur.contains("--debut"), "{}", texte(&out));
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

/// Un jeton qui expire en plein dépôt vers la plateforme : le geste est de se reconnecter, et
/// rien n'y parle d'identifiants S3, ni dans le bilan ni dans `vigie etat`.
#[test]
fn jeton_expire_en_route_sans_conseil_s3() {
    let banc = Banc::nouveau();
    for i in 0..4 {
        banc.fichier(&nom(i), 5_000 + i);
    }
    banc.panne(Regle::nieme(
        Operation::ApiDeclarerFichier,
        None,
        2,
        code_http(401),
    ));
    let out = banc.depot_plateforme().mots("--paralleles 1").finir_en(3);
    let bilan = stdout(&out);
    let etat = banc.vigie().arg("etat").sortie();
    let etat = stdout(&etat);
    for sortie in [&bilan, &etat] {
        assert!(sortie.contains("AUTHENTIFICATION"), "{sortie}");
        contient(sortie, &["reconnectez-vous", "vigie retenter-echecs 1"]);
        for s3 in ["S3", "compartiment", "région"] {
            assert!(!sortie.contains(s3), "« {s3} » dans : {sortie}");
        }
    }
}

fn fichier_du_jeton(banc: &Banc) -> std::path::PathBuf {
    banc.dossier.path().join(".config/vigie/jeton")
}

/// L'adresse entière du site, collée à la place du jeton (en argument ou à l'invite) : le jeton
/// en est extrait, vérifié et enregistré. Une adresse sans `token=` est refusée en le disant.
#[test]
fn jeton_extrait_de_l_adresse_du_site_collee_entiere() {
    let banc = Banc::nouveau();
    let adresse = format!("https://vigiechiro.herokuapp.com/?token={JETON}#/participations");
    banc.vigie()
        .args(["connexion", "--jeton", &adresse, "--api"])
        .arg(banc.bac().api())
        .finir_en(0);
    assert_eq!(
        std::fs::read_to_string(fichier_du_jeton(&banc)).unwrap(),
        JETON
    );

    // Collée sur l'entrée standard, dans la forme où le site la met après `#/`.
    std::fs::remove_file(fichier_du_jeton(&banc)).unwrap();
    let mut enfant = banc
        .vigie()
        .mots("connexion --jeton - --api")
        .arg(banc.bac().api())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(
        enfant.stdin.take().unwrap(),
        "https://vigiechiro.herokuapp.com/#/?token={JETON}&suite=1"
    )
    .unwrap();
    let out = enfant.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(
        std::fs::read_to_string(fichier_du_jeton(&banc)).unwrap(),
        JETON
    );

    // Une adresse sans jeton : dit comme tel, rien n'est demandé à la plateforme ni enregistré.
    std::fs::remove_file(fichier_du_jeton(&banc)).unwrap();
    let requetes = banc.compteurs().requetes_total();
    let out = banc
        .vigie()
        .mots("connexion --jeton https://vigiechiro.herokuapp.com/#/participations/64a1b2c3d4e5f60718293d01 --api")
        .arg(banc.bac().api())
        .finir_en(2);
    let erreur = stderr(&out);
    assert!(
        erreur.contains("token=") && !erreur.contains("expiré ou mal copié"),
        "{}",
        texte(&out)
    );
    assert!(!fichier_du_jeton(&banc).exists());
    assert_eq!(banc.compteurs().requetes_total(), requetes);

    // VIGIE_JETON aussi peut recevoir l'adresse entière.
    banc.fichier(&nom(1), 1_000);
    banc.depot_plateforme()
        .env(
            "VIGIE_JETON",
            format!("https://vigiechiro.herokuapp.com/?token={JETON}"),
        )
        .finir_en(0);
}

/// Une plateforme injoignable (rien n'écoute à l'adresse) : une commande ponctuelle
/// (`vigie participations`) dit chacun de ses réessais (« nouvelle tentative dans N s »)
/// avant son erreur, au lieu d'une vingtaine de secondes d'écran muet ; avec `-q`, seulement
/// l'erreur.
#[test]
fn une_plateforme_injoignable_n_est_pas_un_silence() {
    let banc = Banc::nouveau();
    let ferme = PortFerme::nouveau();
    let adresse = format!("http://127.0.0.1:{}/api/v1", ferme.port);
    let out = banc
        .vigie_plateforme()
        .args(["participations", "--api", &adresse])
        .output()
        .unwrap();
    assert_ne!(code(&out), 0, "{}", texte(&out));
    let e = stderr(&out);
    let annonces = e
        .lines()
        .filter(|l| l.contains("la plateforme n'a pas répondu : nouvelle tentative dans"))
        .count();
    assert!(annonces >= 2, "{e}");
    let erreur = e.find("plateforme injoignable").expect(&e);
    let premiere = e.find("nouvelle tentative dans").expect(&e);
    assert!(premiere < erreur, "{e}");
    // Avec -q, les annonces se taisent ; l'erreur reste.
    let out = banc
        .vigie_plateforme()
        .args(["-q", "participations", "--api", &adresse])
        .output()
        .unwrap();
    assert_ne!(code(&out), 0, "{}", texte(&out));
    let e = stderr(&out);
    assert!(!e.contains("nouvelle tentative"), "{e}");
    assert!(e.contains("plateforme injoignable"), "{e}");
}
