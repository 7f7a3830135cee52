//! Le bilan de fin de passage, sur la sortie standard : pour l'humain, ou en JSON au contrat.
//!
//! Pourquoi : au petit matin, après une nuit de dépôt, la seule question est « est-ce parti, et
//! sinon que dois-je faire ? ». Le bilan y répond en quelques lignes : ce qui est déposé, ce qui
//! reste, les échecs regroupés par cause avec le geste qui les répare, ce qu'ont coûté et absorbé
//! les réessais, et la commande à lancer ensuite. Le bilan JSON est un contrat
//! (`schemas/vigie.schema.json`) : ses clés ne changent pas sans que les scripts le sachent.

use std::io::{self, Write};

use super::evenement::{ComptesBilan, DejaLa, Remplacement};
use super::format::{debit_lisible, duree_lisible, octets_lisibles, pluriel};
use super::{Evenement, liberer_terminal};
use crate::depot::Bilan;
pub(crate) use crate::depot::passages::{ArretPassages, FinDesPassages};
use crate::plateforme::conseil::commande;

/// Efface les barres s'il y en a, puis écrit le bilan sur la sortie standard. `page` :
/// l'adresse de la page web de la participation (jamais son identifiant seul) ; `suite` : la
/// commande à lancer s'il reste quelque chose ; `fin` : avec `--jusqu-au-bout`, combien de
/// passages et pourquoi ils se sont arrêtés (le bilan compte alors tous les passages).
pub(crate) fn afficher(
    b: &Bilan,
    page: Option<&str>,
    suite: Option<&str>,
    json: bool,
    fin: Option<&FinDesPassages>,
) -> io::Result<()> {
    liberer_terminal();
    if json {
        return Evenement::Bilan {
            comptes: comptes_bilan(b),
            passages: fin.map(|f| f.passages),
            arret: fin.map(|f| f.arret.as_str()),
        }
        .ecrire();
    }
    // Écrit d'abord en mémoire : sur un terminal, les lignes trop longues sont repliées à sa
    // largeur ; dans un tube ou un fichier, elles restent entières (une ligne par fait).
    let mut s: Vec<u8> = Vec::new();
    if let Some(f) = fin.filter(|f| f.arret == ArretPassages::DureeEcoulee) {
        writeln!(
            s,
            concat!(
                "Durée écoulée{} : plus de passage ; ",
                crate::sortie::sens_du_code_interrompu!(),
                "."
            ),
            f.limite
                .map(|l| format!(" ({})", duree_lisible(l)))
                .unwrap_or_default()
        )?;
    }
    ecrire_bilan(&mut s, b, page, suite, fin.map(|f| f.passages))?;
    let texte = String::from_utf8_lossy(&s);
    let mut sortie = crate::sortie::standard();
    match console::Term::stdout().size_checked() {
        Some((_, colonnes)) if std::io::IsTerminal::is_terminal(&io::stdout()) => {
            let largeur = usize::from(colonnes).saturating_sub(1);
            for ligne in texte.lines() {
                for morceau in super::format::replier(ligne, largeur) {
                    writeln!(sortie, "{morceau}")?;
                }
            }
        }
        _ => sortie.write_all(texte.as_bytes())?,
    }
    sortie.flush()
}

