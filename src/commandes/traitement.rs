//! Après le dépôt : `vigie traiter` (lancer le calcul), `vigie traitement` (où en est-il, et
//! son bilan) et `vigie resultats` (télécharger le CSV des observations), sur toute la saison
//! du dernier dépôt, ou sur les nuits nommées (`21/06 A1`), ou sur `--participation ID`.
//!
//! Le câblage seulement : les nuits visées (`saison/designation.rs`, `traitement/cible.rs`),
//! les options lues (`cli/cadences.rs`), puis chaque nuit menée par `traitement/`
//! (`relever_une`, `lancer::traiter_une`, `resultats::une_nuit` : la lecture de l'état, la
//! décision de lancer, le lancement, les relevés, les taxons, les téléchargements), qui dit à
//! mesure par les vues qu'implémente `suivi/calcul.rs` (`Vue`, ses conseils dits à la fin).
//! Chaque nuit est menée à part : l'erreur de l'une est dite, les autres continuent ; le code
//! est celui de la plus mal lotie.

use anyhow::{Context, Result};

use super::vigiechiro::mener_ponctuel;
use crate::cli::{ArgsResultats, ArgsTraitement, ArgsTraiter, OptionsGlobales};
use crate::plan::Base;
use crate::reessai::Profil;
use crate::saison::designation::{Visee, viser};
use crate::sortie::CodeSortie;
use crate::suivi::calcul::{self, Vue};
use crate::suivi::traitement::ModeReleves;
use crate::traitement::cible::{Cible, NuitVisee, Portee, Visees, examiner_les_cibles};
use crate::traitement::clients::pour_chaque_nuit;
use crate::traitement::lancer::traiter_une;
use crate::traitement::relever_une;
use crate::traitement::resultats::{self, Voulus, une_nuit};
use crate::traitement::taxons::CacheTaxons;
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

/// Ce que dit la commande, pour les nuits de `portee`.
fn vue(g: &OptionsGlobales, portee: &Portee) -> Vue {
    let releves = ModeReleves::choisir(g.json, g.quiet, g.progression.into());
    Vue::nouvelle(g.mode_sortie(), releves, portee)
}

/// Mène `une` pour chaque nuit de `cibles`, sous Ctrl-C, avec le client de son API
/// (`traitement::clients::pour_chaque_nuit`, selon `reglages`) : l'erreur d'une nuit est dite,
/// les autres continuent. Puis les conseils. Le code : le pire, `code` compris.
fn mener<'c>(
    vue: &mut Vue,
    code: CodeSortie,
    cibles: impl ExactSizeIterator<Item = &'c Cible>,
    reglages: (Profil, &str, bool),
    mut une: impl AsyncFnMut(
        &mut Vue,
        (&ClientVigieChiro, &Emetteur),
        Option<&Utilisateur>,
        &'c Cible,
    ) -> Result<CodeSortie>,
) -> Result<CodeSortie> {
    let (m, mut code) = (vue.m, code);
    if cibles.len() > 0 {
        code = code.max_par_gravite(mener_ponctuel(async |emetteur| {
            let dire = |r| calcul::erreur_de_nuit(m, r);
            pour_chaque_nuit(
                emetteur,
                cibles,
                reglages,
                dire,
                async |client, moi, cible| une(vue, (client, emetteur), moi, cible).await,
            )
            .await
        })?);
    }
    vue.conclure()?;
    Ok(code)
}

