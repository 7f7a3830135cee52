//! Avant tout envoi vers la plateforme : l'adresse est celle de l'API (`GET /moi`), le jeton
//! est accepté, et la cible existe (la participation donnée, à l'utilisateur du jeton, et son
//! site ; ou le site où la créer, et son point). Des lectures, sous l'émetteur et le profil de
//! l'appelant ; chaque refus est une erreur au code du contrat, qui dit ce qui n'a pas eu lieu
//! (`rien_fait`) et le geste.

use anyhow::Result;

use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::depot::vigiechiro::message_jeton_refuse;
use crate::depot::vigiechiro::participation::pas_de_reponse_utile;
use crate::destination::{CibleParticipation, IdObjet};
use crate::reessai::{Profil, RaisonArret, Rejouabilite, ReponseApi};
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::vigiechiro::{
    ClientVigieChiro, Participation, ReponseMoi, SiteDeParticipation, SiteLu, Utilisateur,
};
use crate::transport::{Emetteur, Emission, emettre};

/// Pourquoi `GET /moi` n'a pas rendu l'utilisateur.
pub(crate) enum RefusMoi {
    /// Ce qui a répondu n'est pas l'API Vigie-Chiro.
    PasLApi(String),
    /// L'adresse redirige ailleurs (un autre hôte, ou en clair) : `vigie` ne l'a pas suivie.
    /// Le détail dit où, et le geste.
    Redirection(String),
    JetonRefuse,
    /// Ni l'utilisateur ni un refus : ce qu'en dit [`pas_de_reponse_utile`] (une plateforme
    /// indisponible n'est pas un réseau coupé).
    SansReponse(String),
}

/// `GET /moi`, le premier appel de toute commande qui parle à la plateforme : il vérifie le
/// jeton, et que l'adresse est bien celle de l'API. Une page HTML ou un 404 est une réponse,
/// dite comme telle, jamais rejouée comme une panne réseau (voir
/// [`ClientVigieChiro::moi`]).
pub(crate) async fn reconnaitre_plateforme(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
) -> Result<Utilisateur, RefusMoi> {
    reconnaitre_plateforme_en(client, emetteur, Profil::Insistant).await
}

/// [`reconnaitre_plateforme`] sous le profil donné : BREF pour une commande qui ne fait que
/// relever un état (`vigie traitement`).
pub(crate) async fn reconnaitre_plateforme_en(
    client: &ClientVigieChiro,
    emetteur: &Emetteur,
    profil: Profil,
) -> Result<Utilisateur, RefusMoi> {
    let lecture = Emission::nouveau("GET", "/moi", profil, Rejouabilite::Rejouable);
    let issue = emettre(emetteur, lecture, |_| client.moi()).await;
    match issue.reponse {
        ReponseApi::Succes(ReponseMoi::Utilisateur(u)) => Ok(u),
        ReponseApi::Succes(ReponseMoi::PasLApi(nature)) => Err(RefusMoi::PasLApi(nature)),
        ReponseApi::Refuse {
            statut: 401 | 403, ..
        } => Err(RefusMoi::JetonRefuse),
        ReponseApi::Refuse {
            statut: 300..=399,
            detail,
            ..
        } => Err(RefusMoi::Redirection(detail)),
        autre => Err(RefusMoi::SansReponse(pas_de_reponse_utile(&autre))),
    }
}

impl RefusMoi {
    /// L'erreur à rendre : une adresse qui n'est pas l'API est une erreur de configuration
    /// (code 2), une plateforme muette un échec transitoire (code 1) ; le refus du jeton, au
    /// code et au message de l'appelant. `rien_fait` dit ce qui n'a pas eu lieu (« rien n'a
    /// été envoyé ») ; le geste vient en dernier, seul.
    pub(crate) fn erreur(
        self,
        api: &str,
        jeton_refuse: ErreurAvecCode,
        rien_fait: &str,
    ) -> anyhow::Error {
        match self {
            RefusMoi::PasLApi(nature) => ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                format!(
                    "cette adresse n'est pas l'API Vigie-Chiro : {api}/moi rend {nature} ; \
                     {rien_fait}. Donnez l'adresse de l'API par --api URL ou la variable \
                     VIGIE_API (le guide, docs/guide.md, dit comment la trouver : « L'adresse de l'API »)."
                ),
            )
            .into(),
            RefusMoi::Redirection(detail) => {
                ErreurAvecCode::nouveau(CodeSortie::Usage, format!("{rien_fait} : {detail}")).into()
            }
            RefusMoi::JetonRefuse => jeton_refuse.into(),
            RefusMoi::SansReponse(pourquoi) => ErreurAvecCode::nouveau(
                CodeSortie::EchecsTransitoires,
                format!("{rien_fait} : {pourquoi}"),
            )
            .into(),
        }
    }
}

