// SPDX-License-Identifier: MIT
/*
 * spike instruction traces to encoder ingress records (the reference flow's
 * post-iss step): the itype of a row comes from its instruction bits
 * (spoor_insn_decode(), spoor_ingress_itype()), the outcome of a branch
 * from the next row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "spoor/error.h"
#include "spoor/ingress.h"
#include "spoor/insn.h"
#include "spoor/spike_trace.h"

#define LINE_MAX_LEN 512
#define NFIELDS 8

/* One row of the trace. */
struct spike_row {
	uint64_t addr, insn, priv, exception, ecause, tval, interrupt;
};

struct spoor_spike_reader {
	gzFile gz;
	struct spoor_spike_config cfg;
	uint64_t line;
	bool header_done;
	struct spike_row cur, next;
	bool have_cur;
	struct spoor_insn prev;		/* the previous row's instruction (sijump) */
	bool have_prev;
	char buf[LINE_MAX_LEN];
};

struct spoor_spike_reader *spoor_spike_open(const char *path, const struct spoor_spike_config *cfg,
					    int *err)
{
	struct spoor_spike_reader *r;
	int dummy;

	if (!err)
		err = &dummy;
	if (!path || !cfg || (cfg->xlen != 32 && cfg->xlen != 64) ||
	    (cfg->itype_width != 3 && cfg->itype_width != 4)) {
		*err = SPOOR_E_INVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		*err = SPOOR_E_NOMEM;
		return NULL;
	}
	r->cfg = *cfg;
	errno = 0;
	r->gz = gzopen(path, "rb");
	if (!r->gz) {
		*err = errno == ENOMEM ? SPOOR_E_NOMEM : SPOOR_E_IO;
		free(r);
		return NULL;
	}
	*err = 0;
	return r;
}

void spoor_spike_close(struct spoor_spike_reader *r)
{
	if (!r)
		return;
	gzclose(r->gz);
	free(r);
}

uint64_t spoor_spike_line(const struct spoor_spike_reader *r)
{
	return r ? r->line : 0;
}

/* Returns 0 after parsing the hex fields of the CSV line @s into @v, or SPOOR_E_SYNTAX. */
static int parse_fields(char *s, uint64_t v[NFIELDS])
{
	char *end;

	for (int i = 0; i < NFIELDS; i++) {
		errno = 0;
		v[i] = strtoull(s, &end, 16);
		if (end == s || errno)
			return SPOOR_E_SYNTAX;
		if (i < NFIELDS - 1 && *end != ',')
			return SPOOR_E_SYNTAX;
		s = end + 1;
	}
	while (*end == '\r' || *end == '\n' || *end == ' ')
		end++;
	return *end ? SPOOR_E_SYNTAX : 0;
}

/* Returns 1 after reading the next valid row into @row, 0 at the end, or an error. */
static int read_row(struct spoor_spike_reader *r, struct spike_row *row)
{
	uint64_t v[NFIELDS];
	size_t len;
	int err;

	for (;;) {
		if (!gzgets(r->gz, r->buf, sizeof(r->buf))) {
			gzerror(r->gz, &err);
			return err && err != Z_STREAM_END ? SPOOR_E_IO : 0;
		}
		r->line++;
		len = strlen(r->buf);
		if (len == sizeof(r->buf) - 1 && r->buf[len - 1] != '\n')
			return SPOOR_E_SYNTAX;	/* longer than any row */
		if (!r->header_done && !strncmp(r->buf, "VALID", 5)) {
			r->header_done = true;
			continue;
		}
		r->header_done = true;
		if (r->buf[0] == '\n' || r->buf[0] == '\r' || r->buf[0] == 0)
			continue;
		if (parse_fields(r->buf, v))
			return SPOOR_E_SYNTAX;
		if (!v[0])
			continue;	/* not a valid row */
		row->addr = v[1];
		row->insn = v[2];
		row->priv = v[3];
		row->exception = v[4];
		row->ecause = v[5];
		row->tval = v[6];
		row->interrupt = v[7];
		return 1;
	}
}

