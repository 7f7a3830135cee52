//! Reconnaître l'enregistreur d'un original : son type, son numéro de série, et la fréquence
//! réelle quand son journal la donne.
//!
//! Dans l'ordre de confiance :
//! 1. le **journal du Passive Recorder** `LogPR<n>.txt`, lu comme
//!    `importation/model/AnalyseurLogPR.java` du compagnon officiel
//!    (`echonuit/vigiechiro-pr-companion`) : des lignes `JJ/MM/AA - HH:MM:SS PR<série>
//!    <message>` ; la première ligne `Paramètres : Acquisi. 20:25-07:47, Fe384kHz …` donne la
//!    fréquence réelle ; le numéro de série vient de « numéro de série N », sinon du premier
//!    `PR<chiffres>` ; un journal sans numéro de série n'identifie rien et n'est pas retenu ;
//! 2. les **métadonnées GUANO** (bloc `guan` : `Make:`, `Model:`, `Serial:`), écrites par les
//!    enregistreurs Wildlife Acoustics et d'autres ;
//! 3. le **commentaire d'AudioMoth** (`ICMT` : « … by AudioMoth 24F3190360FB8E1D … ») ;
//! 4. le **nom** : `PaRecPR1925492_…` (Passive Recorder), `S4U12345_…` (SM4BAT), sinon ce
//!    qui précède l'horodatage, gardé comme numéro sans type.
//!
//! Le type écrit est celui qu'écrit le compagnon dans `detecteur_enregistreur_type`
//! (`PassiveRecorder`) ou le modèle que l'enregistreur dit de lui-même. Pur : du texte en
//! entrée.

use super::entete::EnteteWav;
use super::transformation::horodatage_du_nom;

/// Ce que dit un journal `LogPR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JournalPr {
    pub(crate) numero_serie: String,
    /// `Fe384kHz` : 384 000.
    pub(crate) frequence_hz: Option<u32>,
}

/// Le type qu'écrit le compagnon pour un Passive Recorder.
pub(crate) const TYPE_PASSIVE_RECORDER: &str = "PassiveRecorder";

/// `(\d+)` juste après `motif` dans `texte`.
fn nombre_apres<'a>(texte: &'a str, motif: &str) -> Option<&'a str> {
    let i = texte.find(motif)? + motif.len();
    let reste = texte[i..].trim_start();
    let fin = reste
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(reste.len());
    (fin > 0).then(|| &reste[..fin])
}

/// Le message d'une ligne `JJ/MM/AA - HH:MM:SS PR<n> <message>`, si elle en est une.
fn message(ligne: &str) -> Option<&str> {
    let l = ligne.trim();
    let o = l.as_bytes();
    let date = o.len() > 8
        && o[..8].iter().enumerate().all(|(i, c)| {
            if i == 2 || i == 5 {
                *c == b'/'
            } else {
                c.is_ascii_digit()
            }
        });
    if !date {
        return None;
    }
    let reste = l[8..].trim_start().strip_prefix('-')?.trim_start();
    let (heure, reste) = reste.split_once(char::is_whitespace)?;
    if heure.len() != 8 || heure.matches(':').count() != 2 {
        return None;
    }
    let reste = reste.trim_start();
    let (pr, message) = reste.split_once(char::is_whitespace).unwrap_or((reste, ""));
    let serie = pr.strip_prefix("PR")?;
    (!serie.is_empty() && serie.bytes().all(|c| c.is_ascii_digit())).then(|| message.trim())
}

/// Lit un journal `LogPR` ; `None` s'il n'identifie aucun enregistreur.
pub(crate) fn lire_journal(texte: &str) -> Option<JournalPr> {
    let mut numero = None;
    let mut frequence_hz = None;
    let mut parametres_lus = false;
    for m in texte.lines().filter_map(message) {
        if numero.is_none() {
            numero = [
                "numéro de série",
                "numero de serie",
                "numéro de serie",
                "numero de série",
            ]
            .iter()
            .find_map(|motif| nombre_apres(m, motif))
            .map(str::to_owned);
        }
        if m.starts_with("Param") && !parametres_lus {
            parametres_lus = true;
            frequence_hz = nombre_apres(m, "Fe")
                .filter(|_| m.contains("kHz"))
                .and_then(|k| k.parse::<u32>().ok())
                .and_then(|k| k.checked_mul(1000));
        }
    }
    let numero = numero.or_else(|| {
        texte
            .lines()
            .find_map(|l| nombre_apres(l, "PR").map(str::to_owned))
    })?;
    Some(JournalPr {
        numero_serie: numero,
        frequence_hz,
    })
}

/// D'où vient ce que l'on sait du matériel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceMateriel {
    Journal,
    Guano,
    CommentaireAudioMoth,
    Nom,
}

impl SourceMateriel {
    pub(crate) fn libelle(self) -> &'static str {
        match self {
            SourceMateriel::Journal => "journal LogPR",
            SourceMateriel::Guano => "métadonnées GUANO",
            SourceMateriel::CommentaireAudioMoth => "commentaire AudioMoth",
            SourceMateriel::Nom => "nom des fichiers",
        }
    }
}

/// L'enregistreur d'un original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enregistreur {
    pub(crate) type_enregistreur: Option<String>,
    pub(crate) numero_serie: Option<String>,
    pub(crate) source: SourceMateriel,
}

/// La valeur d'une clé GUANO (`Cle:valeur`, une par ligne).
fn guano(texte: &str, cle: &str) -> Option<String> {
    texte.lines().find_map(|l| {
        let (c, v) = l.split_once(':')?;
        (c.trim().eq_ignore_ascii_case(cle) && !v.trim().is_empty()).then(|| v.trim().to_owned())
    })
}

