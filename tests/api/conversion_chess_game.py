#!/usr/bin/env python3
"""conversion_chess_game.py - black-box test of a scripted game of Conversion Chess.

usage: conversion_chess_game.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (the harness of daemon.py), driven over the
JSON API and the HTML game page. One scripted game from the house start
position to a King capture holds one capture of each method (displacement,
assimilation, conversion by attacking), a compound split into the captor's
hand by displacement with demotion, a drop, and promotions before, after and
instead of a move. The rules are those of docs/rules/conversion-chess.md, shown as its rules page
(templates/rules-conversion-chess.html, /rules/conversion-chess); its sections are cited by
title ("Capturing" and so on), its scenarios by id ("CC1").

Python standard library only.
"""
import itertools
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.conversion_chess import AFTER, NAMES, SCRIPT, SEATS, VARIANT, hands_after  # noqa: E402

FILES = "abcdefghi"
SQUARES = [f + str(r) for r in range(1, 10) for f in FILES]

# The house start position (Starting position; house ruling 1), rank 9 first, as position.board shows it.
START_BOARD = [
    list("dnsgkgsnd"),
    [None, "r", "a", None, None, None, "a", "b", None],
    list("ppppppppp"),
    [None] * 9,
    [None] * 9,
    [None] * 9,
    list("PPPPPPPPP"),
    [None, "B", "A", None, None, None, "A", "R", None],
    list("DNSGKGSND"),
]
START_NOTATION = "cc1:dnsgkgsnd/.ra...ab./ppppppppp/........./........./........./PPPPPPPPP/.BA...AR./DNSGKGSND:-:-:W:-"

# CC1: White's 23 moves at the start.
START_WHITE_MOVES = {
    "Pa3-a4", "Pb3-b4", "Pc3-c4", "Pd3-d4", "Pe3-e4", "Pf3-f4", "Pg3-g4", "Ph3-h4", "Pi3-i4",
    "Ac2-a4", "Ac2-e4", "Ag2-e4", "Ag2-i4", "Rh2-i2", "Sc1-d2", "Sg1-f2",
    "Gd1-d2", "Gd1-e2", "Gf1-f2", "Gf1-e2", "Ke1-d2", "Ke1-e2", "Ke1-f2",
}

LAST = len(SCRIPT) - 1
END_NOTATION = ("cc1:dn..Bgsnd/.R(RA).s.AB./.p.p.p.Rp/p......../....g..../..P....../"
                "PP.P.PPPP/..A...AR./DNSGKGSND:N:an:B:W:king")


def cell(position, square):
    """The position.board entry of a square such as 'e5'."""
    row = position["rows"].index(square[1:])
    col = position["cols"].index(square[0])
    return position["board"][row][col]


def empty_squares(position):
    return {sq for sq in SQUARES if cell(position, sq) is None}


def hands(position):
    """position.holdings as {name: pieces}, checking their shape (no anchor square)."""
    out = {}
    for h in position["holdings"]:
        assert h["row"] is None and h["col"] is None, h
        assert h["name"] == h["seat"] + "'s hand", h
        out[h["name"]] = h["pieces"]
    return out


