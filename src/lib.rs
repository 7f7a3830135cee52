//! `vigie` : dépose une nuit d'enregistrements Vigie-Chiro depuis le terrain.
//!
//! Un plan persisté dans SQLite (`plan`), des PUT idempotents sous une politique de réessai
//! graduée (`reessai`, `transport`), un moteur qui reprend là où l'on en était (`depot`), et ce
//! que l'utilisateur voit (`suivi`). Voir `ARCHITECTURE.md`, `docs/` et le README.

// `vigie` est un programme : sa documentation se lit avec `--document-private-items`, et ses
// liens vers des éléments privés sont voulus.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cli;
pub mod commandes;
mod connexion;
#[cfg(feature = "bac-a-sable")]
mod demo;
mod depot;
mod description;
mod destination;
mod duree;
mod garde;
mod horodatage;
pub mod inventaire;
mod jeton;
mod noms;
pub mod plan;
pub mod plateforme;
mod preparation;
mod reessai;
mod saison;
mod secrets;
pub mod sortie;
pub mod suivi;
mod texte;
mod traitement;
mod transport;
mod wav;
