#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spoor virt's trace port and capture when probes lag or the run is stopped.

usage: test_virt_probes.py SPOOR BOARD SPIN.elf PART

PART is one of:
  slow     a probe that reads nothing is disconnected once it is
           --probe-buffer behind, with a message naming it, while another
           probe keeps receiving and the JTAG port keeps answering
  drain    a probe behind when spoor virt stops still gets every byte (the
           same bytes as the capture); one that takes nothing is
           disconnected after a second and spoor virt exits
  signals  SIGHUP, SIGINT, SIGTERM and SIGQUIT each end the run with exit 0,
           the capture equal to what a probe joined from the start received
           and ending on a whole packet

Loopback only.  spin calls a function forever: with full-address every
return is a packet, so the trace port never falls silent.
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

SPOOR, BOARD, SPIN, PART = sys.argv[1:5]
passed = failed = 0
running = []	# every spoor virt started, killed at the end


def ok(cond, what):
	"""Counts a check; prints what failed."""
	global passed, failed
	if cond:
		passed += 1
	else:
		failed += 1
		print("FAIL: " + what, flush=True)


class Virt:
	"""spoor virt running in the background, its ports read from its stdout."""

	def __init__(self, tmp, name, *args):
		self.err_path = os.path.join(tmp, name + ".err")
		self.out_path = os.path.join(tmp, name + ".out")
		with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
			self.proc = subprocess.Popen([SPOOR, "virt", "--board", BOARD] + list(args) + [SPIN],
						     stdout=out, stderr=err)
		running.append(self.proc)
		self.jtag = self.trace = None
		for _ in range(100):
			text = open(self.out_path).read()
			j = re.search(r"^jtag: 127\.0\.0\.1:(\d+)$", text, re.M)
			t = re.search(r"^trace: 127\.0\.0\.1:(\d+) ", text, re.M)
			if j and t:
				self.jtag, self.trace = int(j.group(1)), int(t.group(1))
				return
			if self.proc.poll() is not None:
				break
			time.sleep(0.1)
		raise RuntimeError(name + ": no ports: " + self.err())

	def err(self):
		"""Returns what it said on stderr so far."""
		return open(self.err_path, errors="replace").read()

	def wait_err(self, pattern, timeout):
		"""Waits up to @timeout seconds for @pattern on stderr; returns whether it came."""
		end = time.monotonic() + timeout
		while time.monotonic() < end:
			if pattern in self.err():
				return True
			time.sleep(0.05)
		return pattern in self.err()

	def stop(self, sig=signal.SIGTERM, timeout=10):
		"""Sends @sig and returns the exit status (None if it did not exit in time)."""
		if self.proc.poll() is None:
			self.proc.send_signal(sig)
		try:
			return self.proc.wait(timeout)
		except subprocess.TimeoutExpired:
			self.proc.kill()
			self.proc.wait()
			return None


class Reader(threading.Thread):
	"""A probe reading the trace port until it closes (or @keep is False: counting only)."""

	def __init__(self, port, keep=True):
		super().__init__(daemon=True)
		self.sock = socket.create_connection(("127.0.0.1", port))
		self.port = self.sock.getsockname()[1]
		self.keep = keep
		self.data = bytearray()
		self.count = 0
		self.start()

	def run(self):
		self.sock.settimeout(30)
		try:
			while True:
				b = self.sock.recv(1 << 16)
				if not b:
					break
				self.count += len(b)
				if self.keep:
					self.data += b
		except OSError:
			pass


def jtag_answers(port):
	"""Returns whether the JTAG port answers 'R' with '0' or '1' within 5 s."""
	try:
		with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
			s.sendall(b"R")
			return s.recv(1) in (b"0", b"1")
	except OSError:
		return False


def laggard(port):
	"""A probe that connects with a small receive buffer and reads nothing."""
	s = socket.socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
	s.connect(("127.0.0.1", port))
	return s


def read_to_end(s, timeout):
	"""Reads @s until it closes; returns the bytes, or None if it stayed open @timeout s."""
	data = bytearray()
	s.settimeout(timeout)
	try:
		while True:
			b = s.recv(1 << 16)
			if not b:
				return data
			data += b
	except OSError:
		return None


