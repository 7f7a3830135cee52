//! Les mots d'Unix de l'aide et du manuel, et ceux qui les remplacent dans la version Windows :
//! la bénévole sous Windows ne connaît ni `XDG`, ni `0600`, ni `~/` ; elle a `%LOCALAPPDATA%`,
//! un fichier « réservé à votre compte », PowerShell. L'aide (`cli::commande`) et la page de
//! manuel de Windows (`man/vigie-windows.1`, d'où vient `MANUEL.txt`) passent leurs textes par
//! [`pour_windows`] ; un essai vérifie qu'il n'y reste aucun mot d'Unix (`MOTS_D_UNIX`) :
//! une aide reformulée sans que cette table suive le fait échouer.

/// Ce qui ne doit pas paraître dans un texte de la version Windows.
#[cfg(test)]
pub(crate) const MOTS_D_UNIX: [&str; 7] =
    ["XDG", "0600", "chmod", "export ", "~/", "SIGINT", "TMPDIR"];

/// Chaque tournure d'Unix et sa tournure de Windows, dans l'ordre où elles s'appliquent.
const UNIX_VERS_WINDOWS: [(&str, &str); 6] = [
    (
        "défaut : répertoire de données XDG, vigie/vigie.sqlite",
        "défaut : %LOCALAPPDATA%\\vigie\\vigie.sqlite",
    ),
    ("créé en 0600", "réservé à votre compte"),
    ("(~/.aws/credentials)", "(%USERPROFILE%\\.aws\\credentials)"),
    (
        "~/.config/vigie/jeton (lisible par vous seul)",
        "%APPDATA%\\vigie\\jeton (réservé à votre compte)",
    ),
    (
        "les lignes « export » à coller dans un autre terminal",
        "les lignes à coller dans une autre fenêtre PowerShell ou cmd",
    ),
    ("l'historique du shell", "l'historique de PowerShell"),
];

/// Le texte `texte` (une aide, un paragraphe du manuel) dans les mots de Windows.
pub(crate) fn pour_windows(texte: &str) -> String {
    UNIX_VERS_WINDOWS
        .iter()
        .fold(texte.to_owned(), |t, (unix, windows)| {
            t.replace(unix, windows)
        })
}

/// Les mots d'Unix restés dans `texte` (vide : aucun).
#[cfg(test)]
pub(crate) fn mots_d_unix(texte: &str) -> Vec<&'static str> {
    MOTS_D_UNIX
        .into_iter()
        .filter(|m| texte.contains(m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn les_tournures_d_unix_deviennent_celles_de_windows() {
        let aide = "Base SQLite des plans (défaut : répertoire de données XDG, vigie/vigie.sqlite) ; \
                    journal créé en 0600 ; profil (~/.aws/credentials)";
        let windows = pour_windows(aide);
        assert!(mots_d_unix(&windows).is_empty(), "{windows}");
        assert!(
            windows.contains("%LOCALAPPDATA%\\vigie\\vigie.sqlite"),
            "{windows}"
        );
        assert!(windows.contains("réservé à votre compte"), "{windows}");
        assert_eq!(mots_d_unix(aide), ["XDG", "0600", "~/"]);
    }
}
