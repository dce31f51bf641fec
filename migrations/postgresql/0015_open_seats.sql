-- 0015_open_seats.sql (PostgreSQL): seats a game's creator leaves for anyone to take.
-- The counterpart of migrations/0015_open_seats.sql.
--
-- An open seat has a row like any other, with open = 1, the seat's own name for a name and a
-- random token hash nobody holds; joining fills it and stores the joiner's token hash. A game with
-- open seats is listed as open and does not start (no clock runs, no mail goes) until the last one
-- is taken; nobody joining by open_until ends it unplayed.

ALTER TABLE seats ADD COLUMN open BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN open_seats BIGINT NOT NULL DEFAULT 0;          -- seats still open
ALTER TABLE games ADD COLUMN open_until TEXT COLLATE "C";                   -- when an unfilled game lapses

CREATE TRIGGER seats_open_version AFTER UPDATE OF open ON seats
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();
