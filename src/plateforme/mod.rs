//! Ce qui dépend du système, en un seul endroit : Linux, macOS (Unix) et Windows.
//!
//! Le reste de `vigie` n'écrit jamais `std::os::unix` ni `std::os::windows` : il appelle ce
//! module, qui dit pour chaque système ce qui y est juste.
//! - Fichiers privés (base, jeton, journal, verrous) : 0600 et dossiers 0700 sous Unix ; sous
//!   Windows, ils vivent dans le profil de l'utilisateur, dont les droits par défaut (ACL
//!   héritées) n'ouvrent pas aux autres comptes : rien à resserrer fichier par fichier.
//! - Lire un fichier de la nuit sans suivre de lien, et le reconnaître à son identité ; écrire
//!   un fichier entier ou rien, sans suivre de lien (`ecriture`).
//! - La date de modification, par `Metadata::modified()` (portable), à la nanoseconde.
//! - Les emplacements par défaut (`emplacements`), les signaux d'arrêt (`signaux`), les chemins
//!   relatifs de la nuit (`chemins`), les processus enfants (`processus`), la place libre et
//!   la lecture seule d'un disque (`disque`), un lancement depuis l'explorateur de Windows
//!   (`explorateur`), le provisoire d'une séquence caché sous Windows aussi (`provisoire`).
//!
//! Pourquoi ici, pour les fichiers de la nuit : entre la planification et l'envoi (des heures,
//! parfois), un fichier peut être remplacé (`mv -T`) par un lien vers un fichier secret de même
//! taille et de même date, ou par un autre fichier. Suivre le lien enverrait le secret sous le
//! nom de la séquence. On ouvre donc sans suivre (`O_NOFOLLOW`), et le plan garde l'identité du
//! fichier planifié : comparée par le chemin avant et après chaque envoi, et surtout sur le
//! fichier ouvert à chaque lecture (`FichierAttendu::ouvrir`), car un chemin peut changer de
//! cible entre une vérification et l'ouverture, puis revenir avant la vérification suivante.

pub mod chemins;
pub mod conseil;
pub(crate) mod disque;
pub(crate) mod echo;
pub(crate) mod ecriture;
pub(crate) mod emplacements;
pub mod explorateur;
pub mod ligne;
pub(crate) mod mots;
// Le processus enfant de `vigie demo`, qui n'existe qu'avec le bac à sable.
#[cfg(feature = "bac-a-sable")]
pub(crate) mod processus;
pub(crate) mod provisoire;
pub mod signaux;

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// `chemin` tel que l'attendent les fonctions « W » de Windows : UTF-16, terminé par un zéro.
#[cfg(windows)]
fn chaine_large(chemin: &Path) -> Vec<u16> {
    use std::os::windows::ffi::OsStrExt;
    chemin
        .as_os_str()
        .encode_wide()
        .chain(std::iter::once(0))
        .collect()
}

/// Un système, pour ce qui se dit autrement selon lui : les règles du shell (`conseil`), les
/// mots de l'aide et du manuel (`mots`). [`Systeme::ICI`] : celui de cette compilation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Systeme {
    /// Linux, macOS : le shell POSIX.
    Unix,
    /// Windows : cmd et PowerShell.
    Windows,
}

impl Systeme {
    /// Le système de cette compilation.
    pub const ICI: Systeme = if cfg!(windows) {
        Systeme::Windows
    } else {
        Systeme::Unix
    };
}

/// Un constructeur de dossier privé : 0700 sous Unix ; sous Windows, les droits hérités du
/// profil de l'utilisateur. À compléter (`recursive`) puis `create`.
pub(crate) fn dossier_prive() -> DirBuilder {
    #[allow(unused_mut)]
    let mut d = DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        d.mode(0o700);
    }
    d
}

/// Des options d'ouverture qui créent le fichier privé : 0600 sous Unix (à la création
/// seulement : voir [`resserrer`]) ; sous Windows, les droits hérités de son dossier.
pub(crate) fn fichier_prive() -> OpenOptions {
    #[allow(unused_mut)]
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

/// Ramène un fichier existant à « lisible du seul propriétaire » (0600 sous Unix), s'il avait
/// été créé plus ouvert. Sous Windows, rien : ses droits sont ceux hérités de son dossier.
pub(crate) fn resserrer(fichier: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fichier.set_permissions(std::fs::Permissions::from_mode(0o600))
    }
    #[cfg(not(unix))]
    {
        let _ = fichier;
        Ok(())
    }
}

