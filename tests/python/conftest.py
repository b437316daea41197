"""Shared fixtures: the repository's digits model and data, the build's CLI binary, and a
scratch directory per test."""
import os
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))   # onnx_builder

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIGITS = ROOT / "examples" / "digits"


def build_dir():
    """<build> as ctest sets it (EDGEFOLD_BUILD_DIR), else the package's own location."""
    if "EDGEFOLD_BUILD_DIR" in os.environ:
        return pathlib.Path(os.environ["EDGEFOLD_BUILD_DIR"])
    import edgefold
    return pathlib.Path(edgefold.__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = build_dir() / "bin" / "edgefold"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return str(path)


@pytest.fixture(scope="session")
def digits_onnx():
    return str(DIGITS / "digits_cnn.onnx")


@pytest.fixture(scope="session")
def digits_x():
    return np.load(DIGITS / "digits_test_x.npy")


@pytest.fixture(scope="session")
def digits_y():
    return np.load(DIGITS / "digits_test_y.npy")


@pytest.fixture(scope="session")
def digits_model(digits_onnx):
    import edgefold as ef
    return ef.compile(digits_onnx)

