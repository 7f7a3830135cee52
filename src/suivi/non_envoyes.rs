//! Ce qui ne part pas (`inventaire::NonEnvoyes`), dit par une seule règle pour une nuit et
//! pour une saison : en lignes sur la sortie d'erreur (c'est du statut), ou en un événement
//! JSON `non_envoyes`. Rien n'est sauté en silence : une séquence vide, une nuit derrière un
//! lien symbolique, la bénévole le lit avant d'effacer sa carte.

use std::io::Write;

use anyhow::Result;

use super::Evenement;
use super::calcul::ModeSortie;
use super::format::neutraliser;
use crate::inventaire::NonEnvoyes;

/// Combien de noms une ligne cite avant de résumer.
const NOMS_CITES: usize = 10;

/// Les noms de `liste`, dix au plus, neutralisés, puis combien d'autres.
pub(crate) fn citer(liste: &[String]) -> String {
    let mut s = liste
        .iter()
        .take(NOMS_CITES)
        .map(|nom| neutraliser(nom).into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    if liste.len() > NOMS_CITES {
        s.push_str(&format!(" … (+{})", liste.len() - NOMS_CITES));
    }
    s
}

/// Les lignes qui disent ce qui ne part pas (aucune s'il n'y a rien).
pub(crate) fn lignes(n: &NonEnvoyes) -> Vec<String> {
    let mut l = Vec::new();
    if n.systeme > 0 || !n.autres.is_empty() {
        l.push(format!(
            "  ignorés : {} fichier(s) caché(s) ou système, {} autre(s) ({})",
            n.systeme,
            n.autres.len(),
            citer(&n.autres)
        ));
    }
    if !n.vides.is_empty() {
        l.push(format!(
            "  attention : fichier(s) vide(s) ignoré(s) : {}",
            citer(&n.vides)
        ));
    }
    if !n.liens.is_empty() {
        l.push(format!(
            "  liens symboliques non suivis : {}",
            citer(&n.liens)
        ));
    }
    l
}

/// Où le dire, en texte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ou {
    /// Avec l'annonce du plan, sur la sortie d'erreur (c'est du statut) : une nuit.
    Statut,
    /// Dans le bilan, sur la sortie standard : une saison.
    Bilan,
}

/// Dit ce qui ne part pas : l'événement `non_envoyes` en JSON, les [`lignes`] sinon (rien en
/// silencieux, ni quand rien n'est laissé).
pub(crate) fn dire(m: ModeSortie, ou: Ou, n: &NonEnvoyes) -> Result<()> {
    if n.total() == 0 {
        return Ok(());
    }
    if m.json {
        Evenement::NonEnvoyes {
            caches_ou_systeme: n.systeme,
            autres: &n.autres,
            vides: &n.vides,
            liens_non_suivis: &n.liens,
        }
        .ecrire()?;
        return Ok(());
    }
    match ou {
        Ou::Statut if m.silencieux => {}
        Ou::Statut => {
            let mut e = crate::sortie::erreur();
            for ligne in lignes(n) {
                writeln!(e, "{ligne}")?;
            }
        }
        Ou::Bilan => {
            let mut s = crate::sortie::standard();
            writeln!(
                s,
                "Non envoyés : {} (rien de cela ne part ; vérifiez avant d'effacer la carte) :",
                crate::texte::pluriel(n.total(), "fichier", "fichiers")
            )?;
            for ligne in lignes(n) {
                writeln!(s, "{ligne}")?;
            }
        }
    }
    Ok(())
}
