#!/usr/bin/env bash
# Banc (pas un test, pas en CI) : vigie contre le **vrai** serveur Vigie-Chiro.
# shellcheck disable=SC2016 # chaque `verdict` évalue sa condition (eval) : entre guillemets simples, voulus
#
# Le serveur (Scille/vigiechiro-api, Python/Flask, relu au commit dfac664) n'est pas dans ce
# dépôt : ce script le lance depuis la copie que désigne VIGIE_SERVEUR_REEL, sans modifier un
# seul de ses fichiers, tel que son Procfile le sert (gunicorn, un seul worker), avec :
# - Python 3.9 (celui de sa CI, runtime.txt) et ses dépendances épinglées (requirements.txt)
#   dans un environnement à part, plus mongomock 4.3.0 à la place de MongoDB ;
# - moto à la place d'AWS, derrière une fine couche qui vérifie les signatures v2 comme AWS
#   (benches/serveur-reel/s3v2.py : moto ne les vérifie pas) ;
# - les retouches à l'exécution, écrites et justifiées dans benches/serveur-reel/lanceur.py
#   (mongomock, un défaut de mongomock, l'hôte des URL signées réécrit vers la couche S3, un
#   journal des requêtes) ; les données posées par son API (benches/serveur-reel/preparer.py).
# Puis il y passe les scénarios Vigie-Chiro de vigie, chacun jugé sur ce que le serveur et S3
# ont réellement reçu (leurs journaux), et dit ce qui tient.
#
# Usage :
#   VIGIE_SERVEUR_REEL=/chemin/vers/vigiechiro-api benches/serveur-reel.sh
# Variables facultatives : VIGIE_PYTHON39 (l'interprète 3.9 ; par défaut celui de pyenv),
# VIGIE_PYTHON_MOTO (un Python ≥ 3.9 pour moto ; python3), VIGIE_BANC_DOSSIER (où tout vit :
# target/serveur-reel), VIGIE_BIN (le binaire vigie ; sinon cargo build).
# La première fois, il faut le réseau (PyPI) pour les deux environnements Python.
set -euo pipefail
ICI=$(cd "$(dirname "$0")" && pwd)
RACINE=$(dirname "$ICI")
SERVEUR=${VIGIE_SERVEUR_REEL:?"VIGIE_SERVEUR_REEL : le chemin d'une copie du dépôt Scille/vigiechiro-api (commit dfac664)"}
if [ ! -f "$SERVEUR/vigiechiro/resources/fichiers.py" ] || [ ! -f "$SERVEUR/requirements.txt" ]; then
  echo "VIGIE_SERVEUR_REEL=$SERVEUR n'est pas une copie de vigiechiro-api (vigiechiro/, requirements.txt)" >&2
  exit 2
fi
TRAVAIL=${VIGIE_BANC_DOSSIER:-$RACINE/target/serveur-reel}
PY39=${VIGIE_PYTHON39:-$(printf '%s\n' "$HOME"/.pyenv/versions/3.9.*/bin/python | sort -V | tail -1)}
[ -x "${PY39:-}" ] || { echo "Python 3.9 introuvable : pyenv install 3.9, ou VIGIE_PYTHON39=…" >&2; exit 2; }
PYTHON_MOTO=${VIGIE_PYTHON_MOTO:-python3}
mkdir -p "$TRAVAIL"

# --- les environnements Python (créés une fois, refaits si requirements.txt change) ----------
ENV_SERVEUR=$TRAVAIL/serveur-venv
EMPREINTE=$(sha256sum < "$SERVEUR/requirements.txt" | cut -c1-16)-mongomock4.3.0
if [ "$(cat "$ENV_SERVEUR/.empreinte" 2> /dev/null)" != "$EMPREINTE" ]; then
  echo "== environnement du serveur (Python $("$PY39" -c 'import platform; print(platform.python_version())'), requirements.txt, mongomock)"
  rm -rf "$ENV_SERVEUR"
  "$PY39" -m venv "$ENV_SERVEUR"
  "$ENV_SERVEUR/bin/pip" install --quiet -r "$SERVEUR/requirements.txt" mongomock==4.3.0
  echo "$EMPREINTE" > "$ENV_SERVEUR/.empreinte"
fi
ENV_MOTO=$TRAVAIL/moto-venv
if ! "$ENV_MOTO/bin/python" -c 'import moto; from importlib.metadata import version; assert tuple(int(x) for x in version("moto").split(".")[:3]) >= (5, 2, 5)' 2> /dev/null; then
  echo "== environnement de moto"
  rm -rf "$ENV_MOTO"
  "$PYTHON_MOTO" -m venv "$ENV_MOTO"
  "$ENV_MOTO/bin/pip" install --quiet 'moto[server]>=5.2.5'
