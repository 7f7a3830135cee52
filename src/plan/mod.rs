//! La base SQLite des plans : ouverture, migrations, erreurs.
//!
//! Le plan est le filet qui rattrape ce que les réessais ne rattrapent pas : il doit survivre à
//! un kill -9, à un portable refermé, à un disque plein, et ne jamais mentir sur ce qui est
//! déposé. D'où :
//! - des migrations embarquées (`migrations/NNNN_*.sql`), appliquées chacune dans une
//!   transaction, la version dans `PRAGMA user_version` (à la manière de matrix-rust-sdk et de
//!   cargo) ; on n'en retire jamais une ;
//! - une base d'une version future, ou illisible, refusée **sans être touchée** : on lit la
//!   version avant toute écriture, même avant de passer en WAL ;
//! - le mode WAL et un `busy_timeout`, pour que plusieurs `vigie` sur des plans différents
//!   partagent la même base sans « database is locked » ;
//! - un fichier créé en 0600 : il contient des noms de compartiments et d'envois.

mod calcul;
mod micros;
mod modele;
mod reglages;
mod saison;
mod unites;
mod verrou;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use crate::plateforme::conseil::commande;
use crate::plateforme::erreur_systeme;

pub(crate) use calcul::{CalculNote, CsvNote};
pub(crate) use micros::PointEcoute;
pub use modele::CauseRefus;
pub(crate) use modele::{
    DepotPlan, DepotUnite, EtatUnite, PartieEnvoi, ResumePlan, SequencePreparee, Sorte,
};
pub(crate) use reglages::ReglagesRetenus;
pub(crate) use saison::{DernierDepot, EtatDeNuit, NuitLiee, NuitPlanifiee};
pub(crate) use unites::{
    DeposeeARelire, EntreeJournal, FichierPlanifie, Planifiee, Replanification,
};
pub(crate) use verrou::{VerrouPlan, est_tenu};

/// Les migrations, dans l'ordre. Leur rang (à partir de 1) est la version du schéma.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_creer_plan",
        include_str!("../../migrations/0001_creer_plan.sql"),
    ),
    (
        "0002_ajouter_participation",
        include_str!("../../migrations/0002_ajouter_participation.sql"),
    ),
    (
        "0003_noter_refus_multipart",
        include_str!("../../migrations/0003_noter_refus_multipart.sql"),
    ),
    (
        "0004_noter_identite_fichier",
        include_str!("../../migrations/0004_noter_identite_fichier.sql"),
    ),
    (
        "0005_retenir_reglages",
        include_str!("../../migrations/0005_retenir_reglages.sql"),
    ),
    (
        "0006_separer_envoi",
        include_str!("../../migrations/0006_separer_envoi.sql"),
    ),
    (
        "0007_saison",
        include_str!("../../migrations/0007_saison.sql"),
    ),
    (
        "0008_comptes_par_index",
        include_str!("../../migrations/0008_comptes_par_index.sql"),
    ),
    (
        "0009_noter_calcul",
        include_str!("../../migrations/0009_noter_calcul.sql"),
    ),
    (
        "0010_preparer_au_fil",
        include_str!("../../migrations/0010_preparer_au_fil.sql"),
    ),
    (
        "0011_retenir_micro_du_point",
        include_str!("../../migrations/0011_retenir_micro_du_point.sql"),
    ),
    (
        "0012_noter_sorte",
        include_str!("../../migrations/0012_noter_sorte.sql"),
    ),
    (
        "0013_retenir_second_micro",
        include_str!("../../migrations/0013_retenir_second_micro.sql"),
    ),
];

