//! Les événements JSON de `vigie` (`--json`), typés : un variant d'[`Evenement`] par sorte de
//! ligne, ses champs dans l'ordre où ils s'écrivent.
//!
//! Le type est la source du schéma publié (`schemas/vigie.schema.json`) : `schema_publie` le
//! tire du type par schemars, qui lit les mêmes attributs serde que la sérialisation ; la
//! description de chaque événement est le commentaire de son variant. `vigie generer-docs .`
//! réécrit le fichier, et un essai (`tests/integration/docs_a_jour.rs`) échoue s'il n'est plus à
//! jour. Ajouter un événement, c'est ajouter un variant ici (avec son commentaire), l'émettre par
//! [`Evenement::ecrire`], puis régénérer.
//!
//! Chaque ligne JSON de `vigie` est un [`Evenement`] : `ecrire_ligne` (`suivi/json.rs`), par
//! où passe toute ligne, ne prend rien d'autre, et l'essai
//! `scripts::chaque_evenement_emis_a_son_schema` refuse un champ `"evenement"` écrit à la main
//! (par `json!`) ailleurs qu'ici.
//!
//! L'écriture passe par une `serde_json::Value` (comme `json!`) : la ligne écrite est la même,
//! octet pour octet, qu'au temps des `json!`.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Map, Value};

use super::json::{VERSION_JSON, ecrire_ligne};
use crate::plan::{CauseRefus, EtatUnite};

