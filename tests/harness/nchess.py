"""harness.nchess - Nchess as the black-box tests play it: the start position, move lines that
reach a capture into a prison and a release, and how to complete a release.

Python standard library only.
"""
import re

# A move's canonical text: letter, from, to, prison digit, placements.
CANONICAL_MOVE = re.compile(r"^[CNMGASOcnmgaso] [1-9] [1-9] [1-9] [1-9]( [46])?( / [cnmgasoCNMGASO] [1-9] [1-9])*$")

# The start position of Nchess, as the API's position.board shows it.
START_BOARD = [
    ["c", "n", "m", None, "g", None, "m", "n", "c"],
    [None, "a", None, None, None, None, None, "a", None],
    ["s", None, "s", None, "s", None, "s", None, "s"],
    [None] * 9,
    [None] * 9,
    [None] * 9,
    ["S", None, "S", None, "S", None, "S", None, "S"],
    [None, "A", None, None, None, None, None, "A", None],
    ["C", "N", "M", None, "G", None, "M", "N", "C"],
]

# A game that reaches a release: at ply 15 North's Archer captures the South
# Knight standing on South's prison [9 6], which holds a North Soldier, so the
# Soldier is released and must be placed (docs/rules/nchess.md, Release).
RELEASE_LINE = [
    "S 7 7 7 8", "s 3 3 3 2", "N 9 2 8 4", "a 2 8 4 8", "C 9 1 8 1", "a 2 2 2 4",
    "A 8 8 5 5", "s 3 9 4 9", "A 5 5 3 5 6", "m 1 7 3 5 4", "N 8 4 9 6", "a 4 8 5 8",
    "A 8 2 6 2", "a 5 8 7 8 4", "A 6 2 8 2",
]

# The first four moves of RELEASE_LINE: a legal opening, South first.
OPENING = RELEASE_LINE[:4]
# Knights stepping out and back: Nchess has no draw by repetition (house ruling 18).
SHUFFLE = ["N 9 2 8 4", "n 1 2 2 4", "N 8 4 9 2", "n 2 4 1 2"]


def square_of(board, piece):
    for i, row in enumerate(board):
        for j, p in enumerate(row):
            if p == piece:
                return (i + 1, j + 1)
    return None


def is_mine(piece, seat):
    return piece is not None and piece.isupper() == (seat == "South")


def complete_release(prefix, seat, position, rnd):
    """Complete a legal move listed as a prefix with one placement per released prisoner.

    The opponent's prisons that hold the mover's pieces and, after the move, have
    a piece of the mover on their square are emptied: column 4 first, each last
    imprisoned first, onto empty ordinary squares of the mover's own half.
    """
    f = prefix.split()
    fr, fc, tr, tc = map(int, f[1:5])
    board = [list(row) for row in position["board"]]
    board[tr - 1][tc - 1] = board[fr - 1][fc - 1]
    board[fr - 1][fc - 1] = None
    letters = []
    for h in sorted((h for h in position["holdings"] if h["seat"] == seat), key=lambda h: int(h["col"])):
        if is_mine(board[int(h["row"]) - 1][int(h["col"]) - 1], seat):
            letters += list(reversed(h["pieces"]))
    rows = range(6, 10) if seat == "South" else range(1, 5)
    free = [(i, j) for i in rows for j in range(1, 10)
            if board[i - 1][j - 1] is None and position["kinds"][i - 1][j - 1] == ""]
    rnd.shuffle(free)
    n = min(len(letters), len(free))
    return prefix + "".join(f" / {letters[k]} {free[k][0]} {free[k][1]}" for k in range(n))
