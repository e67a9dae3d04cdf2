"""privrisk-report against answers it must not trust (issue #33): a stand-in server, speaking just
enough of PostgreSQL's wire protocol, answers the client's query with no row, two rows, two columns,
NULL, a text that is not HTML, or a page cut short. The client must say what is wrong, exit 1 and
write nothing: 0.13 crashed (SIGSEGV) on no row and wrote whatever text came back. A well-formed
answer from the same stand-in is written (the control: the stand-in works).

    python3 test/report/client_answers.py [CLIENT]    (or through run_report.py)"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

PAGE = b"<!DOCTYPE html>\n<html><head><title>ok</title></head><body></body></html>\n"

# name: (columns, rows as lists of values (None: NULL), what the client must say)
ANSWERS = {
    "no row": (["report"], [], "it has 0 rows, not 1"),
    "two rows": (["report"], [[PAGE], [PAGE]], "it has 2 rows, not 1"),
    "two columns": (["report", "extra"], [[PAGE, PAGE]], "it has 2 columns, not 1"),
    "NULL": (["report"], [[None]], "the page is NULL"),
    "not HTML": (["report"], [[b"<script>alert(1)</script>"]], "it is not an HTML page"),
    "cut short": (["report"], [[PAGE[:40]]], "the page is cut short"),
}


def message(kind, body=b""):
    return kind + struct.pack("!i", len(body) + 4) + body


def row_description(columns):
    body = struct.pack("!h", len(columns))
    for c in columns:
        body += c.encode() + b"\0" + struct.pack("!ihihih", 0, 0, 25, -1, -1, 0)
    return message(b"T", body)


def data_row(values):
    body = struct.pack("!h", len(values))
    for v in values:
        body += struct.pack("!i", -1) if v is None else struct.pack("!i", len(v)) + v
    return message(b"D", body)


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def serve(listener, columns, rows):
    conn, _ = listener.accept()
    with conn:
        try:
            while True:  # startup, after any SSL or GSS encryption request (refused)
                length, code = struct.unpack("!ii", recv_exact(conn, 8))
                recv_exact(conn, length - 8)
                if code in (80877103, 80877104):
                    conn.sendall(b"N")
                    continue
                break
            conn.sendall(message(b"R", struct.pack("!i", 0)))
            for k, v in (("server_version", "15.0"), ("server_encoding", "UTF8"), ("client_encoding", "UTF8"),
                         ("standard_conforming_strings", "on"), ("integer_datetimes", "on"), ("DateStyle", "ISO, MDY")):
                conn.sendall(message(b"S", k.encode() + b"\0" + v.encode() + b"\0"))
            conn.sendall(message(b"K", struct.pack("!ii", 1, 1)) + message(b"Z", b"I"))
            pending = b""
            while True:
                kind = recv_exact(conn, 1)
                (length,) = struct.unpack("!i", recv_exact(conn, 4))
                recv_exact(conn, length - 4)
                if kind == b"X":
                    return
                if kind == b"P":
                    pending += message(b"1")
                elif kind == b"B":
                    pending += message(b"2")
                elif kind == b"D":
                    pending += row_description(columns)
                elif kind == b"E":
                    pending += b"".join(data_row(r) for r in rows) + message(b"C", b"SELECT %d\0" % len(rows))
                elif kind == b"S":
                    conn.sendall(pending + message(b"Z", b"I"))
                    pending = b""
                elif kind == b"Q":  # a simple query (none expected): an empty answer
                    conn.sendall(message(b"I") + message(b"Z", b"I"))
        except (EOFError, ConnectionError):
            return


def run(client, columns, rows, out):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    thread = threading.Thread(target=serve, args=(listener, columns, rows), daemon=True)
    thread.start()
    conninfo = f"host=127.0.0.1 port={port} dbname=stand_in user=stand_in sslmode=disable gssencmode=disable connect_timeout=10"
    r = subprocess.run([client, "--source", "t", "--profile", "p", "--dbname", conninfo, "--output", out],
                       capture_output=True, text=True, timeout=60)
    thread.join(timeout=10)
    listener.close()
    return r


def check_client_answers(client, check):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "control.html")
        r = run(client, ["report"], [[PAGE]], out)
        check(r.returncode == 0 and os.path.exists(out) and open(out, "rb").read() == PAGE,
              f"client: a well-formed answer from the stand-in server is written (exit {r.returncode}; {r.stderr.strip()})")
        for name, (columns, rows, said) in ANSWERS.items():
            out = os.path.join(tmp, name.replace(" ", "_") + ".html")
            r = run(client, columns, rows, out)
            check(r.returncode == 1 and said in r.stderr and "nothing written" in r.stderr and not os.path.exists(out),
                  f"client: answer with {name}: exit 1, says {said!r}, writes nothing "
                  f"(exit {r.returncode}; {r.stderr.strip()!r}; file {'written' if os.path.exists(out) else 'absent'})")


if __name__ == "__main__":
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    check_client_answers(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "privrisk-report"), check)
    sys.exit(1 if failures else 0)
