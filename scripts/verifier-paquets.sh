#!/usr/bin/env bash
# Vérifie ce que scripts/paquets.sh a mis dans dist/, comme le ferait quelqu'un qui n'a pas Rust :
#   - les sommes (sha256sum -c SHA256SUMS) ;
#   - le binaire : statique (ldd), il tourne, même seul dans un chroot vide ;
#   - le .deb : ses fichiers aux emplacements Debian, son binaire est celui de dist/ ;
#   - le .tar.gz : son contenu, daté et sans propriétaire, son binaire est celui de dist/ ;
#   - le .zip Windows : son contenu, daté, textes pour le Bloc-notes ; vigie.exe n'importe que
#     des DLL du système (objdump -p) ; sous wine : vigie.exe --version, vigie.exe demo, puis un
#     vrai dépôt d'une petite nuit, depuis un lecteur E:, vers le bac à sable lancé par le binaire
#     Linux (plateforme Vigie-Chiro, puis S3) : code 0, objets identiques aux fichiers, et
#     vigie.exe etat et plans qui disent E:\… ; un WAV tenu sans partage par un autre programme
#     (scripts/tenir-fichier.rs) 10 s, puis jusqu'au bout ; les pièges de cmd (« "E:\…\" »,
#     un chemin avec espaces sans guillemets) ; les mots de Windows dans l'aide, le manuel et
#     les messages ;
#   - les .tar.gz macOS, s'il y en a (paquets.sh --macos) : contenu, binaires Mach-O ;
#   - le .deb installé par dpkg dans un chroot Debian minimal neuf : vigie --version, man vigie,
#     la complétion bash, et vigie demo --graine 1 jusqu'au bilan, code 0.
#
# Usage : scripts/verifier-paquets.sh [--sans-chroot]
#
# wine (wine64, préfixe jetable : scripts/wine.sh) est installé s'il manque, en root.
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

