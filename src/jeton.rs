//! Le jeton de la plateforme Vigie-Chiro : où il vit, qui l'emporte.
//!
//! `VIGIE_JETON` l'emporte ; sinon le fichier écrit par `vigie connexion`, privé (0600 sous
//! Unix), dans le dossier de configuration de l'utilisateur : sous Linux
//! `$XDG_CONFIG_HOME/vigie/jeton` (par défaut `~/.config/vigie/jeton`), sous Windows
//! `%APPDATA%\vigie\jeton`, sous macOS `~/Library/Application Support/vigie/jeton` (voir
//! `plateforme::emplacements`). Le jeton n'apparaît dans aucun message, journal ni base.

use std::fs;
use std::path::{Path, PathBuf};

use crate::plateforme;
use crate::plateforme::conseil::commande;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ErreurJeton {
    #[error(
        "aucun jeton Vigie-Chiro : connectez-vous sur le site Vigie-Chiro, copiez le jeton de \
         l'adresse (?token=…), puis lancez {} (et collez-le), ou définissez VIGIE_JETON",
        commande("connexion").args(["--jeton", "-"])
    )]
    Absent,
    #[error(
        "aucun emplacement pour le jeton : le dossier personnel est introuvable (HOME, ou le \
         profil Windows) ; utilisez VIGIE_JETON"
    )]
    SansEmplacement,
    #[error(
        "jeton vide ou invalide (caractères de contrôle, espaces) : recopiez-le depuis le site"
    )]
    Invalide,
    #[error(
        "c'est une adresse, sans jeton (pas de « token= ») : sur le site Vigie-Chiro, copiez \
         l'adresse affichée juste après la connexion (elle contient ?token=…), ou seulement ce \
         qui suit ?token="
    )]
    AdresseSansJeton,
    #[error(
        "{chemin} est illisible (ce n'est pas ce qu'y écrit {connexion}) : relancez \
         {connexion}, ou {} pour l'effacer",
        commande("deconnexion"),
        connexion = commande("connexion")
    )]
    ConnexionIllisible { chemin: PathBuf },
    #[error("fichier du jeton {chemin} : {}", crate::sortie::erreur_systeme(.cause))]
    Fichier {
        chemin: PathBuf,
        cause: std::io::Error,
    },
}

/// `jeton` dans le dossier de configuration de `vigie` (sous Linux `$XDG_CONFIG_HOME/vigie/`,
/// par défaut `~/.config/vigie/`).
pub(crate) fn chemin() -> Result<PathBuf, ErreurJeton> {
    let config = plateforme::emplacements::configuration().ok_or(ErreurJeton::SansEmplacement)?;
    Ok(config.join("jeton"))
}

/// Un jeton plausible : non vide, sans espace ni caractère de contrôle.
pub(crate) fn valider(jeton: &str) -> Result<&str, ErreurJeton> {
    let j = jeton.trim();
    if j.is_empty() || j.len() > 4096 || j.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(ErreurJeton::Invalide);
    }
    Ok(j)
}

/// Le jeton de ce qu'a collé l'utilisateur : le jeton lui-même, ou l'adresse entière du site
/// après la connexion (`https://…/?token=<jeton>#/…`, `…/#/?token=<jeton>&…`), d'où le jeton est
/// extrait : le site y met le jeton en paramètre `token` (`resources/utilisateurs.py`, la
/// redirection qui suit la connexion OAuth). Une adresse sans `token=` est refusée en le disant,
/// plutôt que d'être envoyée comme jeton et refusée par la plateforme (« expiré ou mal copié »).
pub(crate) fn depuis_saisie(saisie: &str) -> Result<String, ErreurJeton> {
    let t = saisie.trim();
    let adresse = t.contains("://") || t.starts_with("www.") || t.contains("token=");
    if !adresse {
        return valider(t).map(str::to_owned);
    }
    // Le paramètre `token`, dans la requête comme dans le fragment (après `#/?`).
    let valeur = t
        .match_indices("token=")
        .filter(|(i, _)| matches!(t[..*i].chars().last(), Some('?' | '&' | '#' | '/')))
        .map(|(i, m)| &t[i + m.len()..])
        .map(|reste| reste.split(['&', '#']).next().unwrap_or(""))
        .find(|v| !v.is_empty())
        .ok_or(ErreurJeton::AdresseSansJeton)?;
    let decode = decoder_pourcents(valeur).ok_or(ErreurJeton::Invalide)?;
    valider(&decode).map(str::to_owned)
}

