#!/usr/bin/env python3
"""Mandataire TCP local pour les bancs d'essai : un lien lent qui coupe.

Usage : mandataire.py PORT_ECOUTE HOTE:PORT_CIBLE [--debit OCTETS_PAR_S] [--rafale S]
        [--coupure-toutes S] [--coupure-duree S] [--latence-connexion S] [--latence-reponse S]
        [--trou-noir-a S --trou-noir-duree S] [--detail]

- le débit montant (client → serveur) est limité à --debit octets/s (seau à jetons partagé
  par toutes les connexions : c'est le lien qui est lent, pas chaque connexion) ; le seau
  contient --rafale secondes de débit (1 par défaut, comme un façonneur tbf). Il se remplit
  pendant une coupure : avec 1 s, la seconde coupée est rattrapée d'une rafale à la reprise ;
  avec --rafale 0.05, elle est perdue, comme sur une liaison radio qui tombe ;
- toutes les --coupure-toutes secondes, toutes les connexions ouvertes sont coupées (RST) et
  les nouvelles refusées pendant --coupure-duree secondes : un tunnel, une zone blanche ;
- la latence d'un lien lointain (4G : 50 à 150 ms d'aller-retour), sans `tc netem` (absent de
  ces noyaux) : --latence-connexion S retarde l'établissement de chaque connexion (la poignée
  de main TCP, un aller-retour), --latence-reponse S retarde le début de chaque réponse (ses
  en-têtes : l'aller-retour de la requête, ou le temps de traitement d'un appel d'API). Un
  mandataire par cible : lancé devant l'API avec --latence-reponse 0.15 et devant S3 avec
  --latence-reponse 0.08 --latence-connexion 0.08, il règle les deux séparément ;
- un trou noir (--trou-noir-a S, --trou-noir-duree N) : S secondes après le départ (ou après
  SIGUSR1), et pendant N secondes, plus rien ne passe, dans aucun sens, sur aucune connexion,
  et rien n'est fermé : le téléphone a perdu le signal sans rien dire. Au retour, les
  connexions ouvertes avant ou pendant le trou noir restent muettes à jamais (le téléphone a
  changé d'adresse publique, la correspondance NAT est perdue) ; seules les connexions
  ouvertes après passent. Le bilan dit combien de temps après le retour du lien le serveur a
  répondu pour la première fois (`trou_noir_premiere_reponse_s`) et la nuit est repartie
  (`trou_noir_reprise_s` : 1 Mio montant relayé depuis le retour) ;
- SIGUSR1 écrit sur la sortie standard, en une ligne JSON, le bilan de la fenêtre écoulée
  depuis le précédent SIGUSR1 (ou le départ), puis remet tout à zéro : compteurs, seau plein,
  horloge des coupures (la première tombe --coupure-toutes secondes plus tard). Un banc envoie
  donc SIGUSR1 avant et après chaque outil : tous voient le même lien et les mêmes coupures.
  Le bilan :
    octets      octets montants relayés (corps, en-têtes, et ce qui a été perdu) ;
    coupures    nombre de coupures ;
    en_vol      connexions coupées alors qu'une requête était en vol (des octets montants
                étaient partis depuis la dernière réponse du serveur sur cette connexion) ;
    perdus      somme de ces octets : partis, puis perdus par la coupure, donc à renvoyer ;
    perte_max   le plus grand de ces restes sur une seule connexion (à comparer à la taille
                d'une partie, ou d'un fichier pour un outil qui renvoie tout le fichier) ;
    englouties  connexions mortes dans le trou noir ;
    trou_noir_premiere_reponse_s, trou_noir_reprise_s   voir plus haut (null sans retour) ;
- à la fin (SIGTERM/SIGINT), écrit sur stderr les octets transmis et le nombre de coupures
  depuis le dernier SIGUSR1 (ou le départ).

Il n'écoute que sur 127.0.0.1 et ne parle qu'à la cible donnée.
"""

import argparse
import asyncio
import json
import signal
import socket
import struct
import sys
import time


