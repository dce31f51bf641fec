#!/usr/bin/env python3
"""harness.cdp - headless Chromium over the DevTools protocol, and a Rookery server, for the browser tests.

Python 3 standard library, and harness.openapi (Debian's python3-yaml and python3-jsonschema), which
holds the answers of api() and api_status() to the API contract. The browser tests run as
`python3 tests/browser/X.py /path/to/rookery` (daemon.main, which keeps the path in daemon.ROOKERY) and
import this module:

    from harness import cdp

    server = cdp.Server(workdir, rookery_path, extra_args=("--demo",))   # .base, .demo, .stop()
    browser = cdp.Browser(workdir)
    tab = browser.new_tab()
    tab.goto(server.base + "/")
    tab.js("document.title"); tab.act("...form.submit()...")   # act waits for the page load
    tab.wait_for("document.querySelector('#game').dataset.state.startsWith('3|')", timeout=10)
    tab.board()            # the drawn board: {square: piece letter or ''}, plus .kinds .held .last
    tab.screenshot("start")  # PNG into the artifacts directory
    cdp.assert_no_console_errors(testcase, tab)
    browser.close(); server.stop()

The pipe: Chromium reads commands on fd 3 and writes answers and events on fd 4, JSON
messages ended by a NUL byte (--remote-debugging-pipe). Each tab is a target attached in
flat mode, so that its commands and events carry its sessionId. Each tab opens in a window of
its own, so that every tab is visible at once (document.hidden is false), as the pages of two
players on two computers would be: a page in a background tab polls for live updates only
every 15 s.

Every tab records its console errors from the start: console.error and console.assert
(Runtime.consoleAPICalled), uncaught exceptions (Runtime.exceptionThrown), and the browser's
own error entries (Log.entryAdded with level error: failed resource loads, CSP violations).

Screenshots go to $ROOKERY_ARTIFACTS if set, else to ./screenshots (meson runs the tests in
the build directory, and tests/meson.build sets ROOKERY_ARTIFACTS to build/tests/screenshots).

Chromium must be installed (scripts/deps.sh): without it the tests fail, they do not skip.
$ROOKERY_CHROMIUM names another binary.
"""

import base64
import fcntl
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from harness import daemon, database, openapi
from harness.daemon import SANITIZER_MARKS

CHROMIUM = os.environ.get("ROOKERY_CHROMIUM", "/usr/bin/chromium")
TIMEOUT = 30.0           # seconds for one page load or one command (ASan is slow)


class CDPError(Exception):
    pass


class WaitTimeout(AssertionError):
    pass


def high_fd(fd):
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


def artifacts_dir():
    """Where screenshots go ($ROOKERY_ARTIFACTS, else ./screenshots); created if missing."""
    d = os.environ.get("ROOKERY_ARTIFACTS") or os.path.join(os.getcwd(), "screenshots")
    os.makedirs(d, exist_ok=True)
    return d


