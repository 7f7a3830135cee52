#!/usr/bin/env bash
# Banc d'essai (pas un test) : le lien du terrain, à travers benches/mandataire.py
# devant le bac à sable.
#  1. Latence : lien de 8 Mo/s sans coupure, 80 ms d'aller-retour vers S3 (à l'établissement de
#     chaque connexion et au début de chaque réponse), une nuit de $FICHIERS fichiers de 1 Mio
#     vers S3 : vigie, rclone et aws-cli, à parallélisme égal ($PARALLELES).
#     (MESURES="latence-coupures", en plus : le même lien coupé 1 s toutes les 15 s, sans
#     rafale : le régulateur du parallélisme face à un lien où un transfert ne suffit pas.)
#  2. --debit-max 2Mo/s pendant 60 s, sur un lien sans limite : octets montants relayés par le
#     mandataire (corps et en-têtes) ÷ durée.
#  (MESURES="trou-noir" : la même nuit vers S3, lien de 8 Mo/s, et un trou noir de
#     $TROU_NOIR s ($TROU_NOIR_A s après le départ) : plus rien ne passe, rien n'est fermé, et au
#     retour les connexions d'avant sont mortes à jamais. Combien de temps après le retour du
#     lien la nuit repart-elle ?)
#  3. (root : `ip netns`) La même nuit vers la plateforme Vigie-Chiro du bac à sable, et vers son
#     S3 : le mandataire ne peut pas s'y glisser (les URL présignées désignent le bac à sable
#     lui-même), alors le bac à sable et vigie tournent dans un espace de noms réseau dont la
#     boucle locale est limitée à 8 Mo/s par `tbf` (`tc netem` manque sur ces noyaux) ; la
#     latence vient du bac à sable (`--pannes …=lenteur`) : $API_MS ms de traitement par appel
#     d'API, $RTT_MS ms avant chaque PUT vers S3.
#     TOURS_NS=10 répète la mesure (un bac à sable neuf à chaque fois) et donne minimum et
#     médiane ; DESTINATIONS_NS="vigiechiro" ne mesure que la plateforme. Après chaque mesure,
#     ce que le journal du plan dit du régulateur du parallélisme (chaque changement et sa
#     cause) et des réessais, et ce que la pile TCP de l'espace de noms a vu (paquets jetés
#     par tbf, retransmissions, expirations du délai de retransmission).
# Usage : benches/terrain.sh            (400 fichiers de 1 Mio ; les trois mesures)
#         FICHIERS=100 OUTILS=vigie MESURES="latence" benches/terrain.sh
#         VIGIE=target/debug/vigie benches/terrain.sh   (un binaire déjà construit)
# Mode court (VIGIE_BANC_COURT=1) : les trois mesures, vigie seul, 3 fichiers, --debit-max
# pendant 1 s ; chaque dépôt de vigie doit rendre 0 (et, hors mode court, le banc finit en 1
# si l'un ne l'a pas fait).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
FICHIERS=${FICHIERS:-400}
PARALLELES=${PARALLELES:-4}
OUTILS=${OUTILS:-vigie rclone aws-cli}
MESURES=${MESURES:-latence debit-max vigiechiro}
RTT_S3=${RTT_S3:-0.08}
DUREE_LIMITE=${DUREE_LIMITE:-60}
API_MS=${API_MS:-150}
RTT_MS=${RTT_MS:-80}
TROU_NOIR=${TROU_NOIR:-20}
TROU_NOIR_A=${TROU_NOIR_A:-15}
OUTILS_TROU_NOIR=${OUTILS_TROU_NOIR:-vigie}
TOURS_NS=${TOURS_NS:-1}
DESTINATIONS_NS=${DESTINATIONS_NS:-vigiechiro s3}
# Le débit limité se mesure ATTENTE_DEBIT s après le départ (planification passée).
ATTENTE_DEBIT=5
if [ "$BANC_COURT" = 1 ]; then FICHIERS=3 OUTILS=vigie DUREE_LIMITE=1 ATTENTE_DEBIT=0.5; fi
NS=vigie-terrain-$$

if [[ " $OUTILS " == *" rclone "* ]]; then
  command -v rclone > /dev/null || { apt-get update -qq && apt-get install -y -qq rclone; }
fi
if [[ " $OUTILS " == *" aws-cli "* ]]; then
  command -v aws > /dev/null || pip install -q awscli
