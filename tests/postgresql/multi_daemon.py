#!/usr/bin/env python3
"""multi_daemon.py - two `rookery serve` on one PostgreSQL database behave as one server.

usage: python3 tests/postgresql/multi_daemon.py PATH-TO-ROOKERY [unittest options]

A private PostgreSQL (harness/postgres.py) and two daemons on it, each with its own port and
sockets, as behind a load balancer:
  - clients alternating between the daemons see one game: every move made on one is read on the
    other at once, with the same version and ETag;
  - the same ply sent to both at the same instant is accepted once (one 201, one 409 stale_ply);
  - SIGKILL of one daemon during a stream of moves loses no acknowledged move, and the other
    keeps serving;
  - with both delivery workers sending to one SMTP server, every mail is sent exactly once;
  - a move on one daemon reaches an event stream open on the other within 100 ms;
  - a client's rate limit counts its requests to both daemons;
  - a restart of the database is unseen by clients, and streams miss none of its commits;
  - mail handed to either daemon (rookery mail-in) acts on the one game.
"""
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import daemon, postgres, smtp as smtpmod  # noqa: E402
from harness.daemon import Daemon  # noqa: E402

EVENT_DELAY_S = 0.100      # the bound from a move's 201 on one daemon to the event on the other
RACES = 20                 # rounds of the same ply sent to both daemons at once
BASE_URL = "https://chess.example.org"   # the site's address, the same for both daemons
KILL_AFTER = 15            # acknowledged moves before the SIGKILL


def to_move(d, gid, tokens):
    """The seat whose turn it is and its token, read from daemon d."""
    seat = d.game(gid)["turn"][0]
    return seat, tokens[seat]


def a_legal_move(d, gid, token):
    g = d.game(gid, token)
    return g["ply"], g["legal_moves"][0]


class PgDaemons(unittest.TestCase):
    """A private PostgreSQL per test and daemons on its database."""

    def setUp(self):
        self.pg = postgres.private(self)
        self.uri = self.pg.uri

    def start(self, name, *extra, env=None):
        workdir = os.path.join(self.pg.dir, name)
        os.makedirs(workdir, exist_ok=True)
        # Behind one load balancer every daemon has the public address of the site.
        d = Daemon("--sockets", os.path.join(workdir, "rookery"), "--events-keepalive", "1",
                   "--base-url", BASE_URL, *extra,
                   db=self.uri, workdir=workdir)
        d.extra_env = env or {}
        self.addCleanup(self.stop, d)
        return d.start()

    def stop(self, d):
        if d.proc and d.proc.poll() is None:
            d.stop()

    def sql(self, query):
        return self.pg.psql(query).strip()