fi

# --- vigie --------------------------------------------------------------------------------
if [ -z "${VIGIE_BIN:-}" ]; then
  (cd "$RACINE" && cargo build --locked --quiet --bin vigie)
  VIGIE_BIN=$RACINE/target/debug/vigie
fi

# --- un lancement : un dossier neuf, trois serveurs ----------------------------------------
# Les trois derniers lancements restent, pour y relire journaux et sorties.
{ ls -dt "$TRAVAIL"/lancement-* 2> /dev/null || true; } | tail -n +3 | xargs -r rm -rf
LANCEMENT=$(mktemp -d "$TRAVAIL/lancement-XXXXXX")
echo "== $("$ENV_SERVEUR/bin/python" -c 'import platform, flask, pymongo, gunicorn, mongomock; print("Python", platform.python_version(), "· Flask", flask.__version__, "· pymongo", pymongo.version, "· gunicorn", gunicorn.__version__, "· mongomock", mongomock.__version__)') · moto $("$ENV_MOTO/bin/python" -c 'from importlib.metadata import version; print(version("moto"))')"
echo "   serveur : $SERVEUR ; vigie : $VIGIE_BIN ($("$VIGIE_BIN" --version))"
PIDS=()
arreter() {
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
}
trap arreter EXIT
port_libre() { "$PY39" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
attendre() { # <description> <commande…> : jusqu'à 60 s
  local quoi=$1; shift
  for _ in $(seq 600); do "$@" > /dev/null 2>&1 && return 0; sleep 0.1; done
  echo "$quoi : pas prêt après 60 s (voir $LANCEMENT)" >&2; exit 1
}
PORT_MOTO=$(port_libre); PORT_S3=$(port_libre); PORT_API=$(port_libre)
COMPARTIMENT=vigiechiro-banc
CLE=AKIABANCVIGIECHIRO01
SECRET=secret-du-banc-pas-un-vrai
API=http://127.0.0.1:$PORT_API/api/v1
JOURNAL_API=$LANCEMENT/api.jsonl
JOURNAL_S3=$LANCEMENT/s3.jsonl
touch "$JOURNAL_API" "$JOURNAL_S3"
ADMIN=ADMINBANC0000000000000000000001X
OBS=OBSERVATRICEBANC000000000000001X
AUTRE=AUTREOBSERVATEURBANC00000000001X

"$ENV_MOTO/bin/moto_server" -H 127.0.0.1 -p "$PORT_MOTO" > "$LANCEMENT/moto.log" 2>&1 & PIDS+=($!)
attendre moto curl -sf "http://127.0.0.1:$PORT_MOTO/"
curl -sf -X PUT "http://127.0.0.1:$PORT_MOTO/$COMPARTIMENT" > /dev/null
"$ENV_SERVEUR/bin/python" "$ICI/serveur-reel/s3v2.py" "$PORT_S3" "$PORT_MOTO" "$CLE" "$SECRET" \
  "$JOURNAL_S3" "$LANCEMENT" > "$LANCEMENT/s3v2.log" 2>&1 & PIDS+=($!)
(
  cd "$LANCEMENT"
  export PYTHONPATH="$SERVEUR:$ICI/serveur-reel" BANC_PORT_S3=$PORT_S3 BANC_JOURNAL_API=$JOURNAL_API \
    AWS_S3_BUCKET=$COMPARTIMENT AWS_ACCESS_KEY_ID=$CLE AWS_SECRET_ACCESS_KEY=$SECRET \
    BACKEND_URL_PREFIX=/api/v1 \
    BANC_UTILISATEURS="[{\"jeton\":\"$ADMIN\",\"pseudo\":\"Administratrice du banc\",\"role\":\"Administrateur\"},{\"jeton\":\"$OBS\",\"pseudo\":\"Observatrice du banc\",\"role\":\"Observateur\"},{\"jeton\":\"$AUTRE\",\"pseudo\":\"Noctule des Étangs\",\"role\":\"Observateur\"}]"
  exec "$ENV_SERVEUR/bin/gunicorn" lanceur:app -w 1 --timeout 600 -b "127.0.0.1:$PORT_API"
) > "$LANCEMENT/serveur.log" 2>&1 & PIDS+=($!)
attendre "le serveur Vigie-Chiro" curl -sf -u "$OBS:" "$API/moi"
IDS=$("$ENV_SERVEUR/bin/python" "$ICI/serveur-reel/preparer.py" "$API" "$ADMIN" "$OBS" "$AUTRE")
ident() { jq -r ".$1" <<< "$IDS"; }
echo "== serveur Vigie-Chiro réel sur $API (S3 : moto derrière la couche v2, port $PORT_S3)"
echo "   sites : $(ident titre_site), $(ident titre_site_routier) ; participation $(ident participation)"

# --- les scénarios ------------------------------------------------------------------------
REUSSIS=0; RATES=0; RAPPORT=$LANCEMENT/rapport.txt
verdict() { # <nom> <condition évaluée par bash> [détail]
  if eval "$2"; then REUSSIS=$((REUSSIS + 1)); echo "  ✓ $1" | tee -a "$RAPPORT"
  else RATES=$((RATES + 1)); echo "  ✗ $1 ${3:-}" | tee -a "$RAPPORT"; fi
}
export VIGIE_BASE=$LANCEMENT/vigie.sqlite VIGIE_JETON=$OBS HOME=$LANCEMENT VIGIE_API=$API
export NO_COLOR=1
vigie() { "$VIGIE_BIN" --progression jamais "$@"; }
# Les lignes des journaux écrites depuis la marque, filtrées par jq.
marque() { echo "$(wc -l < "$JOURNAL_API") $(wc -l < "$JOURNAL_S3")"; }
api_depuis() { tail -n +"$(( ${1%% *} + 1 ))" "$JOURNAL_API" | jq -c "select($2)" | wc -l; }
s3_depuis() { tail -n +"$(( ${1##* } + 1 ))" "$JOURNAL_S3" | jq -c "select($2)" | wc -l; }
le32() { # <entier> : ses quatre octets, petit-boutiste
  printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
    $((($1 >> 16) & 255)) $((($1 >> 24) & 255))
}
wav() { # <fichier> <taille> <fréquence> : un WAV PCM 16 bits mono, l'en-tête à cette fréquence, du bruit
  local d=$(($2 - 44)) octet=$(($3 * 2))
  # shellcheck disable=SC2059 # les octets de l'en-tête sont des séquences \x de printf
  { printf 'RIFF'; printf "$(le32 $((36 + d)))"; printf 'WAVEfmt '; printf "$(le32 16)"
    printf '\x01\x00\x01\x00'; printf "$(le32 "$3")"; printf "$(le32 "$octet")"
    printf '\x02\x00\x10\x00data'; printf "$(le32 "$d")"; head -c "$d" /dev/urandom; } > "$1"
}
nuit() { # <dossier> <nombre> <taille> [préfixe du nom] : des WAV en expansion de temps ×10
  mkdir -p "$1"
  local prefixe=${4:-Car640380-2026-Pass1-A1-OB-1_20260620_}
  for i in $(seq 1 "$2"); do
    wav "$1/${prefixe}$(printf '22%04d' "$i")_000.wav" "$3" 38400
  done
}
RETENUES=0
retenues() { grep -c '"retenue": true' "$JOURNAL_S3" || true; }
une_de_plus() { [ "$(retenues)" -gt "$RETENUES" ]; }
tuer_quand_retenu() { # <pid> : kill -9 dès que la couche S3 retient une requête de plus
  attendre "une requête retenue" une_de_plus
  kill -9 "$1"; wait "$1" 2> /dev/null || true
  rm -f "$LANCEMENT/bloquer"
  RETENUES=$(retenues)
}
# En arrière-plan, le binaire lui-même (pas la fonction, qui passerait par un sous-shell que
# kill -9 tuerait seul).
vigie_fond() { "$VIGIE_BIN" --progression jamais "$@" > /dev/null 2>&1 & }
P=$(ident participation)

echo "-- 0. la couche S3 vérifie les signatures v2 comme AWS"
DECL=$(curl -sf -u "$OBS:" -H 'Content-Type: application/json' -X POST "$API/fichiers" \
  -d "{\"titre\": \"Car640380-2026-Pass1-A1-OB-1_20260620_210000_000.wav\", \"lien_participation\": \"$P\"}")
URL=$(jq -r .s3_signed_url <<< "$DECL")
verdict "URL signée réécrite vers la couche S3" '[[ $URL == http://127.0.0.1:$PORT_S3/$COMPARTIMENT/wav/pa-$P/* ]]'
statut=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: text/plain' --data-binary x "$URL")
verdict "PUT au mauvais Content-Type refusé (403)" '[ "$statut" = 403 ]' "($statut)"
statut=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: audio/wav' --data-binary x "$URL")
verdict "PUT au type signé accepté (200)" '[ "$statut" = 200 ]' "($statut)"

echo "-- 1. dépôt d'une nuit dans une participation créée comme sur le site web"
nuit "$LANCEMENT/nuit1" 12 300000
m=$(marque)
vigie depot "$LANCEMENT/nuit1" --participation "$P" > "$LANCEMENT/s1.out" 2> "$LANCEMENT/s1.err" && c=0 || c=$?
verdict "code 0" '[ $c = 0 ]' "(code $c)"
verdict "12 déclarations, 12 finalisations" '[ "$(api_depuis "$m" '\''.methode == "POST" and .chemin == "/api/v1/fichiers" and .statut == 201'\'')" = 12 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | test("^/api/v1/fichiers/[0-9a-f]{24}$")) and .statut == 200'\'')" = 12 ]'
verdict "12 PUT acceptés par S3, aucun refusé" '[ "$(s3_depuis "$m" '\''.methode == "PUT" and .statut == 200'\'')" = 12 ] && [ "$(s3_depuis "$m" '\''.statut >= 400'\'')" = 0 ]'
m=$(marque)
vigie depot "$LANCEMENT/nuit1" --participation "$P" > /dev/null 2>&1 && c=0 || c=$?
verdict "relance : code 0, rien ne repart" '[ $c = 0 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT"'\'')" = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ]'