/// Une ligne JSON de `vigie`. Le nom du variant, en `snake_case`, est la valeur du champ
/// `"evenement"` ; `"version"` est ajoutée à l'écriture.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "evenement", rename_all = "snake_case")]
pub enum Evenement<'a> {
    /// Un passage commence : tant de fichiers, tant d'octets à envoyer.
    Debut { unites: u64, octets: u64 },
    /// Un fichier commence à partir.
    UniteCommencee {
        /// Le chemin du fichier, relatif au dossier de la nuit.
        unite: &'a str,
        /// La clé (nom) sous laquelle il est déposé.
        cle: &'a str,
        taille: u64,
    },
    /// Où en est l'envoi d'un fichier : au plus une ligne par fichier et par seconde, plus
    /// celle des 100 %. Le nombre d'octets redescend quand une tentative ratée recommence.
    Progression {
        unite: &'a str,
        octets: u64,
        taille: u64,
    },
    /// Un envoi a échoué pour une raison passagère : il sera rejoué après `attente_s` secondes.
    NouvelleTentative {
        unite: &'a str,
        /// Le numéro de la tentative qui va suivre.
        tentative: u32,
        attente_s: f64,
    },
    /// Un fichier est déposé, et le dépôt vérifié.
    UniteDeposee {
        unite: &'a str,
        cle: &'a str,
        taille: u64,
    },
    /// Vers la plateforme : le fichier y était déjà (déposé par un autre moyen ou un autre
    /// passage) ; rien n'est renvoyé. `contenu_compare` dit si son contenu a pu être comparé.
    UniteDejaSurLaPlateforme {
        unite: &'a str,
        cle: &'a str,
        taille: u64,
        contenu_compare: bool,
    },
    /// Vers une destination sans participation (un compartiment S3…) : l'objet y était déjà,
    /// au même contenu ; rien n'est renvoyé.
    UniteDejaALaDestination {
        unite: &'a str,
        cle: &'a str,
        taille: u64,
    },
    /// Un fichier est en échec : transitoire (definitif false : un autre passage le reprendra)
    /// ou refus définitif.
    UniteEnEchec {
        unite: &'a str,
        #[schemars(schema_with = "schema_cause")]
        cause: &'static str,
        definitif: bool,
        message: &'a str,
    },
    /// On ne sait pas si le fichier est arrivé (réponse perdue, contenu non vérifiable) : le
    /// passage suivant le vérifie avant de rien renvoyer.
    UniteIncertaine { unite: &'a str, message: &'a str },
    /// Le réseau ne répond plus : le dépôt attend son retour, sans limite (Ctrl-C ou la durée
    /// de --jusqu-au-bout l'arrêtent) ; prochain essai dans `attente_s` secondes, coupure
    /// depuis `depuis_s` secondes.
    ReseauIndisponible { attente_s: f64, depuis_s: f64 },
    /// Le réseau répond de nouveau : les envois reprennent.
    ReseauRetabli,
    /// vigie etat, sans nuit nommée, quand le dernier dépôt est une saison : la
    /// saison (API, année) en tout ; une ligne `etat_nuit` par nuit suit.
    EtatSaison {
        saison: i64,
        annee: u16,
        api: &'a str,
        nuits: usize,
        /// Fichiers de toutes les nuits, et ceux qui sont déposés.
        unites: u64,
        deposees: u64,
        definitifs: u64,
        octets_total: u64,
        octets_deposes: u64,
    },
    /// vigie participations : une participation de l'utilisateur sur la plateforme. `site` :
    /// le titre de son site ; `annee` et `soiree` (AAAA-MM-JJ) : sa nuit (celle de ses
    /// fichiers, sinon de sa date de début) ; `passage` : lu dans le nom de ses fichiers ;
    /// `fichiers` : ses séquences (null : pas relues) ; `calcul` : pas_lance, planifie,
    /// en_cours, fini, erreur, retry, autre ; `adresse` : sa page sur le site web (API par
    /// défaut seulement) ; `a_decrire` : les clés de `configuration` (formulaire du site web)
    /// que la participation ne dit pas encore (point fixe : detecteur_enregistreur_type,
    /// micro0_position, micro0_hauteur, micro0_type ; routier et pédestre :
    /// detecteur_enregistreur_type, micro_type, canal_expansion_temps,
    /// canal_enregistrement_direct), vide si rien ne manque.
    Participation {
        site: &'a str,
        annee: Option<i32>,
        soiree: Option<String>,
        point: Option<&'a str>,
        passage: Option<u8>,
        fichiers: Option<u64>,
        #[schemars(schema_with = "schema_calcul_participation")]
        calcul: &'static str,
        adresse: Option<String>,
        participation: &'a str,
        a_decrire: Vec<&'static str>,
    },
    /// vigie etat d'une saison : une nuit (son plan, sa participation, ses comptes). `etat` :
    /// deposee, en_cours (un dépôt vivant la tient), entamee (à moitié déposée, rien ne
    /// tourne), a_deposer, a_creer, echecs, refus. `soiree` (AAAA-MM-JJ) et `point`
    /// null en routier ; `debut` et `fin` (UTC, RFC 3339) : première et dernière séquence ;
    /// `adresse` : la page de la participation sur le site web (API par défaut seulement).
    EtatNuit {
        saison: i64,
        plan: i64,
        site: &'a str,
        numero_site: &'a str,
        #[schemars(schema_with = "schema_protocole")]
        protocole: &'a str,
        passage: u8,
        point: Option<&'a str>,
        soiree: Option<&'a str>,
        debut: Option<String>,
        fin: Option<String>,
        fuseau: &'a str,
        enregistreurs: Vec<&'a str>,
        participation: Option<String>,
        adresse: Option<String>,
        dossier: &'a str,
        unites: u64,
        deposees: u64,
        definitifs: u64,
        octets_total: u64,
        octets_deposes: u64,
        #[schemars(schema_with = "schema_etat_nuit")]
        etat: &'static str,
        /// Le dernier état relevé de son calcul (PLANIFIE, EN_COURS, FINI, ERREUR, RETRY), null
        /// si aucun calcul n'était lancé ou s'il n'a jamais été relevé (calcul_releve_le null).
        calcul_etat: Option<String>,
        /// Quand il a été relevé (secondes Unix) ; null : jamais.
        calcul_releve_le: Option<i64>,
    },
    /// vigie depot DOSSIER… en saison, et retenter-echecs d'une saison : le bilan d'une nuit
    /// à la fin de la course, une ligne par nuit (après les `bilan` de ses passages).
    /// `participation` : son identifiant s'il est connu (null : création pas encore faite) ;
    /// `adresse` : sa page sur le site web (API par défaut seulement) ; `soiree` (AAAA-MM-JJ)
    /// et `point` null en routier ; `echecs` : unités en échec ou incertaines ; `etat` comme
    /// dans `etat_nuit`.
    BilanNuit {
        plan: i64,
        participation: Option<String>,
        adresse: Option<String>,
        numero_site: &'a str,
        passage: u8,
        point: Option<&'a str>,
        soiree: Option<&'a str>,
        unites: u64,
        deposees: u64,
        echecs: u64,
        definitifs: u64,
        octets_total: u64,
        octets_deposes: u64,
        #[schemars(schema_with = "schema_etat_nuit")]
        etat: &'static str,
    },
    /// vigie depot DOSSIER… en saison (sans destination) : une nuit trouvée dans les noms, avant
    /// tout envoi (et en simulation). `issue` : a_creer (sa participation sera créée), base
    /// (déjà liée à un plan de la base : une relance), fichiers (une participation de la
    /// plateforme contient déjà des fichiers de cette nuit), dates (une participation de la
    /// plateforme au même point, la même nuit), non_verifiee (simulation sans jeton : la
    /// plateforme n'a pas été lue). `participation` : son identifiant, s'il est connu ; `debut`
    /// et `fin` : la première et la dernière séquence, en UTC (RFC 3339).
    Nuit {
        numero_site: &'a str,
        site: Option<&'a str>,
        #[schemars(schema_with = "schema_protocole")]
        protocole: &'static str,
        passage: u8,
        point: Option<&'a str>,
        soiree: Option<String>,
        debut: Option<String>,
        fin: Option<String>,
        enregistreurs: Vec<&'a str>,
        fichiers: usize,
        octets: u64,
        #[schemars(schema_with = "schema_issue_nuit")]
        issue: &'static str,
        participation: Option<String>,
    },
    /// Le dossier de la nuit est devenu illisible pendant le dépôt (carte SD retirée, disque
    /// débranché) : le dépôt attend son retour, sans limite, sans marquer d'échec (Ctrl-C ou la
    /// durée de --jusqu-au-bout l'arrêtent).
    NuitIndisponible { dossier: &'a Path },
    /// Le dossier de la nuit est de nouveau lisible : le dépôt reprend.
    NuitRetrouvee { dossier: &'a Path },
    /// Le nombre d'envois en vol change (le régulateur le baisse quand le lien sature, le
    /// remonte quand il se libère), sous un plafond.
    Parallelisme { courant: usize, plafond: usize },
    /// Le dépôt est interrompu (Ctrl-C, SIGTERM) : le plan est à jour, relancer reprend.
    Interruption,
    /// Toute commande avec --json : l'erreur qui l'arrête (dernière ligne), avec son code de
    /// sortie ; le même message est écrit sur la sortie d'erreur. `nuits` (un refus de saison,
    /// ou --participation avec plusieurs nuits) : les nuits dont dépend le refus, absent
    /// sinon.
    Erreur {
        #[schemars(range(min = 1, max = 255))]
        code: i32,
        message: &'a str,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        nuits: &'a [crate::sortie::NuitNommee],
    },
    /// vigie renommer : un renommage proposé (fait false) ou fait (avec --appliquer).
    Renommage {
        de: &'a str,
        vers: &'a str,
        fait: bool,
    },
    /// vigie renommer : un fichier que le renommage ne suffit pas à rendre acceptable, avec la
    /// règle qu'il enfreint et le geste à faire.
    ACorriger {
        chemin: &'a str,
        regle: &'a str,
        geste: &'a str,
    },
    /// vigie renommer : le bilan (dernière ligne).
    BilanRenommage {
        renommes: usize,
        a_renommer: usize,
        a_corriger: usize,
    },
    /// vigie preparer : une nuit préparée, dans son dossier de sortie.
    NuitPreparee {
        /// Le dossier de la nuit (`Car640380-2026-Pass1-A1-20260621`), dans --vers.
        dossier: &'a str,
        /// La soirée, `AAAA-MM-JJ`.
        soiree: &'a str,
        originaux: usize,
        sequences: usize,
        /// Les séquences écrites par cette commande.
        ecrites: usize,
        /// Les séquences déjà là, complètes, gardées telles quelles.
        deja_la: usize,
        octets_ecrits: u64,
        /// Les enregistreurs reconnus (type et numéro de série, d'où ils viennent).
        materiel: Vec<String>,
    },
    /// vigie preparer : un fichier de la carte qui ne se prépare pas, et pourquoi.
    OriginalRefuse { chemin: &'a str, raison: &'a str },
    /// vigie preparer : le bilan (dernière ligne).
    BilanPreparation {
        nuits: usize,
        sequences: usize,
        ecrites: usize,
        deja_la: usize,
        refuses: usize,
        /// La carte est en lecture seule (signe d'une carte SD en fin de vie).
        lecture_seule: bool,
    },
    /// vigie verifier (S3 comme Vigie-Chiro) : un fichier déposé qui n'est pas intact à la
    /// destination (manquante : remis à déposer ; differente : vers S3, remis à déposer, vers la
    /// plateforme, noté en refus définitif) ou n'a pas pu être relu (inconnue : à revérifier plus
    /// tard ; refusee : la destination refuse de le relire, un geste est nécessaire).
    Verification {
        unite: &'a str,
        cle: &'a str,
        #[schemars(extend("enum" = ["manquante", "differente", "inconnue", "refusee"]))]
        etat: &'a str,
        detail: &'a str,
    },
    /// vigie verifier : le bilan. definitifs : fichiers que la plateforme Vigie-Chiro garde avec
    /// un autre contenu (ou sans objet dans son stockage) et refuse de remplacer, notés en refus
    /// définitif REMPLACEMENT_REFUSE (code 3) ; toujours 0 vers S3. refusees : fichiers que la
    /// destination refuse de relire (4xx : droits, jeton, participation d'un autre observateur),
    /// ni remis à déposer ni notés en échec (code 3).
    BilanVerification {
        #[schemars(range(min = 0))]
        plan: i64,
        intactes: u64,
        a_renvoyer: u64,
        inconnues: u64,
        definitifs: u64,
        refusees: usize,
    },
    /// vigie traiter : le calcul lancé (lance true), ou pourquoi il ne l'a pas été (raison :
    /// deja_en_cours, reessai, deja_fini, arrete, etat_inconnu, en_erreur : une nuit en erreur
    /// que l'on n'a pas nommée ; null s'il l'a été), et l'état du
    /// calcul lu avant (etat_plateforme : PLANIFIE, EN_COURS, FINI, ERREUR, RETRY, ou null si
    /// aucun calcul n'avait été lancé).
    Calcul {
        participation: &'a str,
        /// La nuit de saison, comme on la nomme (21/06 A1) ; null hors saison.
        nuit: Option<&'a str>,
        api: &'a str,
        lance: bool,
        etat_plateforme: Option<&'a str>,
        raison: Option<&'a str>,
    },
    /// vigie traitement --attendre : un relevé de l'état du calcul (etat, comme pour
    /// traitement ; manque : le relevé n'a rien donné cette fois, detail dit pourquoi) et
    /// l'attente avant le suivant (prochain_releve_s, null pour le dernier). L'événement
    /// traitement suit le dernier relevé.
    Releve {
        participation: &'a str,
        /// La nuit de saison, comme on la nomme (21/06 A1) ; null hors saison.
        nuit: Option<&'a str>,
        etat: Option<&'a str>,
        manque: bool,
        detail: Option<&'a str>,
        #[schemars(range(min = 0.0))]
        prochain_releve_s: Option<f64>,
    },
    /// vigie resultats : un fichier téléchargé et écrit (fichier : csv, le CSV des observations,
    /// ou journal, le journal du calcul), son chemin et sa taille ; telecharge false : déjà
    /// téléchargé, inchangé sur la plateforme, rien n'a été retéléchargé.
    Resultat {
        participation: &'a str,
        /// La nuit de saison, comme on la nomme (21/06 A1) ; null hors saison.
        nuit: Option<&'a str>,
        #[schemars(extend("enum" = ["csv", "journal"]))]
        fichier: &'a str,
        chemin: &'a str,
        octets: u64,
        telecharge: bool,
    },
    /// vigie resultats : pas de CSV des observations pour cette nuit, et pourquoi (raison :
    /// aucun_calcul, calcul_en_cours, etat_inconnu — pas une erreur —, calcul_en_erreur,
    /// csv_absent : le calcul est fini mais la plateforme n'a pas le CSV).
    SansResultat {
        participation: &'a str,
        nuit: Option<&'a str>,
        #[schemars(extend("enum" = ["aucun_calcul", "calcul_en_cours", "etat_inconnu", "calcul_en_erreur", "csv_absent"]))]
        raison: &'a str,
    },
    /// vigie resultats --demander-csv : la plateforme a accepté de produire le CSV des
    /// observations (et de l'envoyer par courriel).
    CsvDemande {
        participation: &'a str,
        nuit: Option<&'a str>,
    },
    /// vigie bac-a-sable : la plateforme locale est prête (seule ligne).
    Pret {
        api: &'a str,
        endpoint: &'a str,
        compartiment: &'a str,
        cle_acces: &'a str,
        secret: &'a str,
        region: &'a str,
        jeton: &'a str,
        participation: &'a str,
        site: &'a str,
        points: &'a [&'a str],
        dossier: &'a Path,
        donnees_s3: &'a Path,
        base: &'a Path,
        dossier_garde: bool,
        pannes: &'a [String],
        /// Les variables d'environnement qui mènent `vigie` au bac à sable.
        #[schemars(with = "std::collections::BTreeMap<String, String>")]
        env: Map<String, Value>,
    },
    /// vigie demo : la saison fabriquée (dossier, nuits, séquences), la participation « créée
    /// sur le site web » et ses séquences déjà déposées, et les pannes programmées (première
    /// ligne ; suivent les événements du dépôt de la saison, puis l'état).
    Demo {
        graine: u64,
        dossier: &'a Path,
        garder: bool,
        saison: &'a Path,
        nuits: usize,
        sequences: usize,
        octets: u64,
        api: &'a str,
        participation: &'a str,
        deja_deposees: usize,
        pannes: Vec<String>,
    },
    /// vigie connexion : l'adresse de l'API (origine_api : option, variable, retenue, defaut), le
    /// compte (vérifié auprès de la plateforme ou retenu à la connexion), le jeton (enregistre,
    /// variable, ou null), et si la commande a enregistré quelque chose.
    Connexion {
        api: &'a str,
        #[schemars(extend("enum" = ["option", "variable", "retenue", "defaut"]))]
        origine_api: &'a str,
        compte: Option<CompteJson<'a>>,
        compte_verifie: bool,
        #[schemars(extend("enum" = ["enregistre", "variable", null]))]
        jeton: Option<&'a str>,
        enregistre: bool,
    },
    /// vigie etat --unites ETAT : un fichier du plan (etat : celui de la base ; definitif :
    /// refus définitif ; tentatives : émissions tentées pour ce fichier, tous passages
    /// confondus ; octets : sa taille).
    Unite {
        #[schemars(range(min = 0))]
        plan: i64,
        chemin: &'a str,
        cle: &'a str,
        #[schemars(schema_with = "schema_etat_unite")]
        etat: &'static str,
        definitif: bool,
        #[schemars(schema_with = "schema_cause_ou_rien")]
        cause: Option<&'static str>,
        message: Option<&'a str>,
        tentatives: u64,
        octets: u64,
    },
    /// vigie deconnexion : ce qui a été effacé (le jeton, la connexion retenue).
    Deconnexion {
        jeton_efface: bool,
        connexion_effacee: bool,
    },
    /// Le bilan, dernière ligne d'un dépôt : comptes du plan (deposees, echecs transitoires,
    /// definitifs, incertaines, restantes) et de la commande (deposees_ce_passage,
    /// octets_envoyes, incidents_absorbes, duree_s : de tous les passages avec
    /// --jusqu-au-bout). Avec --jusqu-au-bout : passages et arret.
    Bilan {
        #[serde(flatten)]
        comptes: ComptesBilan<'a>,
        /// Avec --jusqu-au-bout : le nombre de passages faits.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 1))]
        passages: Option<u32>,
        /// Avec --jusqu-au-bout : pourquoi les passages se sont arrêtés.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(extend("enum" = ["tout_depose", "refus_definitifs", "duree_ecoulee", "interrompu"]))]
        arret: Option<&'static str>,
    },
    /// --jusqu-au-bout : la ligne de bilan d'un passage (les clés du bilan, pour ce passage),
    /// prochain_passage_s (null : c'était le dernier) ; erreur au lieu des comptes pour un
    /// passage arrêté avant tout envoi par une erreur passagère.
    Passage {
        /// Le numéro du passage.
        #[schemars(range(min = 1))]
        passage: u32,
        #[schemars(range(min = 0.0))]
        prochain_passage_s: Option<f64>,
        #[serde(flatten)]
        issue: IssuePassageJson<'a>,
    },
    /// vigie etat : l'état d'un plan (participation : vers la plateforme, dès qu'elle est
    /// connue).
    Etat {
        #[schemars(range(min = 0))]
        plan: i64,
        destination: &'a str,
        dossier: &'a str,
        unites: UnitesParEtat,
        definitifs: u64,
        octets_total: u64,
        octets_deposes: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        participation: Option<&'a str>,
        /// Les réglages d'envoi que retient le plan (ceux donnés explicitement à un dépôt ou à
        /// une relance : paralleles, seuil_multipart et taille_partie en Mio, debit_max en
        /// octets par seconde, 0 pour sans limite, délais et attentes en secondes…), repris
        /// par chaque relance ; absent s'il n'en retient aucun.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Map<String, Value>")]
        reglages: Option<Value>,
    },
    /// vigie plans : un plan de la base (actif_le : secondes Unix). Une nuit de saison (vigie
    /// depot DOSSIER… sans destination) : saison (son numéro), soiree (AAAA-MM-JJ), point et
    /// passage ; null hors saison (et soiree, point en routier).
    Plans {
        #[schemars(range(min = 0))]
        plan: i64,
        dossier: &'a str,
        destination: &'a str,
        unites: u64,
        deposees: u64,
        echecs: u64,
        definitifs: u64,
        incertaines: u64,
        actif_le: i64,
        participation: Option<&'a str>,
        saison: Option<i64>,
        soiree: Option<&'a str>,
        point: Option<&'a str>,
        passage: Option<u8>,
    },
    /// vigie traitement : où en est le calcul d'une participation (etat : PLANIFIE, EN_COURS,
    /// FINI, ERREUR, RETRY tels que la plateforme les écrit, null si aucun calcul n'a été
    /// lancé), ses dates, le message d'un échec, et le bilan une fois fini (null sinon) : par
    /// ordre (chiropteres, orthopteres, autre), chaque taxon et ses contacts, et problemes
    /// (séquences signalées).
    Traitement {
        participation: &'a str,
        /// La nuit de saison, comme on la nomme (21/06 A1) ; null hors saison.
        nuit: Option<&'a str>,
        api: &'a str,
        etat: Option<&'a str>,
        /// Le numéro de l'essai suivant (RETRY seulement).
        retry: Option<u32>,
        /// ISO 8601 en UTC (2026-06-21T21:40:00Z).
        date_planification: Option<String>,
        /// ISO 8601 en UTC (2026-06-21T21:40:00Z).
        date_debut: Option<String>,
        /// ISO 8601 en UTC (2026-06-21T21:40:00Z).
        date_fin: Option<String>,
        message: Option<&'a str>,
        bilan: Option<BilanTaxons>,
    },
    /// vigie depot, retenter-echecs : le plan repris ou créé, et ce que la planification a
    /// changé (sur la sortie standard avant tout envoi).
    Plan {
        #[schemars(range(min = 0))]
        plan: i64,
        cree: bool,
        fichiers: usize,
        octets: u64,
        ajoutees: u64,
        retirees: u64,
        reprises: u64,
        modifiees: &'a [String],
        /// Fichiers déjà déposés dont seule la date a changé (même taille), le contenu relu
        /// identique à ce qui a été déposé (l'heure d'une carte FAT au passage à l'heure
        /// d'été) : leur date est notée, rien ne repart.
        dates_seules: u64,
        ignores: u64,
        liens_non_suivis: &'a [String],
        vides: &'a [String],
    },
    /// vigie depot : ce qui ne part pas, compté et nommé, par la même règle pour une nuit
    /// (après `plan`) et pour une saison (après ses `bilan_nuit`) : fichiers cachés ou système
    /// (leur nombre), autres fichiers (notes, photos, journaux), fichiers vides, liens
    /// symboliques non suivis. Absent quand rien n'est laissé.
    NonEnvoyes {
        caches_ou_systeme: u64,
        autres: &'a [String],
        vides: &'a [String],
        liens_non_suivis: &'a [String],
    },
    /// vigie depot : un avertissement qui n'arrête pas le dépôt (motif : voir chacun).
    Avertissement {
        #[serde(flatten)]
        motif: Avertissement<'a>,
    },
    /// vigie depot --simulation : un fichier qui partirait.
    Partirait {
        chemin: &'a str,
        cle: &'a str,
        taille: u64,
        #[schemars(schema_with = "schema_etat_unite")]
        etat: &'static str,
    },
    /// vigie depot --simulation : ce qui partirait, en tout (rien n'est envoyé). Une nuit :
    /// plan (le plan, à créer ou repris). Une saison : nuits (le nombre de nuits), a_creer
    /// (participations à créer), hors_ligne (la plateforme n'a pas été lue : pas de jeton).
    Simulation {
        #[serde(flatten)]
        portee: PorteeSimulation,
        unites: usize,
        octets: u64,
    },
}

