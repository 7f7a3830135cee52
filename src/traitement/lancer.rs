//! Avant de lancer le calcul d'une nuit : ce que dit son état sur la plateforme.
//!
//! Pourquoi : `POST /participations/{id}/compute` n'est jamais anodin. Le serveur
//! (`resources/participations.py` `participation_trigger_compute`) ne refuse qu'un calcul
//! `PLANIFIE` ou `EN_COURS` depuis moins d'un jour ; il accepte tout le reste, **y compris sur
//! une nuit déjà calculée**, dont le nouveau calcul efface les résultats
//! (`scripts/task_participation.py` `reset_pjs_state`), et sur une nuit en `RETRY`, où il mènerait
//! deux calculs à la fois. `vigie traiter` lit donc l'état d'abord, et ne lance que ce qui doit
//! l'être ; le reste demande `--relancer`. La décision ([`avant_calcul`]) est pure : l'état et
//! l'instant sont donnés. Le lancement ([`lancer`]) est une seule émission, jamais rejouée ; sans
//! réponse, il se réconcilie en relisant l'état.

use std::time::Duration;

use super::cible::{Cible, noter};
use super::{Releve, relever};
use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::IdObjet;
use crate::horodatage::InstantUtc;
use crate::plan::Base;
use crate::reessai::{RaisonArret, ReponseApi};
use crate::sortie::{CodeSortie, interrompu};
use crate::transport::vigiechiro::{
    Calcul, ClientVigieChiro, EtatCalcul, EtatParticipation, Traitement, Utilisateur,
};
use crate::transport::{Emetteur, Emission, emettre};

/// Un jour : la règle du serveur pour un calcul planifié ou en cours.
const UN_JOUR: Duration = Duration::from_secs(86_400);

/// Ce que `vigie traiter` fait, d'après l'état du calcul.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AvantCalcul {
    /// Jamais calculée, ou (nuit nommée) le dernier calcul a échoué : lancer.
    Lancer,
    /// Le dernier calcul a échoué, et la nuit n'est pas nommée (`vigie traiter` sur toute la
    /// saison) : un calcul en erreur ne se relance que pour la nuit qu'on nomme.
    EnErreur,
    /// `--relancer` : lancer malgré un calcul fini (ses résultats seront remplacés), ou à la
    /// place d'un calcul qui semble arrêté.
    Relancer,
    /// Planifié ou en cours depuis moins d'un jour : rien à faire (la plateforme refuserait).
    DejaEnCours,
    /// Planifié, en cours ou en attente d'un nouvel essai depuis plus d'un jour : le calcul
    /// semble arrêté ; `--relancer` le relance.
    Arrete,
    /// Un essai a échoué, la plateforme en refera un d'elle-même : rien à faire.
    Reessai,
    /// Déjà fini : `--relancer` pour recalculer (les résultats seraient remplacés).
    DejaFini,
    /// Un état que `vigie` ne connaît pas : `--relancer` seulement.
    Inconnu,
}

/// Une date de moins d'un jour, comme le serveur la juge (`(now - date).days < 1`, vrai aussi
/// pour une date à venir).
fn recente(date: Option<InstantUtc>, maintenant: InstantUtc) -> bool {
    date.is_some_and(|d| maintenant.secondes() - d.secondes() < UN_JOUR.as_secs() as i64)
}

