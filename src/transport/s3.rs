//! Le transport S3 : aws-sdk-s3, réessais du SDK coupés, chaque réponse classée en
//! [`ReponseApi`] à un seul endroit ([`classer`]).
//!
//! Le SDK ne réessaie rien (`RetryConfig::disabled()`), ne coupe rien de lui-même (la protection
//! contre les flux bloqués est la nôtre, réglable, dans `transport::Emetteur`), et ne calcule
//! pas de somme en fin de flux (`WhenRequired`) : nous envoyons la somme CRC32C dans l'en-tête,
//! ce que tous les services compatibles S3 comprennent, là où l'envoi « aws-chunked » à somme
//! finale n'est pas partout accepté. Tout corps de réponse est lu sous un plafond
//! ([`CORPS_REPONSE_MAX`], par un intercepteur du SDK) : une réponse démesurée est dite « trop
//! grande » au lieu d'être chargée en mémoire.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use aws_sdk_s3::config::{
    BehaviorVersion, ProvideCredentials, Region, RequestChecksumCalculation,
    ResponseChecksumValidation, StalledStreamProtectionConfig,
};
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{ChecksumAlgorithm, ChecksumMode, CompletedMultipartUpload, CompletedPart};

use super::connexions::Renouvelable;
use super::corps::{CorpsFichier, CorpsPlafonne, CorpsTropGrand, Progression, crc32c_base64};
use super::en_clair::{chaine, erreur_reseau};
use super::{CORPS_REPONSE_MAX, detail_reponse_trop_grande, expurger};
use crate::plateforme::FichierAttendu;
use crate::reessai::{ReponseApi, attente_demandee};

/// Réglages d'accès au service.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConfigS3 {
    pub(crate) region: Option<String>,
    pub(crate) profil: Option<String>,
    pub(crate) delai_connexion: Option<Duration>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ErreurConfigS3 {
    /// Le SDK dit pourquoi en anglais (« an error occurred while loading credentials ») : son
    /// texte va au journal (`-vv`), le message dit quoi faire.
    #[error(
        "aucun identifiant S3 utilisable{} : définissez AWS_ACCESS_KEY_ID et \
         AWS_SECRET_ACCESS_KEY, ou un profil (--profil, AWS_PROFILE) dans ~/.aws/credentials",
        match .profil { Some(p) => format!(" (le profil « {p} » est introuvable ou incomplet)"), None => String::new() }
    )]
    Identifiants { profil: Option<String> },
    /// Pas de certificats racine pour une adresse `https://` (voir
    /// `transport::certificats_du_systeme`).
    #[error("{0}")]
    Certificats(String),
}

/// Un objet tel que la destination le décrit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ObjetDistant {
    pub(crate) taille: u64,
    /// ETag sans guillemets.
    pub(crate) etag: Option<String>,
    /// Somme CRC32C (base64, « …-N » pour un envoi multipart), si le service la donne.
    pub(crate) crc32c: Option<String>,
}

/// Ce que rend une écriture réussie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ecrit {
    pub(crate) etag: Option<String>,
    pub(crate) crc32c: Option<String>,
}

impl Ecrit {
    fn depuis(etag: Option<&str>, crc32c: Option<&str>) -> Self {
        Ecrit {
            etag: sans_guillemets(etag),
            crc32c: crc32c.map(str::to_owned),
        }
    }
}

/// Une page de la liste des objets d'un préfixe (`ListObjectsV2`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageObjets {
    /// Clé, taille et ETag (sans guillemets) de chaque objet de la page.
    pub(crate) objets: Vec<(String, u64, Option<String>)>,
    /// Le jeton de la page suivante, s'il y en a une.
    pub(crate) suite: Option<String>,
}

/// Une partie que le service dit avoir reçue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartieDistante {
    pub(crate) numero: u32,
    pub(crate) taille: u64,
    pub(crate) etag: Option<String>,
}

