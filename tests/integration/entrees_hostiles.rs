//! Entrées hostiles : chacune doit finir sur une erreur claire, un code de sortie du contrat
//! (0, 1, 2, 3, 4) et un plan intact (ce qu'il dit déposé l'est, rien n'est perdu).
//!
//! Fichiers (illisible, supprimé ou qui grossit pendant l'envoi, vide, liens en boucle),
//! dossiers (vide, nom non UTF-8), base (corrompue, d'une version future, sur un disque
//! plein), et réponses de serveur malformées (XML ou JSON tronqué, en-têtes absurdes,
//! Retry-After géant ou illisible, URL signée qui vise un autre hôte).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle, Relache, RetryAfter};

const NOM_A: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";
const NOM_B: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav";

fn grossir(chemin: &std::path::Path, octets: usize) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(chemin)
        .unwrap()
        .write_all(&vec![7u8; octets])
        .unwrap();
}

// ------------------------------------------------------------------------------ fichiers

/// Les tests tournent souvent en root, pour qui `chmod 000` n'empêche pas la lecture. Dans ce
/// cas, `vigie` est lancé sous l'utilisateur `nobody` (65534), propriétaire du dossier de test :
/// le fichier en 000 lui est réellement illisible.
#[cfg(unix)]
fn sans_privilege(banc: &Banc, mut c: Command) -> Command {
    use std::os::unix::process::CommandExt;
    if est_privilegie(banc) {
        c.uid(65534).gid(65534);
    }
    c
}

#[cfg(unix)]
fn est_privilegie(banc: &Banc) -> bool {
    let sonde = banc.dossier.path().join("sonde-droits");
    std::fs::write(&sonde, b"x").unwrap();
    std::fs::set_permissions(&sonde, std::fs::Permissions::from_mode(0o000)).unwrap();
    let lisible = std::fs::File::open(&sonde).is_ok();
    std::fs::remove_file(&sonde).unwrap();
    lisible
}

#[cfg(unix)]
fn donner_a_nobody(chemin: &std::path::Path) {
    std::os::unix::fs::chown(chemin, Some(65534), Some(65534)).unwrap();
    if chemin.is_dir() {
        for e in std::fs::read_dir(chemin).unwrap().flatten() {
            donner_a_nobody(&e.path());
        }
    }
}

#[cfg(unix)]
#[test]
fn fichier_illisible_000_code_2_rien_n_est_envoye_plan_intact() {
    let banc = Banc::avec_fichier(NOM_A, 30_000);
    if est_privilegie(&banc) {
        donner_a_nobody(banc.dossier.path());
        std::os::unix::fs::chown(banc.dossier.path(), Some(65534), Some(65534)).unwrap();
        // Le serveur du bac à sable reste à root ; vigie n'y touche que par le réseau.
    }
    sans_privilege(&banc, banc.depot()).finir_en(0);
    let avant = banc.etat();
    let requetes = banc.compteurs().requetes_total();

    let b = banc.fichier(NOM_B, 30_000);
    if est_privilegie(&banc) {
        donner_a_nobody(&b);
    }
    std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = sans_privilege(&banc, banc.depot()).finir_en(2);
    let e = stderr(&out);
    contient(&e, &[NOM_B, "illisible", "rien n'a été envoyé"]);
    assert_eq!(
        banc.compteurs().requetes_total(),
        requetes,
        "des requêtes sont parties"
    );
    assert_eq!(banc.etat(), avant, "le plan a changé");
}

#[cfg(unix)]
#[test]
fn fichier_vide_liens_en_boucle_et_lien_vers_le_parent_ne_partent_pas_et_sont_signales() {
    let banc = Banc::avec_fichier(NOM_A, 10_000);
    banc.fichier("sous/vide.wav", 0);
    let n = &banc.nuit;
    std::os::unix::fs::symlink("boucle-b.wav", n.join("boucle-a.wav")).unwrap();
    std::os::unix::fs::symlink("boucle-a.wav", n.join("boucle-b.wav")).unwrap();
    std::os::unix::fs::symlink("..", n.join("sous/retour")).unwrap();
    std::os::unix::fs::symlink(n, n.join("sous/moi-meme")).unwrap();
    let out = banc.depot().finir_en(0);
    let e = stderr(&out);
    assert!(e.contains("vide") && e.contains("sous/vide.wav"), "{e}");
    for lien in [
        "boucle-a.wav",
        "boucle-b.wav",
        "sous/retour",
        "sous/moi-meme",
    ] {
        assert!(e.contains(lien), "lien {lien} non signalé : {e}");
    }
    assert!(e.contains("non suivis"), "{e}");
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, PREFIXE),
        vec![banc.cle(NOM_A)],
        "seul le vrai fichier part"
    );
    assert_eq!(banc.etat()["unites"]["deposee"], 1);
}

