//! Les emplacements par défaut de la base des plans et du jeton, par la bibliothèque
//! `directories` (dirs-dev) plutôt qu'à la main :
//!
//! | système | base des plans (`vigie.sqlite`) | jeton et connexion |
//! |---|---|---|
//! | Linux | `$XDG_DATA_HOME/vigie` (`~/.local/share/vigie`) | `$XDG_CONFIG_HOME/vigie` (`~/.config/vigie`) |
//! | Windows | `%LOCALAPPDATA%\vigie` | `%APPDATA%\vigie` |
//! | macOS | `~/Library/Application Support/vigie` | `~/Library/Application Support/vigie` |
//!
//! Sous Windows, la base reste sur la machine (`Local`) : elle nomme des dossiers de ce disque-là,
//! et une base SQLite n'a rien à faire dans un profil itinérant ; le jeton suit l'utilisateur
//! (`Roaming`). Sous macOS, `Application Support` est l'emplacement que documente Apple pour
//! les données d'une application, celui que l'utilisateur retrouve dans le Finder (Aller >
//! Bibliothèque), et celui que prend `directories` ; `XDG_*` n'y est pas lu. Sous Linux, la
//! spécification XDG est suivie à la lettre : une valeur relative de `XDG_DATA_HOME` ou
//! `XDG_CONFIG_HOME` est ignorée. `--base`, `VIGIE_BASE` et `VIGIE_JETON` l'emportent partout.

use std::path::PathBuf;

use directories::BaseDirs;

/// Le nom du dossier de `vigie` dans chaque emplacement.
const DOSSIER: &str = "vigie";

/// Le dossier des données propres à cette machine (la base des plans) ; `None` sans dossier
/// personnel connu.
pub(crate) fn donnees() -> Option<PathBuf> {
    BaseDirs::new().map(|d| d.data_local_dir().join(DOSSIER))
}

/// Le dossier de la configuration de l'utilisateur (le jeton, l'adresse de l'API) ; `None`
/// sans dossier personnel connu.
pub(crate) fn configuration() -> Option<PathBuf> {
    BaseDirs::new().map(|d| d.config_dir().join(DOSSIER))
}
