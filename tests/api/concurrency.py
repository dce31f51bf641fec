#!/usr/bin/env python3
"""concurrency.py - many clients at once: moves in many games share group commits, reads go on beside them.

usage: concurrency.py path/to/rookery path/to/libfaultvfs.so [unittest options]

Every game is Nchess, played with knights stepping out and back (harness.nchess.SHUFFLE): the
move of each ply is known without asking, and so is the board after it. Each player is a thread
of its own with a keep-alive connection, from one of several local addresses (127.0.0.2...) so
that the clients are not held to the connections-per-address limit of one. Threads released by
a barrier send at the same instant, so that their changes reach the writer together and share
a group (one transaction, a savepoint each).

  - many games at once: every acknowledged move is stored once, at its ply, plies contiguous;
  - the same ply of one game from two clients at once, many times, while other games move:
    exactly one 201 and one 409 stale_ply each time, and the stored game is the winner's;
  - an illegal move among many legal ones of other games: refused alone, the others stored;
  - reads while moves are applied: every GET answers 200 with a board that is its ply's, a
    ply between what was acknowledged before it and what was sent before its answer, never
    going back;
  - SIGTERM while many moves are in flight: the daemon stops cleanly and every acknowledged
    move is stored;
  - the disk fails (tests/api/faultvfs.c) while many moves are in flight: every move answered
    201 is stored, before and after a restart; every move answered with an error is not (it is
    taken as new afterwards); the daemon serves on once the fault is lifted.

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
from harness.daemon import DaemonCase  # noqa: E402
from harness.fault import FaultDaemon, vfs_argument as fault_vfs_argument  # noqa: E402
from harness.nchess import SHUFFLE, START_BOARD  # noqa: E402

FAULTVFS = ""                      # the fault VFS (faultvfs.c), from the command line
SEATS = ("South", "North")
SOURCES = [f"127.0.0.{i}" for i in range(2, 10)]      # local addresses the clients connect from
JOIN_TIMEOUT = 300


def shuffle_boards():
    """The board after 0, 1, 2 and 3 plies of SHUFFLE (then it repeats)."""
    boards, board = [], [list(row) for row in START_BOARD]
    for move in SHUFFLE:
        boards.append([list(row) for row in board])
        _, fr, fc, tr, tc = move.split()
        board[int(tr) - 1][int(tc) - 1] = board[int(fr) - 1][int(fc) - 1]
        board[int(fr) - 1][int(fc) - 1] = None
    assert board == boards[0], "SHUFFLE comes back to where it began"
    return boards


BOARDS = shuffle_boards()


class Game:
    """One game and what the server acknowledged of it, shared by its players' threads."""

    def __init__(self, d, gid, tokens, index):
        self.d = d
        self.gid = gid
        self.tokens = tokens
        self.source = SOURCES[index % len(SOURCES)]
        self.acked = []                 # canonical moves acknowledged, ply by ply
        self.sent = 0                   # moves sent (acknowledged or not yet answered)
        self.turn = threading.Condition()
        self.broken = False             # a player met an error: the other stops waiting

    def seat(self, ply):
        return SEATS[ply % 2]

    def connect(self):
        return self.d.connect(self.source)

    def move(self, conn, move, ply):
        return self.d.move(self.gid, self.tokens[self.seat(ply)], move, ply) if conn is None else \
            self.d.request("POST", f"/api/games/{self.gid}/moves", {"move": move, "ply": ply},
                           token=self.tokens[self.seat(ply)], conn=conn)


def new_games(d, n, mail=False):
    """n new games; with mail, every other one invites its players by mail (the delivery
    worker then writes to the maildir while the moves go on)."""
    games = []
    for i in range(n):
        emails = (f"s{i}.{d.port}@example.org", f"n{i}.{d.port}@example.org") if mail and i % 2 else (None, None)
        gid, tokens, _ = d.create_game(emails=emails)
        games.append(Game(d, gid, tokens, i))
    return games


def run_threads(targets):
    """Run each callable on a thread of its own; the exceptions they raised, as text."""
    errors = []

    def guarded(f):
        try:
            f()
        except BaseException as e:          # noqa: B902 - reported to the test below
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=guarded, args=(f,)) for f in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT)
        if t.is_alive():
            errors.append("a client thread did not finish")
    return errors