/// En saison, ce qui n'est pas envoyé est dit comme en mode une nuit, par la même règle : une
/// séquence vide et une nuit entière derrière un lien symbolique figurent au bilan (texte) et
/// dans l'événement `non_envoyes` (JSON). Sans cela, la bénévole effacerait la carte.
#[cfg(unix)]
#[test]
fn en_saison_une_sequence_vide_et_une_nuit_derriere_un_lien_sont_dites_au_bilan() {
    let banc = Banc::nouveau();
    let depose = "PA1/Car640139-2026-Pass1-A1-PA1_20260621_221500_000.wav";
    let vide = "PA1/Car640139-2026-Pass1-A1-PA1_20260621_221501_000.wav";
    banc.fichier(depose, 3_000);
    banc.fichier(vide, 0);
    banc.fichier("PA1/notes.txt", 10);
    let ailleurs = banc.dossier.path().join("ailleurs");
    std::fs::create_dir_all(&ailleurs).unwrap();
    let derriere = "Car640139-2026-Pass1-A1-PA1_20260622_221500_000.wav";
    std::fs::write(ailleurs.join(derriere), contenu(derriere, 3_000)).unwrap();
    std::os::unix::fs::symlink(&ailleurs, banc.nuit.join("nuit-du-22")).unwrap();
    let out = super::saison::depot_saison(&banc).sortie();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(banc.bac().fichiers().len(), 1);
    // Dans le bilan (sortie standard), après les nuits.
    let bilan = stdout(&out);
    contient(
        &bilan,
        &[
            "Non envoyés : 3 fichiers",
            &format!("fichier(s) vide(s) ignoré(s) : {vide}"),
            "liens symboliques non suivis : nuit-du-22",
            "1 autre(s) (PA1/notes.txt)",
        ],
    );
    assert!(
        bilan.find("Saison :") < bilan.find("Non envoyés"),
        "{bilan}"
    );
    // En JSON : l'événement `non_envoyes`, comme en mode une nuit.
    let out = super::saison::depot_saison(&banc).arg("--json").sortie();
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let lignes = lignes_json(&out.stdout);
    let n = lignes
        .iter()
        .find(|l| l["evenement"] == "non_envoyes")
        .unwrap_or_else(|| panic!("pas de non_envoyes : {}", texte(&out)));
    assert_eq!(n["vides"], serde_json::json!([vide]));
    assert_eq!(n["liens_non_suivis"], serde_json::json!(["nuit-du-22"]));
    assert_eq!(n["autres"], serde_json::json!(["PA1/notes.txt"]));
    // Et le mode une nuit dit la même chose, par la même règle.
    let mut c = banc.vigie_plateforme();
    c.arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--json", "--api"])
        .arg(banc.bac().api())
        .args(Banc::options_rapides());
    let out = c.sortie();
    let lignes = lignes_json(&out.stdout);
    let une_nuit = lignes
        .iter()
        .find(|l| l["evenement"] == "non_envoyes")
        .unwrap_or_else(|| panic!("pas de non_envoyes : {}", texte(&out)));
    assert_eq!(une_nuit["vides"], n["vides"]);
    assert_eq!(une_nuit["liens_non_suivis"], n["liens_non_suivis"]);
}

#[cfg(unix)]
#[test]
fn dossier_vide_de_fichiers_vides_et_dossier_au_nom_non_utf8_code_2() {
    use std::os::unix::ffi::OsStrExt;
    let banc = Banc::avec_fichier("a.wav", 0);
    banc.fichier("b.wav", 0);
    let out = banc.depot().finir_en(2);
    out.stderr_contient(&["aucun enregistrement", "ignoré"]);

    let bizarre = banc
        .dossier
        .path()
        .join(std::ffi::OsStr::from_bytes(b"nuit-\xe9t\xe9"));
    std::fs::create_dir_all(&bizarre).unwrap();
    std::fs::write(bizarre.join(NOM_A), contenu(NOM_A, 100)).unwrap();
    let mut c = banc.vigie();
    c.arg("depot")
        .arg(&bizarre)
        .args(["--vers", &format!("s3://{COMPARTIMENT}/{PREFIXE}")])
        .args(["--endpoint-url", &banc.bac().endpoint()]);
    let out = c.finir_en(2);
    assert!(stderr(&out).contains("UTF-8"), "{}", texte(&out));
    assert_eq!(banc.compteurs().requetes_total(), 0);
}

