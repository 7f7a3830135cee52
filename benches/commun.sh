# shellcheck shell=bash
# À sourcer par les bancs (`. benches/commun.sh`, depuis la racine du dépôt, $VIGIE donné) : la
# préparation que chacun recopiait.
# - TMP : un dossier de travail neuf ; PIDS : les processus lancés par le banc ;
#   A_SUPPRIMER : d'autres chemins à supprimer. À la sortie (normale, erreur ou Ctrl-C),
#   `nettoyer` arrête les processus, les attend et supprime le tout. Un banc qui a d'autres
#   choses à défaire définit `nettoyer_aussi` (appelée en premier).
# - `libre` : un port TCP libre sur 127.0.0.1.
# - `attendre_adresse URL [PID]` : attend que URL réponde ; si PID meurt avant, le banc
#   s'arrête en le disant (au lieu d'attendre sans fin).
# - `lancer_bac_a_sable PORT DOSSIER [OPTION…]` : `vigie bac-a-sable` sur ce port, attendu ;
#   son processus dans SABLE_PID (et PIDS).
# - `identifiants_bac_a_sable` : les identifiants du bac à sable (pas un vrai secret).

TMP=$(mktemp -d)
PIDS=()
A_SUPPRIMER=()
nettoyer() {
  if declare -F nettoyer_aussi > /dev/null; then nettoyer_aussi || true; fi
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$TMP" "${A_SUPPRIMER[@]}"
}
trap nettoyer EXIT

libre() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

attendre_adresse() {
  until curl -s -o /dev/null "$1"; do
    if [ -n "${2:-}" ] && ! kill -0 "$2" 2> /dev/null; then
      echo "banc : $1 ne répond pas, le processus $2 s'est arrêté" >&2
      exit 1
    fi
    sleep 0.2
  done
}

lancer_bac_a_sable() {
  local port=$1 dossier=$2
  shift 2
  "$VIGIE" -q bac-a-sable --port "$port" --dossier "$dossier" "$@" > /dev/null 2>&1 &
  SABLE_PID=$!
  PIDS+=("$SABLE_PID")
  attendre_adresse "http://127.0.0.1:$port/" "$SABLE_PID"
}

identifiants_bac_a_sable() {
  export AWS_ACCESS_KEY_ID=VIGIEBACASABLE
  export AWS_SECRET_ACCESS_KEY=bac-a-sable-vigie-pas-un-vrai-secret
  export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
}