/// Temps qu'un `vigie` attend qu'un autre libère l'écriture de la base avant d'abandonner.
const ATTENTE_BASE_OCCUPEE: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ErreurBase {
    #[error(
        "la base {chemin} a été écrite par une version plus récente de vigie (schéma {trouvee}, \
         cette version connaît jusqu'au {connue}) : mettez vigie à jour, ou indiquez une autre \
         base avec --base. Elle n'a pas été modifiée."
    )]
    VersionFuture {
        chemin: PathBuf,
        trouvee: i64,
        connue: i64,
    },
    #[error(
        "{chemin} n'est pas une base vigie lisible ({detail}). Elle n'a pas été modifiée : \
         déplacez-la pour repartir d'une base neuve, ou indiquez-en une autre avec --base."
    )]
    Illisible { chemin: PathBuf, detail: String },
    #[error(
        "le disque qui porte la base {chemin} est plein : libérez de la place puis relancez. \
         La dernière écriture a été annulée, le plan est intact."
    )]
    DisquePlein { chemin: PathBuf },
    #[error("impossible de créer la base {chemin} : {}", erreur_systeme(.cause))]
    Creation {
        chemin: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "aucun emplacement pour la base : le dossier personnel est introuvable (HOME, ou le profil \
         Windows) ; indiquez --base FICHIER (ou VIGIE_BASE)"
    )]
    SansEmplacement,
    #[error(
        "{chemin} n'est pas une base vigie : c'est une base SQLite qui contient déjà d'autres \
         tables. Elle n'a pas été modifiée : indiquez une autre base avec --base (ou VIGIE_BASE)."
    )]
    Etrangere { chemin: PathBuf },
    #[error(
        "aucun plan n'existe encore dans {chemin} : lancez d'abord {}",
        commande("depot")
    )]
    AucunPlan { chemin: PathBuf },
    #[error(
        "le plan {id} n'existe pas dans {chemin} : {} les liste",
        commande("plans")
    )]
    PlanInconnu { chemin: PathBuf, id: i64 },
    #[error(
        "le plan {plan} est déjà en cours de traitement par un autre vigie{} : attendez qu'il \
         finisse, ou arrêtez-le, puis relancez",
        match .pid { Some(p) => format!(" (processus {p})"), None => String::new() }
    )]
    PlanOccupe { plan: String, pid: Option<u32> },
    #[error("verrou du plan ({chemin}) : {}", erreur_systeme(.cause))]
    Verrou {
        chemin: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "la base {chemin} est en lecture seule (sur un système de fichiers en lecture seule : \
         carte ou clé protégée en écriture, disque monté en lecture seule ; ou fichier \
         protégé), alors que vigie y écrit ses plans, et à côté ses fichiers -wal et -shm. \
         Mettez la base où l'on peut écrire : --base FICHIER (ou VIGIE_BASE) ; pour garder vos \
         plans, copiez-y d'abord celle-ci. vigie etat et vigie plans la lisent telle quelle."
    )]
    EnLectureSeule { chemin: PathBuf },
    #[error("base {chemin} : {}", erreur_sqlite(.cause))]
    Sqlite {
        chemin: PathBuf,
        cause: rusqlite::Error,
    },
}

impl ErreurBase {
    /// La base existe mais ne peut pas être écrite (système de fichiers en lecture seule,
    /// fichier ou dossier sans droit d'écriture) : elle peut encore se lire
    /// ([`Base::ouvrir_pour_lire`]).
    fn ne_peut_pas_etre_ecrite(&self) -> bool {
        match self {
            ErreurBase::EnLectureSeule { .. } => true,
            ErreurBase::Sqlite { cause, .. } => matches!(
                cause.sqlite_error_code(),
                Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
            ),
            _ => false,
        }
    }

    /// Traduit une erreur SQLite en erreur qui dit quoi faire.
    fn depuis_sqlite(chemin: &Path, e: rusqlite::Error) -> Self {
        // La mémoire partagée du WAL (`-shm`) qui ne peut pas grandir : sur un disque plein,
        // c'est souvent la première écriture qui échoue, avant même la base.
        let shm_plein = e
            .sqlite_error()
            .is_some_and(|f| f.extended_code == rusqlite::ffi::SQLITE_IOERR_SHMSIZE);
        if shm_plein {
            return ErreurBase::DisquePlein {
                chemin: chemin.to_owned(),
            };
        }
        let code = e.sqlite_error_code();
        if matches!(code, Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen))
            && crate::plateforme::disque::en_lecture_seule(chemin)
        {
            return ErreurBase::EnLectureSeule {
                chemin: chemin.to_owned(),
            };
        }
        match code {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => ErreurBase::Illisible {
                chemin: chemin.to_owned(),
                detail: e.to_string(),
            },
            Some(ErrorCode::DiskFull) => ErreurBase::DisquePlein {
                chemin: chemin.to_owned(),
            },
            _ => ErreurBase::Sqlite {
                chemin: chemin.to_owned(),
                cause: e,
            },
        }
    }
}

