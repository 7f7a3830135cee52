"""Le vrai serveur Vigie-Chiro pour le banc `benches/serveur-reel.sh`, servi par gunicorn
(`gunicorn lanceur:app`, un seul worker comme le dit le `Procfile` du serveur).

Le code du serveur (`Scille/vigiechiro-api`) n'est pas dans ce dépôt : il est lu depuis la copie
que désigne `VIGIE_SERVEUR_REEL` (mise dans `PYTHONPATH` par le script), et **aucun de ses
fichiers n'est modifié**. Ce module n'y fait que ce qu'exige l'absence de MongoDB et d'AWS sur
nos machines, chaque retouche au moment de l'exécution, justifiée ci-dessous :

1. `flask_pymongo.MongoClient` est remplacé, **avant** `import vigiechiro` (qui construit
   `PyMongo(app)` à l'import), par une fabrique qui rend un seul `mongomock.MongoClient` avec
   `tz_aware=True` : sans fuseau, `xin/auth.py` `check_auth` compare une date naïve à
   `datetime.now(bson.utc)` et lève une exception à chaque requête.
2. `mongomock` 4.3.0 rejoue `find_and_modify` sur `{'_id': …}` seul : un opérateur positionnel
   (`protocoles.$.valide`, `resources/protocoles.py` `user_validate_protocole`) n'y trouve plus
   l'élément visé et la validation d'une inscription ne change rien. Pour ces mises à jour-là
   seulement (une clé avec `.$.`), la requête d'origine est appliquée par `update_one`.
3. Les URL signées : `resources/fichiers.py` `_sign_request` rend
   `https://<compartiment>.s3.amazonaws.com/<clé>?AWSAccessKeyId=…&Expires=…&Signature=…`
   (signature v2 par la requête). Le préfixe est réécrit en
   `http://127.0.0.1:<port>/<compartiment>/` (style chemin : la chaîne signée,
   `/<compartiment>/<clé>`, est la même), vers la couche qui vérifie la signature devant moto
   (`s3v2.py`). Le même nom, importé par `scripts/task_participation.py`, y est remplacé aussi.
   `DEV_FAKE_S3_URL` n'est **pas** défini : les chemins simple et multipart réels tournent (le
   serveur appelle lui-même S3, par `requests`, pour ouvrir, finaliser et abandonner un
   multipart).
4. Le journal d'accès de gunicorn est réduit au silence par le `dictConfig` de `app.py` : un
   aiguillage WSGI devant l'application écrit chaque requête (méthode, chemin sans requête,
   statut) dans `BANC_JOURNAL_API`, pour que le banc sache ce que `vigie` a demandé.

Les données de base sont posées dans la base en mémoire, comme le font `bin/init_db.py` (le
document `configuration`, l'utilisateur `script_worker`) et `tests/common.py` `AuthRequests`
(des utilisateurs à jeton connu, par la ressource `utilisateurs`, dans un contexte de requête
de test : la vraie connexion passe par OAuth) ; les cellules `grille_stoc` le sont directement
(aucune route d'écriture, comme `tests/test_grille_stoc.py`). Tout le reste (taxon,
protocoles, inscriptions, sites, localités, participations) passe par l'API (`preparer.py`).
"""

import json
import os
import sys
import threading
from datetime import datetime, timedelta

import bson
import flask_pymongo
import mongomock

# --- 1. mongomock à la place de MongoDB, une seule instance, dates avec fuseau -------------

_CLIENT = mongomock.MongoClient(tz_aware=True)


def _fabrique_mongo(*args, **kwargs):
    return _CLIENT


flask_pymongo.MongoClient = _fabrique_mongo

# --- 2. find_and_modify et l'opérateur positionnel ----------------------------------------

_find_and_modify_original = mongomock.collection.Collection._find_and_modify


def _positionnel(update):
    return isinstance(update, dict) and any(
        isinstance(v, dict) and any(".$." in k or k.endswith(".$") for k in v)
        for v in update.values()
    )


def _find_and_modify(self, query, projection=None, update=None, upsert=False, sort=None,
                     **kwargs):
    if update is None or not _positionnel(update) or upsert:
        return _find_and_modify_original(self, query, projection=projection, update=update,
                                         upsert=upsert, sort=sort, **kwargs)
    avant = self.find_one(query, projection=projection, sort=sort)
    if not avant:
        return None
    self.update_one(query, update)
    if kwargs.get("new"):
        return self.find_one({"_id": avant["_id"]}, projection=projection)
    return avant


