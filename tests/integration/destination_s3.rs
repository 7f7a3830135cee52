//! Ce que la destination S3 dit d'elle-même avant qu'un octet parte : un refus qui vaut pour
//! toute la destination (clé secrète fausse, compartiment mal écrit, horloge du portable
//! fausse) arrête tout avant le premier fichier ; ce qu'elle tient déjà, identique (la même
//! nuit depuis un autre chemin), ne repart pas, et l'autre plan qui la vise est nommé.
//! Chaque promesse est tenue contre le bac à sable et contre moto (second avis).

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::path::Path;
use std::process::{Command, Output};

use crate::commun::moto::{self, MandatairePannes};
use crate::commun::plateforme::nom;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Regle};

/// Une nuit de trente séquences de 100 Kio.
fn nuit_de_30(banc: &Banc) -> Vec<(String, usize)> {
    banc.fichiers((1..=30).map(|i| (nom(i), 100 * 1024 + i)).collect())
}

/// Aucun plan ne reste d'un dépôt arrêté avant tout envoi.
fn aucun_plan(banc: &Banc) {
    let plans = banc.vigie().mots("plans --json").sortie();
    assert!(stdout(&plans).trim().is_empty(), "{}", texte(&plans));
}

/// Un refus de toute la destination : code 3, le message qui dit quoi corriger (`attendus`),
/// jamais « droits insuffisants » pour autre chose que des droits.
fn refus_dit(out: &Output, attendus: &[&str]) {
    let tout = texte(out);
    assert_eq!(code(out), 3, "{tout}");
    let erreur = stderr(out);
    for a in attendus {
        assert!(erreur.contains(a), "« {a} » absent : {tout}");
    }
    assert!(erreur.contains("rien n'a été envoyé"), "{tout}");
    assert!(!erreur.contains("droits insuffisants"), "{tout}");
}

/// Les trois refus de toute la destination, et ce que le message doit dire pour chacun.
const REFUS: [(&str, &[&str]); 3] = [
    (
        "cle",
        &["SignatureDoesNotMatch", "Corrigez AWS_SECRET_ACCESS_KEY"],
    ),
    ("compartiment", &["« nuitz » n'existe pas", "NoSuchBucket"]),
    (
        "horloge",
        &[
            "l'horloge de cet ordinateur retarde de 2 h 00 min",
            "Mettez l'ordinateur à l'heure",
            "RequestTimeTooSkewed",
        ],
    ),
];

/// Clé secrète mal recopiée, compartiment mal écrit, horloge du portable fausse de deux
/// heures : une seule requête, la lecture de la liste des objets, sans corps ; pas un octet de
/// la nuit ne part (30 fichiers) ; code 3, le message dit quoi corriger (de combien l'horloge
/// est fausse) ; aucun plan ne reste. Une fois corrigé, le même dépôt part. Avant, les 30
/// fichiers partaient en entier pour se faire refuser chacun (3 Mio reçus ici, 10 à 40 Go
/// une vraie nuit).
#[test]
fn un_refus_de_toute_la_destination_arrete_tout_avant_le_premier_octet() {
    for (quoi, attendus) in REFUS {
        let banc = Banc::nouveau();
        let fichiers = nuit_de_30(&banc);
        let mut depot = banc.depot();
        match quoi {
            "cle" => {
                depot.env("AWS_SECRET_ACCESS_KEY", "mal-recopiee");
            }
            "compartiment" => {
                depot = banc.depot_vers(&banc.nuit, "nuitz", &banc.bac().endpoint());
            }
            _ => banc.panne(Regle::toujours(None, Panne::Horloge(7200))),
        }
        let out = depot.sortie();
        let compteurs = banc.compteurs();
        assert_eq!(compteurs.octets_recus(), 0, "{quoi} : {}", texte(&out));
        assert_eq!(
            compteurs.requetes_total(),
            1,
            "{quoi} : une seule requête, la liste des objets"
        );
        assert_eq!(compteurs.requetes(Operation::ListObjects), 1, "{quoi}");
        refus_dit(&out, attendus);
        aucun_plan(&banc);

        // Corrigé : le même dépôt part.
        banc.bac().pannes().effacer();
        let out = banc.depot().sortie();
        assert_eq!(code(&out), 0, "{quoi} : {}", texte(&out));
        banc.verifier_identiques(&fichiers);
    }
}

