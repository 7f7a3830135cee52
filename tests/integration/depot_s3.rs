//! Le dépôt vers S3 de bout en bout : le binaire contre le bac à sable en processus, pannes
//! injectées, et ce que le serveur a réellement reçu.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::time::Duration;

use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle, Relache, RetryAfter};

#[test]
fn une_nuit_de_20_fichiers_arrive_intacte_et_la_relance_ne_renvoie_rien() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    banc.depot().finir_en(0);
    banc.verifier_identiques(&fichiers);
    let etat = banc.etat();
    assert_eq!(etat["unites"]["deposee"], 20, "{etat}");
    assert_eq!(etat["octets_deposes"], Banc::octets_nuit(&fichiers));
    assert_eq!(banc.requetes(Operation::CreateMultipartUpload), 3);
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());

    // Relancer la même commande : rien ne repart.
    let recus = banc.compteurs().octets_recus();
    banc.depot().finir_en(0);
    assert_eq!(
        banc.compteurs().octets_recus(),
        recus,
        "des octets sont repartis"
    );
    assert_eq!(banc.requetes(Operation::PutObject), 17);
}

#[test]
fn sortie_json_au_contrat() {
    let banc = Banc::avec_fichier("Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav", 1000);
    let out = banc.depot().arg("--json").finir_en(0);
    let lignes = lignes_json(&out.stdout);
    let bilan = bilan_au_contrat(&lignes);
    assert_eq!(bilan["deposees"], 1);
    assert_eq!(bilan["octets_envoyes"], 1000);
    assert!(lignes.iter().any(|l| l["evenement"] == "unite_deposee"));
}

#[test]
fn un_503_avec_retry_after_est_absorbe() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 300_000);
    banc.panne_prochaine(
        Operation::PutObject,
        code_http_apres(503, RetryAfter::Secondes(1)),
    );
    let out = banc.depot().finir_en(0);
    assert_eq!(banc.requetes(Operation::PutObject), 2);
    let stderr = stderr(&out);
    assert!(stderr.contains("nouvelle tentative dans 1 s"), "{stderr}");
    banc.verifier_identiques(&[(nom.into(), 300_000)]);
}

#[test]
fn une_coupure_en_plein_corps_est_absorbee() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 2 * MIO);
    banc.panne_nieme(
        Operation::PutObject,
        nom,
        1,
        Panne::CouperCorpsApres(100_000),
    );
    banc.depot().finir_en(0);
    assert_eq!(banc.requetes(Operation::PutObject), 2);
    banc.verifier_identiques(&[(nom.into(), 2 * MIO)]);
}

#[test]
fn une_lenteur_au_dela_du_delai_de_tentative_est_absorbee() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 50_000);
    banc.panne_prochaine(Operation::PutObject, Panne::Lenteur(Duration::from_secs(4)));
    // Le sujet est le délai de tentative : il doit couper la requête que la panne retient.
    banc.depot_avec(&Banc::options_delais_courts()).finir_en(0);
    assert_eq!(banc.requetes(Operation::PutObject), 2);
    banc.verifier_identiques(&[(nom.into(), 50_000)]);
}

#[test]
fn un_403_n_est_jamais_rejoue_et_retenter_ne_le_relance_que_sur_demande() {
    let banc = Banc::nouveau();
    let refuse = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    let accepte = "Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav";
    banc.fichier(refuse, 1000);
    banc.fichier(accepte, 1000);
    banc.panne_nieme(Operation::PutObject, refuse, 1, code_http(403));
    banc.depot().finir_en(3);
    assert_eq!(banc.requetes_sur(Operation::PutObject, refuse), 1);
    let etat = banc.etat();
    assert_eq!(etat["definitifs"], 1, "{etat}");
    assert_eq!(etat["unites"]["deposee"], 1);

    banc.retenter().finir_en(3);
    assert_eq!(banc.requetes_sur(Operation::PutObject, refuse), 1);

    banc.retenter().arg("--y-compris-definitifs").finir_en(0);
    assert_eq!(banc.requetes_sur(Operation::PutObject, refuse), 2);
    banc.verifier_identiques(&[(refuse.into(), 1000), (accepte.into(), 1000)]);
}

