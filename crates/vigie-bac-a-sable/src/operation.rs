//! Reconnaissance de l'opération S3 visée par une requête HTTP, avant que s3s ne la lise.
//!
//! Pourquoi ici et pas dans s3s : la couche de pannes doit décider du sort d'une requête (la
//! couper, la ralentir, lui répondre 503…) dès ses en-têtes reçus, sans avoir lu son corps ni
//! vérifié sa signature. On reconnaît donc l'opération comme le ferait un routeur S3 en style
//! chemin (`/{compartiment}/{clé}`), à partir de la méthode, du chemin et des paramètres de
//! requête (`?uploads`, `?uploadId=`, `?partNumber=`). Le style « virtual-hosted »
//! (`compartiment.hôte`) n'est pas reconnu : le bac à sable n'accepte que le style chemin.
//!
//! Les requêtes dont le premier segment de chemin est `api` visent la plateforme Vigie-Chiro
//! locale (`/api/v1/…`, voir `vigiechiro.rs`) : elles reçoivent une opération `Api…`, sans
//! compartiment ni clé (la clé d'une opération d'API n'est connue qu'après lecture du corps ou
//! de l'état de la plateforme). Aucun compartiment ne peut donc s'appeler `api`.
//!
//! La clé rendue est **décodée** (pourcent-décodage du chemin) : c'est la clé d'objet telle que
//! le client l'a donnée au SDK, par exemple `nuit/sous/Car 761.wav` pour le chemin
//! `/nuits/nuit/sous/Car%20761.wav`. Les compteurs et les règles de pannes s'y réfèrent.

use std::fmt;
use std::str::FromStr;

use hyper::header::HeaderMap;
use hyper::{Method, Uri};

use crate::pourcent::decoder_pourcent;

/// Opération reconnue par le bac à sable : une opération S3 (nom identique à celui de l'API
/// S3) ou une route de l'API Vigie-Chiro locale (préfixe `Api`).
///
/// `Autre` regroupe tout ce qui n'a pas de variante (CopyObject, DeleteObjects,
/// GetBucketLocation, sous-ressources `?acl`, `?tagging`…) ; `ApiAutre`, toute requête sous
/// `/api` qui ne correspond à aucune route (404, 405).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    PutObject,
    UploadPart,
    CreateMultipartUpload,
    CompleteMultipartUpload,
    AbortMultipartUpload,
    ListParts,
    ListMultipartUploads,
    HeadObject,
    GetObject,
    DeleteObject,
    HeadBucket,
    CreateBucket,
    /// `ListObjects` et `ListObjectsV2` (`?list-type=2`) confondus.
    ListObjects,
    ListBuckets,
    Autre,
    /// `GET /api/v1/moi`
    ApiMoi,
    /// `POST /api/v1/sites/{site}/participations`
    ApiCreerParticipation,
    /// `GET /api/v1/sites/{site}/participations`
    ApiListerParticipations,
    /// `POST /api/v1/fichiers`
    ApiDeclarerFichier,
    /// `PUT /api/v1/fichiers/{id}/multipart`
    ApiUrlPartie,
    /// `POST /api/v1/fichiers/{id}`
    ApiFinaliser,
    /// `DELETE /api/v1/fichiers/{id}`
    ApiAbandonner,
    /// `POST /api/v1/participations/{id}/compute`
    ApiCalcul,
    /// `GET /api/v1/fichiers/{id}`
    ApiLireFichier,
    /// `GET /api/v1/participations/{id}`
    ApiLireParticipation,
    /// `PATCH /api/v1/participations/{id}`
    ApiModifierParticipation,
    /// `GET /api/v1/sites/{id}`
    ApiLireSite,
    /// `GET /api/v1/moi/sites` (les sites de l'utilisateur)
    ApiMesSites,
    /// `GET /api/v1/moi/participations` (les participations de l'utilisateur)
    ApiMesParticipations,
    /// `GET /api/v1/participations/{id}/pieces_jointes` (la liste des fichiers)
    ApiPiecesJointes,
    /// `GET /api/v1/fichiers/{id}/acces` (l'URL de lecture d'un fichier)
    ApiAccesFichier,
    /// `GET /api/v1/taxons/liste`
    ApiTaxons,
    /// `POST /api/v1/participations/{id}/csv` (le CSV des observations par courriel)
    ApiCsv,
    /// Toute autre requête sous `/api`.
    ApiAutre,
}

