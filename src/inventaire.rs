//! L'inventaire du dossier d'une nuit, et la validation des noms pour la plateforme Vigie-Chiro.
//!
//! Ce qui part est ce qu'un enregistreur produit : séquences `.wav`, sorties Tadarida (`.ta`,
//! `.tac`, `.tc`, `.tcc`) et archives (`.zip`, `.zip.001`, `.z01`). Le reste (fichiers cachés,
//! `.DS_Store`, `Thumbs.db`, notes, photos) est ignoré et compté, pour que l'utilisateur sache ce
//! qui ne part pas. Les liens symboliques ne sont pas suivis : un lien vers un autre dossier
//! déposerait une autre nuit, ou bouclerait.
//!
//! Les problèmes qui empêchent un fichier de partir (nom non UTF-8, caractère de contrôle,
//! fichier illisible) sont **tous** relevés d'un coup : l'utilisateur corrige une fois, pas un
//! fichier par relance. La somme de contrôle du contenu n'est pas calculée ici mais pendant
//! l'envoi, en flux : relire 40 Go pour planifier serait absurde sur un portable.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// Un enregistrement trouvé dans le dossier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enregistrement {
    /// Chemin relatif au dossier, séparateur « / ».
    pub(crate) chemin: String,
    pub(crate) taille: u64,
    /// Date de modification, nanosecondes Unix.
    pub(crate) modifie_ns: i64,
    /// L'identité du fichier relevée par l'inventaire (voir
    /// `plateforme::DossierOuvert::examiner`) : la planification la reprend telle quelle, sans
    /// relire le fichier une seconde fois.
    pub(crate) identite: Option<crate::plateforme::IdentiteFichier>,
}

impl Enregistrement {
    /// Le nom du fichier (le « titre » pour la plateforme).
    pub(crate) fn nom(&self) -> &str {
        self.chemin.rsplit('/').next().unwrap_or(&self.chemin)
    }

    /// Ce fichier, planifiable sous le chemin `chemin` (relatif au dossier du plan) et la clé
    /// `cle`.
    pub(crate) fn planifiable(&self, chemin: String, cle: String) -> crate::plan::FichierPlanifie {
        crate::plan::FichierPlanifie {
            chemin,
            cle,
            taille: self.taille,
            modifie_ns: self.modifie_ns,
            // Celle que l'inventaire a relevée, sans suivre de lien : c'est ce fichier-là, et pas
            // un autre glissé à sa place, que l'envoi devra retrouver.
            identite: self.identite.map(|i| i.to_string()),
            preparee: None,
        }
    }
}

/// Un fichier qui ne peut pas partir, et pourquoi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProblemeFichier {
    pub(crate) chemin: String,
    pub(crate) probleme: String,
}

/// Ce que le parcours du dossier a trouvé.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inventaire {
    pub(crate) enregistrements: Vec<Enregistrement>,
    /// Fichiers et dossiers cachés ou système (`.DS_Store`, `Thumbs.db`…), ignorés.
    pub(crate) ignores_systeme: u64,
    /// Fichiers qui ne sont pas des enregistrements (notes, photos…), ignorés.
    pub(crate) non_reconnus: Vec<String>,
    /// Fichiers vides : un enregistrement raté, ignoré et signalé.
    pub(crate) vides: Vec<String>,
    /// Liens symboliques, non suivis.
    pub(crate) liens: Vec<String>,
    /// Journaux d'enregistreur (`LogPR<n>.txt` du Passive Recorder), aussi dans
    /// `non_reconnus` (ils ne partent pas) : ils font foi pour la date des nuits.
    pub(crate) journaux: Vec<String>,
    /// Fichiers qui empêchent le dépôt : tous listés, rien ne part tant qu'il y en a.
    pub(crate) problemes: Vec<ProblemeFichier>,
}

impl Inventaire {
    /// Les fichiers dont le nom porte un autre point d'écoute que `point`, et ces autres points
    /// (« A2, B1 ») ; `None` s'il n'y en a pas.
    pub(crate) fn d_autres_points(&self, point: &str) -> Option<(Vec<String>, String)> {
        let autres: Vec<String> = self
            .enregistrements
            .iter()
            .filter(|e| {
                point_du_nom(e.nom()).is_some_and(|p| !p.eq_ignore_ascii_case(point.trim()))
            })
            .map(|e| e.chemin.clone())
            .collect();
        if autres.is_empty() {
            return None;
        }
        let points: std::collections::BTreeSet<&str> = autres
            .iter()
            .filter_map(|c| point_du_nom(c.rsplit('/').next().unwrap_or(c)))
            .collect();
        let points = points.into_iter().collect::<Vec<_>>().join(", ");
        Some((autres, points))
    }

    pub(crate) fn octets(&self) -> u64 {
        self.enregistrements.iter().map(|e| e.taille).sum()
    }

    /// Ce qui ne part pas (hors des fichiers qui empêchent le dépôt, refusés à part), chaque
    /// chemin précédé de `prefixe` (`""` : tel quel).
    pub(crate) fn non_envoyes(&self, prefixe: &str) -> NonEnvoyes {
        let prefixer = |liste: &[String]| -> Vec<String> {
            liste
                .iter()
                .map(|c| {
                    if prefixe.is_empty() {
                        c.clone()
                    } else {
                        format!("{prefixe}/{c}")
                    }
                })
                .collect()
        };
        NonEnvoyes {
            systeme: self.ignores_systeme,
            autres: prefixer(&self.non_reconnus),
            vides: prefixer(&self.vides),
            liens: prefixer(&self.liens),
        }
    }
}

/// Ce qu'un dépôt ne dépose pas, compté et dit, en mode une nuit comme en saison (une seule
/// règle) : rien n'est sauté en silence, la bénévole sait ce qui reste sur sa carte.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NonEnvoyes {
    /// Fichiers et dossiers cachés ou système (`.DS_Store`, `Thumbs.db`…).
    pub(crate) systeme: u64,
    /// Fichiers qui ne sont pas des enregistrements (notes, photos, journaux…).
    pub(crate) autres: Vec<String>,
    /// Fichiers vides : un enregistrement raté.
    pub(crate) vides: Vec<String>,
    /// Liens symboliques, non suivis (une nuit entière peut être derrière).
    pub(crate) liens: Vec<String>,
}

impl NonEnvoyes {
    /// Ajoute ceux d'un autre dossier.
    pub(crate) fn ajouter(&mut self, autre: NonEnvoyes) {
        self.systeme += autre.systeme;
        self.autres.extend(autre.autres);
        self.vides.extend(autre.vides);
        self.liens.extend(autre.liens);
    }

    /// Combien de fichiers (et dossiers cachés) ne partent pas.
    pub(crate) fn total(&self) -> u64 {
        self.systeme + (self.autres.len() + self.vides.len() + self.liens.len()) as u64
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ErreurInventaire {
    #[error("le dossier {0} est introuvable : vérifiez le chemin")]
    Introuvable(PathBuf),
    #[error("{0} n'est pas un dossier : donnez le dossier de la nuit")]
    PasUnDossier(PathBuf),
    #[error("le dossier {chemin} est illisible : {}", crate::sortie::erreur_systeme(.cause))]
    Illisible { chemin: PathBuf, cause: io::Error },
    #[error(
        "aucun enregistrement dans {dossier} (.wav, .ta, .tac, .tc, .tcc, .zip){} : est-ce le bon dossier ?",
        if *.ignores > 0 { format!(" ; {} autre(s) fichier(s) ignoré(s)", .ignores) } else { String::new() }
    )]
    Vide { dossier: PathBuf, ignores: u64 },
}

/// Noms de fichiers système, ignorés sans bruit (comparés sans casse).
const FICHIERS_SYSTEME: &[&str] = &["thumbs.db", "desktop.ini", "ehthumbs.db"];
/// Dossiers système des clés USB et cartes SD, ignorés sans bruit.
const DOSSIERS_SYSTEME: &[&str] = &["$recycle.bin", "system volume information", "lost+found"];

