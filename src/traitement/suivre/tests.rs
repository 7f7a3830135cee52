//! Le suivi contre la plateforme locale (le bac à sable, en processus) : le temps des attentes
//! est celui d'une horloge virtuelle, celui du calcul celui du bac à sable (avancé d'un coup).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use vigie_bac_a_sable::{BacASable, JETON, Operation, PARTICIPATION, Panne, ReglagesCalcul, Regle};

use super::*;
use crate::destination::IdObjet;
use crate::reessai::doubles::{AleaFixe, HorlogeVirtuelle};
use crate::sortie::{CodeSortie, code_pour_erreur};
use crate::transport::vigiechiro::ClientVigieChiro;
use crate::transport::{Emetteur, ReglagesEmission};

const MINUTE: Duration = Duration::from_secs(60);

/// Ce que le suivi a annoncé : l'état de chaque relevé (`None` : manqué) et l'attente qui suit.
#[derive(Default)]
struct Annonces {
    releves: Mutex<Vec<(Option<String>, Option<Duration>)>>,
    decomptes: Mutex<Vec<Duration>>,
    /// Annulée au premier relevé, si elle est donnée (Ctrl-C pendant l'attente).
    annuler_au_premier: Option<Annulation>,
}

impl AnnoncesReleve for Annonces {
    fn releve(&self, releve: &Releve, prochain: Option<Duration>) {
        let etat = match releve {
            Releve::Lu(e) => Some(
                e.traitement
                    .as_ref()
                    .map_or("aucun".to_owned(), |t| t.etat.nom().to_owned()),
            ),
            Releve::Manque(_) => None,
        };
        self.releves.lock().unwrap().push((etat, prochain));
        if let Some(a) = &self.annuler_au_premier {
            a.annuler();
        }
    }

    fn decompte(&self, reste: Duration) {
        self.decomptes.lock().unwrap().push(reste);
    }
}

struct Banc {
    bac: BacASable,
    client: ClientVigieChiro,
    emetteur: Emetteur,
    annulation: Annulation,
    _dossier: tempfile::TempDir,
}

/// La plateforme locale, et un émetteur dont les attentes de réessai BREF sont d'une
/// milliseconde (la politique garde ses deux tentatives : c'est leur nombre qui compte ici).
async fn banc(reglages: ReglagesCalcul) -> Banc {
    let dossier = tempfile::tempdir().unwrap();
    let bac = BacASable::demarrer(&dossier.path().join("bac"), 0)
        .await
        .unwrap();
    bac.regler_calcul(reglages);
    let client = ClientVigieChiro::nouveau(&bac.api(), JETON).unwrap();
    let annulation = Annulation::nouveau();
    let emetteur = Emetteur::nouveau(
        ReglagesEmission {
            insistant: Reglages::insistant().valider().unwrap(),
            bref: Reglages::bref()
                .avec_base(Duration::from_millis(1))
                .avec_plafond(Duration::from_millis(2))
                .valider()
                .unwrap(),
            delai_tentative: Duration::from_secs(20),
            delai_blocage: Duration::from_secs(20),
            pause: None,
        },
        annulation.clone(),
    );
    Banc {
        bac,
        client,
        emetteur,
        annulation,
        _dossier: dossier,
    }
}

fn participation() -> IdObjet {
    IdObjet::analyser(PARTICIPATION).unwrap()
}

fn calcul(attente: Duration, duree: Duration) -> ReglagesCalcul {
    ReglagesCalcul {
        attente,
        duree,
        ..ReglagesCalcul::default()
    }
}

async fn lancer(b: &Banc) {
    let r = reqwest::Client::new()
        .post(format!(
            "{}/participations/{PARTICIPATION}/compute",
            b.bac.api()
        ))
        .basic_auth(JETON, Some(""))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
}

fn cadence() -> Cadence {
    Cadence::nouveau(30 * Duration::from_secs(1), 5 * MINUTE, None, 30 * MINUTE).unwrap()
}

/// L'instant du début du suivi, pour juger les dates de la plateforme.
fn depart() -> InstantUtc {
    crate::traitement::maintenant()
}

