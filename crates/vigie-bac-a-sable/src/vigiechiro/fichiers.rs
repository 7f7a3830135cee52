//! Les enregistrements de fichiers de la plateforme locale, indexés par identifiant et par clé
//! S3.
//!
//! Le serveur les garde dans la collection Mongo `fichiers`, indexée par `_id` et par `s3_id`
//! (`bin/init_db.py` `ensure_indexes`) : ni `get_resource` ni le `fichiers.find_one({'s3_id':
//! …})` de `fichier_create` (`resources/fichiers.py`) n'y parcourent la collection. Le bac à
//! sable, lui, parcourait la liste entière à chaque requête, ce qui rendait quadratique le
//! dépôt d'une saison (100 000 fichiers : la 20e nuit de 5 000 se déposait dix fois plus
//! lentement que la 1re). Ici, chaque recherche par id ou par clé passe par une table ; seules
//! les listes (pièces jointes d'une participation, séquences lues par le calcul) et les
//! retraits par filtre, rares, parcourent encore tout.
//!
//! L'ordre de déclaration est gardé : c'est celui des listes rendues (pièces jointes,
//! `BacASable::fichiers`).

use std::collections::{BTreeMap, HashMap};

use super::FichierPlateforme;

/// Les enregistrements, dans l'ordre de déclaration. Invariant : l'id et la clé S3 de chaque
/// enregistrement sont uniques (l'id est tiré par `Etat::nouvel_id` ; la clé, `s3_id` unique
/// dans le schéma de `resources/fichiers.py`, est cherchée par `declarer_fichier` avant
/// d'insérer, refusée par `deposer` si elle existe, faite d'un uuid pour un fichier du calcul)
/// et les deux tables désignent exactement les enregistrements présents.
#[derive(Debug, Default)]
pub(crate) struct Fichiers {
    /// Numéro d'ordre (croissant, jamais réutilisé) → enregistrement : un retrait ne décale
    /// rien, les tables restent justes sans être refaites.
    par_ordre: BTreeMap<u64, FichierPlateforme>,
    par_id: HashMap<String, u64>,
    par_cle: HashMap<String, u64>,
    suivant: u64,
}

