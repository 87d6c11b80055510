"""manetlab: a deterministic packet-level simulator for multi-hop 802.11 ad
hoc networks, with results as DataFrames.

    import manetlab as ml
    sc = ml.Scenario.load("scenarios/default.toml")
    sc = sc.set("mac.data_rate", "11Mbps")      # same keys as --set; a new Scenario
    sc.check()                                  # raises ml.ScenarioError(line, col, msg)
    res = ml.run(sc, seeds=range(5), jobs=2)    # in-process, GIL released, Ctrl-C stops it
    res.flows                                   # pandas DataFrame, one row per (seed, flow)
    df = ml.sweep(sc, {"flow.0.rate": ["1Mbps", "2Mbps"]}, runs=5, store="out/rate")
    res = ml.load("out/default")                # a CLI output folder

Simulation, statistics and every table are computed in Rust (the
`manetlab._native` extension); tables cross into Python as Arrow (the
Arrow PyCapsule interface) and become pandas DataFrames here. See
docs/python.md.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _native
from ._native import ArrowTable, ScenarioError

__version__: str = _native.__version__

__all__ = [
    "Scenario",
    "ScenarioError",
    "Results",
    "SweepResults",
    "Study",
    "run",
    "run_task",
    "sweep",
    "sweep_results",
    "load",
    "study",
    "studies",
    "ArrowTable",
]

PathLike = Union[str, "os.PathLike[str]"]
Value = Union[str, int, float, bool, Sequence[Any], Mapping[str, Any]]


def _value_text(value: Value) -> str:
    """A Python value as the value text of a `--set key=value` override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    # Lists and tables: TOML inline syntax, written by the Rust TOML writer.
    text = _native.toml_from_json(json.dumps({"v": value}))
    return text.split("=", 1)[1].strip()


def _progress_default(progress: Optional[bool]) -> bool:
    if progress is not None:
        return progress
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Scenario:
    """A scenario: a TOML file or text plus `--set` overrides.

    Scenarios are immutable values: `set` returns a new one. Validation
    happens in `check()` and before every run; errors raise `ScenarioError`
    with the file, line and column.
    """

    __slots__ = ("_kind", "_body", "_origin", "_overrides")

    def __init__(self, kind: str, body: str, origin: str, overrides: Sequence[str] = ()) -> None:
        if kind not in ("file", "text"):
            raise ValueError("kind must be 'file' or 'text'")
        self._kind = kind
        self._body = body
        self._origin = origin
        self._overrides = tuple(overrides)

    @classmethod
    def load(cls, path: PathLike) -> "Scenario":
        """A scenario file (TOML, see docs/scenario.md)."""
        p = os.fspath(path)
        if not os.path.isfile(p):
            raise FileNotFoundError(f"{p}: no such scenario file")
        return cls("file", p, p)

    @classmethod
    def from_toml(cls, text: str, name: str = "<string>") -> "Scenario":
        """A scenario from TOML text; `name` names it in error messages and
        anchors relative paths (movement files)."""
        return cls("text", text, name)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], name: str = "<dict>") -> "Scenario":
        """A scenario from a dict shaped like the TOML file
        (`{"run": {"duration": "10s"}, "flow": [{...}], ...}`)."""
        return cls("text", _native.toml_from_json(json.dumps(d)), name)

    def set(self, key: Union[str, Mapping[str, Value]], value: Optional[Value] = None) -> "Scenario":
        """A new scenario with `key` set to `value`, exactly as
        `--set key=value` (`"mac.data_rate", "11Mbps"`; `"flow.0.rate"`;
        `"flow.*.start"`). A dict sets several keys in order."""
        if isinstance(key, Mapping):
            pairs = list(key.items())
        else:
            if value is None:
                raise TypeError("set(key, value): value is missing")
            pairs = [(key, value)]
        extra = [f"{k}={_value_text(v)}" for k, v in pairs]
        return Scenario(self._kind, self._body, self._origin, self._overrides + tuple(extra))

    @property
    def overrides(self) -> List[str]:
        """The `key=value` overrides applied, in order."""
        return list(self._overrides)

    def _src(self) -> Dict[str, Any]:
        return {"kind": self._kind, "body": self._body, "origin": self._origin, "overrides": list(self._overrides)}

    def check(self) -> Dict[str, Any]:
        """Validates the scenario (raises `ScenarioError`); returns its name,
        node count, flow names, duration_s, seed, replications and sweep axes."""
        return _native.check(self._src())

    @property
    def name(self) -> str:
        """`run.name`, or the file name without its extension."""
        return self.check()["name"]

    @property
    def toml(self) -> str:
        """The scenario text with the overrides applied: with `run_task`,
        the unit of work a distributed executor ships to a worker."""
        return _native.effective_toml(self._src())

    @property
    def origin(self) -> str:
        """The file path, or the name given to text."""
        return self._origin

    def __repr__(self) -> str:
        sets = "".join(f", set {o}" for o in self._overrides)
        return f"<manetlab.Scenario {self._origin!r}{sets}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._src() == other._src()

    def __hash__(self) -> int:
        return hash((self._kind, self._body, self._origin, self._overrides))