echo "-- 2. vigie verifier relit la plateforme"
vigie verifier > "$LANCEMENT/s2.out" 2>&1 && c=0 || c=$?
verdict "code 0, 12 fichiers intacts" '[ $c = 0 ] && grep -q "12 fichiers intacts" "$LANCEMENT/s2.out"' "($(tail -1 "$LANCEMENT/s2.out"))"

echo "-- 3. création de la participation par vigie, une seule fois"
nuit "$LANCEMENT/nuit3" 3 100000 Car640380-2026-Pass2-B2-OB-1_20260622_
m=$(marque)
creer() { vigie depot "$LANCEMENT/nuit3" --site "$(ident site)" --point B2 --debut 2026-06-22T21:00:00+02:00 --fin 2026-06-23T06:00:00+02:00; }
creer > "$LANCEMENT/s3.out" 2>&1 && c=0 || c=$?
verdict "code 0, une création" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | endswith("/participations"))'\'')" = 1 ]'
creer > /dev/null 2>&1 && c=0 || c=$?
verdict "relance : aucune seconde création" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | endswith("/participations"))'\'')" = 1 ]'

echo "-- 4. reprise après kill -9"
nuit "$LANCEMENT/nuit4" 6 200000 Car640380-2026-Pass3-A1-OB-1_20260624_
# La participation du banc est celle de la nuit 1 (Pass1, soirée du 20 juin) ; les nuits de 4,
# 5, 8 et 9 y vont aussi, sous un autre passage pour que leurs noms restent distincts : vigie le
# refuse sans --forcer-participation (la plateforme ne laisse pas retirer un fichier accepté),
# ce qui est vérifié ici une fois contre le vrai serveur, puis forcé.
m=$(marque)
vigie depot "$LANCEMENT/nuit4" --participation "$P" > "$LANCEMENT/s4a.out" 2>&1 && c=0 || c=$?
verdict "autre passage que la participation : code 2, rien de déclaré ni d'envoyé" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT"'\'')" = 0 ] && grep -q "forcer-participation" "$LANCEMENT/s4a.out"' "(code $c)"
echo "_220004_000.wav" > "$LANCEMENT/bloquer"
m=$(marque)
vigie_fond depot "$LANCEMENT/nuit4" --participation "$P" --forcer-participation --paralleles 1; pid=$!
tuer_quand_retenu $pid
avant=$(s3_depuis "$m" '.methode == "PUT" and .statut == 200')
# shellcheck disable=SC2034 # m2 : lue par le verdict qui suit (eval)
m2=$(marque)
vigie depot "$LANCEMENT/nuit4" --participation "$P" --forcer-participation > "$LANCEMENT/s4.out" 2>&1 && c=0 || c=$?
verdict "relance : code 0, seuls les fichiers manquants repartent" '[ $c = 0 ] && [ "$(s3_depuis "$m2" '\''.methode == "PUT" and .statut == 200'\'')" = $((6 - avant)) ]' "(partis avant : $avant)"
vigie verifier > /dev/null 2>&1 && c=0 || c=$?
verdict "vigie verifier : tout est intact" '[ $c = 0 ]'