/// Une erreur SQLite dite en français, avec ce qu'il faut vérifier (« attempt to write a
/// readonly database » ne dit pas quoi faire). Les cas rares gardent le texte de SQLite.
fn erreur_sqlite(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(ErrorCode::ReadOnly) => "la base est en lecture seule : vérifiez les droits du fichier et de son \
             dossier (SQLite écrit aussi à côté, dans -wal et -shm), ou indiquez une autre base avec --base \
             (ou VIGIE_BASE) ; vigie etat et vigie plans la lisent telle quelle"
            .into(),
        Some(ErrorCode::CannotOpen) => {
            "impossible d'ouvrir le fichier : son dossier existe-t-il, est-il accessible ?".into()
        }
        Some(ErrorCode::PermissionDenied) => "permission refusée : vérifiez les droits".into(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            "la base est restée occupée par un autre programme : réessayez quand il aura fini".into()
        }
        Some(ErrorCode::SystemIoFailure) => {
            "erreur d'entrée-sortie du disque : vérifiez le support (clé, carte, disque)".into()
        }
        _ => format!("erreur SQLite : {e}"),
    }
}

pub(crate) type Resultat<T> = Result<T, ErreurBase>;

/// L'emplacement par défaut : `vigie.sqlite` dans le dossier des données de `vigie` (sous
/// Linux `$XDG_DATA_HOME/vigie/`, par défaut `~/.local/share/vigie/` ; voir
/// `plateforme::emplacements` pour Windows et macOS).
pub(crate) fn chemin_par_defaut() -> Resultat<PathBuf> {
    let donnees = crate::plateforme::emplacements::donnees().ok_or(ErreurBase::SansEmplacement)?;
    Ok(donnees.join("vigie.sqlite"))
}

/// Une connexion à la base des plans, migrée.
pub struct Base {
    conn: Connection,
    chemin: PathBuf,
    /// Une copie en mémoire ([`Base::ouvrir_a_blanc`]) : rien de ce qui s'y écrit n'atteint
    /// le fichier.
    en_memoire: bool,
}

impl std::fmt::Debug for Base {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Base")
            .field("chemin", &self.chemin)
            .finish()
    }
}

impl Base {
    /// Ouvre (ou crée, en 0600) la base et la met au schéma courant.
    pub fn ouvrir(chemin: &Path) -> Resultat<Base> {
        if !chemin.exists() {
            creer_fichier_prive(chemin)?;
        }
        let conn = Connection::open(chemin).map_err(|e| ErreurBase::depuis_sqlite(chemin, e))?;
        let mut base = Base {
            conn,
            chemin: chemin.to_owned(),
            en_memoire: false,
        };
        base.preparer()?;
        Ok(base)
    }

    pub(crate) fn chemin(&self) -> &Path {
        &self.chemin
    }

    /// La base copiée en mémoire, pour travailler « à blanc » (`vigie depot --simulation`) :
    /// lue en lecture seule (absente, une base vide), puis migrée et modifiée en mémoire
    /// seulement. Rien n'est écrit dans la base : ni base créée, ni migration, ni plan. (Pour
    /// lire une base en mode WAL, SQLite peut créer à côté ses fichiers `-wal` et `-shm`, vides
    /// de toute écriture.) Elle garde ce chemin pour ses messages.
    pub(crate) fn ouvrir_a_blanc(chemin: &Path) -> Resultat<Base> {
        let err = |e| ErreurBase::depuis_sqlite(chemin, e);
        let mut conn = Connection::open_in_memory().map_err(err)?;
        if chemin.exists() {
            let source = ouvrir_en_lecture_seule(chemin).map_err(err)?;
            source.busy_timeout(ATTENTE_BASE_OCCUPEE).map_err(err)?;
            rusqlite::backup::Backup::new(&source, &mut conn)
                .and_then(|copie| {
                    copie.run_to_completion(std::ffi::c_int::MAX, Duration::ZERO, None)
                })
                .map_err(err)?;
        }
        let mut base = Base {
            conn,
            chemin: chemin.to_owned(),
            en_memoire: true,
        };
        base.preparer()?;
        Ok(base)
    }

    /// La base de `chemin` si elle existe, pour une commande qui ne fait que lire (`etat`,
    /// `plans`) : ouverte comme d'habitude ; si elle ne peut pas l'être en écriture (système de
    /// fichiers en lecture seule, fichier ou dossier sans droit d'écriture), lue telle quelle,
    /// copiée en mémoire ([`Base::ouvrir_a_blanc`]) : rien n'y est écrit, ni plan, ni
    /// migration. Si même la lecture échoue, l'erreur d'ouverture est rendue, qui dit quoi
    /// faire.
    pub(crate) fn ouvrir_pour_lire(chemin: &Path) -> Resultat<Option<Base>> {
        match Base::ouvrir_existante(chemin) {
            Err(e) if e.ne_peut_pas_etre_ecrite() => match Base::ouvrir_a_blanc(chemin) {
                Ok(base) => Ok(Some(base)),
                Err(_) => Err(e),
            },
            autre => autre,
        }
    }