/// Le second avis : moto, qui vérifie ici la signature (utilisateur IAM, authentification
/// activée) et ne connaît pas le compartiment mal écrit ; l'horloge décalée est celle du
/// mandataire placé devant lui (moto ne vérifie pas l'heure). Une seule requête reçue, pas un
/// objet écrit, code 3 et le même message.
#[test]
fn un_refus_de_toute_la_destination_arrete_tout_contre_moto() {
    let Some(serveur) = moto::moto_authentifie() else {
        return;
    };
    let banc = Banc::nouveau();
    let fichiers = nuit_de_30(&banc);
    let client = serveur.client();
    let compartiment = "refus-destination";
    banc.rt
        .block_on(client.create_bucket().bucket(compartiment).send())
        .unwrap();
    let depot = |mandataire: &MandatairePannes, compartiment: &str| {
        let mut c = banc.depot_vers(&banc.nuit, compartiment, &mandataire.endpoint());
        c.env("AWS_ACCESS_KEY_ID", &serveur.cle)
            .env("AWS_SECRET_ACCESS_KEY", &serveur.secret);
        c
    };
    for (quoi, attendus) in REFUS {
        let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.moto.adresse);
        let mut c = depot(&mandataire, compartiment);
        match quoi {
            "cle" => {
                c.env("AWS_SECRET_ACCESS_KEY", "mal-recopiee");
            }
            "compartiment" => c = depot(&mandataire, "nuitz"),
            _ => mandataire
                .pannes
                .programmer(Regle::toujours(None, Panne::Horloge(7200))),
        }
        let out = c.sortie();
        assert_eq!(mandataire.requetes(), 1, "{quoi} : {}", texte(&out));
        refus_dit(&out, attendus);
        assert!(
            banc.rt
                .block_on(moto::objets(&client, compartiment))
                .is_empty(),
            "{quoi} : un objet a été écrit"
        );
        aucun_plan(&banc);
    }
    // Corrigé : le même dépôt part, chez moto.
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.moto.adresse);
    depot(&mandataire, compartiment).finir_en(0);
    assert_eq!(
        banc.rt.block_on(moto::objets(&client, compartiment)).len(),
        fichiers.len()
    );
}

/// Un refus de toute la destination qui n'arrive qu'en plein passage (ici l'horloge, partie
/// à la dérive après la lecture de la destination : un portable sorti de veille à une heure
/// fausse, ou dont l'heure murale saute) : le premier envoi refusé arrête le passage, les
/// suivants échouent de même sans rien émettre. Un seul PUT, code 3, chaque fichier en refus
/// définitif HORLOGE qui dit l'écart ; le bilan et le conseil « Ensuite » disent l'horloge,
/// jamais les identifiants ; l'heure remise, `retenter-echecs` (sans autre option) dépose
/// tout. `decalage` : l'avance de l'horloge du service, en secondes (le portable retarde
/// d'autant).
fn refus_en_plein_passage(
    banc: &Banc,
    pannes: &vigie_bac_a_sable::Pannes,
    mut depot: Command,
    decalage: i64,
    ecart_dit: &str,
) {
    pannes.programmer(Regle::toujours(
        Some(Operation::PutObject),
        Panne::Horloge(decalage),
    ));
    depot.mots("--paralleles 1 --progression jamais");
    let out = depot.sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 3, "{tout}");
    assert!(tout.contains(ecart_dit), "{tout}");
    let sortie = String::from_utf8_lossy(&out.stdout);
    assert!(
        sortie.contains("HORLOGE") && sortie.contains("mettez l'ordinateur à l'heure"),
        "{sortie}"
    );
    assert!(
        sortie.contains("Ensuite : mettez l'ordinateur à l'heure, puis vigie retenter-echecs"),
        "{sortie}"
    );
    assert!(!tout.contains("identifiants S3"), "{tout}");
    let definitifs = banc.unites("definitif");
    assert_eq!(definitifs.len(), 10, "{tout}");
    assert!(
        definitifs.iter().all(|u| u["cause"] == "HORLOGE"),
        "{definitifs:?}"
    );
    pannes.effacer();
    banc.retenter().finir_en(0);
}

