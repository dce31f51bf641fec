#!/usr/bin/env python3
"""mail_postfix.py - end-to-end mail test: players and Rookery talk only through a real Postfix.

usage: python3 tests/mail/mail_postfix.py PATH-TO-ROOKERY [unittest options, e.g. -v or a test name]

The test runs a private Postfix instance of its own (never the system's
/etc/postfix one, never port 25): a configuration directory, queue, data
directory, log file and maildirs under one temporary directory, started with
`postfix -c CONFDIR start` and listening for SMTP on 127.0.0.1 on a free high
port only. Its routing:

  rook.test (mydestination, local(8)): play+TOKEN@rook.test reaches the alias
      "play" (recipient_delimiter = +), which pipes the mail to
      `rookery mail-in --db DB`; local(8) puts the envelope recipient in
      $ORIGINAL_RECIPIENT, where mail-in finds the reply token. The pipe runs
      as default_privs (nobody), so the daemon gives its mail socket (0660)
      nobody's group with --mail-group, as docs/operations.md sets it up, and
      the test opens the directories above it to everyone.
  players.test (virtual_mailbox_domains, virtual(8)): ann@ and ben@ have
      maildirs under TMP/mail that the test reads, and so has mallory@, who
      answers Ann's mails and must never hear from Rookery.
  rookery@ and postmaster@rook.test: aliased to sink@players.test, so that a
      bounce of Rookery's own mail shows up too (the test fails on any bounce).
  anything else: the error transport; nothing leaves the machine.

Rookery (`rookery serve`) sends its mail to that Postfix over SMTP. The
players answer the mails they receive with swaks through the same Postfix: a
reply to the mail's Reply-To address, the move on the first line above a
quote of the mail, the way a mail client does it. The test reads the API only
to choose a move (legal moves, position) and to see that it was applied.

Postfix cannot run without root (master(8) needs it): run the test as root.
When Postfix cannot start, the test fails with Postfix's log.

Python standard library only, plus the programs postfix and swaks.
"""
import email
import email.policy
import email.utils
import glob
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import daemon  # noqa: E402
from harness.daemon import free_port  # noqa: E402
from harness.nchess import CANONICAL_MOVE, complete_release, square_of  # noqa: E402

