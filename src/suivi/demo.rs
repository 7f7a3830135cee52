//! Ce que disent `vigie bac-a-sable` (où se brancher, prêt à coller ; l'arrêt) et `vigie demo`
//! (la saison fabriquée, ses pannes, la fin, ce qui reste avec `--garder`), en texte ou en
//! lignes JSON. Les valeurs viennent de `commandes/sable.rs` et `commandes/demo.rs`.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use chrono::NaiveDate;
use serde_json::json;
use vigie_bac_a_sable::{CLE_ACCES, JETON, PARTICIPATION, POINTS_SITE, REGION, SECRET, SITE};

use super::Evenement;
use super::format::octets_lisibles;
use super::saison::jour_court;
use crate::plateforme::Systeme;
use crate::plateforme::conseil::{commande, effacer_le_dossier, variables_a_poser};
use crate::sortie::CodeSortie;

/// Où se brancher sur le bac à sable qui vient de démarrer.
pub(crate) struct Branchement<'a> {
    pub(crate) api: &'a str,
    pub(crate) endpoint: &'a str,
    pub(crate) compartiment: &'a str,
    /// Le dossier du bac à sable, et s'il est gardé d'un lancement à l'autre (`--dossier`).
    pub(crate) dossier: &'a Path,
    pub(crate) garde: bool,
    /// Les données S3 (un sous-dossier de `dossier`) et la base d'essai (`VIGIE_BASE`).
    pub(crate) donnees_s3: &'a Path,
    pub(crate) base: &'a Path,
    pub(crate) pannes: &'a [String],
    /// Les variables d'environnement qui branchent un client sur le bac à sable.
    pub(crate) variables: &'a [(&'static str, String)],
}

/// Le nom d'un chemin, pour le dire sous son dossier.
fn nom(chemin: &Path) -> String {
    chemin
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Dit où se brancher : une ligne JSON (`--json`), ou un résumé et des `export` prêts à coller.
pub(crate) fn annoncer_bac(json: bool, b: &Branchement<'_>) -> Result<()> {
    if json {
        let env: serde_json::Map<String, serde_json::Value> = b
            .variables
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        Evenement::Pret {
            api: b.api,
            endpoint: b.endpoint,
            compartiment: b.compartiment,
            cle_acces: CLE_ACCES,
            secret: SECRET,
            region: REGION,
            jeton: JETON,
            participation: PARTICIPATION,
            site: SITE,
            points: &POINTS_SITE,
            dossier: b.dossier,
            donnees_s3: b.donnees_s3,
            base: b.base,
            dossier_garde: b.garde,
            pannes: b.pannes,
            env,
        }
        .ecrire()?;
        return Ok(());
    }
    let mut s = crate::sortie::standard();
    ce_qui_tourne(&mut s, b)?;
    comment_s_y_brancher(&mut s, b)?;
    s.flush()?;
    Ok(())
}

fn ce_qui_tourne(s: &mut impl Write, b: &Branchement<'_>) -> Result<()> {
    let devenir = if b.garde {
        "gardé d'un lancement à l'autre ; l'état de la plateforme, lui, repart à zéro"
    } else {
        "effacé à l'arrêt ; --dossier D pour le garder"
    };
    writeln!(
        s,
        "Bac à sable vigie : plateforme Vigie-Chiro locale et S3 sur 127.0.0.1 (Ctrl-C pour arrêter)."
    )?;
    writeln!(s)?;
    writeln!(s, "  API Vigie-Chiro    {}", b.api)?;
    writeln!(s, "  jeton d'essai      {JETON}")?;
    writeln!(
        s,
        "  participation      {PARTICIPATION} (site {SITE}, points {})",
        POINTS_SITE.join(", ")
    )?;
    writeln!(s, "  point d'accès S3   {}", b.endpoint)?;
    writeln!(s, "  compartiment       {}", b.compartiment)?;
    writeln!(
        s,
        "  identifiants S3    clé {CLE_ACCES}, secret {SECRET}, région {REGION}"
    )?;
    writeln!(
        s,
        "                     (identifiants de test publics : ce ne sont pas des secrets)"
    )?;
    writeln!(
        s,
        "  dossier            {} ({devenir})",
        b.dossier.display()
    )?;
    writeln!(
        s,
        "                     données S3 dans {}/, base d'essai {} (VIGIE_BASE)",
        nom(b.donnees_s3),
        nom(b.base)
    )?;
    if b.pannes.is_empty() {
        writeln!(
            s,
            "  pannes             aucune (--pannes SPEC pour en simuler)"
        )?;
    } else {
        for (i, p) in b.pannes.iter().enumerate() {
            let titre = if i == 0 { "pannes" } else { "" };
            writeln!(s, "  {titre:<18} {p}")?;
        }
    }
    Ok(())
}

fn comment_s_y_brancher(s: &mut impl Write, b: &Branchement<'_>) -> Result<()> {
    writeln!(s)?;
    writeln!(s, "Dans un autre terminal (réservé aux essais) :")?;
    for ligne in variables_a_poser(b.variables, Systeme::ICI) {
        writeln!(s, "{ligne}")?;
    }
    writeln!(s)?;
    writeln!(s, "Puis, par exemple :")?;
    writeln!(
        s,
        "  {}",
        commande("depot")
            .arg("MA_NUIT")
            .arg("--vers")
            .arg(format!("s3://{}/essai", b.compartiment))
    )?;
    writeln!(
        s,
        "  {}",
        commande("depot").args(["MA_NUIT", "--participation", PARTICIPATION])
    )?;
    writeln!(
        s,
        "  aws s3 ls s3://{}/ --recursive --endpoint-url {}",
        b.compartiment, b.endpoint
    )?;
    writeln!(
        s,
        "  rclone ls :s3:{} --s3-provider Other --s3-env-auth --s3-endpoint {}",
        b.compartiment, b.endpoint
    )?;
    Ok(())
}

/// Le bac à sable arrêté (Ctrl-C) ; `garde` : son dossier reste.
pub(crate) fn bac_arrete(garde: bool) -> Result<()> {
    let suite = if garde {
        "son dossier reste, pour le prochain lancement (--dossier)"
    } else {
        "son dossier est effacé"
    };
    writeln!(crate::sortie::erreur(), "Bac à sable arrêté ; {suite}.")?;
    Ok(())
}

/// Une nuit de la saison de démonstration, telle que la présentation la montre.
pub(crate) struct NuitPresentee<'a> {
    pub(crate) soiree: Option<NaiveDate>,
    pub(crate) point: &'a str,
    pub(crate) passage: u8,
    /// Les noms de ses séquences.
    pub(crate) noms: Vec<&'a str>,
    /// Créée sur le site web le lendemain, avec ce nombre de séquences déjà déposées.
    pub(crate) deja_deposees: Option<usize>,
}

