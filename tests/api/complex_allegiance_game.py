#!/usr/bin/env python3
"""complex_allegiance_game.py - black-box tests of four-player games (Complex Allegiance Chess).

usage: complex_allegiance_game.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (tests/harness), driven over the
JSON API and the HTML game page: a scripted game played to the first King
capture (a shared-pawn double step by each of the four seats, en passant,
castling by two seats, a promotion), seat tokens and turns, resignation and
draws by agreement of all four seats, and the board as each seat's page draws
it. The rules are those of docs/rules/complex-allegiance.md, shown as its rules page
(templates/rules-complex-allegiance.html, /rules/complex-allegiance); its sections are cited by
title ("En passant" and so on).

Python standard library only.
"""
import email
import email.message
import email.policy
import email.utils
import glob
import os
import subprocess
import time
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.complex_allegiance import (AFTER, CORNERS, FILES, NAMES, SCRIPT, SEATS, VARIANT,  # noqa: E402
                                        expected_grid, notation_squares)

OPPOSITE = {"North": "South", "East": "West", "South": "North", "West": "East"}

# The 14 legal moves of North at the start (scenario CA1).
START_NORTH_MOVES = {"Nc1-d3", "Nh1-g3"} | {f"{f}2-{f}{r}" for f in "cdefgh" for r in (3, 4)}


def square_index(name):
    """'j10' -> (row, col) of position.board: row 0 is rank 1, col 0 is file a."""
    return int(name[1:]) - 1, FILES.index(name[0])


SHARED = {"NW": {"North", "West"}, "NE": {"North", "East"}, "SW": {"South", "West"}, "SE": {"South", "East"}}
SINGLE = {"n": "North", "e": "East", "s": "South", "w": "West"}


