/* SPDX-License-Identifier: MIT */
/*
 * Printing te_inst packets: the reference flow's CSV, readable text, and
 * JSON lines.
 */
#ifndef SPOOR_TE_PRINT_H
#define SPOOR_TE_PRINT_H

#include <stdio.h>

#include "spoor/encap.h"
#include "spoor/params.h"
#include "spoor/te_inst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How format 1/2 (and format 0) addresses are to be read. */
enum spoor_addr_mode {
	SPOOR_ADDR_UNKNOWN,	/* no support packet seen yet */
	SPOOR_ADDR_DIFF,	/* differential (default mode) */
	SPOOR_ADDR_FULL,	/* full_address option set */
};

/* The reference flow's te_inst CSV header line (CSV lines end in CRLF, as the reference's do). */
void spoor_te_print_csv_header(FILE *out);

/*
 * One CSV row: "_" for absent fields, address and tval in hex, the others
 * in decimal, status bits as transmitted.  denable, dloss and doptions are
 * printed only when denable is 1 (the reference flow's instruction-trace
 * CSV leaves them out).
 */
void spoor_te_print_csv(FILE *out, const struct spoor_te_inst *pkt);

/* Short name of a packet's format, e.g. "sync-start", "branch", "addr". */
const char *spoor_te_kind_name(const struct spoor_te_inst *pkt);

/* One text line: offset, source, kind, every field by name, meanings. */
void spoor_te_print_text(FILE *out, const struct spoor_params *p, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt, enum spoor_addr_mode mode);

/* One JSON object per line with the same content as the text line. */
void spoor_te_print_json(FILE *out, const struct spoor_params *p, const struct spoor_frame *frm,
			 const struct spoor_te_inst *pkt, enum spoor_addr_mode mode);

#ifdef __cplusplus
}
#endif

#endif
