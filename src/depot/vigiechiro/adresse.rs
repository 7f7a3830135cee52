//! L'adresse de la plateforme Vigie-Chiro (son API et la participation qui reçoit la nuit,
//! donnée ou à créer) : son identité, qui nomme le plan, et les clés de ses fichiers.

use crate::depot::fabrique::Destination;
use crate::destination::{
    API_VIGIECHIRO, CibleParticipation, ErreurDestination, IdObjet, chemin_sur, identifiant,
    point_valide, valider_endpoint,
};
use crate::horodatage::InstantUtc;

/// Le site web de la plateforme, pour l'adresse d'une participation (l'API par défaut
/// seulement : on ne devine pas le site web d'une autre API).
const SITE_WEB: &str = "https://vigiechiro.herokuapp.com/#/participations/";

/// L'adresse de la participation sur le site web, pour l'API par défaut.
pub(crate) fn adresse_participation(api: &str, id: &str) -> Option<String> {
    (api.trim_end_matches('/') == crate::destination::API_VIGIECHIRO.trim_end_matches('/'))
        .then(|| format!("{SITE_WEB}{id}"))
}

/// La plateforme, et la participation qui reçoit la nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DestinationVigieChiro {
    /// Base de l'API, sans « / » final.
    pub(crate) api: String,
    pub(crate) participation: CibleParticipation,
    /// Ce que `vigie` sait du matériel et de la météo, à poser sur la participation (à sa
    /// création, ou en complétant celle qui existe). Hors de l'identité : il ne nomme pas le
    /// plan, et un plan repris sans lui n'écrit rien de plus.
    pub(crate) description: Box<crate::description::Description>,
}

impl DestinationVigieChiro {
    /// La plateforme Vigie-Chiro, si `destination` est elle : ce que demandent les commandes
    /// qui n'existent que pour elle (la saison, le calcul, ses vérifications d'avant l'envoi).
    pub(crate) fn de(destination: &Destination) -> Option<&DestinationVigieChiro> {
        destination.fabrique::<DestinationVigieChiro>()
    }

    pub(crate) fn nouveau(
        api: &str,
        participation: CibleParticipation,
        autoriser_http: bool,
    ) -> Result<Self, ErreurDestination> {
        let api = valider_endpoint(api, autoriser_http)?;
        Ok(DestinationVigieChiro {
            api,
            participation,
            description: Box::default(),
        })
    }

    /// Désigne-t-elle la même participation que `autre`, d'après ce que sait la base ?
    /// `participation_autre` : la participation connue du plan de `autre`.
    pub(crate) fn meme_participation(
        &self,
        autre: &DestinationVigieChiro,
        participation_autre: Option<&IdObjet>,
    ) -> bool {
        if self.api != autre.api {
            return false;
        }
        match &self.participation {
            CibleParticipation::Existante(id) => {
                participation_autre == Some(id)
                    || autre.participation == CibleParticipation::Existante(id.clone())
            }
            a_creer @ CibleParticipation::ACreer { .. } => *a_creer == autre.participation,
        }
    }

    /// La même, qui décrira sa participation.
    pub(crate) fn avec_description(self, description: crate::description::Description) -> Self {
        DestinationVigieChiro {
            description: Box::new(description),
            ..self
        }
    }
}

impl DestinationVigieChiro {
    /// L'identité canonique (`vigiechiro:participation/ID` ou `vigiechiro:site/…/debut/…/fin/…`,
    /// `?api=` hors de l'API par défaut), qui nomme le plan avec le dossier. Elle ne contient
    /// jamais de secret.
    pub(crate) fn identite(&self) -> String {
        let mut identite = match &self.participation {
            CibleParticipation::Existante(id) => format!("vigiechiro:participation/{id}"),
            CibleParticipation::ACreer {
                site,
                point,
                debut,
                fin,
            } => {
                let point = point
                    .as_ref()
                    .map_or_else(String::new, |p| format!("point/{p}/"));
                format!(
                    "vigiechiro:site/{site}/{point}debut/{}/fin/{}",
                    debut.iso(),
                    fin.iso()
                )
            }
        };
        if self.api != API_VIGIECHIRO {
            identite.push_str("?api=");
            identite.push_str(&self.api);
        }
        identite
    }