#[test]
fn une_reponse_perdue_sur_la_finalisation_est_reconciliee_sans_renvoi() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 12 * MIO);
    banc.panne_nieme(
        Operation::CompleteMultipartUpload,
        nom,
        1,
        Panne::PerdreReponse,
    );
    let out = banc.depot().finir_en(0);
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::CompleteMultipartUpload),
        1,
        "finalisation rejouée à l'aveugle"
    );
    // Un incident absorbé ne fait pas de bandeau d'erreur.
    let stderr = stderr(&out);
    absent(&stderr, &["WARN", "ERROR"]);
    assert_eq!(
        c.octets_recus(),
        12 * MIO as u64,
        "des octets sont repartis"
    );
    banc.verifier_identiques(&[(nom.into(), 12 * MIO)]);
}

/// Un envoi multipart qui disparaît en route (404 sur une partie) : l'unité repart de zéro
/// dans le même passage, et le fichier arrive intact (code 0), sans attendre une relance.
#[test]
fn un_envoi_disparu_en_route_repart_de_zero_dans_le_meme_passage() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 12 * MIO);
    banc.panne_nieme(Operation::UploadPart, nom, 2, code_http(404));
    // Une place : les parties partent une à une, le compte est exact.
    banc.depot().mots("--paralleles 1").finir_en(0);
    assert_eq!(
        banc.requetes(Operation::UploadPart),
        2 + 3,
        "deux parties, puis les trois de la reprise de zéro"
    );
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
    banc.verifier_identiques(&[(nom.into(), 12 * MIO)]);
}

/// Une finalisation sans réponse, relue alors que l'envoi a disparu et que l'objet n'est pas
/// là (assemblage interrompu côté serveur) : l'objet est regardé de nouveau, puis l'unité
/// repart de zéro dans le même passage, sans finalisation rejouée à l'aveugle.
#[test]
fn une_finalisation_sans_reponse_dont_l_envoi_a_disparu_repart_de_zero() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 12 * MIO);
    let cle = banc.cle(nom);
    banc.panne(Regle::nieme(
        Operation::CompleteMultipartUpload,
        &cle,
        1,
        Panne::Coupure,
    ));
    banc.panne(Regle::nieme(Operation::ListParts, &cle, 1, code_http(404)));
    banc.depot().finir_en(0);
    let c = banc.compteurs();
    assert!(
        c.requetes(Operation::HeadObject) >= 2,
        "l'objet est regardé de nouveau avant de repartir"
    );
    assert_eq!(
        c.requetes(Operation::CompleteMultipartUpload),
        2,
        "une finalisation par envoi, aucune rejouée sur le même"
    );
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
    banc.verifier_identiques(&[(nom.into(), 12 * MIO)]);
}

#[test]
fn une_reponse_perdue_sur_l_ouverture_ne_laisse_qu_un_envoi() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 11 * MIO);
    banc.panne_nieme(
        Operation::CreateMultipartUpload,
        nom,
        1,
        Panne::PerdreReponse,
    );
    banc.depot().finir_en(0);
    assert_eq!(banc.requetes(Operation::CreateMultipartUpload), 1);
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
    banc.verifier_identiques(&[(nom.into(), 11 * MIO)]);
}

#[test]
fn une_panne_plus_longue_que_la_politique_laisse_un_echec_transitoire_que_retenter_termine() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 1000);
    banc.fichier("Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav", 1000);
    let mut regle = Regle::proportion(1.0, code_http(503));
    regle.cle = Some(banc.cle(nom));
    banc.panne(regle);
    let out = banc.depot().mots("--tentatives 3").finir_en(1);
    assert_eq!(banc.requetes_sur(Operation::PutObject, nom), 3);
    let etat = banc.etat();
    assert_eq!(etat["unites"]["echec"], 1, "{etat}");
    assert_eq!(etat["definitifs"], 0);
    let stdout = stdout(&out);
    assert!(stdout.contains("vigie retenter-echecs"), "{stdout}");

    banc.bac().pannes().effacer();
    banc.retenter().finir_en(0);
    assert_eq!(banc.etat()["unites"]["deposee"], 2);
}

#[test]
fn un_fichier_modifie_pendant_l_envoi_n_est_pas_declare_depose() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    let chemin = banc.fichier(nom, 3 * MIO);
    let relache = Relache::nouvelle();
    banc.panne(retenir_a_partir_de(
        Operation::PutObject,
        &banc.cle(nom),
        1,
        &relache,
    ));
    let enfant = banc.lancer(banc.depot());
    banc.attendre("le PUT arrive", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 1
    });
    // Le fichier grossit pendant que le serveur retient l'envoi.
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&chemin)
        .unwrap()
        .write_all(&[7; 4096])
        .unwrap();
    relache.relacher();
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 0), ("echec", 1)]);
    let etat_humain = banc.vigie().arg("etat").sortie();
    etat_humain.stdout_contient(&["LOCAL"]);
}

