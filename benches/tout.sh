#!/usr/bin/env bash
# Tous les bancs d'essai de BENCHMARKS.md, d'une commande, sur une machine neuve (chaque script
# installe ce qui lui manque). Compter une demi-heure sur 2 cœurs, dont 25 minutes pour les liens qui
# coupent. Usage : benches/tout.sh [FICHIER_DE_SORTIE]   (par défaut : target/bancs-AAAA-MM-JJ.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
SORTIE=${1:-target/bancs-$(date +%F).txt}
mkdir -p "$(dirname "$SORTIE")"
{
  echo "# $(date -Iseconds) — $(git rev-parse --short HEAD 2> /dev/null || echo '?') — $(nproc) cœurs"
  echo "## 3. Planification"
  benches/planification.sh 10000
  echo "## 3. Échelle"
  benches/echelle.sh 10000
  echo "## 1 et 2. Débit, puis lien qui coupe (seau d'1 s)"
  LIEN=1 benches/debit.sh
  echo "## 2. Lien qui coupe, modèle strict (seau de 0,05 s), puis --paralleles 2"
  SERVEURS='' LIEN=1 RAFALE=0.05 benches/debit.sh
  SERVEURS='' LIEN=1 RAFALE=0.05 OUTILS=vigie PARALLELES=2 benches/debit.sh
  echo "## 5. Le lien du terrain : latence, --debit-max, Vigie-Chiro (root : ip netns)"
  benches/terrain.sh
} 2>&1 | tee "$SORTIE"
echo "Résultats dans $SORTIE"
