"""harness.conversion_chess - Conversion Chess as the black-box and browser tests play it: its seats
and a scripted game to a King capture (displacement, assimilation, conversion, a compound split,
a drop, promotions before, instead of and after a move), with what stands where and in the hands
on the way. Sections cited are those of docs/rules/conversion-chess.md.

Python standard library only.
"""

VARIANT = "conversion-chess"
SEATS = ("White", "Black")            # White moves first (Players and hands)
NAMES = ("Wes", "Bea")

# The scripted game: (seat, text sent, canonical echo, note). What each move is for:
#   ply 3   DISPLACEMENT: Black's Pawn takes e5; the Pawn (Second Tier) goes to Black's
#           hand demoted, as the Knight chosen (Displacement), written in short form "d(n)";
#   ply 4   opens the diagonal b2-e5;
#   ply 6   ASSIMILATION: the Bishop (Third Tier) takes the Pawn on e5 and becomes the
#           compound (BP); as a compound it then CONVERTS the Pawns it attacks, c7 and g7
#           (Attacking: conversion in place), which turn White and face rank 9;
#   ply 8   PROMOTION INSTEAD OF A MOVE: the converted Pawn on g7 (White's zone) becomes a Rook;
#   ply 10  the Rook displaces the Pawn on h7 (choice disp/assim: disp, demoted to a Knight:
#           White's hand gets N) and, a Third Tier mover, CONVERTS the Bishop on h8 by attacking
#           (Third vs Third is 3) but not the Pawn f7 (Third vs Second has no 3);
#   ply 11  COMPOUND SPLIT: Black's Gold (Second Tier) displaces the compound (BP); each power
#           goes to Black's hand demoted: Bishop -> Silver, Pawn -> Alfil (both chosen);
#   ply 12  PROMOTION BEFORE A MOVE: the Pawn on c7 becomes a Rook and, as a Rook, assimilates
#           the Alfil on c8 (the only method, so not written) -> (RA), which converts the Rook
#           b8, the Silver c9 and the Alfil g8;
#   ply 13  DROP: Black drops the Silver from its hand on e8;
#   ply 14  PROMOTION AFTER A MOVE: the converted Silver steps c9-d8 inside White's zone and
#           becomes a Bishop (the promotion part written without the piece letter);
#   ply 16  the new Bishop moves onto the King: King captured, White wins. The method written
#           is accepted and ignored (Capturing the King; house ruling 17).
# Several moves are sent in other spellings than the canonical one (Writing moves).
SCRIPT = [
    ("White", "e3-e4", "Pe3-e4", ""),
    ("Black", "Pe7-e6", "Pe7-e6", ""),
    ("White", "e4e5", "Pe4-e5", ""),
    ("Black", "e6xe5 d(n)", "Pe6xe5 disp(N)", "to hand: N"),
    ("White", "c3-c4", "Pc3-c4", ""),
    ("Black", "gd9-e8", "Gd9-e8", ""),
    ("White", "Bb2xe5 assim", "Bb2xe5 assim", "becomes (BP); converts c7, g7"),
    ("Black", "Ge8-e7", "Ge8-e7", ""),
    ("White", "g7=R", "Pg7=R", ""),
    ("Black", "Ge7-e6", "Ge7-e6", ""),
    ("White", "Rg7xh7 disp(N)", "Rg7xh7 disp(N)", "to hand: N; converts h8"),
    ("Black", "Ge6xe5 disp(s, a)", "Ge6xe5 disp(S,A)", "to hand: S, A"),
    ("White", "c7=R / c7xc8", "Pc7=R / Rc7xc8 assim", "becomes (RA); converts b8, c9, g8"),
    ("Black", "s*e8", "S*e8", ""),
    ("White", "Sc9-d8 / d8=B", "Sc9-d8 / Sd8=B", ""),
    ("Black", "a7-a6", "Pa7-a6", ""),
    ("White", "Bd8xe9 disp", "Bd8xe9", "King captured \u2014 White wins"),
]

# What stands where after a ply, as position.board writes it (upper case White, lower case
# Black, a compound as its letters without parentheses), None for an empty square.
AFTER = {
    0: {"e3": None, "e4": "P"},
    1: {"e7": None, "e6": "p"},
    2: {"e4": None, "e5": "P", "e6": "p"},
    3: {"e6": None, "e5": "p"},
    4: {"c3": None, "c4": "P"},
    5: {"d9": None, "e8": "g"},
    6: {"b2": None, "e5": "BP", "c7": "P", "g7": "P", "d7": "p", "f7": "p"},
    7: {"e8": None, "e7": "g"},
    8: {"g7": "R"},
    9: {"e7": None, "e6": "g"},
    10: {"g7": None, "h7": "R", "h8": "B", "f7": "p", "i7": "p"},
    11: {"e6": None, "e5": "g"},
    12: {"c7": None, "c8": "RA", "b8": "R", "c9": "S", "g8": "A", "e9": "k"},
    13: {"e8": "s"},
    14: {"c9": None, "d8": "B"},
    15: {"a7": None, "a6": "p"},
    16: {"d8": None, "e9": "B", "e1": "K"},
}
# The two hands after a ply (position.holdings), pieces in the owner's case, in the order
# A N D P S G; a ply not listed leaves them as they were.
HANDS = {
    -1: ([], []),
    3: ([], ["n"]),
    10: (["N"], ["n"]),
    11: (["N"], ["a", "n", "s"]),
    13: (["N"], ["a", "n"]),
}


def hands_after(ply):
    return HANDS[max(p for p in HANDS if p <= ply)]
