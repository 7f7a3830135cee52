//! Après le dépôt : `vigie traiter` (lancer le calcul), `vigie traitement` (où en est-il, et
//! son bilan) et `vigie resultats` (télécharger le CSV des observations), sur toute la saison
//! du dernier dépôt, ou sur les nuits nommées (`21/06 A1`), ou sur `--participation ID`.
//!
//! Le câblage seulement : les nuits visées (`saison/designation.rs`), la participation de
//! chacune, la lecture de l'état, la décision de lancer, le lancement, la cadence des relevés,
//! le cache des taxons et les téléchargements sont dans `traitement/` ; ce qui s'en dit, et
//! les conseils, dans `suivi/calcul.rs` et `suivi/traitement.rs`. Chaque nuit est menée à part :
//! l'erreur de l'une est dite, les autres continuent ; le code est celui de la plus mal lotie.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::vigiechiro::mener_ponctuel;
use crate::cli::{ArgsResultats, ArgsTraitement, ArgsTraiter, OptionsGlobales};
use crate::plan::Base;
use crate::reessai::{AleaSysteme, Profil, TemporisateurTokio};
use crate::saison::designation::{Visee, viser};
use crate::sortie::CodeSortie;
use crate::suivi::calcul::{self, Conseils, ModeSortie, PasDemande};
use crate::suivi::traitement::{AnnoncesReleves, ModeReleves, phrase_etat};
use crate::traitement::cible::{
    Cible, Examinees, NuitVisee, Portee, Visees, examiner_les_cibles, noter,
};
use crate::traitement::clients::pour_chaque_nuit;
use crate::traitement::lancer::{Lancement, avant_calcul, d_un_autre_observateur, lancer};
use crate::traitement::resultats::{self, deja_telecharge, demander_csv, noms_de_nuit};
use crate::traitement::taxons::{self, CacheTaxons};
use crate::traitement::{
    Cadence, EtatCalcul, EtatParticipation, Releve, code_de_l_etat, relever, suivre,
};
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{ClientVigieChiro, PieceJointe, Utilisateur};

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
        patience: args.patience,
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
            async |client, _, cible| match &cadence {
                None => r.relever_une(emetteur, client, cible).await,
                Some(cadence) => r.suivre_une(emetteur, client, cible, cadence).await,
            },
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
    patience: Duration,
}

impl Releves {
    /// Une nuit, sans `--attendre` : son état relevé une fois, noté, dit.
    async fn relever_une(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
    ) -> Result<CodeSortie> {
        let etat = match relever(client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => *e,
            Releve::Manque(pourquoi) => {
                return Err(calcul::releve_manque(cible, &pourquoi));
            }
        };
        self.dire(emetteur, client, cible, &etat).await?;
        Ok(code_de_l_etat(Some(&etat)))
    }

    /// L'état relevé d'une nuit : noté dans la base, ses taxons complétés, dit.
    async fn dire(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
        etat: &EtatParticipation,
    ) -> Result<()> {
        noter(self.base.as_ref(), cible, etat);
        taxons::completer(&mut self.taxons, client, emetteur, &cible.api, etat).await;
        calcul::afficher_etat(self.m, cible, etat, &self.taxons, &mut self.conseils)?;
        Ok(())
    }

