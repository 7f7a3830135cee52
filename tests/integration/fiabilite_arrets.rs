//! Arrêts brutaux : 20 kill -9 à des instants tirés (graine fixe) pendant une nuit S3 et une
//! nuit Vigie-Chiro, chacun suivi d'une relance. À la fin : chaque objet présent une fois,
//! identique octet pour octet ; aucun envoi multipart orphelin ; aucune participation ni aucun
//! enregistrement de fichier en double ; `vigie etat` cohérent avec la destination, et
//! `vigie verifier` le confirme (S3).
//!
//! Les instants sont tirés d'une graine fixe ; ce qui se trouve en vol à chaque instant dépend
//! encore de l'ordonnanceur, mais les propriétés vérifiées doivent tenir pour tout entrelacement.
//! Une lenteur injectée sur chaque requête étale la nuit sur une dizaine de secondes, pour que
//! les arrêts tombent au milieu des envois (ouverture, parties, finalisation) et pas seulement
//! au démarrage.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;
use std::time::Duration;

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle};

const ARRETS: usize = 20;
/// Lenteur injectée devant chaque requête : une nuit d'une douzaine de fichiers dure ainsi
/// quelques secondes, que les arrêts découpent.
const LENTEUR_S3: Duration = Duration::from_millis(500);
const LENTEUR_VIGIECHIRO: Duration = Duration::from_millis(350);

/// Lance `commande` puis la tue (SIGKILL) à un instant tiré, `ARRETS` fois. Rend le nombre de
/// passages tués en pleine activité (les autres avaient déjà fini).
fn arreter_brutalement(banc: &Banc, graine: u64, commande: impl Fn() -> Command) -> usize {
    // Pour explorer d'autres tirages à la main : VIGIE_GRAINE_ARRETS=N cargo test …
    let graine = std::env::var("VIGIE_GRAINE_ARRETS")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(graine);
    let mut alea = Alea::graine(graine);
    let mut tues = 0;
    for i in 0..ARRETS {
        let attente = Duration::from_millis(alea.entre(50, 1500));
        let mut enfant = banc.lancer(commande());
        std::thread::sleep(attente);
        if enfant.try_wait().unwrap().is_none() {
            enfant.kill().unwrap(); // SIGKILL : ni Ctrl-C, ni nettoyage
            tues += 1;
        }
        let sortie = enfant.wait_with_output().unwrap();
        // Le plan reste lisible après chaque arrêt.
        if banc.base.exists() {
            let etat = banc.vigie().mots("etat --json").sortie();
            assert!(
                matches!(code(&etat), 0..=3),
                "arrêt {i} (après {attente:?}) : base illisible\n{}\n(passage tué : {})",
                texte(&etat),
                texte(&sortie)
            );
        }
    }
    tues
}

#[test]
fn vingt_arrets_brutaux_pendant_une_nuit_s3_rien_de_perdu_rien_en_double() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_12();
    banc.panne(Regle::proportion(1.0, Panne::Lenteur(LENTEUR_S3)));
    let tues = arreter_brutalement(&banc, 0x5EED_0001, || {
        let mut c = banc.depot();
        c.mots("--paralleles 2");
        c
    });
    assert!(
        tues >= ARRETS / 2,
        "seuls {tues} passages tués en pleine activité"
    );

    eprintln!(
        "avant la relance finale : {} ; {tues} passages tués",
        banc.etat()
    );
    banc.bac().pannes().effacer();
    banc.depot().finir_en(0);

    // Chaque objet une fois, identique ; rien d'autre sous le préfixe.
    banc.verifier_identiques(&fichiers);
    let attendus: Vec<String> = {
        let mut v: Vec<String> = fichiers.iter().map(|(n, _)| banc.cle(n)).collect();
        v.sort();
        v
    };
    assert_eq!(banc.objets_sous(COMPARTIMENT, PREFIXE), attendus);
    // Chaque envoi multipart n'a été assemblé qu'une fois, et aucun n'est resté ouvert.
    for (nom, taille) in &fichiers {
        if *taille > 5 * MIO {
            let assemblages = banc
                .compteurs()
                .traitees_cle(Operation::CompleteMultipartUpload, &banc.cle(nom));
            assert_eq!(assemblages, 1, "{nom} assemblé {assemblages} fois");
        }
    }
    assert_eq!(
        banc.bac().envois_en_cours(COMPARTIMENT),
        Vec::<(String, String)>::new(),
        "envoi multipart orphelin"
    );

    // Le plan dit ce que dit la destination, et verifier le confirme.
    let etat = banc.etat();
    assert_eq!(etat["unites"]["deposee"], 12, "{etat}");
    for e in ["a_deposer", "en_cours", "echec", "incertaine"] {
        assert_eq!(etat["unites"][e], 0, "{e} : {etat}");
    }
    assert_eq!(etat["definitifs"], 0, "{etat}");
    assert_eq!(
        etat["octets_deposes"],
        Banc::octets_nuit(&fichiers),
        "{etat}"
    );
    let out = banc.vigie().arg("verifier").finir_en(0);
    out.stdout_contient(&["12 fichiers intacts"]);
}