fi
binaire_vigie
nettoyer_aussi() { ip netns del "$NS" 2> /dev/null || true; }

# Les noms sont de la nuit de la participation d'essai du bac à sable (PARTICIPATION de
# crates/vigie-bac-a-sable/src/vigiechiro.rs : point A1 du site 640139, soirée du 21 juin 2026),
# sans quoi vigie refuse la mesure Vigie-Chiro (code 2) : à partir de 22:00:00, une seconde
# d'écart, et au-delà de minuit le 22 juin (toujours la soirée du 21).
python3 - "$TMP/nuit" "$FICHIERS" << 'EOF'
import datetime, os, struct, sys
racine, n = sys.argv[1], int(sys.argv[2])
os.makedirs(racine)
# Un en-tête WAV PCM 16 bits mono en expansion de temps ×10 (38 400 Hz) : ce que la garde de
# format laisse partir vers la plateforme ; puis du bruit.
donnees = 1024 * 1024 - 44
en_tete = (b"RIFF" + struct.pack("<I", 36 + donnees) + b"WAVEfmt "
           + struct.pack("<IHHIIHH", 16, 1, 1, 38400, 76800, 2, 16)
           + b"data" + struct.pack("<I", donnees))
soiree = datetime.datetime(2026, 6, 21, 22, 0, 0)
for i in range(n):
    t = soiree + datetime.timedelta(seconds=i)
    if t >= datetime.datetime(2026, 6, 22, 12):
        sys.exit("trop de fichiers pour une seule nuit (une seconde d'écart, jusqu'à midi)")
    with open(f"{racine}/Car640139-2026-Pass1-A1-OB-1_{t:%Y%m%d_%H%M%S}_000.wav", "wb") as f:
        f.write(en_tete + os.urandom(donnees))
EOF
TOTAL=$(du -sb "$TMP/nuit" | cut -f1)
# shellcheck source=benches/aws-cli.sh
. benches/aws-cli.sh

PORT=$(libre)
lancer_bac_a_sable "$PORT" "$TMP/serveur"

# mandataire ARGS… : lance un mandataire devant le bac à sable, rend son port dans $LIEN.
mandataire() {
  LIEN=$(libre)
  python3 -u benches/mandataire.py "$LIEN" "127.0.0.1:$PORT" --coupure-toutes 0 "$@" \
    > "$TMP/lien-$LIEN.log" 2>&1 &
  PIDS+=($!)
  MANDATAIRE=$!
  until grep -q prêt "$TMP/lien-$LIEN.log" 2> /dev/null; do sleep 0.2; done
}

# bilan_du_lien : clôt la fenêtre du mandataire (SIGUSR1) et rend son bilan (une ligne JSON).
bilan_du_lien() {
  local avant
  avant=$(grep -c '^{' "$TMP/lien-$LIEN.log" || true)
  kill -USR1 "$MANDATAIRE"
  until [ "$(grep -c '^{' "$TMP/lien-$LIEN.log" || true)" -gt "$avant" ]; do sleep 0.1; done
  grep '^{' "$TMP/lien-$LIEN.log" | tail -1
}

# octets_relayes : clôt la fenêtre du mandataire et rend ses octets montants.
octets_relayes() {
  bilan_du_lien | python3 -c 'import json,sys; print(json.load(sys.stdin)["octets"])'
}

commande_de() {
  local outil=$1 ep=$2 prefixe="$1-$RANDOM"
  case $outil in
    vigie) echo env VIGIE_BASE="$TMP/base-$RANDOM.sqlite" "$VIGIE" -q --progression jamais \
      depot "$TMP/nuit" --vers "s3://nuits/$prefixe" --endpoint-url "$ep" --paralleles "$PARALLELES" ;;
    rclone) echo env -u AWS_CA_BUNDLE rclone copy "$TMP/nuit" \
      ":s3,provider=Other,env_auth=true,endpoint='$ep',region=us-east-1:nuits/$prefixe" \
      --transfers "$PARALLELES" --checkers "$PARALLELES" --s3-upload-concurrency 1 ;;
    aws-cli) echo aws s3 cp --recursive --quiet "$TMP/nuit" "s3://nuits/$prefixe" --endpoint-url "$ep" ;;
  esac
}

