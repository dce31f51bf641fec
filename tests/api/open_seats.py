#!/usr/bin/env python3
"""open_seats.py - seats left open at creation, taken by whoever joins first; the game starts with the last.

usage: python3 tests/api/open_seats.py PATH-TO-ROOKERY [unittest options]

- POST /api/games with {"open": true} seats (some, or all): the answer (no token nor link for an
  open seat), the stored rows, the game JSON (open_seats, open_until, each seat's open) for a
  spectator and a seat, with no address or token in it;
- before the start every change is refused with 409 game_not_started, by the API and by the
  page's forms, and changes nothing: moves, resigning, draws, client seeds, conditional moves,
  messages, gifts of time, and a move by mail (answered with a refusal);
- POST /api/games/{id}/join: 201 with a working token; the first open seat when none is named; the
  last seat starts the game (its clock runs, the first your-move mail goes, the invitations say
  so); two joiners racing for one seat over real HTTP, twenty times: one 201 and one 409 each
  time; two racing for the last two seats, ten times: both 201, one of them starting the game
  (the clocks of the seats to move run); a full game, an unknown game, a seat that is not open,
  bad input (400, 413) changing nothing; the per-address limit shared with creation (429);
- the pages: the home form's open{N} checkbox, the created page, an open game's page with its join
  form (form token, 303 to the new seat link, errors shown on the page);
- expiry: the sweeper ends an open game nobody filled after LIMIT_OPEN_GAME_DAYS (libfaketime
  moves the daemon's clock), with result "expired", a new version and no mail; joining it is 409
  game_over.

Python standard library only.
"""
import calendar
import html
import json
import os
import re
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.clock import DAY, HOUR, ClockCase, iso_time  # noqa: E402
from harness.daemon import LIMITS, DaemonCase, db_query  # noqa: E402
from harness.maildir import ANN, BEN, text_of  # noqa: E402

OPEN_DAYS = LIMITS["LIMIT_OPEN_GAME_DAYS"]
FIRST = "S 7 1 6 1"          # a first move of South in Nchess
SEAT_LINK = re.compile(r"/games/([a-z0-9]+)\?seat=([A-Za-z0-9_-]+)")


def create(d, seats, variant="nchess", clock=None):
    """POST /api/games with seats given as names, (name, email) pairs or None for an open seat."""
    body = {"variant": variant, "seats": [{"open": True} if s is None else
                                          {"name": s[0], "email": s[1]} if isinstance(s, tuple) else {"name": s}
                                          for s in seats]}
    if clock:
        body["clock"] = clock
    r = d.post("/api/games", body)
    assert r.status == 201, r
    g = r.json()
    tokens = {s["seat"]: s["token"] for s in g["seats"] if "token" in s}
    d.secrets.update(tokens.values())
    return g["id"], tokens, g


def join(d, gid, body, conn=None):
    r = d.post(f"/api/games/{gid}/join", body, conn=conn)
    if r.status == 201:
        d.secrets.add(r.json()["token"])
    return r