class Lien:
    def __init__(self, debit, rafale, latence_connexion=0.0, latence_reponse=0.0):
        self.latence_connexion = latence_connexion
        self.latence_reponse = latence_reponse
        self.debit = debit
        self.capacite = debit * rafale
        self.verrou = asyncio.Lock()
        self.coupe = False
        self.connexions = set()
        # Le trou noir en cours, et l'instant du retour du lien après le dernier.
        self.trou_noir = False
        self.jamais = asyncio.Event()
        self.remettre_a_zero()

    def remettre_a_zero(self):
        self.jetons = self.capacite
        self.dernier = time.monotonic()
        self.octets = 0
        self.coupures = 0
        self.en_vol = 0
        self.perdus = 0
        self.perte_max = 0
        self.englouties = 0
        self.retour = None
        self.apres_retour = 0
        self.premiere_reponse = None
        self.reprise = None

    def bilan(self):
        return {
            "octets": self.octets,
            "coupures": self.coupures,
            "en_vol": self.en_vol,
            "perdus": self.perdus,
            "perte_max": self.perte_max,
            "englouties": self.englouties,
            "trou_noir_premiere_reponse_s": self.premiere_reponse,
            "trou_noir_reprise_s": self.reprise,
        }

    def engloutir(self, connexion):
        if not connexion.englouti:
            connexion.englouti = True
            self.englouties += 1

    def noter_apres_retour(self, n, montant):
        """Ce qui passe sur une connexion vivante après le retour du lien."""
        if self.retour is None:
            return
        ecoule = round(time.monotonic() - self.retour, 3)
        if not montant and self.premiere_reponse is None:
            self.premiere_reponse = ecoule
        if montant:
            self.apres_retour += n
            if self.reprise is None and self.apres_retour >= 2**20:
                self.reprise = ecoule

    async def prendre(self, n):
        """Attend que n octets puissent passer."""
        async with self.verrou:
            while True:
                maintenant = time.monotonic()
                self.jetons = min(self.capacite, self.jetons + (maintenant - self.dernier) * self.debit)
                self.dernier = maintenant
                # Un envoi plus gros que le seau passe dès que le seau est plein (et le vide).
                besoin = min(n, self.capacite)
                if self.jetons >= besoin:
                    self.jetons -= n
                    return
                await asyncio.sleep((besoin - self.jetons) / self.debit)


class Connexion:
    def __init__(self, client, serveur):
        self.client = client
        self.serveur = serveur
        # Octets montants partis depuis la dernière réponse du serveur : la requête en vol.
        self.depuis_reponse = 0
        # Engloutie par un trou noir : plus rien n'y passe, jamais.
        self.englouti = False


def couper_net(ecrivain):
    """Ferme la connexion par un RST (SO_LINGER à zéro), comme un lien qui tombe."""
    sock = ecrivain.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    ecrivain.close()


async def relayer(lecteur, ecrivain, lien, connexion, montant):
    try:
        while not lien.coupe:
            if connexion.englouti:
                await lien.jamais.wait()
            donnees = await lecteur.read(16384)
            if not donnees:
                break
            if connexion.englouti:
                # Parti dans le vide : ni relayé, ni refusé, ni fermé.
                await lien.jamais.wait()
            if montant:
                await lien.prendre(len(donnees))
            if lien.coupe:
                break
            if connexion.englouti:
                await lien.jamais.wait()
            lien.noter_apres_retour(len(donnees), montant)
            if montant:
                lien.octets += len(donnees)
                connexion.depuis_reponse += len(donnees)
            else:
                # Le début d'une réponse (une requête était en vol) : ses en-têtes arrivent
                # après l'aller-retour.
                if connexion.depuis_reponse > 0 and lien.latence_reponse > 0:
                    await asyncio.sleep(lien.latence_reponse)
                    if lien.coupe:
                        break
                connexion.depuis_reponse = 0
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
    if lien.latence_connexion > 0:
        await asyncio.sleep(lien.latence_connexion)
        if lien.coupe:
            couper_net(ecrivain_client)
            return
    try:
        lecteur_serveur, ecrivain_serveur = await asyncio.open_connection(hote, port)
    except OSError:
        couper_net(ecrivain_client)
        return
    connexion = Connexion(ecrivain_client, ecrivain_serveur)
    if lien.trou_noir:
        lien.engloutir(connexion)
    lien.connexions.add(connexion)
    try:
        await asyncio.gather(
            relayer(lecteur_client, ecrivain_serveur, lien, connexion, True),
            relayer(lecteur_serveur, ecrivain_client, lien, connexion, False),
        )
    finally:
        lien.connexions.discard(connexion)


