#!/usr/bin/env python3
"""mail_conditional.py - conditional moves sent by mail, against the real daemon and its maildir.

usage: python3 tests/mail/mail_conditional.py PATH-TO-ROOKERY [unittest options]

A reply whose first line is "if THEIR MOVE then MY ANSWER, if ... then ..." replaces the seat's
conditional moves (confirmed to the seat's own address, listing them); the answer is played when
the other seat plays the move expected (the seat told by mail); an illegal line is refused with
the reason and stores nothing; "no conditional moves" clears them. Every mail asking nothing of its
seat explains the grammar.

Python standard library only.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.maildir import ANN, BEN, MaildirCase, text_of  # noqa: E402


class ByMail(MaildirCase):
    def mails(self, address, n):
        got = self.box.wait_count(address, n)
        self.assertGreaterEqual(len(got), n, [text_of(m)[:200] for m in got])
        return got

    def tree(self, gid, token):
        r = self.d.get(f"/api/games/{gid}/conditional", token=token)
        self.assertEqual(r.status, 200, r)
        return r.json()

    def test_conditional_lines_by_reply(self):
        gid, tok = self.new_game()
        inv = self.invitation(ANN[1])
        self.confirm(inv)
        self.mail_in(self.reply(inv, "S 7 1 6 1", ANN[1]))
        conf = self.mails(ANN[1], 2)[-1]
        self.assertIn("if THEIR MOVE then YOUR ANSWER", text_of(conf), "the help names the grammar")

        self.mail_in(self.reply(conf, "If c 1 1 2 1 then S 7 3 6 3, if c 1 9 2 9 then S 7 7 6 7", ANN[1]))
        stored = self.mails(ANN[1], 3)[-1]
        self.assertIn("conditional moves in Nchess game %s are stored" % gid, text_of(stored))
        self.assertIn("if c 1 1 2 1 then S 7 3 6 3\n", text_of(stored))
        self.assertIn("if c 1 9 2 9 then S 7 7 6 7\n", text_of(stored))
        self.assertEqual(self.tree(gid, tok["South"]), {"if": [
            {"moves": ["c 1 1 2 1"], "then": "S 7 3 6 3"}, {"moves": ["c 1 9 2 9"], "then": "S 7 7 6 7"}]})

        # An illegal line is refused with the reason; what was stored stays.
        self.mail_in(self.reply(stored, "if c 1 1 2 1 then S 7 3 3 3", ANN[1]))
        refusal = self.mails(ANN[1], 4)[-1]
        self.assertIn("could not be acted on", text_of(refusal))
        self.assertIn("S 7 3 3 3", text_of(refusal))
        self.assertEqual(len(self.tree(gid, tok["South"])["if"]), 2)

        # Ben plays the move expected: Ann's answer is played and Ann told.
        self.assertEqual(self.d.move(gid, tok["North"], "c 1 9 2 9", 1).status, 201)
        self.assertEqual([m["move"] for m in self.d.all_moves(gid)], ["S 7 1 6 1", "c 1 9 2 9", "S 7 7 6 7"])
        deadline = time.monotonic() + 20
        while not any("your conditional move S 7 7 6 7 was played" in text_of(m) for m in self.box.to(ANN[1])):
            self.assertLess(time.monotonic(), deadline, "Ann is told her conditional move was played")
            time.sleep(0.1)
        played = [m for m in self.box.to(ANN[1]) if "was played" in text_of(m)][-1]
        self.assertEqual(self.tree(gid, tok["South"]), {"if": []})

        # Stored again, then cleared by mail.
        self.assertEqual(self.d.game(gid)["turn"], ["North"])
        n = len(self.box.to(ANN[1]))
        self.mail_in(self.reply(played, "if c 1 1 2 1 then S 7 3 6 3", ANN[1]))
        again = self.mails(ANN[1], n + 1)[-1]
        self.assertIn("are stored", text_of(again))
        self.mail_in(self.reply(again, "No conditional moves.", ANN[1]))
        cleared = self.mails(ANN[1], n + 2)[-1]
        self.assertIn("are cleared", text_of(cleared))
        self.assertEqual(self.tree(gid, tok["South"]), {"if": []})
        # Ben's mails never speak of Ann's conditional moves.
        for m in self.box.to(BEN[1]):
            self.assertNotIn("S 7 3 6 3", text_of(m))
            self.assertNotRegex(text_of(m), r"your conditional|are stored|are cleared|was played")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
