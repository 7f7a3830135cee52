-- La participation Vigie-Chiro d'un plan. Sa création (POST non idempotent) est notée AVANT
-- d'être émise : une création restée sans réponse se réconcilie (relecture des participations
-- du site) avant toute nouvelle émission, et une relance ne crée jamais une seconde
-- participation.

ALTER TABLE depot_plan ADD COLUMN participation TEXT;        -- identifiant de la participation
ALTER TABLE depot_plan ADD COLUMN participation_emise_le INTEGER;
                                                               -- création émise (secondes Unix),
                                                               -- issue pas encore connue
