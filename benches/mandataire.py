#!/usr/bin/env python3
"""Mandataire TCP local pour les bancs d'essai : un lien lent qui coupe.

Usage : mandataire.py PORT_ECOUTE HOTE:PORT_CIBLE [--debit OCTETS_PAR_S] [--coupure-toutes S]
        [--coupure-duree S]

- le débit montant (client → serveur) est limité à --debit octets/s (seau à jetons partagé
  par toutes les connexions : c'est le lien qui est lent, pas chaque connexion) ;
- toutes les --coupure-toutes secondes, toutes les connexions ouvertes sont coupées (RST) et
  les nouvelles refusées pendant --coupure-duree secondes : un tunnel, une zone blanche ;
- à la fin (SIGTERM/SIGINT), écrit sur stderr les octets transmis et le nombre de coupures.

Il n'écoute que sur 127.0.0.1 et ne parle qu'à la cible donnée.
"""

import argparse
import asyncio
import signal
import socket
import struct
import sys
import time


class Lien:
    def __init__(self, debit):
        self.debit = debit
        self.jetons = debit
        self.dernier = time.monotonic()
        self.verrou = asyncio.Lock()
        self.coupe = False
        self.connexions = set()
        self.octets = 0
        self.coupures = 0

    async def prendre(self, n):
        """Attend que n octets puissent passer."""
        async with self.verrou:
            while True:
                maintenant = time.monotonic()
                self.jetons = min(self.debit, self.jetons + (maintenant - self.dernier) * self.debit)
                self.dernier = maintenant
                if self.jetons >= n:
                    self.jetons -= n
                    return
                await asyncio.sleep((n - self.jetons) / self.debit)


def couper_net(ecrivain):
    """Ferme la connexion par un RST (SO_LINGER à zéro), comme un lien qui tombe."""
    sock = ecrivain.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    ecrivain.close()


async def relayer(lecteur, ecrivain, lien, montant):
    try:
        while not lien.coupe:
            donnees = await lecteur.read(16384)
            if not donnees:
                break
            if montant:
                await lien.prendre(len(donnees))
                lien.octets += len(donnees)
            if lien.coupe:
                break
            ecrivain.write(donnees)
            await ecrivain.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        couper_net(ecrivain)


async def servir(lien, hote, port, lecteur_client, ecrivain_client):
    if lien.coupe:
        couper_net(ecrivain_client)
        return
    try:
        lecteur_serveur, ecrivain_serveur = await asyncio.open_connection(hote, port)
    except OSError:
        couper_net(ecrivain_client)
        return
    paire = (ecrivain_client, ecrivain_serveur)
    lien.connexions.add(paire)
    try:
        await asyncio.gather(
            relayer(lecteur_client, ecrivain_serveur, lien, True),
            relayer(lecteur_serveur, ecrivain_client, lien, False),
        )
    finally:
        lien.connexions.discard(paire)


async def couper_periodiquement(lien, toutes, duree):
    while True:
        await asyncio.sleep(toutes)
        lien.coupe = True
        lien.coupures += 1
        for client, serveur in list(lien.connexions):
            couper_net(client)
            couper_net(serveur)
        await asyncio.sleep(duree)
        lien.coupe = False


async def principal():
    p = argparse.ArgumentParser()
    p.add_argument("ecoute", type=int)
    p.add_argument("cible")
    p.add_argument("--debit", type=float, default=8_000_000)
    p.add_argument("--coupure-toutes", type=float, default=15.0)
    p.add_argument("--coupure-duree", type=float, default=1.0)
    a = p.parse_args()
    hote, port = a.cible.rsplit(":", 1)
    if hote not in ("127.0.0.1", "localhost"):
        sys.exit("la cible doit être sur la boucle locale")
    lien = Lien(a.debit)
    serveur = await asyncio.start_server(
        lambda l, e: servir(lien, hote, int(port), l, e), "127.0.0.1", a.ecoute
    )
    taches = [asyncio.create_task(serveur.serve_forever())]
    if a.coupure_toutes > 0:
        taches.append(asyncio.create_task(couper_periodiquement(lien, a.coupure_toutes, a.coupure_duree)))
    fin = asyncio.Event()
    boucle = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        boucle.add_signal_handler(s, fin.set)
    print("prêt", flush=True)
    await fin.wait()
    for t in taches:
        t.cancel()
    print(f"mandataire : {lien.octets} octets montants, {lien.coupures} coupures", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(principal())
