//! Le lien qui ment : des connexions mortes sans être fermées (un « trou noir » : le téléphone
//! a perdu le signal, puis changé d'adresse), un serveur qui répond sans fin ou au
//! compte-gouttes. Chaque essai tourne aux délais par défaut (`--delai-tentative 300`,
//! `--delai-blocage 30`), contre le bac à sable et, pour S3, contre moto : ce qui les borne
//! est le silence toléré par le lien, et la veille du réseau, jamais les 300 s.

// Ces essais parlent au bac à sable : sans lui (--no-default-features), ils ne sont pas compilés.
#![cfg(feature = "bac-a-sable")]

use std::process::Command;
use std::time::{Duration, Instant};

use crate::commun::moto::{self, MandatairePannes};
use crate::commun::plateforme::PARTICIPATION;
use crate::commun::*;
use vigie_bac_a_sable::{Operation, Panne, Pannes, Regle};

/// La durée du trou noir des essais, celle de l'issue : vingt secondes.
const TROU_NOIR: Duration = Duration::from_secs(20);

/// Les réglages des essais du lien : réessais rapides et petites parties, mais les délais par
/// défaut (`--delai-tentative 300`, `--delai-blocage 30`, pause réseau sans limite).
fn options() -> Vec<String> {
    [
        "--attente-base",
        "0.05",
        "--attente-max",
        "0.2",
        "--seuil-multipart",
        "5",
        "--taille-partie",
        "5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Un trou noir de vingt secondes à la sixième requête de données, chaque requête freinée de
/// 100 ms pour que la nuit soit en plein vol quand il tombe.
fn programmer_trou_noir(pannes: &Pannes, donnees: Operation) {
    pannes.programmer(Regle::nieme(donnees, None, 6, Panne::TrouNoir(TROU_NOIR)));
    pannes.programmer(Regle::proportion(1.0, lenteur_ms(100)));
}

/// Mène `depot` à travers le trou noir que `pannes` déclenchera, et rend sa sortie, et le
/// temps entre le retour du lien et la première requête de données traitée ensuite (`traitees`
/// : les requêtes de données traitées par le serveur jusqu'ici).
fn a_travers_le_trou_noir(
    banc: &Banc,
    depot: Command,
    pannes: &Pannes,
    traitees: impl Fn() -> u64,
) -> (std::process::Output, Duration) {
    let enfant = banc.lancer(depot);
    let debut = Instant::now();
    let fin = loop {
        if let Some(fin) = pannes.fin_du_trou_noir() {
            break fin;
        }
        assert!(
            debut.elapsed() < Duration::from_secs(60),
            "pas de trou noir"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Le lien revient à `fin` : ce qu'il reste du trou noir s'écoule, puis on attend la
    // première requête de données traitée après son retour.
    while Instant::now() < fin {
        std::thread::sleep(Duration::from_millis(20));
    }
    let avant = traitees();
    let reprise = loop {
        if traitees() > avant {
            break fin.elapsed();
        }
        assert!(
            fin.elapsed() < Duration::from_secs(120),
            "rien de traité deux minutes après le retour du lien"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    (attendre_fin(enfant, Duration::from_secs(300)), reprise)
}

/// Ce que le journal du plan doit dire d'une reprise qui vient de la veille : des tentatives
/// muettes coupées au silence toléré par le lien, ou abandonnées au retour du réseau, une
/// coupure sondée, et jamais le délai de tentative de 300 s.
fn la_reprise_vient_de_la_veille(banc: &Banc) {
    le_journal_dit(banc, |d| {
        d.detail.contains("aucune réponse du serveur")
            || d.detail.contains("transfert bloqué")
            || d.detail.contains("abandonnée au retour du réseau")
    });
    le_journal_dit(banc, |d| {
        d.methode == "SONDE" && d.raison.as_deref() == Some("succes")
    });
}

#[test]
fn un_trou_noir_de_vingt_secondes_s3_la_nuit_reprend_dans_les_dix_secondes() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    programmer_trou_noir(banc.bac().pannes(), Operation::PutObject);
    let compteurs = banc.bac().compteurs_partages();
    let (out, reprise) = a_travers_le_trou_noir(
        &banc,
        banc.depot_avec(&options()),
        banc.bac().pannes(),
        || compteurs.traitees(Operation::PutObject) + compteurs.traitees(Operation::UploadPart),
    );
    assert_eq!(code(&out), 0, "{}", texte(&out));
    banc.verifier_identiques(&fichiers);
    assert!(
        reprise < Duration::from_secs(10),
        "la nuit a repris {reprise:?} après le retour du lien"
    );
    la_reprise_vient_de_la_veille(&banc);
    let stderr = stderr(&out);
    assert!(stderr.contains("réseau indisponible"), "{stderr}");
}

#[test]
fn un_trou_noir_de_vingt_secondes_vigiechiro_la_nuit_reprend_dans_les_dix_secondes() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_12();
    programmer_trou_noir(banc.bac().pannes(), Operation::PutObject);
    let compteurs = banc.bac().compteurs_partages();
    let mut depot = banc.depot_plateforme_avec(&[]);
    depot.args(options());
    let (out, reprise) = a_travers_le_trou_noir(&banc, depot, banc.bac().pannes(), || {
        compteurs.traitees(Operation::PutObject) + compteurs.traitees(Operation::UploadPart)
    });
    assert_eq!(code(&out), 0, "{}", texte(&out));
    for (nom, taille) in &fichiers {
        assert!(
            banc.objet_plateforme(PARTICIPATION, nom) == contenu(nom, *taille),
            "{nom} : contenu différent"
        );
    }
    assert!(
        reprise < Duration::from_secs(10),
        "la nuit a repris {reprise:?} après le retour du lien"
    );
    la_reprise_vient_de_la_veille(&banc);
}

/// Un essai S3 contre moto : un compartiment neuf, le mandataire qui applique les pannes du
/// bac à sable devant lui. `None` si les essais contre moto sont sautés.
struct ContreMoto {
    banc: Banc,
    client: aws_sdk_s3::Client,
    mandataire: MandatairePannes,
    compartiment: &'static str,
}

impl ContreMoto {
    fn nouveau(compartiment: &'static str) -> Option<ContreMoto> {
        let serveur = moto::moto()?;
        let banc = Banc::nouveau();
        let client = serveur.client();
        banc.rt
            .block_on(client.create_bucket().bucket(compartiment).send())
            .expect("compartiment moto");
        let mandataire = MandatairePannes::demarrer(&banc.rt, serveur.adresse);
        Some(ContreMoto {
            banc,
            client,
            mandataire,
            compartiment,
        })
    }

    /// `vigie depot` de la nuit vers le compartiment, à travers le mandataire.
    fn depot(&self) -> Command {
        depot_s3_vers(&self.banc, &self.mandataire.endpoint(), self.compartiment)
    }

    /// Chaque fichier est chez moto, identique, et rien d'autre.
    fn verifier_identiques(&self, fichiers: &[(String, usize)]) {
        let objets = self
            .banc
            .rt
            .block_on(moto::objets(&self.client, self.compartiment));
        assert_eq!(
            objets.len(),
            fichiers.len(),
            "{:?}",
            objets.iter().map(|o| &o.0).collect::<Vec<_>>()
        );
        for (nom, taille) in fichiers {
            let cle = format!("{PREFIXE}/{nom}");
            let objet = objets
                .iter()
                .find(|(c, _)| *c == cle)
                .expect("objet chez moto");
            assert!(
                objet.1 == contenu(nom, *taille),
                "{nom} : contenu différent"
            );
        }
    }
}

/// Le second avis : moto, derrière le mandataire qui applique le même trou noir.
#[test]
fn un_trou_noir_de_vingt_secondes_contre_moto() {
    let Some(m) = ContreMoto::nouveau("trou-noir") else {
        return;
    };
    let fichiers = m.banc.nuit_de_20();
    programmer_trou_noir(&m.mandataire.pannes, Operation::PutObject);
    let (out, reprise) = a_travers_le_trou_noir(&m.banc, m.depot(), &m.mandataire.pannes, || {
        m.mandataire.donnees_traitees()
    });
    assert_eq!(code(&out), 0, "{}", texte(&out));
    m.verifier_identiques(&fichiers);
    assert!(
        reprise < Duration::from_secs(10),
        "la nuit a repris {reprise:?} après le retour du lien"
    );
    la_reprise_vient_de_la_veille(&m.banc);
}

// ------------------------------------------------------------------ certificats refusés

use crate::commun::tls::{AUTORITE, Certificat, FrontTls};

/// Mène `commande` ; sans la reconnaissance du certificat refusé, elle attendrait le réseau
/// sans fin (pause sans limite par défaut) : au-delà d'une minute, l'essai échoue.
fn mener(banc: &Banc, commande: Command) -> std::process::Output {
    attendre_fin(banc.lancer(commande), Duration::from_secs(60))
}

/// Ce qu'un certificat refusé ne doit jamais donner : des lignes anglaises du vérificateur, une
/// pause réseau, des sondes, un « réessayez quand le réseau sera revenu ».
fn ni_anglais_ni_attente(out: &std::process::Output) {
    let stderr = stderr(out);
    for interdit in [
        "ERROR",
        "invalid peer certificate",
        "certificate",
        "UnknownIssuer",
        "réseau indisponible",
        "nouvelle tentative",
        "quand le réseau sera revenu",
    ] {
        assert!(
            !stderr.contains(interdit),
            "« {interdit} » dans :\n{}",
            texte(out)
        );
    }
}

/// Vers S3, un serveur HTTPS dont le certificat vient d'une autorité inconnue (comme un
/// portail captif ou un proxy qui intercepte HTTPS) : code 2 aussitôt, en français, sans une
/// ligne anglaise, sans pause réseau ni sonde, rien d'envoyé ni de planifié. Avec
/// `SSL_CERT_FILE` qui désigne cette autorité, le même serveur est accepté et la nuit part.
#[test]
fn un_certificat_refuse_vers_s3_code_2_sans_attendre() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_20();
    let front = FrontTls::demarrer(&banc.rt, banc.bac().adresse(), Certificat::Valable);
    let depot = || depot_s3_vers(&banc, &front.url(), COMPARTIMENT);
    let out = mener(&banc, depot());
    assert_eq!(code(&out), 2, "{}", texte(&out));
    let stderr = stderr(&out);
    assert!(
        stderr.contains("le certificat présenté par 127.0.0.1 n'est pas celui du serveur")
            && stderr.contains("portail captif"),
        "{}",
        texte(&out)
    );
    ni_anglais_ni_attente(&out);
    assert_eq!(banc.compteurs().requetes_total(), 0);
    assert_eq!(front.acceptees(), 0);
    // Une poignée de main par transfert en vol au plus, puis plus rien : ni sonde, ni rejeu.
    assert!(front.connexions() <= 4, "{} connexions", front.connexions());
    // Rien n'a été envoyé : le plan n'est pas resté.
    let plans = banc.vigie().mots("plans --json").sortie();
    assert!(!stdout(&plans).contains("\"plan\""), "{}", texte(&plans));

    // Le témoin : la même autorité, désignée par SSL_CERT_FILE.
    depot().env("SSL_CERT_FILE", AUTORITE).finir_en(0);
    banc.verifier_identiques(&fichiers);
}

/// Vers la plateforme : la vérification de l'adresse (`GET /moi`) bute sur le certificat ;
/// code 2, en français, rien de planifié. Témoin : accepté avec `SSL_CERT_FILE`.
#[test]
fn un_certificat_refuse_vers_la_plateforme_code_2_sans_attendre() {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_12();
    let front = FrontTls::demarrer(&banc.rt, banc.bac().adresse(), Certificat::Valable);
    let depot = || {
        let mut c = banc.depot_dans(PARTICIPATION, &format!("{}/api/v1", front.url()));
        c.args(options());
        c
    };
    let out = mener(&banc, depot());
    assert_eq!(code(&out), 2, "{}", texte(&out));
    out.stderr_contient(&["le certificat présenté par 127.0.0.1 n'est pas celui du serveur"]);
    ni_anglais_ni_attente(&out);
    assert_eq!(banc.compteurs().requetes_total(), 0);
    assert!(front.connexions() <= 2, "{} connexions", front.connexions());
    depot().env("SSL_CERT_FILE", AUTORITE).finir_en(0);
    for (nom, taille) in &fichiers {
        assert!(banc.objet_plateforme(PARTICIPATION, nom) == contenu(nom, *taille));
    }
}

/// L'horloge fausse de plusieurs années : le certificat (d'une autorité connue) n'est pas
/// valable à la date de l'ordinateur. Le message dit de regarder l'horloge.
#[test]
fn un_certificat_perime_dit_de_regarder_l_horloge() {
    let banc = Banc::nouveau();
    banc.nuit_de_12();
    let front = FrontTls::demarrer(&banc.rt, banc.bac().adresse(), Certificat::Perime);
    let mut connexion = banc.vigie_plateforme();
    connexion
        .env("SSL_CERT_FILE", AUTORITE)
        .mots("connexion --api")
        .arg(format!("{}/api/v1", front.url()));
    let out = mener(&banc, connexion);
    assert_eq!(code(&out), 2, "{}", texte(&out));
    out.stderr_contient(&[
        "le certificat présenté par 127.0.0.1 n'est pas valable à la date de cet ordinateur",
    ]);
    ni_anglais_ni_attente(&out);
}

/// Le second avis : moto en HTTPS, avec le certificat auto-signé qu'il se fabrique.
#[test]
fn un_certificat_auto_signe_chez_moto_code_2() {
    let Some(serveur) = moto::moto_https() else {
        return;
    };
    let banc = Banc::nouveau();
    banc.nuit_de_12();
    let depot = depot_s3_vers(&banc, &format!("https://{}", serveur.adresse), "auto-signe");
    let out = mener(&banc, depot);
    assert_eq!(code(&out), 2, "{}", texte(&out));
    out.stderr_contient(&["le certificat présenté par 127.0.0.1 n'est pas celui du serveur"]);
    ni_anglais_ni_attente(&out);
}

// ------------------------------------------- réponses sans fin, en-têtes au compte-gouttes

/// Une nuit S3 (deux fichiers en parties) à travers `endpoint`, compartiment `compartiment`,
/// aux délais par défaut.
fn depot_s3_vers(banc: &Banc, endpoint: &str, compartiment: &str) -> Command {
    let mut c = banc.depot_s3_sans_reglages(&banc.nuit, compartiment, endpoint);
    c.args(options());
    c
}

/// Le journal du plan a une décision qui répond à `attendue`, et aucune qui dise le délai de
/// tentative (300 s).
fn le_journal_dit(banc: &Banc, attendue: impl Fn(&DecisionBase) -> bool) {
    let decisions = banc.decisions();
    let texte = || {
        decisions
            .iter()
            .map(|d| format!("{} {} {:?} {}", d.methode, d.cible, d.raison, d.detail))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        decisions.iter().any(attendue),
        "décision attendue absente du journal :\n{}",
        texte()
    );
    assert!(
        !decisions
            .iter()
            .any(|d| d.detail.contains("délai de tentative")),
        "une tentative a attendu son délai de 300 s :\n{}",
        texte()
    );
}

/// Le journal du plan dit, pour une tentative, un détail qui contient chacun des `morceaux`
/// (dans l'ordre), et jamais le délai de tentative.
fn le_journal_dit_le_detail(banc: &Banc, morceaux: &[&str]) {
    le_journal_dit(banc, |d| {
        let mut reste = d.detail.as_str();
        morceaux.iter().all(|m| match reste.find(m) {
            Some(i) => {
                reste = &reste[i + m.len()..];
                true
            }
            None => false,
        })
    });
}

/// Une première réponse `200` dont le corps coule sans fin (une espace par seconde), à
/// chaque `GET /moi` : la lecture est abandonnée au bout de dix secondes (pas vingt minutes),
/// et le message dit ce qui se passe, pas « plateforme injoignable ».
#[test]
fn une_reponse_sans_fin_de_la_plateforme_est_bornee_et_dite() {
    let banc = Banc::nouveau();
    banc.nuit_de_12();
    banc.panne_toujours(Operation::ApiMoi, Panne::CorpsSansFin);
    let mut depot = banc.depot_plateforme_avec(&[]);
    depot.args(options()).mots("--tentatives 1");
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(60));
    assert_eq!(code(&out), 1, "{}", texte(&out));
    let stderr = stderr(&out);
    assert!(
        stderr.contains("réponse inexploitable (réponse sans fin (statut 200)"),
        "{}",
        texte(&out)
    );
    assert!(!stderr.contains("injoignable"), "{}", texte(&out));
    assert_eq!(banc.requetes(Operation::ApiMoi), 1);
}

/// Une nuit S3 (deux fichiers en parties) sous la panne `regle`, aux délais par défaut, contre
/// le bac à sable puis contre moto : chaque fois code 0, tout identique, et le journal du plan
/// dit `attendu` (ses morceaux dans l'ordre ; jamais le délai de tentative).
fn une_panne_de_reponse_puis_tout_depose(
    regle: Regle,
    compartiment_moto: &'static str,
    attendu: &[&str],
) {
    let banc = Banc::nouveau();
    let fichiers = banc.nuit_de_12();
    banc.panne(regle.clone());
    let depot = depot_s3_vers(&banc, &banc.bac().endpoint(), COMPARTIMENT);
    let out = attendre_fin(banc.lancer(depot), Duration::from_secs(120));
    assert_eq!(code(&out), 0, "{}", texte(&out));
    banc.verifier_identiques(&fichiers);
    le_journal_dit_le_detail(&banc, attendu);

    let Some(m) = ContreMoto::nouveau(compartiment_moto) else {
        return;
    };
    let fichiers = m.banc.nuit_de_12();
    m.mandataire.pannes.programmer(regle);
    let out = attendre_fin(m.banc.lancer(m.depot()), Duration::from_secs(120));
    assert_eq!(code(&out), 0, "moto : {}", texte(&out));
    m.verifier_identiques(&fichiers);
    le_journal_dit_le_detail(&m.banc, attendu);
}

/// La réponse à une finalisation S3 (`200`, puis un corps sans fin) : lecture abandonnée au
/// bout de dix secondes, l'issue inconnue relue (l'envoi est encore ouvert) et la finalisation
/// réémise ; tout est déposé, en un passage. Contre le bac à sable, puis moto.
#[test]
fn une_finalisation_s3_qui_repond_sans_fin_est_relue_puis_refaite() {
    une_panne_de_reponse_puis_tout_depose(
        Regle::nieme(
            Operation::CompleteMultipartUpload,
            None,
            1,
            Panne::CorpsSansFin,
        ),
        "sans-fin",
        &["réponse sans fin (statut 200)"],
    );
}

/// Des en-têtes de réponse envoyés un octet toutes les 5 s (un relais qui étouffe la
/// connexion) : la tentative est coupée au silence toléré par le lien, pas au bout de 300 s,
/// et rejouée ; tout est déposé. Contre le bac à sable, puis moto.
///
/// Le silence toléré vaut dix secondes au moins, quatre fois le plus long silence des
/// dernières réponses sinon (`transport::Seuils`) : sous la charge, une réponse de moto qui a
/// tardé 3 s le porte à 12 s. L'essai lit donc « aucune réponse du serveur N s après
/// l'envoi » sans exiger N = 10, qui dépendait de la charge.
#[test]
fn des_en_tetes_au_compte_gouttes_sont_bornes() {
    une_panne_de_reponse_puis_tout_depose(
        Regle::nieme(
            Operation::PutObject,
            None,
            3,
            Panne::EntetesLents(Duration::from_secs(5)),
        ),
        "gouttes",
        &["aucune réponse du serveur ", " s après l'envoi"],
    );
}

/// Un essai qui échoue pendant qu'un `vigie` attend le retour du réseau (sans limite par
/// défaut) ne le laisse pas derrière lui : le garde du processus ([`Enfant`]) le tue quand
/// l'essai panique. Un essai du trou noir en avait laissé un qui attendait sans fin.
#[cfg(target_os = "linux")]
#[test]
fn un_essai_qui_panique_ne_laisse_pas_son_vigie_derriere_lui() {
    let banc = Banc::nouveau();
    banc.fichier(
        "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav",
        20_000,
    );
    // Le réseau coupé pour de bon : le dépôt sonde et attend, sans fin.
    banc.panne(Regle::toujours(None, Panne::Coupure));
    let mut pid = None;
    let essai = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let enfant = banc.lancer(banc.depot());
        pid = Some(enfant.id());
        banc.attendre("la sonde du réseau", |b| {
            b.compteurs().requetes_total() >= 5
        });
        panic!("l'essai échoue en plein dépôt");
    }));
    assert!(essai.is_err());
    let pid = pid.unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "vigie ({pid}) a survécu à l'essai"
    );
}
