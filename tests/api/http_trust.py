#!/usr/bin/env python3
"""http_trust.py - attacks on the web side: trickling clients, game floods, forged forms, names, tokens in the log.

usage: http_trust.py path/to/rookery

Each test performs the attack against the real daemon on 127.0.0.1 and checks that it fails and
changes nothing. Python standard library only.
"""
import http.client
import os
import re
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402

RECEIVE_S = daemon.LIMITS["LIMIT_REQUEST_RECEIVE_S"]
GAMES_PER_HOUR = daemon.LIMITS["LIMIT_GAMES_PER_HOUR"]
SLACK_S = 5          # the watchdog looks once a second; a sanitized build is slow


def count_games(d):
    return daemon.db_query(d.db, "SELECT COUNT(*) FROM games")[0][0]


def new_game_api(d, names=("Ann", "Ben")):
    return d.post("/api/games", {"variant": "nchess", "seats": [{"name": n} for n in names]})


class TricklingClientTests(daemon.DaemonCase):
    """A request must arrive whole within LIMIT_REQUEST_RECEIVE_S, however it trickles."""

    def trickle(self, at_once, data, result):
        """Send at_once, then data one byte a second; record when the server closed the connection."""
        s = socket.create_connection(("127.0.0.1", self.d.port), timeout=1)
        t0 = time.monotonic()
        i = 0
        try:
            s.sendall(at_once)
            for i in range(len(data)):
                if time.monotonic() - t0 > RECEIVE_S + 30:
                    break
                s.sendall(data[i:i + 1])
                try:
                    if s.recv(4096) == b"":
                        break
                except socket.timeout:
                    pass          # still open: a second has passed
        except OSError:
            pass                  # reset by the server
        result["closed_after"] = time.monotonic() - t0
        result["sent"] = i
        s.close()

    def test_trickling_headers_and_body_are_cut_off(self):
        gid, tokens, _ = self.d.create_game()
        # Longer than the limit at one byte a second, and never idle long enough for the idle timeout.
        headers = (b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"p" * (RECEIVE_S + 40) +
                   b"\r\n\r\n")
        post = (f"POST /api/games/{gid}/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Authorization: Bearer {tokens['South']}\r\nContent-Length: 200\r\n\r\n").encode()
        body = b'{"move": "S 7 1 6 1", "ply": 0' + b" " * 170 + b"}"
        results = [{}, {}]
        threads = [threading.Thread(target=self.trickle, args=(b"", headers, results[0])),
                   # The headers arrive at once; the body trickles.
                   threading.Thread(target=self.trickle, args=(post, body, results[1]))]
        for t in threads:
            t.start()
        # Meanwhile honest requests are answered at once.
        time.sleep(3)
        for _ in range(3):
            t0 = time.monotonic()
            self.assertEqual(self.d.get("/api/variants").status, 200)
            self.assertLess(time.monotonic() - t0, 2)
            time.sleep(1)
        for t in threads:
            t.join(RECEIVE_S + 60)
        for what, r in zip(("headers", "body"), results):
            with self.subTest(trickled=what):
                self.assertLess(r["closed_after"], RECEIVE_S + SLACK_S, r)
                self.assertGreater(r["closed_after"], RECEIVE_S - 2, r)
        # The trickled move was never made.
        self.assertEqual(self.d.game(gid)["ply"], 0)
        self.assertIn("whose request took over", self.d.stderr())

    def test_a_keep_alive_connection_gets_a_fresh_period_per_request(self):
        conn = self.d.connect()
        self.addCleanup(conn.close)
        t0 = time.monotonic()
        while time.monotonic() - t0 < RECEIVE_S + 3:
            self.assertEqual(self.d.get("/api/variants", conn=conn).status, 200)
            time.sleep(2)


