"""Which process is at the other end of a connection to the referee: the kernel's word, on ipc:// and TCP.

A hello is judged by the process that sent it, not by its token (see referee.py). On an ipc://
(Unix) socket the kernel records the process that connected (SO_PEERCRED). A TCP connection has no
such record, but on this machine its other end is a socket in the kernel's table (/proc/net/tcp,
/proc/net/tcp6) under an inode, and every process holding that socket shows it in /proc/PID/fd as
`socket:[INODE]`, which is how `ss -tp` names a connection's process. So for a connection from this
machine the referee looks up the peer's port in that table and then which launched bot's process
tree holds the socket. A connection from another machine, or held by no process the referee can
see (another user's, or one that closed it already), names no process.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_CHILDREN_LIMIT = 10_000  # processes looked at in one tree, at most (a fork bomb does not stall a hello)


@dataclass(frozen=True)
class Peer:
    """The other end of one connection: `unix` with the pid the kernel recorded, or `tcp` with the
    inode of the peer's socket on this machine (None: not on this machine, or gone)."""

    kind: str  # "unix", "tcp" or "" (neither: no process can be named)
    pid: int | None = None
    inode: int | None = None


def peer_of(fd: int) -> Peer:
    """What the kernel says about the other end of the connection on descriptor `fd`."""
    try:
        with socket.fromfd(fd, socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            domain = connection.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN)
            if domain == socket.AF_UNIX:
                credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
                pid = struct.unpack("3i", credentials)[0]
                return Peer("unix", pid=pid if pid > 0 else None)
            if domain not in (socket.AF_INET, socket.AF_INET6):
                return Peer("")
    except OSError:
        return Peer("")
    try:  # fromfd keeps the family it was given: ask again with the right one
        with socket.fromfd(fd, domain, socket.SOCK_STREAM) as connection:
            remote, local = connection.getpeername(), connection.getsockname()
    except OSError:
        return Peer("tcp")
    return Peer("tcp", inode=tcp_inode(remote[0], remote[1], local[0], local[1]))


def tcp_inode(peer_host: str, peer_port: int, host: str, port: int) -> int | None:
    """The inode of the socket on this machine whose own end is peer_host:peer_port and whose other
    end is host:port (the referee's), from the kernel's TCP tables; None if there is none."""
    try:
        peer_ip, local_ip = ipaddress.ip_address(peer_host), ipaddress.ip_address(host)
    except ValueError:
        return None
    wanted = {_table_address(peer_ip, peer_port, 4), _table_address(peer_ip, peer_port, 6)}
    other = {_table_address(local_ip, port, 4), _table_address(local_ip, port, 6)}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, "rb") as source:
                next(source, None)  # the header line
                for line in source:
                    fields = line.split()
                    if len(fields) > 9 and fields[1] in wanted and fields[2] in other:
                        inode = int(fields[9])
                        return inode or None  # 0: a socket no process holds (TIME_WAIT)
        except (OSError, ValueError):
            continue
    return None


def _table_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int, version: int) -> bytes:
    """How /proc/net/tcp (version 4) or tcp6 writes an address: the address's 32-bit words in the
    machine's byte order, in hex, then the port. An IPv4 address in tcp6 is v4-mapped."""
    if version == 4:
        if ip.version != 4:
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            if mapped is None:
                return b""
            ip = mapped
        packed = ip.packed
    else:
        packed = (ipaddress.IPv6Address(f"::ffff:{ip}") if ip.version == 4 else ip).packed
    words = struct.unpack(f"={len(packed) // 4}I", packed)
    return b"".join(b"%08X" % word for word in words) + b":%04X" % port


def holds_socket(pid: int, inode: int) -> bool:
    """Whether process `pid` has the socket `inode` among its descriptors (False if it cannot be seen)."""
    wanted = f"socket:[{inode}]"
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"{folder}/{name}") == wanted:
                return True
        except OSError:
            continue
    return False


def tree(root: int) -> Iterator[int]:
    """`root` and every process below it, from the kernel's children lists of each thread."""
    stack, seen = [root], 0
    while stack and seen < _CHILDREN_LIMIT:
        pid = stack.pop()
        seen += 1
        yield pid
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/children", "rb") as source:
                    stack.extend(int(child) for child in source.read().split())
            except (OSError, ValueError):
                continue


def holder_in(roots: Iterable[int], inode: int) -> int | None:
    """The first of `roots` whose process tree holds socket `inode`, or None."""
    for root in roots:
        if any(holds_socket(pid, inode) for pid in tree(root)):
            return root
    return None