class ConversionCase(daemon.DaemonCase):
    """Helpers for games of Conversion Chess."""

    def new_game(self):
        r = self.d.post("/api/games", {"variant": VARIANT, "seats": [{"name": n} for n in NAMES]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        self.assertEqual(g["variant"], VARIANT)
        self.assertEqual([s["seat"] for s in g["seats"]], list(SEATS))
        self.assertEqual([s["name"] for s in g["seats"]], list(NAMES))
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.assertEqual(len(set(tokens.values())), 2)
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def move(self, gid, tokens, ply):
        """Play SCRIPT[ply], which must be accepted; returns the answer."""
        seat, text, _canon, _note = SCRIPT[ply]
        r = self.d.move(gid, tokens[seat], text, ply)
        self.assertEqual(r.status, 201, (ply, seat, text, r))
        return r.json()

    def play_to(self, gid, tokens, upto):
        for ply in range(upto):
            self.move(gid, tokens, ply)

    def legal(self, gid, tokens, seat):
        g = self.d.game(gid, tokens[seat])
        self.assertEqual(g["seat"], seat)
        return g["legal_moves"], g["position"]

    def refused(self, gid, tokens, ply, text, code="illegal_move", part=None):
        seat = SCRIPT[ply][0]
        r = self.d.move(gid, tokens[seat], text, ply)
        self.assertError(r, 422, code, part)
        self.assertEqual(self.d.game(gid)["ply"], ply, f"{text!r} changed the game")

    def page(self, gid, token=None):
        return self.game_page(gid, token, 9, 9, full=True)


class ScriptedGameTests(ConversionCase):

    def test_scripted_game_to_king_capture(self):
        gid, tokens = self.new_game()
        g = self.d.game(gid)
        self.assertEqual((g["status"], g["ply"], g["turn"]), ("running", 0, ["White"]))
        self.assertEqual(g["position"]["notation"], START_NOTATION)
        self.assertEqual(g["position"]["board"], START_BOARD)
        self.assertEqual(hands(g["position"]), {"White's hand": [], "Black's hand": []})

        for ply, (seat, text, canon, note) in enumerate(SCRIPT):
            with self.subTest(ply=ply, seat=seat, move=text):
                other = SEATS[1 - SEATS.index(seat)]
                # The exact canonical text is what the seat's legal_moves offers; the other
                # seat is offered nothing.
                legal, _ = self.legal(gid, tokens, seat)
                self.assertIn(canon, legal)
                self.assertEqual(self.legal(gid, tokens, other)[0], [], f"{other} is not to move")
                j = self.move(gid, tokens, ply)
                g = self.assertMoveAnswer(j, ply, seat, canon, note)
                if ply < LAST:
                    self.assertEqual(g["status"], "running")
                    self.assertEqual(g["turn"], [other], "turns alternate White, Black")
                    self.assertIsNone(g["result"])
                pos = g["position"]
                for square, piece in AFTER.get(ply, {}).items():
                    self.assertEqual(cell(pos, square), piece, f"{square} after ply {ply}")
                white, black = hands_after(ply)
                self.assertEqual(hands(pos), {"White's hand": white, "Black's hand": black},
                                 f"hands after ply {ply}")
                self.assertEqual(pos["notation"].split(":")[2:4],
                                 ["".join(white) or "-", "".join(black) or "-"])

        # The King captured by a move ends the game: White wins, nothing goes to a hand.
        g = self.d.game(gid)
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["turn"], [])
        self.assertEqual(g["ply"], len(SCRIPT))
        self.assertEqual(g["position"]["notation"], END_NOTATION)
        self.assertNotIn("k", [c for row in g["position"]["board"] for c in row], "Black's King is gone")
        self.assertEqual(g["result"]["summary"], "White wins: King captured")
        self.assertEqual(g["result"]["ranks"], [1, 2])
        self.assertEqual(g["result"]["places"],
                         [{"place": 1, "seats": ["White"]}, {"place": 2, "seats": ["Black"]}])
        for seat in SEATS:
            self.assertEqual(self.legal(gid, tokens, seat)[0], [], seat)

        # The history: every ply in order, the seats in turn, the canonical moves and notes.
        r = self.d.get(f"/api/games/{gid}/moves")
        self.assertEqual(r.status, 200, r)
        moves = r.json()["moves"]
        self.assertEqual([(m["ply"], m["seat"], m["move"], m["note"]) for m in moves],
                         [(i, s, c, n) for i, (s, _t, c, n) in enumerate(SCRIPT)])
        self.assertTrue(all(m["dice"] == [] and m["hidden"] is False for m in moves), moves)

        # After the end: the last move again (in another spelling) is a duplicate; anything
        # new is game_over, whoever sends it.
        r = self.d.move(gid, tokens["White"], "bd8-e9", LAST)
        self.assertEqual(r.status, 200, r)
        self.assertIs(r.json()["duplicate"], True)
        self.assertEqual(r.json()["move"], "Bd8xe9")
        self.assertError(self.d.move(gid, tokens["Black"], "Pb7-b6", len(SCRIPT)), 409, "game_over")
        self.assertError(self.d.move(gid, tokens["White"], "N*e6", len(SCRIPT)), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["Black"]), 409, "game_over")
        self.assertError(self.d.post(f"/api/games/{gid}/draw", {"action": "offer"}, token=tokens["Black"]),
                         409, "game_over")
        self.assertEqual(len(self.d.get(f"/api/games/{gid}/moves").json()["moves"]), len(SCRIPT))

    def test_start_and_turns(self):
        r = self.d.get("/api/variants")
        self.assertEqual(r.status, 200, r)
        v = [x for x in r.json()["variants"] if x["id"] == VARIANT]
        self.assertEqual(len(v), 1, r.json())
        self.assertEqual((v[0]["title"], v[0]["seats"], v[0]["players"]),
                         ("Conversion Chess", list(SEATS), 2))
        self.assertEqual(self.d.get(v[0]["rules_url"]).status, 200)

        gid, tokens = self.new_game()
        public = self.d.game(gid)
        self.assertNotIn("legal_moves", public)
        self.assertEqual(public["turn"], ["White"])
        legal, _ = self.legal(gid, tokens, "White")
        self.assertEqual(set(legal), START_WHITE_MOVES, "CC1: White's 23 moves")
        self.assertEqual(len(legal), 23)
        # CC1: a Black move before White's is refused; no promotion outside the zone.
        self.assertError(self.d.move(gid, tokens["Black"], "e7-e6", 0), 403, "not_your_turn")
        self.refused(gid, tokens, 0, "Pe3=R / Re3xe7 assim", part="zone")
        self.move(gid, tokens, 0)
        # Now Black; White may not move twice.
        self.assertError(self.d.move(gid, tokens["White"], "d3-d4", 1), 403, "not_your_turn")
        self.assertEqual(self.d.game(gid)["turn"], ["Black"])


