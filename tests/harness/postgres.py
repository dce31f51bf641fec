"""harness.postgres - a private PostgreSQL server for one test: initdb in a temporary directory,
listening on 127.0.0.1 only, on a free port, its Unix socket in that directory, with a role and a
database for Rookery; stopped (fast shutdown) and its directory removed when the test ends,
however it ends.

PostgreSQL refuses to run as root: when the tests run as root the server runs as the
unprivileged user NOBODY, who owns the directory. The server's programs are Debian's
(package postgresql, /usr/lib/postgresql/<major>/bin), the newest major version installed, else
whatever initdb is on the PATH.

    with postgres.Postgres() as pg:                 # or pg = postgres.private(self) in a TestCase
        rookery serve --db pg.uri                   # postgresql://rookery@127.0.0.1:PORT/rookery
        pg.psql("SELECT 1")                         # psql as the owner of the database

Python standard library only.
"""
import atexit
import glob
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile

from harness.daemon import free_port

NOBODY = "nobody"            # who runs the server when the tests run as root
ROLE = "rookery"             # the role the daemon connects as, owner of DATABASE
DATABASE = "rookery"
ADMIN = "postgres"           # the server's superuser, for the harness only
START_TIMEOUT = 60           # seconds (pg_ctl -w -t)
START_TRIES = 3              # another free port when the first was taken in between

_running = set()             # servers to stop if the test process ends early (a timeout's SIGTERM),
                             # from the making of their directory to their stop()


def bindir():
    """Where initdb, pg_ctl and psql are: Debian's directory of the newest major version
    installed, else the directory of the initdb on the PATH; fails when there is none."""
    def major(path):
        m = re.search(r"/postgresql/(\d+)/bin/initdb$", path)
        return int(m.group(1)) if m else -1
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=major)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(initdb)
    raise AssertionError("no PostgreSQL server programs (initdb): install Debian's postgresql "
                         "(sh scripts/deps.sh test)")


class Postgres:
    """One private PostgreSQL server. fsync stays on unless fsync=False: a test that kills a
    process and counts what survived needs every commit on disk."""

    def __init__(self, fsync=True):
        self.fsync = fsync
        self.bin = bindir()
        self.dir = None
        self.port = None
        self.proc_user = None       # (uid, gid) the server runs as when we are root, else None

    # ---- the server ----

    @property
    def data(self):
        return os.path.join(self.dir, "data")

    @property
    def log(self):
        return os.path.join(self.dir, "server.log")

    @property
    def uri(self):
        """The libpq connection URI for the daemon's --db."""
        return f"postgresql://{ROLE}@127.0.0.1:{self.port}/{DATABASE}"

    def admin_uri(self, database="postgres"):
        return f"postgresql://{ADMIN}@127.0.0.1:{self.port}/{database}"

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="rookery-pg-")
        _running.add(self)          # from now on: pg_ctl may leave a server even when it fails
        try:
            if os.geteuid() == 0:
                pw = pwd.getpwnam(NOBODY)
                self.proc_user = (pw.pw_uid, pw.pw_gid)
                os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            # C locale: text sorts by bytes and lower() folds ASCII only, as SQLite's BINARY and
            # NOCASE do (the schema also says COLLATE "C" on its columns). No sync for initdb's
            # own files: a lost cluster is remade by the next test; the server itself syncs.
            self._run(["initdb", "-D", self.data, "-U", ADMIN, "--auth=trust", "--locale=C",
                       "--encoding=UTF8", "--no-sync"])
            for attempt in range(START_TRIES):
                self.port = free_port()
                options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} "
                           f"-c fsync={'on' if self.fsync else 'off'} -c synchronous_commit=on")
                r = self._run(["pg_ctl", "-D", self.data, "-l", self.log, "-o", options,
                               "-w", "-t", str(START_TIMEOUT), "start"], check=False)
                if r.returncode == 0:
                    break
                if attempt == START_TRIES - 1 or "already in use" not in self.server_log():
                    raise AssertionError(f"PostgreSQL did not start ({r.returncode}):\n{r.stdout}\n"
                                         f"{self.server_log()[-3000:]}")
            self.psql(f"CREATE ROLE {ROLE} LOGIN", uri=self.admin_uri())
            self.psql(f"CREATE DATABASE {DATABASE} OWNER {ROLE}", uri=self.admin_uri())
        except BaseException:
            self.stop()
            raise
        return self

    def restart(self):
        """Stop the server (fast: every session ends, as in a crash of the primary seen from its
        clients) and start it again on the same port with the same data."""
        r = self._run(["pg_ctl", "-D", self.data, "-l", self.log, "-m", "fast", "-w", "-t",
                       str(START_TIMEOUT), "restart"], check=False)
        if r.returncode != 0:
            raise AssertionError(f"PostgreSQL did not restart ({r.returncode}):\n{r.stdout}\n"
                                 f"{self.server_log()[-3000:]}")

    def stop(self):
        """Fast shutdown (sessions ended, no waiting for clients), then the directory goes.
        Safe to call twice, or after a start that failed."""
        _running.discard(self)
        if self.dir is None:
            return
        try:
            if os.path.exists(os.path.join(self.data, "postmaster.pid")):
                self._run(["pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", str(START_TIMEOUT),
                           "stop"], check=False)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def server_log(self):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- SQL ----

    def create_database(self, name):
        """Another empty database owned by ROLE; its URI."""
        self.psql(f"CREATE DATABASE {name} OWNER {ROLE}", uri=self.admin_uri())
        return self.uri.rsplit("/", 1)[0] + "/" + name

    def psql(self, sql=None, uri=None, file=None, single_transaction=False):
        """Run sql (a statement, or a list of them run in turn in one session), or the file, with
        psql, stopping at the first error, on uri (the Rookery database as ROLE by default);
        returns the unaligned, tuples-only output. A failure raises AssertionError with what
        psql said."""
        args = [os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "-d", uri or self.uri]
        if single_transaction:
            args.append("-1")
        if file:
            args += ["-f", file]
        else:
            for statement in [sql] if isinstance(sql, str) else sql:
                args += ["-c", statement]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise AssertionError(f"psql failed ({r.returncode}) on {file or str(sql)[:300]}:\n{r.stderr}")
        return r.stdout

    # ---- the programs, as the server's user ----

    def _run(self, argv, check=True):
        """One of the server's programs, as NOBODY when we are root; output captured."""
        argv = [os.path.join(self.bin, argv[0])] + argv[1:]
        if self.proc_user:
            uid, gid = self.proc_user
            argv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"] + argv
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=self.dir,
                           timeout=START_TIMEOUT + 30)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}")
        return r


def private(case, fsync=True):
    """A private PostgreSQL for a unittest TestCase (in a test or in setUp), stopped by its
    cleanup; in setUpClass pass the class, whose class cleanup stops it."""
    pg = Postgres(fsync=fsync).start()
    if isinstance(case, type):
        case.addClassCleanup(pg.stop)
    else:
        case.addCleanup(pg.stop)
    return pg


def _stop_all():
    for pg in list(_running):
        pg.stop()


def _on_sigterm(signum, frame):
    """A test ended by its runner's SIGTERM (a timeout) stops its servers first, then dies of it."""
    _stop_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


atexit.register(_stop_all)
if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, _on_sigterm)
