#!/usr/bin/env bash
# Banc d'essai (pas un test) : une saison de NUITS × PAR_NUIT fichiers (20 × 5 000 = 100 000 par
# défaut, 4 octets chacun, noms du protocole point fixe : deux enregistreurs, trois points,
# Pass1 et Pass2, des nuits qui passent minuit), contre `vigie bac-a-sable` lancé par le script.
#  1. planification : `vigie depot SAISON --simulation` (inventaire, noms, regroupement en nuits,
#     lectures de la plateforme : /moi, /moi/sites, participations du site) : durée et mémoire de
#     pointe (GNU time) ; cible ≤ 2 s et ≤ 64 Mio pour 100 000 fichiers ;
#  2. (DEPOT=1) le dépôt complet, puis sa reprise : `vigie depot SAISON` relancé sur la saison
#     entièrement déposée ; cible ≤ 1 s, 0 création, 0 octet. Le dépôt de 100 000 fichiers dans
#     le bac à sable dure longtemps : DEPOT=1 se lance plutôt avec PAR_NUIT réduit.
# Usage : benches/saison.sh [NUITS] [PAR_NUIT]      ex. DEPOT=1 benches/saison.sh 20 250
set -euo pipefail
cd "$(dirname "$0")/.."
NUITS=${1:-20}
PAR_NUIT=${2:-5000}
DEPOT=${DEPOT:-0}
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
# VIGIE=chemin : un binaire déjà construit (par exemple target/debug/vigie, plus lent : une
# borne haute) ; sinon le binaire de release est construit.
if [ -z "${VIGIE:-}" ]; then
  cargo build --release --locked --quiet
  VIGIE=$PWD/target/release/vigie
fi
TMP=$(mktemp -d)
PIDS=()
nettoyer() {
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$TMP"
}
trap nettoyer EXIT

python3 - "$TMP/saison" "$NUITS" "$PAR_NUIT" << 'PY'
import datetime, os, sys
racine, nuits, par_nuit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
points = ["A1", "B2", "Z3"]
for n in range(nuits):
    soiree = datetime.datetime(2026, 6, 1, 21, 0) + datetime.timedelta(days=n // 3 * 2)
    point, passage = points[n % 3], 1 + (n // 10) % 2
    pas = max(1, 8 * 3600 // par_nuit)  # de 21 h à 5 h : la nuit passe minuit
    for i in range(par_nuit):
        enregistreur = "PA%d" % (1 + i % 2)
        t = soiree + datetime.timedelta(seconds=i * pas)
        dossier = os.path.join(racine, enregistreur, "nuit%02d" % n)
        os.makedirs(dossier, exist_ok=True)
        nom = "Car640139-2026-Pass%d-%s-%s_%s_000.wav" % (passage, point, enregistreur,
                                                          t.strftime("%Y%m%d_%H%M%S"))
        with open(os.path.join(dossier, nom), "wb") as f:
            f.write(b"RIFF")
PY

"$VIGIE" bac-a-sable --port 0 --json > "$TMP/bac.json" &
PIDS+=($!)
for _ in $(seq 1 100); do grep -q '"api"' "$TMP/bac.json" 2> /dev/null && break; sleep 0.1; done
API=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["api"])' "$TMP/bac.json")
JETON=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["jeton"])' "$TMP/bac.json")
export VIGIE_BASE=$TMP/vigie.sqlite VIGIE_JETON=$JETON VIGIE_API=$API

echo "Saison de $NUITS nuits × $PAR_NUIT fichiers ($(nproc) cœurs, charge $(cut -d' ' -f1-3 /proc/loadavg)) :"
/usr/bin/time -f "planification (--simulation) : %e s, mémoire de pointe %M Kio" \
  "$VIGIE" -q depot "$TMP/saison" --fuseau +02:00 --simulation > /dev/null
if [ "$DEPOT" = 1 ]; then
  /usr/bin/time -f "dépôt complet : %e s, mémoire de pointe %M Kio" \
    "$VIGIE" -q depot "$TMP/saison" --fuseau +02:00 --progression jamais > /dev/null
  /usr/bin/time -f "reprise de la saison déposée : %e s, mémoire de pointe %M Kio" \
    "$VIGIE" -q depot "$TMP/saison" --fuseau +02:00 --progression jamais > /dev/null
  "$VIGIE" etat --json | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    if e["evenement"] == "etat_saison":
        print("après la reprise : %d / %d fichiers déposés, %d nuits" % (e["deposees"], e["unites"], e["nuits"]))'
fi
