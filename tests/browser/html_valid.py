#!/usr/bin/env python3
"""html_valid.py - every kind of page the server renders, checked by an HTML validator.

usage: html_valid.py path/to/rookery [path/to/html-validate] [unittest options]

The real daemon on 127.0.0.1 (tests/harness), with mail into the
maildir beside its database (--reply-domain rook.test). For every variant of
GET /api/variants the test creates a game over the API, plays a few legal
moves (taken from legal_moves as the seat to move sees them; Cyvasse's hidden
setups first, each seat playing its listed default), offers a draw, sends a
bad move through the page's form, and resigns seats until the game is over.
It saves each page on the way to a temporary directory:

  the home page (choosing the game), and again with a form error; each variant's new game form
  (/new/{variant}), and again with form errors; the page of each variant's rules; the API's summary (/api);
  the "created" page after POST /games from the new game form, for each variant, and with a seat
  left open; that open game's public page with its join form (and the form's error), and its seat's page;
  each game's page for the public and for every seat (seat link from the create
  answer: /games/{id}?seat=TOKEN) at the start, after the moves and messages, with a draw
  offer pending, with a refused move, and once the game is over; a page of its
  record of moves (/games/{id}/moves);
  /me, its "link sent" and error forms, the sign-in page /me/{token} from the
  mail, and the list of games it opens; the address's mail page /mail/stop/{token}
  and its answer to a choice of mail; the lists of games /games (every section, one status and
  variant, its older games); error pages (400, 404, 401, 403).

Then it runs html-validate (npm, pinned by tests/browser/html_validator/package-lock.json,
installed by scripts/deps.sh test) over all of them with tests/browser/html_validator/.htmlvalidate.json
(html-validate:recommended; tests/browser/html_validator/README.md says which two rules it changes and why)
and fails on any error or warning, printing the validator's messages page by page
with the offending line. Without the validator the test fails and says how to install it.

The validator's path: the second argument, else $HTML_VALIDATE, else
tests/browser/html_validator/node_modules/.bin/html-validate. HTML_VALID_KEEP=1 keeps the saved pages.

Python standard library only (the validator is the one outside program).
"""
import email
import email.policy
import glob
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "html_validator", ".htmlvalidate.json")
VALIDATOR = os.environ.get("HTML_VALIDATE") or os.path.join(HERE, "html_validator", "node_modules", ".bin", "html-validate")
EMAIL = "val@players.test"
NAMES = ("Ann", "Ben", "Cleo", "Dan")
VALIDATE_TIMEOUT = 300


