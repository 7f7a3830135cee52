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
use crate::plateforme::FichierAttendu;
use crate::reessai::{Annulation, Profil, Reglages, Rejouabilite, ReponseApi};
use crate::transport::{Emetteur, PauseReseau, ReglagesEmission};

/// Ce que le lien simulé fait d'une émission, selon l'instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtatLien {
    Ouvert,
    /// Coupé franchement : chaque connexion est refusée aussitôt.
    Coupe,
}

/// Un lien simulé : ouvert, sauf pendant les coupures programmées (instants de l'horloge de
/// tokio, depuis l'origine du lien).
pub struct Lien {
    origine: Instant,
    coupures: Vec<(Duration, Duration)>,
    /// Émissions reçues (sondes comprises).
    pub emissions: AtomicU64,
}

impl Lien {
    pub fn nouveau() -> Self {
        Lien {
            origine: Instant::now(),
            coupures: Vec::new(),
            emissions: AtomicU64::new(0),
        }
    }

    /// Coupe le lien de `debut` à `debut + duree` (depuis l'origine du lien).
    pub fn coupe(mut self, debut: Duration, duree: Duration) -> Self {
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
    pub async fn emettre(&self) -> ReponseApi<()> {
        self.emissions.fetch_add(1, Ordering::Relaxed);
        match self.etat() {
            EtatLien::Ouvert => {
                tokio::time::sleep(Duration::from_millis(50)).await;
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
pub struct DepositaireSimule(pub Arc<Lien>);

impl Depositaire for DepositaireSimule {
    async fn deposer(
        &self,
        ctx: &ContexteUnite<'_>,
        _fichier: FichierAttendu<'_>,
    ) -> Resultat<IssueUnite> {
        let issue = ctx
            .emettre("PUT", Profil::Insistant, Rejouabilite::Rejouable, |_| {
                self.0.emettre()
            })
            .await;
        Ok(match issue.reponse {
            ReponseApi::Succes(()) => IssueUnite::Deposee {
                crc32c: "AAAAAA==".into(),
                etag: None,
            },
            _ => echec_de(&issue),
        })
    }

    async fn sonder(&self) -> ReponseApi<()> {
        self.0.emettre().await
    }
}

/// Les réglages d'émission par défaut de `vigie depot` (délais, réessais, pause réseau), la
/// limite de la pause en plus ou en moins.
pub fn reglages_par_defaut(attente_max: Option<Duration>) -> ReglagesEmission {
    ReglagesEmission {
        insistant: Reglages::insistant()
            .avec_echeance(Duration::from_secs(900))
            .valider()
            .expect("réglages INSISTANT"),
        bref: Reglages::bref().valider().expect("réglages BREF"),
        delai_tentative: Duration::from_secs(300),
        delai_blocage: Duration::from_secs(30),
        pause: Some(PauseReseau {
            echecs: 2,
            attente_max,
        }),
    }
}

/// Une nuit de `n` petits fichiers planifiée dans une base neuve.
pub fn nuit(n: usize) -> (tempfile::TempDir, Base, DepotPlan) {
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
pub fn moteur(
    base: Base,
    plan: DepotPlan,
    lien: &Arc<Lien>,
    reglages: ReglagesEmission,
    paralleles: usize,
) -> (Arc<Moteur<DepositaireSimule>>, Emetteur) {
    let emetteur = Emetteur::nouveau(reglages, Annulation::new());
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
pub fn decisions(base: &std::path::Path, methode: &str) -> Vec<(Option<String>, String)> {
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
