#!/usr/bin/env python3
"""Fabrique l'icône de vigie.exe (packaging/windows/vigie.ico), octet pour octet la même à
chaque fois : Python seul, sans bibliothèque d'image.

Le dessin : une chauve-souris claire, ailes ouvertes, sur un disque bleu nuit. Dessinée en
géométrie (un disque, deux ailes en festons, un corps, deux oreilles), chaque pixel
sur-échantillonné 4 × 4 pour des bords adoucis, aux tailles qu'affiche Windows : 16, 24, 32 et
48 pixels en BMP 32 bits (avec alpha), 256 en PNG (ce qu'attend l'explorateur pour les grandes
icônes).

Usage : python3 scripts/icone.py [FICHIER]   (défaut : packaging/windows/vigie.ico)
"""

import math
import struct
import sys
import zlib
from pathlib import Path

FOND = (0x1B, 0x2A, 0x4A)  # bleu nuit
BETE = (0xF2, 0xE6, 0xC8)  # clair de lune
TAILLES_BMP = (16, 24, 32, 48)
TAILLE_PNG = 256
ECHANTILLONS = 4


def dans_le_disque(x, y):
    return (x - 0.5) ** 2 + (y - 0.5) ** 2 <= 0.48**2


def dans_la_bete(x, y):
    """La chauve-souris, dans le carré unité (y vers le bas), symétrique autour de x = 0.5."""
    dx = abs(x - 0.5)
    # Le corps : une ellipse.
    if (dx / 0.07) ** 2 + ((y - 0.52) / 0.16) ** 2 <= 1:
        return True
    # Les oreilles : deux petits triangles au-dessus de la tête.
    if 0.30 <= y <= 0.40 and 0.015 <= dx <= 0.065 and (0.40 - y) <= (0.065 - dx) * 2.0:
        return True
    # Les ailes : sous une arche haute, au-dessus d'un bord festonné (trois festons).
    if 0.05 <= dx <= 0.40:
        haut = 0.36 + 0.9 * (dx - 0.22) ** 2
        t = (dx - 0.05) / 0.35
        festons = 0.60 - 0.10 * t - 0.07 * abs(math.sin(t * 3 * math.pi))
        return haut <= y <= festons
    return False


def pixel(x, y, n):
    """RGBA du pixel (x, y) d'une image de n × n, moyenné sur ECHANTILLONS² points."""
    r = g = b = a = 0.0
    for i in range(ECHANTILLONS):
        for j in range(ECHANTILLONS):
            u = (x + (i + 0.5) / ECHANTILLONS) / n
            v = (y + (j + 0.5) / ECHANTILLONS) / n
            if not dans_le_disque(u, v):
                continue
            c = BETE if dans_la_bete(u, v) else FOND
            r, g, b, a = r + c[0], g + c[1], b + c[2], a + 1
    if a == 0:
        return (0, 0, 0, 0)
    alpha = round(255 * a / ECHANTILLONS**2)
    return (round(r / a), round(g / a), round(b / a), alpha)


def image(n):
    return [[pixel(x, y, n) for x in range(n)] for y in range(n)]


def bmp(n):
    """L'image au format d'une icône : en-tête BITMAPINFOHEADER (hauteur doublée), pixels BGRA
    de bas en haut, puis le masque ET (1 bit par pixel, lignes de 32 bits), tout à zéro."""
    lignes = image(n)
    entete = struct.pack("<IiiHHIIiiII", 40, n, 2 * n, 1, 32, 0, 0, 0, 0, 0, 0)
    pixels = b"".join(
        bytes((b, g, r, a)) for ligne in reversed(lignes) for (r, g, b, a) in ligne
    )
    masque = bytes(((n + 31) // 32) * 4 * n)
    return entete + pixels + masque


def png(n):
    lignes = image(n)
    brut = b"".join(b"\x00" + b"".join(bytes(p) for p in ligne) for ligne in lignes)

    def bloc(genre, donnees):
        return (
            struct.pack(">I", len(donnees))
            + genre
            + donnees
            + struct.pack(">I", zlib.crc32(genre + donnees) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + bloc(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
        + bloc(b"IDAT", zlib.compress(brut, 9))
        + bloc(b"IEND", b"")
    )


def ico():
    images = [(n, bmp(n)) for n in TAILLES_BMP] + [(TAILLE_PNG, png(TAILLE_PNG))]
    sortie = struct.pack("<HHH", 0, 1, len(images))
    position = 6 + 16 * len(images)
    for n, donnees in images:
        cote = n % 256  # 0 veut dire 256
        sortie += struct.pack("<BBBBHHII", cote, cote, 0, 0, 1, 32, len(donnees), position)
        position += len(donnees)
    return sortie + b"".join(d for _, d in images)


if __name__ == "__main__":
    racine = Path(__file__).resolve().parent.parent
    cible = Path(sys.argv[1]) if len(sys.argv) > 1 else racine / "packaging/windows/vigie.ico"
    cible.parent.mkdir(parents=True, exist_ok=True)
    cible.write_bytes(ico())
