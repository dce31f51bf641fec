#!/usr/bin/env python3
"""clock.py - the correspondence clock, played against the real daemon with its time moved by libfaketime.

usage: python3 tests/api/clock.py PATH-TO-ROOKERY [unittest options]

The daemon runs under libfaketime with a timestamp file the test rewrites (daemon.FakeClock), so
that days pass in seconds; nobody opens the games while their time runs out:
- time controls at creation, bad ones refused (422 bad_clock) without creating anything;
- the clock's state in the API and on the game page (a <time> element);
- a per-move and a bank clock running out in a two-seat game (lost on time, with the mails) and in
  a four-seat one (Civil War: the army leaves, the note says why), within a sweep of the deadline;
- both reminders, once each; time given by one seat to another; clocks of games that end otherwise
  stopping; a deadline passing while the daemon is stopped, and the outage not charged.

Python standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.clock import DAY, HOUR, SWEEP, ClockCase, iso_time  # noqa: E402
from harness.maildir import ANN, BEN, text_of  # noqa: E402

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
CW_SEATS = ("South", "West", "North", "East")


class ClockStateTests(ClockCase):

    def assertBadClock(self, clock, part):
        before = self.query("SELECT COUNT(*) FROM games")[0][0]
        r = self.d.post("/api/games", {"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}], "clock": clock})
        self.assertEqual(r.status, 422, (clock, r))
        self.assertEqual(r.json()["error"]["code"], "bad_clock", r)
        self.assertIn(part, r.json()["error"]["message"])
        self.assertEqual(self.query("SELECT COUNT(*) FROM games")[0][0], before, clock)
        self.assertEqual(self.query("SELECT COUNT(*) FROM game_clocks"), [(0,)], clock)

    def test_bad_time_controls_are_refused(self):
        self.assertBadClock({"type": "hourglass", "days": 1}, "per_move")
        self.assertBadClock({"days": 1}, "per_move")
        self.assertBadClock("3 days", "per_move")
        self.assertBadClock([], "per_move")
        self.assertBadClock({"type": "per_move"}, "days")
        self.assertBadClock({"type": "per_move", "days": 0}, "days")
        self.assertBadClock({"type": "per_move", "days": -1}, "days")
        self.assertBadClock({"type": "per_move", "days": 1 / 48}, "days")        # half an hour
        self.assertBadClock({"type": "per_move", "days": 366}, "days")
        self.assertBadClock({"type": "per_move", "days": 1e308}, "days")
        self.assertBadClock({"type": "per_move", "days": "3"}, "days")
        self.assertBadClock({"type": "per_move", "days": True}, "days")
        self.assertBadClock({"type": "per_move", "days": 3, "increment_days": 1}, "increment_days")
        self.assertBadClock({"type": "per_move", "days": 3, "extra": 1}, "extra")
        self.assertBadClock({"type": "bank", "days": 30, "increment_days": 0}, "increment_days")
        self.assertBadClock({"type": "bank", "days": 30, "increment_days": 31}, "increment_days")
        self.assertBadClock({"type": "bank", "days": 30, "increment_days": 1, "max_days": 29}, "max_days")
        self.assertBadClock({"type": "bank", "days": 30, "max_days": None}, "max_days")
        # The least: an hour (1/24 of a day) is accepted.
        gid, _ = self.create({"type": "per_move", "days": 1 / 24}, seats=(("A", None), ("B", None)))
        self.assertEqual(self.d.game(gid)["clock"]["seats"][0]["remaining_s"], HOUR)

    def test_state_in_the_api_and_on_the_page(self):
        gid, _ = self.create(None, seats=(("A", None), ("B", None)))
        self.assertIsNone(self.d.game(gid)["clock"])           # no clock: the default

        now = self.clock.now()
        gid, tokens = self.create({"type": "per_move", "days": 3}, seats=(("A", None), ("B", None)))
        c = self.d.game(gid)["clock"]
        self.assertEqual((c["type"], c["days"]), ("per_move", 3))
        self.assertIsInstance(c["days"], int)                    # as it was asked for: 3, not 3.0
        self.assertEqual([s["seat"] for s in c["seats"]], ["South", "North"])
        south, north = c["seats"]
        self.assertRegex(south["deadline"], ISO)
        self.assertAlmostEqual(iso_time(south["deadline"]), now + 3 * DAY, delta=60)
        self.assertAlmostEqual(south["remaining_s"], 3 * DAY, delta=60)
        self.assertIsNone(north["deadline"])                     # not waited for
        self.assertEqual(north["remaining_s"], 3 * DAY)
        self.assertIsNone(south["vacation_until"])
        # The page: each seat's deadline as a <time> the script shows in local time, UTC without it.
        page = self.d.get(f"/games/{gid}").text
        self.assertIn(f'<time datetime="{south["deadline"]}">', page)
        self.assertIn(south["deadline"].replace("T", " ").replace("Z", " UTC"), page)
        # A move stops the mover's clock and starts the other's afresh.
        r = self.d.move(gid, tokens["South"], "N 9 2 8 4", 0)
        self.assertEqual(r.status, 201, r)
        south, north = self.d.game(gid)["clock"]["seats"]
        self.assertIsNone(south["deadline"])
        self.assertEqual(south["remaining_s"], 3 * DAY)
        self.assertAlmostEqual(iso_time(north["deadline"]), self.clock.now() + 3 * DAY, delta=60)

    def test_bank_and_setup_phases(self):
        gid, tokens = self.create({"type": "bank", "days": 0.5, "increment_days": 0.25, "max_days": 0.6},
                                  seats=(("A", None), ("B", None)))
        c = self.d.game(gid)["clock"]
        self.assertEqual((c["type"], c["days"], c["increment_days"], c["max_days"]), ("bank", 0.5, 0.25, 0.6))
        self.assertEqual(self.d.move(gid, tokens["South"], "N 9 2 8 4", 0).status, 201)
        # Half a day less a moment, plus a quarter: capped at 0.6 of a day.
        self.assertEqual(self.seat_clock(self.d.game(gid), "South")["remaining_s"], int(0.6 * DAY))
        # A bank without max_days may not grow above its start.
        gid, tokens = self.create({"type": "bank", "days": 1, "increment_days": 1}, seats=(("A", None), ("B", None)))
        self.assertEqual(self.d.game(gid)["clock"]["max_days"], 1)
        self.assertEqual(self.d.move(gid, tokens["South"], "N 9 2 8 4", 0).status, 201)
        self.assertEqual(self.seat_clock(self.d.game(gid), "South")["remaining_s"], DAY)
        # Cyvasse's setup: both seats are waited for, so both clocks run.
        gid, _ = self.create({"type": "per_move", "days": 2}, variant="cyvasse", seats=(("A", None), ("B", None)))
        self.assertEqual([s["deadline"] is not None for s in self.d.game(gid)["clock"]["seats"]], [True, True])

    def test_home_page_form(self):
        tok, hdr = self.d.page_form("/new/nchess")
        base = {"variant": "nchess", "name0": "A", "name1": "B", **tok}
        r = self.d.post_form("/games", {**base, "clock": "bank", "days": "2", "increment_days": "0.5",
                                        "max_days": "3"}, origin=self.d.base, headers=hdr)
        self.assertEqual(r.status, 201, r)
        gid = re.search(r"/games/([a-z0-9]+)\?seat=", r.text).group(1)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))
        c = self.d.game(gid)["clock"]
        self.assertEqual((c["type"], c["days"], c["increment_days"], c["max_days"]), ("bank", 2, 0.5, 3))
        r = self.d.post_form("/games", {**base, "clock": "per_move", "days": "1", "increment_days": "",
                                        "max_days": ""}, origin=self.d.base, headers=hdr)
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))
        before = self.query("SELECT COUNT(*) FROM games")
        for bad in ({"clock": "per_move", "days": "soon"}, {"clock": "per_move", "days": "0"},
                    {"clock": "sundial", "days": "1"}, {"clock": "bank", "days": "2", "max_days": "1"}):
            r = self.d.post_form("/games", {**base, **bad}, origin=self.d.base, headers=hdr)
            self.assertEqual(r.status, 422, (bad, r))
            self.assertIn('class="error"', r.text)
        self.assertEqual(self.query("SELECT COUNT(*) FROM games"), before)
        r = self.d.post_form("/games", {**base, "clock": "none", "days": ""}, origin=self.d.base, headers=hdr)
        self.assertEqual(r.status, 201, r)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", r.text))

    def test_actions_at_any_time_do_not_reset_the_clock(self):
        # Civil War's alliances may be declared at any time, by the army to move too: that is not
        # its move, so its per-move clock must not start afresh (nor a bank gain its increment).
        for clock in ({"type": "per_move", "days": 1}, {"type": "bank", "days": 1, "increment_days": 1, "max_days": 5}):
            gid, tokens = self.create(clock, variant="civil-war", seats=tuple((s, None) for s in CW_SEATS))
            g = self.d.game(gid)
            first = g["turn"][0]
            deadline = self.seat_clock(g, first)["deadline"]
            self.clock.advance(6 * HOUR)
            view = self.d.game(gid, token=tokens[first])
            ally = next(m["move"] for m in view["legal"] if m["move"].startswith("ally "))
            r = self.d.move(gid, tokens[first], ally, view["ply"])
            self.assertEqual(r.status, 201, r)
            g = self.d.game(gid)
            self.assertEqual(g["turn"], [first])
            self.assertEqual(self.seat_clock(g, first)["deadline"], deadline, clock)

    def test_rules_pages_tell_what_running_out_does(self):
        self.assertIn("loses\nthe game on time", self.d.get("/rules/nchess").text)
        self.assertIn("leaves the game as if\nthey had resigned", self.d.get("/rules/civil-war").text)

    def test_clocks_of_games_ended_otherwise_stop(self):
        gid, tokens = self.create({"type": "per_move", "days": 1}, seats=(("A", None), ("B", None)))
        self.assertEqual(self.d.post(f"/api/games/{gid}/resign", token=tokens["South"]).status, 200)
        g = self.d.game(gid)
        self.assertEqual([s["deadline"] for s in g["clock"]["seats"]], [None, None])
        self.assertEqual(self.query("SELECT COUNT(*) FROM seat_clocks WHERE deadline IS NOT NULL"), [(0,)])
        gid2, tokens = self.create({"type": "per_move", "days": 1}, seats=(("A", None), ("B", None)))
        for seat, action in (("South", "offer"), ("North", "accept")):
            self.assertEqual(self.d.post(f"/api/games/{gid2}/draw", {"action": action}, token=tokens[seat]).status, 200)
        self.assertEqual([s["deadline"] for s in self.d.game(gid2)["clock"]["seats"]], [None, None])
        # A day later, nothing has changed: a game that ended is never lost on time.
        self.clock.advance(DAY + 2 * SWEEP)
        self.wait_sweep()
        self.assertEqual(self.d.game(gid)["result"]["summary"], "North wins: South resigned")
        self.assertEqual(self.d.game(gid2)["result"]["summary"], "drawn by agreement")

    def test_giving_time(self):
        gid, tokens = self.create({"type": "per_move", "days": 1}, confirm=True)
        before = iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"])
        r = self.d.post(f"/api/games/{gid}/clock", {"give": {"seat": "South", "days": 1}}, token=tokens["North"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(iso_time(self.seat_clock(r.json(), "South")["deadline"]), before + DAY)
        told = self.mails(ANN[1], "time_given")
        self.assertEqual(len(told), 1)
        self.assertIn("Ben (North) gave you 1 day 0 hours more time", text_of(told[0]))
        self.assertIn("Your deadline: ", text_of(told[0]))
        self.assertEqual(self.mails(BEN[1], "time_given"), [])
        # To a seat not to move: its next move has that much more.
        r = self.d.post(f"/api/games/{gid}/clock", {"give": {"seat": "north", "days": 0.5}}, token=tokens["South"])
        self.assertEqual(self.seat_clock(r.json(), "North")["remaining_s"], DAY + DAY // 2)
        errors = [
            ({"give": {"seat": "North", "days": 1}}, tokens["North"], 422, "bad_clock"),     # to oneself
            ({"give": {"seat": "South", "days": 31}}, tokens["North"], 422, "bad_clock"),
            ({"give": {"seat": "South", "days": 0.01}}, tokens["North"], 422, "bad_clock"),
            ({"give": {"seat": "South", "days": "1"}}, tokens["North"], 422, "bad_clock"),
            ({"give": {"seat": "Nobody", "days": 1}}, tokens["North"], 400, "bad_request"),
            ({"give": {"seat": "South"}}, tokens["North"], 400, "bad_request"),
            ({"take": {"seat": "South", "days": 1}}, tokens["North"], 400, "bad_request"),
            ({"give": {"seat": "South", "days": 1}}, None, 401, "unauthorized"),
        ]
        for body, token, status, code in errors:
            r = self.d.post(f"/api/games/{gid}/clock", body, token=token)
            self.assertEqual((r.status, r.json()["error"]["code"]), (status, code), body)
        self.assertEqual(iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"]), before + DAY)
        # By mail: Ben answers his invitation with the command; Ann is told, Ben gets the next reply address.
        self.mail_in(self.reply(self.d.invitation(gid, BEN[1]), "Give time 2 days to south.", BEN[1]))
        self.assertEqual(iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"]), before + 3 * DAY)
        self.assertIn("Ben (North) gave you 2 days 0 hours more time", text_of(self.mails(ANN[1], "time_given")[-1]))
        self.assertIn("your gift of 2 days 0 hours to South in", text_of(self.mails(BEN[1], "accepted")[-1]))
        # On the seat page: a form with the seat's form token, like every seat form.
        page = self.d.get(f"/games/{gid}?seat={tokens['North']}").text
        form = re.search(r'<form method="post" action="/games/%s/clock"[^>]*>(.*?)</form>' % gid, page, re.S)
        self.assertIsNotNone(form, page[-3000:])
        self.assertIn('<option value="South">South</option>', form.group(1))
        self.assertNotIn('<option value="North">', form.group(1))
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form.group(1)).group(1)
        fields = {"seat": tokens["North"], "csrf": csrf, "to": "South", "days": "0.25"}
        r = self.d.post_form(f"/games/{gid}/clock", fields, origin=self.d.base)
        self.assertEqual(r.status, 303, r)
        self.assertEqual(iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"]), before + 3 * DAY + 6 * HOUR)
        for bad in ({**fields, "csrf": "0" * 64}, {**fields, "days": "lots"}, {**fields, "days": "0.01"}):
            r = self.d.post_form(f"/games/{gid}/clock", bad, origin=self.d.base)
            self.assertIn(r.status, (403, 422), (bad, r))
        self.assertEqual(iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"]), before + 3 * DAY + 6 * HOUR)
        plain, ptokens = self.create(None, seats=(("A", None), ("B", None)))
        r = self.d.post(f"/api/games/{plain}/clock", {"give": {"seat": "South", "days": 1}}, token=ptokens["North"])
        self.assertEqual((r.status, r.json()["error"]["code"]), (409, "no_clock"))


class TimeoutTests(ClockCase):

    def test_time_runs_out_without_anyone_looking(self):
        day1, _ = self.create({"type": "per_move", "days": 1}, confirm=True)
        bank, btok = self.create({"type": "bank", "days": 0.5, "increment_days": 0.25, "max_days": 0.6},
                                 seats=(("A", None), ("B", None)))
        self.assertEqual(self.d.move(bank, btok["South"], "N 9 2 8 4", 0).status, 201)
        self.assertEqual(self.d.move(bank, btok["North"], "n 1 2 2 4", 1).status, 201)
        cw, _ = self.create({"type": "per_move", "days": 1}, variant="civil-war",
                            seats=tuple((s, None) for s in CW_SEATS))
        cw_first = self.d.game(cw)["turn"][0]
        three = self.create({"type": "per_move", "days": 3}, seats=(("Cy", "cy@players.test"), ("Di", None)),
                            confirm=True)[0]
        invitation = text_of(self.d.invitation(three, "cy@players.test"))
        self.assertRegex(invitation, r"Your deadline: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(UTC\), (3 days 0 hours|2 days 23 hours) from now")

        # A day later (and a sweep), nobody having looked.
        self.clock.advance(DAY + 2 * SWEEP)
        self.wait_sweep()
        g = self.d.game(day1)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"]["summary"], "North wins on time: South ran out of time")
        self.assertEqual(g["result"]["ranks"], [2, 1])
        self.assertEqual([s["deadline"] for s in g["clock"]["seats"]], [None, None])
        for who in (ANN, BEN):
            over = self.mails(who[1], "game_over")
            self.assertEqual(len(over), 1, who)
            self.assertIn("is over: North wins on time: South ran out of time.", text_of(over[0]))
        # The bank: South had 0.6 of a day after the cap, North's move gave it the turn.
        self.assertEqual(self.d.game(bank)["result"]["summary"], "North wins on time: South ran out of time")
        # Civil War goes on: the first army left as by its resignation, the note says why.
        g = self.d.game(cw)
        self.assertEqual(g["status"], "running")
        last = self.d.all_moves(cw)[-1]
        self.assertEqual((last["seat"], last["move"]), (cw_first, "resign"))
        self.assertTrue(last["note"].startswith("ran out of time"), last)
        self.assertNotIn(cw_first, g["turn"])
        self.assertIsNone(self.seat_clock(g, cw_first)["deadline"])
        nxt = self.seat_clock(g, g["turn"][0])
        self.assertAlmostEqual(iso_time(nxt["deadline"]), self.clock.now() + DAY, delta=3 * SWEEP)
        log = self.d.stderr()
        self.assertIn(f"game {day1}: South ran out of time", log)
        self.assertIn(f"game {day1} over: North wins on time: South ran out of time", log)
        # Three days per move: no reminder yet, with two days left.
        self.assertEqual(self.mails("cy@players.test", "reminder"), [])

        # A day left of three: the first reminder.
        self.clock.set(self.clock.offset + DAY)
        self.wait_sweep()
        got = self.mails("cy@players.test", "reminder")
        self.assertEqual(len(got), 1)
        self.assertIn("your time is running out", text_of(got[0]))
        self.assertRegex(text_of(got[0]), r"Your deadline: \S+ \(UTC\), (23 hours|1 day 0 hours)")
        # The last tenth (7.2 hours): the second; then no more for this deadline.
        self.clock.advance(17 * HOUR)
        self.wait_sweep()
        self.assertEqual(len(self.mails("cy@players.test", "reminder")), 2)
        self.clock.advance(HOUR)
        self.wait_sweep()
        self.assertEqual(len(self.mails("cy@players.test", "reminder")), 2)
        self.assertEqual(self.d.game(three)["status"], "running")


class OutageTests(ClockCase):

    def test_outage_is_not_charged(self):
        gid, _ = self.create({"type": "per_move", "days": 1}, seats=(("A", None), ("B", None)))
        before = iso_time(self.seat_clock(self.d.game(gid), "South")["deadline"])
        self.wait_sweep()
        self.d.stop()
        # Two days pass with the daemon stopped: the deadline passes meanwhile.
        self.clock.advance(2 * DAY)
        self.d.start()
        g = self.d.game(gid)
        self.assertEqual(g["status"], "running")
        after = iso_time(self.seat_clock(g, "South")["deadline"])
        self.assertAlmostEqual(after - before, 2 * DAY, delta=2 * SWEEP)
        self.assertGreaterEqual(after - before, 2 * DAY - 5)
        self.assertRegex(self.d.stderr(), r"the daemon was down \d+ s; 1 running clock\(s\) extended by it")
        # Its time still runs out, with the daemon running.
        self.clock.advance(DAY)
        self.wait_sweep()
        self.assertEqual(self.d.game(gid)["result"]["summary"], "North wins on time: South ran out of time")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
