//! URL présignées S3 « v2 » (paramètres `AWSAccessKeyId`, `Expires`, `Signature`), telles que
//! les fabrique la plateforme Vigie-Chiro pour ses envois vers S3 et ses lectures.
//!
//! Pourquoi : la vraie plateforme signe ses URL en signature v2 (HMAC-SHA1), et c'est cette
//! signature qui couvre le `Content-Type` d'un PUT : un client qui envoie un autre type que le
//! `mime` rendu, ou un type quelconque sur un PUT de partie, reçoit 403 `SignatureDoesNotMatch`.
//! Le bac à sable doit refuser exactement ce que refuse AWS. La **vérification** est faite par
//! s3s 0.14.1 lui-même (il sait vérifier une URL présignée v2 : expiration, `Content-MD5`,
//! `Content-Type`, en-têtes `x-amz-*`, sous-ressources `partNumber` et `uploadId`) ; ce module
//! ne fait que **fabriquer** les URL, comme le serveur Python d'origine :
//!
//! ```text
//! chaîne à signer = "PUT\n<Content-MD5>\n<Content-Type>\n<Expires>\n/<compartiment>/<clé>[?partNumber=N&uploadId=X]"
//!                   (ou "GET\n\n\n<Expires>\n/<compartiment>/<clé>" pour une lecture)
//! Signature       = quote_plus(base64(HMAC-SHA1(secret, chaîne)))
//! ```
//!
//! HMAC-SHA1 est écrit ici (RFC 2104, quelques lignes) sur le SHA-1 public de `s3s::crypto`,
//! plutôt que d'ajouter `hmac`/`sha1` aux dépendances directes du crate.

use s3s::crypto::{Checksum, Sha1};

/// Taille de bloc de SHA-1 (RFC 2104 : B = 64).
const BLOC_SHA1: usize = 64;

/// HMAC-SHA1 (RFC 2104).
pub(crate) fn hmac_sha1(cle: &[u8], message: &[u8]) -> [u8; 20] {
    let mut k = [0u8; BLOC_SHA1];
    if cle.len() > BLOC_SHA1 {
        k[..20].copy_from_slice(&Sha1::checksum(cle));
    } else {
        k[..cle.len()].copy_from_slice(cle);
    }
    let ipad: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let mut interne = Sha1::new();
    interne.update(&ipad);
    interne.update(message);
    let empreinte = interne.finalize();
    let mut externe = Sha1::new();
    externe.update(&opad);
    externe.update(&empreinte);
    externe.finalize()
}

/// Signature v2 : `base64(HMAC-SHA1(secret, chaîne))`, non encodée pour une URL.
pub(crate) fn signature_v2(secret: &str, chaine_a_signer: &str) -> String {
    base64_simd::STANDARD.encode_to_string(hmac_sha1(secret.as_bytes(), chaine_a_signer.as_bytes()))
}

/// Encodage « quote_plus » de Python pour une valeur de paramètre : tout ce qui n'est pas
/// alphanumérique ASCII ou `_.-~` devient `%XX` (en particulier `+`, `/` et `=` d'un base64).
pub(crate) fn encoder_parametre(valeur: &str) -> String {
    let mut sortie = String::with_capacity(valeur.len() * 3);
    for o in valeur.bytes() {
        if o.is_ascii_alphanumeric() || matches!(o, b'_' | b'.' | b'-' | b'~') {
            sortie.push(char::from(o));
        } else {
            sortie.push_str(&format!("%{o:02X}"));
        }
    }
    sortie
}

/// Encode une clé d'objet pour un chemin d'URL : comme [`encoder_parametre`], mais les `/`
/// restent des séparateurs. Les clés de la plateforme (`wav/pa-<id>/<titre>`, titre limité à
/// `[A-Za-z0-9_.-]`) passent inchangées.
pub(crate) fn encoder_chemin(cle: &str) -> String {
    cle.split('/')
        .map(encoder_parametre)
        .collect::<Vec<_>>()
        .join("/")
}