echo "-- 5. des enregistrements laissés par le site web (déclarés, jamais finalisés)"
nuit "$LANCEMENT/nuit5" 3 150000 Car640380-2026-Pass4-A1-OB-1_20260626_
for f in "$LANCEMENT"/nuit5/*.wav; do
  curl -sf -u "$OBS:" -H 'Content-Type: application/json' -X POST "$API/fichiers" \
    -d "{\"titre\": \"$(basename "$f")\", \"lien_participation\": \"$P\"}" > /dev/null
done
m=$(marque)
vigie depot "$LANCEMENT/nuit5" --participation "$P" --forcer-participation > "$LANCEMENT/s5.out" 2>&1 && c=0 || c=$?
total=$(curl -sf -u "$OBS:" "$API/participations/$P/pieces_jointes?max_results=100" | jq '[._items[] | select(.titre | startswith("Car640380-2026-Pass4"))] | length')
verdict "code 0, repris sans doublon (3 enregistrements)" '[ $c = 0 ] && [ "$total" = 3 ]' "(code $c, $total)"

echo "-- 6. vigie traiter"
m=$(marque)
vigie traiter --participation "$P" > "$LANCEMENT/s6.out" 2>&1 && c=0 || c=$?
verdict "calcul lancé (un POST compute, 200)" '[ $c = 0 ] && grep -q "Calcul lancé" "$LANCEMENT/s6.out" && [ "$(api_depuis "$m" '\''(.chemin | endswith("/compute")) and .statut == 200'\'')" = 1 ]'
vigie traiter --participation "$P" > "$LANCEMENT/s6b.out" 2>&1 && c=0 || c=$?
verdict "relancé : déjà planifié, rien de relancé (aucun second compute)" '[ $c = 0 ] && grep -q "rien n.a été relancé" "$LANCEMENT/s6b.out" && [ "$(api_depuis "$m" '\''(.chemin | endswith("/compute"))'\'')" = 1 ]'

echo "-- 7. la participation d'un autre observateur"
nuit "$LANCEMENT/nuit7" 3 50000 Car640381-2026-Pass1-B1-OB-1_20260620_
m=$(marque)
vigie depot "$LANCEMENT/nuit7" --participation "$(ident participation_autre)" > "$LANCEMENT/s7.out" 2>&1 && c=0 || c=$?
verdict "refusée : code 3, aucune déclaration" '[ $c = 3 ] && [ "$(api_depuis "$m" '\''.chemin == "/api/v1/fichiers"'\'')" = 0 ]' "(code $c)"
verdict "le message dit à qui elle est" 'grep -q "Noctule des Étangs" "$LANCEMENT/s7.out"'

echo "-- 8. kill -9 en plein multipart (--seuil-multipart 6), puis vigie retenter-echecs"
mkdir -p "$LANCEMENT/nuit8"
wav "$LANCEMENT/nuit8/Car640380-2026-Pass5-A1-OB-1_20260628_220000_000.wav" $((12 * 1024 * 1024)) 38400
echo "partNumber=3" > "$LANCEMENT/bloquer"
m=$(marque)
vigie_fond depot "$LANCEMENT/nuit8" --participation "$P" --forcer-participation --seuil-multipart 6 --paralleles 1; pid=$!
tuer_quand_retenu $pid
parties=$(s3_depuis "$m" '.methode == "PUT" and (.sous | test("partNumber")) and .statut == 200')
m=$(marque)
vigie retenter-echecs --json > "$LANCEMENT/s8.json" 2> "$LANCEMENT/s8.err" && c=0 || c=$?
verdict "code 0 (deux parties acquittées avant le kill)" '[ $c = 0 ] && [ "$parties" = 2 ]' "(code $c, $parties parties)"
verdict "aucune suppression ni redéclaration d'enregistrement" '[ "$(api_depuis "$m" '\''.methode == "DELETE" or (.methode == "POST" and .chemin == "/api/v1/fichiers")'\'')" = 0 ]'
verdict "seule la partie manquante repart" '[ "$(s3_depuis "$m" '\''.methode == "PUT" and .statut == 200'\'')" = 1 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT" and (.sous | test("partNumber=3"))'\'')" = 1 ]'
verdict "le bilan dit le seuil repris du plan" '[ "$(tail -1 "$LANCEMENT/s8.json" | jq -r ".reglages_repris[\"--seuil-multipart\"]")" = 6 ]'
vigie verifier > /dev/null 2>&1 && c=0 || c=$?
verdict "vigie verifier : l'objet assemblé est intact" '[ $c = 0 ]'

echo "-- 9. --debit-max retenu par vigie retenter-echecs"
nuit "$LANCEMENT/nuit9" 4 200000 Car640380-2026-Pass6-A1-OB-1_20260630_
echo "_220003_000.wav" > "$LANCEMENT/bloquer"
vigie_fond depot "$LANCEMENT/nuit9" --participation "$P" --forcer-participation --debit-max 2Mo/s --paralleles 1; pid=$!
tuer_quand_retenu $pid
vigie retenter-echecs --json > "$LANCEMENT/s9.json" 2> /dev/null && c=0 || c=$?
verdict "code 0, la limite reprise (2 Mo/s)" '[ $c = 0 ] && [ "$(tail -1 "$LANCEMENT/s9.json" | jq -r ".reglages_repris[\"--debit-max\"]")" = "2 Mo/s" ]' "(code $c)"

echo "-- 10. un site routier : la participation créée sans --point"
mkdir -p "$LANCEMENT/nuit10"
for i in 1 2 3; do
  wav "$LANCEMENT/nuit10/Cir601-2026-Pass1-Tron2-Chiro_1_00000${i}_000.wav" 100000 38400
done
m=$(marque)
vigie depot "$LANCEMENT/nuit10" --site "$(ident site_routier)" --debut 2026-07-01T21:00:00+02:00 --fin 2026-07-02T06:00:00+02:00 > "$LANCEMENT/s10.out" 2>&1 && c=0 || c=$?
verdict "code 0, une participation créée, trois fichiers finalisés" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | endswith("/participations")) and .statut == 201'\'')" = 1 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | test("^/api/v1/fichiers/[0-9a-f]{24}$")) and .statut == 200'\'')" = 3 ]' "(code $c)"
PR=$(vigie etat --json | jq -r .participation)
point=$(curl -sf -u "$OBS:" "$API/participations/$PR" | jq -r '.point // "aucun"')
verdict "la participation n'a pas de point" '[ "$point" = aucun ]' "($point)"

echo "-- 11. un site inconnu, un site point fixe sans point : dits avant tout plan"
m=$(marque)
vigie depot "$LANCEMENT/nuit3" --site 5f00000000000000000000ff --point A1 --debut 2026-07-03T21:00:00Z --fin 2026-07-04T06:00:00Z > "$LANCEMENT/s11.out" 2>&1 && c=0 || c=$?
verdict "site inconnu : code 2, aucune création" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ]' "(code $c)"
vigie depot "$LANCEMENT/nuit3" --site "$(ident site)" --debut 2026-07-03T21:00:00Z --fin 2026-07-04T06:00:00Z > "$LANCEMENT/s11b.out" 2>&1 && c=0 || c=$?
verdict "point fixe sans --point : code 2, aucune création" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ] && grep -q "point fixe" "$LANCEMENT/s11b.out"' "(code $c)"
plans=$(vigie plans --json | jq -s 'length')
verdict "aucun plan local laissé par un refus (7 plans : ceux des dépôts)" '[ "$plans" = 7 ]' "($plans plans)"

echo "-- 12. une carte à l'horloge remise à 2000 : dix nuits qui se fondraient en une"
# Chaque soir, l'horloge repart du 1er janvier 2000 à minuit ; les noms disent 2026. La
# plateforme accepterait ces noms et la participation serait datée du 31/12/1999.
for n in $(seq 0 9); do
  mkdir -p "$LANCEMENT/carte2000/nuit$n"
  for i in 1 2 3; do
    wav "$LANCEMENT/carte2000/nuit$n/Car640380-2026-Pass7-A1-OB-1_20000101_00$(printf '%02d%02d' "$n" "$i")_000.wav" 20000 38400
  done
done
m=$(marque)
vigie depot "$LANCEMENT/carte2000" > "$LANCEMENT/s12.out" 2>&1 && c=0 || c=$?
verdict "en saison : code 2, aucune création, aucune déclaration, aucun envoi" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT"'\'')" = 0 ]' "(code $c)"
verdict "le message dit la nuit du 31/12/1999, le nom de 2026 et l'horloge" 'grep -q "31/12/1999" "$LANCEMENT/s12.out" && grep -q "nom de 2026" "$LANCEMENT/s12.out" && grep -q "horloge" "$LANCEMENT/s12.out"'
vigie depot "$LANCEMENT/carte2000/nuit4" --site "$(ident site)" --point A1 --debut 2026-07-05T21:00:00+02:00 --fin 2026-07-06T06:00:00+02:00 > "$LANCEMENT/s12b.out" 2>&1 && c=0 || c=$?
verdict "une nuit vers une participation à créer : code 2, aucune création" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ]' "(code $c)"

echo "-- 13. une nuit d'un enregistreur direct (en-tête à 384 000 Hz), non préparée"
mkdir -p "$LANCEMENT/nuit13"
wav "$LANCEMENT/nuit13/Car640380-2026-Pass8-A1-OB-1_20260705_220001_000.wav" 200000 384000
m=$(marque)
vigie depot "$LANCEMENT/nuit13" --participation "$P" --forcer-participation > "$LANCEMENT/s13.out" 2>&1 && c=0 || c=$?
verdict "code 2, rien de déclaré ni d'envoyé, la fréquence et vigie preparer dits" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''.methode == "POST"'\'')" = 0 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT"'\'')" = 0 ] && grep -q "384 000 Hz" "$LANCEMENT/s13.out" && grep -q "vigie preparer" "$LANCEMENT/s13.out"' "(code $c)"
plans=$(vigie plans --json | jq -s 'length')
verdict "aucun plan local laissé par ces refus (toujours 7)" '[ "$plans" = 7 ]' "($plans plans)"

echo "-- 14. une saison de trois nuits, sans un identifiant : traiter, traitement, resultats"
# Trois nuits d'un passage que rien d'autre n'a déposé (Pass7) : deux points le même soir, une
# nuit le lendemain ; vigie crée leurs trois participations. Le serveur du banc n'a pas
# d'exécutant de tâches : un calcul lancé reste planifié (la suite, calcul fini, nuit en erreur,
# CSV, est éprouvée contre le bac à sable : tests/integration/saison_apres_depot.rs).
SAISON=$LANCEMENT/saison14
nuit "$SAISON/PA1" 2 50000 Car640380-2026-Pass7-A1-PA1_20260710_
nuit "$SAISON/PA2" 2 50000 Car640380-2026-Pass7-B2-PA2_20260710_
nuit "$SAISON/PA1" 1 50000 Car640380-2026-Pass7-Z3-PA1_20260711_
sans_identifiant() { # <fichier> : aucun identifiant de 24 caractères hors d'une adresse web
  ! sed -E 's#https?://[^[:space:]]+##g' "$1" | grep -Eqi '(^|[^0-9a-f])[0-9a-f]{24}([^0-9a-f]|$)'
}
m=$(marque)
vigie depot "$SAISON" --fuseau +02:00 > "$LANCEMENT/s14a.out" 2>&1 && c=0 || c=$?
verdict "dépôt de la saison : code 0, trois participations créées" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | endswith("/participations")) and .statut == 201'\'')" = 3 ]' "(code $c)"
m=$(marque)
vigie traiter > "$LANCEMENT/s14b.out" 2>&1 && c=0 || c=$?
verdict "vigie traiter sans argument : un calcul par nuit (trois POST compute)" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''(.chemin | endswith("/compute")) and .statut == 200'\'')" = 3 ]' "(code $c)"
verdict "chaque nuit nommée par sa date et son point" 'grep -q "Calcul lancé pour la nuit 10/07 A1" "$LANCEMENT/s14b.out" && grep -q "Calcul lancé pour la nuit 11/07" "$LANCEMENT/s14b.out"'
m=$(marque)
vigie traiter > "$LANCEMENT/s14c.out" 2>&1 && c=0 || c=$?
verdict "relancé : aucun second calcul" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''(.chemin | endswith("/compute"))'\'')" = 0 ]' "(code $c)"
vigie traiter --relancer > "$LANCEMENT/s14d.out" 2>&1 && c=0 || c=$?
verdict "--relancer sans nuit : code 2, aucun calcul" '[ $c = 2 ] && [ "$(api_depuis "$m" '\''(.chemin | endswith("/compute"))'\'')" = 0 ]' "(code $c)"
vigie traitement > "$LANCEMENT/s14e.out" 2>&1 && c=0 || c=$?
verdict "vigie traitement : code 1, les trois nuits planifiées" '[ $c = 1 ] && [ "$(grep -c "calcul planifié" "$LANCEMENT/s14e.out")" = 3 ]' "(code $c)"
vigie resultats --sortie "$LANCEMENT/resultats14" > "$LANCEMENT/s14f.out" 2>&1 && c=0 || c=$?
verdict "vigie resultats : pas encore calculé n'est pas une erreur (code 0)" '[ $c = 0 ] && ! grep -q "^erreur" "$LANCEMENT/s14f.out"' "(code $c)"
vigie etat > "$LANCEMENT/s14g.out" 2>&1 || true
ok=1
# shellcheck disable=SC2034 # ok : lue par le verdict qui suit (eval)
for f in s14b s14c s14e s14f s14g; do sans_identifiant "$LANCEMENT/$f.out" || { ok=0; echo "    identifiant dans $f.out"; }; done
verdict "aucune sortie de traiter, traitement, resultats, etat ne montre un identifiant" '[ $ok = 1 ]'

echo "-- 15. une carte brute sans préfixe, déposée au fil de l'envoi : les objets de vigie preparer"
# Un enregistreur direct (en-tête à 384 000 Hz, noms d'un SM4BAT sans Car…-Pass…-) : 7 s et
# 3 s, soit 2 + 1 séquences ; le préfixe donné au dépôt comme à preparer.
CARTE=$LANCEMENT/carte15
mkdir -p "$CARTE"
wav "$CARTE/S4U12345_20260712_221500.wav" $((7 * 384000 * 2 + 44)) 384000
wav "$CARTE/S4U12345_20260712_222000.wav" $((3 * 384000 * 2 + 44)) 384000
IDENTITE15=(--site 640380 --passage 9 --point A1)
vigie preparer "$CARTE" --vers "$LANCEMENT/prep15" "${IDENTITE15[@]}" > "$LANCEMENT/s15a.out" 2>&1 && c=0 || c=$?
preparees=$(find "$LANCEMENT/prep15" -name '*.wav' | wc -l)
verdict "vigie preparer : code 0, 3 séquences" '[ $c = 0 ] && [ "$preparees" = 3 ]' "(code $c, $preparees)"
m=$(marque)
vigie depot "$CARTE" --participation "$P" --forcer-participation "${IDENTITE15[@]}" > "$LANCEMENT/s15.out" 2>&1 && c=0 || c=$?
verdict "code 0, 3 séquences déclarées et finalisées" '[ $c = 0 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and .chemin == "/api/v1/fichiers" and .statut == 201'\'')" = 3 ] && [ "$(api_depuis "$m" '\''.methode == "POST" and (.chemin | test("^/api/v1/fichiers/[0-9a-f]{24}$")) and .statut == 200'\'')" = 3 ]' "(code $c)"
identiques=0
# Relu chez moto directement (un objet est privé : une lecture anonyme y est refusée, 403).
for f in "$LANCEMENT"/prep15/*/*.wav; do
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$CLE:$SECRET" \
    "http://127.0.0.1:$PORT_MOTO/$COMPARTIMENT/wav/pa-$P/$(basename "$f")" | cmp -s - "$f" \
    && identiques=$((identiques + 1))
