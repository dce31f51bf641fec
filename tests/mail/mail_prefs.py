#!/usr/bin/env python3
"""mail_prefs.py - how much mail each address gets, against the real daemon and its maildir.

usage: python3 tests/mail/mail_prefs.py PATH-TO-ROOKERY [unittest options]

Each address chooses a mail at every move (the default), one digest a day at an hour of its
choice (UTC), or only the essentials (invitations, reminders, results, and the answers to what its
owner did by mail). Tests:
- the choice is made on the address's mail page (the link at the foot of every mail), on the
  signed-in "My games" list, and by the mail commands "every move", "digest [H]", "essentials"
  sent to the seat's live reply address; a stale reply address, a forged or cross-site form and
  bad values change nothing;
- what each mode sends and holds back while a game goes on (the held mails are not counted
  against the daily cap);
- the digest, with the daemon's clock moved by libfaketime while it runs: it arrives at each
  address's hour, lists the right games with working seat links, comes at most once a day, and
  not at all when nothing waits or the address chose only the essentials.

Python standard library only.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.maildir import ANN, BEN, DigestClock, MaildirCase, text_of  # noqa: E402
from harness.nchess import SHUFFLE  # noqa: E402

CAT = ("Cat", "cat@players.test")
DAN = ("Dan", "dan@players.test")
EVE = ("Eve", "eve@players.test")
# How long a digest may take to come once its hour has begun: a sweep interval, and room for a slow build.
SWEEP_S = 2             # the daemons here look for digests due this often (serve --sweep-seconds)
DIGEST_WAIT = SWEEP_S * 2 + 30
PREFS_FORM = re.compile(r'<form method="post" action="(/mail/stop/[^"]+)">\s*<input type="hidden" name="csrf" '
                        r'value="([0-9a-f]+)">\s*<fieldset>\s*<legend>How much mail</legend>(.*?)</form>', re.S)


class PrefsCase(MaildirCase):

    def row(self, address):
        """The address's stored choice: (mail_mode, digest_hour, digest_day, day_count)."""
        rows = daemon.db_query(self.d.db, "SELECT mail_mode, digest_hour, digest_day, day_count FROM addresses "
                                          "WHERE email = ?", (address,))
        return rows[0] if rows else None

    def mode(self, address):
        return self.row(address)[:2]

    def page_of(self, address):
        """The path of the address's mail page, from the foot of a mail it got."""
        m = self.box.to(address)[-1]
        url = m["List-Unsubscribe"].strip("<>")
        self.assertIn(url, text_of(m), "the mail's foot links the same page")
        return url[len(self.d.base):]

    def prefs_form(self, page_text):
        """The choice form of a page: its action, its form token and its options."""
        m = PREFS_FORM.search(page_text)
        self.assertIsNotNone(m, page_text[-3000:])
        return m.group(1), m.group(2), m.group(3)

    def choose(self, path, mode, hour=None, page=None):
        """Post the choice form of the page at path (or of the page text given), as a browser would."""
        action, csrf, _ = self.prefs_form(page if page is not None else self.d.get(path).text)
        fields = {"csrf": csrf, "action": "mail_mode", "mode": mode, "hour": "7" if hour is None else str(hour)}
        return self.d.post_form(action, fields, origin=self.d.base)

    def confirmed(self, gid, player):
        self.d.confirm_by_invitation(gid, player[1])

    def game(self, south, north):
        gid, tokens = self.new_game(south, north)
        self.d.secrets.update(tokens.values())
        return gid, tokens

    def mails(self, address, n):
        got = self.box.wait_count(address, n)
        self.assertEqual(len(got), n, [m["Subject"] for m in got])
        return got


