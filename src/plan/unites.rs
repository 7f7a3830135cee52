//! Plans et unités : planifier, replanifier, et les transitions d'état du moteur.
//!
//! Règle d'or : une transition est écrite (et validée) **avant** l'effet qu'elle annonce. Une
//! unité n'est `deposee` qu'une fois la destination vérifiée ; un arrêt brutal entre deux
//! écritures laisse au pis une unité `en_cours`, que la relance reprend.

use std::collections::{HashMap, HashSet};

use rusqlite::{OptionalExtension, Row, TransactionBehavior, params};

use super::modele::{
    CauseRefus, DepotPlan, DepotUnite, EtatUnite, PartieEnvoi, ResumePlan, SequencePreparee, Sorte,
};
use super::{Base, ErreurBase, Resultat, maintenant_ms, maintenant_s};

/// Un fichier tel que l'inventaire le donne au plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FichierPlanifie {
    pub(crate) chemin: String,
    pub(crate) cle: String,
    pub(crate) taille: u64,
    pub(crate) modifie_ns: i64,
    /// L'identité du fichier à la planification (voir `plateforme::identite_du_chemin`).
    pub(crate) identite: Option<String>,
    /// Une séquence préparée au fil de l'envoi (sa taille et son chemin sont ceux de la
    /// séquence, sa date et son identité ceux de l'original).
    pub(crate) preparee: Option<SequencePreparee>,
}

#[cfg(test)]
impl FichierPlanifie {
    /// Un fichier d'essai d'un octet, daté de l'époque, son chemin pour clé, sans identité ni
    /// préparation.
    pub(crate) fn d_essai(chemin: &str) -> FichierPlanifie {
        FichierPlanifie {
            chemin: chemin.into(),
            cle: chemin.into(),
            taille: 1,
            modifie_ns: 0,
            identite: None,
            preparee: None,
        }
    }
}

/// Ce que la (re)planification a changé.
#[derive(Debug, Clone, Default)]
pub(crate) struct Replanification {
    pub(crate) plan: Option<DepotPlan>,
    pub(crate) cree: bool,
    pub(crate) ajoutees: u64,
    pub(crate) retirees: u64,
    /// Unités laissées `en_cours` par un arrêt, remises à reprendre.
    pub(crate) reprises: u64,
    /// Unités non déposées dont le fichier a changé : leurs parties déjà envoyées sont oubliées.
    pub(crate) mises_a_jour: u64,
    /// Fichiers déjà déposés qui ont changé depuis et ne sont pas renvoyés (sans
    /// `--redeposer-modifies`).
    pub(crate) modifiees: Vec<String>,
    /// Fichiers déjà déposés dont seule la date a changé, le contenu relu identique à ce qui
    /// a été déposé (l'heure d'une carte FAT décalée d'une heure au passage à l'heure d'été) :
    /// leur nouvelle date est notée, rien ne repart.
    pub(crate) dates_seules: u64,
    /// Fichiers déjà déposés qui ont changé et repartent (`--redeposer-modifies`).
    pub(crate) redeposees: u64,
}

/// Les comptes d'un plan par état ([`Base::resume`]), lus dans l'index `depot_unite_comptes`
/// seul (migration 0008).
const REQUETE_COMPTES: &str = "SELECT etat, count(*), coalesce(sum(taille), 0), \
     sum(echec_definitif), sum(modifie_depuis) FROM depot_unite WHERE plan_id = ?1 GROUP BY etat";

/// La requête de [`Base::unites`] pour `n` états (`?1` : le plan ; `?2…` : les états).
fn requete_unites(n: usize) -> String {
    let filtre = if n == 0 {
        String::new()
    } else {
        let places: Vec<String> = (0..n).map(|i| format!("?{}", i + 2)).collect();
        format!(" AND etat IN ({})", places.join(", "))
    };
    format!("SELECT {COLONNES_UNITE} FROM depot_unite WHERE plan_id = ?1{filtre}")
}

/// Les colonnes `source`, `source_taille`, `source_debut`, `entete` d'une unité.
type ColonnesSource<'f> = (Option<&'f str>, Option<i64>, Option<i64>, Option<&'f [u8]>);

/// Les colonnes d'une séquence préparée au fil de l'envoi (toutes NULL pour un fichier).
fn colonnes_source(f: &FichierPlanifie) -> ColonnesSource<'_> {
    match &f.preparee {
        Some(p) => (
            Some(&p.source),
            Some(p.source_taille as i64),
            Some(p.source_debut as i64),
            Some(&p.entete),
        ),
        None => (None, None, None, None),
    }
}

