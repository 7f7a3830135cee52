//! Ce que disent `vigie traiter`, `vigie traitement` et `vigie resultats` : l'état d'une
//! participation, ce qui a été lancé ou pourquoi rien ne l'a été, les fichiers écrits, et les
//! erreurs (avec leur code de sortie), en français dans 80 colonnes ou en lignes JSON.
//!
//! Les décisions et les émissions sont dans `traitement/` ; la phrase d'un état et le bilan
//! des espèces dans `suivi/traitement.rs`.

use std::io::{self, Write};

use anyhow::Result;

use super::Evenement;
use super::format::{neutraliser, octets_lisibles, pluriel, replier};
use super::traitement::{lignes_bilan, phrase_etat, suggestion, traitement_json};
use crate::plateforme::conseil::commande;
use crate::reessai::ReponseApi;
use crate::sortie::{CodeSortie, ErreurAvecCode, interrompu};
use crate::traitement::cible::{Cible, NuitPasPrete};
use crate::traitement::lancer::{AvantCalcul, Lancement};
use crate::traitement::resultats::{DemandeCsv, Echec, Telecharge};
use crate::traitement::taxons::CacheTaxons;
use crate::traitement::{EtatCalcul, EtatParticipation, jeton_refuse};
use crate::transport::vigiechiro::Utilisateur;

/// Comment parler : lignes JSON (`--json`), et en silence (`-q`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModeSortie {
    pub(crate) json: bool,
    pub(crate) silencieux: bool,
}

/// Un paragraphe replié en 80 colonnes, puis, s'il y en a une, la commande à lancer ensuite
/// (jamais coupée).
pub(crate) fn ecrire(
    sortie: &mut dyn Write,
    prose: &str,
    suite: Option<(&str, &str)>,
) -> io::Result<()> {
    if !prose.is_empty() {
        for ligne in replier(prose, 80) {
            writeln!(sortie, "{ligne}")?;
        }
    }
    if let Some((intro, commande)) = suite {
        for ligne in suggestion(intro, commande) {
            writeln!(sortie, "{ligne}")?;
        }
    }
    Ok(())
}

/// Un paragraphe sur la sortie d'erreur ; perdu sans erreur si plus personne ne la lit.
fn avertir(prose: &str) {
    let _ = ecrire(&mut crate::sortie::erreur(), prose, None);
}

fn majuscule(texte: &str) -> String {
    let mut c = texte.chars();
    match c.next() {
        Some(p) => p.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

// ------------------------------------------------------------------------ vigie traitement

/// Écrit l'état d'une participation (et son bilan) sur la sortie standard.
pub(crate) fn afficher_etat(
    m: ModeSortie,
    cible: &Cible,
    e: &EtatParticipation,
    taxons: &CacheTaxons,
) -> Result<()> {
    if m.json {
        traitement_json(cible.participation.as_str(), &cible.api, e, taxons).ecrire()?;
        return Ok(());
    }
    let maintenant = crate::traitement::maintenant();
    let t = e.traitement.as_ref();
    let mut s = crate::sortie::standard();
    let etat = format!(
        "{} : {}.",
        majuscule(&cible.nom()),
        phrase_etat(t, maintenant)
    );
    ecrire(&mut s, &etat, None)?;
    if let (Some(b), Some(EtatCalcul::Fini)) = (&e.bilan, t.map(|t| &t.etat)) {
        for ligne in lignes_bilan(b, taxons, &cible.api) {
            writeln!(s, "{ligne}")?;
        }
    }
    if m.silencieux {
        return Ok(());
    }
    let (intro, commande) = match t.map(|t| &t.etat) {
        None => ("Pour lancer le calcul :", cible.commande("traiter")),
        Some(EtatCalcul::Fini) => ("Le CSV des observations :", cible.commande("resultats")),
        Some(EtatCalcul::Erreur) => {
            ecrire(
                &mut s,
                "Si l'erreur revient après une relance, écrivez aux gestionnaires de la \
                 plateforme.",
                None,
            )?;
            ("Pour relancer le calcul :", cible.commande("traiter"))
        }
        Some(_) => (
            "Pour attendre la fin du calcul :",
            cible.commande("traitement").arg("--attendre"),
        ),
    };
    ecrire(&mut s, "", Some((intro, &commande.to_string())))?;
    Ok(())
}

/// Avant les relevés de `--attendre` (sur un terminal ou en lignes).
pub(crate) fn annoncer_suivi(cible: &Cible) {
    avertir(&format!(
        "Suivi du calcul de la {} ; Ctrl-C pour arrêter.",
        cible.nom()
    ));
}

/// `--echeance` atteinte avant la fin du calcul ; `releve` : un relevé au moins a abouti.
pub(crate) fn echeance_atteinte(cible: &Cible, releve: bool) {
    avertir(&format!(
        "Échéance atteinte : le calcul de la {} n'est pas fini{}.",
        cible.nom(),
        if releve {
            ""
        } else {
            " (aucun relevé n'a abouti)"
        }
    ));
}

/// Le relevé de `vigie traitement` (sans `--attendre`) n'a pas abouti (code 1).
pub(crate) fn releve_manque(cible: &Cible, pourquoi: &str) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "l'état du calcul de la {} n'a pas pu être relevé : {pourquoi}",
            cible.nom()
        ),
    )
    .into()
}

