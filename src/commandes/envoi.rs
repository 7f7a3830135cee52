//! Un passage d'envoi d'un plan (pour `vigie depot` et `vigie retenter-echecs`, qui le
//! préparent dans `depot`) et la vérification (`vigie verifier`) : la politique, le dépositaire
//! ou la relecture demandés à la fabrique de la destination (`depot::fabrique`), le moteur,
//! écouter Ctrl-C, afficher le bilan. Ce module ne regarde ni `depot` ni `passages`, qui le
//! regardent.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use super::{Fils, ecouter_signaux, interrompu, moteur, ouvrir_base_existante};
use crate::cli::{ArgsVerifier, OptionsEnvoi, OptionsGlobales, OptionsS3};
use crate::depot::fabrique::{AvantLEnvoi, DepositaireDuPlan, Destination, ReglagesDestination};
use crate::depot::relecture::{verification, verifier};
use crate::depot::{AnnoncesSuivi, Bilan, Moteur};
use crate::destination::IdObjet;
use crate::plan::{Base, DepotPlan, EtatUnite, VerrouPlan};
use crate::reessai::Annulation;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::Suivi;
use crate::suivi::etat::prochaine_commande;
use crate::suivi::passages::FinDesPassages;
use crate::transport::{Emetteur, ReglagesEmission};

/// Une erreur de la base en plein passage (disque plein…) : des envois sont peut-être partis,
/// ce n'est donc pas le code 2 (« rien n'a été envoyé ») mais 1 : le plan est intact, il
/// suffit de corriger la cause (libérer de la place) puis de relancer.
fn erreur_en_passage(e: crate::plan::ErreurBase) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "{e} Relancez ensuite la même commande : elle reprendra où le passage s'est arrêté."
        ),
    )
    .into()
}

/// Ce que partagent les passages d'une commande.
pub(super) struct Envoi<'a> {
    emission: ReglagesEmission,
    paralleles: usize,
    /// `--debit-max` : un seul seau pour tous les passages de la commande.
    debit: Option<Arc<crate::transport::debit::LimiteDebit>>,
    options: &'a OptionsEnvoi,
    s3: &'a OptionsS3,
    pub(crate) destination: &'a Destination,
    /// Les réglages repris du plan ou qui remplacent ceux qu'il retenait : le bilan les dit.
    pub(crate) annonce: crate::depot::ReglagesDuPassage,
    /// L'utilisateur du jeton, reconnu avant l'envoi (vers la plateforme).
    pub(crate) moi: Option<IdObjet>,
}

impl<'a> Envoi<'a> {
    /// Ce que partageront les passages d'une commande : réglages d'émission, parallélisme,
    /// limite de débit (un seul seau pour tous les passages).
    pub(super) fn nouveau(
        options: &'a OptionsEnvoi,
        s3: &'a OptionsS3,
        destination: &'a Destination,
    ) -> Result<Self> {
        Ok(Envoi {
            emission: options.reessai.reglages_emission()?,
            paralleles: usize::from(options.paralleles),
            // `--debit-max sans` (ou retenu tel) : aucune limite.
            debit: options
                .debit_max
                .filter(|d| !d.est_sans_limite())
                .map(|d| Arc::new(crate::transport::debit::LimiteDebit::nouveau(d))),
            options,
            s3,
            destination,
            annonce: crate::depot::ReglagesDuPassage::default(),
            moi: None,
        })
    }

    /// Ce que les options règlent pour toute destination.
    fn reglages_destination(&self) -> ReglagesDestination {
        ReglagesDestination {
            acces: self.s3.acces(),
            seuil_multipart_mio: self.options.seuil_multipart,
            taille_partie_mio: self.options.taille_partie,
        }
    }

    /// `--attente-reseau` : une coupure plus longue arrête le passage ; `None` : pas de
    /// limite, le passage attend le retour du réseau.
    pub(super) fn attente_reseau(&self) -> Option<Duration> {
        self.emission.pause.and_then(|p| p.attente_max)
    }

    /// Le même envoi vers une autre destination : une nuit de la saison. Les réglages
    /// d'émission, le parallélisme et le seau de `--debit-max` sont partagés.
    pub(super) fn vers<'b>(&'b self, destination: &'b Destination) -> Envoi<'b> {
        Envoi {
            emission: self.emission.clone(),
            paralleles: self.paralleles,
            debit: self.debit.clone(),
            options: self.options,
            s3: self.s3,
            destination,
            annonce: self.annonce.clone(),
            moi: self.moi.clone(),
        }
    }

    /// Le seau `--debit-max` de cet envoi (`None` : sans limite), pour les essais.
    #[cfg(test)]
    pub(super) fn seau(&self) -> Option<&Arc<crate::transport::debit::LimiteDebit>> {
        self.debit.as_ref()
    }

