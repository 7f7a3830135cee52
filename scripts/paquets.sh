#!/usr/bin/env bash
# Fabrique, depuis un clone propre, ce qu'on remet à un naturaliste qui n'a pas Rust. Dans dist/ :
#   vigie-VERSION-linux-x86_64                      le binaire Linux statique (musl) ;
#   vigie_VERSION-1_amd64.deb                       le paquet Debian (cargo deb) : binaire, manuel,
#                                                   complétions bash, zsh et fish ;
#   vigie-VERSION-x86_64-unknown-linux-musl.tar.gz  binaire, manuel, complétions, LISEZMOI ;
#   vigie-VERSION-x86_64-pc-windows-gnu.zip         vigie.exe (compilé ici par mingw-w64), un
#                                                   LISEZMOI pour Windows, le manuel en texte, la
#                                                   complétion PowerShell ;
#   vigie-VERSION-x86_64-apple-darwin.tar.gz        (avec --macos) binaire, manuel, complétions,
#   vigie-VERSION-aarch64-apple-darwin.tar.gz       LISEZMOI, pour les binaires macOS donnés ;
#   SHA256SUMS                                      les sommes de tout ce qui précède.
# Hors de dist/ (qui ne contient que ce qu'on publie), target/paquets/TAILLES.md : les tailles de
# chaque fichier de dist/ et des binaires qu'ils contiennent, le tableau que DISTRIBUTION.md
# reprend (« Les tailles »).
#
# Usage : scripts/paquets.sh [--macos DOSSIER]
#         scripts/paquets.sh --binaire CIBLE DOSSIER
#
# macOS ne se compile pas ici (il y faut le SDK d'Apple) : le flux de publication
# (.github/workflows/release.yml) fabrique vigie sur deux Mac par --binaire (le seul binaire,
# pour la CIBLE de ce Mac, avec le profil et les réglages des autres paquets, copié en
# DOSSIER/vigie-CIBLE), puis passe ces binaires à la fabrication des paquets par --macos :
# DOSSIER contient vigie-x86_64-apple-darwin et vigie-aarch64-apple-darwin, archivés ici comme
# le binaire Linux.
#
# Deux fabrications du même commit donnent les mêmes octets (vérifié par
# scripts/reproductibilite.sh, détails dans DISTRIBUTION.md) : la date des fichiers est celle du
# commit, les chemins de la machine sont retirés du binaire, les archives sont triées et sans
# propriétaire. Ce qui manque pour fabriquer (cible musl, musl-tools, cargo-deb) est installé.
# Rien ne sort de la machine : ni publication, ni téléversement.
set -euo pipefail

readonly CIBLE=x86_64-unknown-linux-musl
readonly CIBLE_WINDOWS=x86_64-pc-windows-gnu
readonly CIBLES_MACOS=(x86_64-apple-darwin aarch64-apple-darwin)
readonly PROFIL=distribution
readonly VERSION_CARGO_DEB=3.8.0
# Le compilateur fait partie de ce qui doit être le même d'une fabrication à l'autre : il est
# épinglé (à suivre quand rust-version change dans Cargo.toml).
readonly CHAINE_RUST=1.95.0
export RUSTUP_TOOLCHAIN=$CHAINE_RUST

racine=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$racine"

dire() { printf '==> %s\n' "$*" >&2; }
echouer() {
    printf 'paquets.sh : %s\n' "$*" >&2
    exit 1
}

binaires_macos=
binaire_seul=
case "${1:-}" in
    --macos)
        [[ -n "${2:-}" && -d "$2" ]] || echouer "--macos attend un dossier (celui des binaires vigie-CIBLE des Mac)"
        binaires_macos=$(cd "$2" && pwd)
        ;;
    --binaire)
        [[ -n "${2:-}" && -n "${3:-}" ]] || echouer "usage : scripts/paquets.sh --binaire CIBLE DOSSIER"
        binaire_seul=$2
        dossier_binaire=$3
        ;;
    "") ;;
    *) echouer "argument inconnu « $1 » ; usage : scripts/paquets.sh [--macos DOSSIER | --binaire CIBLE DOSSIER]" ;;
esac

verifier_clone_propre() {
    if [[ -n "$(git status --porcelain --untracked-files=normal)" ]]; then
        git status --short >&2
        echouer "l'arbre a des modifications non commitées : les paquets ne correspondraient à aucun commit. Commitez-les ou mettez-les de côté (git stash), puis relancez."
    fi
}

