#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spoor gdbserver --probe: a live trace probe as the trace source.

usage: test_probe.py SPOOR SIM BOARD ELF

The sim probe (spoor-probe-sim) serves the raw trace of ELF on the virtual
board (made here with spoor virt --capture) over TCP and replays it from its
start at START.  spoor gdbserver --probe tcp:127.0.0.1:PORT, in front of a
stand-in OpenOCD played here (it answers memory reads with zeros: no
hardware trace control), must end up with the history that --replay of the
same raw file gives (monitor trace status: packets, instructions, gaps, the
hart's blocks), keep the very bytes for 'monitor trace save', and stop
cleanly at SIGTERM (STOP, the probe's END) within its 2 s.  A loss in the
probe is a gap with a message naming the probe and the offset; an unplug is
a message, a wait, and tracing again once it is back; bad use is one line
and exit status 2.  Loopback only.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SPOOR, SIM, BOARD, ELF = sys.argv[1:5]
TMP = tempfile.mkdtemp(prefix="spoor-gs-probe.")
procs = []
failures = 0


def fail(msg, *logs):
    global failures
    failures += 1
    print("FAIL: " + msg)
    for log in logs:
        if os.path.exists(log):
            print("---- " + log)
            with open(log, errors="replace") as f:
                print(f.read())


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def port_in(path, pattern, proc, timeout=5.0):
    """The port a process printed into file @path (regex @pattern), waiting for it."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open(path, errors="replace") as f:
                m = re.search(pattern, f.read(), re.M)
            if m:
                return int(m.group(1))
        except FileNotFoundError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    return None


def start(args, name, env=None):
    """Starts @args with stdout and stderr into TMP/@name.out, .err; returns the process."""
    out = open(os.path.join(TMP, name + ".out"), "w")
    err = open(os.path.join(TMP, name + ".err"), "w")
    p = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
    procs.append(p)
    return p


def start_sim(*opts):
    # No leak check in the sim (sanitizer builds): LeakSanitizer can hang at
    # its exit while its trace-port thread runs.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    p = start([SIM, "--listen", "127.0.0.1:0", "--input", RAW] + list(opts), "sim", env)
    port = port_in(os.path.join(TMP, "sim.out"), r"^listening on 127\.0\.0\.1:(\d+)$", p)
    if port is None:
        fail("the sim probe did not start", os.path.join(TMP, "sim.err"))
        sys.exit(1)
    return p, port


def start_gs(args, name):
    p = start([SPOOR, "gdbserver", "--port", "0"] + args, name)
    port = port_in(os.path.join(TMP, name + ".out"), r"^gdb: 127\.0\.0\.1:(\d+)$", p)
    if port is None:
        fail("spoor gdbserver did not report its port", os.path.join(TMP, name + ".err"))
        sys.exit(1)
    return p, port


# ---- the RSP, both ends ----------------------------------------------------

def frame(body):
    return b"$" + body + b"#%02x" % (sum(body) & 0xFF)


class Peer:
    """One end of an RSP connection: packets in, acks out."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def packet(self, timeout=10.0):
        end = time.time() + timeout
        while True:
            m = re.search(rb"\$([^#]*)#[0-9a-fA-F]{2}", self.buf)
            if m:
                self.buf = self.buf[m.end():]
                self.sock.sendall(b"+")
                return m.group(1)
            left = end - time.time()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, OSError):
                return None
            if not data:
                return None
            self.buf += data

    def send(self, body):
        self.sock.sendall(frame(body))


def fake_openocd():
    """A stand-in for OpenOCD's GDB port: memory reads zeros, writes OK."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)

    def serve(conn):
        peer = Peer(conn)
        while True:
            pkt = peer.packet(timeout=600)
            if pkt is None:
                conn.close()
                return
            if pkt.startswith(b"m"):
                n = int(pkt.split(b",")[1], 16)
                peer.send(b"00" * n)
            elif pkt.startswith(b"M"):
                peer.send(b"OK")
            elif pkt == b"?":
                peer.send(b"S05")
            else:
                peer.send(b"")

    def accept():
        while True:
            try:
                conn, _ = ls.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return ls.getsockname()[1]


def monitor(port, cmd):
    """'monitor @cmd' through a fresh GDB connection; returns its text, or None."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    peer = Peer(s)
    try:
        peer.send(b"qRcmd," + cmd.encode().hex().encode())
        text = ""
        while True:
            pkt = peer.packet()
            if pkt is None:
                return None
            if pkt.startswith(b"O") and pkt != b"OK":
                text += bytes.fromhex(pkt[1:].decode()).decode(errors="replace")
            elif pkt == b"OK":
                return text
            else:
                return text + pkt.decode(errors="replace")
    finally:
        s.close()


def field(status, name):
    m = re.search(r"^%s: (\d+)" % name, status or "", re.M)
    return int(m.group(1)) if m else None


def history(status):
    """The lines that say what was decoded (not where it came from)."""
    keep = ("packets:", "instructions:", "gaps:", "history of hart")
    return [l for l in (status or "").splitlines() if l.startswith(keep)]


def wait_bytes(port, want, timeout=10.0):
    """Polls 'monitor trace status' until @want bytes came; returns the last status."""
    end = time.time() + timeout
    status = None
    while time.time() < end:
        status = monitor(port, "trace status")
        if field(status, "bytes") is not None and field(status, "bytes") >= want:
            return status
        time.sleep(0.1)
    return status


def stop_gs(p, name, limit=4.0):
    """SIGTERM; the server must be gone within @limit seconds, exit status 0."""
    t0 = time.time()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=limit + 5)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    took = time.time() - t0
    if rc != 0 or took > limit:
        fail("%s: SIGTERM: exit %s after %.1f s" % (name, rc, took),
             os.path.join(TMP, name + ".err"))
    return took


