//! Les barres de progression sur la sortie d'erreur : la seule couche qui connaisse indicatif.
//!
//! Pourquoi : une nuit de plusieurs gigaoctets part en dizaines de minutes sur un partage de
//! connexion ; l'utilisateur doit voir qu'elle avance (fichiers faits, octets, débit, temps
//! restant), ce qui est en vol, et, pendant une attente de réessai, « nouvelle tentative dans
//! N s » décompté chaque seconde sur la ligne de l'unité concernée : ni silence trompeur, ni
//! bandeau d'erreur pour un incident absorbé (règle 7 de `docs/politique-reessai.md`).
//!
//! Ce fichier ne décide d'aucun texte : il recopie dans indicatif ce que calcule
//! [`Tableau`] (pur, testé sans horloge). Un fil de rafraîchissement
//! fait avancer les décomptes même quand le moteur ne dit rien (il attend, justement). Les
//! échecs s'impriment au-dessus des barres et restent à l'écran une fois celles-ci effacées.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::format::{neutraliser, nom_court};
use super::repetes::{MessagesRepetes, Repetition};
use super::tableau::{COLONNES_PAR_DEFAUT, Fin, LARGEUR_NOM, Tableau};
use super::{Horloge, HorlogeSysteme, Suivi};
use crate::destination::PartieDuBilan;
use crate::plan::{CauseRefus, DepotUnite};
use crate::plateforme::Marques;

/// Cadence du fil de rafraîchissement : assez fine pour qu'un décompte à la seconde ne saute
/// pas de valeur, assez lâche pour ne pas occuper un cœur.
const CADENCE_RAFRAICHISSEMENT: Duration = Duration::from_millis(200);

/// Les barres d'un passage. Les clones partagent le même affichage.
#[derive(Clone)]
pub(crate) struct SuiviBarres {
    interne: Arc<Interne>,
}

struct Interne {
    multi: MultiProgress,
    ensemble: ProgressBar,
    style_unite: ProgressStyle,
    /// La barre d'ensemble en couleur ?
    couleurs: bool,
    etat: Mutex<Etat>,
    /// Les messages d'échec déjà dits (un même message n'est dit qu'une fois).
    repetes: MessagesRepetes,
    /// L'écho du clavier, coupé tant que les barres sont à l'écran (voir `plateforme::echo`).
    echo: Mutex<Option<crate::plateforme::echo::EchoCoupe>>,
    horloge: Box<dyn Horloge>,
    /// La largeur du terminal, relue à chaque dessin.
    colonnes: Box<dyn Fn() -> usize + Send + Sync>,
    termine: AtomicBool,
    /// ✗, ou son repli pour l'ancienne console de Windows.
    marques: Marques,
}

#[derive(Default)]
struct Etat {
    tableau: Tableau,
    lignes: HashMap<i64, ProgressBar>,
    /// La barre d'ensemble est-elle à l'écran ? Pas avant le début du passage : elle n'aurait
    /// rien à dire.
    ensemble_visible: bool,
}

