#!/usr/bin/env python3
"""my_games.py - black-box tests of "my games": sign-in links by mail, confirm pages, fresh seat links.

usage: my_games.py path/to/rookery
Mails go to the maildir beside the test database (no SMTP server is configured).
"""
import email
import email.policy
import glob
import os
import re
import sqlite3
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blackbox  # noqa: E402  (the daemon harness and HTTP helpers)


class MailboxCase(blackbox.DaemonCase):
    """A daemon whose mails land in the maildir beside its database."""

    daemon_args = ("--reply-domain", "rook.test")

    def maildir_messages(self):
        out = []
        for path in sorted(glob.glob(os.path.join(self.d.workdir, "mail", "new", "*"))):
            with open(path, "rb") as f:
                out.append(email.message_from_bytes(f.read(), policy=email.policy.default))
        return out

    def signin_mails(self, address):
        return [m for m in self.maildir_messages()
                if m["Subject"] == "[Rookery] Your games"
                and m["To"].addresses[0].addr_spec.lower() == address.lower()]

    def wait_for_signin(self, address, count=1, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.signin_mails(address)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        self.fail(f"no sign-in mail for {address}")

    def count(self, table):
        conn = sqlite3.connect(f"file:{self.d.db}?mode=ro", uri=True)
        try:
            return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        finally:
            conn.close()


class MyGamesTests(MailboxCase):
    def test_signin_lists_games_with_fresh_links(self):
        g1, t1, _ = self.d.create_game(("Ann", "Ben"), ("ann@players.test", "ben@players.test"))
        g2, t2, _ = self.d.create_game(("Cleo", "Ann"), ("cleo@players.test", "Ann@Players.test"))
        # In g1 Ann (South) is to move; in g2 she plays North and waits. g3 is over.
        g3, t3, _ = self.d.create_game(("Ann", "Dan"), ("ann@players.test", None))
        self.assertEqual(self.d.post(f"/api/games/{g3}/resign", {}, token=t3["North"]).status, 200)

        r = self.d.post_form("/me", {"email": "ann@players.test"})
        self.assertEqual(r.status, 200, r)
        self.assertIn("on its way", r.text)
        mail = self.wait_for_signin("ann@players.test")[0]
        body = mail.get_body(("plain",)).get_content()
        link = re.search(r"(http://\S+/me/([A-Za-z0-9_-]+))", body)
        self.assertIsNotNone(link, body)
        path = "/me/" + link.group(2)

        # Opening the link (as a mail scanner would) changes nothing.
        links_before = self.count("seat_links")
        page = self.d.get(path)
        self.assertEqual(page.status, 200, page)
        self.assertIn("ann@players.test", page.text)
        self.assertIn(f'action="{path}"', page.text)
        self.assertEqual(self.count("seat_links"), links_before)

        listing = self.d.post_form(path, "")
        self.assertEqual(listing.status, 200, listing)
        text = listing.text
        self.assertNotIn("ben@players.test", text)
        self.assertNotIn("cleo@players.test", text)
        mine = re.findall(r'href="/games/([a-z0-9]+)\?seat=([A-Za-z0-9_-]+)"', text)
        self.assertEqual(sorted(g for g, _ in mine), sorted([g1, g2, g3]))
        # The game to move in is listed first, under "Your move".
        self.assertLess(text.index("Your move"), text.index(g1))
        self.assertLess(text.index(g1), text.index("Waiting for the others"))
        self.assertLess(text.index("Waiting for the others"), text.index(g2))
        self.assertLess(text.index("Finished"), text.index(g3))
        self.assertEqual(self.count("seat_links"), links_before + 3)
        # Each fresh link opens its seat, and is not the original token.
        fresh = dict(mine)
        self.assertNotEqual(fresh[g1], t1["South"])
        self.assertIn("Your move", self.d.get(f"/games/{g1}?seat={fresh[g1]}").text)
        r = self.d.get(f"/api/games/{g2}", token=fresh[g2])
        self.assertEqual(r.json()["seat"], "North")
        self.d.secrets.update(fresh.values())

    def test_unknown_address_gets_the_same_answer_and_no_mail(self):
        r = self.d.post_form("/me", {"email": "nobody@players.test"})
        self.assertEqual(r.status, 200, r)
        self.assertIn("on its way", r.text)
        time.sleep(2.5)
        self.assertEqual(self.signin_mails("nobody@players.test"), [])


    def test_bad_input(self):
        self.assertEqual(self.d.post_form("/me", {"email": "not an address"}).status, 400)
        self.assertEqual(self.d.post_form("/me", {"email": "a@b.test"}, origin="http://evil.example").status, 403)
        self.assertEqual(self.d.get("/me/" + "A" * 32).status, 404)
        self.assertEqual(self.d.post_form("/me/" + "A" * 32, "").status, 404)
        self.assertEqual(self.d.get("/me/short").status, 404)
        self.assertEqual(self.d.get("/me").status, 200)


class RateLimitTests(MailboxCase):
    """A daemon of its own: the limits count per client address too."""

    def test_rate_limit_per_address(self):
        self.d.create_game(("Eve", "Fay"), ("eve@players.test", None))
        statuses = [self.d.post_form("/me", {"email": addr}).status
                    for addr in ("eve@players.test", "EVE@players.test", "eve@players.test", "eve@players.test")]
        self.assertEqual(statuses, [200, 200, 200, 429])
        limited = self.d.post_form("/me", {"email": "eve@players.test"})
        self.assertEqual((limited.status, limited.header("Retry-After")), (429, "3600"))
        # The limit answers the same for an address that plays nothing here.
        statuses = [self.d.post_form("/me", {"email": "ghost@players.test"}).status for _ in range(4)]
        self.assertEqual(statuses, [200, 200, 200, 429])
        self.assertEqual(len(self.wait_for_signin("eve@players.test", 3)), 3)

    def test_rate_limit_per_client(self):
        statuses = [self.d.post_form("/me", {"email": f"p{i}@players.test"}).status for i in range(11)]
        # Eight requests of the test above may have come first from this client: ten an hour in all.
        self.assertIn(429, statuses)
        self.assertEqual(statuses[-1], 429)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        blackbox.ROOKERY = os.path.abspath(sys.argv.pop(1))
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)
