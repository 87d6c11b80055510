import pickle
import subprocess

import pandas as pd
import pyarrow as pa
import pytest

import manetlab as ml


def test_run_default_flows_dataframe(repo):
    res = ml.run(ml.Scenario.load(repo / "scenarios" / "default.toml"), progress=False)
    df = res.flows
    assert isinstance(df, pd.DataFrame)
    assert list(df["flow"]) == ["udp0"]
    assert pd.api.types.is_float_dtype(df["goodput_bps"])
    # 2 Mbit/s of CBR over a 2-hop 11 Mbit/s chain: most of it arrives.
    assert 1.5e6 < df["goodput_bps"].iloc[0] < 2.01e6
    assert df["delivery_ratio"].iloc[0] > 0.5


def test_seeds_jobs_and_tables(chain_text):
    sc = ml.Scenario.from_toml(chain_text)
    res = ml.run(sc, seeds=range(5), jobs=2, progress=False)
    assert res.seeds == [0, 1, 2, 3, 4]
    f = res.flows
    assert list(f["seed"]) == [0, 1, 2, 3, 4] and list(f["replication"]) == [0, 1, 2, 3, 4]
    assert (f["flow"] == 'udp, "0"').all()
    assert (f["sent_packets"] > 150).all()
    # network: one row per replication; the packet-weighted delay of one
    # flow is that flow's delay; no routing protocol, no routing load.
    n = res.network
    assert len(n) == 5
    assert list(n["data_received_packets"]) == list(f["received_packets"])
    assert n["delay_mean_s"].tolist() == pytest.approx(f["delay_mean_s"].tolist(), rel=1e-12)
    assert (n["routing_packets"] == 0).all()
    nodes = res.nodes
    assert len(nodes) == 15 and list(nodes.columns[:3]) == ["replication", "seed", "node"]
    assert (nodes.groupby("seed")["mac_data_sent"].sum() > 0).all()
    assert len(res.timeseries) == 0
    # The same seed gives the same numbers whatever the thread count.
    one = ml.run(sc, seeds=[3], jobs=1, progress=False)
    assert one.summary["replications"][0] == res.summary["replications"][3]


def test_summary_matches_the_cli_byte_for_byte(cli, chain_file, tmp_path):
    out = tmp_path / "cli-out"
    subprocess.run([cli, "run", str(chain_file), "--runs", "3", "--seed", "5", "--out", str(out), "--quiet"], check=True)
    res = ml.run(ml.Scenario.load(chain_file), seeds=[5, 6, 7], progress=False)
    cli_text = (out / "summary.json").read_bytes()
    assert res.summary_json.encode() == cli_text
    assert res.summary["seeds"] == [5, 6, 7]
    # save() writes the same file.
    assert res.save(tmp_path / "py-out").read_bytes() == cli_text


def test_overrides_match_cli_set(cli, chain_file, tmp_path):
    out = tmp_path / "o"
    subprocess.run(
        [cli, "run", str(chain_file), "--set", "mac.data_rate=2Mbps", "--set", "flow.0.rate=1Mbps", "--out", str(out), "-q"],
        check=True,
    )
    res = ml.run(ml.Scenario.load(chain_file).set("mac.data_rate", "2Mbps").set("flow.0.rate", "1Mbps"), progress=False)
    assert res.summary_json.encode() == (out / "summary.json").read_bytes()


def test_to_arrow_and_polars(chain_text):
    res = ml.run(ml.Scenario.from_toml(chain_text), seeds=range(2), progress=False)
    tabs = res.to_arrow()
    assert set(tabs) == set(ml.Results.TABLES)
    assert "timeseries" in tabs and "flows-summary" in tabs
    t = tabs["flows"]
    assert isinstance(t, pa.Table) and t.num_rows == 2
    assert t.schema.field("goodput_bps").type == pa.float64()
    assert t.schema.field("goodput_bps").metadata == {b"unit": b"bit/s"}
    assert t.schema.field("sent_packets").type == pa.uint64()
    pl = pytest.importorskip("polars")
    p = pl.from_arrow(t)
    assert p.shape == (2, t.num_columns) and p["goodput_bps"].to_list() == t["goodput_bps"].to_pylist()