/// Le compte de la plateforme, dans l'événement `connexion`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompteJson<'a> {
    pub(crate) id: &'a str,
    pub(crate) pseudo: Option<&'a str>,
}

/// Les comptes d'un bilan de dépôt : la ligne `bilan`, et celle d'un `passage` qui a envoyé.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ComptesBilan<'a> {
    #[schemars(range(min = 0))]
    pub(crate) plan: i64,
    pub(crate) deposees: u64,
    /// Fichiers en échec transitoire (un autre passage les reprendra).
    pub(crate) echecs: u64,
    pub(crate) definitifs: u64,
    pub(crate) incertaines: u64,
    pub(crate) restantes: u64,
    pub(crate) octets_envoyes: u64,
    #[schemars(range(min = 0.0))]
    pub(crate) duree_s: f64,
    pub(crate) deposees_ce_passage: u64,
    pub(crate) incidents_absorbes: u64,
    pub(crate) interrompu: bool,
    #[serde(flatten)]
    pub(crate) destination: DejaLa<'a>,
    /// Les réglages d'envoi que le plan retient et que ce passage a repris, n'étant pas
    /// donnés : l'option et sa valeur lisible (`{"--debit-max": "2 Mo/s"}`) ; absent s'il n'y
    /// en a pas.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) reglages_repris: BTreeMap<&'a str, &'a str>,
    /// Ceux donnés pour ce passage à la place d'une valeur retenue, désormais retenus
    /// (`{"--debit-max": {"donne": "5 Mo/s", "retenu": "2 Mo/s"}}`) ; absent s'il n'y en a
    /// pas.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) reglages_remplaces: BTreeMap<&'a str, Remplacement<'a>>,
}

