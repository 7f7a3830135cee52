#!/usr/bin/env bash
# Banc d'essai (pas un test) : planification d'une nuit de N fichiers (10 000 par défaut),
# puis reprise du même plan. Usage : benches/planification.sh [N]
# Le binaire est construit en release (ou VIGIE=…) ; les fichiers (4 octets chacun) vont dans un
# dossier temporaire effacé à la fin. Mode court (VIGIE_BANC_COURT=1) : 20 fichiers.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
N=${1:-10000}
[ "$BANC_COURT" = 1 ] && N=20
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
binaire_vigie
mkdir -p "$TMP/nuit"
for d in $(seq 0 9); do mkdir -p "$TMP/nuit/d$d"; done
for i in $(seq 0 $((N - 1))); do
  printf 'RIFF' > "$TMP/nuit/d$((i % 10))/Car640139-2026-Pass1-A1-OB-1_20260621_$(printf '%06d' "$i")_000.wav"
done
export VIGIE_BASE=$TMP/vigie.sqlite
mesurer() {
  local debut fin
  debut=$(date +%s.%N)
  "$VIGIE" -q depot "$TMP/nuit" --vers s3://nuits/banc --simulation > /dev/null
  fin=$(date +%s.%N)
  echo "$1 : $(echo "$fin - $debut" | bc) s"
}
echo "Planification de $N fichiers ($(nproc) cœurs) :"
mesurer "création du plan"
mesurer "reprise du plan (aucun changement)"
/usr/bin/time -f "mémoire de pointe de la reprise : %M Kio" "$VIGIE" -q depot "$TMP/nuit" --vers s3://nuits/banc --simulation > /dev/null
