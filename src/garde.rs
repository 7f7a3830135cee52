//! La garde de format : avant tout envoi vers la plateforme (et avant toute création de
//! participation), l'en-tête de chaque séquence `.wav` qui reste à envoyer est lu, et ce que le
//! calcul lirait mal est refusé.
//!
//! Pourquoi : le calcul d'une participation de point fixe lance `tadaridaD -x 10`
//! (`vigiechiro/scripts/task_participation.py`, `_run_tadaridaD`, `expansion=10` par défaut) :
//! il lit **toute** séquence comme enregistrée en expansion de temps ×10. Une nuit d'un
//! enregistreur « direct » (SM4BAT, AudioMoth : en-tête à 384 000 Hz) déposée telle quelle y est
//! lue dix fois trop haut, et les espèces rendues sont fausses sans aucune erreur ; un fichier
//! accepté ne se retire pas de la plateforme. Un fichier qui n'est pas un WAV PCM lisible (un
//! texte nommé `.wav`, un en-tête tronqué) n'y est pas lu du tout.
//!
//! Le seuil est celui du compagnon officiel (`echonuit/vigiechiro-pr-companion`,
//! `importation/model/FrequenceAcquisition.java`, `SEUIL_ACQUISITION_HZ = 96_000`) : à partir
//! de 96 000 Hz, un en-tête dit une acquisition directe (les enregistreurs échantillonnent à
//! 192, 256 ou 384 kHz) ; en dessous, il est déjà en ×10 (le Passive Recorder écrit Fe/10,
//! 38 400 Hz pour 384 kHz). L'en-tête est lu comme le lit le compagnon (voir [`crate::wav`]).
//!
//! Le routier et le pédestre ont leurs canaux : leur participation peut dire qu'un canal est
//! enregistré en direct (`configuration.canal_enregistrement_direct`, lu par
//! `task_participation.py` qui lance alors `tadaridaD -x 1` sur ce canal). Un en-tête direct
//! n'y est donc pas sûrement faux : il est dit, pas refusé. Ce qui n'est pas un WAV lisible est
//! refusé dans tous les protocoles.
//!
//! Seuls les fichiers qui restent à envoyer sont lus (la commande les choisit : un fichier déjà
//! déposé ne se relit pas), une fois chacun, par leurs premiers octets.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use crate::inventaire::{Enregistrement, NomDecompose, nom_decompose};
use crate::plan::{Base, ErreurBase};
use crate::wav::{self, DefautWav};

/// À partir de cette fréquence d'en-tête (Hz), une séquence est un enregistrement direct ; en
/// dessous, elle est déjà en expansion de temps ×10 (`FrequenceAcquisition.java` du compagnon,
/// `SEUIL_ACQUISITION_HZ`).
pub(crate) const SEUIL_DIRECT_HZ: u32 = 96_000;

/// Ce qui cloche dans une séquence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Faute {
    /// En-tête à `frequence_hz` ≥ [`SEUIL_DIRECT_HZ`] : enregistrée en direct, pas en ×10.
    Direct { frequence_hz: u32 },
    /// Pas un WAV PCM lisible.
    PasLisible(DefautWav),
    /// Le fichier ne s'ouvre pas ou ne se lit pas : ce qu'en dit le système.
    Systeme(String),
}

impl Faute {
    /// La règle, en une phrase : la clé du regroupement des fichiers fautifs.
    pub(crate) fn regle(&self) -> String {
        match self {
            Faute::Direct { frequence_hz } => format!(
                "enregistré en direct (en-tête à {} Hz) : la plateforme lit les séquences en \
                 expansion de temps ×10 (en-tête sous {} Hz) ; déposé tel quel, il donnerait des \
                 espèces fausses",
                crate::texte::milliers(u64::from(*frequence_hz)),
                crate::texte::milliers(u64::from(SEUIL_DIRECT_HZ)),
            ),
            Faute::PasLisible(d) => format!("{d} : la plateforme ne le lirait pas"),
            Faute::Systeme(e) => format!("illisible ({e})"),
        }
    }

    /// La fréquence de l'en-tête, si elle a pu être lue.
    pub(crate) fn frequence_hz(&self) -> Option<u32> {
        match self {
            Faute::Direct { frequence_hz } => Some(*frequence_hz),
            _ => None,
        }
    }
}

/// Une séquence que le calcul lirait mal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequenceFautive {
    /// Son rang dans ce qui a été donné à [`juger`].
    pub(crate) rang: usize,
    pub(crate) faute: Faute,
    /// Refusée (rien ne part) ; sinon seulement dite (un en-tête direct en routier).
    pub(crate) refusee: bool,
}

