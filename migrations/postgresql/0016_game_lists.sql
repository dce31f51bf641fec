-- 0016_game_lists.sql (PostgreSQL): the lists of games (GET /api/games, /games), newest first, by
-- status and variant. The counterpart of migrations/0016_game_lists.sql.
--
-- A game's listing follows from its status and open seats (0015): open while running with a seat
-- to take, active once every seat is taken, finished when over with every seat taken; an open game
-- that lapsed unfilled is in no list (NULL). A generated column, so that no change has to keep it:
-- SQLite's is VIRTUAL, PostgreSQL 15's can only be STORED (written with the row).
-- Each filter reads one index in the order it is listed (created_at, then id, both descending),
-- from a cursor's row onwards: no list reads the whole table.

ALTER TABLE games ADD COLUMN listing TEXT COLLATE "C" GENERATED ALWAYS AS (
	CASE WHEN status = 'running' THEN CASE WHEN open_seats > 0 THEN 'open' ELSE 'active' END
	     WHEN open_seats = 0 THEN 'finished' END) STORED;

CREATE INDEX games_listing ON games (listing, created_at, id);
CREATE INDEX games_listing_variant ON games (variant, listing, created_at, id);
CREATE INDEX games_listed ON games (created_at, id) WHERE listing IS NOT NULL;
CREATE INDEX games_listed_variant ON games (variant, created_at, id) WHERE listing IS NOT NULL;
