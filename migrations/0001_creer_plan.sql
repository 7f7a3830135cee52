-- Le plan de dépôt : ce qui doit partir, ce qui est parti, et pourquoi le reste n'est pas parti.
-- Chaque transition d'état est écrite avant l'effet qu'elle annonce (voir src/depot.rs).

CREATE TABLE depot_plan (
    -- Un plan : le dépôt d'un dossier vers une destination, créé une fois puis repris.
    id            INTEGER PRIMARY KEY,
    dossier       TEXT    NOT NULL,  -- chemin canonique du dossier de la nuit
    destination   TEXT    NOT NULL,  -- identité canonique (« s3://compartiment/prefixe », avec
                                     -- « ?endpoint=URL » pour un service non AWS)
    cree_le       INTEGER NOT NULL,  -- secondes Unix
    actif_le      INTEGER NOT NULL,  -- dernière activité (planification ou envoi), secondes Unix
    UNIQUE (dossier, destination)
) STRICT;

CREATE TABLE depot_unite (
    -- Une unité : un fichier du plan. La reprise se fait unité par unité (partie par partie en
    -- multipart, voir depot_partie).
    id               INTEGER PRIMARY KEY,
    plan_id          INTEGER NOT NULL REFERENCES depot_plan (id) ON DELETE CASCADE,
    chemin           TEXT    NOT NULL,  -- relatif au dossier, séparateur « / »
    cle              TEXT    NOT NULL,  -- clé distante
    taille           INTEGER NOT NULL CHECK (taille >= 0),
    modifie_ns       INTEGER NOT NULL,  -- date de modification du fichier, nanosecondes Unix
    etat             TEXT    NOT NULL DEFAULT 'a_deposer'
                     CHECK (etat IN ('a_deposer', 'en_cours', 'deposee', 'echec', 'incertaine')),
    echec_definitif  INTEGER NOT NULL DEFAULT 0 CHECK (echec_definitif IN (0, 1)),
    cause_refus      TEXT,              -- AUTHENTIFICATION, DROITS, CONTENU, STOCKAGE, RESEAU, SERVEUR, LOCAL…
    message          TEXT,              -- dernier message d'échec, expurgé de tout secret
    envoi_id         TEXT,              -- identifiant de l'envoi multipart S3 ouvert, s'il y en a un
    somme_controle   TEXT,              -- CRC32C (base64) du contenu déposé
    etag             TEXT,              -- ETag rendu par la destination, sans guillemets
    modifie_depuis   INTEGER NOT NULL DEFAULT 0 CHECK (modifie_depuis IN (0, 1)),
                                        -- déposée, mais le fichier local a changé depuis
    depose_le        INTEGER,           -- secondes Unix
    UNIQUE (plan_id, chemin)
) STRICT;

CREATE INDEX depot_unite_par_etat ON depot_unite (plan_id, etat);

CREATE TABLE depot_partie (
    -- Les parties déjà envoyées d'un envoi multipart : après un redémarrage, on ne renvoie que
    -- celles qui manquent.
    unite_id        INTEGER NOT NULL REFERENCES depot_unite (id) ON DELETE CASCADE,
    numero          INTEGER NOT NULL CHECK (numero BETWEEN 1 AND 10000),
    debut           INTEGER NOT NULL CHECK (debut >= 0),
    taille          INTEGER NOT NULL CHECK (taille >= 0),
    etag            TEXT,
    somme_controle  TEXT,               -- CRC32C (base64) de la partie
    etat            TEXT    NOT NULL DEFAULT 'a_envoyer' CHECK (etat IN ('a_envoyer', 'envoyee')),
    PRIMARY KEY (unite_id, numero)
) STRICT;

CREATE TABLE journal_decision (
    -- Chaque décision de la politique de réessai : de quoi expliquer chaque réessai après coup.
    -- Jamais de jeton, d'en-tête d'autorisation, de signature d'URL ni de corps.
    id                 INTEGER PRIMARY KEY,
    plan_id            INTEGER REFERENCES depot_plan (id) ON DELETE CASCADE,
    unite_id           INTEGER REFERENCES depot_unite (id) ON DELETE SET NULL,
    instant_ms         INTEGER NOT NULL,  -- millisecondes Unix
    methode            TEXT    NOT NULL,  -- PUT, UploadPart, CompleteMultipartUpload…
    cible              TEXT,              -- clé ou chemin visé, sans secret
    tentative          INTEGER NOT NULL,
    statut             INTEGER,           -- statut HTTP, s'il y en a eu un
    attente_ms         INTEGER,           -- attente retenue avant la tentative suivante
    budget_restant_ms  INTEGER,           -- reste de l'échéance
    raison             TEXT,              -- raison d'arrêt (succes, refus_definitif, …), ou NULL si rejeu
    detail             TEXT
) STRICT;

CREATE INDEX journal_decision_par_plan ON journal_decision (plan_id, id);
