#!/usr/bin/env python3
"""abuse.py - a thousand connections, slow clients and floods of bad requests; honest moves still go through.

usage: abuse.py path/to/rookery

The attackers come from other loopback addresses (127.0.0.2 and up) than the honest player
(127.0.0.1), as they would from other hosts: the per-address connection limit keeps each of them
to its share, the connection timeout ends slow clients, and bad requests are answered and
forgotten. Python standard library only.
"""
import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402

ATTEMPTS = 1000
ATTACKERS = 8          # source addresses 127.0.0.2 .. 127.0.0.9
HONEST_LIMIT_S = 2.0   # an honest move must be answered within this, under attack


class AbuseTests(unittest.TestCase):
    def setUp(self):
        self.d = daemon.Daemon()
        self.addCleanup(self.d.cleanup)
        self.d.start()
        self.socks = []
        self.addCleanup(self.close_all)

    def close_all(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass

    def slow_clients(self):
        """Open ATTEMPTS connections spread over the attackers, each sending half a request line."""
        opened = refused = 0
        for i in range(ATTEMPTS):
            src = f"127.0.0.{2 + i % ATTACKERS}"
            try:
                s = socket.create_connection(("127.0.0.1", self.d.port), timeout=2, source_address=(src, 0))
                s.sendall(b"GET /api/vari")
                self.socks.append(s)
                opened += 1
            except OSError:
                refused += 1
        return opened, refused

    def still_open(self):
        """How many of the slow connections the server has not closed."""
        n = 0
        for s in self.socks:
            s.setblocking(False)
            try:
                n += s.recv(1) != b""
            except BlockingIOError:
                n += 1           # nothing to read and not closed: still held
            except OSError:
                pass
        return n

    def flood(self, stop, counts):
        """Bad requests as fast as one client can send them, from 127.0.0.200."""
        bodies = [b"{", b'{"move": 1, "ply": "x"}', b"\xff\xfe", b"[]" * 5000]
        while not stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", self.d.port), timeout=5,
                                             source_address=("127.0.0.200", 0))
                body = bodies[counts["sent"] % len(bodies)]
                s.sendall(b"POST /api/games/nope/moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Authorization: Bearer xyz\r\nContent-Length: " + str(len(body)).encode() +
                          b"\r\nConnection: close\r\n\r\n" + body)
                answer = s.recv(64)
                s.close()
                counts["sent"] += 1
                if answer.startswith(b"HTTP/1.1 4"):
                    counts["4xx"] += 1
            except OSError:
                counts["errors"] += 1

    def test_honest_moves_go_through_under_attack(self):
        gid, tokens, _ = self.d.create_game()
        opened, refused = self.slow_clients()
        time.sleep(0.5)
        held = self.still_open()
        # Each attacking address keeps its share and no more: the rest are closed at once.
        self.assertLessEqual(held, ATTACKERS * daemon.LIMITS["LIMIT_CONNECTIONS_PER_IP"])
        self.assertGreater(held, 0)
        stop = threading.Event()
        counts = {"sent": 0, "4xx": 0, "errors": 0}
        flooder = threading.Thread(target=self.flood, args=(stop, counts))
        flooder.start()
        time.sleep(1.5)          # the flood is in full swing before the honest player moves
        try:
            ply = 0
            slowest = 0.0
            for seat, move in [("South", "S 7 1 6 1"), ("North", "s 3 1 4 1"), ("South", "S 7 3 6 3"),
                               ("North", "s 3 3 4 3"), ("South", "S 7 5 6 5"), ("North", "s 3 5 4 5")]:
                t0 = time.monotonic()
                r = self.d.move(gid, tokens[seat], move, ply)
                slowest = max(slowest, time.monotonic() - t0)
                self.assertEqual(r.status, 201, r)
                ply += 1
        finally:
            stop.set()
            flooder.join(30)
        self.assertLess(slowest, HONEST_LIMIT_S)
        self.assertGreater(counts["4xx"], 50, counts)
        print(f"\n{opened} slow connections opened, {held} held by the server; {counts['sent']} bad requests answered; "
              f"slowest honest move {slowest * 1000:.0f} ms", file=sys.stderr)
        self.close_all()
        self.d.stop()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
