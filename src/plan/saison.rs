//! Les tables de saison (migration 0007) : une saison (API, année) regroupe les plans de ses
//! nuits ; chaque nuit liée garde son plan, donc sa participation, d'une relance à l'autre.

use rusqlite::{OptionalExtension, params};

use super::{Base, CalculNote, DepotPlan, Resultat, ResumePlan, maintenant_s};

/// Ce qui identifie une nuit dans sa saison, et ce qu'on en garde pour l'afficher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NuitLiee {
    /// L'ObjectId du site.
    pub(crate) site: String,
    /// Le numéro de site tel qu'écrit dans les noms.
    pub(crate) numero_site: String,
    /// `point_fixe` ou `routier`.
    pub(crate) protocole: String,
    pub(crate) passage: u8,
    /// `""` en routier.
    pub(crate) point: String,
    /// `AAAA-MM-JJ` ; `""` en routier.
    pub(crate) soiree: String,
    /// Le fuseau de l'enregistreur retenu (`local`, `UTC`, `+01:00`).
    pub(crate) fuseau: String,
    /// Première et dernière séquence (UTC), secondes Unix.
    pub(crate) premiere_s: Option<i64>,
    pub(crate) derniere_s: Option<i64>,
    /// Les enregistreurs, séparés par des virgules.
    pub(crate) enregistreurs: String,
}

/// Ce que vise par défaut une commande d'après le dépôt (`traiter`, `traitement`,
/// `resultats`, `verifier`, `etat`, `retenter-echecs`) : le dernier dépôt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DernierDepot {
    /// Une nuit de saison : toute sa saison.
    Saison(i64),
    /// Un plan hors saison (S3, `--participation`, `--site --debut --fin`) : lui seul.
    Plan(i64),
}

/// Une nuit liée à son plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NuitPlanifiee {
    pub(crate) plan_id: i64,
    pub(crate) saison_id: i64,
    pub(crate) annee: u16,
    pub(crate) api: String,
    pub(crate) nuit: NuitLiee,
}

const COLONNES: &str = "n.plan_id, n.saison_id, s.annee, s.api, n.site, n.numero_site, \
     n.protocole, n.passage, n.point, n.soiree, n.fuseau, n.premiere_s, n.derniere_s, \
     n.enregistreurs";

fn depuis_ligne(r: &rusqlite::Row<'_>) -> rusqlite::Result<NuitPlanifiee> {
    Ok(NuitPlanifiee {
        plan_id: r.get(0)?,
        saison_id: r.get(1)?,
        annee: r.get::<_, i64>(2)? as u16,
        api: r.get(3)?,
        nuit: NuitLiee {
            site: r.get(4)?,
            numero_site: r.get(5)?,
            protocole: r.get(6)?,
            passage: r.get::<_, i64>(7)? as u8,
            point: r.get(8)?,
            soiree: r.get(9)?,
            fuseau: r.get(10)?,
            premiere_s: r.get(11)?,
            derniere_s: r.get(12)?,
            enregistreurs: r.get(13)?,
        },
    })
}

/// Ce que la base dit d'une nuit de saison pour `vigie etat`.
#[derive(Debug, Clone)]
pub(crate) struct EtatDeNuit {
    pub(crate) plan: DepotPlan,
    pub(crate) resume: ResumePlan,
    /// Un processus vivant tient le verrou de son plan : un dépôt la tient en ce moment.
    pub(crate) tenue: bool,
    /// Le dernier état de son calcul relevé par `traiter`, `traitement` ou `resultats`.
    pub(crate) calcul: Option<CalculNote>,
}