// ------------------------------------------------------------------------- vigie traiter

/// Des nuits pas prêtes pour le calcul : refus (code 2), en disant combien de fichiers
/// manquent, sauf `malgre_tout` (`--nuit-incomplete`) où elles sont seulement signalées.
pub(crate) fn nuits_pas_pretes(
    m: ModeSortie,
    cible: &Cible,
    pas_pretes: &[NuitPasPrete],
    malgre_tout: bool,
) -> Result<()> {
    let fichiers = |n: u64| pluriel(n, "fichier", "fichiers");
    let refus: Vec<String> = pas_pretes
        .iter()
        .map(|n| match *n {
            NuitPasPrete::Incomplete {
                plan,
                manquent,
                total,
                deposees,
            } => format!(
                "la nuit du plan {} n'est pas entièrement déposée : {} sur {} \
                 {} pas sur la plateforme ({} déposé{}) ; reprenez d'abord le dépôt, \
                 {}",
                plan,
                manquent,
                total,
                if manquent > 1 { "ne sont" } else { "n'est" },
                deposees,
                if deposees > 1 { "s" } else { "" },
                commande("retenter-echecs").arg(plan)
            ),
            NuitPasPrete::EnDepot {
                plan,
                pid,
                manquent,
                total,
            } => format!(
                "un dépôt de cette nuit est en cours (plan {}{}) : {} sur {} ne sont pas encore \
                 déposés ; attendez qu'il finisse",
                plan,
                pid.map(|p| format!(", processus {p}")).unwrap_or_default(),
                fichiers(manquent),
                total
            ),
        })
        .collect();
    if refus.is_empty() || malgre_tout {
        if !refus.is_empty() && !m.silencieux {
            avertir(&format!(
                "Attention : {} ; le calcul est lancé quand même (--nuit-incomplete).",
                refus.join(" ; ")
            ));
        }
        return Ok(());
    }
    Err(ErreurAvecCode::nouveau(
        CodeSortie::Usage,
        format!(
            "{} ; le calcul ne verrait que les fichiers déjà déposés, et tant qu'il serait \
             planifié ou en cours (un jour au plus) la plateforme refuserait d'en lancer un \
             autre. Rien n'a été lancé. Pour lancer quand même le calcul d'une nuit \
             incomplète : {}",
            refus.join(" ; "),
            cible.commande("traiter").arg("--nuit-incomplete")
        ),
    )
    .into())
}

