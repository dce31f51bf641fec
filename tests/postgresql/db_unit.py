#!/usr/bin/env python3
"""db_unit.py - the storage unit tests (tests/unit/test_db.c) on PostgreSQL: the db/ interface
behaves the same over both backends.

usage: python3 tests/postgresql/db_unit.py PATH-TO-test_db

Starts a private PostgreSQL (harness/postgres.py), runs the program with ROOKERY_TEST_DB set to
its URI (the program then runs the tests every backend must pass, each on an emptied database),
and stops the server. Exit status: the program's, or 1 when it ran none.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import postgres  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    with postgres.Postgres() as pg:
        r = subprocess.run([sys.argv[1]], env={**os.environ, "ROOKERY_TEST_DB": pg.uri},
                           capture_output=True, text=True, timeout=240)
    sys.stdout.write(r.stdout + r.stderr)
    ran = re.search(r"(\d+) test\(s\) run", r.stdout + r.stderr)
    if r.returncode == 0 and not (ran and int(ran.group(1)) > 0):
        print("db_unit: the program ran no test on PostgreSQL")
        return 1
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