    /// Une nuit, avec `--attendre` : ses relevés jusqu'à la fin (voir [`traitement`]).
    async fn suivre_une(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
        cadence: &Cadence,
    ) -> Result<CodeSortie> {
        let annonces = AnnoncesReleves::nouvelles(
            self.mode,
            cible.participation.as_str(),
            cible.nuit.as_ref().map(|n| n.designation.as_str()),
        );
        if self.mode == ModeReleves::Lignes || self.mode == ModeReleves::Indicateur {
            calcul::annoncer_suivi(cible);
        }
        let fin = suivre(
            cadence,
            crate::traitement::maintenant(),
            &TemporisateurTokio::nouveau(),
            &AleaSysteme,
            emetteur.annulation(),
            || relever(client, emetteur, &cible.participation),
            &annonces,
        )
        .await;
        annonces.terminer();
        let (etat, code) = calcul::fin_du_suivi(cible, fin?, self.patience)?;
        if let Some(e) = &etat {
            self.dire(emetteur, client, cible, e).await?;
        }
        Ok(code)
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
    let Examinees {
        verrous: _verrous,
        pas_pretes,
        mut pretes,
    } = examiner_les_cibles(&chemin, &visees.cibles)?;
    let mut code = calcul::sans_participation(m, &visees.sans_participation, &mut conseils)?;
    if visees.portee == Portee::Saison && !args.nuit_incomplete {
        // Toute la saison : les nuits prêtes sont lancées, les autres dites (code 1).
        for (cible, n) in &pas_pretes {
            code = code.max_par_gravite(calcul::nuit_pas_prete_passee(m, cible, n, &mut conseils)?);
        }
    } else {
        calcul::nuits_pas_pretes(m, &visees.portee, &pas_pretes, args.nuit_incomplete)?;
        pretes = visees.cibles.iter().collect();
    }
    let (base, nommee) = (base_pour_noter(g), visees.portee.nommee());
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
                    traiter_une(
                        m,
                        emetteur,
                        (client, moi),
                        cible,
                        (args.relancer, nommee),
                        base.as_ref(),
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

/// Une nuit de `vigie traiter` : son état, la décision, le lancement. `(relancer, nommee)` :
/// `--relancer`, et la nuit est-elle visée pour elle-même.
async fn traiter_une(
    m: ModeSortie,
    emetteur: &Emetteur,
    (client, moi): (&ClientVigieChiro, &Utilisateur),
    cible: &Cible,
    (relancer, nommee): (bool, bool),
    base: Option<&Base>,
    conseils: &mut Conseils,
) -> Result<CodeSortie> {
    let avant = match relever(client, emetteur, &cible.participation).await? {
        Releve::Lu(e) => *e,
        Releve::Manque(pourquoi) => {
            if emetteur.annulation().est_annulee() {
                return Err(super::interrompu());
            }
            return Err(calcul::etat_inconnu_avant_lancement(cible, &pourquoi));
        }
    };
    noter(base, cible, &avant);
    if d_un_autre_observateur(moi, &avant) {
        return Err(calcul::pas_la_votre(cible, &avant));
    }
    let maintenant = crate::traitement::maintenant();
    let decision = avant_calcul(avant.traitement.as_ref(), relancer, nommee, maintenant);
    if let Some(code) = calcul::sans_lancer(m, cible, decision, &avant, conseils)? {
        return Ok(code);
    }
    let issue = lancer(emetteur, client, &cible.participation, &avant).await;
    if let (Lancement::Lance { .. }, Some(base), Some(plan)) = (&issue, base, cible.plan)
        && let Err(e) = base.noter_calcul(plan, Some("PLANIFIE"), Some(maintenant.secondes()))
    {
        tracing::warn!("état du calcul non noté dans la base : {e}");
    }
    calcul::lancement(m, cible, moi, &avant, issue, conseils)
}

// ------------------------------------------------------------------------ vigie resultats

/// Le dossier des résultats : `--sortie`, sinon, pour des nuits de saison,
/// `resultats-vigie-chiro-ANNÉE` dans le dossier courant (dit au début), sinon le dossier
/// courant.
fn dossier_des_resultats(m: ModeSortie, args: &ArgsResultats, visees: &Visees) -> PathBuf {
    if let Some(d) = &args.sortie {
        return d.clone();
    }
    let Some((dossier, annee)) = resultats::dossier_de_la_saison(&visees.cibles) else {
        return PathBuf::from(".");
    };
    calcul::dossier_des_resultats(m, &dossier, annee);
    dossier
}

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
    let sortie = dossier_des_resultats(m, &args, &visees);
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

/// L'état du calcul d'une nuit, s'il a été relevé, en une phrase, et s'il est fini.
struct CalculLu {
    etat: Option<EtatParticipation>,
    phrase: Option<String>,
    fini: bool,
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
        let lu = self.relever(emetteur, client, cible).await?;
        let csv = resultats::trouver_csv(client, emetteur, &cible.participation)
            .await
            .map_err(|e| calcul::erreur_du_csv(cible, "n'a pas pu être cherché", e))?;
        if self.args.demander_csv {
            return self.demander(emetteur, client, cible, csv, &lu).await;
        }
        let ecrit = match csv {
            Some(f) => {
                let base = self.base.as_ref();
                resultats::telecharger_csv(client, emetteur, base, cible, &f, &self.sortie)
                    .await
                    .map_err(|e| calcul::erreur_du_csv(cible, "n'a pas été téléchargé", e))?
            }
            None => None,
        };
        let mut code = match ecrit {
            Some((t, telecharge)) => {
                calcul::annoncer_fichier(self.m, cible, "csv", &t, telecharge)?;
                if !lu.fini && lu.etat.as_ref().is_some_and(|e| e.traitement.is_some()) {
                    calcul::csv_d_un_calcul_precedent(self.m, lu.phrase.as_deref());
                }
                CodeSortie::Succes
            }
            None => calcul::sans_resultats(
                self.m,
                cible,
                lu.etat.as_ref(),
                lu.phrase.as_deref(),
                &mut self.conseils,
            )?,
        };
        if self.args.avec_journal {
            let etat = lu.etat.as_ref();
            let j = journal(self.m, cible, emetteur, client, etat, &self.sortie).await?;
            code = code.max_par_gravite(j);
        }
        Ok(code)
    }

    /// L'état du calcul de la nuit, noté s'il est relevé ; un relevé manqué n'arrête rien.
    async fn relever(
        &self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
    ) -> Result<CalculLu> {
        let etat = match relever(client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => {
                noter(self.base.as_ref(), cible, &e);
                Some(*e)
            }
            Releve::Manque(pourquoi) => {
                tracing::info!("état du calcul non relevé : {pourquoi}");
                None
            }
        };
        let phrase = etat
            .as_ref()
            .map(|e| phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()));
        let fini = etat
            .as_ref()
            .and_then(|e| e.traitement.as_ref())
            .is_some_and(|t| t.etat == EtatCalcul::Fini);
        Ok(CalculLu { etat, phrase, fini })
    }

    /// `--demander-csv` : la demande, seulement si le CSV manque à un calcul fini.
    async fn demander(
        &mut self,
        emetteur: &Emetteur,
        client: &ClientVigieChiro,
        cible: &Cible,
        csv: Option<PieceJointe>,
        lu: &CalculLu,
    ) -> Result<CodeSortie> {
        let (m, conseils) = (self.m, &mut self.conseils);
        let deja = |f: &PieceJointe| {
            deja_telecharge(self.base.as_ref(), cible, &self.sortie, &f.id.to_string())
        };
        match (&csv, &lu.phrase) {
            (Some(f), _) if deja(f).is_some() => {
                calcul::csv_pas_demande(m, cible, PasDemande::DejaTelecharge, conseils)
            }
            (Some(_), _) => calcul::csv_pas_demande(m, cible, PasDemande::DejaLa, conseils),
            (None, Some(p)) if !lu.fini => {
                calcul::csv_pas_demande(m, cible, PasDemande::PasCalculee(p), conseils)
            }
            (None, _) => {
                let issue = demander_csv(emetteur, client, &cible.participation).await;
                calcul::demande_csv(m, cible, issue, conseils)
            }
        }
    }
}

/// `--avec-journal` : le fichier du journal du dernier calcul réussi.
async fn journal(
    m: ModeSortie,
    cible: &Cible,
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    etat: Option<&EtatParticipation>,
    sortie: &Path,
) -> Result<CodeSortie> {
    let Some(id) = etat.and_then(|e| e.logs.as_ref()) else {
        return Ok(calcul::journal_absent(cible, false));
    };
    let nom = match &cible.nuit {
        Some(n) => noms_de_nuit(&n.nuit).1,
        None => format!("participation-{}-logs.txt", cible.participation),
    };
    match resultats::telecharger(client, emetteur, id, sortie, &nom)
        .await
        .map_err(|e| calcul::erreur_resultat("le journal du calcul n'a pas été téléchargé", e))?
    {
        Some(t) => {
            calcul::annoncer_fichier(m, cible, "journal", &t, true)?;
            Ok(CodeSortie::Succes)
        }
        None => Ok(calcul::journal_absent(cible, true)),
    }
}
