#!/usr/bin/env bash
# Deux fabrications du même commit donnent-elles les mêmes octets ? Ce script fabrique le commit
# courant une seconde fois, dans un clone neuf rangé ailleurs (autre chemin, cible Cargo vide), et
# compare ses SHA256SUMS à ceux de dist/, que scripts/paquets.sh a fabriqués dans ce dépôt-ci.
#
# Usage : scripts/paquets.sh && scripts/reproductibilite.sh [DOSSIER]
# Le clone est fait dans DOSSIER (par défaut un dossier temporaire, effacé à la fin) ; compter une
# fabrication complète, dépendances comprises. Rien ne sort de la machine.
set -euo pipefail

racine=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$racine"

echouer() {
    printf 'reproductibilite.sh : %s\n' "$*" >&2
    exit 1
}

[[ -f dist/SHA256SUMS ]] || echouer "dist/SHA256SUMS manque : lancez d'abord scripts/paquets.sh"
if [[ -n "${1:-}" ]]; then
    mkdir -p "$1"
    dossier=$(cd "$1" && pwd)
else
    dossier=$(mktemp -d)
    trap 'rm -rf "$dossier"' EXIT
fi
clone=$dossier/autre-clone-de-vigie
[[ ! -e "$clone" ]] || echouer "$clone existe déjà : donnez un dossier vide"

git clone --quiet --no-local "$racine" "$clone"
git -C "$clone" checkout --quiet --detach "$(git rev-parse HEAD)"
"$clone/scripts/paquets.sh"

if diff -u dist/SHA256SUMS "$clone/dist/SHA256SUMS"; then
    echo "Reproductible : $racine et $clone donnent les mêmes octets pour le commit $(git rev-parse --short HEAD) :"
    cat dist/SHA256SUMS
else
    echouer "les deux fabrications diffèrent (lignes ci-dessus) ; dist/ vient-il bien du commit courant ? Sinon, relancez scripts/paquets.sh puis ce script."
fi
