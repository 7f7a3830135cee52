//! `vigie demo` : une petite saison fabriquée, déposée pour de vrai sur la plateforme locale
//! malgré des pannes simulées, par `vigie depot DOSSIER` sans aucun identifiant, puis
//! `vigie etat`. Rien ne reste derrière, sauf `--garder`.
//!
//! Pourquoi : sur une machine neuve, une seule commande doit montrer ce que fait `vigie` et
//! prouver qu'il tient sa promesse : le bénévole rapporte sa carte SD, tape `vigie depot` et le
//! dossier, et chaque nuit part dans sa participation (retrouvée si elle a été créée sur le
//! site web, créée sinon), sans geste humain pour un accroc réseau. Rien n'est simulé côté
//! client : la démonstration lance le binaire lui-même (`depot`, puis `etat`) en processus
//! enfant, avec une base temporaire, contre le bac à sable (vraie API HTTP, vrai S3 à URL
//! signées) démarré dans ce processus-ci.
//!
//! La saison (voir [`SAISON`]) : deux enregistreurs, deux points, deux passages, trois nuits
//! qui passent minuit, des séquences de quelques Kio (la démonstration dure quelques
//! secondes, sous wine aussi). La nuit B2 a été « créée sur le site web » le lendemain matin
//! et quatre de ses séquences y sont déjà : `vigie` la reprend sans les renvoyer, et crée les
//! deux autres. Trois pannes sont programmées sur les séquences qui restent de cette nuit :
//! - un 503 avec `Retry-After` (1 ou 2 s) : l'attente annoncée est respectée, puis l'envoi
//!   repart ;
//! - une coupure de la connexion en plein corps d'un PUT : l'envoi est rejoué ;
//! - une réponse perdue sur une finalisation (la plateforme l'a faite, le client ne le sait
//!   pas) : l'issue est réconciliée en relisant le fichier, sans rien renvoyer.
//!
//! La graine (`--graine`, tirée au hasard sinon et affichée) fixe la saison (noms, tailles,
//! contenu) et les séquences frappées par les pannes : la même graine rejoue la même
//! démonstration.
//!
//! Ctrl-C : sous Unix, l'enfant `depot` est dans son propre groupe de processus (un Ctrl-C du
//! terminal n'atteint que ce processus-ci), qui le lui transmet une fois ; sous Windows, la
//! console le donne à l'enfant elle-même (voir `plateforme::processus`). L'enfant termine
//! proprement et sort en 130, la démonstration efface son dossier et sort avec ce code.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use anyhow::{Context, Result, bail};
use chrono::NaiveDate;

use crate::plateforme::processus;
use crate::plateforme::signaux::{DemandeArret, Signaux};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::format::octets_lisibles;
use bac::{DossierTemporaire, RuntimeDuBac, filtre_du_bac};
use vigie_bac_a_sable::nuit::{self, Sequence, Soiree};
use vigie_bac_a_sable::{
    BacASable, JETON, OBSERVATEUR, Operation, Panne, ParticipationPosee, Regle, RetryAfter, SITE,
    cle_fichier,
};

pub(crate) mod bac;
pub(crate) mod serveur;

/// Ce que la démonstration reçoit de sa ligne de commande (`vigie demo`).
pub(crate) struct Demande {
    /// `--graine` : la même rejoue la même démonstration.
    pub(crate) graine: u64,
    pub(crate) sans_pannes: bool,
    /// `--garder` : le dossier de la démonstration reste.
    pub(crate) garder: bool,
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
    /// Les options globales, transmises telles quelles au dépôt et à l'état.
    pub(crate) options: Vec<String>,
}

/// Réglages du dépôt de démonstration : des délais courts, pour que les pannes se rattrapent
/// en quelques secondes.
const REGLAGES_COURTS: [&str; 8] = [
    "--delai-tentative",
    "30",
    "--delai-blocage",
    "5",
    "--attente-max",
    "4",
    "--echeance",
    "120",
];

/// Le dossier de la saison, dans le dossier de la démonstration : un sous-dossier par
/// enregistreur, comme deux cartes SD recopiées.
const DOSSIER_SAISON: &str = "saison-2026";