# ---- the tests -------------------------------------------------------------

try:
    RAW = os.path.join(TMP, "raw.bin")
    r = subprocess.run([SPOOR, "virt", "--board", BOARD, "--trace-on-start", "--capture", RAW,
                        "--exit", ELF], capture_output=True, timeout=60)
    if r.returncode != 0 or not os.path.getsize(RAW):
        fail("spoor virt --capture failed: " + r.stderr.decode(errors="replace"))
        sys.exit(1)
    size = os.path.getsize(RAW)
    with open(RAW, "rb") as f:
        raw = f.read()
    ocd = fake_openocd()
    common = ["--board", BOARD, "--elf", ELF]

    # The reference: --replay of the raw file.
    gs, port = start_gs(["--replay", RAW, "--unsynced"] + common, "replay")
    want = monitor(port, "trace status")
    stop_gs(gs, "replay")
    if not field(want, "instructions"):
        fail("--replay: nothing decoded:\n%s" % want, os.path.join(TMP, "replay.err"))

    # The probe: the same bytes, the same history; 'monitor trace save' keeps them.
    sim, sport = start_sim()
    gs, port = start_gs(["--openocd", "127.0.0.1:%d" % ocd,
                         "--probe", "tcp:127.0.0.1:%d" % sport] + common, "probe")
    got = wait_bytes(port, size)
    if field(got, "bytes") != size:
        fail("--probe: %s of %d bytes came:\n%s" % (field(got, "bytes"), size, got),
             os.path.join(TMP, "probe.err"))
    elif history(got) != history(want):
        fail("--probe: the history differs from --replay's:\n%s\nvs\n%s" % (got, want),
             os.path.join(TMP, "probe.err"))
    elif not re.search(r"^source: probe tcp:127\.0\.0\.1:%d$" % sport, got, re.M):
        fail("--probe: status does not name the probe:\n%s" % got)
    else:
        print("PASS: --probe gives --replay's history (%d bytes, %d instructions)"
              % (size, field(got, "instructions")))
    saved = os.path.join(TMP, "saved.bin")
    out = monitor(port, "trace save " + saved)
    if out is None or not os.path.exists(saved) or open(saved, "rb").read() != raw:
        fail("--probe: monitor trace save did not keep the trace's bytes (%s)" % out)
    else:
        print("PASS: monitor trace save: the probe's bytes")
    took = stop_gs(gs, "probe")
    print("PASS: SIGTERM: stopped in %.1f s" % took)
    sim.kill()
    sim.wait()

    # A loss in the probe: a gap and a message naming the probe and the offset.
    at = size // 2
    sim, sport = start_sim("--drop-at", "%d:4" % at)
    gs, port = start_gs(["--openocd", "127.0.0.1:%d" % ocd,
                         "--probe", "tcp:127.0.0.1:%d" % sport] + common, "loss")
    got = wait_bytes(port, size - 4)
    stop_gs(gs, "loss")
    err = open(os.path.join(TMP, "loss.err"), errors="replace").read()
    if not re.search(r"tcp:127\.0\.0\.1:%d: 4 trace bytes lost at trace offset %d "
                     r"\(the probe's buffer overflowed\): a gap in the history" % (sport, at),
                     err):
        fail("loss: no message", os.path.join(TMP, "loss.err"))
    elif not field(got, "gaps") or field(got, "bytes") != size - 4:
        fail("loss: no gap, or not the bytes:\n%s" % got, os.path.join(TMP, "loss.err"))
    else:
        print("PASS: a loss is a gap (%d gaps)" % field(got, "gaps"))
    sim.kill()
    sim.wait()

    # Unplugged and back: messages, tracing again (the sim replays from the start).
    sim, sport = start_sim("--unplug-after", "70", "--replug-ms", "300")
    gs, port = start_gs(["--openocd", "127.0.0.1:%d" % ocd,
                         "--probe", "tcp:127.0.0.1:%d" % sport] + common, "unplug")
    got = wait_bytes(port, size + 1)
    stop_gs(gs, "unplug")
    err = open(os.path.join(TMP, "unplug.err"), errors="replace").read()
    if ("tcp:127.0.0.1:%d: the probe is gone (unplugged?)" % sport not in err or
            "back; tracing again" not in err):
        fail("unplug: no messages", os.path.join(TMP, "unplug.err"))
    elif not field(got, "gaps"):
        fail("unplug: no gap:\n%s" % got, os.path.join(TMP, "unplug.err"))
    else:
        print("PASS: unplugged and back (%d bytes, %d gaps)"
              % (field(got, "bytes"), field(got, "gaps")))
    sim.kill()
    sim.wait()

    # Unplugged for good: after 10 s the source is closed, with its reason;
    # a shutdown while it is waited for is not held up by the wait.
    sim, sport = start_sim("--unplug-after", "70")
    gs, port = start_gs(["--openocd", "127.0.0.1:%d" % ocd,
                         "--probe", "tcp:127.0.0.1:%d" % sport] + common, "gone")
    errf = os.path.join(TMP, "gone.err")
    end = time.time() + 15
    while time.time() < end and "did not come back in time" not in open(errf).read():
        time.sleep(0.2)
    got = monitor(port, "trace status")
    stop_gs(gs, "gone")
    err = open(errf, errors="replace").read()
    if not re.search(r"^spoor gdbserver: tcp:127\.0\.0\.1:%d: the probe is gone: it did not "
                     r"come back in time$" % sport, err, re.M):
        fail("gone: no message", errf)
    elif not re.search(r"^source: probe tcp:127\.0\.0\.1:%d \(closed\)$" % sport, got or "",
                       re.M):
        fail("gone: the status does not say closed:\n%s" % got, errf)
    else:
        print("PASS: unplugged for good: closed after 10 s")
    sim.kill()
    sim.wait()
    sim, sport = start_sim("--unplug-after", "70")
    gs, port = start_gs(["--openocd", "127.0.0.1:%d" % ocd,
                         "--probe", "tcp:127.0.0.1:%d" % sport] + common, "gone2")
    errf = os.path.join(TMP, "gone2.err")
    end = time.time() + 5
    while time.time() < end and "waiting 10 s" not in open(errf).read():
        time.sleep(0.05)
    took = stop_gs(gs, "gone2", limit=2.5)
    print("PASS: SIGTERM while waiting for the probe: stopped in %.1f s" % took)
    sim.kill()
    sim.wait()

    # Bad use: one line, exit status 2.
    def expect2(args, pattern):
        r = subprocess.run([SPOOR, "gdbserver"] + args, capture_output=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        err = r.stderr.decode(errors="replace")
        if r.returncode != 2 or len(err.splitlines()) != 1 or pattern not in err:
            fail("spoor gdbserver %s: exit %d, wanted 2 and one line with '%s':\n%s"
                 % (" ".join(args), r.returncode, pattern, err))
    expect2(["--probe", "tcp:127.0.0.1:1"] + common, "probe: ")
    expect2(["--probe", "file:" + RAW] + common, "serve a file with --replay")
    expect2(["--probe", "tcp:127.0.0.1:1", "--replay", RAW] + common,
            "--probe and --replay: give one trace source")
    expect2(["--trace-port", "127.0.0.1:1", "--probe", "usb"] + common,
            "--trace-port and --probe: give one trace source")
    expect2(["--probe", "usb", "--port-width", "3"] + common, "is not 1, 2, 4, 8 or 16")
    expect2(["--port-width", "8"] + common, "--port-width goes with --probe")
    if not failures:
        print("PASS: bad use")
finally:
    cleanup()
    subprocess.run(["rm", "-rf", TMP])
sys.exit(1 if failures else 0)
