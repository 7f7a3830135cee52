#!/usr/bin/env bash
# Fabrique, depuis un clone propre, ce qu'on remet à un naturaliste qui n'a pas Rust. Dans dist/ :
#   vigie-VERSION-linux-x86_64                      le binaire Linux statique (musl) ;
#   vigie_VERSION-1_amd64.deb                       le paquet Debian (cargo deb) : binaire, manuel,
#                                                   complétions bash, zsh et fish ;
#   vigie-VERSION-x86_64-unknown-linux-musl.tar.gz  binaire, manuel, complétions, LISEZMOI ;
#   SHA256SUMS                                      les sommes de tout ce qui précède.
#
# Usage : scripts/paquets.sh
#
# Deux fabrications du même commit donnent les mêmes octets (vérifié par
# scripts/reproductibilite.sh, détails dans DISTRIBUTION.md) : la date des fichiers est celle du
# commit, les chemins de la machine sont retirés du binaire, les archives sont triées et sans
# propriétaire. Ce qui manque pour fabriquer (cible musl, musl-tools, cargo-deb) est installé.
# Rien ne sort de la machine : ni publication, ni téléversement.
set -euo pipefail

readonly CIBLE=x86_64-unknown-linux-musl
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

verifier_clone_propre() {
    if [[ -n "$(git status --porcelain --untracked-files=normal)" ]]; then
        git status --short >&2
        echouer "l'arbre a des modifications non commitées : les paquets ne correspondraient à aucun commit. Commitez-les ou mettez-les de côté (git stash), puis relancez."
    fi
}

installer_outils() {
    if ! rustup toolchain list | grep -q "^$CHAINE_RUST-"; then
        dire "installation de Rust $CHAINE_RUST"
        rustup toolchain install "$CHAINE_RUST" --profile minimal
    fi
    if ! rustup target list --installed | grep -qx "$CIBLE"; then
        dire "ajout de la cible Rust $CIBLE"
        rustup target add "$CIBLE"
    fi
    # Le code C des dépendances (SQLite, aws-lc, ring) se compile pour musl avec musl-gcc ; la
    # bibliothèque C est ensuite celle, statique, que Rust fournit avec sa cible musl.
    if ! command -v musl-gcc >/dev/null; then
        if [[ $EUID -ne 0 ]]; then
            echouer "musl-gcc manque : installez le paquet Debian musl-tools (sudo apt-get install musl-tools), puis relancez."
        fi
        dire "installation de musl-tools"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q musl-tools
    fi
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
    export CFLAGS_x86_64_unknown_linux_musl="-ffile-prefix-map=$racine=/vigie -ffile-prefix-map=$cargo_home=/cargo"
    export LC_ALL=C TZ=UTC
    umask 022
}

fabriquer_binaire() {
    dire "fabrication de vigie ($CIBLE, profil $PROFIL)"
    cargo build --locked --profile "$PROFIL" --target "$CIBLE"
}

# Une archive .tar.gz dont les octets ne dépendent que de son contenu : entrées triées, date du
# commit, propriétaire root, pas de nom ni de date dans l'en-tête gzip.
archiver_tar_gz() {
    local dossier_parent=$1 nom=$2 archive=$3
    tar --create --format=gnu --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
        --owner=0 --group=0 --numeric-owner --directory="$dossier_parent" "$nom" |
        gzip -n -9 >"$archive"
}

fabriquer_linux() {
    local binaire=target/$CIBLE/$PROFIL/vigie
    install -m 755 "$binaire" "dist/vigie-$version-linux-x86_64"

    dire "paquet Debian (cargo deb $VERSION_CARGO_DEB)"
    cargo deb --locked --no-build --profile "$PROFIL" --target "$CIBLE" --output dist/

    dire "archive Linux .tar.gz"
    local nom=vigie-$version-$CIBLE
    local depot=target/paquets/$nom
    rm -rf "$depot"
    install -d -m 755 "$depot" "$depot/complete"
    install -m 755 "$binaire" "$depot/vigie"
    install -m 644 man/vigie.1 "$depot/vigie.1"
    install -m 644 completions/vigie.bash completions/_vigie completions/vigie.fish "$depot/complete/"
    install -m 644 scripts/LISEZMOI-linux.txt "$depot/LISEZMOI.txt"
    archiver_tar_gz target/paquets "$nom" "dist/$nom.tar.gz"
}

ecrire_sommes() {
    dire "sommes SHA-256"
    (cd dist && sha256sum -- * >SHA256SUMS)
}

verifier_clone_propre
installer_outils
fixer_l_environnement
# « path+file:///…/vigie#0.1.0 » ou « …#vigie@0.1.0 » : la version est après le dernier # ou @.
pkgid=$(cargo pkgid --locked)
version=${pkgid##*[#@]}

rm -rf dist
mkdir dist
fabriquer_binaire
fabriquer_linux
# Windows (issue Windows) : quand vigie.exe se fabriquera ici et aura été vérifié sous wine64,
# sa fonction (vigie.exe, completions/_vigie.ps1, un LISEZMOI, en .zip daté du commit) s'appellera
# ici, à côté de fabriquer_linux ; ecrire_sommes couvre déjà tout dist/.
ecrire_sommes

dire "fini : dist/ (commit $(git rev-parse --short HEAD), $(rustc --version), cargo-deb $VERSION_CARGO_DEB)"
(cd dist && ls -l -- *) >&2
