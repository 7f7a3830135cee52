//! Écrire les séquences d'une nuit : chacune dans un fichier provisoire exclusif du dossier de
//! la nuit, puis renommée à son nom (sans jamais écraser), la place vérifiée avant le premier
//! octet.
//!
//! Pourquoi ainsi :
//! - **reprise sûre** : un arrêt (Ctrl-C, kill -9, coupure) ne laisse jamais une séquence à
//!   moitié écrite sous son nom : le nom n'apparaît qu'une fois le fichier complet (le renommage
//!   est atomique dans un même dossier). Les provisoires d'un arrêt (`.vigie-sequence-*`,
//!   cachés, par le point sous Unix, par l'attribut sous Windows, `plateforme::provisoire` ;
//!   `vigie depot` les ignore) sont effacés à la reprise ;
//! - **refaire ne change aucun octet** : une séquence déjà là, de la taille attendue et à
//!   l'en-tête attendu, est gardée telle quelle ; un fichier différent sous ce nom n'est jamais
//!   écrasé (ce n'est pas cette carte qui l'a écrit) : la commande le dit ;
//! - **une coupure de courant n'arrête pas la reprise** : le renommage est écrit au journal du
//!   système de fichiers avant les octets (ext4 en `data=ordered` avec allocation différée
//!   agrandit le fichier à mesure que ses blocs atteignent le disque), si bien qu'après une
//!   batterie vide une séquence peut se trouver sous son nom mais **plus courte** (vide, le
//!   plus souvent). Un fichier plus court dont chaque octet est le début de la séquence que
//!   cette carte donne est ce reste-là : il est réécrit (le fichier relu ne dépasse pas une
//!   séquence, et cela n'arrive qu'après une coupure). Tout autre fichier reste un autre
//!   fichier. Écrire chaque séquence jusqu'au disque (`fsync`) avant son renommage éviterait
//!   ce reste, au prix d'une attente du disque par séquence : non ;
//! - **flux borné** : les octets passent de l'original à la séquence par `io::copy` (un tampon
//!   de quelques Kio, ou une copie faite par le noyau) ; la mémoire ne grossit pas avec la
//!   taille d'un fichier (`TransformationAudio.java` du compagnon chargeait l'original entier) ;
//! - la place libre est vérifiée nuit par nuit (`plateforme::disque`) : une nuit qui ne
//!   tiendrait pas n'est pas commencée.
//!
//! Le fichier provisoire exclusif puis `persist` : la manière de `tempfile` (`O_EXCL`, nom
//! aléatoire), celle de toute écriture de fichier de `vigie`.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::carte::{NuitAPreparer, Original};
use super::transformation::Tranche;

/// Le début du nom des fichiers provisoires (cachés : l'inventaire les ignore).
const PREFIXE_PROVISOIRE: &str = ".vigie-sequence-";
/// Ce que l'on garde libre sur le disque en plus des séquences (le système, les métadonnées).
const MARGE_OCTETS: u64 = 64 * 1024 * 1024;

/// Ce qu'a fait l'écriture d'une nuit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BilanNuit {
    pub(crate) ecrites: usize,
    pub(crate) deja_la: usize,
    pub(crate) octets_ecrits: u64,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ErreurEcriture {
    #[error(
        "pas assez de place pour {dossier} : {besoin} octets à écrire, {libre} libres \
         (dont {MARGE_OCTETS} gardés pour le système) ; libérez de la place ou choisissez un \
         autre --vers"
    )]
    PlaceInsuffisante {
        dossier: PathBuf,
        besoin: u64,
        libre: u64,
    },
    #[error(
        "{0} existe déjà et n'est pas la séquence que cette carte donne : il n'est pas écrasé ; \
         déplacez-le, ou préparez vers un autre dossier"
    )]
    AutreFichier(PathBuf),
    #[error("{chemin} : {}", crate::plateforme::erreur_systeme(.cause))]
    Systeme { chemin: PathBuf, cause: io::Error },
    #[error("{0} a raccourci pendant la lecture : la carte a-t-elle été retirée ?")]
    OriginalRaccourci(PathBuf),
}

fn systeme(chemin: &Path) -> impl FnOnce(io::Error) -> ErreurEcriture + '_ {
    move |cause| ErreurEcriture::Systeme {
        chemin: chemin.to_owned(),
        cause,
    }
}

