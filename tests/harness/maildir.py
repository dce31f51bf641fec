"""harness.maildir - a daemon whose mails go into a maildir, read as each address's inbox, and
replies handed to `rookery mail-in` as the MTA would.

Python standard library only.
"""
import os
import re
import subprocess
import tempfile
import time
import unittest

from harness import daemon
from harness.daemon import Daemon, SANITIZER_MARKS, SEAT_LINK_IN_MAIL

DOMAIN = "play.example.org"
MAIL_WAIT = 20
ANN = ("Ann", "ann@players.test")        # South
BEN = ("Ben", "ben@players.test")        # North


class Mailbox:
    """The daemon's maildir, read as each address's inbox."""

    def __init__(self, d):
        self.d = d

    def to(self, address):
        return [m for m in self.d.maildir_mails() if address in str(m["To"])]

    def all(self):
        return self.d.maildir_mails()

    def wait_count(self, address, n, timeout=MAIL_WAIT):
        deadline = time.monotonic() + timeout
        while True:
            got = self.to(address)
            if len(got) >= n or time.monotonic() > deadline:
                return got
            time.sleep(0.05)


def text_of(msg):
    return msg.get_body(("plain",)).get_content()


class DigestClock:
    """For a MaildirCase whose daemon's clock libfaketime moves (digests): it starts two days ahead
    of the real time, at 09:50 UTC; at(day, hour...) is a time of those days."""

    def before_start(self):
        self.day = int(time.time()) // 86400 + 2
        self.clock = daemon.FakeClock(self.tmp, self.at(0, 9, 50))
        self.d.extra_env = {**self.clock.env(), "TZ": "UTC"}

    def at(self, day, hour, minute=0, second=0):
        return (self.day + day) * 86400 + hour * 3600 + minute * 60 + second


class MaildirCase(unittest.TestCase):
    """One daemon a test (self.d), writing its mails into the maildir beside its database (self.box);
    mail_in() hands it a message as the MTA would, reply() writes one."""

    daemon_args = ()             # more options of rookery serve
    outbox_wait = MAIL_WAIT      # seconds for the outbox to drain

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rookery-mail-")
        self.d = Daemon("--reply-domain", DOMAIN, "--mail-retry", "1", *self.daemon_args, workdir=self.tmp)
        self.before_start()
        self.d.start()
        self.box = Mailbox(self.d)
        self.addCleanup(self.d.cleanup)
        self.addCleanup(self.stop)

    def before_start(self):
        """What a subclass sets up in self.tmp or self.d before the daemon starts."""

    def stop(self):
        if self.d.proc and self.d.proc.poll() is None:
            self.d.stop()

    def idle_outbox(self):
        """Wait until every queued mail has been written to the maildir."""
        deadline = time.monotonic() + self.outbox_wait
        while time.monotonic() < deadline:
            busy = daemon.db_query(self.d.db, "SELECT COUNT(*) FROM outbox WHERE state IN ('queued', 'sending')")[0][0]
            if busy == 0:
                return
            time.sleep(0.05)
        self.fail("the outbox did not drain")

    def mail_in(self, data, expect=0):
        r = subprocess.run([daemon.ROOKERY, "mail-in"] + self.d.db_args(), input=data, capture_output=True,
                           timeout=60, cwd=self.tmp, env={k: v for k, v in os.environ.items()
                                                          if k not in ("ORIGINAL_RECIPIENT", "RECIPIENT")})
        err = r.stderr.decode("utf-8", "replace")
        for mark in SANITIZER_MARKS:
            self.assertNotIn(mark, err, err)
        self.assertEqual(r.returncode, expect, err)
        return err

    def reply(self, orig, line, sender, to=None, n=[0]):
        """A reply to orig's Reply-To (or to), from sender (any address at all)."""
        n[0] += 1
        to = to or str(orig["Reply-To"].addresses[0].addr_spec)
        return (f"From: {sender}\r\nTo: {to}\r\nSubject: Re: {orig['Subject']}\r\n"
                f"Message-ID: <trust-{n[0]}-{time.monotonic_ns()}@attacker.test>\r\n"
                f"In-Reply-To: {orig['Message-ID']}\r\n\r\n{line}\r\n").encode()

    def new_game(self, south=ANN, north=BEN):
        gid, tokens, _ = self.d.create_game((south[0], north[0]), (south[1], north[1]))
        return gid, tokens

    def confirm(self, invitation):
        """What a player does who wants mail: open the invitation's link and press the button.
        (A server without the button, which mailed everyone anyway, is let through, so that each
        test goes on to the attack it is about; with this one, the mails that follow show it.)"""
        url = SEAT_LINK_IN_MAIL.search(text_of(invitation)).group(1)
        gid = re.search(r"/games/([a-z0-9]+)\?", url).group(1)
        if f'action="/games/{gid}/mail"' in self.d.get(url[len(self.d.base):]).text:
            self.assertEqual(self.d.ask_for_mail(gid, url).status, 303)
        return url.split("seat=")[1]

    def invitation(self, address):
        got = self.box.wait_count(address, 1)
        self.assertEqual(len(got), 1, [m["Subject"] for m in got])
        return got[0]

    def state(self, gid):
        return self.d.game(gid)
