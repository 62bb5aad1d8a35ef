# Trace control through OpenOCD: the debugger enables the virtual board's
# E-Trace encoder and RAM sink by writing the Trace Control Interface
# registers, lets the program run, and reads the trace buffer back.
# Set before: TRACE_BASE, BUF_START, BUF_LIMIT, FEATURES, OUT_DIR.
init
halt
# The RAM sink (SMEM mode) writes into [BUF_START, BUF_LIMIT].
mww [expr {$TRACE_BASE + 0x1010}] $BUF_START
mww [expr {$TRACE_BASE + 0x1018}] $BUF_LIMIT
mww [expr {$TRACE_BASE + 0x1020}] $BUF_START
mww [expr {$TRACE_BASE + 0x1000}] 0x13
# Encoder options, then trTeControl: active, enable, instruction tracing.
mww [expr {$TRACE_BASE + 0x8}] $FEATURES
mww $TRACE_BASE 0x00400007
set ctl [read_memory $TRACE_BASE 32 1]
echo "trTeControl [format 0x%08x $ctl]"
set impl [read_memory [expr {$TRACE_BASE + 0x4}] 32 1]
echo "trTeImpl [format 0x%08x $impl]"
resume
# The program runs to its end; spoor virt then stops tracing, which flushes.
sleep 1500
set wp [read_memory [expr {$TRACE_BASE + 0x1020}] 32 1]
echo "trRamWP [format 0x%08x $wp]"
set len [expr {($wp & ~3) - $BUF_START}]
dump_image $OUT_DIR/trace.bin $BUF_START $len
dump_image $OUT_DIR/rom.bin 0x1000 0x20
shutdown
