-- La sorte de destination de chaque plan (`s3`, `vigiechiro`, `dossier`…), écrite à sa
-- création : c'est elle qui dit quelle destination inscrite (`src/depot/inscription.rs`) relit
-- l'identité du plan, et non plus la forme de cette identité. Les plans d'avant n'allaient que
-- vers un compartiment S3 ou vers la plateforme, que leur identité distinguait sans ambiguïté
-- (`vigiechiro:…` ou `s3://…`) : la migration la lit une fois, ici.

ALTER TABLE depot_plan ADD COLUMN sorte TEXT NOT NULL DEFAULT '';
UPDATE depot_plan
   SET sorte = CASE WHEN destination LIKE 'vigiechiro:%' THEN 'vigiechiro' ELSE 's3' END;
