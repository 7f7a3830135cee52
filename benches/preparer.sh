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
# VIGIE=… : un binaire déjà construit (sinon la release est construite).
# Mode court (VIGIE_BANC_COURT=1) : deux WAV de 6 s, caches laissés en place ; le script vérifie
# que la préparation écrit des séquences et que la reprise n'en ajoute aucune.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
# Le dossier de travail sur le disque mesuré (celui de /work, ou $TMPDIR), pas sous /tmp.
rmdir "$TMP"
TMP=$(mktemp -d "${TMPDIR:-/work}/banc-preparer.XXXXXX")
GO=${1:-10}
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }
binaire_vigie
DUREE_S=60
[ "$BANC_COURT" = 1 ] && DUREE_S=6
OCTETS_FICHIER=$((DUREE_S * 384000 * 2))
N=$(( (GO * 1000 * 1000 * 1000 + OCTETS_FICHIER - 1) / OCTETS_FICHIER ))
[ "$BANC_COURT" = 1 ] && N=2
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
    t = debut + datetime.timedelta(seconds=61 * i)  # au plus une minute par fichier
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
  # En mode court, les caches de toute la machine (partagée) restent en place.
  if [ "$BANC_COURT" = 1 ]; then return; fi
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; echo "(caches vidés)"; else echo "(caches NON vidés : pas root)"; fi
}
mesurer() {
  local libelle=$1
  shift
  /usr/bin/time -f "%e %M" -o "$TMP/temps" "$@"
  read -r secondes kio < "$TMP/temps"
  echo "$libelle : ${secondes} s, $(awk -v t="$TOTAL" -v s="$secondes" 'BEGIN { if (s < 0.01) s = 0.01; printf "%.1f", t / s / 1e6 }') Mo/s, mémoire de pointe ${kio} Kio"
}
echo "Nuit de $N fichiers, $((TOTAL / 1000000)) Mo ($(nproc) cœurs, $(findmnt -no FSTYPE --target "$TMP"))"
vider
mesurer "cat > /dev/null                " sh -c "cat '$TMP'/carte/*.wav > /dev/null"
vider
mesurer "vigie preparer                 " "$VIGIE" -q preparer "$TMP/carte" --vers "$TMP/sortie" --site 640380 --passage 1 --point A1
rm -rf "$TMP/sortie"
vider
mesurer "vigie preparer, puis sync      " sh -c "'$VIGIE' -q preparer '$TMP/carte' --vers '$TMP/sortie' --site 640380 --passage 1 --point A1 && sync"
sequences=$(find "$TMP/sortie" -name '*.wav' | wc -l)
mesurer "reprise (tout déjà là)         " "$VIGIE" -q preparer "$TMP/carte" --vers "$TMP/sortie" --site 640380 --passage 1 --point A1
echo "séquences écrites : $sequences, $(du -sb "$TMP/sortie" | cut -f1) octets"
[ "$sequences" -gt 0 ] || echec "aucune séquence écrite"
[ "$(find "$TMP/sortie" -name '*.wav' | wc -l)" = "$sequences" ] || echec "la reprise a écrit d'autres séquences"
