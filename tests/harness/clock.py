"""harness.clock - a daemon whose clock the test moves (libfaketime), for the tests of time
controls and vacations: days pass in seconds while nobody looks at the games.

Python standard library only.
"""
import calendar
import time

from harness.daemon import FakeClock, db_query
from harness.maildir import ANN, BEN, MaildirCase

DAY = 86400
HOUR = 3600
SWEEP = 2                                # the daemons here sweep this often (serve --sweep-seconds)
WAIT = 3 * SWEEP + 60                    # a sweep happens within one interval; a slow build gets room


def iso_time(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


class ClockCase(MaildirCase):
    """One daemon a test, writing mail into a maildir, its clock a FakeClock (self.clock) and its
    sweep every SWEEP seconds."""

    daemon_args = ("--sweep-seconds", str(SWEEP))
    outbox_wait = 30

    def before_start(self):
        self.clock = FakeClock(self.tmp)
        self.d.extra_env = self.clock.env()

    def create(self, clock, variant="nchess", seats=(ANN, BEN), confirm=False):
        body = {"variant": variant, "seats": [{"name": n, **({"email": e} if e else {})} for n, e in seats]}
        if clock is not None:
            body["clock"] = clock
        r = self.d.post("/api/games", body)
        self.assertEqual(r.status, 201, r)
        g = r.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        if confirm:
            for _, e in seats:
                if e:
                    self.d.confirm_by_invitation(g["id"], e)
        return g["id"], tokens

    def query(self, sql, *args):
        return db_query(self.d.db, sql, args)

    def wait_sweep(self):
        """Wait until a whole sweep ran at the daemon's present time (its heartbeat is the last job)."""
        after = self.clock.now() - 1
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            row = self.query("SELECT value FROM settings WHERE key = 'clock_heartbeat'")
            if row and int(row[0][0]) >= after:
                return
            time.sleep(0.2)
        self.fail("no sweep ran after the clock moved")

    def mails(self, address, kind=None):
        self.idle_outbox()
        got = [m for m in self.d.maildir_mails() if address in str(m["To"])]
        if kind:
            got = [m for m in got if f".{kind}." in m["Message-ID"]]
        return got

    def seat_clock(self, g, seat):
        return next(s for s in g["clock"]["seats"] if s["seat"] == seat)
