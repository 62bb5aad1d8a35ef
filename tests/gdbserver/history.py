# SPDX-License-Identifier: MIT
# GDB commands for the gdbserver tests (gdb -x history.py):
#   dump-history FILE   every pc of the current thread's recorded history,
#                       one hex address a line ("gap" for a gap), oldest first
import gdb


class DumpHistory(gdb.Command):
    """dump-history FILE: write the recorded instruction history's pcs to FILE."""

    def __init__(self):
        super().__init__("dump-history", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        rec = gdb.current_recording()
        if rec is None:
            raise gdb.GdbError("not recording")
        n = 0
        with open(arg.strip(), "w") as f:
            for insn in rec.instruction_history:
                pc = getattr(insn, "pc", None)
                f.write("gap\n" if pc is None else "%x\n" % pc)
                n += 1
        print("HISTORY %d instructions" % n)


DumpHistory()
