-- 0003_move_places.sql (PostgreSQL): the places each move touched on the board (JSON array of
-- square names), so pages can mark the last move. The counterpart of migrations/0003_move_places.sql.
ALTER TABLE moves ADD COLUMN places TEXT COLLATE "C" NOT NULL DEFAULT '[]';
