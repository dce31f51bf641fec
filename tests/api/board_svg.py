#!/usr/bin/env python3
"""board_svg.py - black-box tests of the board images (GET /games/{id}/board.svg) and of the
board table in the HTML part of mails.

usage: board_svg.py path/to/rookery [unittest options]

The real daemon on 127.0.0.1 (the harness of daemon.py), mail into its maildir.

1. Every ply of a game of each of the five games, from every seat's side: a game is played some
   plies (Nchess to prisoners in prisons, Conversion Chess to pieces in hand, Complex Allegiance
   with shared pawns, Civil War and Cyvasse from their legal moves), the public position
   (GET /api/games/{id}) kept after each ply; then for EVERY ply 0..current and every seat the
   image is standalone SVG (XML declaration, svg root in the SVG namespace, viewBox "0 0 W H"
   with the same width and height, a title and a description, nothing fetched from elsewhere),
   and the pieces it draws (each with data-square, data-piece, data-side), the prisoners held on
   squares and the pieces in hand are those of the position the API gave at that ply, and so are
   the pieces its description (the text alternative) lists by side. The seats'
   images differ in orientation (each seat's drawn grid is another), hold the same pieces, and at
   the current ply are drawn as the game page draws the board for that seat (harness.pages
   parses both); without ?seat= the image is the first seat's.
2. Colours: every square's and piece's paint is the one templates/style.css gives the page's
   board (read from /style.css), so the image looks like the page.
3. Cyvasse's hidden setup: after White's setup and before Black's, no image of any ply from any
   side shows a piece or a terrain tile, nor White's setup in its text; the image of that ply
   stays so after the reveal.
4. Caching: an ETag; If-None-Match gives 304; the current image's tag changes with a move, an
   earlier ply's does not and may be kept a while (Cache-Control max-age).
5. Errors: 400 bad_request for a ply out of range or not a number, an unknown seat, an unknown
   parameter; 404 not_found for no game.
   The game page links to the image of the board from its reader's side.
6. Mails: the HTML part of a mail with a board holds it as a table with inline colours after
   the text's board, its pieces those of the text board and of the position, from the
   reader's side; the plain part is unchanged.

Python standard library only.
"""
import html
import html.parser
import os
import random
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness import complex_allegiance, conversion_chess, nchess  # noqa: E402
from harness.pages import page_board  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
SEATS = {"nchess": ("South", "North"), "complex-allegiance": ("North", "East", "South", "West"),
         "civil-war": ("South", "West", "North", "East"), "conversion-chess": ("White", "Black"),
         "cyvasse": ("White", "Black")}
# The moves each game is played: a script that reaches what the game draws beyond pieces on
# squares, or None to pick legal moves (seeded) for so many plies.
SCRIPTS = {
    "nchess": nchess.RELEASE_LINE[:14],                     # prisoners in prisons from ply 9
    "conversion-chess": [m[1] for m in conversion_chess.SCRIPT[:14]],   # pieces in hand
    "complex-allegiance": [m[1] for m in complex_allegiance.SCRIPT[:12]],   # shared pawns moved
    "civil-war": 10,
    "cyvasse": 6,                                           # the two setups, then moves
}