/// Ce qu'un dépôt vers la plateforme sait après ses vérifications.
pub(crate) struct PlateformeVerifiee {
    /// L'utilisateur du jeton (`GET /moi`) : une participation à créer, dont la réponse se
    /// perdrait, se retrouve parmi les siennes.
    pub(crate) moi: IdObjet,
    /// La participation donnée (`--participation`), telle que la plateforme la décrit, et son
    /// site s'il a pu être lu : les noms y sont comparés (soirée, point, numéro de site).
    pub(crate) participation: Option<(Participation, Option<SiteLu>)>,
    /// Le site où créer la participation (`--site`), lu avant toute création : le numéro de
    /// site des noms y est comparé.
    pub(crate) site_a_creer: Option<SiteLu>,
}

/// Les lectures d'avant tout envoi vers la plateforme : l'utilisateur du jeton, puis le site où créer la
/// participation (et son point), ou la participation donnée, à lui, et son site.
pub(crate) async fn verifier(
    client: &ClientVigieChiro,
    (emetteur, profil): (&Emetteur, Profil),
    dest: &DestinationVigieChiro,
    rien_fait: &str,
) -> Result<PlateformeVerifiee> {
    let moi = reconnaitre_plateforme_en(client, emetteur, profil)
        .await
        .map_err(|r| {
            r.erreur(
                &dest.api,
                ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()),
                rien_fait,
            )
        })?;
    let id = match &dest.participation {
        CibleParticipation::ACreer { site, point, .. } => {
            let lu = site_existant(client, (emetteur, profil), &dest.api, site, rien_fait).await?;
            exiger_point(&lu, point.as_deref(), rien_fait)?;
            return Ok(PlateformeVerifiee {
                moi: moi.id,
                participation: None,
                site_a_creer: Some(lu),
            });
        }
        CibleParticipation::Existante(id) => id,
    };
    let lecteur = (emetteur, profil);
    let p = participation_existante(client, lecteur, &dest.api, id, rien_fait).await?;
    verifier_proprietaire(&p, &moi, rien_fait)?;
    let site = site_de_participation(client, lecteur, &p).await;
    Ok(PlateformeVerifiee {
        moi: moi.id,
        participation: Some((p, site)),
        site_a_creer: None,
    })
}

/// La participation donnée est-elle à l'utilisateur du jeton ? La plateforme accepte qu'on
/// déclare des fichiers dans la participation d'un autre observateur (le validateur
/// `_validate_participation` de `resources/fichiers.py` n'est jamais appelé : `xin/schema.py`
/// cherche `validator` dans le document lu, pas dans le schéma), et ne permet pas de les en
/// retirer : déposer au mauvais endroit ne se répare pas. D'où un refus définitif (code 3),
/// avant toute déclaration, qui dit à qui elle est.
fn verifier_proprietaire(p: &Participation, moi: &Utilisateur, rien_fait: &str) -> Result<()> {
    let Some(observateur) = &p.observateur else {
        return Err(ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "la plateforme ne dit pas à qui est la participation {} : vigie ne peut pas \
                 vérifier qu'elle est la vôtre, et n'y dépose rien ; {rien_fait}",
                p.id
            ),
        )
        .into());
    };
    if observateur.id == moi.id {
        return Ok(());
    }
    let a_qui = match &observateur.pseudo {
        Some(pseudo) => format!(
            "« {} » (observateur {})",
            crate::texte::neutraliser(pseudo),
            observateur.id
        ),
        None => format!("un autre observateur (identifiant {})", observateur.id),
    };
    let vous = match moi.pseudo.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(pseudo) => format!("« {} »", crate::texte::neutraliser(pseudo.trim())),
        None => format!("l'observateur {}", moi.id),
    };
    Err(ErreurAvecCode::nouveau(
        CodeSortie::RefusDefinitifs,
        format!(
            "la participation {} est à {a_qui}, pas à vous ({vous}, le compte du jeton) : vigie \
             ne dépose que dans vos participations, la plateforme ne permettant pas d'en retirer \
             un fichier ; {rien_fait}. Vérifiez l'identifiant (fin de l'adresse de la page de \
             votre participation sur le site), ou connectez-vous avec le compte de cet \
             observateur ({}).",
            p.id,
            crate::plateforme::conseil::commande("connexion")
        ),
    )
    .into())
}