    /// Une copie en mémoire (voir [`Base::ouvrir_a_blanc`], [`Base::ouvrir_pour_lire`]) :
    /// rien de ce qui s'y écrit n'atteint le fichier.
    pub(crate) fn en_memoire(&self) -> bool {
        self.en_memoire
    }

    /// La version du schéma connue de ce binaire.
    pub(crate) fn version_connue() -> i64 {
        MIGRATIONS.len() as i64
    }

    fn err(&self, e: rusqlite::Error) -> ErreurBase {
        ErreurBase::depuis_sqlite(&self.chemin, e)
    }

    fn preparer(&mut self) -> Resultat<()> {
        self.conn
            .busy_timeout(ATTENTE_BASE_OCCUPEE)
            .map_err(|e| self.err(e))?;
        // La version d'abord, avant toute écriture : c'est aussi cette lecture qui révèle un
        // fichier qui n'est pas une base SQLite.
        let version = self.version_schema()?;
        // Une base qui n'est ni vide ni de vigie (d'une autre application, ou un mauvais
        // --base) est refusée avant la moindre écriture : ni tables ajoutées, ni WAL.
        if self.est_etrangere(version)? {
            return Err(ErreurBase::Etrangere {
                chemin: self.chemin.clone(),
            });
        }
        let connue = Self::version_connue();
        if version > connue {
            return Err(ErreurBase::VersionFuture {
                chemin: self.chemin.clone(),
                trouvee: version,
                connue,
            });
        }
        if version < 0 {
            return Err(ErreurBase::Illisible {
                chemin: self.chemin.clone(),
                detail: format!("version de schéma négative ({version})"),
            });
        }
        // WAL hors transaction : SQLite refuse de changer de journal dans une transaction.
        // WAL + synchronous=NORMAL ne corrompt jamais la base ; une coupure de courant peut au
        // pis oublier les dernières transitions, qui seront refaites (les PUT sont idempotents,
        // les envois multipart se réconcilient).
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| self.err(e))?;
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.err(e))?;
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| self.err(e))?;
        self.migrer()
    }

    /// Vide, ou portant la table des plans : une base de vigie. Autre chose : une base étrangère.
    fn est_etrangere(&self, version: i64) -> Resultat<bool> {
        let (objets, plans): (i64, i64) = self
            .conn
            .query_row(
                "SELECT count(*), count(*) FILTER (WHERE type = 'table' AND name = 'depot_plan') \
                 FROM sqlite_master",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))?;
        Ok(objets > 0 && (version == 0 || plans == 0))
    }

    /// La base de `chemin` si elle existe, sans rien créer : pour les commandes qui ne font que
    /// lire (`plans`, `etat`), ou qui reprennent un plan existant.
    pub(crate) fn ouvrir_existante(chemin: &Path) -> Resultat<Option<Base>> {
        if !chemin.exists() {
            return Ok(None);
        }
        Base::ouvrir(chemin).map(Some)
    }

    fn version_schema(&self) -> Resultat<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Applique les migrations manquantes, chacune dans sa transaction. Deux `vigie` qui
    /// migrent en même temps : la transaction IMMEDIATE les sérialise, et la version est relue
    /// dedans.
    fn migrer(&mut self) -> Resultat<()> {
        let chemin = self.chemin.clone();
        for (rang, (nom, sql)) in MIGRATIONS.iter().enumerate() {
            let cible = rang as i64 + 1;
            if self.version_schema()? >= cible {
                continue;
            }
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| ErreurBase::depuis_sqlite(&chemin, e))?;
            let actuelle: i64 = tx
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .map_err(|e| ErreurBase::depuis_sqlite(&chemin, e))?;
            if actuelle >= cible {
                continue;
            }
            tx.execute_batch(sql)
                .map_err(|e| ErreurBase::depuis_sqlite(&chemin, e))?;
            tx.pragma_update(None, "user_version", cible)
                .map_err(|e| ErreurBase::depuis_sqlite(&chemin, e))?;
            tx.commit()
                .map_err(|e| ErreurBase::depuis_sqlite(&chemin, e))?;
            tracing::debug!(migration = nom, version = cible, "migration appliquée");
        }
        Ok(())
    }
}