impl Operation {
    /// Toutes les opérations, dans l'ordre de déclaration.
    pub const TOUTES: [Operation; 34] = [
        Operation::PutObject,
        Operation::UploadPart,
        Operation::CreateMultipartUpload,
        Operation::CompleteMultipartUpload,
        Operation::AbortMultipartUpload,
        Operation::ListParts,
        Operation::ListMultipartUploads,
        Operation::HeadObject,
        Operation::GetObject,
        Operation::DeleteObject,
        Operation::HeadBucket,
        Operation::CreateBucket,
        Operation::ListObjects,
        Operation::ListBuckets,
        Operation::Autre,
        Operation::ApiMoi,
        Operation::ApiCreerParticipation,
        Operation::ApiListerParticipations,
        Operation::ApiDeclarerFichier,
        Operation::ApiUrlPartie,
        Operation::ApiFinaliser,
        Operation::ApiAbandonner,
        Operation::ApiCalcul,
        Operation::ApiLireFichier,
        Operation::ApiLireParticipation,
        Operation::ApiModifierParticipation,
        Operation::ApiLireSite,
        Operation::ApiMesSites,
        Operation::ApiMesParticipations,
        Operation::ApiPiecesJointes,
        Operation::ApiAccesFichier,
        Operation::ApiTaxons,
        Operation::ApiCsv,
        Operation::ApiAutre,
    ];

    /// Nom de l'opération, tel que dans l'API S3 (« PutObject »…).
    pub fn nom(self) -> &'static str {
        match self {
            Operation::PutObject => "PutObject",
            Operation::UploadPart => "UploadPart",
            Operation::CreateMultipartUpload => "CreateMultipartUpload",
            Operation::CompleteMultipartUpload => "CompleteMultipartUpload",
            Operation::AbortMultipartUpload => "AbortMultipartUpload",
            Operation::ListParts => "ListParts",
            Operation::ListMultipartUploads => "ListMultipartUploads",
            Operation::HeadObject => "HeadObject",
            Operation::GetObject => "GetObject",
            Operation::DeleteObject => "DeleteObject",
            Operation::HeadBucket => "HeadBucket",
            Operation::CreateBucket => "CreateBucket",
            Operation::ListObjects => "ListObjects",
            Operation::ListBuckets => "ListBuckets",
            Operation::Autre => "Autre",
            Operation::ApiMoi => "ApiMoi",
            Operation::ApiCreerParticipation => "ApiCreerParticipation",
            Operation::ApiListerParticipations => "ApiListerParticipations",
            Operation::ApiDeclarerFichier => "ApiDeclarerFichier",
            Operation::ApiUrlPartie => "ApiUrlPartie",
            Operation::ApiFinaliser => "ApiFinaliser",
            Operation::ApiAbandonner => "ApiAbandonner",
            Operation::ApiCalcul => "ApiCalcul",
            Operation::ApiLireFichier => "ApiLireFichier",
            Operation::ApiLireParticipation => "ApiLireParticipation",
            Operation::ApiModifierParticipation => "ApiModifierParticipation",
            Operation::ApiLireSite => "ApiLireSite",
            Operation::ApiMesSites => "ApiMesSites",
            Operation::ApiMesParticipations => "ApiMesParticipations",
            Operation::ApiPiecesJointes => "ApiPiecesJointes",
            Operation::ApiAccesFichier => "ApiAccesFichier",
            Operation::ApiTaxons => "ApiTaxons",
            Operation::ApiCsv => "ApiCsv",
            Operation::ApiAutre => "ApiAutre",
        }
    }

    /// Une route de l'API Vigie-Chiro locale (et non une opération S3) ?
    pub(crate) fn est_api(self) -> bool {
        matches!(
            self,
            Operation::ApiMoi
                | Operation::ApiCreerParticipation
                | Operation::ApiListerParticipations
                | Operation::ApiDeclarerFichier
                | Operation::ApiUrlPartie
                | Operation::ApiFinaliser
                | Operation::ApiAbandonner
                | Operation::ApiCalcul
                | Operation::ApiLireFichier
                | Operation::ApiLireParticipation
                | Operation::ApiModifierParticipation
                | Operation::ApiLireSite
                | Operation::ApiMesSites
                | Operation::ApiMesParticipations
                | Operation::ApiPiecesJointes
                | Operation::ApiAccesFichier
                | Operation::ApiTaxons
                | Operation::ApiCsv
                | Operation::ApiAutre
        )
    }

    /// Liste lisible des noms admis, pour les messages d'erreur.
    pub(crate) fn noms_admis() -> String {
        Operation::TOUTES
            .iter()
            .map(|o| o.nom())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.nom())
    }
}