mongomock.collection.Collection._find_and_modify = _find_and_modify

# --- le serveur, tel quel -----------------------------------------------------------------

import importlib  # noqa: E402

import vigiechiro  # noqa: E402  (après la retouche 1, qui doit précéder PyMongo(app))
from vigiechiro.resources import utilisateurs as _utilisateurs  # noqa: E402  (la ressource)

# Les modules eux-mêmes : `vigiechiro.resources.fichiers` est aussi le nom de la ressource
# qu'exporte `resources/__init__.py`.
_fichiers = importlib.import_module("vigiechiro.resources.fichiers")
_task = importlib.import_module("vigiechiro.scripts.task_participation")

# --- 3. l'hôte des URL signées ------------------------------------------------------------

_PORT_S3 = int(os.environ["BANC_PORT_S3"])
_sign_request_original = _fichiers._sign_request


def _sign_request(**kwargs):
    sign = _sign_request_original(**kwargs)
    compartiment = vigiechiro.app.config["AWS_S3_BUCKET"]
    aws = "https://{}.s3.amazonaws.com/".format(compartiment)
    local = "http://127.0.0.1:{}/{}/".format(_PORT_S3, compartiment)
    for champ in ("url", "signed_url"):
        if sign.get(champ, "").startswith(aws):
            sign[champ] = local + sign[champ][len(aws):]
    return sign


_fichiers._sign_request = _sign_request
_task._sign_request = _sign_request

# --- 4. le journal des requêtes -----------------------------------------------------------

_JOURNAL = os.environ.get("BANC_JOURNAL_API")
_VERROU_JOURNAL = threading.Lock()


def _journaliser(application):
    def aiguillage(environ, start_response):
        statut = {}

        def start(status, headers, exc_info=None):
            statut["code"] = status.split(" ", 1)[0]
            return start_response(status, headers, exc_info)

        reponse = application(environ, start)
        if _JOURNAL:
            ligne = {
                "methode": environ.get("REQUEST_METHOD"),
                "chemin": environ.get("PATH_INFO"),
                "statut": int(statut.get("code", 0)),
            }
            with _VERROU_JOURNAL, open(_JOURNAL, "a") as f:
                f.write(json.dumps(ligne) + "\n")
        return reponse

    return aiguillage


# --- les données de base ------------------------------------------------------------------

#: Cellules de la grille STOC posées pour les sites point fixe du banc (identifiant fixe :
#: les requêtes géographiques qui les trouveraient rendent 500 sous mongomock).
GRILLE = [
    {"_id": bson.ObjectId("5f0000000000000000000001"), "numero": "640380",
     "centre": {"type": "Point", "coordinates": [2.35, 48.85]}},
    {"_id": bson.ObjectId("5f0000000000000000000002"), "numero": "640381",
     "centre": {"type": "Point", "coordinates": [2.36, 48.86]}},
]


def _poser_donnees_de_base():
    db = _CLIENT.get_database("vigiechiro")
    # bin/init_db.py insert_default_documents
    db.configuration.insert_one({"name": "increments", "protocole_routier_count": 600})
    db.utilisateurs.insert_one({
        "pseudo": "script_worker", "email": "script_worker@vigiechiro.invalid",
        "role": "Administrateur",
        "tokens": {vigiechiro.settings.SCRIPT_WORKER_TOKEN:
                   datetime.utcnow() + timedelta(days=vigiechiro.settings.SCRIPT_WORKER_EXPIRES)},
    })
    db.grille_stoc.insert_many([dict(c) for c in GRILLE])
    # tests/common.py AuthRequests : un utilisateur par jeton, par la ressource.
    utilisateurs = json.loads(os.environ["BANC_UTILISATEURS"])
    expire = datetime.utcnow() + timedelta(days=14)
    for u in utilisateurs:
        payload = {
            "pseudo": u["pseudo"],
            "email": "{}@banc.invalid".format(u["jeton"].lower()),
            "role": u["role"],
            "donnees_publiques": False,
            "tokens": {u["jeton"]: expire},
        }
        with vigiechiro.app.test_request_context():
            from flask import g
            g.request_user = {"role": "Administrateur"}
            insere = _utilisateurs.insert(
                payload, auto_abort=False, additional_context={"internal": True})
            assert insere, u


_poser_donnees_de_base()
app = _journaliser(vigiechiro.app)
print("lanceur : serveur Vigie-Chiro prêt (mongomock, S3 sur le port {})".format(_PORT_S3),
      file=sys.stderr, flush=True)
