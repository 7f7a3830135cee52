//! `vigie` contre une plateforme Vigie-Chiro qui se comporte comme le vrai serveur
//! (`Scille/vigiechiro-api`, imité route par route par le bac à sable) : créer une participation
//! avec des dates qu'il accepte, n'envoyer que des noms qu'il accepte, reprendre les
//! enregistrements qu'il rend tels quels, se replier quand il refuse le multipart, dire ses
//! refus en clair, reconnaître une adresse qui n'est pas la sienne, ne rien croire de lui.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;

use crate::commun::plateforme::*;
use crate::commun::*;
use serde_json::{Value, json};
use vigie_bac_a_sable::{JETON_NON_VALIDE, NouveauSite, OBSERVATEUR, Operation};

/// `vigie depot NUIT --site SITE --point B2 --debut D --fin F` contre la plateforme locale.
fn depot_par_site(banc: &Banc, debut: &str, fin: &str) -> Command {
    banc.depot_par_site(SITE, "B2", debut, fin)
}

/// Un mandataire devant la plateforme qui retouche le JSON des déclarations réussies dont le
/// corps de requête contient `marque`.
fn retoucher_declarations(
    banc: &Banc,
    marque: &'static str,
    retouche: impl Fn(&mut Value) + Send + Sync + 'static,
) -> mandataire::Mandataire {
    mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), move |q, r| {
        let visee = String::from_utf8_lossy(&q.corps).contains(marque);
        if q.methode == "POST" && q.chemin == "/api/v1/fichiers" && visee && r.statut == 201 {
            let mut v: Value = serde_json::from_slice(&r.corps).unwrap();
            retouche(&mut v);
            r.corps = v.to_string().into_bytes();
        }
    })
}

// ------------------------------------------------------------------------ participation

/// Les dates de la participation, deux écritures d'un même instant, l'identifiant affiché,
/// `traiter` sans `--participation`.
#[test]
fn participation_creee_une_fois_a_l_instant_demande_et_nommee_partout() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=3).map(|i| (nom(i), 20_000 + i)).collect());
    // Une heure sans fuseau est refusée avant tout envoi, avec les deux écritures qui
    // conviennent.
    let out = depot_par_site(&banc, "2026-06-21T21:30:00", FIN_NUIT).finir_en(2);
    let e = stderr(&out);
    contient(&e, &["sans fuseau", DEBUT_NUIT]);
    assert_eq!(banc.compteurs().requetes_total(), 0);

    let out = depot_par_site(&banc, DEBUT_NUIT, FIN_NUIT)
        .arg("--json")
        .finir_en(0);
    let creees = banc.participations_b2();
    assert_eq!(creees.len(), 1, "{creees:?}");
    let p = &creees[0];
    // La plateforme a lu l'instant demandé (RFC 1123) et le rend en isoformat() sans fuseau.
    assert_eq!(p.date_debut, "2026-06-21T21:30:00");
    assert_eq!(p.date_fin.as_deref(), Some("2026-06-22T06:00:00"));
    let bilan: Value = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["evenement"] == "bilan")
        .unwrap();
    assert_eq!(bilan["participation"], p.id.as_str(), "{bilan}");
    for (n, t) in &fichiers {
        assert!(banc.objet_plateforme(&p.id, n) == contenu(n, *t), "{n}");
    }

    // Le même instant écrit autrement : même plan, aucune participation ni octet de plus.
    let recus = banc.compteurs().octets_recus();
    let out =
        depot_par_site(&banc, "2026-06-21T23:30:00+02:00", "2026-06-22T08:00+02:00").finir_en(0);
    // La participation n'est nommée que par sa page (l'API par défaut), jamais par son
    // identifiant seul : ce bac à sable n'en a pas.
    assert!(!stdout(&out).contains(p.id.as_str()), "{}", texte(&out));
    assert_eq!(banc.participations_b2().len(), 1);
    let c = banc.compteurs();
    assert_eq!(c.requetes(Operation::ApiCreerParticipation), 1);
    assert_eq!(c.octets_recus(), recus, "la nuit est repartie");

    // L'identifiant est gardé dans le plan : etat et plans le disent.
    let etat = banc.etat();
    assert_eq!(etat["participation"], p.id.as_str(), "{etat}");
    let out = banc.vigie().mots("plans --json").sortie();
    let plans: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(plans["participation"], p.id.as_str(), "{plans}");
    let out = banc.vigie().arg("etat").sortie();
    assert!(stdout(&out).contains(&p.id), "{}", texte(&out));

    // `vigie traiter` sans --participation : celle du dernier plan, sur son API.
    let out = banc
        .vigie_plateforme()
        .env_remove("VIGIE_API")
        .arg("traiter")
        .finir_en(0);
    assert!(stdout(&out).contains(&p.id), "{}", texte(&out));
    let traitee = banc.participations_b2().remove(0);
    assert_eq!(traitee.calculs_lances, 1);
}