/// Une partie à assembler à la finalisation.
#[derive(Debug, Clone)]
pub(crate) struct PartieAssemblee {
    pub(crate) numero: u32,
    pub(crate) etag: String,
    pub(crate) crc32c: String,
}

/// Un client S3 lié à un compartiment.
#[derive(Debug, Clone)]
pub(crate) struct ClientS3 {
    /// Refait à neuf après une coupure du réseau (voir `transport::connexions`) : chaque
    /// `Client::from_conf` a son propre client HTTP, et donc son propre réservoir de
    /// connexions.
    client: Arc<Renouvelable<Client>>,
    compartiment: String,
    /// L'hôte du service (celui de `--endpoint-url`, ou d'AWS), pour dire qui présente un
    /// certificat refusé.
    hote: Arc<str>,
}

fn sans_guillemets(etag: Option<&str>) -> Option<String> {
    etag.map(|e| e.trim_matches('"').to_owned())
}

impl ClientS3 {
    /// Construit le client du `compartiment` (par son point d'accès `endpoint`, s'il n'est pas
    /// chez AWS) et vérifie qu'il y a des identifiants (pour dire tout de suite quoi faire,
    /// plutôt qu'une erreur par unité).
    pub(crate) async fn connecter(
        compartiment: &str,
        endpoint: Option<&str>,
        config: &ConfigS3,
    ) -> Result<Self, ErreurConfigS3> {
        // Sans adresse, c'est AWS, en HTTPS.
        let chiffree = endpoint.is_none_or(|e| !e.starts_with("http://"));
        if chiffree {
            super::certificats_du_systeme().map_err(ErreurConfigS3::Certificats)?;
        }
        let delais = TimeoutConfig::builder()
            .connect_timeout(config.delai_connexion.unwrap_or(Duration::from_secs(10)))
            .build();
        let mut chargeur = aws_config::defaults(BehaviorVersion::latest())
            .retry_config(RetryConfig::disabled())
            .timeout_config(delais)
            .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired);
        if let Some(p) = &config.profil {
            chargeur = chargeur.profile_name(p);
        }
        if let Some(r) = &config.region {
            chargeur = chargeur.region(Region::new(r.clone()));
        }
        if let Some(e) = endpoint {
            chargeur = chargeur.endpoint_url(e);
        }
        let sdk = chargeur.load().await;
        match sdk.credentials_provider() {
            Some(p) => {
                p.provide_credentials().await.map_err(|e| {
                    tracing::debug!(detail = %expurger(&format!("{e:?}")), "identifiants S3");
                    ErreurConfigS3::Identifiants {
                        profil: config.profil.clone(),
                    }
                })?;
            }
            None => {
                return Err(ErreurConfigS3::Identifiants {
                    profil: config.profil.clone(),
                });
            }
        }
        let mut conf = aws_sdk_s3::config::Builder::from(&sdk);
        // Un service non AWS ignore souvent la région, mais la signature en veut une.
        if sdk.region().is_none() {
            conf = conf.region(Region::new("us-east-1"));
        }
        if endpoint.is_some() {
            conf = conf.force_path_style(true);
        }
        conf = conf.interceptor(PlafondReponse);
        let conf = conf.build();
        let premier = Client::from_conf(conf.clone());
        Ok(ClientS3 {
            client: Arc::new(Renouvelable::nouveau(premier, move || {
                Some(Client::from_conf(conf.clone()))
            })),
            compartiment: compartiment.to_owned(),
            hote: endpoint
                .and_then(|e| reqwest::Url::parse(e).ok())
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "le service S3 d'AWS".to_owned())
                .into(),
        })
    }

    /// [`classer`], un certificat refusé dit avec l'hôte du service.
    fn classer<T, E>(
        &self,
        e: &SdkError<E, aws_sdk_s3::config::http::HttpResponse>,
    ) -> ReponseApi<T>
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        match super::certificat::reproche(e) {
            Some(reproche) => ReponseApi::CertificatRefuse {
                detail: super::certificat::message(&self.hote, reproche),
            },
            None => classer(e),
        }
    }

    /// Le client du SDK à employer (neuf après une coupure du réseau).
    fn client(&self) -> Client {
        self.client.client()
    }

    /// Le compartiment visé.
    pub(crate) fn compartiment(&self) -> &str {
        &self.compartiment
    }

    /// Une page des objets dont la clé commence par `prefixe` (`ListObjectsV2`, lecture) ;
    /// `suite` : le jeton rendu par la page précédente.
    pub(crate) async fn lister(
        &self,
        prefixe: &str,
        suite: Option<String>,
    ) -> ReponseApi<PageObjets> {
        let r = self
            .client()
            .list_objects_v2()
            .bucket(&self.compartiment)
            .prefix(prefixe)
            .set_continuation_token(suite)
            .send()
            .await;
        match r {
            Ok(o) => ReponseApi::Succes(PageObjets {
                objets: o
                    .contents()
                    .iter()
                    .filter_map(|c| {
                        Some((
                            c.key()?.to_owned(),
                            c.size().unwrap_or(0).max(0) as u64,
                            sans_guillemets(c.e_tag()),
                        ))
                    })
                    .collect(),
                suite: o
                    .next_continuation_token()
                    .filter(|_| o.is_truncated() == Some(true))
                    .map(str::to_owned),
            }),
            Err(e) => self.classer(&e),
        }
    }

    /// Dépose un petit fichier en une requête, avec sa somme CRC32C (vérifiée par le service).
    pub(crate) async fn deposer_objet(
        &self,
        cle: &str,
        fichier: FichierAttendu<'_>,
        taille: u64,
        crc32c: u32,
        progression: Arc<Progression>,
    ) -> ReponseApi<Ecrit> {
        let corps = match CorpsFichier::ouvrir(fichier, 0, taille, progression.clone()).await {
            Ok(c) => c,
            Err(e) => return erreur_locale(&e),
        };
        let r = self
            .client()
            .put_object()
            .bucket(&self.compartiment)
            .key(cle)
            .content_length(taille as i64)
            .checksum_crc32_c(crc32c_base64(crc32c))
            .body(ByteStream::from_body_1_x(corps))
            .send()
            .await;
        progression.avancer();
        match r {
            Ok(o) => ReponseApi::Succes(Ecrit::depuis(o.e_tag(), o.checksum_crc32_c())),
            Err(e) => self.classer(&e),
        }
    }

    /// Ouvre un envoi multipart (écriture **non rejouable** : chaque appel en ouvre un autre).
    pub(crate) async fn ouvrir_envoi(&self, cle: &str) -> ReponseApi<String> {
        let r = self
            .client()
            .create_multipart_upload()
            .bucket(&self.compartiment)
            .key(cle)
            .checksum_algorithm(ChecksumAlgorithm::Crc32C)
            .send()
            .await;
        match r {
            Ok(o) => match o.upload_id() {
                Some(id) if !id.is_empty() => ReponseApi::Succes(id.to_owned()),
                // Une réponse sans identifiant : le service a peut-être ouvert un envoi que nous
                // ne saurons pas nommer. Illisible, donc issue inconnue : on réconciliera.
                _ => ReponseApi::Illisible {
                    statut: 200,
                    detail: "réponse d'ouverture sans identifiant d'envoi".into(),
                },
            },
            Err(e) => self.classer(&e),
        }
    }

    /// Envoie une partie (rejouable : même numéro, même contenu).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn envoyer_partie(
        &self,
        cle: &str,
        envoi: &str,
        numero: u32,
        fichier: FichierAttendu<'_>,
        debut: u64,
        taille: u64,
        crc32c: u32,
        progression: Arc<Progression>,
    ) -> ReponseApi<Ecrit> {
        let corps = match CorpsFichier::ouvrir(fichier, debut, taille, progression.clone()).await {
            Ok(c) => c,
            Err(e) => return erreur_locale(&e),
        };
        let r = self
            .client()
            .upload_part()
            .bucket(&self.compartiment)
            .key(cle)
            .upload_id(envoi)
            .part_number(numero as i32)
            .content_length(taille as i64)
            .checksum_crc32_c(crc32c_base64(crc32c))
            .body(ByteStream::from_body_1_x(corps))
            .send()
            .await;
        progression.avancer();
        match r {
            Ok(o) => ReponseApi::Succes(Ecrit::depuis(o.e_tag(), o.checksum_crc32_c())),
            Err(e) => self.classer(&e),
        }
    }

    /// Finalise un envoi multipart (écriture **non rejouable** sans réconciliation).
    pub(crate) async fn finaliser_envoi(
        &self,
        cle: &str,
        envoi: &str,
        parties: &[PartieAssemblee],
    ) -> ReponseApi<Ecrit> {
        let parties: Vec<CompletedPart> = parties
            .iter()
            .map(|p| {
                CompletedPart::builder()
                    .part_number(p.numero as i32)
                    .e_tag(format!("\"{}\"", p.etag))
                    .checksum_crc32_c(&p.crc32c)
                    .build()
            })
            .collect();
        let r = self
            .client()
            .complete_multipart_upload()
            .bucket(&self.compartiment)
            .key(cle)
            .upload_id(envoi)
            .multipart_upload(
                CompletedMultipartUpload::builder()
                    .set_parts(Some(parties))
                    .build(),
            )
            .send()
            .await;
        match r {
            Ok(o) => ReponseApi::Succes(Ecrit::depuis(o.e_tag(), o.checksum_crc32_c())),
            Err(e) => self.classer(&e),
        }
    }

    /// Abandonne un envoi multipart (rejouable : abandonner deux fois ne fait rien de plus).
    /// Un envoi déjà disparu est un succès.
    pub(crate) async fn abandonner_envoi(&self, cle: &str, envoi: &str) -> ReponseApi<()> {
        let r = self
            .client()
            .abort_multipart_upload()
            .bucket(&self.compartiment)
            .key(cle)
            .upload_id(envoi)
            .send()
            .await;
        match r {
            Ok(_) => ReponseApi::Succes(()),
            Err(e) if statut(&e) == Some(404) => ReponseApi::Succes(()),
            Err(e) => self.classer(&e),
        }
    }

    /// Les parties reçues d'un envoi ; `None` si l'envoi n'existe plus (finalisé, abandonné ou
    /// expiré).
    pub(crate) async fn lister_parties(
        &self,
        cle: &str,
        envoi: &str,
    ) -> ReponseApi<Option<Vec<PartieDistante>>> {
        let mut parties = Vec::new();
        let mut marqueur: Option<String> = None;
        loop {
            let r = self
                .client()
                .list_parts()
                .bucket(&self.compartiment)
                .key(cle)
                .upload_id(envoi)
                .set_part_number_marker(marqueur.clone())
                .send()
                .await;
            let o = match r {
                Ok(o) => o,
                Err(e) if statut(&e) == Some(404) => return ReponseApi::Succes(None),
                Err(e) => return self.classer(&e),
            };
            for p in o.parts() {
                let (Some(numero), Some(taille)) = (p.part_number(), p.size()) else {
                    continue;
                };
                parties.push(PartieDistante {
                    numero: numero.max(0) as u32,
                    taille: taille.max(0) as u64,
                    etag: sans_guillemets(p.e_tag()),
                });
            }
            match (o.is_truncated(), o.next_part_number_marker()) {
                (Some(true), Some(m)) if Some(m) != marqueur.as_deref() => {
                    marqueur = Some(m.to_owned())
                }
                _ => break,
            }
        }
        ReponseApi::Succes(Some(parties))
    }

    /// Les envois multipart ouverts sur exactement cette clé, du plus ancien au plus récent.
    pub(crate) async fn envois_ouverts(&self, cle: &str) -> ReponseApi<Vec<String>> {
        let r = self
            .client()
            .list_multipart_uploads()
            .bucket(&self.compartiment)
            .prefix(cle)
            .send()
            .await;
        match r {
            Ok(o) => {
                let mut envois: Vec<(Option<SystemTime>, String)> = o
                    .uploads()
                    .iter()
                    .filter(|u| u.key() == Some(cle))
                    .filter_map(|u| {
                        let quand = u.initiated().and_then(|t| SystemTime::try_from(*t).ok());
                        u.upload_id().map(|id| (quand, id.to_owned()))
                    })
                    .collect();
                envois.sort();
                ReponseApi::Succes(envois.into_iter().map(|(_, id)| id).collect())
            }
            Err(e) => self.classer(&e),
        }
    }

    /// Une requête peu coûteuse (`HeadBucket`) : la destination répond-elle ?
    pub(crate) async fn sonder(&self) -> ReponseApi<()> {
        match self
            .client()
            .head_bucket()
            .bucket(&self.compartiment)
            .send()
            .await
        {
            Ok(_) => ReponseApi::Succes(()),
            Err(e) => self.classer(&e),
        }
    }

    /// Décrit un objet (taille, ETag, somme) ; `None` s'il n'existe pas.
    pub(crate) async fn decrire(&self, cle: &str) -> ReponseApi<Option<ObjetDistant>> {
        let r = self
            .client()
            .head_object()
            .bucket(&self.compartiment)
            .key(cle)
            .checksum_mode(ChecksumMode::Enabled)
            .send()
            .await;
        match r {
            Ok(o) => ReponseApi::Succes(Some(ObjetDistant {
                taille: o.content_length().unwrap_or(0).max(0) as u64,
                etag: sans_guillemets(o.e_tag()),
                crc32c: o.checksum_crc32_c().map(str::to_owned),
            })),
            Err(e) if statut(&e) == Some(404) => ReponseApi::Succes(None),
            Err(e) => self.classer(&e),
        }
    }
}