/// La décision, pour l'état `traitement` (aucun : jamais calculée), `relancer` demandé ou non,
/// la nuit `nommee` (ou visée seule) ou prise avec toute sa saison.
pub(crate) fn avant_calcul(
    traitement: Option<&Traitement>,
    relancer: bool,
    nommee: bool,
    maintenant: InstantUtc,
) -> AvantCalcul {
    let Some(t) = traitement else {
        return AvantCalcul::Lancer;
    };
    match &t.etat {
        EtatCalcul::Erreur if nommee => AvantCalcul::Lancer,
        EtatCalcul::Erreur => AvantCalcul::EnErreur,
        EtatCalcul::Planifie | EtatCalcul::EnCours => {
            if recente(t.date_debut, maintenant) || recente(t.date_planification, maintenant) {
                AvantCalcul::DejaEnCours
            } else if relancer {
                AvantCalcul::Relancer
            } else {
                AvantCalcul::Arrete
            }
        }
        EtatCalcul::Retry => {
            let derniere = t.date_fin.or(t.date_debut);
            if derniere.is_none() || recente(derniere, maintenant) {
                AvantCalcul::Reessai
            } else if relancer {
                AvantCalcul::Relancer
            } else {
                AvantCalcul::Arrete
            }
        }
        EtatCalcul::Fini if relancer => AvantCalcul::Relancer,
        EtatCalcul::Fini => AvantCalcul::DejaFini,
        EtatCalcul::Autre(_) if relancer => AvantCalcul::Relancer,
        EtatCalcul::Autre(_) => AvantCalcul::Inconnu,
    }
}

/// La participation est-elle celle d'un autre observateur, que `moi` ne peut pas lancer (un
/// administrateur le peut) ?
pub(crate) fn d_un_autre_observateur(moi: &Utilisateur, avant: &EtatParticipation) -> bool {
    avant.observateur.as_ref().is_some_and(|o| o.id != moi.id)
        && moi.role.as_deref() != Some("Administrateur")
}

/// Ce qu'a donné `POST …/compute`.
#[derive(Debug)]
pub(crate) enum Lancement {
    /// Lancé ; `relu` : la réponse s'est perdue, et la relecture de la plateforme montre le
    /// nouveau calcul.
    Lance { relu: bool },
    /// L'état a changé entre la lecture et le lancement : la plateforme répond qu'un calcul
    /// est déjà là (`en_cours`, sinon planifié) ; rien n'est relancé.
    DejaEnCours { en_cours: bool },
    /// 401.
    JetonRefuse,
    /// Ctrl-C avant que le lancement soit parti (pendant une attente) : rien n'est lancé.
    Interrompu,
    /// 403 : `_check_edit_access` (`resources/participations.py`) : seul l'observateur (ou un
    /// administrateur) lance le calcul.
    Interdit,
    /// Un autre refus définitif.
    Refuse { statut: u16, detail: String },
    /// Sans réponse, et la relecture ne montre pas de nouveau calcul (l'état relu), ou n'a
    /// pas abouti (`None`).
    Incertain(Option<Box<EtatParticipation>>),
    /// Pas lancé : la plateforme ou le réseau n'a pas répondu utilement (ce qui s'est passé).
    Echoue(String),
}