impl SuiviBarres {
    /// Des barres dessinées sur `cible`, large de `colonnes()`, au temps de `horloge`, sans fil
    /// de rafraîchissement : c'est à l'appelant d'appeler [`SuiviBarres::rafraichir`] (les tests
    /// le font à la main).
    pub(crate) fn nouveau(
        cible: ProgressDrawTarget,
        horloge: Box<dyn Horloge>,
        colonnes: Box<dyn Fn() -> usize + Send + Sync>,
        couleurs: bool,
    ) -> Self {
        let multi = MultiProgress::with_draw_target(cible);
        // Chaque ligne est composée en entier par le tableau, à la largeur du terminal :
        // indicatif ne fait que la dessiner.
        let style_unite =
            ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_bar());
        let ensemble = ProgressBar::hidden().with_style(style_unite.clone());
        SuiviBarres {
            interne: Arc::new(Interne {
                multi,
                ensemble,
                style_unite,
                couleurs,
                etat: Mutex::new(Etat::default()),
                repetes: MessagesRepetes::default(),
                echo: Mutex::new(None),
                horloge,
                colonnes,
                termine: AtomicBool::new(false),
                marques: Marques::pour_la_sortie_d_erreur(),
            }),
        }
    }

    /// Les barres de la vraie sortie d'erreur, avec leur fil de rafraîchissement. `forcees` :
    /// dessinées même si la sortie d'erreur n'est pas un terminal (`--progression toujours`),
    /// ce qu'indicatif refuserait de lui-même.
    pub(crate) fn sur_la_sortie_d_erreur(forcees: bool, couleurs: bool) -> Self {
        let (cible, colonnes): (_, Box<dyn Fn() -> usize + Send + Sync>) = if forcees {
            (
                ProgressDrawTarget::term_like(Box::new(SortieErreurForcee)),
                Box::new(|| usize::from(indicatif::TermLike::width(&SortieErreurForcee))),
            )
        } else {
            (
                ProgressDrawTarget::stderr(),
                Box::new(|| {
                    console::Term::stderr()
                        .size_checked()
                        .map_or(COLONNES_PAR_DEFAUT, |(_, largeur)| usize::from(largeur))
                }),
            )
        };
        let barres = SuiviBarres::nouveau(
            cible,
            Box::new(HorlogeSysteme::nouveau()),
            colonnes,
            couleurs,
        );
        // Une Entrée tapée pendant l'envoi ne doit pas décaler les barres (voir
        // `plateforme::echo`) ; remis par `terminer`.
        *barres
            .interne
            .echo
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = crate::plateforme::echo::EchoCoupe::couper();
        let faible = Arc::downgrade(&barres.interne);
        // Sans fil, les décomptes ne bougeraient qu'au gré des événements : on s'en passe plutôt
        // que d'échouer (le prochain événement redessinera).
        let _ = std::thread::Builder::new()
            .name("vigie-barres".into())
            .spawn(move || rafraichir_sans_fin(&faible));
        barres
    }

    /// L'état des barres, tant qu'elles ne sont pas terminées. Vu sous le verrou que
    /// [`SuiviBarres::terminer`] tient pour effacer : un événement arrivé pendant l'effacement
    /// ne redessine pas, après lui, une barre que rien n'effacerait plus (elle restait à
    /// l'écran au-dessus du bilan).
    fn etat(&self) -> Option<MutexGuard<'_, Etat>> {
        // Un affichage n'a rien de critique : après une panique, on reprend l'état tel quel.
        let mut etat = self.interne.etat.lock().unwrap_or_else(|e| e.into_inner());
        if self.termine() {
            return None;
        }
        etat.tableau.fixer_colonnes((self.interne.colonnes)());
        Some(etat)
    }

    fn maintenant(&self) -> Duration {
        self.interne.horloge.maintenant()
    }

    fn termine(&self) -> bool {
        self.interne.termine.load(Ordering::Relaxed)
    }

    /// Recalcule toutes les lignes (décomptes, mentions échues, lignes finies à retirer) et
    /// redessine.
    pub(crate) fn rafraichir(&self) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        for id in etat.tableau.a_retirer(t) {
            if let Some(pb) = etat.lignes.remove(&id) {
                self.retirer(&pb);
            }
        }
        for id in etat.tableau.ids() {
            self.mettre_a_jour_ligne(&etat, id, t);
        }
        self.mettre_a_jour_ensemble(&mut etat, t);
        // Dessiné sous le verrou : `terminer` ne peut pas effacer entre les deux.
        self.interne.ensemble.force_draw();
    }

    /// Efface les barres pour de bon (fin du passage). Idempotent.
    pub(crate) fn terminer(&self) {
        let mut etat = self.interne.etat.lock().unwrap_or_else(|e| e.into_inner());
        if self.interne.termine.swap(true, Ordering::Relaxed) {
            return;
        }
        for (_, pb) in etat.lignes.drain() {
            self.retirer(&pb);
        }
        self.interne.ensemble.finish_and_clear();
        let _ = self.interne.multi.clear();
        drop(etat);
        // L'écho du clavier revient avec le terminal.
        drop(
            self.interne
                .echo
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        for ligne in self.interne.repetes.resume() {
            self.imprimer(&ligne);
        }
    }

    /// Exécute `f` (qui écrit sur la sortie d'erreur) barres effacées, puis les redessine.
    pub(crate) fn suspendre<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.termine() {
            return f();
        }
        self.interne.multi.suspend(f)
    }

    /// Une ligne qui reste, au-dessus des barres, repliée à la largeur du terminal (une ligne
    /// plus large se replierait n'importe où, et décalerait les barres).
    fn imprimer(&self, ligne: &str) {
        let largeur = (self.interne.colonnes)().saturating_sub(1);
        let ligne = super::format::replier(ligne, largeur).join("\n");
        if self.termine() || self.interne.multi.is_hidden() {
            let _ = writeln!(crate::sortie::erreur(), "{ligne}");
        } else {
            let _ = self.interne.multi.println(ligne);
        }
    }

    fn retirer(&self, pb: &ProgressBar) {
        pb.finish_and_clear();
        self.interne.multi.remove(pb);
    }

    fn mettre_a_jour_ligne(&self, etat: &Etat, id: i64, t: Duration) {
        if let (Some(pb), Some(ligne)) = (etat.lignes.get(&id), etat.tableau.ligne_unite(id, t)) {
            pb.set_message(ligne);
        }
    }

    /// La barre d'ensemble, composée par le tableau à la largeur du terminal (voir
    /// [`Tableau::ligne_ensemble`]) ; pas de barre avant qu'il y ait quelque chose à montrer.
    fn mettre_a_jour_ensemble(&self, etat: &mut Etat, t: Duration) {
        let pb = &self.interne.ensemble;
        etat.tableau.noter_position(t);
        let Some(ligne) = etat.tableau.ligne_ensemble(t) else {
            return;
        };
        let texte = if self.interne.couleurs && ligne.a_une_barre() {
            format!(
                "{} [{}] {}",
                ligne.avant,
                console::style(ligne.barre()).cyan(),
                ligne.apres
            )
        } else {
            ligne.texte()
        };
        pb.set_message(texte);
        if !etat.ensemble_visible {
            etat.ensemble_visible = true;
            // En tête, au-dessus des lignes d'unités, une fois son état complet.
            self.interne.multi.insert(0, pb.clone());
            pb.tick();
        }
    }

    /// Un événement sur une unité : on le passe au tableau, puis on redessine sa ligne et
    /// l'ensemble (sans forcer : indicatif limite la cadence de dessin).
    fn sur_unite(&self, id: i64, f: impl FnOnce(&mut Tableau, Duration)) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        f(&mut etat.tableau, t);
        self.mettre_a_jour_ligne(&etat, id, t);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn finir(&self, unite: &DepotUnite, fin: Fin) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        if etat.tableau.finir(unite.id, fin, t) {
            if let Some(pb) = etat.lignes.remove(&unite.id) {
                self.retirer(&pb);
            }
        } else {
            self.mettre_a_jour_ligne(&etat, unite.id, t);
        }
        self.mettre_a_jour_ensemble(&mut etat, t);
    }
}

