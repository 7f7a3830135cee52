#!/usr/bin/env bash
# Vérification (pas un test) : vigie.exe, fabriqué ici pour Windows (x86_64-pc-windows-gnu,
# compilateur C mingw-w64 pour SQLite et aws-lc), tourne sous wine64 :
#   1. vigie.exe --version ;
#   2. vigie.exe demo --graine 1 --progression jamais, jusqu'au bilan (code 0, tout déposé) :
#      le bac à sable démarré dans le processus, le dépôt lancé en processus enfant (vigie.exe
#      lui-même), ses trois pannes rattrapées, puis vigie.exe etat ;
#   3. les tests unitaires du module de plateforme (plateforme::), compilés pour Windows et
#      lancés sous wine64.
# Ce n'est pas Windows : wine imite son API (fichiers, console, sockets), pas ses ACL ni
# ses consoles. CONTRIBUTING.md dit ce que cela prouve et ce que cela ne prouve pas.
#
# Usage : benches/windows.sh            (profil dev)
#         PROFIL=release benches/windows.sh
# Installe ce qui manque : la cible Rust, gcc-mingw-w64-x86-64 et wine64 (apt-get, par
# scripts/wine.sh, que scripts/verifier-paquets.sh emploie aussi).
set -euo pipefail
cd "$(dirname "$0")/.."
CIBLE=x86_64-pc-windows-gnu
PROFIL=${PROFIL:-dev}

rustup target list --installed | grep -qx "$CIBLE" || rustup target add "$CIBLE"
# wine64, la cale de bcryptprimitives.dll et le compilateur C de mingw-w64 : scripts/wine.sh.
source scripts/wine.sh
preparer_wine
trap fermer_wine EXIT

cargo build --locked --profile "$PROFIL" --target "$CIBLE"
dossier=$([ "$PROFIL" = dev ] && echo debug || echo "$PROFIL")
exe=target/$CIBLE/$dossier/vigie.exe

echo "== $exe --version"
"$WINE64" "$exe" --version

echo "== $exe demo --graine 1 --progression jamais"
journal=$(mktemp /tmp/vigie-wine-demo-XXXXXXXX.txt)
set +e
timeout 600 "$WINE64" "$exe" demo --graine 1 --progression jamais > "$journal" 2>&1
code=$?
set -e
tail -n 25 "$journal"
echo "== code de sortie : $code"
grep -q "Démonstration réussie" "$journal" || { echo "ÉCHEC : pas de bilan dans la sortie" >&2; exit 1; }
[ "$code" -eq 0 ] || { echo "ÉCHEC : code $code (attendu 0)" >&2; exit 1; }
rm -f "$journal"

echo "== tests unitaires plateforme:: sous wine64"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$WINE64" \
    cargo test --locked --target "$CIBLE" --lib plateforme::

echo "== vigie.exe : --version, demo --graine 1 (code 0) et plateforme:: vérifiés sous $("$WINE64" --version)"
