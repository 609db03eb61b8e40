"""Shared fixtures of the package tests: the steptp executable (for the CLI side of the
comparisons) and a small dataset built with it."""

import os
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3]
PROGRAMS = SRC / "tests" / "data" / "programs"


@pytest.fixture(scope="session")
def steptp_exe() -> str:
    exe = os.environ.get("STEPTP_EXE")
    if not exe:
        pytest.fail("set STEPTP_EXE to the steptp executable (tests/python/package_test.sh does)")
    return exe


@pytest.fixture(scope="session")
def dataset(steptp_exe, tmp_path_factory) -> Path:
    """build-dataset on three small workloads, half of them held out: test splits to score."""
    out = tmp_path_factory.mktemp("dataset")
    subprocess.run([steptp_exe, "build-dataset", "--workloads", "ReLU*,Softmax*,Sum_reduction*",
                    "--small-only", "--test-fraction", "0.5", "--max-depth", "1",
                    "--out", str(out), "--quiet", "--jobs", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    return out


@pytest.fixture()
def matmul() -> str:
    return (PROGRAMS / "batched_matmul.leir").read_text()
