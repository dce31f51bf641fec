"""harness.database - the database of a daemon under test, on either backend, as the tests reach it:
a fresh one for each daemon, and the few reads (and writes) the tests make behind the daemon's back.

SQLite is the default: a daemon's database is a file in its work directory. With the environment
variable ROOKERY_TEST_BACKEND=postgresql, each daemon made without an explicit database gets a new
empty PostgreSQL database of its own (fresh()) on the test process's private server, started the
first time one is asked for (harness.postgres) and stopped when the process exits; its daemon
then runs with --sockets in its work directory (sockets_for).

Everything else takes a database as the daemon's --db names it (a path or a postgresql:// URI)
and SQL written for both backends with ? placeholders:

    rows = database.query(d.db, "SELECT ply FROM games WHERE id = ?", (gid,))
    database.execute(d.db, "UPDATE games SET dice_version = 1 WHERE id = ?", (gid,))  # daemon stopped

Debian's python3-psycopg2 for PostgreSQL; Python's sqlite3 for SQLite.
"""
import decimal
import os
import re
import sqlite3
import subprocess

BACKENDS = ("sqlite", "postgresql")
BACKEND = os.environ.get("ROOKERY_TEST_BACKEND") or "sqlite"
if BACKEND not in BACKENDS:
    raise SystemExit(f"ROOKERY_TEST_BACKEND={BACKEND}: not one of {', '.join(BACKENDS)}")

_server = None           # this process's private PostgreSQL, once one was asked for
_made = 0                # databases made on it


def is_postgresql(db):
    """Whether db (a daemon's --db) names a PostgreSQL database."""
    return db.startswith(("postgresql://", "postgres://"))


def fresh(workdir):
    """The --db of a new daemon's own empty database: rookery.db in workdir, or a new database on
    the private PostgreSQL server when the tests run on PostgreSQL."""
    global _server, _made
    if BACKEND == "sqlite":
        return os.path.join(workdir, "rookery.db")
    if _server is None:
        from harness import postgres      # imports harness.daemon, which imports this module
        # No fsync: the tests kill daemons, never the server, and each database lives one test.
        _server = postgres.Postgres(fsync=False).start()
    _made += 1
    return _server.create_database(f"rookery_{_made}")


def sockets_for(db, workdir):
    """The --sockets of a daemon on db working in workdir, or None where the default serves (a
    SQLite database keeps its sockets beside it)."""
    return os.path.join(workdir, "rookery") if is_postgresql(db) else None


def _connect(db, writable=False):
    if is_postgresql(db):
        import psycopg2
        conn = psycopg2.connect(db)
        conn.set_session(readonly=not writable, autocommit=True)
        return conn
    return sqlite3.connect(db if writable else f"file:{db}?mode=ro", uri=not writable)


def _plain(value):
    """A value as Python's sqlite3 gives it: bytes for a blob, int for an integral number."""
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, decimal.Decimal) and value == value.to_integral_value():
        return int(value)
    return value


def _run(conn, db, sql, args):
    """Run one statement on conn, its placeholders ? or ?N; the cursor."""
    cur = conn.cursor()
    if is_postgresql(db):
        if args:
            sql = sql.replace("%", "%%")
            if re.search(r"\?\d", sql):
                cur.execute(re.sub(r"\?(\d+)", r"%(p\1)s", sql), {f"p{i + 1}": v for i, v in enumerate(args)})
            else:
                cur.execute(sql.replace("?", "%s"), tuple(args))
        else:
            cur.execute(sql)
    else:
        cur.execute(sql, tuple(args))
    return cur


def query(db, sql, args=()):
    """The rows (tuples) of one query of db, through a read-only connection of its own."""
    conn = _connect(db)
    try:
        return [tuple(_plain(v) for v in row) for row in _run(conn, db, sql, args).fetchall()]
    finally:
        conn.close()


def execute(db, sql, args=()):
    """Run one statement that writes on db and commit it; for a test that sets up by hand what an
    older Rookery would have left (the daemon stopped)."""
    conn = _connect(db, writable=True)
    try:
        _run(conn, db, sql, args)
        conn.commit()
    finally:
        conn.close()


def schema_version(db):
    """The schema version db records (SQLite's user_version, PostgreSQL's rookery_schema_version)."""
    if is_postgresql(db):
        return query(db, "SELECT version FROM rookery_schema_version")[0][0]
    return query(db, "PRAGMA user_version")[0][0]


def set_schema_version(db, version):
    """Record version as db's schema version, as a newer Rookery would have (the daemon stopped)."""
    if is_postgresql(db):
        execute(db, "UPDATE rookery_schema_version SET version = ?", (version,))
    else:
        execute(db, f"PRAGMA user_version = {int(version)}")


def tables(db):
    """The names of db's tables, but the one recording its schema version, sorted."""
    if is_postgresql(db):
        return [t for (t,) in query(db, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                                        "AND tablename <> 'rookery_schema_version' ORDER BY tablename")]
    return [t for (t,) in query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]


def plan(db, sql, args=()):
    """How db would run the query: its plan as text (SQLite's EXPLAIN QUERY PLAN; PostgreSQL's
    EXPLAIN with sequential scans discouraged, as a large table would make them)."""
    if not is_postgresql(db):
        return "\n".join(row[-1] for row in query(db, "EXPLAIN QUERY PLAN " + sql, args))
    conn = _connect(db)
    try:
        _run(conn, db, "SET enable_seqscan = off", ())
        return "\n".join(row[0] for row in _run(conn, db, "EXPLAIN " + sql, args).fetchall())
    finally:
        conn.close()


def dump(db):
    """The whole database as SQL text (SQLite's iterdump, pg_dump's output)."""
    if is_postgresql(db):
        from harness import postgres
        r = subprocess.run([os.path.join(postgres.bindir(), "pg_dump"), "--no-owner", "-d", db],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise AssertionError(f"pg_dump failed ({r.returncode}):\n{r.stderr}")
        return r.stdout
    conn = _connect(db)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


def snapshot(db):
    """Every row of every table, and the schema version, read at one moment."""
    conn = _connect(db)
    try:
        if is_postgresql(db):
            conn.set_session(isolation_level="REPEATABLE READ", readonly=True, autocommit=False)
        names = tables(db)
        out = {"user_version": schema_version(db)}

        def rows(sql):
            return sorted((tuple(_plain(v) for v in r) for r in _run(conn, db, sql, ()).fetchall()), key=repr)
        for t in names:
            out[t] = rows(f'SELECT * FROM "{t}"')
        # The delivery worker moves queued mails along on its own, and wipes their text once
        # sent; what was queued, and to whom, is what counts.
        if "outbox" in names:
            out["outbox"] = rows("SELECT id, game_id, kind, recipient FROM outbox")
        # The sweepers write their heartbeat when they like (with two daemons, each on its own
        # schedule): it is no request's doing.
        if "settings" in names:
            out["settings"] = rows("SELECT key, value FROM settings WHERE key <> 'clock_heartbeat'")
        return out
    finally:
        conn.close()
