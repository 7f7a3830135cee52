-- Une carte brute déposée telle quelle (`vigie depot CARTE`) : chaque unité est une séquence
-- préparée au fil de l'envoi, sans copie sur le disque de l'ordinateur. Ce qui part est son
-- en-tête (réécrit à Fe/10, quelques dizaines d'octets, gardé ici), puis une plage de
-- l'original, lue sur la carte à chaque lecture. `chemin`, `taille` et `cle` restent ceux de
-- la séquence (ce que `vigie preparer` aurait écrit) ; `modifie_ns` et `identite` sont ceux de
-- l'original, qui est le fichier que l'envoi retrouve et compare. NULL : un fichier ordinaire.

ALTER TABLE depot_unite ADD COLUMN source TEXT;            -- l'original, relatif au dossier
ALTER TABLE depot_unite ADD COLUMN source_taille INTEGER;  -- sa taille à la planification
ALTER TABLE depot_unite ADD COLUMN source_debut INTEGER;   -- son premier octet PCM qui part
ALTER TABLE depot_unite ADD COLUMN entete BLOB;            -- l'en-tête de la séquence
