//! `completions/` et `man/` sont produits par le binaire : ce test échoue s'ils ne sont plus à
//! jour, et dit comment les régénérer.

// Les fichiers livrés décrivent le binaire par défaut : sans le bac à sable, `demo` et
// `bac-a-sable` manquent à la ligne de commande, et l'écart est attendu.
#[cfg(feature = "bac-a-sable")]
#[test]
fn completions_et_manuel_a_jour() {
    let racine = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut perimes = Vec::new();
    for (chemin, attendu) in vigie::commandes::fichiers_attendus().expect("génération") {
        let present = std::fs::read(racine.join(&chemin)).unwrap_or_default();
        if present != attendu {
            perimes.push(chemin);
        }
    }
    assert!(
        perimes.is_empty(),
        "fichiers générés périmés : {perimes:?}\nrégénérez-les avec : cargo run -- generer-docs ."
    );
}

#[test]
fn le_manuel_documente_les_codes_de_sortie_et_l_environnement() {
    let man = String::from_utf8(vigie::commandes::page_de_manuel().unwrap()).unwrap();
    for attendu in [
        "CODES DE SORTIE",
        "130",
        "VIGIE_BASE",
        "FICHIERS",
        "retenter",
    ] {
        assert!(
            man.contains(attendu),
            "la page de manuel ne dit rien de {attendu}"
        );
    }
}
