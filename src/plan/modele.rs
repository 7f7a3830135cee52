//! Les types du plan : états d'une unité, causes de refus, lignes des tables.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::Serialize;

use crate::plateforme::FichierAttendu;

/// L'état d'une unité, tel qu'écrit dans `depot_unite.etat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EtatUnite {
    /// À envoyer (jamais tentée, ou remise en file).
    ADeposer,
    /// Un `vigie` l'envoie ; restée ainsi après un arrêt brutal, elle redevient à reprendre.
    EnCours,
    /// Déposée et vérifiée (taille et somme de contrôle côté destination).
    Deposee,
    /// En échec : transitoire (à retenter) ou définitif (`echec_definitif`, avec sa cause).
    Echec,
    /// Une écriture non rejouable est partie sans réponse : à réconcilier avant tout rejeu.
    Incertaine,
}

impl EtatUnite {
    pub(crate) const TOUS: [EtatUnite; 5] = [
        EtatUnite::ADeposer,
        EtatUnite::EnCours,
        EtatUnite::Deposee,
        EtatUnite::Echec,
        EtatUnite::Incertaine,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EtatUnite::ADeposer => "a_deposer",
            EtatUnite::EnCours => "en_cours",
            EtatUnite::Deposee => "deposee",
            EtatUnite::Echec => "echec",
            EtatUnite::Incertaine => "incertaine",
        }
    }

    fn depuis_str(s: &str) -> Option<Self> {
        EtatUnite::TOUS.into_iter().find(|e| e.as_str() == s)
    }
}

impl fmt::Display for EtatUnite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToSql for EtatUnite {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for EtatUnite {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = v.as_str()?;
        EtatUnite::depuis_str(s)
            .ok_or_else(|| FromSqlError::Other(format!("état inconnu : {s}").into()))
    }
}

/// La sorte de destination d'un plan (`s3`, `vigiechiro`, `dossier`…), écrite à sa création
/// dans `depot_plan.sorte` (migration 0012) : le nom sous lequel la destination est inscrite
/// (`depot/inscription.rs`), qui relit l'identité du plan et dit le geste qui répond à un
/// refus. Le plan la garde sans la lire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Sorte(String);

impl Sorte {
    pub(crate) fn nouvelle(nom: &str) -> Sorte {
        Sorte(nom.to_owned())
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Sorte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ToSql for Sorte {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.as_str()))
    }
}

impl FromSql for Sorte {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        Ok(Sorte(v.as_str()?.to_owned()))
    }
}

/// Pourquoi une unité a échoué : ce qui dit quel geste faire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CauseRefus {
    /// Jeton ou identifiants refusés (401, ou 403 d'identifiants S3).
    Authentification,
    /// L'horloge de cet ordinateur s'écarte trop de celle du service, qui refuse la signature
    /// des requêtes (S3 : `403 RequestTimeTooSkewed`, au-delà de 15 min) : ni les
    /// identifiants ni le fichier n'y sont pour rien, l'heure se corrige hors de `vigie`.
    Horloge,
    /// Droits insuffisants sur la destination (403).
    Droits,
    /// Le contenu ou le nom est refusé (400, 422, somme de contrôle refusée…).
    Contenu,
    /// La destination n'existe pas (compartiment introuvable, 404).
    Stockage,
    /// Le fichier local est illisible, a disparu ou a changé pendant l'envoi.
    Local,
    /// Le réseau n'a pas permis l'envoi dans le temps imparti.
    Reseau,
    /// Le serveur est resté en panne (5xx, 429) au-delà de la politique de réessai.
    Serveur,
    /// Une écriture est partie sans réponse et la réconciliation n'a pas pu conclure.
    IssueInconnue,
    /// La plateforme Vigie-Chiro a déjà un fichier de ce nom, finalisé, et refuse de le
    /// remplacer (`409 upload is already done` : `resources/fichiers.py` `fichier_create`) ;
    /// son contenu diffère du fichier local, ou n'a pas pu lui être comparé.
    RemplacementRefuse,
}

