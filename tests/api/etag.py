#!/usr/bin/env python3
"""etag.py - cheap repeated reads: entity tags, 304 Not Modified and the cache of rendered views.

usage: python3 tests/api/etag.py PATH-TO-ROOKERY [unittest options]

GET /api/games/{id}, /moves and /dice against the real daemon:
- each answer carries an ETag and Cache-Control no-cache (private for a seat token's answer);
  If-None-Match naming it (alone, in a list, weak, or "*") gets 304 with no body and the same tag;
- every move, draw offer, answer and resignation gives new tags and the game's "version" grows;
- the public and each seat have tags and bodies of their own: a seat's tag sent without its
  token (or with another seat's) gets that requester's own body, never the seat's;
- pages of /moves and /dice have a tag each; a running clock's tag changes with its time left;
- a daemon with --view-cache 0 answers the same bodies; a small cache evicts and still answers right.

Python standard library only.
"""
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.nchess import OPENING, SHUFFLE  # noqa: E402

TAG = re.compile(r'^"[^"]+"$')
SEATS = ("South", "North")


def without_clock(game):
    return {k: v for k, v in game.items() if k != "clock"}


class EtagCase(daemon.DaemonCase):

    def get(self, path, token=None, tag=None):
        return self.d.get(path, token=token, headers={"If-None-Match": tag} if tag else None)

    def assertFull(self, r, personal=False):
        """r is a full 200 answer that caches may keep and must revalidate; returns its tag."""
        self.assertEqual(r.status, 200, r)
        tag = r.header("ETag")
        self.assertTrue(tag and TAG.match(tag), r.headers)
        self.assertEqual(r.header("Cache-Control"), "private, no-cache" if personal else "no-cache")
        self.assertEqual(r.header("Vary"), "Authorization")
        return tag

    def assertNotModified(self, r, tag, personal=False):
        self.assertEqual(r.status, 304, r)
        self.assertEqual(r.body, b"")
        self.assertEqual(r.header("ETag"), tag)
        self.assertEqual(r.header("Cache-Control"), "private, no-cache" if personal else "no-cache")

    def views(self, gid, tokens):
        """{viewer: (tag, body)} for the public and each seat."""
        out = {}
        for viewer in (None,) + SEATS:
            r = self.get(f"/api/games/{gid}", token=tokens[viewer] if viewer else None)
            out[viewer] = (self.assertFull(r, personal=viewer is not None), r.json())
        return out


