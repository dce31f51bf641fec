#!/usr/bin/env python3
"""civil_war_variants_mail.py - Civil War for two and for three players played by mail.

usage: python3 tests/mail/civil_war_variants_mail.py PATH-TO-ROOKERY [unittest options]

The real daemon and its maildir (tests/harness/maildir.py). In civil-war-2 South and North each
reply to their mail with a legal move and the game goes on, and an alliance sent by mail is
refused with its reason and changes nothing (section 11.1: no alliances). In civil-war-3 the
three players move by reply in turn, South, West, North, and the neutral East army is never
asked for a move: North's move is followed by South's.

Python standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.maildir import MaildirCase, text_of  # noqa: E402

PLAYERS = {"South": ("Sam", "sam@players.test"), "West": ("Wendy", "wendy@players.test"),
           "North": ("Nils", "nils@players.test")}


class VariantsByMail(MaildirCase):
    def start(self, variant, seats):
        gid, tokens, _ = self.d.create_game([PLAYERS[s][0] for s in seats], [PLAYERS[s][1] for s in seats],
                                            variant=variant)
        # Each player asks for mail from the invitation's link, as a player who wants it does.
        for s in seats:
            self.confirm(self.invitation(PLAYERS[s][1]))
        return gid, tokens

    def latest(self, seat, n):
        got = self.box.wait_count(PLAYERS[seat][1], n)
        self.assertGreaterEqual(len(got), n, [m["Subject"] for m in got])
        return got[n - 1]

    def reply_move(self, gid, tokens, seat, mail):
        """seat replies to mail with its first legal move (its army's prefix left off, as a player
        writes it); the move is played. Returns the canonical move."""
        g = self.d.game(gid, tokens[seat])
        self.assertEqual(g["turn"], [seat], g["position"]["notes"])
        move = g["legal_moves"][0]
        ply = g["ply"]
        self.mail_in(self.reply(mail, move.split(": ", 1)[1], PLAYERS[seat][1]))
        after = self.d.game(gid)
        self.assertEqual(after["ply"], ply + 1, f"{seat}'s move by mail was not played")
        self.assertEqual(self.d.all_moves(gid)[-1]["move"], move)
        return move

    def test_two_players_move_by_reply_and_no_alliance(self):
        gid, tokens = self.start("civil-war-2", ("South", "North"))
        # The first your-move mail goes to South with the invitation's confirmation; South answers.
        self.idle_outbox()
        south_mail = self.box.to(PLAYERS["South"][1])[-1]
        self.reply_move(gid, tokens, "South", south_mail)
        self.idle_outbox()
        north_mail = self.box.to(PLAYERS["North"][1])[-1]
        self.assertIn(gid, text_of(north_mail))
        self.reply_move(gid, tokens, "North", north_mail)
        # An alliance by mail is refused with the reason; nothing changes.
        self.idle_outbox()
        south_mail = self.box.to(PLAYERS["South"][1])[-1]
        before = len(self.box.to(PLAYERS["South"][1]))
        ply = self.d.game(gid)["ply"]
        self.mail_in(self.reply(south_mail, "ally North", PLAYERS["South"][1]))
        refusal = self.latest("South", before + 1)
        self.assertIn("could not be acted on", text_of(refusal))
        self.assertEqual(self.d.game(gid)["ply"], ply)
        self.assertEqual(self.d.game(gid)["turn"], ["South"])

    def test_three_players_move_by_reply_in_turn(self):
        gid, tokens = self.start("civil-war-3", ("South", "West", "North"))
        played = []
        for seat in ("South", "West", "North", "South"):
            self.idle_outbox()
            played.append(self.reply_move(gid, tokens, seat, self.box.to(PLAYERS[seat][1])[-1]))
        # The slots went South, West, North, South: East's neutral army was never asked.
        self.assertEqual([m.split(":")[0] for m in played], ["S", "W", "N", "S"])
        self.assertEqual(self.d.game(gid)["turn"], ["West"])


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
