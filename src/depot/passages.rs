//! `--jusqu-au-bout[=DURÉE]` : enchaîner les passages d'un plan jusqu'à ce qu'il n'y ait plus
//! rien à tenter, sans geste humain.
//!
//! Pourquoi : un portable laissé seul la nuit, sans cron, doit « tout déposer, quoi qu'il
//! arrive » sans que son propriétaire écrive une boucle autour des codes de sortie. Une panne
//! plus longue que la politique de réessai d'un passage (un serveur en maintenance une heure)
//! laisse des fichiers en échec transitoire : on repasse, après une pause.
//!
//! Les règles :
//! - un **passage** est un envoi de tout ce qui reste à tenter dans le plan (à déposer,
//!   interrompu, incertain, en échec transitoire), chaque fichier sous la politique de réessai ;
//!   un passage arrêté avant tout envoi par une erreur passagère (code 1 : plateforme
//!   indisponible à la création de la participation…) compte aussi ;
//! - il reste **quelque chose à tenter** tant qu'un fichier est à déposer, interrompu, incertain
//!   ou en échec transitoire ; les refus définitifs attendent un geste humain : s'il ne reste
//!   qu'eux, on s'arrête (code 3) ; si tout est déposé, code 0 ;
//! - entre deux passages, une pause annoncée, croissante, plafonnée et jitterée : le backoff de
//!   [`PolitiqueReessai`] (`--attente-passage`, doublée à chaque passage,
//!   `--attente-passage-max`), sous l'échéance DURÉE : une pause qui ne laisserait pas le temps
//!   d'un passage avant DURÉE n'est pas commencée (comme un réessai qui ne tiendrait pas dans
//!   l'échéance), et DURÉE arrête aussi un passage en cours, pause réseau comprise (le plan est
//!   tenu à jour comme après Ctrl-C) : code 1 (3 s'il y a aussi des refus définitifs) ;
//! - Ctrl-C, pendant un passage comme pendant une pause : code 130, plan à jour ;
//! - plusieurs plans (les nuits d'une saison, [`enchainer_plans`]) font **une seule course** :
//!   un passage envoie, plan après plan, tout ce qui reste à tenter dans chacun, la pause vient
//!   entre deux passages de la course (pas entre deux plans), et la course s'arrête quand plus
//!   rien n'est à tenter dans aucun plan. Une nuit en panne ne retient donc pas les suivantes :
//!   elles partent au premier passage, et la nuit en panne est reprise au suivant.

//!
//! Chaque plan de la course a son envoi ([`PlanDeLaCourse`], mené par `depot::passage`) ;
//! l'affichage fournit le suivi et l'annonce de chaque passage ([`VuePassages`]) ; ce module
//! décide quand repasser et quand s'arrêter, rend le bilan cumulé de chaque plan, et le code
//! de la course ([`code_de_la_course`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};

use super::Bilan;
use super::evenements::Suivi;
use super::passage::{Envoi, passage};
use crate::plan::{Base, DepotPlan, ResumePlan};
use crate::reessai::{
    AleaSysteme, Annulation, PolitiqueReessai, Reglages, SourceAlea, TENTATIVES_MAX_ADMISES,
    Temporisateur, TemporisateurTokio,
};
use crate::sortie::{CodeSortie, code_pour_erreur};

/// Comment enchaîner les passages d'une commande.
pub(crate) struct ReglePassages {
    /// `false` : un seul passage (sans `--jusqu-au-bout`).
    jusqu_au_bout: bool,
    /// La DURÉE de `--jusqu-au-bout=DURÉE`, s'il y en a une.
    limite: Option<Duration>,
    /// La pause entre deux passages : base, plafond, gigue, et l'échéance DURÉE.
    politique: PolitiqueReessai,
}