/// Ajoute aux options « ne pas suivre un lien symbolique » : sous Unix `O_NOFOLLOW` (un lien
/// fait échouer l'ouverture, ELOOP) ; sous Windows `FILE_FLAG_OPEN_REPARSE_POINT` (le lien
/// lui-même est ouvert, pas sa cible : l'appelant vérifie alors que c'est un fichier ordinaire).
pub(crate) fn sans_suivre_les_liens(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        options.custom_flags(0x0020_0000);
    }
    options
}

/// Un dossier dont l'inventaire examine les fichiers par leur seul nom : se lisent-ils, et
/// quelle est leur identité. Sous Unix, par `faccessat` sur le dossier ouvert, sans
/// reparcourir tout le chemin ni ouvrir le fichier (l'inventaire d'une saison en examine
/// 100 000 à chaque relance) ; sous Windows, qui ne donne l'identité que par une poignée, en
/// l'ouvrant ; si le dossier ne s'ouvre pas ainsi, par le chemin.
pub(crate) struct DossierOuvert {
    chemin: std::path::PathBuf,
    #[cfg(unix)]
    dossier: Option<File>,
}

impl DossierOuvert {
    pub(crate) fn nouveau(chemin: &Path) -> DossierOuvert {
        DossierOuvert {
            chemin: chemin.to_owned(),
            #[cfg(unix)]
            dossier: {
                use std::os::unix::fs::OpenOptionsExt;
                OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_DIRECTORY)
                    .open(chemin)
                    .ok()
            },
        }
    }

    /// Le fichier `nom` du dossier, que l'inventaire vient de décrire (`meta`, lu sans suivre
    /// de lien) : se lit-il (l'erreur du système sinon), et son identité, sous la même forme
    /// que [`identite_du_chemin`] (la planification la reprend au lieu de relire le fichier).
    ///
    /// Sous Unix, « se lit-il » est demandé au système sans ouvrir le fichier (`faccessat`,
    /// `R_OK`) : les droits, groupes et ACL qu'une ouverture vérifierait, pour un appel au lieu
    /// de deux (ouverture et fermeture de chaque fichier faisaient le quart du coût d'une
    /// reprise de saison). Un refus est confirmé par une vraie ouverture, qui a le dernier
    /// mot : `faccessat` juge pour l'utilisateur réel, sans les privilèges qu'une ouverture
    /// aurait (un `vigie` doté de `CAP_DAC_READ_SEARCH`). Ce que seule l'ouverture refuserait
    /// (un module de sécurité, un partage réseau qui ne dit ses droits qu'à l'ouverture) est
    /// dit par l'envoi, comme une lecture qui échoue en cours de route : un échec de ce
    /// fichier, qui ne part pas.
    pub(crate) fn examiner(
        &self,
        nom: &std::ffi::OsStr,
        meta: &Metadata,
    ) -> io::Result<Option<IdentiteFichier>> {
        #[cfg(unix)]
        {
            let lisible = self
                .dossier
                .as_ref()
                .is_some_and(|dossier| lisible_dans(dossier, nom).is_ok());
            if !lisible {
                drop(File::open(self.chemin.join(nom))?);
            }
            Ok(Some(identite_de_meta(meta)))
        }
        #[cfg(not(unix))]
        {
            // Windows ne donne l'index que par une poignée ouverte.
            let _ = meta;
            let chemin = self.chemin.join(nom);
            match File::open(&chemin) {
                Ok(fichier) => Ok(identite_de_poignee(&fichier)),
                // Tenu par un autre programme (un lecteur audio, l'aperçu de l'explorateur, un
                // antivirus) : il se lira quand il sera rendu, c'est l'envoi qui l'attend
                // ([`tenu_par_un_autre_programme`]). Son identité se lit sans droit de lecture.
                Err(e) if est_tenu_par_un_autre_programme(&e) => Ok(identite_sans_lire(&chemin)),
                Err(e) => Err(e),
            }
        }
    }
}