/// Le fil de rafraîchissement : tant que les barres existent et ne sont pas terminées.
fn rafraichir_sans_fin(faible: &Weak<Interne>) {
    loop {
        std::thread::sleep(CADENCE_RAFRAICHISSEMENT);
        let Some(interne) = faible.upgrade() else {
            return;
        };
        let barres = SuiviBarres { interne };
        if barres.termine() {
            return;
        }
        barres.rafraichir();
    }
}

impl Suivi for SuiviBarres {
    fn debut(&self, unites: u64, octets: u64) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        etat.tableau.debut(unites, octets);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn unite_commencee(&self, u: &DepotUnite) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        etat.tableau.commencer(u.id, &u.chemin, u.taille);
        let pb = self
            .interne
            .multi
            .add(ProgressBar::hidden().with_style(self.interne.style_unite.clone()));
        etat.lignes.insert(u.id, pb);
        self.mettre_a_jour_ligne(&etat, u.id, t);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn progression(&self, u: &DepotUnite, octets: u64) {
        self.sur_unite(u.id, |tab, t| tab.progression(u.id, octets, t));
    }

    fn nouvelle_tentative(&self, u: &DepotUnite, _tentative: u32, attente: Duration) {
        self.sur_unite(u.id, |tab, t| tab.nouvelle_tentative(u.id, attente, t));
    }

