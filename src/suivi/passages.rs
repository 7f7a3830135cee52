//! Ce que dit `--jusqu-au-bout` : une ligne par passage, et pourquoi les passages s'arrêtent.
//!
//! Pourquoi : un portable laissé seul la nuit enchaîne les passages sans que personne regarde ;
//! au matin, le journal (ou la sortie JSON d'un script) doit dire ce que chaque passage a fait,
//! quand le suivant était prévu, et pourquoi `vigie` s'est arrêté. Chaque passage a sa ligne de
//! bilan (sur la sortie standard, comme le bilan) ; le bilan final vient en dernier, avec la
//! page de la participation et la commande qui suit ([`afficher_le_passage`]).

use std::sync::Arc;
use std::time::Duration;

use super::Evenement;
use super::bilan::{comptes_bilan, deposes_sur_total};
use super::evenement::IssuePassageJson;
use super::format::{neutraliser, pluriel};
use super::secondes_au_dessus;
use super::{Progression, Suivi, SuiviRelais};
use crate::depot::Bilan;
use crate::depot::fabrique::Destination;
use crate::depot::passages::VuePassages;
use crate::plan::DepotPlan;

pub(crate) use crate::depot::passages::{FinDesPassages, IssuePassage};

/// Ce que disent les passages d'une commande : un suivi neuf par passage (`choisir`),
/// relayé aux signaux (`relais`), l'en-tête d'un plan (les nuits d'une saison), une ligne par
/// passage.
pub(crate) struct VueDesPassages<'a> {
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
    pub(crate) progression: Progression,
    pub(crate) relais: Arc<SuiviRelais>,
    pub(crate) entete: Option<&'a dyn Fn(&DepotPlan)>,
}

impl VuePassages for VueDesPassages<'_> {
    fn suivi(&self) -> Arc<dyn Suivi> {
        let suivi = super::choisir(self.json, self.silencieux, self.progression);
        self.relais.remplacer(Arc::clone(&suivi));
        suivi
    }

    fn commencer(&self, plan: &DepotPlan) {
        if let Some(entete) = self.entete {
            entete(plan);
        }
    }

    fn annoncer_passage(&self, numero: u32, issue: &IssuePassage<'_>, prochain: Option<Duration>) {
        garder_le_code(annoncer_passage(self.json, numero, issue, prochain).map_err(Into::into));
    }

    fn liberer_terminal(&self) {
        super::liberer_terminal();
    }
}

/// Le bilan de chaque plan d'une course (`None` : aucun passage ne l'a touché), vers sa
/// destination ; la fin des passages est dite une fois, avec le dernier bilan. `avec_suite` :
/// faux pour les nuits d'une saison, dont la suite est dite une fois pour toute la saison (par
/// le bilan de la saison, `suivi::reprise`).
pub(crate) fn dire_les_bilans<'b>(
    json: bool,
    bilans: &[(Option<&'b Bilan>, &'b Destination)],
    fin: Option<&FinDesPassages>,
    avec_suite: bool,
) {
    let dernier = bilans.iter().rposition(|(b, _)| b.is_some());
    for (i, (bilan, destination)) in bilans.iter().enumerate() {
        let Some(b) = bilan else { continue };
        let fin = fin.filter(|_| Some(i) == dernier);
        garder_le_code(afficher_le_passage(json, b, destination, fin, avec_suite));
    }
}

/// Le bilan n'a pas pu être écrit (disque plein sous une sortie redirigée ; un lecteur parti
/// ne compte pas, voir `sortie::SansEchec`) : le dépôt, lui, a eu lieu, et son code de sortie
/// reste le sien. On le dit sur la sortie d'erreur, si elle l'accepte ([`bilan_non_ecrit`]).
fn garder_le_code(affichage: anyhow::Result<()>) {
    if let Err(e) = affichage {
        bilan_non_ecrit(&e);
    }
}

/// La ligne d'un passage pour l'humain :
/// « Passage 2 : 18 / 20 fichiers déposés (3 pendant ce passage), 2 en échec transitoire ;
/// prochain passage dans 30 s. »
pub(crate) fn ligne_passage(
    numero: u32,
    issue: &IssuePassage<'_>,
    prochain: Option<Duration>,
) -> String {
    let mut ligne = match issue {
        IssuePassage::Bilan(b) => {
            let r = &b.resume;
            let mut l = format!(
                "Passage {numero} : {} ({} pendant ce passage)",
                deposes_sur_total(r),
                b.deposees
            );
            let transitoires = r.echec - r.definitifs;
            for (n, singulier, pluriel_) in [
                (transitoires, "en échec transitoire", "en échec transitoire"),
                (r.incertaine, "incertain", "incertains"),
                (r.definitifs, "refus définitif", "refus définitifs"),
                (r.a_deposer + r.en_cours, "à déposer", "à déposer"),
            ] {
                if n > 0 {
                    l.push_str(", ");
                    l.push_str(&pluriel(n, singulier, pluriel_));
                }
            }
            l
        }
        IssuePassage::Erreur { message, .. } => {
            format!("Passage {numero} : {}", neutraliser(message))
        }
    };
    match prochain {
        Some(p) => ligne.push_str(&format!(
            " ; prochain passage dans {} s.",
            secondes_au_dessus(p)
        )),
        None => ligne.push('.'),
    }
    ligne
}

