-- La colonne `envoi_id` portait trois choses selon la destination : l'identifiant d'un envoi
-- multipart S3 (UploadId), l'identifiant d'un enregistrement de fichier de la plateforme
-- Vigie-Chiro (`/fichiers/{id}`), et le marqueur « declaration-multipart-emise » qui tenait la
-- place de ce dernier entre l'émission d'une déclaration multipart et sa réponse. Une colonne
-- par sens désormais, et le marqueur devient un état explicite : rien ne se lit plus selon la
-- destination du plan, et un identifiant ne peut plus être pris pour un autre.

ALTER TABLE depot_unite ADD COLUMN envoi_multipart TEXT;       -- UploadId de l'envoi S3 ouvert
ALTER TABLE depot_unite ADD COLUMN enregistrement TEXT;        -- identifiant du fichier déclaré
                                                               -- à la plateforme Vigie-Chiro
ALTER TABLE depot_unite ADD COLUMN declaration_emise_le INTEGER;
                                                               -- déclaration multipart émise
                                                               -- (secondes Unix), réponse pas
                                                               -- encore connue

-- Le marqueur : l'heure de la mise à niveau tient lieu de celle de l'émission, inconnue.
UPDATE depot_unite SET declaration_emise_le = CAST(strftime('%s', 'now') AS INTEGER)
 WHERE envoi_id = 'declaration-multipart-emise';

UPDATE depot_unite SET enregistrement = envoi_id
 WHERE envoi_id IS NOT NULL AND envoi_id <> 'declaration-multipart-emise'
   AND plan_id IN (SELECT id FROM depot_plan WHERE destination LIKE 'vigiechiro:%');

UPDATE depot_unite SET envoi_multipart = envoi_id
 WHERE envoi_id IS NOT NULL AND envoi_id <> 'declaration-multipart-emise'
   AND plan_id IN (SELECT id FROM depot_plan WHERE destination NOT LIKE 'vigiechiro:%');

ALTER TABLE depot_unite DROP COLUMN envoi_id;
