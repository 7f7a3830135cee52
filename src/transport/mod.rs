//! Le point de passage unique de toutes les émissions réseau.
//!
//! Chaque appel vers la destination passe par [`Emetteur::emettre`], qui applique la
//! `PolitiqueReessai` avec le profil et la rejouabilité **déclarés à l'appel** (l'idempotence est
//! une décision d'appelant, `seeds/000`). Aucun appel ne le contourne : les réessais internes du
//! SDK AWS sont coupés (`s3.rs`), sinon ils s'ajouteraient aux nôtres hors de tout budget.
//!
//! L'émetteur ajoute à la boucle de réessai ce qui touche au monde réel : le délai de chaque
//! tentative, la coupure d'un transfert qui n'avance plus, et l'arrêt sur Ctrl-C.

pub mod corps;
pub mod reseau;
pub mod s3;
pub mod vigiechiro;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::reessai::{
    AleaSysteme, Annulation, DecisionJournalisee, Issue, ObservateurReessai, Operation,
    PolitiqueReessai, Profil, Rejouabilite, ReponseApi, SeauJetons, executer_sous_budget,
};
use corps::Progression;
use reseau::{Reseau, TemporisateurHorsPause};

/// Réglages de l'émetteur.
#[derive(Debug, Clone)]
pub struct ReglagesEmission {
    pub insistant: PolitiqueReessai,
    pub bref: PolitiqueReessai,
    /// Délai maximal d'une tentative (requête et réponse).
    pub delai_tentative: Duration,
    /// Un corps qui n'avance plus depuis ce délai est coupé (la tentative échoue, rejouable).
    pub delai_blocage: Duration,
    /// Échecs réseau de suite (sans réponse du serveur) qui déclarent le réseau coupé.
    pub echecs_reseau: u32,
}

/// Une émission : ce que l'appelant déclare.
#[derive(Debug, Clone, Copy)]
pub struct Emission<'a> {
    /// Méthode ou opération (`PutObject`, `UploadPart`…), pour le journal.
    pub methode: &'a str,
    /// Cible sans secret (clé d'objet, chemin d'API), pour le journal.
    pub cible: &'a str,
    pub profil: Profil,
    pub rejouabilite: Rejouabilite,
}

/// La progression de la tentative en cours d'une émission, que l'affichage peut lire.
#[derive(Debug, Default)]
pub struct EnVol {
    courante: Mutex<Option<Arc<Progression>>>,
}

impl EnVol {
    /// Octets passés au client HTTP par la tentative en cours (0 entre deux tentatives).
    pub fn octets(&self) -> u64 {
        self.courante
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|p| p.octets()))
            .unwrap_or(0)
    }

    fn commencer(&self, p: Arc<Progression>) {
        if let Ok(mut c) = self.courante.lock() {
            *c = Some(p);
        }
    }

    fn finir(&self) {
        if let Ok(mut c) = self.courante.lock() {
            *c = None;
        }
    }
}

/// Le point de passage unique.
#[derive(Debug, Clone)]
pub struct Emetteur {
    reglages: ReglagesEmission,
    temporisateur: TemporisateurHorsPause,
    alea: AleaSysteme,
    annulation: Annulation,
    reseau: Arc<Reseau>,
    budget: Arc<SeauJetons>,
    /// Jusqu'où un `Retry-After` reçu par une émission retient toutes les autres (même
    /// destination, donc même serveur).
    retenue: Arc<Mutex<Option<tokio::time::Instant>>>,
}

impl Emetteur {
    pub fn nouveau(reglages: ReglagesEmission, annulation: Annulation) -> Self {
        let reseau = Arc::new(Reseau::nouveau(reglages.echecs_reseau, annulation.clone()));
        Emetteur {
            reglages,
            temporisateur: TemporisateurHorsPause::nouveau(Arc::clone(&reseau)),
            alea: AleaSysteme,
            annulation,
            reseau,
            budget: Arc::new(SeauJetons::default()),
            retenue: Arc::new(Mutex::new(None)),
        }
    }

    pub fn annulation(&self) -> &Annulation {
        &self.annulation
    }

    /// L'état du réseau du passage (pour la sonde du moteur).
    pub fn reseau(&self) -> &Arc<Reseau> {
        &self.reseau
    }

    fn retenir_jusqua(&self, attente: Duration) {
        let fin = tokio::time::Instant::now() + attente;
        if let Ok(mut r) = self.retenue.lock()
            && r.is_none_or(|actuelle| actuelle < fin)
        {
            *r = Some(fin);
        }
    }