# Installe le paquet Debian $2 si la commande $1 manque (en root ; sinon, dit la commande).
installer_commande() {
    local commande=$1 paquet=$2
    command -v "$commande" >/dev/null && return 0
    if [[ $EUID -ne 0 ]]; then
        echouer "$commande manque : installez le paquet Debian $paquet (sudo apt-get install $paquet), puis relancez."
    fi
    dire "installation de $paquet"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$paquet" >/dev/null
}

# Le compilateur épinglé et les cibles Rust données.
installer_rust() {
    if ! rustup toolchain list | grep -q "^$CHAINE_RUST-"; then
        dire "installation de Rust $CHAINE_RUST"
        rustup toolchain install "$CHAINE_RUST" --profile minimal
    fi
    local cible
    for cible in "$@"; do
        if ! rustup target list --installed | grep -qx "$cible"; then
            dire "ajout de la cible Rust $cible"
            rustup target add "$cible"
        fi
    done
}

installer_outils() {
    installer_rust "$CIBLE" "$CIBLE_WINDOWS"
    # Le code C des dépendances (SQLite, aws-lc) se compile pour musl avec musl-gcc ; la
    # bibliothèque C est ensuite celle, statique, que Rust fournit avec sa cible musl. Pour
    # Windows, avec le gcc de mingw-w64, qui sert aussi d'éditeur de liens. zip fait l'archive
    # Windows, groff le manuel en texte.
    installer_commande musl-gcc musl-tools
    installer_commande x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
    installer_commande zip zip
    installer_commande groff groff-base
    if [[ "$(cargo deb --version 2>/dev/null || true)" != "cargo-deb $VERSION_CARGO_DEB" ]]; then
        dire "installation de cargo-deb $VERSION_CARGO_DEB"
        cargo install --locked cargo-deb --version "=$VERSION_CARGO_DEB"
    fi
}

# Ce qui, hors de Cargo.toml, rend la fabrication indépendante de la machine et de l'heure.
fixer_l_environnement() {
    # La date du commit : celle des fichiers dans les archives (tar, cargo deb) et de __DATE__ en C.
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
    export SOURCE_DATE_EPOCH
    # Les chemins de la machine (ce clone, le cache de Cargo) n'entrent pas dans le binaire : ils
    # y figureraient dans les messages de panique des dépendances. trim-paths de Cargo n'est pas
    # encore stable (Rust 1.95) ; --remap-path-prefix fait la même chose.
    local cargo_home=${CARGO_HOME:-$HOME/.cargo}
    export RUSTFLAGS="--remap-path-prefix=$racine=/vigie --remap-path-prefix=$cargo_home=/cargo"
    # Pour le code C de chaque cible (CFLAGS_<cible>, que lit le crate cc).
    local carte="-ffile-prefix-map=$racine=/vigie -ffile-prefix-map=$cargo_home=/cargo" cible
    for cible in "$CIBLE" "$CIBLE_WINDOWS" "${CIBLES_MACOS[@]}"; do
        export "CFLAGS_${cible//-/_}=$carte"
    done
    export LC_ALL=C TZ=UTC
    umask 022
}

fabriquer_binaires() {
    dire "fabrication de vigie ($CIBLE et $CIBLE_WINDOWS, profil $PROFIL)"
    cargo build --locked --profile "$PROFIL" --target "$CIBLE" --target "$CIBLE_WINDOWS"
}

# Une archive .tar.gz dont les octets ne dépendent que de son contenu : entrées triées, date du
# commit, propriétaire root, pas de nom ni de date dans l'en-tête gzip.
archiver_tar_gz() {
    local dossier_parent=$1 nom=$2 archive=$3
    tar --create --format=gnu --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
        --owner=0 --group=0 --numeric-owner --directory="$dossier_parent" "$nom" |
        gzip -n -9 >"$archive"
}

# Une archive .zip dont les octets ne dépendent que de son contenu : entrées triées, toutes
# datées du commit (heure DOS, lue en UTC), sans les champs Unix (propriétaire, dates fines).
# Les fichiers sont à la racine de l'archive, sans dossier englobant : « Extraire tout… » de
# l'Explorateur crée déjà un dossier du nom de l'archive, un second dans le premier égarerait.
archiver_zip() {
    local dossier=$1 archive=$2
    find "$dossier" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
    (cd "$dossier" && find . -mindepth 1 -printf '%P\n' | sort | zip -q -X -9 -@ "$racine/$archive")
}

