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
# ses consoles. Le README dit ce que cela prouve et ce que cela ne prouve pas.
#
# Usage : benches/windows.sh            (profil dev)
#         PROFIL=release benches/windows.sh
# Installe ce qui manque : la cible Rust, gcc-mingw-w64-x86-64 et wine64 (apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."
CIBLE=x86_64-pc-windows-gnu
PROFIL=${PROFIL:-dev}

rustup target list --installed | grep -qx "$CIBLE" || rustup target add "$CIBLE"
if ! command -v x86_64-w64-mingw32-gcc > /dev/null || ! dpkg -s wine64 > /dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64 wine64
fi
# Debian range le chargeur 64 bits hors du PATH (/usr/lib/wine/wine64).
WINE64=$(command -v wine64 || echo /usr/lib/wine/wine64)

cargo build --locked --profile "$PROFIL" --target "$CIBLE"
dossier=$([ "$PROFIL" = dev ] && echo debug || echo "$PROFIL")
exe=target/$CIBLE/$dossier/vigie.exe

# Un préfixe wine propre à ce lancement, effacé à la fin : rien ne reste dans ~/.wine.
export WINEPREFIX
WINEPREFIX=$(mktemp -d /tmp/vigie-wine-XXXXXXXX)
trap 'wineserver -k 2> /dev/null || true; rm -rf "$WINEPREFIX"' EXIT
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wineboot --init > /dev/null 2>&1 || true

# Le wine 8 de Debian 12 n'a pas bcryptprimitives.dll (Windows 8 et suivants l'ont), d'où la
# bibliothèque standard de Rust (≥ 1.78) importe ProcessPrng, son générateur d'aléa : sans elle,
# vigie.exe ne démarre pas sous ce wine. On lui en donne une, dans le préfixe jetable seulement,
# qui puise à RtlGenRandom (advapi32). C'est un manque de wine, pas de Windows.
if [ ! -e "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]; then
    cale=$(mktemp -d /tmp/vigie-cale-XXXXXXXX)
    cat > "$cale/cale.c" << 'FIN'
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE octets, SIZE_T n) {
    while (n > 0) {
        ULONG morceau = n > 0x40000000 ? 0x40000000 : (ULONG)n;
        if (!RtlGenRandom(octets, morceau)) return FALSE;
        octets += morceau;
        n -= morceau;
    }
    return TRUE;
}
FIN
    x86_64-w64-mingw32-gcc -shared -O2 -s -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
        "$cale/cale.c" -ladvapi32
    rm -rf "$cale"
fi

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
