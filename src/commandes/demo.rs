//! `vigie demo` : une nuit fabriquée, déposée pour de vrai sur la plateforme locale malgré des
//! pannes simulées, puis `vigie etat`. Rien ne reste derrière, sauf `--garder`.
//!
//! Pourquoi : sur une machine neuve, une seule commande doit montrer ce que fait `vigie` et
//! prouver qu'il tient sa promesse (« aucun geste humain pour un accroc réseau ») : la barre, les
//! « nouvelle tentative dans N s », le bilan où tout est déposé. Rien n'est simulé côté client :
//! la démonstration lance le binaire lui-même (`depot`, puis `etat`) en processus enfant, avec
//! une base temporaire, contre le bac à sable (vraie API HTTP, vrai S3 à URL signées) démarré
//! dans ce processus-ci, devant lequel sont programmées trois pannes :
//! - un 503 avec `Retry-After` (1 ou 2 s) sur l'envoi d'une séquence : l'attente annoncée est
//!   respectée, puis l'envoi repart ;
//! - une coupure de la connexion en plein corps d'un PUT : l'envoi est rejoué ;
//! - une réponse perdue sur une finalisation (la plateforme l'a faite, le client ne le sait
//!   pas) : l'issue est réconciliée en relisant le fichier, sans rien renvoyer.
//!
//! La graine (`--graine`, tirée au hasard sinon et affichée) fixe la nuit (noms, tailles,
//! contenu) et les séquences frappées par les pannes : la même graine rejoue la même
//! démonstration.
//!
//! Ctrl-C : sous Unix, l'enfant `depot` est dans son propre groupe de processus (un Ctrl-C du
//! terminal n'atteint que ce processus-ci), qui le lui transmet une fois ; sous Windows, la
//! console le donne à l'enfant elle-même (voir `plateforme::processus`). L'enfant termine
//! proprement et sort en 130, la démonstration efface son dossier et sort avec ce code.

use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use anyhow::{Context, Result, bail};

use super::sable::{DossierTemporaire, RuntimeDuBac, filtre_du_bac};
use crate::cli::{ArgsDemo, ModeProgression, OptionsGlobales};
use crate::plateforme::processus;
use crate::plateforme::signaux::{DemandeArret, Signaux};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::format::octets_lisibles;
use vigie_bac_a_sable::nuit::{self, Sequence};
use vigie_bac_a_sable::{
    BacASable, JETON, Operation, PARTICIPATION, Panne, Regle, RetryAfter, cle_fichier,
};

/// Réglages du dépôt de démonstration : des délais courts pour tenir en moins d'une minute, et
/// des parties de 5 Mio pour que les deux grosses séquences partent en deux parties.
const REGLAGES_COURTS: [&str; 12] = [
    "--seuil-multipart",
    "5",
    "--taille-partie",
    "5",
    "--delai-tentative",
    "30",
    "--delai-blocage",
    "5",
    "--attente-max",
    "4",
    "--echeance",
    "120",
];

/// Une panne programmée pour la démonstration, et ce qu'on en dit.
struct PanneDeDemo {
    regle: Regle,
    description: String,
}

pub(super) fn demo(g: &OptionsGlobales, args: ArgsDemo) -> Result<CodeSortie> {
    let graine = args.graine.unwrap_or_else(rand::random);
    // Le runtime du bac à sable porte aussi l'écoute des signaux : elle est en place avant que
    // le moindre fichier soit écrit, pour qu'un Ctrl-C n'abandonne jamais le dossier.
    let runtime = RuntimeDuBac::nouveau(&filtre_du_bac(0, g.quiet))?;
    let arret = Arret::ecouter(&runtime)?;
    let mut dossier = DossierTemporaire::creer("demo")?;
    let code = derouler(g, &args, graine, &runtime, &arret, dossier.chemin());
    // Le serveur s'arrête (ses tâches avec le runtime) avant que son dossier soit effacé.
    drop(runtime);
    if args.garder {
        dossier.garder();
        dire_ou_tout_est(g, dossier.chemin())?;
    }
    let code = code?;
    if !g.json && !g.quiet {
        let mut s = crate::sortie::erreur();
        match code {
            CodeSortie::Succes if args.sans_pannes => {
                writeln!(s, "Démonstration réussie : toute la nuit est déposée.")?
            }
            CodeSortie::Succes => writeln!(
                s,
                "Démonstration réussie : toute la nuit est déposée malgré les pannes."
            )?,
            CodeSortie::Interrompu => writeln!(s, "Démonstration interrompue.")?,
            autre => writeln!(
                s,
                "Démonstration terminée avec le code {} (voir le bilan ci-dessus).",
                autre as i32
            )?,
        }
        if !args.garder {
            writeln!(
                s,
                "Le dossier temporaire est effacé (--garder pour le conserver)."
            )?;
        }
    }
    Ok(code)
}

