#!/usr/bin/env python3
"""cyvasse_game.py - black-box tests of Nine-Tile Cyvasse: hidden setups and a whole game.

usage: cyvasse_game.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (the harness of daemon.py) with mail into the
maildir beside its database (--reply-domain rook.test). The rules are
those of docs/rules/cyvasse.md, shown as its rules page
(templates/rules-cyvasse.html, /rules/cyvasse); its sections are cited by title
("The hidden setup" and so on).

1. Secrecy (The hidden setup; scenario Y3): White submits a setup other than the default;
   until Black's setup is in, nothing Black or the public can see (the game
   JSON, the history, the dice record, the game page with and without Black's
   seat link, Black's mails, Black's error messages, the daemon's log) differs
   from before White's setup, except the ply and one history entry reading
   "(hidden until revealed)". White sees its own setup and may replace it;
   Black's setup reveals both, rolls the d6 for the first player, and a later
   replacement is refused.
2. A whole game from those setups to a King capture, moves chosen from
   legal_moves (King captures first, then the special moves that Special rules of the
   pieces gives),
   then the result and 409 game_over.

Python standard library only.
"""
import email
import email.policy
import glob
import json
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.pages import board_html, page_board  # noqa: E402

VARIANT = "cyvasse"
DEFAULT_WHITE = ("setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a3,j3,b4,c4,h4,k4 "
                 "S=e4,f4,g4 L=g2,b3,i3 H=c3,h3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2")
DEFAULT_BLACK = ("setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1B R=a6,d6,i6,j6,a7,j7 "
                 "S=e6,f6,g6 L=b7,i7,c8 H=c7,h7 E=d7,g7 C=e7,f7 T=d9 D=g8 W=d8,f8 K=e8")
# White's default changed legally: tile 1 rotated (R5=1Br) and the Horses swapped
# with two Light Horses (H on b3, i3; L on c3, h3).
WHITE_SETUP = ("setup K1 L0=5A L1=6A L3=7A L4=8A R1=4B R2=3B R4=2Br R5=1Br R=a3,j3,b4,c4,h4,k4 "
               "S=e4,f4,g4 L=g2,c3,h3 H=b3,i3 E=d3,g3 C=e3,f3 T=e1 D=c2 W=d2,f2 K=e2")
# Substrings that only White's setup has (none of them is in the default lines).
LEAKS = ("R5=1Br", "H=b3,i3", "L=g2,c3,h3", WHITE_SETUP, DEFAULT_WHITE)
HIDDEN = "(hidden until revealed)"
# Bad setups Black sends before and after White's setup: the answers must not change.
BAD_FOR_BLACK = [
    "setup K1 R=a4",
    DEFAULT_BLACK.replace("R=a6,", "R=a5,"),          # middle row
    DEFAULT_BLACK.replace("R=a6,", "R=a3,"),          # White's half (a3 holds White's Rabble)
    DEFAULT_BLACK.replace("K=e8", "K=b3"),            # a square White's Horse now holds
    DEFAULT_BLACK.replace("R1=4B", "R1=4A"),
    "Rb4-b5", "Hb3xc7", "e2-e3", "setup default x",
]
def setup_pieces(line, seat):
    """{square: (seat, letter)} of the pieces a setup line places, as the page draws them
    (White's letters upper case, Black's lower case)."""
    out = {}
    for letter, squares in re.findall(r"(?<!\S)([RSLHECTDWK])=([a-l][1-9](?:,[a-l][1-9])*)", line):
        for sq in squares.split(","):
            out[sq] = (seat, letter if seat == "White" else letter.lower())
    return out


REVEALED = re.compile(r"setups revealed; d6: ([1-6]) \u2014 (White|Black) moves first")


