#!/usr/bin/env bash
# Vérifie ce que scripts/paquets.sh a mis dans dist/, comme le ferait quelqu'un qui n'a pas Rust :
#   - les sommes (sha256sum -c SHA256SUMS) ;
#   - le binaire : statique (ldd), il tourne, même seul dans un chroot vide ;
#   - le .deb : ses fichiers aux emplacements Debian, son binaire est celui de dist/ ;
#   - le .tar.gz : son contenu, daté et sans propriétaire, son binaire est celui de dist/ ;
#   - le .deb installé par dpkg dans un chroot Debian minimal neuf : vigie --version, man vigie,
#     la complétion bash, et vigie demo --graine 1 jusqu'au bilan, code 0.
#
# Usage : scripts/verifier-paquets.sh [--sans-chroot]
#
# Le chroot (Debian bookworm minimale, plus man-db et bash-completion) est créé par debootstrap
# au premier passage dans target/chroot-bookworm (VIGIE_CHROOT pour un autre dossier), puis
# réutilisé : vigie y est désinstallé avant chaque essai. Sans droits root ou sans debootstrap
# (ou avec --sans-chroot), le .deb est dépaqueté par dpkg -x et vérifié sur place. Le compte
# rendu est aussi écrit dans target/paquets/verification.txt.
set -euo pipefail

racine=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$racine"

echouer() {
    printf 'verifier-paquets.sh : %s\n' "$*" >&2
    exit 1
}
ok() { printf '✓ %s\n' "$*"; }

avec_chroot=oui
case "${1:-}" in
    --sans-chroot) avec_chroot=non ;;
    "") ;;
    *) echouer "argument inconnu « $1 » ; usage : scripts/verifier-paquets.sh [--sans-chroot]" ;;
esac
if [[ $avec_chroot == oui && ($EUID -ne 0 || -z "$(command -v debootstrap)") ]]; then
    echo "(pas de chroot : il faut être root et avoir debootstrap ; vérification par dpkg -x)"
    avec_chroot=non
fi