def _remote_text(obj):
    """A Runtime.RemoteObject as text."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "?")


def _where(url, line):
    if not url:
        return ""
    return " (%s%s)" % (url, ":%d" % (line + 1) if isinstance(line, int) else "")


def _console_error(msg):
    """The text of a console error event, or None for events that are not errors."""
    method, p = msg.get("method"), msg.get("params", {})
    if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
        text = " ".join(_remote_text(a) for a in p.get("args", []))
        frames = (p.get("stackTrace") or {}).get("callFrames") or []
        where = _where(frames[0].get("url"), frames[0].get("lineNumber")) if frames else ""
        return "console.%s: %s%s" % (p["type"], text, where)
    if method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        text = (d.get("exception") or {}).get("description") or d.get("text", "exception")
        return "uncaught exception: %s%s" % (text, _where(d.get("url"), d.get("lineNumber")))
    if method == "Log.entryAdded":
        e = p.get("entry", {})
        if e.get("level") == "error":
            return "log (%s): %s%s" % (e.get("source", "?"), e.get("text", ""),
                                       _where(e.get("url"), e.get("lineNumber")))
    return None


class Browser:
    """A headless Chromium spoken to over --remote-debugging-pipe."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.next_id = 0
        self.lock = threading.Condition()
        self.replies = {}
        self.loads = {}         # sessionId -> count of Page.loadEventFired
        self.errors = {}        # sessionId -> [console error texts]
        self.closed = False
        cmd_r, self.cmd_w = os.pipe()      # we write commands, the browser reads fd 3
        self.res_r, res_w = os.pipe()      # the browser writes fd 4, we read
        # Move the child's ends to 10 and up so that the wrapper's dup2 onto 3 and 4 cannot collide.
        cmd_r, res_w = high_fd(cmd_r), high_fd(res_w)
        profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir)
        args = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-pipe",
                # Background tabs must keep their timers (live updates poll every 3 s).
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows",
                "--user-data-dir=" + profile, "about:blank"]
        # A small exec wrapper puts the two pipe ends on fds 3 and 4, then becomes Chromium.
        wrapper = ("import os, sys\n"
                   "r, w = int(sys.argv[1]), int(sys.argv[2])\n"
                   "os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w)\n"
                   "os.execv(sys.argv[3], sys.argv[3:])\n")
        self.log = open(os.path.join(workdir, "chromium.log"), "ab")
        env = dict(os.environ)
        env.setdefault("HOME", workdir)
        self.proc = subprocess.Popen([sys.executable, "-c", wrapper, str(cmd_r), str(res_w)] + args,
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     pass_fds=(cmd_r, res_w), start_new_session=True, env=env)
        os.close(cmd_r)
        os.close(res_w)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self.res_r, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self.lock:
                    if "id" in msg:
                        self.replies[msg["id"]] = msg
                    elif msg.get("method") == "Page.loadEventFired":
                        sid = msg.get("sessionId")
                        self.loads[sid] = self.loads.get(sid, 0) + 1
                    else:
                        err = _console_error(msg)
                        if err is not None:
                            self.errors.setdefault(msg.get("sessionId"), []).append(err)
                    self.lock.notify_all()
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def send(self, method, params=None, session=None, timeout=TIMEOUT):
        with self.lock:
            self.next_id += 1
            mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.cmd_w, data):]
        deadline = time.monotonic() + timeout
        with self.lock:
            while mid not in self.replies:
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    raise CDPError("no answer to %s (browser %s)" %
                                   (method, "gone" if self.closed else "timed out"))
                self.lock.wait(left)
            reply = self.replies.pop(mid)
        if "error" in reply:
            raise CDPError("%s: %s" % (method, reply["error"]))
        return reply.get("result", {})

    def load_count(self, session):
        with self.lock:
            return self.loads.get(session, 0)

    def wait_load(self, session, before, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        with self.lock:
            while self.loads.get(session, 0) <= before:
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    raise CDPError("page did not finish loading")
                self.lock.wait(left)

    def console_errors(self, session):
        with self.lock:
            return list(self.errors.get(session, []))

    def forget_console_errors(self, session, pattern):
        with self.lock:
            errors = self.errors.get(session, [])
            gone = [e for e in errors if re.search(pattern, e)]
            self.errors[session] = [e for e in errors if not re.search(pattern, e)]
            return gone

    def new_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank", "newWindow": True})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session, target)
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)
        self.send("Log.enable", session=session)
        return tab

    def close(self):
        try:
            if self.proc.poll() is None and not self.closed:
                self.send("Browser.close", timeout=5)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        # Chromium's helpers share its process group (start_new_session): end them all.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self.cmd_w, self.res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()


class Board(dict):
    """The drawn board of a game page: {square name: piece letter or ''}, in document order.

    Attributes (also reachable as b["kinds"] etc., since no square has those names):
      kinds  {square: [the square group's classes]}, e.g. ['sq', 'prison', 'dark', 'last']
      sides  {square: seat of the piece on it ('North'), or '' for an empty square}
      held   {square: text of its anchored prisoners ('s n')}, only squares that hold some
      last   [squares of the last move (class 'last')]
      hands  [{'piece', 'touch', 'side'}] pieces in hand (Conversion Chess), outside the squares
      rc     {square: (data-r, data-c)}, the drawn row and column
    """
    FIELDS = ("kinds", "sides", "held", "last", "hands", "rc")

    def __missing__(self, key):
        if key in Board.FIELDS:
            return getattr(self, key)
        raise KeyError(key)


BOARD_JS = r"""(() => {
  const svg = document.querySelector('svg#board');
  if (!svg) return null;
  const cls = e => (e.getAttribute('class') || '').split(/\s+/).filter(x => x);
  const side = e => { const s = cls(e).find(c => c.startsWith('side-')); return s ? s.slice(5) : ''; };
  const squares = [];
  for (const g of svg.querySelectorAll('[data-square]')) {
    const pc = g.querySelector('[data-piece]'), held = g.querySelector('.held');
    squares.push({square: g.getAttribute('data-square'), piece: pc ? pc.getAttribute('data-piece') : '',
                  side: pc ? side(pc) : '', kinds: cls(g), held: held ? held.textContent.trim() : null,
                  r: +g.getAttribute('data-r'), c: +g.getAttribute('data-c')});
  }
  const hands = [...svg.querySelectorAll('.pc.hand')].map(h => ({
    piece: h.getAttribute('data-piece'), touch: h.getAttribute('data-touch'), side: side(h)}));
  return {squares: squares, hands: hands};
})()"""


