//! Ce que disent le réseau et les serveurs, redit en français.
//!
//! Pourquoi : les bibliothèques et les serveurs parlent anglais, et leur texte arrivait tel quel
//! devant le naturaliste : « error sending request : client error (Connect) : dns error : error
//! resolving DNS : failed to lookup address information: Name or service not known » pour une
//! adresse mal tapée ou un téléphone sans données, « Forbidden » pour un refus de droits,
//! « `6b0ea…` is not a valid fichiers resource » pour un fichier que la plateforme ne connaît
//! plus. Ici, chaque cause connue est dite en français, en quelques mots ; le texte d'origine
//! n'est pas perdu : il part au journal (`-v`, `--journal`), où qui enquête le retrouve.
//!
//! Deux entrées, et seulement du texte : [`erreur_reseau`] décrit une erreur de transport (sa
//! chaîne de causes), à l'endroit où le transport compose le détail d'un
//! [`ReponseApi::Injoignable`](crate::reessai::ReponseApi) ; [`refus_serveur`] redit le
//! message d'un refus au moment de le montrer (le transport garde le texte du serveur tel
//! quel dans le détail du refus : le moteur y reconnaît des réponses précises, comme
//! `upload is already done`). Rien ici ne classe : rejouable ou non, atteint ou non, reste
//! décidé par le transport.
//!
//! Les messages du serveur Vigie-Chiro viennent de son code (`xin/snippets.py`
//! `get_resource`, `resources/fichiers.py`, `resources/donnees.py`) et des textes par défaut de
//! werkzeug (`abort(403)` sans description) ; ceux de S3, des codes d'erreur documentés.

use std::borrow::Cow;
use std::error::Error;
use std::io::ErrorKind;

/// Une erreur de transport (pas de réponse du serveur), en français : la cause la plus parlante
/// de sa chaîne. Le texte d'origine est journalisé (niveau `info`, visible avec `-v`).
pub(crate) fn erreur_reseau(e: &(dyn Error + 'static)) -> String {
    let origine = chaine(e);
    let francais = cause_reseau(e, &origine).to_owned();
    tracing::info!(
        texte_d_origine = %crate::secrets::expurger(&origine),
        "erreur du réseau : {francais}"
    );
    francais
}

/// Le message d'une erreur et de ses causes, sur une ligne, sans répétition.
pub(crate) fn chaine(e: &(dyn Error + 'static)) -> String {
    let mut morceaux = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let texte = s.to_string();
        if !morceaux.iter().any(|m| m.contains(&texte)) {
            morceaux.push(texte);
        }
        source = s.source();
    }
    morceaux.join(" : ")
}

/// La cause d'une erreur de transport, d'après les types de sa chaîne (erreurs d'E/S, hyper),
/// puis, à défaut, d'après les mots de son texte (DNS, TLS, délai).
fn cause_reseau(e: &(dyn Error + 'static), origine: &str) -> &'static str {
    let mut source: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && let Some(cause) = cause_io(io.kind())
        {
            return cause;
        }
        if let Some(h) = s.downcast_ref::<hyper::Error>() {
            if h.is_timeout() {
                return DELAI;
            }
            if h.is_incomplete_message() {
                return FERMEE;
            }
        }
        source = s.source();
    }
    let minuscule = origine.to_lowercase();
    if [
        "dns",
        "failed to lookup address",
        "name or service not known",
        "nodename nor servname",
        "no such host",
        "temporary failure in name resolution",
    ]
    .iter()
    .any(|m| minuscule.contains(m))
    {
        "adresse du serveur introuvable (échec de la résolution DNS) : vérifiez l'adresse, et \
         que la connexion à Internet fonctionne"
    } else if minuscule.contains("certificate") || minuscule.contains("tls") {
        "connexion chiffrée (TLS) impossible avec le serveur"
    } else if minuscule.contains("timed out") || minuscule.contains("timeout") {
        DELAI
    } else if minuscule.contains("connection closed") || minuscule.contains("incomplete") {
        FERMEE
    } else {
        "échec de la connexion au serveur"
    }
}

const DELAI: &str = "délai dépassé, sans réponse du serveur";
const FERMEE: &str = "connexion fermée avant la fin de la réponse";

/// La cause d'une erreur d'E/S du réseau, si son genre en dit une.
fn cause_io(genre: ErrorKind) -> Option<&'static str> {
    Some(match genre {
        ErrorKind::ConnectionRefused => {
            "connexion refusée : aucun service ne répond à cette adresse"
        }
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
            "connexion coupée en cours d'échange"
        }
        ErrorKind::TimedOut => DELAI,
        ErrorKind::UnexpectedEof => FERMEE,
        ErrorKind::NetworkUnreachable | ErrorKind::HostUnreachable | ErrorKind::NetworkDown => {
            "réseau inaccessible : pas de connexion à Internet ?"
        }
        ErrorKind::AddrNotAvailable => "adresse locale indisponible : pas de connexion ?",
        _ => return None,
    })
}

