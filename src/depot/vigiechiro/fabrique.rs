//! La plateforme Vigie-Chiro inscrite : sa participation (donnée, ou créée une seule fois),
//! son dépositaire, sa relecture, ses conseils et le rappel du calcul. Elle n'a pas
//! d'adresse `--vers` : les commandes la construisent de `--participation`, ou de `--site`,
//! `--debut` et `--fin`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;

use super::DepositaireVigieChiro;
use super::verification::RelectureVigieChiro;
use crate::depot::AnnoncesSuivi;
use crate::depot::fabrique::{
    AvantLEnvoi, DepositaireDuPlan, Destination, Fabrique, Inscription, MIO, ReglagesDestination,
};
use crate::depot::relecture::verification::Relecture;
use crate::depot::vigiechiro::DestinationVigieChiro;
use crate::destination::{CibleParticipation, ErreurDestination, IdObjet, valider_endpoint};
use crate::plan::{CauseRefus, DepotPlan};
use crate::plateforme::conseil::commande;
use crate::sortie::interrompu;

pub(crate) const INSCRIPTION: Inscription = Inscription {
    sorte: "vigiechiro",
    forme_vers: None,
    analyser_vers: |_, _| None,
    relire: |identite| DestinationVigieChiro::relire(identite).map(Destination::from),
    conseil,
    geste_identifiants: || {
        format!(
            "reconnectez-vous ({})",
            commande("connexion").args(["--jeton", "-"])
        )
    },
    geste_relecture_refusee: || {
        format!(
            "vérifiez que la participation est bien la vôtre et que le jeton est celui de son \
             observateur ({})",
            commande("connexion")
        )
    },
};

fn conseil(cause: CauseRefus) -> Option<Cow<'static, str>> {
    Some(match cause {
        CauseRefus::Authentification => Cow::Owned(format!(
            "jeton Vigie-Chiro refusé ou expiré : reconnectez-vous sur le site, puis {}",
            commande("connexion").args(["--jeton", "-"])
        )),
        CauseRefus::Droits => Cow::Borrowed(
            "la plateforme refuse l'accès : vérifiez que la participation est la vôtre",
        ),
        CauseRefus::Stockage => Cow::Borrowed(
            "la plateforme ne trouve pas la participation ou le fichier : vérifiez \
             l'identifiant de la participation",
        ),
        _ => return None,
    })
}

