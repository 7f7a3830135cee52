//! Après le dépôt : `vigie traiter` (lancer le calcul), `vigie traitement` (où en est-il, et
//! son bilan) et `vigie resultats` (télécharger le CSV des observations), sur toute la saison
//! du dernier dépôt, ou sur les nuits nommées (`21/06 A1`), ou sur `--participation ID`.
//!
//! Le câblage seulement : les nuits visées (`saison/designation.rs`), la participation de
//! chacune, la lecture de l'état, la décision de lancer, le lancement, la cadence des relevés,
//! le cache des taxons et les téléchargements sont dans `traitement/` ; ce qui s'en dit, et
//! les conseils, dans `suivi/calcul.rs` et `suivi/traitement.rs`. Chaque nuit est menée à part :
//! l'erreur de l'une est dite, les autres continuent ; le code est celui de la plus mal lotie.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::vigiechiro::mener_ponctuel;
use crate::cli::{ArgsResultats, ArgsTraitement, ArgsTraiter, OptionsGlobales};
use crate::plan::Base;
use crate::reessai::Profil;
use crate::saison::designation::{Visee, viser};
use crate::sortie::CodeSortie;
use crate::suivi::calcul::{self, Conseils, ModeSortie};
use crate::suivi::traitement::ModeReleves;
use crate::traitement::cible::{Cible, NuitVisee, Portee, Visees, examiner_les_cibles};
use crate::traitement::clients::pour_chaque_nuit;
use crate::traitement::lancer::{examiner, lancer_et_noter};
use crate::traitement::resultats::{self, CalculLu, demander_s_il_manque, telecharger_journal};
use crate::traitement::taxons::CacheTaxons;
use crate::traitement::{
    Cadence, Releve, code_de_l_etat, noter_et_nommer, relever, suivre_la_cible,
};
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{ClientVigieChiro, Utilisateur};

/// Les participations visées (`traitement::cible::Visees`) : celle donnée (à l'adresse de
/// `--api`, de `VIGIE_API` ou de la configuration) ; sinon, d'après les mots `NUIT…`
/// (`saison/designation.rs`), chaque nuit de la saison du dernier dépôt vers la plateforme, ou
/// les nuits nommées, ou le plan hors saison du dernier dépôt.
fn viser_cibles(
    g: &OptionsGlobales,
    nuits: &[String],
    participation: Option<&str>,
    api: Option<&str>,
) -> Result<Visees> {
    if let Some(p) = participation {
        return Visees::donnee(p, api);
    }
    let base = super::ouvrir_base_existante(g)?;
    match viser(&base, nuits, true)? {
        Visee::Plan(p) => Visees::du_plan(&base, p, !nuits.is_empty()),
        Visee::Nuits(v) => {
            let visees = v.nuits.iter().map(|n| NuitVisee {
                nuit: n.clone(),
                designation: v.designation(n).to_string(),
            });
            Visees::des_nuits(&base, visees, v.designees)
        }
    }
}

/// La base des plans, pour y noter ce qui est relevé, si elle existe.
fn base_pour_noter(g: &OptionsGlobales) -> Option<Base> {
    let chemin = super::chemin_base(g).ok()?;
    Base::ouvrir_existante(&chemin).ok().flatten()
}

// ---------------------------------------------------------------------- vigie traitement

/// `vigie traitement` : l'état du calcul de chaque nuit visée (et son bilan), ou, avec
/// `--attendre`, ses relevés jusqu'à la fin du calcul, une nuit sans calcul, un calcul arrêté
/// ou l'échéance.
pub(super) fn traitement(g: &OptionsGlobales, args: ArgsTraitement) -> Result<CodeSortie> {
    let cadence = args.cadence()?;
    let m = g.mode_sortie();
    let visees = viser_cibles(
        g,
        &args.nuits.nuits,
        args.participation.as_deref(),
        args.api.url.as_deref(),
    )?;
    let mut r = Releves {
        m,
        base: base_pour_noter(g),
        taxons: CacheTaxons::de_la_base(&super::chemin_base(g)?),
        conseils: Conseils::nouveaux(&visees.portee),
        mode: ModeReleves::choisir(g.json, g.quiet, g.progression.into()),
    };
    let mut code = calcul::sans_participation(m, &visees.sans_participation, &mut r.conseils)?;
    code = code.max_par_gravite(mener_ponctuel(async |emetteur| {
        let reglages = (
            Profil::Bref,
            "l'état du calcul n'a pas été relevé",
            cadence.is_some(),
        );
        pour_chaque_nuit(
            emetteur,
            &visees.cibles,
            reglages,
            |r| calcul::erreur_de_nuit(m, r),
            async |client, _, cible| r.une_nuit(emetteur, client, cible, cadence.as_ref()).await,
        )
        .await
    })?);
    r.conseils.ecrire(m)?;
    Ok(code)
}