/// L'état n'a pas pu être lu avant de lancer : rien n'est lancé (code 1).
pub(crate) fn etat_inconnu_avant_lancement(cible: &Cible, pourquoi: &str) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::EchecsTransitoires,
        format!(
            "la plateforme n'a pas dit où en est le calcul de la {} : rien n'a été \
             lancé (un calcul lancé à l'aveugle pourrait effacer des résultats) ; \
             {pourquoi}",
            cible.nom()
        ),
    )
    .into()
}

/// La participation est celle d'un autre observateur : rien n'est lancé (code 3).
pub(crate) fn pas_la_votre(cible: &Cible, avant: &EtatParticipation) -> anyhow::Error {
    ErreurAvecCode::nouveau(
        CodeSortie::RefusDefinitifs,
        format!(
            "la {} n'est pas la vôtre : c'est {} ; seul son observateur peut en lancer \
             le calcul. Rien n'a été lancé : vérifiez l'identifiant de la participation",
            cible.nom(),
            a_qui(avant)
        ),
    )
    .into()
}

/// « celle de Noctule des Étangs » : à qui est la participation, si c'est lisible.
fn a_qui(e: &EtatParticipation) -> String {
    match e.observateur.as_ref() {
        Some(o) => match &o.pseudo {
            Some(p) => format!("celle de « {} » (observateur {})", neutraliser(p), o.id),
            None => format!("celle de l'observateur {}", o.id),
        },
        None => "celle d'un autre observateur".to_owned(),
    }
}

/// `vigie traiter --json` : le calcul lancé, ou pourquoi pas (`raison`), et l'état lu avant.
fn calcul_json<'a>(
    cible: &'a Cible,
    lance: bool,
    etat: Option<&'a str>,
    raison: Option<&'a str>,
) -> Evenement<'a> {
    Evenement::Calcul {
        participation: cible.participation.as_str(),
        api: &cible.api,
        lance,
        etat_plateforme: etat,
        raison,
    }
}

/// Rien n'est lancé, d'après l'état lu `avant` : le dire, et rendre le code. `None` : la
/// décision est de lancer.
pub(crate) fn sans_lancer(
    m: ModeSortie,
    cible: &Cible,
    decision: AvantCalcul,
    avant: &EtatParticipation,
) -> Result<Option<CodeSortie>> {
    let t = avant.traitement.as_ref();
    let etat = t.map(|t| t.etat.nom().to_owned());
    let phrase = phrase_etat(t, crate::traitement::maintenant());
    let traiter = || cible.commande("traiter");
    let suivre = cible.commande("traitement").arg("--attendre").to_string();
    let nom = majuscule(&cible.nom());
    let (raison, texte, suite, code) = match decision {
        AvantCalcul::DejaEnCours => (
            "deja_en_cours",
            format!("{nom} : {phrase} ; rien n'a été relancé."),
            ("Pour le suivre :", suivre.clone()),
            CodeSortie::Succes,
        ),
        AvantCalcul::Reessai => (
            "reessai",
            format!("{nom} : {phrase} ; rien n'a été relancé."),
            ("Pour le suivre :", suivre),
            CodeSortie::Succes,
        ),
        AvantCalcul::DejaFini => (
            "deja_fini",
            format!(
                "{nom} : {phrase} ; rien n'a été relancé. Ses résultats : {} et {}. Un \
                 nouveau calcul remplacerait ces résultats.",
                commande("traitement"),
                commande("resultats")
            ),
            (
                "Pour recalculer quand même :",
                traiter().arg("--relancer").to_string(),
            ),
            CodeSortie::Succes,
        ),
        AvantCalcul::Arrete => (
            "arrete",
            format!(
                "{nom} : {phrase}, il y a plus d'un jour : le calcul semble arrêté. Rien \
                 n'a été relancé."
            ),
            (
                "Pour le relancer :",
                traiter().arg("--relancer").to_string(),
            ),
            CodeSortie::EchecsTransitoires,
        ),
        AvantCalcul::Inconnu => (
            "etat_inconnu",
            format!("{nom} : {phrase}. Rien n'a été lancé."),
            (
                "Pour lancer le calcul quand même :",
                traiter().arg("--relancer").to_string(),
            ),
            CodeSortie::EchecsTransitoires,
        ),
        AvantCalcul::Lancer | AvantCalcul::Relancer => return Ok(None),
    };
    if m.json {
        calcul_json(cible, false, etat.as_deref(), Some(raison)).ecrire()?;
    } else {
        ecrire(
            &mut crate::sortie::standard(),
            &texte,
            Some((suite.0, &suite.1)),
        )?;
    }
    Ok(Some(code))
}