def part_slow(tmp):
	"""A probe too far behind is dropped, named; the board and the others go on."""
	v = Virt(tmp, "slow", "--trace-on-start", "--probe-buffer", "1M")
	lag = laggard(v.trace)
	lag_port = lag.getsockname()[1]
	r = Reader(v.trace, keep=False)
	msg = ("trace client 127.0.0.1:%d fell more than 1048576 bytes behind the trace "
	       "(--probe-buffer): disconnected" % lag_port)
	ok(v.wait_err(msg, 20), "no message naming the laggard (%d): %s" % (lag_port, v.err()))
	ok(read_to_end(lag, 10) is not None, "the laggard was not disconnected")
	n0 = r.count
	time.sleep(1)
	ok(r.count > n0, "the reading probe stalled (%d bytes, then nothing)" % n0)
	ok(jtag_answers(v.jtag), "the JTAG port does not answer")
	ok(str(r.port) not in v.err(), "the reading probe was dropped: " + v.err())
	ok(v.proc.poll() is None, "spoor virt died: " + v.err())
	ok(v.stop() == 0, "spoor virt: bad exit: " + v.err())


def part_drain(tmp):
	"""The bytes queued for a probe when the run stops still reach it."""
	cap = os.path.join(tmp, "drain.cap")
	v = Virt(tmp, "drain", "--trace-on-start", "--wait-probe", "--probe-buffer", "256M",
		 "--capture", cap)
	late = laggard(v.trace)
	time.sleep(1)	# it falls megabytes behind (more than the sockets hold)
	v.proc.send_signal(signal.SIGTERM)
	data = read_to_end(late, 10)
	rc = v.stop()
	ok(rc == 0, "exit %s: %s" % (rc, v.err()))
	want = open(cap, "rb").read()
	ok(data is not None and len(want) > 0 and data == want,
	   "the late probe got %s of the %d bytes captured" % (len(data) if data else data, len(want)))

	# A probe that takes nothing at the end: dropped after a second, with a message.
	# It must be behind by more than the sockets hold (a few MB), however
	# fast the board runs (a sanitizer build is several times slower).
	cap = os.path.join(tmp, "stuck.cap")
	v = Virt(tmp, "stuck", "--trace-on-start", "--probe-buffer", "256M", "--capture", cap)
	stuck = laggard(v.trace)
	t0 = time.monotonic()
	while os.path.getsize(cap) < (12 << 20) and time.monotonic() - t0 < 30:
		time.sleep(0.1)
	t0 = time.monotonic()
	rc = v.stop()
	took = time.monotonic() - t0
	ok(rc == 0 and took < 5, "exit %s after %.1f s: %s" % (rc, took, v.err()))
	ok("trace client 127.0.0.1:%d did not take the end of the trace in time: disconnected" %
	   stuck.getsockname()[1] in v.err(), "no message for the stuck probe: " + v.err())
	stuck.close()


def part_signals(tmp):
	"""Every terminating signal keeps every captured byte."""
	for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
		name = sig.name
		cap = os.path.join(tmp, name + ".cap")
		v = Virt(tmp, name, "--trace-on-start", "--wait-probe", "--capture", cap)
		r = Reader(v.trace)
		time.sleep(0.3)
		rc = v.stop(sig)
		r.join(10)
		ok(rc == 0, "%s: exit %s: %s" % (name, rc, v.err()))
		got = open(cap, "rb").read()
		ok(len(got) > 0 and got == bytes(r.data),
		   "%s: capture of %d bytes, probe got %d, not the same" % (name, len(got), len(r.data)))
		d = subprocess.run([SPOOR, "dump", "-q", "--board", BOARD, "--unsynced", cap],
				   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
		ok(d.returncode == 0 and "inside a packet" not in d.stderr,
		   "%s: the capture is cut (dump exit %d): %s" % (name, d.returncode, d.stderr))
		os.unlink(cap)


def main():
	global BOARD
	with tempfile.TemporaryDirectory() as tmp:
		text = open(BOARD).read()
		board = os.path.join(tmp, "board.ini")
		with open(board, "w") as f:
			f.write(re.sub(r"^features *=.*$", "features = full-address", text, flags=re.M))
		BOARD = board
		try:
			{"slow": part_slow, "drain": part_drain, "signals": part_signals}[PART](tmp)
		finally:
			for p in running:
				if p.poll() is None:
					p.kill()
					p.wait()
	print("%d passed, %d failed" % (passed, failed))
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main())
