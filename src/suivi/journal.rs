//! Le journal `tracing` : sur la sortie d'erreur pour qui regarde (`-v`, `-vv`, `RUST_LOG`),
//! et, avec `--journal FICHIER`, complet et en lignes JSON pour qui enquête après coup.
//!
//! Pourquoi : quand une nuit n'est pas partie, il faut pouvoir dire pourquoi sans la rejouer.
//! Chaque décision de réessai (méthode, tentative, budget restant, statut, attente, raison
//! d'arrêt, règle 6 de `docs/politique-reessai.md`) est émise en `tracing` par la boucle de réessai
//! ; le fichier les garde toutes (niveau `debug` pour `vigie`), quelle que soit la verbosité
//! choisie pour l'écran. Le fichier est créé en 0600 : il décrit l'activité d'un compte.
//!
//! Aucun secret ne doit y passer. Les messages sont expurgés à la source (le transport ne
//! journalise ni en-tête ni URL complète) ; par précaution, chaque ligne repasse ici par
//! [`crate::secrets::expurger`], le seul masque du projet, et les valeurs des
//! variables d'environnement secrètes (clé secrète AWS, jeton) sont remplacées si elles
//! apparaissaient telles quelles. Sur la sortie d'erreur, le journal passe au-dessus des barres
//! sans les brouiller (`ecran`).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::prelude::*;

use super::format::neutraliser;
use super::{couleurs_sur_la_sortie_d_erreur, ecran};
use crate::secrets::expurger;

/// Le filtre du fichier journal : tout `vigie` jusqu'au détail, l'essentiel des bibliothèques.
pub(crate) const FILTRE_FICHIER: &str = "info,vigie=debug";
/// Variables d'environnement dont la valeur ne doit jamais s'écrire.
const VARIABLES_SECRETES: [&str; 3] = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "VIGIE_JETON"];
/// En deçà, une valeur « secrète » est trop courte pour être masquée sans défigurer le texte.
const LONGUEUR_SECRET_MIN: usize = 8;

/// Ce que demandent les options.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReglagesJournal<'a> {
    /// `-v` compté.
    pub(crate) verbosite: u8,
    /// `-q`.
    pub(crate) silencieux: bool,
    /// `--journal FICHIER`.
    pub(crate) fichier: Option<&'a Path>,
}

/// Le fichier journal n'a pas pu être ouvert.
#[derive(Debug, thiserror::Error)]
#[error(
    "impossible d'ouvrir le journal {} : {}",
    chemin.display(),
    crate::sortie::erreur_systeme(.cause)
)]
pub(crate) struct ErreurJournal {
    pub(crate) chemin: PathBuf,
    pub(crate) cause: io::Error,
}

/// Le filtre de la sortie d'erreur quand `RUST_LOG` n'est pas défini : par défaut, les
/// avertissements de `vigie` et les seules erreurs des bibliothèques (celles du SDK AWS, par
/// exemple sur un fichier de configuration absent, s'afficheraient sinon à chaque passage,
/// horodatées, au milieu de l'affichage) ; `-v` les décisions de réessai et les
/// avertissements des bibliothèques ; `-vv` le détail de `vigie` ; `-vvv` tout `vigie`.
/// Les bibliothèques ne descendent jamais sous `info` sans `RUST_LOG` explicite. Le
/// vérificateur de certificats de reqwest écrit chaque refus en anglais, au niveau `error`
/// (« failed to verify TLS certificate: invalid peer certificate… ») : `vigie` le dit lui-même,
/// en français, avec le geste (`transport::certificat`) ; le texte d'origine reste à `-vv`.
pub(crate) fn filtre_erreur(verbosite: u8, silencieux: bool) -> &'static str {
    match (silencieux, verbosite) {
        (true, _) => "error,rustls_platform_verifier=off",
        (false, 0) => "error,vigie=warn,rustls_platform_verifier=off",
        (false, 1) => "warn,vigie=info,rustls_platform_verifier=off",
        (false, 2) => "info,vigie=debug",
        (false, _) => "info,vigie=trace",
    }
}

