//! Une participation existante est-elle cette nuit ? Et, pour toute une saison, quelle
//! participation revient à chaque nuit.
//!
//! Ce que rend le serveur (`GET /sites/{id}/participations`, `resources/participations.py`
//! `list_site_participations`, paginé par `xin/snippets.py` `Paginator`, **sans tri**) :
//! chaque participation du site, de **tous** les observateurs, avec `observateur` développé,
//! `point` (absent si personne ne l'a choisi : le site web ne le propose qu'aux sites point
//! fixe, et ses anciennes versions ne l'envoyaient pas), `date_debut` (obligatoire) et
//! `date_fin` (facultative) en `isoformat()` **sans fuseau**, UTC implicite (`xin/tools.py`
//! `MongoJsonEncoder`). La participation ne dit ni son passage ni son enregistreur.
//!
//! Ce que font ceux qui les créent :
//! - `vigie` : `date_debut` et `date_fin` sont la première et la dernière séquence de la nuit ;
//! - le site web (`vigiechiro-front`, `participation_ctrl.coffee` `save`) : une date saisie
//!   `jj/mm/aaaa hh:mm` à l'heure du navigateur, **l'instant de la saisie par défaut** (si
//!   l'observateur ne la change pas, c'est l'heure à laquelle il a créé la participation, le
//!   plus souvent le matin qui suit la nuit) ; `date_fin` facultative. Relue pour être
//!   modifiée, la date sans fuseau est prise pour une heure locale puis renvoyée en UTC :
//!   chaque modification sur le site web la décale du décalage horaire (−1 h ou −2 h en
//!   France).
//!
//! D'où la règle, pour une participation `p` et une nuit `n` (fuseau de l'enregistreur donné) :
//! 1. si `p` contient déjà un fichier de protocole (le premier de sa liste de pièces jointes),
//!    c'est la nuit de ce fichier, d'après son nom, et aucune autre : preuve par les fichiers ;
//! 2. sinon, son point doit être celui de la nuit (sans égard à la casse ; en routier, le point
//!    n'est pas regardé) ; sans point, pour une nuit de point fixe, elle est **sans point** :
//!    `vigie` ne devine pas lequel ;
//! 3. et sa nuit doit être celle de `n` : la soirée de `date_debut` (lue dans le fuseau de
//!    l'enregistreur, la même règle de midi) est celle de la nuit, ou bien
//!    `[date_debut, date_fin]` chevauche la première et la dernière séquence. Le décalage d'une
//!    modification sur le site web (2 h) ne change pas une soirée ; une date laissée à
//!    l'instant de la saisie, si la saisie a eu lieu avant midi le lendemain, non plus ;
//! 4. enfin elle doit être **de l'utilisateur** (`observateur` = `_id` de `GET /moi`) : celle
//!    d'un autre observateur n'est jamais reprise (le serveur laisserait y déposer :
//!    `xin/schema.py` ne lance jamais `_validate_participation`), elle est seulement dite.
//!
//! Pour une saison ([`attribuer`]) : une participation qui convient à deux nuits (une
//! `date_fin` une semaine plus tard, par exemple) est refusée pour les deux ; deux
//! participations qui conviennent à une nuit aussi, sauf si une seule contient déjà des fichiers
//! de cette nuit (elle l'emporte ; les autres sont dites écartées) ou si une seule a le bon
//! point quand les autres n'en ont pas. Une nuit sans participation est à créer.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, TimeZone, Utc};

use crate::destination::IdObjet;
use crate::inventaire::Enregistrement;
use crate::saison::nuits::{CleNuit, Nuit, Protocole, cle_du_nom, soiree_de};
use crate::saison::sites::SiteConnu;

/// Une participation de la plateforme, telle que la correspondance la regarde.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParticipationVue {
    pub(crate) id: IdObjet,
    /// `observateur` ; `None` si la plateforme ne l'a pas dit (jamais tenue pour sienne).
    pub(crate) observateur: Option<IdObjet>,
    pub(crate) point: Option<String>,
    pub(crate) debut: Option<DateTime<Utc>>,
    pub(crate) fin: Option<DateTime<Utc>>,
    /// Le titre d'un fichier déjà dans la participation (le premier de sa liste), s'il y en a.
    pub(crate) un_titre: Option<String>,
}

impl ParticipationVue {
    /// La participation donnée (`--participation`), telle que la plateforme la décrit ;
    /// `un_titre` : un fichier que `vigie` y a déjà déposé (d'après la base), qui dit son
    /// passage et sa soirée (la participation ne dit pas son passage).
    pub(crate) fn de_la_plateforme(
        id: IdObjet,
        p: &crate::transport::vigiechiro::Participation,
        un_titre: Option<String>,
    ) -> Self {
        ParticipationVue {
            id,
            observateur: None,
            point: p.point.clone(),
            debut: p.date_debut.as_deref().and_then(date_plateforme),
            fin: p.date_fin.as_deref().and_then(date_plateforme),
            un_titre,
        }
    }