/// `faccessat(dossier, nom, R_OK, 0)` : le fichier se lit-il, pour l'utilisateur réel du
/// processus (celui d'un `vigie` lancé normalement) ; repris s'il est interrompu.
#[cfg(unix)]
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : `faccessat`, que std ne donne pas.
#[allow(unsafe_code)]
fn lisible_dans(dossier: &File, nom: &std::ffi::OsStr) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let nom = std::ffi::CString::new(nom.as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    loop {
        // SAFETY : `dossier` est ouvert et emprunté pendant l'appel ; `nom` est une chaîne C
        // terminée par un zéro, vivante pendant l'appel. Rien n'est ouvert ni rendu.
        let r = unsafe { libc::faccessat(dossier.as_raw_fd(), nom.as_ptr(), libc::R_OK, 0) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Les codes de Windows d'un fichier qu'un autre programme tient sans en partager l'accès :
/// `ERROR_SHARING_VIOLATION` (32 : ouvert sans partage, par un lecteur audio, l'aperçu de
/// l'explorateur, un antivirus qui l'examine) et `ERROR_LOCK_VIOLATION` (33 : une partie
/// verrouillée). Sous Unix, 32 et 33 sont d'autres erreurs (EPIPE, EDOM) : seul Windows les lit
/// ainsi.
fn code_d_un_fichier_tenu(code: i32) -> bool {
    matches!(code, 32 | 33)
}

/// Le geste qui rend lisible un fichier que le système refuse de lire : ses droits, par
/// `chmod` sous Unix, par l'onglet Sécurité de ses propriétés sous Windows (où `chmod`
/// n'existe pas).
pub(crate) const GESTE_DROITS_DE_LECTURE: &str = if cfg!(windows) {
    "vérifiez ses droits (clic droit, Propriétés, onglet Sécurité)"
} else {
    "vérifiez ses droits (chmod u+r)"
};

/// Le fichier est-il momentanément tenu par un autre programme (Windows) ? C'est un échec
/// passager, pas une faute de la bénévole : l'envoi l'attend (voir
/// [`tenu_par_un_autre_programme`]), le reste de la nuit part sans lui.
pub(crate) fn est_tenu_par_un_autre_programme(e: &io::Error) -> bool {
    cfg!(windows) && e.raw_os_error().is_some_and(code_d_un_fichier_tenu)
}

/// Si le fichier de la nuit à `chemin` est en ce moment tenu par un autre programme qui en
/// refuse le partage, l'erreur qui le dit ; `None` sinon (et toujours hors de Windows, sans
/// rien ouvrir : ni Linux ni macOS ne refusent une lecture pour cela).
pub(crate) fn tenu_par_un_autre_programme(chemin: &Path) -> Option<io::Error> {
    if !cfg!(windows) {
        return None;
    }
    match sans_suivre_les_liens(OpenOptions::new().read(true)).open(chemin) {
        Err(e) if est_tenu_par_un_autre_programme(&e) => Some(e),
        _ => None,
    }
}

/// L'erreur d'ouverture d'un lien refusé par [`sans_suivre_les_liens`] (ELOOP sous Unix).
pub(crate) fn est_un_lien_refuse(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// La date de modification, en nanosecondes depuis l'époque Unix (négative avant 1970), par
/// `Metadata::modified()`. Sous Unix, c'est exactement `mtime × 10⁹ + mtime_nsec`, la valeur
/// que les plans existants ont enregistrée (`depot_unite.modifie_ns`) : une mise à jour de
/// `vigie` ne fait pas passer leurs fichiers pour modifiés. Sous Windows, la date NTFS (pas de
/// 100 ns) convertie de même. 0 si le système n'en donne pas (le plan se fie alors à la
/// taille et à l'identité) ; bornée à ce que tient un `i64` (années 1678 à 2262).
pub(crate) fn modifie_ns(meta: &Metadata) -> i64 {
    meta.modified().map(ns_depuis_epoque).unwrap_or(0)
}

fn ns_depuis_epoque(t: SystemTime) -> i64 {
    let ns = match t.duration_since(UNIX_EPOCH) {
        Ok(apres) => i128::try_from(apres.as_nanos()).unwrap_or(i128::MAX),
        Err(avant) => -i128::try_from(avant.duration().as_nanos()).unwrap_or(i128::MAX),
    };
    i64::try_from(ns).unwrap_or(if ns < 0 { i64::MIN } else { i64::MAX })
}

/// Ouvre un fichier en lecture sans suivre de lien symbolique (sous Unix, `O_NOFOLLOW` : un
/// lien fait échouer l'ouverture, ELOOP), et vérifie que c'est un fichier ordinaire.
pub(crate) fn ouvrir_sans_suivre(chemin: &Path) -> io::Result<File> {
    let fichier = sans_suivre_les_liens(OpenOptions::new().read(true)).open(chemin)?;
    if !fichier.metadata()?.file_type().is_file() {
        return Err(io::Error::other(
            "ce n'est pas un fichier ordinaire (lien ou fichier spécial), il n'est pas lu",
        ));
    }
    Ok(fichier)
}

/// La sortie d'erreur, si c'est une console, sait-elle interpréter les séquences de contrôle
/// (déplacer le curseur, effacer une ligne, couleurs) que dessinent les barres ? Sous Unix,
/// oui. Sous Windows, la console ne les interprète qu'une fois le mode « VT »
/// (`ENABLE_VIRTUAL_TERMINAL_PROCESSING`) activé, ce que fait cet appel ; une console qui le
/// refuse (Windows antérieur à 10) rend faux, et l'on s'en tient aux lignes simples. Une
/// sortie qui n'est pas une console (fichier, tube, terminal mintty) est laissée telle quelle.
// `unsafe` permis ici seul (`[lints]` de Cargo.toml) : le mode de la console Windows,
// que std ne règle pas.
#[allow(unsafe_code)]
pub(crate) fn console_pilotable() -> bool {
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Console::{
            ENABLE_VIRTUAL_TERMINAL_PROCESSING, GetConsoleMode, GetStdHandle, STD_ERROR_HANDLE,
            SetConsoleMode,
        };
        // SAFETY : appels sur la poignée de la sortie d'erreur du processus, que l'on ne ferme
        // pas ; `mode` est un entier local valide pendant l'appel.
        unsafe {
            let poignee = GetStdHandle(STD_ERROR_HANDLE);
            let mut mode = 0;
            if GetConsoleMode(poignee, &mut mode) == 0 {
                return true;
            }
            mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0
                || SetConsoleMode(poignee, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0
        }
    }
    #[cfg(not(windows))]
    {
        true
    }
}

/// Les marques d'un fichier déposé et d'un fichier en échec, dans les lignes de suivi et
/// au-dessus des barres.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Marques {
    pub(crate) deposee: &'static str,
    pub(crate) echec: &'static str,
}

impl Marques {
    /// ✓ et ✗ : ce que dessinent les terminaux de Linux et de macOS, Windows Terminal, et tout
    /// éditeur qui lit un journal en UTF-8.
    pub(crate) const UNICODE: Marques = Marques {
        deposee: "✓",
        echec: "✗",
    };
    /// √ et × : l'ancienne console de Windows (conhost, celle de PowerShell et de cmd sous
    /// Windows 10) dessine avec Consolas ou Lucida Console, qui n'ont ni ✓ ni ✗ (un carré vide à
    /// leur place, le même pour les deux) ; elles ont √ et ×.
    #[cfg(any(windows, test))]
    pub(crate) const CONSOLE_WINDOWS: Marques = Marques {
        deposee: "√",
        echec: "×",
    };

    /// Les marques pour la sortie d'erreur de ce processus.
    // `unsafe` permis ici seul (`[lints]` de Cargo.toml) : le mode de la console Windows,
    // que std ne règle pas.
    #[allow(unsafe_code)]
    pub(crate) fn pour_la_sortie_d_erreur() -> Marques {
        #[cfg(windows)]
        {
            use windows_sys::Win32::System::Console::{
                GetConsoleMode, GetStdHandle, STD_ERROR_HANDLE,
            };
            let mut mode = 0;
            // SAFETY : lecture du mode de la poignée de la sortie d'erreur, que l'on ne ferme
            // pas ; `mode` est un entier local valide pendant l'appel.
            let console = unsafe { GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mut mode) } != 0;
            Marques::choisir(console, std::env::var_os("WT_SESSION").is_some())
        }
        #[cfg(not(windows))]
        {
            Marques::UNICODE
        }
    }

    /// Sous Windows : `console` (la sortie d'erreur est une console), `windows_terminal` (elle
    /// est dessinée par Windows Terminal, qui pose `WT_SESSION`). Une sortie redirigée (fichier,
    /// tube) sera lue par un éditeur : ✓ et ✗. Hors de Windows, seuls les essais s'en servent.
    #[cfg(any(windows, test))]
    pub(crate) fn choisir(console: bool, windows_terminal: bool) -> Marques {
        if console && !windows_terminal {
            Marques::CONSOLE_WINDOWS
        } else {
            Marques::UNICODE
        }
    }
}

/// Un fichier de la nuit tel que le plan l'attend : son chemin, et l'identité relevée à la
/// planification (voir [`identite_du_chemin`]), si le système en donne une.
///
/// Ce qui part peut aussi être une **séquence préparée au fil de l'envoi** (une carte brute
/// déposée sans copie préparée : `vigie depot CARTE`) : un en-tête tenu en mémoire suivi
/// d'une plage de l'original ([`FichierAttendu::avec_entete`]). Le fichier ouvert, vérifié par
/// son identité, est alors l'original ; chaque lecture d'une plage de ce qui part passe par
/// [`FichierAttendu::plage`], seul endroit qui sait où sont ses octets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FichierAttendu<'a> {
    pub(crate) chemin: &'a Path,
    pub(crate) identite: Option<&'a str>,
    /// L'en-tête de la séquence et la position, dans l'original, de son premier octet PCM.
    entete: Option<(&'a [u8], u64)>,
}

/// Où lire une plage de ce qui part : d'abord ces octets de l'en-tête (souvent aucun), puis
/// `longueur` octets du fichier ouvert à partir de `debut`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plage<'a> {
    pub(crate) entete: &'a [u8],
    pub(crate) debut: u64,
    pub(crate) longueur: u64,
}

impl<'a> FichierAttendu<'a> {
    pub(crate) fn nouveau(chemin: &'a Path, identite: Option<&'a str>) -> Self {
        FichierAttendu {
            chemin,
            identite,
            entete: None,
        }
    }

    /// Ce qui part est `entete` suivi des octets de l'original à partir de `debut_source`.
    pub(crate) fn avec_entete(mut self, entete: &'a [u8], debut_source: u64) -> Self {
        self.entete = Some((entete, debut_source));
        self
    }

    /// L'en-tête tenu en mémoire et la position de la suite dans l'original, s'il y en a un.
    pub(crate) fn entete(&self) -> Option<(&'a [u8], u64)> {
        self.entete
    }

    /// Où lire les octets `[debut, debut + longueur)` de ce qui part.
    pub(crate) fn plage(&self, debut: u64, longueur: u64) -> Plage<'a> {
        let Some((entete, debut_source)) = self.entete else {
            return Plage {
                entete: &[],
                debut,
                longueur,
            };
        };
        let taille = entete.len() as u64;
        let (de, a) = (
            debut.min(taille),
            debut.saturating_add(longueur).min(taille),
        );
        Plage {
            entete: &entete[de as usize..a as usize],
            debut: debut_source + debut.saturating_sub(taille),
            longueur: longueur - (a - de),
        }
    }

    /// Ouvre le fichier en lecture sans suivre de lien ([`ouvrir_sans_suivre`]), et vérifie
    /// sur le fichier **ouvert** (pas sur le chemin, qui peut changer de cible entre une
    /// vérification et l'ouverture) que c'est bien celui de la planification : un autre fichier
    /// glissé à sa place (`mv -T`), même de même taille et de même date, est refusé
    /// ([`est_un_remplacement`]). Sans identité attendue, seule la forme est vérifiée.
    pub(crate) fn ouvrir(&self) -> io::Result<File> {
        let fichier = ouvrir_sans_suivre(self.chemin)?;
        if let Some(attendue) = self.identite
            && identite_ouverte(&fichier).as_deref() != Some(attendue)
        {
            return Err(io::Error::other(FichierRemplace));
        }
        Ok(fichier)
    }
}

