//! Le masquage des secrets, seul masque du projet : tout texte destiné à un journal, un
//! message ou la base y passe (jeton, `Authorization`, signatures et identifiants d'URL
//! signées). Module à part, sans dépendance : l'affichage (`suivi`) comme l'émission
//! (`transport`) s'en servent.

/// Masque les secrets d'un texte destiné à un journal, un message ou la base : signatures et
/// identifiants d'URL signées (S3 v2 et v4), jetons, en-têtes d'autorisation.
pub(crate) fn expurger(texte: &str) -> String {
    const PARAMETRES: [&str; 7] = [
        "X-Amz-Signature=",
        "X-Amz-Credential=",
        "X-Amz-Security-Token=",
        "Signature=",
        "AWSAccessKeyId=",
        "token=",
        "jeton=",
    ];
    let mut resultat = texte.to_owned();
    for p in PARAMETRES {
        let mut debut = 0;
        while let Some(i) = find_ascii_insensible(&resultat[debut..], p) {
            let valeur = debut + i + p.len();
            let fin = resultat[valeur..]
                .find(['&', '"', '\'', ' ', '>', ')'])
                .map_or(resultat.len(), |f| valeur + f);
            resultat.replace_range(valeur..fin, "***");
            debut = valeur + 3;
        }
    }
    for entete in ["Authorization:", "authorization:"] {
        if let Some(i) = resultat.find(entete) {
            let valeur = i + entete.len();
            let fin = resultat[valeur..]
                .find('\n')
                .map_or(resultat.len(), |f| valeur + f);
            resultat.replace_range(valeur..fin, " ***");
        }
    }
    resultat
}

fn find_ascii_insensible(meule: &str, aiguille: &str) -> Option<usize> {
    let m = meule.as_bytes();
    let a = aiguille.as_bytes();
    if a.len() > m.len() {
        return None;
    }
    (0..=m.len() - a.len()).find(|&i| {
        m[i..i + a.len()].eq_ignore_ascii_case(a)
            // « Signature= » ne doit pas attraper le milieu de « X-Amz-Signature= » déjà masqué.
            && (i == 0 || !m[i - 1].is_ascii_alphanumeric() && m[i - 1] != b'-')
    })
}