/// Ce qu'a donné le lancement : le dire (code 0), ou l'erreur.
pub(crate) fn lancement(
    m: ModeSortie,
    cible: &Cible,
    moi: &Utilisateur,
    avant: &EtatParticipation,
    issue: Lancement,
) -> Result<CodeSortie> {
    let etat_avant = avant.traitement.as_ref().map(|t| t.etat.nom().to_owned());
    let etat_avant = etat_avant.as_deref();
    let suivre = cible.commande("traitement").arg("--attendre").to_string();
    match issue {
        Lancement::Lance { relu } => {
            if m.json {
                calcul_json(cible, true, etat_avant, None).ecrire()?;
            } else if !m.silencieux {
                let confirme = if relu {
                    " (réponse perdue, lancement confirmé en relisant la plateforme)"
                } else {
                    ""
                };
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!("Calcul lancé pour la {}{confirme}.", cible.nom()),
                    Some(("Pour le suivre :", &suivre)),
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        // Sa réponse (« Already … ») n'est pas montrée telle quelle.
        Lancement::DejaEnCours { en_cours } => {
            let etat = if en_cours { "en cours" } else { "planifié" };
            if m.json {
                calcul_json(cible, false, etat_avant, Some("deja_en_cours")).ecrire()?;
            } else {
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!(
                        "{} : la plateforme répond que son calcul est déjà {etat} ; rien n'a \
                         été relancé.",
                        majuscule(&cible.nom())
                    ),
                    Some(("Pour le suivre :", &suivre)),
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        Lancement::JetonRefuse => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into())
        }
        Lancement::Interrompu => Err(interrompu()),
        Lancement::Interdit => {
            let la_sienne = avant.observateur.as_ref().is_some_and(|o| o.id == moi.id);
            let pourquoi = if la_sienne {
                "elle est pourtant la vôtre : votre compte n'a peut-être pas (ou plus) les droits \
                 d'observateur sur la plateforme ; écrivez à ses gestionnaires"
                    .to_owned()
            } else {
                format!(
                    "seul son observateur le peut, et cette participation est {}",
                    a_qui(avant)
                )
            };
            Err(ErreurAvecCode::nouveau(
                CodeSortie::RefusDefinitifs,
                format!(
                    "la plateforme refuse de lancer le calcul de la {} (403) : {pourquoi} ; rien \
                     n'a été lancé",
                    cible.nom()
                ),
            )
            .into())
        }
        Lancement::Refuse { statut, detail } => Err(ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "la plateforme refuse de lancer le calcul de la {} ({statut} : {}) ; rien \
                 n'a été lancé",
                cible.nom(),
                neutraliser(&detail)
            ),
        )
        .into()),
        Lancement::Incertain(Some(e)) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "le lancement du calcul est resté sans réponse, et la plateforme ne \
                 montre pas de nouveau calcul ({}) : vérifiez dans quelques minutes, \
                 {}, avant de relancer",
                phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()),
                cible.commande("traitement")
            ),
        )
        .into()),
        Lancement::Incertain(None) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "le lancement du calcul est resté sans réponse, et la plateforme n'a pas \
                 pu être relue : vérifiez dans quelques minutes, {}, \
                 avant de relancer (un nouveau calcul efface les données déjà produites)",
                cible.commande("traitement")
            ),
        )
        .into()),
        Lancement::Echoue(pourquoi) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!("le calcul n'a pas été lancé : {pourquoi}"),
        )
        .into()),
    }
}

