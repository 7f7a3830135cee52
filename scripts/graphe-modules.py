#!/usr/bin/env python3
"""Le graphe des dépendances entre fichiers des deux crates de l'espace de travail (`src/`,
l'outil, et `crates/vigie-bac-a-sable/src/`, le bac à sable), ses cycles, et le sens des
flèches de `src/` entre les couches d'ARCHITECTURE.md.

Lit les chemins `crate::…` et `super::…` de chaque fichier (dans les `use` comme dans le code,
les tests unitaires exclus : `#[cfg(test)] mod tests { … }` comme les fichiers des modules
`#[cfg(test)] mod x;`), les rattache au fichier qui définit le module visé, et cherche les
cycles, dans chaque crate : entre fichiers (composantes fortement connexes de plus d'un
fichier), et entre modules de premier niveau (`operation` regarde `vigiechiro`, dont un fichier
regarde `operation`). Déclarer un sous-module (`mod x;`) ou le réexporter (`pub use x::…`)
n'est pas en dépendre : c'est le contenir.

Puis le sens : ARCHITECTURE.md range les modules de premier niveau (`depot`, `suivi`,
`texte`…) en couches, de haut en bas, dans son bloc ```couches```. Un fichier ne regarde que
son propre module ou un module d'une couche plus basse ; une flèche vers la même couche (autre
module) ou vers le haut est une faute, comme un module que le bloc ne range pas. La racine
(`lib.rs`) et le binaire (`main.rs`) sont hors couches.

Enfin la carte : chaque fichier de `src/` est nommé dans ARCHITECTURE.md par son chemin depuis
`src/` (`saison/horloge.rs` ; un dossier `x/` nomme son `x/mod.rs`), les modules d'essais
(`#[cfg(test)] mod x;`) exceptés ; et chaque chemin qu'elle nomme (`….rs`, `…/`) existe, dans
`src/` ou depuis la racine du dépôt, comme chaque module de son bloc ```couches```.

Le bac à sable n'a pas de couches : sa seule règle est l'absence de cycle.

Sort en 1 s'il y a un cycle (dans l'un ou l'autre crate), une flèche qui remonte, un module
sans couche, ou une carte qui ne dit pas vrai.

    scripts/graphe-modules.py            # les fautes, puis les arêtes
    scripts/graphe-modules.py --dot      # le graphe au format Graphviz
"""
import os
import re
import sys

DEPOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RACINE = os.path.join(DEPOT, "src")
# Le bac à sable, et comment ses fichiers sont nommés dans les fautes et le graphe.
BAC_A_SABLE = os.path.join(DEPOT, "crates", "vigie-bac-a-sable", "src")
PREFIXE_BAC_A_SABLE = "crates/vigie-bac-a-sable/src/"


def modules(racine=RACINE):
    """{('depot', 's3'): 'depot/s3.rs', …}, sans le binaire ni les modules d'essais."""
    table = {}
    essais = modules_d_essais(racine)
    for dossier, _, fichiers in os.walk(racine):
        for f in fichiers:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dossier, f), racine)
            if rel == "main.rs" or rel in essais:
                continue
            parties = rel[:-3].split(os.sep)
            if parties[-1] in ("mod", "lib"):
                parties = parties[:-1]
            table[tuple(parties)] = rel
    return table


def sans_tests(texte):
    m = re.search(r"#\[cfg\(test\)\]\s*\n\s*mod \w+\s*\{", texte)
    texte = texte[: m.start()] if m else texte
    # Les commentaires (documentation comprise) ne sont pas des dépendances.
    return re.sub(r"//[^\n]*", "", texte)


def developper(chemin):
    """`a::{b, c::{d}}` → [a::b, a::c::d] (assez pour les `use` du projet)."""
    m = re.match(r"^(.*?)\{(.*)\}$", chemin, re.S)
    if not m:
        return [chemin]
    prefixe, corps = m.groups()
    morceaux, prof, cur = [], 0, ""
    for c in corps:
        if c == "," and prof == 0:
            morceaux.append(cur)
            cur = ""
            continue
        prof += c == "{"
        prof -= c == "}"
        cur += c
    morceaux.append(cur)
    res = []
    for p in morceaux:
        p = p.strip()
        if p:
            res += developper(prefixe + p)
    return res


