//! Ce que dit `vigie preparer` : la carte lue (lecture seule, journaux, matériel), chaque nuit
//! préparée, les originaux refusés et le bilan ; en lignes de texte ou en JSON.
//!
//! Les décisions (quoi préparer, où, comment) sont dans `preparation/` ; ici, seulement les
//! mots.

use std::io::{self, Write};
use std::path::Path;

use crate::preparation::carte::{Carte, NuitAPreparer};
use crate::preparation::ecriture::BilanNuit;
use crate::preparation::materiel::Enregistreur;
use crate::suivi::Evenement;
use crate::suivi::format::{neutraliser, octets_lisibles};
use crate::texte::pluriel;

/// Le bilan de toute la commande.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BilanPreparation {
    pub(crate) nuits: usize,
    pub(crate) sequences: usize,
    pub(crate) ecrites: usize,
    pub(crate) deja_la: usize,
}

/// L'affichage de `vigie preparer`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AffichagePreparation {
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
}

/// « PassiveRecorder n° 1925492 (journal LogPR) ».
pub(crate) fn materiel_lisible(e: &Enregistreur) -> String {
    let type_ = e
        .type_enregistreur
        .as_deref()
        .unwrap_or("enregistreur de type inconnu");
    match &e.numero_serie {
        Some(n) => format!("{type_} n° {n} ({})", e.source.libelle()),
        None => format!("{type_}, sans numéro de série ({})", e.source.libelle()),
    }
}

impl AffichagePreparation {
    /// Ce que la lecture de la carte a trouvé, avant d'écrire : la lecture seule d'abord
    /// (c'est la prochaine nuit qui est en jeu), puis les originaux refusés.
    pub(crate) fn carte(&self, racine: &Path, carte: &Carte) -> io::Result<()> {
        if self.json {
            for r in &carte.refuses {
                Evenement::OriginalRefuse {
                    chemin: &r.relatif,
                    raison: &r.raison,
                }
                .ecrire()?;
            }
            return Ok(());
        }
        let mut e = crate::sortie::erreur();
        if carte.lecture_seule {
            writeln!(
                e,
                "attention : {} est en lecture seule. Une carte SD qui passe d'elle-même en \
                 lecture seule est en fin de vie : ses fichiers se lisent encore (ils sont \
                 préparés), mais elle n'enregistrera peut-être pas la prochaine nuit. Copiez-la \
                 et remplacez-la avant de reposer l'enregistreur.",
                neutraliser(&racine.display().to_string())
            )?;
        }
        for r in &carte.refuses {
            writeln!(
                e,
                "refusé : {} : {}",
                neutraliser(&r.relatif),
                neutraliser(&r.raison)
            )?;
        }
        if !self.silencieux {
            let mut s = crate::sortie::standard();
            for j in &carte.journaux {
                writeln!(s, "Journal lu : {}", neutraliser(j))?;
            }
        }
        Ok(())
    }

    /// Une nuit préparée.
    pub(crate) fn nuit(&self, nuit: &NuitAPreparer, bilan: &BilanNuit) -> io::Result<()> {
        let materiel: Vec<String> = nuit
            .enregistreurs()
            .into_iter()
            .map(materiel_lisible)
            .collect();
        if self.json {
            return Evenement::NuitPreparee {
                dossier: &nuit.dossier(),
                soiree: &nuit.soiree.format("%Y-%m-%d").to_string(),
                originaux: nuit.originaux.len(),
                sequences: nuit.sequences(),
                ecrites: bilan.ecrites,
                deja_la: bilan.deja_la,
                octets_ecrits: bilan.octets_ecrits,
                materiel,
            }
            .ecrire();
        }
        if self.silencieux {
            return Ok(());
        }
        let mut s = crate::sortie::standard();
        writeln!(
            s,
            "Nuit du {} → {} : {} → {} ({} écrite{}, {} déjà là, {})",
            nuit.soiree.format("%d/%m/%Y"),
            nuit.dossier(),
            pluriel(nuit.originaux.len() as u64, "original", "originaux"),
            pluriel(nuit.sequences() as u64, "séquence", "séquences"),
            bilan.ecrites,
            if bilan.ecrites > 1 { "s" } else { "" },
            bilan.deja_la,
            octets_lisibles(bilan.octets_ecrits),
        )?;
        for m in materiel {
            writeln!(s, "  matériel : {}", neutraliser(&m))?;
        }
        Ok(())
    }

    /// Le bilan (dernière ligne).
    pub(crate) fn bilan(&self, carte: &Carte, b: &BilanPreparation, vers: &Path) -> io::Result<()> {
        if self.json {
            return Evenement::BilanPreparation {
                nuits: b.nuits,
                sequences: b.sequences,
                ecrites: b.ecrites,
                deja_la: b.deja_la,
                refuses: carte.refuses.len(),
                lecture_seule: carte.lecture_seule,
            }
            .ecrire();
        }
        if self.silencieux && carte.refuses.is_empty() {
            return Ok(());
        }
        let mut s = crate::sortie::standard();
        writeln!(
            s,
            "{} préparée{} dans {} : {}{}.",
            pluriel(b.nuits as u64, "nuit", "nuits"),
            if b.nuits > 1 { "s" } else { "" },
            neutraliser(&vers.display().to_string()),
            pluriel(b.sequences as u64, "séquence", "séquences"),
            if carte.refuses.is_empty() {
                String::new()
            } else {
                format!(
                    " ; {} (voir plus haut)",
                    pluriel(
                        carte.refuses.len() as u64,
                        "fichier refusé",
                        "fichiers refusés"
                    )
                )
            }
        )?;
        if b.nuits > 0 {
            writeln!(
                s,
                "Pour les déposer : {}",
                crate::plateforme::conseil::commande("depot").chemin(vers)
            )?;
        }
        Ok(())
    }
}
