//! Les essais d'intégration de `vigie` : le vrai binaire (`CARGO_BIN_EXE_vigie`) lancé contre le
//! bac à sable démarré dans le processus du test (`vigie-bac-a-sable`), sur `127.0.0.1`.
//!
//! Un seul binaire de test, à la manière de ripgrep : chaque fichier d'essais est un module, et
//! tous partagent le banc de `commun` ; il n'y a qu'une édition de liens au lieu d'une par
//! fichier. Déclaré dans `Cargo.toml` (`autotests = false`, un seul `[[test]]`) ; un nouveau
//! fichier d'essais s'ajoute ci-dessous. Pour n'en lancer qu'une partie :
//! `cargo test --test integration plan_cli::` (un module) ou un nom de test.
//!
//! Les modules qui parlent au bac à sable portent `#![cfg(feature = "bac-a-sable")]` : sans
//! lui (`--no-default-features`), ils ne sont pas compilés.

// Un crate d'essais n'a pas de surface publique : `pub` n'y veut dire que « partagé entre les
// modules d'essais » (le banc de `commun`), ce que `unreachable_pub` ne saurait garder.
#![allow(unreachable_pub)]

mod commun;

mod carte_retiree;
mod coupures;
mod depot_carte_brute;
mod depot_dossier;
mod depot_s3;
mod depot_vigiechiro;
mod description_participation;
mod destination_s3;
mod distribution;
mod docs_a_jour;
mod endurance;
mod entrees_hostiles;
mod fiabilite_arrets;
mod fidelite_vigiechiro;
mod format_sequences;
mod francais;
mod horodatages;
mod lien;
mod matrice_pannes;
mod messages_serveur;
mod mise_a_niveau;
mod participation_creee;
mod plan_cli;
mod premier_ecran;
mod preparer;
mod preuves;
mod prise_en_main;
mod proprietaire;
mod reglages_retenus;
mod relire_vigiechiro;
mod robustesse_transport;
mod saison;
mod saison_apres_depot;
mod saison_course;
mod saison_reprise;
mod scripts;
mod second_avis;
mod securite;
mod suivi;
mod terminal;
mod terminal_rendu;
mod traitement;
