-- 0008_clock.sql (PostgreSQL): correspondence clocks: a game's time control and each seat's clock.
-- The counterpart of migrations/0008_clock.sql.

-- A game with a time control has one row; games without one have none.
CREATE TABLE game_clocks (
	game_id     TEXT COLLATE "C" PRIMARY KEY REFERENCES games(id),
	type        TEXT COLLATE "C" NOT NULL CHECK (type IN ('per_move', 'bank')),
	base_s      BIGINT NOT NULL,            -- per move: the time of each move; bank: each seat's start
	increment_s BIGINT NOT NULL DEFAULT 0,  -- bank: added after each of a seat's moves
	max_s       BIGINT NOT NULL DEFAULT 0   -- bank: the most a seat's time may grow to by increments
);

-- One clock a seat, all in unix seconds (UTC; no time zone is ever used).
CREATE TABLE seat_clocks (
	game_id       TEXT COLLATE "C" NOT NULL REFERENCES games(id),
	seat          BIGINT NOT NULL,
	remaining_s   BIGINT NOT NULL,      -- the seat's time when its clock last started, or now when stopped
	running_since BIGINT,               -- when the clock last started; NULL when stopped
	deadline      BIGINT,               -- when the seat runs out; NULL when the game does not wait for it
	reminded      BIGINT NOT NULL DEFAULT 0,   -- reminders sent for this deadline: 1 = a day left, 2 = 10% left
	paused_until  BIGINT,               -- room for vacations: the clock stands still until then
	PRIMARY KEY (game_id, seat)
);

CREATE INDEX seat_clocks_deadline ON seat_clocks (deadline) WHERE deadline IS NOT NULL;