impl ReglePassages {
    /// Les réglages, validés strictement (code 2 sinon) : `jusqu_au_bout` (avec sa DURÉE
    /// `limite`), la pause entre deux passages `attente_passage` et son plafond
    /// `attente_passage_max` (chacune déjà lue par `duree::Secondes::attente`).
    pub(crate) fn nouveau(
        jusqu_au_bout: bool,
        limite: Option<Duration>,
        attente_passage: Duration,
        attente_passage_max: Duration,
    ) -> Result<ReglePassages> {
        let reglages = Reglages::insistant()
            .avec_tentatives_max(TENTATIVES_MAX_ADMISES)
            .avec_base(attente_passage)
            .avec_plafond(attente_passage_max);
        let reglages = match limite {
            Some(limite) => reglages.avec_echeance(limite),
            None => reglages.sans_echeance(),
        };
        let politique = reglages
            .valider()
            .context("--attente-passage, --attente-passage-max ou --jusqu-au-bout invalides")?;
        Ok(ReglePassages {
            jusqu_au_bout,
            limite,
            politique,
        })
    }

    fn limite(&self) -> Option<Duration> {
        self.limite
    }

    /// `--jusqu-au-bout` : des passages jusqu'à ce que plus rien ne soit à tenter.
    pub(crate) fn jusqu_au_bout(&self) -> bool {
        self.jusqu_au_bout
    }
}

/// Pourquoi les passages se sont arrêtés.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArretPassages {
    /// Tous les fichiers du plan sont déposés.
    ToutDepose,
    /// Il ne reste que des refus définitifs : plus rien à tenter sans un geste humain.
    RefusDefinitifs,
    /// La DURÉE de `--jusqu-au-bout=DURÉE` est écoulée (ou le serait avant la fin de la pause).
    DureeEcoulee,
    /// Ctrl-C ou SIGTERM.
    Interrompu,
}

impl ArretPassages {
    /// Nom stable (sortie JSON).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ArretPassages::ToutDepose => "tout_depose",
            ArretPassages::RefusDefinitifs => "refus_definitifs",
            ArretPassages::DureeEcoulee => "duree_ecoulee",
            ArretPassages::Interrompu => "interrompu",
        }
    }
}

/// La fin d'une commande lancée avec `--jusqu-au-bout` : combien de passages, et pourquoi elle
/// s'arrête.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FinDesPassages {
    pub(crate) passages: u32,
    pub(crate) arret: ArretPassages,
    /// La DURÉE donnée, s'il y en a une.
    pub(crate) limite: Option<std::time::Duration>,
}

