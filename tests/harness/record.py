"""record.py - a reader of game records (docs/record.md), written from the document, not from the
server's code, and their replay through the rules library (tests/unit/record_replay.c).

tests/api/records.py checks the records of games of every variant in detail; the harness's Daemon
reads and replays every record any test receives (check_record_text), so that no record the
suite produces goes unread.
"""
import json
import os
import re
import subprocess

# ---- a reader of docs/record.md ----

TAG = re.compile(r'^\[([A-Za-z0-9_]+) "((?:\\[\\"]|[^\\"])*)"\]$')
PLY = re.compile(r"^(\d+)\. ([A-Za-z]+): (\{hidden\}|[^{};]+?)(?: \{roll((?: d\d+:\d+)+)\})?(?: ; (.*))?$")
ACTION = re.compile(r"^\{([A-Za-z]+) (resigns|offers a draw|accepts the draw|declines the draw|"
                    r"withdraws the draw offer)\}$")
RESULT_TWO = ("*", "1-0", "0-1", "1/2-1/2")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class RecordError(AssertionError):
    pass


def need(cond, what):
    if not cond:
        raise RecordError(what)


def read_record(text, seats):
    """A record's text (docs/record.md) read strictly, for a variant of these seats (in seat order):
    {"tags": [(name, value)...] in order, "tag": {name: value}, "plies": [{"seat", "move" (None when
    hidden), "rolls": [(sides, value)...], "note"}], "actions": [(plies before it, seat, action)],
    "result"}. Raises RecordError at the first line that does not fit."""
    need(text.endswith("\n"), "the record ends with a line feed")
    lines = text[:-1].split("\n")
    need("\r" not in text, "lines end with a line feed alone")
    tags, i = [], 0
    while i < len(lines) and lines[i] != "":
        m = TAG.match(lines[i])
        need(m, f"line {i + 1} is a tag pair: {lines[i]!r}")
        tags.append((m.group(1), re.sub(r"\\([\\\"])", r"\1", m.group(2))))
        i += 1
    need(tags and i < len(lines), "tag pairs, then an empty line")
    tag = dict(tags)
    need(len(tag) == len(tags), f"no tag twice: {[n for n, _ in tags]}")
    # The order of docs/record.md, "Tag pairs".
    order = ["Event", "Site", "Date", "Variant", "RulesVersion", *seats, "Result", "Termination",
             "TimeControl", "TimeMax", "PlyCount", "DiceVersion", "DiceCommitment",
             *["ClientSeed" + s for s in seats], "DiceSeed"]
    optional = {"TimeMax", "DiceSeed", *["ClientSeed" + s for s in seats]}
    need([n for n, _ in tags] == [n for n in order if n in tag], f"tags in the documented order: {[n for n, _ in tags]}")
    need(all(n in tag for n in order if n not in optional), f"every tag that must be there: {[n for n, _ in tags]}")
    need(("TimeMax" in tag) == ("+" in tag["TimeControl"]), "TimeMax exactly with a time bank")
    need(re.fullmatch(r"-|1/\d+|\d+\+\d+", tag["TimeControl"]), tag["TimeControl"])
    need(re.fullmatch(r"\d{4}\.\d\d\.\d\d", tag["Date"]), tag["Date"])
    need(re.fullmatch(r"[0-9]+", tag["RulesVersion"]) and re.fullmatch(r"[0-9]+", tag["PlyCount"]), "numbers")
    need(tag["DiceVersion"] in ("1", "2"), tag["DiceVersion"])
    need(HEX64.match(tag["DiceCommitment"]), tag["DiceCommitment"])
    need(all(("ClientSeed" + s in tag) == (tag["DiceVersion"] == "2") for s in seats), "client seeds with dice v2")
    result = lines[-1]
    need(result == tag["Result"], f"the result line {result!r} is the Result tag {tag['Result']!r}")
    if len(seats) == 2:
        need(result in RESULT_TWO, result)
    else:
        need(result == "*" or re.fullmatch(r"\d+(-\d+){%d}" % (len(seats) - 1), result), result)
    need(("DiceSeed" in tag) == (result != "*" or tag["Termination"] != "unterminated"), "the seed once over")
    plies, actions = [], []
    for k, line in enumerate(lines[i + 1:-1], start=i + 2):
        m, a = PLY.match(line), ACTION.match(line)
        if a:
            need(a.group(1) in seats, f"line {k}: a seat of the game: {line!r}")
            actions.append((len(plies), a.group(1), a.group(2)))
            continue
        need(m, f"line {k} is a ply or an action: {line!r}")
        need(int(m.group(1)) == len(plies) + 1, f"line {k}: ply number {len(plies) + 1}: {line!r}")
        need(m.group(2) in seats, f"line {k}: a seat of the game: {line!r}")
        hidden = m.group(3) == "{hidden}"
        need(not (hidden and m.group(5) is not None), f"line {k}: a hidden move has no note")
        rolls = [tuple(map(int, r[1:].split(":"))) for r in (m.group(4) or "").split()]
        need(all(1 <= v <= s for s, v in rolls), f"line {k}: rolls on their dice: {line!r}")
        plies.append({"seat": m.group(2), "move": None if hidden else m.group(3), "rolls": rolls,
                      "note": m.group(5) or ""})
    need(len(plies) == int(tag["PlyCount"]), f"PlyCount {tag['PlyCount']} plies, not {len(plies)}")
    return {"tags": tags, "tag": tag, "plies": plies, "actions": actions, "result": result}


def replay_path():
    """The record_replay program (tests/unit/record_replay.c), as the build names it in
    ROOKERY_RECORD_REPLAY; None when it is not built."""
    path = os.environ.get("ROOKERY_RECORD_REPLAY")
    return path if path and os.access(path, os.X_OK) else None


def replay(variant, rules_version, plies):
    """The plies replayed through the rules library (record_replay): its JSON answer."""
    body = {"variant": variant, "rules_version": rules_version,
            "plies": [{"seat": p["seat"], "move": p["move"], "rolls": [list(r) for r in p["rolls"]]} for p in plies]}
    r = subprocess.run([replay_path()], input=json.dumps(body), capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"record_replay refused the record: {r.stderr}")
    return json.loads(r.stdout)


def check_record_text(text, seats_of_variant, position_at=None):
    """Read a record strictly and replay its plies (unless a move is hidden) through the rules;
    seats_of_variant(variant id) gives the variant's seats in order. position_at(ply count), when
    given, is the daemon's position notation after that many plies, or None when it is not known
    (the game has moved on): the replay must reach it. Raises AssertionError with the reason."""
    tag = dict(TAG.match(line).groups() for line in text.split("\n") if TAG.match(line))
    need("Variant" in tag, "a Variant tag")
    rec = read_record(text, seats_of_variant(tag["Variant"]))
    if replay_path() is None or any(p["move"] is None for p in rec["plies"]):
        return rec
    got = replay(rec["tag"]["Variant"], int(rec["tag"]["RulesVersion"]), rec["plies"])
    want = position_at(len(rec["plies"])) if position_at else None
    need(want is None or got["position"] == want,
         f"the replayed position {got['position']!r} is not the daemon's {want!r}")
    return rec
