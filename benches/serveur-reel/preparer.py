"""Ce que le banc pose sur le vrai serveur Vigie-Chiro **par son API**, comme le feraient un
administrateur et des observateurs sur le site web : un taxon, les protocoles (macro, point
fixe, routier), les inscriptions et leur validation par un administrateur, les sites (titre
calculé par le serveur : `Vigiechiro - Point Fixe-640380`), leurs points, leur verrouillage, et
une participation par observateur. Seuls les utilisateurs et les cellules de la grille STOC,
qu'aucune route n'écrit, sont posés directement par `lanceur.py`.

Usage : `python preparer.py API JETON_ADMIN JETON_OBS JETON_AUTRE` ; écrit sur la sortie
standard un objet JSON des identifiants créés (sites, participations, observateurs).
"""

import json
import sys

import requests

API, ADMIN, OBS, AUTRE = sys.argv[1:5]
#: Les cellules posées par `lanceur.py` (`GRILLE`).
GRILLE_OBS, GRILLE_AUTRE = "5f0000000000000000000001", "5f0000000000000000000002"


def appel(jeton, methode, chemin, attendu, **kwargs):
    r = requests.request(methode, API + chemin, auth=(jeton, ""), timeout=30, **kwargs)
    if r.status_code != attendu:
        sys.exit("préparation : {} {} → {} {}".format(methode, chemin, r.status_code, r.text))
    return r.json() if r.content else {}


def main():
    taxon = appel(ADMIN, "POST", "/taxons", 201,
                  json={"libelle_long": "Chiroptères", "libelle_court": "Chiro"})["_id"]
    macro = appel(ADMIN, "POST", "/protocoles", 201,
                  json={"titre": "Vigie-Chiro", "macro_protocole": True, "taxon": taxon})["_id"]
    point_fixe = appel(ADMIN, "POST", "/protocoles", 201, json={
        "titre": "Vigiechiro - Point Fixe", "parent": macro, "taxon": taxon,
        "type_site": "POINT_FIXE"})["_id"]
    routier = appel(ADMIN, "POST", "/protocoles", 201, json={
        "titre": "Vigiechiro - Routier", "parent": macro, "taxon": taxon,
        "type_site": "ROUTIER"})["_id"]
    moi = {j: appel(j, "GET", "/moi", 200)["_id"] for j in (OBS, AUTRE)}
    # Inscriptions, puis validation par un administrateur.
    for jeton, protocoles in ((OBS, (point_fixe, routier)), (AUTRE, (point_fixe,))):
        for p in protocoles:
            appel(jeton, "PUT", "/moi/protocoles/" + p, 200)
            appel(ADMIN, "PUT", "/protocoles/{}/observateurs/{}".format(p, moi[jeton]), 200)

    def site(jeton, corps, points):
        s = appel(jeton, "POST", "/sites", 201, json=corps)
        if points:
            appel(jeton, "PUT", "/sites/{}/localites".format(s["_id"]), 200,
                  json={"localites": [{"nom": p} for p in points]})
        appel(ADMIN, "PATCH", "/sites/" + s["_id"], 200, json={"verrouille": True})
        return s

    site_obs = site(OBS, {"protocole": point_fixe, "grille_stoc": GRILLE_OBS}, ["A1", "B2", "Z3"])
    site_autre = site(AUTRE, {"protocole": point_fixe, "grille_stoc": GRILLE_AUTRE}, ["B1"])
    site_routier = site(OBS, {"protocole": routier}, [])
    # Une participation chacun, créée comme le fait le site web (même route).
    nuit = {"date_debut": "Sat, 20 Jun 2026 21:00:00 GMT",
            "date_fin": "Sun, 21 Jun 2026 06:00:00 GMT"}
    participation = appel(OBS, "POST", "/sites/{}/participations".format(site_obs["_id"]), 201,
                          json=dict(nuit, point="A1"))["_id"]
    participation_autre = appel(AUTRE, "POST",
                                "/sites/{}/participations".format(site_autre["_id"]), 201,
                                json=dict(nuit, point="B1"))["_id"]
    json.dump({
        "observateur": moi[OBS], "observateur_autre": moi[AUTRE],
        "site": site_obs["_id"], "titre_site": site_obs["titre"],
        "site_autre": site_autre["_id"],
        "site_routier": site_routier["_id"], "titre_site_routier": site_routier["titre"],
        "participation": participation, "participation_autre": participation_autre,
    }, sys.stdout)
    print()


if __name__ == "__main__":
    main()