def _to_pandas(t: ArrowTable) -> "Any":
    import pyarrow as pa

    return pa.table(t).to_pandas()


class Results:
    """The replications of one scenario: tables as pandas DataFrames (tidy,
    SI units with the unit in the column name), `summary` as summary.json's
    content, `to_arrow()` as pyarrow tables."""

    #: The tables `to_arrow()` returns: those the CLI writes as CSV, built
    #: by the same Rust definitions (`manetlab::output`).
    TABLES = (
        "flows",
        "flows-summary",
        "network",
        "network-summary",
        "flow-drops",
        "histograms",
        "nodes",
        "timeseries",
    )

    def __init__(self, native: "_native.Results") -> None:
        self._native = native
        self._cache: Dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def seeds(self) -> List[int]:
        return self._native.seeds

    def _df(self, name: str) -> "Any":
        if name not in self._cache:
            self._cache[name] = _to_pandas(self._native.table(name))
        return self._cache[name]

    @property
    def flows(self) -> "Any":
        """One row per (replication, flow): the columns of flows.csv."""
        return self._df("flows")

    @property
    def flows_summary(self) -> "Any":
        """Per flow, n / mean / sd / ci95 of every metric over the
        replications: the columns of flows-summary.csv."""
        return self._df("flows-summary")

    @property
    def network(self) -> "Any":
        """One row per replication: the columns of network.csv (data packets
        sent/received over all flows, delivery ratio, packet-weighted mean
        delay, routing packets and bytes, normalized routing load, MAC
        counters, drops by reason)."""
        return self._df("network")

    @property
    def nodes(self) -> "Any":
        """One row per (replication, node): the columns of nodes.csv."""
        return self._df("nodes")

    @property
    def timeseries(self) -> "Any":
        """Per-interval series in tidy long format, the columns of
        timeseries.csv (replication, seed, start_s, end_s, scope, id,
        metric, value). Empty unless the runs recorded one: `run(...,
        interval="1s")` or `[output] interval` in the scenario."""
        return self._df("timeseries")

    def table(self, name: str) -> "Any":
        """Any table of `TABLES` by its CSV name ("flow-drops", ...)."""
        return self._df(name)

    @property
    def summary_json(self) -> str:
        """summary.json's text, byte for byte as `manetlab run` writes it."""
        return self._native.summary_json()

    @property
    def summary(self) -> Dict[str, Any]:
        """summary.json's content as dicts and lists."""
        if "summary" not in self._cache:
            self._cache["summary"] = json.loads(self.summary_json)
        return self._cache["summary"]

    def to_arrow(self) -> Dict[str, "Any"]:
        """The tables as pyarrow Tables, keyed by CSV name ({"flows": ...,
        "network": ..., "nodes": ..., "timeseries": ..., ...}); column units
        are field metadata; `polars.from_arrow` takes them."""
        import pyarrow as pa

        return {n: pa.table(self._native.table(n)) for n in self.TABLES}

    def save(self, directory: PathLike) -> Path:
        """Writes summary.json into `directory` (created if needed)."""
        d = Path(directory)
        self._native.write_summary(os.fspath(d))
        return d / "summary.json"

    def __reduce__(self) -> Any:
        return (_results_from_summary, (self.summary_json,))

    def __repr__(self) -> str:
        return f"<manetlab.Results {self.name!r}: {len(self.seeds)} replication(s), seeds {self.seeds}>"


def _results_from_summary(text: str) -> Results:
    return Results(_native.results_from_summary(text))


def _seed_list(seeds: Union[int, Iterable[int], None]) -> Optional[List[int]]:
    if seeds is None:
        return None
    if isinstance(seeds, int):
        return [seeds]
    out = [int(s) for s in seeds]
    if not out:
        raise ValueError("seeds is empty")
    return out