/// Le site d'une participation : développé dans sa description (`display_participation`),
/// sinon relu (`GET /sites/{id}`, `resources/sites.py` `display_site`). Illisible : `None`,
/// le numéro de site n'est alors pas comparé (le point et la soirée le sont toujours).
async fn site_de_participation(
    client: &ClientVigieChiro,
    (emetteur, profil): (&Emetteur, Profil),
    p: &Participation,
) -> Option<SiteLu> {
    match &p.site {
        Some(SiteDeParticipation::Developpe(s)) => Some(s.clone()),
        Some(SiteDeParticipation::Identifiant(id)) => {
            let cible = format!("/sites/{id}");
            let lecture = Emission::nouveau("GET", &cible, profil, Rejouabilite::Rejouable);
            match emettre(emetteur, lecture, |_| client.site(id))
                .await
                .reponse
            {
                ReponseApi::Succes(s) => s,
                _ => None,
            }
        }
        None => None,
    }
}

/// `GET /sites/{id}` : le site où créer la participation existe-t-il ? Sinon, c'est une erreur
/// d'usage (code 2), dite avant qu'aucun plan ne soit créé : la création ne serait que refusée
/// (`create_participation` : `422 no site with this id`).
async fn site_existant(
    client: &ClientVigieChiro,
    (emetteur, profil): (&Emetteur, Profil),
    api: &str,
    id: &IdObjet,
    rien_fait: &str,
) -> Result<SiteLu> {
    let issue = emettre(
        emetteur,
        Emission::nouveau(
            "GET",
            &format!("/sites/{id}"),
            profil,
            Rejouabilite::Rejouable,
        ),
        |_| client.site(id),
    )
    .await;
    match issue.reponse {
        ReponseApi::Succes(Some(site)) => Ok(site),
        ReponseApi::Succes(None) => Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            format!(
                "le site {id} n'existe pas sur la plateforme ({api}) : vérifiez --site (fin de \
                 l'adresse de la page du site, après #/sites/) ; {rien_fait}"
            ),
        )
        .into()),
        ReponseApi::Refuse { statut: 401, .. } => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()).into())
        }
        autre => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "le site {id} n'a pas pu être relu, {rien_fait} : {}",
                pas_de_reponse_utile(&autre)
            ),
        )
        .into()),
    }
}

/// Le point d'une participation à créer : le serveur le tient pour facultatif
/// (`create_participation`), et un site routier ou pédestre n'en a pas ; mais sur un site point
/// fixe, où les noms des séquences portent leur point, une participation sans point ne dirait
/// pas où la nuit a été enregistrée : `vigie` l'exige (code 2), en citant les points du site.
fn exiger_point(site: &SiteLu, point: Option<&str>, rien_fait: &str) -> Result<()> {
    if point.is_some() || site.type_site.as_deref() != Some("POINT_FIXE") {
        return Ok(());
    }
    Err(ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "le site « {} » est un site point fixe : donnez le point d'écoute de la nuit \
             (--point A1, par exemple ; c'est celui que portent les noms des séquences, \
             …-Pass1-A1-…) ; {rien_fait}",
            crate::texte::neutraliser(&site.titre)
        ),
    )
    .into())
}

