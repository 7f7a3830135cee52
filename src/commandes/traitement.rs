//! Après le dépôt : `vigie traiter` (lancer le calcul), `vigie traitement` (où en est-il, et
//! son bilan) et `vigie resultats` (télécharger le CSV des observations).
//!
//! Le câblage seulement : la participation visée, la lecture de l'état, la décision de
//! lancer, le lancement, la cadence des relevés, le cache des taxons et les téléchargements
//! sont dans `traitement/` ; ce qui s'en dit dans `suivi/calcul.rs` et `suivi/traitement.rs`.

use std::io;
use std::time::Duration;

use anyhow::{Context, Result};

use super::vigiechiro::{client, mener_ponctuel, reconnaitre_plateforme_en};
use crate::cli::{ArgsResultats, ArgsTraitement, ArgsTraiter, OptionsGlobales};
use crate::reessai::{AleaSysteme, Profil, TemporisateurTokio};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::calcul::{self, ModeSortie};
use crate::suivi::traitement::{AnnoncesReleves, ModeReleves, phrase_etat};
use crate::traitement::cible::{Cible, examiner_nuits};
use crate::traitement::lancer::{avant_calcul, d_un_autre_observateur, lancer};
use crate::traitement::resultats::{self, demander_csv, nom_du_csv, nom_sur};
use crate::traitement::taxons::{self, CacheTaxons};
use crate::traitement::{
    Cadence, EtatCalcul, EtatParticipation, FinDuSuivi, Releve, code_de_l_etat, jeton_refuse,
    relever, suivre,
};
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{ClientVigieChiro, Utilisateur};

/// Les participations visées : celle donnée (à l'adresse de `--api`, de `VIGIE_API` ou de la
/// configuration), ou celle du dernier plan, ou, si c'est une nuit de saison, chaque nuit de sa
/// saison.
fn cibles(
    g: &OptionsGlobales,
    participation: Option<&str>,
    api: Option<&str>,
) -> Result<Vec<Cible>> {
    match participation {
        Some(p) => Ok(vec![Cible::donnee(p, api)?]),
        None => Cible::du_dernier_plan_ou_de_sa_saison(&super::ouvrir_base_existante(g)?),
    }
}

fn mode(g: &OptionsGlobales) -> ModeSortie {
    ModeSortie {
        json: g.json,
        silencieux: g.quiet,
    }
}

/// Reconnaît la plateforme (`GET /moi`) ; le refus dit que `rien_fait`.
async fn reconnaitre(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    api: &str,
    profil: Profil,
    rien_fait: &str,
) -> Result<Utilisateur> {
    reconnaitre_plateforme_en(client, emetteur, profil)
        .await
        .map_err(|r| {
            r.erreur(
                api,
                ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()),
                rien_fait,
            )
        })
}

/// Des secondes de la ligne de commande, strictement positives, une semaine au plus.
fn secondes(nom: &str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero() && *d <= Duration::from_secs(7 * 86_400))
        .with_context(|| {
            format!("--{nom} {s} invalide : une durée en secondes, positive, d'une semaine au plus")
        })
        .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, format!("{e:#}")).into())
}