impl CauseRefus {
    pub const TOUTES: [CauseRefus; 10] = [
        CauseRefus::Authentification,
        CauseRefus::Horloge,
        CauseRefus::Droits,
        CauseRefus::Contenu,
        CauseRefus::Stockage,
        CauseRefus::Local,
        CauseRefus::Reseau,
        CauseRefus::Serveur,
        CauseRefus::IssueInconnue,
        CauseRefus::RemplacementRefuse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CauseRefus::Authentification => "AUTHENTIFICATION",
            CauseRefus::Horloge => "HORLOGE",
            CauseRefus::Droits => "DROITS",
            CauseRefus::Contenu => "CONTENU",
            CauseRefus::Stockage => "STOCKAGE",
            CauseRefus::Local => "LOCAL",
            CauseRefus::Reseau => "RESEAU",
            CauseRefus::Serveur => "SERVEUR",
            CauseRefus::IssueInconnue => "ISSUE_INCONNUE",
            CauseRefus::RemplacementRefuse => "REMPLACEMENT_REFUSE",
        }
    }

    /// Ce qui s'est passé et ce qu'il faut corriger, dit sous la liste des unités concernées,
    /// en des termes qui valent pour toute destination : chaque destination dit les siens
    /// quand le geste lui est propre (un jeton ne se corrige pas comme des identifiants S3 :
    /// `Inscription::conseil`, `depot/inscription.rs`). La commande à lancer ensuite n'y est
    /// pas : elle est dite une seule fois, à la fin (« Ensuite : … »), d'après l'ensemble des
    /// échecs du plan.
    pub(crate) fn conseil_general(self) -> &'static str {
        match self {
            CauseRefus::Authentification => {
                "identifiants refusés par la destination : corrigez-les"
            }
            CauseRefus::Horloge => {
                "l'horloge de cet ordinateur s'écarte de plus de 15 min de celle du service, qui \
                 refuse alors toute requête : mettez l'ordinateur à l'heure (réglage automatique \
                 de la date et de l'heure, bon fuseau horaire)"
            }
            CauseRefus::Droits => "droits insuffisants sur la destination : faites-les corriger",
            CauseRefus::Contenu => "contenu ou nom refusé par la destination : corrigez le fichier",
            CauseRefus::Stockage => "destination introuvable : vérifiez son adresse",
            CauseRefus::Local => {
                "fichier local illisible, disparu ou modifié pendant l'envoi : vérifiez-le"
            }
            CauseRefus::Reseau => {
                "le réseau n'a pas permis l'envoi : réessayez quand il sera revenu"
            }
            CauseRefus::Serveur => {
                "le serveur a répondu qu'il était indisponible (5xx, 429) : réessayez un peu plus tard"
            }
            CauseRefus::IssueInconnue => {
                "envoi parti sans réponse : la relance le vérifiera à la destination avant tout renvoi"
            }
            CauseRefus::RemplacementRefuse => {
                "la plateforme a déjà un fichier de ce nom, finalisé, et refuse de le remplacer : \
                 rien n'est parti. Vérifiez lequel est le bon ; pour remplacer celui de la \
                 plateforme, demandez d'abord à ses gestionnaires de le supprimer"
            }
        }
    }

    fn depuis_str(s: &str) -> Option<Self> {
        CauseRefus::TOUTES.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for CauseRefus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToSql for CauseRefus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for CauseRefus {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = v.as_str()?;
        CauseRefus::depuis_str(s)
            .ok_or_else(|| FromSqlError::Other(format!("cause inconnue : {s}").into()))
    }
}

/// Une ligne de `depot_plan`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DepotPlan {
    pub(crate) id: i64,
    pub(crate) dossier: String,
    pub(crate) destination: String,
    /// La sorte de la destination, qui relit `destination` (voir [`Sorte`]).
    #[serde(skip)]
    pub(crate) sorte: Sorte,
    pub(crate) cree_le: i64,
    pub(crate) actif_le: i64,
    /// La participation Vigie-Chiro qui reçoit la nuit, dès qu'elle est connue (donnée, ou
    /// créée par `vigie`).
    pub(crate) participation: Option<String>,
    /// La plateforme Vigie-Chiro a refusé l'envoi en plusieurs parties : tout part en un PUT.
    pub(crate) multipart_refuse: bool,
}

