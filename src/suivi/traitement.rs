//! Ce que l'utilisateur voit après le dépôt : l'état du calcul en français, le bilan des
//! espèces, les relevés de `--attendre`, et leurs lignes JSON.
//!
//! Les dates sont dites à l'heure locale (`TZ` respecté), comme un participant les lit :
//! « planifié le 21 juin à 23 h 40 », « en cours depuis 12 min ». Tout texte venu de la
//! plateforme (trace d'erreur, noms de taxons, pseudo) est neutralisé. Chaque ligne tient dans
//! 80 colonnes.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{Datelike, TimeZone, Timelike};

use super::Evenement;
use super::evenement::{BilanTaxons, TaxonJson};
use super::format::{neutraliser, pluriel, replier};
use crate::horodatage::InstantUtc;
use crate::traitement::taxons::{CacheTaxons, NomsTaxon};
use crate::traitement::{
    AnnoncesReleve, Bilan, EtatCalcul, EtatParticipation, LigneBilan, Releve, Traitement,
};

const MOIS: [&str; 12] = [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
];

/// Largeur des lignes du bilan.
const COLONNES: usize = 80;

/// « le 21 juin à 23 h 40 » dans le fuseau donné ; l'année n'est dite que si elle n'est pas
/// celle de `maintenant`.
pub(crate) fn date_dans<Z: TimeZone>(
    instant: InstantUtc,
    maintenant: InstantUtc,
    fuseau: &Z,
) -> String {
    let local = |i: InstantUtc| {
        chrono::DateTime::from_timestamp(i.secondes(), 0).map(|d| d.with_timezone(fuseau))
    };
    let (Some(d), Some(m)) = (local(instant), local(maintenant)) else {
        return instant.iso();
    };
    let annee = if d.year() == m.year() {
        String::new()
    } else {
        format!(" {}", d.year())
    };
    let jour = match d.day() {
        1 => "1er".to_owned(),
        j => j.to_string(),
    };
    // Des espaces insécables : une date ne se coupe pas en fin de ligne.
    format!(
        "le {jour}\u{a0}{}{annee} à {}\u{a0}h\u{a0}{:02}",
        MOIS[d.month0() as usize],
        d.hour(),
        d.minute()
    )
}

/// « le 21 juin à 23 h 40 », à l'heure locale de l'ordinateur.
pub(crate) fn date_locale(instant: InstantUtc, maintenant: InstantUtc) -> String {
    date_dans(instant, maintenant, &chrono::Local)
}

/// Une durée écoulée, courte : « moins d'une minute », « 12 min », « 2 h 05 », « 3 jours ».
pub(crate) fn duree_ecoulee(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => "moins d'une minute".to_owned(),
        60..3600 => format!("{}\u{a0}min", s / 60),
        3600..86_400 => format!("{}\u{a0}h\u{a0}{:02}", s / 3600, (s % 3600) / 60),
        _ => pluriel(s / 86_400, "jour", "jours"),
    }
}

/// Une commande à lancer ensuite, annoncée par `intro` (« Pour le suivre : ») : sur la même
/// ligne si elle tient dans 80 colonnes, sinon seule sur la suivante, en retrait (jamais
/// coupée : elle se copie d'un bloc).
pub(crate) fn suggestion(intro: &str, commande: &str) -> Vec<String> {
    let une = format!("{intro} {commande}");
    if une.chars().count() <= COLONNES {
        vec![une]
    } else {
        let mut l = replier(intro, COLONNES);
        l.push(format!("  {commande}"));
        l
    }
}

/// La dernière ligne utile d'une trace d'erreur (celle qui dit l'exception), neutralisée et
/// courte.
pub(crate) fn resume_erreur(message: &str) -> String {
    let ligne = message
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("");
    let ligne = neutraliser(ligne);
    if ligne.chars().count() > 160 {
        let mut court: String = ligne.chars().take(159).collect();
        court.push('…');
        court
    } else {
        ligne.into_owned()
    }
}

