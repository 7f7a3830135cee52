-- La plateforme Vigie-Chiro a refusé l'envoi en plusieurs parties pour ce plan (`500 S3 has
-- rejected file creation request` à la déclaration, `422 not a multipart` à l'URL d'une
-- partie) : aucun client officiel ne s'en sert, rien ne garantit qu'il marche en production.
-- Les fichiers du plan partent désormais en un seul PUT, sans le redemander à chaque fichier
-- ni à chaque relance.

ALTER TABLE depot_plan ADD COLUMN multipart_refuse_le INTEGER;  -- secondes Unix
