"""ml.sweep(..., executor=X): a dask.distributed cluster or any
concurrent.futures executor runs one task per run; the DataFrame is the
local sweep's, byte for byte in CSV; a lost worker's runs are redone."""

import concurrent.futures as cf
import json
import os
import signal
import threading
import time

import pytest

import manetlab as ml
from manetlab import _executor

AXES = {"flow.0.rate": ["100kbps", "200kbps", "300kbps"], "mac.rts_threshold": ["0B", "off"]}


def csv_of(df):
    return df.to_csv(index=False)


@pytest.fixture(scope="module")
def local_cluster():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_cluster_sweep_equals_the_local_sweep(chain_text, tmp_path, local_cluster):
    sc = ml.Scenario.from_toml(chain_text)
    local = ml.sweep(sc, AXES, runs=2, progress=False)
    assert len(local) == 12
    remote = ml.sweep(sc, AXES, runs=2, progress=False, executor=local_cluster, store=tmp_path / "dask")
    assert remote.attrs["ran"] == 12 and remote.attrs["loaded"] == 0
    assert csv_of(remote) == csv_of(local)
    # The store holds every record; the sweep files match the CLI format.
    assert len((tmp_path / "dask" / "runs" / "runs.jsonl").read_text().splitlines()) == 12
    # Resumed: nothing to run.
    again = ml.sweep(sc, AXES, runs=2, progress=False, executor=local_cluster, store=tmp_path / "dask")
    assert again.attrs["ran"] == 0 and again.attrs["loaded"] == 12
    assert csv_of(again) == csv_of(local)


def test_a_worker_killed_mid_sweep_is_survived(chain_text, tmp_path, local_cluster):
    # Runs of a few tenths of a second, so the kill lands mid-sweep.
    sc = ml.Scenario.from_toml(chain_text).set("run.duration", "1500s")
    axes = {"flow.0.rate": ["100kbps", "200kbps", "300kbps", "400kbps"]}
    store = tmp_path / "killed"
    pids = list(local_cluster.run(os.getpid).values())
    assert len(pids) == 2
    records = store / "runs" / "runs.jsonl"
    killed = {}

    def killer():
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120:
            n = len(records.read_text().splitlines()) if records.exists() else 0
            if n >= 1:
                killed["at"] = n
                os.kill(pids[0], signal.SIGKILL)
                return
            time.sleep(0.01)

    th = threading.Thread(target=killer)
    th.start()
    df = ml.sweep(sc, axes, runs=3, progress=False, executor=local_cluster, store=store)
    th.join()
    assert "at" in killed and killed["at"] < 12, killed
    assert df.attrs["ran"] == 12
    local = ml.sweep(sc, axes, runs=3, progress=False, jobs=2)
    assert csv_of(df) == csv_of(local)


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_concurrent_futures_executors(chain_text, tmp_path, kind):
    sc = ml.Scenario.from_toml(chain_text)
    local = ml.sweep(sc, AXES, runs=2, progress=False)
    pool = cf.ThreadPoolExecutor(2) if kind == "threads" else cf.ProcessPoolExecutor(2)
    with pool:
        df = ml.sweep(sc, AXES, runs=2, progress=False, executor=pool)
    assert csv_of(df) == csv_of(local)


class Flaky(cf.ThreadPoolExecutor):
    """Every third task fails once (a lost task)."""

    def __init__(self):
        super().__init__(2)
        self.n = 0
        self.lock = threading.Lock()

    def submit(self, fn, *args, **kw):
        with self.lock:
            self.n += 1
            fail = self.n % 3 == 0
        if fail:
            def boom(*a):
                raise OSError("worker lost")
            return super().submit(boom, *args)
        return super().submit(fn, *args, **kw)


def test_failed_tasks_are_retried_and_records_are_checked(chain_text, tmp_path):
    sc = ml.Scenario.from_toml(chain_text)
    local = ml.sweep(sc, AXES, runs=2, progress=False)
    with Flaky() as ex:
        df = ml.sweep(sc, AXES, runs=2, progress=False, executor=ex, store=tmp_path / "flaky")
        assert ex.n > 12
    assert csv_of(df) == csv_of(local)
    # A record from another config (or build) is refused.
    job = ml._native.SweepJob(sc._src(), [(k, v) for k, v in AXES.items()], [3, 4], None, True)
    key, text, origin, seed = job.tasks()[0]
    other = _executor.run_record(text.replace("512B", "513B"), origin, seed, key)
    with pytest.raises(ValueError, match="fingerprint"):
        job.add(other)
    line = _executor.run_record(text, origin, seed, key)
    damaged = line.replace('"seed":3', '"seed":4')
    with pytest.raises(ValueError, match="checksum"):
        job.add(damaged)
    assert job.add(line) == key
    assert json.loads(line)["key"] == key