# mesurer_latence TITRE ARGS_DU_MANDATAIRE… : la nuit vers S3 à travers un mandataire, outil
# après outil (le mandataire remet son lien et ses coupures à neuf avant chacun).
mesurer_latence() {
  local titre=$1
  shift
  mandataire "$@"
  ideal=$(echo "$TOTAL / 8000000" | bc -l)
  echo "$titre"
  echo "  idéal : $(printf '%.1f' "$ideal") s ; charge : $(uptime | sed 's/.*load average: //')"
  for outil in $OUTILS; do
    octets_relayes > /dev/null
    debut=$(date +%s.%N)
    code=0
    eval "$(commande_de "$outil" "http://127.0.0.1:$LIEN")" > "$TMP/sortie" 2>&1 || code=$?
    fin=$(date +%s.%N)
    duree=$(echo "$fin - $debut" | bc -l)
    printf '  %-8s %6.1f s  %5.1f %% du débit du lien  (code %s)\n' "$outil" "$duree" \
      "$(echo "$ideal / $duree * 100" | bc -l)" "$code"
    if [ "$outil" = vigie ]; then code_de_vigie "$code" "$TMP/sortie"; fi
  done
  kill "$MANDATAIRE"
}

if [[ " $MESURES " == *" latence "* ]]; then
  mesurer_latence "Latence : $FICHIERS × 1 Mio vers S3, lien 8 Mo/s, aller-retour $RTT_S3 s, parallélisme $PARALLELES" \
    --debit 8000000 --rafale 1 --latence-connexion "$RTT_S3" --latence-reponse "$RTT_S3"
fi

# Latence et coupures : le même lien, coupé 1 s toutes les 15 s, sans rafale de rattrapage.
# Un seul transfert n'y remplit pas le lien (la latence le freine) : le régulateur du
# parallélisme doit le voir, et ne pas redescendre à 1 à chaque coupure.
if [[ " $MESURES " == *" latence-coupures "* ]]; then
  mesurer_latence "Latence et coupures : $FICHIERS × 1 Mio vers S3, lien 8 Mo/s coupé 1 s toutes les 15 s (seau de 0,05 s), aller-retour $RTT_S3 s" \
    --debit 8000000 --rafale 0.05 --latence-connexion "$RTT_S3" --latence-reponse "$RTT_S3" \
    --coupure-toutes 15 --coupure-duree 1
fi

# Trou noir : la nuit vers S3 à travers un lien de 8 Mo/s qui avale tout pendant $TROU_NOIR s,
# sans rien fermer ; au retour, les connexions d'avant sont mortes. Le mandataire dit quand le
# serveur a répondu pour la première fois après le retour du lien, et quand la nuit est
# repartie (1 Mio montant relayé depuis).
if [[ " $MESURES " == *" trou-noir "* ]]; then
  mandataire --debit 8000000 --rafale 1 --trou-noir-a "$TROU_NOIR_A" --trou-noir-duree "$TROU_NOIR"
  ideal=$(echo "$TOTAL / 8000000 + $TROU_NOIR" | bc -l)
  echo "Trou noir : $FICHIERS × 1 Mio vers S3, lien 8 Mo/s, trou noir de $TROU_NOIR s à $TROU_NOIR_A s, parallélisme $PARALLELES"
  echo "  idéal (nuit + trou noir) : $(printf '%.1f' "$ideal") s ; charge : $(uptime | sed 's/.*load average: //')"
  for outil in $OUTILS_TROU_NOIR; do
    octets_relayes > /dev/null
    debut=$(date +%s.%N)
    code=0
    eval "$(commande_de "$outil" "http://127.0.0.1:$LIEN")" > "$TMP/sortie" 2>&1 || code=$?
    fin=$(date +%s.%N)
    duree=$(echo "$fin - $debut" | bc -l)
    bilan=$(bilan_du_lien)
    printf '  %-8s %6.1f s  (idéal %.1f s, code %s) ; ' "$outil" "$duree" "$ideal" "$code"
    echo "$bilan" | python3 -c 'import json,sys; b=json.load(sys.stdin); print("première réponse %s s et reprise %s s après le retour du lien, %s connexion(s) englouties" % (b["trou_noir_premiere_reponse_s"], b["trou_noir_reprise_s"], b["englouties"]))'
    if [ "$outil" = vigie ]; then code_de_vigie "$code" "$TMP/sortie"; fi
  done
  kill "$MANDATAIRE"
