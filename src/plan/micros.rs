//! Les micros retenus par point d'écoute (`micro_du_point`) : ce que la bénévole a dit une fois
//! d'un point (position, hauteur, type, numéro de série de chaque micro : le premier, rang 0, et
//! en point fixe le second, rang 1), repris à chaque passage suivant pour décrire sa
//! participation, jusqu'à ce qu'une option le remplace.
//!
//! Pourquoi : le micro d'un point ne change pas d'un passage à l'autre (il reste au même
//! arbre, à la même hauteur) ; le redemander à chaque nuit, c'est des participations dont la
//! configuration reste vide. Ce module ne connaît que la forme persistée ; la fusion avec la
//! ligne de commande et ce qu'on en dit sont dans `depot/vigiechiro/participation.rs`.

use rusqlite::OptionalExtension;

use super::{Base, Resultat, maintenant_s};
use crate::description::Micro;

/// Un point d'écoute : son API, son site (identifiant de la plateforme) et son nom (`""` pour
/// un site routier ou pédestre).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PointEcoute<'a> {
    pub(crate) api: &'a str,
    pub(crate) site: &'a str,
    pub(crate) point: &'a str,
}

impl Base {
    /// Le micro de ce rang (0 : le premier, 1 : le second d'un point fixe) retenu pour ce
    /// point, s'il y en a un.
    pub(crate) fn micro_du_point(
        &self,
        p: PointEcoute<'_>,
        rang: usize,
    ) -> Resultat<Option<Micro>> {
        self.conn
            .query_row(
                "SELECT position, hauteur, type_micro, numero_serie FROM micro_du_point
                 WHERE api = ?1 AND site = ?2 AND point = ?3 AND rang = ?4",
                rusqlite::params![p.api, p.site, p.point, rang as i64],
                |l| {
                    Ok(Micro {
                        position: l.get(0)?,
                        hauteur: l.get(1)?,
                        type_micro: l.get(2)?,
                        numero_serie: l.get(3)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Retient ce micro au rang `rang` de ce point (il remplace le précédent de ce rang).
    pub(crate) fn retenir_micro(
        &self,
        p: PointEcoute<'_>,
        rang: usize,
        micro: &Micro,
    ) -> Resultat<()> {
        self.conn
            .execute(
                "INSERT INTO micro_du_point (api, site, point, rang, position, hauteur,
                     type_micro, numero_serie, retenu_le)
                     VALUES (?1, ?2, ?3, ?9, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (api, site, point, rang) DO UPDATE SET position = excluded.position,
                     hauteur = excluded.hauteur, type_micro = excluded.type_micro,
                     numero_serie = excluded.numero_serie, retenu_le = excluded.retenu_le",
                rusqlite::params![
                    p.api,
                    p.site,
                    p.point,
                    micro.position,
                    micro.hauteur,
                    micro.type_micro,
                    micro.numero_serie,
                    maintenant_s(),
                    rang as i64
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Y a-t-il au moins un micro retenu vers cette API ? (Sans quoi une participation donnée
    /// par son identifiant n'a pas à être relue pour savoir son point.)
    pub(crate) fn micros_retenus(&self, api: &str) -> Resultat<bool> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM micro_du_point WHERE api = ?1)",
                [api],
                |l| l.get(0),
            )
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PLAN_VIGIECHIRO_ANCIEN, base_au_schema};

    /// Une base au schéma 10 (d'avant le micro retenu par point), avec un plan, monte au
    /// schéma 11 sans rien perdre : aucun micro retenu, puis celui qu'on lui donne, remplacé
    /// par le suivant, point par point.
    #[test]
    fn base_au_schema_10_puis_micro_retenu_et_remplace() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(&chemin, 10, PLAN_VIGIECHIRO_ANCIEN);
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        assert_eq!(
            b.plan(Some(1)).unwrap().participation.as_deref(),
            Some("64a1b2c3d4e5f60718293d01")
        );
        let a1 = PointEcoute {
            api: "http://127.0.0.1:1/api/v1",
            site: "64a1b2c3d4e5f60718293c01",
            point: "A1",
        };
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), None);
        assert!(!b.micros_retenus(a1.api).unwrap());
        let micro = Micro {
            position: Some("CANOPEE".into()),
            hauteur: Some(4),
            type_micro: Some("ICS".into()),
            numero_serie: None,
        };
        b.retenir_micro(a1, 0, &micro).unwrap();
        let autre = Micro {
            hauteur: Some(2),
            ..micro.clone()
        };
        b.retenir_micro(PointEcoute { point: "B2", ..a1 }, 0, &autre)
            .unwrap();
        drop(b);
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), Some(micro.clone()));
        assert!(b.micros_retenus(a1.api).unwrap());
        let plus_bas = Micro {
            hauteur: Some(1),
            ..micro
        };
        b.retenir_micro(a1, 0, &plus_bas).unwrap();
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), Some(plus_bas));
        assert_eq!(
            b.micro_du_point(PointEcoute { point: "B2", ..a1 }, 0)
                .unwrap(),
            Some(autre)
        );
    }

    /// Une base au schéma 12 (d'avant le second micro, migration 0013), qui retient le micro
    /// d'un point, monte sans le perdre : il devient le premier (rang 0) ; le second micro se
    /// retient à côté, sans toucher au premier, et chacun se remplace seul.
    #[test]
    fn base_au_schema_12_le_micro_retenu_devient_le_premier_et_le_second_se_retient() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            12,
            "INSERT INTO micro_du_point (api, site, point, position, hauteur, type_micro, \
             numero_serie, retenu_le) VALUES ('http://127.0.0.1:1/api/v1', \
             '64a1b2c3d4e5f60718293c01', 'A1', 'CANOPEE', 4, 'ICS', NULL, 1);",
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let a1 = PointEcoute {
            api: "http://127.0.0.1:1/api/v1",
            site: "64a1b2c3d4e5f60718293c01",
            point: "A1",
        };
        let premier = Micro {
            position: Some("CANOPEE".into()),
            hauteur: Some(4),
            type_micro: Some("ICS".into()),
            numero_serie: None,
        };
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), Some(premier.clone()));
        assert_eq!(b.micro_du_point(a1, 1).unwrap(), None);
        let second = Micro {
            position: Some("SOL".into()),
            hauteur: Some(1),
            ..Micro::default()
        };
        b.retenir_micro(a1, 1, &second).unwrap();
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), Some(premier));
        assert_eq!(b.micro_du_point(a1, 1).unwrap(), Some(second));
        let premier_plus_bas = Micro {
            hauteur: Some(2),
            ..Micro::default()
        };
        b.retenir_micro(a1, 0, &premier_plus_bas).unwrap();
        assert_eq!(b.micro_du_point(a1, 0).unwrap(), Some(premier_plus_bas));
        assert_eq!(
            b.micro_du_point(a1, 1).unwrap().and_then(|m| m.position),
            Some("SOL".into())
        );
    }
}
