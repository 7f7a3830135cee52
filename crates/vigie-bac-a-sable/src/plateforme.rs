//! Enveloppe du trait `S3` autour de `s3s_fs::FileSystem` : ce qui manque à s3s-fs 0.14.1 pour
//! se comporter comme un S3 face au protocole de dépôt de `vigie`.
//!
//! Pourquoi : s3s-fs est un vrai stockage S3 sur disque, mais il s'écarte d'AWS là où la
//! reprise d'un dépôt se joue (voir `/tmp/notes-s3.md`, pièges 2 à 6) :
//! - `UploadPart` ignore `x-amz-checksum-crc32c` : on vérifie le CRC32C au fil du corps, et une
//!   partie fausse est refusée (400 `BadDigest`) **sans remplacer** la partie déjà reçue ;
//! - `PutObject` vérifie bien les sommes, mais **après** avoir mis l'objet en place : un objet
//!   au contenu faux restait sur le disque. On vérifie le CRC32C avant la mise en place, et pour
//!   les autres sommes on retire l'objet refusé ;
//! - `ListParts` rend les parties en désordre, sans ETag ni somme, et une liste vide pour un
//!   envoi inconnu : on trie, on recalcule, on répond 404 `NoSuchUpload` ;
//! - `CompleteMultipartUpload` supprime l'envoi avant de vérifier les parties (un envoi mal
//!   finalisé était perdu) et garde les sommes d'un ancien objet de même clé : on valide tout
//!   avant de déléguer (ordre, tailles, ETag, CRC32C), puis on pose la somme composite
//!   `base64(crc32c(crc₁‖…‖crcₙ))-N` et l'on retire les sommes périmées ;
//! - un id d'envoi inconnu ou terminé donne 403 `AccessDenied` : on répond 404 `NoSuchUpload`,
//!   comme AWS ;
//! - `ListMultipartUploads` n'existe pas : on le reconstruit depuis les fichiers de s3s-fs.
//! - `HeadObject` et `GetObject` sur un « dossier » (le préfixe d'autres clés, `nuit` pour
//!   `nuit/a.wav`) répondent 500 : on répond 404 `NoSuchKey`, comme AWS. rclone sonde ainsi
//!   toute destination avant d'y copier, et rejouait ces 500 pendant une minute et demie ;
//! - `ListObjects` avec `delimiter=` vide (ce qu'envoie `rclone ls`) groupe les clés par leur
//!   premier caractère : un délimiteur vide vaut absence de délimiteur, comme chez AWS.
//!
//! Disposition sur disque de s3s-fs (racine R) : objets dans `R/{seau}/{clé}` (sous-dossiers
//! créés pour les « / » de la clé), métadonnées dans `R/.bucket-{b64u(seau)}.object-{b64u(clé)}…`,
//! envois ouverts dans `R/.upload-{uuid}.json` et parties dans `R/.upload_id-{uuid}.part-{n}`.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::SystemTime;

use futures_util::Stream;
use hyper::body::Bytes;
use s3s::dto::*;
use s3s::stream::{ByteStream, RemainingLength};
use s3s::{
    S3, S3Error, S3ErrorCode, S3Request, S3Response, S3Result, StdError, TrailingHeaders, s3_error,
};

/// Taille minimale d'une partie qui n'est pas la dernière (règle S3, appliquée par s3s-fs).
const TAILLE_MIN_PARTIE: u64 = 5 * 1024 * 1024;

/// Clonable à peu de frais : les clones partagent le même `FileSystem` (dont le compteur de
/// fichiers provisoires doit rester unique par racine). La plateforme Vigie-Chiro locale en
/// garde un clone pour ses appels S3 directs.
#[derive(Clone)]
pub(crate) struct Plateforme {
    fs: Arc<s3s_fs::FileSystem>,
    /// Même racine que celle de `FileSystem` (dont le champ est privé), déjà canonicalisée.
    racine: PathBuf,
}

