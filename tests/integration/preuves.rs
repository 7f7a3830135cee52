//! Rien n'est « déposé » sans preuve, et un refus est dit pour ce qu'il est : un `200` sans
//! ETag (ou qui porte une erreur) sur un PUT signé n'est pas un dépôt, un ETag qui n'est pas le
//! MD5 de ce qui est parti fait repartir le PUT dans le passage, un `417` d'un relais n'accuse
//! pas le fichier.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use crate::commun::moto::{self, MandatairePannes};
use crate::commun::plateforme::*;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle, cle_fichier};

/// Une nuit de quatre séquences pour la plateforme.
fn nuit_de_4(banc: &Banc) -> Vec<(String, usize)> {
    banc.fichiers((1..=4).map(|i| (nom(i), 30_000 + i * 7_001)).collect())
}

fn cle_plateforme(titre: &str) -> String {
    cle_fichier(PARTICIPATION, titre).unwrap()
}

/// Les fichiers déposés sur la plateforme : disponibles, identiques au fichier local.
fn tous_deposes(banc: &Banc, fichiers: &[(String, usize)]) {
    for (titre, taille) in fichiers {
        let f = banc.bac().fichier(PARTICIPATION, titre).unwrap();
        assert!(f.disponible, "{titre} pas disponible");
        assert!(
            banc.objet_plateforme(PARTICIPATION, titre) == contenu(titre, *taille),
            "{titre} différent"
        );
    }
}

/// `vigie retenter-echecs` (sans `--y-compris-definitifs`) dépose tout ce qui restait.
fn retenter_tout_depose(banc: &Banc, fichiers: &[(String, usize)]) {
    banc.retenter_plateforme().finir_en(0);
    tous_deposes(banc, fichiers);
}

/// Le PUT d'un fichier reçoit toujours `200 OK` sans ETag, avec un corps `<Error>`, et rien
/// n'est écrit : ce fichier n'est ni « ✓ » ni finalisé, il reste en échec transitoire après
/// les réessais de la politique (code 1) ; les autres partent. La panne levée,
/// `retenter-echecs` le dépose. Sans la vérification de l'ETag, `vigie` finalisait un fichier
/// absent du stockage et sortait en 0.
#[test]
fn un_put_signe_en_200_sans_etag_n_est_jamais_un_depot() {
    let banc = Banc::nouveau();
    let fichiers = nuit_de_4(&banc);
    let (titre, _) = &fichiers[1];
    let cle = cle_plateforme(titre);
    banc.panne(Regle::toujours(Some(Operation::PutObject), Panne::FauxSucces).sur_cle(&cle));
    let out = banc
        .depot_plateforme()
        .mots("--progression jamais")
        .sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 1, "{tout}");
    let f = banc.bac().fichier(PARTICIPATION, titre).unwrap();
    assert!(!f.disponible, "finalisé sans preuve : {tout}");
    assert_eq!(
        banc.requetes(Operation::ApiFinaliser),
        3,
        "seuls les trois autres sont finalisés : {tout}"
    );
    assert_eq!(
        banc.requetes_cle(Operation::PutObject, &cle),
        7,
        "rejoué sous la politique (7 tentatives) : {tout}"
    );
    assert!(!tout.contains(&format!("✓ {titre}")), "{tout}");
    contient(&tout, &["sans ETag", "3 / 4 fichiers déposés"]);
    let unites = banc.unites("echec");
    assert_eq!(unites.len(), 1, "{unites:?}");
    assert_eq!(unites[0]["definitif"], false, "{unites:?}");

    banc.bac().pannes().effacer();
    retenter_tout_depose(&banc, &fichiers);
}

/// Une panne sur le premier PUT d'un fichier : le PUT repart dans le même passage, tout est
/// déposé (code 0), le fichier part deux fois et chacun n'est finalisé qu'une fois.
fn une_panne_sur_un_put_est_rattrapee(banc: &Banc, fichiers: &[(String, usize)], panne: Panne) {
    let cle = cle_plateforme(&fichiers[2].0);
    banc.panne(Regle::nieme(Operation::PutObject, &cle, 1, panne));
    banc.depot_plateforme().finir_en(0);
    assert_eq!(banc.bac().pannes().en_attente(), 0);
    let compteurs = banc.compteurs();
    assert_eq!(compteurs.requetes_cle(Operation::PutObject, &cle), 2);
    assert_eq!(
        compteurs.requetes(Operation::ApiFinaliser),
        fichiers.len() as u64
    );
    tous_deposes(banc, fichiers);
}