/// `GET /participations/{id}` : la participation existe-t-elle ?
async fn participation_existante(
    client: &ClientVigieChiro,
    (emetteur, profil): (&Emetteur, Profil),
    api: &str,
    id: &IdObjet,
    rien_fait: &str,
) -> Result<Participation> {
    let issue = emettre(
        emetteur,
        Emission::nouveau(
            "GET",
            &format!("/participations/{id}"),
            profil,
            Rejouabilite::Rejouable,
        ),
        |_| client.participation(id),
    )
    .await;
    match issue.reponse {
        ReponseApi::Succes(Some(p)) => Ok(p),
        ReponseApi::Succes(None) => Err(ErreurAvecCode::nouveau(
            CodeSortie::Usage,
            format!(
                "la participation {id} n'existe pas sur la plateforme ({api}) : vérifiez \
                 l'identifiant (fin de l'adresse de la page de la participation sur le site) ; \
                 {rien_fait}"
            ),
        )
        .into()),
        ReponseApi::Refuse { statut: 401, .. } => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse()).into())
        }
        // Un autre refus définitif (403 : participation d'un autre observateur…) : rien ne
        // changera sans un geste, c'est un refus (code 3), pas un échec passager.
        ReponseApi::Refuse { statut, detail, .. }
            if issue.raison == RaisonArret::RefusDefinitif =>
        {
            Err(ErreurAvecCode::nouveau(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse l'accès à la participation {id} ({statut} : {}) : \
                     vérifiez qu'elle est bien la vôtre ; {rien_fait}",
                    crate::texte::neutraliser(&detail)
                ),
            )
            .into())
        }
        autre => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "la participation {id} n'a pas pu être vérifiée, {rien_fait} : {}",
                pas_de_reponse_utile(&autre)
            ),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// L'observateur d'une participation se lit développé (`display_participation`) ou en
    /// identifiant (réponse d'une création) ; sans pseudo lisible, le message dit son
    /// identifiant ; le sien passe.
    #[test]
    fn la_participation_d_un_autre_dit_a_qui_elle_est() {
        let lire = |v: serde_json::Value| -> Participation { serde_json::from_value(v).unwrap() };
        let moi: Utilisateur = serde_json::from_value(serde_json::json!({
            "_id": "64a1b2c3d4e5f60718293a01", "pseudo": "Moi"
        }))
        .unwrap();
        let id = "64a1b2c3d4e5f60718293d02";
        let developpee = lire(serde_json::json!({
            "_id": id,
            "observateur": {"_id": "64a1b2c3d4e5f60718293a03", "pseudo": "Noctule\u{1b}[2J"},
        }));
        let e = verifier_proprietaire(&developpee, &moi, "rien n'a été envoyé").unwrap_err();
        assert_eq!(
            crate::sortie::code_pour_erreur(&e),
            CodeSortie::RefusDefinitifs
        );
        let texte = format!("{e:#}");
        assert!(
            texte.starts_with(
                "la participation 64a1b2c3d4e5f60718293d02 est à « Noctule\\u{1b}[2J » \
                 (observateur 64a1b2c3d4e5f60718293a03), pas à vous (« Moi »"
            ),
            "{texte}"
        );
        let brute = lire(serde_json::json!({"_id": id, "observateur": "64a1b2c3d4e5f60718293a03"}));
        let texte = format!(
            "{:#}",
            verifier_proprietaire(&brute, &moi, "x").unwrap_err()
        );
        assert!(
            texte.contains("un autre observateur (identifiant 64a1b2c3d4e5f60718293a03)"),
            "{texte}"
        );
        let muette = lire(serde_json::json!({"_id": id}));
        assert!(verifier_proprietaire(&muette, &moi, "x").is_err());
        let sienne = lire(
            serde_json::json!({"_id": id, "observateur": {"_id": "64A1B2C3D4E5F60718293A01"}}),
        );
        assert!(verifier_proprietaire(&sienne, &moi, "x").is_ok());
    }

    /// Ce que dit une commande dont le `GET /moi` n'aboutit pas : ce qui n'a pas eu lieu, puis
    /// un seul geste, le dernier ; un 503 n'y devient pas une coupure du réseau.
    #[test]
    fn la_plateforme_non_reconnue_se_dit_avec_un_seul_geste() {
        let jeton = || ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, message_jeton_refuse());
        let texte = |e: anyhow::Error| {
            let code = crate::sortie::code_pour_erreur(&e);
            (code, format!("{e:#}"))
        };
        let indisponible: ReponseApi<()> = ReponseApi::Refuse {
            statut: 503,
            retry_after: None,
            detail: "Service Unavailable".into(),
        };
        let (code, message) = texte(
            RefusMoi::SansReponse(pas_de_reponse_utile(&indisponible)).erreur(
                "https://api",
                jeton(),
                "rien n'a été envoyé",
            ),
        );
        assert_eq!(code, CodeSortie::EchecsTransitoires);
        assert_eq!(
            message,
            "rien n'a été envoyé : la plateforme répond qu'elle est indisponible pour l'instant \
             (503) ; réessayez dans quelques minutes"
        );
        let (code, message) = texte(RefusMoi::PasLApi("une page HTML".into()).erreur(
            "https://site",
            jeton(),
            "rien n'a été enregistré",
        ));
        assert_eq!(code, CodeSortie::Usage);
        assert!(
            message.starts_with(
                "cette adresse n'est pas l'API Vigie-Chiro : https://site/moi rend une page HTML ; \
                 rien n'a été enregistré. Donnez l'adresse de l'API par --api URL"
            ),
            "{message}"
        );
    }
}
