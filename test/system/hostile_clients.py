#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile clients against a running restcached on 127.0.0.1, for test/system/hostile.

Each attack prints one line of key=value figures. The daemon's RSS is read from
/proc/PID/status, so only the memory the process holds counts (the kernel's
socket buffers do not).

  hostile_clients.py slowloris PID PORT SOCKETS SECONDS
      SOCKETS connections each send a request header one byte per 10 s
      (`GET /deptemps/77 HTTP/1.1\\r\\nHost: x\\r\\nX-S: a` first); a real
      client asks GET /health once a second meanwhile. Reports how many of the
      trickling connections the daemon had closed after SECONDS, when the first
      and last were closed, the real client's answers (200, 503, none) and RSS.
  hostile_clients.py bodies PID PORT SOCKETS
      SOCKETS connections each send `GET /deptemps/77` announcing a
      Content-Length of 2 MiB and then all but 10 bytes of it; RSS before and
      after, held 5 s.
  hostile_clients.py chunk_lines PID PORT SOCKETS SECONDS
      SOCKETS connections each send an admitted chunked `PUT /depts/77`
      (Host: localhost: open writes on loopback) and then, for SECONDS, a
      chunk header (`2;x=aaaa...`) or a trailer (`0\\r\\nX-T: aaaa...`, every
      other connection) that never ends, as fast as the daemon reads; RSS
      before and at its peak, and how each connection ended.
  hostile_clients.py announced_bodies PID PORT SOCKETS
      SOCKETS connections each send `PUT /depts/77` with `Expect:
      100-continue` and a Content-Length of 2 MiB, header only; then a real
      client PUTs a whole department. Reports how many got 100 Continue, the
      real write's status, restcache_http_body_bytes_held, and how many of the
      idle ones the daemon had closed 10 s later.
  hostile_clients.py pipelined_after_write PID PORT SOCKETS
      SOCKETS connections each send a write with a 60 KB body (answered 400:
      read and parsed all the same), then 200 pipelined `GET /deptemps/77`
      whose answers they never read; RSS growth per connection, held 3 s.
  hostile_clients.py reconnecting_slowloris PID PORT SOCKETS SECONDS
      SOCKETS connections from 127.0.0.2 each send the slowloris header and
      then a byte per 10 s; every one the daemon closes is opened again at
      once, for SECONDS. Meanwhile a real client on 127.0.0.1 asks GET
      /health eight times a second. Reports the real client's answers (200,
      503, 429, none), how often the attacker reconnected, what the daemon
      shed and refused per address (restcache_http_connections_*), and RSS.
  hostile_clients.py basp PID BYTES
      To every socket the daemon listens on (found from /proc/PID/fd and
      /proc/net/{tcp,tcp6,unix}), three connections each read what the server
      sends first (CAF's handshake), then send a BASP header (32 bytes)
      announcing BYTES bytes of payload and one byte of it; RSS before and
      after, held 3 s.
"""
import os
import socket
import struct
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def get_status(port, target="/health", timeout=2.0):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
            data = s.recv(64)
            if not data.startswith(b"HTTP/1."):
                return 0
            return int(data.split()[1])
    except OSError:
        return 0


def connect_sending(port, data):
    """A connection to the daemon that has sent `data`."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(data)
    return s


def closed_by_peer(s):
    """True when the peer has closed (EOF or reset), without blocking."""
    try:
        s.setblocking(False)
        data = s.recv(4096)
        # An answer to a request never finished is a refusal (503, 429).
        return data == b"" or data.startswith(b"HTTP/1.1 ")
    except BlockingIOError:
        return False
    except OSError:
        return True


def rounds(port, seconds, pause, answers):
    """Every `pause` s for `seconds`, the real client asks GET /health once
    (its answer counted in `answers`); yields the seconds since the start and
    whether the trickling connections send their next byte now (every 10 s)."""
    start = time.monotonic()
    last_byte = start
    while time.monotonic() - start < seconds:
        time.sleep(pause)
        status = get_status(port)
        answers[status] = answers.get(status, 0) + 1
        now = time.monotonic()
        trickle = now - last_byte >= 10
        if trickle:
            last_byte = now
        yield now - start, trickle


def slowloris(pid, port, n, seconds):
    rss0 = rss_kib(pid)
    socks = []
    for _ in range(n):
        s = connect_sending(port, b"GET /deptemps/77 HTTP/1.1\r\nHost: x\r\nX-S: a")
        socks.append(s)
    closed_at = {}
    answers = {}
    for elapsed, trickle in rounds(port, seconds, 1.0, answers):
        for i, s in enumerate(socks):
            if i in closed_at:
                continue
            if closed_by_peer(s):
                closed_at[i] = elapsed
                continue
            if trickle:
                try:
                    s.setblocking(True)
                    s.sendall(b"a")
                except OSError:
                    closed_at[i] = elapsed
    rss1 = rss_kib(pid)
    times = sorted(closed_at.values())
    for s in socks:
        s.close()
    print(f"attack=slowloris sockets={n} seconds={seconds} closed={len(closed_at)}"
          f" first_closed_s={times[0] if times else -1:.1f} last_closed_s={times[-1] if times else -1:.1f}"
          f" real_client_200={answers.get(200, 0)} real_client_503={answers.get(503, 0)}"
          f" real_client_none={answers.get(0, 0)} rss_before_kib={rss0} rss_after_kib={rss1}")


def reconnecting_slowloris(pid, port, n, seconds):
    header = b"GET /deptemps/77 HTTP/1.1\r\nHost: x\r\nX-S: a"

    def attacker():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.0.0.2", 0))
            s.sendall(header)
            return s
        except OSError:
            return None

    rss0 = rss_kib(pid)
    shed0 = metric_value(port, "restcache_http_connections_shed_total")
    refused0 = metric_value(port, "restcache_http_connections_refused_per_address_total")
    socks = [attacker() for _ in range(n)]
    reconnects = 0
    answers = {}
    for _, trickle in rounds(port, seconds, 0.125, answers):
        for i, s in enumerate(socks):
            if s is not None and not closed_by_peer(s):
                if trickle:
                    try:
                        s.setblocking(True)
                        s.sendall(b"a")
                    except OSError:
                        pass
                continue
            if s is not None:
                s.close()
            socks[i] = attacker()
            reconnects += 1
    rss1 = rss_kib(pid)
    held = sum(1 for s in socks if s is not None and not closed_by_peer(s))
    for s in socks:
        if s is not None:
            s.close()
    shed = metric_value(port, "restcache_http_connections_shed_total")
    refused = metric_value(port, "restcache_http_connections_refused_per_address_total")
    print(f"attack=reconnecting_slowloris sockets={n} seconds={seconds} reconnects={reconnects}"
          f" held_at_end={held} real_client_200={answers.get(200, 0)} real_client_503={answers.get(503, 0)}"
          f" real_client_429={answers.get(429, 0)} real_client_none={answers.get(0, 0)}"
          f" shed={shed - shed0 if shed >= 0 else 'n/a'} refused_per_address="
          f"{refused - refused0 if refused >= 0 else 'n/a'} rss_before_kib={rss0} rss_after_kib={rss1}")


def bodies(pid, port, n):
    rss0 = rss_kib(pid)
    length = 2 * 1024 * 1024
    socks = []
    refused = 0
    for _ in range(n):
        s = connect_sending(port, f"GET /deptemps/77 HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode())
        socks.append(s)
    chunk = b"b" * 65536
    for s in socks:
        sent = 0
        try:
            s.settimeout(2)
            while sent < length - 10:
                k = min(len(chunk), length - 10 - sent)
                sent += s.send(chunk[:k])
        except OSError:
            refused += 1 # the daemon answered from the header and closed
    time.sleep(5)
    rss1 = rss_kib(pid)
    answered_413 = 0
    for s in socks:
        try:
            s.settimeout(1)
            if b" 413 " in s.recv(64):
                answered_413 += 1
        except OSError:
            pass
        s.close()
    print(f"attack=get_bodies sockets={n} announced_bytes={length} stopped_sending={refused}"
          f" answered_413={answered_413} rss_before_kib={rss0} rss_after_kib={rss1}"
          f" rss_growth_kib={rss1 - rss0}")


def listening_sockets(pid):
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                port = int(f[1].split(":")[1], 16)
                found.append(("tcp", family, port))
    for line in open("/proc/net/unix").read().splitlines()[1:]:
        f = line.split()
        if len(f) >= 8 and f[6] in inodes and f[5] == "01" and int(f[3], 16) & 0x10000:
            found.append(("unix", socket.AF_UNIX, f[7]))
    return found


def basp(pid, nbytes):
    targets = listening_sockets(pid)
    rss0 = rss_kib(pid)
    # CAF 0.17's BASP header: operation, 3 bytes, payload length (u32),
    # operation data (u64), source and destination actor ids (u64 each).
    header = struct.pack(">BBBBIQQQ", 2, 0, 0, 0, nbytes, 0, 0, 14)
    socks = []
    for kind, family, where in targets:
        for _ in range(3):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.settimeout(2)
            try:
                s.connect(("127.0.0.1", where) if kind == "tcp" else where)
                try:
                    s.recv(4096)  # a server's own handshake, when it sends one first
                except OSError:
                    pass
                s.sendall(header + b"x")
            except OSError:
                pass
            socks.append(s)
    time.sleep(3)
    rss1 = rss_kib(pid)
    for s in socks:
        s.close()
    names = ",".join(f"{k}:{w}" for k, _, w in targets)
    print(f"attack=basp_frame announced_bytes={nbytes} listening={names} connections={len(socks)}"
          f" rss_before_kib={rss0} rss_after_kib={rss1} rss_growth_kib={rss1 - rss0}"
          f" health_after={get_status_any(targets)}")


def chunk_lines(pid, port, n, seconds):
    rss0 = rss_kib(pid)
    head = (b"PUT /depts/77 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    socks = []
    for i in range(n):
        s = connect_sending(port, head + (b"2;x=" if i % 2 == 0 else b"5\r\nhello\r\n0\r\nX-T: "))
        s.setblocking(False)
        socks.append(s)
    filler = b"a" * 65536
    ended = {}
    peak = rss0
    start = time.monotonic()
    while time.monotonic() - start < seconds and len(ended) < n:
        for i, s in enumerate(socks):
            if i in ended:
                continue
            try:
                s.send(filler)
            except BlockingIOError:
                pass
            except OSError:
                ended[i] = "closed"
                continue
            try:
                data = s.recv(64)
                if data:
                    ended[i] = data.split(b"\r\n")[0].decode(errors="replace").replace(" ", "_")
            except BlockingIOError:
                pass
            except OSError:
                ended[i] = "closed"
        peak = max(peak, rss_kib(pid))
        time.sleep(0.01)
    for s in socks:
        s.close()
    answers = {}
    for e in ended.values():
        answers[e] = answers.get(e, 0) + 1
    print(f"attack=chunk_lines sockets={n} seconds={seconds} ended={len(ended)}"
          f" answers={','.join(f'{k}:{v}' for k, v in sorted(answers.items())) or 'none'}"
          f" rss_before_kib={rss0} rss_peak_kib={peak} rss_growth_kib={peak - rss0}")


def metric_value(port, name):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                part = s.recv(65536)
                if not part:
                    break
                data += part
        for line in data.decode(errors="replace").splitlines():
            if line.startswith(name + " "):
                return int(float(line.split()[1]))
    except OSError:
        pass
    return -1


def announced_bodies(pid, port, n):
    rss0 = rss_kib(pid)
    length = 2 * 1024 * 1024
    socks = []
    continued = 0
    for _ in range(n):
        s = connect_sending(port, f"PUT /depts/77 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                  f"Expect: 100-continue\r\nContent-Length: {length}\r\n\r\n".encode())
        try:
            if s.recv(64).startswith(b"HTTP/1.1 100"):
                continued += 1
        except OSError:
            pass
        socks.append(s)
    held = metric_value(port, "restcache_http_body_bytes_held")
    body = b'{"deptNumber":77,"deptName":"Hostile 77","deptLocation":"Here","emps":[]}'
    real = 0
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"PUT /depts/77 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            data = s.recv(64)
            real = int(data.split()[1]) if data.startswith(b"HTTP/1.") else 0
    except OSError:
        pass
    time.sleep(10)
    closed = sum(1 for s in socks if closed_by_peer(s))
    for s in socks:
        s.close()
    print(f"attack=announced_bodies sockets={n} announced_bytes={length} got_100_continue={continued}"
          f" body_bytes_held={held} real_write_status={real} idle_closed_after_10s={closed}"
          f" rss_before_kib={rss0} rss_after_kib={rss_kib(pid)}")


def pipelined_after_write(pid, port, n):
    rss0 = rss_kib(pid)
    body = b"[" + b" " * 60000 + b"]"
    write = (b"PUT /depts/77 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
             + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    gets = b"GET /deptemps/77 HTTP/1.1\r\nHost: x\r\n\r\n" * 200
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            s.sendall(write)
            s.sendall(gets)
        except OSError:
            pass
        socks.append(s)
    time.sleep(3)
    rss1 = rss_kib(pid)
    for s in socks:
        s.close()
    print(f"attack=pipelined_after_write sockets={n} rss_before_kib={rss0} rss_after_kib={rss1}"
          f" rss_growth_kib={rss1 - rss0} per_connection_kib={(rss1 - rss0) / n:.1f}")


def get_status_any(targets):
    for kind, _, where in targets:
        if kind == "tcp":
            status = get_status(where)
            if status:
                return status
    return 0


def main():
    attack = sys.argv[1]
    if attack == "slowloris":
        slowloris(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif attack == "reconnecting_slowloris":
        reconnecting_slowloris(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif attack == "bodies":
        bodies(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif attack == "chunk_lines":
        chunk_lines(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif attack == "announced_bodies":
        announced_bodies(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif attack == "pipelined_after_write":
        pipelined_after_write(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif attack == "basp":
        basp(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