    fn unite_deposee(&self, u: &DepotUnite) {
        self.finir(u, Fin::Deposee);
    }

    fn unite_deja_presente(&self, u: &DepotUnite, _comparee: bool, _ou: &PartieDuBilan) {
        self.finir(u, Fin::Deposee);
    }

    fn unite_en_echec(&self, u: &DepotUnite, cause: CauseRefus, definitif: bool, message: &str) {
        self.finir(u, Fin::Echec);
        let nature = if definitif {
            "refus définitif"
        } else {
            "échec"
        };
        let dit = format!("{nature} ({cause}) : {}", neutraliser(message));
        // Un message déjà dit pour un autre fichier n'est pas répété : son compte vient à la
        // fin du passage (`terminer`).
        if self.interne.repetes.noter(&dit) == Repetition::Premiere {
            self.imprimer(&format!(
                "{} {} : {dit}",
                self.interne.marques.echec,
                nom_court(&u.chemin, LARGEUR_NOM * 2)
            ));
        }
    }

    fn unite_incertaine(&self, u: &DepotUnite, message: &str) {
        self.finir(u, Fin::Incertaine);
        self.imprimer(&format!(
            "? {} : issue inconnue, à réconcilier à la prochaine relance ({})",
            nom_court(&u.chemin, LARGEUR_NOM * 2),
            neutraliser(message)
        ));
    }

    fn reseau_indisponible(&self, depuis: Duration, attente: Duration) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        etat.tableau.reseau_indisponible(depuis, attente, t);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn reseau_retabli(&self) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        etat.tableau.reseau_retabli(t);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn nuit_indisponible(&self, dossier: &std::path::Path) {
        self.imprimer(&super::texte_nuit_indisponible(dossier));
    }

    fn nuit_retrouvee(&self, dossier: &std::path::Path) {
        self.imprimer(&super::texte_nuit_retrouvee(dossier));
    }

    fn parallelisme(&self, courant: usize, plafond: usize) {
        let t = self.maintenant();
        let Some(mut etat) = self.etat() else {
            return;
        };
        etat.tableau.parallelisme(courant, plafond);
        self.mettre_a_jour_ensemble(&mut etat, t);
    }

    fn interruption(&self) {
        self.imprimer(
            "Interruption : arrêt des envois en cours, le plan est tenu à jour (Ctrl-C encore pour couper aussitôt).",
        );
    }
}

/// La sortie d'erreur quand on force les barres hors terminal : indicatif ne dessine sur
/// `stderr()` que si c'est un terminal, alors on lui donne un terminal minimal (séquences ANSI
/// usuelles, largeur prise de `COLUMNS` ou 80 colonnes).
#[derive(Debug)]
struct SortieErreurForcee;

impl SortieErreurForcee {
    fn ecrire(&self, s: &str) -> io::Result<()> {
        io::stderr().lock().write_all(s.as_bytes())
    }
}