/// Une nuit de la petite saison.
struct NuitDeDemo {
    /// Sous-dossier (la carte de l'enregistreur).
    enregistreur: &'static str,
    /// Début des noms : site 640139 (le [`SITE`] du bac à sable), année, passage, point,
    /// enregistreur.
    prefixe: &'static str,
    point: &'static str,
    passage: u8,
    soiree: Soiree,
    /// Première séquence entre cette heure (secondes depuis minuit) et dix minutes après.
    debut_s: u64,
    sequences: usize,
}

/// La petite saison : deux enregistreurs, deux points (A1, B2), deux passages, trois nuits
/// qui passent minuit (dix séquences espacées de 15 à 30 min dès 21 h 50 finissent le
/// lendemain). Les dates sont loin de la nuit de la participation d'essai du bac à sable
/// (20 juin, A1), qui ne doit rien recevoir.
const SAISON: [NuitDeDemo; 3] = [
    NuitDeDemo {
        enregistreur: "PA1",
        prefixe: "Car640139-2026-Pass1-A1-PA1_",
        point: "A1",
        passage: 1,
        soiree: Soiree {
            annee: 2026,
            mois: 7,
            jour: 3,
        },
        debut_s: 22 * 3600,
        sequences: 10,
    },
    NuitDeDemo {
        enregistreur: "PA2",
        prefixe: "Car640139-2026-Pass1-B2-PA2_",
        point: "B2",
        passage: 1,
        soiree: Soiree {
            annee: 2026,
            mois: 7,
            jour: 3,
        },
        debut_s: 21 * 3600 + 50 * 60,
        sequences: 10,
    },
    NuitDeDemo {
        enregistreur: "PA1",
        prefixe: "Car640139-2026-Pass2-A1-PA1_",
        point: "A1",
        passage: 2,
        soiree: Soiree {
            annee: 2026,
            mois: 8,
            jour: 14,
        },
        debut_s: 21 * 3600 + 55 * 60,
        sequences: 10,
    },
];

/// La nuit « créée sur le site web » (rang dans [`SAISON`]), saisie le lendemain à 7 h 40
/// (l'heure de la saisie, comme le fait le site web), et combien de ses séquences y sont déjà.
const NUIT_DU_SITE_WEB: usize = 1;
const SAISIE_SUR_LE_SITE_WEB: &str = "2026-07-04T07:40:00";
const DEJA_DEPOSEES: usize = 4;

/// Une nuit fabriquée : sa description et ses séquences.
struct NuitFabriquee {
    nuit: &'static NuitDeDemo,
    sequences: Vec<Sequence>,
}

impl NuitFabriquee {
    /// La nuit telle que la présentation la montre (`suivi/demo.rs`).
    fn presentee(&self, rang: usize) -> crate::suivi::demo::NuitPresentee<'_> {
        let s = self.nuit.soiree;
        crate::suivi::demo::NuitPresentee {
            soiree: NaiveDate::from_ymd_opt(s.annee as i32, s.mois, s.jour),
            point: self.nuit.point,
            passage: self.nuit.passage,
            noms: self.sequences.iter().map(|q| q.nom.as_str()).collect(),
            deja_deposees: (rang == NUIT_DU_SITE_WEB).then_some(DEJA_DEPOSEES),
        }
    }
}

/// Les séquences de la saison, et ce que la démonstration en dit.
struct SaisonFabriquee {
    chemin: PathBuf,
    nuits: Vec<NuitFabriquee>,
    /// La participation « créée sur le site web ».
    participation: String,
}

impl SaisonFabriquee {
    fn sequences(&self) -> impl Iterator<Item = &Sequence> {
        self.nuits.iter().flat_map(|n| &n.sequences)
    }
}