class Forms(html.parser.HTMLParser):
    """The forms of a page: action -> {field name: value} of its hidden inputs."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.forms = {}
        self.current = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.current = self.forms.setdefault(a.get("action") or "", {})
        elif tag == "input" and self.current is not None and a.get("type") == "hidden" and a.get("name"):
            self.current[a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


def validator_missing():
    if os.access(VALIDATOR, os.X_OK):
        return None
    return (f"html_valid: the HTML validator is not installed ({VALIDATOR} is missing).\n"
            "Install it with `sh scripts/deps.sh test` (Debian's nodejs and npm, then\n"
            "`npm ci` in tests/browser/html_validator), or point HTML_VALIDATE at an html-validate executable.")


class HtmlValidTests(daemon.DaemonCase):
    maxDiff = None
    daemon_args = ("--reply-domain", "rook.test")

    def setUp(self):
        self.pages = []      # (label, request, file name)
        self.dir = tempfile.mkdtemp(prefix="rookery-html-")
        if os.environ.get("HTML_VALID_KEEP"):
            print(f"the pages are kept in {self.dir}")
        else:
            self.addCleanup(shutil.rmtree, self.dir, True)
        self.notes = []

    # ---- collecting pages ----

    def hide(self, text):
        """The text with seat and sign-in tokens replaced, for labels."""
        for tok, name in self.token_names.items():
            text = text.replace(tok, f"<{name}>")
        return re.sub(r"/me/[A-Za-z0-9_-]{20,}", "/me/<sign-in token>", text)

    def keep(self, label, method, path, r, status):
        """Save the page r answered to method path, after checking its status and type."""
        where = f"{method} {self.hide(path)}"
        self.assertEqual(r.status, status, f"{label}: {where} answered {r.status}: {r.text[:500]}")
        ctype = r.header("Content-Type") or ""
        self.assertTrue(ctype.startswith("text/html"), f"{label}: {where} is {ctype!r}, not HTML")
        slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:80]
        name = f"{len(self.pages):03d}-{slug}.html"
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(r.body)
        self.pages.append((label, where, name))
        return r.text

    def get_page(self, label, path, status=200):
        return self.keep(label, "GET", path, self.d.get(path), status)

    def post_page(self, label, path, fields, status, origin=None):
        """Post a form; those of the new game form, /me and a sign-in page with their page's form token."""
        if path == "/games" or path.startswith("/me"):
            # The new game form of the game posted (any game's when there is no such game).
            variant = fields.get("variant") if isinstance(fields, dict) else None
            page = (f"/new/{variant}" if variant in self.variant_ids else "/new/nchess") if path == "/games" else path
            r = self.d.post_page_form(path, fields, page=page, origin=origin)
        else:
            r = self.d.post_form(path, fields, origin=origin)     # a seat's form: the fields hold its token
        return self.keep(label, "POST", path, r, status)

    # ---- playing ----

    def new_game(self, variant):
        seats = [{"name": n} for n in NAMES[:len(variant["seats"])]]
        seats[0]["email"] = EMAIL
        # With a clock, so that its part of the page and the give-time form are checked too.
        r = self.d.post("/api/games", {"variant": variant["id"], "seats": seats,
                                       "clock": {"type": "bank", "days": 3, "increment_days": 1, "max_days": 5}})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        links = {}
        for s in g["seats"]:
            self.d.secrets.add(s["token"])
            self.token_names[s["token"]] = f"{s['seat']} token"
            u = urllib.parse.urlsplit(s["url"])
            links[s["seat"]] = (s["token"], u.path + "?" + u.query)
        return g["id"], links

    def play_one(self, gid, links, set_up):
        """A seat in turn plays a legal move: the first one the server accepts.

        A hidden setup (Cyvasse) may be replaced until all are in: a seat in set_up
        has played its own, and another seat in turn goes instead."""
        g = self.d.game(gid)
        for seat in g["turn"]:
            token = links[seat][0]
            view = self.d.game(gid, token=token)
            if seat not in set_up or not all(m.startswith("setup ") for m in view["legal_moves"]):
                break
        else:
            self.fail(f"every seat in turn in {gid} has played its setup: {g['turn']}")
        partial = {m["move"] for m in view.get("legal", []) if m.get("partial")}
        moves = [m for m in view["legal_moves"] if m not in partial] or view["legal_moves"]
        self.assertTrue(moves, f"{seat} is to move in {gid} but has no legal move: {view}")
        for m in moves[:20]:
            r = self.d.move(gid, token, m, view["ply"])
            if r.status == 201:
                if m.startswith("setup "):
                    set_up.add(seat)
                return seat, m
        self.fail(f"none of {seat}'s legal moves {moves[:20]} was accepted in {gid}: {r}")

    def seat_pages(self, title, gid, links, when):
        self.get_page(f"{title} game, public, {when}", f"/games/{gid}")
        for seat, (_, path) in links.items():
            self.get_page(f"{title} game, {seat}'s seat, {when}", path)

    def form_fields(self, page, action, what):
        fields = Forms(page).forms.get(action)
        if fields is None:
            self.notes.append(f"no form for {action} on {what}: that page's error state is not checked")
        return fields

    # ---- the test ----

    def test_every_page_validates(self):
        missing = validator_missing()
        if missing:
            self.fail(missing)
        self.token_names = {}
        d = self.d
        variants = d.get("/api/variants").json()["variants"]
        self.assertTrue(variants)
        self.variant_ids = {v["id"] for v in variants}

        self.get_page("home", "/")
        self.get_page("the API contract's summary", "/api")
        self.post_page("home with a form error (unknown variant)", "/games", {"variant": "no-such-game"}, 422)
        self.post_page("new game form with an error (another site)", "/games", {"variant": variants[0]["id"]}, 403,
                       origin="https://elsewhere.example")
        self.keep("new game form with an error (no form token)", "POST", "/games",
                  d.post_form("/games", {"variant": variants[0]["id"]}), 403)
        self.post_page("new game form with an error (a bad clock), the choices kept", "/games",
                       {"variant": variants[0]["id"], "name0": "Ann", "email0": EMAIL, "open1": "1",
                        "clock": "bank", "days": "2", "max_days": "1"}, 422)
        origin = f"http://127.0.0.1:{d.port}"
        for v in variants:
            title = v["title"]
            self.get_page(f"{title} rules", v["rules_url"])
            self.get_page(f"{title} new game form", f"/new/{v['id']}")
            # The address holds two seats: "Your move" and "Waiting for the others" in my games.
            fields = {"variant": v["id"], "name0": "Ann", "email0": EMAIL, "email1": EMAIL}
            text = self.post_page(f"{title} game created from the new game form", "/games", fields, 201, origin=origin)
            d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", text))

            gid, links = self.new_game(v)
            self.seat_pages(title, gid, links, "at the start")
            # Hidden setups first (Cyvasse), then two moves.
            played, set_up = 0, set()
            while played < 2:
                seat, move = self.play_one(gid, links, set_up)
                if not move.startswith("setup "):
                    played += 1
                elif len(set_up) == 1:
                    # One setup in, the others still to come: the page in between.
                    self.get_page(f"{title} game, {seat}'s seat, after its setup", links[seat][1])
            # Messages, to all and to one seat: the seats' pages below list those each may read.
            for to in (None, list(links)[1]):
                r = d.post(f"/api/games/{gid}/messages", {"text": "Hello <all> & co.\nA second line.", "to": to},
                           token=links[list(links)[0]][0])
                self.assertEqual(r.status, 201, r)
            self.seat_pages(title, gid, links, "after a few moves")
            # The line editor of conditional moves, of a seat waiting for another: empty, then one move in.
            turn = d.game(gid)["turn"]
            waiting = [s for s in links if s not in turn]
            if waiting and len(turn) == 1:
                path = links[waiting[0]][1]
                text = self.get_page(f"{title} game, {waiting[0]}'s line editor", path + "&line=")
                first = re.search(r'data-move="([^"]+)"', text)
                self.assertTrue(first, f"the line editor of {title} offers no move")
                self.get_page(f"{title} game, {waiting[0]}'s line editor, one move in",
                              path + "&line=&move=" + urllib.parse.quote(html.unescape(first.group(1))))

            # A draw offer: the offering seat's page and another's.
            seats = list(links)
            r = d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=links[seats[0]][0])
            self.assertEqual(r.status, 200, r)
            self.get_page(f"{title} game, {seats[0]}'s seat, own draw offer pending", links[seats[0]][1])
            self.get_page(f"{title} game, {seats[1]}'s seat, draw offered", links[seats[1]][1])
            r = d.post(f"/api/games/{gid}/draw", {"action": "withdraw"}, token=links[seats[0]][0])
            self.assertEqual(r.status, 200, r)

            # A refused move through the form, shown again with the error and the typed text.
            turn = d.game(gid)["turn"][0]
            page = d.get(links[turn][1]).text
            fields = self.form_fields(page, f"/games/{gid}/move", f"{title}'s {turn} page")
            if fields is not None:
                self.post_page(f"{title} game, {turn}'s seat, a refused move", f"/games/{gid}/move",
                               {**fields, "move": "<b>nonsense</b>"}, 422)
            fields = self.form_fields(page, f"/games/{gid}/resign", f"{title}'s {turn} page")
            if fields is not None:
                self.post_page(f"{title} game, {turn}'s seat, resigning unconfirmed", f"/games/{gid}/resign",
                               fields, 400)
                self.post_page(f"{title} game, form from an old page (403)", f"/games/{gid}/resign",
                               {**fields, "csrf": "f" * 64, "confirm": "yes"}, 403)

            # Resign seats until the game is over.
            for seat in seats[1:]:
                if d.game(gid)["status"] != "running":
                    break
                r = d.post(f"/api/games/{gid}/resign", {}, token=links[seat][0])
                self.assertEqual(r.status, 200, r)
            self.assertNotEqual(d.game(gid)["status"], "running", "resigning did not end the game")
            self.get_page(f"{title} game over, public", f"/games/{gid}")
            self.get_page(f"{title} game over, {seats[0]}'s seat", links[seats[0]][1])
            self.get_page(f"{title} record of moves, a middle page", f"/games/{gid}/moves?from=1&limit=1")

        # The lists of games: every section, one status and variant with its "Older games" link,
        # and the page it leads to.
        self.get_page("games: the lists", "/games")
        self.get_page("games: one variant", f"/games?variant={variants[0]['id']}")
        text = self.get_page("games: finished, a page of one", "/games?status=finished&limit=1")
        older = re.search(r'<a href="([^"]+)" rel="next">Older games</a>', text)
        self.assertTrue(older, "the list of games links no older ones")
        self.get_page("games: older games", html.unescape(older.group(1)))
        self.get_page("error: a bad list of games (400)", "/games?status=nonsense", 400)

        # The one invitation the address got (Rookery mails it nothing else until its owner acts):
        # the seat page its link opens offers "Send me mail about this game"; the owner presses it.
        # And the page that every mail's List-Unsubscribe link opens.
        [inv] = [m for m in d.maildir_mails() if ".invite@" in m["Message-ID"]]
        gid = inv["Message-ID"][1:].split(".")[0]
        link = urllib.parse.urlsplit(daemon.SEAT_LINK_IN_MAIL.search(inv.get_body(("plain",)).get_content()).group(1))
        self.token_names[link.query.split("seat=")[1]] = "invitation's seat link"
        page = self.get_page("game, seat page opened by the invitation's link", link.path + "?" + link.query)
        self.assertIn(f'action="/games/{gid}/mail"', page)
        self.assertEqual(d.ask_for_mail(gid, link.query).status, 303)
        self.get_page("mail settings of an address (List-Unsubscribe)",
                      urllib.parse.urlsplit(str(inv["List-Unsubscribe"]).strip("<>")).path)

        # My games: the form, its answers, the sign-in link from the mail, the list.
        self.get_page("my games", "/me")
        self.post_page("my games, bad address", "/me", {"email": "not an address"}, 400)
        self.post_page("my games, link sent", "/me", {"email": EMAIL}, 200)
        link = self.signin_link()
        self.get_page("my games, sign-in page", link)
        text = self.post_page("my games, the list", link, "", 200)
        d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", text))
        # The address's mail page, where the list's form of how much mail posts.
        stop = re.search(r'action="(/mail/stop/[^"]+)"', text).group(1)
        self.get_page("mail page of an address", stop)
        csrf = re.search(r'action="/mail/stop/[^"]+">\s*<input type="hidden" name="csrf" value="([0-9a-f]+)"',
                         text).group(1)
        self.post_page("mail page, a digest chosen", stop,
                       {"csrf": csrf, "action": "mail_mode", "mode": "digest", "hour": "7"}, 200, origin=d.base)
        self.post_page("my games, link sent to an address without games", "/me", {"email": "nobody@players.test"}, 200)

        # An open game: the created page with an open seat, its public page with the join form (and
        # that form's error), its one seat's page while it waits.
        text = self.post_page("created, a seat left open", "/games",
                              {"variant": "nchess", "name0": "Ann", "name1": "", "open1": "1"}, 201, origin=d.base)
        open_gid, token = re.search(r"/games/([a-z0-9]+)\?seat=([A-Za-z0-9_-]+)", text).groups()
        d.secrets.add(token)
        self.token_names[token] = "open game's South token"
        self.get_page("open game, public, with the join form", f"/games/{open_gid}")
        self.get_page("open game, the seat taken at creation", f"/games/{open_gid}?seat={token}")
        r = d.post_page_form(f"/games/{open_gid}/join", {"seat": "North", "name": ""}, page=f"/games/{open_gid}",
                             origin=d.base)
        self.keep("open game, join form error", "POST", f"/games/{open_gid}/join", r, 400)

        # Error pages.
        self.get_page("error: no such game (404)", "/games/nosuchgame12", 404)
        self.get_page("error: no such rules (404)", "/rules/no-such-game", 404)
        self.get_page("error: a bad page of moves (400)", f"/games/{gid}/moves?from=-1", 400)
        self.get_page("error: no such sign-in link (404)", "/me/" + "A" * 32, 404)
        self.get_page("error: a wrong seat link (401)", f"/games/{gid}?seat={'A' * 32}", 401)

        self.validate()

    def signin_link(self, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for path in sorted(glob.glob(os.path.join(self.d.workdir, "mail", "new", "*"))):
                with open(path, "rb") as f:
                    m = email.message_from_bytes(f.read(), policy=email.policy.default)
                if m["Subject"] == "[Rookery] Your games":
                    found = re.search(r"http://\S+(/me/[A-Za-z0-9_-]+)", m.get_body(("plain",)).get_content())
                    self.assertIsNotNone(found, "no link in the sign-in mail")
                    return found.group(1)
            time.sleep(0.1)
        self.fail(f"no sign-in mail for {EMAIL} within {timeout}s")

    # ---- validating ----

    def validate(self):
        files = [name for _, _, name in self.pages]
        # The report goes to a file: node may cut a long output to a pipe short when it exits.
        out = os.path.join(self.dir, "report.json")
        cmd = [VALIDATOR, "--config", CONFIG, "--formatter", "json=" + out] + files
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True, timeout=VALIDATE_TIMEOUT,
                           stdin=subprocess.DEVNULL)
        try:
            with open(out, encoding="utf-8") as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            self.fail(f"html-validate wrote no report ({e}; exit {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        if r.returncode not in (0, 1):
            self.fail(f"html-validate failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
        by_file = {os.path.basename(x["filePath"]): x["messages"] for x in results}
        report, rules, bad = [], {}, 0
        for label, where, name in self.pages:
            messages = by_file.get(name, [])
            if not messages:
                continue
            bad += 1
            with open(os.path.join(self.dir, name), encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            report.append(f"\n=== {label}: {where} ({len(messages)} messages)")
            for m in messages:
                kind = "error" if m.get("severity") == 2 else "warning"
                line, col = m.get("line", 0), m.get("column", 0)
                report.append(f"  {line}:{col} {kind} [{m.get('ruleId')}] {m.get('message')}")
                if 0 < line <= len(lines):
                    src = self.hide(lines[line - 1].strip())
                    report.append(f"      | {src[:240]}{'...' if len(src) > 240 else ''}")
                rules.setdefault((m.get("ruleId"), m.get("message")), set()).add(label)
        for n in self.notes:
            print("note:", n)
        print(f"html-validate checked {len(self.pages)} pages: {bad} with messages")
        if r.returncode != 0 and not bad:
            self.fail(f"html-validate exit {r.returncode} without messages:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
        if bad:
            summary = [f"  {len(pages):3d} pages: [{rule}] {msg}" for (rule, msg), pages in
                       sorted(rules.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))]
            self.fail(f"{bad} of {len(self.pages)} pages are not valid HTML:\n" + "\n".join(report)
                      + "\n\nIn short:\n" + "\n".join(summary))


def use_tool(path):
    global VALIDATOR
    if path:
        VALIDATOR = path
    return validator_missing()


if __name__ == "__main__":
    sys.exit(daemon.main_with_tool(__doc__, use_tool))
