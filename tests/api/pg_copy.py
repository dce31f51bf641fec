#!/usr/bin/env python3
"""pg_copy.py - `rookery copy --from PATH --to URI`: an installation moved from SQLite to PostgreSQL.

usage: pg_copy.py path/to/rookery [unittest options]

A daemon on SQLite plays games of every variant (the Civil War variants too) some plies, with
dice, messages, a stored conditional tree, mail sent to confirmed addresses, a mail still queued
and a clock; it is stopped and its database copied into a private PostgreSQL (tests/harness/postgres.py). The copy
lists every table of the schema with its rows; a daemon on the copy answers every game, its
moves, dice record and record as the first did (the games' versions too), takes the old seat
tokens, acts on a reply to a mail the first daemon sent (whose conditional answer follows).
The attacks: a destination holding rows, a bad URI, a missing or foreign source, a source or a
destination of a newer schema, and a source whose stored positions the moves do not reach: each
refused with its own exit status, and the destination left as it was.

Python standard library only.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, postgres  # noqa: E402
from harness.daemon import SANITIZER_MARKS, Daemon  # noqa: E402
from records import CYVASSE_WHITE  # noqa: E402

DOMAIN = "rook.test"
BASE = "https://games.example.org"   # the same for both daemons: records and mails name it
ANN, BEN = "ann@example.org", "ben@example.org"
# South's conditional line in Nchess after S 7 1 6 1 (tests/api/conditional.py's first branch).
TREE = {"if": [{"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3"}]}
# The exit statuses of `rookery copy` (service/daemon/copy.h).
USAGE, VERIFY, SOURCE, DESTINATION, NOT_EMPTY = 64, 65, 66, 69, 73

pg = None


def setUpModule():
    global pg
    pg = postgres.Postgres().start()


def tearDownModule():
    pg.stop()


def copy(source, target, *extra):
    """rookery copy; its result, after checking that no sanitizer spoke."""
    r = subprocess.run([daemon.ROOKERY, "copy", "--from", source, "--to", target, *extra],
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, r.stderr
    return r


def copied_rows(stdout):
    """What the copy printed: {table: rows}."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^  (\w+) +(\d+) rows?$", stdout, re.M)}


def sqlite_rows(path):
    """{table: rows} of every table of an SQLite database (but SQLite's own)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()


def pg_rows(uri):
    """{table: rows} of every table of the PostgreSQL database (the schema version's too)."""
    out = {}
    for t in pg.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", uri=uri).split():
        out[t] = int(pg.psql(f'SELECT count(*) FROM "{t}"', uri=uri))
    return out


def pg_table(uri, table):
    """Every row of a PostgreSQL table as JSON objects (a bytea as "\\x" and hex digits)."""
    return json.loads(pg.psql(f'SELECT coalesce(json_agg(row_to_json(r)), \'[]\') FROM "{table}" r', uri=uri))


def sqlite_table(path, table, columns):
    """The rows of an SQLite table as pg_table writes them, with the columns named (rowid too)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(f'SELECT {", ".join(columns)} FROM "{table}"').fetchall()
    finally:
        conn.close()
    as_pg = lambda v: "\\x" + v.hex() if isinstance(v, bytes) else v
    return [{c: as_pg(v) for c, v in zip(columns, row)} for row in rows]


def pg_state(uri):
    """Everything a refused copy must leave alone: the rows of each table, the schema version,
    each game's version."""
    rows = pg_rows(uri)
    versions = pg.psql("SELECT id, version FROM games ORDER BY id", uri=uri) if "games" in rows else ""
    schema = pg.psql("SELECT version FROM rookery_schema_version", uri=uri) if "rookery_schema_version" in rows else ""
    return rows, versions, schema


def seat_names(d):
    return {v["id"]: [s if isinstance(s, str) else s["seat"] for s in v["seats"]]
            for v in d.get("/api/variants").json()["variants"]}


def play_some(d, gid, tokens, plies, rnd):
    """Up to plies moves of whoever is to move, captures first (Civil War's attacks roll), each
    a legal move the seat's view offers; a partial one the server refuses is passed over."""
    for _ in range(plies):
        g = d.game(gid)
        if g["status"] != "running" or not g["turn"]:
            return
        seat = g["turn"][0]
        view = d.game(gid, tokens[seat])
        moves = view["legal_moves"][:]
        rnd.shuffle(moves)
        moves.sort(key=lambda m: "x" not in m)
        for m in moves:
            r = d.move(gid, tokens[seat], m, view["ply"])
            if r.status == 201:
                break
        else:
            raise AssertionError(f"{gid}: none of {seat}'s legal moves was accepted: {moves[:5]}")


def wait_for(what, check, timeout=20):
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout}s")
        time.sleep(0.1)