def run(
    scenario: Union[Scenario, PathLike],
    seeds: Union[int, Iterable[int], None] = None,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    interval: Optional[str] = None,
    path_profile: Optional[bool] = None,
) -> Results:
    """Runs the scenario once per seed, in parallel on `jobs` threads (all
    cores by default), in this process with the GIL released. Ctrl-C
    (KeyboardInterrupt) stops the runs within a slice of simulated time.

    `seeds`: one seed, an iterable (`range(5)`), or None for the
    scenario's own (`run.seed`, `run.replications`).
    `interval` ("1s"): record the time series (`Results.timeseries`), as
    `--interval` / `[output] interval`. `path_profile`: record mobile
    flows' path profiles, as `--path-profile`.
    """
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    sc = _with_outputs(sc, interval, path_profile)
    native = _native.run(sc._src(), _seed_list(seeds), jobs, _progress_default(progress))
    return Results(native)


def _with_outputs(sc: Scenario, interval: Optional[str], path_profile: Optional[bool]) -> Scenario:
    """`sc` with the output keys of `run`/`sweep` set (none: unchanged)."""
    if interval is not None:
        sc = sc.set("output.interval", interval)
    if path_profile is not None:
        sc = sc.set("output.path_profile", bool(path_profile))
    return sc


def run_task(toml: str, seed: int, name: str = "<task>") -> Results:
    """One run as a pure function of (scenario text, seed), on one thread:
    the task a distributed executor ships to a worker (`Scenario.toml` is
    the text). Results pickle as their summary.json."""
    return Results(_native.run_task(toml, int(seed), name))


class SweepResults:
    """A sweep's runs: `runs` (one row per run and flow, sweep-runs.csv)
    and `summary` (per point and flow: <metric>_n, _mean, _sd, _ci95,
    sweep.csv)."""

    def __init__(self, native: "_native.Sweep", store: Optional[Path] = None) -> None:
        self._native = native
        self.store = store
        self._cache: Dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def axes(self) -> Dict[str, List[str]]:
        return dict(self._native.axes)

    @property
    def seeds(self) -> List[int]:
        return self._native.seeds

    @property
    def loaded(self) -> int:
        """Runs read back from the store instead of run."""
        return self._native.loaded

    @property
    def ran(self) -> int:
        """Runs executed by the call that made this object."""
        return self._native.ran

    def _df(self, name: str) -> "Any":
        if name not in self._cache:
            self._cache[name] = _to_pandas(self._native.table(name))
        return self._cache[name]

    @property
    def runs(self) -> "Any":
        return self._df("runs")

    @property
    def summary(self) -> "Any":
        """Per point and flow: <metric>_n, _mean, _sd, _ci95 (sweep.csv)."""
        return self._df("summary")

    @property
    def timeseries(self) -> "Any":
        """Every run's time series after the axis columns
        (sweep-timeseries.csv); empty unless recorded (`interval=`)."""
        return self._df("timeseries")

    def point(self, index: int) -> Results:
        """The runs of one point (in grid order, first axis slowest): needs
        their full reports in the store (`full_reports=True`)."""
        return Results(self._native.point(index))

    def to_arrow(self) -> Dict[str, "Any"]:
        import pyarrow as pa

        return {n: pa.table(self._native.table(n)) for n in ("runs", "summary", "timeseries")}

    def __repr__(self) -> str:
        return f"<manetlab.SweepResults {self.name!r}: axes {list(self.axes)}, seeds {self.seeds}, {self.loaded} loaded>"


def sweep_results(
    scenario: Union[Scenario, PathLike],
    axes: Mapping[str, Sequence[Value]],
    runs: Optional[int] = None,
    seeds: Union[int, Iterable[int], None] = None,
    store: Optional[PathLike] = None,
    resume: bool = True,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    interval: Optional[str] = None,
    executor: Any = None,
    retries: int = 3,
    full_reports: bool = False,
) -> SweepResults:
    """As `sweep`, returning the SweepResults object (runs, summary,
    timeseries, points, loaded/ran counts)."""
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    sc = _with_outputs(sc, interval, None)
    seed_list = _seed_list(seeds)
    if seed_list is None:
        info = sc.check()
        n = runs if runs is not None else info["replications"]
        seed_list = [info["seed"] + k for k in range(max(1, int(n)))]
    elif runs is not None and runs != len(seed_list):
        raise ValueError("give runs or seeds, not both")
    ax = [(k, [_value_text(v) for v in vs]) for k, vs in axes.items()]
    st = None if store is None else Path(store)
    st_arg = None if st is None else os.fspath(st)
    if executor is not None:
        if full_reports:
            raise ValueError("full_reports is for local sweeps (an executor returns compact records)")
        from ._executor import run_on_executor

        job = _native.SweepJob(sc._src(), ax, seed_list, st_arg, resume)
        run_on_executor(job, executor, retries=retries, progress=_progress_default(progress))
        return SweepResults(job.finish(), st)
    native = _native.sweep(sc._src(), ax, seed_list, jobs, st_arg, resume, _progress_default(progress), full_reports)
    return SweepResults(native, st)