impl NuitPresentee<'_> {
    /// `ven. 03/07  A1  Pass1  10 séquences, 22:04 → 01:37`.
    pub(crate) fn ligne(&self) -> String {
        let jour = self.soiree.map_or_else(String::new, jour_court);
        // L'heure d'une séquence, lue dans son nom (`…_20260703_220412_000.wav`).
        let heure = |nom: Option<&&str>| {
            nom.map_or_else(String::new, |q| {
                let n = q.len();
                format!("{}:{}", &q[n - 14..n - 12], &q[n - 12..n - 10])
            })
        };
        format!(
            "{jour}  {}  Pass{}  {:>2} séquences, {} → {}",
            self.point,
            self.passage,
            self.noms.len(),
            heure(self.noms.first()),
            heure(self.noms.last())
        )
    }
}

/// Ce que la démonstration présente avant le dépôt.
pub(crate) struct Presentation<'a> {
    pub(crate) graine: u64,
    pub(crate) dossier: &'a Path,
    pub(crate) garder: bool,
    pub(crate) saison: &'a Path,
    pub(crate) nuits: Vec<NuitPresentee<'a>>,
    pub(crate) octets: u64,
    pub(crate) api: &'a str,
    pub(crate) participation: &'a str,
    pub(crate) deja_deposees: usize,
    /// Les pannes programmées : leur règle (`--pannes`), et leur description (lignes).
    pub(crate) pannes: Vec<(String, &'a str)>,
}

