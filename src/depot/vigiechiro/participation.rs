//! La participation d'un plan vers Vigie-Chiro : celle donnée, celle déjà créée pour ce plan,
//! ou créée maintenant, une seule fois, et gardée dans le plan. Une création restée sans
//! réponse se réconcilie en relisant les participations du site avant toute nouvelle
//! émission. Chaque décision de réessai (création, relecture) va au journal des décisions du
//! plan, comme celles des unités.
//!
//! Pourquoi ici et pas dans `commandes/` : c'est du domaine (une écriture non rejouable, sa
//! réconciliation, ses écritures en base) ; la commande ne fait que câbler.

use anyhow::Result;
use futures_util::FutureExt;

use crate::depot::DecisionsDuPlan as DecisionsParticipation;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::depot::vigiechiro::message_jeton_refuse;
use crate::destination::{CibleParticipation, IdObjet};
use crate::horodatage::InstantUtc;
use crate::plan::{Base, PointEcoute};
use crate::reessai::{Etape, Profil, RaisonArret, Rejouabilite, Releve, ReponseApi};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::vigiechiro::{
    ClientVigieChiro, Participation, ReponseMoi, SiteDeParticipation,
};
use crate::transport::{Emetteur, Emission, emettre};

/// La participation du plan : celle donnée, celle déjà créée pour ce plan, ou créée maintenant
/// (une seule fois). Une création restée sans réponse se réconcilie en relisant les
/// participations du site (même point, mêmes instants) avant toute nouvelle émission. Elle est
/// gardée dans le plan, d'où `vigie etat`, `vigie plans` et `vigie traiter` la relisent.
/// `moi` : l'utilisateur du jeton, s'il est déjà connu (les vérifications d'avant l'envoi l'ont
/// lu) ; sinon il est relu, la création en ayant besoin.
///
/// Sous la veille du réseau de `emetteur` (sa sonde : `GET /moi`) : une coupure pendant la
/// création est sondée et bornée comme pendant le dépôt.
pub(crate) async fn resoudre_participation(
    base: &Base,
    plan_id: i64,
    dest: &DestinationVigieChiro,
    moi: Option<&IdObjet>,
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    annonces: &dyn crate::transport::AnnoncesReseau,
) -> Result<IdObjet> {
    let journal = DecisionsParticipation::default();
    let issue = crate::transport::sous_veille(
        emetteur,
        resoudre(base, plan_id, dest, moi, client, emetteur, &journal),
        || async { client.moi().await.map(|_| ()) },
        annonces,
    )
    .await;
    journal.ecrire(base, plan_id);
    issue
}