#[test]
fn kill_9_au_milieu_d_un_gros_fichier_puis_relance_ne_renvoie_que_la_partie_en_vol() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    let taille = 40 * MIO;
    banc.fichier(nom, taille);
    // Chaque partie traîne un peu, pour tuer le processus au milieu de l'envoi.
    banc.panne(Regle::proportion(1.0, lenteur_ms(300)));
    // Aux délais larges du banc : avec des délais courts, l'assemblage de 40 Mio dépasse 2 s
    // sur une machine chargée (la finalisation partie sans réponse ferait une autre histoire
    // que celle de cet essai, la reprise à la partie près), et une partie retenue plus d'une
    // seconde par la charge serait coupée puis renvoyée : « reçu 68 Mo pour 40 » vu une fois
    // sous la charge de six compilations.
    let options = Banc::options_rapides();
    let mut enfant = banc.lancer(banc.depot_avec(&options));
    banc.attendre("trois parties reçues", |b| {
        b.compteurs().requetes(Operation::UploadPart) >= 4
    });
    enfant.kill().unwrap(); // SIGKILL
    let _ = enfant.wait();
    banc.bac().pannes().effacer();

    banc.depot_avec(&options).finir_en(0);
    banc.verifier_identiques(&[(nom.into(), taille)]);
    // Au plus une partie renvoyée par transfert en vol au moment du kill -9 : les parties d'un
    // fichier seul partent ensemble, sur les quatre places par défaut.
    let recus = banc.compteurs().octets_recus();
    assert!(
        recus <= (taille + 4 * 5 * MIO) as u64,
        "reçu {recus} octets pour une nuit de {taille} : plus d'une partie par transfert renvoyée"
    );
    assert!(
        banc.bac().envois_en_cours(COMPARTIMENT).is_empty(),
        "envoi multipart orphelin"
    );
    assert_eq!(banc.requetes(Operation::CreateMultipartUpload), 1);
}

#[test]
fn ctrl_c_rend_130_avec_un_plan_coherent_et_la_relance_termine() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    banc.panne(Regle::proportion(1.0, lenteur_ms(400)));
    let enfant = banc.lancer(banc.depot());
    banc.attendre("des envois en cours", |b| {
        b.compteurs().requetes(Operation::PutObject) >= 2
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(10));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    // Les envois coupés par Ctrl-C ne sont pas une panne du réseau.
    out.stderr_sans(&["réseau indisponible"]);
    let etat = banc.etat();
    assert_eq!(etat["unites"]["en_cours"], 0, "plan incohérent : {etat}");
    assert!(etat["unites"]["deposee"].as_u64().unwrap() < 20);

    banc.bac().pannes().effacer();
    banc.depot().finir_en(0);
    banc.verifier_identiques(&fichiers);
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
}

#[test]
fn verifier_dit_ce_qui_manque_et_le_remet_a_deposer() {
    let banc = Banc::nouveau();
    let a = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    let b = "Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav";
    banc.fichier(a, 1000);
    banc.fichier(b, 2000);
    banc.depot().finir_en(0);
    banc.vigie().arg("verifier").finir_en(0);

    std::fs::remove_file(banc.bac().chemin_objet(COMPARTIMENT, &banc.cle(b))).unwrap();
    let out = banc.vigie().arg("verifier").finir_en(1);
    assert!(stdout(&out).contains("manquante"), "{}", texte(&out));
    assert_eq!(banc.etat()["unites"]["a_deposer"], 1);
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&[(a.into(), 1000), (b.into(), 2000)]);
}

/// Les fichiers partent dans l'ordre de leurs chemins (celui de la nuit), quelle que soit leur
/// taille : envoyer les plus gros d'abord mettait des parties de plusieurs Mio en vol à la
/// première coupure, avant que le régulateur du parallélisme ne connaisse le lien.
#[test]
fn les_fichiers_partent_dans_l_ordre_des_chemins() {
    let banc = Banc::nouveau();
    // Ni par taille croissante ni par taille décroissante.
    let tailles = [
        ("a.wav", 20_000),
        ("b.wav", 1_000),
        ("c.wav", 2_000_000),
        ("d.wav", 300_000),
    ];
    for (nom, taille) in tailles {
        banc.fichier(nom, taille);
    }
    let out = banc.depot().mots("--paralleles 1 --json").finir_en(0);
    let ordre: Vec<String> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["evenement"] == "unite_commencee")
        .map(|e| e["unite"].as_str().unwrap().to_owned())
        .collect();
    // Deux unités ouvertes par place (l'une transfère pendant que l'autre se prépare) : les
    // deux premiers chemins, dans un ordre ou l'autre, puis les suivants dans l'ordre.
    let mut premieres = ordre[..2].to_vec();
    premieres.sort();
    assert_eq!(premieres, ["a.wav", "b.wav"], "{ordre:?}");
    assert_eq!(ordre[2..], ["c.wav", "d.wav"], "{ordre:?}");
}

