"""harness.complex_allegiance - Complex Allegiance Chess as the black-box and browser tests play it:
its seats, a scripted game to the first King capture and what stands where on the way, the
position notation read as squares, and the board as each seat's page draws it. Sections cited
are those of docs/rules/complex-allegiance.md.

Python standard library only.
"""
import re

VARIANT = "complex-allegiance"
SEATS = ("North", "East", "South", "West")          # turn order, North first (Players)
NAMES = ("Nora", "Emil", "Saul", "Wanda")
FILES = "abcdefghij"
CORNERS = {"a1", "j1", "a10", "j10"}

# The scripted game: (seat, text sent, canonical echo, note). Moves go round
# North, East, South, West. What each one is for:
#   plies 0-7   clear the squares the shared-pawn double steps need;
#   ply 9       East double-steps the shared NE pawn along rank 2 (i2-g2);
#   ply 10      South double-steps the shared SE pawn (i9-i7);
#   ply 11      West double-steps the shared SW pawn along rank 9 (b9-d9);
#   ply 20      North castles O-O (King e1-c1, Rook b1-d1);
#   ply 24      North double-steps the shared NW pawn (b2-b4) over b3 ...
#   ply 25      ... East castles, written as the King's move (Kj5-j3 = O-O) ...
#   ply 26      ... and South, on its first turn after the double step, takes
#               the NW pawn en passant with its c-pawn (c4xb3, removes b4);
#   ply 34      the same South pawn promotes on rank 1 (no letter: a Queen);
#   ply 38      the new Queen takes North's castled King on c1: South wins.
# Several moves are sent in other spellings than the canonical one (Writing moves).
SCRIPT = [
    ("North", "g2-g4", "g2-g4", ""),
    ("East", "i8-g8", "i8-g8", ""),
    ("South", "c9c7", "c9-c7", ""),
    ("West", "b3-c3", "b3-c3", ""),
    ("North", "h2 h4", "h2-h4", ""),
    ("East", "i7-g7", "i7-g7", ""),
    ("South", "d9-d7", "d9-d7", ""),
    ("West", "b4-d4", "b4-d4", ""),
    ("North", "e2-e3", "e2-e3", ""),
    ("East", "i2-g2", "i2-g2", ""),            # shared NE pawn, East's double step
    ("South", "i9-i7", "i9-i7", ""),           # shared SE pawn, South's double step
    ("West", "B9-D9", "b9-d9", ""),            # shared SW pawn, West's double step
    ("North", "nc1d3", "Nc1-d3", ""),
    ("East", "Nj3-h2", "Nj3-h2", ""),
    ("South", "c7-c6", "c7-c6", ""),
    ("West", "b8-c8", "b8-c8", ""),
    ("North", "bd1-e2", "Bd1-e2", ""),
    ("East", "i3-h3", "i3-h3", ""),
    ("South", "c6-c5", "c6-c5", ""),
    ("West", "c8-d8", "c8-d8", ""),
    ("North", "0-0", "O-O", ""),               # castling, King e1-c1 and Rook b1-d1
    ("East", "Bj4-i3", "Bj4-i3", ""),
    ("South", "c5-c4", "c5-c4", ""),
    ("West", "d8-e8", "d8-e8", ""),
    ("North", "b2-b4", "b2-b4", ""),           # shared NW pawn, North's double step over b3
    ("East", "Kj5-j3", "O-O", ""),             # castling as the King's move: K j5-j3, R j2-j4
    ("South", "C4XB3 ep", "c4xb3", "en passant, removes b4"),
    ("West", "e8-f8", "e8-f8", ""),
    ("North", "f2-f4", "f2-f4", ""),
    ("East", "i5-h5", "i5-h5", ""),
    ("South", "b3-b2", "b3-b2", ""),
    ("West", "b7-c7", "b7-c7", ""),
    ("North", "Nh1-g3", "Nh1-g3", ""),
    ("East", "i6-g6", "i6-g6", ""),
    ("South", "b2b1", "b2-b1=Q", ""),          # promotion on South's far edge, Queen by default
    ("West", "b6-c6", "b6-c6", ""),
    ("North", "f4-f5", "f4-f5", ""),
    ("East", "h5-g5", "h5-g5", ""),
    ("South", "Qb1xc1+ # got him", "Qb1xc1", "captures North's King: South wins"),
]

# What stands where after a ply: square -> piece as the position notation
# writes it (owner n/e/s/w or a shared pair NW/NE/SW/SE, then the letter), or
# None for an empty square.
AFTER = {
    0: {"g2": None, "g3": None, "g4": "nP"},
    9: {"i2": None, "h2": None, "g2": "NEP"},
    10: {"i9": None, "i8": None, "i7": "SEP"},
    11: {"b9": None, "c9": None, "d9": "SWP"},
    20: {"e1": None, "d1": "nR", "c1": "nK", "b1": None},
    24: {"b2": None, "b3": None, "b4": "NWP", "c4": "sP"},
    25: {"j5": None, "j4": "eR", "j3": "eK", "j2": None},
    26: {"c4": None, "b4": None, "b3": "sP"},
    34: {"b2": None, "b1": "sQ", "c1": "nK"},
    38: {"b1": None, "c1": "sQ"},
}


def notation_squares(notation):
    """The position notation 'ca1:<rank 1>/.../<rank 10>:...' as {square: piece}, pieces
    as 'nK', 'NWP' (the never-moved mark '*' dropped), empty squares and corners None."""
    m = re.match(r"^ca1:([^:]+):", notation)
    assert m, notation
    ranks = m.group(1).split("/")
    assert len(ranks) == 10, notation
    out = {}
    for r, text in enumerate(ranks):
        cells = re.findall(r"#|\.|(?:[nesw]|NW|NE|SW|SE)[KQRBNP]\*?", text)
        assert "".join(cells) == text and len(cells) == 10, (r + 1, text)
        for f, cell in enumerate(cells):
            out[f"{FILES[f]}{r + 1}"] = None if cell in "#." else cell.rstrip("*")
    return out


def expected_grid(seat):
    """The square names as the seat's page draws them, top row first, left to right:
    the seat's home edge at the bottom (Players; The board), seen from its own side of the table."""
    grid = []
    for r in range(10):
        row = []
        for c in range(10):
            if seat in ("South", None):      # rank 1 at the top, file a on the left (The board)
                f, rank = c, r + 1
            elif seat == "North":            # turned half round: rank 1 at the bottom, file j on the left
                f, rank = 9 - c, 10 - r
            elif seat == "East":             # file j at the bottom, rank 10 on the left
                f, rank = r, 10 - c
            else:                            # West: file a at the bottom, rank 1 on the left
                f, rank = 9 - r, c + 1
            row.append(f"{FILES[f]}{rank}")
        grid.append(row)
    return grid