def parse_svg(test, text, where):
    """The image parsed: {"root", "pieces": {square: (side, piece)}, "grid": {(r, c): square},
    "held": {square: pieces text}, "hands": {holding: [pieces]}, "squares": {square: element}}."""
    test.assertTrue(text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n'), where)
    root = ET.fromstring(text.encode())
    test.assertEqual(root.tag, SVG + "svg", where)
    m = re.fullmatch(r"0 0 (\d+) (\d+)", root.get("viewBox") or "")
    test.assertTrue(m, where)
    test.assertEqual((root.get("width"), root.get("height")), m.groups(), where)
    test.assertTrue(root.find(SVG + "title").text, where)
    test.assertTrue(root.find(SVG + "desc").text, where)
    test.assertEqual(root.get("aria-labelledby"), "board-title board-desc", where)
    for bad in ("href", "<image", "url(", "@import", "<style", "<script", "<foreignObject"):
        test.assertNotIn(bad, text, f"{where}: a standalone image needs nothing else ({bad})")
    out = {"root": root, "pieces": {}, "grid": {}, "held": {}, "hands": {}, "squares": {}}
    for g in root.iter(SVG + "g"):
        if g.get("data-square"):
            sq = g.get("data-square")
            test.assertNotIn(sq, out["squares"], where)
            out["squares"][sq] = g
            out["grid"][int(g.get("data-r")), int(g.get("data-c"))] = sq
            for pc in g.findall(SVG + "g"):
                out["pieces"][sq] = (pc.get("data-side"), pc.get("data-piece"))
                test.assertEqual(pc.find(SVG + "text").text, pc.get("data-piece"), where)
            for t in g.iter(SVG + "text"):
                if "held" in t.get("class", "").split():
                    out["held"][sq] = t.get("data-pieces")
        elif g.get("data-holding"):
            out["hands"].setdefault(g.get("data-holding"), []).append(g.get("data-piece"))
    return out


def described(desc, seats):
    """The sides of the pieces the image's description (the page's text alternative) lists:
    "South: Chariot 9 1, Knight 9 2; North: ...; shared by North and West: Pawn b2; in South's
    prison: Knight." as {square: side}; the pieces themselves are read from the drawing."""
    out = {}
    for part in desc.rstrip(".").split("; "):
        label, _, items = part.partition(": ")
        side = label if label in seats else "shared" if label.startswith("shared by ") else \
            "none" if label == "of no side" else None
        for item in items.split(", ") if side else ():
            out[re.fullmatch(r"(.+?) (\S+(?: \d+)?)", item).group(2)] = side
    return out


def css_paints(css):
    """{selector-ish key: {property: colour}} of the board's rules in style.css, variables resolved."""
    var = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-f]+)", css))
    out = {}
    for sel, body in re.findall(r"(svg\.board [^{]+)\{([^}]*)\}", css):
        props = {}
        for k, v in re.findall(r"([a-z-]+):\s*([^;]+)", body):
            v = v.strip()
            m = re.fullmatch(r"var\(--([a-z]+)\)", v)
            props[k] = var[m.group(1)] if m else v
        for s in sel.split(","):
            out.setdefault(" ".join(s.split()), {}).update(props)
    return out


def expand(colour):
    """#abc as #aabbcc, to compare colours however written."""
    c = colour.lower()
    return "#" + "".join(ch * 2 for ch in c[1:]) if re.fullmatch(r"#[0-9a-f]{3}", c) else c