/// `vigie traitement` : l'état du calcul de chaque participation visée (et son bilan), ou,
/// avec `--attendre`, ses relevés jusqu'à la fin du calcul.
pub(super) fn traitement(g: &OptionsGlobales, args: ArgsTraitement) -> Result<CodeSortie> {
    let cadence = if args.attendre {
        Some(
            Cadence::nouveau(
                secondes("attente-releve", args.attente_releve)?,
                secondes("attente-releve-max", args.attente_releve_max)?,
                args.echeance,
            )
            .map_err(|e| {
                ErreurAvecCode::nouveau(CodeSortie::Usage, format!("--attente-releve : {e}"))
            })?,
        )
    } else {
        None
    };
    let m = mode(g);
    let cibles = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?;
    let mut taxons = CacheTaxons::de_la_base(&super::chemin_base(g)?);
    let mode = if g.json {
        ModeReleves::Json
    } else if g.quiet {
        ModeReleves::Muet
    } else if crate::suivi::decider(false, false, g.progression.into(), terminal())
        == (crate::suivi::Affichage::Barres { forcees: false })
    {
        ModeReleves::Indicateur
    } else {
        ModeReleves::Lignes
    };
    mener_ponctuel(async |emetteur| {
        let mut code = CodeSortie::Succes;
        for cible in &cibles {
            let client = client(&cible.api)?;
            let reconnue = reconnaitre(
                &client,
                emetteur,
                &cible.api,
                Profil::Bref,
                "l'état du calcul n'a pas été relevé",
            )
            .await;
            // Avec --attendre, une plateforme muette au premier appel n'arrête rien : les
            // relevés suivants repasseront.
            match reconnue {
                Ok(_) => {}
                Err(e)
                    if cadence.is_some()
                        && crate::sortie::code_pour_erreur(&e)
                            == CodeSortie::EchecsTransitoires => {}
                Err(e) => return Err(e),
            }
            let etat = match &cadence {
                None => match relever(&client, emetteur, &cible.participation).await? {
                    Releve::Lu(e) => *e,
                    Releve::Manque(pourquoi) => {
                        return Err(calcul::releve_manque(cible, &pourquoi));
                    }
                },
                Some(cadence) => {
                    let annonces = AnnoncesReleves::nouvelles(mode, cible.participation.as_str());
                    if mode == ModeReleves::Lignes || mode == ModeReleves::Indicateur {
                        calcul::annoncer_suivi(cible);
                    }
                    let fin = suivre(
                        cadence,
                        &TemporisateurTokio::nouveau(),
                        &AleaSysteme,
                        emetteur.annulation(),
                        || relever(&client, emetteur, &cible.participation),
                        &annonces,
                    )
                    .await;
                    annonces.terminer();
                    match fin? {
                        FinDuSuivi::Termine(e) => e,
                        FinDuSuivi::Interrompu(_) => return Err(super::interrompu()),
                        FinDuSuivi::Echeance(dernier) => {
                            if let Some(e) = &dernier {
                                taxons::completer(&mut taxons, &client, emetteur, &cible.api, e)
                                    .await;
                                calcul::afficher_etat(m, cible, e, &taxons)?;
                            }
                            calcul::echeance_atteinte(cible, dernier.is_some());
                            code = code.max_par_gravite(CodeSortie::EchecsTransitoires);
                            continue;
                        }
                    }
                }
            };
            taxons::completer(&mut taxons, &client, emetteur, &cible.api, &etat).await;
            calcul::afficher_etat(m, cible, &etat, &taxons)?;
            code = code.max_par_gravite(code_de_l_etat(Some(&etat)));
        }
        Ok(code)
    })
}

fn terminal() -> bool {
    use std::io::IsTerminal;
    io::stderr().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        && crate::plateforme::console_pilotable()
}

// ------------------------------------------------------------------------- vigie traiter

/// `vigie traiter` : lit l'état du calcul, puis le lance (une seule émission, jamais rejouée :
/// un nouveau calcul efface les données déjà produites) seulement s'il doit l'être.
pub(super) fn traiter(g: &OptionsGlobales, args: ArgsTraiter) -> Result<CodeSortie> {
    let m = mode(g);
    let cible = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?
        .into_iter()
        .next()
        .context("aucune participation visée")?;
    // Avant tout appel au réseau ; les verrous des plans sont tenus jusqu'au lancement :
    // aucun dépôt de cette nuit ne commence pendant ce temps.
    let nuits = examiner_nuits(&super::chemin_base(g)?, &cible)?;
    calcul::nuits_pas_pretes(m, &cible, &nuits.pas_pretes, args.nuit_incomplete)?;
    let _verrous = nuits.verrous;
    let client = client(&cible.api)?;
    mener_ponctuel(async |emetteur| {
        let moi = reconnaitre(
            &client,
            emetteur,
            &cible.api,
            Profil::Insistant,
            "le calcul n'a pas été lancé",
        )
        .await?;
        let avant = match relever(&client, emetteur, &cible.participation).await? {
            Releve::Lu(e) => *e,
            Releve::Manque(pourquoi) => {
                if emetteur.annulation().est_annulee() {
                    return Err(super::interrompu());
                }
                return Err(calcul::etat_inconnu_avant_lancement(&cible, &pourquoi));
            }
        };
        if d_un_autre_observateur(&moi, &avant) {
            return Err(calcul::pas_la_votre(&cible, &avant));
        }
        let decision = avant_calcul(
            avant.traitement.as_ref(),
            args.relancer,
            crate::traitement::maintenant(),
        );
        if let Some(code) = calcul::sans_lancer(m, &cible, decision, &avant)? {
            return Ok(code);
        }
        let issue = lancer(emetteur, &client, &cible.participation, &avant).await;
        calcul::lancement(m, &cible, &moi, &avant, issue)
    })
}