/// Fabrique la nuit, démarre le bac à sable, lance le dépôt puis l'état. Le code est celui du
/// dépôt.
fn derouler(
    g: &OptionsGlobales,
    args: &ArgsDemo,
    graine: u64,
    runtime: &RuntimeDuBac,
    arret: &Arret,
    dossier: &Path,
) -> Result<CodeSortie> {
    let chemin_nuit = dossier.join("nuit");
    let sequences = match nuit::fabriquer(&chemin_nuit, graine, || !arret.demande()) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(CodeSortie::Interrompu),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("fabrication de la nuit dans {}", chemin_nuit.display()));
        }
    };
    let bac = runtime.bloquer(BacASable::demarrer(&dossier.join("bac-a-sable"), 0))?;
    let pannes = if args.sans_pannes {
        Vec::new()
    } else {
        pannes_de_demo(&sequences, graine)
    };
    for p in &pannes {
        bac.pannes().programmer(p.regle.clone());
    }
    presenter(g, args, graine, dossier, &sequences, &bac, &pannes)?;

    let base = dossier.join("vigie.sqlite");
    let mut depot = vigie(&base)?;
    depot
        .arg("depot")
        .arg(&chemin_nuit)
        .args(["--participation", PARTICIPATION, "--api", &bac.api()])
        .args(REGLAGES_COURTS)
        .args(options_globales(g));
    let code = if arret.demande() {
        CodeSortie::Interrompu
    } else {
        let statut = arret.attendre(depot)?;
        code_de_sortie(statut, arret.demande())?
    };

    if code != CodeSortie::Interrompu && !arret.demande() && !g.quiet {
        let mut etat = vigie(&base)?;
        etat.arg("etat");
        if g.json {
            // La sortie standard reste celle du dépôt, bilan en dernier : l'état, pour
            // l'humain, passe sur la sortie d'erreur.
            etat.stdout(Stdio::from(io::stderr()));
        } else {
            writeln!(crate::sortie::erreur(), "\n$ vigie etat")?;
        }
        arret.attendre(etat)?;
    }
    runtime.bloquer(bac.arreter());
    Ok(code)
}

/// Le binaire lui-même, sur la base de la démonstration, avec le jeton d'essai.
fn vigie(base: &Path) -> Result<Command> {
    let exe = std::env::current_exe().context("chemin du binaire vigie")?;
    let mut c = Command::new(exe);
    c.env("VIGIE_BASE", base)
        .env("VIGIE_JETON", JETON)
        .env_remove("VIGIE_API")
        .stdin(Stdio::null());
    // Un Ctrl-C du terminal atteint la démonstration, qui le transmet une fois (deux Ctrl-C
    // coupent net un dépôt).
    processus::relayer_les_arrets(&mut c);
    Ok(c)
}

