//! La saison : toutes les nuits d'un ou plusieurs dossiers, chacune vers sa participation.
//!
//! Ici, sans un mot (ce qui s'en dit est dans `suivi/saison.rs`), ce que la commande décide ;
//! d'abord les briques **pures** (ni réseau, ni base, ni horloge) :
//! - [`nuits`] : regrouper les enregistrements en nuits d'après leur nom (site, année,
//!   passage, point, soirée ; une participation par circuit et par passage en routier), et
//!   rattacher à sa nuit ce qui n'a pas de nom de protocole (archives) ;
//! - [`sites`] : rapprocher le numéro de site des noms (`Car640380`) des sites de
//!   l'utilisateur (titre `« <protocole>-<numéro> »`, `resources/sites.py` `create_site`) ;
//! - [`correspondance`] : dire si une participation existante de la plateforme est cette
//!   nuit (même point, même nuit, du même observateur), et attribuer à chaque nuit la sienne,
//!   ou aucune (à créer), ou refuser quand la plateforme laisse un doute ;
//! - [`sort`] : ce qui revient à chaque nuit de la commande (garder son plan, reprendre sa
//!   participation, la créer), et la nuit telle que la base la garde ;
//! - [`decision`] : le sort de chaque nuit une fois la plateforme lue (son site, sa
//!   participation), et les refus d'avant toute écriture, en valeurs (les nuits liées se
//!   lisent dans la base) ;
//! - [`examen`] : ce qui empêche le dépôt d'un dossier, relevé d'un coup avant tout envoi
//!   (seule brique qui lise le disque : les journaux d'enregistreur) ;
//! - [`designation`] : nommer une nuit comme la bénévole la nomme (`21/06 A1`), dans les
//!   arguments de chaque commande d'après le dépôt comme dans les conseils (elle seule lit la
//!   base : les nuits de la saison visée).
//!
//! Pourquoi pures : la plateforme ne permet pas de retirer un fichier accepté ; la décision
//! « ce fichier va dans cette participation » doit se vérifier sur tous ses cas limites
//! (minuit, deux enregistreurs, deux passages, une participation créée sur le site web, à
//! l'heure d'été…) sans serveur, et se relire d'un coup d'œil.
//!
//! Puis ce qui lit ou écrit, en s'appuyant sur elles : [`reunion`] (les dossiers réunis sous
//! leur ancêtre commun, ce que chaque nuit y lit), [`lecture`] (la plateforme lue avant toute
//! écriture), [`planification`] (la destination, la racine et le verrou de chaque nuit, les
//! nuits reprises par `retenter-echecs`), [`reprise`] (chaque nuit reprise replanifiée sur
//! ses seuls fichiers, les nuits nouvelles de ses racines relevées), [`course`] (les créations de participations, puis
//! la course, puis le bilan : le sort de chaque nuit dont la création manque).

pub(crate) mod correspondance;
pub(crate) mod course;
pub(crate) mod decision;
pub(crate) mod designation;
pub(crate) mod examen;
pub(crate) mod fuseau;
pub(crate) mod horloge;
pub(crate) mod lecture;
pub(crate) mod nuits;
pub(crate) mod planification;
pub(crate) mod reprise;
pub(crate) mod reunion;
pub(crate) mod sites;
pub(crate) mod sort;

/// Un fuseau d'essai qui change d'heure comme Paris en 2026 (heure d'été du 29 mars 1 h UTC
/// au 25 octobre 1 h UTC) : de quoi éprouver les heures qui se répètent ou n'existent pas sans
/// dépendre du fuseau de la machine.
#[cfg(test)]
pub(crate) mod fuseau_essai {
    use chrono::{FixedOffset, MappedLocalTime, NaiveDate, NaiveDateTime, TimeDelta, TimeZone};

    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Paris2026;

    fn ete_utc() -> (NaiveDateTime, NaiveDateTime) {
        let t = |m, j| {
            NaiveDate::from_ymd_opt(2026, m, j)
                .unwrap()
                .and_hms_opt(1, 0, 0)
                .unwrap()
        };
        (t(3, 29), t(10, 25))
    }

    fn decalage(heures: i32) -> FixedOffset {
        FixedOffset::east_opt(heures * 3600).unwrap()
    }

    impl TimeZone for Paris2026 {
        type Offset = FixedOffset;

        fn from_offset(_: &FixedOffset) -> Self {
            Paris2026
        }

        fn offset_from_local_date(&self, _: &NaiveDate) -> MappedLocalTime<FixedOffset> {
            unimplemented!("non utilisé par les essais")
        }

        fn offset_from_local_datetime(
            &self,
            local: &NaiveDateTime,
        ) -> MappedLocalTime<FixedOffset> {
            let candidats: Vec<FixedOffset> = [decalage(1), decalage(2)]
                .into_iter()
                .filter(|o| {
                    let utc = *local - TimeDelta::seconds(i64::from(o.local_minus_utc()));
                    self.offset_from_utc_datetime(&utc) == *o
                })
                .collect();
            match candidats.as_slice() {
                [] => MappedLocalTime::None,
                [o] => MappedLocalTime::Single(*o),
                // La plus tôt d'abord : l'heure d'été (+2) précède, en UTC, l'heure d'hiver.
                [a, b] => MappedLocalTime::Ambiguous(*b, *a),
                _ => unreachable!(),
            }
        }

        fn offset_from_utc_date(&self, _: &NaiveDate) -> FixedOffset {
            unimplemented!("non utilisé par les essais")
        }

        fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
            let (debut, fin) = ete_utc();
            if (debut..fin).contains(utc) {
                decalage(2)
            } else {
                decalage(1)
            }
        }
    }
}
