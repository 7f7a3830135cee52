//! Des passages entiers (moteur, émetteur, veille du réseau, régulateur, base) face à un lien
//! simulé, sur l'horloge en pause de tokio : une coupure de quinze minutes, un trou noir de
//! vingt secondes, se jouent en une fraction de seconde, et l'essai dit exactement ce qui s'est
//! passé à chaque instant, sans dépendre de la charge de la machine.
//!
//! Le lien simulé ([`Lien`]) ne connaît que ce qu'un dépositaire voit d'un réseau : une
//! émission aboutit, est refusée (réseau coupé), ou reste sans réponse ni fermeture (trou noir).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use super::evenements::SuiviMuet;
use super::{ContexteUnite, Depositaire, IssueUnite, Moteur, Resultat, echec_de};
use crate::plan::{Base, DepotPlan, FichierPlanifie};
use crate::reessai::{Annulation, Profil, Reglages, Rejouabilite, ReponseApi};
use crate::transport::{Emetteur, Emission, PauseReseau, ReglagesEmission, emettre};

/// Ce que le lien simulé fait d'une émission, selon l'instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EtatLien {
    Ouvert,
    /// Coupé franchement : chaque connexion est refusée aussitôt.
    Coupe,
}

/// Un lien simulé : ouvert, sauf pendant les coupures programmées (instants de l'horloge de
/// tokio, depuis l'origine du lien).
pub(crate) struct Lien {
    origine: Instant,
    coupures: Vec<(Duration, Duration)>,
    /// Un trou noir (début, fin) : ce qui part se perd sans réponse ni refus ; au retour, les
    /// connexions d'avant (celles d'un client qui n'a pas été refait à neuf depuis le début
    /// du trou noir, voir `transport::connexions`) sont mortes à jamais.
    trou_noir: Option<(Duration, Duration)>,
    /// L'époque des connexions au début du trou noir.
    epoque_du_trou: std::sync::Mutex<Option<u64>>,
    /// Émissions reçues (sondes comprises).
    pub(crate) emissions: AtomicU64,
    /// Émissions perdues dans le trou noir (ou sur une connexion qu'il a tuée).
    pub(crate) perdues: AtomicU64,
}

impl Lien {
    pub(crate) fn nouveau() -> Self {
        Lien {
            origine: Instant::now(),
            coupures: Vec::new(),
            trou_noir: None,
            epoque_du_trou: std::sync::Mutex::new(None),
            emissions: AtomicU64::new(0),
            perdues: AtomicU64::new(0),
        }
    }

    /// Un trou noir de `debut` à `debut + duree`.
    pub(crate) fn trou_noir(mut self, debut: Duration, duree: Duration) -> Self {
        self.trou_noir = Some((debut, debut + duree));
        self
    }

    /// Quand le lien revient d'un trou noir (depuis l'origine).
    pub(crate) fn retour(&self) -> Option<Instant> {
        self.trou_noir.map(|(_, fin)| self.origine + fin)
    }

    /// L'émission partie à `t` (depuis l'origine), sur un client de l'époque `epoque`,
    /// se perd-elle ?
    fn perdue(&self, t: Duration, epoque: u64) -> bool {
        let Some((debut, fin)) = self.trou_noir else {
            return false;
        };
        if t < debut {
            return false;
        }
        let mut epoque_du_trou = self
            .epoque_du_trou
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let du_trou = *epoque_du_trou.get_or_insert(epoque);
        t < fin || epoque == du_trou
    }

    /// Coupe le lien de `debut` à `debut + duree` (depuis l'origine du lien).
    pub(crate) fn coupe(mut self, debut: Duration, duree: Duration) -> Self {
        self.coupures.push((debut, debut + duree));
        self
    }

    fn etat(&self) -> EtatLien {
        let t = self.origine.elapsed();
        if self.coupures.iter().any(|(d, f)| (*d..*f).contains(&t)) {
            EtatLien::Coupe
        } else {
            EtatLien::Ouvert
        }
    }

    /// Une émission : un aller-retour de 50 ms sur un lien ouvert ; refusée après 100 ms (le
    /// temps de constater l'absence de réseau) sur un lien coupé.
    pub(crate) async fn emettre(&self) -> ReponseApi<()> {
        self.emissions.fetch_add(1, Ordering::Relaxed);
        let epoque = crate::transport::connexions::epoque();
        match self.etat() {
            EtatLien::Ouvert => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if self.perdue(self.origine.elapsed(), epoque) {
                    self.perdues.fetch_add(1, Ordering::Relaxed);
                    std::future::pending::<()>().await;
                }
                ReponseApi::Succes(())
            }
            EtatLien::Coupe => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                ReponseApi::Injoignable {
                    a_pu_atteindre: false,
                    detail: "connexion refusée (lien simulé coupé)".into(),
                }
            }
        }
    }
}

/// Un dépositaire qui dépose chaque unité en une émission rejouable sur le lien simulé.
pub(crate) struct DepositaireSimule(pub(crate) Arc<Lien>);