impl Plateforme {
    /// `racine` doit exister et être canonicalisée (c'est ce que fait `FileSystem::new`).
    pub(crate) fn nouveau(racine: &Path) -> anyhow::Result<Plateforme> {
        // s3s_fs::Error n'implémente pas std::error::Error (seulement Debug).
        let fs = s3s_fs::FileSystem::new(racine).map_err(|e| {
            anyhow::anyhow!("s3s-fs ne peut pas servir {} : {e:?}", racine.display())
        })?;
        Ok(Plateforme {
            fs: Arc::new(fs),
            racine: racine.to_path_buf(),
        })
    }

    /// 404 `NoSuchUpload` si l'envoi n'existe pas ou plus (s3s-fs répondrait 403 ou 400).
    fn exiger_envoi(&self, id: &str) -> S3Result<()> {
        if id_envoi_plausible(id) && self.racine.join(format!(".upload-{id}.json")).exists() {
            Ok(())
        } else {
            Err(s3_error!(
                NoSuchUpload,
                "The specified multipart upload does not exist."
            ))
        }
    }

    /// 404 `NoSuchKey` pour une clé qui n'est que le préfixe d'autres clés (un dossier sur le
    /// disque de s3s-fs, qui répondrait 500).
    fn refuser_dossier(&self, seau: &str, cle: &str) -> S3Result<()> {
        if self.racine.join(seau).join(cle).is_dir() {
            Err(s3_error!(NoSuchKey, "The specified key does not exist."))
        } else {
            Ok(())
        }
    }

    fn chemin_partie(&self, id: &str, n: i32) -> PathBuf {
        self.racine.join(format!(".upload_id-{id}.part-{n}"))
    }

    fn chemin_infos(&self, seau: &str, cle: &str) -> PathBuf {
        self.racine.join(format!(
            ".bucket-{}.object-{}.internal.json",
            b64u(seau),
            b64u(cle)
        ))
    }

    fn chemin_attributs(&self, seau: &str, cle: &str) -> PathBuf {
        self.racine.join(format!(
            ".bucket-{}.object-{}.metadata.json",
            b64u(seau),
            b64u(cle)
        ))
    }

    /// Réécrit `.internal.json` : retire toutes les sommes, pose `checksum_crc32c` si donné.
    async fn reecrire_sommes(&self, seau: &str, cle: &str, crc32c: Option<&str>) -> S3Result<()> {
        let chemin = self.chemin_infos(seau, cle);
        let mut infos: serde_json::Map<String, serde_json::Value> =
            match tokio::fs::read(&chemin).await {
                Ok(o) => serde_json::from_slice(&o).map_err(S3Error::internal_error)?,
                Err(_) => serde_json::Map::new(),
            };
        infos.retain(|k, _| !k.starts_with("checksum_"));
        if let Some(c) = crc32c {
            infos.insert("checksum_crc32c".into(), c.into());
        }
        let provisoire = chemin.with_extension("json.bac-a-sable.tmp");
        let contenu = serde_json::to_vec(&infos).map_err(S3Error::internal_error)?;
        tokio::fs::write(&provisoire, contenu)
            .await
            .map_err(S3Error::internal_error)?;
        tokio::fs::rename(&provisoire, &chemin)
            .await
            .map_err(S3Error::internal_error)
    }
}