/// L'état du calcul en une phrase (sans majuscule ni point) : « calcul planifié le 21 juin à
/// 23 h 40 », « calcul en cours depuis 12 min (commencé le …) », « calcul fini le … »,
/// « calcul en erreur le … : `<exception>` », « un essai a échoué le … (…) : nouvel essai n° 2
/// à venir », « aucun calcul lancé ».
pub(crate) fn phrase_etat(t: Option<&Traitement>, maintenant: InstantUtc) -> String {
    let date = |i: Option<InstantUtc>| {
        i.map(|i| format!(" {}", date_locale(i, maintenant)))
            .unwrap_or_default()
    };
    let Some(t) = t else {
        return "aucun calcul lancé".to_owned();
    };
    match &t.etat {
        EtatCalcul::Planifie => format!("calcul planifié{}", date(t.date_planification)),
        EtatCalcul::EnCours => match t.date_debut {
            Some(debut) => {
                let ecoule = (maintenant.secondes() - debut.secondes()).max(0) as u64;
                format!(
                    "calcul en cours depuis {} (commencé {})",
                    duree_ecoulee(Duration::from_secs(ecoule)),
                    date_locale(debut, maintenant)
                )
            }
            None => "calcul en cours".to_owned(),
        },
        EtatCalcul::Fini => format!("calcul fini{}", date(t.date_fin)),
        EtatCalcul::Erreur => {
            let cause = t
                .message
                .as_deref()
                .map(resume_erreur)
                .filter(|m| !m.is_empty())
                .map(|m| format!(" : {m}"))
                .unwrap_or_default();
            format!("calcul en erreur{}{cause}", date(t.date_fin))
        }
        EtatCalcul::Retry => {
            let cause = t
                .message
                .as_deref()
                .map(resume_erreur)
                .filter(|m| !m.is_empty())
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            let numero = t
                .retry
                .map(|n| format!(" n° {}", n.saturating_add(1)))
                .unwrap_or_default();
            format!(
                "un essai du calcul a échoué{}{cause} : nouvel essai{numero} à venir, la \
                 plateforme le lancera d'elle-même",
                date(t.date_fin)
            )
        }
        EtatCalcul::Autre(e) => format!("état du calcul inconnu de vigie : « {} »", neutraliser(e)),
    }
}

/// Le nom d'un taxon à l'écran : « Pipistrellus pipistrellus (Pippip) », ou son identifiant.
fn nom_affiche(noms: Option<&NomsTaxon>, ligne: &LigneBilan) -> String {
    match noms {
        Some(n) if !n.long.is_empty() && !n.court.is_empty() && n.long != n.court => {
            format!("{} ({})", neutraliser(&n.long), neutraliser(&n.court))
        }
        Some(n) if !n.long.is_empty() => neutraliser(&n.long).into_owned(),
        Some(n) if !n.court.is_empty() => neutraliser(&n.court).into_owned(),
        _ => match &ligne.taxon.id {
            Some(id) => format!("taxon {id}"),
            None => "taxon inconnu".to_owned(),
        },
    }
}

fn contacts(l: &LigneBilan) -> String {
    if l.contacts_min == l.contacts_max {
        pluriel(l.contacts_max, "contact", "contacts")
    } else {
        format!(
            "{} à {}",
            l.contacts_min,
            pluriel(l.contacts_max, "contact", "contacts")
        )
    }
}

/// Les ordres du bilan, dans l'ordre où on les montre : les chauves-souris d'abord.
fn ordres(b: &Bilan) -> [(&'static str, &'static str, &[LigneBilan]); 3] {
    [
        ("chiropteres", "Chauves-souris", &b.chiropteres),
        ("orthopteres", "Orthoptères", &b.orthopteres),
        ("autre", "Autres espèces", &b.autre),
    ]
}

/// Les lignes d'un ordre, les plus contactés d'abord.
fn triees(
    lignes: &[LigneBilan],
    nom: impl Fn(&LigneBilan) -> String,
) -> Vec<(String, &LigneBilan)> {
    let mut v: Vec<(String, &LigneBilan)> = lignes.iter().map(|l| (nom(l), l)).collect();
    v.sort_by(|(na, a), (nb, b)| {
        b.contacts_max
            .cmp(&a.contacts_max)
            .then(b.contacts_min.cmp(&a.contacts_min))
            .then(na.cmp(nb))
    });
    v
}