/// Un dossier déjà dans un autre plan vers la même participation est
/// signalé avant tout envoi.
#[test]
fn dossier_deja_dans_un_autre_plan_vers_la_meme_participation_refuse_avant_tout_envoi() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    depot_par_site(&banc, DEBUT_NUIT, FIN_NUIT).finir_en(0);
    let creee = banc.participations_b2().remove(0);
    let requetes = banc.compteurs().requetes_total();
    // La même participation, désignée par son identifiant.
    let out = banc.depot_dans(&creee.id, &banc.bac().api()).finir_en(2);
    let e = stderr(&out);
    // Le geste, seul, en dernier.
    assert!(
        e.contains("déjà dans le plan 1") && e.trim_end().ends_with("vigie retenter-echecs 1"),
        "{e}"
    );
    assert_eq!(banc.compteurs().requetes_total(), requetes);
    // Une autre participation (celle d'essai) reste permise.
    banc.depot_plateforme().finir_en(0);
}

/// La vraie cause d'un refus de création, en clair ; et le point des noms
/// comparé à celui de la participation.
#[test]
fn refus_de_creation_dit_la_cause_du_serveur_sans_json_brut() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let out = depot_par_site(&banc, DEBUT_NUIT, FIN_NUIT)
        .env("VIGIE_JETON", JETON_NON_VALIDE)
        .finir_en(3);
    let e = stderr(&out);
    contient(
        &e,
        &[
            "protocole registration not yet validated",
            "pas encore validée",
        ],
    );
    // Le geste, seul, en dernier ; pas « créez-la sur le site web », qui appelle la même
    // route et serait refusé de même (`create_participation`).
    assert!(e.trim_end().ends_with("relancez la même commande"), "{e}");
    assert!(!e.contains("sur le site web"), "{e}");
    assert!(!e.contains("verrouillé"), "fausse cause : {e}");
    assert!(
        !e.contains('{') && !e.contains("_errors"),
        "JSON brut : {e}"
    );

    let out = banc
        .depot_par_site("64a1b2c3d4e5f60718293cff", "B2", DEBUT_NUIT, FIN_NUIT)
        .sortie();
    // Un site inconnu est dit avant tout plan, à la relecture du site (`display_site`, 404) :
    // une erreur d'usage (code 2), comme une participation inconnue.
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = stderr(&out);
    assert!(e.contains("n'existe pas") && e.contains("--site"), "{e}");
    assert!(!e.contains('{'), "JSON brut : {e}");
}

#[test]
fn point_des_noms_different_de_celui_de_la_participation_refuse_sauf_force() {
    let banc = Banc::nouveau();
    // La participation d'essai est au point A1 ; ces séquences sont du point Z1.
    let z1 = "Car640139-2026-Pass1-Z1-OB-1_20260621_220000_000.wav";
    banc.fichier(z1, 10_000);
    // Seule, une nuit au point Z1 : refusée avant tout envoi (rien ne se retire d'une
    // participation).
    let out = banc.depot_plateforme().finir_en(2);
    let e = stderr(&out);
    contient(&e, &["Z1 dans les noms", "A1 pour la participation"]);
    assert!(e.contains("--forcer-participation"), "{e}");
    assert_eq!(
        banc.requetes(vigie_bac_a_sable::Operation::ApiDeclarerFichier),
        0
    );
    // Voulu : --forcer-participation dépose, et le dit.
    let out = banc
        .depot_plateforme()
        .arg("--forcer-participation")
        .finir_en(0);
    let e = stderr(&out);
    contient(
        &e,
        &["attention", "Z1 dans les noms, A1 pour la participation"],
    );
    // Rien à dire quand les points concordent.
    banc.fichier(&nom(2), 10_000);
    std::fs::remove_file(banc.nuit.join(z1)).unwrap();
    let out = banc.depot_plateforme().sortie();
    assert!(!stderr(&out).contains("attention"), "{}", texte(&out));
}

/// Un autre des sites de l'observateur (`Vigiechiro - Point Fixe-640140`), où les noms
/// `Car640139-…` ne vont pas.
fn autre_site(banc: &Banc) -> String {
    banc.bac()
        .ajouter_site(&NouveauSite {
            type_site: "POINT_FIXE",
            numero: "640140",
            titre: None,
            observateur: OBSERVATEUR,
            points: &["A1"],
        })
        .unwrap()
}