# Ce qu'il faut défaire en sortant, quoi qu'il arrive (dans l'ordre inverse) : a_defaire COMMANDE…
nettoyages=()
a_defaire() { nettoyages+=("$(printf '%q ' "$@")"); }
nettoyer() {
    local i
    for ((i = ${#nettoyages[@]} - 1; i >= 0; i--)); do
        eval "${nettoyages[i]}" || true
    done
}
trap nettoyer EXIT

mkdir -p target/paquets
exec > >(tee target/paquets/verification.txt) 2>&1

[[ -f dist/SHA256SUMS ]] || echouer "dist/SHA256SUMS manque : lancez d'abord scripts/paquets.sh"
echo "Vérification de dist/ le $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), sur $(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release)"
binaire=$(unique 'vigie-*-linux-x86_64')
deb=$(unique 'vigie_*_amd64.deb')
archive=$(unique 'vigie-*-x86_64-unknown-linux-musl.tar.gz')
zip_windows=$(unique 'vigie-*-x86_64-pc-windows-gnu.zip')
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

# --- L'archive Windows -------------------------------------------------------------------------
contenu_zip=$(unzip -Z1 "$zip_windows")
[[ "$contenu_zip" == "$(printf '%s\n' LISEZMOI.txt MANUEL.txt vigie-completion.ps1 vigie.exe)" ]] ||
    echouer "contenu inattendu de $zip_windows :
$contenu_zip"
dates_zip=$(unzip -Z -T "$zip_windows" | awk '/^-/ {print $7}' | sort -u)
[[ $(wc -l <<<"$dates_zip") -eq 1 ]] || echouer "les fichiers de $zip_windows n'ont pas tous la même date : $dates_zip"
windows=$(mktemp -d)
a_defaire rm -rf "$windows"
unzip -q "$zip_windows" -d "$windows"
for texte in LISEZMOI.txt MANUEL.txt vigie-completion.ps1; do
    [[ "$(head -c 3 "$windows/$texte" | od -An -tx1 | tr -d ' ')" == efbbbf ]] ||
        echouer "$texte n'a pas de BOM UTF-8 (le Bloc-notes et PowerShell 5.1 liraient mal les accents)"
    ! grep -q $'[^\r]$' "$windows/$texte" || echouer "$texte a des fins de ligne sans CR"
done
ok "$zip_windows : vigie.exe, LISEZMOI.txt, MANUEL.txt ($(wc -l <"$windows/MANUEL.txt") lignes), vigie-completion.ps1 ; tous datés $dates_zip ; textes en UTF-8 avec BOM et fins de ligne CRLF"

# Ce qu'importe vigie.exe : rien que des DLL que tout Windows 10 ou 11 a. libwinpthread-1.dll,
# libgcc_s_seh-1.dll ou libstdc++-6.dll (le gcc de mingw-w64) manqueraient chez l'utilisateur.
exe=$windows/vigie.exe
entete=$(objdump -p "$exe")
grep -q 'file format pei-x86-64' <<<"$entete" || echouer "vigie.exe n'est pas un exécutable Windows 64 bits"
grep -Eq '^Subsystem[[:space:]]+0+3[[:space:]]' <<<"$entete" || echouer "vigie.exe n'est pas un programme console"
dll=$(sed -n 's/^[[:space:]]*DLL Name: //p' <<<"$entete" | sort -fu)
[[ -n $dll ]] || echouer "objdump -p ne trouve aucune DLL importée dans vigie.exe"
systeme='^(api-ms-win-[a-z0-9-]+|advapi32|bcrypt|bcryptprimitives|combase|crypt32|iphlpapi|kernel32|msvcrt|ncrypt|ntdll|ole32|oleaut32|secur32|shell32|user32|userenv|ws2_32)\.dll$'
hors_systeme=$(grep -Eiv "$systeme" <<<"$dll" || true)
[[ -z $hors_systeme ]] || echouer "vigie.exe importe des DLL qui ne sont pas celles du système : $hors_systeme"
ok "objdump -p vigie.exe : exécutable console PE32+ x86-64, n'importe que des DLL du système : $(paste -sd ' ' <<<"$dll")"

# vigie.exe se présente (build.rs) : dans ses ressources, l'icône (types 3 et 14), les
# informations de version (16 : celle de Cargo.toml, le nom, l'éditeur) et le manifeste (24 :
# chemins longs, page de code UTF-8, Windows 10 et 11).
types=$(sed -n '/^The .rsrc Resource Directory section/,$p' <<<"$entete" |
    sed -n 's/^0[0-9a-f]*   Entry: ID: 0x0000\([0-9a-f]*\), .*/\1/p' | paste -sd ' ')
for attendu in 03 0e 10 18; do
    grep -qw "$attendu" <<<"$types" ||
        echouer "vigie.exe n'a pas de ressource de type 0x$attendu (3 icône, e groupe d'icônes, 10 version, 18 manifeste) ; types : $types"
done
# (strings -el ne lit que l'ASCII en UTF-16 : « Équipe » y perd son É.)
textes=$(strings -el "$exe")
for attendu in "$version" vigie.exe "quipe vigie"; do
    grep -qxF "$attendu" <<<"$textes" || echouer "les informations de version de vigie.exe ne disent pas « $attendu »"
done
for attendu in '<longPathAware xmlns="http://schemas.microsoft.com/SMI/2016/WindowsSettings">true</longPathAware>' \
    '<activeCodePage xmlns="http://schemas.microsoft.com/SMI/2019/WindowsSettings">UTF-8</activeCodePage>' \
    '{8e0f7a12-bfb3-4fe8-b9a5-48fd50a15a9a}'; do
    grep -aqF "$attendu" "$exe" || echouer "le manifeste de vigie.exe ne dit pas $attendu"
done
ok "objdump -p vigie.exe : ressources icône, version ($version, « Équipe vigie ») et manifeste (longPathAware, activeCodePage UTF-8, Windows 10 et 11) ; types $types"

# vigie.exe sous wine (scripts/wine.sh : préfixe jetable).
# shellcheck source=scripts/wine.sh
source "$racine/scripts/wine.sh"
preparer_wine
a_defaire fermer_wine
wine_version=$("$WINE64" --version)
vigie_exe() { "$WINE64" "$exe" "$@"; }
[[ "$(vigie_exe --version | tr -d '\r')" == "vigie $version" ]] ||
    echouer "vigie.exe --version ne dit pas « vigie $version » sous $wine_version"
ok "sous $wine_version : vigie.exe --version : « vigie $version » ($(stat -c %s "$exe") octets)"
demo_dit=$(cd /tmp && vigie_exe demo --graine 1 --progression jamais 2>&1) && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe demo --graine 1 sort en $code sous wine : $demo_dit"
bilan=$(grep -m1 "^Saison : .*fichiers déposés" <<<"$demo_dit" | tr -d '\r') || echouer "vigie.exe demo : pas de bilan : $demo_dit"
grep -q "Démonstration réussie" <<<"$demo_dit" || echouer "vigie.exe demo : pas de « Démonstration réussie » : $demo_dit"
ok "vigie.exe demo --graine 1 : code 0, bilan « $bilan »"

# Un vrai dépôt : le bac à sable (plateforme Vigie-Chiro et S3) lancé par le binaire Linux, une
# petite nuit sur un lecteur E: (le dossier « carte » ci-dessous, comme une carte SD), vigie.exe
# qui dépose avec sa base à sa place par défaut (%LOCALAPPDATA%\vigie du préfixe wine).
command -v jq >/dev/null || { apt-get install -y -qq jq >/dev/null || echouer "jq manque (apt-get install jq)"; }
travail=$(mktemp -d)
a_defaire rm -rf "$travail"
pid_bac=
arreter_bac() {
    [[ -n $pid_bac ]] && kill "$pid_bac" 2>/dev/null && wait "$pid_bac" 2>/dev/null
}
a_defaire arreter_bac
# Lance le bac à sable (ARGUMENTS… en plus : des pannes) ; pose pid_bac et pret (sa ligne JSON).
lancer_bac() {
    local n=$((${n_bac:-0} + 1))
    n_bac=$n
    "$binaire" bac-a-sable --port 0 --json --dossier "$travail/bac$n" "$@" \
        >"$travail/bac$n.json" 2>"$travail/bac$n.err" &
    pid_bac=$!
    for _ in $(seq 300); do
        [[ -s $travail/bac$n.json ]] && break
        kill -0 "$pid_bac" 2>/dev/null || echouer "le bac à sable s'est arrêté : $(cat "$travail/bac$n.err")"
        sleep 0.1
    done
    pret=$(head -n 1 "$travail/bac$n.json")
    [[ "$(jq -r .evenement <<<"$pret")" == pret ]] || echouer "le bac à sable n'a pas annoncé « pret » : $pret"
}
# Ctrl-C : le bac à sable s'arrête proprement, code 0.
fermer_bac() {
    kill -INT "$pid_bac"
    wait "$pid_bac" || echouer "le bac à sable ne s'est pas arrêté proprement sur Ctrl-C : $(cat "$travail/bac$n_bac.err")"
    pid_bac=
}
champ() { jq -r "$1" <<<"$pret"; }
lancer_bac
donnees_s3=$(champ .donnees_s3)
# Une séquence WAV (PCM 16 bits mono, en-tête à 38 400 Hz : l'expansion de temps ×10 d'un
# Passive Recorder) de TAILLE octets en tout, aux échantillons tirés au hasard, que la garde de
# format (src/garde.rs) laisse partir vers la plateforme : wav FICHIER TAILLE.
# shellcheck disable=SC2059 # le format est fait d'octets \xNN, voulu.
le32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
# shellcheck disable=SC2059
le16() { printf "$(printf '\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)))"; }
wav() {
    local donnees=$(($2 - 44))
    {
        printf 'RIFF'
        le32 $((36 + donnees))
        printf 'WAVEfmt '
        le32 16
        le16 1
        le16 1
        le32 38400
        le32 76800
        le16 2
        le16 16
        printf 'data'
        le32 "$donnees"
        head -c "$donnees" /dev/urandom
    } >"$1"
}
nuit=2026-06-21
carte=$travail/carte
mkdir -p "$carte/$nuit/Pass1"
titres=()
for i in 1 2 3 4; do
    titres+=("$(printf 'Car640139-2026-Pass1-A1-OB-1_20260621_22%04d_000.wav' "$i")")
done
# Deux petits fichiers à la racine de la nuit ; un de 7 Mio, envoyé en plusieurs parties, dans
# un sous-dossier (E:\2026-06-21\Pass1\…, qui part avec « / » dans la clé S3).
wav "$carte/$nuit/${titres[0]}" 2000
wav "$carte/$nuit/${titres[1]}" 150000
wav "$carte/$nuit/Pass1/${titres[2]}" $((7 * 1024 * 1024))
fichiers_nuit=("${titres[0]}" "${titres[1]}" "Pass1/${titres[2]}")
# Une autre nuit, dont le fichier est au bout d'un chemin Windows de plus de 260 caractères.
# Vers la plateforme seulement, dont la clé ne garde que le nom : le S3 du bac à sable (s3s-fs)
# range chaque objet à côté d'un fichier dont le nom encode la clé entière, et refuse (500)
# une clé de plus de 180 octets environ.
nuit_longue=2026-06-22
profond=Pass1/$(printf 'x%.0s' {1..100})/$(printf 'y%.0s' {1..100})
mkdir -p "$carte/$nuit_longue/$profond"
wav "$carte/$nuit_longue/$profond/${titres[3]}" 3000
long="E:\\$nuit_longue\\${profond//\//\\}\\${titres[3]}"
[[ ${#long} -gt 260 ]] || echouer "le chemin long ne l'est pas : ${#long} caractères"
ln -s "$carte" "$WINEPREFIX/dosdevices/e:"
environnement=(env VIGIE_JETON="$(champ .jeton)" AWS_ACCESS_KEY_ID="$(champ .cle_acces)"
    AWS_SECRET_ACCESS_KEY="$(champ .secret)" AWS_REGION="$(champ .region)")

depot_dit=$(cd /tmp && "${environnement[@]}" "$WINE64" "$exe" depot "E:\\$nuit" \
    --participation "$(champ .participation)" --api "$(champ .api)" --progression jamais 2>&1) &&
    code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe depot vers la plateforme du bac à sable sort en $code : $depot_dit"
# La plateforme range le fichier sous « …pa-PARTICIPATION/TITRE » (titre : le nom seul).
verifier_sur_la_plateforme() {
    local fichier=$1 objet
    objet=$(find "$donnees_s3" -type f -path "*/pa-$(champ .participation)/$(basename "$fichier")" | head -n 1)
    [[ -n $objet ]] || echouer "$(basename "$fichier") n'est pas sur la plateforme du bac à sable : $depot_dit"
    cmp -s "$objet" "$fichier" || echouer "$(basename "$fichier") déposé par vigie.exe diffère du fichier"
}
for f in "${fichiers_nuit[@]}"; do
    verifier_sur_la_plateforme "$carte/$nuit/$f"
done
ok "vigie.exe depot E:\\$nuit --participation … (plateforme Vigie-Chiro du bac à sable lancé par $(basename "$binaire")) : code 0, 3 fichiers identiques sur la plateforme, dont un de 7 Mio en plusieurs parties ; « $(grep -m1 'fichiers déposés' <<<"$depot_dit" | tr -d '\r') »"

depot_dit=$(cd /tmp && "${environnement[@]}" "$WINE64" "$exe" depot "E:\\$nuit_longue" \
    --participation "$(champ .participation)" --api "$(champ .api)" --progression jamais 2>&1) &&
    code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe depot d'un chemin de ${#long} caractères sort en $code : $depot_dit"
verifier_sur_la_plateforme "$carte/$nuit_longue/$profond/${titres[3]}"
ok "vigie.exe depot E:\\$nuit_longue, un fichier dont le chemin a ${#long} caractères : code 0, identique sur la plateforme"

depot_dit=$(cd /tmp && "${environnement[@]}" "$WINE64" "$exe" depot "E:\\$nuit" \
    --vers "s3://$(champ .compartiment)/windows" --endpoint-url "$(champ .endpoint)" \
    --progression jamais 2>&1) && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe depot vers le S3 du bac à sable sort en $code : $depot_dit"
for f in "${fichiers_nuit[@]}"; do
    cmp -s "$donnees_s3/$(champ .compartiment)/windows/$f" "$carte/$nuit/$f" ||
        echouer "s3://$(champ .compartiment)/windows/$f absent ou différent du fichier : $depot_dit"
done
ok "vigie.exe depot E:\\$nuit --vers s3://$(champ .compartiment)/windows (S3 du même bac à sable) : code 0, 3 objets identiques, clé en « / » (windows/Pass1/…)"

etat_dit=$(cd /tmp && "$WINE64" "$exe" etat 2>&1 | tr -d '\r') && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe etat sort en $code : $etat_dit"
grep -qF "E:\\$nuit" <<<"$etat_dit" || echouer "vigie.exe etat ne nomme pas E:\\$nuit : $etat_dit"
plans_dit=$(cd /tmp && "$WINE64" "$exe" plans 2>&1 | tr -d '\r') && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe plans sort en $code : $plans_dit"
[[ $(grep -cF "E:\\$nuit" <<<"$plans_dit") -ge 2 ]] || echouer "vigie.exe plans ne nomme pas E:\\$nuit : $plans_dit"
ok "vigie.exe etat et vigie.exe plans nomment la nuit E:\\$nuit (base dans %LOCALAPPDATA%\\vigie du préfixe wine)"
absent_dit=$(cd /tmp && "${environnement[@]}" "$WINE64" "$exe" depot 'E:\absente' --vers "s3://$(champ .compartiment)/x" \
    --endpoint-url "$(champ .endpoint)" 2>&1 | tr -d '\r') && code=0 || code=$?
[[ $code -eq 2 ]] || echouer "vigie.exe depot E:\\absente sort en $code (attendu 2) : $absent_dit"
grep -qF 'E:\absente' <<<"$absent_dit" || echouer "l'erreur ne nomme pas E:\\absente : $absent_dit"
ok "vigie.exe depot E:\\absente : code 2, « $(head -n 1 <<<"$absent_dit") »"

# Dans le dossier de vigie.exe, comme la bénévole qui l'a décompressé et y a ouvert PowerShell :
# vigie.exe y est lancé par son chemin complet (ce que fait PowerShell), et ses conseils
# commencent par .\vigie.exe. cmd_windows LIGNE : la LIGNE telle que tapée dans cmd.exe (écrite
# dans un .cmd, que cmd lit tel quel), qui la passe au programme sans la redécouper : les
# guillemets y suivent la règle de Windows.
dans_windows() { (cd "$windows" && "${environnement[@]}" "$WINE64" "$@"); }
cmd_windows() {
    printf '@%s\r\n' "$1" >"$windows/ligne.cmd"
    (cd "$windows" && "${environnement[@]}" "$WINE64" cmd /c ligne.cmd)
}
# Tout ce que vigie.exe écrit ici, pour y chercher les mots d'Unix à la fin.
sorties_windows=$travail/sorties-windows.txt

# Un WAV tenu ouvert sans partage par un autre programme (un lecteur audio, l'aperçu de
# l'explorateur, un antivirus) : tenir-fichier.exe (scripts/tenir-fichier.rs, compilé ici pour
# Windows) le tient 10 s, puis, une autre fois, jusqu'au bout.
tenir_exe=$travail/tenir-fichier.exe
rustc --edition 2024 --target x86_64-pc-windows-gnu -O scripts/tenir-fichier.rs -o "$tenir_exe" ||
    echouer "tenir-fichier.exe ne se compile pas"
nuit_tenue() {
    local dossier=$carte/$1 i
    mkdir -p "$dossier"
    for i in 1 2 3; do
        wav "$dossier/$(printf 'Car640139-2026-Pass1-A1-OB-1_20260621_%s%02d_000.wav' "$2" "$i")" 300000
    done
}
# tenir FICHIER SECONDES : pose pid_tenir, une fois le fichier tenu.
tenir() {
    "$WINE64" "$tenir_exe" "$1" "$2" >"$travail/tenir.out" 2>&1 &
    pid_tenir=$!
    for _ in $(seq 300); do
        grep -qs tenu "$travail/tenir.out" && return 0
        kill -0 "$pid_tenir" 2>/dev/null || break
        sleep 0.1
    done
    echouer "tenir-fichier.exe n'a pas tenu $1 : $(cat "$travail/tenir.out")"
}
a_defaire kill_tenir
kill_tenir() {
    [[ -n ${pid_tenir:-} ]] || return 0
    kill "$pid_tenir" 2>/dev/null || true
    wait "$pid_tenir" 2>/dev/null || true
    pid_tenir=
}

nuit_tenue tenue 2300
tenu=Car640139-2026-Pass1-A1-OB-1_20260621_230001_000.wav
tenir "E:\\tenue\\$tenu" 10
dans_windows "$windows/vigie.exe" depot 'E:\tenue' --participation "$(champ .participation)" \
    --api "$(champ .api)" --json >"$travail/tenue.json" 2>"$travail/tenue.err" && code=0 || code=$?
kill_tenir
cat "$travail/tenue.err" >>"$sorties_windows"
[[ $code -eq 0 ]] || echouer "un WAV tenu 10 s : vigie.exe depot sort en $code : $(cat "$travail/tenue.json" "$travail/tenue.err")"
deposes=$(jq -r 'select(.evenement == "unite_deposee") | .unite' "$travail/tenue.json")
[[ $(wc -l <<<"$deposes") -eq 3 && $(tail -n 1 <<<"$deposes") == "$tenu" ]] ||
    echouer "un WAV tenu 10 s : les autres devaient partir avant lui : $deposes"
attentes=$(jq -r --arg u "$tenu" 'select(.evenement == "nouvelle_tentative" and .unite == $u) | .tentative' "$travail/tenue.json" | wc -l)
[[ $attentes -ge 1 ]] || echouer "un WAV tenu 10 s n'a pas été attendu : $(cat "$travail/tenue.json")"
for f in "$carte"/tenue/*.wav; do verifier_sur_la_plateforme "$f"; done
ok "un WAV tenu 10 s sans partage par tenir-fichier.exe : attendu ($attentes nouvelles tentatives), déposé quand il se libère, les deux autres partis avant lui, code 0"

nuit_tenue tenue-toujours 2330
tenu=Car640139-2026-Pass1-A1-OB-1_20260621_233001_000.wav
tenir "E:\\tenue-toujours\\$tenu" 600
tenu_dit=$(dans_windows "$windows/vigie.exe" depot 'E:\tenue-toujours' --participation "$(champ .participation)" \
    --api "$(champ .api)" --progression jamais 2>&1 | tr -d '\r') && code=0 || code=$?
kill_tenir
printf '%s\n' "$tenu_dit" >>"$sorties_windows"
[[ $code -eq 1 ]] || echouer "un WAV tenu jusqu'au bout : vigie.exe depot sort en $code (attendu 1) : $tenu_dit"
ligne_tenu=$(grep -F "$tenu" <<<"$tenu_dit" | grep -F 'ouvert par un autre programme' | grep -F 'fermez-le') ||
    echouer "un WAV tenu jusqu'au bout : le message ne nomme pas $tenu en mots de Windows : $tenu_dit"
grep -q '^Ensuite : \.\\vigie\.exe ' <<<"$tenu_dit" || echouer "le conseil ne commence pas par .\\vigie.exe : $tenu_dit"
ok "un WAV tenu jusqu'au bout : code 1, « ${ligne_tenu#"${ligne_tenu%%[![:space:]]*}"} » ; « $(grep -m1 '^Ensuite' <<<"$tenu_dit") »"

# Les pièges de la ligne de commande, dans cmd.exe : "…\" colle la suite au chemin ; un chemin
# avec espaces sans guillemets arrive en plusieurs morceaux. Le message dit quoi retaper.
mkdir -p "$carte/Releves Zoe/Carte SD 2026"
retaper='.\vigie.exe depot "E:\Releves Zoe\Carte SD 2026" --simulation'
piege_dit=$(cmd_windows '.\vigie.exe depot "E:\Releves Zoe\Carte SD 2026\" --simulation' 2>&1 | tr -d '\r') && code=0 || code=$?
printf '%s\n' "$piege_dit" >>"$sorties_windows"
if [[ $code -ne 2 ]] || ! grep -qF "Retapez, sans barre oblique finale dans les guillemets : $retaper" <<<"$piege_dit"; then
    echouer "« \"E:\\…\\Carte SD 2026\\\" --simulation » dans cmd (code $code) ne dit pas quoi retaper : $piege_dit"
fi
ok "cmd : .\\vigie.exe depot \"E:\\Releves Zoe\\Carte SD 2026\\\" --simulation : code 2, « …Retapez, sans barre oblique finale dans les guillemets : $retaper »"
piege_dit=$(cmd_windows '.\vigie.exe depot E:\Releves Zoe\Carte SD 2026 --simulation' 2>&1 | tr -d '\r') && code=0 || code=$?
printf '%s\n' "$piege_dit" >>"$sorties_windows"
if [[ $code -ne 2 ]] || ! grep -qF "Retapez : $retaper" <<<"$piege_dit"; then
    echouer "« E:\\Releves Zoe\\Carte SD 2026 » sans guillemets dans cmd (code $code) ne dit pas quoi retaper : $piege_dit"
fi
ok "cmd : .\\vigie.exe depot E:\\Releves Zoe\\Carte SD 2026 --simulation : code 2, « …Retapez : $retaper »"

# Windows à la souris : vigie.exe lancé comme par l'explorateur de fichiers, dans une console
# neuve à lui seul (scripts/lancer-comme-l-explorateur.rs) ; son entrée est un tube (fifo) que
# le script tient ouvert et où il écrit ce que la bénévole taperait. Double-cliqué : un court
# guide, pas l'aide complète, puis il attend Entrée. Un dossier déposé sur l'icône (son chemin
# en seul argument), sans jeton enregistré : le jeton demandé, le dossier déposé (en saison)
# vers la plateforme du bac à sable, puis il attend Entrée.
explorateur_exe=$travail/lancer-comme-l-explorateur.exe
rustc --edition 2024 --target x86_64-pc-windows-gnu -O scripts/lancer-comme-l-explorateur.rs -o "$explorateur_exe" ||
    echouer "lancer-comme-l-explorateur.exe ne se compile pas"
# a_la_souris SORTIE ARGUMENT… : lance vigie.exe ARGUMENT… comme l'explorateur, sans VIGIE_JETON,
# l'API du bac à sable dans VIGIE_API ; pose pid_souris ; le descripteur 3 écrit à son entrée.
a_la_souris() {
    local sortie=$1
    shift
    rm -f "$travail/entree"
    mkfifo "$travail/entree"
    (cd "$windows" && env -u VIGIE_JETON VIGIE_API="$(champ .api)" \
        "$WINE64" "$explorateur_exe" "$windows/vigie.exe" "$@" <"$travail/entree" >"$sortie" 2>&1) &
    pid_souris=$!
    exec 3>"$travail/entree"
}
# attendre_entree SORTIE : vigie.exe demande Entrée, et l'attend encore deux secondes après
# (l'entrée est restée ouverte : il se fermerait s'il n'attendait pas) ; Entrée ; son code.
attendre_entree() {
    for _ in $(seq 1200); do
        grep -qs 'Appuyez sur Entrée' "$1" && break
        kill -0 "$pid_souris" 2>/dev/null || break
        sleep 0.1
    done
    grep -qs 'Appuyez sur Entrée' "$1" || echouer "vigie.exe lancé par l'explorateur ne demande pas Entrée : $(cat "$1")"
    sleep 2
    kill -0 "$pid_souris" 2>/dev/null || echouer "vigie.exe lancé par l'explorateur s'est fermé sans attendre Entrée : $(cat "$1")"
    printf '\r\n' >&3
    exec 3>&-
    wait "$pid_souris" && code=0 || code=$?
    pid_souris=
}
a_defaire arreter_souris
arreter_souris() {
    [[ -n ${pid_souris:-} ]] || return 0
    kill "$pid_souris" 2>/dev/null || true
    wait "$pid_souris" 2>/dev/null || true
}

a_la_souris "$travail/guide.txt"
attendre_entree "$travail/guide.txt"
tr -d '\r' <"$travail/guide.txt" >>"$sorties_windows"
[[ $code -eq 0 ]] || echouer "vigie.exe double-cliqué sort en $code : $(cat "$travail/guide.txt")"
grep -q "faites glisser le dossier" "$travail/guide.txt" || echouer "vigie.exe double-cliqué ne montre pas le guide : $(cat "$travail/guide.txt")"
! grep -qE 'Les commandes de tous les jours|Codes de sortie|Utilisation :' "$travail/guide.txt" ||
    echouer "vigie.exe double-cliqué écrit l'aide : $(cat "$travail/guide.txt")"
ok "vigie.exe double-cliqué (console à lui seul) : un guide de $(wc -l <"$travail/guide.txt") lignes, pas l'aide, puis il attend Entrée ; code 0"

souris=$carte/souris
mkdir -p "$souris"
for i in 1 2 3; do
    wav "$souris/$(printf 'Car640139-2026-Pass1-A1-OB-1_20260710_22%02d00_000.wav' "$i")" 20000
done
a_la_souris "$travail/souris.txt" 'E:\souris'
printf '%s\r\n' "$(champ .jeton)" >&3
attendre_entree "$travail/souris.txt"
souris_dit=$(tr -d '\r' <"$travail/souris.txt")
printf '%s\n' "$souris_dit" >>"$sorties_windows"
[[ $code -eq 0 ]] || echouer "un dossier déposé sur vigie.exe : code $code : $souris_dit"
grep -q '^Connecté en tant que' <<<"$souris_dit" || echouer "un dossier déposé sans jeton : le jeton n'a pas été demandé : $souris_dit"
! grep -qF "$(champ .jeton)" <<<"$souris_dit" || echouer "le jeton est écrit à l'écran : $souris_dit"
for f in "$souris"/*.wav; do
    objet=$(find "$donnees_s3" -type f -name "$(basename "$f")" | head -n 1)
    if [[ -z $objet ]] || ! cmp -s "$objet" "$f"; then
        echouer "$(basename "$f"), déposé sur l'icône, absent ou différent sur la plateforme : $souris_dit"
    fi
done
ok "E:\souris déposé sur l'icône de vigie.exe (seul argument, console à lui seul), sans jeton : jeton demandé et enregistré, 3 fichiers identiques sur la plateforme (saison), puis il attend Entrée ; code 0 ; « $(grep -m1 'fichiers déposés' <<<"$souris_dit") »"

# Hors de l'explorateur (ici, sans console : une redirection), rien ne change : vigie.exe seul
# écrit le premier écran et se ferme ; un dossier seul est une erreur d'usage.
seul_dit=$(dans_windows "$windows/vigie.exe" </dev/null 2>&1 | tr -d '\r') && code=0 || code=$?
if [[ $code -ne 0 ]] || ! grep -q 'Les commandes de tous les jours' <<<"$seul_dit" ||
    grep -q 'Appuyez sur Entrée' <<<"$seul_dit"; then
    echouer "vigie.exe seul, hors de l'explorateur (code $code) : $seul_dit"
fi
seul_dit=$(dans_windows "$windows/vigie.exe" 'E:\souris' </dev/null 2>&1 | tr -d '\r') && code=0 || code=$?
[[ $code -eq 2 ]] || echouer "vigie.exe E:\souris, hors de l'explorateur, sort en $code (attendu 2) : $seul_dit"
ok "hors de l'explorateur, rien ne change : vigie.exe seul écrit le premier écran (code 0, sans attendre), vigie.exe E:\souris est une erreur d'usage (code 2)"

# Les mots de Windows : l'aide, le manuel (MANUEL.txt) et tout ce que vigie.exe a écrit
# ci-dessus ne disent ni XDG, ni 0600, ni chmod, ni export, ni ~/.
for c in "" depot retenter-echecs verifier etat plans connexion traiter traitement resultats renommer demo bac-a-sable; do
    # shellcheck disable=SC2086 # c vide : l'aide de vigie.exe lui-même.
    dans_windows "$windows/vigie.exe" $c --help >>"$sorties_windows" 2>&1 || true
done
mots_unix=$(cat "$sorties_windows" "$windows/MANUEL.txt" | grep -noE 'XDG|0600|chmod|export |~/' || true)
[[ -z $mots_unix ]] || echouer "des mots d'Unix dans la version Windows : $mots_unix"
ok "ni XDG, ni 0600, ni chmod, ni export, ni ~/ dans l'aide de vigie.exe, MANUEL.txt et les messages ci-dessus ($(wc -l <"$sorties_windows") lignes)"
fermer_bac

# La carte retirée pendant le dépôt, puis remise : le lecteur E: disparaît (son lien dans le
# préfixe wine est retiré) pendant que vigie.exe attend de rejouer un 503, puis revient.
lancer_bac --pannes 'PutObject#1=503:retry-after=3'
donnees_s3=$(champ .donnees_s3)
"${environnement[@]}" "$WINE64" "$exe" depot "E:\\$nuit" --vers "s3://$(champ .compartiment)/carte" \
    --endpoint-url "$(champ .endpoint)" --json >"$travail/carte.json" 2>"$travail/carte.err" &
pid_depot=$!
attendre_evenement() {
    for _ in $(seq 600); do
        grep -qs "\"evenement\":\"$1\"" "$travail/carte.json" && return 0
        kill -0 "$pid_depot" 2>/dev/null || break
        sleep 0.1
    done
    echouer "vigie.exe depot n'a pas annoncé $1 : $(cat "$travail/carte.json" "$travail/carte.err")"
}
attendre_evenement nouvelle_tentative
rm "$WINEPREFIX/dosdevices/e:"
attendre_evenement nuit_indisponible
ln -s "$carte" "$WINEPREFIX/dosdevices/e:"
attendre_evenement nuit_retrouvee
wait "$pid_depot" && code=0 || code=$?
[[ $code -eq 0 ]] || echouer "vigie.exe depot, carte retirée puis remise, sort en $code : $(cat "$travail/carte.json" "$travail/carte.err")"
! grep -q '"evenement":"unite_en_echec"' "$travail/carte.json" ||
    echouer "un fichier de la carte retirée est marqué en échec : $(cat "$travail/carte.json")"
for f in "${fichiers_nuit[@]}"; do
    cmp -s "$donnees_s3/$(champ .compartiment)/carte/$f" "$carte/$nuit/$f" ||
        echouer "s3://$(champ .compartiment)/carte/$f absent ou différent du fichier"
done
ok "le lecteur E: retiré pendant le dépôt puis remis : nuit_indisponible ($(jq -r 'select(.evenement == "nuit_indisponible") | .dossier' "$travail/carte.json")), nuit_retrouvee, code 0, aucun échec, 3 objets identiques"
fermer_bac

# --- Les archives macOS (paquets.sh --macos) ---------------------------------------------------
shopt -s nullglob
archives_macos=(dist/vigie-*-apple-darwin.tar.gz)
shopt -u nullglob
for archive_mac in "${archives_macos[@]}"; do
    nom_mac=$(basename "$archive_mac" .tar.gz)
    liste_mac=$(tar -tzf "$archive_mac")
    [[ "$liste_mac" == "${attendue//$nom/$nom_mac}" ]] || echouer "contenu inattendu de $archive_mac :
$liste_mac"
    [[ "$(tar -xzOf "$archive_mac" "$nom_mac/vigie" | head -c 4 | od -An -tx1 | tr -d ' ')" == cffaedfe ]] ||
        echouer "le binaire de $archive_mac n'est pas un Mach-O 64 bits"
    ok "$archive_mac : binaire Mach-O 64 bits, manuel, complétions, LISEZMOI (non lancé : pas de Mac ici)"
done

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
bilan=$(grep -m1 "^Saison : .*fichiers déposés" <<<"$demo_dit") || echouer "vigie demo --graine 1 : pas de bilan : $demo_dit"
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
    a_defaire umount "$chroot_dir/proc"
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
    a_defaire rm -rf "$dossier"
    dpkg-deb -x "$deb" "$dossier"
    ok "dpkg -x $(basename "$deb") dans $dossier"
    R=$dossier PATH="$dossier/usr/bin:$PATH" MANPATH="$dossier/usr/share/man" bash -c "$essais_installe"
fi
echo "Tout est vérifié."