#[test]
fn fichier_supprime_pendant_l_envoi_s3_echec_local_puis_sort_du_plan() {
    let banc = Banc::avec_fichier(NOM_A, 20_000);
    let b = banc.fichier(NOM_B, 2 * MIO);
    let relache = Relache::nouvelle();
    banc.panne(retenir_a_partir_de(
        Operation::PutObject,
        &banc.cle(NOM_B),
        1,
        &relache,
    ));
    let enfant = banc.lancer(banc.depot());
    banc.attendre("le PUT de b arrive", |bac| {
        bac.compteurs()
            .requetes_cle(Operation::PutObject, &banc.cle(NOM_B))
            >= 1
    });
    std::fs::remove_file(&b).unwrap();
    relache.relacher();
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 1), ("echec", 1)]);
    let humain = banc.vigie().arg("etat").sortie();
    humain.stdout_contient(&["LOCAL", "disparu"]);
    // La relance constate la disparition : l'unité sort du plan, le reste est intact.
    let out = banc.depot().finir_en(0);
    assert!(stderr(&out).contains("1 disparu(s)"), "{}", texte(&out));
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 1), ("echec", 0)]);
    banc.verifier_identiques(&[(NOM_A.into(), 20_000)]);
}

/// Un fichier qui grossit pendant son envoi vers la plateforme (l'enregistreur écrit encore) :
/// la tranche partie est cohérente (son MD5 est juste), mais ce n'est plus le fichier. Il ne
/// doit pas être finalisé (une finalisation est définitive : la plateforme refuse ensuite tout
/// nouvel envoi de ce titre), et la relance doit déposer le fichier entier.
#[test]
fn fichier_qui_grossit_pendant_l_envoi_vers_la_plateforme_n_est_pas_finalise() {
    let banc = Banc::nouveau();
    let simple = nom(1);
    let gros = nom(2);
    let chemin_simple = banc.fichier(&simple, 2 * MIO);
    let chemin_gros = banc.fichier(&gros, 7 * MIO);
    let cle = |titre: &str| vigie_bac_a_sable::cle_fichier(PARTICIPATION, titre).unwrap();
    // Une seule poignée retient les deux envois jusqu'à ce que les fichiers aient grossi.
    let relache = Relache::nouvelle();
    banc.panne(retenir_a_partir_de(
        Operation::PutObject,
        &cle(&simple),
        1,
        &relache,
    ));
    banc.panne(retenir_a_partir_de(
        Operation::UploadPart,
        &cle(&gros),
        2,
        &relache,
    ));
    let enfant = banc.lancer(banc.depot_plateforme());
    banc.attendre("les deux envois sont en vol", |bac| {
        bac.compteurs()
            .requetes_cle(Operation::PutObject, &cle(&simple))
            >= 1
            && bac
                .compteurs()
                .requetes_cle(Operation::UploadPart, &cle(&gros))
                >= 2
    });
    grossir(&chemin_simple, 4096);
    grossir(&chemin_gros, 4096);
    relache.relacher();
    let out = attendre_fin(enfant, Duration::from_secs(30));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    for titre in [&simple, &gros] {
        let f = banc.bac().fichier(PARTICIPATION, titre).unwrap();
        assert!(
            !f.disponible,
            "{titre} finalisé alors qu'il a changé pendant l'envoi"
        );
    }
    let etat = banc.etat();
    assert_unites(&etat, &[("echec", 2), ("deposee", 0)]);
    assert!(
        stdout(&banc.vigie().arg("etat").sortie()).contains("LOCAL"),
        "cause LOCAL attendue"
    );

    // La relance replanifie (nouvelle taille) et dépose le fichier entier.
    banc.depot_plateforme().finir_en(0);
    for (titre, chemin) in [(&simple, &chemin_simple), (&gros, &chemin_gros)] {
        assert!(
            banc.objet_plateforme(PARTICIPATION, titre) == std::fs::read(chemin).unwrap(),
            "{titre} : ce n'est pas le fichier entier"
        );
    }
    assert_eq!(banc.bac().fichiers().len(), 2);
    assert!(banc.bac().envois_orphelins().is_empty());
}

// ------------------------------------------------------------------ réponses du serveur

fn petite_nuit(banc: &Banc, n: usize) -> Vec<(String, usize)> {
    (1..=n)
        .map(|i| {
            let (nom, taille) = (nom(i), 10_000 + i * 1_000);
            banc.fichier(&nom, taille);
            (nom, taille)
        })
        .collect()
}

/// `Retry-After: 99999999999999999999` (au-delà de u64) : l'unité qui le reçoit s'arrête
/// aussitôt (l'attente dépasse l'échéance) au lieu d'attendre ; les autres unités ne doivent
/// pas être retenues pour autant (un an d'attente pour toute la nuit).
#[test]
fn un_retry_after_geant_arrete_l_unite_sans_bloquer_la_nuit() {
    let banc = Banc::nouveau();
    let fichiers = petite_nuit(&banc, 6);
    banc.panne(Regle::nieme(
        Operation::PutObject,
        &banc.cle(&fichiers[0].0),
        1,
        Panne::Statut {
            code: 503,
            retry_after: Some(RetryAfter::Brut("99999999999999999999".into())),
        },
    ));
    let debut = Instant::now();
    let enfant = banc.lancer({
        let mut c = banc.depot();
        c.mots("--paralleles 2");
        c
    });
    let out = attendre_fin(enfant, Duration::from_secs(60));
    assert!(
        debut.elapsed() < Duration::from_secs(20),
        "la nuit a attendu {:?}",
        debut.elapsed()
    );
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 5), ("echec", 1)]);
    assert!(
        banc.decisions()
            .iter()
            .any(|d| d.raison.as_deref() == Some("retry_after_depasse_echeance")),
        "raison d'arrêt absente du journal"
    );
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
}

