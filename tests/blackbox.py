#!/usr/bin/env python3
"""blackbox.py - black-box tests: the real rookery daemon on 127.0.0.1, driven over HTTP.

usage: python3 tests/blackbox.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

Each test class starts its own daemon (`rookery serve --port 0`) on a fresh
database in a temporary directory, reads the port from the line the daemon
prints once it listens, and stops it with SIGTERM at the end: the daemon must
exit 0, log "stopped cleanly", never log a seat token, and (in a sanitizer
build) report no AddressSanitizer, LeakSanitizer or UBSan error.

Python standard library only.
"""
import email
import email.policy
import glob
import hashlib
import html.parser
import http.client
import json
import os
import random
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

HERE = os.path.dirname(os.path.abspath(__file__))
VERIFY_DICE = os.path.join(HERE, "..", "scripts", "verify-dice.py")
ROOKERY = os.environ.get("ROOKERY", "")

# Generous: a sanitizer build is slower, and CI machines are small.
START_TIMEOUT = 60
STOP_TIMEOUT = 60
HTTP_TIMEOUT = 30



def read_limits(path=os.path.join(HERE, "..", "service", "core", "limits.h")):
    """The numeric #defines of service/core/limits.h, so that the tests follow the header."""
    limits = {}
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r"^#define\s+(LIMIT_\w+)\s+([0-9()*+ ]+?)\s*(?:/\*.*)?$", f.read(), re.M):
            limits[m.group(1)] = int(eval(m.group(2), {"__builtins__": {}}))
    return limits


LIMITS = read_limits()
LIMIT_BODY = LIMITS["LIMIT_BODY_JSON"]
LIMIT_JSON_DEPTH = LIMITS["LIMIT_JSON_DEPTH"]
LIMIT_MOVE_TEXT = LIMITS["LIMIT_MOVE_TEXT"]
LIMIT_NAME = LIMITS["LIMIT_NAME"]
LIMIT_EMAIL = LIMITS["LIMIT_EMAIL"]

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def faketime_env(offset=None, timestamp_file=None):
    """The environment that runs the daemon with its clock moved: by offset ("+1d"), or by what
    timestamp_file says, read again at every look at the clock (see FakeClock)."""
    env = {
        "LD_PRELOAD": FAKETIME_LIB,
        "FAKETIME_NO_CACHE": "1",
        # The sanitizer runtime must come first among the libraries; libfaketime is preloaded before it.
        "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0",
    }
    if timestamp_file:
        env["FAKETIME_TIMESTAMP_FILE"] = timestamp_file
    else:
        env["FAKETIME"] = offset
    return env


class FakeClock:
    """The daemon's clock, moved by the test while the daemon runs: a timestamp file holding the
    offset from the real time in seconds, always ahead of it (the monotonic clock moves with it),
    rewritten by rename so that the daemon never reads half a file. Only ever move it forward;
    give the daemon env() in Daemon.extra_env before it starts."""

    def __init__(self, workdir, start=None, ahead=3600):
        self.path = os.path.join(workdir, "faketime")
        self.offset = 0
        if start is None:
            self.set(ahead)
        else:
            self.set_time(start)

    def set(self, offset):
        """The daemon's time is the real time plus offset seconds from now on."""
        self.offset = int(offset)
        with open(self.path + ".new", "w", encoding="ascii") as f:
            f.write("+%d\n" % self.offset)
        os.rename(self.path + ".new", self.path)

    def set_time(self, when):
        """The daemon's time is when (unix time, after the real now) from now on."""
        self.set(max(0, round(when - time.time())))

    def advance(self, seconds):
        self.set(self.offset + seconds)

    def now(self):
        """The daemon's time now (unix seconds)."""
        return time.time() + self.offset

    def env(self):
        return faketime_env(timestamp_file=self.path)


CANONICAL_MOVE = re.compile(r"^[CNMGASOcnmgaso] [1-9] [1-9] [1-9] [1-9]( [46])?( / [cnmgasoCNMGASO] [1-9] [1-9])*$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The seat link a mail carries (the invitation's and each your-move mail's own, not the creator's).
SEAT_LINK_IN_MAIL = re.compile(r"\(this link is yours alone\):\n(\S+)\n")

# The start position of Nchess, as the API's position.board shows it.
START_BOARD = [
    ["c", "n", "m", None, "g", None, "m", "n", "c"],
    [None, "a", None, None, None, None, None, "a", None],
    ["s", None, "s", None, "s", None, "s", None, "s"],
    [None] * 9,
    [None] * 9,
    [None] * 9,
    ["S", None, "S", None, "S", None, "S", None, "S"],
    [None, "A", None, None, None, None, None, "A", None],
    ["C", "N", "M", None, "G", None, "M", "N", "C"],
]

# A game that reaches a release: at ply 15 North's Archer captures the South
# Knight standing on South's prison [9 6], which holds a North Soldier, so the
# Soldier is released and must be placed (nchess.md 6.3).
RELEASE_LINE = [
    "S 7 7 7 8", "s 3 3 3 2", "N 9 2 8 4", "a 2 8 4 8", "C 9 1 8 1", "a 2 2 2 4",
    "A 8 8 5 5", "s 3 9 4 9", "A 5 5 3 5 6", "m 1 7 3 5 4", "N 8 4 9 6", "a 4 8 5 8",
    "A 8 2 6 2", "a 5 8 7 8 4", "A 6 2 8 2",
]



class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name)

    def __repr__(self):
        return f"<{self.status} {self.body[:300]!r}>"