def sweep(
    scenario: Union[Scenario, PathLike],
    axes: Mapping[str, Sequence[Value]],
    runs: Optional[int] = None,
    seeds: Union[int, Iterable[int], None] = None,
    store: Optional[PathLike] = None,
    resume: bool = True,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    interval: Optional[str] = None,
    executor: Any = None,
    retries: int = 3,
    full_reports: bool = False,
) -> "Any":
    """Runs every point of the grid `axes` ({key: [values]}, keys as for
    `--set`, first axis slowest) `runs` times (seeds run.seed, +1, ...; or
    give `seeds`), in parallel on all cores. Returns a tidy DataFrame: one
    row per run and flow, the columns of sweep-runs.csv (axes as SI numbers
    with the unit in the name, e.g. `flow.0.rate_bps`).

    With `store`, each finished run is appended at once to the run store
    under `<store>/runs/` (the format `manetlab run --sweep --resume` and
    `manetlab merge` read), and the sweep files (sweep.csv, sweep-runs.csv,
    sweep.json) are written; with `resume` (default) runs already stored
    for the same key, config and build are loaded, not run. `full_reports`
    also stores every run's full report (for `SweepResults.point`).

    `executor`: a `dask.distributed.Client` or any
    `concurrent.futures.Executor`; each run is then one task
    (`manetlab._executor.run_record`), results stream into the store as
    they finish, failed or lost tasks are retried (`retries` times) and the
    DataFrame is identical to a local sweep's. See docs/cluster.md.
    `df.attrs` holds `loaded` and `ran` counts.
    """
    r = sweep_results(
        scenario, axes, runs=runs, seeds=seeds, store=store, resume=resume, jobs=jobs, progress=progress,
        interval=interval, executor=executor, retries=retries, full_reports=full_reports,
    )
    df = r.runs.copy()
    df.attrs.update({"scenario": r.name, "loaded": r.loaded, "ran": r.ran, "store": None if r.store is None else str(r.store)})
    return df


def load(path: PathLike) -> Union[Results, SweepResults]:
    """A CLI (or Python) output folder: a run folder (summary.json) as
    Results, a sweep folder (sweep-plan.json + runs/) as SweepResults."""
    p = Path(path)
    if (p / "sweep-plan.json").is_file():
        return SweepResults(_native.load_sweep(os.fspath(p)), p)
    if (p / "summary.json").is_file():
        return Results(_native.load_run(os.fspath(p)))
    raise FileNotFoundError(f"{p}: neither summary.json nor sweep.json found")


class Study:
    """A paper reproduction's outcome: `checks` (a DataFrame: what, passed,
    detail), `markdown` (the report), `tables` (the figures' data, one
    DataFrame per CSV written) and `files`."""

    def __init__(self, d: Mapping[str, Any]) -> None:
        import pandas as pd

        self.name: str = d["name"]
        self.out = Path(d["out"])
        self.markdown: str = d["markdown"]
        self.runs: int = d["runs"]
        self.files: List[Path] = [Path(f) for f in d["files"]]
        self.checks = pd.DataFrame(d["checks"], columns=["what", "passed", "detail"])
        self._tables: Optional[Dict[str, Any]] = None

    @property
    def passed(self) -> bool:
        """Whether every check reproduces."""
        return bool(self.checks["passed"].all())

    @property
    def tables(self) -> Dict[str, Any]:
        if self._tables is None:
            import pandas as pd

            self._tables = {f.stem: pd.read_csv(f) for f in self.files if f.suffix == ".csv"}
        return self._tables

    def __repr__(self) -> str:
        n = len(self.checks)
        ok = int(self.checks["passed"].sum())
        return f"<manetlab.Study {self.name!r}: {ok} of {n} checks reproduce, {self.runs} runs, report {self.out / 'report.md'}>"


def study(
    name: str,
    quick: bool = False,
    runs: Optional[int] = None,
    seed: int = 1,
    out: Optional[PathLike] = None,
    resume: bool = False,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
) -> Study:
    """Runs a paper reproduction (`manetlab study NAME`): writes its report,
    figures and runs under `out` (default out/study-NAME) and returns its
    checks and tables. `studies()` lists the names."""
    d = _native.study(
        name, quick, runs, seed, None if out is None else os.fspath(out), resume, _progress_default(progress), jobs
    )
    return Study(d)


def studies() -> List[Dict[str, str]]:
    """The paper reproductions this build knows: name, paper, about."""
    return [{"name": n, "paper": p, "about": a} for n, p, a in _native.studies()]
