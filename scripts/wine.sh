# shellcheck shell=bash
# À sourcer (pas à lancer) : un préfixe wine jetable où vigie.exe tourne, pour
# scripts/verifier-paquets.sh et benches/windows.sh.
#
#   source scripts/wine.sh
#   preparer_wine            # WINE64 et WINEPREFIX (exportée) sont posés
#   trap fermer_wine EXIT    # arrête le wineserver de ce préfixe et l'efface
#   "$WINE64" vigie.exe --version
#
# Installe ce qui manque (wine64, et gcc-mingw-w64-x86-64 pour la cale ci-dessous) par
# apt-get, en root. Rien ne reste dans ~/.wine : chaque appel a son préfixe, dans /tmp.

preparer_wine() {
    if ! dpkg -s wine64 >/dev/null 2>&1 || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
        if [[ $EUID -ne 0 ]]; then
            echo "wine64 ou gcc-mingw-w64-x86-64 manque : sudo apt-get install wine64 gcc-mingw-w64-x86-64" >&2
            return 1
        fi
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 gcc-mingw-w64-x86-64 >/dev/null
    fi
    # Debian range le chargeur 64 bits hors du PATH (/usr/lib/wine/wine64).
    WINE64=$(command -v wine64 || echo /usr/lib/wine/wine64)
    WINEPREFIX=$(mktemp -d /tmp/vigie-wine-XXXXXXXX)
    # WINELOADER : le chargeur qu'emploie wine pour lancer un processus enfant (vigie demo
    # relance vigie.exe) ; sans lui, le script /usr/bin/wine chercherait un wine 32 bits.
    export WINEPREFIX WINELOADER=$WINE64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    wineboot --init >/dev/null 2>&1 || true

    # Le wine 8 de Debian 12 n'a pas bcryptprimitives.dll (Windows 8 et suivants l'ont), d'où
    # la bibliothèque standard de Rust (≥ 1.78) importe ProcessPrng, son générateur d'aléa :
    # sans elle, vigie.exe ne démarre pas sous ce wine. On lui en donne une, dans le préfixe
    # jetable seulement, qui puise à RtlGenRandom (advapi32). C'est un manque de wine, pas de
    # Windows : vigie.exe n'emporte pas cette DLL.
    local systeme=$WINEPREFIX/drive_c/windows/system32
    if [[ ! -e $systeme/bcryptprimitives.dll ]]; then
        local cale
        cale=$(mktemp -d /tmp/vigie-cale-XXXXXXXX)
        cat >"$cale/cale.c" <<'FIN'
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
        x86_64-w64-mingw32-gcc -shared -O2 -s -o "$systeme/bcryptprimitives.dll" "$cale/cale.c" -ladvapi32
        rm -rf "$cale"
    fi
}

# Arrête le wineserver de ce préfixe (et lui seul) et efface le préfixe.
fermer_wine() {
    [[ -n ${WINEPREFIX:-} && -d $WINEPREFIX ]] || return 0
    wineserver -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
}

# Le chemin Windows (Z:\…) d'un chemin Linux : wine voit tout le système de fichiers sous Z:.
chemin_wine() {
    local absolu
    absolu=$(realpath -m -- "$1")
    printf 'Z:%s\n' "${absolu//\//\\}"
}