def make_board(raw):
    if raw is None:
        return None
    b = Board()
    b.kinds, b.sides, b.held, b.last, b.rc = {}, {}, {}, [], {}
    for s in raw["squares"]:
        name = s["square"]
        b[name] = s["piece"]
        b.kinds[name] = s["kinds"]
        b.sides[name] = s["side"]
        b.rc[name] = (s["r"], s["c"])
        if s["held"]:
            b.held[name] = s["held"]
        if "last" in s["kinds"]:
            b.last.append(name)
    b.hands = raw["hands"]
    return b


# What a game page shows, read from the DOM (see templates/game.html).
STATE_JS = r"""(() => {
  const q = s => document.querySelector(s);
  const text = s => { const e = q(s); return e ? e.textContent.replace(/\s+/g, ' ').trim() : null; };
  const game = q('#game');
  return {
    title: document.title, url: location.href, players: text('.players'),
    turn: text('.turn'), result: text('.result'), error: text('#error'),
    offer: text('.offer'), last: text('.last'), places: text('p.places'),
    data_state: game ? game.getAttribute('data-state') : null,
    has_board: !!q('svg#board'),
    move_form: !!q('form#move-form'), move_input: !!q('input#move'),
    ply: q('form#move-form input[name=ply]') ? q('form#move-form input[name=ply]').value : null,
    legal: [...document.querySelectorAll('#legal-list code[data-move]')].map(c => c.getAttribute('data-move')),
    legal_places: [...document.querySelectorAll('#legal-list code[data-move]')].map(c => c.getAttribute('data-places')),
    can_offer: !!q('form input[name=action][value=offer]'),
    can_accept: !!q('form input[name=action][value=accept]'),
    can_resign: !!q('form.resign'),
    history: [...document.querySelectorAll('ol.moves li code')].map(c => c.textContent),
  };
})()"""


class Tab:
    def __init__(self, browser, session, target):
        self.b = browser
        self.session = session
        self.target = target

    def send(self, method, params=None, timeout=TIMEOUT):
        return self.b.send(method, params, session=self.session, timeout=timeout)

    def goto(self, url):
        before = self.b.load_count(self.session)
        r = self.send("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise CDPError("navigate %s: %s" % (url, r["errorText"]))
        self.b.wait_load(self.session, before)

    def js(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError("script failed: %s\n%s" % (r["exceptionDetails"], expression))
        return r["result"].get("value")

    def act(self, expression):
        """Run a script that navigates (submits a form, say), and wait for the page it leads to."""
        before = self.b.load_count(self.session)
        self.js(expression)
        self.b.wait_load(self.session, before)
        # An error outside a game page (the error page, or the home page's form error)
        # means the form did not get through: say what the page said.
        problem = self.js("""(() => {
  const e = document.querySelector('.error');
  return e && !document.querySelector('svg#board') ?
    e.textContent.trim() + ' (page "' + document.title + '")' : null;
})()""")
        if problem:
            raise AssertionError("the form was refused, at %s: %s" % (self.url(), problem))

    def url(self):
        return self.js("location.href")

    def load_count(self):
        """How many pages this tab has loaded (Page.loadEventFired); live updates load none."""
        return self.b.load_count(self.session)

    def wait_for(self, expression, timeout=TIMEOUT, interval=0.1):
        """Evaluate expression until it is truthy; return its value. Raises WaitTimeout."""
        deadline = time.monotonic() + timeout
        last_error = None
        while True:
            try:
                value = self.js(expression)
                last_error = None
                if value:
                    return value
            except CDPError as e:   # the page may be between two documents
                last_error = e
            if time.monotonic() >= deadline:
                raise WaitTimeout("%s was not true within %.1f s%s" %
                                  (expression, timeout, "; last: %s" % last_error if last_error else ""))
            time.sleep(interval)

    def console_errors(self):
        """Every console error of this tab so far (texts): console.error/assert, uncaught
        exceptions, and the browser's error log entries (failed loads, CSP violations)."""
        return self.b.console_errors(self.session)

    def forget_console_errors(self, pattern):
        """Drop the errors so far that match the regex pattern (ones a test expects, such as
        the 422 of a refused move); returns them, so that the test can check they came."""
        return self.b.forget_console_errors(self.session, pattern)

    def screenshot(self, name, full_page=False):
        """A PNG of the viewport (or of the whole page), saved as <artifacts>/<name>.png;
        returns its path."""
        params = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        shot = self.send("Page.captureScreenshot", params)
        png = base64.b64decode(shot["data"])
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            raise CDPError("Page.captureScreenshot gave no PNG")
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", name)
        if not name.endswith(".png"):
            name += ".png"
        path = os.path.join(artifacts_dir(), name)
        with open(path, "wb") as f:
            f.write(png)
        return path

    def set_viewport(self, width, height, mobile=False, scale=None):
        """Emulate a screen of width x height CSS pixels (a phone's with mobile=True)."""
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "mobile": mobile,
            "deviceScaleFactor": scale if scale is not None else (2 if mobile else 1)})

    def clear_viewport(self):
        self.send("Emulation.clearDeviceMetricsOverride")

    def board(self):
        """The drawn board (svg#board) as a Board, or None when the page has none."""
        return make_board(self.js(BOARD_JS))

    def state(self):
        """What a game page shows: status lines, forms, legal moves, history, and 'board'."""
        st = self.js(STATE_JS)
        st["board"] = self.board()
        return st

    # Acting on a game page through its forms (each loads a page).
    def play(self, move):
        """Type a move into input#move and submit the form."""
        self.act("""(() => {
  const i = document.querySelector('input#move');
  i.focus(); i.value = %s;
  i.dispatchEvent(new Event('input', {bubbles: true}));
  i.form.querySelector('button[type=submit]').click();
})()""" % json.dumps(move))

    def click_draw(self, action):
        """offer, accept, decline or withdraw."""
        self.act("""document.querySelector('form input[name=action][value=%s]')
                 .form.querySelector('button').click()""" % action)

    def resign(self):
        self.act("""(() => {
  const f = document.querySelector('form.resign');
  f.querySelector('input[name=confirm]').checked = true;
  f.querySelector('button[type=submit]').click();
})()""")


