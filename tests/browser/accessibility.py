#!/usr/bin/env python3
"""accessibility.py - every kind of page of every game checked for WCAG 2.1 AA, and a game followed by ear.

Usage: accessibility.py /path/to/rookery [path/to/axe.min.js] [unittest options]

Headless Chromium (tests/harness/cdp.py) on the real daemon. Each page is loaded as a browser
loads it, with the page's Content-Security-Policy in force (the test checks that an inline script
stays blocked); axe-core's source is then run in the page through the DevTools protocol
(Runtime.evaluate, which the page's policy does not govern), and axe.run with the WCAG 2.0 and 2.1
A and AA rules. Any violation fails the test, listed by page, rule id and the elements concerned.

The pages, for every game of GET /api/variants: the home page; the new game form (/new/{variant})
and the "created" page it leads to (the game is created through the form); the game page of a
spectator and of every seat at the start (one seat to move, the others waiting), after a few moves
and messages, with a draw offer pending, with a refused move, and once the game is over; the line
editor of conditional moves; the record of moves; the rules page. Once: the form sent back with an
error, /me with its answers, the sign-in page from the mail and the list of games it opens, the
mail settings page of an address (List-Unsubscribe) and its answer, an error page, and /games and
/api when the server has them.

Screen readers: the board's text alternative (#board-text, which the board's aria-describedby names)
lists every piece on the board under its army with its square; the live region #announce (outside
the part of the page a live update replaces) says "North played ..." when another client's move
arrives through the event stream, a draw offer, and the result when the game ends.

axe-core comes from npm, pinned by tests/browser/axe/package-lock.json and installed by
`sh scripts/deps.sh test`; its path is the second argument, else $AXE_JS, else
tests/browser/axe/node_modules/axe-core/axe.min.js. Without it the test fails and says how to install it.
AXE_VARIANTS=nchess,cyvasse checks the pages of those games only (while working on them).

Python 3 standard library only.
"""

import email
import email.policy
import glob
import json
import os
import re
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import cdp, daemon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
AXE = os.environ.get("AXE_JS") or os.path.join(HERE, "axe", "node_modules", "axe-core", "axe.min.js")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
NAMES = ("Ann", "Ben", "Cleo", "Dan")
EMAIL = "axe@players.test"
LIVE_TIMEOUT = 15.0

RUN_AXE = """axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']})
  .then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                              why: (n.failureSummary || '').replace(/\\s+/g, ' ')}))})))""" % json.dumps(TAGS)

# An inline script added to the page: it runs only if the page's policy were relaxed.
INLINE_SCRIPT_JS = """(() => { const s = document.createElement('script'); s.textContent = 'window.inlineRan = true';
  document.body.appendChild(s); s.remove(); return window.inlineRan === true; })()"""

# The drawn board's pieces: [{square, side}] of svg#board, and its text alternative.
BOARD_TEXT_JS = """(() => {
  const svg = document.getElementById('board'), alt = document.getElementById('board-text');
  if (!svg) return null;
  return {describedby: svg.getAttribute('aria-describedby'), text: alt ? alt.textContent : null,
    pieces: [...svg.querySelectorAll('g.sq[data-square] > g.pc')].map(p => ({square: p.parentNode.getAttribute('data-square'),
      side: [...p.classList].find(c => c.startsWith('side-')).slice(5)}))};
})()"""

# What the console says of INLINE_SCRIPT_JS's script, which the policy blocks.
CSP_BLOCKED = r"Executing inline script violates the following Content Security Policy"

ANNOUNCE_JS = "(document.getElementById('announce') || {textContent: null}).textContent"


def axe_missing():
    if os.path.isfile(AXE):
        return None
    return (f"accessibility: axe-core is not installed ({AXE} is missing).\n"
            "Install it with `sh scripts/deps.sh test` (`npm ci` in tests/browser/axe), or point AXE_JS at axe.min.js.")