/// Le protocole d'une séquence `.wav`, lu dans son nom ; `None` pour un fichier qui n'est pas
/// une séquence (sortie Tadarida, archive) : il n'est pas lu.
fn protocole_de_sequence(nom: &str) -> Option<NomDecompose<'_>> {
    if !nom.ends_with(".wav") {
        return None;
    }
    nom_decompose(nom)
}

/// Juge les fichiers `a_juger` (chemins relatifs à `racine`, séparateur `/`), dans l'ordre
/// donné : chaque séquence `.wav` est ouverte sans suivre de lien et son en-tête lu ; les
/// autres fichiers ne sont pas lus. Rend les séquences fautives. Un fichier disparu depuis
/// l'inventaire n'est pas jugé : la planification et l'envoi le disent.
pub(crate) fn juger<'a>(
    racine: &Path,
    a_juger: impl IntoIterator<Item = &'a str>,
) -> Vec<SequenceFautive> {
    let mut fautives = Vec::new();
    for (rang, chemin) in a_juger.into_iter().enumerate() {
        let nom = chemin.rsplit('/').next().unwrap_or(chemin);
        let Some(protocole) = protocole_de_sequence(nom) else {
            continue;
        };
        let faute = match lire_frequence(&crate::plateforme::chemins::local(racine, chemin)) {
            None => continue,
            Some(Ok(frequence_hz)) if frequence_hz < SEUIL_DIRECT_HZ => continue,
            Some(Ok(frequence_hz)) => Faute::Direct { frequence_hz },
            Some(Err(f)) => f,
        };
        // Un en-tête direct en routier ou pédestre : dit, pas refusé (voir l'en-tête).
        let refusee = !matches!(
            (&faute, protocole),
            (Faute::Direct { .. }, NomDecompose::Routier { .. })
        );
        fautives.push(SequenceFautive {
            rang,
            faute,
            refusee,
        });
    }
    fautives
}

/// Les canaux d'une nuit de routier ou de pédestre (`canal_expansion_temps`,
/// `canal_enregistrement_direct`), déduits de ses séquences `.wav` (`chemins`, relatifs à
/// `racine`) par [`crate::description::canaux_deduits`] : le côté de chacune lu dans son nom,
/// ses canaux et sa fréquence dans son en-tête. `None` si la nuit n'a pas de séquence de
/// routier ; une séquence illisible n'y compte pas (la garde la juge).
pub(crate) fn canaux_de_la_nuit<'a>(
    racine: &Path,
    chemins: impl IntoIterator<Item = &'a str>,
) -> Option<Result<(&'static str, &'static str), String>> {
    let mut vues = Vec::new();
    for chemin in chemins {
        let nom = chemin.rsplit('/').next().unwrap_or(chemin);
        if !nom.ends_with(".wav") {
            continue;
        }
        let Some(droite) = crate::inventaire::canal_droit(nom) else {
            continue;
        };
        let lu = crate::plateforme::ouvrir_sans_suivre(&crate::plateforme::chemins::local(
            racine, chemin,
        ))
        .ok()
        .and_then(|mut f| wav::lire_en_tete(&mut f).ok())
        .and_then(Result::ok);
        vues.push((nom, droite, lu));
    }
    if vues.is_empty() {
        return None;
    }
    let sequences: Vec<_> = vues
        .iter()
        .filter_map(|&(nom, droite, lu)| {
            lu.map(|e| crate::description::SequenceDeCanal {
                nom,
                droite,
                canaux: e.canaux,
                direct: e.frequence_hz >= SEUIL_DIRECT_HZ,
            })
        })
        .collect();
    Some(crate::description::canaux_deduits(&sequences))
}

/// La fréquence de l'en-tête du fichier, ou sa faute ; `None` s'il a disparu, ou si un autre
/// programme le tient en ce moment (Windows : un lecteur audio, l'aperçu de l'explorateur, un
/// antivirus) : c'est un échec passager, que l'envoi attend
/// (`plateforme::tenu_par_un_autre_programme`), pas une faute de la séquence ; il n'est pas
/// jugé (comme un fichier disparu), et le reste de la nuit part.
fn lire_frequence(chemin: &Path) -> Option<Result<u32, Faute>> {
    let mut fichier = match crate::plateforme::ouvrir_sans_suivre(chemin) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) if crate::plateforme::est_tenu_par_un_autre_programme(&e) => return None,
        Err(e) => return Some(Err(Faute::Systeme(crate::plateforme::erreur_systeme(&e)))),
    };
    Some(match wav::lire_en_tete(&mut fichier) {
        Ok(Ok(en_tete)) => Ok(en_tete.frequence_hz),
        Ok(Err(defaut)) => Err(Faute::PasLisible(defaut)),
        Err(e) => Err(Faute::Systeme(crate::plateforme::erreur_systeme(&e))),
    })
}