/// Le lendemain de la nuit d'essai : une faute de frappe dans --debut et --fin.
const DEBUT_LENDEMAIN: &str = "2026-06-22T21:30:00Z";
const FIN_LENDEMAIN: &str = "2026-06-23T06:00:00Z";

/// Une nuit d'essai (`Car640139`, soirée du 21 juin), un autre site de l'observateur
/// (`Point Fixe-640140`), et de quoi vérifier qu'aucune participation n'a été créée ni aucun
/// octet envoyé.
fn nuit_et_autre_site() -> (Banc, String) {
    let banc = Banc::nouveau();
    banc.fichiers((1..=2).map(|i| (nom(i), 10_000 + i)).collect());
    let site = autre_site(&banc);
    (banc, site)
}

fn rien_de_cree(banc: &Banc, site: &str) {
    let c = banc.compteurs();
    assert_eq!(c.requetes(Operation::ApiCreerParticipation), 0);
    assert_eq!(c.requetes(Operation::ApiDeclarerFichier), 0);
    assert_eq!(c.octets_recus(), 0);
    assert!(banc.bac().participations(site).is_empty());
    assert_eq!(
        banc.bac().participations(SITE).len(),
        1,
        "seule celle d'essai"
    );
}

/// Une participation à créer : le numéro de site des noms est comparé au titre du site
/// donné (--site) avant toute création ; un autre de ses sites est un refus (code 2), dit,
/// sans rien créer ni envoyer. Le bon site, lui, est créé et reçoit la nuit, sans rien dire.
#[test]
fn participation_a_creer_sur_un_autre_site_refusee() {
    let (banc, site) = nuit_et_autre_site();
    let out = banc
        .depot_par_site(&site, "A1", DEBUT_NUIT, FIN_NUIT)
        .finir_en(2);
    let e = stderr(&out);
    contient(
        &e,
        &[
            "pas ceux de la participation à créer",
            "rien n'a été créé",
            "640139 dans les noms",
            "Vigiechiro - Point Fixe-640140",
            "vérifiez --site",
            "--forcer-participation",
        ],
    );
    assert!(!e.contains("nuit    :"), "la nuit est la bonne : {e}");
    rien_de_cree(&banc, &site);
    // Le cas juste : créée et déposée, comme avant, sans rien dire.
    let out = banc
        .depot_par_site(SITE, "A1", DEBUT_NUIT, FIN_NUIT)
        .finir_en(0);
    let e = stderr(&out);
    assert!(
        !e.contains("attention") && !e.contains("ne sont pas"),
        "{e}"
    );
    assert_eq!(banc.bac().participations(SITE).len(), 2);
}

/// Une participation à créer : la soirée des noms est comparée à --debut, --fin (dans le
/// fuseau de l'enregistreur, la règle d'une participation existante) ; un autre jour est un
/// refus (code 2), sans rien créer ni envoyer.
#[test]
fn participation_a_creer_un_autre_jour_refusee() {
    let (banc, site) = nuit_et_autre_site();
    let out = banc
        .depot_par_site(SITE, "A1", DEBUT_LENDEMAIN, FIN_LENDEMAIN)
        .finir_en(2);
    let e = stderr(&out);
    contient(
        &e,
        &[
            "pas ceux de la participation à créer",
            "nuit    : dim. 21/06 dans les noms, lun. 22/06 pour la participation",
            "--debut",
            "--forcer-participation",
        ],
    );
    assert!(!e.contains("site    :"), "le site est le bon : {e}");
    rien_de_cree(&banc, &site);
}

/// Les deux écarts, en simulation et en JSON : l'avertissement `ecart_participation` dit
/// chaque écart, sans identifiant (elle n'en a pas encore), avant l'erreur (code 2) ; rien
/// n'est créé ni envoyé.
#[test]
fn participation_a_creer_les_ecarts_en_simulation_et_en_json() {
    let (banc, site) = nuit_et_autre_site();
    let out = banc
        .depot_par_site(&site, "A1", DEBUT_LENDEMAIN, FIN_LENDEMAIN)
        .args(["--simulation", "--json"])
        .finir_en(2);
    let lignes = lignes_json(&out.stdout);
    assert_eq!(evenements(&lignes, "erreur")[0]["code"], 2);
    let ecart = evenements(&lignes, "avertissement")
        .into_iter()
        .find(|a| a["motif"] == "ecart_participation")
        .unwrap_or_else(|| panic!("{}", texte(&out)));
    assert!(ecart.get("participation").is_none(), "{ecart}");
    assert_eq!(
        ecart["ecarts"],
        json!([
            {"champ": "site", "noms": "640139",
             "participation": "Vigiechiro - Point Fixe-640140"},
            {"champ": "soiree", "noms": "2026-06-21", "participation": "2026-06-22"},
        ]),
        "{}",
        texte(&out)
    );
    rien_de_cree(&banc, &site);
}

