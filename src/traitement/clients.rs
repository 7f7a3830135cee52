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
struct Clients {
    par_api: Vec<(String, ClientVigieChiro, Option<Utilisateur>)>,
}

impl Clients {
    /// Le client de l'API de `cible`, reconnu (`GET /moi`) à son premier usage ; le refus dit
    /// que `rien_fait`. `muet_admis` : une plateforme muette n'arrête rien (les relevés
    /// suivants repasseront).
    async fn de(
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

/// Mène `une` pour chaque nuit de `cibles`, avec le client de son API, reconnu (`GET /moi`) à
/// son premier usage selon `(profil, rien_fait, muet_admis)` (voir [`Clients::de`]) : l'erreur
/// d'une nuit est dite par `dire`, qui rend son code, et les autres continuent (sauf ce que
/// `dire` fait remonter : Ctrl-C, un jeton refusé) ; le code est celui de la plus mal lotie.
pub(crate) async fn pour_chaque_nuit<'a>(
    emetteur: &Emetteur,
    cibles: impl IntoIterator<Item = &'a Cible>,
    (profil, rien_fait, muet_admis): (Profil, &str, bool),
    mut dire: impl FnMut(Result<CodeSortie>) -> Result<CodeSortie>,
    mut une: impl AsyncFnMut(&ClientVigieChiro, Option<&Utilisateur>, &'a Cible) -> Result<CodeSortie>,
) -> Result<CodeSortie> {
    let mut code = CodeSortie::Succes;
    let mut clients = Clients::default();
    for cible in cibles {
        let r = match clients
            .de(emetteur, cible, profil, rien_fait, muet_admis)
            .await
        {
            Ok((client, moi)) => une(client, moi, cible).await,
            Err(e) => Err(e),
        };
        code = code.max_par_gravite(dire(r)?);
    }
    Ok(code)
}