/// Un UUID textuel (36 caractères hexadécimaux et tirets), comme ceux de s3s-fs. Empêche aussi
/// un id fabriqué de désigner un autre fichier que celui d'un envoi.
fn id_envoi_plausible(s: &str) -> bool {
    s.len() == 36 && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

fn b64u(s: &str) -> String {
    base64_simd::URL_SAFE_NO_PAD.encode_to_string(s)
}

/// CRC32C en base64 de sa représentation big-endian sur 4 octets (forme `x-amz-checksum-crc32c`).
pub(crate) fn crc32c_b64(crc: u32) -> String {
    base64_simd::STANDARD.encode_to_string(crc.to_be_bytes())
}

/// Somme composite à la manière d'AWS : `base64(crc32c(crc₁‖…‖crcₙ))-N`.
pub(crate) fn crc32c_composite(crcs: &[u32]) -> String {
    let concat: Vec<u8> = crcs.iter().flat_map(|c| c.to_be_bytes()).collect();
    format!("{}-{}", crc32c_b64(crc32c::crc32c(&concat)), crcs.len())
}

/// (md5 hexadécimal, crc32c, taille) d'un fichier.
async fn empreintes(chemin: &Path) -> std::io::Result<(String, u32, u64)> {
    use s3s::crypto::{Checksum, Md5};
    use tokio::io::AsyncReadExt;
    let mut f = tokio::fs::File::open(chemin).await?;
    let mut tampon = vec![0u8; 1 << 16];
    let (mut md5, mut crc, mut taille) = (Md5::new(), 0u32, 0u64);
    loop {
        let n = f.read(&mut tampon).await?;
        if n == 0 {
            break;
        }
        md5.update(&tampon[..n]);
        crc = crc32c::crc32c_append(crc, &tampon[..n]);
        taille += n as u64;
    }
    let hex: String = md5.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((hex, crc, taille))
}

/// Un envoi multipart encore ouvert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnvoiOuvert {
    pub cle: String,
    pub id: String,
    pub debut: SystemTime,
}

/// `.bucket-{b64u(seau)}.object-{b64u(clé)}.upload-{uuid}.metadata.json` → (seau, clé, uuid).
/// L'alphabet base64url n'a pas de « . » : le découpage est sans ambiguïté.
fn analyser_nom_attributs_envoi(nom: &str) -> Option<(String, String, String)> {
    let reste = nom
        .strip_prefix(".bucket-")?
        .strip_suffix(".metadata.json")?;
    let (b, reste) = reste.split_once(".object-")?;
    let (k, u) = reste.split_once(".upload-")?;
    let dec = |s: &str| {
        base64_simd::URL_SAFE_NO_PAD
            .decode_to_vec(s)
            .ok()
            .and_then(|v| String::from_utf8(v).ok())
    };
    Some((dec(b)?, dec(k)?, u.to_owned()))
}

/// Envois ouverts d'un compartiment, triés par clé puis date de début.
///
/// s3s-fs n'écrit ni seau ni clé dans `.upload-{id}.json` : la seule trace en est le nom du
/// fichier d'attributs de l'envoi, toujours écrit par `CreateMultipartUpload`.
pub(crate) fn envois_ouverts(
    racine: &Path,
    compartiment: &str,
) -> std::io::Result<Vec<EnvoiOuvert>> {
    let mut envois = Vec::new();
    for entree in std::fs::read_dir(racine)? {
        let entree = entree?;
        let nom = entree.file_name();
        let Some(nom) = nom.to_str() else { continue };
        let Some((seau, cle, id)) = analyser_nom_attributs_envoi(nom) else {
            continue;
        };
        // Complete et Abort suppriment `.upload-{id}.json` : sans lui, l'envoi est clos.
        if seau != compartiment || !racine.join(format!(".upload-{id}.json")).exists() {
            continue;
        }
        let debut = entree
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        envois.push(EnvoiOuvert { cle, id, debut });
    }
    envois.sort_by(|a, b| (&a.cle, a.debut, &a.id).cmp(&(&b.cle, b.debut, &b.id)));
    Ok(envois)
}

/// Ce que le flux vérifié a constaté à la fin du corps.
#[derive(Debug, Default)]
struct Verdict {
    /// CRC32C calculé, si une somme était attendue.
    calcule: Option<String>,
    /// (attendu, calculé) en cas d'écart.
    ecart: Option<(String, String)>,
}

/// Flux qui calcule le CRC32C au passage et, si la somme attendue (en-tête ou trailer
/// aws-chunked) diffère, échoue **à la fin du corps** : s3s-fs abandonne alors son fichier
/// provisoire et l'objet ou la partie déjà en place n'est pas remplacé.
struct FluxVerifie {
    inner: StreamingBlob,
    crc: u32,
    attendu: Option<String>,
    trailers: Option<TrailingHeaders>,
    verdict: Arc<Mutex<Verdict>>,
    fini: bool,
}

