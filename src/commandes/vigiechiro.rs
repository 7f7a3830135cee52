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
    Annulation, Etape, ObservateurMuet, Profil, RaisonArret, Reglages, Rejouabilite, Releve,
    ReponseApi,
};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::vigiechiro::{ClientVigieChiro, Participation, meme_instant};
use crate::transport::{Emetteur, Emission, EnVol, ReglagesEmission};

/// Un client authentifié par le jeton courant (`VIGIE_JETON` ou `vigie connexion`).
pub(super) fn client(api: &str) -> Result<ClientVigieChiro> {
    let jeton = jeton::lire()?;
    ClientVigieChiro::nouveau(api, &jeton).map_err(anyhow::Error::msg)
}

/// Un émetteur aux réglages par défaut, pour une commande ponctuelle (connexion, traiter) :
/// quelqu'un attend la réponse, il n'y a donc pas de pause réseau (elle pourrait durer dix
/// minutes) ; l'émission s'arrête sur sa politique, 2 minutes au plus.
fn emetteur_ponctuel(annulation: Annulation) -> Result<Emetteur> {
    Ok(Emetteur::nouveau(
        ReglagesEmission {
            insistant: Reglages::insistant()
                .avec_echeance(std::time::Duration::from_secs(120))
                .valider()?,
            bref: Reglages::bref().valider()?,
            delai_tentative: std::time::Duration::from_secs(90),
            delai_blocage: std::time::Duration::from_secs(30),
            pause: None,
        },
        annulation,
    ))
}

/// Mène une émission ponctuelle sur son propre runtime, Ctrl-C et SIGTERM compris (code 130).
fn emettre_ponctuel<T, F, Fut>(
    emission: Emission<'_>,
    tentative: F,
) -> Result<crate::reessai::Issue<T>>
where
    F: FnMut(std::sync::Arc<crate::transport::corps::Progression>) -> Fut,
    Fut: std::future::Future<Output = ReponseApi<T>>,
{
    let annulation = Annulation::new();
    let emetteur = emetteur_ponctuel(annulation.clone())?;
    let issue = runtime()?.block_on(async {
        super::ecouter_signaux(annulation.clone(), None);
        emetteur
            .emettre(emission, &ObservateurMuet, &EnVol::default(), tentative)
            .await
    });
    if issue.raison == RaisonArret::Annule {
        return Err(super::interrompu());
    }
    Ok(issue)
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
        let mut ligne = String::new();
        io::stdin()
            .lock()
            .read_line(&mut ligne)
            .context("lecture du jeton")?;
        ligne
    } else {
        args.jeton.clone()
    };
    let jeton = jeton::valider(&jeton)?.to_owned();
    let client = ClientVigieChiro::nouveau(&api, &jeton).map_err(anyhow::Error::msg)?;
    let issue = emettre_ponctuel(
        Emission {
            methode: "GET",
            cible: "/moi",
            profil: Profil::Insistant,
            rejouabilite: Rejouabilite::Rejouable,
        },
        |_| client.moi(),
    )?;
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
                    "plateforme injoignable pour vérifier le jeton ({}) : réessayez quand le réseau reviendra",
                    autre.detail().unwrap_or("")
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
            utilisateur.pseudo.as_deref().unwrap_or(&utilisateur.id),
            chemin.display()
        )?;
    }
    if std::env::var_os("VIGIE_JETON").is_some() {
        eprintln!("attention : VIGIE_JETON est défini et l'emporte sur le jeton enregistré");
    }
    Ok(CodeSortie::Succes)
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
    let chemin = format!("/participations/{}/compute", args.participation);
    let issue = emettre_ponctuel(
        Emission {
            methode: "POST",
            cible: &chemin,
            profil: Profil::Insistant,
            rejouabilite: Rejouabilite::NonRejouable,
        },
        |_| client.lancer_calcul(&args.participation),
    )?;
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
                "La plateforme répond que le calcul est déjà planifié ou en cours ({detail}) : rien n'a été relancé."
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
                "plateforme injoignable, rien n'est parti ({}) : relancez vigie traiter plus tard",
                autre.detail().unwrap_or("")
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
    // Relit les participations du site (dans le budget de `etape`) : celle de ce point et de ces
    // dates, si elle existe.
    let relire = |etape: Etape| {
        let chemin = &chemin;
        async move {
            let issue = emetteur
                .emettre_dans(
                    &etape,
                    Emission {
                        methode: "GET",
                        cible: chemin,
                        profil: Profil::Insistant,
                        rejouabilite: Rejouabilite::Rejouable,
                    },
                    &ObservateurMuet,
                    &EnVol::default(),
                    |_| client.participations(site),
                    None::<fn(Etape) -> std::future::Ready<Releve<Vec<Participation>>>>,
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
        }
    };
    // Une création émise lors d'un passage précédent, sans issue connue : relire d'abord.
    if emise.is_some() {
        match relire(Etape::nouvelle()).await {
            Ok(Some(id)) => {
                base.enregistrer_participation(plan_id, &id)?;
                return Ok(id);
            }
            Ok(None) => {}
            Err(r) => return Err(participation_incertaine(&r)),
        }
    }
    base.noter_creation_participation(plan_id)?;
    // Une émission ; sans réponse, la relecture dit si la participation existe (adoptée) ou non
    // (la création repart, dans le budget d'une seule émission).
    let issue = emetteur
        .emettre_dans(
            &Etape::nouvelle(),
            Emission {
                methode: "POST",
                cible: &chemin,
                profil: Profil::Insistant,
                rejouabilite: Rejouabilite::NonRejouable,
            },
            &ObservateurMuet,
            &EnVol::default(),
            |_| client.creer_participation(site, point, debut, fin),
            Some(|etape| {
                let relire = &relire;
                async move {
                    match relire(etape).await {
                        Ok(Some(id)) => Releve::Faite(id),
                        Ok(None) => Releve::Nulle,
                        Err(_) => Releve::Inconnue,
                    }
                }
            }),
        )
        .await;
    match (issue.reponse, issue.raison) {
        (ReponseApi::Succes(id), _) => {
            base.enregistrer_participation(plan_id, &id)?;
            Ok(id)
        }
        (r, RaisonArret::IssueInconnue) => Err(participation_incertaine(&r)),
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::new(CodeSortie::RefusDefinitifs, MESSAGE_JETON_REFUSE).into())
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => {
            Err(ErreurAvecCode::new(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de créer la participation ({statut} : {detail}) : le site doit être \
                     verrouillé et votre compte d'observateur validé ; rien n'a été envoyé"
                ),
            )
            .into())
        }
        (autre, _) => Err(ErreurAvecCode::new(
            CodeSortie::EchecsTransitoires,
            format!(
                "plateforme injoignable pour créer la participation ({}) : relancez la même commande",
                autre.detail().unwrap_or("")
            ),
        )
        .into()),
    }
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