fn erreur_locale<T>(e: &std::io::Error) -> ReponseApi<T> {
    // Le fichier local est illisible : rien n'est parti, et réessayer n'y changera rien.
    // Statut 0 : un refus qui ne vient pas du serveur (classé définitif, cause LOCAL).
    ReponseApi::Refuse {
        statut: 0,
        retry_after: None,
        detail: crate::plateforme::lecture_impossible(e),
    }
}

fn statut<E>(e: &SdkError<E, aws_sdk_s3::config::http::HttpResponse>) -> Option<u16> {
    match e {
        SdkError::ServiceError(s) => Some(s.raw().status().as_u16()),
        SdkError::ResponseError(r) => Some(r.raw().status().as_u16()),
        _ => None,
    }
}

/// Le classement des erreurs du SDK en [`ReponseApi`], à un seul endroit.
///
/// - réponse du service : son statut, son `Retry-After` (ou `Retry-After-Ms`), son code S3 ;
///   `400 RequestTimeout` (corps qui a calé) est un délai dépassé, rejouable
///   ([`ReponseApi::refus`]) ;
/// - échec pendant la connexion (refus, DNS, délai de connexion, TLS) : `Injoignable`, la
///   requête n'a **pas** atteint le serveur ;
/// - tout autre échec de transport (coupure en plein corps, réponse perdue, délai) :
///   `Injoignable`, la requête **a pu** être traitée ;
/// - réponse reçue mais illisible (XML tronqué, racine inattendue, corps trop grand) :
///   `Illisible`, avec la cause que donne le SDK (le serveur a répondu : ce n'est pas une
///   coupure du réseau) ;
/// - requête impossible à construire : refus local, jamais rejoué.
pub(crate) fn classer<T, E>(
    e: &SdkError<E, aws_sdk_s3::config::http::HttpResponse>,
) -> ReponseApi<T>
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    if let Some(reproche) = super::certificat::reproche(e) {
        tracing::info!(texte_d_origine = %expurger(&chaine(e)), "certificat refusé");
        return ReponseApi::CertificatRefuse {
            detail: super::certificat::message("le service S3", reproche),
        };
    }
    if let Some(statut) = statut(e) {
        if trop_grande(e) {
            return ReponseApi::Illisible {
                statut,
                detail: detail_reponse_trop_grande(statut),
            };
        }
        // Une réponse coupée en chemin est un accroc du réseau, pas une réponse illisible.
        if matches!(e, SdkError::ResponseError(_)) && coupee_en_chemin(e) {
            return ReponseApi::Injoignable {
                a_pu_atteindre: true,
                detail: expurger(&format!(
                    "réponse coupée (statut {statut}) : {}",
                    erreur_reseau(e)
                )),
            };
        }
        // Une réponse 2xx que le SDK n'a pas su lire n'est pas un refus : le serveur a traité
        // la requête, sa réponse est inexploitable.
        if (200..300).contains(&statut) || matches!(e, SdkError::ResponseError(_)) {
            return ReponseApi::Illisible {
                statut,
                detail: expurger(&format!(
                    "réponse illisible (statut {statut}) : {}",
                    chaine(e)
                )),
            };
        }
    }
    match e {
        SdkError::ServiceError(s) => {
            let brut = s.raw();
            let entete = |nom: &str| brut.headers().get(nom);
            let retry_after = attente_demandee(
                entete("retry-after"),
                entete("retry-after-ms"),
                SystemTime::now(),
            );
            let code = s.err().code();
            let message = s.err().message().unwrap_or("");
            // L'horloge de l'ordinateur s'écarte trop de celle du service : de combien, l'en-tête
            // `Date` de la réponse le dit (en français d'emblée, le code entre parenthèses).
            let detail = if code == Some(HORLOGE_REFUSEE) {
                let date = entete("date").and_then(|d| httpdate::parse_http_date(d).ok());
                format!(
                    "{} ({HORLOGE_REFUSEE})",
                    ecart_d_horloge(date, SystemTime::now())
                )
            } else {
                format!("{} {message}", code.unwrap_or(""))
            };
            ReponseApi::refus(
                brut.status().as_u16(),
                code,
                retry_after,
                expurger(detail.trim()),
            )
        }
        SdkError::DispatchFailure(_) if phase_connexion(e) => ReponseApi::Injoignable {
            a_pu_atteindre: false,
            detail: expurger(&erreur_reseau(e)),
        },
        SdkError::ConstructionFailure(_) => ReponseApi::Refuse {
            statut: 0,
            retry_after: None,
            detail: expurger(&format!("requête impossible à construire : {}", chaine(e))),
        },
        _ => ReponseApi::Injoignable {
            a_pu_atteindre: true,
            detail: expurger(&erreur_reseau(e)),
        },
    }
}

