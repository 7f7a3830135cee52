-- L'identité du fichier planifié (« périphérique:inode » sous Unix) : un fichier remplacé entre
-- la planification et l'envoi, par un lien symbolique ou par un autre fichier de même taille et
-- même date, n'est jamais envoyé à sa place. Relevée à chaque planification ; NULL là où le
-- système n'en donne pas.

ALTER TABLE depot_unite ADD COLUMN identite TEXT;
