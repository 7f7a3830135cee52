//! Ce que montrent les barres, calculé sans indicatif ni horloge réelle.
//!
//! Pourquoi à part : les règles d'affichage d'un réessai sont subtiles et c'est là qu'un
//! affichage ment. « nouvelle tentative dans N s » doit arrondir au-dessus et ne jamais dire
//! « 0 s » tant qu'on attend ; la mention doit tenir au moins une seconde (un état qui clignote
//! ne se lit pas, rustup `download.rs`) ; elle ne disparaît qu'à la reprise réelle du transfert ;
//! et les octets d'une tentative ratée ne doivent pas faire croire que la nuit avance. Ici, le
//! temps est un paramètre (`t`, écoulé depuis une origine quelconque) : les tests avancent d'un
//! coup, sans dormir. `barres.rs` ne fait que recopier ces textes dans indicatif.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use super::format::{nom_court, octets_lisibles, reste_lisible};
use super::secondes_au_dessus;

/// Durée minimale d'affichage d'un état transitoire (réessai, réseau indisponible).
pub(crate) const AFFICHAGE_MINIMAL: Duration = Duration::from_secs(1);
/// Largeur réservée au nom d'une unité sur sa ligne, au plus (moins sur un terminal étroit).
pub(crate) const LARGEUR_NOM: usize = 44;
/// En deçà, le nom ne se lit plus : la ligne est coupée en bout plutôt que le nom réduit.
const LARGEUR_NOM_MIN: usize = 12;
/// La largeur d'un terminal dont on ne sait rien.
pub(crate) const COLONNES_PAR_DEFAUT: usize = 80;
/// La fenêtre sur laquelle se mesure le débit de la barre d'ensemble : assez longue pour ne
/// pas sauter à chaque partie acquittée, assez courte pour tomber à zéro pendant une attente.
const FENETRE_DEBIT: Duration = Duration::from_secs(10);
/// En deçà d'une seconde mesurée, pas de débit (une seule partie ferait un chiffre absurde).
const MESURE_MIN: Duration = Duration::from_secs(1);
/// La barre la plus étroite qui se lise encore ; plus étroite, elle n'est pas dessinée.
const BARRE_MIN: usize = 8;
/// Ce que la fin d'une ligne d'unité peut prendre : « 100 % » et la plus longue mention
/// (« · nouvelle tentative dans 999 s »). Réservé pour que les noms restent alignés.
const FIN_DE_LIGNE: usize = 5 + 3 + 29;

/// Une attente annoncée : d'un réessai d'unité, ou du réseau entier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mention {
    /// Quand elle a été annoncée.
    depuis: Duration,
    /// Quand la nouvelle tentative part.
    jusqua: Duration,
    /// Quand la reprise a été constatée.
    reprise: Option<Duration>,
}

impl Mention {
    pub(crate) fn nouveau(t: Duration, attente: Duration) -> Mention {
        Mention {
            depuis: t,
            jusqua: t + attente,
            reprise: None,
        }
    }

    /// Encore à l'écran à l'instant `t` : jusqu'à la reprise, et au moins
    /// [`AFFICHAGE_MINIMAL`] après l'annonce.
    pub(crate) fn visible(&self, t: Duration) -> bool {
        self.reprise
            .is_none_or(|r| t < r.max(self.depuis + AFFICHAGE_MINIMAL))
    }

    /// « nouvelle tentative dans N s » tant qu'on attend (N arrondi au-dessus, donc jamais 0),
    /// puis « nouvelle tentative en cours » jusqu'à la reprise ; `None` une fois effacée.
    pub(crate) fn texte(&self, t: Duration) -> Option<String> {
        if !self.visible(t) {
            return None;
        }
        Some(if t < self.jusqua {
            format!(
                "nouvelle tentative dans {} s",
                secondes_au_dessus(self.jusqua - t)
            )
        } else {
            "nouvelle tentative en cours".to_owned()
        })
    }

    fn constater_reprise(&mut self, t: Duration) {
        self.reprise.get_or_insert(t);
    }
}

/// Un temps écoulé, arrondi à la seconde inférieure : « 45 s », « 3 min 05 s », « 2 h 05 min ».
pub(crate) fn depuis_lisible(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, sec) => format!("{sec} s"),
        (0, min, sec) => format!("{min} min {sec:02} s"),
        (h, min, _) => format!("{h} h {min:02} min"),
    }
}

/// La barre d'ensemble, calculée : le texte avant la barre, la barre (ses colonnes pleines et
/// vides ; aucune si les deux sont nulles), le texte après. `barres.rs` la dessine (en couleur
/// s'il le peut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LigneEnsemble {
    pub(crate) avant: String,
    pub(crate) plein: usize,
    pub(crate) vide: usize,
    pub(crate) apres: String,
}

impl LigneEnsemble {
    fn texte_seul(texte: String, utiles: usize) -> LigneEnsemble {
        LigneEnsemble {
            avant: texte.chars().take(utiles).collect(),
            plein: 0,
            vide: 0,
            apres: String::new(),
        }
    }

