#!/usr/bin/env bash
# Banc d'essai (pas un test) : `vigie preparer` d'une nuit de GO gigaoctets (10 par défaut) sur
# le disque local, côte à côte avec `cat > /dev/null` sur les mêmes fichiers.
# Usage : benches/preparer.sh [GO]
#
# La nuit : des WAV directs (en-tête à 384 000 Hz, mono 16 bits) de 60 s (46 Mo), contenu
# aléatoire, dans un dossier temporaire du disque de /work (ou de $TMPDIR) ; la sortie à côté.
# Il faut 2 × GO de place libre (vérifié avant de générer) ; tout est effacé à la fin.
# Caches du noyau vidés avant chaque mesure quand on le peut (root) : le script le dit.
# Mesures : durée (GNU time, %e), mémoire de pointe (%M), et la même préparation suivie de
# `sync` (les octets écrits sur le disque, pas seulement dans le cache).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${1:-10}
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }
# VIGIE=… : un binaire déjà construit (sinon la release est construite).
if [ -z "${VIGIE:-}" ]; then
  cargo build --release --locked --quiet
  VIGIE=$PWD/target/release/vigie
fi
TMP=$(mktemp -d "${TMPDIR:-/work}/banc-preparer.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OCTETS_FICHIER=$((60 * 384000 * 2))
N=$(( (GO * 1000 * 1000 * 1000 + OCTETS_FICHIER - 1) / OCTETS_FICHIER ))
LIBRE=$(df --output=avail -B1 "$TMP" | tail -1)
BESOIN=$((2 * N * (OCTETS_FICHIER + 1024) + 1024 * 1024 * 1024))
if [ "$LIBRE" -lt "$BESOIN" ]; then
  echo "banc : $((BESOIN / 1000000000)) Go nécessaires, $((LIBRE / 1000000000)) Go libres : rien n'est généré" >&2
  exit 1
fi
mkdir -p "$TMP/carte" "$TMP/sortie"
python3 - "$TMP/carte" "$N" "$OCTETS_FICHIER" <<'EOF'
import os, struct, sys, datetime
dossier, n, octets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
debut = datetime.datetime(2026, 6, 21, 21, 0, 0)
bloc = os.urandom(8 * 1024 * 1024)
for i in range(n):
    t = debut + datetime.timedelta(seconds=61 * i)
    nom = f"S4U12345_{t:%Y%m%d_%H%M%S}.wav"
    with open(os.path.join(dossier, nom), "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + octets) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 384000, 768000, 2, 16))
        f.write(b"data" + struct.pack("<I", octets))
        reste = octets
        while reste:
            # Chaque fichier diffère (son rang en tête de chaque bloc) : rien ne se déduplique.
            morceau = struct.pack("<Q", i) + bloc[8:min(reste, len(bloc))]
            f.write(morceau[:reste])
            reste -= len(morceau[:reste])
EOF
TOTAL=$(du -sb "$TMP/carte" | cut -f1)
vider() {
  sync
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; echo "(caches vidés)"; else echo "(caches NON vidés : pas root)"; fi
}
mesurer() {
  local libelle=$1
  shift
  /usr/bin/time -f "%e %M" -o "$TMP/temps" "$@"
  read -r secondes kio < "$TMP/temps"
  echo "$libelle : ${secondes} s, $(echo "scale=1; $TOTAL / $secondes / 1000000" | bc) Mo/s, mémoire de pointe ${kio} Kio"
}
echo "Nuit de $N fichiers, $((TOTAL / 1000000)) Mo ($(nproc) cœurs, $(findmnt -no FSTYPE --target "$TMP"))"
vider
mesurer "cat > /dev/null                " sh -c "cat '$TMP'/carte/*.wav > /dev/null"
vider
mesurer "vigie preparer                 " "$VIGIE" -q preparer "$TMP/carte" --vers "$TMP/sortie" --site 640380 --passage 1 --point A1
rm -rf "$TMP/sortie"
vider
mesurer "vigie preparer, puis sync      " sh -c "'$VIGIE' -q preparer '$TMP/carte' --vers '$TMP/sortie' --site 640380 --passage 1 --point A1 && sync"
mesurer "reprise (tout déjà là)         " "$VIGIE" -q preparer "$TMP/carte" --vers "$TMP/sortie" --site 640380 --passage 1 --point A1
echo "séquences écrites : $(find "$TMP/sortie" -name '*.wav' | wc -l), $(du -sb "$TMP/sortie" | cut -f1) octets"