fi

if [[ " $MESURES " == *" debit-max "* ]]; then
  mandataire --debit 10000000000 --rafale 1
  echo "--debit-max 2Mo/s pendant $DUREE_LIMITE s, lien sans limite ; charge : $(uptime | sed 's/.*load average: //')"
  # La fenêtre de mesure s'ouvre $ATTENTE_DEBIT s après le départ (planification passée) et
  # dure $DUREE_LIMITE s : le mandataire compte ce qu'il relaie entre deux SIGUSR1.
  # La commande est un texte (voir commande_de) : eval, comme pour la mesure de latence.
  VIGIE_DEBIT_MAX=2Mo/s eval "$(commande_de vigie "http://127.0.0.1:$LIEN")" > "$TMP/sortie" 2>&1 &
  ENVOI=$!
  sleep "$ATTENTE_DEBIT"
  octets_relayes > /dev/null
  debut=$(date +%s.%N)
  sleep "$DUREE_LIMITE"
  octets=$(octets_relayes)
  fin=$(date +%s.%N)
  kill -INT "$ENVOI" 2> /dev/null || true
  # Interrompu (130) ou déjà fini (0) : tout autre code est un dépôt qui a échoué.
  code=0
  wait "$ENVOI" 2> /dev/null || code=$?
  [ "$code" = 130 ] && code=0
  code_de_vigie "$code" "$TMP/sortie"
  [ "$octets" -gt 0 ] || echec "--debit-max : rien n'a passé le lien pendant la mesure"
  debit=$(echo "$octets / ($fin - $debut)" | bc -l)
  printf '  %d octets en %.1f s : %.3f Mo/s (%+.1f %% de la limite)\n' "$octets" \
    "$(echo "$fin - $debut" | bc -l)" "$(echo "$debit / 1000000" | bc -l)" \
    "$(echo "($debit / 2000000 - 1) * 100" | bc -l)"
  kill "$MANDATAIRE"
fi

