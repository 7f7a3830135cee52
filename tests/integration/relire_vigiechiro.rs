//! Relire la plateforme Vigie-Chiro : avant d'envoyer, savoir
//! ce qu'elle a déjà ; ne jamais dire « déposé » pour un fichier qu'elle refuse de remplacer ;
//! après un dépôt, `vigie verifier` relit chaque fichier par son URL de lecture.
//!
//! Contre le bac à sable, qui sert la liste des fichiers d'une participation et les URL de
//! lecture comme le serveur (`get_pieces_jointes`, `s3_access_file`) ; ses compteurs disent ce
//! que `vigie` a réellement demandé.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Output;

use crate::commun::plateforme::*;
use crate::commun::*;
use serde_json::{Value, json};
use vigie_bac_a_sable::{Operation, Regle};

/// Les lignes JSON de la sortie standard, chacune validée contre le schéma du dépôt.
fn evenements(out: &Output) -> Vec<Value> {
    lignes_json(&out.stdout)
}

/// Le premier événement JSON de cette sorte.
fn evenement(out: &Output, sorte: &str) -> Value {
    evenements(out)
        .into_iter()
        .find(|v| v["evenement"] == sorte)
        .unwrap_or_else(|| panic!("pas d'événement {sorte} : {}", texte(out)))
}

fn bilan(out: &Output) -> Value {
    evenement(out, "bilan")
}

fn nombre(evenements: &[Value], evenement: &str) -> usize {
    evenements
        .iter()
        .filter(|v| v["evenement"] == evenement)
        .count()
}

impl Banc {
    /// `vigie` avec une autre base : un autre portable, ou une autre installation.
    fn autre_base(&self, c: &mut std::process::Command) {
        c.env("VIGIE_BASE", self.dossier.path().join("autre/vigie.sqlite"));
    }
}

// ------------------------------------------------------------------ inventaire distant

/// Une participation qui a déjà 10 fichiers finalisés (identiques aux fichiers locaux), et une
/// nuit de 13 fichiers : 3 déclarations seulement, « 10 déjà sur la plateforme ».
#[test]
fn participation_deja_remplie_seuls_les_nouveaux_fichiers_sont_declares() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=13).map(|i| (nom(i), 3_000 + i * 17)).collect());
    for (n, t) in &fichiers[..10] {
        banc.deja_sur_la_plateforme(n, contenu(n, *t));
    }

    let out = banc.depot_plateforme().arg("--json").finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 3);
    assert_eq!(banc.requetes(Operation::PutObject), 3);
    assert_eq!(banc.requetes(Operation::ApiPiecesJointes), 1);
    let ev = evenements(&out);
    let b = bilan(&out);
    assert_eq!(b["deja_sur_la_plateforme"], 10, "{b}");
    assert_eq!(b["deja_sur_la_plateforme_non_comparees"], 0, "{b}");
    assert_eq!(b["deposees"], 13, "{b}");
    assert_eq!(b["deposees_ce_passage"], 3, "{b}");
    assert_eq!(nombre(&ev, "unite_deja_sur_la_plateforme"), 10);
    assert_eq!(nombre(&ev, "unite_deposee"), 3);
    assert!(
        ev.iter()
            .filter(|v| v["evenement"] == "unite_deja_sur_la_plateforme")
            .all(|v| v["contenu_compare"] == true)
    );
    // Chaque fichier une fois sur la plateforme, identique.
    assert_eq!(banc.bac().fichiers().len(), 13);
    for (n, t) in &fichiers {
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
}

/// 4 000 fichiers déjà présents : l'inventaire tient en 40 pages de 100, et rien n'est
/// déclaré ni envoyé.
#[test]
fn quatre_mille_fichiers_deja_presents_inventaire_en_quarante_pages() {
    let banc = Banc::nouveau();
    // Des noms à l'horodatage valide : 22:00:01, 22:00:02… 23:06:40.
    let nom = |i: usize| {
        format!(
            "Car640139-2026-Pass1-A1-OB-1_20260621_{:02}{:02}{:02}_000.wav",
            22 + i / 3600,
            (i / 60) % 60,
            i % 60
        )
    };
    for i in 1..=4_000 {
        let n = nom(i);
        banc.fichier(&n, 48);
        banc.deja_sur_la_plateforme(&n, contenu(&n, 48));
    }
    let out = banc
        .depot_plateforme()
        .mots("--json --paralleles 16")
        .finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiPiecesJointes), 40);
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 0);
    assert_eq!(banc.requetes(Operation::PutObject), 0);
    let b = bilan(&out);
    assert_eq!(b["deja_sur_la_plateforme"], 4_000, "{b}");
    assert_eq!(b["deposees"], 4_000, "{b}");
    assert_eq!(b["octets_envoyes"], 0, "{b}");
}

