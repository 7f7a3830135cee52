#!/usr/bin/env bash
# Banc d'essai (pas un test) : débit, temps CPU et mémoire de pointe de `vigie depot --vers s3://`
# face à `rclone copy` et `aws s3 cp --recursive`, à parallélisme égal, vers le même serveur S3
# sur 127.0.0.1 : celui de `vigie bac-a-sable` (s3s-fs), puis moto pour un second avis.
# Chaque comparaison est mesurée côte à côte dans le même lancement (les machines sont
# partagées et bruitées : ce sont les rapports qui comptent), l'ordre des outils alterne d'un
# tour à l'autre, et le temps CPU du serveur est relevé pendant chaque mesure (/proc/PID/stat) :
# client et serveur se partagent les mêmes cœurs.
#
# Usage : benches/debit.sh            (400 fichiers de 2 Mio + 4 de 64 Mio, 3 tours)
#         PETITS=100 GROS=2 TOURS=2 benches/debit.sh
#         PETITS=0 GROS=1 TAILLE_GROS=1024 RCLONE_PARTIES=4 SERVEURS=sable benches/debit.sh
#                                     (un seul fichier de 1 Gio : ses parties en parallèle,
#                                      chez rclone aussi)
#         LIEN=1 benches/debit.sh     (en plus : à travers un lien limité à 8 Mo/s qui coupe 1 s
#                                      toutes les 15 s, voir benches/mandataire.py)
#         SERVEURS="sable" benches/debit.sh   (sans moto)
#         SERVEURS= LIEN=1 RAFALE=0.05 OUTILS="vigie aws-cli" benches/debit.sh
#                                     (le lien seul, à seau minuscule : la seconde coupée est
#                                      perdue au lieu d'être rattrapée d'une rafale)
# Installe ce qui manque : rclone (apt-get), aws-cli, moto et crc32c (pip).
# Mode court (VIGIE_BANC_COURT=1) : vigie seul, vers le bac à sable puis à travers le lien qui
# coupe, 2 × 2 Mio + 1 × 9 Mio (en parties), un tour, rien d'installé ; vigie doit rendre 0.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
PETITS=${PETITS:-400}
GROS=${GROS:-4}
TAILLE_GROS=${TAILLE_GROS:-64}  # Mio
TOURS=${TOURS:-3}
PARALLELES=${PARALLELES:-4}
LIEN=${LIEN:-0}
SERVEURS=${SERVEURS-sable moto}
OUTILS=${OUTILS:-vigie rclone aws-cli}
RAFALE=${RAFALE:-1}
# Parties d'un même fichier en vol chez rclone (--s3-upload-concurrency) : 1 par défaut, pour
# que rclone ait $PARALLELES transferts en tout comme vigie et aws-cli ; $PARALLELES pour un
# fichier seul, où vigie et aws-cli envoient aussi ses parties ensemble.
RCLONE_PARTIES=${RCLONE_PARTIES:-1}
if [ "$BANC_COURT" = 1 ]; then
  PETITS=2 GROS=1 TAILLE_GROS=9 TOURS=1 TOURS_LIEN=1 LIEN=1 SERVEURS=sable OUTILS=vigie
fi

if [[ " $OUTILS " == *" rclone "* ]]; then
  command -v rclone > /dev/null || { apt-get update -qq && apt-get install -y -qq rclone; }
fi
if [[ " $OUTILS " == *" aws-cli "* || " $SERVEURS " == *" moto "* ]]; then
  command -v aws > /dev/null || pip install -q awscli
fi
if [[ " $SERVEURS " == *" moto "* ]]; then
  python3 -c 'import moto.server' 2> /dev/null || pip install -q 'moto[server]>=5.2.5'
  # Sans le paquet crc32c, moto calcule un CRC32 là où on lui demande un CRC32C : vigie, qui
  # vérifie la somme rendue, refuserait à bon droit chaque objet.
  python3 -c 'import crc32c' 2> /dev/null || pip install -q crc32c
fi
command -v bc > /dev/null || { apt-get update -qq && apt-get install -y -qq bc; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }  # GNU time : mémoire de pointe
binaire_vigie
# Le serveur écrit en mémoire (tmpfs) s'il y a la place : sur disque, la réécriture des pages
# sales du lancement précédent faisait varier le temps CPU du serveur du simple au double
# d'une mesure à l'autre, bien plus que l'écart entre outils.
if [ -d /dev/shm ] && [ "$(df -k --output=avail /dev/shm | tail -1)" -gt $((4 * 1024 * 1024)) ]; then
  STOCKAGE=$(mktemp -d /dev/shm/vigie-banc.XXXXXX)
  A_SUPPRIMER+=("$STOCKAGE")
else
  STOCKAGE=$TMP/serveur
fi