// ------------------------------------------------------------------------ vigie resultats

/// Ce qu'une erreur de téléchargement dit, en français.
pub(crate) fn erreur_resultat(quoi: &str, e: Echec) -> anyhow::Error {
    match e {
        Echec::Plateforme(ReponseApi::Refuse { statut: 401, .. }) => {
            ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into()
        }
        Echec::Plateforme(r @ ReponseApi::Refuse { statut: 403, .. }) => ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!(
                "{quoi} : {} ; seul l'observateur de la participation peut lire ses résultats",
                crate::depot::vigiechiro::participation::pas_de_reponse_utile(&r)
            ),
        )
        .into(),
        Echec::Plateforme(r) => ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "{quoi} : {}",
                crate::depot::vigiechiro::participation::pas_de_reponse_utile(&r)
            ),
        )
        .into(),
        Echec::Stockage(r) => ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "{quoi} : le stockage de la plateforme n'a pas rendu le fichier ({}) ; relancez \
                 la commande plus tard (une nouvelle adresse de lecture sera demandée), rien n'a \
                 été écrit",
                neutraliser(r.detail().unwrap_or("sans détail"))
            ),
        )
        .into(),
        Echec::Local(m) => {
            ErreurAvecCode::nouveau(CodeSortie::Usage, format!("{quoi} : {}", neutraliser(&m)))
                .into()
        }
    }
}

/// Un fichier écrit (`quoi` : `csv` ou `journal`), dit à l'utilisateur.
pub(crate) fn annoncer_fichier(
    m: ModeSortie,
    cible: &Cible,
    quoi: &str,
    t: &Telecharge,
) -> Result<()> {
    if m.json {
        Evenement::Resultat {
            participation: cible.participation.as_str(),
            fichier: quoi,
            chemin: &t.chemin.display().to_string(),
            octets: t.octets,
        }
        .ecrire()?;
        return Ok(());
    }
    let libelle = if quoi == "csv" {
        "CSV des observations"
    } else {
        "Journal du calcul"
    };
    ecrire(
        &mut crate::sortie::standard(),
        &format!(
            "{libelle} écrit : {} ({}).",
            neutraliser(&t.chemin.display().to_string()),
            octets_lisibles(t.octets)
        ),
        None,
    )?;
    Ok(())
}

/// Le CSV écrit vient d'un calcul précédent (celui en cours n'est pas fini : `phrase`).
pub(crate) fn csv_d_un_calcul_precedent(m: ModeSortie, phrase: Option<&str>) {
    if !m.json && !m.silencieux {
        avertir(&format!(
            "Attention : ce CSV vient d'un calcul précédent ({}).",
            phrase.unwrap_or("")
        ));
    }
}