impl FluxVerifie {
    /// Enveloppe le corps si une somme CRC32C peut être attendue ; rend le verdict partagé.
    fn envelopper(
        corps: &mut Option<StreamingBlob>,
        attendu: Option<String>,
        trailers: Option<TrailingHeaders>,
    ) -> Option<Arc<Mutex<Verdict>>> {
        if attendu.is_none() && trailers.is_none() {
            return None;
        }
        let inner = corps.take()?;
        let verdict = Arc::new(Mutex::new(Verdict::default()));
        *corps = Some(StreamingBlob::new(FluxVerifie {
            inner,
            crc: 0,
            attendu,
            trailers,
            verdict: Arc::clone(&verdict),
            fini: false,
        }));
        Some(verdict)
    }
}

impl Stream for FluxVerifie {
    type Item = Result<Bytes, StdError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.fini {
            return Poll::Ready(None);
        }
        match std::task::ready!(Pin::new(&mut self.inner).poll_next(cx)) {
            Some(Ok(b)) => {
                self.crc = crc32c::crc32c_append(self.crc, &b);
                Poll::Ready(Some(Ok(b)))
            }
            Some(Err(e)) => Poll::Ready(Some(Err(e))),
            None => {
                self.fini = true;
                let attendu = self.attendu.clone().or_else(|| {
                    self.trailers.as_ref().and_then(|t| {
                        t.read(|h| {
                            h.get("x-amz-checksum-crc32c")
                                .and_then(|v| v.to_str().ok())
                                .map(str::to_owned)
                        })
                        .flatten()
                    })
                });
                let Some(attendu) = attendu else {
                    return Poll::Ready(None);
                };
                let calcule = crc32c_b64(self.crc);
                let mut v = self.verdict.lock().unwrap_or_else(PoisonError::into_inner);
                v.calcule = Some(calcule.clone());
                if attendu != calcule {
                    v.ecart = Some((attendu, calcule));
                    return Poll::Ready(Some(Err("checksum_crc32c mismatch".into())));
                }
                Poll::Ready(None)
            }
        }
    }
}

impl ByteStream for FluxVerifie {
    fn remaining_length(&self) -> RemainingLength {
        self.inner.remaining_length()
    }
}

/// Lit le verdict d'un flux vérifié : erreur `BadDigest` en cas d'écart, sinon le CRC calculé.
fn lire_verdict(verdict: Option<&Arc<Mutex<Verdict>>>) -> S3Result<Option<String>> {
    let Some(v) = verdict else { return Ok(None) };
    let v = v.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((attendu, calcule)) = &v.ecart {
        return Err(s3_error!(
            BadDigest,
            "checksum_crc32c mismatch: expected `{attendu}`, got `{calcule}`"
        ));
    }
    Ok(v.calcule.clone())
}

#[async_trait::async_trait]
impl S3 for Plateforme {
    // ---- délégation pure : les opérations de s3s-fs 0.14.1 sans écart gênant ----
    async fn create_bucket(
        &self,
        req: S3Request<CreateBucketInput>,
    ) -> S3Result<S3Response<CreateBucketOutput>> {
        self.fs.create_bucket(req).await
    }

    async fn copy_object(
        &self,
        req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        self.fs.copy_object(req).await
    }

    async fn delete_bucket(
        &self,
        req: S3Request<DeleteBucketInput>,
    ) -> S3Result<S3Response<DeleteBucketOutput>> {
        self.fs.delete_bucket(req).await
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        self.fs.delete_object(req).await
    }

    async fn delete_objects(
        &self,
        req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        self.fs.delete_objects(req).await
    }