# Un texte pour le Bloc-notes et Windows PowerShell 5.1 : UTF-8 avec BOM (sans elle, l'un et
# l'autre liraient les accents en Windows-1252 ; PowerShell y verrait même des guillemets dans
# les octets de « — »), fins de ligne CRLF.
texte_windows() {
    printf '\xef\xbb\xbf'
    sed 's/$/\r/'
}

# Une page de manuel (man/vigie-windows.1 pour l'archive Windows : ses mots et ses exemples
# sont ceux de Windows) en texte, 80 colonnes, sans césure ni caractères de soulignement.
manuel_texte() {
    groff -Kutf8 -t -man -Tutf8 -rLL=78n -rHY=0 -P-cbou "$1" 2>/dev/null
}

# Le dossier d'une archive Unix (Linux ou macOS) : le binaire, le manuel, les complétions,
# un LISEZMOI.
preparer_dossier_unix() {
    local depot=$1 binaire=$2 lisezmoi=$3
    rm -rf "$depot"
    install -d -m 755 "$depot" "$depot/complete"
    install -m 755 "$binaire" "$depot/vigie"
    install -m 644 man/vigie.1 "$depot/vigie.1"
    install -m 644 completions/vigie.bash completions/_vigie completions/vigie.fish "$depot/complete/"
    install -m 644 "$lisezmoi" "$depot/LISEZMOI.txt"
}

fabriquer_linux() {
    local binaire=target/$CIBLE/$PROFIL/vigie
    install -m 755 "$binaire" "dist/vigie-$version-linux-x86_64"

    dire "paquet Debian (cargo deb $VERSION_CARGO_DEB)"
    cargo deb --locked --no-build --profile "$PROFIL" --target "$CIBLE" --output dist/

    dire "archive Linux .tar.gz"
    local nom=vigie-$version-$CIBLE
    preparer_dossier_unix "target/paquets/$nom" "$binaire" scripts/LISEZMOI-linux.txt
    archiver_tar_gz target/paquets "$nom" "dist/$nom.tar.gz"
}

# La signature Authenticode de vigie.exe, quand le flux de publication donne le certificat
# (VIGIE_SIGNATURE_PFX : le fichier .pfx ; VIGIE_SIGNATURE_MOT_DE_PASSE ; facultatif,
# VIGIE_SIGNATURE_HORODATAGE : un service d'horodatage RFC 3161). Sans lui, rien : vigie.exe
# n'est pas signé, et reste celui que redonne toute fabrication du même commit (DISTRIBUTION.md).
signer_windows() {
    local exe=$1
    [[ -n ${VIGIE_SIGNATURE_PFX:-} ]] || return 0
    installer_commande osslsigncode osslsigncode
    dire "signature Authenticode de vigie.exe"
    local horodatage=()
    [[ -z ${VIGIE_SIGNATURE_HORODATAGE:-} ]] || horodatage=(-ts "$VIGIE_SIGNATURE_HORODATAGE")
    osslsigncode sign -pkcs12 "$VIGIE_SIGNATURE_PFX" -readpass <(printf '%s' "${VIGIE_SIGNATURE_MOT_DE_PASSE:-}") \
        -h sha256 -n vigie "${horodatage[@]}" -in "$exe" -out "$exe.signe" >/dev/null ||
        echouer "la signature de vigie.exe a échoué (certificat, mot de passe, horodatage ?)"
    mv "$exe.signe" "$exe"
}