/// Ce que `vigie traitement` garde d'une nuit à l'autre.
struct Releves {
    m: ModeSortie,
    base: Option<Base>,
    taxons: CacheTaxons,
    conseils: Conseils,
    mode: ModeReleves,
}

impl Releves {
    /// Une nuit : son état relevé une fois, ou, avec `--attendre` (`cadence`), jusqu'à la fin
    /// (voir [`traitement`]) ; noté, ses taxons nommés, dit.
    async fn une_nuit(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
        cadence: Option<&Cadence>,
    ) -> Result<CodeSortie> {
        let (etat, code) = match cadence {
            None => match relever(client, emetteur, &cible.participation).await? {
                Releve::Lu(e) => (Some(*e), None),
                Releve::Manque(pourquoi) => return Err(calcul::releve_manque(cible, &pourquoi)),
            },
            Some(cadence) => {
                let annonces = calcul::annonces_du_suivi(self.mode, cible);
                let fin = suivre_la_cible(cadence, client, emetteur, cible, &annonces).await;
                annonces.terminer();
                let (etat, code) = calcul::fin_du_suivi(cible, fin?, cadence.patience())?;
                (etat, Some(code))
            }
        };
        if let Some(e) = &etat {
            let base = (self.base.as_ref(), &mut self.taxons);
            noter_et_nommer(base, client, emetteur, cible, e).await;
            calcul::afficher_etat(self.m, cible, e, &self.taxons, &mut self.conseils)?;
        }
        Ok(code.unwrap_or_else(|| code_de_l_etat(etat.as_ref())))
    }
}

// ------------------------------------------------------------------------- vigie traiter

/// `vigie traiter` : pour chaque nuit visée, lit l'état du calcul, puis le lance (une seule
/// émission, jamais rejouée : un nouveau calcul efface les données déjà produites) seulement
/// s'il doit l'être. Toute la saison : chaque nuit entièrement déposée et jamais calculée, une
/// fois ; une nuit finie ou en erreur ne se relance que nommée.
pub(super) fn traiter(g: &OptionsGlobales, args: ArgsTraiter) -> Result<CodeSortie> {
    let m = g.mode_sortie();
    let visees = viser_cibles(
        g,
        &args.nuits.nuits,
        args.participation.as_deref(),
        args.api.url.as_deref(),
    )?;
    if args.relancer && visees.portee == Portee::Saison {
        return Err(calcul::relancer_sans_nuit(&visees.exemple()));
    }
    let chemin = super::chemin_base(g)?;
    let mut conseils = Conseils::nouveaux(&visees.portee);
    // Avant tout appel au réseau ; les verrous des plans sont tenus jusqu'au lancement :
    // aucun dépôt de ces nuits ne commence pendant ce temps.
    let mut examinees = examiner_les_cibles(&chemin, &visees.cibles)?;
    let mut code = calcul::sans_participation(m, &visees.sans_participation, &mut conseils)?;
    let (portee, malgre_tout) = (&visees.portee, args.nuit_incomplete);
    let pas_pretes = &examinees.pas_pretes;
    code = code.max_par_gravite(calcul::pas_pretes(
        m,
        portee,
        pas_pretes,
        malgre_tout,
        &mut conseils,
    )?);
    let pretes = examinees.a_lancer(&visees.cibles, portee, malgre_tout);
    let (base, choix) = (base_pour_noter(g), (args.relancer, visees.portee.nommee()));
    if !pretes.is_empty() {
        code = code.max_par_gravite(mener_ponctuel(async |emetteur| {
            let reglages = (Profil::Insistant, "le calcul n'a pas été lancé", false);
            let dire = |r| calcul::erreur_de_nuit(m, r);
            pour_chaque_nuit(
                emetteur,
                pretes,
                reglages,
                dire,
                async |client, moi, cible| {
                    let moi = moi.context("utilisateur non reconnu")?;
                    let base = base.as_ref();
                    traiter_une(
                        m,
                        emetteur,
                        (client, moi),
                        cible,
                        choix,
                        base,
                        &mut conseils,
                    )
                    .await
                },
            )
            .await
        })?);
    }
    conseils.ecrire(m)?;
    Ok(code)
}

