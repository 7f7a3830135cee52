#!/usr/bin/env bash
# Banc d'endurance (pas un test) : les essais de tests/integration/endurance.rs poussés (S3 et
# Vigie-Chiro sur le bac à sable : participation créée, puis enregistrements laissés par d'autres clients ;
# S3 sur moto), chacun jusqu'à 1 000 pannes injectées et 50 kill -9, la relance finale devant
# finir en un seul passage, code 0, sans perte ni doublon ni envoi orphelin. Écrit ses chiffres dans FIABILITE.md (entre les marques « endurance »).
# Compter une vingtaine de minutes sur 2 cœurs, compilation comprise.
# Usage : benches/endurance.sh [PANNES] [ARRETS] [GRAINE]
# Mode court (VIGIE_BANC_COURT=1) : un seul des essais (S3 sur le bac à sable ; la commande de
# test les passe tous), en profil de développement (déjà compilé par `cargo test`), sans panne
# de plus et un seul kill -9, rien d'installé ; le tableau est écrit dans une copie de
# FIABILITE.md, jetée (le banc vérifie qu'il s'y écrit).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/commun.sh
. benches/commun.sh
PANNES=${1:-1000}
ARRETS=${2:-50}
GRAINE=${3:-20261130}
PROFIL=(--release)
ESSAIS=endurance::
FIABILITE=FIABILITE.md
if [ "$BANC_COURT" = 1 ]; then
  PANNES=0 ARRETS=1 PROFIL=() ESSAIS=endurance::endurance_s3_quinze FIABILITE=$TMP/FIABILITE.md
  cp FIABILITE.md "$FIABILITE"
else
  # Les essais contre moto préparent leur propre environnement ; celui-ci sert au lancement
  # hors essais.
  python3 -c 'import moto, crc32c; from importlib.metadata import version; v = tuple(int(x) for x in version("moto").split(".")[:3]); assert v >= (5, 2, 5)' 2> /dev/null \
    || pip install --quiet 'moto[server,s3crc32c]>=5.2.5'
fi
SORTIE=$TMP/sortie
debut=$(date +%s)
# Les sept tentatives par défaut, comme l'essai de CI (voir RELANCES_MAX dans
# tests/integration/endurance.rs).
VIGIE_ENDURANCE_PANNES=$PANNES VIGIE_ENDURANCE_ARRETS=$ARRETS VIGIE_ENDURANCE_GRAINE=$GRAINE \
  VIGIE_ENDURANCE_TENTATIVES=7 \
  cargo test "${PROFIL[@]}" --locked --test integration "$ESSAIS" -- --nocapture --test-threads 1 2>&1 \
  | tee "$SORTIE" || true  # l'échec est dit juste après
duree=$(( $(date +%s) - debut ))
grep -q '^test result: ok' "$SORTIE" || echec "le banc d'endurance a échoué : $FIABILITE n'est pas modifié"
python3 - "$SORTIE" "$PANNES" "$ARRETS" "$GRAINE" "$duree" "$(git rev-parse --short HEAD 2> /dev/null || echo '?')" "$(nproc)" "$FIABILITE" << 'PY'
import re, sys, datetime
sortie, pannes, arrets, graine, duree, commit, coeurs, fiabilite = sys.argv[1:]
# Avec --nocapture, la ligne peut suivre « test … ... » sur la même ligne.
lignes = [l[l.index("ENDURANCE |"):].strip() for l in open(sortie, encoding="utf-8") if "ENDURANCE |" in l]
tableau = ["| essai | fichiers | pannes injectées | arrêts | relance finale | durée |", "|---|---|---|---|---|---|"]
for l in lignes:
    _, essai, fichiers, pannes_l, arrets_l, relance, d = [c.strip() for c in l.split("|")]
    tableau.append(f"| {essai} | {fichiers} | {pannes_l} | {arrets_l} | {relance} | {d} |")
bloc = "\n".join([
    "<!-- endurance:debut (écrit par benches/endurance.sh) -->",
    f"Dernier lancement : {datetime.date.today().isoformat()}, commit {commit}, {coeurs} cœurs, "
    f"compilation optimisée ; au moins {pannes} pannes et {arrets} kill -9 par essai, graine {graine}, "
    f"{int(duree) // 60} min en tout (compilation comprise).",
    "",
    *tableau,
    "<!-- endurance:fin -->",
])
if not lignes:
    sys.exit("aucune ligne « ENDURANCE | » dans la sortie des essais : FIABILITE.md n'est pas modifié")
texte = open(fiabilite, encoding="utf-8").read()
texte, n = re.subn(r"<!-- endurance:debut.*?<!-- endurance:fin -->", bloc, texte, flags=re.S)
if n != 1:
    sys.exit("FIABILITE.md : marques « endurance:debut » / « endurance:fin » introuvables")
open(fiabilite, "w", encoding="utf-8").write(texte)
print(f"{fiabilite} mis à jour :")
print(bloc)
PY
