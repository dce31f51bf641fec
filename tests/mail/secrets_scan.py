#!/usr/bin/env python3
"""secrets_scan.py - no usable secret at rest or in the log: the token scan, one-time sign-in links, the sweep.

usage: python3 tests/mail/secrets_scan.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

The scan plays games with email addresses against the real daemon and a real SMTP server (the
helpers of tests/harness/smtp.py): the players ask for mail through their invitations' seat links (until
an address's owner acts, Rookery sends it the invitation only; one address never acts), moves
through the API and by mail, draw offers, a resignation, a sign-in through /me used once, an
unsubscribe page opened. It collects every token the test is ever given: in each HTTP answer
(seat links, the creator's seat tokens, sign-in links, form tokens, the form cookie, any other
32-character token) and in each mail (seat links, /me links, reply addresses play+...@...,
unsubscribe links /mail/stop/...). Once the outbox is drained and the daemon has stopped cleanly,
it searches every file the daemon left (the database and any -wal or -shm, the maildir, its
log), a dump of every table, the outbox's mails decoded and the log of `rookery mail-in`, for
each token (and any half of one, which a quoted-printable line break cannot split). Nothing
the test was given may be in a log. At rest, a seat or sign-in token must no longer work (asked
of the server); an unsubscribe link works for ever, so it must not be there at all (it is in the
delivered mails only, which are at the SMTP server); nor may a reply address or any other token.

The sign-in and sweep tests move expires_at in the database while the daemon is stopped (the
daemon has no hook for tests) and read it only through read-only connections while it runs.

Python standard library and aiosmtpd (Debian: python3-aiosmtpd) only.
"""
import email
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database  # noqa: E402
from harness.daemon import db_query  # noqa: E402
from harness.nchess import OPENING  # noqa: E402
from harness.smtp import BEN, POLICY, STOP_URL_RE, ZOE, MailCase, make_reply, wait_for  # noqa: E402

SWEEP_S = 2     # the periodic sweep's test runs its daemon with serve --sweep-seconds 2
SIGNIN_TTL_S = daemon.LIMITS["LIMIT_SIGNIN_TTL_S"]
CLEO = ("Cleo", "cleo@example.org")   # never acts on her invitation

TOKEN = r"[A-Za-z0-9_-]{32}"
SEAT_URL_RE = re.compile(r"/games/([a-z0-9]+)\?seat=(" + TOKEN + r")(?![A-Za-z0-9_-])")
SIGNIN_RE = re.compile(r"/me/(" + TOKEN + r")(?![A-Za-z0-9_-])")
REPLY_RE = re.compile(r"play\+([a-z0-9]+-[0-9]+-[0-9]+-([a-z2-7]{16}))@")
STOP_RE = re.compile(r"/mail/stop/([0-9]+-([a-z2-7]{16}))(?![a-z2-7])")
FORM_RE = re.compile(r'name="csrf" value="([0-9a-f]{64})"')
ANY_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_-])(" + TOKEN + r")(?![A-Za-z0-9_-])")
CREDENTIAL_PATH_RE = re.compile(r"(/me/|/mail/stop/)[^/]+")


class Tokens:
    """Every token the test was given: token -> (kind, game id or None, where it came from)."""

    def __init__(self):
        self.found = {}

    def add(self, token, kind, gid, source):
        old = self.found.get(token)
        if not old or old[0] == "other":
            self.found[token] = (kind, gid, source)

    def harvest(self, text, source):
        for gid, t in SEAT_URL_RE.findall(text):
            self.add(t, "seat", gid, source)
        for t in SIGNIN_RE.findall(text):
            self.add(t, "signin", None, source)
        for local, _ in REPLY_RE.findall(text):
            self.add(local, "reply", local.split("-")[0], source)
        for t, _ in STOP_RE.findall(text):
            self.add(t, "stop", None, source)
        for t in FORM_RE.findall(text):
            self.add(t, "form", None, source)
        for t in ANY_TOKEN_RE.findall(text):
            self.add(t, "other", None, source)

    def harvest_mail(self, m):
        """A message the SMTP server received: its headers and every part decoded."""
        raw = m.content.replace(b"\r\n", b"\n").decode("ascii", "replace")
        self.harvest(raw, f"mail {m.message_id}")
        for part in m.msg.walk():
            if part.get_content_maintype() == "text":
                self.harvest(part.get_content(), f"mail {m.message_id}")
        for k, v in m.msg.items():
            self.harvest(f"{k}: {v}", f"mail {m.message_id}")

    def watch(self, d):
        """Harvest every answer of daemon d (bodies and headers) from now on."""
        request = d.request

        def harvesting(method, path, *a, **kw):
            r = request(method, path, *a, **kw)
            # Where a token came from, told without the credentials of the path.
            source = method + " " + CREDENTIAL_PATH_RE.sub(r"\1*", path.split("?")[0])
            self.harvest(r.text, source)
            for k, v in r.headers.items():
                self.harvest(f"{k}: {v}", source)
            return r
        d.request = harvesting

    def kinds(self):
        return [k for k, _, _ in self.found.values()]

    def needles(self, token, kind):
        """What is searched for: every half of the secret part (a reply address's or an
        unsubscribe link's signature, a whole token otherwise), since a quoted-printable soft line
        break splits a line at most once within it."""
        if kind == "reply":
            token = REPLY_RE.match(f"play+{token}@").group(2)
        elif kind == "stop":
            token = STOP_RE.match(f"/mail/stop/{token}").group(2)
        n = len(token) // 2
        return {token[i:i + n] for i in range(len(token) - n + 1)}


