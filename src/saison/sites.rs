//! Rapprocher le numéro de site des noms (`Car640380`, `Cir270`) des sites de l'utilisateur.
//!
//! Ce que dit le serveur (`Scille/vigiechiro-api`) :
//! - le titre d'un site point fixe ou pédestre (`CARRE`) est `« <titre du protocole>-<numéro
//!   de la grille> »` (`resources/sites.py` `create_site` : `"{}-{}".format(protocole['titre'],
//!   grille_stoc['numero'])`), par exemple `Vigiechiro - Point Fixe-640380` ; celui d'un site
//!   routier, `« <titre du protocole>-<compteur> »` (`protocole_routier_count`) ; un
//!   administrateur peut aussi donner un titre libre (`'titre' in payload`) ;
//! - `GET /moi/sites` (`_sites_generic_list`) rend les sites dont l'utilisateur est
//!   l'observateur, relations développées (`xin/schema.py`
//!   `Unserializer._run_attribute_data_relation`) : `protocole` porte son `type_site`
//!   (`POINT_FIXE`, `ROUTIER`, `CARRE` : `resources/protocoles.py`), `grille_stoc` son `numero` ;
//! - `GET /moi/participations` rend les participations de l'utilisateur, chacune avec son
//!   `site` développé (titre, mais `protocole` et `grille_stoc` en simples identifiants) : c'est
//!   là que l'on trouve un site dont il n'est pas propriétaire (un site régional).
//!
//! Les règles, dans l'ordre :
//! 1. un site porte le numéro s'il **finit** son titre (`-640380`) ou s'il est le numéro de sa
//!    grille ; à défaut d'un tel site, le même nombre écrit autrement (`040101` et `40101` :
//!    des zéros en tête) ;
//! 2. la famille doit convenir quand le site la dit : `Car…` va à un site `POINT_FIXE`,
//!    `Cir…` à un site `ROUTIER` ou `CARRE` (un même carré peut avoir un site point fixe et un
//!    site pédestre : `Vigiechiro - Point Fixe-640380` et `Vigiechiro - Pédestre-640380`) ;
//! 3. les sites de l'utilisateur d'abord ; ceux de ses participations seulement si aucun des
//!    siens ne convient ;
//! 4. un seul site : trouvé ; plusieurs : ambiguïté, que `--site` lève ; aucun : absent. Jamais
//!    de choix au hasard : un fichier accepté ne se retire pas.

use crate::saison::nuits::Protocole;

/// Un site tel que la plateforme l'a décrit à l'utilisateur (`GET /moi/sites`, ou le `site`
/// d'une participation) : identifiant, titre, et, quand les relations sont développées, numéro
/// de grille et type.
pub(crate) type SiteConnu = crate::transport::vigiechiro::SiteLu;

/// Comment un site porte un numéro.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Exactitude {
    /// Écrit pareil : fin du titre, ou numéro de la grille.
    Exacte,
    /// Le même nombre, écrit avec d'autres zéros en tête.
    MemeNombre,
}

/// Le numéro qui finit un titre (`Vigiechiro - Point Fixe-640380` → `640380`).
pub(crate) fn numero_du_titre(titre: &str) -> Option<&str> {
    titre
        .rsplit_once('-')
        .map(|(_, n)| n.trim())
        .filter(|n| !n.is_empty())
}

fn meme_nombre(a: &str, b: &str) -> bool {
    let chiffres = |s: &str| !s.is_empty() && s.bytes().all(|o| o.is_ascii_digit());
    chiffres(a) && chiffres(b) && a.trim_start_matches('0') == b.trim_start_matches('0')
}

impl SiteConnu {
    /// Ce site porte-t-il ce numéro (tel qu'écrit dans les noms), et comment ?
    pub(crate) fn porte(&self, numero: &str) -> Option<Exactitude> {
        let ecrits = [numero_du_titre(&self.titre), self.numero_grille.as_deref()];
        if ecrits.iter().flatten().any(|n| *n == numero) {
            Some(Exactitude::Exacte)
        } else if ecrits.iter().flatten().any(|n| meme_nombre(n, numero)) {
            Some(Exactitude::MemeNombre)
        } else {
            None
        }
    }

    /// Le site peut-il recevoir les noms de cette famille ? Oui s'il ne dit pas son type.
    pub(crate) fn accepte(&self, protocole: Protocole) -> bool {
        matches!(
            (self.type_site.as_deref(), protocole),
            (None, _)
                | (Some("POINT_FIXE"), Protocole::PointFixe)
                | (Some("ROUTIER" | "CARRE"), Protocole::Routier)
        )
    }
}