def player(g, seat_index, plies, start, resend_every=0):
    """One seat of g: wait for its turn, move, up to ply plies. Re-sends every resend_every-th
    move once more, which must be answered as the duplicate it is."""
    conn = g.connect()
    try:
        start.wait()
        for ply in range(seat_index, plies, 2):
            with g.turn:
                g.turn.wait_for(lambda: len(g.acked) == ply or g.broken, JOIN_TIMEOUT)
                if g.broken:
                    return
                if len(g.acked) != ply:
                    g.broken = True
                    g.turn.notify_all()
                    raise AssertionError(f"game {g.gid}: ply {ply} never came")
                g.sent += 1
            r = g.move(conn, SHUFFLE[ply % 4], ply)
            ok = r.status == 201 and r.json()["ply"] == ply and not r.json()["duplicate"]
            with g.turn:
                if ok:
                    g.acked.append(r.json()["move"])
                else:
                    g.broken = True
                g.turn.notify_all()
            if not ok:
                raise AssertionError(f"game {g.gid} ply {ply}: {r}")
            if resend_every and ply % resend_every == 0:
                again = g.move(conn, SHUFFLE[ply % 4], ply)
                if again.status != 200 or not again.json()["duplicate"]:
                    raise AssertionError(f"game {g.gid} ply {ply} sent again: {again}")
    finally:
        conn.close()


class StoredCheck:
    """Checks that a game, as served and as stored, holds exactly its acknowledged moves."""

    def assertServedAsAcked(self, d, g):
        moves = d.all_moves(g.gid)
        self.assertEqual([m["ply"] for m in moves], list(range(len(moves))), f"game {g.gid}: plies")
        self.assertEqual([m["move"] for m in moves], g.acked, f"game {g.gid}: the moves")
        pub = d.game(g.gid)
        self.assertEqual(pub["ply"], len(g.acked), f"game {g.gid}")
        return pub

    def assertStoredOnce(self, d, games):
        """In the database itself: no ply of a game twice, and each game holds its acknowledged moves."""
        self.assertEqual(daemon.db_query(
            d.db, "SELECT game_id, ply, COUNT(*) FROM moves GROUP BY game_id, ply HAVING COUNT(*) > 1"), [])
        for g in games:
            rows = daemon.db_query(d.db, "SELECT ply, move FROM moves WHERE game_id = ? ORDER BY ply", (g.gid,))
            self.assertEqual(rows, list(enumerate(g.acked)), f"game {g.gid}: the stored moves")
            self.assertEqual(daemon.db_query(d.db, "SELECT ply FROM games WHERE id = ?", (g.gid,))[0][0],
                             len(g.acked), f"game {g.gid}: its ply")