/// Voulu : --forcer-participation crée la participation au site et à la nuit donnés, y
/// dépose, et dit chaque écart.
#[test]
fn participation_a_creer_au_mauvais_site_et_a_la_mauvaise_nuit_forcee() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=2).map(|i| (nom(i), 10_000 + i)).collect());
    let site = autre_site(&banc);
    let out = banc
        .depot_par_site(&site, "A1", DEBUT_LENDEMAIN, FIN_LENDEMAIN)
        .arg("--forcer-participation")
        .finir_en(0);
    let e = stderr(&out);
    contient(
        &e,
        &[
            "attention : ces fichiers ne sont pas ceux de la participation à créer",
            "--forcer-participation",
            "640139 dans les noms",
            "lun. 22/06 pour la participation",
        ],
    );
    let creees = banc.bac().participations(&site);
    assert_eq!(creees.len(), 1, "{creees:?}");
    for (n, t) in &fichiers {
        assert!(
            banc.objet_plateforme(&creees[0].id, n) == contenu(n, *t),
            "{n}"
        );
    }
}

// ------------------------------------------------------------------------ noms

/// Un nom de point fixe sans les millisecondes : refusé par le serveur, préparé par vigie.
const SANS_MILLISECONDES: &str = "Car640380-2026-Pass1-A1-OB-1_20260621_224038.wav";

/// Chaque règle, acceptée et refusée, avec le même verdict que le serveur
/// (la déclaration sur la plateforme locale, qui imite `fichier_create`) ; rien ne part si un
/// nom est refusé, sauf l'original d'une carte brute, préparé sous un nom de séquence.
#[test]
fn chaque_regle_de_nom_meme_verdict_que_le_serveur() {
    let banc = Banc::nouveau();
    let fixe = |milieu: &str| format!("Car640380-2026-{milieu}-OB-1_20260621_224038_761.wav");
    let routier = |milieu: &str| format!("Cir270-2026-{milieu}-Chiro_0_00018_000.wav");
    let cas: Vec<(String, bool)> = vec![
        (fixe("Pass1-A1"), true),
        (fixe("Pass01-A1"), true),
        (fixe("Pass0-A1"), false),
        (fixe("Pass00-A1"), false),
        (fixe("Pass123-A1"), false),
        (fixe("Pass1-H2"), true),
        (fixe("Pass1-I1"), false),
        (fixe("Pass1-Z10"), true),
        (fixe("Pass1-Z0"), false),
        (routier("Pass1-Tron1"), true),
        (routier("Pass1-Tron10"), true),
        (routier("Pass1-Tron0"), false),
        (routier("Pass1-Tron123"), false),
        (fixe("Pass1-A1").replace(".wav", ".ta"), true),
        (fixe("Pass1-A1").replace(".wav", ".WAV"), false),
        (fixe("Pass1-A1").replace("OB-1", "OB 1"), false),
        (SANS_MILLISECONDES.into(), false),
        ("nuit.zip".into(), true),
        ("nuit.zip.12345".into(), true),
        ("nuit.z123".into(), true),
        ("nuit.Z01".into(), false),
        ("Nuit du 3 juin.zip".into(), false),
    ];
    let depot_de = |dossier: &std::path::Path, options: &[&str]| {
        banc.vigie_plateforme()
            .arg("depot")
            .arg(dossier)
            .args(["--participation", PARTICIPATION, "--api"])
            .arg(banc.bac().api())
            .args(options)
            .sortie()
    };
    for (i, (titre, accepte)) in cas.iter().enumerate() {
        // Le verdict de vigie : la validation avant tout envoi (en simulation, sans réseau).
        let dossier = banc.dossier.path().join(format!("nuit-{i}"));
        std::fs::create_dir_all(&dossier).unwrap();
        std::fs::write(dossier.join(titre), contenu(titre, 100)).unwrap();
        // (La simulation compare aussi les noms à la participation : ceux d'un autre site ou
        // point n'y sont acceptés que forcés, ce qui n'est pas ce que cet essai regarde.)
        let out = depot_de(&dossier, &["--simulation", "--forcer-participation"]);
        let vigie_accepte = code(&out) == 0;
        // Le verdict du serveur.
        let (statut, v) = banc.appel_api(
            reqwest::Method::POST,
            "/fichiers",
            json!({ "titre": titre, "lien_participation": PARTICIPATION }),
        );
        assert_eq!(statut == 201, *accepte, "serveur, {titre} : {statut} {v}");
        if titre == SANS_MILLISECONDES {
            // Un WAV horodaté sans nom de séquence est un original d'une carte brute : vigie le
            // prépare (tranches de 5 s, `_000`), et le nom refusé par le serveur ne part jamais.
            let sequence = SANS_MILLISECONDES.replace(".wav", "_000.wav");
            assert!(
                vigie_accepte && stdout(&out).contains(&format!("→ {sequence}")),
                "vigie, {titre} : {}",
                texte(&out)
            );
            continue;
        }
        assert_eq!(vigie_accepte, *accepte, "vigie, {titre} : {}", texte(&out));
    }

    // Une nuit où un seul nom est refusé : rien ne part.
    let dossier = banc.dossier.path().join("nuit-melee");
    std::fs::create_dir_all(&dossier).unwrap();
    for (titre, _) in cas.iter().filter(|(_, a)| *a).take(3) {
        std::fs::write(dossier.join(titre), contenu(titre, 100)).unwrap();
    }
    std::fs::write(dossier.join(fixe("Pass1-Z0")), b"RIFF").unwrap();
    let avant = banc.compteurs().requetes_total();
    let out = depot_de(&dossier, &[]);
    assert_eq!(code(&out), 2, "{}", texte(&out));
    assert!(stderr(&out).contains("point « Z0 »"), "{}", texte(&out));
    assert_eq!(banc.compteurs().requetes_total(), avant);

    // Les noms acceptés partent et sont déposés (deux points, A1 et H2 : une seule
    // participation les reçoit seulement si c'est voulu).
    std::fs::remove_file(dossier.join(fixe("Pass1-Z0"))).unwrap();
    let out = depot_de(&dossier, &["--forcer-participation"]);
    assert_eq!(code(&out), 0, "{}", texte(&out));
    assert!(banc.bac().fichiers_disponibles_sans_objet().is_empty());
}

