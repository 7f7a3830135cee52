//! Un fichier local est-il l'objet que la plateforme garde ? Sa taille, puis l'empreinte que
//! S3 écrit dans l'`ETag`.
//!
//! Pourquoi l'ETag : derrière une URL signée en lecture, c'est la seule somme que rend S3 sans
//! télécharger l'objet (une lecture d'un octet suffit). Il a deux formes :
//! - un objet envoyé d'un seul PUT (ce que fait le site web, et `vigie` pour tout fichier sous
//!   le seuil du multipart) : le MD5 du contenu, 32 chiffres hexadécimaux ;
//! - un objet assemblé en `n` parties : `md5(md5₁‖…‖md5ₙ)-n`, où `md5ᵢ` est le MD5 (16 octets)
//!   de la partie `i`. Il dépend de la taille des parties, que l'ETag ne dit pas : on essaie
//!   celles qu'a pu choisir un client, un nombre entier de Mio (c'est ce que fait
//!   `vigie --taille-partie`) entre 5 Mio (minimum de S3) et 5 Gio, qui donnent `n` parties.
//!   Toutes ces empreintes se calculent en une seule lecture du fichier.
//!
//! Une autre forme (objet chiffré par KMS, service qui n'écrit pas de MD5) ne se compare pas :
//! on le dit, sans conclure. Une taille différente suffit, elle, à conclure.

use std::collections::{HashMap, HashSet};
use std::io;

use md5::Digest;

use crate::plan::{DeposeeARelire, FichierPlanifie};
use crate::plateforme::FichierAttendu;
use crate::transport::corps::lire_tranche;
use crate::transport::vigiechiro::ObjetLu;

const MIO: u64 = 1024 * 1024;
/// Taille minimale d'une partie qui n'est pas la dernière (règle S3).
const PARTIE_MIN: u64 = 5 * MIO;
/// Taille maximale d'une partie (règle S3).
const PARTIE_MAX: u64 = 5 * 1024 * MIO;
/// Nombre maximal de parties d'un envoi (règle S3).
const PARTIES_MAX: u64 = 10_000;
/// Au-delà de tant de tailles de partie possibles, l'empreinte d'un objet assemblé ne se
/// compare pas (chaque taille essayée est une empreinte de plus à tenir pendant la lecture).
const TAILLES_ESSAYEES_MAX: usize = 8;

/// L'ETag d'un objet S3, lu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EtagS3 {
    /// Un objet envoyé d'un seul PUT : le MD5 du contenu (hexadécimal, minuscules).
    Md5(String),
    /// Un objet assemblé en `parties` parties : le MD5 des MD5 des parties (hexadécimal).
    Assemble { empreinte: String, parties: u64 },
}

fn est_md5_hex(texte: &str) -> bool {
    texte.len() == 32 && texte.bytes().all(|o| o.is_ascii_hexdigit())
}

impl EtagS3 {
    /// Lit un ETag (sans guillemets) ; `None` pour une forme qui n'est pas un MD5.
    pub(crate) fn analyser(etag: &str) -> Option<EtagS3> {
        let etag = etag.trim().to_ascii_lowercase();
        match etag.split_once('-') {
            None if est_md5_hex(&etag) => Some(EtagS3::Md5(etag)),
            Some((empreinte, n)) if est_md5_hex(empreinte) => {
                let parties: u64 = n.parse().ok()?;
                (1..=PARTIES_MAX)
                    .contains(&parties)
                    .then(|| EtagS3::Assemble {
                        empreinte: empreinte.to_owned(),
                        parties,
                    })
            }
            _ => None,
        }
    }
}

fn hex(octets: &[u8]) -> String {
    octets.iter().map(|o| format!("{o:02x}")).collect()
}

