//! Après le dépôt, ce que la base garde du calcul de chaque nuit (migration 0009) : le dernier
//! état relevé (que `vigie etat` montre sans interroger la plateforme), et le CSV des
//! observations déjà téléchargé (que `vigie resultats` ne retélécharge pas s'il est inchangé).

use rusqlite::{OptionalExtension, params};

use super::{Base, Resultat, maintenant_s};

/// Le dernier état du calcul relevé pour un plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CalculNote {
    /// Tel que la plateforme l'écrit (`FINI`, `ERREUR`…) ; `None` : aucun calcul lancé.
    pub(crate) etat: Option<String>,
    /// La date de cet état (fin, début ou planification), secondes Unix UTC.
    pub(crate) date_s: Option<i64>,
    /// Quand il a été relevé, secondes Unix.
    pub(crate) releve_le: i64,
}

/// Le CSV des observations d'un plan, tel qu'il a été téléchargé.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CsvNote {
    /// Son identifiant sur la plateforme : un nouveau calcul, ou une nouvelle demande, en fait
    /// un autre fichier.
    pub(crate) fichier: String,
    /// Où il a été écrit.
    pub(crate) chemin: String,
    pub(crate) octets: u64,
}

impl Base {
    /// Note l'état du calcul du plan relevé à l'instant.
    pub(crate) fn noter_calcul(
        &self,
        plan_id: i64,
        etat: Option<&str>,
        date_s: Option<i64>,
    ) -> Resultat<()> {
        self.conn
            .execute(
                "INSERT INTO calcul_plan (plan_id, etat, date_s, releve_le) \
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT (plan_id) DO UPDATE SET \
                 etat = excluded.etat, date_s = excluded.date_s, releve_le = excluded.releve_le",
                params![plan_id, etat, date_s, maintenant_s()],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Le dernier état du calcul relevé pour ce plan, s'il l'a été.
    pub(crate) fn calcul_note(&self, plan_id: i64) -> Resultat<Option<CalculNote>> {
        self.conn
            .query_row(
                "SELECT etat, date_s, releve_le FROM calcul_plan \
                 WHERE plan_id = ?1 AND releve_le IS NOT NULL",
                [plan_id],
                |r| {
                    Ok(CalculNote {
                        etat: r.get(0)?,
                        date_s: r.get(1)?,
                        releve_le: r.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Note le CSV des observations du plan, téléchargé et écrit.
    pub(crate) fn noter_csv(&self, plan_id: i64, csv: &CsvNote) -> Resultat<()> {
        self.conn
            .execute(
                "INSERT INTO calcul_plan (plan_id, csv_fichier, csv_chemin, csv_octets) \
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT (plan_id) DO UPDATE SET \
                 csv_fichier = excluded.csv_fichier, csv_chemin = excluded.csv_chemin, \
                 csv_octets = excluded.csv_octets",
                params![plan_id, csv.fichier, csv.chemin, csv.octets as i64],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Le CSV des observations déjà téléchargé pour ce plan, s'il l'a été.
    pub(crate) fn csv_note(&self, plan_id: i64) -> Resultat<Option<CsvNote>> {
        self.conn
            .query_row(
                "SELECT csv_fichier, csv_chemin, csv_octets FROM calcul_plan \
                 WHERE plan_id = ?1 AND csv_fichier IS NOT NULL",
                [plan_id],
                |r| {
                    Ok(CsvNote {
                        fichier: r.get(0)?,
                        chemin: r.get(1)?,
                        octets: r.get::<_, i64>(2)?.max(0) as u64,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PLAN_VIGIECHIRO_ANCIEN, UNITE_DEPOSEE_ANCIENNE, base_au_schema};

    /// Une base au schéma 8, avec un plan déposé, monte au schéma 9 sans rien perdre ; le
    /// calcul et le CSV s'y notent, l'un sans effacer l'autre, et partent avec le plan.
    #[test]
    fn base_au_schema_8_puis_calcul_et_csv_notes() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            8,
            &format!("{PLAN_VIGIECHIRO_ANCIEN} {UNITE_DEPOSEE_ANCIENNE}"),
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        assert_eq!(b.resume(1).unwrap().deposee, 1);
        assert_eq!(b.calcul_note(1).unwrap(), None);
        assert_eq!(b.csv_note(1).unwrap(), None);
        let csv = CsvNote {
            fichier: "64a1b2c3d4e5f60718293e09".into(),
            chemin: "/r/2026-06-21_A1_Pass1_Car640380-observations.csv".into(),
            octets: 1234,
        };
        b.noter_csv(1, &csv).unwrap();
        // Un CSV noté sans relevé : pas de calcul connu.
        assert_eq!(b.calcul_note(1).unwrap(), None);
        b.noter_calcul(1, Some("EN_COURS"), Some(100)).unwrap();
        b.noter_calcul(1, Some("FINI"), Some(200)).unwrap();
        let note = b.calcul_note(1).unwrap().unwrap();
        assert_eq!(
            (note.etat.as_deref(), note.date_s),
            (Some("FINI"), Some(200))
        );
        assert_eq!(b.csv_note(1).unwrap(), Some(csv));
        b.noter_calcul(1, None, None).unwrap();
        assert_eq!(b.calcul_note(1).unwrap().unwrap().etat, None);
        b.conn
            .execute("DELETE FROM depot_plan WHERE id = 1", [])
            .unwrap();
        assert_eq!(b.csv_note(1).unwrap(), None);
    }
}
