-- 0013_messages.sql (PostgreSQL): what the players of a game say to each other, to every seat or
-- to one. The counterpart of migrations/0013_messages.sql.
--
-- A message never changes the game; it changes what its seats' views show, so storing one moves
-- the game's version on (0012). Each seat remembers the last message its mails carried.

CREATE TABLE messages (
	game_id   TEXT COLLATE "C" NOT NULL REFERENCES games(id),
	seq       BIGINT NOT NULL,           -- 1, 2, ... within the game
	from_seat BIGINT NOT NULL,
	to_seat   BIGINT,                    -- NULL: to every seat
	text      TEXT COLLATE "C" NOT NULL,
	channel   TEXT COLLATE "C" NOT NULL, -- api, web or mail
	at        TEXT COLLATE "C" NOT NULL, -- "2026-11-22T03:49:32Z"
	PRIMARY KEY (game_id, seq)
);

CREATE INDEX messages_sender ON messages (game_id, from_seat, at);

ALTER TABLE seats ADD COLUMN messages_mailed BIGINT NOT NULL DEFAULT 0;

CREATE TRIGGER messages_version AFTER INSERT ON messages
	FOR EACH ROW EXECUTE FUNCTION game_version_bump();