    /// Y a-t-il une barre à dessiner ?
    pub(crate) fn a_une_barre(&self) -> bool {
        self.plein + self.vide > 0
    }

    /// La ligne sans couleur : « avant [=====>    ] après ».
    pub(crate) fn texte(&self) -> String {
        if !self.a_une_barre() {
            return self.avant.clone();
        }
        format!("{} [{}] {}", self.avant, self.barre(), self.apres)
    }

    /// La barre seule, sans ses crochets : « =====>    ».
    pub(crate) fn barre(&self) -> String {
        let mut b = "=".repeat(self.plein);
        if self.vide > 0 && self.plein > 0 {
            b.pop();
            b.push('>');
        }
        b.push_str(&" ".repeat(self.vide));
        b
    }
}

/// Comment une unité a fini son passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fin {
    Deposee,
    Echec,
    Incertaine,
}

#[derive(Debug, Clone)]
struct Unite {
    nom: String,
    taille: u64,
    /// Le dernier courant annoncé (confirmé + tentative en cours) ; peut redescendre.
    octets: u64,
    mention: Option<Mention>,
    /// La tentative annoncée par `mention` renverra des octets déjà partis (le pourcentage
    /// va retomber) : la ligne dit « sera renvoyé » au lieu de « nouvelle tentative ».
    renvoi: bool,
    /// Finie, mais gardée à l'écran le temps que sa mention ait tenu sa seconde.
    fin: Option<(Fin, Duration)>,
}

/// L'état affiché d'un passage.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tableau {
    unites_total: u64,
    octets_total: u64,
    deposees: u64,
    echecs: u64,
    /// Octets des unités déposées (confirmés par la destination).
    octets_finis: u64,
    /// Octets des unités sorties du passage sans être déposées : ils ne sont plus « à envoyer ».
    octets_retires: u64,
    unites: BTreeMap<i64, Unite>,
    reseau: Option<Mention>,
    /// Quand la coupure en cours a commencé (même origine que `t`).
    coupe_a: Option<Duration>,
    /// Le parallélisme courant et son plafond, annoncés par le régulateur.
    parallelisme: Option<(usize, usize)>,
    /// La largeur du terminal (0 : inconnue, [`COLONNES_PAR_DEFAUT`]).
    colonnes: usize,
    /// Le passage a-t-il commencé (`debut`) ? Avant, il n'y a rien à mesurer : pas de barre.
    commence: bool,
    /// La position (octets acquis) relevée à chaque dessin, sur [`FENETRE_DEBIT`] : le débit.
    echantillons: VecDeque<(Duration, u64)>,
}

impl Tableau {
    /// La largeur du terminal, relue à chaque dessin (la fenêtre peut changer de taille).
    pub(crate) fn fixer_colonnes(&mut self, colonnes: usize) {
        self.colonnes = colonnes;
    }

    /// Une ligne ne va jamais jusqu'à la dernière colonne : certains terminaux passent alors à
    /// la ligne, et la barre se replie.
    fn colonnes_utiles(&self) -> usize {
        match self.colonnes {
            0 => COLONNES_PAR_DEFAUT - 1,
            c => c.saturating_sub(1),
        }
    }

    /// Le réseau est-il coupé (bandeau affiché, reprise pas encore constatée) ?
    fn reseau_coupe(&self) -> bool {
        self.reseau.is_some_and(|m| m.reprise.is_none())
    }

    pub(crate) fn debut(&mut self, unites: u64, octets: u64) {
        self.commence = true;
        self.unites_total = unites;
        self.octets_total = octets;
    }

    pub(crate) fn commencer(&mut self, id: i64, nom: &str, taille: u64) {
        self.unites.insert(
            id,
            Unite {
                nom: nom.to_owned(),
                taille,
                octets: 0,
                mention: None,
                renvoi: false,
                fin: None,
            },
        );
        // Sans `debut` (ou s'il a sous-compté), on ne montre jamais plus de fichiers faits que
        // de fichiers à faire.
        let vus = self.deposees + self.echecs + self.en_vol() as u64;
        self.unites_total = self.unites_total.max(vus);
    }

    /// Le courant d'une unité en vol. Une hausse après la fin de l'attente annoncée est la
    /// reprise du transfert : la mention s'efface (après sa seconde d'affichage).
    pub(crate) fn progression(&mut self, id: i64, octets: u64, t: Duration) {
        let Some(u) = self.unites.get_mut(&id) else {
            return;
        };
        if u.fin.is_some() {
            return;
        }
        let octets = octets.min(u.taille);
        if let Some(m) = &mut u.mention
            && octets > u.octets
            && t >= m.jusqua
        {
            m.constater_reprise(t);
        }
        u.octets = octets;
    }