class Accessibility(cdp.BrowserTestCase):
    PREFIX = "rookery-axe-"

    def setUp(self):
        super().setUp()
        missing = axe_missing()
        if missing:
            self.fail(missing)
        with open(AXE, encoding="utf-8") as f:
            self.axe_source = f.read()
        self.tab = self.new_tab()
        self.tab.set_viewport(1200, 900)
        self.checked, self.violations = [], []

    # ---- checking a page ----

    def check(self, label):
        """Run axe on the tab's page as it is now; note its violations under label."""
        tab = self.tab
        self.assertFalse(tab.js(INLINE_SCRIPT_JS), f"{label}: an inline script ran: the page's policy is not in force")
        if not tab.js("typeof axe === 'object'"):
            tab.js(self.axe_source + "\n;true")
        found = tab.js(RUN_AXE)
        self.assertIsInstance(found, list, f"{label}: axe gave no answer")
        self.checked.append(label)
        for v in found:
            self.violations.append((label, self.hide(tab.url()), v))

    def visit(self, label, path):
        self.tab.goto(path if path.startswith("http") else self.base + path)
        self.check(label)

    def act(self, label, script, refused=False):
        """Submit a form of the page by script and check the page it leads to (refused: a page
        saying why the form was refused is expected)."""
        if refused:
            before = self.tab.load_count()
            self.tab.js(script)
            self.tab.b.wait_load(self.tab.session, before)
            self.assertTrue(self.tab.js("!!document.querySelector('.error')"), f"{label}: the form was not refused")
        else:
            self.tab.act(script)
        self.check(label)

    def hide(self, text):
        return re.sub(r"(seat=|/me/|/mail/stop/)[A-Za-z0-9_-]{16,}", r"\1<token>", text)

    def report(self):
        print(f"axe checked {len(self.checked)} pages: {len(self.violations)} violations")
        if not self.violations:
            return
        lines, rules = [], {}
        for label, url, v in self.violations:
            lines.append(f"\n=== {label} ({url}): [{v['id']}] {v['help']} ({v['impact']})")
            for n in v["nodes"][:8]:
                lines.append(f"  {n['target']}\n      {n['html']}\n      {n['why'][:300]}")
            if len(v["nodes"]) > 8:
                lines.append(f"  ... and {len(v['nodes']) - 8} more elements")
            rules.setdefault(v["id"], set()).add(label)
        summary = [f"  [{rule}] on {len(pages)} pages" for rule, pages in sorted(rules.items())]
        self.fail(f"{len(self.violations)} accessibility violations on {len({l for l, _, _ in self.violations})} "
                  f"of {len(self.checked)} pages:" + "".join("\n" + x for x in lines) + "\n\nIn short:\n" + "\n".join(summary))

    # ---- the API, as another client ----

    def play_one(self, gid, tokens, set_up):
        """A seat in turn plays a legal move the server accepts (Cyvasse's seats their setups
        once each); returns (seat, canonical move)."""
        g = self.api(f"/api/games/{gid}")
        for seat in g["turn"]:
            view = self.api(f"/api/games/{gid}", token=tokens[seat])
            if seat not in set_up or not all(m.startswith("setup ") for m in view["legal_moves"]):
                break
        partial = {m["move"] for m in view.get("legal", []) if m.get("partial")}
        for m in [m for m in view["legal_moves"] if m not in partial][:20]:
            status, _ = self.api_status(f"/api/games/{gid}/moves", {"move": m, "ply": view["ply"]}, tokens[seat])
            if status == 201:
                if m.startswith("setup "):
                    set_up.add(seat)
                return seat, self.api(f"/api/games/{gid}/moves?from={view['ply']}&limit=1")["moves"][-1]["move"]
        self.fail(f"no legal move of {seat} was accepted in {gid}")

    def mails(self):
        out = []
        for path in sorted(glob.glob(os.path.join(self.tmp, "db-*", "mail", "new", "*"))):
            with open(path, "rb") as f:
                out.append(email.message_from_bytes(f.read(), policy=email.policy.default))
        return out

    def wait_mail(self, pred, what):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = [m for m in self.mails() if pred(m)]
            if found:
                return found[0]
            time.sleep(0.1)
        self.fail(f"no {what} mail within 20 s: " + ", ".join(str(m["Subject"]) for m in self.mails()))

    # ---- the pages of one game ----

    def create_through_form(self, v, with_email):
        """Choose v on the home page, fill in its form: the created page; returns (game id, {seat: (token, url)})."""
        self.tab.goto(self.base + "/")
        self.tab.act("document.querySelector('a.game-pick[href=\"/new/%s\"]').click()" % v["id"])
        self.check(f"{v['title']}: new game form")
        names = NAMES[:len(v["seats"])]
        self.act(f"{v['title']}: game created", """(() => {
  const f = document.querySelector('form.create');
  %s.forEach((n, i) => { f.querySelector('input[name=name' + i + ']').value = n; });
  if (%s) f.querySelector('input[name=email0]').value = %s;
  f.querySelector('button[type=submit]').click();
})()""" % (json.dumps(names), json.dumps(with_email), json.dumps(EMAIL)))
        links = self.tab.js("[...document.querySelectorAll('ul.links li')].map(li => [li.querySelector('strong').textContent,"
                            " li.querySelector('a').href])")
        self.assertEqual([s for s, _ in links], v["seats"], links)
        seats = {}
        for seat, url in links:
            u = urllib.parse.urlsplit(url)
            seats[seat] = (urllib.parse.parse_qs(u.query)["seat"][0], u.path + "?" + u.query)
        return u.path.split("/")[2], seats

    def seat_pages(self, title, gid, seats, when):
        self.visit(f"{title}: spectator, {when}", f"/games/{gid}")
        turn = self.api(f"/api/games/{gid}")["turn"]
        for seat, (_, path) in seats.items():
            self.visit(f"{title}: {seat}, {'to move' if seat in turn else 'waiting'}, {when}", path)

    def game_pages(self, v, with_email):
        title = v["title"]
        gid, seats = self.create_through_form(v, with_email)
        tokens = {s: t for s, (t, _) in seats.items()}
        self.seat_pages(title, gid, seats, "at the start")
        if with_email:
            # The seat page the invitation's link opens, where its owner asks for mail (as the owner
            # of an address must before Rookery mails it more than the invitation).
            inv = self.wait_mail(lambda m: ".invite@" in (m["Message-ID"] or ""), "invitation")
            link = urllib.parse.urlsplit(daemon.SEAT_LINK_IN_MAIL.search(inv.get_body(("plain",)).get_content()).group(1))
            self.visit(f"{title}: seat page opened by the invitation", link.path + "?" + link.query)
            self.act(f"{title}: seat page, mail asked for", "document.querySelector('form[action$=\"/mail\"] button').click()")
        played, set_up = 0, set()
        while played < 2:
            _, move = self.play_one(gid, tokens, set_up)
            played += not move.startswith("setup ")
        first = v["seats"][0]
        for to in (None, v["seats"][1]):
            status, _ = self.api_status(f"/api/games/{gid}/messages", {"text": "Hello <all>", "to": to}, tokens[first])
            self.assertEqual(status, 201)
        self.seat_pages(title, gid, seats, "after moves and messages")
        self.check_board_text(title, gid)

        turn = self.api(f"/api/games/{gid}")["turn"]
        waiting = [s for s in v["seats"] if s not in turn]
        if waiting and len(turn) == 1:
            self.visit(f"{title}: line editor of conditional moves", seats[waiting[0]][1] + "&line=")
        self.assertEqual(self.api_status(f"/api/games/{gid}/draw", {"action": "offer"}, tokens[first])[0], 200)
        self.visit(f"{title}: a draw offered", seats[v["seats"][1]][1])
        self.assertEqual(self.api_status(f"/api/games/{gid}/draw", {"action": "withdraw"}, tokens[first])[0], 200)

        # A refused move, through the page's form.
        self.tab.goto(self.base + seats[turn[0]][1])
        self.act(f"{title}: a refused move", """(() => {
  const i = document.querySelector('input#move'); i.value = 'no such move';
  i.form.querySelector('button[type=submit]').click(); })()""")
        self.assertTrue(self.tab.js("!!document.getElementById('error')"), "the refused move shows no error")

        self.visit(f"{title}: the record of moves", f"/games/{gid}/moves")
        self.visit(f"{title}: rules", v["rules_url"])
        for seat in v["seats"][1:]:
            if self.api(f"/api/games/{gid}")["status"] != "running":
                break
            self.assertEqual(self.api_status(f"/api/games/{gid}/resign", {}, tokens[seat])[0], 200)
        self.assertEqual(self.api(f"/api/games/{gid}")["status"], "over")
        self.visit(f"{title}: spectator, game over", f"/games/{gid}")
        self.visit(f"{title}: {first}, game over", seats[first][1])

    def check_board_text(self, title, gid):
        """The spectator's page: #board-text, named by the board's aria-describedby, lists each
        piece drawn on the board under its army, with its square."""
        self.tab.goto(f"{self.base}/games/{gid}")
        b = self.tab.js(BOARD_TEXT_JS)
        self.assertEqual(b["describedby"], "board-text", title)
        self.assertTrue(b["text"] and b["text"].endswith("."), (title, b["text"]))
        sections = {}
        for part in b["text"][:-1].split("; "):
            label, _, items = part.partition(": ")
            sections[label] = items.split(", ")
        armies = {}
        for p in b["pieces"]:
            armies.setdefault(p["side"], []).append(p["square"])
        for side, squares in armies.items():
            items = sections.get({"none": "of no side"}.get(side, side), [])
            if side == "shared":
                items = [i for k, v in sections.items() if k.startswith("shared by") for i in v]
            self.assertEqual(len(items), len(squares), f"{title}: {side}'s pieces in {b['text']!r}")
            for sq in squares:
                self.assertTrue(any(re.fullmatch(r"\S.* " + re.escape(sq), i) for i in items),
                                f"{title}: {side}'s piece on {sq} is not in {b['text']!r}")

    # ---- the test ----

    def test_every_page_kind(self):
        variants = self.api("/api/variants")["variants"]
        if os.environ.get("AXE_VARIANTS"):
            variants = [v for v in variants if v["id"] in os.environ["AXE_VARIANTS"].split(",")]
        self.visit("home", "/")
        for i, v in enumerate(variants):
            self.game_pages(v, with_email=i == 0)

        # The new game form sent back with an error, the choices kept.
        self.tab.goto(self.base + "/new/" + variants[0]["id"])
        self.act("new game form with an error", """(() => {
  const f = document.querySelector('form.create');
  f.querySelector('select[name=clock]').value = 'bank';
  f.querySelector('input[name=days]').value = '2'; f.querySelector('input[name=max_days]').value = '1';
  f.querySelector('button[type=submit]').click(); })()""", refused=True)
        self.assertEqual(self.tab.js("document.querySelector('input[name=max_days]').value"), "1", "the choices are kept")
        # My games: the form, its answer, the sign-in page from the mail, the list it opens.
        self.visit("my games", "/me")
        self.act("my games, link sent", """(() => { const f = document.querySelector('form[action="/me"]');
  f.querySelector('input[name=email]').value = %s; f.querySelector('button[type=submit]').click(); })()""" % json.dumps(EMAIL))
        signin = self.wait_mail(lambda m: m["Subject"] == "[Rookery] Your games", "sign-in")
        link = re.search(r"http://\S+(/me/[A-Za-z0-9_-]+)", signin.get_body(("plain",)).get_content()).group(1)
        self.visit("my games, sign-in page", link)
        self.act("my games, the list", "document.querySelector('form button[type=submit]').click()")
        # The mail settings of the address (every mail's List-Unsubscribe), and a choice made there.
        inv = self.wait_mail(lambda m: ".invite@" in (m["Message-ID"] or ""), "invitation")
        self.visit("mail settings of an address", urllib.parse.urlsplit(str(inv["List-Unsubscribe"]).strip("<>")).path)
        self.act("mail settings, a choice made", """(() => {
  const r = document.querySelector('input[name=mode][value=digest]'); r.checked = true;
  r.form.querySelector('button[type=submit]').click(); })()""")
        self.visit("error page (no such game)", "/games/nosuchgame12")
        # Pages that other parts of the site may add: checked when the server has them.
        for path, label in (("/games", "list of games"), ("/api", "the API's summary")):
            if self.api_status(path)[0] == 200:
                self.visit(label, path)
        self.report()
        # The refused forms (422) and the error page (404) are meant.
        self.assert_no_console_errors(ignore=(CSP_BLOCKED, r"status of (422|404) .*/games"))

    def wait_announced(self, want):
        try:
            self.tab.wait_for(ANNOUNCE_JS + " === " + json.dumps(want), timeout=LIVE_TIMEOUT)
        except cdp.WaitTimeout:
            self.fail(f"the page did not announce {want!r}: {self.tab.js(ANNOUNCE_JS)!r}")

    def test_moves_are_announced(self):
        """A spectator's page says each move another client makes, a draw offer and the result, in its live region."""
        g = self.api("/api/games", {"variant": "nchess", "seats": [{"name": "Ann"}, {"name": "Ben"}]})
        gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
        tab = self.tab
        tab.goto(f"{self.base}/games/{gid}")
        tab.wait_for("document.documentElement.getAttribute('data-live') === 'open'")
        self.assertEqual(tab.js(ANNOUNCE_JS), "")
        self.assertTrue(tab.js("!document.getElementById('game').contains(document.getElementById('announce'))"),
                        "the live region must outlive the part of the page that updates replace")
        self.assertEqual(tab.js("document.getElementById('announce').getAttribute('aria-live')"), "polite")
        for ply in (0, 1):
            seat, move = self.play_one(gid, tokens, set())
            self.wait_announced(f"{seat} played {move}.")
        self.assertEqual(self.api_status(f"/api/games/{gid}/draw", {"action": "offer"}, tokens["South"])[0], 200)
        self.wait_announced("South offers a draw.")
        self.assertEqual(self.api_status(f"/api/games/{gid}/resign", {}, tokens["North"])[0], 200)
        self.wait_announced("Game over: South wins: North resigned")
        # Its words are those of the page's last move and result, in the text alternative too.
        self.check("nchess: spectator, after live updates")
        self.report()
        self.assert_no_console_errors(ignore=(CSP_BLOCKED,))


def use_tool(path):
    global AXE
    if path:
        AXE = path
    return axe_missing()


if __name__ == "__main__":
    sys.exit(daemon.main_with_tool(__doc__, use_tool))
