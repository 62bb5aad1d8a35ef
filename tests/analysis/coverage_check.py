#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks spoor coverage's lcov tracefile and summary against the ISS's
retirement log, the truth of what ran.

usage: coverage_check.py ISS_LOG FIRST_PC ELF LCOV SUMMARY OBJDUMP ADDR2LINE NM

ISS_LOG: iss_run --trace output ("R pc" retired, "E pc cause tval"
exceptions, "I pc cause" interrupts), compared from the first "R FIRST_PC"
on (where the decoded trace starts).  Checked:
  - the distinct instructions retired: the summary's totals and, for every
    function symbol with a size, its row's instructions covered;
  - lines: every DA record's count is the largest execution count of the
    line's instructions, an instruction's line being the DWARF line table's
    (objdump --dwarf=decodedline) row at the highest address at or below it
    -- of several rows there the last that begins a statement, else the
    last; none after an end of sequence -- so the lines hit are the truth's.
    (Not addr2line: binutils 2.40's names the wrong file in DWARF 5 units
    that #include code, e.g. picolibc's vfprintf.c with ultoa_invert.c; nor
    GDB, whose answer for a row that does not begin a statement depends on
    what it looked up before);
  - branches: every conditional branch (objdump) is BRDA line,k (the k-th
    branch of its line by address), taken (0) and not taken (1) counts as
    the ISS's next pc after it says, "-" when it never retired;
  - FNDA: executions of each function's first instruction.
