//! Ce que la plateforme dit à une saison, lu avant toute écriture : les sites de
//! l'utilisateur et les participations de chaque site retenu, le premier fichier des
//! participations à prouver, ce qu'une participation a déjà (la simulation). Sans un mot :
//! une lecture manquée rend l'erreur (code 1) que compose la phrase donnée par la commande.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::Result;

use crate::depot::vigiechiro::inventaire_distant::{self, EtatDistant};
use crate::destination::IdObjet;
use crate::inventaire::verdict_plateforme;
use crate::plan::DepotUnite;
use crate::reessai::ReponseApi;
use crate::saison::decision::{self, Lecture, SitesDonnes};
use crate::saison::nuits::Protocole;
use crate::saison::sites::SiteConnu;
use crate::sortie::{CodeSortie, ErreurAvecCode};
use crate::transport::Emetteur;
use crate::transport::vigiechiro::{ClientVigieChiro, ParticipationLue};

/// La phrase d'une lecture manquée : la cible, et pourquoi (`suivi`).
pub(crate) type PhraseManquee = fn(&str, &str) -> String;

/// La plateforme, lue par un client et un émetteur ; `manquee` dit une lecture manquée.
pub(crate) struct Plateforme<'a> {
    pub(crate) client: &'a ClientVigieChiro,
    pub(crate) emetteur: &'a Emetteur,
    pub(crate) manquee: PhraseManquee,
}

/// Une lecture de la plateforme (`GET cible`), ou l'erreur (transitoire, code 1) qui dit, par
/// `manquee`, pourquoi elle manque.
pub(crate) async fn lire<T, Fut>(
    emetteur: &Emetteur,
    cible: &str,
    manquee: PhraseManquee,
    mut tentative: impl FnMut() -> Fut,
) -> Result<T>
where
    Fut: Future<Output = ReponseApi<T>>,
{
    let lecture = crate::transport::Emission::lecture("GET", cible);
    let issue = crate::transport::emettre(emetteur, lecture, |_| tentative()).await;
    match issue.reponse {
        ReponseApi::Succes(v) => Ok(v),
        autre => Err(ErreurAvecCode::nouveau(
            CodeSortie::EchecsTransitoires,
            manquee(
                cible,
                &crate::depot::vigiechiro::participation::pas_de_reponse_utile(&autre),
            ),
        )
        .into()),
    }
}

impl Plateforme<'_> {
    /// Voir [`lire`].
    async fn lire<T, Fut>(&self, cible: &str, tentative: impl FnMut() -> Fut) -> Result<T>
    where
        Fut: Future<Output = ReponseApi<T>>,
    {
        lire(self.emetteur, cible, self.manquee, tentative).await
    }

    /// Les participations de chacun de ces sites (tous observateurs).
    pub(crate) async fn participations_des_sites(
        &self,
        sites: BTreeSet<IdObjet>,
    ) -> Result<HashMap<IdObjet, Vec<ParticipationLue>>> {
        let mut participations = HashMap::new();
        for site in sites {
            let cible = format!("/sites/{site}/participations");
            let liste = self
                .lire(&cible, || self.client.participations_du_site(&site))
                .await?;
            participations.insert(site, liste);
        }
        Ok(participations)
    }

    /// Ce que la plateforme dit avant toute écriture, l'utilisateur `moi` reconnu : le site de
    /// chaque numéro des noms (`saison::decision::site_des_noms`), les participations de
    /// chaque site retenu.
    pub(crate) async fn lire_la_saison(
        &self,
        moi: IdObjet,
        numeros: BTreeSet<(String, Protocole)>,
        donnes: &SitesDonnes,
    ) -> Result<Lecture> {
        let propres: Vec<SiteConnu> = self.lire("/moi/sites", || self.client.mes_sites()).await?;
        let mut autres: Option<Vec<SiteConnu>> = None;
        let mut sites = BTreeMap::new();
        for (numero, protocole) in numeros {
            if autres.is_none()
                && decision::faut_il_les_sites_des_participations(
                    &numero, protocole, &propres, donnes,
                )
            {
                let liste: Vec<ParticipationLue> = self
                    .lire("/moi/participations", || self.client.mes_participations())
                    .await?;
                autres = Some(liste.into_iter().filter_map(|p| p.site).collect());
            }
            let issue =
                decision::site_des_noms(&numero, protocole, donnes, &propres, autres.as_deref());
            sites.insert((numero, protocole), issue);
        }
        let retenus: BTreeSet<IdObjet> = sites.values().filter_map(|r| r.clone().ok()).collect();
        let participations = self.participations_des_sites(retenus).await?;
        Ok(Lecture {
            moi,
            sites,
            participations,
        })
    }

    /// Le titre du premier fichier de protocole de chaque participation demandée (preuve par
    /// les fichiers).
    pub(crate) async fn premiers_titres(
        &self,
        ids: &[IdObjet],
    ) -> Result<HashMap<IdObjet, String>> {
        let mut titres = HashMap::new();
        for id in ids {
            let cible = format!("/participations/{id}/pieces_jointes");
            let page = self
                .lire(&cible, || {
                    self.client.pieces_jointes(id, 1, 1, &["wav", "ta", "tc"])
                })
                .await?;
            if let Some(p) = page.items.into_iter().next() {
                titres.insert(id.clone(), p.titre);
            }
        }
        Ok(titres)
    }

    /// Ce qu'un dépôt enverrait (fichiers, octets) : les unités qui partiraient de chaque
    /// nuit, moins celles que sa participation a déjà ([`Plateforme::deja_la`]).
    pub(crate) async fn a_envoyer(
        &self,
        par_participation: &[(Option<IdObjet>, Vec<DepotUnite>)],
    ) -> (usize, u64) {
        let (mut fichiers, mut octets) = (0, 0);
        for (participation, unites) in par_participation {
            let deja = self.deja_la(participation.as_ref(), unites).await;
            for u in unites.iter().filter(|u| !deja.contains(&u.cle)) {
                fichiers += 1;
                octets += u.taille;
            }
        }
        (fichiers, octets)
    }

    /// Les titres que la participation a déjà, finalisés, parmi ceux de `unites` : comme le
    /// dépôt au début de chaque passage (`depot/vigiechiro/confrontation.rs`), un fichier
    /// finalisé de même titre ne part pas (identique, il est déjà là ; autre, la plateforme
    /// refuse de le remplacer). Sans participation, ou sa liste illisible : aucun.
    async fn deja_la(
        &self,
        participation: Option<&IdObjet>,
        unites: &[DepotUnite],
    ) -> HashSet<String> {
        let Some(id) = participation.filter(|_| !unites.is_empty()) else {
            return HashSet::new();
        };
        let familles = inventaire_distant::familles_a_lire(
            unites
                .iter()
                .map(|u| verdict_plateforme(&u.cle).unwrap_or("inconnu")),
        );
        let lu = inventaire_distant::lire(self.emetteur, self.client, id, &familles).await;
        let Ok(inventaire) = lu else {
            return HashSet::new();
        };
        unites
            .iter()
            .filter(|u| matches!(inventaire.etat(&u.cle), EtatDistant::Finalise(_)))
            .map(|u| u.cle.clone())
            .collect()
    }
}
