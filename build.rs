//! Pour la cible Windows seulement : ce qui fait se présenter `vigie.exe` (l'icône, les
//! informations de version lues dans ses propriétés, le manifeste), compilé en ressources par
//! `winresource` (windres de mingw-w64) et lié au programme. Pour toute autre cible, rien : le
//! binaire est le même qu'avant ce script.
//!
//! - L'icône : `packaging/windows/vigie.ico`, fabriquée par `scripts/icone.py`.
//! - La version (fichier et produit) : celle de Cargo.toml ; le nom, l'éditeur, la description.
//! - Le manifeste : `packaging/windows/vigie.exe.manifest` (chemins longs, page de code UTF-8,
//!   Windows 10 et 11, droits de l'utilisateur).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=packaging/windows/vigie.ico");
    println!("cargo:rerun-if-changed=packaging/windows/vigie.exe.manifest");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return;
    }
    let mut ressources = winresource::WindowsResource::new();
    ressources
        // Français (France).
        .set_language(0x040C)
        .set_icon("packaging/windows/vigie.ico")
        .set_manifest_file("packaging/windows/vigie.exe.manifest")
        .set("ProductName", "vigie")
        .set("FileDescription", "vigie : dépôt des nuits Vigie-Chiro")
        .set("CompanyName", "Équipe vigie")
        .set("LegalCopyright", "Équipe vigie ; licence MIT ou Apache-2.0")
        .set("OriginalFilename", "vigie.exe")
        .set("InternalName", "vigie");
    if let Err(e) = ressources.compile() {
        panic!(
            "les ressources de vigie.exe (icône, version, manifeste) ne se compilent pas : {e} ; \
             il faut windres de mingw-w64 (paquet Debian binutils-mingw-w64-x86-64)"
        );
    }
}