/// L'horloge murale du portable saute pendant un dépôt S3, d'une heure en avant ou de deux en
/// arrière : le bilan et « Ensuite » disent l'horloge, pas « identifiants S3 refusés ».
#[test]
fn une_horloge_qui_saute_pendant_un_depot_s3_le_bilan_dit_l_horloge() {
    for (decalage, ecart_dit) in [
        (-3600, "avance de 1 h 00 min"),
        (7200, "retarde de 2 h 00 min"),
    ] {
        let banc = Banc::nouveau();
        let fichiers = banc.fichiers((1..=10).map(|i| (nom(i), 20_000 + i)).collect());
        refus_en_plein_passage(
            &banc,
            banc.bac().pannes(),
            banc.depot(),
            decalage,
            ecart_dit,
        );
        banc.verifier_identiques(&fichiers);
    }
}

#[test]
fn un_refus_de_toute_la_destination_en_plein_passage_arrete_les_suivants() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=10).map(|i| (nom(i), 50_000 + i)).collect());
    refus_en_plein_passage(
        &banc,
        banc.bac().pannes(),
        banc.depot(),
        7200,
        "retarde de 2 h 00 min",
    );
    assert_eq!(
        banc.requetes(Operation::PutObject),
        1 + 10,
        "un PUT refusé, puis les dix de retenter-echecs"
    );
    banc.verifier_identiques(&fichiers);

    let Some(serveur) = moto::moto() else {
        return;
    };
    let banc = Banc::nouveau();
    for (n, t) in &fichiers {
        banc.fichier(n, *t);
    }
    let client = serveur.client();
    banc.rt
        .block_on(client.create_bucket().bucket("refus-en-passage").send())
        .unwrap();
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
    let depot = banc.depot_vers(&banc.nuit, "refus-en-passage", &mandataire.endpoint());
    refus_en_plein_passage(
        &banc,
        &mandataire.pannes,
        depot,
        7200,
        "retarde de 2 h 00 min",
    );
    let par_op = mandataire.requetes_par_operation();
    assert_eq!(
        par_op.get(&Operation::PutObject),
        Some(&(1 + 10)),
        "{par_op:?}"
    );
    assert_eq!(
        banc.rt
            .block_on(moto::objets(&client, "refus-en-passage"))
            .len(),
        10
    );
}

/// `AccessDenied` ne vaut pas pour toute la destination : une politique du compartiment peut
/// refuser certaines clés et pas d'autres, et des identifiants qui écrivent sans pouvoir lister
/// sont courants. La liste refusée, le dépôt se fait sans elle (un avertissement le dit) ; un
/// fichier refusé n'arrête pas les autres.
#[test]
fn un_acces_refuse_ne_vaut_que_pour_ce_qu_il_refuse() {
    let banc = Banc::nouveau();
    let fichiers = banc.fichiers((1..=6).map(|i| (nom(i), 30_000 + i)).collect());
    let refus = code_http(403);
    banc.panne_toujours(Operation::ListObjects, refus.clone());
    banc.panne(
        Regle::toujours(Some(Operation::PutObject), refus).sur_cle(&banc.cle(&fichiers[0].0)),
    );
    let out = banc
        .depot_avec(&["--paralleles".to_owned(), "1".to_owned()])
        .sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 3, "{tout}");
    assert!(tout.contains("pas le droit de lister"), "{tout}");
    banc.verifier_identiques(&fichiers[1..]);
    assert_eq!(banc.unites("definitif").len(), 1, "{tout}");
}

/// Copie la nuit ailleurs (la carte montée sous un autre chemin, ou copiée sur le disque).
fn copier_la_nuit(banc: &Banc) -> std::path::PathBuf {
    let copie = banc.dossier.path().join("SD1");
    for e in walk(&banc.nuit) {
        let rel = e.strip_prefix(&banc.nuit).unwrap();
        let cible = copie.join(rel);
        std::fs::create_dir_all(cible.parent().unwrap()).unwrap();
        std::fs::copy(&e, &cible).unwrap();
    }
    copie
}

fn walk(d: &Path) -> Vec<std::path::PathBuf> {
    let mut fichiers = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            fichiers.extend(walk(&e.path()));
        } else {
            fichiers.push(e.path());
        }
    }
    fichiers
}