fn octets_md5(hex_md5: &str) -> Option<[u8; 16]> {
    if !est_md5_hex(hex_md5) {
        return None;
    }
    let mut octets = [0u8; 16];
    for (i, o) in octets.iter_mut().enumerate() {
        *o = u8::from_str_radix(hex_md5.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(octets)
}

/// L'ETag qu'écrit S3 pour un objet assemblé à partir de parties dont les ETag (les MD5, en
/// hexadécimal) sont donnés dans l'ordre : `md5(md5₁‖…‖md5ₙ)-n`. `None` si l'un n'est pas un
/// MD5.
pub(crate) fn etag_assemble<'a>(
    etags_parties: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let mut md5 = md5::Md5::new();
    let mut n = 0u64;
    for e in etags_parties {
        md5.update(octets_md5(&e.trim_matches('"').to_ascii_lowercase())?);
        n += 1;
    }
    (n > 0).then(|| format!("{}-{n}", hex(&md5.finalize())))
}

/// Les tailles de partie, en nombre entier de Mio permis par S3, qui découpent `taille`
/// octets en exactement `parties` parties : `(parties - 1) × p < taille ≤ parties × p`.
pub(crate) fn tailles_de_partie_possibles(taille: u64, parties: u64) -> Vec<u64> {
    if parties < 2 || taille == 0 {
        return Vec::new();
    }
    // p ≥ taille / parties, et p < taille / (parties - 1).
    let min_mio = taille.div_ceil(parties).div_ceil(MIO).max(PARTIE_MIN / MIO);
    let max_mio = ((taille - 1) / (parties - 1) / MIO).min(PARTIE_MAX / MIO);
    (min_mio..=max_mio)
        .map(|k| k * MIO)
        .filter(|p| taille.div_ceil(*p) == parties)
        .collect()
}

/// Les MD5 des parties d'un découpage, calculés au fil de la lecture.
struct Decoupage {
    taille_partie: u64,
    dans_partie: u64,
    courante: md5::Md5,
    parties: md5::Md5,
    n: u64,
}

impl Decoupage {
    fn nouveau(taille_partie: u64) -> Self {
        Decoupage {
            taille_partie,
            dans_partie: 0,
            courante: md5::Md5::new(),
            parties: md5::Md5::new(),
            n: 0,
        }
    }

    fn recevoir(&mut self, mut tranche: &[u8]) {
        while !tranche.is_empty() {
            let place = (self.taille_partie - self.dans_partie).min(tranche.len() as u64) as usize;
            self.courante.update(&tranche[..place]);
            self.dans_partie += place as u64;
            tranche = &tranche[place..];
            if self.dans_partie == self.taille_partie {
                self.clore_partie();
            }
        }
    }

    fn clore_partie(&mut self) {
        let md5 = std::mem::take(&mut self.courante).finalize();
        self.parties.update(md5);
        self.dans_partie = 0;
        self.n += 1;
    }

    fn etag(mut self) -> String {
        if self.dans_partie > 0 {
            self.clore_partie();
        }
        format!("{}-{}", hex(&self.parties.finalize()), self.n)
    }
}

/// Le verdict d'une comparaison entre un fichier local et l'objet que garde la plateforme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Comparaison {
    /// Même taille, même empreinte. Porte l'ETag reconnu et la CRC32C du fichier local
    /// (calculée dans la même lecture).
    Identique { etag: String, crc32c: u32 },
    /// Taille ou empreinte différente : ce qui diffère, en clair.
    Differente(String),
    /// La taille est la même, l'empreinte ne se compare pas : pourquoi.
    NonComparee(String),
}