class TagTests(EtagCase):

    def test_tag_and_not_modified(self):
        gid, tokens, _ = self.d.create_game()
        r = self.get(f"/api/games/{gid}")
        tag = self.assertFull(r)
        body = r.json()
        self.assertIsInstance(body["version"], int)
        for sent in (tag, f'"elsewhere", {tag}', f'W/"x",W/{tag}', f"W/{tag}", "*", f" {tag} ,\t\"y\""):
            with self.subTest(if_none_match=sent):
                self.assertNotModified(self.get(f"/api/games/{gid}", tag=sent), tag)
        for sent in ('"elsewhere"', tag[:-2] + '"', tag.strip('"'), "W/", ""):
            with self.subTest(if_none_match=sent):
                r2 = self.get(f"/api/games/{gid}", tag=sent)
                self.assertEqual(self.assertFull(r2), tag)
                self.assertEqual(r2.json(), body)
        # A seat's token answers privately, and the 304 says so too.
        r = self.get(f"/api/games/{gid}", token=tokens["South"])
        stag = self.assertFull(r, personal=True)
        self.assertNotModified(self.get(f"/api/games/{gid}", token=tokens["South"], tag=stag), stag, personal=True)
        # What is not there is not there, whatever the client holds; errors are never kept.
        r = self.get("/api/games/nosuchgame", tag="*")
        self.assertEqual(r.status, 404, r)
        self.assertIsNone(r.header("ETag"))
        self.assertEqual(r.header("Cache-Control"), "no-store")
        # Other answers stay unkept.
        self.assertEqual(self.d.get("/api/variants").header("Cache-Control"), "no-store")
        self.assertEqual(self.d.get(f"/games/{gid}").header("Cache-Control"), "no-store")

    def test_every_change_gives_new_tags(self):
        gid, tokens, _ = self.d.create_game()
        seen, versions = set(), []

        def look(what):
            v = self.views(gid, tokens)
            for viewer, (tag, body) in v.items():
                self.assertNotIn(tag, seen, (what, viewer))
                seen.add(tag)
                self.assertEqual(body["version"], v[None][1]["version"])
            versions.append(v[None][1]["version"])
            return v

        old = look("created")
        for ply, move in enumerate(OPENING):
            seat = SEATS[ply % 2]
            r = self.d.move(gid, tokens[seat], move, ply)
            self.assertEqual(r.status, 201, r)
            new = look(move)
            # The change's own answer is the view a GET gives next.
            self.assertEqual(without_clock(r.json()["game"]), without_clock(new[seat][1]))
            # A tag of before is answered in full.
            for viewer in (None,) + SEATS:
                r2 = self.get(f"/api/games/{gid}", token=tokens[viewer] if viewer else None, tag=old[viewer][0])
                self.assertEqual(r2.status, 200, (move, viewer))
                self.assertEqual(r2.json(), new[viewer][1])
            old = new
        for action, seat in (("offer", "South"), ("decline", "North"), ("offer", "North"), ("withdraw", "North")):
            r = self.d.post(f"/api/games/{gid}/draw", {"action": action}, token=tokens[seat])
            self.assertEqual(r.status, 200, r)
            self.assertEqual(without_clock(r.json()), without_clock(look(action)[seat][1]))
        r = self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["North"])
        self.assertEqual(r.status, 200, r)
        self.assertEqual(look("resign")[None][1]["status"], "over")
        self.assertEqual(versions, sorted(set(versions)), "the version grows with every change")

    def test_each_viewer_has_its_own_tag_and_body(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, OPENING[:1])
        for round_ in range(2):     # the first round makes the views, the second has them from the cache
            v = self.views(gid, tokens)
            self.assertEqual(len({tag for tag, _ in v.values()}), 3, v)
            self.assertNotIn("seat", v[None][1])
            self.assertNotIn("legal", v[None][1])
            self.assertEqual(v["South"][1]["seat"], "South")
            self.assertEqual(v["North"][1]["seat"], "North")
            self.assertTrue(v["North"][1]["legal_moves"], "North is to move")
            self.assertEqual(v["South"][1]["legal_moves"], [])
            if round_:
                self.assertEqual(v, first, "the cache answers what was made")
            first = v
        # A seat's tag shown by anyone else gets that one's own body, in full.
        for seat in SEATS:
            tag = v[seat][0]
            r = self.get(f"/api/games/{gid}", tag=tag)
            self.assertEqual(self.assertFull(r), v[None][0])
            self.assertEqual(r.json(), v[None][1])
            other = SEATS[1 - SEATS.index(seat)]
            r = self.get(f"/api/games/{gid}", token=tokens[other], tag=tag)
            self.assertEqual(self.assertFull(r, personal=True), v[other][0])
            self.assertEqual(r.json(), v[other][1])
        # ... and the public's tag sent with a seat's token gets the seat's body.
        r = self.get(f"/api/games/{gid}", token=tokens["North"], tag=v[None][0])
        self.assertEqual(r.json(), v["North"][1])
        # The game page, which takes its view from the same cache, lists a seat's moves only with its link.
        for round_ in range(2):
            self.assertNotIn('<datalist id="legal">', self.d.get(f"/games/{gid}").text)
            seat_page = self.d.get(f"/games/{gid}?seat={tokens['North']}").text
            self.assertIn('<datalist id="legal"><option value="%s">' % v["North"][1]["legal_moves"][0], seat_page)
            self.assertNotIn('<datalist id="legal"><option', self.d.get(f"/games/{gid}?seat={tokens['South']}").text)

    def test_pages_of_moves_and_dice(self):
        gid, tokens, _ = self.d.create_game()
        self.d.play(gid, tokens, SHUFFLE + SHUFFLE)
        for path in (f"/api/games/{gid}/moves", f"/api/games/{gid}/dice"):
            tags = {}
            for query in ("", "?from=0&limit=2", "?from=2&limit=2", "?from=2&limit=3", "?from=4"):
                r = self.get(path + query)
                tags[query] = self.assertFull(r)
                self.assertNotModified(self.get(path + query, tag=tags[query]), tags[query])
            self.assertEqual(len(set(tags.values())), len(tags), tags)
            # Another page's tag gets this page in full.
            r = self.get(path + "?from=2&limit=2", tag=tags["?from=0&limit=2"])
            self.assertEqual(r.status, 200)
            self.assertEqual(r.json()["from"], 2)
            # A bad page is an error, whatever the client holds.
            self.assertEqual(self.get(path + "?limit=0", tag="*").status, 400)
        # A seat's page of moves is its own, and private.
        public = self.get(f"/api/games/{gid}/moves").header("ETag")
        r = self.get(f"/api/games/{gid}/moves", token=tokens["South"])
        south = self.assertFull(r, personal=True)
        self.assertNotEqual(south, public)
        r = self.get(f"/api/games/{gid}/moves", tag=south)
        self.assertEqual(self.assertFull(r), public)
        # A move makes every page new, the pages it does not touch too (the ply count is on each).
        before = {p: self.get(p).header("ETag") for p in (f"/api/games/{gid}/moves?from=0&limit=2",
                                                          f"/api/games/{gid}/dice?from=0&limit=2")}
        self.d.play(gid, tokens, SHUFFLE[:1], first_ply=2 * len(SHUFFLE))
        for p, tag in before.items():
            r = self.get(p, tag=tag)
            self.assertNotEqual(self.assertFull(r), tag, p)