/// Des enregistrements laissés non finalisés (le site web, un ancien envoi en plusieurs
/// parties) : repris ou remplacés, chaque fichier déposé une fois, aucun enregistrement en
/// double ni envoi S3 orphelin.
#[test]
fn enregistrements_non_finalises_repris_ou_remplaces_sans_doublon() {
    let banc = Banc::nouveau();
    // Un petit et un gros fichier (au-delà du seuil du multipart, 5 Mio ici) laissés par le
    // site web : un enregistrement sans envoi multipart.
    let petit = (nom(1), 40_000);
    let gros = (nom(2), 6 * MIO + 7);
    // Un gros fichier dont un ancien envoi en plusieurs parties est resté ouvert : repris
    // partie par partie, sans redéclaration.
    let gros_multi = (nom(3), 6 * MIO + 9);
    // Un petit fichier, laissé par un ancien envoi en plusieurs parties : l'enregistrement est
    // supprimé (sa finalisation exigerait des parties), puis le fichier déclaré en un PUT.
    let petit_multi = (nom(4), 30_000);
    let declarer = |titre: &str, multipart: bool| -> String {
        let (s, v) = banc.appel_api(
            reqwest::Method::POST,
            "/fichiers",
            serde_json::json!({
                "titre": titre, "multipart": multipart, "lien_participation": PARTICIPATION
            }),
        );
        assert_eq!(s, 201, "{v}");
        v["_id"].as_str().unwrap().to_owned()
    };
    let id_petit = declarer(&petit.0, false);
    let id_gros = declarer(&gros.0, false);
    let id_gros_multi = declarer(&gros_multi.0, true);
    let id_petit_multi = declarer(&petit_multi.0, true);
    for (n, t) in [&petit, &gros, &gros_multi, &petit_multi] {
        banc.fichier(n, *t);
    }
    let declarations_avant = banc.requetes(Operation::ApiDeclarerFichier);

    banc.depot_plateforme().finir_en(0);
    for (n, t) in [&petit, &gros, &gros_multi, &petit_multi] {
        assert!(banc.finalise(PARTICIPATION, n), "{n}");
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
    let id = |n: &str| banc.bac().fichier(PARTICIPATION, n).unwrap().id;
    assert_eq!(id(&petit.0), id_petit);
    assert_eq!(id(&gros.0), id_gros);
    assert_eq!(id(&gros_multi.0), id_gros_multi);
    assert_ne!(id(&petit_multi.0), id_petit_multi);
    assert_eq!(
        banc.bac().fichiers().len(),
        4,
        "{:?}",
        banc.bac().fichiers()
    );
    banc.aucun_envoi_ouvert();
    // Trois déclarations simples (les deux du site web, rendues telles quelles, et celle qui
    // remplace l'enregistrement supprimé) ; aucune en plusieurs parties ; une suppression.
    assert_eq!(
        banc.requetes(Operation::ApiDeclarerFichier) - declarations_avant,
        3
    );
    assert_eq!(banc.requetes(Operation::ApiAbandonner), 1);
}

/// L'inventaire distant illisible n'empêche pas le dépôt : chaque fichier est déclaré.
#[test]
fn inventaire_illisible_le_depot_se_fait_sans_lui() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=3).map(|i| (nom(i), 10_000 + i)).collect());
    banc.panne_toujours(Operation::ApiPiecesJointes, code_http(503));
    let out = banc.depot_plateforme().finir_en(0);
    // La lecture a suivi la politique de réessai (7 tentatives), puis le dépôt s'est fait sans
    // elle, et l'a dit.
    assert_eq!(banc.requetes(Operation::ApiPiecesJointes), 7);
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 3);
    out.stderr_contient(&["chaque fichier sera déclaré"]);
    for (n, t) in &fichiers {
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
}