impl Base {
    /// La saison (API, année), si elle existe.
    pub(crate) fn saison(&self, api: &str, annee: u16) -> Resultat<Option<i64>> {
        self.conn
            .query_row(
                "SELECT id FROM saison WHERE api = ?1 AND annee = ?2",
                params![api, i64::from(annee)],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// La saison (API, année), créée au besoin, et notée active.
    pub(crate) fn ouvrir_saison(&self, api: &str, annee: u16) -> Resultat<i64> {
        let maintenant = maintenant_s();
        self.conn
            .execute(
                "INSERT INTO saison (api, annee, cree_le, actif_le) VALUES (?1, ?2, ?3, ?3) \
                 ON CONFLICT (api, annee) DO UPDATE SET actif_le = excluded.actif_le",
                params![api, i64::from(annee), maintenant],
            )
            .map_err(|e| self.err(e))?;
        self.saison(api, annee)?
            .ok_or_else(|| self.err(rusqlite::Error::QueryReturnedNoRows))
    }

    /// Le plan de cette nuit de la saison, s'il y en a un (la clé : site, protocole, passage,
    /// point, soirée).
    pub(crate) fn plan_de_nuit(&self, saison_id: i64, n: &NuitLiee) -> Resultat<Option<i64>> {
        self.conn
            .query_row(
                "SELECT plan_id FROM saison_nuit WHERE saison_id = ?1 AND site = ?2 \
                 AND protocole = ?3 AND passage = ?4 AND point = ?5 AND soiree = ?6",
                params![
                    saison_id,
                    n.site,
                    n.protocole,
                    i64::from(n.passage),
                    n.point,
                    n.soiree
                ],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Lie le plan à sa nuit (ou met à jour ce qu'on en garde pour l'affichage).
    pub(crate) fn lier_nuit(&self, plan_id: i64, saison_id: i64, n: &NuitLiee) -> Resultat<()> {
        self.conn
            .execute(
                "INSERT INTO saison_nuit (plan_id, saison_id, site, numero_site, protocole, \
                 passage, point, soiree, fuseau, premiere_s, derniere_s, enregistreurs) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
                 ON CONFLICT (plan_id) DO UPDATE SET enregistreurs = excluded.enregistreurs",
                params![
                    plan_id,
                    saison_id,
                    n.site,
                    n.numero_site,
                    n.protocole,
                    i64::from(n.passage),
                    n.point,
                    n.soiree,
                    n.fuseau,
                    n.premiere_s,
                    n.derniere_s,
                    n.enregistreurs
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// La racine d'une nuit monte : un fichier de la nuit a été trouvé hors de son dossier
    /// (la carte copiée ailleurs, un troisième enregistreur dans un dossier voisin). Dans une
    /// transaction, le plan prend pour dossier `nouveau` (un ancêtre de l'ancien) et chaque
    /// chemin reçoit `prefixe` (l'ancien dossier relatif au nouveau, séparateur `/`) : les clés
    /// (les titres) ne changent pas, rien ne repart.
    pub(crate) fn monter_racine(
        &mut self,
        plan_id: i64,
        nouveau: &str,
        prefixe: &str,
    ) -> Resultat<()> {
        let chemin_base = self.chemin.clone();
        let err = |e| super::ErreurBase::depuis_sqlite(&chemin_base, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        if !prefixe.is_empty() {
            tx.execute(
                "UPDATE depot_unite SET chemin = ?1 || '/' || chemin WHERE plan_id = ?2",
                params![prefixe, plan_id],
            )
            .map_err(err)?;
        }
        tx.execute(
            "UPDATE depot_plan SET dossier = ?1 WHERE id = ?2",
            params![nouveau, plan_id],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Les nuits de la saison, dans l'ordre de la saison (soirée, site, point, passage).
    pub(crate) fn nuits_de_saison(&self, saison_id: i64) -> Resultat<Vec<NuitPlanifiee>> {
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT {COLONNES} FROM saison_nuit n JOIN saison s ON s.id = n.saison_id \
                 WHERE n.saison_id = ?1 ORDER BY n.soiree, n.numero_site, n.protocole, \
                 n.point, n.passage"
            ))
            .map_err(|e| self.err(e))?;
        let lignes = st
            .query_map([saison_id], depuis_ligne)
            .map_err(|e| self.err(e))?;
        lignes
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// Le dernier dépôt : le plan le plus récemment actif (un passage de dépôt le rend actif,
    /// `retenter-echecs` compris ; `traiter`, `verifier`, `etat` ne le touchent pas), ou, si
    /// c'est une nuit de saison, **toute sa saison**, quelle que soit la nuit touchée en
    /// dernier. `vers_la_plateforme` : seuls comptent les plans vers la plateforme Vigie-Chiro
    /// (une copie vers S3 faite après la saison ne la cache pas à `traiter`).
    pub(crate) fn dernier_depot(&self, vers_la_plateforme: bool) -> Resultat<DernierDepot> {
        let filtre = if vers_la_plateforme {
            "WHERE p.destination LIKE 'vigiechiro:%'"
        } else {
            ""
        };
        let trouve: Option<(i64, Option<i64>)> = self
            .conn
            .query_row(
                &format!(
                    "SELECT p.id, n.saison_id FROM depot_plan p \
                     LEFT JOIN saison_nuit n ON n.plan_id = p.id {filtre} \
                     ORDER BY p.actif_le DESC, p.id DESC LIMIT 1"
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        match trouve {
            Some((_, Some(saison))) => Ok(DernierDepot::Saison(saison)),
            Some((plan, None)) => Ok(DernierDepot::Plan(plan)),
            None => Err(super::ErreurBase::AucunPlan {
                chemin: self.chemin.clone(),
            }),
        }
    }

    /// La saison du dernier dépôt de saison (celle de la nuit la plus récemment active), même
    /// si un plan hors saison l'a été après elle ; `None` sans aucune saison.
    pub(crate) fn saison_du_dernier_depot(&self) -> Resultat<Option<i64>> {
        self.conn
            .query_row(
                "SELECT n.saison_id FROM saison_nuit n JOIN depot_plan p ON p.id = n.plan_id \
                 ORDER BY p.actif_le DESC, p.id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Les nuits de toutes les saisons de cette API, année par année, dans l'ordre de chaque
    /// saison.
    pub(crate) fn nuits_de_l_api(&self, api: &str) -> Resultat<Vec<NuitPlanifiee>> {
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT {COLONNES} FROM saison_nuit n JOIN saison s ON s.id = n.saison_id \
                 WHERE s.api = ?1 ORDER BY s.annee, n.soiree, n.numero_site, n.protocole, \
                 n.point, n.passage"
            ))
            .map_err(|e| self.err(e))?;
        let lignes = st.query_map([api], depuis_ligne).map_err(|e| self.err(e))?;
        lignes
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// Ce que `vigie etat` lit d'une nuit de saison : son plan (`plan_id`), ses comptes, s'il
    /// est tenu, le dernier état relevé de son calcul.
    pub(crate) fn etat_de_nuit(&self, plan_id: i64) -> Resultat<EtatDeNuit> {
        let plan = self.plan(Some(plan_id))?;
        let resume = self.resume(plan_id)?;
        Ok(EtatDeNuit {
            tenue: super::est_tenu(self.chemin(), &plan.dossier, &plan.destination),
            calcul: self.calcul_note(plan_id)?,
            plan,
            resume,
        })
    }

    /// La nuit de saison de ce plan, s'il en est une.
    pub(crate) fn nuit_du_plan(&self, plan_id: i64) -> Resultat<Option<NuitPlanifiee>> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {COLONNES} FROM saison_nuit n JOIN saison s ON s.id = n.saison_id \
                     WHERE n.plan_id = ?1"
                ),
                [plan_id],
                depuis_ligne,
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{
        FichierPlanifie, PLAN_VIGIECHIRO_ANCIEN, UNITE_DEPOSEE_ANCIENNE, base_au_schema,
    };

    /// Une base au schéma 6, avec un plan commencé, monte au schéma 7 (et aux suivants) sans
    /// rien perdre : le plan reste hors saison, et une saison peut s'y ouvrir.
    #[test]
    fn base_au_schema_6_mise_a_niveau_sans_perte() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            6,
            &format!("{PLAN_VIGIECHIRO_ANCIEN} {UNITE_DEPOSEE_ANCIENNE}"),
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let plan = b.plan(Some(1)).unwrap();
        assert_eq!(
            plan.participation.as_deref(),
            Some("64a1b2c3d4e5f60718293d01")
        );
        assert_eq!(b.resume(1).unwrap().deposee, 1);
        assert_eq!(b.nuit_du_plan(1).unwrap(), None);
        let s = b.ouvrir_saison("http://127.0.0.1:1/api/v1", 2026).unwrap();
        b.lier_nuit(1, s, &nuit("A1", "2026-06-20")).unwrap();
        assert_eq!(b.nuits_de_saison(s).unwrap().len(), 1);
    }

    fn nuit(point: &str, soiree: &str) -> NuitLiee {
        NuitLiee {
            site: "64a1b2c3d4e5f60718293c01".into(),
            numero_site: "640139".into(),
            protocole: "point_fixe".into(),
            passage: 1,
            point: point.into(),
            soiree: soiree.into(),
            fuseau: "UTC".into(),
            premiere_s: Some(1),
            derniere_s: Some(2),
            enregistreurs: "PA1".into(),
        }
    }

    fn f(chemin: &str) -> FichierPlanifie {
        FichierPlanifie {
            cle: chemin.rsplit('/').next().unwrap().into(),
            ..FichierPlanifie::d_essai(chemin)
        }
    }

    /// Une nuit replanifiée depuis un seul de ses dossiers (`vigie depot Saison/PA1`) ne perd
    /// pas les fichiers de l'autre (`PA2`) ; parcourue entière, si.
    #[test]
    fn seuls_les_dossiers_parcourus_perdent_leurs_fichiers_disparus() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = Base::ouvrir(&dir.path().join("b.sqlite")).unwrap();
        let (id, tous) = (
            "vigiechiro:participation/x",
            [f("PA1/a.wav"), f("PA2/b.wav")],
        );
        base.planifier("/s", id, &tous, false).unwrap();
        let mut dans = |fichiers: &[FichierPlanifie], perimetre: &[String]| {
            let sans_date = std::collections::HashSet::new();
            match base
                .planifier_dans(
                    "/s",
                    (&crate::plan::Sorte::nouvelle("essai"), id),
                    fichiers,
                    false,
                    Some(&sans_date),
                    Some(perimetre),
                )
                .unwrap()
            {
                crate::plan::Planifiee::Faite(r) => r,
                crate::plan::Planifiee::ARelire(a) => panic!("à relire : {a:?}"),
            }
        };
        let r = dans(&tous[..1], &["PA1".into()]);
        assert_eq!(r.retirees, 0);
        // « PA1/a.wav » n'est pas sous le dossier « PA ».
        let r = dans(&[], &["PA".into()]);
        assert_eq!(r.retirees, 0);
        let r = dans(&tous[..1], &[String::new()]);
        assert_eq!(r.retirees, 1);
    }

    /// Le dernier dépôt vise toute la saison de la nuit touchée en dernier, quelle qu'elle
    /// soit ; un plan hors saison plus récent est visé seul, sauf par les commandes qui ne
    /// regardent que la plateforme (une copie vers S3 ne cache pas la saison).
    #[test]
    fn le_dernier_depot_vise_toute_la_saison_de_sa_nuit() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = Base::ouvrir(&dir.path().join("b.sqlite")).unwrap();
        assert!(matches!(
            base.dernier_depot(false),
            Err(crate::plan::ErreurBase::AucunPlan { .. })
        ));
        assert_eq!(base.saison_du_dernier_depot().unwrap(), None);
        let api = "http://127.0.0.1:1/api/v1";
        let (s26, s25) = (
            base.ouvrir_saison(api, 2026).unwrap(),
            base.ouvrir_saison(api, 2025).unwrap(),
        );
        let mut plan = |dossier: &str, destination: &str, actif: i64| {
            let id = base
                .planifier(dossier, destination, &[f("a.wav")], false)
                .unwrap()
                .plan
                .unwrap()
                .id;
            base.conn
                .execute(
                    "UPDATE depot_plan SET actif_le = ?1 WHERE id = ?2",
                    params![actif, id],
                )
                .unwrap();
            id
        };
        let a1 = plan("/s/a1", "vigiechiro:participation/a", 10);
        let b2 = plan("/s/b2", "vigiechiro:participation/b", 30);
        let vieille = plan("/v/a1", "vigiechiro:participation/c", 20);
        let s3 = plan("/copie", "s3://copie/saison", 40);
        base.lier_nuit(a1, s26, &nuit("A1", "2026-06-20")).unwrap();
        base.lier_nuit(b2, s26, &nuit("B2", "2026-06-21")).unwrap();
        base.lier_nuit(vieille, s25, &nuit("A1", "2025-06-20"))
            .unwrap();
        assert_eq!(base.dernier_depot(false).unwrap(), DernierDepot::Plan(s3));
        assert_eq!(base.dernier_depot(true).unwrap(), DernierDepot::Saison(s26));
        assert_eq!(base.saison_du_dernier_depot().unwrap(), Some(s26));
        // La saison 2025 reprise (retenter-echecs touche son plan) devient le dernier dépôt.
        base.conn
            .execute(
                "UPDATE depot_plan SET actif_le = 50 WHERE id = ?1",
                [vieille],
            )
            .unwrap();
        assert_eq!(
            base.dernier_depot(false).unwrap(),
            DernierDepot::Saison(s25)
        );
        assert_eq!(base.saison_du_dernier_depot().unwrap(), Some(s25));
        let toutes: Vec<i64> = base
            .nuits_de_l_api(api)
            .unwrap()
            .iter()
            .map(|n| n.plan_id)
            .collect();
        assert_eq!(toutes, [vieille, a1, b2], "année, puis ordre de la saison");
        assert!(base.nuits_de_l_api("http://ailleurs").unwrap().is_empty());
    }

    #[test]
    fn une_nuit_liee_retrouve_son_plan_et_sa_saison() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = Base::ouvrir(&dir.path().join("b.sqlite")).unwrap();
        let api = "http://127.0.0.1:1/api/v1";
        assert_eq!(base.saison(api, 2026).unwrap(), None);
        let s = base.ouvrir_saison(api, 2026).unwrap();
        assert_eq!(
            base.ouvrir_saison(api, 2026).unwrap(),
            s,
            "une seule saison"
        );
        assert_ne!(base.ouvrir_saison(api, 2025).unwrap(), s);
        let f = FichierPlanifie::d_essai("a.wav");
        let r = base
            .planifier("/n1", "vigiechiro:participation/x", &[f], false)
            .unwrap();
        let plan = r.plan.unwrap().id;
        let (a1, b2) = (nuit("A1", "2026-06-20"), nuit("B2", "2026-06-20"));
        base.lier_nuit(plan, s, &a1).unwrap();
        base.lier_nuit(plan, s, &a1).unwrap();
        assert_eq!(base.plan_de_nuit(s, &a1).unwrap(), Some(plan));
        assert_eq!(base.plan_de_nuit(s, &b2).unwrap(), None);
        let nuits = base.nuits_de_saison(s).unwrap();
        assert_eq!(nuits.len(), 1);
        assert_eq!((nuits[0].annee, nuits[0].nuit.clone()), (2026, a1));
        assert!(base.nuit_du_plan(plan).unwrap().is_some());
        // Le plan oublié emporte sa nuit.
        assert!(base.oublier_plan_intact(plan, false).unwrap());
        assert!(base.nuits_de_saison(s).unwrap().is_empty());
    }
}