/// Compare le fichier local de `taille` octets à l'objet distant : la taille d'abord, puis
/// l'empreinte (une lecture du fichier, seulement si les tailles concordent).
pub(crate) async fn comparer(
    fichier: FichierAttendu<'_>,
    taille: u64,
    objet: &ObjetLu,
) -> io::Result<Comparaison> {
    if objet.taille != taille {
        return Ok(Comparaison::Differente(format!(
            "{} octets sur la plateforme, {taille} dans le fichier local",
            objet.taille
        )));
    }
    let Some(etag) = objet.etag.as_deref() else {
        return Ok(Comparaison::NonComparee(
            "le stockage de la plateforme ne rend pas d'ETag".to_owned(),
        ));
    };
    let (attendu, tailles) = match EtagS3::analyser(etag) {
        None => {
            return Ok(Comparaison::NonComparee(format!(
                "ETag {etag} qui n'est pas un MD5"
            )));
        }
        Some(EtagS3::Md5(m)) => (m, Vec::new()),
        Some(EtagS3::Assemble { empreinte, parties }) => {
            let tailles = match parties {
                1 => vec![taille.max(1)],
                n => tailles_de_partie_possibles(taille, n),
            };
            if tailles.is_empty() || tailles.len() > TAILLES_ESSAYEES_MAX {
                return Ok(Comparaison::NonComparee(format!(
                    "objet assemblé en {parties} parties d'une taille que vigie ne peut pas \
                     retrouver"
                )));
            }
            (format!("{empreinte}-{parties}"), tailles)
        }
    };
    let decoupages: Vec<Decoupage> = tailles.into_iter().map(Decoupage::nouveau).collect();
    let (crc32c, entier, decoupages) = lire_tranche(
        fichier,
        0,
        taille,
        (0u32, md5::Md5::new(), decoupages),
        |(crc, entier, decoupages), t| {
            *crc = crc32c::crc32c_append(*crc, t);
            entier.update(t);
            decoupages.iter_mut().for_each(|d| d.recevoir(t));
        },
    )
    .await?;
    let calcules: Vec<String> = if decoupages.is_empty() {
        vec![hex(&entier.finalize())]
    } else {
        decoupages.into_iter().map(Decoupage::etag).collect()
    };
    Ok(if calcules.contains(&attendu) {
        Comparaison::Identique {
            etag: attendu,
            crc32c,
        }
    } else {
        Comparaison::Differente(format!(
            "même taille, contenu différent (ETag {attendu} sur la plateforme)"
        ))
    })
}

/// Le fichier local a-t-il encore le contenu noté à son dépôt (`somme` : la CRC32C notée,
/// `etag` : l'ETag noté) ? Une lecture du fichier : l'ETag s'il est un MD5 (objet d'un seul
/// PUT, ou assemblé en parties d'un nombre entier de Mio), sinon la CRC32C du fichier entier.
/// Sans empreinte comparable, faux : le fichier sera dit changé, comme avant toute relecture.
pub(crate) async fn meme_contenu_que_depose(
    fichier: FichierAttendu<'_>,
    taille: u64,
    somme: Option<&str>,
    etag: Option<&str>,
) -> io::Result<bool> {
    if let Some(etag) = etag.filter(|e| EtagS3::analyser(e).is_some()) {
        let objet = ObjetLu {
            taille,
            etag: Some(etag.to_owned()),
        };
        match comparer(fichier, taille, &objet).await? {
            Comparaison::Identique { .. } => return Ok(true),
            Comparaison::Differente(_) => return Ok(false),
            Comparaison::NonComparee(_) => {}
        }
    }
    // Une somme d'objet assemblé (« …-N ») dépend du découpage : elle ne se compare pas ici.
    let Some(somme) = somme.filter(|s| !s.contains('-')) else {
        return Ok(false);
    };
    let crc = crate::transport::corps::somme_crc32c(fichier, 0, taille).await?;
    Ok(crate::transport::corps::crc32c_base64(crc) == somme)
}

