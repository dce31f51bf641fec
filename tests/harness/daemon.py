"""harness.daemon - the rookery daemon under test: started on 127.0.0.1 on a fresh database, driven
over HTTP, stopped and checked. Every answer under /api/ is checked against docs/openapi.yaml
(harness.openapi): one it does not declare fails the request, and again the daemon's stop().

A Daemon runs `rookery serve --port 0` in a temporary directory, reads the port from the line the
daemon prints once it listens, and stops it with SIGTERM: the daemon must then exit 0, log
"stopped cleanly", never log a seat token, and (in a sanitizer build) report no AddressSanitizer,
LeakSanitizer, UBSan or ThreadSanitizer error. DaemonCase shares one daemon among the tests of a class.

A test script's entry point is main(__doc__): the first argument is the rookery binary (ROOKERY),
the rest are unittest's options.

The daemon's database is SQLite's, or PostgreSQL's when ROOKERY_TEST_BACKEND=postgresql
(harness.database, which also reads it behind the daemon's back).

Python standard library, and harness.openapi (Debian's python3-yaml and python3-jsonschema).
"""
import email
import email.policy
import glob
import html
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from harness import database, openapi, record
from harness.pages import page_board

# A game's record (docs/record.md), which the daemon's stop reads and replays.
RECORD_PATH = re.compile(r"^/api/games/([A-Za-z0-9_-]+)/record(?:\?.*)?$")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
VERIFY_DICE = os.path.join(REPO, "scripts", "verify-dice.py")
ROOKERY = os.environ.get("ROOKERY", "")     # the binary under test; main() sets it from the command line

# Generous: a sanitizer build is slower, and CI machines are small.
START_TIMEOUT = 60
STOP_TIMEOUT = 60
HTTP_TIMEOUT = 30


def read_limits(path=os.path.join(REPO, "service", "core", "limits.h")):
    """The numeric #defines of service/core/limits.h, so that the tests follow the header."""
    limits = {}
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r"^#define\s+(LIMIT_\w+)\s+([0-9()*+ ]+?)\s*(?:/\*.*)?$", f.read(), re.M):
            limits[m.group(1)] = int(eval(m.group(2), {"__builtins__": {}}))
    return limits