async fn resoudre(
    base: &Base,
    plan_id: i64,
    dest: &DestinationVigieChiro,
    moi: Option<&IdObjet>,
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    journal: &DecisionsParticipation,
) -> Result<IdObjet> {
    let (connue, emise) = base.participation(plan_id)?;
    let connue = connue.as_deref().and_then(IdObjet::analyser);
    let (site, point, debut, fin) = match &dest.participation {
        CibleParticipation::Existante(id) => {
            if connue.as_ref() != Some(id) {
                base.enregistrer_participation(plan_id, id.as_str())?;
            }
            decrire(base, dest, client, emetteur, journal, id).await;
            return Ok(id.clone());
        }
        CibleParticipation::ACreer {
            site,
            point,
            debut,
            fin,
        } => (site, point, *debut, *fin),
    };
    if let Some(id) = connue {
        decrire(base, dest, client, emetteur, journal, &id).await;
        return Ok(id);
    }
    // Qui crée : la relecture ne retient que ses participations (la liste d'un site est celle
    // de tous ses observateurs).
    let moi = match moi {
        Some(m) => m.clone(),
        None => utilisateur(client, emetteur, journal).await?,
    };
    // Les participations que tiennent déjà d'autres plans de la base ne sont pas celle-ci.
    let prises: Vec<IdObjet> = base
        .plans()?
        .into_iter()
        .filter(|p| p.id != plan_id)
        .filter_map(|p| p.participation.as_deref().and_then(IdObjet::analyser))
        .collect();
    let chemin = format!("/sites/{site}/participations");
    // Relit les participations du site (dans le budget de `etape`) : celle que la création
    // demandée aurait faite, si elle existe (voir [`la_demandee`]).
    let relire = |etape: Etape| {
        let (chemin, prises, moi) = (&chemin, &prises, &moi);
        async move {
            let issue = emettre(
                &emetteur.observe_par(journal),
                Emission::lecture("GET", chemin).dans(&etape),
                |_| client.participations(site),
            )
            .await;
            match issue.reponse {
                ReponseApi::Succes(liste) => Ok(la_demandee(
                    liste,
                    &Demande {
                        observateur: moi,
                        point: point.as_deref(),
                        debut,
                        fin,
                    },
                    prises,
                )),
                autre => Err(autre),
            }
        }
    };
    // Une création émise lors d'un passage précédent, sans issue connue : relire d'abord.
    if emise.is_some() {
        match relire(Etape::nouveau()).await {
            Ok(Some(id)) => {
                base.enregistrer_participation(plan_id, id.as_str())?;
                decrire(base, dest, client, emetteur, journal, &id).await;
                return Ok(id);
            }
            Ok(None) => {}
            Err(r) => return Err(participation_incertaine(&r)),
        }
    }
    // Les micros du point : ceux des options, par-dessus ceux que la base retient.
    let description = avec_le_micro_du_point(
        base,
        PointEcoute {
            api: &dest.api,
            site: site.as_str(),
            point: point.as_deref().unwrap_or(""),
        },
        point.is_some(),
        &dest.description,
    )?;
    base.noter_creation_participation(plan_id)?;
    // Une émission ; sans réponse, la relecture dit si la participation existe (adoptée) ou non
    // (la création repart, dans le budget d'une seule émission).
    let mut relecture = |etape| {
        let relire = &relire;
        async move {
            match relire(etape).await {
                Ok(Some(id)) => Releve::Faite(id),
                Ok(None) => Releve::Nulle,
                Err(_) => Releve::Inconnue,
            }
        }
        .boxed()
    };
    let issue = emettre(
        &emetteur.observe_par(journal),
        Emission::ecriture_relue("POST", &chemin, &mut relecture),
        |_| client.creer_participation(site, point.as_deref(), debut, fin, &description),
    )
    .await;
    match (issue.reponse, issue.raison) {
        (ReponseApi::Succes(id), _) => {
            base.enregistrer_participation(plan_id, id.as_str())?;
            dire_ce_qui_manque(
                &id,
                &description.configuration(point.is_some()),
                point.is_some(),
            );
            Ok(id)
        }
        (r, RaisonArret::IssueInconnue) => Err(participation_incertaine(&r)),
        (ReponseApi::Refuse { statut: 401, .. }, _) => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()).into())
        }
        (ReponseApi::Refuse { statut, detail, .. }, RaisonArret::RefusDefinitif) => {
            Err(ErreurAvecCode::nouveau(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de créer la participation, rien n'a été envoyé \
                     ({statut} : {detail}){}",
                    geste_creation(&detail)
                ),
            )
            .into())
        }
        (autre, _) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "la participation n'a pas pu être créée, rien n'a été envoyé : {}",
                pas_de_reponse_utile(&autre)
            ),
        )
        .into()),
    }
}