/// Le code du refus de S3 quand l'heure d'une requête signée s'écarte de plus de 15 minutes de
/// la sienne.
pub(crate) const HORLOGE_REFUSEE: &str = "RequestTimeTooSkewed";

/// L'écart entre l'horloge de cet ordinateur (`maintenant`) et celle du service (`date`, son
/// en-tête `Date`), en clair : « l'horloge de cet ordinateur retarde de 2 h 00 min sur celle
/// du service ».
pub(crate) fn ecart_d_horloge(date: Option<SystemTime>, maintenant: SystemTime) -> String {
    let Some(date) = date else {
        return "l'horloge de cet ordinateur s'écarte de plus de 15 min de celle du service (de \
                combien, il ne le dit pas)"
            .to_owned();
    };
    let (sens, ecart) = match date.duration_since(maintenant) {
        Ok(d) => ("retarde", d),
        Err(e) => ("avance", e.duration()),
    };
    // À la minute près : l'en-tête `Date` ne dit pas les fractions de seconde, et la requête a
    // mis un peu de temps à revenir.
    let ecart = Duration::from_secs((ecart.as_secs() + 30) / 60 * 60);
    // Un écart sous le seuil de S3 ne peut pas être celui qu'il refuse (la requête a pu être
    // signée à une heure déjà corrigée par le SDK, d'après une réponse précédente) : on ne le
    // chiffre pas.
    if ecart < Duration::from_secs(15 * 60) {
        return ecart_d_horloge(None, maintenant);
    }
    format!(
        "l'horloge de cet ordinateur {sens} de {} sur celle du service",
        crate::texte::duree_lisible(ecart)
    )
}

