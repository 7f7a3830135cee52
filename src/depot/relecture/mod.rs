//! Relire ce qu'une destination garde, quelle qu'elle soit :
//! - [`empreinte`] : le fichier local est-il l'objet gardé (taille, `ETag`, sommes), et
//!   ceux dont seule la date a changé sont-ils ceux déposés ;
//! - [`verification`] : `vigie verifier`, le port `Relecture` (chaque destination a le sien,
//!   dans son module) et le constat noté dans le plan ;
//! - [`verifier`] : `vigie verifier` d'un plan, la relecture que sa fabrique construit.
//!
//! Ce qui ne relit que la plateforme Vigie-Chiro (l'inventaire d'une participation, l'URL
//! de lecture d'un fichier) est dans son module, `depot/vigiechiro/`.

pub(crate) mod empreinte;
pub(crate) mod verification;
pub(crate) mod verifier;