/// Le bilan des espèces, pour l'écran : par ordre (chauves-souris d'abord), chaque espèce et
/// ses contacts, puis les problèmes. Les noms viennent de `taxons` (la liste de la plateforme
/// `api`, en cache), à défaut du bilan lui-même.
pub(crate) fn lignes_bilan(b: &Bilan, taxons: &CacheTaxons, api: &str) -> Vec<String> {
    let mut sortie = Vec::new();
    for (_, titre, lignes) in ordres(b) {
        if lignes.is_empty() {
            continue;
        }
        sortie.push(format!("{titre} :"));
        let nommees = triees(lignes, |l| {
            nom_affiche(taxons.nommer(api, &l.taxon).as_ref(), l)
        });
        for (nom, l) in nommees {
            let droite = contacts(l);
            // Deux espaces de retrait, au moins deux avant les contacts, 80 colonnes.
            let place = COLONNES.saturating_sub(4 + droite.chars().count());
            let nom = if nom.chars().count() > place {
                let mut c: String = nom.chars().take(place.saturating_sub(1)).collect();
                c.push('…');
                c
            } else {
                nom
            };
            let blanc = COLONNES - 2 - nom.chars().count() - droite.chars().count();
            sortie.push(format!("  {nom}{}{droite}", " ".repeat(blanc.clamp(2, 40))));
        }
    }
    if sortie.is_empty() {
        sortie.push("Aucune espèce relevée.".to_owned());
    }
    if b.problemes > 0 {
        sortie.push(format!(
            "{} signalée{} avec un problème par le calcul.",
            pluriel(b.problemes, "séquence", "séquences"),
            if b.problemes > 1 { "s" } else { "" }
        ));
    }
    sortie
}

/// Le bilan en JSON : par ordre, chaque taxon (identifiant, noms), ses contacts.
pub(crate) fn bilan_json(b: &Bilan, taxons: &CacheTaxons, api: &str) -> BilanTaxons {
    let [chiropteres, orthopteres, autre] = ordres(b).map(|(_, _, lignes)| {
        lignes
            .iter()
            .map(|l| {
                let noms = taxons.nommer(api, &l.taxon);
                let nom = |n: &str| Some(n.to_owned()).filter(|s| !s.is_empty());
                TaxonJson {
                    taxon: l.taxon.id.as_ref().map(|i| i.as_str().to_owned()),
                    libelle_court: noms.as_ref().and_then(|n| nom(&n.court)),
                    libelle_long: noms.as_ref().and_then(|n| nom(&n.long)),
                    contacts_min: l.contacts_min,
                    contacts_max: l.contacts_max,
                }
            })
            .collect()
    });
    BilanTaxons {
        problemes: b.problemes,
        chiropteres,
        orthopteres,
        autre,
    }
}

/// L'événement `traitement` : l'état du calcul (`etat` : `null` si aucun calcul n'a été
/// lancé), ses dates, son message, et le bilan une fois fini.
pub(crate) fn traitement_json<'a>(
    participation: &'a str,
    nuit: Option<&'a str>,
    api: &'a str,
    e: &'a EtatParticipation,
    taxons: &CacheTaxons,
) -> Evenement<'a> {
    let t = e.traitement.as_ref();
    let iso = |i: Option<InstantUtc>| i.map(|i| i.iso());
    Evenement::Traitement {
        participation,
        nuit,
        api,
        etat: t.map(|t| t.etat.nom()),
        retry: t.and_then(|t| t.retry),
        date_planification: iso(t.and_then(|t| t.date_planification)),
        date_debut: iso(t.and_then(|t| t.date_debut)),
        date_fin: iso(t.and_then(|t| t.date_fin)),
        message: t.and_then(|t| t.message.as_deref()),
        bilan: match (&e.bilan, t.map(|t| &t.etat)) {
            (Some(b), Some(EtatCalcul::Fini)) => Some(bilan_json(b, taxons, api)),
            _ => None,
        },
    }
}

/// Comment montrer les relevés de `--attendre`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModeReleves {
    /// Un indicateur sur la sortie d'erreur (un terminal), qui décompte chaque seconde.
    Indicateur,
    /// Une ligne par relevé sur la sortie d'erreur.
    Lignes,
    /// Une ligne JSON `releve` par relevé sur la sortie standard.
    Json,
    /// Rien (`-q`).
    Muet,
}

impl ModeReleves {
    /// D'après `--json`, `-q` et `--progression` : l'indicateur là où un passage dessinerait
    /// ses barres (la sortie d'erreur est un terminal qui sait les redessiner).
    pub(crate) fn choisir(json: bool, silencieux: bool, progression: super::Progression) -> Self {
        if json {
            ModeReleves::Json
        } else if silencieux {
            ModeReleves::Muet
        } else if super::decider(false, false, progression, super::erreur_est_un_terminal())
            == (super::Affichage::Barres { forcees: false })
        {
            ModeReleves::Indicateur
        } else {
            ModeReleves::Lignes
        }
    }
}

