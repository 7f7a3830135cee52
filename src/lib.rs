//! `vigie` : dépose une nuit d'enregistrements Vigie-Chiro depuis le terrain.
//!
//! Un plan persisté dans SQLite (`plan`), des PUT idempotents sous une politique de réessai
//! graduée (`reessai`, `transport`), un moteur qui reprend là où l'on en était (`depot`), et ce
//! que l'utilisateur voit (`suivi`). Voir `ARCHITECTURE.md`, `docs/` et le README.

pub mod cli;
pub mod commandes;
pub mod connexion;
pub mod depot;
pub mod destination;
pub mod duree;
pub mod horodatage;
pub mod inventaire;
pub mod jeton;
pub mod noms;
pub mod plan;
pub mod plateforme;
pub mod reessai;
pub mod saison;
pub mod secrets;
pub mod sortie;
pub mod suivi;
pub mod texte;
pub mod traitement;
pub mod transport;