    pub(crate) fn nouvelle_tentative(&mut self, id: i64, attente: Duration, t: Duration) {
        if let Some(u) = self.unites.get_mut(&id) {
            u.mention = Some(Mention::nouveau(t, attente));
            u.renvoi = u.octets > 0;
        }
    }

    /// L'unité a fini. Rend vrai si sa ligne doit disparaître tout de suite ; sinon elle reste
    /// le temps que sa mention ait tenu sa seconde ([`Tableau::a_retirer`] la rendra).
    pub(crate) fn finir(&mut self, id: i64, fin: Fin, t: Duration) -> bool {
        let Some(u) = self.unites.get_mut(&id) else {
            return false;
        };
        if u.fin.is_some() {
            return false;
        }
        match fin {
            Fin::Deposee => {
                self.deposees += 1;
                self.octets_finis += u.taille;
            }
            Fin::Echec | Fin::Incertaine => {
                self.echecs += 1;
                self.octets_retires += u.taille;
            }
        }
        let garder_jusqua = u
            .mention
            .filter(|m| m.visible(t))
            .map(|m| m.depuis + AFFICHAGE_MINIMAL)
            .filter(|&limite| t < limite);
        match garder_jusqua {
            Some(limite) => {
                u.fin = Some((fin, limite));
                false
            }
            None => {
                self.unites.remove(&id);
                true
            }
        }
    }

    /// Les unités finies dont la ligne a assez duré : retirées de l'état, leurs identifiants
    /// rendus pour que l'affichage retire leurs lignes.
    pub(crate) fn a_retirer(&mut self, t: Duration) -> Vec<i64> {
        let ids: Vec<i64> = self
            .unites
            .iter()
            .filter(|(_, u)| u.fin.is_some_and(|(_, limite)| t >= limite))
            .map(|(&id, _)| id)
            .collect();
        for id in &ids {
            self.unites.remove(id);
        }
        // Les mentions effacées ne servent plus.
        for u in self.unites.values_mut() {
            if u.mention.is_some_and(|m| !m.visible(t)) {
                u.mention = None;
            }
        }
        if self.reseau.is_some_and(|m| !m.visible(t)) {
            self.reseau = None;
            self.coupe_a = None;
        }
        ids
    }

    /// Le réseau est coupé depuis `depuis` ; la prochaine sonde part dans `attente`.
    pub(crate) fn reseau_indisponible(&mut self, depuis: Duration, attente: Duration, t: Duration) {
        self.reseau = Some(Mention::nouveau(t, attente));
        self.coupe_a = Some(t.saturating_sub(depuis));
    }

    pub(crate) fn reseau_retabli(&mut self, t: Duration) {
        if let Some(m) = &mut self.reseau {
            m.constater_reprise(t);
        }
    }

    fn en_vol(&self) -> usize {
        self.unites.values().filter(|u| u.fin.is_none()).count()
    }

    /// Octets acquis : ceux des unités déposées, plus le courant des unités en vol (qui
    /// redescend quand une tentative échoue : ses octets ne comptent pas).
    pub(crate) fn position(&self) -> u64 {
        let en_vol: u64 = self
            .unites
            .values()
            .filter(|u| u.fin.is_none())
            .map(|u| u.octets)
            .sum();
        (self.octets_finis + en_vol).min(self.longueur())
    }

    /// Octets à envoyer dans ce passage, moins ceux des unités sorties sans être déposées.
    pub(crate) fn longueur(&self) -> u64 {
        self.octets_total.saturating_sub(self.octets_retires)
    }

    /// Le régulateur a changé le parallélisme.
    pub(crate) fn parallelisme(&mut self, courant: usize, plafond: usize) {
        self.parallelisme = Some((courant, plafond));
    }

    /// « 3/20 fichiers », les échecs s'il y en a : « 3/20 fichiers (1 en échec) », et le
    /// parallélisme quand le régulateur l'a baissé sous son plafond : « · 2 en parallèle sur 4 ».
    pub(crate) fn fichiers(&self) -> String {
        let mut f = format!("{}/{} fichiers", self.deposees, self.unites_total);
        if self.echecs > 0 {
            f.push_str(&format!(" ({} en échec)", self.echecs));
        }
        if let Some((courant, plafond)) = self.parallelisme.filter(|(c, p)| c < p) {
            f.push_str(&format!(" · {courant} en parallèle sur {plafond}"));
        }
        f
    }

    /// Relève la position à l'instant `t`, pour le débit (appelé à chaque dessin).
    pub(crate) fn noter_position(&mut self, t: Duration) {
        let p = self.position();
        self.echantillons.push_back((t, p));
        while self.echantillons.len() > 2
            && self
                .echantillons
                .get(1)
                .is_some_and(|&(t1, _)| t.saturating_sub(t1) >= FENETRE_DEBIT)
        {
            self.echantillons.pop_front();
        }
    }

