"""harness.smtp - a real SMTP server (aiosmtpd) in the test's process that records every message it
is offered, and MailCase: daemons that send it their mail, replies piped into `rookery mail-in`, and
the checks every mail of Rookery must pass.

Python standard library and aiosmtpd (Debian: python3-aiosmtpd) only.
"""
import asyncio
import datetime
import email
import email.policy
import email.utils
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from email.headerregistry import Address
from email.message import EmailMessage

from harness import daemon
from harness.daemon import Daemon, SANITIZER_MARKS, free_port

try:
    from aiosmtpd.controller import Controller
except ImportError:  # a Python of its own (pyenv, venv) beside Debian's python3-aiosmtpd
    sys.path.append("/usr/lib/python3/dist-packages")
    from aiosmtpd.controller import Controller

MAIL_WAIT = 20          # seconds to wait for a mail that is due now (sanitizer builds are slow)
DOMAIN = "play.example.org"
POLICY = email.policy.default

ZOE = ("Zo\u00eb \u00c4rger", "zoe@example.org")    # South
BEN = ("Ben", "ben@example.net")                    # North
SEATS = ("South", "North")

# play+<game>-<seat>-<serial>-<mac>: serial counts the reply addresses mailed to the seat; only the latest acts.
REPLY_TO_RE = re.compile(r"^play\+([a-z0-9]+)-([0-9]+)-([0-9]+)-([a-z2-7]{16})@" + re.escape(DOMAIN) + "$")
STOP_URL_RE = re.compile(r"^<(http://127\.0\.0\.1:[0-9]+/mail/stop/[0-9]+-[a-z2-7]{16})>$")


