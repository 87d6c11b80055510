import subprocess

import pandas as pd
import pytest

import manetlab as ml


def test_sweep_tidy_dataframe(chain_text):
    sc = ml.Scenario.from_toml(chain_text)
    df = ml.sweep(sc, {"flow.0.rate": ["100kbps", "200kbps"], "mac.rts_threshold": ["0B", "off"]}, runs=3, progress=False)
    assert isinstance(df, pd.DataFrame)
    # The columns of sweep-runs.csv: axes as SI numbers with the unit in
    # the name (text when not a quantity), then the flows.csv columns.
    assert list(df.columns[:4]) == ["flow.0.rate_bps", "mac.rts_threshold", "replication", "seed"]
    assert len(df) == 2 * 2 * 3  # points x seeds x one flow
    assert df.attrs["ran"] == 12 and df.attrs["loaded"] == 0
    assert sorted(set(df["seed"])) == [3, 4, 5]
    # More offered load, more goodput (the chain is far from saturation).
    g = df.groupby("flow.0.rate_bps")["goodput_bps"].mean()
    assert g[200e3] > 1.8 * g[100e3]
    # Each row is the run of its point and seed.
    one = ml.run(sc.set("flow.0.rate", "200kbps").set("mac.rts_threshold", "0B"), seeds=[4], progress=False)
    row = df[(df["flow.0.rate_bps"] == 200e3) & (df["mac.rts_threshold"] == "0B") & (df["seed"] == 4)]
    assert row["goodput_bps"].item() == one.flows["goodput_bps"].item()


def test_sweep_store_resumes_and_is_shared_with_the_cli(cli, chain_file, tmp_path):
    store = tmp_path / "store"
    sc = ml.Scenario.load(chain_file)
    axes = {"flow.0.rate": ["100kbps", "300kbps"]}
    first = ml.sweep(sc, axes, runs=2, store=store, progress=False, full_reports=True)
    assert first.attrs["ran"] == 4
    # One compact record per run (a JSON line), full reports only when asked.
    assert len((store / "runs" / "runs.jsonl").read_text().splitlines()) == 4
    assert len(list((store / "runs" / "full").glob("*.json"))) == 4
    for f in ("sweep.csv", "sweep-runs.csv", "sweep.json"):
        assert (store / f).is_file()
    # Resumed: every run is loaded, none is run again; same table.
    again = ml.sweep(sc, axes, runs=2, store=store, progress=False)
    assert again.attrs["ran"] == 0 and again.attrs["loaded"] == 4
    pd.testing.assert_frame_equal(first, again)
    # A grown grid runs only the new point.
    grown = ml.sweep(
        sc, {"flow.0.rate": ["100kbps", "300kbps", "500kbps"]}, runs=2, store=store, progress=False, full_reports=True
    )
    assert grown.attrs["ran"] == 2 and grown.attrs["loaded"] == 4
    # The DataFrame is sweep-runs.csv.
    assert grown.to_csv(index=False, float_format=None).splitlines()[0] == (store / "sweep-runs.csv").read_text().splitlines()[0]
    # The CLI resumes the Python store (nothing to run) and writes the same files.
    py_files = {f: (store / f).read_bytes() for f in ("sweep.csv", "sweep-runs.csv", "sweep.json")}
    out = subprocess.run(
        [cli, "run", str(chain_file), "--sweep", "flow.0.rate=100kbps,300kbps,500kbps", "--runs", "2",
         "--out", str(store), "--resume", "-q"],
        check=True, capture_output=True, text=True,
    )
    assert out.returncode == 0
    for f, b in py_files.items():
        assert (store / f).read_bytes() == b, f
    # And ml.load reads the store back.
    back = ml.load(store)
    assert isinstance(back, ml.SweepResults)
    assert back.loaded == 6 and back.axes == {"flow.0.rate": ["100kbps", "300kbps", "500kbps"]}
    pd.testing.assert_frame_equal(back.runs, grown.reset_index(drop=True), check_like=False)
    s = back.summary
    assert list(s["goodput_bps_n"]) == [2, 2, 2]
    assert s["goodput_bps_mean"].is_monotonic_increasing
    assert back.point(1).flows["seed"].tolist() == [3, 4]


def test_sweep_results_summary_and_errors(chain_text):
    sc = ml.Scenario.from_toml(chain_text)
    r = ml.sweep_results(sc, {"flow.0.rate": ["100kbps"]}, seeds=[1], progress=False)
    s = r.summary
    # One run: sd and CI are undefined (null), n is 1.
    assert s["goodput_bps_n"].tolist() == [1] and s["delay_mean_s_n"].tolist() == [1]
    assert s["goodput_bps_sd"].isna().all() and s["goodput_bps_ci95"].isna().all()
    assert s["goodput_bps_mean"].item() == r.runs["goodput_bps"].item()
    assert set(r.to_arrow()) == {"runs", "summary", "timeseries"}
    assert len(r.timeseries) == 0
    with pytest.raises(ml.ScenarioError) as ei:
        ml.sweep(sc, {"flow.0.rate": ["1 parsec"]}, runs=1, progress=False)
    assert "sweep point flow.0.rate=1 parsec" in str(ei.value)
    with pytest.raises(ValueError):
        ml.sweep(sc, {"flow.0.rate": []}, runs=1, progress=False)


def test_sweep_timeseries_equals_the_cli_file(cli, chain_file, tmp_path):
    store = tmp_path / "ts"
    sc = ml.Scenario.load(chain_file)
    r = ml.sweep_results(sc, {"flow.0.rate": ["100kbps", "200kbps"]}, runs=1, store=store, interval="1s", progress=False)
    t = r.timeseries
    assert list(t.columns[:3]) == ["flow.0.rate_bps", "replication", "seed"]
    csv = pd.read_csv(store / "sweep-timeseries.csv", keep_default_na=False, na_values=[""])
    pd.testing.assert_frame_equal(t, csv, check_dtype=False)
    sent = t[(t["metric"] == "sent_packets")].groupby("flow.0.rate_bps")["value"].sum()
    assert sent[200e3] > 1.8 * sent[100e3]
