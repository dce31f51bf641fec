#!/usr/bin/env python3
"""messages.py - messages between the seats of a game, over the API and on the game page.

usage: python3 tests/api/messages.py PATH-TO-ROOKERY [unittest options]

- POST /api/games/{id}/messages to every seat and to one seat of a four-seat game: who reads
  what through GET /api/games/{id}/messages (each seat, every other seat, a spectator without a
  token, a token of another game) and on the page (each seat's, the public one);
- a message beside a move in POST /api/games/{id}/moves, stored with it, and none when the move is
  refused; the game's version moves with a message and nothing else of the game does;
- the limits (bytes, characters, messages per seat an hour) and bad input (empty, control
  characters, no such seat, one's own seat, bad shapes), each with its code and nothing stored;
- the page's form: a message posted with the seat's form token, its "to" choice, and refusals.

Python standard library only.
"""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import LIMITS, DaemonCase, db_query  # noqa: E402


def four(d):
    r = d.post("/api/games", {"variant": "complex-allegiance", "seats": [{"name": n} for n in "ABCD"]})
    assert r.status == 201, r
    tok = {s["seat"]: s["token"] for s in r.json()["seats"]}
    d.secrets.update(tok.values())
    return r.json()["id"], tok


class Messages(DaemonCase):

    def send(self, gid, token, text, to=None, status=201):
        r = self.d.post(f"/api/games/{gid}/messages", {"text": text, "to": to}, token=token)
        self.assertEqual(r.status, status, r)
        return r.json()

    def read(self, gid, token, query=""):
        r = self.d.get(f"/api/games/{gid}/messages{query}", token=token)
        self.assertEqual(r.status, 200, r)
        return r.json()

    def texts(self, gid, token):
        return [m["text"] for m in self.read(gid, token)["messages"]]

    def stored(self, gid):
        return db_query(self.d.db, "SELECT from_seat, to_seat, text FROM messages WHERE game_id = ? ORDER BY seq",
                        (gid,))

    def version(self, gid):
        return db_query(self.d.db, "SELECT version FROM games WHERE id = ?", (gid,))[0][0]

    def page(self, gid, token=None):
        r = self.d.get(f"/games/{gid}" + (f"?seat={token}" if token else ""))
        self.assertEqual(r.status, 200, r)
        return r.text

    def test_who_reads_what(self):
        gid, tok = four(self.d)
        other_gid, other_tok = four(self.d)
        everyone = self.send(gid, tok["North"], "Hello all\nsecond line <b>&amp;</b>")
        self.assertEqual(everyone["from"], "North")
        self.assertIsNone(everyone["to"])
        self.assertEqual(everyone["text"], "Hello all\nsecond line <b>&amp;</b>")
        self.assertEqual(everyone["channel"], "api")
        private = self.send(gid, tok["East"], "Ally with me, South", to="south")
        self.assertEqual(private["to"], "South")
        self.assertGreater(private["seq"], everyone["seq"])
        secret = "Ally with me, South"
        self.assertEqual(self.texts(gid, tok["North"]), [everyone["text"]])
        self.assertEqual(self.texts(gid, tok["West"]), [everyone["text"]])
        self.assertEqual(self.texts(gid, tok["East"]), [everyone["text"], secret])
        self.assertEqual(self.texts(gid, tok["South"]), [everyone["text"], secret])
        # Spectators: no token is refused, another game's token too; the game's own views show none.
        self.assertError(self.d.get(f"/api/games/{gid}/messages"), 401, "unauthorized")
        r = self.d.get(f"/api/games/{gid}/messages", token=other_tok["North"])
        self.assertIn(r.status, (401, 403), r)
        for token in (None, tok["North"], tok["West"]):
            for path in (f"/api/games/{gid}", f"/api/games/{gid}/moves", f"/api/games/{gid}/dice",
                         f"/api/games/{gid}/record", f"/games/{gid}/moves", f"/api/games/{gid}/messages"):
                self.assertNotIn("Ally with me", self.d.get(path, token=token).text, (path, token))
        # The page: each seat sees its own, escaped with its lines kept; the public page none.
        shown = html.escape("second line <b>&amp;</b>", quote=False)
        for seat in ("North", "East", "South", "West"):
            text = self.page(gid, tok[seat])
            self.assertIn("Hello all", text, seat)
            self.assertIn(shown, text, seat)
            self.assertIn("Hello all\nsecond line", text, "line breaks kept")
            self.assertNotIn("<b>&amp;</b>", text, seat)
            self.assertEqual("Ally with me" in text, seat in ("East", "South"), seat)
        public = self.page(gid)
        self.assertNotIn("Hello all", public)
        self.assertNotIn("Ally with me", public)
        self.assertNotIn('name="text"', public, "no message box for spectators")
        self.assertEqual(self.texts(other_gid, other_tok["North"]), [])

    def test_pages_and_version(self):
        gid, tok, _ = self.d.create_game()
        v0 = self.version(gid)
        etag = self.d.get(f"/api/games/{gid}", token=tok["North"]).header("ETag")
        sent = [self.send(gid, tok["South" if i % 2 else "North"], f"note {i}") for i in range(5)]
        self.assertGreater(self.version(gid), v0)
        self.assertNotEqual(self.d.get(f"/api/games/{gid}", token=tok["North"]).header("ETag"), etag)
        g = self.d.game(gid)
        self.assertEqual((g["ply"], g["status"]), (0, "running"), "a message changes nothing else")
        p1 = self.read(gid, tok["North"], "?limit=2")
        self.assertEqual([m["text"] for m in p1["messages"]], ["note 0", "note 1"])
        self.assertEqual(p1["next"], sent[2]["seq"])
        p2 = self.read(gid, tok["North"], f"?from={p1['next']}&limit=3")
        self.assertEqual([m["text"] for m in p2["messages"]], ["note 2", "note 3", "note 4"])
        self.assertIsNone(p2["next"])
        self.assertError(self.d.get(f"/api/games/{gid}/messages?limit=0", token=tok["North"]), 400, "bad_request")

    def test_with_a_move(self):
        gid, tok, _ = self.d.create_game()
        move = self.d.game(gid, tok["South"])["legal_moves"][0]
        r = self.d.post(f"/api/games/{gid}/moves", {"move": move, "ply": 0, "message": "Your move, friend."},
                        token=tok["South"])
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["message"]["text"], "Your move, friend.")
        self.assertEqual(r.json()["game"]["ply"], 1)
        self.assertEqual(self.texts(gid, tok["North"]), ["Your move, friend."])
        # A refused move stores no message; a refused message refuses the move.
        r = self.d.post(f"/api/games/{gid}/moves", {"move": move, "ply": 1, "message": "not stored"},
                        token=tok["South"])
        self.assertError(r, 403, "not_your_turn")
        nmove = self.d.game(gid, tok["North"])["legal_moves"][0]
        r = self.d.post(f"/api/games/{gid}/moves", {"move": nmove, "ply": 1, "message": "bad\x07bell"},
                        token=tok["North"])
        self.assertError(r, 422, "bad_message")
        self.assertEqual(self.d.game(gid)["ply"], 1, "the move was not played")
        r = self.d.post(f"/api/games/{gid}/moves", {"move": nmove, "ply": 1,
                                                    "message": {"text": "to you", "to": "South"}},
                        token=tok["North"])
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["message"]["to"], "South")
        r = self.d.post(f"/api/games/{gid}/moves", {"move": "x", "ply": 2, "message": 5}, token=tok["South"])
        self.assertError(r, 400, "bad_request")
        self.assertEqual([t for _, _, t in self.stored(gid)], ["Your move, friend.", "to you"])

    def test_bad_input_stores_nothing(self):
        gid, tok = four(self.d)
        v0 = self.version(gid)
        n, b = LIMITS["LIMIT_MESSAGE_CHARS"], LIMITS["LIMIT_MESSAGE_BYTES"]
        url = f"/api/games/{gid}/messages"
        cases = [
            ({"text": ""}, 422, "bad_message"),
            ({"text": " \n \r\n"}, 422, "bad_message"),
            ({"text": "tab\there"}, 422, "bad_message"),
            ({"text": "bell\x07"}, 422, "bad_message"),
            ({"text": "del\x7f"}, 422, "bad_message"),
            ({"text": "c1\x85"}, 422, "bad_message"),
            ({"text": "bidi \u202e reversed"}, 422, "bad_message"),
            ({"text": "line\u2028separator"}, 422, "bad_message"),
            ({"text": "lone\rreturn"}, 422, "bad_message"),
            ({"text": "hi", "to": "Nobody"}, 422, "bad_message"),
            ({"text": "hi", "to": "North"}, 422, "bad_message"),
            ({"text": "x" * (n + 1)}, 413, "too_large"),
            ({"text": "\u00e9" * (b // 2 + 1)}, 413, "too_large"),
            ({"text": "\U0001F600" * (b // 4 + 1)}, 413, "too_large"),
            ({"text": 5}, 400, "bad_request"),
            ({"text": "hi", "to": 3}, 400, "bad_request"),
            ({"text": "hi", "extra": 1}, 400, "bad_request"),
            ({}, 400, "bad_request"),
        ]
        for body, status, code in cases:
            with self.subTest(body=str(body)[:60]):
                self.assertError(self.d.post(url, body, token=tok["North"]), status, code)
        self.assertError(self.d.post(url, {"text": "hi"}), 401, "unauthorized")
        self.assertError(self.d.post(url, {"text": "hi"}, token="x" * 32), 401, "unauthorized")
        self.assertEqual(self.stored(gid), [])
        self.assertEqual(self.version(gid), v0)
        # At the limits exactly: kept (the text trimmed of blank space around it).
        self.send(gid, tok["North"], "x" * n)
        self.send(gid, tok["North"], "\u00e9" * (b // 2))
        self.assertEqual(self.send(gid, tok["North"], "\r\n  two\r\nlines \n")["text"], "two\nlines")

    def test_rate(self):
        gid, tok, _ = self.d.create_game()
        per_hour = LIMITS["LIMIT_MESSAGES_PER_SEAT_HOUR"]
        for i in range(per_hour):
            self.send(gid, tok["North"], f"m{i}")
        r = self.d.post(f"/api/games/{gid}/messages", {"text": "one too many"}, token=tok["North"])
        self.assertError(r, 429, "rate_limited")
        move = self.d.game(gid, tok["South"])["legal_moves"][0]
        self.send(gid, tok["South"], "the other seat still may")
        self.assertEqual(len(self.stored(gid)), per_hour + 1)
        self.assertNotIn("one too many", self.texts(gid, tok["South"]))
        self.assertEqual(self.d.move(gid, tok["South"], move, 0).status, 201)

    def test_page_form(self):
        gid, tok = four(self.d)
        page = f"/games/{gid}?seat={tok['West']}"
        text = self.page(gid, tok["West"])
        self.assertIn(f'action="/games/{gid}/messages"', text)
        choices = re.findall(r'<select id="message-to" name="to">(.*?)</select>', text)[0]
        self.assertEqual(re.findall(r'value="([^"]*)"', choices), ["", "North", "East", "South"])
        r = self.d.post_page_form(f"/games/{gid}/messages", {"seat": tok["West"], "text": "From the page\r\nbye",
                                                             "to": ""}, page=page)
        self.assertEqual(r.status, 303, r)
        self.assertEqual(r.header("Location"), page)
        r = self.d.post_page_form(f"/games/{gid}/messages", {"seat": tok["West"], "text": "East only",
                                                             "to": "East"}, page=page)
        self.assertEqual(r.status, 303, r)
        got = self.read(gid, tok["East"])["messages"]
        self.assertEqual([(m["text"], m["to"], m["channel"]) for m in got],
                         [("From the page\nbye", None, "web"), ("East only", "East", "web")])
        self.assertEqual(self.texts(gid, tok["North"]), ["From the page\nbye"])
        # Refusals: the page again with the reason, nothing stored.
        r = self.d.post_page_form(f"/games/{gid}/messages", {"seat": tok["West"], "text": "  ", "to": ""}, page=page)
        self.assertEqual(r.status, 422, r)
        self.assertIn("a message needs some text", r.text)
        r = self.d.post_page_form(f"/games/{gid}/messages", {"seat": tok["West"], "text": "x", "to": "West"},
                                  page=page)
        self.assertEqual(r.status, 422, r)
        fields, headers = self.d.page_form(page)
        r = self.d.post_form(f"/games/{gid}/messages", {"seat": tok["West"], "text": "forged", "csrf": "0" * 64},
                             headers=headers)
        self.assertEqual(r.status, 403, r)
        r = self.d.post_form(f"/games/{gid}/messages", {"text": "spectator", "csrf": fields["csrf"]},
                             headers=headers)
        self.assertEqual(r.status, 401, r)
        self.assertEqual(len(self.stored(gid)), 2)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