class ConcurrencyTests(StoredCheck, DaemonCase):
    # The sweeper runs every second beside the requests.
    daemon_args = ("--games-per-hour", "0", "--sweep-seconds", "1")

    def test_many_games_at_once(self):
        """32 games, a thread per player, every move answered 201 once and stored once."""
        games, plies = new_games(self.d, 32, mail=True), 16
        start = threading.Barrier(len(games) * 2)
        t0 = time.monotonic()
        errors = run_threads([lambda g=g, s=s: player(g, s, plies, start, resend_every=5)
                              for g in games for s in (0, 1)])
        self.assertEqual(errors, [])
        for g in games:
            pub = self.assertServedAsAcked(self.d, g)
            self.assertEqual(len(g.acked), plies)
            self.assertEqual(g.acked, [SHUFFLE[p % 4] for p in range(plies)])
            self.assertEqual(pub["position"]["board"], BOARDS[plies % 4])
        self.assertStoredOnce(self.d, games)
        deadline = time.monotonic() + 30
        while len(self.d.maildir_mails()) < len(games) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(len(self.d.maildir_mails()), len(games), "an invitation of each player of the games with mail")
        print(f"\n{len(games) * plies} moves in {len(games)} games in {time.monotonic() - t0:.1f}s",
              file=sys.stderr)

    def test_same_ply_from_two_clients_at_once(self):
        """Two clients send different moves for the same ply at the same instant: one wins."""
        rnd = random.Random(20261701)
        others = new_games(self.d, 8)
        stop = threading.Event()
        busy = threading.Thread(target=lambda: run_threads(
            [lambda g=g: self.keep_moving(g, stop) for g in others]))
        busy.start()
        try:
            self.same_ply_rounds(rnd, 30)
        finally:
            stop.set()
            busy.join(JOIN_TIMEOUT)
        for g in others:
            self.assertServedAsAcked(self.d, g)
        self.assertGreater(sum(len(g.acked) for g in others), 0, "the other games did not move")

    def same_ply_rounds(self, rnd, rounds):
        g = new_games(self.d, 1)[0]
        for n in range(rounds):
            pub = self.d.game(g.gid)
            if pub["status"] != "running":
                self.assertServedAsAcked(self.d, g)
                g = new_games(self.d, 1)[0]
                pub = self.d.game(g.gid)
            ply, seat = pub["ply"], pub["turn"][0]
            self.assertEqual(ply, len(g.acked))
            view = self.d.game(g.gid, g.tokens[seat])
            # Whole moves only: a partial one (a release still to place its prisoners) is listed
            # as its prefix, which the server refuses as incomplete.
            whole = {o["move"] for o in view["legal"] if not o["partial"]}
            legal = [m for m in view["legal_moves"] if m in whole and " / " not in m]
            two = rnd.sample(legal, 2)
            conns = [self.d.connect(SOURCES[i]) for i in range(2)]
            for c in conns:
                c.connect()
            together = threading.Barrier(2)
            answers = [None, None]

            def send(i):
                together.wait()
                answers[i] = self.d.request("POST", f"/api/games/{g.gid}/moves", {"move": two[i], "ply": ply},
                                            token=g.tokens[seat], conn=conns[i])

            self.assertEqual(run_threads([lambda i=i: send(i) for i in range(2)]), [])
            for c in conns:
                c.close()
            self.assertEqual(sorted(a.status for a in answers), [201, 409], f"round {n}: {answers}")
            won = answers[0] if answers[0].status == 201 else answers[1]
            lost = answers[1] if won is answers[0] else answers[0]
            self.assertError(lost, 409, "stale_ply")
            self.assertEqual((won.json()["ply"], won.json()["duplicate"]), (ply, False))
            self.assertEqual(won.json()["move"], two[answers.index(won)])
            g.acked.append(won.json()["move"])
            self.assertServedAsAcked(self.d, g)

    def keep_moving(self, g, stop):
        """Play g's SHUFFLE, both seats from one connection, until stop."""
        conn = g.connect()
        try:
            while not stop.is_set():
                ply = len(g.acked)
                r = g.move(conn, SHUFFLE[ply % 4], ply)
                if r.status != 201:
                    raise AssertionError(f"game {g.gid} ply {ply}: {r}")
                g.acked.append(r.json()["move"])
        finally:
            conn.close()

    def test_refused_move_leaves_its_group(self):
        """In each round every game sends at once; a quarter send an illegal move. The illegal
        ones are refused alone: every legal one of the same instant is stored."""
        games, rounds = new_games(self.d, 24), 8
        refused = 0
        for n in range(rounds):
            start = threading.Barrier(len(games))
            answers = {}
            conns = {g: g.connect() for g in games}
            for c in conns.values():
                c.connect()

            def send(g, illegal):
                ply = len(g.acked)
                # A knight's jump to the middle of the board: never legal.
                move = ("N 9 2 5 5" if ply % 2 == 0 else "n 1 2 5 5") if illegal else SHUFFLE[ply % 4]
                start.wait()
                answers[g] = (illegal, g.move(conns[g], move, ply))

            errors = run_threads([lambda i=i, g=g: send(g, (i + n) % 4 == 0) for i, g in enumerate(games)])
            for c in conns.values():
                c.close()
            self.assertEqual(errors, [])
            for g, (illegal, r) in answers.items():
                if illegal:
                    self.assertError(r, 422, "illegal_move")
                    refused += 1
                else:
                    self.assertEqual(r.status, 201, f"round {n}, game {g.gid}: {r}")
                    g.acked.append(r.json()["move"])
            for g in games:
                self.assertServedAsAcked(self.d, g)
        self.assertStoredOnce(self.d, games)
        self.assertEqual(refused, rounds * len(games) // 4)

    def test_reads_while_moves_are_applied(self):
        """GETs of the games and their moves beside the movers: all 200, each answer consistent."""
        games, plies = new_games(self.d, 16), 24
        start = threading.Barrier(len(games) * 2 + 4)
        done = threading.Event()
        reads = []

        def reader(seed):
            rnd = random.Random(seed)
            conn = self.d.connect(SOURCES[seed % len(SOURCES)])
            seen = {}
            count = 0
            try:
                start.wait()
                while not done.is_set():
                    g = rnd.choice(games)
                    low = len(g.acked)          # acknowledged before the read was sent
                    if rnd.random() < 0.5:
                        r = self.d.get(f"/api/games/{g.gid}", conn=conn)
                        high = g.sent
                        if r.status != 200:
                            raise AssertionError(f"GET game {g.gid}: {r}")
                        ply = r.json()["ply"]
                        if r.json()["position"]["board"] != BOARDS[ply % 4]:
                            raise AssertionError(f"game {g.gid}: the board is not that of ply {ply}")
                    else:
                        r = self.d.get(f"/api/games/{g.gid}/moves?from=0&limit=500", conn=conn)
                        high = g.sent
                        if r.status != 200:
                            raise AssertionError(f"GET moves of {g.gid}: {r}")
                        moves = r.json()["moves"]
                        ply = len(moves)
                        if [(m["ply"], m["move"]) for m in moves] != [(p, SHUFFLE[p % 4]) for p in range(ply)]:
                            raise AssertionError(f"game {g.gid}: the moves are not its plies in order: {moves}")
                    if not low <= ply <= high:
                        raise AssertionError(f"game {g.gid}: read ply {ply}, acknowledged {low}, sent {high}")
                    if ply < seen.get(g.gid, 0):
                        raise AssertionError(f"game {g.gid}: read ply {ply} after {seen[g.gid]}")
                    seen[g.gid] = ply
                    count += 1
            finally:
                conn.close()
                reads.append(count)

        def movers():
            try:
                return run_threads([lambda g=g, s=s: player(g, s, plies, start) for g in games for s in (0, 1)])
            finally:
                done.set()

        moved = []
        errors = run_threads([lambda i=i: reader(i) for i in range(4)] + [lambda: moved.extend(movers())])
        self.assertEqual(errors + moved, [])
        for g in games:
            self.assertServedAsAcked(self.d, g)
            self.assertEqual(len(g.acked), plies)
        self.assertEqual(len(reads), 4)
        self.assertGreater(min(reads), 0, "a reader read nothing while the moves went on")
        print(f"\n{sum(reads)} reads beside {len(games) * plies} moves", file=sys.stderr)


class StopTests(StoredCheck, unittest.TestCase):
    """SIGTERM while many moves are in flight: a clean stop that keeps every acknowledged move."""

    def test_stop_while_moving(self):
        d = daemon.Daemon("--games-per-hour", "0")
        self.addCleanup(d.cleanup)
        d.start()
        games = new_games(d, 32)
        moving = threading.Barrier(len(games) + 1)
        last_ply = daemon.LIMITS["LIMIT_PLIES"] * 3 // 4      # a game is drawn at LIMIT_PLIES

        def mover(g):
            conn = g.connect()
            try:
                moving.wait()
                for ply in range(last_ply):
                    r = g.move(conn, SHUFFLE[ply % 4], ply)
                    if r.status != 201:
                        # The daemon stopping refuses new changes; nothing else may fail.
                        if r.status != 503 or r.json()["error"]["code"] != "unavailable":
                            raise AssertionError(f"game {g.gid} ply {ply}: {r}")
                        return
                    g.acked.append(r.json()["move"])
            except (OSError, http.client.HTTPException):
                pass                # the daemon closed the connection: that move was not acknowledged
            finally:
                conn.close()

        def stopper():
            moving.wait()
            # Stop while the games are moving, however slow the machine: once they have made
            # more moves than there are games.
            deadline = time.monotonic() + 60
            while sum(len(g.acked) for g in games) <= len(games) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)
            d.stop()                # clean exit, no sanitizer report

        errors = run_threads([lambda g=g: mover(g) for g in games] + [stopper])
        self.assertEqual(errors, [])
        self.assertGreater(sum(len(g.acked) for g in games), len(games))
        self.assertStoredOnce(d, games)
        d.start()
        for g in games:
            self.assertServedAsAcked(d, g)
        d.stop()