/// Ce que la destination tenait déjà, selon qu'elle reçoit la nuit dans une participation (la
/// plateforme) ou non.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum DejaLa<'a> {
    /// Vers la plateforme Vigie-Chiro.
    Participation {
        /// La participation qui a reçu la nuit.
        participation: &'a str,
        /// Fichiers que la plateforme avait déjà, comptés dans deposees mais pas dans
        /// deposees_ce_passage.
        deja_sur_la_plateforme: u64,
        /// Parmi eux, ceux dont seule la taille a été comparée.
        deja_sur_la_plateforme_non_comparees: u64,
    },
    /// Vers une destination sans participation (un compartiment S3…).
    Destination {
        /// Fichiers qu'elle tenait déjà sous leur clé, identiques (taille et empreinte) ; comptés
        /// dans deposees, pas dans deposees_ce_passage.
        deja_a_la_destination: u64,
    },
}

/// Un réglage donné qui remplace celui que retenait le plan.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Remplacement<'a> {
    pub(crate) donne: &'a str,
    pub(crate) retenu: Option<&'a str>,
}

/// Ce qu'a donné un passage, dans sa ligne `passage` : ses comptes, ou l'erreur qui l'a
/// arrêté avant tout envoi.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum IssuePassageJson<'a> {
    Bilan(ComptesBilan<'a>),
    Erreur {
        #[schemars(range(min = 0))]
        plan: i64,
        erreur: &'a str,
    },
}