echo "Données : $PETITS × 2 Mio + $GROS × $TAILLE_GROS Mio…"
python3 - "$TMP/nuit" "$PETITS" "$GROS" "$TAILLE_GROS" << 'EOF'
import os, sys
racine, petits, gros, taille_gros = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(racine)
for i in range(petits):
    with open(f"{racine}/Car640139-2026-Pass1-A1-OB-1_20260621_{i:06d}_000.wav", "wb") as f:
        f.write(os.urandom(2 * 1024 * 1024))
for i in range(gros):
    with open(f"{racine}/Car640139-2026-Pass1-A1-OB-1_20260622_{i:06d}_000.wav", "wb") as f:
        for _ in range(taille_gros):
            f.write(os.urandom(1024 * 1024))
EOF
TOTAL=$(du -sb "$TMP/nuit" | cut -f1)

# shellcheck source=benches/aws-cli.sh
. benches/aws-cli.sh
TICKS=$(getconf CLK_TCK)
: > "$TMP/mesures"

# Temps CPU (utilisateur + système) d'un processus, en secondes.
cpu_de() { awk -v t="$TICKS" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }

# Clôt la fenêtre du mandataire (SIGUSR1) et rend son bilan : attend la ligne de plus, pour ne
# jamais prendre le bilan de la fenêtre d'avant si le mandataire tarde à répondre.
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

# lancer OUTIL TOUR : une mesure, vers $EP (serveur $SERVEUR_PID, nommé $SERVEUR).
lancer() {
  local outil=$1 tour=$2 prefixe="$1-$2-$RANDOM" commande
  case $outil in
    vigie) commande=(env VIGIE_BASE="$TMP/base-$RANDOM.sqlite" "$VIGIE" -q --progression jamais
      depot "$TMP/nuit" --vers "s3://nuits/$prefixe" --endpoint-url "$EP" --paralleles "$PARALLELES") ;;
    rclone) commande=(env -u AWS_CA_BUNDLE rclone copy "$TMP/nuit"
      ":s3,provider=Other,env_auth=true,endpoint='$EP',region=us-east-1:nuits/$prefixe"
      --transfers "$PARALLELES" --checkers "$PARALLELES" --s3-upload-concurrency "$RCLONE_PARTIES") ;;
    aws-cli) commande=(aws s3 cp --recursive --quiet "$TMP/nuit" "s3://nuits/$prefixe" --endpoint-url "$EP") ;;
  esac
  if [ -n "${MANDATAIRE:-}" ]; then fenetre_du_lien > /dev/null; fi
  local avant apres lien="{}"
  avant=$(cpu_de "$SERVEUR_PID")
  # Un outil qui abandonne est un résultat (rclone, au bout de ses --retries, sur un lien qui
  # coupe) : il est noté avec son code de sortie, et le banc continue.
  local code=0
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/temps" "${commande[@]}" > "$TMP/sortie" 2>&1 || code=$?
  # Ctrl-C (ou SIGTERM) arrête le banc, pas seulement l'outil mesuré.
  case $code in 130 | 143) exit "$code" ;; esac
  if [ "$outil" = vigie ]; then
    code_de_vigie "$code" "$TMP/sortie"
  elif [ "$code" != 0 ]; then
    echo "  $outil : échec, code $code ; fin de sa sortie :"
    tail -3 "$TMP/sortie" | sed 's/^/    /'
  fi
  apres=$(cpu_de "$SERVEUR_PID")
  if [ -n "${MANDATAIRE:-}" ]; then lien=$(fenetre_du_lien); fi
  read -r duree user sys rss < <(tail -1 "$TMP/temps")
  local cpu serveur
  cpu=$(echo "$user + $sys" | bc)
  serveur=$(echo "$apres - $avant" | bc)
  printf '  %-8s %7.2f s  CPU %6.2f s  serveur %6.2f s  mémoire %4d Mio  %6.1f Mo/s\n' "$outil" \
    "$duree" "$cpu" "$serveur" "$((rss / 1024))" "$(echo "$TOTAL / $duree / 1000000" | bc -l)"
  echo "$SERVEUR $outil $tour $duree $cpu $serveur $rss $code $lien" >> "$TMP/mesures"
  # Vider ce que l'outil a déposé : la mémoire du serveur reste bornée d'une mesure à l'autre.
  if [ "$SERVEUR" = moto ]; then
    aws s3 rm --recursive --quiet "s3://nuits/$prefixe" --endpoint-url "$EP_DIRECT"
  else
    rm -rf "${STOCKAGE:?}/s3/nuits/$prefixe"
  fi
}