def cibles(module, texte, table):
    texte = sans_tests(texte)
    chemins = []
    for m in re.finditer(r"\buse\s+((?:crate|super|self)::[^;]*);", texte, re.S):
        chemins += developper(re.sub(r"\s+", "", m.group(1)))
    # Les chemins écrits dans le code, hors `use`.
    hors_use = re.sub(r"\buse\s+[^;]*;", "", texte)
    chemins += re.findall(r"\b((?:crate|super)(?:::\w+)+)", hors_use)
    vus = set()
    for c in chemins:
        segments = c.split("::")
        base = list(module)
        # `super` depuis un fichier `x/mod.rs` ou `x.rs` : le module parent de `x`.
        while segments and segments[0] in ("super", "self", "crate"):
            tete = segments.pop(0)
            if tete == "crate":
                base = []
            elif tete == "super":
                base = base[:-1]
        complet = base + [s for s in segments if s not in ("self", "*")]
        # Le fichier le plus profond qui définit un préfixe du chemin.
        for n in range(len(complet), -1, -1):
            cle = tuple(complet[:n])
            if cle in table:
                if cle != module and not (cle[: len(module)] == module and pub_use_enfant(texte, cle, module)):
                    vus.add(cle)
                break
    return vus


def pub_use_enfant(texte, cle, module):
    """Un parent qui réexporte un enfant le contient, il n'en dépend pas."""
    return False


ARCHITECTURE = os.path.join(RACINE, "..", "ARCHITECTURE.md")


def couches(chemin=ARCHITECTURE):
    """{'commandes': 0, 'cli': 1, …} : le rang de chaque module, lu dans ARCHITECTURE.md."""
    with open(chemin, encoding="utf-8") as f:
        texte = f.read()
    m = re.search(r"^```couches\n(.*?)^```", texte, re.S | re.M)
    if not m:
        raise SystemExit("ARCHITECTURE.md n'a pas de bloc ```couches``` : sens invérifiable")
    rangs = {}
    for rang, ligne in enumerate(l for l in m.group(1).splitlines() if l.strip()):
        for nom in ligne.split("#")[0].split():
            rangs[nom] = rang
    return rangs


def module_de(fichier):
    """`depot/s3.rs` → `depot` ; `texte.rs` → `texte` ; `lib.rs` → None (la racine)."""
    if fichier == "lib.rs":
        return None
    return fichier.split(os.sep)[0].removesuffix(".rs")


def fautes_de_sens(aretes, rangs):
    """Les flèches entre modules de premier niveau qui ne descendent pas, et les modules sans
    couche."""
    fautes = []
    sans_couche = set()
    for a, bs in sorted(aretes.items()):
        ma = module_de(a)
        if ma is None:
            continue
        if ma not in rangs:
            sans_couche.add(ma)
            continue
        for b in bs:
            mb = module_de(b)
            if mb is None or mb == ma:
                continue
            if mb not in rangs:
                sans_couche.add(mb)
            elif rangs[mb] <= rangs[ma]:
                sens = "reste dans sa couche" if rangs[mb] == rangs[ma] else "remonte"
                fautes.append(
                    f"flèche qui {sens} : {a} → {b} "
                    f"({ma} en couche {rangs[ma]}, {mb} en couche {rangs[mb]})"
                )
    for m in sorted(sans_couche):
        fautes.append(f"module sans couche dans ARCHITECTURE.md : {m}")
    return fautes


def modules_d_essais(racine=RACINE):
    """Les fichiers des modules déclarés sous `#[cfg(test)]` : des essais, ni du graphe ni de
    la carte."""
    res = set()
    for dossier, _, fichiers in os.walk(racine):
        for f in fichiers:
            if not f.endswith(".rs"):
                continue
            with open(os.path.join(dossier, f), encoding="utf-8") as fichier:
                texte = fichier.read()
            # `x/mod.rs` et `x.rs` déclarent leurs enfants dans `x/`.
            parent = dossier if f in ("mod.rs", "lib.rs", "main.rs") else os.path.join(dossier, f[:-3])
            for nom in re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))?\s+)?mod (\w+);", texte):
                for candidat in (nom + ".rs", os.path.join(nom, "mod.rs")):
                    res.add(os.path.relpath(os.path.join(parent, candidat), racine))
    return res