    /// Une participation à créer (`--debut`, `--fin`) : ni identifiant (`ecarts` ne le lit
    /// pas), ni point (celui de `--point`, l'utilisateur vient de le taper, n'est pas un refus).
    pub(crate) fn a_creer(
        debut: &crate::horodatage::InstantUtc,
        fin: &crate::horodatage::InstantUtc,
    ) -> Self {
        let instant = |i: &crate::horodatage::InstantUtc| DateTime::from_timestamp(i.secondes(), 0);
        ParticipationVue {
            id: IdObjet::nul(),
            observateur: None,
            point: None,
            debut: instant(debut),
            fin: instant(fin),
            un_titre: None,
        }
    }
}

/// Une nuit, avec les bornes UTC que sa participation recevrait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NuitDatee<'a> {
    pub(crate) cle: &'a CleNuit,
    /// Première et dernière séquence (point fixe) ; en routier, celles que la commande a
    /// retenues, s'il y en a.
    pub(crate) bornes: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

/// Ce qui fait dire qu'une participation est une nuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Preuve {
    /// Elle contient déjà un fichier de cette nuit.
    Fichiers,
    /// Son point et ses dates.
    Dates,
}

/// Le verdict d'une participation pour une nuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Même point, même nuit, à l'utilisateur.
    Meme(Preuve),
    /// Même point (ou sans point), même nuit, mais d'un autre observateur : jamais reprise.
    DAutrui,
    /// Même nuit d'après ses dates, à l'utilisateur, mais sans point : `vigie` ne devine pas.
    SansPoint,
    /// Une autre nuit, ou un autre point.
    Autre,
}

/// Une date rendue par la plateforme : `isoformat()` sans fuseau (UTC implicite), avec ou sans
/// fraction de seconde ; tolère un fuseau explicite et la RFC 1123.
pub(crate) fn date_plateforme(texte: &str) -> Option<DateTime<Utc>> {
    let t = texte.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(d.with_timezone(&Utc));
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(t) {
        return Some(d.with_timezone(&Utc));
    }
    NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|n| n.and_utc())
}

fn local<Z: TimeZone>(t: DateTime<Utc>, fuseau: &Z) -> NaiveDateTime {
    t.with_timezone(fuseau).naive_local()
}

/// Le verdict de la participation `p` pour la nuit `n`, vue par l'utilisateur `moi`, les
/// heures des noms étant celles du `fuseau` de l'enregistreur. Voir l'en-tête du module.
pub(crate) fn verdict<Z: TimeZone>(
    p: &ParticipationVue,
    n: &NuitDatee<'_>,
    moi: &IdObjet,
    fuseau: &Z,
) -> Verdict {
    let a_moi = p.observateur.as_ref() == Some(moi);
    if let Some(cle) = p.un_titre.as_deref().and_then(cle_du_nom) {
        return match (cle == *n.cle, a_moi) {
            (false, _) => Verdict::Autre,
            (true, true) => Verdict::Meme(Preuve::Fichiers),
            (true, false) => Verdict::DAutrui,
        };
    }
    let point = p.point.as_deref().map(str::trim).filter(|x| !x.is_empty());
    let point_connu = match (n.cle.point.as_deref(), point) {
        (Some(attendu), Some(lu)) if attendu.eq_ignore_ascii_case(lu) => true,
        (Some(_), Some(_)) => return Verdict::Autre,
        (Some(_), None) => false,
        (None, _) => true,
    };
    let Some(debut) = p.debut else {
        return Verdict::Autre;
    };
    match (
        meme_nuit_par_dates(debut, p.fin, n, fuseau),
        a_moi,
        point_connu,
    ) {
        (false, _, _) => Verdict::Autre,
        (true, false, _) => Verdict::DAutrui,
        (true, true, false) => Verdict::SansPoint,
        (true, true, true) => Verdict::Meme(Preuve::Dates),
    }
}

/// La soirée d'une nuit : celle de ses noms, ou en routier celle des bornes retenues.
fn soiree_de_nuit<Z: TimeZone>(n: &NuitDatee<'_>, fuseau: &Z) -> Option<NaiveDate> {
    n.cle
        .soiree
        .or_else(|| n.bornes.map(|(d, _)| soiree_de(local(d, fuseau))))
}

/// Des dates de participation sont-elles cette nuit ? La soirée de `debut` (lue dans le fuseau
/// de l'enregistreur) est la sienne, ou `[debut, fin]` chevauche ses séquences (règle 3 de
/// l'en-tête).
fn meme_nuit_par_dates<Z: TimeZone>(
    debut: DateTime<Utc>,
    fin: Option<DateTime<Utc>>,
    n: &NuitDatee<'_>,
    fuseau: &Z,
) -> bool {
    let meme_soiree = soiree_de_nuit(n, fuseau) == Some(soiree_de(local(debut, fuseau)));
    let chevauche = match (fin, n.bornes) {
        (Some(fin), Some((premiere, derniere))) => debut <= derniere && premiere <= fin,
        _ => false,
    };
    meme_soiree || chevauche
}