/// Les fichiers d'un plan, par état (`vigie etat`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct UnitesParEtat {
    pub(crate) a_deposer: u64,
    pub(crate) en_cours: u64,
    pub(crate) deposee: u64,
    pub(crate) echec: u64,
    pub(crate) incertaine: u64,
}

/// Le bilan d'un calcul fini (`traitement`) : par ordre, chaque taxon et ses contacts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BilanTaxons {
    /// Séquences que le calcul signale avec un problème.
    pub(crate) problemes: u64,
    pub(crate) chiropteres: Vec<TaxonJson>,
    pub(crate) orthopteres: Vec<TaxonJson>,
    pub(crate) autre: Vec<TaxonJson>,
}

/// Un taxon du bilan d'un calcul et ses contacts.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TaxonJson {
    /// Identifiant du taxon sur la plateforme.
    pub(crate) taxon: Option<String>,
    /// Le code du taxon (Pippip), celui du CSV des observations.
    pub(crate) libelle_court: Option<String>,
    /// Son nom latin (Pipistrellus pipistrellus).
    pub(crate) libelle_long: Option<String>,
    pub(crate) contacts_min: u64,
    pub(crate) contacts_max: u64,
}

/// Le motif d'un `avertissement`, et ce qu'il nomme.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "motif", rename_all = "snake_case")]
pub enum Avertissement<'a> {
    /// Vers la plateforme : des noms portent un autre point que la participation.
    PointDifferent {
        point_participation: &'a str,
        points_des_noms: &'a str,
        fichiers: usize,
    },
    /// Vers S3 : d'autres plans (d'autres dossiers) visent déjà ce compartiment et ce préfixe.
    AutrePlan {
        destination: &'a str,
        plans: Vec<i64>,
        dossiers: Vec<&'a str>,
    },
    /// En saison : des fichiers d'aucune nuit (avant le refus).
    HorsNuit { chemins: Vec<&'a str> },
    /// En saison : des fichiers dont le numéro de site (`numero_site`, des noms) n'est celui
    /// d'aucun site de l'utilisateur (les fichiers d'un ami mêlés à la carte, une faute de
    /// frappe) : ils ne partent pas, les nuits justes si (code 3 ; 2 si rien d'autre ne part).
    /// `exemples` : quelques chemins ; `suggestion` : le numéro d'un de ses sites à une faute
    /// de frappe près.
    NonRattaches {
        numero_site: &'a str,
        protocole: &'a str,
        nuits: usize,
        fichiers: usize,
        exemples: Vec<&'a str>,
        suggestion: Option<&'a str>,
    },
    /// Vers la plateforme : des séquences que son calcul lirait mal (garde de format). `refus`
    /// vrai : elles empêchent le dépôt, l'`erreur` suit (code 2), rien n'est envoyé ni créé, et
    /// `commande` prépare la nuit quand des séquences sont enregistrées en direct ; faux : elles
    /// partent, et c'est dit (un en-tête direct en routier ou pédestre, que la participation
    /// peut déclarer).
    FormatSequences {
        refus: bool,
        sequences: Vec<SequenceFautive>,
        #[serde(skip_serializing_if = "Option::is_none")]
        commande: Option<String>,
    },
    /// En saison : la participation d'un autre observateur tombe sur une nuit (jamais
    /// reprise).
    ParticipationDAutrui { participation: &'a str },
    /// En saison : une autre participation convenait aussi.
    ParticipationEcartee { participation: &'a str },
    /// --forcer-participation : plusieurs nuits vers une participation (`nuits`, leur
    /// nombre), ou des noms qui ne sont pas ceux de la participation donnée (`participation`,
    /// absent pour une participation à créer, et chaque écart dans `ecarts`). Sans --forcer-participation, les écarts sont dits de
    /// même, juste avant l'`erreur` (code 2) qui refuse le dépôt.
    EcartParticipation {
        #[serde(skip_serializing_if = "Option::is_none")]
        nuits: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        participation: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        ecarts: Vec<EcartNomme>,
    },
    /// La racine d'une nuit de saison est montée à l'ancêtre commun de ses fichiers (des
    /// fichiers de la nuit hors de l'ancien dossier de son plan) : rien ne repart.
    RacineMontee {
        plan: i64,
        ancien_dossier: &'a str,
        dossier: &'a str,
    },
    /// vigie retenter-echecs d'une saison : des nuits trouvées sous ses racines qu'elle ne
    /// connaît pas (fichiers ajoutés depuis) ; elles ne partent pas, `commande` les déposera.
    NuitNouvelle {
        nuits: Vec<crate::sortie::NuitNommee>,
        commande: String,
    },
    /// En saison : la création de la participation d'une nuit (`nuit`, son plan `plan`) a
    /// échoué passagèrement (`cause`) ; la nuit reste dans le bilan, participation à créer.
    /// `reprise` : `passage_suivant` (--jusqu-au-bout la retente dans la course), `relance`
    /// sinon (relancer la même commande la reprend).
    CreationReportee {
        plan: i64,
        nuit: &'a str,
        cause: String,
        #[schemars(schema_with = "schema_reprise")]
        reprise: &'static str,
    },
    /// En saison : la plateforme refuse de créer la participation d'une nuit (`nuit`, son plan
    /// `plan`) pour une raison qui ne passera pas seule (`cause`, un 422 par exemple) : rien
    /// ne part pour cette nuit, les autres partent ; la nuit reste au bilan, participation à
    /// créer, et la reprise de la saison la recrée une fois la cause corrigée (code 3).
    CreationRefusee {
        plan: i64,
        nuit: &'a str,
        cause: String,
    },
}

/// Une séquence que le calcul de la plateforme lirait mal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SequenceFautive {
    /// Son chemin, relatif au dossier donné (à leur ancêtre commun en saison).
    pub(crate) chemin: String,
    /// Ce qui cloche, en français.
    pub(crate) probleme: String,
    /// La fréquence de son en-tête (Hz), quand elle a pu être lue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) frequence_hz: Option<u32>,
}

/// Un écart entre les noms et la participation donnée (`--participation`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct EcartNomme {
    /// Ce qui diffère : site, point, soiree, passage.
    #[schemars(schema_with = "schema_champ_ecart")]
    pub(crate) champ: &'static str,
    /// La valeur des noms (numéro de site, point, soirée AAAA-MM-JJ, numéro de passage).
    pub(crate) noms: String,
    /// Celle de la participation (titre de son site, point, soirée, passage de ses fichiers).
    pub(crate) participation: String,
}

