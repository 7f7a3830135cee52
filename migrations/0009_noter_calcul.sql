-- Après le dépôt, ce que vigie sait du calcul de chaque nuit (un plan) et de ses résultats
-- téléchargés : `vigie etat` montre le calcul de chaque nuit sans interroger la plateforme, et
-- `vigie resultats` ne retélécharge pas un CSV inchangé. Écrit à chaque relevé de `traiter`,
-- `traitement` et `resultats` ; rien n'y est indispensable (une base sans ces lignes relève
-- et télécharge comme avant).
CREATE TABLE calcul_plan (
    plan_id      INTEGER PRIMARY KEY REFERENCES depot_plan (id) ON DELETE CASCADE,
    etat         TEXT,               -- tel que la plateforme l'écrit (FINI, ERREUR…) ; NULL : aucun calcul lancé
    date_s       INTEGER,            -- la date de cet état (fin, début ou planification), secondes Unix UTC
    releve_le    INTEGER,            -- quand il a été relevé (secondes Unix) ; NULL : jamais
    csv_fichier  TEXT,               -- l'identifiant, sur la plateforme, du CSV des observations téléchargé
    csv_chemin   TEXT,               -- où il a été écrit
    csv_octets   INTEGER             -- sa taille
) STRICT;