    /// Un émetteur aux réglages de cet envoi, hors de tout passage.
    pub(super) fn emetteur_seul(&self, arret: Annulation) -> Emetteur {
        Emetteur::nouveau(self.emission.clone(), arret).sous_limite(self.debit.clone())
    }

    /// La participation d'un plan vers la plateforme, résolue (créée au besoin, une seule
    /// fois) hors d'un passage, sous les réglages et la veille du réseau de cet envoi : les
    /// créations d'une saison se font toutes avant le premier octet.
    pub(super) async fn resoudre_participation(
        &self,
        base: &Base,
        plan: &DepotPlan,
        dest: &crate::depot::vigiechiro::DestinationVigieChiro,
        moi: Option<&IdObjet>,
    ) -> Result<IdObjet> {
        let arret = Annulation::nouveau();
        ecouter_signaux(arret.clone(), None);
        let emetteur = self.emetteur_seul(arret.clone());
        let client = super::vigiechiro::client(&dest.api)?;
        let journal_suivi = crate::suivi::choisir(false, true, crate::suivi::Progression::Jamais);
        let issue = crate::depot::vigiechiro::participation::resoudre_participation(
            base,
            plan.id,
            dest,
            moi,
            &client,
            &emetteur,
            &AnnoncesSuivi(journal_suivi.as_ref()),
        )
        .await;
        if let Some(e) = super::certificat_refuse(&emetteur) {
            return Err(e);
        }
        match issue {
            Err(_) if arret.est_annulee() && !emetteur.reseau().est_abandonne() => {
                Err(interrompu())
            }
            r => r,
        }
    }
}

/// Un passage sur le plan : ce qui reste à déposer part une fois, sous `arret` (Ctrl-C, la fin
/// de `--jusqu-au-bout=DURÉE`, ou le réseau abandonné) ; une coupure du réseau plus longue
/// que `attente_reseau` l'arrête (`None` : aucune limite, le passage attend le retour du
/// réseau). Ce que la destination doit savoir avant le premier envoi (sa participation, ce
/// qu'elle tient déjà) se lit sous la même veille du réseau que le dépôt : une coupure est
/// sondée et bornée de même.
pub(super) async fn passage(
    e: &Envoi<'_>,
    base: Base,
    plan: DepotPlan,
    arret: Annulation,
    suivi: Arc<dyn Suivi>,
    attente_reseau: Option<Duration>,
) -> Result<Bilan> {
    let mut emission = e.emission.clone();
    if let Some(pause) = emission.pause.as_mut() {
        pause.attente_max = attente_reseau;
    }
    let emetteur = Emetteur::nouveau(emission, arret).sous_limite(e.debit.clone());
    let reglages = e.reglages_destination();
    let depositaire = e
        .destination
        .depositaire(AvantLEnvoi {
            base: &base,
            plan: &plan,
            emetteur: &emetteur,
            suivi: suivi.as_ref(),
            moi: e.moi.as_ref(),
            reglages: &reglages,
        })
        .await;
    // Un certificat refusé dès ces lectures (portail captif, proxy) : rien ne partira.
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    let depositaire = depositaire?;
    let lancement = Lancement {
        base,
        plan,
        emetteur,
        suivi,
    };
    let mut bilan = lancement.executer(e, depositaire).await?;
    bilan.reglages = e.annonce.clone();
    Ok(bilan)
}

/// Ce qu'il faut au moteur d'un passage, hors du dépositaire propre à la destination.
struct Lancement {
    base: Base,
    plan: DepotPlan,
    emetteur: Emetteur,
    suivi: Arc<dyn Suivi>,
}

impl Lancement {
    /// Le passage du moteur ; un certificat refusé en chemin l'a arrêté : code 2, le
    /// message dit le geste (les fichiers sont restés à déposer).
    async fn executer(self, e: &Envoi<'_>, depositaire: DepositaireDuPlan) -> Result<Bilan> {
        let emetteur = self.emetteur.clone();
        let moteur = Moteur::nouveau(
            self.base,
            self.plan,
            depositaire,
            self.emetteur,
            self.suivi,
            e.paralleles,
        );
        let bilan = Arc::new(moteur)
            .executer()
            .await
            .map_err(erreur_en_passage)?;
        match super::certificat_refuse(&emetteur) {
            Some(e) => {
                crate::suivi::liberer_terminal();
                Err(e)
            }
            None => Ok(bilan),
        }
    }
}