/// Les comptes du bilan JSON (`schemas/vigie.schema.json`), pour la ligne `bilan` comme pour
/// celle d'un `passage`.
pub(crate) fn comptes_bilan(b: &Bilan) -> ComptesBilan<'_> {
    let r = &b.resume;
    // Vers la plateforme Vigie-Chiro seulement : la participation qui a reçu la nuit (celle
    // que `vigie traiter` lancera), et les unités qu'elle avait déjà (finalisées par un autre
    // client ou un autre plan), comptées à part : elles sont dans `deposees`, pas dans
    // `deposees_ce_passage`. Vers un compartiment S3 : les unités qu'il tenait déjà,
    // identiques, comptées de même.
    // Ce que la destination ajoute au bilan, qu'elle fournit (`PartieDuBilan`).
    let destination = match b.destination.participation() {
        Some(participation) => DejaLa::Participation {
            participation: participation.as_str(),
            deja_sur_la_plateforme: b.deja_presentes,
            deja_sur_la_plateforme_non_comparees: b.deja_non_comparees,
        },
        None => DejaLa::Destination {
            deja_a_la_destination: b.deja_presentes,
        },
    };
    ComptesBilan {
        plan: b.plan,
        deposees: r.deposee,
        echecs: r.echec - r.definitifs,
        definitifs: r.definitifs,
        incertaines: r.incertaine,
        restantes: r.a_deposer + r.en_cours,
        octets_envoyes: b.octets_envoyes,
        duree_s: (b.duree.as_secs_f64() * 1000.0).round() / 1000.0,
        deposees_ce_passage: b.deposees,
        incidents_absorbes: b.incidents_absorbes,
        interrompu: b.interrompu,
        destination,
        reglages_repris: b
            .reglages
            .repris
            .iter()
            .map(|r| (r.option.as_str(), r.valeur.as_str()))
            .collect(),
        reglages_remplaces: b
            .reglages
            .remplaces
            .iter()
            .map(|r| {
                let remplacement = Remplacement {
                    donne: &r.valeur,
                    retenu: r.retenue.as_deref(),
                };
                (r.option.as_str(), remplacement)
            })
            .collect(),
    }
}

/// Le bilan JSON (la ligne `bilan` d'un seul passage), sans la version : ce que les essais
/// lisent ; le code écrit l'événement lui-même.
#[cfg(test)]
pub(crate) fn bilan_json(b: &Bilan) -> serde_json::Value {
    Evenement::Bilan {
        comptes: comptes_bilan(b),
        passages: None,
        arret: None,
    }
    .en_valeur()
}

/// Le bilan pour l'humain. Il parle de fichiers (ce que l'utilisateur a sous les yeux, et ce
/// que compte la barre), ne dit « sans geste de votre part » que si le passage n'a rien laissé
/// derrière lui, et ne conseille qu'une commande, la dernière ligne. `passages` : le bilan de
/// plusieurs passages (`--jusqu-au-bout`), qui compte ce qu'ils ont fait ensemble. La
/// participation n'y est nommée que par l'adresse de sa page (`page`), jamais par son
/// identifiant : la bénévole ne recopie rien (le JSON le garde).
pub(crate) fn ecrire_bilan(
    s: &mut impl Write,
    b: &Bilan,
    page: Option<&str>,
    suite: Option<&str>,
    passages: Option<u32>,
) -> io::Result<()> {
    let pendant = match passages {
        Some(n) if n > 1 => format!("en {n} passages"),
        _ => "pendant ce passage".to_owned(),
    };
    let r = &b.resume;
    if b.interrompu {
        writeln!(
            s,
            // Sans « relancer reprend » : le geste est la dernière ligne du bilan.
            concat!(
                "Interrompu : ",
                crate::sortie::plan_a_jour!(),
                ", rien de ce qui est parti n'est perdu."
            )
        )?;
    }
    writeln!(
        s,
        "Plan {} : {} ({} {pendant}).",
        b.plan,
        deposes_sur_total(r),
        b.deposees
    )?;
    if let Some(page) = page {
        writeln!(s, "  Participation Vigie-Chiro : {page}")?;
    }
    for ligne in b.reglages.lignes() {
        writeln!(s, "  {ligne}")?;
    }
    // Sur une ligne de 80 colonnes, même pour une nuit de 4 000 séquences.
    if b.deja_presentes > 0 {
        let deja = format!(
            "{} déjà {}",
            pluriel(b.deja_presentes, "fichier", "fichiers"),
            b.destination.lieu()
        );
        match b.deja_non_comparees {
            0 => writeln!(
                s,
                "  {deja}, {} : rien n'est reparti.",
                if b.deja_presentes > 1 {
                    "identiques"
                } else {
                    "identique"
                }
            )?,
            m => writeln!(
                s,
                "  {deja} ({}) : rien n'est reparti.",
                pluriel(m, "non comparé", "non comparés")
            )?,
        }
    }
    writeln!(
        s,
        "  {}",
        volume_envoye(b.octets_envoyes, b.duree, &pendant, b.interrompu)
    )?;
    if b.incidents_absorbes > 0 {
        if r.deposee == r.total() && !b.interrompu {
            writeln!(
                s,
                "  {} automatiquement, sans geste de votre part.",
                pluriel(
                    b.incidents_absorbes,
                    "incident rattrapé",
                    "incidents rattrapés"
                )
            )?;
        } else {
            writeln!(
                s,
                "  {} {pendant}.",
                pluriel(
                    b.incidents_absorbes,
                    "nouvelle tentative",
                    "nouvelles tentatives"
                )
            )?;
        }
    }
    let restantes = r.a_deposer + r.en_cours;
    if restantes > 0 {
        writeln!(
            s,
            "  {} à déposer.",
            pluriel(restantes, "fichier reste", "fichiers restent")
        )?;
    }
    if !r.echecs_par_cause.is_empty() {
        writeln!(s, "  En échec, par cause :")?;
    }
    for (cause, definitif, n) in &r.echecs_par_cause {
        let ligne = cause_et_geste(*cause, *definitif, *n, &r.sorte);
        match cause {
            Some(_) => writeln!(s, "    {ligne}")?,
            None => writeln!(s, "    {ligne} : voir {}", commande("etat").arg(b.plan))?,
        }
    }
    if r.incertaine > 0 {
        writeln!(
            s,
            "  {} (envoi parti sans réponse), {} à la destination à la prochaine relance.",
            pluriel(r.incertaine, "fichier incertain", "fichiers incertains"),
            if r.incertaine > 1 {
                "vérifiés"
            } else {
                "vérifié"
            }
        )?;
    }
    if let Some(suite) = suite {
        writeln!(s, "Ensuite : {suite}")?;
    }
    Ok(())
}