/// `vigie traitement` : l'état du calcul de chaque nuit visée (et son bilan), ou, avec
/// `--attendre`, ses relevés jusqu'à la fin du calcul, une nuit sans calcul, un calcul arrêté
/// ou l'échéance.
pub(super) fn traitement(g: &OptionsGlobales, args: ArgsTraitement) -> Result<CodeSortie> {
    let cadence = args.cadence()?;
    let (nuits, participation) = (&args.nuits.nuits, args.participation.as_deref());
    let visees = viser_cibles(g, nuits, participation, args.api.url.as_deref())?;
    let base = base_pour_noter(g);
    let mut taxons = CacheTaxons::de_la_base(&super::chemin_base(g)?);
    let mut vue = vue(g, &visees.portee);
    let code = vue.sans_participation(&visees.sans_participation)?;
    let reglages = (
        Profil::Bref,
        "l'état du calcul n'a pas été relevé",
        cadence.is_some(),
    );
    mener(
        &mut vue,
        code,
        visees.cibles.iter(),
        reglages,
        async |vue, reseau, _, cible| {
            let notes = (base.as_ref(), &mut taxons);
            relever_une(reseau, cible, cadence.as_ref(), notes, vue).await
        },
    )
}

/// `vigie traiter` : pour chaque nuit visée, lit l'état du calcul, puis le lance (une seule
/// émission, jamais rejouée : un nouveau calcul efface les données déjà produites) seulement
/// s'il doit l'être. Toute la saison : chaque nuit entièrement déposée et jamais calculée, une
/// fois ; une nuit finie ou en erreur ne se relance que nommée.
pub(super) fn traiter(g: &OptionsGlobales, args: ArgsTraiter) -> Result<CodeSortie> {
    let (nuits, participation) = (&args.nuits.nuits, args.participation.as_deref());
    let visees = viser_cibles(g, nuits, participation, args.api.url.as_deref())?;
    if args.relancer && visees.portee == Portee::Saison {
        return Err(calcul::relancer_sans_nuit(&visees.exemple()));
    }
    let chemin = super::chemin_base(g)?;
    let mut vue = vue(g, &visees.portee);
    // Avant tout appel au réseau ; les verrous des plans sont tenus jusqu'au lancement :
    // aucun dépôt de ces nuits ne commence pendant ce temps.
    let mut examinees = examiner_les_cibles(&chemin, &visees.cibles)?;
    let mut code = vue.sans_participation(&visees.sans_participation)?;
    let (portee, malgre_tout) = (&visees.portee, args.nuit_incomplete);
    code = code.max_par_gravite(vue.pas_pretes(portee, &examinees.pas_pretes, malgre_tout)?);
    let pretes = examinees.a_lancer(&visees.cibles, portee, malgre_tout);
    let (base, choix) = (base_pour_noter(g), (args.relancer, portee.nommee()));
    let reglages = (Profil::Insistant, "le calcul n'a pas été lancé", false);
    mener(
        &mut vue,
        code,
        pretes.into_iter(),
        reglages,
        async |vue, (client, emetteur), moi, cible| {
            let moi = moi.context("utilisateur non reconnu")?;
            traiter_une((client, moi), emetteur, cible, (choix, base.as_ref()), vue).await
        },
    )
}

/// `vigie resultats` : pour chaque nuit visée, le CSV des observations (et, sur demande, le
/// journal du calcul), nommé par la nuit ; un CSV déjà téléchargé et inchangé n'est pas
/// retéléchargé. Une nuit pas encore calculée n'est pas une erreur.
pub(super) fn resultats(g: &OptionsGlobales, args: ArgsResultats) -> Result<CodeSortie> {
    let (nuits, participation) = (&args.nuits.nuits, args.participation.as_deref());
    let visees = viser_cibles(g, nuits, participation, args.api.url.as_deref())?;
    let base = base_pour_noter(g);
    let mut vue = vue(g, &visees.portee);
    let code = vue.sans_participation(&visees.sans_participation)?;
    let (dossier, saison) =
        resultats::dossier_des_resultats(args.sortie.as_deref(), &visees.cibles);
    calcul::dossier_des_resultats(vue.m, &dossier, saison);
    let voulus = Voulus {
        demander_csv: args.demander_csv,
        avec_journal: args.avec_journal,
        base: base.as_ref(),
        dossier: &dossier,
    };
    let reglages = (Profil::Insistant, "rien n'a été téléchargé", false);
    mener(
        &mut vue,
        code,
        visees.cibles.iter(),
        reglages,
        async |vue, reseau, _, cible| une_nuit(reseau, cible, &voulus, vue).await,
    )
}