impl Depositaire for DepositaireSimule {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        let issue = emettre(
            ctx,
            Emission::nouveau(
                "PUT",
                &ctx.unite.cle,
                Profil::Insistant,
                Rejouabilite::Rejouable,
            ),
            |_| self.0.emettre(),
        )
        .await;
        Ok(match issue.reponse {
            ReponseApi::Succes(()) => IssueUnite::Deposee {
                crc32c: "AAAAAA==".into(),
                etag: None,
            },
            _ => echec_de(&issue, super::s3::lire_refus),
        })
    }

    async fn sonder(&self) -> ReponseApi<()> {
        self.0.emettre().await
    }

    fn partie_du_bilan(&self) -> crate::destination::PartieDuBilan {
        crate::destination::PartieDuBilan::default()
    }
}

/// Les réglages d'émission par défaut de `vigie depot` (délais, réessais, pause réseau), la
/// limite de la pause en plus ou en moins.
pub(crate) fn reglages_par_defaut(attente_max: Option<Duration>) -> ReglagesEmission {
    ReglagesEmission {
        insistant: Reglages::insistant()
            .avec_echeance(crate::reessai::ECHEANCE_DEPOT_PAR_DEFAUT)
            .valider()
            .expect("réglages INSISTANT"),
        bref: Reglages::bref().valider().expect("réglages BREF"),
        delai_tentative: ReglagesEmission::DELAI_TENTATIVE_PAR_DEFAUT,
        delai_blocage: ReglagesEmission::DELAI_BLOCAGE_PAR_DEFAUT,
        pause: Some(PauseReseau {
            echecs: PauseReseau::ECHECS_PAR_DEFAUT,
            attente_max,
        }),
    }
}

/// Une nuit de `n` petits fichiers planifiée dans une base neuve.
pub(crate) fn nuit(n: usize) -> (tempfile::TempDir, Base, DepotPlan) {
    let dir = tempfile::tempdir().expect("dossier temporaire");
    let nuit = dir.path().join("nuit");
    std::fs::create_dir_all(&nuit).expect("dossier de la nuit");
    let mut fichiers = Vec::new();
    for i in 0..n {
        let nom = format!("Car640139-2026-Pass1-A1-OB-1_20260621_22{i:04}_000.wav");
        let chemin = nuit.join(&nom);
        std::fs::write(&chemin, vec![i as u8; 1000 + i]).expect("fichier de la nuit");
        let meta = std::fs::metadata(&chemin).expect("métadonnées");
        fichiers.push(FichierPlanifie {
            cle: format!("nuit/{nom}"),
            chemin: nom,
            taille: meta.len(),
            modifie_ns: crate::plateforme::modifie_ns(&meta),
            identite: None,
            preparee: None,
        });
    }
    let mut base = Base::ouvrir(&dir.path().join("vigie.sqlite")).expect("base");
    let plan = base
        .planifier(
            nuit.to_str().expect("chemin UTF-8"),
            "s3://nuits/nuit",
            &fichiers,
            false,
        )
        .expect("planification")
        .plan
        .expect("plan créé");
    (dir, base, plan)
}

/// Un passage entier de la nuit sur le lien, aux réglages donnés, `paralleles` transferts au
/// plus : le moteur, et l'émetteur pour relire l'état du réseau ensuite.
pub(crate) fn moteur(
    base: Base,
    plan: DepotPlan,
    lien: &Arc<Lien>,
    reglages: ReglagesEmission,
    paralleles: usize,
) -> (Arc<Moteur<DepositaireSimule>>, Emetteur) {
    let emetteur = Emetteur::nouveau(reglages, Annulation::nouveau());
    let moteur = Moteur::nouveau(
        base,
        plan,
        DepositaireSimule(Arc::clone(lien)),
        emetteur.clone(),
        Arc::new(SuiviMuet),
        paralleles,
    );
    (Arc::new(moteur), emetteur)
}

