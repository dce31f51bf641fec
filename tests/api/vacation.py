#!/usr/bin/env python3
"""vacation.py - players' vacations, against the real daemon with its time moved by libfaketime.

usage: python3 tests/api/vacation.py PATH-TO-ROOKERY [unittest options]

The daemon runs under libfaketime as in clock.py (both use ClockCase of tests/harness/clock.py), moved to chosen
dates of the coming years:
- a weekend's vacation (a date range): the clocks stand still in all the player's games, no
  timeout while the old deadline passes, no reminder during it, "on vacation until" for opponents
  on the page and in the API, and the time running again after it;
- a vacation of N days from now ended by a move (and by {"end": true}), its unused whole days back;
- the yearly allowance: a vacation across New Year counts each year's days, refused once a year
  is used up, renewed in the next;
- an outage of the daemon during a vacation not given back twice;
- the API's refusals (bad dates, past, overlap, too many days, no token) changing nothing;
- the forms of the seat page and of "my games"; --vacation-days and its bad values.

Python standard library only.
"""
import calendar
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.clock import DAY, HOUR, SWEEP, ClockCase, iso_time  # noqa: E402
from harness.daemon import Daemon  # noqa: E402
from harness.maildir import ANN, BEN  # noqa: E402


def at(y, m, d, h=0, mi=0):
    return calendar.timegm((y, m, d, h, mi, 0))


def date(t):
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class VacationCase(ClockCase):

    def goto(self, t):
        """Move the daemon's clock on to t (never back)."""
        self.assertGreater(t, self.clock.now())
        self.clock.set(t - time.time())

    def next_year(self):
        return time.gmtime(self.clock.now()).tm_year + 1

    def vacation(self, token, body=None):
        r = self.d.post("/api/vacation", body, token=token) if body is not None else \
            self.d.get("/api/vacation", token=token)
        return r

    def ok(self, token, body=None):
        r = self.vacation(token, body)
        self.assertEqual(r.status, 200, r)
        return r.json()

    def refused(self, token, body, code, part=None):
        before = self.query("SELECT id, player, start_at, end_at FROM vacations ORDER BY id")
        r = self.vacation(token, body)
        status = {"unauthorized": 401, "bad_request": 400, "bad_json": 400}.get(code, 422)
        self.assertEqual(r.status, status, (body, r))
        self.assertEqual(r.json()["error"]["code"], code, (body, r))
        if part:
            self.assertIn(part, r.json()["error"]["message"], body)
        self.assertEqual(self.query("SELECT id, player, start_at, end_at FROM vacations ORDER BY id"), before, body)


