#!/usr/bin/env python3
"""verify-dice.py - recompute a finished game's dice from its public dice record.

usage: verify-dice.py URL-or-FILE
  URL   e.g. http://127.0.0.1:8080/api/games/<id>/dice
  FILE  a saved copy of that JSON ('-' for standard input); the address is read
        page by page (?from=), a file holds the pages it holds

Checks that SHA-256 of the revealed seed is the commitment published when the
game began, and that every recorded roll is the one the seed (and, for dice of
version 2, the seats' client seeds) dictates.
Exit status 0 when everything matches, 1 when something does not, 2 on bad input.
"""
import hashlib
import hmac
import json
import sys
import urllib.parse
import urllib.request


def roll(seed, game, ply, k, sides, client_seeds=None):
    """Roll k of ply: HMAC-SHA256 words, rejection sampling, 1..sides.

    Version 1 (client_seeds None): the message is "rookery-dice/v1|game|ply|k".
    Version 2: "rookery-dice/v2|game|ply|k" and "|<length>:<client seed>" for each
    seat in seat order (length in bytes, "|0:" for a seat without one).
    """
    limit = 2**32 - (2**32 % sides)
    if client_seeds is None:
        base = f"rookery-dice/v1|{game}|{ply}|{k}".encode()
    else:
        base = f"rookery-dice/v2|{game}|{ply}|{k}".encode()
        for c in client_seeds:
            c = (c or "").encode()
            base += b"|%d:" % len(c) + c
    attempt = 0
    while True:
        msg = base + (f"|{attempt}".encode() if attempt else b"")
        mac = hmac.new(seed, msg, hashlib.sha256).digest()
        for i in range(0, 32, 4):
            word = int.from_bytes(mac[i:i + 4], "big")
            if word < limit:
                return word % sides + 1
        attempt += 1


def load_pages(url):
    """The record at url with the rolls of every page: each page names the next one's from."""
    parts = urllib.parse.urlsplit(url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "from"]
    record, rolls, start = None, [], None
    while True:
        q = urllib.parse.urlencode(query + ([("from", start)] if start is not None else []))
        with urllib.request.urlopen(urllib.parse.urlunsplit(parts._replace(query=q))) as r:
            page = json.load(r)
        record = record or page
        rolls += page.get("rolls", [])
        start = page.get("next")
        if start is None:
            return dict(record, rolls=rolls)


def load(source):
    if source == "-":
        return json.load(sys.stdin)
    if source.startswith(("http://", "https://")):
        return load_pages(source)
    with open(source, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    record = load(argv[1])
    if not record.get("seed"):
        print("the game is not over: its seed is still secret", file=sys.stderr)
        return 2
    version = record.get("version", 1)
    if version not in (1, 2):
        print(f"dice version {version} is unknown to this script", file=sys.stderr)
        return 2
    client_seeds = None
    if version == 2:
        client_seeds = [s["client_seed"] for s in record["client_seeds"]]
        shown = ", ".join(f"{s['seat']} {json.dumps(s['client_seed']) if s['client_seed'] else 'none'}"
                          for s in record["client_seeds"])
        print(f"dice version 2, client seeds: {shown}")
    seed = bytes.fromhex(record["seed"])
    ok = hashlib.sha256(seed).hexdigest() == record["commitment"]
    print(f"commitment {'matches' if ok else 'DOES NOT MATCH'} the revealed seed")
    bad = 0
    for r in record["rolls"]:
        want = roll(seed, record["game"], r["ply"], r["k"], r["sides"], client_seeds)
        if want != r["value"]:
            bad += 1
            print(f"ply {r['ply']} roll {r['k']}: recorded {r['value']}, seed gives {want}")
    print(f"{len(record['rolls'])} rolls checked, {bad} wrong")
    return 0 if ok and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
