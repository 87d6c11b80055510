"""Shared fixtures: the repository root, a small fast scenario, the CLI."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# A 3-node chain with one CBR flow: a 2-second run takes a few milliseconds.
CHAIN = """\
[run]
name = "chain"
duration = "2s"
seed = 3

[topology]
kind = "chain"
nodes = 3
spacing = "200m"

[[flow]]
name = "udp, \\"0\\""
src = 2
dst = 0
type = "cbr"
rate = "400kbps"
packet_size = "512B"
"""


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def chain_text() -> str:
    return CHAIN


@pytest.fixture
def chain_file(tmp_path: Path) -> Path:
    p = tmp_path / "chain.toml"
    p.write_text(CHAIN)
    return p


@pytest.fixture(scope="session")
def cli() -> str:
    """The manetlab command-line binary: $MANETLAB_CLI, target/release/manetlab
    (built by `cargo test --release --workspace` before pytest in .ci/run),
    else built here with cargo."""
    env = os.environ.get("MANETLAB_CLI")
    if env:
        return env
    exe = REPO / "target" / "release" / "manetlab"
    if not exe.exists():
        if shutil.which("cargo") is None:
            pytest.fail("the manetlab CLI is not built and cargo is not available")
        subprocess.run(["cargo", "build", "--release", "-p", "manetlab-cli"], cwd=REPO, check=True)
    return str(exe)