class BoardImageCase(daemon.DaemonCase):
    maxDiff = None
    daemon_args = ("--reply-domain", "rook.test")

    def svg(self, gid, query="", status=200):
        r = self.d.get(f"/games/{gid}/board.svg{query}")
        self.assertEqual(r.status, status, r)
        if status == 200:
            self.assertEqual(r.header("Content-Type"), "image/svg+xml; charset=utf-8")
        return r

    def new_game(self, variant, emails=False):
        seats = [{"name": f"P{i}"} for i in range(len(SEATS[variant]))]
        if emails:
            for i, s in enumerate(seats):
                s["email"] = f"p{i}@players.test"
        r = self.d.post("/api/games", {"variant": variant, "seats": seats})
        self.assertEqual(r.status, 201, r)
        tokens = {s["seat"]: s["token"] for s in r.json()["seats"]}
        self.d.secrets.update(tokens.values())
        return r.json()["id"], tokens

    def play(self, variant, gid, tokens):
        """Play the game's script (or seeded legal moves); the public position after each ply."""
        d = self.d
        positions = [d.game(gid)["position"]]
        script = SCRIPTS[variant]
        rnd = random.Random(19)
        plies = len(script) if isinstance(script, list) else script
        last = None
        for ply in range(plies):
            # Where several seats may move (Cyvasse's setups), one that did not move last.
            turn = d.game(gid)["turn"]
            seat = ([s for s in turn if s != last] or turn)[0]
            last = seat
            if isinstance(script, list):
                move = script[ply]
            else:
                g = d.game(gid, tokens[seat])
                options = [o["move"] for o in g["legal"] if not o["partial"] and o["move"] in g["legal_moves"]]
                self.assertTrue(options, f"{variant}: no complete move at ply {ply}")
                move = rnd.choice(options)
            r = d.move(gid, tokens[seat], move, ply)
            self.assertEqual(r.status, 201, (variant, ply, move, r))
            positions.append(d.game(gid)["position"])
        return positions

    def expected(self, variant, pos, names):
        """What an image of pos must draw: pieces by square, prisoners by square, hands."""
        seats = SEATS[variant]
        pieces, held, hands = {}, {}, {}
        for r, row in enumerate(pos["board"]):
            for c, p in enumerate(row):
                if p is None:
                    continue
                if "owners" in pos:
                    o = pos["owners"][r][c]
                    side = "shared" if isinstance(o, list) else o
                else:        # two seats: the first seat's letters are upper case
                    side = seats[0] if p[0].isupper() else seats[1]
                pieces[names[r][c]] = (side, p)
        for h in pos["holdings"]:
            if h["row"] is None:
                hands[h["name"]] = h["pieces"]
            elif h["pieces"]:
                held[names[pos["rows"].index(h["row"])][pos["cols"].index(h["col"])]] = " ".join(h["pieces"])
        return pieces, held, {k: v for k, v in hands.items() if v}


