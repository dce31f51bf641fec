#!/usr/bin/env python3
"""pg_schema.py - the PostgreSQL migrations (migrations/postgresql/) make the schema the SQLite ones make.

usage: python3 tests/repo/pg_schema.py [SOURCE-ROOT] [unittest options]

Applies migrations/*.sql to an empty SQLite database (Python's sqlite3) and migrations/postgresql/*.sql
to an empty database of a private PostgreSQL (harness.postgres, through psql), each file in its own
transaction, and fails when
  - a SQLite migration has no PostgreSQL file of the same name, or the other way round;
  - the tables differ, or a table's columns (in order: name, type as integer, text or bytes,
    NOT NULL, default, generated or not, numbered by the database or not), primary key, unique
    keys, foreign keys, CHECK constraints (the columns and literals they name) or indexes (name,
    unique, key columns with NOCASE as lower(), WHERE);
  - the triggers differ (name, and the event of which table they follow);
  - a PostgreSQL text column is not COLLATE "C" (bytes order, ASCII-only lower(), as SQLite's);
  - the version triggers move games.version (or the generated listing) differently: the same
    statements, a game's life from its creation to its end, run on both after each other.
It shows that the comparison fails on a PostgreSQL schema that lost a migration, a column, a check or a
trigger. And the PostgreSQL form of rookery_outbox_kept (0007) keeps what the SQLite one does.

The Python standard library, and PostgreSQL's server (Debian's postgresql) for the harness.
"""
import glob
import itertools
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from harness import postgres  # noqa: E402

ROOT = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.dirname(os.path.dirname(HERE))
SQLITE_DIR = os.path.join(ROOT, "migrations")
PG_DIR = os.path.join(SQLITE_DIR, "postgresql")

# Types as both backends store them: SQLite's declared type, PostgreSQL's; any other is a difference.
SQLITE_TYPES = {"INTEGER": "integer", "TEXT": "text", "BLOB": "bytes"}
PG_TYPES = {"bigint": "integer", "text": "text", "bytea": "bytes"}


def migration_files(folder):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "[0-9][0-9][0-9][0-9]_*.sql")))


def missing_migrations(sqlite_dir, pg_dir):
    """What keeps the two sets from being one file each per version."""
    lite, pg = migration_files(sqlite_dir), migration_files(pg_dir)
    problems = [f"migrations/{n} has no PostgreSQL counterpart" for n in lite if n not in pg]
    problems += [f"migrations/postgresql/{n} has no SQLite counterpart" for n in pg if n not in lite]
    return problems


# ---- applying the migrations ----

def sqlite_migrated(folder=SQLITE_DIR):
    """A SQLite database in memory with every migration of folder, as db/db.c applies them."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    # The daemon's own function (db/db_mail.c); 0007 applies it to no row of an empty outbox.
    conn.create_function("rookery_outbox_kept", 1, lambda message: message)
    conn.execute("PRAGMA foreign_keys = ON")
    for n, name in enumerate(migration_files(folder), 1):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            conn.executescript(f"BEGIN;\n{f.read()}\n;PRAGMA user_version = {n};\nCOMMIT;")
    return conn


def pg_migrated(pg, uri, folder=PG_DIR):
    """Every migration of folder applied to the database at uri, each in its own transaction."""
    steps = []
    for name in migration_files(folder):
        steps += ["BEGIN", "\\i " + os.path.join(folder, name), "COMMIT"]
    pg.psql(steps, uri=uri)


# ---- the schema, described alike from both ----

def column_text(name, typ, notnull, default, generated, numbered):
    return " ".join([name, typ] + (["NOT NULL"] if notnull else []) +
                    ([f"DEFAULT {default}"] if default is not None else []) +
                    (["GENERATED"] if generated else []) + (["NUMBERED"] if numbered else []))


def where_text(s):
    """An index's predicate without casts, parentheses and case: "status = 'running' and ..."."""
    s = re.sub(r"::\w+", "", s).replace("(", " ").replace(")", " ")
    return re.sub(r"\s+", " ", s).strip().lower()


