-- Une saison : les nuits d'une année vers une plateforme. Chaque nuit est un plan (sa
-- participation) ; la saison les regroupe pour `etat`, `plans` et les relances. Un plan hors
-- saison (S3, --participation, --site --debut --fin) n'y figure pas.
--
-- Une nuit liée ici garde son plan (et donc sa participation) à chaque relance : elle n'est
-- plus rapprochée des participations de la plateforme, ce qui rend la relance stable même si
-- de nouveaux fichiers étendent la nuit, et sûre après un kill -9 au milieu des créations (la
-- création notée dans le plan se réconcilie par la relecture du site).
CREATE TABLE saison (
    id        INTEGER PRIMARY KEY,
    api       TEXT    NOT NULL,   -- base de l'API, sans « / » final
    annee     INTEGER NOT NULL,   -- l'année des noms
    cree_le   INTEGER NOT NULL,   -- secondes Unix
    actif_le  INTEGER NOT NULL,
    UNIQUE (api, annee)
) STRICT;

CREATE TABLE saison_nuit (
    plan_id        INTEGER PRIMARY KEY REFERENCES depot_plan (id) ON DELETE CASCADE,
    saison_id      INTEGER NOT NULL REFERENCES saison (id) ON DELETE CASCADE,
    site           TEXT    NOT NULL,             -- ObjectId du site
    numero_site    TEXT    NOT NULL,             -- tel qu'écrit dans les noms
    protocole      TEXT    NOT NULL CHECK (protocole IN ('point_fixe', 'routier')),
    passage        INTEGER NOT NULL CHECK (passage BETWEEN 0 AND 99),
    point          TEXT    NOT NULL DEFAULT '',  -- '' en routier (NULL ferait tomber UNIQUE)
    soiree         TEXT    NOT NULL DEFAULT '',  -- AAAA-MM-JJ ; '' en routier
    fuseau         TEXT    NOT NULL,             -- fuseau de l'enregistreur retenu
    premiere_s     INTEGER,                      -- première séquence (UTC), secondes Unix
    derniere_s     INTEGER,
    enregistreurs  TEXT    NOT NULL DEFAULT '',  -- « PA000123,SM4-7 », pour l'affichage
    UNIQUE (saison_id, site, protocole, passage, point, soiree)
) STRICT;
CREATE INDEX saison_nuit_par_saison ON saison_nuit (saison_id);