/// L'événement JSON d'un passage : les clés du bilan (comptes du plan, et de ce passage), plus
/// `passage` (son numéro) et `prochain_passage_s` (la pause avant le suivant, `null` si c'était
/// le dernier) ; pour un passage arrêté avant tout envoi, `erreur` au lieu des comptes.
pub(crate) fn passage_json<'a>(
    numero: u32,
    issue: &IssuePassage<'a>,
    prochain: Option<Duration>,
) -> Evenement<'a> {
    let issue = match issue {
        IssuePassage::Bilan(b) => IssuePassageJson::Bilan(comptes_bilan(b)),
        IssuePassage::Erreur { plan, message } => IssuePassageJson::Erreur {
            plan: *plan,
            erreur: message,
        },
    };
    Evenement::Passage {
        passage: numero,
        prochain_passage_s: prochain.map(|p| p.as_secs_f64()),
        issue,
    }
}

/// La ligne de bilan d'un passage : sur la sortie standard, barres effacées, ou en JSON.
fn annoncer_passage(
    json: bool,
    numero: u32,
    issue: &IssuePassage<'_>,
    prochain: Option<Duration>,
) -> std::io::Result<()> {
    super::liberer_terminal();
    if json {
        return passage_json(numero, issue, prochain).ecrire();
    }
    use std::io::Write;
    let mut s = crate::sortie::standard();
    writeln!(s, "{}", ligne_passage(numero, issue, prochain))?;
    s.flush()
}

/// Le bilan n'a pas pu être écrit (`e`) : dit sur la sortie d'erreur, si elle l'accepte ;
/// `vigie etat` redonne l'état du plan.
fn bilan_non_ecrit(e: &anyhow::Error) {
    use std::io::Write;
    let _ = writeln!(
        crate::sortie::erreur(),
        "attention : le bilan n'a pas pu être écrit ({e:#}) ; {} redonne l'état du plan",
        crate::plateforme::conseil::commande("etat")
    );
}

/// Le bilan d'un passage sur la sortie standard (barres effacées d'abord), humain ou JSON ; la
/// participation par l'adresse de sa page (l'API par défaut), jamais par son identifiant seul.
/// Une nuit entièrement déposée sur la plateforme attend encore son calcul, que `vigie` ne
/// lance jamais de lui-même : le bilan le rappelle, avec `--api` si `vigie traiter` ne viserait
/// pas de lui-même l'adresse de ce dépôt. `avec_suite` : faux pour une nuit de saison, dont la
/// suite est dite une fois pour toute la saison.
fn afficher_le_passage(
    json: bool,
    b: &Bilan,
    destination: &Destination,
    fin: Option<&FinDesPassages>,
    avec_suite: bool,
) -> anyhow::Result<()> {
    let suite = super::etat::prochaine_commande(b.plan, &b.resume)
        .or_else(|| {
            b.destination.participation().filter(|_| !b.interrompu)?;
            destination.rappel_traiter()
        })
        .filter(|_| avec_suite);
    let page = b
        .destination
        .participation()
        .and_then(|p| destination.page_de_participation(p));
    super::bilan::afficher(b, page.as_deref(), suite.as_deref(), json, fin)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depot::Bilan;
    use crate::plan::ResumePlan;

    fn bilan(resume: ResumePlan, deposees: u64) -> Bilan {
        Bilan {
            plan: 4,
            resume,
            deposees,
            octets_envoyes: 10,
            incidents_absorbes: 0,
            duree: Duration::from_secs(1),
            interrompu: false,
            deja_presentes: 0,
            deja_non_comparees: 0,
            reglages: Default::default(),
            destination: Default::default(),
        }
    }

    #[test]
    fn une_ligne_par_passage_qui_dit_la_suite() {
        let b = bilan(
            ResumePlan {
                deposee: 18,
                echec: 3,
                definitifs: 1,
                ..Default::default()
            },
            3,
        );
        assert_eq!(
            ligne_passage(
                2,
                &IssuePassage::Bilan(&b),
                Some(Duration::from_millis(29_100))
            ),
            "Passage 2 : 18 / 21 fichiers déposés (3 pendant ce passage), 2 en échec \
             transitoire, 1 refus définitif ; prochain passage dans 30 s."
        );
        let b = bilan(
            ResumePlan {
                deposee: 1,
                ..Default::default()
            },
            1,
        );
        assert_eq!(
            ligne_passage(3, &IssuePassage::Bilan(&b), None),
            "Passage 3 : 1 / 1 fichier déposé (1 pendant ce passage)."
        );
        let erreur = IssuePassage::Erreur {
            plan: 4,
            message: "rien n'a été envoyé : plateforme\u{1b}[2J injoignable",
        };
        assert_eq!(
            ligne_passage(1, &erreur, Some(Duration::from_secs(15))),
            "Passage 1 : rien n'a été envoyé : plateforme\\u{1b}[2J injoignable ; prochain \
             passage dans 15 s."
        );
    }

    #[test]
    fn le_json_d_un_passage_reprend_le_bilan() {
        let b = bilan(
            ResumePlan {
                deposee: 2,
                echec: 1,
                ..Default::default()
            },
            2,
        );
        let v =
            passage_json(1, &IssuePassage::Bilan(&b), Some(Duration::from_secs(20))).en_valeur();
        assert_eq!(v["evenement"], "passage");
        assert_eq!(v["passage"], 1);
        assert_eq!(v["echecs"], 1);
        assert_eq!(v["deposees_ce_passage"], 2);
        assert_eq!(v["prochain_passage_s"], 20.0);
        let v = passage_json(
            3,
            &IssuePassage::Erreur {
                plan: 4,
                message: "x",
            },
            None,
        )
        .en_valeur();
        assert_eq!(v["erreur"], "x");
        assert!(v["prochain_passage_s"].is_null());
    }
}