    async fn get_bucket_location(
        &self,
        req: S3Request<GetBucketLocationInput>,
    ) -> S3Result<S3Response<GetBucketLocationOutput>> {
        self.fs.get_bucket_location(req).await
    }

    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        self.refuser_dossier(&req.input.bucket, &req.input.key)?;
        self.fs.get_object(req).await
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        self.fs.head_bucket(req).await
    }

    async fn list_buckets(
        &self,
        req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        self.fs.list_buckets(req).await
    }

    async fn list_objects(
        &self,
        mut req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        if req.input.delimiter.as_deref() == Some("") {
            req.input.delimiter = None;
        }
        self.fs.list_objects(req).await
    }

    async fn list_objects_v2(
        &self,
        mut req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        if req.input.delimiter.as_deref() == Some("") {
            req.input.delimiter = None;
        }
        self.fs.list_objects_v2(req).await
    }

    async fn upload_part_copy(
        &self,
        req: S3Request<UploadPartCopyInput>,
    ) -> S3Result<S3Response<UploadPartCopyOutput>> {
        self.exiger_envoi(&req.input.upload_id)?;
        self.fs.upload_part_copy(req).await
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        self.exiger_envoi(&req.input.upload_id)?;
        self.fs.abort_multipart_upload(req).await
    }

    // ---- HeadObject : on dit de quel type est la somme (composite « …-N » ou objet entier) ----
    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        self.refuser_dossier(&req.input.bucket, &req.input.key)?;
        let mut rep = self.fs.head_object(req).await?;
        let o = &mut rep.output;
        o.checksum_type = match &o.checksum_crc32c {
            Some(c) if c.contains('-') => Some(ChecksumType::from_static(ChecksumType::COMPOSITE)),
            _ if o.checksum_crc32.is_some()
                || o.checksum_crc32c.is_some()
                || o.checksum_sha1.is_some()
                || o.checksum_sha256.is_some()
                || o.checksum_crc64nvme.is_some() =>
            {
                Some(ChecksumType::from_static(ChecksumType::FULL_OBJECT))
            }
            _ => None,
        };
        Ok(rep)
    }

    // ---- PutObject : CRC32C vérifié AVANT la mise en place de l'objet ----
    async fn put_object(
        &self,
        mut req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        let (seau, cle) = (req.input.bucket.clone(), req.input.key.clone());
        let verdict = FluxVerifie::envelopper(
            &mut req.input.body,
            req.input.checksum_crc32c.clone(),
            req.trailing_headers.clone(),
        );
        let resultat = self.fs.put_object(req).await;
        lire_verdict(verdict.as_ref())?;
        match resultat {
            Err(e) if *e.code() == S3ErrorCode::BadDigest => {
                // Une autre somme (CRC32, SHA-256, Content-MD5…) est fausse, mais s3s-fs a déjà
                // mis l'objet en place : on ne laisse pas un contenu refusé sur le disque.
                if !cle.ends_with('/') {
                    let _ = tokio::fs::remove_file(self.racine.join(&seau).join(&cle)).await;
                    let _ = tokio::fs::remove_file(self.chemin_infos(&seau, &cle)).await;
                    let _ = tokio::fs::remove_file(self.chemin_attributs(&seau, &cle)).await;
                }
                Err(e)
            }
            r => r,
        }
    }

    // ---- CreateMultipartUpload : renvoie l'algorithme de somme demandé, comme AWS ----
    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        let algorithme = req.input.checksum_algorithm.clone();
        let mut rep = self.fs.create_multipart_upload(req).await?;
        if rep.output.checksum_algorithm.is_none() {
            rep.output.checksum_algorithm = algorithme;
        }
        Ok(rep)
    }

    // ---- UploadPart : vérification du CRC32C (s3s-fs l'ignore) ----
    async fn upload_part(
        &self,
        mut req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        self.exiger_envoi(&req.input.upload_id)?;
        let verdict = FluxVerifie::envelopper(
            &mut req.input.body,
            req.input.checksum_crc32c.clone(),
            req.trailing_headers.clone(),
        );
        let resultat = self.fs.upload_part(req).await;
        let calcule = lire_verdict(verdict.as_ref())?;
        let mut rep = resultat?;
        if calcule.is_some() {
            rep.output.checksum_crc32c = calcule;
        }
        Ok(rep)
    }

    // ---- ListParts : tri, ETag et CRC32C recalculés ; 404 pour un envoi inconnu ----
    async fn list_parts(
        &self,
        req: S3Request<ListPartsInput>,
    ) -> S3Result<S3Response<ListPartsOutput>> {
        self.exiger_envoi(&req.input.upload_id)?;
        let id = req.input.upload_id.clone();
        let mut rep = self.fs.list_parts(req).await?;
        if let Some(parties) = rep.output.parts.as_mut() {
            parties.sort_by_key(|p| p.part_number);
            for p in parties.iter_mut() {
                let Some(n) = p.part_number else { continue };
                if let Ok((md5, crc, _)) = empreintes(&self.chemin_partie(&id, n)).await {
                    p.e_tag = Some(ETag::Strong(md5));
                    p.checksum_crc32c = Some(crc32c_b64(crc));
                }
            }
        }
        Ok(rep)
    }

    // ---- Complete : tout valider avant que s3s-fs ne détruise l'envoi, puis sommes ----
    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        self.exiger_envoi(&req.input.upload_id)?;
        let (seau, cle, id) = (
            req.input.bucket.clone(),
            req.input.key.clone(),
            req.input.upload_id.clone(),
        );
        let parties: Vec<CompletedPart> = req
            .input
            .multipart_upload
            .as_ref()
            .and_then(|m| m.parts.clone())
            .unwrap_or_default();
        if parties.is_empty() {
            return Err(s3_error!(InvalidPart, "You must specify at least one part"));
        }
        // s3s-fs supprime l'envoi avant de concaténer : une erreur découverte en route le
        // perdrait. On vérifie donc tout ici, sur les fichiers de parties.
        let mut crcs = Vec::with_capacity(parties.len());
        for (i, p) in parties.iter().enumerate() {
            let attendu =
                i32::try_from(i + 1).map_err(|_| s3_error!(InvalidPart, "too many parts"))?;
            let Some(n) = p.part_number else {
                return Err(s3_error!(InvalidRequest, "missing part number"));
            };
            if n != attendu {
                return Err(s3_error!(
                    InvalidPartOrder,
                    "The list of parts was not in ascending order, or a part number is missing (expected {attendu}, got {n})."
                ));
            }
            let (md5, crc, taille) = empreintes(&self.chemin_partie(&id, n))
                .await
                .map_err(|_| s3_error!(InvalidPart, "part {n} has not been uploaded"))?;
            if i + 1 < parties.len() && taille < TAILLE_MIN_PARTIE {
                return Err(s3_error!(
                    EntityTooSmall,
                    "part {n} is {taille} bytes, below the 5 MiB minimum"
                ));
            }
            if let Some(e) = &p.e_tag
                && e.value().trim_matches('"') != md5
            {
                return Err(s3_error!(InvalidPart, "ETag of part {n} does not match"));
            }
            if let Some(c) = &p.checksum_crc32c
                && *c != crc32c_b64(crc)
            {
                return Err(s3_error!(
                    InvalidPart,
                    "checksum_crc32c of part {n} does not match"
                ));
            }
            crcs.push(crc);
        }
        let composite = parties
            .iter()
            .all(|p| p.checksum_crc32c.is_some())
            .then(|| crc32c_composite(&crcs));

        let mut rep = self.fs.complete_multipart_upload(req).await?;
        // s3s-fs garde les checksum_* d'un ancien objet de même clé : on les remplace.
        self.reecrire_sommes(&seau, &cle, composite.as_deref())
            .await?;

        if let Some(c) = composite {
            let type_somme = ChecksumType::from_static(ChecksumType::COMPOSITE);
            // Le résultat passe par le futur « keep-alive » de s3s quand il y en a un.
            match rep.output.future.take() {
                Some(futur) => {
                    rep.output.future = Some(Box::pin(async move {
                        let mut o = futur.await?;
                        o.checksum_crc32c = Some(c);
                        o.checksum_type = Some(type_somme);
                        Ok(o)
                    }));
                }
                None => {
                    rep.output.checksum_crc32c = Some(c);
                    rep.output.checksum_type = Some(type_somme);
                }
            }
        }
        Ok(rep)
    }

    // ---- ListMultipartUploads : absent de s3s-fs ----
    async fn list_multipart_uploads(
        &self,
        req: S3Request<ListMultipartUploadsInput>,
    ) -> S3Result<S3Response<ListMultipartUploadsOutput>> {
        let input = req.input;
        if !self.racine.join(&input.bucket).is_dir() {
            return Err(s3_error!(NoSuchBucket));
        }
        let racine = self.racine.clone();
        let seau = input.bucket.clone();
        let mut envois = tokio::task::spawn_blocking(move || envois_ouverts(&racine, &seau))
            .await
            .map_err(S3Error::internal_error)?
            .map_err(S3Error::internal_error)?;
        let prefixe = input.prefix.clone().unwrap_or_default();
        envois.retain(|e| e.cle.starts_with(&prefixe));
        // Pagination minimale : key-marker (strict) ; upload-id-marker ignoré.
        if let Some(km) = &input.key_marker {
            envois.retain(|e| e.cle.as_str() > km.as_str());
        }
        let max = input.max_uploads.unwrap_or(1000).clamp(1, 1000);
        let max_usize = usize::try_from(max).unwrap_or(1000);
        let tronque = envois.len() > max_usize;
        envois.truncate(max_usize);
        let (next_key_marker, next_upload_id_marker) = match (tronque, envois.last()) {
            (true, Some(d)) => (Some(d.cle.clone()), Some(d.id.clone())),
            _ => (None, None),
        };
        let uploads = envois
            .into_iter()
            .map(|e| MultipartUpload {
                key: Some(e.cle),
                upload_id: Some(e.id),
                initiated: Some(Timestamp::from(e.debut)),
                ..Default::default()
            })
            .collect();
        Ok(S3Response::new(ListMultipartUploadsOutput {
            bucket: Some(input.bucket),
            prefix: input.prefix,
            key_marker: input.key_marker,
            upload_id_marker: input.upload_id_marker,
            max_uploads: Some(max),
            is_truncated: Some(tronque),
            next_key_marker,
            next_upload_id_marker,
            uploads: Some(uploads),
            ..Default::default()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nom_d_attributs_d_envoi() {
        let nom = format!(
            ".bucket-{}.object-{}.upload-0f2d1a4e-1111-2222-3333-444455556666.metadata.json",
            b64u("nuits"),
            b64u("nuit/sous/a.wav")
        );
        assert_eq!(
            analyser_nom_attributs_envoi(&nom),
            Some((
                "nuits".to_owned(),
                "nuit/sous/a.wav".to_owned(),
                "0f2d1a4e-1111-2222-3333-444455556666".to_owned()
            ))
        );
        // attributs d'un objet (pas d'un envoi)
        let nom = format!(".bucket-{}.object-{}.metadata.json", b64u("n"), b64u("k"));
        assert_eq!(analyser_nom_attributs_envoi(&nom), None);
    }

    #[test]
    fn somme_composite() {
        // deux parties : crc32c(be(crc1) ‖ be(crc2)) en base64, suffixe -2
        let (a, b) = (crc32c::crc32c(b"abc"), crc32c::crc32c(b"def"));
        let mut concat = a.to_be_bytes().to_vec();
        concat.extend_from_slice(&b.to_be_bytes());
        assert_eq!(
            crc32c_composite(&[a, b]),
            format!("{}-2", crc32c_b64(crc32c::crc32c(&concat)))
        );
        // valeur de référence connue : crc32c("123456789") = 0xE3069283
        assert_eq!(crc32c_b64(crc32c::crc32c(b"123456789")), "4waSgw==");
    }

    #[test]
    fn ids_d_envoi() {
        assert!(id_envoi_plausible("0f2d1a4e-1111-2222-3333-444455556666"));
        assert!(!id_envoi_plausible("../../etc/passwd"));
        assert!(!id_envoi_plausible(""));
    }
}