def test_load_cli_folder_as_results(cli, chain_file, tmp_path):
    out = tmp_path / "cli"
    subprocess.run([cli, "run", str(chain_file), "--runs", "2", "--out", str(out), "-q"], check=True)
    res = ml.load(out)
    assert isinstance(res, ml.Results)
    assert res.seeds == [3, 4] and res.name == "chain"
    assert res.summary_json.encode() == (out / "summary.json").read_bytes()
    fresh = ml.run(ml.Scenario.load(chain_file), seeds=[3, 4], progress=False)
    pd.testing.assert_frame_equal(res.flows, fresh.flows)


def test_load_refuses_other_folders(tmp_path):
    with pytest.raises(FileNotFoundError):
        ml.load(tmp_path)


def test_run_task_is_the_run_of_one_seed_and_pickles(chain_text):
    sc = ml.Scenario.from_toml(chain_text).set("flow.0.rate", "300kbps")
    t = ml.run_task(sc.toml, 11)
    r = ml.run(sc, seeds=[11], progress=False)
    assert t.summary["replications"] == r.summary["replications"]
    back = pickle.loads(pickle.dumps(t))
    assert back.summary_json == t.summary_json
    pd.testing.assert_frame_equal(back.flows, t.flows)


def test_empty_seed_list_is_refused(chain_text):
    with pytest.raises(ValueError):
        ml.run(ml.Scenario.from_toml(chain_text), seeds=[])


def test_every_table_equals_the_cli_csv(cli, chain_file, tmp_path):
    """Same tables, column names, values and nulls as the CLI writes: the
    DataFrames come from the same Rust definitions (manetlab::output)."""
    out = tmp_path / "cli"
    subprocess.run([cli, "run", str(chain_file), "--runs", "2", "--interval", "500ms", "--out", str(out), "-q"], check=True)
    res = ml.run(ml.Scenario.load(chain_file), seeds=[3, 4], interval="500ms", progress=False)
    assert res.summary_json.encode() == (out / "summary.json").read_bytes()
    written = sorted(p.stem for p in out.glob("*.csv"))
    assert written == sorted(ml.Results.TABLES)
    for name in ml.Results.TABLES:
        csv = pd.read_csv(out / f"{name}.csv", keep_default_na=False, na_values=[""])
        df = res.table(name)
        assert list(df.columns) == list(csv.columns), name
        assert len(df) == len(csv), name
        pd.testing.assert_frame_equal(df.reset_index(drop=True), csv, check_dtype=False, obj=name)
    # The flow name with a comma and a quote survives.
    assert (res.flows["flow"] == 'udp, "0"').all()


def test_timeseries_dataframe_numeric_and_adds_up(cli, chain_file, tmp_path):
    out = tmp_path / "ts"
    subprocess.run([cli, "run", str(chain_file), "--interval", "0.5s", "--out", str(out), "-q"], check=True)
    # pandas reads timeseries.csv with numeric dtypes.
    ts = pd.read_csv(out / "timeseries.csv")
    for c in ("replication", "seed", "id"):
        assert pd.api.types.is_integer_dtype(ts[c]), c
    for c in ("start_s", "end_s", "value"):
        assert pd.api.types.is_float_dtype(ts[c]), c
    assert set(ts["scope"]) == {"flow", "node"}
    assert sorted(ts["start_s"].unique()) == [0.0, 0.5, 1.0, 1.5]
    # The same from Python: per-flow sums over the intervals are the run totals.
    res = ml.run(ml.Scenario.load(chain_file).set("output.interval", "500ms"), progress=False)
    t = res.timeseries
    assert pd.api.types.is_float_dtype(t["value"]) and len(t) == len(ts)
    flows = t[t["scope"] == "flow"].groupby("metric")["value"].sum()
    f = res.flows.iloc[0]
    for m in ("sent_packets", "sent_bytes", "received_packets", "received_bytes", "dropped_packets"):
        assert flows[m] == f[m], m
    busy = t[t["metric"] == "mac_busy_fraction"]["value"]
    assert ((busy >= 0) & (busy <= 1)).all() and busy.max() > 0.05
    # Without an interval the table is empty (with its columns).
    plain = ml.run(ml.Scenario.load(chain_file), progress=False)
    assert len(plain.timeseries) == 0 and list(plain.timeseries.columns) == list(ts.columns)