/// Complète `configuration` et `meteo` de la participation `id` avec ce que `vigie` sait
/// (les options, et les micros que la base retient pour son point : [`avec_le_micro_du_point`]),
/// sans rien effacer ni remplacer de ce que le site web y a mis : relire, fusionner
/// (`description::completer`), écrire le dictionnaire entier, car le `PATCH` le remplace
/// (`resources/participations.py` `edit_participation`). Rien à ajouter : rien n'est écrit.
/// Au mieux : un échec est dit dans le journal, le dépôt continue, la relance réessaiera.
async fn decrire(
    base: &Base,
    dest: &DestinationVigieChiro,
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    journal: &DecisionsParticipation,
    id: &IdObjet,
) {
    let options = &*dest.description;
    // Ni option ni micro retenu vers cette API : rien à dire, rien à relire.
    if options == &crate::description::Description::default()
        && !base.micros_retenus(&dest.api).unwrap_or(true)
    {
        return;
    }
    let chemin = format!("/participations/{id}");
    let lue = emettre(
        &emetteur.observe_par(journal),
        Emission::lecture("GET", &chemin),
        |_| client.participation(id),
    )
    .await;
    let p = match lue.reponse {
        ReponseApi::Succes(Some(p)) => p,
        autre => {
            tracing::warn!(
                "la participation {id} n'a pas été relue, sa configuration n'est pas complétée : {}",
                pas_de_reponse_utile(&autre)
            );
            return;
        }
    };
    let point_fixe = p.point.as_deref().is_some_and(|p| !p.is_empty());
    let site = match &p.site {
        Some(SiteDeParticipation::Developpe(s)) => Some(s.id.clone()),
        Some(SiteDeParticipation::Identifiant(s)) => Some(s.clone()),
        None => None,
    };
    let description = match &site {
        Some(site) => avec_le_micro_du_point(
            base,
            PointEcoute {
                api: &dest.api,
                site: site.as_str(),
                point: p.point.as_deref().map(str::trim).unwrap_or(""),
            },
            point_fixe,
            options,
        )
        .unwrap_or_else(|e| {
            tracing::warn!("le micro retenu du point n'a pas été lu : {e:#}");
            options.clone()
        }),
        None => options.clone(),
    };
    let meteo = description.meteo();
    let mut corps = serde_json::Map::new();
    let completer = crate::description::completer;
    if let Some(c) = completer(
        &p.configuration.clone().unwrap_or_default(),
        &description.configuration(point_fixe),
    ) {
        corps.insert("configuration".into(), c.into());
    }
    if let Some(m) = completer(&p.meteo.clone().unwrap_or_default(), &meteo) {
        corps.insert("meteo".into(), m.into());
    }
    let finale = match corps.get("configuration") {
        Some(serde_json::Value::Object(c)) => c.clone(),
        _ => p.configuration.clone().unwrap_or_default(),
    };
    dire_ce_qui_manque(id, &finale, point_fixe);
    if corps.is_empty() {
        return;
    }
    let corps = serde_json::Value::Object(corps);
    let issue = emettre(
        &emetteur.observe_par(journal),
        Emission::ecriture_unique("PATCH", &chemin),
        |_| client.modifier_participation(id, p.etag.as_deref(), &corps),
    )
    .await;
    match issue.reponse {
        ReponseApi::Succes(()) => {
            tracing::info!("participation {id} complétée : {corps}");
        }
        autre => tracing::warn!(
            "la configuration de la participation {id} n'a pas été complétée : {} ; une \
             relance réessaiera",
            pas_de_reponse_utile(&autre)
        ),
    }
}

/// La description d'une participation à un point, avec ses micros (le premier, et en point
/// fixe le second : `micro1_*`) : chacun celui que disent les options, par-dessus celui que la
/// base retient à ce rang pour ce point (chaque valeur donnée remplace la retenue, et le dit),
/// retenu à son tour pour les passages suivants ; sans option, le retenu est repris tel quel.
fn avec_le_micro_du_point(
    base: &Base,
    point: PointEcoute<'_>,
    point_fixe: bool,
    description: &crate::description::Description,
) -> Result<crate::description::Description> {
    let sans_effet = description.options_sans_effet(point_fixe);
    if !sans_effet.is_empty() {
        tracing::warn!(
            "{} sans effet pour un site {} : ignoré",
            sans_effet.join(", "),
            if point_fixe {
                "point fixe (les canaux ne se disent qu'en routier ou pédestre)"
            } else {
                "routier ou pédestre (un seul micro, sans position ni hauteur : --micro-type et \
                 --micro-numero-serie)"
            }
        );
    }
    let mut decrite = description.clone();
    for (rang, donne) in description.micros_du_site(point_fixe).iter().enumerate() {
        if let Some(micro) = micro_retenu(base, point, rang, donne)? {
            decrite = decrite.avec_micro(point_fixe, rang, micro);
        }
    }
    Ok(decrite)
}

