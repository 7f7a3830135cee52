//! Ce qu'est une destination pour le reste de `vigie` : une [`Fabrique`], à la manière des
//! backends de rclone (`fs.Fs` : un remote construit tout ce qui lui est propre).
//!
//! Tout ce qui diffère d'une destination à l'autre est porté par sa fabrique : son identité
//! (qui nomme le plan), ses clés, le dépositaire d'un passage avec ce qu'il faut savoir avant
//! son premier envoi ([`Fabrique::depositaire`]), la relecture de `vigie verifier`
//! ([`Fabrique::relecture`]), ses avertissements et ses rappels ; ce qui vaut pour la sorte
//! entière (lire une adresse `--vers`, relire une identité, le geste d'un refus) est dans son
//! inscription ([`Inscription`], listée dans `inscription.rs`, qui relit la destination d'un
//! plan : `Destination::du_plan`). Ce qui n'existe que pour certaines (un jeton exigé, des
//! noms jugés, des séquences lues par un calcul, une description, une participation donnée)
//! est une méthode au défaut neutre. Les commandes qui n'existent que pour la plateforme
//! Vigie-Chiro (la saison, le calcul, ses vérifications d'avant l'envoi, qui lisent `saison/`
//! et disent par `suivi/` : `commandes/vigiechiro.rs`) demandent à son module si la
//! destination est la sienne (`DestinationVigieChiro::de`, par [`Destination::fabrique`]) :
//! ce fichier et le chemin générique ne nomment aucune destination.
//! Les commandes câblent une [`Destination`] sans savoir vers quoi elles envoient.
//!
//! Les futurs sont mis en boîte : une fabrique est un objet (`dyn`), choisi à l'exécution.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use futures_util::future::{BoxFuture, LocalBoxFuture};

use super::relecture::verification::Relecture;
use super::{ContexteUnite, Depositaire, IssueUnite, Resultat, Suivi};
use crate::destination::{ErreurDestination, IdObjet, PartieDuBilan};
use crate::plan::{Base, CauseRefus, DepotPlan, Sorte};
use crate::reessai::ReponseApi;
use crate::transport::Emetteur;

/// Un mébioctet, l'unité des réglages de taille.
pub(crate) const MIO: u64 = 1024 * 1024;

/// Ce que l'utilisateur donne pour joindre une destination, hors de son adresse (le point
/// d'accès vient avec elle : [`OptionsAdresse`]) : chaque destination en lit ce qui la
/// concerne, dans son module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Acces {
    /// `--region`.
    pub(crate) region: Option<String>,
    /// `--profil` : le profil d'identifiants.
    pub(crate) profil: Option<String>,
}

/// Ce que la ligne de commande règle pour toute destination.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReglagesDestination {
    /// Comment la joindre.
    pub(crate) acces: Acces,
    /// `--seuil-multipart` (Mio) ; `None` : celui de la destination.
    pub(crate) seuil_multipart_mio: Option<u64>,
    /// `--taille-partie` (Mio).
    pub(crate) taille_partie_mio: u64,
}

/// Ce que l'utilisateur donne avec l'adresse `--vers`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OptionsAdresse<'a> {
    /// `--endpoint-url` (ou `AWS_ENDPOINT_URL`).
    pub(crate) endpoint: Option<&'a str>,
    /// `--autoriser-http`.
    pub(crate) autoriser_http: bool,
}