/// Ce qui, dans les noms d'une nuit, n'est pas la participation désignée (`--participation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ecart {
    /// Le numéro de site des noms (ou leur famille, `Car`/`Cir`) n'est pas celui du site de
    /// la participation, lu dans son titre `« <protocole>-<numéro> »` ou sa grille.
    Site { noms: String, participation: String },
    /// Le point des noms n'est pas celui de la participation.
    Point { noms: String, participation: String },
    /// La soirée des noms n'est pas celle de la participation : celle de ses dates, ou celle
    /// du fichier qu'elle contient déjà.
    Soiree {
        noms: NaiveDate,
        participation: NaiveDate,
    },
    /// Le passage des noms n'est pas celui du fichier qu'elle contient déjà (la participation
    /// ne dit pas son passage : sans fichier connu, il n'est pas comparé).
    Passage { noms: u8, participation: u8 },
}

impl Ecart {
    /// Ce qui diffère (`site`, `point`, `soiree`, `passage`), puis la valeur des noms et
    /// celle de la participation (une soirée en AAAA-MM-JJ, un passage par son numéro) : ce
    /// qu'en tirent la ligne d'écart affichée et l'écart nommé du JSON.
    pub(crate) fn champs(&self) -> (&'static str, String, String) {
        match self {
            Ecart::Site {
                noms,
                participation,
            } => ("site", noms.clone(), participation.clone()),
            Ecart::Point {
                noms,
                participation,
            } => ("point", noms.clone(), participation.clone()),
            Ecart::Soiree {
                noms,
                participation,
            } => ("soiree", noms.to_string(), participation.to_string()),
            Ecart::Passage {
                noms,
                participation,
            } => ("passage", noms.to_string(), participation.to_string()),
        }
    }
}

/// Les écarts entre chaque nuit de ces enregistrements (ses bornes lues dans `fuseau`) et la
/// participation `vue` (de `site`, s'il a pu être lu), par la règle de [`ecarts`] ; chacun une
/// fois, dans l'ordre des nuits.
pub(crate) fn ecarts_des_nuits<Z: TimeZone>(
    enregistrements: &[Enregistrement],
    vue: &ParticipationVue,
    site: Option<&SiteConnu>,
    fuseau: &Z,
) -> Vec<Ecart> {
    let mut tous: Vec<Ecart> = Vec::new();
    for n in &crate::saison::nuits::regrouper(enregistrements).nuits {
        let datee = NuitDatee {
            cle: &n.cle,
            bornes: crate::saison::nuits::bornes_utc(n, fuseau),
        };
        for e in ecarts(vue, site, &datee, fuseau) {
            if !tous.contains(&e) {
                tous.push(e);
            }
        }
    }
    tous
}

/// Les écarts entre la nuit `n` et la participation désignée `p`, dont le site est `site`
/// (s'il a pu être lu), les heures des noms étant celles du `fuseau` de l'enregistreur.
///
/// Règles : le site par [`SiteConnu::porte`] et [`SiteConnu::accepte`] (le numéro des noms à
/// la fin du titre, la famille au type du site) ; le point sans égard à la casse, celui de la
/// participation, ou, si elle n'en a pas, celui de `p.un_titre` (une participation sans point
/// ni fichier de protocole connu n'en contredit aucun) ; si `p.un_titre` est un fichier de
/// protocole déjà dans la participation, sa soirée et son passage font foi aussi ; sinon la
/// soirée par les dates (même règle que [`verdict`]), et le passage n'est pas comparé.
pub(crate) fn ecarts<Z: TimeZone>(
    p: &ParticipationVue,
    site: Option<&SiteConnu>,
    n: &NuitDatee<'_>,
    fuseau: &Z,
) -> Vec<Ecart> {
    let mut e = Vec::new();
    if let Some(s) = site
        && (s.porte(&n.cle.site).is_none() || !s.accepte(n.cle.protocole))
    {
        e.push(Ecart::Site {
            noms: n.cle.site.clone(),
            participation: s.titre.clone(),
        });
    }
    let deja = p.un_titre.as_deref().and_then(cle_du_nom);
    let point = p
        .point
        .as_deref()
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_owned)
        .or_else(|| deja.as_ref().and_then(|k| k.point.clone()));
    if let (Some(noms), Some(lu)) = (n.cle.point.as_deref(), point.as_deref())
        && !noms.eq_ignore_ascii_case(lu)
    {
        e.push(Ecart::Point {
            noms: noms.to_owned(),
            participation: lu.to_owned(),
        });
    }
    match &deja {
        Some(k) => {
            if let (Some(noms), Some(lu)) = (soiree_de_nuit(n, fuseau), k.soiree)
                && noms != lu
            {
                e.push(Ecart::Soiree {
                    noms,
                    participation: lu,
                });
            }
            if k.passage != n.cle.passage {
                e.push(Ecart::Passage {
                    noms: n.cle.passage,
                    participation: k.passage,
                });
            }
        }
        None => {
            if let (Some(debut), Some(noms)) = (p.debut, soiree_de_nuit(n, fuseau))
                && !meme_nuit_par_dates(debut, p.fin, n, fuseau)
            {
                e.push(Ecart::Soiree {
                    noms,
                    participation: soiree_de(local(debut, fuseau)),
                });
            }
        }
    }
    e
}

/// Plus grand écart admis entre les dates de modification des fichiers d'une nuit routière
/// pour en tirer les dates de sa participation : une sortie se fait dans la nuit.
const SORTIE_MAX: TimeDelta = TimeDelta::hours(24);