/// Les options globales de la démonstration, transmises au dépôt.
fn options_globales(g: &OptionsGlobales) -> Vec<String> {
    let mut v = Vec::new();
    if g.json {
        v.push("--json".to_owned());
    }
    if g.quiet {
        v.push("--quiet".to_owned());
    }
    if g.verbose > 0 {
        v.push(format!("-{}", "v".repeat(usize::from(g.verbose))));
    }
    let progression = match g.progression {
        ModeProgression::Auto => "auto",
        ModeProgression::Toujours => "toujours",
        ModeProgression::Jamais => "jamais",
    };
    v.extend(["--progression".to_owned(), progression.to_owned()]);
    if let Some(j) = &g.journal {
        v.push("--journal".to_owned());
        v.push(j.display().to_string());
    }
    v
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
        _ => bail!(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!("le dépôt de démonstration s'est arrêté anormalement ({statut})"),
        )),
    })
}

/// Les trois pannes de la démonstration, sur des séquences tirées d'après la graine (toutes
/// différentes) : un 503 avec `Retry-After` sur une petite, une coupure à 40 % du corps d'une
/// moyenne (au moins 512 Kio), une réponse perdue à la finalisation d'une autre.
fn pannes_de_demo(sequences: &[Sequence], graine: u64) -> Vec<PanneDeDemo> {
    let mut tirage = graine ^ 0x5eed_de70_0000_0001;
    let mut tirer = |parmi: &[&Sequence]| -> Option<String> {
        tirage = tirage
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let i = (tirage >> 33) as usize % parmi.len().max(1);
        parmi.get(i).map(|s| s.nom.clone())
    };
    let mut pris: Vec<String> = Vec::new();
    let mut choisir = |filtre: &dyn Fn(&Sequence) -> bool| -> Option<String> {
        let candidates: Vec<&Sequence> = sequences
            .iter()
            .filter(|s| filtre(s) && !pris.contains(&s.nom))
            .collect();
        let nom = tirer(&candidates)?;
        pris.push(nom.clone());
        Some(nom)
    };
    let petite = choisir(&|s| s.taille_octets() < 1024 * 1024);
    let moyenne =
        choisir(&|s| s.taille_octets() >= 512 * 1024 && s.taille_octets() <= 5 * 1024 * 1024);
    let finalisee = choisir(&|_| true);
    let attente_s = 1 + graine % 2;
    let cle = |nom: &str| cle_fichier(PARTICIPATION, nom).unwrap_or_else(|| nom.to_owned());
    let taille = |nom: &str| {
        sequences
            .iter()
            .find(|s| s.nom == nom)
            .map_or(0, Sequence::taille_octets)
    };
    let mut pannes = Vec::new();
    if let Some(nom) = petite {
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(
                Operation::PutObject,
                &cle(&nom),
                1,
                Panne::Statut {
                    code: 503,
                    retry_after: Some(RetryAfter::Secondes(attente_s)),
                },
            ),
            description: format!("503 avec Retry-After: {attente_s} à l'envoi de {nom}"),
        });
    }
    if let Some(nom) = moyenne {
        let coupure = taille(&nom) * 2 / 5;
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(
                Operation::PutObject,
                &cle(&nom),
                1,
                Panne::CouperCorpsApres(coupure),
            ),
            description: format!(
                "connexion coupée après {} de l'envoi de {nom}",
                octets_lisibles(coupure)
            ),
        });
    }
    if let Some(nom) = finalisee {
        pannes.push(PanneDeDemo {
            regle: Regle::nieme(Operation::ApiFinaliser, &cle(&nom), 1, Panne::PerdreReponse),
            description: format!("réponse perdue à la finalisation de {nom}"),
        });
    }
    pannes
}