    /// Le débit mesuré sur la fenêtre (octets par seconde), s'il y a assez à mesurer. Une
    /// tentative ratée fait redescendre la position : elle ne compte pas en négatif.
    fn debit(&self, t: Duration) -> Option<f64> {
        let &(t0, p0) = self.echantillons.front()?;
        let duree = t.saturating_sub(t0);
        if duree < MESURE_MIN {
            return None;
        }
        Some(self.position().saturating_sub(p0) as f64 / duree.as_secs_f64())
    }

    /// Quand toutes les unités en vol attendent leur nouvelle tentative (un `Retry-After`,
    /// souvent), l'attente la plus proche de sa fin : rien ne passe d'ici là.
    fn prochaine_reprise(&self, t: Duration) -> Option<Duration> {
        let mut attentes = self
            .unites
            .values()
            .filter(|u| u.fin.is_none())
            .map(|u| u.mention.filter(|m| t < m.jusqua).map(|m| m.jusqua - t));
        attentes
            .try_fold(None, |plus_proche: Option<Duration>, a| {
                a.map(|a| Some(plus_proche.map_or(a, |p| p.min(a))))
            })
            .flatten()
    }

    /// La fin de la ligne d'ensemble, du plus utile au moins utile : le temps restant (ou,
    /// quand toutes les unités en vol attendent leur nouvelle tentative, la reprise), les
    /// octets, puis le débit.
    fn mesures(&self, t: Duration) -> (String, String, String) {
        let longueur = self.longueur();
        let position = self.position();
        let restant = longueur.saturating_sub(position);
        let debit = self.debit(t).filter(|d| *d >= 1.0);
        let reste = match (restant, debit, self.prochaine_reprise(t)) {
            (0, _, _) => format!("reste {}", reste_lisible(Duration::ZERO)),
            (_, _, Some(attente)) => {
                format!("reprise dans {} s", super::secondes_au_dessus(attente))
            }
            (r, Some(d), _) if (r as f64 / d) < 100.0 * 3600.0 => {
                format!(
                    "reste {}",
                    reste_lisible(Duration::from_secs_f64(r as f64 / d))
                )
            }
            _ => "reste —".to_owned(),
        };
        let octets = format!(
            "{} / {}",
            octets_lisibles(position),
            octets_lisibles(longueur)
        );
        let debit = debit.map_or_else(
            || "—".to_owned(),
            |d| format!("{}/s", octets_lisibles(d as u64)),
        );
        (reste, octets, debit)
    }

    /// La barre d'ensemble, qui tient dans la largeur du terminal sans se replier : « 3/20
    /// fichiers [=====>    ] 1,2 Gio / 4,0 Gio · 2,1 Mio/s · reste 23 min 10 s ». Quand la
    /// place manque, le parallélisme part d'abord, puis le débit, le total des octets, les
    /// octets ; la barre garde au moins [`BARRE_MIN`] colonnes, ou n'est pas dessinée. Pendant
    /// une coupure, le bandeau remplace les mesures. Avant le début du passage, rien à
    /// mesurer : le bandeau seul, sans barre (une barre pleine y ferait croire que tout est
    /// parti).
    pub(crate) fn ligne_ensemble(&self, t: Duration) -> Option<LigneEnsemble> {
        let utiles = self.colonnes_utiles();
        let bandeau = self.bandeau(t);
        // Avant le début du passage, rien à mesurer ; une nuit qui n'a rien à envoyer n'a pas
        // de barre (« 0/0 fichiers … 0 o / 0 o » ne dit rien de vrai).
        if !self.commence || self.unites_total == 0 {
            return bandeau.map(|b| LigneEnsemble::texte_seul(b, utiles));
        }
        let fichiers = self.fichiers();
        let sans_parallelisme = format!(
            "{}/{} fichiers{}",
            self.deposees,
            self.unites_total,
            if self.echecs > 0 {
                format!(" ({} en échec)", self.echecs)
            } else {
                String::new()
            }
        );
        let mut essais: Vec<(String, String)> = Vec::new();
        match &bandeau {
            Some(b) => {
                essais.push((fichiers.clone(), b.clone()));
                essais.push((sans_parallelisme.clone(), b.clone()));
            }
            None => {
                let (reste, octets, debit) = self.mesures(t);
                let position = octets_lisibles(self.position());
                let complet = format!("{octets} · {debit} · {reste}");
                essais.push((fichiers.clone(), complet.clone()));
                essais.push((sans_parallelisme.clone(), complet));
                essais.push((fichiers.clone(), format!("{octets} · {reste}")));
                essais.push((sans_parallelisme.clone(), format!("{octets} · {reste}")));
                essais.push((sans_parallelisme.clone(), format!("{position} · {reste}")));
                essais.push((sans_parallelisme.clone(), reste));
            }
        }
        let plein = |largeur: usize| -> usize {
            let longueur = self.longueur();
            if self.unites_total == 0 {
                0
            } else if longueur == 0 {
                if self.deposees + self.echecs >= self.unites_total {
                    largeur
                } else {
                    0
                }
            } else {
                ((self.position() as u128 * largeur as u128) / longueur as u128) as usize
            }
        };
        for (avant, apres) in &essais {
            // « avant [barre] après » : deux espaces et deux crochets autour de la barre.
            let texte = avant.chars().count() + apres.chars().count() + 4;
            if texte + BARRE_MIN <= utiles {
                let largeur = utiles - texte;
                let p = plein(largeur).min(largeur);
                return Some(LigneEnsemble {
                    avant: avant.clone(),
                    plein: p,
                    vide: largeur - p,
                    apres: apres.clone(),
                });
            }
        }
        // Trop étroit pour une barre : le texte le plus court, coupé s'il le faut.
        let (avant, apres) = essais.pop().unwrap_or_default();
        Some(LigneEnsemble::texte_seul(
            format!("{avant} · {apres}"),
            utiles,
        ))
    }

