-- 0014_conditional_moves.sql (PostgreSQL): each seat's private tree of conditional moves.
-- The counterpart of migrations/0014_conditional_moves.sql.
--
-- One row per game and seat that has a tree. The tree is the canonical JSON the API answers with;
-- from_ply is the ply at which its first expectation begins. No trigger bumps games.version: a
-- tree changes no view of the game, and its existence must not show in ETags or live events.

CREATE TABLE conditionals (
	game_id   TEXT COLLATE "C" NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	seat      BIGINT NOT NULL,
	from_ply  BIGINT NOT NULL,
	tree      TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (game_id, seat)
);
