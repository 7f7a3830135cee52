-- Les réglages d'envoi donnés explicitement au plan (seuil et taille des parties, limite de
-- débit, parallélisme, délais, tentatives, attentes), retenus pour ses relances : sans eux,
-- `vigie retenter-echecs` reprenait aux défauts, jetait un envoi en plusieurs parties commencé
-- sous un seuil abaissé, et oubliait la limite de débit qui ménageait le forfait du téléphone.
-- Un objet JSON (`src/plan/reglages.rs`) : seuls les réglages donnés y sont ; les autres suivent
-- les défauts de la version de vigie qui reprend le plan. Une valeur donnée à une relance
-- l'emporte, et devient celle que retient le plan.

ALTER TABLE depot_plan ADD COLUMN reglages TEXT;