/// Compose la saison d'après la graine, sans rien écrire : une graine par nuit, tirée de la
/// graine de la démonstration (par un « ou exclusif » : des graines voisines donneraient au
/// générateur des suites décalées d'un pas, donc des nuits jumelles).
fn composer_saison(graine: u64) -> Vec<NuitFabriquee> {
    SAISON
        .iter()
        .enumerate()
        .map(|(i, n)| NuitFabriquee {
            nuit: n,
            sequences: nuit::composer_courte(
                graine ^ (i as u64 + 1).wrapping_mul(0xd1b5_4a32_d192_ed03),
                n.prefixe,
                n.soiree,
                n.debut_s,
                n.sequences,
            ),
        })
        .collect()
}

/// Écrit la saison sous `chemin` (un sous-dossier par enregistreur). `continuer` est consulté
/// avant chaque séquence : `false` arrête la fabrication (Ctrl-C), avec `Interrupted`.
fn ecrire_saison(
    chemin: &Path,
    nuits: &[NuitFabriquee],
    continuer: impl Fn() -> bool,
) -> io::Result<()> {
    for n in nuits {
        let dossier = chemin.join(n.nuit.enregistreur);
        std::fs::create_dir_all(&dossier)?;
        for s in &n.sequences {
            if !continuer() {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "fabrication de la saison interrompue",
                ));
            }
            std::fs::write(dossier.join(&s.nom), s.octets())?;
        }
    }
    Ok(())
}

/// Pose la nuit « créée sur le site web » et ses premières séquences déjà déposées. Rend
/// l'identifiant de la participation.
fn poser_la_nuit_du_site_web(
    runtime: &RuntimeDuBac,
    bac: &BacASable,
    nuits: &[NuitFabriquee],
) -> Result<String> {
    let n = &nuits[NUIT_DU_SITE_WEB];
    let participation = bac.poser_participation(&ParticipationPosee {
        site: SITE,
        observateur: OBSERVATEUR,
        point: Some(n.nuit.point),
        date_debut: SAISIE_SUR_LE_SITE_WEB,
        date_fin: None,
    })?;
    for s in n.sequences.iter().take(DEJA_DEPOSEES) {
        runtime.bloquer(bac.poser_fichier_finalise(&participation, &s.nom, s.octets()))?;
    }
    Ok(participation)
}

/// Une panne programmée pour la démonstration, et ce qu'on en dit.
struct PanneDeDemo {
    regle: Regle,
    description: String,
}

/// La démonstration entière : le bac à sable et son runtime, la saison fabriquée dans un
/// dossier temporaire (gardé avec `--garder`), le dépôt puis l'état. Le code est celui du dépôt.
pub(crate) fn demontrer(d: &Demande) -> Result<CodeSortie> {
    // Le runtime du bac à sable porte aussi l'écoute des signaux : elle est en place avant que
    // le moindre fichier soit écrit, pour qu'un Ctrl-C n'abandonne jamais le dossier.
    let runtime = RuntimeDuBac::nouveau(&filtre_du_bac(0, d.silencieux))?;
    let arret = Arret::ecouter(&runtime)?;
    let mut dossier = DossierTemporaire::creer("demo")?;
    let code = derouler(d, &runtime, &arret, dossier.chemin());
    // Le serveur s'arrête (ses tâches avec le runtime) avant que son dossier soit effacé.
    drop(runtime);
    if d.garder {
        dossier.garder();
        crate::suivi::demo::ou_tout_est(d.silencieux, dossier.chemin(), DOSSIER_SAISON)?;
    }
    let code = code?;
    if !d.json && !d.silencieux {
        crate::suivi::demo::fin_de_demo(code, d.sans_pannes, d.garder)?;
    }
    Ok(code)
}