/// Reconnaît l'enregistreur d'un original nommé `nom`, d'en-tête `entete`, sous le journal
/// `journal` s'il y en a un.
pub(crate) fn reconnaitre(
    journal: Option<&JournalPr>,
    entete: &EnteteWav,
    nom: &str,
) -> Enregistreur {
    if let Some(j) = journal {
        return Enregistreur {
            type_enregistreur: Some(TYPE_PASSIVE_RECORDER.to_owned()),
            numero_serie: Some(j.numero_serie.clone()),
            source: SourceMateriel::Journal,
        };
    }
    if let Some(g) = entete.guano.as_deref() {
        let modele = guano(g, "Model").or_else(|| guano(g, "Make"));
        let serie = guano(g, "Serial");
        if modele.is_some() || serie.is_some() {
            return Enregistreur {
                type_enregistreur: modele,
                numero_serie: serie,
                source: SourceMateriel::Guano,
            };
        }
    }
    if let Some(c) = entete.commentaire.as_deref()
        && let Some(i) = c.find("AudioMoth ")
    {
        let serie: String = c[i + "AudioMoth ".len()..]
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .collect();
        return Enregistreur {
            type_enregistreur: Some("AudioMoth".to_owned()),
            numero_serie: (!serie.is_empty()).then_some(serie),
            source: SourceMateriel::CommentaireAudioMoth,
        };
    }
    // Ce qui précède l'horodatage : `PaRecPR1925492`, `S4U12345`.
    par_le_nom(horodatage_du_nom(nom).map_or("", |(i, _)| &nom[..i]))
}

/// L'enregistreur que dit la partie « enregistreur » d'un nom (ce qui précède son
/// horodatage : `PaRecPR1925492`, `S4U12345`, sans les `_` et `-` qui la bordent).
pub(crate) fn par_le_nom(tete: &str) -> Enregistreur {
    let tete = tete.trim_matches(['_', '-']);
    let (type_enregistreur, numero_serie) = if let Some(n) = tete.strip_prefix("PaRecPR") {
        (Some(TYPE_PASSIVE_RECORDER.to_owned()), Some(n.to_owned()))
    } else if tete.starts_with("S4U") {
        (Some("SM4BAT".to_owned()), Some(tete.to_owned()))
    } else {
        (None, (!tete.is_empty()).then(|| tete.to_owned()))
    };
    Enregistreur {
        type_enregistreur,
        numero_serie: numero_serie.filter(|n| !n.is_empty()),
        source: SourceMateriel::Nom,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOURNAL: &str = "\
Journal du Passive Recorder\n\
21/06/26 - 16:02:21 PR1925492 Démarrage, CPU 180MHz, PR V1.3\n\
21/06/26 - 16:02:22 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe384kHz, S. R. 3, Bd. Freq. 8-120kHz\n\
22/06/26 - 07:47:00 PR1925492 Paramètres : Acquisi. 20:25-07:47, Fe250kHz\n";

    fn entete() -> EnteteWav {
        EnteteWav {
            canaux: 1,
            frequence_hz: 384_000,
            bits: 16,
            debut_donnees: 44,
            octets_donnees: 0,
            guano: None,
            commentaire: None,
        }
    }

    #[test]
    fn le_journal_donne_la_serie_et_la_premiere_frequence() {
        assert_eq!(
            lire_journal(JOURNAL),
            Some(JournalPr {
                numero_serie: "1925492".into(),
                frequence_hz: Some(384_000)
            })
        );
        let explicite = "01/07/26 - 20:00:00 PR1 Init, numéro de série 77\n";
        assert_eq!(lire_journal(explicite).unwrap().numero_serie, "77");
        assert_eq!(lire_journal("rien d'utile\n"), None);
    }

    #[test]
    fn l_enregistreur_se_reconnait_dans_l_ordre_de_confiance() {
        let j = lire_journal(JOURNAL).unwrap();
        let r = reconnaitre(Some(&j), &entete(), "x_20260621_223015.wav");
        assert_eq!(r.type_enregistreur.as_deref(), Some("PassiveRecorder"));
        assert_eq!(r.source, SourceMateriel::Journal);

        let mut e = entete();
        e.guano = Some(
            "GUANO|Version:1.0\nMake:Wildlife Acoustics\nModel:SM4BAT-FS\nSerial:S4U09876\n".into(),
        );
        let r = reconnaitre(None, &e, "S4U12345_20260621_223015.wav");
        assert_eq!(
            (r.type_enregistreur.as_deref(), r.numero_serie.as_deref()),
            (Some("SM4BAT-FS"), Some("S4U09876"))
        );

        let mut e = entete();
        e.commentaire = Some(
            "Recorded at 22:30:15 21/06/2026 (UTC) by AudioMoth 24F3190360FB8E1D at medium gain"
                .into(),
        );
        let r = reconnaitre(None, &e, "20260621_223015.WAV");
        assert_eq!(r.numero_serie.as_deref(), Some("24F3190360FB8E1D"));

        let r = reconnaitre(None, &entete(), "S4U12345_20260621_223015.wav");
        assert_eq!(
            (
                r.type_enregistreur.as_deref(),
                r.numero_serie.as_deref(),
                r.source
            ),
            (Some("SM4BAT"), Some("S4U12345"), SourceMateriel::Nom)
        );
        let r = reconnaitre(None, &entete(), "PaRecPR1925492_20260621_223015.wav");
        assert_eq!(r.numero_serie.as_deref(), Some("1925492"));
        let r = reconnaitre(None, &entete(), "20260621_223015.wav");
        assert_eq!((r.type_enregistreur, r.numero_serie), (None, None));
    }
}
