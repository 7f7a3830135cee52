-- Le micro d'un point d'écoute, tel que la bénévole l'a dit une fois (`--micro-position`,
-- `--micro-hauteur`, `--micro-type`, `--micro-numero-serie`) : repris à chaque passage suivant
-- du même point pour décrire sa participation (clés `micro0_*` du formulaire du site web en
-- point fixe, `micro_*` en routier et pédestre), jusqu'à ce qu'une option le remplace.
-- `site` : l'identifiant du site sur la plateforme ; `point` : A1, Z12… ('' pour un site
-- routier ou pédestre, qui n'a pas de point). Une ligne par point et par API : le bac à sable
-- et la plateforme ne partagent pas leurs sites.

CREATE TABLE micro_du_point (
    api          TEXT NOT NULL,
    site         TEXT NOT NULL,
    point        TEXT NOT NULL,
    position     TEXT,          -- SOL ou CANOPEE
    hauteur      INTEGER,       -- en mètres
    type_micro   TEXT,
    numero_serie TEXT,
    retenu_le    INTEGER NOT NULL,
    PRIMARY KEY (api, site, point)
);