/// Fabrique la saison, démarre le bac à sable, y pose la nuit « créée sur le site web », lance
/// le dépôt de la saison puis l'état. Le code est celui du dépôt.
fn derouler(
    d: &Demande,
    runtime: &RuntimeDuBac,
    arret: &Arret,
    dossier: &Path,
) -> Result<CodeSortie> {
    let chemin = dossier.join(DOSSIER_SAISON);
    let nuits = composer_saison(d.graine);
    match ecrire_saison(&chemin, &nuits, || !arret.demande()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(CodeSortie::Interrompu),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("fabrication de la saison dans {}", chemin.display()));
        }
    }
    let bac = runtime.bloquer(BacASable::demarrer(&dossier.join("bac-a-sable"), 0))?;
    let participation = poser_la_nuit_du_site_web(runtime, &bac, &nuits)?;
    let saison = SaisonFabriquee {
        chemin,
        nuits,
        participation,
    };
    let pannes = if d.sans_pannes {
        Vec::new()
    } else {
        pannes_de_demo(&saison, d.graine)
    };
    for p in &pannes {
        bac.pannes().programmer(p.regle.clone());
    }
    presenter(d, dossier, &saison, &bac, &pannes)?;

    let base = dossier.join("vigie.sqlite");
    let mut depot = vigie(&base, &bac.api())?;
    depot
        .arg("depot")
        .arg(&saison.chemin)
        .args(REGLAGES_COURTS)
        .args(&d.options);
    let code = if arret.demande() {
        CodeSortie::Interrompu
    } else {
        let statut = arret.attendre(depot)?;
        code_de_sortie(statut, arret.demande())?
    };

    if code != CodeSortie::Interrompu && !arret.demande() && !d.silencieux {
        montrer_l_etat(d.json, arret, &base, &bac.api())?;
    }
    runtime.bloquer(bac.arreter());
    Ok(code)
}

/// Après le dépôt, `vigie etat` lancé comme le taperait la bénévole ; en JSON, sur la sortie
/// d'erreur (la sortie standard reste celle du dépôt, bilan en dernier).
fn montrer_l_etat(json: bool, arret: &Arret, base: &Path, api: &str) -> Result<()> {
    let mut etat = vigie(base, api)?;
    etat.arg("etat");
    if json {
        // La sortie standard reste celle du dépôt, bilan en dernier : l'état, pour
        // l'humain, passe sur la sortie d'erreur.
        etat.stdout(Stdio::from(io::stderr()));
    } else {
        crate::suivi::demo::annoncer_etat()?;
    }
    arret.attendre(etat)?;
    Ok(())
}

/// Le binaire lui-même, sur la base de la démonstration, avec le jeton d'essai et l'API du bac
/// à sable (par les variables : la commande montrée est celle qu'un bénévole tape).
fn vigie(base: &Path, api: &str) -> Result<Command> {
    let exe = std::env::current_exe().context("chemin du binaire vigie")?;
    let mut c = Command::new(exe);
    c.env("VIGIE_BASE", base)
        .env("VIGIE_JETON", JETON)
        .env("VIGIE_API", api)
        .stdin(Stdio::null());
    // Un Ctrl-C du terminal atteint la démonstration, qui le transmet une fois (deux Ctrl-C
    // coupent net un dépôt).
    processus::relayer_les_arrets(&mut c);
    Ok(c)
}

/// Le code de sortie de l'enfant, dans le contrat de `vigie`. Tué par le signal transmis
/// avant d'avoir pu l'écouter (`interrompu`), il compte comme interrompu.
fn code_de_sortie(statut: ExitStatus, interrompu: bool) -> Result<CodeSortie> {
    Ok(match statut.code() {
        Some(0) => CodeSortie::Succes,
        Some(1) => CodeSortie::EchecsTransitoires,
        Some(2) => CodeSortie::Usage,
        Some(3) => CodeSortie::RefusDefinitifs,
        Some(4) => CodeSortie::PlanOccupe,
        Some(130) => CodeSortie::Interrompu,
        None if interrompu => CodeSortie::Interrompu,
        _ => bail!(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!("le dépôt de démonstration s'est arrêté anormalement ({statut})"),
        )),
    })
}