impl indicatif::TermLike for SortieErreurForcee {
    fn width(&self) -> u16 {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .filter(|&c: &u16| c >= 20)
            .unwrap_or(80)
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.ecrire(&format!("\x1b[{n}A"))
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.ecrire(&format!("\x1b[{n}B"))
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.ecrire(&format!("\x1b[{n}C"))
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.ecrire(&format!("\x1b[{n}D"))
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.ecrire(&format!("{s}\n"))
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.ecrire(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        self.ecrire("\r\x1b[2K")
    }

    fn flush(&self) -> io::Result<()> {
        io::stderr().lock().flush()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::plan::EtatUnite;

    /// Un terminal en mémoire, juste assez fidèle pour ce qu'indicatif lui fait : curseur,
    /// effacement de ligne, retour à la ligne automatique en bout de ligne.
    #[derive(Debug, Clone)]
    struct EcranMemoire {
        grille: Arc<Mutex<Grille>>,
        largeur: usize,
    }

    #[derive(Debug, Default)]
    struct Grille {
        lignes: Vec<Vec<char>>,
        ligne: usize,
        colonne: usize,
        largeur: usize,
    }

    const LARGEUR: usize = 120;

    impl EcranMemoire {
        fn nouveau(largeur: usize) -> Self {
            EcranMemoire {
                grille: Arc::new(Mutex::new(Grille {
                    largeur,
                    ..Grille::default()
                })),
                largeur,
            }
        }

        fn grille(&self) -> MutexGuard<'_, Grille> {
            self.grille.lock().unwrap()
        }

        /// Ce qu'on lit à l'écran, une ligne par ligne de terminal, sans blancs de fin.
        fn contenu(&self) -> String {
            let g = self.grille();
            let mut lignes: Vec<String> = g
                .lignes
                .iter()
                .map(|l| l.iter().collect::<String>().trim_end().to_owned())
                .collect();
            while lignes.last().is_some_and(String::is_empty) {
                lignes.pop();
            }
            lignes.join("\n")
        }
    }

    impl Grille {
        fn ecrire(&mut self, s: &str) {
            for c in s.chars() {
                match c {
                    '\r' => self.colonne = 0,
                    '\n' => {
                        self.ligne += 1;
                        self.colonne = 0;
                    }
                    c => {
                        if self.colonne >= self.largeur {
                            self.ligne += 1;
                            self.colonne = 0;
                        }
                        while self.lignes.len() <= self.ligne {
                            self.lignes.push(Vec::new());
                        }
                        let l = &mut self.lignes[self.ligne];
                        while l.len() <= self.colonne {
                            l.push(' ');
                        }
                        l[self.colonne] = c;
                        self.colonne += 1;
                    }
                }
            }
        }
    }

    impl indicatif::TermLike for EcranMemoire {
        fn width(&self) -> u16 {
            self.largeur as u16
        }
        fn height(&self) -> u16 {
            50
        }
        fn move_cursor_up(&self, n: usize) -> io::Result<()> {
            let mut g = self.grille();
            g.ligne = g.ligne.saturating_sub(n);
            g.colonne = g.colonne.min(g.largeur - 1);
            Ok(())
        }
        fn move_cursor_down(&self, n: usize) -> io::Result<()> {
            self.grille().ligne += n;
            Ok(())
        }
        fn move_cursor_right(&self, n: usize) -> io::Result<()> {
            let mut g = self.grille();
            g.colonne = (g.colonne + n).min(g.largeur - 1);
            Ok(())
        }
        fn move_cursor_left(&self, n: usize) -> io::Result<()> {
            let mut g = self.grille();
            g.colonne = g.colonne.saturating_sub(n);
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            let mut g = self.grille();
            g.ecrire(s);
            g.ecrire("\n");
            Ok(())
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.grille().ecrire(s);
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            let mut g = self.grille();
            let i = g.ligne;
            if let Some(l) = g.lignes.get_mut(i) {
                l.clear();
            }
            g.colonne = 0;
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Une horloge qu'on avance à la main.
    #[derive(Debug, Clone, Default)]
    struct HorlogeManuelle(Arc<Mutex<Duration>>);

    impl HorlogeManuelle {
        fn avancer(&self, d: Duration) {
            *self.0.lock().unwrap() += d;
        }
    }

    impl Horloge for HorlogeManuelle {
        fn maintenant(&self) -> Duration {
            *self.0.lock().unwrap()
        }
    }

    /// Une unité en cours, pour les essais de `suivi/`.
    pub(in crate::suivi) fn unite(id: i64, chemin: &str, taille: u64) -> DepotUnite {
        DepotUnite {
            id,
            plan_id: 1,
            chemin: chemin.into(),
            cle: format!("nuit/{chemin}"),
            taille,
            modifie_ns: 0,
            etat: EtatUnite::EnCours,
            echec_definitif: false,
            cause_refus: None,
            message: None,
            envoi_multipart: None,
            enregistrement: None,
            declaration_emise: false,
            somme_controle: None,
            etag: None,
            modifie_depuis: false,
            identite: None,
            preparee: None,
        }
    }

    fn banc() -> (SuiviBarres, EcranMemoire, HorlogeManuelle) {
        banc_large(LARGEUR)
    }

    fn banc_large(largeur: usize) -> (SuiviBarres, EcranMemoire, HorlogeManuelle) {
        let ecran = EcranMemoire::nouveau(largeur);
        let horloge = HorlogeManuelle::default();
        let barres = SuiviBarres::nouveau(
            ProgressDrawTarget::term_like(Box::new(ecran.clone())),
            Box::new(horloge.clone()),
            Box::new(move || largeur),
            false,
        );
        (barres, ecran, horloge)
    }

    /// À 80 colonnes, des noms longs, un réessai qui décompte puis part, une coupure du réseau :
    /// aucune ligne ne se replie, le site et l'heure de chaque nom restent lisibles, et pendant
    /// la coupure les lignes de fichier le disent au lieu de rester figées.
    #[test]
    fn a_80_colonnes_aucune_ligne_ne_se_replie() {
        let (barres, ecran, horloge) = banc_large(80);
        let a = unite(1, NOM, 10_000_000);
        let b = unite(
            2,
            "sous-dossier/Car640139-2026-Pass1-A1-OB-1_20260621_221501_000.wav",
            10_000,
        );
        barres.debut(2, 10_010_000);
        barres.unite_commencee(&a);
        barres.unite_commencee(&b);
        barres.progression(&a, 4_000_000);
        barres.nouvelle_tentative(&b, 2, Duration::from_secs(12));
        barres.rafraichir();
        let vu = ecran.contenu();
        assert!(vu.contains("nouvelle tentative dans 12 s"), "{vu}");
        assert!(vu.contains("Car640139"), "le site est coupé : {vu}");
        assert!(
            vu.contains("-Pass1-A1…"),
            "le passage et le point sont coupés : {vu}"
        );
        assert!(vu.contains("_221500_000.wav"), "l'heure est coupée : {vu}");
        horloge.avancer(Duration::from_secs(13));
        barres.rafraichir();
        assert!(ecran.contenu().contains("nouvelle tentative en cours"));
        // Coupure : la barre d'ensemble décompte, et les lignes de fichier le disent.
        barres.reseau_indisponible(Duration::ZERO, Duration::from_secs(5));
        barres.rafraichir();
        let coupure = ecran.contenu();
        assert!(
            coupure.contains("réseau indisponible — nouvelle tentative dans 5 s"),
            "{coupure}"
        );
        // Celui qui avait commencé le dit : ses octets seront renvoyés.
        assert!(
            coupure.contains(" 40 % · sera renvoyé (réseau coupé)"),
            "{coupure}"
        );
        assert_eq!(
            coupure.matches("en attente du réseau").count(),
            1,
            "{coupure}"
        );
        assert!(!coupure.contains("en cours"), "{coupure}");
        // Une ligne repliée laisserait sa fin (« s 5 s », « rs ») seule sur la ligne suivante.
        let lignes: Vec<&str> = coupure.lines().collect();
        assert_eq!(lignes.len(), 3, "une ligne s'est repliée :\n{coupure}");
        assert!(lignes[0].starts_with("0/2 fichiers ["), "{coupure}");
        assert!(
            lignes[1..]
                .iter()
                .all(|l| l.starts_with("  Car640139-2026-Pass1-A1…")
                    || l.starts_with("  …Car640139…-Pass1-A1…")),
            "{coupure}"
        );
    }

    const NOM: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";

    #[test]
    fn un_reessai_de_1_2_s_se_lit_2_s_puis_1_s_puis_disparait_a_la_reprise() {
        let (barres, ecran, horloge) = banc();
        let u = unite(7, NOM, 1000);
        barres.debut(1, 1000);
        barres.unite_commencee(&u);
        barres.progression(&u, 400);
        barres.nouvelle_tentative(&u, 2, Duration::from_millis(1200));
        barres.rafraichir();
        let ecran0 = ecran.contenu();
        assert!(ecran0.contains("40 % · sera renvoyé dans 2 s"), "{ecran0}");

        horloge.avancer(Duration::from_millis(300));
        barres.progression(&u, 0);
        barres.rafraichir();
        let ecran1 = ecran.contenu();
        assert!(ecran1.contains("sera renvoyé dans 1 s"), "{ecran1}");
        assert!(!ecran1.contains("dans 2 s"), "{ecran1}");
        assert!(!ecran1.contains("0 s"), "{ecran1}");

        // La tentative repart et envoie : la mention s'efface.
        horloge.avancer(Duration::from_millis(1000));
        barres.progression(&u, 150);
        barres.rafraichir();
        let ecran2 = ecran.contenu();
        assert!(!ecran2.contains("renvoi"), "{ecran2}");
        assert!(ecran2.contains(" 15 %"), "{ecran2}");
        assert!(ecran2.contains("0/1 fichiers"), "{ecran2}");
    }

    #[test]
    fn la_barre_d_ensemble_compte_fichiers_et_octets_sans_les_tentatives_ratees() {
        let (barres, ecran, horloge) = banc();
        let a = unite(1, "a.wav", 2048);
        let b = unite(2, "b.wav", 2048);
        barres.debut(2, 4096);
        barres.unite_commencee(&a);
        barres.unite_commencee(&b);
        barres.progression(&a, 2048);
        barres.unite_deposee(&a);
        barres.progression(&b, 1024);
        barres.rafraichir();
        assert!(
            ecran.contenu().contains("1/2 fichiers"),
            "{}",
            ecran.contenu()
        );
        assert!(
            ecran.contenu().contains("3,0 Kio / 4,0 Kio"),
            "{}",
            ecran.contenu()
        );
        barres.nouvelle_tentative(&b, 2, Duration::from_millis(500));
        barres.progression(&b, 0);
        barres.rafraichir();
        assert!(
            ecran.contenu().contains("2,0 Kio / 4,0 Kio"),
            "{}",
            ecran.contenu()
        );
        assert!(!ecran.contenu().contains("a.wav"), "{}", ecran.contenu());
        horloge.avancer(Duration::from_secs(2));
        barres.progression(&b, 2048);
        barres.unite_deposee(&b);
        barres.rafraichir();
        let fin = ecran.contenu();
        assert!(
            fin.contains("2/2 fichiers") && fin.contains("4,0 Kio / 4,0 Kio"),
            "{fin}"
        );
        assert!(!fin.contains("b.wav"), "{fin}");
    }

    #[test]
    fn bandeau_reseau_indisponible_sur_la_barre_d_ensemble() {
        let (barres, ecran, horloge) = banc();
        barres.debut(1, 1000);
        barres.reseau_indisponible(Duration::ZERO, Duration::from_millis(4500));
        barres.rafraichir();
        assert!(
            ecran
                .contenu()
                .contains("réseau indisponible — nouvelle tentative dans 5 s"),
            "{}",
            ecran.contenu()
        );
        assert!(!ecran.contenu().contains("reste"), "{}", ecran.contenu());
        horloge.avancer(Duration::from_secs(2));
        barres.reseau_retabli();
        barres.rafraichir();
        assert!(!ecran.contenu().contains("réseau"), "{}", ecran.contenu());
        assert!(ecran.contenu().contains("reste"), "{}", ecran.contenu());
    }

    #[test]
    fn un_echec_reste_ecrit_au_dessus_des_barres_et_terminer_efface_tout() {
        let (barres, ecran, _) = banc();
        let u = unite(1, "a.wav", 10);
        barres.debut(1, 10);
        barres.unite_commencee(&u);
        barres.unite_en_echec(&u, CauseRefus::Droits, true, "403 AccessDenied");
        barres.rafraichir();
        let vu = ecran.contenu();
        assert!(
            vu.contains("✗ a.wav : refus définitif (DROITS) : 403 AccessDenied"),
            "{vu}"
        );
        assert!(vu.contains("0/1 fichiers (1 en échec)"), "{vu}");
        barres.terminer();
        let apres = ecran.contenu();
        assert!(apres.contains("✗ a.wav"), "{apres}");
        assert!(!apres.contains("fichiers"), "{apres}");
        // Après la fin, les événements tardifs ne redessinent rien.
        barres.unite_commencee(&unite(2, "b.wav", 10));
        barres.rafraichir();
        assert!(!ecran.contenu().contains("b.wav"));
    }
}
