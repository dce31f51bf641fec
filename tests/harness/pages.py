"""harness.pages - a game page read as its reader sees it: the drawn board, the forms, the texts.

page_board(html) parses a game page (GamePage) and checks that its board is drawn consistently;
hidden_fields(html, action) gives the hidden fields of a form; board_html(html) the board's markup.

Python standard library only.
"""
import html.parser
import re


def hidden_fields(html, action):
    """The hidden fields of the form posting to action."""
    m = re.search(r'<form method="post" action="' + re.escape(action) + r'"[^>]*>(.*?)</form>', html, re.S)
    assert m, f"no form for {action}"
    return dict(re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', m.group(1)))


def board_html(html):
    """The drawn board of a game page, as its markup (<svg class="board">...</svg>)."""
    found = re.findall(r'<svg class="board".*?</svg>', html, re.S)
    assert len(found) == 1, f"{len(found)} boards on the page"
    return found[0]


# A piece's facing arrow is turned as drawn: rotate(0) points up the page.
FACINGS = {0: "up", 90: "right", 180: "down", 270: "left"}
# The sides of a walled square, as the path data of its wall draws them.
WALL_SIDES = {"M-20,-20H20": "top", "M20,-20V20": "right", "M-20,20H20": "bottom", "M-20,-20V20": "left"}


class GamePage(html.parser.HTMLParser):
    """A game page as a reader sees it; page_board(html) parses and checks one.

    squares: {name: {"piece" (letters or None), "side" (seat, "shared" or "none"; None without a
      piece), "shared_by" (seats, from the title), "kind", "shade", "r", "c" (the drawn grid:
      the viewer's side at the bottom, the highest r), "x", "y" (the centre as drawn), "facing"
      ("up", "right", "down", "left" as drawn, or None), "held" (the pieces drawn on it, "s n +2",
      or None), "held_side", "last" (one of the last move's squares), "label" (the name written
      on hexagonal cells), "title"}}
    walls: {name: set of the sides drawn walled: "top", "right", "bottom", "left"}
    coords: [(x, y, text)] of the labels around the board
    hands: [{"name", "side", "empty", "x", "y", "pieces": [{"piece", "side", "touch", "x", "y", "title"}]}]
      (the pieces held without a square, drawn above and below the board)
    holdings: the "Off the board" list: [{"name", "square" (or None), "pieces" (list), "class", "text"}]
    paras: the texts of p.turn, p.result, p.places, p.last, p.offer, p.legend, p.error
    move_input: the attributes of the move box, or None
    """

    PARAS = ("turn", "result", "places", "last", "offer", "legend", "error")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.squares, self.walls, self.coords, self.hands, self.holdings = {}, {}, [], [], []
        self.paras, self.move_input = {}, None
        self.boards = 0
        self.stack = None        # the open elements inside svg.board: (tag, classes)
        self.sq = self.pc = self.hand_pc = None
        self.text = None         # (what, text so far) of the element whose text is being read
        self.coord_at = None
        self.wall_paths = []     # (transform, d)
        self.in_prisons = False
        self.item = self.span = self.para = None

    @staticmethod
    def translate(t):
        m = re.fullmatch(r"translate\((-?[0-9.]+) (-?[0-9.]+)\)", t or "")
        assert m, f"not a translation: {t!r}"
        return float(m.group(1)), float(m.group(2))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if self.stack is not None:
            self.svg_start(tag, a, cls)
            if tag != "svg":
                self.stack.append((tag, cls))
            return
        if tag == "svg" and "board" in cls:
            self.boards += 1
            self.stack = []
        elif tag == "section" and "prisons" in cls:
            self.in_prisons = True
        elif self.in_prisons and tag == "li":
            self.item = {"name": "", "square": None, "pieces": "", "class": [], "text": ""}
        elif self.item is not None and tag == "span":
            self.span = {"prison-name": "name", "prisoners": "pieces"}.get(cls[0] if cls else "")
            if self.span == "pieces":
                self.item["class"] = cls
        elif tag == "p" and set(self.PARAS) & set(cls):
            self.para = (set(self.PARAS) & set(cls)).pop()
            self.paras[self.para] = ""
        elif tag == "input" and a.get("name") == "move":
            self.move_input = a

    def svg_start(self, tag, a, cls):
        parent = self.stack[-1] if self.stack else (None, [])
        assert tag != "svg", "an svg inside the board"
        if tag == "g" and "sq" in cls:
            assert not self.stack, "a square inside another element"
            name = a.get("data-square")
            assert name and name not in self.squares, f"square {name!r} drawn twice or unnamed"
            assert a.get("data-touch") == name, a
            assert len(cls) in (3, 4) and cls[2] in ("light", "dark") and cls[3:] in ([], ["last"]), cls
            x, y = self.translate(a.get("transform"))
            self.sq = self.squares[name] = {
                "piece": None, "side": None, "shared_by": None, "kind": cls[1], "shade": cls[2],
                "r": int(a["data-r"]), "c": int(a["data-c"]), "x": x, "y": y, "facing": None,
                "held": None, "held_side": None, "last": "last" in cls, "label": None, "title": None,
                "polygon": False}
        elif tag == "g" and "pc" in cls and "hand" in cls:
            assert not self.stack and self.hands, "a hand piece outside a hand"
            side = [c[5:] for c in cls if c.startswith("side-")]
            x, y = self.translate(a.get("transform"))
            self.hand_pc = {"piece": a.get("data-piece"), "side": side[0] if side else None,
                            "touch": a.get("data-touch"), "x": x, "y": y, "title": None, "glyph": None}
            self.hands[-1]["pieces"].append(self.hand_pc)
        elif tag == "g" and "pc" in cls:
            assert self.sq is not None and parent[0] == "g" and "sq" in parent[1], "a piece outside a square"
            assert self.sq["piece"] is None, "two pieces on " + self.sq["title"]
            side = [c[5:] for c in cls if c.startswith("side-")]
            assert cls[0] == "pc" and len(side) == 1, cls
            self.pc = {"glyph": None}
            self.sq.update(piece=a.get("data-piece"), side=side[0])
        elif tag == "path" and "facing" in cls:
            assert self.pc is not None, "a facing outside a piece"
            m = re.fullmatch(r"rotate\((\d+)\)", a.get("transform") or "")
            assert m and int(m.group(1)) in FACINGS, a
            self.sq["facing"] = FACINGS[int(m.group(1))]
        elif tag == "path" and "wall" in cls:
            assert not self.stack, "a wall inside another element"
            self.wall_paths.append((a.get("transform"), a.get("d") or ""))
        elif tag == "polygon" and self.sq is not None:
            self.sq["polygon"] = True
        elif tag == "title":
            self.text = ("title", "")
        elif tag == "text":
            what = ("glyph" if "glyph" in cls else "held" if "held" in cls else "name" if "name" in cls
                    else "coord" if "coord" in cls else "hand-name" if "hand-name" in cls else None)
            assert what, f"unknown text {cls}"
            self.text = (what, "")
            if what == "held":
                side = [c[5:] for c in cls if c.startswith("side-")]
                assert self.sq is not None and len(side) == 1, cls
                self.sq["held_side"] = side[0]
            elif what == "coord":
                self.coord_at = (float(a["x"]), float(a["y"]))
            elif what == "hand-name":
                side = [c[5:] for c in cls if c.startswith("side-")]
                self.hands.append({"name": None, "side": side[0] if side else None, "empty": False,
                                   "x": float(a["x"]), "y": float(a["y"]), "pieces": []})

    def handle_endtag(self, tag):
        if self.stack is not None:
            if tag == "svg" and not self.stack:
                self.stack = None
                return
            assert self.stack and self.stack[-1][0] == tag, f"</{tag}> closes {self.stack[-1:]}"
            _, cls = self.stack.pop()
            if self.text and tag in ("title", "text"):
                self.svg_text(*self.text)
                self.text = None
            elif tag == "g" and "sq" in cls:
                self.sq = None
            elif tag == "g" and "hand" in cls:
                assert self.hand_pc["glyph"] == self.hand_pc["piece"], self.hand_pc
                del self.hand_pc["glyph"]
                self.hand_pc = None
            elif tag == "g" and "pc" in cls:
                assert self.pc["glyph"] == self.sq["piece"], (self.sq, self.pc)
                self.pc = None
            return
        if tag == "span":
            self.span = None
        elif tag == "li" and self.item is not None:
            item = {k: " ".join(v.split()) if isinstance(v, str) else v for k, v in self.item.items()}
            m = re.match(re.escape(item["name"]) + r" \[([^\]]+)\]:", item["text"])
            item["square"] = m.group(1) if m else None
            item["pieces"] = item["pieces"].split()
            self.holdings.append(item)
            self.item = None
        elif tag == "section":
            self.in_prisons = False
        elif tag == "p" and self.para:
            self.paras[self.para] = " ".join(self.paras[self.para].split())
            self.para = None

    def svg_text(self, what, text):
        if what == "title" and self.hand_pc is not None:
            self.hand_pc["title"] = text
        elif what == "title":
            assert self.sq is not None and self.sq["title"] is None, f"a stray title {text!r}"
            self.sq["title"] = text
        elif what == "glyph":
            (self.hand_pc if self.hand_pc is not None else self.pc)["glyph"] = text
        elif what == "held":
            self.sq["held"] = text
        elif what == "name":
            self.sq["label"] = text
        elif what == "coord":
            self.coords.append((*self.coord_at, text))
        elif what == "hand-name":
            h = self.hands[-1]
            h["empty"] = text.endswith(": empty")
            h["name"] = text[:-len(": empty")] if h["empty"] else text

    def handle_data(self, data):
        if self.stack is not None:
            if self.text:
                self.text = (self.text[0], self.text[1] + data)
            else:
                assert not data.strip(), f"stray text {data!r} in the board"
            return
        if self.item is not None:
            self.item["text"] += data
            if self.span:
                self.item[self.span] += data
        if self.para:
            self.paras[self.para] += data

    # ---- reading the parsed board ----

    def check(self):
        """The board is drawn consistently: every square once, with its polygon and a title that
        tells its piece and holding, in rows and columns as its grid places say; walls on squares."""
        assert self.boards == 1, f"{self.boards} boards on the page"
        assert self.squares, "no squares"
        at = {}
        for name, s in self.squares.items():
            assert s["polygon"], name
            del s["polygon"]
            assert (s["r"], s["c"]) not in at, f"{name} and {at.get((s['r'], s['c']))} drawn at one place"
            at[s["r"], s["c"]] = name
            want = name
            if s["piece"]:
                if s["side"] == "shared":
                    m = re.fullmatch(re.escape(s["piece"]) + r" shared by (\w+(?: and \w+)+)",
                                     s["title"][len(name) + 2:].split(" (holds ")[0])
                    assert m, s
                    s["shared_by"] = m.group(1).split(" and ")
                    want += f": {s['piece']} shared by {m.group(1)}"
                else:
                    want += f": {s['piece']}" if s["side"] == "none" else f": {s['side']} {s['piece']}"
            if s["held"] is not None:
                want += f" (holds {s['held']})"
            assert s["title"] == want, (s["title"], want)
            assert s["label"] in (None, name), s
        # The drawn rows and columns: y grows with r; within a row x grows with c (and on square
        # boards every column is one x).
        rows = sorted({s["r"] for s in self.squares.values()})
        ys = [{s["y"] for s in self.squares.values() if s["r"] == r} for r in rows]
        assert all(len(y) == 1 for y in ys), "a drawn row is not level"
        assert [y.pop() for y in ys] == sorted({s["y"] for s in self.squares.values()}), "rows out of order"
        for r in rows:
            row = sorted((s for s in self.squares.values() if s["r"] == r), key=lambda s: s["c"])
            assert [s["x"] for s in row] == sorted(s["x"] for s in row) and \
                len({s["x"] for s in row}) == len(row), f"row {r} out of order"
        by_place = {(s["x"], s["y"]): name for name, s in self.squares.items()}
        for transform, d in self.wall_paths:
            name = by_place.get(self.translate(transform))
            assert name and name not in self.walls, f"a wall at {transform} on no square or twice on {name}"
            sides = re.findall(r"M[^M]+", d)
            assert sides and all(side in WALL_SIDES for side in sides) and len(set(sides)) == len(sides), d
            self.walls[name] = {WALL_SIDES[side] for side in sides}
        for h in self.hands:
            assert h["name"] is not None, h
            for p in h["pieces"]:
                assert p["side"] == h["side"], (h, p)
                assert p["title"] == f"{p['piece']} in {h['name']}", (h["name"], p)
        return self

    def grid(self):
        """The square names as drawn: rows top to bottom, columns left to right (None: not drawn)."""
        nr = max(s["r"] for s in self.squares.values()) + 1
        nc = max(s["c"] for s in self.squares.values()) + 1
        out = [[None] * nc for _ in range(nr)]
        for name, s in self.squares.items():
            out[s["r"]][s["c"]] = name
        return out

    def row_labels(self):
        """The labels written level with each drawn row, left to right, by row (top first)."""
        out = {}
        for s in self.squares.values():
            out.setdefault(s["r"], [t for x, y, t in sorted(self.coords) if abs(y - s["y"]) < 0.01])
        return [out[r] for r in sorted(out)]

    def col_labels(self):
        """The labels above and below each drawn column, left to right: [[top, bottom], ...]."""
        out = {}
        for s in self.squares.values():
            out.setdefault(s["c"], [t for x, y, t in sorted(self.coords, key=lambda k: k[1])
                                    if abs(x - s["x"]) < 0.01])
        return [out[c] for c in sorted(out)]

    def pieces(self):
        """{square: (side, piece)} of the squares with a piece."""
        return {n: (s["side"], s["piece"]) for n, s in self.squares.items() if s["piece"]}


def page_board(html):
    """The game page parsed (GamePage), its board checked for consistency."""
    p = GamePage()
    p.feed(html)
    p.close()
    return p.check()