if [[ " $MESURES " == *" vigiechiro "* ]]; then
  ip netns add "$NS"
  dans() { ip netns exec "$NS" "$@"; }
  dans ip link set lo up
  dans tc qdisc add dev lo root tbf rate 64mbit burst 256kb latency 100ms
  pannes=()
  for op in ApiMoi ApiListerParticipations ApiLireParticipation ApiDeclarerFichier ApiUrlPartie \
    ApiFinaliser ApiLireFichier ApiAccesFichier; do
    pannes+=(--pannes "$op%100=lenteur:${API_MS}ms")
  done
  for op in PutObject UploadPart CreateMultipartUpload CompleteMultipartUpload; do
    pannes+=(--pannes "$op%100=lenteur:${RTT_MS}ms")
  done
  # Un bac à sable neuf pour chaque mesure : la plateforme qui aurait déjà les fichiers d'une
  # mesure précédente n'en recevrait plus un octet (« déjà sur la plateforme »).
  SABLE_NS=
  sable_neuf() {
    if [ -n "$SABLE_NS" ]; then kill "$SABLE_NS" 2> /dev/null || true; wait "$SABLE_NS" 2> /dev/null || true; fi
    rm -rf "$TMP/serveur-ns"
    # Sans la fonction `dans` : lancée en arrière-plan, elle ferait un sous-shell, et $! ne
    # désignerait pas le bac à sable (qui survivrait au nettoyage).
    ip netns exec "$NS" "$VIGIE" -q bac-a-sable --port 8210 --dossier "$TMP/serveur-ns" "${pannes[@]}" > /dev/null 2>&1 &
    SABLE_NS=$!
    PIDS+=("$SABLE_NS")
    until dans curl -s -o /dev/null "http://127.0.0.1:8210/"; do sleep 0.2; done
  }
  # regulateur BASE : ce que le journal du plan dit du régulateur du parallélisme (chaque
  # changement, avec sa cause) et des incidents (réessais, sondes) pendant la mesure.
  regulateur() {
    python3 - "$1" << 'EOF2'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
changements = [d for (d,) in c.execute(
    "SELECT detail FROM journal_decision WHERE methode = 'PARALLELISME' ORDER BY id")]
rejeux = c.execute("SELECT count(*) FROM journal_decision WHERE unite_id IS NOT NULL "
                   "AND raison IS NULL").fetchone()[0]
sondes = c.execute("SELECT count(*) FROM journal_decision WHERE methode = 'SONDE'").fetchone()[0]
causes = c.execute("SELECT detail, count(*) FROM journal_decision WHERE unite_id IS NOT NULL "
                   "AND raison IS NULL GROUP BY detail ORDER BY 2 DESC LIMIT 3").fetchall()
print(f"    régulateur : {len(changements)} changement(s), {rejeux} réessai(s), {sondes} sonde(s)")
for d in changements:
    print(f"      {d.split(' (plafond')[0]}{d[d.index(')') + 1:] if ')' in d else ''}")
for d, n in causes:
    print(f"      réessai × {n} : {d[:100]}")
EOF2
  }
  # pile_tcp : ce que la pile TCP de l'espace de noms a vu depuis sa création (« jetés
  # retransmis expirations ») : paquets jetés par `tbf` (sa file est pleine), segments
  # retransmis, expirations du délai de retransmission. Un transfert que des pertes répétées
  # bloquent se voit ici, alors que le journal du plan n'en dit rien tant qu'aucune requête
  # n'est coupée.
  pile_tcp() {
    local jetes
    jetes=$(dans tc -s qdisc show dev lo | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1)
    dans nstat -asz TcpRetransSegs TcpExtTCPTimeouts | awk -v jetes="$jetes" '
      $1 == "TcpRetransSegs" { r = $2 }
      $1 == "TcpExtTCPTimeouts" { t = $2 }
      END { print jetes + 0, r + 0, t + 0 }'
  }
  ideal=$(echo "$TOTAL / 8000000" | bc -l)
  echo "Espace de noms, boucle locale à 8 Mo/s (tbf) : $FICHIERS × 1 Mio, API +$API_MS ms, S3 +$RTT_MS ms, parallélisme $PARALLELES, $TOURS_NS tour(s)"
  echo "  idéal : $(printf '%.1f' "$ideal") s ; charge : $(uptime | sed 's/.*load average: //')"
  declare -A parts
  for tour in $(seq 1 "$TOURS_NS"); do
    for destination in $DESTINATIONS_NS; do
      case $destination in
        vigiechiro) vers=(--participation 64a1b2c3d4e5f60718293d01 --api http://127.0.0.1:8210/api/v1) ;;
        s3) vers=(--vers "s3://nuits/ns-$tour" --endpoint-url http://127.0.0.1:8210) ;;
      esac
      sable_neuf
      base="$TMP/base-ns-$tour-$destination.sqlite"
      charge=$(uptime | sed 's/.*load average: //' | cut -d, -f1)
      read -r jetes0 retransmis0 expirations0 < <(pile_tcp)
      debut=$(date +%s.%N)
      code=0
      dans env VIGIE_JETON=BACASABLEJETONVIGIE0123456789ABC VIGIE_BASE="$base" \
        "$VIGIE" -q --progression jamais depot "$TMP/nuit" "${vers[@]}" --paralleles "$PARALLELES" \
        > "$TMP/sortie" 2>&1 || code=$?
      fin=$(date +%s.%N)
      duree=$(echo "$fin - $debut" | bc -l)
      part=$(echo "$ideal / $duree * 100" | bc -l)
      parts[$destination]+="$part "
      printf '  tour %2d  vigie → %-10s %6.1f s  %5.1f %% du débit du lien  (code %s, charge %s)\n' \
        "$tour" "$destination" "$duree" "$part" "$code" "$charge"
      code_de_vigie "$code" "$TMP/sortie"
      regulateur "$base"
      read -r jetes1 retransmis1 expirations1 < <(pile_tcp)
      printf '    pile TCP : %d paquet(s) jeté(s) par tbf, %d segment(s) retransmis, %d expiration(s) du délai de retransmission\n' \
        "$((jetes1 - jetes0))" "$((retransmis1 - retransmis0))" "$((expirations1 - expirations0))"
    done
  done
  if [ "$TOURS_NS" -gt 1 ]; then
    for destination in $DESTINATIONS_NS; do
      echo "${parts[$destination]}" | python3 -c '
import statistics, sys
v = sorted(float(x) for x in sys.stdin.read().split())
print(f"  {sys.argv[1]} : {len(v)} mesures, minimum {v[0]:.1f} %, médiane {statistics.median(v):.1f} %, maximum {v[-1]:.1f} %")' "$destination"
    done
  fi
fi