class FourPlayerCase(daemon.DaemonCase):
    """Helpers for games of four seats."""

    def new_game(self, names=NAMES):
        r = self.d.post("/api/games", {"variant": VARIANT, "seats": [{"name": n} for n in names]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.assertEqual([s["seat"] for s in g["seats"]], list(SEATS))
        self.assertEqual([s["name"] for s in g["seats"]], list(names))
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.assertEqual(len(set(tokens.values())), 4, "every seat has its own token")
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def move(self, gid, tokens, seat, text, ply):
        """A move that must be accepted; returns the answer."""
        r = self.d.move(gid, tokens[seat], text, ply)
        self.assertEqual(r.status, 201, (ply, seat, text, r))
        return r.json()

    def play_script(self, gid, tokens, upto):
        """Play SCRIPT[:upto] without the per-move checks of the scripted test."""
        for ply, (seat, text, _canon, _note) in enumerate(SCRIPT[:upto]):
            self.move(gid, tokens, seat, text, ply)

    def draw(self, gid, token, action):
        return self.d.post(f"/api/games/{gid}/draw", {"action": action}, token=token)

    def draw_ok(self, gid, token, action):
        r = self.draw(gid, token, action)
        self.assertEqual(r.status, 200, (action, r))
        return r.json()

    def page(self, gid, token=None):
        return self.game_page(gid, token, 10, 10)

    def assert_places(self, result, places):
        self.assertEqual([{"place": p, "seats": list(s)} for p, s in places], result["places"])


class ScriptedGameTests(FourPlayerCase):

    def test_scripted_game_to_king_capture(self):
        gid, tokens = self.new_game()
        for ply, (seat, text, canon, note) in enumerate(SCRIPT):
            with self.subTest(ply=ply, seat=seat, move=text):
                if ply == 26:
                    # South's first turn after North's double step b2-b4: the en passant
                    # capture is among South's legal moves (En passant).
                    self.assertIn("c4xb3", self.d.game(gid, tokens["South"])["legal_moves"])
                j = self.move(gid, tokens, seat, text, ply)
                g = self.assertMoveAnswer(j, ply, seat, canon, note)
                last = ply == len(SCRIPT) - 1
                if not last:
                    self.assertEqual(g["status"], "running")
                    self.assertEqual(g["turn"], [SEATS[(ply + 1) % 4]], "turns go North, East, South, West")
                    self.assertIsNone(g["result"])
                pos = notation_squares(g["position"]["notation"])
                for square, piece in AFTER.get(ply, {}).items():
                    self.assertEqual(pos[square], piece, f"{square} after ply {ply}")
                    r, c = square_index(square)
                    self.assertEqual(g["position"]["board"][r][c], piece[-1] if piece else None,
                                     f"position.board at {square} after ply {ply}")

        # The first King capture ends the game: South 1st, East and West share 2nd, North 4th.
        g = self.d.game(gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["turn"], [])
        self.assertEqual(g["ply"], len(SCRIPT))
        self.assertEqual(g["result"]["summary"],
                         "South wins: North's King captured (South 1st, East and West share 2nd, North 4th)")
        self.assertEqual(g["result"]["ranks"], [4, 2, 1, 2])
        self.assert_places(g["result"], [(1, ["South"]), (2, ["East", "West"]), (4, ["North"])])
        self.assertNotIn("nK", notation_squares(g["position"]["notation"]).values())
        for seat in SEATS:
            mine = self.d.game(gid, tokens[seat])
            self.assertEqual(mine["seat"], seat)
            self.assertEqual(mine["legal_moves"], [], seat)

        # The history: every ply in order, the seats in turn, the canonical moves and notes.
        r = self.d.get(f"/api/games/{gid}/moves")
        self.assertEqual(r.status, 200, r)
        moves = r.json()["moves"]
        self.assertEqual([(m["ply"], m["seat"], m["move"], m["note"]) for m in moves],
                         [(i, s, c, n) for i, (s, _t, c, n) in enumerate(SCRIPT)])

        # After the end: the last move again is a duplicate; anything new is game_over.
        r = self.d.move(gid, tokens["South"], "Qb1-c1", len(SCRIPT) - 1)
        self.assertEqual(r.status, 200, r)
        self.assertIs(r.json()["duplicate"], True)
        self.assertError(self.d.move(gid, tokens["West"], "b5-c5", len(SCRIPT)), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["East"]), 409, "game_over")
        self.assertError(self.draw(gid, tokens["West"], "offer"), 409, "game_over")

        # Every seat's page (and the public one) shows the result with the places.
        for token in [tokens[s] for s in SEATS] + [None]:
            p, text = self.page(gid, token)
            self.assertIn("South wins: North", p.paras.get("result", ""))
            places = " ".join(p.paras.get("places", "").split())
            self.assertEqual(places, "place 1: South place 2: East West place 4: North")
            self.assertNotIn('class="move"', text)
            self.assertNotIn('class="resign"', text)


class SeatAndTurnTests(FourPlayerCase):

    def test_each_token_opens_its_own_seat(self):
        gid, tokens = self.new_game()
        public = self.d.game(gid)
        self.assertNotIn("seat", public)
        self.assertNotIn("legal_moves", public)
        self.assertEqual([s["seat"] for s in public["seats"]], list(SEATS))
        self.assertEqual(public["turn"], ["North"])
        for ply in range(5):
            to_move = SEATS[ply % 4]
            for seat in SEATS:
                g = self.d.game(gid, tokens[seat])
                self.assertEqual(g["seat"], seat)
                self.assertEqual(g["turn"], [to_move])
                if seat == to_move:
                    self.assertTrue(g["legal_moves"], f"{seat} is to move at ply {ply} and has moves")
                    if ply == 0:
                        self.assertEqual(set(g["legal_moves"]), START_NORTH_MOVES)
                        self.assertEqual(len(g["legal_moves"]), 14)
                else:
                    self.assertEqual(g["legal_moves"], [], f"{seat} is not to move at ply {ply}")
            self.move(gid, tokens, to_move, SCRIPT[ply][1], ply)

    def test_move_out_of_turn(self):
        gid, tokens = self.new_game()
        # Before North's first move nobody else may move (scenario CA1: i3-h3 by East).
        for seat, text in (("East", "i3-h3"), ("South", "c9-c8"), ("West", "b3-c3")):
            self.assertError(self.d.move(gid, tokens[seat], text, 0), 403, "not_your_turn")
        self.move(gid, tokens, "North", "e2-e4", 0)
        # Now East; North may not move twice, South and West may not jump the queue.
        for seat, text in (("North", "d2-d4"), ("South", "c9-c8"), ("West", "b3-c3")):
            self.assertError(self.d.move(gid, tokens[seat], text, 1), 403, "not_your_turn")
        self.assertEqual(self.d.game(gid)["ply"], 1)
        self.move(gid, tokens, "East", "i3-h3", 1)
        self.assertEqual(self.d.game(gid)["turn"], ["South"])

    def test_shared_pawn_of_others_is_refused(self):
        gid, tokens = self.new_game()
        # North controls NW and NE only (Shared pawns and shared pieces): SW and SE are South's and
        # West's / East's.
        msg = self.assertError(self.d.move(gid, tokens["North"], "b9-b8", 0), 422, "illegal_move")
        self.assertIn("shared SW Pawn", msg)
        self.assertIn("South and West", msg)
        msg = self.assertError(self.d.move(gid, tokens["North"], "i9-i8", 0), 422, "illegal_move")
        self.assertIn("shared SE Pawn", msg)
        self.play_script(gid, tokens, 8)    # ... up to West b4-d4: b3 and b4 are now empty
        # North's own shared NW pawn moves (b2-b4 is legal, Shared pawns and shared pieces), a SW pawn
        # does not.
        north = self.d.game(gid, tokens["North"])["legal_moves"]
        self.assertIn("b2-b4", north)
        self.assertFalse([m for m in north if m.startswith(("b9", "i9"))], north)
        msg = self.assertError(self.d.move(gid, tokens["North"], "b9-b10", 8), 422, "illegal_move")
        self.assertIn("moved only by South and West", msg)
        # Nor may East move the NW pawn, nor West the NE pawn.
        self.move(gid, tokens, "North", "e2-e3", 8)
        msg = self.assertError(self.d.move(gid, tokens["East"], "b2-a2", 9), 422, "illegal_move")
        self.assertIn("moved only by North and West", msg)
        self.assertEqual(self.d.game(gid)["ply"], 9, "a refused move changes nothing")


class ResignAndDrawTests(FourPlayerCase):

    def test_resign(self):
        # Resigning counts as the resigner's King taken by the opposite seat (End of the game;
        # house ruling 12):
        # the opposite seat is 1st, the resigner 4th, the two others share 2nd. Any time, any turn.
        cases = [
            ("East", 0, "West wins: East resigned (West 1st, North and South share 2nd, East 4th)",
             [2, 4, 2, 1], [(1, ["West"]), (2, ["North", "South"]), (4, ["East"])]),
            ("North", 3, "South wins: North resigned (South 1st, East and West share 2nd, North 4th)",
             [4, 2, 1, 2], [(1, ["South"]), (2, ["East", "West"]), (4, ["North"])]),
            ("West", 6, "East wins: West resigned (East 1st, North and South share 2nd, West 4th)",
             [2, 1, 2, 4], [(1, ["East"]), (2, ["North", "South"]), (4, ["West"])]),
        ]
        for seat, plies, summary, ranks, places in cases:
            with self.subTest(resigner=seat):
                gid, tokens = self.new_game()
                self.play_script(gid, tokens, plies)
                r = self.d.post(f"/api/games/{gid}/resign", token=tokens[seat])
                self.assertEqual(r.status, 200, r)
                g = r.json()
                self.assertEqual(g["seat"], seat)
                self.assertEqual(g["status"], "over")
                self.assertEqual(g["turn"], [])
                self.assertEqual(g["ply"], plies, "resigning is not a ply")
                self.assertEqual(g["result"]["summary"], summary)
                self.assertEqual(g["result"]["ranks"], ranks)
                self.assert_places(g["result"], places)
                self.assertEqual(self.d.game(gid)["result"], g["result"])
                for other in SEATS:
                    self.assertEqual(self.d.game(gid, tokens[other])["legal_moves"], [])
                self.assertError(self.d.move(gid, tokens[SEATS[plies % 4]], SCRIPT[plies][1], plies),
                                 409, "game_over")
                self.assertError(self.d.post(f"/api/games/{gid}/resign", token=tokens[OPPOSITE[seat]]),
                                 409, "game_over")
                p, _ = self.page(gid, tokens[OPPOSITE[seat]])
                want = " ".join(f"place {n}: {' '.join(s)}" for n, s in places)
                self.assertEqual(" ".join(p.paras.get("places", "").split()), want)

    def test_draw_needs_all_four(self):
        gid, tokens = self.new_game()
        self.play_script(gid, tokens, 2)        # South is to move
        g = self.draw_ok(gid, tokens["North"], "offer")
        self.assertEqual(g["draw_offer"], "North")
        self.assertEqual(g["draw_accepted_by"], ["North"])
        self.assertError(self.draw(gid, tokens["North"], "accept"), 409, "no_draw_offer")
        self.draw_ok(gid, tokens["East"], "accept")
        g = self.draw_ok(gid, tokens["South"], "accept")
        # Three of four: still running, the offer stands with its three seats.
        self.assertEqual(g["status"], "running")
        self.assertIsNone(g["result"])
        self.assertEqual(g["draw_offer"], "North")
        self.assertEqual(sorted(g["draw_accepted_by"]), ["East", "North", "South"])
        self.assertEqual(self.d.game(gid)["draw_accepted_by"], g["draw_accepted_by"])
        self.assertError(self.draw(gid, tokens["East"], "accept"), 409, "no_draw_offer")
        self.assertError(self.draw(gid, tokens["South"], "offer"), 409, "draw_offer_pending")
        # The fourth declines: the offer is gone, nobody's agreement remains.
        g = self.draw_ok(gid, tokens["West"], "decline")
        self.assertEqual(g["status"], "running")
        self.assertIsNone(g["draw_offer"])
        self.assertEqual(g["draw_accepted_by"], [])
        self.assertError(self.draw(gid, tokens["East"], "accept"), 409, "no_draw_offer")
        # A new offer (by West this time) accepted by all three others draws the game:
        # everybody shares 2nd (End of the game).
        self.draw_ok(gid, tokens["West"], "offer")
        for seat in ("South", "North"):
            g = self.draw_ok(gid, tokens[seat], "accept")
            self.assertEqual(g["status"], "running")
        g = self.draw_ok(gid, tokens["East"], "accept")
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["turn"], [])
        self.assertIsNone(g["draw_offer"])
        self.assertEqual(g["result"]["summary"], "drawn by agreement")
        self.assertEqual(g["result"]["ranks"], [2, 2, 2, 2])
        self.assert_places(g["result"], [(2, SEATS)])
        self.assertError(self.d.move(gid, tokens["South"], SCRIPT[2][1], 2), 409, "game_over")
        p, _ = self.page(gid, tokens["West"])
        self.assertIn("drawn by agreement", p.paras.get("result", ""))
        self.assertEqual(" ".join(p.paras.get("places", "").split()), "place 2: North East South West")

    def test_draw_accepted_by_lists_seats_in_seat_order(self):
        # docs/api.md: the seats that agreed, the offerer among them, in seat order.
        gid, tokens = self.new_game()
        self.draw_ok(gid, tokens["West"], "offer")
        g = self.draw_ok(gid, tokens["North"], "accept")
        self.assertEqual(g["draw_offer"], "West")
        self.assertEqual(g["draw_accepted_by"], ["North", "West"])

    def test_draw_offer_lapses_on_a_move_by_a_seat_that_has_not_agreed(self):
        gid, tokens = self.new_game()
        # North offers and then moves: the offerer has agreed, the offer stands.
        self.draw_ok(gid, tokens["North"], "offer")
        self.move(gid, tokens, "North", SCRIPT[0][1], 0)
        g = self.d.game(gid)
        self.assertEqual(g["draw_offer"], "North")
        self.assertEqual(g["draw_accepted_by"], ["North"])
        # East accepts, then moves: still standing.
        self.draw_ok(gid, tokens["East"], "accept")
        self.move(gid, tokens, "East", SCRIPT[1][1], 1)
        g = self.d.game(gid)
        self.assertEqual(g["draw_offer"], "North")
        self.assertEqual(g["draw_accepted_by"], ["North", "East"])
        # South has not agreed: its move lets the offer lapse.
        self.move(gid, tokens, "South", SCRIPT[2][1], 2)
        g = self.d.game(gid)
        self.assertIsNone(g["draw_offer"])
        self.assertEqual(g["draw_accepted_by"], [])
        self.assertEqual(g["status"], "running")
        self.assertError(self.draw(gid, tokens["West"], "accept"), 409, "no_draw_offer")
        # A fresh offer can be made and withdrawn by its offerer only.
        self.draw_ok(gid, tokens["South"], "offer")
        self.assertError(self.draw(gid, tokens["West"], "withdraw"), 409, "no_draw_offer")
        g = self.draw_ok(gid, tokens["South"], "withdraw")
        self.assertIsNone(g["draw_offer"])