class TwoDaemons(PgDaemons):
    """Two daemons on one database, as behind a load balancer."""

    def test_clients_alternating_between_the_daemons_see_one_game(self):
        a, b = self.start("a"), self.start("b")
        gid, tokens, _ = a.create_game()
        daemons = (a, b)
        for i in range(12):
            writer, reader = daemons[i % 2], daemons[(i + 1) % 2]
            seat, token = to_move(reader, gid, tokens)
            ply, move = a_legal_move(reader, gid, token)
            self.assertEqual(ply, i, "the reader sees every earlier move")
            r = writer.move(gid, token, move, ply)
            self.assertEqual(r.status, 201, r)
            # Read at once from the other daemon: no stale cache, the same version and ETag.
            ra, rb = a.get(f"/api/games/{gid}"), b.get(f"/api/games/{gid}")
            self.assertEqual(ra.status, 200)
            self.assertEqual(rb.status, 200)
            self.assertEqual(ra.json()["ply"], i + 1)
            self.assertEqual(ra.json(), rb.json())
            self.assertEqual(ra.header("ETag"), rb.header("ETag"))
            pa, pb = a.get(f"/games/{gid}"), b.get(f"/games/{gid}")
            self.assertEqual((pa.status, pb.status), (200, 200))
        moves_a = a.get(f"/api/games/{gid}/moves").json()
        self.assertEqual(moves_a, b.get(f"/api/games/{gid}/moves").json())
        self.assertEqual(a.get(f"/api/games/{gid}/record").body, b.get(f"/api/games/{gid}/record").body)
        # The lists of games agree too (a game made on one is listed by the other).
        self.assertEqual(a.get("/api/games?status=active").json(), b.get("/api/games?status=active").json())

    def race(self, daemons, gid, token, moves, ply):
        """moves[i] sent to daemons[i] at the same instant, for ply: their answers, in order."""
        answers = [None, None]
        barrier = threading.Barrier(2)

        def send(i):
            conn = daemons[i].connect()
            try:
                barrier.wait()
                answers[i] = daemons[i].request("POST", f"/api/games/{gid}/moves",
                                                {"move": moves[i], "ply": ply}, token=token, conn=conn)
            finally:
                conn.close()
        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        return answers

    def test_the_same_ply_sent_to_both_at_once_is_accepted_once(self):
        a, b = self.start("a"), self.start("b")
        gid, tokens, _ = a.create_game()
        for round_ in range(RACES):
            seat, token = to_move(a, gid, tokens)
            g = a.game(gid, token)
            ply, legal = g["ply"], g["legal_moves"]
            if round_ % 2 == 0:
                # Two different moves for one ply: one is played, the other refused as stale.
                answers = self.race((a, b), gid, token, legal[:2], ply)
                self.assertEqual(sorted(r.status for r in answers), [201, 409], (round_, answers))
                lost = next(r for r in answers if r.status == 409)
                self.assertEqual(lost.json()["error"]["code"], "stale_ply", lost)
            else:
                # The same move twice (a client retrying through the other daemon): played once,
                # the second answered as the duplicate it is.
                answers = self.race((b, a), gid, token, [legal[0]] * 2, ply)
                self.assertEqual(sorted(r.status for r in answers), [200, 201], (round_, answers))
                self.assertEqual(sorted(r.json()["duplicate"] for r in answers), [False, True])
            self.assertEqual(a.game(gid)["ply"], ply + 1)
            self.assertEqual(b.game(gid)["ply"], ply + 1)
        self.assertEqual(self.sql(f"SELECT count(*) FROM moves WHERE game_id = '{gid}'"), str(RACES))

    def test_sigkill_of_one_daemon_loses_nothing_acknowledged(self):
        a, b = self.start("a"), self.start("b")
        games = [a.create_game() for _ in range(3)]
        acknowledged = {gid: 0 for gid, _, _ in games}
        stop = threading.Event()
        errors = []

        def play(gid, tokens):
            # Moves through daemon a, back to back, until it dies.
            while not stop.is_set():
                try:
                    seat = a.game(gid)["turn"][0]
                    ply, move = a_legal_move(a, gid, tokens[seat])
                    r = a.move(gid, tokens[seat], move, ply)
                except (OSError, http.client.HTTPException):
                    return
                if r.status == 201:
                    acknowledged[gid] = max(acknowledged[gid], ply + 1)
                elif r.status >= 500:
                    errors.append(r)
        threads = [threading.Thread(target=play, args=(gid, tokens)) for gid, tokens, _ in games]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120
        while sum(acknowledged.values()) < KILL_AFTER and time.monotonic() < deadline:
            time.sleep(0.01)
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        stop.set()
        for t in threads:
            t.join(60)
        self.assertGreaterEqual(sum(acknowledged.values()), KILL_AFTER)
        self.assertEqual(errors, [])
        for gid, tokens, _ in games:
            g = b.game(gid)
            # Every acknowledged move is there; at most the one in flight more.
            self.assertIn(g["ply"] - acknowledged[gid], (0, 1), (gid, g["ply"], acknowledged[gid]))
            self.assertEqual(len(b.get(f"/api/games/{gid}/moves").json()["moves"]), g["ply"])
            # The survivor goes on: the next move of each game is made on it.
            seat = g["turn"][0]
            ply, move = a_legal_move(b, gid, tokens[seat])
            self.assertEqual(b.move(gid, tokens[seat], move, ply).status, 201)
        self.assertEqual(a.sanitizer_reports(), [])

    def test_every_mail_is_sent_once_by_two_delivery_workers(self):
        server = smtpmod.SmtpServer().start()
        self.addCleanup(server.stop)
        mail = ("--smtp", server.url, "--smtp-tls", "none", "--reply-domain", smtpmod.DOMAIN)
        a, b = self.start("a", *mail), self.start("b", *mail)
        # Invitations queued on both daemons at once: each worker competes for every row.
        created, failed = [], []

        def create(d, n):
            for i in range(n):
                try:
                    created.append(d.create_game(("Ann", "Ben"), (f"ann{d.port}.{i}@example.org",
                                                                  f"ben{d.port}.{i}@example.org")))
                except AssertionError as e:
                    failed.append(e)
        threads = [threading.Thread(target=create, args=(d, 8)) for d in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual(failed, [])
        self.assertEqual(len(created), 16)
        smtpmod.wait_for("an idle outbox", lambda: self.sql(
            "SELECT count(*) FROM outbox WHERE state IN ('queued', 'sending')") == "0")
        sent = self.sql("SELECT count(*) FROM outbox WHERE state = 'sent'")
        self.assertEqual(sent, "32", self.sql("SELECT state, count(*) FROM outbox GROUP BY state"))
        ids = [m.message_id for m in server.delivered()]
        self.assertEqual(len(ids), 32)
        self.assertEqual(len(set(ids)), 32, "no mail was sent twice")
        self.assertEqual(len(server.all()), 32, "nothing was offered twice")

    def test_an_event_reaches_a_stream_on_the_other_daemon_within_100_ms(self):
        a, b = self.start("a"), self.start("b")
        gid, tokens, _ = a.create_game()
        conn = http.client.HTTPConnection("127.0.0.1", b.port, timeout=30)
        self.addCleanup(conn.close)
        conn.request("GET", f"/api/games/{gid}/events", headers={"Accept": "text/event-stream"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)

        def next_event():
            fields = {}
            while True:
                line = r.readline().decode().rstrip("\n")
                if line == "" and "data" in fields:
                    return fields, time.monotonic()
                key, _, value = line.partition(":")
                if key in ("id", "event", "data"):
                    fields[key] = value.strip()
        first, _ = next_event()            # the state, at once
        delays = []
        for _ in range(5):
            seat, token = to_move(a, gid, tokens)
            ply, move = a_legal_move(a, gid, token)
            got = {}
            reader = threading.Thread(target=lambda: got.update(zip(("event", "at"), next_event())))
            reader.start()
            sent = a.move(gid, token, move, ply)
            answered = time.monotonic()
            self.assertEqual(sent.status, 201)
            reader.join(10)
            self.assertIn("event", got, "no event on the other daemon")
            self.assertEqual(int(got["event"]["id"]), a.game(gid)["version"])
            self.assertEqual(json.loads(got["event"]["data"])["ply"], ply + 1)
            delays.append(got["at"] - answered)
        self.assertLess(max(delays), EVENT_DELAY_S, delays)

    def test_the_daemons_carry_on_after_the_database_restarts(self):
        a, b = self.start("a"), self.start("b")
        gid, tokens, _ = a.create_game()
        self.pg.restart()
        # Every connection of both daemons was ended: each is made again at its next use,
        # unseen by the clients.
        for d in (a, b, a, b):
            seat, token = to_move(d, gid, tokens)
            ply, move = a_legal_move(d, gid, token)
            r = d.move(gid, token, move, ply)
            self.assertEqual(r.status, 201, r)
        self.assertEqual(a.game(gid)["ply"], 4)
        # The live events follow the database again too.
        conn = http.client.HTTPConnection("127.0.0.1", b.port, timeout=30)
        self.addCleanup(conn.close)
        conn.request("GET", f"/api/games/{gid}/events", headers={"Accept": "text/event-stream"})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        seat, token = to_move(a, gid, tokens)
        ply, move = a_legal_move(a, gid, token)
        self.assertEqual(a.move(gid, token, move, ply).status, 201)
        deadline = time.monotonic() + 10
        seen = []
        while time.monotonic() < deadline:
            line = r.readline().decode().strip()
            if line.startswith("id:"):
                seen.append(int(line[3:]))
                if seen[-1] == a.game(gid)["version"]:
                    break
        self.assertEqual(seen[-1:], [a.game(gid)["version"]], (seen, b.stderr()[-3000:]))
    def test_rate_limits_hold_across_the_daemons(self):
        a, b = self.start("a", "--games-per-hour", "3"), self.start("b", "--games-per-hour", "3")
        body = {"variant": "nchess", "seats": [{"name": "Ann"}, {"name": "Ben"}]}
        statuses = [d.post("/api/games", body).status for d in (a, b, a, b, a)]
        self.assertEqual(statuses, [201, 201, 201, 429, 429])
        self.assertEqual(self.sql("SELECT count(*) FROM games"), "3")


class MailToEither(PgDaemons, smtpmod.MailCase):
    """Replies by mail may reach any daemon: the MTA hands each to whichever it is given."""

    def setUp(self):
        smtpmod.MailCase.setUp(self)
        PgDaemons.setUp(self)

    def mails_to(self, server, address, n):
        return smtpmod.wait_for(f"{n} mails to {address}", lambda: (lambda got: got if len(got) >= n else None)(
            [m for m in server.delivered() if m.rcpt_tos == [address]]))

    def test_mail_in_to_either_daemon_acts_on_the_game(self):
        server = self.smtp()
        mail = ("--smtp", server.url, "--smtp-tls", "none", "--reply-domain", smtpmod.DOMAIN)
        a, b = self.start("a", *mail), self.start("b", *mail)
        zoe, ben = smtpmod.ZOE, smtpmod.BEN
        gid, tokens, _ = a.create_game((zoe[0], ben[0]), (zoe[1], ben[1]))
        invites = {m.rcpt_tos[0]: m for m in server.wait(2)}
        # Each asks for mail on the daemon that did not send the invitation's game.
        self.ask_for_mail(b, gid, invites[zoe[1]], "South")
        self.ask_for_mail(b, gid, invites[ben[1]], "North")
        ply, move = a_legal_move(a, gid, tokens["South"])
        self.assertEqual(a.move(gid, tokens["South"], move, ply).status, 201)
        # North answers its your-move mail through b's mail socket, South through a's.
        for n, (who, seat, d) in enumerate(((ben, "North", b), (zoe, "South", a))):
            turn = self.mails_to(server, who[1], 2)[-1]
            ply, move = a_legal_move(a, gid, tokens[seat])
            reply = smtpmod.make_reply(turn.msg, move, who)
            r = smtpmod.subprocess.run([daemon.ROOKERY, "mail-in", "--db", self.uri, "--sockets",
                                        os.path.join(d.workdir, "rookery"),
                                        "--recipient", turn.msg["Reply-To"].addresses[0].addr_spec],
                                       input=reply, capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(a.game(gid)["ply"], ply + 1)
            self.assertEqual(b.game(gid)["ply"], ply + 1)
            self.assertEqual(b.get(f"/api/games/{gid}/moves").json()["moves"][-1]["move"], move)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