/// La lecture du corps de la réponse a-t-elle échoué sur une erreur de transport (connexion
/// coupée, délai) plutôt que sur son contenu ?
fn coupee_en_chemin(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut s: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(x) = s {
        if x.downcast_ref::<std::io::Error>().is_some()
            || x.downcast_ref::<hyper::Error>().is_some()
        {
            return true;
        }
        s = x.source();
    }
    false
}

/// La lecture de la réponse a-t-elle été arrêtée par le plafond ?
fn trop_grande(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut s: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(x) = s {
        if x.downcast_ref::<CorpsTropGrand>().is_some() {
            return true;
        }
        s = x.source();
    }
    false
}

/// Plafonne chaque corps de réponse que le SDK lira (voir [`CORPS_REPONSE_MAX`]).
#[derive(Debug)]
struct PlafondReponse;

impl aws_sdk_s3::config::Intercept for PlafondReponse {
    fn name(&self) -> &'static str {
        "vigie::PlafondReponse"
    }

    fn modify_before_deserialization(
        &self,
        context: &mut aws_sdk_s3::config::interceptors::BeforeDeserializationInterceptorContextMut<
            '_,
        >,
        _: &aws_sdk_s3::config::RuntimeComponents,
        _: &mut aws_sdk_s3::config::ConfigBag,
    ) -> Result<(), aws_sdk_s3::error::BoxError> {
        // Les en-têtes de la réponse sont là : un signe de vie de la connexion.
        super::corps::reponse_recue(context.response().status().as_u16());
        let corps = context.response_mut().body_mut();
        let brut = std::mem::replace(corps, aws_sdk_s3::primitives::SdkBody::taken());
        *corps = aws_sdk_s3::primitives::SdkBody::from_body_1_x(CorpsPlafonne::nouveau(
            brut,
            CORPS_REPONSE_MAX,
        ));
        Ok(())
    }
}

