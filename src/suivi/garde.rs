//! Ce que dit la garde de format (`garde.rs`) : les séquences refusées, regroupées par ce qui
//! cloche, chacune nommée, avec le geste qui les corrige (la commande qui prépare la nuit pour
//! un enregistrement direct), et ce qui part mais se dit (un en-tête direct en routier) ; en
//! lignes JSON, un `avertissement` de motif `format_sequences` avant l'`erreur`.

use std::io::Write;

use anyhow::Result;

use super::Evenement;
use super::calcul::ModeSortie;
use super::evenement::{Avertissement, SequenceFautive};
use super::format::neutraliser;
use crate::garde::Faute;
use crate::noms::{Empechement, lignes_des_groupes, regrouper};
use crate::sortie::{CodeSortie, ErreurAvecCode, NuitNommee};
use crate::texte::pluriel;

/// Combien de fichiers chaque groupe cite.
const NOMS_CITES: usize = 5;

/// Une séquence jugée fautive, telle que la commande la nomme.
pub(crate) struct Jugee<'a> {
    /// Son chemin, relatif au dossier donné (ou à l'ancêtre commun des dossiers d'une saison).
    pub(crate) chemin: &'a str,
    pub(crate) faute: &'a Faute,
    pub(crate) refusee: bool,
}

/// Dit les séquences fautives : celles qui partent quand même (un avertissement), puis celles
/// qui sont refusées, avec l'erreur de code 2 qui arrête tout avant le premier envoi. `commande`
/// prépare la nuit (`vigie preparer CARTE --vers DOSSIER`) ; `nuits`, celles qu'elles
/// touchent (nommées par l'erreur en JSON).
pub(crate) fn dire(
    m: ModeSortie,
    jugees: &[Jugee<'_>],
    commande: &str,
    nuits: Vec<NuitNommee>,
) -> Result<()> {
    let (refusees, dites): (Vec<&Jugee<'_>>, Vec<&Jugee<'_>>) =
        jugees.iter().partition(|j| j.refusee);
    if !dites.is_empty() {
        avertir(m, &dites)?;
    }
    if refusees.is_empty() {
        return Ok(());
    }
    let directes = refusees
        .iter()
        .any(|j| matches!(j.faute, Faute::Direct { .. }));
    if m.json {
        Evenement::Avertissement {
            motif: Avertissement::FormatSequences {
                refus: true,
                sequences: nommer(&refusees),
                commande: directes.then(|| commande.to_owned()),
            },
        }
        .ecrire()?;
    } else {
        let groupes = regrouper(refusees.iter().map(|j| Empechement {
            chemin: j.chemin.to_owned(),
            regle: j.faute.regle(),
            geste: geste(j.faute, commande),
        }));
        let mut e = crate::sortie::erreur();
        writeln!(
            e,
            "Ces séquences ne sont pas au format que lit la plateforme ; rien n'a été envoyé ni créé :"
        )?;
        for ligne in lignes_des_groupes(&groupes, NOMS_CITES) {
            writeln!(e, "{}", neutraliser(&ligne))?;
        }
    }
    let quoi = pluriel(refusees.len() as u64, "séquence", "séquences");
    let message = if directes {
        format!(
            "{quoi} que la plateforme lirait mal (voir ci-dessus) ; rien n'a été envoyé ni créé. \
             Préparez la nuit en séquences ×10 : {commande}, puis déposez le dossier préparé"
        )
    } else {
        format!(
            "{quoi} que la plateforme ne lirait pas (voir ci-dessus) ; rien n'a été envoyé ni \
             créé. Corrigez, puis relancez la même commande"
        )
    };
    Err(ErreurAvecCode::nouveau(CodeSortie::Usage, message)
        .avec_nuits(nuits)
        .into())
}

/// Le geste qui corrige une séquence.
fn geste(faute: &Faute, commande: &str) -> String {
    match faute {
        Faute::Direct { .. } => format!(
            "préparez la nuit en séquences ×10, puis déposez le dossier préparé : {commande}"
        ),
        Faute::PasLisible(_) => "retirez-le de la nuit (ce n'est pas un enregistrement lisible), \
                                 ou remettez l'original de la carte"
            .to_owned(),
        Faute::Systeme(_) => "vérifiez ses droits (chmod u+r), puis relancez".to_owned(),
    }
}

fn nommer(jugees: &[&Jugee<'_>]) -> Vec<SequenceFautive> {
    jugees
        .iter()
        .map(|j| SequenceFautive {
            chemin: j.chemin.to_owned(),
            probleme: j.faute.regle(),
            frequence_hz: j.faute.frequence_hz(),
        })
        .collect()
}

/// Les séquences qui partent mais que le calcul ne lira bien que si la participation le dit.
fn avertir(m: ModeSortie, dites: &[&Jugee<'_>]) -> Result<()> {
    if m.json {
        Evenement::Avertissement {
            motif: Avertissement::FormatSequences {
                refus: false,
                sequences: nommer(dites),
                commande: None,
            },
        }
        .ecrire()?;
        return Ok(());
    }
    if m.silencieux {
        return Ok(());
    }
    let mut e = crate::sortie::erreur();
    writeln!(
        e,
        "attention : {} en routier ou pédestre enregistrée(s) en direct (en-tête à {} Hz ou plus) : \
         le calcul les lit en ×10, sauf si la participation déclare ce canal en direct \
         (canal_enregistrement_direct, sur le site web)",
        pluriel(dites.len() as u64, "séquence", "séquences"),
        crate::texte::milliers(u64::from(crate::garde::SEUIL_DIRECT_HZ)),
    )?;
    for j in dites.iter().take(NOMS_CITES) {
        writeln!(e, "    {}", neutraliser(j.chemin))?;
    }
    if dites.len() > NOMS_CITES {
        writeln!(
            e,
            "    … et {}",
            pluriel((dites.len() - NOMS_CITES) as u64, "autre", "autres")
        )?;
    }
    Ok(())
}