/// L'extension d'enregistrement d'un nom, telle qu'écrite (casse comprise), s'il en a une.
pub(crate) fn extension_enregistrement(nom: &str) -> Option<&str> {
    // Archives découpées : `.zip.<chiffres>` et `.z<chiffres>`, quel que soit le nombre de
    // chiffres (`resources/fichiers.py` `detect_mime`).
    static ARCHIVE_DECOUPEE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\.(zip\.[0-9]+|z[0-9]+)$").expect("motif valide"));
    if let Some(m) = ARCHIVE_DECOUPEE.find(nom) {
        return Some(&nom[m.start() + 1..]);
    }
    let (souche, ext) = nom.rsplit_once('.')?;
    if souche.is_empty() {
        return None;
    }
    ["wav", "ta", "tac", "tc", "tcc", "zip"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
        .then_some(ext)
}

/// Un journal d'enregistreur : `LogPR<chiffres>.txt`, le nom qu'écrit le Passive Recorder
/// (`AnalyseurLogPR.java` du compagnon officiel).
pub(crate) fn est_un_journal(nom: &str) -> bool {
    nom.strip_prefix("LogPR")
        .and_then(|r| r.strip_suffix(".txt"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|o| o.is_ascii_digit()))
}

/// Parcourt le dossier de la nuit.
pub(crate) fn inventorier(dossier: &Path) -> Result<Inventaire, ErreurInventaire> {
    let meta = match fs::metadata(dossier) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ErreurInventaire::Introuvable(dossier.to_owned()));
        }
        Err(cause) => {
            return Err(ErreurInventaire::Illisible {
                chemin: dossier.to_owned(),
                cause,
            });
        }
    };
    if !meta.is_dir() {
        return Err(ErreurInventaire::PasUnDossier(dossier.to_owned()));
    }
    let mut inv = Inventaire::default();
    parcourir(dossier, "", &mut inv, true)?;
    inv.enregistrements.sort_by(|a, b| a.chemin.cmp(&b.chemin));
    inv.problemes.sort_by(|a, b| a.chemin.cmp(&b.chemin));
    if inv.enregistrements.is_empty() && inv.problemes.is_empty() {
        return Err(ErreurInventaire::Vide {
            dossier: dossier.to_owned(),
            ignores: inv.non_reconnus.len() as u64 + inv.ignores_systeme + inv.vides.len() as u64,
        });
    }
    Ok(inv)
}

/// Parcourt `dossier`, dont le chemin relatif à la nuit est `prefixe` (« / », vide à la racine).
fn parcourir(
    dossier: &Path,
    prefixe: &str,
    inv: &mut Inventaire,
    racine: bool,
) -> Result<(), ErreurInventaire> {
    let entrees = match fs::read_dir(dossier) {
        Ok(e) => e,
        // La racine illisible arrête tout ; un sous-dossier illisible est un problème parmi
        // d'autres, relevé avec eux.
        Err(cause) if racine => {
            return Err(ErreurInventaire::Illisible {
                chemin: dossier.to_owned(),
                cause,
            });
        }
        Err(e) => {
            inv.problemes.push(ProblemeFichier {
                chemin: prefixe.to_owned(),
                probleme: format!(
                    "dossier illisible ({}) : vérifiez ses droits",
                    crate::sortie::erreur_systeme(&e)
                ),
            });
            return Ok(());
        }
    };
    // Chaque enregistrement est examiné (se lit-il ? son identité) par son nom dans ce dossier.
    let ouvert = crate::plateforme::DossierOuvert::nouveau(dossier);
    for entree in entrees {
        let entree = match entree {
            Ok(e) => e,
            Err(e) => {
                inv.problemes.push(ProblemeFichier {
                    chemin: prefixe.to_owned(),
                    probleme: format!(
                        "lecture du dossier interrompue ({})",
                        crate::sortie::erreur_systeme(&e)
                    ),
                });
                continue;
            }
        };
        let nom_os = entree.file_name();
        // « / » quel que soit le séparateur du système : la clé et le titre en dérivent.
        let chemin = match crate::plateforme::chemins::joindre(prefixe, &nom_os) {
            Ok(c) => c,
            Err(illisible) => {
                inv.problemes.push(ProblemeFichier {
                    chemin: illisible.0,
                    probleme: "nom illisible (pas de l'UTF-8) : renommez-le avec des lettres non accentuées, chiffres, « _ », « - » ou « . »".into(),
                });
                continue;
            }
        };
        let nom = chemin.rsplit('/').next().unwrap_or(&chemin);
        // Caché ou système : ignoré sans bruit, dossier compris.
        if nom.starts_with('.')
            || FICHIERS_SYSTEME.iter().any(|s| nom.eq_ignore_ascii_case(s))
            || DOSSIERS_SYSTEME.iter().any(|s| nom.eq_ignore_ascii_case(s))
        {
            inv.ignores_systeme += 1;
            continue;
        }
        if nom.chars().any(char::is_control) {
            inv.problemes.push(ProblemeFichier {
                chemin: chemin.escape_debug().to_string(),
                probleme: "le nom contient un caractère de contrôle : renommez-le".into(),
            });
            continue;
        }
        // Sans suivre les liens. Sous Unix, relu par rapport au dossier ouvert (`fstatat`),
        // sans reparcourir tout le chemin à chaque fichier : c'est l'essentiel du coût d'une
        // reprise. Sous Windows, par le chemin : ce que dit l'énumération du dossier peut
        // retarder sur un fichier en cours d'écriture.
        #[cfg(unix)]
        let lu = entree.metadata();
        #[cfg(not(unix))]
        let lu = entree.path().symlink_metadata();
        let meta = match lu {
            Ok(m) => m,
            Err(e) => {
                inv.problemes.push(ProblemeFichier {
                    chemin,
                    probleme: format!("illisible ({})", crate::sortie::erreur_systeme(&e)),
                });
                continue;
            }
        };
        let type_fichier = meta.file_type();
        if type_fichier.is_symlink() {
            inv.liens.push(chemin);
        } else if type_fichier.is_dir() {
            parcourir(&entree.path(), &chemin, inv, false)?;
        } else if !type_fichier.is_file() {
            // Tube, socket, périphérique : rien à déposer.
            inv.non_reconnus.push(chemin);
        } else if extension_enregistrement(nom).is_none() {
            if est_un_journal(nom) {
                inv.journaux.push(chemin.clone());
            }
            inv.non_reconnus.push(chemin);
        } else if meta.len() == 0 {
            inv.vides.push(chemin);
        } else {
            match ouvert.examiner(&nom_os, &meta) {
                Err(e) => inv.problemes.push(ProblemeFichier {
                    chemin,
                    probleme: format!(
                        "illisible ({}) : {}",
                        crate::sortie::erreur_systeme(&e),
                        crate::plateforme::GESTE_DROITS_DE_LECTURE
                    ),
                }),
                Ok(identite) => inv.enregistrements.push(Enregistrement {
                    chemin,
                    taille: meta.len(),
                    modifie_ns: crate::plateforme::modifie_ns(&meta),
                    identite,
                }),
            }
        }
    }
    Ok(())
}

/// Un nom que la plateforme Vigie-Chiro refusera, la règle violée et le geste à faire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NomRefuse {
    pub(crate) chemin: String,
    pub(crate) regle: String,
    pub(crate) geste: String,
}

/// Pourquoi la plateforme refuse un titre, dans l'ordre où son serveur le vérifie
/// (`resources/fichiers.py` `fichier_create`), chacun en `422 {"titre": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusPlateforme {
    /// `string contains forbidden characters` : hors de `[a-zA-Z0-9_\-.]`.
    CaracteresInterdits,
    /// `unknown file type` : aucun type ne convient (`detect_mime`).
    TypeInconnu,
    /// `invalid name …` : séquence ou sortie Tadarida hors protocole (`validate_donnee_name`).
    NomInvalide,
}

fn motif(m: &str) -> Regex {
    Regex::new(m).expect("motif valide")
}

// Les motifs du serveur, recopiés tels quels. `re.match` de Python n'ancre qu'au début : un
// motif sans `$` final laisse la fin libre (`a.zipxyz` est une archive).
// `TITRE`, `ZIP_DECOUPE`, `Z_NUMERO`, `ZIP` et `EXTENSION` sont lus à la main
// ([`titre_permis`], [`titre_d_archive`], [`extension_du_titre`]) : chaque fichier d'une
// saison y passe à chaque relance. Les motifs restent pour les essais qui les comparent.
#[cfg(test)]
static TITRE: LazyLock<Regex> = LazyLock::new(|| motif(r"^[a-zA-Z0-9_\-.]+$"));
#[cfg(test)]
static ZIP_DECOUPE: LazyLock<Regex> = LazyLock::new(|| motif(r"^[a-zA-Z_0-9\-.]+\.zip\.[0-9]+$"));
#[cfg(test)]
static Z_NUMERO: LazyLock<Regex> = LazyLock::new(|| motif(r"^([a-zA-Z_0-9\-.]+)\.z[0-9]+$"));
#[cfg(test)]
static ZIP: LazyLock<Regex> = LazyLock::new(|| motif(r"^([a-zA-Z_0-9\-.]+)\.zip"));
#[cfg(test)]
static EXTENSION: LazyLock<Regex> = LazyLock::new(|| motif(r"^[a-zA-Z0-9_\-.]+\.([a-zA-Z0-9]+)$"));
// Les groupes nommés ne changent pas le langage reconnu (ni, pour un nom accepté, ce que
// capture chaque morceau : la sémantique « le plus à gauche, puis le plus long » de `regex`
// est celle de `re` en Python) ; ils servent à lire le nom ([`nom_decompose`]).
static ROUTIER: LazyLock<Regex> = LazyLock::new(|| {
    motif(
        r"^Cir(?P<site>.+)-(?P<annee>[0-9]{4})-Pass(?P<passage>[0-9]{1,2})-Tron(?P<troncon>[0-9]{1,2})-Chiro_(?P<canal>[01]_)?[0-9]+_[0-9]{3}$",
    )
});
#[cfg(test)]
static POINT_FIXE: LazyLock<Regex> = LazyLock::new(|| {
    motif(
        r"^Car(?P<site>.+)-(?P<annee>[0-9]{4})-Pass(?P<passage>[0-9]{1,2})-(?P<point>([A-H][12])|(Z[1-9][0-9]*))-(?P<enregistreur>.*)(?P<date>[0-9]{8})_(?P<heure>[0-9]{6})_(?P<ms>[0-9]{3})$",
    )
});
static PASSAGE: LazyLock<Regex> = LazyLock::new(|| motif(r"-Pass([0-9]{1,2})-"));
static TRONCON: LazyLock<Regex> = LazyLock::new(|| motif(r"-Tron([0-9]{1,2})-"));
/// Un point d'écoute du protocole point fixe, tel que l'exige `POINT_FIXE`.
static POINT_VALIDE: LazyLock<Regex> = LazyLock::new(|| motif(r"^([A-H][12]|Z[1-9][0-9]*)$"));