    /// Le bandeau de la barre d'ensemble pendant une coupure du réseau, qui dit depuis quand
    /// vigie attend (le portable laissé seul une nuit qui capte mal peut attendre des heures) :
    /// « réseau indisponible depuis 3 min 12 s — nouvelle tentative dans 5 s ».
    pub(crate) fn bandeau(&self, t: Duration) -> Option<String> {
        let texte = self.reseau?.texte(t)?;
        let depuis = self
            .coupe_a
            .map(|debut| t.saturating_sub(debut))
            .filter(|d| *d >= Duration::from_secs(1));
        Some(match depuis {
            Some(d) => format!("réseau indisponible depuis {} — {texte}", depuis_lisible(d)),
            None => format!("réseau indisponible — {texte}"),
        })
    }

    /// La ligne d'une unité : nom, pourcentage, et la mention de réessai s'il y en a une.
    /// Elle tient dans la largeur du terminal sans se replier : le nom cède la place (sa partie
    /// commune à toute la nuit d'abord), puis, sur un terminal très étroit, la fin de la ligne.
    /// Pendant une coupure du réseau, chaque unité en vol le dit, au lieu de rester figée.
    pub(crate) fn ligne_unite(&self, id: i64, t: Duration) -> Option<String> {
        let u = self.unites.get(&id)?;
        let utiles = self.colonnes_utiles();
        let largeur_nom = utiles
            .saturating_sub(2 + 1 + FIN_DE_LIGNE)
            .clamp(LARGEUR_NOM_MIN, LARGEUR_NOM);
        let nom = nom_court(&u.nom, largeur_nom);
        let ligne = self.ligne_complete(u, &nom, largeur_nom, t);
        Some(ligne.chars().take(utiles).collect())
    }

    fn ligne_complete(&self, u: &Unite, nom: &str, largeur_nom: usize, t: Duration) -> String {
        if let Some((fin, _)) = u.fin {
            let etat = match fin {
                Fin::Deposee => "déposé",
                Fin::Echec => "en échec",
                Fin::Incertaine => "issue inconnue",
            };
            return format!("  {nom:<largeur_nom$} {etat}");
        }
        // Un fichier vide est entier dès le départ.
        let pourcent = u
            .octets
            .saturating_mul(100)
            .checked_div(u.taille)
            .unwrap_or(100);
        let mut ligne = format!("  {nom:<largeur_nom$} {pourcent:>3} %");
        // Des octets déjà partis seront renvoyés : la ligne le dit avant que le pourcentage ne
        // retombe, au lieu de passer de 100 % à 0 % sans un mot.
        let mention = if self.reseau_coupe() {
            Some(if u.octets > 0 {
                "sera renvoyé (réseau coupé)".to_owned()
            } else {
                "en attente du réseau".to_owned()
            })
        } else {
            u.mention.and_then(|m| m.texte(t)).map(|texte| {
                if u.renvoi {
                    texte
                        .replace("nouvelle tentative dans", "sera renvoyé dans")
                        .replace("nouvelle tentative en cours", "renvoi en cours")
                } else {
                    texte
                }
            })
        };
        if let Some(texte) = mention {
            ligne.push_str(" · ");
            ligne.push_str(&texte);
        }
        ligne
    }