    fn retenue(&self) -> Option<tokio::time::Instant> {
        self.retenue
            .lock()
            .ok()
            .and_then(|r| *r)
            .filter(|fin| *fin > tokio::time::Instant::now())
    }

    /// Émet sous la politique du profil déclaré. `tentative` reçoit la progression de la
    /// tentative (à passer au corps de la requête) et rend la réponse classée.
    ///
    /// Autour de chaque tentative : la retenue d'un `Retry-After` reçu ailleurs, la pause
    /// globale si le réseau est coupé (la tentative attend la réouverture puis repart, sans être
    /// comptée : une écriture non rejouable qui a pu partir n'est jamais réémise), le délai de
    /// tentative, la coupure d'un corps bloqué, et Ctrl-C.
    pub async fn emettre<T, F, Fut>(
        &self,
        emission: Emission<'_>,
        observateur: &dyn ObservateurReessai,
        en_vol: &EnVol,
        tentative: F,
    ) -> Issue<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let politique = match emission.profil {
            Profil::Insistant => &self.reglages.insistant,
            Profil::Bref => &self.reglages.bref,
        };
        let operation = Operation {
            methode: emission.methode,
            cible: emission.cible,
            rejouabilite: emission.rejouabilite,
        };
        // Un Mutex et non un RefCell : le futur doit rester `Send` (tâches du moteur).
        let tentative = Mutex::new(tentative);
        let tentative = &tentative;
        let issue = executer_sous_budget(
            politique,
            &operation,
            &self.temporisateur,
            &self.alea,
            observateur,
            &self.annulation,
            self.budget.as_ref(),
            |numero| async move {
                loop {
                    if let Some(fin) = self.retenue() {
                        tokio::select! {
                            () = self.annulation.annulee() => {}
                            () = tokio::time::sleep_until(fin) => {}
                        }
                    }
                    if self.reseau.attendre_ouverture().await.is_err() {
                        return ReponseApi::Injoignable {
                            a_pu_atteindre: false,
                            detail: "réseau indisponible trop longtemps : passage arrêté".into(),
                        };
                    }
                    let partie_a = std::time::Instant::now();
                    let reponse = self.tenter(tentative, en_vol).await;
                    match &reponse {
                        // Une tentative coupée par Ctrl-C ne dit rien du réseau.
                        ReponseApi::Injoignable { .. } if self.annulation.est_annulee() => {}
                        ReponseApi::Injoignable {
                            a_pu_atteindre,
                            detail,
                        } => {
                            let coupe = self.reseau.noter_injoignable();
                            let sans_risque =
                                emission.rejouabilite == Rejouabilite::Rejouable || !a_pu_atteindre;
                            if coupe && sans_risque {
                                // Ni rejeu compté ni arrêt : la tentative attend la réouverture.
                                // Journalisée quand même (ni attente ni raison), pour que le
                                // journal dise aussi ce qu'une coupure a interrompu.
                                observateur.decision(&DecisionJournalisee {
                                    methode: emission.methode.to_owned(),
                                    cible: emission.cible.to_owned(),
                                    tentative: numero,
                                    budget_restant: None,
                                    statut: None,
                                    attente: None,
                                    raison: None,
                                    detail: format!(
                                        "{detail} ; réseau coupé : tentative non comptée, \
                                         reprise à sa réouverture"
                                    ),
                                });
                                continue;
                            }
                        }
                        ReponseApi::Refuse { retry_after, .. } => {
                            self.reseau.noter_reponse(partie_a);
                            // Une attente au-delà de l'échéance arrête cette émission
                            // (`retry_after_depasse_echeance`) ; elle ne retient pas les autres
                            // pour autant : un Retry-After géant bloquerait toute la nuit.
                            if let Some(a) = retry_after
                                && politique.reglages().echeance().is_none_or(|e| *a <= e)
                            {
                                self.retenir_jusqua(*a);
                            }
                        }
                        ReponseApi::Succes(_) => self.reseau.noter_reponse(partie_a),
                    }
                    return reponse;
                }
            },
        )
        .await;
        en_vol.finir();
        issue
    }

    /// Une tentative : délai, corps bloqué, Ctrl-C.
    async fn tenter<T, F, Fut>(&self, tentative: &Mutex<F>, en_vol: &EnVol) -> ReponseApi<T>
    where
        F: FnMut(Arc<Progression>) -> Fut,
        Fut: Future<Output = ReponseApi<T>>,
    {
        let delai = self.reglages.delai_tentative;
        let blocage = self.reglages.delai_blocage;
        let progression = Progression::nouvelle();
        en_vol.commencer(progression.clone());
        let envoi = {
            let mut t = tentative.lock().unwrap_or_else(|e| e.into_inner());
            (t)(progression.clone())
        };
        let reponse = tokio::select! {
            // Ctrl-C : la tentative est abandonnée ; pour une écriture non rejouable, son
            // issue devient inconnue et se réconciliera.
            () = self.annulation.annulee() => ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: "interrompu".into(),
            },
            r = tokio::time::timeout(delai, envoi) => r.unwrap_or_else(|_| ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: format!("délai de tentative dépassé ({} s)", delai.as_secs_f64()),
            }),
            () = surveiller_blocage(&progression, blocage) => ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: format!(
                    "transfert bloqué : aucun octet parti depuis {} s",
                    blocage.as_secs_f64()
                ),
            },
        };
        en_vol.finir();
        reponse
    }
}