fn schema_calcul_participation(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "enum": ["pas_lance", "planifie", "en_cours", "fini", "erreur", "retry", "autre"]
    })
}

fn schema_champ_ecart(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["site", "point", "soiree", "passage"] })
}

fn schema_reprise(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["passage_suivant", "relance"] })
}

/// Ce que couvre une `simulation` : une nuit (son plan) ou une saison.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PorteeSimulation {
    Nuit {
        /// Le plan, à créer ou repris.
        #[schemars(range(min = 0))]
        plan: i64,
    },
    Saison {
        /// Le nombre de nuits.
        nuits: usize,
        /// Les participations à créer.
        a_creer: usize,
        /// La plateforme n'a pas été lue (pas de jeton).
        hors_ligne: bool,
    },
}

impl Evenement<'_> {
    /// La ligne JSON de l'événement, sans la version (ajoutée par [`ecrire_ligne`]).
    pub(crate) fn en_valeur(&self) -> Value {
        serde_json::to_value(self).expect("un événement se sérialise toujours")
    }

    /// Écrit l'événement en une ligne sur la sortie standard (voir `ecrire_ligne`).
    pub fn ecrire(&self) -> io::Result<()> {
        ecrire_ligne(self)
    }
}

/// Les causes de refus, telles que le plan les écrit (`CauseRefus::as_str`).
fn schema_protocole(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["point_fixe", "routier"] })
}

