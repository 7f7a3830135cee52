-- Les comptes d'un plan (le bilan de chaque passage, celui d'une saison, `vigie etat`) se
-- lisent dans l'index seul : état, taille, échec définitif et « modifié depuis » y sont. Sans
-- lui, chaque compte relisait chaque unité du plan dans la table (les 100 000 unités d'une
-- saison, plusieurs fois par reprise). Il remplace `depot_unite_par_etat` (plan_id, etat),
-- dont il commence par les mêmes colonnes : les unités d'un plan dans un état s'y trouvent
-- de la même façon.
CREATE INDEX depot_unite_comptes
    ON depot_unite (plan_id, etat, taille, echec_definitif, modifie_depuis);
DROP INDEX depot_unite_par_etat;
