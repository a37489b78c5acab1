#!/usr/bin/env python3
"""A hostile HTTP server on loopback for Habitto's sync tests.

Usage: hostile_http.py MODE [--host 127.0.0.1] [--target URL] [--log FILE] [--entries N]
Prints the port it listens on (one line), then serves until killed or until its standard
input closes (so that it never outlives the test that started it).

Modes: hang (accept, never answer), trickle (a byte a second), bigbody (Content-Length of
2 GB, zeros forever), endless (chunked, forever), gzip (a small gzip body that inflates to
300 MB), redirect (307 to --target plus the path), ok (just enough WebDAV for a round: 207 to
PROPFIND, 201 to PUT and MKCOL, 404 to GET), listing (as ok, with --entries members in every
Depth 1 listing), etag (as ok, but a GET of the change marker, `.../changed`, answers 200
with a hostile ETag each time: 4 KiB long, with control characters, with bytes that are not
ASCII, then empty).
Every request line and its headers are appended to --log.
"""
import os
import socket
import sys
import threading
import time
import zlib

args = sys.argv[1:]
mode = args[0]
opts = {args[i]: args[i + 1] for i in range(1, len(args) - 1, 2)}
host = opts.get("--host", "127.0.0.1")
target = opts.get("--target", "")
log_path = opts.get("--log")
entries = int(opts.get("--entries", "0"))
lock = threading.Lock()
BAD_ETAGS = [b'"' + b"e" * 4096 + b'"', b'"a\x01b\x1b[31m"', b'"caf\xc3\xa9"', b""]
etags_sent = 0


def log(text):
    if log_path:
        with lock, open(log_path, "a") as f:
            f.write(text + "\n")


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    log(lines[0] + " | " + " | ".join(f"{k}: {v}" for k, v in headers.items()) + f" | body {len(rest)}")
    return lines[0], headers


def multistatus(path, n):
    parts = ['<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">']
    parts.append(f"<D:response><D:href>{path}</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>")
    for i in range(n):
        parts.append(f"<D:response><D:href>{path}{i + 1}-{i + 1}.batch</D:href></D:response>")
    parts.append("</D:multistatus>")
    return "".join(parts).encode()


GZIP_BODY = None


def gzip_body():
    global GZIP_BODY
    if GZIP_BODY is None:
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b"\0" * (1 << 20)
        out = [c.compress(block) for _ in range(300)]
        out.append(c.flush())
        GZIP_BODY = b"".join(out)
    return GZIP_BODY


def serve(conn):
    try:
        while True:
            line, headers = read_request(conn)
            if line is None:
                return
            method, path = line.split(" ")[0], line.split(" ")[1]
            if mode == "hang":
                while conn.recv(65536):
                    pass
                return
            if mode == "trickle":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                while True:
                    conn.sendall(b"x")
                    time.sleep(1)
            if mode == "bigbody":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2000000000\r\n\r\n")
                block = b"\0" * 65536
                while True:
                    conn.sendall(block)
            if mode == "endless":
                conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"10000\r\n" + b"\0" * 65536 + b"\r\n"
                while True:
                    conn.sendall(chunk)
            if mode == "gzip":
                body = gzip_body()
                status = "207 Multi-Status" if method == "PROPFIND" else "200 OK"
                conn.sendall(f"HTTP/1.1 {status}\r\nContent-Encoding: gzip\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
                continue
            if mode == "redirect":
                conn.sendall(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}{path}\r\nContent-Length: 0\r\n\r\n".encode())
                continue
            if mode == "etag" and method == "GET" and path.endswith("/changed"):
                global etags_sent
                with lock:
                    tag = BAD_ETAGS[etags_sent % len(BAD_ETAGS)]
                    etags_sent += 1
                conn.sendall(b"HTTP/1.1 200 OK\r\nETag: " + tag + b"\r\nContent-Length: 3\r\n\r\nab\n")
                continue
            # ok, listing and etag: just enough WebDAV for a round (listing: every Depth 1 listing
            # has --entries members).
            if method == "PROPFIND":
                n = entries if mode == "listing" and headers.get("depth") == "1" else 0
                body = multistatus(path, n)
                conn.sendall(f"HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
                continue
            status = {"PUT": "201 Created", "MKCOL": "201 Created", "GET": "404 Not Found"}.get(method, "200 OK")
            conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n".encode())
    except OSError:
        pass
    finally:
        conn.close()


def main():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, 0))
    server.listen(16)
    print(server.getsockname()[1], flush=True)

    def watch_input():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_input, daemon=True).start()
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
