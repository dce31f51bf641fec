#!/usr/bin/env python3
"""game_lists.py - the lists of games (GET /api/games and the page /games) against the real daemon.

usage: python3 tests/api/game_lists.py PATH-TO-ROOKERY [unittest options]

Games are listed newest first (created_at, then id) a page at a time behind an opaque cursor:
  - paging with limit=2 through more than two pages gives every game once, in order, and a game
    created between two pages moves no page (it shows on the first page of a fresh listing);
  - status (active, finished, open) and variant filter, alone and together; a resigned game moves
    from the active list to the finished one with its result;
  - a bad limit, cursor (garbled, forged, injected, not canonical), status, variant, an unknown or
    repeated parameter: 400 bad_request, and the database is as it was;
  - each filter's query reads an index of migration 0016 (EXPLAIN QUERY PLAN): none scans the table;
  - the page /games: its three sections, the filter form, the "Older games" link followed to the end,
    a bad parameter as an HTML 400;
  - open games (seats left open at creation, the open-seats part of issue 19): listed as open with
    their open seats shown as such. Until POST /api/games takes {"open": true} seats (400 before),
    those tests are skipped, not failed.
"""
import base64
import html
import os
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.daemon import DaemonCase, LIMITS  # noqa: E402

VARIANT_SEATS = {"nchess": 2, "conversion-chess": 2, "cyvasse": 2, "complex-allegiance": 4, "civil-war": 4}
ENTRY_KEYS = {"id", "variant", "title", "status", "seats", "ply", "result", "created_at", "updated_at", "url"}

# The statements of db/db_game_list.c, one per filter (listing given, variant given).
LISTED_GAMES = (
    "SELECT g.id, g.variant, g.listing, g.ply, g.result, g.created_at, g.updated_at, s.seat, s.name, s.open "
    "FROM (SELECT id, variant, listing, ply, result, created_at, updated_at FROM games "
    "WHERE listing IS NOT NULL{} AND (created_at, id) < (?3, ?4) "
    "ORDER BY created_at DESC, id DESC LIMIT ?5) g JOIN seats s ON s.game_id = g.id "
    "ORDER BY g.created_at DESC, g.id DESC, s.seat")
FILTERS = {"": "games_listed", " AND variant = ?2": "games_listed_variant",
           " AND listing = ?1": "games_listing", " AND listing = ?1 AND variant = ?2": "games_listing_variant"}


def cursor_of(raw):
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


