# shellcheck shell=bash
# À sourcer par chaque banc (`. benches/commun.sh`, depuis la racine du dépôt) : la préparation
# que chacun recopiait, le choix du binaire et le mode court.
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
# - BANC_COURT : 1 en mode court (VIGIE_BANC_COURT=1, ce que `.ci/run` lance après les essais),
#   0 sinon. En mode court, un banc prend ses plus petites tailles, ne compare vigie à aucun autre
#   outil, n'installe rien et n'écrit aucun résultat : ses chiffres ne valent rien, il vérifie
#   seulement qu'il va au bout et que ses verdicts tiennent. Quelques secondes.
# - `binaire_vigie` : VIGIE, le binaire lancé par le banc (chemin absolu) : $VIGIE s'il est
#   donné ; en mode court, le binaire de développement que `cargo test` a déjà fabriqué
#   (target/debug/vigie), sans rien compiler ; sinon la release, compilée.
# - `code_de_vigie CODE SORTIE` : un vigie mesuré qui ne rend pas 0 fausse la mesure ; la fin de
#   SORTIE est dite, et le banc s'arrête là en mode court, ou finit en 1 sinon (après ses autres
#   mesures).
# - `echec MESSAGE` : le dit sur la sortie d'erreur et arrête le banc (code 1).

BANC_COURT=0
[ "${VIGIE_BANC_COURT:-0}" = 1 ] && BANC_COURT=1

TMP=$(mktemp -d)
PIDS=()
A_SUPPRIMER=()
ECHECS_VIGIE=0
nettoyer() {
  local code=$?
  if declare -F nettoyer_aussi > /dev/null; then nettoyer_aussi || true; fi
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$TMP" "${A_SUPPRIMER[@]}"
  if [ "$code" = 0 ] && [ "$ECHECS_VIGIE" -gt 0 ]; then
    echo "banc : vigie n'a pas rendu 0 dans $ECHECS_VIGIE mesure(s) : elles ne valent rien" >&2
    exit 1
  fi
}
trap nettoyer EXIT

echec() {
  echo "banc : $1" >&2
  exit 1
}

binaire_vigie() {
  if [ -n "${VIGIE:-}" ]; then
    VIGIE=$(realpath "$VIGIE")
  elif [ "$BANC_COURT" = 1 ]; then
    VIGIE=$(realpath "${CARGO_TARGET_DIR:-target}")/debug/vigie
    [ -x "$VIGIE" ] || echec "mode court : $VIGIE manque (cargo test --workspace le fabrique ; ou VIGIE=…)"
  else
    cargo build --release --locked --quiet
    VIGIE=$(realpath "${CARGO_TARGET_DIR:-target}")/release/vigie
  fi
}

code_de_vigie() {
  [ "$1" = 0 ] && return
  echo "banc : vigie a rendu le code $1 ; fin de sa sortie :" >&2
  tail -5 "$2" | sed 's/^/    /' >&2
  [ "$BANC_COURT" = 1 ] && exit 1
  ECHECS_VIGIE=$((ECHECS_VIGIE + 1))
}

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
