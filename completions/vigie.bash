_vigie() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="vigie"
                ;;
            vigie,bac-a-sable)
                cmd="vigie__subcmd__bac__subcmd__a__subcmd__sable"
                ;;
            vigie,completions)
                cmd="vigie__subcmd__completions"
                ;;
            vigie,connexion)
                cmd="vigie__subcmd__connexion"
                ;;
            vigie,deconnexion)
                cmd="vigie__subcmd__deconnexion"
                ;;
            vigie,demo)
                cmd="vigie__subcmd__demo"
                ;;
            vigie,depot)
                cmd="vigie__subcmd__depot"
                ;;
            vigie,etat)
                cmd="vigie__subcmd__etat"
                ;;
            vigie,generer-docs)
                cmd="vigie__subcmd__generer__subcmd__docs"
                ;;
            vigie,participations)
                cmd="vigie__subcmd__participations"
                ;;
            vigie,plans)
                cmd="vigie__subcmd__plans"
                ;;
            vigie,preparer)
                cmd="vigie__subcmd__preparer"
                ;;
            vigie,renommer)
                cmd="vigie__subcmd__renommer"
                ;;
            vigie,resultats)
                cmd="vigie__subcmd__resultats"
                ;;
            vigie,retenter-echecs)
                cmd="vigie__subcmd__retenter__subcmd__echecs"
                ;;
            vigie,traitement)
                cmd="vigie__subcmd__traitement"
                ;;
            vigie,traiter)
                cmd="vigie__subcmd__traiter"
                ;;
            vigie,verifier)
                cmd="vigie__subcmd__verifier"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        vigie)
            opts="-v -q -h -V --base --json --progression --verbose --quiet --journal --help --version depot retenter-echecs etat plans verifier connexion deconnexion participations traiter traitement resultats renommer preparer demo bac-a-sable completions generer-docs"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__bac__subcmd__a__subcmd__sable)
            opts="-v -q -h --port --dossier --pannes --calcul-attente --calcul-duree --calcul-echecs --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --port)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dossier)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pannes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --calcul-attente)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --calcul-duree)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --calcul-echecs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__completions)
            opts="-v -q -h --base --json --progression --verbose --quiet --journal --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__connexion)
            opts="-v -q -h --jeton --api --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --jeton)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__deconnexion)
            opts="-v -q -h --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__demo)
            opts="-v -q -h --garder --sans-pannes --graine --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --graine)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__depot)
            opts="-v -q -h --vers --participation --site --point --passage --debut --fin --fuseau --forcer-participation --api --autoriser-http --simulation --redeposer-modifies --jusqu-au-bout --attente-passage --attente-passage-max --paralleles --seuil-multipart --taille-partie --debit-max --delai-tentative --delai-blocage --tentatives --attente-base --attente-max --echeance --echecs-reseau --attente-reseau --endpoint-url --region --profil --enregistreur-type --enregistreur-numero-serie --micro-position --micro-hauteur --micro-type --micro-numero-serie --micro1-position --micro1-hauteur --micro1-type --micro1-numero-serie --canal-expansion --canal-direct --temperature-debut --temperature-fin --vent --couverture --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --vers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --participation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --site)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --point)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --passage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --debut)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fin)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fuseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jusqu-au-bout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-passage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-passage-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --paralleles)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seuil-multipart)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --taille-partie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --debit-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delai-tentative)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delai-blocage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tentatives)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echeance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echecs-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoint-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profil)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --enregistreur-type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --enregistreur-numero-serie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro-position)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro-hauteur)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro-type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro-numero-serie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro1-position)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro1-hauteur)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro1-type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --micro1-numero-serie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --canal-expansion)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --canal-direct)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --temperature-debut)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --temperature-fin)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --vent)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --couverture)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__etat)
            opts="-v -q -h --unites --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --unites)
                    COMPREPLY=($(compgen -W "a_deposer en_cours deposee echec incertaine definitif tout" -- "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__generer__subcmd__docs)
            opts="-v -q -h --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__participations)
            opts="-v -q -h --api --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__plans)
            opts="-v -q -h --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__preparer)
            opts="-v -q -h --vers --site --passage --point --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --vers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --site)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --passage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --point)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__renommer)
            opts="-v -q -h --appliquer --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__resultats)
            opts="-v -q -h --participation --sortie --avec-journal --demander-csv --api --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --participation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sortie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__retenter__subcmd__echecs)
            opts="-v -q -h --y-compris-definitifs --jusqu-au-bout --attente-passage --attente-passage-max --paralleles --seuil-multipart --taille-partie --debit-max --delai-tentative --delai-blocage --tentatives --attente-base --attente-max --echeance --echecs-reseau --attente-reseau --endpoint-url --region --profil --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --jusqu-au-bout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-passage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-passage-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --paralleles)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seuil-multipart)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --taille-partie)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --debit-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delai-tentative)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delai-blocage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tentatives)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echeance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echecs-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoint-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profil)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__traitement)
            opts="-v -q -h --participation --attendre --echeance --patience --attente-releve --attente-releve-max --api --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --participation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echeance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --patience)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-releve)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-releve-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__traiter)
            opts="-v -q -h --participation --relancer --nuit-incomplete --api --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --participation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        vigie__subcmd__verifier)
            opts="-v -q -h --delai-tentative --delai-blocage --tentatives --attente-base --attente-max --echeance --echecs-reseau --attente-reseau --endpoint-url --region --profil --base --json --progression --verbose --quiet --journal --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --delai-tentative)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delai-blocage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tentatives)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echeance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --echecs-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --attente-reseau)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoint-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profil)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --progression)
                    COMPREPLY=($(compgen -W "auto toujours jamais" -- "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _vigie -o nosort -o bashdefault -o default vigie
else
    complete -F _vigie -o bashdefault -o default vigie
fi