/// Une destination inscrite : ce qui vaut pour toute destination de sa sorte.
pub(crate) struct Inscription {
    /// Le nom de la sorte, que le plan retient (`depot_plan.sorte`) ; jamais changé.
    pub(crate) sorte: &'static str,
    /// La forme de son adresse `--vers` pour l'utilisateur (`s3://COMPARTIMENT/PREFIXE`), si
    /// elle en a une.
    pub(crate) forme_vers: Option<&'static str>,
    /// Lit une adresse `--vers` : `None` si elle n'est pas de cette sorte ; une erreur dit
    /// ce qu'il faut corriger (code 2, rien n'est envoyé).
    pub(crate) analyser_vers: fn(&str, OptionsAdresse<'_>) -> Option<Result<Destination>>,
    /// Relit l'identité d'un plan de cette sorte.
    pub(crate) relire: fn(&str) -> Result<Destination, ErreurDestination>,
    /// Le geste qui répond à un refus, quand il est propre à la destination (sinon,
    /// [`CauseRefus::conseil_general`]).
    pub(crate) conseil: fn(CauseRefus) -> Option<Cow<'static, str>>,
    /// Le geste qui précède la relance quand la destination a refusé les identifiants
    /// (« reconnectez-vous… », « corrigez les identifiants S3 »).
    pub(crate) geste_identifiants: fn() -> String,
    /// Le geste qui précède la relance quand la destination refuse de relire un fichier
    /// déposé (le bilan de `vigie verifier`).
    pub(crate) geste_relecture_refusee: fn() -> String,
}

/// Ce qu'une fabrique reçoit pour construire le dépositaire d'un passage.
pub(crate) struct AvantLEnvoi<'a> {
    pub(crate) base: &'a Base,
    pub(crate) plan: &'a DepotPlan,
    /// La veille du réseau du passage, sous laquelle se lit ce qu'il faut savoir avant le
    /// premier envoi.
    pub(crate) emetteur: &'a Emetteur,
    pub(crate) suivi: &'a dyn Suivi,
    /// L'utilisateur du jeton, reconnu avant l'envoi (vers la plateforme).
    pub(crate) moi: Option<&'a IdObjet>,
    pub(crate) reglages: &'a ReglagesDestination,
}

/// Une destination, telle que son module la construit.
pub(crate) trait Fabrique: Any + Send + Sync + fmt::Debug {
    /// Son inscription (`inscription.rs`) : sa sorte, ce qui vaut pour toutes.
    fn inscription(&self) -> &'static Inscription;

    /// L'identité canonique, qui nomme le plan avec le dossier ; jamais de secret.
    fn identite(&self) -> String;

    /// La clé d'une unité, d'après son chemin relatif ; elle ne sort jamais de la destination.
    fn cle(&self, chemin: &str) -> Result<String, ErreurDestination>;

    /// La même, qui décrira sa participation (`configuration`, `meteo`) ; `None` : elle n'a
    /// rien à décrire (voir [`Destination::decrite`]).
    fn decrite(&self, _description: crate::description::Description) -> Option<Destination> {
        None
    }

    /// La même, complétée de ce que disent les séquences de la nuit (les canaux d'une nuit de
    /// routier ou de pédestre, `garde::deduire_les_canaux`) ; `None` : rien à compléter.
    fn completee_par_la_nuit(
        &self,
        _dossier: &Path,
        _chemins: &mut dyn Iterator<Item = &str>,
    ) -> Option<Destination> {
        None
    }

    /// La participation existante que désigne la destination, s'il y en a une.
    fn participation_donnee(&self) -> Option<&IdObjet> {
        None
    }

    /// L'adresse de la page web d'une participation de cette destination, si elle en a une
    /// (le bilan la donne plutôt que l'identifiant seul).
    fn page_de_participation(&self, _participation: &IdObjet) -> Option<String> {
        None
    }

    /// Rien ne part sans jeton : à exiger avant même d'inventorier.
    fn exige_un_jeton(&self) -> bool {
        false
    }

    /// Les noms de fichiers sont jugés par la destination, qui en refuse (voir `noms`).
    fn juge_les_noms(&self) -> bool {
        false
    }

    /// Les séquences sont lues par un calcul (en ×10) : leur format est gardé avant tout
    /// envoi (`garde.rs`).
    fn lit_les_sequences(&self) -> bool {
        false
    }