/// Le même verdict sur quelques centaines de noms tirés (graine fixe) parmi les variantes de
/// chaque morceau d'un nom : la règle de `vigie` et la déclaration de la plateforme.
#[test]
fn verdict_de_vigie_et_de_la_plateforme_sur_des_noms_tires() {
    let banc = Banc::nouveau();
    let choisir = |a: &mut Alea, l: &[&'static str]| l[a.entre(0, l.len() as u64 - 1) as usize];
    let mut alea = Alea::graine(0x0B5E_2026);
    let mut noms = std::collections::BTreeSet::new();
    while noms.len() < 300 {
        let a = &mut alea;
        let routier = a.entre(0, 2) == 0;
        let debut = if routier {
            choisir(a, &["Cir270", "Cir", "cir270", "Car640380"])
        } else {
            choisir(a, &["Car640380", "Car", "car640380", "Cir270", "X"])
        };
        let annee = choisir(a, &["2026", "2026", "26", "20266"]);
        let passage = choisir(
            a,
            &[
                "Pass0", "Pass00", "Pass1", "Pass01", "Pass09", "Pass10", "Pass99", "Pass100",
            ],
        );
        let milieu = if routier {
            choisir(
                a,
                &["Tron0", "Tron1", "Tron01", "Tron10", "Tron100", "Tron"],
            )
        } else {
            choisir(a, &["A1", "H2", "A3", "I1", "Z0", "Z1", "Z01", "Z10", "z1"])
        };
        let fin = if routier {
            choisir(
                a,
                &[
                    "-Chiro_0_00018_000",
                    "-Chiro_1_18_000",
                    "-Chiro_2_18_000",
                    "-Chiro_18_00",
                    "-Chiro_x_000",
                ],
            )
        } else {
            choisir(
                a,
                &[
                    "-OB-1_20260621_224038_761",
                    "-_20260621_224038_761",
                    "-OB-1_20260621_224038",
                    "-OB 1_20260621_224038_761",
                ],
            )
        };
        let extension = choisir(
            a,
            &[
                ".wav", ".wav", ".WAV", ".ta", ".tac", ".tc", ".tcc", ".zip", ".zip.1", ".z12",
                ".png", ".mp3", "",
            ],
        );
        noms.insert(format!(
            "{debut}-{annee}-{passage}-{milieu}{fin}{extension}"
        ));
    }
    let mut acceptes = 0;
    for titre in &noms {
        let (statut, v) = banc.appel_api(
            reqwest::Method::POST,
            "/fichiers",
            json!({ "titre": titre, "lien_participation": PARTICIPATION }),
        );
        let serveur = statut == 201;
        assert!(serveur || statut == 422, "{titre} : {statut} {v}");
        let vigie = vigie::inventaire::verdict_plateforme(titre).is_ok();
        assert_eq!(
            vigie, serveur,
            "{titre} : vigie {vigie}, plateforme {statut} {v}"
        );
        acceptes += usize::from(serveur);
    }
    // Le tirage couvre les deux verdicts.
    assert!(
        acceptes > 20 && acceptes < noms.len() - 20,
        "{acceptes} acceptés"
    );
}

// ------------------------------------------------------------------------ déclaration

/// Un enregistrement laissé par un envoi simple interrompu (le site web),
/// puis `vigie depot`, en PUT simple comme en multipart ; et l'inverse, un enregistrement
/// multipart rendu à une déclaration simple. Aucune unité en échec.
#[test]
fn enregistrements_laisses_par_un_autre_client_repris_sans_echec() {
    let banc = Banc::nouveau();
    // Petit fichier (PUT simple) et gros fichier (multipart au-delà de 5 Mio ici) laissés par
    // le site web.
    let petit = (nom(1), 50_000);
    let gros = (nom(2), 7 * MIO + 11);
    let id_petit = banc.envoi_du_site_web_interrompu(PARTICIPATION, &petit.0);
    let id_gros = banc.envoi_du_site_web_interrompu(PARTICIPATION, &gros.0);
    // Un enregistrement multipart laissé (un ancien envoi en plusieurs parties abandonné),
    // pour un fichier qui part maintenant en un seul PUT.
    let multi = (nom(3), 30_000);
    let id_multi = banc.envoi_multipart_abandonne(PARTICIPATION, &multi.0);
    for (n, t) in [&petit, &gros, &multi] {
        banc.fichier(n, *t);
    }
    let orphelins_avant = banc.bac().envois_orphelins().len();

    banc.depot_plateforme().mots("--paralleles 1").finir_en(0);
    let etat = banc.etat();
    assert_unites(&etat, &[("deposee", 3), ("echec", 0)]);
    for (n, t) in [&petit, &gros, &multi] {
        let f = banc.bac().fichier(PARTICIPATION, n).unwrap();
        assert!(f.disponible && !f.multipart, "{n} : {f:?}");
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
    // Les enregistrements du site web sont repris tels quels (même _id) ; le multipart laissé
    // a été supprimé (son envoi S3 abandonné) puis redéclaré.
    assert_eq!(
        banc.bac().fichier(PARTICIPATION, &petit.0).unwrap().id,
        id_petit
    );
    assert_eq!(
        banc.bac().fichier(PARTICIPATION, &gros.0).unwrap().id,
        id_gros
    );
    assert_ne!(
        banc.bac().fichier(PARTICIPATION, &multi.0).unwrap().id,
        id_multi
    );
    assert_eq!(banc.bac().fichiers().len(), 3);
    // L'inventaire distant a montré l'enregistrement du gros fichier, sans envoi multipart :
    // il part en un PUT, sans déclaration multipart (qui, sur le vrai serveur, ouvre un envoi
    // S3 avant de trouver l'enregistrement existant : un orphelin).
    assert_eq!(banc.bac().envois_orphelins().len(), orphelins_avant);
    assert_eq!(banc.requetes(Operation::ApiPiecesJointes), 1);
    assert!(banc.bac().fichiers_disponibles_sans_objet().is_empty());
}

/// La plateforme refuse le multipart (S3 refuse d'ouvrir l'envoi) : repli
/// en PUT simple, retenu pour le plan (la relance ne le redemande pas).
#[test]
fn multipart_refuse_par_la_plateforme_repli_en_put_simple_retenu_pour_le_plan() {
    let banc = Banc::nouveau();
    banc.bac().refuser_multipart(true);
    let fichiers = [
        (nom(1), 7 * MIO + 1),
        (nom(2), 11 * MIO + 3),
        (nom(3), 40_000),
    ];
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    banc.depot_plateforme().mots("--paralleles 1").finir_en(0);
    for (n, t) in &fichiers {
        let f = banc.bac().fichier(PARTICIPATION, n).unwrap();
        assert!(f.disponible && !f.multipart, "{n}");
        assert!(
            banc.objet_plateforme(PARTICIPATION, n) == contenu(n, *t),
            "{n}"
        );
    }
    // Une déclaration multipart refusée (500) par fichier ouvert à ce moment-là, au plus (deux
    // par place de transfert : les deux gros fichiers ont pu déclarer ensemble) ; les suivantes
    // partent en simple.
    let c = banc.compteurs();
    let refusees =
        c.requetes(Operation::ApiDeclarerFichier) - c.traitees(Operation::ApiDeclarerFichier);
    assert!((1..=2).contains(&refusees), "{refusees} refusées");
    assert_eq!(c.requetes(Operation::UploadPart), 0);
    let refus: Option<i64> = rusqlite::Connection::open(&banc.base)
        .unwrap()
        .query_row("SELECT multipart_refuse_le FROM depot_plan", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(refus.is_some(), "refus non retenu dans le plan");
    let etat = stdout(&banc.vigie().arg("etat").sortie());
    contient(&etat, &["refuse l'envoi en plusieurs parties"]);

    // La relance, même la plateforme rétablie, ne redemande pas le multipart.
    banc.bac().refuser_multipart(false);
    banc.fichier(&nom(4), 6 * MIO);
    banc.depot_plateforme().finir_en(0);
    assert!(
        !banc
            .bac()
            .fichier(PARTICIPATION, &nom(4))
            .unwrap()
            .multipart
    );
    let c = banc.compteurs();
    assert_eq!(
        c.requetes(Operation::ApiDeclarerFichier) - c.traitees(Operation::ApiDeclarerFichier),
        refusees,
        "la relance a redemandé le multipart"
    );
    assert!(
        banc.bac()
            .envois_en_cours(COMPARTIMENT_PLATEFORME)
            .is_empty()
    );
}

/// `422 not a multipart` à l'URL d'une partie (un enregistrement rendu
/// comme multipart qui n'en tient pas) : repli en PUT simple, retenu pour le plan.
#[test]
fn pas_un_multipart_a_l_url_d_une_partie_repli_en_put_simple() {
    let banc = Banc::nouveau();
    let gros = (nom(1), 6 * MIO + 5);
    banc.fichier(&gros.0, gros.1);
    banc.envoi_du_site_web_interrompu(PARTICIPATION, &gros.0);
    // Une passerelle fait croire à un envoi multipart que l'enregistrement n'a pas, et cache
    // l'enregistrement à l'inventaire distant (qui le ferait partir en un PUT d'emblée).
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |q, r| {
        if q.methode == "GET" && q.chemin.contains("/pieces_jointes") && r.statut == 200 {
            let mut v: Value = serde_json::from_slice(&r.corps).unwrap();
            v["_items"] = json!([]);
            v["_meta"]["total"] = json!(0);
            r.corps = v.to_string().into_bytes();
        }
        let multipart = String::from_utf8_lossy(&q.corps).contains("\"multipart\":true");
        if q.methode == "POST" && q.chemin == "/api/v1/fichiers" && multipart && r.statut == 201 {
            let mut v: Value = serde_json::from_slice(&r.corps).unwrap();
            v["s3_upload_multipart_id"] = json!("envoi-fantome");
            r.corps = v.to_string().into_bytes();
        }
    });
    banc.depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .finir_en(0);
    let vues = m.requetes();
    assert!(
        vues.iter()
            .any(|q| q.methode == "PUT" && q.chemin.ends_with("/multipart")),
        "aucune URL de partie demandée"
    );
    assert!(banc.finalise(PARTICIPATION, &gros.0));
    assert!(banc.objet_plateforme(PARTICIPATION, &gros.0) == contenu(&gros.0, gros.1));
    let refus: Option<i64> = rusqlite::Connection::open(&banc.base)
        .unwrap()
        .query_row("SELECT multipart_refuse_le FROM depot_plan", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(refus.is_some(), "refus non retenu dans le plan");
}

// ------------------------------------------------------------------------ adresse de l'API

/// Une adresse qui rend du HTML (la page du site) ou un 404 n'est pas
/// l'API : code 2, un message qui nomme --api et VIGIE_API, jamais de nouvelle tentative.
#[test]
fn adresse_qui_n_est_pas_l_api_code_2_sans_nouvelle_tentative() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let site = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |_, r| {
        r.statut = 200;
        r.remplacer_entete("content-type", "text/html; charset=utf-8");
        r.corps = b"<!DOCTYPE html><html><head><title>Vigie-Chiro</title></head></html>".to_vec();
    });
    let api_html = format!("{}/api/v1", site.endpoint());
    let commandes: Vec<Vec<String>> = vec![
        vec![
            "depot".into(),
            banc.nuit.to_str().unwrap().into(),
            "--participation".into(),
            PARTICIPATION.into(),
        ],
        vec![
            "depot".into(),
            banc.nuit.to_str().unwrap().into(),
            "--site".into(),
            SITE.into(),
            "--point".into(),
            "B2".into(),
            "--debut".into(),
            DEBUT_NUIT.into(),
            "--fin".into(),
            FIN_NUIT.into(),
        ],
        vec![
            "traiter".into(),
            "--participation".into(),
            PARTICIPATION.into(),
        ],
        vec!["connexion".into(), "--jeton".into(), JETON.into()],
    ];
    for (i, args) in commandes.iter().enumerate() {
        let out = banc
            .vigie_plateforme()
            .args(args)
            .args(["--api", &api_html])
            .sortie();
        assert_eq!(code(&out), 2, "{args:?} : {}", texte(&out));
        let e = stderr(&out);
        assert!(
            e.contains("n'est pas l'API Vigie-Chiro")
                && e.contains("--api")
                && e.contains("VIGIE_API")
                && e.contains("page HTML"),
            "{args:?} : {e}"
        );
        assert_eq!(
            site.requetes().len(),
            i + 1,
            "{args:?} : une nouvelle tentative"
        );
    }
    // Arrêtées avant tout envoi, ces commandes n'ont pas créé de base.
    assert!(!banc.base.exists(), "la base a été créée");
    // La racine du serveur (le S3 du bac à sable y répond en XML) : pas l'API non plus.
    let out = banc
        .vigie_plateforme()
        .args(["traiter", "--participation", PARTICIPATION, "--api"])
        .arg(banc.bac().endpoint())
        .finir_en(2);
    out.stderr_contient(&["n'est pas l'API Vigie-Chiro"]);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0);
}

