"""What the engine tests share: a local Ray cluster."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def ray():
    """A local Ray cluster with 2 CPUs for this module (or the already running one)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'medlda[ray]')")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()