/// Ce que donne le rapprochement d'un numéro.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rapprochement<'a> {
    Trouve(&'a SiteConnu),
    /// Plusieurs sites conviennent au même rang : `--site` choisit.
    Ambigu(Vec<&'a SiteConnu>),
    /// Aucun site de l'utilisateur (ni de ses participations) ne porte ce numéro pour cette
    /// famille.
    Absent,
}

/// Rapproche le numéro de site des noms (`640380`) et leur famille des sites de l'utilisateur
/// (`propres`, de `GET /moi/sites`), puis, à défaut, des sites de ses participations
/// (`de_ses_participations`, de `GET /moi/participations`). Voir l'en-tête du module.
pub(crate) fn rapprocher<'a>(
    numero: &str,
    protocole: Protocole,
    propres: &'a [SiteConnu],
    de_ses_participations: &'a [SiteConnu],
) -> Rapprochement<'a> {
    for liste in [propres, de_ses_participations] {
        for exactitude in [Exactitude::Exacte, Exactitude::MemeNombre] {
            let mut retenus: Vec<&SiteConnu> = liste
                .iter()
                .filter(|s| s.accepte(protocole) && s.porte(numero) == Some(exactitude))
                .collect();
            retenus.sort_by(|a, b| a.id.cmp(&b.id));
            retenus.dedup_by(|a, b| a.id == b.id);
            match retenus.len() {
                0 => continue,
                1 => return Rapprochement::Trouve(retenus[0]),
                _ => return Rapprochement::Ambigu(retenus),
            }
        }
    }
    Rapprochement::Absent
}

/// Deux numéros à une faute de frappe l'un de l'autre : un chiffre changé, ou deux chiffres
/// voisins échangés (`640830` pour `640380`). Un numéro ne l'est pas de lui-même.
fn a_une_faute(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let ecarts: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    match ecarts.as_slice() {
        [_] => true,
        [i, j] => *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i],
        _ => false,
    }
}