class Daemon:
    """One rookery serve process on 127.0.0.1 with its own database."""

    def __init__(self, *extra, db=None, workdir=None):
        self.workdir = workdir or tempfile.mkdtemp(prefix="rookery-bb-")
        self.db = db or os.path.join(self.workdir, "rookery.db")
        self.extra = list(extra)
        self.secrets = set()      # seat tokens that must never reach the log
        self.extra_env = {}       # variables set for the daemon only
        self.proc = None
        self.port = None
        self.base = None
        self.stdout_text = ""

    def start(self):
        self.out_path = os.path.join(self.workdir, "stdout-%d.txt" % time.monotonic_ns())
        self.err_path = self.out_path.replace("stdout", "stderr")
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [ROOKERY, "serve", "--port", "0", "--address", "127.0.0.1", "--db", self.db] + self.extra,
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir,
                env={**os.environ, **self.extra_env})
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = self.read_stdout()
            m = re.search(r"Rookery is serving (\S+)/\n", text)
            if m:
                self.base = m.group(1)
                if "--base-url" in self.extra:
                    # The printed address is then the public one: the log has the port.
                    p = re.search(r" on 127\.0\.0\.1 port (\d+) ", self.stderr())
                else:
                    p = re.search(r"^http://127\.0\.0\.1:(\d+)$", self.base)
                if p:
                    self.port = int(p.group(1))
                    return self
            if self.proc.poll() is not None:
                raise AssertionError(f"rookery exited with {self.proc.returncode} before serving:\n{self.stderr()}")
            time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"rookery did not start within {START_TIMEOUT}s:\n{self.stderr()}")

    def wait_stdout(self, pattern, timeout=START_TIMEOUT):
        """Wait until the daemon's standard output matches pattern; returns all of it."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.read_stdout()):
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} on stdout:\n{self.stdout_text}")
            time.sleep(0.02)
        return self.stdout_text

    def read_stdout(self):
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            self.stdout_text = f.read()
        return self.stdout_text

    def stderr(self):
        with open(self.err_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM):
        """Signal the daemon, wait for it, check it stopped cleanly; returns its log."""
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"rookery did not stop within {STOP_TIMEOUT}s:\n{self.stderr()[-3000:]}")
        log = self.stderr()
        problems = []
        if rc != 0:
            problems.append(f"exit status {rc}")
        if "stopped cleanly" not in log:
            problems.append("no 'stopped cleanly' in the log")
        for mark in SANITIZER_MARKS:
            if mark in log:
                problems.append(f"the log shows {mark!r}")
        for s in self.secrets:
            if s in log:
                problems.append(f"a seat token appears in the log: {s[:6]}...")
        if problems:
            raise AssertionError("; ".join(problems) + "\n--- log ---\n" + log[-6000:])
        return log

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    # ---- HTTP ----

    def connect(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=HTTP_TIMEOUT)

    def request(self, method, path, body=None, headers=None, token=None, conn=None):
        """One request; body may be a dict (sent as JSON), str, bytes or an iterable (chunked)."""
        hdrs = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        if token is not None:
            hdrs["Authorization"] = "Bearer " + token
        own = conn is None
        c = conn or self.connect()
        try:
            chunked = body is not None and not isinstance(body, (bytes, bytearray))
            c.request(method, path, body=body, headers=hdrs, encode_chunked=chunked)
            r = c.getresponse()
            data = r.read()
            return Response(r.status, r.headers, data)
        finally:
            if own:
                c.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def post_form(self, path, fields, origin=None, headers=None, conn=None):
        hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
        if origin:
            hdrs["Origin"] = origin
        hdrs.update(headers or {})
        body = fields if isinstance(fields, (str, bytes)) else urllib.parse.urlencode(fields)
        return self.request("POST", path, body, headers=hdrs, conn=conn)

    def page_form(self, page):
        """GET page; its form token and the cookie it is tied to, as (fields, headers) for a post."""
        r = self.get(page)
        assert r.status == 200, r
        fields = {"csrf": re.search(r'name="csrf" value="([0-9a-f]+)"', r.text).group(1)}
        cookie = r.header("Set-Cookie")
        return fields, ({"Cookie": cookie.split(";")[0]} if cookie else {})

    def post_page_form(self, path, fields, page="/", origin=None, headers=None, conn=None):
        """Post a form of page (the home page's by default) as a browser would, cookie and form token included."""
        tok, hdrs = self.page_form(page)
        body = fields if isinstance(fields, (str, bytes)) else urllib.parse.urlencode(fields)
        body = (body.decode() if isinstance(body, bytes) else body) + "&" + urllib.parse.urlencode(tok)
        return self.post_form(path, body, origin=origin, headers={**hdrs, **(headers or {})}, conn=conn)

    # ---- game helpers ----

    def create_game(self, names=("Ann", "Ben"), emails=(None, None)):
        seats = []
        for n, e in zip(names, emails):
            s = {"name": n}
            if e:
                s["email"] = e
            seats.append(s)
        r = self.post("/api/games", {"variant": "nchess", "seats": seats})
        assert r.status == 201, r
        g = r.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.secrets.update(tokens.values())
        return g["id"], tokens, g

    def game(self, gid, token=None):
        r = self.get(f"/api/games/{gid}", token=token)
        assert r.status == 200, r
        return r.json()

    def move(self, gid, token, move, ply):
        return self.post(f"/api/games/{gid}/moves", {"move": move, "ply": ply}, token=token)

    def all_moves(self, gid, token=None):
        """Every move of a game, oldest first: GET /api/games/{id}/moves answers a page at a time."""
        moves, start = [], 0
        while start is not None:
            r = self.get(f"/api/games/{gid}/moves?from={start}&limit={LIMITS['LIMIT_MOVES_PAGE_MAX']}", token=token)
            assert r.status == 200, r
            moves += r.json()["moves"]
            start = r.json()["next"]
        return moves

    def dice_record(self, gid):
        """The whole dice record of a game: GET /api/games/{id}/dice answers a page at a time."""
        rec, start = None, 0
        while start is not None:
            r = self.get(f"/api/games/{gid}/dice?from={start}&limit={LIMITS['LIMIT_MOVES_PAGE_MAX']}")
            assert r.status == 200, r
            page = r.json()
            if rec is None:
                rec = page
            else:
                rec["rolls"] += page["rolls"]
            start = page["next"]
        return rec

    def play(self, gid, tokens, moves, first_ply=0):
        seats = ("South", "North")
        for i, m in enumerate(moves):
            ply = first_ply + i
            r = self.move(gid, tokens[seats[ply % 2]], m, ply)
            assert r.status == 201, (ply, m, r)

    # ---- mail ----

    def ask_for_mail(self, gid, link):
        """What a seat's owner does so that Rookery mails them about game gid (after the
        invitation it sends nothing until the owner acts): open the seat link that came by mail
        and press "Send me mail about this game" (POST /games/{gid}/mail with the page's form
        token). link is that mailed seat link or its token; returns the answer to the POST."""
        token = link.split("seat=", 1)[-1]
        self.secrets.add(token)
        page = self.get(f"/games/{gid}?seat={token}")
        assert page.status == 200, page
        form = re.search(r'<form method="post" action="/games/%s/mail"[^>]*>(.*?)</form>' % re.escape(gid),
                         page.text, re.S)
        assert form, "the seat page offers no 'Send me mail about this game' form:\n" + page.text[-3000:]
        fields = {k: html.unescape(v) for k, v in
                  re.findall(r'<input type="hidden" name="(seat|csrf)" value="([^"]*)"', form.group(1))}
        assert set(fields) == {"seat", "csrf"}, form.group(0)
        return self.post_form(f"/games/{gid}/mail", fields, origin=self.base)

    def maildir_mails(self, maildir=None):
        """The mails written to the maildir (by default the one beside the database), parsed, by file name."""
        def order(path):     # "<unix time>.R<outbox id>P<pid>.<host>": in the order they were sent
            m = re.match(r"(\d+)\.R(\d+)P", os.path.basename(path))
            return (int(m.group(1)), int(m.group(2)), path) if m else (0, 0, path)
        out = []
        for path in sorted(glob.glob(os.path.join(maildir or os.path.join(os.path.dirname(self.db), "mail"),
                                                  "new", "*")), key=order):
            with open(path, "rb") as f:
                out.append(email.message_from_bytes(f.read(), policy=email.policy.default))
        return out

    def invitation(self, gid, address, timeout=20):
        """The invitation to game gid mailed to address, from the maildir (waits for it)."""
        deadline = time.monotonic() + timeout
        while True:
            for m in self.maildir_mails():
                if (m["To"].addresses[0].addr_spec.lower() == address.lower()
                        and m["Message-ID"].startswith(f"<{gid}.") and ".invite@" in m["Message-ID"]):
                    return m
            if time.monotonic() > deadline:
                raise AssertionError(f"no invitation to {gid} for {address} in the maildir")
            time.sleep(0.1)

    def confirm_by_invitation(self, gid, address):
        """The owner of address opens the seat link of their invitation to gid (from the maildir)
        and asks for mail (ask_for_mail): from now on Rookery may mail that address."""
        link = SEAT_LINK_IN_MAIL.search(self.invitation(gid, address).get_body(("plain",)).get_content())
        assert link, f"no seat link in the invitation to {gid} for {address}"
        r = self.ask_for_mail(gid, link.group(1))
        assert r.status == 303, r
        return r

    def snapshot(self):
        """Every row of every table, read through a read-only connection."""
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            out = {"user_version": conn.execute("PRAGMA user_version").fetchone()[0]}
            tables = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            for t in tables:
                out[t] = sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
            # The delivery worker moves queued mails along on its own, and wipes their text once
            # sent; what was queued, and to whom, is what counts.
            if "outbox" in tables:
                out["outbox"] = sorted(conn.execute(
                    "SELECT id, game_id, kind, recipient FROM outbox").fetchall(), key=repr)
            return out
        finally:
            conn.close()


def db_query(db, sql, args=()):
    """The rows of one query of the database db, through a read-only connection of its own."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def run_tests(doc):
    """A black-box test script's entry point: the path of the rookery binary, then unittest's options."""
    global ROOKERY
    if len(sys.argv) < 2:
        sys.exit(doc)
    ROOKERY = os.path.abspath(sys.argv.pop(1))
    unittest.main(module="__main__", verbosity=2)


def run_rookery(*args, cwd=None):
    return subprocess.run([ROOKERY, *args], capture_output=True, text=True, timeout=START_TIMEOUT,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def square_of(board, piece):
    for i, row in enumerate(board):
        for j, p in enumerate(row):
            if p == piece:
                return (i + 1, j + 1)
    return None


def is_mine(piece, seat):
    return piece is not None and piece.isupper() == (seat == "South")


def complete_release(prefix, seat, position, rnd):
    """Complete a legal move listed as a prefix with one placement per released prisoner.

    The opponent's prisons that hold the mover's pieces and, after the move, have
    a piece of the mover on their square are emptied: column 4 first, each last
    imprisoned first, onto empty ordinary squares of the mover's own half.
    """
    f = prefix.split()
    fr, fc, tr, tc = map(int, f[1:5])
    board = [list(row) for row in position["board"]]
    board[tr - 1][tc - 1] = board[fr - 1][fc - 1]
    board[fr - 1][fc - 1] = None
    letters = []
    for h in sorted((h for h in position["holdings"] if h["seat"] == seat), key=lambda h: int(h["col"])):
        if is_mine(board[int(h["row"]) - 1][int(h["col"]) - 1], seat):
            letters += list(reversed(h["pieces"]))
    rows = range(6, 10) if seat == "South" else range(1, 5)
    free = [(i, j) for i in rows for j in range(1, 10)
            if board[i - 1][j - 1] is None and position["kinds"][i - 1][j - 1] == ""]
    rnd.shuffle(free)
    n = min(len(letters), len(free))
    return prefix + "".join(f" / {letters[k]} {free[k][0]} {free[k][1]}" for k in range(n))


class DaemonCase(unittest.TestCase):
    """A test class sharing one daemon, stopped and checked at the end."""

    daemon_args = ()

    @classmethod
    def setUpClass(cls):
        cls.d = Daemon(*cls.daemon_args)
        try:
            cls.d.start()
        except BaseException:
            cls.d.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.d.stop()
        finally:
            cls.d.cleanup()

    def assertError(self, r, status, code, message_part=None):
        """r is an error answer with status and {"error": {"code", "message"}}."""
        self.assertEqual(r.status, status, r)
        self.assertTrue(r.header("Content-Type").startswith("application/json"), r.headers)
        body = r.json()
        self.assertEqual(set(body), {"error"}, body)
        self.assertEqual(set(body["error"]), {"code", "message"}, body)
        self.assertEqual(body["error"]["code"], code, body)
        self.assertIsInstance(body["error"]["message"], str)
        self.assertTrue(body["error"]["message"], body)
        if message_part:
            self.assertIn(message_part, body["error"]["message"])
        return body["error"]["message"]


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
        db = os.path.join(self.tmp, "m.db")
        r = run_rookery("migrate", "--db", db, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"schema version \d+")
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        conn.close()
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
# The JSON API
# --------------------------------------------------------------------------------------------

class ApiTests(DaemonCase):

    def test_variants(self):
        r = self.d.get("/api/variants")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("Content-Type"), "application/json")
        v = r.json()["variants"]
        nchess = [x for x in v if x["id"] == "nchess"]
        self.assertEqual(len(nchess), 1, v)
        n = nchess[0]
        self.assertEqual(n["seats"], ["South", "North"])
        self.assertEqual(n["players"], 2)
        self.assertEqual(n["rules_url"], "/rules/nchess")
        self.assertIsInstance(n["rules_version"], int)
        self.assertTrue(n["title"] and n["summary"])

    def test_create_game(self):
        r = self.d.post("/api/games", {"variant": "nchess", "seats": [
            {"name": "Ann", "email": "ann@example.org"}, {"name": "Ben"}]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.d.secrets.update(s["token"] for s in g["seats"])
        self.assertRegex(g["id"], r"^[a-z0-9]{12}$")
        self.assertEqual(g["variant"], "nchess")
        self.assertEqual(g["url"], f"{self.d.base}/games/{g['id']}")
        self.assertEqual([s["seat"] for s in g["seats"]], ["South", "North"])
        self.assertEqual([s["name"] for s in g["seats"]], ["Ann", "Ben"])
        for s in g["seats"]:
            self.assertEqual(set(s), {"seat", "name", "token", "url"})
            self.assertRegex(s["token"], r"^[A-Za-z0-9_-]{20,64}$")
            self.assertEqual(s["url"], f"{self.d.base}/games/{g['id']}?seat={s['token']}")
        self.assertNotEqual(g["seats"][0]["token"], g["seats"][1]["token"])
        self.assertNotIn("ann@example.org", r.text, "the creator's answer needs no emails either")
        # Names are counted in bytes: LIMIT_NAME bytes of two-byte letters is fine.
        name = "\u00e9" * (LIMIT_NAME // 2)
        gid, tokens, g = self.d.create_game((name, "B"))
        self.assertEqual(self.d.game(gid)["seats"][0]["name"], name)

    def test_new_game_view(self):
        gid, tokens, _ = self.d.create_game()
        g = self.d.game(gid)
        self.assertEqual(g["id"], gid)
        self.assertEqual(g["variant"], "nchess")
        self.assertEqual(g["status"], "running")
        self.assertEqual(g["ply"], 0)
        self.assertEqual(g["turn"], ["South"])
        self.assertIsNone(g["result"])
        self.assertIsNone(g["draw_offer"])
        self.assertRegex(g["dice_commitment"], HEX64)
        self.assertEqual(g["seats"], [{"seat": "South", "name": "Ann", "client_seed": None},
                                      {"seat": "North", "name": "Ben", "client_seed": None}])
        self.assertEqual((g["dice_version"], g["client_seeds_open"]), (2, True))
        self.assertNotIn("legal_moves", g)
        self.assertNotIn("seat", g)
        pos = g["position"]
        self.assertEqual(pos["board"], START_BOARD)
        self.assertEqual(pos["rows"], [str(i) for i in range(1, 10)])
        self.assertEqual(pos["cols"], [str(i) for i in range(1, 10)])
        self.assertTrue(pos["notation"].startswith("nchess1:"), pos["notation"])
        self.assertEqual(pos["kinds"][4], ["river"] * 9)
        self.assertEqual(pos["kinds"][0][3], "prison")
        self.assertEqual({(h["row"], h["col"]) for h in pos["holdings"]},
                         {("1", "4"), ("1", "6"), ("9", "4"), ("9", "6")})
        self.assertTrue(all(h["pieces"] == [] for h in pos["holdings"]))

    def test_legal_moves_only_with_a_token(self):
        gid, tokens, _ = self.d.create_game()
        south = self.d.game(gid, tokens["South"])
        self.assertEqual(south["seat"], "South")
        self.assertEqual(len(south["legal_moves"]), 36, south["legal_moves"])
        self.assertEqual(len(set(south["legal_moves"])), 36)
        for m in south["legal_moves"]:
            self.assertRegex(m, CANONICAL_MOVE)
            self.assertTrue(m[0].isupper(), m)
        self.assertIn("S 7 1 6 1", south["legal_moves"])
        self.assertIn("N 9 2 8 4", south["legal_moves"])
        self.assertNotIn("N 9 2 7 3", south["legal_moves"], "a Soldier stands there")
        # "legal" holds the same moves, in the same order, with what the page needs to point at them.
        self.assertEqual([o["move"] for o in south["legal"]], south["legal_moves"])
        north = self.d.game(gid, tokens["North"])
        self.assertEqual(north["seat"], "North")
        self.assertEqual(north["legal_moves"], [], "North may not move before South")
        self.assertEqual(north["legal"], [])
        # The rest of the view is the public one.
        public = self.d.game(gid)
        for k in ("seat", "legal_moves", "legal"):
            self.assertNotIn(k, public)
            south.pop(k)
            north.pop(k)
        self.assertEqual(south, public)
        self.assertEqual(north, public)

    def test_move_canonical_and_duplicate(self):
        gid, tokens, _ = self.d.create_game()
        r = self.d.move(gid, tokens["South"], "[s 7, 1, 6, 1]", 0)
        self.assertEqual(r.status, 201, r)
        m = r.json()
        self.assertEqual(m["ply"], 0)
        self.assertEqual(m["seat"], "South")
        self.assertEqual(m["move"], "S 7 1 6 1")
        self.assertEqual(m["note"], "")
        self.assertEqual(m["dice"], [])
        self.assertIs(m["duplicate"], False)
        self.assertEqual(m["game"]["ply"], 1)
        self.assertEqual(m["game"]["turn"], ["North"])
        self.assertEqual(m["game"]["seat"], "South")
        self.assertEqual(m["game"]["legal_moves"], [])
        self.assertEqual(m["game"]["position"]["board"][5][0], "S")
        self.assertIsNone(m["game"]["position"]["board"][6][0])
        # The same move again, in any spelling: the same answer, stored once.
        stored = self.d.snapshot()
        for text in ("[s 7, 1, 6, 1]", "S7161", "S 7 1 6 1  # again"):
            with self.subTest(text=text):
                r2 = self.d.move(gid, tokens["South"], text, 0)
                self.assertEqual(r2.status, 200, r2)
                d = r2.json()
                self.assertIs(d["duplicate"], True)
                self.assertEqual((d["ply"], d["seat"], d["move"], d["note"]), (0, "South", "S 7 1 6 1", ""))
                self.assertEqual(d["game"]["ply"], 1)
        self.assertEqual(self.d.snapshot(), stored, "a re-sent move changed the database")
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(len(moves), 1, moves)
        self.assertEqual(moves[0]["move"], "S 7 1 6 1")
        self.assertEqual(moves[0]["seat"], "South")
        self.assertRegex(moves[0]["at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(self.d.game(gid)["ply"], 1)
        # North's first move: lower case, canonical.
        r = self.d.move(gid, tokens["North"], "S31 41", 1)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["move"], "s 3 1 4 1")

    def test_stale_and_future_ply(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, ["S 7 1 6 1", "s 3 1 4 1"])
        before = self.d.game(gid)
        msg = self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 0), 409, "stale_ply")
        self.assertIn("S 7 1 6 1", msg)
        self.assertError(self.d.move(gid, tokens["North"], "s 3 3 4 3", 1), 409, "stale_ply")
        # The right move but the wrong seat for an old ply is stale too.
        self.assertError(self.d.move(gid, tokens["North"], "S 7 1 6 1", 0), 409, "stale_ply")
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 3), 409, "stale_ply", "ply 2")
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 1000), 409, "stale_ply")
        self.assertEqual(self.d.game(gid), before)
        self.assertEqual(len(self.d.get(f"/api/games/{gid}/moves").json()["moves"]), 2)

    def test_not_your_turn(self):
        gid, tokens, _ = self.d.create_game()
        self.assertError(self.d.move(gid, tokens["North"], "s 3 1 4 1", 0), 403, "not_your_turn")
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        self.assertError(self.d.move(gid, tokens["South"], "S 7 3 6 3", 1), 403, "not_your_turn")
        self.assertEqual(self.d.game(gid)["ply"], 1)

    def test_bad_and_illegal_moves(self):
        gid, tokens, _ = self.d.create_game()
        t = tokens["South"]
        for text in ("hello", "S 7 5", "S 0 5 6 5", "X 7 1 6 1", "", "   ", "S 7 1 6 1 4 4 4", "[[S 7 1 6 1"):
            with self.subTest(text=text):
                self.assertError(self.d.move(gid, t, text, 0), 422, "bad_move")
        illegal = {
            "S 7 5 8 5": "backward",            # Soldiers never retreat
            "S 7 5 6 4": "diagonal",
            "C 9 1 7 1": "[7 1]",               # own piece there
            "N 9 1 8 1": "Chariot",             # wrong letter
            "S 7 1 6 1 4": "prison digit",      # prison digit on a non-capture
            "S 7 5 6 5 / S 8 1": "no placement",
            "G 9 5 8 4": "General",
            "M 9 3 7 1": "[8 2]",               # blocked by the Archer
            "S 6 1 5 1": "[6 1]",               # no piece there
            "s 3 1 4 1": "North",               # an enemy piece
        }
        for text, part in illegal.items():
            with self.subTest(text=text):
                r = self.d.move(gid, t, text, 0)
                self.assertEqual(r.status, 422, r)
                err = r.json()["error"]
                self.assertIn(err["code"], ("illegal_move", "not_your_turn") if text[0] == "s" else ("illegal_move",))
                self.assertIn(part.lower(), err["message"].lower(), err)
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["position"]["board"]), (0, START_BOARD))
        self.assertEqual(self.d.get(f"/api/games/{gid}/moves").json()["moves"], [])

    def test_unauthorized(self):
        gid, tokens, _ = self.d.create_game()
        other, other_tokens, _ = self.d.create_game()
        body = {"move": "S 7 1 6 1", "ply": 0}
        path = f"/api/games/{gid}/moves"
        self.assertError(self.d.post(path, body), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token="A" * 32), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token="not a token!"), 401, "unauthorized")
        self.assertError(self.d.post(path, body, token=""), 401, "unauthorized")
        self.assertError(self.d.post(path, body, headers={"Authorization": "Basic " + tokens["South"]}), 401,
                         "unauthorized")
        self.assertError(self.d.post(path, body, token=other_tokens["South"]), 401, "unauthorized")
        # Reading with a bad token is refused too, not silently public.
        self.assertError(self.d.get(f"/api/games/{gid}", token="A" * 32), 401, "unauthorized")
        self.assertError(self.d.get(f"/api/games/{gid}", token=other_tokens["South"]), 401, "unauthorized")
        for action in ("resign", "draw"):
            self.assertError(self.d.post(f"/api/games/{gid}/{action}", {"action": "offer"} if action == "draw" else {},
                                         token=other_tokens["North"]), 401, "unauthorized")
            self.assertError(self.d.post(f"/api/games/{gid}/{action}", {"action": "offer"} if action == "draw" else {}),
                             401, "unauthorized")
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["status"], g["draw_offer"]), (0, "running", None))
        g = self.d.game(other)
        self.assertEqual((g["ply"], g["status"], g["draw_offer"]), (0, "running", None))

    def test_unknown_game(self):
        self.assertError(self.d.get("/api/games/nosuchgame12"), 404, "not_found")
        self.assertError(self.d.get("/api/games/nosuchgame12/moves"), 404, "not_found")
        self.assertError(self.d.get("/api/games/nosuchgame12/dice"), 404, "not_found")

    def test_resign(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        # An empty body is allowed; fields are not.
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {"really": True}, token=tokens["South"]),
                         400, "bad_request")
        r = self.d.post(f"/api/games/{gid}/resign", token=tokens["South"])
        self.assertEqual(r.status, 200, r)
        g = r.json()
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"], {"summary": "North wins: South resigned", "ranks": [2, 1],
                                       "places": [{"place": 1, "seats": ["North"]}, {"place": 2, "seats": ["South"]}]})
        self.assertEqual(g["turn"], [])
        self.assertEqual(g["legal_moves"], [])
        self.assertEqual(self.d.game(gid)["result"]["summary"], "North wins: South resigned")
        # Over: moves and side actions are refused with game_over.
        self.assertError(self.d.move(gid, tokens["North"], "s 3 1 4 1", 1), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"]), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tokens["North"]),
                         409, "game_over")
        # An old ply stays answerable: duplicate or stale, never game_over.
        self.assertEqual(self.d.move(gid, tokens["South"], "S 7 1 6 1", 0).status, 200)
        self.assertEqual(self.d.game(gid)["ply"], 1)

    def test_resign_with_empty_json_object(self):
        gid, tokens, _ = self.d.create_game()
        r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["result"], {"summary": "South wins: North resigned", "ranks": [1, 2],
                                              "places": [{"place": 1, "seats": ["South"]},
                                                         {"place": 2, "seats": ["North"]}]})

    def test_draw_offers(self):
        gid, tokens, _ = self.d.create_game()
        S, N = tokens["South"], tokens["North"]
        draw = lambda tok, action: self.d.post(f"/api/games/{gid}/draw", {"action": action}, token=tok)
        self.assertError(draw(N, "accept"), 409, "no_draw_offer")
        self.assertError(draw(N, "decline"), 409, "no_draw_offer")
        self.assertError(draw(N, "withdraw"), 409, "no_draw_offer")
        self.assertError(draw(N, "surrender"), 400, "bad_request")
        # Offer (any time, not only on one's turn) and withdraw.
        r = draw(N, "offer")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["draw_offer"], "North")
        self.assertEqual(self.d.game(gid)["draw_offer"], "North")
        self.assertError(draw(N, "offer"), 409, "draw_offer_pending")
        self.assertError(draw(S, "offer"), 409, "draw_offer_pending")
        self.assertError(draw(N, "accept"), 409, "no_draw_offer")   # not one's own offer
        self.assertError(draw(S, "withdraw"), 409, "no_draw_offer")
        r = draw(N, "withdraw")
        self.assertEqual(r.status, 200, r)
        self.assertIsNone(r.json()["draw_offer"])
        # Offer and decline.
        self.assertEqual(draw(S, "offer").status, 200)
        r = draw(N, "decline")
        self.assertEqual(r.status, 200, r)
        self.assertIsNone(r.json()["draw_offer"])
        self.assertEqual(r.json()["status"], "running")
        # The offer lapses when the opponent moves instead of answering.
        self.assertEqual(draw(N, "offer").status, 200)
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        self.assertIsNone(self.d.game(gid)["draw_offer"])
        self.assertError(draw(S, "accept"), 409, "no_draw_offer")
        # The offerer's own move keeps the offer open.
        self.assertEqual(draw(S, "offer").status, 200)
        self.d.play(gid, tokens, ["s 3 1 4 1"], first_ply=1)
        self.assertIsNone(self.d.game(gid)["draw_offer"])
        self.assertEqual(draw(S, "offer").status, 200)
        self.d.play(gid, tokens, ["S 7 3 6 3"], first_ply=2)
        self.assertEqual(self.d.game(gid)["draw_offer"], "South")
        # Offer and accept: drawn.
        r = draw(N, "accept")
        self.assertEqual(r.status, 200, r)
        g = r.json()
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"], {"summary": "drawn by agreement", "ranks": [1, 1],
                                       "places": [{"place": 1, "seats": ["South", "North"]}]})
        self.assertIsNone(g["draw_offer"])
        self.assertError(draw(S, "offer"), 409, "game_over")
        self.assertError(self.d.move(gid, S, "S 7 5 6 5", 4), 409, "game_over")
        self.assertEqual(len(self.d.get(f"/api/games/{gid}/moves").json()["moves"]), 3)

    def test_dice_record(self):
        gid, tokens, _ = self.d.create_game()
        commitment = self.d.game(gid)["dice_commitment"]
        self.d.play(gid, tokens, ["S 7 1 6 1", "s 3 1 4 1"])
        d = self.d.get(f"/api/games/{gid}/dice").json()
        self.assertEqual(d["game"], gid)
        self.assertEqual(d["commitment"], commitment)
        self.assertEqual(d["status"], "running")
        self.assertIsNone(d["seed"], "the seed stays secret while the game runs")
        self.assertEqual(d["rolls"], [], "Nchess has no dice")
        self.assertIn("HMAC-SHA256", d["algorithm"])
        path = os.path.join(self.d.workdir, f"dice-{gid}-running.json")
        with open(path, "w") as f:
            json.dump(d, f)
        r = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, "nothing to verify before the end: " + r.stdout + r.stderr)
        self.d.post(f"/api/games/{gid}/resign", token=tokens["North"])
        self.check_revealed_dice(gid, commitment)

    def check_revealed_dice(self, gid, commitment):
        r = self.d.get(f"/api/games/{gid}/dice")
        self.assertEqual(r.status, 200, r)
        d = r.json()
        self.assertEqual(d["status"], "over")
        self.assertEqual(d["commitment"], commitment)
        self.assertRegex(d["seed"], HEX64)
        self.assertEqual(hashlib.sha256(bytes.fromhex(d["seed"])).hexdigest(), commitment)
        path = os.path.join(self.d.workdir, f"dice-{gid}.json")
        with open(path, "wb") as f:
            f.write(r.body)
        v = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("commitment matches", v.stdout)
        self.assertIn(f"{len(d['rolls'])} rolls checked, 0 wrong", v.stdout)
        # A tampered record fails.
        bad = dict(d, commitment="0" * 64)
        with open(path, "w") as f:
            json.dump(bad, f)
        v = subprocess.run([sys.executable, VERIFY_DICE, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        return d

    def test_release_needs_placements(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, RELEASE_LINE)
        N = tokens["North"]
        g = self.d.game(gid, N)
        self.assertEqual(g["ply"], 15)
        prisons = {(h["row"], h["col"]): h["pieces"] for h in g["position"]["holdings"]}
        self.assertEqual(prisons[("9", "6")], ["s"])
        # The legal move that releases is listed as its prefix only.
        self.assertIn("a 7 8 9 6 4", g["legal_moves"])
        msg = self.assertError(self.d.move(gid, N, "a 7 8 9 6 4", 15), 422, "incomplete_move")
        self.assertIn("1 more placement", msg)
        self.assertIn(" s ", msg + " ")
        # Wrong completions are refused with a reason.
        for text in ("a 7 8 9 6 4 / n 3 9",     # the prisoner is a Soldier
                     "a 7 8 9 6 4 / s 5 1",     # river
                     "a 7 8 9 6 4 / s 1 4",     # prison square
                     "a 7 8 9 6 4 / s 6 1",     # not North's half
                     "a 7 8 9 6 4 / s 1 1",     # occupied
                     "a 7 8 9 6 4 / s 3 9 / s 3 8"):
            with self.subTest(text=text):
                r = self.d.move(gid, N, text, 15)
                self.assertEqual(r.status, 422, r)
                self.assertIn(r.json()["error"]["code"], ("illegal_move", "bad_move"))
        # The capture still needs its prison digit.
        self.assertError(self.d.move(gid, N, "a 7 8 9 6 / s 3 9", 15), 422, "illegal_move")
        self.assertEqual(self.d.game(gid)["ply"], 15)
        r = self.d.move(gid, N, "A 7, 8, 9, 6, 4 / S 3 9", 15)
        self.assertEqual(r.status, 201, r)
        m = r.json()
        self.assertEqual(m["move"], "a 7 8 9 6 4 / s 3 9")
        self.assertIn("captures N", m["note"])
        self.assertIn("releases s", m["note"])
        board = m["game"]["position"]["board"]
        self.assertEqual((board[2][8], board[8][5]), ("s", "a"))
        prisons = {(h["row"], h["col"]): h["pieces"] for h in m["game"]["position"]["holdings"]}
        self.assertEqual(prisons[("9", "6")], [])
        self.assertEqual(prisons[("1", "4")], ["A", "S", "N"], "the newest prisoner last")
        self.assertEqual(prisons[("9", "4")], [])
        # Re-sent with the placement: a duplicate.
        r = self.d.move(gid, N, "a 7 8 9 6 4 / s 3 9", 15)
        self.assertEqual((r.status, r.json()["duplicate"]), (200, True))

    def check(self, gid, token, text):
        q = "" if text is None else "?move=" + urllib.parse.quote(text)
        return self.d.get(f"/api/games/{gid}/check{q}", token=token)

    def test_check_reads_without_playing(self):
        gid, tokens, _ = self.d.create_game()
        S, N = tokens["South"], tokens["North"]
        before = self.d.snapshot()
        r = self.check(gid, S, "[s 7, 1, 6, 1]")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), {"move": "S 7 1 6 1", "places": ["7 1", "6 1"], "choice": "",
                                    "partial": False, "continuations": []})
        self.assertError(self.check(gid, N, "s 3 1 4 1"), 403, "not_your_turn")
        self.assertError(self.check(gid, S, "S 7 1 5 1"), 422, "illegal_move")
        self.assertError(self.check(gid, S, "hello"), 422, "bad_move")
        self.assertError(self.check(gid, S, None), 400, "bad_request")
        self.assertError(self.check(gid, S, "S" * 401), 413, "too_large")
        self.assertError(self.check(gid, None, "S 7 1 6 1"), 401, "unauthorized")
        self.assertError(self.check(gid, "x" * 32, "S 7 1 6 1"), 401, "unauthorized")
        self.assertEqual(self.d.snapshot(), before, "checking a move changed nothing")
        self.assertEqual(self.d.game(gid)["ply"], 0)

    def test_check_lists_a_release_continuations(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, RELEASE_LINE)
        N = tokens["North"]
        g = self.d.game(gid, N)
        option = [o for o in g["legal"] if o["move"] == "a 7 8 9 6 4"]
        self.assertEqual(len(option), 1, g["legal"])
        self.assertTrue(option[0]["partial"])
        self.assertEqual(option[0]["places"], ["7 8", "9 6"])
        r = self.check(gid, N, "a 7 8 9 6 4")
        self.assertEqual(r.status, 200, r)
        c = r.json()
        self.assertTrue(c["partial"])
        self.assertEqual(c["places"], ["7 8", "9 6"])
        by_move = {o["move"]: o for o in c["continuations"]}
        self.assertIn("a 7 8 9 6 4 / s 3 9", by_move)
        self.assertEqual(by_move["a 7 8 9 6 4 / s 3 9"]["places"], ["7 8", "9 6", "3 9"])
        self.assertNotIn("a 7 8 9 6 4 / s 5 1", by_move, "a river square is no placement")
        for o in c["continuations"]:
            self.assertEqual(o["places"][:2], ["7 8", "9 6"])
            self.assertFalse(o["partial"])
        # A continuation checked on its own is complete; the move it names is then played as usual.
        r = self.check(gid, N, "a 7 8 9 6 4 / s 3 9")
        self.assertEqual((r.status, r.json()["partial"], r.json()["continuations"]), (200, False, []))
        self.assertEqual(self.d.move(gid, N, "a 7 8 9 6 4 / s 3 9", 15).status, 201)
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[-1]["places"], ["7 8", "9 6", "3 9"])

    def test_legal_moves_carry_gestures(self):
        gid, tokens, _ = self.d.create_game()
        g = self.d.game(gid, tokens["South"])
        self.assertEqual([o["move"] for o in g["legal"]], g["legal_moves"])
        for o in g["legal"]:
            self.assertEqual(set(o), {"move", "places", "choice", "partial"})
            self.assertEqual(len(o["places"]), 2, o)
        keys = [(tuple(o["places"]), o["choice"]) for o in g["legal"]]
        self.assertEqual(len(keys), len(set(keys)), "no two moves are pointed at the same way")
        self.assertNotIn("legal", self.d.game(gid))
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[0]["places"], ["7 1", "6 1"])
        # The page marks the last move's squares, and only them.
        for token in (None, tokens["South"], tokens["North"]):
            board = page_board(self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text)
            self.assertEqual({n for n, s in board.squares.items() if s["last"]}, {"7 1", "6 1"})

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

    def test_whole_game_over_the_api(self):
        gid, tokens, _ = self.d.create_game(("Ada", "Bob"))
        commitment = self.d.game(gid)["dice_commitment"]
        rnd = random.Random(35)   # this seed currently meets a two-prisoner release
        played, releases = [], 0
        conn = self.d.connect()   # one keep-alive connection for the whole game
        self.addCleanup(conn.close)
        for _ in range(1000):
            g = self.d.get(f"/api/games/{gid}", conn=conn).json()
            if g["status"] == "over":
                break
            seat = g["turn"][0]
            view = self.d.get(f"/api/games/{gid}", token=tokens[seat], conn=conn).json()
            moves = view["legal_moves"]
            self.assertTrue(moves, "a running game's player to move has a legal move")
            general = square_of(view["position"]["board"], "g" if seat == "South" else "G")
            kills = [m for m in moves if general and tuple(map(int, m.split()[3:5])) == general]
            candidates = kills or moves
            text = rnd.choice(candidates)
            r = self.d.move(gid, tokens[seat], text, view["ply"])
            if r.status == 422 and r.json()["error"]["code"] == "incomplete_move":
                text = complete_release(text, seat, view["position"], rnd)
                r = self.d.move(gid, tokens[seat], text, view["ply"])
                releases += 1
            self.assertEqual(r.status, 201, (text, r))
            m = r.json()
            self.assertEqual(m["ply"], view["ply"])
            self.assertEqual(m["seat"], seat)
            self.assertRegex(m["move"], CANONICAL_MOVE)
            self.assertEqual(m["move"], text, "canonical texts come back unchanged")
            if kills:
                self.assertIn("wins: General captured", m["note"])
            played.append((seat, m["move"], m["note"]))
        else:
            self.fail("the game did not end in 1000 plies")
        self.assertEqual(g["ply"], len(played))
        self.assertRegex(g["result"]["summary"], r"^(South|North) wins: (General captured|(South|North) has no legal move)$")
        winner = g["result"]["summary"].split()[0]
        self.assertEqual(g["result"]["ranks"], [1, 2] if winner == "South" else [2, 1])
        self.assertEqual(g["turn"], [])
        self.assertEqual(self.d.game(gid, tokens["South"])["legal_moves"], [])
        # The history has one entry per ply, in order, with the canonical texts.
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual([m["ply"] for m in moves], list(range(len(played))))
        self.assertEqual([(m["seat"], m["move"], m["note"]) for m in moves], played)
        self.assertEqual([m["seat"] for m in moves], [("South", "North")[i % 2] for i in range(len(moves))])
        # Over: no more moves.
        loser = "North" if winner == "South" else "South"
        self.assertError(self.d.move(gid, tokens[loser], "S 7 1 6 1", len(played)), 409, "game_over")
        # The winning move sent again is still a duplicate, not an error.
        winner_move = played[-1][1]
        r = self.d.move(gid, tokens[winner], winner_move, len(played) - 1)
        self.assertEqual((r.status, r.json()["duplicate"], r.json()["note"]), (200, True, played[-1][2]), r)
        self.check_revealed_dice(gid, commitment)

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

    def test_secrets_stay_private(self):
        gid, tokens, _ = self.d.create_game(("Ann", "Ben"), ("ann.secret@example.org", "ben.secret@example.org"))
        self.d.play(gid, tokens, ["S 7 1 6 1"])
        # Use every token in every way it may be used, then look where it must not be.
        self.d.get(f"/api/games/{gid}", token=tokens["North"])
        self.d.get(f"/games/{gid}?seat={tokens['North']}")
        self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tokens["North"])
        public = [
            self.d.get(f"/api/games/{gid}"),
            self.d.get(f"/api/games/{gid}/moves"),
            self.d.get(f"/api/games/{gid}/dice"),
            self.d.get(f"/games/{gid}"),
            self.d.get("/"),
        ]
        own = [self.d.get(f"/api/games/{gid}", token=tokens["South"]),
               self.d.get(f"/games/{gid}?seat={tokens['South']}")]
        for r in public + own:
            self.assertEqual(r.status, 200, r)
            self.assertNotIn("secret@example.org", r.text)
            self.assertNotIn(tokens["North"], r.text)
        for r in public:
            self.assertNotIn(tokens["South"], r.text)
        self.assertNotIn(tokens["South"], own[0].text, "the API view of a seat does not echo its token")
        time.sleep(0.05)
        log = self.d.stderr()
        for t in tokens.values():
            self.assertNotIn(t, log)
        self.assertNotIn("secret@example.org", log)


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
        for path in ("/api", "/api/", "/api/games/", "/api/variants/", "/api/games/x/y", "/api/games//moves",
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
            ("GET", "/api/games", "POST"),
            ("POST", "/api/variants", "GET"),
            ("GET", f"/api/games/{gid}/resign", "POST"),
            ("GET", f"/api/games/{gid}/draw", "POST"),
            ("POST", f"/api/games/{gid}/dice", "GET"),
            ("OPTIONS", "/api/variants", "GET"),
            ("POST", "/", "GET"),
            ("GET", "/games", "POST"),
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
# HTML pages
# --------------------------------------------------------------------------------------------

def hidden_fields(html, action):
    """The hidden fields of the form posting to action."""
    m = re.search(r'<form method="post" action="' + re.escape(action) + r'"[^>]*>(.*?)</form>', html, re.S)
    assert m, f"no form for {action}"
    return dict(re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', m.group(1)))


def board_html(html):
    """The drawn board of a game page, as its markup (<svg class="board">...</svg>)."""
    found = re.findall(r'<svg class="board".*?</svg>', html, re.S)
    assert len(found) == 1, f"{len(found)} boards on the page"
    return found[0]


# A piece's facing arrow is turned as drawn: rotate(0) points up the page.
FACINGS = {0: "up", 90: "right", 180: "down", 270: "left"}
# The sides of a walled square, as the path data of its wall draws them.
WALL_SIDES = {"M-20,-20H20": "top", "M20,-20V20": "right", "M-20,20H20": "bottom", "M-20,-20V20": "left"}


class GamePage(html.parser.HTMLParser):
    """A game page as a reader sees it; page_board(html) parses and checks one.

    squares: {name: {"piece" (letters or None), "side" (seat, "shared" or "none"; None without a
      piece), "shared_by" (seats, from the title), "kind", "shade", "r", "c" (the drawn grid:
      the viewer's side at the bottom, the highest r), "x", "y" (the centre as drawn), "facing"
      ("up", "right", "down", "left" as drawn, or None), "held" (the pieces drawn on it, "s n +2",
      or None), "held_side", "last" (one of the last move's squares), "label" (the name written
      on hexagonal cells), "title"}}
    walls: {name: set of the sides drawn walled: "top", "right", "bottom", "left"}
    coords: [(x, y, text)] of the labels around the board
    hands: [{"name", "side", "empty", "x", "y", "pieces": [{"piece", "side", "touch", "x", "y", "title"}]}]
      (the pieces held without a square, drawn above and below the board)
    holdings: the "Off the board" list: [{"name", "square" (or None), "pieces" (list), "class", "text"}]
    paras: the texts of p.turn, p.result, p.places, p.last, p.offer, p.legend, p.error
    move_input: the attributes of the move box, or None
    """

    PARAS = ("turn", "result", "places", "last", "offer", "legend", "error")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.squares, self.walls, self.coords, self.hands, self.holdings = {}, {}, [], [], []
        self.paras, self.move_input = {}, None
        self.boards = 0
        self.stack = None        # the open elements inside svg.board: (tag, classes)
        self.sq = self.pc = self.hand_pc = None
        self.text = None         # (what, text so far) of the element whose text is being read
        self.coord_at = None
        self.wall_paths = []     # (transform, d)
        self.in_prisons = False
        self.item = self.span = self.para = None

    @staticmethod
    def translate(t):
        m = re.fullmatch(r"translate\((-?[0-9.]+) (-?[0-9.]+)\)", t or "")
        assert m, f"not a translation: {t!r}"
        return float(m.group(1)), float(m.group(2))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if self.stack is not None:
            self.svg_start(tag, a, cls)
            if tag != "svg":
                self.stack.append((tag, cls))
            return
        if tag == "svg" and "board" in cls:
            self.boards += 1
            self.stack = []
        elif tag == "section" and "prisons" in cls:
            self.in_prisons = True
        elif self.in_prisons and tag == "li":
            self.item = {"name": "", "square": None, "pieces": "", "class": [], "text": ""}
        elif self.item is not None and tag == "span":
            self.span = {"prison-name": "name", "prisoners": "pieces"}.get(cls[0] if cls else "")
            if self.span == "pieces":
                self.item["class"] = cls
        elif tag == "p" and set(self.PARAS) & set(cls):
            self.para = (set(self.PARAS) & set(cls)).pop()
            self.paras[self.para] = ""
        elif tag == "input" and a.get("name") == "move":
            self.move_input = a

    def svg_start(self, tag, a, cls):
        parent = self.stack[-1] if self.stack else (None, [])
        assert tag != "svg", "an svg inside the board"
        if tag == "g" and "sq" in cls:
            assert not self.stack, "a square inside another element"
            name = a.get("data-square")
            assert name and name not in self.squares, f"square {name!r} drawn twice or unnamed"
            assert a.get("data-touch") == name, a
            assert len(cls) in (3, 4) and cls[2] in ("light", "dark") and cls[3:] in ([], ["last"]), cls
            x, y = self.translate(a.get("transform"))
            self.sq = self.squares[name] = {
                "piece": None, "side": None, "shared_by": None, "kind": cls[1], "shade": cls[2],
                "r": int(a["data-r"]), "c": int(a["data-c"]), "x": x, "y": y, "facing": None,
                "held": None, "held_side": None, "last": "last" in cls, "label": None, "title": None,
                "polygon": False}
        elif tag == "g" and "pc" in cls and "hand" in cls:
            assert not self.stack and self.hands, "a hand piece outside a hand"
            side = [c[5:] for c in cls if c.startswith("side-")]
            x, y = self.translate(a.get("transform"))
            self.hand_pc = {"piece": a.get("data-piece"), "side": side[0] if side else None,
                            "touch": a.get("data-touch"), "x": x, "y": y, "title": None, "glyph": None}
            self.hands[-1]["pieces"].append(self.hand_pc)
        elif tag == "g" and "pc" in cls:
            assert self.sq is not None and parent[0] == "g" and "sq" in parent[1], "a piece outside a square"
            assert self.sq["piece"] is None, "two pieces on " + self.sq["title"]
            side = [c[5:] for c in cls if c.startswith("side-")]
            assert cls[0] == "pc" and len(side) == 1, cls
            self.pc = {"glyph": None}
            self.sq.update(piece=a.get("data-piece"), side=side[0])
        elif tag == "path" and "facing" in cls:
            assert self.pc is not None, "a facing outside a piece"
            m = re.fullmatch(r"rotate\((\d+)\)", a.get("transform") or "")
            assert m and int(m.group(1)) in FACINGS, a
            self.sq["facing"] = FACINGS[int(m.group(1))]
        elif tag == "path" and "wall" in cls:
            assert not self.stack, "a wall inside another element"
            self.wall_paths.append((a.get("transform"), a.get("d") or ""))
        elif tag == "polygon" and self.sq is not None:
            self.sq["polygon"] = True
        elif tag == "title":
            self.text = ("title", "")
        elif tag == "text":
            what = ("glyph" if "glyph" in cls else "held" if "held" in cls else "name" if "name" in cls
                    else "coord" if "coord" in cls else "hand-name" if "hand-name" in cls else None)
            assert what, f"unknown text {cls}"
            self.text = (what, "")
            if what == "held":
                side = [c[5:] for c in cls if c.startswith("side-")]
                assert self.sq is not None and len(side) == 1, cls
                self.sq["held_side"] = side[0]
            elif what == "coord":
                self.coord_at = (float(a["x"]), float(a["y"]))
            elif what == "hand-name":
                side = [c[5:] for c in cls if c.startswith("side-")]
                self.hands.append({"name": None, "side": side[0] if side else None, "empty": False,
                                   "x": float(a["x"]), "y": float(a["y"]), "pieces": []})

    def handle_endtag(self, tag):
        if self.stack is not None:
            if tag == "svg" and not self.stack:
                self.stack = None
                return
            assert self.stack and self.stack[-1][0] == tag, f"</{tag}> closes {self.stack[-1:]}"
            _, cls = self.stack.pop()
            if self.text and tag in ("title", "text"):
                self.svg_text(*self.text)
                self.text = None
            elif tag == "g" and "sq" in cls:
                self.sq = None
            elif tag == "g" and "hand" in cls:
                assert self.hand_pc["glyph"] == self.hand_pc["piece"], self.hand_pc
                del self.hand_pc["glyph"]
                self.hand_pc = None
            elif tag == "g" and "pc" in cls:
                assert self.pc["glyph"] == self.sq["piece"], (self.sq, self.pc)
                self.pc = None
            return
        if tag == "span":
            self.span = None
        elif tag == "li" and self.item is not None:
            item = {k: " ".join(v.split()) if isinstance(v, str) else v for k, v in self.item.items()}
            m = re.match(re.escape(item["name"]) + r" \[([^\]]+)\]:", item["text"])
            item["square"] = m.group(1) if m else None
            item["pieces"] = item["pieces"].split()
            self.holdings.append(item)
            self.item = None
        elif tag == "section":
            self.in_prisons = False
        elif tag == "p" and self.para:
            self.paras[self.para] = " ".join(self.paras[self.para].split())
            self.para = None

    def svg_text(self, what, text):
        if what == "title" and self.hand_pc is not None:
            self.hand_pc["title"] = text
        elif what == "title":
            assert self.sq is not None and self.sq["title"] is None, f"a stray title {text!r}"
            self.sq["title"] = text
        elif what == "glyph":
            (self.hand_pc if self.hand_pc is not None else self.pc)["glyph"] = text
        elif what == "held":
            self.sq["held"] = text
        elif what == "name":
            self.sq["label"] = text
        elif what == "coord":
            self.coords.append((*self.coord_at, text))
        elif what == "hand-name":
            h = self.hands[-1]
            h["empty"] = text.endswith(": empty")
            h["name"] = text[:-len(": empty")] if h["empty"] else text

    def handle_data(self, data):
        if self.stack is not None:
            if self.text:
                self.text = (self.text[0], self.text[1] + data)
            else:
                assert not data.strip(), f"stray text {data!r} in the board"
            return
        if self.item is not None:
            self.item["text"] += data
            if self.span:
                self.item[self.span] += data
        if self.para:
            self.paras[self.para] += data

    # ---- reading the parsed board ----

    def check(self):
        """The board is drawn consistently: every square once, with its polygon and a title that
        tells its piece and holding, in rows and columns as its grid places say; walls on squares."""
        assert self.boards == 1, f"{self.boards} boards on the page"
        assert self.squares, "no squares"
        at = {}
        for name, s in self.squares.items():
            assert s["polygon"], name
            del s["polygon"]
            assert (s["r"], s["c"]) not in at, f"{name} and {at.get((s['r'], s['c']))} drawn at one place"
            at[s["r"], s["c"]] = name
            want = name
            if s["piece"]:
                if s["side"] == "shared":
                    m = re.fullmatch(re.escape(s["piece"]) + r" shared by (\w+(?: and \w+)+)",
                                     s["title"][len(name) + 2:].split(" (holds ")[0])
                    assert m, s
                    s["shared_by"] = m.group(1).split(" and ")
                    want += f": {s['piece']} shared by {m.group(1)}"
                else:
                    want += f": {s['piece']}" if s["side"] == "none" else f": {s['side']} {s['piece']}"
            if s["held"] is not None:
                want += f" (holds {s['held']})"
            assert s["title"] == want, (s["title"], want)
            assert s["label"] in (None, name), s
        # The drawn rows and columns: y grows with r; within a row x grows with c (and on square
        # boards every column is one x).
        rows = sorted({s["r"] for s in self.squares.values()})
        ys = [{s["y"] for s in self.squares.values() if s["r"] == r} for r in rows]
        assert all(len(y) == 1 for y in ys), "a drawn row is not level"
        assert [y.pop() for y in ys] == sorted({s["y"] for s in self.squares.values()}), "rows out of order"
        for r in rows:
            row = sorted((s for s in self.squares.values() if s["r"] == r), key=lambda s: s["c"])
            assert [s["x"] for s in row] == sorted(s["x"] for s in row) and \
                len({s["x"] for s in row}) == len(row), f"row {r} out of order"
        by_place = {(s["x"], s["y"]): name for name, s in self.squares.items()}
        for transform, d in self.wall_paths:
            name = by_place.get(self.translate(transform))
            assert name and name not in self.walls, f"a wall at {transform} on no square or twice on {name}"
            sides = re.findall(r"M[^M]+", d)
            assert sides and all(side in WALL_SIDES for side in sides) and len(set(sides)) == len(sides), d
            self.walls[name] = {WALL_SIDES[side] for side in sides}
        for h in self.hands:
            assert h["name"] is not None, h
            for p in h["pieces"]:
                assert p["side"] == h["side"], (h, p)
                assert p["title"] == f"{p['piece']} in {h['name']}", (h["name"], p)
        return self

    def grid(self):
        """The square names as drawn: rows top to bottom, columns left to right (None: not drawn)."""
        nr = max(s["r"] for s in self.squares.values()) + 1
        nc = max(s["c"] for s in self.squares.values()) + 1
        out = [[None] * nc for _ in range(nr)]
        for name, s in self.squares.items():
            out[s["r"]][s["c"]] = name
        return out

    def row_labels(self):
        """The labels written level with each drawn row, left to right, by row (top first)."""
        out = {}
        for s in self.squares.values():
            out.setdefault(s["r"], [t for x, y, t in sorted(self.coords) if abs(y - s["y"]) < 0.01])
        return [out[r] for r in sorted(out)]

    def col_labels(self):
        """The labels above and below each drawn column, left to right: [[top, bottom], ...]."""
        out = {}
        for s in self.squares.values():
            out.setdefault(s["c"], [t for x, y, t in sorted(self.coords, key=lambda k: k[1])
                                    if abs(x - s["x"]) < 0.01])
        return [out[c] for c in sorted(out)]

    def pieces(self):
        """{square: (side, piece)} of the squares with a piece."""
        return {n: (s["side"], s["piece"]) for n, s in self.squares.items() if s["piece"]}


def page_board(html):
    """The game page parsed (GamePage), its board checked for consistency."""
    p = GamePage()
    p.feed(html)
    p.close()
    return p.check()


class HtmlTests(DaemonCase):

    def test_home_page(self):
        r = self.d.get("/")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("Content-Type").startswith("text/html"))
        self.assertIn('<form method="post" action="/games"', r.text)
        self.assertIn('name="variant" value="nchess"', r.text)
        self.assertIn('name="name0"', r.text)
        self.assertIn('href="/rules/nchess"', r.text)

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

    def test_play_through_the_form(self):
        gid, tokens, _ = self.d.create_game()
        page = f"/games/{gid}?seat={tokens['South']}"
        html = self.d.get(page).text
        fields = hidden_fields(html, f"/games/{gid}/move")
        self.assertEqual(fields["seat"], tokens["South"])
        self.assertRegex(fields["csrf"], HEX64)
        self.assertEqual(fields["ply"], "0")
        self.assertIn('<option value="S 7 1 6 1">', html)
        before = page_board(html).squares
        self.assertEqual((before["7 1"]["side"], before["7 1"]["piece"], before["6 1"]["piece"]), ("South", "S", None))
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "s 7 1 6 1"},
                             origin=f"http://127.0.0.1:{self.d.port}")
        self.assertEqual(r.status, 303, r)
        self.assertEqual(r.header("Location"), page)
        html = self.d.get(page).text
        after = page_board(html).squares
        # The Soldier stepped from 7 1 to 6 1, both squares marked as the last move's; nothing else changed.
        self.assertEqual((after["7 1"]["piece"], after["6 1"]["side"], after["6 1"]["piece"]), (None, "South", "S"))
        self.assertEqual({n for n, s in after.items() if s["last"]}, {"7 1", "6 1"})
        self.assertEqual({n for n in before if before[n] != after[n]}, {"7 1", "6 1"})
        self.assertIn("<code>S 7 1 6 1</code>", html)
        self.assertNotIn(f'action="/games/{gid}/move"', html, "no move form when it is not one's turn")
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["position"]["board"][5][0]), (1, "S"))
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual(moves[0]["move"], "S 7 1 6 1")
        # The same form sent again (a double click) changes nothing and lands on the page.
        r = self.d.post_form(f"/games/{gid}/move", {**fields, "move": "s 7 1 6 1"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.d.game(gid)["ply"], 1)
        # North answers; a bad move shows the page again with the message and the typed text.
        npage = self.d.get(f"/games/{gid}?seat={tokens['North']}").text
        nfields = hidden_fields(npage, f"/games/{gid}/move")
        self.assertEqual(nfields["ply"], "1")
        r = self.d.post_form(f"/games/{gid}/move", {**nfields, "move": "s 3 1 2 1"})
        self.assertEqual(r.status, 422, r)
        self.assertIn("cannot move backward", r.text)
        self.assertIn('value="s 3 1 2 1"', r.text)
        self.assertIn('class="error"', r.text)
        r = self.d.post_form(f"/games/{gid}/move", {**nfields, "move": "s 3 1 4 1"})
        self.assertEqual(r.status, 303, r)
        self.assertEqual(self.d.game(gid)["ply"], 2)

    def check_board(self, html, position, seat, last=()):
        """The page's board shows the API's position from seat's side: South and the public see
        row 1 at the top and column 1 on the left, North the board turned half round. Every square
        is drawn once with its kind, its piece in its owner's colour, what a prison holds on its
        square (newest first) and in the list beside the board; last: the squares marked as the
        last move's."""
        b = page_board(html)
        self.assertEqual(len(b.squares), 81)
        turned = seat == "North"
        for name, s in b.squares.items():
            row, col = (int(x) for x in name.split())
            self.assertEqual((s["r"], s["c"]), (9 - row, 9 - col) if turned else (row - 1, col - 1), name)
            piece = position["board"][row - 1][col - 1]
            self.assertEqual(s["piece"], piece, name)
            self.assertEqual(s["side"], piece and ("South" if piece.isupper() else "North"), name)
            self.assertEqual(s["kind"], position["kinds"][row - 1][col - 1] or "plain", name)
            self.assertIsNone(s["facing"], name)
            self.assertEqual(s["last"], name in last, name)
            self.assertEqual(s["shade"], "dark" if (s["r"] + s["c"]) % 2 else "light", name)
        self.assertEqual({n for n, s in b.squares.items() if s["kind"] == "prison"}, {"1 4", "1 6", "9 4", "9 6"})
        self.assertEqual({n for n, s in b.squares.items() if s["kind"] == "river"}, {f"5 {c}" for c in range(1, 10)})
        for h in position["holdings"]:
            s = b.squares[f"{h['row']} {h['col']}"]
            newest = list(reversed(h["pieces"]))
            shown = " ".join(newest) if len(newest) <= 4 else " ".join(newest[:3]) + f" +{len(newest) - 3}"
            self.assertEqual((s["held"], s["held_side"]), (shown, h["seat"]) if h["pieces"] else (None, None), h)
        self.assertEqual([(h["name"], h["square"], h["pieces"]) for h in b.holdings],
                         [(h["name"], f"{h['row']} {h['col']}", h["pieces"]) for h in position["holdings"]])
        for h, p in zip(position["holdings"], b.holdings):
            self.assertEqual(p["class"], ["prisoners", "side-" + h["seat"]] if h["pieces"] else [], p)
        self.assertEqual((b.walls, b.hands), ({}, []))
        labels = [str(n) for n in (range(9, 0, -1) if turned else range(1, 10))]
        self.assertEqual(b.row_labels(), [[n, n] for n in labels], "row labels left and right")
        self.assertEqual(b.col_labels(), [[n, n] for n in labels], "column labels above and below")
        return b

    def test_board_drawn_from_each_side(self):
        gid, tokens, _ = self.d.create_game()
        viewers = {"South": tokens["South"], "North": tokens["North"], None: None}
        for seat, token in viewers.items():
            with self.subTest(seat=seat, ply=0):
                html = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text
                b = self.check_board(html, self.d.game(gid)["position"], seat)
                # The viewer's own back row is the bottom one; the General stands in its middle.
                self.assertEqual(b.grid()[8][4], "1 5" if seat == "North" else "9 5")
        # Up to the release: prisons hold pieces of both sides, one of them under a Knight.
        self.d.play(gid, tokens, RELEASE_LINE)
        position = self.d.game(gid)["position"]
        self.assertTrue(all(any(h["pieces"] for h in position["holdings"] if h["seat"] == s) for s in ("South", "North")))
        last = self.d.get(f"/api/games/{gid}/moves").json()["moves"][-1]["places"]
        self.assertEqual(len(last), 2)
        for seat, token in viewers.items():
            with self.subTest(seat=seat, ply=len(RELEASE_LINE)):
                html = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else "")).text
                b = self.check_board(html, position, seat, last)
                self.assertEqual((b.squares["9 6"]["piece"], b.squares["9 6"]["held"]), ("N", "s"))
                self.assertEqual(b.squares["9 6"]["title"], "9 6: South N (holds s)")

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
        conn = sqlite3.connect(d.db)
        conn.execute("PRAGMA user_version = 999")
        conn.commit()
        conn.close()
        r = subprocess.run([ROOKERY, "serve", "--port", "0", "--address", "127.0.0.1", "--db", d.db],
                           capture_output=True, text=True, timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0, r.stderr)
        self.assertIn("newer", r.stderr)
        self.assertNotIn("Rookery is serving", r.stdout)
        for mark in SANITIZER_MARKS:
            self.assertNotIn(mark, r.stderr)
        conn = sqlite3.connect(f"file:{d.db}?mode=ro", uri=True)
        self.assertEqual(conn.execute("PRAGMA user_version").fetchone()[0], 999, "the database was touched")
        self.assertEqual(conn.execute("SELECT id FROM games").fetchall(), [(gid,)])
        conn.close()
        r = run_rookery("migrate", "--db", d.db)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("newer", r.stderr)

    def test_port_in_use(self):
        d = self.daemon()
        r = subprocess.run([ROOKERY, "serve", "--port", str(d.port), "--address", "127.0.0.1",
                            "--db", os.path.join(self.tmp, "second.db")],
                           capture_output=True, text=True, timeout=START_TIMEOUT, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(str(d.port), r.stderr)
        d.stop()


def main():
    global ROOKERY
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        ROOKERY = args.pop(0)
    if not ROOKERY:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ROOKERY = os.path.abspath(ROOKERY)
    if not os.access(ROOKERY, os.X_OK):
        print(f"blackbox.py: {ROOKERY} is not an executable", file=sys.stderr)
        return 2
    prog = unittest.main(argv=[sys.argv[0]] + args, exit=False, verbosity=2)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    passed = r.testsRun - failed - len(r.skipped) - len(r.expectedFailures)
    if r.expectedFailures:
        print(f"{len(r.expectedFailures)} expected failures: known server bugs, described where each test is defined")
    print(f"{passed} passed, {failed} failed, {len(r.skipped)} skipped")
    return 0 if r.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