/// Retry-After illisible (texte, négatif, décimal, vide d'espaces) : ni rejeu immédiat ni
/// attente infinie, on retombe sur le backoff borné (`--attente-max 0.2`).
#[test]
fn un_retry_after_illisible_retombe_sur_le_backoff() {
    let banc = Banc::nouveau();
    let fichiers = petite_nuit(&banc, 4);
    for (i, valeur) in ["bientôt", "-5", "1.5", "  "].iter().enumerate() {
        banc.panne(Regle::nieme(
            Operation::PutObject,
            &banc.cle(&fichiers[i].0),
            1,
            Panne::Statut {
                code: 503,
                retry_after: Some(RetryAfter::Brut((*valeur).into())),
            },
        ));
    }
    banc.depot().finir_en(0);
    banc.verifier_identiques(&fichiers);
    let rejeux: Vec<_> = banc
        .decisions()
        .into_iter()
        .filter(|d| d.statut == Some(503))
        .collect();
    assert_eq!(rejeux.len(), 4, "{rejeux:#?}");
    for d in &rejeux {
        let a = d.attente_ms.unwrap_or(-1);
        assert!(
            (1..=200).contains(&a),
            "attente {a} ms : ni immédiate ni au-delà du plafond ({d:?})"
        );
    }
}

/// Une altération qui ne frappe qu'une fois.
fn une_fois() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false))
}

fn premiere(drapeau: &std::sync::atomic::AtomicBool) -> bool {
    !drapeau.swap(true, std::sync::atomic::Ordering::SeqCst)
}

fn tronquer(corps: &mut Vec<u8>) {
    let moitie = corps.len() / 2;
    corps.truncate(moitie);
}

/// Réponses S3 malformées, une fois chacune : XML tronqué à l'ouverture et à la finalisation
/// d'un envoi multipart (issue inconnue : réconciliation, jamais un second envoi), longueur
/// illisible sur une relecture (rejouée), somme de contrôle absurde et ETag géant sur un dépôt.
#[test]
fn reponses_s3_tronquees_ou_absurdes_absorbees_ou_dites_clairement() {
    let banc = Banc::nouveau();
    let gros = nom(1);
    let fichiers = banc.fichiers(vec![
        (gros.clone(), 7 * MIO + 5),
        (nom(2), 20_000),
        (nom(3), 30_000),
    ]);
    let drapeaux = [une_fois(), une_fois(), une_fois(), une_fois(), une_fois()];
    let [ouverture, finalisation, tete, somme, etag] = drapeaux.clone();
    let (cle2, cle3) = (banc.cle(&nom(2)), banc.cle(&nom(3)));
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        let post = q.methode == "POST";
        // Le SDK ajoute « ?x-id=PutObject » : on compare le chemin seul.
        let chemin = q.chemin.split('?').next().unwrap_or_default();
        // XML tronqué à l'ouverture, puis à la finalisation de l'envoi multipart.
        if (post && q.chemin.ends_with("?uploads") && premiere(&ouverture))
            || (post && q.chemin.contains("uploadId=") && premiere(&finalisation))
        {
            tronquer(&mut r.corps);
        } else if q.methode == "HEAD" && premiere(&tete) {
            r.remplacer_entete("content-length", "douze");
        } else if q.methode == "PUT" && chemin.ends_with(&cle2) && premiere(&somme) {
            r.remplacer_entete("x-amz-checksum-crc32c", "@@pas-du-base64@@");
        } else if q.methode == "PUT" && chemin.ends_with(&cle3) && premiere(&etag) {
            r.remplacer_entete("etag", &format!("\"{}", "x".repeat(8000)));
        }
    });
    let out = banc.depot_via(&m.endpoint()).sortie();
    assert!(
        drapeaux
            .iter()
            .all(|d| d.load(std::sync::atomic::Ordering::SeqCst)),
        "une altération n'a pas eu lieu"
    );
    // La somme absurde : le dépôt n'est pas cru, échec transitoire dit clairement.
    assert_eq!(code(&out), 1, "{}", texte(&out));
    out.stderr_contient(&["somme de contrôle"]);
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 2), ("echec", 1)]);
    let c = banc.compteurs();
    assert_eq!(
        c.traitees(Operation::CreateMultipartUpload),
        1,
        "un second envoi a été ouvert"
    );
    assert_eq!(c.traitees(Operation::CompleteMultipartUpload), 1);
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());

    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
    banc.vigie().arg("verifier").finir_en(0);
}