/// Une seule réponse mensongère (`200` + `<Error>`, sans ETag) : rattrapée dans le passage.
#[test]
fn un_200_mensonger_isole_est_rattrape_dans_le_passage() {
    let banc = Banc::nouveau();
    let fichiers = nuit_de_4(&banc);
    une_panne_sur_un_put_est_rattrapee(&banc, &fichiers, Panne::FauxSucces);
}

/// S3 écrit l'objet intact mais rend un ETag qui n'est pas le MD5 de ce qui est parti (un
/// relais qui réécrit l'en-tête, des octets altérés) : le PUT repart dans le passage au lieu
/// d'un échec « CONTENU … corrigez le fichier » ; une fois l'ETag juste, le fichier est
/// finalisé. Persistant, c'est un échec transitoire de cause SERVEUR, jamais CONTENU, et rien
/// n'est finalisé.
#[test]
fn un_etag_qui_n_est_pas_le_md5_fait_repartir_le_put_sans_accuser_le_fichier() {
    let banc = Banc::nouveau();
    let fichiers = nuit_de_4(&banc);
    une_panne_sur_un_put_est_rattrapee(&banc, &fichiers, Panne::EtagAltere);

    // Persistant, sur un fichier ajouté à la nuit.
    let (titre, taille) = (nom(9), 12_345);
    banc.fichier(&titre, taille);
    let cle = cle_plateforme(&titre);
    banc.panne(Regle::toujours(Some(Operation::PutObject), Panne::EtagAltere).sur_cle(&cle));
    let out = banc.depot_plateforme().sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 1, "{tout}");
    absent(&tout, &["CONTENU", "corrigez le fichier"]);
    assert!(tout.contains("SERVEUR"), "{tout}");
    assert!(!banc.finalise(PARTICIPATION, &titre));
    let unites = banc.unites("echec");
    assert_eq!(unites.len(), 1, "{unites:?}");
    assert_eq!(unites[0]["cause"], "SERVEUR", "{unites:?}");
    assert!(
        unites[0]["message"]
            .as_str()
            .unwrap()
            .contains("différent du MD5"),
        "{unites:?}"
    );
}

/// Ce qu'un `417` doit donner : un échec transitoire de cause SERVEUR qui nomme un relais, pas
/// « contenu ou nom refusé … corrigez le fichier » ; `retenter-echecs`, sans
/// `--y-compris-definitifs`, le reprend.
fn verifier_417(out: &std::process::Output) {
    let tout = texte(out);
    assert_eq!(code(out), 1, "{tout}");
    assert!(tout.contains("417") && tout.contains("relais"), "{tout}");
    absent(&tout, &["corrigez le fichier", "CONTENU"]);
}

#[test]
fn un_417_vers_la_plateforme_n_accuse_pas_le_fichier() {
    let banc = Banc::nouveau();
    let fichiers = nuit_de_4(&banc);
    banc.panne_prochaine(Operation::PutObject, code_http(417));
    verifier_417(&banc.depot_plateforme().sortie());
    retenter_tout_depose(&banc, &fichiers);
}

#[test]
fn un_417_vers_s3_n_accuse_pas_le_fichier_bac_a_sable_et_moto() {
    let banc = Banc::nouveau();
    let fichiers: Vec<(String, usize)> = (1..=3)
        .map(|i| (nom(i), 10_000 * i))
        .inspect(|(n, t)| {
            banc.fichier(n, *t);
        })
        .collect();
    let quatre_cent_dix_sept = || Regle::prochaine(Operation::PutObject, code_http(417));
    banc.panne(quatre_cent_dix_sept());
    verifier_417(&banc.depot().sortie());
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);

    // Le second avis : moto derrière le mandataire de pannes.
    let Some(serveur) = moto::moto() else {
        return;
    };
    let banc = Banc::nouveau();
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    let client = serveur.client();
    let compartiment = "preuves-417";
    banc.rt
        .block_on(client.create_bucket().bucket(compartiment).send())
        .unwrap();
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
    mandataire.pannes.programmer(quatre_cent_dix_sept());
    let mut depot = banc.depot_vers(&banc.nuit, compartiment, &mandataire.endpoint());
    verifier_417(&depot.sortie());
    banc.retenter().finir_en(0);
    let objets = banc.rt.block_on(moto::objets(&client, compartiment));
    assert_eq!(
        objets.len(),
        3,
        "{:?}",
        objets.iter().map(|o| &o.0).collect::<Vec<_>>()
    );
    for (n, t) in &fichiers {
        let o = objets
            .iter()
            .find(|o| o.0 == format!("{PREFIXE}/{n}"))
            .unwrap_or_else(|| panic!("{n} absent de moto"));
        assert!(o.1 == contenu(n, *t), "{n} différent chez moto");
    }
}