// ------------------------------------------------------------------------ ne rien croire

/// Une participation mal écrite, ou inexistante, est dite avant tout
/// envoi, code 2, en un message.
#[test]
fn participation_mal_ecrite_ou_inexistante_code_2_avant_tout_envoi() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let depot = |participation: &str| banc.depot_dans(participation, &banc.bac().api()).sortie();
    let out = depot("junk");
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = stderr(&out);
    assert_eq!(e.lines().count(), 1, "un seul message : {e}");
    assert!(e.contains("24 chiffres hexadécimaux"), "{e}");
    assert_eq!(banc.compteurs().requetes_total(), 0);

    let out = depot("64a1b2c3d4e5f60718293dff");
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let e = stderr(&out);
    assert_eq!(e.lines().count(), 1, "un seul message : {e}");
    assert!(e.contains("n'existe pas"), "{e}");
    let c = banc.compteurs();
    assert_eq!(c.requetes(Operation::ApiDeclarerFichier), 0);
    assert_eq!(c.requetes(Operation::PutObject), 0);

    banc.vigie_plateforme()
        .mots("traiter --participation junk --api")
        .arg(banc.bac().api())
        .finir_en(2);
    assert_eq!(banc.requetes(Operation::ApiCalcul), 0);
}

/// Un `_id` rendu par la plateforme qui n'est pas un ObjectId est une
/// réponse illisible ; aucune URL n'est fabriquée avec.
#[test]
fn identifiant_de_fichier_qui_n_est_pas_un_object_id_jamais_dans_une_url() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let m = retoucher_declarations(&banc, "titre", |v| v["_id"] = json!("../../moi?x="));
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .sortie();
    assert_ne!(code(&out), 0, "{}", texte(&out));
    for q in m.requetes() {
        assert!(
            !q.chemin.contains("moi?x") && !q.chemin.contains(".."),
            "URL fabriquée avec l'identifiant rendu : {} {}",
            q.methode,
            q.chemin
        );
        assert!(
            !(q.methode == "POST" && q.chemin.starts_with("/api/v1/fichiers/")),
            "finalisation émise : {}",
            q.chemin
        );
    }
    assert!(!banc.finalise(PARTICIPATION, &nom(1)));
    assert_eq!(banc.etat()["unites"]["deposee"], 0);
}