def assert_no_console_errors(testcase, tab, ignore=()):
    """Fail testcase if tab logged any console error (except those matching a regex of ignore)."""
    errors = [e for e in tab.console_errors() if not any(re.search(p, e) for p in ignore)]
    if errors:
        testcase.fail("console errors in the tab (last at %s):\n  %s" % (
            _safe_url(tab), "\n  ".join(errors)))


def _safe_url(tab):
    try:
        return tab.url()
    except CDPError:
        return "?"


class Server:
    """`rookery serve` on 127.0.0.1, port 0, with a fresh database (harness.database: SQLite in
    workdir, or PostgreSQL).

    .base is http://127.0.0.1:PORT; with --demo among extra_args, .demo is {seat: (name, url)}.
    .stop() ends it and returns its exit status; .problems() after stop lists what went wrong
    (a bad exit status, sanitizer reports in its log)."""

    def __init__(self, workdir, rookery_path, extra_args=()):
        self.workdir = workdir
        self.log_path = os.path.join(workdir, "rookery.log")
        self.log = open(self.log_path, "ab")
        place = tempfile.mkdtemp(prefix="db-", dir=workdir)
        db = database.fresh(place)
        sockets = database.sockets_for(db, place)
        self.proc = subprocess.Popen(
            [rookery_path, "serve", "--address", "127.0.0.1", "--port", "0", "--db", db]
            + (["--sockets", sockets] if sockets else []) + list(extra_args),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log, cwd=workdir)
        self.lines = []
        self.base = None
        self.demo = {}
        want_demo = "--demo" in extra_args
        deadline = time.monotonic() + TIMEOUT
        buf = b""
        fd = self.proc.stdout.fileno()
        while (self.base is None or (want_demo and len(self.demo) < 2)) and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.decode()
                self.lines.append(line)
                m = re.match(r"Rookery is serving (http://127\.0\.0\.1:\d+)/$", line)
                if m:
                    self.base = m.group(1)
                m = re.search(r"^\s+(\w+) \((\w+)\): (http\S+)", line)
                if m:
                    self.demo[m.group(1)] = (m.group(2), m.group(3))
        if self.base is None:
            self.stop()
            raise AssertionError("rookery did not announce its address: %r" % self.lines)
        # Keep draining stdout so that the server can never block on it.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        try:
            while self.proc.stdout.read(4096):
                pass
        except (OSError, ValueError):
            pass

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        if not self.log.closed:
            self.log.close()
        return self.proc.returncode

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def problems(self):
        out = []
        if self.proc.returncode not in (0, None):
            out.append("rookery exited with status %r" % self.proc.returncode)
        log = self.log_text()
        out += ["the log shows %r" % m for m in SANITIZER_MARKS if m in log]
        return out