    /// Le dépositaire d'un passage, et ce qu'il faut savoir avant son premier envoi, lu sous
    /// la veille du réseau du passage. Une erreur : rien n'est parti.
    fn depositaire<'a>(
        &'a self,
        avant: AvantLEnvoi<'a>,
    ) -> LocalBoxFuture<'a, Result<DepositaireDuPlan>>;

    /// La relecture de `vigie verifier` : ce que la destination dit de chaque unité déposée
    /// du plan.
    fn relecture<'a>(
        &'a self,
        plan: &'a DepotPlan,
        reglages: &'a ReglagesDestination,
    ) -> LocalBoxFuture<'a, Result<Box<dyn Relecture>>>;

    /// L'avertissement à donner quand une option de la commande vise autre chose que ce que
    /// le plan retient (`demande` : le `--endpoint-url` donné), plutôt que de l'ignorer en
    /// silence.
    fn endpoint_ignore(&self, _plan: i64, _demande: Option<&str>) -> Option<String> {
        None
    }

    /// La commande qui suit un dépôt entier, s'il y en a une propre à la destination (le
    /// calcul de la plateforme).
    fn rappel_traiter(&self) -> Option<String> {
        None
    }
}

/// Une destination : sa fabrique, partagée.
#[derive(Clone)]
pub(crate) struct Destination(Arc<dyn Fabrique>);

impl<F: Fabrique + 'static> From<F> for Destination {
    fn from(fabrique: F) -> Self {
        Destination(Arc::new(fabrique))
    }
}

impl fmt::Debug for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0.inscription().sorte, self.0.identite())
    }
}

/// L'identité, telle que l'utilisateur la lit.
impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.identite())
    }
}

impl PartialEq for Destination {
    fn eq(&self, autre: &Self) -> bool {
        self.sorte() == autre.sorte() && self.identite() == autre.identite()
    }
}

impl Eq for Destination {}

impl Destination {
    /// La sorte, que le plan retient.
    pub(crate) fn sorte(&self) -> Sorte {
        Sorte::nouvelle(self.0.inscription().sorte)
    }

    /// L'identité canonique, qui nomme le plan avec le dossier.
    pub(crate) fn identite(&self) -> String {
        self.0.identite()
    }

    /// La clé d'une unité.
    pub(crate) fn cle(&self, chemin: &str) -> Result<String, ErreurDestination> {
        self.0.cle(chemin)
    }

    /// La fabrique elle-même, si elle est de type `F` : ce que seul le module d'une
    /// destination demande, pour les commandes qui n'existent que pour elle (la saison, le
    /// calcul de la plateforme : `DestinationVigieChiro::de`). Le chemin générique ne s'en sert
    /// pas et ne nomme aucune destination.
    pub(crate) fn fabrique<F: Fabrique>(&self) -> Option<&F> {
        let fabrique: &dyn Any = &*self.0;
        fabrique.downcast_ref::<F>()
    }

    /// La même, qui décrira sa participation (vers la plateforme ; une autre destination n'a
    /// rien à décrire et reste telle quelle). La destination d'un plan relue de son identité
    /// ([`Destination::du_plan`]) n'a pas de description : l'identité ne la porte pas ; une nuit
    /// de saison déjà liée à son plan reçoit ainsi les options redonnées (`--meteo`, le
    /// micro…), et sa participation est complétée comme celle d'une nuit seule.
    pub(crate) fn decrite(self, description: crate::description::Description) -> Destination {
        self.0.decrite(description).unwrap_or(self)
    }

