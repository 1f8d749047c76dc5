"""A real Ray cluster on this machine for the Ray executor's tests: started in a private folder
on the loopback interface, and torn down so that no Ray process outlives it (the tests that use
it fail if one does)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import psutil
import ray
from ray.cluster_utils import Cluster

# Ray on Linux replaces 127.0.0.1 by the machine's address; this keeps a one-machine cluster on
# the loopback interface (and Ray's sockets in a short private folder, not the shared /tmp/ray).
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def node_args(folder: str) -> dict[str, Any]:
    """What every node of the cluster in `folder` is started with: its files there, on loopback."""
    return {"temp_dir": f"{folder}/ray", "node_ip_address": "127.0.0.1"}


def ray_processes(folder: str) -> list[psutil.Process]:
    """Processes of the cluster in `folder`: Ray's own (named by their command lines) and the
    bots its actors started (which run in the shipped working_dir, inside `folder`)."""
    found = []
    for process in psutil.process_iter(["cmdline", "cwd"]):
        try:
            if any(folder in part for part in process.info["cmdline"] or ()) or \
                    (process.info["cwd"] or "").startswith(folder):
                found.append(process)
        except psutil.Error:
            pass
    return found


@contextmanager
def local_cluster(prefix: str, head_args: Mapping[str, Any],
                  environment: Callable[[str], Mapping[str, str]] = lambda folder: {}) -> Iterator[tuple[Cluster, str]]:
    """A cluster whose head is started with `head_args` (beside `node_args`, no dashboard) in a new
    folder named from `prefix`, with `environment(folder)` set for its processes while it runs;
    yields it and the folder. At the end: Ray shut down, the environment as it was, the folder gone,
    and an AssertionError if a Ray process outlived the cluster (it is killed)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    extra = {**RAY_ENV, "RAY_TMPDIR": folder, **environment(folder)}
    saved = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)  # for the cluster's processes; this one read RAY_TMPDIR at import
    from ray._private import ray_constants

    single_machine = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    made = None
    try:
        made = Cluster(initialize_head=True,
                       head_node_args={"include_dashboard": False, **node_args(folder), **head_args})
        yield made, folder
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if made is not None:
            made.shutdown()
        ray_constants.ENABLE_RAY_CLUSTER = single_machine
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        left = psutil.wait_procs(ray_processes(folder), timeout=15)[1]
        for process in left:
            process.kill()
        shutil.rmtree(folder, ignore_errors=True)
        assert not left, f"Ray processes outlived the cluster: {left}"
