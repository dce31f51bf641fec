#!/usr/bin/env python3
"""live_events.py - GET /api/games/{id}/events, the Server-Sent Events stream, over real HTTP.

usage: python3 tests/api/live_events.py PATH-TO-ROOKERY [unittest options]

On connect the stream sends the game's state at once; every change makes one event whose id is the
game's version as GET /api/games/{id} reports it and whose data is that public JSON with the latest
move: "move" when the ply moved, "action" for a draw offer, "result" when the game ended. A client
that comes back with Last-Event-ID gets the current state at once when it missed something, and
nothing until the next change when it did not (the next thing it reads is a keep-alive comment).
Spectators never see a hidden Cyvasse setup. One client address may hold
LIMIT_EVENT_STREAMS_PER_ADDRESS streams (then 429 too_many_streams), and SIGTERM ends every open
stream cleanly and promptly.

The daemon runs with --events-keepalive 1, so that "nothing came" is "a keep-alive came first".
Python standard library only.
"""
import http.client
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, openapi  # noqa: E402
from harness.daemon import HTTP_TIMEOUT, LIMITS, Daemon, DaemonCase  # noqa: E402
from cyvasse_game import HIDDEN, LEAKS, WHITE_SETUP  # noqa: E402

PER_ADDRESS = LIMITS["LIMIT_EVENT_STREAMS_PER_ADDRESS"]
KEEPALIVE = ("--events-keepalive", "1")


class Stream:
    """One open event stream, read an event (or comment) at a time."""

    def __init__(self, d, gid, last_id=None, source=None):
        self.conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=HTTP_TIMEOUT,
                                               source_address=(source, 0) if source else None)
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        path = f"/api/games/{gid}/events"
        self.conn.request("GET", path, headers=headers)
        self.r = self.conn.getresponse()
        self.status = self.r.status
        # A refusal is read whole and held to the API contract, as Daemon.request does; a stream's headers too.
        self.body = b"" if self.status == 200 else self.r.read()
        problems = openapi.check_answer("GET", path, self.status, self.r.headers, self.body)
        if problems:
            d.contract_problems += problems
            raise AssertionError("the answer breaks the API contract (docs/openapi.yaml):\n" + "\n".join(problems))

    def read(self):
        """The next event as {"id", "event", "data" (decoded)}, {"comment": text}, or None at the end."""
        fields, comment = {}, None
        while True:
            line = self.r.readline()
            if not line:
                return None
            line = line.decode("utf-8").rstrip("\n")
            if line == "":
                if "data" in fields:
                    fields["data"] = json.loads(fields["data"])
                    return fields
                if comment is not None:
                    return {"comment": comment}
                continue
            if line.startswith(":"):
                comment = line[1:].strip()
                continue
            key, _, value = line.partition(":")
            fields[key] = value[1:] if value.startswith(" ") else value

    def event(self):
        """The next event, keep-alive comments skipped."""
        while True:
            e = self.read()
            if e is None or "comment" not in e:
                return e

    def close(self):
        self.conn.close()


class LiveCase(DaemonCase):
    daemon_args = KEEPALIVE

    def stream(self, gid, **kw):
        s = Stream(self.d, gid, **kw)
        self.addCleanup(s.close)
        return s

    def assertEventOf(self, e, kind, gid, token=None):
        """e is a kind event of the game as GET /api/games/{gid} shows it now (public view)."""
        self.assertIsNotNone(e, "the stream ended")
        self.assertEqual(e.get("event"), kind, e)
        game = self.d.game(gid)
        self.assertEqual(int(e["id"]), game["version"])
        data = dict(e["data"])
        data.pop("last_move")
        self.assertEqual(data, game)
        return e["data"]


class EventTests(LiveCase):
    def test_connect_sends_the_state_at_once(self):
        gid, _, _ = self.d.create_game()
        s = self.stream(gid)
        self.assertEqual(s.status, 200)
        self.assertEqual(s.r.getheader("Content-Type"), "text/event-stream; charset=utf-8")
        self.assertEqual(s.r.getheader("Cache-Control"), "no-store")
        data = self.assertEventOf(s.read(), "state", gid)
        self.assertIsNone(data["last_move"])
        self.assertEqual(data["ply"], 0)
        self.assertNotIn("legal_moves", data)
        # Then only keep-alive comments while nothing happens.
        self.assertEqual(s.read(), {"comment": "keep-alive"})

    def test_move_draw_offer_and_result_each_make_an_event(self):
        d = self.d
        gid, tok, _ = d.create_game()
        s = self.stream(gid)
        self.assertEventOf(s.event(), "state", gid)
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        data = self.assertEventOf(s.event(), "move", gid)
        self.assertEqual(data["ply"], 1)
        self.assertEqual((data["last_move"]["ply"], data["last_move"]["seat"], data["last_move"]["move"]),
                         (0, "South", "S 7 1 6 1"))
        self.assertEqual(d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tok["North"]).status, 200)
        data = self.assertEventOf(s.event(), "action", gid)
        self.assertEqual(data["draw_offer"], "North")
        self.assertEqual(data["last_move"]["move"], "S 7 1 6 1")
        self.assertEqual(d.post(f"/api/games/{gid}/resign", {}, token=tok["South"]).status, 200)
        data = self.assertEventOf(s.event(), "result", gid)
        self.assertEqual(data["status"], "over")
        self.assertIsNotNone(data["result"])

    def test_every_stream_of_a_game_gets_the_event(self):
        d = self.d
        gid, tok, _ = d.create_game()
        streams = [self.stream(gid) for _ in range(5)]
        for s in streams:
            self.assertEventOf(s.event(), "state", gid)
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        for s in streams:
            self.assertEventOf(s.event(), "move", gid)

    def test_unknown_game(self):
        s = self.stream("nosuchgame")
        self.assertEqual(s.status, 404)
        self.assertEqual(json.loads(s.body)["error"]["code"], "not_found")


