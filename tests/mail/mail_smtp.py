#!/usr/bin/env python3
"""mail_smtp.py - black-box mail tests: the real rookery daemon on 127.0.0.1 and a real SMTP server.

usage: python3 tests/mail/mail_smtp.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

Each test starts its own daemon (`rookery serve --port 0 --smtp smtp://127.0.0.1:PORT`, or
with a maildir) and, where it needs one, an aiosmtpd server on 127.0.0.1 in this process that
records every message it is offered, and can answer 451 (temporary) to the first few or 550
(permanent) to all. Games are played over the JSON API and by replies piped into
`rookery mail-in`; the mails that come out are parsed with the email package and checked
header by header. The outbox table is read through a read-only SQLite connection.

At the end of each test the daemon gets SIGTERM and must exit 0, log "stopped cleanly",
never log a seat token, and (in a sanitizer build) report no sanitizer error; `rookery
mail-in` must not report one either. Every test that talks SMTP ends by checking that each
outbox row marked sent reached the SMTP server exactly once (by Message-ID).

Python standard library and aiosmtpd (Debian: python3-aiosmtpd) only.
"""
import email
import email.policy
import email.utils
import hashlib
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon, database, nchess  # noqa: E402
from harness.daemon import Daemon, free_port  # noqa: E402
from harness.smtp import (BEN, DOMAIN, POLICY, SEATS, ZOE, MailCase, addr, make_reply,  # noqa: E402
                          outbox_rows, row_message_id, wait_for)

MAIL_MAX_BYTES = 256 * 1024
MALLORY = ("Zo\u00eb", "mallory@elsewhere.example.com")  # writes to reply addresses that are not hers
OPENING = nchess.OPENING


WIPED_NOTE = "[Body removed once the mail was sent or given up: its links acted for the recipient.]"
KEPT_HEADERS = ("Date", "From", "To", "Subject", "Message-ID", "In-Reply-To", "References")


def check_wiped(test, kept, original):
    """kept (an outbox row's message, sent or failed) is original (the whole message, text)
    without its body and without the headers that are not in KEPT_HEADERS (Reply-To holds a
    reply address), followed by the note that says so (db_mail.c rookery_outbox_kept)."""
    head = original.split("\n\n", 1)[0]
    lines, keep = [], False
    for line in head.split("\n"):
        if not line[:1].isspace():
            keep = line.split(":", 1)[0].lower() in {h.lower() for h in KEPT_HEADERS}
        if keep:
            lines.append(line)
    test.assertEqual(kept, "\n".join(lines) + "\n\n" + WIPED_NOTE + "\n")
    test.assertNotRegex(kept, r"(?im)^reply-to:")


# --------------------------------------------------------------------------------------------
# 1. A game over the API: invitations and your-turn mails
# --------------------------------------------------------------------------------------------

