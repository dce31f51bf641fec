-- 0017_open_games_lapse.sql (PostgreSQL): the open games that have lapsed are found without reading
-- every game. The counterpart of migrations/0017_open_games_lapse.sql.
--
-- The sweeper asks for running games with open seats whose open_until has passed at every sweep;
-- this index holds only the open games, ordered by when they lapse.

CREATE INDEX games_open_until ON games (open_until) WHERE status = 'running' AND open_seats > 0;
