-- 0010_vacation.sql: players' vacations, during which their clocks stand still in all their games.

-- One row a vacation. A player is an address in lower case, or '#<game>/<seat>' for a seat
-- without one (its own player). Times are unix seconds (UTC); a vacation ended early has
-- end_at set to the moment it ended (start_at itself when ended at once: it still counts a day).
CREATE TABLE vacations (
	id       INTEGER PRIMARY KEY,
	player   TEXT NOT NULL,
	start_at INTEGER NOT NULL,
	end_at   INTEGER NOT NULL CHECK (end_at >= start_at)
) STRICT;

CREATE INDEX vacations_player ON vacations (player, end_at);
CREATE INDEX vacations_end ON vacations (end_at);
