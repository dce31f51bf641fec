"""harness - what the black-box, browser and mail test scripts share; the scripts import only this.

daemon              the rookery daemon under test (Daemon, DaemonCase, LIMITS, main)
pages               a game page parsed as its reader sees it
maildir, smtp       mail: into a maildir, or to an SMTP server in the test's process
clock               a daemon whose clock the test moves
postgres            a private PostgreSQL server for a test
database            a daemon's database on SQLite or PostgreSQL (ROOKERY_TEST_BACKEND), read behind its back
openapi             the API contract held against every answer (docs/openapi.yaml)
cdp                 headless Chromium over the DevTools protocol
clicks, four_tabs   games played by clicking the board, two seats or four
nchess, complex_allegiance, civil_war, conversion_chess
                    a game as the tests play it: scripts, positions, geometry

A script in tests/<kind>/ puts tests/ on sys.path and imports from here:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from harness import daemon
"""