class EveryPly(BoardImageCase):
    def check_game(self, variant):
        d = self.d
        gid, tokens = self.new_game(variant)
        positions = self.play(variant, gid, tokens)
        seats = SEATS[variant]
        # The names of the squares where the API's rows and columns are (the spectator's page
        # draws the board unturned, as position.board writes it).
        spectator, _ = self.game_page(gid)
        names = spectator.grid()
        self.assertEqual(len(names), len(positions[0]["board"]))
        for ply, pos in enumerate(positions):
            pieces, held, hands = self.expected(variant, pos, names)
            grids = set()
            for seat in seats:
                where = f"{variant} ply {ply} from {seat}"
                img = parse_svg(self, self.svg(gid, f"?ply={ply}&seat={seat}").text, where)
                self.assertEqual(img["root"].get("data-ply"), str(ply), where)
                self.assertEqual(img["root"].get("data-side"), seat, where)
                self.assertEqual(img["pieces"], pieces, where)
                self.assertEqual(described(img["root"].find(SVG + "desc").text, seats),
                                 {sq: side for sq, (side, _) in pieces.items()}, where)
                self.assertEqual(img["held"], held, where)
                self.assertEqual({k: v for k, v in img["hands"].items() if v}, hands, where)
                self.assertEqual(set(img["squares"]), {n for row in names for n in row if n}, where)
                grids.add(tuple(sorted(img["grid"].items())))
            # Each seat sees the board turned to its own edge: as many drawings as seats.
            self.assertEqual(len(grids), len(seats), f"{variant} ply {ply}: the seats' images are not turned apart")
        # At the current ply each seat's image is the board its page draws, square by square;
        # without ?seat= it is the first seat's.
        now = len(positions) - 1
        keys = ("piece", "side", "kind", "shade", "r", "c", "held", "last", "facing", "label")
        for seat in seats:
            page, _ = self.game_page(gid, tokens[seat])
            for query in (f"?seat={seat}", f"?ply={now}&seat={seat.lower()}") + (("",) if seat == seats[0] else ()):
                text = self.svg(gid, query).text
                drawn = page_board(re.sub(r"<title id=.*?</title>|<desc id=.*?</desc>", "", text, flags=re.S))
                self.assertEqual({n: {k: s[k] for k in keys} for n, s in drawn.squares.items()},
                                 {n: {k: s[k] for k in keys} for n, s in page.squares.items()},
                                 f"{variant} {seat}{query}: not the page's board")
                self.assertEqual(drawn.walls, page.walls)
                self.assertEqual([(h["name"], [p["piece"] for p in h["pieces"]]) for h in drawn.hands],
                                 [(h["name"], [p["piece"] for p in h["pieces"]]) for h in page.hands])
        self.assertTrue(any(s["last"] for s in page.squares.values()), "the last move is outlined")
        self.check_colours(self.svg(gid).text)
        return gid, positions

    def check_colours(self, text):
        css = css_paints(self.d.get("/style.css").text)
        base, dark = css["svg.board .sq polygon"], css["svg.board .sq.dark polygon"]
        root = ET.fromstring(text.encode())
        for g in root.iter(SVG + "g"):
            cls = g.get("class", "").split()
            if "sq" in cls:
                poly = g.find(SVG + "polygon")
                rule = css.get(f"svg.board .sq.{cls[1]} polygon", {})
                want = rule.get("fill", (dark if cls[2] == "dark" else base)["fill"])
                self.assertEqual(expand(poly.get("fill")), expand(want), cls)
                if "last" not in cls:
                    self.assertEqual(expand(poly.get("stroke")), expand(rule.get("stroke", base["stroke"])), cls)
            elif "pc" in cls:
                side = [c[5:] for c in cls if c.startswith("side-")][0]
                rule = css[f"svg.board .pc.side-{side} circle"]
                circle = g.find(SVG + "circle")
                self.assertEqual(expand(circle.get("fill")), expand(rule["fill"]), side)
                self.assertEqual(expand(circle.get("stroke")), expand(rule["stroke"]), side)

    def test_nchess(self):
        gid, positions = self.check_game("nchess")
        self.assertTrue(any(h["pieces"] for h in positions[-1]["holdings"]), "no prisoner was drawn")

    def test_conversion_chess(self):
        gid, positions = self.check_game("conversion-chess")
        self.assertTrue(any(h["pieces"] and h["row"] is None for h in positions[-1]["holdings"]), "no hand was drawn")

    def test_complex_allegiance(self):
        self.check_game("complex-allegiance")

    def test_civil_war(self):
        self.check_game("civil-war")

    def test_cyvasse(self):
        gid, positions = self.check_game("cyvasse")
        kinds = {k for row in positions[-1]["kinds"] for k in row}
        self.assertTrue({"mountain", "water"} <= kinds and positions[-1]["notation"], "not revealed")


class HiddenSetup(BoardImageCase):
    def test_cyvasse_setup_is_never_drawn_before_the_reveal(self):
        d = self.d
        gid, tokens = self.new_game("cyvasse")
        white = d.game(gid, tokens["White"])["legal_moves"][0]
        # A setup of White's other than the default: the Horses and Light Horses swapped.
        setup = white.replace("L=g2,b3,i3 H=c3,h3", "L=g2,c3,h3 H=b3,i3")
        self.assertNotEqual(setup, white)
        before = {s: self.svg(gid, f"?seat={s}").text for s in ("White", "Black")}
        self.assertEqual(d.move(gid, tokens["White"], setup, 0).status, 201)

        def hidden(ply):
            for seat in ("", "?seat=White", "?seat=Black"):
                for q in (seat, (seat + "&" if seat else "?") + f"ply={ply}"):
                    text = self.svg(gid, q).text
                    img = parse_svg(self, text, q)
                    self.assertEqual(img["pieces"], {}, f"{q}: pieces drawn before the reveal")
                    kinds = {g.get("class").split()[1] for g in img["squares"].values()}
                    self.assertEqual(kinds, {"plain"}, f"{q}: terrain drawn before the reveal")
                    for leak in ("H b3", "H i3", "L c3", "L h3", "mountain", "water"):
                        self.assertNotIn(leak, text, q)

        hidden(1)
        # The image at ply 1 is the empty board of ply 0 but for the ply it names.
        for s in ("White", "Black"):
            now = self.svg(gid, f"?seat={s}").text
            self.assertEqual(now.replace('data-ply="1"', 'data-ply="0"').replace("after ply 1", "after ply 0"),
                             before[s])
        black = d.game(gid, tokens["Black"])["legal_moves"][0]
        self.assertEqual(d.move(gid, tokens["Black"], black, 1).status, 201)
        # Revealed: ply 2 shows both setups; ply 1 stays as it was drawn.
        img = parse_svg(self, self.svg(gid, "?ply=2").text, "ply 2")
        self.assertEqual(len(img["pieces"]), 2 * len(re.findall(r"[a-l][1-9]", setup.split(" R=")[1])))
        self.assertEqual(img["pieces"]["b3"], ("White", "H"))
        for q in ("?ply=1", "?ply=1&seat=Black", "?ply=1&seat=White"):
            self.assertEqual(parse_svg(self, self.svg(gid, q).text, q)["pieces"], {})