/// L'erreur d'ouverture d'un fichier qui n'est plus celui de la planification.
#[derive(Debug)]
struct FichierRemplace;

impl std::fmt::Display for FichierRemplace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("le fichier a été remplacé par un autre (même nom, autre fichier)")
    }
}

impl std::error::Error for FichierRemplace {}

/// L'ouverture a-t-elle trouvé un autre fichier que celui de la planification ?
pub(crate) fn est_un_remplacement(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<FichierRemplace>())
}

/// Ce que dit une lecture d'un fichier de la nuit qui a échoué à l'ouverture : « fichier local
/// illisible : permission refusée… », ou qu'un autre fichier a pris sa place.
pub(crate) fn lecture_impossible(e: &io::Error) -> String {
    if est_un_remplacement(e) {
        format!("{e} depuis sa planification : non déposé")
    } else {
        format!("fichier local illisible : {}", erreur_systeme(e))
    }
}

/// L'identité du fichier (ou du lien, qui n'est pas suivi) à ce chemin : « périphérique:inode »
/// sous Unix, « volume:index » sous Windows ; `None` si le chemin est illisible ou si le
/// système n'en donne pas (le plan se contente alors de la taille et de la date).
pub(crate) fn identite_du_chemin(chemin: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        std::fs::symlink_metadata(chemin)
            .ok()
            .map(|meta| identite_unix(&meta))
    }
    #[cfg(not(unix))]
    {
        identite_sans_lire(chemin).map(|i| i.to_string())
    }
}

