//! `vigie connexion`, `vigie deconnexion`, `vigie traiter`, et la participation d'un dépôt
//! vers la plateforme Vigie-Chiro.

use std::io::{self, BufRead, Write};

use anyhow::{Context, Result, bail};

use crate::cli::{ArgsConnexion, ArgsTraiter, OptionsGlobales};
use crate::depot::vigiechiro::MESSAGE_JETON_REFUSE;
use crate::destination::{CibleParticipation, DestinationVigieChiro, valider_endpoint};
use crate::jeton;
use crate::plan::Base;
use crate::reessai::{
    Annulation, ObservateurMuet, Profil, RaisonArret, Reglages, Rejouabilite, ReponseApi,
};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::suivi::format::neutraliser;
use crate::transport::vigiechiro::{ClientVigieChiro, meme_instant};
use crate::transport::{Emetteur, Emission, EnVol, ReglagesEmission};

/// Un client authentifié par le jeton courant (`VIGIE_JETON` ou `vigie connexion`).
pub(super) fn client(api: &str) -> Result<ClientVigieChiro> {
    let jeton = jeton::lire()?;
    ClientVigieChiro::nouveau(api, &jeton).map_err(anyhow::Error::msg)
}

/// Un émetteur aux réglages par défaut (commandes ponctuelles : connexion, traiter).
fn emetteur_par_defaut() -> Result<Emetteur> {
    Ok(Emetteur::nouveau(
        ReglagesEmission {
            insistant: Reglages::insistant()
                .avec_echeance(std::time::Duration::from_secs(120))
                .valider()?,
            bref: Reglages::bref().valider()?,
            delai_tentative: std::time::Duration::from_secs(90),
            delai_blocage: std::time::Duration::from_secs(30),
            echecs_reseau: 3,
        },
        Annulation::new(),
    ))
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("démarrage du moteur asynchrone")
}

/// `vigie connexion --jeton JETON` : vérifie le jeton (`GET /moi`) puis l'enregistre.
pub(super) fn connexion(g: &OptionsGlobales, args: ArgsConnexion) -> Result<CodeSortie> {
    let api = valider_endpoint(&args.api.url, false)?;
    let jeton = if args.jeton == "-" {
        lire_jeton_colle()?
    } else {
        args.jeton.clone()
    };
    let jeton = jeton::valider(&jeton)?.to_owned();
    let client = ClientVigieChiro::nouveau(&api, &jeton).map_err(anyhow::Error::msg)?;
    let emetteur = emetteur_par_defaut()?;
    let issue = runtime()?.block_on(emetteur.emettre(
        Emission {
            methode: "GET",
            cible: "/moi",
            profil: Profil::Insistant,
            rejouabilite: Rejouabilite::Rejouable,
        },
        &ObservateurMuet,
        &EnVol::default(),
        |_| client.moi(),
    ));
    let utilisateur = match issue.reponse {
        ReponseApi::Succes(u) => u,
        ReponseApi::Refuse {
            statut: 401 | 403, ..
        } => bail!(
            "jeton refusé par la plateforme (expiré ou mal copié) : reconnectez-vous sur le site et recopiez le jeton de l'adresse (?token=…)"
        ),
        autre => {
            return Err(ErreurAvecCode::new(
                CodeSortie::EchecsTransitoires,
                format!(
                    "le jeton n'a pas pu être vérifié : {} ; rien n'a été enregistré",
                    pas_de_reponse_utile(&autre)
                ),
            )
            .into());
        }
    };
    let chemin = jeton::ecrire(&jeton)?;
    if !g.quiet {
        writeln!(
            io::stdout().lock(),
            "Connecté en tant que {} ; jeton enregistré dans {} (lisible par vous seul).",
            neutraliser(utilisateur.pseudo.as_deref().unwrap_or(&utilisateur.id)),
            chemin.display()
        )?;
    }
    if std::env::var_os("VIGIE_JETON").is_some() {
        eprintln!("attention : VIGIE_JETON est défini et l'emporte sur le jeton enregistré");
    }
    Ok(CodeSortie::Succes)
}

/// Ce qu'on dit quand une commande ponctuelle n'a eu ni succès ni refus : le serveur a répondu
/// qu'il était indisponible (5xx, 429), ou on ne l'a pas joint. Un 503 n'est pas une coupure du
/// réseau : les deux ne se disent pas pareil.
fn pas_de_reponse_utile<T>(r: &ReponseApi<T>) -> String {
    match r {
        ReponseApi::Refuse { statut, .. } => format!(
            "la plateforme répond qu'elle est indisponible pour l'instant ({statut}) ; réessayez dans quelques minutes"
        ),
        autre => format!(
            "plateforme injoignable ({}) ; réessayez quand le réseau sera revenu",
            autre.detail().unwrap_or("sans détail")
        ),
    }
}

