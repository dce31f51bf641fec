#!/usr/bin/env python3
"""disk_failure.py - the disk fails under the daemon: writes and syncs error out, then recover.

usage: disk_failure.py path/to/rookery path/to/libfaultvfs.so [unittest options]

The unchanged daemon runs with tests/api/faultvfs.c preloaded (LD_PRELOAD): an SQLite VFS wrapping
"unix" whose xWrite, xTruncate and xSync fail while a trigger file exists (optionally after
letting a given number of calls through, so that the failure strikes in the middle of a commit
or of the checkpoint after one; optionally only the syncs, or only the main database file).

test_disk_failures_lose_nothing_acknowledged: over twenty cycles the test plays legal moves
in games of several variants (some with email addresses, so that moves queue mail), switches
the fault on (for a request or two, or for a long stretch; every write and sync, or only the
syncs: a commit's WAL frames written, its fsync failing), and checks that meanwhile

  - moves, game creation and the HTML move form fail with 500 `internal` or 503 `unavailable`
    (the API's JSON error shape; an HTML error page for the form), never 201 once a write has
    failed;
  - reads (the game, its moves, its page, the home page) still answer 200, or else fail
    cleanly with a 5xx;
  - the daemon stays up;

and, once the fault is switched off, that every game is at its last acknowledged ply and the
very move that failed is now accepted as new (201, not a 200 "duplicate": the failure stored
nothing). In one cycle the daemon is stopped and started again while the disk fails. At the
end the mail worker must have caught up (every queued mail delivered once and recorded as
sent); the daemon is stopped with SIGTERM (clean exit, no sanitizer report); the database,
read with a read-only connection, holds exactly the acknowledged moves in order and passes
PRAGMA integrity_check; a restarted daemon serves the same games and plays on.

test_checkpoint_failures_lose_nothing: only the main database file fails, so commits (to the
WAL) succeed and are acknowledged while every checkpoint fails, the first one half-way; the
same checks afterwards.

Python standard library only.
"""
import os
import random
import re
import sqlite3
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.fault import FaultDaemon, vfs_argument as fault_vfs_argument  # noqa: E402
from harness.pages import hidden_fields  # noqa: E402

FAULTVFS = ""                      # the fault VFS (faultvfs.c), from the command line
CYCLES = 20
LONG_CYCLES = (4, 11, 17)          # cycles whose fault lasts a long stretch of requests
LONG_STRETCH = 60
CHECKPOINT_MOVES_MAX = 3000
STOP_CYCLE = 9                     # the daemon is stopped while this cycle's fault is on
VARIANTS = ("nchess", "nchess", "conversion-chess", "complex-allegiance", "civil-war")
SERVER_ERRORS = {500: "internal", 503: "unavailable"}


class Game:
    """One game the test plays, with what the server acknowledged of it."""

    def __init__(self, gid, variant, tokens):
        self.gid = gid
        self.variant = variant
        self.tokens = tokens           # seat name -> token
        self.acked = []                # canonical moves the server acknowledged, ply by ply
        self.done = False              # over, or no complete move to choose from