def wait_for(what, fn, timeout=MAIL_WAIT, interval=0.05):
    """Poll fn until it returns something true; return that, or fail saying what was awaited."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


# --------------------------------------------------------------------------------------------
# The SMTP server
# --------------------------------------------------------------------------------------------

class Received:
    """One message offered to the SMTP server (DATA), whatever the server answered."""

    def __init__(self, mail_from, rcpt_tos, content, answer):
        self.mail_from = mail_from
        self.rcpt_tos = rcpt_tos
        self.content = content
        self.answer = answer
        # As a mail client stores it: LF line ends (SMTP has CRLF).
        self.msg = email.message_from_bytes(content.replace(b"\r\n", b"\n"), policy=POLICY)

    @property
    def message_id(self):
        return self.msg["Message-ID"]

    @property
    def accepted(self):
        return self.answer.startswith("250")

    def text(self):
        return self.msg.get_body(("plain",)).get_content()

    def __repr__(self):
        return f"<mail {self.message_id} to {self.rcpt_tos} {self.answer[:3]}>"


class SmtpServer:
    """aiosmtpd on 127.0.0.1:port, recording every DATA; answers 451 to the first
    fail_first messages, or 550 to all when permanent, after delay seconds."""

    def __init__(self, port=None, fail_first=0, permanent=False, delay=0):
        self.port = port or free_port()
        self.fail_first = fail_first
        self.permanent = permanent
        self.delay = delay              # seconds before answering DATA
        self.lock = threading.Lock()
        self.offered = []
        self.arrived = 0                # DATA commands begun, answered or not
        self.controller = None

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.arrived += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            n = len(self.offered)
            if self.permanent:
                answer = "550 5.1.1 <%s>: no such mailbox here" % ",".join(envelope.rcpt_tos)
            elif n < self.fail_first:
                answer = "451 4.3.0 try again later"
            else:
                answer = "250 2.0.0 OK: queued"
            self.offered.append(Received(envelope.mail_from, list(envelope.rcpt_tos),
                                         bytes(envelope.content), answer))
        return answer

    def start(self):
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self):
        if self.controller:
            self.controller.stop()
            self.controller = None

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def all(self):
        with self.lock:
            return list(self.offered)

    def delivered(self):
        return [m for m in self.all() if m.accepted]

    def wait(self, n, timeout=MAIL_WAIT):
        """Wait until at least n messages were accepted; returns them all, oldest first."""
        return wait_for(f"{n} mail(s) at the SMTP server (have {len(self.delivered())})",
                        lambda: (lambda got: got if len(got) >= n else None)(self.delivered()), timeout)


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def outbox_rows(db):
    """The outbox, oldest first, as dicts (read-only connection: the daemon is the only writer)."""
    names = ("id", "game_id", "kind", "recipient", "message", "state", "attempts", "last_error")
    return [dict(zip(names, r)) for r in daemon.db_query(db, f"SELECT {', '.join(names)} FROM outbox ORDER BY id")]


def row_message_id(row):
    return email.message_from_string(row["message"], policy=POLICY)["Message-ID"]


def addr(header):
    """The single address of a parsed address header, as (display name, addr-spec)."""
    addrs = header.addresses
    assert len(addrs) == 1, addrs
    return addrs[0].display_name, addrs[0].addr_spec


def expected_board_lines(position, seat):
    """The board rows of a mail's diagram as the given seat sees them (South: as the API's
    board, North: turned half around), with '~' for river, '+' for prison and '.' for empty."""
    rows = list(range(len(position["board"])))
    cols = list(range(len(position["cols"])))
    if seat == "North":
        rows.reverse()
        cols.reverse()
    header = "    " + " ".join(position["cols"][c] for c in cols)
    lines = [header]
    for r in rows:
        cells = []
        for c in cols:
            p = position["board"][r][c]
            k = position["kinds"][r][c]
            cells.append(p if p else "~" if k == "river" else "+" if k == "prison" else ".")
        label = position["rows"][r]
        lines.append("%3s %s %s" % (label, " ".join(cells), label))
    lines.append(header)
    return lines


def make_reply(orig, first_line, sender, to=None, message_id=None, extra=(), quote=True):
    """A reply to orig (a parsed mail) as a mail client writes it: the move on the first line,
    the original quoted below an attribution. Returns bytes with LF line ends."""
    m = EmailMessage()
    m["From"] = Address(sender[0], addr_spec=sender[1])
    m["To"] = to if to is not None else str(orig["Reply-To"])
    m["Subject"] = "Re: " + orig["Subject"]
    m["Date"] = email.utils.formatdate(localtime=False)
    m["Message-ID"] = message_id or email.utils.make_msgid(domain="mua.example.net")
    m["In-Reply-To"] = orig["Message-ID"]
    m["References"] = " ".join(x for x in (orig.get("References"), orig["Message-ID"]) if x)
    for k, v in extra:
        m[k] = v
    body = first_line + "\n"
    if quote:
        body += f"\nOn {orig['Date']}, Rookery wrote:\n"
        body += "".join("> " + line + "\n" for line in orig.get_body(("plain",)).get_content().splitlines())
    m.set_content(body)
    return m.as_bytes()


# --------------------------------------------------------------------------------------------
# The base class
# --------------------------------------------------------------------------------------------

class MailCase(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rookery-mail-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.now = datetime.datetime.now(datetime.timezone.utc)

    # ---- processes ----

    def smtp(self, **kw):
        s = SmtpServer(**kw).start()
        self.addCleanup(s.stop)
        return s

    def daemon(self, *extra, smtp=None, db=None, retry=1, env=None):
        """A daemon mailing smtp (a server or its URL), on db or a fresh database, with the
        variables env set for it."""
        args = ["--reply-domain", DOMAIN, "--mail-retry", str(retry)]
        if smtp is not None:
            args += ["--smtp", smtp if isinstance(smtp, str) else smtp.url]
        d = Daemon(*(args + list(extra)), db=db, workdir=self.tmp)
        d.extra_env = dict(env or {})
        self.addCleanup(self.stop_daemon, d)
        return d.start()

    def stop_daemon(self, d):
        if d.proc and d.proc.poll() is None:
            d.stop()

    def mail_in(self, d, data, recipient=None):
        env = {k: v for k, v in os.environ.items() if k not in ("ORIGINAL_RECIPIENT", "RECIPIENT")}
        args = [daemon.ROOKERY, "mail-in"] + d.db_args()
        if recipient:
            args += ["--recipient", recipient]
        r = subprocess.run(args, input=data, capture_output=True, timeout=60, env=env, cwd=self.tmp)
        err = r.stderr.decode("utf-8", "replace")
        for mark in SANITIZER_MARKS:
            self.assertNotIn(mark, err, err)
        r.err = err
        return r

    def mail_in_ok(self, d, data, recipient=None):
        r = self.mail_in(d, data, recipient)
        self.assertEqual(r.returncode, 0, r.err)
        return r

    # ---- games ----

    def new_game(self, d, south=ZOE, north=BEN):
        gid, tokens, created = d.create_game((south[0], north[0]), (south[1], north[1]))
        return gid, tokens, created

    def mail_game(self, confirm=SEATS):
        """An SMTP server, a daemon mailing it, a game of Zoë (South) and Ben (North), and their
        invitations by address. The seats in confirm have asked for mail through their invitation's
        link (until a seat's owner acts, Rookery mails it nothing after the invitation)."""
        smtp = self.smtp()
        d = self.daemon(smtp=smtp)
        gid, tokens, _ = self.new_game(d)
        invites = {m.rcpt_tos[0]: m for m in smtp.wait(2)}
        who = {"South": ZOE, "North": BEN}
        for seat in confirm:
            self.ask_for_mail(d, gid, invites[who[seat][1]], seat)
        return smtp, d, gid, tokens, invites

    def outbox(self, d):
        return outbox_rows(d.db)

    def settle(self, d, smtp):
        """Wait until nothing is queued or being sent; then each row marked sent reached the
        SMTP server exactly once, and the server accepted nothing else. The seat links in the
        mails join the secrets that the daemon's log must never show."""
        rows = wait_for("an idle outbox", lambda: (lambda rs: rs if all(
            r["state"] in ("sent", "failed") for r in rs) else None)(self.outbox(d)))
        sent = sorted(row_message_id(r) for r in rows if r["state"] == "sent")
        got = sorted(m.message_id for m in smtp.delivered())
        self.assertEqual(got, sent, "each mail sent is received exactly once")
        for m in smtp.delivered():
            d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]{20,64})", m.text()))
        return rows

    # ---- checks common to every mail ----

    def check_common(self, m, to, subject=None):
        """Headers every mail of Rookery has."""
        msg = m.msg
        self.assertTrue(all(b < 0x80 for b in m.content), "a mail must be 7-bit: headers encoded, "
                        "bodies quoted-printable")
        self.assertEqual(m.rcpt_tos, [to[1]])
        self.assertEqual(addr(msg["To"]), (to[0], to[1]))
        self.assertEqual(msg["Auto-Submitted"], "auto-generated")
        date = msg["Date"].datetime
        self.assertIsNotNone(date.tzinfo, msg["Date"])
        self.assertLess(abs((date - datetime.datetime.now(datetime.timezone.utc)).total_seconds()), 300,
                        msg["Date"])
        self.assertGreaterEqual(date, self.now.replace(microsecond=0) - datetime.timedelta(seconds=2))
        self.assertRegex(msg["Message-ID"], r"^<[^<>@\s]+@" + re.escape(DOMAIN) + ">$")
        if subject is not None:
            self.assertEqual(msg["Subject"], subject)
        # Every mail says how to stop them: RFC 8058 one-click headers, and the link in a signature.
        stop = STOP_URL_RE.match(str(msg["List-Unsubscribe"]))
        self.assertTrue(stop, msg["List-Unsubscribe"])
        self.assertEqual(msg["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
        signature = m.text().rsplit("\n-- \n", 1)
        self.assertEqual(len(signature), 2, "no signature in:\n" + m.text())
        self.assertTrue(signature[1].rstrip("\n").endswith(stop.group(1)), signature[1])
        return msg

    def check_game_mail(self, m, to, seat, gid, subject):
        """A mail of a game to one seat: threaded under that seat's invitation, text and HTML."""
        msg = self.check_common(m, to, subject)
        root = f"<{gid}.{SEATS.index(seat)}.invite@{DOMAIN}>"
        if msg["Message-ID"] == root:
            self.assertIsNone(msg["In-Reply-To"])
        else:
            self.assertEqual(msg["In-Reply-To"], root)
            self.assertEqual(msg["References"], root)
        self.assertEqual(msg.get_content_type(), "multipart/alternative")
        plain = msg.get_body(("plain",))
        hpart = msg.get_body(("html",))
        self.assertIsNotNone(plain)
        self.assertIsNotNone(hpart)
        text = plain.get_content()
        self.assertTrue(text.startswith(f"Hello {to[0]},\n"), text[:80])
        h = hpart.get_content()
        self.assertIn(f"Hello {to[0]},", html.unescape(h))
        self.assertNotIn(f"{to[0]}," if "<" in to[0] else "\0", h, "names are escaped in HTML")
        self.assertIn("<pre", h)
        return text, h

    def reply_address(self, msg, gid, seat, serial):
        """The Reply-To of msg: the reply address number serial of seat in gid."""
        name, a = addr(msg["Reply-To"])
        m = REPLY_TO_RE.match(a)
        self.assertTrue(m, a)
        self.assertEqual(m.group(1, 2, 3), (gid, str(SEATS.index(seat)), str(serial)), a)
        return a

    def check_board(self, text, position, seat):
        lines = text.splitlines()
        want = expected_board_lines(position, seat)
        for i in range(len(lines)):
            if lines[i:i + len(want)] == want:
                return
        self.fail("the board diagram for %s is not in the mail:\n%s\n--- mail ---\n%s"
                  % (seat, "\n".join(want), text))

    def seat_link(self, d, text, gid, seat):
        """The seat link in a mail: it opens this seat's view."""
        m = re.search(r"this link is yours alone\):\n(\S+)\n", text)
        self.assertTrue(m, text)
        url = m.group(1)
        self.assertRegex(url, r"^" + re.escape(f"{d.base}/games/{gid}?seat=") + r"[A-Za-z0-9_-]{20,64}$")
        token = url.split("seat=")[1]
        d.secrets.add(token)
        self.assertEqual(d.game(gid, token)["seat"], seat)
        return url

    def ask_for_mail(self, d, gid, invitation, seat):
        """The owner of seat opens the seat link of their invitation (a Received) and presses
        "Send me mail about this game": until then Rookery mails them nothing after it."""
        url = self.seat_link(d, invitation.text(), gid, seat)
        r = d.ask_for_mail(gid, url)
        self.assertEqual(r.status, 303, r)
        self.assertTrue(r.header("Location").endswith(url[len(d.base):]), r.headers)