/// Les fichiers d'une nuit (chemins relatifs à `racine`) qui restent à juger : tous, sauf ceux
/// que son plan (`plan` : son identifiant et son dossier, lus dans `base`) a déjà déposés, même
/// chemin et même taille. Un fichier déjà déposé ne se relit pas : la reprise d'une saison
/// déposée n'ouvre aucun fichier.
pub(crate) fn restent_a_juger<'a>(
    racine: &Path,
    fichiers: &[&'a Enregistrement],
    plan: Option<(i64, &str)>,
    base: Option<&Base>,
) -> Result<Vec<&'a str>, ErreurBase> {
    let (deposees, vers) = match (plan, base) {
        (Some((id, dossier)), Some(base)) => (
            base.deposees(id)?,
            VersLePlan::entre(racine, Path::new(dossier)),
        ),
        _ => (HashMap::new(), VersLePlan::Hors),
    };
    Ok(fichiers
        .iter()
        .filter(|e| {
            let deja = !deposees.is_empty()
                && vers
                    .chemin(&e.chemin)
                    .and_then(|c| deposees.get(c.as_ref()).copied())
                    .is_some_and(|taille| taille == e.taille);
            !deja
        })
        .map(|e| e.chemin.as_str())
        .collect())
}

/// Comment un chemin relatif à la racine commune devient un chemin du plan d'une nuit.
enum VersLePlan {
    /// La racine est dans le dossier du plan : ce préfixe (peut-être vide) devant.
    Prefixer(String),
    /// Le dossier du plan est sous la racine : ce préfixe (et son « / ») en moins.
    Retirer(String),
    /// Ni l'un ni l'autre : aucun fichier n'est dans le plan.
    Hors,
}

impl VersLePlan {
    fn entre(racine: &Path, dossier_du_plan: &Path) -> VersLePlan {
        let en_texte = |p: &Path| -> Option<String> {
            let parties: Option<Vec<&str>> =
                p.components().map(|c| c.as_os_str().to_str()).collect();
            Some(parties?.join("/"))
        };
        if let Some(prefixe) = racine.strip_prefix(dossier_du_plan).ok().and_then(en_texte) {
            return VersLePlan::Prefixer(prefixe);
        }
        match dossier_du_plan.strip_prefix(racine).ok().and_then(en_texte) {
            Some(sous) => VersLePlan::Retirer(format!("{sous}/")),
            None => VersLePlan::Hors,
        }
    }

    fn chemin<'a>(&self, chemin: &'a str) -> Option<Cow<'a, str>> {
        match self {
            VersLePlan::Prefixer(p) if p.is_empty() => Some(Cow::Borrowed(chemin)),
            VersLePlan::Prefixer(p) => Some(Cow::Owned(format!("{p}/{chemin}"))),
            VersLePlan::Retirer(p) => chemin.strip_prefix(p.as_str()).map(Cow::Borrowed),
            VersLePlan::Hors => None,
        }
    }
}

