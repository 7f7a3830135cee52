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
# Deux repères, parce que `preparer` lit ET écrit autant (la sortie est une copie découpée) :
# - `cat > /dev/null` : le débit de lecture ; `cp -r` puis `sync` : ce que fait au mieux tout
#   programme qui écrit sa sortie sur le même disque (la copie faite par le noyau). Sur un
#   disque qui écrit moins vite qu'il ne lit, c'est `cp`, pas `cat`, qui borne `preparer` ;
# - le cas du terrain, la carte dans son lecteur, plus lente à lire que le disque du portable
#   à écrire : la lecture de la carte est bridée à BRIDE octets/s (300 Mo/s par défaut, un
#   lecteur USB 3 de cartes UHS-II) par le groupe de contrôle `blkio` (cgroup v1) ou `io`
#   (cgroup v2) du disque, pour `cat` comme pour `preparer`, l'écriture restant libre. Root
#   seulement ; sinon le script dit qu'il ne le mesure pas.
# Chaque rapport (`preparer` / `cat`, `preparer` / `cp`) est écrit.
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
echo "Nuit de $N fichiers, $((TOTAL / 1000000)) Mo ($(nproc) cœurs, $(findmnt -no FSTYPE --target "$TMP"))"
# DUREES[libellé] : la durée de chaque mesure, pour les rapports.
declare -A DUREES
mesurer() {
  local libelle=$1
  shift
  /usr/bin/time -f "%e %M" -o "$TMP/temps" "$@"
  read -r secondes kio < "$TMP/temps"
  DUREES[$libelle]=$secondes
  printf '%-34s : %s s, %s Mo/s, mémoire de pointe %s Kio\n' "$libelle" "$secondes" \
    "$(awk -v t="$TOTAL" -v s="$secondes" 'BEGIN { if (s < 0.01) s = 0.01; printf "%.1f", t / s / 1e6 }')" "$kio"
}
# rapport LIBELLÉ MESURE REPÈRE : le débit de MESURE en pourcentage de celui de REPÈRE (mêmes
# octets : le rapport inverse des durées).
rapport() {
  awk -v mesure="${DUREES[$2]}" -v repere="${DUREES[$3]}" -v l="$1" \
    'BEGIN { if (mesure < 0.01) mesure = 0.01; printf "%-34s : %.0f %%\n", l, 100 * repere / mesure }'
}
PREPARER=("$VIGIE" -q preparer "$TMP/carte" --vers "$TMP/sortie" --site 640380 --passage 1 --point A1)
vider
mesurer "cat > /dev/null" sh -c "cat '$TMP'/carte/*.wav > /dev/null"
vider
mesurer "vigie preparer" "${PREPARER[@]}"
rm -rf "$TMP/sortie"
vider
mesurer "vigie preparer, puis sync" sh -c "'$VIGIE' -q preparer '$TMP/carte' --vers '$TMP/sortie' --site 640380 --passage 1 --point A1 && sync"
sequences=$(find "$TMP/sortie" -name '*.wav' | wc -l)
mesurer "reprise (tout déjà là)" "${PREPARER[@]}"
echo "séquences écrites : $sequences, $(du -sb "$TMP/sortie" | cut -f1) octets"
[ "$sequences" -gt 0 ] || echec "aucune séquence écrite"
[ "$(find "$TMP/sortie" -name '*.wav' | wc -l)" = "$sequences" ] || echec "la reprise a écrit d'autres séquences"
rm -rf "$TMP/sortie"
vider
mesurer "cp -r, puis sync" sh -c "cp -r '$TMP/carte' '$TMP/sortie' && sync"
rm -rf "$TMP/sortie"
rapport "preparer / cat" "vigie preparer" "cat > /dev/null"
rapport "preparer puis sync / cp puis sync" "vigie preparer, puis sync" "cp -r, puis sync"
[ "$BANC_COURT" = 1 ] && exit 0

# La carte dans son lecteur : la lecture du disque bridée, l'écriture libre.
BRIDE=${BRIDE:-300000000}
source_fs=$(findmnt -no SOURCE --target "$TMP")
parent=$(lsblk -no PKNAME "$source_fs" 2> /dev/null | head -1 || true)
disque=$source_fs
[ -n "$parent" ] && disque=/dev/$parent
majmin=$(lsblk -ndo MAJ:MIN "$disque" 2> /dev/null | tr -d ' ' || true)
groupe=""
if [ -n "$majmin" ] && [ -w /sys/fs/cgroup/blkio ]; then
  groupe=/sys/fs/cgroup/blkio/vigie-banc-preparer.$$
  mkdir "$groupe"
  echo "$majmin $BRIDE" > "$groupe/blkio.throttle.read_bps_device"
elif [ -n "$majmin" ] && grep -qw io /sys/fs/cgroup/cgroup.controllers 2> /dev/null; then
  groupe=/sys/fs/cgroup/vigie-banc-preparer.$$
  mkdir "$groupe"
  echo "$majmin rbps=$BRIDE" > "$groupe/io.max"
fi
if [ -z "$groupe" ]; then
  echo "lecture bridée : non mesurée (ni cgroup blkio ni io accessibles, ou disque introuvable)"
  exit 0
fi
nettoyer_aussi() { rmdir "$groupe" 2> /dev/null || true; }
# Devant une commande : la lance dans le groupe bridé (le shell s'y met, puis devient elle).
# shellcheck disable=SC2016 # $$ et $1 sont ceux de ce sh-là
BRIDE_CMD=(sh -c 'echo $$ > "$1/cgroup.procs" 2> /dev/null || echo $$ > "$1/tasks"; shift; exec "$@"' bride "$groupe")
echo "lecture du disque $disque ($majmin) bridée à $((BRIDE / 1000000)) Mo/s :"
vider
mesurer "cat > /dev/null, bridé" "${BRIDE_CMD[@]}" sh -c "cat '$TMP'/carte/*.wav > /dev/null"
vider
mesurer "vigie preparer, bridé" "${BRIDE_CMD[@]}" "${PREPARER[@]}"
rm -rf "$TMP/sortie"
vider
mesurer "vigie preparer puis sync, bridé" "${BRIDE_CMD[@]}" sh -c "'$VIGIE' -q preparer '$TMP/carte' --vers '$TMP/sortie' --site 640380 --passage 1 --point A1 && sync"
rm -rf "$TMP/sortie"
rapport "preparer / cat, bridés" "vigie preparer, bridé" "cat > /dev/null, bridé"
rapport "preparer puis sync / cat, bridés" "vigie preparer puis sync, bridé" "cat > /dev/null, bridé"
