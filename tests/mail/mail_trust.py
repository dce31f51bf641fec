#!/usr/bin/env python3
"""mail_trust.py - the attacks on Rookery's mail, each played against the real daemon.

usage: python3 tests/mail/mail_trust.py PATH-TO-ROOKERY [unittest options]

Each test starts `rookery serve` writing its mails into a maildir, plays the attacker through
the API and `rookery mail-in`, and reads what every address received:
- a stale reply address (the invitation's, once the seat was mailed a newer one) neither acts
  nor earns its sender an answer: whatever Rookery answers goes to the seat's own address;
- a reply address acts once;
- nobody can aim Rookery's mail at a stranger: an address that never acted hears once (the
  invitation), however many plies or draw offers the game's creator makes with the seat tokens
  they hold, and the creator's copy of a seat's token cannot ask for mail on its behalf;
- the owner's choices hold: one-click unsubscribe (RFC 8058) and the invitations-only block;
- the daily cap per address holds back what is over it.

Python standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import LIMITS, faketime_env  # noqa: E402
from harness.maildir import ANN, BEN, DOMAIN, MaildirCase, text_of  # noqa: E402
from harness.nchess import SHUFFLE  # noqa: E402


class StaleReplyTests(MaildirCase):

    def test_invitation_reply_cannot_resign_once_a_newer_mail_went_out(self):
        gid, tokens = self.new_game()
        inv = self.invitation(ANN[1])
        self.confirm(inv)
        self.d.play(gid, tokens, SHUFFLE[:2])          # Ann is mailed her move at ply 2
        ann = self.box.wait_count(ANN[1], 2)
        self.assertEqual(len(ann), 2)
        self.assertNotEqual(ann[1]["Reply-To"].addresses[0].addr_spec, inv["Reply-To"].addresses[0].addr_spec)
        self.mail_in(self.reply(inv, "resign", "someone-else@example.net"))
        self.idle_outbox()
        g = self.state(gid)
        self.assertEqual(g["status"], "running", g)
        self.assertEqual(g["ply"], 2)
        self.assertEqual(self.box.to("someone-else@example.net"), [], "the sender of a stale reply hears nothing")
        refusal = self.box.wait_count(ANN[1], 3)[-1]
        self.assertIn("old reply address", text_of(refusal))
        # The answer to the seat carries the live reply address, and it acts (once).
        live = refusal["Reply-To"].addresses[0].addr_spec
        self.assertEqual(live, ann[1]["Reply-To"].addresses[0].addr_spec)
        self.mail_in(self.reply(refusal, "offer draw", ANN[1]))
        self.assertEqual(self.state(gid)["draw_offer"], "South")
        self.mail_in(self.reply(refusal, "withdraw draw", ANN[1]))
        self.assertEqual(self.state(gid)["draw_offer"], "South", "a reply address acts once")

    def test_garbage_to_a_stale_address_mails_nobody_but_the_seat(self):
        gid, tokens = self.new_game()
        inv = self.invitation(ANN[1])
        self.confirm(inv)
        self.d.play(gid, tokens, SHUFFLE[:2])
        self.box.wait_count(ANN[1], 2)
        self.mail_in(self.reply(inv, "let me in", "thief@example.net"))
        self.idle_outbox()
        self.assertEqual(self.box.to("thief@example.net"), [])
        for m in self.box.all():
            self.assertNotIn("thief@example.net", str(m["To"]))
        self.assertEqual(self.state(gid)["ply"], 2)

    def test_unconfirmed_seat_answers_its_invitation_once(self):
        """A reply to the invitation is the seat's live address while nothing newer was mailed."""
        gid, tokens = self.new_game()
        inv = self.invitation(ANN[1])
        self.mail_in(self.reply(inv, SHUFFLE[0], ANN[1]))
        self.idle_outbox()
        self.assertEqual(self.state(gid)["ply"], 1)
        # The reply confirmed Ann's address: she gets the confirmation of her move.
        got = self.box.wait_count(ANN[1], 2)
        self.assertIn("is accepted", text_of(got[-1]))
        # The same reply address again: it has acted.
        self.mail_in(self.reply(inv, "resign", ANN[1]))
        self.assertEqual(self.state(gid)["status"], "running")