/// Réponses de la plateforme malformées, une fois chacune : JSON tronqué sur une déclaration
/// multipart et sur une déclaration simple (traitées : issue inconnue, réconciliées sans
/// doublon ni envoi orphelin), page HTML au lieu du JSON d'un fichier (relecture rejouée),
/// URL de partie absente, et 502 d'une passerelle après une finalisation pourtant faite.
#[test]
fn reponses_plateforme_tronquees_ou_absurdes_sans_doublon_ni_orphelin() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers(vec![
        (nom(1), 7 * MIO + 5),
        (nom(2), 20_000),
        (nom(3), 30_000),
    ]);
    let drapeaux = [une_fois(), une_fois(), une_fois(), une_fois(), une_fois()];
    let [multi, simple, lecture, url, passerelle] = drapeaux.clone();
    let titre_simple = nom(2);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        let corps = String::from_utf8_lossy(&q.corps);
        let declaration = q.methode == "POST" && q.chemin == "/api/v1/fichiers";
        // JSON tronqué sur une déclaration multipart, puis sur une déclaration simple.
        if (declaration && corps.contains("\"multipart\":true") && premiere(&multi))
            || (declaration && corps.contains(&titre_simple) && premiere(&simple))
        {
            tronquer(&mut r.corps);
        } else if q.methode == "GET"
            && q.chemin.starts_with("/api/v1/fichiers/")
            && premiere(&lecture)
        {
            r.remplacer_entete("content-type", "text/html");
            r.corps = b"<html><body>Maintenance</body></html>".to_vec();
        } else if q.methode == "PUT" && q.chemin.ends_with("/multipart") && premiere(&url) {
            r.corps = b"{}".to_vec();
        } else if q.methode == "POST"
            && q.chemin.starts_with("/api/v1/fichiers/")
            && r.statut == 200
            && premiere(&passerelle)
        {
            r.statut = 502;
            r.remplacer_entete("content-type", "text/html");
            r.corps = b"<html><h1>502 Bad Gateway</h1></html>".to_vec();
        }
    });
    let mut depot = banc.vigie_plateforme();
    depot
        .arg("depot")
        .arg(&banc.nuit)
        .args(["--participation", PARTICIPATION, "--api"])
        .arg(format!("{}/api/v1", m.endpoint()))
        .args(Banc::options_rapides())
        .mots("--paralleles 1");
    let out = depot.sortie();
    assert!(
        drapeaux
            .iter()
            .all(|d| d.load(std::sync::atomic::Ordering::SeqCst)),
        "une altération n'a pas eu lieu"
    );
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(fichiers.len(), 3);
    banc.verifier_sur_la_plateforme(PARTICIPATION, &fichiers);
}

/// Une plateforme qui rend des URL signées vers `cible` (au lieu de son propre S3).
fn plateforme_detournee(banc: &Banc, cible: &str) -> mandataire::Mandataire {
    let origine = banc.bac().endpoint();
    let cible = cible.to_owned();
    mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |_, r| {
        let texte = String::from_utf8_lossy(&r.corps).into_owned();
        if texte.contains("s3_signed_url") {
            r.corps = texte.replace(&origine, &cible).into_bytes();
        }
    })
}

fn depot_via_api(banc: &Banc, api: &str) -> Command {
    let mut c = banc.depot_dans(PARTICIPATION, api);
    c.args(Banc::options_rapides()).mots("--attente-reseau 3");
    c
}