/// Les types que reconnaît le serveur hors archives, dans son ordre : le premier dont le nom
/// **finit par** l'extension l'emporte (`UNZIPPED_ALLOWED_MIMES`).
const TYPES: [&str; 10] = [
    "image/bmp",
    "image/png",
    "image/jpg",
    "image/jpeg",
    "application/ta",
    "application/tac",
    "application/tc",
    "application/tcc",
    "audio/wav",
    "audio/x-wav",
];

/// Le verdict de la plateforme sur un titre, à l'identique de son serveur : le type MIME
/// qu'elle lui donnera, ou pourquoi elle le refusera. Seuls les séquences et les sorties
/// Tadarida (`ta`, `tc`, `wav`) suivent une règle de nom ; archives et photos non.
pub fn verdict_plateforme(titre: &str) -> Result<&'static str, RefusPlateforme> {
    if !titre_permis(titre) {
        return Err(RefusPlateforme::CaracteresInterdits);
    }
    // `detect_mime`
    let mime = if titre_d_archive(titre) {
        "application/zip"
    } else {
        let extension = extension_du_titre(titre).ok_or(RefusPlateforme::TypeInconnu)?;
        TYPES
            .into_iter()
            .find(|m| m.ends_with(extension))
            .ok_or(RefusPlateforme::TypeInconnu)?
    };
    let donnee = matches!(
        mime,
        "application/ta"
            | "application/tac"
            | "application/tc"
            | "application/tcc"
            | "audio/wav"
            | "audio/x-wav"
    );
    if donnee && !nom_de_donnee_valide(titre) {
        return Err(RefusPlateforme::NomInvalide);
    }
    Ok(mime)
}

/// Un caractère de `[a-zA-Z0-9_\-.]`, les seuls que la plateforme permet dans un titre
/// (`TITRE`).
fn caractere_permis(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `TITRE` (`^[a-zA-Z0-9_\-.]+$`) : un titre non vide de ces seuls caractères (examiné octet
/// par octet : un octet hors ASCII n'en est jamais un).
fn titre_permis(titre: &str) -> bool {
    !titre.is_empty() && titre.bytes().all(|o| caractere_permis(char::from(o)))
}

/// `ZIP_DECOUPE`, `Z_NUMERO` ou `ZIP` sur un titre que `TITRE` accepte (tous ses caractères
/// sont ceux de `[a-zA-Z_0-9\-.]`) : une archive. `ZIP` (`^[…]+\.zip`, sans `$` : `re.match`)
/// reconnaît « .zip » n'importe où après le premier caractère, donc aussi tout ce que
/// reconnaît `ZIP_DECOUPE` ; `Z_NUMERO` (`^[…]+\.z[0-9]+$`) : le dernier point suivi de « z »
/// et de chiffres, après au moins un caractère. L'essai `archive_lue_a_la_main_comme_les_motifs`
/// les compare.
fn titre_d_archive(titre: &str) -> bool {
    let zip = titre.get(1..).is_some_and(|reste| reste.contains(".zip"));
    let z_numero = titre.rsplit_once('.').is_some_and(|(avant, apres)| {
        !avant.is_empty()
            && apres
                .strip_prefix('z')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|o| o.is_ascii_digit()))
    });
    zip || z_numero
}

/// Le groupe de `EXTENSION` (`^[a-zA-Z0-9_\-.]+\.([a-zA-Z0-9]+)$`) d'un titre que `TITRE`
/// accepte, lu sans moteur d'expressions (chaque fichier passe ici à chaque relance) : le
/// groupe ne contient pas de point et va jusqu'à la fin, c'est donc ce qui suit le dernier
/// point, non vide et alphanumérique, après au moins un caractère. L'essai
/// `extension_lue_a_la_main_comme_le_motif` les compare.
fn extension_du_titre(titre: &str) -> Option<&str> {
    let (avant, extension) = titre.rsplit_once('.')?;
    let valide = !avant.is_empty()
        && !extension.is_empty()
        && extension.bytes().all(|o| o.is_ascii_alphanumeric());
    valide.then_some(extension)
}

/// `validate_donnee_name` (`resources/donnees.py`) : extension `wav ta tc tac tcc`, puis le
/// protocole routier/pédestre ou point fixe, le **premier** `-PassNN-` (et `-TronNN-`) du nom
/// non nul.
fn nom_de_donnee_valide(titre: &str) -> bool {
    let premier_non_nul = |m: &Regex| {
        m.captures(titre)
            .and_then(|c| c[1].parse::<u32>().ok())
            .is_some_and(|n| n != 0)
    };
    // Extension, protocole et motif du serveur : ceux de [`nom_decompose`].
    match nom_decompose(titre) {
        Some(NomDecompose::Routier { .. }) => {
            premier_non_nul(&PASSAGE) && premier_non_nul(&TRONCON)
        }
        Some(NomDecompose::PointFixe { .. }) => premier_non_nul(&PASSAGE),
        None => false,
    }
}

/// Le côté d'une séquence de routier ou de pédestre, comme le calcul le lit dans son nom
/// (`scripts/task_participation.py`, `FichierWav.cir_canal` : `…-Chiro_1_…` à droite, sinon
/// à gauche) : `Some(true)` à droite ; `None` pour un nom qui n'est pas d'un routier.
pub(crate) fn canal_droit(nom: &str) -> Option<bool> {
    let (souche, _) = nom.rsplit_once('.')?;
    if !souche.starts_with("Cir") {
        return None;
    }
    let c = ROUTIER.captures(souche)?;
    Some(c.name("canal").is_some_and(|m| m.as_str() == "1_"))
}

/// Le point d'écoute que porte le nom d'une séquence du protocole point fixe (`A1`…`H2`,
/// `Z1`, `Z12`…), s'il en porte un.
pub(crate) fn point_du_nom(nom: &str) -> Option<&str> {
    let (souche, _) = nom.rsplit_once('.')?;
    match point_fixe_decompose(souche)? {
        NomDecompose::PointFixe { point, .. } => Some(point),
        NomDecompose::Routier { .. } => None,
    }
}

/// Ce que dit le nom d'une séquence (ou d'une sortie Tadarida) d'un protocole Vigie-Chiro,
/// lu par les motifs mêmes du serveur (`resources/donnees.py` `validate_donnee_name`) : un nom
/// que ces motifs n'acceptent pas ne se décompose pas. Les morceaux sont tels qu'écrits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NomDecompose<'a> {
    /// `Car<site>-<année>-Pass<n>-<point>-<enregistreur>AAAAMMJJ_HHMMSS_mmm`.
    PointFixe {
        site: &'a str,
        annee: &'a str,
        passage: &'a str,
        point: &'a str,
        /// Ce qui sépare le point de l'horodatage (`PA000123_`, `OB-1_`, parfois rien).
        enregistreur: &'a str,
        /// `AAAAMMJJ`, `HHMMSS` et `mmm` : l'heure de l'enregistreur, sans fuseau.
        date: &'a str,
        heure: &'a str,
        millisecondes: &'a str,
    },
    /// `Cir<circuit>-<année>-Pass<n>-Tron<n>-Chiro_…` : routier et pédestre, sans instant.
    Routier {
        site: &'a str,
        annee: &'a str,
        passage: &'a str,
        troncon: &'a str,
    },
}

/// Décompose le nom d'un fichier (extension comprise) selon le protocole qu'il suit ; `None`
/// pour un nom qui n'en suit aucun (archive, photo, nom refusé), ou dont l'extension n'est pas
/// celle d'une séquence ou d'une sortie Tadarida.
pub(crate) fn nom_decompose(nom: &str) -> Option<NomDecompose<'_>> {
    let (souche, extension) = nom.rsplit_once('.')?;
    if !matches!(extension, "wav" | "ta" | "tc" | "tac" | "tcc") {
        return None;
    }
    // Même ordre que le serveur : routier d'abord (`^Cir` : un nom qui ne commence pas ainsi
    // n'a pas à passer par le motif).
    if souche.starts_with("Cir")
        && let Some(c) = ROUTIER.captures(souche)
    {
        return Some(NomDecompose::Routier {
            site: c.name("site")?.as_str(),
            annee: c.name("annee")?.as_str(),
            passage: c.name("passage")?.as_str(),
            troncon: c.name("troncon")?.as_str(),
        });
    }
    point_fixe_decompose(souche)
}

