"""The import contracts (pyproject.toml, checked by ``lint-imports``) cover the whole app.

A layers contract only constrains the modules it names: a new module directly
under ``shared/`` that no layer names could import anything. This test makes
adding one to a layer part of adding the module.
"""

from __future__ import annotations

import pkgutil
import re
import tomllib
from pathlib import Path

import shared

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]


def _layered_modules() -> set[str]:
    (layers,) = [c for c in CONTRACTS if c["type"] == "layers"]
    return {name for layer in layers["layers"] for name in re.split(r"\s*[|:]\s*", layer)}


def test_every_module_under_shared_is_in_a_layer():
    children = {f"shared.{m.name}" for m in pkgutil.iter_modules(shared.__path__)}
    missing = sorted(children - _layered_modules())
    assert not missing, f"add these to a layer of [tool.importlinter] in pyproject.toml: {missing}"
