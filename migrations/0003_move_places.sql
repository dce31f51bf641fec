-- 0003: the places each move touched on the board (JSON array of square names), so pages can
-- mark the last move. Moves stored before this migration touched nothing that is known.
ALTER TABLE moves ADD COLUMN places TEXT NOT NULL DEFAULT '[]';