class Caching(BoardImageCase):
    def test_etag_and_cache_control(self):
        d = self.d
        gid, tokens = self.new_game("nchess")
        d.play(gid, tokens, nchess.OPENING[:2])
        r = self.svg(gid)
        tag = r.header("ETag")
        self.assertRegex(tag, r'^"[^"]+"$')
        self.assertEqual(r.header("Cache-Control"), "no-cache")
        again = d.get(f"/games/{gid}/board.svg", headers={"If-None-Match": tag})
        self.assertEqual(again.status, 304, again)
        self.assertEqual(again.body, b"")
        self.assertEqual(again.header("ETag"), tag)
        old = self.svg(gid, "?ply=1")
        old_tag = old.header("ETag")
        self.assertRegex(old.header("Cache-Control"), r"^public, max-age=\d+$")
        self.assertNotEqual(old_tag, tag)
        # Another side is another image, kept apart from the first (both are kept by version).
        north = self.svg(gid, "?seat=North")
        self.assertNotIn(north.header("ETag"), (tag, old_tag))
        self.assertNotEqual(north.body, r.body)
        self.assertEqual(self.svg(gid).body, r.body)
        self.assertEqual(self.svg(gid, "?seat=North").body, north.body)
        self.assertEqual(d.move(gid, tokens["South"], nchess.OPENING[2], 2).status, 201)
        # The game moved: its image now is another; ply 1's is the same, and still held.
        moved = d.get(f"/games/{gid}/board.svg", headers={"If-None-Match": tag})
        self.assertEqual(moved.status, 200)
        self.assertNotEqual(moved.header("ETag"), tag)
        self.assertNotEqual(moved.body, r.body)
        held = d.get(f"/games/{gid}/board.svg?ply=1", headers={"If-None-Match": old_tag})
        self.assertEqual(held.status, 304)
        self.assertEqual(self.svg(gid, "?ply=1").body, old.body)
        # The image of ply 2 is the image of the game as it stood at ply 2.
        self.assertEqual(self.svg(gid, "?ply=2").body.replace(b"after ply 2", b""), r.body.replace(b"after ply 2", b""))


class Errors(BoardImageCase):
    def test_bad_requests(self):
        d = self.d
        gid, tokens = self.new_game("nchess")
        d.play(gid, tokens, nchess.OPENING[:1])
        for q in ("?ply=2", "?ply=-1", "?ply=x", "?ply=", "?ply=1.0", "?ply=9999999999", "?ply=%201",
                  "?seat=East", "?seat=", "?seat=South&x=1", "?size=3"):
            self.assertError(d.get(f"/games/{gid}/board.svg{q}"), 400, "bad_request")
        self.assertError(d.get("/games/nosuchgame1/board.svg"), 404, "not_found")
        self.assertError(d.get("/games/nosuchgame1/board.svg?ply=0"), 404, "not_found")
        for q in ("?ply=0", "?ply=1", "?seat=north", "?seat=North&ply=0"):
            self.svg(gid, q)

    def test_a_seat_token_put_for_the_seat_is_not_repeated(self):
        # A seat link's token pasted where the seat's name goes: refused, and written nowhere (the
        # log is checked for the game's tokens when the daemon stops).
        gid, tokens = self.new_game("nchess")
        r = self.d.get(f"/games/{gid}/board.svg?seat={tokens['South']}")
        self.assertError(r, 400, "bad_request")
        self.assertNotIn(tokens["South"], r.text)