/// Les trois pannes de la démonstration, sur trois séquences différentes de la nuit « créée
/// sur le site web » qui ne sont pas encore déposées (sa participation est la seule connue
/// d'avance : les clés S3 la portent), tirées d'après la graine : un 503 avec `Retry-After`,
/// une coupure à 40 % du corps, une réponse perdue à la finalisation.
fn pannes_de_demo(saison: &SaisonFabriquee, graine: u64) -> Vec<PanneDeDemo> {
    let mut candidates: Vec<&Sequence> = saison.nuits[NUIT_DU_SITE_WEB]
        .sequences
        .iter()
        .skip(DEJA_DEPOSEES)
        .collect();
    let mut tirage = graine ^ 0x5eed_de70_0000_0001;
    let mut choisir = || -> Option<&Sequence> {
        tirage = tirage
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if candidates.is_empty() {
            return None;
        }
        let i = (tirage >> 33) as usize % candidates.len();
        Some(candidates.remove(i))
    };
    let (retardee, coupee, perdue) = (choisir(), choisir(), choisir());
    let attente_s = 1 + graine % 2;
    let cle =
        |s: &Sequence| cle_fichier(&saison.participation, &s.nom).unwrap_or_else(|| s.nom.clone());
    let mut pannes = Vec::new();
    if let Some(s) = retardee {
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(
                Operation::PutObject,
                &cle(s),
                1,
                Panne::Statut {
                    code: 503,
                    retry_after: Some(RetryAfter::Secondes(attente_s)),
                },
            ),
            description: format!("503 avec Retry-After: {attente_s} à l'envoi de\n{}", s.nom),
        });
    }
    if let Some(s) = coupee {
        let coupure = s.taille_octets() * 2 / 5;
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(
                Operation::PutObject,
                &cle(s),
                1,
                Panne::CouperCorpsApres(coupure),
            ),
            description: format!(
                "connexion coupée après {} de l'envoi de\n{}",
                octets_lisibles(coupure),
                s.nom
            ),
        });
    }
    if let Some(s) = perdue {
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(Operation::ApiFinaliser, &cle(s), 1, Panne::PerdreReponse),
            description: format!("réponse perdue à la finalisation de\n{}", s.nom),
        });
    }
    pannes
}

/// Ce que la démonstration va faire (`suivi/demo.rs`) : sur la sortie d'erreur pour
/// l'humain, ou une ligne JSON (la première de la sortie standard) avec `--json`.
fn presenter(
    d: &Demande,
    dossier: &Path,
    saison: &SaisonFabriquee,
    bac: &BacASable,
    pannes: &[PanneDeDemo],
) -> Result<()> {
    let presentation = crate::suivi::demo::Presentation {
        graine: d.graine,
        dossier,
        garder: d.garder,
        saison: &saison.chemin,
        nuits: saison
            .nuits
            .iter()
            .enumerate()
            .map(|(i, n)| n.presentee(i))
            .collect(),
        octets: saison.sequences().map(Sequence::taille_octets).sum(),
        api: &bac.api(),
        participation: &saison.participation,
        deja_deposees: DEJA_DEPOSEES,
        pannes: pannes
            .iter()
            .map(|p| (p.regle.to_string(), p.description.as_str()))
            .collect(),
    };
    crate::suivi::demo::presenter(d.json, d.silencieux, &presentation)
}

/// Ctrl-C, SIGTERM et SIGHUP pendant la démonstration : noté, et transmis au processus
/// enfant en cours.
struct Arret {
    demande: Arc<AtomicBool>,
    enfant: Arc<AtomicU32>,
}

impl Arret {
    /// Écoute les signaux sur `runtime` (l'écoute est en place au retour).
    fn ecouter(runtime: &RuntimeDuBac) -> Result<Arret> {
        let mut signaux = runtime
            .bloquer(async { Signaux::ecouter(true) })
            .context("impossible d'écouter Ctrl-C")?;
        let arret = Arret {
            demande: Arc::default(),
            enfant: Arc::default(),
        };
        let (demande, enfant) = (Arc::clone(&arret.demande), Arc::clone(&arret.enfant));
        runtime.lancer(async move {
            loop {
                let recue = signaux.recevoir().await;
                demande.store(true, Ordering::SeqCst);
                transmettre(enfant.load(Ordering::SeqCst), recue);
            }
        });
        Ok(arret)
    }

    fn demande(&self) -> bool {
        self.demande.load(Ordering::SeqCst)
    }