class BrowserTestCase(unittest.TestCase):
    """Optional base: a fresh server (SERVER_ARGS) and browser per test, cleaned up after.

    self.tmp, self.server, self.base, self.browser; self.new_tab() opens a tab and keeps it
    in self.tabs_opened; self.assert_no_console_errors() checks every tab opened so far.
    The server's exit status and log are checked at cleanup; the binary is daemon.ROOKERY."""
    SERVER_ARGS = ()
    PREFIX = "rookery-browser-"

    def setUp(self):
        self.t0 = time.monotonic()
        self.tmp = tempfile.mkdtemp(prefix=self.PREFIX)
        self.server = None
        self.browser = None
        self.tabs_opened = []
        self.addCleanup(self._cleanup)
        if not os.access(CHROMIUM, os.X_OK):
            self.fail("%s is missing: install Debian's chromium (scripts/deps.sh)" % CHROMIUM)
        self.assertTrue(daemon.ROOKERY, "daemon.ROOKERY is not set (run through daemon.main())")
        self.server = Server(self.tmp, daemon.ROOKERY, self.SERVER_ARGS)
        self.base = self.server.base
        self.browser = Browser(self.tmp)
        self.browser.send("Browser.getVersion")

    def new_tab(self):
        tab = self.browser.new_tab()
        self.tabs_opened.append(tab)
        return tab

    def api(self, path, body=None, token=None):
        """The JSON answer of the server's API at path: a POST of body (JSON) when given, else a GET."""
        status, _, data = self._checked(path, body, token)
        if status >= 400:
            raise AssertionError(f"{'POST' if body is not None else 'GET'} {path}: {status} {data[:300]!r}")
        return json.loads(data)

    def api_status(self, path, body=None, token=None):
        """(status, answer) of the same request as api(), errors included: the answer parsed when
        it is JSON, else its text."""
        status, content_type, data = self._checked(path, body, token)
        if content_type.startswith("application/json"):
            return status, json.loads(data)
        return status, data.decode("utf-8", "replace")

    def _checked(self, path, body, token, method=None):
        """(status, Content-Type, body) of one request (a POST of body when given, else a GET, unless
        method says), the answer held to the API contract as Daemon.request holds it."""
        method = method or ("POST" if body is not None else "GET")
        try:
            r = urllib.request.urlopen(self._request(path, body, token, method), timeout=daemon.HTTP_TIMEOUT)
        except urllib.error.HTTPError as e:
            r = e
        with r:
            data = r.read()
            content_type = r.headers.get("Content-Type") or ""
            problems = openapi.check_answer(method, path, r.status, r.headers, data)
        if problems:
            raise AssertionError("the answer breaks the API contract (docs/openapi.yaml):\n" + "\n".join(problems))
        return r.status, content_type, data

    def _request(self, path, body, token, method=None):
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode() if body is not None else None,
                                     method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        return req

    def assert_no_console_errors(self, ignore=()):
        for tab in self.tabs_opened:
            assert_no_console_errors(self, tab, ignore)

    def assert_over(self, st, words):
        """st (a tab's state()) shows a finished game whose result says words: no one to move,
        no move form, no legal moves, no resign or draw buttons."""
        self.assertIsNotNone(st["result"], "no result shown: %r" % st)
        self.assertIn(words, st["result"])
        self.assertIsNone(st["turn"], st)
        self.assertIn("|over|", st["data_state"] or "", st)
        self.assertFalse(st["move_form"], st)
        self.assertFalse(st["move_input"], st)
        self.assertEqual(st["legal"], [])
        self.assertFalse(st["can_resign"], st)
        self.assertFalse(st["can_offer"], st)
        self.assertFalse(st["can_accept"], st)

    def report(self, what):
        sys.stderr.write("  %s: %.1f s\n" % (what, time.monotonic() - self.t0))

    def _cleanup(self):
        problems = []
        try:
            if self.browser:
                self.browser.close()
        finally:
            if self.server:
                self.server.stop()
                problems = self.server.problems()
        if problems or os.environ.get("ROOKERY_KEEP_TMP"):
            sys.stderr.write("browser test files kept in %s\n" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
        if problems:
            sys.stderr.write(self.server.log_text()[-4000:])
            raise AssertionError("; ".join(problems))
