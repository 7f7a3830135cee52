//! Ce que disent les options de `vigie depot` : une saison (sans destination) ou une nuit vers
//! sa destination (`--vers`, `--participation`, ou `--site --debut --fin` pour la créer), et
//! l'identité d'une carte brute (`--site NUMERO`, `--passage`, `--point`). Lues ici, une fois,
//! pour la nuit (`commandes/depot.rs`) comme pour la saison (`commandes/saison.rs`).

use anyhow::{Result, bail};

use super::ArgsDepot;
use crate::depot::fabrique::{Destination, OptionsAdresse};
use crate::destination::{CibleParticipation, IdObjet};
use crate::plateforme::conseil::commande;
use crate::preparation::carte::Identite;
use crate::saison::examen::Horodatages;
use crate::sortie::{CodeSortie, ErreurAvecCode};

/// `--passage` ou `--site NUMERO` sans carte brute à nommer.
pub(crate) const IDENTITE_SANS_CARTE: &str = "--passage et --site NUMERO ne nomment qu'une carte \
     brute (des WAV tels que l'enregistreur les écrit, sans le préfixe Car<site>-<année>-Pass<n>-\
     <point>-) ; ce dossier n'en est pas une : retirez-les ; rien n'a été envoyé";

/// Le numéro de site des noms que dit une valeur de `--site` : `NUMERO` (des chiffres, pas un
/// identifiant de 24 caractères) ou le `NUMERO` de `NUMERO=ID` ; `None` pour un `ID`.
pub(crate) fn numero_de_site(valeur: &str) -> Option<&str> {
    let numero = valeur.split_once('=').map_or(valeur, |(n, _)| n).trim();
    let chiffres = !numero.is_empty() && numero.bytes().all(|o| o.is_ascii_digit());
    (chiffres && (valeur.contains('=') || IdObjet::analyser(numero).is_none())).then_some(numero)
}

impl ArgsDepot {
    /// Sans destination (ni `--vers`, ni `--participation`, ni `--debut`/`--fin`) : la saison,
    /// chaque nuit dans sa participation (`commandes/saison.rs`).
    pub(crate) fn vers_la_saison(&self) -> bool {
        self.vers.is_none()
            && self.participation.is_none()
            && self.debut.is_none()
            && self.fin.is_none()
    }