/// `POST …/compute`, une seule émission ; une issue inconnue se réconcilie en relisant l'état
/// (le serveur note la planification avant de répondre), comparé à celui lu `avant`.
pub(crate) async fn lancer(
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    participation: &IdObjet,
    avant: &EtatParticipation,
) -> Lancement {
    let chemin = format!("/participations/{participation}/compute");
    let issue = emettre(emetteur, Emission::ecriture_unique("POST", &chemin), |_| {
        client.lancer_calcul(participation)
    })
    .await;
    match (&issue.reponse, issue.raison) {
        (ReponseApi::Succes(Calcul::Lance), _) => Lancement::Lance { relu: false },
        (ReponseApi::Succes(Calcul::DejaEnCours(etat)), _) => Lancement::DejaEnCours {
            en_cours: etat.contains("EN_COURS"),
        },
        (ReponseApi::Refuse { statut: 401, .. }, _) => Lancement::JetonRefuse,
        (_, RaisonArret::Annule) => Lancement::Interrompu,
        (ReponseApi::Refuse { statut: 403, .. }, RaisonArret::RefusDefinitif) => {
            Lancement::Interdit
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => {
            Lancement::Refuse {
                statut: *statut,
                detail: detail.clone(),
            }
        }
        (_, RaisonArret::IssueInconnue) => {
            let planifie_depuis = |e: &EtatParticipation| {
                e.traitement
                    .as_ref()
                    .filter(|t| t.etat == EtatCalcul::Planifie || t.etat == EtatCalcul::EnCours)
                    .map(|t| (t.date_planification, t.date_debut))
            };
            match relever(client, emetteur, participation).await {
                Ok(Releve::Lu(e))
                    if planifie_depuis(&e).is_some()
                        && planifie_depuis(&e) != planifie_depuis(avant) =>
                {
                    Lancement::Lance { relu: true }
                }
                Ok(Releve::Lu(e)) => Lancement::Incertain(Some(e)),
                _ => Lancement::Incertain(None),
            }
        }
        (autre, _) => Lancement::Echoue(pas_de_reponse_utile(autre)),
    }
}

/// Ce que `vigie traiter` sait d'une nuit avant de lancer son calcul.
#[derive(Debug)]
pub(crate) enum AvantLancement {
    /// L'état n'a pas pu être relevé (ce qui s'est passé) : rien n'est lancé à l'aveugle.
    Inconnu(String),
    /// La participation est celle d'un autre observateur (l'état relevé) : rien n'est lancé.
    PasLaVotre(EtatParticipation),
    /// L'état relevé, et la décision prise sur lui.
    Decide(Decidee),
}

/// La décision de `vigie traiter` pour une nuit, l'état relevé sur lequel elle est prise, et
/// son instant.
#[derive(Debug)]
pub(crate) struct Decidee {
    pub(crate) avant: EtatParticipation,
    pub(crate) decision: AvantCalcul,
    pub(crate) maintenant: InstantUtc,
}

/// Ce que `vigie traiter` dit d'une nuit, à mesure (`suivi/calcul.rs` l'implémente).
pub(crate) trait VueLancement {
    /// Ce qu'on sait avant de lancer : la décision, ou l'erreur de la nuit (état inconnu,
    /// participation d'un autre).
    fn decidee(&self, cible: &Cible, avant: AvantLancement) -> anyhow::Result<Decidee>;
    /// Rien n'est lancé d'après la décision : dit, et le code ; `None` : la décision est de
    /// lancer.
    fn sans_lancer(&mut self, cible: &Cible, d: &Decidee) -> anyhow::Result<Option<CodeSortie>>;
    /// Ce qu'a donné le lancement, pour `moi`, d'après l'état lu `avant`.
    fn lancement(
        &mut self,
        cible_et_moi: (&Cible, &Utilisateur),
        avant: &EtatParticipation,
        issue: Lancement,
    ) -> anyhow::Result<CodeSortie>;
}

/// Une nuit de `vigie traiter` : son état relevé ([`examiner`]), la décision, le lancement
/// ([`lancer_et_noter`]), dits par `vue`. `choix` : `(--relancer, la nuit est-elle visée pour
/// elle-même)`.
pub(crate) async fn traiter_une(
    (client, moi): (&ClientVigieChiro, &Utilisateur),
    emetteur: &Emetteur,
    cible: &Cible,
    (choix, base): ((bool, bool), Option<&Base>),
    vue: &mut impl VueLancement,
) -> anyhow::Result<CodeSortie> {
    let avant = examiner((client, moi), emetteur, cible, choix, base).await?;
    let d = vue.decidee(cible, avant)?;
    if let Some(code) = vue.sans_lancer(cible, &d)? {
        return Ok(code);
    }
    let issue = lancer_et_noter(emetteur, client, cible, &d, base).await;
    vue.lancement((cible, moi), &d.avant, issue)
}

/// Relève l'état de la nuit `cible` (noté dans la base), puis décide ([`avant_calcul`]) pour
/// `moi`, `(relancer, nommee)` : `--relancer`, et la nuit est-elle visée pour elle-même. Un
/// relevé manqué sous Ctrl-C est l'interruption.
async fn examiner(
    (client, moi): (&ClientVigieChiro, &Utilisateur),
    emetteur: &Emetteur,
    cible: &Cible,
    (relancer, nommee): (bool, bool),
    base: Option<&Base>,
) -> anyhow::Result<AvantLancement> {
    let avant = match relever(client, emetteur, &cible.participation).await? {
        Releve::Lu(e) => *e,
        Releve::Manque(_) if emetteur.annulation().est_annulee() => return Err(interrompu()),
        Releve::Manque(pourquoi) => return Ok(AvantLancement::Inconnu(pourquoi)),
    };
    noter(base, cible, &avant);
    if d_un_autre_observateur(moi, &avant) {
        return Ok(AvantLancement::PasLaVotre(avant));
    }
    let maintenant = super::maintenant();
    let decision = avant_calcul(avant.traitement.as_ref(), relancer, nommee, maintenant);
    Ok(AvantLancement::Decide(Decidee {
        avant,
        decision,
        maintenant,
    }))
}

/// Lance le calcul de la nuit `cible` ([`lancer`]) ; lancé, il est noté planifié dans la base,
/// à l'instant de la décision.
async fn lancer_et_noter(
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    cible: &Cible,
    d: &Decidee,
    base: Option<&Base>,
) -> Lancement {
    let issue = lancer(emetteur, client, &cible.participation, &d.avant).await;
    if let (Lancement::Lance { .. }, Some(base), Some(plan)) = (&issue, base, cible.plan)
        && let Err(e) = base.noter_calcul(plan, Some("PLANIFIE"), Some(d.maintenant.secondes()))
    {
        tracing::warn!("état du calcul non noté dans la base : {e}");
    }
    issue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(
        etat: EtatCalcul,
        planif: Option<i64>,
        debut: Option<i64>,
        fin: Option<i64>,
    ) -> Traitement {
        let i = |s: Option<i64>| s.map(InstantUtc::depuis_secondes);
        Traitement {
            etat,
            retry: None,
            date_planification: i(planif),
            date_debut: i(debut),
            date_fin: i(fin),
            message: None,
        }
    }

    #[test]
    fn chaque_etat_et_relancer() {
        let maintenant = InstantUtc::depuis_secondes(10 * 86_400);
        let il_y_a = |h: i64| Some(10 * 86_400 - h * 3600);
        use AvantCalcul::*;
        use EtatCalcul::*;
        let cas = [
            (None, false, Lancer),
            (Some(t(Erreur, None, il_y_a(1), il_y_a(1))), false, Lancer),
            (Some(t(Planifie, il_y_a(2), None, None)), false, DejaEnCours),
            // La plateforme refuserait : même --relancer n'y peut rien.
            (Some(t(Planifie, il_y_a(2), None, None)), true, DejaEnCours),
            (Some(t(EnCours, None, il_y_a(23), None)), true, DejaEnCours),
            (Some(t(EnCours, None, il_y_a(25), None)), false, Arrete),
            (Some(t(Planifie, il_y_a(48), None, None)), true, Relancer),
            // Une date à venir (horloges décalées) compte comme récente, comme au serveur.
            (Some(t(EnCours, None, il_y_a(-3), None)), true, DejaEnCours),
            (Some(t(Retry, None, il_y_a(3), il_y_a(2))), true, Reessai),
            (Some(t(Retry, None, il_y_a(30), il_y_a(29))), false, Arrete),
            (Some(t(Retry, None, il_y_a(30), il_y_a(29))), true, Relancer),
            (Some(t(Fini, None, il_y_a(3), il_y_a(2))), false, DejaFini),
            (Some(t(Fini, None, il_y_a(3), il_y_a(2))), true, Relancer),
            (Some(t(Autre("X".into()), None, None, None)), false, Inconnu),
            (Some(t(Autre("X".into()), None, None, None)), true, Relancer),
        ];
        for (traitement, relancer, attendu) in cas {
            assert_eq!(
                avant_calcul(traitement.as_ref(), relancer, true, maintenant),
                attendu,
                "{traitement:?} relancer={relancer}"
            );
            // Toute la saison (aucune nuit nommée) : une nuit en erreur n'est pas relancée, le
            // reste ne change pas.
            let saison = avant_calcul(traitement.as_ref(), relancer, false, maintenant);
            if traitement.as_ref().is_some_and(|t| t.etat == Erreur) {
                assert_eq!(saison, EnErreur);
            } else {
                assert_eq!(saison, attendu, "{traitement:?} relancer={relancer}");
            }
        }
    }
}
