#!/usr/bin/env bash
# Banc d'essai (pas un test) : débit, temps CPU et mémoire de pointe de `vigie depot --vers s3://`
# face à `rclone copy` et `aws s3 cp --recursive`, à parallélisme égal, vers le même serveur S3
# sur 127.0.0.1 : celui de `vigie bac-a-sable` (s3s-fs), puis moto pour un second avis.
# Chaque comparaison est mesurée côte à côte dans le même lancement (les machines sont
# partagées et bruitées : ce sont les rapports qui comptent).
#
# Usage : benches/debit.sh            (400 fichiers de 2 Mio + 4 de 64 Mio)
#         PETITS=100 GROS=2 TOURS=2 benches/debit.sh
#         LIEN=1 benches/debit.sh     (en plus : à travers un lien limité à 8 Mo/s qui coupe 1 s
#                                      toutes les 15 s, voir benches/mandataire.py)
# Installe ce qui manque : rclone (apt-get), aws-cli et moto (pip).
set -euo pipefail
cd "$(dirname "$0")/.."
PETITS=${PETITS:-400}
GROS=${GROS:-4}
TOURS=${TOURS:-1}
PARALLELES=${PARALLELES:-4}
LIEN=${LIEN:-0}

command -v rclone > /dev/null || { apt-get update -qq && apt-get install -y -qq rclone; }
command -v aws > /dev/null || pip install -q awscli
command -v moto_server > /dev/null || pip install -q 'moto[server]>=5.2.5'
cargo build --release --locked --quiet
VIGIE=$PWD/target/release/vigie

TMP=$(mktemp -d)
PIDS=()
nettoyer() {
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$TMP"
}
trap nettoyer EXIT

echo "Données : $PETITS × 2 Mio + $GROS × 64 Mio…"
python3 - "$TMP/nuit" "$PETITS" "$GROS" << 'EOF'
import os, sys
racine, petits, gros = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(racine)
for i in range(petits):
    with open(f"{racine}/Car640139-2026-Pass1-A1-OB-1_20260621_{i:06d}_000.wav", "wb") as f:
        f.write(os.urandom(2 * 1024 * 1024))
for i in range(gros):
    with open(f"{racine}/Car640139-2026-Pass1-A1-OB-1_20260622_{i:06d}_000.wav", "wb") as f:
        for _ in range(64):
            f.write(os.urandom(1024 * 1024))
EOF
TOTAL=$(du -sb "$TMP/nuit" | cut -f1)

export AWS_ACCESS_KEY_ID=VIGIEBACASABLE
export AWS_SECRET_ACCESS_KEY=bac-a-sable-vigie-pas-un-vrai-secret
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export AWS_CONFIG_FILE=$TMP/aws-config
printf '[default]\ns3 =\n  max_concurrent_requests = %s\n' "$PARALLELES" > "$AWS_CONFIG_FILE"

# mesurer NOM COMMANDE… : durée, CPU (utilisateur + système), mémoire de pointe.
mesurer() {
  local nom=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/temps" "$@" > "$TMP/sortie" 2>&1 || {
    echo "échec de $nom :"
    tail -20 "$TMP/sortie"
    return 1
  }
  read -r duree user sys rss < "$TMP/temps"
  local cpu
  cpu=$(echo "$user + $sys" | bc)
  printf '  %-8s %7.2f s  CPU %7.2f s  mémoire %6d Kio  %6.1f Mo/s\n' "$nom" "$duree" "$cpu" "$rss" \
    "$(echo "$TOTAL / $duree / 1000000" | bc -l)"
  echo "$nom $duree $cpu $rss" >> "$TMP/mesures"
}

comparer() {
  local titre=$1 ep=$2 extra=${3:-}
  : > "$TMP/mesures"
  echo "$titre ($((TOTAL / 1024 / 1024)) Mio, parallélisme $PARALLELES) :"
  for tour in $(seq 1 "$TOURS"); do
    mesurer vigie env VIGIE_BASE="$TMP/base-$RANDOM.sqlite" "$VIGIE" -q --progression jamais depot "$TMP/nuit" \
      --vers "s3://nuits/vigie-$tour-$RANDOM" --endpoint-url "$ep" --paralleles "$PARALLELES" $extra
    mesurer rclone env -u AWS_CA_BUNDLE rclone copy "$TMP/nuit" \
      ":s3,provider=Other,env_auth=true,endpoint='$ep',region=us-east-1:nuits/rclone-$tour-$RANDOM" \
      --transfers "$PARALLELES" --checkers "$PARALLELES" --s3-upload-concurrency 1
    mesurer aws-cli aws s3 cp --recursive --quiet "$TMP/nuit" "s3://nuits/aws-$tour-$RANDOM" --endpoint-url "$ep"
  done
  python3 - "$TMP/mesures" << 'EOF'
import sys, statistics
m = {}
for l in open(sys.argv[1]):
    nom, d, c, r = l.split()
    m.setdefault(nom, []).append((float(d), float(c), int(r)))
med = {n: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for n, v in m.items()}
for autre in ("rclone", "aws-cli"):
    if autre in med and "vigie" in med:
        print(f"  vigie / {autre} : durée × {med['vigie'][0] / med[autre][0]:.2f}, CPU × {med['vigie'][1] / med[autre][1]:.2f}")
EOF
}

libre() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# 1. Le bac à sable de vigie (s3s-fs).
PORT=$(libre)
"$VIGIE" -q bac-a-sable --port "$PORT" --dossier "$TMP/serveur" > /dev/null 2>&1 &
PIDS+=($!)
until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.2; done
comparer "Bac à sable (s3s-fs)" "http://127.0.0.1:$PORT"

# 2. moto, second avis.
PORT_MOTO=$(libre)
moto_server -H 127.0.0.1 -p "$PORT_MOTO" > "$TMP/moto.log" 2>&1 &
PIDS+=($!)
until curl -s -o /dev/null "http://127.0.0.1:$PORT_MOTO/"; do sleep 0.2; done
aws s3 mb s3://nuits --endpoint-url "http://127.0.0.1:$PORT_MOTO" > /dev/null
# moto rend pour un objet multipart une somme CRC32C qui n'est ni la forme composite d'AWS ni
# celle de l'objet entier : vigie refuse alors, à bon droit, de le déclarer déposé (voir
# BENCHMARKS.md). Les gros fichiers y partent donc en un seul PUT, comme le fait rclone sous
# 200 Mio.
comparer "moto" "http://127.0.0.1:$PORT_MOTO" "--seuil-multipart 128"

# 3. Un lien lent qui coupe (8 Mo/s, coupure d'1 s toutes les 15 s), devant le bac à sable.
if [ "$LIEN" = 1 ]; then
  PORT_LIEN=$(libre)
  python3 benches/mandataire.py "$PORT_LIEN" "127.0.0.1:$PORT" --debit 8000000 > "$TMP/lien.log" 2> "$TMP/lien.err" &
  PIDS+=($!)
  until grep -q prêt "$TMP/lien.log" 2> /dev/null; do sleep 0.2; done
  echo "Idéal sur le lien : $(echo "$TOTAL / 8000000" | bc -l | cut -c1-6) s"
  TOURS=1 comparer "Lien de 8 Mo/s qui coupe" "http://127.0.0.1:$PORT_LIEN"
fi