/// Ce qu'on trouve sous le nom d'une séquence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    Absente,
    /// Complète : de la taille attendue, à l'en-tête attendu.
    Complete,
    /// Plus courte qu'attendu : le reste d'une coupure de courant, si ses octets sont le début
    /// de la séquence (vérifié avec l'original, par [`debut_de_la_sequence`]).
    PlusCourte(u64),
}

/// Ce qu'il y a sous le nom `chemin` d'une séquence de `taille` octets et de cet `entete`.
/// `Err` si un autre fichier y est (plus long, ou d'un autre en-tête).
fn presence(chemin: &Path, taille: u64, entete: &[u8]) -> Result<Presence, ErreurEcriture> {
    let mut f = match File::open(chemin) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Presence::Absente),
        Err(e) => return Err(systeme(chemin)(e)),
    };
    let meta = f.metadata().map_err(systeme(chemin))?;
    if !meta.is_file() {
        return Err(ErreurEcriture::AutreFichier(chemin.to_owned()));
    }
    let longueur = meta.len();
    if longueur < taille {
        return Ok(Presence::PlusCourte(longueur));
    }
    let mut lu = vec![0u8; entete.len()];
    if longueur == taille && f.read_exact(&mut lu).is_ok() && lu == entete {
        Ok(Presence::Complete)
    } else {
        Err(ErreurEcriture::AutreFichier(chemin.to_owned()))
    }
}

/// Les `longueur` octets du fichier `chemin` sont-ils le début de la séquence faite de
/// `entete` puis de `tranche`, lue dans `source` ? Lu par morceaux : la mémoire ne dépend pas
/// de la taille.
fn debut_de_la_sequence(
    chemin: &Path,
    longueur: u64,
    source: &mut File,
    chemin_source: &Path,
    entete: &[u8],
    tranche: Tranche,
) -> Result<bool, ErreurEcriture> {
    source
        .seek(SeekFrom::Start(tranche.debut))
        .map_err(systeme(chemin_source))?;
    let mut attendu = io::Cursor::new(entete).chain(Read::by_ref(source).take(tranche.longueur));
    let mut present = File::open(chemin).map_err(systeme(chemin))?.take(longueur);
    let mut a = vec![0u8; 64 * 1024];
    let mut b = vec![0u8; 64 * 1024];
    loop {
        let n = present.read(&mut a).map_err(systeme(chemin))?;
        if n == 0 {
            return Ok(true);
        }
        if attendu.read_exact(&mut b[..n]).is_err() || a[..n] != b[..n] {
            return Ok(false);
        }
    }
}

/// Efface les provisoires qu'un arrêt a laissés dans `dossier`.
fn effacer_provisoires(dossier: &Path) -> Result<(), ErreurEcriture> {
    for entree in std::fs::read_dir(dossier).map_err(systeme(dossier))? {
        let entree = entree.map_err(systeme(dossier))?;
        if entree
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(PREFIXE_PROVISOIRE))
        {
            let chemin = entree.path();
            std::fs::remove_file(&chemin).map_err(systeme(&chemin))?;
        }
    }
    Ok(())
}

/// Écrit la séquence `k` de `original` (ouvert : `source`) sous `chemin`.
fn ecrire_sequence(
    source: &mut File,
    chemin_source: &Path,
    original: &Original,
    k: usize,
    dossier: &Path,
    chemin: &Path,
    remplacer: bool,
) -> Result<u64, ErreurEcriture> {
    let tranche = original.decoupage.tranche(k);
    let mut provisoire = tempfile::Builder::new()
        .prefix(PREFIXE_PROVISOIRE)
        .suffix(".part")
        .make_in(dossier, |chemin| {
            crate::plateforme::provisoire::creer(chemin, true)
        })
        .map_err(systeme(dossier))?;
    source
        .seek(SeekFrom::Start(tranche.debut))
        .map_err(systeme(chemin_source))?;
    let f = provisoire.as_file_mut();
    f.write_all(&original.decoupage.entete_sequence(tranche.longueur))
        .map_err(systeme(chemin))?;
    let copie = io::copy(&mut Read::by_ref(source).take(tranche.longueur), f)
        .map_err(systeme(chemin_source))?;
    if copie != tranche.longueur {
        return Err(ErreurEcriture::OriginalRaccourci(chemin_source.to_owned()));
    }
    // Ces octets de la carte ne seront plus lus : le cache les rend.
    crate::plateforme::disque::oublier_lu(source, tranche.debut, tranche.longueur);
    crate::plateforme::provisoire::montrer(provisoire.path()).map_err(systeme(chemin))?;
    // Le reste d'une coupure (vérifié avant d'écrire la nuit) est remplacé ; rien d'autre.
    let renomme = if remplacer {
        provisoire.persist(chemin)
    } else {
        provisoire.persist_noclobber(chemin)
    };
    renomme.map_err(|e| {
        if e.error.kind() == io::ErrorKind::AlreadyExists {
            ErreurEcriture::AutreFichier(chemin.to_owned())
        } else {
            systeme(chemin)(e.error)
        }
    })?;
    Ok(original.decoupage.taille_sequence(k))
}