    /// Relit une identité écrite par [`DestinationVigieChiro::identite`], y compris par une
    /// version antérieure de `vigie` : un instant sans fuseau y est lu en UTC. L'identité ainsi
    /// relue peut s'écrire autrement (instants normalisés) : un plan se retrouve par
    /// l'identité stockée, jamais par celle-ci.
    pub(crate) fn relire(identite: &str) -> Result<Self, ErreurDestination> {
        let forme = || ErreurDestination::Forme(identite.to_owned());
        let reste = identite.strip_prefix("vigiechiro:").ok_or_else(forme)?;
        let (cible, api) = match reste.split_once("?api=") {
            Some((c, a)) => (c, a),
            None => (reste, API_VIGIECHIRO),
        };
        let instant = |t: &str| InstantUtc::lire(t).ok_or_else(forme);
        let morceaux: Vec<&str> = cible.split('/').collect();
        let participation = match morceaux.as_slice() {
            ["participation", id] => CibleParticipation::existante(id)?,
            ["site", site, "point", point, "debut", debut, "fin", fin] => {
                CibleParticipation::ACreer {
                    site: identifiant("site", site)?,
                    point: Some(point_valide(point)?),
                    debut: instant(debut)?,
                    fin: instant(fin)?,
                }
            }
            // Sans point (site routier ou pédestre).
            ["site", site, "debut", debut, "fin", fin] => CibleParticipation::ACreer {
                site: identifiant("site", site)?,
                point: None,
                debut: instant(debut)?,
                fin: instant(fin)?,
            },
            _ => return Err(forme()),
        };
        DestinationVigieChiro::nouveau(api, participation, true)
    }

    /// La participation existante qu'elle désigne, par son identifiant.
    pub(crate) fn participation_donnee(&self) -> Option<&IdObjet> {
        match &self.participation {
            CibleParticipation::Existante(id) => Some(id),
            CibleParticipation::ACreer { .. } => None,
        }
    }

    /// La clé d'une unité : le titre (nom du fichier), la plateforme fabriquant elle-même la
    /// clé S3 (`wav/pa-<participation>/<titre>`).
    pub(crate) fn cle(chemin: &str) -> Result<String, ErreurDestination> {
        if !chemin_sur(chemin) {
            return Err(ErreurDestination::Cle(chemin.to_owned()));
        }
        Ok(chemin.rsplit('/').next().unwrap_or(chemin).to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "64a1b2c3d4e5f60718293d01";
    const S: &str = "64a1b2c3d4e5f60718293c01";

    #[test]
    fn identites_vigiechiro() {
        for d in [
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::existante(P).unwrap(),
                false,
            )
            .unwrap(),
            DestinationVigieChiro::nouveau(
                "http://127.0.0.1:8080/api/v1",
                CibleParticipation::a_creer(
                    S,
                    Some("A1"),
                    "2026-06-21T21:30:00Z",
                    "2026-06-22T06:00:00Z",
                )
                .unwrap(),
                false,
            )
            .unwrap(),
            // Un site routier : sans point.
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::a_creer(
                    S,
                    None,
                    "2026-06-21T21:30:00Z",
                    "2026-06-22T06:00:00Z",
                )
                .unwrap(),
                false,
            )
            .unwrap(),
        ] {
            assert_eq!(
                DestinationVigieChiro::relire(&d.identite()).unwrap(),
                d,
                "{}",
                d.identite()
            );
        }
        assert!(
            DestinationVigieChiro::nouveau(
                "http://vigie.exemple.fr/api",
                CibleParticipation::existante(P).unwrap(),
                false
            )
            .is_err()
        );
        assert_eq!(DestinationVigieChiro::cle("sous/a.wav").unwrap(), "a.wav");
        assert!(DestinationVigieChiro::cle("../a.wav").is_err());
    }

    #[test]
    fn instants_normalises_dans_l_identite() {
        let d = |debut: &str, fin: &str| {
            DestinationVigieChiro::nouveau(
                API_VIGIECHIRO,
                CibleParticipation::a_creer(S, Some("A1"), debut, fin).unwrap(),
                false,
            )
            .unwrap()
            .identite()
        };
        assert_eq!(
            d("2026-04-22T21:00:00Z", "2026-04-23T06:00:00Z"),
            d("2026-04-22T23:00:00+02:00", "2026-04-23T08:00+02:00")
        );
        let e = CibleParticipation::a_creer(
            S,
            Some("A1"),
            "2026-04-22T21:00:00",
            "2026-04-23T06:00:00Z",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("--debut "), "{e}");
        let e = CibleParticipation::a_creer(
            S,
            Some("A1"),
            "2026-04-23T06:00:00Z",
            "2026-04-22T21:00:00Z",
        )
        .unwrap_err();
        assert!(matches!(e, ErreurDestination::FinAvantDebut { .. }), "{e}");
        // Une identité écrite par une version antérieure (instant sans fuseau : UTC) se relit.
        let ancienne = format!(
            "vigiechiro:site/{S}/point/A1/debut/2026-04-22T21:00:00/fin/2026-04-23T06:00:00"
        );
        let relue = DestinationVigieChiro::relire(&ancienne).unwrap();
        assert_eq!(
            relue.identite(),
            d("2026-04-22T21:00:00Z", "2026-04-23T06:00:00Z")
        );
    }
}
