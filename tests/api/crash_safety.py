#!/usr/bin/env python3
"""crash_safety.py - SIGKILL the daemon at random moments while moves stream in; nothing acknowledged is lost.

usage: crash_safety.py path/to/rookery

Each round starts the daemon on the same database, streams moves of several games over HTTP from
a few threads, kills the daemon with SIGKILL after a random delay, and restarts it. Then every move
the server acknowledged (201 or a duplicate 200) must be in its game's move list, each game's
stored position must be the one its last move left (nothing half-applied), and
PRAGMA integrity_check must pass (on SQLite; PostgreSQL's server outlives the daemon).

test_sigkill_during_group_commits does the same with many more clients at once: a thread for
each of 32 games sends its moves back to back (knights stepping out and back, so that no move
needs a look at the game first), so that the writer applies them in groups under one commit
each when the kill strikes. In a sanitizer build no run of the daemon, killed or not, may have
reported an error.

Python standard library only.
"""
import http.client
import os
import random
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.nchess import SHUFFLE  # noqa: E402

ROUNDS = 50
GAMES = 6
THREADS = 3
GROUP_ROUNDS = 15
GROUP_GAMES = 32
SOURCES = [f"127.0.0.{i}" for i in range(2, 10)]      # local addresses the clients connect from


class CrashSafetyTests(unittest.TestCase):
    def test_sigkill_during_moves_loses_nothing_acknowledged(self):
        rnd = random.Random(20261122)
        d = daemon.Daemon()
        self.addCleanup(d.cleanup)
        d.start()
        games = []
        for _ in range(GAMES):
            gid, tokens, _ = d.create_game()
            games.append((gid, tokens))
        acked = {gid: {} for gid, _ in games}      # game -> ply -> canonical move acknowledged
        lock = threading.Lock()
        total = 0

        for rnd_no in range(ROUNDS):
            stop, moved = threading.Event(), threading.Event()

            def stream(seed):
                r = random.Random(seed)
                while not stop.is_set():
                    gid, tokens = r.choice(games)
                    try:
                        g = d.game(gid)
                        if g["status"] != "running":
                            continue
                        seat = g["turn"][0]
                        mine = d.game(gid, tokens[seat])
                        moves = [m for m in mine["legal_moves"] if " / " not in m] or mine["legal_moves"]
                        resp = d.move(gid, tokens[seat], r.choice(moves), g["ply"])
                    except Exception:
                        return          # the daemon is gone
                    if resp.status in (200, 201):
                        body = resp.json()
                        with lock:
                            acked[gid][body["ply"]] = body["move"]
                        moved.set()

            threads = [threading.Thread(target=stream, args=(rnd.random(),)) for _ in range(THREADS)]
            for t in threads:
                t.start()
            # The kill comes while moves are going through, however slow the machine: after the
            # round's first acknowledged move, at a random moment.
            self.assertTrue(moved.wait(60), f"round {rnd_no}: no move was acknowledged")
            time.sleep(rnd.uniform(0.0, 0.2))
            d.crash()                      # SIGKILL (its twin's too): no chance to finish anything
            stop.set()
            for t in threads:
                t.join(30)
            self.check_database(d.db, acked)
            d.start()                      # the same database, as after a crash
            for gid, _ in games:
                stored = {m["ply"]: m["move"] for m in d.all_moves(gid)}
                for ply, move in acked[gid].items():
                    self.assertEqual(stored.get(ply), move, f"round {rnd_no}: game {gid} lost ply {ply}")
            total = sum(len(a) for a in acked.values())
        d.stop()
        self.assertEqual(d.sanitizer_reports(), [])
        print(f"\n{ROUNDS} kills, {total} acknowledged moves, none lost", file=sys.stderr)
        self.assertGreater(total, ROUNDS)

    def test_sigkill_during_group_commits(self):
        rnd = random.Random(20261703)
        d = daemon.Daemon("--games-per-hour", "0")
        self.addCleanup(d.cleanup)
        d.start()
        games = [d.create_game()[:2] for _ in range(GROUP_GAMES)]
        acked = {gid: {} for gid, _ in games}      # game -> ply -> canonical move acknowledged
        seats = ("South", "North")
        errors = []
        # A game is drawn at LIMIT_PLIES: stop well before, however fast the machine.
        last_ply = daemon.LIMITS["LIMIT_PLIES"] * 3 // 4

        def mover(i, first_ply):
            gid, tokens = games[i]
            conn = d.connect(SOURCES[i % len(SOURCES)])
            try:
                for ply in range(first_ply, last_ply):
                    r = d.request("POST", f"/api/games/{gid}/moves", {"move": SHUFFLE[ply % 4], "ply": ply},
                                  token=tokens[seats[ply % 2]], conn=conn)
                    if r.status not in (200, 201):
                        errors.append(f"game {gid} ply {ply}: {r}")
                        return
                    acked[gid][ply] = r.json()["move"]      # one thread a game: no lock needed
                    with lock:
                        round_acks[0] += 1
                        if round_acks[0] >= GROUP_GAMES:
                            moving.set()
            except (OSError, http.client.HTTPException):
                pass                                         # the daemon is gone: unacknowledged
            finally:
                conn.close()

        lock = threading.Lock()
        for rnd_no in range(GROUP_ROUNDS):
            plies = [d.game(gid)["ply"] for gid, _ in games]
            round_acks, moving = [0], threading.Event()
            threads = [threading.Thread(target=mover, args=(i, plies[i])) for i in range(GROUP_GAMES)]
            for t in threads:
                t.start()
            # The kill comes while groups are committing, however slow the machine: once the
            # round has had as many moves acknowledged as there are games, at a random moment.
            self.assertTrue(moving.wait(60), f"round {rnd_no}: the games did not move")
            time.sleep(rnd.uniform(0.0, 0.3))
            d.crash()
            for t in threads:
                t.join(30)
            self.assertFalse(any(t.is_alive() for t in threads))
            self.assertEqual(errors, [])
            self.check_database(d.db, acked)
            d.start()
            for gid, _ in games:
                stored = {m["ply"]: m["move"] for m in d.all_moves(gid)}
                for ply, move in acked[gid].items():
                    self.assertEqual(stored.get(ply), move, f"round {rnd_no}: game {gid} lost ply {ply}")
        d.stop()
        self.assertEqual(d.sanitizer_reports(), [])
        total = sum(len(a) for a in acked.values())
        print(f"\n{GROUP_ROUNDS} kills during group commits, {total} acknowledged moves in {GROUP_GAMES} "
              f"games, none lost", file=sys.stderr)
        self.assertGreater(total, GROUP_ROUNDS * GROUP_GAMES)

    def check_database(self, path, acked):
        """Integrity, and every game's position is the one its last stored move left."""
        # Read-only: the daemon restarted next is what recovers the database, not this check.
        # PostgreSQL, which no kill of the daemon reaches, keeps its own files whole.
        if not database.is_postgresql(path):
            self.assertEqual(database.query(path, "PRAGMA integrity_check")[0][0], "ok")
        for gid, ply, position in database.query(path, "SELECT id, ply, position FROM games"):
            moves = database.query(path, "SELECT ply, position_after FROM moves WHERE game_id = ? ORDER BY ply", (gid,))
            self.assertEqual([m[0] for m in moves], list(range(ply)), f"game {gid}: plies not 0..{ply - 1}")
            if moves:
                self.assertEqual(moves[-1][1], position, f"game {gid}: position is not its last move's")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