impl Fichiers {
    /// Tous les enregistrements, dans l'ordre de déclaration.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &FichierPlateforme> {
        self.par_ordre.values()
    }

    pub(crate) fn par_id(&self, id: &str) -> Option<&FichierPlateforme> {
        self.par_id.get(id).and_then(|n| self.par_ordre.get(n))
    }

    /// L'enregistrement `id`, à modifier : ni son `id` ni sa `cle`, que les tables désignent.
    pub(crate) fn par_id_mut(&mut self, id: &str) -> Option<&mut FichierPlateforme> {
        self.par_id.get(id).and_then(|n| self.par_ordre.get_mut(n))
    }

    pub(crate) fn par_cle(&self, cle: &str) -> Option<&FichierPlateforme> {
        self.par_cle.get(cle).and_then(|n| self.par_ordre.get(n))
    }

    /// Ajoute un enregistrement à la fin. L'appelant garantit que ni son id ni sa clé ne sont
    /// déjà présents.
    pub(crate) fn ajouter(&mut self, f: FichierPlateforme) {
        let n = self.suivant;
        self.suivant += 1;
        let id_neuf = self.par_id.insert(f.id.clone(), n).is_none();
        let cle_neuve = self.par_cle.insert(f.cle.clone(), n).is_none();
        debug_assert!(
            id_neuf && cle_neuve,
            "fichier en double : {} {}",
            f.id,
            f.cle
        );
        self.par_ordre.insert(n, f);
    }

    /// Retire l'enregistrement `id` et le rend.
    pub(crate) fn retirer_id(&mut self, id: &str) -> Option<FichierPlateforme> {
        let n = self.par_id.remove(id)?;
        let f = self.par_ordre.remove(&n)?;
        self.par_cle.remove(&f.cle);
        Some(f)
    }

    /// Retire l'enregistrement de clé `cle` et le rend.
    pub(crate) fn retirer_cle(&mut self, cle: &str) -> Option<FichierPlateforme> {
        let n = *self.par_cle.get(cle)?;
        let id = self.par_ordre.get(&n)?.id.clone();
        self.retirer_id(&id)
    }

    /// Retire les enregistrements qui satisfont `filtre` et les rend, dans l'ordre de
    /// déclaration (parcours entier : retraits en bloc, rares).
    pub(crate) fn retirer_si(
        &mut self,
        filtre: impl Fn(&FichierPlateforme) -> bool,
    ) -> Vec<FichierPlateforme> {
        let ids: Vec<String> = self
            .iter()
            .filter(|f| filtre(f))
            .map(|f| f.id.clone())
            .collect();
        ids.iter().filter_map(|id| self.retirer_id(id)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vigiechiro::Meta;

    fn fichier(id: &str, cle: &str, participation: &str) -> FichierPlateforme {
        FichierPlateforme {
            id: id.to_owned(),
            titre: cle.rsplit('/').next().unwrap_or(cle).to_owned(),
            cle: cle.to_owned(),
            participation: Some(participation.to_owned()),
            proprietaire: "observateur".to_owned(),
            multipart: false,
            disponible: false,
            mime: "audio/wav".to_owned(),
            id_envoi: None,
            meta: Meta::neuve(),
        }
    }

    fn ids(f: &Fichiers) -> Vec<&str> {
        f.iter().map(|f| f.id.as_str()).collect()
    }

    /// Chaque id et chaque clé présents se retrouvent par les tables, les absents non, et les
    /// tables ne gardent rien d'un enregistrement retiré.
    fn tables_justes(f: &Fichiers, absents: &[(&str, &str)]) {
        assert_eq!(f.par_id.len(), f.par_ordre.len(), "table des id");
        assert_eq!(f.par_cle.len(), f.par_ordre.len(), "table des clés");
        for x in f.iter() {
            assert_eq!(f.par_id(&x.id), Some(x), "id {}", x.id);
            assert_eq!(f.par_cle(&x.cle), Some(x), "clé {}", x.cle);
        }
        for (id, cle) in absents {
            assert_eq!(f.par_id(id), None, "id retiré {id}");
            assert_eq!(f.par_cle(cle), None, "clé retirée {cle}");
        }
    }

    #[test]
    fn les_tables_suivent_ajouts_modifications_et_retraits() {
        let mut f = Fichiers::default();
        for (id, cle, p) in [
            ("a", "wav/pa-p1/a.wav", "p1"),
            ("b", "wav/pa-p1/b.wav", "p1"),
            ("c", "wav/pa-p2/c.wav", "p2"),
            ("d", "wav/pa-p1/d.wav", "p1"),
            ("e", "wav/pa-p2/e.wav", "p2"),
        ] {
            f.ajouter(fichier(id, cle, p));
        }
        assert_eq!(ids(&f), ["a", "b", "c", "d", "e"]);
        tables_justes(&f, &[("z", "wav/pa-p1/z.wav")]);

        // Finalisation : la modification se lit par l'id comme par la clé.
        let b = f.par_id_mut("b").expect("b");
        b.disponible = true;
        assert!(f.par_cle("wav/pa-p1/b.wav").expect("clé de b").disponible);

        // Retrait par id au milieu : l'ordre des autres est gardé, les tables aussi.
        assert_eq!(
            f.retirer_id("b").map(|x| x.cle),
            Some("wav/pa-p1/b.wav".into())
        );
        assert_eq!(f.retirer_id("b"), None);
        assert_eq!(ids(&f), ["a", "c", "d", "e"]);
        tables_justes(&f, &[("b", "wav/pa-p1/b.wav")]);

        // Retrait par clé (gestionnaire), puis redéclaration de la même clé sous un autre id :
        // elle prend la dernière place, l'ancien id reste introuvable.
        assert_eq!(
            f.retirer_cle("wav/pa-p1/a.wav").map(|x| x.id),
            Some("a".into())
        );
        assert_eq!(f.retirer_cle("wav/pa-p1/a.wav"), None);
        f.ajouter(fichier("a2", "wav/pa-p1/a.wav", "p1"));
        assert_eq!(ids(&f), ["c", "d", "e", "a2"]);
        assert_eq!(
            f.par_cle("wav/pa-p1/a.wav").map(|x| x.id.as_str()),
            Some("a2")
        );
        tables_justes(&f, &[("a", "wav/pa-p1/absent.wav")]);

        // Retrait par filtre (participation supprimée) : rendus dans l'ordre de déclaration.
        let retires = f.retirer_si(|x| x.participation.as_deref() == Some("p2"));
        let retires: Vec<&str> = retires.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(retires, ["c", "e"]);
        assert_eq!(ids(&f), ["d", "a2"]);
        tables_justes(&f, &[("c", "wav/pa-p2/c.wav"), ("e", "wav/pa-p2/e.wav")]);
    }
}