class Lists(DaemonCase):
    maxDiff = None

    def new_game(self, variant="nchess", names=None):
        n = VARIANT_SEATS[variant]
        names = names or [f"P{i}" for i in range(n)]
        r = self.d.post("/api/games", {"variant": variant, "seats": [{"name": x} for x in names]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def listing(self, query="", status=200):
        r = self.d.get("/api/games" + (("?" + query) if query else ""))
        self.assertEqual(r.status, status, r)
        return r.json()

    def all_pages(self, query, limit):
        """Every page of a listing: the ids in the order given, and the number of pages."""
        ids, cursor, pages = [], None, 0
        while True:
            q = f"{query}&limit={limit}" + (f"&cursor={cursor}" if cursor else "")
            page = self.listing(q.lstrip("&"))
            self.assertLessEqual(len(page["games"]), limit)
            ids += [g["id"] for g in page["games"]]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                return ids, pages
            self.assertRegex(cursor, r"^[A-Za-z0-9_-]+$", "a cursor goes into a query as it is")

    def expected(self, status=None, variant=None):
        """The ids a listing must give, from the database itself: newest first, then by id."""
        rows = daemon.db_query(self.d.db, "SELECT id, variant, status, open_seats, created_at FROM games")
        out = []
        for gid, var, st, open_seats, created in rows:
            listed = "open" if st == "running" and open_seats else "active" if st == "running" else \
                "finished" if not open_seats else None
            if listed and (status in (None, listed)) and variant in (None, var):
                out.append((created, gid))
        return [gid for _, gid in sorted(out, reverse=True)]

    def resign(self, gid, token):
        r = self.d.post(f"/api/games/{gid}/resign", token=token)
        self.assertEqual(r.status, 200, r)

    def finish(self, gid, tokens):
        """End a game by resignations: one seat of two, three of four (an army that leaves ends no
        game of four while two go on)."""
        for token in list(tokens.values())[:-1]:
            self.resign(gid, token)
            if self.d.game(gid)["status"] == "over":
                return
        self.fail(f"{gid} did not end")

    def open_game(self, variant="nchess"):
        """A game whose last seat is left open, or skip the test while the API does not take one."""
        n = VARIANT_SEATS[variant]
        seats = [{"name": f"Host{i}"} for i in range(n - 1)] + [{"open": True}]
        r = self.d.post("/api/games", {"variant": variant, "seats": seats})
        if r.status == 400:
            self.skipTest("POST /api/games does not take {\"open\": true} seats yet (open seats, issue 19 item 1)")
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.d.secrets.update(s["token"] for s in g["seats"] if "token" in s)
        return g["id"], g

    # ---- the API ----

    def test_entries_say_what_a_spectator_may_see(self):
        gid, tokens = self.new_game("complex-allegiance", ["Nora", "Emil", "Saul", "Wanda"])
        entry = next(g for g in self.listing("variant=complex-allegiance")["games"] if g["id"] == gid)
        self.assertEqual(set(entry), ENTRY_KEYS)
        self.assertEqual(self.d.game(gid)["status"], "running")
        self.assertEqual(entry["variant"], "complex-allegiance")
        self.assertEqual(entry["title"], "Complex Allegiance Chess")
        self.assertEqual(entry["status"], "active")
        self.assertEqual(entry["seats"], [{"seat": s, "name": n, "open": False} for s, n in
                                          zip(("North", "East", "South", "West"), ("Nora", "Emil", "Saul", "Wanda"))])
        self.assertEqual((entry["ply"], entry["result"]), (0, None))
        self.assertEqual([entry["created_at"], entry["updated_at"]],
                         list(daemon.db_query(self.d.db, "SELECT created_at, updated_at FROM games WHERE id = ?",
                                              (gid,))[0]))
        self.assertRegex(entry["created_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(entry["url"], f"{self.d.base}/games/{gid}")
        for t in tokens.values():
            self.assertNotIn(t, self.d.get("/api/games").text)

    def test_paging_gives_every_game_once_in_order(self):
        for i in range(5):
            self.new_game("nchess" if i % 2 else "conversion-chess")
        before = self.expected()
        self.assertGreater(len(before), 4, "more than two pages of two")
        first = self.listing("limit=2")
        self.assertEqual([g["id"] for g in first["games"]], before[:2])
        self.assertIsNotNone(first["next_cursor"])
        # A game created while paging is newer than every page: it moves none of them.
        time.sleep(1.1)
        late, _ = self.new_game()
        ids, cursor, pages = [g["id"] for g in first["games"]], first["next_cursor"], 1
        while cursor:
            page = self.listing(f"limit=2&cursor={cursor}")
            self.assertLessEqual(len(page["games"]), 2)
            ids += [g["id"] for g in page["games"]]
            cursor, pages = page["next_cursor"], pages + 1
        self.assertGreater(pages, 2)
        self.assertEqual(ids, before, "each game once, newest first, then by id")
        self.assertNotIn(late, ids)
        # A fresh listing starts with it; every page of it in order; the entries' own order.
        again, pages = self.all_pages("", 2)
        self.assertEqual(again, [late] + before)
        entries = self.listing(f"limit={LIMITS['LIMIT_GAME_LIST_MAX']}")["games"]
        keys = [(g["created_at"], g["id"]) for g in entries]
        self.assertEqual(keys, sorted(keys, reverse=True))
        self.assertEqual(len(set(keys)), len(keys))
        # The default page and the largest.
        self.assertEqual(len(self.listing()["games"]), min(len(again), LIMITS["LIMIT_GAME_LIST_DEFAULT"]))
        for _ in range(LIMITS["LIMIT_GAME_LIST_DEFAULT"] + 1 - len(again)):
            self.new_game()
        page = self.listing()
        self.assertEqual(len(page["games"]), LIMITS["LIMIT_GAME_LIST_DEFAULT"])
        self.assertIsNotNone(page["next_cursor"])
        self.assertEqual(self.all_pages("", LIMITS["LIMIT_GAME_LIST_MAX"])[0], self.expected())

    def test_status_and_variant_filters(self):
        made = {v: [self.new_game(v) for _ in range(2)] for v in VARIANT_SEATS}
        # One of each variant finishes by resignation.
        for v, games in made.items():
            self.finish(*games[0])
        for v in VARIANT_SEATS:
            for status in (None, "active", "finished"):
                with self.subTest(variant=v, status=status):
                    q = f"variant={v}" + (f"&status={status}" if status else "")
                    ids, _ = self.all_pages(q, 3)
                    self.assertEqual(ids, self.expected(status, v))
                    entries = self.listing(q + "&limit=100")["games"]
                    self.assertTrue(all(g["variant"] == v for g in entries))
                    if status:
                        self.assertTrue(all(g["status"] == status for g in entries))
                    self.assertIn(made[v][0][0] if status != "active" else made[v][1][0], ids)
        for status in ("active", "finished"):
            self.assertEqual(self.all_pages(f"status={status}", 4)[0], self.expected(status))
        self.assertEqual(self.all_pages("", 7)[0], self.expected())

    def test_a_resigned_game_is_finished_with_its_result(self):
        gid, tokens = self.new_game("civil-war", ["Sam", "Wendy", "Nils", "Edna"])
        active = [g["id"] for g in self.listing("status=active&limit=100")["games"]]
        self.assertIn(gid, active)
        self.assertNotIn(gid, [g["id"] for g in self.listing("status=finished&limit=100")["games"]])
        # In a game of four, one army leaving ends nothing: it stays active.
        self.resign(gid, tokens["South"])
        self.assertEqual(self.d.game(gid)["status"], "running")
        self.assertIn(gid, [g["id"] for g in self.listing("status=active&limit=100")["games"]])
        self.finish(gid, {s: tokens[s] for s in ("West", "North", "East")})
        self.assertIn(gid, [g["id"] for g in self.listing("status=finished&limit=100")["games"]])
        gid2, tokens2 = self.new_game("nchess", ["Ann", "Ben"])
        self.resign(gid2, tokens2["North"])
        finished = self.listing("status=finished&limit=100")["games"]
        self.assertEqual([g["id"] for g in finished], self.expected("finished"))
        entry = next(g for g in finished if g["id"] == gid2)
        self.assertEqual(entry["status"], "finished")
        self.assertEqual(entry["result"], self.d.game(gid2)["result"]["summary"])
        self.assertEqual(entry["result"], "South wins: North resigned")
        self.assertNotIn(gid2, [g["id"] for g in self.listing("status=active&limit=100")["games"]])
        self.assertIn(gid2, [g["id"] for g in self.listing("limit=100")["games"]])

    def test_bad_parameters_change_nothing(self):
        self.new_game()
        good = self.listing("limit=1")["next_cursor"] or cursor_of("2026-01-01T00:00:00Z.bcdfghjkmnpq")
        created = self.listing("limit=1")["games"][0]["created_at"]
        bad = [
            "limit=0", "limit=101", "limit=-1", "limit=abc", "limit=", "limit=1.5", "limit=%2B5", "limit=1e2",
            "limit=0000000000001", "status=OPEN", "status=expired", "status=", "status=running", "status=over",
            "variant=chess", "variant=NCHESS", "variant=", "variant=nchess%00", "cursor=", "cursor=abc",
            "cursor=!!!!", "cursor=" + good + "=", "cursor=" + good + "A", "cursor=" + good[:10],
            "cursor=" + "A" * 200,
            # Well-formed base64 of what no page gives: injected SQL, a bad time, an upper-case or long id.
            "cursor=" + cursor_of(f"{created}.x' OR 1=1 --"),
            "cursor=" + cursor_of(f"{created}.bcdf'); DROP TABLE games; --"),
            "cursor=" + cursor_of("2026-13-01 00:00:00.bcdfghjkmnpq"),
            "cursor=" + cursor_of("yesterday.bcdfghjkmnpq"),
            "cursor=" + cursor_of(f"{created}.BCDFGHJKMNPQ"),
            "cursor=" + cursor_of(f"{created}." + "b" * 33),
            "cursor=" + cursor_of(f"{created}."),
            "cursor=" + cursor_of(f"{created}bcdfghjkmnpq"),
            "cursor=" + base64.b64encode(f"{created}.bcdfghjkmnpq?".encode()).decode(),
            "cursor=" + urllib.parse.quote(base64.b64encode(f"{created}.bcd>".encode()).decode()),
            "foo=1", "status=active&status=active", "limit=2&limit=3", "from=0", "cursor", "page=2",
        ]
        snap = self.d.snapshot()
        for q in bad:
            with self.subTest(query=q):
                r = self.d.get("/api/games?" + q)
                self.assertError(r, 400, "bad_request")
                p = self.d.get("/games?" + q)
                if q not in ("status=", "variant=", "cursor=", "limit="):
                    self.assertEqual(p.status, 400, (q, p))
                    self.assertTrue(p.header("Content-Type").startswith("text/html"))
        self.assertEqual(self.d.snapshot(), snap, "a refused listing changes nothing")
        # A cursor naming a row that is not there is a place in the order all the same.
        r = self.listing("cursor=" + cursor_of("2000-01-01T00:00:00Z.bcdfghjkmnpq"))
        self.assertEqual(r, {"games": [], "next_cursor": None})
        r = self.listing("cursor=" + cursor_of("9999-01-01T00:00:00Z.zzz"))
        self.assertEqual([g["id"] for g in r["games"]], self.expected()[:LIMITS["LIMIT_GAME_LIST_DEFAULT"]])

    def test_each_filter_reads_an_index(self):
        self.new_game()
        for filt, index in FILTERS.items():
            with self.subTest(filter=filt):
                text = database.plan(self.d.db, LISTED_GAMES.format(filt), ("active", "nchess", "~", "~", 21))
                if database.is_postgresql(self.d.db):
                    # Its planner picks among the indexes of the lists by their sizes, here tiny.
                    self.assertRegex(text, r"Index Scan (Backward )?using games_list(ed|ing)\w* on games\b", text)
                    self.assertNotRegex(text, r"Seq Scan on (games|seats)\b", "no list reads the whole table")
                else:
                    self.assertIn(f"SEARCH games USING INDEX {index} (", text)
                    self.assertNotRegex(text, r"SCAN games\b", "no list reads the whole table")
                    self.assertNotIn("SCAN s", text)
                # The statement is the daemon's: it gives what the API gives.
                rows = daemon.db_query(self.d.db, LISTED_GAMES.format(filt), ("active", "nchess", "~", "~", 3))
                want = [g["id"] for g in self.listing(
                    "limit=3" + ("&status=active" if "listing" in filt else "") +
                    ("&variant=nchess" if "variant" in filt else ""))["games"]]
                self.assertEqual(list(dict.fromkeys(r[0] for r in rows)), want)

    # ---- the page ----

    def test_the_page_lists_and_filters(self):
        gid, tokens = self.new_game("cyvasse", ["Wes <b>", "Bea"])
        done, dtok = self.new_game("conversion-chess", ["Wes", "Bea"])
        self.resign(done, dtok["Black"])
        r = self.d.get("/games")
        self.assertEqual(r.status, 200, r)
        text = r.text
        for heading in ("Open seats to take", "Games in progress to watch", "Finished games"):
            self.assertIn(f"<h2>{heading}</h2>", text)
        active = text[text.index('id="active"'):text.index('id="finished"')]
        finished = text[text.index('id="finished"'):]
        self.assertIn(f'<a href="/games/{gid}">Nine-Tile Cyvasse game {gid}</a>', active)
        self.assertIn("White: Wes &lt;b&gt;", active)
        self.assertNotIn("<b>", text)
        self.assertIn(f'<a href="/games/{done}">Conversion Chess game {done}</a>', finished)
        self.assertIn("White wins: Black resigned", finished)
        self.assertNotIn(done, active)
        self.assertIn('href="/games"', self.d.get("/").text, "the site's head links the lists")
        # The filter form is a GET of /games with status and variant.
        self.assertRegex(text, r'<form method="get" action="/games"')
        self.assertIn('<option value="cyvasse">Nine-Tile Cyvasse</option>', text)
        r = self.d.get("/games?status=finished&variant=conversion-chess")
        self.assertEqual(r.status, 200, r)
        self.assertIn(done, r.text)
        self.assertNotIn(gid, r.text)
        self.assertNotIn("<h2>Games in progress to watch</h2>", r.text)
        self.assertIn('<option value="conversion-chess" selected>', r.text)
        self.assertIn('<option value="finished" selected>', r.text)
        # The form's "any" choices come as empty values.
        r = self.d.get("/games?status=&variant=cyvasse")
        self.assertEqual(r.status, 200, r)
        self.assertIn(gid, r.text)
        self.assertNotIn(done, r.text)
        r = self.d.get("/games?status=bogus")
        self.assertEqual(r.status, 400, r)
        self.assertIn("status must be", r.text)

    def test_older_games_link_pages_to_the_end(self):
        for _ in range(5):
            self.new_game("nchess")
        want = self.expected("active", "nchess")
        path, seen, pages = "/games?status=active&variant=nchess&limit=2", [], 0
        while path:
            r = self.d.get(path)
            self.assertEqual(r.status, 200, r)
            seen += re.findall(r'<li><a href="/games/([a-z0-9]+)">', r.text)
            m = re.search(r'<a href="([^"]+)" rel="next">Older games</a>', r.text)
            path = html.unescape(m.group(1)) if m else None
            pages += 1
            if path:
                self.assertRegex(path, r"^/games\?status=active&variant=nchess&limit=2&cursor=[A-Za-z0-9_-]+$")
        self.assertEqual(seen, want)
        self.assertGreater(pages, 2)

    # ---- open games (item 1 of issue 19) ----

    def test_open_games_are_listed_as_open(self):
        gid, created = self.open_game("nchess")
        self.assertEqual(created["seats"][1], {"seat": "North", "open": True})
        entry = next(g for g in self.listing("status=open&limit=100")["games"] if g["id"] == gid)
        self.assertEqual(entry["status"], "open")
        self.assertEqual([(s["seat"], s["open"]) for s in entry["seats"]], [("South", False), ("North", True)])
        self.assertNotIn(gid, [g["id"] for g in self.listing("status=active&limit=100")["games"]])
        self.assertIn(gid, [g["id"] for g in self.listing("variant=nchess&limit=100")["games"]])
        self.assertEqual(self.all_pages("status=open", 2)[0], self.expected("open"))
        page = self.d.get("/games?status=open").text
        row = re.search(r'<li><a href="/games/%s">.*?</li>' % gid, page, re.S)
        self.assertTrue(row, page)
        self.assertIn("North: <em>open seat</em>", row.group(0))
        # Once its seat is taken it is a game to watch.
        r = self.d.post(f"/api/games/{gid}/join", {"name": "Joiner"})
        self.assertEqual(r.status, 201, r)
        self.d.secrets.add(r.json()["token"])
        self.assertIn(gid, [g["id"] for g in self.listing("status=active&limit=100")["games"]])
        self.assertNotIn(gid, [g["id"] for g in self.listing("status=open&limit=100")["games"]])


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