/// La plateforme rend des URL signées qui visent un autre hôte que le sien. `vigie` ne peut
/// pas savoir quel stockage elle utilise (AWS aujourd'hui, un autre demain) : il suit l'URL,
/// mais n'y envoie jamais le jeton, et refuse, avant toute connexion, une URL qui ferait
/// circuler les données et la signature en clair (http:// hors de la boucle locale) ou qui
/// n'est pas du HTTP.
#[test]
fn url_signee_vers_un_autre_hote_jamais_de_jeton_et_jamais_en_clair_hors_boucle_locale() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers(vec![(nom(1), 7 * MIO + 5), (nom(2), 20_000)]);
    // 1. Un autre hôte (ici un second port de la boucle locale, qui relaie vers le S3 du bac) :
    //    les octets y partent, sans jeton ni en-tête d'autorisation.
    let ailleurs = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |_, _| {});
    let api = plateforme_detournee(&banc, &ailleurs.endpoint());
    depot_via_api(&banc, &format!("{}/api/v1", api.endpoint())).finir_en(0);
    let vues = ailleurs.requetes();
    assert!(
        vues.len() >= 3,
        "les PUT ne sont pas passés par l'autre hôte"
    );
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{JETON}:"));
    for q in &vues {
        for (n, v) in &q.entetes {
            assert!(
                !n.eq_ignore_ascii_case("authorization")
                    && !v.contains(JETON)
                    && !v.contains(&basic),
                "jeton envoyé à l'hôte des URL signées : {n}: {v}"
            );
        }
    }
    for (n, t) in &fichiers {
        assert!(banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t));
    }

    // 2. En clair hors de la boucle locale, ou pas du HTTP : refusé avant toute connexion.
    for (i, cible) in ["http://192.0.2.10:9", "file:///tmp/ailleurs"]
        .iter()
        .enumerate()
    {
        let titre = nom(10 + i);
        banc.fichier(&titre, 20_000);
        let api = plateforme_detournee(&banc, cible);
        let debut = Instant::now();
        let out = depot_via_api(&banc, &format!("{}/api/v1", api.endpoint())).sortie();
        assert!(
            debut.elapsed() < Duration::from_secs(10),
            "{cible} : {:?}",
            debut.elapsed()
        );
        assert_eq!(code(&out), 3, "{cible} : {}", texte(&out));
        let e = stderr(&out);
        assert!(e.contains("URL signée"), "{cible} : {e}");
        assert!(
            !e.contains("Signature="),
            "{cible} : signature dans le message : {e}"
        );
        let f = banc.bac().fichier(PARTICIPATION, &titre).unwrap();
        assert!(!f.disponible, "{cible} : finalisé sans octets");
        // Le fichier fautif retiré, la nuit repart normalement.
        std::fs::remove_file(banc.nuit.join(&titre)).unwrap();
    }
}

// -------------------------------------------------------------------------------- base

/// Une base dont les pages de données sont abîmées (l'en-tête reste lisible) : toute commande
/// la refuse en code 2, sans l'écrire, sans rien envoyer.
#[test]
fn base_abimee_ou_d_une_version_future_refusee_par_depot_sans_rien_envoyer_ni_ecrire() {
    let banc = Banc::avec_fichier(NOM_A, 10_000);
    banc.depot().finir_en(0);
    banc.fichier(NOM_B, 10_000);
    let requetes = banc.compteurs().requetes_total();
    let wal = banc.base.with_extension("sqlite-wal");
    assert!(
        !wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0,
        "WAL non vidé à la fermeture"
    );
    let saine = std::fs::read(&banc.base).unwrap();

    // Pages de données abîmées.
    let mut abimee = saine.clone();
    for o in abimee.iter_mut().skip(4096) {
        *o = 0x42;
    }
    std::fs::write(&banc.base, &abimee).unwrap();
    for args in [vec!["etat"], vec!["retenter-echecs"]] {
        let out = banc.vigie().args(&args).sortie();
        assert_eq!(code(&out), 2, "{args:?} : {}", texte(&out));
        assert!(
            stderr(&out).contains("n'a pas été modifiée"),
            "{args:?} : {}",
            texte(&out)
        );
    }
    let out = banc.depot().finir_en(2);
    assert!(stderr(&out).contains("--base"), "{}", texte(&out));
    assert_eq!(std::fs::read(&banc.base).unwrap(), abimee, "base écrite");

    // Version future.
    std::fs::write(&banc.base, &saine).unwrap();
    {
        let c = rusqlite::Connection::open(&banc.base).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
    }
    let future = std::fs::read(&banc.base).unwrap();
    for mut c in [banc.depot(), banc.retenter()] {
        let out = c.finir_en(2);
        assert!(stderr(&out).contains("plus récente"), "{}", texte(&out));
    }
    assert_eq!(std::fs::read(&banc.base).unwrap(), future, "base écrite");
    assert_eq!(
        banc.compteurs().requetes_total(),
        requetes,
        "des requêtes sont parties"
    );
}

/// Un petit système de fichiers (tmpfs) monté pour le test, démonté à la fin.
struct Montage(std::path::PathBuf);

impl Montage {
    fn monter(point: &std::path::Path, taille: &str) -> Option<Montage> {
        std::fs::create_dir_all(point).unwrap();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={taille},mode=0700"),
                "tmpfs",
            ])
            .arg(point)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Montage(point.to_owned()))
    }
}