class WeekendTests(VacationCase):

    def test_weekend_vacation_stands_the_clocks_still(self):
        # A Friday at 18:00 UTC in the coming year.
        y = self.next_year()
        fri = at(y, 1, 1, 18)
        while time.gmtime(fri).tm_wday != 4:
            fri += DAY
        sat, mon = fri + 6 * HOUR, fri + 3 * DAY - 18 * HOUR
        self.goto(fri)
        one, tok1 = self.create({"type": "per_move", "days": 1}, confirm=True)
        # Ann plays North in a second game (her address in another case): Ben moves, her clock runs.
        two, tok2 = self.create({"type": "per_move", "days": 1}, seats=(BEN, ("Ann", "ANN@Players.test")))
        self.assertEqual(self.d.move(two, tok2["South"], "N 9 2 8 4", 0).status, 201)
        south = self.seat_clock(self.d.game(one), "South")
        self.assertAlmostEqual(iso_time(south["deadline"]), fri + DAY, delta=60)

        v = self.ok(tok1["South"], {"from": date(sat), "to": date(sat + DAY)})
        self.assertEqual(v["days_left"], 28)
        self.assertEqual(v["vacations"], [{"from": iso(sat), "until": iso(mon), "days": 2, "current": False}])
        # The other seat of the same address sees the same vacation.
        self.assertEqual(self.ok(tok2["North"])["vacations"], v["vacations"])

        # Saturday 20:00: the old deadline (18:00) has passed; the clock stood still from midnight.
        self.goto(sat + 20 * HOUR)
        self.wait_sweep()
        for gid, seat, token in ((one, "South", tok1["North"]), (two, "North", tok2["South"])):
            g = self.d.game(gid, token=token)
            self.assertEqual(g["status"], "running", gid)
            c = self.seat_clock(g, seat)
            self.assertEqual(c["vacation_until"], iso(mon))
            self.assertAlmostEqual(c["remaining_s"], 18 * HOUR, delta=2 * SWEEP)
            self.assertAlmostEqual(iso_time(c["deadline"]), mon + 18 * HOUR, delta=2 * SWEEP)
        page = self.d.get(f"/games/{one}?seat={tok1['North']}").text
        self.assertIn(f"on vacation until {date(mon)} 00:00 UTC", page)
        self.assertIsNone(self.seat_clock(self.d.game(one), "North")["vacation_until"])
        # Sunday night: still nothing, not even the reminder of the last tenth (due 2.4 hours before).
        self.goto(mon - HOUR)
        self.wait_sweep()
        self.assertEqual(self.d.game(one)["status"], "running")
        self.assertEqual(self.mails(ANN[1], "reminder"), [])
        self.assertIn("on vacation until", self.d.get(f"/games/{one}").text)

        # Monday: the clock runs again with what was left on Saturday at midnight.
        self.goto(mon + 12 * HOUR)
        self.wait_sweep()
        c = self.seat_clock(self.d.game(one), "South")
        self.assertIsNone(c["vacation_until"])
        self.assertAlmostEqual(c["remaining_s"], 6 * HOUR, delta=2 * SWEEP)
        self.assertNotIn("on vacation until", self.d.get(f"/games/{one}").text)
        self.assertEqual(self.mails(ANN[1], "reminder"), [])
        self.goto(mon + 16 * HOUR)
        self.wait_sweep()
        self.assertEqual(len(self.mails(ANN[1], "reminder")), 1)
        self.goto(mon + 18 * HOUR + 2 * SWEEP)
        self.wait_sweep()
        self.assertEqual(self.d.game(one)["result"]["summary"], "North wins on time: South ran out of time")
        self.assertEqual(self.d.game(two)["result"]["summary"], "South wins on time: North ran out of time")


class UnusedDaysTests(VacationCase):

    def test_a_move_ends_the_vacation_and_returns_its_unused_days(self):
        start = at(self.next_year(), 3, 2, 9)
        self.goto(start)
        gid, tokens = self.create({"type": "per_move", "days": 3}, seats=(("A", None), ("B", None)))
        v = self.ok(tokens["South"], {"days": 5})
        self.assertEqual(v["days_left"], 25)
        self.assertEqual(len(v["vacations"]), 1)
        self.assertTrue(v["vacations"][0]["current"])
        self.assertAlmostEqual(iso_time(v["vacations"][0]["until"]), start + 5 * DAY, delta=60)
        # A seat without an address is its own player: the other seat has all its days.
        self.assertEqual(self.ok(tokens["North"])["days_left"], 30)
        # Standing still at once, not only at the next sweep.
        c = self.seat_clock(self.d.game(gid), "South")
        self.assertAlmostEqual(iso_time(c["vacation_until"]), start + 5 * DAY, delta=60)
        self.assertAlmostEqual(c["remaining_s"], 3 * DAY, delta=60)

        self.goto(start + DAY + 12 * HOUR)
        self.wait_sweep()
        self.assertAlmostEqual(self.seat_clock(self.d.game(gid), "South")["remaining_s"], 3 * DAY, delta=60)
        # The move ends it: two days begun are used, three come back.
        self.assertEqual(self.d.move(gid, tokens["South"], "N 9 2 8 4", 0).status, 201)
        v = self.ok(tokens["South"])
        self.assertEqual((v["days_left"], v["vacations"]), (28, []))
        self.assertIsNone(self.seat_clock(self.d.game(gid), "South")["vacation_until"])
        self.assertIn("ends its player's vacation", self.d.stderr())

        # North goes away for three days, and comes back after half a day: two days are returned,
        # and its clock runs again from now with its whole time.
        self.ok(tokens["North"], {"days": 3})
        self.goto(start + 2 * DAY)
        self.wait_sweep()
        v = self.ok(tokens["North"], {"end": True})
        self.assertEqual((v["returned_days"], v["days_left"], v["vacations"]), (2, 29, []))
        c = self.seat_clock(self.d.game(gid), "North")
        self.assertIsNone(c["vacation_until"])
        self.assertAlmostEqual(iso_time(c["deadline"]), self.clock.now() + 3 * DAY, delta=2 * SWEEP)
        self.refused(tokens["North"], {"end": True}, "bad_vacation", "no vacation")
        # A vacation to come is withdrawn whole.
        self.ok(tokens["North"], {"from": date(start + 10 * DAY), "to": date(start + 13 * DAY)})
        self.assertEqual(self.ok(tokens["North"])["days_left"], 25)
        v = self.ok(tokens["North"], {"end": True})
        self.assertEqual((v["returned_days"], v["days_left"]), (4, 29))