class GameMailTests(MailCase):

    def test_game_over_the_api_sends_threaded_mails(self):
        smtp = self.smtp()
        d = self.daemon("--mail-from", "games@rookery.example.org", smtp=smtp)
        gid, tokens, created = self.new_game(d)
        game = d.game(gid)
        subject = f"[Rookery] Nchess game {gid}: {ZOE[0]} (South) vs {BEN[0]} (North)"
        who = {"South": ZOE, "North": BEN}

        # The invitations, one to each seat.
        invites = smtp.wait(2)
        self.assertEqual(len(invites), 2, invites)
        by_rcpt = {m.rcpt_tos[0]: m for m in invites}
        self.assertEqual(set(by_rcpt), {ZOE[1], BEN[1]})
        for seat in SEATS:
            m = by_rcpt[who[seat][1]]
            self.assertEqual(m.mail_from, "games@rookery.example.org")
            self.assertEqual(addr(m.msg["From"]), ("Rookery", "games@rookery.example.org"))
            text, hbody = self.check_game_mail(m, who[seat], seat, gid, subject)
            self.assertEqual(m.msg["Message-ID"], f"<{gid}.{SEATS.index(seat)}.invite@{DOMAIN}>")
            self.assertIn("you are invited to play Nchess on Rookery, as %s against %s (%s)."
                          % (seat, who[SEATS[1 - SEATS.index(seat)]][0], SEATS[1 - SEATS.index(seat)]), text)
            self.assertIn(f"Dice commitment: {game['dice_commitment']}\n", text)
            self.assertIn(game["dice_commitment"], hbody)
            self.check_board(text, game["position"], seat)
            self.assertIn("No moves yet.", text)
            # The seat link is the invitation's own, not the creator's token of the seat (the
            # creator holds every seat's): it opens the same seat.
            self.assertNotIn(created["seats"][SEATS.index(seat)]["url"], text)
            self.assertNotIn(tokens[seat], text + hbody)
            seat_url = self.seat_link(d, text, gid, seat)
            self.assertIn(f'<a href="{seat_url}">', hbody)
            self.assertIn(f"{d.base}/rules/nchess", text)
            self.assertIn("This is the only mail Rookery sends you until you answer it", text)
            # Every seat's invitation carries the seat's first reply address, to move or not.
            self.reply_address(m.msg, gid, seat, 1)
        self.assertIn("\nYou move first.\n", by_rcpt[ZOE[1]].text())
        self.assertNotIn("You move first", by_rcpt[BEN[1]].text())
        self.assertIn("Once you answer, you will get a mail whenever it is your move.", by_rcpt[BEN[1]].text())

        # Names in headers are RFC 2047 encoded (the raw mail is 7-bit) and decode right.
        raw_headers = invites[0].content.split(b"\r\n\r\n", 1)[0].decode("ascii")
        self.assertRegex(raw_headers, r"(?im)^Subject:.*=\?(utf-8|iso-8859-1)\?[bq]\?")
        raw_to = by_rcpt[ZOE[1]].content.split(b"\r\n\r\n", 1)[0].decode("ascii")
        self.assertRegex(raw_to, r"(?im)^To: =\?(utf-8|iso-8859-1)\?[bq]\?\S+\?= <zoe@example\.org>")

        # Both players ask for mail through their invitation's link; without that, the moves
        # below would mail nobody.
        for seat in SEATS:
            self.ask_for_mail(d, gid, by_rcpt[who[seat][1]], seat)

        # Each move: one your-turn mail, to the seat now to move, with the seat's next reply address.
        seen = list(invites)
        serial = {seat: 1 for seat in SEATS}
        for ply, move in enumerate(OPENING):
            mover, to_move = SEATS[ply % 2], SEATS[(ply + 1) % 2]
            r = d.move(gid, tokens[mover], move, ply)
            self.assertEqual(r.status, 201, r)
            got = smtp.wait(len(seen) + 1)
            new = got[len(seen):]
            self.assertEqual(len(new), 1, new)
            m = new[0]
            seen = got
            game = d.game(gid)
            canon = d.get(f"/api/games/{gid}/moves").json()["moves"][ply]["move"]
            text, hbody = self.check_game_mail(m, who[to_move], to_move, gid, subject)
            serial[to_move] += 1
            a = self.reply_address(m.msg, gid, to_move, serial[to_move])
            self.assertEqual(game["ply"], ply + 1)
            self.assertIn(f"{who[mover][0]} ({mover}) played {canon}", text)
            self.assertIn("It is your move in Nchess game %s (you play %s)." % (gid, to_move), text)
            self.assertIn("Last moves:\n", text)
            self.assertRegex(text, r"(?m)^ +%d\. %-6s %s$" % (ply + 1, mover, re.escape(canon)))
            self.check_board(text, game["position"], to_move)
            self.assertIn(f"Dice commitment: {game['dice_commitment']}\n", text)
            self.assertIn("reply to this mail with your move on the first line", text)
            self.seat_link(d, text, gid, to_move)
            self.assertIn(a, m.msg["Reply-To"])

        # The whole game is one thread per seat, under one subject, with unique ids.
        ids = [m.message_id for m in seen]
        self.assertEqual(len(ids), len(set(ids)), ids)
        self.assertEqual({m.msg["Subject"] for m in seen}, {subject})
        self.assertEqual(len(seen), 2 + len(OPENING))

        # Email addresses appear in no view of the game.
        for path, token in ((f"/api/games/{gid}", None), (f"/api/games/{gid}", tokens["South"]),
                            (f"/api/games/{gid}", tokens["North"]), (f"/api/games/{gid}/moves", None),
                            (f"/api/games/{gid}/dice", None), (f"/games/{gid}", None),
                            (f"/games/{gid}?seat={tokens['South']}", None),
                            (f"/games/{gid}?seat={tokens['North']}", None)):
            r = d.get(path, token=token)
            self.assertEqual(r.status, 200, (path, r))
            for e in (ZOE[1], BEN[1], "example.org", "example.net"):
                self.assertNotIn(e, r.text, path)
        rows = self.settle(d, smtp)
        self.assertEqual([r["kind"] for r in rows], ["invitation"] * 2 + ["your_turn"] * len(OPENING))
        self.assertEqual({r["attempts"] for r in rows}, {1})

    def test_names_that_need_quoting(self):
        smtp = self.smtp()
        d = self.daemon(smtp=smtp)
        south = ('Smith, "JJ" <John>', "jj@example.org")
        north = ("K\u00f6nig \u2654 \u265a of \u6771\u4eac", "kings@example.org")
        gid, tokens, _ = self.new_game(d, south=south, north=north)
        got = {m.rcpt_tos[0]: m for m in smtp.wait(2)}
        subject = f"[Rookery] Nchess game {gid}: {south[0]} (South) vs {north[0]} (North)"
        self.check_game_mail(got[south[1]], south, "South", gid, subject)
        self.check_game_mail(got[north[1]], north, "North", gid, subject)
        self.settle(d, smtp)

    def test_name_that_looks_like_an_encoded_word(self):
        # Server bug (minor): a player name is user data, but one that looks like an RFC 2047
        # encoded word ("=?utf-8?q?Ann?=") goes into the To and Subject headers as is
        # (mail_compose.c passes names to g_mime_message_add_mailbox / set_subject, which take
        # the text as already encoded), so every mail client shows "Ann" instead of the name
        # the player chose, and the Subject differs from the game's names. RFC 2047 section 5:
        # such text must itself be encoded.
        smtp = self.smtp()
        d = self.daemon(smtp=smtp)
        south = ("=?utf-8?q?Ann?=", "ann@example.org")
        gid, tokens, _ = self.new_game(d, south=south, north=BEN)
        got = {m.rcpt_tos[0]: m for m in smtp.wait(2)}
        subject = f"[Rookery] Nchess game {gid}: {south[0]} (South) vs {BEN[0]} (North)"
        # The server writes "=?" as "= ?" so that no client decodes the name into "Ann".
        shown = lambda text: text.replace("= ?", "=?")
        self.assertEqual(shown(got[BEN[1]].msg["Subject"]), subject)
        name, address = addr(got[south[1]].msg["To"])
        self.assertEqual((shown(name), address), south)

    def test_seat_without_email_gets_nothing(self):
        smtp = self.smtp()
        d = self.daemon(smtp=smtp)
        gid, tokens, _ = self.new_game(d, south=("Ann", None), north=BEN)
        [inv] = smtp.wait(1)
        self.assertEqual(inv.rcpt_tos, [BEN[1]])
        # Until Ben acts, his invitation is all he gets: South's move (with the creator's token,
        # which proves nothing about Ben's address) mails nobody.
        d.play(gid, tokens, OPENING[:1])
        self.assertEqual([r["kind"] for r in self.outbox(d)], ["invitation"])
        self.ask_for_mail(d, gid, inv, "North")
        d.play(gid, tokens, OPENING[1:3], first_ply=1)
        got = smtp.wait(2)            # North's your-turn after ply 2; none for South after ply 1
        time.sleep(0.5)
        self.assertEqual(len(smtp.delivered()), 2, smtp.delivered())
        self.assertIn("Ann (South) played ", got[1].text())
        self.reply_address(got[1].msg, gid, "North", 2)
        self.settle(d, smtp)


