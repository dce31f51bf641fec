#!/usr/bin/env python3
"""migrate.py - a PostgreSQL database made, upgraded and refused as a SQLite one is.

usage: python3 tests/postgresql/migrate.py PATH-TO-ROOKERY [unittest options]

`rookery migrate --db postgresql://...` creates the schema once and then finds nothing to do;
daemons started together on an empty database migrate it once between them and all serve; a
database whose schema is newer than the binary is refused by migrate and serve alike and left
untouched; a database that cannot be reached is a clear error; a password in the URI never
reaches the output or the log.
"""
import os
import re
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import daemon, postgres  # noqa: E402
from harness.daemon import Daemon, run_rookery  # noqa: E402

EXIT_DB_NEWER = 2      # service/daemon/main.c
SECRET = "s3cret-Pass"


def migrations():
    folder = os.path.join(daemon.REPO, "migrations")
    return len([f for f in os.listdir(folder) if re.match(r"\d{4}_.*\.sql$", f)])


class Migrate(unittest.TestCase):

    def setUp(self):
        self.pg = postgres.private(self)

    def version(self, uri=None):
        return int(self.pg.psql("SELECT version FROM rookery_schema_version", uri=uri))

    def test_migrate_creates_then_finds_nothing_to_do(self):
        for _ in range(2):
            r = run_rookery("migrate", "--db", self.pg.uri)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"schema version {migrations()}", r.stdout)
        self.assertEqual(self.version(), migrations())
        tables = self.pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        self.assertGreater(int(tables), 10)

    def test_daemons_started_together_migrate_once(self):
        uri = self.pg.create_database("together")
        ds = [Daemon("--sockets", os.path.join(self.pg.dir, f"d{i}"), db=uri,
                     workdir=os.path.join(self.pg.dir, f"w{i}")) for i in range(3)]
        for d in ds:
            os.makedirs(d.workdir, exist_ok=True)
            self.addCleanup(d.cleanup)
        errors = []

        def start(d):
            try:
                d.start()
            except AssertionError as e:
                errors.append(e)
        threads = [threading.Thread(target=start, args=(d,)) for d in ds]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual(errors, [])
        self.assertEqual(self.version(uri), migrations())
        # One key for all: a form one daemon served is taken by the others.
        fields, headers = ds[0].page_form("/new/nchess")
        for d in ds[1:]:
            r = d.post_form("/games", {"variant": "nchess", "name0": "Ann", "name1": "Ben", **fields},
                            headers=headers)
            self.assertEqual(r.status, 201, r)
        for d in ds:
            d.stop()

    def test_a_newer_schema_is_refused_and_left_alone(self):
        self.assertEqual(run_rookery("migrate", "--db", self.pg.uri).returncode, 0)
        self.pg.psql("UPDATE rookery_schema_version SET version = 999")
        before = self.pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        r = run_rookery("migrate", "--db", self.pg.uri)
        self.assertEqual(r.returncode, EXIT_DB_NEWER, r.stderr)
        self.assertIn("schema version 999", r.stderr)
        r = run_rookery("serve", "--port", "0", "--db", self.pg.uri, "--sockets",
                        os.path.join(self.pg.dir, "newer"))
        self.assertEqual(r.returncode, EXIT_DB_NEWER, r.stderr)
        self.assertEqual(self.version(), 999, "the database was touched")
        self.assertEqual(self.pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), before)

    def test_an_unreachable_database_is_a_clear_error(self):
        port = daemon.free_port()
        r = run_rookery("migrate", "--db", f"postgresql://rookery@127.0.0.1:{port}/rookery")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cannot connect to the database", r.stderr)
        r = run_rookery("migrate", "--db", "postgresql://rookery@127.0.0.1:1x/rookery")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cannot connect to the database", r.stderr)

    def test_a_uri_of_several_hosts_finds_the_one_that_writes(self):
        # A primary gone and its promoted standby, as docs/operations.md writes the URI.
        dead = daemon.free_port()
        uri = (f"postgresql://rookery@127.0.0.1:{dead},127.0.0.1:{self.pg.port}/rookery"
               "?target_session_attrs=read-write&connect_timeout=5")
        r = run_rookery("migrate", "--db", uri)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"postgresql://rookery@127.0.0.1:{dead},127.0.0.1:{self.pg.port}/rookery: schema version",
                      r.stdout)

    def test_a_password_in_the_uri_is_never_shown(self):
        self.pg.psql(f"ALTER ROLE rookery PASSWORD '{SECRET}'", uri=self.pg.admin_uri())
        uri = self.pg.uri.replace("rookery@", f"rookery:{SECRET}@", 1)
        r = run_rookery("migrate", "--db", uri)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(SECRET, r.stdout + r.stderr)
        self.assertIn("postgresql://rookery@127.0.0.1:", r.stdout)
        d = Daemon("--sockets", os.path.join(self.pg.dir, "pw"), db=uri, workdir=self.pg.dir)
        self.addCleanup(d.kill)
        d.start()
        d.create_game()
        log = d.stop()
        self.assertIn("database postgresql://rookery@127.0.0.1:", log)
        self.assertNotIn(SECRET, log + d.read_stdout())


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
