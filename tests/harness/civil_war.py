"""harness.civil_war - Civil War as the black-box and browser tests play it: its seats, the move
echo and the roll's result read back, and the board's geometry (fortresses, walls, gates) for
hunting a King. Sections cited are those of docs/rules/civil-war.md.

Python standard library only.
"""
import re

VARIANT = "civil-war"
SEATS = ("South", "West", "North", "East")     # turn order, South first (Players, turns and facing)
NAMES = ("Sam", "Wendy", "Nils", "Edna")
FILES = "abcdefghijklmno"
VALUES = {"K": 10, "G": 9, "Q": 8, "A": 7, "R": 6, "O": 5, "B": 4, "M": 3, "N": 2, "P": 1}   # The pieces

ECHO = re.compile(r"^(?P<army>[SWNE]): (?P<piece>[KQRGBANOPM])(?P<fr>[a-o]\d{1,2})"
                  r"(?P<sep>[-x])(?P<to>[a-o]\d{1,2})(?P<cap>!?)$")
RESULT = re.compile(r"^(?:no roll: success|roll (?P<roll>\d+) on d12, needs (?P<needs>\d+)\+: "
                    r"(?P<band>success|draw, back to (?P<back>[a-o]\d{1,2})|failure, attacker removed))")


def cell(board, sq):
    """position.board is rank 15 first, file a first."""
    return board[15 - int(sq[1:])][FILES.index(sq[0])]


def owner(pos, sq):
    return pos["owners"][15 - int(sq[1:])][FILES.index(sq[0])]


# ---- geometry for the King hunt (The board; Players, turns and facing; The pieces) ----

FORTRESS = {"South": ("abc", (1, 2, 3)), "West": ("abc", (13, 14, 15)),
            "North": ("mno", (13, 14, 15)), "East": ("mno", (1, 2, 3))}
GATES = {("c2", "d2"), ("b13", "b12"), ("m14", "l14"), ("n3", "n4")}
GATES |= {(b, a) for a, b in GATES}
FORWARD = {"South": (0, 1), "West": (1, 0), "North": (0, -1), "East": (-1, 0)}
ORTHO = ((0, 1), (1, 0), (0, -1), (-1, 0))
KING_STEPS = tuple((df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr)
HUNTERS = "QGARO"        # the pieces that chase the victim's King: they can turn


def bottom_row(seat):
    """The seat's home edge as its board is drawn for it, left to right: South sees rank 1 (a1 to
    o1) at the bottom; every next seat's view is South's turned by (file, rank) -> (rank, 16 - file)
    (Starting position)."""
    out = []
    for f in range(1, 16):
        x, y = f, 1
        for _ in range(SEATS.index(seat)):
            x, y = y, 16 - x
        out.append(f"{FILES[x - 1]}{y}")
    return out


def xy(sq):
    return FILES.index(sq[0]), int(sq[1:])


def name(f, r):
    return f"{FILES[f]}{r}" if 0 <= f < 15 and 1 <= r <= 15 else None


def fortress_of(sq):
    for seat, (fs, rs) in FORTRESS.items():
        if sq[0] in fs and int(sq[1:]) in rs:
            return seat
    return None


def step_ok(a, b):
    """A single step between adjacent squares a and b, walls only (Walls, gates and the Capital)."""
    fa, fb = fortress_of(a), fortress_of(b)
    return fa == fb or (a, b) in GATES


def bfs(sources, passable=lambda sq: True):
    """King-step distances to the nearest source, walls respected, never through h8."""
    dist = {sq: 0 for sq in sources}
    todo = list(sources)
    for sq in todo:
        f, r = xy(sq)
        for df, dr in KING_STEPS:
            n = name(f + df, r + dr)
            if n and n != "h8" and n not in dist and passable(n) and step_ok(sq, n):
                dist[n] = dist[sq] + 1
                todo.append(n)
    return dist


def attack_dirs(army, piece):
    fwd = FORWARD[army]
    back = (-fwd[0], -fwd[1])
    return {"Q": ORTHO, "G": (fwd, back), "A": (fwd, back), "O": (fwd, back), "M": (fwd, back),
            "K": ()}.get(piece, (fwd,))


def find(pos, piece, army):
    return [name(f, 15 - i) for i, row in enumerate(pos["board"]) for f, c in enumerate(row)
            if c == piece and pos["owners"][i][f] == army]