/// Le bilan sur la sortie standard (barres effacées d'abord), humain ou JSON ; la
/// participation par l'adresse de sa page (l'API par défaut), jamais par son identifiant seul.
/// Une nuit
/// entièrement déposée sur la plateforme attend encore son calcul, que `vigie` ne lance jamais
/// de lui-même : le bilan le rappelle, avec `--api` si `vigie traiter` ne viserait pas de
/// lui-même l'adresse de ce dépôt. `avec_suite` : faux pour une nuit de saison, dont la
/// suite est dite une fois pour toute la saison.
pub(super) fn afficher_bilan(
    g: &OptionsGlobales,
    b: &Bilan,
    destination: &Destination,
    fin: Option<&FinDesPassages>,
    avec_suite: bool,
) -> Result<()> {
    let suite = prochaine_commande(b.plan, &b.resume)
        .or_else(|| {
            b.destination.participation().filter(|_| !b.interrompu)?;
            destination.rappel_traiter()
        })
        .filter(|_| avec_suite);
    let page = destination
        .plateforme()
        .zip(b.destination.participation())
        .and_then(|(d, p)| crate::suivi::saison::adresse_participation(&d.api, p.as_str()));
    crate::suivi::bilan::afficher(b, page.as_deref(), suite.as_deref(), g.json, fin)?;
    Ok(())
}

/// Un `--endpoint-url` que le plan ne prendra pas en compte est dit (voir
/// [`Fabrique::endpoint_ignore`]).
pub(super) fn signaler_endpoint_ignore(plan: i64, destination: &Destination, s3: &OptionsS3) {
    if let Some(alerte) = destination.endpoint_ignore(plan, s3.endpoint_url.as_deref()) {
        let _ = crate::suivi::avertir(&alerte);
    }
}

/// `vigie verifier [NUIT…]` : chaque nuit de la saison du dernier dépôt (ou les nuits
/// nommées, ou le plan hors saison du dernier dépôt), l'une après l'autre ; le code est celui
/// de la plus mal lotie.
pub(super) fn verifier(g: &OptionsGlobales, args: ArgsVerifier) -> Result<CodeSortie> {
    let base = ouvrir_base_existante(g)?;
    let plans: Vec<(i64, Option<String>)> =
        match crate::saison::designation::viser(&base, &args.nuits.nuits, false)? {
            crate::saison::designation::Visee::Plan(p) => vec![(p, None)],
            crate::saison::designation::Visee::Nuits(v) => v
                .nuits
                .iter()
                .map(|n| (n.plan_id, Some(v.designation(n).to_string())))
                .collect(),
        };
    let mut code = CodeSortie::Succes;
    for (plan, nuit) in plans {
        code = code.max_par_gravite(verifier_un(g, &args, &base, plan, nuit.as_deref())?);
    }
    Ok(code)
}

/// `vigie verifier` d'un plan : ce que la destination dit de chaque unité déposée, noté dans
/// le plan ; `nuit` : sa désignation, pour une nuit de saison.
fn verifier_un(
    g: &OptionsGlobales,
    args: &ArgsVerifier,
    base: &crate::plan::Base,
    plan: i64,
    nuit: Option<&str>,
) -> Result<CodeSortie> {
    let plan = base.plan(Some(plan))?;
    let libelle = nuit.map_or_else(|| plan.id.to_string(), |n| format!("de la nuit {n}"));
    let _verrou = VerrouPlan::prendre(base.chemin(), &plan.dossier, &plan.destination, &libelle)?;
    let destination = Destination::du_plan(&plan)?;
    let fabrique = &destination;
    signaler_endpoint_ignore(plan.id, &destination, &args.s3);
    let deposees = base.unites(plan.id, &[EtatUnite::Deposee])?;
    let emission = args.reessai.reglages_emission()?;
    // Vers la plateforme : l'adresse de l'API, le jeton et la participation d'abord, comme
    // toute commande qui lui parle (sous la veille du réseau, Ctrl-C compris).
    if let Some(dest) = fabrique.plateforme().filter(|_| !deposees.is_empty()) {
        let lectures = (emission.clone(), crate::reessai::Profil::Insistant);
        super::vigiechiro::verifier_plateforme(g, dest, lectures, "rien n'a été vérifié")?;
    }
    let rt = moteur(Fils::Plusieurs)?;
    let annulation = Annulation::nouveau();
    let emetteur = Arc::new(Emetteur::nouveau(emission, annulation.clone()));
    let constats = if deposees.is_empty() {
        Vec::new()
    } else {
        rt.block_on(async {
            let suivi: Arc<dyn Suivi> =
                crate::suivi::choisir(g.json, g.quiet, g.progression.into());
            ecouter_signaux(annulation.clone(), Some(Arc::clone(&suivi)));
            let acces = args.s3.acces();
            verifier::constater_le_plan(fabrique, &plan, deposees, acces, &emetteur, &*suivi).await
        })?
    };
    crate::suivi::liberer_terminal();
    if let Some(e) = super::certificat_refuse(&emetteur) {
        return Err(e);
    }
    let bilan = verification::noter(base, &constats, |unite, constat| {
        Ok(crate::suivi::verification::constat(g.json, unite, constat)?)
    })?;
    let geste_refus = fabrique.geste_relecture_refusee();
    crate::suivi::verification::bilan(g.json, plan.id, nuit, &bilan, &geste_refus)?;
    if bilan.interrompue {
        return Err(interrompu());
    }
    Ok(bilan.code())
}
