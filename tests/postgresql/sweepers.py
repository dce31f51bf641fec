#!/usr/bin/env python3
"""sweepers.py - two daemons' sweepers on one PostgreSQL database act on each thing once.

usage: python3 tests/postgresql/sweepers.py PATH-TO-ROOKERY [unittest options]

Both daemons read one clock moved by the test (libfaketime) and sweep every second; when the
players' digest hour comes, each player gets one daily digest, not one from each daemon. Apart
from multi_daemon.py because libfaketime and ThreadSanitizer do not go together (the
'concurrency' suite runs under it).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import daemon, smtp as smtpmod  # noqa: E402
from multi_daemon import PgDaemons  # noqa: E402

DIGESTS = 24               # players whose digest two sweepers find due at once


class Sweepers(PgDaemons):

    def test_each_digest_is_sent_once_by_two_sweepers(self):
        server = smtpmod.SmtpServer().start()
        self.addCleanup(server.stop)
        # Both daemons read one clock (libfaketime) and sweep every second.
        clock = daemon.FakeClock(self.pg.dir)
        mail = ("--smtp", server.url, "--smtp-tls", "none", "--reply-domain", smtpmod.DOMAIN,
                "--sweep-seconds", "1")
        a, b = (self.start(n, *mail, env=clock.env()) for n in ("a", "b"))
        players = [f"p{i}@example.org" for i in range(DIGESTS)]
        for i, address in enumerate(players):
            (a, b)[i % 2].create_game(("Ann", "Ben"), (address, None))
        # Every player waits for a digest at the next whole hour but one of the daemons' clock.
        due = (int(clock.now()) // 3600 + 1) * 3600
        self.sql(f"UPDATE addresses SET mail_mode = 'digest', digest_hour = {due // 3600 % 24}, "
                 "consent = 'confirmed', digest_day = 0")
        clock.set_time(due + 5)
        count = f"SELECT count(*) FROM outbox WHERE kind = 'digest'"
        smtpmod.wait_for("a digest for every player", lambda: int(self.sql(count)) >= DIGESTS)
        time.sleep(3)     # three more sweeps of each daemon: nothing more may come
        # Every invitation and digest sent: slow under the sanitizers, with two workers.
        smtpmod.wait_for("an idle outbox", lambda: self.sql(
            "SELECT count(*) FROM outbox WHERE state IN ('queued', 'sending')") == "0", timeout=180)
        per = self.sql("SELECT recipient, count(*) FROM outbox WHERE kind = 'digest' GROUP BY recipient "
                       "ORDER BY recipient").split("\n")
        self.assertEqual(per, [f"{p}|1" for p in sorted(players)])
        got = sorted(m.rcpt_tos[0] for m in server.delivered() if "wait" in str(m.msg["Subject"]))
        self.assertEqual(got, sorted(players), "one digest each at the SMTP server")

class MailToEither(PgDaemons, smtpmod.MailCase):
    """Replies by mail may reach any daemon: the MTA hands each to whichever it is given."""


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
