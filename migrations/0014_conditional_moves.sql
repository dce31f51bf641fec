-- 0014_conditional_moves.sql: each seat's private tree of conditional moves.
--
-- One row per game and seat that has a tree. The tree is the canonical JSON the API answers with;
-- from_ply is the ply at which its first expectation begins. No trigger bumps games.version: a
-- tree changes no view of the game, and its existence must not show in ETags or live events.

CREATE TABLE conditionals (
	game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	seat      INTEGER NOT NULL,
	from_ply  INTEGER NOT NULL,
	tree      TEXT NOT NULL,
	PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