/// Le micro de ce rang pour ce point : `donne` (celui des options) par-dessus celui que la base
/// retient, retenu à son tour ; `None` si ni l'un ni l'autre ne dit rien.
fn micro_retenu(
    base: &Base,
    point: PointEcoute<'_>,
    rang: usize,
    donne: &crate::description::Micro,
) -> Result<Option<crate::description::Micro>> {
    let lieu = format!(
        "{} {}",
        if rang == 0 { "micro" } else { "second micro" },
        if point.point.is_empty() {
            format!("du site {}", point.site)
        } else {
            format!("du point {}", point.point)
        }
    );
    let micro = match base.micro_du_point(point, rang)? {
        None if donne.est_vide() => return Ok(None),
        None => {
            base.retenir_micro(point, rang, donne)?;
            tracing::info!(
                "{lieu} retenu pour ses passages suivants : {}",
                donne.dire(rang)
            );
            donne.clone()
        }
        Some(retenu) => {
            let micro = donne.par_dessus(&retenu);
            let remplacees = micro.remplacements(&retenu, rang);
            if micro != retenu {
                base.retenir_micro(point, rang, &micro)?;
            }
            if !remplacees.is_empty() {
                tracing::warn!(
                    "{lieu} remplacé ({}) : le nouveau est retenu pour ses passages suivants",
                    remplacees.join(", ")
                );
            } else if micro != retenu {
                tracing::info!("{lieu} complété, retenu : {}", micro.dire(rang));
            } else {
                tracing::info!(
                    "{lieu} repris de ses passages précédents : {} (redonner l'une de ces \
                     options la remplace)",
                    micro.dire(rang)
                );
            }
            micro
        }
    };
    Ok(Some(micro))
}

/// Les canaux d'un routier que la configuration ne dit pas, dits (le calcul les lit : sans eux,
/// tout est traité comme expansé ×10).
fn dire_ce_qui_manque(
    id: &IdObjet,
    configuration: &serde_json::Map<String, serde_json::Value>,
    point_fixe: bool,
) {
    let manque = crate::description::canaux_manquants(configuration, point_fixe);
    if !manque.is_empty() {
        tracing::warn!(
            "la participation {id} ne dit pas ses canaux ({}) : le calcul traitera tout comme \
             expansé ×10 ; donnez --canal-expansion et --canal-direct (GAUCHE, DROITE ou \
             ABSENT), ou complétez-la sur le site web",
            manque.join(", ")
        );
    }
}

/// Ce que la création a demandé, pour la retrouver dans la liste des participations du site.
struct Demande<'a> {
    observateur: &'a IdObjet,
    point: Option<&'a str>,
    debut: InstantUtc,
    fin: InstantUtc,
}

/// La participation que la création demandée aurait faite, parmi celles du site : de cet
/// observateur (la liste est celle de tous les observateurs du site), à ce point (aucun pour un
/// site routier : absent ou vide), à ces instants (rendus en `isoformat()` sans fuseau, UTC
/// implicite), et qu'aucun autre plan ne tient déjà. S'il y en a plusieurs (une créée à la main
/// avant, avec les mêmes valeurs), la plus récemment créée (`_created`, puis l'identifiant, dont
/// le début est l'instant de création) : celle de la création restée sans réponse. Jamais « la
/// dernière de la liste » : `list_site_participations` (`resources/participations.py`) ne trie
/// pas.
fn la_demandee(
    liste: Vec<Participation>,
    demande: &Demande<'_>,
    prises: &[IdObjet],
) -> Option<IdObjet> {
    let point = |p: &Participation| {
        p.point
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
    };
    liste
        .into_iter()
        .filter(|p| p.observateur.as_ref().map(|o| &o.id) == Some(demande.observateur))
        .filter(|p| point(p).as_deref() == demande.point)
        .filter(|p| p.date_debut.as_deref().and_then(InstantUtc::lire) == Some(demande.debut))
        .filter(|p| p.date_fin.as_deref().and_then(InstantUtc::lire) == Some(demande.fin))
        .filter(|p| !prises.contains(&p.id))
        .max_by_key(|p| (p.creee.as_deref().and_then(InstantUtc::lire), p.id.clone()))
        .map(|p| p.id)
}