/// Ce qu'a donné un passage : son bilan, ou l'erreur passagère qui l'a arrêté avant tout envoi
/// (plateforme indisponible à la création de la participation, par exemple).
pub(crate) enum IssuePassage<'a> {
    Bilan(&'a Bilan),
    Erreur { plan: i64, message: &'a str },
}

/// Ce que l'affichage fournit à l'enchaînement (`suivi/passages.rs` l'implémente).
pub(crate) trait VuePassages {
    /// Le suivi d'un passage (un neuf à chaque passage).
    fn suivi(&self) -> Arc<dyn Suivi>;
    /// Avant le passage d'un plan (une course de plusieurs plans en dit l'en-tête).
    fn commencer(&self, _plan: &DepotPlan) {}
    /// Ce qu'a donné le passage `numero` (avec `--jusqu-au-bout`), et dans combien de temps
    /// vient le suivant (`None` : c'était le dernier).
    fn annoncer_passage(&self, numero: u32, issue: &IssuePassage<'_>, prochain: Option<Duration>);
    /// Les barres effacées, avant qu'une erreur ne soit dite.
    fn liberer_terminal(&self);
}

/// Ce qui suit un passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suite {
    Arreter(ArretPassages),
    /// Un autre passage, après cette pause.
    Pause(Duration),
}

/// Après le passage `numero`, `ecoule` depuis le début de la commande : s'arrêter (et
/// pourquoi), ou repasser après une pause. Pure : le temps et l'aléa sont donnés.
fn suite_apres(
    politique: &PolitiqueReessai,
    r: &ResumePlan,
    numero: u32,
    ecoule: Duration,
    alea: f64,
) -> Suite {
    if !reste_a_tenter(r) {
        return Suite::Arreter(if r.definitifs > 0 {
            ArretPassages::RefusDefinitifs
        } else {
            ArretPassages::ToutDepose
        });
    }
    let pause = politique.attente_backoff(numero, alea);
    let passage_min = politique.reglages().duree_min_tentative();
    match politique.budget_restant(ecoule) {
        Some(reste) if pause.saturating_add(passage_min) > reste => {
            Suite::Arreter(ArretPassages::DureeEcoulee)
        }
        _ => Suite::Pause(pause),
    }
}

/// Ce que des passages ont fait ensemble : le plan tel qu'il est après le dernier, et la somme
/// de ce que chacun a déposé, envoyé, absorbé, et du temps qu'il a pris (pauses exclues).
fn cumuler(total: &mut Option<Bilan>, b: &Bilan) {
    match total {
        None => *total = Some(b.clone()),
        Some(t) => {
            t.resume = b.resume.clone();
            t.deposees += b.deposees;
            t.octets_envoyes += b.octets_envoyes;
            t.incidents_absorbes += b.incidents_absorbes;
            t.deja_presentes += b.deja_presentes;
            t.deja_non_comparees += b.deja_non_comparees;
            t.duree += b.duree;
            t.interrompu = b.interrompu;
            t.destination.clone_from(&b.destination);
        }
    }
}

/// Les passages d'une commande (un seul sans `--jusqu-au-bout`), sous `arret` (Ctrl-C) : le
/// bilan cumulé (le plan tel qu'il est après le dernier, `interrompu` si Ctrl-C les a
/// arrêtés), et, avec `--jusqu-au-bout`, combien de passages et pourquoi ils s'arrêtent.
pub(crate) async fn enchainer(
    regle: &ReglePassages,
    (envoi, vue): (&Envoi<'_>, &impl VuePassages),
    arret: Annulation,
    base: Base,
    plan: DepotPlan,
) -> Result<(Bilan, Option<FinDesPassages>)> {
    let plans = [PlanDeLaCourse {
        plan,
        envoi,
        des_le_premier_passage: true,
    }];
    let (mut bilans, fin) = enchainer_plans(regle, vue, arret, base, &plans).await?;
    let bilan = bilans.pop().flatten().context("aucun passage")?;
    Ok((bilan, fin))
}

/// Ce qu'a donné le passage d'un plan : son bilan, ou l'erreur passagère qui l'a arrêté.
fn issue_de<'a>(
    plan: i64,
    bilan: &'a Option<Bilan>,
    erreur: &'a Option<String>,
) -> IssuePassage<'a> {
    match bilan {
        Some(b) => IssuePassage::Bilan(b),
        None => IssuePassage::Erreur {
            plan,
            message: erreur.as_deref().unwrap_or_default(),
        },
    }
}

/// Un plan d'une course de plusieurs plans (les nuits d'une saison), et son envoi (en
/// saison, celui de chaque nuit : mêmes réglages, même seau `--debit-max`, participation
/// propre).
pub(crate) struct PlanDeLaCourse<'a, 'e> {
    pub(crate) plan: DepotPlan,
    pub(crate) envoi: &'a Envoi<'e>,
    /// `false` : le plan attend le deuxième passage (une nuit dont la participation n'a pas pu
    /// être créée avant l'envoi : elle est retentée au passage suivant, avec les autres).
    pub(crate) des_le_premier_passage: bool,
}

/// Reste-t-il quelque chose à tenter dans ce plan (à déposer, interrompu, incertain, en échec
/// transitoire) ?
fn reste_a_tenter(r: &ResumePlan) -> bool {
    r.a_deposer + r.en_cours + r.incertaine + r.echec.saturating_sub(r.definitifs) > 0
}

/// Ce qui compte pour la suite d'une course de plusieurs plans : la somme de leurs comptes.
fn somme(resumes: &[ResumePlan]) -> ResumePlan {
    let mut t = ResumePlan::default();
    for r in resumes {
        t.a_deposer += r.a_deposer;
        t.en_cours += r.en_cours;
        t.deposee += r.deposee;
        t.echec += r.echec;
        t.incertaine += r.incertaine;
        t.definitifs += r.definitifs;
    }
    t
}