class GameFloodTests(unittest.TestCase):
    """One client address creates at most --games-per-hour games an hour, with email or without."""

    def daemon(self, *args):
        d = daemon.Daemon(*args)
        self.addCleanup(d.cleanup)
        d.start()
        return d

    def test_the_121st_game_is_refused_and_not_created(self):
        d = self.daemon()
        for i in range(GAMES_PER_HOUR):
            r = new_game_api(d)
            self.assertEqual(r.status, 201, (i, r))
            d.secrets.update(s["token"] for s in r.json()["seats"])
        games = count_games(d)
        self.assertEqual(games, GAMES_PER_HOUR)
        # X-Forwarded-For from a client that is not the configured proxy changes nothing.
        r = d.post("/api/games", {"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}]},
                   headers={"X-Forwarded-For": "192.0.2.7"})
        self.assertEqual(r.status, 429, r)
        self.assertEqual(r.json()["error"]["code"], "rate_limited")
        self.assertEqual(r.header("Retry-After"), "3600")
        # The new game form likewise, with a page saying why.
        page = d.post_page_form("/games", {"variant": "nchess", "name0": "A", "name1": "B"})
        self.assertEqual(page.status, 429, page)
        self.assertEqual(page.header("Retry-After"), "3600")
        self.assertIn("too many games", page.text)
        self.assertEqual(count_games(d), games, "a refused game was created")
        d.stop()

    def test_zero_means_no_limit(self):
        d = self.daemon("--games-per-hour", "0")
        for i in range(GAMES_PER_HOUR + 10):
            r = new_game_api(d)
            self.assertEqual(r.status, 201, (i, r))
            d.secrets.update(s["token"] for s in r.json()["seats"])
        self.assertEqual(count_games(d), GAMES_PER_HOUR + 10)
        d.stop()

    def test_a_lower_limit_and_other_clients(self):
        d = self.daemon("--games-per-hour", "2")
        for _ in range(2):
            self.assertEqual(new_game_api(d).status, 201)
        self.assertEqual(new_game_api(d).status, 429)
        # Another client address has its own count.
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10, source_address=("127.0.0.2", 0))
        self.addCleanup(conn.close)
        r = d.post("/api/games", {"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}]}, conn=conn)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(count_games(d), 3)
        d.stop()

    def test_bad_values_are_refused(self):
        for bad in ("-1", "x", "1e3", "", " 5", "5 ", "+5", "0x10", "1000001", "99999999999999999999"):
            with self.subTest(value=bad):
                r = daemon.run_rookery("serve", "--port", "0", "--db", "/nonexistent/x.db", "--games-per-hour", bad)
                self.assertEqual(r.returncode, 64, r.stderr)
                self.assertIn("--games-per-hour", r.stderr)
        r = daemon.run_rookery("serve", "--help")
        self.assertIn("--games-per-hour", r.stdout)


class FormTests(daemon.DaemonCase):
    """Every state-changing form needs its form token; Origin: null is refused on every form route."""

    def test_origin_null_refused_on_every_form_route(self):
        gid, tokens, _ = self.d.create_game()
        seat_fields = {"seat": tokens["South"]}
        page = self.d.get(f"/games/{gid}?seat={tokens['South']}").text
        seat_fields["csrf"] = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
        home_tok, home_hdr = self.d.page_form("/new/nchess")
        me_tok, me_hdr = self.d.page_form("/me")
        routes = [
            ("/games", {"variant": "nchess", "name0": "A", "name1": "B", **home_tok}, home_hdr),
            (f"/games/{gid}/join", {"seat": "North", "name": "C", **home_tok}, home_hdr),
            ("/me", {"email": "ann@players.test", **me_tok}, me_hdr),
            ("/me/" + "A" * 32, {"csrf": "0" * 64}, {}),
            (f"/games/{gid}/move", {**seat_fields, "ply": "0", "move": "S 7 1 6 1"}, {}),
            (f"/games/{gid}/client-seed", {**seat_fields, "client_seed": "abc"}, {}),
            (f"/games/{gid}/mail", seat_fields, {}),
            ("/mail/stop/1-" + "a" * 16, {"csrf": "0" * 64, "action": "stop"}, {}),
            (f"/games/{gid}/clock", {**seat_fields, "to": "North", "days": "1"}, {}),
            (f"/games/{gid}/vacation", {**seat_fields, "days": "1"}, {}),
            (f"/games/{gid}/messages", {**seat_fields, "text": "hello", "to": ""}, {}),
            (f"/games/{gid}/conditional", {**seat_fields, "clear": "yes"}, {}),
            (f"/games/{gid}/resign", {**seat_fields, "confirm": "yes"}, {}),
            (f"/games/{gid}/draw", {**seat_fields, "action": "offer"}, {}),
        ]
        # Every POST route of the pages is in the list (a new form route belongs in it).
        with open(os.path.join(daemon.REPO, "service", "daemon", "routes.c"), encoding="utf-8") as f:
            page_posts = re.findall(r'\{"POST",\s*"(/[^"]*)",.*,\s*0,\s*\w+\}', f.read())
        self.assertEqual(len(page_posts), len(routes), page_posts)
        before = self.d.snapshot()
        for path, fields, headers in routes:
            for site in (None, "same-origin", "cross-site"):
                with self.subTest(path=path, sec_fetch_site=site):
                    hdrs = dict(headers)
                    if site:
                        hdrs["Sec-Fetch-Site"] = site
                    r = self.d.post_form(path, fields, origin="null", headers=hdrs)
                    self.assertEqual(r.status, 403, r)
                    self.assertIn("another site", r.text)
        self.assertEqual(self.d.snapshot(), before)
        # The same posts with the page's own origin get past the check (the game has no open seat to
        # join, the sign-in and unsubscribe tokens are made up, only a seat link that came by mail
        # may ask for mail, the game has
        # no clock to give time on, a vacation is taken, conditional moves are cleared (there were none),
        # and the resignation ends the game before the draw offer).
        statuses = []
        for path, fields, headers in routes:
            r = self.d.post_form(path, fields, origin=self.d.base, headers=headers)
            self.d.secrets.update(re.findall(r"/games/[a-z0-9]+\?seat=([A-Za-z0-9_-]+)", r.text))
            statuses.append(r.status)
        self.assertEqual(statuses, [201, 409, 200, 404, 303, 303, 403, 404, 409, 303, 303, 303, 303, 409])

    def test_seat_forms_need_their_own_seat_and_form_token(self):
        """Every seat form refuses a made-up form token, and a seat link of another game."""
        gid, tokens, _ = self.d.create_game()
        other, other_tokens, _ = self.d.create_game(names=("Cy", "Di"))

        def seat_fields(game, token):
            page = self.d.get(f"/games/{game}?seat={token}").text
            return {"seat": token, "csrf": re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)}

        forms = [("move", {"ply": "0", "move": "S 7 1 6 1"}), ("client-seed", {"client_seed": "abc"}),
                 ("mail", {}), ("clock", {"to": "North", "days": "1"}), ("vacation", {"days": "1"}),
                 ("messages", {"text": "hello", "to": ""}), ("conditional", {"clear": "yes"}),
                 ("resign", {"confirm": "yes"}),
                 ("draw", {"action": "offer"})]
        mine, theirs = seat_fields(gid, tokens["South"]), seat_fields(other, other_tokens["South"])
        before = self.d.snapshot()
        for form, fields in forms:
            with self.subTest(form=form, attack="made-up form token"):
                r = self.d.post_form(f"/games/{gid}/{form}", {**fields, **mine, "csrf": "f" * 64},
                                     origin=self.d.base)
                self.assertEqual(r.status, 403, r)
            with self.subTest(form=form, attack="another game's seat link"):
                r = self.d.post_form(f"/games/{gid}/{form}", {**fields, **theirs}, origin=self.d.base)
                self.assertEqual(r.status, 401, r)
                self.assertIn("another game", r.text)
        self.assertEqual(self.d.snapshot(), before)

    def test_create_form_needs_cookie_and_token(self):
        fields = {"variant": "nchess", "name0": "Ann", "name1": "Ben"}
        tok, hdr = self.d.page_form("/new/nchess")
        self.assertRegex(hdr["Cookie"], r"^rookery_form=[A-Za-z0-9_-]{32}$")
        r = self.d.get("/new/nchess")
        cookie = r.header("Set-Cookie")
        for part in ("HttpOnly", "SameSite=Strict", "Path=/"):
            self.assertIn(part, cookie)
        self.assertNotIn("Secure", cookie, "the base URL is http://")
        other_tok, other_hdr = self.d.page_form("/new/nchess")
        games = count_games(self.d)
        for label, fields_, headers in (
                ("neither", fields, {}),
                ("token without cookie", {**fields, **tok}, {}),
                ("cookie without token", fields, hdr),
                ("token of another cookie", {**fields, **other_tok}, hdr),
                ("a made-up token", {**fields, "csrf": "0" * 64}, hdr),
                ("a malformed cookie", {**fields, **tok}, {"Cookie": hdr["Cookie"] + "x"})):
            with self.subTest(label):
                r = self.d.post_form("/games", fields_, headers=headers)
                self.assertEqual(r.status, 403, r)
                self.assertIn("reload the page", r.text)
                # The page shown again carries a fresh form that works.
                self.assertRegex(r.text, r'name="csrf" value="[0-9a-f]{64}"')
        self.assertEqual(count_games(self.d), games)
        r = self.d.post_form("/games", {**fields, **tok}, headers=hdr)
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(re.findall(r"/games/[a-z0-9]+\?seat=([A-Za-z0-9_-]+)", r.text))
        self.assertEqual(count_games(self.d), games + 1)
        # The page reuses a cookie the browser already has, so that two open tabs both work.
        r = self.d.get("/new/nchess", headers=hdr)
        self.assertIsNone(r.header("Set-Cookie"))
        self.assertIn(f'value="{tok["csrf"]}"', r.text)

    def test_signin_form_needs_cookie_and_token(self):
        before = self.d.snapshot()
        r = self.d.post_form("/me", {"email": "ann@players.test"})
        self.assertEqual(r.status, 403, r)
        self.assertEqual(self.d.snapshot(), before, "the refused request was counted or mailed")
        r = self.d.post_page_form("/me", {"email": "ann@players.test"}, page="/me")
        self.assertEqual(r.status, 200, r)


class SecureCookieTests(daemon.DaemonCase):
    daemon_args = ("--base-url", "https://chess.example.org")

    def test_cookie_is_secure_and_host_bound_behind_https(self):
        r = self.d.get("/me")
        cookie = r.header("Set-Cookie")
        self.assertRegex(cookie, r"^__Host-rookery_form=[A-Za-z0-9_-]{32}; ")
        self.assertIn("; Secure", cookie)
        r = self.d.post_page_form("/games", {"variant": "nchess"}, origin="https://chess.example.org")
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(re.findall(r"/games/[a-z0-9]+\?seat=([A-Za-z0-9_-]+)", r.text))


class NameTests(daemon.DaemonCase):
    def test_control_and_bidi_characters_are_refused(self):
        games = count_games(self.d)
        for ch in ("\u0085", "\u0080", "\u009f", "\u2028", "\u2029", "\u202a", "\u202b", "\u202c", "\u202d",
                   "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c"):
            with self.subTest(char=f"U+{ord(ch):04X}"):
                r = new_game_api(self.d, (f"Ann{ch}gpj.exe", "Ben"))
                self.assertError(r, 400, "bad_request", "control characters")
                r = self.d.post_page_form("/games", {"variant": "nchess", "name0": "Ann", "name1": f"{ch}Ben"})
                self.assertEqual(r.status, 400, r)
        self.assertEqual(count_games(self.d), games)
        # Right-to-left names themselves are welcome.
        r = new_game_api(self.d, ("\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627"))
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(s["token"] for s in r.json()["seats"])


class LogRedactionTests(daemon.DaemonCase):
    def test_signin_tokens_never_reach_the_log(self):
        token = "Zq3" + "x" * 26 + "_9A"          # well-formed: 32 characters of base64url
        self.assertEqual(len(token), 32)
        mistyped = "Q" * 20
        self.d.secrets.update((token, mistyped))
        self.assertEqual(self.d.get(f"/me/{token}").status, 404)
        self.assertEqual(self.d.post_form(f"/me/{token}", "csrf=" + "0" * 64).status, 404)
        self.assertEqual(self.d.request("PUT", f"/me/{token}").status, 405)
        self.assertEqual(self.d.get(f"/me/{token}/games").status, 404)
        self.assertEqual(self.d.get(f"/me/{mistyped}x/").status, 404)
        self.assertEqual(self.d.get(f"/games/{token}").status, 404)
        self.assertEqual(self.d.get(f"/api/games/{token}/moves").status, 404)
        self.assertEqual(self.d.get(f"/{token}").status, 404)
        time.sleep(0.2)
        log = self.d.stderr()
        for secret in (token, mistyped, token[:12], mistyped[:12]):
            self.assertNotIn(secret, log)
        # The lines are there, with the secret written as *.
        self.assertIn("GET /me/* 404", log)
        self.assertIn("POST /me/* 404", log)
        self.assertIn("PUT /me/* 405", log)
        self.assertIn("GET /me/* 404", log)
        self.assertIn("GET /games/* 404", log)
        self.assertIn("GET /api/games/*/moves 404", log)
        # Ordinary paths stay readable.
        gid, _, _ = self.d.create_game()
        self.d.get(f"/games/{gid}")
        self.d.get("/rules/complex-allegiance")
        time.sleep(0.2)
        log = self.d.stderr()
        self.assertIn(f"GET /games/{gid} 200", log)
        self.assertIn("GET /rules/complex-allegiance 200", log)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