/// Un gros fichier seul : ses parties partent ensemble, autant que de
/// places (`--paralleles`), jamais plus. Le bac à sable retient chaque partie un moment et
/// compte celles qu'il tient en même temps : rien n'est chronométré. Sans les places de plus,
/// les parties partaient une à une (au plus une tenue à la fois).
#[test]
fn un_gros_fichier_seul_envoie_ses_parties_en_parallele_sans_depasser_le_plafond() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
    banc.fichier(nom, 6 * 5 * MIO + 1000);
    banc.panne_toujours(Operation::UploadPart, lenteur_ms(300));
    let out = banc.depot().mots("--paralleles 3").finir_en(0);
    banc.verifier_identiques(&[(nom.into(), 6 * 5 * MIO + 1000)]);
    let compteurs = banc.compteurs();
    assert_eq!(
        compteurs.requetes(Operation::UploadPart),
        7,
        "{}\n{:#?}",
        texte(&out),
        banc.decisions()
    );
    assert_eq!(
        compteurs.simultanees_max(Operation::UploadPart),
        3,
        "trois parties tenues ensemble, ni moins ni plus"
    );
}

/// Plusieurs fichiers en parties, moins de places que de fichiers : les parties ne prennent
/// que les places qu'aucun fichier n'attend, et le tout ne dépasse jamais `--paralleles`.
#[test]
fn des_parties_en_parallele_ne_depassent_jamais_le_plafond() {
    let banc = Banc::nouveau();
    let noms: Vec<String> = (0..4)
        .map(|i| format!("Car640139-2026-Pass1-A1-OB-1_20260621_22150{i}_000.wav"))
        .collect();
    for n in &noms {
        banc.fichier(n, 3 * 5 * MIO);
    }
    banc.panne_toujours(Operation::UploadPart, lenteur_ms(100));
    banc.depot().mots("--paralleles 2").finir_en(0);
    let attendus: Vec<(String, usize)> = noms.iter().map(|n| (n.clone(), 3 * 5 * MIO)).collect();
    banc.verifier_identiques(&attendus);
    let compteurs = banc.compteurs();
    assert_eq!(compteurs.requetes(Operation::UploadPart), 12);
    assert_eq!(compteurs.simultanees_max(Operation::UploadPart), 2);
}

/// Un envoi disparu (404) pendant que d'autres parties du même fichier sont en vol : l'envoi
/// n'est oublié qu'une fois ces parties revenues. Avant, il l'était aussitôt, et les parties
/// acquittées après coup restaient notées dans le plan sans envoi : la reprise de zéro les
/// croyait envoyées dans l'envoi neuf, la finalisation était refusée et l'unité échouait.
/// Ici, la deuxième partie reçoit un 404 tout de suite, les deux autres reviennent acquittées
/// un moment après, puis l'envoi disparaît vraiment (le bac à sable l'efface) : la reprise de
/// zéro ouvre un envoi neuf.
#[test]
fn un_envoi_disparu_pendant_des_parties_en_vol_repart_de_zero_sans_parties_perimees() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 15 * MIO);
    let pannes = banc.bac().pannes();
    banc.panne_nieme(Operation::UploadPart, nom, 2, code_http(404));
    banc.panne(Regle::toujours(Some(Operation::UploadPart), lenteur_ms(300)).fois(2));
    let racine = banc.bac().racine().to_owned();
    let acquittees = std::sync::Arc::new(AtomicUsize::new(0));
    let m = {
        let acquittees = std::sync::Arc::clone(&acquittees);
        mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
            let partie = q.methode == "PUT" && q.chemin.contains("partNumber=");
            if partie && r.statut == 200 && acquittees.fetch_add(1, Ordering::SeqCst) == 1 {
                // Les deux parties en vol sont acquittées : l'envoi disparaît pour de bon.
                for e in std::fs::read_dir(&racine).unwrap().flatten() {
                    let n = e.file_name().to_string_lossy().into_owned();
                    if n.starts_with(".upload-") && n.ends_with(".json") {
                        std::fs::remove_file(e.path()).unwrap();
                    }
                }
            }
        })
    };
    banc.depot_via(&m.endpoint())
        .mots("--paralleles 4")
        .finir_en(0);
    assert_eq!(pannes.en_attente(), 0, "les pannes n'ont pas frappé");
    let c = banc.compteurs();
    assert!(
        c.simultanees_max(Operation::UploadPart) >= 2,
        "les parties ne sont pas parties ensemble"
    );
    assert_eq!(
        c.requetes(Operation::CreateMultipartUpload),
        2,
        "un envoi, puis celui de la reprise de zéro"
    );
    banc.verifier_identiques(&[(nom.into(), 15 * MIO)]);
}