class DiskFailureTests(unittest.TestCase):

    def setUp(self):
        self.rnd = random.Random(20261207)
        self.d = FaultDaemon(vfs=FAULTVFS)
        self.addCleanup(self.d.cleanup)
        self.d.start()
        self.variants = {v["id"]: v for v in self.d.get("/api/variants").json()["variants"]}
        self.extra_games = 0           # games created while the fault was on, and acknowledged
        self.stopped_under_fault = False
        self.stats = {"moves_acked": 0, "failed_writes": 0, "reads_under_fault": 0,
                      "reads_failed": 0, "form_posts": 0, "creates_refused": 0}

    # ---- helpers ----

    def create(self, variant, mail=False):
        """A new game; with mail, its seats have email addresses, so that moves queue mail."""
        seats = self.variants[variant]["seats"]
        r = self.d.post("/api/games", {"variant": variant, "seats": [
            {"name": f"P{i}", **({"email": f"p{i}@example.org"} if mail else {})} for i in range(len(seats))]})
        self.assertEqual(r.status, 201, r)
        body = r.json()
        tokens = {s["seat"]: s["token"] for s in body["seats"]}
        self.d.secrets.update(tokens.values())
        return Game(body["id"], variant, tokens)

    def next_move(self, g):
        """(seat, move, ply) of a complete legal move in g's current position, or None."""
        pub = self.d.game(g.gid)
        if pub["status"] != "running" or not pub["turn"]:
            return None
        seat = pub["turn"][0]
        mine = self.d.game(g.gid, g.tokens[seat])
        options = [o["move"] for o in mine.get("legal", [])
                   if not o.get("partial") and not o["move"].startswith("resign")]
        if not options:
            return None
        return seat, self.rnd.choice(options), pub["ply"]

    def play_ok(self, g, planned=None):
        """Play planned (or a fresh legal move) in g; it must be accepted as new."""
        if planned is None:
            planned = self.next_move(g)
            if planned is None:
                g.done = True
                return None
        seat, move, ply = planned
        self.assertEqual(ply, len(g.acked), f"game {g.gid}: not at its last acknowledged ply")
        r = self.d.move(g.gid, g.tokens[seat], move, ply)
        self.assertEqual(r.status, 201, f"game {g.gid} ply {ply} {move!r}: {r}")
        body = r.json()
        self.assertEqual((body["ply"], body["duplicate"]), (ply, False), body)
        g.acked.append(body["move"])
        self.stats["moves_acked"] += 1
        return body

    def assert_server_error(self, r, what, html=False):
        self.assertIn(r.status, SERVER_ERRORS, f"{what}: expected 500 or 503 under a disk fault, got {r}")
        ctype = r.header("Content-Type") or ""
        if html:
            self.assertTrue(ctype.startswith("text/html"), f"{what}: {ctype}")
            self.assertIn("</html>", r.text.lower(), what)
        else:
            self.assertTrue(ctype.startswith("application/json"), f"{what}: {ctype}")
            self.assertEqual(r.json()["error"]["code"], SERVER_ERRORS[r.status], f"{what}: {r}")

    def assert_read(self, r, what):
        """A read under the fault: 200, or a clean server error."""
        self.stats["reads_under_fault"] += 1
        if r.status == 200:
            return True
        self.stats["reads_failed"] += 1
        self.assert_server_error(r, what, html="/api/" not in what)
        return False

    def assert_at_acked_ply(self, g):
        pub = self.d.game(g.gid)
        self.assertEqual(pub["ply"], len(g.acked), f"game {g.gid}")
        moves = self.d.all_moves(g.gid)
        self.assertEqual([m["move"] for m in moves], g.acked, f"game {g.gid}: the move list")

    # ---- under the fault ----

    def failing_requests(self, games, count, pending):
        """count requests while the fault is on; pending: game -> the move it failed to store."""
        live = [g for g in games if not g.done]
        baseline = len(self.d.faults_injected())
        for i in range(count):
            before = len(self.d.faults_injected()) - baseline      # failures injected this cycle
            g = self.rnd.choice(live)
            kind = self.rnd.choice(("move", "move", "move", "read", "form", "create")) if i else "move"
            if kind == "move":
                planned = pending.get(g) or self.next_move(g)
                if planned is None:
                    continue
                seat, move, ply = planned
                r = self.d.move(g.gid, g.tokens[seat], move, ply)
                if before == 0 and r.status == 201:
                    # The shim let a few calls through first (a countdown), and this commit
                    # finished within them: acknowledged, so it must last.
                    body = r.json()
                    self.assertEqual(body["ply"], len(g.acked), body)
                    g.acked.append(body["move"])
                    self.stats["moves_acked"] += 1
                    pending.pop(g, None)
                    continue
                self.assert_server_error(r, f"move {move!r} in game {g.gid} (faults so far: {before})")
                self.stats["failed_writes"] += 1
                pending[g] = planned
            elif kind == "read":
                self.assert_read(self.d.get(f"/api/games/{g.gid}"), "GET /api/games/{id}")
                self.assert_read(self.d.get(f"/api/games/{g.gid}/moves"), "GET /api/games/{id}/moves")
                seat = next(iter(g.tokens))
                self.assert_read(self.d.get(f"/games/{g.gid}?seat={g.tokens[seat]}"), "GET /games/{id}")
                self.assert_read(self.d.get("/"), "GET /")
            elif kind == "form":
                planned = pending.get(g) or self.next_move(g)
                if planned is None:
                    continue
                seat, move, ply = planned
                page = self.d.get(f"/games/{g.gid}?seat={g.tokens[seat]}")
                if not self.assert_read(page, "GET /games/{id}"):
                    continue
                fields = hidden_fields(page.text, f"/games/{g.gid}/move")
                r = self.d.post_form(f"/games/{g.gid}/move", {**fields, "move": move})
                if before == 0 and r.status == 303:
                    g.acked.append(self.d.all_moves(g.gid)[-1]["move"])
                    self.stats["moves_acked"] += 1
                    pending.pop(g, None)
                    continue
                self.assert_server_error(r, f"the move form of game {g.gid}", html=True)
                self.stats["form_posts"] += 1
                self.stats["failed_writes"] += 1
                pending[g] = planned
            else:
                r = self.d.post("/api/games", {"variant": "nchess", "seats": [{"name": "X"}, {"name": "Y"}]})
                if before == 0 and r.status == 201:
                    self.d.secrets.update(s["token"] for s in r.json()["seats"])
                    self.extra_games += 1
                    continue
                self.assert_server_error(r, "POST /api/games")
                self.stats["creates_refused"] += 1
                self.stats["failed_writes"] += 1
            self.assertTrue(self.d.alive(), "the daemon died under the disk fault:\n" + self.d.stderr()[-4000:])

    # ---- the test ----

    def test_disk_failures_lose_nothing_acknowledged(self):
        t0 = time.monotonic()
        games = [self.create(v, mail=i % 2 == 0) for i, v in enumerate(VARIANTS)]
        for g in games:
            for _ in range(3):
                self.play_ok(g)

        for cycle in range(CYCLES):
            live = [g for g in games if not g.done]
            if len(live) < 2:
                g = self.create(self.rnd.choice(VARIANTS))
                games.append(g)
                live.append(g)
            for _ in range(self.rnd.randint(1, 4)):
                self.play_ok(self.rnd.choice(live))
            # Now and then a countdown: the fault strikes after some writes and syncs, inside
            # a commit (WAL frames written, their sync failing) or the checkpoint after one.
            # Or only the syncs fail: a commit's WAL frames are written, its fsync is not done.
            budget = self.rnd.choice((0, 0, 1, 2, 3, 5, 8, 13))
            words = "sync" if cycle % 3 == 2 else ""
            count = LONG_STRETCH if cycle in LONG_CYCLES else self.rnd.randint(1, 3)
            pending = {}
            self.d.fault_on(budget, words)
            try:
                self.failing_requests(live, count, pending)
                if cycle == STOP_CYCLE:
                    # The administrator restarts the daemon while the disk still fails: it
                    # stops cleanly, starts again (reads need no writes), still refuses moves,
                    # and recovers with the disk, without another restart.
                    self.d.stop()
                    self.stopped_under_fault = True
                    self.check_database(games)
                    self.d.start()
                    self.failing_requests(live, 5, pending)
            finally:
                self.d.fault_off()
            self.assertTrue(self.d.alive())
            # Recovered: every game is where its acknowledged moves left it, and the very move
            # that failed is taken as a new one.
            for g in games:
                self.assert_at_acked_ply(g)
            for g, planned in pending.items():
                self.play_ok(g, planned)
            for g in live:
                if not g.done:
                    self.play_ok(g)

        injected = self.d.faults_injected()
        kinds = {}
        for call, name in injected:
            kinds[f"{call} {name}"] = kinds.get(f"{call} {name}", 0) + 1
        self.assertGreater(self.stats["failed_writes"], CYCLES, self.stats)
        self.assertIn("xWrite", {c for c, _ in injected})

        # The mail worker catches up, its failed claims and records too.
        self.wait_outbox_settled()
        # Stop cleanly and look at the file itself.
        self.d.stop()
        self.check_database(games)
        self.check_outbox()

        # A restarted daemon has every acknowledged move, and plays on.
        self.d.start()
        for g in games:
            self.assert_at_acked_ply(g)
            if not g.done:
                self.play_ok(g)
        self.d.stop()
        self.check_database(games)
        print(f"\n{CYCLES} fault cycles in {time.monotonic() - t0:.1f}s: {self.stats}; "
              f"{len(games)} games; injected {kinds}", file=sys.stderr)

    def test_checkpoint_failures_lose_nothing(self):
        """Only the main database file fails: commits (to the WAL) go on, checkpoints fail."""
        t0 = time.monotonic()
        games = [self.create(v, mail=i % 2 == 0) for i, v in enumerate(VARIANTS)]
        # The first few page writes of the checkpoint go through: it fails half-way.
        self.d.fault_on(5, "db")
        try:
            moves = 0
            while moves < CHECKPOINT_MOVES_MAX:
                live = [g for g in games if not g.done]
                if len(live) < 3:
                    games.append(self.create(self.rnd.choice(VARIANTS), mail=True))
                    continue
                self.play_ok(self.rnd.choice(live))
                moves += 1
                hit = [f for f in self.d.faults_injected() if f[1] == "rookery.db"]
                if len(hit) >= 10:
                    break
            self.assertGreaterEqual(len(hit), 10, f"no checkpoint failed in {moves} moves")
            for g in games:
                self.assert_at_acked_ply(g)
        finally:
            self.d.fault_off()
        wal_before = os.path.getsize(self.d.db + "-wal")
        for _ in range(20):
            self.play_ok(self.rnd.choice([g for g in games if not g.done]))
        for g in games:
            self.assert_at_acked_ply(g)
        self.wait_outbox_settled()
        self.d.stop()
        self.check_database(games)
        self.check_outbox()
        self.d.start()
        for g in games:
            self.assert_at_acked_ply(g)
        self.d.stop()
        print(f"\n{moves} moves with failing checkpoints, {len(hit)} failures on the main file "
              f"(WAL at {wal_before // 1024} KiB), {time.monotonic() - t0:.1f}s", file=sys.stderr)

    def outbox_states(self):
        conn = sqlite3.connect(f"file:{self.d.db}?mode=ro", uri=True)
        try:
            return {i: (st if st != "failed" else f"failed: {why}")
                    for i, st, why in conn.execute("SELECT id, state, last_error FROM outbox")}
        finally:
            conn.close()

    def wait_outbox_settled(self, timeout=15):
        """Wait until no mail is queued or being sent (the worker looks every 2 s at least)."""
        deadline = time.monotonic() + timeout
        while True:
            busy = {i: st for i, st in self.outbox_states().items() if st in ("queued", "sending")}
            if not busy:
                return
            if time.monotonic() > deadline:
                said = [line for line in self.d.stderr().splitlines()
                        if re.search(r"\bmail (%s)\b" % "|".join(map(str, busy)), line)]
                self.fail(f"mails still queued or being sent {timeout}s after the disk recovered: {busy}\n"
                          + "\n".join(said[-20:]))
            time.sleep(0.2)

    def check_outbox(self):
        """Every queued mail went out exactly once, and its row says so."""
        delivered = {}
        new = os.path.join(self.d.workdir, "mail", "new")
        for name in os.listdir(new) if os.path.isdir(new) else []:
            m = re.search(r"\.R(\d+)P", name)
            self.assertTrue(m, name)
            delivered[int(m.group(1))] = delivered.get(int(m.group(1)), 0) + 1
        states = self.outbox_states()
        self.assertGreater(len(states), 0, "the games with email addresses queued no mail")
        self.assertEqual({i for i, n in delivered.items() if n > 1}, set(), "mails delivered twice")
        self.assertEqual(set(delivered) - set(states), set(), "mails delivered without an outbox row")
        # A daemon stopped while the disk fails cannot record a mail it was sending: the next
        # start marks it failed, not to be sent again (at most once, as after a crash).
        interrupted = {i for i, st in states.items() if st.startswith("failed: interrupted while being sent")}
        if not self.stopped_under_fault:
            self.assertEqual(interrupted, set())
        self.assertLessEqual(len(interrupted), 2, states)
        self.assertEqual({i: st for i, st in states.items() if st != "sent" and i not in interrupted}, {},
                         "mails not recorded as sent")
        self.assertEqual(set(delivered) - interrupted, set(states) - interrupted, "sent but not delivered")

    def check_database(self, games):
        conn = sqlite3.connect(f"file:{self.d.db}?mode=ro", uri=True)
        try:
            self.assertEqual(conn.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            self.assertEqual(conn.execute("PRAGMA foreign_key_check").fetchall(), [])
            stored = {gid: (ply, position) for gid, ply, position in
                      conn.execute("SELECT id, ply, position FROM games")}
            self.assertEqual(len(stored), len(games) + self.extra_games,
                             "a game whose creation failed was stored, or an acknowledged one lost")
            for g in games:
                ply, position = stored[g.gid]
                rows = conn.execute("SELECT ply, move, position_after FROM moves WHERE game_id = ? ORDER BY ply",
                                    (g.gid,)).fetchall()
                self.assertEqual([r[0] for r in rows], list(range(len(rows))), f"game {g.gid}: plies")
                self.assertEqual([r[1] for r in rows], g.acked, f"game {g.gid}: the stored moves")
                self.assertEqual(ply, len(g.acked), f"game {g.gid}: the game's ply")
                if rows:
                    self.assertEqual(rows[-1][2], position, f"game {g.gid}: position is not its last move's")
        finally:
            conn.close()


if __name__ == "__main__":
    FAULTVFS = fault_vfs_argument(__doc__)
    sys.exit(daemon.run_tests())
