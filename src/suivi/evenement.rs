//! Les événements JSON de `vigie` (`--json`), typés : un variant d'[`Evenement`] par sorte de
//! ligne, ses champs dans l'ordre où ils s'écrivent.
//!
//! Le type est la source du schéma publié (`schemas/vigie.schema.json`) : [`schema_publie`] le
//! tire du type par schemars, qui lit les mêmes attributs serde que la sérialisation ; la
//! description de chaque événement est le commentaire de son variant. `vigie generer-docs .`
//! réécrit le fichier, et un essai (`tests/integration/docs_a_jour.rs`) échoue s'il n'est plus à
//! jour. Ajouter un événement, c'est ajouter un variant ici (avec son commentaire), l'émettre par
//! [`Evenement::ecrire`], puis régénérer.
//!
//! Les sortes qui ne sont pas encore typées (lignes encore écrites par `json!`, aux structures
//! imbriquées ou en cours de remaniement : `bilan`, `passage`, `etat`, `plans`, `traitement`,
//! et celles de `vigie depot` : `plan`, `avertissement`, `partirait`, `simulation`) gardent leur
//! description tenue à la main dans le fichier publié ; [`schema_publie`] la reprend telle quelle, et l'essai
//! `scripts::chaque_evenement_emis_a_son_schema` vérifie encore, par recherche dans le source,
//! qu'elles sont toutes décrites et qu'aucune n'est à la fois typée et écrite à la main.
//!
//! L'écriture passe par une `serde_json::Value` (comme `json!`) : la ligne écrite est la même,
//! octet pour octet, qu'au temps des `json!`.

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
    /// Vers S3 : l'objet était déjà à la destination, au même contenu ; rien n'est renvoyé.
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
    /// vigie etat, quand le plan demandé (le dernier, sans numéro) est une nuit de saison : la
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
    /// vigie etat d'une saison : une nuit (son plan, sa participation, ses comptes). `etat` :
    /// deposee, en_cours, a_deposer, a_creer, echecs, refus. `soiree` (AAAA-MM-JJ) et `point`
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
    /// sortie ; le même message est écrit sur la sortie d'erreur.
    Erreur {
        #[schemars(range(min = 1, max = 255))]
        code: i32,
        message: &'a str,
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
    /// deja_en_cours, reessai, deja_fini, arrete, etat_inconnu ; null s'il l'a été), et l'état du
    /// calcul lu avant (etat_plateforme : PLANIFIE, EN_COURS, FINI, ERREUR, RETRY, ou null si
    /// aucun calcul n'avait été lancé).
    Calcul {
        participation: &'a str,
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
        etat: Option<&'a str>,
        manque: bool,
        detail: Option<&'a str>,
        #[schemars(range(min = 0.0))]
        prochain_releve_s: Option<f64>,
    },
    /// vigie resultats : un fichier téléchargé et écrit (fichier : csv, le CSV des observations,
    /// ou journal, le journal du calcul), son chemin et sa taille.
    Resultat {
        participation: &'a str,
        #[schemars(extend("enum" = ["csv", "journal"]))]
        fichier: &'a str,
        chemin: &'a str,
        octets: u64,
    },
    /// vigie resultats --demander-csv : la plateforme a accepté de produire le CSV des
    /// observations (et de l'envoyer par courriel).
    CsvDemande { participation: &'a str },
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
}

/// Le compte de la plateforme, dans l'événement `connexion`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompteJson<'a> {
    pub id: &'a str,
    pub pseudo: Option<&'a str>,
}

impl Evenement<'_> {
    /// La ligne JSON de l'événement, sans la version (ajoutée par [`ecrire_ligne`]).
    pub fn en_valeur(&self) -> Value {
        serde_json::to_value(self).expect("un événement se sérialise toujours")
    }

    /// Écrit l'événement en une ligne sur la sortie standard (voir [`ecrire_ligne`]).
    pub fn ecrire(&self) -> io::Result<()> {
        ecrire_ligne(self.en_valeur())
    }
}

/// Les causes de refus, telles que le plan les écrit (`CauseRefus::as_str`).
fn schema_protocole(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["point_fixe", "routier"] })
}

fn schema_etat_nuit(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["deposee", "en_cours", "a_deposer", "a_creer", "echecs", "refus"] })
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

/// Le schéma publié (`schemas/vigie.schema.json`), en texte. `existant` est le fichier publié
/// actuel : les événements pas encore typés y gardent leur description ; ceux que le type
/// décrit la reçoivent de lui.
pub fn schema_publie(existant: Option<&str>) -> Result<String, serde_json::Error> {
    let mut defs: Map<String, Value> = Map::new();
    if let Some(texte) = existant {
        let ancien: Value = serde_json::from_str(texte)?;
        if let Some(anciennes) = ancien["$defs"].as_object() {
            defs = anciennes.clone();
        }
    }
    let types = schemas_types();
    for (nom, schema) in types {
        defs.insert(nom, schema);
    }
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
    fn le_schema_produit_ne_depend_que_de_son_entree() {
        let a = schema_publie(None).unwrap();
        let b = schema_publie(Some(&a)).unwrap();
        assert_eq!(a, b, "régénérer le fichier publié le laisse tel quel");
    }
}