impl FromStr for Operation {
    type Err = String;

    /// Nom de l'opération, sans égard à la casse (« PutObject », « putobject »,
    /// « ApiFinaliser »).
    /// `ListObjectsV2` est admis comme synonyme de `ListObjects`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("ListObjectsV2") {
            return Ok(Operation::ListObjects);
        }
        Operation::TOUTES
            .iter()
            .copied()
            .find(|o| o.nom().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "opération inconnue « {s} » : attendu l'une de {}",
                    Operation::noms_admis()
                )
            })
    }
}

/// Ce que la couche de pannes sait d'une requête avant de la lire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cible {
    pub operation: Operation,
    /// Compartiment (premier segment du chemin, décodé), absent pour `GET /`.
    pub compartiment: Option<String>,
    /// Clé d'objet décodée, absente pour une opération sur le compartiment.
    pub cle: Option<String>,
}

/// Paramètres de requête qui n'empêchent pas un `GET /{compartiment}` d'être un listage.
const PARAMETRES_LISTAGE: &[&str] = &[
    "list-type",
    "prefix",
    "delimiter",
    "max-keys",
    "marker",
    "continuation-token",
    "start-after",
    "encoding-type",
    "fetch-owner",
    "x-id",
];

/// Sous-ressources d'objet qui ne sont ni une lecture, ni une écriture, ni un multipart.
const SOUS_RESSOURCES_OBJET: &[&str] = &[
    "acl",
    "tagging",
    "attributes",
    "retention",
    "legal-hold",
    "torrent",
    "restore",
    "select",
];

/// L'opération et la clé d'objet d'une requête S3 en style chemin (pour un mandataire de test qui
/// applique les [`Pannes`](super::Pannes) devant un autre serveur S3).
pub fn operation_de_requete(
    methode: &Method,
    uri: &Uri,
    entetes: &HeaderMap,
) -> (Operation, Option<String>) {
    let c = analyser_requete(methode, uri, entetes);
    (c.operation, c.cle)
}