@unittest.skipIf(database.BACKEND == "postgresql",
                 "the failing disk is an SQLite VFS (faultvfs.c); PostgreSQL's server keeps its own files")
class DiskFailureTests(StoredCheck, unittest.TestCase):
    """The disk fails while many moves are in flight, in the middle of their group."""

    GAMES = 16
    ROUNDS = 16

    def test_disk_error_inside_groups(self):
        rnd = random.Random(20261702)
        d = FaultDaemon("--games-per-hour", "0", vfs=FAULTVFS)
        self.addCleanup(d.cleanup)
        d.start()
        games = new_games(d, self.GAMES)
        stats = {"acked": 0, "failed": 0, "mixed_rounds": 0}
        for n in range(self.ROUNDS):
            # Let a few writes and syncs through, then fail: a commit fails half-way. Every
            # other round the fault passes after one failure (once): a group that failed is
            # applied again change by change, and kept; else it lasts, and every change after
            # it fails too. Every third round only the syncs fail.
            budget = rnd.choice((0, 1, 2, 3, 5, 8, 13, 21))
            words = ("sync " if n % 3 == 2 else "") + ("once" if n % 2 else "")
            start = threading.Barrier(len(games))
            conns = {g: g.connect() for g in games}
            for c in conns.values():
                c.connect()
            answers = {}

            def send(g):
                ply = len(g.acked)
                start.wait()
                answers[g] = (ply, g.move(conns[g], SHUFFLE[ply % 4], ply))

            d.fault_on(budget, words)
            try:
                errors = run_threads([lambda g=g: send(g) for g in games])
            finally:
                d.fault_off()
            for c in conns.values():
                c.close()
            self.assertEqual(errors, [])
            self.assertTrue(d.alive(), d.stderr()[-4000:])
            failed = []
            for g, (ply, r) in answers.items():
                if r.status == 201:
                    self.assertEqual(r.json()["ply"], ply)
                    g.acked.append(r.json()["move"])
                    stats["acked"] += 1
                else:
                    self.assertIn(r.status, (500, 503), f"round {n}, game {g.gid}: {r}")
                    self.assertEqual(r.json()["error"]["code"], "internal" if r.status == 500 else "unavailable")
                    failed.append((g, ply))
            stats["failed"] += len(failed)
            stats["mixed_rounds"] += 0 < len(failed) < len(games)
            # The disk is back: what was acknowledged is there, and what failed was not stored,
            # so that the very same move is taken as new.
            for g in games:
                self.assertServedAsAcked(d, g)
            for g, ply in failed:
                r = g.move(None, SHUFFLE[ply % 4], ply)
                self.assertEqual(r.status, 201, f"round {n}, game {g.gid} ply {ply} again: {r}")
                self.assertIs(r.json()["duplicate"], False)
                g.acked.append(r.json()["move"])
        self.assertGreater(len(d.faults_injected()), 0)
        self.assertGreater(stats["failed"], 0, stats)
        groups_failed = d.stderr().count("writer: a group of ")
        self.assertGreater(groups_failed, 0, f"the fault never struck a group: {stats}")
        d.stop()
        self.assertStoredOnce(d, games)
        d.start()
        for g in games:
            self.assertServedAsAcked(d, g)
        errors = run_threads([lambda g=g: self.assertEqual(
            g.move(None, SHUFFLE[len(g.acked) % 4], len(g.acked)).status, 201) for g in games])
        self.assertEqual(errors, [])
        d.stop()
        print(f"\n{self.ROUNDS} rounds of {len(games)} moves under a failing disk: {stats}, "
              f"{groups_failed} groups failed", file=sys.stderr)


if __name__ == "__main__":
    FAULTVFS = fault_vfs_argument(__doc__)
    sys.exit(daemon.run_tests())