# Le seul fichier de dist/ qui répond au motif.
unique() {
    local motif=$1
    local trouves=()
    shopt -s nullglob
    # shellcheck disable=SC2206 # le motif est un glob, voulu.
    trouves=(dist/$motif)
    shopt -u nullglob
    [[ ${#trouves[@]} -eq 1 ]] ||
        echouer "dist/$motif : ${#trouves[@]} fichier(s) au lieu d'un ; lancez scripts/paquets.sh"
    printf '%s\n' "${trouves[0]}"
}

mkdir -p target/paquets
exec > >(tee target/paquets/verification.txt) 2>&1

[[ -f dist/SHA256SUMS ]] || echouer "dist/SHA256SUMS manque : lancez d'abord scripts/paquets.sh"
echo "Vérification de dist/ le $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), sur $(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release)"
binaire=$(unique 'vigie-*-linux-x86_64')
deb=$(unique 'vigie_*_amd64.deb')
archive=$(unique 'vigie-*-x86_64-unknown-linux-musl.tar.gz')
version=${binaire#dist/vigie-}
version=${version%-linux-x86_64}

# --- Les sommes --------------------------------------------------------------------------------
(cd dist && sha256sum --check --strict --quiet SHA256SUMS) || echouer "une somme ne correspond pas"
[[ "$(find dist -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | sort)" == "$(cut -c67- dist/SHA256SUMS)" ]] ||
    echouer "SHA256SUMS ne couvre pas exactement les fichiers de dist/"
ok "sha256sum -c SHA256SUMS : $(wc -l <dist/SHA256SUMS) fichiers, toutes les sommes correspondent"

# --- Le binaire statique -----------------------------------------------------------------------
ldd_dit=$(ldd "$binaire" 2>&1 | sed 's/^[[:space:]]*//' || true)
grep -qE 'not a dynamic executable|statically linked' <<<"$ldd_dit" ||
    echouer "$binaire n'est pas statique ; ldd dit : $ldd_dit"
ok "ldd $binaire : « $ldd_dit »"
[[ "$("$binaire" --version)" == "vigie $version" ]] || echouer "$binaire --version ne dit pas « vigie $version »"
ok "$binaire --version : « vigie $version » ($(stat -c %s "$binaire") octets)"
if [[ $EUID -eq 0 ]]; then
    vide=$(mktemp -d)
    install -m 755 "$binaire" "$vide/vigie"
    [[ "$(chroot "$vide" /vigie --version)" == "vigie $version" ]] ||
        echouer "$binaire ne tourne pas seul dans un chroot vide"
    rm -r "$vide"
    ok "seul dans un chroot vide (aucune bibliothèque, pas même /lib) : /vigie --version répond"
fi

# --- Le paquet Debian --------------------------------------------------------------------------
contenu_deb=$(dpkg-deb --contents "$deb" | awk '{print $NF}')
for attendu in ./usr/bin/vigie ./usr/share/man/man1/vigie.1.gz \
    ./usr/share/bash-completion/completions/vigie ./usr/share/zsh/vendor-completions/_vigie \
    ./usr/share/fish/vendor_completions.d/vigie.fish; do
    grep -qx -- "$attendu" <<<"$contenu_deb" || echouer "$deb ne contient pas $attendu"
done
ok "$deb contient le binaire, le manuel (gzip) et les complétions bash, zsh, fish aux emplacements Debian"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/vigie | cmp -s - "$binaire" ||
    echouer "le binaire du .deb n'est pas $binaire"
ok "le binaire du .deb est octet pour octet $binaire"
ok "champs du .deb : $(dpkg-deb --field "$deb" Package Version Architecture | paste -sd ' '), Depends : « $(dpkg-deb --field "$deb" Depends) » (binaire statique)"

# --- L'archive .tar.gz -------------------------------------------------------------------------
nom=$(basename "$archive" .tar.gz)
liste=$(tar -tzf "$archive")
attendue=$(printf '%s\n' "$nom/" "$nom/LISEZMOI.txt" "$nom/complete/" "$nom/complete/_vigie" \
    "$nom/complete/vigie.bash" "$nom/complete/vigie.fish" "$nom/vigie" "$nom/vigie.1")
[[ "$liste" == "$attendue" ]] || echouer "contenu inattendu de $archive :
$liste"
tar -tvzf "$archive" --numeric-owner | awk '{ if ($2 != "0/0") exit 1 }' ||
    echouer "$archive contient des fichiers qui n'appartiennent pas à 0/0"
dates=$(tar -tvzf "$archive" | awk '{print $4, $5}' | sort -u)
[[ $(wc -l <<<"$dates") -eq 1 ]] || echouer "les fichiers de $archive n'ont pas tous la même date"
tar -xzOf "$archive" "$nom/vigie" | cmp -s - "$binaire" || echouer "le binaire de $archive n'est pas $binaire"
ok "$archive : binaire (identique), manuel, complétions, LISEZMOI ; propriétaire 0/0, tous datés $dates"

# --- Le .deb installé -------------------------------------------------------------------------
# La même liste d'essais, dans le chroot (R vide) ou sur le .deb dépaqueté (R = son dossier).
essais_installe=$(
    cat <<'FIN'
set -euo pipefail
ok() { printf '✓ %s\n' "$*"; }
echouer() {
    printf 'verifier-paquets.sh : %s\n' "$*" >&2
    exit 1
}
[[ "$(command -v vigie)" == "$R/usr/bin/vigie" ]] || echouer "vigie n'est pas $R/usr/bin/vigie"
ok "vigie --version : « $(vigie --version) »"

manuel=$(MANPAGER=cat MANWIDTH=100 man vigie 2>&1) || echouer "man vigie a échoué : $manuel"
grep -q "CODES DE SORTIE" <<<"$manuel" || echouer "man vigie n'affiche pas la page : $manuel"
ok "man vigie affiche la page ($(wc -l <<<"$manuel") lignes ; NOM : « $(grep -m1 -A1 '^NOM' <<<"$manuel" | tail -1 | sed 's/^ *//') »)"

completion=$(
    set +euo pipefail
    if [[ -z $R && -r /usr/share/bash-completion/bash_completion ]]; then
        # Ce que fait bash-completion au premier <Tab> après « vigie » : chercher son fichier.
        source /usr/share/bash-completion/bash_completion
        _completion_loader vigie
    else
        source "$R/usr/share/bash-completion/completions/vigie"
    fi
    complete -p vigie
    COMP_WORDS=(vigie de) COMP_CWORD=1 COMP_LINE="vigie de" COMP_POINT=8
    _vigie vigie de vigie
    echo "vigie de<Tab> : ${COMPREPLY[*]}"
)
grep -q '^complete .*-F _vigie vigie$' <<<"$completion" || echouer "complétion bash absente : $completion"
grep 'vigie de<Tab> : ' <<<"$completion" | grep -qw demo ||
    echouer "la complétion bash ne propose pas demo : $completion"
ok "complétion bash : $(paste -sd ';' <<<"$completion" | sed 's/;/ ; /g')"

demo_dit=$(cd /tmp && vigie demo --graine 1 --progression jamais 2>&1) && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie demo --graine 1 sort en $code : $demo_dit"
bilan=$(grep -m1 "fichiers déposés" <<<"$demo_dit") || echouer "vigie demo --graine 1 : pas de bilan : $demo_dit"
ok "vigie demo --graine 1 : code 0, bilan « $bilan »"
FIN
)

if [[ $avec_chroot == oui ]]; then
    chroot_dir=${VIGIE_CHROOT:-target/chroot-bookworm}
    if [[ ! -x "$chroot_dir/usr/bin/dpkg" ]]; then
        echo "création du chroot $chroot_dir (debootstrap bookworm, quelques minutes)"
        mkdir -p "$chroot_dir"
        debootstrap --variant=minbase --include=man-db,bash-completion bookworm "$chroot_dir" >/dev/null
    fi
    # vigie demo se relance lui-même (/proc/self/exe) : le chroot a besoin de /proc.
    mount -t proc proc "$chroot_dir/proc"
    trap 'umount "$chroot_dir/proc"' EXIT
    dans_le_chroot() { chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
    # Ce que fait un naturaliste : apt install ./vigie_….deb, qui amène aussi ses dépendances.
    retirer_vigie() { dans_le_chroot apt-get purge -y -q --autoremove vigie >/dev/null 2>&1 || true; }
    retirer_vigie
    [[ ! -e "$chroot_dir/usr/bin/vigie" ]] || echouer "vigie est encore dans le chroot après apt-get purge"
    cp "$deb" "$chroot_dir/tmp/"
    apt_dit=$(dans_le_chroot apt-get update -q 2>&1) || echouer "apt-get update dans le chroot : $apt_dit"
    apt_dit=$(dans_le_chroot env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q "/tmp/$(basename "$deb")" 2>&1) ||
        echouer "apt-get install du .deb dans le chroot : $apt_dit"
    rm "$chroot_dir/tmp/$(basename "$deb")"
    ok "apt-get install ./$(basename "$deb") dans un chroot Debian $(cat "$chroot_dir/etc/debian_version") minimal (debootstrap --variant=minbase, plus man-db et bash-completion)"
    dans_le_chroot env R= bash -c "$essais_installe"
    retirer_vigie
    [[ ! -e "$chroot_dir/usr/bin/vigie" ]] || echouer "apt-get purge vigie a laissé /usr/bin/vigie"
    ok "apt-get purge --autoremove vigie : le chroot est rendu sans vigie"
else
    dossier=$(mktemp -d)
    trap 'rm -rf "$dossier"' EXIT
    dpkg-deb -x "$deb" "$dossier"
    ok "dpkg -x $(basename "$deb") dans $dossier"
    R=$dossier PATH="$dossier/usr/bin:$PATH" MANPATH="$dossier/usr/share/man" bash -c "$essais_installe"
fi
echo "Tout est vérifié."