fabriquer_windows() {
    dire "archive Windows .zip"
    local nom=vigie-$version-$CIBLE_WINDOWS
    local depot=target/paquets/$nom
    rm -rf "$depot"
    install -d -m 755 "$depot"
    install -m 755 "target/$CIBLE_WINDOWS/$PROFIL/vigie.exe" "$depot/vigie.exe"
    signer_windows "$depot/vigie.exe"
    texte_windows <scripts/LISEZMOI-windows.txt >"$depot/LISEZMOI.txt"
    manuel_texte man/vigie-windows.1 | texte_windows >"$depot/MANUEL.txt"
    texte_windows <completions/_vigie.ps1 >"$depot/vigie-completion.ps1"
    chmod 644 "$depot"/*.txt "$depot/vigie-completion.ps1"
    archiver_zip "$depot" "dist/$nom.zip"
}

# Les binaires macOS fabriqués ailleurs (--macos), archivés comme celui de Linux.
fabriquer_macos() {
    local cible
    for cible in "${CIBLES_MACOS[@]}"; do
        local binaire=$binaires_macos/vigie-$cible
        [[ -f $binaire ]] || echouer "--macos : $binaire manque"
        # Un binaire Mach-O 64 bits commence par CF FA ED FE.
        [[ "$(head -c 4 "$binaire" | od -An -tx1 | tr -d ' ')" == cffaedfe ]] ||
            echouer "$binaire n'est pas un binaire macOS (Mach-O 64 bits)"
        dire "archive macOS .tar.gz ($cible)"
        local nom=vigie-$version-$cible
        preparer_dossier_unix "target/paquets/$nom" "$binaire" scripts/LISEZMOI-macos.txt
        archiver_tar_gz target/paquets "$nom" "dist/$nom.tar.gz"
    done
}

ecrire_sommes() {
    dire "sommes SHA-256"
    (cd dist && sha256sum -- * >SHA256SUMS)
}

# Une taille en octets, groupés par trois à la française, et en Mio à une décimale (virgule).
taille_lisible() {
    local octets=$1
    printf '%s octets (%s Mio)' \
        "$(printf '%d' "$octets" | sed ':a;s/\B[0-9]\{3\}\>/ &/;ta')" \
        "$(awk -v o="$octets" 'BEGIN { printf "%.1f", o / 1048576 }' | tr . ,)"
}

# target/paquets/TAILLES.md : le tableau des tailles que DISTRIBUTION.md reprend tel quel, écrit
# par la fabrication elle-même pour qu'il ne vieillisse pas à côté des paquets.
# Les accents graves sont ceux du Markdown, pas des substitutions oubliées.
# shellcheck disable=SC2016
ecrire_tailles() {
    local resume=target/paquets/TAILLES.md fichier
    {
        printf 'Tailles des paquets du commit `%s` (%s, `scripts/paquets.sh`) :\n\n' \
            "$(git rev-parse --short HEAD)" "$(rustc --version | cut -d' ' -f1,2)"
        printf '| fichier | taille |\n|---|---|\n'
        for fichier in dist/*; do
            [[ $(basename "$fichier") != SHA256SUMS ]] || continue
            printf '| `%s` | %s |\n' "$(basename "$fichier")" "$(taille_lisible "$(stat -c %s "$fichier")")"
        done
        printf '| `vigie.exe` (dans le `.zip`) | %s |\n' \
            "$(taille_lisible "$(stat -c %s "target/paquets/vigie-$version-$CIBLE_WINDOWS/vigie.exe")")"
    } >"$resume"
    cat "$resume" >&2
}

verifier_clone_propre
if [[ -n $binaire_seul ]]; then
    installer_rust "$binaire_seul"
    fixer_l_environnement
    dire "fabrication de vigie ($binaire_seul, profil $PROFIL), seul"
    cargo build --locked --profile "$PROFIL" --target "$binaire_seul"
    mkdir -p "$dossier_binaire"
    install -m 755 "target/$binaire_seul/$PROFIL/vigie" "$dossier_binaire/vigie-$binaire_seul"
    dire "fini : $dossier_binaire/vigie-$binaire_seul (commit $(git rev-parse --short HEAD), $(rustc --version))"
    exit 0
fi
installer_outils
fixer_l_environnement
# « path+file:///…/vigie#0.1.0 » ou « …#vigie@0.1.0 » : la version est après le dernier # ou @.
pkgid=$(cargo pkgid --locked)
version=${pkgid##*[#@]}

rm -rf dist
mkdir dist
fabriquer_binaires
fabriquer_linux
fabriquer_windows
if [[ -n $binaires_macos ]]; then
    fabriquer_macos
fi
ecrire_sommes
ecrire_tailles

dire "fini : dist/ (commit $(git rev-parse --short HEAD), $(rustc --version), cargo-deb $VERSION_CARGO_DEB) ; les tailles : target/paquets/TAILLES.md"