# --------------------------------------------------------------------------------------------
# 2. Replies through `rookery mail-in`
# --------------------------------------------------------------------------------------------

class ReplyTests(MailCase):

    def start(self, confirm=SEATS):
        return self.mail_game(confirm)

    def new_mails(self, smtp, before, n):
        got = smtp.wait(before + n)
        time.sleep(0.3)
        got = smtp.delivered()
        self.assertEqual(len(got), before + n, got[before:])
        return got[before:]

    def test_move_by_reply(self):
        # Zoë has not asked for mail: her reply is her act, and it confirms her address.
        smtp, d, gid, tokens, inv = self.start(confirm=("North",))
        subject = inv[ZOE[1]].msg["Subject"]
        reply = make_reply(inv[ZOE[1]].msg, "S 7 1 6 1", ZOE)
        r = self.mail_in_ok(d, reply, recipient=str(inv[ZOE[1]].msg["Reply-To"].addresses[0].addr_spec))
        self.assertIn("played S 7 1 6 1", r.err)
        g = d.game(gid)
        self.assertEqual(g["ply"], 1)
        self.assertEqual([m["move"] for m in d.get(f"/api/games/{gid}/moves").json()["moves"]], ["S 7 1 6 1"])

        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 2, 2)}
        acc, turn = new[ZOE[1]], new[BEN[1]]
        text, _ = self.check_game_mail(acc, ZOE, "South", gid, subject)
        self.assertIn(f"your move S 7 1 6 1 in Nchess game {gid} is accepted.", text)
        # The invitation's address has acted: the confirmation carries her next one.
        self.reply_address(acc.msg, gid, "South", 2)
        self.check_board(text, g["position"], "South")
        text, _ = self.check_game_mail(turn, BEN, "North", gid, subject)
        self.assertIn(f"{ZOE[0]} (South) played S 7 1 6 1", text)
        north_addr = self.reply_address(turn.msg, gid, "North", 2)
        rows_before = len(self.outbox(d))

        # The same message again (an MTA redelivering it): acted on once, nothing new.
        r = self.mail_in_ok(d, reply)
        self.assertIn("already handled", r.err)
        self.assertEqual(d.game(gid)["ply"], 1)
        self.assertEqual(len(self.outbox(d)), rows_before)

        # North answers by mail too, this time without an envelope recipient: the To header
        # speaks, and a mail system that upper-cased the address does no harm.
        r = self.mail_in_ok(d, make_reply(turn.msg, "s 3 1 4 1", BEN, to=north_addr.upper()))
        self.assertEqual(d.game(gid)["ply"], 2)
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 4, 2)}
        self.assertIn("your move s 3 1 4 1", new[BEN[1]].text())
        self.reply_address(new[BEN[1]].msg, gid, "North", 3)
        self.reply_address(new[ZOE[1]].msg, gid, "South", 3)
        self.assertNotEqual(north_addr, addr(new[ZOE[1]].msg["Reply-To"])[1])
        self.settle(d, smtp)

    def test_illegal_move_by_reply_is_refused(self):
        smtp, d, gid, tokens, inv = self.start()
        orig = inv[ZOE[1]].msg
        reply_id = email.utils.make_msgid(domain="mua.example.net")
        reply = make_reply(orig, "S 7 1 3 1", ZOE, message_id=reply_id)
        before = d.game(gid)
        rows = len(self.outbox(d))
        self.mail_in_ok(d, reply)
        self.assertEqual(d.game(gid), before)
        self.assertEqual([r["kind"] for r in self.outbox(d)[rows:]], ["refused"])
        [m] = self.new_mails(smtp, 2, 1)
        msg = self.check_common(m, ZOE, "Re: " + orig["Subject"])
        self.assertEqual(msg["In-Reply-To"], reply_id)
        self.assertIn(reply_id, msg["References"])
        # It is still her move: the refusal shows the game and carries her live reply address,
        # the next one (the invitation's acted, if in vain).
        self.reply_address(msg, gid, "South", 2)
        text = m.text()
        self.assertIn("It is your move; reply to this mail with it.", text)
        self.assertTrue(text.startswith(f"Hello {ZOE[0]},\n"), text)
        self.assertIn('a mail to the reply address of your seat could not be acted on: "S 7 1 3 1": ', text)
        self.assertIn("Nothing was changed.", text)
        self.assertIn("\n> S 7 1 3 1\n", text, "the refusal quotes the mail")
        # Only its first lines (the reply quotes the whole invitation, which is longer).
        quoted = text.split("\nThe mail said:\n\n", 1)[1].split("\n-- \n", 1)[0].rstrip("\n").split("\n")
        self.assertTrue(all(line.startswith(">") for line in quoted), quoted)
        self.assertEqual(len(quoted), daemon.LIMITS["LIMIT_REFUSAL_QUOTE_LINES"])
        why = re.search(r'"S 7 1 3 1": (.+)', text).group(1)
        self.assertGreater(len(why.strip()), 5, why)

        # The same refused mail again: no second refusal.
        self.mail_in_ok(d, reply)
        self.assertEqual(len(self.outbox(d)), rows + 1)

        # A reply to the refusal with no move at all: a refusal saying what to write.
        self.mail_in_ok(d, make_reply(msg, "", ZOE))
        [m] = self.new_mails(smtp, 3, 1)
        self.assertIn("no move found", m.text())
        self.reply_address(m.msg, gid, "South", 3)
        self.assertEqual(d.game(gid), before)
        self.settle(d, smtp)

    def test_reply_to_an_old_mail_is_refused(self):
        smtp, d, gid, tokens, inv = self.start()
        d.play(gid, tokens, OPENING[:1])
        [old] = self.new_mails(smtp, 2, 1)                       # North, ply 1
        self.reply_address(old.msg, gid, "North", 2)
        d.play(gid, tokens, OPENING[1:3], first_ply=1)
        latest = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 3, 2)}[BEN[1]]    # North, ply 3
        live = self.reply_address(latest.msg, gid, "North", 3)
        before = d.game(gid)
        self.assertEqual(before["ply"], 3)
        # Anyone who saw the old mail answers it, from an address of their own: nothing acts,
        # and the refusal goes to Ben's registered address alone.
        self.mail_in_ok(d, make_reply(old.msg, "s 3 9 4 9", MALLORY))
        self.mail_in_ok(d, make_reply(old.msg, "resign", MALLORY))
        self.assertEqual(d.game(gid), before)
        got = self.new_mails(smtp, 5, 2)
        for m in got:
            self.check_common(m, BEN)
            text = m.text()
            self.assertIn("it went to an old reply address of your seat", text)
            self.assertIn("only a reply to the latest mail of the game acts", text)
            # The refusal carries Ben's live address: the one of his latest mail, no other.
            self.assertEqual(self.reply_address(m.msg, gid, "North", 3), live)
        self.assertIn("\n> s 3 9 4 9\n", got[0].text())
        self.assertIn("\n> resign\n", got[1].text())
        self.assertEqual([r["kind"] for r in self.outbox(d)[-2:]], ["refused"] * 2)
        self.assertNotIn(MALLORY[1], {r["recipient"] for r in self.outbox(d)})
        self.assertFalse([m for m in smtp.all() if MALLORY[1] in m.rcpt_tos])
        # The live address still acts, once.
        self.mail_in_ok(d, make_reply(got[1].msg, OPENING[3], BEN))
        self.assertEqual(d.game(gid)["ply"], 4)
        self.settle(d, smtp)

    def test_reply_to_an_old_mail_gets_the_current_state(self):
        # README.md promises "Replies to an old mail are answered with the game's current state":
        # the board, the last moves, and the seat's live reply address.
        smtp, d, gid, tokens, inv = self.start()
        d.play(gid, tokens, OPENING[:2])
        turn = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 2, 2)}[ZOE[1]]
        self.mail_in_ok(d, make_reply(inv[ZOE[1]].msg, "S 7 1 6 1", ZOE))
        [m] = self.new_mails(smtp, 4, 1)
        self.check_board(m.text(), d.game(gid)["position"], "South")
        self.assertEqual(self.reply_address(m.msg, gid, "South", 2), addr(turn.msg["Reply-To"])[1])
        # She moves in the browser meanwhile; then a move by reply to her live address answers a
        # position the game has left: refused, and the live address has acted.
        d.play(gid, tokens, OPENING[2:3], first_ply=2)
        [_] = self.new_mails(smtp, 5, 1)                                    # North's turn
        self.mail_in_ok(d, make_reply(m.msg, "S 7 1 6 1", ZOE))
        self.assertEqual(d.game(gid)["ply"], 3)
        [m] = self.new_mails(smtp, 6, 1)
        text = m.text()
        self.assertIn("answered an earlier position", text)
        self.assertIn("the game is at ply 3", text)
        self.assertIn("It is not your move now", text)
        self.reply_address(m.msg, gid, "South", 3)
        self.settle(d, smtp)

    def test_resign_by_reply(self):
        smtp, d, gid, tokens, inv = self.start()
        d.play(gid, tokens, OPENING[:1])
        [turn] = self.new_mails(smtp, 2, 1)
        subject = turn.msg["Subject"]
        self.mail_in_ok(d, make_reply(turn.msg, "Resign", BEN))
        g = d.game(gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"]["summary"], "South wins: North resigned")
        dice = d.get(f"/api/games/{gid}/dice").json()
        seed = dice["seed"]
        self.assertRegex(seed, r"^[0-9a-f]{64}$")
        self.assertEqual(hashlib.sha256(bytes.fromhex(seed)).hexdigest(), g["dice_commitment"])
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 3, 2)}
        for seat, who in (("South", ZOE), ("North", BEN)):
            m = new[who[1]]
            text, _ = self.check_game_mail(m, who, seat, gid, subject)
            self.assertIn(f"the Nchess game {gid} is over: South wins: North resigned.", text)
            self.assertIn(f"Dice seed (revealed now): {seed}\n", text)
            self.assertIn(f"Dice commitment: {g['dice_commitment']}\n", text)
            self.assertIn(f"{d.base}/api/games/{gid}/dice", text)
            self.assertIsNone(m.msg["Reply-To"])
            self.check_board(text, g["position"], seat)
        self.assertEqual(self.outbox(d)[-1]["kind"], "game_over")

        # A move by reply to the same mail after the end: its address has acted; refused, the
        # game unchanged, and the answer says the game is over.
        self.mail_in_ok(d, make_reply(turn.msg, "s 3 1 4 1", BEN))
        [m] = self.new_mails(smtp, 5, 1)
        self.assertIn("it went to an old reply address of your seat", m.text())
        self.assertIn("The game is over: South wins: North resigned.", m.text())
        self.assertIsNone(m.msg["Reply-To"])
        self.assertEqual(d.game(gid), g)
        self.settle(d, smtp)

    def test_draw_by_reply(self):
        smtp, d, gid, tokens, inv = self.start()
        subject = inv[ZOE[1]].msg["Subject"]
        # Offered by reply to the invitation: Ben is told (at the same ply his invitation's
        # address is still the live one), and Zoë's confirmation carries her next address.
        self.mail_in_ok(d, make_reply(inv[ZOE[1]].msg, "draw", ZOE))
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 2, 2)}
        offer = new[BEN[1]]
        self.assertIn(f"your draw offer in Nchess game {gid} is accepted.", new[ZOE[1]].text())
        self.reply_address(new[ZOE[1]].msg, gid, "South", 2)
        self.reply_address(offer.msg, gid, "North", 1)
        # Declined: told to Zoë with her live address (the one her confirmation had), confirmed to Ben.
        self.mail_in_ok(d, make_reply(offer.msg, "Decline draw.", BEN))
        self.assertIsNone(d.game(gid)["draw_offer"])
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 4, 2)}
        m = new[ZOE[1]]
        text, _ = self.check_game_mail(m, ZOE, "South", gid, subject)
        self.assertIn(f"Ben (North) declined the draw in Nchess game {gid}; the game goes on.", text)
        self.reply_address(m.msg, gid, "South", 2)
        self.assertIn(f"your refusal of the draw in Nchess game {gid} is accepted.", new[BEN[1]].text())
        self.reply_address(new[BEN[1]].msg, gid, "North", 2)
        # Offered again by reply to that mail; a second reply to the same mail acts no more.
        self.mail_in_ok(d, make_reply(m.msg, "offer draw", ZOE))
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 6, 2)}
        self.reply_address(new[ZOE[1]].msg, gid, "South", 3)
        self.mail_in_ok(d, make_reply(m.msg, "withdraw draw", ZOE))
        self.assertEqual(d.game(gid)["draw_offer"], "South")
        [m] = self.new_mails(smtp, 8, 1)
        self.assertIn("it went to an old reply address of your seat", m.text())
        self.reply_address(m.msg, gid, "South", 3)
        # Withdrawn by reply to her latest mail.
        self.mail_in_ok(d, make_reply(m.msg, "withdraw draw", ZOE))
        self.assertIsNone(d.game(gid)["draw_offer"])
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, 9, 2)}
        self.assertIn(f"{ZOE[0]} (South) withdrew the draw offer", new[BEN[1]].text())
        m = new[ZOE[1]]
        self.reply_address(m.msg, gid, "South", 4)
        # A withdrawal with no offer standing is refused.
        self.mail_in_ok(d, make_reply(m.msg, "withdraw draw", ZOE))
        [m] = self.new_mails(smtp, 11, 1)
        self.assertIn("no draw offer to withdraw", m.text())
        self.assertEqual(self.outbox(d)[-1]["kind"], "refused")
        live = self.reply_address(m.msg, gid, "South", 5)
        before = len(smtp.delivered())

        # The invitation's address acted long ago: an offer sent to it changes nothing.
        self.mail_in_ok(d, make_reply(inv[ZOE[1]].msg, "offer draw", ZOE))
        self.assertIsNone(d.game(gid)["draw_offer"])
        [m] = self.new_mails(smtp, before, 1)
        self.assertIn("it went to an old reply address of your seat", m.text())
        self.assertEqual(self.reply_address(m.msg, gid, "South", 5), live)

        self.mail_in_ok(d, make_reply(m.msg, "offer draw", ZOE))
        g = d.game(gid)
        self.assertEqual(g["draw_offer"], "South")
        self.assertEqual(g["status"], "running")
        offer = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, before + 1, 2)}[BEN[1]]
        text, _ = self.check_game_mail(offer, BEN, "North", gid, subject)
        self.assertIn(f"{ZOE[0]} (South) offers a draw in Nchess game {gid}.", text)
        self.reply_address(offer.msg, gid, "North", 2)
        self.mail_in_ok(d, make_reply(offer.msg, "accept draw", BEN))
        g = d.game(gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["result"]["summary"], "drawn by agreement")
        seed = d.get(f"/api/games/{gid}/dice").json()["seed"]
        self.assertEqual(hashlib.sha256(bytes.fromhex(seed)).hexdigest(), g["dice_commitment"])
        new = {m.rcpt_tos[0]: m for m in self.new_mails(smtp, before + 3, 2)}
        for seat, who in (("South", ZOE), ("North", BEN)):
            text, _ = self.check_game_mail(new[who[1]], who, seat, gid, subject)
            self.assertIn("is over: drawn by agreement.", text)
            self.assertIn(f"Dice seed (revealed now): {seed}\n", text)
        self.settle(d, smtp)

    def test_bad_messages_and_exit_codes(self):
        smtp, d, gid, tokens, inv = self.start()
        orig = inv[ZOE[1]].msg
        good = orig["Reply-To"].addresses[0].addr_spec
        rows = len(self.outbox(d))
        before = d.game(gid)
        forged = [f"play+forged-token@{DOMAIN}",
                  re.sub(r"-[a-z2-7]{16}@", "-aaaaaaaaaaaaaaaa@", good),      # wrong MAC
                  good.replace(f"+{gid}-0-1-", f"+{gid}-1-1-"),                # another seat, same MAC
                  good.replace(f"+{gid}-0-1-", f"+{gid}-0-2-"),                # a serial not given out
                  good.replace("@" + DOMAIN, "@elsewhere.example.org")]        # not our domain
        self.assertNotIn(good, forged)
        for to in forged:
            with self.subTest(to=to):
                r = self.mail_in(d, make_reply(orig, "S 7 1 6 1", ZOE, to=to))
                self.assertEqual(r.returncode, 67, r.err)
                r = self.mail_in(d, make_reply(orig, "S 7 1 6 1", ZOE, to=to), recipient=to)
                self.assertEqual(r.returncode, 67, r.err)
        self.assertEqual(len(self.outbox(d)), rows, "nothing is queued for a forged address")

        big = make_reply(orig, "S 7 1 6 1", ZOE)
        big = big.replace(b"\n\nS 7 1 6 1\n", b"\n\nS 7 1 6 1\n" + (b"x" * 76 + b"\n") * (MAIL_MAX_BYTES // 77 + 10))
        self.assertGreater(len(big), MAIL_MAX_BYTES)
        r = self.mail_in(d, big)
        self.assertEqual(r.returncode, 65, r.err)
        for junk in (b"", b"\x00\x01\x02garbage\xff\xfe" * 300, b"\n\nS 7 1 6 1\n"):
            with self.subTest(junk=junk[:20]):
                r = self.mail_in(d, junk)
                self.assertEqual(r.returncode, 65, r.err)
        self.assertEqual(len(self.outbox(d)), rows)
        self.assertEqual(d.game(gid), before)

        # A message of exactly the limit is read and acted on.
        exact = make_reply(orig, "S 7 1 6 1", ZOE)
        pad = MAIL_MAX_BYTES - len(exact)
        lines, rem = divmod(pad - 1, 71)
        filler = b"\n" + (b"y" * 70 + b"\n") * lines + (b"z" * (rem - 1) + b"\n" if rem else b"")
        exact = exact.replace(b"\n\nS 7 1 6 1\n", b"\n\nS 7 1 6 1\n" + filler)
        self.assertEqual(len(exact), MAIL_MAX_BYTES)
        r = self.mail_in_ok(d, exact)
        self.assertEqual(d.game(gid)["ply"], 1, r.err)
        rows = len(self.settle(d, smtp))

        # With the daemon down, the MTA is told to try again later; the message is kept by it.
        d.stop()
        r = self.mail_in(d, make_reply(orig, "S 7 1 6 1", ZOE))
        self.assertEqual(r.returncode, 75, r.err)
        self.assertIn("not running", r.err)
        self.assertEqual(len(outbox_rows(d.db)), rows)

    def test_refusals_are_rate_limited_per_seat_and_game(self):
        # Refusals go to the seat's own address whoever wrote, so they are counted per seat and
        # per game (a loop, or someone replaying an old mail of the seat), not per sender.
        per_seat = daemon.LIMITS["LIMIT_REFUSALS_PER_SEAT_HOUR"]
        per_game = daemon.LIMITS["LIMIT_REFUSALS_PER_GAME_HOUR"]
        self.assertLess(per_seat + 4, per_game)
        smtp, d, gid, tokens, inv = self.start()
        orig = inv[ZOE[1]].msg
        rows = len(self.outbox(d))
        for i in range(per_seat + 1):
            r = self.mail_in_ok(d, make_reply(orig, f"nonsense {i}", ZOE))
        self.assertIn("too many refusals for this seat", r.err)
        self.assertEqual([(r["kind"], r["recipient"]) for r in self.outbox(d)[rows:]],
                         [("refused", ZOE[1])] * per_seat)
        # Another sender (forwarding the address, or forging it) is no one to answer: nothing
        # goes to them, and the seat has had its answers.
        r = self.mail_in_ok(d, make_reply(orig, "nonsense", MALLORY))
        self.assertIn("too many refusals for this seat", r.err)
        self.assertEqual(len(self.outbox(d)), rows + per_seat)
        # The other seat of the game is still answered ...
        self.mail_in_ok(d, make_reply(inv[BEN[1]].msg, "nonsense", BEN))
        self.assertEqual((self.outbox(d)[-1]["kind"], self.outbox(d)[-1]["recipient"]), ("refused", BEN[1]))
        # ... until the game has had per_game refused mails this hour (answered or not): then
        # no seat is answered.
        for i in range(per_game - (per_seat + 4)):
            self.mail_in_ok(d, make_reply(orig, f"more nonsense {i}", ZOE))
        r = self.mail_in_ok(d, make_reply(inv[BEN[1]].msg, "nonsense again", BEN))
        self.assertIn("refused", r.err)
        self.assertNotIn("too many", r.err)
        r = self.mail_in_ok(d, make_reply(inv[BEN[1]].msg, "and again", BEN))
        self.assertIn("too many refusals for this game", r.err)
        self.assertEqual([(r["kind"], r["recipient"]) for r in self.outbox(d)[rows:]],
                         [("refused", ZOE[1])] * per_seat + [("refused", BEN[1])] * 2)
        self.assertEqual(d.game(gid)["ply"], 0)
        rows = self.settle(d, smtp)
        self.assertNotIn(MALLORY[1], {r["recipient"] for r in rows})
        self.assertFalse([m for m in smtp.all() if MALLORY[1] in m.rcpt_tos])

    def test_automatic_replies_get_no_refusal(self):
        # Server bug: an autoresponder's answer to a your-turn mail (Auto-Submitted:
        # auto-replied, RFC 3834) is refused with a mail of our own ("no move found"), so two
        # robots talk until the rate limit of 20 refusals an hour stops it. RFC 3834 section 2:
        # no automatic response to a message whose Auto-Submitted is other than "no".
        # mail_parse.c does not read Auto-Submitted and mail_in.c refuse() answers anything
        # with a From.
        smtp, d, gid, tokens, inv = self.start(confirm=("North",))
        orig = inv[ZOE[1]].msg
        rows = len(self.outbox(d))
        r = self.mail_in(d, make_reply(orig, "I am away until Monday and will read your mail then.", ZOE,
                                       extra=[("Auto-Submitted", "auto-replied")], quote=False))
        self.assertEqual(r.returncode, 0, r.err)
        self.assertEqual(d.game(gid)["ply"], 0)
        self.assertEqual(len(self.outbox(d)), rows, "no mail answers an automatic reply")
        # Nor is a robot's answer its owner acting: Zoë still gets nothing after her invitation.
        d.play(gid, tokens, OPENING[:2])
        self.assertEqual([r["recipient"] for r in self.outbox(d)[rows:]], [BEN[1]])
        self.settle(d, smtp)


# --------------------------------------------------------------------------------------------
# 3. Delivery: retries, permanent failures, a server that comes late, restarts
# --------------------------------------------------------------------------------------------

class DeliveryTests(MailCase):

    def test_temporary_failures_are_retried(self):
        smtp = self.smtp(fail_first=2)
        d = self.daemon(smtp=smtp)
        gid, tokens, _ = self.new_game(d, north=("Ben", None))
        [m] = smtp.wait(1)
        self.assertEqual(m.rcpt_tos, [ZOE[1]])
        offered = smtp.all()
        self.assertEqual([x.answer[:3] for x in offered], ["451", "451", "250"])
        self.assertEqual({x.content for x in offered}, {m.content}, "the same message each time")
        rows = wait_for("the row marked sent", lambda: (lambda rs: rs if rs[0]["state"] == "sent" else None)(
            self.outbox(d)))
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0]["state"], rows[0]["attempts"]), ("sent", 3))
        self.settle(d, smtp)
        self.assertIn("delivered", d.stop())

    def test_permanent_failure_is_not_retried(self):
        smtp = self.smtp(permanent=True)
        d = self.daemon(smtp=smtp)
        self.new_game(d, north=("Ben", None))
        row = wait_for("the row marked failed", lambda: (lambda rs: rs[0] if rs and rs[0]["state"] != "queued"
                                                           and rs[0]["state"] != "sending" else None)(self.outbox(d)))
        self.assertEqual(row["state"], "failed", row["last_error"])
        self.assertEqual(row["attempts"], 1)
        self.assertIn("550", row["last_error"])
        time.sleep(3.5)             # past the first retry (1 s) and a poll of the worker (2 s)
        self.assertEqual(len(smtp.all()), 1, smtp.all())
        row2 = self.outbox(d)[0]
        self.assertEqual((row2["state"], row2["attempts"]), ("failed", 1))
        self.assertEqual(smtp.delivered(), [])
        # Given up for good: the outbox keeps the headers, not the body with its links.
        check_wiped(self, row2["message"], smtp.all()[0].content.replace(b"\r\n", b"\n").decode())
        self.assertIn("for good", d.stop())

    def test_server_that_comes_late_gets_each_mail_once(self):
        port = free_port()
        d = self.daemon(smtp=f"smtp://127.0.0.1:{port}")
        gid, tokens, _ = self.new_game(d)
        rows = wait_for("two failed attempts", lambda: (lambda rs: rs if len(rs) == 2 and all(
            r["attempts"] >= 2 and r["state"] == "queued" for r in rs) else None)(self.outbox(d)), timeout=30)
        for r in rows:
            self.assertTrue(r["last_error"], r)
            self.assertIn("SMTP", r["last_error"])
        smtp = self.smtp(port=port)
        got = smtp.wait(2, timeout=30)
        self.assertEqual(sorted(m.rcpt_tos[0] for m in got), sorted([ZOE[1], BEN[1]]))
        rows = self.settle(d, smtp)
        self.assertTrue(all(r["state"] == "sent" and r["attempts"] >= 3 for r in rows), rows)
        # And the game goes on as usual, once Ben has asked for mail.
        self.ask_for_mail(d, gid, [m for m in got if m.rcpt_tos == [BEN[1]]][0], "North")
        d.play(gid, tokens, OPENING[:1])
        smtp.wait(3)
        self.settle(d, smtp)

    def test_restart_delivers_queued_mail_once(self):
        # Two invitations (nobody can ask for more mail before any has arrived).
        port = free_port()
        d = self.daemon(smtp=f"smtp://127.0.0.1:{port}")
        gid, tokens, _ = self.new_game(d)
        d.play(gid, tokens, OPENING[:1])
        wait_for("two failed attempts", lambda: (lambda rs: rs if len(rs) == 2 and all(
            r["attempts"] >= 1 and r["state"] == "queued" for r in rs) else None)(self.outbox(d)))
        d.stop()
        queued = outbox_rows(d.db)
        self.assertEqual([r["state"] for r in queued], ["queued"] * 2)
        smtp = self.smtp(port=port)
        d2 = self.daemon(smtp=smtp, db=d.db)
        d2.secrets = d.secrets
        got = smtp.wait(2, timeout=30)
        time.sleep(1)
        rows = self.settle(d2, smtp)
        self.assertEqual(len(smtp.delivered()), 2)
        self.assertEqual(sorted(m.message_id for m in got), sorted(row_message_id(r) for r in queued))
        self.assertEqual({r["state"] for r in rows}, {"sent"})

    def restart_after_a_crash(self, d, smtp):
        """A daemon on the database of d, just killed. On a database daemons share (PostgreSQL),
        a mail 'sending' may be another daemon's in flight until LIMIT_MAIL_SENDING_S have passed
        since its claim: the new daemon then starts that much later, by its clock."""
        env = {}
        if database.is_postgresql(d.db):
            env = daemon.faketime_env("+%d" % (daemon.LIMITS["LIMIT_MAIL_SENDING_S"] + 60))
        d2 = self.daemon(smtp=smtp, db=d.db, env=env)
        d2.secrets = d.secrets
        return d2

    def test_mail_cut_off_by_a_crash_is_not_sent_again(self):
        smtp = self.smtp(delay=4)
        d = self.daemon(smtp=smtp)
        self.new_game(d, north=("Ben", None))
        wait_for("the SMTP transaction to begin", lambda: smtp.arrived == 1)
        self.assertEqual(self.outbox(d)[0]["state"], "sending")
        d.proc.kill()
        d.proc.wait()
        d2 = self.restart_after_a_crash(d, smtp)
        row = outbox_rows(d.db)[0]
        self.assertEqual((row["state"], row["attempts"]), ("failed", 1), row)
        self.assertTrue(row["last_error"])
        # Interrupted (so given up): wiped too, the reply address with the body.
        self.assertTrue(row["message"].endswith("\n\n" + WIPED_NOTE + "\n"), row["message"])
        self.assertNotIn("play+", row["message"])
        self.assertIn("not resent", d2.stderr())
        time.sleep(3)
        self.assertEqual(smtp.arrived, 1, "a mail that may have gone out is never sent twice")
        self.assertEqual(outbox_rows(d.db)[0]["state"], "failed")

    def test_crash_loses_only_the_mail_in_flight(self):
        # Server bug (mail lost): the worker claims a whole batch (up to 16 rows) as 'sending'
        # in one statement (db_mail.c db_outbox_claim) and then sends them one after the
        # other. When the daemon dies during the first SMTP transaction, the start-up sweep
        # (db_outbox_abandon_interrupted) marks every claimed row failed, including those that
        # never reached any SMTP server: they are never sent. Only the row in flight can have
        # gone out; the others should be queued again (claim one row at a time, or mark the
        # row being sent separately).
        smtp = self.smtp(delay=4)
        d = self.daemon(smtp=smtp)
        self.new_game(d)                                   # two invitations, one batch
        wait_for("the first SMTP transaction to begin", lambda: smtp.arrived == 1)
        d.proc.kill()
        d.proc.wait()
        smtp.delay = 0
        d2 = self.restart_after_a_crash(d, smtp)
        rows = outbox_rows(d.db)
        self.assertEqual(smtp.arrived, 1)
        self.assertEqual(rows[0]["state"], "failed")       # the one in flight: at most once
        self.assertNotEqual(rows[1]["state"], "failed", "a mail never handed to SMTP is lost: %s"
                            % rows[1]["last_error"])
        wait_for("the mail never attempted to be delivered after the restart",
                 lambda: outbox_rows(d.db)[1]["state"] == "sent")
        self.settle(d2, smtp)

    def test_sigterm_does_not_wait_for_a_hung_smtp_server(self):
        # Server bug: on SIGTERM, outbox_stop() joins the delivery worker, which finishes its
        # whole claimed batch first, each send bounded only by CURLOPT_TIMEOUT (120 s). With an
        # SMTP server that stops answering, shutdown takes up to 16 x 120 s, far past
        # LIMIT_SHUTDOWN_GRACE_S; a service manager then kills the daemon and (see
        # test_crash_loses_only_the_mail_in_flight) the rest of the batch is lost. The
        # transfer should be aborted on stop (CURLOPT_XFERINFOFUNCTION) and the row queued again.
        grace = daemon.LIMITS["LIMIT_SHUTDOWN_GRACE_S"]
        smtp = self.smtp(delay=120)
        d = self.daemon(smtp=smtp)
        self.new_game(d, north=("Ben", None))
        wait_for("the SMTP transaction to begin", lambda: smtp.arrived == 1)
        d.proc.terminate()
        try:
            rc = d.proc.wait(grace + 1)
        except subprocess.TimeoutExpired:
            d.proc.kill()
            d.proc.wait()
            self.fail(f"SIGTERM took over {grace + 1}s with an SMTP server that does not answer")
        self.assertEqual(rc, 0, d.stderr())
        # The whole message was out: the server may have taken it, so it is left, never resent.
        self.assertEqual(outbox_rows(d.db)[0]["state"], "sending")

    def test_second_daemon_on_the_same_database_is_refused(self):
        # One daemon per database (it holds <db>.lock): a second `rookery serve` would mark the
        # first one's mails in flight failed, take over its mail socket, and write the same
        # SQLite database from a second process (the WAL-reset bug of SQLite 3.40).
        smtp = self.smtp()
        d = self.daemon(smtp=smtp)
        gid, tokens, _ = self.new_game(d)
        inv = {m.rcpt_tos[0]: m for m in smtp.wait(2)}
        second = Daemon("--reply-domain", DOMAIN, "--smtp", smtp.url, db=d.db, workdir=self.tmp)
        second.secrets = d.secrets
        self.addCleanup(second.kill)
        started = True
        try:
            second.start()
        except AssertionError:
            started = False
        if started:
            second.stop()
        r = self.mail_in(d, make_reply(inv[ZOE[1]].msg, "S 7 1 6 1", ZOE))
        self.assertEqual(r.returncode, 0, "the first daemon lost its mail socket: " + r.err)
        self.assertFalse(started, "a second daemon served the same database")

    def test_tls_required_but_not_offered_sends_nothing(self):
        smtp = self.smtp()
        d = self.daemon("--smtp-tls", "require", smtp=smtp)
        self.new_game(d, north=("Ben", None))
        row = wait_for("a failed attempt", lambda: (lambda rs: rs[0] if rs and rs[0]["attempts"] >= 1
                                                      and rs[0]["state"] != "sending" else None)(self.outbox(d)))
        self.assertNotEqual(row["state"], "sent")
        self.assertTrue(row["last_error"])
        self.assertEqual(smtp.all(), [], "no mail in the clear when TLS is required")