def index_text(unique, keys, where):
    return ("UNIQUE " if unique else "") + "(" + ", ".join(keys) + ")" + \
        (f" WHERE {where_text(where)}" if where else "")


def new_table():
    return {"columns": [], "primary key": [], "unique": [], "foreign keys": [], "checks": [], "indexes": {}}


def check_text(expr, columns):
    """A CHECK constraint as both backends can say it: the table's columns it names, then its
    string and number literals ("IN ('a', 'b')" and "= ANY (ARRAY['a'::text, 'b'::text])" alike)."""
    expr = re.sub(r"::[\w\[\]]+", "", expr)
    names = sorted(set(re.findall(r"\b[a-z_]+\b", expr)) & set(columns))
    strings = sorted(re.findall(r"'([^']*)'", expr))
    numbers = sorted(int(n) for n in re.findall(r"(?<![\w'])\d+\b", re.sub(r"'[^']*'", "", expr)))
    return f"({', '.join(names)}) {strings} {numbers}"


def sqlite_checks(sql):
    """The expressions of the CHECK constraints in a table's CREATE TABLE text (which SQLite
    keeps with the columns ALTER TABLE added)."""
    sql = re.sub(r"--[^\n]*", "", sql)
    out = []
    for m in re.finditer(r"\bCHECK\s*\(", sql, re.I):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            i += 1
        out.append(sql[m.end():i - 1])
    return out


# What PostgreSQL has for reasons SQLite has no use for, left out of the comparison: the schema
# version (SQLite keeps it in PRAGMA user_version), the explicit rowid of held_mails (SQLite's is
# implicit), and the trigger that notifies the other daemons of each commit (one daemon holds a
# SQLite database).
PG_ONLY_TABLES = {"rookery_schema_version"}
PG_ONLY_COLUMNS = {("held_mails", "rowid")}
PG_ONLY_TRIGGERS = {"games_notify"}


def index_expressions(sql):
    """The keys of a CREATE INDEX statement as written: "lower(email)" for an expression."""
    body = sql[sql.index("(") + 1:]
    keys, depth, cur = [], 0, ""
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            keys.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return keys + [cur.strip()]