    /// Une destination reçoit un seul dossier (plusieurs : la saison, sans destination).
    pub(crate) fn un_seul_dossier(&self) -> Result<std::path::PathBuf> {
        if self.dossiers.len() > 1 {
            return Err(ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                format!(
                    "une destination (--vers, --participation, --site --debut --fin) reçoit un seul \
                     dossier ; pour déposer plusieurs dossiers, chaque nuit dans sa participation, \
                     déposez la saison : {} (sans destination) ; rien n'a été envoyé",
                    commande("depot").arg("DOSSIER…")
                ),
            )
            .into());
        }
        Ok(self.dossiers[0].clone())
    }

    /// La destination que disent les options (le groupe clap garantit qu'il y en a une).
    pub(crate) fn destination(&self) -> Result<Destination> {
        if let Some(vers) = &self.vers {
            let options = OptionsAdresse {
                endpoint: self.s3.endpoint_url.as_deref(),
                autoriser_http: self.autoriser_http,
            };
            return crate::depot::inscription::analyser_vers(vers, options);
        }
        // Les sites où créer : `ID`, ou l'`ID` de `NUMERO=ID` ; un `NUMERO` seul ne nomme que la
        // carte brute (voir [`identite_de_la_carte`]).
        let sites: Vec<&str> = self
            .site
            .iter()
            .filter(|v| numero_de_site(v).is_none() || v.contains('='))
            .map(|v| v.split_once('=').map_or(v.as_str(), |(_, id)| id.trim()))
            .collect();
        if sites.len() > 1 || (self.participation.is_some() && !sites.is_empty()) {
            return Err(ErreurAvecCode::nouveau(
                CodeSortie::Usage,
                "--participation ID, ou un seul --site ID avec --debut et --fin : une participation              à la fois ; rien n'a été envoyé",
            )
            .into());
        }
        let participation = match (
            &self.participation,
            &sites.first(),
            &self.point,
            &self.debut,
            &self.fin,
        ) {
            (Some(id), ..) => CibleParticipation::existante(id)?,
            (None, Some(site), point, Some(debut), Some(fin)) => {
                CibleParticipation::a_creer(site, point.as_deref(), debut, fin)?
            }
            _ => bail!(
                "destination incomplète : --vers s3://…, --participation ID, ou --site ID [--point P] --debut D --fin F"
            ),
        };
        // L'adresse de l'API : --api ou VIGIE_API, sinon celle que `vigie connexion --api` a
        // retenue, sinon l'adresse par défaut.
        let api = crate::connexion::adresse_api(self.api.url.as_deref())?;
        let description = self
            .description
            .description()
            .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
        crate::depot::inscription::vers_la_participation(
            &api.url,
            participation,
            self.autoriser_http,
            description,
        )
    }

    /// Comment juger les horodatages des noms : une participation donnée et forcée porte la
    /// date, ils n'y comptent pas (la nuit d'une horloge mal réglée, déposée dans une
    /// participation créée à la main).
    pub(crate) fn horodatages(&self) -> Horodatages {
        if self.forcer_participation && self.participation.is_some() {
            Horodatages::Acceptes
        } else {
            Horodatages::Juges
        }
    }

    /// `--passage` ou `--site NUMERO` nomment une carte brute : donnés pour un dossier qui
    /// n'en est pas une (`carte_brute` faux), ils sont refusés (code 2).
    pub(crate) fn refuser_l_identite_sans_carte(&self, carte_brute: bool) -> Result<()> {
        if carte_brute || !self.nomme_une_carte() {
            return Ok(());
        }
        Err(ErreurAvecCode::nouveau(CodeSortie::Usage, IDENTITE_SANS_CARTE).into())
    }

    /// `--passage` ou `--site NUMERO` (sans `=ID`) : ce qui ne nomme qu'une carte brute.
    pub(crate) fn nomme_une_carte(&self) -> bool {
        self.passage.is_some() || self.numero_nu().is_some()
    }

    /// Le `--site NUMERO` seul (sans `=ID`), s'il y en a un.
    fn numero_nu(&self) -> Option<&str> {
        self.site
            .iter()
            .filter(|v| !v.contains('='))
            .find_map(|v| numero_de_site(v))
    }

    /// Ce que disent `--site`, `--passage` et `--point` d'une carte brute dont les noms ne portent
    /// pas le préfixe `Car<site>-<année>-Pass<n>-<point>-`, comme à `vigie preparer` : le numéro de
    /// site à six chiffres des noms (`--site 640380`, ou `--site 640380=ID` qui nomme aussi le
    /// site de la plateforme ; un `ID` seul ne dit pas le numéro des noms), le passage et le point.
    /// Vérifié avant tout envoi (code 2).
    pub(crate) fn identite_de_la_carte(&self) -> Result<Identite> {
        let mut numeros: Vec<&str> = self.site.iter().filter_map(|v| numero_de_site(v)).collect();
        numeros.dedup();
        // Un `NUMERO` seul l'emporte sur ceux des `NUMERO=ID` (qui en saison en nomment plusieurs).
        let site = self.numero_nu().or(match numeros.as_slice() {
            [seul] => Some(*seul),
            _ => None,
        });
        let identite = Identite {
            site: site.map(str::to_owned),
            passage: self.passage,
            point: self.point.clone(),
        };
        crate::preparation::carte::valider(&identite)
            .map_err(|e| ErreurAvecCode::nouveau(CodeSortie::Usage, e.to_string()))?;
        Ok(identite)
    }
}
