import pytest

import manetlab as ml


def test_study_chain_quick(tmp_path):
    st = ml.study("chain", quick=True, out=tmp_path / "chain", progress=False)
    assert st.name == "chain" and st.runs > 0
    assert len(st.checks) >= 5
    assert list(st.checks.columns) == ["what", "passed", "detail"]
    assert st.passed, st.checks[~st.checks["passed"]]
    assert (tmp_path / "chain" / "report.md").read_text() == st.markdown or "report" in st.markdown.lower()
    assert st.tables, "figure data tables"
    some = next(iter(st.tables.values()))
    assert len(some) > 0


def test_unknown_study_raises():
    with pytest.raises(KeyError):
        ml.study("nope", quick=True)