def fautes_de_carte(chemin=ARCHITECTURE):
    """Les fichiers de `src/` que la carte ne nomme pas, et les chemins qu'elle nomme sans
    qu'ils existent."""
    with open(chemin, encoding="utf-8") as f:
        texte = f.read()
    depot = os.path.dirname(os.path.abspath(chemin))
    # Un chemin : des mots séparés par `/`, qui finit par `.rs` ou par `/`.
    nommes = set(re.findall(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+(?:\.rs|/))(?![\w-])", texte))
    fautes = []
    for nom in sorted(nommes):
        if not any(os.path.exists(os.path.join(base, nom)) for base in (RACINE, depot)):
            fautes.append(f"ARCHITECTURE.md nomme {nom}, qui n'existe pas (ni dans src/, ni dans le dépôt)")
    for nom in sorted(couches(chemin)):
        if not (os.path.isfile(os.path.join(RACINE, nom + ".rs")) or os.path.isdir(os.path.join(RACINE, nom))):
            fautes.append(f"le bloc couches d'ARCHITECTURE.md range {nom}, qui n'est pas un module de src/")
    nommes |= {n.removeprefix("src/") for n in nommes}
    essais = modules_d_essais()
    for dossier, _, fichiers in os.walk(RACINE):
        for f in fichiers:
            rel = os.path.relpath(os.path.join(dossier, f), RACINE)
            if not f.endswith(".rs") or rel in essais:
                continue
            # `x/mod.rs` se nomme `x/`.
            nom = os.path.dirname(rel) + "/" if f == "mod.rs" else rel
            if nom not in nommes:
                fautes.append(
                    f"src/{rel} n'est pas dans la carte d'ARCHITECTURE.md : "
                    f"nommez-le ({nom}) et dites ce qu'il possède"
                )
    return fautes


def scc(noeuds, aretes):
    index, bas, pile, sur, res = {}, {}, [], set(), []
    compteur = [0]

    def visiter(v):
        index[v] = bas[v] = compteur[0]
        compteur[0] += 1
        pile.append(v)
        sur.add(v)
        for w in aretes.get(v, ()):
            if w not in index:
                visiter(w)
                bas[v] = min(bas[v], bas[w])
            elif w in sur:
                bas[v] = min(bas[v], index[w])
        if bas[v] == index[v]:
            comp = []
            while True:
                w = pile.pop()
                sur.discard(w)
                comp.append(w)
                if w == v:
                    break
            res.append(comp)

    sys.setrecursionlimit(10000)
    for v in noeuds:
        if v not in index:
            visiter(v)
    return res


def graphe(racine):
    """{'depot/s3.rs': ['plan/mod.rs', …], …} : qui regarde qui, fichier par fichier."""
    table = modules(racine)
    aretes = {}
    for module, fichier in table.items():
        with open(os.path.join(racine, fichier), encoding="utf-8") as f:
            texte = f.read()
        aretes[fichier] = sorted(table[c] for c in cibles(module, texte, table))
    return aretes


def cycles(aretes, nommer=lambda f: f):
    """Les cycles entre fichiers, puis entre modules de premier niveau (la racine à part),
    chacun avec les flèches entre ses modules (les six premières)."""
    res = [
        "cycle entre fichiers : " + " ↔ ".join(nommer(f) for f in sorted(c))
        for c in scc(sorted(aretes), aretes)
        if len(c) > 1
    ]
    entre_modules, temoins = {}, {}
    for a, bs in aretes.items():
        for b in bs:
            ma, mb = module_de(a), module_de(b)
            if None in (ma, mb) or ma == mb:
                continue
            entre_modules.setdefault(ma, set()).add(mb)
            temoins.setdefault((ma, mb), []).append(f"{nommer(a)} → {nommer(b)}")
    for c in scc(sorted(entre_modules), {m: sorted(s) for m, s in entre_modules.items()}):
        if len(c) > 1:
            membres = set(c)
            fleches = sorted(
                t for (ma, mb), ts in temoins.items() if ma in membres and mb in membres for t in ts
            )
            dites = " ; ".join(fleches[:6]) + (f" ; … et {len(fleches) - 6} autres" if len(fleches) > 6 else "")
            res.append("cycle entre modules : " + " ↔ ".join(sorted(c)) + f" ({dites})")
    return res


def main():
    aretes = graphe(RACINE)
    aretes_sable = graphe(BAC_A_SABLE)
    def sable(f):
        return PREFIXE_BAC_A_SABLE + f
    fautes = (
        cycles(aretes)
        + fautes_de_sens(aretes, couches())
        + fautes_de_carte()
        + cycles(aretes_sable, sable)
    )
    toutes = sorted(aretes.items()) + sorted(
        (sable(a), [sable(b) for b in bs]) for a, bs in aretes_sable.items()
    )
    if "--dot" in sys.argv:
        print("digraph vigie {")
        for a, bs in toutes:
            for b in bs:
                print(f'  "{a}" -> "{b}";')
        print("}")
    else:
        for a, bs in toutes:
            print(f"{a} → {', '.join(bs) if bs else '∅'}")
    # Les fautes sur la sortie d'erreur : `.ci/run` jette la sortie standard, pas elles.
    for f in fautes:
        print(f, file=sys.stderr)
    return 1 if fautes else 0


if __name__ == "__main__":
    sys.exit(main())