/// Installe le journal. Sans effet si un journal est déjà installé (tests).
pub(crate) fn initialiser(r: ReglagesJournal<'_>) -> Result<(), ErreurJournal> {
    super::ecran::regler_silence(r.silencieux);
    let masque = Masque::depuis_environnement();
    let fichier = r
        .fichier
        .map(|chemin| {
            ouvrir_en_prive(chemin).map_err(|cause| ErreurJournal {
                chemin: chemin.to_owned(),
                cause,
            })
        })
        .transpose()?;
    let filtre = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(filtre_erreur(r.verbosite, r.silencieux)));
    let ecran = tracing_subscriber::fmt::layer()
        .with_writer(Ecrivain {
            destination: Destination::Erreur,
            masque: masque.clone(),
        })
        .with_ansi(couleurs_sur_la_sortie_d_erreur())
        .with_target(false)
        .with_filter(filtre);
    let fichier = fichier.map(|f| {
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_ansi(false)
            .with_writer(Ecrivain {
                destination: Destination::Fichier {
                    fichier: Mutex::new(f),
                    chemin: r.fichier.map(Path::to_owned).unwrap_or_default(),
                    en_panne: AtomicBool::new(false),
                },
                masque,
            })
            .with_filter(EnvFilter::new(FILTRE_FICHIER))
    });
    let _ = tracing_subscriber::registry()
        .with(ecran)
        .with(fichier)
        .try_init();
    Ok(())
}

/// Ouvre (ou crée) le journal en ajout, lisible du seul propriétaire, même s'il existait avec
/// des droits plus larges (0600 sous Unix ; voir `plateforme`). Un lien symbolique n'est pas
/// suivi (sous Unix, `O_NOFOLLOW` : ELOOP) : il ferait écrire ailleurs, et changer les droits
/// de sa cible. Seul un fichier ordinaire voit ses droits resserrés (`/dev/null` reste ce
/// qu'il est).
fn ouvrir_en_prive(chemin: &Path) -> io::Result<File> {
    let mut options = crate::plateforme::fichier_prive();
    options.create(true).append(true);
    let f = crate::plateforme::sans_suivre_les_liens(&mut options).open(chemin)?;
    let type_fichier = f.metadata()?.file_type();
    if type_fichier.is_symlink() {
        // Sous Windows, le lien lui-même a été ouvert (voir `sans_suivre_les_liens`).
        return Err(io::Error::other(
            "c'est un lien symbolique, qui n'est pas suivi : donnez le chemin du fichier lui-même",
        ));
    }
    if type_fichier.is_file() {
        crate::plateforme::resserrer(&f)?;
    }
    Ok(f)
}

/// Le dernier filet avant l'écriture : le masque du transport, et les valeurs secrètes connues.
#[derive(Debug, Clone, Default)]
struct Masque {
    valeurs: Arc<Vec<String>>,
}

impl Masque {
    fn depuis_environnement() -> Masque {
        Masque::avec(
            VARIABLES_SECRETES
                .iter()
                .filter_map(|v| std::env::var(v).ok()),
        )
    }

    fn avec(valeurs: impl IntoIterator<Item = String>) -> Masque {
        let valeurs = valeurs
            .into_iter()
            .map(|v| v.trim().to_owned())
            .filter(|v| v.len() >= LONGUEUR_SECRET_MIN)
            .collect();
        Masque {
            valeurs: Arc::new(valeurs),
        }
    }

    fn appliquer(&self, texte: &str) -> String {
        let mut propre = expurger(texte);
        for v in self.valeurs.iter() {
            if propre.contains(v.as_str()) {
                propre = propre.replace(v.as_str(), "***");
            }
        }
        propre
    }
}

enum Destination {
    Erreur,
    Fichier {
        fichier: Mutex<File>,
        chemin: PathBuf,
        /// Une écriture a déjà échoué (disque plein…) : dit une fois, pas à chaque ligne.
        en_panne: AtomicBool,
    },
}

/// Ce que `tracing-subscriber` appelle pour écrire un événement formaté (un appel par
/// événement, ligne complète) : masque, puis écrit d'un bloc.
struct Ecrivain {
    destination: Destination,
    masque: Masque,
}

struct Ligne<'a>(&'a Ecrivain);

impl<'a> MakeWriter<'a> for Ecrivain {
    type Writer = Ligne<'a>;

