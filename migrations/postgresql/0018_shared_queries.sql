-- 0018_shared_queries.sql (PostgreSQL): what several daemons on one database need, and what lets
-- the queries of db/ be the same for both backends. The counterpart of migrations/0018.

-- The claim time of a mail being sent (see migrations/0018_shared_queries.sql).
ALTER TABLE outbox ADD COLUMN sending_since BIGINT;

-- held_mails is read in the order its rows were written: SQLite's implicit rowid, made explicit.
ALTER TABLE held_mails ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY;

-- unixepoch() of SQLite: the current Unix time in whole seconds (the transaction's start).
CREATE FUNCTION unixepoch() RETURNS bigint LANGUAGE sql STABLE
	AS $$ SELECT floor(extract(epoch FROM now()))::bigint $$;

-- Every daemon learns every commit of a game's new version, whichever daemon made it, from a
-- notification on the channel rookery_games ("<game id> <version>", sent at the commit): it
-- invalidates its caches by version and tells its live event streams (db/postgresql/pg_follow.c).
CREATE FUNCTION games_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('rookery_games', NEW.id || ' ' || NEW.version);
	RETURN NULL;
END
$$;

-- Every update of a game's row moves its version on (games_version, 0012); "UPDATE OF version"
-- would miss the updates whose version that trigger sets.
CREATE TRIGGER games_notify AFTER INSERT OR UPDATE ON games
	FOR EACH ROW EXECUTE FUNCTION games_notify();