/// Les échecs d'une cause en une ligne, avec le geste qui les répare, dits de même par le
/// bilan et par `vigie etat` : « 2 échecs transitoires SERVEUR : … », « 1 refus définitif de
/// cause inconnue ».
pub(super) fn cause_et_geste(
    cause: Option<crate::plan::CauseRefus>,
    definitif: bool,
    n: u64,
    sorte: &crate::plan::Sorte,
) -> String {
    let nature = if definitif {
        pluriel(n, "refus définitif", "refus définitifs")
    } else {
        pluriel(n, "échec transitoire", "échecs transitoires")
    };
    match cause {
        Some(c) => format!(
            "{nature} {c} : {}",
            crate::depot::inscription::conseil(sorte, c)
        ),
        None => format!("{nature} de cause inconnue"),
    }
}

/// « 18 / 20 fichiers déposés » : les fichiers du plan.
pub(super) fn deposes_sur_total(r: &crate::plan::ResumePlan) -> String {
    format!(
        "{} / {} {}",
        r.deposee,
        r.total(),
        if r.deposee > 1 {
            "fichiers déposés"
        } else {
            "fichier déposé"
        }
    )
}

/// « 3,0 Mio envoyés en 2,0 s, soit 1,5 Mio/s. » ; le débit seulement s'il se mesure (un
/// passage de quelques millisecondes n'en a pas), et une phrase simple quand rien n'est parti.
/// Seuls comptent les octets que la destination a acquittés (un fichier, une partie) : un
/// passage interrompu (Ctrl-C) a pu en faire partir d'autres, qui n'ont rien achevé et
/// repartiront ; il ne dit donc pas « rien n'a été envoyé ».
fn volume_envoye(
    octets: u64,
    duree: std::time::Duration,
    pendant: &str,
    interrompu: bool,
) -> String {
    if octets == 0 && interrompu {
        return format!(
            "Aucun fichier n'a fini de partir {pendant} : ce qui était en route repartira à la \
             relance."
        );
    }
    if octets == 0 {
        return format!("Rien n'a été envoyé {pendant}.");
    }
    let debit = debit_lisible(octets, duree)
        .filter(|_| duree >= DUREE_MESURABLE)
        .map(|d| format!(", soit {d}"))
        .unwrap_or_default();
    format!(
        "{} {} en {}{debit}.",
        octets_lisibles(octets),
        if octets > 1 { "envoyés" } else { "envoyé" },
        duree_lisible(duree)
    )
}

