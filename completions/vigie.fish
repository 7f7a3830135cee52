# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_vigie_global_optspecs
    string join \n base= json progression= v/verbose q/quiet journal= h/help V/version
end

function __fish_vigie_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_vigie_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_vigie_using_subcommand
    set -l cmd (__fish_vigie_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c vigie -n "__fish_vigie_needs_command" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_needs_command" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_needs_command" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_needs_command" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_needs_command" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_needs_command" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_needs_command" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_needs_command" -s V -l version -d 'Affiche la version'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "depot" -d 'Dépose une saison ou une nuit ; relancer la même commande reprend'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "retenter-echecs" -d 'Reprend ce qui reste de la saison : nuits entamées, en échec, pas commencées (alias : retenter)'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "etat" -d 'Montre l\'état de la saison du dernier dépôt, nuit par nuit, ou des nuits nommées (ou d\'un plan hors saison), ou leurs fichiers un par un'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "plans" -d 'Liste les plans de la base'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "verifier" -d 'Relit la destination : chaque fichier déposé y est-il, intact ? (Toute la saison du dernier dépôt, ou les nuits nommées.)'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "connexion" -d 'Vérifie et enregistre le jeton (et l\'adresse de l\'API) ; sans argument, dit ce qui est enregistré'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "deconnexion" -d 'Efface le jeton enregistré'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "participations" -d 'Liste vos participations sur la plateforme, toutes (celles du site web comme celles de vigie), groupées par site et par saison'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "traiter" -d 'Lance le calcul des nuits sur la plateforme (jamais automatique)'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "traitement" -d 'Dit où en est le calcul de chaque nuit sur la plateforme, et son bilan une fois fini'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "resultats" -d 'Télécharge les résultats du calcul de chaque nuit : le CSV des observations (et le journal du calcul)'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "renommer" -d 'Corrige les noms refusés par la plateforme quand la correction est sans ambiguïté'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "preparer" -d 'Prépare une carte brute en séquences de 5 s à l\'expansion ×10, comme le compagnon officiel'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "demo" -d 'Démonstration : une petite saison générée, déposée sur le bac à sable malgré des pannes'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "bac-a-sable" -d 'Sert la plateforme locale (API Vigie-Chiro + S3) sur 127.0.0.1 jusqu\'à Ctrl-C'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "completions" -d 'Écrit le script de complétion pour un shell sur la sortie standard'
complete -c vigie -n "__fish_vigie_needs_command" -f -a "generer-docs" -d 'Régénère completions/ et man/ (pour les mainteneurs)'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l vers -d 'Dépose dans un compartiment S3 ou un dossier plutôt que sur la plateforme' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l participation -d 'La participation (créée sur le site web) qui reçoit la nuit' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l site -d 'Le site où créer la participation (avec --debut et --fin)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l point -d 'Le point d\'écoute de la participation à créer (ex. A1)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l passage -d 'Carte brute : le numéro de passage, si les noms ne le portent pas' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l debut -d 'Début de la nuit (ex. 2026-06-21T23:30:00+02:00)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l fin -d 'Fin de la nuit, ISO 8601 avec son fuseau (comme --debut)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l fuseau -d 'Fuseau de l\'horloge des enregistreurs (défaut : celui de cet ordinateur)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l api -d 'Base de l\'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l jusqu-au-bout -d 'Recommence tant que des fichiers restent en échec (au plus DURÉE, ex. 6h)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l attente-passage -d 'Pause avant le deuxième passage (secondes), doublée à chaque passage suivant, un peu variée au hasard (pour que deux vigie ne reviennent pas ensemble) [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l attente-passage-max -d 'Plafond de la pause entre deux passages (secondes) [défaut : 600]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l paralleles -d 'Nombre de transferts en même temps, au plus (des fichiers, ou les parties d\'un gros fichier quand il reste moins de fichiers que de places) : le parallélisme baisse de lui-même quand le réseau coupe, et remonte vers ce plafond quand un transfert de plus fait croître le débit [défaut : 4]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l seuil-multipart -d 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ; par défaut 8 vers S3, 100 vers Vigie-Chiro (qui repasse en un seul envoi si la plateforme refuse les parties)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l taille-partie -d 'Taille d\'une partie (Mio, 5 au moins) [défaut : 5]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l debit-max -d 'Débit maximal de tous les envois réunis (ex. 2Mo/s, 500Ko/s, 1.5Mio/s, 16Mbit/s), pour ne pas saturer un partage de connexion ; par défaut, aucune limite (« sans » lève une limite que le plan retient) [variable : VIGIE_DEBIT_MAX]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l delai-tentative -d 'Délai maximal d\'une tentative (secondes) [défaut : 300]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l delai-blocage -d 'Un transfert qui n\'avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l tentatives -d 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l attente-base -d 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l attente-max -d 'Plafond de l\'attente entre deux tentatives (secondes) [défaut : 8]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l echeance -d 'Échéance d\'une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n\'y compte pas) [défaut : 900]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l echecs-reseau -d 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l attente-reseau -d 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l\'arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l endpoint-url -d 'Point d\'accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l region -d 'Région S3 [variable : AWS_REGION]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l profil -d 'Profil d\'identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l enregistreur-type -d 'Le type de l\'enregistreur (PassiveRecorder, SM4BAT…) ; lu dans les noms s\'il s\'y trouve' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l enregistreur-numero-serie -d 'Son numéro de série ; lu dans les noms s\'il s\'y trouve' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro-position -d 'Point fixe : la position du micro, SOL ou CANOPEE' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro-hauteur -d 'Point fixe : la hauteur du micro, en mètres' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro-type -d 'Le type du micro' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro-numero-serie -d 'Le numéro de série du micro' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro1-position -d 'Point fixe : la position du second micro, SOL ou CANOPEE (facultatif)' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro1-hauteur -d 'Point fixe : la hauteur du second micro, en mètres' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro1-type -d 'Point fixe : le type du second micro' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l micro1-numero-serie -d 'Point fixe : le numéro de série du second micro' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l canal-expansion -d 'Routier et pédestre : le canal en expansion de temps, GAUCHE, DROITE ou ABSENT' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l canal-direct -d 'Routier et pédestre : le canal en enregistrement direct, GAUCHE, DROITE ou ABSENT' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l temperature-debut -d 'La température au début de la nuit, en degrés entiers' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l temperature-fin -d 'La température à la fin de la nuit, en degrés entiers' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l vent -d 'Le vent : NUL, FAIBLE, MOYEN ou FORT' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l couverture -d 'La couverture nuageuse, en % : 0-25, 25-50, 50-75 ou 75-100' -r
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l forcer-participation -d 'Dépose dans la participation donnée (ou à créer) même si les noms disent un autre site, point, passage ou soirée, ou plusieurs nuits (la plateforme ne permet pas de retirer un fichier accepté : à n\'utiliser qu\'en connaissance de cause)'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l autoriser-http -d 'Accepte un point d\'accès ou une API en http:// hors de la boucle locale (tout y circule en clair)'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l simulation -d 'Montre ce qui partirait, sans rien envoyer'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l redeposer-modifies -d 'Renvoie les fichiers déjà déposés qui ont changé depuis (taille ou date)'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand depot" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l jusqu-au-bout -d 'Recommence tant que des fichiers restent en échec (au plus DURÉE, ex. 6h)' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l attente-passage -d 'Pause avant le deuxième passage (secondes), doublée à chaque passage suivant, un peu variée au hasard (pour que deux vigie ne reviennent pas ensemble) [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l attente-passage-max -d 'Plafond de la pause entre deux passages (secondes) [défaut : 600]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l paralleles -d 'Nombre de transferts en même temps, au plus (des fichiers, ou les parties d\'un gros fichier quand il reste moins de fichiers que de places) : le parallélisme baisse de lui-même quand le réseau coupe, et remonte vers ce plafond quand un transfert de plus fait croître le débit [défaut : 4]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l seuil-multipart -d 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ; par défaut 8 vers S3, 100 vers Vigie-Chiro (qui repasse en un seul envoi si la plateforme refuse les parties)' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l taille-partie -d 'Taille d\'une partie (Mio, 5 au moins) [défaut : 5]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l debit-max -d 'Débit maximal de tous les envois réunis (ex. 2Mo/s, 500Ko/s, 1.5Mio/s, 16Mbit/s), pour ne pas saturer un partage de connexion ; par défaut, aucune limite (« sans » lève une limite que le plan retient) [variable : VIGIE_DEBIT_MAX]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l delai-tentative -d 'Délai maximal d\'une tentative (secondes) [défaut : 300]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l delai-blocage -d 'Un transfert qui n\'avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l tentatives -d 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l attente-base -d 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l attente-max -d 'Plafond de l\'attente entre deux tentatives (secondes) [défaut : 8]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l echeance -d 'Échéance d\'une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n\'y compte pas) [défaut : 900]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l echecs-reseau -d 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l attente-reseau -d 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l\'arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l endpoint-url -d 'Point d\'accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l region -d 'Région S3 [variable : AWS_REGION]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l profil -d 'Profil d\'identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]' -r
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l y-compris-definitifs -d 'Relance aussi les refus définitifs (après avoir corrigé leur cause)'
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand retenter-echecs" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand etat" -l unites -d 'Liste les fichiers du plan dans cet état, un par ligne, triés par chemin (chemin, état, cause, dernier message, tentatives, octets) : a_deposer, en_cours, deposee, echec (transitoires et définitifs), incertaine, definitif (refus définitifs seulement), ou tout' -r -f -a "a_deposer\t''
en_cours\t''
deposee\t''
echec\t''
incertaine\t''
definitif\t''
tout\t''"
complete -c vigie -n "__fish_vigie_using_subcommand etat" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand etat" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand etat" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand etat" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand etat" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand etat" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand etat" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand plans" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand plans" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand plans" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand plans" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand plans" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand plans" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand plans" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l delai-tentative -d 'Délai maximal d\'une tentative (secondes) [défaut : 300]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l delai-blocage -d 'Un transfert qui n\'avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l tentatives -d 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l attente-base -d 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l attente-max -d 'Plafond de l\'attente entre deux tentatives (secondes) [défaut : 8]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l echeance -d 'Échéance d\'une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n\'y compte pas) [défaut : 900]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l echecs-reseau -d 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l attente-reseau -d 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l\'arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l endpoint-url -d 'Point d\'accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l region -d 'Région S3 [variable : AWS_REGION]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l profil -d 'Profil d\'identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]' -r
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand verifier" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l jeton -d 'Le jeton copié depuis l\'adresse du site après « ?token= » ; « - » pour le coller à l\'invite (masqué) ou le lire sur l\'entrée standard, sans qu\'il apparaisse dans l\'historique ni dans la liste des processus. Sans --jeton ni --api : dit quelle adresse et quel compte sont enregistrés' -r
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l api -d 'Base de l\'API Vigie-Chiro, vérifiée puis retenue à côté du jeton : les commandes suivantes s\'en servent sans --api (--api et VIGIE_API l\'emportent sur elle). Sans --jeton, c\'est le jeton déjà enregistré qui est vérifié à cette adresse' -r
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand connexion" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand deconnexion" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand participations" -l api -d 'Base de l\'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]' -r
complete -c vigie -n "__fish_vigie_using_subcommand participations" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand participations" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand participations" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand participations" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand participations" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand participations" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand participations" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l participation -d 'Une participation hors de la base (l\'identifiant de 24 caractères, fin de l\'adresse de sa page), au lieu des nuits' -r
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l api -d 'Base de l\'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]' -r
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l relancer -d 'Relance le calcul des nuits nommées déjà calculées (leurs résultats seront remplacés par ceux du nouveau calcul), ou d\'un calcul qui semble arrêté depuis plus d\'un jour ; jamais sur toute la saison : nommez les nuits'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l nuit-incomplete -d 'Lance le calcul même si des fichiers de la nuit ne sont pas (encore) déposés, ou qu\'un dépôt de cette nuit est en cours : la plateforme ne calculera que ce qu\'elle a, et refusera un autre calcul tant que celui-ci sera planifié ou en cours (un jour au plus)'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand traiter" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l participation -d 'Une participation hors de la base (l\'identifiant de 24 caractères, fin de l\'adresse de sa page), au lieu des nuits' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l echeance -d 'Avec --attendre : s\'arrête au plus tard après DURÉE (ex. 2h, 30min), sur le dernier état relevé (code 1 s\'il n\'est pas fini)' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l patience -d 'Avec --attendre : combien suivre encore un calcul qui semble arrêté (planifié ou en cours depuis plus d\'un jour) avant de rendre la main (code 1), ex. 10min, 2h [défaut : 30min]' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l attente-releve -d 'Attente avant le deuxième relevé (secondes), doublée à chaque relevé suivant, un peu variée au hasard [défaut : 30]' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l attente-releve-max -d 'Plafond de l\'attente entre deux relevés (secondes) [défaut : 300]' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l api -d 'Base de l\'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]' -r
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l attendre -d 'Relève l\'état, nuit après nuit, jusqu\'à ce que le calcul soit fini ou en erreur ; rend la main plus tôt pour une nuit sans calcul lancé, un calcul qui semble arrêté (--patience), Ctrl-C ou --echeance. Un indicateur dit « prochain relevé dans N s »'
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand traitement" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l participation -d 'Une participation hors de la base (l\'identifiant de 24 caractères, fin de l\'adresse de sa page), au lieu des nuits' -r
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l sortie -d 'Dossier où écrire les fichiers (créé s\'il n\'existe pas). Par défaut, pour une saison : resultats-vigie-chiro-ANNÉE dans le dossier courant ; sinon le dossier courant' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l api -d 'Base de l\'API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]' -r
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l avec-journal -d 'Télécharge aussi le journal du calcul (AAAA-MM-JJ_POINT_PassN_CarSITE-journal.txt)'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l demander-csv -d 'Demande à la plateforme de produire le CSV des observations des nuits calculées qui ne l\'ont pas (elle l\'envoie aussi par courriel) ; relancez vigie resultats quelques minutes plus tard pour le télécharger'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand resultats" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -l appliquer -d 'Renomme pour de bon (sans cette option, montre seulement ce qui serait renommé)'
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand renommer" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l vers -d 'Le dossier où écrire les séquences, un sous-dossier par nuit (créé au besoin ; pas sur la carte)' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l site -d 'Le numéro de site des noms (640380 pour Car640380), si les noms ne le portent pas' -r
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l passage -d 'Le numéro de passage, si les noms ne le portent pas' -r
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l point -d 'Le point d\'écoute (A1…H2, Z1…), si les noms ne le portent pas' -r
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand preparer" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l graine -d 'Graine de la saison et des pannes : la même graine rejoue la même démonstration (tirée au hasard sinon, et affichée)' -r
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l garder -d 'Garde la saison, les données du bac à sable et la base de la démonstration (le dossier est affiché)'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l sans-pannes -d 'Sans pannes simulées : un dépôt sans accroc'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand demo" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l port -d 'Port d\'écoute sur 127.0.0.1 (0 : un port libre, choisi par le système) [défaut : 8210]' -r
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l dossier -d 'Dossier du bac à sable (données S3, base d\'essai), gardé d\'un lancement à l\'autre (sinon un dossier temporaire, effacé à l\'arrêt). L\'état de la plateforme (fichiers déclarés) repart à zéro' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l pannes -d 'Une panne à simuler (répétable), ex. « PutObject#3=503:retry-after=2 »' -r
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l calcul-attente -d 'Temps qu\'un calcul lancé (vigie traiter) reste planifié avant de commencer [défaut : 30s]' -r
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l calcul-duree -d 'Durée d\'un calcul simulé, de son début à sa fin (le bilan, puis le CSV des observations, viennent ensuite) [défaut : 2min]' -r
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l calcul-echecs -d 'Essais du calcul qui échouent avant qu\'un réussisse : la plateforme refait un essai d\'elle-même (RETRY), puis passe en erreur (ERREUR) au second échec [défaut : 0]' -r
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand bac-a-sable" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand completions" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand completions" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand completions" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand completions" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand completions" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand completions" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand completions" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -l base -d 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -l progression -d 'Barres de progression : auto (si la sortie d\'erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]' -r -f -a "auto\t''
toujours\t''
jamais\t''"
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -l journal -d 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600' -r -F
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -l json -d 'Événements et bilan en lignes JSON sur la sortie standard'
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -s v -l verbose -d 'Plus de détails sur la sortie d\'erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l\'emporte'
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -s q -l quiet -d 'Seulement le bilan et les erreurs'
complete -c vigie -n "__fish_vigie_using_subcommand generer-docs" -s h -l help -d 'Affiche l\'aide (--help : le détail et toutes les options)'
