# Measures idle connections (BENCHMARKS.md, 2026-11-26). Usage: SERVER METRICS ADDRS CONNS.
# Opens CONNS keep-alive HTTP/1.1 connections from each of ADDRS loopback addresses, makes
# one gRPC-Web health check on each, then holds them; prints the server's held memory
# (from /metrics) and how many are still open, every 5 s.
import socket, sys, time, urllib.request
server, metrics, addrs, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
host, port = server.split(":")
call = (b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\nhost: x\r\ncontent-type: application/grpc-web+proto\r\n"
        b"content-length: 5\r\n\r\n\0\0\0\0\0")
held = []
for a in range(addrs):
    for c in range(conns):
        s = socket.socket()
        s.bind((f"127.0.0.{10 + a}", 0))
        s.connect((host, int(port)))
        s.sendall(call)
        s.settimeout(2)
        try:
            s.recv(4096)
        except Exception:
            pass
        s.setblocking(False)
        held.append(s)
def metric():
    text = urllib.request.urlopen(f"http://{metrics}/metrics").read().decode()
    for line in text.splitlines():
        if line.startswith("dudo_memory_held_bytes"):
            return float(line.split()[-1])
def still_open():
    n = 0
    for s in held:
        try:
            d = s.recv(4096)
            if d == b"":
                continue
            n += 1
        except BlockingIOError:
            n += 1
        except Exception:
            pass
    return n
start = time.time()
while time.time() - start < 45:
    print(f"{time.time() - start:5.1f} s  held {metric() / 2**20:7.1f} MiB  open {still_open()}", flush=True)
    time.sleep(5)