/// Les `%XX` d'un paramètre d'adresse décodés ; `None` si le résultat n'est pas de l'UTF-8.
fn decoder_pourcents(texte: &str) -> Option<String> {
    let octets = texte.as_bytes();
    let mut sortie = Vec::with_capacity(octets.len());
    let mut i = 0;
    while i < octets.len() {
        let hexa = octets
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (octets[i], hexa) {
            (b'%', Some(o)) => {
                sortie.push(o);
                i += 3;
            }
            (o, _) => {
                sortie.push(o);
                i += 1;
            }
        }
    }
    String::from_utf8(sortie).ok()
}

/// Le jeton de `--jeton -` : dans un terminal, à une invite (`inviter`, qui l'écrit) et sans
/// écho (il ne reste ni à l'écran ni dans le défilement) ; sinon lu tel quel sur l'entrée
/// standard (`echo "$JETON" | vigie connexion --jeton -`).
pub(crate) fn lire_colle(
    inviter: impl FnOnce(&console::Term) -> std::io::Result<()>,
) -> anyhow::Result<String> {
    use anyhow::Context;
    use std::io::{BufRead, IsTerminal};
    if std::io::stdin().is_terminal() {
        // L'invite va où l'utilisateur regarde : la sortie d'erreur, ou à défaut la sortie
        // standard, pourvu que ce soit un terminal.
        let terminal = [console::Term::stderr(), console::Term::stdout()]
            .into_iter()
            .find(console::Term::is_term);
        if let Some(t) = terminal {
            inviter(&t).context("invite du jeton")?;
            return t.read_secure_line().context("lecture du jeton");
        }
    }
    // Une ligne, bornée : un tube sans fin de ligne (`yes | …`) ne remplit pas la mémoire.
    let mut ligne = String::new();
    std::io::Read::take(std::io::stdin().lock(), SAISIE_DU_JETON_MAX)
        .read_line(&mut ligne)
        .context("lecture du jeton")?;
    Ok(ligne)
}

/// Ce qui est lu au plus d'un jeton donné par un tube : l'adresse entière du site, collée à sa
/// place, tient en quelques centaines d'octets.
const SAISIE_DU_JETON_MAX: u64 = 64 * 1024;

/// Le jeton à utiliser : `VIGIE_JETON`, sinon celui de `vigie connexion`.
pub(crate) fn lire() -> Result<String, ErreurJeton> {
    if let Some(j) = std::env::var_os("VIGIE_JETON").filter(|v| !v.is_empty()) {
        return depuis_saisie(&j.to_string_lossy());
    }
    let chemin = chemin()?;
    match fs::read_to_string(&chemin) {
        Ok(j) => valider(&j).map(str::to_owned),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ErreurJeton::Absent),
        Err(cause) => Err(ErreurJeton::Fichier { chemin, cause }),
    }
}

/// Enregistre le jeton (fichier 0600, dossier 0700), en remplaçant l'ancien.
pub(crate) fn ecrire(jeton: &str) -> Result<PathBuf, ErreurJeton> {
    let jeton = valider(jeton)?;
    let chemin = chemin()?;
    ecrire_prive(&chemin, jeton.as_bytes())?;
    Ok(chemin)
}