done
verdict "chaque objet déposé est octet pour octet la séquence de preparer" '[ "$identiques" = 3 ]' "($identiques sur 3)"
m=$(marque)
vigie depot "$CARTE" --participation "$P" --forcer-participation "${IDENTITE15[@]}" > /dev/null 2>&1 && c=0 || c=$?
verdict "relance : code 0, rien ne repart" '[ $c = 0 ] && [ "$(s3_depuis "$m" '\''.methode == "PUT"'\'')" = 0 ]'

echo "-- 16. une participation décrite sur le site web, complétée par vigie sans rien perdre"
# Le formulaire du site web (makeConfiguration) écrit ces clés ; vigie n'ajoute que ce qui manque.
WEB='{"detecteur_enregistreur_type": "SM4BAT", "micro0_numero_serie": "M-77", "micro1_position": "SOL", "micro1_hauteur": "2", "micro1_type": "SMX-U1"}'
statut=$(curl -s -o /dev/null -w '%{http_code}' -u "$OBS:" -H 'Content-Type: application/json' -X PATCH "$API/participations/$P" \
  -d "{\"configuration\": $WEB, \"meteo\": {\"vent\": \"NUL\"}}")
verdict "le site web pose sa configuration (PATCH, 200)" '[ "$statut" = 200 ]' "($statut)"
nuit "$LANCEMENT/nuit16" 2 50000 Car640380-2026-Pass10-A1-OB-1_20260714_
vigie depot "$LANCEMENT/nuit16" --participation "$P" --forcer-participation --enregistreur-type PassiveRecorder \
  --micro-position CANOPEE --micro-hauteur 4 --micro-type ICS --temperature-debut 18 --vent FORT > "$LANCEMENT/s16.out" 2>&1 && c=0 || c=$?
LUE=$(curl -sf -u "$OBS:" "$API/participations/$P")
gardees=$(jq length <<< "$WEB")
tenues=$(jq --argjson web "$WEB" '[.configuration as $c | $web | to_entries[] | select($c[.key] == .value)] | length' <<< "$LUE")
verdict "code 0, chaque clé du site web gardée telle quelle" '[ $c = 0 ] && [ "$tenues" = "$gardees" ]' "(code $c, $tenues sur $gardees)"
verdict "ce qui manquait ajouté (micro0_position, micro0_hauteur, micro0_type, température), le vent du site web gardé" '[ "$(jq -r "[.configuration.micro0_position, .configuration.micro0_hauteur, .configuration.micro0_type, .meteo.temperature_debut, .meteo.vent] | map(tostring) | join(\" \")" <<< "$LUE")" = "CANOPEE 4 ICS 18 NUL" ]' "($(jq -c '{configuration, meteo}' <<< "$LUE"))"

echo
echo "$REUSSIS vérifications tenues, $RATES en échec (détails : $LANCEMENT)."
[ "$RATES" = 0 ]