/// Les dates de la participation à créer pour une nuit **routière ou pédestre** (`Cir…`), dont
/// les noms ne portent pas d'instant (`…-Tron1-Chiro_0_00001_000`) : la plus ancienne et la
/// plus récente date de modification de ses fichiers (l'enregistreur écrit chaque séquence à
/// la fin de son enregistrement), à la seconde inférieure et supérieure, au moins 1 s d'écart.
/// `None` si elles ne tiennent pas en 24 h ou sont dans le futur (`maintenant`) : des fichiers
/// copiés sans leurs dates, une horloge déréglée ; la date d'une nuit ne se devine pas. Le
/// serveur exige `date_debut` (`resources/participations.py` `SCHEMA`, `required`) et ne
/// demande rien d'autre à une participation routière : pas de point (`create_participation`,
/// `point` facultatif ; un site routier n'a pas de points : `resources/sites.py`).
pub(crate) fn bornes_par_modification(
    nuit: &Nuit,
    enregistrements: &[Enregistrement],
    maintenant: DateTime<Utc>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    if nuit.cle.protocole != Protocole::Routier {
        return None;
    }
    let dates = nuit.fichiers.iter().map(|&i| enregistrements[i].modifie_ns);
    let (premiere, derniere) = dates.fold(None, |acc: Option<(i64, i64)>, d| match acc {
        None => Some((d, d)),
        Some((a, b)) => Some((a.min(d), b.max(d))),
    })?;
    const NS: i64 = 1_000_000_000;
    let debut = DateTime::from_timestamp(premiere.div_euclid(NS), 0)?;
    let fin = DateTime::from_timestamp((derniere + NS - 1).div_euclid(NS), 0)?;
    let fin = fin.max(debut + TimeDelta::seconds(1));
    (fin - debut <= SORTIE_MAX && fin <= maintenant).then_some((debut, fin))
}

/// Ce qui revient à une nuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IssueNuit {
    /// Sa participation existe : elle est reprise.
    Reprise {
        participation: IdObjet,
        preuve: Preuve,
    },
    /// Aucune participation de l'utilisateur n'est cette nuit : à créer.
    ACreer,
    /// Plusieurs participations de l'utilisateur conviennent : refus, avant tout envoi.
    Ambigue(Vec<IdObjet>),
    /// Seules des participations sans point tombent sur cette nuit : refus, avant tout envoi.
    SansPoint(Vec<IdObjet>),
    /// Cette participation convient aussi à d'autres nuits de la saison (indices) : refus.
    Partagee {
        participation: IdObjet,
        nuits: Vec<usize>,
    },
}

/// Ce qui revient à chaque nuit d'une saison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Attribution {
    /// Une issue par nuit, dans l'ordre des nuits données.
    pub(crate) issues: Vec<IssueNuit>,
    /// (nuit, participation) d'un autre observateur au même point la même nuit : jamais
    /// reprises, dites à l'utilisateur.
    pub(crate) d_autrui: Vec<(usize, IdObjet)>,
    /// (nuit, participation) de l'utilisateur qui convenaient aussi, laissées pour celle qui
    /// contient déjà des fichiers de la nuit (ou qui a le bon point) : dites, jamais remplies.
    pub(crate) ecartees: Vec<(usize, IdObjet)>,
}