class OutageTests(VacationCase):

    def test_an_outage_during_a_vacation_is_not_given_twice(self):
        start = at(self.next_year(), 8, 3, 10)
        self.goto(start)
        gid, tokens = self.create({"type": "per_move", "days": 1}, seats=(("A", None), ("B", None)))
        self.ok(tokens["South"], {"days": 2})
        self.wait_sweep()
        # The daemon is down three days: two of vacation, then one more; a day of time is still left.
        self.d.stop()
        self.clock.advance(3 * DAY)
        self.d.start()
        c = self.seat_clock(self.d.game(gid), "South")
        self.assertIsNone(c["vacation_until"])
        self.assertAlmostEqual(iso_time(c["deadline"]), self.clock.now() + DAY, delta=2 * SWEEP)
        self.assertAlmostEqual(c["remaining_s"], DAY, delta=2 * SWEEP)


class AllowanceTests(VacationCase):

    def test_the_yearly_allowance(self):
        y = self.next_year()
        self.goto(at(y, 12, 20, 12))
        gid, tokens = self.create(None)
        ann = tokens["South"]
        # From 20 December, 25 days: 12 count in this year, 13 in the next.
        v = self.ok(ann, {"days": 25})
        self.assertEqual((v["year"], v["days_left"]), (y, 18))
        self.refused(ann, {"from": date(at(y + 1, 1, 10)), "to": date(at(y + 1, 1, 20))}, "vacation_overlap",
                     "overlaps")
        # The next year has 17 days left.
        # It ends on 14 January at noon; the next year has 17 days left.
        self.refused(ann, {"from": date(at(y + 1, 1, 14)), "to": date(at(y + 1, 1, 20))}, "vacation_overlap")
        self.refused(ann, {"from": date(at(y + 1, 1, 15)), "to": date(at(y + 1, 2, 1))}, "vacation_days",
                     f"that takes 18 vacation days of {y + 1}, which has 17 left")
        self.ok(ann, {"from": date(at(y + 1, 1, 15)), "to": date(at(y + 1, 1, 31))})
        self.refused(ann, {"from": date(at(y + 1, 2, 2)), "to": date(at(y + 1, 2, 2))}, "vacation_days",
                     "which has 0 left")
        # The next year: none left.
        self.goto(at(y + 1, 2, 3, 12))
        v = self.ok(ann)
        self.assertEqual((v["year"], v["days_left"], v["vacations"]), (y + 1, 0, []))
        self.refused(ann, {"days": 1}, "vacation_days")
        # The year after: renewed.
        self.goto(at(y + 2, 1, 1, 0, 30))
        v = self.ok(ann)
        self.assertEqual((v["year"], v["days_left"]), (y + 2, 30))
        self.ok(ann, {"days": 30})
        # 31 days in one year are refused.
        gid, tokens = self.create(None, seats=(("Cy", "cy@players.test"), ("Di", None)))
        self.refused(tokens["South"], {"days": 31}, "vacation_days", "that takes 31 vacation days")
        self.assertEqual(self.ok(tokens["South"])["days_left"], 30)