/// L'identité d'un fichier sous Windows, par une poignée ouverte sans droit de lecture (comme
/// `fs::metadata`) : Windows ne donne l'index d'un fichier que par une poignée (le `Metadata`
/// de std ne le porte pas en version stable), et un fichier qu'un autre programme tient sans
/// partage se décrit quand même. `None` ailleurs.
#[cfg(not(unix))]
fn identite_sans_lire(chemin: &Path) -> Option<IdentiteFichier> {
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        let fichier = sans_suivre_les_liens(OpenOptions::new().access_mode(0))
            .open(chemin)
            .ok()?;
        identite_de_poignee(&fichier)
    }
    #[cfg(not(windows))]
    {
        let _ = chemin;
        None
    }
}

/// L'identité d'un fichier en deux nombres (« périphérique:inode » sous Unix,
/// « volume:index » sous Windows), écrite comme [`identite_du_chemin`] l'écrit : l'inventaire
/// la garde ainsi pour chaque fichier (16 octets, sans allocation), la planification l'écrit
/// au moment de planifier la nuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdentiteFichier {
    volume: u64,
    index: u64,
}

impl std::fmt::Display for IdentiteFichier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.volume, self.index)
    }
}

/// « périphérique:inode ».
#[cfg(unix)]
fn identite_unix(meta: &Metadata) -> String {
    identite_de_meta(meta).to_string()
}