// ------------------------------------------------------------------------ vigie resultats

/// `vigie resultats` : le CSV des observations (et, sur demande, le journal du calcul).
pub(super) fn resultats(g: &OptionsGlobales, args: ArgsResultats) -> Result<CodeSortie> {
    let m = mode(g);
    let cibles = cibles(g, args.participation.as_deref(), args.api.url.as_deref())?;
    let sortie = args.sortie.clone();
    mener_ponctuel(async |emetteur| {
        let mut code = CodeSortie::Succes;
        for cible in &cibles {
            let client = client(&cible.api)?;
            reconnaitre(
                &client,
                emetteur,
                &cible.api,
                Profil::Insistant,
                "rien n'a été téléchargé",
            )
            .await?;
            if args.demander_csv {
                let issue = demander_csv(emetteur, &client, &cible.participation).await;
                code = code.max_par_gravite(calcul::demande_csv(m, cible, issue)?);
                continue;
            }
            let etat = match relever(&client, emetteur, &cible.participation).await? {
                Releve::Lu(e) => Some(*e),
                Releve::Manque(pourquoi) => {
                    tracing::info!("état du calcul non relevé : {pourquoi}");
                    None
                }
            };
            let phrase = etat
                .as_ref()
                .map(|e| phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()));
            let csv = resultats::trouver_csv(&client, emetteur, &cible.participation)
                .await
                .map_err(|e| {
                    calcul::erreur_resultat("le CSV des observations n'a pas pu être cherché", e)
                })?;
            let ecrit = match csv {
                Some(f) => {
                    let nom = nom_sur(&f.titre).unwrap_or_else(|| nom_du_csv(&cible.participation));
                    resultats::telecharger(&client, emetteur, &f.id, &sortie, &nom)
                        .await
                        .map_err(|e| {
                            calcul::erreur_resultat(
                                "le CSV des observations n'a pas été téléchargé",
                                e,
                            )
                        })?
                }
                None => None,
            };
            match ecrit {
                Some(t) => {
                    calcul::annoncer_fichier(m, cible, "csv", &t)?;
                    let pas_fini = etat
                        .as_ref()
                        .and_then(|e| e.traitement.as_ref())
                        .is_some_and(|t| t.etat != EtatCalcul::Fini);
                    if pas_fini {
                        calcul::csv_d_un_calcul_precedent(m, phrase.as_deref());
                    }
                }
                None => {
                    code = code.max_par_gravite(calcul::csv_absent(
                        m,
                        cible,
                        etat.as_ref(),
                        phrase.as_deref(),
                    )?);
                }
            }
            if args.avec_journal {
                code = code.max_par_gravite(
                    journal(m, cible, emetteur, &client, etat.as_ref(), &sortie).await?,
                );
            }
        }
        Ok(code)
    })
}

/// `--avec-journal` : le fichier du journal du dernier calcul réussi.
async fn journal(
    m: ModeSortie,
    cible: &Cible,
    emetteur: &Emetteur,
    client: &ClientVigieChiro,
    etat: Option<&EtatParticipation>,
    sortie: &std::path::Path,
) -> Result<CodeSortie> {
    let Some(id) = etat.and_then(|e| e.logs.as_ref()) else {
        return Ok(calcul::journal_absent(cible, false));
    };
    let nom = format!("participation-{}-logs.txt", cible.participation);
    match resultats::telecharger(client, emetteur, id, sortie, &nom)
        .await
        .map_err(|e| calcul::erreur_resultat("le journal du calcul n'a pas été téléchargé", e))?
    {
        Some(t) => {
            calcul::annoncer_fichier(m, cible, "journal", &t)?;
            Ok(CodeSortie::Succes)
        }
        None => Ok(calcul::journal_absent(cible, true)),
    }
}
