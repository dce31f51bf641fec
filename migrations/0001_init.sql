-- 0001_init.sql: games, seats, moves with their dice, side actions, and server settings.

CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
) STRICT;

CREATE TABLE games (
	id              TEXT PRIMARY KEY,
	variant         TEXT NOT NULL,
	rules_version   INTEGER NOT NULL,      -- the rules a game started with stay its rules
	options         TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL CHECK (status IN ('running', 'over')),
	ply             INTEGER NOT NULL DEFAULT 0,
	start_position  TEXT NOT NULL,
	position        TEXT NOT NULL,
	result          TEXT,                  -- summary once over
	ranks           TEXT,                  -- JSON array, 1 = winner, once over
	draw_offer      INTEGER,               -- seat offering a draw, if any
	draw_accepts    INTEGER NOT NULL DEFAULT 0,  -- bit mask of the seats that agreed to it (the offerer too)
	dice_seed       BLOB NOT NULL,         -- secret until the game is over
	dice_commitment TEXT NOT NULL,         -- hex SHA-256 of the seed
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE seats (
	game_id    TEXT NOT NULL REFERENCES games(id),
	seat       INTEGER NOT NULL,
	name       TEXT NOT NULL,
	email      TEXT,
	token_hash BLOB NOT NULL UNIQUE,       -- SHA-256 of the seat token; the token itself is never stored
	PRIMARY KEY (game_id, seat)
) STRICT;

CREATE TABLE moves (
	game_id        TEXT NOT NULL REFERENCES games(id),
	ply            INTEGER NOT NULL,
	seat           INTEGER NOT NULL,
	move           TEXT NOT NULL,          -- canonical text
	note           TEXT NOT NULL DEFAULT '',
	channel        TEXT NOT NULL,          -- web, api, mail
	at             TEXT NOT NULL,
	dice           TEXT NOT NULL DEFAULT '[]',  -- JSON array of rolls, in order
	secret         INTEGER NOT NULL DEFAULT 0,  -- shown to its own seat only, until revealed
	position_after TEXT NOT NULL,
	PRIMARY KEY (game_id, ply)
) STRICT;

-- Resignations and draw offers: they change a game without being a ply.
CREATE TABLE actions (
	game_id TEXT NOT NULL REFERENCES games(id),
	seq     INTEGER NOT NULL,
	ply     INTEGER NOT NULL,
	seat    INTEGER NOT NULL,
	action  TEXT NOT NULL CHECK (action IN ('resign', 'offer', 'accept', 'decline', 'withdraw')),
	channel TEXT NOT NULL,
	at      TEXT NOT NULL,
	PRIMARY KEY (game_id, seq)
) STRICT;
