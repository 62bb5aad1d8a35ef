/* SPDX-License-Identifier: MIT */
/*
 * Reading spike instruction traces (the reference flow's *.spike_pc_trace,
 * gzip-compressed or not) as encoder ingress records, one per row, the way
 * the reference flow's post-iss step turns them into encoder input.
 *
 * Rows are CSV with the header VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,
 * ECAUSE,TVAL,INTERRUPT (hex).  EXCEPTION=1 marks an instruction that
 * trapped (ecall, ebreak and c.ebreak retire first); INTERRUPT=1 marks the
 * first instruction not executed because of an interrupt.  A branch is
 * taken when the next row is not the next instruction, so the reader keeps
 * one row of lookahead: constant memory, any trace length.
 */
#ifndef SPOOR_SPIKE_TRACE_H
#define SPOOR_SPIKE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "spoor/encoder.h"

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_spike_flags {
	/*
	 * Reproduce the reference post-iss step: cause and tval are 8 bits
	 * wide, xret is reported as an uninferable jump (itype 6 or 14) instead
	 * of itype 3, and a jump flagged sijump gets an inferable itype (the
	 * spec keeps the uninferable one and sets sijump).
	 */
	SPOOR_SPIKE_REFERENCE = 1 << 0,
	/*
	 * Calls and returns (itype 8-15) by the spec's x1/x5 link-register
	 * table; without it, by x1 alone (calls write x1, returns read x1 and
	 * write x0), the rule of the reference decoder and spoor decode's
	 * default.
	 */
	SPOOR_SPIKE_X1X5 = 1 << 1,
};

struct spoor_spike_config {
	unsigned xlen;		/* 32 or 64: how to decode compressed instructions */
	unsigned itype_width;	/* 3 or 4 */
	bool sijump;		/* fill the sijump flag (the hart has sijump_p) */
	uint32_t flags;		/* enum spoor_spike_flags */
};

struct spoor_spike_reader;

/*
 * Opens the trace @path (gzip or plain text).  Returns the reader, or NULL
 * with *@err set: SPOOR_E_INVAL (bad configuration), SPOOR_E_IO (errno
 * set), SPOOR_E_NOMEM.
 */
struct spoor_spike_reader *spoor_spike_open(const char *path, const struct spoor_spike_config *cfg,
					    int *err);
void spoor_spike_close(struct spoor_spike_reader *r);

/*
 * Reads the next row as an ingress record into @rec.  Returns 1, 0 at the
 * end of the trace, or SPOOR_E_SYNTAX (a malformed row: see
 * spoor_spike_line()), SPOOR_E_BAD_INSN (a 48-bit or longer instruction,
 * which ilastsize cannot describe), SPOOR_E_IO, SPOOR_E_INVAL.
 */
int spoor_spike_next(struct spoor_spike_reader *r, struct spoor_ingress *rec);

/* Returns the line number of the last row read (1 = the header). */
uint64_t spoor_spike_line(const struct spoor_spike_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_SPIKE_TRACE_H */
