"""The SQLite writer queue (service/db.py): one writer at a time across threads and processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from service.db import WriterQueue, writer_queue_for

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_queue_only_for_sqlite_files(tmp_path):
    assert writer_queue_for(f"sqlite:///{tmp_path}/x.sqlite3").path.name == "x.sqlite3.writers"
    assert writer_queue_for("sqlite://") is None
    assert writer_queue_for("sqlite:///:memory:") is None
    assert writer_queue_for("postgresql+psycopg://postgres@127.0.0.1/test") is None


def test_another_process_holding_the_lock_makes_a_writer_wait(tmp_path):
    queue = WriterQueue(tmp_path / "db.writers")
    other = subprocess.Popen([sys.executable, "-c", HOLD, str(queue.path), "0.6"], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with queue.hold():
            waited = time.monotonic() - t0
        assert waited > 0.3, "the writer did not wait for the other process"
    finally:
        other.wait(10)


def test_threads_take_turns_and_the_queue_is_reentrant(tmp_path):
    queue = WriterQueue(tmp_path / "db.writers")
    inside = []
    overlap = []

    def writer(n: int) -> None:
        for _ in range(20):
            with queue.hold():
                with queue.hold():  # a write transaction inside another takes it once
                    inside.append(n)
                    if len(inside) > 1:
                        overlap.append(list(inside))
                    time.sleep(0.0005)
                    inside.remove(n)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert overlap == [] and inside == []