/// En deçà, un débit ne veut rien dire (et « 0,0 s » s'afficherait).
const DUREE_MESURABLE: std::time::Duration = std::time::Duration::from_millis(100);

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::destination::PartieDuBilan;
    use crate::plan::{CauseRefus, ResumePlan};

    fn bilan(resume: ResumePlan) -> Bilan {
        Bilan {
            plan: 3,
            resume,
            deposees: 12,
            octets_envoyes: 3 * 1024 * 1024,
            incidents_absorbes: 2,
            duree: Duration::from_secs(2),
            interrompu: false,
            deja_presentes: 0,
            deja_non_comparees: 0,
            reglages: Default::default(),
            destination: PartieDuBilan::default(),
        }
    }

    fn texte(b: &Bilan, suite: Option<&str>) -> String {
        let mut v = Vec::new();
        ecrire_bilan(&mut v, b, None, suite, None).unwrap();
        String::from_utf8(v).unwrap()
    }

    /// Les réglages repris du plan, et ceux qui remplacent une valeur retenue, sont dits avant
    /// le geste (qui reste la dernière ligne), et en JSON.
    #[test]
    fn bilan_dit_les_reglages_repris_et_remplaces() {
        use crate::depot::{ReglageAnnonce, ReglagesDuPassage};
        let mut b = bilan(ResumePlan {
            deposee: 21,
            ..Default::default()
        });
        b.reglages = ReglagesDuPassage {
            repris: vec![ReglageAnnonce {
                option: "--seuil-multipart".into(),
                valeur: "6".into(),
                retenue: None,
            }],
            remplaces: vec![ReglageAnnonce {
                option: "--debit-max".into(),
                valeur: "5 Mo/s".into(),
                retenue: Some("2 Mo/s".into()),
            }],
            de_la_saison: false,
        };
        let t = texte(&b, Some("vigie traiter"));
        assert!(
            t.contains(
                "  Réglages repris du plan : --seuil-multipart 6.\n  --debit-max 5 Mo/s donné \
                 remplace 2 Mo/s retenu par le plan (désormais retenu).\n"
            ),
            "{t}"
        );
        assert!(t.ends_with("Ensuite : vigie traiter\n"), "{t}");
        let v = bilan_json(&b);
        assert_eq!(v["reglages_repris"]["--seuil-multipart"], "6");
        assert_eq!(
            v["reglages_remplaces"]["--debit-max"],
            json!({"donne": "5 Mo/s", "retenu": "2 Mo/s"})
        );
        b.reglages = ReglagesDuPassage::default();
        assert!(bilan_json(&b).get("reglages_repris").is_none());
    }

    #[test]
    fn bilan_complet_avec_echecs_par_cause_et_prochaine_commande() {
        let b = bilan(ResumePlan {
            a_deposer: 1,
            deposee: 16,
            echec: 3,
            definitifs: 1,
            incertaine: 1,
            echecs_par_cause: vec![
                (Some(CauseRefus::Droits), true, 1),
                (Some(CauseRefus::Serveur), false, 2),
            ],
            sorte: crate::plan::Sorte::nouvelle("s3"),
            ..Default::default()
        });
        let t = texte(&b, Some("vigie retenter-echecs 3"));
        // Des échecs restent : les réessais n'ont pas tout rattrapé, le bilan ne le prétend pas.
        let attendu = "\
Plan 3 : 16 / 21 fichiers déposés (12 pendant ce passage).
  3,0 Mio envoyés en 2,0 s, soit 1,5 Mio/s.
  2 nouvelles tentatives pendant ce passage.
  1 fichier reste à déposer.
  En échec, par cause :
    1 refus définitif DROITS : droits insuffisants sur le compartiment : faites-les corriger
    2 échecs transitoires SERVEUR : le serveur a répondu qu'il était indisponible (5xx, 429) : réessayez un peu plus tard
  1 fichier incertain (envoi parti sans réponse), vérifié à la destination à la prochaine relance.
Ensuite : vigie retenter-echecs 3
";
        assert_eq!(t, attendu);
    }

    #[test]
    fn bilan_d_un_passage_reussi_sans_incident() {
        let mut b = bilan(ResumePlan {
            deposee: 1,
            ..Default::default()
        });
        b.incidents_absorbes = 0;
        b.deposees = 1;
        b.octets_envoyes = 1000;
        b.duree = Duration::ZERO;
        let t = texte(&b, None);
        assert_eq!(
            t,
            "Plan 3 : 1 / 1 fichier déposé (1 pendant ce passage).\n  1000 o envoyés en 0,0 s.\n"
        );
    }

    #[test]
    fn incidents_rattrapes_seulement_quand_tout_est_depose() {
        let mut b = bilan(ResumePlan {
            deposee: 5,
            ..Default::default()
        });
        b.incidents_absorbes = 3;
        assert!(
            texte(&b, None)
                .contains("  3 incidents rattrapés automatiquement, sans geste de votre part.\n"),
            "{}",
            texte(&b, None)
        );
        // 0 / 5 déposés après dix 503 : rien n'a été « absorbé ».
        let mut b = bilan(ResumePlan {
            echec: 5,
            echecs_par_cause: vec![(Some(CauseRefus::Serveur), false, 5)],
            ..Default::default()
        });
        b.incidents_absorbes = 10;
        b.deposees = 0;
        b.octets_envoyes = 0;
        let t = texte(&b, Some("vigie retenter-echecs 3"));
        assert!(!t.contains("absorb") && !t.contains("sans geste"), "{t}");
        assert!(
            t.contains("  10 nouvelles tentatives pendant ce passage.\n"),
            "{t}"
        );
        assert!(
            t.contains("Plan 3 : 0 / 5 fichier déposé (0 pendant ce passage).\n"),
            "{t}"
        );
    }

    #[test]
    fn rien_d_envoye_se_dit_sans_debit_absurde() {
        let mut b = bilan(ResumePlan {
            deposee: 2,
            ..Default::default()
        });
        b.octets_envoyes = 0;
        b.duree = Duration::from_millis(30);
        let t = texte(&b, None);
        assert!(
            t.contains("  Rien n'a été envoyé pendant ce passage.\n"),
            "{t}"
        );
        assert!(!t.contains("0 o"), "{t}");
        // Quelques millisecondes : pas de débit.
        b.octets_envoyes = 4096;
        assert!(texte(&b, None).contains("  4,0 Kio envoyés en 0,0 s.\n"));
    }

    /// Un Ctrl-C après 3,9 Mio partis d'un fichier qui n'a pas fini : rien n'est acquitté, mais
    /// des octets sont partis ; le bilan ne dit pas « rien n'a été envoyé ».
    #[test]
    fn un_passage_interrompu_ne_dit_pas_que_rien_n_est_parti() {
        let mut b = bilan(ResumePlan {
            a_deposer: 1,
            ..Default::default()
        });
        b.octets_envoyes = 0;
        b.interrompu = true;
        let t = texte(&b, None);
        assert!(!t.contains("Rien n'a été envoyé"), "{t}");
        assert!(
            t.contains(
                "  Aucun fichier n'a fini de partir pendant ce passage : ce qui était en route \
                 repartira à la relance.\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn le_bilan_de_plusieurs_passages_les_compte_ensemble() {
        let b = bilan(ResumePlan {
            deposee: 21,
            ..Default::default()
        });
        let mut v = Vec::new();
        ecrire_bilan(&mut v, &b, None, None, Some(3)).unwrap();
        let t = String::from_utf8(v).unwrap();
        assert!(
            t.starts_with("Plan 3 : 21 / 21 fichiers déposés (12 en 3 passages).\n"),
            "{t}"
        );
        assert!(t.contains("2 incidents rattrapés automatiquement"), "{t}");
        // Un seul passage fait avec --jusqu-au-bout se dit comme un passage.
        let mut v = Vec::new();
        ecrire_bilan(&mut v, &b, None, None, Some(1)).unwrap();
        assert!(
            String::from_utf8(v)
                .unwrap()
                .contains("(12 pendant ce passage)")
        );
    }

    #[test]
    fn bilan_interrompu() {
        let mut b = bilan(ResumePlan {
            a_deposer: 4,
            deposee: 2,
            ..Default::default()
        });
        b.interrompu = true;
        let t = texte(&b, Some("vigie retenter-echecs 3"));
        assert!(t.starts_with("Interrompu : le plan est à jour"), "{t}");
        assert!(t.contains("4 fichiers restent à déposer."), "{t}");
        // Un seul geste : la dernière ligne, pas « relancer reprend » en plus.
        assert!(!t.contains("relancer"), "{t}");
        assert_eq!(t.matches("vigie ").count(), 1, "{t}");
    }

    #[test]
    fn bilan_json_garde_exactement_les_cles_du_contrat() {
        let b = bilan(ResumePlan {
            a_deposer: 1,
            en_cours: 1,
            deposee: 5,
            echec: 3,
            definitifs: 1,
            incertaine: 1,
            ..Default::default()
        });
        let v = bilan_json(&b);
        let mut cles: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        cles.sort_unstable();
        assert_eq!(
            cles,
            [
                "definitifs",
                // Vers S3 : ce que la destination tenait déjà (ajouté, la version reste 1).
                "deja_a_la_destination",
                "deposees",
                "deposees_ce_passage",
                "duree_s",
                "echecs",
                "evenement",
                "incertaines",
                "incidents_absorbes",
                "interrompu",
                "octets_envoyes",
                "plan",
                "restantes",
            ]
        );
        assert_eq!(v["evenement"], "bilan");
        assert_eq!(v["echecs"], 2);
        assert_eq!(v["restantes"], 2);
        assert_eq!(v["duree_s"], 2.0);
    }

    fn vers_la_plateforme() -> PartieDuBilan {
        PartieDuBilan {
            lieu: "sur la plateforme",
            participation: crate::destination::IdObjet::analyser("64a1b2c3d4e5f60718293d01"),
        }
    }

    /// Le texte nomme la participation par l'adresse de sa page, jamais par son identifiant
    /// seul ; le JSON garde l'identifiant.
    #[test]
    fn bilan_vers_la_plateforme_nomme_la_participation_par_sa_page() {
        let mut b = bilan(ResumePlan {
            deposee: 2,
            ..Default::default()
        });
        b.destination = vers_la_plateforme();
        assert_eq!(bilan_json(&b)["participation"], "64a1b2c3d4e5f60718293d01");
        let page = "https://vigiechiro.herokuapp.com/#/participations/64a1b2c3d4e5f60718293d01";
        let mut v = Vec::new();
        ecrire_bilan(&mut v, &b, Some(page), None, None).unwrap();
        let t = String::from_utf8(v).unwrap();
        assert_eq!(
            t.lines().nth(1),
            Some(format!("  Participation Vigie-Chiro : {page}").as_str()),
            "{t}"
        );
        // Sans page (une autre API que celle de la plateforme) : rien, pas l'identifiant.
        assert!(!texte(&b, None).contains("64a1b2c3d4e5f60718293d01"));
        b.destination = PartieDuBilan::default();
        assert!(bilan_json(&b).get("participation").is_none());
        assert!(bilan_json(&b).get("deja_sur_la_plateforme").is_none());
    }

    /// Le moteur compte les fichiers que la destination tenait déjà ; la partie que fournit la
    /// destination dit où ils étaient, en texte et en JSON.
    #[test]
    fn les_fichiers_deja_presents_sont_comptes_a_part_dits_par_la_destination() {
        let mut b = bilan(ResumePlan {
            deposee: 13,
            ..Default::default()
        });
        b.deposees = 3;
        b.destination = vers_la_plateforme();
        b.deja_presentes = 10;
        let v = bilan_json(&b);
        assert_eq!(
            (&v["deposees"], &v["deposees_ce_passage"]),
            (&json!(13), &json!(3))
        );
        assert_eq!(v["deja_sur_la_plateforme"], 10);
        assert_eq!(v["deja_sur_la_plateforme_non_comparees"], 0);
        assert!(v.get("deja_a_la_destination").is_none(), "{v}");
        let t = texte(&b, None);
        assert!(
            t.contains(
                "\n  10 fichiers déjà sur la plateforme, identiques : rien n'est reparti.\n"
            ),
            "{t}"
        );
        b.deja_presentes = 1;
        b.deja_non_comparees = 1;
        let t = texte(&b, None);
        assert!(
            t.contains(
                "\n  1 fichier déjà sur la plateforme (1 non comparé) : rien n'est reparti.\n"
            ),
            "{t}"
        );
        // Vers un compartiment S3.
        b.destination = PartieDuBilan::default();
        b.deja_presentes = 20;
        b.deja_non_comparees = 0;
        let v = bilan_json(&b);
        assert_eq!(v["deja_a_la_destination"], 20);
        assert!(v.get("deja_sur_la_plateforme").is_none(), "{v}");
        let t = texte(&b, None);
        assert!(
            t.contains("\n  20 fichiers déjà à la destination, identiques : rien n'est reparti.\n"),
            "{t}"
        );
        assert!(!t.contains("Participation"), "{t}");
    }
}