/// Les annonces des relevés d'une participation.
pub(crate) struct AnnoncesReleves {
    mode: ModeReleves,
    participation: String,
    /// La nuit de saison, comme on la nomme (`21/06 A1`).
    nuit: Option<String>,
    indicateur: Option<indicatif::ProgressBar>,
    /// La phrase du dernier relevé, que le décompte complète.
    phrase: Mutex<String>,
}

impl AnnoncesReleves {
    pub(crate) fn nouvelles(
        mode: ModeReleves,
        participation: &str,
        nuit: Option<&str>,
    ) -> AnnoncesReleves {
        let indicateur = (mode == ModeReleves::Indicateur).then(|| {
            let pb = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {wide_msg}") {
                pb.set_style(style);
            }
            pb.enable_steady_tick(Duration::from_millis(200));
            super::ecran::tenir_indicateur(&pb);
            pb
        });
        AnnoncesReleves {
            mode,
            participation: participation.to_owned(),
            nuit: nuit.map(str::to_owned),
            indicateur,
            phrase: Mutex::new(String::new()),
        }
    }

    fn phrase_du_releve(releve: &Releve) -> String {
        match releve {
            Releve::Lu(e) => phrase_etat(e.traitement.as_ref(), crate::traitement::maintenant()),
            Releve::Manque(pourquoi) => format!("relevé manqué ({})", neutraliser(pourquoi)),
        }
    }
}

impl AnnoncesReleve for AnnoncesReleves {
    fn releve(&self, releve: &Releve, prochain: Option<Duration>) {
        let phrase = match &self.nuit {
            Some(n) => format!("{n} : {}", Self::phrase_du_releve(releve)),
            None => Self::phrase_du_releve(releve),
        };
        *self.phrase.lock().unwrap_or_else(|e| e.into_inner()) = phrase.clone();
        let suite =
            prochain.map(|p| format!("prochain relevé dans {}", super::format::reste_lisible(p)));
        match self.mode {
            ModeReleves::Muet => {}
            ModeReleves::Json => {
                let (etat, manque, detail) = match releve {
                    Releve::Lu(e) => (
                        e.traitement.as_ref().map(|t| t.etat.nom().to_owned()),
                        false,
                        None,
                    ),
                    Releve::Manque(d) => (None, true, Some(d.clone())),
                };
                let _ = super::Evenement::Releve {
                    participation: &self.participation,
                    nuit: self.nuit.as_deref(),
                    etat: etat.as_deref(),
                    manque,
                    detail: detail.as_deref(),
                    prochain_releve_s: prochain.map(|p| p.as_secs_f64()),
                }
                .ecrire();
            }
            ModeReleves::Lignes => {
                let ligne = match suite {
                    Some(s) => format!("~ {phrase} ; {s}"),
                    None => format!("~ {phrase}"),
                };
                let mut texte = String::new();
                for l in replier(&ligne, COLONNES) {
                    texte.push_str(&l);
                    texte.push('\n');
                }
                let _ = super::ecran::ecrire_erreur(texte.as_bytes());
            }
            ModeReleves::Indicateur => {
                if let Some(pb) = &self.indicateur {
                    pb.set_message(match suite {
                        Some(s) => format!("{phrase} · {s}"),
                        None => phrase,
                    });
                }
            }
        }
    }

    /// Efface l'indicateur (avant d'écrire le résultat).
    fn terminer(&self) {
        if let Some(pb) = &self.indicateur {
            super::ecran::lacher_indicateur();
            pb.finish_and_clear();
        }
    }