/* Returns true when @in jumps to a target the previous row's auipc/lui/c.lui fixed. */
static bool is_sijump(const struct spoor_spike_reader *r, const struct spoor_insn *in)
{
	return r->cfg.sijump && r->have_prev && (r->prev.flags & SPOOR_INSN_UPPER) &&
	       r->prev.rd == in->rs1;
}

/* Returns the itype of the retired, non-trapping row @row (@next: the row after it or NULL). */
static unsigned row_itype(struct spoor_spike_reader *r, const struct spike_row *row,
			  const struct spike_row *next, const struct spoor_insn *in,
			  struct spoor_ingress *rec)
{
	uint32_t flags = 0;
	bool taken;

	if (r->cfg.flags & SPOOR_SPIKE_REFERENCE)
		flags |= SPOOR_INGRESS_REFERENCE;
	if (r->cfg.flags & SPOOR_SPIKE_X1X5)
		flags |= SPOOR_INGRESS_X1X5;
	/* The last row's outcome is unknown: taken, like the reference. */
	taken = !next || next->addr != row->addr + in->len;
	rec->sijump = in->cls == SPOOR_INSN_JALR && is_sijump(r, in);
	return spoor_ingress_itype(in, taken, rec->sijump, r->cfg.itype_width, flags);
}

/* Returns 0 after turning @row into the ingress record @rec, or SPOOR_E_BAD_INSN. */
static int make_record(struct spoor_spike_reader *r, const struct spike_row *row,
		       const struct spike_row *next, struct spoor_ingress *rec)
{
	bool ref = r->cfg.flags & SPOOR_SPIKE_REFERENCE;
	uint64_t int_bit = UINT64_C(1) << (r->cfg.xlen - 1);
	struct spoor_insn in;

	memset(rec, 0, sizeof(*rec));
	spoor_insn_decode((uint32_t)row->insn, r->cfg.xlen, &in);
	if (in.len != 2 && in.len != 4)
		return SPOOR_E_BAD_INSN;	/* 48-bit and longer: no ilastsize for them */
	rec->iaddr = row->addr;
	rec->priv = (uint8_t)row->priv;
	rec->ilastsize = in.len == 4;
	rec->iretire = 1;
	if (row->interrupt) {
		rec->itype = SPOOR_ITYPE_INTERRUPT;
		rec->iretire = 0;
		rec->cause = row->ecause & ~(int_bit | UINT64_C(1) << 63);
	} else if (row->exception) {
		rec->itype = SPOOR_ITYPE_EXCEPTION;
		/* ecall, ebreak and c.ebreak retire, then trap. */
		rec->iretire = in.cls == SPOOR_INSN_ECALL;
		rec->cause = row->ecause;
		rec->tval = row->tval;
	} else {
		rec->itype = (uint8_t)row_itype(r, row, next, &in, rec);
	}
	if (ref) {
		/* The post-iss step reads cause and tval as 8-bit values. */
		rec->cause &= 0xff;
		rec->tval &= 0xff;
	}
	r->prev = in;
	r->have_prev = true;
	return 0;
}

int spoor_spike_next(struct spoor_spike_reader *r, struct spoor_ingress *rec)
{
	bool have_next;
	int ret;

	if (!r || !rec)
		return SPOOR_E_INVAL;
	if (!r->have_cur) {
		ret = read_row(r, &r->cur);
		if (ret <= 0)
			return ret;
		r->have_cur = true;
	}
	ret = read_row(r, &r->next);
	if (ret < 0)
		return ret;
	have_next = ret > 0;
	ret = make_record(r, &r->cur, have_next ? &r->next : NULL, rec);
	if (ret)
		return ret;
	r->cur = r->next;
	r->have_cur = have_next;
	return 1;
}
