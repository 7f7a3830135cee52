-- Le second micro d'un point fixe (`--micro1-position`, `--micro1-hauteur`, `--micro1-type`,
-- `--micro1-numero-serie` : clés `micro1_*` du formulaire du site web) retenu par point comme
-- le premier : une ligne par micro, `rang` 0 pour le premier (`micro0_*`, ou `micro_*` d'un
-- routier ou d'un pédestre), 1 pour le second. SQLite ne change pas une clé primaire : la
-- table est refaite, et chacune de ses lignes (un premier micro) gardée au rang 0.

CREATE TABLE micro_du_point_par_rang (
    api          TEXT NOT NULL,
    site         TEXT NOT NULL,
    point        TEXT NOT NULL,
    rang         INTEGER NOT NULL CHECK (rang IN (0, 1)),
    position     TEXT,          -- SOL ou CANOPEE
    hauteur      INTEGER,       -- en mètres
    type_micro   TEXT,
    numero_serie TEXT,
    retenu_le    INTEGER NOT NULL,
    PRIMARY KEY (api, site, point, rang)
);

INSERT INTO micro_du_point_par_rang (api, site, point, rang, position, hauteur, type_micro,
        numero_serie, retenu_le)
    SELECT api, site, point, 0, position, hauteur, type_micro, numero_serie, retenu_le
    FROM micro_du_point;

DROP TABLE micro_du_point;

ALTER TABLE micro_du_point_par_rang RENAME TO micro_du_point;