fn schema_etat_nuit(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["deposee", "en_cours", "entamee", "a_deposer", "a_creer", "echecs", "refus"] })
}

fn schema_issue_nuit(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["a_creer", "base", "fichiers", "dates", "non_verifiee"] })
}

fn schema_cause(_: &mut SchemaGenerator) -> Schema {
    let causes: Vec<&str> = CauseRefus::TOUTES.iter().map(|c| c.as_str()).collect();
    json_schema!({ "enum": causes })
}

/// Une cause de refus, ou `null` (un fichier qui n'a pas échoué).
fn schema_cause_ou_rien(_: &mut SchemaGenerator) -> Schema {
    let causes: Vec<&str> = CauseRefus::TOUTES.iter().map(|c| c.as_str()).collect();
    json_schema!({ "anyOf": [{ "enum": causes }, { "type": "null" }] })
}

/// Les états d'une unité, tels que la base les écrit (`EtatUnite::as_str`).
fn schema_etat_unite(_: &mut SchemaGenerator) -> Schema {
    let etats: Vec<&str> = EtatUnite::TOUS.iter().map(|e| e.as_str()).collect();
    json_schema!({ "enum": etats })
}

const TITRE: &str = "Une ligne JSON de vigie (--json), version 1";
const DESCRIPTION: &str = "Chaque ligne de la sortie standard d'une commande lancée avec --json \
    est un objet qui porte \"version\": 1 et \"evenement\" (son type). Ajouter un champ ou un \
    événement ne change pas la version : un script ignore ce qu'il ne connaît pas. Retirer un \
    champ, ou en changer le type ou le sens, fait passer la version à 2. Les champs de chaque \
    événement sont décrits dans $defs, sous le nom de l'événement. Ce fichier est produit par \
    `vigie generer-docs .` à partir du type des événements (src/suivi/evenement.rs).";

/// Le schéma de chaque événement typé, par nom, tiré du type (le champ `evenement`, dit au
/// niveau du schéma entier, en est retiré).
pub fn schemas_types() -> Vec<(String, Value)> {
    let generateur = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            // Le schéma de ce qui s'écrit : chaque champ est toujours écrit (un `None` en
            // `null`), donc requis.
            s.contract = schemars::generate::Contract::Serialize;
        })
        .into_generator();
    let racine = generateur.into_root_schema_for::<Evenement>().to_value();
    let variants = racine["oneOf"]
        .as_array()
        .expect("schemars décrit une énumération étiquetée par oneOf");
    variants
        .iter()
        .map(|v| {
            let mut v = v.clone();
            let nom = v["properties"]["evenement"]["const"]
                .as_str()
                .expect("chaque variant a son nom constant")
                .to_owned();
            if let Some(p) = v["properties"].as_object_mut() {
                p.remove("evenement");
            }
            if let Some(r) = v["required"].as_array_mut() {
                r.retain(|c| c != "evenement");
            }
            (nom, en_une_ligne(v))
        })
        .collect()
}

/// Les descriptions sur une ligne : un commentaire de variant se coupe à 100 colonnes, une
/// description de schéma n'a pas de raison de l'être.
fn en_une_ligne(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| match v {
                    Value::String(t) if k == "description" => (
                        k,
                        Value::String(t.split_whitespace().collect::<Vec<_>>().join(" ")),
                    ),
                    v => (k, en_une_ligne(v)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(en_une_ligne).collect()),
        autre => autre,
    }
}

/// Le schéma publié (`schemas/vigie.schema.json`), en texte : chaque événement y est décrit
/// par son type, et par lui seul.
pub(crate) fn schema_publie() -> Result<String, serde_json::Error> {
    let defs: Map<String, Value> = schemas_types().into_iter().collect();
    let mut noms: Vec<String> = defs.keys().cloned().collect();
    noms.sort();
    let alternatives: Vec<Value> = noms
        .iter()
        .map(|nom| {
            serde_json::json!({
                "if": {"properties": {"evenement": {"const": nom}}, "required": ["evenement"]},
                "then": {"$ref": format!("#/$defs/{nom}")},
            })
        })
        .collect();
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://vigie.invalid/schemas/vigie.schema.json",
        "title": TITRE,
        "description": DESCRIPTION,
        "type": "object",
        "required": ["version", "evenement"],
        "properties": {
            "version": {"const": VERSION_JSON},
            "evenement": {"enum": noms},
        },
        "allOf": alternatives,
        "$defs": defs,
    });
    let mut texte = serde_json::to_string_pretty(&trier(schema))?;
    texte.push('\n');
    Ok(texte)
}

