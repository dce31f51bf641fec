-- 0013_messages.sql: what the players of a game say to each other, to every seat or to one.
--
-- A message never changes the game; it changes what its seats' views show, so storing one moves
-- the game's version on (0012). Each seat remembers the last message its mails carried.

CREATE TABLE messages (
	game_id   TEXT NOT NULL REFERENCES games(id),
	seq       INTEGER NOT NULL,          -- 1, 2, ... within the game
	from_seat INTEGER NOT NULL,
	to_seat   INTEGER,                   -- NULL: to every seat
	text      TEXT NOT NULL,
	channel   TEXT NOT NULL,             -- api, web or mail
	at        TEXT NOT NULL,             -- "2026-11-22T03:49:32Z"
	PRIMARY KEY (game_id, seq)
) STRICT;

CREATE INDEX messages_sender ON messages (game_id, from_seat, at);

ALTER TABLE seats ADD COLUMN messages_mailed INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER messages_version AFTER INSERT ON messages
BEGIN
	UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;