/// La base de `chemin`, ouverte en lecture seule. En mode WAL, SQLite lit à côté un fichier
/// `-shm`, qu'il crée s'il manque : sur un système de fichiers en lecture seule, ou dans un
/// dossier où l'on ne peut pas écrire, il ne le peut pas, et refuse d'ouvrir. Sans fichier
/// `-wal` à côté (une base refermée proprement : tout est dans le fichier), la base se lit
/// alors comme immuable (`immutable=1` : ni verrou ni `-shm`).
fn ouvrir_en_lecture_seule(chemin: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let lecture = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let source = Connection::open_with_flags(chemin, lecture)?;
    let mut wal = chemin.as_os_str().to_os_string();
    wal.push("-wal");
    // SQLite n'ouvre vraiment la base (et son `-shm`) qu'à la première lecture.
    match source.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(())) {
        Err(e)
            if matches!(
                e.sqlite_error_code(),
                Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)
            ) && !Path::new(&wal).exists() =>
        {
            // Une adresse `file:` : `%`, `?` et `#` s'y écrivent en `%HH`.
            let mut adresse = String::from("file:");
            for c in chemin.to_string_lossy().chars() {
                match c {
                    '%' | '?' | '#' => adresse.push_str(&format!("%{:02X}", u32::from(c))),
                    c => adresse.push(c),
                }
            }
            adresse.push_str("?immutable=1");
            Connection::open_with_flags(adresse, lecture | OpenFlags::SQLITE_OPEN_URI)
        }
        Err(e) => Err(e),
        Ok(()) => Ok(source),
    }
}

/// Crée le fichier de base, vide, en 0600 (et son dossier en 0700).
fn creer_fichier_prive(chemin: &Path) -> Resultat<()> {
    let err = |cause| ErreurBase::Creation {
        chemin: chemin.to_owned(),
        cause,
    };
    if let Some(parent) = chemin.parent().filter(|p| !p.as_os_str().is_empty()) {
        crate::plateforme::dossier_prive()
            .recursive(true)
            .create(parent)
            .map_err(err)?;
    }
    match crate::plateforme::fichier_prive()
        .write(true)
        .create_new(true)
        .open(chemin)
    {
        Ok(_) => Ok(()),
        // Un autre vigie vient de la créer : elle est à lui comme à nous.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(err(e)),
    }
}

/// Maintenant, en secondes Unix.
pub(crate) fn maintenant_s() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Maintenant, en millisecondes Unix.
pub(crate) fn maintenant_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Pour les essais de mise à niveau : un plan vers une participation Vigie-Chiro, écrit comme
/// l'écrivaient les versions d'avant la sorte des plans (toutes les colonnes qu'elles avaient).
#[cfg(test)]
pub(crate) const PLAN_VIGIECHIRO_ANCIEN: &str = "INSERT INTO depot_plan (id, dossier, \
     destination, cree_le, actif_le, participation) VALUES (1, '/n', \
     'vigiechiro:participation/64a1b2c3d4e5f60718293d01', 1, 1, '64a1b2c3d4e5f60718293d01');";

/// Pour les essais de mise à niveau : un fichier déposé du plan [`PLAN_VIGIECHIRO_ANCIEN`].
#[cfg(test)]
pub(crate) const UNITE_DEPOSEE_ANCIENNE: &str = "INSERT INTO depot_unite (plan_id, chemin, \
     cle, taille, modifie_ns, etat) VALUES (1, 'a.wav', 'a.wav', 3, 5, 'deposee');";