/// `GET /moi` (lecture, rejouable, au journal du plan) : l'utilisateur qui crée la
/// participation.
async fn utilisateur(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    journal: &DecisionsParticipation,
) -> Result<IdObjet> {
    let issue = emettre(
        &emetteur.observe_par(journal),
        Emission::nouveau("GET", "/moi", Profil::Insistant, Rejouabilite::Rejouable),
        |_| client.moi(),
    )
    .await;
    match issue.reponse {
        ReponseApi::Succes(ReponseMoi::Utilisateur(u)) => Ok(u.id),
        ReponseApi::Refuse { statut: 401, .. } => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()).into())
        }
        autre => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "la participation n'a pas pu être créée, rien n'a été envoyé : {}",
                match autre {
                    ReponseApi::Succes(ReponseMoi::PasLApi(nature)) =>
                        format!("l'adresse de l'API ne rend plus l'utilisateur ({nature})"),
                    autre => pas_de_reponse_utile(&autre),
                }
            ),
        )
        .into()),
    }
}

/// Le geste qui répond aux refus que rend la création d'une participation
/// (`resources/participations.py` `create_participation`,
/// `resources/utilisateurs.py` `ensure_protocole_joined_and_validated`).
fn geste_creation(detail: &str) -> &'static str {
    if detail.contains("no site with this id") {
        " : ce site n'existe pas, vérifiez --site (fin de l'adresse de la page du site)"
    } else if detail.contains("not registered to protocole") {
        " : vous n'êtes pas inscrit au protocole de ce site ; inscrivez-vous sur le site web"
    } else if detail.contains("not yet validated") {
        " : votre inscription au protocole de ce site n'est pas encore validée par ses \
         animateurs ; attendez leur validation (le site web, qui passe par la même route, \
         refuserait de même), puis relancez la même commande"
    } else {
        ""
    }
}

fn participation_incertaine<T>(r: &ReponseApi<T>) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "la création de la participation est partie sans réponse et la plateforme est injoignable pour la vérifier ({}) : \
             relancez la même commande, elle vérifiera avant de recréer",
            r.detail().unwrap_or("")
        ),
    )
    .into()
}

