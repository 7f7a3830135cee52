
use builtin;
use str;

set edit:completion:arg-completer[vigie] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'vigie'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'vigie'= {
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
            cand -V 'Affiche la version'
            cand --version 'Affiche la version'
            cand depot 'Dépose le dossier d''une nuit ; relancer la même commande reprend le même plan'
            cand retenter-echecs 'Relance les unités en échec transitoire, interrompues ou incertaines d''un plan'
            cand retenter 'Relance les unités en échec transitoire, interrompues ou incertaines d''un plan'
            cand etat 'Montre l''état d''un plan (le dernier actif par défaut)'
            cand plans 'Liste les plans de la base'
            cand verifier 'Relit la destination : chaque unité déposée y est-elle, intacte ?'
            cand completions 'Écrit le script de complétion pour un shell sur la sortie standard'
            cand generer-docs 'Régénère completions/ et man/ (pour les mainteneurs)'
        }
        &'vigie;depot'= {
            cand --vers 'Destination S3 : s3://compartiment/prefixe (clé = préfixe + chemin relatif)'
            cand --paralleles 'Nombre d''unités envoyées en même temps'
            cand --seuil-multipart 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart)'
            cand --taille-partie 'Taille d''une partie (Mio, 5 au moins)'
            cand --delai-tentative 'Délai maximal d''une tentative (secondes)'
            cand --delai-blocage 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé'
            cand --tentatives 'Nombre de tentatives par émission (profil INSISTANT)'
            cand --attente-base 'Attente de base entre deux tentatives (secondes), doublée à chaque échec'
            cand --attente-max 'Plafond de l''attente entre deux tentatives (secondes)'
            cand --echeance 'Échéance d''une émission, tentatives et attentes comprises (secondes)'
            cand --endpoint-url 'Point d''accès S3 (pour un service non AWS) ; active le style chemin'
            cand --region 'Région S3'
            cand --profil 'Profil d''identifiants AWS (~/.aws/credentials)'
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --simulation 'Crée ou met à jour le plan et montre ce qui partirait, sans rien envoyer'
            cand --redeposer-modifies 'Renvoie les fichiers déjà déposés qui ont changé depuis (taille ou date)'
            cand --autoriser-http 'Accepte un point d''accès en http:// hors de la boucle locale (les identifiants signent en clair)'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;retenter-echecs'= {
            cand --paralleles 'Nombre d''unités envoyées en même temps'
            cand --seuil-multipart 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart)'
            cand --taille-partie 'Taille d''une partie (Mio, 5 au moins)'
            cand --delai-tentative 'Délai maximal d''une tentative (secondes)'
            cand --delai-blocage 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé'
            cand --tentatives 'Nombre de tentatives par émission (profil INSISTANT)'
            cand --attente-base 'Attente de base entre deux tentatives (secondes), doublée à chaque échec'
            cand --attente-max 'Plafond de l''attente entre deux tentatives (secondes)'
            cand --echeance 'Échéance d''une émission, tentatives et attentes comprises (secondes)'
            cand --endpoint-url 'Point d''accès S3 (pour un service non AWS) ; active le style chemin'
            cand --region 'Région S3'
            cand --profil 'Profil d''identifiants AWS (~/.aws/credentials)'
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --y-compris-definitifs 'Relance aussi les refus définitifs (après avoir corrigé leur cause)'
            cand --autoriser-http 'Accepte un point d''accès en http:// hors de la boucle locale (les identifiants signent en clair)'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;retenter'= {
            cand --paralleles 'Nombre d''unités envoyées en même temps'
            cand --seuil-multipart 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart)'
            cand --taille-partie 'Taille d''une partie (Mio, 5 au moins)'
            cand --delai-tentative 'Délai maximal d''une tentative (secondes)'
            cand --delai-blocage 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé'
            cand --tentatives 'Nombre de tentatives par émission (profil INSISTANT)'
            cand --attente-base 'Attente de base entre deux tentatives (secondes), doublée à chaque échec'
            cand --attente-max 'Plafond de l''attente entre deux tentatives (secondes)'
            cand --echeance 'Échéance d''une émission, tentatives et attentes comprises (secondes)'
            cand --endpoint-url 'Point d''accès S3 (pour un service non AWS) ; active le style chemin'
            cand --region 'Région S3'
            cand --profil 'Profil d''identifiants AWS (~/.aws/credentials)'
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --y-compris-definitifs 'Relance aussi les refus définitifs (après avoir corrigé leur cause)'
            cand --autoriser-http 'Accepte un point d''accès en http:// hors de la boucle locale (les identifiants signent en clair)'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;etat'= {
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;plans'= {
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;verifier'= {
            cand --paralleles 'Nombre d''unités envoyées en même temps'
            cand --seuil-multipart 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart)'
            cand --taille-partie 'Taille d''une partie (Mio, 5 au moins)'
            cand --delai-tentative 'Délai maximal d''une tentative (secondes)'
            cand --delai-blocage 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé'
            cand --tentatives 'Nombre de tentatives par émission (profil INSISTANT)'
            cand --attente-base 'Attente de base entre deux tentatives (secondes), doublée à chaque échec'
            cand --attente-max 'Plafond de l''attente entre deux tentatives (secondes)'
            cand --echeance 'Échéance d''une émission, tentatives et attentes comprises (secondes)'
            cand --endpoint-url 'Point d''accès S3 (pour un service non AWS) ; active le style chemin'
            cand --region 'Région S3'
            cand --profil 'Profil d''identifiants AWS (~/.aws/credentials)'
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --autoriser-http 'Accepte un point d''accès en http:// hors de la boucle locale (les identifiants signent en clair)'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;completions'= {
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
        &'vigie;generer-docs'= {
            cand --base 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite)'
            cand --progression 'Barres de progression : auto (si la sortie d''erreur est un terminal), toujours, jamais'
            cand --json 'Événements et bilan en lignes JSON sur la sortie standard'
            cand -v 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand --verbose 'Plus de détails (-v : décisions de réessai, -vv : tout)'
            cand -q 'Seulement le bilan et les erreurs'
            cand --quiet 'Seulement le bilan et les erreurs'
            cand -h 'Affiche l''aide'
            cand --help 'Affiche l''aide'
        }
    ]
    $completions[$command]
}
