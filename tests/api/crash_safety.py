#!/usr/bin/env python3
"""crash_safety.py - SIGKILL the daemon at random moments while moves stream in; nothing acknowledged is lost.

usage: crash_safety.py path/to/rookery

Each round starts the daemon on the same database, streams moves of several games over HTTP from
a few threads, kills the daemon with SIGKILL after a random delay, and restarts it. Then every move
the server acknowledged (201 or a duplicate 200) must be in its game's move list, each game's
stored position must be the one its last move left (nothing half-applied), and
PRAGMA integrity_check must pass. Python standard library only.
"""
import os
import random
import sqlite3
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402

ROUNDS = 50
GAMES = 6
THREADS = 3


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
            stop = threading.Event()

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

            threads = [threading.Thread(target=stream, args=(rnd.random(),)) for _ in range(THREADS)]
            for t in threads:
                t.start()
            time.sleep(rnd.uniform(0.02, 0.25))
            d.proc.kill()                  # SIGKILL: no chance to finish anything
            d.proc.wait()
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
        print(f"\n{ROUNDS} kills, {total} acknowledged moves, none lost", file=sys.stderr)
        self.assertGreater(total, ROUNDS)

    def check_database(self, path, acked):
        """Integrity, and every game's position is the one its last stored move left."""
        # Read-only: the daemon restarted next is what recovers the database, not this check.
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            self.assertEqual(conn.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            for gid, ply, position in conn.execute("SELECT id, ply, position FROM games"):
                moves = conn.execute("SELECT ply, position_after FROM moves WHERE game_id = ? ORDER BY ply",
                                     (gid,)).fetchall()
                self.assertEqual([m[0] for m in moves], list(range(ply)), f"game {gid}: plies not 0..{ply - 1}")
                if moves:
                    self.assertEqual(moves[-1][1], position, f"game {gid}: position is not its last move's")
        finally:
            conn.close()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