/// Les passages d'une course de plusieurs plans (les nuits d'une saison), dans leur ordre :
/// un **passage** envoie, plan après plan, tout ce qui reste à tenter dans chacun ; la pause
/// vient entre deux passages de la course, pas entre deux plans ; la course s'arrête quand
/// plus rien n'est à tenter dans aucun plan (ou sur DURÉE, ou Ctrl-C). Rend le bilan cumulé
/// de chaque plan (`None` pour un plan qu'aucun passage n'a touché, sans `--jusqu-au-bout`) et,
/// avec `--jusqu-au-bout`, la fin des passages. Sans `--jusqu-au-bout`, un seul passage, qui
/// s'arrête à la première erreur ou au premier plan interrompu.
pub(crate) async fn enchainer_plans(
    regle: &ReglePassages,
    passages: &impl VuePassages,
    arret: Annulation,
    base: Base,
    plans: &[PlanDeLaCourse<'_, '_>],
) -> Result<(Vec<Option<Bilan>>, Option<FinDesPassages>)> {
    let horloge = TemporisateurTokio::nouveau();
    // DURÉE écoulée : plus rien ne démarre, ce qui est en vol s'arrête, comme après Ctrl-C.
    let duree_ecoulee = Arc::new(AtomicBool::new(false));
    if let Some(limite) = regle.limite() {
        let (arret, drapeau) = (arret.clone(), Arc::clone(&duree_ecoulee));
        tokio::spawn(async move {
            TemporisateurTokio::nouveau().attendre(limite).await;
            drapeau.store(true, Ordering::SeqCst);
            arret.annuler();
        });
    }
    let arret_de = |arret: &Annulation| {
        debug_assert!(arret.est_annulee());
        if duree_ecoulee.load(Ordering::SeqCst) {
            ArretPassages::DureeEcoulee
        } else {
            ArretPassages::Interrompu
        }
    };
    let chemin_base = base.chemin().to_owned();
    let mut base = Some(base);
    let mut totaux: Vec<Option<Bilan>> = plans.iter().map(|_| None).collect();
    let mut numero: u32 = 0;
    let arret_final = loop {
        numero += 1;
        // Les plans de ce passage : au premier, ceux qui partent d'emblée ; ensuite, ceux où
        // il reste quelque chose à tenter.
        let ce_passage: Vec<usize> = if numero == 1 {
            (0..plans.len())
                .filter(|&i| plans[i].des_le_premier_passage)
                .collect()
        } else {
            let b = Base::ouvrir(&chemin_base)?;
            let mut v = Vec::new();
            for (i, p) in plans.iter().enumerate() {
                if reste_a_tenter(&b.resume(p.plan.id)?) {
                    v.push(i);
                }
            }
            v
        };
        // L'issue du dernier plan de ce passage : annoncée avec la suite, une fois connue.
        let mut derniere: Option<(i64, Option<Bilan>, Option<String>)> = None;
        for (rang, &i) in ce_passage.iter().enumerate() {
            let (plan, envoi) = (&plans[i].plan, plans[i].envoi);
            passages.commencer(plan);
            let suivi = passages.suivi();
            let base_du_passage = match base.take() {
                Some(b) => b,
                None => Base::ouvrir(&chemin_base)?,
            };
            // La pause réseau d'un passage ne dépasse pas DURÉE (sans `--attente-reseau`,
            // c'est DURÉE qui l'arrête, comme elle arrête le passage).
            let attente_reseau = match regle.politique.budget_restant(horloge.maintenant()) {
                Some(reste) => envoi
                    .attente_reseau()
                    .map(|a| a.min(reste.max(Duration::from_millis(1)))),
                None => envoi.attente_reseau(),
            };
            // L'arrêt de la commande (Ctrl-C, DURÉE) arrête le passage ; le réseau abandonné
            // n'arrête que le passage : le suivant reprendra après la pause.
            // En boîte : l'avenir d'un passage est grand, celui de l'enchaînement le contient.
            let issue = Box::pin(passage(
                envoi,
                base_du_passage,
                plan.clone(),
                arret.enfant(),
                suivi,
                attente_reseau,
            ))
            .await;
            if !regle.jusqu_au_bout {
                let bilan = issue?;
                let interrompu = bilan.interrompu;
                totaux[i] = Some(bilan);
                if interrompu || arret.est_annulee() {
                    break;
                }
                continue;
            }
            let (bilan, erreur) = match issue {
                Ok(b) => (Some(b), None),
                // Une erreur passagère avant tout envoi : un passage raté, à refaire.
                Err(e)
                    if code_pour_erreur(&e) == CodeSortie::EchecsTransitoires
                        && !arret.est_annulee() =>
                {
                    passages.liberer_terminal();
                    (None, Some(format!("{e:#}")))
                }
                // DURÉE écoulée avant tout envoi (pendant la pause réseau de la résolution de
                // la participation) : ce n'est pas Ctrl-C, les passages s'arrêtent sur DURÉE
                // (code 1).
                Err(_)
                    if arret.est_annulee() && arret_de(&arret) == ArretPassages::DureeEcoulee =>
                {
                    passages.liberer_terminal();
                    (
                        None,
                        Some("arrêté avant tout envoi : la durée est écoulée".to_owned()),
                    )
                }
                Err(e) => return Err(e),
            };
            if let Some(b) = &bilan {
                cumuler(&mut totaux[i], b);
            }
            if rang + 1 == ce_passage.len() || arret.est_annulee() {
                derniere = Some((plan.id, bilan, erreur));
                break;
            }
            passages.annoncer_passage(numero, &issue_de(plan.id, &bilan, &erreur), None);
        }
        if !regle.jusqu_au_bout {
            return Ok((totaux, None));
        }
        let suite = if arret.est_annulee() {
            Suite::Arreter(arret_de(&arret))
        } else {
            let b = Base::ouvrir(&chemin_base)?;
            let mut resumes = Vec::with_capacity(plans.len());
            for p in plans {
                resumes.push(b.resume(p.plan.id)?);
            }
            suite_apres(
                &regle.politique,
                &somme(&resumes),
                numero,
                horloge.maintenant(),
                AleaSysteme.tirer(),
            )
        };
        let prochain = match suite {
            Suite::Pause(p) => Some(p),
            Suite::Arreter(_) => None,
        };
        if let Some((id, bilan, erreur)) = &derniere {
            passages.annoncer_passage(numero, &issue_de(*id, bilan, erreur), prochain);
        }
        match suite {
            Suite::Arreter(a) => break a,
            Suite::Pause(pause) => {
                tokio::select! {
                    () = horloge.attendre(pause) => {}
                    () = arret.annulee() => break arret_de(&arret),
                }
            }
        }
    };
    let b = Base::ouvrir(&chemin_base)?;
    let mut bilans = Vec::with_capacity(plans.len());
    for (p, total) in plans.iter().zip(totaux) {
        let resume = b.resume(p.plan.id)?;
        let mut bilan = total.unwrap_or_else(|| Bilan {
            plan: p.plan.id,
            resume: resume.clone(),
            deposees: 0,
            octets_envoyes: 0,
            incidents_absorbes: 0,
            duree: Duration::ZERO,
            interrompu: false,
            deja_presentes: 0,
            deja_non_comparees: 0,
            reglages: Default::default(),
            destination: Default::default(),
        });
        bilan.resume = resume;
        bilan.interrompu = arret_final == ArretPassages::Interrompu;
        bilans.push(Some(bilan));
    }
    let fin = FinDesPassages {
        passages: numero,
        arret: arret_final,
        limite: regle.limite(),
    };
    Ok((bilans, Some(fin)))
}