// --------------------------------------------------- fichier finalisé puis modifié

/// Un fichier finalisé, modifié ensuite, puis `--redeposer-modifies` : la plateforme refuse de
/// le remplacer. Jamais « ✓ », jamais déposé ; le refus dit la cause et le geste ; l'objet de
/// la plateforme n'a pas changé. Avec l'inventaire comme sans lui (le `409` de la déclaration).
#[test]
fn fichier_finalise_modifie_et_redeposer_modifies_refus_dit_jamais_depose() {
    for inventaire_lisible in [true, false] {
        let banc = Banc::nouveau();
        let (a, b) = ((nom(1), 20_000), (nom(2), 21_000));
        banc.fichier(&a.0, a.1);
        banc.fichier(&b.0, b.1);
        banc.depot_plateforme().finir_en(0);

        // Le fichier change (même taille, autre contenu, autre date : deux secondes plus
        // tard, posée explicitement plutôt qu'attendue, quelle que soit la finesse des dates
        // du système de fichiers).
        let chemin_a = banc.nuit.join(&a.0);
        let date = std::fs::metadata(&chemin_a).unwrap().modified().unwrap();
        let mut modifie = contenu(&a.0, a.1);
        modifie[100] ^= 0xFF;
        std::fs::write(&chemin_a, &modifie).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&chemin_a)
            .unwrap()
            .set_modified(date + std::time::Duration::from_secs(2))
            .unwrap();
        if !inventaire_lisible {
            banc.panne_toujours(Operation::ApiPiecesJointes, code_http(403));
        }
        let puts = banc.requetes(Operation::PutObject);
        let out = banc
            .depot_plateforme()
            .mots("--redeposer-modifies --progression jamais")
            .sortie();
        let e = stderr(&out);
        assert_eq!(code(&out), 3, "{}", texte(&out));
        assert!(!e.contains(&format!("✓ {}", a.0)), "{e}");
        contient(
            &e,
            &[
                &format!("✗ {} : refus définitif (REMPLACEMENT_REFUSE)", a.0),
                "la plateforme ne permet pas de remplacer un fichier finalisé",
            ],
        );
        if inventaire_lisible {
            contient(&e, &["avec un autre contenu", "gardez sa version"]);
        } else {
            assert!(e.contains("upload is already done"), "{e}");
            assert!(e.contains("relira la plateforme et le comparera"), "{e}");
        }
        let s = stdout(&out);
        assert!(s.contains("REMPLACEMENT_REFUSE"), "{s}");
        assert!(s.contains("Rien n'a été envoyé pendant ce passage."), "{s}");
        assert_eq!(banc.requetes(Operation::PutObject), puts);
        assert!(banc.objet_plateforme(PARTICIPATION, &a.0) == contenu(&a.0, a.1));
        let etat = banc.etat();
        assert_eq!(etat["unites"]["deposee"], 1, "{etat}");
        assert_eq!(etat["definitifs"], 1, "{etat}");
    }
}

