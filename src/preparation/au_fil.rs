//! Déposer une carte brute sans l'écrire préparée (`vigie depot CARTE`) : chaque séquence que
//! `vigie preparer` écrirait devient une unité du plan, son en-tête tenu en mémoire et ses
//! octets PCM lus sur la carte, dans l'original, au moment de l'envoi.
//!
//! Pourquoi : le compagnon officiel (`echonuit/vigiechiro-pr-companion`) consacre les deux tiers
//! de son import à copier la carte sur le disque avant de la transformer ; un portable de
//! terrain n'a pas toujours 40 Go libres. Ce qui part est **octet pour octet** ce que
//! `preparer` aurait écrit : mêmes noms (l'arbitrage des collisions sur toute la nuit), même
//! en-tête ([`super::transformation::Decoupage::entete_sequence`]), même plage PCM — une seule
//! règle, celle de [`super::transformation`], lue ici par [`super::carte::lire_carte`].
//!
//! Une carte est **brute** quand chacun de ses fichiers est un WAV dont le nom porte un
//! horodatage mais n'est pas encore un nom de séquence de la plateforme (`…_AAAAMMJJ_HHMMSS`
//! sans `_000`) ; elle est **reconnue** quand `preparer` sait la transformer sans rien
//! demander : chaque original lu, le préfixe `Car<site>-<année>-Pass<n>-<point>-` dans les
//! noms, ou donné au dépôt comme à `preparer` (l'[`Identite`] : `--site NUMERO`, `--passage`,
//! `--point`). Une carte brute non reconnue (un original illisible, le préfixe ni dans les noms
//! ni donné) n'est pas préparée ici : le dépôt la refuse comme avant, avec la commande
//! `vigie preparer` à lancer.
//! Un dossier qui mêle séquences et bruts n'est pas une carte brute : le préparer renommerait
//! les séquences (`…_000_000`, le signe d'un double traitement).

use std::collections::HashMap;
use std::path::Path;

use super::carte::{self, Identite};
use super::transformation::horodatage_du_nom;
use crate::inventaire::{Enregistrement, Inventaire, nom_decompose};
use crate::plan::SequencePreparee;
use crate::saison::examen::DossierLu;

/// Où sont les octets d'une séquence préparée au fil de l'envoi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceDeSequence {
    /// L'original, relatif à la carte.
    pub(crate) original: String,
    /// Sa taille à la lecture de la carte.
    pub(crate) taille_original: u64,
    /// Le premier octet PCM de la tranche dans l'original.
    pub(crate) debut: u64,
    /// L'en-tête de la séquence (à Fe/10).
    pub(crate) entete: Vec<u8>,
}

/// Une carte brute reconnue, vue comme le dossier que `preparer` écrirait.
#[derive(Debug, Clone)]
pub(crate) struct CarteAuFil {
    /// L'inventaire de ce dossier : une entrée par séquence (`<dossier de la nuit>/<nom>`, sa
    /// taille, la date et l'identité de son original), le reste (journaux, fichiers ignorés,
    /// empêchements) tel que la carte le donne.
    pub(crate) inventaire: Inventaire,
    /// La source de chaque séquence, par son chemin.
    pub(crate) sources: HashMap<String, SourceDeSequence>,
    /// Le nombre d'originaux lus.
    pub(crate) originaux: usize,
}

/// Un nom d'original brut : un WAV dont le nom **finit** par son horodatage
/// (`…_AAAAMMJJ_HHMMSS.wav`, l'extension en majuscules ou non, comme l'écrivent les
/// enregistreurs), qui n'est pas un nom de séquence. Un nom qui porte quelque chose après
/// l'horodatage (`…_HHMMSS_000.WAV`, un caractère de contrôle) est une séquence mal nommée :
/// les règles des noms la jugent, elle n'est pas préparée.
fn original_brut(nom: &str) -> bool {
    let Some((base, extension)) = nom.rsplit_once('.') else {
        return false;
    };
    extension.eq_ignore_ascii_case("wav")
        && nom_decompose(nom).is_none()
        && horodatage_du_nom(base).is_some_and(|(i, _)| i + 15 == base.len())
}

/// Le dossier `racine`, d'inventaire `inv`, tel que le dépôt le lit : une carte brute reconnue
/// ([`reconnaitre`]) est vue comme le dossier que `vigie preparer` en écrirait, chaque séquence
/// avec ce qu'elle lit de son original ; un autre dossier, tel quel.
pub(crate) fn lire_le_dossier(racine: &Path, inv: Inventaire, identite: &Identite) -> DossierLu {
    let Some(c) = reconnaitre(racine, &inv, identite) else {
        return DossierLu {
            inventaire: inv,
            preparees: HashMap::new(),
            originaux_bruts: None,
        };
    };
    let preparees = c
        .sources
        .into_iter()
        .map(|(chemin, s)| {
            let p = SequencePreparee {
                source: s.original,
                source_taille: s.taille_original,
                source_debut: s.debut,
                entete: s.entete,
            };
            (chemin, p)
        })
        .collect();
    DossierLu {
        inventaire: c.inventaire,
        preparees,
        originaux_bruts: Some(c.originaux),
    }
}

