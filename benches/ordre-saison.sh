#!/usr/bin/env bash
# Banc d'essai (pas un test) : l'ordre d'envoi d'une saison sur le lien qui coupe du § 2 de
# BENCHMARKS.md (8 Mo/s, toutes les connexions coupées 1 s toutes les 15 s, sans rafale de
# rattrapage), à travers benches/mandataire.py devant le bac à sable.
#
# Deux façons d'envoyer les mêmes $NUITS nuits de $PAR_NUIT fichiers (2 à 4 Mio) :
#  - nuit après nuit : chaque nuit est un passage, la suivante part quand toutes les places de
#    la précédente se sont vidées (la « traîne » de chaque nuit) ; c'est ce que fait
#    `vigie depot SAISON` (une nuit = un plan, un passage par nuit, régulateur du parallélisme
#    neuf à chaque passage). Mesuré ici par une commande par nuit, l'une après l'autre :
#    la durée comptée est la somme des durées d'envoi que donnent les bilans (`duree_s`, hors
#    démarrage et planification), la durée murale totale est donnée à côté ;
#  - file entremêlée : tous les fichiers de la saison dans une seule file (un seul plan, un
#    seul passage), sans barrière entre les nuits.
# Les deux voient le même lien : le mandataire est remis à neuf (SIGUSR1, horloge des coupures
# comprise) avant chaque façon. Destination S3 du bac à sable : les URL présignées de la
# plateforme désignent le bac à sable lui-même, le mandataire ne peut pas s'y glisser ; le
# moteur d'envoi et la file sont les mêmes.
#
# Usage : benches/ordre-saison.sh                 (4 nuits × 20 fichiers, 2 tours)
#         NUITS=6 PAR_NUIT=10 TOURS=3 benches/ordre-saison.sh
#         VIGIE=target/debug/vigie benches/ordre-saison.sh   (binaire déjà construit)
# Mode court (VIGIE_BANC_COURT=1) : 2 nuits × 2 fichiers de 64 à 128 Kio, un tour.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
NUITS=${NUITS:-4}
PAR_NUIT=${PAR_NUIT:-20}
TOURS=${TOURS:-2}
PARALLELES=${PARALLELES:-4}
RAFALE=${RAFALE:-0.05}
TAILLES_KIO="2048 4096"
if [ "$BANC_COURT" = 1 ]; then NUITS=2 PAR_NUIT=2 TOURS=1 TAILLES_KIO="64 128"; fi
binaire_vigie

# shellcheck disable=SC2086 # TAILLES_KIO : deux arguments, la plus petite et la plus grande
python3 - "$TMP/saison" "$NUITS" "$PAR_NUIT" $TAILLES_KIO << 'EOF'
import os, random, sys
racine, nuits, par_nuit, petite, grande = sys.argv[1], *map(int, sys.argv[2:])
alea = random.Random(7)
for n in range(nuits):
    dossier = f"{racine}/nuit-{n + 1:02d}"
    os.makedirs(dossier)
    for i in range(par_nuit):
        with open(f"{dossier}/Car640139-2026-Pass1-A1-PA1_202607{n + 1:02d}_22{i:02d}00_000.wav", "wb") as f:
            f.write(os.urandom(alea.randint(petite * 1024, grande * 1024)))
EOF
TOTAL=$(du -sb "$TMP/saison" | cut -f1)

PORT=$(libre)
lancer_bac_a_sable "$PORT" "$TMP/serveur"
identifiants_bac_a_sable

PORT_LIEN=$(libre)
python3 -u benches/mandataire.py "$PORT_LIEN" "127.0.0.1:$PORT" --debit 8000000 --rafale "$RAFALE" \
  > "$TMP/lien.log" 2> "$TMP/lien.err" &
PIDS+=($!)
MANDATAIRE=$!
until grep -q prêt "$TMP/lien.log" 2> /dev/null; do sleep 0.2; done
EP="http://127.0.0.1:$PORT_LIEN"

# Clôt la fenêtre du mandataire (SIGUSR1) et rend son bilan (la ligne JSON de plus) ; sans
# elle au bout de 10 s, s'arrête au lieu de rendre le bilan de la fenêtre d'avant.
fenetre_du_lien() {
  local avant
  avant=$(grep -c '^{' "$TMP/lien.log" || true)
  kill -USR1 "$MANDATAIRE"
  for _ in $(seq 100); do
    [ "$(grep -c '^{' "$TMP/lien.log" || true)" -gt "$avant" ] && break
    sleep 0.1
  done
  [ "$(grep -c '^{' "$TMP/lien.log" || true)" -gt "$avant" ] || { echo "le mandataire ne répond plus" >&2; exit 1; }
  grep '^{' "$TMP/lien.log" | tail -1
}

# depot DOSSIER PREFIXE : un plan vers s3://nuits/PREFIXE, rend la durée d'envoi du bilan.
depot() {
  VIGIE_BASE="$TMP/base-$RANDOM$RANDOM.sqlite" "$VIGIE" --json --progression jamais \
    depot "$1" --vers "s3://nuits/$2" --endpoint-url "$EP" --paralleles "$PARALLELES" \
    | python3 -c 'import json, sys
lignes = [json.loads(l) for l in sys.stdin if l.strip()]
bilan = [l for l in lignes if l["evenement"] == "bilan"][-1]
assert bilan["restantes"] == 0 and bilan["echecs"] == 0, bilan
print(bilan["duree_s"])'
}

echo "Saison : $NUITS nuits × $PAR_NUIT fichiers, $TOTAL octets ; idéal sur le lien :" \
  "$(python3 -c "print(round($TOTAL / 8e6, 1))") s ; charge : $(cut -d' ' -f1-3 /proc/loadavg)"
for tour in $(seq "$TOURS"); do
  fenetre_du_lien > /dev/null
  debut=$(date +%s.%N)
  somme=0
  for nuit in "$TMP"/saison/nuit-*; do
    d=$(depot "$nuit" "apres-$tour/$(basename "$nuit")")
    somme=$(python3 -c "print($somme + $d)")
  done
  murale=$(python3 -c "import time; print(round(time.time() - $debut, 1))")
  lien=$(fenetre_du_lien)
  echo "tour $tour, nuit après nuit : envoi $(python3 -c "print(round($somme, 1))") s" \
    "(mural $murale s) ; lien $lien ; charge $(cut -d' ' -f1 /proc/loadavg)"
  fenetre_du_lien > /dev/null
  d=$(depot "$TMP/saison" "entremelee-$tour")
  lien=$(fenetre_du_lien)
  echo "tour $tour, file entremêlée : envoi $(python3 -c "print(round($d, 1))") s ;" \
    "lien $lien ; charge $(cut -d' ' -f1 /proc/loadavg)"
done
