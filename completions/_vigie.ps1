
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'vigie', 'vigie.exe', '.\vigie.exe', './vigie.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'vigie'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'vigie' {
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Affiche la version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Affiche la version')
            [CompletionResult]::new('depot', 'depot', [CompletionResultType]::ParameterValue, 'Dépose une saison ou une nuit ; relancer la même commande reprend')
            [CompletionResult]::new('retenter-echecs', 'retenter-echecs', [CompletionResultType]::ParameterValue, 'Reprend ce qui reste de la saison : nuits entamées, en échec, pas commencées (alias : retenter)')
            [CompletionResult]::new('etat', 'etat', [CompletionResultType]::ParameterValue, 'Montre l''état de la saison du dernier dépôt, nuit par nuit, ou des nuits nommées (ou d''un plan hors saison), ou leurs fichiers un par un')
            [CompletionResult]::new('plans', 'plans', [CompletionResultType]::ParameterValue, 'Liste les plans de la base')
            [CompletionResult]::new('verifier', 'verifier', [CompletionResultType]::ParameterValue, 'Relit la destination : chaque fichier déposé y est-il, intact ? (Toute la saison du dernier dépôt, ou les nuits nommées.)')
            [CompletionResult]::new('connexion', 'connexion', [CompletionResultType]::ParameterValue, 'Vérifie et enregistre le jeton (et l''adresse de l''API) ; sans argument, dit ce qui est enregistré')
            [CompletionResult]::new('deconnexion', 'deconnexion', [CompletionResultType]::ParameterValue, 'Efface le jeton enregistré')
            [CompletionResult]::new('participations', 'participations', [CompletionResultType]::ParameterValue, 'Liste vos participations sur la plateforme, toutes (celles du site web comme celles de vigie), groupées par site et par saison')
            [CompletionResult]::new('traiter', 'traiter', [CompletionResultType]::ParameterValue, 'Lance le calcul des nuits sur la plateforme (jamais automatique)')
            [CompletionResult]::new('traitement', 'traitement', [CompletionResultType]::ParameterValue, 'Dit où en est le calcul de chaque nuit sur la plateforme, et son bilan une fois fini')
            [CompletionResult]::new('resultats', 'resultats', [CompletionResultType]::ParameterValue, 'Télécharge les résultats du calcul de chaque nuit : le CSV des observations (et le journal du calcul)')
            [CompletionResult]::new('renommer', 'renommer', [CompletionResultType]::ParameterValue, 'Corrige les noms refusés par la plateforme quand la correction est sans ambiguïté')
            [CompletionResult]::new('preparer', 'preparer', [CompletionResultType]::ParameterValue, 'Prépare une carte brute en séquences de 5 s à l''expansion ×10, comme le compagnon officiel')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Démonstration : une petite saison générée, déposée sur le bac à sable malgré des pannes')
            [CompletionResult]::new('bac-a-sable', 'bac-a-sable', [CompletionResultType]::ParameterValue, 'Sert la plateforme locale (API Vigie-Chiro + S3) sur 127.0.0.1 jusqu''à Ctrl-C')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Écrit le script de complétion pour un shell sur la sortie standard')
            break
        }
        'vigie;depot' {
            [CompletionResult]::new('--vers', '--vers', [CompletionResultType]::ParameterName, 'Dépose dans un compartiment S3 ou un dossier plutôt que sur la plateforme')
            [CompletionResult]::new('--participation', '--participation', [CompletionResultType]::ParameterName, 'La participation (créée sur le site web) qui reçoit la nuit')
            [CompletionResult]::new('--site', '--site', [CompletionResultType]::ParameterName, 'Le site où créer la participation (avec --debut et --fin)')
            [CompletionResult]::new('--point', '--point', [CompletionResultType]::ParameterName, 'Le point d''écoute de la participation à créer (ex. A1)')
            [CompletionResult]::new('--passage', '--passage', [CompletionResultType]::ParameterName, 'Carte brute : le numéro de passage, si les noms ne le portent pas')
            [CompletionResult]::new('--debut', '--debut', [CompletionResultType]::ParameterName, 'Début de la nuit (ex. 2026-06-21T23:30:00+02:00)')
            [CompletionResult]::new('--fin', '--fin', [CompletionResultType]::ParameterName, 'Fin de la nuit, ISO 8601 avec son fuseau (comme --debut)')
            [CompletionResult]::new('--fuseau', '--fuseau', [CompletionResultType]::ParameterName, 'Fuseau de l''horloge des enregistreurs (défaut : celui de cet ordinateur)')
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]')
            [CompletionResult]::new('--jusqu-au-bout', '--jusqu-au-bout', [CompletionResultType]::ParameterName, 'Recommence tant que des fichiers restent en échec (au plus DURÉE, ex. 6h)')
            [CompletionResult]::new('--attente-passage', '--attente-passage', [CompletionResultType]::ParameterName, 'Pause avant le deuxième passage (secondes), doublée à chaque passage suivant, un peu variée au hasard (pour que deux vigie ne reviennent pas ensemble) [défaut : 30]')
            [CompletionResult]::new('--attente-passage-max', '--attente-passage-max', [CompletionResultType]::ParameterName, 'Plafond de la pause entre deux passages (secondes) [défaut : 600]')
            [CompletionResult]::new('--paralleles', '--paralleles', [CompletionResultType]::ParameterName, 'Nombre de transferts en même temps, au plus (des fichiers, ou les parties d''un gros fichier quand il reste moins de fichiers que de places) : le parallélisme baisse de lui-même quand le réseau coupe, et remonte vers ce plafond quand un transfert de plus fait croître le débit [défaut : 4]')
            [CompletionResult]::new('--seuil-multipart', '--seuil-multipart', [CompletionResultType]::ParameterName, 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ; par défaut 8 vers S3, 100 vers Vigie-Chiro (qui repasse en un seul envoi si la plateforme refuse les parties)')
            [CompletionResult]::new('--taille-partie', '--taille-partie', [CompletionResultType]::ParameterName, 'Taille d''une partie (Mio, 5 au moins) [défaut : 5]')
            [CompletionResult]::new('--debit-max', '--debit-max', [CompletionResultType]::ParameterName, 'Débit maximal de tous les envois réunis (ex. 2Mo/s, 500Ko/s, 1.5Mio/s, 16Mbit/s), pour ne pas saturer un partage de connexion ; par défaut, aucune limite (« sans » lève une limite que le plan retient) [variable : VIGIE_DEBIT_MAX]')
            [CompletionResult]::new('--delai-tentative', '--delai-tentative', [CompletionResultType]::ParameterName, 'Délai maximal d''une tentative (secondes) [défaut : 300]')
            [CompletionResult]::new('--delai-blocage', '--delai-blocage', [CompletionResultType]::ParameterName, 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]')
            [CompletionResult]::new('--tentatives', '--tentatives', [CompletionResultType]::ParameterName, 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]')
            [CompletionResult]::new('--attente-base', '--attente-base', [CompletionResultType]::ParameterName, 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]')
            [CompletionResult]::new('--attente-max', '--attente-max', [CompletionResultType]::ParameterName, 'Plafond de l''attente entre deux tentatives (secondes) [défaut : 8]')
            [CompletionResult]::new('--echeance', '--echeance', [CompletionResultType]::ParameterName, 'Échéance d''une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n''y compte pas) [défaut : 900]')
            [CompletionResult]::new('--echecs-reseau', '--echecs-reseau', [CompletionResultType]::ParameterName, 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]')
            [CompletionResult]::new('--attente-reseau', '--attente-reseau', [CompletionResultType]::ParameterName, 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l''arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau')
            [CompletionResult]::new('--endpoint-url', '--endpoint-url', [CompletionResultType]::ParameterName, 'Point d''accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'Région S3 [variable : AWS_REGION]')
            [CompletionResult]::new('--profil', '--profil', [CompletionResultType]::ParameterName, 'Profil d''identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]')
            [CompletionResult]::new('--enregistreur-type', '--enregistreur-type', [CompletionResultType]::ParameterName, 'Le type de l''enregistreur (PassiveRecorder, SM4BAT…) ; lu dans les noms s''il s''y trouve')
            [CompletionResult]::new('--enregistreur-numero-serie', '--enregistreur-numero-serie', [CompletionResultType]::ParameterName, 'Son numéro de série ; lu dans les noms s''il s''y trouve')
            [CompletionResult]::new('--micro-position', '--micro-position', [CompletionResultType]::ParameterName, 'Point fixe : la position du micro, SOL ou CANOPEE')
            [CompletionResult]::new('--micro-hauteur', '--micro-hauteur', [CompletionResultType]::ParameterName, 'Point fixe : la hauteur du micro, en mètres')
            [CompletionResult]::new('--micro-type', '--micro-type', [CompletionResultType]::ParameterName, 'Le type du micro')
            [CompletionResult]::new('--micro-numero-serie', '--micro-numero-serie', [CompletionResultType]::ParameterName, 'Le numéro de série du micro')
            [CompletionResult]::new('--micro1-position', '--micro1-position', [CompletionResultType]::ParameterName, 'Point fixe : la position du second micro, SOL ou CANOPEE (facultatif)')
            [CompletionResult]::new('--micro1-hauteur', '--micro1-hauteur', [CompletionResultType]::ParameterName, 'Point fixe : la hauteur du second micro, en mètres')
            [CompletionResult]::new('--micro1-type', '--micro1-type', [CompletionResultType]::ParameterName, 'Point fixe : le type du second micro')
            [CompletionResult]::new('--micro1-numero-serie', '--micro1-numero-serie', [CompletionResultType]::ParameterName, 'Point fixe : le numéro de série du second micro')
            [CompletionResult]::new('--canal-expansion', '--canal-expansion', [CompletionResultType]::ParameterName, 'Routier et pédestre : le canal en expansion de temps, GAUCHE, DROITE ou ABSENT')
            [CompletionResult]::new('--canal-direct', '--canal-direct', [CompletionResultType]::ParameterName, 'Routier et pédestre : le canal en enregistrement direct, GAUCHE, DROITE ou ABSENT')
            [CompletionResult]::new('--temperature-debut', '--temperature-debut', [CompletionResultType]::ParameterName, 'La température au début de la nuit, en degrés entiers')
            [CompletionResult]::new('--temperature-fin', '--temperature-fin', [CompletionResultType]::ParameterName, 'La température à la fin de la nuit, en degrés entiers')
            [CompletionResult]::new('--vent', '--vent', [CompletionResultType]::ParameterName, 'Le vent : NUL, FAIBLE, MOYEN ou FORT')
            [CompletionResult]::new('--couverture', '--couverture', [CompletionResultType]::ParameterName, 'La couverture nuageuse, en % : 0-25, 25-50, 50-75 ou 75-100')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--forcer-participation', '--forcer-participation', [CompletionResultType]::ParameterName, 'Dépose dans la participation donnée (ou à créer) même si les noms disent un autre site, point, passage ou soirée, ou plusieurs nuits (la plateforme ne permet pas de retirer un fichier accepté : à n''utiliser qu''en connaissance de cause)')
            [CompletionResult]::new('--autoriser-http', '--autoriser-http', [CompletionResultType]::ParameterName, 'Accepte un point d''accès ou une API en http:// hors de la boucle locale (tout y circule en clair)')
            [CompletionResult]::new('--simulation', '--simulation', [CompletionResultType]::ParameterName, 'Montre ce qui partirait, sans rien envoyer')
            [CompletionResult]::new('--redeposer-modifies', '--redeposer-modifies', [CompletionResultType]::ParameterName, 'Renvoie les fichiers déjà déposés qui ont changé depuis (taille ou date)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;retenter-echecs' {
            [CompletionResult]::new('--jusqu-au-bout', '--jusqu-au-bout', [CompletionResultType]::ParameterName, 'Recommence tant que des fichiers restent en échec (au plus DURÉE, ex. 6h)')
            [CompletionResult]::new('--attente-passage', '--attente-passage', [CompletionResultType]::ParameterName, 'Pause avant le deuxième passage (secondes), doublée à chaque passage suivant, un peu variée au hasard (pour que deux vigie ne reviennent pas ensemble) [défaut : 30]')
            [CompletionResult]::new('--attente-passage-max', '--attente-passage-max', [CompletionResultType]::ParameterName, 'Plafond de la pause entre deux passages (secondes) [défaut : 600]')
            [CompletionResult]::new('--paralleles', '--paralleles', [CompletionResultType]::ParameterName, 'Nombre de transferts en même temps, au plus (des fichiers, ou les parties d''un gros fichier quand il reste moins de fichiers que de places) : le parallélisme baisse de lui-même quand le réseau coupe, et remonte vers ce plafond quand un transfert de plus fait croître le débit [défaut : 4]')
            [CompletionResult]::new('--seuil-multipart', '--seuil-multipart', [CompletionResultType]::ParameterName, 'Au-delà de cette taille (Mio), un fichier part en plusieurs parties (multipart) ; par défaut 8 vers S3, 100 vers Vigie-Chiro (qui repasse en un seul envoi si la plateforme refuse les parties)')
            [CompletionResult]::new('--taille-partie', '--taille-partie', [CompletionResultType]::ParameterName, 'Taille d''une partie (Mio, 5 au moins) [défaut : 5]')
            [CompletionResult]::new('--debit-max', '--debit-max', [CompletionResultType]::ParameterName, 'Débit maximal de tous les envois réunis (ex. 2Mo/s, 500Ko/s, 1.5Mio/s, 16Mbit/s), pour ne pas saturer un partage de connexion ; par défaut, aucune limite (« sans » lève une limite que le plan retient) [variable : VIGIE_DEBIT_MAX]')
            [CompletionResult]::new('--delai-tentative', '--delai-tentative', [CompletionResultType]::ParameterName, 'Délai maximal d''une tentative (secondes) [défaut : 300]')
            [CompletionResult]::new('--delai-blocage', '--delai-blocage', [CompletionResultType]::ParameterName, 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]')
            [CompletionResult]::new('--tentatives', '--tentatives', [CompletionResultType]::ParameterName, 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]')
            [CompletionResult]::new('--attente-base', '--attente-base', [CompletionResultType]::ParameterName, 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]')
            [CompletionResult]::new('--attente-max', '--attente-max', [CompletionResultType]::ParameterName, 'Plafond de l''attente entre deux tentatives (secondes) [défaut : 8]')
            [CompletionResult]::new('--echeance', '--echeance', [CompletionResultType]::ParameterName, 'Échéance d''une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n''y compte pas) [défaut : 900]')
            [CompletionResult]::new('--echecs-reseau', '--echecs-reseau', [CompletionResultType]::ParameterName, 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]')
            [CompletionResult]::new('--attente-reseau', '--attente-reseau', [CompletionResultType]::ParameterName, 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l''arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau')
            [CompletionResult]::new('--endpoint-url', '--endpoint-url', [CompletionResultType]::ParameterName, 'Point d''accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'Région S3 [variable : AWS_REGION]')
            [CompletionResult]::new('--profil', '--profil', [CompletionResultType]::ParameterName, 'Profil d''identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--y-compris-definitifs', '--y-compris-definitifs', [CompletionResultType]::ParameterName, 'Relance aussi les refus définitifs (après avoir corrigé leur cause)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;etat' {
            [CompletionResult]::new('--unites', '--unites', [CompletionResultType]::ParameterName, 'Liste les fichiers du plan dans cet état, un par ligne, triés par chemin (chemin, état, cause, dernier message, tentatives, octets) : a_deposer, en_cours, deposee, echec (transitoires et définitifs), incertaine, definitif (refus définitifs seulement), ou tout')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;plans' {
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;verifier' {
            [CompletionResult]::new('--delai-tentative', '--delai-tentative', [CompletionResultType]::ParameterName, 'Délai maximal d''une tentative (secondes) [défaut : 300]')
            [CompletionResult]::new('--delai-blocage', '--delai-blocage', [CompletionResultType]::ParameterName, 'Un transfert qui n''avance plus depuis ce délai (secondes) est coupé et réessayé [défaut : 30]')
            [CompletionResult]::new('--tentatives', '--tentatives', [CompletionResultType]::ParameterName, 'Nombre de tentatives par requête (envois, déclarations, finalisations) [défaut : 7]')
            [CompletionResult]::new('--attente-base', '--attente-base', [CompletionResultType]::ParameterName, 'Attente de base entre deux tentatives (secondes), doublée à chaque échec [défaut : 0.5]')
            [CompletionResult]::new('--attente-max', '--attente-max', [CompletionResultType]::ParameterName, 'Plafond de l''attente entre deux tentatives (secondes) [défaut : 8]')
            [CompletionResult]::new('--echeance', '--echeance', [CompletionResultType]::ParameterName, 'Échéance d''une émission, tentatives et attentes comprises (secondes ; le temps passé en pause réseau n''y compte pas) [défaut : 900]')
            [CompletionResult]::new('--echecs-reseau', '--echecs-reseau', [CompletionResultType]::ParameterName, 'Échecs réseau de suite, sans réponse du serveur, qui déclarent le réseau coupé [défaut : 2]')
            [CompletionResult]::new('--attente-reseau', '--attente-reseau', [CompletionResultType]::ParameterName, 'Une coupure du réseau plus longue arrête le passage (secondes). Par défaut, aucune limite : vigie attend le retour du réseau (Ctrl-C ou --jusqu-au-bout=DURÉE l''arrêtent). Pendant la coupure, aucun fichier ne consomme de tentative : une sonde guette le retour du réseau')
            [CompletionResult]::new('--endpoint-url', '--endpoint-url', [CompletionResultType]::ParameterName, 'Point d''accès S3 (pour un service non AWS) ; active le style chemin [variable : AWS_ENDPOINT_URL]')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'Région S3 [variable : AWS_REGION]')
            [CompletionResult]::new('--profil', '--profil', [CompletionResultType]::ParameterName, 'Profil d''identifiants AWS (~/.aws/credentials) [variable : AWS_PROFILE]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;connexion' {
            [CompletionResult]::new('--jeton', '--jeton', [CompletionResultType]::ParameterName, 'Le jeton copié depuis l''adresse du site après « ?token= » ; « - » pour le coller à l''invite (masqué) ou le lire sur l''entrée standard, sans qu''il apparaisse dans l''historique ni dans la liste des processus. Sans --jeton ni --api : dit quelle adresse et quel compte sont enregistrés')
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro, vérifiée puis retenue à côté du jeton : les commandes suivantes s''en servent sans --api (--api et VIGIE_API l''emportent sur elle). Sans --jeton, c''est le jeton déjà enregistré qui est vérifié à cette adresse')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;deconnexion' {
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;participations' {
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;traiter' {
            [CompletionResult]::new('--participation', '--participation', [CompletionResultType]::ParameterName, 'Une participation hors de la base (l''identifiant de 24 caractères, fin de l''adresse de sa page), au lieu des nuits')
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--relancer', '--relancer', [CompletionResultType]::ParameterName, 'Relance le calcul des nuits nommées déjà calculées (leurs résultats seront remplacés par ceux du nouveau calcul), ou d''un calcul qui semble arrêté depuis plus d''un jour ; jamais sur toute la saison : nommez les nuits')
            [CompletionResult]::new('--nuit-incomplete', '--nuit-incomplete', [CompletionResultType]::ParameterName, 'Lance le calcul même si des fichiers de la nuit ne sont pas (encore) déposés, ou qu''un dépôt de cette nuit est en cours : la plateforme ne calculera que ce qu''elle a, et refusera un autre calcul tant que celui-ci sera planifié ou en cours (un jour au plus)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;traitement' {
            [CompletionResult]::new('--participation', '--participation', [CompletionResultType]::ParameterName, 'Une participation hors de la base (l''identifiant de 24 caractères, fin de l''adresse de sa page), au lieu des nuits')
            [CompletionResult]::new('--echeance', '--echeance', [CompletionResultType]::ParameterName, 'Avec --attendre : s''arrête au plus tard après DURÉE (ex. 2h, 30min), sur le dernier état relevé (code 1 s''il n''est pas fini)')
            [CompletionResult]::new('--patience', '--patience', [CompletionResultType]::ParameterName, 'Avec --attendre : combien suivre encore un calcul qui semble arrêté (planifié ou en cours depuis plus d''un jour) avant de rendre la main (code 1), ex. 10min, 2h [défaut : 30min]')
            [CompletionResult]::new('--attente-releve', '--attente-releve', [CompletionResultType]::ParameterName, 'Attente avant le deuxième relevé (secondes), doublée à chaque relevé suivant, un peu variée au hasard [défaut : 30]')
            [CompletionResult]::new('--attente-releve-max', '--attente-releve-max', [CompletionResultType]::ParameterName, 'Plafond de l''attente entre deux relevés (secondes) [défaut : 300]')
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--attendre', '--attendre', [CompletionResultType]::ParameterName, 'Relève l''état, nuit après nuit, jusqu''à ce que le calcul soit fini ou en erreur ; rend la main plus tôt pour une nuit sans calcul lancé, un calcul qui semble arrêté (--patience), Ctrl-C ou --echeance. Un indicateur dit « prochain relevé dans N s »')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;resultats' {
            [CompletionResult]::new('--participation', '--participation', [CompletionResultType]::ParameterName, 'Une participation hors de la base (l''identifiant de 24 caractères, fin de l''adresse de sa page), au lieu des nuits')
            [CompletionResult]::new('--sortie', '--sortie', [CompletionResultType]::ParameterName, 'Dossier où écrire les fichiers (créé s''il n''existe pas). Par défaut, pour une saison : resultats-vigie-chiro-ANNÉE dans le dossier courant ; sinon le dossier courant')
            [CompletionResult]::new('--api', '--api', [CompletionResultType]::ParameterName, 'Base de l''API Vigie-Chiro (HTTPS exigé hors de la boucle locale) ; par défaut celle que « vigie connexion --api » a retenue, sinon https://vigiechiro.herokuapp.com/api/v1 [variable : VIGIE_API]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--avec-journal', '--avec-journal', [CompletionResultType]::ParameterName, 'Télécharge aussi le journal du calcul (AAAA-MM-JJ_POINT_PassN_CarSITE-journal.txt)')
            [CompletionResult]::new('--demander-csv', '--demander-csv', [CompletionResultType]::ParameterName, 'Demande à la plateforme de produire le CSV des observations des nuits calculées qui ne l''ont pas (elle l''envoie aussi par courriel) ; relancez vigie resultats quelques minutes plus tard pour le télécharger')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;renommer' {
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--appliquer', '--appliquer', [CompletionResultType]::ParameterName, 'Renomme pour de bon (sans cette option, montre seulement ce qui serait renommé)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;preparer' {
            [CompletionResult]::new('--vers', '--vers', [CompletionResultType]::ParameterName, 'Le dossier où écrire les séquences, un sous-dossier par nuit (créé au besoin ; pas sur la carte)')
            [CompletionResult]::new('--site', '--site', [CompletionResultType]::ParameterName, 'Le numéro de site des noms (640380 pour Car640380), si les noms ne le portent pas')
            [CompletionResult]::new('--passage', '--passage', [CompletionResultType]::ParameterName, 'Le numéro de passage, si les noms ne le portent pas')
            [CompletionResult]::new('--point', '--point', [CompletionResultType]::ParameterName, 'Le point d''écoute (A1…H2, Z1…), si les noms ne le portent pas')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;demo' {
            [CompletionResult]::new('--graine', '--graine', [CompletionResultType]::ParameterName, 'Graine de la saison et des pannes : la même graine rejoue la même démonstration (tirée au hasard sinon, et affichée)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--garder', '--garder', [CompletionResultType]::ParameterName, 'Garde la saison, les données du bac à sable et la base de la démonstration (le dossier est affiché)')
            [CompletionResult]::new('--sans-pannes', '--sans-pannes', [CompletionResultType]::ParameterName, 'Sans pannes simulées : un dépôt sans accroc')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;bac-a-sable' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Port d''écoute sur 127.0.0.1 (0 : un port libre, choisi par le système) [défaut : 8210]')
            [CompletionResult]::new('--dossier', '--dossier', [CompletionResultType]::ParameterName, 'Dossier du bac à sable (données S3, base d''essai), gardé d''un lancement à l''autre (sinon un dossier temporaire, effacé à l''arrêt). L''état de la plateforme (fichiers déclarés) repart à zéro')
            [CompletionResult]::new('--pannes', '--pannes', [CompletionResultType]::ParameterName, 'Une panne à simuler (répétable), ex. « PutObject#3=503:retry-after=2 »')
            [CompletionResult]::new('--calcul-attente', '--calcul-attente', [CompletionResultType]::ParameterName, 'Temps qu''un calcul lancé (vigie traiter) reste planifié avant de commencer [défaut : 30s]')
            [CompletionResult]::new('--calcul-duree', '--calcul-duree', [CompletionResultType]::ParameterName, 'Durée d''un calcul simulé, de son début à sa fin (le bilan, puis le CSV des observations, viennent ensuite) [défaut : 2min]')
            [CompletionResult]::new('--calcul-echecs', '--calcul-echecs', [CompletionResultType]::ParameterName, 'Essais du calcul qui échouent avant qu''un réussisse : la plateforme refait un essai d''elle-même (RETRY), puis passe en erreur (ERREUR) au second échec [défaut : 0]')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
        'vigie;completions' {
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) [variable : VIGIE_BASE]')
            [CompletionResult]::new('--progression', '--progression', [CompletionResultType]::ParameterName, 'Barres de progression : auto (si la sortie d''erreur est un terminal, sinon une ligne par événement), toujours, jamais [défaut : auto]')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Journal complet en lignes JSON (chaque décision de réessai), ajouté à FICHIER, créé en 0600')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Événements et bilan en lignes JSON sur la sortie standard')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Plus de détails sur la sortie d''erreur (-v : décisions de réessai, -vv : détail, -vvv : tout) ; RUST_LOG l''emporte')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Seulement le bilan et les erreurs')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Affiche l''aide (--help : le détail et toutes les options)')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