LIMITS = read_limits()

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "WARNING: ThreadSanitizer")
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
# 64 hex digits: a dice commitment or seed, a form token.
HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The seat link a mail carries (the invitation's and each your-move mail's own, not the creator's).
SEAT_LINK_IN_MAIL = re.compile(r"\(this link is yours alone\):\n(\S+)\n")


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


# With ROOKERY_TEST_TWIN=1 (the PostgreSQL copies of the tests, tests/meson.build) a daemon on a
# PostgreSQL database has a twin: a second `rookery serve` on the same database with its own port
# and sockets and the first one's public address, as behind a load balancer. The requests of
# Daemon.request alternate between the two; streams, raw sockets and signals go to the first.
TWIN = os.environ.get("ROOKERY_TEST_TWIN") == "1"


class Daemon:
    """One rookery serve process on 127.0.0.1 with its own database (and its twin, see TWIN)."""

    def __init__(self, *extra, db=None, workdir=None):
        self.workdir = workdir or tempfile.mkdtemp(prefix="rookery-bb-")
        self.db = db or database.fresh(self.workdir)
        # The prefix of its sockets and lock (PREFIX.mail.sock...): beside a SQLite database.
        self.sockets = database.sockets_for(self.db, self.workdir) or self.db
        self.extra = list(extra)
        self.secrets = set()      # seat tokens that must never reach the log
        self.contract_problems = []   # answers under /api/ that docs/openapi.yaml does not declare
        self.records = []             # (game id, text) of every record a test received
        self.extra_env = {}       # variables set for the daemon only
        self.proc = None
        self.port = None
        self.base = None
        self.stdout_text = ""
        self.twin = None          # (process, port, stdout path, stderr path) of the twin
        self.turn = 0             # requests so far: even ones go to the first daemon

    def start(self):
        self.out_path = os.path.join(self.workdir, "stdout-%d.txt" % time.monotonic_ns())
        self.err_path = self.out_path.replace("stdout", "stderr")
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [ROOKERY, "serve", "--port", "0", "--address", "127.0.0.1"] + self.db_args() + self.extra,
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
                    # A daemon started again after a crash finds its twin still serving.
                    if TWIN and database.is_postgresql(self.db) and not (self.twin and self.twin[0].poll() is None):
                        self.start_twin()
                    return self
            if self.proc.poll() is not None:
                raise AssertionError(f"rookery exited with {self.proc.returncode} before serving:\n{self.stderr()}")
            time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"rookery did not start within {START_TIMEOUT}s:\n{self.stderr()}")

    def start_twin(self):
        """The second daemon on the same database (TWIN): sockets of its own, the first's address."""
        stamp = time.monotonic_ns()
        out_path = os.path.join(self.workdir, "stdout-twin-%d.txt" % stamp)
        err_path = out_path.replace("stdout", "stderr")
        args = [ROOKERY, "serve", "--port", "0", "--address", "127.0.0.1", "--db", self.db,
                "--sockets", f"{self.sockets}-twin-{stamp}"] + self.extra
        if "--base-url" not in self.extra:
            args += ["--base-url", self.base]
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    cwd=self.workdir, env={**os.environ, **self.extra_env})
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with open(err_path, encoding="utf-8", errors="replace") as f:
                p = re.search(r" on 127\.0\.0\.1 port (\d+) ", f.read())
            with open(out_path, encoding="utf-8", errors="replace") as f:
                serving = "Rookery is serving" in f.read()
            if p and serving:
                self.twin = (proc, int(p.group(1)), out_path, err_path)
                return
            if proc.poll() is not None:
                break
            time.sleep(0.02)
        proc.kill()
        proc.wait()
        with open(err_path, encoding="utf-8", errors="replace") as f:
            raise AssertionError(f"the twin daemon did not start:\n{f.read()[-3000:]}")

    def db_args(self):
        """The options that name this daemon's database and sockets, for its `rookery mail-in`,
        `rookery backup` or another `rookery serve` in its place."""
        return ["--db", self.db] + (["--sockets", self.sockets] if self.sockets != self.db else [])

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
        """The daemon's log (and then its twin's)."""
        with open(self.err_path, encoding="utf-8", errors="replace") as f:
            log = f.read()
        if self.twin:
            with open(self.twin[3], encoding="utf-8", errors="replace") as f:
                log += f.read()
        return log

    def record_problems(self):
        """Every record a test received, read by the reader of docs/record.md and replayed through
        the rules (harness/record.py); a record whose game is still at its ply count must reach the
        daemon's position. The problems found, as text."""
        problems, seats = [], {}
        if self.records and self.proc.poll() is None:
            for v in json.loads(self.get("/api/variants").body)["variants"]:
                seats[v["id"]] = [s if isinstance(s, str) else s["seat"] for s in v["seats"]]
        for gid, text in self.records if seats else ():
            def position_at(plies):
                g = json.loads(self.get(f"/api/games/{gid}").body)
                return g["position"]["notation"] if g["ply"] == plies else None
            try:
                record.check_record_text(text, seats.__getitem__, position_at)
            except (AssertionError, KeyError) as e:
                problems.append(f"the record of {gid} that a test received: {e}")
        return problems

    def stop(self, sig=signal.SIGTERM):
        """Signal the daemon (its twin first), wait for it, check it stopped cleanly; returns its log."""
        record_problems = self.record_problems() if sig == signal.SIGTERM else []
        problems = []
        for proc in ([self.twin[0]] if self.twin else []) + [self.proc]:
            if proc.poll() is not None and proc is not self.proc:
                problems.append(f"the twin daemon had stopped with {proc.returncode}")
                continue
            proc.send_signal(sig)
            try:
                rc = proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError(f"rookery did not stop within {STOP_TIMEOUT}s:\n{self.stderr()[-3000:]}")
            if rc != 0:
                problems.append(f"exit status {rc}")
        log = self.stderr()
        if log.count("stopped cleanly") < (2 if self.twin else 1):
            problems.append("no 'stopped cleanly' in the log")
        self.twin = None
        for mark in SANITIZER_MARKS:
            if mark in log:
                problems.append(f"the log shows {mark!r}")
        problems += record_problems
        if self.contract_problems:
            problems.append("answers broke the API contract (docs/openapi.yaml):\n" +
                            "\n".join(self.contract_problems[:20]))
        for s in self.secrets:
            if s in log:
                problems.append(f"a seat token appears in the log: {s[:6]}...")
        if problems:
            raise AssertionError("; ".join(problems) + "\n--- log ---\n" + log[-6000:])
        return log

    def sanitizer_reports(self):
        """The sanitizer marks found in the log of every run of this daemon, a killed one's too."""
        found = []
        for path in sorted(glob.glob(os.path.join(self.workdir, "stderr-*.txt"))):
            with open(path, encoding="utf-8", errors="replace") as f:
                log = f.read()
            found += [f"{os.path.basename(path)}: {mark}" for mark in SANITIZER_MARKS if mark in log]
        return found

    def crash(self):
        """SIGKILL the daemon and its twin at once, as a power cut would, and wait for them: no
        chance to finish anything. start() brings both back on the same database."""
        self.kill()

    def kill(self):
        for proc in [self.proc] + ([self.twin[0]] if self.twin else []):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    # ---- HTTP ----

    def connect(self, source=None):
        """A connection to the daemon; from the local address source (127.0.0.2...), so that many
        clients are not held to the connections-per-address limit of one."""
        port = self.port
        if self.twin and self.twin[0].poll() is None:
            # As a load balancer would: every other connection to the twin (while it runs).
            self.turn += 1
            port = (self.port, self.twin[1])[self.turn % 2]
        return http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT,
                                          source_address=(source, 0) if source else None)

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
        finally:
            if own:
                c.close()
        problems = openapi.check_answer(method, path, r.status, r.headers, data)
        if problems:
            # Kept for stop() too: a test's thread may swallow the exception.
            self.contract_problems += problems
            raise AssertionError("the answer breaks the API contract (docs/openapi.yaml):\n" + "\n".join(problems))
        m = RECORD_PATH.match(path)
        if m and method == "GET" and r.status == 200:
            self.records.append((m.group(1), data.decode("utf-8")))
        return Response(r.status, r.headers, data)

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

    def post_page_form(self, path, fields, page="/new/nchess", origin=None, headers=None, conn=None):
        """Post a form of page (the new game form's by default) as a browser would, cookie and form token included."""
        tok, hdrs = self.page_form(page)
        body = fields if isinstance(fields, (str, bytes)) else urllib.parse.urlencode(fields)
        body = (body.decode() if isinstance(body, bytes) else body) + "&" + urllib.parse.urlencode(tok)
        return self.post_form(path, body, origin=origin, headers={**hdrs, **(headers or {})}, conn=conn)

    # ---- game helpers ----

    def create_game(self, names=("Ann", "Ben"), emails=(None, None, None, None), variant="nchess", clock=None):
        """A new game of variant (one seat per name, with the emails given), with clock (the API's
        time control) when given: (id, {seat: token}, the 201 answer)."""
        seats = []
        for n, e in zip(names, emails):
            s = {"name": n}
            if e:
                s["email"] = e
            seats.append(s)
        body = {"variant": variant, "seats": seats}
        if clock:
            body["clock"] = clock
        r = self.post("/api/games", body)
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
        """The mails written to the maildir (by default the one beside the sockets), parsed, by file name."""
        def order(path):     # "<unix time>.R<outbox id>P<pid>.<host>": in the order they were sent
            m = re.match(r"(\d+)\.R(\d+)P", os.path.basename(path))
            return (int(m.group(1)), int(m.group(2)), path) if m else (0, 0, path)
        out = []
        for path in sorted(glob.glob(os.path.join(maildir or os.path.join(os.path.dirname(self.sockets), "mail"),
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
        return database.snapshot(self.db)


def db_query(db, sql, args=()):
    """The rows of one query (? placeholders) of the database db, either backend's, through a
    read-only connection of its own."""
    return database.query(db, sql, args)


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_rookery(*args, cwd=None):
    return subprocess.run([ROOKERY, *args], capture_output=True, text=True, timeout=START_TIMEOUT,
                          cwd=cwd, stdin=subprocess.DEVNULL)


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

    def game_page(self, gid, token=None, rows=None, cols=None, full=False):
        """The page of game gid as the public (or token's seat) sees it: parsed (page_board) and
        as text. With rows and cols, the drawn grid has that many, each row filled when full."""
        r = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else ""))
        self.assertEqual(r.status, 200, r)
        p = page_board(r.text)
        if rows:
            grid = p.grid()
            self.assertEqual(len(grid), rows, f"the board has {rows} rows")
            for row in grid:
                self.assertEqual(len(row), cols, f"every row has {cols} places")
                if full:
                    self.assertNotIn(None, row, f"every row has {cols} cells")
        return p, r.text

    def assertMoveAnswer(self, j, ply, seat, canon, note):
        """j, the answer to a move just accepted, echoes it: its ply and seat, the canonical text
        and the note, no dice, not a re-sent move; its game is at the next ply as the mover sees
        it, with no moves for the mover. Returns that game."""
        self.assertEqual(j["ply"], ply)
        self.assertEqual(j["seat"], seat)
        self.assertEqual(j["move"], canon, "canonical echo")
        self.assertEqual(j["note"], note)
        self.assertEqual(j["dice"], [])
        self.assertIs(j["duplicate"], False)
        g = j["game"]
        self.assertEqual(g["ply"], ply + 1)
        self.assertEqual(g["seat"], seat)
        self.assertEqual(g["legal_moves"], [], "the mover has no moves right after moving")
        return g

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


def arguments(doc, most=1):
    """The leading arguments of a test script's command line (paths, before unittest's options), at
    most `most` of them, taken out of sys.argv and made absolute. The first is the rookery binary,
    kept in ROOKERY (else $ROOKERY); without one, or when it is no executable, exit with doc."""
    global ROOKERY
    paths = []
    while len(paths) < most and len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        paths.append(os.path.abspath(sys.argv.pop(1)))
    if paths:
        ROOKERY = paths[0]
    if not ROOKERY:
        sys.exit(doc.strip())
    ROOKERY = os.path.abspath(ROOKERY)
    if not os.access(ROOKERY, os.X_OK):
        sys.exit(f"{os.path.basename(sys.argv[0])}: {ROOKERY} is not an executable")
    return paths


def run_tests():
    """Run the test cases of the script (__main__) with the options left in sys.argv; print how
    many passed and how long it took. Returns the exit status."""
    t0 = time.monotonic()
    prog = unittest.main(module="__main__", argv=sys.argv, exit=False, verbosity=2)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    passed = r.testsRun - failed - len(r.skipped) - len(r.expectedFailures)
    if r.expectedFailures:
        print(f"{len(r.expectedFailures)} expected failures: known server bugs, described where each test is defined")
    print(f"{passed} passed, {failed} failed, {len(r.skipped)} skipped in {time.monotonic() - t0:.1f}s")
    return 0 if r.wasSuccessful() else 1


def main(doc):
    """A test script's entry point: `script.py PATH-TO-ROOKERY [unittest options]`."""
    arguments(doc)
    return run_tests()


def main_with_tool(doc, use_tool):
    """The entry point of a test script that needs a program from outside (a checker from npm):
    `script.py PATH-TO-ROOKERY [PATH-TO-TOOL] [unittest options]`. use_tool(path or None) takes
    the tool's path when given and returns why the tool cannot run, or None. Without the tool
    the script fails and says so: a check that silently did not run would pass everything."""
    paths = arguments(doc, 2)
    missing = use_tool(paths[1] if len(paths) > 1 else None)
    if missing:
        print(missing, file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    return run_tests()
