//! La course d'une saison, sans un mot : **toutes** les créations de participations d'abord,
//! nuit après nuit, avant le premier octet ; puis une seule course pour les nuits qui peuvent
//! partir ; puis le bilan de toute la saison (après Ctrl-C aussi).
//!
//! Une création qui échoue passagèrement n'arrête pas les autres nuits : avec
//! `--jusqu-au-bout`, sa nuit est retentée au deuxième passage de la course (son passage crée
//! la participation) ; sans, elle attend la prochaine relance (code 1). Une création refusée
//! (un 422) n'arrête que sa nuit (code 3) ; seul un jeton refusé arrête tout.
//!
//! La commande fournit ce qui crée, ce qui court et ce qui dit ([`Course`], comme
//! `depot::passages::Passages`) ; ce module décide du sort de chaque nuit et du code.

use anyhow::Result;

use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::destination::{CibleParticipation, IdObjet};
use crate::plan::{Base, DepotPlan};
use crate::saison::planification::NuitAEnvoyer;
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// Ce que la commande fournit à la course d'une saison.
pub(crate) trait Course {
    /// La base des plans (une connexion par création, une pour la course).
    fn base(&self) -> Result<Base>;
    /// `--jusqu-au-bout` : une création reportée est retentée au passage suivant.
    fn jusqu_au_bout(&self) -> bool;
    /// La participation du plan `plan` vers `dest`, créée (ou retrouvée par la relecture du
    /// site) hors d'un passage.
    fn creer(&self, base: &Base, plan: &DepotPlan, dest: &DestinationVigieChiro)
    -> Result<IdObjet>;
    /// Dire ce qu'il advient de la création de la nuit `nuit`.
    fn dire(&self, nuit: &NuitAEnvoyer, creation: Creation<'_>) -> Result<()>;
    /// La course : les nuits dans l'ordre de la saison, et si chacune part dès le premier
    /// passage. Rend le code de la course (130 sur Ctrl-C).
    fn courir(&self, base: Base, course: &[(NuitAEnvoyer, bool)]) -> Result<CodeSortie>;
    /// Le bilan de toute la saison : les nuits `plans`, dans l'ordre de la saison.
    fn bilan(&self, plans: &[i64]) -> Result<()>;
}

/// Ce qu'il advient de la création de la participation d'une nuit.
pub(crate) enum Creation<'e> {
    /// Créée (ou retrouvée) : la nuit part dès le premier passage.
    Creee(&'e IdObjet),
    /// Un échec passager : la nuit est retentée au passage suivant (`jusqu_au_bout`), ou à la
    /// prochaine relance.
    Reportee {
        erreur: &'e anyhow::Error,
        jusqu_au_bout: bool,
    },
    /// Un refus (un 422) : cette nuit seule attend, les autres partent.
    Refusee(&'e anyhow::Error),
}

/// Ce que les créations laissent : les nuits de la course (et si elles partent dès le premier
/// passage), celles hors de la course dont la création attend une relance, et le code.
struct Creations {
    course: Vec<(NuitAEnvoyer, bool)>,
    reportees: Vec<i64>,
    code: CodeSortie,
}

/// Les créations d'abord (toutes, avant le premier octet), puis l'envoi nuit après nuit, puis
/// le bilan de la saison. Le code : le pire des créations et de la course.
pub(crate) fn mener(c: &impl Course, planifiees: Vec<NuitAEnvoyer>) -> Result<CodeSortie> {
    let ordre: Vec<i64> = planifiees.iter().map(|p| p.plan.id).collect();
    let creations = creer_les_participations(c, planifiees)?;
    // Le bilan : les nuits de la course et celles dont la création attend une relance, dans
    // l'ordre de la saison.
    let tous: Vec<i64> = ordre
        .into_iter()
        .filter(|id| {
            creations.reportees.contains(id)
                || creations.course.iter().any(|(p, _)| p.plan.id == *id)
        })
        .collect();
    // Toutes les créations reportées (aucune nuit dans la course) : rien à envoyer.
    let code = if creations.course.is_empty() {
        CodeSortie::Succes
    } else {
        c.courir(c.base()?, &creations.course)?
    };
    // Les verrous des nuits sont tenus jusqu'à la fin de la course.
    drop(creations.course);
    // Après Ctrl-C aussi : le bilan de toute la saison, et la commande qui la reprend.
    c.bilan(&tous)?;
    Ok(creations.code.max_par_gravite(code))
}

/// Les créations, nuit après nuit, avant tout envoi (voir l'en-tête du module).
fn creer_les_participations(c: &impl Course, planifiees: Vec<NuitAEnvoyer>) -> Result<Creations> {
    let mut creations = Creations {
        course: Vec::with_capacity(planifiees.len()),
        reportees: Vec::new(),
        code: CodeSortie::Succes,
    };
    for p in planifiees {
        let Some(dest) = crate::depot::vigiechiro::DestinationVigieChiro::de(&p.destination) else {
            continue;
        };
        if p.plan.participation.is_some()
            || matches!(dest.participation, CibleParticipation::Existante(_))
        {
            creations.course.push((p, true));
            continue;
        }
        let issue = c.creer(&c.base()?, &p.plan, dest);
        match issue {
            Ok(id) => {
                c.dire(&p, Creation::Creee(&id))?;
                creations.course.push((p, true));
            }
            Err(e) => creation_manquee(c, p, e, &mut creations)?,
        }
    }
    Ok(creations)
}

/// Une création qui n'a pas abouti : reportée (passagère), ou refusée pour sa nuit seule ;
/// un jeton refusé le serait pour toutes les nuits : tout s'arrête.
fn creation_manquee(
    c: &impl Course,
    p: NuitAEnvoyer,
    e: anyhow::Error,
    creations: &mut Creations,
) -> Result<()> {
    match crate::sortie::code_pour_erreur(&e) {
        CodeSortie::EchecsTransitoires => {
            let jusqu_au_bout = c.jusqu_au_bout();
            let reportee = Creation::Reportee {
                erreur: &e,
                jusqu_au_bout,
            };
            c.dire(&p, reportee)?;
            if jusqu_au_bout {
                creations.course.push((p, false));
            } else {
                // Hors de la course, mais dans le bilan : participation à créer.
                creations.reportees.push(p.plan.id);
                creations.code = creations
                    .code
                    .max_par_gravite(CodeSortie::EchecsTransitoires);
            }
        }
        CodeSortie::RefusDefinitifs if !jeton_refuse(&e) => {
            c.dire(&p, Creation::Refusee(&e))?;
            creations.reportees.push(p.plan.id);
            creations.code = creations.code.max_par_gravite(CodeSortie::RefusDefinitifs);
        }
        _ => return Err(e),
    }
    Ok(())
}

/// L'erreur est-elle celle d'un jeton refusé (401) ?
fn jeton_refuse(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<ErreurAvecCode>())
        .any(|c| c.message == crate::depot::vigiechiro::message_jeton_refuse())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depot::fabrique::Destination;
    use crate::plan::{FichierPlanifie, VerrouPlan};
    use std::cell::RefCell;

    /// Une course sans réseau : chaque nuit à créer réussit ou échoue selon son libellé, et
    /// ce que le module demande est noté.
    struct CourseEssai {
        dir: tempfile::TempDir,
        jusqu_au_bout: bool,
        dit: RefCell<Vec<String>>,
        courue: RefCell<Vec<(i64, bool)>>,
        bilan: RefCell<Option<Vec<i64>>>,
    }

    impl Course for CourseEssai {
        fn base(&self) -> Result<Base> {
            Ok(Base::ouvrir(&self.dir.path().join("b.sqlite"))?)
        }
        fn jusqu_au_bout(&self) -> bool {
            self.jusqu_au_bout
        }
        fn creer(&self, _: &Base, plan: &DepotPlan, _: &DestinationVigieChiro) -> Result<IdObjet> {
            let code = match plan.dossier.as_str() {
                "/passagere" => CodeSortie::EchecsTransitoires,
                "/refusee" => CodeSortie::RefusDefinitifs,
                "/jeton" => {
                    let jeton = crate::depot::vigiechiro::message_jeton_refuse();
                    return Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton).into());
                }
                _ => return Ok(IdObjet::analyser("64a1b2c3d4e5f60718293d0f").unwrap()),
            };
            Err(ErreurAvecCode::nouveau(code, "la plateforme a dit non").into())
        }
        fn dire(&self, nuit: &NuitAEnvoyer, creation: Creation<'_>) -> Result<()> {
            let quoi = match creation {
                Creation::Creee(_) => "créée".to_owned(),
                Creation::Reportee { jusqu_au_bout, .. } => format!("reportée {jusqu_au_bout}"),
                Creation::Refusee(_) => "refusée".to_owned(),
            };
            self.dit
                .borrow_mut()
                .push(format!("{} {quoi}", nuit.libelle));
            Ok(())
        }
        fn courir(&self, _: Base, course: &[(NuitAEnvoyer, bool)]) -> Result<CodeSortie> {
            let nuits = course.iter().map(|(p, d)| (p.plan.id, *d));
            self.courue.borrow_mut().extend(nuits);
            Ok(CodeSortie::Succes)
        }
        fn bilan(&self, plans: &[i64]) -> Result<()> {
            *self.bilan.borrow_mut() = Some(plans.to_vec());
            Ok(())
        }
    }

    /// Une nuit planifiée dans la base de `c`, vers `destination`, son plan verrouillé ; son
    /// dossier dit comment sa création se passe.
    fn nuit(c: &CourseEssai, dossier: &str, destination: &str) -> NuitAEnvoyer {
        let mut base = c.base().unwrap();
        let f = FichierPlanifie::d_essai("a.wav");
        let r = base.planifier(dossier, destination, &[f], false).unwrap();
        let plan = r.plan.unwrap();
        let verrou = VerrouPlan::prendre(base.chemin(), dossier, destination, dossier).unwrap();
        let d = Destination::from(DestinationVigieChiro::relire(destination).unwrap());
        NuitAEnvoyer::reprise(plan, d, dossier.trim_start_matches('/').to_owned(), verrou)
    }

    fn a_creer(i: u8) -> String {
        let c = CibleParticipation::ACreer {
            site: IdObjet::analyser("64a1b2c3d4e5f60718293d0a").unwrap(),
            point: Some("A1".into()),
            debut: crate::horodatage::InstantUtc::depuis_secondes(1_782_000_000 + i64::from(i)),
            fin: crate::horodatage::InstantUtc::depuis_secondes(1_782_030_000 + i64::from(i)),
        };
        DestinationVigieChiro::nouveau(crate::destination::API_VIGIECHIRO, c, false)
            .unwrap()
            .identite()
    }

    fn course(jusqu_au_bout: bool) -> (CourseEssai, Vec<NuitAEnvoyer>) {
        let c = CourseEssai {
            dir: tempfile::tempdir().unwrap(),
            jusqu_au_bout,
            dit: RefCell::default(),
            courue: RefCell::default(),
            bilan: RefCell::default(),
        };
        let existante = "vigiechiro:participation/64a1b2c3d4e5f60718293d01";
        let nuits = vec![
            nuit(&c, "/existante", existante),
            nuit(&c, "/passagere", &a_creer(1)),
            nuit(&c, "/refusee", &a_creer(2)),
            nuit(&c, "/creee", &a_creer(3)),
        ];
        (c, nuits)
    }

    #[test]
    fn une_creation_manquee_n_arrete_que_sa_nuit() {
        let (c, nuits) = course(false);
        let plans: Vec<i64> = nuits.iter().map(|n| n.plan.id).collect();
        let code = mener(&c, nuits).unwrap();
        assert_eq!(
            code,
            CodeSortie::RefusDefinitifs,
            "le pire : la nuit refusée"
        );
        assert_eq!(
            *c.dit.borrow(),
            ["passagere reportée false", "refusee refusée", "creee créée"]
        );
        // La nuit passagère attend la relance, la refusée sa correction : hors de la course,
        // mais toutes dans le bilan, dans l'ordre de la saison.
        assert_eq!(*c.courue.borrow(), [(plans[0], true), (plans[3], true)]);
        assert_eq!(c.bilan.borrow().as_deref(), Some(plans.as_slice()));
    }

    #[test]
    fn jusqu_au_bout_la_creation_reportee_court_au_passage_suivant() {
        let (c, nuits) = course(true);
        let plans: Vec<i64> = nuits.iter().map(|n| n.plan.id).collect();
        assert_eq!(mener(&c, nuits).unwrap(), CodeSortie::RefusDefinitifs);
        assert_eq!(
            *c.courue.borrow(),
            [(plans[0], true), (plans[1], false), (plans[3], true)]
        );
    }

    #[test]
    fn un_jeton_refuse_arrete_tout() {
        let (c, mut nuits) = course(false);
        nuits.insert(1, nuit(&c, "/jeton", &a_creer(4)));
        let e = mener(&c, nuits).unwrap_err();
        assert_eq!(
            crate::sortie::code_pour_erreur(&e),
            CodeSortie::RefusDefinitifs
        );
        assert!(c.courue.borrow().is_empty(), "rien ne court");
        assert!(c.bilan.borrow().is_none(), "l'erreur dit tout");
    }
}