    fn make_writer(&'a self) -> Ligne<'a> {
        Ligne(self)
    }
}

impl Write for Ligne<'_> {
    fn write(&mut self, octets: &[u8]) -> io::Result<usize> {
        let propre = self.0.masque.appliquer(&String::from_utf8_lossy(octets));
        match &self.0.destination {
            Destination::Erreur => ecran::ecrire_erreur(pour_le_terminal(&propre).as_bytes())?,
            Destination::Fichier {
                fichier,
                chemin,
                en_panne,
            } => {
                let ecrit = fichier
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .write_all(propre.as_bytes());
                // `tracing` tait les erreurs d'écriture : un journal perdu sur un disque plein
                // le serait en silence. On le dit une fois, sur la sortie d'erreur, et le dépôt
                // continue.
                if let Err(e) = ecrit
                    && !en_panne.swap(true, Ordering::Relaxed)
                {
                    let _ = ecran::ecrire_erreur(
                        format!(
                            "attention : le journal {} ne peut plus être écrit ({}) : la suite du \
                             journal est perdue, le dépôt continue\n",
                            chemin.display(),
                            crate::sortie::erreur_systeme(&e)
                        )
                        .as_bytes(),
                    );
                }
            }
        }
        Ok(octets.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &self.0.destination {
            Destination::Erreur => Ok(()),
            Destination::Fichier { fichier, .. } => {
                // Une panne déjà dite ne se redit pas ici.
                let _ = fichier.lock().unwrap_or_else(|e| e.into_inner()).flush();
                Ok(())
            }
        }
    }
}

/// Une ligne du journal rendue sûre pour le terminal. `tracing` y met ses couleurs (ESC) et
/// échappe déjà les séquences ANSI des valeurs ; restent les CR, les LF qui fabriqueraient de
/// fausses lignes et les marques de direction qu'un serveur peut glisser dans un message.
fn pour_le_terminal(ligne: &str) -> String {
    let (corps, fin) = match ligne.strip_suffix('\n') {
        Some(corps) => (corps, "\n"),
        None => (ligne, ""),
    };
    let mut propre: String = corps
        .split('\u{1b}')
        .map(|morceau| neutraliser(morceau).into_owned())
        .collect::<Vec<_>>()
        .join("\u{1b}");
    propre.push_str(fin);
    propre
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn le_journal_a_l_ecran_ne_fabrique_pas_de_fausse_ligne() {
        assert_eq!(
            pour_le_terminal("\u{1b}[33m WARN\u{1b}[0m refusé : a\r\nb \u{202e}x\n"),
            "\u{1b}[33m WARN\u{1b}[0m refusé : a\\u{d}\\u{a}b \\u{202e}x\n"
        );
    }

    #[test]
    fn verbosite() {
        assert_eq!(
            filtre_erreur(0, false),
            "error,vigie=warn,rustls_platform_verifier=off"
        );
        assert_eq!(
            filtre_erreur(1, false),
            "warn,vigie=info,rustls_platform_verifier=off"
        );
        assert_eq!(filtre_erreur(2, false), "info,vigie=debug");
        assert_eq!(filtre_erreur(5, false), "info,vigie=trace");
        assert_eq!(filtre_erreur(0, true), "error,rustls_platform_verifier=off");
    }

    #[test]
    fn le_masque_couvre_signatures_et_secrets_connus() {
        let m = Masque::avec(["un-secret-bien-long".to_owned(), "court".to_owned()]);
        let ligne = r#"{"detail":"GET https://h/k?X-Amz-Signature=abcd&x=1 avec un-secret-bien-long, court"}"#;
        let propre = m.appliquer(ligne);
        assert!(!propre.contains("abcd"), "{propre}");
        assert!(!propre.contains("un-secret-bien-long"), "{propre}");
        assert!(
            propre.contains("court"),
            "une valeur trop courte n'est pas masquée"
        );
    }

    #[cfg(unix)]
    #[test]
    fn le_journal_est_cree_en_0600_meme_s_il_existait() {
        use std::fs::Permissions;
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let chemin = d.path().join("journal.jsonl");
        std::fs::write(&chemin, "").unwrap();
        std::fs::set_permissions(&chemin, Permissions::from_mode(0o644)).unwrap();
        ouvrir_en_prive(&chemin).unwrap();
        let mode = std::fs::metadata(&chemin).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let neuf = d.path().join("neuf.jsonl");
        ouvrir_en_prive(&neuf).unwrap();
        let mode = std::fs::metadata(&neuf).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