    /// La même, complétée de ce que disent les séquences de la nuit (voir
    /// [`Fabrique::completee_par_la_nuit`]), ou telle quelle.
    pub(crate) fn completee_par_la_nuit<'c>(
        self,
        dossier: &Path,
        chemins: impl Iterator<Item = &'c str>,
    ) -> Destination {
        let mut chemins = chemins;
        self.0
            .completee_par_la_nuit(dossier, &mut chemins)
            .unwrap_or(self)
    }

    /// Voir [`Fabrique::participation_donnee`].
    pub(crate) fn participation_donnee(&self) -> Option<&IdObjet> {
        self.0.participation_donnee()
    }

    /// Voir [`Fabrique::page_de_participation`].
    pub(crate) fn page_de_participation(&self, participation: &IdObjet) -> Option<String> {
        self.0.page_de_participation(participation)
    }

    /// Voir [`Fabrique::exige_un_jeton`].
    pub(crate) fn exige_un_jeton(&self) -> bool {
        self.0.exige_un_jeton()
    }

    /// Le jeton, exigé si la destination l'exige (voir [`Fabrique::exige_un_jeton`]) : sans
    /// lui, rien ne peut partir.
    pub(crate) fn exiger_le_jeton(&self) -> Result<()> {
        if self.exige_un_jeton() {
            crate::jeton::lire()?;
        }
        Ok(())
    }

    /// Voir [`Fabrique::juge_les_noms`].
    pub(crate) fn juge_les_noms(&self) -> bool {
        self.0.juge_les_noms()
    }

    /// Voir [`Fabrique::lit_les_sequences`].
    pub(crate) fn lit_les_sequences(&self) -> bool {
        self.0.lit_les_sequences()
    }

    /// Le geste que dit le bilan de `vigie verifier` quand la destination refuse de relire.
    pub(crate) fn geste_relecture_refusee(&self) -> String {
        (self.0.inscription().geste_relecture_refusee)()
    }

    /// Voir [`Fabrique::depositaire`].
    pub(crate) async fn depositaire(&self, avant: AvantLEnvoi<'_>) -> Result<DepositaireDuPlan> {
        self.0.depositaire(avant).await
    }

    /// Voir [`Fabrique::relecture`].
    pub(crate) async fn relecture(
        &self,
        plan: &DepotPlan,
        reglages: &ReglagesDestination,
    ) -> Result<Box<dyn Relecture>> {
        self.0.relecture(plan, reglages).await
    }

    /// Voir [`Fabrique::endpoint_ignore`].
    pub(crate) fn endpoint_ignore(&self, plan: i64, demande: Option<&str>) -> Option<String> {
        self.0.endpoint_ignore(plan, demande)
    }

    /// Voir [`Fabrique::rappel_traiter`].
    pub(crate) fn rappel_traiter(&self) -> Option<String> {
        self.0.rappel_traiter()
    }
}

/// Le dépositaire d'un passage, quelle que soit sa destination.
pub(crate) struct DepositaireDuPlan(Box<dyn DepositaireEnBoite>);

impl DepositaireDuPlan {
    pub(crate) fn nouveau(depositaire: impl Depositaire) -> Self {
        DepositaireDuPlan(Box::new(depositaire))
    }
}

/// [`Depositaire`], ses futurs mis en boîte pour être appelé comme un objet.
trait DepositaireEnBoite: Send + Sync + 'static {
    fn deposer<'a, 'b: 'a>(
        &'a self,
        ctx: &'a ContexteUnite<'b>,
    ) -> BoxFuture<'a, Resultat<IssueUnite>>;
    fn sonder(&self) -> BoxFuture<'_, ReponseApi<()>>;
    fn partie_du_bilan(&self) -> PartieDuBilan;
}

impl<D: Depositaire> DepositaireEnBoite for D {
    fn deposer<'a, 'b: 'a>(
        &'a self,
        ctx: &'a ContexteUnite<'b>,
    ) -> BoxFuture<'a, Resultat<IssueUnite>> {
        Box::pin(Depositaire::deposer(self, ctx))
    }

    fn sonder(&self) -> BoxFuture<'_, ReponseApi<()>> {
        Box::pin(Depositaire::sonder(self))
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        Depositaire::partie_du_bilan(self)
    }
}

impl Depositaire for DepositaireDuPlan {
    async fn deposer(&self, ctx: &ContexteUnite<'_>) -> Resultat<IssueUnite> {
        self.0.deposer(ctx).await
    }

    async fn sonder(&self) -> ReponseApi<()> {
        self.0.sonder().await
    }

    fn partie_du_bilan(&self) -> PartieDuBilan {
        self.0.partie_du_bilan()
    }
}