/// Les lignes du journal des décisions du plan dont la méthode est `methode`.
pub(crate) fn decisions(base: &std::path::Path, methode: &str) -> Vec<(Option<String>, String)> {
    let c = rusqlite::Connection::open(base).expect("base");
    let mut st = c
        .prepare(
            "SELECT raison, coalesce(detail, '') FROM journal_decision WHERE methode = ?1 \
             ORDER BY id",
        )
        .expect("requête");
    st.query_map([methode], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("journal")
        .map(|l| l.expect("ligne"))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn une_coupure_de_quinze_minutes_n_arrete_pas_le_passage() {
    let (dir, base, plan) = nuit(12);
    let chemin_base = base.chemin().to_owned();
    // Le lien tombe 60 ms après le départ (quelques fichiers sont partis) et revient quinze
    // minutes plus tard.
    let quinze_minutes = Duration::from_secs(15 * 60);
    let lien = Arc::new(Lien::nouveau().coupe(Duration::from_millis(60), quinze_minutes));
    let (moteur, emetteur) = moteur(base, plan, &lien, reglages_par_defaut(None), 2);
    let debut = Instant::now();
    let bilan = moteur.executer().await.expect("passage");
    assert!(
        debut.elapsed() >= quinze_minutes,
        "le passage a fini avant le retour du lien : {:?}",
        debut.elapsed()
    );
    assert!(!bilan.interrompu);
    assert!(!emetteur.reseau().est_abandonne());
    assert_eq!(bilan.deposees, 12, "{bilan:?}");
    assert_eq!(bilan.resume.echec, 0, "{bilan:?}");
    // La veille a sondé tout du long, de plus en plus espacé (30 s au plus) : une trentaine
    // de sondes en quinze minutes, pas des milliers.
    let sondes = decisions(&chemin_base, "SONDE").len();
    assert!((30..200).contains(&sondes), "{sondes} sondes");
    drop(dir);
}

/// Le même lien, avec une limite à la pause (`--attente-reseau 600`) : le passage s'arrête au
/// bout de dix minutes, les fichiers restants en échec transitoire. C'est la limite qui
/// arrête, pas autre chose.
#[tokio::test(start_paused = true)]
async fn avec_attente_reseau_la_coupure_arrete_le_passage() {
    let (_dir, base, plan) = nuit(12);
    let lien = Arc::new(Lien::nouveau().coupe(Duration::from_millis(60), Duration::from_secs(900)));
    let (moteur, emetteur) = moteur(
        base,
        plan,
        &lien,
        reglages_par_defaut(Some(Duration::from_secs(600))),
        2,
    );
    let debut = Instant::now();
    let bilan = moteur.executer().await.expect("passage");
    assert!(emetteur.reseau().est_abandonne());
    assert!(
        debut.elapsed() < Duration::from_secs(620),
        "{:?}",
        debut.elapsed()
    );
    assert!(bilan.deposees < 12 && bilan.resume.echec > 0, "{bilan:?}");
}

/// Un trou noir de vingt secondes (les connexions restent ouvertes, muettes ; au retour, celles
/// d'avant sont mortes) aux réglages par défaut (`--delai-tentative 300`) : les tentatives
/// muettes sont coupées au silence toléré par le lien (dix secondes ici), le réseau est
/// déclaré coupé, les sondes partent sur des connexions neuves, et la nuit reprend moins de
/// dix secondes après le retour du lien — jamais au bout des 300 s.
#[tokio::test(start_paused = true)]
async fn un_trou_noir_de_vingt_secondes_la_nuit_reprend_dans_les_dix_secondes() {
    let (_dir, base, plan) = nuit(200);
    let chemin_base = base.chemin().to_owned();
    let lien = Arc::new(Lien::nouveau().trou_noir(Duration::from_secs(2), Duration::from_secs(20)));
    let retour = lien.retour().expect("trou noir programmé");
    let (moteur, emetteur) = moteur(base, plan, &lien, reglages_par_defaut(None), 2);
    let depose_apres_le_retour = {
        let moteur = Arc::clone(&moteur);
        tokio::spawn(async move {
            // Le premier fichier déposé après le retour du lien.
            let avant = deposees(&moteur);
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                if Instant::now() >= retour && deposees(&moteur) > avant {
                    return Instant::now();
                }
            }
        })
    };
    let debut = Instant::now();
    // Dix minutes de l'horloge simulée au plus : sans connexions neuves, la veille sonderait
    // pour toujours des connexions mortes.
    let bilan = tokio::time::timeout(Duration::from_secs(600), moteur.executer())
        .await
        .expect("le passage n'a pas repris après le trou noir")
        .expect("passage");
    assert!(!bilan.interrompu && !emetteur.reseau().est_abandonne());
    assert_eq!(bilan.deposees, 200, "{bilan:?}");
    assert!(
        lien.perdues.load(Ordering::Relaxed) > 0,
        "le trou noir n'a rien avalé"
    );
    let reprise = depose_apres_le_retour.await.expect("reprise");
    assert!(
        reprise.duration_since(retour) < Duration::from_secs(10),
        "reprise {:?} après le retour du lien",
        reprise.duration_since(retour)
    );
    assert!(
        debut.elapsed() < Duration::from_secs(60),
        "{:?}",
        debut.elapsed()
    );
    // Le journal dit pourquoi : des tentatives sans réponse au bout du silence toléré (et
    // non du délai de tentative), une coupure sondée, pas de 300 s.
    let puts = decisions(&chemin_base, "PUT");
    assert!(
        puts.iter()
            .any(|(_, d)| d.contains("aucune réponse du serveur 10 s après l'envoi")),
        "{puts:?}"
    );
    assert!(
        !puts.iter().any(|(_, d)| d.contains("délai de tentative")),
        "{puts:?}"
    );
    assert!(!decisions(&chemin_base, "SONDE").is_empty());
}

/// Les unités déposées jusqu'ici, d'après la base du moteur.
fn deposees(moteur: &Moteur<DepositaireSimule>) -> u64 {
    moteur
        .commun
        .base()
        .resume(moteur.commun.plan.id)
        .map(|r| r.deposee)
        .unwrap_or(0)
}