/// Le jeton de `--jeton -` : dans un terminal, à une invite et sans écho (il ne reste ni à
/// l'écran ni dans le défilement) ; sinon lu tel quel sur l'entrée standard
/// (`echo "$JETON" | vigie connexion --jeton -`).
fn lire_jeton_colle() -> Result<String> {
    use std::io::IsTerminal;
    if io::stdin().is_terminal() {
        // L'invite va où l'utilisateur regarde : la sortie d'erreur, ou à défaut la sortie
        // standard, pourvu que ce soit un terminal.
        let terminal = [console::Term::stderr(), console::Term::stdout()]
            .into_iter()
            .find(console::Term::is_term);
        if let Some(t) = terminal {
            t.write_str("Collez le jeton copié sur le site (il ne s'affiche pas), puis Entrée : ")
                .context("invite du jeton")?;
            return t.read_secure_line().context("lecture du jeton");
        }
    }
    let mut ligne = String::new();
    io::stdin()
        .lock()
        .read_line(&mut ligne)
        .context("lecture du jeton")?;
    Ok(ligne)
}

/// `vigie deconnexion` : efface le jeton enregistré.
pub(super) fn deconnexion(g: &OptionsGlobales) -> Result<CodeSortie> {
    let efface = jeton::effacer()?;
    if !g.quiet {
        let message = if efface {
            "Jeton effacé."
        } else {
            "Aucun jeton enregistré."
        };
        writeln!(io::stdout().lock(), "{message}")?;
    }
    Ok(CodeSortie::Succes)
}

/// `vigie traiter --participation ID` : lance le calcul, une seule émission, jamais rejouée (un
/// nouveau calcul efface les données déjà produites).
pub(super) fn traiter(g: &OptionsGlobales, args: ArgsTraiter) -> Result<CodeSortie> {
    let api = valider_endpoint(&args.api.url, false)?;
    let cible = CibleParticipation::Existante(args.participation.clone());
    DestinationVigieChiro::nouvelle(&api, cible, false)?;
    let client = client(&api)?;
    let emetteur = emetteur_par_defaut()?;
    let chemin = format!("/participations/{}/compute", args.participation);
    let issue = runtime()?.block_on(emetteur.emettre(
        Emission {
            methode: "POST",
            cible: &chemin,
            profil: Profil::Insistant,
            rejouabilite: Rejouabilite::NonRejouable,
        },
        &ObservateurMuet,
        &EnVol::default(),
        |_| client.lancer_calcul(&args.participation),
    ));
    let mut s = io::stdout().lock();
    match (&issue.reponse, issue.raison) {
        (ReponseApi::Succes(()), _) => {
            if !g.quiet {
                writeln!(s, "Calcul lancé pour la participation {}.", args.participation)?;
            }
            Ok(CodeSortie::Succes)
        }
        (ReponseApi::Refuse { statut: 400, detail, .. }, _) if detail.contains("Already") => {
            writeln!(
                s,
                "La plateforme répond que le calcul est déjà planifié ou en cours ({}) : rien n'a été relancé.",
                neutraliser(detail)
            )?;
            Ok(CodeSortie::Succes)
        }
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::new(CodeSortie::RefusDefinitifs, MESSAGE_JETON_REFUSE).into())
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => Err(ErreurAvecCode::new(
            CodeSortie::RefusDefinitifs,
            format!("la plateforme refuse le calcul ({statut}) : {detail}"),
        )
        .into()),
        (_, RaisonArret::IssueInconnue) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            "le lancement du calcul est parti sans réponse : vérifiez sur le site s'il est planifié avant de relancer \
             (un nouveau calcul efface les données déjà produites)",
        )
        .into()),
        (autre, _) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!(
                "le calcul n'a pas été lancé : {}",
                pas_de_reponse_utile(autre)
            ),
        )
        .into()),
    }
}