#[cfg(unix)]
fn identite_de_meta(meta: &Metadata) -> IdentiteFichier {
    use std::os::unix::fs::MetadataExt;
    IdentiteFichier {
        volume: meta.dev(),
        index: meta.ino(),
    }
}

/// L'identité d'un fichier ouvert, sous la même forme que [`identite_du_chemin`].
pub(crate) fn identite_ouverte(fichier: &File) -> Option<String> {
    #[cfg(unix)]
    {
        fichier.metadata().ok().map(|meta| identite_unix(&meta))
    }
    #[cfg(not(unix))]
    {
        identite_de_poignee(fichier).map(|i| i.to_string())
    }
}

/// L'identité (volume, index) d'un fichier ouvert sous Windows ; `None` ailleurs. Par
/// `winapi-util` (`GetFileInformationByHandle` sans `unsafe` ici) : le crate sur lequel
/// `same-file` compare deux fichiers sous Windows.
#[cfg(not(unix))]
fn identite_de_poignee(fichier: &File) -> Option<IdentiteFichier> {
    #[cfg(windows)]
    {
        let info = winapi_util::file::information(fichier).ok()?;
        Some(IdentiteFichier {
            volume: info.volume_serial_number(),
            index: info.file_index(),
        })
    }
    #[cfg(not(windows))]
    {
        let _ = fichier;
        None
    }
}