async def couper_periodiquement(lien, toutes, duree, detail):
    while True:
        await asyncio.sleep(toutes)
        lien.coupe = True
        lien.coupures += 1
        pertes = []
        for c in list(lien.connexions):
            if c.depuis_reponse > 0:
                lien.en_vol += 1
                lien.perdus += c.depuis_reponse
                lien.perte_max = max(lien.perte_max, c.depuis_reponse)
                pertes.append(c.depuis_reponse)
                c.depuis_reponse = 0
            couper_net(c.client)
            couper_net(c.serveur)
        if detail:
            en_mio = ", ".join(f"{p / 2**20:.1f}" for p in sorted(pertes, reverse=True))
            print(f"coupure {lien.coupures} : {len(pertes)} requête(s) en vol, perdu (Mio) : "
                  f"[{en_mio}]", file=sys.stderr, flush=True)
        await asyncio.sleep(duree)
        lien.coupe = False


async def trou_noir(lien, a, duree, detail):
    await asyncio.sleep(a)
    lien.trou_noir = True
    for c in list(lien.connexions):
        lien.engloutir(c)
    if detail:
        print(f"trou noir : {len(lien.connexions)} connexion(s) englouties, pendant {duree} s",
              file=sys.stderr, flush=True)
    await asyncio.sleep(duree)
    lien.trou_noir = False
    lien.retour = time.monotonic()
    if detail:
        print("trou noir : le lien revient", file=sys.stderr, flush=True)


async def principal():
    p = argparse.ArgumentParser()
    p.add_argument("ecoute", type=int)
    p.add_argument("cible")
    p.add_argument("--debit", type=float, default=8_000_000)
    p.add_argument("--rafale", type=float, default=1.0)
    p.add_argument("--coupure-toutes", type=float, default=15.0)
    p.add_argument("--coupure-duree", type=float, default=1.0)
    p.add_argument("--latence-connexion", type=float, default=0.0)
    p.add_argument("--latence-reponse", type=float, default=0.0)
    p.add_argument("--trou-noir-a", type=float, default=0.0)
    p.add_argument("--trou-noir-duree", type=float, default=0.0)
    p.add_argument("--detail", action="store_true", help="chaque coupure, sur stderr")
    a = p.parse_args()
    hote, port = a.cible.rsplit(":", 1)
    if hote not in ("127.0.0.1", "localhost"):
        sys.exit("la cible doit être sur la boucle locale")
    lien = Lien(a.debit, a.rafale, a.latence_connexion, a.latence_reponse)
    serveur = await asyncio.start_server(
        lambda l, e: servir(lien, hote, int(port), l, e), "127.0.0.1", a.ecoute
    )
    taches = [asyncio.create_task(serveur.serve_forever())]

    def coupeur():
        if a.coupure_toutes > 0:
            return asyncio.create_task(couper_periodiquement(lien, a.coupure_toutes, a.coupure_duree, a.detail))
        return None

    def trou():
        if a.trou_noir_duree > 0:
            return asyncio.create_task(trou_noir(lien, a.trou_noir_a, a.trou_noir_duree, a.detail))
        return None

    etat = {"coupeur": coupeur(), "trou": trou()}

    def fenetre():
        print(json.dumps(lien.bilan()), flush=True)
        for t in ("coupeur", "trou"):
            if etat[t] is not None:
                etat[t].cancel()
        lien.coupe = False
        lien.trou_noir = False
        lien.remettre_a_zero()
        etat["coupeur"] = coupeur()
        etat["trou"] = trou()

    fin = asyncio.Event()
    boucle = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        boucle.add_signal_handler(s, fin.set)
    boucle.add_signal_handler(signal.SIGUSR1, fenetre)
    print("prêt", flush=True)
    await fin.wait()
    for t in taches + [etat["coupeur"], etat["trou"]]:
        if t is not None:
            t.cancel()
    print(f"mandataire : {lien.octets} octets montants, {lien.coupures} coupures", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(principal())