/// Ce que la démonstration va faire : sur la sortie d'erreur pour l'humain, ou une ligne JSON
/// (la première de la sortie standard) avec `--json`.
fn presenter(
    g: &OptionsGlobales,
    args: &ArgsDemo,
    graine: u64,
    dossier: &Path,
    sequences: &[Sequence],
    bac: &BacASable,
    pannes: &[PanneDeDemo],
) -> Result<()> {
    let chemin_nuit = dossier.join("nuit");
    let octets: u64 = sequences.iter().map(Sequence::taille_octets).sum();
    let grosses = sequences
        .iter()
        .filter(|s| s.taille_octets() > 5 * 1024 * 1024)
        .count();
    if g.json {
        crate::suivi::Evenement::Demo {
            graine,
            dossier,
            garder: args.garder,
            nuit: &chemin_nuit,
            sequences: sequences.len(),
            octets,
            api: &bac.api(),
            participation: PARTICIPATION,
            pannes: pannes.iter().map(|p| p.regle.to_string()).collect(),
        }
        .ecrire()?;
        return Ok(());
    }
    if g.quiet {
        return Ok(());
    }
    let mut s = crate::sortie::erreur();
    writeln!(
        s,
        "Démonstration de vigie (graine {graine} : « vigie demo --graine {graine} » la rejoue à l'identique)."
    )?;
    writeln!(
        s,
        "  nuit        {} séquences WAV (384 kHz, 16 bits, mono), {}, dont {grosses} de plus de 5 Mio (envoi en parties)",
        sequences.len(),
        octets_lisibles(octets)
    )?;
    writeln!(s, "              {}", chemin_nuit.display())?;
    writeln!(
        s,
        "  plateforme  Vigie-Chiro locale {}, participation d'essai {PARTICIPATION}",
        bac.api()
    )?;
    if pannes.is_empty() {
        writeln!(s, "  pannes      aucune (--sans-pannes)")?;
    }
    for (i, p) in pannes.iter().enumerate() {
        let titre = if i == 0 { "pannes" } else { "" };
        writeln!(s, "  {titre:<11} {}", p.description)?;
    }
    writeln!(s)?;
    writeln!(
        s,
        "$ vigie depot {} --participation {PARTICIPATION} --api {}   (délais raccourcis pour la démonstration)",
        chemin_nuit.display(),
        bac.api()
    )?;
    Ok(())
}

/// `--garder` : où tout est resté (même avec `-q` : sans cela, le dossier serait perdu de
/// vue), et comment le revoir.
fn dire_ou_tout_est(g: &OptionsGlobales, dossier: &Path) -> Result<()> {
    let mut s = crate::sortie::erreur();
    if g.quiet {
        writeln!(s, "Tout est resté dans {}.", dossier.display())?;
        return Ok(());
    }
    writeln!(s, "Tout est resté dans {} :", dossier.display())?;
    writeln!(s, "  nuit/          les séquences de la nuit")?;
    writeln!(
        s,
        "  bac-a-sable/   ce que la plateforme a reçu (vigiechiro-donnees/)"
    )?;
    writeln!(
        s,
        "  vigie.sqlite   la base du dépôt : VIGIE_BASE={} vigie etat",
        dossier.join("vigie.sqlite").display()
    )?;
    writeln!(
        s,
        "Effacez-le quand vous aurez fini : rm -r {}",
        dossier.display()
    )?;
    Ok(())
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

    #[test]
    fn trois_pannes_sur_trois_sequences_differentes_et_rejouables() {
        let nuit = nuit::composer(7);
        let a = pannes_de_demo(&nuit, 7);
        let b = pannes_de_demo(&nuit, 7);
        assert_eq!(a.len(), 3);
        let specs: Vec<String> = a.iter().map(|p| p.regle.to_string()).collect();
        assert_eq!(
            specs,
            b.iter().map(|p| p.regle.to_string()).collect::<Vec<_>>()
        );
        let cles: Vec<&Option<String>> = a.iter().map(|p| &p.regle.cle).collect();
        assert!(cles[0] != cles[1] && cles[1] != cles[2] && cles[0] != cles[2]);
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
    fn les_options_globales_passent_au_depot() {
        use clap::FromArgMatches;
        let correspondances = crate::cli::commande()
            .try_get_matches_from([
                "vigie",
                "demo",
                "--json",
                "-vv",
                "--progression",
                "jamais",
                "--journal",
                "/tmp/j.jsonl",
            ])
            .unwrap();
        let cli = crate::cli::Cli::from_arg_matches(&correspondances).unwrap();
        assert_eq!(
            options_globales(&cli.globales),
            [
                "--json",
                "-vv",
                "--progression",
                "jamais",
                "--journal",
                "/tmp/j.jsonl"
            ]
        );
    }
}