/// Les clés de chaque objet dans l'ordre alphabétique, quelle que soit la façon dont
/// `serde_json` range ses objets : le fichier produit ne dépend pas des fonctions activées.
fn trier(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut paires: Vec<(String, Value)> = m.into_iter().collect();
            paires.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(paires.into_iter().map(|(k, v)| (k, trier(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(trier).collect()),
        autre => autre,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// La ligne typée est celle que `json!` écrivait, champ pour champ et octet pour octet.
    #[test]
    fn la_ligne_typee_est_celle_du_json_ecrit_a_la_main() {
        let typee = Evenement::UniteEnEchec {
            unite: "a/b.wav",
            cause: CauseRefus::Contenu.as_str(),
            definitif: true,
            message: "refusé",
        }
        .en_valeur();
        let a_la_main = serde_json::json!({
            "evenement": "unite_en_echec",
            "unite": "a/b.wav",
            "cause": "CONTENU",
            "definitif": true,
            "message": "refusé",
        });
        assert_eq!(
            serde_json::to_string(&typee).unwrap(),
            serde_json::to_string(&a_la_main).unwrap()
        );
        let sans_champ = Evenement::ReseauRetabli.en_valeur();
        assert_eq!(sans_champ.to_string(), r#"{"evenement":"reseau_retabli"}"#);
    }

    /// Les sortes aux champs aplatis (bilan, passage, avertissement, simulation) s'écrivent
    /// comme au temps de leur `json!` : mêmes clés, rien de plus (un champ absent n'est pas
    /// `null`), l'étiquette et le motif à plat.
    #[test]
    fn les_sortes_aplaties_s_ecrivent_comme_leur_json_d_avant() {
        let comptes = |destination| ComptesBilan {
            plan: 4,
            deposees: 3,
            echecs: 1,
            definitifs: 0,
            incertaines: 0,
            restantes: 2,
            octets_envoyes: 10,
            duree_s: 1.5,
            deposees_ce_passage: 3,
            incidents_absorbes: 2,
            interrompu: false,
            destination,
            reglages_repris: BTreeMap::from([("--debit-max", "2 Mo/s")]),
            reglages_remplaces: BTreeMap::new(),
        };
        let cas = [
            (
                Evenement::Bilan {
                    comptes: comptes(DejaLa::Participation {
                        participation: "p1",
                        deja_sur_la_plateforme: 1,
                        deja_sur_la_plateforme_non_comparees: 0,
                    }),
                    passages: Some(2),
                    arret: Some("tout_depose"),
                },
                serde_json::json!({
                    "evenement": "bilan", "plan": 4, "deposees": 3, "echecs": 1,
                    "definitifs": 0, "incertaines": 0, "restantes": 2, "octets_envoyes": 10,
                    "duree_s": 1.5, "deposees_ce_passage": 3, "incidents_absorbes": 2,
                    "interrompu": false, "participation": "p1", "deja_sur_la_plateforme": 1,
                    "deja_sur_la_plateforme_non_comparees": 0,
                    "reglages_repris": {"--debit-max": "2 Mo/s"},
                    "passages": 2, "arret": "tout_depose",
                }),
            ),
            (
                Evenement::Bilan {
                    comptes: ComptesBilan {
                        reglages_repris: BTreeMap::new(),
                        ..comptes(DejaLa::Destination {
                            deja_a_la_destination: 0,
                        })
                    },
                    passages: None,
                    arret: None,
                },
                serde_json::json!({
                    "evenement": "bilan", "plan": 4, "deposees": 3, "echecs": 1,
                    "definitifs": 0, "incertaines": 0, "restantes": 2, "octets_envoyes": 10,
                    "duree_s": 1.5, "deposees_ce_passage": 3, "incidents_absorbes": 2,
                    "interrompu": false, "deja_a_la_destination": 0,
                }),
            ),
            (
                Evenement::Passage {
                    passage: 1,
                    prochain_passage_s: None,
                    issue: IssuePassageJson::Bilan(comptes(DejaLa::Destination {
                        deja_a_la_destination: 5,
                    })),
                },
                serde_json::json!({
                    "evenement": "passage", "plan": 4, "deposees": 3, "echecs": 1,
                    "definitifs": 0, "incertaines": 0, "restantes": 2, "octets_envoyes": 10,
                    "duree_s": 1.5, "deposees_ce_passage": 3, "incidents_absorbes": 2,
                    "interrompu": false, "deja_a_la_destination": 5,
                    "reglages_repris": {"--debit-max": "2 Mo/s"},
                    "passage": 1, "prochain_passage_s": null,
                }),
            ),
            (
                Evenement::Passage {
                    passage: 2,
                    prochain_passage_s: Some(30.0),
                    issue: IssuePassageJson::Erreur {
                        plan: 4,
                        erreur: "injoignable",
                    },
                },
                serde_json::json!({
                    "evenement": "passage", "plan": 4, "erreur": "injoignable",
                    "passage": 2, "prochain_passage_s": 30.0,
                }),
            ),
            (
                Evenement::Avertissement {
                    motif: Avertissement::AutrePlan {
                        destination: "s3://a/b",
                        plans: vec![1, 2],
                        dossiers: vec!["/x", "/y"],
                    },
                },
                serde_json::json!({
                    "evenement": "avertissement", "motif": "autre_plan",
                    "destination": "s3://a/b", "plans": [1, 2], "dossiers": ["/x", "/y"],
                }),
            ),
            (
                Evenement::Avertissement {
                    motif: Avertissement::ParticipationDAutrui { participation: "p" },
                },
                serde_json::json!({
                    "evenement": "avertissement", "motif": "participation_d_autrui",
                    "participation": "p",
                }),
            ),
            (
                Evenement::Simulation {
                    portee: PorteeSimulation::Nuit { plan: 3 },
                    unites: 2,
                    octets: 9,
                },
                serde_json::json!({
                    "evenement": "simulation", "plan": 3, "unites": 2, "octets": 9,
                }),
            ),
            (
                Evenement::Simulation {
                    portee: PorteeSimulation::Saison {
                        nuits: 2,
                        a_creer: 1,
                        hors_ligne: true,
                    },
                    unites: 2,
                    octets: 9,
                },
                serde_json::json!({
                    "evenement": "simulation", "nuits": 2, "a_creer": 1, "hors_ligne": true,
                    "unites": 2, "octets": 9,
                }),
            ),
        ];
        for (typee, a_la_main) in cas {
            assert_eq!(
                serde_json::to_string(&typee.en_valeur()).unwrap(),
                serde_json::to_string(&a_la_main).unwrap()
            );
        }
    }

    #[test]
    fn chaque_evenement_type_a_sa_description_et_ses_champs() {
        let types = schemas_types();
        assert!(types.len() >= 15, "{}", types.len());
        for (nom, schema) in &types {
            assert!(schema["description"].is_string(), "{nom} sans description");
            assert!(
                schema["properties"].get("evenement").is_none(),
                "{nom} : l'étiquette reste dans ses champs"
            );
        }
        let echec = &types.iter().find(|(n, _)| n == "unite_en_echec").unwrap().1;
        assert_eq!(
            echec["properties"]["cause"]["enum"]
                .as_array()
                .unwrap()
                .len(),
            CauseRefus::TOUTES.len()
        );
    }

    #[test]
    fn le_schema_produit_ne_depend_que_du_type() {
        let a = schema_publie().unwrap();
        let b = schema_publie().unwrap();
        assert_eq!(a, b, "régénérer le fichier publié le laisse tel quel");
    }
}