class LegalMovesTests(ConversionCase):
    """legal_moves along the scripted game: every capture method, demotion choice,
    promotion and drop that applies is offered as a complete move of its own."""

    def test_choices_offered_along_the_game(self):
        gid, tokens = self.new_game()
        for ply in range(len(SCRIPT)):
            seat = SCRIPT[ply][0]
            legal, pos = self.legal(gid, tokens, seat)
            self.assertEqual(len(legal), len(set(legal)), f"duplicates at ply {ply}")
            drops = {m for m in legal if "*" in m}
            with self.subTest(ply=ply):
                if ply == 3:
                    # Pawn displaces Pawn (Second vs Second is 1): one move per demotion choice.
                    self.assertEqual({m for m in legal if m.startswith("Pe6xe5")},
                                     {"Pe6xe5 disp(A)", "Pe6xe5 disp(N)", "Pe6xe5 disp(D)"})
                    self.assertEqual(drops, set(), "Black's hand is empty")
                elif ply == 6:
                    # Bishop vs Pawn (Third vs Second is 1 2): the capturer chooses.
                    self.assertEqual({m for m in legal if m.startswith("Bb2xe5")},
                                     {"Bb2xe5 assim", "Bb2xe5 disp(A)", "Bb2xe5 disp(N)", "Bb2xe5 disp(D)"})
                elif ply == 8:
                    # Promotions of the two converted Pawns standing in White's zone: in place,
                    # before a move (the new piece moves) and after a move.
                    for m in ("Pg7=R", "Pg7=B", "Pc7=R", "Pc7=B",
                              "Pc7=R / Rc7xc8 assim", "Pc7=R / Rc7xd7 disp(N)", "Pc7=B / Bc7-d8",
                              "Pg7=R / Rg7xh7 assim", "Pg7=B / Bg7xe9",
                              "Pc7xc8 disp", "Pc7xc8 disp / Pc8=R", "Pc7xc8 disp / Pc8=B",
                              "Pg7xg8 disp / Pg8=R"):
                        self.assertIn(m, legal)
                    self.assertNotIn("Pg7=G", legal, "a Pawn promotes to B or R only")
                    promoted = [m for m in legal if "=" in m]
                    for m in promoted:
                        sq = re.search(r"([a-i])([1-9])=", m)
                        self.assertGreaterEqual(int(sq.group(2)), 7, f"{m}: outside White's zone")
                        self.assertFalse(m.startswith("("), f"{m}: compounds never promote")
                    self.assertFalse([m for m in legal if m.startswith("(BP)") and "=" in m])
                elif ply == 10:
                    self.assertEqual({m for m in legal if m.startswith("Rg7x")},
                                     {"Rg7xh7 disp(A)", "Rg7xh7 disp(N)", "Rg7xh7 disp(D)", "Rg7xh7 assim",
                                      "Rg7xf7 disp(A)", "Rg7xf7 disp(N)", "Rg7xf7 disp(D)", "Rg7xf7 assim",
                                      "Rg7xg8 assim"})
                    self.assertFalse([m for m in legal if m.startswith("Rg7=")], "a Rook never promotes")
                    # The compound may displace the Gold (Fourth vs Second is 1 3), not assimilate it.
                    self.assertEqual({m for m in legal if m.startswith("(BP)e5xe6")},
                                     {"(BP)e5xe6 disp(A)", "(BP)e5xe6 disp(N)", "(BP)e5xe6 disp(D)"})
                elif ply == 11:
                    # Displacing the compound (BP): one choice for the Bishop power (P, S, G)
                    # and one for the Pawn power (A, N, D): nine moves.
                    self.assertEqual({m for m in legal if m.startswith("Ge6xe5")},
                                     {f"Ge6xe5 disp({b},{p})" for b, p in itertools.product("PSG", "AND")})
                    # The Knight in Black's hand may go to any empty square.
                    self.assertEqual(drops, {f"N*{sq}" for sq in empty_squares(pos)})
                elif ply == 12:
                    self.assertIn("Pc7=R / Rc7xc8 assim", legal)
                    self.assertNotIn("Pc7=R / Rc7xc8 disp", legal, "Third vs First is 2 only")
                    self.assertEqual(drops, {f"N*{sq}" for sq in empty_squares(pos)})
                elif ply == 13:
                    self.assertEqual(drops, {f"{x}*{sq}" for x in "ANS" for sq in empty_squares(pos)})
                    self.assertIn("S*e8", drops)
                    self.assertNotIn("S*e9", drops)
                elif ply == 14:
                    for m in ("Sc9-d8", "Sc9-d8 / Sd8=B", "Sc9-d8 / Sd8=R", "Sc9=B", "Sc9=R",
                              "Sc9=R / Rc9xe9", "(RA)c8xe8 disp(N)", "N*e6"):
                        self.assertIn(m, legal)
                    self.assertNotIn("(RA)c8xe8 assim", legal)
                    self.assertFalse([m for m in legal if m.startswith("(RA)c8=")])
                elif ply == 16:
                    # Onto the King: no method, no demotion list, nothing after it.
                    self.assertEqual([m for m in legal if m.startswith("Bd8xe9")], ["Bd8xe9"])
            self.move(gid, tokens, ply)