class PageLink(BoardImageCase):
    def test_game_pages_link_to_the_image_from_their_side(self):
        d = self.d
        gid, tokens = self.new_game("nchess")
        for token, seat in ((None, "South"), (tokens["South"], "South"), (tokens["North"], "North")):
            _, page = self.game_page(gid, token)
            link = re.search(r'<a href="(/games/\w+/board\.svg\?seat=(\w+))">An image of this position</a>', page)
            self.assertTrue(link, page)
            self.assertEqual(link.group(2), seat)
            self.assertEqual(parse_svg(self, self.svg(gid, link.group(1)[len(f"/games/{gid}/board.svg"):]).text,
                                       seat)["root"].get("data-side"), seat)


class TableCells(html.parser.HTMLParser):
    """The cells of the board table in a mail's HTML part: {square: attributes}, and their order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells, self.order, self.tables = {}, [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables += 1
        if tag == "td" and a.get("data-square"):
            self.cells[a["data-square"]] = a
            self.order.append(a["data-square"])


class Mails(BoardImageCase):
    def test_html_part_holds_the_board_table(self):
        d = self.d
        gid, tokens = self.new_game("complex-allegiance", emails=True)
        seats = SEATS["complex-allegiance"]
        spectator, _ = self.game_page(gid)
        names = spectator.grid()
        pos = d.game(gid)["position"]
        pieces, _, _ = self.expected("complex-allegiance", pos, names)
        for i, seat in enumerate(seats):
            m = d.invitation(gid, f"p{i}@players.test")
            self.assertEqual(m.get_content_type(), "multipart/alternative")
            plain = m.get_body(("plain",)).get_content()
            page = m.get_body(("html",)).get_content()
            t = TableCells()
            t.feed(page)
            self.assertEqual(t.tables, 1, seat)
            got = {sq: (a["data-side"], a["data-piece"]) for sq, a in t.cells.items() if a.get("data-piece")}
            self.assertEqual(got, pieces, f"{seat}'s mail: the table's pieces")
            self.assertEqual(len(t.cells), sum(1 for row in names for n in row if n), seat)
            for a in t.cells.values():
                self.assertRegex(a["style"], r"background:#[0-9a-f]{6}", a)
            # Turned to the reader's side, as the image for that seat is.
            img = parse_svg(self, self.svg(gid, f"?seat={seat}").text, seat)
            self.assertEqual(t.order, [sq for _, sq in sorted(img["grid"].items())],
                             f"{seat}'s mail: the table is not turned as the board")
            # The text, whole, in the HTML part's <pre>s around the table, which comes right
            # after the text's board (its key of seats ends it).
            pres = [html.unescape(re.sub(r"<[^>]+>", "", x))
                    for x in re.findall(r"<pre[^>]*>(.*?)</pre>", page, re.S)]
            self.assertEqual(len(pres), 2, seat)
            self.assertEqual("".join(pres), plain.replace("\r\n", "\n"))
            self.assertRegex(pres[0], r" nK [\s\S]*\n\nn = North, e = East, s = South, w = West, \* = shared\n$")
            self.assertLess(page.index("</pre>"), page.index("<table"))
            self.assertLess(page.index("</table>"), page.rindex("<pre"))
            self.assertNotIn(" nK ", pres[1])


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
