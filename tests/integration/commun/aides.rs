//! Les raccourcis des essais : programmer une panne, compter les requêtes, et des assertions
//! qui disent ce qui manque (le motif absent et le texte entier où il a été cherché), à la
//! manière de `tests/util.rs` de ripgrep. Un essai s'écrit alors en une ligne par fait vérifié.

use std::process::Output;

use vigie_bac_a_sable::{Compteurs, Operation, Panne, Regle, Relache, RetryAfter};

use super::{Banc, texte};

/// La panne « répondre `code` », sans attente annoncée (`Panne::Statut`).
pub fn code_http(code: u16) -> Panne {
    Panne::Statut {
        code,
        retry_after: None,
    }
}

/// La panne « répondre `code` » avec un `Retry-After`.
pub fn code_http_apres(code: u16, retry_after: RetryAfter) -> Panne {
    Panne::Statut {
        code,
        retry_after: Some(retry_after),
    }
}

/// La panne « retenir la réponse `ms` millisecondes » (`Panne::Lenteur`).
pub fn lenteur_ms(ms: u64) -> Panne {
    Panne::Lenteur(std::time::Duration::from_millis(ms))
}

/// La règle « retenir jusqu'à la relâche la `n`-ième requête `op` sur la clé `cle`, et toutes
/// celles qui la suivent » (`Panne::Retenir`). Ses reprises sont ainsi retenues elles aussi :
/// un client qui coupe une requête qui se tait trop longtemps (sous une charge extrême, le
/// silence toléré de vigie, 10 s au moins, peut passer avant le geste de l'essai) la renvoie,
/// et ce renvoi ne doit pas passer avant la relâche.
pub fn retenir_a_partir_de(op: Operation, cle: &str, n: u64, relache: &Relache) -> Regle {
    Regle::nieme(op, cle, n, Panne::Retenir(relache.clone())).fois(u64::MAX)
}

impl Banc {
    /// Un banc neuf dont la nuit tient un fichier (voir [`Banc::fichier`]).
    pub fn avec_fichier(chemin: &str, taille: usize) -> Banc {
        let banc = Banc::nouveau();
        banc.fichier(chemin, taille);
        banc
    }

    /// Écrit ces fichiers dans la nuit et les rend, pour les vérifier ensuite.
    pub fn fichiers(&self, fichiers: Vec<(String, usize)>) -> Vec<(String, usize)> {
        for (chemin, taille) in &fichiers {
            self.fichier(chemin, *taille);
        }
        fichiers
    }

    /// Programme une panne dans le bac à sable.
    pub fn panne(&self, regle: Regle) {
        self.bac().pannes().programmer(regle);
    }

    /// Programme la panne sur la prochaine requête `op` (`Regle::prochaine`).
    pub fn panne_prochaine(&self, op: Operation, panne: Panne) {
        self.panne(Regle::prochaine(op, panne));
    }

    /// Programme la panne sur chaque requête `op` (`Regle::toujours`).
    pub fn panne_toujours(&self, op: Operation, panne: Panne) {
        self.panne(Regle::toujours(Some(op), panne));
    }

    /// Programme la panne sur la `n`-ième requête `op` vers la clé S3 de ce fichier de la nuit
    /// ([`Banc::cle`]).
    pub fn panne_nieme(&self, op: Operation, chemin: &str, n: u64, panne: Panne) {
        self.panne(Regle::nieme(op, &self.cle(chemin), n, panne));
    }

    /// Les compteurs du bac à sable.
    pub fn compteurs(&self) -> &Compteurs {
        self.bac().compteurs()
    }

    /// Les requêtes reçues pour cette opération.
    pub fn requetes(&self, op: Operation) -> u64 {
        self.compteurs().requetes(op)
    }

    /// Les requêtes reçues pour cette opération sur la clé S3 de ce fichier de la nuit.
    pub fn requetes_sur(&self, op: Operation, chemin: &str) -> u64 {
        self.requetes_cle(op, &self.cle(chemin))
    }

    /// Les requêtes reçues pour cette opération sur cette clé.
    pub fn requetes_cle(&self, op: Operation, cle: &str) -> u64 {
        self.compteurs().requetes_cle(op, cle)
    }
}

/// Une commande d'essai se lance et s'écrit plus court : `banc.vigie().mots("etat --json")`,
/// `….sortie()`.
pub trait CommandeEssai {
    /// Ajoute les arguments d'une ligne de commande, séparés par des espaces (aucun ne peut en
    /// contenir).
    fn mots(&mut self, ligne: &str) -> &mut Self;
    /// Lance la commande jusqu'au bout et rend ses sorties (`output().unwrap()`).
    fn sortie(&mut self) -> Output;
}

impl CommandeEssai for std::process::Command {
    fn mots(&mut self, ligne: &str) -> &mut Self {
        self.args(ligne.split(' '))
    }
    fn sortie(&mut self) -> Output {
        self.output().unwrap()
    }
}

