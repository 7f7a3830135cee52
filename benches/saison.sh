#!/usr/bin/env bash
# Banc d'essai (pas un test) : une saison de NUITS × PAR_NUIT fichiers (20 × 5 000 = 100 000 par
# défaut, 44 octets chacun : un en-tête WAV ×10 sans échantillon ; noms du protocole point fixe :
# deux enregistreurs dans deux dossiers, trois points, Pass1 et Pass2, des nuits qui passent
# minuit), contre `vigie bac-a-sable` lancé par le script, binaire de release.
#  1. planification : `vigie depot SAISON --simulation` (inventaire, noms, regroupement en nuits,
#     lectures de la plateforme : /moi, /moi/sites, participations du site) ;
#     cible ≤ 2 s et ≤ 64 Mio pour 100 000 fichiers ;
#  2. (DEPOT=1) le dépôt complet (mesuré une fois), puis la reprise : `vigie depot SAISON`
#     relancé sur la saison entièrement déposée (plan de chaque nuit relu et replanifié, course
#     à vide) ; cible ≤ 1 s ; le script vérifie 0 participation créée et 0 octet envoyé.
# Chaque mesure est répétée REPETITIONS fois (3 par défaut) ; le script écrit la médiane et
# l'étendue du temps CPU (user + sys : ce que la commande a consommé, peu sensible à la charge
# de la machine ; user et sys aussi, en médiane : le noyau pèse autant que le code), du temps
# mural (qui, lui, dépend de la charge : à lire avec elle) et la mémoire de pointe (RSS max,
# GNU time). La saison fabriquée est toujours la même : les nombres
# se comparent d'une fois sur l'autre, à binaire et machine égaux.
# Usage : benches/saison.sh [NUITS] [PAR_NUIT]      ex. DEPOT=1 benches/saison.sh
#         VIGIE=target/debug/vigie benches/saison.sh  (un binaire déjà construit)
# Mode court (VIGIE_BANC_COURT=1) : 2 nuits × 10 fichiers, dépôt et reprise, une fois chacun.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
NUITS=${1:-20}
PAR_NUIT=${2:-5000}
DEPOT=${DEPOT:-0}
REPETITIONS=${REPETITIONS:-3}
if [ "$BANC_COURT" = 1 ]; then NUITS=2 PAR_NUIT=10 DEPOT=1 REPETITIONS=1; fi
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
binaire_vigie

python3 - "$TMP/saison" "$NUITS" "$PAR_NUIT" << 'PY'
import datetime, os, struct, sys
racine, nuits, par_nuit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# Un en-tête WAV PCM 16 bits mono en expansion de temps ×10 (38 400 Hz), sans échantillon : la
# garde de format lit l'en-tête de chaque séquence qui reste à envoyer.
en_tete = (b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt "
           + struct.pack("<IHHIIHH", 16, 1, 1, 38400, 76800, 2, 16) + b"data" + struct.pack("<I", 0))
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
            f.write(en_tete)
PY

"$VIGIE" bac-a-sable --port 0 --json > "$TMP/bac.json" &
PIDS+=($!)
for _ in $(seq 1 300); do grep -q '"api"' "$TMP/bac.json" 2> /dev/null && break; sleep 0.1; done
API=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["api"])' "$TMP/bac.json")
JETON=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["jeton"])' "$TMP/bac.json")
export VIGIE_BASE=$TMP/vigie.sqlite VIGIE_JETON=$JETON VIGIE_API=$API

# mesurer LIBELLE FOIS SORTIE -- COMMANDE… : FOIS exécutions (sortie standard dans SORTIE, la
# dernière), puis une ligne : CPU et mur (médiane [min–max]), RSS max (le plus grand).
mesurer() {
  local libelle=$1 fois=$2 sortie=$3
  shift 4
  : > "$TMP/temps"
  for _ in $(seq 1 "$fois"); do
    /usr/bin/time -a -o "$TMP/temps" -f "%e %U %S %M" "$@" > "$sortie" 2> "$TMP/erreurs" || {
      echo "$libelle : échec (code $?)" >&2
      tail -5 "$TMP/erreurs" >&2
      exit 1
    }
  done
  python3 - "$libelle" "$TMP/temps" << 'PY'
import statistics, sys
libelle, chemin = sys.argv[1], sys.argv[2]
lignes = [l.split() for l in open(chemin) if l.strip() and l.split()[0][0].isdigit()]
mur = [float(l[0]) for l in lignes]
user = [float(l[1]) for l in lignes]
sys_ = [float(l[2]) for l in lignes]
cpu = [u + s for u, s in zip(user, sys_)]
rss = max(int(l[3]) for l in lignes) / 1024
def d(v):
    return "%.2f s [%.2f–%.2f]" % (statistics.median(v), min(v), max(v))
print("%s (%d fois) : CPU %s (user %.2f s, sys %.2f s en médiane) ; mur %s ; RSS max %.1f Mio"
      % (libelle, len(lignes), d(cpu), statistics.median(user), statistics.median(sys_), d(mur), rss))
PY
}

echo "Saison de $NUITS nuits × $PAR_NUIT fichiers, $(nproc) cœurs, $("$VIGIE" --version)"
echo "charge avant : $(cut -d' ' -f1-3 /proc/loadavg)"
mesurer "planification (--simulation)" "$REPETITIONS" /dev/null -- \
  "$VIGIE" -q depot "$TMP/saison" --fuseau +02:00 --simulation
if [ "$DEPOT" = 1 ]; then
  mesurer "dépôt complet" 1 /dev/null -- \
    "$VIGIE" -q depot "$TMP/saison" --fuseau +02:00 --progression jamais
  mesurer "reprise de la saison déposée" "$REPETITIONS" "$TMP/reprise.json" -- \
    "$VIGIE" --json depot "$TMP/saison" --fuseau +02:00 --progression jamais
  # La dernière reprise : rien de créé, rien d'envoyé, tout déposé.
  python3 - "$TMP/reprise.json" "$((NUITS * PAR_NUIT))" << 'PY'
import json, sys
nuits = creees = octets = deposees = 0
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["evenement"] == "nuit":
        nuits += 1
        creees += e["issue"] == "a_creer"
    elif e["evenement"] == "bilan":
        octets += e["octets_envoyes"]
        deposees += e["deposees"]
print("reprise : %d nuits, %d participation(s) à créer, %d octet(s) envoyé(s), %d / %s fichiers déposés"
      % (nuits, creees, octets, deposees, sys.argv[2]))
if creees or octets or deposees != int(sys.argv[2]):
    sys.exit("la reprise a créé ou envoyé quelque chose, ou tout n'est pas déposé")
PY
fi
echo "charge après : $(cut -d' ' -f1-3 /proc/loadavg)"
