-- 0011_player_tokens.sql (PostgreSQL): a player's API token, given on the signed-in "My games"
-- page, stored hashed like seat tokens. The counterpart of migrations/0011_player_tokens.sql.
CREATE TABLE player_tokens (
	token_hash BYTEA PRIMARY KEY,
	email      TEXT COLLATE "C" NOT NULL,
	expires_at BIGINT NOT NULL
);
