//! Préparer une carte brute : de ce qu'écrit l'enregistreur aux séquences que la plateforme
//! attend (5 s réelles, expansion ×10, noms du protocole), comme le compagnon officiel de
//! Vigie-Chiro (`echonuit/vigiechiro-pr-companion`, parcours « Carte SD → Importer →
//! Transformer »).
//!
//! Pourquoi : le calcul de la plateforme lit les WAV en expansion de temps ×10
//! (`scripts/task_participation.py`, `tadaridaD -x 10`) ; une nuit d'un enregistreur direct
//! (en-tête à 384 kHz) déposée telle quelle est lue dix fois trop haut, et les espèces rendues
//! sont fausses sans aucune erreur.
//!
//! - [`entete`] : l'en-tête d'un WAV et ses métadonnées, lus sur ses premiers Kio (pur) ;
//! - [`materiel`] : l'enregistreur (journal `LogPR`, GUANO, AudioMoth, nom) (pur) ;
//! - [`transformation`] : la fréquence réelle, les tranches, l'en-tête des séquences, leurs
//!   noms et l'arbitrage des collisions (pur, la règle de référence) ;
//! - [`carte`] : lire la carte sans y écrire, ranger en nuits (la soirée du dépôt,
//!   `saison::nuits`) ;
//! - [`ecriture`] : écrire les séquences d'une nuit, provisoire exclusif puis renommage ;
//! - [`au_fil`] : une carte brute déposée sans copie (`vigie depot CARTE`), chaque séquence
//!   une unité du plan : son en-tête en mémoire, ses octets lus dans l'original à l'envoi ;
//! - [`nuit`] : un dossier (ou une carte brute) inventorié et examiné pour `vigie depot`, ses
//!   fichiers planifiables.
//!
//! L'affichage est dans `suivi/preparation.rs`, le câblage dans `commandes/preparer.rs`.

pub(crate) mod au_fil;
pub(crate) mod carte;
pub(crate) mod ecriture;
pub(crate) mod entete;
pub(crate) mod materiel;
pub(crate) mod nuit;
pub(crate) mod transformation;