/// Une base telle qu'une version ancienne de `vigie` l'a laissée : les `schema` premières
/// migrations, puis `donnees` (du SQL) ; pour les essais de mise à niveau.
#[cfg(test)]
pub(crate) fn base_au_schema(chemin: &Path, schema: usize, donnees: &str) {
    let c = Connection::open(chemin).unwrap();
    for (_, sql) in &MIGRATIONS[..schema] {
        c.execute_batch(sql).unwrap();
    }
    c.pragma_update(None, "user_version", schema as i64)
        .unwrap();
    c.execute_batch(donnees).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn migrer_deux_fois_ne_fait_rien() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        drop(b);
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let tables: i64 = b
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'depot_plan'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn base_d_une_version_ancienne_mise_a_niveau_sans_perte() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        {
            // Une base restée au schéma 1, avec un plan.
            let c = Connection::open(&chemin).unwrap();
            c.execute_batch(MIGRATIONS[0].1).unwrap();
            c.pragma_update(None, "user_version", 1).unwrap();
            c.execute(
                "INSERT INTO depot_plan (dossier, destination, cree_le, actif_le) VALUES ('/n', 's3://c', 1, 1)",
                [],
            )
            .unwrap();
        }
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let plan = b.plan(None).unwrap();
        assert_eq!(plan.destination, "s3://c");
        assert_eq!(b.participation(plan.id).unwrap(), (None, None));
    }

    /// Une base au schéma 11 (d'avant la sorte des plans, migration 0012) : chaque plan
    /// reçoit la sorte que disait son identité, une fois, et un plan créé ensuite la sienne.
    #[test]
    fn base_au_schema_11_chaque_plan_recoit_sa_sorte() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            11,
            "INSERT INTO depot_plan (dossier, destination, cree_le, actif_le) VALUES \
             ('/n', 's3://c/p?endpoint=http://127.0.0.1:9000', 1, 1), \
             ('/n', 'vigiechiro:participation/64a1b2c3d4e5f60718293d01', 1, 2), \
             ('/m', 'vigiechiro:site/64a1b2c3d4e5f60718293c01/debut/2026-06-21T21:30:00Z/fin/\
             2026-06-22T06:00:00Z?api=http://127.0.0.1:1/api/v1', 1, 3);",
        );
        let mut b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let sortes: Vec<(String, String)> = b
            .plans()
            .unwrap()
            .into_iter()
            .map(|p| (p.dossier, p.sorte.to_string()))
            .collect();
        assert_eq!(
            sortes,
            [
                ("/m".to_owned(), "vigiechiro".to_owned()),
                ("/n".to_owned(), "vigiechiro".to_owned()),
                ("/n".to_owned(), "s3".to_owned()),
            ]
        );
        let r = b
            .planifier_dans(
                "/o",
                (&Sorte::nouvelle("dossier"), "dossier:/mnt/nas"),
                &[],
                false,
                None,
                None,
            )
            .unwrap();
        let Planifiee::Faite(r) = r else {
            panic!("rien à relire")
        };
        let plan = r.plan.unwrap();
        assert_eq!(plan.sorte, Sorte::nouvelle("dossier"));
        assert_eq!(b.resume(plan.id).unwrap().sorte, Sorte::nouvelle("dossier"));
    }

    /// Une base au schéma 3 (refus du multipart noté) monte au schéma 4 (identité des
    /// fichiers) sans rien perdre : le refus reste retenu, les unités gardent leur état, leur
    /// identité est simplement inconnue jusqu'à la prochaine planification.
    #[test]
    fn base_au_schema_3_mise_a_niveau_sans_perte() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            3,
            "INSERT INTO depot_plan (dossier, destination, cree_le, actif_le, \
             multipart_refuse_le) VALUES ('/n', 'vigiechiro:https://api', 1, 1, 7); \
             INSERT INTO depot_unite (plan_id, chemin, cle, taille, modifie_ns, etat) \
             VALUES (1, '/n/a.wav', 'a.wav', 3, 5, 'deposee');",
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let plan = b.plan(None).unwrap();
        assert!(plan.multipart_refuse, "le refus du multipart est perdu");
        let unites = b.unites(plan.id, &[]).unwrap();
        assert_eq!(unites.len(), 1);
        assert_eq!(unites[0].etat, EtatUnite::Deposee);
        assert_eq!(unites[0].identite, None);
    }

    /// Une base au schéma 4, avec un plan commencé (une unité en cours, deux parties
    /// acquittées), monte au schéma 5 sans rien perdre : le plan ne retient encore aucun
    /// réglage (il reprendra aux défauts, comme avant), puis retient ceux qu'on lui donne.
    #[test]
    fn base_au_schema_4_mise_a_niveau_sans_perte() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            4,
            "INSERT INTO depot_plan (dossier, destination, cree_le, actif_le, participation)                  VALUES ('/n', 'vigiechiro:participation/64a1b2c3d4e5f60718293d01', 1, 1,                  '64a1b2c3d4e5f60718293d01');                  INSERT INTO depot_unite (plan_id, chemin, cle, taille, modifie_ns, etat, envoi_id,                  identite) VALUES (1, 'a.wav', 'a.wav', 12582912, 5, 'en_cours',                  '64a1b2c3d4e5f60718293e01', '1:2');                  INSERT INTO depot_partie (unite_id, numero, debut, taille, etag, somme_controle,                  etat) VALUES (1, 1, 0, 5242880, 'e1', 'AAAAAA==', 'envoyee'),                  (1, 2, 5242880, 5242880, 'e2', 'AAAAAA==', 'envoyee');",
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let plan = b.plan(None).unwrap();
        assert_eq!(
            plan.participation.as_deref(),
            Some("64a1b2c3d4e5f60718293d01")
        );
        assert!(b.reglages(plan.id).unwrap().est_vide());
        let unites = b.unites(plan.id, &[]).unwrap();
        assert_eq!(
            unites[0].enregistrement.as_deref(),
            Some("64a1b2c3d4e5f60718293e01")
        );
        assert_eq!(unites[0].identite.as_deref(), Some("1:2"));
        assert_eq!(b.parties(unites[0].id).unwrap().len(), 2);
        let retenus: ReglagesRetenus = serde_json::from_value(serde_json::json!({
            "seuil_multipart": 6,
            "debit_max": 2_000_000,
            "attente_reseau": 90.5
        }))
        .unwrap();
        b.retenir_reglages(plan.id, &retenus).unwrap();
        drop(b);
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.reglages(plan.id).unwrap(), retenus);
        // Rien de retenu : la colonne redevient vide.
        b.retenir_reglages(plan.id, &ReglagesRetenus::default())
            .unwrap();
        assert!(b.reglages(plan.id).unwrap().est_vide());
    }

    /// Une base au schéma 5, avec des plans commencés vers les deux destinations, monte au
    /// schéma 6 sans rien perdre : l'ancienne colonne `envoi_id` se répartit selon la
    /// destination du plan (envoi multipart S3, enregistrement Vigie-Chiro), le marqueur d'une
    /// déclaration multipart émise devient l'état explicite, et les parties acquittées restent.
    #[test]
    fn base_au_schema_5_envoi_id_reparti_par_sens() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        base_au_schema(
            &chemin,
            5,
            "INSERT INTO depot_plan (id, dossier, destination, cree_le, actif_le) \
             VALUES (1, '/n', 's3://nuits?endpoint=http://127.0.0.1:9000', 1, 1), \
             (2, '/n', 'vigiechiro:participation/64a1b2c3d4e5f60718293d01', 1, 1); \
             INSERT INTO depot_unite (id, plan_id, chemin, cle, taille, modifie_ns, etat, \
             envoi_id) VALUES \
             (1, 1, 'a.wav', 'a.wav', 12582912, 5, 'en_cours', 'upload-s3-1'), \
             (2, 1, 'b.wav', 'b.wav', 3, 5, 'a_deposer', NULL), \
             (3, 2, 'a.wav', 'a.wav', 12582912, 5, 'en_cours', '64a1b2c3d4e5f60718293e01'), \
             (4, 2, 'c.wav', 'c.wav', 12582912, 5, 'incertaine', \
              'declaration-multipart-emise'); \
             INSERT INTO depot_partie (unite_id, numero, debut, taille, etag, \
             somme_controle, etat) VALUES (1, 1, 0, 5242880, 'e1', 'AAAAAA==', 'envoyee'), \
             (3, 1, 0, 5242880, 'e1', 'AAAAAA==', 'envoyee');",
        );
        let b = Base::ouvrir(&chemin).unwrap();
        assert_eq!(b.version_schema().unwrap(), Base::version_connue());
        let par_id = |id| b.unite(id).unwrap();
        let s3 = par_id(1);
        assert_eq!(s3.envoi_multipart.as_deref(), Some("upload-s3-1"));
        assert_eq!(s3.enregistrement, None);
        assert!(!s3.declaration_emise);
        assert_eq!(par_id(2).envoi_multipart, None);
        let vc = par_id(3);
        assert_eq!(
            vc.enregistrement.as_deref(),
            Some("64a1b2c3d4e5f60718293e01")
        );
        assert_eq!(vc.envoi_multipart, None);
        assert!(!vc.declaration_emise);
        let emise = par_id(4);
        assert!(emise.declaration_emise, "le marqueur est perdu");
        assert_eq!(
            emise.enregistrement, None,
            "le marqueur pris pour un identifiant"
        );
        assert_eq!(emise.envoi_multipart, None);
        assert_eq!(b.parties(1).unwrap().len(), 1);
        assert_eq!(b.parties(3).unwrap().len(), 1);
        // L'état explicite se règle comme le marqueur : la réponse connue, il disparaît.
        b.noter_enregistrement(4, Some("64a1b2c3d4e5f60718293e02"))
            .unwrap();
        let reglee = par_id(4);
        assert!(!reglee.declaration_emise);
        assert_eq!(
            reglee.enregistrement.as_deref(),
            Some("64a1b2c3d4e5f60718293e02")
        );
        b.noter_declaration_emise(4).unwrap();
        assert!(par_id(4).declaration_emise);
        assert_eq!(par_id(4).enregistrement, None);
    }

    /// Des réglages illisibles (écrits à la main) n'empêchent pas de reprendre le plan.
    #[test]
    fn reglages_illisibles_ignores() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        let b = Base::ouvrir(&chemin).unwrap();
        b.conn
            .execute_batch(
                "INSERT INTO depot_plan (dossier, destination, cree_le, actif_le, reglages)                  VALUES ('/n', 's3://c', 1, 1, 'pas du JSON'),                  ('/m', 's3://c', 1, 1, '{\"seuil_multipart\": 7, \"venu_du_futur\": 1}');",
            )
            .unwrap();
        assert!(b.reglages(1).unwrap().est_vide());
        let lisibles = b.reglages(2).unwrap();
        assert_eq!(
            lisibles.valeur("seuil_multipart"),
            Some(&serde_json::json!(7))
        );
        // Une clé d'une version plus récente est gardée telle quelle.
        assert_eq!(
            lisibles.valeur("venu_du_futur"),
            Some(&serde_json::json!(1))
        );
    }

    #[cfg(unix)]
    #[test]
    fn base_creee_en_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("sous/dossier/v.sqlite");
        Base::ouvrir(&chemin).unwrap();
        let mode = fs::metadata(&chemin).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn base_future_refusee_sans_modification() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        {
            let c = Connection::open(&chemin).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        let avant = fs::read(&chemin).unwrap();
        let e = Base::ouvrir(&chemin).unwrap_err();
        assert!(
            matches!(e, ErreurBase::VersionFuture { trouvee: 99, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("mettez vigie à jour"));
        assert_eq!(fs::read(&chemin).unwrap(), avant, "la base a été modifiée");
        assert!(!dir.path().join("v.sqlite-wal").exists());
    }

    /// « attempt to write a readonly database » et « Permission denied (os error 13):
    /// Permission denied (os error 13) » : en français, et une seule fois.
    #[test]
    fn erreurs_sqlite_et_systeme_en_francais_sans_repetition() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        Base::ouvrir(&chemin).unwrap();
        let lecture =
            Connection::open_with_flags(&chemin, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let e = lecture.execute("CREATE TABLE t (x)", []).unwrap_err();
        let texte = format!(
            "{:#}",
            anyhow::Error::from(ErreurBase::depuis_sqlite(&chemin, e))
        );
        assert!(
            texte.contains("la base est en lecture seule : vérifiez les droits"),
            "{texte}"
        );
        assert!(
            !texte.contains("readonly") && !texte.contains("attempt"),
            "{texte}"
        );
        let e = ErreurBase::Creation {
            chemin: "/nuit/v.sqlite".into(),
            cause: std::io::Error::from_raw_os_error(13),
        };
        assert_eq!(
            format!("{:#}", anyhow::Error::from(e)),
            "impossible de créer la base /nuit/v.sqlite : permission refusée (vérifiez les droits) (code 13)"
        );
    }

    #[test]
    fn base_etrangere_refusee_sans_modification() {
        let dir = tempfile::tempdir().unwrap();
        for version in [0, 1, 42] {
            let chemin = dir.path().join(format!("autre-{version}.sqlite"));
            {
                let c = Connection::open(&chemin).unwrap();
                c.execute_batch("CREATE TABLE notes (texte TEXT); INSERT INTO notes VALUES ('x');")
                    .unwrap();
                c.pragma_update(None, "user_version", version).unwrap();
            }
            let avant = fs::read(&chemin).unwrap();
            let e = Base::ouvrir(&chemin).unwrap_err();
            assert!(matches!(e, ErreurBase::Etrangere { .. }), "{version} : {e}");
            assert!(e.to_string().contains("n'est pas une base vigie"), "{e}");
            assert_eq!(fs::read(&chemin).unwrap(), avant, "la base a été modifiée");
            assert!(!chemin.with_extension("sqlite-wal").exists());
        }
        // Vide, elle devient une base vigie.
        let vide = dir.path().join("vide.sqlite");
        Connection::open(&vide).unwrap();
        Base::ouvrir(&vide).unwrap();
    }

    #[test]
    fn base_corrompue_refusee_sans_modification() {
        let dir = tempfile::tempdir().unwrap();
        let chemin = dir.path().join("v.sqlite");
        let contenu = b"ceci n'est pas une base SQLite, mais un compte rendu de sortie".repeat(100);
        fs::write(&chemin, &contenu).unwrap();
        let e = Base::ouvrir(&chemin).unwrap_err();
        assert!(matches!(e, ErreurBase::Illisible { .. }), "{e}");
        assert!(e.to_string().contains("n'a pas été modifiée"));
        assert_eq!(fs::read(&chemin).unwrap(), contenu);
    }
}
