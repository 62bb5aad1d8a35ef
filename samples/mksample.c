// SPDX-License-Identifier: MIT
/*
 * Writes the bundled demo capture: te_inst packets of two harts (srcID 0
 * and 1) in Siemens messaging, the way a trace probe receives them: idle
 * fill, periodic sync sequences, timestamps on some frames, and one
 * corrupted stretch the deframer must recover from.  Parameters: demo.ini.
 * usage: mksample OUT.bin
 */
#include <stdio.h>
#include <string.h>

#include "spoor/encap.h"
#include "spoor/error.h"
#include "spoor/te_inst.h"

struct writer {
	FILE *f;
	struct spoor_params p;
	struct spoor_encap_config e;
	unsigned long long ts;
	int err;
};

/* Encodes @pkt for hart @src and writes it as one Siemens frame. */
static void emit(struct writer *w, unsigned src, struct spoor_te_inst *pkt, int with_ts)
{
	uint8_t payload[SPOOR_TE_MAX_PAYLOAD], frame[SPOOR_FRAME_MAX];
	struct spoor_frame frm = { 0 };
	int n;

	n = spoor_te_inst_encode(&w->p, pkt, payload, sizeof(payload));
	if (n < 0) {
		w->err = n;
		return;
	}
	frm.source = src;
	frm.msg = SPOOR_MSG_TE_INST;
	frm.payload = payload;
	frm.payload_len = (uint32_t)n;
	frm.has_timestamp = with_ts;
	frm.timestamp = (w->ts += 97) & 0xffff;
	n = spoor_encap_encode(&w->e, &frm, frame, sizeof(frame));
	if (n < 0) {
		w->err = n;
		return;
	}
	fwrite(frame, 1, (size_t)n, w->f);
}

static void bytes(struct writer *w, const uint8_t *b, size_t n)
{
	fwrite(b, 1, n, w->f);
}

static void sync_seq(struct writer *w)
{
	uint8_t seq[64];
	int n = spoor_encap_sync_sequence(&w->e, 0, seq, sizeof(seq));

	if (n < 0)
		w->err = n;
	else
		bytes(w, seq, (size_t)n);
}

static void support(struct writer *w, unsigned src, unsigned qual, unsigned ioptions)
{
	struct spoor_te_inst pkt = { 0 };

	spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_SYNC);
	spoor_te_set(&pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_SYNC_SUPPORT);
	spoor_te_set(&pkt, SPOOR_TE_F_IENABLE, 1);
	spoor_te_set(&pkt, SPOOR_TE_F_ENCODER_MODE, 0);
	spoor_te_set(&pkt, SPOOR_TE_F_QUAL_STATUS, qual);
	spoor_te_set(&pkt, SPOOR_TE_F_IOPTIONS, ioptions);
	spoor_te_set(&pkt, SPOOR_TE_F_DENABLE, 0);
	spoor_te_set(&pkt, SPOOR_TE_F_DLOSS, 0);
	spoor_te_set(&pkt, SPOOR_TE_F_DOPTIONS, 0);
	emit(w, src, &pkt, 1);
}

static void start(struct writer *w, unsigned src, uint64_t addr, unsigned priv, unsigned ctx)
{
	struct spoor_te_inst pkt = { 0 };

	spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_SYNC);
	spoor_te_set(&pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_SYNC_START);
	spoor_te_set(&pkt, SPOOR_TE_F_BRANCH, 1);
	spoor_te_set(&pkt, SPOOR_TE_F_PRIVILEGE, priv);
	spoor_te_set(&pkt, SPOOR_TE_F_CONTEXT, ctx);
	spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, addr >> w->p.iaddress_lsb_p);
	emit(w, src, &pkt, 1);
}

static void trap(struct writer *w, unsigned src, uint64_t handler, unsigned cause, int irq)
{
	struct spoor_te_inst pkt = { 0 };

	spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_SYNC);
	spoor_te_set(&pkt, SPOOR_TE_F_SUBFORMAT, SPOOR_TE_SYNC_TRAP);
	spoor_te_set(&pkt, SPOOR_TE_F_BRANCH, 1);
	spoor_te_set(&pkt, SPOOR_TE_F_PRIVILEGE, 3);
	spoor_te_set(&pkt, SPOOR_TE_F_CONTEXT, 0);
	spoor_te_set(&pkt, SPOOR_TE_F_ECAUSE, cause);
	spoor_te_set(&pkt, SPOOR_TE_F_INTERRUPT, (uint64_t)irq);
	spoor_te_set(&pkt, SPOOR_TE_F_THADDR, 1);
	spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS, handler >> w->p.iaddress_lsb_p);
	spoor_te_set(&pkt, SPOOR_TE_F_TVAL, 0);
	emit(w, src, &pkt, 0);
}

