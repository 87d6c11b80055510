"""Type stubs of the `manetlab` package (see docs/python.md)."""

import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd
import pyarrow as pa

from ._native import ArrowTable as ArrowTable, ScenarioError as ScenarioError

__version__: str

PathLike = Union[str, os.PathLike[str]]
Value = Union[str, int, float, bool, Sequence[Any], Mapping[str, Any]]

class Scenario:
    """A scenario file or text plus `--set` overrides; immutable."""

    def __init__(self, kind: str, body: str, origin: str, overrides: Sequence[str] = ...) -> None: ...
    @classmethod
    def load(cls, path: PathLike) -> Scenario: ...
    @classmethod
    def from_toml(cls, text: str, name: str = "<string>") -> Scenario: ...
    @classmethod
    def from_dict(cls, d: Mapping[str, Any], name: str = "<dict>") -> Scenario: ...
    def set(self, key: Union[str, Mapping[str, Value]], value: Optional[Value] = None) -> Scenario: ...
    @property
    def overrides(self) -> List[str]: ...
    def check(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def toml(self) -> str: ...
    @property
    def origin(self) -> str: ...

class Results:
    TABLES: tuple[str, ...]
    @property
    def name(self) -> str: ...
    @property
    def seeds(self) -> List[int]: ...
    @property
    def flows(self) -> pd.DataFrame: ...
    @property
    def network(self) -> pd.DataFrame: ...
    @property
    def nodes(self) -> pd.DataFrame: ...
    @property
    def timeseries(self) -> pd.DataFrame: ...
    @property
    def summary_json(self) -> str: ...
    @property
    def summary(self) -> Dict[str, Any]: ...
    def to_arrow(self) -> Dict[str, pa.Table]: ...
    def save(self, directory: PathLike) -> Path: ...

class SweepResults:
    store: Optional[Path]
    @property
    def name(self) -> str: ...
    @property
    def axes(self) -> Dict[str, List[str]]: ...
    @property
    def seeds(self) -> List[int]: ...
    @property
    def loaded(self) -> int: ...
    @property
    def ran(self) -> int: ...
    @property
    def runs(self) -> pd.DataFrame: ...
    @property
    def summary(self) -> pd.DataFrame: ...
    def point(self, index: int) -> Results: ...
    def to_arrow(self) -> Dict[str, pa.Table]: ...

class Study:
    name: str
    out: Path
    markdown: str
    runs: int
    files: List[Path]
    checks: pd.DataFrame
    @property
    def passed(self) -> bool: ...
    @property
    def tables(self) -> Dict[str, pd.DataFrame]: ...

def run(
    scenario: Union[Scenario, PathLike],
    seeds: Union[int, Iterable[int], None] = None,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
) -> Results: ...
def run_task(toml: str, seed: int, name: str = "<task>") -> Results: ...
def sweep(
    scenario: Union[Scenario, PathLike],
    axes: Mapping[str, Sequence[Value]],
    runs: Optional[int] = None,
    seeds: Union[int, Iterable[int], None] = None,
    store: Optional[PathLike] = None,
    resume: bool = True,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    executor: Any = None,
    retries: int = 3,
    full_reports: bool = False,
) -> pd.DataFrame: ...
def sweep_results(
    scenario: Union[Scenario, PathLike],
    axes: Mapping[str, Sequence[Value]],
    runs: Optional[int] = None,
    seeds: Union[int, Iterable[int], None] = None,
    store: Optional[PathLike] = None,
    resume: bool = True,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
    executor: Any = None,
    retries: int = 3,
    full_reports: bool = False,
) -> SweepResults: ...
def load(path: PathLike) -> Union[Results, SweepResults]: ...
def study(
    name: str,
    quick: bool = False,
    runs: Optional[int] = None,
    seed: int = 1,
    out: Optional[PathLike] = None,
    resume: bool = False,
    jobs: Optional[int] = None,
    progress: Optional[bool] = None,
) -> Study: ...
def studies() -> List[Dict[str, str]]: ...
