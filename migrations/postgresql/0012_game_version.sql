-- 0012_game_version.sql (PostgreSQL): a version per game, bumped by every change to what a view of
-- it shows. The counterpart of migrations/0012_game_version.sql: the same triggers, by name, with
-- the same effect, each a call of one of two PL/pgSQL functions.
--
-- Caches of rendered views, ETags and the ids of live events all key on it. Triggers bump it so
-- that no change can forget to: a statement of any layer that touches the game's row, its seats'
-- names or client seeds, its moves, actions or clocks moves the version on. A change of several
-- statements moves it by several steps; only the order matters.

ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

-- An update of a game's row that leaves its version alone moves it on by one. SQLite's trigger
-- does it after the row changed, with a second UPDATE; here the row is changed once, before it is
-- written: the same version either way.
CREATE FUNCTION games_version_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.version := OLD.version + 1;
	RETURN NEW;
END
$$;

CREATE TRIGGER games_version BEFORE UPDATE ON games
	FOR EACH ROW WHEN (NEW.version = OLD.version) EXECUTE FUNCTION games_version_next();

-- A row of another table that belongs to a game changed: that game's version moves on by one (and
-- only by one: the games trigger sees the version changed).
CREATE FUNCTION game_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
	RETURN NULL;
END
$$;

CREATE TRIGGER seats_version AFTER UPDATE OF name, client_seed ON seats
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER moves_insert_version AFTER INSERT ON moves
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER moves_update_version AFTER UPDATE ON moves
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER actions_version AFTER INSERT ON actions
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER game_clocks_version AFTER UPDATE ON game_clocks
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER seat_clocks_insert_version AFTER INSERT ON seat_clocks
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();

CREATE TRIGGER seat_clocks_update_version AFTER UPDATE OF remaining_s, running_since, deadline, paused_until ON seat_clocks
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();
