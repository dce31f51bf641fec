#!/usr/bin/env python3
"""End-to-end browser test: whole Nchess games played in a real, headless Chromium.

Usage: browser.py /path/to/rookery

Starts its own server (127.0.0.1, port 0, fresh database, --demo) and its own
headless Chromium, driven over the DevTools protocol on a pipe (fd 3: commands
to the browser, fd 4: its answers; JSON messages ended by a NUL byte). Python 3
standard library only. Chromium must be installed (scripts/deps.sh): without
it the test fails, it does not skip.
"""

import base64
import fcntl
import json
import os
import random
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

ROOKERY = None  # set from argv[1]
CHROMIUM = os.environ.get("ROOKERY_CHROMIUM", "/usr/bin/chromium")
SEED = int(os.environ.get("ROOKERY_BROWSER_SEED", "1"))
MAX_PLIES = 400          # a whole game must end before this
TIMEOUT = 30.0           # seconds for one page load or one command (ASan is slow)


class CDPError(Exception):
    pass


def high_fd(fd):
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """A headless Chromium spoken to over --remote-debugging-pipe."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.next_id = 0
        self.lock = threading.Condition()
        self.replies = {}
        self.loads = {}         # sessionId -> count of Page.loadEventFired
        self.closed = False
        cmd_r, self.cmd_w = os.pipe()      # we write commands, the browser reads fd 3
        self.res_r, res_w = os.pipe()      # the browser writes fd 4, we read
        # Move the child's ends to 10 and up so that the wrapper's dup2 onto 3 and 4 cannot collide.
        cmd_r, res_w = high_fd(cmd_r), high_fd(res_w)
        profile = os.path.join(workdir, "chromium-profile")
        os.mkdir(profile)
        args = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "about:blank"]
        # A small exec wrapper puts the two pipe ends on fds 3 and 4, then becomes Chromium.
        wrapper = ("import os, sys\n"
                   "r, w = int(sys.argv[1]), int(sys.argv[2])\n"
                   "os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w)\n"
                   "os.execv(sys.argv[3], sys.argv[3:])\n")
        self.log = open(os.path.join(workdir, "chromium.log"), "wb")
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

    def new_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session, target)
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)
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


class Tab:
    def __init__(self, browser, session, target):
        self.b = browser
        self.session = session
        self.target = target

    def send(self, method, params=None):
        return self.b.send(method, params, session=self.session)

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
        """Run a script that submits a form, and wait for the page it leads to."""
        before = self.b.load_count(self.session)
        self.js(expression)
        self.b.wait_load(self.session, before)
        # An error outside a game page (the error page, or the home page's form error)
        # means the form did not get through: say what the page said.
        problem = self.js("""(() => {
  const e = document.querySelector('.error');
  return e && !document.querySelector('table.board') ?
    e.textContent.trim() + ' (page "' + document.title + '")' : null;
})()""")
        if problem:
            raise AssertionError("the form was refused, at %s: %s" % (self.url(), problem))

    def url(self):
        return self.js("location.href")

    # What a game page shows, read from the DOM.
    def state(self):
        return self.js(r"""(() => {
  const q = s => document.querySelector(s);
  const text = s => { const e = q(s); return e ? e.textContent.replace(/\s+/g, ' ').trim() : null; };
  const board = {};
  for (const td of document.querySelectorAll('table.board td[title]'))
    board[td.title] = td.childNodes.length && td.childNodes[0].nodeType === 3 ?
      td.childNodes[0].textContent.trim() : '';
  const kinds = {};
  for (const td of document.querySelectorAll('table.board td[title]'))
    kinds[td.title] = td.className;
  const held = {};
  for (const sup of document.querySelectorAll('table.board td[title] sup.held'))
    held[sup.parentNode.title] = parseInt(sup.textContent, 10);
  const rows = [...document.querySelectorAll('table.board tbody tr')].map(tr =>
    [...tr.querySelectorAll('td')].map(td => td.title));
  return {
    title: document.title, url: location.href, players: text('.players'),
    turn: text('.turn'), result: text('.result'), error: text('#error'),
    offer: text('.offer'), last: text('.last'),
    has_board: !!q('table.board'), board: board, kinds: kinds, held: held, rows: rows,
    move_form: !!q('form.move'), move_input: !!q('input#move'),
    ply: q('form.move input[name=ply]') ? q('form.move input[name=ply]').value : null,
    legal: [...document.querySelectorAll('details.legal code')].map(c => c.textContent),
    can_offer: !!q('form input[name=action][value=offer]'),
    can_accept: !!q('form input[name=action][value=accept]'),
    can_resign: !!q('form.resign'),
    history: [...document.querySelectorAll('ol.moves li code')].map(c => c.textContent),
  };
})()""")

    def play(self, move):
        self.act("""(() => {
  const i = document.querySelector('input#move');
  i.focus(); i.value = %s;
  i.dispatchEvent(new Event('input', {bubbles: true}));
  i.form.querySelector('button[type=submit]').click();
})()""" % json.dumps(move))

    def click_draw(self, action):
        self.act("""document.querySelector('form input[name=action][value=%s]')
                 .form.querySelector('button').click()""" % action)

    def resign(self):
        self.act("""(() => {
  const f = document.querySelector('form.resign');
  f.querySelector('input[name=confirm]').checked = true;
  f.querySelector('button[type=submit]').click();
})()""")


class Server:
    def __init__(self, workdir):
        self.log = open(os.path.join(workdir, "rookery.log"), "wb")
        self.proc = subprocess.Popen(
            [ROOKERY, "serve", "--address", "127.0.0.1", "--port", "0",
             "--db", os.path.join(workdir, "r.db"), "--demo"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log)
        self.lines = []
        self.base = None
        self.demo = {}
        deadline = time.monotonic() + TIMEOUT
        buf = b""
        fd = self.proc.stdout.fileno()
        while (self.base is None or len(self.demo) < 2) and time.monotonic() < deadline:
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
                m = re.search(r"(South|North) \((\w+)\): (http\S+)", line)
                if m:
                    self.demo[m.group(1)] = (m.group(2), m.group(3))
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
        self.log.close()
        return self.proc.returncode


def parse_move(text):
    """'S 7 1 6 1 4 / s 3 3' -> (letter, (fr, fc), (tr, tc)) of the main move."""
    m = re.match(r"\s*([A-Za-z])\s*(\d)\s*(\d)\s*(\d)\s*(\d)", text)
    if not m:
        raise AssertionError("unreadable legal move %r" % text)
    return m.group(1), (int(m.group(2)), int(m.group(3))), (int(m.group(4)), int(m.group(5)))


def sq(rc):
    return "%d %d" % rc


class BrowserTest(unittest.TestCase):
    def setUp(self):
        self.t0 = time.monotonic()
        self.tmp = tempfile.mkdtemp(prefix="rookery-browser-")
        self.server = None
        self.browser = None
        self.addCleanup(self.cleanup)
        if not os.access(CHROMIUM, os.X_OK):
            self.fail("%s is missing: install Debian's chromium (scripts/deps.sh)" % CHROMIUM)
        self.server = Server(self.tmp)
        self.assertIsNotNone(self.server.base, "server did not announce its address: %r"
                             % self.server.lines)
        self.assertEqual(set(self.server.demo), {"South", "North"},
                         "no demo seat links: %r" % self.server.lines)
        self.base = self.server.base
        self.browser = Browser(self.tmp)
        self.browser.send("Browser.getVersion")
        self.a = self.browser.new_tab()
        self.b = self.browser.new_tab()

    def cleanup(self):
        failed = False
        try:
            if self.browser:
                self.browser.close()
        finally:
            if self.server:
                rc = self.server.stop()
                failed = rc != 0
        if failed or os.environ.get("ROOKERY_KEEP_TMP"):
            sys.stderr.write("browser test files kept in %s\n" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
        if failed:
            with open(os.path.join(self.tmp, "rookery.log"), errors="replace") as f:
                sys.stderr.write(f.read()[-4000:])
            raise AssertionError("rookery exited with status %r" % rc)

    # Helpers -----------------------------------------------------------

    def create_game(self, south, north):
        """Fill in the home page's form; return {seat: url} from the created page."""
        self.a.goto(self.base + "/")
        self.assertIn("Rookery", self.a.js("document.title"))
        self.a.act("""(() => {
  const f = document.querySelector('form.create');
  f.querySelector('input[name=name0]').value = %s;
  f.querySelector('input[name=name1]').value = %s;
  f.querySelector('button[type=submit]').click();
})()""" % (json.dumps(south), json.dumps(north)))
        links = self.a.js("""[...document.querySelectorAll('ul.links li')].map(li => ({
  seat: li.querySelector('strong').textContent, text: li.textContent,
  url: li.querySelector('a').href}))""")
        self.assertEqual([l["seat"] for l in links], ["South", "North"], links)
        self.assertIn("(%s)" % south, links[0]["text"])
        self.assertIn("(%s)" % north, links[1]["text"])
        for l in links:
            self.assertTrue(l["url"].startswith(self.base + "/games/"), l["url"])
            self.assertIn("seat=", l["url"])
        self.assertIn("only once", self.a.js("document.body.textContent"))
        return {l["seat"]: l["url"] for l in links}

    def open_seats(self, urls):
        self.a.goto(urls["South"])
        self.b.goto(urls["North"])
        return {"South": self.a, "North": self.b}

    def assert_running_seat(self, st, seat, to_move):
        self.assertTrue(st["has_board"], st)
        self.assertEqual(len(st["board"]), 81, st["board"])
        self.assertIsNone(st["result"], st)
        self.assertIsNotNone(st["turn"], st)
        if to_move:
            self.assertIn("Your move", st["turn"])
            self.assertTrue(st["move_input"], st)
            self.assertTrue(st["legal"], "no legal moves listed")
        else:
            self.assertNotIn("Your move", st["turn"])
            self.assertIn("You play %s" % seat, st["turn"])
            self.assertFalse(st["move_form"], st)
            self.assertEqual(st["legal"], [])

    def assert_over(self, st, words):
        self.assertIsNotNone(st["result"], "no result shown: %r" % st)
        self.assertIn(words, st["result"])
        self.assertIsNone(st["turn"], st)
        self.assertFalse(st["move_form"], st)
        self.assertFalse(st["move_input"], st)
        self.assertEqual(st["legal"], [])
        self.assertFalse(st["can_resign"], st)
        self.assertFalse(st["can_offer"], st)
        self.assertFalse(st["can_accept"], st)

    # The tests ---------------------------------------------------------

    def test_1_demo_links(self):
        """The --demo seat links open their seats; only South may move first."""
        d = self.server.demo
        self.assertEqual(d["South"][0], "Ann")
        self.assertEqual(d["North"][0], "Ben")
        tabs = self.open_seats({"South": d["South"][1], "North": d["North"][1]})
        south, north = tabs["South"].state(), tabs["North"].state()
        self.assert_running_seat(south, "South", True)
        self.assert_running_seat(north, "North", False)
        self.assertIn("Ann (South)", south["turn"])
        self.assertIn("South (Ann) to move", north["turn"])
        for st in (south, north):
            self.assertRegex(st["players"], r"South: Ann\s*North: Ben")
        # The start position, seen from both sides (by title, not by position).
        for st in (south, north):
            self.assertEqual(st["board"]["9 5"], "G")
            self.assertEqual(st["board"]["1 5"], "g")
            self.assertEqual(st["board"]["7 1"], "S")
            self.assertIn("river", st["kinds"]["5 5"].split())
            self.assertIn("prison", st["kinds"]["9 4"].split())
        # South sees row 1 at the top; North's view is turned round.
        self.assertEqual(south["rows"][0][0], "1 1")
        self.assertEqual(south["rows"][8][8], "9 9")
        self.assertEqual(north["rows"][0][0], "9 9")
        self.assertEqual(north["rows"][8][8], "1 1")
        self.report("demo links")

    def test_2_whole_game(self):
        """A new game from the home page, played to the capture of a General."""
        rng = random.Random(SEED)
        urls = self.create_game("Ann", "Ben")
        tabs = self.open_seats(urls)
        other = {"South": "North", "North": "South"}
        plies = 0
        illegal_tried = False
        phone_checked = False
        seat = "South"
        while True:
            tab = tabs[seat]
            st = tab.state()
            if st["result"] is not None:
                break
            self.assertLess(plies, MAX_PLIES, "the game did not end in %d plies" % MAX_PLIES)
            self.assert_running_seat(st, seat, True)
            self.assertEqual(st["ply"], str(plies))
            if not phone_checked and plies >= 6:
                self.check_phone(tab, urls[seat])
                phone_checked = True
                st = tab.state()
            if not illegal_tried:
                self.check_illegal(tab, urls[seat], tabs[other[seat]], urls[other[seat]], st, seat)
                illegal_tried = True
                st = tab.state()
            move, dest, letter = self.play_one(tab, st, seat, rng)
            plies += 1
            after = tab.state()
            self.assertIsNone(after["error"], "move %r refused: %r" % (move, after["error"]))
            self.assertEqual(after["history"][-1].split(" (")[0].lower()[:9], move.lower()[:9])
            # The other seat's tab, reloaded, shows the piece on its destination.
            peer = tabs[other[seat]]
            peer.goto(urls[other[seat]])
            seen = peer.state()
            shown = seen["board"][sq(dest)]
            expect = {letter}
            if letter in "Ss":  # promotion on the last row
                expect.add("O" if letter == "S" else "o")
            self.assertIn(shown, expect, "after %s the %s tab shows %r on [%s]" %
                          (move, other[seat], shown, sq(dest)))
            self.assertEqual(seen["history"], after["history"])
            if after["result"] is None:
                self.assert_running_seat(after, seat, False)
                self.assert_running_seat(seen, other[seat], True)
            seat = other[seat]
        # Both tabs show the end; neither can move any more.
        for s in ("South", "North"):
            tabs[s].goto(urls[s])
        south, north = tabs["South"].state(), tabs["North"].state()
        self.assertEqual(south["result"], north["result"])
        self.assertRegex(south["result"], r"(South|North) wins")
        self.assert_over(south, "wins")
        self.assert_over(north, "wins")
        self.assertTrue(phone_checked, "the game ended before the phone check")
        notes = " ".join(tabs["South"].js("[...document.querySelectorAll('ol.moves li .note')].map(n => n.textContent)"))
        self.report("whole game: %d plies, %s; %d captures, %d releases, %d promotions, %d completed" % (
            plies, south["result"], notes.count("captures"), notes.count("releases"), notes.count("promotes"),
            getattr(self, "placements_done", 0)))

    def test_3_draw(self):
        urls = self.create_game("Cy", "Di")
        tabs = self.open_seats(urls)
        tabs["South"].play("S 7 5 6 5")
        self.assertIsNone(tabs["South"].state()["error"])
        # North offers; South sees the offer and accepts.
        tabs["North"].goto(urls["North"])
        self.assertTrue(tabs["North"].state()["can_offer"])
        tabs["North"].click_draw("offer")
        st = tabs["North"].state()
        self.assertIsNone(st["error"], st)
        self.assertIn("North offers a draw", st["offer"] or "")
        self.assertFalse(st["can_accept"], "the offering side may not accept its own offer")
        tabs["South"].goto(urls["South"])
        st = tabs["South"].state()
        self.assertIn("North offers a draw", st["offer"] or "")
        self.assertTrue(st["can_accept"], st)
        tabs["South"].click_draw("accept")
        tabs["North"].goto(urls["North"])
        for s in ("South", "North"):
            st = tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assert_over(st, "drawn by agreement")
        self.report("draw")

    def test_4_resign(self):
        urls = self.create_game("Ed", "Flo")
        tabs = self.open_seats(urls)
        # North resigns while it is South's turn (resigning is allowed at any time).
        self.assertTrue(tabs["North"].state()["can_resign"])
        tabs["North"].resign()
        tabs["South"].goto(urls["South"])
        for s in ("South", "North"):
            st = tabs[s].state()
            self.assertIsNone(st["error"], st)
            self.assert_over(st, "South wins")
        self.report("resign")

    # Pieces of the whole game -----------------------------------------

    def play_one(self, tab, st, seat, rng):
        """Choose a legal move from the page, play it; complete it if it frees prisoners."""
        board = st["board"]
        mine = str.isupper if seat == "South" else str.islower
        theirs = str.islower if seat == "South" else str.isupper
        enemy_general = "g" if seat == "South" else "G"
        target = next(k for k, v in board.items() if v == enemy_general)
        tr, tc = map(int, target.split())
        # The enemy's prison squares, which hold my captured pieces.
        prisons = ("1 4", "1 6") if seat == "South" else ("9 4", "9 6")
        wins, frees, captures, closer, rest = [], [], [], [], []
        for text in st["legal"]:
            letter, frm, dest = parse_move(text)
            self.assertTrue(mine(board[sq(frm)]), "listed move %r starts on %r"
                            % (text, board[sq(frm)]))
            held = board[sq(dest)]
            if held == enemy_general:
                wins.append(text)
            elif sq(dest) in prisons and st["held"].get(sq(dest)) and not (held and theirs(held)):
                frees.append(text)
            elif held and theirs(held):
                captures.append(text)
            elif abs(dest[0] - tr) + abs(dest[1] - tc) < abs(frm[0] - tr) + abs(frm[1] - tc):
                closer.append(text)
            else:
                rest.append(text)
        if wins:
            pool = wins
        elif frees:
            pool = frees
        elif captures and rng.random() < 0.5:
            pool = captures
        elif closer and rng.random() < 0.5:
            pool = closer
        else:
            pool = frees + captures + closer + rest
        move = rng.choice(pool)
        letter, frm, dest = parse_move(move)
        piece = board[sq(frm)]
        tab.play(move)
        after = tab.state()
        if after["error"] and "placement" in after["error"]:
            # A listed prefix: the move frees prisoners, who need a square each.
            self.assertEqual(after["ply"], st["ply"], "a refused move changed the ply")
            m = re.search(r"for ([A-Za-z](?:, [A-Za-z])*) in that order", after["error"])
            self.assertIsNotNone(m, after["error"])
            rows = range(6, 10) if seat == "South" else range(1, 5)
            free = ["%d %d" % (r, c) for r in rows for c in range(1, 10)
                    if (r, c) not in ((1, 4), (1, 6), (9, 4), (9, 6))
                    and board["%d %d" % (r, c)] == "" and (r, c) != dest]
            parts = [move]
            for p in m.group(1).split(", "):
                parts.append("%s %s" % (p, free.pop(0)))
            move = " / ".join(parts)
            self.placements_done = getattr(self, "placements_done", 0) + 1
            tab.play(move)
        return move, dest, piece

    def check_illegal(self, tab, url, peer, peer_url, st, seat):
        """An illegal move is refused with #error, and nothing changes."""
        # A Soldier steps backward: never legal.
        soldier = "S" if seat == "South" else "s"
        frm = next(k for k, v in sorted(st["board"].items()) if v == soldier)
        r, c = map(int, frm.split())
        back = (r + 1, c) if seat == "South" else (r - 1, c)
        move = "%s %d %d %d %d" % (soldier, r, c, back[0], back[1])
        self.assertNotIn(move, st["legal"])
        tab.play(move)
        bad = tab.state()
        self.assertIsNotNone(bad["error"], "illegal %r was not refused" % move)
        self.assertTrue(bad["error"], bad)
        self.assertEqual(bad["board"], st["board"])
        self.assertEqual(bad["ply"], st["ply"])
        self.assertEqual(bad["history"], st["history"])
        self.assertIn("Your move", bad["turn"])
        self.assertEqual(tab.js("document.querySelector('input#move').value"), move,
                         "the refused move is kept in the input for correction")
        # Reloaded, the error is gone and still nothing changed; the other side still waits.
        tab.goto(url)
        again = tab.state()
        self.assertIsNone(again["error"])
        self.assertEqual(again["board"], st["board"])
        self.assertEqual(again["ply"], st["ply"])
        peer.goto(peer_url)
        self.assertNotIn("Your move", peer.state()["turn"])

    def check_phone(self, tab, url):
        """At a phone's size the board fits the screen; keep a screenshot in the temp dir."""
        tab.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844,
                                                        "deviceScaleFactor": 2, "mobile": True})
        try:
            tab.goto(url)
            box = tab.js("""(() => {
  const r = document.querySelector('table.board').getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, inner: window.innerWidth,
          doc: document.documentElement.clientWidth,
          scroll: document.documentElement.scrollWidth};
})()""")
            shot = tab.send("Page.captureScreenshot", {"format": "png"})
            png = base64.b64decode(shot["data"])
            self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
            with open(os.path.join(self.tmp, "game-phone.png"), "wb") as f:
                f.write(png)
            self.assertEqual(box["inner"], 390, box)
            self.assertGreaterEqual(box["left"], 0, box)
            self.assertLessEqual(box["right"], 390, "the board is wider than a phone: %r" % box)
        finally:
            tab.send("Emulation.clearDeviceMetricsOverride")
        tab.goto(url)

    def report(self, what):
        sys.stderr.write("  %s: %.1f s\n" % (what, time.monotonic() - self.t0))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: browser.py /path/to/rookery")
    ROOKERY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