class ChoiceTests(PrefsCase):
    """Each way of choosing, each way round; what cannot choose changes nothing."""

    def test_on_the_mail_page(self):
        gid, _ = self.game(ANN, BEN)
        self.confirmed(gid, ANN)
        path = self.page_of(ANN[1])
        self.assertEqual(self.mode(ANN[1]), ("every_move", None), "every move is the default")
        page = self.d.get(path).text
        _, _, options = self.prefs_form(page)
        self.assertIn('value="every_move" checked', options)
        self.assertIn('<option value="7" selected>07:00</option>', options, "the default hour is offered")
        for mode, hour, want, said in (("digest", 18, ("digest", 18), "one digest a day at 18:00 UTC"),
                                       ("essentials", 3, ("essentials", 18), "only the essentials"),
                                       ("digest", 0, ("digest", 0), "one digest a day at 00:00 UTC"),
                                       ("every_move", 5, ("every_move", 0), "a mail at every move")):
            with self.subTest(mode=mode, hour=hour):
                r = self.choose(path, mode, hour)
                self.assertEqual(r.status, 200, r)
                self.assertIn("Done:", r.text)
                self.assertIn(said, r.text)
                self.assertEqual(self.mode(ANN[1]), want)
                self.assertIn(f'value="{mode}" checked', self.prefs_form(r.text)[2])

    def test_bad_choices_change_nothing(self):
        gid, _ = self.game(ANN, BEN)
        self.confirmed(gid, ANN)
        path = self.page_of(ANN[1])
        self.assertEqual(self.choose(path, "digest", 9).status, 200)
        before = self.d.snapshot()
        _, csrf, _ = self.prefs_form(self.d.get(path).text)
        for fields in ({"mode": "digest", "hour": "24"}, {"mode": "digest", "hour": "-1"},
                       {"mode": "digest", "hour": "7x"}, {"mode": "digest", "hour": ""}, {"mode": "digest"},
                       {"mode": "all", "hour": "7"}, {"mode": "", "hour": "7"}, {"hour": "7"}):
            with self.subTest(fields=fields):
                r = self.d.post_form(path, {"csrf": csrf, "action": "mail_mode", **fields}, origin=self.d.base)
                self.assertEqual(r.status, 400, r)
                self.assertIn("a daily digest at a whole hour", r.text)
        # Without the form token, from another site, or with a made-up link: refused.
        ok = {"action": "mail_mode", "mode": "essentials", "hour": "7"}
        self.assertEqual(self.d.post_form(path, ok, origin=self.d.base).status, 403)
        self.assertEqual(self.d.post_form(path, {**ok, "csrf": "0" * 64}, origin=self.d.base).status, 403)
        self.assertEqual(self.d.post_form(path, {**ok, "csrf": csrf}, origin="http://evil.example").status, 403)
        forged = path[:-1] + ("a" if path[-1] != "a" else "b")
        self.assertEqual(self.d.post_form(forged, {**ok, "csrf": csrf}, origin=self.d.base).status, 404)
        self.assertEqual(self.d.snapshot(), before)
        self.assertEqual(self.mode(ANN[1]), ("digest", 9))

    def test_in_my_games(self):
        gid, _ = self.game(ANN, BEN)
        self.confirmed(gid, ANN)
        for mode, hour, want in (("digest", 21, ("digest", 21)), ("essentials", 0, ("essentials", 21)),
                                 ("every_move", 0, ("every_move", 21))):
            with self.subTest(mode=mode):
                listing = self.sign_in(ANN[1])
                self.assertIn("How much mail", listing)
                action, _, _ = self.prefs_form(listing)
                self.assertEqual(action, self.page_of(ANN[1]), "the form posts to the address's own page")
                r = self.choose(action, mode, hour, page=listing)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(self.mode(ANN[1]), want)

    def sign_in(self, address):
        """Ask for a sign-in link, follow it from the maildir, and return the list of games."""
        before = len([m for m in self.box.to(address) if m["Subject"] == "[Rookery] Your games"])
        r = self.d.post_page_form("/me", {"email": address}, page="/me")
        self.assertEqual(r.status, 200, r)
        deadline = time.monotonic() + 20
        while True:
            found = [m for m in self.box.to(address) if m["Subject"] == "[Rookery] Your games"]
            if len(found) > before or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertGreater(len(found), before, "no sign-in mail")
        path = "/me/" + re.search(r"/me/([A-Za-z0-9_-]+)", text_of(found[-1])).group(1)
        listing = self.d.post_page_form(path, "", page=path)
        self.assertEqual(listing.status, 200, listing)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", listing.text))
        return listing.text

    def test_by_mail(self):
        gid, tokens = self.game(ANN, BEN)
        inv = self.invitation(ANN[1])
        # The invitation's reply address is the seat's live one: "digest 7" acts on Ann's address.
        self.mail_in(self.reply(inv, "Digest 7", ANN[1]))
        self.assertEqual(self.mode(ANN[1]), ("digest", 7))
        conf = self.mails(ANN[1], 2)[-1]
        self.assertIn("your choice of mail is recorded", text_of(conf))
        self.assertIn("one digest a day at 07:00 UTC", text_of(conf))
        self.assertTrue(conf["Reply-To"], "the confirmation carries the next live reply address")
        n = 2
        for line, want, said in (("every move.", ("every_move", 7), "a mail at every move"),
                                 ("ESSENTIALS", ("essentials", 7), "only the essentials"),
                                 ("digest", ("digest", 7), "at 07:00 UTC"),
                                 ("digest 18:00 UTC", ("digest", 18), "at 18:00 UTC"),
                                 ("  every   move ", ("every_move", 18), "a mail at every move")):
            with self.subTest(line=line):
                self.mail_in(self.reply(conf, line, ANN[1]))
                self.assertEqual(self.mode(ANN[1]), want)
                n += 1
                conf = self.mails(ANN[1], n)[-1]
                self.assertIn(said, text_of(conf))
        # A bad hour is refused with the reason, and changes nothing.
        self.mail_in(self.reply(conf, "digest 24", ANN[1]))
        n += 1
        refusal = self.mails(ANN[1], n)[-1]
        self.assertIn("could not be acted on", text_of(refusal))
        self.assertIn("0 to 23", text_of(refusal))
        self.assertEqual(self.mode(ANN[1]), ("every_move", 18))
        # A reply address that has acted, or an older one, changes nothing, whoever sends it.
        for old in (conf, inv):
            self.mail_in(self.reply(old, "essentials", "thief@example.net"))
            self.assertEqual(self.mode(ANN[1]), ("every_move", 18))
        self.idle_outbox()
        self.assertEqual(self.box.to("thief@example.net"), [])
        # The game went on untouched: the commands were no moves.
        self.assertEqual(self.state(gid)["ply"], 0)