/// Le refus d'un fichier par la plateforme (422) se lit dans `_errors`,
/// en clair et court, jamais en JSON brut, dans la sortie comme dans `vigie etat`.
#[test]
fn refus_d_un_fichier_dit_le_texte_de_errors() {
    let banc = Banc::avec_fichier(&nom(1), 10_000);
    let m = mandataire::Mandataire::demarrer(&banc.rt, banc.bac().adresse(), |q, r| {
        if q.methode == "POST" && q.chemin == "/api/v1/fichiers" {
            r.statut = 422;
            r.corps = json!({
                "_status": "422 Unprocessable Entity: {'titre': 'invalid name X.wav'}",
                "_errors": { "titre": "invalid name X.wav" },
            })
            .to_string()
            .into_bytes();
        }
    });
    let out = banc
        .depot_plateforme_via(&format!("{}/api/v1", m.endpoint()))
        .finir_en(3);
    let e = stderr(&out);
    let francais = "nom refusé par la plateforme, hors des protocoles Vigie-Chiro : X.wav";
    assert!(e.contains(&format!("refusé (422) : {francais}")), "{e}");
    let etat = stdout(&banc.vigie().arg("etat").sortie());
    assert!(etat.contains(francais), "{etat}");
    for sortie in [&e, &etat] {
        assert!(
            !sortie.contains("_errors") && !sortie.contains("{'") && !sortie.contains("invalid"),
            "JSON brut : {sortie}"
        );
    }
}