class MovedInstallation(unittest.TestCase):
    """One installation played on SQLite, copied, then served from PostgreSQL."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rookery-copy-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.uri = pg.create_database("moved")
        old = cls.old = Daemon("--reply-domain", DOMAIN, "--base-url", BASE, workdir=os.path.join(cls.tmp, "old"))
        os.mkdir(old.workdir)
        cls.addClassCleanup(old.kill)
        old.start()
        cls.games, cls.tokens = [], {}
        rnd = random.Random(20261126)
        for variant, seats in seat_names(old).items():
            gid, tokens, _ = old.create_game(tuple(f"{variant[:6]} {s}" for s in seats), variant=variant)
            if variant == "cyvasse":     # the hidden setups, the second rolling who begins
                for ply, (seat, setup) in enumerate((("White", "setup default"), ("White", CYVASSE_WHITE),
                                                     ("Black", "setup default"))):
                    assert old.move(gid, tokens[seat], setup, ply).status == 201
            play_some(old, gid, tokens, 12 if variant.startswith("civil-war") else 6, rnd)
            cls.games.append(gid)
            cls.tokens[gid] = tokens
        # An Nchess game by mail, with a clock: both addresses confirmed, a move, messages, and
        # South's conditional line waiting for North's reply.
        gid, tokens, _ = old.create_game(("Ann", "Ben"), (ANN, BEN), clock={"type": "per_move", "days": 3})
        cls.mailed, cls.games, cls.tokens[gid] = gid, cls.games + [gid], tokens
        old.confirm_by_invitation(gid, ANN)
        old.confirm_by_invitation(gid, BEN)
        assert old.move(gid, tokens["South"], "S 7 1 6 1", 0).status == 201
        r = old.request("PUT", f"/api/games/{gid}/conditional", TREE, token=tokens["South"])
        assert r.status == 200, r
        for token, body in ((tokens["South"], {"text": "Good luck, Ben"}),
                            (tokens["North"], {"text": "Thanks, just for you", "to": "South"})):
            r = old.post(f"/api/games/{gid}/messages", body, token=token)
            assert r.status == 201, r
        wait_for("the mail of South's move to Ben", lambda: cls.your_move_mail(old, gid) is not None)
        # What the API answers, to be answered alike from the copy.
        old.stop()
        # The same database served again with a mail server that is not there: a new game's
        # invitation stays queued, tried once, for the copy to carry.
        again = Daemon("--reply-domain", DOMAIN, "--base-url", BASE, "--smtp", f"smtp://127.0.0.1:{daemon.free_port()}",
                       "--mail-retry", "3600", db=old.db, workdir=old.workdir)
        cls.addClassCleanup(again.kill)
        again.start()
        gid, cls.tokens[gid], _ = again.create_game(("Cy", "Di"), ("cy@example.org", None))
        cls.games.insert(0, gid)
        wait_for("a mail tried and queued again", lambda: daemon.db_query(
            old.db, "SELECT count(*) FROM outbox WHERE state = 'queued' AND attempts > 0")[0][0] > 0)
        cls.before = {g: cls.answers(again, g) for g in cls.games}
        again.stop()
        old.secrets.update(again.secrets)
        cls.source_rows = sqlite_rows(old.db)
        cls.result = copy(old.db, cls.uri)
        cls.copied = {t: pg_table(cls.uri, t) for t in cls.source_rows} if cls.result.returncode == 0 else {}
        new = cls.new = Daemon("--reply-domain", DOMAIN, "--base-url", BASE, "--sockets", os.path.join(cls.tmp, "new"),
                               "--maildir", os.path.join(cls.tmp, "new-mail"), db=cls.uri,
                               workdir=os.path.join(cls.tmp, "newd"))
        os.mkdir(new.workdir)
        cls.addClassCleanup(new.kill)
        if cls.result.returncode == 0:
            new.secrets.update(old.secrets)
            new.start()
            cls.after = {g: cls.answers(new, g) for g in cls.games}

    @classmethod
    def tearDownClass(cls):
        if cls.new.proc:
            cls.new.stop()

    @staticmethod
    def your_move_mail(d, gid):
        """The mail of game gid that told Ben of South's first move, in d's maildir, or None."""
        mails = [m for m in d.maildir_mails() if m["To"].addresses[0].addr_spec == BEN
                 and m["Message-ID"].startswith(f"<{gid}.") and m["Reply-To"] is not None
                 and "S 7 1 6 1" in m.get_body(("plain",)).get_content()]
        return mails[-1] if mails else None

    @staticmethod
    def answers(d, gid):
        """A game as the API shows it: the public view (without the clock's time left, which
        runs), its moves, its dice record, its record, and each seat's view."""
        game = d.game(gid)
        game.pop("clock", None)
        record = d.get(f"/api/games/{gid}/record")
        assert record.status == 200, record
        seats = {}
        for seat, token in MovedInstallation.tokens[gid].items():
            view = d.game(gid, token)
            view.pop("clock", None)
            seats[seat] = view
        return {"game": game, "moves": d.all_moves(gid), "dice": d.dice_record(gid), "record": record.text,
                "seats": seats}

    def setUp(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def test_every_table_is_copied_and_counted(self):
        printed = copied_rows(self.result.stdout)
        self.assertEqual(printed, self.source_rows, "the copy names every table of the schema with its rows")
        for table in ("games", "moves", "seats", "messages", "conditionals", "outbox", "addresses", "settings",
                      "game_clocks", "seat_clocks", "rate_limits"):
            self.assertGreater(printed[table], 0, f"the installation had rows in {table}")
        states = pg.psql("SELECT DISTINCT state FROM outbox", uri=self.uri).split()
        self.assertLessEqual({"sent", "queued"}, set(states), "mails sent and mails still queued")
        self.assertIn("checked:", self.result.stdout)
        self.assertRegex(self.result.stdout, rf"{len(self.games)} games replayed")
        target = pg_rows(self.uri)
        target.pop("rookery_schema_version")
        self.assertEqual(set(target), set(self.source_rows), "the same tables on both sides")

    def test_every_row_is_the_same(self):
        """Row by row, as the copy left them before a daemon started on them: the keys of the
        settings, the games' versions, the outbox's ids, the held mails' order (rowid) too."""
        for table, rows in self.copied.items():
            with self.subTest(table=table):
                columns = list(rows[0]) if rows else []
                self.assertEqual(len(rows), self.source_rows[table])
                if rows:
                    key = lambda r: json.dumps(r, sort_keys=True)
                    self.assertEqual(sorted(rows, key=key), sorted(sqlite_table(self.old.db, table, columns), key=key))

    def test_the_api_answers_alike(self):
        for gid in self.games:
            with self.subTest(game=gid):
                self.assertEqual(self.after[gid], self.before[gid])
        self.assertTrue(any(self.before[g]["dice"]["rolls"] for g in self.games), "some game rolled dice")

    def test_new_rows_are_numbered_past_the_copied_ones(self):
        identities = pg.psql("SELECT table_name, column_name FROM information_schema.columns "
                             "WHERE table_schema = 'public' AND is_identity = 'YES'", uri=self.uri).split()
        self.assertIn("outbox|id", identities)
        for table, column in (i.split("|") for i in identities):
            with self.subTest(table=table):
                last = int(pg.psql(f"SELECT coalesce(max({column}), 0) FROM {table}", uri=self.uri))
                following = int(pg.psql(f"SELECT nextval(pg_get_serial_sequence('{table}', '{column}'))",
                                        uri=self.uri))
                self.assertGreater(following, last)

    def test_old_tokens_and_an_old_reply_address_act(self):
        d, gid, tokens = self.new, self.mailed, self.tokens[self.mailed]
        mail = self.your_move_mail(self.old, gid)
        message = (f"From: {BEN}\r\nTo: {mail['Reply-To'].addresses[0].addr_spec}\r\n"
                   f"Subject: Re: {mail['Subject']}\r\nMessage-ID: <copy-{time.time_ns()}@example.org>\r\n"
                   f"In-Reply-To: {mail['Message-ID']}\r\n\r\nc 1 1 2 1\r\n").encode()
        r = subprocess.run([daemon.ROOKERY, "mail-in", "--db", self.uri, "--sockets", os.path.join(self.tmp, "new")],
                           input=message, capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode() + self.new.stderr()[-3000:] + pg.server_log()[-3000:])
        # Ben's move by mail, then South's conditional answer, stored before the copy.
        moves = d.all_moves(gid)
        self.assertEqual([(m["seat"], m["move"]) for m in moves[1:]], [("North", "c 1 1 2 1"), ("South", "S 7 3 6 3")])
        self.assertEqual(d.move(gid, tokens["North"], "m 1 3 2 4", 3).status, 201, "North's old token plays")
        for gid in self.games[:-1]:
            g = d.game(gid)
            if g["status"] == "running" and g["turn"]:
                play_some(d, gid, self.tokens[gid], 1, random.Random(1))
                self.assertEqual(d.game(gid)["ply"], g["ply"] + 1)


class Refusals(unittest.TestCase):
    """Copies refused, each with its exit status, and the destination left as it was."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rookery-copy-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        d = cls.d = Daemon(workdir=os.path.join(cls.tmp, "d"))
        os.mkdir(d.workdir)
        cls.addClassCleanup(d.kill)
        d.start()
        gid, tokens, _ = d.create_game()
        d.play(gid, tokens, ["S 7 1 6 1", "c 1 1 2 1", "S 7 3 6 3"])
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        cls.d.stop()

    def fresh(self):
        Refusals.n += 1
        return pg.create_database(f"refusals{Refusals.n}")

    def migrated(self, sql):
        """A fresh database given the schema by rookery migrate, then sql."""
        target = self.fresh()
        r = daemon.run_rookery("migrate", "--db", target)
        self.assertEqual(r.returncode, 0, r.stderr)
        pg.psql(sql, uri=target)
        return target

    def assertRefused(self, source, target, status, said):
        """Copying source into target exits with status, saying said, and changes nothing there."""
        before = pg_state(target)
        r = copy(source, target)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertIn(said, r.stderr)
        self.assertEqual(pg_state(target), before)

    def test_a_running_daemons_database_copies(self):
        r = copy(self.d.db, self.fresh())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(copied_rows(r.stdout)["moves"], 3)
        # Into a database given the schema already, and nothing else, as well.
        r = copy(self.d.db, self.migrated("SELECT 1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(copied_rows(r.stdout)["games"], 1)

    def test_a_destination_holding_rows_is_left_alone(self):
        full = self.fresh()
        self.assertEqual(copy(self.d.db, full).returncode, 0)
        self.assertRefused(self.d.db, full, NOT_EMPTY, "not empty")
        # One row anywhere is enough: a rate limit in a database migrated and otherwise empty.
        one = self.migrated("INSERT INTO rate_limits (key, window_start, count) VALUES ('x', 0, 1)")
        self.assertRefused(self.d.db, one, NOT_EMPTY, "rate_limits")

    def test_bad_arguments_and_unreachable_destinations(self):
        target = self.fresh()
        for args in ([], ["--from", self.d.db], ["--to", target], ["--from", self.d.db, "--to", target, "extra"],
                     ["--from", self.d.db, "--to", os.path.join(self.tmp, "other.db")],
                     ["--from", target, "--to", target]):
            r = subprocess.run([daemon.ROOKERY, "copy", *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, USAGE, (args, r.stderr))
        for bad in (f"postgresql://rookery@127.0.0.1:{daemon.free_port()}/rookery",
                    pg.uri.rsplit("/", 1)[0] + "/no_such_database", "postgresql://rookery@[::1"):
            r = copy(self.d.db, bad)
            self.assertEqual(r.returncode, DESTINATION, (bad, r.stderr))
        self.assertEqual(pg_state(target), ({}, "", ""), "nothing was written anywhere")
        r = subprocess.run([daemon.ROOKERY, "copy", "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0)
        self.assertIn("73", r.stdout)

    def test_a_missing_or_foreign_source(self):
        target = self.fresh()
        garbage = os.path.join(self.tmp, "garbage.db")
        with open(garbage, "wb") as f:
            f.write(b"not a database at all, not even its header" * 100)
        for source in (os.path.join(self.tmp, "missing.db"), garbage):
            r = copy(source, target)
            self.assertEqual(r.returncode, SOURCE, r.stderr)
            self.assertIn("cannot read", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "missing.db")), "a missing source is not created")
        self.assertEqual(pg_state(target), ({}, "", ""))

    def source_copy(self, name):
        """A copy of the daemon's database (made by the daemon's own backup) to spoil."""
        path = os.path.join(self.tmp, name)
        r = daemon.run_rookery("backup", "--db", self.d.db, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def test_newer_schemas_are_refused(self):
        newer = self.source_copy("newer.db")
        conn = sqlite3.connect(newer)
        conn.execute("PRAGMA user_version = 999")
        conn.close()
        target = self.fresh()
        self.assertRefused(newer, target, SOURCE, "newer")
        self.assertEqual(pg_state(target), ({}, "", ""))
        self.assertRefused(self.d.db, self.migrated("UPDATE rookery_schema_version SET version = 999"),
                           DESTINATION, "newer")

    def test_a_difference_rolls_everything_back(self):
        for name, spoil, said in (
                ("position.db", "UPDATE games SET position = (SELECT position_after FROM moves WHERE ply = 0)",
                 "do not reach its position"),
                ("move.db", "UPDATE moves SET move = 'S 1 1 1 1' WHERE ply = 2", "ply 2 cannot be replayed"),
                ("after.db", "UPDATE moves SET position_after = (SELECT start_position FROM games) WHERE ply = 1",
                 "does not reach the position stored")):
            with self.subTest(spoiled=name):
                source = self.source_copy(name)
                conn = sqlite3.connect(source)
                conn.execute(spoil)
                conn.commit()
                conn.close()
                target = self.fresh()
                r = copy(source, target)
                self.assertEqual(r.returncode, VERIFY, r.stderr)
                self.assertIn(said, r.stderr)
                self.assertIn("rolled back", r.stderr)
                self.assertEqual(pg_state(target), ({}, "", ""), "not even the schema is left")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