class ApiErrorTests(VacationCase):

    def test_refusals(self):
        now = at(self.next_year(), 6, 10, 12)
        self.goto(now)
        gid, tokens = self.create(None, seats=(("A", None), ("B", None)))
        t = tokens["South"]
        today, yesterday = date(now), date(now - DAY)
        # No token, a wrong one.
        r = self.d.get("/api/vacation")
        self.assertEqual(r.status, 401, r)
        self.refused(None, {"days": 1}, "unauthorized")
        self.refused("A" * 32, {"days": 1}, "unauthorized")
        # Bodies that are not one of the three forms.
        for body in ({}, {"days": 1, "from": today, "to": today}, {"days": 1, "end": True}, {"end": False},
                     {"from": today}, {"days": 1, "extra": 1}, {"from": 1, "to": 2}):
            self.refused(t, body, "bad_request")
        self.refused(t, [], "bad_json")
        # Bad numbers of days and bad dates.
        for days in (0, -1, 2.5, "3", True, None, 367):
            self.refused(t, {"days": days}, "bad_vacation")
        for f, to in (("2027-02-30", "2027-03-01"), ("tomorrow", today), (today, "31.12.2030"),
                      (today, today + " "), ("99999-01-01", "99999-01-02"), ("1969-12-31", today)):
            self.refused(t, {"from": f, "to": to}, "bad_vacation", "YYYY-MM-DD" if f != "1969-12-31" else None)
        self.refused(t, {"from": date(now + 3 * DAY), "to": date(now + DAY)}, "bad_vacation", "ends before")
        self.refused(t, {"from": yesterday, "to": date(now + DAY)}, "bad_vacation", "past")
        self.refused(t, {"from": date(now + 400 * DAY), "to": date(now + 401 * DAY)}, "bad_vacation", "within")
        self.refused(t, {"from": today, "to": date(now + 40 * DAY)}, "vacation_days")
        self.refused(t, {"end": True}, "bad_vacation", "no vacation")
        # A range from today starts now; one overlapping it is refused.
        v = self.ok(t, {"from": today, "to": date(now + 2 * DAY)})
        self.assertEqual(v["days_left"], 27)
        self.assertTrue(v["vacations"][0]["current"])
        self.assertAlmostEqual(iso_time(v["vacations"][0]["from"]), now, delta=60)
        self.refused(t, {"days": 1}, "vacation_overlap")
        self.refused(t, {"from": date(now + 2 * DAY), "to": date(now + 5 * DAY)}, "vacation_overlap")
        self.ok(t, {"from": date(now + 3 * DAY), "to": date(now + 3 * DAY)})
        self.assertEqual(self.query("SELECT COUNT(*) FROM vacations"), [(2,)])

    def test_vacation_days_option(self):
        for bad in ("-1", "x", "367", "", "1e3", "99999999999999999999"):
            with self.subTest(value=bad):
                r = daemon.run_rookery("serve", "--port", "0", "--db", "/nonexistent/x.db", "--vacation-days", bad)
                self.assertEqual(r.returncode, 64, r.stderr)
                self.assertIn("--vacation-days must be a number from 0 to 366", r.stderr)
        self.assertIn("--vacation-days", daemon.run_rookery("serve", "--help").stdout)
        d = Daemon("--vacation-days", "3").start()
        self.addCleanup(d.cleanup)
        _, tokens, _ = d.create_game()
        r = d.get("/api/vacation", token=tokens["South"])
        self.assertEqual((r.json()["days_per_year"], r.json()["days_left"]), (3, 3))
        r = d.post("/api/vacation", {"days": 4}, token=tokens["South"])
        self.assertEqual((r.status, r.json()["error"]["code"]), (422, "vacation_days"), r)
        d.stop()