/// La saison fabriquée, la plateforme, les pannes, puis la commande lancée ; en JSON,
/// l'événement `demo` ; rien en silence (`-q`).
pub(crate) fn presenter(json: bool, silencieux: bool, p: &Presentation<'_>) -> Result<()> {
    let sequences: usize = p.nuits.iter().map(|n| n.noms.len()).sum();
    if json {
        Evenement::Demo {
            graine: p.graine,
            dossier: p.dossier,
            garder: p.garder,
            saison: p.saison,
            nuits: p.nuits.len(),
            sequences,
            octets: p.octets,
            api: p.api,
            participation: p.participation,
            deja_deposees: p.deja_deposees,
            pannes: p.pannes.iter().map(|(r, _)| r.clone()).collect(),
        }
        .ecrire()?;
        return Ok(());
    }
    if silencieux {
        return Ok(());
    }
    let mut s = crate::sortie::erreur();
    writeln!(s, "Démonstration de vigie (graine {} ;", p.graine)?;
    writeln!(
        s,
        "pour la rejouer : {}).",
        commande("demo").args(["--graine", &p.graine.to_string()])
    )?;
    writeln!(
        s,
        "Une saison rapportée du terrain : {} nuits, {sequences} séquences WAV ({}),",
        p.nuits.len(),
        octets_lisibles(p.octets)
    )?;
    writeln!(s, "deux enregistreurs (PA1, PA2), site 640139 :")?;
    for n in &p.nuits {
        writeln!(s, "  {}", n.ligne())?;
        if let Some(deja) = n.deja_deposees {
            writeln!(
                s,
                "    créée sur le site web le lendemain, {deja} séquences déjà déposées"
            )?;
        }
    }
    writeln!(s, "dans {}", p.saison.display())?;
    writeln!(s, "Plateforme : Vigie-Chiro locale, {}", p.api)?;
    pannes_et_commande(&mut s, p)
}

fn pannes_et_commande(s: &mut impl Write, p: &Presentation<'_>) -> Result<()> {
    if p.pannes.is_empty() {
        writeln!(s, "Pannes : aucune (--sans-pannes).")?;
    } else {
        writeln!(s, "Pannes programmées :")?;
    }
    for (_, description) in &p.pannes {
        for (i, ligne) in description.lines().enumerate() {
            writeln!(s, "{}{ligne}", if i == 0 { "  " } else { "    " })?;
        }
    }
    writeln!(s)?;
    writeln!(s, "{}", commande("depot").chemin(p.saison).tapee())?;
    writeln!(
        s,
        "  (sans identifiant : site, point, passage et nuit sont lus dans les noms ;\n   \
         délais raccourcis pour la démonstration)"
    )?;
    Ok(())
}

/// La commande `vigie etat` que la démonstration lance après le dépôt.
pub(crate) fn annoncer_etat() -> Result<()> {
    writeln!(crate::sortie::erreur(), "\n{}", commande("etat").tapee())?;
    Ok(())
}

/// La fin de la démonstration (`code` : celui du dépôt), et ce que devient son dossier.
pub(crate) fn fin_de_demo(code: CodeSortie, sans_pannes: bool, garder: bool) -> Result<()> {
    let mut s = crate::sortie::erreur();
    match code {
        CodeSortie::Succes if sans_pannes => writeln!(
            s,
            "Démonstration réussie : chaque nuit est dans sa participation."
        )?,
        CodeSortie::Succes => writeln!(
            s,
            "Démonstration réussie : chaque nuit est dans sa participation,\n\
             malgré les pannes."
        )?,
        CodeSortie::Interrompu => writeln!(s, "Démonstration interrompue.")?,
        autre => writeln!(
            s,
            "Démonstration terminée avec le code {} (voir le bilan ci-dessus).",
            autre as i32
        )?,
    }
    if !garder {
        writeln!(
            s,
            "Le dossier temporaire est effacé (--garder pour le conserver)."
        )?;
    }
    Ok(())
}

/// `--garder` : où tout est resté (`saison` : le dossier des séquences, dans `dossier`), et
/// comment y revenir ; une ligne seulement en silence (`-q`).
pub(crate) fn ou_tout_est(silencieux: bool, dossier: &Path, saison: &str) -> Result<()> {
    let mut s = crate::sortie::erreur();
    if silencieux {
        writeln!(s, "Tout est resté dans {}.", dossier.display())?;
        return Ok(());
    }
    writeln!(s, "Tout est resté dans {} :", dossier.display())?;
    writeln!(s, "  {saison}/   les séquences de la saison (PA1/, PA2/)")?;
    writeln!(
        s,
        "  bac-a-sable/   ce que la plateforme a reçu (vigiechiro-donnees/)"
    )?;
    writeln!(s, "  vigie.sqlite   la base du dépôt, pour y revenir :")?;
    writeln!(
        s,
        "    {}",
        commande("etat")
            .arg("--base")
            .chemin(&dossier.join("vigie.sqlite"))
    )?;
    writeln!(
        s,
        "Effacez-le quand vous aurez fini : {}",
        effacer_le_dossier(dossier)
    )?;
    Ok(())
}