/// La carte `racine`, d'inventaire `inv`, préparée au fil de l'envoi ; `None` si ce n'est pas
/// une carte brute reconnue (voir l'en-tête du module) : le dépôt la traite alors comme un
/// dossier ordinaire.
pub(crate) fn reconnaitre(
    racine: &Path,
    inv: &Inventaire,
    identite: &Identite,
) -> Option<CarteAuFil> {
    if inv.enregistrements.is_empty() || !inv.enregistrements.iter().all(|e| original_brut(e.nom()))
    {
        return None;
    }
    let carte = carte::lire_carte(racine, identite).ok()?;
    if !carte.refuses.is_empty() || carte.nuits.is_empty() {
        return None;
    }
    let par_chemin: HashMap<&str, &Enregistrement> = inv
        .enregistrements
        .iter()
        .map(|e| (e.chemin.as_str(), e))
        .collect();
    let mut enregistrements = Vec::new();
    let mut sources = HashMap::new();
    let mut originaux = 0;
    for nuit in &carte.nuits {
        for o in &nuit.originaux {
            // Lu par la carte, mais pas par l'inventaire (arrivé entre les deux) : la prochaine
            // relance le verra.
            let e = par_chemin.get(o.relatif.as_str())?;
            originaux += 1;
            for (k, nom) in o.sequences.iter().enumerate() {
                let tranche = o.decoupage.tranche(k);
                let chemin = format!("{}/{nom}", nuit.dossier());
                enregistrements.push(Enregistrement {
                    chemin: chemin.clone(),
                    taille: o.decoupage.taille_sequence(k),
                    modifie_ns: e.modifie_ns,
                    identite: e.identite,
                });
                sources.insert(
                    chemin,
                    SourceDeSequence {
                        original: o.relatif.clone(),
                        taille_original: e.taille,
                        debut: tranche.debut,
                        entete: o.decoupage.entete_sequence(tranche.longueur).to_vec(),
                    },
                );
            }
        }
    }
    enregistrements.sort_by(|a, b| a.chemin.cmp(&b.chemin));
    Some(CarteAuFil {
        inventaire: Inventaire {
            enregistrements,
            ..inv.clone()
        },
        sources,
        originaux,
    })
}

#[cfg(test)]
mod tests {
    use super::super::entete::essais::wav;
    use super::*;

    fn carte(noms: &[(&str, u32)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (nom, frequence) in noms {
            std::fs::write(d.path().join(nom), wav(*frequence, &[], &[0; 8_000_000])).unwrap();
        }
        d
    }

    #[test]
    fn une_carte_brute_prefixee_donne_les_sequences_de_preparer() {
        let d = carte(&[
            ("Car640380-2026-Pass1-A1-S4U1_20260621_223000.wav", 384_000),
            ("Car640380-2026-Pass1-A1-S4U1_20260621_223005.wav", 384_000),
        ]);
        let inv = crate::inventaire::inventorier(d.path()).unwrap();
        let c = reconnaitre(d.path(), &inv, &Identite::default()).unwrap();
        let attendue = carte::lire_carte(d.path(), &Identite::default()).unwrap();
        let noms: Vec<String> = attendue.nuits[0]
            .originaux
            .iter()
            .flat_map(|o| {
                o.sequences
                    .iter()
                    .map(|n| format!("{}/{n}", attendue.nuits[0].dossier()))
            })
            .collect();
        let mut chemins: Vec<&str> = c
            .inventaire
            .enregistrements
            .iter()
            .map(|e| e.chemin.as_str())
            .collect();
        chemins.sort_unstable();
        let mut noms: Vec<&str> = noms.iter().map(String::as_str).collect();
        noms.sort_unstable();
        assert_eq!(chemins, noms);
        assert_eq!(c.originaux, 2);
        // 4 000 000 trames à 384 kHz : 10,4 s, trois tranches chacun ; le second chevauche
        // le premier (`_001`).
        assert_eq!(chemins.len(), 6);
        assert!(
            chemins.iter().any(|c| c.ends_with("223005_001.wav")),
            "{chemins:?}"
        );
        let s = &c.sources["Car640380-2026-Pass1-A1-20260621/Car640380-2026-Pass1-A1-S4U1_20260621_223000_000.wav"];
        assert_eq!((s.debut, s.entete.len()), (44, 44));
        assert_eq!(
            u32::from_le_bytes(s.entete[24..28].try_into().unwrap()),
            38_400
        );
    }

    #[test]
    fn ni_sequences_ni_melange_ni_prefixe_absent_ne_sont_une_carte_brute() {
        for noms in [
            // Déjà des séquences.
            &[(
                "Car640380-2026-Pass1-A1-S4U1_20260621_223000_000.wav",
                38_400,
            )][..],
            // Un mélange.
            &[
                (
                    "Car640380-2026-Pass1-A1-S4U1_20260621_223000_000.wav",
                    38_400,
                ),
                ("Car640380-2026-Pass1-A1-S4U1_20260621_223100.wav", 384_000),
            ],
            // Sans préfixe : preparer le demanderait (--site --passage --point).
            &[("S4U1_20260621_223000.wav", 384_000)],
            // Sans horodatage.
            &[("essai.wav", 384_000)],
            // Des séquences mal nommées (extension en majuscules, caractère de contrôle après
            // l'horodatage) : les règles des noms les jugent, elles ne sont pas préparées.
            &[(
                "Car640380-2026-Pass1-A1-S4U1_20260621_223000_000.WAV",
                38_400,
            )],
            &[(
                "Car640380-2026-Pass1-A1-S4U1_20260621_223000_000\u{202e}vaw.wav",
                38_400,
            )],
        ] {
            let d = carte(noms);
            let inv = crate::inventaire::inventorier(d.path()).unwrap();
            assert!(
                reconnaitre(d.path(), &inv, &Identite::default()).is_none(),
                "{noms:?}"
            );
        }
    }
}