class CyvasseCase(daemon.DaemonCase):
    maxDiff = None
    daemon_args = ("--reply-domain", "rook.test")

    def new_game(self):
        r = self.d.post("/api/games", {"variant": VARIANT, "seats": [
            {"name": "Wes", "email": "wes@players.test"}, {"name": "Bea", "email": "bea@players.test"}]})
        self.assertEqual(r.status, 201, r)
        g = r.json()
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        self.d.secrets.update(tokens.values())
        return g["id"], tokens

    def mails_to(self, gid, address):
        out = []
        for path in sorted(glob.glob(os.path.join(self.d.workdir, "mail", "new", "*"))):
            with open(path, "rb") as f:
                m = email.message_from_bytes(f.read(), policy=email.policy.default)
            if m["To"].addresses[0].addr_spec == address and gid in m["Subject"]:
                out.append(m.get_body(("plain",)).get_content())
        return out

    def wait_mails(self, gid, address, count, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.mails_to(gid, address)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        self.fail(f"fewer than {count} mails of {gid} to {address}: {len(self.mails_to(gid, address))}")

    def observe(self, gid, token):
        """Everything the seat of token (None: the public) can read of the game, as text."""
        d = self.d
        out = {}
        r = d.get(f"/api/games/{gid}", token=token)
        self.assertEqual(r.status, 200, r)
        out["game"] = r.json()
        for what in ("moves", "dice"):
            r = d.get(f"/api/games/{gid}/{what}", token=token)
            self.assertEqual(r.status, 200, r)
            out[what] = r.json()
        r = d.get(f"/games/{gid}" + (f"?seat={token}" if token else ""))
        self.assertEqual(r.status, 200, r)
        out["page"] = r.text
        out["board"] = board_html(r.text)
        out["drawn"] = page_board(r.text)
        return out

    def assertEmptyBoard(self, seen, where):
        """Nothing of either setup on the drawn board: no piece, and no terrain tile."""
        drawn = seen["drawn"]
        self.assertEqual(len(drawn.squares), 88, where)
        self.assertEqual(drawn.pieces(), {}, f"{where}: the page draws pieces")
        self.assertEqual({s["kind"] for s in drawn.squares.values()}, {"plain"}, f"{where}: the page draws terrain")

    def assertNoLeak(self, text, where):
        for s in LEAKS:
            self.assertNotIn(s, text, f"{where} shows White's hidden setup ({s!r})")


class SecrecyTests(CyvasseCase):
    def test_hidden_setup_leaks_nothing_before_the_reveal(self):
        d = self.d
        gid, tok = self.new_game()
        B, W = tok["Black"], tok["White"]
        viewers = {"public": None, "Black": B}
        invitation = self.wait_mails(gid, "bea@players.test", 1)
        # Bea asks for mail through her invitation's link: her your-move mail is checked below.
        d.confirm_by_invitation(gid, "bea@players.test")
        before = {k: self.observe(gid, t) for k, t in viewers.items()}
        errors_before = [d.move(gid, B, m, 0).body for m in BAD_FOR_BLACK]
        for e in errors_before:
            self.assertIn(b'"error"', e)
        # Black's legal moves in the setup phase: the default setup as a full line.
        self.assertEqual(before["Black"]["game"]["legal_moves"], [DEFAULT_BLACK])
        self.assertEqual(d.game(gid, W)["legal_moves"], [DEFAULT_WHITE])

        r = d.move(gid, W, WHITE_SETUP, 0)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["move"], WHITE_SETUP)
        self.assertEqual(r.json()["game"]["position"]["notation"], None)

        after = {k: self.observe(gid, t) for k, t in viewers.items()}
        errors_after = [d.move(gid, B, m, 1).body for m in BAD_FOR_BLACK]
        for k in viewers:
            b, a = before[k], after[k]
            where = f"{k}'s view"
            self.assertEqual(a["game"]["position"]["notation"], None, where)
            self.assertEqual(a["game"]["ply"], 1, where)
            self.assertEqual(a["game"]["turn"], ["White", "Black"], where)
            gb, ga = dict(b["game"]), dict(a["game"])
            gb.pop("ply"), ga.pop("ply")
            # The version grows with every change, a secret one too: it tells nothing of the setup.
            self.assertGreater(ga.pop("version"), gb.pop("version"), where)
            # notation: the empty board's before, null while a secret is held (docs/api.md)
            gb["position"], ga["position"] = dict(gb["position"]), dict(ga["position"])
            gb["position"].pop("notation"), ga["position"].pop("notation")
            self.assertEqual(ga, gb, f"{where}: GET /api/games changed beyond the ply")
            self.assertEqual(b["moves"]["moves"], [])
            # The page's fields say the ply count, public in the game view as well.
            self.assertEqual({k: a["moves"][k] for k in ("plies", "next")}, {"plies": 1, "next": None}, where)
            entry = dict(a["moves"]["moves"][0])
            self.assertRegex(entry.pop("at"), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
            self.assertEqual(a["moves"]["moves"], [dict(entry, at=a["moves"]["moves"][0]["at"])])
            # A hidden move names no squares either ("places", which the page marks as the last move's).
            self.assertEqual(entry, {"ply": 0, "seat": "White", "move": HIDDEN, "note": "",
                                     "dice": [], "hidden": True, "places": []}, where)
            self.assertFalse(any(s["last"] for s in a["drawn"].squares.values()), where)
            self.assertEqual(dict(a["dice"], plies=0), b["dice"], f"{where}: the dice record changed beyond the ply")
            self.assertEqual(a["board"], b["board"], f"{where}: the page's board changed")
            self.assertEmptyBoard(a, where)
            self.assertIn(HIDDEN, a["page"])
            self.assertNoLeak(json.dumps(a["game"]) + json.dumps(a["moves"]) + a["page"], where)
            # The page apart from the board: only the history entry and the ply (in the form and in
            # the state that live updates compare) may differ.
            self.assertIn('data-state="1|running||"', a["page"], where)
            strip = lambda h: re.sub(r'name="ply" value="\d+"|(?<=data-state=")\d+', "", re.sub(
                r'<ol class="moves"[^>]*>.*?</ol>\s*<p class="record"><a href="/games/\w+/moves">The full record</a></p>|<p class="muted">No moves yet\.</p>|<p class="last"[^>]*>.*?</p>', "", h, flags=re.S))
            self.assertEqual(strip(a["page"]).replace(b["board"], ""),
                             strip(b["page"]).replace(b["board"], ""), f"{where}: the page changed")
        self.assertEqual(errors_after, errors_before, "Black's error messages depend on White's setup")

        # Black's mails: the your-move mail after White's setup shows the same empty board.
        mails = self.wait_mails(gid, "bea@players.test", 2)
        board_of = lambda text: re.findall(r"^ *[1-9] [ .a-zA-Z~X]+[1-9]$", text, re.M)
        for m in mails:
            self.assertNoLeak(m, "a mail to Black")
            self.assertEqual(board_of(m), board_of(invitation[0]), m)
            self.assertNotRegex("\n".join(board_of(m)), r"[A-Za-z]", m)
        self.assertIn(HIDDEN, mails[-1])

        # White sees its own setup: in the history, on the board, on its page.
        mine = d.get(f"/api/games/{gid}/moves", token=W).json()["moves"]
        self.assertEqual([(e["move"], e["hidden"]) for e in mine], [(WHITE_SETUP, True)])
        self.assertIn("hidden until both setups are in", mine[0]["note"])
        wg = d.game(gid, W)
        self.assertIsNone(wg["position"]["notation"])
        self.assertEqual(sum(p == "H" for row in wg["position"]["board"] for p in row), 2)
        page = d.get(f"/games/{gid}?seat={W}").text
        self.assertIn(WHITE_SETUP, page)
        drawn = page_board(page)
        self.assertEqual(drawn.pieces(), setup_pieces(WHITE_SETUP, "White"), "White's page draws its own setup")
        terrain = {n for n, s in drawn.squares.items() if s["kind"] != "plain"}
        self.assertTrue(terrain, "White's page draws its own terrain tiles")
        self.assertTrue(all(int(n[1:]) <= 4 for n in terrain), terrain)
        # A token of the other seat never shows it; a wrong token is refused.
        self.assertEqual(d.get(f"/api/games/{gid}/moves", token="x" * 32).status, 401)

        # White replaces its setup (The hidden setup, item 3), twice, ending with its own line.
        for line, ply in ((DEFAULT_WHITE, 1), (WHITE_SETUP, None)):
            r = d.move(gid, W, line, ply if ply is not None else d.game(gid, W)["ply"])
            self.assertEqual(r.status, 201, r)
            self.assertEqual(r.json()["move"], line)
            hist = d.get(f"/api/games/{gid}/moves", token=W).json()["moves"]
            self.assertEqual(hist[-1]["move"], line)
            for k, t in viewers.items():
                seen = self.observe(gid, t)
                self.assertNoLeak(json.dumps(seen["game"]) + json.dumps(seen["moves"]) + seen["page"], k)
                self.assertEqual(seen["board"], before[k]["board"])
                self.assertEmptyBoard(seen, k)
                self.assertTrue(all(e["hidden"] and e["move"] == HIDDEN for e in seen["moves"]["moves"]))
        self.assertNoLeak(d.stderr(), "the daemon's log")

        # Black's setup reveals both and rolls the d6.
        ply = d.game(gid, B)["ply"]
        r = d.move(gid, B, "setup default", ply)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["move"], DEFAULT_BLACK)
        m = REVEALED.search(r.json()["note"])
        self.assertTrue(m, r.json()["note"])
        roll, first = int(m.group(1)), m.group(2)
        self.assertEqual(first, "White" if roll <= 3 else "Black")
        self.assertEqual(r.json()["dice"], [roll])
        for k, t in viewers.items():
            seen = self.observe(gid, t)
            self.assertIsNotNone(seen["game"]["position"]["notation"], k)
            self.assertEqual(seen["game"]["turn"], [first], k)
            moves = seen["moves"]["moves"]
            self.assertTrue(all(not e["hidden"] for e in moves), moves)
            self.assertIn(WHITE_SETUP, [e["move"] for e in moves])
            self.assertEqual(moves[-1]["move"], DEFAULT_BLACK)
            self.assertIn(WHITE_SETUP, seen["page"])
            self.assertNotIn(HIDDEN, seen["page"])
            drawn = seen["drawn"]
            self.assertEqual(drawn.pieces(), {**setup_pieces(WHITE_SETUP, "White"),
                                              **setup_pieces(DEFAULT_BLACK, "Black")}, k)
            self.assertEqual(len({n for n, s in drawn.squares.items() if s["kind"] in ("mountain", "water")}), 12, k)
            board = seen["game"]["position"]["board"]
            self.assertEqual(sum(p == "H" for row in board for p in row), 2, k)
            self.assertEqual(sum(p == "h" for row in board for p in row), 2, k)
            rolls = seen["dice"]["rolls"]
            self.assertEqual([(x["sides"], x["value"]) for x in rolls], [(6, roll)])
        # Both are final now (The hidden setup, item 3; scenario Y3).
        ply = d.game(gid, W)["ply"]
        r = d.move(gid, W, DEFAULT_WHITE, ply)
        self.assertIn(r.status, (409, 422), r)
        self.assertIn(WHITE_SETUP, [e["move"] for e in d.get(f"/api/games/{gid}/moves").json()["moves"]])