/// Le numéro d'un des sites de l'utilisateur (pour cette famille) à une faute de frappe de
/// `numero`, quand il n'y en a qu'un : « vouliez-vous dire 640380 ? ». Plusieurs : aucun (on
/// ne devine pas).
pub(crate) fn numero_proche(
    numero: &str,
    protocole: Protocole,
    sites: &[SiteConnu],
) -> Option<String> {
    let mut proches: Vec<&str> = sites
        .iter()
        .filter(|s| s.accepte(protocole))
        .flat_map(|s| [numero_du_titre(&s.titre), s.numero_grille.as_deref()])
        .flatten()
        .filter(|n| a_une_faute(numero, n))
        .collect();
    proches.sort_unstable();
    proches.dedup();
    match proches.as_slice() {
        [seul] => Some((*seul).to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::destination::IdObjet;

    fn site(n: u8, titre: &str, grille: Option<&str>, type_site: Option<&str>) -> SiteConnu {
        SiteConnu {
            id: IdObjet::analyser(&format!("64a1b2c3d4e5f60718293c{n:02x}")).unwrap(),
            titre: titre.into(),
            numero_grille: grille.map(str::to_owned),
            type_site: type_site.map(str::to_owned),
        }
    }

    #[test]
    fn numero_en_fin_de_titre_ou_de_grille() {
        assert_eq!(
            numero_du_titre("Vigiechiro - Point Fixe-640380"),
            Some("640380")
        );
        assert_eq!(numero_du_titre("Vigiechiro - Routier-270"), Some("270"));
        assert_eq!(numero_du_titre("Mon site"), None);
        assert_eq!(numero_du_titre("Mon site-"), None);
        let s = site(1, "Site de la mare", Some("640380"), None);
        assert_eq!(s.porte("640380"), Some(Exactitude::Exacte));
        let s = site(1, "Vigiechiro - Point Fixe-040101", None, None);
        assert_eq!(s.porte("040101"), Some(Exactitude::Exacte));
        assert_eq!(s.porte("40101"), Some(Exactitude::MemeNombre));
        assert_eq!(s.porte("4010"), None);
        // Le numéro doit finir le titre, pas y paraître.
        assert_eq!(
            site(1, "640380-Vigiechiro - Point Fixe-1", None, None).porte("640380"),
            None
        );
    }

    #[test]
    fn un_site_trouve_plusieurs_ambigus_aucun_absent() {
        let propres = [
            site(
                1,
                "Vigiechiro - Point Fixe-640380",
                Some("640380"),
                Some("POINT_FIXE"),
            ),
            site(
                2,
                "Vigiechiro - Pédestre-640380",
                Some("640380"),
                Some("CARRE"),
            ),
            site(3, "Vigiechiro - Routier-270", None, Some("ROUTIER")),
            site(4, "Vigiechiro - Point Fixe-640139", None, None),
            site(5, "Site d'essai-640139", None, None),
        ];
        // La famille départage le point fixe et le pédestre du même carré.
        assert_eq!(
            rapprocher("640380", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Trouve(&propres[0])
        );
        assert_eq!(
            rapprocher("640380", Protocole::Routier, &propres, &[]),
            Rapprochement::Trouve(&propres[1])
        );
        assert_eq!(
            rapprocher("270", Protocole::Routier, &propres, &[]),
            Rapprochement::Trouve(&propres[2])
        );
        assert_eq!(
            rapprocher("270", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Absent
        );
        // Deux sites sans type qui finissent par le même numéro : on ne choisit pas.
        assert_eq!(
            rapprocher("640139", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Ambigu(vec![&propres[3], &propres[4]])
        );
        assert_eq!(
            rapprocher("999999", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Absent
        );
    }

    #[test]
    fn les_sites_de_ses_participations_seulement_a_defaut() {
        let propres = [site(
            1,
            "Vigiechiro - Point Fixe-640380",
            None,
            Some("POINT_FIXE"),
        )];
        // Un site régional (titre libre côté participation, type inconnu : relation non
        // développée), et le même site que l'un des siens.
        let regionaux = [
            site(7, "Réseau régional - Point Fixe-750101", None, None),
            site(1, "Vigiechiro - Point Fixe-640380", None, None),
        ];
        assert_eq!(
            rapprocher("750101", Protocole::PointFixe, &propres, &regionaux),
            Rapprochement::Trouve(&regionaux[0])
        );
        // Les siens d'abord ; un site vu deux fois n'est pas deux sites.
        assert_eq!(
            rapprocher("640380", Protocole::PointFixe, &propres, &regionaux),
            Rapprochement::Trouve(&propres[0])
        );
        let doubles = [regionaux[1].clone(), regionaux[1].clone()];
        assert_eq!(
            rapprocher("640380", Protocole::PointFixe, &[], &doubles),
            Rapprochement::Trouve(&doubles[0])
        );
    }

    #[test]
    fn l_ecriture_exacte_passe_avant_le_meme_nombre() {
        let propres = [
            site(1, "Vigiechiro - Point Fixe-40101", None, None),
            site(2, "Vigiechiro - Point Fixe-040101", None, None),
        ];
        assert_eq!(
            rapprocher("040101", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Trouve(&propres[1])
        );
        // Seulement le même nombre, deux fois : ambigu.
        assert_eq!(
            rapprocher("0040101", Protocole::PointFixe, &propres, &[]),
            Rapprochement::Ambigu(vec![&propres[0], &propres[1]])
        );
    }

    #[test]
    fn un_numero_a_une_faute_de_frappe_est_suggere() {
        let sites = [
            site(
                1,
                "Vigiechiro - Point Fixe-640380",
                Some("640380"),
                Some("POINT_FIXE"),
            ),
            site(2, "Vigiechiro - Routier-270", None, Some("ROUTIER")),
        ];
        let pf = Protocole::PointFixe;
        // Deux chiffres voisins échangés, un chiffre changé.
        assert_eq!(
            numero_proche("640830", pf, &sites).as_deref(),
            Some("640380")
        );
        assert_eq!(
            numero_proche("640381", pf, &sites).as_deref(),
            Some("640380")
        );
        // Trop loin, d'une autre longueur, ou d'une autre famille : rien.
        assert_eq!(numero_proche("641831", pf, &sites), None);
        assert_eq!(numero_proche("64038", pf, &sites), None);
        assert_eq!(numero_proche("271", pf, &sites), None);
        assert_eq!(
            numero_proche("271", Protocole::Routier, &sites).as_deref(),
            Some("270")
        );
        // Deux échanges non voisins ne sont pas une faute de frappe.
        assert_eq!(numero_proche("840360", pf, &sites), None);
        // Deux sites proches : on ne devine pas.
        let deux = [
            site(1, "Vigiechiro - Point Fixe-640380", None, None),
            site(3, "Vigiechiro - Point Fixe-640382", None, None),
        ];
        assert_eq!(numero_proche("640381", pf, &deux), None);
    }
}