    /// Les identifiants des unités à l'écran.
    pub(crate) fn ids(&self) -> Vec<i64> {
        self.unites.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    const NOM: &str = "Car640139-2026-Pass1-A1-OB-1_20260621_221500_000.wav";

    #[test]
    fn un_reessai_de_1_2_s_decompte_2_puis_1_puis_s_efface_a_la_reprise() {
        let mut t = Tableau::default();
        t.debut(1, 1000);
        t.commencer(1, NOM, 1000);
        t.progression(1, 400, ms(0));
        t.nouvelle_tentative(1, ms(1200), ms(0));
        let ligne = |tab: &Tableau, ms_: u64| tab.ligne_unite(1, ms(ms_)).unwrap_or_default();
        // 400 octets déjà partis seront renvoyés : la ligne le dit avant que 40 % ne retombe.
        assert!(
            ligne(&t, 0).ends_with("40 % · sera renvoyé dans 2 s"),
            "{}",
            ligne(&t, 0)
        );
        assert!(ligne(&t, 199).ends_with("dans 2 s"));
        assert!(ligne(&t, 200).ends_with("dans 1 s"));
        assert!(
            ligne(&t, 1199).ends_with("dans 1 s"),
            "jamais « 0 s » tant qu'on attend"
        );
        // L'attente est finie, la tentative part mais n'a encore rien envoyé.
        assert!(ligne(&t, 1200).ends_with("0 % · renvoi en cours"));
        // Le moteur annonce le courant retombé à zéro (tentative ratée), puis une hausse.
        t.progression(1, 0, ms(1250));
        assert!(ligne(&t, 1300).ends_with("  0 % · renvoi en cours"));
        t.progression(1, 100, ms(1500));
        assert!(!ligne(&t, 1500).contains("renvoi"), "{}", ligne(&t, 1500));
        assert!(ligne(&t, 1500).contains(" 10 %"));
    }

    #[test]
    fn une_hausse_avant_la_fin_de_l_attente_n_est_pas_une_reprise() {
        // Un échantillon pris juste avant l'échec peut arriver après l'annonce.
        let mut t = Tableau::default();
        t.commencer(1, NOM, 1000);
        t.progression(1, 100, ms(0));
        t.nouvelle_tentative(1, ms(3000), ms(10));
        t.progression(1, 500, ms(20));
        assert!(
            t.ligne_unite(1, ms(1500))
                .unwrap_or_default()
                .ends_with("dans 2 s")
        );
    }

    #[test]
    fn un_etat_transitoire_tient_au_moins_une_seconde() {
        let mut t = Tableau::default();
        t.commencer(1, NOM, 1000);
        t.nouvelle_tentative(1, ms(100), ms(0));
        assert!(
            t.ligne_unite(1, ms(50))
                .unwrap_or_default()
                .ends_with("dans 1 s")
        );
        t.progression(1, 0, ms(100));
        t.progression(1, 200, ms(300));
        assert!(
            t.ligne_unite(1, ms(999))
                .unwrap_or_default()
                .contains("nouvelle tentative")
        );
        assert!(
            !t.ligne_unite(1, ms(1000))
                .unwrap_or_default()
                .contains("nouvelle tentative")
        );
        // Une unité finie pendant cette seconde garde sa ligne jusqu'au bout.
        let mut t2 = Tableau::default();
        t2.commencer(1, NOM, 1000);
        t2.nouvelle_tentative(1, ms(100), ms(0));
        assert!(!t2.finir(1, Fin::Deposee, ms(400)));
        assert!(
            t2.ligne_unite(1, ms(500))
                .unwrap_or_default()
                .ends_with("déposé")
        );
        assert!(t2.a_retirer(ms(900)).is_empty());
        assert_eq!(t2.a_retirer(ms(1000)), vec![1]);
        assert!(t2.ligne_unite(1, ms(1000)).is_none());
    }

    #[test]
    fn une_unite_finie_sans_mention_disparait_aussitot() {
        let mut t = Tableau::default();
        t.commencer(1, NOM, 1000);
        assert!(t.finir(1, Fin::Deposee, ms(10)));
        assert!(t.ids().is_empty());
        assert!(
            !t.finir(1, Fin::Deposee, ms(20)),
            "une fin n'est comptée qu'une fois"
        );
        assert_eq!(t.fichiers(), "1/1 fichiers");
    }

    #[test]
    fn les_octets_d_une_tentative_ratee_ne_gonflent_pas_la_progression() {
        let mut t = Tableau::default();
        t.debut(2, 3000);
        t.commencer(1, "a.wav", 1000);
        t.commencer(2, "b.wav", 2000);
        t.progression(1, 1000, ms(0));
        assert!(t.finir(1, Fin::Deposee, ms(0)));
        t.progression(2, 1500, ms(100));
        assert_eq!(t.position(), 2500);
        // La tentative échoue : le courant retombe aux octets confirmés (aucun ici).
        t.nouvelle_tentative(2, ms(500), ms(200));
        t.progression(2, 0, ms(300));
        assert_eq!(t.position(), 1000);
        t.progression(2, 2000, ms(900));
        assert!(t.finir(2, Fin::Deposee, ms(1300)));
        assert_eq!((t.position(), t.longueur()), (3000, 3000));
        assert_eq!(t.fichiers(), "2/2 fichiers");
    }

    #[test]
    fn une_unite_en_echec_sort_des_octets_a_envoyer() {
        let mut t = Tableau::default();
        t.debut(2, 3000);
        t.commencer(1, "a.wav", 1000);
        t.progression(1, 700, ms(0));
        assert!(t.finir(1, Fin::Echec, ms(10)));
        assert_eq!((t.position(), t.longueur()), (0, 2000));
        assert_eq!(t.fichiers(), "0/2 fichiers (1 en échec)");
    }

    #[test]
    fn parallelisme_baisse_dans_la_barre() {
        let mut t = Tableau::default();
        t.debut(20, 1000);
        assert_eq!(t.fichiers(), "0/20 fichiers");
        t.parallelisme(2, 4);
        assert_eq!(t.fichiers(), "0/20 fichiers · 2 en parallèle sur 4");
        t.parallelisme(4, 4);
        assert_eq!(t.fichiers(), "0/20 fichiers");
    }

    #[test]
    fn bandeau_reseau_indisponible() {
        let mut t = Tableau::default();
        assert_eq!(t.bandeau(ms(0)), None);
        t.reseau_indisponible(ms(0), ms(4500), ms(0));
        assert_eq!(
            t.bandeau(ms(0)).as_deref(),
            Some("réseau indisponible — nouvelle tentative dans 5 s")
        );
        assert_eq!(
            t.bandeau(ms(4000)).as_deref(),
            Some("réseau indisponible depuis 4 s — nouvelle tentative dans 1 s")
        );
        t.reseau_retabli(ms(4600));
        assert_eq!(t.bandeau(ms(4600)), None);
        // Annoncé puis rétabli aussitôt : le bandeau tient sa seconde.
        t.reseau_indisponible(ms(0), ms(200), ms(10_000));
        t.reseau_retabli(ms(10_300));
        assert!(t.bandeau(ms(10_900)).is_some());
        t.a_retirer(ms(11_000));
        assert_eq!(t.bandeau(ms(11_000)), None);
    }

    /// Une longue coupure : le bandeau dit depuis quand vigie attend, et le décompte de la
    /// sonde suivante ; chaque sonde annoncée garde le début de la coupure.
    #[test]
    fn le_bandeau_dit_depuis_quand_le_reseau_manque() {
        let mut t = Tableau::default();
        let min = |m: u64| ms(m * 60_000);
        // La veille annonce une sonde 14 min 30 s après le début de la coupure.
        t.reseau_indisponible(min(14) + ms(30_000), ms(30_000), min(20));
        assert_eq!(
            t.bandeau(min(20)).as_deref(),
            Some("réseau indisponible depuis 14 min 30 s — nouvelle tentative dans 30 s")
        );
        assert_eq!(
            t.bandeau(min(20) + ms(25_500)).as_deref(),
            Some("réseau indisponible depuis 14 min 55 s — nouvelle tentative dans 5 s")
        );
        t.reseau_indisponible(min(125), ms(30_000), min(130) + ms(30_000));
        assert_eq!(
            t.bandeau(min(130) + ms(30_000)).as_deref(),
            Some("réseau indisponible depuis 2 h 05 min — nouvelle tentative dans 30 s")
        );
        assert_eq!(depuis_lisible(ms(59_999)), "59 s");
    }

    /// Chaque ligne d'unité, dans chaque état, tient dans la largeur du terminal sans en
    /// toucher la dernière colonne ; les noms restent alignés.
    #[test]
    fn les_lignes_d_unite_tiennent_dans_la_largeur() {
        for colonnes in [40, 60, 80, 100, 200] {
            let mut t = Tableau::default();
            t.fixer_colonnes(colonnes);
            t.commencer(1, NOM, 1000);
            t.commencer(2, &format!("un/sous/dossier/très/profond/{NOM}"), 1000);
            t.commencer(3, "court.wav", 1000);
            t.nouvelle_tentative(1, ms(999_000), ms(0));
            t.nouvelle_tentative(2, ms(100), ms(0));
            assert!(!t.finir(3, Fin::Deposee, ms(0)) || t.ligne_unite(3, ms(0)).is_none());
            let mut lignes: Vec<String> = (1..=2)
                .filter_map(|id| t.ligne_unite(id, ms(500)))
                .collect();
            t.reseau_indisponible(ms(0), ms(5000), ms(600));
            lignes.extend((1..=2).filter_map(|id| t.ligne_unite(id, ms(700))));
            for l in &lignes {
                assert!(l.chars().count() < colonnes, "{colonnes} colonnes : {l}");
            }
            if colonnes >= 80 {
                assert!(
                    lignes[0].ends_with("nouvelle tentative dans 999 s"),
                    "{}",
                    lignes[0]
                );
                assert!(
                    lignes[1].ends_with("nouvelle tentative en cours"),
                    "{}",
                    lignes[1]
                );
                assert!(lignes[2].ends_with("en attente du réseau"), "{}", lignes[2]);
                let pourcent = |l: &str| {
                    let octet = l.find(" %").unwrap_or_default();
                    l[..octet].chars().count()
                };
                assert_eq!(
                    pourcent(&lignes[0]),
                    pourcent(&lignes[1]),
                    "colonnes alignées"
                );
            }
        }
    }

    #[test]
    fn ligne_d_unite_et_pourcentage() {
        let mut t = Tableau::default();
        t.commencer(1, NOM, 0);
        t.commencer(2, "court.wav", 1000);
        t.progression(2, 5000, ms(0));
        let l1 = t.ligne_unite(1, ms(0)).unwrap_or_default();
        let l2 = t.ligne_unite(2, ms(0)).unwrap_or_default();
        assert!(l1.ends_with("100 %") && l1.contains("…"), "{l1}");
        assert!(
            l2.starts_with("  court.wav ") && l2.ends_with("100 %"),
            "{l2}"
        );
        assert_eq!(l1.chars().count(), l2.chars().count(), "colonnes alignées");
    }
    /// La ligne d'ensemble tient dans la largeur, barre comprise, même avec les plus longs
    /// textes (« (8 en échec) », le parallélisme, des gigaoctets, des heures restantes).
    #[test]
    fn la_ligne_d_ensemble_tient_dans_la_largeur_avec_sa_barre() {
        for colonnes in [60, 80, 100, 120] {
            let mut t = Tableau::default();
            t.fixer_colonnes(colonnes);
            t.debut(1200, 40 * 1024 * 1024 * 1024);
            for id in 0..8 {
                t.commencer(id, NOM, 1000);
                t.finir(id, Fin::Echec, ms(0));
            }
            t.parallelisme(2, 4);
            t.commencer(100, NOM, 30 * 1024 * 1024 * 1024);
            t.noter_position(ms(0));
            t.progression(100, 1023 * 1024 * 1024, ms(1000));
            t.noter_position(ms(10_000));
            let l = t.ligne_ensemble(ms(10_000)).unwrap();
            let texte = l.texte();
            assert!(texte.chars().count() < colonnes, "{colonnes} : {texte}");
            assert!(l.plein + l.vide >= BARRE_MIN, "{colonnes} : {texte}");
            assert!(texte.contains("(8 en échec)"), "{colonnes} : {texte}");
            assert!(texte.contains("reste"), "{colonnes} : {texte}");
            if colonnes >= 100 {
                assert!(texte.contains("Mio/s"), "{colonnes} : {texte}");
            }
            // Pendant une coupure, le bandeau tient aussi.
            t.reseau_indisponible(Duration::from_secs(14 * 60 + 30), ms(30_000), ms(10_000));
            let texte = t.ligne_ensemble(ms(10_000)).unwrap().texte();
            assert!(texte.chars().count() < colonnes, "{colonnes} : {texte}");
            assert!(
                texte.contains("réseau indisponible"),
                "{colonnes} : {texte}"
            );
        }
    }

    /// Avant le début du passage (réseau absent au départ), ou sans rien à envoyer : jamais de
    /// barre pleine.
    #[test]
    fn pas_de_barre_pleine_quand_rien_n_est_parti() {
        let mut t = Tableau::default();
        t.fixer_colonnes(80);
        assert_eq!(t.ligne_ensemble(ms(0)), None);
        t.reseau_indisponible(Duration::ZERO, ms(5000), ms(0));
        let l = t.ligne_ensemble(ms(0)).unwrap();
        assert!(!l.a_une_barre(), "{l:?}");
        assert_eq!(
            l.texte(),
            "réseau indisponible — nouvelle tentative dans 5 s"
        );
        t.reseau_retabli(ms(2000));
        t.a_retirer(ms(2000));
        // Une nuit qui n'a rien à envoyer n'a pas de barre (« 0/0 fichiers … 0 o / 0 o »).
        t.debut(0, 0);
        assert_eq!(t.ligne_ensemble(ms(2000)), None);
    }

    /// Pendant un `Retry-After` qui retient tous les envois, la ligne d'ensemble décompte la
    /// reprise au lieu de rester sur « reste — ».
    #[test]
    fn pendant_un_retry_after_la_ligne_d_ensemble_decompte_la_reprise() {
        let mut t = Tableau::default();
        t.fixer_colonnes(80);
        t.debut(2, 2000);
        t.commencer(1, "a.wav", 1000);
        t.commencer(2, "b.wav", 1000);
        t.noter_position(ms(0));
        t.nouvelle_tentative(1, ms(60_000), ms(0));
        t.nouvelle_tentative(2, ms(45_000), ms(0));
        for s in 1..=30 {
            t.noter_position(ms(s * 1000));
        }
        let texte = t.ligne_ensemble(ms(30_000)).unwrap().texte();
        assert!(texte.ends_with("reprise dans 15 s"), "{texte}");
        assert!(!texte.contains("reste —"), "{texte}");
        // Le débit, mesuré sur la fenêtre, revient avec les octets.
        t.progression(2, 1000, ms(46_000));
        t.noter_position(ms(46_000));
        t.noter_position(ms(48_000));
        let texte = t.ligne_ensemble(ms(48_000)).unwrap().texte();
        assert!(texte.contains("o/s"), "{texte}");
        assert!(texte.contains("reste"), "{texte}");
    }
}