/// Un plan neuf (une autre base) sur une participation qui a déjà le fichier, identique :
/// « déjà sur la plateforme », code 0 ; sans inventaire, le `409` est un refus, que la relance
/// par `--y-compris-definitifs` (plateforme relue) change en « déjà sur la plateforme ».
#[test]
fn plan_neuf_sur_une_participation_qui_a_deja_le_fichier() {
    let banc = Banc::nouveau();
    let a = (nom(1), 20_000);
    banc.fichier(&a.0, a.1);
    banc.depot_plateforme().finir_en(0);

    let mut c = banc.depot_plateforme();
    banc.autre_base(&mut c);
    let out = c.mots("--progression jamais").finir_en(0);
    let e = stderr(&out);
    contient(
        &e,
        &[&format!(
            "= {} : déjà sur la plateforme (identique au fichier local), rien n'est reparti",
            a.0
        )],
    );
    assert!(!e.contains('✓'), "{e}");
    let s = stdout(&out);
    contient(
        &s,
        &["1 fichier déjà sur la plateforme, identique : rien n'est reparti."],
    );
    assert!(s.contains("Rien n'a été envoyé pendant ce passage."), "{s}");
    assert_eq!(banc.requetes(Operation::ApiDeclarerFichier), 1);

    // Une troisième base, l'inventaire illisible : le 409 de la déclaration est un refus.
    banc.panne(Regle::toujours(Some(Operation::ApiPiecesJointes), code_http(403)).fois(1));
    let troisieme = |c: &mut std::process::Command| {
        c.env(
            "VIGIE_BASE",
            banc.dossier.path().join("troisieme/vigie.sqlite"),
        );
    };
    let mut c = banc.depot_plateforme();
    troisieme(&mut c);
    let out = c.mots("--progression jamais").finir_en(3);
    assert!(!stderr(&out).contains('✓'), "{}", texte(&out));
    let mut c = banc.retenter();
    troisieme(&mut c);
    c.env("VIGIE_JETON", JETON);
    let out = c.mots("--y-compris-definitifs --json").finir_en(0);
    assert_eq!(bilan(&out)["deja_sur_la_plateforme"], 1);
    assert!(banc.objet_plateforme(PARTICIPATION, &a.0) == contenu(&a.0, a.1));
}

// ------------------------------------------------------------------ vigie verifier

/// `vigie verifier --json` : le code de sortie et les lignes JSON.
fn verifier(banc: &Banc) -> Output {
    banc.vigie_plateforme().mots("verifier --json").sortie()
}

fn bilan_verification(out: &Output) -> Value {
    evenement(out, "bilan_verification")
}