# --------------------------------------------------------------------------------------------
# A whole game
# --------------------------------------------------------------------------------------------

MOVE = re.compile(r"^([RSLHECTDWK])([a-l][1-9])([-x])([a-l][1-9])(?:-([a-l][1-9]))?(?: / (.*))?$")


class BoardDrawingTests(CyvasseCase):
    def test_each_seat_sees_whole_rows_with_their_names(self):
        # The 9 x 12 grid is turned half round for Black: every drawn row must still hold
        # the squares of one rank, named as the notation names them, in file order from the
        # seat's side, and no square twice.
        gid, tokens = self.new_game()
        for seat in ("White", "Black"):
            drawn = page_board(self.d.get(f"/games/{gid}?seat={tokens[seat]}").text)
            rows, labels = drawn.grid(), drawn.row_labels()
            self.assertEqual((len(rows), len(labels)), (9, 9), seat)
            seen = []
            for label, row in zip(labels, rows):
                names = [n for n in row if n]
                self.assertTrue(names, (seat, label))
                self.assertEqual(len(label), 1, (seat, label))
                self.assertEqual({n[1:] for n in names}, set(label), (seat, label, names))
                files = [n[0] for n in names]
                self.assertEqual(files, sorted(files, reverse=seat == "Black"), (seat, label, names))
                for n in names:
                    # Under a piece the name would be hidden: it is not written there (the piece's
                    # letter alone is the visible text of the square, named by its title).
                    want = None if drawn.squares[n]["piece"] else n
                    self.assertEqual(drawn.squares[n]["label"], want, "a hexagon without a piece writes its name")
                seen += names
            self.assertEqual(len(seen), 88, seat)
            self.assertEqual(len(set(seen)), 88, seat)
            self.assertEqual(labels[0], ["9" if seat == "White" else "1"], seat)