/// `POINT_FIXE.captures(souche)`, lu à la main : chaque fichier d'une saison passe ici à
/// chaque relance, et les groupes d'un motif à `.+` et `.*` coûtent au moteur d'expressions
/// un retour arrière par caractère. Même langage et mêmes morceaux que le motif (l'essai
/// `point_fixe_lu_a_la_main_comme_le_motif` les compare), dans l'ordre de priorité de
/// l'expression : le site le plus long d'abord (`.+` glouton), puis le passage à deux
/// chiffres avant un (`{1,2}` glouton), le point `[A-H][12]` avant `Z…` ; l'horodatage est
/// ancré à la fin, donc l'enregistreur (`.*`) est ce qui reste entre le point et lui.
fn point_fixe_decompose(souche: &str) -> Option<NomDecompose<'_>> {
    let chiffres = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let o = souche.as_bytes();
    // `.` ne reconnaît pas le saut de ligne ; tout le reste du motif est fait de caractères
    // ASCII nommés.
    if !souche.starts_with("Car") || o.contains(&b'\n') || o.len() < 19 {
        return None;
    }
    // `(?P<date>[0-9]{8})_(?P<heure>[0-9]{6})_(?P<ms>[0-9]{3})$` : les 19 derniers octets.
    let h = o.len() - 19;
    let queue = &o[h..];
    let horodatage = chiffres(&queue[..8])
        && queue[8] == b'_'
        && chiffres(&queue[9..15])
        && queue[15] == b'_'
        && chiffres(&queue[16..]);
    if !horodatage {
        return None;
    }
    let tete = &o[..h];
    // Ce qui suit le site : `-AAAA-Pass<n>-<point>-`, et la fin du point-tiret.
    let suite = |i: usize| -> Option<(usize, usize, usize)> {
        let r = &tete[i..];
        if r.len() < 11 || r[0] != b'-' || !chiffres(&r[1..5]) || &r[5..10] != b"-Pass" {
            return None;
        }
        let p = 10;
        let n = [2, 1]
            .into_iter()
            .find(|&n| r.len() > p + n && chiffres(&r[p..p + n]) && r[p + n] == b'-')?;
        let q = p + n + 1;
        let point = match r.get(q)? {
            b'A'..=b'H'
                if matches!(r.get(q + 1), Some(b'1' | b'2')) && r.get(q + 2) == Some(&b'-') =>
            {
                2
            }
            b'Z' if matches!(r.get(q + 1), Some(b'1'..=b'9')) => {
                let reste = r[q + 2..].iter().take_while(|c| c.is_ascii_digit()).count();
                if r.get(q + 2 + reste) != Some(&b'-') {
                    return None;
                }
                2 + reste
            }
            _ => return None,
        };
        Some((i + p, i + p + n, i + q + point))
    };
    // Le site le plus long d'abord : les tirets de la tête, de droite à gauche, le site
    // gardant au moins un caractère (`.+`).
    let (fin_site, (debut_passage, fin_passage, fin_point)) = (4..h)
        .rev()
        .filter(|&i| tete[i] == b'-')
        .find_map(|i| Some((i, suite(i)?)))?;
    Some(NomDecompose::PointFixe {
        site: &souche[3..fin_site],
        annee: &souche[fin_site + 1..fin_site + 5],
        passage: &souche[debut_passage..fin_passage],
        point: &souche[fin_passage + 1..fin_point],
        enregistreur: &souche[fin_point + 1..h],
        date: &souche[h..h + 8],
        heure: &souche[h + 9..h + 15],
        millisecondes: &souche[h + 16..],
    })
}

/// Valide les noms pour la plateforme Vigie-Chiro, avec le verdict de son serveur
/// ([`verdict_plateforme`]) : on ne refuse que ce qu'elle refusera. Un refus par fichier, sa
/// cause première dite précisément (le serveur, lui, ne dit que « invalid name »). S'y ajoute
/// la collision de deux fichiers de même nom dans deux sous-dossiers (la clé distante ne garde
/// que le nom). Rend **tous** les refus, dans l'ordre des chemins, un seul par fichier : sa
/// cause racine, que `noms::causes_racines` garde et regroupe.
pub(crate) fn valider_pour_vigiechiro(enregistrements: &[Enregistrement]) -> Vec<NomRefuse> {
    let mut refus = Vec::new();
    let mut vus: HashMap<&str, &str> = HashMap::with_capacity(enregistrements.len());
    for e in enregistrements {
        let nom = e.nom();
        let refuser = |regle: String, geste: String| NomRefuse {
            chemin: e.chemin.clone(),
            regle,
            geste,
        };
        if let Some(premier) = vus.insert(nom, &e.chemin) {
            refus.push(refuser(
                format!("même nom que {premier} : la plateforme ne garde que le nom, l'un écraserait l'autre"),
                "renommez l'un des deux, ou déposez ces sous-dossiers dans des participations distinctes".into(),
            ));
            vus.insert(nom, premier);
            continue;
        }
        match verdict_plateforme(nom) {
            Ok(_) => {}
            Err(RefusPlateforme::CaracteresInterdits) => {
                refus.push(caracteres_interdits(nom, refuser));
            }
            Err(RefusPlateforme::TypeInconnu) => refus.push(type_inconnu(nom, refuser)),
            Err(RefusPlateforme::NomInvalide) if double_decoupe(nom) => refus.push(refuser(
                "nom d'une séquence découpée deux fois (par Kaleidoscope ?) : un second suffixe \
                 « _00000_000 » suit un nom déjà découpé"
                    .into(),
                "reprenez les séquences d'avant le second passage (sans ce second suffixe) : \
                 celles-ci ont pu être expansées deux fois"
                    .into(),
            )),
            Err(RefusPlateforme::NomInvalide) => {
                let souche = nom.rsplit_once('.').map_or(nom, |(s, _)| s);
                refus.push(diagnostic_protocole(souche, refuser));
            }
        }
    }
    refus
}

/// Le signe d'une séquence passée deux fois par Kaleidoscope : un nom de séquence déjà découpé
/// (`…_AAAAMMJJ_HHMMSS_000`, `…-Chiro_0_00023_000`) suivi d'un second suffixe de découpe
/// (`_00000_000`, l'offset en secondes et le rang). Le serveur refuse ce nom ; on dit pourquoi,
/// pour que l'on reprenne les fichiers d'avant le second passage au lieu de le renommer.
fn double_decoupe(nom: &str) -> bool {
    let Some((souche, extension)) = nom.rsplit_once('.') else {
        return false;
    };
    let o = souche.as_bytes();
    // `_` cinq chiffres `_` trois chiffres, à la fin.
    if o.len() < 11 {
        return false;
    }
    let queue = &o[o.len() - 10..];
    let suffixe = queue[0] == b'_'
        && queue[1..6].iter().all(u8::is_ascii_digit)
        && queue[6] == b'_'
        && queue[7..].iter().all(u8::is_ascii_digit);
    suffixe && nom_decompose(&format!("{}.{extension}", &souche[..souche.len() - 10])).is_some()
}

fn caracteres_interdits(nom: &str, refuser: impl Fn(String, String) -> NomRefuse) -> NomRefuse {
    let mut interdits: Vec<char> = nom.chars().filter(|&c| !caractere_permis(c)).collect();
    interdits.sort_unstable();
    interdits.dedup();
    let liste: Vec<String> = interdits
        .iter()
        .map(|c| match c {
            ' ' => "espace".to_owned(),
            '\u{300}'..='\u{36f}' => {
                "accent écrit à part de sa lettre (nom venu de macOS)".to_owned()
            }
            c => format!("« {c} »"),
        })
        .collect();
    refuser(
        format!(
            "caractère(s) interdit(s) : {} (permis : lettres sans accent, chiffres, _ . -)",
            liste.join(", ")
        ),
        geste_nom_permis(nom),
    )
}

/// Le geste pour un nom aux caractères interdits : un nom que la plateforme acceptera tel
/// quel. Les accents tombent (« é », ou « e » suivi de l'accent combinant d'un nom venu de
/// macOS, donnent « e ») ; pour le reste, on essaie « _ » à la place de chaque caractère, puis
/// rien (« Pass 1 » → « Pass1 »), puis « - », et l'on ne propose que ce qui passe le verdict
/// du serveur ([`verdict_plateforme`]). Si aucun ne passe, on le dit (un « (2) » de copie, un
/// nom hors protocole : c'est à l'humain de choisir).
fn geste_nom_permis(nom: &str) -> String {
    let essais: Vec<String> = [Some('_'), None, Some('-')]
        .into_iter()
        .map(|remplacant| nom_permis(nom, remplacant))
        .collect();
    if let Some(bon) = essais.iter().find(|e| verdict_plateforme(e).is_ok()) {
        return format!("renommez-le en {bon}");
    }
    // La cause suivante n'est pas dite : une seule cause par fichier, la racine.
    format!(
        "renommez-le à la main : sans ces caractères ({}), la plateforme le refuserait encore",
        essais[0]
    )
}