class ModeTests(PrefsCase):
    """What each choice sends and holds back while a game goes on."""

    def play_round(self, gid, tokens, first_ply, offer_draw=True):
        """Ben (North) offers a draw and withdraws it, then the plies from first_ply on: Ann moves twice."""
        if offer_draw:
            for action in ("offer", "withdraw"):
                self.assertEqual(self.d.post(f"/api/games/{gid}/draw", {"action": action},
                                             token=tokens["North"]).status, 200)
        self.d.play(gid, tokens, [SHUFFLE[(first_ply + i) % 4] for i in range(4)], first_ply=first_ply)

    def test_every_move_then_digest_then_essentials_then_every_move(self):
        gid, tokens = self.game(ANN, BEN)
        self.confirmed(gid, ANN)
        path = self.page_of(ANN[1])
        self.play_round(gid, tokens, 0)
        # Every move: two "your move" mails, the draw offer and its withdrawal.
        got = self.mails(ANN[1], 5)
        self.assertEqual(sum("It is your move" in text_of(m) for m in got), 2)
        self.assertEqual(sum("offers a draw" in text_of(m) for m in got), 1)
        for mode in ("digest", "essentials"):
            with self.subTest(mode=mode):
                self.assertEqual(self.choose(path, mode, 12).status, 200)
                count = self.row(ANN[1])[3]
                self.play_round(gid, tokens, 4 if mode == "digest" else 8)
                self.idle_outbox()
                self.assertEqual(len(self.box.to(ANN[1])), 5, "no move or draw mail")
                self.assertEqual(self.row(ANN[1])[3], count, "nothing counted against the daily cap")
        self.assertEqual(self.choose(path, "every_move").status, 200)
        self.play_round(gid, tokens, 12, offer_draw=False)
        self.assertEqual(len(self.mails(ANN[1], 7)), 7)

    def test_essentials_still_come(self):
        """Invitations, results and the answers to the owner's own mail come in either mode."""
        for mode in ("digest", "essentials"):
            with self.subTest(mode=mode):
                south = ("Ann", f"ann-{mode}@players.test")
                gid, tokens = self.game(south, BEN)
                inv = self.invitation(south[1])
                self.mail_in(self.reply(inv, mode, south[1]))          # confirms the address, by mail
                conf = self.mails(south[1], 2)[-1]
                self.assertEqual(self.mode(south[1])[0], mode)
                # Her own move by mail is confirmed ("accepted"); Ben's answer is not mailed.
                self.mail_in(self.reply(conf, SHUFFLE[0], south[1]))
                accepted = self.mails(south[1], 3)[-1]
                self.assertIn("is accepted", text_of(accepted))
                self.d.play(gid, tokens, SHUFFLE[1:2], first_ply=1)
                # A new invitation comes.
                gid2, _ = self.game(CAT, south)
                self.assertIn(".invite@", self.mails(south[1], 4)[-1]["Message-ID"])
                # The result comes.
                self.assertEqual(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"]).status, 200)
                over = self.mails(south[1], 5)[-1]
                self.assertIn("is over", text_of(over))
                self.idle_outbox()
                self.assertEqual(len(self.box.to(south[1])), 5)


class DigestTests(DigestClock, PrefsCase):
    """The daily digest, with the daemon's clock moved while it runs."""

    daemon_args = ("--sweep-seconds", str(SWEEP_S))

    def digests(self, address):
        return [m for m in self.box.to(address) if m["Subject"].startswith("[Rookery] Your daily digest")]

    def wait_digests(self, address, n):
        deadline = time.monotonic() + DIGEST_WAIT
        while len(self.digests(address)) < n and time.monotonic() < deadline:
            time.sleep(0.2)
        got = self.digests(address)
        self.assertEqual(len(got), n, f"digests to {address}")
        return got

    def listed(self, digest):
        """The games a digest lists, with the seat link given for each."""
        text = text_of(digest)
        return dict(re.findall(r"game ([a-z0-9]+), you play .*\n  \S+/games/\1\?seat=([A-Za-z0-9_-]+)\n", text))

    def test_digest_at_its_hour(self):
        # Ann: her move in g1, a draw offer waits for her in g3; Cat's move in g2 and g3; Eve: nothing
        # waits (her games wait for others or are over); Dan chose the essentials.
        g1, t1 = self.game(ANN, EVE)
        g2, t2 = self.game(CAT, ANN)
        g3, t3 = self.game(CAT, ANN)
        g4, t4 = self.game(ANN, EVE)
        g5, t5 = self.game(DAN, EVE)
        for gid, player in ((g1, ANN), (g1, EVE), (g2, CAT), (g5, DAN)):
            self.confirmed(gid, player)
        for player, mode, hour in ((ANN, "digest", 10), (CAT, "digest", 11), (EVE, "digest", 10),
                                   (DAN, "essentials", 10)):
            self.assertEqual(self.choose(self.page_of(player[1]), mode, hour).status, 200)
        self.assertEqual(self.d.post(f"/api/games/{g3}/draw", {"action": "offer"}, token=t3["South"]).status, 200)
        self.assertEqual(self.d.post(f"/api/games/{g4}/resign", {}, token=t4["North"]).status, 200)
        self.idle_outbox()
        before = {p[1]: len(self.box.to(p[1])) for p in (ANN, CAT, EVE, DAN)}
        self.assertEqual(self.digests(ANN[1]), [], "no digest before its hour")

        self.clock.set_time(self.at(0, 10, 0, 5))
        ann = self.wait_digests(ANN[1], 1)[0]
        self.idle_outbox()
        links = self.listed(ann)
        self.assertEqual(sorted(links), sorted([g1, g3]), text_of(ann))
        self.assertIn("2 games wait for you", ann["Subject"])
        self.assertIn(f"game {g1}, you play South against Eve (North): your move", text_of(ann))
        self.assertIn(f"game {g3}, you play North against Cat (South): a draw offer waits for your answer",
                      text_of(ann))
        self.assertNotIn("Deadline", text_of(ann), "no game has a clock yet")
        self.assertIsNone(ann["Reply-To"], "a digest is about no single game: replies act on nothing")
        self.assertEqual(ann["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
        for gid, link in links.items():
            self.d.secrets.add(link)
            self.assertNotIn(link, (t1["South"], t3["North"]), "a fresh link, not the seat's token")
            self.assertEqual(self.d.get(f"/api/games/{gid}", token=link).json()["seat"],
                             "South" if gid == g1 else "North")
        # Eve's games wait for nobody but others, Dan chose the essentials, Cat's hour is 11.
        self.assertEqual(self.digests(EVE[1]), [])
        self.assertEqual(self.digests(DAN[1]), [])
        self.assertEqual(self.digests(CAT[1]), [])
        today = self.day
        self.assertEqual(self.row(EVE[1])[2], today, "Eve's day is done though nothing was sent")
        for p in (EVE, DAN, CAT):
            self.assertEqual(len(self.box.to(p[1])), before[p[1]], p)

        # Ann moves her digest to 11:00 the same day: at 11:00 only Cat's comes, one a day.
        self.assertEqual(self.choose(self.page_of(ANN[1]), "digest", 11).status, 200)
        self.clock.set_time(self.at(0, 11, 0, 5))
        cat = self.wait_digests(CAT[1], 1)[0]
        self.assertEqual(sorted(self.listed(cat)), sorted([g2, g3]))
        self.d.secrets.update(self.listed(cat).values())
        self.idle_outbox()
        self.assertEqual(len(self.digests(ANN[1])), 1, "at most one digest a day")

        # The next day at 11:00 Ann's comes again; g1 was played meanwhile, so only g3 is listed.
        self.d.play(g1, t1, SHUFFLE[:1])
        self.clock.set_time(self.at(1, 11, 0, 5))
        ann2 = self.wait_digests(ANN[1], 2)[-1]
        self.assertEqual(sorted(self.listed(ann2)), [g3])
        self.assertIn("1 game waits for you", ann2["Subject"])
        self.d.secrets.update(self.listed(ann2).values())

    def test_a_digest_reads_a_bounded_number_of_games(self):
        limit = daemon.LIMITS["LIMIT_DIGEST_GAMES"]
        per_hour = daemon.LIMITS["LIMIT_INVITATIONS_PER_HOUR"]
        games, hour = [], 9
        while len(games) <= limit:            # an hour's invitations at a time, Ann to move in each
            if len(games) and len(games) % per_hour == 0:
                # A fixed window counts an hour from its first invitation: move on by more than
                # an hour, however long the last batch took (a sanitized build is slow).
                hour += 1
                self.clock.set_time(self.at(0, hour, 50 + 2 * (hour - 9)))
            games.append(self.game(ANN, ("Bot", None))[0])
        self.confirmed(games[0], ANN)
        self.assertEqual(self.choose(self.page_of(ANN[1]), "digest", hour + 1).status, 200)
        self.clock.set_time(self.at(0, hour + 1, 0, 5))
        digest = self.wait_digests(ANN[1], 1)[0]
        listed = self.listed(digest)
        self.d.secrets.update(listed.values())
        self.assertEqual(len(listed), limit)
        self.assertTrue(set(listed) < set(games))
        self.assertIn(f"{limit} games wait for you", digest["Subject"])
        self.assertIn(f"A digest reads {limit} of your running games", text_of(digest))
        self.assertIn(f"{self.d.base}/me", text_of(digest))


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
