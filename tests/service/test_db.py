"""The SQLite writer queue (service/db.py): one writer at a time across threads and processes."""

from __future__ import annotations

import threading
import time

from service.store.db import WriterQueue, writer_queue_for
from tests.service.helpers import writer_queue_held


def test_queue_only_for_sqlite_files(tmp_path):
    assert writer_queue_for(f"sqlite:///{tmp_path}/x.sqlite3").path.name == "x.sqlite3.writers"
    assert writer_queue_for("sqlite://") is None
    assert writer_queue_for("sqlite:///:memory:") is None
    assert writer_queue_for("postgresql+psycopg://postgres@127.0.0.1/test") is None


def test_another_process_holding_the_lock_makes_a_writer_wait(tmp_path):
    queue = WriterQueue(tmp_path / "db.writers")
    with writer_queue_held(queue.path):
        t0 = time.monotonic()
        with queue.hold():
            waited = time.monotonic() - t0
    assert waited > 0.3, "the writer did not wait for the other process"


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


def test_one_queue_per_database_file_in_a_process(tmp_path):
    url = f"sqlite:///{tmp_path}/x.sqlite3"
    assert writer_queue_for(url) is writer_queue_for(f"sqlite:///{tmp_path}/./x.sqlite3")
