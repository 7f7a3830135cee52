//! Les destinations inscrites, à la manière de rclone (`backend/all/all.go`, `fs.Register`) :
//! une ligne par destination, ici et nulle part ailleurs. Chaque destination vit dans son
//! module, qui construit sa [`Fabrique`](super::fabrique::Fabrique) et déclare son
//! [`Inscription`] (`fabrique.rs`) : sa sorte (le nom que le plan retient, `depot_plan.sorte`), la forme de
//! son adresse `--vers`, comment elle relit une identité de plan, le geste qui répond à un
//! refus quand il lui est propre. Rien ailleurs ne devine une sorte d'après la forme d'une
//! identité.

use std::borrow::Cow;

use super::fabrique::{Destination, Inscription, OptionsAdresse};
use crate::destination::{CibleParticipation, ErreurDestination};
use crate::plan::{CauseRefus, DepotPlan, Sorte};

/// Les destinations inscrites, une ligne chacune.
const INSCRITES: &[&Inscription] = &[
    &super::s3::fabrique::INSCRIPTION,
    &super::vigiechiro::fabrique::INSCRIPTION,
    &super::dossier::INSCRIPTION,
];

impl Destination {
    /// La destination d'un plan, relue par la destination inscrite sous sa sorte.
    pub(crate) fn du_plan(plan: &DepotPlan) -> Result<Destination, ErreurDestination> {
        relire(&plan.sorte, &plan.destination)
    }
}

fn de_la_sorte(sorte: &Sorte) -> Option<&'static Inscription> {
    INSCRITES
        .iter()
        .copied()
        .find(|i| i.sorte == sorte.as_str())
}

/// La destination d'une adresse `--vers`, lue par la destination inscrite qui la reconnaît.
pub(crate) fn analyser_vers(
    adresse: &str,
    options: OptionsAdresse<'_>,
) -> anyhow::Result<Destination> {
    INSCRITES
        .iter()
        .find_map(|i| (i.analyser_vers)(adresse, options))
        .unwrap_or_else(|| {
            Err(ErreurDestination::Adresse {
                adresse: adresse.to_owned(),
                formes: formes_vers(),
            }
            .into())
        })
}

/// La destination d'une participation de la plateforme, donnée ou à créer
/// (`--participation`, ou `--site … --debut … --fin …`), décrite par `description` : la
/// seule destination inscrite qui se donne sans adresse `--vers`.
pub(crate) fn vers_la_participation(
    api: &str,
    participation: CibleParticipation,
    autoriser_http: bool,
    description: crate::description::Description,
) -> anyhow::Result<Destination> {
    Ok(
        super::vigiechiro::DestinationVigieChiro::nouveau(api, participation, autoriser_http)?
            .avec_description(description)
            .into(),
    )
}

/// Les formes d'adresse `--vers` que lisent les destinations inscrites.
pub(crate) fn formes_vers() -> String {
    INSCRITES
        .iter()
        .filter_map(|i| i.forme_vers)
        .collect::<Vec<_>>()
        .join(" ou ")
}

/// Relit l'identité d'un plan par la destination inscrite sous sa sorte.
pub(crate) fn relire(sorte: &Sorte, identite: &str) -> Result<Destination, ErreurDestination> {
    let illisible = || ErreurDestination::Illisible {
        sorte: sorte.to_string(),
        identite: identite.to_owned(),
    };
    let inscription = de_la_sorte(sorte).ok_or_else(illisible)?;
    (inscription.relire)(identite)
}

/// Le geste qui répond à un refus de cette cause, vers une destination de cette sorte.
pub(crate) fn conseil(sorte: &Sorte, cause: CauseRefus) -> Cow<'static, str> {
    de_la_sorte(sorte)
        .and_then(|i| (i.conseil)(cause))
        .unwrap_or(Cow::Borrowed(cause.conseil_general()))
}

/// Le geste qui précède la relance quand une destination de cette sorte a refusé les
/// identifiants.
pub(crate) fn geste_identifiants(sorte: &Sorte) -> String {
    de_la_sorte(sorte).map_or_else(
        || "corrigez les identifiants de la destination".to_owned(),
        |i| (i.geste_identifiants)(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aucun conseil ne dit la commande suivante (elle est dite une fois, à la fin) ; aucune
    /// destination ne parle des termes d'une autre (compartiment, jeton…).
    #[test]
    fn chaque_conseil_parle_de_sa_destination() {
        let termes = |sorte: &str| -> &[&str] {
            match sorte {
                "s3" => &["S3", "compartiment", "région", "point d'accès"],
                "vigiechiro" => &["jeton", "participation", "plateforme"],
                _ => &[],
            }
        };
        for i in INSCRITES {
            let sorte = Sorte::nouvelle(i.sorte);
            for cause in CauseRefus::TOUTES {
                let c = conseil(&sorte, cause);
                assert!(!c.contains("vigie retenter"), "{cause}");
                // (Un remplacement refusé n'arrive que vers la plateforme.)
                if cause == CauseRefus::RemplacementRefuse {
                    continue;
                }
                for autre in INSCRITES.iter().filter(|a| a.sorte != i.sorte) {
                    for terme in termes(autre.sorte) {
                        assert!(!c.contains(terme), "{} {cause} : {c}", i.sorte);
                    }
                }
            }
        }
    }

    /// Le geste du bilan de `vigie verifier` quand la destination refuse de relire vient de
    /// son inscription : vers un dossier, il ne parle ni de S3 ni de la plateforme.
    #[test]
    fn le_geste_d_une_relecture_refusee_est_celui_de_la_destination() {
        let geste = |sorte: &str| {
            (de_la_sorte(&Sorte::nouvelle(sorte))
                .unwrap()
                .geste_relecture_refusee)()
        };
        assert!(geste("s3").contains("(s3:GetObject)"), "{}", geste("s3"));
        assert!(
            geste("vigiechiro").contains("jeton"),
            "{}",
            geste("vigiechiro")
        );
        let dossier = geste("dossier");
        assert!(dossier.contains("dossier"), "{dossier}");
        for terme in [
            "S3",
            "compartiment",
            "GetObject",
            "jeton",
            "participation",
            "plateforme",
        ] {
            assert!(!dossier.contains(terme), "{dossier}");
        }
    }

    #[test]
    fn une_sorte_par_inscription() {
        for (i, a) in INSCRITES.iter().enumerate() {
            for b in &INSCRITES[i + 1..] {
                assert_ne!(a.sorte, b.sorte, "deux destinations sous la même sorte");
            }
        }
    }

    #[test]
    fn une_sorte_inconnue_n_est_pas_devinee() {
        let e = relire(&Sorte::nouvelle("venue-du-futur"), "s3://nuits/p").unwrap_err();
        assert!(matches!(e, ErreurDestination::Illisible { .. }), "{e}");
        assert_eq!(
            conseil(&Sorte::nouvelle("venue-du-futur"), CauseRefus::Droits),
            CauseRefus::Droits.conseil_general()
        );
    }

    #[test]
    fn une_adresse_qu_aucune_destination_ne_lit() {
        let e = analyser_vers("nuits", OptionsAdresse::default()).unwrap_err();
        assert!(e.to_string().contains("s3://"), "{e}");
    }
}
