-- 0012_game_version.sql: a version per game, bumped by every change to what a view of it shows.
--
-- Caches of rendered views, ETags and the ids of live events all key on it. Triggers bump it so
-- that no change can forget to: a statement of any layer that touches the game's row, its seats'
-- names or client seeds, its moves, actions or clocks moves the version on. A change of several
-- statements moves it by several steps; only the order matters.

ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TRIGGER games_version AFTER UPDATE ON games WHEN NEW.version = OLD.version
BEGIN
	UPDATE games SET version = OLD.version + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER seats_version AFTER UPDATE OF name, client_seed ON seats
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER moves_insert_version AFTER INSERT ON moves
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER moves_update_version AFTER UPDATE ON moves
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER actions_version AFTER INSERT ON actions
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER game_clocks_version AFTER UPDATE ON game_clocks
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER seat_clocks_insert_version AFTER INSERT ON seat_clocks
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;

CREATE TRIGGER seat_clocks_update_version AFTER UPDATE OF remaining_s, running_since, deadline, paused_until ON seat_clocks
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;