/// Une ligne de `depot_unite`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DepotUnite {
    pub(crate) id: i64,
    pub(crate) plan_id: i64,
    pub(crate) chemin: String,
    pub(crate) cle: String,
    pub(crate) taille: u64,
    pub(crate) modifie_ns: i64,
    pub(crate) etat: EtatUnite,
    pub(crate) echec_definitif: bool,
    pub(crate) cause_refus: Option<CauseRefus>,
    pub(crate) message: Option<String>,
    /// L'envoi multipart S3 ouvert pour l'unité (UploadId), s'il y en a un.
    pub(crate) envoi_multipart: Option<String>,
    /// L'enregistrement de fichier déclaré à la plateforme Vigie-Chiro, s'il y en a un.
    pub(crate) enregistrement: Option<String>,
    /// Une déclaration multipart à la plateforme est partie, sa réponse n'est pas connue
    /// (arrêt brutal) : la relance cherche l'enregistrement avant de redéclarer.
    pub(crate) declaration_emise: bool,
    pub(crate) somme_controle: Option<String>,
    pub(crate) etag: Option<String>,
    pub(crate) modifie_depuis: bool,
    /// L'identité du fichier planifié (voir `plateforme::identite_du_chemin`), si le système en donne.
    pub(crate) identite: Option<String>,
    /// Une séquence préparée au fil de l'envoi : où sont ses octets.
    pub(crate) preparee: Option<SequencePreparee>,
}

/// Une séquence préparée au fil de l'envoi (`vigie depot CARTE` d'une carte brute) : son
/// en-tête, puis une plage de l'original (migration 0010). Le chemin, la taille et la clé de
/// l'unité sont ceux de la séquence ; sa date et son identité, ceux de l'original.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SequencePreparee {
    /// L'original, relatif au dossier du plan, séparateur « / ».
    pub(crate) source: String,
    /// Sa taille à la planification.
    pub(crate) source_taille: u64,
    /// La position de son premier octet PCM qui part.
    pub(crate) source_debut: u64,
    pub(crate) entete: Vec<u8>,
}

impl DepotUnite {
    /// Le fichier que l'envoi lit, relatif au dossier : l'original d'une séquence préparée,
    /// sinon le fichier de l'unité.
    pub(crate) fn chemin_lu(&self) -> &str {
        self.preparee.as_ref().map_or(&self.chemin, |p| &p.source)
    }

    /// La taille attendue du fichier lu : celle de l'original d'une séquence préparée.
    pub(crate) fn taille_lue(&self) -> u64 {
        self.preparee
            .as_ref()
            .map_or(self.taille, |p| p.source_taille)
    }

    /// Ce qui part, lu au chemin local `chemin` (celui de [`DepotUnite::chemin_lu`]).
    pub(crate) fn attendu<'a>(&'a self, chemin: &'a std::path::Path) -> FichierAttendu<'a> {
        let f = FichierAttendu::nouveau(chemin, self.identite.as_deref());
        match &self.preparee {
            Some(p) => f.avec_entete(&p.entete, p.source_debut),
            None => f,
        }
    }
}

/// Une partie persistée d'un envoi multipart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartieEnvoi {
    pub(crate) numero: u32,
    pub(crate) debut: u64,
    pub(crate) taille: u64,
    pub(crate) etag: Option<String>,
    pub(crate) somme_controle: Option<String>,
    pub(crate) envoyee: bool,
}

/// Les comptes d'un plan, pour `vigie etat` et `vigie plans`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ResumePlan {
    pub(crate) a_deposer: u64,
    pub(crate) en_cours: u64,
    pub(crate) deposee: u64,
    pub(crate) echec: u64,
    pub(crate) incertaine: u64,
    pub(crate) definitifs: u64,
    pub(crate) modifiees: u64,
    pub(crate) octets_total: u64,
    pub(crate) octets_deposes: u64,
    /// Les échecs regroupés par cause (définitifs et transitoires), triés par cause.
    pub(crate) echecs_par_cause: Vec<(Option<CauseRefus>, bool, u64)>,
    /// La sorte de destination du plan (le geste d'un refus en dépend).
    pub(crate) sorte: Sorte,
}

impl ResumePlan {
    pub(crate) fn total(&self) -> u64 {
        self.a_deposer + self.en_cours + self.deposee + self.echec + self.incertaine
    }

    pub(crate) fn compte(&self, etat: EtatUnite) -> u64 {
        match etat {
            EtatUnite::ADeposer => self.a_deposer,
            EtatUnite::EnCours => self.en_cours,
            EtatUnite::Deposee => self.deposee,
            EtatUnite::Echec => self.echec,
            EtatUnite::Incertaine => self.incertaine,
        }
    }
}