/// Un type inconnu, pour un fichier que l'inventaire a pris pour un enregistrement : son
/// extension n'est pas en minuscules (`.WAV`, `.Zip`).
fn type_inconnu(nom: &str, refuser: impl Fn(String, String) -> NomRefuse) -> NomRefuse {
    match extension_enregistrement(nom) {
        Some(ext) if ext != ext.to_ascii_lowercase() => {
            let corrige = format!(
                "{}{}",
                &nom[..nom.len() - ext.len()],
                ext.to_ascii_lowercase()
            );
            refuser(
                format!(
                    "extension « .{ext} » en majuscules : la plateforme ne reconnaît que les minuscules"
                ),
                format!("renommez {nom} en {corrige}"),
            )
        }
        _ => refuser(
            "type de fichier inconnu de la plateforme".into(),
            "déposez les séquences .wav, les sorties Tadarida (.ta, .tc) et les archives .zip"
                .into(),
        ),
    }
}

/// Dit pourquoi une souche ne suit aucun protocole, le plus précisément possible.
fn diagnostic_protocole(souche: &str, refuser: impl Fn(String, String) -> NomRefuse) -> NomRefuse {
    const FORME_FIXE: &str = "Car<site>-<année>-Pass<n>-<point>-…_AAAAMMJJ_HHMMSS_mmm";
    const FORME_ROUTIER: &str = "Cir<circuit>-<année>-Pass<n>-Tron<n>-Chiro_…_NNN";
    static NUMERO_PASSAGE: LazyLock<Regex> = LazyLock::new(|| motif(r"-Pass([0-9]+)-"));
    static NUMERO_TRONCON: LazyLock<Regex> = LazyLock::new(|| motif(r"-Tron([0-9]+)-"));
    static POINT: LazyLock<Regex> = LazyLock::new(|| motif(r"-Pass[0-9]{1,2}-([^-]*)-"));
    static SUFFIXE_HORODATE: LazyLock<Regex> =
        LazyLock::new(|| motif(r"[0-9]{8}_[0-9]{6}_[0-9]{3}$"));
    let routier = souche.starts_with("Cir");
    // Le premier numéro de passage (puis de tronçon) : deux chiffres au plus, non nul.
    let numeros: &[(&str, &Regex)] = if routier {
        &[("Pass", &NUMERO_PASSAGE), ("Tron", &NUMERO_TRONCON)]
    } else {
        &[("Pass", &NUMERO_PASSAGE)]
    };
    for (quoi, m) in numeros {
        let Some(c) = m.captures(souche) else {
            continue;
        };
        let nombre = &c[1];
        let libelle = if *quoi == "Pass" {
            "passage"
        } else {
            "tronçon"
        };
        if nombre.len() > 2 {
            return refuser(
                format!("numéro de {libelle} « {quoi}{nombre} » : deux chiffres au plus"),
                format!("corrigez le numéro de {libelle} dans le nom ({quoi}1 à {quoi}99)"),
            );
        }
        if nombre.bytes().all(|o| o == b'0') {
            return refuser(
                format!("numéro de {libelle} « {quoi}{nombre} » invalide : il commence à 1"),
                format!("corrigez le numéro de {libelle} dans le nom ({quoi}1, {quoi}2…)"),
            );
        }
    }
    if routier {
        return refuser(
            format!("ne suit pas le protocole routier/pédestre ({FORME_ROUTIER})"),
            "vérifiez le circuit, l'année, le passage et le tronçon dans le nom".into(),
        );
    }
    if !souche.starts_with("Car") {
        return refuser(
            format!("ne suit aucun protocole Vigie-Chiro (point fixe : {FORME_FIXE} ; routier/pédestre : {FORME_ROUTIER})"),
            "renommez les fichiers avec l'outil de préparation du protocole (Kaleidoscope, Tadarida) avant de déposer".into(),
        );
    }
    if let Some(c) = POINT.captures(souche) {
        let point = &c[1];
        if !POINT_VALIDE.is_match(point) {
            return refuser(
                format!(
                    "point « {point} » invalide : A1 à H2, ou Z suivi d'un numéro sans zéro en tête (Z1, Z10…)"
                ),
                "corrigez le point dans le nom".into(),
            );
        }
    }
    if let Some(ecart) = ecart_point_fixe(souche) {
        return refuser(ecart.regle, ecart.geste);
    }
    if !SUFFIXE_HORODATE.is_match(souche) {
        return refuser(
            "la date et l'heure manquent en fin de nom (_AAAAMMJJ_HHMMSS_mmm, millisecondes comprises)".into(),
            format!("gardez le nom produit par l'enregistreur, de la forme {FORME_FIXE}"),
        );
    }
    refuser(
        format!("ne suit pas le protocole point fixe ({FORME_FIXE})"),
        "vérifiez le site, l'année, le passage et le point (A1 à H2, ou Z<n>) dans le nom".into(),
    )
}

/// Où un nom `Car…` s'écarte du protocole point fixe, champ par champ, et le geste qui montre
/// l'endroit.
struct Ecart {
    regle: String,
    geste: String,
}

/// Lit une souche `Car…` champ par champ (`Car<site>-<année>-Pass<n>-…`) comme le motif du
/// serveur, et montre le premier champ qui s'en écarte : une faute de frappe (`Pas1`) se voit
/// là où elle est, au lieu d'un « ne suit pas le protocole » qui laisse chercher. `None` si le
/// nom porte quelque part `-<année>-Pass<n>-` (le site peut contenir des « - » : le motif du
/// serveur l'admet, on ne devine pas alors quel champ est fautif).
fn ecart_point_fixe(souche: &str) -> Option<Ecart> {
    static ANNEE_PASSAGE: LazyLock<Regex> = LazyLock::new(|| motif(r"-[0-9]{4}-Pass[0-9]{1,2}-"));
    static ANNEE: LazyLock<Regex> = LazyLock::new(|| motif(r"^[0-9]{4}$"));
    static PASSAGE_MAL_ECRIT: LazyLock<Regex> =
        LazyLock::new(|| motif(r"^(?i)p[a-z]*?([0-9]{1,2})$"));
    if ANNEE_PASSAGE.is_match(souche) {
        return None;
    }
    let champs: Vec<&str> = souche.split('-').collect();
    // Le champ fautif, son rang, et ce qu'il devrait être.
    let (rang, attendu, correction) = match champs.as_slice() {
        [_site, annee, ..] if !ANNEE.is_match(annee) => (1, "l'année sur 4 chiffres", None),
        [_site, _annee, passage, ..] => {
            let correction = PASSAGE_MAL_ECRIT
                .captures(passage)
                .map(|c| format!("Pass{}", &c[1]));
            (2, "le passage, Pass<n> (Pass1, Pass2…)", correction)
        }
        [_site, _annee] => (2, "le passage, Pass<n> (Pass1, Pass2…)", None),
        _ => (1, "l'année sur 4 chiffres", None),
    };
    let fautif = champs.get(rang).copied().unwrap_or("");
    let avant = champs[..rang.min(champs.len())].join("-");
    let marque = if fautif.is_empty() {
        format!("{avant}-[?]")
    } else {
        format!("{avant}-[{fautif}]")
    };
    let suite = if champs.len() > rang + 1 { "-…" } else { "" };
    let regle = if fautif.is_empty() {
        format!("{attendu} manque")
    } else {
        format!("« {fautif} » là où le protocole attend {attendu}")
    };
    let geste = match correction {
        Some(c) => format!("corrigez [{fautif}] en {c} : {marque}{suite}"),
        None => format!("corrigez le champ entre crochets : {marque}{suite}"),
    };
    Some(Ecart { regle, geste })
}