    fn decompte(&self, reste: Duration) {
        if let Some(pb) = &self.indicateur {
            let phrase = self
                .phrase
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            pb.set_message(format!(
                "{phrase} · prochain relevé dans {}",
                super::format::reste_lisible(reste)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::destination::IdObjet;
    use crate::transport::vigiechiro::TaxonDuBilan;
    use serde_json::{Value, json};

    fn instant(iso: &str) -> InstantUtc {
        InstantUtc::depuis_iso(iso).unwrap()
    }

    #[test]
    fn dates_et_durees_en_francais() {
        let paris = chrono::FixedOffset::east_opt(2 * 3600).unwrap();
        let m = instant("2026-06-22T08:00:00Z");
        assert_eq!(
            date_dans(instant("2026-06-21T21:40:00Z"), m, &paris),
            "le 21\u{a0}juin à 23\u{a0}h\u{a0}40"
        );
        assert_eq!(
            date_dans(instant("2026-06-21T22:05:00Z"), m, &paris),
            "le 22\u{a0}juin à 0\u{a0}h\u{a0}05"
        );
        assert_eq!(
            date_dans(instant("2025-08-01T10:00:00Z"), m, &paris),
            "le 1er\u{a0}août 2025 à 12\u{a0}h\u{a0}00"
        );
        assert_eq!(duree_ecoulee(Duration::from_secs(20)), "moins d'une minute");
        assert_eq!(
            suggestion("Pour le suivre :", "vigie traitement --attendre"),
            ["Pour le suivre : vigie traitement --attendre"]
        );
        let longue = "vigie traitement --participation 64a1b2c3d4e5f60718293d01 --attendre";
        assert_eq!(
            suggestion("Pour attendre la fin du calcul :", longue),
            [
                "Pour attendre la fin du calcul :".to_owned(),
                format!("  {longue}")
            ]
        );
        assert_eq!(
            duree_ecoulee(Duration::from_secs(12 * 60 + 5)),
            "12\u{a0}min"
        );
        assert_eq!(
            duree_ecoulee(Duration::from_secs(2 * 3600 + 5 * 60)),
            "2\u{a0}h\u{a0}05"
        );
        assert_eq!(duree_ecoulee(Duration::from_secs(3 * 86_400)), "3 jours");
        assert_eq!(
            resume_erreur(
                "Traceback (most recent call last):\n  File \"x\"\nRuntimeError: \u{1b}[2J boum\n\n"
            ),
            "RuntimeError: \\u{1b}[2J boum"
        );
    }

    fn ligne(id: &str, court: Option<&str>, long: Option<&str>, min: u64, max: u64) -> LigneBilan {
        LigneBilan {
            taxon: TaxonDuBilan {
                id: IdObjet::analyser(id),
                libelle_court: court.map(str::to_owned),
                libelle_long: long.map(str::to_owned),
            },
            contacts_min: min,
            contacts_max: max,
        }
    }

    #[test]
    fn bilan_chauves_souris_d_abord_et_dans_80_colonnes() {
        let dossier = tempfile::tempdir().unwrap();
        let taxons = CacheTaxons::ouvrir(dossier.path().join("t.json"));
        let b = Bilan {
            autre: vec![ligne(
                "5b1e0a1c2d3e4f5061728330",
                Some("Stralu"),
                Some("Strix aluco"),
                1,
                1,
            )],
            orthopteres: vec![],
            chiropteres: vec![
                ligne(
                    "5b1e0a1c2d3e4f5061728311",
                    Some("Pipkuh"),
                    Some("Pipistrellus kuhlii"),
                    0,
                    2,
                ),
                ligne(
                    "5b1e0a1c2d3e4f5061728310",
                    Some("Pippip"),
                    Some(&"Pipistrellus pipistrellus très long nom ".repeat(4)),
                    12,
                    15,
                ),
                ligne("5b1e0a1c2d3e4f5061728312", None, None, 3, 3),
            ],
            problemes: 2,
        };
        let l = lignes_bilan(&b, &taxons, "api");
        assert_eq!(l[0], "Chauves-souris :");
        assert!(
            l[1].contains("Pipistrellus pipistrellus") && l[1].ends_with("12 à 15 contacts"),
            "{l:?}"
        );
        assert!(
            l[2].starts_with("  taxon 5b1e0a1c2d3e4f5061728312") && l[2].ends_with("3 contacts"),
            "{l:?}"
        );
        assert!(
            l[3].starts_with("  Pipistrellus kuhlii (Pipkuh)") && l[3].ends_with("0 à 2 contacts")
        );
        assert_eq!(l[4], "Autres espèces :");
        assert!(l[5].ends_with("1 contact"));
        assert_eq!(
            l[6],
            "2 séquences signalées avec un problème par le calcul."
        );
        for ligne in &l {
            assert!(ligne.chars().count() <= 80, "{ligne}");
        }
        let j = serde_json::to_value(bilan_json(&b, &taxons, "api")).unwrap();
        assert_eq!(j["chiropteres"][0]["libelle_court"], "Pipkuh");
        assert_eq!(j["chiropteres"][2]["libelle_court"], Value::Null);
        assert_eq!(j["orthopteres"], json!([]));
        assert_eq!(
            lignes_bilan(&Bilan::default(), &taxons, "api"),
            ["Aucune espèce relevée."]
        );
    }
}