/// Vrai si l'échec a eu lieu pendant l'établissement de la connexion : la requête n'a alors
/// pas atteint le serveur. `is_io` ou `is_timeout` ne suffisent pas (une coupure en plein corps
/// est aussi une erreur d'E/S) : seul le client hyper sait dans quelle phase il a échoué.
fn phase_connexion<E, R>(e: &SdkError<E, R>) -> bool
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    let SdkError::DispatchFailure(d) = e else {
        return false;
    };
    let Some(ce) = d.as_connector_error() else {
        return false;
    };
    let mut s: Option<&(dyn std::error::Error + 'static)> = Some(ce);
    while let Some(x) = s {
        if let Some(h) = x.downcast_ref::<hyper_util::client::legacy::Error>() {
            return h.is_connect();
        }
        s = x.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecart_d_horloge_en_clair() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(
            ecart_d_horloge(Some(t + Duration::from_secs(7_201)), t),
            "l'horloge de cet ordinateur retarde de 2 h 00 min sur celle du service"
        );
        assert_eq!(
            ecart_d_horloge(Some(t - Duration::from_secs(1_790)), t),
            "l'horloge de cet ordinateur avance de 30 min 00 s sur celle du service"
        );
        assert!(ecart_d_horloge(None, t).contains("il ne le dit pas"));
        assert!(ecart_d_horloge(Some(t), t).contains("il ne le dit pas"));
    }
}