class RefusalTests(ConversionCase):
    """Texts refused at points of the scripted game (Writing moves, 'Rejected examples'); a refusal
    changes nothing and the scripted move is accepted afterwards."""

    REFUSALS = {
        6: [("Bb2xe5", "illegal_move", "capture method required"),
            ("Bb2xe5 disp", "illegal_move", "demotion choice required"),
            ("Bb2xe5 disp(S)", "illegal_move", "A, N or D")],
        8: [("Pg7=K", "illegal_move", "King"),
            ("Pg7=G", "illegal_move", "one tier up"),
            ("Pc4=R", "illegal_move", "zone")],
        11: [("Ge6xe5", "illegal_move", "demotion choice required"),
             ("Ge6xe5 disp(S)", "illegal_move", "needs 2"),
             ("Ge6xe5 disp(A,S)", "illegal_move", "P, S or G"),
             ("Ge6xe5 assim", "illegal_move", "only displacement")],
        12: [("Pc7=R / Rc7xc8 disp", "illegal_move", "only assimilation"),
             ("(RA)c8-c7", "illegal_move", None),
             ("Pc7=Q", "bad_move", None)],
        13: [("G*e8", "illegal_move", "no Gold"),
             ("S*e9", "illegal_move", "not empty"),
             ("S*e8 / Se8=B", "bad_move", "whole turn")],
        14: [("Sc9-d8 / Sc9=B", "illegal_move", "moved to (d8)"),
             ("Sc9=B / Bc9-d8 / Bd8=R", "bad_move", "one promotion"),
             ("Sc9-d8 / Sd8=G", "illegal_move", "one tier up")],
        16: [("Bd8xe9 / Be9=R", "illegal_move", "nothing may follow")],
    }

    def test_refusals_along_the_game(self):
        gid, tokens = self.new_game()
        for ply in range(len(SCRIPT)):
            for text, code, part in self.REFUSALS.get(ply, []):
                with self.subTest(ply=ply, text=text):
                    self.refused(gid, tokens, ply, text, code, part)
            self.move(gid, tokens, ply)
        self.assertEqual(self.d.game(gid)["position"]["notation"], END_NOTATION)