#[test]
fn vingt_arrets_brutaux_pendant_une_nuit_vigiechiro_ni_doublon_ni_orphelin() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_12();
    banc.panne(Regle::proportion(1.0, Panne::Lenteur(LENTEUR_VIGIECHIRO)));
    // Le bac à sable mène au bout toute requête d'API reçue, même si vigie meurt pendant son
    // traitement, comme la vraie plateforme : chaque arrêt tombe donc aussi après un POST
    // exécuté dont la réponse n'est jamais lue.
    // La participation est créée par vigie (POST non idempotent) : un arrêt pendant sa
    // création ne doit jamais en laisser deux.
    let depot = || {
        let mut c = banc.depot_par_site(SITE, "B2", DEBUT_NUIT, FIN_NUIT);
        c.mots("--paralleles 2");
        c
    };
    let tues = arreter_brutalement(&banc, 0x5EED_0002, depot);
    assert!(
        tues >= ARRETS / 2,
        "seuls {tues} passages tués en pleine activité"
    );

    eprintln!(
        "avant la relance finale : {} ; {tues} passages tués",
        banc.etat()
    );
    banc.bac().pannes().effacer();
    depot().finir_en(0);

    banc.verifier_sur_la_plateforme(&banc.participation_creee(), &fichiers);

    let etat = banc.etat();
    assert_eq!(etat["unites"]["deposee"], 12, "{etat}");
    assert_eq!(
        etat["octets_deposes"],
        Banc::octets_nuit(&fichiers),
        "{etat}"
    );
    assert_eq!(etat["definitifs"], 0, "{etat}");
}

/// Le cas le plus étroit, rendu déterministe : vigie meurt après avoir émis la déclaration
/// multipart d'un fichier (`POST /fichiers`), que la plateforme traite (elle ouvre l'envoi S3),
/// mais avant d'en avoir reçu l'identifiant. Redéclarer en multipart ouvrirait un second envoi
/// S3, orphelin à jamais (la plateforme garde l'identifiant du premier) : la relance doit
/// retrouver l'enregistrement sans rien ouvrir.
#[test]
fn arret_brutal_pendant_une_declaration_multipart_ni_orphelin_ni_doublon() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    let taille = 7 * MIO + 99;
    banc.fichier(&titre, taille);
    let api = banc.bac().api();
    banc.panne_prochaine(Operation::ApiDeclarerFichier, lenteur_ms(600));
    let depot = || banc.depot_plateforme_via(&api);
    let mut enfant = banc.lancer(depot());
    banc.attendre("la déclaration part", |b| {
        b.compteurs().requetes(Operation::ApiDeclarerFichier) >= 1
    });
    enfant.kill().unwrap();
    let _ = enfant.wait();
    // La plateforme finit de traiter la déclaration : l'envoi S3 est ouvert.
    banc.attendre("la déclaration est traitée", |b| b.fichiers().len() == 1);
    assert_eq!(banc.bac().envois_en_cours(COMPARTIMENT_PLATEFORME).len(), 1);

    depot().finir_en(0);
    // Un seul enregistrement, finalisé, identique ; un envoi orphelin dirait que la relance a
    // redéclaré en multipart.
    banc.verifier_sur_la_plateforme(PARTICIPATION, &[(titre, taille)]);
}