/// Attribue à chaque nuit sa participation parmi celles de son site (voir l'en-tête du
/// module). Les nuits déjà liées à une participation par la base des plans (une relance) n'y
/// sont pas : elles gardent la leur, et celle-ci n'est pas proposée aux autres.
pub(crate) fn attribuer<Z: TimeZone>(
    nuits: &[NuitDatee<'_>],
    participations: &[ParticipationVue],
    moi: &IdObjet,
    fuseau: &Z,
) -> Attribution {
    let verdicts: Vec<Vec<Verdict>> = nuits
        .iter()
        .map(|n| {
            participations
                .iter()
                .map(|p| verdict(p, n, moi, fuseau))
                .collect()
        })
        .collect();
    // Les nuits auxquelles chaque participation convient.
    let nuits_de = |j: usize| -> Vec<usize> {
        (0..nuits.len())
            .filter(|&i| matches!(verdicts[i][j], Verdict::Meme(_)))
            .collect()
    };
    let mut a = Attribution::default();
    for (i, ligne) in verdicts.iter().enumerate() {
        let ids = |garder: &dyn Fn(Verdict) -> bool| -> Vec<IdObjet> {
            let mut v: Vec<IdObjet> = ligne
                .iter()
                .zip(participations)
                .filter(|(v, _)| garder(**v))
                .map(|(_, p)| p.id.clone())
                .collect();
            v.sort();
            v
        };
        for id in ids(&|v| v == Verdict::DAutrui) {
            a.d_autrui.push((i, id));
        }
        let partagee = ligne
            .iter()
            .enumerate()
            .find(|(j, v)| matches!(v, Verdict::Meme(_)) && nuits_de(*j).len() > 1);
        if let Some((j, _)) = partagee {
            a.issues.push(IssueNuit::Partagee {
                participation: participations[j].id.clone(),
                nuits: nuits_de(j).into_iter().filter(|&k| k != i).collect(),
            });
            continue;
        }
        let fichiers = ids(&|v| v == Verdict::Meme(Preuve::Fichiers));
        let dates = ids(&|v| v == Verdict::Meme(Preuve::Dates));
        let sans_point = ids(&|v| v == Verdict::SansPoint);
        let (retenue, preuve, ecartees) = match (fichiers.as_slice(), dates.as_slice()) {
            ([une], _) => (
                une,
                Preuve::Fichiers,
                [dates.as_slice(), &sans_point].concat(),
            ),
            ([_, _, ..], _) => {
                a.issues.push(IssueNuit::Ambigue(fichiers));
                continue;
            }
            ([], [une]) => (une, Preuve::Dates, sans_point.clone()),
            ([], [_, _, ..]) => {
                a.issues.push(IssueNuit::Ambigue(dates));
                continue;
            }
            ([], []) if !sans_point.is_empty() => {
                a.issues.push(IssueNuit::SansPoint(sans_point));
                continue;
            }
            ([], []) => {
                a.issues.push(IssueNuit::ACreer);
                continue;
            }
        };
        a.ecartees.extend(ecartees.into_iter().map(|id| (i, id)));
        a.issues.push(IssueNuit::Reprise {
            participation: retenue.clone(),
            preuve,
        });
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventaire::Enregistrement;
    use crate::saison::fuseau_essai::Paris2026;
    use crate::saison::nuits::{Nuit, bornes_utc, regrouper};

    const MOI: &str = "64a1b2c3d4e5f60718293a01";
    const AUTRE: &str = "64a1b2c3d4e5f60718293a03";

    fn id(n: u8) -> IdObjet {
        IdObjet::analyser(&format!("64a1b2c3d4e5f60718293d{n:02x}")).unwrap()
    }

    fn moi() -> IdObjet {
        IdObjet::analyser(MOI).unwrap()
    }

    fn p(n: u8, point: Option<&str>, debut: &str, fin: Option<&str>) -> ParticipationVue {
        ParticipationVue {
            id: id(n),
            observateur: Some(moi()),
            point: point.map(str::to_owned),
            debut: date_plateforme(debut),
            fin: fin.and_then(date_plateforme),
            un_titre: None,
        }
    }

    /// Les nuits de ces noms, avec leurs bornes à l'heure de Paris.
    fn nuits(noms: &[&str]) -> Vec<Nuit> {
        let e: Vec<Enregistrement> = noms
            .iter()
            .map(|n| Enregistrement {
                chemin: (*n).to_owned(),
                taille: 1,
                modifie_ns: 0,
                identite: None,
            })
            .collect();
        regrouper(&e).nuits
    }

    fn datees(nuits: &[Nuit]) -> Vec<NuitDatee<'_>> {
        nuits
            .iter()
            .map(|n| NuitDatee {
                cle: &n.cle,
                bornes: bornes_utc(n, &Paris2026),
            })
            .collect()
    }

    /// Deux nuits consécutives au point A1 (21 et 22 juin), une au point B2 (21 juin).
    fn saison() -> Vec<Nuit> {
        nuits(&[
            "Car640380-2026-Pass1-A1-PA1_20260621_213000_000.wav",
            "Car640380-2026-Pass1-A1-PA1_20260622_055800_000.wav",
            "Car640380-2026-Pass1-A1-PA1_20260622_213200_000.wav",
            "Car640380-2026-Pass1-A1-PA1_20260623_055000_000.wav",
            "Car640380-2026-Pass1-B2-PA2_20260621_214000_000.wav",
        ])
    }

    #[test]
    fn dates_de_la_plateforme() {
        let attendu = "2026-06-21T19:30:00+00:00";
        for texte in [
            "2026-06-21T19:30:00",
            "2026-06-21T19:30:00.000000",
            "2026-06-21T19:30:00Z",
            "2026-06-21T21:30:00+02:00",
            "Sun, 21 Jun 2026 19:30:00 GMT",
        ] {
            assert_eq!(
                date_plateforme(texte).map(|d| d.to_rfc3339()).as_deref(),
                Some(attendu),
                "{texte}"
            );
        }
        assert_eq!(
            date_plateforme("2026-06-21T19:30:00.5").map(|d| d.timestamp_subsec_millis()),
            Some(500)
        );
        for illisible in ["", "21/06/2026 21:30", "2026-06-31T19:30:00", "demain"] {
            assert_eq!(date_plateforme(illisible), None, "{illisible}");
        }
    }

    #[test]
    fn creee_par_vigie_reprise_a_sa_nuit_et_a_elle_seule() {
        let s = saison();
        let n = datees(&s);
        // Les bornes exactes de la nuit du 21 au point A1 (21:30 et 05:58 à Paris en été).
        let a1_21 = p(
            1,
            Some("A1"),
            "2026-06-21T19:30:00",
            Some("2026-06-22T03:58:00"),
        );
        let a1_22 = p(
            2,
            Some("A1"),
            "2026-06-22T19:32:00",
            Some("2026-06-23T03:50:00"),
        );
        let b2_21 = p(
            3,
            Some("B2"),
            "2026-06-21T19:40:00",
            Some("2026-06-21T19:40:01"),
        );
        let a = attribuer(&n, &[a1_22, b2_21, a1_21], &moi(), &Paris2026);
        assert_eq!(
            a.issues,
            [
                IssueNuit::Reprise {
                    participation: id(1),
                    preuve: Preuve::Dates
                },
                IssueNuit::Reprise {
                    participation: id(3),
                    preuve: Preuve::Dates
                },
                IssueNuit::Reprise {
                    participation: id(2),
                    preuve: Preuve::Dates
                },
            ]
        );
        assert!(a.d_autrui.is_empty() && a.ecartees.is_empty());
        // Aucune participation : tout est à créer.
        let a = attribuer(&n, &[], &moi(), &Paris2026);
        assert_eq!(a.issues, vec![IssueNuit::ACreer; 3]);
    }

    #[test]
    fn creee_sur_le_site_web() {
        let s = saison();
        let n = datees(&s);
        let v = |q: &ParticipationVue| verdict(q, &n[0], &moi(), &Paris2026);
        // Date laissée à l'instant de la saisie, le lendemain matin à 9 h 40 (7 h 40 UTC), sans
        // fin : la soirée est celle du 21.
        assert_eq!(
            v(&p(1, Some("A1"), "2026-06-22T07:40:00", None)),
            Verdict::Meme(Preuve::Dates)
        );
        // Saisie à 21 h, décalée de deux heures par une modification sur le site web.
        assert_eq!(
            v(&p(1, Some("A1"), "2026-06-21T17:00:00", None)),
            Verdict::Meme(Preuve::Dates)
        );
        // Le point sans égard à la casse ; un autre point, jamais.
        assert_eq!(
            v(&p(1, Some(" a1 "), "2026-06-21T19:00:00", None)),
            Verdict::Meme(Preuve::Dates)
        );
        assert_eq!(
            v(&p(1, Some("B2"), "2026-06-21T19:30:00", None)),
            Verdict::Autre
        );
        // Saisie le lendemain après-midi : la soirée du 22, pas cette nuit…
        let tardive = p(1, Some("A1"), "2026-06-22T13:00:00", None);
        assert_eq!(v(&tardive), Verdict::Autre);
        // …sauf si elle contient déjà un fichier de cette nuit (déposé depuis le site web).
        let remplie = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass1-A1-PA1_20260621_230000_000.wav".into()),
            ..tardive.clone()
        };
        assert_eq!(v(&remplie), Verdict::Meme(Preuve::Fichiers));
        // Un fichier d'une autre nuit l'exclut, quelles que soient ses dates.
        let autre_nuit = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass1-A1-PA1_20260622_230000_000.wav".into()),
            ..p(1, Some("A1"), "2026-06-21T19:30:00", None)
        };
        assert_eq!(v(&autre_nuit), Verdict::Autre);
        // Une archive ne dit rien : on revient aux dates.
        let archive = ParticipationVue {
            un_titre: Some("carte.zip".into()),
            ..p(1, Some("A1"), "2026-06-21T19:30:00", None)
        };
        assert_eq!(v(&archive), Verdict::Meme(Preuve::Dates));
        // Sans point : vigie ne devine pas.
        assert_eq!(
            v(&p(1, None, "2026-06-21T19:30:00", None)),
            Verdict::SansPoint
        );
        assert_eq!(
            v(&p(1, Some(""), "2026-06-21T19:30:00", None)),
            Verdict::SansPoint
        );
    }

    #[test]
    fn celle_d_un_autre_observateur_jamais_reprise() {
        let s = saison();
        let n = datees(&s);
        let mut d_autrui = p(1, Some("A1"), "2026-06-21T19:30:00", None);
        d_autrui.observateur = IdObjet::analyser(AUTRE);
        let mut inconnu = p(2, Some("B2"), "2026-06-21T19:30:00", None);
        inconnu.observateur = None;
        let a = attribuer(&n, &[d_autrui, inconnu], &moi(), &Paris2026);
        assert_eq!(a.issues, vec![IssueNuit::ACreer; 3]);
        assert_eq!(a.d_autrui, [(0, id(1)), (1, id(2))]);
    }

    #[test]
    fn doutes_refuses() {
        let s = saison();
        let n = datees(&s);
        // Deux participations à soi, même point, même nuit.
        let a = attribuer(
            &n,
            &[
                p(1, Some("A1"), "2026-06-21T19:30:00", None),
                p(2, Some("A1"), "2026-06-22T07:00:00", None),
            ],
            &moi(),
            &Paris2026,
        );
        assert_eq!(a.issues[0], IssueNuit::Ambigue(vec![id(1), id(2)]));
        // Une participation dont la fin couvre deux nuits : refusée pour les deux.
        let a = attribuer(
            &n,
            &[p(
                3,
                Some("A1"),
                "2026-06-21T19:30:00",
                Some("2026-06-28T04:00:00"),
            )],
            &moi(),
            &Paris2026,
        );
        assert_eq!(
            a.issues,
            [
                IssueNuit::Partagee {
                    participation: id(3),
                    nuits: vec![2]
                },
                IssueNuit::ACreer,
                IssueNuit::Partagee {
                    participation: id(3),
                    nuits: vec![0]
                },
            ]
        );
        // Seulement une participation sans point.
        let a = attribuer(
            &n,
            &[p(4, None, "2026-06-21T19:30:00", None)],
            &moi(),
            &Paris2026,
        );
        assert_eq!(a.issues[0], IssueNuit::SansPoint(vec![id(4)]));
        assert_eq!(
            a.issues[1],
            IssueNuit::SansPoint(vec![id(4)]),
            "B2, le 21 aussi"
        );
    }

    #[test]
    fn celle_qui_a_deja_des_fichiers_ou_le_bon_point_l_emporte() {
        let s = saison();
        let n = datees(&s);
        let vide = p(1, Some("A1"), "2026-06-21T19:30:00", None);
        let remplie = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass1-A1-PA1_20260621_213000_000.wav".into()),
            ..p(2, Some("A1"), "2026-06-25T10:00:00", None)
        };
        let a = attribuer(&n, &[vide, remplie], &moi(), &Paris2026);
        assert_eq!(
            a.issues[0],
            IssueNuit::Reprise {
                participation: id(2),
                preuve: Preuve::Fichiers
            }
        );
        assert_eq!(a.ecartees, [(0, id(1))]);
        // Le bon point l'emporte sur une participation sans point.
        let a = attribuer(
            &n,
            &[
                p(3, None, "2026-06-21T19:30:00", None),
                p(4, Some("B2"), "2026-06-21T19:45:00", None),
            ],
            &moi(),
            &Paris2026,
        );
        assert_eq!(a.issues[0], IssueNuit::SansPoint(vec![id(3)]));
        assert_eq!(
            a.issues[1],
            IssueNuit::Reprise {
                participation: id(4),
                preuve: Preuve::Dates
            }
        );
        assert_eq!(a.ecartees, [(1, id(3))]);
    }

    fn site(titre: &str, type_site: Option<&str>) -> SiteConnu {
        SiteConnu {
            id: IdObjet::analyser("64a1b2c3d4e5f60718293c01").unwrap(),
            titre: titre.into(),
            numero_grille: None,
            type_site: type_site.map(str::to_owned),
        }
    }

    fn jour(j: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 6, j).unwrap()
    }

    /// `--participation` : chaque écart entre les noms d'une nuit et la participation donnée
    /// est dit ; la bonne participation n'en a aucun.
    #[test]
    fn ecarts_avec_la_participation_donnee() {
        let s = saison();
        let n = datees(&s);
        let a1_21 = &n[0];
        let son_site = site("Vigiechiro - Point Fixe-640380", Some("POINT_FIXE"));
        // La bonne : même site, même point, même soirée (dates de vigie ou du site web).
        let bonne = p(
            1,
            Some("A1"),
            "2026-06-21T19:30:00",
            Some("2026-06-22T03:58:00"),
        );
        assert_eq!(ecarts(&bonne, Some(&son_site), a1_21, &Paris2026), []);
        let saisie_le_matin = p(1, Some("a1"), "2026-06-22T07:40:00", None);
        assert_eq!(
            ecarts(&saisie_le_matin, Some(&son_site), a1_21, &Paris2026),
            []
        );
        // Sans point ni site lisible, rien ne les contredit.
        let muette = p(1, None, "2026-06-21T19:30:00", None);
        assert_eq!(ecarts(&muette, None, a1_21, &Paris2026), []);
        // Sans point, mais avec un fichier déjà déposé : le point de ce fichier fait foi.
        let muette_remplie = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass1-B2-PA1_20260621_230000_000.wav".into()),
            ..muette.clone()
        };
        assert_eq!(
            ecarts(&muette_remplie, None, a1_21, &Paris2026),
            [Ecart::Point {
                noms: "A1".into(),
                participation: "B2".into()
            }]
        );
        // `champs` : ce qu'affichent la ligne d'écart et le JSON.
        assert_eq!(
            Ecart::Soiree {
                noms: jour(21),
                participation: jour(19)
            }
            .champs(),
            ("soiree", "2026-06-21".into(), "2026-06-19".into())
        );
        assert_eq!(
            Ecart::Passage {
                noms: 1,
                participation: 2
            }
            .champs(),
            ("passage", "1".into(), "2".into())
        );
        // Un autre site, un autre point, une autre nuit : trois écarts.
        let autre = p(
            2,
            Some("B2"),
            "2026-06-19T19:30:00",
            Some("2026-06-20T03:00:00"),
        );
        let autre_site = site("Vigiechiro - Point Fixe-640139", Some("POINT_FIXE"));
        assert_eq!(
            ecarts(&autre, Some(&autre_site), a1_21, &Paris2026),
            [
                Ecart::Site {
                    noms: "640380".into(),
                    participation: "Vigiechiro - Point Fixe-640139".into()
                },
                Ecart::Point {
                    noms: "A1".into(),
                    participation: "B2".into()
                },
                Ecart::Soiree {
                    noms: jour(21),
                    participation: jour(19)
                },
            ]
        );
        // Le bon numéro, mais un site routier ou pédestre pour des noms `Car…`.
        let pedestre = site("Vigiechiro - Pédestre-640380", Some("CARRE"));
        assert!(matches!(
            ecarts(&bonne, Some(&pedestre), a1_21, &Paris2026).as_slice(),
            [Ecart::Site { .. }]
        ));
        // Un fichier déjà déposé fait foi : son passage, et sa soirée plutôt que des dates
        // saisies le lendemain après-midi.
        let tardive = p(3, Some("A1"), "2026-06-22T13:00:00", None);
        assert!(matches!(
            ecarts(&tardive, Some(&son_site), a1_21, &Paris2026).as_slice(),
            [Ecart::Soiree { .. }]
        ));
        let remplie = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass1-A1-PA1_20260621_230000_000.wav".into()),
            ..tardive.clone()
        };
        assert_eq!(ecarts(&remplie, Some(&son_site), a1_21, &Paris2026), []);
        let autre_passage = ParticipationVue {
            un_titre: Some("Car640380-2026-Pass2-A1-PA1_20260622_230000_000.wav".into()),
            ..bonne.clone()
        };
        assert_eq!(
            ecarts(&autre_passage, Some(&son_site), a1_21, &Paris2026),
            [
                Ecart::Soiree {
                    noms: jour(21),
                    participation: jour(22)
                },
                Ecart::Passage {
                    noms: 1,
                    participation: 2
                },
            ]
        );
    }

    /// Une nuit routière : ses dates sont celles de ses fichiers, si elles tiennent en une
    /// sortie (24 h) et ne sont pas dans le futur ; une nuit de point fixe n'en tire jamais.
    #[test]
    fn dates_d_une_nuit_routiere_par_les_dates_de_ses_fichiers() {
        let t = |h: i64, m: i64| {
            NaiveDate::from_ymd_opt(2026, 6, 10)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap()
                .and_utc()
                + TimeDelta::hours(h)
                + TimeDelta::minutes(m)
        };
        let e = |nom: &str, quand: DateTime<Utc>| Enregistrement {
            chemin: nom.to_owned(),
            taille: 1,
            modifie_ns: quand.timestamp_nanos_opt().unwrap() + 250_000_000,
            identite: None,
        };
        let enregistrements = [
            e("Cir270-2026-Pass1-Tron2-Chiro_0_00002_000.wav", t(21, 40)),
            e("Cir270-2026-Pass1-Tron1-Chiro_0_00001_000.wav", t(20, 30)),
            e("Cir270-2026-Pass1-Tron3-Chiro_1_00003_000.wav", t(23, 5)),
        ];
        let nuit = regrouper(&enregistrements).nuits.remove(0);
        let demain = t(36, 0);
        assert_eq!(
            bornes_par_modification(&nuit, &enregistrements, demain),
            Some((t(20, 30), t(23, 5) + TimeDelta::seconds(1)))
        );
        // Dans le futur (horloge déréglée), ou sur plus de 24 h (copiés sans leurs dates).
        assert_eq!(
            bornes_par_modification(&nuit, &enregistrements, t(22, 0)),
            None
        );
        let mut etalee = enregistrements.clone();
        etalee[0].modifie_ns = (t(20, 30) + TimeDelta::hours(25))
            .timestamp_nanos_opt()
            .unwrap();
        assert_eq!(bornes_par_modification(&nuit, &etalee, t(72, 0)), None);
        // Un point fixe a ses instants dans les noms.
        let fixe = [e(
            "Car640380-2026-Pass1-A1-PA1_20260610_213000_000.wav",
            t(21, 30),
        )];
        let nuit = regrouper(&fixe).nuits.remove(0);
        assert_eq!(bornes_par_modification(&nuit, &fixe, demain), None);
    }

    #[test]
    fn routier_par_les_fichiers_ou_la_soiree_des_bornes_retenues() {
        let s = nuits(&[
            "Cir270-2026-Pass1-Tron1-Chiro_0_00001_000.wav",
            "Cir270-2026-Pass2-Tron1-Chiro_0_00001_000.wav",
        ]);
        let soir = |j: u32| {
            let d = chrono::NaiveDate::from_ymd_opt(2026, 6, j).unwrap();
            (
                d.and_hms_opt(20, 0, 0).unwrap().and_utc(),
                d.and_hms_opt(22, 0, 0).unwrap().and_utc(),
            )
        };
        let n = [
            NuitDatee {
                cle: &s[0].cle,
                bornes: Some(soir(10)),
            },
            NuitDatee {
                cle: &s[1].cle,
                bornes: None,
            },
        ];
        // Le point n'est pas regardé ; la soirée des bornes retenues l'est.
        let par_date = p(1, Some("X"), "2026-06-10T20:05:00", None);
        // Un fichier du passage 2 : c'est le passage 2, quelle que soit sa date.
        let par_fichier = ParticipationVue {
            un_titre: Some("Cir270-2026-Pass2-Tron3-Chiro_1_00007_000.ta".into()),
            ..p(2, None, "2026-06-10T20:00:00", None)
        };
        let a = attribuer(&n, &[par_date, par_fichier], &moi(), &Paris2026);
        assert_eq!(
            a.issues,
            [
                IssueNuit::Reprise {
                    participation: id(1),
                    preuve: Preuve::Dates
                },
                IssueNuit::Reprise {
                    participation: id(2),
                    preuve: Preuve::Fichiers
                },
            ]
        );
    }
}