/// Une proposition de nom permis : accents retirés (précomposés, ou combinants comme les
/// écrit macOS, forme NFD), le reste remplacé par `remplacant` (ou retiré).
fn nom_permis(nom: &str, remplacant: Option<char>) -> String {
    nom.chars()
        .filter_map(|c| {
            Some(match c {
                'à' | 'â' | 'ä' | 'á' | 'ã' | 'å' => 'a',
                'À' | 'Â' | 'Ä' | 'Á' | 'Ã' | 'Å' => 'A',
                'é' | 'è' | 'ê' | 'ë' => 'e',
                'É' | 'È' | 'Ê' | 'Ë' => 'E',
                'î' | 'ï' | 'í' | 'ì' => 'i',
                'Î' | 'Ï' | 'Í' | 'Ì' => 'I',
                'ô' | 'ö' | 'ó' | 'ò' | 'õ' => 'o',
                'Ô' | 'Ö' | 'Ó' | 'Ò' | 'Õ' => 'O',
                'ù' | 'û' | 'ü' | 'ú' => 'u',
                'Ù' | 'Û' | 'Ü' | 'Ú' => 'U',
                'ç' => 'c',
                'Ç' => 'C',
                'ñ' => 'n',
                'Ñ' => 'N',
                'ÿ' => 'y',
                // Les diacritiques combinants (U+0300 à U+036F) suivent la lettre qu'ils
                // accentuent : ils tombent, la lettre reste.
                '\u{300}'..='\u{36f}' => return None,
                c if caractere_permis(c) => c,
                _ => return remplacant,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enr(chemin: &str) -> Enregistrement {
        Enregistrement {
            chemin: chemin.into(),
            taille: 1,
            modifie_ns: 0,
            identite: None,
        }
    }

    const BON: &str = "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav";

    #[test]
    fn extensions_reconnues() {
        for nom in [
            "a.wav",
            "a.WAV",
            "a.ta",
            "a.tac",
            "a.tc",
            "a.tcc",
            "a.zip",
            "a.zip.001",
            "a.z01",
        ] {
            assert!(extension_enregistrement(nom).is_some(), "{nom}");
        }
        for nom in [
            "a.txt", "a.jpg", "wav", ".wav", "a.wavx", "a.zip.", "a.z", "a.zipx",
        ] {
            assert!(extension_enregistrement(nom).is_none(), "{nom}");
        }
        assert_eq!(extension_enregistrement("a.zip.002"), Some("zip.002"));
        // Quel que soit le nombre de chiffres, comme `detect_mime`.
        assert_eq!(extension_enregistrement("a.zip.1"), Some("zip.1"));
        assert_eq!(extension_enregistrement("a.zip.12345"), Some("zip.12345"));
        assert_eq!(extension_enregistrement("a.z1"), Some("z1"));
        assert_eq!(extension_enregistrement("a.z123"), Some("z123"));
    }

    #[test]
    fn noms_reels_acceptes() {
        let ok = [
            BON,
            "Car170517-2014-Pass12-Z3-OB-1_20140702_224038_761.ta",
            "Car640139-2021-Pass2-H2-PA000123_20210611_213512_000.wav",
            "Cir270-2015-Pass1-Tron1-Chiro_0_00023_000.wav",
            "Cir270-2015-Pass1-Tron1-Chiro_123_000.tc",
            "Nuit du 3 juin.zip",
        ];
        let refus = valider_pour_vigiechiro(&ok.iter().map(|n| enr(n)).collect::<Vec<_>>());
        // L'archive a un nom libre, mais ses espaces restent interdits.
        assert_eq!(refus.len(), 1, "{refus:?}");
        assert_eq!(refus[0].chemin, "Nuit du 3 juin.zip");
        assert!(refus[0].regle.contains("espace"));
    }

    #[test]
    fn noms_refuses_avec_regle_et_geste() {
        let cas = [
            (
                "Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.WAV",
                "majuscules",
                "renommez Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.WAV en Car170517-2014-Pass1-C1-OB-1_20140702_224038_761.wav",
            ),
            (
                "Car170517-2014-Pass1-C1-OB 1_20140702_224038_761.wav",
                "espace",
                "OB_1",
            ),
            (
                "Car170517-2014-Pass1-C1-Étang_20140702_224038_761.wav",
                "« É »",
                "Etang",
            ),
            (
                "Car170517-2014-Pass0-C1-OB-1_20140702_224038_761.wav",
                "Pass0",
                "Pass1",
            ),
            (
                "Car170517-2014-Pass1-C1-OB-1_20140702_224038.wav",
                "millisecondes",
                "AAAAMMJJ",
            ),
            ("enregistrement.wav", "aucun protocole", "renommez"),
        ];
        for (nom, regle, geste) in cas {
            let refus = valider_pour_vigiechiro(&[enr(&format!("sous/{nom}"))]);
            assert!(!refus.is_empty(), "{nom} accepté");
            assert!(
                refus.iter().any(|r| r.regle.contains(regle)),
                "{nom} : {refus:?}"
            );
            assert!(
                refus.iter().any(|r| r.geste.contains(geste)),
                "{nom} : {refus:?}"
            );
            assert!(refus.iter().all(|r| r.chemin == format!("sous/{nom}")));
        }
    }

    /// Chaque règle du serveur, le cas limite de chaque côté ; le verdict attendu est celui
    /// que rend `resources/fichiers.py` `fichier_create` (lu dans son code).
    #[test]
    fn verdict_du_serveur_regle_par_regle() {
        use RefusPlateforme::*;
        let fixe = |milieu: &str| format!("Car640380-2026-{milieu}-OB-1_20260621_224038_761.wav");
        let routier = |milieu: &str| format!("Cir270-2026-{milieu}-Chiro_0_00018_000.wav");
        let cas: Vec<(String, Result<&str, RefusPlateforme>)> = vec![
            // Numéro de passage : un ou deux chiffres, non nul.
            (fixe("Pass1-A1"), Ok("audio/wav")),
            (fixe("Pass01-A1"), Ok("audio/wav")),
            (fixe("Pass99-A1"), Ok("audio/wav")),
            (fixe("Pass0-A1"), Err(NomInvalide)),
            (fixe("Pass00-A1"), Err(NomInvalide)),
            (fixe("Pass123-A1"), Err(NomInvalide)),
            // Point : A1 à H2, ou Z suivi d'un nombre sans zéro en tête.
            (fixe("Pass1-H2"), Ok("audio/wav")),
            (fixe("Pass1-H3"), Err(NomInvalide)),
            (fixe("Pass1-I1"), Err(NomInvalide)),
            (fixe("Pass1-Z1"), Ok("audio/wav")),
            (fixe("Pass1-Z10"), Ok("audio/wav")),
            (fixe("Pass1-Z0"), Err(NomInvalide)),
            (fixe("Pass1-Z01"), Err(NomInvalide)),
            // Année sur quatre chiffres, horodatage en fin de nom, millisecondes comprises.
            (
                "Car640380-26-Pass1-A1-OB-1_20260621_224038_761.wav".into(),
                Err(NomInvalide),
            ),
            (
                "Car640380-2026-Pass1-A1-OB-1_20260621_224038.wav".into(),
                Err(NomInvalide),
            ),
            (
                "Car640380-2026-Pass1-A1-_20260621_224038_761.wav".into(),
                Ok("audio/wav"),
            ),
            // Le premier `-PassNN-` du nom compte, même si le protocole en reconnaît un autre.
            (
                "Car-Pass0-x-2026-Pass1-A1-OB_20260621_224038_761.wav".into(),
                Err(NomInvalide),
            ),
            // Routier et pédestre : tronçon d'un ou deux chiffres, non nul.
            (routier("Pass1-Tron1"), Ok("audio/wav")),
            (routier("Pass1-Tron01"), Ok("audio/wav")),
            (routier("Pass1-Tron10"), Ok("audio/wav")),
            (routier("Pass1-Tron0"), Err(NomInvalide)),
            (routier("Pass1-Tron00"), Err(NomInvalide)),
            (routier("Pass1-Tron100"), Err(NomInvalide)),
            (routier("Pass0-Tron1"), Err(NomInvalide)),
            (
                "Cir270-2026-Pass1-Tron1-Chiro_1_00018_000.wav".into(),
                Ok("audio/wav"),
            ),
            (
                "Cir270-2026-Pass1-Tron1-Chiro_2_00018_000.wav".into(),
                Err(NomInvalide),
            ),
            (
                "Cir270-2026-Pass1-Tron1-Chiro_18_00.wav".into(),
                Err(NomInvalide),
            ),
            // Sorties Tadarida : même règle de nom que les séquences.
            (
                fixe("Pass1-A1").replace(".wav", ".ta"),
                Ok("application/ta"),
            ),
            (
                fixe("Pass1-A1").replace(".wav", ".tac"),
                Ok("application/tac"),
            ),
            (
                fixe("Pass1-A1").replace(".wav", ".tc"),
                Ok("application/tc"),
            ),
            (
                fixe("Pass1-A1").replace(".wav", ".tcc"),
                Ok("application/tcc"),
            ),
            ("nuit.ta".into(), Err(NomInvalide)),
            // Extension sensible à la casse.
            (fixe("Pass1-A1").replace(".wav", ".WAV"), Err(TypeInconnu)),
            (fixe("Pass1-A1").replace(".wav", ".Wav"), Err(TypeInconnu)),
            ("a.ZIP".into(), Err(TypeInconnu)),
            // Archives : nom libre, `.zip`, `.zip.N` et `.zN` quel que soit le nombre de
            // chiffres, et tout ce qui commence par `….zip`.
            ("nuit.zip".into(), Ok("application/zip")),
            ("nuit.zip.1".into(), Ok("application/zip")),
            ("nuit.zip.12345".into(), Ok("application/zip")),
            ("nuit.z1".into(), Ok("application/zip")),
            ("nuit.z123".into(), Ok("application/zip")),
            ("nuit.zip.wav".into(), Ok("application/zip")),
            ("nuit.Z01".into(), Err(TypeInconnu)),
            // Caractères : `[a-zA-Z0-9_.-]` seulement, archives comprises.
            ("Nuit du 3 juin.zip".into(), Err(CaracteresInterdits)),
            (
                fixe("Pass1-A1").replace("OB-1", "Étang"),
                Err(CaracteresInterdits),
            ),
            ("".into(), Err(CaracteresInterdits)),
            // Sans extension.
            ("sans_extension".into(), Err(TypeInconnu)),
        ];
        for (titre, attendu) in &cas {
            assert_eq!(verdict_plateforme(titre), *attendu, "{titre}");
        }
    }

    #[test]
    fn ne_refuse_que_ce_que_le_serveur_refuse() {
        // Les noms acceptés par le serveur passent la validation sans aucun refus.
        let acceptes = [
            "Car640380-2026-Pass01-A1-OB-1_20260621_224038_761.wav",
            "Car640380-2026-Pass1-Z10-OB-1_20260621_224038_761.wav",
            "Cir270-2026-Pass1-Tron10-Chiro_0_00018_000.wav",
            "nuit.zip.12345",
            "nuit.z123",
        ];
        let refus = valider_pour_vigiechiro(&acceptes.iter().map(|n| enr(n)).collect::<Vec<_>>());
        assert!(refus.is_empty(), "{refus:?}");
        // Les refusés, chacun une seule fois, avec sa cause première.
        let cas = [
            (
                "Car640380-2026-Pass0-A1-OB-1_20260621_224038_761.wav",
                "Pass0",
            ),
            (
                "Car640380-2026-Pass00-A1-OB-1_20260621_224038_761.wav",
                "Pass00",
            ),
            (
                "Car640380-2026-Pass123-A1-OB-1_20260621_224038_761.wav",
                "deux chiffres",
            ),
            (
                "Car640380-2026-Pass1-Z0-OB-1_20260621_224038_761.wav",
                "point « Z0 »",
            ),
            ("Cir270-2026-Pass1-Tron0-Chiro_0_00018_000.wav", "Tron0"),
            (
                "Cir270-2026-Pass1-Tron123-Chiro_0_00018_000.wav",
                "deux chiffres",
            ),
            (
                "Car640380-2026-Pass1-A1-OB 1_20260621_224038_761.wav",
                "espace",
            ),
        ];
        for (nom, regle) in cas {
            let refus = valider_pour_vigiechiro(&[enr(nom)]);
            assert_eq!(refus.len(), 1, "{nom} : {refus:?}");
            assert!(refus[0].regle.contains(regle), "{nom} : {refus:?}");
        }
    }

    /// La suggestion pour un nom aux caractères interdits est elle-même acceptée par la
    /// plateforme ; un nom NFD (accents combinants, macOS) perd ses accents, pas ses lettres.
    #[test]
    fn la_suggestion_est_acceptee_par_la_plateforme() {
        for (nom, suggestion) in [
            (
                "Car640380-2026-Pass 1-A1-PA000123_20260621_221500_000.wav",
                "Car640380-2026-Pass1-A1-PA000123_20260621_221500_000.wav",
            ),
            (
                "Car640380-2026-Pass1-A1-mon enregistreur_20260621_221500_000.wav",
                "Car640380-2026-Pass1-A1-mon_enregistreur_20260621_221500_000.wav",
            ),
            (
                "Car640380-2026-Pass1-A1-E\u{301}tang_20260621_221500_000.wav",
                "Car640380-2026-Pass1-A1-Etang_20260621_221500_000.wav",
            ),
        ] {
            let refus = valider_pour_vigiechiro(&[enr(nom)]);
            assert_eq!(refus.len(), 1, "{nom}");
            assert_eq!(
                refus[0].geste,
                format!("renommez-le en {suggestion}"),
                "{nom}"
            );
            assert!(verdict_plateforme(suggestion).is_ok(), "{suggestion}");
        }
        // NFD : « relevé_é » écrit « releve\u{301}_e\u{301} ».
        assert_eq!(
            nom_permis("releve\u{301}_e\u{301}.wav", Some('_')),
            "releve_e.wav"
        );
        let refus = valider_pour_vigiechiro(&[enr("releve\u{301}_e\u{301}.wav")]);
        assert!(refus[0].geste.contains("(releve_e.wav)"), "{refus:?}");
        assert!(!refus[0].geste.contains("releve__e_"), "{refus:?}");
        // Aucun nom sûr : on le dit, sans proposer un nom qui serait refusé.
        assert!(
            refus[0].geste.starts_with("renommez-le à la main"),
            "{refus:?}"
        );
    }

    /// Une faute de frappe dans le passage (`Pas1`) est montrée à l'endroit où elle est, avec
    /// la correction, au lieu d'un message générique.
    #[test]
    fn une_faute_de_frappe_est_montree_a_son_endroit() {
        let refus = valider_pour_vigiechiro(&[enr(
            "Car640380-2026-Pas1-A1-PA000123_20260621_221500_000.wav",
        )]);
        assert_eq!(refus.len(), 1);
        assert_eq!(
            refus[0].regle,
            "« Pas1 » là où le protocole attend le passage, Pass<n> (Pass1, Pass2…)"
        );
        assert_eq!(
            refus[0].geste,
            "corrigez [Pas1] en Pass1 : Car640380-2026-[Pas1]-…"
        );
        let refus = valider_pour_vigiechiro(&[enr(
            "Car640380-26-Pass1-A1-PA000123_20260621_221500_000.wav",
        )]);
        assert!(
            refus[0]
                .regle
                .contains("« 26 » là où le protocole attend l'année"),
            "{refus:?}"
        );
        assert!(refus[0].geste.contains("Car640380-[26]-…"), "{refus:?}");
        assert!(
            !refus[0].regle.contains("ne suit pas le protocole"),
            "{refus:?}"
        );
    }

    #[test]
    fn point_d_ecoute_lu_dans_le_nom() {
        assert_eq!(point_du_nom(BON), Some("C1"));
        assert_eq!(
            point_du_nom("Car170517-2014-Pass1-Z12-OB-1_20140702_224038_761.ta"),
            Some("Z12")
        );
        assert_eq!(
            point_du_nom("Cir270-2015-Pass1-Tron1-Chiro_0_00023_000.wav"),
            None
        );
        assert_eq!(point_du_nom("nuit.zip"), None);
    }

    #[test]
    fn noms_decomposes_par_les_motifs_du_serveur() {
        assert_eq!(
            nom_decompose("Car640380-2026-Pass1-Z1-PA000123_20260621_213000_007.wav"),
            Some(NomDecompose::PointFixe {
                site: "640380",
                annee: "2026",
                passage: "1",
                point: "Z1",
                enregistreur: "PA000123_",
                date: "20260621",
                heure: "213000",
                millisecondes: "007",
            })
        );
        // Sans enregistreur, et en sortie Tadarida.
        assert!(matches!(
            nom_decompose("Car640380-2026-Pass01-A1-_20260621_224038_761.ta"),
            Some(NomDecompose::PointFixe {
                passage: "01",
                enregistreur: "_",
                ..
            })
        ));
        assert_eq!(
            nom_decompose("Cir270-2015-Pass2-Tron10-Chiro_1_00023_000.wav"),
            Some(NomDecompose::Routier {
                site: "270",
                annee: "2015",
                passage: "2",
                troncon: "10",
            })
        );
        // Ce que le serveur n'accepte pas ne se décompose pas ; une archive non plus.
        for nom in [
            "Car640380-2026-Pass1-A1-OB_20260621_224038.wav",
            "Car640380-2026-Pass1-Z01-OB_20260621_224038_761.wav",
            "Car640380-2026-Pass1-A1-OB_20260621_224038_761.WAV",
            "Car640380-2026-Pass1-A1-OB_20260621_224038_761.zip",
            "nuit.wav",
        ] {
            assert_eq!(nom_decompose(nom), None, "{nom}");
        }
        // Le point lu est celui que lit `point_du_nom`, et tout nom décomposé est un nom que
        // le serveur reconnaît (hors passage nul, qu'il refuse à part).
        for nom in [
            BON,
            "Car170517-2014-Pass12-Z3-OB-1_20140702_224038_761.ta",
            "Car-2026-Pass1-A1-x-2026-Pass2-B1-y_20260621_224038_761.wav",
        ] {
            let Some(NomDecompose::PointFixe { point, .. }) = nom_decompose(nom) else {
                panic!("{nom}");
            };
            assert_eq!(point_du_nom(nom), Some(point), "{nom}");
            assert!(nom_de_donnee_valide(nom), "{nom}");
        }
    }

    /// La lecture à la main d'un nom du point fixe rend ce que rendent les groupes du motif
    /// du serveur, sur des noms bâtis pour en éprouver chaque branche : site à tirets qui
    /// contient lui-même un faux `-AAAA-PassN-point-`, passage à un, deux ou trois chiffres,
    /// points `A1`…`H2`, `Z…` et invalides, enregistreur vide ou à tirets, horodatage trop
    /// court ou trop long, saut de ligne, caractères non ASCII.
    #[test]
    fn point_fixe_lu_a_la_main_comme_le_motif() {
        fn reference(souche: &str) -> Option<NomDecompose<'_>> {
            let c = POINT_FIXE.captures(souche)?;
            let g = |n: &str| c.name(n).map(|m| m.as_str());
            Some(NomDecompose::PointFixe {
                site: g("site")?,
                annee: g("annee")?,
                passage: g("passage")?,
                point: g("point")?,
                enregistreur: g("enregistreur")?,
                date: g("date")?,
                heure: g("heure")?,
                millisecondes: g("ms")?,
            })
        }
        let debuts = ["Car", "Cir", "car", "Ca"];
        let sites = [
            "640380",
            "",
            "-",
            "é",
            "6-4",
            "1-2026-Pass1-A1-x",
            "1-2026-Pass1-A1-",
            "Z1-",
            "a\nb",
        ];
        let annees = ["-2026", "-202", "-20266", "2026", "-2o26"];
        let passages = [
            "-Pass1",
            "-Pass12",
            "-Pass123",
            "-Pass",
            "-Pas1",
            "-Pass1-Pass2",
        ];
        let points = [
            "-A1", "-H2", "-I1", "-A3", "-Z1", "-Z12", "-Z0", "-Z", "-A1x", "-Z1x", "", "-",
        ];
        let enregistreurs = ["-", "-PA1_", "-OB-1_", "", "-Pass1-A1-", "-é", "-\n", "--"];
        let queues = [
            "20260601_210000_000",
            "2026061_210000_000",
            "20260601_2100000_000",
            "20260601-210000_000",
            "20260601_210000_00",
            "x20260601_210000_000",
            "",
        ];
        let mut essais = 0;
        for d in debuts {
            for s in sites {
                for a in annees {
                    for p in passages {
                        for pt in points {
                            for e in enregistreurs {
                                for q in queues {
                                    let souche = format!("{d}{s}{a}{p}{pt}{e}{q}");
                                    assert_eq!(
                                        point_fixe_decompose(&souche),
                                        reference(&souche),
                                        "{souche:?}"
                                    );
                                    essais += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(essais > 100_000);
    }

    /// Tous les titres de cinq caractères au plus sur `a`, `W`, `1`, `.`, `_`, `-` (ceux que
    /// `TITRE` accepte) : l'extension lue à la main est le groupe de `EXTENSION`.
    #[test]
    fn extension_lue_a_la_main_comme_le_motif() {
        let alphabet = ['a', 'W', '1', '.', '_', '-'];
        let mut titres = vec![String::new()];
        let mut essais = 0;
        for _ in 0..5 {
            titres = titres
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            for t in &titres {
                let motif = EXTENSION
                    .captures(t)
                    .and_then(|c| c.get(1))
                    .map(|m| m.as_str());
                assert_eq!(extension_du_titre(t), motif, "{t:?}");
                essais += 1;
            }
        }
        assert_eq!(essais, 6 + 36 + 216 + 1296 + 7776);
    }

    /// Tous les titres de six caractères au plus sur `z`, `i`, `p`, `.`, `1`, `a` (et de quatre
    /// au plus avec `é`, ` `, `_`, `-`, `Z`) : le titre permis et l'archive lus à la main rendent ce
    /// que rendent les motifs du serveur.
    #[test]
    fn archive_lue_a_la_main_comme_les_motifs() {
        let mut essais = 0;
        for (alphabet, longueur) in [
            (&['z', 'i', 'p', '.', '1', 'a'][..], 6),
            (&['z', '.', '1', 'é', ' ', '_', '-', 'Z'][..], 4),
        ] {
            let mut titres = vec![String::new()];
            for _ in 0..longueur {
                titres = titres
                    .iter()
                    .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                    .collect();
                for t in &titres {
                    assert_eq!(titre_permis(t), TITRE.is_match(t), "{t:?}");
                    if TITRE.is_match(t) {
                        let motifs =
                            ZIP_DECOUPE.is_match(t) || Z_NUMERO.is_match(t) || ZIP.is_match(t);
                        assert_eq!(titre_d_archive(t), motifs, "{t:?}");
                    }
                    essais += 1;
                }
            }
        }
        assert!(essais > 60_000, "{essais}");
        assert!(!titre_permis(""));
    }

    #[test]
    fn double_decoupe_de_kaleidoscope() {
        const FIXE: &str = "Car640380-2026-Pass1-A1-PA1_20260621_221500_000";
        const ROUTIER: &str = "Cir270-2026-Pass1-Tron1-Chiro_0_00023_000";
        assert!(double_decoupe(&format!("{FIXE}_00000_000.wav")));
        assert!(double_decoupe(&format!("{ROUTIER}_00005_001.wav")));
        assert!(!double_decoupe(&format!("{FIXE}.wav")));
        assert!(!double_decoupe(&format!("{ROUTIER}.wav")));
        assert!(!double_decoupe("nuit_00000_000.wav"));
        assert!(!double_decoupe("_00000_000"));
        // Refusé par le serveur, et dit pour ce qu'il est.
        let refus = valider_pour_vigiechiro(&[enr(&format!("{FIXE}_00000_000.wav"))]);
        assert_eq!(refus.len(), 1);
        assert!(refus[0].regle.contains("découpée deux fois"), "{refus:?}");
        assert!(refus[0].regle.contains("_00000_000"), "{refus:?}");
    }

    #[test]
    fn meme_nom_dans_deux_sous_dossiers() {
        let refus = valider_pour_vigiechiro(&[enr(&format!("a/{BON}")), enr(&format!("b/{BON}"))]);
        assert_eq!(refus.len(), 1);
        assert_eq!(refus[0].chemin, format!("b/{BON}"));
        assert!(refus[0].regle.contains(&format!("a/{BON}")));
    }

    #[test]
    fn tous_les_fautifs_d_un_coup() {
        let noms: Vec<_> = (0..5).map(|i| enr(&format!("f{i}.WAV"))).collect();
        let refus = valider_pour_vigiechiro(&noms);
        let chemins: std::collections::HashSet<_> =
            refus.iter().map(|r| r.chemin.as_str()).collect();
        assert_eq!(chemins.len(), 5);
    }

    #[cfg(unix)]
    #[test]
    fn parcours_ignore_compte_et_signale() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("sous/plus")).unwrap();
        fs::create_dir_all(d.join(".cache")).unwrap();
        fs::write(d.join("a.wav"), b"RIFF").unwrap();
        fs::write(d.join("sous/plus/b.ta"), b"x").unwrap();
        fs::write(d.join(".DS_Store"), b"x").unwrap();
        fs::write(d.join("Thumbs.db"), b"x").unwrap();
        fs::write(d.join(".cache/c.wav"), b"x").unwrap();
        fs::write(d.join("notes.txt"), b"x").unwrap();
        fs::write(d.join("vide.wav"), b"").unwrap();
        symlink(d.join("sous"), d.join("lien")).unwrap();
        symlink(d, d.join("sous/boucle")).unwrap();
        let inv = inventorier(d).unwrap();
        let chemins: Vec<_> = inv
            .enregistrements
            .iter()
            .map(|e| e.chemin.as_str())
            .collect();
        assert_eq!(chemins, ["a.wav", "sous/plus/b.ta"]);
        assert_eq!(inv.ignores_systeme, 3);
        assert_eq!(inv.non_reconnus, ["notes.txt"]);
        assert_eq!(inv.vides, ["vide.wav"]);
        let mut liens = inv.liens.clone();
        liens.sort();
        assert_eq!(liens, ["lien", "sous/boucle"]);
        assert!(inv.problemes.is_empty());
        assert_eq!(inv.enregistrements[0].taille, 4);
        assert!(inv.enregistrements[0].modifie_ns > 0);
        // L'identité relevée par l'inventaire est celle que la planification relisait : elle
        // la reprend telle quelle (un seul `lstat` par fichier).
        for e in &inv.enregistrements {
            let chemin = crate::plateforme::chemins::local(dir.path(), &e.chemin);
            let relue = crate::plateforme::identite_du_chemin(&chemin);
            assert!(cfg!(not(unix)) || relue.is_some());
            assert_eq!(e.identite.map(|i| i.to_string()), relue, "{}", e.chemin);
        }
    }

    #[cfg(unix)]
    #[test]
    fn nom_non_utf8_est_un_probleme_du_fichier() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.wav"), b"x").unwrap();
        fs::write(dir.path().join(OsStr::from_bytes(b"b\xff.wav")), b"x").unwrap();
        let inv = inventorier(dir.path()).unwrap();
        assert_eq!(inv.enregistrements.len(), 1);
        assert_eq!(inv.problemes.len(), 1);
        assert!(inv.problemes[0].probleme.contains("UTF-8"));
    }

    #[test]
    fn dossier_sans_enregistrement() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        let e = inventorier(dir.path()).unwrap_err();
        assert!(
            matches!(e, ErreurInventaire::Vide { ignores: 1, .. }),
            "{e}"
        );
        assert!(matches!(
            inventorier(&dir.path().join("absent")),
            Err(ErreurInventaire::Introuvable(_))
        ));
        assert!(matches!(
            inventorier(&dir.path().join("notes.txt")),
            Err(ErreurInventaire::PasUnDossier(_))
        ));
    }
}