class ClockTagTests(EtagCase):

    def test_running_clock_changes_the_tag(self):
        r = self.d.post("/api/games", {"variant": "nchess", "seats": [{"name": "A"}, {"name": "B"}],
                                       "clock": {"type": "per_move", "days": 1}})
        self.assertEqual(r.status, 201, r)
        gid = r.json()["id"]
        tokens = {s["seat"]: s["token"] for s in r.json()["seats"]}
        self.d.secrets.update(tokens.values())
        samples = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for token in (None, tokens["North"]):
                r = self.get(f"/api/games/{gid}", token=token)
                tag = self.assertFull(r, personal=token is not None)
                left = [s["remaining_s"] for s in r.json()["clock"]["seats"]]
                samples.append((token, tag, left))
            if len({tuple(s[2]) for s in samples}) >= 3:
                break
            time.sleep(0.3)
        times = {tuple(s[2]) for s in samples}
        self.assertGreaterEqual(len(times), 2, "South's clock runs")
        for token, tag, left in samples:
            for token2, tag2, left2 in samples:
                if token == token2:
                    self.assertEqual(tag == tag2, left == left2, (tag, left, tag2, left2))
        # A tag of an earlier second is answered in full, with the time left now.
        old_token, old_tag, old_left = samples[0]
        r = self.get(f"/api/games/{gid}", tag=old_tag)
        self.assertEqual(r.status, 200)
        self.assertLess(r.json()["clock"]["seats"][0]["remaining_s"], old_left[0])
        # Once over, the clocks stand still and so does the tag.
        self.assertEqual(self.d.post(f"/api/games/{gid}/resign", {}, token=tokens["South"]).status, 200)
        tag = self.assertFull(self.get(f"/api/games/{gid}"))
        time.sleep(1.2)
        self.assertNotModified(self.get(f"/api/games/{gid}", tag=tag), tag)