/// La même nuit, depuis un autre chemin, vers la même destination : l'autre plan est nommé,
/// et rien ne repart (la destination est lue, chaque objet de même clé, même taille et même
/// empreinte compté « déjà à la destination », envois en parties compris) ; `vigie verifier`
/// trouve tout intact. Avant, le nouveau plan renvoyait les 20 fichiers (63 Mio ici).
/// Rend la clé et le contenu du fichier modifié.
fn meme_nuit_ailleurs(
    banc: &Banc,
    depot: impl Fn(&Path) -> Command,
    rien_ne_part: impl Fn() -> u64,
) -> (String, Vec<u8>) {
    let fichiers = banc.nuit_de_20();
    depot(&banc.nuit).finir_en(0);
    let copie = copier_la_nuit(banc);
    let avant = rien_ne_part();
    let mut c = depot(&copie);
    c.arg("--json");
    let out = c.sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 0, "{tout}");
    assert_eq!(rien_ne_part(), avant, "des fichiers sont repartis : {tout}");
    let lignes = lignes_json(&out.stdout);
    let avertissement = evenements(&lignes, "avertissement");
    assert_eq!(avertissement.len(), 1, "{tout}");
    assert_eq!(avertissement[0]["motif"], "autre_plan");
    assert_eq!(avertissement[0]["plans"], serde_json::json!([1]));
    let nuit = crate::commun::chemin_str(&banc.nuit);
    assert!(
        avertissement[0]["dossiers"][0]
            .as_str()
            .is_some_and(|d| d.ends_with("/nuit") && nuit.ends_with("/nuit")),
        "{tout}"
    );
    assert_eq!(
        evenements(&lignes, "unite_deja_a_la_destination").len(),
        fichiers.len()
    );
    let bilan = evenements(&lignes, "bilan")[0];
    assert_eq!(bilan["deja_a_la_destination"], 20, "{bilan}");
    assert_eq!(bilan["deposees"], 20);
    assert_eq!(bilan["octets_envoyes"], 0);
    banc.vigie().mots("verifier 2").finir_en(0);

    // Un fichier de la copie modifié (même taille) : lui seul repart, et remplace l'objet.
    let (n, t) = &fichiers[0];
    let mut autre = contenu(n, *t);
    autre[10] ^= 0x55;
    std::fs::write(copie.join(n), &autre).unwrap();
    let mut c = depot(&copie);
    c.arg("--redeposer-modifies");
    let out = c.sortie();
    let tout = texte(&out);
    assert_eq!(code(&out), 0, "{tout}");
    assert!(tout.contains("le plan 1 (depuis"), "{tout}");
    (banc.cle(n), autre)
}

#[test]
fn la_meme_nuit_depuis_un_autre_chemin_ne_renvoie_rien_et_nomme_l_autre_plan() {
    let banc = Banc::nouveau();
    let (cle, autre) = meme_nuit_ailleurs(
        &banc,
        |d| banc.depot_vers(d, COMPARTIMENT, &banc.bac().endpoint()),
        || banc.compteurs().octets_recus(),
    );
    let objet = std::fs::read(banc.bac().chemin_objet(COMPARTIMENT, &cle)).unwrap();
    assert!(objet == autre, "l'objet n'a pas été remplacé");
}

#[test]
fn la_meme_nuit_depuis_un_autre_chemin_ne_renvoie_rien_contre_moto() {
    let Some(serveur) = moto::moto() else {
        return;
    };
    let banc = Banc::nouveau();
    let client = serveur.client();
    let compartiment = "meme-nuit";
    banc.rt
        .block_on(client.create_bucket().bucket(compartiment).send())
        .unwrap();
    let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
    // Ce qui écrirait un octet chez moto est compté : rien ne doit partir.
    let ecritures = || {
        [
            Operation::PutObject,
            Operation::UploadPart,
            Operation::CreateMultipartUpload,
        ]
        .iter()
        .map(|op| {
            mandataire
                .requetes_par_operation()
                .get(op)
                .copied()
                .unwrap_or(0)
        })
        .sum::<u64>()
    };
    let (cle, autre) = meme_nuit_ailleurs(
        &banc,
        |d| banc.depot_vers(d, compartiment, &mandataire.endpoint()),
        ecritures,
    );
    let objets = banc.rt.block_on(moto::objets(&client, compartiment));
    assert_eq!(objets.len(), 20);
    assert!(
        objets.iter().any(|(c, o)| *c == cle && *o == autre),
        "l'objet n'a pas été remplacé chez moto"
    );
}
