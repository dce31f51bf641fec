"""harness.fault - the daemon with the fault VFS (tests/api/faultvfs.c) preloaded: its disk fails
writes and syncs while a trigger file exists (see faultvfs.c for the trigger's words).

Python standard library only.
"""
import os
import sys

from harness import daemon


class FaultDaemon(daemon.Daemon):
    """A daemon with the fault VFS preloaded and a trigger file in its work directory."""

    def __init__(self, *extra, vfs, **kw):
        super().__init__(*extra, **kw)
        self.vfs = vfs
        self.trigger = os.path.join(self.workdir, "fault-trigger")
        self.fault_log = os.path.join(self.workdir, "fault-log")

    def start(self):
        asan = os.environ.get("ASAN_OPTIONS", "")
        self.extra_env.update({
            "LD_PRELOAD": self.vfs,
            "ROOKERY_FAULT_TRIGGER": self.trigger,
            "ROOKERY_FAULT_LOG": self.fault_log,
            # A sanitized daemon wants its runtime first in the library list; the shim comes first.
            "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0",
        })
        super().start()
        assert "faultvfs: wrapping" in self.stderr(), "the fault VFS is not loaded:\n" + self.stderr()
        return self

    def fault_on(self, budget=0, words=""):
        """Fail writes, truncates and syncs from now on, after letting budget of them through.

        words narrow it (see faultvfs.c): "sync" fails only syncs, "db" only the main file's calls.
        """
        tmp = self.trigger + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{budget} {words}")
        os.rename(tmp, self.trigger)            # atomically: the shim never sees it half-written

    def fault_off(self):
        os.unlink(self.trigger)

    def faults_injected(self):
        """The failures the shim injected so far, as (call, file) pairs."""
        try:
            with open(self.fault_log) as f:
                return [tuple(line.split(None, 1)) for line in f.read().splitlines()]
        except FileNotFoundError:
            return []

    def alive(self):
        return self.proc.poll() is None


def vfs_argument(doc):
    """Take the test script's arguments (daemon.arguments): the rookery binary, then the fault
    VFS's path (else $ROOKERY_FAULTVFS), which is returned; without one, exit with doc."""
    paths = daemon.arguments(doc, 2)
    vfs = paths[1] if len(paths) > 1 else os.environ.get("ROOKERY_FAULTVFS", "")
    if not vfs:
        sys.exit(doc.strip())
    return vfs