/// Ce que signe une URL de PUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Envoi<'a> {
    /// PUT simple : le `Content-Type` signé, que le client devra envoyer à l'identique.
    Simple { content_type: &'a str },
    /// PUT d'une partie d'un envoi multipart : aucun `Content-Type` signé.
    Partie { numero: u32, id_envoi: &'a str },
}

/// URL présignée v2 d'un PUT, en style chemin sur `base` (`http://127.0.0.1:PORT`) :
/// `base/<compartiment>/<clé>?[partNumber=N&uploadId=X&]AWSAccessKeyId=…&Expires=…&Signature=…`
/// (ordre des paramètres du serveur d'origine).
pub(crate) fn url_put(
    base: &str,
    cle_acces: &str,
    secret: &str,
    compartiment: &str,
    cle: &str,
    envoi: Envoi<'_>,
    expires: u64,
) -> String {
    let (content_type, sous_ressource) = match envoi {
        Envoi::Simple { content_type } => (content_type, String::new()),
        Envoi::Partie { numero, id_envoi } => (
            "",
            format!(
                "partNumber={numero}&uploadId={}",
                encoder_parametre(id_envoi)
            ),
        ),
    };
    url_v2(
        base,
        (cle_acces, secret),
        compartiment,
        cle,
        ("PUT", content_type, &sous_ressource),
        expires,
    )
}

/// URL présignée v2 d'une **lecture** (`GET`), telle que la fabrique `s3_access_file`
/// (`resources/fichiers.py`, `_sign_request(verb='GET', object_name=…)`) : ni `Content-Type`
/// ni sous-ressource signés. Un en-tête `Range` n'entre pas dans la signature v2 : le client
/// peut lire un seul octet (taille totale et ETag) sans télécharger l'objet.
pub(crate) fn url_get(
    base: &str,
    cle_acces: &str,
    secret: &str,
    compartiment: &str,
    cle: &str,
    expires: u64,
) -> String {
    url_v2(
        base,
        (cle_acces, secret),
        compartiment,
        cle,
        ("GET", "", ""),
        expires,
    )
}

/// `_sign_request` du serveur : signe la chaîne
/// `<verbe>\n\n<type>\n<expires>\n/<compartiment>/<clé>[?<sous-ressource>]`, puis rend
/// `base/<compartiment>/<clé>?[<sous-ressource>&]AWSAccessKeyId=…&Expires=…&Signature=…`.
fn url_v2(
    base: &str,
    (cle_acces, secret): (&str, &str),
    compartiment: &str,
    cle: &str,
    (verbe, content_type, sous_ressource): (&str, &str, &str),
    expires: u64,
) -> String {
    let chemin = format!("/{compartiment}/{}", encoder_chemin(cle));
    let mut ressource = chemin.clone();
    if !sous_ressource.is_empty() {
        ressource.push('?');
        ressource.push_str(sous_ressource);
    }
    let chaine = format!("{verbe}\n\n{content_type}\n{expires}\n{ressource}");
    let signature = encoder_parametre(&signature_v2(secret, &chaine));
    let debut = if sous_ressource.is_empty() {
        String::new()
    } else {
        format!("{sous_ressource}&")
    };
    format!(
        "{base}{chemin}?{debut}AWSAccessKeyId={}&Expires={expires}&Signature={signature}",
        encoder_parametre(cle_acces)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(o: &[u8]) -> String {
        o.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hmac_sha1_vecteurs_rfc_2202() {
        assert_eq!(
            hex(&hmac_sha1(&[0x0b; 20], b"Hi There")),
            "b617318655057264e28bc0b6fb378c8ef146be00"
        );
        assert_eq!(
            hex(&hmac_sha1(b"Jefe", b"what do ya want for nothing?")),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
        );
        // clé plus longue qu'un bloc : hachée d'abord
        assert_eq!(
            hex(&hmac_sha1(
                &[0xaa; 80],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "aa4ae5e15272d00e95705637ce8a3b55ed402112"
        );
    }

    #[test]
    fn signature_v2_de_la_documentation_aws() {
        // Exemple « Query string request authentication » de la documentation S3 (valeur
        // corrigée, la même que dans les tests de s3s).
        assert_eq!(
            signature_v2(
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "GET\n\n\n1175139620\n/awsexamplebucket1/photos/puppy.jpg"
            ),
            "1No4mq5ETf02z8aet9voy6gui6E="
        );
    }

    #[test]
    fn encodage_quote_plus() {
        assert_eq!(encoder_parametre("a+b/c=="), "a%2Bb%2Fc%3D%3D");
        assert_eq!(encoder_parametre("Car-1_2.wav~"), "Car-1_2.wav~");
        assert_eq!(encoder_chemin("wav/pa-1/a b.wav"), "wav/pa-1/a%20b.wav");
    }

    #[test]
    fn forme_des_url() {
        let u = url_put(
            "http://127.0.0.1:9",
            "CLE",
            "secret",
            "seau",
            "wav/pa-1/a.wav",
            Envoi::Simple {
                content_type: "audio/wav",
            },
            1_900_000_000,
        );
        let signature = encoder_parametre(&signature_v2(
            "secret",
            "PUT\n\naudio/wav\n1900000000\n/seau/wav/pa-1/a.wav",
        ));
        assert_eq!(
            u,
            format!(
                "http://127.0.0.1:9/seau/wav/pa-1/a.wav?AWSAccessKeyId=CLE&Expires=1900000000&Signature={signature}"
            )
        );
        let u = url_put(
            "http://h",
            "CLE",
            "secret",
            "seau",
            "k",
            Envoi::Partie {
                numero: 3,
                id_envoi: "u-1",
            },
            5,
        );
        let signature = encoder_parametre(&signature_v2(
            "secret",
            "PUT\n\n\n5\n/seau/k?partNumber=3&uploadId=u-1",
        ));
        assert_eq!(
            u,
            format!(
                "http://h/seau/k?partNumber=3&uploadId=u-1&AWSAccessKeyId=CLE&Expires=5&Signature={signature}"
            )
        );
        let u = url_get("http://h", "CLE", "secret", "seau", "wav/pa-1/a.wav", 7);
        let signature =
            encoder_parametre(&signature_v2("secret", "GET\n\n\n7\n/seau/wav/pa-1/a.wav"));
        assert_eq!(
            u,
            format!(
                "http://h/seau/wav/pa-1/a.wav?AWSAccessKeyId=CLE&Expires=7&Signature={signature}"
            )
        );
    }
}
