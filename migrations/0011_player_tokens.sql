-- 0011: a player's API token, given on the signed-in "My games" page: it speaks for an email
-- address (its vacations) through the API until it expires. Stored hashed like seat tokens.
CREATE TABLE player_tokens (
	token_hash BLOB PRIMARY KEY,
	email      TEXT NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;
