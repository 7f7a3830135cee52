#!/usr/bin/env bash
# Banc d'essai (pas un test) : une nuit de N fichiers (10 000 par défaut, 4 Kio chacun) déposée
# vers le bac à sable : mémoire de pointe du dépôt, puis reprise d'un plan déjà complet (durée,
# aucun octet envoyé). Usage : benches/echelle.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
cargo build --release --locked --quiet
VIGIE=$PWD/target/release/vigie
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2> /dev/null; wait 2> /dev/null; rm -rf "$TMP"' EXIT
python3 - "$TMP/nuit" "$N" << 'PY'
import os, sys
racine, n = sys.argv[1], int(sys.argv[2])
for d in range(10):
    os.makedirs(f"{racine}/d{d}")
for i in range(n):
    with open(f"{racine}/d{i % 10}/Car640139-2026-Pass1-A1-OB-1_20260621_{i:06d}_000.wav", "wb") as f:
        f.write(os.urandom(4096))
PY
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VIGIE" -q bac-a-sable --port "$PORT" --dossier "$TMP/serveur" > /dev/null 2>&1 &
PID=$!
until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.2; done
export AWS_ACCESS_KEY_ID=VIGIEBACASABLE AWS_SECRET_ACCESS_KEY=bac-a-sable-vigie-pas-un-vrai-secret
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true VIGIE_BASE=$TMP/vigie.sqlite
depot() {
  /usr/bin/time -f "%e %M" -o "$TMP/temps" "$VIGIE" --progression jamais --json depot "$TMP/nuit" \
    --vers s3://nuits/echelle --endpoint-url "http://127.0.0.1:$PORT" > "$TMP/sortie"
  read -r duree rss < "$TMP/temps"
  echo "$1 : $duree s, mémoire de pointe $rss Kio ; $(tail -1 "$TMP/sortie")"
}
echo "Nuit de $N fichiers ($(nproc) cœurs) :"
depot "dépôt complet"
depot "reprise d'un plan complet"
