//! Les clients de la plateforme d'une commande d'après le dépôt, un par adresse d'API (des
//! nuits de deux plateformes se mènent dans la même commande), et l'utilisateur reconnu à
//! chacune (`GET /moi`, une fois).

use anyhow::Result;

use crate::depot::vigiechiro::avant_envoi::reconnaitre_plateforme_en;
use crate::reessai::Profil;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::traitement::cible::Cible;
use crate::traitement::jeton_refuse;
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{ClientVigieChiro, Utilisateur};

/// Les clients de la plateforme, un par adresse d'API, et l'utilisateur reconnu à chacune.
#[derive(Default)]
pub(crate) struct Clients {
    par_api: Vec<(String, ClientVigieChiro, Option<Utilisateur>)>,
}

impl Clients {
    /// Le client de l'API de `cible`, reconnu (`GET /moi`) à son premier usage ; le refus dit
    /// que `rien_fait`. `muet_admis` : une plateforme muette n'arrête rien (les relevés
    /// suivants repasseront).
    pub(crate) async fn de(
        &mut self,
        emetteur: &Emetteur,
        cible: &Cible,
        profil: Profil,
        rien_fait: &str,
        muet_admis: bool,
    ) -> Result<(&ClientVigieChiro, Option<&Utilisateur>)> {
        let i = match self.par_api.iter().position(|(a, _, _)| *a == cible.api) {
            Some(i) => i,
            None => {
                let c = crate::depot::vigiechiro::client_du_jeton(&cible.api)?;
                let moi = match reconnaitre(&c, emetteur, &cible.api, profil, rien_fait).await {
                    Ok(u) => Some(u),
                    Err(e)
                        if muet_admis
                            && crate::sortie::code_pour_erreur(&e)
                                == CodeSortie::EchecsTransitoires =>
                    {
                        None
                    }
                    Err(e) => return Err(e),
                };
                self.par_api.push((cible.api.clone(), c, moi));
                self.par_api.len() - 1
            }
        };
        let (_, c, moi) = &self.par_api[i];
        Ok((c, moi.as_ref()))
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