/// Écrit `contenu` dans `chemin`, lisible par l'utilisateur seul (fichier 0600, dossier 0700
/// sous Unix ; sous Windows, les droits du profil de l'utilisateur), en remplaçant l'ancien : le jeton, et ce que `vigie connexion` retient à côté de lui.
pub(crate) fn ecrire_prive(chemin: &Path, contenu: &[u8]) -> Result<(), ErreurJeton> {
    let err = |cause| ErreurJeton::Fichier {
        chemin: chemin.to_owned(),
        cause,
    };
    if let Some(parent) = chemin.parent() {
        plateforme::dossier_prive()
            .recursive(true)
            .create(parent)
            .map_err(err)?;
    }
    // Écrit à côté puis renomme, sans suivre de lien : un arrêt au milieu ne laisse jamais un
    // jeton tronqué.
    plateforme::ecriture::ecrire_entier(chemin, plateforme::ecriture::Droits::Prives, contenu)
        .map_err(err)
}

/// Efface le jeton enregistré ; rend vrai s'il y en avait un.
pub(crate) fn effacer() -> Result<bool, ErreurJeton> {
    effacer_fichier(chemin()?)
}

/// Efface un fichier de la configuration ; rend vrai s'il existait.
pub(crate) fn effacer_fichier(chemin: PathBuf) -> Result<bool, ErreurJeton> {
    match fs::remove_file(&chemin) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(cause) => Err(ErreurJeton::Fichier { chemin, cause }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Écrire le jeton ne suit jamais un lien posé au nom de son ancien fichier provisoire
    /// (`jeton.provisoire`, prévisible) : sa cible reste intacte, le jeton est écrit en 0600.
    #[cfg(unix)]
    #[test]
    fn ecrire_le_jeton_ne_suit_jamais_un_lien() {
        use std::os::unix::fs::PermissionsExt;
        let dossier = tempfile::tempdir().unwrap();
        let these = dossier.path().join("these.txt");
        std::fs::write(&these, b"ma these").unwrap();
        let chemin = dossier.path().join("vigie").join("jeton");
        std::fs::create_dir(chemin.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&these, chemin.with_extension("provisoire")).unwrap();
        ecrire_prive(&chemin, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345").unwrap();
        assert_eq!(std::fs::read(&these).unwrap(), b"ma these");
        assert_eq!(
            std::fs::read(&chemin).unwrap(),
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
        );
        let mode = std::fs::metadata(&chemin).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    /// L'adresse entière collée à la place du jeton : le jeton en est extrait ; sans
    /// `token=`, on le dit.
    #[test]
    fn jeton_extrait_de_l_adresse_collee() {
        let j = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
        for saisie in [
            j.to_owned(),
            format!("  {j}\n"),
            format!("https://vigiechiro.herokuapp.com/?token={j}"),
            format!("https://vigiechiro.herokuapp.com/?token={j}#/"),
            format!("https://vigiechiro.herokuapp.com/#/?token={j}&autre=1"),
            format!("https://vigiechiro.herokuapp.com/?lang=fr&token={j}"),
            format!("vigiechiro.herokuapp.com/?token={j}"),
            format!("?token={j}"),
            "https://x.invalid/?token=ABCDEFGHIJKLMNOPQRSTUVWXYZ%30%31%32%33%34%35".to_owned(),
        ] {
            assert_eq!(depuis_saisie(&saisie).unwrap(), j, "{saisie:?}");
        }
        for sans in [
            "https://vigiechiro.herokuapp.com/#/participations",
            "https://vigiechiro.herokuapp.com/?token=",
            "https://x.invalid/?montoken=abc",
        ] {
            assert!(
                matches!(depuis_saisie(sans), Err(ErreurJeton::AdresseSansJeton)),
                "{sans}"
            );
        }
        assert!(matches!(
            depuis_saisie("https://x.invalid/?token=a%20b"),
            Err(ErreurJeton::Invalide)
        ));
    }

    #[test]
    fn validation() {
        assert_eq!(valider("  abc.DEF-123 \n").unwrap(), "abc.DEF-123");
        for mauvais in ["", "   ", "a b", "a\u{7}b"] {
            assert!(valider(mauvais).is_err(), "{mauvais:?}");
        }
    }
}
