import json
import os
import signal
import threading
import time

import pytest

import manetlab as ml


@pytest.fixture(autouse=True)
def sigint_raises():
    # A process started in the background by a non-interactive shell
    # (`cmd &`, as CI wrappers and nohup do) inherits SIGINT ignored, and
    # CPython then installs no KeyboardInterrupt handler: os.kill(SIGINT)
    # would do nothing and these tests would wait for the whole run. They
    # test how the package reacts to a KeyboardInterrupt, so make SIGINT
    # raise one for their duration, whatever the caller's disposition.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_keyboard_interrupt_stops_a_long_run(chain_text):
    # A simulated day of a busy chain: minutes of work if not stopped.
    sc = ml.Scenario.from_toml(chain_text).set("run.duration", "86400s").set("flow.0.rate", "2Mbps")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ml.run(sc, seeds=range(2), jobs=2, progress=False)
    elapsed = time.monotonic() - started
    timer.cancel()
    assert elapsed < 10.0, elapsed
    # The interpreter and the package still work afterwards.
    assert ml.run(ml.Scenario.from_toml(chain_text), progress=False).flows["received_packets"].item() > 0


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_keyboard_interrupt_stops_a_sweep_and_keeps_finished_runs(chain_text, tmp_path):
    sc = ml.Scenario.from_toml(chain_text)
    # The long point: a day of a busy chain (session 15's kernel ran the
    # former 2 idle-ish simulated hours in under the 1 s the timer waits).
    sc = sc.set("flow.0.rate", "2Mbps")
    long = {"run.duration": ["2s", "86400s"]}
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ml.sweep(sc, long, runs=1, store=tmp_path / "s", jobs=2, progress=False)
    timer.cancel()
    # The short run finished and was stored; the long one was not.
    lines = (tmp_path / "s" / "runs" / "runs.jsonl").read_text().splitlines()
    assert [json.loads(l)["key"] for l in lines] == ["run.duration=2s/seed=3"]