/// Reconnaît l'opération, le compartiment et la clé d'une requête en style chemin.
pub(crate) fn analyser_requete(methode: &Method, uri: &Uri, entetes: &HeaderMap) -> Cible {
    if super::vigiechiro::est_chemin_api(uri.path()) {
        return Cible {
            operation: super::vigiechiro::Route::analyser(methode, uri.path()).operation(),
            compartiment: None,
            cle: None,
        };
    }
    let parametres: Vec<&str> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
        .collect();
    let a = |nom: &str| parametres.contains(&nom);
    let copie = entetes.contains_key("x-amz-copy-source");

    let chemin = uri.path().trim_start_matches('/');
    let (compartiment, cle) = match chemin.split_once('/') {
        Some((c, k)) => (c, k),
        None => (chemin, ""),
    };
    let compartiment = (!compartiment.is_empty()).then(|| decoder_pourcent(compartiment));
    let cle = (!cle.is_empty()).then(|| decoder_pourcent(cle));

    let sous_ressource_objet = parametres.iter().any(|p| SOUS_RESSOURCES_OBJET.contains(p));
    let operation = match (methode, compartiment.is_some(), cle.is_some()) {
        (&Method::GET, false, _) => Operation::ListBuckets,
        // --- compartiment ---
        (&Method::PUT, true, false) if parametres.is_empty() => Operation::CreateBucket,
        (&Method::HEAD, true, false) => Operation::HeadBucket,
        (&Method::GET, true, false) if a("uploads") => Operation::ListMultipartUploads,
        (&Method::GET, true, false)
            if parametres.iter().all(|p| PARAMETRES_LISTAGE.contains(p)) =>
        {
            Operation::ListObjects
        }
        // --- objet ---
        (&Method::PUT, true, true) if copie || sous_ressource_objet => Operation::Autre,
        (&Method::PUT, true, true) if a("uploadId") && a("partNumber") => Operation::UploadPart,
        (&Method::PUT, true, true) if a("uploadId") || a("partNumber") => Operation::Autre,
        (&Method::PUT, true, true) => Operation::PutObject,
        (&Method::POST, true, true) if a("uploads") => Operation::CreateMultipartUpload,
        (&Method::POST, true, true) if a("uploadId") => Operation::CompleteMultipartUpload,
        (&Method::DELETE, true, true) if a("uploadId") => Operation::AbortMultipartUpload,
        (&Method::DELETE, true, true) if !sous_ressource_objet => Operation::DeleteObject,
        (&Method::GET, true, true) if a("uploadId") => Operation::ListParts,
        (&Method::GET, true, true) if !sous_ressource_objet => Operation::GetObject,
        (&Method::HEAD, true, true) => Operation::HeadObject,
        _ => Operation::Autre,
    };
    Cible {
        operation,
        compartiment,
        cle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(methode: Method, uri: &str) -> Cible {
        let uri: Uri = uri.parse().expect("uri de test");
        analyser_requete(&methode, &uri, &HeaderMap::new())
    }

    #[test]
    fn reconnait_les_operations_du_depot() {
        let cas = [
            (
                Method::PUT,
                "/nuits/a/b.wav?x-id=PutObject",
                Operation::PutObject,
            ),
            (
                Method::PUT,
                "/nuits/a/b.wav?partNumber=2&uploadId=abc&x-id=UploadPart",
                Operation::UploadPart,
            ),
            (
                Method::POST,
                "/nuits/a/b.wav?uploads&x-id=CreateMultipartUpload",
                Operation::CreateMultipartUpload,
            ),
            (
                Method::POST,
                "/nuits/a/b.wav?uploadId=abc",
                Operation::CompleteMultipartUpload,
            ),
            (
                Method::DELETE,
                "/nuits/a/b.wav?uploadId=abc&x-id=AbortMultipartUpload",
                Operation::AbortMultipartUpload,
            ),
            (
                Method::GET,
                "/nuits/a/b.wav?uploadId=abc&x-id=ListParts",
                Operation::ListParts,
            ),
            (
                Method::GET,
                "/nuits?uploads",
                Operation::ListMultipartUploads,
            ),
            (
                Method::GET,
                "/nuits/?uploads&prefix=a",
                Operation::ListMultipartUploads,
            ),
            (Method::HEAD, "/nuits/a/b.wav", Operation::HeadObject),
            (
                Method::GET,
                "/nuits/a/b.wav?x-id=GetObject",
                Operation::GetObject,
            ),
            (
                Method::GET,
                "/nuits/a/b.wav?partNumber=1",
                Operation::GetObject,
            ),
            (
                Method::DELETE,
                "/nuits/a/b.wav?x-id=DeleteObject",
                Operation::DeleteObject,
            ),
            (Method::HEAD, "/nuits", Operation::HeadBucket),
            (Method::PUT, "/nuits", Operation::CreateBucket),
            (
                Method::GET,
                "/nuits?list-type=2&prefix=a%2F",
                Operation::ListObjects,
            ),
            (Method::GET, "/nuits", Operation::ListObjects),
            (Method::GET, "/", Operation::ListBuckets),
            (Method::GET, "/nuits?location", Operation::Autre),
            (Method::POST, "/nuits?delete", Operation::Autre),
            (Method::PUT, "/nuits/a.wav?tagging", Operation::Autre),
            // l'API Vigie-Chiro locale, servie sur le même port
            (Method::GET, "/api/v1/moi", Operation::ApiMoi),
            (
                Method::POST,
                "/api/v1/sites/64a1b2c3d4e5f60718293c01/participations",
                Operation::ApiCreerParticipation,
            ),
            (
                Method::GET,
                "/api/v1/sites/64a1b2c3d4e5f60718293c01/participations?page=2",
                Operation::ApiListerParticipations,
            ),
            (
                Method::POST,
                "/api/v1/fichiers",
                Operation::ApiDeclarerFichier,
            ),
            (
                Method::PUT,
                "/api/v1/fichiers/64a1b2c3d4e5f60718293e01/multipart",
                Operation::ApiUrlPartie,
            ),
            (
                Method::POST,
                "/api/v1/fichiers/64a1b2c3d4e5f60718293e01",
                Operation::ApiFinaliser,
            ),
            (
                Method::DELETE,
                "/api/v1/fichiers/64a1b2c3d4e5f60718293e01",
                Operation::ApiAbandonner,
            ),
            (
                Method::GET,
                "/api/v1/fichiers/64a1b2c3d4e5f60718293e01",
                Operation::ApiLireFichier,
            ),
            (
                Method::POST,
                "/api/v1/participations/64a1b2c3d4e5f60718293d01/compute",
                Operation::ApiCalcul,
            ),
            (
                Method::GET,
                "/api/v1/fichiers/pas-un-id",
                Operation::ApiAutre,
            ),
            (Method::PATCH, "/api/v1/moi", Operation::ApiAutre),
            (Method::GET, "/api", Operation::ApiAutre),
            // un compartiment dont le nom commence par « api » reste du S3
            (Method::PUT, "/apis/a.wav", Operation::PutObject),
        ];
        for (m, u, attendu) in cas {
            assert_eq!(op(m.clone(), u).operation, attendu, "{m} {u}");
        }
    }

    #[test]
    fn une_copie_n_est_pas_un_put() {
        let mut entetes = HeaderMap::new();
        entetes.insert("x-amz-copy-source", "/nuits/x".parse().expect("en-tête"));
        let uri: Uri = "/nuits/y".parse().expect("uri");
        assert_eq!(
            analyser_requete(&Method::PUT, &uri, &entetes).operation,
            Operation::Autre
        );
    }

    #[test]
    fn la_cle_est_decodee_et_garde_ses_barres() {
        let c = op(
            Method::PUT,
            "/nuits/nuit/sous/Car%20170517_%C3%A9t%C3%A9_761.wav?x-id=PutObject",
        );
        assert_eq!(c.compartiment.as_deref(), Some("nuits"));
        assert_eq!(c.cle.as_deref(), Some("nuit/sous/Car 170517_été_761.wav"));
        let c = op(Method::HEAD, "/nuits/");
        assert_eq!(c.operation, Operation::HeadBucket);
        assert_eq!(c.cle, None);
    }

    #[test]
    fn noms_aller_retour() {
        for o in Operation::TOUTES {
            assert_eq!(o.to_string().parse::<Operation>(), Ok(o));
        }
        assert_eq!("putobject".parse::<Operation>(), Ok(Operation::PutObject));
        assert_eq!(
            "ListObjectsV2".parse::<Operation>(),
            Ok(Operation::ListObjects)
        );
        let e = "PutObjet".parse::<Operation>().unwrap_err();
        assert!(e.contains("PutObjet") && e.contains("PutObject"), "{e}");
    }
}