/// Une nuit de `vigie traiter` : son état, la décision, le lancement. `choix` :
/// `(--relancer, la nuit est-elle visée pour elle-même)`.
async fn traiter_une(
    m: ModeSortie,
    emetteur: &Emetteur,
    (client, moi): (&ClientVigieChiro, &Utilisateur),
    cible: &Cible,
    choix: (bool, bool),
    base: Option<&Base>,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let avant = examiner((client, moi), emetteur, cible, choix, base).await?;
    let d = calcul::decidee(cible, avant)?;
    if let Some(code) = calcul::sans_lancer(m, cible, d.decision, &d.avant, conseils)? {
        return Ok(code);
    }
    let issue = lancer_et_noter(emetteur, client, cible, &d, base).await;
    calcul::lancement(m, cible, moi, &d.avant, issue, conseils)
}

// ------------------------------------------------------------------------ vigie resultats

/// `vigie resultats` : pour chaque nuit visée, le CSV des observations (et, sur demande, le
/// journal du calcul), nommé par la nuit ; un CSV déjà téléchargé et inchangé n'est pas
/// retéléchargé. Une nuit pas encore calculée n'est pas une erreur.
pub(super) fn resultats(g: &OptionsGlobales, args: ArgsResultats) -> Result<CodeSortie> {
    let m = g.mode_sortie();
    let visees = viser_cibles(
        g,
        &args.nuits.nuits,
        args.participation.as_deref(),
        args.api.url.as_deref(),
    )?;
    let base = base_pour_noter(g);
    let mut conseils = Conseils::nouveaux(&visees.portee);
    let mut code = calcul::sans_participation(m, &visees.sans_participation, &mut conseils)?;
    let (sortie, saison) = resultats::dossier_des_resultats(args.sortie.as_deref(), &visees.cibles);
    calcul::dossier_des_resultats(m, &sortie, saison);
    let mut r = Resultats {
        m,
        args: &args,
        base,
        sortie,
        conseils,
    };
    code = code.max_par_gravite(mener_ponctuel(async |emetteur| {
        let reglages = (Profil::Insistant, "rien n'a été téléchargé", false);
        pour_chaque_nuit(
            emetteur,
            &visees.cibles,
            reglages,
            |r| calcul::erreur_de_nuit(m, r),
            async |client, _, cible| r.une_nuit(emetteur, client, cible).await,
        )
        .await
    })?);
    r.conseils.ecrire(m)?;
    Ok(code)
}

/// Ce que `vigie resultats` garde d'une nuit à l'autre.
struct Resultats<'a> {
    m: ModeSortie,
    args: &'a ArgsResultats,
    base: Option<Base>,
    /// Le dossier des résultats.
    sortie: PathBuf,
    conseils: Conseils,
}

impl Resultats<'_> {
    /// Une nuit : son état relevé (noté), son CSV cherché, puis demandé, ou téléchargé ; son
    /// journal sur demande.
    async fn une_nuit(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
    ) -> Result<CodeSortie> {
        let (m, base, sortie) = (self.m, self.base.as_ref(), self.sortie.as_path());
        let lu = CalculLu::relever(client, emetteur, base, cible).await?;
        let csv = resultats::trouver_csv(client, emetteur, &cible.participation)
            .await
            .map_err(|e| calcul::erreur_du_csv(cible, "n'a pas pu être cherché", e))?;
        if self.args.demander_csv {
            let d =
                demander_s_il_manque((emetteur, client), (base, sortie), cible, csv.as_ref(), &lu)
                    .await;
            return calcul::demande_du_csv(m, cible, d, &lu, &mut self.conseils);
        }
        let ecrit = match csv {
            Some(f) => resultats::telecharger_csv(client, emetteur, base, cible, &f, sortie)
                .await
                .map_err(|e| calcul::erreur_du_csv(cible, "n'a pas été téléchargé", e))?,
            None => None,
        };
        let mut code = calcul::csv(m, cible, ecrit, &lu, &mut self.conseils)?;
        if self.args.avec_journal {
            let j = telecharger_journal(client, emetteur, cible, lu.etat.as_ref(), sortie).await;
            code = code.max_par_gravite(calcul::journal(m, cible, j)?);
        }
        Ok(code)
    }
}