/// Le code de sortie d'une course : 130 si Ctrl-C l'a arrêtée, sinon le pire de ses plans
/// (`CodeSortie::du_plan`) ; un plan qu'aucun passage n'a touché ne compte pas.
pub(crate) fn code_de_la_course(bilans: &[Option<Bilan>]) -> CodeSortie {
    let bilans = bilans.iter().flatten();
    if bilans.clone().any(|b| b.interrompu) {
        return CodeSortie::Interrompu;
    }
    bilans.fold(CodeSortie::Succes, |code, b| {
        code.max_par_gravite(CodeSortie::du_plan(&b.resume))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regle(limite: Option<u64>) -> ReglePassages {
        let (base, max) = (Duration::from_secs(30), Duration::from_secs(600));
        ReglePassages::nouveau(true, limite.map(Duration::from_secs), base, max).unwrap()
    }

    fn resume(a_deposer: u64, echec: u64, definitifs: u64, incertaine: u64) -> ResumePlan {
        ResumePlan {
            a_deposer,
            deposee: 5,
            echec,
            definitifs,
            incertaine,
            ..Default::default()
        }
    }

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn on_repasse_tant_qu_il_reste_quelque_chose_a_tenter() {
        let p = regle(None).politique;
        assert_eq!(
            suite_apres(&p, &resume(0, 0, 0, 0), 1, S(0), 0.5),
            Suite::Arreter(ArretPassages::ToutDepose)
        );
        // Plus que des refus définitifs : un geste humain, pas un autre passage.
        assert_eq!(
            suite_apres(&p, &resume(0, 2, 2, 0), 1, S(0), 0.5),
            Suite::Arreter(ArretPassages::RefusDefinitifs)
        );
        // Un échec transitoire, un incertain, un fichier à déposer : on repasse, même à côté
        // d'un refus définitif.
        for r in [resume(0, 3, 2, 0), resume(0, 0, 0, 1), resume(1, 0, 0, 0)] {
            assert!(
                matches!(suite_apres(&p, &r, 1, S(0), 0.5), Suite::Pause(_)),
                "{r:?}"
            );
        }
    }

    #[test]
    fn la_pause_croit_plafonnee_et_jitteree() {
        let p = regle(None).politique;
        let pause = |n, alea| match suite_apres(&p, &resume(1, 0, 0, 0), n, S(0), alea) {
            Suite::Pause(d) => d,
            autre => panic!("{autre:?}"),
        };
        // Gigue égale : entre la moitié et le tout de l'enveloppe 30 s · 2^(n−1), plafonnée.
        assert_eq!(pause(1, 0.0), S(15));
        assert_eq!(pause(1, 1.0), S(30));
        assert_eq!(pause(2, 1.0), S(60));
        assert_eq!(pause(3, 0.5), S(90));
        assert_eq!(pause(10, 1.0), S(600));
        assert_eq!(pause(1000, 0.0), S(300));
    }

    #[test]
    fn pas_de_pause_qui_finirait_apres_la_duree() {
        let p = regle(Some(3600)).politique;
        let r = resume(0, 1, 0, 0);
        assert_eq!(suite_apres(&p, &r, 1, S(100), 1.0), Suite::Pause(S(30)));
        // 30 s de pause et une seconde de passage au moins : il faut 31 s.
        assert_eq!(suite_apres(&p, &r, 1, S(3569), 1.0), Suite::Pause(S(30)));
        assert_eq!(
            suite_apres(&p, &r, 1, S(3570), 1.0),
            Suite::Arreter(ArretPassages::DureeEcoulee)
        );
        // Tout déposé juste à l'échéance : c'est fini, pas écoulé.
        assert_eq!(
            suite_apres(&p, &resume(0, 0, 0, 0), 1, S(4000), 1.0),
            Suite::Arreter(ArretPassages::ToutDepose)
        );
    }

    #[test]
    fn reglages_invalides_refuses() {
        let ms = Duration::from_millis;
        assert!(ReglePassages::nouveau(false, None, ms(20_000), ms(10_000)).is_err());
        assert!(ReglePassages::nouveau(false, None, ms(10), ms(20)).is_ok());
    }

    #[test]
    fn le_code_d_une_course() {
        let bilan = |resume, interrompu| {
            Some(Bilan {
                plan: 1,
                resume,
                deposees: 0,
                octets_envoyes: 0,
                incidents_absorbes: 0,
                duree: Duration::ZERO,
                interrompu,
                deja_presentes: 0,
                deja_non_comparees: 0,
                reglages: Default::default(),
                destination: Default::default(),
            })
        };
        let tout = bilan(resume(0, 0, 0, 0), false);
        let echec = bilan(resume(0, 2, 0, 0), false);
        let refus = bilan(resume(0, 1, 1, 0), false);
        assert_eq!(code_de_la_course(&[tout.clone(), None]), CodeSortie::Succes);
        let course = [tout.clone(), echec.clone()];
        assert_eq!(code_de_la_course(&course), CodeSortie::EchecsTransitoires);
        let course = [echec.clone(), refus, tout];
        assert_eq!(code_de_la_course(&course), CodeSortie::RefusDefinitifs);
        let coupee = bilan(resume(3, 0, 0, 0), true);
        assert_eq!(code_de_la_course(&[echec, coupee]), CodeSortie::Interrompu);
    }
}