def square_map(kinds, rows):
    """square name -> (row index, column index) in position.board; letters follow the cells that are not off."""
    out = {}
    for i, row in enumerate(kinds):
        letters = iter("abcdefghijkl")
        for j, k in enumerate(row):
            if k != "off":
                out[f"{next(letters)}{rows[i]}"] = (i, j)
    return out


class GameTests(CyvasseCase):
    def test_whole_game_to_a_king_capture(self):
        # The server's d6 decides who moves first, so the game differs from run to run: play
        # again (with other choices) until one game has had every special move; a few tries do.
        # With White first (a d6 of 1 to 3) the choices below always make the same game, which
        # plays every special move; a Black-first game is left after its setups and a new one made.
        for attempt in range(40):
            seen = self.play_one(random.Random(7), first="White")
            if seen is not None:
                break
        self.assertIsNotNone(seen, "forty d6 rolls in a row chose Black")
        for k in ("double", "horse", "trebuchet", "dragon"):
            self.assertIn(k, seen, f"no {k} move was played")

    def play_one(self, rnd, first):
        """One game from two setups to a King capture; returns the kinds of move played, or
        None when the d6 chose the other seat to begin."""
        d = self.d
        gid, tok = self.new_game()
        self.assertEqual(d.move(gid, tok["White"], WHITE_SETUP, 0).status, 201)
        r = d.move(gid, tok["Black"], DEFAULT_BLACK, 1)
        self.assertEqual(r.status, 201, r)
        if d.game(gid)["turn"] != [first]:
            return None
        seen = set()
        done_double = set()
        last = None
        for _ in range(900):
            g = d.game(gid)
            if g["status"] == "over":
                break
            seat = g["turn"][0]
            mine = d.game(gid, tok[seat])
            legal = mine["legal_moves"]
            self.assertTrue(legal, mine)
            pos = mine["position"]
            sq = square_map(pos["kinds"], pos["rows"])
            at = lambda s: pos["board"][sq[s][0]][sq[s][1]]
            enemy_king = "k" if seat == "White" else "K"

            def kind(mv):
                m = MOVE.match(mv)
                self.assertTrue(m, mv)
                p, fr, op, to, end, second = m.groups()
                # Any square the move reaches after its start may hold the King (a Rabble's second
                # step, a Horse's continuation): such a move takes the King.
                if any(at(s) == enemy_king for s in re.findall(r"[a-l][1-9]", mv)[1:] if s in sq):
                    return "king"
                if second:
                    return "double"
                if op == "x" and p in "LH" and end:
                    return "horse"
                if op == "x" and p == "T":
                    return "trebuchet"
                if p == "D" and self.crosses_mountain(pos, sq, fr, to):
                    return "dragon"
                if op == "x":
                    return "capture"
                return "move"
            kinds = {mv: kind(mv) for mv in legal}
            choice = None
            # The King is spared until every special move has been played (or the game drags on).
            specials = ("horse", "trebuchet", "dragon", "double")
            wanted = [k for k in specials if k not in seen]
            spare_king = bool(wanted) and g["ply"] < 400
            order = wanted + [k for k in specials if k in seen] + ["capture"] \
                if spare_king else ["king"] + list(specials) + ["capture"]
            for want in order:
                options = [mv for mv, k in kinds.items() if k == want
                           and not (want in ("double", "dragon") and (seat, want) in done_double)]
                if options:
                    choice = rnd.choice(options)
                    break
            if choice is None:
                # Advance towards the enemy King (rows: White goes up the list's index downwards).
                ek = next(s for s in sq if at(s) == enemy_king)
                def dist(mv):
                    to = sq[MOVE.match(mv).group(4)]
                    return abs(to[0] - sq[ek][0]) + abs(to[1] - sq[ek][1]) + rnd.random()
                pool = [mv for mv in legal if not mv.startswith("K")
                        and not (spare_king and kinds[mv] == "king")] or legal   # the King stays home
                choice = min(pool, key=dist)
            k = kinds[choice]
            m = MOVE.match(choice)
            if m.group(3) == "x":   # a capture takes an enemy piece (upper case White, lower case Black)
                target = at(m.group(4))
                self.assertTrue(target and target.isupper() == (seat == "Black"), (choice, target))
            if k in ("double", "dragon"):
                done_double.add((seat, k))
            r = d.move(gid, tok[seat], choice, g["ply"])
            self.assertEqual(r.status, 201, (choice, r))
            body = r.json()
            self.assertEqual(body["move"].split(" (")[0], choice)
            if k == "horse":   # the Horse ends on the continuation square, the target is empty
                b = body["game"]["position"]["board"]
                m = MOVE.match(choice)
                self.assertIsNone(b[sq[m.group(4)][0]][sq[m.group(4)][1]])
                self.assertEqual(b[sq[m.group(5)][0]][sq[m.group(5)][1]], m.group(1) if seat == "White" else m.group(1).lower())
            if k == "trebuchet":   # the Trebuchet steps back: the target square is empty
                b = body["game"]["position"]["board"]
                self.assertIsNone(b[sq[MOVE.match(choice).group(4)][0]][sq[MOVE.match(choice).group(4)][1]])
            seen.add(k)
            last = (seat, choice, body)
        else:
            self.fail("no King capture in 900 plies")
        seat, choice, body = last
        print(f"\ncyvasse game {gid}: special moves reached: {sorted(seen)} in {g['ply']} plies; last {seat} {body['move']}",
              file=sys.stderr)
        self.assertEqual(d.game(gid, tok[seat])["legal_moves"], [])
        g = d.game(gid)
        loser = "Black" if seat == "White" else "White"
        self.assertEqual(g["status"], "over")
        self.assertEqual(g["turn"], [])
        self.assertEqual(kinds[choice], "king")
        self.assertIn(f"{seat} wins", body["move"] + body["note"] + g["result"]["summary"])
        self.assertEqual(g["result"]["places"], [{"place": 1, "seats": [seat]}, {"place": 2, "seats": [loser]}])
        self.assertEqual(g["result"]["ranks"], [1, 2] if seat == "White" else [2, 1])
        self.assertEqual(sum(p == ("k" if seat == "White" else "K") for row in g["position"]["board"] for p in row), 0)
        for s in ("White", "Black"):
            r = d.move(gid, tok[s], "setup default", g["ply"])
            self.assertError(r, 409, "game_over")
        dice = d.get(f"/api/games/{gid}/dice").json()
        self.assertIsNotNone(dice["seed"], dice)
        return seen

    @staticmethod
    def crosses_mountain(pos, sq, fr, to):
        """A mountain on the straight grid line strictly between fr and to (an approximation of the hex line)."""
        (r0, c0), (r1, c1) = sq[fr], sq[to]
        n = max(abs(r1 - r0), abs(c1 - c0))
        if n < 2:
            return False
        for i in range(1, n):
            r, c = r0 + (r1 - r0) * i / n, c0 + (c1 - c0) * i / n
            if r == int(r) and c == int(c) and pos["kinds"][int(r)][int(c)] == "mountain":
                return True
        return False


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
