import pytest

import manetlab as ml


def test_load_check_and_properties(repo):
    sc = ml.Scenario.load(repo / "scenarios" / "default.toml")
    info = sc.check()
    assert info["name"] == "S1 2-hop chain"
    assert info["nodes"] == 3
    assert info["flows"] == ["udp0"]
    assert info["duration_s"] == 30.0
    assert info["seed"] == 1 and info["replications"] == 1
    assert sc.name == "S1 2-hop chain"
    assert 'data_rate = "11Mbps"' in sc.toml


def test_load_missing_file_raises():
    with pytest.raises(FileNotFoundError):
        ml.Scenario.load("no/such/file.toml")


def test_set_returns_a_new_scenario_with_the_cli_keys(chain_text):
    sc = ml.Scenario.from_toml(chain_text)
    longer = sc.set("run.duration", "5s")
    assert longer is not sc
    assert sc.check()["duration_s"] == 2.0
    assert longer.check()["duration_s"] == 5.0
    assert longer.overrides == ["run.duration=5s"]
    # Several keys at once, numbers and booleans as TOML values, flow.* keys.
    sc2 = sc.set({"topology.nodes": 4, "flow.*.src": 3, "mac.rts_threshold": "0B"})
    assert sc2.check()["nodes"] == 4
    assert sc2.overrides == ["topology.nodes=4", "flow.*.src=3", "mac.rts_threshold=0B"]
    assert sc2 != sc and sc2 == sc.set({"topology.nodes": 4, "flow.*.src": 3, "mac.rts_threshold": "0B"})


def test_bad_scenario_raises_scenario_error_with_line_and_column(chain_text):
    bad = chain_text.replace('spacing = "200m"', 'spacing = "200parsecs"')
    sc = ml.Scenario.from_toml(bad, name="bad.toml")
    with pytest.raises(ml.ScenarioError) as ei:
        sc.check()
    e = ei.value
    assert e.line == 9
    assert e.col == 11
    assert e.origin == "bad.toml"
    assert "200parsecs" in e.msg or "unit" in e.msg
    assert str(e).startswith("bad.toml:9:11: ")
    assert isinstance(e, ValueError)
    # A run refuses it the same way.
    with pytest.raises(ml.ScenarioError):
        ml.run(sc)


def test_bad_file_keeps_file_line_col(tmp_path, chain_text):
    p = tmp_path / "typo.toml"
    p.write_text(chain_text.replace("[topology]", "[topology]\nnodez = 3"))
    with pytest.raises(ml.ScenarioError) as ei:
        ml.Scenario.load(p).check()
    assert ei.value.line == 7 and ei.value.col == 1
    assert str(ei.value).startswith(f"{p}:7:1: ")
    assert ei.value.kind == "UnknownKey"


def test_bad_override_names_the_override(chain_text):
    sc = ml.Scenario.from_toml(chain_text).set("mac.data_rate", "3 parsecs")
    with pytest.raises(ml.ScenarioError) as ei:
        sc.check()
    assert ei.value.override == "mac.data_rate=3 parsecs"
    assert "--set mac.data_rate=3 parsecs" in str(ei.value)


def test_syntax_error_has_position():
    with pytest.raises(ml.ScenarioError) as ei:
        ml.Scenario.from_toml("[run]\nduration = \n").check()
    assert ei.value.line == 2 and ei.value.kind == "Syntax"


def test_from_dict_equals_from_toml(chain_text):
    d = {
        "run": {"name": "chain", "duration": "2s", "seed": 3},
        "topology": {"kind": "chain", "nodes": 3, "spacing": "200m"},
        "flow": [{"name": 'udp, "0"', "src": 2, "dst": 0, "type": "cbr", "rate": "400kbps", "packet_size": "512B"}],
    }
    a = ml.run(ml.Scenario.from_dict(d), progress=False)
    b = ml.run(ml.Scenario.from_toml(chain_text), progress=False)
    assert a.summary_json == b.summary_json


def test_studies_lists_chain():
    names = [s["name"] for s in ml.studies()]
    assert "chain" in names
