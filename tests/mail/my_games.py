#!/usr/bin/env python3
"""my_games.py - black-box tests of "my games": sign-in links by mail, confirm pages, fresh seat links.

usage: my_games.py path/to/rookery
Mails go to the maildir beside the test database (no SMTP server is configured).
"""
import http.client
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402


class MailboxCase(daemon.DaemonCase):
    """A daemon whose mails land in the maildir beside its database."""

    daemon_args = ("--reply-domain", "rook.test")

    def maildir_messages(self):
        return self.d.maildir_mails()

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
        return daemon.db_query(self.d.db, f"SELECT COUNT(*) FROM {table}")[0][0]


class MyGamesTests(MailboxCase):
    def test_signin_lists_games_with_fresh_links(self):
        g1, t1, _ = self.d.create_game(("Ann", "Ben"), ("ann@players.test", "ben@players.test"))
        g2, t2, _ = self.d.create_game(("Cleo", "Ann"), ("cleo@players.test", "Ann@Players.test"))
        # In g1 Ann (South) is to move; in g2 she plays North and waits. g3 is over.
        g3, t3, _ = self.d.create_game(("Ann", "Dan"), ("ann@players.test", None))
        self.assertEqual(self.d.post(f"/api/games/{g3}/resign", {}, token=t3["North"]).status, 200)

        # Until Ann acts on her invitation, Rookery sends her no other mail: no sign-in link either.
        r = self.d.post_page_form("/me", {"email": "ann@players.test"}, page="/me")
        self.assertEqual(r.status, 200, r)
        self.assertIn("on its way", r.text, "the answer does not tell whether an address gets mail")
        time.sleep(2.5)
        self.assertEqual(self.signin_mails("ann@players.test"), [])
        self.d.confirm_by_invitation(g1, "ann@players.test")

        r = self.d.post_page_form("/me", {"email": "ann@players.test"}, page="/me")
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

        listing = self.d.post_page_form(path, "", page=path)
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
        r = self.d.post_page_form("/me", {"email": "nobody@players.test"}, page="/me")
        self.assertEqual(r.status, 200, r)
        self.assertIn("on its way", r.text)
        self.assertIn("The link works once, for %d minutes." % (daemon.LIMITS["LIMIT_SIGNIN_TTL_S"] // 60), r.text)
        time.sleep(2.5)
        self.assertEqual(self.signin_mails("nobody@players.test"), [])


    def test_bad_input(self):
        self.assertEqual(self.d.post_page_form("/me", {"email": "not an address"}, page="/me").status, 400)
        self.assertEqual(self.d.post_form("/me", {"email": "a@b.test"}, origin="http://evil.example").status, 403)
        self.assertEqual(self.d.get("/me/" + "A" * 32).status, 404)
        self.assertEqual(self.d.post_form("/me/" + "A" * 32, "").status, 404)
        self.assertEqual(self.d.get("/me/short").status, 404)
        self.assertEqual(self.d.get("/me").status, 200)


class RateLimitTests(MailboxCase):
    """A daemon of its own: the limits count per client address too."""

    def test_rate_limit_per_address(self):
        gid, _, _ = self.d.create_game(("Eve", "Fay"), ("eve@players.test", None))
        self.d.confirm_by_invitation(gid, "eve@players.test")
        statuses = [self.d.post_page_form("/me", {"email": addr}, page="/me").status
                    for addr in ("eve@players.test", "EVE@players.test", "eve@players.test", "eve@players.test")]
        self.assertEqual(statuses, [200, 200, 200, 429])
        limited = self.d.post_page_form("/me", {"email": "eve@players.test"}, page="/me")
        self.assertEqual((limited.status, limited.header("Retry-After")), (429, "3600"))
        # The limit answers the same for an address that plays nothing here.
        statuses = [self.d.post_page_form("/me", {"email": "ghost@players.test"}, page="/me").status for _ in range(4)]
        self.assertEqual(statuses, [200, 200, 200, 429])
        self.assertEqual(len(self.wait_for_signin("eve@players.test", 3)), 3)

    def test_rate_limit_per_client(self):
        statuses = [self.d.post_page_form("/me", {"email": f"p{i}@players.test"}, page="/me").status for i in range(11)]
        # Eight requests of the test above may have come first from this client: ten an hour in all.
        self.assertIn(429, statuses)
        self.assertEqual(statuses[-1], 429)


class InvitationLimitTests(MailboxCase):
    """Games that invite by mail are limited an hour: twenty per email address, thirty per client address."""

    def create(self, emails):
        seats = [{"name": f"P{i}", **({"email": e} if e else {})} for i, e in enumerate(emails)]
        return self.d.post("/api/games", {"variant": "nchess", "seats": seats})

    def invitations_to(self, address):
        return [m for m in self.maildir_messages() if m["To"].addresses[0].addr_spec.lower() == address]

    def test_invitations_limited(self):
        victim = "victim@players.test"
        # Twenty games an hour; a game inviting one address to both seats counts once.
        self.assertEqual(self.create((victim, "VICTIM@players.test")).status, 201)
        for i in range(19):
            self.assertEqual(self.create((victim, None)).status, 201, i)
        games = self.count("games")
        refused = self.create(("Victim@Players.test", "friend@players.test"))
        self.assertEqual((refused.status, refused.json()["error"]["code"], refused.header("Retry-After")),
                         (429, "rate_limited", "3600"))
        # The HTML form is refused the same way, with a page that says why.
        page = self.d.post_page_form("/games", {"variant": "nchess", "name0": "Eve", "email0": victim,
                                                "name1": "Fay"}, origin=self.d.base)
        self.assertEqual(page.status, 429)
        self.assertIn("too many invitations", page.body.decode())
        self.assertEqual(self.count("games"), games, "a refused game was created")
        # Games that mail nobody are not held to the invitation limits.
        self.assertEqual(self.create((None, None)).status, 201)
        # An address hears from Rookery once until its owner acts: of the twenty games only the
        # first one's first seat mailed the victim; the refused game mailed nobody.
        deadline = time.monotonic() + 20
        while not self.invitations_to(victim) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1)
        self.assertEqual(len(self.invitations_to(victim)), 1)
        self.assertEqual(self.invitations_to("friend@players.test"), [])

        # This client has made 22 attempts with addresses this hour (the refused ones count):
        # thirty are allowed, to any addresses, then none.
        statuses = [self.create((f"p{i}@players.test", None)).status for i in range(10)]
        self.assertEqual(statuses, [201] * 8 + [429] * 2)


class ProxyTests(MailboxCase):
    """--proxy 127.0.0.1: behind a reverse proxy, the limits count the client the proxy names."""

    daemon_args = ("--reply-domain", "rook.test", "--proxy", "127.0.0.1")

    def signin(self, forwarded=None, source=None):
        headers = {"X-Forwarded-For": forwarded} if forwarded else {}
        conn = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=10,
                                          source_address=(source, 0) if source else None)
        try:
            return self.d.post_page_form("/me", {"email": f"x{time.monotonic_ns()}@players.test"}, page="/me",
                                         headers=headers, conn=conn).status
        finally:
            conn.close()

    def test_limits_count_the_forwarded_client(self):
        # The proxy appends the address it saw; what the client wrote before it proves nothing.
        statuses = [self.signin(f"198.51.100.{i}, 203.0.113.7") for i in range(11)]
        self.assertEqual(statuses, [200] * 10 + [429])
        self.assertEqual(self.signin("203.0.113.8"), 200)
        self.assertEqual(self.signin(" 2001:DB8::0:1 "), 200)
        # An address written another way is the same client.
        statuses = [self.signin("2001:db8::1") for _ in range(9)]
        self.assertEqual(statuses, [200] * 9)
        self.assertEqual(self.signin("2001:0db8:0:0::1"), 429)
        # Without a usable header the proxy's own address counts.
        statuses = [self.signin(h) for h in (None, "unknown", "203.0.113.9 203.0.113.10", "", "1.2.3.4.5") * 2]
        self.assertEqual(statuses, [200] * 10, statuses)
        self.assertEqual(self.signin(), 429)
        # Anyone else's header is ignored: 127.0.0.2 is not the proxy.
        statuses = [self.signin(f"203.0.113.{20 + i}", source="127.0.0.2") for i in range(11)]
        self.assertEqual(statuses, [200] * 10 + [429])

    def test_proxy_may_open_many_connections(self):
        # Forty connections at once from the proxy: more than one address may open without it.
        conns = [socket.create_connection(("127.0.0.1", self.d.port), timeout=10) for _ in range(40)]
        try:
            for c in conns:
                c.sendall(b"GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            for c in conns:
                self.assertTrue(c.recv(64).startswith(b"HTTP/1.1 200"))
        finally:
            for c in conns:
                c.close()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