/// La participation du plan : celle donnée, celle déjà créée pour ce plan, ou créée maintenant
/// (une seule fois). Une création restée sans réponse se réconcilie en relisant les
/// participations du site (même point, mêmes dates) avant toute nouvelle émission.
pub(super) async fn resoudre_participation(
    base: &Base,
    plan_id: i64,
    dest: &DestinationVigieChiro,
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
) -> Result<String> {
    let (site, point, debut, fin) = match &dest.participation {
        CibleParticipation::Existante(id) => return Ok(id.clone()),
        CibleParticipation::ACreer {
            site,
            point,
            debut,
            fin,
        } => (site, point, debut, fin),
    };
    let (connue, emise) = base.participation(plan_id)?;
    if let Some(id) = connue {
        return Ok(id);
    }
    let chemin = format!("/sites/{site}/participations");
    let relire = || async {
        let issue = emetteur
            .emettre(
                Emission {
                    methode: "GET",
                    cible: &chemin,
                    profil: Profil::Insistant,
                    rejouabilite: Rejouabilite::Rejouable,
                },
                &ObservateurMuet,
                &EnVol::default(),
                |_| client.participations(site),
            )
            .await;
        match issue.reponse {
            ReponseApi::Succes(liste) => Ok(liste
                .into_iter()
                .filter(|p| {
                    p.point.as_deref() == Some(point.as_str())
                        && p.date_debut
                            .as_deref()
                            .is_some_and(|d| meme_instant(d, debut))
                        && p.date_fin.as_deref().is_some_and(|f| meme_instant(f, fin))
                })
                .map(|p| p.id)
                .next_back()),
            autre => Err(autre),
        }
    };
    // Une création émise lors d'un passage précédent, sans issue connue : relire d'abord.
    if emise.is_some() {
        match relire().await {
            Ok(Some(id)) => {
                base.enregistrer_participation(plan_id, &id)?;
                return Ok(id);
            }
            Ok(None) => {}
            Err(r) => return Err(participation_incertaine(&r)),
        }
    }
    for _ in 0..2 {
        base.noter_creation_participation(plan_id)?;
        let issue = emetteur
            .emettre(
                Emission {
                    methode: "POST",
                    cible: &chemin,
                    profil: Profil::Insistant,
                    rejouabilite: Rejouabilite::NonRejouable,
                },
                &ObservateurMuet,
                &EnVol::default(),
                |_| client.creer_participation(site, point, debut, fin),
            )
            .await;
        match (issue.reponse, issue.raison) {
            (ReponseApi::Succes(id), _) => {
                base.enregistrer_participation(plan_id, &id)?;
                return Ok(id);
            }
            (_, RaisonArret::IssueInconnue) => match relire().await {
                Ok(Some(id)) => {
                    base.enregistrer_participation(plan_id, &id)?;
                    return Ok(id);
                }
                // Relue sans elle : la création n'a pas eu lieu, on peut la réémettre.
                Ok(None) => continue,
                Err(r) => return Err(participation_incertaine(&r)),
            },
            (ReponseApi::Refuse { statut: 401, .. }, _) => {
                return Err(
                    ErreurAvecCode::new(CodeSortie::RefusDefinitifs, MESSAGE_JETON_REFUSE).into(),
                );
            }
            (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => {
                return Err(ErreurAvecCode::new(
                    CodeSortie::RefusDefinitifs,
                    format!(
                        "la plateforme refuse de créer la participation ({statut} : {detail}) : le site doit être \
                         verrouillé et votre compte d'observateur validé ; rien n'a été envoyé"
                    ),
                )
                .into());
            }
            (autre, _) => {
                return Err(ErreurAvecCode::new(
                    CodeSortie::EchecsTransitoires,
                    format!(
                        "plateforme injoignable pour créer la participation ({}) : relancez la même commande",
                        autre.detail().unwrap_or("")
                    ),
                )
                .into());
            }
        }
    }
    Err(ErreurAvecCode::new(
        CodeSortie::EchecsTransitoires,
        "création de la participation restée sans issue : relancez la même commande (elle vérifiera avant de recréer)",
    )
    .into())
}

fn participation_incertaine<T>(r: &ReponseApi<T>) -> anyhow::Error {
    ErreurAvecCode::new(
        CodeSortie::EchecsTransitoires,
        format!(
            "la création de la participation est partie sans réponse et la plateforme est injoignable pour la vérifier ({}) : \
             relancez la même commande, elle vérifiera avant de recréer",
            r.detail().unwrap_or("")
        ),
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn un_503_n_est_pas_une_coupure_du_reseau() {
        let refus: ReponseApi<()> = ReponseApi::Refuse {
            statut: 503,
            retry_after: None,
            detail: "Service Unavailable".into(),
        };
        assert_eq!(
            pas_de_reponse_utile(&refus),
            "la plateforme répond qu'elle est indisponible pour l'instant (503) ; réessayez dans quelques minutes"
        );
        let coupure: ReponseApi<()> = ReponseApi::Injoignable {
            a_pu_atteindre: false,
            detail: "connexion refusée".into(),
        };
        assert_eq!(
            pas_de_reponse_utile(&coupure),
            "plateforme injoignable (connexion refusée) ; réessayez quand le réseau sera revenu"
        );
    }
}