Prints each difference; exits 1 when there is one, else 0.
"""
import bisect
import os
import re
import subprocess
import sys
from collections import defaultdict

ECALL_CAUSES = {"3", "8", "9", "b"}  # ebreak, ecall from U/S/M: they retire


def die(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class LineTable:
    """Rows (address, order, file, line or None at an end of sequence, is_stmt)."""

    def __init__(self, rows):
        self.rows = sorted(rows, key=lambda r: (r[0], r[1]))
        self.addrs = [r[0] for r in self.rows]

    def lookup(self, addr):
        i = bisect.bisect_right(self.addrs, addr)
        if not i:
            return None
        at = self.addrs[i - 1]
        pick = None
        while i > 0 and self.addrs[i - 1] == at:
            r = self.rows[i - 1]
            i -= 1
            if r[3] is None:
                continue
            if pick is None:
                pick = r
            if r[4]:
                return (r[2], r[3])
        return (pick[2], pick[3]) if pick else None


def line_table(objdump, elf):
    out = subprocess.run([objdump, "--dwarf=decodedline", elf], capture_output=True,
                         text=True, check=True).stdout
    rows, header = [], ""
    for n, ln in enumerate(out.splitlines()):
        m = re.match(r"^(\S+)\s+(\d+|-)\s+(0x[0-9a-f]+)(?:\s+\d+)?(\s+x)?\s*$", ln)
        if not m:
            if ln.endswith(":") and " " not in ln:
                header = ln[:-1]      # the full name of the file rows come from now
            continue
        name = m.group(1)
        if header and os.path.basename(header) == name:
            name = header
        line = None if m.group(2) == "-" else int(m.group(2))
        rows.append((int(m.group(3), 16), n, name, line, bool(m.group(4))))
    return LineTable(rows)


def main():
    if len(sys.argv) != 8:
        print(__doc__)
        sys.exit(2)
    log, first, elf, lcov, summary, objdump, nm = sys.argv[1:]
    first = int(first, 16)

    # Truth: each pc in order, retired or not, and whether it retired.
    seq = []
    started = False
    with open(log) as f:
        for ln in f:
            p = ln.split()
            if not p:
                continue
            pc = int(p[1], 16)
            if not started:
                if p[0] == "R" and pc == first:
                    started = True
                else:
                    continue
            retired = p[0] == "R" or (p[0] == "E" and p[2] in ECALL_CAUSES)
            seq.append((pc, retired))
    if not seq:
        die("the ISS log never reaches 0x%x" % first)
    count = defaultdict(int)
    for pc, r in seq:
        if r:
            count[pc] += 1

    # Conditional branches and instruction lengths from objdump.
    branches = {}
    dis = subprocess.run([objdump, "-d", "-M", "no-aliases", elf], capture_output=True,
                         text=True, check=True).stdout
    for ln in dis.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f ]+)\t(\S+)", ln)
        if not m:
            continue
        mn = m.group(3)
        if mn in ("beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez"):
            branches[int(m.group(1), 16)] = len(m.group(2).strip()) // 2
    taken = defaultdict(int)
    not_taken = defaultdict(int)
    for i in range(len(seq) - 1):
        pc, r = seq[i]
        if r and pc in branches:
            if seq[i + 1][0] == pc + branches[pc]:
                not_taken[pc] += 1
            else:
                taken[pc] += 1

    # The tracefile.
    got_lines, got_br, fnda = {}, {}, {}
    sf = None
    with open(lcov) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln.startswith("SF:"):
                sf = ln[3:]
            elif ln.startswith("DA:"):
                line, n = ln[3:].split(",")[:2]
                got_lines[(sf, int(line))] = int(n)
            elif ln.startswith("BRDA:"):
                line, blk, br, n = ln[5:].split(",")
                got_br[(sf, int(line), int(blk), int(br))] = n
            elif ln.startswith("FNDA:"):
                n, name = ln[5:].split(",", 1)
                fnda[name] = int(n)

    # Lines of every executed instruction and every branch, from the DWARF
    # line table as objdump decodes it.
    addrs = sorted(set(count) | set(branches))
    table = line_table(objdump, elf)
    got_files = {k[0] for k in got_lines if k[0]}

    def spoor_name(path):
        if path in got_files:
            return path
        tail = path.lstrip("./")
        hits = [f for f in got_files if f.endswith("/" + tail) or f == tail]
        if len(hits) > 1:
            die("%s matches several files of the tracefile: %s" % (path, hits))
        return hits[0] if hits else path

    where = {}
    for a in addrs:
        row = table.lookup(a)
        if row:
            where[a] = (spoor_name(row[0]), row[1])
    want_lines = defaultdict(int)
    for a, n in count.items():
        if a in where:
            want_lines[where[a]] = max(want_lines[where[a]], n)
    want_br = {}
    per_line = defaultdict(list)
    for a in sorted(branches):
        if a in where:
            per_line[where[a]].append(a)
    for key, lst in per_line.items():
        for k, a in enumerate(lst):
            ev = taken[a] + not_taken[a]
            want_br[(key[0], key[1], k, 0)] = str(taken[a]) if ev else "-"
            want_br[(key[0], key[1], k, 1)] = str(not_taken[a]) if ev else "-"

    bad = 0

    def report(msg):
        nonlocal bad
        bad += 1
        if bad <= 20:
            print("FAIL: " + msg)

    for key, n in want_lines.items():
        if got_lines.get(key) != n:
            report("line %s:%d executed %d times, lcov says %s" % (key[0], key[1], n,
                                                                  got_lines.get(key)))
    for key, n in got_lines.items():
        if n and key not in want_lines:
            report("line %s:%d never ran, lcov says %d" % (key[0], key[1], n))
    for key, v in want_br.items():
        if got_br.get(key) != v:
            report("branch %s:%d block %d %s: ISS %s, lcov %s" % (
                key[0], key[1], key[2], "not taken" if key[3] else "taken", v,
                got_br.get(key)))
    for key in got_br:
        if key not in want_br:
            report("lcov branch %s:%d block %d is no conditional branch" % key[:3])

    # Functions: sized symbols' instructions covered and first-instruction counts.
    syms = subprocess.run([nm, "-S", "--defined-only", elf], capture_output=True, text=True,
                          check=True).stdout
    rows = {}
    total = None
    with open(summary) as f:
        for ln in f:
            m = re.match(r"(\S+)\s+\S+\s+(\d+)/(\d+)", ln)
            if m:
                rows[m.group(1)] = int(m.group(2))
            m = re.match(r"coverage: instructions (\d+)/", ln)
            if m:
                total = int(m.group(1))
    if total != len(count):
        report("%d distinct instructions retired, the summary says %s" % (len(count), total))
    checked = 0
    ranges = []
    for ln in syms.splitlines():
        p = ln.split()
        if len(p) == 4 and p[2] in "tT":
            ranges.append((int(p[0], 16), int(p[1], 16), p[3]))
    for start, size, name in ranges:
        # Aliases and symbols inside others (__riscv_save_*): spoor gives
        # each instruction one function, nm's sizes overlap.
        if any(o != name and s0 < start + size and start < s0 + z for s0, z, o in ranges):
            continue
        hit = sum(1 for a in count if start <= a < start + size)
        if name in rows:
            checked += 1
            if rows[name] != hit:
                report("%s: %d instructions retired, the summary says %d" % (name, hit,
                                                                              rows[name]))
        if name in fnda and fnda[name] != count.get(start, 0):
            report("FNDA %s: its first instruction ran %d times, lcov says %d" % (
                name, count.get(start, 0), fnda[name]))
    if bad:
        print("%d differences" % bad)
        sys.exit(1)
    print("ok: %d instructions (%d retired), %d lines, %d branch directions, %d functions" % (
        len(count), sum(count.values()), len(want_lines), len(want_br), checked))


main()
