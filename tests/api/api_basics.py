#!/usr/bin/env python3
"""api_basics.py - the daemon as a whole, against the real thing: its command line, its public
address (--base-url), HTTP itself, bad input of every kind, and starting and stopping.

usage: python3 tests/api/api_basics.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

Every refused request gets the right status and error code and changes nothing in the database;
a backup is consistent; SIGINT and SIGTERM stop the daemon cleanly with open connections; a
restart keeps the games; a database of a newer Rookery is refused untouched.

Each test class starts its own daemon (tests/harness/daemon.py). Python standard library only.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.daemon import (HTTP_TIMEOUT, LIMITS, SANITIZER_MARKS, START_TIMEOUT, Daemon,  # noqa: E402
                            DaemonCase, run_rookery)
from harness.pages import hidden_fields  # noqa: E402

LIMIT_BODY = LIMITS["LIMIT_BODY_JSON"]
LIMIT_JSON_DEPTH = LIMITS["LIMIT_JSON_DEPTH"]
LIMIT_MOVE_TEXT = LIMITS["LIMIT_MOVE_TEXT"]
LIMIT_NAME = LIMITS["LIMIT_NAME"]
LIMIT_EMAIL = LIMITS["LIMIT_EMAIL"]


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

class CommandLineTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rookery-bb-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_help_lists_commands(self):
        for flag in ("--help", "-h"):
            r = run_rookery(flag, cwd=self.tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            for word in ("usage: rookery", "serve", "migrate", "--help", "--version"):
                self.assertIn(word, r.stdout)

    def test_serve_help_lists_every_option(self):
        r = run_rookery("serve", "--help", cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        for opt in ("--address", "--port", "--db", "--base-url", "--demo", "--help"):
            self.assertIn(opt, r.stdout)
        self.assertEqual(os.listdir(self.tmp), [], "--help must not create a database")

    def test_version(self):
        for flag in ("--version", "-V"):
            r = run_rookery(flag, cwd=self.tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"^rookery \d+\.\d+\.\d+\S*\n$")

    def test_bad_usage_exits_64(self):
        cases = [
            (),
            ("no-such-command",),
            ("serve", "--no-such-option"),
            ("serve", "--port", "70000"),
            ("serve", "--port", "eighty"),
            ("serve", "--port", "-1"),
            ("serve", "unexpected-argument"),
            ("serve", "--base-url", "ftp://example.org"),
            ("serve", "--proxy", "proxy.example.org"),
            ("serve", "--proxy", "127.0.0.1/8"),
            ("serve", "--db"),
            ("migrate", "--bogus"),
        ]
        for args in cases:
            with self.subTest(args=args):
                r = run_rookery(*args, cwd=self.tmp)
                self.assertEqual(r.returncode, 64, (r.stdout, r.stderr))
                self.assertTrue(r.stderr.strip(), "a usage error says why on stderr")
                self.assertNotIn("stopped cleanly", r.stderr)
        self.assertEqual(os.listdir(self.tmp), [], "a usage error must not create a database")

    def test_migrate_creates_the_database(self):
        db = database.fresh(self.tmp)
        r = run_rookery("migrate", "--db", db, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"schema version \d+")
        self.assertEqual(database.schema_version(db), int(re.search(r"schema version (\d+)", r.stdout).group(1)))
        tables = set(database.tables(db))
        self.assertTrue({"games", "seats", "moves", "actions", "settings"} <= tables, tables)


class BaseUrlTests(DaemonCase):
    daemon_args = ("--base-url", "https://chess.example.org/rookery/", "--demo")

    def test_printed_address_and_demo_links_use_base_url(self):
        out = self.d.wait_stdout(r"North +\(Ben\): \S+\n")
        self.assertIn("Rookery is serving https://chess.example.org/rookery/\n", out)
        links = re.findall(r"(South|North) +\((Ann|Ben)\): (\S+)", out)
        self.assertEqual([l[0] for l in links], ["South", "North"], out)
        for _, _, url in links:
            self.assertRegex(url, r"^https://chess\.example\.org/rookery/games/[a-z0-9]+\?seat=[A-Za-z0-9_-]+$")
        # The demo game exists and its links work here.
        gid = re.search(r"/games/([a-z0-9]+)\?", links[0][2]).group(1)
        token = links[0][2].split("seat=")[1]
        self.assertEqual(self.d.game(gid, token)["seat"], "South")

    def test_api_and_page_links_use_base_url(self):
        gid, tokens, g = self.d.create_game()
        self.assertEqual(g["url"], f"https://chess.example.org/rookery/games/{gid}")
        for s in g["seats"]:
            self.assertEqual(s["url"], f"https://chess.example.org/rookery/games/{gid}?seat={s['token']}")
        r = self.d.post_page_form("/games", {"variant": "nchess", "name0": "Ann", "name1": "Ben"})
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))
        self.assertEqual(len(re.findall(r'href="https://chess\.example\.org/rookery/games/[a-z0-9]+\?seat=', r.text)), 2)

    def test_foreign_origin_refused(self):
        gid, tokens, _ = self.d.create_game()
        fields = hidden_fields(self.d.get(f"/games/{gid}?seat={tokens['South']}").text, f"/games/{gid}/move")
        for origin in ("https://evil.example.org", "https://chess.example.org.evil.example",
                       "http://chess.example.org", "https://chess.example.org:8443"):
            with self.subTest(origin=origin):
                r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "S 7 1 6 1"}, origin=origin)
                self.assertEqual(r.status, 403, r)
        # "Origin: null" never stands for our own pages (they send their origin).
        for site in ("cross-site", "same-origin"):
            r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "S 7 1 6 1"}, origin="null",
                                 headers={"Sec-Fetch-Site": site})
            self.assertEqual(r.status, 403, r)
        self.assertEqual(self.d.game(gid)["ply"], 0)

    def test_origin_of_base_url_with_path_is_accepted(self):
        gid, tokens, _ = self.d.create_game()
        fields = hidden_fields(self.d.get(f"/games/{gid}?seat={tokens['South']}").text, f"/games/{gid}/move")
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "S 7 1 6 1"},
                             origin="https://chess.example.org")
        self.assertEqual(r.status, 303, r)


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------

class HttpTests(DaemonCase):

    def test_unknown_game(self):
        self.assertError(self.d.get("/api/games/nosuchgame12"), 404, "not_found")
        self.assertError(self.d.get("/api/games/nosuchgame12/moves"), 404, "not_found")
        self.assertError(self.d.get("/api/games/nosuchgame12/dice"), 404, "not_found")

    def test_scripts_and_icon(self):
        for path, kind in (("/play.js", "text/javascript"), ("/setup.js", "text/javascript"),
                           ("/favicon.svg", "image/svg+xml")):
            with self.subTest(path=path):
                r = self.d.get(path)
                self.assertEqual(r.status, 200, r)
                self.assertTrue(r.header("Content-Type").startswith(kind), r.headers)
                self.assertGreater(len(r.body), 100)
        csp = self.d.get("/").header("Content-Security-Policy")
        self.assertIn("script-src 'self'", csp)
        self.assertIn("default-src 'none'", csp)
        self.assertNotIn("unsafe-inline", csp)

    def test_keep_alive(self):
        conn = self.d.connect()
        self.addCleanup(conn.close)
        r1 = self.d.get("/api/variants", conn=conn)
        sock = conn.sock
        self.assertIsNotNone(sock, "the server closed the connection after the first answer")
        gid, tokens, _ = self.d.create_game()
        r2 = self.d.get(f"/api/games/{gid}", conn=conn)
        r3 = self.d.post(f"/api/games/{gid}/moves", {"move": "S 7 1 6 1", "ply": 0}, token=tokens["South"], conn=conn)
        self.assertEqual((r1.status, r2.status, r3.status), (200, 200, 201))
        self.assertIs(conn.sock, sock, "the requests did not share one connection")
        for r in (r1, r2, r3):
            self.assertNotEqual((r.header("Connection") or "").lower(), "close")


# --------------------------------------------------------------------------------------------
# Bad input: the right answer, and nothing changes
# --------------------------------------------------------------------------------------------

class BadInputTests(DaemonCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gid, cls.tokens, _ = cls.d.create_game(("Ann", "Ben"), ("ann@example.org", None))
        cls.d.play(cls.gid, cls.tokens, ["S 7 1 6 1"])
        cls.other, cls.other_tokens, _ = cls.d.create_game()
        cls.moves = f"/api/games/{cls.gid}/moves"

    def setUp(self):
        self.before_db = self.d.snapshot()
        self.before_game = self.d.get(f"/api/games/{self.gid}").body
        self.before_moves = self.d.get(self.moves).body

    def tearDown(self):
        # Only check when the test itself passed, so that a failure shows its own cause.
        if not getattr(getattr(self, "_outcome", None), "success", True):
            return
        self.assertEqual(self.d.snapshot(), self.before_db, "the database changed")
        self.assertEqual(self.d.get(f"/api/games/{self.gid}").body, self.before_game)
        self.assertEqual(self.d.get(self.moves).body, self.before_moves)

    def post_raw(self, path, body, content_type="application/json", token=None, extra=None):
        headers = dict(extra or {})
        if content_type is not None:
            headers["Content-Type"] = content_type
        return self.d.post(path, body if isinstance(body, bytes) else body.encode(), headers=headers,
                           token=token if token is not None else self.tokens["North"])

    def test_malformed_json(self):
        cases = {
            "not json": b"move=s 3 1 4 1",
            "truncated": b'{"move": "s 3 1 4 1", "ply": 1',
            "single quotes": b"{'move': 's 3 1 4 1', 'ply': 1}",
            "trailing comma": b'{"move": "s 3 1 4 1", "ply": 1,}',
            "duplicate key": b'{"move": "s 3 1 4 1", "ply": 1, "move": "s 3 3 4 3"}',
            "trailing garbage": b'{"move": "s 3 1 4 1", "ply": 1} x',
            "two objects": b'{"move": "s 3 1 4 1", "ply": 1}{"move": "s 3 1 4 1", "ply": 1}',
            "array": b'[{"move": "s 3 1 4 1", "ply": 1}]',
            "string": b'"s 3 1 4 1"',
            "number": b"1",
            "null": b"null",
            "empty": b"",
            "whitespace": b"   ",
            "NaN": b'{"move": "s 3 1 4 1", "ply": NaN}',
            "comment": b'{"move": "s 3 1 4 1", /* x */ "ply": 1}',
            "nul escape": b'{"move": "s 3 1 4 1\\u0000", "ply": 1}',
            "byte order mark": b'\xef\xbb\xbf{"move": "s 3 1 4 1", "ply": 1}',
            "huge number": b'{"move": "s 3 1 4 1", "ply": 1e400}',
        }
        for name, body in cases.items():
            with self.subTest(name):
                self.assertError(self.post_raw(self.moves, body), 400, "bad_json")
        self.assertError(self.post_raw("/api/games", b'{"variant": "nchess", "variant": "nchess", "seats": []}'),
                         400, "bad_json")

    def test_nesting_limit(self):
        def nested(depth):   # an object nesting depth levels deep, counting the outer one
            return "{" + '"a":{' * (depth - 1) + '"b":1' + "}" * depth

        self.assertEqual(json.loads(nested(3)), {"a": {"a": {"b": 1}}})
        # At the limit the JSON is read, and refused for its fields; past it, as too deep.
        self.assertError(self.post_raw(self.moves, nested(LIMIT_JSON_DEPTH)), 400, "bad_request")
        self.assertError(self.post_raw(self.moves, nested(LIMIT_JSON_DEPTH + 1)), 400, "bad_json", "deep")
        self.assertError(self.post_raw(self.moves, "[" * 5000 + "]" * 5000), 400, "bad_json")
        self.assertError(self.post_raw(self.moves, '{"a":' + "[" * 5000 + "]" * 5000 + "}"), 400, "bad_json")

    def test_unknown_fields_and_wrong_types(self):
        cases = [
            {"move": "s 3 1 4 1", "ply": 1, "seat": "North"},
            {"move": "s 3 1 4 1"},
            {"ply": 1},
            {},
            {"move": 5, "ply": 1},
            {"move": ["s 3 1 4 1"], "ply": 1},
            {"move": None, "ply": 1},
            {"move": "s 3 1 4 1", "ply": "1"},
            {"move": "s 3 1 4 1", "ply": 1.0},
            {"move": "s 3 1 4 1", "ply": -1},
            {"move": "s 3 1 4 1", "ply": True},
            {"move": "s 3 1 4 1", "ply": None},
            {"move": "s 3 1 4 1", "ply": 10 ** 30},
            {"Move": "s 3 1 4 1", "ply": 1},
        ]
        for body in cases:
            with self.subTest(body=body):
                r = self.d.post(self.moves, body, token=self.tokens["North"])
                self.assertEqual(r.status, 400, r)
                self.assertIn(r.json()["error"]["code"], ("bad_request", "bad_json"))
                if "ply" in body and body["ply"] != 10 ** 30:
                    self.assertEqual(r.json()["error"]["code"], "bad_request")
        draws = [{}, {"action": "offer", "x": 1}, {"action": 1}, {"action": "OFFER"}, {"action": ""}]
        for body in draws:
            with self.subTest(draw=body):
                self.assertError(self.d.post(f"/api/games/{self.gid}/draw", body, token=self.tokens["North"]),
                                 400, "bad_request")
        for body in ({"reason": "tired"}, {"confirm": True}):
            with self.subTest(resign=body):
                self.assertError(self.d.post(f"/api/games/{self.gid}/resign", body, token=self.tokens["North"]),
                                 400, "bad_request")

    def test_create_game_refusals(self):
        long_name = "x" * (LIMIT_NAME + 1)
        cases = [
            ({"variant": "chess", "seats": [{"name": "A"}, {"name": "B"}]}, 422, "unknown_variant"),
            ({"variant": "NCHESS", "seats": [{"name": "A"}, {"name": "B"}]}, 422, "unknown_variant"),
            ({"variant": "nchess", "seats": [{"name": "A"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": []}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A"}] * 50}, 400, "bad_request"),
            ({"variant": "nchess", "seats": {"South": "A"}}, 400, "bad_request"),
            ({"variant": "nchess", "seats": ["A", "B"]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": ""}, {"name": "B"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A\nB"}, {"name": "B"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A\u0000B"}, {"name": "B"}]}, 400, "bad_json"),
            ({"variant": "nchess", "seats": [{"name": long_name}, {"name": "B"}]}, 413, "too_large"),
            ({"variant": "nchess", "seats": [{"name": "\u00e9" * (LIMIT_NAME // 2 + 1)}, {"name": "B"}]},
             413, "too_large"),
            ({"variant": "nchess", "seats": [{"name": "A", "email": "not-an-address"}, {"name": "B"}]},
             400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A", "email": "a@b.c" + "c" * LIMIT_EMAIL}, {"name": "B"}]},
             413, "too_large"),
            ({"variant": "nchess", "seats": [{"name": "A", "token": "x"}, {"name": "B"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": 7}, {"name": "B"}]}, 400, "bad_request"),
            ({"variant": "nchess"}, 400, "bad_request"),
            ({"seats": [{"name": "A"}, {"name": "B"}]}, 400, "bad_request"),
            ({"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}], "options": {}}, 400, "bad_request"),
        ]
        for body, status, code in cases:
            with self.subTest(body=str(body)[:80]):
                self.assertError(self.d.post("/api/games", body), status, code)

    def test_content_type(self):
        body = '{"move": "s 3 1 4 1", "ply": 1}'
        for ct in (None, "text/plain", "application/x-www-form-urlencoded", "application/jsonp",
                   "application/json-patch+json", "multipart/form-data; boundary=x", "json"):
            with self.subTest(content_type=ct):
                self.assertError(self.post_raw(self.moves, body, content_type=ct), 415, "unsupported_media_type")
        self.assertError(self.post_raw("/api/games", '{"variant":"nchess","seats":[{"name":"A"},{"name":"B"}]}',
                                       content_type="text/plain"), 415, "unsupported_media_type")
        self.assertError(self.post_raw(f"/api/games/{self.gid}/draw", '{"action":"offer"}', content_type=None),
                         415, "unsupported_media_type")
        self.assertError(self.post_raw(f"/api/games/{self.gid}/resign", "{}", content_type="text/plain"),
                         415, "unsupported_media_type")
        # Parameters and case are fine: these get as far as the move check (stale: ply 0 is played).
        for ct in ("application/json; charset=utf-8", "Application/JSON"):
            with self.subTest(content_type=ct):
                self.assertError(self.post_raw(self.moves, '{"move": "s 3 1 4 1", "ply": 0}', content_type=ct),
                                 409, "stale_ply")

    def test_body_over_limit_by_content_length(self):
        padding = " " * (LIMIT_BODY + 1 - len('{"move": "s 3 1 4 1", "ply": 1}'))
        body = '{"move": "s 3 1 4 1", "ply": 1}' + padding
        self.assertEqual(len(body), LIMIT_BODY + 1)
        self.assertError(self.post_raw(self.moves, body), 413, "too_large")
        self.assertError(self.post_raw("/api/games", "x" * (LIMIT_BODY * 4)), 413, "too_large")
        self.assertError(self.post_raw(f"/api/games/{self.gid}/draw", body), 413, "too_large")
        # Form routes answer with a page.
        r = self.d.post_form(f"/games/{self.gid}/move", "move=" + "x" * (LIMITS["LIMIT_BODY_FORM"] + 1))
        self.assertEqual(r.status, 413, r)
        self.assertTrue(r.header("Content-Type").startswith("text/html"), r.headers)
        r = self.d.post_form("/games", "variant=nchess&name0=" + "x" * (LIMITS["LIMIT_BODY_FORM"] + 1))
        self.assertEqual(r.status, 413, r)
        # A body on a route that takes none.
        r = self.d.request("GET", "/api/variants", body=b"{}", headers={"Content-Type": "application/json"})
        self.assertError(r, 413, "too_large")
        # A promised length that never comes is refused before it is read.
        s = socket.create_connection(("127.0.0.1", self.d.port), timeout=HTTP_TIMEOUT)
        try:
            s.sendall(f"POST {self.moves} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      f"Authorization: Bearer {self.tokens['North']}\r\nContent-Length: 1000000000\r\n\r\n".encode())
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        finally:
            s.close()
        self.assertTrue(reply.startswith(b"HTTP/1.1 413 "), reply[:200])

    def test_body_at_limit_is_read(self):
        core = '{"move": "s 3 1 4 1", "ply": 0}'
        body = core + " " * (LIMIT_BODY - len(core))
        self.assertEqual(len(body), LIMIT_BODY)
        self.assertError(self.post_raw(self.moves, body), 409, "stale_ply")
        # A small chunked body is read like any other.
        r = self.d.post(self.moves, iter([core[:10].encode(), core[10:].encode()]), token=self.tokens["North"],
                        headers={"Content-Type": "application/json"})
        self.assertError(r, 409, "stale_ply")

    def test_body_over_limit_by_chunks(self):
        core = b'{"move": "s 3 1 4 1", "ply": 1, "x": "'
        chunks = [core] + [b"a" * 1024] * (LIMIT_BODY // 1024 + 2) + [b'"}']
        try:
            r = self.d.post(self.moves, iter(chunks), token=self.tokens["North"],
                            headers={"Content-Type": "application/json"})
        except (ConnectionError, http.client.HTTPException) as e:
            self.fail(f"no answer to an over-long chunked body: {e!r}")
        self.assertError(r, 413, "too_large")

    def test_non_utf8(self):
        for body in (b'{"move": "s 3 1 4 1\xff", "ply": 1}',
                     b'{"move": "s 3 1 4 1\xc3", "ply": 1}',
                     b'{"move": "s 3 1 4 1\xed\xa0\x80", "ply": 1}',     # an encoded surrogate
                     b'{"move": "s 3 1 4 1\xc0\xaf", "ply": 1}',          # overlong
                     b'{"move": "s 3 1 4 1\\ud800", "ply": 1}',           # a lone surrogate escape
                     b'{"mo\xffve": "s 3 1 4 1", "ply": 1}'):
            with self.subTest(body=body):
                self.assertError(self.post_raw(self.moves, body), 400, "bad_json")
        self.assertError(self.post_raw("/api/games", b'{"variant":"nchess","seats":[{"name":"\xff"},{"name":"B"}]}'),
                         400, "bad_json")
        # In a move text through the form, where no JSON parser stands in the way.
        page = self.d.get(f"/games/{self.gid}?seat={self.tokens['North']}").text
        fields = dict(re.findall(r'<input type="hidden" name="(seat|csrf|ply)" value="([^"]*)"', page))
        for raw in ("s%203%201%204%201%FF", "%C3", "%ED%A0%80"):
            with self.subTest(form=raw):
                r = self.d.post_form(f"/games/{self.gid}/move", urllib.parse.urlencode(fields) + "&move=" + raw)
                # Form data that is not UTF-8 is refused as a whole, before any game code sees it.
                self.assertEqual(r.status, 400, r)
                self.assertIn("UTF-8", r.text)
        # Valid non-ASCII text is simply not a move.
        r = self.d.post(self.moves, {"move": "s 3 1 4 1 ♞", "ply": 1}, token=self.tokens["North"])
        self.assertError(r, 422, "bad_move")

    def test_overlong_move_text(self):
        for text in ("s 3 1 4 1" + " " * LIMIT_MOVE_TEXT, "s" * 5000):
            with self.subTest(length=len(text)):
                self.assertError(self.d.post(self.moves, {"move": text, "ply": 1}, token=self.tokens["North"]),
                                 413, "too_large")
        # At the limit it is parsed (and this one is a good move padded with a comment): no change
        # because it is South's move at ply 0 again, a duplicate.
        text = "S 7 1 6 1 #" + "x" * (LIMIT_MOVE_TEXT - 11)
        self.assertEqual(len(text), LIMIT_MOVE_TEXT)
        r = self.d.post(self.moves, {"move": text, "ply": 0}, token=self.tokens["South"])
        self.assertEqual((r.status, r.json().get("duplicate")), (200, True), r)
        page = self.d.get(f"/games/{self.gid}?seat={self.tokens['North']}").text
        fields = dict(re.findall(r'<input type="hidden" name="(seat|csrf|ply)" value="([^"]*)"', page))
        r = self.d.post_form(f"/games/{self.gid}/move", {**fields, "move": "s" * (LIMIT_MOVE_TEXT + 1)})
        self.assertEqual(r.status, 413, r)

    def test_unknown_routes(self):
        for path in ("/api/", "/api/openapi.json/", "/api/games/", "/api/variants/", "/api/games/x/y", "/api/games//moves",
                     f"/api/games/{self.gid}/", f"/api/games/{self.gid}/moves/0", "/api/v2/games",
                     "/games/", "/nothing", "/index.html", "//", "/.env", "/api/games/" + "a" * 65,
                     "/templates/game.html", "/rules/", "/style.css/x"):
            with self.subTest(path=path):
                r = self.d.get(path)
                self.assertEqual(r.status, 404, r)
                self.assertEqual(r.header("Referrer-Policy"), "strict-origin")
                if path.startswith("/api"):
                    self.assertError(r, 404, "not_found")
        r = self.d.get("/rules/chess")
        self.assertEqual(r.status, 404)
        self.assertTrue(r.header("Content-Type").startswith("text/html"), "a page route answers with a page")

    def test_wrong_methods(self):
        gid = self.gid
        cases = [
            ("DELETE", f"/api/games/{gid}", "GET"),
            ("PUT", f"/api/games/{gid}", "GET"),
            ("POST", f"/api/games/{gid}", "GET"),
            ("PATCH", f"/api/games/{gid}/moves", "GET, POST"),
            ("DELETE", f"/api/games/{gid}/moves", "GET, POST"),
            ("POST", "/api/variants", "GET"),
            ("DELETE", "/api/games", "GET, POST"),
            ("GET", f"/api/games/{gid}/resign", "POST"),
            ("GET", f"/api/games/{gid}/draw", "POST"),
            ("POST", f"/api/games/{gid}/dice", "GET"),
            ("OPTIONS", "/api/variants", "GET"),
            ("POST", "/", "GET"),
            ("PUT", "/games", "GET, POST"),
            ("GET", f"/games/{gid}/move", "POST"),
            ("DELETE", f"/games/{gid}", "GET"),
            ("POST", "/style.css", "GET"),
        ]
        for method, path, allow in cases:
            with self.subTest(method=method, path=path):
                r = self.d.request(method, path, body=b"{}" if method in ("POST", "PUT", "PATCH") else None,
                                   headers={"Content-Type": "application/json"}, token=self.tokens["North"])
                self.assertError(r, 405, "method_not_allowed")
                self.assertEqual(sorted(r.header("Allow").split(", ")), sorted(allow.split(", ")))
        # HEAD is GET without the body.
        r = self.d.request("HEAD", "/api/variants")
        self.assertEqual((r.status, r.body), (200, b""))

    def test_odd_path_segments(self):
        for seg in ("a%20b", "%2e%2e", "..%2f..%2fetc", "%2fetc%2fpasswd", "a%00", "%ff%fe", "%3Cscript%3E",
                    "a;b", "a'b", 'a"b', "a%0d%0aSet-Cookie:x", "\u00e9".encode().decode("latin-1"),
                    "*", "~", "a" * 64, "..", ".", "%25"):
            for tail in ("", "/moves", "/dice"):
                path = "/api/games/" + urllib.parse.quote(seg, safe="%;'*~.") + tail
                with self.subTest(path=path):
                    r = self.d.get(path)
                    self.assertError(r, 404, "not_found")
                    self.assertNotIn("<script>", r.text)
                    self.assertNotIn("Set-Cookie", str(r.headers))
        for seg in ("%3Cscript%3E", "a%20b", ".."):
            with self.subTest(page=seg):
                r = self.d.get("/games/" + seg)
                self.assertEqual(r.status, 404, r)
                self.assertNotIn("<script>", r.text)

    def test_encoded_nul_in_path(self):
        self.assertError(self.d.get(f"/api/games/{self.gid}%00x"), 404, "not_found")

    def test_headers_over_limit(self):
        # libmicrohttpd answers these itself, before any handler runs.
        big = LIMITS["LIMIT_HEADER_MEMORY"] + 1000
        r = self.d.get("/api/games/" + "a" * big)
        self.assertIn(r.status, (414, 431), r)
        r = self.d.get("/api/variants", headers={"X-Padding": "a" * big})
        self.assertIn(r.status, (413, 431), r)

    def test_form_refusals(self):
        gid = self.gid
        page = self.d.get(f"/games/{gid}?seat={self.tokens['North']}").text
        fields = dict(re.findall(r'<input type="hidden" name="(seat|csrf|ply)" value="([^"]*)"', page))
        self.assertEqual(set(fields), {"seat", "csrf", "ply"})
        good = {**fields, "move": "s 3 1 4 1"}
        origin = f"http://127.0.0.1:{self.d.port}"
        cases = [
            ({**good, "csrf": "0" * 64}, None, 403),
            ({**good, "csrf": ""}, None, 403),
            ({k: v for k, v in good.items() if k != "csrf"}, None, 403),
            ({**good, "csrf": self.form_csrf(self.other, self.other_tokens["North"])}, None, 403),
            (good, "http://evil.example", 403),
            (good, f"http://127.0.0.1:{self.d.port}.evil.example", 403),
            (good, f"https://127.0.0.1:{self.d.port}x", 403),
            ({k: v for k, v in good.items() if k != "seat"}, origin, 401),
            ({**good, "seat": "A" * 32}, origin, 401),
            ({**good, "seat": self.other_tokens["North"]}, origin, 401),
            ({**good, "ply": "one"}, origin, 400),
            ({**good, "ply": "-1"}, origin, 400),
            ({**good, "ply": "0"}, origin, 409),
            ({**good, "ply": "5"}, origin, 409),
            ({**good, "move": ""}, origin, 422),
            ({**good, "move": "s 3 1 2 1"}, origin, 422),
        ]
        # "Origin: null" is refused whatever Sec-Fetch-Site says, and a cross-site or same-site
        # (sibling host) post is refused.
        for org, site in (("null", "cross-site"), ("null", "same-site"), ("null", "same-origin"),
                          (origin, "cross-site")):
            with self.subTest(origin=org, fetch_site=site):
                r = self.d.post_form(f"/games/{gid}/move", good, origin=org, headers={"Sec-Fetch-Site": site})
                self.assertEqual(r.status, 403, r)
        for form, org, status in cases:
            with self.subTest(form={k: v[:12] for k, v in form.items()}, origin=org):
                r = self.d.post_form(f"/games/{gid}/move", form, origin=org)
                self.assertEqual(r.status, status, r)
                self.assertTrue(r.header("Content-Type").startswith("text/html"), r.headers)
                self.assertNotIn("Location", r.headers)
        for action in ("resign", "draw"):
            with self.subTest(action=action):
                form = {**fields, "confirm": "yes", "action": "offer"}
                self.assertEqual(self.d.post_form(f"/games/{gid}/{action}", form, origin="http://evil.example").status,
                                 403)
                self.assertEqual(self.d.post_form(f"/games/{gid}/{action}", {**form, "csrf": "1" * 64}).status, 403)
        r = self.d.post_form(f"/games/{gid}/resign", fields)     # without the confirmation box
        self.assertEqual(r.status, 400, r)
        r = self.d.post_form(f"/games/{gid}/draw", {**fields, "action": "dance"})
        self.assertEqual(r.status, 400, r)
        r = self.d.post_form("/games", {"variant": "nchess", "name0": "A"}, origin="http://evil.example")
        self.assertEqual(r.status, 403, r)
        r = self.d.post_page_form("/games", {"variant": "chess"})
        self.assertEqual(r.status, 422, r)

    def test_form_empty_ply(self):
        fields = hidden_fields(self.d.get(f"/games/{self.gid}?seat={self.tokens['North']}").text,
                               f"/games/{self.gid}/move")
        r = self.d.post_form(f"/games/{self.gid}/move", {**fields, "ply": "", "move": "s 3 1 4 1"})
        self.assertEqual(r.status, 400, r)

    def test_log_lines_cannot_be_forged(self):
        r = self.d.get("/api/games/x%0a2026-01-01T00:00:00Z%20game%20forged%20over:%20North%20wins%0d")
        self.assertError(r, 404, "not_found")
        time.sleep(0.1)
        for line in self.d.stderr().splitlines():
            self.assertRegex(line, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ")
            self.assertNotRegex(line, r"^2026-01-01T00:00:00Z ")

    def test_uri_too_long(self):
        self.assertError(self.d.get(f"/api/games/{self.gid}?pad=" + "x" * 3000), 414, "uri_too_long")

    def test_form_with_broken_escape(self):
        r = self.d.post_form("/games", "variant=nchess&name0=%ZZ&name1=Ben")
        self.assertEqual(r.status, 400, r)
        self.assertIn("escape", r.text)

    def form_csrf(self, gid, token):
        page = self.d.get(f"/games/{gid}?seat={token}").text
        return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


# --------------------------------------------------------------------------------------------
# Start and stop
# --------------------------------------------------------------------------------------------

class LifecycleTests(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rookery-bb-life-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def daemon(self, *extra, db=None):
        d = Daemon(*extra, db=db, workdir=self.tmp)
        self.addCleanup(d.kill)
        return d.start()

    @unittest.skipIf(database.BACKEND == "postgresql",
                     "rookery backup copies a SQLite database; PostgreSQL's own tools back up its databases")
    def test_online_backup(self):
        d = self.daemon()
        gid, tokens, _ = d.create_game()
        self.assertEqual(d.move(gid, tokens["South"], "S 7 1 6 1", 0).status, 201)
        dest = os.path.join(self.tmp, "copy.db")
        r = run_rookery("backup", "--db", d.db, dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("backed up", r.stdout)
        conn = sqlite3.connect(f"file:{dest}?mode=ro", uri=True)
        try:
            self.assertEqual(conn.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            self.assertEqual(conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0], 1)
        finally:
            conn.close()
        # An existing file is never overwritten; a relative path is taken from the caller's directory.
        r = run_rookery("backup", "--db", d.db, dest)
        self.assertEqual(r.returncode, 74, r.stderr)
        self.assertIn("already exists", r.stderr)
        r = run_rookery("backup", "--db", d.db, "second.db", cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "second.db")))
        d.stop()
        # Without the daemon: EX_TEMPFAIL. The copy serves as a database of its own.
        r = run_rookery("backup", "--db", d.db, os.path.join(self.tmp, "third.db"))
        self.assertEqual(r.returncode, 75, r.stderr)
        e = self.daemon(db=dest)
        self.assertEqual(e.game(gid)["ply"], 1)

    def test_sigint_stops_cleanly(self):
        d = self.daemon()
        gid, tokens, _ = d.create_game()
        self.assertEqual(d.get(f"/api/games/{gid}").status, 200)
        log = d.stop(signal.SIGINT)
        self.assertIn("SIGINT", log)

    def test_open_connections_do_not_delay_shutdown(self):
        d = self.daemon()
        idle = d.connect()                      # a kept-alive connection after one request
        self.addCleanup(idle.close)
        self.assertEqual(d.get("/api/variants", conn=idle).status, 200)
        half = socket.create_connection(("127.0.0.1", d.port), timeout=HTTP_TIMEOUT)
        self.addCleanup(half.close)
        half.sendall(b"GET /api/vari")          # a request line never finished
        time.sleep(0.1)
        t0 = time.monotonic()
        d.stop()
        self.assertLess(time.monotonic() - t0, LIMITS["LIMIT_SHUTDOWN_GRACE_S"] / 2)

    def test_restart_keeps_games(self):
        d = self.daemon()
        gid, tokens, _ = d.create_game()
        d.play(gid, tokens, ["S 7 1 6 1"])
        before = d.game(gid)
        d.stop()
        d2 = self.daemon(db=d.db)
        d2.secrets = d.secrets
        self.assertEqual(d2.game(gid), before)
        # The tokens and the form key survive the restart.
        d2.play(gid, tokens, ["s 3 1 4 1"], first_ply=1)
        html = d2.get(f"/games/{gid}?seat={tokens['South']}").text
        fields = hidden_fields(html, f"/games/{gid}/move")
        self.assertEqual(d2.post_form(f"/games/{gid}/move", {**fields, "move": "S 7 3 6 3"}).status, 303)
        d2.stop()

    def test_newer_database_is_refused(self):
        d = self.daemon()
        gid, _, _ = d.create_game()
        d.stop()
        database.set_schema_version(d.db, 999)
        r = subprocess.run([daemon.ROOKERY, "serve", "--port", "0", "--address", "127.0.0.1"] + d.db_args(),
                           capture_output=True, text=True, timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0, r.stderr)
        self.assertIn("newer", r.stderr)
        self.assertNotIn("Rookery is serving", r.stdout)
        for mark in SANITIZER_MARKS:
            self.assertNotIn(mark, r.stderr)
        self.assertEqual(database.schema_version(d.db), 999, "the database was touched")
        self.assertEqual(database.query(d.db, "SELECT id FROM games"), [(gid,)])
        r = run_rookery("migrate", "--db", d.db)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("newer", r.stderr)

    def test_port_in_use(self):
        d = self.daemon()
        # Another database (another directory for SQLite's file), so that only the port is shared.
        other_dir = os.path.join(self.tmp, "second")
        os.makedirs(other_dir, exist_ok=True)
        other = database.fresh(other_dir)
        r = subprocess.run([daemon.ROOKERY, "serve", "--port", str(d.port), "--address", "127.0.0.1",
                            "--db", other, "--sockets", os.path.join(self.tmp, "second")],
                           capture_output=True, text=True, timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(str(d.port), r.stderr)
        d.stop()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
