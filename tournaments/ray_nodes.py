"""The Ray cluster as the runner sees it: is an address a Ray head, where Ray's own log lines go,
and which nodes may play.

Ray retries a wrong address for minutes, printing warnings meanwhile, so an address is probed
first, in seconds: a TCP connect, then one call of the GCS's gRPC service (what a Ray head
answers on its port); whatever else answers (a web server, the dashboard, the Ray Client port)
is named in one line. A node is taken out of rotation when its bots fail to start there (the
slot's bot check, see ray_executor.py) or when it forfeits far more games than the other nodes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from foxgeese.protocol.record import BOT_FAULTS
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError

PROBE_TIMEOUT_S = 3.0  # for each step of the address probe
GCS_HINT = "the head's GCS address HOST:PORT (port 6379 unless `ray start --head --port` said otherwise)"
ANOMALY_MIN_FORFEITS = 4  # a node's forfeits before its rate is judged
ANOMALY_MIN_RATE = 0.5  # of its games
ANOMALY_FACTOR = 4.0  # times the rate of the other nodes (at least ANOMALY_FLOOR)
ANOMALY_FLOOR = 0.05
ANOMALY_MIN_OTHERS = 4  # games the other nodes must have played for a comparison


def check_address(address: str | None) -> None:
    """Raises TournamentError in seconds, in one line, when `address` (default: RAY_ADDRESS, as
    ray.init reads it) is not a Ray head."""
    address = address or os.environ.get("RAY_ADDRESS")
    if not address or address in ("auto", "local"):
        return
    if address.startswith("ray://"):
        raise TournamentError(f"Ray address {address!r}: Ray Client (ray://) is not supported, as games stream "
                              f"their moves back; give {GCS_HINT}")
    host, _, port = address.rpartition(":")
    if "://" in address or not host or not port.isdigit():
        raise TournamentError(f"Ray address {address!r}: give HOST:PORT of the cluster's head (e.g. 10.0.0.5:6379) "
                              "or auto")
    host = host.strip("[]")
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT_S).close()
    except OSError as error:
        raise TournamentError(f"cannot reach the Ray cluster's head at {address} ({error.strerror or error}); "
                              "start it with `ray start --head` or check the address") from None
    found = _not_a_head(host, int(port))
    if found is not None:
        raise TournamentError(f"{address} is not a Ray head: {found}; give {GCS_HINT}")
    if not _a_node_runs_here(host, int(port)):
        raise TournamentError(f"no node of the Ray cluster at {address} runs on this machine, and Ray runs the "
                              f"runner on one; run it on a node of the cluster (the head is simplest), or join this "
                              f"machine first with `ray start --address {address}`")


def _not_a_head(host: str, port: int) -> str | None:
    """What answers at host:port when it is not a Ray head's GCS; None when it is one (or when this
    Ray has no GCS client to ask with: then ray.init decides)."""
    try:
        import grpc
        from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc
    except ImportError:
        return None
    if not hasattr(gcs_service_pb2, "GetClusterIdRequest"):
        return None
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    with grpc.insecure_channel(target) as channel:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        try:
            stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=PROBE_TIMEOUT_S)
            return None
        except grpc.RpcError as error:
            code = error.code()
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return "it speaks gRPC but has no Ray GCS (the Ray Client port, 10001, is such a one)"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"it accepted the connection but did not answer within {PROBE_TIMEOUT_S:g}s"
    return _http_answer(host, port)


def _a_node_runs_here(host: str, port: int) -> bool:
    """Whether a raylet of the cluster runs on this machine (else ray.init looks for one for a
    minute, then fails); True when this Ray cannot tell."""
    try:
        import grpc
        from ray._private.services import find_node_ids
        from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

        here = set(find_node_ids())
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        with grpc.insecure_channel(target) as channel:
            stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
            request = gcs_service_pb2.GetAllNodeInfoRequest()  # type: ignore[attr-defined]  # protobuf code, no stubs
            nodes = stub.GetAllNodeInfo(request, timeout=PROBE_TIMEOUT_S)
        cluster = {node.node_id.hex() for node in nodes.node_info_list}
    except Exception:  # noqa: BLE001 - another Ray version, or the GCS went quiet: ray.init decides
        return True
    return bool(here & cluster)


def _http_answer(host: str, port: int) -> str:
    """Names a server that does not speak gRPC by its answer to a plain HTTP request."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S) as connection:
            connection.sendall(f"GET / HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
            answer = b""
            while len(answer) < 4096 and (chunk := connection.recv(4096)):
                answer += chunk
    except OSError:
        answer = b""
    if not answer.startswith(b"HTTP/"):
        return "a server that speaks neither gRPC nor HTTP" if answer else "a server that closed the connection"
    head = answer.decode("latin-1").split("\r\n")
    server = next((line.split(":", 1)[1].strip() for line in head if line.lower().startswith("server:")), "")
    what = "the Ray dashboard" if b"Ray Dashboard" in answer or b"dashboard" in answer.lower() else "a web server"
    return f"{what} (it answered {head[0][:60]!r}{f', server {server[:60]!r}' if server else ''})"


class RayLog:
    """Ray's own log lines (its Python loggers; what its core writes to stderr while it connects
    and disconnects) go to a file in the output folder instead of the user's terminal."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._saved: list[tuple[logging.Logger, list[logging.Handler], bool]] = []
        self._handler: logging.Handler | None = None

    def start(self) -> None:
        if self.path is None:
            return
        self._handler = logging.FileHandler(self.path, encoding="utf-8")
        self._handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        for name in ("ray", "ray.data", "ray.tune", "ray.serve", "ray.train"):
            logger = logging.getLogger(name)
            self._saved.append((logger, list(logger.handlers), logger.propagate))
            logger.handlers = [self._handler]
            logger.propagate = False

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """Within: file descriptor 2 writes to the log file (Ray's core logs there, not through Python)."""
        if self.path is None:
            yield
            return
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            with open(self.path, "ab") as log:
                os.dup2(log.fileno(), 2)
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)

    def close(self) -> None:
        for logger, handlers, propagate in self._saved:
            logger.handlers = handlers
            logger.propagate = propagate
        self._saved = []
        if self._handler is not None:
            self._handler.close()
            self._handler = None


class NodeHealth:
    """Which nodes of the cluster may play (see the module doc); shared by the slots of one run."""

    def __init__(self, log_folder: Path | None) -> None:
        self.log_folder = log_folder  # where failed bots' logs are written
        self._lock = threading.Lock()
        self._out: dict[str, str] = {}  # node id -> why it is out of rotation
        self._games: Counter[str] = Counter()
        self._forfeits: Counter[str] = Counter()

    def excluded(self) -> list[str]:
        with self._lock:
            return sorted(self._out)

    def is_out(self, node: str) -> bool:
        with self._lock:
            return node in self._out

    def take_out(self, node: str, host: str, why: str) -> bool:
        """Takes `node` out of rotation, saying so in one line; False when it already was."""
        with self._lock:
            if node in self._out:
                return False
            self._out[node] = why
        print(f"foxgeese: Ray node {host} ({node[:12]}) taken out of rotation: {why}; its games are played "
              "on the other nodes", file=sys.stderr)
        return True

    def count(self, node: str, entry: GameEntry) -> str | None:
        """Adds a finished game of `node`; says why the node is anomalous, when its forfeits are far
        above the other nodes' (fishtest judges its workers so), else None."""
        with self._lock:
            self._games[node] += 1
            if entry.forfeit is not None and entry.termination in BOT_FAULTS:
                self._forfeits[node] += 1
            games, forfeits = self._games[node], self._forfeits[node]
            other_games = sum(self._games.values()) - games
            other_forfeits = sum(self._forfeits.values()) - forfeits
        if forfeits < ANOMALY_MIN_FORFEITS or other_games < ANOMALY_MIN_OTHERS:
            return None
        rate, others = forfeits / games, other_forfeits / other_games
        if rate >= ANOMALY_MIN_RATE and rate >= ANOMALY_FACTOR * max(others, ANOMALY_FLOOR):
            return f"{forfeits} of its {games} games were forfeits, against {others:.0%} on the other nodes"
        return None

    def save_log(self, name: str, text: str) -> str | None:
        """Writes a bot's log, come back from a node, to the output folder's logs/; its path."""
        if self.log_folder is None:
            return None
        self.log_folder.mkdir(parents=True, exist_ok=True)
        path = self.log_folder / "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        path.write_text(text, encoding="utf-8")
        return str(path)