def sqlite_schema(conn):
    """{"tables": {name: {columns, primary key, unique, foreign keys, indexes}}, "triggers": {...}}"""
    tables = {}
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for t in names:
        d = tables[t] = new_table()
        rows = conn.execute(f"PRAGMA table_xinfo({t})").fetchall()
        d["primary key"] = [r[1] for r in sorted((r for r in rows if r[5]), key=lambda r: r[5])]
        for _, name, typ, notnull, default, pk, hidden in rows:
            numbered = d["primary key"] == [name] and typ.upper() == "INTEGER"   # the rowid
            d["columns"].append(column_text(name, SQLITE_TYPES.get(typ.upper(), "sqlite:" + typ),
                                            bool(notnull or pk), default, hidden in (2, 3), numbered))
        for _, iname, unique, origin, partial in conn.execute(f"PRAGMA index_list({t})"):
            if origin == "pk":
                continue
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (iname,)).fetchone()[0]
            written = index_expressions(sql) if sql else []
            keys = [f"lower({name})" if name and coll.upper() == "NOCASE" else name or written[n]
                    for n, (_, _, name, _, coll, key) in
                    enumerate(conn.execute(f"PRAGMA index_xinfo({iname})")) if key]
            if origin == "u" or (unique and iname.endswith("_key")):
                # A unique index named *_key is compared as a constraint (see pg_schema); the
                # NOCASE unique column and the lower(email) index of 0018 say the same.
                if ", ".join(keys) not in d["unique"]:
                    d["unique"].append(", ".join(keys))
                continue
            where = re.search(r"\bWHERE\b(.*)$", sql, re.S | re.I) if partial else None
            d["indexes"][iname] = index_text(unique, keys, where and where.group(1))
        fks = {}
        for fid, _, other, frm, to, _, on_delete, _ in conn.execute(f"PRAGMA foreign_key_list({t})"):
            fks.setdefault(fid, [other, [], [], on_delete])
            fks[fid][1].append(frm)
            fks[fid][2].append(to)
        d["foreign keys"] = sorted(f"({', '.join(f)}) -> {o}({', '.join(to)}) ON DELETE {od}"
                                   for o, f, to, od in fks.values())
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
        d["checks"] = sorted(check_text(c, [r[1] for r in rows]) for c in sqlite_checks(sql))
        d["unique"].sort()
    triggers = {name: trigger_event(sql) for name, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")}
    return {"tables": tables, "triggers": triggers}


def trigger_event(sql):
    """"INSERT ON moves", "UPDATE OF name, client_seed ON seats" (before or after does not matter:
    games_version runs before the row is written in PostgreSQL, after it in SQLite)."""
    m = re.search(r"\b(INSERT|UPDATE|DELETE)\b(\s+OF\s+(.*?))?\s+ON\s+(?:public\.)?(\w+)", sql, re.S | re.I)
    assert m, sql
    of = " OF " + ", ".join(c.strip() for c in m.group(3).split(",")) if m.group(3) else ""
    return f"{m.group(1).upper()}{of} ON {m.group(4)}"


PG_CATALOG = r"""
SELECT json_build_object(
 'columns', (SELECT json_agg(json_build_object('table', c.relname, 'name', a.attname,
        'type', format_type(a.atttypid, a.atttypmod), 'notnull', a.attnotnull,
        'default', CASE WHEN a.attgenerated = '' THEN pg_get_expr(d.adbin, d.adrelid) END,
        'generated', a.attgenerated <> '', 'identity', a.attidentity <> '', 'collation', co.collname)
        ORDER BY c.relname, a.attnum)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped),
 'constraints', (SELECT json_agg(json_build_object('table', c.relname, 'type', k.contype,
        'def', pg_get_constraintdef(k.oid)))
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND k.contype IN ('p', 'u', 'f', 'c')),
 'indexes', (SELECT json_agg(json_build_object('table', t.relname, 'name', i.relname, 'unique', x.indisunique,
        'constraint', EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid
                              AND k.contype IN ('p', 'u')),
        'keys', ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) k),
        'where', pg_get_expr(x.indpred, x.indrelid)))
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'),
 'triggers', (SELECT json_agg(json_build_object('name', g.tgname, 'def', pg_get_triggerdef(g.oid)))
    FROM pg_trigger g WHERE NOT g.tgisinternal))
"""


def pg_schema(pg, uri):
    """The same description as sqlite_schema's, from PostgreSQL's catalogs; and the text columns
    whose collation is not "C"."""
    cat = json.loads(pg.psql(PG_CATALOG, uri=uri))
    tables = {}
    not_c = []
    for c in cat["columns"] or []:
        if c["table"] in PG_ONLY_TABLES or (c["table"], c["name"]) in PG_ONLY_COLUMNS:
            continue
        d = tables.setdefault(c["table"], new_table())
        default = re.sub(r"::[\w ]+$", "", c["default"]) if c["default"] is not None else None
        d["columns"].append(column_text(c["name"], PG_TYPES.get(c["type"], "pg:" + c["type"]), c["notnull"],
                                        default, c["generated"], c["identity"]))
        if c["type"] == "text" and c["collation"] != "C":
            not_c.append(f"{c['table']}.{c['name']} ({c['collation']})")
    for k in cat["constraints"] or []:
        if k["table"] in PG_ONLY_TABLES:
            continue
        d = tables[k["table"]]
        if k["type"] == "p":
            d["primary key"] = [s.strip() for s in re.match(r"PRIMARY KEY \((.*)\)", k["def"]).group(1).split(",")]
        elif k["type"] == "u":
            d["unique"].append(re.match(r"UNIQUE \((.*)\)", k["def"]).group(1))
        elif k["type"] == "c":
            d["checks"].append(check_text(k["def"], [c.split()[0] for c in d["columns"]]))
        else:
            m = re.match(r"FOREIGN KEY \((.*?)\) REFERENCES (?:public\.)?(\w+)\((.*?)\)(.*)", k["def"])
            od = re.search(r"ON DELETE (CASCADE|SET NULL|SET DEFAULT|RESTRICT)", m.group(4))
            d["foreign keys"].append(f"({m.group(1)}) -> {m.group(2)}({m.group(3)}) ON DELETE "
                                     f"{od.group(1) if od else 'NO ACTION'}")
    for i in cat["indexes"] or []:
        d = tables[i["table"]]
        if i["constraint"]:
            continue
        if i["unique"] and i["name"].endswith("_key"):
            # A unique key on an expression (lower(email)) cannot be a constraint; it is an index
            # named as PostgreSQL names a column's UNIQUE constraint, and compared as one.
            d["unique"].append(", ".join(i["keys"]))
            continue
        d["indexes"][i["name"]] = index_text(i["unique"], i["keys"], i["where"])
    for d in tables.values():
        for what in ("unique", "foreign keys", "checks"):
            d[what].sort()
    triggers = {t["name"]: trigger_event(t["def"]) for t in cat["triggers"] or []
                if t["name"] not in PG_ONLY_TRIGGERS}
    return {"tables": tables, "triggers": triggers}, not_c


def differences(lite, pg):
    """Every way the two descriptions differ, one line each, naming the table and what differs."""
    out = []
    for t in sorted(set(lite["tables"]) | set(pg["tables"])):
        if t not in pg["tables"]:
            out.append(f"table {t}: only in SQLite")
            continue
        if t not in lite["tables"]:
            out.append(f"table {t}: only in PostgreSQL")
            continue
        a, b = lite["tables"][t], pg["tables"][t]
        for n, (x, y) in enumerate(itertools.zip_longest(a["columns"], b["columns"]), 1):
            if x != y:
                out.append(f"table {t}, column {n}: SQLite {x}, PostgreSQL {y}")
        for what in ("primary key", "unique", "foreign keys", "checks"):
            if a[what] != b[what]:
                out.append(f"table {t}, {what}:\n    SQLite:     {a[what]}\n    PostgreSQL: {b[what]}")
        for name in sorted(set(a["indexes"]) | set(b["indexes"])):
            if a["indexes"].get(name) != b["indexes"].get(name):
                out.append(f"table {t}, index {name}: SQLite {a['indexes'].get(name)}, "
                           f"PostgreSQL {b['indexes'].get(name)}")
    for name in sorted(set(lite["triggers"]) | set(pg["triggers"])):
        if lite["triggers"].get(name) != pg["triggers"].get(name):
            out.append(f"trigger {name}: SQLite {lite['triggers'].get(name)}, "
                       f"PostgreSQL {pg['triggers'].get(name)}")
    return out


# ---- the version triggers at work ----

def blob(sql, pg):
    """BLOB(hex) written as each backend reads a literal blob."""
    return re.sub(r"BLOB\((\w+)\)", (lambda m: f"decode('{m.group(1)}', 'hex')") if pg
                  else (lambda m: f"X'{m.group(1)}'"), sql)


GAME = ("INSERT INTO games (id, variant, rules_version, status, start_position, position, dice_seed, "
        "dice_commitment, created_at, updated_at, open_seats) VALUES ")

# A game's life, g1 with a seat left open, and g2 beside it: each step's statements, then the
# (version, listing) of each game after them, as migrations 0012, 0013, 0015 and 0016 say.
LIFE = [
    ("both games are created",
     [GAME + "('g1', 'nchess', 1, 'running', 'p0', 'p0', BLOB(01), 'c', 't1', 't1', 1), "
             "('g2', 'nchess', 1, 'running', 'p0', 'p0', BLOB(02), 'c', 't1', 't1', 0)"],
     {"g1": (1, "open"), "g2": (1, "active")}),
    ("g1's seats are stored, one of them open (no trigger on a new seat)",
     ["INSERT INTO seats (game_id, seat, name, token_hash) VALUES ('g1', 0, 'Ann', BLOB(a0))",
      "INSERT INTO seats (game_id, seat, name, token_hash, open) VALUES ('g1', 1, 'North', BLOB(a1), 1)"],
     {"g1": (1, "open"), "g2": (1, "active")}),
    ("a stranger takes the open seat: its name and open flag, two triggers",
     ["UPDATE seats SET name = 'Cat', open = 0, token_hash = BLOB(b1) WHERE game_id = 'g1' AND seat = 1"],
     {"g1": (3, "open"), "g2": (1, "active")}),
    ("the game starts: its row changes",
     ["UPDATE games SET open_seats = 0, updated_at = 't2' WHERE id = 'g1'"],
     {"g1": (4, "active"), "g2": (1, "active")}),
    ("its clock and the seats' clocks (a new game clock moves nothing, each seat clock does)",
     ["INSERT INTO game_clocks (game_id, type, base_s) VALUES ('g1', 'per_move', 86400)",
      "INSERT INTO seat_clocks (game_id, seat, remaining_s, running_since, deadline) "
      "VALUES ('g1', 0, 86400, 100, 86500), ('g1', 1, 86400, NULL, NULL)"],
     {"g1": (6, "active"), "g2": (1, "active")}),
    ("a move",
     ["INSERT INTO moves (game_id, ply, seat, move, channel, at, position_after) "
      "VALUES ('g1', 0, 0, 'm1', 'api', 't3', 'p1')"],
     {"g1": (7, "active"), "g2": (1, "active")}),
    ("the clocks turn (two rows), and a reminder is noted (not shown: no bump)",
     ["UPDATE seat_clocks SET running_since = NULL, deadline = NULL, remaining_s = 86300 WHERE game_id = 'g1' AND seat = 0",
      "UPDATE seat_clocks SET running_since = 200, deadline = 86600 WHERE game_id = 'g1' AND seat = 1",
      "UPDATE seat_clocks SET reminded = 1 WHERE game_id = 'g1' AND seat = 1"],
     {"g1": (9, "active"), "g2": (1, "active")}),
    ("a message",
     ["INSERT INTO messages (game_id, seq, from_seat, text, channel, at) VALUES ('g1', 1, 0, 'hi', 'api', 't4')"],
     {"g1": (10, "active"), "g2": (1, "active")}),
    ("a draw offer",
     ["INSERT INTO actions (game_id, seq, ply, seat, action, channel, at) VALUES ('g1', 1, 1, 1, 'offer', 'web', 't5')"],
     {"g1": (11, "active"), "g2": (1, "active")}),
    ("a seat's client seed",
     ["UPDATE seats SET client_seed = 'seed' WHERE game_id = 'g1' AND seat = 0"],
     {"g1": (12, "active"), "g2": (1, "active")}),
    ("a seat's mail bookkeeping and a conditional tree (not shown: no bump)",
     ["UPDATE seats SET email = 'ann@example.org', reply_serial = 1, messages_mailed = 1 WHERE game_id = 'g1' AND seat = 0",
      "INSERT INTO conditionals (game_id, seat, from_ply, tree) VALUES ('g1', 0, 2, '[]')"],
     {"g1": (12, "active"), "g2": (1, "active")}),
    ("the time control and a stored move change",
     ["UPDATE game_clocks SET base_s = 172800 WHERE game_id = 'g1'",
      "UPDATE moves SET note = 'n' WHERE game_id = 'g1' AND ply = 0"],
     {"g1": (14, "active"), "g2": (1, "active")}),
    ("both seats are renamed by one statement (a bump a row)",
     ["UPDATE seats SET name = name || '!' WHERE game_id = 'g1'"],
     {"g1": (16, "active"), "g2": (1, "active")}),
    ("g1 ends, and its version is then set outright (no bump on top)",
     ["UPDATE games SET status = 'over', result = 'r' WHERE id = 'g1'",
      "UPDATE games SET version = version + 5 WHERE id = 'g1'"],
     {"g1": (22, "finished"), "g2": (1, "active")}),
    ("g2 lapses with a seat open: in no list",
     ["UPDATE games SET status = 'over', open_seats = 1 WHERE id = 'g2'"],
     {"g1": (22, "finished"), "g2": (2, None)}),
]

STATE = "SELECT id, version, listing FROM games ORDER BY id"


def sqlite_state(conn):
    return {gid: (v, listing) for gid, v, listing in conn.execute(STATE)}


def pg_state(pg, uri, statements):
    """The games' (version, listing) after the statements, run in one session."""
    out = {}
    for line in pg.psql(statements + [STATE], uri=uri).splitlines():
        gid, v, listing = line.split("|")
        out[gid] = (int(v), listing or None)
    return out


def first_divergence(conn, pg, uri):
    """Run LIFE on both; the first step after which a game's (version, listing) differs between
    them or from what the step expects, as a sentence; None when they agree all along."""
    for what, statements, want in LIFE:
        for sql in statements:
            conn.execute(blob(sql, False))
        lite, other = sqlite_state(conn), pg_state(pg, uri, [blob(sql, True) for sql in statements])
        if lite != other or lite != want:
            return f"after '{what}': SQLite {lite}, PostgreSQL {other}, expected {want}"
    return None


# ---- the tests ----

class Schema(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.pg = postgres.private(cls)

    def sqlite(self, folder=SQLITE_DIR):
        conn = sqlite_migrated(folder)
        self.addCleanup(conn.close)
        return conn

    def postgresql(self, name, folder=PG_DIR):
        uri = self.pg.create_database(name)
        pg_migrated(self.pg, uri, folder)
        return uri

    def tampered(self, edits, drop=()):
        """A copy of migrations/postgresql with each file's (old, new) replacements made and the
        files in drop left out."""
        folder = tempfile.mkdtemp(prefix="rookery-pg-schema-")
        self.addCleanup(shutil.rmtree, folder, True)
        for name in migration_files(PG_DIR):
            if name in drop:
                continue
            with open(os.path.join(PG_DIR, name), encoding="utf-8") as f:
                text = f.read()
            for old, new in edits.get(name, ()):
                self.assertIn(old, text, f"the tampering of {name} must find what it changes")
                text = text.replace(old, new)
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        return folder

    def test_every_migration_has_its_postgresql_counterpart(self):
        self.assertEqual(missing_migrations(SQLITE_DIR, PG_DIR), [])
        self.assertGreaterEqual(len(migration_files(PG_DIR)), 17)

    def test_the_schemas_are_the_same(self):
        lite = sqlite_schema(self.sqlite())
        pg, not_c = pg_schema(self.pg, self.postgresql("same"))
        self.assertGreater(len(lite["tables"]), 15)
        self.assertGreater(len(lite["triggers"]), 8)
        diff = differences(lite, pg)
        self.assertEqual(diff, [], "the PostgreSQL migrations drifted from the SQLite ones:\n" + "\n".join(diff))
        self.assertEqual(not_c, [], 'text columns must be COLLATE "C", as SQLite compares text')

    def test_the_version_triggers_behave_the_same(self):
        self.assertIsNone(first_divergence(self.sqlite(), self.pg, self.postgresql("life")))

    def test_a_missing_migration_is_found(self):
        folder = self.tampered({}, drop=("0017_open_games_lapse.sql",))
        self.assertEqual(missing_migrations(SQLITE_DIR, folder),
                         ["migrations/0017_open_games_lapse.sql has no PostgreSQL counterpart"])
        diff = differences(sqlite_schema(self.sqlite()),
                           pg_schema(self.pg, self.postgresql("missing", folder))[0])
        self.assertEqual(diff, ["table games, index games_open_until: SQLite (open_until) WHERE "
                                "status = 'running' and open_seats > 0, PostgreSQL None"])

    def test_a_differing_column_index_or_trigger_is_found(self):
        folder = self.tampered({
            "0003_move_places.sql": [("ADD COLUMN places", "ADD COLUMN squares")],
            "0011_player_tokens.sql": [("expires_at BIGINT", "expires_at INTEGER")],
            "0009_mail_prefs.sql": [("digest_day BIGINT NOT NULL DEFAULT 0", "digest_day BIGINT NOT NULL DEFAULT 1")],
            "0004_seats_email_nocase.sql": [("(lower(email))", "(email)")],
            "0013_messages.sql": [("CREATE TRIGGER messages_version AFTER INSERT ON messages\n\tFOR EACH ROW", "--")],
            "0001_init.sql": [('email      TEXT COLLATE "C"', "email      TEXT"),
                              ("CHECK (status IN ('running', 'over'))", "CHECK (status IN ('running'))")],
            "0010_vacation.sql": [("CHECK (end_at >= start_at)", "CHECK (end_at > 0)")],
        })
        lite = sqlite_schema(self.sqlite())
        uri = self.postgresql("tampered", folder)
        pg, not_c = pg_schema(self.pg, uri)
        diff = "\n".join(differences(lite, pg))
        for part in ("table moves, column 11: SQLite places text NOT NULL DEFAULT '[]', "
                     "PostgreSQL squares text NOT NULL DEFAULT '[]'",
                     "table player_tokens, column 3: SQLite expires_at integer NOT NULL, "
                     "PostgreSQL expires_at pg:integer NOT NULL",
                     "table addresses, column 10: SQLite digest_day integer NOT NULL DEFAULT 0, "
                     "PostgreSQL digest_day integer NOT NULL DEFAULT 1",
                     "index seats_email_nocase: SQLite (lower(email)), PostgreSQL (email)",
                     "trigger messages_version: SQLite INSERT ON messages, PostgreSQL None",
                     "table games, checks:\n    SQLite:     [\"(status) ['over', 'running'] []\"]\n"
                     "    PostgreSQL: [\"(status) ['running'] []\"]",
                     "table vacations, checks:\n    SQLite:     ['(end_at, start_at) [] []']\n"
                     "    PostgreSQL: ['(end_at) [] [0]']"):
            self.assertIn(part, diff)
        self.assertEqual(not_c, ["seats.email (default)"])
        self.assertIn("after 'a message'", first_divergence(self.sqlite(), self.pg,
                                                            self.postgresql("tampered_life", folder)))

    def test_outbox_kept_keeps_what_sqlite_keeps(self):
        """0007's rookery_outbox_kept: the headers db/db_mail.c keeps, in any case, with their
        continuation lines, up to the first empty line; then DB_OUTBOX_WIPED of db/db.h."""
        with open(os.path.join(ROOT, "db", "db.h"), encoding="utf-8") as f:
            wiped = re.search(r'#define DB_OUTBOX_WIPED "(.*)"', f.read()).group(1)
        message = ("Date: Thu, 26 Nov 2026 12:00:00 +0000\r\nFROM: Rookery <r@example.org>\r\n"
                   "Reply-To: play+g1-0-1-abc@example.org\r\nSubject: A long\r\n subject\r\n"
                   "X-Seat: secret\r\n continued secret\r\nMessage-ID: <m@example.org>\r\n"
                   "Subjectless line\r\n\r\nTo: not a header but the body\r\nhttp://seat-link\r\n")
        want = ("Date: Thu, 26 Nov 2026 12:00:00 +0000\r\nFROM: Rookery <r@example.org>\r\n"
                "Subject: A long\r\n subject\r\nMessage-ID: <m@example.org>\r\n"
                f"\n{wiped}\n")
        uri = self.postgresql("kept")
        # Through hex, so that psql's output keeps every carriage return and line feed.
        got = self.pg.psql("SELECT encode(convert_to(rookery_outbox_kept(convert_from("
                           f"decode('{message.encode().hex()}', 'hex'), 'UTF8')), 'UTF8'), 'hex')", uri=uri)
        self.assertEqual(bytes.fromhex(got.strip()).decode(), want)
        self.assertEqual(self.pg.psql("SELECT rookery_outbox_kept(NULL) IS NULL", uri=uri).strip(), "t")


if __name__ == "__main__":
    unittest.main(verbosity=2)
