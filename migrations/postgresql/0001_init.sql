-- 0001_init.sql (PostgreSQL): games, seats, moves with their dice, side actions, and server settings.
--
-- Each file here is the PostgreSQL form of the file of the same name in migrations/, so that every
-- version of the schema exists on both backends (migrations/README.md; tests/repo/pg_schema.py
-- compares the two). Integers are BIGINT (SQLite's are 64-bit), blobs BYTEA, and every text
-- column is COLLATE "C": it sorts and compares by bytes as SQLite's BINARY does, whatever the
-- database's locale, and lower() of it folds ASCII letters only, as NOCASE does.

CREATE TABLE settings (
	key   TEXT COLLATE "C" PRIMARY KEY,
	value BYTEA NOT NULL
);

CREATE TABLE games (
	id              TEXT COLLATE "C" PRIMARY KEY,
	variant         TEXT COLLATE "C" NOT NULL,
	rules_version   BIGINT NOT NULL,       -- the rules a game started with stay its rules
	options         TEXT COLLATE "C" NOT NULL DEFAULT '',
	status          TEXT COLLATE "C" NOT NULL CHECK (status IN ('running', 'over')),
	ply             BIGINT NOT NULL DEFAULT 0,
	start_position  TEXT COLLATE "C" NOT NULL,
	position        TEXT COLLATE "C" NOT NULL,
	result          TEXT COLLATE "C",      -- summary once over
	ranks           TEXT COLLATE "C",      -- JSON array, 1 = winner, once over
	draw_offer      BIGINT,                -- seat offering a draw, if any
	draw_accepts    BIGINT NOT NULL DEFAULT 0,  -- bit mask of the seats that agreed to it (the offerer too)
	dice_seed       BYTEA NOT NULL,        -- secret until the game is over
	dice_commitment TEXT COLLATE "C" NOT NULL,  -- hex SHA-256 of the seed
	created_at      TEXT COLLATE "C" NOT NULL,
	updated_at      TEXT COLLATE "C" NOT NULL
);

CREATE TABLE seats (
	game_id    TEXT COLLATE "C" NOT NULL REFERENCES games(id),
	seat       BIGINT NOT NULL,
	name       TEXT COLLATE "C" NOT NULL,
	email      TEXT COLLATE "C",
	token_hash BYTEA NOT NULL UNIQUE,      -- SHA-256 of the seat token; the token itself is never stored
	PRIMARY KEY (game_id, seat)
);

CREATE TABLE moves (
	game_id        TEXT COLLATE "C" NOT NULL REFERENCES games(id),
	ply            BIGINT NOT NULL,
	seat           BIGINT NOT NULL,
	move           TEXT COLLATE "C" NOT NULL,      -- canonical text
	note           TEXT COLLATE "C" NOT NULL DEFAULT '',
	channel        TEXT COLLATE "C" NOT NULL,      -- web, api, mail
	at             TEXT COLLATE "C" NOT NULL,
	dice           TEXT COLLATE "C" NOT NULL DEFAULT '[]',  -- JSON array of rolls, in order
	secret         BIGINT NOT NULL DEFAULT 0,      -- shown to its own seat only, until revealed
	position_after TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (game_id, ply)
);

-- Resignations and draw offers: they change a game without being a ply.
CREATE TABLE actions (
	game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
	seq     BIGINT NOT NULL,
	ply     BIGINT NOT NULL,
	seat    BIGINT NOT NULL,
	action  TEXT COLLATE "C" NOT NULL CHECK (action IN ('resign', 'offer', 'accept', 'decline', 'withdraw')),
	channel TEXT COLLATE "C" NOT NULL,
	at      TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (game_id, seq)
);