/// Ce qu'on dit quand une commande ponctuelle n'a eu ni succès ni refus attendu : le serveur a
/// répondu qu'il était indisponible (5xx, 429), ou on ne l'a pas joint. Un 503 n'est pas une
/// coupure du réseau : les deux ne se disent pas pareil. Un autre refus (une redirection non
/// suivie, un 4xx inattendu) se dit tel quel : ce n'est pas une indisponibilité.
pub(crate) fn pas_de_reponse_utile<T>(r: &ReponseApi<T>) -> String {
    match r {
        ReponseApi::Refuse { statut, .. } if *statut == 429 || *statut >= 500 => format!(
            "la plateforme répond qu'elle est indisponible pour l'instant ({statut}) ; réessayez dans quelques minutes"
        ),
        ReponseApi::Refuse {
            statut: 300..=399,
            detail,
            ..
        } => detail.clone(),
        ReponseApi::Refuse { statut, detail, .. } => {
            format!("la plateforme refuse la requête ({statut} : {detail})")
        }
        // Ni la plateforme ni une coupure : le message dit le geste.
        ReponseApi::CertificatRefuse { detail } => detail.clone(),
        // Elle a répondu, mais rien d'exploitable : ce n'est pas non plus une coupure.
        ReponseApi::Illisible { detail, .. } => format!(
            "la plateforme a rendu une réponse inexploitable ({detail}) ; réessayez dans quelques minutes"
        ),
        autre => format!(
            "plateforme injoignable ({}) ; réessayez quand le réseau sera revenu",
            autre.detail().unwrap_or("sans détail")
        ),
    }
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
        let refus: ReponseApi<()> = ReponseApi::Refuse {
            statut: 422,
            retry_after: None,
            detail: "titre : invalid".into(),
        };
        assert_eq!(
            pas_de_reponse_utile(&refus),
            "la plateforme refuse la requête (422 : titre : invalid)"
        );
        let illisible: ReponseApi<()> = ReponseApi::Illisible {
            statut: 200,
            detail: "réponse illisible (statut 200) : JSON inattendu".into(),
        };
        assert!(
            pas_de_reponse_utile(&illisible).starts_with("la plateforme a rendu une réponse"),
            "{}",
            pas_de_reponse_utile(&illisible)
        );
    }

    fn id(n: u32) -> IdObjet {
        IdObjet::analyser(&format!("64a1b2c3d4e5f6071829{n:04x}")).expect("identifiant")
    }

    fn participation(v: serde_json::Value) -> Participation {
        serde_json::from_value(v).expect("participation lisible")
    }

    /// La participation demandée parmi celles d'un site : la sienne (pas celle d'un autre
    /// observateur), au même point (aucun : absent ou vide), aux mêmes instants, qu'aucun autre
    /// plan ne tient, la plus récemment créée ; l'ordre de la liste n'y est pour rien.
    #[test]
    fn la_participation_retrouvee_est_la_demandee() {
        let moi = id(1);
        let instant = |t: &str| InstantUtc::lire(t).expect("instant");
        let demande = Demande {
            observateur: &moi,
            point: Some("B2"),
            debut: instant("2026-06-21T19:30:00Z"),
            fin: instant("2026-06-22T04:00:00Z"),
        };
        let p = |n: u32, observateur: serde_json::Value, point: &str, creee: &str| {
            participation(serde_json::json!({
                "_id": id(n).as_str(), "observateur": observateur, "point": point,
                "date_debut": "2026-06-21T19:30:00", "date_fin": "2026-06-22T04:00:00+00:00",
                "_created": creee,
            }))
        };
        let a_moi = serde_json::json!({"_id": moi.as_str(), "pseudo": "Moi"});
        let liste = || {
            vec![
                p(10, a_moi.clone(), "B2", "2026-06-23T10:00:05"),
                // Plus récente, mais d'un autre observateur.
                p(
                    11,
                    serde_json::json!(id(2).as_str()),
                    "B2",
                    "2026-06-23T10:00:09",
                ),
                // Plus récente, mais à un autre point.
                p(12, a_moi.clone(), "A1", "2026-06-23T10:00:09"),
                p(13, a_moi.clone(), "B2", "2026-06-23T10:00:07"),
                p(14, a_moi.clone(), "B2", "2026-06-23T10:00:01"),
            ]
        };
        assert_eq!(la_demandee(liste(), &demande, &[]), Some(id(13)));
        let mut inverse = liste();
        inverse.reverse();
        assert_eq!(la_demandee(inverse, &demande, &[]), Some(id(13)));
        // Celle qu'un autre plan tient n'est pas celle-ci.
        assert_eq!(la_demandee(liste(), &demande, &[id(13)]), Some(id(10)));
        // À la même seconde, l'identifiant (dont le début est l'instant de création) départage.
        let memes = vec![
            p(21, a_moi.clone(), "B2", "2026-06-23T10:00:05"),
            p(20, a_moi.clone(), "B2", "2026-06-23T10:00:05"),
        ];
        assert_eq!(la_demandee(memes, &demande, &[]), Some(id(21)));
        // Sans point (site routier) : absent ou vide, jamais un autre.
        let routier = Demande {
            point: None,
            ..demande
        };
        let sans = vec![
            p(30, a_moi.clone(), "", "2026-06-23T10:00:05"),
            p(31, a_moi.clone(), "B2", "2026-06-23T10:00:06"),
        ];
        assert_eq!(la_demandee(sans, &routier, &[]), Some(id(30)));
        // Sans observateur rendu, on ne sait pas à qui elle est : écartée.
        let muette = vec![participation(serde_json::json!({
            "_id": id(40).as_str(), "point": "B2",
            "date_debut": "2026-06-21T19:30:00", "date_fin": "2026-06-22T04:00:00",
        }))];
        assert_eq!(la_demandee(muette, &demande, &[]), None);
    }
}