/// Le message d'un refus (statut `statut`, texte rendu par le serveur : `_errors` de la
/// plateforme, ou code et message d'une erreur S3), redit en français s'il est connu. Un texte
/// inconnu est rendu tel quel (c'est souvent déjà le nôtre, en français) ; un texte remplacé
/// est journalisé (niveau `info`, visible avec `-v`).
pub(crate) fn refus_serveur(statut: u16, texte: &str) -> Cow<'_, str> {
    match traduire_refus(statut, texte.trim()) {
        Some(francais) => {
            tracing::info!(statut, texte_d_origine = %texte, "refus du serveur : {francais}");
            Cow::Owned(francais)
        }
        None => Cow::Borrowed(texte),
    }
}

/// Les descriptions par défaut de werkzeug (`abort(N)` sans texte), que rend la plateforme.
const DESCRIPTIONS_WERKZEUG: [(&str, &str); 4] = [
    (
        "You don't have the permission to access the requested resource",
        "accès refusé par la plateforme : ce compte n'a pas les droits sur cet objet",
    ),
    (
        "The requested URL was not found on the server",
        "adresse inconnue de la plateforme : vérifiez l'adresse de l'API (--api, VIGIE_API)",
    ),
    (
        "The method is not allowed for the requested URL",
        "opération refusée à cette adresse : vérifiez l'adresse de l'API (--api, VIGIE_API)",
    ),
    (
        "Please provide proper credentials",
        "jeton refusé par la plateforme",
    ),
];

/// Les codes d'erreur S3 les plus courants, et ce qu'ils veulent dire.
const CODES_S3: [(&str, &str); 19] = [
    ("AccessDenied", "accès refusé par le stockage"),
    ("AllAccessDisabled", "accès au compartiment désactivé"),
    ("NoSuchBucket", "compartiment introuvable"),
    ("NoSuchKey", "objet introuvable"),
    (
        "NoSuchUpload",
        "envoi en parties introuvable (abandonné ou déjà fini)",
    ),
    (
        "InvalidAccessKeyId",
        "identifiant d'accès inconnu du service",
    ),
    (
        "SignatureDoesNotMatch",
        "signature refusée : clé secrète fausse, ou requête altérée",
    ),
    ("ExpiredToken", "identifiants temporaires expirés"),
    (
        "RequestTimeTooSkewed",
        "l'horloge de cet ordinateur n'est pas à l'heure",
    ),
    ("SlowDown", "service surchargé, qui demande de ralentir"),
    ("InternalError", "erreur interne du service"),
    ("ServiceUnavailable", "service momentanément indisponible"),
    ("EntityTooLarge", "fichier trop gros pour le service"),
    ("EntityTooSmall", "partie trop petite pour le service"),
    ("InvalidPart", "partie introuvable ou altérée"),
    ("BadDigest", "somme de contrôle différente à l'arrivée"),
    (
        "InvalidDigest",
        "somme de contrôle illisible pour le service",
    ),
    ("PreconditionFailed", "condition de l'envoi non remplie"),
    ("MissingContentLength", "taille du corps absente"),
];

/// Les noms des statuts HTTP, quand un serveur ne dit rien de plus (« Forbidden »).
fn statut_en_clair(statut: u16) -> Option<&'static str> {
    Some(match statut {
        400 => "requête refusée par le serveur",
        401 => "authentification refusée",
        403 => "accès refusé par le serveur",
        404 => "introuvable sur le serveur",
        405 => "opération refusée à cette adresse",
        409 => "conflit avec l'état du serveur",
        410 => "n'est plus disponible sur le serveur",
        411 => "taille de la requête absente",
        412 => "condition de la requête non remplie",
        413 => "requête trop grosse pour le serveur",
        415 => "type de contenu refusé",
        422 => "requête refusée par le serveur",
        429 => "trop de requêtes : le serveur demande de ralentir",
        500 => "erreur interne du serveur",
        501 => "opération inconnue du serveur",
        502 => "relais en erreur devant le serveur",
        503 => "serveur momentanément indisponible",
        504 => "délai dépassé au relais devant le serveur",
        _ => return None,
    })
}

/// Le nom français d'une ressource de la plateforme (`xin/snippets.py` `get_resource`).
fn ressource_en_clair(ressource: &str) -> &str {
    match ressource {
        "fichiers" => "fichier",
        "participations" => "participation",
        "sites" => "site",
        "donnees" => "donnée",
        "utilisateurs" => "utilisateur",
        "protocoles" => "protocole",
        "taxons" => "taxon",
        "actualites" => "actualité",
        autre => autre,
    }
}

