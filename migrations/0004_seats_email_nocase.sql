-- 0004: a player's seats are looked up by email address case-insensitively (COLLATE NOCASE, for
-- "my games"), which the binary index seats_email cannot serve: without this index every sign-in
-- read every seat, two seconds with a million games, while the server waited.
CREATE INDEX seats_email_nocase ON seats (email COLLATE NOCASE);
