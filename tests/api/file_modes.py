#!/usr/bin/env python3
"""file_modes.py - the daemon's files are its owner's only, and backups go through the owner's control socket.

usage: file_modes.py path/to/rookery

Whoever may hand mail in (the MTA's pipe user, through the mail socket) may do nothing else: a
BACKUP line there is not understood and touches no file. `rookery backup` goes through the
control socket `<db>.control.sock` (0600, and the peer's uid must be the daemon's); the copy is
0600 and never replaces, follows or deletes a file it did not make. Everything the daemon makes
(database, WAL, SHM, lock, maildir and mails, control socket) is owner-only; the mail socket is
0660 with the group of --mail-group. The lock keeps a second daemon off the database, whatever
sockets it is given. The test of a foreign peer runs when the test runs as root
(a child process becomes nobody). Python standard library only.
"""
import grp
import shutil
import os
import socket
import sqlite3
import stat
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402

NOBODY = 65534
MAIL_WAIT_S = 30


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def ask(sock_path, line):
    """Send one line to a daemon socket; its one-line answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(daemon.HTTP_TIMEOUT)
        s.connect(sock_path)
        s.sendall(line.encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return data.decode()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def mail_group():
    """A group for --mail-group other than the daemon's own when there is one (root may give any)."""
    own = os.getegid()
    if os.geteuid() == 0:
        others = [g.gr_gid for g in grp.getgrall() if g.gr_gid != own]
    else:
        others = [g for g in os.getgroups() if g != own]
    return others[0] if others else own


class FileModeTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rookery-modes-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        # Everything under data/ is made by the daemon (it creates the directory of the database).
        self.data = os.path.join(self.tmp, "data")
        self.db = os.path.join(self.data, "rookery.db")
        self.out = os.path.join(self.tmp, "backups")
        os.mkdir(self.out)

    def daemon(self, *extra):
        d = daemon.Daemon(*extra, db=self.db, workdir=self.tmp)
        self.addCleanup(d.kill)
        return d.start()

    def backup(self, dest):
        return daemon.run_rookery("backup", "--db", self.db, dest)

    def games_in(self, path):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            self.assertEqual(conn.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            conn.close()

    def test_one_daemon_per_database_whatever_its_sockets(self):
        d = self.daemon()
        gid, _, _ = d.create_game()
        for extra in ((), ("--sockets", os.path.join(self.tmp, "other"))):
            with self.subTest(extra=extra):
                r = daemon.run_rookery("serve", "--port", "0", "--db", self.db, *extra)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("another rookery serve is using", r.stderr)
                self.assertIn("only one may write a database", r.stderr)
        self.assertEqual(d.game(gid)["ply"], 0, "the first daemon serves on")
        d.stop()

    def test_mail_socket_takes_no_backup(self):
        d = self.daemon()
        d.create_game()
        dest = os.path.join(self.out, "stolen.db")
        write(dest + ".part", "not the daemon's to delete")
        for target in (dest, os.path.join(self.out, "other.db")):
            answer = ask(self.db + ".mail.sock", "BACKUP " + target)
            self.assertRegex(answer, r"^70 the request was not understood\n$")
            self.assertFalse(os.path.lexists(target), "the mail socket made a backup")
        self.assertEqual(read(dest + ".part"), "not the daemon's to delete")
        self.assertEqual(sorted(os.listdir(self.out)), ["stolen.db.part"])
        self.assertNotIn("backed up", d.stderr())
        d.stop()

    def test_backup_is_private_and_never_replaces_or_follows(self):
        d = self.daemon()
        d.create_game()
        d.create_game()
        dest = os.path.join(self.out, "copy.db")
        r = self.backup(dest)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(mode(dest), 0o600)
        self.assertEqual(self.games_in(dest), 2)
        self.assertEqual(sorted(os.listdir(self.out)), ["copy.db"], "the backup left something behind")

        # An existing file: refused, untouched.
        before = os.stat(dest)
        r = self.backup(dest)
        self.assertEqual(r.returncode, 74, r.stderr)
        self.assertIn("already exists", r.stderr)
        after = os.stat(dest)
        self.assertEqual((before.st_ino, before.st_mtime_ns, before.st_size),
                         (after.st_ino, after.st_mtime_ns, after.st_size))

        # A symbolic link at dest, to a file or to nowhere yet: refused; link and target unchanged.
        victim = os.path.join(self.tmp, "victim.txt")
        write(victim, "precious")
        nowhere = os.path.join(self.tmp, "nowhere.db")
        for target in (victim, nowhere):
            link = os.path.join(self.out, "link-to-" + os.path.basename(target))
            os.symlink(target, link)
            r = self.backup(link)
            self.assertEqual(r.returncode, 74, r.stderr)
            self.assertEqual(os.readlink(link), target, "the link was replaced")
        self.assertEqual(read(victim), "precious")
        self.assertFalse(os.path.lexists(nowhere))

        # A "<dest>.part" already there, a file or a link: refused and kept, dest not made.
        write(os.path.join(self.out, "second.db.part"), "someone's")
        os.symlink(victim, os.path.join(self.out, "third.db.part"))
        for name in ("second.db", "third.db"):
            r = self.backup(os.path.join(self.out, name))
            self.assertEqual(r.returncode, 74, r.stderr)
            self.assertIn(".part already exists", r.stderr)
            self.assertFalse(os.path.lexists(os.path.join(self.out, name)))
        self.assertEqual(read(os.path.join(self.out, "second.db.part")), "someone's")
        self.assertEqual(os.readlink(os.path.join(self.out, "third.db.part")), victim)
        self.assertEqual(read(victim), "precious")

        # A directory that is a symbolic link: refused, nothing written where it leads.
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.mkdir(elsewhere)
        os.symlink(elsewhere, os.path.join(self.tmp, "trap"))
        r = self.backup(os.path.join(self.tmp, "trap", "copy.db"))
        self.assertEqual(r.returncode, 74, r.stderr)
        self.assertIn("symbolic link", r.stderr)
        self.assertEqual(os.listdir(elsewhere), [])

        # Not understood on the control socket either: anything but BACKUP /PATH.
        self.assertRegex(ask(self.db + ".control.sock", "BACKUP relative.db"), r"^64 ")
        self.assertRegex(ask(self.db + ".control.sock", "MAIL 3 x@y"), r"^64 ")
        d.stop()
        r = self.backup(os.path.join(self.out, "fourth.db"))
        self.assertEqual(r.returncode, 75, r.stderr)

    def test_every_file_is_owner_only(self):
        group = mail_group()
        d = self.daemon("--mail-group", grp.getgrgid(group).gr_name)
        d.create_game(emails=("ann@example.org", "ben@example.org"))
        new = os.path.join(self.data, "mail", "new")
        deadline = time.monotonic() + MAIL_WAIT_S
        while not (os.path.isdir(new) and len(os.listdir(new)) >= 2):
            self.assertLess(time.monotonic(), deadline, "no invitations in the maildir")
            time.sleep(0.05)
        r = self.backup(os.path.join(self.out, "copy.db"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(mode(os.path.join(self.out, "copy.db")), 0o600)

        mail_sock = self.db + ".mail.sock"
        self.assertTrue(stat.S_ISSOCK(os.lstat(mail_sock).st_mode))
        self.assertEqual(mode(mail_sock), 0o660)
        self.assertEqual(os.lstat(mail_sock).st_gid, group)
        seen = set()
        for root, dirs, files in os.walk(self.data):
            self.assertEqual(mode(root), 0o700, root)
            for name in files:
                path = os.path.join(root, name)
                seen.add(os.path.relpath(path, self.data))
                if path != mail_sock:
                    self.assertEqual(mode(path) & 0o077, 0, f"{path} is mode {mode(path):o}")
        for name in ("rookery.db", "rookery.db-wal", "rookery.db-shm", "rookery.db.lock",
                     "rookery.db.control.sock", "rookery.db.mail.sock"):
            self.assertIn(name, seen)
        self.assertEqual(mode(self.db + ".control.sock"), 0o600)
        self.assertGreaterEqual(len([p for p in seen if p.startswith("mail/new/")]), 2)
        for sub in ("mail", "mail/tmp", "mail/new", "mail/cur"):
            self.assertEqual(mode(os.path.join(self.data, sub)), 0o700)
        d.stop()

        # By number too; a group that does not exist is bad usage.
        e = self.daemon("--mail-group", str(group))
        self.assertEqual(os.lstat(mail_sock).st_gid, group)
        e.stop()
        r = daemon.run_rookery("serve", "--port", "0", "--db", self.db, "--mail-group", "no-such-group-here")
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("--mail-group", r.stderr)

    def as_nobody(self, sock_path, line):
        """In a child that has become nobody: connect to sock_path and send line; its outcome."""
        rd, wr = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(rd)
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                try:
                    outcome = "answer " + ask(sock_path, line)
                except PermissionError:
                    outcome = "permission denied"
                except OSError as e:
                    outcome = "error " + str(e)
                os.write(wr, outcome.encode())
            finally:
                os._exit(0)
        os.close(wr)
        with os.fdopen(rd, "rb") as f:
            outcome = f.read().decode()
        os.waitpid(pid, 0)
        return outcome

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run a peer as another user")
    def test_control_socket_refuses_another_user(self):
        d = self.daemon()
        d.create_game()
        control = self.db + ".control.sock"
        dest = os.path.join(self.out, "by-nobody.db")
        # nobody must reach the socket's directory to be refused by the socket itself.
        for path in (self.tmp, self.data, self.out):
            os.chmod(path, 0o711)
        self.assertEqual(self.as_nobody(control, "BACKUP " + dest), "permission denied")
        # Even with the file's mode opened up, the peer's uid is checked.
        os.chmod(control, 0o666)
        outcome = self.as_nobody(control, "BACKUP " + dest)
        self.assertRegex(outcome, r"^answer 74 only the user the daemon runs as")
        self.assertFalse(os.path.lexists(dest))
        self.assertEqual(os.listdir(self.out), [])
        self.assertIn(f"refused a connection from uid {NOBODY}", d.stderr())
        os.chmod(self.data, 0o700)
        d.stop()


if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