class ResumeTests(LiveCase):
    def test_resume_after_a_drop_sends_what_was_missed_as_the_state(self):
        d = self.d
        gid, tok, _ = d.create_game()
        s = Stream(d, gid)
        first = s.event()
        self.assertEventOf(first, "state", gid)
        s.close()
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        again = self.stream(gid, last_id=first["id"])
        data = self.assertEventOf(again.read(), "state", gid)
        self.assertGreater(int(data["version"]), int(first["id"]))
        self.assertEqual(data["last_move"]["move"], "S 7 1 6 1")

    def test_resume_up_to_date_sends_nothing_until_the_next_change(self):
        d = self.d
        gid, tok, _ = d.create_game()
        version = d.game(gid)["version"]
        s = self.stream(gid, last_id=version)
        self.assertEqual(s.read(), {"comment": "keep-alive"})
        self.assertEqual(d.move(gid, tok["South"], "S 7 1 6 1", 0).status, 201)
        data = self.assertEventOf(s.event(), "move", gid)
        self.assertEqual(data["ply"], 1)

    def test_a_made_up_last_event_id_gets_the_state(self):
        gid, _, _ = self.d.create_game()
        for bad in ("999999", "x", "-1", "", "9" * 40):
            s = self.stream(gid, last_id=bad)
            self.assertEventOf(s.read(), "state", gid)


class SecrecyTests(LiveCase):
    def test_spectators_never_see_a_hidden_setup(self):
        d = self.d
        r = d.post("/api/games", {"variant": "cyvasse", "seats": [{"name": "Wes"}, {"name": "Bea"}]})
        self.assertEqual(r.status, 201, r)
        gid = r.json()["id"]
        tok = {s["seat"]: s["token"] for s in r.json()["seats"]}
        d.secrets.update(tok.values())
        s = self.stream(gid)
        self.assertEventOf(s.event(), "state", gid)
        self.assertEqual(d.move(gid, tok["White"], WHITE_SETUP, 0).status, 201)
        raw = s.event()
        data = self.assertEventOf(raw, "move", gid)
        self.assertEqual(data["last_move"]["move"], HIDDEN)
        self.assertTrue(data["last_move"]["hidden"])
        text = json.dumps(raw)
        for leak in LEAKS:
            self.assertNotIn(leak, text)
        self.assertNotIn("legal", data)
        # A resume shows no more.
        again = self.stream(gid, last_id=0)
        text = json.dumps(again.read())
        for leak in LEAKS:
            self.assertNotIn(leak, text)


class CapTests(LiveCase):
    daemon_args = ()   # the default keep-alive: a closed stream must be noticed without one

    def test_one_address_holds_a_bounded_number_of_streams(self):
        gid, _, _ = self.d.create_game()
        held = [self.stream(gid, source="127.0.0.5") for _ in range(PER_ADDRESS)]
        for s in held:
            self.assertEqual(s.status, 200)
            self.assertEventOf(s.read(), "state", gid)
        over = self.stream(gid, source="127.0.0.5")
        self.assertEqual(over.status, 429)
        self.assertEqual(over.r.getheader("Content-Type"), "application/json")
        self.assertEqual(json.loads(over.body)["error"]["code"], "too_many_streams")
        # Another address is not held to this one's streams.
        other = self.stream(gid, source="127.0.0.6")
        self.assertEqual(other.status, 200)
        # A stream that closes makes room: the server notices the hang-up while the stream rests,
        # long before the next keep-alive would find it.
        held.pop().close()
        deadline = time.monotonic() + LIMITS["LIMIT_EVENTS_KEEPALIVE_S"] / 2
        while True:
            again = self.stream(gid, source="127.0.0.5")
            if again.status == 200 or time.monotonic() > deadline:
                break
            again.close()
            time.sleep(0.2)
        self.assertEqual(again.status, 200)


class ShutdownTests(unittest.TestCase):
    def test_sigterm_ends_open_streams_cleanly(self):
        d = Daemon(*KEEPALIVE)
        self.addCleanup(d.cleanup)
        d.start()
        gid, _, _ = d.create_game()
        streams = [Stream(d, gid) for _ in range(4)]
        for s in streams:
            self.addCleanup(s.close)
            self.assertEqual(s.event()["event"], "state")
        t0 = time.monotonic()
        log = d.stop()
        self.assertLess(time.monotonic() - t0, LIMITS["LIMIT_SHUTDOWN_GRACE_S"] / 2)
        for s in streams:
            # A clean end of the chunked body (a cut connection would raise IncompleteRead).
            while True:
                e = s.read()
                if e is None:
                    break
                self.assertIn("comment", e)
        self.assertNotRegex(log, r"/events 200 [0-9.]+ms \(aborted\)")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