impl Drop for Montage {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Remplit le disque : rend le fichier de remplissage.
fn remplir(dossier: &std::path::Path) -> std::path::PathBuf {
    let chemin = dossier.join("remplissage");
    let mut f = std::fs::File::create(&chemin).unwrap();
    let bloc = vec![0u8; 4096];
    while f.write_all(&bloc).is_ok() {}
    chemin
}

/// La base sur un disque qui se remplit en plein passage : le passage s'arrête sur une erreur
/// qui dit quoi faire, le plan reste lisible et vrai (rien n'y est noté déposé qui ne le soit),
/// et une fois de la place libérée, la relance termine sans rien perdre ni doubler.
#[test]
fn base_sur_un_disque_plein_arret_clair_plan_intact_puis_reprise() {
    let banc = Banc::nouveau();
    let point = banc.dossier.path().join("petit-disque");
    let Some(_montage) = Montage::monter(&point, "2m") else {
        eprintln!(
            "NON VÉRIFIÉ : impossible de monter un tmpfs ici (droits insuffisants) ; \
             le disque plein n'a pas pu être simulé"
        );
        return;
    };
    let base = point.join("vigie.sqlite");
    let fichiers = petite_nuit(&banc, 30);
    let avec_base = |mut c: Command| {
        c.env("VIGIE_BASE", &base);
        c
    };
    // La base est créée (toutes ses migrations passées : une simulation n'écrit rien, pas
    // même la base), puis le disque se remplit entièrement : la base ne peut même plus ouvrir
    // son journal. Rien ne part. Sans cette base créée d'avance, la place libérée plus bas
    // servirait d'abord aux migrations, dont le journal grandit avec leur nombre.
    avec_base(banc.depot()).arg("--simulation").finir_en(0);
    assert!(!base.exists(), "une simulation a écrit la base");
    drop(vigie::plan::Base::ouvrir(&base).unwrap());
    let remplissage = remplir(&point);
    let out = avec_base(banc.depot()).finir_en(2);
    assert!(stderr(&out).contains("plein"), "{}", texte(&out));
    assert_eq!(banc.compteurs().requetes_total(), 0);

    // Un peu de place (de quoi ouvrir la base, déjà créée, et écrire quelques transitions) :
    // le disque se remplit en plein passage.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&remplissage)
        .unwrap();
    let longueur = f.metadata().unwrap().len();
    f.set_len(longueur - 200 * 1024).unwrap();
    drop(f);
    let out = avec_base(banc.depot()).mots("--paralleles 1").sortie();
    let e = stderr(&out);
    assert!(e.contains("plein"), "{}", texte(&out));
    assert!(!e.contains("panicked"), "{e}");
    // Des envois sont partis : pas le code 2 (« rien n'a été envoyé ») mais 1 (relancer après
    // avoir libéré de la place).
    assert_eq!(code(&out), 1, "{}", texte(&out));
    assert!(e.contains("Relancez"), "{e}");

    // Tout ce que le plan dit déposé l'est vraiment.
    std::fs::remove_file(&remplissage).unwrap();
    let c = rusqlite::Connection::open(&base).unwrap();
    let deposees: Vec<String> = c
        .prepare("SELECT chemin FROM depot_unite WHERE etat = 'deposee'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    drop(c);
    for chemin in &deposees {
        let taille = fichiers.iter().find(|(n, _)| n == chemin).unwrap().1;
        banc.verifier_identiques(&[(chemin.clone(), taille)]);
    }
    avec_base(banc.depot()).finir_en(0);
    banc.verifier_identiques(&fichiers);
    let etat = avec_base(banc.vigie()).mots("etat --json").sortie();
    let etat: serde_json::Value = serde_json::from_slice(&etat.stdout).unwrap();
    assert_eq!(etat["unites"]["deposee"], 30, "{etat}");
    assert_eq!(
        banc.objets_sous(COMPARTIMENT, PREFIXE).len(),
        30,
        "objet en double ou en trop"
    );
}

/// La plateforme répond 500 à chaque finalisation, et la relecture montre chaque fois le
/// fichier non finalisé : la finalisation repart tant que la politique le permet, puis l'issue
/// est connue (rien n'est finalisé). Ce n'est pas une unité « incertaine » à réconcilier sans
/// fin, mais un échec transitoire qui dit la réponse de la plateforme ; retenter-echecs termine
/// une fois la plateforme rétablie.
#[test]
fn finalisation_toujours_refusee_echec_qui_dit_pourquoi_pas_issue_inconnue() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    banc.fichier(&titre, 20_000);
    banc.panne_toujours(Operation::ApiFinaliser, code_http(500));
    banc.depot_plateforme().finir_en(1);
    let etat = banc.etat();
    assert_unites(&etat, &[("incertaine", 0), ("echec", 1)]);
    let humain = stdout(&banc.vigie().arg("etat").sortie());
    assert!(
        humain.contains("500"),
        "la réponse de la plateforme n'est pas dite : {humain}"
    );
    assert!(!banc.finalise(PARTICIPATION, &titre));
    // Dans le budget d'une seule émission (7 tentatives, relectures comprises).
    let finalisations = banc.requetes(Operation::ApiFinaliser);
    assert!(
        (2..=4).contains(&finalisations),
        "{finalisations} finalisations"
    );
    banc.bac().pannes().effacer();
    banc.retenter_plateforme().finir_en(0);
    assert!(banc.objet_plateforme(PARTICIPATION, &titre) == contenu(&titre, 20_000));
}

/// Une ouverture d'envoi multipart refusée à chaque fois (500, issue inconnue pour une
/// écriture non rejouable), et la relecture des envois ouverts montre chaque fois qu'aucun ne
/// l'a été : l'ouverture repart tant que la politique le permet, puis l'issue est connue. Échec
/// transitoire qui dit la réponse du service, pas une unité « incertaine » ; retenter-echecs
/// termine.
#[test]
fn ouverture_toujours_refusee_echec_qui_dit_pourquoi_pas_issue_inconnue() {
    let banc = Banc::nouveau();
    let titre = nom(1);
    banc.fichier(&titre, 6 * MIO);
    banc.panne_toujours(Operation::CreateMultipartUpload, code_http(500));
    banc.depot().finir_en(1);
    let etat = banc.etat();
    assert_unites(&etat, &[("incertaine", 0), ("echec", 1)]);
    let humain = stdout(&banc.vigie().arg("etat").sortie());
    assert!(
        humain.contains("500"),
        "la réponse du service n'est pas dite : {humain}"
    );
    assert!(banc.bac().envois_en_cours(COMPARTIMENT).is_empty());
    let ouvertures = banc.requetes(Operation::CreateMultipartUpload);
    assert!((2..=4).contains(&ouvertures), "{ouvertures} ouvertures");
    banc.bac().pannes().effacer();
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&[(titre, 6 * MIO)]);
}