/// Le bilan, dernière ligne d'une sortie `--json`, avec tous ses champs : `plan`, `deposees`,
/// `echecs`, `definitifs`, `incertaines`, `restantes`, `octets_envoyes`, `duree_s`.
#[track_caller]
pub fn bilan_au_contrat(lignes: &[serde_json::Value]) -> &serde_json::Value {
    let bilan = lignes.last().expect("aucune ligne JSON");
    assert_eq!(bilan["evenement"], "bilan", "{bilan}");
    for champ in [
        "plan",
        "deposees",
        "echecs",
        "definitifs",
        "incertaines",
        "restantes",
        "octets_envoyes",
        "duree_s",
    ] {
        assert!(bilan.get(champ).is_some(), "bilan sans {champ} : {bilan}");
    }
    bilan
}

/// Exige les comptes d'unités de `etat` (`vigie etat --json`) : `[("deposee", 20), ("echec", 0)]`.
#[track_caller]
pub fn assert_unites(etat: &serde_json::Value, attendus: &[(&str, u64)]) {
    for (sorte, n) in attendus {
        assert_eq!(etat["unites"][sorte], *n, "unités « {sorte} » : {etat}");
    }
}

/// Exige que `texte` contienne chacun des `motifs` ; sinon l'essai échoue en nommant le motif
/// absent et en montrant le texte.
#[track_caller]
pub fn contient(texte: &str, motifs: &[&str]) {
    for motif in motifs {
        assert!(texte.contains(motif), "« {motif} » manque dans :\n{texte}");
    }
}

/// Exige qu'aucun des `motifs` ne se trouve dans `texte`.
#[track_caller]
pub fn absent(texte: &str, motifs: &[&str]) {
    for motif in motifs {
        assert!(
            !texte.contains(motif),
            "« {motif} » ne devait pas se trouver dans :\n{texte}"
        );
    }
}

/// Les mêmes exigences sur les sorties d'une commande finie ; l'échec montre le code et les
/// deux sorties.
pub trait SortieAttendue {
    /// La sortie standard contient chacun des motifs.
    fn stdout_contient(&self, motifs: &[&str]);
    /// La sortie d'erreur contient chacun des motifs.
    fn stderr_contient(&self, motifs: &[&str]);
    /// La sortie standard ne contient aucun des motifs.
    fn stdout_sans(&self, motifs: &[&str]);
    /// La sortie d'erreur ne contient aucun des motifs.
    fn stderr_sans(&self, motifs: &[&str]);
}

#[track_caller]
fn exiger(out: &Output, flux: &str, octets: &[u8], motifs: &[&str], present: bool) {
    let vu = String::from_utf8_lossy(octets);
    for motif in motifs {
        assert!(
            vu.contains(motif) == present,
            "« {motif} » {} sur {flux} :\n{}",
            if present {
                "manque"
            } else {
                "ne devait pas être"
            },
            texte(out)
        );
    }
}

impl SortieAttendue for Output {
    #[track_caller]
    fn stdout_contient(&self, motifs: &[&str]) {
        exiger(self, "stdout", &self.stdout, motifs, true);
    }
    #[track_caller]
    fn stderr_contient(&self, motifs: &[&str]) {
        exiger(self, "stderr", &self.stderr, motifs, true);
    }
    #[track_caller]
    fn stdout_sans(&self, motifs: &[&str]) {
        exiger(self, "stdout", &self.stdout, motifs, false);
    }
    #[track_caller]
    fn stderr_sans(&self, motifs: &[&str]) {
        exiger(self, "stderr", &self.stderr, motifs, false);
    }
}

#[cfg(test)]
mod essais {
    use super::*;

    #[test]
    #[should_panic(expected = "« absent » manque dans :\nun texte présent")]
    fn contient_nomme_le_motif_qui_manque() {
        contient("un texte présent", &["texte", "absent"]);
    }

    #[cfg(unix)]
    #[test]
    #[should_panic(expected = "« fini » manque sur stdout :\ncode Some(0)")]
    fn stdout_contient_montre_le_code_et_les_deux_sorties() {
        use std::os::unix::process::ExitStatusExt;
        let out = Output {
            status: std::process::ExitStatus::from_raw(0),
            stdout: b"en cours".to_vec(),
            stderr: b"fini".to_vec(),
        };
        out.stderr_contient(&["fini"]);
        out.stdout_contient(&["en cours", "fini"]);
    }

    #[test]
    #[should_panic(expected = "unités « echec » : ")]
    fn assert_unites_nomme_la_sorte_fausse() {
        let etat = serde_json::json!({"unites": {"deposee": 3, "echec": 1}});
        assert_unites(&etat, &[("deposee", 3), ("echec", 0)]);
    }

    #[test]
    #[should_panic(expected = "« présent » ne devait pas se trouver dans :\nun texte présent")]
    fn absent_nomme_le_motif_trouve() {
        absent("un texte présent", &["ailleurs", "présent"]);
    }
}