class FormTests(VacationCase):

    def seat_form(self, gid, token):
        page = self.d.get(f"/games/{gid}?seat={token}").text
        return page, re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)

    def test_seat_page_form(self):
        now = at(self.next_year(), 4, 7, 8)
        self.goto(now)
        gid, tokens = self.create({"type": "per_move", "days": 2}, seats=(("A", None), ("B", None)))
        page, csrf = self.seat_form(gid, tokens["South"])
        self.assertIn(f'action="/games/{gid}/vacation"', page)
        self.assertIn("30 of 30 vacation days left", page)
        self.assertNotIn("vacation", self.d.get(f"/games/{gid}").text.replace("vacation_until", ""))
        fields = {"seat": tokens["South"], "csrf": csrf}
        # Refused: no form token, a bad date; nothing changes.
        r = self.d.post_form(f"/games/{gid}/vacation", {"seat": tokens["South"], "days": "2"}, origin=self.d.base)
        self.assertEqual(r.status, 403, r)
        r = self.d.post_form(f"/games/{gid}/vacation", {**fields, "from": "2027-02-30", "to": "x"},
                             origin=self.d.base)
        self.assertEqual(r.status, 422, r)
        self.assertIn("YYYY-MM-DD", r.text)
        r = self.d.post_form(f"/games/{gid}/vacation", {**fields, "days": "2x"}, origin=self.d.base)
        self.assertEqual(r.status, 422, r)
        self.assertEqual(self.query("SELECT COUNT(*) FROM vacations"), [(0,)])
        # Two days from now, then ended.
        r = self.d.post_form(f"/games/{gid}/vacation", {**fields, "days": "2", "from": "", "to": ""},
                             origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        page, csrf = self.seat_form(gid, tokens["South"])
        self.assertIn("28 of 30 vacation days left", page)
        self.assertIn(f"On vacation until {date(now + 2 * DAY)}", page)
        self.assertIn("on vacation until", self.d.get(f"/games/{gid}?seat={tokens['North']}").text)
        r = self.d.post_form(f"/games/{gid}/vacation", {**fields, "end": "yes"}, origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        page, _ = self.seat_form(gid, tokens["South"])
        self.assertIn("29 of 30 vacation days left", page)
        self.assertNotIn("On vacation until", page)
        # A range by its dates.
        r = self.d.post_form(f"/games/{gid}/vacation", {**fields, "days": "", "from": date(now + 5 * DAY),
                                                        "to": date(now + 6 * DAY)}, origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        page, _ = self.seat_form(gid, tokens["South"])
        self.assertIn(f"Vacation from {date(now + 5 * DAY)} 00:00 UTC until {date(now + 7 * DAY)} 00:00 UTC", page)

    def test_my_games_form(self):
        now = at(self.next_year(), 5, 5, 10)
        self.goto(now)
        gid, tokens = self.create(None, confirm=True)
        r = self.d.post_page_form("/me", {"email": ANN[1]}, page="/me")
        self.assertEqual(r.status, 200, r)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            signin = [m for m in self.mails(ANN[1]) if m["Subject"] == "[Rookery] Your games"]
            if signin:
                break
            time.sleep(0.2)
        link = re.search(r"http://\S+(/me/[A-Za-z0-9_-]+)", signin[0].get_body(("plain",)).get_content()).group(1)
        listing = self.d.post_page_form(link, "", page=link).text
        self.assertIn("30 of 30 vacation days left", listing)
        token = re.search(r'action="/games/' + gid + r'/vacation".*?name="seat" value="([A-Za-z0-9_-]+)"'
                          r'><input type="hidden" name="csrf" value="([0-9a-f]+)"', listing, re.S)
        self.assertIsNotNone(token, listing)
        self.d.secrets.add(token.group(1))
        r = self.d.post_form(f"/games/{gid}/vacation", {"seat": token.group(1), "csrf": token.group(2), "days": "3"},
                             origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        # The player is the address: the original seat link sees the same vacation.
        v = self.ok(tokens["South"])
        self.assertEqual(v["days_left"], 27)
        self.assertAlmostEqual(iso_time(v["vacations"][0]["until"]), now + 3 * DAY, delta=60)
        # The signed-in list gives the player's own API token: it speaks for the address (in any case
        # of its letters), here and in the player's other games, and for nothing else.
        api = re.search(r'<code id="api-token">([A-Za-z0-9_-]{32})</code>', listing).group(1)
        self.d.secrets.add(api)
        v = self.ok(api)
        self.assertEqual(v["days_left"], 27)
        v = self.ok(api, {"end": True})
        self.assertIn(v["returned_days"], (2, 3))          # whole days: a moment of the first has passed
        self.assertEqual(self.ok(tokens["South"])["days_left"], 27 + v["returned_days"])
        self.assertEqual(self.d.get(f"/api/games/{gid}", token=api).status, 401, "not a seat token")
        # Nor does it act in a game: moves, resignations and gifts of time want the seat's token.
        before = self.d.snapshot()
        for path, body in (("moves", {"move": "S 7 1 6 1", "ply": 0}), ("resign", {}),
                           ("clock", {"give": {"seat": "North", "days": 1}})):
            with self.subTest(path=path):
                self.assertEqual(self.d.post(f"/api/games/{gid}/{path}", body, token=api).status, 401)
        self.assertEqual(self.d.snapshot(), before)
        self.refused(api[:-1] + ("A" if api[-1] != "A" else "B"), {"days": 1}, "unauthorized")
        self.refused(None, {"days": 1}, "unauthorized")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