/// Rend la main quand le corps de la tentative n'avance plus depuis `delai` (jamais tant que
/// le corps n'a pas commencé ou est entièrement parti : l'attente de la réponse relève du délai
/// de tentative).
async fn surveiller_blocage(progression: &Progression, delai: Duration) {
    let pas = (delai / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    loop {
        tokio::time::sleep(pas).await;
        if progression.corps_en_cours() && progression.immobile_depuis() >= delai {
            return;
        }
    }
}

/// Masque les secrets d'un texte destiné à un journal, un message ou la base : signatures et
/// identifiants d'URL signées (S3 v2 et v4), jetons, en-têtes d'autorisation.
pub fn expurger(texte: &str) -> String {
    const PARAMETRES: [&str; 7] = [
        "X-Amz-Signature=",
        "X-Amz-Credential=",
        "X-Amz-Security-Token=",
        "Signature=",
        "AWSAccessKeyId=",
        "token=",
        "jeton=",
    ];
    let mut resultat = texte.to_owned();
    for p in PARAMETRES {
        let mut debut = 0;
        while let Some(i) = find_ascii_insensible(&resultat[debut..], p) {
            let valeur = debut + i + p.len();
            let fin = resultat[valeur..]
                .find(['&', '"', '\'', ' ', '>', ')'])
                .map_or(resultat.len(), |f| valeur + f);
            resultat.replace_range(valeur..fin, "***");
            debut = valeur + 3;
        }
    }
    for entete in ["Authorization:", "authorization:"] {
        if let Some(i) = resultat.find(entete) {
            let valeur = i + entete.len();
            let fin = resultat[valeur..]
                .find('\n')
                .map_or(resultat.len(), |f| valeur + f);
            resultat.replace_range(valeur..fin, " ***");
        }
    }
    resultat
}

fn find_ascii_insensible(meule: &str, aiguille: &str) -> Option<usize> {
    let m = meule.as_bytes();
    let a = aiguille.as_bytes();
    if a.len() > m.len() {
        return None;
    }
    (0..=m.len() - a.len()).find(|&i| {
        m[i..i + a.len()].eq_ignore_ascii_case(a)
            // « Signature= » ne doit pas attraper le milieu de « X-Amz-Signature= » déjà masqué.
            && (i == 0 || !m[i - 1].is_ascii_alphanumeric() && m[i - 1] != b'-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_masques() {
        let url = "https://b.s3.amazonaws.com/wav/a.wav?AWSAccessKeyId=AKIAXX&Expires=1&Signature=abc%2Bdef";
        let e = expurger(url);
        assert!(!e.contains("AKIAXX") && !e.contains("abc%2Bdef"), "{e}");
        assert!(e.contains("Expires=1"));
        let v4 = "erreur pour http://h/k?X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=deadbeef end";
        let e = expurger(v4);
        assert!(!e.contains("deadbeef") && !e.contains("AKIA%2F"), "{e}");
        assert!(e.ends_with(" end"));
        let e = expurger("Authorization: Basic dG9rZW46\nsuite");
        assert!(!e.contains("dG9rZW46") && e.ends_with("suite"), "{e}");
        assert_eq!(expurger("rien à cacher"), "rien à cacher");
    }

    #[tokio::test]
    async fn blocage_detecte_seulement_pendant_le_corps() {
        let p = Progression::nouvelle();
        // Corps pas commencé : jamais « bloqué ».
        let r = tokio::time::timeout(
            Duration::from_millis(300),
            surveiller_blocage(&p, Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_err());
        p.attendre_corps(10);
        let r = tokio::time::timeout(
            Duration::from_millis(500),
            surveiller_blocage(&p, Duration::from_millis(50)),
        )
        .await;
        assert!(r.is_ok());
    }
}