class CacheTests(unittest.TestCase):
    """Daemons of their own: one with the cache and one without on the same database; one with a small cache."""

    def setUp(self):
        self.daemons = []

    def tearDown(self):
        for d in self.daemons:
            d.kill()
        if self.daemons:
            self.daemons[0].cleanup()

    def start(self, *args, db=None, workdir=None):
        d = daemon.Daemon(*args, db=db, workdir=workdir)
        self.daemons.append(d)
        return d.start()

    def all_views(self, d, games):
        out = {}
        for gid, tokens in games:
            for viewer in (None,) + SEATS:
                r = d.get(f"/api/games/{gid}", token=tokens[viewer] if viewer else None)
                self.assertEqual(r.status, 200, r)
                out[gid, viewer] = without_clock(r.json())
            for path in ("moves", "dice"):
                r = d.get(f"/api/games/{gid}/{path}?from=1&limit=3")
                self.assertEqual(r.status, 200, r)
                out[gid, path] = r.json()
        return out

    def test_without_cache_the_same_bodies(self):
        d = self.start()
        games = []
        for n in range(3):
            gid, tokens, _ = d.create_game()
            d.play(gid, tokens, OPENING[:n + 1])
            games.append((gid, tokens))
        self.assertEqual(d.post(f"/api/games/{games[1][0]}/draw", {"action": "offer"},
                                token=games[1][1]["North"]).status, 200)
        warm = self.all_views(d, games)
        self.assertEqual(self.all_views(d, games), warm, "cached views are the views")
        tag = d.get(f"/api/games/{games[0][0]}").header("ETag")
        log = d.stop()
        self.assertRegex(log, r"view cache: [1-9]\d* hits")
        cold_d = self.start("--view-cache", "0", db=d.db, workdir=d.workdir)
        cold = self.all_views(cold_d, games)
        self.assertEqual(cold, warm)
        # Tags hold for a build of the server: another run of the same program (or another
        # daemon of it on a shared database) names a body alike ...
        r = cold_d.get(f"/api/games/{games[0][0]}")
        self.assertEqual(r.header("ETag"), tag)
        self.assertNotModified304(cold_d, f"/api/games/{games[0][0]}", tag)
        log = cold_d.stop()
        self.assertNotIn("view cache:", log)
        # ... and another build (here the same program with one byte more) anew: how it writes
        # a view may have changed.
        other = os.path.join(d.workdir, "rookery-other-build")
        with open(daemon.ROOKERY, "rb") as f, open(other, "wb") as g:
            g.write(f.read() + b"\0")
        os.chmod(other, 0o755)
        built, daemon.ROOKERY = daemon.ROOKERY, other
        try:
            new_d = self.start(db=d.db, workdir=d.workdir)
        finally:
            daemon.ROOKERY = built
        r = new_d.get(f"/api/games/{games[0][0]}")
        self.assertEqual(without_clock(r.json()), warm[games[0][0], None])
        self.assertNotEqual(r.header("ETag"), tag)
        self.assertEqual(new_d.get(f"/api/games/{games[0][0]}", headers={"If-None-Match": tag}).status, 200)
        new_d.stop()

    def assertNotModified304(self, d, path, tag):
        r = d.get(path, headers={"If-None-Match": tag})
        self.assertEqual(r.status, 304, r)
        self.assertEqual(r.body, b"")

    def test_small_cache_evicts_and_answers_right(self):
        d = self.start("--view-cache", "3")
        games = []
        for n in range(6):
            gid, tokens, _ = d.create_game()
            d.play(gid, tokens, OPENING[:n % 4 + 1])
            games.append((gid, tokens))
        first = self.all_views(d, games)
        for gid, tokens in reversed(games):
            for viewer in SEATS + (None,):
                r = d.get(f"/api/games/{gid}", token=tokens[viewer] if viewer else None)
                self.assertEqual(without_clock(r.json()), first[gid, viewer])
        log = d.stop()
        m = re.search(r"view cache: (\d+) hits, (\d+) misses, (\d+) stored, (\d+) evicted; (\d+) views", log)
        self.assertTrue(m, log[-2000:])
        hits, misses, stored, evicted, held = map(int, m.groups())
        self.assertLessEqual(held, 3)
        self.assertGreaterEqual(evicted, stored - 3)
        self.assertGreater(evicted, 0)

    def test_bad_option(self):
        for value in ("-1", "x", str(daemon.LIMITS["LIMIT_VIEW_CACHE_ENTRIES_MAX"] + 1)):
            r = daemon.run_rookery("serve", "--view-cache", value, "--db", "/nonexistent/never/r.db")
            self.assertEqual(r.returncode, 64, (value, r.stderr))
            self.assertIn("--view-cache", r.stderr)


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