/// Après un dépôt (un PUT simple et un objet assemblé en parties), `vigie verifier` relit
/// chaque fichier par son URL de lecture : code 0. Un objet altéré dans le S3 de la plateforme,
/// un objet disparu de son stockage : code non nul, chaque fichier nommé avec le geste, et le
/// plan le dit. Un fichier supprimé par un gestionnaire : remis à déposer, et la relance le
/// redépose.
#[test]
fn verifier_relit_chaque_fichier_de_la_plateforme() {
    let banc = Banc::nouveau();
    let fichiers = [
        (nom(1), 30_000),
        (nom(2), 31_000),
        (nom(3), 32_000),
        // Au-delà de 5 Mio ici : deux parties de 5 Mio, ETag md5-des-md5-2.
        (nom(4), 7 * MIO + 3),
    ];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot_plateforme().finir_en(0);
    assert!(
        banc.bac()
            .fichier(PARTICIPATION, &nom(4))
            .unwrap()
            .multipart
    );

    let out = verifier(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    let b = bilan_verification(&out);
    assert_eq!(
        (
            &b["intactes"],
            &b["a_renvoyer"],
            &b["inconnues"],
            &b["definitifs"]
        ),
        (&json!(4), &json!(0), &json!(0), &json!(0)),
        "{b}"
    );
    assert_eq!(banc.requetes(Operation::ApiPiecesJointes), 2);
    assert_eq!(banc.requetes(Operation::ApiAccesFichier), 4);

    // Un objet altéré dans le S3 de la plateforme (même taille), un autre disparu.
    let cle = |n: &str| banc.bac().fichier(PARTICIPATION, n).unwrap().cle;
    let mut altere = contenu(&nom(2), 31_000);
    altere[7] ^= 1;
    banc.alterer_objet(&nom(2), altere);
    std::fs::remove_file(
        banc.bac()
            .chemin_objet(COMPARTIMENT_PLATEFORME, &cle(&nom(4))),
    )
    .unwrap();
    let out = banc.vigie_plateforme().arg("verifier").finir_en(3);
    let s = stdout(&out);
    for n in [nom(2), nom(4)] {
        let ligne = s
            .lines()
            .find(|l| l.contains(&n))
            .unwrap_or_else(|| panic!("{n} non nommé : {s}"));
        assert!(ligne.contains(": differente ("), "{ligne}");
    }
    contient(&s, &["ne permet pas de remplacer un fichier finalisé"]);
    assert!(s.contains("signalez-le à ses gestionnaires"), "{s}");
    // Un seul geste, le dernier (règle de l'affichage) : aucune commande dans les lignes des
    // fichiers.
    assert_eq!(s.matches("vigie ").count(), 1, "{s}");
    assert!(
        s.ends_with("puis vigie retenter-echecs 1 --y-compris-definitifs\n"),
        "{s}"
    );
    assert!(!s.contains(&nom(1)) && !s.contains(&nom(3)), "{s}");
    let etat = banc.etat();
    assert_eq!(etat["definitifs"], 2, "{etat}");
    assert_eq!(etat["unites"]["deposee"], 2, "{etat}");

    // Un fichier supprimé de la plateforme par un gestionnaire : manquant, remis à déposer ;
    // la relance le redépose, et tout est intact (sauf les deux refusés).
    assert!(
        banc.rt
            .block_on(
                banc.bac()
                    .supprimer_comme_un_gestionnaire(PARTICIPATION, &nom(3))
            )
            .unwrap()
    );
    let out = verifier(&banc);
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let manquante = evenement(&out, "verification");
    assert_eq!(manquante["unite"], nom(3).as_str(), "{manquante}");
    assert_eq!(manquante["etat"], "manquante", "{manquante}");
    assert_eq!(bilan_verification(&out)["a_renvoyer"], 1);
    banc.retenter().env("VIGIE_JETON", JETON).finir_en(3);
    assert!(banc.objet_plateforme(PARTICIPATION, &nom(3)) == contenu(&nom(3), 32_000));
    let b = bilan_verification(&verifier(&banc));
    assert_eq!(
        (&b["intactes"], &b["a_renvoyer"]),
        (&json!(2), &json!(0)),
        "{b}"
    );
}

/// Un plan déposé sans empreinte notée (une version antérieure de `vigie`) : la vérification
/// compare l'objet au fichier local, y compris un objet assemblé en parties.
#[test]
fn verifier_sans_empreinte_notee_compare_au_fichier_local() {
    let banc = Banc::nouveau();
    let fichiers = [(nom(1), 30_000), (nom(2), 6 * MIO + 11)];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot_plateforme().finir_en(0);
    rusqlite::Connection::open(&banc.base)
        .unwrap()
        .execute("UPDATE depot_unite SET etag = NULL", [])
        .unwrap();
    let out = verifier(&banc);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert_eq!(bilan_verification(&out)["intactes"], 2);

    let mut altere = contenu(&nom(2), 6 * MIO + 11);
    altere[6 * MIO] ^= 1;
    banc.alterer_objet(&nom(2), altere);
    let out = verifier(&banc);
    assert_eq!(code(&out), 3, "{}", texte(&out));
    let v = evenement(&out, "verification");
    assert_eq!(
        (&v["unite"], &v["etat"]),
        (&json!(nom(2)), &json!("differente")),
        "{v}"
    );
}

/// Les URL de lecture sont des secrets, comme les URL d'envoi : ni dans les sorties, ni dans
/// le journal, ni dans la base, même très bavards.
#[test]
fn aucune_url_de_lecture_dans_les_sorties_meme_tres_bavardes() {
    let banc = Banc::nouveau();
    for i in 1..=3 {
        banc.fichier(&nom(i), 5_000 + i);
    }
    banc.deja_sur_la_plateforme(&nom(1), contenu(&nom(1), 5_001));
    let journal = banc.dossier.path().join("journal.json");
    let bavard = |c: &mut std::process::Command| {
        c.arg("-vvv")
            .arg("--journal")
            .arg(&journal)
            .env("RUST_LOG", "trace");
    };
    let mut c = banc.depot_plateforme();
    bavard(&mut c);
    let depot = c.finir_en(0);
    let mut c = banc.vigie_plateforme();
    c.arg("verifier");
    bavard(&mut c);
    let verif = c.finir_en(0);
    assert_eq!(banc.requetes(Operation::ApiAccesFichier), 4);
    let journal = std::fs::read_to_string(&journal).unwrap();
    assert!(journal.contains("/acces"), "journal sans les lectures ?");
    let tout = format!(
        "{}{}{journal}{}",
        texte(&depot),
        texte(&verif),
        banc.contenu_du_dossier_de_la_base()
    );
    for secret in [JETON, "Signature=", "AWSAccessKeyId=", "Expires="] {
        assert!(!tout.contains(secret), "secret « {secret} » dans la sortie");
    }
}