# --------------------------------------------------------------------------------------------
# 4. Without --smtp: the maildir
# --------------------------------------------------------------------------------------------

class MaildirTests(MailCase):

    def check_maildir(self, d, maildir):
        rows = wait_for("all mails written", lambda: (lambda rs: rs if rs and all(
            r["state"] == "sent" for r in rs) else None)(self.outbox(d)))
        new = sorted(os.listdir(os.path.join(maildir, "new")))
        self.assertEqual(os.listdir(os.path.join(maildir, "tmp")), [])
        self.assertEqual(len(new), len(rows), new)
        contents = []
        for name in new:
            path = os.path.join(maildir, "new", name)
            self.assertEqual(os.stat(path).st_mode & 0o077, 0, "mails hold seat links: private files")
            with open(path, "rb") as f:
                contents.append(f.read())
        msgs = [email.message_from_bytes(c, policy=POLICY) for c in contents]
        # Each file is one whole message of the outbox, which keeps its headers but not its body.
        by_id = {m["Message-ID"]: c for m, c in zip(msgs, contents)}
        self.assertEqual(sorted(by_id), sorted(row_message_id(r) for r in rows))
        for r in rows:
            check_wiped(self, r["message"], by_id[row_message_id(r)].decode())
        for m in msgs:
            self.assertTrue(m["Message-ID"] and m["Date"] and m["To"] and m["Subject"])
            self.assertIsNotNone(m.get_body(("plain",)))
        return rows, msgs

    def test_default_maildir_beside_the_database(self):
        d = self.daemon()
        gid, tokens, _ = self.new_game(d)
        for who in (ZOE, BEN):
            d.confirm_by_invitation(gid, who[1])
        d.play(gid, tokens, OPENING[:1])
        maildir = os.path.join(self.tmp, "mail")
        rows, msgs = self.check_maildir(d, maildir)
        self.assertEqual(sorted(r["kind"] for r in rows), ["invitation", "invitation", "your_turn"])
        [turn] = [m for m in msgs if "It is your move in" in m.get_body(("plain",)).get_content()]
        self.assertEqual(addr(turn["To"]), BEN)
        # A move by reply to the maildir copy works the same.
        self.mail_in_ok(d, make_reply(turn, "s 3 1 4 1", BEN))
        self.assertEqual(d.game(gid)["ply"], 2)
        rows, msgs = self.check_maildir(d, maildir)
        self.assertEqual(sorted(r["kind"] for r in rows),
                         ["accepted", "invitation", "invitation", "your_turn", "your_turn"])

    def test_maildir_option(self):
        maildir = os.path.join(self.tmp, "elsewhere")
        d = self.daemon("--maildir", maildir)
        self.new_game(d)
        self.check_maildir(d, maildir)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "mail")))



if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
