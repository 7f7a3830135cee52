//! Écrire un fichier entier, ou rien, sans jamais suivre un lien.
//!
//! Chaque fichier que `vigie` écrit (les résultats d'un calcul, le cache des taxons, le jeton
//! et ce que `vigie connexion` retient à côté, le numéro du processus qui tient un plan, les
//! complétions et la page de manuel de `generer-docs`) s'écrit ainsi : un fichier provisoire
//! créé **exclusivement** à côté du fichier visé (`O_CREAT | O_EXCL` : un lien déjà posé à son
//! nom fait échouer la création, il n'est jamais suivi), sous un nom que nul ne peut prévoir
//! (`tempfile` : six caractères tirés au hasard), rempli, synchronisé, puis **renommé** à la
//! place du fichier visé. Un renommage remplace un lien posé au nom visé, il ne le suit pas ;
//! un arrêt au milieu laisse l'ancien fichier entier, jamais un fichier à moitié écrit.
//!
//! Pourquoi : un nom prévisible (`.<nom>.<pid>.partiel`, ouvert en création-troncature) dans
//! un dossier partagé (`--sortie /tmp/…`) laisse un autre compte y poser un lien vers un
//! fichier de l'utilisateur, que `vigie` écraserait (ici `~/these.txt`, remplacé par le CSV).
//!
//! Le journal (`--journal`), lui, s'ouvre en ajout sans suivre de lien (`O_NOFOLLOW`, voir
//! `suivi/journal.rs`) ; la base SQLite se crée exclusivement (`plan/mod.rs`).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Qui peut lire le fichier écrit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Droits {
    /// Son propriétaire seul : 0600 sous Unix (le jeton, le cache, ce qui touche au compte) ;
    /// sous Windows, les droits hérités du dossier (le profil de l'utilisateur).
    Prives,
    /// Les droits ordinaires d'un fichier neuf (0666 moins le masque `umask` sous Unix) : des
    /// résultats à lire, à partager.
    Ordinaires,
}

/// Un fichier en cours d'écriture, à côté de celui qu'il remplacera (voir l'en-tête du
/// module). Abandonné (lâché sans [`Provisoire::remplacer`]), il est effacé.
#[derive(Debug)]
pub(crate) struct Provisoire {
    fichier: tempfile::NamedTempFile,
    cible: PathBuf,
}

impl Provisoire {
    /// Crée le fichier provisoire dans le dossier de `cible` (qui doit exister), sous un nom
    /// imprévisible, caché (`.<nom>.XXXXXX.partiel`).
    pub(crate) fn a_cote_de(cible: &Path, droits: Droits) -> io::Result<Provisoire> {
        let dossier = match cible.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let nom = cible
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefixe = format!(".{nom}.");
        let mut constructeur = tempfile::Builder::new();
        constructeur
            .prefix(&prefixe)
            .suffix(".partiel")
            .rand_bytes(6);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            constructeur.permissions(std::fs::Permissions::from_mode(match droits {
                Droits::Prives => 0o600,
                Droits::Ordinaires => 0o666,
            }));
        }
        #[cfg(not(unix))]
        let _ = droits;
        Ok(Provisoire {
            fichier: constructeur.tempfile_in(dossier)?,
            cible: cible.to_owned(),
        })
    }

    /// Le fichier ouvert, à remplir (`Write` et `Seek` s'appliquent à `&File`).
    pub(crate) fn fichier(&self) -> &File {
        self.fichier.as_file()
    }

    /// Synchronise le fichier, puis le renomme à la place de la cible (un fichier, ou un lien,
    /// de ce nom est remplacé). En cas d'échec, le provisoire est effacé.
    pub(crate) fn remplacer(self) -> io::Result<()> {
        self.fichier.as_file().sync_all()?;
        self.fichier
            .persist(&self.cible)
            .map(drop)
            .map_err(|e| e.error)
    }
}

/// Écrit `contenu` dans `cible`, entier ou pas du tout, sans suivre de lien (voir l'en-tête du
/// module). Le dossier de `cible` doit exister.
pub(crate) fn ecrire_entier(cible: &Path, droits: Droits, contenu: &[u8]) -> io::Result<()> {
    let provisoire = Provisoire::a_cote_de(cible, droits)?;
    io::Write::write_all(&mut provisoire.fichier(), contenu)?;
    provisoire.remplacer()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Un lien posé au nom visé est remplacé, jamais suivi : sa cible reste intacte ; rien de
    /// provisoire ne reste ; un fichier privé l'est (0600), quel que soit le masque.
    #[cfg(unix)]
    #[test]
    fn un_lien_au_nom_vise_est_remplace_jamais_suivi() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let these = d.path().join("these.txt");
        std::fs::write(&these, b"ma these").unwrap();
        let cible = d.path().join("jeton");
        std::os::unix::fs::symlink(&these, &cible).unwrap();
        ecrire_entier(&cible, Droits::Prives, b"secret").unwrap();
        assert_eq!(std::fs::read(&these).unwrap(), b"ma these");
        let meta = std::fs::symlink_metadata(&cible).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read(&cible).unwrap(), b"secret");
        let noms: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(noms.len(), 2, "{noms:?}");
    }

    /// Abandonné, le provisoire disparaît et la cible n'est pas touchée.
    #[test]
    fn un_provisoire_abandonne_ne_laisse_rien() {
        let d = tempfile::tempdir().unwrap();
        let cible = d.path().join("resultats.csv");
        std::fs::write(&cible, b"ancien").unwrap();
        let p = Provisoire::a_cote_de(&cible, Droits::Ordinaires).unwrap();
        io::Write::write_all(&mut p.fichier(), b"nouveau, a moitie").unwrap();
        let nom = p.fichier.path().file_name().unwrap().to_owned();
        assert!(nom.to_string_lossy().starts_with(".resultats.csv."));
        drop(p);
        assert_eq!(std::fs::read(&cible).unwrap(), b"ancien");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