class OwnerActsTests(MaildirCase):

    def test_a_mailed_link_used_for_a_change_confirms_before_the_change_mails(self):
        gid, tokens = self.new_game()
        inv = self.invitation(BEN[1])
        link = daemon.SEAT_LINK_IN_MAIL.search(text_of(inv)).group(1)
        mailed = link.split("seat=")[1]
        self.assertNotEqual(mailed, tokens["North"], "the invitation has a seat link of its own")
        self.assertEqual(self.d.post(f"/api/games/{gid}/resign", None, token=mailed).status, 200)
        got = self.box.wait_count(BEN[1], 2)
        self.assertEqual(len(got), 2, "the game-over mail reaches the owner who resigned")
        self.assertIn("is over", text_of(got[1]))

    def test_a_confirmed_address_is_invited_without_the_warning(self):
        self.new_game()
        self.confirm(self.invitation(BEN[1]))
        gid2, _ = self.new_game(south=("Cat", "cat@players.test"), north=BEN)
        got = self.box.wait_count(BEN[1], 2)
        self.assertEqual(len(got), 2)
        self.assertNotIn("only mail Rookery sends you", text_of(got[1]))


class BackscatterTests(MaildirCase):

    def test_refusals_go_to_the_seat_and_are_limited_per_seat(self):
        gid, tokens = self.new_game()
        inv = self.invitation(ANN[1])
        self.confirm(inv)
        self.d.play(gid, tokens, SHUFFLE[:2])
        live = self.box.wait_count(ANN[1], 2)[-1]
        limit = LIMITS["LIMIT_REFUSALS_PER_SEAT_HOUR"]
        victims = [f"victim{i}@example.net" for i in range(limit + 3)]
        for v in victims:                      # each from another forged sender
            self.mail_in(self.reply(live, "\n".join(f"spam line {k}" for k in range(100)), v))
        self.idle_outbox()
        for v in victims:
            self.assertEqual(self.box.to(v), [], v)
        refusals = [m for m in self.box.to(ANN[1]) if "could not be acted on" in text_of(m)]
        self.assertEqual(len(refusals), limit, "refusals are limited per seat, whatever the From:")
        quoted = [ln for ln in text_of(refusals[0]).splitlines() if ln.startswith("> ")]
        self.assertEqual(len(quoted), LIMITS["LIMIT_REFUSAL_QUOTE_LINES"])


class FloodTests(MaildirCase):

    def test_two_hundred_plies_and_draw_loops_mail_a_stranger_once(self):
        victim = ("Vic", "victim@example.net")
        gid, tokens = self.new_game(south=("Mallory", None), north=victim)
        for i in range(200):
            ply = i
            r = self.d.move(gid, tokens["South" if ply % 2 == 0 else "North"], SHUFFLE[ply % 4], ply)
            self.assertEqual(r.status, 201, r)
        for _ in range(20):
            self.assertEqual(self.d.post(f"/api/games/{gid}/draw", {"action": "offer"},
                                         token=tokens["South"]).status, 200)
            self.assertEqual(self.d.post(f"/api/games/{gid}/draw", {"action": "withdraw"},
                                         token=tokens["South"]).status, 200)
        self.assertEqual(self.d.post(f"/api/games/{gid}/resign", None, token=tokens["North"]).status, 200)
        self.idle_outbox()
        got = self.box.to(victim[1])
        self.assertEqual([m["Message-ID"] for m in got], [f"<{gid}.1.invite@{DOMAIN}>"], "the invitation alone")
        self.assertIn("only mail Rookery sends you", text_of(got[0]))
        self.assertIn("Rookery will not write to you again", text_of(got[0]))

    def test_the_creators_copy_of_a_seat_token_cannot_ask_for_mail(self):
        victim = ("Vic", "victim@example.net")
        gid, tokens = self.new_game(south=("Mallory", None), north=victim)
        page = self.d.get(f"/games/{gid}?seat={tokens['North']}")
        self.assertNotIn(f'action="/games/{gid}/mail"', page.text)
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)
        r = self.d.post_form(f"/games/{gid}/mail", {"seat": tokens["North"], "csrf": csrf and csrf.group(1)},
                             origin=self.d.base)
        self.assertEqual(r.status, 403, r)
        self.d.play(gid, tokens, SHUFFLE[:2])
        self.idle_outbox()
        self.assertEqual(len(self.box.to(victim[1])), 1)