    /// Lance la commande et attend sa fin ; un signal reçu entre-temps lui est transmis.
    fn attendre(&self, mut commande: Command) -> Result<ExitStatus> {
        let mut enfant = commande.spawn().context("lancement de vigie")?;
        self.enfant.store(enfant.id(), Ordering::SeqCst);
        // Un signal arrivé juste avant que l'enfant soit connu.
        if self.demande() {
            transmettre(enfant.id(), DemandeArret::Interruption);
        }
        let statut = enfant.wait();
        self.enfant.store(0, Ordering::SeqCst);
        Ok(statut?)
    }
}

/// Fait suivre la demande d'arrêt au processus `pid` (0 : aucun).
fn transmettre(pid: u32, demande: DemandeArret) {
    if !processus::transmettre(pid, demande) {
        tracing::warn!(
            pid,
            "impossible de transmettre l'arrêt au dépôt de démonstration"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// La saison d'une graine, sans rien écrire ni démarrer.
    fn saison(graine: u64) -> SaisonFabriquee {
        SaisonFabriquee {
            chemin: PathBuf::from("saison"),
            nuits: composer_saison(graine),
            participation: "64a1b2c3d4e5f60718293d99".to_owned(),
        }
    }

    #[test]
    fn trois_pannes_sur_trois_sequences_restantes_de_la_nuit_du_site_web_et_rejouables() {
        let saison = saison(7);
        let a = pannes_de_demo(&saison, 7);
        let b = pannes_de_demo(&saison, 7);
        assert_eq!(a.len(), 3);
        let specs: Vec<String> = a.iter().map(|p| p.regle.to_string()).collect();
        assert_eq!(
            specs,
            b.iter().map(|p| p.regle.to_string()).collect::<Vec<_>>()
        );
        let restantes: Vec<String> = saison.nuits[NUIT_DU_SITE_WEB]
            .sequences
            .iter()
            .skip(DEJA_DEPOSEES)
            .map(|s| cle_fichier(&saison.participation, &s.nom).unwrap())
            .collect();
        let cles: Vec<String> = a.iter().map(|p| p.regle.cle.clone().unwrap()).collect();
        assert!(cles[0] != cles[1] && cles[1] != cles[2] && cles[0] != cles[2]);
        for c in &cles {
            assert!(restantes.contains(c), "{c} : pas une séquence à déposer");
        }
        assert!(specs[0].contains("=503:retry-after="), "{specs:?}");
        assert!(specs[1].contains("=coupure-corps:"), "{specs:?}");
        assert!(specs[2].starts_with("ApiFinaliser@"), "{specs:?}");
        // Chaque spécification se relit : `vigie bac-a-sable --pannes` rejoue la même.
        for s in &specs {
            let relue = vigie_bac_a_sable::Pannes::analyser_spec(s).unwrap();
            assert_eq!(&relue.to_string(), s);
        }
    }

    #[test]
    fn une_petite_saison_de_trois_nuits_qui_passent_minuit() {
        let saison = saison(7);
        assert_eq!(saison.nuits.len(), 3);
        for (i, n) in saison.nuits.iter().enumerate() {
            let noms: Vec<&str> = n.sequences.iter().map(|s| s.nom.as_str()).collect();
            // Premier et dernier nom : pas le même jour.
            let jour = |nom: &str| nom[nom.len() - 23..nom.len() - 15].to_owned();
            assert_ne!(jour(noms[0]), jour(noms[noms.len() - 1]), "{noms:?}");
            for s in &n.sequences {
                assert!(s.taille_octets() < 10 * 1024, "{}", s.nom);
                assert!(s.nom.starts_with(n.nuit.prefixe), "{}", s.nom);
            }
            // Chaque ligne de la présentation tient dans 80 colonnes.
            let ligne = n.presentee(i).ligne();
            assert!(ligne.chars().count() + 2 <= 80, "{ligne}");
        }
        assert_eq!(
            saison.nuits[0].presentee(0).ligne()[..21].to_owned(),
            "ven. 03/07  A1  Pass1"
        );
        for p in pannes_de_demo(&saison, 7) {
            for l in p.description.lines() {
                assert!(l.chars().count() + 4 <= 80, "{l}");
            }
        }
    }
}