/// Une nuit S3 de dix fichiers que le service refuse tous (503) : après le dépôt, 0 / 10
/// fichiers déposés, code 1.
fn nuit_refusee(banc: &Banc) {
    for i in 1..=10 {
        banc.fichier(&nom(i), 5_000 + i);
    }
    banc.panne_toujours(Operation::PutObject, code_http(503));
    banc.depot().finir_en(1);
}

/// Un tube fermé ne change pas le code de sortie : `vigie retenter-echecs 2>&1 | head -1`
/// (même sous `pipefail`) sort avec le code du dépôt, ici 1 (0 / 10 déposés), et le dépôt a
/// bien eu lieu. De même quand le lecteur est parti avant la première ligne (ses deux sorties
/// fermées d'emblée), et pour `vigie etat`, dont le code dit l'état du plan. Avant, `main.rs`
/// faisait de tout tube fermé un succès : 0.
#[test]
fn un_tube_ferme_ne_change_pas_le_code_de_sortie() {
    let banc = Banc::nouveau();
    nuit_refusee(&banc);

    // `| head -1`, sous pipefail : la même commande, ses variables d'environnement comprises.
    let avant = banc.requetes(Operation::PutObject);
    let retenter = banc.retenter();
    let commande = std::iter::once(retenter.get_program())
        .chain(retenter.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut bash = std::process::Command::new("bash");
    bash.env_clear()
        .args(["-c", &format!("set -o pipefail; {commande} 2>&1 | head -1")]);
    for (k, v) in retenter.get_envs() {
        if let Some(v) = v {
            bash.env(k, v);
        }
    }
    let out = bash.finir_en(1);
    assert_eq!(stdout(&out).lines().count(), 1);
    assert!(
        banc.requetes(Operation::PutObject) > avant,
        "le dépôt n'a pas eu lieu"
    );

    // Le lecteur parti avant la première ligne.
    let avant = banc.requetes(Operation::PutObject);
    let mut enfant = banc.lancer(banc.retenter());
    drop(enfant.stdout.take());
    drop(enfant.stderr.take());
    let statut = enfant.wait().unwrap();
    assert_eq!(statut.code(), Some(1), "{statut:?}");
    assert!(banc.requetes(Operation::PutObject) > avant);

    // `vigie etat` : le code de l'état du plan (1 : des échecs transitoires), lu ou non.
    banc.vigie().arg("etat").finir_en(1);
    let mut enfant = banc.lancer({
        let mut c = banc.vigie();
        c.arg("etat");
        c
    });
    drop(enfant.stdout.take());
    assert_eq!(enfant.wait().unwrap().code(), Some(1));
}

/// SIGHUP (le terminal fermé) arrête un dépôt comme SIGTERM : le plan est tenu à jour, le
/// bilan est écrit, code 130, et la relance finit le travail. Avant, le signal tuait `vigie`
/// (129 pour le shell), sans bilan.
#[test]
fn sighup_arrete_un_depot_comme_sigterm() {
    let banc = Banc::nouveau();
    let fichiers: Vec<(String, usize)> = (1..=6)
        .map(|i| (nom(i), 40_000 + i))
        .inspect(|(n, t)| {
            banc.fichier(n, *t);
        })
        .collect();
    banc.panne_toujours(
        Operation::PutObject,
        Panne::Lenteur(std::time::Duration::from_secs(3)),
    );
    let enfant = banc.lancer(banc.depot());
    banc.attendre("un PUT en cours", |b| {
        b.compteurs().requetes(Operation::PutObject) > 0
    });
    signal(&enfant, "HUP");
    let out = attendre_fin(enfant, std::time::Duration::from_secs(30));
    assert_eq!(code(&out), 130, "{}", texte(&out));
    out.stdout_contient(&["Interrompu : le plan est à jour"]);
    let etat = banc.etat();
    assert_eq!(etat["unites"]["en_cours"], 0, "{etat}");
    banc.bac().pannes().effacer();
    banc.retenter().finir_en(0);
    banc.verifier_identiques(&fichiers);
}

/// Décale d'une heure la date de chaque fichier de la nuit, sans toucher au contenu : ce que
/// fait une carte SD en FAT (heure locale) relue après le passage à l'heure d'été.
fn decaler_d_une_heure(banc: &Banc, fichiers: &[(String, usize)]) {
    for (n, _) in fichiers {
        let f = std::fs::File::options()
            .write(true)
            .open(banc.nuit.join(n))
            .unwrap();
        let date = f.metadata().unwrap().modified().unwrap();
        f.set_modified(date + std::time::Duration::from_secs(3600))
            .unwrap();
    }
}

/// Une carte FAT dont toutes les heures ont bougé d'une heure (heure d'été) : la relance ne
/// dit pas « N fichiers déjà déposés ont changé », ne conseille pas `--redeposer-modifies`,
/// et même avec lui rien ne repart : le contenu relu est celui du dépôt (ETag MD5, objet
/// assemblé compris). Un fichier vraiment modifié (même taille) est, lui, dit changé. Avant,
/// les dix fichiers étaient dits changés, et `--redeposer-modifies` les renvoyait, identiques.
#[test]
fn une_carte_fat_a_l_heure_d_ete_ne_fait_rien_repartir() {
    // S3, avec un fichier assemblé en parties.
    let banc = Banc::nouveau();
    let mut fichiers: Vec<(String, usize)> = (1..=9).map(|i| (nom(i), 20_000 + i)).collect();
    fichiers.push((nom(10), 11 * MIO + 5));
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot().finir_en(0);
    decaler_d_une_heure(&banc, &fichiers);
    let recus = banc.compteurs().octets_recus();
    let mut depot = banc.depot();
    depot.arg("--redeposer-modifies");
    let out = depot.sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 0, "{tout}");
    absent(&tout, &["ont changé", "--redeposer-modifies"]);
    contient(
        &tout,
        &["10 fichiers déjà déposé(s) : date changée, contenu identique"],
    );
    assert_eq!(
        banc.compteurs().octets_recus(),
        recus,
        "des fichiers sont repartis : {tout}"
    );
    // Relancé encore : la nouvelle date est notée, plus rien à relire ni à dire.
    let out = banc.depot().sortie();
    assert!(!texte(&out).contains("date changée"), "{}", texte(&out));

    // Un fichier vraiment modifié, même taille, et un autre seulement redaté.
    let (n, t) = &fichiers[0];
    let mut autre = contenu(n, *t);
    autre[0] ^= 0xff;
    std::fs::write(banc.nuit.join(n), autre).unwrap();
    decaler_d_une_heure(&banc, &fichiers[1..2]);
    let out = banc.depot().sortie();
    let tout = texte(&out);
    contient(&tout, &["1 fichier(s) déjà déposé(s) ont changé"]);
    assert!(
        tout.contains(&nom(1)) && tout.contains("1 fichier déjà déposé(s) : date changée"),
        "{tout}"
    );

    // Vigie-Chiro : même chose, l'empreinte notée étant le MD5 rendu par S3.
    let banc = Banc::nouveau();
    let fichiers = nuit_de_4(&banc);
    banc.depot_plateforme().finir_en(0);
    decaler_d_une_heure(&banc, &fichiers);
    let recus = banc.compteurs().octets_recus();
    let out = banc.depot_plateforme().sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 0, "{tout}");
    assert!(!tout.contains("ont changé"), "{tout}");
    contient(&tout, &["4 fichiers déjà déposé(s) : date changée"]);
    assert_eq!(banc.compteurs().octets_recus(), recus);
}