impl Fabrique for DestinationVigieChiro {
    fn inscription(&self) -> &'static Inscription {
        &INSCRIPTION
    }

    fn identite(&self) -> String {
        DestinationVigieChiro::identite(self)
    }

    fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        DestinationVigieChiro::cle(chemin)
    }

    fn decrite(&self, description: crate::description::Description) -> Option<Destination> {
        Some(self.clone().avec_description(description).into())
    }

    /// Les canaux d'une nuit de routier ou de pédestre que les options ne disent pas, déduits
    /// de ses séquences (`garde::deduire_les_canaux`).
    fn completee_par_la_nuit(
        &self,
        dossier: &Path,
        chemins: &mut dyn Iterator<Item = &str>,
    ) -> Option<Destination> {
        let mut dest = self.clone();
        crate::garde::deduire_les_canaux(&mut dest.description, dossier, chemins);
        Some(dest.into())
    }

    fn participation_donnee(&self) -> Option<&IdObjet> {
        DestinationVigieChiro::participation_donnee(self)
    }

    fn page_de_participation(&self, participation: &IdObjet) -> Option<String> {
        super::adresse::adresse_participation(&self.api, participation.as_str())
    }

    fn exige_un_jeton(&self) -> bool {
        true
    }

    fn juge_les_noms(&self) -> bool {
        true
    }

    fn lit_les_sequences(&self) -> bool {
        true
    }

    /// Vers la plateforme, la participation, créée une seule fois au besoin.
    fn depositaire<'a>(
        &'a self,
        avant: AvantLEnvoi<'a>,
    ) -> LocalBoxFuture<'a, Result<DepositaireDuPlan>> {
        async move {
            let emetteur = avant.emetteur;
            let client = super::client_du_jeton(&self.api)?;
            let participation = super::participation::resoudre_participation(
                avant.base,
                avant.plan.id,
                self,
                avant.moi,
                &client,
                emetteur,
                &AnnoncesSuivi(avant.suivi),
            )
            .await;
            let participation = match participation {
                Ok(p) => p,
                // Le réseau abandonné annule aussi : c'est alors un échec, pas une
                // interruption.
                Err(_)
                    if emetteur.annulation().est_annulee()
                        && !emetteur.reseau().est_abandonne() =>
                {
                    return Err(interrompu());
                }
                Err(e) => return Err(e),
            };
            let reglages = avant.reglages;
            Ok(DepositaireDuPlan::nouveau(DepositaireVigieChiro::nouveau(
                client,
                participation,
                reglages
                    .seuil_multipart_mio
                    .unwrap_or(super::SEUIL_MULTIPART_MIO)
                    * MIO,
                reglages.taille_partie_mio * MIO,
                avant.plan.multipart_refuse,
            )))
        }
        .boxed_local()
    }

    fn relecture<'a>(
        &'a self,
        plan: &'a DepotPlan,
        _reglages: &'a ReglagesDestination,
    ) -> LocalBoxFuture<'a, Result<Box<dyn Relecture>>> {
        async move {
            let participation = match (&plan.participation, &self.participation) {
                (Some(p), _) => IdObjet::analyser(p),
                (None, CibleParticipation::Existante(id)) => Some(id.clone()),
                (None, CibleParticipation::ACreer { .. }) => None,
            }
            .context("la participation du plan n'est pas connue")?;
            Ok(Box::new(RelectureVigieChiro {
                client: Arc::new(super::client_du_jeton(&self.api)?),
                participation,
                dossier: PathBuf::from(&plan.dossier),
            }) as Box<dyn Relecture>)
        }
        .boxed_local()
    }

    /// La commande qui lance le calcul de la nuit qui vient d'être déposée : `vigie traiter`
    /// seul (il vise le dernier dépôt, celui-ci), jamais un identifiant à recopier ; avec
    /// `--api` si `vigie traiter` ne viserait pas de lui-même l'adresse de ce dépôt.
    fn rappel_traiter(&self) -> Option<String> {
        let mut rappel = commande("traiter");
        let par_defaut = crate::connexion::adresse_api(None)
            .ok()
            .and_then(|a| valider_endpoint(&a.url, true).ok());
        if par_defaut.as_deref() != Some(self.api.as_str()) {
            rappel = rappel.args(["--api", self.api.as_str()]);
        }
        Some(rappel.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Sorte;

    #[test]
    fn la_plateforme_et_sa_participation_donnee() {
        let vc = |identite: &str| {
            crate::depot::inscription::relire(&Sorte::nouvelle("vigiechiro"), identite).unwrap()
        };
        let donnee = vc("vigiechiro:participation/64a1b2c3d4e5f60718293d01");
        assert!(DestinationVigieChiro::de(&donnee).is_some() && donnee.exige_un_jeton());
        assert_eq!(
            donnee.participation_donnee().map(IdObjet::as_str),
            Some("64a1b2c3d4e5f60718293d01")
        );
        assert_eq!(donnee.sorte(), Sorte::nouvelle("vigiechiro"));
        assert_eq!(
            donnee.endpoint_ignore(3, Some("http://127.0.0.1:9000")),
            None,
            "la plateforme n'a pas de point d'accès S3"
        );
        let a_creer = vc(
            "vigiechiro:site/64a1b2c3d4e5f60718293c01/debut/2026-06-21T21:30:00Z/fin/2026-06-22T06:00:00Z",
        );
        assert!(DestinationVigieChiro::de(&a_creer).is_some());
        assert_eq!(a_creer.participation_donnee(), None);
        // Une identité S3 n'est pas relue comme une participation.
        assert!(
            crate::depot::inscription::relire(&Sorte::nouvelle("vigiechiro"), "s3://nuits/p")
                .is_err()
        );
    }

    #[test]
    fn conseils_propres_a_la_plateforme() {
        let vc = Sorte::nouvelle("vigiechiro");
        let c = crate::depot::inscription::conseil(&vc, CauseRefus::Authentification);
        assert!(c.contains("jeton") && !c.contains("S3"), "{c}");
    }
}