class GamePageTests(ConversionCase):
    """The HTML game page draws the position of the API, both hands and compound pieces."""

    def check_board(self, p, position, seat):
        """Every square of the page shows what position.board holds, in its owner's colour,
        in the seat's orientation (White and the public: rank 9 at the top, file a on the left;
        Black: turned half round), with the labels around the board."""
        if seat == "Black":
            self.assertEqual(p.col_labels(), [[f, f] for f in reversed(FILES)])
            self.assertEqual(p.row_labels(), [[str(r), str(r)] for r in range(1, 10)])
        else:
            self.assertEqual(p.col_labels(), [[f, f] for f in FILES])
            self.assertEqual(p.row_labels(), [[str(r), str(r)] for r in range(9, 0, -1)])
        seen = p.squares
        self.assertEqual(set(seen), set(SQUARES), "every square is drawn once, named by its title")
        for sq in SQUARES:
            piece = cell(position, sq)
            c = seen[sq]
            f, rank = FILES.index(sq[0]), int(sq[1:])
            self.assertEqual((c["r"], c["c"]), (rank - 1, 8 - f) if seat == "Black" else (9 - rank, f), sq)
            self.assertEqual((c["kind"], c["facing"], c["held"]), ("plain", None, None), sq)
            self.assertEqual(c["piece"], piece, sq)
            if piece:
                owner = "White" if piece[0].isupper() else "Black"
                self.assertEqual(c["side"], owner, sq)
                self.assertEqual(c["title"], f"{sq}: {owner} {piece}")
        self.assertEqual(p.walls, {})
        return seen

    def check_hands(self, p, white, black, seat):
        """Both hands, in the list beside the board and drawn as rows of pieces: the viewer's
        (the public's: White's) below the board, the other above; each piece drawn names the
        drop gesture '@<hand>:<piece>'."""
        self.assertEqual([h["name"] for h in p.holdings], ["White's hand", "Black's hand"])
        for h, pieces, side in zip(p.holdings, (white, black), SEATS):
            self.assertIsNone(h["square"], h)
            self.assertEqual(h["pieces"], pieces, h)
            if pieces:
                self.assertIn(f"side-{side}", h["class"], h)
            else:
                self.assertIn("empty", h["text"], h)
        mine = seat or "White"
        other = SEATS[1 - SEATS.index(mine)]
        self.assertEqual([h["side"] for h in p.hands], [other, mine], "the viewer's hand is drawn last")
        top = min(s["y"] for s in p.squares.values())
        bottom = max(s["y"] for s in p.squares.values())
        for h in p.hands:
            k = SEATS.index(h["side"])
            pieces = (white, black)[k]
            self.assertEqual(h["name"], f"{h['side']}'s hand", "the hand's name is written beside it")
            self.assertEqual(h["empty"], not pieces, h)
            self.assertEqual([x["piece"] for x in h["pieces"]], pieces, h)
            self.assertEqual([x["touch"] for x in h["pieces"]], [f"@{k}:{x}" for x in pieces], h)
            for y in [h["y"]] + [x["y"] for x in h["pieces"]]:
                if h["side"] == mine:
                    self.assertGreater(y, bottom, h)
                else:
                    self.assertLess(y, top, h)

    def test_page_shows_hands_and_compounds(self):
        gid, tokens = self.new_game()
        checks = {
            6: ("e5", "BP", "becomes (BP); converts c7, g7"),
            12: ("c8", "RA", "becomes (RA); converts b8, c9, g8"),
        }
        for ply in range(len(SCRIPT)):
            self.move(gid, tokens, ply)
            if ply not in checks and ply != LAST:
                continue
            position = self.d.game(gid)["position"]
            white, black = hands_after(ply)
            for seat, token in (("White", tokens["White"]), ("Black", tokens["Black"]), (None, None)):
                with self.subTest(ply=ply, seat=seat):
                    p, text = self.page(gid, token)
                    seen = self.check_board(p, position, seat)
                    self.check_hands(p, white, black, seat)
                    if ply in checks:
                        # The compound is drawn with all its letters, in White's colour, and the
                        # last move says what it became.
                        sq, letters, note = checks[ply]
                        self.assertEqual(seen[sq]["piece"], letters)
                        self.assertEqual(seen[sq]["side"], "White")
                        self.assertEqual(seen[sq]["title"], f"{sq}: White {letters}")
                        self.assertIn(f"({note})", p.paras.get("last", ""))
                        self.assertTrue(seen[sq]["last"], "the last move's square is marked")
            if ply == 12:
                self.assertEqual(black, ["a", "n", "s"])
                self.assertEqual(white, ["N"])

        # The end: the result with the places, no move form, and the whole history with notes.
        for token in (tokens["White"], tokens["Black"], None):
            p, text = self.page(gid, token)
            self.assertIn("White wins: King captured", p.paras.get("result", ""))
            self.assertEqual(p.paras.get("places", ""), "place 1: White place 2: Black")
            self.assertNotIn('class="move"', text)
            for _seat, _t, canon, note in SCRIPT:
                self.assertIn(f"<code>{canon}</code>", text)
                if note:
                    self.assertIn(f'<span class="note">({note})</span>', text)

    # The legend names only the special squares this board has: none here.
    def test_legend_names_no_river_or_prisons(self):
        gid, tokens = self.new_game()
        p, _ = self.page(gid, tokens["White"])
        legend = p.paras.get("legend", "")
        self.assertNotIn("river", legend)
        self.assertNotIn("prison", legend)

    # Hands have no square, and keep their own order (A N D P S G).
    def test_hands_listed_as_hands(self):
        gid, tokens = self.new_game()
        self.play_to(gid, tokens, 12)
        p, _ = self.page(gid, tokens["White"])
        black = [h for h in p.holdings if h["name"] == "Black's hand"][0]
        self.assertEqual(black["pieces"], ["a", "n", "s"])
        self.assertNotIn("[]", black["text"])
        self.assertNotIn("oldest first", black["text"])

    # The move box's example is a move the seat could make now.
    def test_move_box_hint_is_in_this_games_notation(self):
        gid, tokens = self.new_game()
        p, _ = self.page(gid, tokens["White"])
        self.assertIsNotNone(p.move_input)
        hint = p.move_input.get("placeholder") or ""
        if hint:
            r = self.d.move(gid, tokens["White"], hint, 0)
            self.assertNotEqual(r.status, 422, f"the hint {hint!r} is refused: {r}")
            self.assertNotEqual(hint, "S 7 1 6 1")


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