/// Une erreur du système dite en français, et une seule fois : « permission refusée », « disque
/// plein »… au lieu de « Permission denied (os error 13) » (que `{e:#}` répétait quand l'erreur
/// était aussi la source de la nôtre). Un message écrit par `vigie` lui-même (erreur sans code
/// du système) est rendu tel quel.
pub(crate) fn erreur_systeme(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let Some(code) = e.raw_os_error() else {
        return e.to_string();
    };
    let texte = match e.kind() {
        _ if est_tenu_par_un_autre_programme(e) => {
            "ouvert par un autre programme (lecteur audio, aperçu de l'explorateur, antivirus) : \
             fermez-le"
        }
        K::NotFound => "introuvable",
        K::PermissionDenied => "permission refusée (vérifiez les droits)",
        K::AlreadyExists => "existe déjà",
        K::StorageFull => "disque plein",
        K::QuotaExceeded => "quota du disque dépassé",
        K::ReadOnlyFilesystem => "système de fichiers en lecture seule",
        K::IsADirectory => "c'est un dossier",
        K::NotADirectory => "un élément du chemin n'est pas un dossier",
        K::DirectoryNotEmpty => "le dossier n'est pas vide",
        // O_NOFOLLOW sur un lien symbolique : ELOOP, que std ne nomme pas encore.
        _ if est_un_lien_refuse(e) => {
            "c'est un lien symbolique, qui n'est pas suivi : donnez le chemin du fichier lui-même"
        }
        K::InvalidFilename => "nom de fichier invalide",
        K::FileTooLarge => "fichier trop gros",
        K::ResourceBusy => "ressource occupée",
        K::CrossesDevices => "déplacement entre deux disques impossible",
        K::TimedOut => "délai dépassé",
        K::Interrupted => "interrompu",
        K::OutOfMemory => "mémoire insuffisante",
        K::ConnectionRefused => "connexion refusée",
        K::ConnectionReset => "connexion coupée",
        K::BrokenPipe => "tube fermé",
        _ => "erreur du système",
    };
    format!("{texte} (code {code})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[cfg(unix)]
    #[test]
    fn un_lien_n_est_pas_suivi() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, b"secret").unwrap();
        let lien = dir.path().join("a.wav");
        std::os::unix::fs::symlink(&secret, &lien).unwrap();
        let e = ouvrir_sans_suivre(&lien).unwrap_err();
        assert!(est_un_lien_refuse(&e), "{e}");
        assert!(ouvrir_sans_suivre(&secret).is_ok());
        assert!(
            ouvrir_sans_suivre(dir.path()).is_err(),
            "un dossier n'est pas lu"
        );
        let a = identite_du_chemin(&secret);
        let b = identite_du_chemin(&lien);
        assert!(a.is_some() && a != b);
        assert_eq!(identite_ouverte(&ouvrir_sans_suivre(&secret).unwrap()), a);
    }

    /// Un autre fichier ordinaire glissé à la place du fichier planifié (`mv -T`), puis remis
    /// en place : la lecture qui a lieu entre les deux le refuse, sur le fichier ouvert, quoi
    /// qu'en dise ensuite le chemin.
    #[test]
    fn un_fichier_glisse_a_la_place_du_fichier_planifie_est_refuse_a_l_ouverture() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("a.wav");
        std::fs::write(&chemin, b"nuit").unwrap();
        let identite = identite_du_chemin(&chemin);
        let attendu = FichierAttendu::nouveau(&chemin, identite.as_deref());
        assert!(attendu.ouvrir().is_ok());

        let secret = dir.path().join("secret");
        std::fs::write(&secret, b"SSSS").unwrap();
        let mis_de_cote = dir.path().join("mis-de-cote");
        std::fs::rename(&chemin, &mis_de_cote).unwrap();
        std::fs::rename(&secret, &chemin).unwrap();
        let e = attendu.ouvrir().unwrap_err();
        assert!(est_un_remplacement(&e), "{e}");
        assert!(e.to_string().contains("remplacé par un autre"), "{e}");

        std::fs::rename(&mis_de_cote, &chemin).unwrap();
        assert!(
            attendu.ouvrir().is_ok(),
            "le fichier planifié, remis en place"
        );
        assert!(
            FichierAttendu::nouveau(&chemin, None).ouvrir().is_ok(),
            "sans identité attendue, seule la forme compte"
        );
    }

    /// La valeur enregistrée par les plans existants (`mtime × 10⁹ + mtime_nsec`, avant ce
    /// module) est celle que rend `modifie_ns` : après 1970 comme avant, à la nanoseconde.
    #[cfg(unix)]
    #[test]
    fn la_date_de_modification_garde_la_valeur_des_plans_existants() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("a.wav");
        let f = File::create(&chemin).unwrap();
        for date in [
            UNIX_EPOCH + Duration::new(1_750_000_000, 123_456_789),
            UNIX_EPOCH - Duration::new(86_400, 250_000_000),
            UNIX_EPOCH,
        ] {
            f.set_modified(date).unwrap();
            let m = std::fs::metadata(&chemin).unwrap();
            assert_eq!(
                modifie_ns(&m),
                m.mtime() * 1_000_000_000 + m.mtime_nsec(),
                "{date:?}"
            );
        }
        assert_eq!(modifie_ns(&f.metadata().unwrap()), 0);
    }

    #[test]
    fn la_date_de_modification_suit_le_fichier() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("a.wav");
        let f = File::create(&chemin).unwrap();
        // Une date au pas de 100 ns : NTFS la garde telle quelle, comme ext4 ou APFS.
        f.set_modified(UNIX_EPOCH + Duration::new(1_750_000_000, 123_456_700))
            .unwrap();
        let m = std::fs::metadata(&chemin).unwrap();
        assert_eq!(modifie_ns(&m), 1_750_000_000_123_456_700);
        f.set_modified(UNIX_EPOCH + Duration::from_secs(1_750_000_001))
            .unwrap();
        assert_eq!(
            modifie_ns(&std::fs::metadata(&chemin).unwrap()),
            1_750_000_001_000_000_000
        );
    }

    /// Partage refusé (32) et verrou (33) : un fichier tenu par un autre programme, sous
    /// Windows seulement (sous Linux, 32 est EPIPE, 33 EDOM) ; un refus de droits (5) n'en est
    /// pas un.
    #[test]
    fn un_fichier_tenu_par_un_autre_programme_se_reconnait_a_son_code() {
        assert!(code_d_un_fichier_tenu(32));
        assert!(code_d_un_fichier_tenu(33));
        for autre in [2, 5, 13, 123] {
            assert!(!code_d_un_fichier_tenu(autre), "{autre}");
        }
        let partage_refuse = io::Error::from_raw_os_error(32);
        assert_eq!(
            est_tenu_par_un_autre_programme(&partage_refuse),
            cfg!(windows)
        );
        let dit = erreur_systeme(&partage_refuse);
        assert_eq!(
            dit.contains("ouvert par un autre programme"),
            cfg!(windows),
            "{dit}"
        );
        assert_eq!(dit.contains("fermez-le"), cfg!(windows), "{dit}");
        assert!(!GESTE_DROITS_DE_LECTURE.contains("chmod") || !cfg!(windows));
    }

    /// Sous Windows, un fichier ouvert sans partage par un autre (ici, une autre poignée du
    /// même processus : Windows juge le partage par poignée) : l'inventaire le garde, avec son
    /// identité, et l'envoi sait qu'il est tenu ; rendu, il ne l'est plus.
    #[cfg(windows)]
    #[test]
    fn un_fichier_ouvert_sans_partage_est_tenu_puis_rendu() {
        use std::os::windows::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("a.wav");
        std::fs::write(&chemin, b"nuit").unwrap();
        let tenu = OpenOptions::new()
            .read(true)
            .share_mode(0)
            .open(&chemin)
            .unwrap();
        let e = tenu_par_un_autre_programme(&chemin).expect("tenu");
        assert!(erreur_systeme(&e).contains("ouvert par un autre programme"));
        let meta = std::fs::symlink_metadata(&chemin).unwrap();
        let identite = DossierOuvert::nouveau(dir.path())
            .examiner(std::ffi::OsStr::new("a.wav"), &meta)
            .unwrap();
        assert!(
            identite.is_some(),
            "l'identité se lit sans droit de lecture"
        );
        drop(tenu);
        assert!(tenu_par_un_autre_programme(&chemin).is_none());
        assert_eq!(identite.map(|i| i.to_string()), identite_du_chemin(&chemin));
    }

    /// L'ancienne console de Windows a √ et × ; Windows Terminal et une sortie redirigée, ✓ et ✗.
    #[test]
    fn les_marques_suivent_la_console() {
        assert_eq!(Marques::choisir(true, false), Marques::CONSOLE_WINDOWS);
        assert_eq!(Marques::choisir(true, true), Marques::UNICODE);
        assert_eq!(Marques::choisir(false, false), Marques::UNICODE);
        assert_ne!(
            Marques::CONSOLE_WINDOWS.deposee,
            Marques::CONSOLE_WINDOWS.echec
        );
        #[cfg(not(windows))]
        assert_eq!(Marques::pour_la_sortie_d_erreur(), Marques::UNICODE);
    }

    #[test]
    fn les_bornes_d_un_i64_ne_debordent_pas() {
        assert_eq!(ns_depuis_epoque(UNIX_EPOCH), 0);
        // 100 ns : le pas des dates de Windows, que SystemTime y garde.
        assert_eq!(
            ns_depuis_epoque(UNIX_EPOCH - Duration::from_nanos(100)),
            -100,
            "avant 1970"
        );
        let loin = UNIX_EPOCH + Duration::from_secs(400 * 365 * 86_400);
        assert_eq!(ns_depuis_epoque(loin), i64::MAX);
    }

    #[cfg(unix)]
    #[test]
    fn fichiers_et_dossiers_prives_en_0600_et_0700() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dossier = dir.path().join("a/b");
        dossier_prive().recursive(true).create(&dossier).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dossier), 0o700);
        let chemin = dossier.join("f");
        let f = fichier_prive()
            .write(true)
            .create_new(true)
            .open(&chemin)
            .unwrap();
        assert_eq!(mode(&chemin), 0o600);
        f.set_permissions(std::fs::Permissions::from_mode(0o644))
            .unwrap();
        resserrer(&f).unwrap();
        assert_eq!(mode(&chemin), 0o600);
    }
}
