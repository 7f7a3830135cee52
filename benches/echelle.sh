#!/usr/bin/env bash
# Banc d'essai (pas un test) : une nuit de N fichiers (10 000 par défaut, 4 Kio chacun) déposée
# vers le bac à sable : mémoire de pointe du dépôt, puis reprise d'un plan déjà complet (durée,
# aucun octet envoyé). Usage : benches/echelle.sh [N]   (VIGIE=… : un binaire déjà construit)
# Mode court (VIGIE_BANC_COURT=1) : 20 fichiers.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
N=${1:-10000}
[ "$BANC_COURT" = 1 ] && N=20
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
binaire_vigie
python3 - "$TMP/nuit" "$N" << 'PY'
import os, sys
racine, n = sys.argv[1], int(sys.argv[2])
for d in range(10):
    os.makedirs(f"{racine}/d{d}")
for i in range(n):
    with open(f"{racine}/d{i % 10}/Car640139-2026-Pass1-A1-OB-1_20260621_{i:06d}_000.wav", "wb") as f:
        f.write(os.urandom(4096))
PY
PORT=$(libre)
lancer_bac_a_sable "$PORT" "$TMP/serveur"
identifiants_bac_a_sable
export VIGIE_BASE=$TMP/vigie.sqlite
# depot LIBELLE OCTETS_ATTENDUS : un passage, mesuré ; son bilan doit dire les N fichiers
# déposés, rien de restant, et (pour la reprise) OCTETS_ATTENDUS octets envoyés.
depot() {
  /usr/bin/time -f "%e %M" -o "$TMP/temps" "$VIGIE" --progression jamais --json depot "$TMP/nuit" \
    --vers s3://nuits/echelle --endpoint-url "http://127.0.0.1:$PORT" > "$TMP/sortie"
  read -r duree rss < "$TMP/temps"
  echo "$1 : $duree s, mémoire de pointe $rss Kio ; $(tail -1 "$TMP/sortie")"
  tail -1 "$TMP/sortie" | python3 -c '
import json, sys
b, n, octets = json.load(sys.stdin), int(sys.argv[1]), sys.argv[2]
if b["deposees"] != n or b["restantes"] or (octets != "*" and b["octets_envoyes"] != int(octets)):
    sys.exit(f"banc : bilan inattendu ({n} fichiers déposés et {octets} octets envoyés attendus)")' "$N" "$2"
}
echo "Nuit de $N fichiers ($(nproc) cœurs) :"
depot "dépôt complet" '*'
depot "reprise d'un plan complet" 0