/// Une base qu'on ne peut pas écrire (son dossier sans droit d'écriture pour qui lance
/// `vigie`) : `etat` et `plans` la lisent telle quelle (code 0, une ligne le dit), sans y
/// toucher ; `depot` s'arrête (code 2, rien n'est envoyé) en disant où mettre la base
/// (`--base`, `VIGIE_BASE`). Puis, quand la machine le permet (`unshare` et `mount`), la même
/// base sur un système de fichiers en lecture seule : le message le dit, au lieu de
/// « impossible d'ouvrir le fichier : son dossier existe-t-il ? ».
#[cfg(unix)]
#[test]
fn une_base_en_lecture_seule_se_lit_et_dit_ou_la_mettre() {
    let banc = Banc::avec_fichier(NOM_A, 10_000);
    banc.depot().finir_en(0);
    let config = banc.base.parent().unwrap().to_owned();
    let octets_de_la_base = std::fs::read(&banc.base).unwrap();
    // Un dossier où `vigie` (nobody, si l'essai tourne en root) ne peut pas écrire.
    for d in [banc.dossier.path(), config.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&banc.base, std::fs::Permissions::from_mode(0o644)).unwrap();
    if !est_privilegie(&banc) {
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let lire = |commande: &str| {
        let mut c = banc.vigie();
        c.arg(commande);
        c
    };
    for commande in ["etat", "plans"] {
        let out = sans_privilege(&banc, lire(commande)).output().unwrap();
        assert_eq!(code(&out), 0, "{}", texte(&out));
        assert!(
            stdout(&out).contains(chemin_str(&banc.nuit)),
            "{}",
            texte(&out)
        );
        assert!(
            stderr(&out).contains("ne peut pas être écrite"),
            "{}",
            texte(&out)
        );
    }
    let requetes = banc.compteurs().requetes_total();
    let out = sans_privilege(&banc, banc.depot()).output().unwrap();
    assert_eq!(code(&out), 2, "{}", texte(&out));
    assert!(stderr(&out).contains("VIGIE_BASE"), "{}", texte(&out));
    assert_eq!(banc.compteurs().requetes_total(), requetes);
    assert!(
        std::fs::read(&banc.base).unwrap() == octets_de_la_base,
        "base modifiée"
    );

    // Sur un système de fichiers en lecture seule : un montage lié, dans un espace de noms à
    // part (rien n'est monté hors de la commande).
    let en_lecture_seule = |c: Command| {
        let mut u = Command::new("unshare");
        u.env_clear()
            .envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .args(["-m", "--", "sh", "-c"])
            .arg("mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"")
            .arg(&config)
            .arg(c.get_program())
            .args(c.get_args());
        u.output().unwrap()
    };
    let sonde = en_lecture_seule(lire("plans"));
    if !est_privilegie(&banc) || code(&sonde) != 0 {
        eprintln!(
            "base sur un système de fichiers en lecture seule : partie sautée (unshare -m et \
             mount le demandent) : {}",
            texte(&sonde)
        );
        return;
    }
    let out = en_lecture_seule(lire("etat"));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(
        stderr(&out).contains("ne peut pas être écrite"),
        "{}",
        texte(&out)
    );
    let out = en_lecture_seule(banc.depot());
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = stderr(&out);
    assert!(
        e.contains("système de fichiers en lecture seule")
            && e.contains("--base FICHIER (ou VIGIE_BASE)"),
        "{e}"
    );
    assert!(!e.contains("son dossier existe-t-il"), "{e}");
    assert_eq!(banc.compteurs().requetes_total(), requetes);
}
