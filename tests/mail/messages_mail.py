#!/usr/bin/env python3
"""messages_mail.py - messages by mail: a reply's words become a message, and the next mail carries it.

usage: python3 tests/mail/messages_mail.py PATH-TO-ROOKERY [unittest options]

Zoë (South) answers her invitation with the reply mails of real clients in tests/mail/corpus/
(Gmail, Outlook desktop, Apple Mail, Thunderbird), each with words below the move: the move is
played, the message is those words (not the quoted mail, not the signature), and Ben's (North's)
your-turn mail carries it, Zoë's own confirmation not. Then Ben replies with words alone (a
message, his reply address still takes his move), a bad move (refused as before), and his move
(Zoë's next mail carries his message, once). Messages sent through the API reach the mails too,
a private one only the seat it went to. The daily digest (the daemon's clock moved by libfaketime)
carries a game's messages under it, once.

Python standard library and aiosmtpd (Debian: python3-aiosmtpd) only.
"""
import email
import email.policy
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.maildir import ANN, DigestClock, MaildirCase, text_of  # noqa: E402
from harness.smtp import BEN, ZOE, MailCase, make_reply  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
WORDS = "Your knight looks lonely, Ben.\n\nSecond thought: good luck!"
HEADING = "for you since Rookery last wrote:"


def corpus(name):
    with open(os.path.join(CORPUS, name + ".eml"), "rb") as f:
        return f.read()


def with_words(name, words):
    """The corpus reply name with words below its move line, in its text part and its HTML part,
    each part keeping its transfer encoding; the quote and signature below are as the client
    wrote them."""
    msg = email.message_from_bytes(corpus(name), policy=email.policy.default)
    for part in msg.walk():
        kind = part.get_content_type()
        if kind not in ("text/plain", "text/html"):
            continue
        cte = part.get("Content-Transfer-Encoding")
        text = part.get_content()
        if kind == "text/plain":
            text = text.replace("S 7 1 6 1", "S 7 1 6 1\n\n" + words, 1)
        else:
            text = text.replace("S 7 1 6 1", "S 7 1 6 1<br><br>" + words.replace("\n", "<br>"), 1)
        part.set_content(text, subtype=kind.split("/")[1], charset="utf-8", cte=cte)
    return msg.as_bytes()