#[tokio::test(flavor = "multi_thread")]
async fn chaque_etat_puis_fini_avec_des_attentes_croissantes_et_plafonnees() {
    let b = banc(calcul(15 * MINUTE, 40 * MINUTE)).await;
    lancer(&b).await;
    let horloge = HorlogeVirtuelle::nouveau();
    let annonces = Annonces::default();
    let id = participation();
    // Entre deux relevés, le calcul avance du temps que le suivi a attendu.
    let attendu = AtomicU32::new(0);
    let fin = suivre(
        &cadence(),
        depart(),
        &horloge,
        &AleaFixe(1.0),
        &b.annulation,
        || {
            let total: Duration = horloge.attentes().iter().sum();
            let deja = Duration::from_secs(u64::from(
                attendu.swap(total.as_secs() as u32, Ordering::SeqCst),
            ));
            b.bac.avancer_horloge(total.saturating_sub(deja));
            super::super::relever(&b.client, &b.emetteur, &id)
        },
        &annonces,
    )
    .await
    .unwrap();
    let FinDuSuivi::Termine(e) = fin else {
        panic!("{fin:?}");
    };
    assert_eq!(
        e.traitement.unwrap().etat,
        crate::traitement::EtatCalcul::Fini
    );
    assert!(e.bilan.is_some());
    let releves = annonces.releves.lock().unwrap().clone();
    let etats: Vec<&str> = releves.iter().map(|(e, _)| e.as_deref().unwrap()).collect();
    // 30 s, 1 min, 2 min, 4 min, puis 5 min (plafond) : PLANIFIE jusqu'à 15 min, EN_COURS
    // jusqu'à 55 min.
    assert_eq!(etats[0], "PLANIFIE");
    assert!(etats.contains(&"EN_COURS"), "{etats:?}");
    assert_eq!(*etats.last().unwrap(), "FINI");
    let pauses: Vec<Duration> = releves.iter().filter_map(|(_, p)| *p).collect();
    assert_eq!(
        &pauses[..6],
        &[30, 60, 120, 240, 300, 300].map(Duration::from_secs)
    );
    assert_eq!(releves.last().unwrap().1, None);
    // Le décompte de chaque attente, seconde par seconde (30, 29… 1 pour la première).
    let decomptes = annonces.decomptes.lock().unwrap().clone();
    assert_eq!(decomptes[0], Duration::from_secs(30));
    assert_eq!(decomptes[29], Duration::from_secs(1));
    assert_eq!(decomptes[30], Duration::from_secs(60));
    // Un seul GET par relevé quand tout va bien.
    assert_eq!(
        b.bac.compteurs().requetes(Operation::ApiLireParticipation),
        releves.len() as u64
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn rafale_de_503_au_plus_une_tentative_de_plus_par_releve() {
    let b = banc(calcul(Duration::ZERO, Duration::ZERO)).await;
    lancer(&b).await;
    b.bac.pannes().programmer(
        Regle::toujours(
            Some(Operation::ApiLireParticipation),
            Panne::Statut {
                code: 503,
                retry_after: None,
            },
        )
        .fois(7),
    );
    let horloge = HorlogeVirtuelle::nouveau();
    let annonces = Annonces::default();
    let id = participation();
    let fin = suivre(
        &cadence(),
        depart(),
        &horloge,
        &AleaFixe(0.0),
        &b.annulation,
        || super::super::relever(&b.client, &b.emetteur, &id),
        &annonces,
    )
    .await
    .unwrap();
    assert!(matches!(fin, FinDuSuivi::Termine(_)), "{fin:?}");
    let releves = annonces.releves.lock().unwrap().clone();
    // Trois relevés manqués (deux 503 chacun), puis un 503 et la réponse : aucune erreur.
    assert_eq!(
        releves.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(),
        [None, None, None, Some("FINI".to_owned())]
    );
    let requetes = b.bac.compteurs().requetes(Operation::ApiLireParticipation);
    assert_eq!(requetes, 8);
    assert!(requetes <= 2 * releves.len() as u64);
    // Les relevés manqués ne pressent pas le pas : 15 s, 30 s, 60 s (gigue au plus bas).
    assert_eq!(
        horloge.attentes().iter().sum::<Duration>(),
        Duration::from_secs(105)
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn l_echeance_arrete_sur_le_dernier_etat_releve() {
    let b = banc(calcul(10 * 24 * 60 * MINUTE, MINUTE)).await;
    lancer(&b).await;
    let horloge = HorlogeVirtuelle::nouveau();
    let annonces = Annonces::default();
    let id = participation();
    let cadence = Cadence::nouveau(
        Duration::from_secs(30),
        5 * MINUTE,
        Some(10 * MINUTE),
        30 * MINUTE,
    )
    .unwrap();
    let fin = suivre(
        &cadence,
        depart(),
        &horloge,
        &AleaFixe(1.0),
        &b.annulation,
        || super::super::relever(&b.client, &b.emetteur, &id),
        &annonces,
    )
    .await
    .unwrap();
    let FinDuSuivi::Echeance(Some(e)) = fin else {
        panic!("{fin:?}");
    };
    assert_eq!(e.traitement.unwrap().etat.nom(), "PLANIFIE");
    // 30 + 60 + 120 + 240 = 7 min 30 ; 5 min de plus dépasseraient les 10 min.
    let total: Duration = horloge.attentes().iter().sum();
    assert_eq!(total, Duration::from_secs(450));
    assert_eq!(annonces.releves.lock().unwrap().last().unwrap().1, None);
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_pendant_l_attente_arrete_aussitot() {
    let b = banc(calcul(10 * 24 * 60 * MINUTE, MINUTE)).await;
    lancer(&b).await;
    let horloge = HorlogeVirtuelle::avec_attentes_suspendues();
    let annonces = Annonces {
        annuler_au_premier: Some(b.annulation.clone()),
        ..Annonces::default()
    };
    let id = participation();
    let fin = suivre(
        &cadence(),
        depart(),
        &horloge,
        &AleaFixe(1.0),
        &b.annulation,
        || super::super::relever(&b.client, &b.emetteur, &id),
        &annonces,
    )
    .await
    .unwrap();
    let FinDuSuivi::Interrompu(Some(e)) = fin else {
        panic!("{fin:?}");
    };
    assert_eq!(e.traitement.unwrap().etat.nom(), "PLANIFIE");
    assert_eq!(
        b.bac.compteurs().requetes(Operation::ApiLireParticipation),
        1
    );
    b.bac.arreter().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn un_jeton_refuse_arrete_le_suivi() {
    let b = banc(calcul(MINUTE, MINUTE)).await;
    assert!(b.bac.expirer_jeton(JETON));
    let horloge = HorlogeVirtuelle::nouveau();
    let id = participation();
    let e = suivre(
        &cadence(),
        depart(),
        &horloge,
        &AleaFixe(1.0),
        &b.annulation,
        || super::super::relever(&b.client, &b.emetteur, &id),
        &Annonces::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(code_pour_erreur(&e), CodeSortie::RefusDefinitifs);
    assert!(format!("{e}").contains("jeton"), "{e}");
    // Un refus n'est jamais rejoué.
    assert_eq!(
        b.bac.compteurs().requetes(Operation::ApiLireParticipation),
        1
    );
    b.bac.arreter().await;
}

/// Le suivi de la cadence ordinaire jusqu'à ce qu'il rende la main ; sans fin, il relèverait
/// sans cesse : l'essai échoue au centième relevé au lieu d'attendre.
async fn suivre_borne(b: &Banc, horloge: &HorlogeVirtuelle, annonces: &Annonces) -> FinDuSuivi {
    let id = participation();
    let releves = AtomicU32::new(0);
    suivre(
        &cadence(),
        depart(),
        horloge,
        &AleaFixe(1.0),
        &b.annulation,
        || {
            assert!(
                releves.fetch_add(1, Ordering::SeqCst) < 100,
                "le suivi ne rend pas la main"
            );
            super::super::relever(&b.client, &b.emetteur, &id)
        },
        annonces,
    )
    .await
    .unwrap()
}

/// Une sonde hostile : `traitement --attendre` relevait « aucun calcul lancé » sans fin. Une nuit dont
/// aucun calcul n'est lancé rend la main au premier relevé : rien ne viendra sans `vigie
/// traiter`.
#[tokio::test(flavor = "multi_thread")]
async fn attendre_sans_calcul_lance_rend_la_main_au_premier_releve() {
    let b = banc(calcul(MINUTE, MINUTE)).await;
    let horloge = HorlogeVirtuelle::nouveau();
    let annonces = Annonces::default();
    let fin = suivre_borne(&b, &horloge, &annonces).await;
    let FinDuSuivi::SansCalcul(e) = fin else {
        panic!("{fin:?}");
    };
    assert!(e.traitement.is_none());
    assert!(horloge.attentes().is_empty(), "{:?}", horloge.attentes());
    assert_eq!(
        *annonces.releves.lock().unwrap(),
        [(Some("aucun".to_owned()), None)]
    );
    assert_eq!(
        b.bac.compteurs().requetes(Operation::ApiLireParticipation),
        1
    );
    b.bac.arreter().await;
}

/// Une sonde hostile : `traitement --attendre` suivait sans fin un calcul EN_COURS depuis trois jours,
/// que `vigie traiter` dit pourtant « semble arrêté ». Il le suit encore pendant la patience
/// (30 min ici), puis rend la main sur le dernier état relevé.
#[tokio::test(flavor = "multi_thread")]
async fn attendre_un_calcul_en_cours_depuis_trois_jours_rend_la_main_apres_la_patience() {
    let b = banc(calcul(Duration::ZERO, 30 * 24 * 60 * MINUTE)).await;
    lancer(&b).await;
    // Le calcul commence, puis trois jours passent pour la plateforme.
    b.bac.avancer_horloge(Duration::from_secs(10));
    b.bac.avancer_horloge(3 * 24 * 60 * MINUTE);
    let horloge = HorlogeVirtuelle::nouveau();
    let annonces = Annonces::default();
    let fin = suivre_borne(&b, &horloge, &annonces).await;
    let FinDuSuivi::Arrete(e) = fin else {
        panic!("{fin:?}");
    };
    assert_eq!(e.traitement.unwrap().etat.nom(), "EN_COURS");
    // 30 s, 1, 2, 4, 5, 5, 5, 5, 5 min : 32 min 30 s, la première au-delà des 30 min.
    let total: Duration = horloge.attentes().iter().sum();
    assert_eq!(total, Duration::from_secs(30 + 60 + 120 + 240 + 5 * 300));
    let releves = annonces.releves.lock().unwrap().clone();
    assert_eq!(releves.len(), 10);
    assert!(
        releves
            .iter()
            .all(|(e, _)| e.as_deref() == Some("EN_COURS"))
    );
    assert_eq!(releves.last().unwrap().1, None);
    b.bac.arreter().await;
}
