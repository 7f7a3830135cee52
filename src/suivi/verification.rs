//! Ce que dit `vigie verifier` : une ligne par fichier qui n'est pas intact, puis le bilan et
//! un seul geste (en lignes JSON avec `--json`). Les constats et leur effet sur le plan sont
//! dans `depot/relecture/verification.rs`.

use std::io::{self, Write};

use super::Evenement;
use super::format::{neutraliser, pluriel};
use crate::depot::relecture::verification::{BilanVerification, Constat};
use crate::plan::DepotUnite;
use crate::plateforme::conseil::commande;

/// Une unité qui n'est pas intacte : `  chemin : état (détail)`, ou l'événement
/// `verification`.
pub(crate) fn constat(json: bool, unite: &DepotUnite, constat: &Constat) -> io::Result<()> {
    let (etat, detail) = match constat {
        Constat::Intacte | Constat::Interrompue => return Ok(()),
        Constat::Manquante(d) => ("manquante", d),
        Constat::Differente(d) | Constat::Irremplacable(d) => ("differente", d),
        Constat::Injoignable(d) => ("inconnue", d),
        Constat::Refusee(d) => ("refusee", d),
    };
    if json {
        Evenement::Verification {
            unite: &unite.chemin,
            cle: &unite.cle,
            etat,
            detail,
        }
        .ecrire()
    } else {
        writeln!(
            crate::sortie::standard(),
            "  {} : {etat} ({})",
            neutraliser(&unite.chemin),
            neutraliser(detail)
        )
    }
}

/// Le bilan du plan `plan`, puis un seul geste, le dernier (il couvre aussi les fichiers à
/// renvoyer) ; `geste_refus` : celui que la destination du plan demande quand elle refuse de
/// relire (son inscription, `depot/inscription.rs`).
pub(crate) fn bilan(
    json: bool,
    plan: i64,
    nuit: Option<&str>,
    b: &BilanVerification,
    geste_refus: &str,
) -> io::Result<()> {
    let BilanVerification {
        intactes,
        a_renvoyer,
        inconnues,
        definitifs,
        refusees,
        ..
    } = b;
    if json {
        return Evenement::BilanVerification {
            plan,
            intactes: *intactes,
            a_renvoyer: *a_renvoyer,
            inconnues: *inconnues,
            definitifs: *definitifs,
            refusees: refusees.len(),
        }
        .ecrire();
    }
    let mut s = crate::sortie::standard();
    // Une nuit de saison se nomme, et se reprend avec toute sa saison ; un plan hors saison,
    // par son numéro.
    let (nom, verifier, reprendre) = match nuit {
        Some(n) => (
            format!("Nuit {n}"),
            commande("verifier").args(n.split(' ')),
            commande("retenter-echecs"),
        ),
        None => (
            format!("Plan {plan}"),
            commande("verifier").arg(plan),
            commande("retenter-echecs").arg(plan),
        ),
    };
    writeln!(
        s,
        "{nom} : {} à la destination, {a_renvoyer} à renvoyer, {} non {}.",
        pluriel(*intactes, "fichier intact", "fichiers intacts"),
        inconnues + refusees.len() as u64,
        if inconnues + refusees.len() as u64 > 1 {
            "vérifiés"
        } else {
            "vérifié"
        }
    )?;
    if *definitifs > 0 {
        writeln!(
            s,
            "{} : la plateforme en garde un autre contenu et refuse de le remplacer (noté en \
             refus définitif).",
            pluriel(*definitifs, "fichier différent", "fichiers différents"),
        )?;
    }
    if let Some(premier) = refusees.first() {
        let (sujet, les) = match refusees.len() {
            1 => ("1 fichier non vérifié".to_owned(), "le"),
            n => (format!("{n} fichiers non vérifiés"), "les"),
        };
        writeln!(
            s,
            "{sujet} : la destination refuse de {les} relire ({}) ; c'est un refus, pas une \
             panne : le redemander n'y changera rien sans un geste.",
            neutraliser(premier)
        )?;
    }
    if *a_renvoyer > 0 {
        writeln!(s, "Les fichiers à renvoyer sont remis à déposer.")?;
    }
    if !refusees.is_empty() {
        writeln!(s, "Ensuite : {geste_refus}, puis {verifier}")?;
    } else if *definitifs > 0 {
        writeln!(
            s,
            "Ensuite : pour remplacer la version de la plateforme, demandez à ses \
             gestionnaires de la supprimer, puis {}",
            reprendre.arg("--y-compris-definitifs")
        )?;
    } else if *a_renvoyer > 0 {
        writeln!(s, "Ensuite : {reprendre}")?;
    } else if *inconnues > 0 {
        writeln!(
            s,
            "Destination injoignable pour certains fichiers. Ensuite : {verifier} plus tard"
        )?;
    }
    Ok(())
}