class GamePageTests(FourPlayerCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = cls.d.post("/api/games", {"variant": VARIANT, "seats": [{"name": n} for n in NAMES]})
        assert r.status == 201, r
        cls.gid = r.json()["id"]
        cls.tokens = {s["seat"]: s["token"] for s in r.json()["seats"]}
        cls.d.secrets.update(cls.tokens.values())

    def test_board_turned_to_each_seat(self):
        # Each seat's page draws its home edge at the bottom (Players; The board): South rank 10,
        # North rank 1, East file j, West file a; the spectator's page is drawn as the rules
        # draw the board (The board: rank 1 at the top, file a on the left).
        position = self.d.game(self.gid)["position"]
        start = notation_squares(position["notation"])
        for seat in SEATS + (None,):
            with self.subTest(seat=seat or "spectator"):
                p, text = self.page(self.gid, self.tokens[seat] if seat else None)
                # The corners are off the board: not drawn at all, and only they.
                want = [[None if sq in CORNERS else sq for sq in row] for row in expected_grid(seat)]
                self.assertEqual(p.grid(), want)
                self.assertEqual(len(p.squares), 96)
                self.assertFalse(CORNERS & set(p.squares))
                # The pieces are where the position has them, in their owner's colour (a shared
                # Pawn in the shared one, its title naming both seats), on squares of their kind.
                for square, c in p.squares.items():
                    r, col = square_index(square)
                    self.assertEqual(c["kind"], position["kinds"][r][col] or "plain", square)
                    piece = start[square]
                    self.assertEqual(c["piece"], piece[-1] if piece else None, square)
                    if not piece:
                        self.assertEqual((c["side"], c["title"]), (None, square))
                    elif piece[:-1] in SHARED:
                        self.assertEqual(c["side"], "shared", square)
                        self.assertEqual(set(c["shared_by"]), SHARED[piece[:-1]], square)
                    else:
                        self.assertEqual(c["side"], SINGLE[piece[0]], square)
                        self.assertEqual(c["title"], f"{square}: {SINGLE[piece[0]]} {piece[-1]}")
                    self.assertEqual((c["facing"], c["held"], c["last"]), (None, None, False), square)
                self.assertEqual(p.walls, {})
                # The seat's own back row is the bottom row: its King is drawn there.
                if seat:
                    kings = [(c["r"], c["side"]) for c in p.squares.values() if c["piece"] == "K"]
                    self.assertEqual(len(kings), 4)
                    self.assertEqual([side for r, side in kings if r == 9], [seat], kings)
                # The labels around the board follow the turn, on both sides.
                ranks = [str(n) for n in range(1, 11)]
                rows, cols = {None: (ranks, FILES), "South": (ranks, FILES), "North": (ranks[::-1], FILES[::-1]),
                              "East": (FILES, ranks[::-1]), "West": (FILES[::-1], ranks)}[seat]
                self.assertEqual(p.row_labels(), [[x, x] for x in rows])
                self.assertEqual(p.col_labels(), [[x, x] for x in cols])
                if seat:
                    # Only North, to move first, has the move form.
                    self.assertEqual('class="move"' in text, seat == "North", seat)

    def test_square_names(self):
        # A square's title names it as the notation writes it ("e1", "j10").
        p, _ = self.page(self.gid, self.tokens["South"])
        titles = [[p.squares[n]["title"].split(":")[0] if n else None for n in row] for row in p.grid()]
        self.assertEqual(titles, [[None if sq in CORNERS else sq for sq in row] for row in expected_grid("South")])

    def test_shared_pieces_marked(self):
        want = {"b2": {"North", "West"}, "i2": {"North", "East"},
                "b9": {"South", "West"}, "i9": {"South", "East"}}
        for seat in SEATS:
            with self.subTest(seat=seat):
                p, text = self.page(self.gid, self.tokens[seat])
                found = {}
                for square, c in p.squares.items():
                    self.assertEqual(c["side"] == "shared", c["shared_by"] is not None, c)
                    if c["shared_by"] is not None:
                        found[square] = set(c["shared_by"])
                        self.assertEqual(c["piece"], "P")
                        self.assertRegex(c["title"], r": P shared by [A-Z][a-z]+ and [A-Z][a-z]+$")
                self.assertEqual(found, want)
                self.assertIn('class="chip side-shared"', text, "the legend names the shared colour")


class MailTests(FourPlayerCase):
    """Four people playing by replying to their mails (written to the maildir; rookery mail-in)."""

    daemon_args = ("--reply-domain", "rook.test")

    def mails(self, address):
        out = []
        for path in sorted(glob.glob(os.path.join(self.d.workdir, "mail", "new", "*"))):
            with open(path, "rb") as f:
                m = email.message_from_bytes(f.read(), policy=email.policy.default)
            if m["To"].addresses[0].addr_spec == address:
                out.append(m)
        return out

    def wait_for_mail(self, address, test, what, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [m for m in self.mails(address) if test(m)]
            if found:
                return found[-1]
            time.sleep(0.1)
        self.fail(f"no {what} mail for {address}")

    def reply(self, to_mail, sender, body):
        msg = email.message.EmailMessage()
        msg["From"] = sender
        msg["To"] = to_mail["Reply-To"]
        msg["Subject"] = "Re: " + to_mail["Subject"]
        msg["Message-ID"] = email.utils.make_msgid(domain="players.test")
        msg["In-Reply-To"] = to_mail["Message-ID"]
        msg.set_content(body + "\n\n> " + to_mail.get_body(("plain",)).get_content().replace("\n", "\n> "))
        r = subprocess.run([daemon.ROOKERY, "mail-in"] + self.d.db_args(), input=bytes(msg),
                           capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_game_by_mail(self):
        emails = {seat: f"{seat.lower()}@players.test" for seat in SEATS}
        r = self.d.post("/api/games", {"variant": VARIANT, "seats": [
            {"name": n, "email": emails[seat]} for n, seat in zip(NAMES, SEATS)]})
        self.assertEqual(r.status, 201, r)
        gid = r.json()["id"]
        self.d.secrets.update(s["token"] for s in r.json()["seats"])
        # Every seat is invited, each invitation with the seat's first reply address; only
        # North's asks for a move. The others ask for mail through their invitation's link (North's
        # reply by mail counts as asking).
        for seat in SEATS:
            inv = self.wait_for_mail(emails[seat], lambda m: "invited" in m.get_body(("plain",)).get_content(),
                                     "invitation")
            self.assertIn(f"-{SEATS.index(seat)}-1-", str(inv["Reply-To"]), seat)
            self.assertEqual("You move first." in inv.get_body(("plain",)).get_content(), seat == "North", seat)
            if seat != "North":
                self.d.confirm_by_invitation(gid, emails[seat])
        # The first eight plies of the script, each sent by replying to the mail that asked for it.
        # serial: of each seat's latest reply address; each mail at a new ply, or after the seat's
        # address acted, carries the next one.
        serial = {seat: 1 for seat in SEATS}
        replies_to = lambda seat, n: lambda m: f"+{gid}-{SEATS.index(seat)}-{n}-" in str(m["Reply-To"])
        for ply, (seat, text, canon, _note) in enumerate(SCRIPT[:8]):
            if ply:
                serial[seat] += 1
            ask = self.wait_for_mail(emails[seat], replies_to(seat, serial[seat]), f"ply {ply} your-move")
            self.reply(ask, emails[seat], text)
            serial[seat] += 1
            ok = self.wait_for_mail(emails[seat], replies_to(seat, serial[seat]), f"ply {ply} accepted")
            self.assertIn(f"your move {canon} ", ok.get_body(("plain",)).get_content())
            self.assertIn("is accepted", ok.get_body(("plain",)).get_content())
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual([m["move"] for m in moves], [c for _s, _t, c, _n in SCRIPT[:8]])
        # North is to move again. A reply to East's old your-move mail resigns nothing: only the
        # address of its latest mail acts.
        old = self.wait_for_mail(emails["East"], replies_to("East", serial["East"] - 1), "old your-move")
        self.reply(old, emails["East"], "resign")
        self.assertEqual(self.d.game(gid)["status"], "running")
        refused = self.wait_for_mail(emails["East"], lambda m: "could not be acted on" in
                                     m.get_body(("plain",)).get_content(), "refusal")
        self.assertIn("old reply address", refused.get_body(("plain",)).get_content())
        # East resigns by mail, out of turn, answering its latest mail.
        self.reply(refused, emails["East"], "resign")
        for seat in SEATS:
            over = self.wait_for_mail(emails[seat], lambda m: "is over" in m.get_body(("plain",)).get_content(),
                                      "game over")
            text = over.get_body(("plain",)).get_content()
            self.assertIn("West wins: East resigned (West 1st, North and South share 2nd, East 4th)", text)
            self.assertIn("Dice seed (revealed now):", text)
        g = self.d.game(gid)
        self.assert_places(g["result"], [(1, ["West"]), (2, ["North", "South"]), (4, ["East"])])


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
