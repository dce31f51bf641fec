#!/usr/bin/env python3
"""pages.py - the HTML pages against the real daemon: the home page and the new game form, the rules page,
the style sheet, security headers everywhere, the forms of a game page (form tokens, origins,
draws and resignation), escaping of names and typed moves, and the error pages.

usage: python3 tests/api/pages.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

The page of one game drawn and played is tested with its game (nchess_game.py and the others).
Each test class starts its own daemon (tests/harness/daemon.py). Python standard library only.
"""
import collections
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import DaemonCase  # noqa: E402
from harness.pages import board_html, hidden_fields  # noqa: E402


class PageTests(DaemonCase):

    def test_home_page(self):
        """Step 1: a card per game, with its starting board and its line, leading to step 2."""
        r = self.d.get("/")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        self.assertNotIn("<form", r.text, "the home page only chooses the game")
        variants = self.d.get("/api/variants").json()["variants"]
        cards = re.findall(r'<li class="game-card">(.*?)</li>', r.text, re.S)
        self.assertEqual(len(cards), len(variants))
        for v, card in zip(variants, cards):
            with self.subTest(variant=v["id"]):
                self.assertIn(f'href="/new/{v["id"]}"', card)
                self.assertIn(f'href="/rules/{v["id"]}"', card)
                self.assertIn(v["title"], card)
                # The starting board, drawn small: the pieces the game starts with (none before
                # Cyvasse's hidden setups).
                self.assertIn('<svg class="board mini"', card)
                self.assertEqual(self.drawn(card), self.fresh_game_drawn(v))
        nchess = cards[[v["id"] for v in variants].index("nchess")]
        self.assertEqual(self.drawn(nchess)[1], {"South": 14, "North": 14})

    @staticmethod
    def drawn(html):
        """The squares and the pieces of each side a drawn board shows: (squares, {side: pieces})."""
        return (html.count('<g class="sq '), collections.Counter(re.findall(r'<g class="pc side-(\w+)"', html)))

    def fresh_game_drawn(self, variant):
        """drawn() of the board of a new game of variant, as its game page shows it to a spectator."""
        r = self.d.post("/api/games", {"variant": variant["id"], "seats": [{"name": s} for s in variant["seats"]]})
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(s["token"] for s in r.json()["seats"])
        return self.drawn(board_html(self.d.get(f"/games/{r.json()['id']}").text))

    def test_new_game_form(self):
        """Step 2: the seats (name, email, left open) and the clock, posting to /games."""
        for v in self.d.get("/api/variants").json()["variants"]:
            with self.subTest(variant=v["id"]):
                r = self.d.get(f"/new/{v['id']}")
                self.assertEqual(r.status, 200, r)
                form = re.search(r'<form method="post" action="/games" class="create">(.*?)</form>', r.text, re.S)
                self.assertTrue(form, r.text)
                form = form.group(1)
                self.assertIn(f'name="variant" value="{v["id"]}"', form)
                self.assertRegex(form, r'name="csrf" value="[0-9a-f]{64}"')
                n = len(v["seats"])
                self.assertEqual(re.findall(r'name="(name\d)"', form), [f"name{i}" for i in range(n)])
                self.assertEqual(re.findall(r'name="(email\d)"', form), [f"email{i}" for i in range(n)])
                self.assertEqual(re.findall(r'<input type="checkbox" name="(open\d)" value="1">', form),
                                 [f"open{i}" for i in range(n)])
                for i, seat in enumerate(v["seats"]):
                    self.assertIn(f'<label for="name{i}">{seat}', form)
                for name in ("clock", "days", "increment_days", "max_days"):
                    self.assertIn(f'name="{name}"', form)
                self.assertIn('<svg class="board mini"', r.text)
        r = self.d.get("/new/no-such-game")
        self.assertEqual(r.status, 404, r)

    def test_new_game_form_error_keeps_the_choices(self):
        fields = {"variant": "cyvasse", "name0": "Ann <&>", "email0": "ann@players.test", "name1": "Ben",
                  "open1": "1", "clock": "bank", "days": "2", "increment_days": "0.5", "max_days": "1"}
        r = self.d.post_page_form("/games", fields, page="/new/cyvasse")
        self.assertEqual(r.status, 422, r)
        self.assertIn('class="error"', r.text)
        self.assertIn('name="variant" value="cyvasse"', r.text)
        self.assertIn('value="Ann &lt;&amp;&gt;"', r.text)
        self.assertIn('value="ann@players.test"', r.text)
        self.assertIn('value="Ben"', r.text)
        self.assertIn('<input type="checkbox" name="open1" value="1" checked>', r.text)
        self.assertIn('<input type="checkbox" name="open0" value="1">', r.text)
        self.assertIn('<option value="bank" selected>', r.text)
        self.assertIn('name="days" type="number" min="0.0417" max="365" step="any" value="2"', r.text)
        self.assertIn('value="0.5"', r.text)
        # A game nobody knows: back to choosing one, with the reason.
        r = self.d.post_page_form("/games", {"variant": "no-such-game"})
        self.assertEqual(r.status, 422, r)
        self.assertIn('class="error"', r.text)
        self.assertIn('href="/new/nchess"', r.text)

    def test_security_headers_everywhere(self):
        gid, tokens, _ = self.d.create_game()
        for path in ("/", "/style.css", "/rules/nchess", f"/games/{gid}", f"/games/{gid}?seat={tokens['South']}",
                     "/api/variants", f"/api/games/{gid}", "/nothing", "/games/nosuchgame12"):
            with self.subTest(path=path):
                r = self.d.get(path)
                self.assertEqual(r.header("Referrer-Policy"), "strict-origin")
                self.assertEqual(r.header("X-Content-Type-Options"), "nosniff")
                self.assertIn("frame-ancestors 'none'", r.header("Content-Security-Policy"))
                self.assertIsNone(r.header("Access-Control-Allow-Origin"))
        r = self.d.post_page_form("/games", {"variant": "nchess"})
        self.assertEqual(r.header("Referrer-Policy"), "strict-origin")
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))

    def test_rules_page(self):
        r = self.d.get("/rules/nchess")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        self.assertIn("House rulings", r.text)

    def test_style_sheet(self):
        r = self.d.get("/style.css")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("Content-Type").startswith("text/css"), r.headers)
        self.assertIn("{", r.text)

    def test_create_form_shows_links_once(self):
        origin = f"http://127.0.0.1:{self.d.port}"
        r = self.d.post_page_form("/games", {"variant": "nchess", "name0": "Ann", "email0": "ann.secret@example.org",
                                             "name1": ""}, origin=origin)
        self.assertEqual(r.status, 201, r)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        links = re.findall(r'<a href="(http://127\.0\.0\.1:\d+/games/([a-z0-9]+)\?seat=([A-Za-z0-9_-]+))">', r.text)
        self.assertEqual(len(links), 2, r.text)
        self.d.secrets.update(l[2] for l in links)
        gid = links[0][1]
        self.assertIn("only once", r.text)
        self.assertNotIn("ann.secret@example.org", r.text)
        g = self.d.game(gid)
        self.assertEqual([s["name"] for s in g["seats"]], ["Ann", "North"], "an empty name becomes the seat name")
        # Afterwards, no page shows the links again.
        for page in (f"/games/{gid}", "/", f"/api/games/{gid}"):
            text = self.d.get(page).text
            for l in links:
                self.assertNotIn(l[2], text)
            self.assertNotIn("ann.secret@example.org", text)
        # Each link opens its own seat.
        south = self.d.get(urllib.parse.urlsplit(links[0][0]).path + "?" + urllib.parse.urlsplit(links[0][0]).query)
        self.assertEqual(south.status, 200)
        self.assertIn("Your move", south.text)

    def test_form_csrf_and_origin(self):
        gid, tokens, _ = self.d.create_game()
        fields = hidden_fields(self.d.get(f"/games/{gid}?seat={tokens['South']}").text, f"/games/{gid}/move")
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "csrf": "f" * 64, "move": "S 7 1 6 1"})
        self.assertEqual(r.status, 403, r)
        self.assertIn("expired", r.text)
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "S 7 1 6 1"}, origin="https://evil.example")
        self.assertEqual(r.status, 403, r)
        self.assertIn("another site", r.text)
        self.assertEqual(self.d.game(gid)["ply"], 0)

    def test_draw_and_resign_forms(self):
        gid, tokens, _ = self.d.create_game()
        spage = self.d.get(f"/games/{gid}?seat={tokens['South']}").text
        sfields = hidden_fields(spage, f"/games/{gid}/draw")
        self.assertEqual(sfields["action"], "offer")
        r = self.d.post_form(f"/games/{gid}/draw", sfields)
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.d.game(gid)["draw_offer"], "South")
        npage = self.d.get(f"/games/{gid}?seat={tokens['North']}").text
        self.assertIn("South offers a draw", npage)
        self.assertIn('value="accept"', npage)
        self.assertIn('value="decline"', npage)
        nfields = hidden_fields(npage, f"/games/{gid}/resign")
        r = self.d.post_form(f"/games/{gid}/resign", {**nfields, "confirm": "yes"})
        self.assertEqual(r.status, 303, r)
        g = self.d.game(gid)
        self.assertEqual(g["result"]["summary"], "South wins: North resigned")
        html = self.d.get(f"/games/{gid}").text
        self.assertIn("Game over:", html)
        self.assertIn("South wins: North resigned", html)

    def test_names_are_escaped(self):
        evil = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>']
        gid, tokens, _ = self.d.create_game(evil)
        for path in (f"/games/{gid}", f"/games/{gid}?seat={tokens['South']}", f"/games/{gid}?seat={tokens['North']}"):
            with self.subTest(path=path):
                html = self.d.get(path).text
                self.assertNotIn("<script>", html)
                self.assertNotIn("<img", html)
                self.assertNotIn("onerror=alert(1)>", html.replace("&gt;", ""))
                self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", html)
                self.assertIn("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;", html)
        r = self.d.post_page_form("/games", {"variant": "nchess", "name0": evil[0], "name1": evil[1]})
        self.assertEqual(r.status, 201)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))
        self.assertNotIn("<script>", r.text)
        self.assertNotIn("<img", r.text)
        # The API returns them as data, unchanged.
        self.assertEqual([s["name"] for s in self.d.game(gid)["seats"]], evil)

    def test_typed_move_is_escaped(self):
        gid, tokens, _ = self.d.create_game()
        fields = hidden_fields(self.d.get(f"/games/{gid}?seat={tokens['South']}").text, f"/games/{gid}/move")
        for text in ('"><script>alert(1)</script>', "<b>S 7 1 6 1</b>", "S 7 1 6 1 '<x'"):
            with self.subTest(text=text):
                r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": text})
                self.assertEqual(r.status, 422, r)
                self.assertNotIn("<script>", r.text)
                self.assertNotIn("<b>", r.text)
                self.assertNotIn("<x", r.text)
                self.assertIn('class="error"', r.text)
        self.assertEqual(self.d.game(gid)["ply"], 0)

    def test_error_pages(self):
        r = self.d.get("/games/nosuchgame12")
        self.assertEqual(r.status, 404)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        self.assertIn("no game", r.text)
        gid, tokens, _ = self.d.create_game()
        other, other_tokens, _ = self.d.create_game()
        self.assertEqual(self.d.get(f"/games/{gid}?seat={'A' * 32}").status, 401)
        self.assertEqual(self.d.get(f"/games/{gid}?seat={other_tokens['South']}").status, 401)
        self.assertEqual(self.d.get(f"/games/{gid}?seat=<script>").status, 401)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