/// Parmi `a_relire` (des unités déposées de `dossier` dont seule la date a changé), les chemins
/// de celles dont le contenu, relu, est celui du dépôt (`fichiers` : la nuit planifiée, pour
/// l'identité et la préparation de chacune). Un fichier illisible, ou sans empreinte
/// comparable, n'en est pas.
pub(crate) async fn memes_que_deposes(
    dossier: &str,
    fichiers: &[FichierPlanifie],
    a_relire: Vec<DeposeeARelire>,
) -> HashSet<String> {
    let planifies: HashMap<&str, &FichierPlanifie> =
        fichiers.iter().map(|f| (f.chemin.as_str(), f)).collect();
    let racine = std::path::Path::new(dossier);
    let mut memes = HashSet::new();
    for d in a_relire {
        let f = planifies.get(d.chemin.as_str()).copied();
        let preparee = f.and_then(|f| f.preparee.as_ref());
        let lu = preparee.map_or(d.chemin.as_str(), |p| &p.source);
        let chemin = crate::plateforme::chemins::local(racine, lu);
        let mut attendu = FichierAttendu::nouveau(&chemin, f.and_then(|f| f.identite.as_deref()));
        if let Some(p) = preparee {
            attendu = attendu.avec_entete(&p.entete, p.source_debut);
        }
        let meme = meme_contenu_que_depose(
            attendu,
            d.taille,
            d.somme_controle.as_deref(),
            d.etag.as_deref(),
        )
        .await;
        match meme {
            Ok(true) => {
                memes.insert(d.chemin);
            }
            Ok(false) => {}
            Err(e) => tracing::info!(chemin = %d.chemin, "contenu non relu : {e}"),
        }
    }
    memes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md5_hex(d: &[u8]) -> String {
        hex(&md5::Md5::digest(d))
    }

    #[test]
    fn formes_de_l_etag() {
        let m = "0123456789abcdef0123456789ABCDEF";
        assert_eq!(
            EtagS3::analyser(m),
            Some(EtagS3::Md5(m.to_ascii_lowercase()))
        );
        assert_eq!(
            EtagS3::analyser(&format!("{m}-3")),
            Some(EtagS3::Assemble {
                empreinte: m.to_ascii_lowercase(),
                parties: 3
            })
        );
        for autre in [
            "",
            "abc",
            &format!("{m}-0"),
            &format!("{m}-x"),
            &format!("{m}-10001"),
        ] {
            assert_eq!(EtagS3::analyser(autre), None, "{autre}");
        }
    }

    #[test]
    fn tailles_de_partie_qui_donnent_le_bon_nombre_de_parties() {
        // 11 Mio et 4 321 o en 3 parties : 5 Mio seulement (4 Mio est sous le minimum de S3,
        // 6 Mio n'en donne que 2).
        assert_eq!(
            tailles_de_partie_possibles(11 * MIO + 4_321, 3),
            vec![5 * MIO]
        );
        // 7 Mio en 2 parties : 5, 6 ou 7 Mio (moins de 7 Mio + 1 octet).
        assert_eq!(
            tailles_de_partie_possibles(7 * MIO + 1, 2),
            vec![5 * MIO, 6 * MIO, 7 * MIO]
        );
        assert!(tailles_de_partie_possibles(3 * MIO, 2).is_empty());
        assert!(tailles_de_partie_possibles(100, 1).is_empty());
    }

    #[test]
    fn empreinte_assemblee_comme_s3() {
        // ETag de deux parties « a » et « b » : md5(md5(a)‖md5(b))-2.
        let (a, b) = (b"a".as_slice(), b"b".as_slice());
        let mut concat = md5::Md5::digest(a).to_vec();
        concat.extend_from_slice(&md5::Md5::digest(b));
        let attendu = format!("{}-2", md5_hex(&concat));
        assert_eq!(
            etag_assemble([md5_hex(a).as_str(), md5_hex(b).as_str()]).as_deref(),
            Some(attendu.as_str())
        );
        let mut d = Decoupage::nouveau(1);
        d.recevoir(b"ab");
        assert_eq!(d.etag(), attendu);
        assert_eq!(etag_assemble(["pas un md5"]), None);
        assert_eq!(etag_assemble(std::iter::empty()), None);
    }

    #[tokio::test]
    async fn comparaison_d_un_fichier_local_a_l_objet_distant() {
        let dossier = tempfile::tempdir().unwrap();
        let fichier = dossier.path().join("a.wav");
        let contenu: Vec<u8> = (0..(7 * MIO + 5)).map(|i| (i % 251) as u8).collect();
        std::fs::write(&fichier, &contenu).unwrap();
        let taille = contenu.len() as u64;
        let objet = |taille, etag: Option<String>| ObjetLu { taille, etag };

        // Un seul PUT : le MD5.
        let md5 = md5_hex(&contenu);
        assert_eq!(
            comparer(
                FichierAttendu::nouveau(&fichier, None),
                taille,
                &objet(taille, Some(md5.clone()))
            )
            .await
            .unwrap(),
            Comparaison::Identique {
                etag: md5,
                crc32c: crc32c::crc32c(&contenu)
            }
        );
        // Assemblé en parties de 6 Mio (2 parties) : retrouvé parmi 5, 6 et 7 Mio.
        let parties: Vec<String> = contenu.chunks(6 * MIO as usize).map(md5_hex).collect();
        let assemble = etag_assemble(parties.iter().map(String::as_str)).unwrap();
        assert!(assemble.ends_with("-2"));
        assert_eq!(
            comparer(
                FichierAttendu::nouveau(&fichier, None),
                taille,
                &objet(taille, Some(assemble.clone()))
            )
            .await
            .unwrap(),
            Comparaison::Identique {
                etag: assemble,
                crc32c: crc32c::crc32c(&contenu)
            }
        );
        // Taille différente, empreinte différente, forme inconnue, pas d'ETag.
        assert!(matches!(
            comparer(FichierAttendu::nouveau(&fichier, None), taille, &objet(taille - 1, None)).await.unwrap(),
            Comparaison::Differente(m) if m.contains("dans le fichier local")
        ));
        assert!(matches!(
            comparer(FichierAttendu::nouveau(&fichier, None), taille, &objet(taille, Some("0".repeat(32)))).await.unwrap(),
            Comparaison::Differente(m) if m.contains("contenu différent")
        ));
        assert!(matches!(
            comparer(
                FichierAttendu::nouveau(&fichier, None),
                taille,
                &objet(taille, Some("kms-xyz".into()))
            )
            .await
            .unwrap(),
            Comparaison::NonComparee(_)
        ));
        assert!(matches!(
            comparer(
                FichierAttendu::nouveau(&fichier, None),
                taille,
                &objet(taille, None)
            )
            .await
            .unwrap(),
            Comparaison::NonComparee(_)
        ));
    }

    /// Le contenu noté au dépôt se reconnaît par l'ETag (MD5, ou objet assemblé), à défaut par
    /// la CRC32C du fichier entier ; une somme d'objet assemblé seule ne conclut pas.
    #[tokio::test]
    async fn meme_contenu_par_l_etag_ou_la_somme() {
        let dossier = tempfile::tempdir().unwrap();
        let fichier = dossier.path().join("a.wav");
        let contenu: Vec<u8> = (0..(11 * MIO + 7)).map(|i| (i % 241) as u8).collect();
        std::fs::write(&fichier, &contenu).unwrap();
        let taille = contenu.len() as u64;
        let f = || FichierAttendu::nouveau(&fichier, None);
        let md5 = md5_hex(&contenu);
        let crc = crate::transport::corps::crc32c_base64(crc32c::crc32c(&contenu));
        let parties: Vec<String> = contenu.chunks(5 * MIO as usize).map(md5_hex).collect();
        let assemble = etag_assemble(parties.iter().map(String::as_str)).unwrap();
        let autre_md5 = "0".repeat(32);
        for (somme, etag, attendu) in [
            (None, Some(md5.as_str()), true),
            (None, Some(assemble.as_str()), true),
            (Some(crc.as_str()), None, true),
            (Some(crc.as_str()), Some("kms-xyz"), true),
            (Some("AAAAAA=="), None, false),
            (Some(crc.as_str()), Some(autre_md5.as_str()), false),
            (Some("AAAAAA==-3"), None, false),
            (None, None, false),
        ] {
            assert_eq!(
                meme_contenu_que_depose(f(), taille, somme, etag)
                    .await
                    .unwrap(),
                attendu,
                "{somme:?} {etag:?}"
            );
        }
    }
}