def files_at_rest(top):
    """Every regular file under top (the daemon's directory: database, WAL, maildir, logs)."""
    out = {}
    for root, _, names in os.walk(top):
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    out[os.path.relpath(p, top)] = f.read()
    return out


def dump(db):
    """Every table as text (sqlite3 .dump too when the command is there; the harness's dump,
    pg_dump's on PostgreSQL), and the outbox's mails decoded, so that no encoding hides a token."""
    out = {}
    cli = shutil.which("sqlite3")
    if cli and not database.is_postgresql(db):
        r = subprocess.run([cli, "-readonly", db, ".dump"], capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        out["sqlite3 .dump"] = r.stdout
    out["database dump"] = database.dump(db).encode()
    decoded = []
    for (message,) in db_query(db, "SELECT message FROM outbox"):
        for part in email.message_from_string(message, policy=POLICY).walk():
            if part.get_content_maintype() == "text":
                decoded.append(part.get_content())
    out["outbox decoded"] = "\n".join(decoded).encode()
    return out


def db_execute(db, sql, args=()):
    """Change the database of a stopped daemon (the test's only way to move time)."""
    database.execute(db, sql, args)


def token_hash(token):
    return hashlib.sha256(token.encode()).digest()


class SecretsCase(MailCase):

    def start(self, db=None):
        smtp = self.smtp()
        d = self.daemon(smtp=smtp, db=db)
        self.tokens = Tokens()
        self.tokens.watch(d)
        self.mail_in_log = []
        return smtp, d

    def mail_in(self, d, data, recipient=None):
        """rookery mail-in, its log kept: it is a log of Rookery like the daemon's."""
        r = super().mail_in(d, data, recipient)
        self.mail_in_log.append(r.err)
        return r

    def invitation(self, smtp, gid, address):
        """The invitation to game gid that reached address."""
        return wait_for(f"the invitation to {gid} for {address}", lambda: [
            m for m in smtp.delivered() if m.rcpt_tos == [address]
            and m.message_id.startswith(f"<{gid}.") and ".invite@" in m.message_id])[0]

    def confirm(self, d, smtp, gid, seat, who):
        """The owner of seat (name, address) opens the seat link of their invitation and asks for
        mail: until then Rookery sends that address nothing after the invitation."""
        self.ask_for_mail(d, gid, self.invitation(smtp, gid, who[1]), seat)

    def post_me(self, d, path, fields):
        """A form of /me (the address) or /me/<token> (the confirm button) as a browser sends it:
        from its page, with its form token, and for /me the form cookie."""
        return d.post_page_form(path, fields, page=path, origin=d.base)

    def signin_link(self, d, smtp, address):
        """Ask /me for a sign-in link for address (whose owner has acted: others get no
        sign-in mail); returns the /me/<token> path from the mail."""
        signin = lambda: [m for m in smtp.delivered()
                          if m.rcpt_tos == [address] and m.msg["Subject"] == "[Rookery] Your games"]
        before = len(signin())
        r = self.post_me(d, "/me", {"email": address})
        self.assertEqual(r.status, 200, r)
        mail = wait_for("the sign-in mail", lambda: signin()[before:])[0]
        self.tokens.harvest_mail(mail)
        text = mail.text()
        m = SIGNIN_RE.search(text)
        self.assertTrue(m, text)
        return "/me/" + m.group(1)


class ScanTests(SecretsCase):

    def test_no_usable_token_at_rest_or_in_the_log(self):
        smtp, d = self.start()
        # A game played through the API and by mail, with a draw offer, ended by a draw. Both
        # players ask for mail through their invitations.
        gid, tokens, created = self.new_game(d)
        primary = {t: gid for t in tokens.values()}
        self.confirm(d, smtp, gid, "South", ZOE)
        self.confirm(d, smtp, gid, "North", BEN)
        d.play(gid, tokens, OPENING[:3])
        turn = wait_for("Ben's turn after the third move", lambda: [
            m for m in smtp.delivered() if m.rcpt_tos == [BEN[1]] and f"played {OPENING[2]}" in m.text()])[-1]
        # Every mail to a seat has a reply address of its own; the latest one acts.
        to_ben = [m for m in smtp.delivered() if m.rcpt_tos == [BEN[1]]]
        self.assertEqual(turn, to_ben[-1])
        self.reply_address(turn.msg, gid, "North", len(to_ben))
        self.mail_in_ok(d, make_reply(turn.msg, OPENING[3], BEN))
        self.assertEqual(d.game(gid)["ply"], 4)
        draw = lambda tok, action: d.post(f"/api/games/{gid}/draw", {"action": action}, token=tok)
        self.assertEqual(draw(tokens["North"], "offer").status, 200)
        self.assertEqual(draw(tokens["South"], "decline").status, 200)
        self.assertEqual(draw(tokens["South"], "offer").status, 200)
        self.assertEqual(draw(tokens["North"], "accept").status, 200)
        self.assertEqual(d.game(gid)["status"], "over")
        # A second game, resigned. Zoë has acted already; Cleo never does: her invitation is all
        # she gets, and its seat link stays unused.
        gid2, tokens2, _ = self.new_game(d, south=ZOE, north=CLEO)
        primary.update({t: gid2 for t in tokens2.values()})
        d.play(gid2, tokens2, OPENING[:1])
        self.assertEqual(d.post(f"/api/games/{gid2}/resign", {}, token=tokens2["South"]).status, 200)
        # "My games": a sign-in link, used once, and the fresh seat links it lists; a seat page
        # opened with one of them.
        path = self.signin_link(d, smtp, ZOE[1])
        self.assertEqual(d.get(path).status, 200)
        listing = self.post_me(d, path, {})
        self.assertEqual(listing.status, 200, listing)
        fresh = SEAT_URL_RE.findall(listing.text)
        self.assertEqual(sorted(g for g, _ in fresh), sorted([gid, gid2]))
        self.assertEqual(d.get(f"/games/{fresh[0][0]}?seat={fresh[0][1]}").status, 200)
        # An unsubscribe page opened (stopping nothing): its link is a credential of the address.
        stop = STOP_URL_RE.match(str(turn.msg["List-Unsubscribe"])).group(1)
        self.assertEqual(d.get(stop[len(d.base):]).status, 200)

        # Every mail out, and each reached the server once; then a clean stop.
        rows = self.settle(d, smtp)
        self.assertEqual({r["state"] for r in rows}, {"sent"}, rows)
        self.assertEqual([m.message_id for m in smtp.delivered() if m.rcpt_tos == [CLEO[1]]],
                         [self.invitation(smtp, gid2, CLEO[1]).message_id])
        for m in smtp.delivered():
            self.tokens.harvest_mail(m)
        kinds = self.tokens.kinds()
        self.assertGreaterEqual(kinds.count("seat"), 12, self.tokens.found)
        self.assertGreaterEqual(kinds.count("reply"), 6, self.tokens.found)
        self.assertEqual(kinds.count("signin"), 1, self.tokens.found)
        self.assertEqual(kinds.count("stop"), 3, self.tokens.found)     # one per address
        self.assertGreaterEqual(kinds.count("form"), 3, self.tokens.found)
        for t in primary:
            self.assertEqual(self.tokens.found[t][0], "seat")
        d.secrets.update(t for t, (k, _, _) in self.tokens.found.items() if k == "seat")
        d.stop()
        if not database.is_postgresql(d.db):
            self.assertFalse(os.path.exists(d.db + "-wal"), "a clean stop leaves no WAL with old pages")

        # The scan.
        blobs = files_at_rest(self.tmp)
        blobs.update(dump(d.db))
        blobs["mail-in log"] = "\n".join(self.mail_in_log).encode()
        if not database.is_postgresql(d.db):
            self.assertIn("rookery.db", blobs)
        logs = {n for n in blobs if n.startswith(("stderr", "stdout")) or n == "mail-in log"}
        self.assertTrue(any(n.startswith("stderr") for n in logs), sorted(blobs))
        self.assertIn("played " + OPENING[3], blobs["mail-in log"].decode())
        at_rest = {}
        for t, (kind, g, source) in self.tokens.found.items():
            where = sorted(n for n, blob in blobs.items()
                           if any(x.encode() in blob for x in self.tokens.needles(t, kind)))
            if where:
                at_rest[t] = where
        # The creator's seat tokens work for ever: they are kept only as their hash.
        for t, g in primary.items():
            self.assertNotIn(t, at_rest, f"a seat token of {g} is stored in clear")
            self.assertEqual(db_query(d.db, "SELECT game_id FROM seats WHERE token_hash = ?",
                                      (token_hash(t),)), [(g,)])
        problems = []
        d2 = None
        for t, where in sorted(at_rest.items()):
            kind, g, source = self.tokens.found[t]
            logged = [n for n in where if n in logs]
            if logged:
                problems.append(f"a {kind} token from {source} ({t[:6]}...) is in the log: {logged}")
            elif kind in ("seat", "signin"):
                if d2 is None:
                    d2 = self.daemon(smtp=smtp, db=d.db)
                    d2.secrets = d.secrets
                r = (d2.get(f"/api/games/{g}", token=t) if kind == "seat" else d2.get(f"/me/{t}"))
                if r.status == 200:
                    problems.append(f"a working {kind} token from {source} ({t[:6]}...) is in {where}")
            else:
                problems.append(f"a {kind} token from {source} ({t[:6]}...) is in {where}")
        if d2 is not None:
            # Asking about them logs none of them either.
            log = d2.stop()
            problems += [f"the {kind} token {t[:6]}... asked about is in the log"
                         for t, (kind, _, _) in self.tokens.found.items()
                         if any(x in log for x in self.tokens.needles(t, kind))]
        if os.environ.get("SCAN_DEBUG"):
            print(*sorted(f"{k:6} {t[:6]}... from {s} at rest in {at_rest.get(t, [])}"
                          for t, (k, _, s) in self.tokens.found.items()), sep="\n", file=sys.stderr)
        self.assertEqual(problems, [])


class SigninTests(SecretsCase):

    def test_signin_link_works_once(self):
        smtp, d = self.start()
        gid, _, _ = self.new_game(d)
        self.confirm(d, smtp, gid, "South", ZOE)
        path = self.signin_link(d, smtp, ZOE[1])
        # Opening it (as a mail scanner does) uses nothing up; a refused POST neither: from
        # another site, or without the confirm page's form token.
        self.assertEqual(d.get(path).status, 200)
        form, _ = d.page_form(path)
        self.assertEqual(d.post_form(path, form, origin="https://evil.example").status, 403)
        self.assertEqual(d.post_form(path, "", origin=d.base).status, 403)
        first = self.post_me(d, path, {})
        self.assertEqual(first.status, 200, first)
        self.assertEqual(len(SEAT_URL_RE.findall(first.text)), 1, first.text)
        # Used: the same form again, or a GET, is told the link has expired, and mints nothing.
        links = db_query(d.db, "SELECT COUNT(*) FROM seat_links")
        second = d.post_form(path, form, origin=d.base)
        self.assertEqual(second.status, 404, second)
        self.assertIn("expired", second.text)
        self.assertNotIn("?seat=", second.text)
        self.assertEqual(d.get(path).status, 404)
        self.assertEqual(db_query(d.db, "SELECT COUNT(*) FROM seat_links"), links)
        self.assertEqual(db_query(d.db, "SELECT COUNT(*) FROM signin_tokens"), [(0,)])
        # A new link works again, once.
        path2 = self.signin_link(d, smtp, ZOE[1])
        form2, _ = d.page_form(path2)
        self.assertEqual(d.post_form(path2, form2, origin=d.base).status, 200)
        self.assertEqual(d.post_form(path2, form2, origin=d.base).status, 404)

    def test_signin_link_lasts_15_minutes(self):
        smtp, d = self.start()
        gid, _, _ = self.new_game(d)
        self.confirm(d, smtp, gid, "South", ZOE)
        asked = int(time.time())
        path = self.signin_link(d, smtp, ZOE[1])
        [mail] = [m for m in smtp.delivered() if m.msg["Subject"] == "[Rookery] Your games"]
        self.assertIn("Open this link within 15 minutes", mail.text())
        [(expires,)] = db_query(d.db, "SELECT expires_at FROM signin_tokens")
        self.assertEqual(SIGNIN_TTL_S, 15 * 60)
        self.assertGreaterEqual(expires, asked + SIGNIN_TTL_S)
        self.assertLessEqual(expires, int(time.time()) + SIGNIN_TTL_S)
        # Fifteen minutes later (the clock moved in the database instead): refused, though the
        # sweep has not deleted it yet.
        d.stop()
        db_execute(d.db, "UPDATE signin_tokens SET expires_at = ?", (int(time.time()) + 3,))
        d2 = self.daemon(smtp=smtp, db=d.db)
        self.assertEqual(d2.get(path).status, 200)
        form, _ = d2.page_form(path)
        time.sleep(4)
        self.assertEqual(db_query(d.db, "SELECT COUNT(*) FROM signin_tokens"), [(1,)], "not swept yet")
        r = d2.get(path)
        self.assertEqual(r.status, 404, r)
        self.assertIn("expired", r.text)
        self.assertEqual(d2.post_form(path, form, origin=d2.base).status, 404)


class SweepTests(SecretsCase):

    def links(self, d, smtp):
        """A game whose players asked for mail, and a sign-in link: rows in seat_links (the seat
        links of the mails) and signin_tokens."""
        gid, tokens, _ = self.new_game(d)
        self.confirm(d, smtp, gid, "South", ZOE)
        self.confirm(d, smtp, gid, "North", BEN)
        d.play(gid, tokens, OPENING[:3])
        self.signin_link(d, smtp, ZOE[1])
        self.settle(d, smtp)
        for m in smtp.delivered():
            self.tokens.harvest_mail(m)
        seat = [t for t, (k, g, s) in self.tokens.found.items() if k == "seat" and t not in tokens.values()]
        self.assertTrue(seat)
        return gid, seat

    def count(self, d):
        return (db_query(d.db, "SELECT COUNT(*) FROM seat_links")[0][0],
                db_query(d.db, "SELECT COUNT(*) FROM signin_tokens")[0][0])

    def test_expired_links_are_deleted_at_start_and_refused_before(self):
        smtp, d = self.start()
        gid, seat = self.links(d, smtp)
        n_links, n_signin = self.count(d)
        self.assertEqual((n_links, n_signin), (len(seat), 1))
        self.assertGreaterEqual(len(seat), 3)
        for t in seat:
            self.assertEqual(d.get(f"/api/games/{gid}", token=t).status, 200)
        d.stop()
        # One seat link expires in a moment; every other link expired yesterday.
        soon = seat[0]
        db_execute(d.db, "UPDATE seat_links SET expires_at = ? WHERE token_hash != ?",
                   (int(time.time()) - 86400, token_hash(soon)))
        db_execute(d.db, "UPDATE seat_links SET expires_at = ? WHERE token_hash = ?",
                   (int(time.time()) + 3, token_hash(soon)))
        db_execute(d.db, "UPDATE signin_tokens SET expires_at = ?", (int(time.time()) - 1,))
        d2 = self.daemon(smtp=smtp, db=d.db)
        d2.secrets = d.secrets
        # Deleted before the daemon served anything.
        self.assertEqual(self.count(d2), (1, 0))
        self.assertIn("sweep: deleted", d2.stderr())
        for t in seat[1:]:
            self.assertEqual(d2.get(f"/api/games/{gid}", token=t).status, 401)
        self.assertEqual(d2.get(f"/api/games/{gid}", token=soon).status, 200)
        time.sleep(4)
        # Expired, not swept yet: refused all the same.
        self.assertEqual(self.count(d2), (1, 0))
        self.assertEqual(d2.get(f"/api/games/{gid}", token=soon).status, 401)
        self.assertEqual(d2.get(f"/games/{gid}?seat={soon}").status, 401)

    def test_periodic_sweep(self):
        smtp, d = self.start()
        self.links(d, smtp)
        d.stop()
        now = int(time.time())
        db_execute(d.db, "UPDATE seat_links SET expires_at = ?", (now + 10,))
        db_execute(d.db, "UPDATE signin_tokens SET expires_at = ?", (now + 10,))
        d2 = self.daemon("--sweep-seconds", str(SWEEP_S), smtp=smtp, db=d.db)
        d2.secrets = d.secrets
        self.assertNotEqual(self.count(d2), (0, 0))
        t0 = time.monotonic()
        wait_for("the sweep", lambda: self.count(d2) == (0, 0), timeout=SWEEP_S + 20, interval=0.5)
        # And the daemon stops at once though its sweeper sleeps.
        t0 = time.monotonic()
        d2.stop()
        self.assertLess(time.monotonic() - t0, 5)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
