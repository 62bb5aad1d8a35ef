/* SPDX-License-Identifier: MIT */
/*
 * GDB's branch trace documents (gdb/features/btrace.dtd, btrace-conf.dtd)
 * from the bounded history: BTS format, blocks newest first, each
 * <block begin="first insn" end="last insn"/> a straight run; the newest
 * block ends at the current pc, which GDB does not count as executed.
 *
 * Reads per GDB's three annexes (gdb/btrace.c, remote.c):
 *   all    everything held
 *   new    everything held if anything came since the last read, else nothing
 *   delta  what came since the last read, its oldest block beginning "0x0":
 *          GDB stitches it onto the pc it recorded then.  An error makes
 *          GDB fall back to new, then all.
 */
#ifndef SPOOR_GS_BTRACE_H
#define SPOOR_GS_BTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/history.h"

enum gs_btrace_annex { GS_BTRACE_ALL, GS_BTRACE_NEW, GS_BTRACE_DELTA };

/* What one thread's reader has seen. */
struct gs_btrace_reader {
	bool enabled;		/* recording (Qbtrace:bts, or on at connect) */
	bool read;		/* a read or the enable recorded next_seq and pc */
	uint64_t next_seq;	/* the history's next block number then */
	uint64_t pc;		/* the thread's pc then */
};

/* A growing text buffer. */
struct gs_text {
	char *s;
	size_t len, cap;
	bool failed;		/* out of memory */
};

void gs_text_add(struct gs_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gs_text_free(struct gs_text *t);

/* Parses "all", "new", "delta"; returns false for anything else. */
bool gs_btrace_annex(const char *s, enum gs_btrace_annex *annex);

/*
 * Writes the <btrace> document of @source for @annex into @out, the newest
 * block ending at @pc, and moves @r on to what it now has seen.  Returns 0,
 * or SPOOR_E_TRACE with @why set when a delta cannot be given (blocks
 * dropped since the last read, or the trace does not continue at the pc
 * recorded then), or SPOOR_E_NOMEM.
 */
int gs_btrace_read(const struct spoor_history *h, uint32_t source, enum gs_btrace_annex annex,
		   uint64_t pc, struct gs_btrace_reader *r, struct gs_text *out, const char **why);

/* Writes the <btrace-conf> document: BTS of @size bytes when @enabled, else empty. */
void gs_btrace_conf(bool enabled, uint64_t size, struct gs_text *out);

/* Bytes of GDB's bts size per block held (a block is a begin/end pair). */
#define GS_BTS_BYTES_PER_BLOCK 16

#endif