/// Une finalisation qui répond 404 (NoSuchUpload) alors que l'objet est assemblé : c'est ce que
/// voit une relance quand la finalisation d'un processus tué (kill -9) a été menée au bout par
/// le service pendant qu'elle relisait les parties (l'essai d'endurance l'a rencontré). Le
/// fichier n'y est pour rien : l'objet relu dit qu'il est déposé. Avant, c'était un refus
/// définitif (STOCKAGE).
#[test]
fn une_finalisation_en_404_dont_l_objet_est_assemble_est_un_depot() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 12 * MIO);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        if q.methode == "POST" && q.chemin.contains("uploadId=") && r.statut == 200 {
            r.statut = 404;
            r.corps = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchUpload</Code>\
                <Message>The specified multipart upload does not exist.</Message></Error>"
                .to_vec();
            r.remplacer_entete("content-length", &r.corps.len().to_string());
            r.remplacer_entete("content-type", "application/xml");
        }
    });
    banc.depot_via(&m.endpoint()).finir_en(0);
    let c = banc.compteurs();
    assert_eq!(c.traitees(Operation::CompleteMultipartUpload), 1);
    assert_eq!(banc.etat()["unites"]["deposee"], 1);
    banc.verifier_identiques(&[(nom.into(), 12 * MIO)]);
}

/// Ctrl-C pendant les regards qui suivent une finalisation en 404 dont l'objet est absent :
/// l'unité reste interrompue sans rien oublier (son envoi et ses parties restent dans le plan),
/// et la relance finalise sans rien renvoyer. Avant, l'envoi était oublié : la relance
/// renvoyait toutes les parties.
#[test]
fn ctrl_c_pendant_les_regards_apres_une_finalisation_en_404_n_oublie_pas_l_envoi() {
    let banc = Banc::nouveau();
    let nom = "Car640139-2026-Pass1-A1-OB-1_20260621_231500_000.wav";
    banc.fichier(nom, 12 * MIO);
    banc.panne_prochaine(Operation::CompleteMultipartUpload, code_http(404));
    // Le premier regard sur l'objet (`HeadObject`) suit la finalisation en 404 ; les suivants
    // attendent 1, 2 puis 4 s, et le serveur les retient : Ctrl-C tombe parmi eux quelle que
    // soit la charge (sans cette retenue, un essai retardé de 7 s par la charge envoyait
    // Ctrl-C après les regards).
    banc.panne(
        Regle::nieme(
            Operation::HeadObject,
            &banc.cle(nom),
            2,
            Panne::Bloquer(Duration::from_secs(120)),
        )
        .fois(1_000),
    );
    let enfant = banc.lancer(banc.depot());
    banc.attendre("le deuxième regard après la finalisation en 404", |b| {
        b.compteurs().requetes(Operation::CompleteMultipartUpload) >= 1
            && b.compteurs().requetes(Operation::HeadObject) >= 2
    });
    signal(&enfant, "INT");
    let out = attendre_fin(enfant, Duration::from_secs(60));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    let envoi: Option<String> = rusqlite::Connection::open(&banc.base)
        .unwrap()
        .query_row("SELECT envoi_multipart FROM depot_unite", [], |r| r.get(0))
        .unwrap();
    assert!(envoi.is_some(), "l'envoi a été oublié");

    banc.bac().pannes().effacer();
    banc.depot().finir_en(0);
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::UploadPart),
        3,
        "des parties sont reparties"
    );
    banc.verifier_identiques(&[(nom.into(), 12 * MIO)]);
}