/// Le CSV n'est pas sur la plateforme : dire pourquoi, et quoi faire. Code 1 (3 si le calcul
/// est en erreur).
pub(crate) fn csv_absent(
    m: ModeSortie,
    cible: &Cible,
    etat: Option<&EtatParticipation>,
    phrase: Option<&str>,
) -> Result<CodeSortie> {
    let t = etat.and_then(|e| e.traitement.as_ref());
    let (message, code) = match t.map(|t| &t.etat) {
        Some(EtatCalcul::Fini) => (
            format!(
                "{} : {}, mais la plateforme n'a pas (encore) le CSV des observations : elle le \
                 produit après le calcul si elle est réglée pour, sinon à la demande. \
                 Demandez-le (il vous sera aussi envoyé par courriel) : {}, puis relancez \
                 {} dans quelques minutes",
                cible.nom(),
                phrase.unwrap_or("calcul fini"),
                cible.commande("resultats").arg("--demander-csv"),
                cible.commande("resultats")
            ),
            CodeSortie::EchecsTransitoires,
        ),
        Some(EtatCalcul::Erreur) => (
            format!(
                "pas de résultats pour la {} : {} ; pour relancer le calcul : {}",
                cible.nom(),
                phrase.unwrap_or("calcul en erreur"),
                cible.commande("traiter")
            ),
            CodeSortie::RefusDefinitifs,
        ),
        None if etat.is_some() => (
            format!(
                "pas encore de résultats pour la {} : aucun calcul n'a été lancé ; pour le \
                 lancer : {}",
                cible.nom(),
                cible.commande("traiter")
            ),
            CodeSortie::EchecsTransitoires,
        ),
        _ => (
            format!(
                "pas encore de résultats pour la {} ({}) : pour attendre la fin du calcul, \
                 {}",
                cible.nom(),
                phrase.unwrap_or("état du calcul inconnu"),
                cible.commande("traitement").arg("--attendre")
            ),
            CodeSortie::EchecsTransitoires,
        ),
    };
    if m.json {
        super::Evenement::Erreur {
            code: code as i32,
            message: &message,
            nuits: &[],
        }
        .ecrire()?;
    }
    let _ = writeln!(
        crate::sortie::erreur(),
        "erreur : {}",
        neutraliser(&message)
    );
    Ok(code)
}

/// Pas de journal du calcul à télécharger : `existe` dit s'il est désigné (mais pas
/// disponible) ou s'il n'existe pas encore. Code 1.
pub(crate) fn journal_absent(cible: &Cible, existe: bool) -> CodeSortie {
    if existe {
        avertir(&format!(
            "Le journal du calcul de la {} n'est pas disponible sur la plateforme.",
            cible.nom()
        ));
    } else {
        avertir(&format!(
            "Pas de journal du calcul pour la {} : il n'existe qu'après un calcul réussi.",
            cible.nom()
        ));
    }
    CodeSortie::EchecsTransitoires
}

/// Ce qu'a donné `--demander-csv` : le dire (code 0), ou l'erreur.
pub(crate) fn demande_csv(m: ModeSortie, cible: &Cible, issue: DemandeCsv) -> Result<CodeSortie> {
    match issue {
        DemandeCsv::Demandee => {
            if m.json {
                Evenement::CsvDemande {
                    participation: cible.participation.as_str(),
                }
                .ecrire()?;
            } else {
                ecrire(
                    &mut crate::sortie::standard(),
                    &format!(
                        "CSV des observations demandé pour la {} : la plateforme le produit et \
                         vous l'envoie par courriel.",
                        cible.nom()
                    ),
                    Some((
                        "Pour le télécharger, dans quelques minutes :",
                        &cible.commande("resultats").to_string(),
                    )),
                )?;
            }
            Ok(CodeSortie::Succes)
        }
        DemandeCsv::Interrompue => Err(interrompu()),
        DemandeCsv::JetonRefuse => {
            Err(ErreurAvecCode::nouveau(CodeSortie::RefusDefinitifs, jeton_refuse()).into())
        }
        DemandeCsv::Incertaine => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!(
                "la demande du CSV est restée sans réponse : elle a pu aboutir (vous recevriez \
                 alors un courriel) ; {} dans quelques minutes dira si le CSV est là",
                cible.commande("resultats")
            ),
        )
        .into()),
        DemandeCsv::Refusee(pourquoi) => Err(ErreurAvecCode::nouveau(
            CodeSortie::RefusDefinitifs,
            format!("le CSV n'a pas été demandé : {pourquoi}"),
        )
        .into()),
        DemandeCsv::Echouee(pourquoi) => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            format!("le CSV n'a pas été demandé : {pourquoi}"),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majuscule_initiale() {
        assert_eq!(majuscule("participation x"), "Participation x");
        assert_eq!(majuscule(""), "");
    }
}