/// Ce que la planification écrit pour une unité (son identifiant) ou un fichier.
enum Geste<'f> {
    /// Un fichier nouveau entre `a_deposer`.
    Inserer(&'f FichierPlanifie),
    /// Même fichier, autre identité (copié, restauré) : c'est lui que l'envoi retrouvera.
    NoterIdentite(i64, &'f FichierPlanifie),
    /// Déposée, seule sa date a changé, contenu relu identique : la date est notée.
    NoterDate(i64, &'f FichierPlanifie),
    /// Déposée et changée, avec `redeposer_modifies` : elle repart.
    Redeposer(i64, &'f FichierPlanifie),
    /// Déposée et changée : signalée, elle ne repart pas.
    Signaler(i64, &'f FichierPlanifie),
    /// Non déposée et changée : nouvelle taille et date, parties envoyées oubliées.
    MettreAJour(i64, &'f FichierPlanifie),
    /// Non vue par l'inventaire, ni déposée ni incertaine, dans le périmètre : elle sort.
    Retirer(i64),
}

/// L'issue de [`Base::planifier_dans`].
#[derive(Debug)]
pub(crate) enum Planifiee {
    /// Le plan est écrit.
    Faite(Replanification),
    /// Rien n'est écrit : ces fichiers déjà déposés sont revenus avec une autre date et la
    /// même taille ; leur contenu est à relire avant de replanifier.
    ARelire(Vec<DeposeeARelire>),
}

/// Un fichier déjà déposé dont la date a changé mais pas la taille : son contenu est à relire
/// avant de le dire changé (voir [`Base::planifier_dans`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeposeeARelire {
    pub(crate) chemin: String,
    pub(crate) taille: u64,
    /// La somme notée au dépôt (CRC32C en base64, ou la forme que rend la destination).
    pub(crate) somme_controle: Option<String>,
    /// L'ETag noté au dépôt (MD5, ou celui d'un objet assemblé).
    pub(crate) etag: Option<String>,
}

const COLONNES_UNITE: &str = "id, plan_id, chemin, cle, taille, modifie_ns, etat, echec_definitif, \
     cause_refus, message, envoi_multipart, enregistrement, declaration_emise_le IS NOT NULL, \
     somme_controle, etag, modifie_depuis, identite, source, source_taille, source_debut, entete";

fn unite_depuis_ligne(r: &Row<'_>) -> rusqlite::Result<DepotUnite> {
    Ok(DepotUnite {
        id: r.get(0)?,
        plan_id: r.get(1)?,
        chemin: r.get(2)?,
        cle: r.get(3)?,
        taille: r.get::<_, i64>(4)? as u64,
        modifie_ns: r.get(5)?,
        etat: r.get(6)?,
        echec_definitif: r.get(7)?,
        cause_refus: r.get(8)?,
        message: r.get(9)?,
        envoi_multipart: r.get(10)?,
        enregistrement: r.get(11)?,
        declaration_emise: r.get(12)?,
        somme_controle: r.get(13)?,
        etag: r.get(14)?,
        modifie_depuis: r.get(15)?,
        identite: r.get(16)?,
        preparee: match r.get::<_, Option<String>>(17)? {
            Some(source) => Some(SequencePreparee {
                source,
                source_taille: r.get::<_, i64>(18)? as u64,
                source_debut: r.get::<_, i64>(19)? as u64,
                entete: r.get(20)?,
            }),
            None => None,
        },
    })
}

const COLONNES_PLAN: &str = "id, dossier, destination, cree_le, actif_le, participation, \
     multipart_refuse_le IS NOT NULL, sorte";

fn plan_depuis_ligne(r: &Row<'_>) -> rusqlite::Result<DepotPlan> {
    Ok(DepotPlan {
        id: r.get(0)?,
        dossier: r.get(1)?,
        destination: r.get(2)?,
        cree_le: r.get(3)?,
        actif_le: r.get(4)?,
        participation: r.get(5)?,
        multipart_refuse: r.get(6)?,
        sorte: r.get(7)?,
    })
}

/// Une entrée du journal des décisions de réessai.
#[derive(Debug, Clone, Default)]
pub(crate) struct EntreeJournal<'a> {
    pub(crate) plan_id: Option<i64>,
    pub(crate) unite_id: Option<i64>,
    pub(crate) methode: &'a str,
    pub(crate) cible: &'a str,
    pub(crate) tentative: u32,
    pub(crate) statut: Option<u16>,
    pub(crate) attente_ms: Option<u64>,
    pub(crate) budget_restant_ms: Option<u64>,
    pub(crate) raison: Option<&'a str>,
    pub(crate) detail: &'a str,
}

impl Base {
    /// Les unités d'un plan qui partiraient à un dépôt : ni déposées, ni refusées pour de bon.
    pub(crate) fn partiraient(&self, plan: i64) -> Resultat<Vec<DepotUnite>> {
        Ok(self
            .unites(
                plan,
                &[
                    EtatUnite::ADeposer,
                    EtatUnite::EnCours,
                    EtatUnite::Echec,
                    EtatUnite::Incertaine,
                ],
            )?
            .into_iter()
            .filter(|u| !u.echec_definitif)
            .collect())
    }

    /// Le plan d'une paire (dossier, destination), s'il existe.
    pub(crate) fn trouver_plan(
        &self,
        dossier: &str,
        destination: &str,
    ) -> Resultat<Option<DepotPlan>> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {COLONNES_PLAN} FROM depot_plan WHERE dossier = ?1 AND destination = ?2"
                ),
                params![dossier, destination],
                plan_depuis_ligne,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Le plan demandé, ou le dernier actif.
    pub(crate) fn plan(&self, id: Option<i64>) -> Resultat<DepotPlan> {
        let trouve = match id {
            Some(id) => self.conn.query_row(
                &format!("SELECT {COLONNES_PLAN} FROM depot_plan WHERE id = ?1"),
                [id],
                plan_depuis_ligne,
            ),
            None => self.conn.query_row(
                &format!(
                    "SELECT {COLONNES_PLAN} FROM depot_plan ORDER BY actif_le DESC, id DESC LIMIT 1"
                ),
                [],
                plan_depuis_ligne,
            ),
        }
        .optional()
        .map_err(|e| self.err(e))?;
        trouve.ok_or_else(|| match id {
            Some(id) => ErreurBase::PlanInconnu {
                chemin: self.chemin.clone(),
                id,
            },
            None => ErreurBase::AucunPlan {
                chemin: self.chemin.clone(),
            },
        })
    }

    /// Tous les plans, le plus récemment actif d'abord.
    pub(crate) fn plans(&self) -> Resultat<Vec<DepotPlan>> {
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT {COLONNES_PLAN} FROM depot_plan ORDER BY actif_le DESC, id DESC"
            ))
            .map_err(|e| self.err(e))?;
        st.query_map([], plan_depuis_ligne)
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))
    }

    /// Crée le plan ou le met à jour d'après l'inventaire, en une seule transaction : un arrêt
    /// brutal pendant la planification laisse soit l'ancien plan, soit le nouveau, jamais un
    /// mélange.
    ///
    /// - un nouveau fichier entre `a_deposer` ;
    /// - un fichier disparu et non déposé sort du plan ; un fichier disparu mais déposé reste
    ///   (il est à la destination, c'est ce qui compte) ;
    /// - une unité `en_cours` (arrêt brutal) redevient `a_deposer`, ses parties envoyées
    ///   conservées ; une unité `incertaine` le reste, à réconcilier avant tout rejeu ;
    /// - une unité non déposée dont le fichier a changé prend sa nouvelle taille et date, et ses
    ///   parties déjà envoyées sont oubliées (elles ne correspondent plus au contenu) ;
    /// - un fichier déjà déposé qui a changé est signalé, et ne repart qu'avec
    ///   `redeposer_modifies`.
    ///
    /// Le code passe par [`Base::planifier_dans`] ; cette forme courte sert aux essais (une
    /// déposée dont seule la date a changé y est dite changée, sans relecture ; la sorte de
    /// la destination est « essai » : les essais du plan ne relisent pas sa destination).
    #[cfg(test)]
    pub(crate) fn planifier(
        &mut self,
        dossier: &str,
        destination: &str,
        fichiers: &[FichierPlanifie],
        redeposer_modifies: bool,
    ) -> Resultat<Replanification> {
        match self.planifier_dans(
            dossier,
            (&Sorte::nouvelle("essai"), destination),
            fichiers,
            redeposer_modifies,
            Some(&HashSet::new()),
            None,
        )? {
            Planifiee::Faite(r) => Ok(r),
            Planifiee::ARelire(_) => unreachable!("dates relues données"),
        }
    }

    /// Planifie (ou replanifie) `fichiers` de `dossier` vers `destination`, comme
    /// `Base::planifier` (la forme courte des essais), en une transaction et une seule lecture des unités du plan.
    ///
    /// `dates_seules` : les fichiers déjà déposés qui reviennent avec la même taille mais une
    /// autre date. Une carte SD en FAT garde l'heure **locale** : lue après le passage à
    /// l'heure d'été (ou par un système réglé autrement), chaque fichier semble avoir bougé
    /// d'une heure sans qu'un octet ait changé. Avec `None`, s'il y en a, rien n'est écrit et
    /// ils sont rendus ([`Planifiee::ARelire`]) : l'appelant relit leur contenu, hors de la
    /// transaction, puis rappelle avec `Some` de ceux dont le contenu est celui du dépôt ;
    /// leur nouvelle date est notée, ils ne sont ni signalés ni renvoyés, et les autres sont
    /// dits changés. Une reprise sans changement (le cas ordinaire) ne lit le plan qu'une fois.
    ///
    /// Une unité que l'inventaire n'a pas vue n'est retirée que si son chemin est sous l'un des
    /// dossiers de `perimetre` (relatifs au dossier du plan ; `""` : tout le plan ; `None` :
    /// tout le plan). C'est la nuit d'une saison : `vigie depot Saison/PA-A` ne parcourt pas
    /// `Saison/PA-B`, dont les fichiers de la même nuit ne sont pas « disparus ».
    pub(crate) fn planifier_dans(
        &mut self,
        dossier: &str,
        (sorte, destination): (&Sorte, &str),
        fichiers: &[FichierPlanifie],
        redeposer_modifies: bool,
        dates_seules: Option<&HashSet<String>>,
        perimetre: Option<&[String]>,
    ) -> Resultat<Planifiee> {
        let dans_le_perimetre = |chemin: &str| match perimetre {
            None => true,
            Some(dossiers) => dossiers.iter().any(|d| {
                d.is_empty()
                    || chemin
                        .strip_prefix(d.as_str())
                        .is_some_and(|reste| reste.starts_with('/'))
            }),
        };
        let chemin_base = self.chemin.clone();
        let err = |e| ErreurBase::depuis_sqlite(&chemin_base, e);
        let maintenant = maintenant_s();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut bilan = Replanification::default();

        let existant: Option<i64> = tx
            .query_row(
                "SELECT id FROM depot_plan WHERE dossier = ?1 AND destination = ?2",
                params![dossier, destination],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        let plan_id = match existant {
            Some(id) => {
                tx.execute(
                    "UPDATE depot_plan SET actif_le = ?2 WHERE id = ?1",
                    params![id, maintenant],
                )
                .map_err(err)?;
                id
            }
            None => {
                tx.execute(
                    "INSERT INTO depot_plan (dossier, destination, sorte, cree_le, actif_le) \
                     VALUES (?1, ?2, ?3, ?4, ?4)",
                    params![dossier, destination, sorte, maintenant],
                )
                .map_err(err)?;
                bilan.cree = true;
                tx.last_insert_rowid()
            }
        };

        // L'existant et l'inventaire, lus ensemble dans l'ordre des chemins (celui de l'index
        // `(plan_id, chemin)`, octet par octet comme l'ordre des `str`) : chaque unité est lue
        // une fois, sans rien recopier ni hacher. Les gestes sont notés pendant la lecture et
        // écrits après (une écriture pendant la lecture pourrait lui montrer une ligne de plus).
        let mut tries: Vec<&FichierPlanifie> = fichiers.iter().collect();
        tries.sort_by(|a, b| a.chemin.cmp(&b.chemin));
        let mut gestes: Vec<Geste<'_>> = Vec::new();
        // Les déposées dont seule la date a changé : à relire avant toute écriture (la
        // transaction est alors abandonnée : rien n'a été écrit, pas même la date d'activité).
        let mut a_relire: Vec<DeposeeARelire> = Vec::new();
        {
            let mut st = tx
                .prepare(
                    "SELECT id, chemin, etat, taille, modifie_ns, identite, somme_controle, etag, \
                     source, source_taille, source_debut \
                     FROM depot_unite WHERE plan_id = ?1 ORDER BY chemin",
                )
                .map_err(err)?;
            let mut lignes = st.query([plan_id]).map_err(err)?;
            let mut i = 0;
            while let Some(r) = lignes.next().map_err(err)? {
                let lire = || -> rusqlite::Result<_> {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get_ref(1)?.as_str()?,
                        r.get::<_, EtatUnite>(2)?,
                        r.get::<_, i64>(3)? as u64,
                        r.get::<_, i64>(4)?,
                        r.get_ref(5)?.as_str_or_null()?,
                        (
                            r.get_ref(8)?.as_str_or_null()?,
                            r.get::<_, Option<i64>>(9)?,
                            r.get::<_, Option<i64>>(10)?,
                        ),
                    ))
                };
                let (id, chemin, etat, taille, modifie_ns, identite, source) =
                    lire().map_err(err)?;
                // Les fichiers avant cette unité sont nouveaux.
                while i < tries.len() && tries[i].chemin.as_str() < chemin {
                    gestes.push(Geste::Inserer(tries[i]));
                    i += 1;
                }
                let mut vue = false;
                while i < tries.len() && tries[i].chemin == chemin {
                    let f = tries[i];
                    i += 1;
                    vue = true;
                    // Le fichier est celui que l'inventaire vient de voir : c'est lui que
                    // l'envoi devra retrouver.
                    if identite != f.identite.as_deref() {
                        gestes.push(Geste::NoterIdentite(id, f));
                    }
                    // Une séquence préparée dont l'original ou la plage a changé (un original
                    // plus ancien arrivé sur la carte prend son nom) a changé, même à taille et
                    // date égales.
                    let meme_source = source
                        == f.preparee.as_ref().map_or((None, None, None), |p| {
                            (
                                Some(p.source.as_str()),
                                Some(p.source_taille as i64),
                                Some(p.source_debut as i64),
                            )
                        });
                    if taille == f.taille && modifie_ns == f.modifie_ns && meme_source {
                        continue;
                    }
                    gestes.push(
                        if etat == EtatUnite::Deposee && taille == f.taille && meme_source {
                            match dates_seules {
                                None => {
                                    // Ce qui a été noté au dépôt, lu pour celles-ci seulement.
                                    a_relire.push(DeposeeARelire {
                                        chemin: f.chemin.clone(),
                                        taille: f.taille,
                                        somme_controle: r.get(6).map_err(err)?,
                                        etag: r.get(7).map_err(err)?,
                                    });
                                    continue;
                                }
                                Some(d) if d.contains(&f.chemin) => Geste::NoterDate(id, f),
                                Some(_) if redeposer_modifies => Geste::Redeposer(id, f),
                                Some(_) => Geste::Signaler(id, f),
                            }
                        } else if etat == EtatUnite::Deposee {
                            if redeposer_modifies {
                                Geste::Redeposer(id, f)
                            } else {
                                Geste::Signaler(id, f)
                            }
                        } else {
                            Geste::MettreAJour(id, f)
                        },
                    );
                }
                // Une unité que l'inventaire n'a pas vue sort du plan, sauf déposée (elle est
                // à la destination) ou incertaine (son envoi est peut-être parti, il faut le
                // réconcilier ; la retirer serait mentir sur ce qui est à la destination), ou
                // hors des dossiers parcourus.
                if !vue
                    && etat != EtatUnite::Deposee
                    && etat != EtatUnite::Incertaine
                    && dans_le_perimetre(chemin)
                {
                    gestes.push(Geste::Retirer(id));
                }
            }
            gestes.extend(tries[i..].iter().map(|f| Geste::Inserer(f)));
        }
        if !a_relire.is_empty() {
            return Ok(Planifiee::ARelire(a_relire));
        }
        if !gestes.is_empty() {
            let mut inserer = tx
                .prepare(
                    "INSERT INTO depot_unite (plan_id, chemin, cle, taille, modifie_ns, identite, \
                     source, source_taille, source_debut, entete) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(err)?;
            let mut mettre_a_jour = tx
                .prepare(
                    "UPDATE depot_unite SET taille = ?2, modifie_ns = ?3, cle = ?4, \
                     etat = CASE WHEN etat = 'en_cours' THEN 'a_deposer' ELSE etat END, \
                     somme_controle = NULL, etag = NULL, source = ?5, source_taille = ?6, \
                     source_debut = ?7, entete = ?8 WHERE id = ?1",
                )
                .map_err(err)?;
            let mut oublier_parties = tx
                .prepare("DELETE FROM depot_partie WHERE unite_id = ?1")
                .map_err(err)?;
            let mut signaler = tx
                .prepare("UPDATE depot_unite SET modifie_depuis = 1 WHERE id = ?1")
                .map_err(err)?;
            let mut noter_identite = tx
                .prepare("UPDATE depot_unite SET identite = ?2 WHERE id = ?1")
                .map_err(err)?;
            let mut noter_date = tx
                .prepare("UPDATE depot_unite SET modifie_ns = ?2, modifie_depuis = 0 WHERE id = ?1")
                .map_err(err)?;
            let mut redeposer = tx
                .prepare(
                    "UPDATE depot_unite SET taille = ?2, modifie_ns = ?3, cle = ?4, \
                     etat = 'a_deposer', echec_definitif = 0, cause_refus = NULL, message = NULL, \
                     somme_controle = NULL, etag = NULL, modifie_depuis = 0, depose_le = NULL, \
                     source = ?5, source_taille = ?6, source_debut = ?7, entete = ?8 WHERE id = ?1",
                )
                .map_err(err)?;
            let mut retirer = tx
                .prepare("DELETE FROM depot_unite WHERE id = ?1")
                .map_err(err)?;
            for geste in gestes {
                match geste {
                    Geste::Inserer(f) => {
                        let source = colonnes_source(f);
                        inserer
                            .execute(params![
                                plan_id,
                                f.chemin,
                                f.cle,
                                f.taille as i64,
                                f.modifie_ns,
                                f.identite,
                                source.0,
                                source.1,
                                source.2,
                                source.3,
                            ])
                            .map_err(err)?;
                        bilan.ajoutees += 1;
                    }
                    Geste::NoterIdentite(id, f) => {
                        noter_identite
                            .execute(params![id, f.identite])
                            .map_err(err)?;
                    }
                    Geste::NoterDate(id, f) => {
                        noter_date.execute(params![id, f.modifie_ns]).map_err(err)?;
                        bilan.dates_seules += 1;
                    }
                    Geste::Redeposer(id, f) => {
                        oublier_parties.execute([id]).map_err(err)?;
                        let (source, source_taille, source_debut, entete) = colonnes_source(f);
                        redeposer
                            .execute(params![
                                id,
                                f.taille as i64,
                                f.modifie_ns,
                                f.cle,
                                source,
                                source_taille,
                                source_debut,
                                entete
                            ])
                            .map_err(err)?;
                        bilan.redeposees += 1;
                    }
                    Geste::Signaler(id, f) => {
                        signaler.execute([id]).map_err(err)?;
                        bilan.modifiees.push(f.chemin.clone());
                    }
                    Geste::MettreAJour(id, f) => {
                        oublier_parties.execute([id]).map_err(err)?;
                        let (source, source_taille, source_debut, entete) = colonnes_source(f);
                        mettre_a_jour
                            .execute(params![
                                id,
                                f.taille as i64,
                                f.modifie_ns,
                                f.cle,
                                source,
                                source_taille,
                                source_debut,
                                entete
                            ])
                            .map_err(err)?;
                        bilan.mises_a_jour += 1;
                    }
                    Geste::Retirer(id) => {
                        retirer.execute([id]).map_err(err)?;
                        bilan.retirees += 1;
                    }
                }
            }
        }
        bilan.reprises = tx
            .execute(
                "UPDATE depot_unite SET etat = 'a_deposer' WHERE plan_id = ?1 AND etat = 'en_cours'",
                [plan_id],
            )
            .map_err(err)? as u64;
        let plan = tx
            .query_row(
                &format!("SELECT {COLONNES_PLAN} FROM depot_plan WHERE id = ?1"),
                [plan_id],
                plan_depuis_ligne,
            )
            .map_err(err)?;
        tx.commit().map_err(err)?;
        bilan.plan = Some(plan);
        Ok(Planifiee::Faite(bilan))
    }

    /// Les comptes d'un plan.
    pub(crate) fn resume(&self, plan_id: i64) -> Resultat<ResumePlan> {
        let sorte = self
            .conn
            .query_row(
                "SELECT sorte FROM depot_plan WHERE id = ?1",
                [plan_id],
                |l| l.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?
            .unwrap_or_default();
        let mut r = ResumePlan {
            sorte,
            ..ResumePlan::default()
        };
        let mut st = self
            .conn
            .prepare_cached(REQUETE_COMPTES)
            .map_err(|e| self.err(e))?;
        let lignes = st
            .query_map([plan_id], |l| {
                Ok((
                    l.get::<_, EtatUnite>(0)?,
                    l.get::<_, i64>(1)? as u64,
                    l.get::<_, i64>(2)? as u64,
                    l.get::<_, i64>(3)? as u64,
                    l.get::<_, i64>(4)? as u64,
                ))
            })
            .map_err(|e| self.err(e))?;
        for ligne in lignes {
            let (etat, n, octets, definitifs, modifiees) = ligne.map_err(|e| self.err(e))?;
            r.octets_total += octets;
            r.definitifs += definitifs;
            r.modifiees += modifiees;
            match etat {
                EtatUnite::ADeposer => r.a_deposer = n,
                EtatUnite::EnCours => r.en_cours = n,
                EtatUnite::Deposee => {
                    r.deposee = n;
                    r.octets_deposes = octets;
                }
                EtatUnite::Echec => r.echec = n,
                EtatUnite::Incertaine => r.incertaine = n,
            }
        }
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT cause_refus, echec_definitif, count(*) FROM depot_unite \
                 WHERE plan_id = ?1 AND etat = 'echec' GROUP BY cause_refus, echec_definitif \
                 ORDER BY echec_definitif DESC, cause_refus",
            )
            .map_err(|e| self.err(e))?;
        r.echecs_par_cause = st
            .query_map([plan_id], |l| {
                Ok((l.get(0)?, l.get(1)?, l.get::<_, i64>(2)? as u64))
            })
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        Ok(r)
    }

    /// Les unités d'un plan dans les états demandés (toutes si la liste est vide), par chemin.
    /// Le filtre se fait dans la base, par l'index `depot_unite_comptes` : la reprise d'une
    /// nuit déposée ne lit aucune de ses unités déposées. Le tri se fait ici : demandé à la
    /// base, il lui ferait préférer l'index `(plan_id, chemin)`, donc lire chaque unité du
    /// plan pour n'en garder aucune. L'ordre est le même (octet par octet, celui de `BINARY`).
    pub(crate) fn unites(&self, plan_id: i64, etats: &[EtatUnite]) -> Resultat<Vec<DepotUnite>> {
        let mut st = self
            .conn
            .prepare_cached(&requete_unites(etats.len()))
            .map_err(|e| self.err(e))?;
        let valeurs = std::iter::once(&plan_id as &dyn rusqlite::ToSql)
            .chain(etats.iter().map(|e| e as &dyn rusqlite::ToSql));
        let mut unites: Vec<DepotUnite> = st
            .query_map(rusqlite::params_from_iter(valeurs), unite_depuis_ligne)
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        unites.sort_unstable_by(|a, b| a.chemin.cmp(&b.chemin));
        Ok(unites)
    }

    /// Les unités déposées d'un plan : la taille de chacune, par chemin. La garde de format
    /// (`garde.rs`) ne relit pas un fichier déjà déposé sous ce chemin avec cette taille.
    pub(crate) fn deposees(&self, plan_id: i64) -> Resultat<HashMap<String, u64>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT chemin, taille FROM depot_unite WHERE plan_id = ?1 AND etat = 'deposee'",
            )
            .map_err(|e| self.err(e))?;
        st.query_map([plan_id], |l| Ok((l.get(0)?, l.get::<_, i64>(1)? as u64)))
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))
    }

    /// Une unité par son identifiant.
    pub(crate) fn unite(&self, unite_id: i64) -> Resultat<DepotUnite> {
        self.conn
            .query_row(
                &format!("SELECT {COLONNES_UNITE} FROM depot_unite WHERE id = ?1"),
                [unite_id],
                unite_depuis_ligne,
            )
            .map_err(|e| self.err(e))
    }

    /// Note l'activité d'un plan (pour « le dernier plan » par défaut).
    pub(crate) fn toucher_plan(&self, plan_id: i64) -> Resultat<()> {
        self.conn
            .execute(
                "UPDATE depot_plan SET actif_le = ?2 WHERE id = ?1",
                params![plan_id, maintenant_s()],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn executer(&self, sql: &str, p: impl rusqlite::Params) -> Resultat<usize> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(p))
            .map_err(|e| self.err(e))
    }

    /// L'unité part : écrit avant le premier octet envoyé.
    pub(crate) fn marquer_en_cours(&self, unite_id: i64) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET etat = 'en_cours', echec_definitif = 0, cause_refus = NULL, \
             message = NULL WHERE id = ?1",
            [unite_id],
        )
        .map(|_| ())
    }

    /// L'unité est déposée et vérifiée : ses parties ne servent plus.
    pub(crate) fn marquer_deposee(
        &self,
        unite_id: i64,
        somme_controle: &str,
        etag: Option<&str>,
    ) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET etat = 'deposee', echec_definitif = 0, cause_refus = NULL, \
             message = NULL, envoi_multipart = NULL, enregistrement = NULL, \
             declaration_emise_le = NULL, somme_controle = ?2, etag = ?3, modifie_depuis = 0, \
             depose_le = ?4 WHERE id = ?1",
            params![unite_id, somme_controle, etag, maintenant_s()],
        )?;
        self.executer("DELETE FROM depot_partie WHERE unite_id = ?1", [unite_id])
            .map(|_| ())
    }

    /// L'unité échoue, définitivement ou non, avec sa cause et un message sans secret.
    pub(crate) fn marquer_echec(
        &self,
        unite_id: i64,
        definitif: bool,
        cause: CauseRefus,
        message: &str,
    ) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET etat = 'echec', echec_definitif = ?2, cause_refus = ?3, \
             message = ?4 WHERE id = ?1",
            params![unite_id, definitif, cause, message],
        )
        .map(|_| ())
    }

    /// Une écriture non rejouable est partie sans réponse : à réconcilier avant tout rejeu.
    pub(crate) fn marquer_incertaine(&self, unite_id: i64, message: &str) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET etat = 'incertaine', cause_refus = 'ISSUE_INCONNUE', \
             message = ?2 WHERE id = ?1",
            params![unite_id, message],
        )
        .map(|_| ())
    }

    /// Remet l'unité à déposer (après réconciliation qui conclut qu'elle n'est pas partie).
    pub(crate) fn remettre_a_deposer(&self, unite_id: i64) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET etat = 'a_deposer', echec_definitif = 0, cause_refus = NULL, \
             message = NULL WHERE id = ?1",
            [unite_id],
        )
        .map(|_| ())
    }

    /// Persiste (ou efface) l'identifiant de l'envoi multipart S3 ouvert pour l'unité ; effacé,
    /// ses parties persistées ne sont plus celles d'aucun envoi et sont oubliées.
    pub(crate) fn noter_envoi_multipart(&self, unite_id: i64, envoi: Option<&str>) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET envoi_multipart = ?2 WHERE id = ?1",
            params![unite_id, envoi],
        )?;
        if envoi.is_none() {
            self.oublier_parties(unite_id)?;
        }
        Ok(())
    }

    /// Persiste (ou efface) l'identifiant de l'enregistrement Vigie-Chiro de l'unité : une
    /// déclaration émise est alors réglée. Effacé, ses parties persistées sont oubliées.
    pub(crate) fn noter_enregistrement(
        &self,
        unite_id: i64,
        enregistrement: Option<&str>,
    ) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET enregistrement = ?2, declaration_emise_le = NULL WHERE id = ?1",
            params![unite_id, enregistrement],
        )?;
        if enregistrement.is_none() {
            self.oublier_parties(unite_id)?;
        }
        Ok(())
    }

    /// Note, **avant** de l'émettre, une déclaration multipart à la plateforme Vigie-Chiro : un
    /// arrêt brutal avant sa réponse laisse peut-être un enregistrement dont l'envoi S3 est
    /// ouvert, que la relance cherche au lieu de redéclarer (voir `depot/vigiechiro.rs`).
    pub(crate) fn noter_declaration_emise(&self, unite_id: i64) -> Resultat<()> {
        self.executer(
            "UPDATE depot_unite SET enregistrement = NULL, declaration_emise_le = ?2 WHERE id = ?1",
            params![unite_id, maintenant_s()],
        )
        .map(|_| ())
    }

    /// Les parties persistées d'une unité, par numéro.
    pub(crate) fn parties(&self, unite_id: i64) -> Resultat<Vec<PartieEnvoi>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT numero, debut, taille, etag, somme_controle, etat FROM depot_partie \
                 WHERE unite_id = ?1 ORDER BY numero",
            )
            .map_err(|e| self.err(e))?;
        st.query_map([unite_id], |r| {
            Ok(PartieEnvoi {
                numero: r.get(0)?,
                debut: r.get::<_, i64>(1)? as u64,
                taille: r.get::<_, i64>(2)? as u64,
                etag: r.get(3)?,
                somme_controle: r.get(4)?,
                envoyee: r.get::<_, String>(5)? == "envoyee",
            })
        })
        .and_then(|it| it.collect())
        .map_err(|e| self.err(e))
    }

    /// Persiste une partie envoyée (son ETag) : après un arrêt, elle ne repartira pas.
    pub(crate) fn enregistrer_partie(&self, unite_id: i64, partie: &PartieEnvoi) -> Resultat<()> {
        self.executer(
            "INSERT INTO depot_partie (unite_id, numero, debut, taille, etag, somme_controle, etat) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
             ON CONFLICT (unite_id, numero) DO UPDATE SET debut = excluded.debut, \
             taille = excluded.taille, etag = excluded.etag, \
             somme_controle = excluded.somme_controle, etat = excluded.etat",
            params![
                unite_id,
                partie.numero,
                partie.debut as i64,
                partie.taille as i64,
                partie.etag,
                partie.somme_controle,
                if partie.envoyee { "envoyee" } else { "a_envoyer" }
            ],
        )
        .map(|_| ())
    }

    /// Oublie les parties d'une unité (l'envoi multipart qui les portait n'existe plus).
    pub(crate) fn oublier_parties(&self, unite_id: i64) -> Resultat<()> {
        self.executer("DELETE FROM depot_partie WHERE unite_id = ?1", [unite_id])
            .map(|_| ())
    }

    /// Remet en file, pour `vigie retenter-echecs`, les unités en échec transitoire, les refus
    /// d'authentification (le jeton ou les identifiants ont pu être renouvelés depuis : s'ils ne
    /// l'ont pas été, l'unité échoue de nouveau aussitôt), sur demande les autres refus
    /// définitifs, et celles laissées `en_cours`. Les `incertaine` restent : le moteur les
    /// réconcilie avant tout rejeu.
    pub(crate) fn remettre_en_file(
        &self,
        plan_id: i64,
        y_compris_definitifs: bool,
    ) -> Resultat<u64> {
        self.executer(
            "UPDATE depot_unite SET etat = 'a_deposer', echec_definitif = 0, cause_refus = NULL, \
             message = NULL WHERE plan_id = ?1 AND (etat = 'en_cours' OR (etat = 'echec' AND \
             (echec_definitif = 0 OR ?2 OR cause_refus IN ('AUTHENTIFICATION', 'HORLOGE'))))",
            params![plan_id, y_compris_definitifs],
        )
        .map(|n| n as u64)
    }

    /// La participation Vigie-Chiro du plan, et l'instant d'une création émise sans issue
    /// connue.
    pub(crate) fn participation(&self, plan_id: i64) -> Resultat<(Option<String>, Option<i64>)> {
        self.conn
            .query_row(
                "SELECT participation, participation_emise_le FROM depot_plan WHERE id = ?1",
                [plan_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))
    }

    /// Oublie un plan qui n'a encore rien fait : toutes ses unités à déposer, aucune partie
    /// envoyée, et aucune participation créée ni émise (sauf si `creation_refusee` : la
    /// plateforme a refusé la création, rien n'existe chez elle). C'est le cas d'un plan créé par
    /// un passage qui s'est arrêté avant tout envoi (identifiants absents, participation
    /// refusée, simulation) : il n'a rien à reprendre, et `vigie plans` ne doit pas le montrer.
    /// Rend vrai si le plan a été oublié ; un plan qui a commencé reste, lui, intact.
    pub(crate) fn oublier_plan_intact(
        &mut self,
        plan_id: i64,
        creation_refusee: bool,
    ) -> Resultat<bool> {
        let chemin = self.chemin.clone();
        let err = |e| ErreurBase::depuis_sqlite(&chemin, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let entame: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM depot_unite WHERE plan_id = ?1 AND etat != 'a_deposer') \
                 OR EXISTS (SELECT 1 FROM depot_partie JOIN depot_unite ON depot_unite.id = depot_partie.unite_id \
                            WHERE depot_unite.plan_id = ?1) \
                 OR EXISTS (SELECT 1 FROM depot_plan WHERE id = ?1 AND (participation IS NOT NULL \
                            OR (participation_emise_le IS NOT NULL AND NOT ?2)))",
                params![plan_id, creation_refusee],
                |r| r.get(0),
            )
            .map_err(err)?;
        if entame {
            return Ok(false);
        }
        tx.execute("DELETE FROM depot_plan WHERE id = ?1", [plan_id])
            .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }

    /// Note qu'une création de participation va partir : écrit **avant** l'émission.
    pub(crate) fn noter_creation_participation(&self, plan_id: i64) -> Resultat<()> {
        self.executer(
            "UPDATE depot_plan SET participation_emise_le = ?2 WHERE id = ?1",
            params![plan_id, maintenant_s()],
        )
        .map(|_| ())
    }

    /// Écrit l'identifiant de la participation, aussitôt connu.
    pub(crate) fn enregistrer_participation(
        &self,
        plan_id: i64,
        participation: &str,
    ) -> Resultat<()> {
        self.executer(
            "UPDATE depot_plan SET participation = ?2, participation_emise_le = NULL WHERE id = ?1",
            params![plan_id, participation],
        )
        .map(|_| ())
    }

    /// Note que la plateforme refuse l'envoi en plusieurs parties pour ce plan (la première
    /// fois seulement).
    pub(crate) fn noter_multipart_refuse(&self, plan_id: i64) -> Resultat<()> {
        self.executer(
            "UPDATE depot_plan SET multipart_refuse_le = ?2 \
             WHERE id = ?1 AND multipart_refuse_le IS NULL",
            params![plan_id, maintenant_s()],
        )
        .map(|_| ())
    }

    /// Les tentatives faites pour chaque unité du plan, d'après le journal des décisions : une
    /// ligne par émission tentée (déclaration, envoi, finalisation…), tous passages confondus.
    /// Une unité jamais tentée n'y est pas.
    pub(crate) fn tentatives_par_unite(&self, plan_id: i64) -> Resultat<HashMap<i64, u64>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT unite_id, count(*) FROM journal_decision \
                 WHERE plan_id = ?1 AND unite_id IS NOT NULL AND tentative > 0 GROUP BY unite_id",
            )
            .map_err(|e| self.err(e))?;
        st.query_map([plan_id], |l| Ok((l.get(0)?, l.get::<_, i64>(1)? as u64)))
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))
    }

    /// Écrit une décision de la politique de réessai dans le journal.
    pub(crate) fn journaliser(&self, e: &EntreeJournal<'_>) -> Resultat<()> {
        self.executer(
            "INSERT INTO journal_decision (plan_id, unite_id, instant_ms, methode, cible, \
             tentative, statut, attente_ms, budget_restant_ms, raison, detail) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                e.plan_id,
                e.unite_id,
                maintenant_ms(),
                e.methode,
                e.cible,
                e.tentative,
                e.statut,
                e.attente_ms.map(|v| v as i64),
                e.budget_restant_ms.map(|v| v as i64),
                e.raison,
                e.detail
            ],
        )
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fichier(chemin: &str, taille: u64, modifie_ns: i64) -> FichierPlanifie {
        FichierPlanifie {
            chemin: chemin.into(),
            cle: format!("nuit/{chemin}"),
            taille,
            modifie_ns,
            identite: Some(format!("1:{modifie_ns}")),
            preparee: None,
        }
    }

    #[test]
    fn l_identite_du_fichier_suit_chaque_planification() {
        let (_d, mut b) = base();
        let mut f = fichier("a.wav", 10, 5);
        b.planifier("/n", "s3://c", std::slice::from_ref(&f), false)
            .unwrap();
        let identite = |b: &Base| {
            b.unites(1, &[EtatUnite::ADeposer]).unwrap()[0]
                .identite
                .clone()
        };
        assert_eq!(identite(&b).as_deref(), Some("1:5"));
        // Même taille, même date, autre fichier (copié, restauré) : l'identité suit.
        f.identite = Some("1:99".into());
        b.planifier("/n", "s3://c", &[f], false).unwrap();
        assert_eq!(identite(&b).as_deref(), Some("1:99"));
    }

    fn base() -> (tempfile::TempDir, Base) {
        let dir = tempfile::tempdir().unwrap();
        let b = Base::ouvrir(&dir.path().join("v.sqlite")).unwrap();
        (dir, b)
    }

    fn etat(b: &Base, plan: i64, chemin: &str) -> EtatUnite {
        b.unites(plan, &[])
            .unwrap()
            .into_iter()
            .find(|u| u.chemin == chemin)
            .unwrap()
            .etat
    }

    #[test]
    fn meme_paire_meme_plan() {
        let (_d, mut b) = base();
        let f = [fichier("a.wav", 10, 1)];
        let r1 = b.planifier("/n", "s3://c/p", &f, false).unwrap();
        let r2 = b.planifier("/n", "s3://c/p", &f, false).unwrap();
        let r3 = b.planifier("/n", "s3://c/autre", &f, false).unwrap();
        assert!(r1.cree && !r2.cree && r3.cree);
        assert_eq!(r1.plan.as_ref().unwrap().id, r2.plan.as_ref().unwrap().id);
        assert_ne!(r1.plan.unwrap().id, r3.plan.unwrap().id);
        assert_eq!(r2.ajoutees, 0);
    }

    #[test]
    fn replanification_conserve_ajoute_retire_et_signale() {
        let (_d, mut b) = base();
        let avant = [
            fichier("depose.wav", 10, 1),
            fichier("interrompu.wav", 10, 1),
            fichier("disparu.wav", 10, 1),
            fichier("depose_disparu.wav", 10, 1),
            fichier("modifie.wav", 10, 1),
            fichier("echoue.wav", 10, 1),
            fichier("incertain.wav", 10, 1),
        ];
        let plan = b
            .planifier("/n", "s3://c", &avant, false)
            .unwrap()
            .plan
            .unwrap()
            .id;
        let id = |b: &Base, c: &str| {
            b.unites(plan, &[])
                .unwrap()
                .into_iter()
                .find(|u| u.chemin == c)
                .unwrap()
                .id
        };
        for c in ["depose.wav", "depose_disparu.wav", "modifie.wav"] {
            b.marquer_deposee(id(&b, c), "crc", Some("etag")).unwrap();
        }
        b.marquer_en_cours(id(&b, "interrompu.wav")).unwrap();
        let echoue = id(&b, "echoue.wav");
        b.marquer_echec(echoue, false, CauseRefus::Reseau, "coupure")
            .unwrap();
        b.marquer_incertaine(id(&b, "incertain.wav"), "sans réponse")
            .unwrap();

        let apres = [
            fichier("depose.wav", 10, 1),
            fichier("interrompu.wav", 10, 1),
            fichier("modifie.wav", 11, 2),
            fichier("echoue.wav", 10, 1),
            fichier("incertain.wav", 10, 1),
            fichier("nouveau.wav", 5, 1),
        ];
        let r = b.planifier("/n", "s3://c", &apres, false).unwrap();
        assert_eq!(r.ajoutees, 1);
        assert_eq!(r.retirees, 1, "seul disparu.wav, non déposé, sort");
        assert_eq!(r.reprises, 1);
        assert_eq!(r.modifiees, vec!["modifie.wav".to_string()]);
        assert_eq!(etat(&b, plan, "depose.wav"), EtatUnite::Deposee);
        assert_eq!(etat(&b, plan, "depose_disparu.wav"), EtatUnite::Deposee);
        assert_eq!(etat(&b, plan, "interrompu.wav"), EtatUnite::ADeposer);
        assert_eq!(etat(&b, plan, "modifie.wav"), EtatUnite::Deposee);
        assert_eq!(etat(&b, plan, "echoue.wav"), EtatUnite::Echec);
        assert_eq!(etat(&b, plan, "incertain.wav"), EtatUnite::Incertaine);
        assert_eq!(etat(&b, plan, "nouveau.wav"), EtatUnite::ADeposer);
        assert!(b.unite(id(&b, "modifie.wav")).unwrap().modifie_depuis);
        let resume = b.resume(plan).unwrap();
        assert_eq!(resume.modifiees, 1);
        assert_eq!(resume.total(), 7);

        // Avec --redeposer-modifies, le fichier modifié repart.
        let r = b.planifier("/n", "s3://c", &apres, true).unwrap();
        assert_eq!(r.redeposees, 1);
        assert!(r.modifiees.is_empty());
        assert_eq!(etat(&b, plan, "modifie.wav"), EtatUnite::ADeposer);
    }

    /// Une déposée revenue avec la même taille et une autre date : sans dates relues, rien
    /// n'est écrit (pas même l'unité nouvelle ni la date d'activité) et elle est rendue avec
    /// ce qui a été noté au dépôt ; au second tour, relue identique, sa date est notée ; une
    /// autre, non relue identique, est dite changée. Sans date changée, un seul tour.
    #[test]
    fn date_seule_rendue_a_relire_sans_rien_ecrire_puis_notee() {
        let (_d, mut b) = base();
        let avant = [fichier("a.wav", 10, 1), fichier("b.wav", 10, 1)];
        let plan = b
            .planifier("/n", "s3://c", &avant, false)
            .unwrap()
            .plan
            .unwrap();
        for u in b.unites(plan.id, &[]).unwrap() {
            b.marquer_deposee(u.id, &format!("crc-{}", u.chemin), Some("etag"))
                .unwrap();
        }
        let sans_changement = b
            .planifier_dans(
                "/n",
                (&Sorte::nouvelle("s3"), "s3://c"),
                &avant,
                false,
                None,
                None,
            )
            .unwrap();
        assert!(matches!(sans_changement, Planifiee::Faite(_)));
        let apres = [
            fichier("a.wav", 10, 3_600),
            fichier("b.wav", 10, 3_600),
            fichier("nouveau.wav", 5, 1),
        ];
        let avant_ecriture = b.unites(plan.id, &[]).unwrap();
        // Une date d'activité qu'aucune écriture de cette seconde ne peut rendre.
        b.conn
            .execute("UPDATE depot_plan SET actif_le = 0", [])
            .unwrap();
        let Planifiee::ARelire(a_relire) = b
            .planifier_dans(
                "/n",
                (&Sorte::nouvelle("s3"), "s3://c"),
                &apres,
                false,
                None,
                None,
            )
            .unwrap()
        else {
            panic!("rien à relire")
        };
        let chemins: Vec<(&str, Option<&str>)> = a_relire
            .iter()
            .map(|d| (d.chemin.as_str(), d.somme_controle.as_deref()))
            .collect();
        assert_eq!(
            chemins,
            [("a.wav", Some("crc-a.wav")), ("b.wav", Some("crc-b.wav"))]
        );
        assert_eq!(b.unites(plan.id, &[]).unwrap(), avant_ecriture);
        assert_eq!(b.plan(Some(plan.id)).unwrap().actif_le, 0);

        let memes: HashSet<String> = ["a.wav".to_string()].into();
        let Planifiee::Faite(r) = b
            .planifier_dans(
                "/n",
                (&Sorte::nouvelle("s3"), "s3://c"),
                &apres,
                false,
                Some(&memes),
                None,
            )
            .unwrap()
        else {
            panic!("dates relues données : rien à relire")
        };
        assert_eq!(r.dates_seules, 1);
        assert_eq!(r.modifiees, ["b.wav"]);
        assert_eq!(r.ajoutees, 1);
        let a = b.unites(plan.id, &[]).unwrap();
        assert_eq!(a[0].modifie_ns, 3_600);
        assert!(!a[0].modifie_depuis);
        assert!(a[1].modifie_depuis);
    }

    /// Les unités à reprendre d'un plan se lisent par l'index `(plan_id, etat, …)` : les
    /// déposées ne sont pas lues (demander le tri à la base lui ferait parcourir tout le plan
    /// par l'index `(plan_id, chemin)`). Les comptes d'un plan se lisent dans l'index seul.
    #[test]
    fn les_unites_a_reprendre_se_lisent_par_leur_etat_et_les_comptes_dans_l_index() {
        let (_d, b) = base();
        for etats in [
            &[EtatUnite::ADeposer][..],
            &[EtatUnite::Echec, EtatUnite::Incertaine],
            &[
                EtatUnite::ADeposer,
                EtatUnite::EnCours,
                EtatUnite::Incertaine,
                EtatUnite::Echec,
            ],
        ] {
            let plan: String = b
                .conn
                .query_row(
                    &format!("EXPLAIN QUERY PLAN {}", requete_unites(etats.len())),
                    rusqlite::params_from_iter(
                        std::iter::once(&1 as &dyn rusqlite::ToSql)
                            .chain(etats.iter().map(|e| e as &dyn rusqlite::ToSql)),
                    ),
                    |r| r.get(3),
                )
                .unwrap();
            assert!(
                plan.contains("depot_unite_comptes (plan_id=? AND etat=?)"),
                "{plan}"
            );
        }
        let plan: String = b
            .conn
            .query_row(&format!("EXPLAIN QUERY PLAN {REQUETE_COMPTES}"), [1], |r| {
                r.get(3)
            })
            .unwrap();
        assert!(
            plan.contains("COVERING INDEX depot_unite_comptes (plan_id=?)"),
            "{plan}"
        );
    }

    #[test]
    fn fichier_change_avant_depot_oublie_ses_parties() {
        let (_d, mut b) = base();
        let plan = b
            .planifier("/n", "s3://c", &[fichier("gros.wav", 100, 1)], false)
            .unwrap()
            .plan
            .unwrap()
            .id;
        let u = b.unites(plan, &[]).unwrap().remove(0);
        b.noter_envoi_multipart(u.id, Some("envoi-1")).unwrap();
        let partie = PartieEnvoi {
            numero: 1,
            debut: 0,
            taille: 50,
            etag: Some("e1".into()),
            somme_controle: Some("c1".into()),
            envoyee: true,
        };
        b.enregistrer_partie(u.id, &partie).unwrap();
        assert_eq!(b.parties(u.id).unwrap(), vec![partie]);
        let r = b
            .planifier("/n", "s3://c", &[fichier("gros.wav", 120, 2)], false)
            .unwrap();
        assert_eq!(r.mises_a_jour, 1);
        assert!(b.parties(u.id).unwrap().is_empty());
        assert_eq!(b.unite(u.id).unwrap().taille, 120);
    }

    #[test]
    fn remettre_en_file_epargne_les_definitifs_sauf_demande() {
        let (_d, mut b) = base();
        let f = [
            fichier("a.wav", 1, 1),
            fichier("b.wav", 1, 1),
            fichier("c.wav", 1, 1),
        ];
        let plan = b
            .planifier("/n", "s3://c", &f, false)
            .unwrap()
            .plan
            .unwrap()
            .id;
        let us = b.unites(plan, &[]).unwrap();
        b.marquer_echec(us[0].id, false, CauseRefus::Serveur, "503")
            .unwrap();
        b.marquer_echec(us[1].id, true, CauseRefus::Droits, "403")
            .unwrap();
        b.marquer_en_cours(us[2].id).unwrap();
        assert_eq!(b.remettre_en_file(plan, false).unwrap(), 2);
        assert_eq!(etat(&b, plan, "b.wav"), EtatUnite::Echec);
        assert_eq!(b.remettre_en_file(plan, true).unwrap(), 1);
        assert_eq!(etat(&b, plan, "b.wav"), EtatUnite::ADeposer);
    }

    #[test]
    fn resume_et_dernier_plan() {
        let (_d, mut b) = base();
        let f = [fichier("a.wav", 100, 1), fichier("b.wav", 50, 1)];
        let p1 = b
            .planifier("/n1", "s3://c", &f, false)
            .unwrap()
            .plan
            .unwrap()
            .id;
        let us = b.unites(p1, &[]).unwrap();
        b.marquer_deposee(us[0].id, "crc", None).unwrap();
        b.marquer_echec(us[1].id, true, CauseRefus::Droits, "403")
            .unwrap();
        let r = b.resume(p1).unwrap();
        assert_eq!((r.deposee, r.echec, r.definitifs), (1, 1, 1));
        assert_eq!((r.octets_total, r.octets_deposes), (150, 100));
        assert_eq!(
            r.echecs_par_cause,
            vec![(Some(CauseRefus::Droits), true, 1)]
        );
        assert_eq!(b.plan(None).unwrap().id, p1);
        assert!(matches!(
            b.plan(Some(999)),
            Err(ErreurBase::PlanInconnu { id: 999, .. })
        ));
    }
}