class MessagesByMail(MailCase):

    def messages(self, d, gid, token):
        r = d.get(f"/api/games/{gid}/messages", token=token)
        self.assertEqual(r.status, 200, r)
        return [(m["from"], m["to"], m["text"], m["channel"]) for m in r.json()["messages"]]

    def next_mail(self, smtp, before, to):
        """The one new mail to address to among the mails after the first before."""
        got = smtp.wait(before + 1)
        mine = [m for m in got[before:] if m.rcpt_tos == [to]]
        self.assertTrue(mine, got[before:])
        return mine[0]

    def reply_with(self, data, expected):
        smtp, d, gid, tokens, inv = self.mail_game()
        live = inv[ZOE[1]].msg["Reply-To"].addresses[0].addr_spec
        before = len(smtp.delivered())
        r = self.mail_in_ok(d, data, recipient=live)
        self.assertIn("played S 7 1 6 1 with a message", r.err)
        self.assertEqual(d.game(gid)["ply"], 1)
        self.assertEqual(self.messages(d, gid, tokens["North"]), [("South", None, expected, "mail")])
        self.assertEqual(self.messages(d, gid, tokens["South"]), [("South", None, expected, "mail")])
        got = smtp.wait(before + 2)
        new = {m.rcpt_tos[0]: m for m in got[before:]}
        turn, accepted = new[BEN[1]].text(), new[ZOE[1]].text()
        self.assertIn("A message " + HEADING, turn)
        shown = "".join("    " + line + "\n" for line in expected.split("\n"))
        self.assertIn(f"South ({ZOE[0]}) to everyone, ", turn)
        self.assertIn(shown, turn)
        # The message comes before the board, and the mail says how to talk.
        self.assertLess(turn.index(HEADING), turn.index("It is your move") + 400)
        self.assertIn("Words below your move go to the other players as a message", turn)
        self.assertNotIn("Your opponent played", turn, "no quote of the reply")
        self.assertNotIn(HEADING, accepted, "no seat is sent its own message")
        self.settle(d, smtp)
        return smtp, d, gid, tokens, new

    def test_gmail(self):
        self.reply_with(with_words("gmail", WORDS), WORDS)

    def test_words_past_the_limits(self):
        # Words longer than a message may be are cut, marked so, and the move is still played.
        chars = daemon.LIMITS["LIMIT_MESSAGE_CHARS"]
        words = "\n".join(["the quick brown fox"] * (chars // 10))
        self.reply_with(with_words("gmail", words), words[:chars - 6] + " [...]")

    def test_tabs_in_the_words(self):
        # Mail programs indent with tabs: the words arrive with spaces, and neither they nor the move are refused.
        self.reply_with(with_words("gmail", "Take\tthat, and that."), "Take that, and that.")

    def test_outlook_desktop(self):
        self.reply_with(with_words("outlook_desktop", WORDS), WORDS)

    def test_apple_mail(self):
        # Apple Mail signs with the sender's first name and no "-- ": not part of the message.
        self.reply_with(with_words("apple_mail", WORDS), WORDS)

    def test_thunderbird(self):
        # As the corpus has it: bottom-posted under the quote, a line of words, a "-- " signature.
        self.reply_with(corpus("thunderbird_flowed"), "-- ah, tu ne m'auras pas si facilement !")

    def test_words_alone_and_private_messages(self):
        smtp, d, gid, tokens, inv = self.mail_game()
        n = len(smtp.delivered())
        # Zoë moves by the API, with a private word for North (the only other seat here).
        r = d.post(f"/api/games/{gid}/moves", {"move": "S 7 1 6 1", "ply": 0,
                                               "message": {"text": "Just for you.", "to": "North"}},
                   token=tokens["South"])
        self.assertEqual(r.status, 201, r)
        turn = self.next_mail(smtp, n, BEN[1])
        self.assertIn("South (%s) to you only, " % ZOE[0], turn.text())
        self.assertIn("    Just for you.\n", turn.text())
        live = turn.msg["Reply-To"].addresses[0].addr_spec
        n = len(smtp.delivered())

        # Words alone: a message, no move, no mail; and the reply address still takes the move.
        alone = make_reply(turn.msg, "Thanks, I did not see that coming at all.\n\nStill thinking.\n\nBen", BEN)
        r = self.mail_in_ok(d, alone, recipient=live)
        self.assertIn("sent a message", r.err)
        self.assertEqual(d.game(gid)["ply"], 1)
        said = "Thanks, I did not see that coming at all.\n\nStill thinking."
        self.assertEqual(self.messages(d, gid, tokens["South"])[-1], ("North", None, said, "mail"))
        # A bad move is still refused as a move, with the same words as before.
        self.mail_in_ok(d, make_reply(turn.msg, "S 9 9", BEN), recipient=live)
        refusal = self.next_mail(smtp, n, BEN[1])
        self.assertIn('could not be acted on: "S 9 9": ', refusal.text())
        live = refusal.msg["Reply-To"].addresses[0].addr_spec
        n = len(smtp.delivered())
        # His move, with words under it: Zoë's mail carries both of his messages, once.
        r = self.mail_in_ok(d, make_reply(refusal.msg, "s 3 1 4 1\nYour turn.", BEN), recipient=live)
        self.assertIn("played s 3 1 4 1 with a message", r.err)
        mail = self.next_mail(smtp, n, ZOE[1]).text()
        self.assertIn("Messages " + HEADING, mail)
        self.assertIn("    Thanks, I did not see that coming at all.\n    \n    Still thinking.\n", mail)
        self.assertIn("    Your turn.\n", mail)
        self.assertNotIn("Just for you", mail, "her own message is not mailed back to her")
        n = len(smtp.delivered())
        move = d.game(gid, tokens["South"])["legal_moves"][0]
        self.assertEqual(d.move(gid, tokens["South"], move, 2).status, 201)
        mail = self.next_mail(smtp, n, BEN[1]).text()
        self.assertNotIn(HEADING, mail, "a message is mailed once")
        self.settle(d, smtp)


class PrivateMessagesByMail(MaildirCase):

    def test_four_seats(self):
        players = {"North": "nia@players.test", "East": "eli@players.test", "South": "sol@players.test",
                   "West": "wes@players.test"}
        r = self.d.post("/api/games", {"variant": "complex-allegiance", "seats": [
            {"name": seat[0] + "x", "email": address} for seat, address in players.items()]})
        self.assertEqual(r.status, 201, r)
        gid, tokens = r.json()["id"], {s["seat"]: s["token"] for s in r.json()["seats"]}
        self.d.secrets.update(tokens.values())
        for address in players.values():
            self.d.confirm_by_invitation(gid, address)
        for seat, text, to in (("North", "Hello, table.", None), ("East", "Secret plan for South.", "South")):
            self.assertEqual(self.d.post(f"/api/games/{gid}/messages", {"text": text, "to": to},
                                         token=tokens[seat]).status, 201)
        # Each seat in turn gets its your-turn mail: only South's carries East's private message.
        for ply, (mover, told) in enumerate((("North", "East"), ("East", "South"), ("South", "West"),
                                             ("West", "North"))):
            before = len(self.box.to(players[told]))
            move = next(m for m in self.d.game(gid, tokens[mover])["legal_moves"] if m.startswith("N"))
            self.assertEqual(self.d.move(gid, tokens[mover], move, ply).status, 201)
            text = text_of(self.box.wait_count(players[told], before + 1)[-1])
            self.assertIn("It is your move", text)
            self.assertEqual("Secret plan" in text, told == "South", told)
            self.assertEqual("Hello, table." in text, told != "North", told)
        self.idle_outbox()
        for seat, address in players.items():
            seen = [m for m in self.box.to(address) if "Secret plan" in text_of(m)]
            self.assertEqual(len(seen), 1 if seat == "South" else 0, seat)


class MessagesInTheDigest(DigestClock, MaildirCase):

    daemon_args = ("--sweep-seconds", "2")

    def digests(self, n):
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            got = [m for m in self.box.to(ANN[1]) if m["Subject"].startswith("[Rookery] Your daily digest")]
            if len(got) >= n:
                break
            time.sleep(0.2)
        self.assertEqual(len(got), n)
        return text_of(got[-1])

    def test_digest(self):
        eve = ("Eve", "eve@players.test")
        gid, tokens = self.new_game(ANN, eve)
        self.d.secrets.update(tokens.values())
        self.d.confirm_by_invitation(gid, ANN[1])
        url = self.box.to(ANN[1])[-1]["List-Unsubscribe"].strip("<>")
        page = self.d.get(url[len(self.d.base):]).text
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
        r = self.d.post_form(url[len(self.d.base):], {"csrf": csrf, "action": "mail_mode", "mode": "digest",
                                                      "hour": "10"}, origin=self.d.base)
        self.assertEqual(r.status, 200, r)
        for text, to in (("Good luck, Ann.", None), ("Between us:\nI am nervous.", "South")):
            r = self.d.post(f"/api/games/{gid}/messages", {"text": text, "to": to}, token=tokens["North"])
            self.assertEqual(r.status, 201, r)
        self.idle_outbox()
        self.clock.set_time(self.at(0, 10, 0, 5))
        text = self.digests(1)
        self.assertIn(f"game {gid}, you play South against Eve (North): your move", text)
        self.assertIn("  Messages " + HEADING, text)
        self.assertIn("  North (Eve) to everyone, ", text)
        self.assertIn("      Good luck, Ann.\n", text)
        self.assertIn("  North (Eve) to you only, ", text)
        self.assertIn("      Between us:\n      I am nervous.\n", text)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", text))
        # The next day's digest lists the game again, without the messages already mailed.
        self.clock.set_time(self.at(1, 10, 0, 5))
        text = self.digests(2)
        self.assertIn(f"game {gid}, you play South", text)
        self.assertNotIn(HEADING, text)
        self.d.secrets.update(re.findall(r"\?seat=([A-Za-z0-9_-]+)", text))


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