POSTFIX = shutil.which("postfix", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or "/usr/sbin/postfix"
SWAKS = shutil.which("swaks") or "/usr/bin/swaks"

REPLY_DOMAIN = "rook.test"
PLAYER_DOMAIN = "players.test"
ADDRESS = {"South": "ann@" + PLAYER_DOMAIN, "North": "ben@" + PLAYER_DOMAIN}
NAME = {"South": "Ann", "North": "Ben"}
SEAT_INDEX = {"South": 0, "North": 1}

MAIL_TIMEOUT = 30      # for one mail to arrive: Postfix, the pipe, the daemon, its outbox, Postfix again
POLL = 0.1
MAX_PLIES = 120        # then resign by mail instead (the General-capture preference ends games sooner)
MOVE_SEED = 9          # the choice among legal moves: with it the game ends by a General capture at ply 51,
                       # after a release (the same every run: no die decides anything in these moves)

# play+<game>-<seat>-<serial>-<mac>: serial counts the reply addresses mailed to the seat; only the latest acts.
REPLY_ADDRESS = re.compile(r"^play\+([a-z0-9]+)-([0-9]+)-([0-9]+)-([a-z2-7]{16})@" + re.escape(REPLY_DOMAIN) + r"$")


class Postfix:
    """A private Postfix instance under root/, SMTP on 127.0.0.1:port."""

    def __init__(self, root, port, rookery, db_args):
        self.root = root
        self.port = port
        self.conf = os.path.join(root, "postfix")
        self.queue = os.path.join(root, "queue")
        self.data = os.path.join(root, "data")
        self.mail = os.path.join(root, "mail")
        self.log = os.path.join(root, "maillog")
        self.rookery = rookery
        self.db_args = db_args      # mail-in's --db (and --sockets), the daemon's
        self.started = False

    def write_config(self):
        nobody = pwd.getpwnam("nobody")
        postfix = pwd.getpwnam("postfix")
        for d in (self.conf, self.queue):
            os.makedirs(d, 0o755, exist_ok=True)
        os.makedirs(self.data, 0o700, exist_ok=True)
        os.chown(self.data, postfix.pw_uid, postfix.pw_gid)
        # virtual(8) delivers as nobody: it creates the maildirs below this one.
        os.makedirs(self.mail, 0o755, exist_ok=True)
        os.chown(self.mail, nobody.pw_uid, nobody.pw_gid)
        r = self.root
        main_cf = f"""\
# Private Postfix instance of tests/mail/mail_postfix.py: nothing here touches /etc/postfix.
compatibility_level = 3.6
queue_directory = {self.queue}
data_directory = {self.data}
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
maillog_file = {self.log}
maillog_file_prefixes = {r}
myhostname = mx.{REPLY_DOMAIN}
mydomain = {REPLY_DOMAIN}
myorigin = $mydomain
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
mydestination = {REPLY_DOMAIN}, localhost
relayhost =
default_transport = error:this test Postfix delivers nothing outside {REPLY_DOMAIN} and {PLAYER_DOMAIN}
relay_transport = $default_transport
smtpd_peername_lookup = no
smtpd_banner = $myhostname ESMTP rookery-test
biff = no
append_dot_mydomain = no
recipient_delimiter = +
alias_maps = hash:{self.conf}/aliases
alias_database = hash:{self.conf}/aliases
allow_mail_to_commands = alias
default_privs = nobody
local_recipient_maps = $alias_maps
virtual_alias_maps = texthash:{self.conf}/virtual
virtual_mailbox_domains = {PLAYER_DOMAIN}
virtual_mailbox_base = {self.mail}
virtual_mailbox_maps = texthash:{self.conf}/vmailbox
virtual_uid_maps = static:{nobody.pw_uid}
virtual_gid_maps = static:{nobody.pw_gid}
"""
        # No chroot anywhere: the jail would need a copy of the system's files.
        master_cf = f"""\
127.0.0.1:{self.port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""
        mail_in = " ".join([self.rookery, "mail-in"] + self.db_args)
        aliases = (f'play: "|{mail_in}"\n'
                   f"MAILER-DAEMON: postmaster\n")
        virtual = (f"rookery@{REPLY_DOMAIN} sink@{PLAYER_DOMAIN}\n"
                   f"postmaster@{REPLY_DOMAIN} sink@{PLAYER_DOMAIN}\n")
        vmailbox = "".join(f"{who}@{PLAYER_DOMAIN} {who}/\n" for who in ("ann", "ben", "sink", "mallory"))
        for name, text in (("main.cf", main_cf), ("master.cf", master_cf), ("aliases", aliases),
                           ("virtual", virtual), ("vmailbox", vmailbox)):
            with open(os.path.join(self.conf, name), "w", encoding="ascii") as f:
                f.write(text)

    def build_aliases(self):
        r = subprocess.run([shutil.which("postalias", path="/usr/sbin:/sbin:" + os.environ.get("PATH", "")) or "/usr/sbin/postalias", "-c", self.conf, "hash:" + os.path.join(self.conf, "aliases")],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if r.returncode:
            raise AssertionError(f"postalias failed:\n{r.stdout}{r.stderr}")

    def run(self, *args, timeout=60):
        return subprocess.run([POSTFIX, "-c", self.conf, *args], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def log_text(self):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError as e:
            return f"(no log: {e})"

    def start(self):
        self.write_config()
        self.build_aliases()
        r = self.run("start")
        self.started = True
        # postfix start returns once master(8) is up (or has given up): then SMTP should answer.
        deadline = time.monotonic() + 30
        while r.returncode == 0 and time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.settimeout(5)
                    banner = s.recv(512)
                    if banner.startswith(b"220 "):
                        s.sendall(b"QUIT\r\n")
                        return
            except OSError:
                pass
            time.sleep(POLL)
        raise AssertionError(f"Postfix did not start (postfix start exited {r.returncode}):\n"
                             f"{r.stdout}{r.stderr}\n--- maillog ---\n{self.log_text()[-6000:]}")

    def processes(self):
        """The pids of every process of this instance: they carry MAIL_CONFIG=our directory."""
        mark = ("MAIL_CONFIG=" + self.conf).encode() + b"\0"
        pids = []
        for env in glob.glob("/proc/[0-9]*/environ"):
            try:
                with open(env, "rb") as f:
                    if mark in f.read() + b"\0":
                        pids.append(int(env.split("/")[2]))
            except OSError:
                pass
        return [p for p in pids if p != os.getpid()]

    def stop(self):
        if not self.started:
            return
        self.started = False
        try:
            self.run("stop", timeout=30)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + 15
        while self.processes() and time.monotonic() < deadline:
            time.sleep(POLL)
        left = self.processes()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while self.processes() and time.monotonic() < deadline:
            time.sleep(POLL)
        if left:
            raise AssertionError(f"Postfix processes were still running after postfix stop: {left}")


class Mail:
    """One delivered message, parsed."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.raw = f.read()
        self.msg = email.message_from_bytes(self.raw, policy=email.policy.default)
        part = self.msg.get_body(preferencelist=("plain",))
        self.text = part.get_content() if part is not None else ""
        self.message_id = (self.msg.get("Message-ID") or "").strip().strip("<>")
        self.subject = str(self.msg.get("Subject") or "")
        self.from_addr = email.utils.parseaddr(str(self.msg.get("From") or ""))[1]
        self.to_addr = email.utils.parseaddr(str(self.msg.get("To") or ""))[1]
        self.reply_to = email.utils.parseaddr(str(self.msg.get("Reply-To") or ""))[1]
        self.token = None
        m = REPLY_ADDRESS.match(self.reply_to)
        if m:
            self.token = (m.group(1), int(m.group(2)), int(m.group(3)))   # game, seat, serial

    def __repr__(self):
        return f"<mail {os.path.basename(self.path)} {self.subject!r} reply-to {self.reply_to!r}>\n{self.text[:1500]}"


class Maildir:
    """A maildir Postfix delivers into; each mail is handed to the test once."""

    def __init__(self, path, owner):
        self.path = path
        self.owner = owner
        self.cache = {}
        self.taken = set()

    def mails(self):
        names = []
        for sub in ("new", "cur"):
            d = os.path.join(self.path, sub)
            try:
                names += [os.path.join(d, n) for n in os.listdir(d) if not n.startswith(".")]
            except FileNotFoundError:
                pass
        for p in names:
            if p not in self.cache:
                self.cache[p] = Mail(p)
        # In delivery order (virtual(8) moves a finished mail from tmp/ to new/ and leaves it there).
        return sorted(self.cache.values(), key=lambda m: (os.stat(m.path).st_mtime_ns, m.path))

    def untaken(self):
        return [m for m in self.mails() if m.path not in self.taken]


class MailCase(unittest.TestCase):
    """One Postfix and one rookery daemon for all the tests of the class."""

    ben_asked = False      # Ben has asked for mail (the button of his invitation's seat page)

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise AssertionError("this test runs a private Postfix, which needs root: run it as root")
        for prog in (POSTFIX, SWAKS):
            if not os.access(prog, os.X_OK):
                raise AssertionError(f"{prog} is missing: install postfix and swaks (scripts/deps.sh test)")
        # Under /tmp whatever TMPDIR says: postfix and nobody must reach it, and the socket path is short.
        cls.tmp = tempfile.mkdtemp(prefix="rookery-pf-", dir="/tmp")
        cls.started = time.monotonic()
        cls.postfix = cls.d = None
        try:
            # The pipe runs as nobody: it must reach the rookery binary and the mail socket.
            os.chmod(cls.tmp, 0o755)
            # One copy of the binary for the daemon and the pipe: the same build even when
            # the build directory is rebuilt meanwhile, and one that nobody may run.
            rookery = os.path.join(cls.tmp, "bin", "rookery")
            os.makedirs(os.path.dirname(rookery), 0o755)
            shutil.copy2(daemon.ROOKERY, rookery)
            os.chmod(rookery, 0o755)
            cls.smtp_port = free_port()
            daemon.ROOKERY = rookery
            cls.d = daemon.Daemon(
                "--smtp", f"smtp://127.0.0.1:{cls.smtp_port}", "--smtp-tls", "none",
                "--reply-domain", REPLY_DOMAIN, "--mail-from", "rookery@" + REPLY_DOMAIN,
                "--mail-retry", "1", "--mail-group", str(pwd.getpwnam("nobody").pw_gid), workdir=cls.tmp)
            cls.postfix = Postfix(cls.tmp, cls.smtp_port, rookery, cls.d.db_args())
            cls.postfix.start()
            cls.d.start()
            sock = cls.d.sockets + ".mail.sock"
            if not os.path.exists(sock):
                raise AssertionError(f"the daemon has no mail socket {sock}")
            cls.boxes = {seat: Maildir(os.path.join(cls.postfix.mail, ADDRESS[seat].split("@")[0]), seat)
                         for seat in ADDRESS}
            cls.sink = Maildir(os.path.join(cls.postfix.mail, "sink"), "sink")
            cls.mallory = Maildir(os.path.join(cls.postfix.mail, "mallory"), "mallory")
        except BaseException:
            cls.shutdown(check=False)
            raise

    @classmethod
    def shutdown(cls, check=True):
        problems = []
        if cls.d is not None:
            try:
                if check:
                    cls.d.stop()
                else:
                    cls.d.kill()
            except AssertionError as e:
                problems.append(str(e))
            finally:
                cls.d.kill()
        if cls.postfix is not None:
            try:
                cls.postfix.stop()
            except AssertionError as e:
                problems.append(str(e))
        if problems and cls.postfix is not None:
            print("--- maillog ---\n" + cls.postfix.log_text()[-4000:], file=sys.stderr)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if problems:
            raise AssertionError("\n".join(problems))

    @classmethod
    def tearDownClass(cls):
        print(f"\n(mail_postfix: {time.monotonic() - cls.started:.1f} s with Postfix)", file=sys.stderr)
        cls.shutdown(check=True)

    # ---- mail helpers ----

    def diagnostics(self):
        return (f"\n--- rookery log ---\n{self.d.stderr()[-4000:]}"
                f"\n--- maillog ---\n{self.postfix.log_text()[-4000:]}")

    def check_no_bounce(self):
        for box in list(self.boxes.values()) + [self.sink]:
            for m in box.mails():
                if m.from_addr.upper().startswith("MAILER-DAEMON") or box is self.sink:
                    self.fail(f"a bounce or a mail to Rookery's own address reached {box.owner}:\n"
                              f"{m.raw.decode('utf-8', 'replace')[:4000]}{self.diagnostics()}")

    def wait_mail(self, seat, what, pred, timeout=MAIL_TIMEOUT):
        """The first mail not yet taken in seat's maildir for which pred holds; taken now."""
        box = self.boxes[seat]
        deadline = time.monotonic() + timeout
        while True:
            for m in box.untaken():
                if pred(m):
                    box.taken.add(m.path)
                    return m
            self.check_no_bounce()
            if time.monotonic() > deadline:
                break
            time.sleep(POLL)
        self.fail(f"{NAME[seat]} ({ADDRESS[seat]}) got no {what} within {timeout}s; untaken mails:\n"
                  + "\n".join(repr(m) for m in box.untaken()) + self.diagnostics())

    def wait_ply(self, gid, ply, seat, timeout=MAIL_TIMEOUT):
        """Wait until the game reaches ply (or is over); on a refusal, fail with it."""
        deadline = time.monotonic() + timeout
        while True:
            g = self.d.game(gid)
            if g["ply"] >= ply:
                return g
            refusals = [m for m in self.boxes[seat].untaken() if "could not be acted on" in m.text]
            if refusals:
                self.fail(f"the reply of {NAME[seat]} was refused:\n{refusals[0].text}")
            self.check_no_bounce()
            if time.monotonic() > deadline:
                self.fail(f"game {gid} did not reach ply {ply} within {timeout}s (at {g['ply']})"
                          + self.diagnostics())
            time.sleep(POLL)

    def reply(self, seat, original, first_line, message_id=None, sender=None):
        """Answer original from seat's address (or sender's) with swaks through Postfix, the way a
        mail client does."""
        sender = sender or (NAME[seat], ADDRESS[seat])
        self.assertTrue(original.reply_to, f"nothing to reply to: {original!r}")
        message_id = message_id or f"{time.time_ns()}.{random.getrandbits(32):08x}@{PLAYER_DOMAIN}"
        date = original.msg.get("Date") or "a day"
        quoted = "\n".join(("> " + line).rstrip() for line in original.text.splitlines())
        body = f"{first_line}\n\nOn {date}, Rookery <rookery@{REPLY_DOMAIN}> wrote:\n{quoted}\n"
        subject = original.subject if original.subject.startswith("Re:") else "Re: " + original.subject
        cmd = [SWAKS, "--server", "127.0.0.1", "--port", str(self.smtp_port), "--helo", PLAYER_DOMAIN,
               "--from", sender[1], "--to", original.reply_to,
               "--header", f"From: {sender[0]} <{sender[1]}>",
               "--header", f"To: Rookery <{original.reply_to}>",
               "--header", f"Subject: {subject}",
               "--header", f"Message-Id: <{message_id}>",
               "--header", f"In-Reply-To: <{original.message_id}>",
               "--header", f"References: <{original.message_id}>",
               "--body", body, "--silent", "1"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, f"swaks failed:\n{r.stdout}{r.stderr}{self.diagnostics()}")
        return message_id

    def check_game_mail(self, m, gid, seat):
        """What every mail of a game to one seat has."""
        self.assertEqual(m.to_addr, ADDRESS[seat], m)
        self.assertEqual(m.from_addr, "rookery@" + REPLY_DOMAIN, m)
        self.assertEqual(m.subject, f"[Rookery] Nchess game {gid}: Ann (South) vs Ben (North)", m)
        self.assertEqual(m.msg.get("Auto-Submitted"), "auto-generated", m)
        root = f"{gid}.{SEAT_INDEX[seat]}.invite@{REPLY_DOMAIN}"
        if m.message_id != root:
            self.assertEqual((m.msg.get("In-Reply-To") or "").strip(), f"<{root}>", m)
        # How to stop them (RFC 8058 one click), as the player's mailbox got it.
        self.assertRegex(m.msg.get("List-Unsubscribe") or "", r"^<" + re.escape(self.d.base) +
                         r"/mail/stop/[0-9]+-[a-z2-7]{16}>$", m)
        self.assertEqual(m.msg.get("List-Unsubscribe-Post"), "List-Unsubscribe=One-Click", m)

    def asks_for(self, gid, seat, serial):
        """A predicate: a mail whose Reply-To is seat's reply address number serial of gid."""
        return lambda m: m.token == (gid, SEAT_INDEX[seat], serial)

    def new_game(self):
        gid, tokens, _ = self.d.create_game(("Ann", "Ben"), (ADDRESS["South"], ADDRESS["North"]))
        ann = self.wait_mail("South", "invitation", lambda m: gid in m.subject and "You move first." in m.text)
        ben = self.wait_mail("North", "invitation", lambda m: gid in m.subject and "you are invited" in m.text)
        for seat, m in (("South", ann), ("North", ben)):
            self.check_game_mail(m, gid, seat)
            self.assertEqual(m.message_id, f"{gid}.{SEAT_INDEX[seat]}.invite@{REPLY_DOMAIN}")
            self.assertIn(f"you are invited to play Nchess on Rookery, as {seat}", m.text)
        # Each seat's invitation carries its first reply address, to move or not.
        self.assertEqual(ann.token, (gid, 0, 1), ann)
        self.assertEqual(ben.token, (gid, 1, 1), ben)
        # (Only an address that has not asked for mail is told it will hear nothing until it does.)
        self.assertRegex(ben.text, r"(Once you answer, y|Y)ou will get a mail whenever it is your move\.")
        # Ben asks for mail through the seat link of his invitation (its own, not the creator's
        # token of the seat); Ann's reply by mail will count as her asking. Consent is the
        # address's: once he has asked (in an earlier game of this class), the page asks no more.
        link = daemon.SEAT_LINK_IN_MAIL.search(ben.text)
        self.assertTrue(link, ben)
        self.assertNotIn(tokens["North"], ben.text)
        if MailCase.ben_asked:
            page = self.d.get(link.group(1)[len(self.d.base):])
            self.assertEqual(page.status, 200, page)
            self.assertNotIn(f'action="/games/{gid}/mail"', page.text)
        else:
            self.assertEqual(self.d.ask_for_mail(gid, link.group(1)).status, 303)
            MailCase.ben_asked = True
        return gid, tokens, ann

    # ---- the tests ----

    def test_1_refusal_through_postfix(self):
        gid, tokens, invitation = self.new_game()
        before = self.d.game(gid, tokens["South"])
        illegal = "S 7 1 3 1"   # a Soldier does not jump four rows
        self.assertNotIn(illegal, before["legal_moves"])
        sent = self.reply("South", invitation, illegal)
        refusal = self.wait_mail("South", "refusal", lambda m: "could not be acted on" in m.text)
        self.assertEqual(refusal.to_addr, ADDRESS["South"], refusal)
        self.assertEqual(refusal.from_addr, "rookery@" + REPLY_DOMAIN, refusal)
        self.assertEqual((refusal.msg.get("In-Reply-To") or "").strip(), f"<{sent}>", refusal)
        self.assertEqual(refusal.subject, invitation.subject if invitation.subject.startswith("Re:")
                         else "Re: " + invitation.subject, "one Re:, not two")
        self.assertIn("Hello Ann,", refusal.text)
        self.assertIn(f'"{illegal}"', refusal.text, "the refusal names the move")
        self.assertIn("Nothing was changed.", refusal.text)
        self.assertIn("The mail said:", refusal.text)
        self.assertIn(f"\n> {illegal}\n", refusal.text, "the refusal quotes the original")
        # The invitation's address has acted (in vain): the refusal carries Ann's next one.
        self.assertEqual(refusal.token, (gid, 0, 2), refusal)
        after = self.d.game(gid, tokens["South"])
        self.assertEqual((after["ply"], after["position"], after["status"]),
                         (before["ply"], before["position"], before["status"]), "the game is unchanged")
        self.assertEqual(self.d.get(f"/api/games/{gid}/moves").json()["moves"], [])
        # Answering the refusal takes a legal move.
        move = "S 7 1 6 1"
        self.assertIn(move, before["legal_moves"])
        self.reply("South", refusal, move)
        self.wait_ply(gid, 1, "South")
        accepted = self.wait_mail("South", "confirmation", lambda m: "is accepted" in m.text and gid in m.text)
        self.assertIn(f"your move {move} in Nchess game {gid} is accepted.", accepted.text)
        self.assertEqual(accepted.token, (gid, 0, 3), accepted)
        # The invitation answered again after the move, and from someone else's address: an old
        # reply address, refused, nothing changed; the refusal goes to Ann (a mail to the forged
        # sender would come back as a bounce, which check_no_bounce catches).
        stale = "S 7 3 6 3"
        self.reply("South", invitation, stale, sender=("Ann", "mallory@" + PLAYER_DOMAIN))
        refusal = self.wait_mail("South", "refusal of a stale reply", lambda m: "could not be acted on" in m.text)
        self.assertIn("it went to an old reply address of your seat", refusal.text)
        self.assertEqual(refusal.to_addr, ADDRESS["South"], refusal)
        self.assertEqual(refusal.token, (gid, 0, 3), "Ann's live address (her latest mail's), not the stale one")
        self.assertIn(f"\n> {stale}\n", refusal.text)
        self.assertEqual(self.d.game(gid)["ply"], 1)
        your_turn = self.wait_mail("North", "your-turn mail", self.asks_for(gid, "North", 2))
        self.assertIn(f"Ann (South) played {move}", your_turn.text)
        self.check_no_bounce()
        self.assertEqual(self.mallory.mails(), [], "Rookery wrote to the sender of a stale reply")

    def test_2_whole_game_by_mail(self):
        t0 = time.monotonic()
        gid, tokens, invitation = self.new_game()
        commitment = self.d.game(gid)["dice_commitment"]
        self.assertIn(f"Dice commitment: {commitment}", invitation.text)
        rnd = random.Random(MOVE_SEED)
        asking = {"South": invitation, "North": None}
        # The serial of each seat's latest reply address: every mail at a new ply, or after the
        # seat's live address acted, carries the next one.
        serial = {"South": 1, "North": 1}
        played, releases = [], 0
        g = self.d.game(gid)
        while g["status"] != "over" and g["ply"] < MAX_PLIES:
            ply, seat = g["ply"], g["turn"][0]
            other = "North" if seat == "South" else "South"
            ask = asking[seat]
            if ask is None:
                serial[seat] += 1
                ask = self.wait_mail(seat, f"mail asking for ply {ply}", self.asks_for(gid, seat, serial[seat]))
                self.check_game_mail(ask, gid, seat)
                self.assertIn("It is your move in Nchess game", ask.text)
                self.assertIn(f"{NAME[other]} ({other}) played {played[-1][1]}", ask.text)
            # Choosing the move: the API is allowed for that (legal moves and the position).
            view = self.d.game(gid, tokens[seat])
            self.assertEqual(view["ply"], ply)
            moves = view["legal_moves"]
            self.assertTrue(moves, "the player to move has a legal move")
            general = square_of(view["position"]["board"], "g" if seat == "South" else "G")
            kills = [m for m in moves if general and tuple(map(int, m.split()[3:5])) == general]
            if kills:
                # A General capture ends the game: it releases nobody, so it takes no placement.
                text = full = rnd.choice(kills)
            else:
                # Moves that release prisoners are listed as prefixes: prefer them, to play
                # placements by mail too, and complete them.
                rels = [m for m in moves if complete_release(m, seat, view["position"], random.Random(0)) != m]
                text = rnd.choice(rels or moves)
                full = complete_release(text, seat, view["position"], rnd)
                releases += full != text
            self.reply(seat, ask, full)
            g = self.wait_ply(gid, ply + 1, seat)
            last = self.d.get(f"/api/games/{gid}/moves").json()["moves"][-1]
            self.assertEqual((last["ply"], last["seat"], last["move"]), (ply, seat, full))
            self.assertRegex(last["move"], CANONICAL_MOVE)
            played.append((seat, last["move"], last["note"]))
            if kills:
                self.assertIn("wins: General captured", last["note"])
            if g["status"] != "over":
                confirm = self.wait_mail(seat, f"confirmation of ply {ply}",
                                         lambda m: f"your move {full}" in m.text and "is accepted" in m.text)
                self.check_game_mail(confirm, gid, seat)
                # The address that moved has acted: the confirmation carries the seat's next one.
                serial[seat] += 1
                self.assertEqual(confirm.token, (gid, SEAT_INDEX[seat], serial[seat]), confirm)
            asking[seat] = None
        resigned = g["status"] != "over"
        if resigned:
            # Not over by the cap: the player to move resigns by mail.
            seat = g["turn"][0]
            serial[seat] += 1
            ask = self.wait_mail(seat, "mail asking for the last ply", self.asks_for(gid, seat, serial[seat]))
            self.reply(seat, ask, "resign")
            deadline = time.monotonic() + MAIL_TIMEOUT
            while (g := self.d.game(gid))["status"] != "over":
                self.assertLess(time.monotonic(), deadline, "the resignation by mail was not applied" + self.diagnostics())
                time.sleep(POLL)
            self.assertIn("resign", g["result"]["summary"])
        else:
            self.assertRegex(g["result"]["summary"],
                             r"^(South|North) wins: (General captured|(South|North) has no legal move)$")
        summary = g["result"]["summary"]
        dice = self.d.get(f"/api/games/{gid}/dice").json()
        self.assertRegex(dice["seed"] or "", r"^[0-9a-f]{64}$")
        for seat in ("South", "North"):
            over = self.wait_mail(seat, "game-over mail", lambda m: gid in m.subject and "is over" in m.text)
            self.check_game_mail(over, gid, seat)
            self.assertIn(f"the Nchess game {gid} is over: {summary}.", over.text)
            self.assertIn(f"Dice seed (revealed now): {dice['seed']}", over.text)
            self.assertEqual(over.reply_to, "", "nothing to reply to once the game is over")
            if not resigned:
                self.assertIn(played[-1][1], over.text, "the game-over mail lists the last move")
        # Every ply came by mail.
        moves = self.d.get(f"/api/games/{gid}/moves").json()["moves"]
        self.assertEqual([(m["seat"], m["move"], m["note"]) for m in moves], played)
        self.check_no_bounce()
        log = self.postfix.log_text()
        self.assertNotIn("status=bounced", log)
        self.assertNotIn("status=deferred", log)
        print(f"\n(whole game by mail: {len(played)} plies{', then a resignation' if resigned else ''}, "
              f"{releases} releases, {summary}, {time.monotonic() - t0:.1f} s)", file=sys.stderr)



if __name__ == "__main__":
    sys.exit(daemon.main(__doc__))
