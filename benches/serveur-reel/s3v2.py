"""Une fine couche devant moto qui vérifie les signatures v2 par la requête, comme AWS.

Pourquoi : moto ne vérifie pas les signatures v2. Un client qui enverrait un autre
`Content-Type` que le `mime` signé par la plateforme, un `Content-MD5`, un en-tête `x-amz-*` non
signé, ou un corps en `Transfer-Encoding: chunked`, passerait chez moto et échouerait chez AWS.
Cette couche refuse ce qu'AWS refuserait :
- une requête signée (`AWSAccessKeyId`, `Expires`, `Signature` dans la requête) dont la
  signature HMAC-SHA1 de `VERBE\\nContent-MD5\\nContent-Type\\nExpires\\n<en-têtes x-amz-*>
  /compartiment/clé[?sous-ressources triées]` n'est pas celle reçue : 403
  `SignatureDoesNotMatch` ; expirée : 403 `AccessDenied` ;
- un PUT sans `Content-Length` : 411 `MissingContentLength` ; en `chunked` : 501
  `NotImplemented`.
Le reste est relayé tel quel à moto, réponse comprise.

Pour le banc, elle tient aussi un journal (une ligne JSON par requête : méthode, chemin,
sous-ressources, statut, octets reçus) et sait retenir une requête : tant que le fichier
`<controle>/bloquer` existe et que son contenu figure dans le chemin ou la requête
(`partNumber=3`), la requête est notée `retenue` et attend, sans rien lire ; le fichier
effacé, la connexion est fermée sans réponse (la coupure d'un kill -9 côté client).

Usage : `python s3v2.py PORT PORT_MOTO CLE SECRET JOURNAL CONTROLE` (bibliothèque standard
seulement).
"""

import base64
import hashlib
import hmac
import http.client
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

# Les sous-ressources qu'AWS signe (Signature Version 2, « CanonicalizedResource »).
SOUS_RESSOURCES = {
    "acl", "cors", "delete", "lifecycle", "location", "logging", "notification",
    "partNumber", "policy", "requestPayment", "restore", "tagging", "torrent", "uploadId",
    "uploads", "versionId", "versioning", "versions", "website",
    "response-cache-control", "response-content-disposition", "response-content-encoding",
    "response-content-language", "response-content-type", "response-expires",
}


class Couche(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    port_moto = 0
    cle = ""
    secret = b""
    journal = ""
    controle = ""
    verrou = threading.Lock()

    def log_message(self, *args):  # le journal est le nôtre
        pass

    def noter(self, **champs):
        with self.verrou, open(self.journal, "a") as f:
            f.write(json.dumps(champs) + "\n")

    def erreur(self, statut, code, message, sous):
        corps = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{}</Code>"
                 "<Message>{}</Message></Error>").format(code, message).encode()
        self.send_response(statut)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(corps)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(corps)
        self.close_connection = True
        self.noter(methode=self.command, chemin=self.chemin, sous=sous, statut=statut,
                   code=code, octets=0)

    def retenir(self, requete):
        motif_chemin = os.path.join(self.controle, "bloquer")
        try:
            with open(motif_chemin) as f:
                motif = f.read().strip()
        except OSError:
            return False
        if not motif or (motif not in requete and motif not in self.chemin):
            return False
        self.noter(methode=self.command, chemin=self.chemin, sous=requete, statut=0,
                   retenue=True, octets=0)
        while os.path.exists(motif_chemin):
            time.sleep(0.05)
        self.close_connection = True
        return True

    def traiter(self):
        url = urllib.parse.urlsplit(self.path)
        self.chemin = url.path
        parametres = urllib.parse.parse_qsl(url.query, keep_blank_values=True)
        requete = dict(parametres)
        sous = "&".join(sorted(
            k if v == "" else "{}={}".format(k, v)
            for k, v in parametres if k in SOUS_RESSOURCES))
        if self.retenir(url.query):
            return
        if self.command == "PUT":
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self.erreur(501, "NotImplemented",
                                   "Transfer-Encoding chunked is not implemented", sous)
            if self.headers.get("Content-Length") is None:
                return self.erreur(411, "MissingContentLength",
                                   "You must provide the Content-Length HTTP header.", sous)
        if "Signature" in requete:
            expires = requete.get("Expires", "")
            amz = "".join(
                "{}:{}\n".format(k.lower(), v.strip())
                for k, v in sorted((k.lower(), v) for k, v in self.headers.items()
                                   if k.lower().startswith("x-amz-")))
            ressource = url.path + ("?" + sous if sous else "")
            a_signer = "{}\n{}\n{}\n{}\n{}{}".format(
                self.command, self.headers.get("Content-MD5", ""),
                self.headers.get("Content-Type", ""), expires, amz, ressource)
            attendue = base64.b64encode(
                hmac.new(self.secret, a_signer.encode(), hashlib.sha1).digest()).decode()
            if requete.get("AWSAccessKeyId") != self.cle or not hmac.compare_digest(
                    attendue, requete["Signature"]):
                return self.erreur(403, "SignatureDoesNotMatch",
                                   "The request signature we calculated does not match "
                                   "the signature you provided.", sous)
            if not expires.isdigit() or int(expires) < time.time():
                return self.erreur(403, "AccessDenied", "Request has expired", sous)
        longueur = int(self.headers.get("Content-Length") or 0)
        corps = self.rfile.read(longueur) if longueur else b""
        entetes = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("host", "connection", "transfer-encoding")}
        moto = http.client.HTTPConnection("127.0.0.1", self.port_moto, timeout=120)
        moto.request(self.command, self.path, body=corps, headers=entetes)
        reponse = moto.getresponse()
        contenu = reponse.read()
        self.send_response(reponse.status)
        for k, v in reponse.getheaders():
            if k.lower() not in ("content-length", "connection", "transfer-encoding", "server",
                                 "date"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(contenu)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(contenu)
        moto.close()
        self.noter(methode=self.command, chemin=self.chemin, sous=sous,
                   statut=reponse.status, octets=len(corps))

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = traiter


def main():
    port, port_moto, cle, secret, journal, controle = sys.argv[1:7]
    Couche.port_moto = int(port_moto)
    Couche.cle = cle
    Couche.secret = secret.encode()
    Couche.journal = journal
    Couche.controle = controle
    serveur = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Couche)
    serveur.daemon_threads = True
    print("s3v2 : signatures v2 vérifiées sur le port {} devant moto ({})".format(
        port, port_moto), file=sys.stderr, flush=True)
    serveur.serve_forever()


if __name__ == "__main__":
    main()