/// Une séquence à écrire : l'original, le rang de la tranche, et s'il faut remplacer le reste
/// d'une coupure (vérifié).
type AEcrire = (usize, usize, bool);

/// Ce qui reste à écrire des séquences de `nuit` dans `dossier`, ce qui y est déjà (le bilan
/// de départ) et la place qu'il faut : tout est vérifié ici, avant d'écrire le premier octet.
fn ce_qui_reste(
    racine: &Path,
    nuit: &NuitAPreparer,
    dossier: &Path,
) -> Result<(Vec<AEcrire>, BilanNuit, u64), ErreurEcriture> {
    let mut a_ecrire = Vec::new();
    let mut bilan = BilanNuit::default();
    let mut besoin = 0u64;
    for (i, o) in nuit.originaux.iter().enumerate() {
        for (k, nom) in o.sequences.iter().enumerate() {
            let tranche = o.decoupage.tranche(k);
            let entete = o.decoupage.entete_sequence(tranche.longueur);
            let taille = o.decoupage.taille_sequence(k);
            let chemin = dossier.join(nom);
            match presence(&chemin, taille, &entete)? {
                Presence::Complete => bilan.deja_la += 1,
                Presence::Absente => {
                    a_ecrire.push((i, k, false));
                    besoin += taille;
                }
                Presence::PlusCourte(longueur) => {
                    let chemin_source = crate::plateforme::chemins::local(racine, &o.relatif);
                    let mut source = File::open(&chemin_source).map_err(systeme(&chemin_source))?;
                    if !debut_de_la_sequence(
                        &chemin,
                        longueur,
                        &mut source,
                        &chemin_source,
                        &entete,
                        tranche,
                    )? {
                        return Err(ErreurEcriture::AutreFichier(chemin));
                    }
                    a_ecrire.push((i, k, true));
                    // Le remplaçant s'écrit en entier avant que le reste ne disparaisse.
                    besoin += taille;
                }
            }
        }
    }
    Ok((a_ecrire, bilan, besoin))
}

/// Écrit les séquences de `nuit`, lues sur la carte `racine`, dans `sortie/<dossier de la
/// nuit>` ; `apres` est appelé après chaque séquence écrite, avec sa taille.
pub(crate) fn ecrire_nuit(
    racine: &Path,
    nuit: &NuitAPreparer,
    sortie: &Path,
    apres: &mut dyn FnMut(u64),
) -> Result<BilanNuit, ErreurEcriture> {
    let dossier = sortie.join(nuit.dossier());
    std::fs::create_dir_all(&dossier).map_err(systeme(&dossier))?;
    effacer_provisoires(&dossier)?;
    let (a_ecrire, mut bilan, besoin) = ce_qui_reste(racine, nuit, &dossier)?;
    if besoin > 0 {
        let libre = crate::plateforme::disque::place_libre(&dossier).map_err(systeme(&dossier))?;
        if besoin.saturating_add(MARGE_OCTETS) > libre {
            return Err(ErreurEcriture::PlaceInsuffisante {
                dossier,
                besoin,
                libre,
            });
        }
    }
    let mut ouvert: Option<(usize, File, PathBuf)> = None;
    for (i, k, remplacer) in a_ecrire {
        let o = &nuit.originaux[i];
        if ouvert.as_ref().is_none_or(|(j, _, _)| *j != i) {
            let chemin = crate::plateforme::chemins::local(racine, &o.relatif);
            let f = File::open(&chemin).map_err(systeme(&chemin))?;
            ouvert = Some((i, f, chemin));
        }
        let Some((_, source, chemin_source)) = ouvert.as_mut() else {
            continue;
        };
        let chemin = dossier.join(&o.sequences[k]);
        let octets = ecrire_sequence(source, chemin_source, o, k, &dossier, &chemin, remplacer)?;
        bilan.ecrites += 1;
        bilan.octets_ecrits += octets;
        apres(octets);
    }
    Ok(bilan)
}