fn traduire_refus(statut: u16, texte: &str) -> Option<String> {
    // `xin/snippets.py` `get_resource` : « `ID` is not a valid RESSOURCE resource ».
    if let Some(reste) = texte.strip_suffix(" resource")
        && let Some((id, ressource)) = reste.split_once(" is not a valid ")
    {
        let id = id.trim_matches('`');
        return Some(format!(
            "{} {id} inconnu(e) de la plateforme",
            ressource_en_clair(ressource)
        ));
    }
    // `resources/donnees.py` et `fichiers.py` : le nom refusé (`_errors` : `{'titre': …}`).
    if let Some(titre) = texte.strip_prefix("titre : ") {
        if let Some(nom) = titre.strip_prefix("invalid name ") {
            return Some(format!(
                "nom refusé par la plateforme, hors des protocoles Vigie-Chiro : {nom}"
            ));
        }
        if titre == "unknown file type" {
            return Some("type de fichier inconnu de la plateforme".to_owned());
        }
        if titre == "string contains forbidden characters" {
            return Some("le nom contient des caractères refusés par la plateforme".to_owned());
        }
    }
    if let Some((_, francais)) = DESCRIPTIONS_WERKZEUG
        .iter()
        .find(|(anglais, _)| texte.starts_with(anglais))
    {
        return Some((*francais).to_owned());
    }
    // Une erreur S3 : « Code Message » (SDK) ou « Code : Message » (URL signée). Le code reste,
    // c'est un nom qu'on cherche ; le message anglais part au journal.
    let code = texte.split([' ', ':']).next().unwrap_or_default();
    if let Some((code, francais)) = CODES_S3.iter().find(|(c, _)| *c == code) {
        return Some(format!("{francais} ({code})"));
    }
    // Rien, ou seulement le nom du statut (« Forbidden », « 403 Forbidden »).
    let nom_du_statut = texte
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim()
        .trim_end_matches('.');
    let anglais = http::StatusCode::from_u16(statut)
        .ok()
        .and_then(|s| s.canonical_reason());
    if nom_du_statut.is_empty() || anglais.is_some_and(|a| a.eq_ignore_ascii_case(nom_du_statut)) {
        return statut_en_clair(statut).map(str::to_owned);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Les textes anglais relevés devant un vrai terminal ne passent plus.
    #[test]
    fn refus_connus_dits_en_francais() {
        for (statut, anglais, francais) in [
            (403, "Forbidden", "accès refusé par le serveur"),
            (403, "403 Forbidden", "accès refusé par le serveur"),
            (403, "", "accès refusé par le serveur"),
            (
                404,
                "`6b0ea1b2c3d4e5f607182930` is not a valid fichiers resource",
                "fichier 6b0ea1b2c3d4e5f607182930 inconnu(e) de la plateforme",
            ),
            (
                403,
                "You don't have the permission to access the requested resource. It is either \
                 read-protected or not readable by the server.",
                "accès refusé par la plateforme : ce compte n'a pas les droits sur cet objet",
            ),
            (
                403,
                "AccessDenied Access Denied",
                "accès refusé par le stockage (AccessDenied)",
            ),
            (
                403,
                "SignatureDoesNotMatch : The request signature we calculated does not match",
                "signature refusée : clé secrète fausse, ou requête altérée (SignatureDoesNotMatch)",
            ),
        ] {
            assert_eq!(refus_serveur(statut, anglais), francais, "{anglais}");
        }
        assert_eq!(
            refus_serveur(422, "titre : invalid name X.wav"),
            "nom refusé par la plateforme, hors des protocoles Vigie-Chiro : X.wav"
        );
        // Un texte inconnu (souvent déjà le nôtre) reste tel quel.
        assert_eq!(
            refus_serveur(409, "upload is already done"),
            "upload is already done"
        );
    }

    #[derive(Debug)]
    struct Enveloppe(&'static str, Option<Box<dyn Error + 'static>>);

    impl std::fmt::Display for Enveloppe {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Enveloppe {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref()
        }
    }

    #[test]
    fn erreurs_du_reseau_dites_en_francais() {
        // La chaîne de reqwest pour un nom introuvable.
        let dns = Enveloppe(
            "error sending request",
            Some(Box::new(Enveloppe(
                "error resolving DNS",
                Some(Box::new(std::io::Error::other(
                    "failed to lookup address information: Name or service not known",
                ))),
            ))),
        );
        let texte = erreur_reseau(&dns);
        assert!(
            texte.starts_with("adresse du serveur introuvable"),
            "{texte}"
        );
        assert!(!texte.contains("Name or service"), "{texte}");
        let refusee = Enveloppe(
            "client error (Connect)",
            Some(Box::new(std::io::Error::from(ErrorKind::ConnectionRefused))),
        );
        assert!(erreur_reseau(&refusee).starts_with("connexion refusée"));
        let coupee = std::io::Error::from(ErrorKind::ConnectionReset);
        assert_eq!(
            erreur_reseau(&coupee),
            "connexion coupée en cours d'échange"
        );
        let inconnue = Enveloppe("something odd happened", None);
        assert_eq!(erreur_reseau(&inconnue), "échec de la connexion au serveur");
    }
}