def game_rows(d, gid):
    """What a refused change must leave as it was: the game's row and its seats' rows."""
    return (db_query(d.db, "SELECT * FROM games WHERE id = ?", (gid,)),
            db_query(d.db, "SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (gid,)))


class OpenSeats(DaemonCase):

    daemon_args = ("--games-per-hour", "0")

    def test_create_answer_and_view(self):
        gid, tokens, g = create(self.d, [("Ann", "ann.private@example.org"), None])
        self.assertEqual(g["seats"][1], {"seat": "North", "open": True})
        self.assertEqual(set(g["seats"][0]), {"seat", "name", "token", "url"})
        self.assertEqual(list(tokens), ["South"])
        rows = db_query(self.d.db, "SELECT seat, name, email, open, length(token_hash) FROM seats "
                        "WHERE game_id = ? ORDER BY seat", (gid,))
        self.assertEqual(rows, [(0, "Ann", "ann.private@example.org", 0, 32), (1, "North", None, 1, 32)])
        created, until = db_query(self.d.db, "SELECT created_at, open_until FROM games WHERE id = ?", (gid,))[0]
        self.assertEqual(iso_time(until) - iso_time(created), OPEN_DAYS * DAY)
        for token in (None, tokens["South"]):
            r = self.d.get(f"/api/games/{gid}", token=token)
            self.assertEqual(r.status, 200, r)
            v = r.json()
            self.assertEqual(v["open_seats"], 1)
            self.assertEqual(v["open_until"], until)
            self.assertEqual([(s["seat"], s["name"], s["open"]) for s in v["seats"]],
                             [("South", "Ann", False), ("North", "North", True)])
            self.assertEqual(v["turn"], [], "an open game waits for nobody's move")
            self.assertIs(v["client_seeds_open"], False)
            self.assertEqual(v["status"], "running")
            self.assertNotIn("ann.private", r.text)
            self.assertNotIn(tokens["South"], r.text)
        self.assertEqual(self.d.game(gid, tokens["South"])["legal_moves"], [])
        # The record of a game still waiting: no address, no token, no ply.
        record = self.d.get(f"/api/games/{gid}/record")
        self.assertEqual(record.status, 200, record)
        self.assertIn('[Result "*"]', record.text)
        self.assertIn('[PlyCount "0"]', record.text)
        self.assertNotIn("ann.private", record.text)
        self.assertNotIn(tokens["South"], record.text)
        # Every seat open: a game set up for others; nobody holds a token.
        gid2, tokens2, g2 = create(self.d, [None, None])
        self.assertEqual(tokens2, {})
        self.assertEqual(g2["seats"], [{"seat": "South", "open": True}, {"seat": "North", "open": True}])
        self.assertEqual(self.d.game(gid2)["open_seats"], 2)
        # A game without open seats says so too.
        gid3, _, _ = create(self.d, ["Ann", "Ben"])
        v = self.d.game(gid3)
        self.assertEqual(v["open_seats"], 0)
        self.assertNotIn("open_until", v)
        self.assertEqual([s["open"] for s in v["seats"]], [False, False])

    def test_bad_open_seats_at_creation(self):
        before = db_query(self.d.db, "SELECT COUNT(*) FROM games")
        for seat in ({"open": False}, {"open": True, "name": "Ann"}, {"open": 1}, {"open": True, "email": "a@b.org"},
                     {"open": None}):
            r = self.d.post("/api/games", {"variant": "nchess", "seats": [{"name": "Ann"}, seat]})
            self.assertError(r, 400, "bad_request")
        self.assertEqual(db_query(self.d.db, "SELECT COUNT(*) FROM games"), before)

    def test_changes_refused_before_the_start(self):
        gid, tokens, _ = create(self.d, ["Ann", None], clock={"type": "per_move", "days": 3})
        tok = tokens["South"]
        before = game_rows(self.d, gid)
        refused = [
            ("POST", "moves", {"move": FIRST, "ply": 0}),
            ("POST", "resign", {}),
            ("POST", "draw", {"action": "offer"}),
            ("PUT", "client-seed", {"client_seed": "mine"}),
            ("PUT", "conditional", {"if": [{"move": "s 3 1 4 1", "then": "S 7 2 6 2"}]}),
            ("DELETE", "conditional", None),
            ("POST", "messages", {"text": "hello?"}),
            ("POST", "clock", {"give": {"seat": "North", "days": 1}}),
        ]
        for method, what, body in refused:
            r = self.d.request(method, f"/api/games/{gid}/{what}", body, token=tok)
            self.assertError(r, 409, "game_not_started")
        self.assertEqual(game_rows(self.d, gid), before)
        for table in ("moves", "actions", "messages", "conditionals"):
            self.assertEqual(db_query(self.d.db, f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (gid,)), [(0,)])
        c = self.d.game(gid)["clock"]
        self.assertEqual([s["deadline"] for s in c["seats"]], [None, None], "no clock runs before the start")
        # The seat's page: no move, resign or draw form, and the forms posted anyway are refused.
        page = self.d.get(f"/games/{gid}?seat={tok}")
        self.assertEqual(page.status, 200, page)
        self.assertIn("waits for 1 more player", page.text)
        for action in ("move", "resign", "draw", "messages", "client-seed"):
            self.assertNotIn(f'action="/games/{gid}/{action}"', page.text, action)
        self.assertNotIn(f'action="/games/{gid}/join"', page.text, "a seat holder is offered no seat")
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
        for action, fields in (("move", {"move": FIRST, "ply": "0"}), ("resign", {"confirm": "yes"}),
                               ("draw", {"action": "offer"}), ("messages", {"text": "hi"}),
                               ("client-seed", {"client_seed": "mine"})):
            r = self.d.post_form(f"/games/{gid}/{action}", {"seat": tok, "csrf": csrf, **fields}, origin=self.d.base)
            self.assertEqual(r.status, 409, (action, r))
            self.assertIn("has not started", html.unescape(r.text), action)
        self.assertEqual(game_rows(self.d, gid), before)

    def test_join_starts_the_game(self):
        gid, tokens, _ = create(self.d, ["Ann", None], clock={"type": "per_move", "days": 3})
        v0 = self.d.game(gid)["version"]
        t0 = time.time()
        r = join(self.d, gid, {"seat": "North", "name": "Ben"})
        self.assertEqual(r.status, 201, r)
        j = r.json()
        self.assertEqual(set(j), {"id", "seat", "name", "token", "url", "started"})
        self.assertEqual((j["id"], j["seat"], j["name"], j["started"]), (gid, "North", "Ben", True))
        self.assertEqual(j["url"], f"{self.d.base}/games/{gid}?seat={j['token']}")
        v = self.d.game(gid, j["token"])
        self.assertEqual(v["seat"], "North")
        self.assertGreater(v["version"], v0)
        self.assertEqual(v["open_seats"], 0)
        self.assertNotIn("open_until", v)
        self.assertEqual([(s["name"], s["open"]) for s in v["seats"]], [("Ann", False), ("Ben", False)])
        self.assertEqual(v["turn"], ["South"])
        self.assertIs(v["client_seeds_open"], True)
        south = next(s for s in v["clock"]["seats"] if s["seat"] == "South")
        self.assertIsNotNone(south["deadline"], "the clock of the seat to move runs from the start")
        self.assertAlmostEqual(iso_time(south["deadline"]), t0 + 3 * DAY, delta=120)
        # The game is on: both tokens act.
        self.d.play(gid, {"South": tokens["South"], "North": j["token"]}, [FIRST, "s 3 1 4 1"])
        r = self.d.post(f"/api/games/{gid}/messages", {"text": "good game"}, token=j["token"])
        self.assertEqual(r.status, 201, r)
        # Full now.
        self.assertError(join(self.d, gid, {"name": "Cid"}), 409, "seat_taken")
        self.assertError(join(self.d, gid, {"seat": "North", "name": "Cid"}), 409, "seat_taken")

    def test_join_chooses_and_counts_seats(self):
        gid, _, _ = create(self.d, ["A", None, "C", None], variant="complex-allegiance")
        names = [s["seat"] for s in self.d.game(gid)["seats"]]
        r = join(self.d, gid, {"name": "Bea", "email": ""})
        self.assertEqual(r.status, 201, r)
        self.assertEqual((r.json()["seat"], r.json()["started"]), (names[1], False))
        self.assertEqual(self.d.game(gid)["open_seats"], 1)
        self.assertError(join(self.d, gid, {"seat": names[1], "name": "Bo"}), 409, "seat_taken")
        self.assertError(join(self.d, gid, {"seat": names[0], "name": "Bo"}), 409, "seat_taken")
        self.assertError(join(self.d, gid, {"seat": "Nowhere", "name": "Bo"}), 400, "bad_request")
        self.assertError(self.d.post(f"/api/games/{gid}/moves", {"move": "x", "ply": 0}, token=r.json()["token"]),
                         409, "game_not_started")
        r = join(self.d, gid, {"seat": names[3].lower(), "name": "Dee", "email": "dee@example.org"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual((r.json()["seat"], r.json()["started"]), (names[3], True))
        self.assertEqual(db_query(self.d.db, "SELECT name, email, open FROM seats WHERE game_id = ? AND seat = 3",
                                  (gid,)), [("Dee", "dee@example.org", 0)])
        self.assertNotIn("dee@example.org", self.d.get(f"/api/games/{gid}").text)
        self.assertNotIn("dee@example.org", self.d.get(f"/games/{gid}").text)

    def race(self, gid, bodies):
        """The joins of bodies sent to gid at the same moment, each on a connection of its own: their answers."""
        barrier = threading.Barrier(len(bodies))
        answers = [None] * len(bodies)
        conns = [self.d.connect() for _ in bodies]
        for c in conns:
            c.connect()

        def run(i):
            barrier.wait()
            answers[i] = join(self.d, gid, bodies[i], conn=conns[i])

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for c in conns:
            c.close()
        return answers

    def test_racing_joiners(self):
        """Two players press "join" at the same moment for the one open seat: one gets it."""
        for round_ in range(20):
            gid, tokens, _ = create(self.d, ["Ann", None])
            answers = self.race(gid, [{"seat": "North", "name": f"Racer {i}"} for i in range(2)])
            statuses = sorted(a.status for a in answers)
            self.assertEqual(statuses, [201, 409], (round_, answers))
            won = next(i for i in range(2) if answers[i].status == 201)
            lost = answers[1 - won]
            self.assertEqual(lost.json()["error"]["code"], "seat_taken", lost)
            self.assertEqual(db_query(self.d.db, "SELECT name, open FROM seats WHERE game_id = ? AND seat = 1",
                                      (gid,)), [(f"Racer {won}", 0)])
            self.assertEqual(self.d.game(gid, answers[won].json()["token"])["seat"], "North")

    def test_racing_for_the_last_two_seats_starts_once(self):
        """Two players take the last two open seats at the same moment: both get one, one starts the game."""
        for round_ in range(10):
            gid, _, _ = create(self.d, ["A", None, None, "D"], variant="complex-allegiance",
                               clock={"type": "per_move", "days": 3})
            answers = self.race(gid, [{"name": f"Racer {i}"} for i in range(2)])
            self.assertEqual([a.status for a in answers], [201, 201], (round_, answers))
            self.assertEqual(len({a.json()["seat"] for a in answers}), 2, answers)
            self.assertEqual(sorted(a.json()["started"] for a in answers), [False, True], answers)
            v = self.d.game(gid)
            self.assertEqual(v["open_seats"], 0)
            self.assertEqual([s["seat"] for s in v["clock"]["seats"] if s["deadline"]], v["turn"])

    def test_bad_joins_change_nothing(self):
        gid, _, _ = create(self.d, ["Ann", None])
        before = game_rows(self.d, gid)
        long_name = "x" * (LIMITS["LIMIT_NAME"] + 1)
        for body, status, code in (
                ({}, 400, "bad_request"),
                ({"seat": "North"}, 400, "bad_request"),
                ({"name": ""}, 400, "bad_request"),
                ({"name": 7}, 400, "bad_request"),
                ({"name": "Ben", "extra": 1}, 400, "bad_request"),
                ({"name": "Ben", "seat": 1}, 400, "bad_request"),
                ({"name": "Ben\u202e"}, 400, "bad_request"),
                ({"name": "Ben", "email": "not-an-address"}, 400, "bad_request"),
                ({"name": long_name}, 413, "too_large"),
                ({"name": "Ben", "email": "b" * 250 + "@example.org"}, 413, "too_large"),
                ({"name": "Ben", "seat": "East"}, 400, "bad_request"),
                ({"name": "Ben", "seat": "South"}, 409, "seat_taken")):
            self.assertError(join(self.d, gid, body), status, code)
        r = self.d.post(f"/api/games/{gid}/join", "{\"name\": ", headers={"Content-Type": "application/json"})
        self.assertEqual(r.status, 400, r)
        r = self.d.post(f"/api/games/{gid}/join", {"name": "x" * (LIMITS["LIMIT_BODY_JSON"] + 10)})
        self.assertError(r, 413, "too_large")
        r = self.d.post(f"/api/games/{gid}/join", b'{"name": "Ben"}', headers={"Content-Type": "text/plain"})
        self.assertEqual(r.status, 415, r)
        self.assertEqual(game_rows(self.d, gid), before)
        self.assertError(join(self.d, "nosuchgame22", {"name": "Ben"}), 404, "not_found")
        # A game with no open seat at all.
        full, _, _ = create(self.d, ["Ann", "Ben"])
        self.assertError(join(self.d, full, {"name": "Cid"}), 409, "seat_taken")

    def test_pages(self):
        # The home form: seat 1 left open, whatever its fields say.
        r = self.d.post_page_form("/games", {"variant": "nchess", "name0": "Ann", "name1": "Typed",
                                             "email1": "typed@example.org", "open1": "1"}, origin=self.d.base)
        self.assertEqual(r.status, 201, r)
        links = sorted(set(SEAT_LINK.findall(r.text)))
        self.assertEqual(len(links), 1, r.text)
        gid = links[0][0]
        self.d.secrets.add(links[0][1])
        self.assertIn("open: anyone may take it", r.text)
        self.assertIn(f'href="{self.d.base}/games/{gid}"', r.text)
        self.assertEqual(db_query(self.d.db, "SELECT name, email, open FROM seats WHERE game_id = ? ORDER BY seat",
                                  (gid,)), [("Ann", None, 0), ("North", None, 1)])
        # The public page: the join form with the open seats only.
        page = self.d.get(f"/games/{gid}")
        self.assertEqual(page.status, 200, page)
        self.assertIn("waits for 1 more player", page.text)
        form = re.search(r'<form method="post" action="/games/%s/join"[^>]*>(.*?)</form>' % gid, page.text, re.S)
        self.assertTrue(form, page.text[-3000:])
        self.assertEqual(re.findall(r'<option value="([^"]*)"', form.group(1)), ["North"])
        self.assertIn('name="csrf"', form.group(1))
        # Without the form token, or from another site: refused, nothing taken.
        r = self.d.post_form(f"/games/{gid}/join", {"seat": "North", "name": "Ben", "csrf": "0" * 64},
                             origin=self.d.base)
        self.assertEqual(r.status, 403, r)
        r = self.d.post_page_form(f"/games/{gid}/join", {"seat": "North", "name": "Ben"}, page=f"/games/{gid}",
                                  origin="https://evil.example")
        self.assertEqual(r.status, 403, r)
        # No name: the page again, with the reason and the form.
        r = self.d.post_page_form(f"/games/{gid}/join", {"seat": "North", "name": ""}, page=f"/games/{gid}",
                                  origin=self.d.base)
        self.assertEqual(r.status, 400, r)
        self.assertIn('class="error"', r.text)
        self.assertIn("needs a name", r.text)
        self.assertIn(f'action="/games/{gid}/join"', r.text)
        self.assertEqual(self.d.game(gid)["open_seats"], 1)
        # Taken: 303 to the new seat link, whose page is the seat's.
        r = self.d.post_page_form(f"/games/{gid}/join", {"seat": "North", "name": "Ben", "email": ""},
                                  page=f"/games/{gid}", origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        loc = urllib.parse.urlparse(r.header("Location"))
        token = urllib.parse.parse_qs(loc.query)["seat"][0]
        self.d.secrets.add(token)
        self.assertEqual(loc.path, f"/games/{gid}")
        seat_page = self.d.get(f"/games/{gid}?seat={token}")
        self.assertEqual(seat_page.status, 200, seat_page)
        self.assertIn("You play North", seat_page.text)
        self.assertNotIn("waits for", seat_page.text)
        self.assertEqual(self.d.game(gid, token)["seat"], "North")
        # Started: no join form any more; a late form gets the reason on the page.
        self.assertNotIn(f'action="/games/{gid}/join"', self.d.get(f"/games/{gid}").text)
        # (A form kept open in another tab: any page's form token goes with the cookie.)
        r = self.d.post_page_form(f"/games/{gid}/join", {"seat": "North", "name": "Cid"}, origin=self.d.base)
        self.assertEqual(r.status, 409, r)
        self.assertIn("taken", r.text)


class JoinRateLimit(DaemonCase):
    """Joining takes a seat as creating does: it counts against the same per-address limit."""

    daemon_args = ("--games-per-hour", "2")

    def test_join_shares_the_creation_limit(self):
        gid, _, _ = create(self.d, ["A", None, None, None], variant="complex-allegiance")
        self.assertEqual(join(self.d, gid, {"name": "B"}).status, 201)
        before = game_rows(self.d, gid)
        r = join(self.d, gid, {"name": "C"})
        self.assertError(r, 429, "rate_limited")
        self.assertEqual(game_rows(self.d, gid), before)
        # Another address may still join.
        r = join(self.d, gid, {"name": "C"}, conn=self.d.connect("127.0.0.2"))
        self.assertEqual(r.status, 201, r)


class OpenGamesInTime(ClockCase):
    """Mail at the start, and open games lapsing, with the daemon's clock moved."""

    def test_start_mails_and_clock(self):
        gid, tokens, _ = create(self.d, [ANN, None], clock={"type": "per_move", "days": 3})
        inv = [m for m in self.mails(ANN[1]) if ".invite@" in m["Message-ID"]]
        self.assertEqual(len(inv), 1)
        self.assertIn("starts once its open seats are taken", text_of(inv[0]))
        self.assertIn("as South against whoever takes the open seat North", " ".join(text_of(inv[0]).split()))
        self.assertNotIn("You move first", text_of(inv[0]))
        self.d.confirm_by_invitation(gid, ANN[1])
        # A move by mail before the start: refused, and told so.
        self.mail_in(self.reply(inv[0], FIRST, ANN[1]))
        self.idle_outbox()
        refusal = [m for m in self.mails(ANN[1]) if ".refused." in m["Message-ID"]]
        self.assertEqual(len(refusal), 1, [m["Message-ID"] for m in self.mails(ANN[1])])
        self.assertIn("has not started", text_of(refusal[0]))
        self.assertEqual(self.query("SELECT COUNT(*) FROM moves WHERE game_id = ?", gid), [(0,)])
        n_ann = len(self.mails(ANN[1]))
        self.clock.advance(2 * DAY)
        t0 = self.clock.now()
        r = join(self.d, gid, {"name": BEN[0], "email": BEN[1]})
        self.assertEqual(r.status, 201, r)
        self.assertIs(r.json()["started"], True)
        # Ann, to move, hears that the game has begun; Ben gets his invitation.
        new = self.mails(ANN[1])[n_ann:]
        self.assertEqual(len(new), 1, [m["Message-ID"] for m in new])
        self.assertIn(".your_turn.", new[0]["Message-ID"])
        self.assertIn("took the last open seat (North): the game has begun", text_of(new[0]))
        self.assertIn("Your deadline:", text_of(new[0]))
        ben = self.mails(BEN[1])
        self.assertEqual(len(ben), 1)
        self.assertIn(".invite@", ben[0]["Message-ID"])
        self.assertNotIn("starts once its open seats are taken", text_of(ben[0]))
        south = self.seat_clock(self.d.game(gid), "South")
        self.assertAlmostEqual(iso_time(south["deadline"]), t0 + 3 * DAY, delta=120,
                               msg="the clock runs from the start, not from the creation")

    def test_open_games_lapse(self):
        gid, tokens, _ = create(self.d, [ANN, None], clock={"type": "per_move", "days": 3})
        gid_full, _, _ = create(self.d, ["Cid", None])
        self.assertEqual(join(self.d, gid_full, {"name": "Dee"}).status, 201)
        self.idle_outbox()
        outbox = self.query("SELECT COUNT(*) FROM outbox")
        version = self.d.game(gid)["version"]
        self.clock.advance(OPEN_DAYS * DAY - HOUR)
        self.wait_sweep()
        self.wait_sweep()
        self.assertEqual(self.d.game(gid)["status"], "running", "not before its time")
        self.clock.advance(2 * HOUR)
        self.wait_sweep()
        self.wait_sweep()
        v = self.d.game(gid)
        self.assertEqual(v["status"], "over")
        self.assertEqual(v["result"]["summary"], "expired")
        self.assertEqual(v["result"]["ranks"], [])
        self.assertEqual(v["open_seats"], 1)
        self.assertGreater(v["version"], version)
        # Its record says it ended unplayed (the harness reads and replays it when the daemon stops).
        record = self.d.get(f"/api/games/{gid}/record")
        self.assertEqual(record.status, 200, record)
        self.assertIn('[Termination "expired"]', record.text)
        self.assertIn('[PlyCount "0"]', record.text)
        self.assertEqual(self.query("SELECT status, result, ranks FROM games WHERE id = ?", gid),
                         [("over", "expired", None)])
        self.assertEqual(self.d.game(gid_full)["status"], "running", "a game that started goes on")
        self.idle_outbox()
        self.assertEqual(self.query("SELECT COUNT(*) FROM outbox"), outbox, "a lapsed game sends no mail")
        # The sweeper looks for lapsed games at every sweep: its query (db_games_expire_open's)
        # reads the index of the open games only, never the whole table.
        plan = database.plan(self.d.db, "SELECT id FROM games WHERE status = 'running' AND open_seats > 0 "
                             "AND open_until <= ? LIMIT ?", ("2100-01-01T00:00:00Z", 100))
        if database.is_postgresql(self.d.db):
            self.assertRegex(plan, r"Index (Only )?Scan using games_open_until on games\b", plan)
        else:
            self.assertIn("SEARCH games USING INDEX games_open_until (open_until<?)", plan)
        self.assertError(join(self.d, gid, {"name": BEN[0]}), 409, "game_over")
        self.assertError(self.d.move(gid, tokens["South"], FIRST, 0), 409, "game_over")
        page = self.d.get(f"/games/{gid}")
        self.assertNotIn(f'action="/games/{gid}/join"', page.text)

    def assertError(self, r, status, code):
        self.assertEqual(r.status, status, r)
        self.assertEqual(r.json()["error"]["code"], code, r)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