/* Format 1 (map only when @delta is 0 and branches is 31) or format 2. */
static void branches(struct writer *w, unsigned src, unsigned n, uint32_t map, int64_t delta,
		     uint32_t status)
{
	struct spoor_te_inst pkt = { 0 };

	if (n) {
		spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_BRANCH);
		spoor_te_set(&pkt, SPOOR_TE_F_BRANCHES, n == 31 && !delta ? 0 : n);
		spoor_te_set(&pkt, SPOOR_TE_F_BRANCH_MAP, map);
		if (n == 31 && !delta) {
			emit(w, src, &pkt, 0);
			return;
		}
	} else {
		spoor_te_set(&pkt, SPOOR_TE_F_FORMAT, SPOOR_TE_FORMAT_ADDR);
	}
	spoor_te_set(&pkt, SPOOR_TE_F_ADDRESS,
		     ((uint64_t)delta >> w->p.iaddress_lsb_p) & (~0ull >> w->p.iaddress_lsb_p));
	spoor_te_inst_set_status(&w->p, &pkt, status, 0);
	emit(w, src, &pkt, 0);
}

int main(int argc, char **argv)
{
	static const uint8_t idle[7] = { 0 };
	/* A header whose length cannot hold the index and type: impossible. */
	static const uint8_t garbage[] = { 0x01, 0xde, 0xad, 0x41, 0xbe, 0xef };
	struct writer w = { 0 };

	static const char usage[] =
		"usage: mksample OUT.bin\n"
		"Writes the sample Siemens-messaging trace stream (samples/demo.ini's) to OUT.bin.\n";

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	w.f = fopen(argv[1], "wb");
	if (!w.f) {
		perror(argv[1]);
		return 1;
	}
	spoor_params_init(&w.p);
	w.p.iaddress_width_p = 64;
	w.p.ecause_width_p = 6;
	w.p.context_width_p = 16;
	w.p.nocontext_p = 0;
	spoor_encap_config_init(&w.e, SPOOR_ENCAP_SIEMENS);

	bytes(&w, (const uint8_t[]){ 0x3c, 0x99, 0x12 }, 3);	/* tail of an earlier packet */
	sync_seq(&w);
	support(&w, 0, SPOOR_TE_QUAL_NO_CHANGE, 0);
	support(&w, 1, SPOOR_TE_QUAL_NO_CHANGE, 1u << 2);	/* hart 1: full addresses */
	start(&w, 0, 0x80000000, 3, 0);
	start(&w, 1, 0x80002000, 3, 1);
	branches(&w, 0, 5, 0x15, 0x124, 0);
	branches(&w, 1, 0, 0, 0x80002040, 0);
	bytes(&w, idle, sizeof(idle));
	branches(&w, 0, 31, 0x2aaaaaaa, 0, 0);
	branches(&w, 0, 12, 0xabc, -0x3e, 0);
	branches(&w, 1, 3, 0x5, 0x8000211e, SPOOR_TE_UPDISCON);
	trap(&w, 1, 0x80000100, 7, 1);
	branches(&w, 0, 0, 0, 0x40, SPOOR_TE_NOTIFY);
	sync_seq(&w);
	branches(&w, 1, 0, 0, 0x80000180, 0);
	bytes(&w, garbage, sizeof(garbage));	/* corruption on the wire */
	branches(&w, 0, 2, 0x1, 0x10, 0);	/* lost: inside the corrupt stretch */
	sync_seq(&w);
	start(&w, 0, 0x80000410, 1, 0);
	branches(&w, 0, 7, 0x31, 0x1c, 0);
	start(&w, 1, 0x80002000, 3, 1);
	support(&w, 0, SPOOR_TE_QUAL_ENDED_REP, 0);
	support(&w, 1, SPOOR_TE_QUAL_ENDED_NTR, 1u << 2);
	bytes(&w, idle, 3);
	if (fclose(w.f) != 0 || w.err) {
		fprintf(stderr, "mksample: %s\n", w.err ? spoor_errstr(w.err) : "write failed");
		return 1;
	}
	return 0;
}