class OwnerChoiceTests(MaildirCase):

    def test_every_mail_can_be_unsubscribed_in_one_click(self):
        gid, tokens = self.new_game()
        inv = self.invitation(BEN[1])
        self.confirm(inv)
        self.d.play(gid, tokens, SHUFFLE[:1])
        got = self.box.wait_count(BEN[1], 2)
        for m in got:
            self.assertEqual(m["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
            self.assertRegex(m["List-Unsubscribe"], r"^<" + re.escape(self.d.base) + r"/mail/stop/[0-9]+-[a-z2-7]{16}>$")
        url = got[-1]["List-Unsubscribe"].strip("<>")
        path = url[len(self.d.base):]
        before = self.d.snapshot()["addresses"]
        page = self.d.get(path)
        self.assertEqual(page.status, 200)
        self.assertIn(BEN[1], page.text)
        self.assertEqual(self.d.snapshot()["addresses"], before, "a GET changes nothing")
        self.assertEqual(self.d.get(path[:-1] + ("a" if path[-1] != "a" else "b")).status, 404)
        # The mail provider's one click: no Origin, no form token, the link is the credential.
        r = self.d.post(path, "List-Unsubscribe=One-Click",
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(r.status, 200, r)
        self.d.play(gid, tokens, SHUFFLE[1:3], first_ply=1)
        self.idle_outbox()
        self.assertEqual(len(self.box.to(BEN[1])), 2, "no mail after the one click")
        # The page's own form resumes it; it needs the form token.
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', self.d.get(path).text).group(1)
        self.assertEqual(self.d.post_form(path, {"action": "resume"}, origin=self.d.base).status, 403)
        self.assertEqual(self.d.post_form(path, {"action": "resume", "csrf": csrf}, origin=self.d.base).status, 200)
        self.d.play(gid, tokens, [SHUFFLE[3], SHUFFLE[0]], first_ply=3)     # Ben to move again
        self.assertEqual(len(self.box.wait_count(BEN[1], 3)), 3)

    def test_blocked_invitations(self):
        gid, tokens = self.new_game()
        inv = self.invitation(BEN[1])
        path = inv["List-Unsubscribe"].strip("<>")[len(self.d.base):]
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', self.d.get(path).text).group(1)
        self.assertEqual(self.d.post_form(path, {"action": "invitations", "csrf": csrf},
                                          origin=self.d.base).status, 200)
        self.new_game(south=("Cat", "cat@players.test"), north=BEN)
        self.invitation("cat@players.test")
        self.idle_outbox()
        self.assertEqual(len(self.box.to(BEN[1])), 1, "no second invitation")
        # Mail about the games Ben plays still comes once he asks for it.
        self.confirm(inv)
        self.d.play(gid, tokens, SHUFFLE[:1])
        self.assertEqual(len(self.box.wait_count(BEN[1], 2)), 2)


class DailyCapTests(MaildirCase):

    def test_mails_over_the_daily_cap_are_held(self):
        cap = LIMITS["LIMIT_MAILS_PER_ADDRESS_DAY"]
        gid, tokens = self.new_game()
        self.confirm(self.invitation(ANN[1]))
        plies = 2 * cap + 10
        for ply in range(plies):
            r = self.d.move(gid, tokens["South" if ply % 2 == 0 else "North"], SHUFFLE[ply % 4], ply)
            self.assertEqual(r.status, 201, r)
        self.idle_outbox()
        self.assertEqual(len(self.box.to(ANN[1])), cap)
        held = self.d.snapshot()["held_mails"]
        self.assertEqual(len(held), plies // 2 + 1 - cap, held)
        self.assertTrue(all(h[1] == gid and h[2] == "your_turn" for h in held), held)
        # The next day (the clock moved by libfaketime), the first sweep sends one summary.
        self.d.stop()
        self.d.extra_env = faketime_env("+1d")
        self.d.start()
        got = self.box.wait_count(ANN[1], cap + 1)
        self.assertEqual(len(got), cap + 1)
        summary = text_of(got[-1])
        self.assertIn(f"held back {len(held)} mails about your games", summary)
        self.assertIn(f"{gid}: {len(held)} mails", summary)
        self.assertIn(f"{self.d.base}/me", summary)
        self.assertEqual(got[-1]["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
        self.assertEqual(self.d.snapshot()["held_mails"], [])


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