/// Les canaux d'une nuit de routier ou de pédestre que `description` ne dit pas
/// (`canal_expansion_temps`, `canal_enregistrement_direct`) : ceux que disent ses séquences
/// (`chemins`, relatifs à `racine` ; [`canaux_de_la_nuit`]), posés sur sa participation.
/// S'ils ne se déduisent pas, pourquoi est dit, avec les options à donner : jamais absents sans
/// le dire. Une nuit sans séquence de routier n'est pas lue.
pub(crate) fn deduire_les_canaux<'a>(
    description: &mut crate::description::Description,
    racine: &Path,
    chemins: impl IntoIterator<Item = &'a str>,
) {
    if description.canal_expansion_temps.is_some()
        || description.canal_enregistrement_direct.is_some()
    {
        return;
    }
    match canaux_de_la_nuit(racine, chemins) {
        Some(Ok((expansion, direct))) => {
            tracing::info!(
                "canaux déduits des séquences : expansion de temps {expansion}, direct {direct}"
            );
            description.canal_expansion_temps = Some(expansion.to_owned());
            description.canal_enregistrement_direct = Some(direct.to_owned());
        }
        Some(Err(pourquoi)) => tracing::warn!(
            "les canaux de la nuit ne se déduisent pas de ses séquences ({pourquoi}) : donnez \
             --canal-expansion et --canal-direct (GAUCHE, DROITE ou ABSENT)"
        ),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Un WAV PCM 16 bits mono de quelques échantillons, à `frequence` Hz.
    fn wav(frequence: u32) -> Vec<u8> {
        let mut v = b"RIFF".to_vec();
        v.extend_from_slice(&40u32.to_le_bytes());
        v.extend_from_slice(b"WAVEfmt ");
        v.extend_from_slice(&16u32.to_le_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&frequence.to_le_bytes());
        v.extend_from_slice(&(frequence * 2).to_le_bytes());
        v.extend_from_slice(&2u16.to_le_bytes());
        v.extend_from_slice(&16u16.to_le_bytes());
        v.extend_from_slice(b"data");
        v.extend_from_slice(&4u32.to_le_bytes());
        v.extend_from_slice(&[0; 4]);
        v
    }

    const FIXE: &str = "Car640380-2026-Pass1-A1-PA1_20260621_221500_000";
    const ROUTIER: &str = "Cir270-2026-Pass1-Tron1-Chiro_0_00023_000";

    /// Sous Windows, une séquence qu'un autre programme tient sans partage n'est pas une faute :
    /// elle n'est pas jugée, l'envoi l'attendra (verifier-paquets.sh le montre sous wine).
    #[cfg(windows)]
    #[test]
    fn une_sequence_tenue_par_un_autre_programme_n_est_pas_refusee() {
        use std::os::windows::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join(format!("{FIXE}.wav"));
        std::fs::write(&chemin, wav(38_400)).unwrap();
        let tenu = std::fs::OpenOptions::new()
            .read(true)
            .share_mode(0)
            .open(&chemin)
            .unwrap();
        assert!(juger(dir.path(), [format!("{FIXE}.wav").as_str()]).is_empty());
        drop(tenu);
    }

    #[test]
    fn direct_refuse_en_point_fixe_dit_en_routier_illisible_refuse_partout() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ecrire = |nom: &str, octets: &[u8]| std::fs::write(d.join(nom), octets).unwrap();
        ecrire(&format!("{FIXE}.wav"), &wav(38_400));
        ecrire("a.wav", &[]);
        std::fs::create_dir(d.join("s")).unwrap();
        ecrire(
            &format!("s/{}.wav", FIXE.replace("221500", "221501")),
            &wav(384_000),
        );
        ecrire(
            &format!("{}.wav", FIXE.replace("221500", "221502")),
            &wav(95_999),
        );
        ecrire(
            &format!("{}.wav", FIXE.replace("221500", "221503")),
            &wav(96_000),
        );
        ecrire(&format!("{ROUTIER}.wav"), &wav(384_000));
        ecrire(
            &format!("{}.wav", ROUTIER.replace("00023", "00024")),
            b"texte",
        );
        ecrire(&format!("{FIXE}.ta"), b"pas un wav, pas lu");
        let noms = [
            format!("{FIXE}.wav"),
            format!("s/{}.wav", FIXE.replace("221500", "221501")),
            format!("{}.wav", FIXE.replace("221500", "221502")),
            format!("{}.wav", FIXE.replace("221500", "221503")),
            format!("{ROUTIER}.wav"),
            format!("{}.wav", ROUTIER.replace("00023", "00024")),
            format!("{FIXE}.ta"),
            format!("{}.wav", FIXE.replace("221500", "235959")),
        ];
        let fautives = juger(d, noms.iter().map(String::as_str));
        let resume: Vec<(usize, bool, Option<u32>)> = fautives
            .iter()
            .map(|f| (f.rang, f.refusee, f.faute.frequence_hz()))
            .collect();
        // Le dernier a disparu depuis l'inventaire : il n'est pas jugé.
        assert_eq!(
            resume,
            [
                (1, true, Some(384_000)),
                (3, true, Some(96_000)),
                (4, false, Some(384_000)),
                (5, true, None),
            ]
        );
        assert_eq!(fautives[3].faute, Faute::PasLisible(DefautWav::PasUnWav));
        let regle = fautives[0].faute.regle();
        assert!(
            regle.contains("384 000 Hz") && regle.contains("×10"),
            "{regle}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn un_lien_n_est_pas_suivi() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("cible.wav"), wav(384_000)).unwrap();
        std::os::unix::fs::symlink(d.join("cible.wav"), d.join(format!("{FIXE}.wav"))).unwrap();
        let fautives = juger(d, [format!("{FIXE}.wav").as_str()]);
        assert!(
            matches!(
                fautives.as_slice(),
                [SequenceFautive {
                    faute: Faute::Systeme(_),
                    refusee: true,
                    ..
                }]
            ),
            "{fautives:?}"
        );
    }
}