comparer() {
  echo "$1 ($((TOTAL / 1024 / 1024)) Mio, parallélisme $PARALLELES, $TOURS tour(s)) :"
  for tour in $(seq 1 "$TOURS"); do
    # L'ordre alterne : aucun outil ne passe toujours le premier (serveur froid) ou le dernier.
    if [ $((tour % 2)) = 1 ]; then ordre=$OUTILS; else ordre=$(echo "$OUTILS" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for outil in $ordre; do lancer "$outil" "$tour"; done
  done
}


# 1. Le bac à sable de vigie (s3s-fs).
PORT=$(libre)
lancer_bac_a_sable "$PORT" "$STOCKAGE"
if [[ " $SERVEURS " == *" sable "* ]]; then
  SERVEUR=sable SERVEUR_PID=$SABLE_PID EP="http://127.0.0.1:$PORT"
  comparer "Bac à sable (s3s-fs, stockage $(stat -f -c %T "$STOCKAGE"))"
fi

# 2. moto, second avis.
if [[ " $SERVEURS " == *" moto "* ]]; then
  PORT_MOTO=$(libre)
  # Par le même python3 que celui où crc32c a été vérifié.
  python3 -m moto.server -H 127.0.0.1 -p "$PORT_MOTO" > "$TMP/moto.log" 2>&1 &
  PIDS+=($!)
  SERVEUR=moto SERVEUR_PID=$! EP="http://127.0.0.1:$PORT_MOTO" EP_DIRECT=$EP
  attendre_adresse "$EP/" "$SERVEUR_PID"
  aws s3 mb s3://nuits --endpoint-url "$EP" > /dev/null
  comparer "moto"
fi

# 3. Un lien lent qui coupe (8 Mo/s, coupure d'1 s toutes les 15 s), devant le bac à sable. Le
#    mandataire remet son lien à neuf avant chaque outil et compte ce que chaque coupure a perdu.
if [ "$LIEN" = 1 ]; then
  PORT_LIEN=$(libre)
  python3 -u benches/mandataire.py "$PORT_LIEN" "127.0.0.1:$PORT" --debit 8000000 --rafale "$RAFALE" \
    --detail > "$TMP/lien.log" 2> "$TMP/lien.err" &
  PIDS+=($!)
  MANDATAIRE=$!
  until grep -q prêt "$TMP/lien.log" 2> /dev/null; do sleep 0.2; done
  echo "Idéal sur le lien : $(echo "$TOTAL / 8000000" | bc -l | cut -c1-6) s"
  SERVEUR=lien SERVEUR_PID=$SABLE_PID EP="http://127.0.0.1:$PORT_LIEN" TOURS=${TOURS_LIEN:-1}
  comparer "Lien de 8 Mo/s qui coupe (seau de $RAFALE s)"
  MANDATAIRE=
  # Ce que chaque coupure a trouvé en vol, outil après outil (chaque mesure recommence à 1).
  echo "Coupures ($OUTILS, dans l'ordre des mesures) :"
  grep '^coupure' "$TMP/lien.err" | sed 's/^/  /' || true
fi

echo
echo "Médianes et rapports :"
python3 - "$TMP/mesures" "$TOTAL" << 'EOF'
import json, statistics, sys
total = int(sys.argv[2])
m = {}
for ligne in open(sys.argv[1]):
    serveur, outil, tour, d, c, s, rss, code, lien = ligne.split(maxsplit=8)
    if code != "0":
        print(f"{serveur} : {outil} a abandonné (code {code}) après {d} s ; {lien.strip()}")
        continue
    m.setdefault(serveur, {}).setdefault(outil, []).append(
        (float(d), float(c), float(s), int(rss), json.loads(lien)))
for serveur, outils in m.items():
    med = {o: [statistics.median(x[i] for x in v) for i in range(4)] for o, v in outils.items()}
    print(f"\n{serveur} :")
    print("| outil | durée | CPU client | CPU serveur | mémoire | Go déposé : s CPU client |")
    print("|---|---|---|---|---|---|")
    for o, (d, c, s, r) in med.items():
        print(f"| {o} | {d:.2f} s | {c:.2f} s | {s:.2f} s | {int(r) // 1024} Mio | {c / (total / 1e9):.2f} s |")
    for autre in ("rclone", "aws-cli"):
        if autre in med and "vigie" in med:
            v, a = med["vigie"], med[autre]
            print(f"vigie / {autre} : durée × {v[0] / a[0]:.2f}, CPU × {v[1] / a[1]:.2f}, "
                  f"CPU client + serveur × {(v[1] + v[2]) / (a[1] + a[2]):.2f}, mémoire × {v[3] / a[3]:.2f}")
    if serveur == "lien":
        ideal = total / 8e6
        print("\n| outil | part du débit du lien | octets montants en plus | coupures | requêtes coupées en vol | perdu par coupure (max, une connexion) |")
        print("|---|---|---|---|---|---|")
        for o, v in outils.items():
            d, _, _, _, l = sorted(v, key=lambda x: x[0])[len(v) // 2]  # le tour médian
            print(f"| {o} | {min(ideal / d, 1) * 100:.0f} % | {(l['octets'] - total) / 2**20:.1f} Mio "
                  f"(perdus aux coupures : {l['perdus'] / 2**20:.1f} Mio) | {l['coupures']} | {l['en_vol']} "
                  f"| {l['perte_max'] / 2**20:.1f} Mio |")
EOF
